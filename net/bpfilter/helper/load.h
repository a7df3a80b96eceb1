/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BPFILTER_LOAD_H
#define _BPFILTER_LOAD_H

#include <assert.h>
#include <stdbool.h>
#include <linux/types.h>

#include "classify.h"
#include "codegen.h"
#include "ir.h"
#include "msg.h"

/**
 * struct bf_prog - a table's program, loaded
 * @prog_fd: the program, BPF_PROG_TYPE_NETFILTER
 * @map_fd: its counters, a per-CPU array of struct xt_counters
 * @cls_fd: its classifier's hash map (classify.c), or -1
 * @prog_id: what the kernel knows it by
 * @insns: its length
 * @code: its instructions, which a new table's must equal for the
 *	program to be kept (update.c)
 * @slot: the index of each entry's counter in @map_fd
 * @nslots: the entries
 * @low: the indices below it are free, for entries put first in a run
 * @high: those from it up to @cap are free, for entries put last
 * @cap: the size of @map_fd
 * @keys: what @cls_fd holds, by key, the values with counter indices
 * @nkeys: their number
 * @keys_cap: the size of @cls_fd
 * @ops: the changes of @cls_fd a kept program needs, for the kernel
 * @nops: their number
 * @kept: the plan keeps the current program: only @cls_fd changes
 * @jumps: its runs have jumps out of them
 * @no_jumps: its runs have no jumps: the verifier refused them
 */
struct bf_prog {
	int prog_fd;
	int map_fd;
	int cls_fd;
	__u32 prog_id;
	unsigned int insns;
	struct bf_code code;
	__u32 *slot;
	unsigned int nslots;
	__u32 low, high, cap;
	struct bf_cls_entry *keys;
	unsigned int nkeys, keys_cap;
	struct bf_map_op *ops;
	unsigned int nops;
	bool kept;
	bool jumps;
	bool no_jumps;
};

/**
 * struct bf_map_op - struct bpfilter_map_op of the classifier's map, each
 *	part in 8 bytes
 * @flags: BPFILTER_OP_*
 * @reserved: zero
 * @key: the key
 * @pad: zero
 * @value: the new value
 * @old: the old value
 */
struct bf_map_op {
	__u32 flags;
	__u32 reserved;
	struct bf_cls_key key;
	__u8 pad[4];
	struct bf_cls_value value;
	struct bf_cls_value old;
};

static_assert(sizeof(struct bf_cls_key) % 8 == 4 &&
	      sizeof(struct bf_cls_value) == 8 &&
	      sizeof(struct bf_map_op) <= BPFILTER_MAX_OP_SIZE,
	      "struct bf_map_op is not laid out as struct bpfilter_map_op");

/* The size of a new classifier's map of @n keys: room for new ones. */
static inline __u32 bf_keys_cap(__u32 n)
{
	return n + n / 8 + 64;
}

void bf_prog_init(struct bf_prog *prog);
int bf_prog_keys(const struct bf_cls *cls, struct bf_prog *prog);
int bf_prog_plan(const struct bf_ir *ir, const struct bf_prog *old,
		 const int *from, bool jumps, struct bf_prog *prog);
int bf_prog_load(__u8 family, struct bf_prog *old, struct bf_prog *prog);
bool bf_load_again(int err, const struct bf_prog *prog);
int bf_load(const struct bf_ir *ir, struct bf_prog *old, const int *from,
	    struct bf_prog *prog);
void bf_unload(struct bf_prog *prog);
bool bf_load_xt(void);
void bf_load_init(void);

#endif /* _BPFILTER_LOAD_H */
