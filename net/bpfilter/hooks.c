// SPDX-License-Identifier: GPL-2.0
/*
 * The programs the helper compiles, run at the filter table's hooks.
 *
 * bpfilter.ko owns the hooks and holds a reference on each table's
 * program, so the rules stay in force whatever becomes of the helper.
 * A new table replaces the program pointer at once: a packet runs the
 * whole old program or the whole new one. bpf_nf_link_update() cannot do
 * that in 6.12, hence hooks of our own rather than BPF netfilter links.
 *
 * The counters are the program's per-CPU array of struct xt_counters with
 * an element per entry, read and added to from here. Its only other map
 * may be the hash map of its classifier (long runs of simple rules).
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
	struct bpf_prog *prog;

	/* ip_tables enforces the table until the program is in place. */
	prog = rcu_dereference(bn->prog[(uintptr_t)priv]);
	if (!prog)
		return NF_ACCEPT;
	return bpf_prog_run_pin_on_cpu(prog, &ctx);
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

static struct bpf_map *bpfilter_counters(const struct bpf_prog *prog)
{
	struct bpf_map *map = prog->aux->used_maps[0];

	if (map->map_type != BPF_MAP_TYPE_PERCPU_ARRAY &&
	    prog->aux->used_map_cnt > 1)
		map = prog->aux->used_maps[1];
	return map;
}

/**
 * bpfilter_prog_get - the program the helper loaded for a table
 * @id: its id, from the helper's reply
 * @number: entries of the table
 *
 * The program must be one the hooks can run, with a counter per entry.
 *
 * Return: the program with a reference held, or an ERR_PTR(): -EPROTO
 * for a program that is not what the helper must give.
 */
struct bpf_prog *bpfilter_prog_get(u32 id, unsigned int number)
{
	struct bpf_prog *prog = bpf_prog_by_id(id);
	struct bpf_map *map;
	u32 i;

	if (IS_ERR(prog))
		return prog;
	if (prog->type != BPF_PROG_TYPE_NETFILTER ||
	    prog->expected_attach_type != BPF_NETFILTER ||
	    prog->aux->used_map_cnt < 1 || prog->aux->used_map_cnt > 2)
		goto err_put;
	map = bpfilter_counters(prog);
	if (map->map_type != BPF_MAP_TYPE_PERCPU_ARRAY ||
	    map->key_size != sizeof(u32) ||
	    map->value_size != sizeof(struct xt_counters) ||
	    map->max_entries != number)
		goto err_put;
	for (i = 0; i < prog->aux->used_map_cnt; i++)
		if (prog->aux->used_maps[i] != map &&
		    prog->aux->used_maps[i]->map_type != BPF_MAP_TYPE_HASH)
			goto err_put;
	return prog;

err_put:
	bpf_prog_put(prog);
	return ERR_PTR(-EPROTO);
}

/* The counters of entry @i, summed over the CPUs. */
static void bpfilter_sum(struct bpf_map *map, u32 i, struct xt_counters *c)
{
	const struct xt_counters *v;
	int cpu;

	c->pcnt = 0;
	c->bcnt = 0;
	rcu_read_lock();
	for_each_possible_cpu(cpu) {
		v = map->ops->map_lookup_percpu_elem(map, &i, cpu);
		if (v) {
			c->pcnt += READ_ONCE(v->pcnt);
			c->bcnt += READ_ONCE(v->bcnt);
		}
	}
	rcu_read_unlock();
}

/**
 * bpfilter_read_counters - the counters of every entry of a program
 * @prog: the program
 * @counters: @number counters to fill
 * @number: entries of its table
 */
void bpfilter_read_counters(const struct bpf_prog *prog,
			    struct xt_counters *counters, unsigned int number)
{
	struct bpf_map *map = bpfilter_counters(prog);
	unsigned int i;

	for (i = 0; i < number; i++)
		bpfilter_sum(map, i, &counters[i]);
}

/**
 * bpfilter_add_counters - IPT_SO_SET_ADD_COUNTERS on a program
 * @prog: the program
 * @add: what to add to each entry
 * @number: entries of its table
 *
 * The counts go to this CPU's copy with softirqs off: no program runs on
 * this CPU meanwhile, and programs on others count in their own copy.
 */
void bpfilter_add_counters(const struct bpf_prog *prog,
			   const struct xt_counters *add, unsigned int number)
{
	struct bpf_map *map = bpfilter_counters(prog);
	struct xt_counters *v;
	unsigned int i;

	rcu_read_lock();
	for (i = 0; i < number; i++) {
		local_bh_disable();
		v = map->ops->map_lookup_elem(map, &i);
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
 * @prog: the program of the table
 * @family: BPFILTER_IPV4 or BPFILTER_IPV6
 * @entries: the table's entries, as IPT_SO_GET_ENTRIES returns them
 * @size: their size
 * @number: their number
 *
 * The walk is bounded by @size: the entries come from the helper.
 */
void bpfilter_entry_counters(const struct bpf_prog *prog, int family,
			     void *entries, unsigned int size,
			     unsigned int number)
{
	size_t hdr = sizeof(struct ipt_entry);
	size_t cnt = offsetof(struct ipt_entry, counters);
	size_t next = offsetof(struct ipt_entry, next_offset);
	struct bpf_map *map = bpfilter_counters(prog);
	unsigned int off = 0, i;
	struct xt_counters c;
	u16 next_offset;

	if (family == BPFILTER_IPV6) {
		hdr = sizeof(struct ip6t_entry);
		cnt = offsetof(struct ip6t_entry, counters);
		next = offsetof(struct ip6t_entry, next_offset);
	}
	for (i = 0; i < number && size - off >= hdr; i++) {
		bpfilter_sum(map, i, &c);
		memcpy(entries + off + cnt, &c, sizeof(c));
		memcpy(&next_offset, entries + off + next, sizeof(next_offset));
		if (next_offset < hdr || next_offset > size - off)
			break;
		off += next_offset;
	}
}
