/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Messages between bpfilter.ko and its user-mode helper, carried in the
 * payload of struct umd_msg. The helper is built with the module, so this
 * is private to net/bpfilter and not an ABI.
 */
#ifndef _NET_BPFILTER_MSG_H
#define _NET_BPFILTER_MSG_H

#include <linux/types.h>

#define BPFILTER_PROTO_VERSION	7

/* The largest request or reply: a table of about 300k simple rules. */
#define BPFILTER_MAX_MSG	(64 << 20)
/*
 * The largest table the helper is sent: the reply to a replace it serves
 * has the entries too, and four bytes more per entry (of 112 at least).
 */
#define BPFILTER_MAX_TABLE	(60 << 20)

/**
 * enum bpfilter_msg_type - what the kernel asks of the helper
 * @BPFILTER_MSG_HELLO: forget every table; sent to each new helper before
 *	anything else, which answers -ESTALE to any other request until then
 * @BPFILTER_MSG_SET: a setsockopt; the request carries the caller's bytes
 * @BPFILTER_MSG_GET: IPT_SO_GET_REVISION_* of an extension the kernel
 *	does not have; the request carries the caller's struct
 *	xt_get_revision. (The kernel answers the other get options itself.)
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
 * @budget: the CPU time in ms the helper's compiling children may spend
 *	on the request's table, the module parameter compile_ms
 * @reserved: zero
 */
struct bpfilter_req {
	__u64 net_cookie;
	__u32 family;
	__u32 cmd;
	__u32 len;
	__u32 flags;
	__u32 budget;
	__u32 reserved;
};

/*
 * struct bpfilter_req.flags: the kernel owns the table through the helper.
 * Without it the helper forgets any state it has for the table first: the
 * kernel's view is the one that counts.
 */
#define BPFILTER_REQ_OWNED	0x1
/*
 * The module checked the kernel's matches the helper listed in its
 * BPFILTER_CHECK reply to this same request, and holds them: the helper
 * compiles the table with calls to them.
 */
#define BPFILTER_REQ_CHECKED	0x2
/* The module runs no kernel match: such a table is ip_tables'. */
#define BPFILTER_REQ_NOXT	0x4

/**
 * enum bpfilter_action - what the kernel does with a request
 * @BPFILTER_DONE: the helper served it
 * @BPFILTER_FALLBACK: the helper cannot serve this table or extension;
 *	ip_tables must
 * @BPFILTER_CHECK: the table uses matches or targets that only the kernel
 *	has: a struct bpfilter_check follows, the module checks them and
 *	sends the request again with BPFILTER_REQ_CHECKED
 */
enum bpfilter_action {
	BPFILTER_DONE,
	BPFILTER_FALLBACK,
	BPFILTER_CHECK,
};

/**
 * struct bpfilter_check - the entries whose matches the module checks
 * @nentries: the struct bpfilter_check_entry that follow, in the order of
 *	the entries
 * @err: 0, or the errno the helper found for an extension it checks,
 *	after those of the entries listed (the module's come first)
 * @reserved: zero
 *
 * Every match of a listed entry is checked, in order, and gets the next
 * index among the table's kernel matches: the index its program passes
 * to bpfilter_xt_match(). Its target is checked after them if the entry
 * has BPFILTER_CHECK_TARGET, and gets the next index among the table's
 * kernel targets, for bpfilter_xt_target().
 */
struct bpfilter_check {
	__u32 nentries;
	__s32 err;
	__u64 reserved;
};

/* struct bpfilter_check_entry.flags: the target is the kernel's too. */
#define BPFILTER_CHECK_TARGET	0x1

/**
 * struct bpfilter_check_entry - an entry with a match or target only the
 *	kernel has
 * @offset: its offset in the table
 * @hook_mask: the hooks it is reached from, as mark_source_chains() sets
 *	its comefrom
 * @flags: BPFILTER_CHECK_*
 * @reserved: zero
 */
struct bpfilter_check_entry {
	__u32 offset;
	__u32 hook_mask;
	__u32 flags;
	__u32 reserved;
};

/* struct bpfilter_reply.flags */
#define BPFILTER_TABLE_INITIAL	0x1	/* the table is its initial state */
#define BPFILTER_TABLE_CONNTRACK 0x2	/* it needs conntrack in its netns */

/**
 * struct bpfilter_reply - a reply, followed by @len bytes
 * @action: enum bpfilter_action
 * @flags: BPFILTER_TABLE_*, after a change of a table
 * @ret: 0 or the helper's negative errno; the protocol version for HELLO;
 *	the getsockopt's return value for IPT_SO_GET_REVISION_*
 * @len: bytes that follow: after a replace the helper serves, struct
 *	bpfilter_layout and what follows it
 * @prog_id: after a replace the helper serves, the id of the table's
 *	BPF_PROG_TYPE_NETFILTER program; the helper keeps it open until the
 *	table is replaced or dropped. Its maps are the counters, a per-CPU
 *	array of struct xt_counters, and maybe the hash map of its
 *	classifier. The id of the table's current program if the helper
 *	changes it in place (struct bpfilter_layout).
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

/**
 * struct bpfilter_layout - what follows the reply to a replace the helper
 *	serves: where the entries count, how a program kept changes, and
 *	what the entries read as
 * @nslots: the entries of the table: as many __u32 follow, the index of
 *	each entry's counter in the program's counters map
 * @nops: struct bpfilter_map_op that follow the slots, changes of the
 *	classifier's map of the table's current program, which the kernel
 *	makes in order, then undoes if one fails; 0 for a new program
 * @nxt: the kernel matches the program may call, as many as the module
 *	checked for the table
 * @nxt_targets: the kernel targets it may call, likewise
 *
 * Counters that keep their index keep counting; those of new entries
 * are new indices, zero until the kernel makes the changes.
 *
 * After the changes come the entries as IPT_SO_GET_ENTRIES returns them
 * (each entry's comefrom set, counters zero): the kernel keeps them and
 * answers the option itself, so that reading a table never waits for
 * the helper.
 */
struct bpfilter_layout {
	__u32 nslots;
	__u32 nops;
	__u32 nxt;
	__u32 nxt_targets;
};

/* The most changes of a map in place: beyond, a new program is loaded. */
#define BPFILTER_MAX_OPS	256
/* The most bytes of a struct bpfilter_map_op, its key and values included. */
#define BPFILTER_MAX_OP_SIZE	128

/**
 * struct bpfilter_map_op - a change of the classifier's map
 * @flags: BPFILTER_OP_*
 * @reserved: zero
 * @data: the key, then the new value, then the old one; the sizes are the
 *	map's, each rounded up to 8 bytes
 */
struct bpfilter_map_op {
	__u32 flags;
	__u32 reserved;
	__u8 data[];
};

#define BPFILTER_OP_DELETE	0x1	/* delete the key; else update it */
#define BPFILTER_OP_OLD		0x2	/* it had the old value */

#endif /* _NET_BPFILTER_MSG_H */
