// SPDX-License-Identifier: GPL-2.0
/*
 * What the compiling child (compile.c) made of a request, as it sends it
 * to the helper: a header, then the table's entries, the entries the
 * module checks, and the plan of the program: counter indices, the keys
 * of its classifier's map, the changes of a kept map, the code.
 *
 * The child parsed what a tenant sent: the helper takes nothing of it on
 * trust. Every count is checked against the bytes that came back and
 * against the request, before the helper loads a plan or sends a reply
 * made of it; a plan that is not one fails the request. The verifier
 * checks the code, and the module the reply, as before.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "plan.h"

/**
 * bf_put - appends bytes to what the child sends
 * @b: what it sends
 * @p: the bytes
 * @len: their number
 *
 * On failure @b->err is set, and the rest is not appended.
 */
void bf_put(struct bf_buf *b, const void *p, size_t len)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *n;

	if (b->err || !len)
		return;
	if (len > BF_MAX_BUF - b->len) {
		b->err = -ENOMEM;
		return;
	}
	while (cap - b->len < len)
		cap = cap < BF_MAX_BUF / 2 ? cap * 2 : BF_MAX_BUF;
	if (cap != b->cap) {
		n = realloc(b->p, cap);
		if (!n) {
			b->err = -ENOMEM;
			return;
		}
		b->p = n;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, len);
	b->len += len;
}

/**
 * bf_take - takes the next bytes of what came back
 * @b: what came back
 * @p: where to copy them
 * @len: their number
 *
 * Return: false if fewer are left.
 */
bool bf_take(struct bf_buf *b, void *p, size_t len)
{
	if (b->len - b->at < len)
		return false;
	memcpy(p, b->p + b->at, len);
	b->at += len;
	return true;
}

/**
 * bf_take_array - takes the next @n elements of what came back
 * @b: what came back
 * @n: their number
 * @size: the size of one
 *
 * Return: a copy, to be freed, or NULL if fewer are left, or out of
 * memory (then @b->err is -ENOMEM).
 */
void *bf_take_array(struct bf_buf *b, size_t n, size_t size)
{
	void *p;

	if (size && n > (b->len - b->at) / size)
		return NULL;
	/* One more byte: malloc(0) may return NULL. */
	p = malloc(n * size + 1);
	if (!p)
		b->err = -ENOMEM;
	else
		bf_take(b, p, n * size);
	return p;
}

/**
 * bf_buf_free - frees what the child sent, or made
 * @b: the bytes, empty again
 */
void bf_buf_free(struct bf_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* What comes first: the counts of what follows. */
struct bf_plan_hdr {
	__s32 ret;
	__u32 flags;
	struct bf_table_info info;
	__u32 nxt;
	__u32 nxt_targets;
	__u32 nchecks;
	__s32 check_err;
	__u32 nslots;
	__u32 low;
	__u32 high;
	__u32 cap;
	__u32 nkeys;
	__u32 keys_cap;
	__u32 nops;
	__u32 ninsns;
	__u8 kept;
	__u8 jumps;
	__u8 no_jumps;
	__u8 pad;
};

/**
 * bf_plan_init - an empty plan
 * @plan: the plan, with no table and no program
 */
void bf_plan_init(struct bf_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
	bf_prog_init(&plan->prog);
}

/**
 * bf_plan_put - appends a plan to what the child sends
 * @b: what it sends
 * @plan: what it made
 */
void bf_plan_put(struct bf_buf *b, const struct bf_plan *plan)
{
	const struct bf_prog *prog = &plan->prog;
	struct bf_plan_hdr h = {
		.ret = plan->ret,
		.flags = plan->flags,
		.info = plan->info,
		.nxt = plan->nxt,
		.nxt_targets = plan->nxt_targets,
		.nchecks = plan->k.n,
		.check_err = plan->check_err,
		.nslots = prog->nslots,
		.low = prog->low,
		.high = prog->high,
		.cap = prog->cap,
		.nkeys = prog->nkeys,
		.keys_cap = prog->keys_cap,
		.nops = prog->nops,
		.ninsns = prog->code.len,
		.kept = prog->kept,
		.jumps = prog->jumps,
		.no_jumps = prog->no_jumps,
	};

	bf_put(b, &h, sizeof(h));
	if (plan->flags & BF_PLAN_TABLE)
		bf_put(b, plan->entries, plan->info.size);
	bf_put(b, plan->k.off, plan->k.n * sizeof(*plan->k.off));
	bf_put(b, plan->k.hooks, plan->k.n * sizeof(*plan->k.hooks));
	bf_put(b, plan->k.target, plan->k.n * sizeof(*plan->k.target));
	bf_put(b, prog->slot, prog->nslots * sizeof(*prog->slot));
	bf_put(b, prog->keys, prog->nkeys * sizeof(*prog->keys));
	bf_put(b, prog->ops, prog->nops * sizeof(*prog->ops));
	bf_put(b, prog->code.insns, prog->code.len * sizeof(*prog->code.insns));
}

/**
 * bf_plan_take - reads back what the child sent
 * @b: what came back
 * @plan: the plan, to be freed with bf_plan_free() in any case
 *
 * Return: 0, or -EBADMSG if the bytes are not a plan, -ENOMEM.
 */
int bf_plan_take(struct bf_buf *b, struct bf_plan *plan)
{
	struct bf_prog *prog = &plan->prog;
	struct bf_plan_hdr h;
	size_t n;

	bf_plan_init(plan);
	if (!bf_take(b, &h, sizeof(h)))
		return -EBADMSG;
	plan->ret = h.ret;
	plan->flags = h.flags;
	plan->info = h.info;
	plan->nxt = h.nxt;
	plan->nxt_targets = h.nxt_targets;
	plan->check_err = h.check_err;
	prog->low = h.low;
	prog->high = h.high;
	prog->cap = h.cap;
	prog->keys_cap = h.keys_cap;
	prog->kept = h.kept;
	prog->jumps = h.jumps;
	prog->no_jumps = h.no_jumps;

	n = plan->flags & BF_PLAN_TABLE ? h.info.size : 0;
	plan->entries = bf_take_array(b, n, 1);
	plan->k.off = bf_take_array(b, h.nchecks, sizeof(*plan->k.off));
	plan->k.hooks = bf_take_array(b, h.nchecks, sizeof(*plan->k.hooks));
	plan->k.target = bf_take_array(b, h.nchecks, sizeof(*plan->k.target));
	plan->k.n = h.nchecks;
	prog->slot = bf_take_array(b, h.nslots, sizeof(*prog->slot));
	prog->nslots = h.nslots;
	prog->keys = bf_take_array(b, h.nkeys, sizeof(*prog->keys));
	prog->nkeys = h.nkeys;
	prog->ops = bf_take_array(b, h.nops, sizeof(*prog->ops));
	prog->nops = h.nops;
	prog->code.insns = bf_take_array(b, h.ninsns,
					 sizeof(*prog->code.insns));
	prog->code.len = h.ninsns;
	if (!plan->entries || !plan->k.off || !plan->k.hooks ||
	    !plan->k.target || !prog->slot || !prog->keys || !prog->ops ||
	    !prog->code.insns)
		return b->err ?: -EBADMSG;
	return b->at == b->len ? 0 : -EBADMSG;
}

/* A new program's counter indices are place()'s in load.c. */
static bool new_prog(const struct bf_prog *prog)
{
	__u32 n = prog->nslots, low = n / 16 + 16, i;

	if (prog->low != low || prog->high != low + n ||
	    prog->cap != low + n + n / 8 + 64 || prog->nops ||
	    !prog->code.len || prog->code.len > BF_MAX_INSNS)
		return false;
	if (prog->keys_cap ? prog->keys_cap != bf_keys_cap(prog->nkeys) :
			     prog->nkeys)
		return false;
	for (i = 0; i < n; i++)
		if (prog->slot[i] != low + i)
			return false;
	return true;
}

/* A kept program's are its own, and its map keeps the keys. */
static bool kept_prog(const struct bf_prog *prog, const struct bf_prog *old)
{
	__u32 i;

	if (!old || old->prog_fd < 0 || prog->cap != old->cap ||
	    prog->low > prog->high || prog->high > prog->cap ||
	    prog->nkeys > old->keys_cap || prog->nops > BPFILTER_MAX_OPS ||
	    prog->code.len)
		return false;
	for (i = 0; i < prog->nslots; i++)
		if (prog->slot[i] >= prog->cap)
			return false;
	for (i = 0; i < prog->nops; i++)
		if (prog->ops[i].flags & ~(BPFILTER_OP_DELETE | BPFILTER_OP_OLD) ||
		    prog->ops[i].reserved)
			return false;
	return true;
}

/*
 * The entries the module checks, in order, within the table, at its
 * hooks: what the module would take for a broken helper, and restart.
 */
static bool checks_ok(const struct bf_kernel *k,
		      const struct ipt_replace *repl)
{
	const unsigned char *target = (const void *)k->target;
	unsigned int i;

	if (!k->n || k->n > repl->num_entries)
		return false;
	for (i = 0; i < k->n; i++)
		if ((i && k->off[i] <= k->off[i - 1]) ||
		    k->off[i] >= repl->size ||
		    k->hooks[i] & ~((1u << NF_INET_NUMHOOKS) - 1) ||
		    target[i] > 1)
			return false;
	return true;
}

/* An errno of the helper's; -EPROTO is the module's, for a broken one. */
static bool an_errno(int err)
{
	return err <= 0 && err >= -4095 && err != -EPROTO;
}

/**
 * bf_plan_check - whether a plan is one the helper may load and answer
 * @plan: what came back, taken by bf_plan_take()
 * @repl: the request's table
 * @load: the request is a replay (BPFILTER_MSG_LOAD): a table, no program
 * @old: the program of the table the plan replaces, or NULL
 *
 * Return: 0, or -EBADMSG.
 */
int bf_plan_check(const struct bf_plan *plan,
		  const struct ipt_replace *repl, bool load,
		  const struct bf_prog *old)
{
	const struct bf_prog *prog = &plan->prog;
	unsigned int want = 0;

	if (plan->ret == BF_PLAN_CHECK)
		return !load && checks_ok(&plan->k, repl) &&
		       an_errno(plan->check_err) && !plan->flags ? 0 : -EBADMSG;
	if (plan->k.n)
		return -EBADMSG;
	if (!plan->ret)
		want = BF_PLAN_TABLE | (load ? 0 : BF_PLAN_PROG);
	else if (plan->ret != BF_FALLBACK && !an_errno(plan->ret))
		return -EBADMSG;
	if ((plan->flags & (BF_PLAN_TABLE | BF_PLAN_PROG)) != want)
		return -EBADMSG;
	if (!(want & BF_PLAN_TABLE))
		return prog->nslots || prog->nkeys || prog->code.len ?
		       -EBADMSG : 0;
	if (plan->info.size != repl->size ||
	    plan->info.number != repl->num_entries)
		return -EBADMSG;
	if (!(want & BF_PLAN_PROG))
		return prog->nslots || prog->nkeys || prog->code.len ?
		       -EBADMSG : 0;
	if (prog->nslots != plan->info.number ||
	    prog->nkeys > BF_CLS_MAX_KEYS)
		return -EBADMSG;
	if (prog->kept ? !kept_prog(prog, old) : !new_prog(prog))
		return -EBADMSG;
	return 0;
}

/**
 * bf_plan_free - frees what bf_plan_take() made of a plan
 * @plan: the plan, empty again; a program it had loaded is closed
 */
void bf_plan_free(struct bf_plan *plan)
{
	free(plan->entries);
	bf_kernel_free(&plan->k);
	bf_unload(&plan->prog);
	bf_plan_init(plan);
}
