// SPDX-License-Identifier: GPL-2.0
/*
 * The filter table of ip_tables or ip6_tables in this namespace, read back
 * as a replace blob the helper's code can take, with its counters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "kernel_table.h"

/* ipt_* and ip6t_* share the layout of what is read here. */
struct ipt_replace *read_table(__u8 family, struct xt_counters **counters)
{
	int level = family == NFPROTO_IPV6 ? IPPROTO_IPV6 : IPPROTO_IP;
	struct ipt_get_entries *get;
	struct ipt_replace *repl;
	struct ipt_getinfo info = { .name = "filter" };
	socklen_t len = sizeof(info);
	unsigned int off, i;
	int fd;

	fd = socket(family == NFPROTO_IPV6 ? AF_INET6 : AF_INET, SOCK_RAW,
		    IPPROTO_RAW);
	if (fd < 0 || getsockopt(fd, level, IPT_SO_GET_INFO, &info, &len)) {
		perror("IPT_SO_GET_INFO");
		exit(2);
	}
	len = sizeof(*get) + info.size;
	get = calloc(1, len);
	strcpy(get->name, "filter");
	get->size = info.size;
	if (getsockopt(fd, level, IPT_SO_GET_ENTRIES, get, &len)) {
		perror("IPT_SO_GET_ENTRIES");
		exit(2);
	}
	close(fd);

	repl = calloc(1, sizeof(*repl) + info.size);
	strcpy(repl->name, "filter");
	repl->valid_hooks = info.valid_hooks;
	repl->num_entries = info.num_entries;
	repl->size = info.size;
	memcpy(repl->hook_entry, info.hook_entry, sizeof(info.hook_entry));
	memcpy(repl->underflow, info.underflow, sizeof(info.underflow));
	repl->num_counters = info.num_entries;
	memcpy(repl + 1, get->entrytable, info.size);
	*counters = calloc(info.num_entries, sizeof(**counters));
	for (off = 0, i = 0; i < info.num_entries; i++) {
		char *e = (char *)get->entrytable + off;

		if (family == NFPROTO_IPV6) {
			(*counters)[i] = ((struct ip6t_entry *)e)->counters;
			off += ((struct ip6t_entry *)e)->next_offset;
		} else {
			(*counters)[i] = ((struct ipt_entry *)e)->counters;
			off += ((struct ipt_entry *)e)->next_offset;
		}
	}
	free(get);
	return repl;
}

