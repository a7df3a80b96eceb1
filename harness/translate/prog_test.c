// SPDX-License-Identifier: GPL-2.0
/*
 * Host test of the bpfilter translator, run in a network namespace of its
 * own after ip_tables has filtered some packets there: the filter table is
 * read back from ip_tables with its counters, compiled by the helper's own
 * code, and the same packets are run through the program with
 * BPF_PROG_TEST_RUN at the same hook. Every counter must be equal.
 *
 * With BPFILTER_UPDATE=N, the table is compiled as a change of one rule
 * of another (update.c): N picks a classified run and makes the other
 * table without its last or first rule (iptables -A, -I 1 made the one
 * read back), or with a copy of one of its rules first (-D 1); the
 * changes of the map the
 * helper asks for are made as the kernel makes them.
 *
 * Usage: prog_test 4|6 HOOK < packets (one hex packet per line)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "classify.h"
#include "ir.h"
#include "kernel_table.h"
#include "load.h"
#include "update.h"
#include "validate.h"

/* struct nf_hook_state's start: hook and pf, the rest must be zero. */
struct hook_ctx {
	__u8 hook;
	__u8 pf;
	__u8 pad[46];
};

static struct xt_entry_target *target_of(__u8 family, void *e)
{
	if (family == NFPROTO_IPV6)
		return e + ((struct ip6t_entry *)e)->target_offset;
	return e + ((struct ipt_entry *)e)->target_offset;
}

static __u16 next_of(__u8 family, void *e)
{
	if (family == NFPROTO_IPV6)
		return ((struct ip6t_entry *)e)->next_offset;
	return ((struct ipt_entry *)e)->next_offset;
}

/*
 * @repl with the entry at @off removed, or with a copy of the entry at
 * @src put at @off (@src >= 0): the offsets after @off move.
 */
static struct ipt_replace *change(__u8 family, const struct ipt_replace *repl,
				  unsigned int off, int src)
{
	const char *e = (const char *)(repl + 1) + (src >= 0 ? src : off);
	int size = next_of(family, (void *)e), shift = src >= 0 ? size : -size;
	struct ipt_replace *r = malloc(sizeof(*r) + repl->size + size);
	char *to = (char *)(r + 1);
	unsigned int h, at;
	void *p;

	*r = *repl;
	r->size += shift;
	r->num_entries += src >= 0 ? 1 : -1;
	memcpy(to, repl + 1, off);
	if (src >= 0) {
		memcpy(to + off, e, size);
		memcpy(to + off + size, (char *)(repl + 1) + off,
		       repl->size - off);
	} else {
		memcpy(to + off, e + size, repl->size - off - size);
	}
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (r->hook_entry[h] > off)
			r->hook_entry[h] += shift;
		if (r->underflow[h] > off)
			r->underflow[h] += shift;
	}
	for (at = 0; at < r->size; at += next_of(family, p)) {
		struct xt_standard_target *t;

		p = to + at;
		t = (void *)target_of(family, p);
		if (!t->target.u.user.name[0] && t->verdict >= 0 &&
		    (unsigned int)t->verdict > off)
			t->verdict += shift;
	}
	return r;
}

/* The entry at @index: its offset. */
static unsigned int offset_of(__u8 family, const struct ipt_replace *repl,
			      unsigned int index)
{
	unsigned int at = 0;

	while (index--)
		at += next_of(family, (char *)(repl + 1) + at);
	return at;
}

/*
 * Compiles the table @repl as a change of another one that @seed picks;
 * 1 if the program was kept, 0 if not, -1 on an error.
 */
static int update(__u8 family, struct ipt_replace *repl,
		  struct bf_table_info *info, struct bf_ir *ir,
		  struct bf_prog *prog, unsigned int seed)
{
	struct bf_table_info oinfo;
	struct ipt_replace *old;
	struct bf_prog oprog;
	const struct bf_cls_run *run;
	struct bf_ir oir = {};
	struct bf_cls cls;
	unsigned int entry, how, len, i;
	int *from, err, kept, src;

	if (bf_cls_plan(ir, true, &cls) || !cls.nruns) {
		bf_cls_free(&cls);
		err = bf_load(ir, NULL, NULL, prog);
		return err == BF_FALLBACK ? err : err ? -1 : 0;
	}
	run = &cls.runs[seed % cls.nruns];
	how = seed / cls.nruns % 3;
	entry = how == 0 ? run->end - 1 : run->start;
	len = run->end - run->start;
	/* -D: the first rule of the run, a copy of a later one, is deleted. */
	src = how == 2 ? (int)offset_of(family, repl,
				       run->start + seed % len) : -1;
	bf_cls_free(&cls);
	old = change(family, repl, offset_of(family, repl, entry), src);
	err = bf_validate(family, old, old + 1, &oinfo);
	err = err ?: bf_ir_build(family, old + 1, &oinfo, &oir);
	err = err ?: bf_load(&oir, NULL, NULL, &oprog);
	if (err) {
		fprintf(stderr, "the other table: %d\n", err);
		bf_ir_free(&oir);
		free(old);
		return err == BF_FALLBACK ? err : -1;
	}
	from = bf_entries_from(family, old + 1, &oinfo, repl + 1, info);
	err = bf_load(ir, &oprog, from, prog);
	kept = !err && prog->prog_id == oprog.prog_id;
	/* What the kernel does with the reply. */
	for (i = 0; kept && i < prog->nops; i++) {
		const struct bf_map_op *op = &prog->ops[i];

		if (op->flags & BPFILTER_OP_DELETE)
			err = bpf_map_delete_elem(prog->cls_fd, &op->key);
		else
			err = bpf_map_update_elem(prog->cls_fd, &op->key,
						  &op->value, BPF_ANY);
		if (err) {
			fprintf(stderr, "map change %u: %d\n", i, err);
			break;
		}
	}
	printf("%s: %s entry %u of a run of %u, %u changes\n",
	       kept ? "kept" : "new", how == 0 ? "appended" : how == 1 ?
	       "inserted first" : "deleted first", entry, len, prog->nops);
	free(from);
	bf_unload(&oprog);
	bf_ir_free(&oir);
	free(old);
	return err == BF_FALLBACK ? err : err ? -1 : kept;
}

static int unhex(const char *s, unsigned char *buf, int max)
{
	int n = 0;
	unsigned int b;

	while (n < max && sscanf(s, "%2x", &b) == 1) {
		buf[n++] = b;
		s += 2;
	}
	return n;
}

/* The entries in the classifier's runs. */
static unsigned int classified(const struct bf_ir *ir)
{
	unsigned int n = 0, i;
	struct bf_cls cls;

	if (bf_cls_plan(ir, true, &cls))
		return 0;
	for (i = 0; i < cls.nruns; i++)
		n += cls.runs[i].end - cls.runs[i].start;
	bf_cls_free(&cls);
	return n;
}

int main(int argc, char **argv)
{
	struct xt_counters *want, *have;
	struct hook_ctx ctx = {};
	unsigned char pkt[2048];
	char line[8192];
	struct ipt_replace *repl;
	struct bf_table_info info;
	struct bf_prog prog;
	struct bf_ir ir;
	int ncpus, err, bad = 0, runs = 0;
	unsigned int i;
	__u8 family;

	if (argc != 3)
		return 2;
	/* Short runs of simple rules go through the classifier too. */
	if (getenv("BPFILTER_CLS_MIN"))
		bf_cls_min_run = atoi(getenv("BPFILTER_CLS_MIN"));
	family = atoi(argv[1]) == 6 ? NFPROTO_IPV6 : NFPROTO_IPV4;
	ctx.pf = family;
	ctx.hook = atoi(argv[2]);
	repl = read_table(family, &want);
	err = bf_validate(family, repl, repl + 1, &info);
	if (err) {
		fprintf(stderr, "bf_validate: %d\n", err);
		return 1;
	}
	err = bf_ir_build(family, repl + 1, &info, &ir);
	if (!err && getenv("BPFILTER_UPDATE")) {
		err = update(family, repl, &info, &ir, &prog,
			     atoi(getenv("BPFILTER_UPDATE")));
		err = err > 0 && err != BF_FALLBACK ? 0 : err;
	} else {
		err = err ?: bf_load(&ir, NULL, NULL, &prog);
	}
	/* The verifier's limits: ip_tables serves it, nothing to compare. */
	if (err == BF_FALLBACK) {
		printf("served by ip_tables\n");
		bf_ir_free(&ir);
		free(want);
		free(repl);
		return 3;
	}
	if (err) {
		fprintf(stderr, "compile: %d\n", err);
		return 1;
	}

	while (fgets(line, sizeof(line), stdin)) {
		LIBBPF_OPTS(bpf_test_run_opts, opts,
			.data_in = pkt,
			.ctx_in = &ctx,
			.ctx_size_in = sizeof(ctx),
		);

		opts.data_size_in = unhex(line, pkt, sizeof(pkt));
		err = bpf_prog_test_run_opts(prog.prog_fd, &opts);
		if (err) {
			fprintf(stderr, "test run: %d\n", err);
			return 1;
		}
		runs++;
		if (getenv("VERBOSE"))
			printf("%d %s", opts.retval, line);
	}

	ncpus = libbpf_num_possible_cpus();
	have = calloc(ncpus, sizeof(*have));
	for (i = 0; i < ir.nrules; i++) {
		__u64 p = 0, b = 0;
		int c;

		if (bpf_map_lookup_elem(prog.map_fd, &prog.slot[i], have))
			return 1;
		for (c = 0; c < ncpus; c++) {
			p += have[c].pcnt;
			b += have[c].bcnt;
		}
		if (p != want[i].pcnt || b != want[i].bcnt) {
			printf("entry %u: ip_tables %llu/%llu, bpf %llu/%llu\n",
			       i, (unsigned long long)want[i].pcnt,
			       (unsigned long long)want[i].bcnt,
			       (unsigned long long)p, (unsigned long long)b);
			bad++;
		}
	}
	printf("%d packets, %u entries, %u classified, %u insns, %d counters differ\n",
	       runs, ir.nrules, classified(&ir), prog.insns, bad);
	bf_unload(&prog);
	bf_ir_free(&ir);
	free(have);
	free(want);
	free(repl);
	return bad ? 1 : 0;
}
