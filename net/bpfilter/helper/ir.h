/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BPFILTER_IR_H
#define _BPFILTER_IR_H

#include <linux/netfilter.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_conntrack.h>
#include <linux/netfilter/xt_iprange.h>
#include <linux/netfilter/xt_length.h>
#include <linux/netfilter/xt_mark.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_state.h>
#include <linux/netfilter/xt_tcpudp.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "msg.h"
#include "validate.h"

/**
 * enum bf_match_kind - a match the code generator knows
 * @BF_MATCH_TCP: xt_tcp
 * @BF_MATCH_UDP: xt_udp
 * @BF_MATCH_ICMP: ipt_icmp
 * @BF_MATCH_ICMP6: ip6t_icmp
 * @BF_MATCH_MARK: xt_mark_mtinfo1
 * @BF_MATCH_LENGTH: xt_length_info
 * @BF_MATCH_IPRANGE: xt_iprange_mtinfo
 * @BF_MATCH_MULTIPORT: xt_multiport_v1
 * @BF_MATCH_CTSTATE: the state match, or conntrack's --ctstate alone
 * @BF_MATCH_XT: a match the module checked, run by bpfilter_xt_match()
 */
enum bf_match_kind {
	BF_MATCH_TCP,
	BF_MATCH_UDP,
	BF_MATCH_ICMP,
	BF_MATCH_ICMP6,
	BF_MATCH_MARK,
	BF_MATCH_LENGTH,
	BF_MATCH_IPRANGE,
	BF_MATCH_MULTIPORT,
	BF_MATCH_CTSTATE,
	BF_MATCH_XT,
};

/**
 * struct bf_ctstate - what state_mt() and conntrack_mt() test of the state
 * @mask: the states that match (XT_STATE_* or XT_CONNTRACK_STATE_*)
 * @untracked: the bit of an untracked packet in @mask
 * @invert: conntrack's ! --ctstate
 */
struct bf_ctstate {
	__u16 mask;
	__u16 untracked;
	bool invert;
};

/**
 * struct bf_match - a match of a rule, its data copied from the blob
 * @kind: enum bf_match_kind
 * @tcp: for BF_MATCH_TCP
 * @udp: for BF_MATCH_UDP
 * @icmp: for BF_MATCH_ICMP
 * @icmp6: for BF_MATCH_ICMP6
 * @mark: for BF_MATCH_MARK
 * @length: for BF_MATCH_LENGTH
 * @iprange: for BF_MATCH_IPRANGE
 * @multiport: for BF_MATCH_MULTIPORT
 * @ctstate: for BF_MATCH_CTSTATE
 * @xt: for BF_MATCH_XT, its index among the table's kernel matches
 */
struct bf_match {
	enum bf_match_kind kind;
	union {
		struct xt_tcp tcp;
		struct xt_udp udp;
		struct ipt_icmp icmp;
		struct ip6t_icmp icmp6;
		struct xt_mark_mtinfo1 mark;
		struct xt_length_info length;
		struct xt_iprange_mtinfo iprange;
		struct xt_multiport_v1 multiport;
		struct bf_ctstate ctstate;
		__u32 xt;
	};
};

/**
 * enum bf_action - what a rule whose matches all match does
 * @BF_ACCEPT: the packet is accepted
 * @BF_DROP: the packet is dropped
 * @BF_RETURN: back to the rule after the last jump, or to the policy
 * @BF_JUMP: to another entry, which is pushed (see ipt_do_table())
 * @BF_GOTO: to another entry, without a push
 * @BF_ERROR: an ERROR entry: xt_error's verdict, a drop
 * @BF_XT: a target the module checked, run by bpfilter_xt_target(): on to
 *	the next entry or its verdict
 */
enum bf_action {
	BF_ACCEPT,
	BF_DROP,
	BF_RETURN,
	BF_JUMP,
	BF_GOTO,
	BF_ERROR,
	BF_XT,
};

/**
 * struct bf_rule - an entry of the table
 * @ip: the address part, struct ipt_ip (IPv4)
 * @ip6: the address part, struct ip6t_ip6 (IPv6)
 * @matches: the matches that decide anything (not comment)
 * @nmatches: their number
 * @action: enum bf_action
 * @jump: for BF_JUMP and BF_GOTO, the index of the entry jumped to
 * @xt: for BF_XT, its index among the table's kernel targets
 */
struct bf_rule {
	union {
		struct ipt_ip ip;
		struct ip6t_ip6 ip6;
	};
	struct bf_match *matches;
	unsigned int nmatches;
	enum bf_action action;
	unsigned int jump;
	__u32 xt;
};

/**
 * enum bf_read - what the rules of a table read of a packet
 * @BF_READ_HEADERS: the IP header, and the transport header after it
 * @BF_READ_IN: the input interface's name
 * @BF_READ_OUT: the output interface's name
 * @BF_READ_MARK: skb->mark
 * @BF_READ_NFCT: skb->_nfct, the conntrack entry and state
 *
 * The prologue reads nothing else (skb->len for the counters aside): a
 * table of interfaces and policies costs a packet no header.
 */
enum bf_read {
	BF_READ_HEADERS	= 1 << 0,
	BF_READ_IN	= 1 << 1,
	BF_READ_OUT	= 1 << 2,
	BF_READ_MARK	= 1 << 3,
	BF_READ_NFCT	= 1 << 4,
};

/**
 * struct bf_ir - a table as the code generator sees it
 * @family: NFPROTO_IPV4 or NFPROTO_IPV6
 * @nrules: entries, the last one the table's ERROR entry
 * @rules: the entries by index, which is also their counter's index
 * @hook_entry: index of the first entry of each hook
 * @underflow: index of the policy of each hook
 * @valid_hooks: the hooks the table is for
 * @stacksize: ip_tables' jump stack size: deeper jumps drop the packet
 * @reads: what its rules read of a packet (enum bf_read)
 * @conntrack: a rule looks at the conntrack state: it must be active
 * @tcp_options: a rule has --tcp-option: the prologue walks the options
 * @nxt: the kernel matches the module checked for the table: a rule has
 *	BF_MATCH_XT if not 0
 * @nxt_targets: the kernel targets the module checked for it: a rule has
 *	BF_XT if not 0
 * @xtfrag: IPv6: a rule without -p has BF_MATCH_XT or BF_XT, which gets the
 *	fragment offset of the last rule with -p that found the header
 *	(ip6t_do_table()): rules are not classified, so that each one
 *	with -p records it
 */
struct bf_ir {
	__u8 family;
	unsigned int nrules;
	struct bf_rule *rules;
	unsigned int hook_entry[NF_INET_NUMHOOKS];
	unsigned int underflow[NF_INET_NUMHOOKS];
	unsigned int valid_hooks;
	unsigned int stacksize;
	unsigned int reads;
	bool conntrack;
	bool tcp_options;
	unsigned int nxt;
	unsigned int nxt_targets;
	bool xtfrag;
};

int bf_ir_build(__u8 family, const void *entries,
		const struct bf_table_info *info, struct bf_ir *ir);
int bf_ir_build_xt(__u8 family, const void *entries,
		   const struct bf_table_info *info, bool checked,
		   struct bf_ir *ir);
void bf_ir_free(struct bf_ir *ir);

#endif /* _BPFILTER_IR_H */
