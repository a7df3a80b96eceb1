// SPDX-License-Identifier: GPL-2.0
/*
 * The floor of the per-packet cost (issue 19): a BPF_PROG_TYPE_NETFILTER
 * program that only returns NF_ACCEPT, attached with a netfilter link at
 * the filter table's place in LOCAL_OUT of this namespace, or at each
 * HOOK given (1 LOCAL_IN, 2 FORWARD, 3 LOCAL_OUT), until killed.
 * Plain syscalls: Debian 12's headers predate netfilter links.
 * Usage: floor 4|6 [HOOK...]   (prints "ready" once attached)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <sys/syscall.h>

#define PROG_TYPE_NETFILTER	32	/* BPF_PROG_TYPE_NETFILTER */
#define ATTACH_NETFILTER	45	/* BPF_NETFILTER */
#define NFPROTO_IPV4		2
#define NFPROTO_IPV6		10
#define LOCAL_OUT		3	/* NF_INET_LOCAL_OUT */
#define PRI_FILTER		0	/* NF_IP_PRI_FILTER, NF_IP6_PRI_FILTER */

/* union bpf_attr's BPF_LINK_CREATE for a netfilter link, as of 6.4. */
struct link_create {
	__u32 prog_fd, target_fd, attach_type, flags;
	__u32 pf, hooknum;
	__s32 priority;
	__u32 nf_flags;
};

int main(int argc, char **argv)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 1 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct link_create link = {
		.attach_type = ATTACH_NETFILTER,
		.hooknum = LOCAL_OUT,
		.priority = PRI_FILTER,
	};
	union bpf_attr attr;
	int prog, fd, i;

	if (argc < 2)
		return 2;
	link.pf = atoi(argv[1]) == 6 ? NFPROTO_IPV6 : NFPROTO_IPV4;
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = PROG_TYPE_NETFILTER;
	attr.expected_attach_type = ATTACH_NETFILTER;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = 2;
	attr.license = (unsigned long)"GPL";
	prog = syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (prog < 0) {
		perror("floor: BPF_PROG_LOAD");
		return 1;
	}
	link.prog_fd = prog;
	for (i = 2; i < argc || i == 2; i++) {
		if (i < argc)
			link.hooknum = atoi(argv[i]);
		memset(&attr, 0, sizeof(attr));
		memcpy(&attr, &link, sizeof(link));
		fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
		if (fd < 0) {
			perror("floor: BPF_LINK_CREATE");
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	pause();
	return 0;
}
