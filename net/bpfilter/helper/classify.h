/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BPFILTER_CLASSIFY_H
#define _BPFILTER_CLASSIFY_H

#include <stdbool.h>
#include <linux/types.h>

#include "ir.h"

/* The shortest run of simple rules worth a lookup instead of code. */
#define BF_CLS_MIN_RUN		16
/* The most shapes, each a lookup per packet, in a run. */
#define BF_CLS_MAX_SHAPES	32
/* The most keys a rule's port ranges may expand to. */
#define BF_CLS_MAX_BLOCKS	32
/* The most keys of a rule: a rule of more is code, not a lookup. */
#define BF_CLS_MAX_RULE_KEYS	32
/* The most keys of a table: its map is allocated in full. */
#define BF_CLS_MAX_KEYS		0x200000
/* The most jumps and gotos in a run: the code picks among them. */
#define BF_CLS_MAX_JUMPS	64
/* struct bf_cls_value.verdict of a run's first jump or goto; + 1: next */
#define BF_CLS_JUMP		0x100

extern unsigned int bf_cls_min_run;

/**
 * struct bf_cls_key - a key of the classifier's hash map
 * @shape: struct bf_cls_shape.id, so that all shapes share a map
 * @proto: the protocol, 0 if the shape takes any
 * @ct: the packet's state bit as state_mt() makes it, 0 if the shape
 *	takes any state
 * @pad: zero
 * @in: the input interface's name under the shape's mask
 * @out: the output interface's name under the shape's mask
 * @sport: the source port under the shape's mask, network order
 * @dport: the destination port under the shape's mask, network order
 * @src: the source address under the shape's mask (IPv4: 4 bytes)
 * @dst: the destination address under the shape's mask
 *
 * The names start 8 bytes in: 8-byte words of the stack, as the
 * verifier wants them.
 */
struct bf_cls_key {
	__u32 shape;
	__u8 proto;
	__u8 ct;
	__u8 pad[2];
	char in[IFNAMSIZ];
	char out[IFNAMSIZ];
	__be16 sport;
	__be16 dport;
	__u8 src[16];
	__u8 dst[16];
};

/**
 * struct bf_cls_value - what a key finds
 * @index: the first entry of the run with that key; in the map, the index
 *	of its counter, which grows with the entry within a run
 * @verdict: NF_ACCEPT, NF_DROP, or BF_CLS_JUMP + the number of the
 *	jump or goto in the run; 0 for a projection
 */
struct bf_cls_value {
	__u32 index;
	__u32 verdict;
};

/**
 * enum bf_cls_kind - what a shape's keys stand for
 * @BF_CLS_RULE: the rules themselves
 * @BF_CLS_L4: the address part of rules with ports (with a state match
 *	before the ports, the state too), for a packet whose transport
 *	header they cannot read: the first such rule whose part matches
 *	drops it (hotdrop)
 * @BF_CLS_ADDR: IPv6: the addresses of rules with -p, for a packet
 *	whose protocol header ipv6_find_hdr() cannot find (hotdrop)
 */
enum bf_cls_kind {
	BF_CLS_RULE,
	BF_CLS_L4,
	BF_CLS_ADDR,
};

/**
 * struct bf_cls_shape - the masks of a class of rules: one lookup
 * @id: its number in the keys
 * @kind: enum bf_cls_kind
 * @l4proto: IPPROTO_TCP or IPPROTO_UDP if the rules have ports, else 0
 * @any_proto: the rules take any protocol: 0 in the key
 * @proto6: IPv6 rules with -p (IP6T_F_PROTO): a protocol header needed
 * @ct: the rules test the connection's state: in the key
 * @pad: zero, compared as the rest
 * @spmask: mask of the source port, network order
 * @dpmask: mask of the destination port, network order
 * @smsk: mask of the source address
 * @dmsk: mask of the destination address
 * @inmsk: mask of the input interface's name
 * @outmsk: mask of the output interface's name
 */
struct bf_cls_shape {
	__u32 id;
	__u8 kind;
	__u8 l4proto;
	bool any_proto;
	bool proto6;
	bool ct;
	__u8 pad[3];
	__be16 spmask;
	__be16 dpmask;
	__u8 smsk[16];
	__u8 dmsk[16];
	__u8 inmsk[IFNAMSIZ];
	__u8 outmsk[IFNAMSIZ];
};

/**
 * struct bf_cls_run - consecutive simple rules of a chain, one lookup
 *	per shape instead of code per rule
 * @start: the first entry
 * @end: the entry after the last one
 * @shape: the first of its shapes in struct bf_cls.shapes
 * @nshapes: their number
 * @hotdrop: it has shapes of kind BF_CLS_L4 or BF_CLS_ADDR
 * @njumps: its jumps and gotos
 * @emitted: the times the code generator emitted its code; once, no
 *	packet runs it twice
 */
struct bf_cls_run {
	unsigned int start, end;
	unsigned int shape, nshapes;
	bool hotdrop;
	unsigned int njumps;
	unsigned int emitted;
};

/**
 * struct bf_cls_entry - a key and its value, for the map
 * @key: the key
 * @value: the value
 */
struct bf_cls_entry {
	struct bf_cls_key key;
	struct bf_cls_value value;
};

/**
 * struct bf_cls - the classified runs of a table
 * @runs: the runs, by start
 * @nruns: their number
 * @run_at: for each entry, the run starting there + 1, or 0
 * @shapes: the shapes of all runs
 * @nshapes: their number
 * @entries: the keys of the map, one per key
 * @nentries: their number
 * @caps: room in @runs, @shapes and @entries
 */
struct bf_cls {
	struct bf_cls_run *runs;
	unsigned int nruns;
	unsigned int *run_at;
	struct bf_cls_shape *shapes;
	unsigned int nshapes;
	struct bf_cls_entry *entries;
	unsigned int nentries;
	unsigned int caps[3];
};

int bf_cls_plan(const struct bf_ir *ir, bool jumps, struct bf_cls *cls);
void bf_cls_free(struct bf_cls *cls);

#endif /* _BPFILTER_CLASSIFY_H */
