// SPDX-License-Identifier: GPL-2.0
/*
 * validate_diff: differential test of the bpfilter helper's bf_validate()
 * and bf_revision() against the running kernel's ip_tables and ip6_tables.
 *
 * Runs in a network namespace of its own, never the host's: it refuses to
 * run when unshare(CLONE_NEWNET) fails. For each family:
 *  - named hand-written cases (each with the answer bf_validate() must give);
 *  - bf_revision() against IPT_SO_GET_REVISION_MATCH/_TARGET;
 *  - ITERATIONS random tables shaped like iptables-legacy's (builtin chains
 *    with policies, user chains with ERROR heads and RETURN tails, rules
 *    with the served matches, jumps and gotos), randomly mutated.
 * Each blob goes to bf_validate() and to IPT_SO_SET_REPLACE on "filter";
 * the errors must be equal (a BF_FALLBACK is counted, not compared), and
 * when both accept, the normalized entries must equal what
 * IPT_SO_GET_ENTRIES reads back, byte for byte.
 *
 * The host may run a newer kernel than the series' 6.12: the 6.12 source
 * is the reference. No difference has shown up so far (host 6.18); should
 * one, tolerate exactly it here, with a comment saying which.
 *
 * Usage: validate_diff ITERATIONS SEED [START [4|6]]
 * Iteration I of a family is built from (SEED, family, I) alone, so
 * "validate_diff 1 SEED I 4" replays iteration I for IPv4 (cases and
 * revisions run only when no family is given).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/netfilter.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter_ipv4/ipt_REJECT.h>
#include <linux/netfilter_ipv6/ip6t_REJECT.h>
#include <linux/netfilter/xt_tcpudp.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "validate.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The filter table's hooks: what __do_replace() holds valid_hooks to. */
#define FILTER_HOOKS ((1 << NF_INET_LOCAL_IN) | (1 << NF_INET_FORWARD) | \
		      (1 << NF_INET_LOCAL_OUT))

/* ------------------------------------------------------------------ */
/* Random numbers: splitmix64, one stream per (seed, family, iteration) */

struct rng {
	__u64 s;
};

static __u64 rnd(struct rng *r)
{
	__u64 z = (r->s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static unsigned int below(struct rng *r, unsigned int n)
{
	return n ? rnd(r) % n : 0;
}

static bool chance(struct rng *r, unsigned int pct)
{
	return below(r, 100) < pct;
}

static void rng_init(struct rng *r, __u64 seed, int family, __u64 iter)
{
	r->s = seed ^ ((__u64)family << 56) ^ (iter * 0xD1B54A32D192ED03ull);
	rnd(r);
	rnd(r);
}

/* ------------------------------------------------------------------ */
/* Families */

struct tfam {
	const char *name;
	int nfproto;
	int af;
	int level;
	unsigned int esize;
	unsigned int ipsize;
	unsigned int o_proto, o_flags, o_invflags;
	unsigned int o_nfcache, o_to, o_no, o_cf, o_cnt;
	__u8 f_goto;
	__u8 f_mask;
	__u8 inv_mask;
	__u8 inv_proto;
	const char *icmp;
	__u8 icmp_proto;
	int so_replace, so_info, so_entries;
};

static const struct tfam fam4 = {
	.name = "ipv4", .nfproto = NFPROTO_IPV4, .af = AF_INET,
	.level = IPPROTO_IP,
	.esize = sizeof(struct ipt_entry), .ipsize = sizeof(struct ipt_ip),
	.o_proto = offsetof(struct ipt_entry, ip.proto),
	.o_flags = offsetof(struct ipt_entry, ip.flags),
	.o_invflags = offsetof(struct ipt_entry, ip.invflags),
	.o_nfcache = offsetof(struct ipt_entry, nfcache),
	.o_to = offsetof(struct ipt_entry, target_offset),
	.o_no = offsetof(struct ipt_entry, next_offset),
	.o_cf = offsetof(struct ipt_entry, comefrom),
	.o_cnt = offsetof(struct ipt_entry, counters),
	.f_goto = IPT_F_GOTO, .f_mask = IPT_F_MASK,
	.inv_mask = IPT_INV_MASK, .inv_proto = IPT_INV_PROTO,
	.icmp = "icmp", .icmp_proto = IPPROTO_ICMP,
	.so_replace = IPT_SO_SET_REPLACE, .so_info = IPT_SO_GET_INFO,
	.so_entries = IPT_SO_GET_ENTRIES,
};

static const struct tfam fam6 = {
	.name = "ipv6", .nfproto = NFPROTO_IPV6, .af = AF_INET6,
	.level = IPPROTO_IPV6,
	.esize = sizeof(struct ip6t_entry), .ipsize = sizeof(struct ip6t_ip6),
	.o_proto = offsetof(struct ip6t_entry, ipv6.proto),
	.o_flags = offsetof(struct ip6t_entry, ipv6.flags),
	.o_invflags = offsetof(struct ip6t_entry, ipv6.invflags),
	.o_nfcache = offsetof(struct ip6t_entry, nfcache),
	.o_to = offsetof(struct ip6t_entry, target_offset),
	.o_no = offsetof(struct ip6t_entry, next_offset),
	.o_cf = offsetof(struct ip6t_entry, comefrom),
	.o_cnt = offsetof(struct ip6t_entry, counters),
	.f_goto = IP6T_F_GOTO, .f_mask = IP6T_F_MASK,
	.inv_mask = IP6T_INV_MASK, .inv_proto = IP6T_INV_PROTO,
	.icmp = "icmp6", .icmp_proto = IPPROTO_ICMPV6,
	.so_replace = IP6T_SO_SET_REPLACE, .so_info = IP6T_SO_GET_INFO,
	.so_entries = IP6T_SO_GET_ENTRIES,
};

/* ------------------------------------------------------------------ */
/* Tables */

#define MAX_ENTRIES	96
#define MAX_MATCHES	3
#define MAX_USER	5
#define SLACK		512	/* room past the table for growing mutations */

enum mtype { M_TCP, M_UDP, M_ICMP, M_COMMENT, M_UNKNOWN };
enum tkind {
	T_ACCEPT, T_DROP, T_QUEUE, T_RETURN, T_JUMP, T_GOTO, T_NEXT,
	T_ERROR, T_UNKNOWN, T_POLICY, T_HEAD, T_TAIL, T_END
};

/* What the generator knows of each entry; mutations may make it stale. */
struct ment {
	unsigned int off;
	unsigned int size;
	unsigned int nm;
	unsigned int moff[MAX_MATCHES];
	enum mtype mt[MAX_MATCHES];
	unsigned int to;
	enum tkind tk;
	int chain;		/* 0..2 builtin, 3.. user chains */
};

struct table {
	const struct tfam *f;
	struct ipt_replace hdr;	/* same layout as ip6t_replace */
	unsigned char *buf;
	unsigned int cap;
	unsigned int n;
	struct ment e[MAX_ENTRIES];
	int nchains;
	unsigned int chain_first[3 + MAX_USER];	/* jump target of a chain */
	unsigned int chain_head[3 + MAX_USER];	/* its first entry */
};

static void w8(struct table *t, unsigned int off, __u8 v)
{
	if (off < t->cap)
		t->buf[off] = v;
}

static void w16(struct table *t, unsigned int off, __u16 v)
{
	if (off + 2 <= t->cap)
		memcpy(t->buf + off, &v, 2);
}

static void w32(struct table *t, unsigned int off, __u32 v)
{
	if (off + 4 <= t->cap)
		memcpy(t->buf + off, &v, 4);
}

static unsigned int r16(const struct table *t, unsigned int off)
{
	__u16 v = 0;

	if (off + 2 <= t->cap)
		memcpy(&v, t->buf + off, 2);
	return v;
}

static void wname(struct table *t, unsigned int obj, const char *name,
		  unsigned int len)
{
	if (obj + 2 + XT_EXTENSION_MAXNAMELEN > t->cap)
		return;
	memset(t->buf + obj + 2, 0, XT_EXTENSION_MAXNAMELEN);
	memcpy(t->buf + obj + 2, name, len);
}

static unsigned int data_size(enum mtype m)
{
	switch (m) {
	case M_TCP:
		return sizeof(struct xt_tcp);
	case M_UDP:
		return sizeof(struct xt_udp);
	case M_ICMP:
		return sizeof(struct ipt_icmp);
	case M_COMMENT:
		return sizeof(struct xt_comment_info);
	default:
		return 16;
	}
}

static unsigned int match_size(enum mtype m)
{
	return sizeof(struct xt_entry_match) + XT_ALIGN(data_size(m));
}

static unsigned int target_size(enum tkind k)
{
	switch (k) {
	case T_ERROR:
	case T_HEAD:
	case T_END:
		return sizeof(struct xt_error_target);
	case T_UNKNOWN:
		return sizeof(struct xt_entry_target) + 8;
	default:
		return sizeof(struct xt_standard_target);
	}
}

/* ------------------------------------------------------------------ */
/* Generation: a table as iptables-legacy lays it out */

struct prule {
	enum tkind tk;
	int jump;		/* chain jumped to */
	unsigned int nm;
	enum mtype mt[MAX_MATCHES];
	__u16 proto;
	bool inv_proto;
	unsigned int gap;	/* bytes past an ERROR target */
};

struct plan {
	int nuser;
	int nrules[3 + MAX_USER];
	struct prule r[3 + MAX_USER][6];
	int policy[3];
	bool unknown;		/* one unserved extension somewhere */
	bool junk;		/* garbage in bytes the kernel ignores */
};

static void plan_rule(const struct tfam *f, struct rng *r, struct plan *p,
		      int chain, struct prule *pr)
{
	static const enum tkind kinds[] = {
		T_ACCEPT, T_ACCEPT, T_ACCEPT, T_DROP, T_DROP, T_QUEUE,
		T_RETURN, T_JUMP, T_JUMP, T_JUMP, T_GOTO, T_NEXT, T_NEXT,
		T_ERROR,
	};
	unsigned int x = below(r, 100);
	int first_user = chain < 3 ? 3 : chain + 1;

	memset(pr, 0, sizeof(*pr));
	if (x < 35)
		pr->proto = IPPROTO_TCP;
	else if (x < 60)
		pr->proto = IPPROTO_UDP;
	else if (x < 70)
		pr->proto = f->icmp_proto;
	else if (x < 80)
		pr->proto = below(r, 256);

	if (pr->proto == IPPROTO_TCP && chance(r, 70))
		pr->mt[pr->nm++] = M_TCP;
	else if (pr->proto == IPPROTO_UDP && chance(r, 70))
		pr->mt[pr->nm++] = M_UDP;
	else if (pr->proto == f->icmp_proto && chance(r, 70))
		pr->mt[pr->nm++] = M_ICMP;
	else if (pr->proto && chance(r, 10))
		pr->inv_proto = true;
	if (chance(r, 25))
		pr->mt[pr->nm++] = M_COMMENT;

	pr->tk = kinds[below(r, ARRAY_SIZE(kinds))];
	if ((pr->tk == T_JUMP || pr->tk == T_GOTO) &&
	    first_user >= 3 + p->nuser)
		pr->tk = T_DROP;
	if (pr->tk == T_JUMP || pr->tk == T_GOTO)
		pr->jump = first_user + below(r, 3 + p->nuser - first_user);
	if (pr->tk == T_ERROR && chance(r, 30))
		pr->gap = 8 * (1 + below(r, 3));
}

static void make_plan(const struct tfam *f, struct rng *r, struct plan *p)
{
	int c, i;

	memset(p, 0, sizeof(*p));
	p->nuser = below(r, MAX_USER + 1);
	p->unknown = chance(r, 6);
	p->junk = chance(r, 30);
	for (c = 0; c < 3 + p->nuser; c++) {
		p->nrules[c] = below(r, 5);
		for (i = 0; i < p->nrules[c]; i++)
			plan_rule(f, r, p, c, &p->r[c][i]);
	}
	for (c = 0; c < 3; c++)
		p->policy[c] = chance(r, 70) ? -NF_ACCEPT - 1 : -NF_DROP - 1;

	if (p->unknown) {
		int tries;

		for (tries = 0; tries < 20; tries++) {
			struct prule *pr;

			c = below(r, 3 + p->nuser);
			if (!p->nrules[c])
				continue;
			pr = &p->r[c][below(r, p->nrules[c])];
			if (chance(r, 50) && pr->nm < MAX_MATCHES)
				pr->mt[pr->nm++] = M_UNKNOWN;
			else
				pr->tk = T_UNKNOWN;
			break;
		}
	}
}

static void junk(struct rng *r, struct table *t, unsigned int off,
		 unsigned int len, bool on)
{
	unsigned int i;

	if (!on)
		return;
	for (i = 0; i < len; i++)
		w8(t, off + i, rnd(r));
}

static void fill_ip(struct rng *r, struct table *t, unsigned int off,
		    const struct prule *pr)
{
	const struct tfam *f = t->f;
	__u8 flags = 0, inv = 0;

	if (chance(r, 40)) {
		/* Addresses, masks, interfaces: never checked, only copied. */
		junk(r, t, off, f == &fam4 ? 16 : 64, true);
		inv |= chance(r, 20) ? (IPT_INV_SRCIP | IPT_INV_DSTIP) : 0;
	}
	if (chance(r, 30)) {
		unsigned int ifo = f == &fam4 ?
			offsetof(struct ipt_ip, iniface) :
			offsetof(struct ip6t_ip6, iniface);
		char name[IFNAMSIZ];
		int len = snprintf(name, sizeof(name), "eth%u", below(r, 40));

		memcpy(t->buf + off + ifo, name, len);
		memset(t->buf + off + ifo + 2 * IFNAMSIZ, 0xff, len + 1);
		inv |= chance(r, 20) ? IPT_INV_VIA_IN : 0;
	}
	w16(t, off + f->o_proto, pr->proto);
	if (pr->inv_proto)
		inv |= f->inv_proto;
	if (f == &fam4) {
		if (chance(r, 10))
			flags |= IPT_F_FRAG;
		inv |= chance(r, 5) ? IPT_INV_FRAG : 0;
	} else {
		if (pr->proto)
			flags |= IP6T_F_PROTO;
		if (chance(r, 5)) {
			flags |= IP6T_F_TOS;
			w8(t, off + offsetof(struct ip6t_ip6, tos), rnd(r));
		}
	}
	if (pr->tk == T_GOTO)
		flags |= f->f_goto;
	w8(t, off + f->o_flags, flags);
	w8(t, off + f->o_invflags, inv);
}

static void fill_match(struct rng *r, struct table *t, unsigned int obj,
		       enum mtype m, bool junky)
{
	const struct tfam *f = t->f;
	unsigned int d = obj + sizeof(struct xt_entry_match);
	unsigned int dsz = data_size(m), i;
	const char *name;

	w16(t, obj, match_size(m));
	switch (m) {
	case M_TCP:
		name = "tcp";
		junk(r, t, d, dsz, true);
		w8(t, d + offsetof(struct xt_tcp, invflags),
		   rnd(r) & XT_TCP_INV_MASK);
		break;
	case M_UDP:
		name = "udp";
		junk(r, t, d, dsz, true);
		w8(t, d + offsetof(struct xt_udp, invflags),
		   rnd(r) & XT_UDP_INV_MASK);
		break;
	case M_ICMP:
		name = f->icmp;
		junk(r, t, d, dsz, true);
		w8(t, d + offsetof(struct ipt_icmp, invflags),
		   rnd(r) & IPT_ICMP_INV);
		break;
	case M_COMMENT:
		name = "comment";
		for (i = 0; i < below(r, XT_MAX_COMMENT_LEN); i++)
			w8(t, d + i, 'a' + below(r, 26));
		break;
	default:
		name = "limit";
		w8(t, obj + 2 + XT_EXTENSION_MAXNAMELEN, 1);
		junk(r, t, d, dsz, true);
		break;
	}
	wname(t, obj, name, strlen(name));
	/* bytes the kernel does not give back: name tail, padding */
	junk(r, t, obj + 3 + strlen(name),
	     XT_EXTENSION_MAXNAMELEN - 1 - strlen(name), junky);
	junk(r, t, d + dsz, XT_ALIGN(dsz) - dsz, junky);
}

static void fill_target(struct rng *r, struct table *t, unsigned int obj,
			const struct prule *pr, const char *errname,
			int verdict, bool junky)
{
	unsigned int d = obj + sizeof(struct xt_entry_target);
	const char *name = "";

	w16(t, obj, target_size(pr->tk));
	switch (pr->tk) {
	case T_ERROR:
	case T_HEAD:
	case T_END:
		name = XT_ERROR_TARGET;
		memcpy(t->buf + d, errname, strlen(errname));
		junk(r, t, d + XT_FUNCTION_MAXNAMELEN,
		     XT_ALIGN(XT_FUNCTION_MAXNAMELEN) -
		     XT_FUNCTION_MAXNAMELEN, junky);
		junk(r, t, obj + sizeof(struct xt_error_target), pr->gap,
		     junky);
		break;
	case T_UNKNOWN:
		name = "NFLOG";
		junk(r, t, d, 8, true);
		break;
	default:
		w32(t, d, verdict);
		junk(r, t, d + 4, 4, junky);
		break;
	}
	wname(t, obj, name, strlen(name));
	junk(r, t, obj + 3 + strlen(name),
	     XT_EXTENSION_MAXNAMELEN - 1 - strlen(name), junky);
}

static unsigned int entry_size(const struct tfam *f, const struct prule *pr)
{
	unsigned int s = f->esize, i;

	for (i = 0; i < pr->nm; i++)
		s += match_size(pr->mt[i]);
	return s + target_size(pr->tk) + pr->gap;
}

/* Lays out the plan's entries: chains, rules, heads, tails, the end. */
static void layout(struct table *t, const struct plan *p,
		   struct prule *rules, int *chain_of)
{
	unsigned int n = 0;
	int c, i;

	for (c = 0; c < 3 + p->nuser; c++) {
		if (c >= 3) {
			memset(&rules[n], 0, sizeof(rules[n]));
			rules[n].tk = T_HEAD;
			chain_of[n++] = c;
		}
		for (i = 0; i < p->nrules[c]; i++) {
			rules[n] = p->r[c][i];
			chain_of[n++] = c;
		}
		memset(&rules[n], 0, sizeof(rules[n]));
		rules[n].tk = c < 3 ? T_POLICY : T_TAIL;
		chain_of[n++] = c;
	}
	memset(&rules[n], 0, sizeof(rules[n]));
	rules[n].tk = T_END;
	chain_of[n++] = -1;
	t->n = n;
}

static void build(struct table *t, const struct tfam *f, struct rng *r,
		  const struct plan *pp)
{
	struct prule rules[MAX_ENTRIES];
	int chain_of[MAX_ENTRIES];
	const struct plan p = *pp;
	unsigned int i, off, size = 0;

	memset(t, 0, sizeof(*t));
	t->f = f;
	layout(t, &p, rules, chain_of);
	t->nchains = 3 + p.nuser;

	for (i = 0; i < t->n; i++) {
		struct ment *e = &t->e[i];
		bool starts = !i || t->e[i - 1].chain != chain_of[i];

		e->off = size;
		e->size = entry_size(f, &rules[i]);
		e->tk = rules[i].tk;
		e->chain = chain_of[i];
		size += e->size;
		if (e->chain < 0)
			continue;
		if (starts)
			t->chain_head[e->chain] = e->off;
		if ((starts && e->tk != T_HEAD) ||
		    (!starts && t->e[i - 1].tk == T_HEAD))
			t->chain_first[e->chain] = e->off;
	}

	t->cap = size + SLACK;
	t->buf = calloc(1, t->cap);
	if (!t->buf)
		abort();
	junk(r, t, size, SLACK, true);

	strcpy(t->hdr.name, "filter");
	t->hdr.valid_hooks = FILTER_HOOKS;
	t->hdr.num_entries = t->n;
	t->hdr.size = size;
	for (i = 0; i < NF_INET_NUMHOOKS; i++) {
		t->hdr.hook_entry[i] = chance(r, 50) ? 0 : rnd(r);
		t->hdr.underflow[i] = chance(r, 50) ? 0 : rnd(r);
	}

	for (i = 0; i < t->n; i++) {
		struct ment *e = &t->e[i];
		struct prule *pr = &rules[i];
		char errname[XT_FUNCTION_MAXNAMELEN] = "ERROR";
		unsigned int m;
		int verdict = 0;

		off = e->off;
		if (pr->tk != T_POLICY && pr->tk != T_TAIL &&
		    pr->tk != T_HEAD && pr->tk != T_END)
			fill_ip(r, t, off, pr);
		w32(t, off + f->o_nfcache, p.junk ? rnd(r) : 0);
		junk(r, t, off + f->o_cf, 4, p.junk);
		junk(r, t, off + f->o_cnt, 16, p.junk);

		e->nm = pr->nm;
		m = off + f->esize;
		for (e->nm = 0; e->nm < pr->nm; e->nm++) {
			e->moff[e->nm] = m;
			e->mt[e->nm] = pr->mt[e->nm];
			fill_match(r, t, m, pr->mt[e->nm], p.junk);
			m += match_size(pr->mt[e->nm]);
		}
		e->to = m;
		w16(t, off + f->o_to, m - off);
		w16(t, off + f->o_no, e->size);

		switch (pr->tk) {
		case T_ACCEPT:
			verdict = -NF_ACCEPT - 1;
			break;
		case T_DROP:
			verdict = -NF_DROP - 1;
			break;
		case T_QUEUE:
			verdict = -NF_QUEUE - 1;
			break;
		case T_RETURN:
		case T_TAIL:
			verdict = XT_RETURN;
			break;
		case T_JUMP:
		case T_GOTO:
			verdict = t->chain_first[pr->jump];
			break;
		case T_NEXT:
			verdict = off + e->size;
			break;
		case T_POLICY:
			verdict = p.policy[e->chain];
			t->hdr.underflow[e->chain + 1] = off;
			break;
		case T_HEAD:
			snprintf(errname, sizeof(errname), "chain%d",
				 e->chain - 3);
			break;
		default:
			break;
		}
		if (e->chain >= 0 && e->chain < 3 &&
		    off == t->chain_first[e->chain])
			t->hdr.hook_entry[e->chain + 1] = off;
		fill_target(r, t, m, pr, errname, verdict, p.junk);
	}
}

static void generate(struct table *t, const struct tfam *f, struct rng *r)
{
	struct plan p;

	make_plan(f, r, &p);
	build(t, f, r, &p);
}

/* ------------------------------------------------------------------ */
/* Mutations */

static struct ment *any_entry(struct table *t, struct rng *r)
{
	return &t->e[below(r, t->n)];
}

static struct ment *std_entry(struct table *t, struct rng *r)
{
	unsigned int i;

	for (i = 0; i < 10; i++) {
		struct ment *e = any_entry(t, r);

		if (e->tk != T_ERROR && e->tk != T_HEAD && e->tk != T_END &&
		    e->tk != T_UNKNOWN)
			return e;
	}
	return NULL;
}

static struct ment *match_entry(struct table *t, struct rng *r)
{
	unsigned int i;

	for (i = 0; i < 20; i++) {
		struct ment *e = any_entry(t, r);

		if (e->nm)
			return e;
	}
	return NULL;
}

static unsigned int some_offset(struct table *t, struct rng *r)
{
	unsigned int off = any_entry(t, r)->off;

	switch (below(r, 6)) {
	case 0:
		return off + 8;
	case 1:
		return off + 4;
	case 2:
		return below(r, t->hdr.size + 16);
	case 3:
		return t->hdr.size;
	default:
		return off;
	}
}

static int small_delta(struct rng *r)
{
	static const int d[] = { -16, -8, -4, -1, 1, 4, 8, 16, 32 };

	return d[below(r, ARRAY_SIZE(d))];
}

static void mut_size(struct table *t, struct rng *r)
{
	unsigned int s = t->hdr.size;

	switch (below(r, 5)) {
	case 0:
		s += small_delta(r);
		break;
	case 1:		/* cut at an entry boundary */
		s = any_entry(t, r)->off;
		break;
	case 2:		/* cut inside an entry */
		s = any_entry(t, r)->off + below(r, 200);
		break;
	case 3:
		s = below(r, 3) ? s - 8 : 0;
		break;
	default:
		s += 8 * below(r, 8);
		break;
	}
	if (s > t->cap)
		s = t->cap;
	t->hdr.size = s;
}

static void mut_num(struct table *t, struct rng *r)
{
	static const unsigned int big[] = {
		0xFFFFFFFF, (512 << 20) / 4 + 1, (512 << 20) / 4, 0, 1
	};

	if (chance(r, 70))
		t->hdr.num_entries += small_delta(r) > 0 ? 1 : -1;
	else
		t->hdr.num_entries = big[below(r, ARRAY_SIZE(big))];
}

static void mut_valid_hooks(struct table *t, struct rng *r)
{
	if (chance(r, 80))
		t->hdr.valid_hooks ^= 1 << below(r, 6);
	else
		t->hdr.valid_hooks = rnd(r) & 0x1f;
}

static void mut_hooks(struct table *t, struct rng *r)
{
	unsigned int h = below(r, NF_INET_NUMHOOKS), v;
	unsigned int *a = chance(r, 50) ? t->hdr.hook_entry : t->hdr.underflow;

	if (chance(r, 20)) {
		unsigned int g = below(r, NF_INET_NUMHOOKS);

		v = a[h];
		a[h] = a[g];
		a[g] = v;
		return;
	}
	a[h] = chance(r, 10) ? 0xFFFFFFFF : some_offset(t, r);
}

static void mut_next(struct table *t, struct rng *r)
{
	struct ment *e = any_entry(t, r);
	unsigned int v = r16(t, e->off + t->f->o_no);

	switch (below(r, 4)) {
	case 0:
		v = 0;
		break;
	case 1:
		v = rnd(r);
		break;
	default:
		v += small_delta(r);
		break;
	}
	w16(t, e->off + t->f->o_no, v);
}

static void mut_target_offset(struct table *t, struct rng *r)
{
	struct ment *e = any_entry(t, r);
	unsigned int v = r16(t, e->off + t->f->o_to);

	switch (below(r, 6)) {
	case 0:
		v = t->f->esize - 8;
		break;
	case 1:
		v = e->size - sizeof(struct xt_entry_target);
		break;
	case 2:
		v = e->size;
		break;
	case 3:
		v = rnd(r);
		break;
	default:
		v += small_delta(r);
		break;
	}
	w16(t, e->off + t->f->o_to, v);
}

static void mut_verdict(struct table *t, struct rng *r)
{
	static const int odd[] = {
		XT_RETURN, -NF_ACCEPT - 1, -NF_DROP - 1, -NF_QUEUE - 1,
		-NF_STOLEN - 1, -NF_STOP - 1, -6, 0, INT_MIN, INT_MAX, -1000,
	};
	struct ment *e = std_entry(t, r);
	int v;

	if (!e)
		return;
	switch (below(r, 4)) {
	case 0:
		v = odd[below(r, ARRAY_SIZE(odd))];
		break;
	case 1:		/* to a chain: loops are likely */
		v = t->chain_first[below(r, t->nchains)];
		break;
	case 2:
		v = e->off;
		break;
	default:
		v = some_offset(t, r);
		break;
	}
	w32(t, e->to + sizeof(struct xt_entry_target), v);
}

/* Makes a user chain call back into itself or an earlier one. */
static void mut_loop(struct table *t, struct rng *r)
{
	unsigned int i, k = below(r, t->n);

	if (t->nchains <= 3)
		return;
	for (i = 0; i < t->n; i++) {
		struct ment *e = &t->e[(i + k) % t->n];

		if (e->chain < 3 || e->tk == T_HEAD ||
		    e->tk == T_ERROR || e->tk == T_UNKNOWN)
			continue;
		w32(t, e->to + sizeof(struct xt_entry_target),
		    t->chain_first[3 + below(r, e->chain - 2)]);
		if (chance(r, 30))
			w8(t, e->off + t->f->o_flags,
			   t->buf[e->off + t->f->o_flags] ^ t->f->f_goto);
		return;
	}
}

static void mut_match_size(struct table *t, struct rng *r)
{
	struct ment *e = match_entry(t, r);
	unsigned int o, v;

	if (!e)
		return;
	o = e->moff[below(r, e->nm)];
	v = r16(t, o);
	switch (below(r, 4)) {
	case 0:
		v = below(r, 40);
		break;
	case 1:
		v = rnd(r);
		break;
	default:
		v += small_delta(r);
		break;
	}
	w16(t, o, v);
}

static const char *const ext_names[] = {
	"tcp", "udp", "icmp", "icmp6", "comment", "limit", "", "ERROR",
	"NFLOG", "ACCEPT", "tcpx", "udplite", "standard",
};

static void set_name(struct table *t, struct rng *r, unsigned int obj)
{
	switch (below(r, 4)) {
	case 0:	/* unterminated */
		memset(t->buf + obj + 2, 'a' + below(r, 26),
		       XT_EXTENSION_MAXNAMELEN);
		break;
	case 1:	/* garbage after the NUL */
		w8(t, obj + 2 + XT_EXTENSION_MAXNAMELEN - 1 - below(r, 20),
		   rnd(r) | 1);
		break;
	default: {
		const char *n = ext_names[below(r, ARRAY_SIZE(ext_names))];

		wname(t, obj, n, strlen(n));
		break;
	}
	}
}

static void mut_match_name(struct table *t, struct rng *r)
{
	struct ment *e = match_entry(t, r);

	if (e)
		set_name(t, r, e->moff[below(r, e->nm)]);
}

static void mut_revision(struct table *t, struct rng *r)
{
	struct ment *e = any_entry(t, r);
	unsigned int o = e->to;

	if (e->nm && chance(r, 60))
		o = e->moff[below(r, e->nm)];
	w8(t, o + 2 + XT_EXTENSION_MAXNAMELEN, chance(r, 50) ? 1 : rnd(r));
}

static void mut_target_name(struct table *t, struct rng *r)
{
	set_name(t, r, any_entry(t, r)->to);
}

static void mut_target_size(struct table *t, struct rng *r)
{
	static const unsigned int v[] = { 0, 31, 32, 40, 64, 72, 48 };
	struct ment *e = any_entry(t, r);

	if (chance(r, 50))
		w16(t, e->to, v[below(r, ARRAY_SIZE(v))]);
	else
		w16(t, e->to, r16(t, e->to) + small_delta(r));
}

static void mut_ip_flags(struct table *t, struct rng *r)
{
	struct ment *e = any_entry(t, r);
	unsigned int o = e->off + (chance(r, 50) ? t->f->o_flags :
				   t->f->o_invflags);

	if (chance(r, 70))
		w8(t, o, t->buf[o] ^ (1 << below(r, 8)));
	else
		w8(t, o, rnd(r));
}

static void mut_proto(struct table *t, struct rng *r)
{
	static const __u16 protos[] = {
		0, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP, IPPROTO_ICMPV6,
		IPPROTO_UDPLITE, 0x106,
	};
	struct ment *e = any_entry(t, r);

	if (chance(r, 30))
		w8(t, e->off + t->f->o_invflags,
		   t->buf[e->off + t->f->o_invflags] ^ t->f->inv_proto);
	else
		w16(t, e->off + t->f->o_proto,
		    protos[below(r, ARRAY_SIZE(protos))]);
}

static void mut_ext_invflags(struct table *t, struct rng *r)
{
	struct ment *e = match_entry(t, r);
	unsigned int i, o;

	if (!e)
		return;
	i = below(r, e->nm);
	o = e->moff[i] + sizeof(struct xt_entry_match);
	switch (e->mt[i]) {
	case M_TCP:
		o += offsetof(struct xt_tcp, invflags);
		break;
	case M_UDP:
		o += offsetof(struct xt_udp, invflags);
		break;
	case M_ICMP:
		o += offsetof(struct ipt_icmp, invflags);
		break;
	default:
		o += below(r, 16);
		break;
	}
	w8(t, o, rnd(r));
}

static void mut_errorname(struct table *t, struct rng *r)
{
	unsigned int i;

	for (i = 0; i < 10; i++) {
		struct ment *e = any_entry(t, r);

		if (e->tk == T_HEAD || e->tk == T_END || e->tk == T_ERROR) {
			memset(t->buf + e->to + sizeof(struct xt_entry_target),
			       'x', XT_FUNCTION_MAXNAMELEN - below(r, 2));
			return;
		}
	}
}

/* An unconditional rule: the ends of chains and policies look so. */
static void mut_unconditional(struct table *t, struct rng *r)
{
	struct ment *e = any_entry(t, r);

	if (e->off + t->f->ipsize <= t->cap)
		memset(t->buf + e->off, 0, t->f->ipsize);
	if (chance(r, 20) && e->off + t->f->ipsize <= t->cap)
		t->buf[e->off + t->f->ipsize - 1] = 1;	/* padding on IPv6 */
}

/*
 * Inserts @by zero bytes at @at, moving what follows and every offset that
 * points past @at (hooks, jumps, the generator's notes) along with it, so
 * that only the entry grown at @at is changed.
 */
static bool insert_bytes(struct table *t, unsigned int at, unsigned int by)
{
	unsigned int i, j, h;

	if (t->hdr.size + by > t->cap || at > t->hdr.size)
		return false;
	for (i = 0; i < t->n; i++) {
		struct ment *e = &t->e[i];
		unsigned int v = e->to + sizeof(struct xt_entry_target);
		int verdict;

		if (e->tk >= T_ERROR && e->tk != T_POLICY && e->tk != T_TAIL)
			continue;
		if (v + 4 > t->hdr.size)
			continue;
		memcpy(&verdict, t->buf + v, 4);
		if (verdict >= (int)at)
			w32(t, v, verdict + by);
	}
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (t->hdr.hook_entry[h] >= at &&
		    t->hdr.hook_entry[h] <= t->hdr.size)
			t->hdr.hook_entry[h] += by;
		if (t->hdr.underflow[h] >= at &&
		    t->hdr.underflow[h] <= t->hdr.size)
			t->hdr.underflow[h] += by;
	}
	for (i = 0; i < ARRAY_SIZE(t->chain_first); i++) {
		if (t->chain_first[i] >= at)
			t->chain_first[i] += by;
		if (t->chain_head[i] >= at)
			t->chain_head[i] += by;
	}
	for (i = 0; i < t->n; i++) {
		struct ment *e = &t->e[i];

		if (e->off >= at)
			e->off += by;
		if (e->to >= at)
			e->to += by;
		for (j = 0; j < e->nm; j++)
			if (e->moff[j] >= at)
				e->moff[j] += by;
	}
	memmove(t->buf + at + by, t->buf + at, t->hdr.size - at);
	memset(t->buf + at, 0, by);
	t->hdr.size += by;
	return true;
}

static unsigned int grow_by(struct rng *r)
{
	return chance(r, 30) ? 4 : 8 * (1 + below(r, 2));
}

static void grow16(struct table *t, unsigned int off, unsigned int by)
{
	w16(t, off, r16(t, off) + by);
}

/* Room after an entry's target: only an ERROR or unknown target allows it. */
static void mut_shift(struct table *t, struct rng *r)
{
	struct ment *e = any_entry(t, r);
	unsigned int by = grow_by(r);

	if (insert_bytes(t, e->off + e->size, by)) {
		grow16(t, e->off + t->f->o_no, by);
		e->size += by;
	}
}

/* A match's data grows: its size and the entry's offsets with it. */
static void mut_grow_match(struct table *t, struct rng *r)
{
	struct ment *e = match_entry(t, r);
	unsigned int i, by = grow_by(r);

	if (!e)
		return;
	i = below(r, e->nm);
	if (insert_bytes(t, e->moff[i] + match_size(e->mt[i]), by)) {
		grow16(t, e->moff[i], by);
		grow16(t, e->off + t->f->o_to, by);
		grow16(t, e->off + t->f->o_no, by);
		e->size += by;
	}
}

/* A target's data grows, and the entry with it. */
static void mut_grow_target(struct table *t, struct rng *r)
{
	struct ment *e = any_entry(t, r);
	unsigned int by = grow_by(r);

	if (insert_bytes(t, e->off + e->size, by)) {
		grow16(t, e->to, by);
		grow16(t, e->off + t->f->o_no, by);
		e->size += by;
	}
}

/*
 * Moves the boundary between an entry's first two matches by @d bytes:
 * the second match moves with it, and the sizes still add up.
 */
static void move_match(struct table *t, struct ment *e, int d)
{
	unsigned int m1 = e->moff[1], size1 = r16(t, m1);
	unsigned int keep = d > 0 ? size1 - d : size1;

	if (e->nm < 2 || (int)size1 <= d || m1 + size1 > t->cap)
		return;
	memmove(t->buf + m1 + d, t->buf + m1, keep);
	if (d < 0)
		memset(t->buf + m1 + size1 + d, 0, -d);
	grow16(t, e->moff[0], d);
	e->moff[1] += d;
	w16(t, e->moff[1], size1 - d);
}

static void mut_match_pair(struct table *t, struct rng *r)
{
	unsigned int i;

	for (i = 0; i < 10; i++) {
		struct ment *e = any_entry(t, r);

		if (e->nm < 2)
			continue;
		move_match(t, e, chance(r, 60) ? 4 : (chance(r, 50) ? 8 : -8));
		return;
	}
}

static void mut_flip(struct table *t, struct rng *r)
{
	if (t->hdr.size)
		t->buf[below(r, t->hdr.size)] ^= 1 << below(r, 8);
}

/* Bytes the checks never look at; the answer must not change. */
static void mut_dontcare(struct table *t, struct rng *r)
{
	struct ment *e = any_entry(t, r);

	switch (below(r, 3)) {
	case 0:
		junk(r, t, e->off + t->f->o_cnt, 16, true);
		break;
	case 1:
		junk(r, t, e->off + t->f->o_cf, 4, true);
		break;
	default:
		junk(r, t, e->off + t->f->o_nfcache, 4, true);
		break;
	}
}

static void mut_policy(struct table *t, struct rng *r)
{
	static const int v[] = {
		XT_RETURN, -NF_QUEUE - 1, -NF_ACCEPT - 1, -NF_DROP - 1,
	};
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		struct ment *e = &t->e[i];

		if (e->tk != T_POLICY || !chance(r, 40))
			continue;
		w32(t, e->to + sizeof(struct xt_entry_target),
		    chance(r, 80) ? v[below(r, ARRAY_SIZE(v))] :
		    (int)t->chain_first[below(r, t->nchains)]);
		return;
	}
}

struct mutation {
	const char *name;
	void (*fn)(struct table *t, struct rng *r);
	unsigned int weight;
};

static const struct mutation mutations[] = {
	{ "size", mut_size, 4 },
	{ "num_entries", mut_num, 3 },
	{ "valid_hooks", mut_valid_hooks, 3 },
	{ "hooks", mut_hooks, 5 },
	{ "next_offset", mut_next, 5 },
	{ "target_offset", mut_target_offset, 5 },
	{ "verdict", mut_verdict, 8 },
	{ "loop", mut_loop, 5 },
	{ "match_size", mut_match_size, 4 },
	{ "match_name", mut_match_name, 4 },
	{ "revision", mut_revision, 3 },
	{ "target_name", mut_target_name, 4 },
	{ "target_size", mut_target_size, 4 },
	{ "ip_flags", mut_ip_flags, 5 },
	{ "proto", mut_proto, 5 },
	{ "ext_invflags", mut_ext_invflags, 4 },
	{ "errorname", mut_errorname, 2 },
	{ "unconditional", mut_unconditional, 3 },
	{ "shift", mut_shift, 3 },
	{ "grow_match", mut_grow_match, 3 },
	{ "grow_target", mut_grow_target, 3 },
	{ "match_pair", mut_match_pair, 2 },
	{ "flip", mut_flip, 3 },
	{ "dontcare", mut_dontcare, 3 },
	{ "policy", mut_policy, 3 },
};

static void mutate(struct table *t, struct rng *r, char *log, size_t len)
{
	unsigned int total = 0, i, n;

	for (i = 0; i < ARRAY_SIZE(mutations); i++)
		total += mutations[i].weight;
	n = chance(r, 20) ? 0 : 1 + below(r, 3);
	log[0] = 0;
	while (n--) {
		unsigned int x = below(r, total);

		for (i = 0; x >= mutations[i].weight; i++)
			x -= mutations[i].weight;
		mutations[i].fn(t, r);
		snprintf(log + strlen(log), len - strlen(log), " %s",
			 mutations[i].name);
	}
}

/* ------------------------------------------------------------------ */
/* The kernel */

struct kernel {
	int sock4, sock6;
};

static int sock_of(const struct kernel *k, const struct tfam *f)
{
	return f == &fam4 ? k->sock4 : k->sock6;
}

static int get_info(const struct kernel *k, const struct tfam *f,
		    struct ipt_getinfo *info)
{
	socklen_t len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	strcpy(info->name, "filter");
	if (getsockopt(sock_of(k, f), f->level, f->so_info, info, &len))
		return -errno;
	return 0;
}

static int kernel_replace(const struct kernel *k, const struct table *t)
{
	const struct tfam *f = t->f;
	struct ipt_getinfo info;
	struct xt_counters *counters;
	struct ipt_replace *repl;
	size_t len = sizeof(*repl) + t->hdr.size;
	int ret;

	ret = get_info(k, f, &info);
	if (ret)
		return ret;
	repl = malloc(len);
	counters = calloc(info.num_entries + 1, sizeof(*counters));
	if (!repl || !counters)
		abort();
	*repl = t->hdr;
	repl->num_counters = info.num_entries;
	repl->counters = counters;
	memcpy(repl->entries, t->buf, t->hdr.size);
	ret = setsockopt(sock_of(k, f), f->level, f->so_replace, repl, len);
	ret = ret ? -errno : 0;
	free(repl);
	free(counters);
	return ret;
}

static unsigned char *kernel_entries(const struct kernel *k,
				     const struct tfam *f, unsigned int size)
{
	struct ipt_get_entries *get;
	socklen_t len = sizeof(*get) + size;
	unsigned char *copy;

	get = calloc(1, len);
	copy = malloc(size ? size : 1);
	if (!get || !copy)
		abort();
	strcpy(get->name, "filter");
	get->size = size;
	if (getsockopt(sock_of(k, f), f->level, f->so_entries, get, &len)) {
		perror("GET_ENTRIES");
		free(get);
		free(copy);
		return NULL;
	}
	memcpy(copy, get->entrytable, size);
	free(get);
	return copy;
}

/* ------------------------------------------------------------------ */
/* Comparing */

struct stats {
	unsigned long iters, ok, fallback, mismatch, compared_bytes;
	unsigned long err[256];
};

static void hexdump(const char *what, const unsigned char *p,
		    unsigned int len, const unsigned char *other)
{
	unsigned int i, j;

	printf("  %s (%u bytes):\n", what, len);
	for (i = 0; i < len; i += 16) {
		bool differs = false;

		for (j = i; j < i + 16 && j < len; j++)
			if (other && p[j] != other[j])
				differs = true;
		printf("  %c%05x:", differs ? '*' : ' ', i);
		for (j = i; j < i + 16 && j < len; j++)
			printf(" %02x", p[j]);
		printf("\n");
	}
}

static void dump_hdr(const struct ipt_replace *h)
{
	unsigned int i;

	printf("  valid_hooks %#x num_entries %u size %u\n", h->valid_hooks,
	       h->num_entries, h->size);
	for (i = 0; i < NF_INET_NUMHOOKS; i++)
		printf("  hook %u: entry %#x underflow %#x\n", i,
		       h->hook_entry[i], h->underflow[i]);
}

/* Up to four at once in one printf() */
static const char *err_name(int e)
{
	static char bufs[4][32];
	static unsigned int next;
	char *buf = bufs[next++ % 4];

	if (e == BF_FALLBACK)
		return "FALLBACK";
	if (e == 0)
		return "0";
	snprintf(buf, sizeof(bufs[0]), "-%s", strerrorname_np(-e) ?: "?");
	return buf;
}

static unsigned int printed;

/* One blob: returns false on a mismatch. */
static bool check_one(const struct kernel *k, const struct table *t,
		      const char *label, struct stats *st, int *result)
{
	const struct tfam *f = t->f;
	unsigned int size = t->hdr.size;
	struct bf_table_info info;
	unsigned char *mine, *theirs;
	int ret, kret;
	bool good = true;

	st->iters++;
	mine = malloc(size ? size : 1);
	if (!mine)
		abort();
	memcpy(mine, t->buf, size);
	ret = bf_validate(f->nfproto, &t->hdr, mine, &info);
	*result = ret;
	if (ret == BF_FALLBACK) {
		st->fallback++;
		free(mine);
		return true;
	}
	/* What the caller adds, as __do_replace() does after translate. */
	if (ret == 0 && t->hdr.valid_hooks != FILTER_HOOKS)
		ret = -EINVAL;

	kret = kernel_replace(k, t);
	if (kret != ret) {
		good = false;
		printf("MISMATCH %s: bf_validate %s, kernel %s\n", label,
		       err_name(ret), err_name(kret));
	} else if (ret == 0) {
		struct ipt_getinfo ki;

		st->ok++;
		if (get_info(k, f, &ki) ||
		    memcmp(ki.hook_entry, info.hook_entry,
			   sizeof(ki.hook_entry)) ||
		    memcmp(ki.underflow, info.underflow,
			   sizeof(ki.underflow)) ||
		    ki.num_entries != info.number || ki.size != info.size ||
		    ki.valid_hooks != info.valid_hooks) {
			good = false;
			printf("MISMATCH %s: table info differs\n", label);
		}
		theirs = kernel_entries(k, f, size);
		if (!theirs || memcmp(theirs, mine, size)) {
			good = false;
			printf("MISMATCH %s: entries differ\n", label);
			if (theirs && printed < 5) {
				hexdump("kernel", theirs, size, mine);
				hexdump("bf_validate", mine, size, theirs);
			}
		}
		st->compared_bytes += size;
		free(theirs);
	} else {
		st->err[-ret & 0xff]++;
	}
	if (!good) {
		st->mismatch++;
		if (printed++ < 5) {
			dump_hdr(&t->hdr);
			hexdump("blob", t->buf, size, NULL);
		}
	}
	free(mine);
	return good;
}

/* ------------------------------------------------------------------ */
/* Hand-written cases */

struct tcase {
	const char *name;
	int expect;
	void (*edit)(struct table *t);
};

static void rule(struct plan *p, int chain, __u16 proto, enum tkind tk,
		 int jump, int nm, enum mtype m0, enum mtype m1)
{
	struct prule *pr = &p->r[chain][p->nrules[chain]++];

	memset(pr, 0, sizeof(*pr));
	pr->proto = proto;
	pr->tk = tk;
	pr->jump = jump;
	pr->nm = nm;
	pr->mt[0] = m0;
	pr->mt[1] = m1;
}

/*
 * A fixed table. INPUT: tcp -j chain0, udp+comment ACCEPT, icmp DROP;
 * FORWARD: -g chain1; OUTPUT: a jump to the next rule; chain0: comment
 * -j chain1, udp RETURN; chain1: tcp DROP. Policies ACCEPT.
 */
static void base_table(struct table *t, const struct tfam *f)
{
	struct plan p;
	struct rng r;

	rng_init(&r, 1, f->nfproto, 0);
	memset(&p, 0, sizeof(p));
	p.nuser = 2;
	rule(&p, 0, IPPROTO_TCP, T_JUMP, 3, 1, M_TCP, 0);
	rule(&p, 0, IPPROTO_UDP, T_ACCEPT, 0, 2, M_UDP, M_COMMENT);
	rule(&p, 0, f->icmp_proto, T_DROP, 0, 1, M_ICMP, 0);
	rule(&p, 1, 0, T_GOTO, 4, 0, 0, 0);
	rule(&p, 2, 0, T_NEXT, 0, 0, 0, 0);
	rule(&p, 3, 0, T_JUMP, 4, 1, M_COMMENT, 0);
	rule(&p, 3, IPPROTO_UDP, T_RETURN, 0, 0, 0, 0);
	rule(&p, 4, IPPROTO_TCP, T_DROP, 0, 1, M_TCP, 0);
	p.policy[0] = p.policy[1] = p.policy[2] = -NF_ACCEPT - 1;
	build(t, f, &r, &p);
}

static struct ment *first_of(struct table *t, enum tkind tk, int chain)
{
	unsigned int i;

	for (i = 0; i < t->n; i++)
		if (t->e[i].tk == tk && (chain < 0 || t->e[i].chain == chain))
			return &t->e[i];
	return NULL;
}

static void set_verdict(struct table *t, struct ment *e, int v)
{
	w32(t, e->to + sizeof(struct xt_entry_target), v);
}

static void ed_none(struct table *t)
{
}

static void ed_truncated(struct table *t)
{
	t->hdr.size -= 8;
}

static void ed_truncated_at_entry(struct table *t)
{
	t->hdr.size = t->e[t->n - 1].off;
}

static void ed_misaligned(struct table *t)
{
	struct ment *e = first_of(t, T_HEAD, -1);
	unsigned int end = e->off + e->size;

	/* An ERROR target may leave room; the next entry lands at +4. */
	memmove(t->buf + end + 4, t->buf + end, t->hdr.size - end);
	t->hdr.size += 4;
	w16(t, e->off + t->f->o_no, e->size + 4);
}

static void ed_next_zero(struct table *t)
{
	w16(t, t->e[1].off + t->f->o_no, 0);
}

static void ed_next_past_end(struct table *t)
{
	struct ment *e = &t->e[t->n - 1];

	w16(t, e->off + t->f->o_no, e->size + 8);
}

static void ed_target_offset(struct table *t)
{
	w16(t, t->e[0].off + t->f->o_to, t->f->esize - 8);
}

static void ed_target_past_next(struct table *t)
{
	w16(t, t->e[0].off + t->f->o_to, t->e[0].size - 8);
}

static void ed_hook_mid_entry(struct table *t)
{
	t->hdr.hook_entry[NF_INET_FORWARD] += 8;
}

static void ed_underflow_conditional(struct table *t)
{
	t->hdr.underflow[NF_INET_LOCAL_IN] = t->e[0].off;
}

static void ed_underflow_return(struct table *t)
{
	set_verdict(t, first_of(t, T_POLICY, 0), XT_RETURN);
}

static void ed_hooks_unsorted(struct table *t)
{
	unsigned int v = t->hdr.hook_entry[NF_INET_FORWARD];

	t->hdr.hook_entry[NF_INET_FORWARD] =
		t->hdr.hook_entry[NF_INET_LOCAL_OUT];
	t->hdr.hook_entry[NF_INET_LOCAL_OUT] = v;
}

static void ed_loop(struct table *t)
{
	/* chain1's RETURN jumps back to chain0 */
	set_verdict(t, first_of(t, T_TAIL, 4), t->chain_first[3]);
}

static void ed_self_loop(struct table *t)
{
	struct ment *e = first_of(t, T_TAIL, 3);

	set_verdict(t, e, e->off);
}

static void ed_jump_mid(struct table *t)
{
	set_verdict(t, &t->e[0], t->chain_head[3] + 8);
}

static void ed_jump_mid_rule(struct table *t)
{
	struct ment *e = first_of(t, T_TAIL, 3);

	set_verdict(t, e, t->chain_first[4] + 8);
}

static void ed_jump_past_end(struct table *t)
{
	set_verdict(t, first_of(t, T_TAIL, 3), t->hdr.size);
}

/*
 * chain1's rule jumps to OUTPUT, whose policy returns to it: the entry
 * after the rule is where the walk goes on, and the blob ends there.
 */
static void ed_return_past_end(struct table *t)
{
	struct ment *e = first_of(t, T_DROP, 4);

	set_verdict(t, e, t->chain_first[2]);
	t->hdr.size = e->off + e->size;
	t->hdr.num_entries -= 2;
}

/* Matches that tile but are not aligned; then a loop, checked later. */
static void ed_misaligned_match(struct table *t)
{
	move_match(t, &t->e[1], 4);
	ed_loop(t);
}

/* Room after a standard target, all offsets kept right. */
static void ed_standard_gap(struct table *t)
{
	struct ment *e = first_of(t, T_DROP, 4);

	if (insert_bytes(t, e->off + e->size, 8))
		grow16(t, e->off + t->f->o_no, 8);
}

/* Room after an ERROR target is allowed, and not given back. */
static void ed_error_gap(struct table *t)
{
	struct ment *e = first_of(t, T_HEAD, 4);

	if (insert_bytes(t, e->off + e->size, 8)) {
		grow16(t, e->off + t->f->o_no, 8);
		memset(t->buf + e->off + e->size, 0xee, 8);
	}
}

static void ed_bad_verdict(struct table *t)
{
	set_verdict(t, first_of(t, T_TAIL, 3), -NF_STOLEN - 1);
}

static void ed_num_more(struct table *t)
{
	t->hdr.num_entries++;
}

static void ed_num_less(struct table *t)
{
	t->hdr.num_entries--;
}

static void ed_num_huge(struct table *t)
{
	t->hdr.num_entries = 0xFFFFFFFF;
}

static void ed_valid_hooks(struct table *t)
{
	t->hdr.valid_hooks |= 1 << NF_INET_POST_ROUTING;
}

/* Not a hook translate_table() looks at: only __do_replace() objects. */
static void ed_valid_hooks_high(struct table *t)
{
	t->hdr.valid_hooks |= 1 << NF_INET_NUMHOOKS;
}

/* INPUT's first rule and its tcp match */
static unsigned int tcp_match(struct table *t)
{
	return t->e[0].moff[0];
}

static void ed_tcp_wrong_proto(struct table *t)
{
	w16(t, t->e[0].off + t->f->o_proto, IPPROTO_ICMP);
}

static void ed_tcp_inv_proto(struct table *t)
{
	w8(t, t->e[0].off + t->f->o_invflags, t->f->inv_proto);
}

static void bad_tcp_invflags(struct table *t, unsigned int mo)
{
	w8(t, mo + sizeof(struct xt_entry_match) +
	   offsetof(struct xt_tcp, invflags), 0x80);
}

static void ed_tcp_invflags(struct table *t)
{
	bad_tcp_invflags(t, tcp_match(t));
}

static void ed_match_size(struct table *t)
{
	wname(t, tcp_match(t), "comment", 7);
}

static void ed_match_tiling(struct table *t)
{
	w16(t, tcp_match(t), r16(t, tcp_match(t)) - 8);
}

static void ed_name_unterminated(struct table *t)
{
	memset(t->buf + tcp_match(t) + 2, 'z', XT_EXTENSION_MAXNAMELEN);
}

static void ed_unknown_match(struct table *t)
{
	wname(t, tcp_match(t), "limit", 5);
}

static void ed_unknown_revision(struct table *t)
{
	w8(t, tcp_match(t) + 2 + XT_EXTENSION_MAXNAMELEN, 1);
}

static void ed_unknown_target(struct table *t)
{
	wname(t, t->e[0].to, "NFLOG", 5);
}

/* ip_tables stops at the first extension it cannot check. */
static void ed_unknown_then_bad(struct table *t)
{
	struct ment *e = first_of(t, T_DROP, 4);

	wname(t, t->e[0].to, "NFLOG", 5);
	bad_tcp_invflags(t, e->moff[0]);
}

static void ed_bad_then_unknown(struct table *t)
{
	struct ment *e = first_of(t, T_DROP, 4);

	bad_tcp_invflags(t, tcp_match(t));
	wname(t, e->to, "NFLOG", 5);
}

/* The target of @e, an INPUT rule or one of a chain it reaches, REJECT. */
static void reject_with(struct table *t, struct ment *e, __u32 v4, __u32 v6)
{
	wname(t, e->to, "REJECT", 6);
	w32(t, e->to + sizeof(struct xt_entry_target),
	    t->f->nfproto == NFPROTO_IPV6 ? v6 : v4);
}

static void ed_reject_port(struct table *t)
{
	reject_with(t, &t->e[2], IPT_ICMP_PORT_UNREACHABLE,
		    IP6T_ICMP6_PORT_UNREACH);
}

static void ed_reject_reset_not_tcp(struct table *t)
{
	reject_with(t, &t->e[2], IPT_TCP_RESET, IP6T_TCP_RESET);
}

static void ed_reject_reset_tcp(struct table *t)
{
	reject_with(t, first_of(t, T_DROP, 4), IPT_TCP_RESET, IP6T_TCP_RESET);
}

static void ed_reject_echo_reply(struct table *t)
{
	reject_with(t, &t->e[2], IPT_ICMP_ECHOREPLY, IP6T_ICMP6_ECHOREPLY);
}

static void ed_error_unterminated(struct table *t)
{
	struct ment *e = first_of(t, T_HEAD, -1);

	memset(t->buf + e->to + sizeof(struct xt_entry_target), 'x',
	       XT_FUNCTION_MAXNAMELEN);
}

static void ed_junk(struct table *t)
{
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		struct ment *e = &t->e[i];

		w32(t, e->off + t->f->o_cf, 0xdeadbeef);
		memset(t->buf + e->off + t->f->o_cnt, 0x5a, 16);
		w8(t, e->to + 2 + XT_EXTENSION_MAXNAMELEN - 1, 'q');
	}
}

static const struct tcase cases[] = {
	{ "valid", 0, ed_none },
	{ "valid-junk-in-ignored-bytes", 0, ed_junk },
	{ "truncated-blob", -EINVAL, ed_truncated },
	{ "truncated-at-entry", -EINVAL, ed_truncated_at_entry },
	{ "misaligned-entry", -EINVAL, ed_misaligned },
	{ "next-offset-zero", -EINVAL, ed_next_zero },
	{ "next-offset-past-end", -EINVAL, ed_next_past_end },
	{ "target-offset-in-header", -EINVAL, ed_target_offset },
	{ "target-offset-past-next", -EINVAL, ed_target_past_next },
	{ "hook-entry-not-at-entry", -EINVAL, ed_hook_mid_entry },
	{ "underflow-conditional", -EINVAL, ed_underflow_conditional },
	{ "underflow-not-accept-drop", -EINVAL, ed_underflow_return },
	{ "hooks-unsorted", -EINVAL, ed_hooks_unsorted },
	{ "loop", -ELOOP, ed_loop },
	{ "self-loop", -ELOOP, ed_self_loop },
	{ "jump-into-middle-of-rule", -ELOOP, ed_jump_mid_rule },
	{ "jump-into-middle-of-head", -ELOOP, ed_jump_mid },
	{ "jump-past-end", -ELOOP, ed_jump_past_end },
	{ "bad-verdict", -EINVAL, ed_bad_verdict },
	{ "standard-target-gap", -EINVAL, ed_standard_gap },
	{ "valid-error-target-gap", 0, ed_error_gap },
	{ "return-past-end", -ELOOP, ed_return_past_end },
	{ "misaligned-match", -EINVAL, ed_misaligned_match },
	{ "num-entries-more", -EINVAL, ed_num_more },
	{ "num-entries-less", -EINVAL, ed_num_less },
	{ "num-entries-huge", -ENOMEM, ed_num_huge },
	{ "valid-hooks-postrouting", -EINVAL, ed_valid_hooks },
	{ "valid-hooks-extra-bit", 0, ed_valid_hooks_high },
	{ "tcp-wrong-proto", -EINVAL, ed_tcp_wrong_proto },
	{ "tcp-inverted-proto", -EINVAL, ed_tcp_inv_proto },
	{ "tcp-bad-invflags", -EINVAL, ed_tcp_invflags },
	{ "match-size-for-extension", -EINVAL, ed_match_size },
	{ "match-sizes-not-tiling", -EINVAL, ed_match_tiling },
	{ "match-name-unterminated", -EINVAL, ed_name_unterminated },
	{ "error-name-unterminated", -EINVAL, ed_error_unterminated },
	{ "unknown-match-fallback", BF_FALLBACK, ed_unknown_match },
	{ "unknown-revision-fallback", BF_FALLBACK, ed_unknown_revision },
	{ "unknown-target-fallback", BF_FALLBACK, ed_unknown_target },
	{ "unknown-then-bad-fallback", BF_FALLBACK, ed_unknown_then_bad },
	{ "bad-then-unknown", -EINVAL, ed_bad_then_unknown },
	{ "reject-port-unreachable", 0, ed_reject_port },
	{ "reject-tcp-reset-on-tcp", 0, ed_reject_reset_tcp },
	{ "reject-tcp-reset-not-tcp", -EINVAL, ed_reject_reset_not_tcp },
	{ "reject-echo-reply", -EINVAL, ed_reject_echo_reply },
};

static bool run_cases(const struct kernel *k, const struct tfam *f,
		      struct stats *st)
{
	bool all = true;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct table t;
		char label[96];
		int got;
		bool good;

		base_table(&t, f);
		cases[i].edit(&t);
		snprintf(label, sizeof(label), "%s case %s", f->name,
			 cases[i].name);
		good = check_one(k, &t, label, st, &got);
		if (got != cases[i].expect) {
			printf("FAIL %s: bf_validate %s, expected %s\n", label,
			       err_name(got), err_name(cases[i].expect));
			good = false;
		}
		printf("%s %s\n", good ? "ok" : "not ok", label);
		all &= good;
		free(t.buf);
	}
	return all;
}

/* ------------------------------------------------------------------ */
/* bf_revision() against IPT_SO_GET_REVISION_MATCH and _TARGET */

static int kernel_revision(const struct kernel *k, const struct tfam *f,
			   const char *name, __u8 rev, bool target)
{
	struct xt_get_revision req;
	socklen_t len = sizeof(req);
	int opt, ret;

	if (f == &fam4)
		opt = target ? IPT_SO_GET_REVISION_TARGET :
			       IPT_SO_GET_REVISION_MATCH;
	else
		opt = target ? IP6T_SO_GET_REVISION_TARGET :
			       IP6T_SO_GET_REVISION_MATCH;
	memset(&req, 0, sizeof(req));
	snprintf(req.name, sizeof(req.name), "%s", name);
	req.revision = rev;
	/* The best revision comes back as getsockopt()'s own result. */
	ret = getsockopt(sock_of(k, f), f->level, opt, &req, &len);
	return ret < 0 ? -errno : ret;
}

static bool run_revisions(const struct kernel *k, const struct tfam *f,
			  unsigned long *served, unsigned long *fallback)
{
	static const char *const names[] = {
		"", "ERROR", "tcp", "udp", "icmp", "icmp6", "comment", "limit",
		"NFLOG", "udplite", "nosuchthing",
	};
	static const __u8 revs[] = { 0, 1, 2, 255 };
	unsigned int n, v, tg;
	bool all = true;

	for (n = 0; n < ARRAY_SIZE(names); n++)
		for (v = 0; v < ARRAY_SIZE(revs); v++)
			for (tg = 0; tg < 2; tg++) {
				int mine, theirs;

				mine = bf_revision(f->nfproto, names[n],
						   revs[v], tg);
				if (mine == BF_FALLBACK) {
					(*fallback)++;
					continue;
				}
				(*served)++;
				theirs = kernel_revision(k, f, names[n],
							 revs[v], tg);
				if (mine == theirs)
					continue;
				all = false;
				printf("MISMATCH %s revision \"%s\" %u %s: bf_revision %d, kernel %d\n",
				       f->name, names[n], revs[v],
				       tg ? "target" : "match", mine, theirs);
			}
	return all;
}

/* ------------------------------------------------------------------ */

static bool run_random(const struct kernel *k, const struct tfam *f,
		       __u64 seed, __u64 start, __u64 iters, struct stats *st)
{
	bool all = true;
	__u64 i;

	for (i = start; i < start + iters; i++) {
		struct table t;
		struct rng r;
		char log[256], label[384];
		int got;

		rng_init(&r, seed, f->nfproto, i);
		generate(&t, f, &r);
		mutate(&t, &r, log, sizeof(log));
		snprintf(label, sizeof(label),
			 "%s seed %llu iteration %llu (mutations:%s; replay: validate_diff 1 %llu %llu %c)",
			 f->name, (unsigned long long)seed,
			 (unsigned long long)i, log[0] ? log : " none",
			 (unsigned long long)seed, (unsigned long long)i,
			 f == &fam4 ? '4' : '6');
		all &= check_one(k, &t, label, st, &got);
		free(t.buf);
	}
	return all;
}

static void report(const struct tfam *f, const char *what,
		   const struct stats *st)
{
	unsigned int e;

	printf("%s %s: %lu blobs, %lu accepted (%lu bytes compared), %lu fallbacks, %lu mismatches; errors:",
	       f->name, what, st->iters, st->ok, st->compared_bytes,
	       st->fallback, st->mismatch);
	for (e = 1; e < 256; e++)
		if (st->err[e])
			printf(" %s=%lu", strerrorname_np(e) ?: "?",
			       st->err[e]);
	printf("\n");
}

int main(int argc, char **argv)
{
	const struct tfam *fams[] = { &fam4, &fam6 };
	unsigned long passed = 0, failed = 0;
	__u64 iters, seed, start = 0;
	struct kernel k;
	struct ipt_getinfo info;
	unsigned int i;
	int only = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: %s ITERATIONS SEED [START [4|6]]\n",
			argv[0]);
		return 2;
	}
	iters = strtoull(argv[1], NULL, 0);
	seed = strtoull(argv[2], NULL, 0);
	if (argc > 3)
		start = strtoull(argv[3], NULL, 0);
	if (argc > 4)
		only = atoi(argv[4]);

	/* Never touch the host's own tables: a namespace or nothing. */
	if (unshare(CLONE_NEWNET)) {
		perror("unshare(CLONE_NEWNET)");
		fprintf(stderr, "refusing to run outside a new network namespace\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	k.sock4 = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	k.sock6 = socket(AF_INET6, SOCK_RAW, IPPROTO_RAW);
	if (k.sock4 < 0 || k.sock6 < 0) {
		perror("socket");
		return 2;
	}

	for (i = 0; i < ARRAY_SIZE(fams); i++) {
		const struct tfam *f = fams[i];
		struct stats cs = { 0 }, rs = { 0 };
		unsigned long served = 0, fb = 0;
		struct timespec t0, t1;
		int ret;

		if (only && only != (f == &fam4 ? 4 : 6))
			continue;
		ret = get_info(&k, f, &info);
		if (ret || info.valid_hooks != FILTER_HOOKS) {
			fprintf(stderr, "%s: no filter table (%s)\n", f->name,
				err_name(ret));
			return 2;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (!only) {
			if (run_cases(&k, f, &cs))
				passed++;
			else
				failed++;
			report(f, "cases", &cs);
			if (run_revisions(&k, f, &served, &fb))
				passed++;
			else
				failed++;
			printf("%s revisions: %lu compared, %lu fallbacks\n",
			       f->name, served, fb);
		}
		if (run_random(&k, f, seed, start, iters, &rs))
			passed++;
		else
			failed++;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		report(f, "random", &rs);
		printf("%s: %.1f s\n", f->name, (t1.tv_sec - t0.tv_sec) +
		       (t1.tv_nsec - t0.tv_nsec) / 1e9);
	}
	printf("validate_diff: %lu passed, %lu failed\n", passed, failed);
	return failed ? 1 : 0;
}
