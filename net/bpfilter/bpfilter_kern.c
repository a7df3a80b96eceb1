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
	.lock = __MUTEX_INITIALIZER(bpfilter.lock),
	.nets = LIST_HEAD_INIT(bpfilter.nets),
};

static unsigned int bpfilter_net_id __read_mostly;

struct bpfilter_net *bpfilter_net(const struct net *net)
{
	return net_generic(net, bpfilter_net_id);
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
	kvfree(t->req);
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
	if (gen != bpfilter.gen)
		bpfilter.resync = true;
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
 * Brings the helper to the kernel's state: HELLO (which makes it forget
 * everything), then every table. A replay that fails leaves @resync set:
 * the helper serves nothing until one succeeds.
 */
static int bpfilter_replay(void)
{
	struct bpfilter_reply reply;
	struct bpfilter_net *bn;
	int err, i;

	lockdep_assert_held(&bpfilter.lock);

	err = umd_call(&bpfilter.umd, BPFILTER_MSG_HELLO, NULL, 0, &reply,
		       sizeof(reply), BPFILTER_TIMEOUT);
	if (err < 0)
		return err;
	if (err != sizeof(reply) || reply.ret != BPFILTER_PROTO_VERSION) {
		pr_err("helper speaks another protocol\n");
		return -EPROTO;
	}

	list_for_each_entry(bn, &bpfilter.nets, list) {
		for (i = 0; i < BPFILTER_NFAMILIES; i++) {
			struct bpfilter_table *t = bn->filter[i];

			if (!t)
				continue;
			err = umd_call(&bpfilter.umd, BPFILTER_MSG_LOAD,
				       t->req, t->len, &reply, sizeof(reply),
				       BPFILTER_TIMEOUT);
			if (err >= 0)
				err = bpfilter_check_reply(&reply, err);
			if (err >= 0)
				err = min(reply.ret, 0);
			if (err < 0)
				return err;
		}
	}
	bpfilter.gen++;
	bpfilter.resync = false;
	return 0;
}

/* Types that change the helper's state: of unknown outcome, resync. */
static bool bpfilter_changes(u32 type)
{
	return type != BPFILTER_MSG_GET;
}

/**
 * bpfilter_broken - the helper broke the protocol: stop it
 *
 * The next request starts a new helper and gives it the kernel's tables.
 *
 * Context: Process context. Takes bpfilter.lock.
 */
void bpfilter_broken(void)
{
	mutex_lock(&bpfilter.lock);
	umd_stop(&bpfilter.umd);
	bpfilter.resync = true;
	mutex_unlock(&bpfilter.lock);
}

/**
 * bpfilter_resync - the helper may hold other tables than the kernel
 *
 * It gets the kernel's tables before the next request.
 *
 * Context: Process context. Takes bpfilter.lock.
 */
void bpfilter_resync(void)
{
	mutex_lock(&bpfilter.lock);
	bpfilter.resync = true;
	mutex_unlock(&bpfilter.lock);
}

/**
 * bpfilter_call - a request to the helper
 * @type: enum bpfilter_msg_type
 * @req: the request, a struct bpfilter_req and its bytes
 * @len: its length
 * @reply: buffer for the reply, a struct bpfilter_reply and its bytes
 * @size: its size
 * @gen: if not NULL, set to the generation of the helper that served it
 *
 * A helper started since the last call answers -ESTALE; it is then given
 * every table the kernel keeps and the request is sent again. After a
 * change whose outcome is unknown (the caller was killed, the helper died
 * or timed out), the helper is given the tables again before the next
 * request; one that broke the protocol is stopped first. Nothing here
 * restarts a healthy helper, so a caller that kills its own requests does
 * not use up the restarts other callers need.
 *
 * Context: Process context. Takes bpfilter.lock.
 * Return: the length of the reply, or a negative errno of the transport;
 * the helper's answer is in @reply->ret.
 */
int bpfilter_call(u32 type, const void *req, size_t len,
		  struct bpfilter_reply *reply, size_t size, u64 *gen)
{
	int err, tries;

	mutex_lock(&bpfilter.lock);
	err = bpfilter.resync ? bpfilter_replay() : 0;
	for (tries = 0; !err; tries++) {
		err = umd_call(&bpfilter.umd, type, req, len, reply, size,
			       BPFILTER_TIMEOUT);
		if (err != -ESTALE)
			break;
		err = tries < BPFILTER_REPLAYS ? bpfilter_replay() : -EIO;
	}
	if (err >= 0) {
		err = bpfilter_check_reply(reply, err);
		if (err < 0)
			umd_stop(&bpfilter.umd);
	}
	if (err < 0 && bpfilter_changes(type))
		bpfilter.resync = true;
	else if (err >= 0 && gen)
		*gen = bpfilter.gen;
	mutex_unlock(&bpfilter.lock);
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

static void __net_exit bpfilter_net_exit(struct net *net)
{
	struct bpfilter_net *bn = bpfilter_net(net);
	struct bpfilter_req req = {
		.net_cookie = bn->cookie,
	};
	struct bpfilter_reply reply;
	u64 gen = 0;
	int i;

	remove_proc_entry("bpfilter", net->proc_net);

	/*
	 * No socket of the namespace is left (or, on unload, no caller in
	 * the module), so nobody holds bn->lock across a module load, which
	 * could wait for this exit.
	 */
	mutex_lock(&bn->lock);
	if (bn->filter[BPFILTER_IPV4] || bn->filter[BPFILTER_IPV6]) {
		/* A helper that misses this gets the tables again. */
		if (!READ_ONCE(bpfilter.unloading))
			bpfilter_call(BPFILTER_MSG_NET_EXIT, &req, sizeof(req),
				      &reply, sizeof(reply), &gen);
		for (i = 0; i < BPFILTER_NFAMILIES; i++)
			bpfilter_release_table(bn, i,
					       bpfilter_set_table(bn, i, NULL,
								  gen));
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
	mutex_lock(&bpfilter.lock);
	err = bpfilter_replay();
	mutex_unlock(&bpfilter.lock);
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
	umd_destroy(&bpfilter.umd);
}

module_init(bpfilter_init);
module_exit(bpfilter_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("iptables socket options served by a user-mode driver");
