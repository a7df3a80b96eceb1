// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the bpfilter helper's blob validator, and for the
 * IR and code generator behind it when a blob is valid: the first byte
 * picks the family, then a struct ipt_replace, then the entries.
 * Built and run by fuzz.sh; ./build.sh test runs it for a short while.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include "codegen.h"
#include "ir.h"
#include "validate.h"

/* Any kernel will do: the code is generated, not loaded. */
static const struct bf_btf btf = {
	.dynptr_from_skb = 1000, .ctx_skb = 8, .state_in = 8, .state_out = 16,
	.dev_name = 256, .skb_len = 112, .xt_match = 1001,
	.xt_target = 1002, .ipv6_find_hdr = 1003,
};

static void compile(__u8 family, void *entries,
		    const struct bf_table_info *info)
{
	struct bf_code code = {};
	struct bf_cls cls;
	struct bf_ir ir;

	/* Short runs too, so that the classifier is fuzzed as well. */
	bf_cls_min_run = 2;
	if (!bf_ir_build(family, entries, info, &ir) &&
	    !bf_cls_plan(&ir, true, &cls)) {
		if (!bf_codegen(&ir, &btf, NULL, &cls, &code))
			free(code.insns);
		bf_cls_free(&cls);
	}
	bf_ir_free(&ir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipt_replace repl;
	struct bf_table_info info;
	__u8 family;
	void *entries;

	if (size < 1 + sizeof(repl))
		return 0;
	family = data[0] & 1 ? NFPROTO_IPV6 : NFPROTO_IPV4;
	memcpy(&repl, data + 1, sizeof(repl));
	size -= 1 + sizeof(repl);
	/* The kernel side sends exactly repl.size bytes of entries. */
	if (repl.size > size)
		repl.size = size;
	entries = malloc(repl.size + 1);
	if (!entries)
		return 0;
	memcpy(entries, data + 1 + sizeof(repl), repl.size);
	if (!bf_validate(family, &repl, entries, &info))
		compile(family, entries, &info);
	free(entries);
	if (size >= XT_EXTENSION_MAXNAMELEN + 2)
		bf_revision(family, (const char *)data + 1 + sizeof(repl),
			    data[sizeof(repl)], data[0] & 2);
	return 0;
}
