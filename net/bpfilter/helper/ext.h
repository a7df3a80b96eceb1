/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BPFILTER_EXT_H
#define _BPFILTER_EXT_H

#include <stdbool.h>
#include <linux/types.h>

/**
 * struct bf_ext_par - what an extension's check may look at
 * @table: name of the table the rule is for
 * @entryinfo: the rule's address header (struct ipt_ip or ip6t_ip6)
 * @data: the extension's data, XT_ALIGN(size) bytes
 * @hook_mask: hooks the rule is reached from
 * @family: NFPROTO_IPV4 or NFPROTO_IPV6
 */
struct bf_ext_par {
	const char *table;
	const void *entryinfo;
	void *data;
	unsigned int hook_mask;
	__u8 family;
};

/**
 * struct bf_ext - a match or target the helper validates
 * @name: as in xt_match/xt_target
 * @revision: as in xt_match/xt_target
 * @family: NFPROTO_UNSPEC if served for every family
 * @target: a target, not a match
 * @size: matchsize or targetsize
 * @usersize: bytes of data given back to user space, 0 for all of @size
 * @proto: the only layer 4 protocol allowed, 0 for any
 * @hooks: the hooks allowed, 0 for any
 * @table: the only table allowed, NULL for any
 * @check: the extension's own checkentry, NULL for none; returns 0 or
 *	a negative errno
 */
struct bf_ext {
	const char *name;
	__u8 revision;
	__u8 family;
	bool target;
	unsigned int size;
	unsigned int usersize;
	__u16 proto;
	unsigned int hooks;
	const char *table;
	int (*check)(const struct bf_ext_par *par);
};

struct xt_entry_match;
struct xt_entry_target;

const struct bf_ext *bf_ext_find(__u8 family, const char *name,
				 __u8 revision, bool target);
bool bf_ext_native(__u8 family, const struct xt_entry_match *m);
bool bf_ext_bridged(const struct xt_entry_target *t);

#endif /* _BPFILTER_EXT_H */
