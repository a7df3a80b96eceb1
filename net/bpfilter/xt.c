// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own xt matches and targets, checked and run for the
 * helper's programs: the bridge by which bpfilter serves every extension
 * the kernel has, not only those the helper compiles.
 *
 * When a table uses a match or a target the helper does not compile, the
 * module checks it as ip_tables' find_check_entry() would, in a copy of
 * its entry that the table owns: the same xt_mtchk_param and
 * xt_tgchk_param, so the same errno, and whatever private state checkentry
 * allocates (limit's bucket, recent's table, hashlimit's hash, CT's
 * template) lives as long as the table. The program then calls
 * bpfilter_xt_match() or bpfilter_xt_target() with the index of the match
 * or target among the table's instances.
 *
 * The helper says which entries need the kernel and with which hook mask;
 * it runs without privileges on what user space sent, so nothing it says
 * is trusted to be safe: each entry is checked again with
 * xt_check_entry_offsets(), and a match runs only at a hook it was
 * checked for.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "bpfilter.h"

/**
 * struct bpfilter_xt_inst - a checked match or target the programs may run
 * @match: the kernel's match, held (module reference) until destroyed
 * @target: or the kernel's target, likewise
 * @data: its data, in the table's copy of its entry
 * @hook_mask: the hooks it was checked for
 * @proto: IPv6: its entry has -p, so ip6t_do_table() gives it the
 *	transport header's offset (0 otherwise)
 */
struct bpfilter_xt_inst {
	union {
		struct xt_match *match;
		struct xt_target *target;
	};
	void *data;
	unsigned int hook_mask;
	bool proto;
};

/**
 * struct bpfilter_xt - the kernel's matches and targets of a table
 * @net: the namespace they were checked in
 * @pf: NFPROTO_IPV4 or NFPROTO_IPV6
 * @n: the number of checked matches in @m
 * @nt: the number of checked targets in @t
 * @nentries: the number of entries in @entry
 * @entry: the copies of the entries, with kernel pointers, each one's
 *	offset in the table and whether its target is the kernel's
 * @t: the targets of those entries that have one, in order
 * @m: the matches of those entries, in order
 */
struct bpfilter_xt {
	struct net *net;
	u8 pf;
	unsigned int n;
	unsigned int nt;
	unsigned int nentries;
	struct {
		void *e;
		unsigned int off;
		bool target;
	} *entry;
	struct bpfilter_xt_inst *t;
	struct bpfilter_xt_inst m[] __counted_by(n);
};

/* Where the matches of an entry are, in either family's layout. */
struct bpfilter_xt_layout {
	size_t size;		/* sizeof(struct ipt_entry) or ip6t_entry */
	size_t elems;		/* offsetof(..., elems) */
	size_t target_offset;
	size_t next_offset;
	size_t comefrom;
};

static const struct bpfilter_xt_layout bpfilter_xt_layout[BPFILTER_NFAMILIES] = {
	[BPFILTER_IPV4] = {
		sizeof(struct ipt_entry), offsetof(struct ipt_entry, elems),
		offsetof(struct ipt_entry, target_offset),
		offsetof(struct ipt_entry, next_offset),
		offsetof(struct ipt_entry, comefrom),
	},
	[BPFILTER_IPV6] = {
		sizeof(struct ip6t_entry), offsetof(struct ip6t_entry, elems),
		offsetof(struct ip6t_entry, target_offset),
		offsetof(struct ip6t_entry, next_offset),
		offsetof(struct ip6t_entry, comefrom),
	},
};

static u16 bpfilter_xt_u16(const void *e, size_t off)
{
	return *(const u16 *)(e + off);
}

/*
 * The matches of entry @e, from its elems to its target: the first, the
 * one after @m, and the end.
 */
static void *bpfilter_xt_first(const void *e,
			       const struct bpfilter_xt_layout *lay)
{
	return (void *)e + lay->elems;
}

static void *bpfilter_xt_next(const void *m)
{
	return (void *)m + ((const struct xt_entry_match *)m)->u.match_size;
}

static void *bpfilter_xt_end(const void *e,
			     const struct bpfilter_xt_layout *lay)
{
	return (void *)e + bpfilter_xt_u16(e, lay->target_offset);
}

/* cleanup_match() */
static void bpfilter_xt_cleanup(struct bpfilter_xt *xt,
				struct bpfilter_xt_inst *m)
{
	struct xt_mtdtor_param par = {
		.net = xt->net,
		.match = m->match,
		.matchinfo = m->data,
		.family = xt->pf,
	};

	if (par.match->destroy)
		par.match->destroy(&par);
	module_put(par.match->me);
}

/* The target's part of cleanup_entry() */
static void bpfilter_xt_cleanup_target(struct bpfilter_xt *xt,
				       struct bpfilter_xt_inst *t)
{
	struct xt_tgdtor_param par = {
		.net = xt->net,
		.target = t->target,
		.targinfo = t->data,
		.family = xt->pf,
	};

	if (par.target->destroy)
		par.target->destroy(&par);
	module_put(par.target->me);
}

/**
 * bpfilter_xt_destroy - what ip_tables' cleanup_entry() does for the
 *	matches and targets of a table
 * @xt: the matches and targets, or NULL
 *
 * Context: Process context; no program may run them any more (after
 * synchronize_net() if a hook could).
 */
void bpfilter_xt_destroy(struct bpfilter_xt *xt)
{
	unsigned int i;

	if (!xt)
		return;
	for (i = 0; i < xt->n; i++)
		bpfilter_xt_cleanup(xt, &xt->m[i]);
	for (i = 0; i < xt->nt; i++)
		bpfilter_xt_cleanup_target(xt, &xt->t[i]);
	for (i = 0; i < xt->nentries; i++)
		kfree(xt->entry[i].e);
	kvfree(xt->entry);
	kvfree(xt->t);
	kvfree(xt);
}

/*
 * -j QUEUE: a standard verdict the program cannot return (it returns
 * NF_ACCEPT or NF_DROP), so it runs as a target that gives what
 * ipt_do_table() makes of the verdict: NF_QUEUE to queue 0, no bypass.
 * Nothing registers it: ip_tables' standard target may not exist.
 */
static unsigned int bpfilter_queue_tg(struct sk_buff *skb,
				      const struct xt_action_param *par)
{
	return NF_QUEUE;
}

static struct xt_target bpfilter_queue_target __read_mostly = {
	.name = XT_STANDARD_TARGET,
	.targetsize = sizeof(int),
	.target = bpfilter_queue_tg,
	.me = THIS_MODULE,
};

/* The entry's target is -j QUEUE, in the size ip_tables takes it. */
static bool bpfilter_xt_queue(const struct xt_entry_target *et)
{
	const struct xt_standard_target *st = (const void *)et;

	return !strcmp(et->u.user.name, XT_STANDARD_TARGET) &&
	       !et->u.user.revision &&
	       et->u.target_size == XT_ALIGN(sizeof(*st)) &&
	       st->verdict == -NF_QUEUE - 1;
}

/*
 * check_target() of the entry's target, once its matches are checked,
 * with the xt_tgchk_param that find_check_entry() builds. The helper
 * lists no other standard target: one here is a protocol error (-EPROTO
 * and *@broken), as it has no function to run.
 */
static int bpfilter_xt_check_target(struct bpfilter_xt *xt, void *e,
				    const struct bpfilter_xt_layout *lay,
				    const char *table, u16 proto, bool inv,
				    bool *broken)
{
	struct xt_entry_target *et = bpfilter_xt_end(e, lay);
	struct bpfilter_xt_inst *t = &xt->t[xt->nt];
	struct xt_tgchk_param par = {
		.net = xt->net,
		.table = table,
		.entryinfo = e,
		.targinfo = et->data,
		.hook_mask = *(u32 *)(e + lay->comefrom),
		.family = xt->pf,
	};
	int err;

	if (strnlen(et->u.user.name, sizeof(et->u.user.name)) ==
	    sizeof(et->u.user.name))
		return -EINVAL;
	if (bpfilter_xt_queue(et)) {
		/* Put by bpfilter_xt_cleanup_target() as any target. */
		__module_get(THIS_MODULE);
		t->target = &bpfilter_queue_target;
		et->u.kernel.target = t->target;
		t->data = et->data;
		t->hook_mask = par.hook_mask;
		xt->nt++;
		return 0;
	}
	t->target = xt_request_find_target(xt->pf, et->u.user.name,
					   et->u.user.revision);
	if (IS_ERR(t->target))
		return PTR_ERR(t->target);
	if (!t->target->target) {
		module_put(t->target->me);
		*broken = true;
		return -EPROTO;
	}
	et->u.kernel.target = t->target;
	par.target = t->target;
	err = xt_check_target(&par, et->u.target_size - sizeof(*et), proto,
			      inv);
	if (err) {
		module_put(t->target->me);
		return err;
	}
	t->data = et->data;
	t->hook_mask = par.hook_mask;
	xt->nt++;
	return 0;
}

/*
 * find_check_match() for each match of an entry copy, in order, with the
 * xt_mtchk_param that find_check_entry() builds, then its target if it is
 * the kernel's.
 */
static int bpfilter_xt_check_entry(struct bpfilter_xt *xt, int family,
				   const char *table, void *e, bool target,
				   unsigned int max, bool *broken)
{
	const struct bpfilter_xt_layout *lay = &bpfilter_xt_layout[family];
	struct xt_mtchk_param par = {
		.net = xt->net,
		.table = table,
		.entryinfo = e,
		.hook_mask = *(u32 *)(e + lay->comefrom),
		.family = xt->pf,
	};
	const struct ipt_ip *ip = e;
	const struct ip6t_ip6 *ip6 = e;
	struct xt_entry_match *em;
	struct bpfilter_xt_inst *m;
	bool inv, has_proto = false;
	u16 proto;
	int err;

	if (family == BPFILTER_IPV6) {
		proto = ip6->proto;
		inv = ip6->invflags & IP6T_INV_PROTO;
		has_proto = ip6->flags & IP6T_F_PROTO;
	} else {
		proto = ip->proto;
		inv = ip->invflags & IPT_INV_PROTO;
	}
	for (em = bpfilter_xt_first(e, lay); (void *)em < bpfilter_xt_end(e, lay);
	     em = bpfilter_xt_next(em)) {
		if (xt->n == max)
			return -EPROTO;
		if (strnlen(em->u.user.name, sizeof(em->u.user.name)) ==
		    sizeof(em->u.user.name))
			return -EINVAL;
		m = &xt->m[xt->n];
		m->match = xt_request_find_match(xt->pf, em->u.user.name,
						 em->u.user.revision);
		if (IS_ERR(m->match))
			return PTR_ERR(m->match);
		em->u.kernel.match = m->match;
		par.match = m->match;
		par.matchinfo = em->data;
		err = xt_check_match(&par, em->u.match_size - sizeof(*em),
				     proto, inv);
		if (err) {
			module_put(m->match->me);
			return err;
		}
		m->data = em->data;
		m->hook_mask = par.hook_mask;
		m->proto = has_proto;
		xt->n++;
	}
	if (!target)
		return 0;
	xt->t[xt->nt].proto = has_proto;
	return bpfilter_xt_check_target(xt, e, lay, table, proto, inv, broken);
}

/*
 * A copy of the entry at @off of the table, after the checks that make it
 * safe to walk (those of check_entry_size_and_hooks()), with @hook_mask as
 * its comefrom; a NUL after it keeps strcmp() of its last name inside.
 */
static void *bpfilter_xt_copy(const void *entries, unsigned int size,
			      int family, unsigned int off, u32 hook_mask)
{
	const struct bpfilter_xt_layout *lay = &bpfilter_xt_layout[family];
	const void *src = entries + off;
	unsigned int next;
	void *e;

	if (off % __alignof__(struct ip6t_entry) ||
	    size < lay->size || off > size - lay->size)
		return ERR_PTR(-EPROTO);
	next = bpfilter_xt_u16(src, lay->next_offset);
	if (next < lay->size || next > size - off ||
	    next % __alignof__(struct ip6t_entry))
		return ERR_PTR(-EPROTO);
	e = kmalloc(next + 1, GFP_KERNEL_ACCOUNT);
	if (!e)
		return ERR_PTR(-ENOMEM);
	memcpy(e, src, next);
	((char *)e)[next] = '\0';
	/* The helper checked it so: it is a protocol error if not. */
	if (xt_check_entry_offsets(e, e + lay->elems,
				   bpfilter_xt_u16(e, lay->target_offset),
				   next)) {
		kfree(e);
		return ERR_PTR(-EPROTO);
	}
	*(u32 *)(e + lay->comefrom) = hook_mask;
	return e;
}

/* The matches of an entry, at most. */
static unsigned int bpfilter_xt_count(const void *e, int family)
{
	const struct bpfilter_xt_layout *lay = &bpfilter_xt_layout[family];
	unsigned int n = 0;
	const void *m;

	for (m = bpfilter_xt_first(e, lay); m < bpfilter_xt_end(e, lay);
	     m = bpfilter_xt_next(m))
		n++;
	return n;
}

/**
 * bpfilter_xt_check - checks the kernel's matches and targets of a new
 *	table, as ip_tables' translate_table() does
 * @net: the table's namespace
 * @family: BPFILTER_IPV4 or BPFILTER_IPV6
 * @table: its name
 * @entries: its entries, as user space sent them
 * @size: their size
 * @chk: the helper's list of the entries to check
 * @len: the bytes of @chk and what follows it
 * @xtp: the checked matches and targets, for the table to own; NULL if
 *	none
 * @broken: set if the list is not one the helper can have made
 *
 * The entries are checked in order, each one's matches in order, then its
 * target if the helper says it is the kernel's; the first
 * error is returned, as ip_tables would return it, and everything checked
 * is undone. If the helper found an error in an entry after (or among
 * the native extensions of) the last entry listed, that is returned once
 * the listed ones are checked.
 *
 * Context: Process context; may load modules.
 * Return: 0 or a negative errno for the table; *@broken if the list is
 * not one the helper can have made (then -EPROTO).
 */
int bpfilter_xt_check(struct net *net, int family, const char *table,
		      const void *entries, unsigned int size,
		      const struct bpfilter_check *chk, size_t len,
		      struct bpfilter_xt **xtp, bool *broken)
{
	const struct bpfilter_check_entry *ce = (const void *)(chk + 1);
	const struct bpfilter_xt_layout *lay = &bpfilter_xt_layout[family];
	struct bpfilter_xt *xt = NULL;
	unsigned int i, n = 0, nt = 0, end = 0;
	void **copy;
	int err;

	*xtp = NULL;
	/* The helper's fault, not a lack of memory: it is restarted. */
	*broken = true;
	if (len < sizeof(*chk) || chk->reserved || chk->err > 0 ||
	    chk->err < -MAX_ERRNO ||
	    chk->nentries > (len - sizeof(*chk)) / sizeof(*ce) ||
	    len != sizeof(*chk) + chk->nentries * sizeof(*ce) ||
	    !chk->nentries)
		return -EPROTO;
	*broken = false;

	copy = kvcalloc(chk->nentries, sizeof(*copy), GFP_KERNEL_ACCOUNT);
	if (!copy)
		return -ENOMEM;
	for (i = 0; i < chk->nentries; i++) {
		/*
		 * Whole entries in order, none over another, so that the
		 * copies add up to the table at most. The hooks are checked
		 * as the helper found them (a table whose valid_hooks lie
		 * has others: ip_tables checks with them, then refuses the
		 * table); a match runs only at the hooks of its check.
		 */
		if (ce[i].offset < end || ce[i].reserved ||
		    ce[i].flags & ~BPFILTER_CHECK_TARGET ||
		    ce[i].hook_mask & ~((1 << NF_INET_NUMHOOKS) - 1)) {
			*broken = true;
			err = -EPROTO;
			goto out;
		}
		copy[i] = bpfilter_xt_copy(entries, size, family, ce[i].offset,
					   ce[i].hook_mask);
		if (IS_ERR(copy[i])) {
			err = PTR_ERR(copy[i]);
			*broken = err == -EPROTO;
			copy[i] = NULL;
			goto out;
		}
		end = ce[i].offset + bpfilter_xt_u16(copy[i], lay->next_offset);
		n += bpfilter_xt_count(copy[i], family);
		nt += !!(ce[i].flags & BPFILTER_CHECK_TARGET);
	}

	xt = kvzalloc(struct_size(xt, m, n), GFP_KERNEL_ACCOUNT);
	if (!xt) {
		err = -ENOMEM;
		goto out;
	}
	xt->entry = kvcalloc(chk->nentries, sizeof(*xt->entry),
			     GFP_KERNEL_ACCOUNT);
	xt->t = kvcalloc(nt, sizeof(*xt->t), GFP_KERNEL_ACCOUNT);
	if (!xt->entry || (nt && !xt->t)) {
		err = -ENOMEM;
		goto out;
	}
	xt->net = net;
	xt->pf = family == BPFILTER_IPV6 ? NFPROTO_IPV6 : NFPROTO_IPV4;
	for (i = 0; i < chk->nentries; i++) {
		/* The entry is the table's as soon as a match of it is. */
		xt->entry[i].e = copy[i];
		xt->entry[i].off = ce[i].offset;
		xt->entry[i].target = ce[i].flags & BPFILTER_CHECK_TARGET;
		copy[i] = NULL;
		xt->nentries++;
		err = bpfilter_xt_check_entry(xt, family, table,
					      xt->entry[i].e,
					      xt->entry[i].target, n, broken);
		if (err)
			goto out;
	}
	err = chk->err;
	if (!err)
		*xtp = xt;
out:
	if (err)
		bpfilter_xt_destroy(xt);
	for (i = 0; i < chk->nentries; i++)
		kfree(copy[i]);
	kvfree(copy);
	return err;
}

/**
 * bpfilter_xt_count_matches - the number of matches of @xt
 * @xt: checked matches, or NULL
 *
 * Return: what the helper's program may index.
 */
unsigned int bpfilter_xt_count_matches(const struct bpfilter_xt *xt)
{
	return xt ? xt->n : 0;
}

/**
 * bpfilter_xt_count_targets - the number of targets of @xt
 * @xt: checked matches and targets, or NULL
 *
 * Return: what the helper's program may index.
 */
unsigned int bpfilter_xt_count_targets(const struct bpfilter_xt *xt)
{
	return xt ? xt->nt : 0;
}

/* xt_data_to_user(): @keep bytes of the kernel's data, zeroes after them. */
static void bpfilter_xt_data_to_user(void *u, const void *k, size_t keep,
				     size_t size)
{
	if (keep > size)
		return;
	memcpy(u, k, keep);
	memset(u + keep, 0, size - keep);
}

/*
 * xt_match_to_user() of each checked match, xt_target_to_user() of each
 * checked target, over the helper's copy of the entries: what checkentry
 * wrote past the usersize is not the user's, and reads as zero.
 */
void bpfilter_xt_to_user(const struct bpfilter_xt *xt, void *entries,
			 unsigned int size)
{
	unsigned int i, j = 0, k = 0, off;
	const struct bpfilter_xt_layout *lay;
	const struct xt_entry_target *et;
	const struct xt_entry_match *em;
	const struct xt_target *t;
	const struct xt_match *m;
	void *e, *u;

	if (!xt)
		return;
	lay = &bpfilter_xt_layout[xt->pf == NFPROTO_IPV6 ? BPFILTER_IPV6 :
							  BPFILTER_IPV4];
	for (i = 0; i < xt->nentries; i++) {
		e = xt->entry[i].e;
		off = xt->entry[i].off;
		if (off + bpfilter_xt_u16(e, lay->next_offset) > size)
			return;
		u = entries + off;
		for (em = bpfilter_xt_first(e, lay);
		     (void *)em < bpfilter_xt_end(e, lay);
		     em = bpfilter_xt_next(em)) {
			m = xt->m[j++].match;
			bpfilter_xt_data_to_user(u + ((void *)em->data - e),
						 em->data,
						 m->usersize ?: m->matchsize,
						 em->u.match_size - sizeof(*em));
		}
		if (!xt->entry[i].target)
			continue;
		et = bpfilter_xt_end(e, lay);
		t = xt->t[k++].target;
		bpfilter_xt_data_to_user(u + ((void *)et->data - e), et->data,
					 t->usersize ?: t->targetsize,
					 et->u.target_size - sizeof(*et));
	}
}

/*
 * The table a program runs, for its calls into the module: set by
 * bpfilter_run() around the program, with BH off, so that it is the
 * running program's on this CPU until the program returns.
 */
static DEFINE_PER_CPU(struct bpfilter_frame *, bpfilter_frame);

/**
 * bpfilter_xt_enter - make @f the frame of the program about to run
 * @f: the frame, on the caller's stack
 *
 * Context: BH disabled, until bpfilter_xt_leave().
 * Return: the frame it hides, for bpfilter_xt_leave().
 */
struct bpfilter_frame *bpfilter_xt_enter(struct bpfilter_frame *f)
{
	struct bpfilter_frame *up = this_cpu_read(bpfilter_frame);

	this_cpu_write(bpfilter_frame, f);
	return up;
}

/**
 * bpfilter_xt_leave - the frame of the program that called ours again
 * @up: what bpfilter_xt_enter() returned
 */
void bpfilter_xt_leave(struct bpfilter_frame *up)
{
	this_cpu_write(bpfilter_frame, up);
}

/*
 * The offsets ipt_do_table() and ip6t_do_table() give an extension of the
 * instance @x: IPv4's are the packet's, IPv6's the program's (@off, as
 * bpfilter_xt_match() takes it), but only such as the packet can have.
 */
static bool bpfilter_xt_offsets(struct sk_buff *skb,
				const struct bpfilter_xt_inst *x, u64 off,
				struct xt_action_param *par)
{
	if (par->state->pf == NFPROTO_IPV4) {
		par->fragoff = ntohs(ip_hdr(skb)->frag_off) & IP_OFFSET;
		par->thoff = ip_hdrlen(skb);
		return true;
	}
	par->thoff = lower_32_bits(off);
	par->fragoff = upper_32_bits(off);
	return par->thoff <= skb->len && (x->proto || !par->thoff) &&
	       upper_32_bits(off) <= U16_MAX;
}

/*
 * A kfunc runs for the program of the frame only, on its packet, and not
 * after a target gave a verdict: that target may have freed the packet
 * (NF_STOLEN) and the program must return at once. The verifier does not
 * know that, so the module refuses whatever a program would call next.
 */
static bool bpfilter_xt_frame_ok(const struct bpfilter_frame *f,
				 const struct sk_buff *skb,
				 const struct nf_hook_state *state)
{
	return f && f->state == state && f->skb == skb && f->xt &&
	       f->verdict == NF_ACCEPT;
}

__bpf_kfunc_start_defs();

/**
 * bpfilter_xt_match - runs a checked match of the running table
 * @skb: the packet
 * @state: its hook state
 * @idx: the index of the match among the table's
 * @off: for IPv6, the transport header's offset, and in the upper 32 bits
 *	the fragment offset, as ip6t_do_table() has them for this rule;
 *	ignored for IPv4, whose are the packet's
 *
 * Return: 1 if the packet matches, 0 if not; 3 and 2 likewise if the match
 * wants the packet dropped (hotdrop): bit 0 the match, bit 1 the hotdrop.
 * A call out of a bpfilter_run() of the program's own table, at a hook
 * the match was not checked for, or with offsets ip6t_do_table() cannot
 * have, gets 2: no match, drop.
 */
__bpf_kfunc int bpfilter_xt_match(struct sk_buff *skb,
				  const struct nf_hook_state *state, u32 idx,
				  u64 off)
{
	const struct bpfilter_frame *f = this_cpu_read(bpfilter_frame);
	const struct bpfilter_xt_inst *m;
	struct xt_action_param par;
	bool match;

	if (!bpfilter_xt_frame_ok(f, skb, state) || idx >= f->xt->n)
		return 2;
	m = &f->xt->m[idx];
	if (!(m->hook_mask & (1 << state->hook)))
		return 2;
	par.match = m->match;
	par.matchinfo = m->data;
	par.state = state;
	par.hotdrop = false;
	if (!bpfilter_xt_offsets(skb, m, off, &par))
		return 2;
	match = m->match->match(skb, &par);
	return match | (par.hotdrop << 1);
}

/**
 * bpfilter_xt_target - runs a checked target of the running table
 * @skb: the packet
 * @state: its hook state
 * @idx: the index of the target among the table's
 * @off: as for bpfilter_xt_match()
 *
 * The target may change the packet (MARK, TCPMSS ...): the program reads
 * it again before the next rule, as ipt_do_table() reads the IP header
 * again after XT_CONTINUE.
 *
 * Return: 0 for XT_CONTINUE; 1 for any other verdict, which the program
 * stands for by returning NF_ACCEPT at once (see bpfilter_run()), without
 * touching the packet again; 2 for "drop": a call out of a bpfilter_run()
 * of the program's own table and packet, after a verdict, at a hook the
 * target was not checked for, or with offsets ip6t_do_table() cannot have.
 */
__bpf_kfunc int bpfilter_xt_target(struct sk_buff *skb,
				   const struct nf_hook_state *state, u32 idx,
				   u64 off)
{
	struct bpfilter_frame *f = this_cpu_read(bpfilter_frame);
	const struct bpfilter_xt_inst *t;
	struct xt_action_param par;
	unsigned int verdict;

	if (!bpfilter_xt_frame_ok(f, skb, state) || idx >= f->xt->nt)
		return 2;
	t = &f->xt->t[idx];
	if (!(t->hook_mask & (1 << state->hook)))
		return 2;
	par.target = t->target;
	par.targinfo = t->data;
	par.state = state;
	par.hotdrop = false;
	if (!bpfilter_xt_offsets(skb, t, off, &par))
		return 2;
	verdict = t->target->target(skb, &par);
	if (verdict == XT_CONTINUE)
		return 0;
	f->verdict = verdict;
	return 1;
}

/**
 * bpfilter_ipv6_find_hdr - finds an IPv6 packet's transport header
 * @skb: the packet
 *
 * What ip6_packet_match() has ipv6_find_hdr() find for each rule with
 * -p, found once for the packet, with the kernel's own walk of the
 * extension headers and its limit on their number: a program that
 * unrolled the walk would be some thousand instructions longer for the
 * verifier to go through at every replace.
 *
 * Return: the protocol in bits 0-7, the transport header's offset in
 * bits 8-39 and the fragment offset in bits 40-55; -1 if ipv6_find_hdr()
 * finds no protocol, or if @skb's network header is not at skb->data
 * (where the programs read it, and where the stack has it at every hook)
 * with the 40 bytes of an IPv6 header after it.
 */
__bpf_kfunc s64 bpfilter_ipv6_find_hdr(struct sk_buff *skb)
{
	unsigned int thoff = 0;
	unsigned short fragoff;
	int proto;

	if (skb_network_offset(skb) ||
	    skb_headlen(skb) < sizeof(struct ipv6hdr))
		return -1;
	proto = ipv6_find_hdr(skb, &thoff, -1, &fragoff, NULL);
	if (proto < 0)
		return -1;
	return proto | (u64)thoff << 8 | (u64)fragoff << 40;
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(bpfilter_kfunc_ids)
BTF_ID_FLAGS(func, bpfilter_xt_match)
BTF_ID_FLAGS(func, bpfilter_xt_target)
BTF_ID_FLAGS(func, bpfilter_ipv6_find_hdr)
BTF_KFUNCS_END(bpfilter_kfunc_ids)

/*
 * Only the helpers' programs may call the module: any other netfilter
 * program could run a table's matches and targets in bpfilter's name.
 * The verifier calls this only while a program loads, in the bpf() call,
 * so current is the loader. It is asked about every
 * netfilter kfunc of our BTF, vmlinux's own when bpfilter is built in:
 * those are not ours to refuse. It gates loading only: root can run a
 * helper's program with BPF_PROG_TEST_RUN, so the kfuncs check what
 * they are given all the same.
 */
static int bpfilter_kfunc_filter(const struct bpf_prog *prog, u32 kfunc_id)
{
	if (!btf_id_set8_contains(&bpfilter_kfunc_ids, kfunc_id))
		return 0;
	return bpfilter_is_helper() ? 0 : -EACCES;
}

static const struct btf_kfunc_id_set bpfilter_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &bpfilter_kfunc_ids,
	.filter = bpfilter_kfunc_filter,
};

/**
 * bpfilter_xt_init - makes the kfuncs known to netfilter programs
 *
 * Return: 0 or a negative errno.
 */
int bpfilter_xt_init(void)
{
	return register_btf_kfunc_id_set(BPF_PROG_TYPE_NETFILTER,
					 &bpfilter_kfunc_set);
}
