// SPDX-License-Identifier: GPL-2.0
/*
 * The matches and targets the helper validates, with the checks the
 * kernel's own extensions make, so that a table using them is judged as
 * ip_tables and ip6_tables would judge it; it compiles some of them (see
 * bf_ext_native()), the module runs the others.
 */
#include <errno.h>
#include <string.h>
#include <linux/netfilter.h>
#include <linux/netfilter/x_tables.h>
#include <linux/in.h>
#include <linux/netfilter/xt_LOG.h>
#include <linux/netfilter/xt_addrtype.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_conntrack.h>
#include <linux/netfilter/xt_iprange.h>
#include <linux/netfilter/xt_length.h>
#include <linux/netfilter/xt_mac.h>
#include <linux/netfilter/xt_mark.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_state.h>
#include <linux/netfilter/xt_tcpudp.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv4/ipt_REJECT.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <linux/netfilter_ipv6/ip6t_REJECT.h>

#include "ext.h"
#include "validate.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* tcp_mt_check() in xt_tcpudp.c */
static int tcp_check(const struct bf_ext_par *par)
{
	const struct xt_tcp *info = par->data;

	return info->invflags & ~XT_TCP_INV_MASK ? -EINVAL : 0;
}

/* udp_mt_check() in xt_tcpudp.c */
static int udp_check(const struct bf_ext_par *par)
{
	const struct xt_udp *info = par->data;

	return info->invflags & ~XT_UDP_INV_MASK ? -EINVAL : 0;
}

/* icmp_checkentry() */
static int icmp_check(const struct bf_ext_par *par)
{
	const struct ipt_icmp *info = par->data;

	return info->invflags & ~IPT_ICMP_INV ? -EINVAL : 0;
}

/* icmp6_checkentry() */
static int icmp6_check(const struct bf_ext_par *par)
{
	const struct ip6t_icmp *info = par->data;

	return info->invflags & ~IP6T_ICMP_INV ? -EINVAL : 0;
}

/* multiport_valid_ranges() */
static bool multiport_ranges(const struct xt_multiport_v1 *info)
{
	unsigned int i;

	for (i = 0; i < info->count; i++) {
		if (!info->pflags[i])
			continue;
		if (++i >= info->count)
			return false;
		if (info->pflags[i])
			return false;
		if (info->ports[i - 1] > info->ports[i])
			return false;
	}
	return true;
}

/* multiport_mt_check() and multiport_mt6_check() */
static int multiport_check(const struct bf_ext_par *par)
{
	const struct xt_multiport_v1 *info = par->data;
	__u16 proto;
	__u8 inv;

	if (par->family == NFPROTO_IPV6) {
		const struct ip6t_ip6 *ip6 = par->entryinfo;

		proto = ip6->proto;
		inv = ip6->invflags;
	} else {
		const struct ipt_ip *ip = par->entryinfo;

		proto = ip->proto;
		inv = ip->invflags;
	}
	if ((proto != IPPROTO_TCP && proto != IPPROTO_UDP &&
	     proto != IPPROTO_UDPLITE && proto != IPPROTO_SCTP &&
	     proto != IPPROTO_DCCP) || (inv & XT_INV_PROTO) ||
	    (info->flags != XT_MULTIPORT_SOURCE &&
	     info->flags != XT_MULTIPORT_DESTINATION &&
	     info->flags != XT_MULTIPORT_EITHER) ||
	    info->count > XT_MULTI_PORTS)
		return -EINVAL;
	return multiport_ranges(info) ? 0 : -EINVAL;
}

/* reject_tg_check() */
static int reject_check(const struct bf_ext_par *par)
{
	const struct ipt_reject_info *info = par->data;
	const struct ipt_ip *ip = par->entryinfo;

	if (info->with == IPT_ICMP_ECHOREPLY)
		return -EINVAL;
	if (info->with == IPT_TCP_RESET &&
	    (ip->proto != IPPROTO_TCP || (ip->invflags & XT_INV_PROTO)))
		return -EINVAL;
	return 0;
}

/* reject_tg6_check() */
static int reject6_check(const struct bf_ext_par *par)
{
	const struct ip6t_reject_info *info = par->data;
	const struct ip6t_ip6 *ip6 = par->entryinfo;

	if (info->with == IP6T_ICMP6_ECHOREPLY)
		return -EINVAL;
	if (info->with == IP6T_TCP_RESET &&
	    (!(ip6->flags & IP6T_F_PROTO) || ip6->proto != IPPROTO_TCP ||
	     (ip6->invflags & XT_INV_PROTO)))
		return -EINVAL;
	return 0;
}

/* log_tg_check(); the kernel finds the logger when it installs the table */
static int log_check(const struct bf_ext_par *par)
{
	const struct xt_log_info *info = par->data;

	if (info->level >= 8 || info->prefix[sizeof(info->prefix) - 1])
		return -EINVAL;
	return 0;
}

/* addrtype_mt_checkentry_v1() in xt_addrtype.c */
static int addrtype_check(const struct bf_ext_par *par)
{
	const struct xt_addrtype_info_v1 *info = par->data;
	unsigned int types = info->source | info->dest;

	if ((info->flags & XT_ADDRTYPE_LIMIT_IFACE_IN) &&
	    (info->flags & XT_ADDRTYPE_LIMIT_IFACE_OUT))
		return -EINVAL;
	if ((par->hook_mask & ((1 << NF_INET_PRE_ROUTING) |
			       (1 << NF_INET_LOCAL_IN))) &&
	    (info->flags & XT_ADDRTYPE_LIMIT_IFACE_OUT))
		return -EINVAL;
	if ((par->hook_mask & ((1 << NF_INET_POST_ROUTING) |
			       (1 << NF_INET_LOCAL_OUT))) &&
	    (info->flags & XT_ADDRTYPE_LIMIT_IFACE_IN))
		return -EINVAL;
	if (par->family == NFPROTO_IPV6 &&
	    ((types & (XT_ADDRTYPE_BLACKHOLE | XT_ADDRTYPE_BROADCAST)) ||
	     types >= XT_ADDRTYPE_PROHIBIT))
		return -EINVAL;
	return 0;
}

#define FILTER_HOOKS	((1 << NF_INET_LOCAL_IN) | (1 << NF_INET_FORWARD) | \
			 (1 << NF_INET_LOCAL_OUT))

/*
 * The kernel registers the standard and ERROR targets, tcp and udp once
 * for each family; one NFPROTO_UNSPEC entry here finds and reports them
 * the same way for ip and ip6 tables, as no other family is served.
 */
static const struct bf_ext bf_exts[] = {
	{
		.name		= XT_STANDARD_TARGET,
		.family		= NFPROTO_UNSPEC,
		.target		= true,
		.size		= sizeof(int),
	},
	{
		.name		= XT_ERROR_TARGET,
		.family		= NFPROTO_UNSPEC,
		.target		= true,
		.size		= XT_FUNCTION_MAXNAMELEN,
	},
	{
		.name		= "tcp",
		.family		= NFPROTO_UNSPEC,
		.size		= sizeof(struct xt_tcp),
		.proto		= IPPROTO_TCP,
		.check		= tcp_check,
	},
	{
		.name		= "udp",
		.family		= NFPROTO_UNSPEC,
		.size		= sizeof(struct xt_udp),
		.proto		= IPPROTO_UDP,
		.check		= udp_check,
	},
	{
		.name		= "icmp",
		.family		= NFPROTO_IPV4,
		.size		= sizeof(struct ipt_icmp),
		.proto		= IPPROTO_ICMP,
		.check		= icmp_check,
	},
	{
		.name		= "icmp6",
		.family		= NFPROTO_IPV6,
		.size		= sizeof(struct ip6t_icmp),
		.proto		= IPPROTO_ICMPV6,
		.check		= icmp6_check,
	},
	{
		.name		= "comment",
		.family		= NFPROTO_UNSPEC,
		.size		= sizeof(struct xt_comment_info),
	},
	{
		.name		= "mark",
		.revision	= 1,
		.family		= NFPROTO_UNSPEC,
		.size		= sizeof(struct xt_mark_mtinfo1),
	},
	{
		.name		= "length",
		.family		= NFPROTO_IPV4,
		.size		= sizeof(struct xt_length_info),
	},
	{
		.name		= "length",
		.family		= NFPROTO_IPV6,
		.size		= sizeof(struct xt_length_info),
	},
	{
		.name		= "iprange",
		.revision	= 1,
		.family		= NFPROTO_IPV4,
		.size		= sizeof(struct xt_iprange_mtinfo),
	},
	{
		.name		= "iprange",
		.revision	= 1,
		.family		= NFPROTO_IPV6,
		.size		= sizeof(struct xt_iprange_mtinfo),
	},
	{
		.name		= "REJECT",
		.family		= NFPROTO_IPV4,
		.target		= true,
		.size		= sizeof(struct ipt_reject_info),
		.table		= "filter",
		.hooks		= FILTER_HOOKS,
		.check		= reject_check,
	},
	{
		.name		= "REJECT",
		.family		= NFPROTO_IPV6,
		.target		= true,
		.size		= sizeof(struct ip6t_reject_info),
		.table		= "filter",
		.hooks		= FILTER_HOOKS,
		.check		= reject6_check,
	},
	{
		.name		= "LOG",
		.family		= NFPROTO_IPV4,
		.target		= true,
		.size		= sizeof(struct xt_log_info),
		.check		= log_check,
	},
	{
		.name		= "LOG",
		.family		= NFPROTO_IPV6,
		.target		= true,
		.size		= sizeof(struct xt_log_info),
		.check		= log_check,
	},
	/*
	 * state and conntrack: their checkentry makes conntrack active in
	 * the namespace, which bpfilter.ko does (BPFILTER_TABLE_CONNTRACK).
	 */
	{
		.name		= "state",
		.family		= NFPROTO_UNSPEC,
		.size		= sizeof(struct xt_state_info),
	},
	{
		.name		= "conntrack",
		.revision	= 1,
		.family		= NFPROTO_UNSPEC,
		.size		= sizeof(struct xt_conntrack_mtinfo1),
	},
	{
		.name		= "conntrack",
		.revision	= 2,
		.family		= NFPROTO_UNSPEC,
		.size		= sizeof(struct xt_conntrack_mtinfo2),
	},
	{
		.name		= "conntrack",
		.revision	= 3,
		.family		= NFPROTO_UNSPEC,
		.size		= sizeof(struct xt_conntrack_mtinfo3),
	},
	/* xt_mac registers the same match for ip and ip6 tables. */
	{
		.name		= "mac",
		.family		= NFPROTO_UNSPEC,
		.size		= sizeof(struct xt_mac_info),
		.hooks		= (1 << NF_INET_PRE_ROUTING) |
				  (1 << NF_INET_LOCAL_IN) |
				  (1 << NF_INET_FORWARD),
	},
	{
		.name		= "addrtype",
		.family		= NFPROTO_IPV4,
		.size		= sizeof(struct xt_addrtype_info),
	},
	{
		.name		= "addrtype",
		.revision	= 1,
		.family		= NFPROTO_UNSPEC,
		.size		= sizeof(struct xt_addrtype_info_v1),
		.check		= addrtype_check,
	},
	{
		.name		= "multiport",
		.revision	= 1,
		.family		= NFPROTO_IPV4,
		.size		= sizeof(struct xt_multiport_v1),
		.check		= multiport_check,
	},
	{
		.name		= "multiport",
		.revision	= 1,
		.family		= NFPROTO_IPV6,
		.size		= sizeof(struct xt_multiport_v1),
		.check		= multiport_check,
	},
};

static bool ext_named(const struct bf_ext *ext, __u8 family,
		      const char *name, bool target)
{
	return ext->family == family && ext->target == target &&
	       strncmp(ext->name, name, XT_EXTENSION_MAXNAMELEN) == 0;
}

static const struct bf_ext *find_in(__u8 family, const char *name,
				    __u8 revision, bool target)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bf_exts); i++) {
		const struct bf_ext *ext = &bf_exts[i];

		if (ext_named(ext, family, name, target) &&
		    ext->revision == revision)
			return ext;
	}
	return NULL;
}

/*
 * Like xt_find_match() and xt_find_target(): the family's own extensions
 * first, then those for every family. @name must be a string shorter
 * than XT_EXTENSION_MAXNAMELEN.
 */
const struct bf_ext *bf_ext_find(__u8 family, const char *name,
				 __u8 revision, bool target)
{
	const struct bf_ext *ext;

	ext = find_in(family, name, revision, target);
	if (!ext && family != NFPROTO_UNSPEC)
		ext = find_in(NFPROTO_UNSPEC, name, revision, target);
	return ext;
}

/*
 * conntrack_mt() with --ctstate alone, NAT states excluded, is a test of
 * the skb's conntrack bits; iptables' -m state comes as such a match,
 * marked as an alias. Anything else reads the conntrack entry.
 */
static bool ctstate_alone(const struct xt_entry_match *m)
{
	const struct xt_conntrack_mtinfo3 *info = (const void *)m->data;

	if (m->u.user.revision != 3)
		return false;
	return (info->match_flags & ~XT_CONNTRACK_STATE_ALIAS) ==
	       XT_CONNTRACK_STATE &&
	       !(info->state_mask & (XT_CONNTRACK_STATE_SNAT |
				     XT_CONNTRACK_STATE_DNAT));
}

static const char *const bf_native[] = {
	"comment", "tcp", "udp", "icmp", "icmp6", "mark", "length",
	"iprange", "multiport", "state", "conntrack",
};

/**
 * bf_ext_native - whether the helper compiles a match itself
 * @family: NFPROTO_IPV4 or NFPROTO_IPV6
 * @m: the match, as user space sent it, its name NUL-terminated
 *
 * The others are the kernel's, checked by the module and run through
 * bpfilter_xt_match(): the validator lists their entries for the module,
 * the IR numbers them in the same order.
 *
 * Return: true if the code generator emits the match.
 */
bool bf_ext_native(__u8 family, const struct xt_entry_match *m)
{
	const char *name = m->u.user.name;
	unsigned int i;

	if (!bf_ext_find(family, name, m->u.user.revision, false))
		return false;
	for (i = 0; i < ARRAY_SIZE(bf_native); i++)
		if (!strcmp(name, bf_native[i]))
			break;
	if (i == ARRAY_SIZE(bf_native))
		return false;
	if (!strcmp(name, "conntrack"))
		return ctstate_alone(m);
	return true;
}

/* match_revfn() and target_revfn() for one family's list */
static bool revisions(__u8 family, const char *name, __u8 revision,
		      bool target, int *best)
{
	bool have = false;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bf_exts); i++) {
		const struct bf_ext *ext = &bf_exts[i];

		if (!ext_named(ext, family, name, target))
			continue;
		if (ext->revision > *best)
			*best = ext->revision;
		if (ext->revision == revision)
			have = true;
	}
	return have;
}

/*
 * IPT_SO_GET_REVISION_MATCH and _TARGET as xt_find_revision() answers
 * them; a name the helper does not serve at all may be served by a
 * kernel extension, so only the kernel can answer for it.
 */
int bf_revision(__u8 family, const char *name, __u8 revision,
		bool target)
{
	bool have;
	int best = -1;

	have = revisions(family, name, revision, target, &best);
	if (!have && family != NFPROTO_UNSPEC)
		have = revisions(NFPROTO_UNSPEC, name, revision, target, &best);

	if (best < 0)
		return BF_FALLBACK;
	return have ? best : -EPROTONOSUPPORT;
}

/**
 * bf_ext_bridged - whether the module runs a target the helper knows
 * @t: the target, as user space sent it, after the validator's checks
 *
 * REJECT and LOG are the kernel's own code, which the module checks and
 * runs through bpfilter_xt_target() as it does the targets the helper
 * does not know. A program can only return NF_ACCEPT or NF_DROP: the
 * module runs -j QUEUE, the standard verdict NF_QUEUE, as a target of its
 * own the same way.
 *
 * Return: true for REJECT, LOG and the standard target with NF_QUEUE.
 */
bool bf_ext_bridged(const struct xt_entry_target *t)
{
	const struct xt_standard_target *st = (const void *)t;

	if (!strcmp(t->u.user.name, "REJECT") || !strcmp(t->u.user.name, "LOG"))
		return true;
	return !strcmp(t->u.user.name, XT_STANDARD_TARGET) &&
	       st->verdict == -NF_QUEUE - 1;
}
