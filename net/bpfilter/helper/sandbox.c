// SPDX-License-Identifier: GPL-2.0
/*
 * The helper parses and compiles what any tenant sends it. Once it has
 * read what it needs from files (the kernel's BTF), it gives up what
 * loading programs does not take, so that a memory-safety bug in the
 * parser is not host root:
 * - of the capabilities, CAP_BPF (maps and programs), CAP_NET_ADMIN
 *   (netfilter programs) and CAP_PERFMON (the verifier checks the
 *   programs as root's: without it, it would refuse their pointer
 *   arithmetic) stay; no other, none that an exec could give back;
 * - a seccomp filter kills it at any system call but those it makes:
 *   reading and writing its channel, the bpf() commands that create maps
 *   and load programs, memory (never executable) and its own exit. No
 *   file, socket, process, pinned BPF object or link, no signal to
 *   another process.
 * The helper's uid stays 0: another uid would let that user's processes
 * signal it, and the filter lets it open no file it would own.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "sandbox.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#if defined(__x86_64__)
#define BF_AUDIT_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define BF_AUDIT_ARCH	AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define BF_AUDIT_ARCH	AUDIT_ARCH_RISCV64
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BF_AUDIT_ARCH	AUDIT_ARCH_PPC64LE
#endif

static const unsigned int bf_kept_caps[] = {
	CAP_BPF, CAP_NET_ADMIN, CAP_PERFMON,
};

/* The system calls the helper makes with any arguments. */
static const int bf_syscalls[] = {
	__NR_read, __NR_write, __NR_close,
	__NR_munmap, __NR_mremap, __NR_brk, __NR_madvise,
	__NR_exit, __NR_exit_group, __NR_rt_sigreturn, __NR_restart_syscall,
	/* glibc's qsort() asks for the memory size; its fatal messages */
	__NR_sysinfo, __NR_writev,
	/* abort(), for a failed assertion: a signal to itself (below) */
	__NR_rt_sigprocmask, __NR_rt_sigaction, __NR_getpid, __NR_gettid,
	__NR_futex, __NR_clock_gettime,
};

/*
 * The bpf() commands it gives after it has read the BTF: no link, no
 * pinned object, no program run, no object of another by id.
 */
static const __u32 bf_bpf_cmds[] = {
	BPF_MAP_CREATE, BPF_PROG_LOAD, BPF_OBJ_GET_INFO_BY_FD,
	BPF_MAP_UPDATE_BATCH,
};

static int bf_drop_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
	unsigned int i, cap;

	for (i = 0; i < ARRAY_SIZE(bf_kept_caps); i++) {
		cap = bf_kept_caps[i];
		data[CAP_TO_INDEX(cap)].effective |= CAP_TO_MASK(cap);
		data[CAP_TO_INDEX(cap)].permitted |= CAP_TO_MASK(cap);
	}
	/* Out of the bounding set first: that takes CAP_SETPCAP. */
	for (cap = 0; cap <= CAP_LAST_CAP; cap++) {
		if (data[CAP_TO_INDEX(cap)].permitted & CAP_TO_MASK(cap))
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL)
			return -errno;
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) &&
	    errno != EINVAL)
		return -errno;
	if (syscall(__NR_capset, &hdr, data))
		return -errno;
	return 0;
}

#ifdef BF_AUDIT_ARCH
/* Classic BPF instructions, as values. */
#define BF_LD(off) \
	((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off)))
#define BF_RET(v)	((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, (v)))
#define BF_JMP(op, k, t, f) \
	((struct sock_filter)BPF_JUMP(BPF_JMP | (op) | BPF_K, (k), (t), (f)))
#define BF_JEQ(k, t, f)	BF_JMP(BPF_JEQ, k, t, f)
#define BF_NR		offsetof(struct seccomp_data, nr)
/* The low half of an argument: the values tested fit in it. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BF_ARG(n)	offsetof(struct seccomp_data, args[n])
#else
#define BF_ARG(n)	(offsetof(struct seccomp_data, args[n]) + 4)
#endif

/*
 * Appends to @f: a system call @nr is allowed if its argument @arg is one
 * of @vals, and kills the helper if not. Returns the instructions added.
 */
static unsigned int bf_arg_in(struct sock_filter *f, int nr, unsigned int arg,
			      const __u32 *vals, unsigned int nvals)
{
	unsigned int n = 0, i;

	/* Past this block, where the number is still in A, if not @nr. */
	f[n++] = BF_JEQ(nr, 0, nvals + 3);
	f[n++] = BF_LD(BF_ARG(arg));
	for (i = 0; i < nvals; i++)
		f[n++] = BF_JEQ(vals[i], nvals - i, 0);
	f[n++] = BF_RET(SECCOMP_RET_KILL_PROCESS);
	f[n++] = BF_RET(SECCOMP_RET_ALLOW);
	return n;
}

/* Appends to @f: @nr is allowed if its @arg has no PROT_EXEC. */
static unsigned int bf_no_exec(struct sock_filter *f, int nr, unsigned int arg)
{
	unsigned int n = 0;

	f[n++] = BF_JEQ(nr, 0, 4);
	f[n++] = BF_LD(BF_ARG(arg));
	f[n++] = BF_JMP(BPF_JSET, PROT_EXEC, 0, 1);
	f[n++] = BF_RET(SECCOMP_RET_KILL_PROCESS);
	f[n++] = BF_RET(SECCOMP_RET_ALLOW);
	return n;
}

static int bf_seccomp(void)
{
	struct sock_filter f[4 + 2 * ARRAY_SIZE(bf_syscalls) +
			     4 + ARRAY_SIZE(bf_bpf_cmds) + 2 * 5 + 2 * 5 + 1];
	struct sock_fprog prog = { .filter = f };
	__u32 self = getpid(), zero = 0;
	unsigned int n = 0, i;

	f[n++] = BF_LD(offsetof(struct seccomp_data, arch));
	f[n++] = BF_JEQ(BF_AUDIT_ARCH, 1, 0);
	f[n++] = BF_RET(SECCOMP_RET_KILL_PROCESS);
	f[n++] = BF_LD(BF_NR);
	for (i = 0; i < ARRAY_SIZE(bf_syscalls); i++) {
		f[n++] = BF_JEQ(bf_syscalls[i], 0, 1);
		f[n++] = BF_RET(SECCOMP_RET_ALLOW);
	}
	n += bf_arg_in(f + n, __NR_bpf, 0, bf_bpf_cmds,
		       ARRAY_SIZE(bf_bpf_cmds));
	/* Signals to itself only; RLIMIT_MEMLOCK, which libbpf may raise. */
	n += bf_arg_in(f + n, __NR_tgkill, 0, &self, 1);
	n += bf_arg_in(f + n, __NR_prlimit64, 0, &zero, 1);
	/* Memory, never executable. */
	n += bf_no_exec(f + n, __NR_mmap, 2);
	n += bf_no_exec(f + n, __NR_mprotect, 2);
	f[n++] = BF_RET(SECCOMP_RET_KILL_PROCESS);
	prog.len = n;

	/* CONFIG_BPFILTER_UMH depends on CONFIG_SECCOMP_FILTER. */
	if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return -errno;
	return 0;
}
#else
static int bf_seccomp(void)
{
	fprintf(stderr, "no seccomp filter on this architecture\n");
	return 0;
}
#endif

/**
 * bf_sandbox - give up what the helper does not need
 *
 * Called once, before the first request, after the kernel's BTF is read.
 *
 * Return: 0, or a negative errno: the helper must then not serve.
 */
int bf_sandbox(void)
{
	int err;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	err = bf_drop_caps();
	if (!err)
		err = bf_seccomp();
	return err;
}
