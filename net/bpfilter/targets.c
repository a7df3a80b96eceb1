// SPDX-License-Identifier: GPL-2.0
/*
 * The REJECT and LOG targets for the helper's programs: kfuncs that run
 * the kernel's own targets (ipt_REJECT, ip6t_REJECT, xt_LOG), so that a
 * rejected or logged packet gets what ip_tables would give it. Likewise
 * the mac and addrtype matches, which look at what a program cannot read
 * (the link layer header before skb->data, the routing tables).
 *
 * A table with such a target or match makes the module find it (which
 * loads its module, held until bpfilter goes), and, for LOG, hold the
 * logger as xt_LOG's checkentry does, while the table is in force.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_LOG.h>
#include <linux/netfilter_ipv4/ipt_REJECT.h>
#include <linux/netfilter_ipv6/ip6t_REJECT.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <net/netfilter/nf_log.h>

#include "bpfilter.h"

enum {
	BPFILTER_REJECT,
	BPFILTER_LOG,
	BPFILTER_NTARGETS,
};

static const char *const bpfilter_target_name[BPFILTER_NTARGETS] = {
	[BPFILTER_REJECT] = "REJECT",
	[BPFILTER_LOG] = "LOG",
};

static const struct {
	const char *name;
	u8 revision;
	u32 flag;
} bpfilter_match_ext[BPFILTER_NMATCHES] = {
	[BPFILTER_MATCH_MAC] = { "mac", 0, BPFILTER_TABLE_MAC },
	[BPFILTER_MATCH_ADDRTYPE] = { "addrtype", 1, BPFILTER_TABLE_ADDRTYPE },
};

/* Found on first use, under bpfilter_targets_lock, then never changed. */
static struct xt_target *bpfilter_targets[BPFILTER_NFAMILIES][BPFILTER_NTARGETS];
static struct xt_match *bpfilter_matches[BPFILTER_NFAMILIES][BPFILTER_NMATCHES];
static DEFINE_MUTEX(bpfilter_targets_lock);

static u8 bpfilter_pf(int family)
{
	return family == BPFILTER_IPV6 ? NFPROTO_IPV6 : NFPROTO_IPV4;
}

static int bpfilter_find_target(int family, int which)
{
	struct xt_target *t;
	int err = 0;

	mutex_lock(&bpfilter_targets_lock);
	if (!READ_ONCE(bpfilter_targets[family][which])) {
		t = xt_request_find_target(bpfilter_pf(family),
					   bpfilter_target_name[which], 0);
		if (IS_ERR(t))
			err = PTR_ERR(t);
		else
			WRITE_ONCE(bpfilter_targets[family][which], t);
	}
	mutex_unlock(&bpfilter_targets_lock);
	return err;
}

static int bpfilter_find_match(int family, int which)
{
	struct xt_match *m;
	int err = 0;

	mutex_lock(&bpfilter_targets_lock);
	if (!READ_ONCE(bpfilter_matches[family][which])) {
		m = xt_request_find_match(bpfilter_pf(family),
					  bpfilter_match_ext[which].name,
					  bpfilter_match_ext[which].revision);
		if (IS_ERR(m))
			err = PTR_ERR(m);
		else
			WRITE_ONCE(bpfilter_matches[family][which], m);
	}
	mutex_unlock(&bpfilter_targets_lock);
	return err;
}

/**
 * bpfilter_targets_get - what a table's kernel targets and matches need
 * @family: BPFILTER_IPV4 or BPFILTER_IPV6
 * @flags: BPFILTER_TABLE_KFUNCS of the table
 *
 * Context: Process context; may load modules.
 * Return: 0 or a negative errno, as ip_tables gives for the extension.
 */
int bpfilter_targets_get(int family, u32 flags)
{
	int err = 0, i;

	for (i = 0; i < BPFILTER_NMATCHES && !err; i++)
		if (flags & bpfilter_match_ext[i].flag)
			err = bpfilter_find_match(family, i);
	if (!err && (flags & BPFILTER_TABLE_REJECT))
		err = bpfilter_find_target(family, BPFILTER_REJECT);
	if (!err && (flags & BPFILTER_TABLE_LOG)) {
		err = bpfilter_find_target(family, BPFILTER_LOG);
		/* log_tg_check() */
		if (!err && nf_logger_find_get(bpfilter_pf(family),
					       NF_LOG_TYPE_LOG)) {
			request_module("nf_log_syslog");
			err = nf_logger_find_get(bpfilter_pf(family),
						 NF_LOG_TYPE_LOG);
		}
	}
	return err;
}

/**
 * bpfilter_targets_put - undoes bpfilter_targets_get()
 * @family: BPFILTER_IPV4 or BPFILTER_IPV6
 * @flags: the flags given to bpfilter_targets_get()
 */
void bpfilter_targets_put(int family, u32 flags)
{
	if (flags & BPFILTER_TABLE_LOG)
		nf_logger_put(bpfilter_pf(family), NF_LOG_TYPE_LOG);
}

static void bpfilter_run_target(struct sk_buff *skb,
				const struct nf_hook_state *state, int which,
				const void *info)
{
	int family = state->pf == NFPROTO_IPV6 ? BPFILTER_IPV6 : BPFILTER_IPV4;
	struct xt_target *t = READ_ONCE(bpfilter_targets[family][which]);
	struct xt_action_param par = {
		.state = state,
		.target = t,
		.targinfo = info,
	};

	/* A program with the target runs only once it was found. */
	if (t)
		t->target(skb, &par);
}

__bpf_kfunc_start_defs();

/**
 * bpfilter_reject - the REJECT target
 * @skb: the packet, which the program then drops
 * @state: its hook state
 * @with: ipt_reject_info.with or ip6t_reject_info.with
 */
__bpf_kfunc void bpfilter_reject(struct sk_buff *skb,
				 const struct nf_hook_state *state, u32 with)
{
	struct ipt_reject_info info4 = { .with = with };
	struct ip6t_reject_info info6 = { .with = with };

	bpfilter_run_target(skb, state, BPFILTER_REJECT,
			    state->pf == NFPROTO_IPV6 ? (void *)&info6 :
							(void *)&info4);
}

/**
 * bpfilter_log - the LOG target
 * @skb: the packet
 * @state: its hook state
 * @info: struct xt_log_info of the rule
 * @info__sz: its size
 */
__bpf_kfunc void bpfilter_log(struct sk_buff *skb,
			      const struct nf_hook_state *state,
			      const void *info, u32 info__sz)
{
	struct xt_log_info li;

	if (info__sz != sizeof(li))
		return;
	memcpy(&li, info, sizeof(li));
	li.prefix[sizeof(li.prefix) - 1] = '\0';
	bpfilter_run_target(skb, state, BPFILTER_LOG, &li);
}

/**
 * bpfilter_match - the kernel's mac or addrtype match
 * @skb: the packet
 * @state: its hook state
 * @which: enum bpfilter_match
 * @info: the match's data
 * @info__sz: its size, the match's matchsize
 *
 * Return: 1 if the packet matches, else 0.
 */
__bpf_kfunc int bpfilter_match(struct sk_buff *skb,
			       const struct nf_hook_state *state, u32 which,
			       const void *info, u32 info__sz)
{
	int family = state->pf == NFPROTO_IPV6 ? BPFILTER_IPV6 : BPFILTER_IPV4;
	struct xt_action_param par = {
		.state = state,
		.matchinfo = info,
	};

	if (which >= BPFILTER_NMATCHES)
		return 0;
	/* A program with the match runs only once it was found. */
	par.match = READ_ONCE(bpfilter_matches[family][which]);
	if (!par.match || info__sz != par.match->matchsize)
		return 0;
	return par.match->match(skb, &par);
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(bpfilter_kfunc_ids)
BTF_ID_FLAGS(func, bpfilter_reject)
BTF_ID_FLAGS(func, bpfilter_log)
BTF_ID_FLAGS(func, bpfilter_match)
BTF_ID_FLAGS(func, bpfilter_xt_match)
BTF_ID_FLAGS(func, bpfilter_xt_target)
BTF_KFUNCS_END(bpfilter_kfunc_ids)

/*
 * Only the helper's programs may call the module: it trusts what they
 * pass, and any other netfilter program could reject or log packets in
 * bpfilter's name. The verifier calls this only while a program loads,
 * in the bpf() call, so current is the loader. It is asked about every
 * netfilter kfunc of our BTF, vmlinux's own when bpfilter is built in:
 * those are not ours to refuse. It gates loading only: root can run a
 * helper's program with BPF_PROG_TEST_RUN, so the kfuncs check what
 * they are given all the same.
 */
static int bpfilter_kfunc_filter(const struct bpf_prog *prog, u32 kfunc_id)
{
	int err = -EACCES;
	struct pid *pid;

	if (!btf_id_set8_contains(&bpfilter_kfunc_ids, kfunc_id))
		return 0;
	pid = umd_get_pid(&bpfilter.umd);
	if (pid && pid == task_tgid(current))
		err = 0;
	put_pid(pid);
	return err;
}

static const struct btf_kfunc_id_set bpfilter_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &bpfilter_kfunc_ids,
	.filter = bpfilter_kfunc_filter,
};

/**
 * bpfilter_targets_init - makes the kfuncs known to netfilter programs
 *
 * Return: 0 or a negative errno.
 */
int bpfilter_targets_init(void)
{
	return register_btf_kfunc_id_set(BPF_PROG_TYPE_NETFILTER,
					 &bpfilter_kfunc_set);
}

/* The extensions found go: no program of the module runs any more. */
void bpfilter_targets_exit(void)
{
	int i, j;

	for (i = 0; i < BPFILTER_NFAMILIES; i++) {
		for (j = 0; j < BPFILTER_NTARGETS; j++)
			if (bpfilter_targets[i][j])
				module_put(bpfilter_targets[i][j]->me);
		for (j = 0; j < BPFILTER_NMATCHES; j++)
			if (bpfilter_matches[i][j])
				module_put(bpfilter_matches[i][j]->me);
	}
}
