// SPDX-License-Identifier: GPL-2.0
/*
 * bpfilter.ko: the iptables and ip6tables socket options served by a
 * user-mode helper. This file holds the module's life: the helper, the
 * per-namespace state and the tables the kernel keeps so that a helper
 * that died can be brought back to the same state.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/bpfilter.h>
#include <linux/module.h>
#include <linux/netfilter.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "bpfilter.h"

/* Long enough to validate the largest table on a loaded machine. */
#define BPFILTER_TIMEOUT	(120 * HZ)
/* A helper that restarts keeps answering -ESTALE until it is replayed. */
#define BPFILTER_REPLAYS	3

struct bpfilter bpfilter = {
	.call_lock = __MUTEX_INITIALIZER(bpfilter.call_lock),
	.lock = __MUTEX_INITIALIZER(bpfilter.lock),
	.nets = LIST_HEAD_INIT(bpfilter.nets),
	.exited = LIST_HEAD_INIT(bpfilter.exited),
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
 * What a table of @family in @bn holds while it may be in force, as the
 * checkentry of the state match would for ip_tables: conntrack, if the
 * helper's BPFILTER_TABLE_* @flags say its program reads the state. The
 * kernel's matches and targets hold what they need themselves (see
 * bpfilter_xt_check()).
 */
int bpfilter_hold(struct bpfilter_net *bn, int family,
		  struct bpfilter_table *t, u32 flags)
{
	int err;

	if (flags & BPFILTER_TABLE_CONNTRACK) {
		err = bpfilter_conntrack_get(bn, family);
		if (err)
			return err;
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
		list_add(&bn->list, &bpfilter.nets);
	else if (had && !has)
		list_del(&bn->list);
	if (gen != BPFILTER_GEN_ANY) {
		bpfilter.changes++;
		if (gen != bpfilter.gen)
			bpfilter.resync = true;
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
static int bpfilter_send(u32 type, const void *req, size_t len, int *ret)
{
	struct bpfilter_reply reply;
	int err;

	err = umd_call(&bpfilter.umd, type, req, len, &reply, sizeof(reply),
		       BPFILTER_TIMEOUT);
	if (err >= 0)
		err = bpfilter_check_reply(&reply, err);
	if (err < 0)
		return err;
	*ret = reply.ret;
	return 0;
}

/* bpfilter_send() of a table or a change, which the helper must take. */
static int bpfilter_send_change(u32 type, const void *req, size_t len)
{
	int err, ret;

	err = bpfilter_send(type, req, len, &ret);
	return err ?: min(ret, 0);
}

/*
 * Brings the helper to the kernel's state: HELLO (which makes it forget
 * everything), then every table. The tables are taken under bpfilter.lock
 * and sent without it, so that nothing waits for a replay but requests;
 * a table changed meanwhile, or a resync asked for meanwhile, leaves
 * @resync set, for another replay. A replay that fails leaves @resync set:
 * the helper serves nothing until one succeeds.
 */
static int bpfilter_replay(void)
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

	lockdep_assert_held(&bpfilter.call_lock);

	err = umd_call(&bpfilter.umd, BPFILTER_MSG_HELLO, NULL, 0, &reply,
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
	bpfilter.resync = true;
	/* And the namespaces gone so far, which are not sent again. */
	list_for_each_entry_safe(x, tmp, &bpfilter.exited, list)
		kfree(x);
	INIT_LIST_HEAD(&bpfilter.exited);
	list_for_each_entry(bn, &bpfilter.nets, list)
		n += BPFILTER_NFAMILIES;
	copies = kvmalloc_array(n, sizeof(*copies), GFP_KERNEL);
	if (!copies) {
		mutex_unlock(&bpfilter.lock);
		return -ENOMEM;
	}
	n = 0;
	list_for_each_entry(bn, &bpfilter.nets, list) {
		for (f = 0; f < BPFILTER_NFAMILIES; f++) {
			struct bpfilter_table *t = bn->filter[f];

			if (!t)
				continue;
			bpfilter_copy_get(t->req);
			copies[n].req = t->req;
			copies[n++].len = t->len;
		}
	}
	changes = bpfilter.changes;
	mutex_unlock(&bpfilter.lock);

	for (i = 0; i < n; i++) {
		if (!err)
			err = bpfilter_send_change(BPFILTER_MSG_LOAD,
						   copies[i].req,
						   copies[i].len);
		bpfilter_copy_put(copies[i].req);
	}
	kvfree(copies);
	if (err < 0)
		return err;

	mutex_lock(&bpfilter.lock);
	bpfilter.gen++;
	bpfilter.resync = bpfilter.changes != changes;
	mutex_unlock(&bpfilter.lock);
	return 0;
}

/*
 * Tells the helper to forget the namespaces gone since the last request.
 * What it may not have been told stays queued, until it is told or a
 * replay makes it forget everything; a helper that broke the protocol is
 * stopped, and the next one starts from the kernel's tables.
 */
static void bpfilter_forget_exited(void)
{
	struct bpfilter_exited *x, *tmp;
	struct bpfilter_req req;
	LIST_HEAD(exited);
	int err, ret;

	lockdep_assert_held(&bpfilter.call_lock);

	/* A helper that is not running forgets everything when it starts. */
	if (!umd_alive(&bpfilter.umd))
		return;
	mutex_lock(&bpfilter.lock);
	list_splice_init(&bpfilter.exited, &exited);
	mutex_unlock(&bpfilter.lock);
	list_for_each_entry_safe(x, tmp, &exited, list) {
		memset(&req, 0, sizeof(req));
		req.net_cookie = x->cookie;
		/* Whatever it answers, the helper was told. */
		err = bpfilter_send(BPFILTER_MSG_NET_EXIT, &req, sizeof(req),
				    &ret);
		if (err == -EPROTO)
			umd_stop(&bpfilter.umd);
		if (err < 0)
			break;
		list_del(&x->list);
		kfree(x);
	}
	mutex_lock(&bpfilter.lock);
	list_splice(&exited, &bpfilter.exited);
	mutex_unlock(&bpfilter.lock);
}

/*
 * The helper is told of the namespaces gone as soon as it is free, so that
 * it does not keep their tables until the next request, nor make that
 * request wait for them.
 */
static void bpfilter_exited_work(struct work_struct *work)
{
	mutex_lock(&bpfilter.call_lock);
	bpfilter_forget_exited();
	mutex_unlock(&bpfilter.call_lock);
}

static DECLARE_WORK(bpfilter_exited_worker, bpfilter_exited_work);

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
	int err, f;

	lockdep_assert_held(&bn->lock);
	lockdep_assert_held(&bpfilter.call_lock);

	err = bpfilter_send_change(BPFILTER_MSG_NET_EXIT, &req, sizeof(req));
	for (f = 0; f < BPFILTER_NFAMILIES && !err; f++)
		if (bn->filter[f])
			err = bpfilter_send_change(BPFILTER_MSG_LOAD,
						   bn->filter[f]->req,
						   bn->filter[f]->len);
	if (err == -EPROTO)
		umd_stop(&bpfilter.umd);
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

/**
 * bpfilter_resync - the helper may hold other tables than the kernel
 *
 * It gets the kernel's tables before the next request.
 *
 * Context: Process context. Takes bpfilter.lock.
 */
static void bpfilter_resync(void)
{
	mutex_lock(&bpfilter.lock);
	bpfilter.resync = true;
	/* A replay in progress must not clear it. */
	bpfilter.changes++;
	mutex_unlock(&bpfilter.lock);
}

/**
 * bpfilter_broken - the helper broke the protocol: stop it
 *
 * The next request starts a new helper and gives it the kernel's tables.
 * A request of another namespace in flight fails (-EPIPE) and marks the
 * helper for the same replay.
 *
 * Context: Process context. Takes bpfilter.lock.
 */
void bpfilter_broken(void)
{
	umd_stop(&bpfilter.umd);
	bpfilter_resync();
}

/**
 * bpfilter_call - a request to the helper
 * @bn: the namespace whose tables the request may change, its lock held;
 *	NULL for none
 * @type: enum bpfilter_msg_type
 * @req: the request, a struct bpfilter_req and its bytes
 * @len: its length
 * @reply: buffer for the reply, a struct bpfilter_reply and its bytes
 * @size: its size
 * @gen: if not NULL, set to the generation of the helper that served it
 *
 * A helper started since the last call answers -ESTALE; it is then given
 * every table the kernel keeps and the request is sent again. After a
 * change whose outcome is unknown because the helper died or timed out,
 * the helper is given the tables again before the next request; one that
 * broke the protocol is stopped first. After one of @bn whose caller was
 * killed, only @bn's tables are, before @bn's next request: a tenant
 * killing its own requests neither makes the helper replay every
 * namespace nor uses up the restarts other callers need. Namespaces that
 * went away are forgotten first: their exit does not wait for the helper.
 *
 * Context: Process context. Takes bpfilter.call_lock, killably, and
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
	int err, tries;
	bool resync;

	if (bn)
		lockdep_assert_held(&bn->lock);
	err = mutex_lock_killable(&bpfilter.call_lock);
	if (err)
		return err;
	bpfilter_forget_exited();
	mutex_lock(&bpfilter.lock);
	resync = bpfilter.resync;
	mutex_unlock(&bpfilter.lock);
	err = resync ? bpfilter_replay() : 0;
	for (tries = 0; !err; tries++) {
		if (bn && bn->stale)
			err = bpfilter_reload_net(bn);
		if (!err)
			err = umd_call(&bpfilter.umd, type, req, len, reply,
				       size, BPFILTER_TIMEOUT);
		if (err != -ESTALE)
			break;
		err = tries < BPFILTER_REPLAYS ? bpfilter_replay() : -EIO;
	}
	if (err >= 0) {
		err = bpfilter_check_reply(reply, err);
		if (err < 0)
			umd_stop(&bpfilter.umd);
	}
	/* A request too big for a message was never sent: nothing changed. */
	if (err < 0 && err != -EMSGSIZE && bpfilter_changes(type)) {
		if (err == -EINTR && bn)
			bn->stale = true;
		else
			bpfilter_resync();
	}
	if (err >= 0 && gen)
		*gen = bpfilter.gen;
	mutex_unlock(&bpfilter.call_lock);
	return err;
}

static const char *const bpfilter_family_name[BPFILTER_NFAMILIES] = {
	[BPFILTER_IPV4] = "ipv4",
	[BPFILTER_IPV6] = "ipv6",
};

/* /proc/net/bpfilter: the tables the helper serves in this namespace. */
static int bpfilter_proc_show(struct seq_file *seq, void *v)
{
	struct bpfilter_net *bn = bpfilter_net(seq_file_single_net(seq));
	int i;

	mutex_lock(&bn->lock);
	for (i = 0; i < BPFILTER_NFAMILIES; i++) {
		const struct bpfilter_table *t = bn->filter[i];

		if (t && t->prog)
			seq_printf(seq, "%s filter entries=%u prog=%u insns=%u\n",
				   bpfilter_family_name[i], t->number,
				   t->prog->aux->id, t->prog->len);
	}
	mutex_unlock(&bn->lock);
	return 0;
}

static int __net_init bpfilter_net_init(struct net *net)
{
	struct bpfilter_net *bn = bpfilter_net(net);

	mutex_init(&bn->lock);
	bn->net = net;
	bn->cookie = net->net_cookie;
	INIT_LIST_HEAD(&bn->list);
	if (!proc_create_net_single("bpfilter", 0440, net->proc_net,
				    bpfilter_proc_show, NULL))
		return -ENOMEM;
	return 0;
}

/*
 * The helper forgets @bn's tables when it is free, told by a worker: the
 * exit runs under pernet_ops_rwsem, which must not wait for the helper
 * (another namespace's table may be compiling). Without the memory to
 * say so, the helper gets the kernel's tables again, which forgets them.
 */
static void bpfilter_exit_later(struct bpfilter_net *bn)
{
	struct bpfilter_exited *x;

	if (READ_ONCE(bpfilter.unloading))
		return;
	x = kmalloc_obj(*x, GFP_KERNEL);
	if (!x) {
		bpfilter_resync();
		return;
	}
	x->cookie = bn->cookie;
	mutex_lock(&bpfilter.lock);
	list_add_tail(&x->list, &bpfilter.exited);
	mutex_unlock(&bpfilter.lock);
	queue_work(system_long_wq, &bpfilter_exited_worker);
}

static void __net_exit bpfilter_net_exit(struct net *net)
{
	struct bpfilter_net *bn = bpfilter_net(net);
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
		bpfilter_exit_later(bn);
	}
	for (i = 0; i < BPFILTER_NFAMILIES; i++)
		bpfilter_unhook(bn, i);
	mutex_unlock(&bn->lock);
	mutex_destroy(&bn->lock);
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
	int err;

	err = umd_init(&bpfilter.umd, "bpfilter_umh", bpfilter_umh_start,
		       bpfilter_umh_end - bpfilter_umh_start,
		       sizeof(struct umd_msg) + BPFILTER_MAX_MSG);
	if (err)
		return err;

	/* Start the helper and check that it answers. */
	mutex_lock(&bpfilter.call_lock);
	err = bpfilter_replay();
	mutex_unlock(&bpfilter.call_lock);
	if (err) {
		pr_err("helper does not answer: %d\n", err);
		goto err_destroy;
	}

	err = bpfilter_xt_init();
	if (err)
		goto err_destroy;
	err = register_pernet_subsys(&bpfilter_net_ops);
	if (err)
		goto err_destroy;
	err = bpfilter_register(&bpfilter_sockopt_ops);
	if (err)
		goto err_unregister_pernet;
	return 0;

err_unregister_pernet:
	unregister_pernet_subsys(&bpfilter_net_ops);
err_destroy:
	umd_destroy(&bpfilter.umd);
	return err;
}

/*
 * A forced unload: each live namespace whose table is not the initial one
 * gives it to ip_tables. From a worker, so that ip_tables sees the kernel's
 * credentials and no compat caller, and before the pernet operations go,
 * so that a module ip_tables loads meanwhile can register its own.
 */
static void bpfilter_unload_work(struct work_struct *work)
{
	struct bpfilter_net *bn;
	struct net **nets;
	unsigned int n = 0, i;

	mutex_lock(&bpfilter.lock);
	list_for_each_entry(bn, &bpfilter.nets, list)
		n++;
	nets = kcalloc(n, sizeof(*nets), GFP_KERNEL);
	if (!nets)
		pr_crit("no memory to give the tables to ip_tables on unload\n");
	n = 0;
	list_for_each_entry(bn, &bpfilter.nets, list) {
		/* A namespace going away takes its tables with it. */
		if (nets && maybe_get_net(bn->net))
			nets[n++] = bn->net;
	}
	mutex_unlock(&bpfilter.lock);

	for (i = 0; i < n; i++) {
		bn = bpfilter_net(nets[i]);
		mutex_lock(&bn->lock);
		bpfilter_unload_net(bn);
		mutex_unlock(&bn->lock);
		put_net(nets[i]);
	}
	kfree(nets);
}

static void __exit bpfilter_exit(void)
{
	struct bpfilter_exited *x, *tmp;
	struct work_struct work;

	/* The helper goes with the module; it need not forget anything. */
	WRITE_ONCE(bpfilter.unloading, true);
	bpfilter_unregister(&bpfilter_sockopt_ops);
	/* Only a forced unload finds tables other than the initial ones. */
	INIT_WORK_ONSTACK(&work, bpfilter_unload_work);
	schedule_work(&work);
	flush_work(&work);
	destroy_work_on_stack(&work);
	unregister_pernet_subsys(&bpfilter_net_ops);
	cancel_work_sync(&bpfilter_exited_worker);
	umd_destroy(&bpfilter.umd);
	/* Namespaces gone before the unload, which the helper took along. */
	list_for_each_entry_safe(x, tmp, &bpfilter.exited, list)
		kfree(x);
}

module_init(bpfilter_init);
module_exit(bpfilter_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("iptables socket options served by a user-mode driver");
