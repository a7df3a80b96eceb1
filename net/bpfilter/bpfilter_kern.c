// SPDX-License-Identifier: GPL-2.0
/*
 * bpfilter.ko: the iptables and ip6tables socket options served by a
 * user-mode helper. This file holds the module's life: the helper, the
 * per-namespace state and the tables the kernel keeps so that a helper
 * that died can be brought back to the same state.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpfilter.h>
#include <linux/module.h>
#include <linux/netfilter.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "bpfilter.h"

/* Long enough to validate the largest table on a loaded machine. */
#define BPFILTER_TIMEOUT	(30 * HZ)
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
	if (t)
		kvfree(t->req);
	kfree(t);
}

/*
 * Installs @t as the filter table of @family in @bn (NULL: ip_tables serves
 * it), keeping the list of namespaces to replay and the module's reference
 * on itself up to date.
 */
void bpfilter_set_table(struct bpfilter_net *bn, int family,
			struct bpfilter_table *t)
{
	struct bpfilter_table *old = bn->filter[family];
	bool had = bn->filter[BPFILTER_IPV4] || bn->filter[BPFILTER_IPV6];
	bool has;

	lockdep_assert_held(&bpfilter.lock);

	if (old && !old->initial && !--bpfilter.pinned)
		module_put(THIS_MODULE);
	if (t && !t->initial && !bpfilter.pinned++)
		__module_get(THIS_MODULE);

	bn->filter[family] = t;
	has = bn->filter[BPFILTER_IPV4] || bn->filter[BPFILTER_IPV6];
	if (has && !had)
		list_add(&bn->list, &bpfilter.nets);
	else if (had && !has)
		list_del(&bn->list);
	bpfilter_free_table(old);
}

/* Brings a new helper to the kernel's state: HELLO, then every table. */
static int bpfilter_replay(void)
{
	struct bpfilter_reply reply;
	struct bpfilter_net *bn;
	u32 version;
	int err, i;

	err = umd_call(&bpfilter.umd, BPFILTER_MSG_HELLO, NULL, 0, &version,
		       sizeof(version), BPFILTER_TIMEOUT);
	if (err < 0)
		return err;
	if (err != sizeof(version) || version != BPFILTER_PROTO_VERSION) {
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
			if (err < 0)
				return err;
		}
	}
	return 0;
}

/**
 * bpfilter_call - a request to the helper
 * @type: enum bpfilter_msg_type
 * @req: the request, a struct bpfilter_req and its bytes
 * @len: its length
 * @reply: buffer for the reply
 * @size: its size
 *
 * A helper that was restarted since the last call answers -ESTALE; it is
 * then given every table the kernel keeps and the request is sent again.
 *
 * Context: Process context, bpfilter.lock held.
 * Return: the length of the reply, or a negative errno.
 */
int bpfilter_call(u32 type, const void *req, size_t len, void *reply,
		  size_t size)
{
	int err, i;

	lockdep_assert_held(&bpfilter.lock);

	for (i = 0; i < BPFILTER_REPLAYS; i++) {
		err = umd_call(&bpfilter.umd, type, req, len, reply, size,
			       BPFILTER_TIMEOUT);
		if (err != -ESTALE)
			return err;
		err = bpfilter_replay();
		if (err && err != -ESTALE)
			return err;
	}
	return -EAGAIN;
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

	mutex_lock(&bpfilter.lock);
	for (i = 0; i < BPFILTER_NFAMILIES; i++) {
		const struct bpfilter_table *t = bn->filter[i];

		if (t)
			seq_printf(seq, "%s filter entries=%u enforced=no\n",
				   bpfilter_family_name[i], t->number);
	}
	mutex_unlock(&bpfilter.lock);
	return 0;
}

static int __net_init bpfilter_net_init(struct net *net)
{
	struct bpfilter_net *bn = bpfilter_net(net);

	bn->cookie = net->net_cookie;
	INIT_LIST_HEAD(&bn->list);
	if (!proc_create_net_single("bpfilter", 0444, net->proc_net,
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
	int i;

	remove_proc_entry("bpfilter", net->proc_net);

	mutex_lock(&bpfilter.lock);
	if (bn->filter[BPFILTER_IPV4] || bn->filter[BPFILTER_IPV6]) {
		/*
		 * A helper that misses this is replayed from the kernel's
		 * tables, which no longer include this namespace's.
		 */
		bpfilter_call(BPFILTER_MSG_NET_EXIT, &req, sizeof(req), &reply,
			      sizeof(reply));
		for (i = 0; i < BPFILTER_NFAMILIES; i++)
			bpfilter_set_table(bn, i, NULL);
	}
	mutex_unlock(&bpfilter.lock);
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

static void __exit bpfilter_exit(void)
{
	bpfilter_unregister(&bpfilter_sockopt_ops);
	unregister_pernet_subsys(&bpfilter_net_ops);
	umd_destroy(&bpfilter.umd);
}

module_init(bpfilter_init);
module_exit(bpfilter_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("iptables socket options served by a user-mode driver");
