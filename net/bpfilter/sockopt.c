// SPDX-License-Identifier: GPL-2.0
/*
 * The iptables socket options: checked and copied as ip_tables does, then
 * sent to the helper as bytes, or handed to ip_tables for the tables the
 * helper does not serve. The helper never sees a user pointer, and
 * ip_tables only gets the kernel's copy, so what was checked is what runs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <net/sock.h>

#include "bpfilter.h"

/* x_tables.c's XT_MAX_TABLE_SIZE: ip_tables refuses larger with -ENOMEM. */
#define BPFILTER_XT_MAX_TABLE	(512 * 1024 * 1024)

/* ipt_* and ip6t_* headers share their layout; one code path serves both. */
static_assert(sizeof(struct ipt_replace) == sizeof(struct ip6t_replace));
static_assert(sizeof(struct ipt_getinfo) == sizeof(struct ip6t_getinfo));
static_assert(sizeof(struct ipt_get_entries) ==
	      sizeof(struct ip6t_get_entries));
static_assert(IPT_SO_SET_REPLACE == IP6T_SO_SET_REPLACE);
static_assert(IPT_SO_SET_ADD_COUNTERS == IP6T_SO_SET_ADD_COUNTERS);
static_assert(IPT_SO_GET_INFO == IP6T_SO_GET_INFO);
static_assert(IPT_SO_GET_ENTRIES == IP6T_SO_GET_ENTRIES);

static const struct xt_table bpfilter_filter[BPFILTER_NFAMILIES] = {
	[BPFILTER_IPV4] = {
		.name = "filter",
		.valid_hooks = (1 << NF_INET_LOCAL_IN) |
			       (1 << NF_INET_FORWARD) |
			       (1 << NF_INET_LOCAL_OUT),
		.af = NFPROTO_IPV4,
	},
	[BPFILTER_IPV6] = {
		.name = "filter",
		.valid_hooks = (1 << NF_INET_LOCAL_IN) |
			       (1 << NF_INET_FORWARD) |
			       (1 << NF_INET_LOCAL_OUT),
		.af = NFPROTO_IPV6,
	},
};

/*
 * The option as the helper knows it: IPv6 numbers its revision options
 * apart (IP6T_SO_GET_REVISION_* follow IP6T_SO_GET_ENTRIES after a gap),
 * and does not know the IPv4 numbers.
 */
static int bpfilter_cmd(u8 pf, int optname)
{
	if (pf != NFPROTO_IPV6)
		return optname;
	switch (optname) {
	case IP6T_SO_GET_REVISION_MATCH:
		return IPT_SO_GET_REVISION_MATCH;
	case IP6T_SO_GET_REVISION_TARGET:
		return IPT_SO_GET_REVISION_TARGET;
	case IPT_SO_GET_REVISION_MATCH:
	case IPT_SO_GET_REVISION_TARGET:
		return -1;
	default:
		return optname;
	}
}

static int bpfilter_family(u8 pf)
{
	return pf == NFPROTO_IPV6 ? BPFILTER_IPV6 : BPFILTER_IPV4;
}

/* The filter table of @pf in @bn, NULL if ip_tables serves @name. */
static struct bpfilter_table *bpfilter_table(struct bpfilter_net *bn, u8 pf,
					     const char *name)
{
	lockdep_assert_held(&bn->lock);

	if (strcmp(name, "filter"))
		return NULL;
	return bn->filter[bpfilter_family(pf)];
}

/* The kernel's copy of @t: its header, followed by the entries. */
static struct ipt_replace *bpfilter_table_repl(struct bpfilter_table *t)
{
	return (void *)((struct bpfilter_req *)t->req + 1);
}

/*
 * The namespace of @sk, locked; ERR_PTR(-EINTR) if the caller was killed
 * while it waited: the request that holds the lock may be waiting for a
 * busy helper, and a caller must be able to give up.
 */
static struct bpfilter_net *bpfilter_lock_net(struct sock *sk)
{
	struct bpfilter_net *bn = bpfilter_net(sock_net(sk));

	if (mutex_lock_killable(&bn->lock))
		return ERR_PTR(-EINTR);
	return bn;
}

/*
 * The CPU time the helper may spend compiling one table, in its compiling
 * children: past it, the request fails with -ENOMEM, as ip_tables fails a
 * table it cannot take. At most half the time the module waits for the
 * helper, so that a request past it is answered (the verifier's time is
 * bounded by its own limits), and the helper not restarted.
 */
#define BPFILTER_COMPILE_MS	(BPFILTER_TIMEOUT / HZ / 2 * MSEC_PER_SEC)
static unsigned int bpfilter_compile_ms = BPFILTER_COMPILE_MS;
module_param_named(compile_ms, bpfilter_compile_ms, uint, 0644);
MODULE_PARM_DESC(compile_ms, "CPU time in ms the helper may spend compiling a table (default and at most: 60000)");

static void bpfilter_req_init(struct bpfilter_req *req, struct sock *sk,
			      u8 pf, int cmd, unsigned int len, bool owned)
{
	*req = (struct bpfilter_req) {
		.net_cookie = sock_net(sk)->net_cookie,
		.family = pf,
		.cmd = cmd,
		.len = len,
		.flags = owned ? BPFILTER_REQ_OWNED : 0,
		.budget = clamp_t(unsigned int, READ_ONCE(bpfilter_compile_ms),
				  1, BPFILTER_COMPILE_MS),
	};
}

/*
 * Tells the helper to forget the filter table of @pf, then the kernel,
 * whose table is returned for the caller to free.
 */
static struct bpfilter_table *bpfilter_drop(struct sock *sk,
					    struct bpfilter_net *bn, u8 pf)
{
	struct {
		struct bpfilter_req req;
		char name[XT_TABLE_MAXNAMELEN];
	} drop = { .name = "filter" };
	struct bpfilter_reply reply;
	u64 gen;

	bpfilter_req_init(&drop.req, sk, pf, 0, sizeof(drop.name), true);
	if (bpfilter_call(bn, BPFILTER_MSG_DROP, &drop, sizeof(drop), &reply,
			  sizeof(reply), &gen) < 0 || reply.ret < 0) {
		/* The helper may keep the table: it forgets it, gets ours. */
		bpfilter_forget_net(bn);
		gen = BPFILTER_GEN_ANY;
	}
	return bpfilter_set_table(bn, bpfilter_family(pf), NULL, gen);
}

/* Copies the old table's final counters to the caller; releases it. */
static void bpfilter_copy_counters(struct bpfilter_net *bn, u8 pf,
				   const struct ipt_replace *repl,
				   struct bpfilter_table *old,
				   const struct xt_counters *buf)
{
	size_t size = array_size(old->number, sizeof(*buf));

	/* Silently, as ip_tables */
	if (copy_to_user(repl->counters, buf, size))
		net_warn_ratelimited("bpfilter: counters copy to user failed while replacing table\n");
	bpfilter_release_table(bn, bpfilter_family(pf), old);
}

/*
 * Copies the final counters of @old, which no hook runs any more, to the
 * caller; @buf has room for them. Releases @old.
 */
static void bpfilter_put_counters(struct bpfilter_net *bn, u8 pf,
				  const struct ipt_replace *repl,
				  struct bpfilter_table *old,
				  struct xt_counters *buf)
{
	/* Every packet that ran the old program has been counted. */
	synchronize_net();
	old->published = false;
	bpfilter_read_counters(old, buf);
	bpfilter_copy_counters(bn, pf, repl, old, buf);
}

/* A replace for ip_tables, from the kernel's copy. */
static int bpfilter_iptables_replace(struct sock *sk, u8 pf,
				     struct ipt_replace *repl)
{
	return nf_setsockopt(sk, pf, IPT_SO_SET_REPLACE, KERNEL_SOCKPTR(repl),
			     sizeof(*repl) + repl->size);
}

/*
 * Empties ip_tables' filter table, which the helper is taking over, with
 * the caller's counters buffer: ip_tables checks num_counters against its
 * table (-EAGAIN) and returns its old counters, as for any replace.
 */
static int bpfilter_take_over(struct sock *sk, u8 pf,
			      const struct ipt_replace *repl)
{
	const struct xt_table *info = &bpfilter_filter[bpfilter_family(pf)];
	struct ipt_replace *initial;
	int err;

	if (IS_ENABLED(CONFIG_IP6_NF_IPTABLES_LEGACY) && pf == NFPROTO_IPV6)
		initial = ip6t_alloc_initial_table(info);
	else
		initial = ipt_alloc_initial_table(info);
	if (!initial)
		return -ENOMEM;
	initial->num_counters = repl->num_counters;
	initial->counters = repl->counters;
	err = bpfilter_iptables_replace(sk, pf, initial);
	kfree(initial);
	return err;
}

/* The number of entries of ip_tables' filter table. */
static int bpfilter_iptables_number(struct sock *sk, u8 pf)
{
	struct xt_table *t;
	int number;

	t = xt_request_find_table_lock(sock_net(sk), pf, "filter");
	if (IS_ERR(t))
		return PTR_ERR(t);
	number = t->private->number;
	xt_table_unlock(t);
	module_put(t->me);
	return number;
}

/*
 * Gives a table the helper cannot serve to ip_tables, whose filter table
 * was emptied when the helper took it over. ip_tables writes its own old
 * counters (of its initial table, no more entries than the helper's) to
 * the caller's buffer, then those of the helper's program overwrite them.
 * Meanwhile both tables are in force: a packet passes both or is dropped
 * (ip_tables' table is back at its hooks first).
 */
static int bpfilter_give_back(struct sock *sk, struct bpfilter_net *bn, u8 pf,
			      struct ipt_replace *repl,
			      struct xt_counters *buf)
{
	unsigned int num_counters = repl->num_counters;
	int number, err;

	/* (This finds ip_tables' table, or makes it anew at its hooks.) */
	number = bpfilter_iptables_number(sk, pf);
	if (number < 0)
		return number;
	err = bpfilter_iptables_hooks(bn, bpfilter_family(pf), true);
	if (err)
		return err;
	if (WARN_ON_ONCE(number > num_counters))
		return -EAGAIN;
	repl->num_counters = number;
	err = bpfilter_iptables_replace(sk, pf, repl);
	repl->num_counters = num_counters;
	if (err)
		return err;
	bpfilter_put_counters(bn, pf, repl, bpfilter_drop(sk, bn, pf), buf);
	return 0;
}

/*
 * ip_tables' initial table with every policy DROP: what is left to give
 * the namespace if its own table cannot go back to ip_tables.
 */
static int bpfilter_iptables_drop_all(struct sock *sk, u8 pf,
				      unsigned int number)
{
	const struct xt_table *info = &bpfilter_filter[bpfilter_family(pf)];
	struct xt_standard_target *policy;
	struct ipt_replace *initial;
	unsigned int hook;
	int err;

	if (IS_ENABLED(CONFIG_IP6_NF_IPTABLES_LEGACY) && pf == NFPROTO_IPV6)
		initial = ip6t_alloc_initial_table(info);
	else
		initial = ipt_alloc_initial_table(info);
	if (!initial)
		return -ENOMEM;
	/* Each built-in chain is one standard entry: its policy ends it. */
	for (hook = 0; hook < NF_INET_NUMHOOKS; hook++) {
		if (!(info->valid_hooks & BIT(hook)))
			continue;
		policy = (void *)initial->entries + initial->underflow[hook] +
			 (pf == NFPROTO_IPV6 ? sizeof(struct ip6t_entry) :
					       sizeof(struct ipt_entry));
		policy->verdict = -NF_DROP - 1;
	}
	initial->num_counters = number;
	err = bpfilter_iptables_replace(sk, pf, initial);
	kfree(initial);
	return err;
}

/**
 * bpfilter_unload_net - gives ip_tables the namespace's filter tables as
 *	the module goes
 * @bn: the namespace's state
 *
 * ip_tables' emptied table is off its hooks while the module serves the
 * table. Behind an initial table, which lets the module go, it says the
 * same of every packet: it is put back at its hooks, while the program
 * still runs (with its counters at zero: the policies' counters the module
 * kept go with it). The module cannot be unloaded while it serves another
 * table, except by force (rmmod -f): each such table goes to ip_tables
 * from the kernel's copy, ip_tables' table being at its hooks first; its
 * rules' counters start again from zero (ip_tables cannot copy the old
 * ones to anybody, and says so). If ip_tables refuses the table, the
 * namespace gets ip_tables' initial table with every policy DROP: it fails
 * closed.
 *
 * Context: A worker (the kernel's credentials, no compat caller), the
 * module unloading and its socket options gone, @bn->lock held, a
 * reference on the namespace.
 */
void bpfilter_unload_net(struct bpfilter_net *bn)
{
	struct bpfilter_table *t;
	struct ipt_replace *repl;
	struct socket *sock;
	int family, number, err, try;
	u8 pf;

	lockdep_assert_held(&bn->lock);
	for (family = 0; family < BPFILTER_NFAMILIES; family++) {
		t = bn->filter[family];
		if (!t)
			continue;
		pf = family == BPFILTER_IPV6 ? NFPROTO_IPV6 : NFPROTO_IPV4;
		if (t->initial) {
			err = bpfilter_iptables_hooks(bn, family, true);
			if (err)
				goto fail;
			continue;
		}
		err = sock_create_kern(bn->net, pf == NFPROTO_IPV6 ? PF_INET6 :
				       PF_INET, SOCK_DGRAM, IPPROTO_UDP, &sock);
		if (err)
			goto fail;
		repl = bpfilter_table_repl(t);
		/* A replace that raced with us changes the number: again. */
		for (try = 0; try < 2; try++) {
			number = bpfilter_iptables_number(sock->sk, pf);
			err = number < 0 ? number :
			      bpfilter_iptables_hooks(bn, family, true);
			if (err)
				break;
			repl->num_counters = number;
			err = bpfilter_iptables_replace(sock->sk, pf, repl);
			if (err)
				err = bpfilter_iptables_drop_all(sock->sk, pf,
								 number);
			if (err != -EAGAIN)
				break;
		}
		sock_release(sock);
		if (!err)
			continue;
fail:
		pr_crit("cannot give the %s filter table to ip_tables on unload: %d\n",
			pf == NFPROTO_IPV6 ? "ipv6" : "ipv4", err);
	}
}

/*
 * @t's entries as they read, which end the helper's reply: kept apart
 * from the caller's, which a replay sends, so that IPT_SO_GET_ENTRIES is
 * answered without the helper (and whatever the helper sends, a new one
 * starts from the caller's table).
 */
static int bpfilter_keep_view(struct bpfilter_table *t,
			      const struct bpfilter_reply *reply)
{
	/* (bpfilter_layout() checked that the reply ends with them.) */
	const void *view = (const void *)(reply + 1) + reply->len - t->size;

	t->view = kvmemdup(view, t->size, GFP_KERNEL_ACCOUNT);
	return t->view ? 0 : -ENOMEM;
}

/*
 * The helper validated, compiled and stored the new table: its program
 * replaces the old one at the hooks, after emptying ip_tables' table if
 * the helper takes it over; the kernel keeps a copy of the table. If the
 * helper kept the old program, the changes of its map are made here
 * instead, when nothing else can fail.
 */
static int bpfilter_install(struct sock *sk, struct bpfilter_net *bn, u8 pf,
			    struct bpfilter_table *new,
			    const struct bpfilter_reply *reply, u64 gen,
			    struct xt_counters *buf)
{
	const struct bpfilter_layout *lay = (const void *)(reply + 1);
	struct bpfilter_req *req = new->req;
	struct ipt_replace *repl = (void *)(req + 1);
	/* The caller's counters pointer, kept out of the published copy. */
	const struct ipt_replace caller = *repl;
	int family = bpfilter_family(pf);
	struct bpfilter_table *old = bn->filter[family];
	struct bpf_prog *prog;
	bool kept;
	int err;

	new->run = kzalloc_obj(*new->run, GFP_KERNEL_ACCOUNT);
	if (!new->run) {
		/* The helper has the new table, the kernel the old one. */
		bpfilter_forget_net(bn);
		return -ENOMEM;
	}
	prog = bpfilter_prog_get(reply->prog_id);
	if (IS_ERR(prog)) {
		bpfilter_broken(bn);
		return PTR_ERR(prog) == -EPROTO ? -EPROTO : -EIO;
	}
	new->run->prog = prog;
	new->run->xt = new->xt;
	new->number = repl->num_entries;
	new->size = repl->size;
	kept = old && old->prog == prog;
	err = bpfilter_layout(new, prog, lay, reply->len);
	if (!err && lay->nops && !kept)
		err = -EPROTO;
	if (!err)
		err = bpfilter_keep_view(new, reply);
	if (err == -EPROTO)
		bpfilter_broken(bn);
	if (!err)
		err = bpfilter_hold(bn, family, new, prog, reply->flags);
	if (!err) {
		err = bpfilter_hook(bn, family);
		if (err)
			bpfilter_unhold(bn, family, new);
	}
	if (err) {
		bpf_prog_put(prog);
		/* Nor may the helper keep a program the kernel refused. */
		bpfilter_forget_net(bn);
		return err;
	}

	new->prog = prog;
	new->initial = reply->flags & BPFILTER_TABLE_INITIAL;
	if (kept) {
		err = bpfilter_update(old, new, lay, buf);
		if (err) {
			/* The caller frees @new, and puts the program. */
			bpfilter_unhold(bn, family, new);
			bn->stale = true;
			return err;
		}
	}
	/*
	 * Once published, the table may be replayed to a new helper by the
	 * request of another namespace of the tenant: as a table of its own,
	 * with no pointer and no check.
	 */
	repl->counters = NULL;
	req->flags = 0;
	old = bpfilter_set_table(bn, family, new, gen);
	if (kept) {
		bpfilter_copy_counters(bn, pf, &caller, old, buf);
	} else if (old) {
		bpfilter_put_counters(bn, pf, &caller, old, buf);
	} else {
		/* Both tables are in force until ip_tables' is emptied. */
		err = bpfilter_take_over(sk, pf, &caller);
		if (err) {
			/* The caller frees @new, which is not installed. */
			WARN_ON_ONCE(bpfilter_drop(sk, bn, pf) != new);
			bpfilter_unhold(bn, family, new);
			return err;
		}
	}
	/*
	 * ip_tables' table is empty: at worst, it stays at its hooks. It is
	 * off them for the initial table too, which costs a packet more at
	 * them than the program (the module's unload puts it back).
	 */
	bpfilter_iptables_hooks(bn, family, false);
	return 0;
}

/*
 * Room for the reply to a replace: struct bpfilter_layout, a counter
 * index per entry, the changes of a map and the entries as they read; or
 * struct bpfilter_check and an entry to check per entry. (The helper
 * refuses a table with more entries than its bytes can have.)
 */
static size_t bpfilter_reply_size(const struct ipt_replace *repl)
{
	size_t entries = min_t(size_t, repl->num_entries,
			       repl->size / sizeof(struct ipt_entry));

	return sizeof(struct bpfilter_reply) +
	       max(sizeof(struct bpfilter_layout) + entries * sizeof(u32) +
		   BPFILTER_MAX_OPS * BPFILTER_MAX_OP_SIZE + repl->size,
		   sizeof(struct bpfilter_check) +
		   entries * sizeof(struct bpfilter_check_entry));
}

/* The largest table and either reply to it fit in a message. */
static_assert(sizeof(struct bpfilter_req) + sizeof(struct ipt_replace) +
	      BPFILTER_MAX_TABLE <= BPFILTER_MAX_MSG);
static_assert(sizeof(struct bpfilter_reply) + sizeof(struct bpfilter_layout) +
	      BPFILTER_MAX_TABLE / sizeof(struct ipt_entry) * sizeof(u32) +
	      BPFILTER_MAX_OPS * BPFILTER_MAX_OP_SIZE + BPFILTER_MAX_TABLE <=
	      BPFILTER_MAX_MSG);
static_assert(sizeof(struct bpfilter_reply) + sizeof(struct bpfilter_check) +
	      BPFILTER_MAX_TABLE / sizeof(struct ipt_entry) *
	      sizeof(struct bpfilter_check_entry) <= BPFILTER_MAX_MSG);

/*
 * Whether bpfilter runs the kernel's matches and targets that its helper
 * does not compile; if not, ip_tables serves the tables that have them, as
 * before the bridge (and tests compare the two that way).
 */
static bool bpfilter_bridge = true;
module_param_named(bridge, bpfilter_bridge, bool, 0644);
MODULE_PARM_DESC(bridge, "Run the kernel's xt matches and targets the helper does not compile (default: Y); N: ip_tables serves tables with them");

/*
 * The helper's BPFILTER_CHECK: the module checks the kernel's matches of
 * the new table, which then owns them, and asks again.
 */
static int bpfilter_check_xt(struct bpfilter_net *bn, u8 pf,
			     struct bpfilter_table *new,
			     struct bpfilter_reply *reply, size_t size,
			     u64 *gen)
{
	struct bpfilter_req *req = new->req;
	struct ipt_replace *repl = (void *)(req + 1);
	bool broken;
	int err;

	err = bpfilter_xt_check(bn->net, bpfilter_family(pf), repl->name,
				repl + 1, repl->size, (const void *)(reply + 1),
				reply->len, &new->xt, &broken);
	if (broken)
		bpfilter_broken(bn);
	if (err)
		return err;
	req->flags |= BPFILTER_REQ_CHECKED;
	err = bpfilter_call(bn, BPFILTER_MSG_SET, req, new->len, reply, size,
			    gen);
	req->flags &= ~BPFILTER_REQ_CHECKED;
	if (err >= 0 && reply->ret >= 0 && reply->action == BPFILTER_CHECK) {
		/* It was answered: asking again is not the protocol. */
		bpfilter_broken(bn);
		err = -EPROTO;
	}
	return err;
}

/* A replace of the filter table, which the helper sees first. */
static int bpfilter_replace_filter(struct sock *sk, struct bpfilter_net *bn,
				   u8 pf, struct bpfilter_table *new)
{
	struct bpfilter_table *t = bn->filter[bpfilter_family(pf)];
	struct bpfilter_req *req = new->req;
	struct ipt_replace *repl = (void *)(req + 1);
	struct xt_counters __user *counters = repl->counters;
	size_t size = bpfilter_reply_size(repl);
	struct bpfilter_reply *reply;
	struct xt_counters *buf;
	u64 gen;
	int err;

	/* Room for the old counters and the reply before anything changes. */
	buf = kvmalloc_array(t ? t->number : 1, sizeof(*buf),
			     GFP_KERNEL_ACCOUNT);
	reply = kvmalloc(size, GFP_KERNEL_ACCOUNT);
	err = -ENOMEM;
	if (!buf || !reply)
		goto out;

	/* The helper gets no pointer, not even one it could not follow. */
	repl->counters = NULL;
	bpfilter_req_init(req, sk, pf, IPT_SO_SET_REPLACE, sizeof(*repl) +
			  repl->size, t);
	if (!READ_ONCE(bpfilter_bridge))
		req->flags |= BPFILTER_REQ_NOXT;
	err = bpfilter_call(bn, BPFILTER_MSG_SET, req, new->len, reply, size,
			    &gen);
	if (err >= 0 && reply->ret >= 0 && reply->action == BPFILTER_CHECK)
		err = bpfilter_check_xt(bn, pf, new, reply, size, &gen);
	repl->counters = counters;
	if (err < 0)
		goto out;
	err = reply->ret;
	if (err < 0)
		goto out;
	if (reply->action == BPFILTER_FALLBACK && reply->len) {
		/* Whatever the helper did, a new one starts from our copy. */
		bpfilter_broken(bn);
		err = -EPROTO;
		goto out;
	}

	if (reply->action == BPFILTER_FALLBACK) {
		/* ip_tables checks the matches again, in its own copy. */
		bpfilter_xt_destroy(new->xt);
		new->xt = NULL;
		err = t ? bpfilter_give_back(sk, bn, pf, repl, buf) :
			  bpfilter_iptables_replace(sk, pf, repl);
	} else {
		err = bpfilter_install(sk, bn, pf, new, reply, gen, buf);
	}
out:
	kvfree(reply);
	kvfree(buf);
	return err;
}

static int bpfilter_replace(struct sock *sk, u8 pf, sockptr_t optval,
			    unsigned int optlen)
{
	struct bpfilter_table *new;
	struct ipt_replace tmp, *repl;
	struct bpfilter_net *bn;
	int err;

	if (optlen < sizeof(tmp))
		return -EINVAL;
	if (copy_from_sockptr(&tmp, optval, sizeof(tmp)))
		return -EFAULT;
	if (tmp.num_counters >= INT_MAX / sizeof(struct xt_counters))
		return -ENOMEM;
	if (tmp.num_counters == 0)
		return -EINVAL;
	if ((u64)optlen < (u64)tmp.size + sizeof(tmp))
		return -EINVAL;
	if (tmp.size >= BPFILTER_XT_MAX_TABLE - sizeof(struct xt_table_info))
		return -ENOMEM;
	tmp.name[sizeof(tmp.name) - 1] = '\0';

	new = kzalloc_obj(*new, GFP_KERNEL_ACCOUNT);
	if (!new)
		return -ENOMEM;
	new->len = sizeof(struct bpfilter_req) + sizeof(tmp) + tmp.size;
	new->req = bpfilter_copy_alloc(new->len);
	if (!new->req) {
		err = -ENOMEM;
		goto out_free;
	}
	repl = (void *)((struct bpfilter_req *)new->req + 1);
	*repl = tmp;
	if (copy_from_sockptr_offset(repl + 1, optval, sizeof(tmp), tmp.size)) {
		err = -EFAULT;
		goto out_free;
	}

	bn = bpfilter_lock_net(sk);
	if (IS_ERR(bn)) {
		err = PTR_ERR(bn);
		goto out_free;
	}
	if (strcmp(tmp.name, "filter") ||
	    (tmp.size > BPFILTER_MAX_TABLE && !bn->filter[bpfilter_family(pf)])) {
		err = bpfilter_iptables_replace(sk, pf, repl);
	} else if (tmp.size > BPFILTER_MAX_TABLE) {
		/* Handing it over would need the helper's old counters. */
		net_warn_ratelimited("bpfilter: table of more than %d bytes\n",
				     BPFILTER_MAX_TABLE);
		err = -ENOMEM;
	} else {
		err = bpfilter_replace_filter(sk, bn, pf, new);
		if (bn->filter[bpfilter_family(pf)] == new)
			new = NULL;
	}
	mutex_unlock(&bn->lock);
out_free:
	bpfilter_free_table(new);
	return err;
}

/* ip_tables gets the kernel's copy, whose table name was checked. */
static int bpfilter_iptables_add_counters(struct sock *sk, u8 pf,
					  const struct xt_counters_info *info,
					  const struct xt_counters *add)
{
	size_t size = array_size(info->num_counters, sizeof(*add));
	struct xt_counters_info *copy;
	int err;

	copy = kvmalloc(size_add(sizeof(*copy), size), GFP_KERNEL_ACCOUNT);
	if (!copy)
		return -ENOMEM;
	*copy = *info;
	memcpy(copy + 1, add, size);
	err = nf_setsockopt(sk, pf, IPT_SO_SET_ADD_COUNTERS,
			    KERNEL_SOCKPTR(copy), sizeof(*copy) + size);
	kvfree(copy);
	return err;
}

static int bpfilter_set_counters(struct sock *sk, u8 pf, sockptr_t optval,
				 unsigned int optlen)
{
	struct xt_counters_info tmp;
	struct bpfilter_table *t;
	struct bpfilter_net *bn;
	struct xt_counters *add;
	int err = 0;

	add = xt_copy_counters(optval, optlen, &tmp);
	if (IS_ERR(add))
		return PTR_ERR(add);

	bn = bpfilter_lock_net(sk);
	if (IS_ERR(bn)) {
		vfree(add);
		return PTR_ERR(bn);
	}
	t = bpfilter_table(bn, pf, tmp.name);
	if (!t) {
		err = bpfilter_iptables_add_counters(sk, pf, &tmp, add);
	} else if (tmp.num_counters != t->number) {
		err = -EINVAL;
	} else {
		bpfilter_add_counters(t, add);
	}
	mutex_unlock(&bn->lock);
	vfree(add);
	return err;
}

/*
 * The helper speaks the native layout only. While it serves a filter
 * table of the namespace, a compat caller gets -EOPNOTSUPP rather than
 * ip_tables' empty table, which it could otherwise fill behind the
 * helper's back; bn->lock keeps the helper from taking over meanwhile.
 */
static int bpfilter_compat_set(struct sock *sk, u8 pf, int optname,
			       sockptr_t optval, unsigned int optlen)
{
	struct bpfilter_net *bn = bpfilter_lock_net(sk);
	int err = -EOPNOTSUPP;

	if (IS_ERR(bn))
		return PTR_ERR(bn);
	if (!bn->filter[bpfilter_family(pf)])
		err = nf_setsockopt(sk, pf, optname, optval, optlen);
	mutex_unlock(&bn->lock);
	return err;
}

static int bpfilter_compat_get(struct sock *sk, u8 pf, int optname,
			       char __user *optval, int *optlen)
{
	struct bpfilter_net *bn = bpfilter_lock_net(sk);
	int err = -EOPNOTSUPP;

	if (IS_ERR(bn))
		return PTR_ERR(bn);
	if (!bn->filter[bpfilter_family(pf)])
		err = nf_getsockopt(sk, pf, optname, optval, optlen);
	mutex_unlock(&bn->lock);
	return err;
}

/* ip6tables options go to ip_tables' stub when ip6_tables is not built. */
static bool bpfilter_serves(u8 pf)
{
	return pf == NFPROTO_IPV4 || IS_ENABLED(CONFIG_IP6_NF_IPTABLES_LEGACY);
}

/**
 * bpfilter_setsockopt_ops - IPT_SO_SET_* and IP6T_SO_SET_*
 * @sk: the caller's socket
 * @pf: NFPROTO_IPV4 or NFPROTO_IPV6
 * @optname: the option
 * @optval: the caller's buffer
 * @optlen: its length
 *
 * Return: 0 or a negative errno, as from ip_tables.
 */
int bpfilter_setsockopt_ops(struct sock *sk, u8 pf, int optname,
			    sockptr_t optval, unsigned int optlen)
{
	if (!bpfilter_serves(pf))
		return nf_setsockopt(sk, pf, optname, optval, optlen);
	if (!ns_capable(sock_net(sk)->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if (in_compat_syscall())
		return bpfilter_compat_set(sk, pf, optname, optval, optlen);

	switch (optname) {
	case IPT_SO_SET_REPLACE:
		return bpfilter_replace(sk, pf, optval, optlen);
	case IPT_SO_SET_ADD_COUNTERS:
		return bpfilter_set_counters(sk, pf, optval, optlen);
	default:
		return -EINVAL;
	}
}

/*
 * get_info() of @t into @info, zeroed: the hooks that are not the table's
 * have no entry (translate_table() leaves them at 0xFFFFFFFF).
 */
static void bpfilter_get_info(struct bpfilter_table *t, u8 pf,
			      struct ipt_getinfo *info)
{
	const struct xt_table *table = &bpfilter_filter[bpfilter_family(pf)];
	const struct ipt_replace *repl = bpfilter_table_repl(t);
	unsigned int h;

	strscpy(info->name, table->name, sizeof(info->name));
	info->valid_hooks = table->valid_hooks;
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		bool valid = table->valid_hooks & BIT(h);

		info->hook_entry[h] = valid ? repl->hook_entry[h] : 0xFFFFFFFF;
		info->underflow[h] = valid ? repl->underflow[h] : 0xFFFFFFFF;
	}
	info->num_entries = t->number;
	info->size = t->size;
}

/*
 * A get option for the filter table the helper serves, answered from the
 * kernel's copy as get_info() and get_entries() answer it, without the
 * helper: listing a table never waits for a compilation, and waits for a
 * change of its own namespace's table only. @hdr is the caller's header,
 * the bytes go to @dst. ip_tables serves the other tables.
 */
static int bpfilter_get_table(struct sock *sk, u8 pf, int optname,
			      char __user *optval, int *optlen,
			      const void *hdr, void __user *dst)
{
	const char *name = hdr;	/* every header starts with the table name */
	struct bpfilter_table *t;
	struct bpfilter_net *bn;
	void *buf = NULL;
	size_t size;
	int err = 0;

	bn = bpfilter_lock_net(sk);
	if (IS_ERR(bn))
		return PTR_ERR(bn);
	t = bpfilter_table(bn, pf, name);
	if (!t) {
		mutex_unlock(&bn->lock);
		return nf_getsockopt(sk, pf, optname, optval, optlen);
	}

	if (optname == IPT_SO_GET_ENTRIES) {
		const struct ipt_get_entries *get = hdr;

		if (get->size != t->size) {
			err = -EAGAIN;
			goto out_unlock;
		}
		size = t->size;
	} else {
		size = sizeof(struct ipt_getinfo);
	}
	buf = kvzalloc(size, GFP_KERNEL_ACCOUNT);
	if (!buf) {
		err = -ENOMEM;
		goto out_unlock;
	}
	if (optname == IPT_SO_GET_ENTRIES) {
		memcpy(buf, t->view, size);
		bpfilter_xt_to_user(t->xt, buf, size);
		bpfilter_entry_counters(t, bpfilter_family(pf), buf);
	} else {
		bpfilter_get_info(t, pf, buf);
	}
out_unlock:
	/* The copy is ours: a slow user buffer holds up no one else. */
	mutex_unlock(&bn->lock);
	if (!err && copy_to_user(dst, buf, size))
		err = -EFAULT;
	kvfree(buf);
	return err;
}

/*
 * Stateless, and answered as do_ipt_get_ctl() answers it: from the kernel's
 * xt registry, loading the extension's module first if the registry has
 * no such name. Only for a name the registry still does not have is the
 * helper asked: an extension it compiles that this kernel does not build.
 */
static int bpfilter_get_revision(struct sock *sk, u8 pf, int optname,
				 int cmd, char __user *optval, int *optlen)
{
	struct {
		struct bpfilter_req req;
		struct xt_get_revision rev;
	} msg;
	struct bpfilter_reply reply;
	int err, ret;

	if (*optlen != sizeof(msg.rev))
		return -EINVAL;
	if (copy_from_user(&msg.rev, optval, sizeof(msg.rev)))
		return -EFAULT;
	msg.rev.name[sizeof(msg.rev.name) - 1] = '\0';

	try_then_request_module(xt_find_revision(pf, msg.rev.name,
						 msg.rev.revision,
						 cmd == IPT_SO_GET_REVISION_TARGET,
						 &ret),
				"%st_%s", pf == NFPROTO_IPV4 ? "ip" : "ip6",
				msg.rev.name);
	if (ret != -ENOENT)
		return ret;

	bpfilter_req_init(&msg.req, sk, pf, cmd, *optlen, false);
	/* Not sizeof(msg): the helper wants no padding after the name. */
	err = bpfilter_call(bpfilter_net(sock_net(sk)), BPFILTER_MSG_GET, &msg,
			    offsetofend(typeof(msg), rev), &reply, sizeof(reply),
			    NULL);
	if (err < 0 || reply.action == BPFILTER_FALLBACK)
		return -ENOENT;
	return reply.ret;
}

/**
 * bpfilter_getsockopt_ops - IPT_SO_GET_* and IP6T_SO_GET_*
 * @sk: the caller's socket
 * @pf: NFPROTO_IPV4 or NFPROTO_IPV6
 * @optname: the option
 * @optval: the caller's buffer
 * @optlen: its length
 *
 * Return: the option's value or a negative errno, as from ip_tables.
 */
int bpfilter_getsockopt_ops(struct sock *sk, u8 pf, int optname,
			    char __user *optval, int *optlen)
{
	struct ipt_get_entries __user *uget = (void __user *)optval;
	int cmd = bpfilter_cmd(pf, optname);
	struct ipt_get_entries get;
	struct ipt_getinfo info;

	if (!bpfilter_serves(pf))
		return nf_getsockopt(sk, pf, optname, optval, optlen);
	if (!ns_capable(sock_net(sk)->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if (in_compat_syscall() && cmd != IPT_SO_GET_REVISION_MATCH &&
	    cmd != IPT_SO_GET_REVISION_TARGET)
		return bpfilter_compat_get(sk, pf, optname, optval, optlen);

	switch (cmd) {
	case IPT_SO_GET_INFO:
		if (*optlen != sizeof(info))
			return -EINVAL;
		if (copy_from_user(info.name, optval, sizeof(info.name)))
			return -EFAULT;
		info.name[sizeof(info.name) - 1] = '\0';
		return bpfilter_get_table(sk, pf, optname, optval, optlen,
					  info.name, optval);
	case IPT_SO_GET_ENTRIES:
		if (*optlen < sizeof(get))
			return -EINVAL;
		if (copy_from_user(&get, optval, sizeof(get)))
			return -EFAULT;
		if (*optlen != sizeof(get) + get.size)
			return -EINVAL;
		get.name[sizeof(get.name) - 1] = '\0';
		return bpfilter_get_table(sk, pf, optname, optval, optlen,
					  &get, uget->entrytable);
	case IPT_SO_GET_REVISION_MATCH:
	case IPT_SO_GET_REVISION_TARGET:
		return bpfilter_get_revision(sk, pf, optname, cmd, optval,
					     optlen);
	default:
		return -EINVAL;
	}
}
