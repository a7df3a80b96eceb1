// SPDX-License-Identifier: GPL-2.0
/*
 * The iptables socket options: checked and copied as ip_tables does, then
 * sent to the helper as bytes, or handed to ip_tables for the tables the
 * helper does not serve. The helper never sees a user pointer.
 */
#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/mm.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <net/sock.h>

#include "bpfilter.h"

/* The entries of a table the helper serves: what is left of a message. */
#define BPFILTER_MAX_TABLE	(BPFILTER_MAX_MSG - sizeof(struct bpfilter_req) - \
				 sizeof(struct ipt_replace))

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

/* The filter table of @pf in @sk's namespace, NULL if ip_tables serves it. */
static struct bpfilter_table *bpfilter_table(struct sock *sk, u8 pf,
					     const char *name)
{
	lockdep_assert_held(&bpfilter.lock);

	if (strcmp(name, "filter"))
		return NULL;
	return bpfilter_net(sock_net(sk))->filter[bpfilter_family(pf)];
}

static void bpfilter_req_init(struct bpfilter_req *req, struct sock *sk,
			      u8 pf, int cmd, unsigned int len, bool owned)
{
	*req = (struct bpfilter_req) {
		.net_cookie = sock_net(sk)->net_cookie,
		.family = pf,
		.cmd = cmd,
		.len = len,
		.flags = owned ? BPFILTER_REQ_OWNED : 0,
	};
}

/* Tells the helper to forget the filter table of @pf in @sk's namespace. */
static void bpfilter_drop(struct sock *sk, u8 pf)
{
	struct {
		struct bpfilter_req req;
		char name[XT_TABLE_MAXNAMELEN];
	} drop = { .name = "filter" };
	struct bpfilter_reply reply;

	bpfilter_req_init(&drop.req, sk, pf, 0, sizeof(drop.name), true);
	bpfilter_call(BPFILTER_MSG_DROP, &drop, sizeof(drop), &reply,
		      sizeof(reply));
}

/* Copies the old counters of a replaced table, silently as ip_tables. */
static void bpfilter_put_counters(const struct ipt_replace *repl,
				  const struct bpfilter_reply *reply)
{
	if (copy_to_user(repl->counters, reply + 1, reply->len))
		net_warn_ratelimited("bpfilter: counters copy to user failed while replacing table\n");
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

	if (pf == NFPROTO_IPV6)
		initial = IS_ENABLED(CONFIG_IP6_NF_IPTABLES) ?
			  ip6t_alloc_initial_table(info) : NULL;
	else
		initial = ipt_alloc_initial_table(info);
	if (!initial)
		return -ENOMEM;
	initial->num_counters = repl->num_counters;
	initial->counters = repl->counters;
	err = nf_setsockopt(sk, pf, IPT_SO_SET_REPLACE, KERNEL_SOCKPTR(initial),
			    sizeof(*initial) + initial->size);
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
 * was emptied when the helper took it over: ip_tables' own counters go to
 * the caller's buffer first, then the helper's table's.
 */
static int bpfilter_give_back(struct sock *sk, u8 pf, struct ipt_replace *repl,
			      const struct bpfilter_reply *reply)
{
	struct ipt_replace user = *repl;
	int number, err;

	number = bpfilter_iptables_number(sk, pf);
	if (number < 0)
		return number;
	repl->num_counters = number;
	err = nf_setsockopt(sk, pf, IPT_SO_SET_REPLACE, KERNEL_SOCKPTR(repl),
			    sizeof(*repl) + repl->size);
	*repl = user;
	if (err)
		return err;
	bpfilter_put_counters(repl, reply);
	return 0;
}

/*
 * A table too big for a message to the helper goes to ip_tables, unless the
 * helper serves the current one: handing that over would need a copy.
 */
static int bpfilter_replace_large(struct sock *sk, u8 pf, sockptr_t optval,
				  unsigned int optlen)
{
	int err = -ENOMEM;

	/* The owner of the table cannot change while ip_tables replaces it. */
	mutex_lock(&bpfilter.lock);
	if (!bpfilter_table(sk, pf, "filter"))
		err = nf_setsockopt(sk, pf, IPT_SO_SET_REPLACE, optval, optlen);
	else
		net_warn_ratelimited("bpfilter: table of more than %zu bytes\n",
				     BPFILTER_MAX_TABLE);
	mutex_unlock(&bpfilter.lock);
	return err;
}

static int bpfilter_replace(struct sock *sk, u8 pf, sockptr_t optval,
			    unsigned int optlen)
{
	struct bpfilter_net *bn = bpfilter_net(sock_net(sk));
	struct bpfilter_reply *reply = NULL;
	struct bpfilter_table *t, *new;
	struct ipt_replace tmp, *repl;
	struct bpfilter_req *req;
	size_t len, reply_size;
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
	tmp.name[sizeof(tmp.name) - 1] = '\0';
	if (strcmp(tmp.name, "filter"))
		return nf_setsockopt(sk, pf, IPT_SO_SET_REPLACE, optval,
				     optlen);

	if (tmp.size > BPFILTER_MAX_TABLE)
		return bpfilter_replace_large(sk, pf, optval, optlen);

	len = sizeof(*req) + sizeof(tmp) + tmp.size;
	new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	req = kvmalloc(len, GFP_KERNEL_ACCOUNT);
	if (!new || !req) {
		err = -ENOMEM;
		goto err_free;
	}
	repl = (struct ipt_replace *)(req + 1);
	*repl = tmp;
	if (copy_from_sockptr_offset(repl + 1, optval, sizeof(tmp), tmp.size)) {
		err = -EFAULT;
		goto err_free;
	}

	mutex_lock(&bpfilter.lock);
	t = bn->filter[bpfilter_family(pf)];
	reply_size = sizeof(*reply) +
		     (t ? t->number * sizeof(struct xt_counters) : 0);
	reply = kvmalloc(reply_size, GFP_KERNEL);
	if (!reply) {
		err = -ENOMEM;
		goto err_unlock;
	}

	/* The helper gets no pointer, not even one it could not follow. */
	repl->counters = NULL;
	bpfilter_req_init(req, sk, pf, IPT_SO_SET_REPLACE, optlen, t);
	err = bpfilter_call(BPFILTER_MSG_SET, req, len, reply, reply_size);
	repl->counters = tmp.counters;
	if (err < 0)
		goto err_unlock;
	if (err < sizeof(*reply) || reply->len != err - sizeof(*reply) ||
	    reply->len != (t ? t->number * sizeof(struct xt_counters) : 0)) {
		err = -EPROTO;
		goto err_unlock;
	}

	if (reply->action == BPFILTER_FALLBACK) {
		if (!t) {
			err = nf_setsockopt(sk, pf, IPT_SO_SET_REPLACE, optval,
					    optlen);
			goto err_unlock;
		}
		err = bpfilter_give_back(sk, pf, repl, reply);
		if (err)
			goto err_unlock;
		bpfilter_drop(sk, pf);
		bpfilter_set_table(bn, bpfilter_family(pf), NULL);
		err = 0;
		goto err_unlock;
	}

	if (t) {
		bpfilter_put_counters(repl, reply);
	} else {
		err = bpfilter_take_over(sk, pf, repl);
		if (err) {
			bpfilter_drop(sk, pf);
			goto err_unlock;
		}
	}

	repl->counters = NULL;
	new->req = req;
	new->len = len;
	new->number = repl->num_entries;
	new->size = repl->size;
	new->initial = reply->flags & BPFILTER_TABLE_INITIAL;
	/* Replayed as a table of its own: no old counters to check. */
	req->flags = 0;
	bpfilter_set_table(bn, bpfilter_family(pf), new);
	mutex_unlock(&bpfilter.lock);
	kvfree(reply);
	return 0;

err_unlock:
	mutex_unlock(&bpfilter.lock);
err_free:
	kvfree(reply);
	kvfree(req);
	kfree(new);
	return err;
}

static int bpfilter_add_counters(struct sock *sk, u8 pf, sockptr_t optval,
				 unsigned int optlen)
{
	struct xt_counters_info info;
	struct bpfilter_reply reply;
	struct bpfilter_req *req;
	struct xt_counters *add;
	size_t size;
	int err;

	add = xt_copy_counters(optval, optlen, &info);
	if (IS_ERR(add))
		return PTR_ERR(add);

	mutex_lock(&bpfilter.lock);
	if (!bpfilter_table(sk, pf, info.name)) {
		err = nf_setsockopt(sk, pf, IPT_SO_SET_ADD_COUNTERS, optval,
				    optlen);
		goto out;
	}

	size = array_size(info.num_counters, sizeof(*add));
	req = kvmalloc(sizeof(*req) + sizeof(info) + size, GFP_KERNEL);
	if (!req) {
		err = -ENOMEM;
		goto out;
	}
	bpfilter_req_init(req, sk, pf, IPT_SO_SET_ADD_COUNTERS, optlen, true);
	memcpy(req + 1, &info, sizeof(info));
	memcpy((void *)(req + 1) + sizeof(info), add, size);
	err = bpfilter_call(BPFILTER_MSG_SET, req,
			    sizeof(*req) + sizeof(info) + size, &reply,
			    sizeof(reply));
	kvfree(req);
	if (err >= 0)
		err = 0;
out:
	mutex_unlock(&bpfilter.lock);
	vfree(add);
	return err;
}

/*
 * The helper speaks the native layout only. While it serves the filter
 * table, a compat caller gets -EOPNOTSUPP rather than ip_tables' empty
 * table, which it could otherwise fill behind the helper's back.
 */
static int bpfilter_compat(struct sock *sk, u8 pf)
{
	bool owned;

	mutex_lock(&bpfilter.lock);
	owned = bpfilter_table(sk, pf, "filter");
	mutex_unlock(&bpfilter.lock);
	return owned ? -EOPNOTSUPP : 0;
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
	int err;

	if (!ns_capable(sock_net(sk)->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if (in_compat_syscall()) {
		err = bpfilter_compat(sk, pf);
		return err ?: nf_setsockopt(sk, pf, optname, optval, optlen);
	}

	switch (optname) {
	case IPT_SO_SET_REPLACE:
		return bpfilter_replace(sk, pf, optval, optlen);
	case IPT_SO_SET_ADD_COUNTERS:
		return bpfilter_add_counters(sk, pf, optval, optlen);
	default:
		return -EINVAL;
	}
}

/*
 * A get option for the filter table the helper serves: the request is
 * @hdr, the reply's bytes go to @dst. ip_tables serves the other tables.
 */
static int bpfilter_get_table(struct sock *sk, u8 pf, int optname,
			      char __user *optval, int *optlen,
			      const void *hdr, size_t hdr_len,
			      void __user *dst)
{
	const char *name = hdr;	/* every header starts with the table name */
	struct bpfilter_reply *reply;
	struct bpfilter_table *t;
	struct bpfilter_req *req;
	size_t reply_size;
	int err;

	mutex_lock(&bpfilter.lock);
	t = bpfilter_table(sk, pf, name);
	if (!t) {
		mutex_unlock(&bpfilter.lock);
		return nf_getsockopt(sk, pf, optname, optval, optlen);
	}

	if (optname == IPT_SO_GET_ENTRIES) {
		const struct ipt_get_entries *get = hdr;

		if (get->size != t->size) {
			err = -EAGAIN;
			goto out;
		}
		reply_size = sizeof(*reply) + t->size;
	} else {
		reply_size = sizeof(*reply) + sizeof(struct ipt_getinfo);
	}

	err = -ENOMEM;
	req = kmalloc(sizeof(*req) + hdr_len, GFP_KERNEL);
	reply = kvmalloc(reply_size, GFP_KERNEL);
	if (!req || !reply)
		goto out_free;
	bpfilter_req_init(req, sk, pf, optname, *optlen, true);
	memcpy(req + 1, hdr, hdr_len);
	err = bpfilter_call(BPFILTER_MSG_GET, req, sizeof(*req) + hdr_len,
			    reply, reply_size);
	if (err < 0)
		goto out_free;
	if (err != reply_size || reply->len != reply_size - sizeof(*reply)) {
		err = -EPROTO;
		goto out_free;
	}
	err = copy_to_user(dst, reply + 1, reply->len) ? -EFAULT : 0;
out_free:
	kvfree(reply);
	kfree(req);
out:
	mutex_unlock(&bpfilter.lock);
	return err;
}

static int bpfilter_get_revision(struct sock *sk, u8 pf, int optname,
				 int cmd, char __user *optval, int *optlen)
{
	struct {
		struct bpfilter_req req;
		struct xt_get_revision rev;
	} msg;
	struct bpfilter_reply reply;
	int err;

	if (*optlen != sizeof(msg.rev))
		return -EINVAL;
	if (copy_from_user(&msg.rev, optval, sizeof(msg.rev)))
		return -EFAULT;
	msg.rev.name[sizeof(msg.rev.name) - 1] = '\0';

	bpfilter_req_init(&msg.req, sk, pf, cmd, *optlen, false);
	mutex_lock(&bpfilter.lock);
	/* Not sizeof(msg): the helper wants no padding after the name. */
	err = bpfilter_call(BPFILTER_MSG_GET, &msg, offsetofend(typeof(msg), rev),
			    &reply, sizeof(reply));
	mutex_unlock(&bpfilter.lock);
	if (err < 0)
		return err;
	if (err != sizeof(reply))
		return -EPROTO;
	if (reply.action == BPFILTER_FALLBACK)
		return nf_getsockopt(sk, pf, optname, optval, optlen);
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
	int err;

	if (!ns_capable(sock_net(sk)->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if (in_compat_syscall() && cmd != IPT_SO_GET_REVISION_MATCH &&
	    cmd != IPT_SO_GET_REVISION_TARGET) {
		err = bpfilter_compat(sk, pf);
		return err ?: nf_getsockopt(sk, pf, optname, optval, optlen);
	}

	switch (cmd) {
	case IPT_SO_GET_INFO:
		if (*optlen != sizeof(info))
			return -EINVAL;
		if (copy_from_user(info.name, optval, sizeof(info.name)))
			return -EFAULT;
		info.name[sizeof(info.name) - 1] = '\0';
		return bpfilter_get_table(sk, pf, optname, optval, optlen,
					  info.name, sizeof(info.name),
					  optval);
	case IPT_SO_GET_ENTRIES:
		if (*optlen < sizeof(get))
			return -EINVAL;
		if (copy_from_user(&get, optval, sizeof(get)))
			return -EFAULT;
		if (*optlen != sizeof(get) + get.size)
			return -EINVAL;
		get.name[sizeof(get.name) - 1] = '\0';
		return bpfilter_get_table(sk, pf, optname, optval, optlen,
					  &get, sizeof(get), uget->entrytable);
	case IPT_SO_GET_REVISION_MATCH:
	case IPT_SO_GET_REVISION_TARGET:
		return bpfilter_get_revision(sk, pf, optname, cmd, optval,
					     optlen);
	default:
		return -EINVAL;
	}
}
