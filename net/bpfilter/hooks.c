// SPDX-License-Identifier: GPL-2.0
/*
 * The programs the helper compiles, run at the filter table's hooks.
 *
 * bpfilter.ko owns the hooks and holds a reference on each table's
 * program, so the rules stay in force whatever becomes of the helper.
 * A new table replaces the program pointer at once: a packet runs the
 * whole old program or the whole new one. bpf_nf_link_update() cannot do
 * that (it returns -EOPNOTSUPP), hence hooks of our own rather than BPF
 * netfilter links.
 *
 * The counters are the program's per-CPU array of struct xt_counters,
 * read and added to from here; the helper says which element is each
 * entry's. Its only other map may be the hash map of its classifier (long
 * runs of simple rules), which the helper may have changed here to change
 * a table by a rule without a new program: packets see the rule change
 * as they would see the new program.
 */
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/netfilter.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <net/netfilter/nf_bpf_link.h>
#include <net/netfilter/nf_conntrack.h>

#include "bpfilter.h"

static unsigned int bpfilter_run(void *priv, struct sk_buff *skb,
				 const struct nf_hook_state *state)
{
	struct bpfilter_net *bn = bpfilter_net(state->net);
	struct bpf_nf_ctx ctx = {
		.state = state,
		.skb = skb,
	};
	struct bpfilter_frame f, *up;
	struct bpfilter_run *run;
	unsigned int verdict;

	/* ip_tables enforces the table until the program is in place. */
	run = rcu_dereference(bn->run[(uintptr_t)priv]);
	if (!run)
		return NF_ACCEPT;
	if (!run->xt)
		return bpf_prog_run_pin_on_cpu(run->prog, &ctx);

	/*
	 * The kernel's matches and targets run as under ipt_do_table(),
	 * with BH off, which also keeps this CPU's frame the program's until
	 * it returns.
	 */
	f.state = state;
	f.skb = skb;
	f.xt = run->xt;
	f.verdict = NF_ACCEPT;
	local_bh_disable();
	up = bpfilter_xt_enter(&f);
	verdict = bpf_prog_run(run->prog, &ctx);
	bpfilter_xt_leave(up);
	local_bh_enable();
	/*
	 * A program can only return NF_ACCEPT or NF_DROP: after a kernel
	 * target gave another verdict (NF_QUEUE with its queue, NF_STOLEN,
	 * NF_DROP with an errno), it returns NF_ACCEPT for "the target's
	 * verdict". It drops after a target when a match had set hotdrop, as
	 * ipt_do_table() does, unless the target took the packet: there
	 * ipt_do_table() would return NF_DROP for a packet it no longer owns,
	 * and the target's NF_STOLEN is kept on purpose.
	 */
	if (verdict == NF_ACCEPT ||
	    (f.verdict & NF_VERDICT_MASK) == NF_STOLEN)
		verdict = f.verdict;
	return verdict;
}

#define BPFILTER_HOOK(fam, proto, num, prio) {				\
	.hook = bpfilter_run,						\
	.pf = proto,							\
	.hooknum = num,							\
	.priority = prio,						\
	.priv = (void *)(fam),						\
}

static const struct nf_hook_ops bpfilter_hook_ops[BPFILTER_NFAMILIES][3] = {
	[BPFILTER_IPV4] = {
		BPFILTER_HOOK(BPFILTER_IPV4, NFPROTO_IPV4, NF_INET_LOCAL_IN,
			      NF_IP_PRI_FILTER),
		BPFILTER_HOOK(BPFILTER_IPV4, NFPROTO_IPV4, NF_INET_FORWARD,
			      NF_IP_PRI_FILTER),
		BPFILTER_HOOK(BPFILTER_IPV4, NFPROTO_IPV4, NF_INET_LOCAL_OUT,
			      NF_IP_PRI_FILTER),
	},
	[BPFILTER_IPV6] = {
		BPFILTER_HOOK(BPFILTER_IPV6, NFPROTO_IPV6, NF_INET_LOCAL_IN,
			      NF_IP6_PRI_FILTER),
		BPFILTER_HOOK(BPFILTER_IPV6, NFPROTO_IPV6, NF_INET_FORWARD,
			      NF_IP6_PRI_FILTER),
		BPFILTER_HOOK(BPFILTER_IPV6, NFPROTO_IPV6, NF_INET_LOCAL_OUT,
			      NF_IP6_PRI_FILTER),
	},
};

/**
 * bpfilter_hook - runs the filter table's program of @family in @bn
 * @bn: the namespace's state
 * @family: BPFILTER_IPV4 or BPFILTER_IPV6
 *
 * Until a program is published, the hooks accept every packet.
 *
 * Context: Process context, @bn->lock held.
 * Return: 0 or a negative errno.
 */
int bpfilter_hook(struct bpfilter_net *bn, int family)
{
	int err;

	lockdep_assert_held(&bn->lock);
	if (bn->hooked[family])
		return 0;
	err = nf_register_net_hooks(bn->net, bpfilter_hook_ops[family],
				    ARRAY_SIZE(bpfilter_hook_ops[family]));
	if (!err)
		bn->hooked[family] = true;
	return err;
}

/**
 * bpfilter_unhook - the hooks of @family in @bn go
 * @bn: the namespace's state
 * @family: BPFILTER_IPV4 or BPFILTER_IPV6
 *
 * Context: Process context, @bn->lock held.
 */
void bpfilter_unhook(struct bpfilter_net *bn, int family)
{
	lockdep_assert_held(&bn->lock);
	if (!bn->hooked[family])
		return;
	nf_unregister_net_hooks(bn->net, bpfilter_hook_ops[family],
				ARRAY_SIZE(bpfilter_hook_ops[family]));
	bn->hooked[family] = false;
}

static u8 bpfilter_nfproto(int family)
{
	return family == BPFILTER_IPV6 ? NFPROTO_IPV6 : NFPROTO_IPV4;
}

/**
 * bpfilter_iptables_hooks - puts ip_tables' filter table of @family in @bn
 *	at its hooks, or takes it off them
 * @bn: the namespace's state
 * @family: BPFILTER_IPV4 or BPFILTER_IPV6
 * @on: at them, or off them
 *
 * ip_tables' table is empty while the helper serves the table, and need
 * not cost packets a call: it is off its hooks while the module serves
 * the table, and back at them when the table goes back to ip_tables or
 * the module goes (bpfilter_unload_net()).
 *
 * Context: Process context, @bn->lock held.
 * Return: 0 or a negative errno.
 */
int bpfilter_iptables_hooks(struct bpfilter_net *bn, int family, bool on)
{
	int err;

	lockdep_assert_held(&bn->lock);
	err = xt_table_hooks(bn->net, bpfilter_nfproto(family), "filter", on);
	/* Gone with iptable_filter: ip_tables makes the next at its hooks. */
	return err == -ENOENT ? 0 : err;
}

/**
 * bpfilter_conntrack_get - makes conntrack active in @bn for @family
 * @bn: the namespace's state
 * @family: BPFILTER_IPV4 or BPFILTER_IPV6
 *
 * For a table that looks at the conntrack state, as the checkentry of
 * the state and conntrack matches does for ip_tables.
 *
 * Return: 0 or a negative errno; -ENOENT without conntrack, as ip_tables
 * gives without the match.
 */
int bpfilter_conntrack_get(struct bpfilter_net *bn, int family)
{
	if (!IS_ENABLED(CONFIG_NF_CONNTRACK))
		return -ENOENT;
	return nf_ct_netns_get(bn->net, bpfilter_nfproto(family));
}

/**
 * bpfilter_conntrack_put - undoes bpfilter_conntrack_get()
 * @bn: the namespace's state
 * @family: BPFILTER_IPV4 or BPFILTER_IPV6
 */
void bpfilter_conntrack_put(struct bpfilter_net *bn, int family)
{
	if (IS_ENABLED(CONFIG_NF_CONNTRACK))
		nf_ct_netns_put(bn->net, bpfilter_nfproto(family));
}

/* The counters map; the caller holds prog->aux->used_maps_mutex. */
static struct bpf_map *bpfilter_counters_locked(const struct bpf_prog *prog)
{
	struct bpf_map *map = prog->aux->used_maps[0];

	if (map->map_type != BPF_MAP_TYPE_PERCPU_ARRAY &&
	    prog->aux->used_map_cnt > 1)
		map = prog->aux->used_maps[1];
	return map;
}

/*
 * A program's maps are read under its used_maps_mutex: BPF_PROG_BIND_MAP
 * may replace the array meanwhile. It only adds maps, after ours, and the
 * program holds every map it has.
 */
static struct bpf_map *bpfilter_counters(const struct bpf_prog *prog)
{
	struct bpf_map *map;

	mutex_lock(&prog->aux->used_maps_mutex);
	map = bpfilter_counters_locked(prog);
	mutex_unlock(&prog->aux->used_maps_mutex);
	return map;
}

/**
 * bpfilter_prog_get - the program the helper loaded for a table
 * @id: its id, from the helper's reply
 *
 * The program must be one the hooks can run, with a counters map.
 *
 * Return: the program with a reference held, or an ERR_PTR(): -EPROTO
 * for a program that is not what the helper must give.
 */
struct bpf_prog *bpfilter_prog_get(u32 id)
{
	struct bpf_prog *prog = bpf_prog_by_id(id);
	struct bpf_map *map;
	u32 i;

	if (IS_ERR(prog))
		return prog;
	if (prog->type != BPF_PROG_TYPE_NETFILTER ||
	    prog->expected_attach_type != BPF_NETFILTER)
		goto err_put;
	mutex_lock(&prog->aux->used_maps_mutex);
	if (prog->aux->used_map_cnt < 1 || prog->aux->used_map_cnt > 2)
		goto err_unlock;
	map = bpfilter_counters_locked(prog);
	if (map->map_type != BPF_MAP_TYPE_PERCPU_ARRAY ||
	    map->key_size != sizeof(u32) ||
	    map->value_size != sizeof(struct xt_counters))
		goto err_unlock;
	for (i = 0; i < prog->aux->used_map_cnt; i++)
		if (prog->aux->used_maps[i] != map &&
		    prog->aux->used_maps[i]->map_type != BPF_MAP_TYPE_HASH)
			goto err_unlock;
	mutex_unlock(&prog->aux->used_maps_mutex);
	return prog;

err_unlock:
	mutex_unlock(&prog->aux->used_maps_mutex);
err_put:
	bpf_prog_put(prog);
	return ERR_PTR(-EPROTO);
}

/* The classifier's map of a program, NULL if it has none. */
static struct bpf_map *bpfilter_cls(const struct bpf_prog *prog)
{
	struct bpf_map *map = NULL;
	u32 i;

	mutex_lock(&prog->aux->used_maps_mutex);
	for (i = 0; i < prog->aux->used_map_cnt && !map; i++)
		if (prog->aux->used_maps[i]->map_type == BPF_MAP_TYPE_HASH)
			map = prog->aux->used_maps[i];
	mutex_unlock(&prog->aux->used_maps_mutex);
	return map;
}

/* The size of a struct bpfilter_map_op of @map, 0 if too big. */
static size_t bpfilter_op_size(const struct bpf_map *map)
{
	size_t size = sizeof(struct bpfilter_map_op) +
		      round_up(map->key_size, 8) +
		      2 * round_up(map->value_size, 8);

	return size <= BPFILTER_MAX_OP_SIZE ? size : 0;
}

/**
 * bpfilter_layout - takes the counter indices of a new table's entries
 * @t: the table, whose number of entries and size are set
 * @prog: its program
 * @lay: the layout the helper replied, @len bytes with what follows it
 * @len: its length
 *
 * The changes of the map that may follow are checked, not made.
 *
 * Return: 0, -ENOMEM, or -EPROTO if the layout is not one for @prog.
 */
int bpfilter_layout(struct bpfilter_table *t, struct bpf_prog *prog,
		    const struct bpfilter_layout *lay, size_t len)
{
	struct bpf_map *map = bpfilter_counters(prog), *cls;
	const u32 *slot = (const void *)(lay + 1);
	const struct bpfilter_map_op *op;
	const u8 *ops;
	size_t size = 0;
	u32 i;

	/* The helper numbered the kernel's extensions as the module did. */
	if (len < sizeof(*lay) || lay->nslots != t->number ||
	    lay->nxt != bpfilter_xt_count_matches(t->xt) ||
	    lay->nxt_targets != bpfilter_xt_count_targets(t->xt) ||
	    (len - sizeof(*lay)) / sizeof(u32) < lay->nslots ||
	    lay->nops > BPFILTER_MAX_OPS)
		return -EPROTO;
	if (lay->nops) {
		cls = bpfilter_cls(prog);
		size = cls ? bpfilter_op_size(cls) : 0;
		if (!size)
			return -EPROTO;
	}
	/* The entries as they read come last (see bpfilter_keep_view()). */
	if (len != sizeof(*lay) + lay->nslots * sizeof(u32) + lay->nops * size +
		   t->size)
		return -EPROTO;
	for (i = 0; i < lay->nslots; i++)
		if (slot[i] >= map->max_entries)
			return -EPROTO;
	ops = (const u8 *)(slot + lay->nslots);
	for (i = 0; i < lay->nops; i++) {
		op = (const void *)(ops + i * size);
		if (op->reserved ||
		    op->flags & ~(BPFILTER_OP_DELETE | BPFILTER_OP_OLD))
			return -EPROTO;
	}
	t->slot = kvmemdup(slot, lay->nslots * sizeof(u32), GFP_KERNEL_ACCOUNT);
	return t->slot ? 0 : -ENOMEM;
}

/* The counter at @slot, summed over the CPUs. */
static void bpfilter_sum(struct bpf_map *map, u32 slot, struct xt_counters *c)
{
	const struct xt_counters *v;
	int cpu;

	c->pcnt = 0;
	c->bcnt = 0;
	rcu_read_lock();
	for_each_possible_cpu(cpu) {
		v = map->ops->map_lookup_percpu_elem(map, &slot, cpu);
		if (v) {
			c->pcnt += READ_ONCE(v->pcnt);
			c->bcnt += READ_ONCE(v->bcnt);
		}
	}
	rcu_read_unlock();
}

/* The counters of entry @i of @t. */
static void bpfilter_entry_sum(const struct bpfilter_table *t,
			       struct bpf_map *map, u32 i,
			       struct xt_counters *c)
{
	bpfilter_sum(map, t->slot[i], c);
	if (t->base) {
		c->pcnt -= t->base[i].pcnt;
		c->bcnt -= t->base[i].bcnt;
	}
}

/* One change of @map, or its undoing, as the bpf() system call makes it. */
static int bpfilter_map_op(struct bpf_map *map,
			   const struct bpfilter_map_op *op, bool undo)
{
	size_t key = round_up(map->key_size, 8);
	size_t value = round_up(map->value_size, 8);
	void *k = (void *)op->data;
	int err;

	migrate_disable();
	rcu_read_lock();
	if (undo ? !(op->flags & BPFILTER_OP_OLD) :
		   op->flags & BPFILTER_OP_DELETE)
		err = map->ops->map_delete_elem(map, k);
	else
		err = map->ops->map_update_elem(map, k, k + key +
						(undo ? value : 0), BPF_ANY);
	rcu_read_unlock();
	migrate_enable();
	return err;
}

/*
 * Makes the changes of @lay in @map, or none. The map is preallocated:
 * the element an update of a key replaces serves the next such update
 * (and a deleted one the next new key), while a packet may still be
 * reading it. So a grace period goes between two updates of keys, and
 * before each undoing; the caller waits for one after the changes.
 */
static int bpfilter_map_ops(struct bpf_map *map,
			    const struct bpfilter_layout *lay)
{
	const void *ops = (const u32 *)(lay + 1) + lay->nslots;
	size_t size = bpfilter_op_size(map);
	const struct bpfilter_map_op *op;
	bool replaced = false;
	int err = 0;
	u32 i;

	for (i = 0; i < lay->nops; i++) {
		op = ops + i * size;
		if ((op->flags & BPFILTER_OP_OLD) &&
		    !(op->flags & BPFILTER_OP_DELETE)) {
			if (replaced)
				synchronize_net();
			replaced = true;
		}
		err = bpfilter_map_op(map, op, false);
		if (err)
			break;
	}
	/* Undone from the last one made. */
	while (err && i-- > 0) {
		synchronize_net();
		WARN_ON_ONCE(bpfilter_map_op(map, ops + i * size, true));
	}
	/* The map's own errno means nothing to iptables. */
	return err ? -ENOMEM : 0;
}

/**
 * bpfilter_update - a new table takes over the program of the old one
 * @old: the table in force
 * @t: the new one, with the same program, a reference held on it, and
 *	its counter indices (bpfilter_layout())
 * @lay: the helper's layout, with the changes of the program's map
 * @counters: @old->number counters: the old table's final ones
 *
 * The changes are made in the map; the counters that the old table and
 * the new one share go on counting: what they have now is the old
 * table's, and the new one's base. New entries have new counters.
 *
 * Return: 0 or a negative errno, the map then as it was.
 */
int bpfilter_update(struct bpfilter_table *old, struct bpfilter_table *t,
		    const struct bpfilter_layout *lay,
		    struct xt_counters *counters)
{
	struct bpf_map *map = bpfilter_counters(t->prog);
	struct xt_counters *now;
	unsigned long *seen;
	u32 i;
	int err;

	now = kvcalloc(map->max_entries, sizeof(*now), GFP_KERNEL_ACCOUNT);
	seen = bitmap_zalloc(map->max_entries, GFP_KERNEL_ACCOUNT);
	t->base = kvcalloc(t->number, sizeof(*t->base), GFP_KERNEL_ACCOUNT);
	err = -ENOMEM;
	if (!now || !seen || !t->base)
		goto out;
	err = lay->nops ? bpfilter_map_ops(bpfilter_cls(t->prog), lay) : 0;
	if (err)
		goto out;
	/*
	 * After the changes and the packets that saw the map before them:
	 * a deleted entry counts no more.
	 */
	if (lay->nops)
		synchronize_net();
	for (i = 0; i < old->number; i++) {
		bpfilter_sum(map, old->slot[i], &now[old->slot[i]]);
		__set_bit(old->slot[i], seen);
		counters[i] = now[old->slot[i]];
		if (old->base) {
			counters[i].pcnt -= old->base[i].pcnt;
			counters[i].bcnt -= old->base[i].bcnt;
		}
	}
	/* A new entry's counter was nobody's: it counts from zero. */
	for (i = 0; i < t->number; i++)
		if (test_bit(t->slot[i], seen))
			t->base[i] = now[t->slot[i]];
out:
	kvfree(now);
	bitmap_free(seen);
	return err;
}

/**
 * bpfilter_read_counters - the counters of every entry of a table
 * @t: the table
 * @counters: @t->number counters to fill
 */
void bpfilter_read_counters(const struct bpfilter_table *t,
			    struct xt_counters *counters)
{
	struct bpf_map *map = bpfilter_counters(t->prog);
	unsigned int i;

	for (i = 0; i < t->number; i++)
		bpfilter_entry_sum(t, map, i, &counters[i]);
}

/**
 * bpfilter_add_counters - IPT_SO_SET_ADD_COUNTERS on a table
 * @t: the table
 * @add: what to add to each of its entries
 *
 * The counts go to this CPU's copy with softirqs off: no program runs on
 * this CPU meanwhile, and programs on others count in their own copy.
 */
void bpfilter_add_counters(const struct bpfilter_table *t,
			   const struct xt_counters *add)
{
	struct bpf_map *map = bpfilter_counters(t->prog);
	struct xt_counters *v;
	unsigned int i;

	rcu_read_lock();
	for (i = 0; i < t->number; i++) {
		local_bh_disable();
		v = map->ops->map_lookup_elem(map, &t->slot[i]);
		if (v) {
			v->pcnt += add[i].pcnt;
			v->bcnt += add[i].bcnt;
		}
		local_bh_enable();
	}
	rcu_read_unlock();
}

/**
 * bpfilter_entry_counters - writes the counters into entries
 * @t: the table
 * @family: BPFILTER_IPV4 or BPFILTER_IPV6
 * @entries: its entries, as IPT_SO_GET_ENTRIES returns them
 *
 * The walk is bounded by @t->size: the entries come from the helper.
 */
void bpfilter_entry_counters(const struct bpfilter_table *t, int family,
			     void *entries)
{
	size_t hdr = sizeof(struct ipt_entry);
	size_t cnt = offsetof(struct ipt_entry, counters);
	size_t next = offsetof(struct ipt_entry, next_offset);
	unsigned int off = 0, i, size = t->size;
	struct bpf_map *map = bpfilter_counters(t->prog);
	struct xt_counters c;
	u16 next_offset;

	if (family == BPFILTER_IPV6) {
		hdr = sizeof(struct ip6t_entry);
		cnt = offsetof(struct ip6t_entry, counters);
		next = offsetof(struct ip6t_entry, next_offset);
	}
	for (i = 0; i < t->number && size - off >= hdr; i++) {
		bpfilter_entry_sum(t, map, i, &c);
		memcpy(entries + off + cnt, &c, sizeof(c));
		memcpy(&next_offset, entries + off + next, sizeof(next_offset));
		if (next_offset < hdr || next_offset > size - off)
			break;
		off += next_offset;
	}
}
