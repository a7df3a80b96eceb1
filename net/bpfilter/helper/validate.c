// SPDX-License-Identifier: GPL-2.0
/*
 * The checks translate_table() in ip_tables.c and ip6_tables.c makes on the
 * entries of IPT_SO_SET_REPLACE and IP6T_SO_SET_REPLACE, made in the same
 * order and failing with the same errors, so that the helper answers as the
 * kernel would for any blob, valid or not.
 *
 * The blob is untrusted: every offset is checked against the size before
 * anything is read there, and all reads go through memcpy() as an entry's
 * target need not be aligned.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "ext.h"
#include "validate.h"

/* From x_tables.c: no table, nor its array of entry offsets, is larger. */
#define XT_MAX_TABLE_SIZE	(512 * 1024 * 1024)

/* translate_table()'s mark for a hook no entry was found for */
#define BF_NO_OFFSET		0xFFFFFFFFu

/* Where ipt_entry and ip6t_entry keep what the checks look at. */
struct bf_family {
	__u8 family;
	unsigned int entry_size;
	unsigned int align;
	unsigned int ip_size;
	unsigned int proto;
	unsigned int flags;
	unsigned int invflags;
	__u8 flags_mask;
	__u8 invflags_mask;
	__u8 inv_proto;
	unsigned int target_offset;
	unsigned int next_offset;
	unsigned int comefrom;
	unsigned int counters;
};

static const struct bf_family bf_ipv4 = {
	.family		= NFPROTO_IPV4,
	.entry_size	= sizeof(struct ipt_entry),
	.align		= __alignof__(struct ipt_entry),
	.ip_size	= sizeof(struct ipt_ip),
	.proto		= offsetof(struct ipt_entry, ip.proto),
	.flags		= offsetof(struct ipt_entry, ip.flags),
	.invflags	= offsetof(struct ipt_entry, ip.invflags),
	.flags_mask	= IPT_F_MASK,
	.invflags_mask	= IPT_INV_MASK,
	.inv_proto	= IPT_INV_PROTO,
	.target_offset	= offsetof(struct ipt_entry, target_offset),
	.next_offset	= offsetof(struct ipt_entry, next_offset),
	.comefrom	= offsetof(struct ipt_entry, comefrom),
	.counters	= offsetof(struct ipt_entry, counters),
};

static const struct bf_family bf_ipv6 = {
	.family		= NFPROTO_IPV6,
	.entry_size	= sizeof(struct ip6t_entry),
	.align		= __alignof__(struct ip6t_entry),
	.ip_size	= sizeof(struct ip6t_ip6),
	.proto		= offsetof(struct ip6t_entry, ipv6.proto),
	.flags		= offsetof(struct ip6t_entry, ipv6.flags),
	.invflags	= offsetof(struct ip6t_entry, ipv6.invflags),
	.flags_mask	= IP6T_F_MASK,
	.invflags_mask	= IP6T_INV_MASK,
	.inv_proto	= IP6T_INV_PROTO,
	.target_offset	= offsetof(struct ip6t_entry, target_offset),
	.next_offset	= offsetof(struct ip6t_entry, next_offset),
	.comefrom	= offsetof(struct ip6t_entry, comefrom),
	.counters	= offsetof(struct ip6t_entry, counters),
};

/* One table being checked. */
struct bf_ctx {
	const struct bf_family *fam;
	const struct ipt_replace *repl;
	char name[XT_TABLE_MAXNAMELEN];
	unsigned char *base;
	unsigned int size;
	unsigned int number;
	unsigned int *offsets;
	struct bf_table_info info;
};

/* The header of a match or a target, as user space fills it in. */
#define EXT_HDR_SIZE	sizeof(struct xt_entry_match)
#define EXT_NAME	offsetof(struct xt_entry_match, u.user.name)
#define EXT_REVISION	offsetof(struct xt_entry_match, u.user.revision)
#define VERDICT		offsetof(struct xt_standard_target, verdict)
#define ERRORNAME	offsetof(struct xt_error_target, errorname)

static unsigned int rd16(const unsigned char *p)
{
	__u16 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static unsigned int rd32(const unsigned char *p)
{
	__u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void wr32(unsigned char *p, __u32 v)
{
	memcpy(p, &v, sizeof(v));
}

static __u64 rd64(const unsigned char *p)
{
	__u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void wr64(unsigned char *p, __u64 v)
{
	memcpy(p, &v, sizeof(v));
}

static unsigned char *entry(const struct bf_ctx *c, unsigned int pos)
{
	return c->base + pos;
}

static unsigned int target_offset(const struct bf_ctx *c, unsigned int pos)
{
	return rd16(entry(c, pos) + c->fam->target_offset);
}

static unsigned int next_offset(const struct bf_ctx *c, unsigned int pos)
{
	return rd16(entry(c, pos) + c->fam->next_offset);
}

static unsigned int comefrom(const struct bf_ctx *c, unsigned int pos)
{
	return rd32(entry(c, pos) + c->fam->comefrom);
}

static void set_comefrom(const struct bf_ctx *c, unsigned int pos,
			 unsigned int v)
{
	wr32(entry(c, pos) + c->fam->comefrom, v);
}

/* mark_source_chains() keeps its way back in the packet counter. */
static unsigned int back(const struct bf_ctx *c, unsigned int pos)
{
	return rd64(entry(c, pos) + c->fam->counters);
}

static void set_back(const struct bf_ctx *c, unsigned int pos,
		     unsigned int v)
{
	wr64(entry(c, pos) + c->fam->counters, v);
}

static const unsigned char *target(const struct bf_ctx *c, unsigned int pos)
{
	return entry(c, pos) + target_offset(c, pos);
}

/* Names are compared as strcmp() would, but never read past the field. */
static bool ext_is(const unsigned char *ext, const char *name)
{
	return strncmp((const char *)ext + EXT_NAME, name,
		       XT_EXTENSION_MAXNAMELEN) == 0;
}

/* Only valid once the entry passed check_offsets() with this target. */
static int verdict(const struct bf_ctx *c, unsigned int pos)
{
	return (int)rd32(target(c, pos) + VERDICT);
}

/* An all-zero address header and no match: the rule matches any packet. */
static bool unconditional(const struct bf_ctx *c, unsigned int pos)
{
	const unsigned char *ip = entry(c, pos);
	unsigned int i;

	if (target_offset(c, pos) != c->fam->entry_size)
		return false;
	for (i = 0; i < c->fam->ip_size; i++)
		if (ip[i])
			return false;
	return true;
}

static bool verdict_ok(int v)
{
	return v > 0 || v == XT_RETURN || v == -NF_DROP - 1 ||
	       v == -NF_ACCEPT - 1 || v == -NF_QUEUE - 1;
}

/* xt_check_entry_match(): matches tile the space before the target. */
static int check_matches(const struct bf_ctx *c, unsigned int pos)
{
	const unsigned char *e = entry(c, pos);
	unsigned int off = c->fam->entry_size;
	int length = target_offset(c, pos) - off;

	while (length > 0) {
		unsigned int size;

		if ((pos + off) % __alignof__(struct xt_entry_match))
			return -EINVAL;
		if (length < (int)EXT_HDR_SIZE)
			return -EINVAL;
		size = rd16(e + off);
		if (size < EXT_HDR_SIZE || size > (unsigned int)length)
			return -EINVAL;
		length -= size;
		off += size;
	}
	return 0;
}

/* xt_check_entry_offsets(); next_offset is known to be within the blob. */
static int check_offsets(const struct bf_ctx *c, unsigned int pos)
{
	unsigned int to = target_offset(c, pos), next = next_offset(c, pos);
	const unsigned char *t;
	unsigned int size;

	if (to < c->fam->entry_size)
		return -EINVAL;
	if (to + sizeof(struct xt_entry_target) > next)
		return -EINVAL;
	t = target(c, pos);
	size = rd16(t);
	if (size < sizeof(struct xt_entry_target) || to + size > next)
		return -EINVAL;

	if (ext_is(t, XT_STANDARD_TARGET)) {
		if (XT_ALIGN(to + sizeof(struct xt_standard_target)) != next)
			return -EINVAL;
		if (!verdict_ok(verdict(c, pos)))
			return -EINVAL;
	} else if (ext_is(t, XT_ERROR_TARGET)) {
		if (size != sizeof(struct xt_error_target))
			return -EINVAL;
		if (strnlen((const char *)t + ERRORNAME,
			    XT_FUNCTION_MAXNAMELEN) == XT_FUNCTION_MAXNAMELEN)
			return -EINVAL;
	}
	return check_matches(c, pos);
}

/* A policy: accept or drop every packet, nothing else. */
static bool check_underflow(const struct bf_ctx *c, unsigned int pos)
{
	int v;

	if (!unconditional(c, pos) || !ext_is(target(c, pos),
					      XT_STANDARD_TARGET))
		return false;
	v = verdict(c, pos);
	return v == -NF_DROP - 1 || v == -NF_ACCEPT - 1;
}

static bool ip_ok(const struct bf_ctx *c, unsigned int pos)
{
	const unsigned char *e = entry(c, pos);

	return !(e[c->fam->flags] & ~c->fam->flags_mask) &&
	       !(e[c->fam->invflags] & ~c->fam->invflags_mask);
}

static int check_hooks(struct bf_ctx *c, unsigned int pos)
{
	const struct ipt_replace *repl = c->repl;
	unsigned int h;

	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(repl->valid_hooks & (1 << h)))
			continue;
		if (pos == repl->hook_entry[h])
			c->info.hook_entry[h] = pos;
		if (pos == repl->underflow[h]) {
			if (!check_underflow(c, pos))
				return -EINVAL;
			c->info.underflow[h] = pos;
		}
	}
	return 0;
}

/* check_entry_size_and_hooks() */
static int check_entry(struct bf_ctx *c, unsigned int pos)
{
	unsigned int next;
	int ret;

	/* The blob starts 8-byte aligned, as the kernel's copy does. */
	if (pos % c->fam->align ||
	    (__u64)pos + c->fam->entry_size >= c->size)
		return -EINVAL;
	next = next_offset(c, pos);
	if ((__u64)pos + next > c->size)
		return -EINVAL;
	if (next < c->fam->entry_size + sizeof(struct xt_entry_target))
		return -EINVAL;
	if (!ip_ok(c, pos))
		return -EINVAL;
	ret = check_offsets(c, pos);
	if (ret)
		return ret;
	ret = check_hooks(c, pos);
	if (ret)
		return ret;

	/* mark_source_chains() starts from clean counters and comefrom. */
	memset(entry(c, pos) + c->fam->counters, 0,
	       sizeof(struct xt_counters));
	set_comefrom(c, pos, 0);
	return 0;
}

/* Every entry's offsets, and how many there are. */
static int check_entries(struct bf_ctx *c, unsigned int *count)
{
	unsigned int pos;
	int ret;

	*count = 0;
	for (pos = 0; pos < c->size; pos += next_offset(c, pos)) {
		ret = check_entry(c, pos);
		if (ret)
			return ret;
		(*count)++;
	}
	return 0;
}

/* xt_check_table_hooks(): each valid hook set, in order, none shared. */
static int check_table_hooks(const struct bf_ctx *c)
{
	const struct bf_table_info *info = &c->info;
	unsigned int h, max_entry = 0, max_uflow = 0;
	bool first = true;

	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(c->repl->valid_hooks & (1 << h)))
			continue;
		if (info->hook_entry[h] == BF_NO_OFFSET ||
		    info->underflow[h] == BF_NO_OFFSET)
			return -EINVAL;
		if (!first && (max_uflow >= info->underflow[h] ||
			       max_entry >= info->hook_entry[h]))
			return -EINVAL;
		max_entry = info->hook_entry[h];
		max_uflow = info->underflow[h];
		first = false;
	}
	return 0;
}

/* The offsets of all entries, ascending, for the jumps to be checked. */
static unsigned int *entry_offsets(const struct bf_ctx *c)
{
	unsigned int *offsets, pos, i = 0;

	offsets = calloc(c->number ? c->number : 1, sizeof(*offsets));
	if (!offsets)
		return NULL;
	for (pos = 0; pos < c->size; pos += next_offset(c, pos))
		offsets[i++] = pos;
	return offsets;
}

/* xt_find_jump_offset(): a jump must land on the start of an entry. */
static bool is_entry(const struct bf_ctx *c, unsigned int pos)
{
	unsigned int lo = 0, hi = c->number;

	while (hi > lo) {
		unsigned int m = lo + (hi - lo) / 2;

		if (c->offsets[m] > pos)
			hi = m;
		else if (c->offsets[m] < pos)
			lo = m + 1;
		else
			return true;
	}
	return false;
}

/* A RETURN, or a policy: the end of a chain. */
static bool ends_chain(const struct bf_ctx *c, unsigned int pos)
{
	return unconditional(c, pos) &&
	       ext_is(target(c, pos), XT_STANDARD_TARGET) &&
	       verdict(c, pos) < 0;
}

/*
 * Go back along the recorded path to the last jump and step past it, as
 * mark_source_chains() does; *done once the hook's first entry is reached.
 */
static int backtrack(const struct bf_ctx *c, unsigned int *pos, bool *done)
{
	unsigned int oldpos, p = *pos, size;

	do {
		set_comefrom(c, p, comefrom(c, p) ^ (1 << NF_INET_NUMHOOKS));
		oldpos = p;
		p = back(c, p);
		set_back(c, oldpos, 0);
		if (p == oldpos) {
			*done = true;
			return 0;
		}
	} while (oldpos == p + next_offset(c, p));

	size = next_offset(c, p);
	if ((__u64)p + size >= c->size)
		return -ELOOP;
	set_back(c, p + size, p);
	*pos = p + size;
	return 0;
}

/* The entry a rule leads to when its target is not a RETURN. */
static int step(const struct bf_ctx *c, unsigned int pos, unsigned int *to)
{
	if (ext_is(target(c, pos), XT_STANDARD_TARGET) &&
	    verdict(c, pos) >= 0) {
		/* A jump, or a goto: only to the start of an entry. */
		if (!is_entry(c, verdict(c, pos)))
			return -ELOOP;
		*to = verdict(c, pos);
	} else {
		if ((__u64)pos + next_offset(c, pos) >= c->size)
			return -ELOOP;
		*to = pos + next_offset(c, pos);
	}
	set_back(c, *to, pos);
	return 0;
}

/*
 * mark_source_chains() for one hook: follow every path from the hook's
 * first entry, recording in each entry's comefrom the hook it is reached
 * from. Bit NF_INET_NUMHOOKS marks the entries on the current path; meeting
 * one again is a loop. Any failure here is -ELOOP, as in the kernel.
 */
static int mark_hook(const struct bf_ctx *c, unsigned int hook)
{
	unsigned int pos = c->info.hook_entry[hook];
	bool done = false;
	int ret;

	set_back(c, pos, pos);
	while (!done) {
		unsigned int from = comefrom(c, pos);
		bool visited = from & (1 << hook);

		if (from & (1 << NF_INET_NUMHOOKS))
			return -ELOOP;
		set_comefrom(c, pos,
			     from | (1 << hook) | (1 << NF_INET_NUMHOOKS));

		if (ends_chain(c, pos) || visited)
			ret = backtrack(c, &pos, &done);
		else
			ret = step(c, pos, &pos);
		if (ret)
			return ret;
	}
	return 0;
}

static int mark_source_chains(struct bf_ctx *c)
{
	unsigned int hook;
	int ret = 0;

	c->offsets = entry_offsets(c);
	if (!c->offsets)
		return -ENOMEM;
	for (hook = 0; hook < NF_INET_NUMHOOKS && !ret; hook++)
		if (c->repl->valid_hooks & (1 << hook))
			ret = mark_hook(c, hook);
	free(c->offsets);
	c->offsets = NULL;
	return ret;
}

/* xt_check_match() and xt_check_target() for a served extension */
static int check_ext(const struct bf_ctx *c, unsigned int pos,
		     unsigned char *obj, const struct bf_ext *ext)
{
	const unsigned char *e = entry(c, pos);
	struct bf_ext_par par = {
		.table		= c->name,
		.entryinfo	= e,
		.data		= obj + EXT_HDR_SIZE,
		.hook_mask	= comefrom(c, pos),
		.family		= c->fam->family,
	};
	int ret;

	if (rd16(obj) - EXT_HDR_SIZE != XT_ALIGN(ext->size))
		return -EINVAL;
	if (ext->table && strcmp(ext->table, c->name) != 0)
		return -EINVAL;
	if (ext->hooks && (par.hook_mask & ~ext->hooks))
		return -EINVAL;
	if (ext->proto && (ext->proto != rd16(e + c->fam->proto) ||
			   e[c->fam->invflags] & c->fam->inv_proto))
		return -EINVAL;
	if (!ext->check)
		return 0;
	ret = ext->check(&par);
	/* As in the kernel: a positive result is a broken check. */
	return ret > 0 ? -EIO : ret;
}

/*
 * xt_request_find_match() or _target(), then the checks. An extension the
 * helper does not serve may exist in the kernel: from here on only the
 * kernel can tell.
 */
static int find_check_ext(const struct bf_ctx *c, unsigned int pos,
			  unsigned char *obj, bool is_target)
{
	const char *name = (const char *)obj + EXT_NAME;
	const struct bf_ext *ext;

	if (strnlen(name, XT_EXTENSION_MAXNAMELEN) == XT_EXTENSION_MAXNAMELEN)
		return -EINVAL;
	ext = bf_ext_find(c->fam->family, name, obj[EXT_REVISION], is_target);
	if (!ext)
		return BF_FALLBACK;
	return check_ext(c, pos, obj, ext);
}

/*
 * find_check_entry(): the matches in order, then the target. With
 * @kernel, a match or target the helper does not compile is left to the
 * module, which checks the whole entry: *@kernel says so (BF_KERNEL_*),
 * also when a check of the helper's fails after it.
 */
static int find_check_entry(const struct bf_ctx *c, unsigned int pos,
			    unsigned int *kernel)
{
	unsigned char *e = entry(c, pos);
	unsigned int off, to = target_offset(c, pos);
	int ret;

	for (off = c->fam->entry_size; off < to; off += rd16(e + off)) {
		ret = find_check_ext(c, pos, e + off, false);
		if (ret == BF_FALLBACK && kernel) {
			*kernel |= BF_KERNEL_MATCHES;
			continue;
		}
		if (ret)
			return ret;
		if (kernel && !bf_ext_native(c->fam->family,
					     (const void *)(e + off)))
			*kernel |= BF_KERNEL_MATCHES;
	}
	ret = find_check_ext(c, pos, e + to, true);
	if (ret == BF_FALLBACK && kernel) {
		*kernel |= BF_KERNEL_TARGET;
		return 0;
	}
	if (!ret && kernel && bf_ext_bridged((const void *)(e + to)))
		*kernel |= BF_KERNEL_TARGET;
	return ret;
}

/* One more entry for the module to check. */
static int add_kernel(struct bf_kernel *k, unsigned int pos,
		      unsigned int hook_mask, bool target)
{
	unsigned int *off, *hooks;
	bool *tg;

	off = realloc(k->off, (k->n + 1) * sizeof(*off));
	if (!off)
		return -ENOMEM;
	k->off = off;
	hooks = realloc(k->hooks, (k->n + 1) * sizeof(*hooks));
	if (!hooks)
		return -ENOMEM;
	k->hooks = hooks;
	tg = realloc(k->target, (k->n + 1) * sizeof(*tg));
	if (!tg)
		return -ENOMEM;
	k->target = tg;
	k->off[k->n] = pos;
	k->target[k->n] = target;
	k->hooks[k->n++] = hook_mask;
	return 0;
}

/**
 * bf_kernel_free - frees what bf_validate_kernel() listed
 * @k: the list
 */
void bf_kernel_free(struct bf_kernel *k)
{
	free(k->off);
	free(k->hooks);
	free(k->target);
	memset(k, 0, sizeof(*k));
}

/*
 * xt_match_to_user() and xt_target_to_user() write the name up to its NUL
 * and the first usersize (or size) bytes of data, and leave the rest of
 * the aligned size cleared.
 */
static void normalize_ext(const struct bf_ctx *c, unsigned char *obj,
			  bool is_target)
{
	char *name = (char *)obj + EXT_NAME;
	const struct bf_ext *ext;
	size_t len, keep;

	len = strnlen(name, XT_EXTENSION_MAXNAMELEN);
	memset(name + len, 0, XT_EXTENSION_MAXNAMELEN - len);
	ext = bf_ext_find(c->fam->family, name, obj[EXT_REVISION], is_target);
	if (!ext)
		return;
	keep = ext->usersize ? ext->usersize : ext->size;
	memset(obj + EXT_HDR_SIZE + keep, 0, XT_ALIGN(ext->size) - keep);
}

/*
 * copy_entries_to_user() into a zeroed buffer: the header as the checks
 * left it, counters (all zero in a new table), matches and target; bytes
 * between the target's end and the next entry are not written.
 */
static void normalize_entry(const struct bf_ctx *c, unsigned int pos)
{
	unsigned char *e = entry(c, pos);
	unsigned int off, to = target_offset(c, pos);
	unsigned int end = to + rd16(e + to);

	memset(e + c->fam->counters, 0, sizeof(struct xt_counters));
	for (off = c->fam->entry_size; off < to; off += rd16(e + off))
		normalize_ext(c, e + off, false);
	normalize_ext(c, e + to, true);
	memset(e + end, 0, next_offset(c, pos) - end);
}

static void init_info(struct bf_ctx *c)
{
	unsigned int h;

	c->info.valid_hooks = c->repl->valid_hooks;
	c->info.number = c->repl->num_entries;
	c->info.size = c->repl->size;
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		c->info.hook_entry[h] = BF_NO_OFFSET;
		c->info.underflow[h] = BF_NO_OFFSET;
	}
}

int bf_validate(__u8 family, const struct ipt_replace *repl, void *entries,
		struct bf_table_info *info)
{
	struct bf_kernel *none = NULL;

	return bf_validate_kernel(family, repl, entries, info, none);
}

/**
 * bf_validate_kernel - bf_validate(), with matches left to the module
 * @family: NFPROTO_IPV4 or NFPROTO_IPV6
 * @repl: the replace header
 * @entries: its entries, a copy the checks may write to
 * @info: what translate_table() would learn, filled in on success
 * @k: zeroed; the entries whose matches the module must check, in order
 *	(to be freed with bf_kernel_free(), also on error)
 *
 * Where bf_validate() returns BF_FALLBACK for a match or target it does not
 * know, or for one the module runs (bf_ext_native(), bf_ext_bridged()),
 * this lists its entry and goes on. An error of the helper's own checks
 * after listed entries is returned as it is: the module's checks of those
 * come first.
 *
 * Return: as bf_validate(); with @k, never BF_FALLBACK.
 */
int bf_validate_kernel(__u8 family, const struct ipt_replace *repl,
		       void *entries, struct bf_table_info *info,
		       struct bf_kernel *k)
{
	struct bf_ctx c = {
		.repl	= repl,
		.base	= entries,
		.size	= repl->size,
		.number	= repl->num_entries,
	};
	unsigned int pos, count;
	int ret;

	if (family == NFPROTO_IPV4)
		c.fam = &bf_ipv4;
	else if (family == NFPROTO_IPV6)
		c.fam = &bf_ipv6;
	else
		return -EINVAL;
	init_info(&c);
	/* do_replace() cuts the name so, whatever user space sent. */
	memcpy(c.name, repl->name, sizeof(c.name) - 1);

	/* xt_alloc_entry_offsets() refuses to make room for that many. */
	if (c.number > XT_MAX_TABLE_SIZE / sizeof(unsigned int))
		return -ENOMEM;

	ret = check_entries(&c, &count);
	if (ret)
		return ret;
	if (count != c.number)
		return -EINVAL;
	ret = check_table_hooks(&c);
	if (ret)
		return ret;
	ret = mark_source_chains(&c);
	if (ret)
		return ret;

	for (pos = 0; pos < c.size; pos += next_offset(&c, pos)) {
		unsigned int kernel = 0;

		ret = find_check_entry(&c, pos, k ? &kernel : NULL);
		if (kernel && ret != BF_FALLBACK) {
			int err = add_kernel(k, pos, comefrom(&c, pos),
					     kernel & BF_KERNEL_TARGET);

			if (err)
				return err;
		}
		if (ret)
			return ret;
	}

	for (pos = 0; pos < c.size; pos += next_offset(&c, pos))
		normalize_entry(&c, pos);
	*info = c.info;
	return 0;
}
