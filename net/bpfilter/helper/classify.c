// SPDX-License-Identifier: GPL-2.0
/*
 * The classifier: long runs of simple rules (addresses under masks, a
 * protocol, ports, interfaces, the connection's state, ACCEPT or DROP)
 * become lookups in a hash map instead of code per rule, as in tuple
 * space search. The rules of a run fall in a few shapes (which masks,
 * which fields); a packet's key under each shape is looked up, and the
 * lowest entry found is the first rule that matches. Per packet, the
 * cost is that of the shapes, whatever the number of rules.
 *
 * Rules with ports drop a packet whose transport header they cannot read
 * (ip_tables' hotdrop), as do IPv6 rules with -p when ipv6_find_hdr()
 * fails. Projections of those rules onto their address part (and a state
 * match before the ports) find the first one that would do so; the
 * program drops the packet if it comes before the first match.
 *
 * A packet has one state bit of those state_mt() tests, so a rule with
 * a state match has a key per state it takes and still no two keys a
 * packet matches.
 *
 * Gotos may be in a run, and jumps to chains that never return: no
 * RETURN comes back into the run. After one, the rest of the run would
 * be code per rule again, or a second lookup, which the entries that the
 * jump's keys hide in the map would defeat. The code picks the chain by
 * the number of the jump in the run.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/in.h>

#include "classify.h"
#include "emit.h"

unsigned int bf_cls_min_run = BF_CLS_MIN_RUN;

/* The states a packet can have, as the key holds them. */
#define CT_STATES	5
static const __u8 ct_bits[CT_STATES] = {
	XT_STATE_INVALID, XT_STATE_BIT(IP_CT_ESTABLISHED),
	XT_STATE_BIT(IP_CT_RELATED), XT_STATE_BIT(IP_CT_NEW),
	XT_STATE_UNTRACKED,
};

/* A rule as the classifier sees it. */
struct simple {
	const __u8 *src, *smsk, *dst, *dmsk;
	const char *in, *out;
	const __u8 *inmsk, *outmsk;
	unsigned int alen;
	__u8 proto;
	__u8 l4proto;
	bool proto6;
	bool unconditional;
	/* A state match, and before the tcp or udp one */
	bool ct, ct_first;
	unsigned int nct;
	__u8 cts[CT_STATES];
	__u32 verdict;
	unsigned int nsrc, ndst;
	__u16 sval[BF_CLS_MAX_BLOCKS], smask[BF_CLS_MAX_BLOCKS];
	__u16 dval[BF_CLS_MAX_BLOCKS], dmask[BF_CLS_MAX_BLOCKS];
};

static bool zero(const void *p, size_t n)
{
	const __u8 *c = p;

	while (n--)
		if (*c++)
			return false;
	return true;
}

/* [lo, hi] as aligned blocks of ports: values and masks; max + 1 if more. */
static unsigned int blocks(__u16 lo, __u16 hi, __u16 *val, __u16 *mask)
{
	unsigned int n = 0;
	__u32 p = lo, size;

	while (p <= hi) {
		for (size = 1; size < 0x10000 && !(p & (size * 2 - 1)) &&
		     p + size * 2 - 1 <= hi; size *= 2)
			;
		if (n == BF_CLS_MAX_BLOCKS)
			return n + 1;
		val[n] = p;
		mask[n] = ~(size - 1);
		n++;
		p += size;
	}
	return n;
}

static bool simple_ip(const struct bf_ir *ir, const struct bf_rule *r,
		      struct simple *s)
{
	if (ir->family == NFPROTO_IPV6) {
		const struct ip6t_ip6 *ip = &r->ip6;

		/* IP6T_F_GOTO is the target's business. */
		if (ip->invflags || (ip->flags & ~(IP6T_F_PROTO | IP6T_F_GOTO)))
			return false;
		s->in = ip->iniface;
		s->inmsk = ip->iniface_mask;
		s->out = ip->outiface;
		s->outmsk = ip->outiface_mask;
		s->alen = sizeof(ip->src);
		s->src = ip->src.s6_addr;
		s->smsk = ip->smsk.s6_addr;
		s->dst = ip->dst.s6_addr;
		s->dmsk = ip->dmsk.s6_addr;
		s->proto6 = ip->flags & IP6T_F_PROTO;
		s->proto = s->proto6 ? ip->proto : 0;
		return true;
	}
	if (r->ip.invflags || (r->ip.flags & ~IPT_F_GOTO))
		return false;
	s->in = r->ip.iniface;
	s->inmsk = r->ip.iniface_mask;
	s->out = r->ip.outiface;
	s->outmsk = r->ip.outiface_mask;
	s->alen = sizeof(r->ip.src);
	s->src = (const __u8 *)&r->ip.src;
	s->smsk = (const __u8 *)&r->ip.smsk;
	s->dst = (const __u8 *)&r->ip.dst;
	s->dmsk = (const __u8 *)&r->ip.dmsk;
	s->proto = r->ip.proto;
	return true;
}

static bool simple_ports(const __u16 *spts, const __u16 *dpts,
			 struct simple *s)
{
	s->nsrc = blocks(spts[0], spts[1], s->sval, s->smask);
	s->ndst = blocks(dpts[0], dpts[1], s->dval, s->dmask);
	return s->nsrc <= BF_CLS_MAX_BLOCKS && s->ndst <= BF_CLS_MAX_BLOCKS &&
	       s->nsrc * s->ndst <= BF_CLS_MAX_BLOCKS;
}

/*
 * The states of ct_bits a state match takes. All of them: no test. The
 * untracked bit of conntrack's mask is not state's.
 */
static void simple_ct(const struct bf_ctstate *st, struct simple *s)
{
	unsigned int i;
	__u16 mask;

	s->nct = 0;
	for (i = 0; i < CT_STATES; i++) {
		mask = ct_bits[i] == XT_STATE_UNTRACKED ? st->untracked :
							  ct_bits[i];
		if (((st->mask & mask) != 0) != st->invert)
			s->cts[s->nct++] = ct_bits[i];
	}
	s->ct = s->nct < CT_STATES;
}

/*
 * A tcp or udp match with ports alone, and a state match: in their
 * order, as the tcp or udp match drops a packet it cannot read only if
 * the state matched before it.
 */
static bool simple_matches(const struct bf_rule *r, struct simple *s)
{
	static const __u16 any[2] = { 0, 0xFFFF };
	bool ports = false, state = false;
	unsigned int i;

	for (i = 0; i < r->nmatches; i++) {
		const struct bf_match *m = &r->matches[i];

		if (m->kind == BF_MATCH_CTSTATE && !state) {
			simple_ct(&m->ctstate, s);
			s->ct_first = !ports;
			state = true;
		} else if (m->kind == BF_MATCH_TCP && !ports) {
			if (m->tcp.invflags || m->tcp.flg_mask ||
			    m->tcp.flg_cmp || m->tcp.option ||
			    !simple_ports(m->tcp.spts, m->tcp.dpts, s))
				return false;
			s->l4proto = IPPROTO_TCP;
			ports = true;
		} else if (m->kind == BF_MATCH_UDP && !ports) {
			if (m->udp.invflags ||
			    !simple_ports(m->udp.spts, m->udp.dpts, s))
				return false;
			s->l4proto = IPPROTO_UDP;
			ports = true;
		} else {
			return false;
		}
	}
	if (!ports)
		simple_ports(any, any, s);
	return true;
}

/* Whether the rule @s tests nothing: it matches every packet */
static bool matches_all(const struct simple *s)
{
	return !s->proto && !s->proto6 && !s->l4proto && !s->ct &&
	       zero(s->smsk, s->alen) && zero(s->dmsk, s->alen) &&
	       zero(s->inmsk, IFNAMSIZ) && zero(s->outmsk, IFNAMSIZ);
}

/*
 * Whether @r is simple, and how it looks if so. @final: whether the chain
 * at each entry never returns.
 */
static bool simple(const struct bf_ir *ir, const struct bf_rule *r,
		   const bool *final, bool jumps, struct simple *s)
{
	memset(s, 0, sizeof(*s));
	if (r->action == BF_ACCEPT)
		s->verdict = NF_ACCEPT;
	else if (r->action == BF_DROP)
		s->verdict = NF_DROP;
	else if (jumps && (r->action == BF_GOTO ||
			   (r->action == BF_JUMP && final[r->jump])))
		s->verdict = BF_CLS_JUMP;
	else
		return false;
	if (!simple_ip(ir, r, s) || !simple_matches(r, s))
		return false;
	/* The validator saw to it that ports come with their protocol. */
	if (s->l4proto && s->proto != s->l4proto)
		return false;
	s->unconditional = matches_all(s);
	return true;
}

static bool same_shape(const struct bf_cls_shape *a,
		       const struct bf_cls_shape *b)
{
	return !memcmp(&a->kind, &b->kind,
		       sizeof(*a) - offsetof(struct bf_cls_shape, kind));
}

static void make_shape(struct bf_cls_shape *sh, const struct simple *s,
		       __u8 kind, unsigned int b)
{
	memset(sh, 0, sizeof(*sh));
	sh->kind = kind;
	memcpy(sh->smsk, s->smsk, s->alen);
	memcpy(sh->dmsk, s->dmsk, s->alen);
	/* ip_packet_match() tests the interfaces before any hotdrop. */
	memcpy(sh->inmsk, s->inmsk, IFNAMSIZ);
	memcpy(sh->outmsk, s->outmsk, IFNAMSIZ);
	if (kind == BF_CLS_ADDR) {
		sh->any_proto = true;
		return;
	}
	sh->l4proto = s->l4proto;
	sh->any_proto = !s->proto;
	sh->proto6 = s->proto6;
	sh->ct = s->ct && (kind == BF_CLS_RULE || s->ct_first);
	if (kind == BF_CLS_RULE) {
		sh->spmask = htons(s->smask[b / s->ndst]);
		sh->dpmask = htons(s->dmask[b % s->ndst]);
	}
}

/* The shape of the run equal to @sh, or -1. */
static int find_shape(const struct bf_cls *cls, unsigned int first,
		      const struct bf_cls_shape *sh)
{
	unsigned int i;

	for (i = first; i < cls->nshapes; i++)
		if (same_shape(&cls->shapes[i], sh))
			return i;
	return -1;
}

static void make_key(struct bf_cls_key *k, const struct bf_cls_shape *sh,
		     const struct simple *s, __u16 sport, __u16 dport, __u8 ct)
{
	unsigned int i;

	memset(k, 0, sizeof(*k));
	k->shape = sh->id;
	k->proto = sh->any_proto ? 0 : s->proto;
	k->ct = sh->ct ? ct : 0;
	for (i = 0; i < IFNAMSIZ; i++) {
		k->in[i] = s->in[i] & sh->inmsk[i];
		k->out[i] = s->out[i] & sh->outmsk[i];
	}
	k->sport = htons(sport) & sh->spmask;
	k->dport = htons(dport) & sh->dpmask;
	for (i = 0; i < s->alen; i++) {
		k->src[i] = s->src[i] & sh->smsk[i];
		k->dst[i] = s->dst[i] & sh->dmsk[i];
	}
}

/*
 * No packet matches an IPv4 address with bits its mask has not, as
 * ip_packet_match() compares them; ipv6_masked_addr_cmp() masks both
 * sides. (Empty port ranges give no key of the rule, but the rule still
 * drops packets it cannot read: its projections stay.)
 */
static bool never(const struct simple *s)
{
	unsigned int i;

	if (s->alen != sizeof(struct in_addr))
		return false;
	for (i = 0; i < s->alen; i++)
		if ((s->src[i] & ~s->smsk[i]) || (s->dst[i] & ~s->dmsk[i]))
			return true;
	return false;
}

/* The run being planned */
struct plan {
	unsigned int first;	/* its first shape */
	unsigned int njumps;	/* its jumps and gotos */
};

/*
 * Adds rule @index, seen as @s, to the run @p. Returns 1, adding nothing,
 * if the run would have too many shapes or jumps.
 */
static int add_rule(struct bf_cls *cls, struct plan *p, unsigned int index,
		    const struct simple *s)
{
	struct bf_cls_shape want[BF_CLS_MAX_BLOCKS + 2];
	unsigned int nwant = 0, fresh = 0, nkeys = 0, i, b, c;
	unsigned int first = p->first;
	struct bf_cls_entry *en;
	int at[BF_CLS_MAX_BLOCKS + 2], err = 0;

	if (s->verdict == BF_CLS_JUMP && p->njumps == BF_CLS_MAX_JUMPS)
		return 1;

	for (b = 0; b < s->nsrc * s->ndst; b++)
		make_shape(&want[nwant++], s, BF_CLS_RULE, b);
	if (s->l4proto)
		make_shape(&want[nwant++], s, BF_CLS_L4, 0);
	if (s->proto6)
		make_shape(&want[nwant++], s, BF_CLS_ADDR, 0);
	for (i = 0; i < nwant; i++) {
		/* A key per state the rule takes, if the shape tests it */
		nkeys += want[i].ct ? s->nct : 1;
		at[i] = find_shape(cls, first, &want[i]);
		if (at[i] < 0) {
			unsigned int j;

			for (j = 0; j < i && !same_shape(&want[j], &want[i]); j++)
				;
			fresh += j == i;
		}
	}
	/*
	 * The map is the kernel's memory, allocated in full: a rule of many
	 * keys is code instead, and the table's keys have a budget.
	 */
	if (nkeys > BF_CLS_MAX_RULE_KEYS ||
	    cls->nentries + nkeys > BF_CLS_MAX_KEYS)
		return 1;
	if (cls->nshapes - first + fresh > BF_CLS_MAX_SHAPES)
		return 1;
	if (!bf_grow(&err, (void **)&cls->shapes, &cls->caps[1],
		     cls->nshapes + fresh, sizeof(*cls->shapes)) ||
	    !bf_grow(&err, (void **)&cls->entries, &cls->caps[2],
		     cls->nentries + nkeys, sizeof(*cls->entries)))
		return err;
	for (i = 0; i < nwant; i++) {
		at[i] = find_shape(cls, first, &want[i]);
		if (at[i] < 0) {
			at[i] = cls->nshapes;
			want[i].id = cls->nshapes;
			cls->shapes[cls->nshapes++] = want[i];
		}
	}
	if (never(s))
		goto out;
	for (i = 0; i < nwant; i++) {
		const struct bf_cls_shape *sh = &cls->shapes[at[i]];

		for (c = 0; c < (sh->ct ? s->nct : 1); c++) {
			en = &cls->entries[cls->nentries++];
			/* The first nsrc * ndst shapes: the port blocks */
			if (sh->kind == BF_CLS_RULE)
				make_key(&en->key, sh, s, s->sval[i / s->ndst],
					 s->dval[i % s->ndst], s->cts[c]);
			else
				make_key(&en->key, sh, s, 0, 0, s->cts[c]);
			en->value.index = index;
			en->value.verdict = 0;
			/* Which jump: the code picks by that */
			if (sh->kind == BF_CLS_RULE)
				en->value.verdict = s->verdict +
					(s->verdict == BF_CLS_JUMP ? p->njumps : 0);
		}
	}
out:
	p->njumps += s->verdict == BF_CLS_JUMP;
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct bf_cls_entry *x = a, *y = b;
	int c = memcmp(&x->key, &y->key, sizeof(x->key));

	if (c)
		return c;
	return x->value.index < y->value.index ? -1 :
	       x->value.index > y->value.index;
}

/* One entry per key, the lowest rule's: a later one never wins. */
static void dedupe(struct bf_cls *cls)
{
	unsigned int i, n = 0;

	if (!cls->nentries)
		return;
	qsort(cls->entries, cls->nentries, sizeof(*cls->entries), cmp_entry);
	for (i = 0; i < cls->nentries; i++)
		if (!n || memcmp(&cls->entries[n - 1].key,
				 &cls->entries[i].key, sizeof(struct bf_cls_key)))
			cls->entries[n++] = cls->entries[i];
	cls->nentries = n;
}

/* A rule that matches every packet */
static bool always(const struct bf_ir *ir, const struct bf_rule *r)
{
	struct simple s = {};

	return !r->nmatches && simple_ip(ir, r, &s) && !never(&s) &&
	       matches_all(&s);
}

/* The most gotos followed to find that a chain never returns */
#define FINAL_DEPTH	16

/*
 * Whether the chain from @entry on never returns: a verdict for every
 * packet before any RETURN (a user chain ends with one), gotos only to
 * such chains. Jumps come back to it. @final and @known hold what is
 * found for every entry walked, so that no entry is walked twice: the
 * answer is the same from each entry up to where the walk stopped. "May
 * return" is the answer while a chain is walked, as no hook may reach a
 * loop of gotos that the validator let pass, and for the entries of a
 * walk cut short after FINAL_DEPTH gotos: safe, if not always the best.
 */
static bool never_returns(const struct bf_ir *ir, unsigned int entry,
			  unsigned int depth, bool *final, bool *known)
{
	unsigned int i, j;
	bool ret = false;

	if (known[entry])
		return final[entry];
	if (depth > FINAL_DEPTH)
		return false;
	for (i = entry; i < ir->nrules; i++) {
		const struct bf_rule *r = &ir->rules[i];

		if (known[i]) {
			ret = final[i];
			break;
		}
		known[i] = true;
		if (r->action == BF_RETURN)
			break;
		if (r->action == BF_GOTO &&
		    !never_returns(ir, r->jump, depth + 1, final, known))
			break;
		if (always(ir, r) && r->action != BF_JUMP &&
		    r->action != BF_XT) {
			ret = true;
			break;
		}
	}
	for (j = entry; j <= i && j < ir->nrules; j++)
		final[j] = ret;
	return ret;
}

/* For each entry, whether the chain from there on never returns */
static bool *finals(const struct bf_ir *ir, bool jumps)
{
	bool *final = calloc(ir->nrules, sizeof(*final));
	bool *known = calloc(ir->nrules, sizeof(*known));
	unsigned int i;

	if (!final || !known) {
		free(final);
		free(known);
		return NULL;
	}
	for (i = 0; jumps && i < ir->nrules; i++)
		if (ir->rules[i].action == BF_JUMP)
			never_returns(ir, ir->rules[i].jump, 0, final, known);
	free(known);
	return final;
}

/*
 * Entries a state of the walk may start at: a run must start there or
 * not contain it. Hook entries, targets of jumps and gotos, and policies
 * (a RETURN from a built-in chain goes to its policy); after a jump to a
 * chain that may return, the next entry.
 */
static bool *heads(const struct bf_ir *ir, const bool *final)
{
	bool *head = calloc(ir->nrules + 1, sizeof(*head));
	unsigned int h, i;

	if (!head)
		return NULL;
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(ir->valid_hooks & (1 << h)))
			continue;
		head[ir->hook_entry[h]] = true;
		head[ir->underflow[h]] = true;
	}
	for (i = 0; i < ir->nrules; i++) {
		const struct bf_rule *r = &ir->rules[i];

		if (r->action == BF_JUMP || r->action == BF_GOTO)
			head[r->jump] = true;
		if (r->action == BF_JUMP && !final[r->jump])
			head[i + 1] = true;
	}
	return head;
}

static int cmp_shape(const void *a, const void *b)
{
	size_t from = offsetof(struct bf_cls_shape, kind);

	return memcmp((const char *)a + from, (const char *)b + from,
		      sizeof(struct bf_cls_shape) - from);
}

/*
 * The shapes of the run just added in an order of their own, not of its
 * rules: a rule added first to the run leaves the code as it was
 * (update.c). The run's keys, from @nentries on, follow.
 */
static void sort_shapes(struct bf_cls *cls, unsigned int first,
			unsigned int nentries)
{
	unsigned int id[BF_CLS_MAX_SHAPES], i;

	qsort(cls->shapes + first, cls->nshapes - first,
	      sizeof(*cls->shapes), cmp_shape);
	for (i = first; i < cls->nshapes; i++) {
		id[cls->shapes[i].id - first] = i;
		cls->shapes[i].id = i;
	}
	for (i = nentries; i < cls->nentries; i++)
		cls->entries[i].key.shape = id[cls->entries[i].key.shape - first];
}

static int add_run(struct bf_cls *cls, unsigned int start, unsigned int end,
		   const struct plan *p)
{
	unsigned int first = p->first, i;
	struct bf_cls_run *run;
	int err = 0;

	if (!bf_grow(&err, (void **)&cls->runs, &cls->caps[0], cls->nruns + 1,
		     sizeof(*cls->runs)))
		return err;
	run = &cls->runs[cls->nruns++];
	run->start = start;
	run->end = end;
	run->shape = first;
	run->nshapes = cls->nshapes - first;
	run->hotdrop = false;
	run->njumps = p->njumps;
	run->emitted = 0;
	for (i = first; i < cls->nshapes; i++)
		run->hotdrop |= cls->shapes[i].kind != BF_CLS_RULE;
	cls->run_at[start] = cls->nruns;
	return 0;
}

/**
 * bf_cls_plan - the runs of a table to classify, and the map's entries
 * @ir: the table
 * @jumps: runs may have gotos, and jumps to chains that never return
 * @cls: filled in, to be freed with bf_cls_free()
 *
 * Return: 0 or -ENOMEM.
 */
int bf_cls_plan(const struct bf_ir *ir, bool jumps, struct bf_cls *cls)
{
	unsigned int i = 0, start, nentries;
	unsigned int min = bf_cls_min_run ? bf_cls_min_run : 1;
	bool *head = NULL, *final;
	struct simple s;
	struct plan p;
	int err = 0;

	memset(cls, 0, sizeof(*cls));
	if (ir->nrules < min || ir->xtfrag)
		return 0;
	final = finals(ir, jumps);
	if (final)
		head = heads(ir, final);
	cls->run_at = calloc(ir->nrules, sizeof(*cls->run_at));
	if (!head || !cls->run_at) {
		err = -ENOMEM;
		goto out;
	}
	while (i < ir->nrules) {
		start = i;
		memset(&p, 0, sizeof(p));
		p.first = cls->nshapes;
		nentries = cls->nentries;
		while (i < ir->nrules && (i == start || !head[i]) &&
		       simple(ir, &ir->rules[i], final, jumps, &s)) {
			err = add_rule(cls, &p, i, &s);
			if (err < 0)
				goto out;
			if (err)
				break;
			i++;
			/* Nothing after it in the chain is reached. */
			if (s.unconditional)
				break;
		}
		err = 0;
		if (i - start >= min) {
			sort_shapes(cls, p.first, nentries);
			err = add_run(cls, start, i, &p);
			if (err)
				goto out;
		} else {
			cls->nshapes = p.first;
			cls->nentries = nentries;
			if (i == start)
				i++;
		}
	}
	dedupe(cls);
out:
	free(head);
	free(final);
	if (err)
		bf_cls_free(cls);
	return err;
}

void bf_cls_free(struct bf_cls *cls)
{
	free(cls->runs);
	free(cls->run_at);
	free(cls->shapes);
	free(cls->entries);
	memset(cls, 0, sizeof(*cls));
}
