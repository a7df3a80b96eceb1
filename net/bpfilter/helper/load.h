/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BPFILTER_LOAD_H
#define _BPFILTER_LOAD_H

#include <linux/types.h>

#include "ir.h"

/**
 * struct bf_prog - a table's program, loaded
 * @prog_fd: the program, BPF_PROG_TYPE_NETFILTER
 * @map_fd: its counters, a per-CPU array of struct xt_counters
 * @cls_fd: its classifier's hash map (classify.c), or -1
 * @prog_id: what the kernel knows it by
 * @insns: its length
 */
struct bf_prog {
	int prog_fd;
	int map_fd;
	int cls_fd;
	__u32 prog_id;
	unsigned int insns;
};

int bf_load(const struct bf_ir *ir, struct bf_prog *prog);
void bf_unload(struct bf_prog *prog);

#endif /* _BPFILTER_LOAD_H */
