/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BPFILTER_VALIDATE_H
#define _BPFILTER_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ip_tables.h>

/*
 * A valid table that uses a match or target the helper does not serve, or
 * an extension it does not know: above any revision or errno.
 */
#define BF_FALLBACK	0x10000

/**
 * struct bf_table_info - what translate_table() learns of a table
 * @valid_hooks: from the replace header
 * @number: entries
 * @size: bytes of entries
 * @hook_entry: offset of each hook's first entry
 * @underflow: offset of each hook's policy
 */
struct bf_table_info {
	unsigned int valid_hooks;
	unsigned int number;
	unsigned int size;
	unsigned int hook_entry[NF_INET_NUMHOOKS];
	unsigned int underflow[NF_INET_NUMHOOKS];
};

/* A match of the entry is the kernel's: the module checks them all. */
#define BF_KERNEL_MATCHES	0x1
/* Its target is the kernel's (BPFILTER_CHECK_TARGET). */
#define BF_KERNEL_TARGET	0x2

/**
 * struct bf_kernel - the entries with matches or a target the module
 *	checks and runs
 * @n: their number
 * @off: the offset of each
 * @hooks: the hook mask of each, its comefrom
 * @target: whether each one's target is the kernel's
 */
struct bf_kernel {
	unsigned int n;
	unsigned int *off;
	unsigned int *hooks;
	bool *target;
};

int bf_validate(__u8 family, const struct ipt_replace *repl, void *entries,
		struct bf_table_info *info);
int bf_validate_kernel(__u8 family, const struct ipt_replace *repl,
		       void *entries, struct bf_table_info *info,
		       struct bf_kernel *k);
void bf_kernel_free(struct bf_kernel *k);
int bf_revision(__u8 family, const char *name, __u8 revision,
		bool target);

#endif /* _BPFILTER_VALIDATE_H */
