/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Messages between bpfilter.ko and its user-mode helper, carried in the
 * payload of struct umd_msg. The helper is built with the module, so this
 * is private to net/bpfilter and not an ABI.
 */
#ifndef _NET_BPFILTER_MSG_H
#define _NET_BPFILTER_MSG_H

#include <linux/types.h>

#define BPFILTER_PROTO_VERSION	2

/* The largest request or reply: a table of about 300k simple rules. */
#define BPFILTER_MAX_MSG	(64 << 20)

/**
 * enum bpfilter_msg_type - what the kernel asks of the helper
 * @BPFILTER_MSG_HELLO: forget every table; sent to each new helper before
 *	anything else, which answers -ESTALE to any other request until then
 * @BPFILTER_MSG_SET: a setsockopt; the request carries the caller's bytes
 * @BPFILTER_MSG_GET: a getsockopt; the request carries the header the
 *	kernel copied from the caller
 * @BPFILTER_MSG_LOAD: replay of a table the kernel kept (an IPT_SO_SET_REPLACE
 *	blob), after a helper restart
 * @BPFILTER_MSG_DROP: forget one table (its name follows the request)
 * @BPFILTER_MSG_NET_EXIT: forget every table of a network namespace
 */
enum bpfilter_msg_type {
	BPFILTER_MSG_HELLO = 1,
	BPFILTER_MSG_SET,
	BPFILTER_MSG_GET,
	BPFILTER_MSG_LOAD,
	BPFILTER_MSG_DROP,
	BPFILTER_MSG_NET_EXIT,
};

/**
 * struct bpfilter_req - a request, followed by its bytes
 * @net_cookie: the socket's network namespace
 * @family: NFPROTO_IPV4 or NFPROTO_IPV6
 * @cmd: IPT_SO_* (the IP6T_SO_* numbers are the same)
 * @len: the caller's optlen
 * @flags: BPFILTER_REQ_*
 */
struct bpfilter_req {
	__u64 net_cookie;
	__u32 family;
	__u32 cmd;
	__u32 len;
	__u32 flags;
};

/*
 * struct bpfilter_req.flags: the kernel owns the table through the helper.
 * Without it the helper forgets any state it has for the table first: the
 * kernel's view is the one that counts.
 */
#define BPFILTER_REQ_OWNED	0x1

/**
 * enum bpfilter_action - what the kernel does with a request
 * @BPFILTER_DONE: the helper served it
 * @BPFILTER_FALLBACK: the helper cannot serve this table or extension;
 *	ip_tables must
 */
enum bpfilter_action {
	BPFILTER_DONE,
	BPFILTER_FALLBACK,
};

/* struct bpfilter_reply.flags */
#define BPFILTER_TABLE_INITIAL	0x1	/* the table is its initial state */
#define BPFILTER_TABLE_CONNTRACK 0x2	/* it needs conntrack in its netns */
#define BPFILTER_TABLE_REJECT	0x4	/* it calls bpfilter_reject() */
#define BPFILTER_TABLE_LOG	0x8	/* it calls bpfilter_log() */
#define BPFILTER_TABLE_MAC	0x10	/* bpfilter_match(BPFILTER_MATCH_MAC) */
#define BPFILTER_TABLE_ADDRTYPE	0x20	/* and BPFILTER_MATCH_ADDRTYPE */
#define BPFILTER_TABLE_KFUNCS	(BPFILTER_TABLE_REJECT | BPFILTER_TABLE_LOG | \
				 BPFILTER_TABLE_MAC | BPFILTER_TABLE_ADDRTYPE)

/**
 * enum bpfilter_match - the kernel's matches bpfilter_match() runs, as
 *	they look at what a program cannot read: the link layer header, the
 *	routing tables
 * @BPFILTER_MATCH_MAC: xt_mac, struct xt_mac_info
 * @BPFILTER_MATCH_ADDRTYPE: xt_addrtype revision 1, xt_addrtype_info_v1
 * @BPFILTER_NMATCHES: their number
 */
enum bpfilter_match {
	BPFILTER_MATCH_MAC,
	BPFILTER_MATCH_ADDRTYPE,
	BPFILTER_NMATCHES,
};

/**
 * struct bpfilter_reply - a reply, followed by @len bytes
 * @action: enum bpfilter_action
 * @flags: BPFILTER_TABLE_*, after a change of a table
 * @ret: 0 or the helper's negative errno; the protocol version for HELLO;
 *	the getsockopt's return value for IPT_SO_GET_REVISION_*
 * @len: bytes that follow: struct ipt_getinfo or the entries (with zero
 *	counters: the kernel reads them from the program)
 * @prog_id: after a replace the helper serves, the id of the table's
 *	BPF_PROG_TYPE_NETFILTER program; the helper keeps it open until the
 *	table is replaced or dropped. Its maps are the counters, a per-CPU
 *	array of struct xt_counters with an element per entry, and maybe
 *	the hash map of its classifier.
 * @reserved: zero
 */
struct bpfilter_reply {
	__u32 action;
	__u32 flags;
	__s32 ret;
	__u32 len;
	__u32 prog_id;
	__u32 reserved;
};

#endif /* _NET_BPFILTER_MSG_H */
