// SPDX-License-Identifier: GPL-2.0
/*
 * The tables the helper serves, per network namespace (named by its
 * cookie) and family: validated entries, as IPT_SO_GET_ENTRIES returns
 * them (the kernel keeps a copy and answers it), and the program
 * compiled from them, which the helper keeps open for the kernel to find
 * by id. The kernel runs the program and keeps its counters.
 *
 * A table a request brings is validated and its program compiled in a
 * child without privileges (compile.c), which sends back its plan: the
 * helper checks it, loads the program and keeps the table.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "compile.h"
#include "ir.h"
#include "load.h"
#include "plan.h"
#include "table.h"
#include "update.h"
#include "validate.h"

#define BF_BUCKETS	256
#define BF_MIN_ENTRIES	4
#define FILTER_HOOKS	((1 << NF_INET_LOCAL_IN) | (1 << NF_INET_FORWARD) | \
			 (1 << NF_INET_LOCAL_OUT))

struct bf_table {
	struct bf_table *next;
	__u64 cookie;
	__u8 family;
	char name[XT_TABLE_MAXNAMELEN];
	struct bf_table_info info;
	void *entries;
	struct bf_prog prog;
	bool conntrack;
	unsigned int nxt;
	unsigned int nxt_targets;
};

/* Chained on the namespace cookie; a few tables per namespace. */
static struct bf_table *bf_tables[BF_BUCKETS];

static struct bf_table **bf_bucket(__u64 cookie)
{
	return &bf_tables[(cookie * 0x9E3779B97F4A7C15ull) >> 56];
}

static struct bf_table **bf_find(__u64 cookie, __u8 family,
				 const char *name)
{
	struct bf_table **p;

	for (p = bf_bucket(cookie); *p; p = &(*p)->next)
		if ((*p)->cookie == cookie && (*p)->family == family &&
		    !strncmp((*p)->name, name, sizeof((*p)->name)))
			return p;
	return p;
}

static void bf_free(struct bf_table *t)
{
	bf_unload(&t->prog);
	free(t->entries);
	free(t);
}

static void bf_unlink(struct bf_table **p)
{
	struct bf_table *t = *p;

	if (t) {
		*p = t->next;
		bf_free(t);
	}
}

void bf_table_reset(void)
{
	int i;

	for (i = 0; i < BF_BUCKETS; i++)
		while (bf_tables[i])
			bf_unlink(&bf_tables[i]);
}

/* Size of the entry header: the address match differs by family. */
static size_t bf_entry_size(__u8 family)
{
	return family == NFPROTO_IPV6 ? sizeof(struct ip6t_entry) :
					sizeof(struct ipt_entry);
}

/* The initial table: a policy per hook, all ACCEPT, and the ERROR entry. */
static bool bf_initial(const struct bf_table *t)
{
	const struct xt_standard_target *st;
	unsigned int h;

	if (t->info.number != 4)
		return false;
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(FILTER_HOOKS & (1 << h)))
			continue;
		if (t->info.hook_entry[h] != t->info.underflow[h])
			return false;
		st = (const void *)((const char *)t->entries +
				    t->info.underflow[h] +
				    bf_entry_size(t->family));
		if (st->verdict != -NF_ACCEPT - 1)
			return false;
	}
	return true;
}

/*
 * Validates a replace blob into a new table, listing in @k the entries
 * whose matches the module checks. Returns 0, BF_FALLBACK or a negative
 * errno; with entries in @k, an errno comes after the module's checks.
 */
static int bf_parse(const struct bpfilter_req *req, const void *data,
		    size_t len, struct bf_table **tp, struct bf_kernel *k)
{
	const struct ipt_replace *repl = data;
	struct bf_table *t;
	int err;

	if (len < sizeof(*repl) || len - sizeof(*repl) != repl->size)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	bf_prog_init(&t->prog);
	t->cookie = req->net_cookie;
	t->family = req->family;
	memcpy(t->name, repl->name, sizeof(t->name));
	t->name[sizeof(t->name) - 1] = '\0';
	/* malloc(0) may return NULL; keep one byte. */
	t->entries = malloc(repl->size + 1);
	if (!t->entries) {
		err = -ENOMEM;
		goto err;
	}
	memcpy(t->entries, repl + 1, repl->size);
	err = bf_validate_kernel(req->family, repl, t->entries, &t->info, k);
	if (err)
		goto err;
	if (strcmp(t->name, "filter")) {
		err = -ENOENT;
		goto err;
	}
	/* ip_tables' "You lied!": after translation, like __do_replace. */
	if (repl->valid_hooks != FILTER_HOOKS) {
		err = -EINVAL;
		goto err;
	}
	/*
	 * Smaller than ip_tables' initial table (no ERROR entry at the end,
	 * which iptables always writes): ip_tables keeps it, so that handing
	 * a table back never returns more counters than the caller expects.
	 */
	if (t->info.number < BF_MIN_ENTRIES) {
		err = BF_FALLBACK;
		goto err;
	}
	*tp = t;
	return 0;
err:
	bf_free(t);
	return err;
}

/*
 * The plan of a new table's program, maybe @old's (@old is the table the
 * kernel runs): BF_FALLBACK if it cannot have one.
 */
static int bf_compile(struct bf_table *t, const struct bf_table *old,
		      bool checked, bool jumps, struct bf_plan *plan)
{
	int *from = NULL;
	struct bf_ir ir;
	int err;

	err = bf_ir_build_xt(t->family, t->entries, &t->info, checked, &ir);
	if (err)
		goto out;
	if (old && old->prog.prog_fd >= 0)
		from = bf_entries_from(t->family, old->entries, &old->info,
				       t->entries, &t->info);
	err = bf_prog_plan(&ir, old ? &old->prog : NULL, from, jumps,
			   &plan->prog);
	plan->flags |= ir.conntrack ? BF_PLAN_CONNTRACK : 0;
	plan->nxt = ir.nxt;
	plan->nxt_targets = ir.nxt_targets;
	free(from);
out:
	bf_ir_free(&ir);
	return err;
}

/**
 * struct bf_job - a request the compiling child serves
 * @req: the request
 * @data: its table, a struct ipt_replace and its entries
 * @len: their bytes
 * @xt: the module checks the kernel's matches
 * @load: a replay (BPFILTER_MSG_LOAD): the table only, no program
 * @jumps: classified runs may have jumps out of them
 * @budget: the CPU time in ms its compiling children have left
 */
struct bf_job {
	const struct bpfilter_req *req;
	const void *data;
	size_t len;
	bool xt;
	bool load;
	bool jumps;
	unsigned int budget;
};

/*
 * In the compiling child: what ip_tables' translate_table() checks, then
 * the plan of the program. Whatever happens, a plan goes back.
 */
static void bf_plan_job(void *arg, struct bf_buf *out)
{
	const struct bf_job *job = arg;
	const struct bpfilter_req *req = job->req;
	const struct ipt_replace *repl = job->data;
	const struct bf_table *old;
	struct bf_table *t = NULL;
	struct bf_kernel k = {};
	bool compiled = false;
	struct bf_plan plan;

	bf_plan_init(&plan);
	old = *bf_find(req->net_cookie, req->family, repl->name);
	plan.ret = bf_parse(req, job->data, job->len, &t, job->xt ? &k : NULL);
	if (job->load) {
		/* The module kept the kernel's matches of a table it replays. */
		if (plan.ret > 0)
			plan.ret = -EINVAL;
	} else if (k.n && plan.ret != BF_FALLBACK &&
		   !(req->flags & BPFILTER_REQ_CHECKED)) {
		/* The module checks the kernel's matches first, then asks again. */
		plan.check_err = plan.ret;
		plan.ret = BF_PLAN_CHECK;
		plan.k = k;
	} else if (plan.ret >= 0 && old &&
		   repl->num_counters != old->info.number) {
		plan.ret = -EAGAIN;
	} else if (!plan.ret) {
		plan.ret = bf_compile(t, old, req->flags & BPFILTER_REQ_CHECKED,
				      job->jumps, &plan);
		plan.flags |= BF_PLAN_PROG;
		compiled = true;
	}
	if (!plan.ret) {
		plan.flags |= BF_PLAN_TABLE | (bf_initial(t) ? BF_PLAN_INITIAL : 0);
		plan.info = t->info;
		plan.entries = t->entries;
	} else {
		plan.flags = compiled ? BF_PLAN_COMPILED : 0;
	}
	bf_plan_put(out, &plan);
	bf_kernel_free(&k);
	bf_unload(&plan.prog);
	if (t)
		bf_free(t);
}

/* The module's budget for a request, BF_BUDGET if it gave none. */
static unsigned int bf_budget(const struct bpfilter_req *req)
{
	return req->budget && req->budget < BF_BUDGET ? req->budget : BF_BUDGET;
}

/*
 * @job's plan, made by the compiling child and checked: 0, or the errno
 * the request fails with.
 */
static int bf_plan_run(struct bf_job *job, const struct bf_table *old,
		       struct bf_plan *plan)
{
	struct bf_buf b;
	int err;

	bf_plan_init(plan);
	err = bf_in_child(bf_plan_job, job, &job->budget, &b);
	if (!err)
		err = bf_plan_take(&b, plan) ?:
		      bf_plan_check(plan, job->data, job->load,
				    old ? &old->prog : NULL);
	bf_buf_free(&b);
	if (err == -EBADMSG) {
		fprintf(stderr, "compiler: what it sent back is not a plan\n");
		err = -EIO;
	}
	if (err)
		bf_plan_free(plan);
	return err;
}

/* The table of a request and its plan, which it takes the bytes of. */
static struct bf_table *bf_table_new(const struct bpfilter_req *req,
				     const struct ipt_replace *repl,
				     struct bf_plan *plan)
{
	struct bf_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cookie = req->net_cookie;
	t->family = req->family;
	memcpy(t->name, repl->name, sizeof(t->name));
	t->name[sizeof(t->name) - 1] = '\0';
	t->info = plan->info;
	t->entries = plan->entries;
	plan->entries = NULL;
	t->prog = plan->prog;
	bf_prog_init(&plan->prog);
	t->conntrack = plan->flags & BF_PLAN_CONNTRACK;
	t->nxt = plan->nxt;
	t->nxt_targets = plan->nxt_targets;
	return t;
}

/* struct bpfilter_check: the entries the module checks, the errno after. */
static int bf_put_check(const struct bf_kernel *k, int err,
			struct bf_out *out)
{
	struct bpfilter_check *chk = out->data;
	struct bpfilter_check_entry *ce = (void *)(chk + 1);
	unsigned int i;

	if (out->room < sizeof(*chk) || (out->room - sizeof(*chk)) /
					 sizeof(*ce) < k->n)
		return -EMSGSIZE;
	memset(chk, 0, sizeof(*chk));
	chk->nentries = k->n;
	chk->err = err;
	for (i = 0; i < k->n; i++) {
		ce[i].offset = k->off[i];
		ce[i].hook_mask = k->hooks[i];
		ce[i].flags = k->target[i] ? BPFILTER_CHECK_TARGET : 0;
		ce[i].reserved = 0;
	}
	out->reply->action = BPFILTER_CHECK;
	out->reply->len = sizeof(*chk) + k->n * sizeof(*ce);
	return 0;
}

/*
 * struct bpfilter_layout: the counter of each entry, the map's changes;
 * then the entries as IPT_SO_GET_ENTRIES returns them but the counters,
 * which the kernel keeps to answer it without asking the helper.
 */
static int bf_put_layout(const struct bf_table *t, struct bf_out *out)
{
	const struct bf_prog *prog = &t->prog;
	size_t slots = prog->nslots * sizeof(*prog->slot);
	size_t ops = prog->nops * sizeof(*prog->ops);
	struct bpfilter_layout *lay = out->data;
	char *p = (char *)(lay + 1);

	if (out->room < sizeof(*lay) + slots + ops + t->info.size)
		return -EMSGSIZE;
	memset(lay, 0, sizeof(*lay));
	lay->nslots = prog->nslots;
	lay->nops = prog->nops;
	lay->nxt = t->nxt;
	lay->nxt_targets = t->nxt_targets;
	memcpy(p, prog->slot, slots);
	p += slots;
	/* (No changes, no array: memcpy() wants a pointer all the same.) */
	if (ops)
		memcpy(p, prog->ops, ops);
	p += ops;
	memcpy(p, t->entries, t->info.size);
	p += t->info.size;
	out->reply->len = p - (char *)lay;
	return 0;
}

static int bf_replace(const struct bpfilter_req *req, const void *data,
		      size_t len, struct bf_out *out)
{
	const struct ipt_replace *repl = data;
	struct bf_job job = {
		.req = req, .data = data, .len = len, .budget = bf_budget(req),
	};
	struct bf_table **p, *t = NULL;
	struct bf_plan plan;
	int err;

	if (len < sizeof(*repl))
		return -EINVAL;
	p = bf_find(req->net_cookie, req->family, repl->name);
	/* The kernel's view counts: a table it does not own is stale. */
	if (!(req->flags & BPFILTER_REQ_OWNED) && *p) {
		bf_unlink(p);
		p = bf_find(req->net_cookie, req->family, repl->name);
	}
	job.xt = !(req->flags & BPFILTER_REQ_NOXT) && bf_load_xt();
	job.jumps = !*p || !(*p)->prog.no_jumps;
again:
	err = bf_plan_run(&job, *p, &plan);
	if (err)
		return err;
	err = plan.ret;
	if (err == BF_PLAN_CHECK) {
		err = bf_put_check(&plan.k, plan.check_err, out);
		goto out;
	}
	if (!err) {
		t = bf_table_new(req, repl, &plan);
		if (!t)
			err = -ENOMEM;
	}
	if (!err)
		err = bf_prog_load(req->family, *p ? &(*p)->prog : NULL,
				   &t->prog);
	if (err == -EBADMSG) {
		fprintf(stderr, "compiler: its plan is not one for this table\n");
		err = -EIO;
	}
	if (job.jumps && bf_load_again(err, t ? &t->prog : &plan.prog)) {
		if (t)
			bf_free(t);
		t = NULL;
		bf_plan_free(&plan);
		job.jumps = false;
		goto again;
	}
	if (err == BF_FALLBACK && (t || plan.flags & BF_PLAN_COMPILED))
		fprintf(stderr, "ip_tables serves the table\n");
	if (!err)
		err = bf_put_layout(t, out);
	if (err && t) {
		bf_free(t);
		t = NULL;
	}
out:
	if (err == BF_FALLBACK) {
		/* ip_tables takes it; the kernel says DROP. */
		out->reply->action = BPFILTER_FALLBACK;
		err = 0;
	}
	if (!err && t) {
		if (plan.flags & BF_PLAN_INITIAL)
			out->reply->flags |= BPFILTER_TABLE_INITIAL;
		out->reply->prog_id = t->prog.prog_id;
		if (t->conntrack)
			out->reply->flags |= BPFILTER_TABLE_CONNTRACK;
		t->next = *p ? (*p)->next : NULL;
		if (*p)
			bf_free(*p);
		*p = t;
	}
	bf_plan_free(&plan);
	return err;
}

int bf_table_set(const struct bpfilter_req *req, const void *data,
		 size_t len, struct bf_out *out)
{
	switch (req->cmd) {
	case IPT_SO_SET_REPLACE:
		return bf_replace(req, data, len, out);
	default:
		return -EINVAL;
	}
}

static int bf_get_revision(const struct bpfilter_req *req, const void *data,
			   size_t len, struct bf_out *out)
{
	const struct xt_get_revision *rev = data;
	int ret;

	if (len != sizeof(*rev) || strnlen(rev->name, sizeof(rev->name)) ==
				    sizeof(rev->name))
		return -EINVAL;
	ret = bf_revision(req->family, rev->name, rev->revision,
			  req->cmd == IPT_SO_GET_REVISION_TARGET);
	if (ret == BF_FALLBACK)
		out->reply->action = BPFILTER_FALLBACK;
	else
		out->reply->ret = ret;
	return 0;
}

/* The kernel answers the other get options from its own copy. */
int bf_table_get(const struct bpfilter_req *req, const void *data,
		 size_t len, struct bf_out *out)
{
	if (req->cmd == IPT_SO_GET_REVISION_MATCH ||
	    req->cmd == IPT_SO_GET_REVISION_TARGET)
		return bf_get_revision(req, data, len, out);
	return -EINVAL;
}

/* A table the kernel kept, given again to a restarted helper. */
int bf_table_load(const struct bpfilter_req *req, const void *data,
		  size_t len, struct bf_out *out)
{
	const struct ipt_replace *repl = data;
	struct bf_job job = {
		.req = req, .data = data, .len = len, .xt = true, .load = true,
		.budget = bf_budget(req),
	};
	struct bf_table **p, *t;
	struct bf_plan plan;
	int err;

	if (len < sizeof(*repl))
		return -EINVAL;
	err = bf_plan_run(&job, NULL, &plan) ?: plan.ret;
	t = err ? NULL : bf_table_new(req, repl, &plan);
	bf_plan_free(&plan);
	if (err)
		return err < 0 ? err : -EINVAL;
	if (!t)
		return -ENOMEM;
	p = bf_find(req->net_cookie, req->family, repl->name);
	if (*p) {
		bf_unlink(p);
		p = bf_find(req->net_cookie, req->family, repl->name);
	}
	t->next = NULL;
	*p = t;
	return 0;
}

int bf_table_drop(const struct bpfilter_req *req, const void *data,
		  size_t len, struct bf_out *out)
{
	if (len < XT_TABLE_MAXNAMELEN)
		return -EINVAL;
	bf_unlink(bf_find(req->net_cookie, req->family, data));
	return 0;
}

int bf_table_net_exit(const struct bpfilter_req *req, const void *data,
		      size_t len, struct bf_out *out)
{
	struct bf_table **p = bf_bucket(req->net_cookie);

	while (*p) {
		if ((*p)->cookie == req->net_cookie)
			bf_unlink(p);
		else
			p = &(*p)->next;
	}
	return 0;
}
