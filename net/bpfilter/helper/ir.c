// SPDX-License-Identifier: GPL-2.0
/*
 * A validated table as a list of rules: what each entry matches and where
 * it leads, entries named by index rather than by offset. Whatever the
 * code generator cannot reproduce exactly makes the table fall back to
 * ip_tables here, before any code is emitted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ext.h"
#include "ir.h"
#include "msg.h"

#define EXT_DATA	sizeof(struct xt_entry_match)

static unsigned int entry_size(__u8 family)
{
	return family == NFPROTO_IPV6 ? sizeof(struct ip6t_entry) :
					sizeof(struct ipt_entry);
}

/* The offsets of ipt_entry and ip6t_entry differ only by the ip part. */
static const struct ipt_entry *v4(const unsigned char *e)
{
	return (const void *)e;
}

static const struct ip6t_entry *v6(const unsigned char *e)
{
	return (const void *)e;
}

static unsigned int target_offset(__u8 family, const unsigned char *e)
{
	return family == NFPROTO_IPV6 ? v6(e)->target_offset :
					v4(e)->target_offset;
}

static unsigned int next_offset(__u8 family, const unsigned char *e)
{
	return family == NFPROTO_IPV6 ? v6(e)->next_offset :
					v4(e)->next_offset;
}

/* The index of the entry at @off; the validator made it one. */
static int index_of(const unsigned int *offsets, unsigned int n,
		    unsigned int off)
{
	unsigned int lo = 0, hi = n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (offsets[mid] == off)
			return mid;
		if (offsets[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -EINVAL;
}

/*
 * conntrack_mt() with --ctstate alone, NAT states excluded (what
 * bf_ext_native() takes); iptables' -m state comes as such a match,
 * marked as an alias.
 */
static void add_conntrack(struct bf_match *bm, const struct xt_entry_match *m)
{
	const struct xt_conntrack_mtinfo3 *info = (const void *)m->data;

	bm->kind = BF_MATCH_CTSTATE;
	bm->ctstate.mask = info->state_mask;
	bm->ctstate.untracked = XT_CONNTRACK_STATE_UNTRACKED;
	bm->ctstate.invert = info->invert_flags & XT_CONNTRACK_STATE;
}

static int add_match(struct bf_ir *ir, struct bf_rule *r,
		     const struct xt_entry_match *m)
{
	const char *name = m->u.user.name;
	const void *data = (const char *)m + EXT_DATA;
	struct bf_match *bm;

	if (!strcmp(name, "comment"))
		return 0;
	bm = &r->matches[r->nmatches];
	if (!strcmp(name, "tcp")) {
		bm->kind = BF_MATCH_TCP;
		memcpy(&bm->tcp, data, sizeof(bm->tcp));
		ir->tcp_options |= bm->tcp.option != 0;
	} else if (!strcmp(name, "udp")) {
		bm->kind = BF_MATCH_UDP;
		memcpy(&bm->udp, data, sizeof(bm->udp));
	} else if (!strcmp(name, "icmp")) {
		bm->kind = BF_MATCH_ICMP;
		memcpy(&bm->icmp, data, sizeof(bm->icmp));
	} else if (!strcmp(name, "icmp6")) {
		bm->kind = BF_MATCH_ICMP6;
		memcpy(&bm->icmp6, data, sizeof(bm->icmp6));
	} else if (!strcmp(name, "mark")) {
		bm->kind = BF_MATCH_MARK;
		memcpy(&bm->mark, data, sizeof(bm->mark));
	} else if (!strcmp(name, "length")) {
		bm->kind = BF_MATCH_LENGTH;
		memcpy(&bm->length, data, sizeof(bm->length));
	} else if (!strcmp(name, "iprange")) {
		bm->kind = BF_MATCH_IPRANGE;
		memcpy(&bm->iprange, data, sizeof(bm->iprange));
	} else if (!strcmp(name, "multiport")) {
		bm->kind = BF_MATCH_MULTIPORT;
		memcpy(&bm->multiport, data, sizeof(bm->multiport));
	} else if (!strcmp(name, "state")) {
		const struct xt_state_info *info = data;

		bm->kind = BF_MATCH_CTSTATE;
		bm->ctstate.mask = info->statemask;
		bm->ctstate.untracked = XT_STATE_UNTRACKED;
		ir->conntrack = true;
	} else if (!strcmp(name, "conntrack")) {
		add_conntrack(bm, m);
		ir->conntrack = true;
	} else {
		return BF_FALLBACK;
	}
	r->nmatches++;
	return 0;
}

/* A target the module checked and runs (see bf_ext_bridged()). */
static bool kernel_target(const struct bf_ir *ir,
			  const struct xt_entry_target *t)
{
	return !bf_ext_find(ir->family, t->u.user.name, t->u.user.revision,
			    true) || bf_ext_bridged(t);
}

static int add_target(struct bf_ir *ir, struct bf_rule *r,
		      const struct xt_entry_target *t, bool go_to,
		      const unsigned int *offsets, unsigned int n)
{
	const char *name = t->u.user.name;
	int verdict, idx;

	if (kernel_target(ir, t)) {
		r->action = BF_XT;
		r->xt = ir->nxt_targets++;
		return 0;
	}
	if (!strcmp(name, XT_ERROR_TARGET)) {
		r->action = BF_ERROR;
		return 0;
	}
	if (strcmp(name, XT_STANDARD_TARGET))
		return BF_FALLBACK;

	verdict = ((const struct xt_standard_target *)t)->verdict;
	if (verdict >= 0) {
		idx = index_of(offsets, n, verdict);
		if (idx < 0)
			return idx;
		r->action = go_to ? BF_GOTO : BF_JUMP;
		r->jump = idx;
		return 0;
	}
	switch (verdict) {
	case -NF_ACCEPT - 1:
		r->action = BF_ACCEPT;
		return 0;
	case -NF_DROP - 1:
		r->action = BF_DROP;
		return 0;
	case XT_RETURN:
		r->action = BF_RETURN;
		return 0;
	default:
		/* Not a verdict the validator lets through. */
		return BF_FALLBACK;
	}
}

/* Whether a match of the rule looks at the transport header. */
static bool needs_l4(const struct bf_rule *r)
{
	unsigned int i;

	for (i = 0; i < r->nmatches; i++)
		switch (r->matches[i].kind) {
		case BF_MATCH_TCP:
		case BF_MATCH_UDP:
		case BF_MATCH_ICMP:
		case BF_MATCH_ICMP6:
		case BF_MATCH_MULTIPORT:
			return true;
		default:
			break;
		}
	return false;
}

/*
 * A match the module checked: those of an entry with one that only the
 * kernel has, all of them numbered as the module numbers them.
 */
static void add_xt(struct bf_ir *ir, struct bf_rule *r, unsigned int idx)
{
	struct bf_match *bm = &r->matches[r->nmatches++];

	bm->kind = BF_MATCH_XT;
	bm->xt = ir->nxt + idx;
}

static int add_rule(struct bf_ir *ir, struct bf_rule *r,
		    const unsigned char *e, const unsigned int *offsets,
		    bool checked)
{
	unsigned int off, to = target_offset(ir->family, e);
	const struct xt_entry_target *t = (const void *)(e + to);
	const struct xt_entry_match *m;
	unsigned int max = 0, i;
	bool go_to, kernel = false;
	int err;

	for (off = entry_size(ir->family); off < to; off += m->u.match_size) {
		m = (const void *)(e + off);
		kernel |= !bf_ext_native(ir->family, m);
		max++;
	}
	/*
	 * The module checked every match of an entry it checked the target
	 * of (bf_validate_kernel() lists such entries whole).
	 */
	kernel |= kernel_target(ir, t);
	/* Without the module's checks, ip_tables serves the table. */
	if (kernel && !checked)
		return BF_FALLBACK;
	r->matches = calloc(max + 1, sizeof(*r->matches));
	if (!r->matches)
		return -ENOMEM;
	i = 0;
	for (off = entry_size(ir->family); off < to; off += m->u.match_size) {
		m = (const void *)(e + off);
		/* The module's native ones run natively, as cheaper. */
		if (kernel && !bf_ext_native(ir->family, m)) {
			add_xt(ir, r, i++);
			continue;
		}
		i++;
		err = add_match(ir, r, m);
		if (err)
			return err;
	}
	if (kernel)
		ir->nxt += max;
	if (kernel && ir->family == NFPROTO_IPV6 &&
	    !(v6(e)->ipv6.flags & IP6T_F_PROTO))
		ir->xtfrag = true;

	if (ir->family == NFPROTO_IPV6) {
		r->ip6 = v6(e)->ipv6;
		go_to = r->ip6.flags & IP6T_F_GOTO;
		/*
		 * Without IP6T_F_PROTO, ip6t_do_table() leaves the transport
		 * offset at 0 for the matches: never so from ip6tables.
		 */
		if (needs_l4(r) && !(r->ip6.flags & IP6T_F_PROTO))
			return BF_FALLBACK;
	} else {
		r->ip = v4(e)->ip;
		go_to = r->ip.flags & IPT_F_GOTO;
	}
	return add_target(ir, r, t, go_to, offsets, ir->nrules);
}

static bool any(const void *p, size_t len)
{
	const unsigned char *c = p;

	while (len--)
		if (*c++)
			return true;
	return false;
}

/* What emit_ip() and emit_ip6() of match.c read of a packet for @r. */
static unsigned int ip_reads(__u8 family, const struct bf_rule *r)
{
	const struct ip6t_ip6 *ip6 = &r->ip6;
	const struct ipt_ip *ip = &r->ip;
	const unsigned char *in = ip->iniface_mask, *out = ip->outiface_mask;
	unsigned int reads = 0;
	bool headers;

	if (family == NFPROTO_IPV6) {
		in = ip6->iniface_mask;
		out = ip6->outiface_mask;
		headers = any(&ip6->smsk, sizeof(ip6->smsk)) ||
			  any(&ip6->dmsk, sizeof(ip6->dmsk)) ||
			  (ip6->flags & IP6T_F_PROTO);
	} else {
		headers = ip->smsk.s_addr || ip->src.s_addr ||
			  ip->dmsk.s_addr || ip->dst.s_addr || ip->proto ||
			  (ip->flags & IPT_F_FRAG);
	}
	if (headers)
		reads |= BF_READ_HEADERS;
	if (any(in, IFNAMSIZ))
		reads |= BF_READ_IN;
	if (any(out, IFNAMSIZ))
		reads |= BF_READ_OUT;
	return reads;
}

/*
 * What the code of @r reads of a packet: that of its address part and
 * matches in match.c, and of the classifier's keys in lookup.c, which
 * are made of the same fields. The programs are loaded with CAP_PERFMON,
 * for which the verifier lets a program read stack it never wrote: a
 * read missing here is garbage in a rule, not a refused program.
 *
 * The kernel's extensions get the skb; IPv6 ones also the transport
 * header's offset, but only in rules with -p, which read the headers
 * anyway (without it, S_XFRAG: what rules with -p left there, or 0).
 */
static unsigned int rule_reads(__u8 family, const struct bf_rule *r)
{
	unsigned int reads = ip_reads(family, r), i;

	for (i = 0; i < r->nmatches; i++) {
		switch (r->matches[i].kind) {
		case BF_MATCH_MARK:
			reads |= BF_READ_MARK;
			break;
		case BF_MATCH_CTSTATE:
			reads |= BF_READ_NFCT;
			break;
		case BF_MATCH_LENGTH:
			/* IPv6's is skb->len's; IPv4's the header's. */
			if (family == NFPROTO_IPV4)
				reads |= BF_READ_HEADERS;
			break;
		case BF_MATCH_XT:
			break;
		default:
			reads |= BF_READ_HEADERS;
			break;
		}
	}
	return reads;
}

/**
 * bf_ir_build - the rules of a validated table
 * @family: NFPROTO_IPV4 or NFPROTO_IPV6
 * @entries: the entries, as bf_validate() left them
 * @info: what bf_validate() found
 * @ir: filled in; to be freed with bf_ir_free(), also on error
 *
 * Return: 0, BF_FALLBACK if the table uses what cannot be compiled (a
 * match only the kernel has included), or a negative errno.
 */
int bf_ir_build(__u8 family, const void *entries,
		const struct bf_table_info *info, struct bf_ir *ir)
{
	return bf_ir_build_xt(family, entries, info, false, ir);
}

/**
 * bf_ir_build_xt - bf_ir_build(), with the kernel's matches
 * @family: NFPROTO_IPV4 or NFPROTO_IPV6
 * @entries: the entries, as bf_validate_kernel() left them
 * @info: what it found
 * @checked: the module checked the matches of the entries it listed
 * @ir: filled in; to be freed with bf_ir_free(), also on error
 *
 * Return: as bf_ir_build().
 */
int bf_ir_build_xt(__u8 family, const void *entries,
		   const struct bf_table_info *info, bool checked,
		   struct bf_ir *ir)
{
	const unsigned char *base = entries;
	unsigned int *offsets, off, i, h;
	int err = 0;

	memset(ir, 0, sizeof(*ir));
	ir->family = family;
	ir->nrules = info->number;
	ir->valid_hooks = info->valid_hooks;
	ir->rules = calloc(info->number, sizeof(*ir->rules));
	offsets = calloc(info->number + 1, sizeof(*offsets));
	if (!ir->rules || !offsets) {
		err = -ENOMEM;
		goto out;
	}
	for (off = 0, i = 0; i < info->number; i++) {
		offsets[i] = off;
		off += next_offset(family, base + off);
	}
	for (i = 0; i < info->number && !err; i++) {
		err = add_rule(ir, &ir->rules[i], base + offsets[i], offsets,
			       checked);
		/* translate_table(): the jump stack has a slot per chain. */
		if (ir->rules[i].action == BF_ERROR)
			ir->stacksize++;
	}
	for (h = 0; h < NF_INET_NUMHOOKS && !err; h++) {
		if (!(info->valid_hooks & (1 << h)))
			continue;
		ir->hook_entry[h] = index_of(offsets, info->number,
					     info->hook_entry[h]);
		ir->underflow[h] = index_of(offsets, info->number,
					    info->underflow[h]);
		if ((int)ir->hook_entry[h] < 0 || (int)ir->underflow[h] < 0)
			err = -EINVAL;
	}
	for (i = 0; i < info->number && !err; i++)
		ir->reads |= rule_reads(family, &ir->rules[i]);
out:
	free(offsets);
	return err;
}

void bf_ir_free(struct bf_ir *ir)
{
	unsigned int i;

	for (i = 0; ir->rules && i < ir->nrules; i++)
		free(ir->rules[i].matches);
	free(ir->rules);
	ir->rules = NULL;
}
