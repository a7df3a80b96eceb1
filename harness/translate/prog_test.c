// SPDX-License-Identifier: GPL-2.0
/*
 * Host test of the bpfilter translator, run in a network namespace of its
 * own after ip_tables has filtered some packets there: the filter table is
 * read back from ip_tables with its counters, compiled by the helper's own
 * code, and the same packets are run through the program with
 * BPF_PROG_TEST_RUN at the same hook. Every counter must be equal.
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
#include "validate.h"

/* struct nf_hook_state's start: hook and pf, the rest must be zero. */
struct hook_ctx {
	__u8 hook;
	__u8 pf;
	__u8 pad[46];
};

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
	err = err ?: bf_load(&ir, &prog);
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

		if (bpf_map_lookup_elem(prog.map_fd, &i, have))
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
	printf("%d packets, %u entries, %u insns, %d counters differ\n", runs,
	       ir.nrules, prog.insns, bad);
	bf_unload(&prog);
	bf_ir_free(&ir);
	free(have);
	free(want);
	free(repl);
	return bad ? 1 : 0;
}
