// SPDX-License-Identifier: GPL-2.0
/*
 * The helper's stages, timed, on the filter table of this namespace, as
 * read from ip_tables (or ip6_tables): deep.sh's budget test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/resource.h>
#include "kernel_table.h"
#include "validate.h"
#include "ir.h"
#include "classify.h"
#include "codegen.h"
#include "load.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct bf_btf btf = { .xt_match = 1, .xt_target = 2, .ipv6_find_hdr = -1,
			      .module_fd = -1 };
	__u8 family = argc > 1 && atoi(argv[1]) == 6 ? NFPROTO_IPV6 : NFPROTO_IPV4;
	struct xt_counters *want;
	struct ipt_replace *repl;
	struct bf_table_info info;
	struct bf_ir ir;
	struct bf_cls cls;
	struct bf_code code = {};
	struct rusage ru;
	double t0, t1, t2, t3, t4;
	int err;

	t0 = now();
	repl = read_table(family, &want);
	t1 = now();
	err = bf_validate(family, repl, repl + 1, &info);
	err = err ?: bf_ir_build(family, repl + 1, &info, &ir);
	t2 = now();
	err = err ?: bf_cls_plan(&ir, true, &cls);
	t3 = now();
	err = err ?: bf_codegen(&ir, &btf, NULL, &cls, &code);
	t4 = now();
	/* Then as the helper does it, the verifier included. */
	if (getenv("STAGES_LOAD")) {
		struct bf_prog prog;
		double t5 = now();
		int lerr = bf_load(&ir, NULL, NULL, &prog);

		printf("load %d %.3f s\n", lerr, now() - t5);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("size %u err %d read %.3f validate+ir %.3f classify %.3f (runs %u keys %u) codegen %.3f insns %u maxrss %ld MB\n",
	       repl->size, err, t1 - t0, t2 - t1, t3 - t2, cls.nruns, cls.nentries,
	       t4 - t3, code.len, ru.ru_maxrss / 1024);
	return 0;
}
