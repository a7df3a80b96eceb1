/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_BPFILTER_H
#define _LINUX_BPFILTER_H

#include <linux/netfilter.h>
#include <linux/sockptr.h>
#include <linux/types.h>

struct module;
struct sock;

/**
 * struct bpfilter_ops - the iptables socket options, served by bpfilter.ko
 * @setsockopt: an IPT_SO_SET_* or IP6T_SO_SET_* option
 * @getsockopt: an IPT_SO_GET_* or IP6T_SO_GET_* option
 * @owner: the module providing the functions
 *
 * Both take the protocol family (NFPROTO_IPV4 or NFPROTO_IPV6) and return
 * what ip_tables would: 0, the result of a getsockopt, or a negative errno.
 */
struct bpfilter_ops {
	int (*setsockopt)(struct sock *sk, u8 pf, int optname, sockptr_t optval,
			  unsigned int optlen);
	int (*getsockopt)(struct sock *sk, u8 pf, int optname,
			  char __user *optval, int *optlen);
	struct module *owner;
};

#if IS_ENABLED(CONFIG_BPFILTER)
int bpfilter_register(const struct bpfilter_ops *ops);
void bpfilter_unregister(const struct bpfilter_ops *ops);
int bpfilter_setsockopt(struct sock *sk, u8 pf, int optname, sockptr_t optval,
			unsigned int optlen);
int bpfilter_getsockopt(struct sock *sk, u8 pf, int optname,
			char __user *optval, int *optlen);
int bpfilter_ip_setsockopt(struct sock *sk, int optname, sockptr_t optval,
			   unsigned int optlen);
int bpfilter_ip_getsockopt(struct sock *sk, int optname, char __user *optval,
			   int *optlen);
int bpfilter_ip6_setsockopt(struct sock *sk, int optname, sockptr_t optval,
			    unsigned int optlen);
int bpfilter_ip6_getsockopt(struct sock *sk, int optname, char __user *optval,
			    int *optlen);
#elif IS_ENABLED(CONFIG_NETFILTER)
static inline int bpfilter_ip_setsockopt(struct sock *sk, int optname,
					 sockptr_t optval, unsigned int optlen)
{
	return nf_setsockopt(sk, PF_INET, optname, optval, optlen);
}

static inline int bpfilter_ip_getsockopt(struct sock *sk, int optname,
					 char __user *optval, int *optlen)
{
	return nf_getsockopt(sk, PF_INET, optname, optval, optlen);
}

static inline int bpfilter_ip6_setsockopt(struct sock *sk, int optname,
					  sockptr_t optval, unsigned int optlen)
{
	return nf_setsockopt(sk, PF_INET6, optname, optval, optlen);
}

static inline int bpfilter_ip6_getsockopt(struct sock *sk, int optname,
					  char __user *optval, int *optlen)
{
	return nf_getsockopt(sk, PF_INET6, optname, optval, optlen);
}
#endif

#endif /* _LINUX_BPFILTER_H */
