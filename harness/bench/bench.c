// SPDX-License-Identifier: GPL-2.0
/*
 * Per-packet cost of a filter table at LOCAL_OUT, on the host, in a network
 * namespace of its own: UDP packets sent through a veth whose peer is down,
 * so the hook runs and nothing answers.
 *
 * Usage: bench 4|6 PACKETS [bpfilter]
 * Prints the nanoseconds a packet took. With "bpfilter", the filter table
 * of ip_tables (or ip6_tables) is compiled by the helper's code, and the
 * program is attached to LOCAL_OUT with a netfilter link in a namespace
 * of its own, set up by the command in $BENCH_SETUP: no table of
 * ip_tables runs there, as none does while bpfilter.ko serves a table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <bpf/bpf.h>
#include <linux/netfilter.h>

#include "ir.h"
#include "kernel_table.h"
#include "load.h"
#include "validate.h"

static int attach(__u8 family, struct bf_prog *prog)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts,
		.netfilter.pf = family,
		.netfilter.hooknum = NF_INET_LOCAL_OUT,
		.netfilter.priority = 0,	/* NF_IP_PRI_FILTER */
	);
	const char *setup = getenv("BENCH_SETUP");
	struct bf_table_info info;
	struct ipt_replace *repl;
	struct xt_counters *c;
	struct bf_ir ir;
	int err, link;

	repl = read_table(family, &c);
	err = bf_validate(family, repl, repl + 1, &info);
	err = err ?: bf_ir_build(family, repl + 1, &info, &ir);
	err = err ?: bf_load(&ir, NULL, NULL, prog);
	if (err) {
		fprintf(stderr, "compile: %d\n", err);
		exit(1);
	}
	/* The table runs as a program only. */
	if (!setup || unshare(CLONE_NEWNET) || system(setup)) {
		perror("namespace");
		exit(1);
	}
	link = bpf_link_create(prog->prog_fd, 0, BPF_NETFILTER, &opts);
	if (link < 0) {
		fprintf(stderr, "link: %d\n", link);
		exit(1);
	}
	free(repl);
	free(c);
	return link;
}

int main(int argc, char **argv)
{
	struct sockaddr_in6 d6 = { .sin6_family = AF_INET6, .sin6_port = htons(9) };
	struct sockaddr_in d4 = { .sin_family = AF_INET, .sin_port = htons(9) };
	__u8 family = argc > 1 && atoi(argv[1]) == 6 ? NFPROTO_IPV6 :
						       NFPROTO_IPV4;
	long n = argc > 2 ? atol(argv[2]) : 100000, i;
	struct timespec t0, t1;
	struct bf_prog prog;
	char payload[64] = {};
	int fd, link = -1;

	if (argc > 3 && !strcmp(argv[3], "bpfilter"))
		link = attach(family, &prog);
	inet_pton(AF_INET, "192.0.2.1", &d4.sin_addr);
	inet_pton(AF_INET6, "2001:db8:ffff::1", &d6.sin6_addr);
	fd = socket(family == NFPROTO_IPV6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || (family == NFPROTO_IPV6 ?
		       connect(fd, (void *)&d6, sizeof(d6)) :
		       connect(fd, (void *)&d4, sizeof(d4)))) {
		perror("socket");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++)
		send(fd, payload, sizeof(payload), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%.1f\n", ((t1.tv_sec - t0.tv_sec) * 1e9 +
			  (t1.tv_nsec - t0.tv_nsec)) / n);
	if (link >= 0) {
		close(link);
		bf_unload(&prog);
	}
	return 0;
}
