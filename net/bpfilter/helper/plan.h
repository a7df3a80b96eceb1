/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BPFILTER_PLAN_H
#define _BPFILTER_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include "load.h"
#include "validate.h"

/* The most that comes back: a table, its code and its keys. */
#define BF_MAX_PLAN	(256u << 20)
/* The most of what a child would have logged that the helper logs. */
#define BF_MAX_LOG	4096
/* The most a child sends: the length of its log, its log, its plan. */
#define BF_MAX_BUF	(BF_MAX_PLAN + sizeof(__u32) + BF_MAX_LOG)

/**
 * struct bf_buf - a plan as bytes, as the compiling child sends it
 * @p: the bytes
 * @len: their number
 * @cap: the room at @p
 * @at: how far they are taken back
 * @err: -ENOMEM once a put failed (past BF_MAX_BUF too)
 */
struct bf_buf {
	char *p;
	size_t len;
	size_t cap;
	size_t at;
	int err;
};

void bf_put(struct bf_buf *b, const void *p, size_t len);
bool bf_take(struct bf_buf *b, void *p, size_t len);
void *bf_take_array(struct bf_buf *b, size_t n, size_t size);
void bf_buf_free(struct bf_buf *b);

/* struct bf_plan.ret: the module checks the kernel's matches first. */
#define BF_PLAN_CHECK		0x20000

/* struct bf_plan.flags */
#define BF_PLAN_TABLE		0x1	/* a valid table: @info, @entries */
#define BF_PLAN_PROG		0x2	/* its program's plan: @prog */
#define BF_PLAN_INITIAL		0x4	/* it is the initial table */
#define BF_PLAN_CONNTRACK	0x8	/* its program needs conntrack */
#define BF_PLAN_COMPILED	0x10	/* a plan was tried: it failed */

/**
 * struct bf_plan - what the compiling child made of a request
 * @ret: 0, BF_FALLBACK, BF_PLAN_CHECK or a negative errno
 * @flags: BF_PLAN_*
 * @info: the table's, as validation found it
 * @entries: the table's entries, as IPT_SO_GET_ENTRIES returns them
 * @nxt: the kernel's matches its program calls
 * @nxt_targets: the kernel's targets it calls
 * @k: for BF_PLAN_CHECK, the entries the module checks
 * @check_err: for BF_PLAN_CHECK, the errno after the module's checks
 * @prog: the plan of its program (bf_prog_plan()), without fds
 */
struct bf_plan {
	int ret;
	unsigned int flags;
	struct bf_table_info info;
	void *entries;
	unsigned int nxt;
	unsigned int nxt_targets;
	struct bf_kernel k;
	int check_err;
	struct bf_prog prog;
};

void bf_plan_init(struct bf_plan *plan);
void bf_plan_put(struct bf_buf *b, const struct bf_plan *plan);
int bf_plan_take(struct bf_buf *b, struct bf_plan *plan);
int bf_plan_check(const struct bf_plan *plan,
		  const struct ipt_replace *repl, bool load,
		  const struct bf_prog *old);
void bf_plan_free(struct bf_plan *plan);

#endif /* _BPFILTER_PLAN_H */
