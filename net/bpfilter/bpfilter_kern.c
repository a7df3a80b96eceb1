// SPDX-License-Identifier: GPL-2.0
/*
 * bpfilter.ko: the iptables and ip6tables socket options served by
 * user-mode helpers, one per tenant. This file holds the module's life:
 * the helpers, the per-namespace state and the tables the kernel keeps so
 * that a helper that died can be brought back to the same state.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/bpfilter.h>
#include <linux/filter.h>
#include <linux/module.h>
#include <linux/netfilter.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "bpfilter.h"

/* A helper that restarts keeps answering -ESTALE until it is replayed. */
#define BPFILTER_REPLAYS	3

struct bpfilter bpfilter = {
	.lock = __MUTEX_INITIALIZER(bpfilter.lock),
	.helpers = LIST_HEAD_INIT(bpfilter.helpers),
};

/* A namespace gone, whose tables the helper is yet to forget */
struct bpfilter_exited {
	struct list_head list;
	u64 cookie;
};

static unsigned int bpfilter_net_id __read_mostly;

struct bpfilter_net *bpfilter_net(const struct net *net)
{
	return net_generic(net, bpfilter_net_id);
}

/* A table's copy, which a replay may still be sending when it goes */
struct bpfilter_copy {
	refcount_t ref;
	u64 bytes[];
};

/**
 * bpfilter_copy_alloc - memory for the kernel's copy of a table
 * @len: its length
 *
 * Charged to the caller's memory cgroup. Freed with the table
 * (bpfilter_free_table()), or after a replay that still sends it.
 *
 * Return: the memory, or NULL.
 */
void *bpfilter_copy_alloc(size_t len)
{
	struct bpfilter_copy *c;

	c = kvmalloc(size_add(sizeof(*c), len), GFP_KERNEL_ACCOUNT);
	if (!c)
		return NULL;
	refcount_set(&c->ref, 1);
	return c->bytes;
}

static void bpfilter_copy_get(void *copy)
{
	refcount_inc(&container_of(copy, struct bpfilter_copy, bytes)->ref);
}

static void bpfilter_copy_put(void *copy)
{
	struct bpfilter_copy *c;

	if (!copy)
		return;
	c = container_of(copy, struct bpfilter_copy, bytes);
	if (refcount_dec_and_test(&c->ref))
		kvfree(c);
}

void bpfilter_free_table(struct bpfilter_table *t)
{
	if (!t)
		return;
	/* A packet may still run it: programs are freed after RCU. */
	if (t->prog)
		bpf_prog_put(t->prog);
	if (t->run)
		kfree_rcu(t->run, rcu);
	/* The kernel's extensions are not: wait for the hooks to be done. */
	if (t->xt && t->published)
		synchronize_net();
	bpfilter_xt_destroy(t->xt);
	kvfree(t->slot);
	kvfree(t->base);
	kvfree(t->view);
	bpfilter_copy_put(t->req);
	kfree(t);
}

/*
 * The bytes of JIT images the tables of a tenant other than init_user_ns
 * may hold. The helper loads their programs with CAP_BPF, so
 * bpf_jit_limit does not apply to them, and no memory cgroup pays for a
 * JIT image: without this, one tenant could take the executable memory
 * every other user of BPF needs. 64 MiB holds a dozen of the largest
 * programs the helper makes (BF_MAX_INSNS instructions).
 */
static unsigned int bpfilter_tenant_jit_kb = 65536;
module_param_named(tenant_jit_kb, bpfilter_tenant_jit_kb, uint, 0644);
MODULE_PARM_DESC(tenant_jit_kb, "KiB of JIT images the tables of a tenant other than the initial user namespace may hold (default: 65536)");

/* The bytes of executable memory @prog takes, as bpftool shows them. */
static long bpfilter_jit_size(const struct bpf_prog *prog)
{
	long size = 0;
	u32 i;

	if (!prog->jited)
		return 0;
	if (!prog->aux->func_cnt)
		return prog->jited_len;
	for (i = 0; i < prog->aux->func_cnt; i++)
		size += prog->aux->func[i]->jited_len;
	return size;
}

/*
 * Charges @t's JIT image to the tenant's helper @h, unless @t, in place
 * of @old, would take the tenant past its limit: the table then fails
 * with -ENOMEM, as ip_tables fails a table it has no memory for. @old
 * stays charged until it goes, but what it gives back counts already, so
 * that a table no larger than the one it replaces always goes in: a
 * one-rule change that keeps its program, or a flush under a limit that
 * was lowered. Meanwhile both count against another namespace's table.
 */
static int bpfilter_charge_jit(struct bpfilter_helper *h,
			       struct bpfilter_table *t,
			       const struct bpfilter_table *old,
			       const struct bpf_prog *prog)
{
	long limit = min_t(unsigned long, READ_ONCE(bpfilter_tenant_jit_kb),
			   LONG_MAX / SZ_1K) * SZ_1K;
	long size = bpfilter_jit_size(prog);
	long freed = old ? old->jit : 0;

	if (atomic_long_add_return(size, &h->jit) - freed > limit &&
	    size > freed && h->tenant != &init_user_ns) {
		atomic_long_sub(size, &h->jit);
		pr_info_ratelimited("table's JIT image of %ld KiB over its tenant's budget of %ld KiB (module parameter tenant_jit_kb)\n",
				    DIV_ROUND_UP(size, SZ_1K), limit / SZ_1K);
		return -ENOMEM;
	}
	t->jit = size;
	return 0;
}

/*
 * What a table of @family in @bn holds while it may be in force: its
 * program's JIT image, charged to its tenant; conntrack, as the
 * checkentry of the state match would for ip_tables, if the helper's
 * BPFILTER_TABLE_* @flags say that @prog reads the state. The kernel's
 * matches and targets hold what they need themselves (see
 * bpfilter_xt_check()).
 */
int bpfilter_hold(struct bpfilter_net *bn, int family,
		  struct bpfilter_table *t, const struct bpf_prog *prog,
		  u32 flags)
{
	int err;

	err = bpfilter_charge_jit(bn->helper, t, bn->filter[family], prog);
	if (err)
		return err;
	if (flags & BPFILTER_TABLE_CONNTRACK) {
		err = bpfilter_conntrack_get(bn, family);
		if (err) {
			bpfilter_unhold(bn, family, t);
			return err;
		}
		t->conntrack = true;
	}
	return 0;
}

void bpfilter_unhold(struct bpfilter_net *bn, int family,
		     struct bpfilter_table *t)
{
	if (t->conntrack)
		bpfilter_conntrack_put(bn, family);
	t->conntrack = false;
	atomic_long_sub(t->jit, &bn->helper->jit);
	t->jit = 0;
}

/* Frees a table that was installed in @bn, and what it held there. */
void bpfilter_release_table(struct bpfilter_net *bn, int family,
			    struct bpfilter_table *t)
{
	if (t)
		bpfilter_unhold(bn, family, t);
	bpfilter_free_table(t);
}

/*
 * Installs @t as the filter table of @family in @bn (NULL: ip_tables serves
 * it), and its program at the hooks, keeping the list of namespaces to
 * replay and the module's reference on itself up to date. @gen is the
 * generation of the helper state that took the change: if the helper has
 * been given the tables since, it lacks the change, and gets the tables
 * again before the next request. Returns the old table, for the caller to
 * free; packets may still run its program until synchronize_net().
 */
struct bpfilter_table *bpfilter_set_table(struct bpfilter_net *bn, int family,
					  struct bpfilter_table *t, u64 gen)
{
	struct bpfilter_table *old = bn->filter[family];
	struct bpfilter_helper *h = bn->helper;
	bool had = bn->filter[BPFILTER_IPV4] || bn->filter[BPFILTER_IPV6];
	bool has;

	lockdep_assert_held(&bn->lock);

	mutex_lock(&bpfilter.lock);
	if (t && !t->initial && !bpfilter.pinned++)
		__module_get(THIS_MODULE);
	if (old && !old->initial && !--bpfilter.pinned)
		module_put(THIS_MODULE);

	bn->filter[family] = t;
	if (t)
		t->published = true;
	rcu_assign_pointer(bn->run[family], t ? t->run : NULL);
	has = bn->filter[BPFILTER_IPV4] || bn->filter[BPFILTER_IPV6];
	if (has && !had)
		list_add(&bn->list, &h->nets);
	else if (had && !has)
		list_del(&bn->list);
	if (gen != BPFILTER_GEN_ANY) {
		h->changes++;
		if (gen != h->gen)
			h->resync = true;
	}
	mutex_unlock(&bpfilter.lock);
	if (!t)
		bpfilter_unhook(bn, family);
	return old;
}

/* A reply is a struct bpfilter_reply and the @len bytes it announces. */
static int bpfilter_check_reply(const struct bpfilter_reply *reply, int len)
{
	if (len < sizeof(*reply) || reply->len != len - sizeof(*reply) ||
	    reply->action > BPFILTER_CHECK || reply->ret < -MAX_ERRNO)
		return -EPROTO;
	return len;
}

/*
 * Sends a message whose reply is a bare struct bpfilter_reply. Returns
 * the transport's errno or -EPROTO; else 0, the helper's answer in @ret.
 */
static int bpfilter_send(struct bpfilter_helper *h, u32 type,
			 const void *req, size_t len, int *ret)
{
	struct bpfilter_reply reply;
	int err;

	err = umd_call(&h->umd, type, req, len, &reply, sizeof(reply),
		       BPFILTER_TIMEOUT);
	if (err >= 0)
		err = bpfilter_check_reply(&reply, err);
	if (err < 0)
		return err;
	*ret = reply.ret;
	return 0;
}

/* bpfilter_send() of a table or a change, which the helper must take. */
static int bpfilter_send_change(struct bpfilter_helper *h, u32 type,
				const void *req, size_t len)
{
	int err, ret;

	err = bpfilter_send(h, type, req, len, &ret);
	return err ?: min(ret, 0);
}

/*
 * Brings @h to the kernel's state: HELLO (which makes it forget
 * everything), then every table of its namespaces. The tables are taken
 * under bpfilter.lock and sent without it, so that nothing waits for a
 * replay but requests; a table changed meanwhile, or a resync asked for
 * meanwhile, leaves @resync set, for another replay. A replay that fails
 * leaves @resync set: the helper serves nothing until one succeeds.
 */
static int bpfilter_replay(struct bpfilter_helper *h)
{
	struct bpfilter_exited *x, *tmp;
	struct bpfilter_reply reply;
	struct bpfilter_net *bn;
	struct {
		void *req;
		size_t len;
	} *copies;
	unsigned int n = 0, i;
	u64 changes;
	int err, f;

	lockdep_assert_held(&h->call_lock);

	err = umd_call(&h->umd, BPFILTER_MSG_HELLO, NULL, 0, &reply,
		       sizeof(reply), BPFILTER_TIMEOUT);
	if (err < 0)
		return err;
	if (err != sizeof(reply) || reply.ret != BPFILTER_PROTO_VERSION) {
		pr_err("helper speaks another protocol\n");
		return -EPROTO;
	}

	err = 0;
	mutex_lock(&bpfilter.lock);
	/* The helper forgot everything: set until the tables are back. */
	h->resync = true;
	/* And the namespaces gone so far, which are not sent again. */
	list_for_each_entry_safe(x, tmp, &h->exited, list)
		kfree(x);
	INIT_LIST_HEAD(&h->exited);
	list_for_each_entry(bn, &h->nets, list)
		n += BPFILTER_NFAMILIES;
	copies = kvmalloc_array(n, sizeof(*copies), GFP_KERNEL);
	if (!copies) {
		mutex_unlock(&bpfilter.lock);
		return -ENOMEM;
	}
	n = 0;
	list_for_each_entry(bn, &h->nets, list) {
		for (f = 0; f < BPFILTER_NFAMILIES; f++) {
			struct bpfilter_table *t = bn->filter[f];

			if (!t)
				continue;
			bpfilter_copy_get(t->req);
			copies[n].req = t->req;
			copies[n++].len = t->len;
		}
	}
	changes = h->changes;
	mutex_unlock(&bpfilter.lock);

	for (i = 0; i < n; i++) {
		if (!err)
			err = bpfilter_send_change(h, BPFILTER_MSG_LOAD,
						   copies[i].req,
						   copies[i].len);
		bpfilter_copy_put(copies[i].req);
	}
	kvfree(copies);
	if (err < 0)
		return err;

	mutex_lock(&bpfilter.lock);
	h->gen++;
	h->resync = h->changes != changes;
	mutex_unlock(&bpfilter.lock);
	return 0;
}

/*
 * Tells the helper to forget the namespaces gone since the last request.
 * What it may not have been told stays queued, until it is told or a
 * replay makes it forget everything; a helper that broke the protocol is
 * stopped, and the next one starts from the kernel's tables.
 */
static void bpfilter_forget_exited(struct bpfilter_helper *h)
{
	struct bpfilter_exited *x, *tmp;
	struct bpfilter_req req;
	LIST_HEAD(exited);
	int err, ret;

	lockdep_assert_held(&h->call_lock);

	/* A helper that is not running forgets everything when it starts. */
	if (!umd_alive(&h->umd))
		return;
	mutex_lock(&bpfilter.lock);
	list_splice_init(&h->exited, &exited);
	mutex_unlock(&bpfilter.lock);
	list_for_each_entry_safe(x, tmp, &exited, list) {
		memset(&req, 0, sizeof(req));
		req.net_cookie = x->cookie;
		/* Whatever it answers, the helper was told. */
		err = bpfilter_send(h, BPFILTER_MSG_NET_EXIT, &req,
				    sizeof(req), &ret);
		if (err == -EPROTO)
			umd_stop(&h->umd);
		if (err < 0)
			break;
		list_del(&x->list);
		kfree(x);
	}
	mutex_lock(&bpfilter.lock);
	list_splice(&exited, &h->exited);
	mutex_unlock(&bpfilter.lock);
}

/*
 * The tenant of a namespace owned by @ns: the outermost user namespace
 * under init_user_ns that holds @ns, so that the user namespaces nested
 * in a tenant's are the tenant's, or init_user_ns for its own.
 */
static const struct user_namespace *
bpfilter_tenant(const struct user_namespace *ns)
{
	while (ns->parent && ns->parent != &init_user_ns)
		ns = ns->parent;
	return ns;
}

/*
 * Whom a helper that the caller starts is charged to. A tenant's helper
 * runs in the cgroups of the request that starts it, when the caller is
 * of the tenant: the tenant pays for the helper's memory, maps and
 * programs. One that a caller from outside the tenant starts (root
 * entering a tenant's namespace) runs in the root cgroups rather than in
 * the caller's, which would pay for it and could not be removed while it
 * runs. A worker does not start a tenant's helper at all (umd_start()
 * refuses, -EPIPE): the tenant's next request does. init_user_ns'
 * helpers serve root's namespaces, from the root cgroups. The helper
 * stays where it started until it stops: its cgroup's freezer and
 * cgroup.kill reach it, which delays or fails only the tenant's requests.
 */
static void bpfilter_charge(struct bpfilter_helper *h)
{
	const struct user_namespace *ns = bpfilter_tenant(current_user_ns());
	bool charge;

	lockdep_assert_held(&h->call_lock);
	if (h->tenant == &init_user_ns)
		charge = false;
	else if (current->flags & PF_KTHREAD)
		charge = true;
	else if (h->tenant)
		charge = ns == h->tenant;
	else	/* a user's own processes may hold its namespaces' sockets */
		charge = uid_eq(ns->owner, h->owner) ||
			 uid_eq(current_euid(), h->owner);
	h->umd.starter_cgroups = charge;
}

/*
 * The helper is told of the namespaces gone as soon as it is free, so that
 * it does not keep their tables until the next request, nor make that
 * request wait for them.
 */
static void bpfilter_exited_work(struct work_struct *work)
{
	struct bpfilter_helper *h = container_of(work, struct bpfilter_helper,
						 exited_work);

	mutex_lock(&h->call_lock);
	bpfilter_charge(h);
	bpfilter_forget_exited(h);
	mutex_unlock(&h->call_lock);
}

/*
 * The helper forgets the tables of @bn, then gets the kernel's: after a
 * change of that namespace alone whose outcome is unknown (its caller was
 * killed), or that the kernel did not make (it failed to install the
 * table the helper took, or dropped one the helper was not told of). The
 * other namespaces are left alone. Returns 0, an errno of the transport,
 * or the helper's, which the request that needed the reload fails with.
 */
static int bpfilter_reload_net(struct bpfilter_net *bn)
{
	struct bpfilter_req req = { .net_cookie = bn->cookie };
	struct bpfilter_helper *h = bn->helper;
	struct bpfilter_exited *x, *tmp;
	int err, f;

	lockdep_assert_held(&bn->lock);
	lockdep_assert_held(&h->call_lock);

	/* A NET_EXIT still queued for @bn would drop what is loaded now. */
	mutex_lock(&bpfilter.lock);
	list_for_each_entry_safe(x, tmp, &h->exited, list) {
		if (x->cookie == bn->cookie) {
			list_del(&x->list);
			kfree(x);
		}
	}
	mutex_unlock(&bpfilter.lock);
	err = bpfilter_send_change(h, BPFILTER_MSG_NET_EXIT, &req,
				   sizeof(req));
	for (f = 0; f < BPFILTER_NFAMILIES && !err; f++)
		if (bn->filter[f])
			err = bpfilter_send_change(h, BPFILTER_MSG_LOAD,
						   bn->filter[f]->req,
						   bn->filter[f]->len);
	if (err == -EPROTO)
		umd_stop(&h->umd);
	if (!err)
		bn->stale = false;
	return err;
}

/*
 * Types that change the helper's state: of unknown outcome, the helper
 * gets the tables again, the namespace's or all.
 */
static bool bpfilter_changes(u32 type)
{
	return type != BPFILTER_MSG_GET;
}

/*
 * @h may hold other tables than the kernel: it gets the kernel's tables
 * before the next request.
 */
static void bpfilter_resync(struct bpfilter_helper *h)
{
	mutex_lock(&bpfilter.lock);
	h->resync = true;
	/* A replay in progress must not clear it. */
	h->changes++;
	mutex_unlock(&bpfilter.lock);
}

/**
 * bpfilter_broken - a helper broke the protocol: stop it
 * @bn: the namespace whose request it answered
 *
 * The next request of its tenant starts a new helper and gives it the
 * kernel's tables. A request of another of the tenant's namespaces in
 * flight fails (-EPIPE) and marks the helper for the same replay; other
 * tenants' helpers are not touched.
 *
 * Context: Process context. Takes bpfilter.lock.
 */
void bpfilter_broken(struct bpfilter_net *bn)
{
	umd_stop(&bn->helper->umd);
	bpfilter_resync(bn->helper);
}

/**
 * bpfilter_is_helper - whether current is one of the module's helpers
 *
 * Context: Any context that may take a spinlock.
 * Return: true if current's thread group is a running helper.
 */
bool bpfilter_is_helper(void)
{
	struct bpfilter_helper *h;
	bool found = false;
	struct pid *pid;

	rcu_read_lock();
	list_for_each_entry_rcu(h, &bpfilter.helpers, list) {
		pid = umd_get_pid(&h->umd);
		found = pid && pid == task_tgid(current);
		put_pid(pid);
		if (found)
			break;
	}
	rcu_read_unlock();
	return found;
}

/**
 * bpfilter_call - a request to the helper of a namespace
 * @bn: the caller's namespace; its lock held if @type changes its tables
 * @type: enum bpfilter_msg_type
 * @req: the request, a struct bpfilter_req and its bytes
 * @len: its length
 * @reply: buffer for the reply, a struct bpfilter_reply and its bytes
 * @size: its size
 * @gen: if not NULL, set to the generation of the helper that served it
 *
 * The request goes to the helper of @bn's tenant, and waits only for the
 * tenant's other requests. A helper started since the last call answers
 * -ESTALE; it is then given every table of the tenant's namespaces and
 * the request is sent again. After a change whose outcome is unknown
 * because the helper died or timed out, the helper is given the tables
 * again before the next request; one that broke the protocol is stopped
 * first. After one of @bn whose caller was killed, only @bn's tables are,
 * before @bn's next request: a caller killing its own requests neither
 * makes the helper replay every namespace nor uses up the restarts other
 * callers need. Namespaces that went away are forgotten first: their exit
 * does not wait for the helper.
 *
 * Context: Process context. Takes the helper's call_lock, killably, and
 * bpfilter.lock.
 * Return: the length of the reply, the helper's answer in @reply->ret;
 * or, @reply untouched, a negative errno of the transport (-EINTR:
 * killed, before the request was sent or while waiting for its reply or
 * for @bn's tables to be given again), or the helper's errno for one of
 * @bn's tables given again.
 */
int bpfilter_call(struct bpfilter_net *bn, u32 type, const void *req,
		  size_t len, struct bpfilter_reply *reply, size_t size,
		  u64 *gen)
{
	struct bpfilter_helper *h = bn->helper;
	bool change = bpfilter_changes(type);
	int err, tries;
	bool resync;

	if (change)
		lockdep_assert_held(&bn->lock);
	err = mutex_lock_killable(&h->call_lock);
	if (err)
		return err;
	bpfilter_charge(h);
	bpfilter_forget_exited(h);
	mutex_lock(&bpfilter.lock);
	resync = h->resync;
	mutex_unlock(&bpfilter.lock);
	err = resync ? bpfilter_replay(h) : 0;
	for (tries = 0; !err; tries++) {
		if (change && bn->stale)
			err = bpfilter_reload_net(bn);
		if (!err)
			err = umd_call(&h->umd, type, req, len, reply, size,
				       BPFILTER_TIMEOUT);
		if (err != -ESTALE)
			break;
		err = tries < BPFILTER_REPLAYS ? bpfilter_replay(h) : -EIO;
	}
	if (err >= 0) {
		err = bpfilter_check_reply(reply, err);
		if (err < 0)
			umd_stop(&h->umd);
	}
	/* A request too big for a message was never sent: nothing changed. */
	if (err < 0 && err != -EMSGSIZE && change) {
		if (err == -EINTR)
			bpfilter_forget_net(bn);
		else
			bpfilter_resync(h);
	}
	if (err >= 0 && gen)
		*gen = h->gen;
	mutex_unlock(&h->call_lock);
	return err;
}

/*
 * Whether @tenant has a helper of its own. A user namespace that root
 * made (a container manager's) has: root decides how many there are. All
 * of those of one other user are that user's, who may make as many as
 * max_user_namespaces allows: one helper serves them all, and no user
 * can make the kernel run more than one helper process.
 */
static bool bpfilter_own_helper(const struct user_namespace *tenant)
{
	return tenant == &init_user_ns || uid_eq(tenant->owner, GLOBAL_ROOT_UID);
}

/*
 * Whether @net has a helper of its own, apart from its tenant's: init_net
 * has, so that the host's iptables never waits for the tables of a
 * container without a user namespace (whose root may have CAP_NET_ADMIN
 * in it); the other namespaces of init_user_ns share one.
 */
static bool bpfilter_alone(const struct net *net)
{
	return net_eq(net, &init_net);
}

static bool bpfilter_serves(const struct bpfilter_helper *h,
			    const struct user_namespace *tenant, bool alone)
{
	if (h->alone || alone)
		return h->alone && alone;
	if (bpfilter_own_helper(tenant))
		return h->tenant == tenant;
	return !h->tenant && uid_eq(h->owner, tenant->owner);
}

/*
 * Stops a helper that nobody uses any more. From a worker: the last user
 * may be a namespace's exit, which must not wait for a helper.
 */
static void bpfilter_helper_free(struct work_struct *work)
{
	struct bpfilter_helper *h = container_of(work, struct bpfilter_helper,
						 free_work);
	struct bpfilter_exited *x, *tmp;

	/* The helper goes: what it was to forget goes with it. */
	cancel_work_sync(&h->exited_work);
	umd_destroy(&h->umd);
	list_for_each_entry_safe(x, tmp, &h->exited, list)
		kfree(x);
	mutex_destroy(&h->call_lock);
	/* bpfilter_is_helper() may still be looking at it. */
	kfree_rcu(h, rcu);
}

/*
 * A helper for @tenant, or for init_net alone if @alone, with no process
 * yet; or NULL.
 */
static struct bpfilter_helper *
bpfilter_helper_new(const struct user_namespace *tenant, bool alone)
{
	struct bpfilter_helper *h;

	/* Charged to whoever made the tenant's first namespace. */
	h = kzalloc_obj(*h, GFP_KERNEL_ACCOUNT);
	if (!h)
		return NULL;
	if (umd_init_shared(&h->umd, &bpfilter.image)) {
		kfree(h);
		return NULL;
	}
	mutex_init(&h->call_lock);
	if (bpfilter_own_helper(tenant))
		h->tenant = tenant;
	h->owner = tenant->owner;
	h->alone = alone;
	h->users = 1;
	INIT_LIST_HEAD(&h->nets);
	INIT_LIST_HEAD(&h->exited);
	INIT_WORK(&h->exited_work, bpfilter_exited_work);
	INIT_WORK(&h->free_work, bpfilter_helper_free);
	/* It starts without the tables, as a helper that restarted. */
	h->resync = true;
	return h;
}

/* The helper that serves @tenant (init_net if @alone), with a new use. */
static struct bpfilter_helper *
bpfilter_helper_find(const struct user_namespace *tenant, bool alone)
{
	struct bpfilter_helper *h;

	lockdep_assert_held(&bpfilter.lock);
	list_for_each_entry(h, &bpfilter.helpers, list) {
		if (bpfilter_serves(h, tenant, alone)) {
			h->users++;
			return h;
		}
	}
	return NULL;
}

/*
 * The helper of @net, with a new use; NULL without the memory for a new
 * one. Its process starts with its first request.
 */
static struct bpfilter_helper *bpfilter_helper_get(const struct net *net)
{
	const struct user_namespace *tenant = bpfilter_tenant(net->user_ns);
	bool alone = bpfilter_alone(net);
	struct bpfilter_helper *h, *new;

	mutex_lock(&bpfilter.lock);
	h = bpfilter_helper_find(tenant, alone);
	mutex_unlock(&bpfilter.lock);
	if (h)
		return h;
	/*
	 * Allocated without bpfilter.lock, so that the caller's memory
	 * cgroup reclaiming makes no other tenant wait.
	 */
	new = bpfilter_helper_new(tenant, alone);
	if (!new)
		return NULL;
	mutex_lock(&bpfilter.lock);
	h = bpfilter_helper_find(tenant, alone);
	if (!h)
		list_add_rcu(&new->list, &bpfilter.helpers);
	mutex_unlock(&bpfilter.lock);
	if (!h)
		return new;
	/* Another namespace of the tenant made it meanwhile. */
	umd_destroy(&new->umd);
	mutex_destroy(&new->call_lock);
	kfree(new);
	return h;
}

/*
 * Drops a use of @h. The last one stops it, from a worker; else @x, if
 * not NULL, is a namespace gone that @h is told to forget when it is free.
 */
static void bpfilter_helper_put(struct bpfilter_helper *h,
				struct bpfilter_exited *x)
{
	bool last;

	mutex_lock(&bpfilter.lock);
	last = !--h->users;
	/* A namespace of the tenant made from now on gets a new helper. */
	if (last) {
		list_del_rcu(&h->list);
	} else if (x) {
		list_add_tail(&x->list, &h->exited);
		/* Under the lock: the last put must find it queued. */
		queue_work(bpfilter.wq, &h->exited_work);
	}
	mutex_unlock(&bpfilter.lock);
	if (last) {
		kfree(x);
		queue_work(bpfilter.wq, &h->free_work);
	}
}

static const char *const bpfilter_family_name[BPFILTER_NFAMILIES] = {
	[BPFILTER_IPV4] = "ipv4",
	[BPFILTER_IPV6] = "ipv6",
};

/*
 * /proc/net/bpfilter: the tables the helper serves in this namespace, and
 * the helper's pid, if it runs and the reader can see it.
 */
static int bpfilter_proc_show(struct seq_file *seq, void *v)
{
	struct bpfilter_net *bn = bpfilter_net(seq_file_single_net(seq));
	struct pid *pid;
	pid_t nr = 0;
	int i;

	/* A change in progress may wait for a busy helper. */
	if (mutex_lock_killable(&bn->lock))
		return -EINTR;
	for (i = 0; i < BPFILTER_NFAMILIES; i++) {
		const struct bpfilter_table *t = bn->filter[i];

		if (t && t->prog)
			seq_printf(seq, "%s filter entries=%u prog=%u insns=%u\n",
				   bpfilter_family_name[i], t->number,
				   t->prog->aux->id, t->prog->len);
	}
	mutex_unlock(&bn->lock);
	pid = umd_get_pid(&bn->helper->umd);
	if (pid)
		nr = pid_vnr(pid);
	put_pid(pid);
	if (nr)
		seq_printf(seq, "helper pid=%d\n", nr);
	return 0;
}

static int __net_init bpfilter_net_init(struct net *net)
{
	struct bpfilter_net *bn = bpfilter_net(net);

	mutex_init(&bn->lock);
	bn->net = net;
	bn->cookie = net->net_cookie;
	INIT_LIST_HEAD(&bn->list);
	bn->helper = bpfilter_helper_get(net);
	if (!bn->helper)
		goto err;
	if (!proc_create_net_single("bpfilter", 0440, net->proc_net,
				    bpfilter_proc_show, NULL))
		goto err_put;
	return 0;

err_put:
	bpfilter_helper_put(bn->helper, NULL);
err:
	mutex_destroy(&bn->lock);
	return -ENOMEM;
}

/*
 * What tells the helper to forget @bn's tables when it is free: a worker
 * does (see bpfilter_helper_put()), as the exit runs under
 * pernet_ops_rwsem, which must not wait for the helper (another
 * namespace's table may be compiling). Without the memory to say so, the
 * helper gets its tenant's tables again, which forgets them.
 */
static struct bpfilter_exited *bpfilter_exit_later(struct bpfilter_net *bn)
{
	struct bpfilter_exited *x;

	if (READ_ONCE(bpfilter.unloading))
		return NULL;
	x = kmalloc_obj(*x, GFP_KERNEL);
	if (!x) {
		bpfilter_resync(bn->helper);
		return NULL;
	}
	x->cookie = bn->cookie;
	return x;
}

/**
 * bpfilter_forget_net - the helper forgets the tables of @bn when free
 * @bn: a namespace whose change the helper may have taken and the kernel
 *	did not make: refused, or its caller killed
 *
 * Until the namespace's next request gives it the kernel's tables again,
 * the helper would keep the table it took, with a program that no budget
 * counts. Told as soon as it is free, by the worker that tells it of the
 * namespaces gone, it lets the program go, and a tenant cannot leave such
 * programs in namespaces it never uses again, even by killing its own
 * requests. @bn is stale: its next request gives the helper the kernel's
 * tables.
 *
 * Context: Process context, @bn->lock held.
 */
void bpfilter_forget_net(struct bpfilter_net *bn)
{
	struct bpfilter_helper *h = bn->helper;
	struct bpfilter_exited *x;

	lockdep_assert_held(&bn->lock);
	bn->stale = true;
	x = bpfilter_exit_later(bn);
	if (!x)
		return;
	mutex_lock(&bpfilter.lock);
	list_add_tail(&x->list, &h->exited);
	queue_work(bpfilter.wq, &h->exited_work);
	mutex_unlock(&bpfilter.lock);
}

static void __net_exit bpfilter_net_exit(struct net *net)
{
	struct bpfilter_net *bn = bpfilter_net(net);
	struct bpfilter_exited *x = NULL;
	int i;

	remove_proc_entry("bpfilter", net->proc_net);

	/*
	 * No socket of the namespace is left (or, on unload, no caller in
	 * the module), so nobody holds bn->lock across a module load, which
	 * could wait for this exit.
	 */
	mutex_lock(&bn->lock);
	/* A stale namespace may have tables in the helper and none here. */
	if (bn->filter[BPFILTER_IPV4] || bn->filter[BPFILTER_IPV6] ||
	    bn->stale) {
		for (i = 0; i < BPFILTER_NFAMILIES; i++)
			bpfilter_release_table(bn, i,
					       bpfilter_set_table(bn, i, NULL,
								  BPFILTER_GEN_ANY));
		x = bpfilter_exit_later(bn);
	}
	for (i = 0; i < BPFILTER_NFAMILIES; i++)
		bpfilter_unhook(bn, i);
	mutex_unlock(&bn->lock);
	mutex_destroy(&bn->lock);
	bpfilter_helper_put(bn->helper, x);
}

static struct pernet_operations bpfilter_net_ops = {
	.init = bpfilter_net_init,
	.exit = bpfilter_net_exit,
	.id = &bpfilter_net_id,
	.size = sizeof(struct bpfilter_net),
};

static const struct bpfilter_ops bpfilter_sockopt_ops = {
	.setsockopt = bpfilter_setsockopt_ops,
	.getsockopt = bpfilter_getsockopt_ops,
	.owner = THIS_MODULE,
};

static int __init bpfilter_init(void)
{
	struct bpfilter_helper *h;
	int err;

	bpfilter.wq = alloc_workqueue("bpfilter", WQ_UNBOUND, 0);
	if (!bpfilter.wq)
		return -ENOMEM;
	err = umd_init(&bpfilter.image, "bpfilter_umh", bpfilter_umh_start,
		       bpfilter_umh_end - bpfilter_umh_start,
		       sizeof(struct umd_msg) + BPFILTER_MAX_MSG);
	if (err)
		goto err_wq;

	/* init_net's helper, kept while the module is: it must answer. */
	h = bpfilter_helper_get(&init_net);
	if (!h) {
		err = -ENOMEM;
		goto err_image;
	}
	bpfilter.init_helper = h;
	mutex_lock(&h->call_lock);
	err = bpfilter_replay(h);
	mutex_unlock(&h->call_lock);
	if (err) {
		pr_err("helper does not answer: %d\n", err);
		goto err_helper;
	}

	err = bpfilter_xt_init();
	if (err)
		goto err_helper;
	err = register_pernet_subsys(&bpfilter_net_ops);
	if (err)
		goto err_helper;
	err = bpfilter_register(&bpfilter_sockopt_ops);
	if (err)
		goto err_unregister_pernet;
	return 0;

err_unregister_pernet:
	unregister_pernet_subsys(&bpfilter_net_ops);
err_helper:
	bpfilter_helper_put(h, NULL);
err_image:
	umd_destroy(&bpfilter.image);
err_wq:
	/* After the helper's free work, which it drains. */
	destroy_workqueue(bpfilter.wq);
	return err;
}

/*
 * Each live namespace the module serves gives its tables back to
 * ip_tables (bpfilter_unload_net()): ip_tables' table back at its hooks,
 * and, on a forced unload, the table the module served. From a worker, so
 * that ip_tables sees the kernel's credentials and no compat caller, and
 * before the pernet operations go, so that a module ip_tables loads
 * meanwhile can register its own. The walk allocates nothing: a namespace
 * whose table ip_tables did not get back would keep an ip_tables table
 * off its hooks after the module went, whatever rules it is given later.
 * (Putting it back registers hooks, which may still fail, and says so.)
 */
static void bpfilter_unload_work(struct work_struct *work)
{
	struct bpfilter_net *bn, *next;
	struct bpfilter_helper *h;
	LIST_HEAD(nets);

	mutex_lock(&bpfilter.lock);
	list_for_each_entry(h, &bpfilter.helpers, list) {
		list_for_each_entry(bn, &h->nets, list) {
			/* A namespace going away takes its tables with it. */
			if (maybe_get_net(bn->net))
				list_add_tail(&bn->unload, &nets);
		}
	}
	mutex_unlock(&bpfilter.lock);

	list_for_each_entry_safe(bn, next, &nets, unload) {
		mutex_lock(&bn->lock);
		bpfilter_unload_net(bn);
		mutex_unlock(&bn->lock);
		list_del(&bn->unload);
		put_net(bn->net);
	}
}

static void __exit bpfilter_exit(void)
{
	struct work_struct work;

	/* The helper goes with the module; it need not forget anything. */
	WRITE_ONCE(bpfilter.unloading, true);
	bpfilter_unregister(&bpfilter_sockopt_ops);
	/*
	 * ip_tables' tables are back at their hooks before the programs go;
	 * only a forced unload finds tables other than the initial ones.
	 */
	INIT_WORK_ONSTACK(&work, bpfilter_unload_work);
	schedule_work(&work);
	flush_work(&work);
	destroy_work_on_stack(&work);
	unregister_pernet_subsys(&bpfilter_net_ops);
	/* The namespaces put their helpers; the module puts init's. */
	bpfilter_helper_put(bpfilter.init_helper, NULL);
	/* Every helper stops in its free work, which this waits for. */
	destroy_workqueue(bpfilter.wq);
	umd_destroy(&bpfilter.image);
}

module_init(bpfilter_init);
module_exit(bpfilter_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("iptables socket options served by a user-mode driver");
