// SPDX-License-Identifier: GPL-2.0
/*
 * A table that differs from the current one by one rule, as iptables -A,
 * -I and -D make it, keeps the current program when the new table's code
 * would be the same instruction for instruction: only the classifier's
 * map changes, and the kernel makes the changes (struct bpfilter_layout).
 * Rules added to or deleted from a long run of simple rules are so.
 *
 * The code has the counter index of each entry outside runs; inside a
 * run, the map has them, and they must grow with the entry, since the
 * lowest one found wins. Entries kept keep their index; a new entry takes
 * a free one, above all others if it is the last of its run, below all
 * others if it is the first. One put between two kept entries of a run
 * has none that fits: a new program.
 *
 * A packet sees the map change one key at a time, but it looks up the
 * run once (its code is in the program once), and it matches at most one
 * key of a rule: it sees the changed rule before or after the change,
 * and gets what the old table or the new one gives it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "update.h"

/* The offset of every entry of a table, @number of them. */
static unsigned int *offsets(__u8 family, const void *entries,
			     unsigned int number)
{
	unsigned int *off = malloc((number + 1) * sizeof(*off));
	const struct ip6t_entry *e6;
	const struct ipt_entry *e;
	unsigned int i, at = 0;

	if (!off)
		return NULL;
	/* Validated: the entries follow each other. */
	for (i = 0; i < number; i++) {
		off[i] = at;
		e = (const void *)((const char *)entries + at);
		e6 = (const void *)e;
		at += family == NFPROTO_IPV6 ? e6->next_offset : e->next_offset;
	}
	return off;
}

/*
 * The same rule, but for the counters and comefrom; a jump's offset may
 * have moved by @delta, the size of the rule that changed.
 */
static bool same_entry(__u8 family, const char *a, const char *b, int delta)
{
	const struct ip6t_entry *e6 = (const void *)a;
	const struct ipt_entry *e = (const void *)a;
	size_t from = offsetof(struct ipt_entry, comefrom);
	size_t elems = sizeof(struct ipt_entry);
	const struct xt_standard_target *sa, *sb;
	unsigned int target = e->target_offset, next = e->next_offset;

	if (family == NFPROTO_IPV6) {
		from = offsetof(struct ip6t_entry, comefrom);
		elems = sizeof(struct ip6t_entry);
		target = e6->target_offset;
		next = e6->next_offset;
	}
	/* The header up to comefrom has target_offset and next_offset. */
	if (memcmp(a, b, from))
		return false;
	if (!memcmp(a + elems, b + elems, next - elems))
		return true;
	if (memcmp(a + elems, b + elems, target - elems))
		return false;
	sa = (const void *)(a + target);
	sb = (const void *)(b + target);
	return next - target == sizeof(*sa) &&
	       !sa->target.u.user.name[0] && !sb->target.u.user.name[0] &&
	       sa->verdict >= 0 && sb->verdict == sa->verdict + delta;
}

/**
 * bf_entries_from - the entry of the current table each entry of a new
 *	table is, if they differ by one entry
 * @family: NFPROTO_IPV4 or NFPROTO_IPV6
 * @old: the current table's entries
 * @oi: what validation found of them
 * @new: the new table's entries
 * @ni: what validation found of them
 *
 * Return: an array of @ni->number indices of @old, -1 for a new entry, to
 * be freed; NULL if more than one entry differs or out of memory.
 */
int *bf_entries_from(__u8 family, const void *old,
		     const struct bf_table_info *oi, const void *new,
		     const struct bf_table_info *ni)
{
	unsigned int on = oi->number, nn = ni->number, p, s, i;
	unsigned int *ooff = NULL, *noff = NULL;
	int delta = (int)ni->size - (int)oi->size, *from = NULL;

	if (on + 1 != nn && nn + 1 != on)
		return NULL;
	ooff = offsets(family, old, on);
	noff = offsets(family, new, nn);
	if (!ooff || !noff)
		goto out;
	for (p = 0; p < on && p < nn; p++)
		if (!same_entry(family, (const char *)old + ooff[p],
				(const char *)new + noff[p], delta))
			break;
	for (s = 0; s < on - p && s < nn - p; s++)
		if (!same_entry(family, (const char *)old + ooff[on - 1 - s],
				(const char *)new + noff[nn - 1 - s], delta))
			break;
	if ((on - p - s) + (nn - p - s) != 1)
		goto out;
	from = malloc(nn * sizeof(*from));
	if (!from)
		goto out;
	for (i = 0; i < nn; i++)
		from[i] = i < p ? (int)i : i >= nn - s ? (int)(i + on - nn) : -1;
out:
	free(ooff);
	free(noff);
	return from;
}

static const struct bf_cls_run *run_of(const struct bf_cls *cls,
				       unsigned int entry)
{
	unsigned int r;

	for (r = 0; r < cls->nruns; r++)
		if (cls->runs[r].start <= entry && entry < cls->runs[r].end)
			return &cls->runs[r];
	return NULL;
}

static const struct bf_cls_run *run_of_shape(const struct bf_cls *cls,
					     __u32 shape)
{
	unsigned int r;

	for (r = 0; r < cls->nruns; r++)
		if (cls->runs[r].shape <= shape &&
		    shape < cls->runs[r].shape + cls->runs[r].nshapes)
			return &cls->runs[r];
	return NULL;
}

/* Indices for the new table: 1 if the new entry has none that fits. */
static int place(const struct bf_cls *cls, const struct bf_prog *old,
		 const int *from, unsigned int n, struct bf_prog *prog)
{
	const struct bf_cls_run *run;
	unsigned int i, r;

	prog->slot = malloc(n * sizeof(*prog->slot));
	if (!prog->slot)
		return -ENOMEM;
	prog->nslots = n;
	prog->low = old->low;
	prog->high = old->high;
	prog->cap = old->cap;
	for (i = 0; i < n; i++) {
		if (from[i] >= 0) {
			prog->slot[i] = old->slot[from[i]];
			continue;
		}
		run = run_of(cls, i);
		if (!run)
			return 1;
		if (i + 1 == run->end && prog->high < prog->cap)
			prog->slot[i] = prog->high++;
		else if (i == run->start && prog->low)
			prog->slot[i] = --prog->low;
		else
			return 1;
	}
	for (r = 0; r < cls->nruns; r++)
		for (i = cls->runs[r].start; i + 1 < cls->runs[r].end; i++)
			if (prog->slot[i] >= prog->slot[i + 1])
				return 1;
	return 0;
}

static bool add_op(struct bf_prog *prog, __u32 flags,
		   const struct bf_cls_entry *now, const struct bf_cls_entry *was)
{
	struct bf_map_op *op;

	if (prog->nops == BPFILTER_MAX_OPS)
		return false;
	op = &prog->ops[prog->nops++];
	memset(op, 0, sizeof(*op));
	op->flags = flags | (was ? BPFILTER_OP_OLD : 0);
	op->key = now ? now->key : was->key;
	if (now)
		op->value = now->value;
	if (was)
		op->old = was->value;
	return true;
}

/*
 * The changes from @old's keys to @prog's: updates first, then deletions;
 * 1 if too many, or if the map would not hold the keys added meanwhile.
 */
static int diff(const struct bf_prog *old, struct bf_prog *prog)
{
	unsigned int i, j, pass, added = 0;
	int c;

	prog->ops = calloc(BPFILTER_MAX_OPS, sizeof(*prog->ops));
	if (!prog->ops)
		return -ENOMEM;
	for (pass = 0; pass < 2; pass++) {
		for (i = 0, j = 0; i < old->nkeys || j < prog->nkeys;) {
			const struct bf_cls_entry *was = &old->keys[i];
			const struct bf_cls_entry *now = &prog->keys[j];
			bool ok = true;

			c = i == old->nkeys ? 1 : j == prog->nkeys ? -1 :
			    memcmp(&was->key, &now->key, sizeof(was->key));
			if (c < 0 && pass)
				ok = add_op(prog, BPFILTER_OP_DELETE, NULL, was);
			else if (c > 0 && !pass)
				ok = add_op(prog, 0, now, NULL) &&
				     old->nkeys + ++added <= old->keys_cap;
			else if (!c && !pass && memcmp(&was->value, &now->value,
						       sizeof(was->value)))
				ok = add_op(prog, 0, now, was);
			if (!ok)
				return 1;
			i += c <= 0;
			j += c >= 0;
		}
	}
	return 0;
}

/*
 * The changed keys are of one rule: of one run. A packet must not look
 * it up twice, once before and once after the change (a run not emitted
 * is not reached).
 */
static bool once(const struct bf_cls *cls, const struct bf_prog *prog)
{
	const struct bf_cls_run *run;
	unsigned int i;

	for (i = 0; i < prog->nops; i++) {
		run = run_of_shape(cls, prog->ops[i].key.shape);
		if (!run || run->emitted > 1)
			return false;
	}
	return true;
}

/**
 * bf_update - the program of a new table, if it can be the current one's
 * @ir: the new table
 * @cls: its classified runs
 * @btf: what the kernel's BTF says
 * @old: the current table's program
 * @from: bf_entries_from() of the tables
 * @prog: the plan of the new table's program: @old's kept, with its
 *	counter indices, its keys and the changes of its map
 *
 * Return: 0 if the program is kept, 1 if the new table needs a new
 * program, or a negative errno.
 */
int bf_update(const struct bf_ir *ir, struct bf_cls *cls,
	      const struct bf_btf *btf, const struct bf_prog *old,
	      const int *from, struct bf_prog *prog)
{
	struct bf_code code = {};
	int err;

	err = place(cls, old, from, ir->nrules, prog);
	if (!err)
		err = bf_prog_keys(cls, prog);
	if (!err && prog->nkeys > old->keys_cap)
		err = 1;
	if (!err)
		err = bf_codegen(ir, btf, prog->slot, cls, &code);
	if (!err && (code.len != old->code.len ||
		     memcmp(code.insns, old->code.insns,
			    code.len * sizeof(*code.insns))))
		err = 1;
	free(code.insns);
	if (!err)
		err = diff(old, prog);
	if (!err && !once(cls, prog))
		err = 1;
	if (err)
		return err == -E2BIG ? 1 : err;
	/* bf_prog_load() gives @prog the maps and code of @old. */
	prog->kept = true;
	return 0;
}
