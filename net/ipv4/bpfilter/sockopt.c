// SPDX-License-Identifier: GPL-2.0
/*
 * Routes the iptables socket options to bpfilter.ko while it is loaded, and
 * to ip_tables (through nf_setsockopt() and nf_getsockopt()) otherwise, so
 * that without the module nothing changes.
 */
#include <linux/bpfilter.h>
#include <linux/export.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/rcupdate.h>

static const struct bpfilter_ops __rcu *bpfilter_registered;
/* Serializes bpfilter_register() and bpfilter_unregister(). */
static DEFINE_MUTEX(bpfilter_ops_mutex);

/**
 * bpfilter_register - route the iptables socket options to a module
 * @ops: its functions; must stay valid until bpfilter_unregister()
 *
 * Context: Process context.
 * Return: 0, or -EBUSY if another module is registered.
 */
int bpfilter_register(const struct bpfilter_ops *ops)
{
	int err = 0;

	mutex_lock(&bpfilter_ops_mutex);
	if (rcu_access_pointer(bpfilter_registered))
		err = -EBUSY;
	else
		rcu_assign_pointer(bpfilter_registered, ops);
	mutex_unlock(&bpfilter_ops_mutex);
	return err;
}
EXPORT_SYMBOL_GPL(bpfilter_register);

/**
 * bpfilter_unregister - route the iptables socket options to ip_tables again
 * @ops: what bpfilter_register() was given
 *
 * Calls that already hold a reference on @ops->owner go on; new calls go to
 * ip_tables once this returns.
 *
 * Context: Process context; may sleep.
 */
void bpfilter_unregister(const struct bpfilter_ops *ops)
{
	mutex_lock(&bpfilter_ops_mutex);
	if (rcu_access_pointer(bpfilter_registered) == ops)
		RCU_INIT_POINTER(bpfilter_registered, NULL);
	mutex_unlock(&bpfilter_ops_mutex);
	synchronize_rcu();
}
EXPORT_SYMBOL_GPL(bpfilter_unregister);

/* The registered ops with a reference on their module, or NULL. */
static const struct bpfilter_ops *bpfilter_get_ops(void)
{
	const struct bpfilter_ops *ops;

	rcu_read_lock();
	ops = rcu_dereference(bpfilter_registered);
	if (ops && !try_module_get(ops->owner))
		ops = NULL;
	rcu_read_unlock();
	return ops;
}

/**
 * bpfilter_setsockopt - an iptables set option, through bpfilter if loaded
 * @sk: the caller's socket
 * @pf: NFPROTO_IPV4 or NFPROTO_IPV6
 * @optname: IPT_SO_SET_* or IP6T_SO_SET_*
 * @optval: the caller's buffer
 * @optlen: its length
 *
 * Context: Process context; may sleep.
 * Return: 0 or a negative errno, as from ip_tables.
 */
int bpfilter_setsockopt(struct sock *sk, u8 pf, int optname, sockptr_t optval,
			unsigned int optlen)
{
	const struct bpfilter_ops *ops = bpfilter_get_ops();
	struct module *owner;
	int err;

	if (!ops)
		return nf_setsockopt(sk, pf, optname, optval, optlen);
	owner = ops->owner;
	err = ops->setsockopt(sk, pf, optname, optval, optlen);
	module_put(owner);
	return err;
}

/**
 * bpfilter_getsockopt - an iptables get option, through bpfilter if loaded
 * @sk: the caller's socket
 * @pf: NFPROTO_IPV4 or NFPROTO_IPV6
 * @optname: IPT_SO_GET_* or IP6T_SO_GET_*
 * @optval: the caller's buffer
 * @optlen: its length
 *
 * Context: Process context; may sleep.
 * Return: the option's value (0 for most), or a negative errno, as from
 * ip_tables.
 */
int bpfilter_getsockopt(struct sock *sk, u8 pf, int optname,
			char __user *optval, int *optlen)
{
	const struct bpfilter_ops *ops = bpfilter_get_ops();
	struct module *owner;
	int err;

	if (!ops)
		return nf_getsockopt(sk, pf, optname, optval, optlen);
	owner = ops->owner;
	err = ops->getsockopt(sk, pf, optname, optval, optlen);
	module_put(owner);
	return err;
}

/**
 * bpfilter_ip_setsockopt - a netfilter set option of an IPv4 socket
 * @sk: the socket
 * @optname: the option
 * @optval: the caller's buffer
 * @optlen: its length
 *
 * The iptables options go through bpfilter_setsockopt(), the others to
 * nf_setsockopt().
 *
 * Return: 0 or a negative errno.
 */
int bpfilter_ip_setsockopt(struct sock *sk, int optname, sockptr_t optval,
			   unsigned int optlen)
{
	if (optname >= IPT_BASE_CTL && optname <= IPT_SO_SET_MAX)
		return bpfilter_setsockopt(sk, NFPROTO_IPV4, optname, optval,
					   optlen);
	return nf_setsockopt(sk, PF_INET, optname, optval, optlen);
}

/**
 * bpfilter_ip_getsockopt - a netfilter get option of an IPv4 socket
 * @sk: the socket
 * @optname: the option
 * @optval: the caller's buffer
 * @optlen: its length
 *
 * The iptables options go through bpfilter_getsockopt(), the others to
 * nf_getsockopt().
 *
 * Return: the option's value or a negative errno.
 */
int bpfilter_ip_getsockopt(struct sock *sk, int optname, char __user *optval,
			   int *optlen)
{
	if (optname >= IPT_BASE_CTL && optname <= IPT_SO_GET_MAX)
		return bpfilter_getsockopt(sk, NFPROTO_IPV4, optname, optval,
					   optlen);
	return nf_getsockopt(sk, PF_INET, optname, optval, optlen);
}
