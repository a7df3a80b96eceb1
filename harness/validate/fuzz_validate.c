// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the bpfilter helper's blob validator: the first
 * byte picks the family, then a struct ipt_replace, then the entries.
 * Built and run by fuzz.sh; ./build.sh test runs it for a short while.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include "validate.h"

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
	bf_validate(family, &repl, entries, &info);
	free(entries);
	if (size >= XT_EXTENSION_MAXNAMELEN + 2)
		bf_revision(family, (const char *)data + 1 + sizeof(repl),
			    data[sizeof(repl)], data[0] & 2);
	return 0;
}
