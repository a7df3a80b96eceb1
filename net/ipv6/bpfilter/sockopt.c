// SPDX-License-Identifier: GPL-2.0
/*
 * The ip6tables socket options go to bpfilter.ko while it is loaded (see
 * net/ipv4/bpfilter/sockopt.c), the other netfilter options to
 * nf_setsockopt() and nf_getsockopt().
 */
#include <linux/bpfilter.h>
#include <linux/export.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

/**
 * bpfilter_ip6_setsockopt - a netfilter set option of an IPv6 socket
 * @sk: the socket
 * @optname: the option
 * @optval: the caller's buffer
 * @optlen: its length
 *
 * Return: 0 or a negative errno.
 */
int bpfilter_ip6_setsockopt(struct sock *sk, int optname, sockptr_t optval,
			    unsigned int optlen)
{
	if (optname >= IP6T_BASE_CTL && optname <= IP6T_SO_SET_MAX)
		return bpfilter_setsockopt(sk, NFPROTO_IPV6, optname, optval,
					   optlen);
	return nf_setsockopt(sk, PF_INET6, optname, optval, optlen);
}
EXPORT_SYMBOL_GPL(bpfilter_ip6_setsockopt);

/**
 * bpfilter_ip6_getsockopt - a netfilter get option of an IPv6 socket
 * @sk: the socket
 * @optname: the option
 * @optval: the caller's buffer
 * @optlen: its length
 *
 * Return: the option's value or a negative errno.
 */
int bpfilter_ip6_getsockopt(struct sock *sk, int optname, char __user *optval,
			    int *optlen)
{
	if (optname >= IP6T_BASE_CTL && optname <= IP6T_SO_GET_MAX)
		return bpfilter_getsockopt(sk, NFPROTO_IPV6, optname, optval,
					   optlen);
	return nf_getsockopt(sk, PF_INET6, optname, optval, optlen);
}
EXPORT_SYMBOL_GPL(bpfilter_ip6_getsockopt);
