// SPDX-License-Identifier: GPL-2.0
/*
 * A table compiled into one BPF_PROG_TYPE_NETFILTER program per family,
 * run by bpfilter.ko at the filter table's hooks.
 *
 * ipt_do_table() walks entries with a stack of the jumps taken. The
 * program is that walk unrolled: a block of code per state (entry, hook,
 * stack), emitted once and jumped to from every place that reaches it, so
 * that RETURN, jumps, gotos and the stack limit behave exactly as in
 * ip_tables. Blocks follow each other in the order of the "no match" path,
 * which then costs no jump.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "emit.h"
#include "msg.h"
#include "match.h"
#include "lookup.h"
#include "packet.h"

/* A cap on the blocks, far above what BF_MAX_INSNS allows anyway. */
#define BF_MAX_STATES	0x200000

/*
 * Keys of three words, each kept once: a jump stack is a node (the stack
 * under its top, the entry its top returns to, its depth), and a state of
 * ipt_do_table() is (entry, hook, stack node). A state costs the same
 * whatever the depth of its stack, so the work is linear in the states
 * (a stack copied into each state made a chain of n jumps cost n^2).
 */
struct keys {
	unsigned int (*key)[3];
	unsigned int n, cap;
	unsigned int *hash;	/* index + 1, 0 empty */
	unsigned int hash_size;
};

/* A state of ipt_do_table(), at the same index as its key. */
struct state {
	int label;
	bool emitted;
};

struct gen {
	struct bf_emit e;
	const struct bf_ir *ir;
	const struct bf_btf *btf;
	const __u32 *slot;
	struct bf_cls *cls;

	struct keys stacks;	/* node 0: the empty stack */
	struct keys skeys;
	struct state *states;
	unsigned int states_cap;
	unsigned int *work;	/* states to emit */
	unsigned int nwork, work_cap;
};

#define KEY_ENTRY	0
#define KEY_HOOK	1
#define KEY_STACK	2

#define STACK_UNDER	0
#define STACK_RET	1
#define STACK_DEPTH	2

static unsigned int key_hash(const unsigned int *key)
{
	unsigned long long h = 0xcbf29ce484222325ull;
	unsigned int i;

	for (i = 0; i < 3; i++)
		h = (h ^ key[i]) * 0x100000001b3ull;
	return h ^ (h >> 32);
}

static bool rehash(struct keys *k, struct bf_emit *e)
{
	unsigned int size = k->hash_size ? k->hash_size * 2 : 1024;
	unsigned int *hash, i;

	hash = calloc(size, sizeof(*hash));
	if (!hash) {
		e->err = e->err ?: -ENOMEM;
		return false;
	}
	for (i = 0; i < k->n; i++) {
		unsigned int h = key_hash(k->key[i]) & (size - 1);

		while (hash[h])
			h = (h + 1) & (size - 1);
		hash[h] = i + 1;
	}
	free(k->hash);
	k->hash = hash;
	k->hash_size = size;
	return true;
}

/*
 * The index of @key in @k, added if new (*@added); -1 on an error, which
 * is -E2BIG past BF_MAX_STATES keys.
 */
static int intern(struct keys *k, const unsigned int *key, bool *added,
		  struct bf_emit *e)
{
	unsigned int h;

	*added = false;
	if (e->err)
		return -1;
	if ((k->n + 1) * 2 > k->hash_size && !rehash(k, e))
		return -1;
	h = key_hash(key) & (k->hash_size - 1);
	for (; k->hash[h]; h = (h + 1) & (k->hash_size - 1))
		if (!memcmp(k->key[k->hash[h] - 1], key, sizeof(k->key[0])))
			return k->hash[h] - 1;
	if (k->n >= BF_MAX_STATES) {
		e->err = -E2BIG;
		return -1;
	}
	if (!bf_grow(&e->err, (void **)&k->key, &k->cap, k->n + 1,
		     sizeof(k->key[0])))
		return -1;
	memcpy(k->key[k->n], key, sizeof(k->key[0]));
	k->hash[h] = k->n + 1;
	*added = true;
	return k->n++;
}

static void free_keys(struct keys *k)
{
	free(k->key);
	free(k->hash);
}

/* The label of a state, which is queued to be emitted if it is new. */
static int state_label(struct gen *g, const unsigned int *key,
		       unsigned int *index)
{
	bool added;
	int i;

	i = intern(&g->skeys, key, &added, &g->e);
	if (i < 0)
		return NO_LABEL;
	if (!added) {
		*index = i;
		return g->states[i].label;
	}
	if (!bf_grow(&g->e.err, (void **)&g->states, &g->states_cap, i + 1,
		     sizeof(*g->states)) ||
	    !bf_grow(&g->e.err, (void **)&g->work, &g->work_cap, g->nwork + 1,
		     sizeof(*g->work)))
		return NO_LABEL;
	g->states[i].emitted = false;
	g->states[i].label = bf_new_label(&g->e);
	g->work[g->nwork++] = i;
	*index = i;
	return g->states[i].label;
}

static unsigned int depth_of(const struct gen *g, const unsigned int *key)
{
	return g->stacks.key[key[KEY_STACK]][STACK_DEPTH];
}

/*
 * The state at @entry after the state @key, with the top of the stack
 * removed if @pop, then @push (if not ~0) added.
 */
static int next_state(struct gen *g, const unsigned int *key,
		      unsigned int entry, bool pop, unsigned int push,
		      unsigned int *index)
{
	unsigned int k[3], stack = key[KEY_STACK], node[3];
	bool added;
	int i;

	if (pop)
		stack = g->stacks.key[stack][STACK_UNDER];
	if (push != ~0u) {
		node[STACK_UNDER] = stack;
		node[STACK_RET] = push;
		node[STACK_DEPTH] = g->stacks.key[stack][STACK_DEPTH] + 1;
		i = intern(&g->stacks, node, &added, &g->e);
		if (i < 0)
			return NO_LABEL;
		stack = i;
	}
	k[KEY_ENTRY] = entry;
	k[KEY_HOOK] = key[KEY_HOOK];
	k[KEY_STACK] = stack;
	return state_label(g, k, index);
}

/* ADD_COUNTER(*counter, skb->len, 1) of the entry at S_KEY, on this CPU. */
static void emit_count(struct gen *g)
{
	struct bf_emit *e = &g->e;
	struct bpf_insn map[2] = { BF_LD_MAP_IDX(R1, BF_COUNTERS_MAP) };

	bf_emit(e, map[0]);
	bf_emit(e, map[1]);
	bf_emit(e, BPF_MOV64_REG(R2, FP));
	bf_emit(e, BPF_ALU64_IMM(BPF_ADD, R2, S_KEY));
	bf_emit(e, BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem));
	bf_emit(e, BPF_JMP_IMM(BPF_JEQ, R0, 0, 4));
	bf_emit(e, BPF_MOV64_IMM(R1, 1));
	/* Atomic: a softirq may count on this CPU meanwhile. */
	bf_emit(e, BPF_ATOMIC_OP(BPF_DW, BPF_ADD, R0, R1,
				 offsetof(struct xt_counters, pcnt)));
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_LEN));
	bf_emit(e, BPF_ATOMIC_OP(BPF_DW, BPF_ADD, R0, R1,
				 offsetof(struct xt_counters, bcnt)));
}

static void emit_counter(struct gen *g, unsigned int entry)
{
	__u32 slot = g->slot ? g->slot[entry] : entry;

	bf_emit(&g->e, BPF_ST_MEM(BPF_W, FP, S_KEY, slot));
	emit_count(g);
}

static void emit_action(struct gen *g, const struct bf_rule *r,
			const unsigned int *key);

/* The jump or goto of @run whose verdict is in R1, in the state @key. */
static void emit_jumps(struct gen *g, const struct bf_cls_run *run,
		       const unsigned int *key)
{
	unsigned int k[3] = { key[0], key[1], key[2] }, i, n = 0;
	struct bf_emit *e = &g->e;
	int next;

	for (i = run->start; i < run->end; i++) {
		const struct bf_rule *r = &g->ir->rules[i];

		if (r->action != BF_JUMP && r->action != BF_GOTO)
			continue;
		next = bf_new_label(e);
		bf_jmp(e, BPF_JMP_IMM(BPF_JNE, R1, BF_CLS_JUMP + n, 0), next);
		n++;
		k[KEY_ENTRY] = i;
		emit_action(g, r, k);
		bf_bind(e, next);
	}
	/* No other entry of the map has BF_CLS_JUMP. */
	bf_verdict(e, NF_DROP);
}

/* A classified run in the state @key; the miss path next. */
static void emit_run(struct gen *g, struct bf_cls_run *run,
		     const unsigned int *key)
{
	struct bf_emit *e = &g->e;
	int miss = bf_new_label(e);

	run->emitted++;
	bf_emit_run(e, g->ir->family, g->cls, run, miss);
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_BEST));
	bf_emit(e, BPF_STX_MEM(BPF_W, FP, R1, S_KEY));
	emit_count(g);
	/* A verdict the verifier knows is NF_DROP or NF_ACCEPT, or a jump */
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_VERD));
	bf_emit(e, BPF_JMP_IMM(BPF_JNE, R1, NF_DROP, 2));
	bf_verdict(e, NF_DROP);
	if (run->njumps) {
		bf_emit(e, BPF_JMP_IMM(BPF_JNE, R1, NF_ACCEPT, 2));
		bf_verdict(e, NF_ACCEPT);
		emit_jumps(g, run, key);
	} else {
		bf_verdict(e, NF_ACCEPT);
	}
	bf_bind(e, miss);
}

/*
 * bpfilter_xt_target(): a target the module checked. On XT_CONTINUE (0)
 * the packet is read again, as the target may have changed it, and goes
 * on; any other verdict (1) is the kernel's to give, which the program's
 * NF_ACCEPT stands for (bpfilter_run()); 2 drops.
 */
static void emit_xt_target(struct gen *g, const struct bf_rule *r)
{
	struct bf_emit *e = &g->e;
	int cont = bf_new_label(e), drop = bf_new_label(e);

	bf_emit_xt_call(e, g->ir, r, r->xt, g->btf->xt_target);
	/* An int: its upper half is not defined. */
	bf_jmp(e, BPF_JMP32_IMM(BPF_JEQ, R0, 0, 0), cont);
	bf_jmp(e, BPF_JMP32_IMM(BPF_JNE, R0, 1, 0), drop);
	bf_verdict(e, NF_ACCEPT);
	bf_bind(e, drop);
	bf_verdict(e, NF_DROP);
	bf_bind(e, cont);
	bf_emit_packet(e, g->ir, g->btf);
}

/* The target of a rule whose matches matched, in the state @key. */
static void emit_action(struct gen *g, const struct bf_rule *r,
			const unsigned int *key)
{
	unsigned int depth = depth_of(g, key), entry = key[KEY_ENTRY], index;
	unsigned int top = g->stacks.key[key[KEY_STACK]][STACK_RET];
	int label;

	switch (r->action) {
	case BF_ACCEPT:
		bf_verdict(&g->e, NF_ACCEPT);
		return;
	case BF_DROP:
	case BF_ERROR:
		bf_verdict(&g->e, NF_DROP);
		return;
	case BF_XT:
		emit_xt_target(g, r);
		label = next_state(g, key, entry + 1, false, ~0u, &index);
		break;
	case BF_RETURN:
		if (!depth)
			label = next_state(g, key,
					   g->ir->underflow[key[KEY_HOOK]],
					   false, ~0u, &index);
		else
			label = next_state(g, key, top, true, ~0u, &index);
		break;
	case BF_GOTO:
		label = next_state(g, key, r->jump, false, ~0u, &index);
		break;
	case BF_JUMP:
		/* ipt_do_table() pushes nothing to go to the next entry. */
		if (r->jump == entry + 1) {
			label = next_state(g, key, r->jump, false, ~0u,
					   &index);
			break;
		}
		/* A full jump stack drops the packet. */
		if (depth >= g->ir->stacksize) {
			bf_verdict(&g->e, NF_DROP);
			return;
		}
		label = next_state(g, key, r->jump, false, entry + 1, &index);
		break;
	default:
		g->e.err = -EINVAL;
		return;
	}
	bf_gotol(&g->e, label);
}

/* Whether a kernel match of the rule may set hotdrop and match. */
static bool has_xt(const struct bf_rule *r)
{
	unsigned int i;

	for (i = 0; i < r->nmatches; i++)
		if (r->matches[i].kind == BF_MATCH_XT)
			return true;
	return false;
}

/*
 * ipt_do_table() after a match set hotdrop and matched: the rule goes on
 * (counted, its target run if not a standard one), then the packet is
 * dropped.
 */
static void emit_hotdrop(struct gen *g, const struct bf_rule *r)
{
	struct bf_emit *e = &g->e;
	int done;

	if (!has_xt(r))
		return;
	done = bf_new_label(e);
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_HD));
	bf_jmp(e, BPF_JMP_IMM(BPF_JEQ, R1, 0, 0), done);
	/* Whatever its verdict; bpfilter_run() lets NF_STOLEN be. */
	if (r->action == BF_XT)
		bf_emit_xt_call(e, g->ir, r, r->xt, g->btf->xt_target);
	bf_verdict(e, NF_DROP);
	bf_bind(e, done);
}

/* A later match did not match: a hotdrop set before still drops. */
static void emit_hotdrop_fail(struct gen *g, const struct bf_rule *r)
{
	struct bf_emit *e = &g->e;

	if (!has_xt(r))
		return;
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_HD));
	bf_emit(e, BPF_JMP_IMM(BPF_JEQ, R1, 0, 2));
	bf_verdict(e, NF_DROP);
}

/*
 * Emits the state @index and, while the "no match" path leads to a new
 * state, that state right after it.
 */
static void emit_states(struct gen *g, unsigned int index)
{
	struct bf_emit *e = &g->e;

	while (!e->err && !g->states[index].emitted) {
		/* A copy: the keys move when new states are added. */
		unsigned int key[3], entry, fixups, after, run;
		const struct bf_rule *r;
		int fail, next;

		memcpy(key, g->skeys.key[index], sizeof(key));
		entry = key[KEY_ENTRY];
		g->states[index].emitted = true;
		bf_bind(e, g->states[index].label);
		if (entry >= g->ir->nrules) {
			/* Past the last entry: not in a valid table. */
			bf_verdict(e, NF_DROP);
			return;
		}
		run = g->cls && g->cls->run_at ? g->cls->run_at[entry] : 0;
		after = entry + 1;
		r = &g->ir->rules[entry];
		if (run) {
			emit_run(g, &g->cls->runs[run - 1], key);
			after = g->cls->runs[run - 1].end;
		} else if (!bf_rule_never(g->ir->family, r)) {
			fail = bf_new_label(e);
			fixups = e->nfixups;
			if (bf_emit_rule_match(e, g->ir, r, g->btf, fail)) {
				emit_counter(g, entry);
				emit_hotdrop(g, r);
				emit_action(g, r, key);
			}
			/* A rule that always matches has no "no match" path. */
			if (!bf_label_used(e, fixups, fail))
				return;
			bf_bind(e, fail);
			emit_hotdrop_fail(g, r);
		}
		next = next_state(g, key, after, false, ~0u, &index);
		if (g->states[index].emitted)
			bf_gotol(e, next);
	}
}

static void free_gen(struct gen *g)
{
	free_keys(&g->stacks);
	free_keys(&g->skeys);
	free(g->states);
	free(g->work);
	bf_emit_free(&g->e);
}

/**
 * bf_codegen - the program of a table
 * @ir: the table
 * @btf: what the kernel's BTF says
 * @slot: the index of each entry's counter in the map of the counters
 *	(BF_COUNTERS_MAP, a per-CPU array of struct xt_counters); NULL: the
 *	entry's own
 * @cls: runs of the table to classify, or NULL; the times each run's
 *	code is emitted are counted in it. Their map is BF_CLS_MAP.
 * @code: the instructions, to be freed by the caller
 *
 * Return: 0, -E2BIG if the program would have more than BF_MAX_INSNS
 * instructions, or another negative errno.
 */
int bf_codegen(const struct bf_ir *ir, const struct bf_btf *btf,
	       const __u32 *slot, struct bf_cls *cls, struct bf_code *code)
{
	struct gen g = {
		.ir = ir,
		.btf = btf,
		.slot = slot,
		.cls = cls,
	};
	unsigned int h, i, key[3], index, empty[3] = {};
	bool added;
	int err;

	/* Without bpfilter.ko's kfuncs, ip_tables runs the kernel's ones. */
	if ((ir->nxt && btf->xt_match < 0) ||
	    (ir->nxt_targets && btf->xt_target < 0))
		return BF_FALLBACK;

	intern(&g.stacks, empty, &added, &g.e);
	bf_emit_prologue(&g.e, ir, btf);
	bf_emit(&g.e, BPF_LDX_MEM(BPF_B, R1, STATE, btf->state_hook));
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(ir->valid_hooks & (1 << h)))
			continue;
		key[KEY_ENTRY] = ir->hook_entry[h];
		key[KEY_HOOK] = h;
		key[KEY_STACK] = 0;
		bf_emit(&g.e, BPF_JMP_IMM(BPF_JNE, R1, h, 1));
		bf_gotol(&g.e, state_label(&g, key, &index));
	}
	/* Not a hook of the table: bpfilter.ko does not run it there. */
	bf_verdict(&g.e, NF_ACCEPT);

	for (i = 0; i < g.nwork && !g.e.err; i++)
		emit_states(&g, g.work[i]);

	err = bf_resolve(&g.e);
	free_gen(&g);
	if (err) {
		free(g.e.insns);
		return err;
	}
	code->insns = g.e.insns;
	code->len = g.e.len;
	return 0;
}
