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
 *   and load programs, memory (never executable), its own exit, and a
 *   compiling child per request (compile.c): a plain fork, a pipe, the
 *   wait. No file, socket, pinned BPF object or link, no signal to
 *   another process.
 * The compiling child, which parses what the tenant sent, gives up more:
 * every capability, and all system calls but writing to its pipe, memory
 * and its exit (bf_sandbox_child()).
 * The helper's uid stays 0: another uid would let that user's processes
 * signal it, and the filter lets it open no file it would own.
 */
#include <errno.h>
#include <signal.h>
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
	/* the compiling child (and clone(), below), which then gives up more */
	__NR_pipe2, __NR_wait4, __NR_dup3, __NR_close_range, __NR_capset,
	__NR_setitimer, __NR_getppid,
};

/*
 * The compiling child's, on top of the helper's: its pipe (write() and
 * writev() to its standard output, below), memory and its exit. No read,
 * no bpf(), no process, no signal, no wait: it cannot block, so its CPU
 * time bounds it.
 */
static const int bf_child_syscalls[] = {
	__NR_close, __NR_munmap, __NR_mremap, __NR_brk, __NR_madvise,
	__NR_mmap, __NR_mprotect,
	__NR_exit, __NR_exit_group, __NR_rt_sigreturn, __NR_restart_syscall,
	__NR_sysinfo, __NR_rt_sigprocmask, __NR_rt_sigaction, __NR_getpid,
	__NR_gettid, __NR_clock_gettime,
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

/*
 * Appends to @f: seccomp() is allowed to add a filter, with no flag (no
 * listener, no filter for other threads).
 */
static unsigned int bf_add_filter(struct sock_filter *f)
{
	unsigned int n = 0;

	f[n++] = BF_JEQ(__NR_seccomp, 0, 6);
	f[n++] = BF_LD(BF_ARG(0));
	f[n++] = BF_JEQ(SECCOMP_SET_MODE_FILTER, 0, 2);
	f[n++] = BF_LD(BF_ARG(1));
	f[n++] = BF_JEQ(0, 1, 0);
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

/* Appends to @f: kills the process if it is not of BF_AUDIT_ARCH. */
static unsigned int bf_arch(struct sock_filter *f)
{
	unsigned int n = 0;

	f[n++] = BF_LD(offsetof(struct seccomp_data, arch));
	f[n++] = BF_JEQ(BF_AUDIT_ARCH, 1, 0);
	f[n++] = BF_RET(SECCOMP_RET_KILL_PROCESS);
	f[n++] = BF_LD(BF_NR);
	return n;
}

/* Appends to @f: the system calls of @nr allowed with any arguments. */
static unsigned int bf_any(struct sock_filter *f, const int *nr,
			   unsigned int count)
{
	unsigned int n = 0, i;

	for (i = 0; i < count; i++) {
		f[n++] = BF_JEQ(nr[i], 0, 1);
		f[n++] = BF_RET(SECCOMP_RET_ALLOW);
	}
	return n;
}

static int bf_install(struct sock_filter *f, unsigned int n)
{
	struct sock_fprog prog = { .filter = f, .len = n };

	/* CONFIG_BPFILTER_UMH depends on CONFIG_SECCOMP_FILTER. */
	if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return -errno;
	return 0;
}

static int bf_seccomp(void)
{
	struct sock_filter f[4 + 2 * ARRAY_SIZE(bf_syscalls) +
			     4 + ARRAY_SIZE(bf_bpf_cmds) + 4 * 5 + 7 + 2 * 5 + 1];
	__u32 self = getpid(), zero = 0, fork = SIGCHLD;
	__u32 pdeath = PR_SET_PDEATHSIG;
	unsigned int n;

	n = bf_arch(f);
	n += bf_any(f + n, bf_syscalls, ARRAY_SIZE(bf_syscalls));
	n += bf_arg_in(f + n, __NR_bpf, 0, bf_bpf_cmds,
		       ARRAY_SIZE(bf_bpf_cmds));
	/* Signals to itself only; RLIMIT_MEMLOCK, which libbpf may raise. */
	n += bf_arg_in(f + n, __NR_tgkill, 0, &self, 1);
	n += bf_arg_in(f + n, __NR_prlimit64, 0, &zero, 1);
	/*
	 * A plain fork, and a child that dies with the helper and adds a
	 * filter of its own.
	 */
	n += bf_arg_in(f + n, __NR_clone, 0, &fork, 1);
	n += bf_arg_in(f + n, __NR_prctl, 0, &pdeath, 1);
	n += bf_add_filter(f + n);
	/* Memory, never executable. */
	n += bf_no_exec(f + n, __NR_mmap, 2);
	n += bf_no_exec(f + n, __NR_mprotect, 2);
	f[n++] = BF_RET(SECCOMP_RET_KILL_PROCESS);
	return bf_install(f, n);
}

static int bf_seccomp_child(void)
{
	struct sock_filter f[4 + 2 * ARRAY_SIZE(bf_child_syscalls) +
			     2 * 5 + 1];
	static const __u32 out = 1;
	unsigned int n;

	n = bf_arch(f);
	n += bf_any(f + n, bf_child_syscalls, ARRAY_SIZE(bf_child_syscalls));
	/* Its pipe, its standard output, only. */
	n += bf_arg_in(f + n, __NR_write, 0, &out, 1);
	n += bf_arg_in(f + n, __NR_writev, 0, &out, 1);
	f[n++] = BF_RET(SECCOMP_RET_KILL_PROCESS);
	return bf_install(f, n);
}
#else
static int bf_seccomp(void)
{
	fprintf(stderr, "no seccomp filter on this architecture\n");
	return 0;
}

static int bf_seccomp_child(void)
{
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
	/* No core dump of a crashed child: it has every tenant's tables. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		return -errno;
	err = bf_drop_caps();
	if (!err)
		err = bf_seccomp();
	return err;
}

/**
 * bf_sandbox_child - give up, in a compiling child, all but sending back
 *	what it made
 *
 * Called in the child of bf_in_child(), under the helper's filter, after
 * it closed what it does not need.
 *
 * Return: 0, or a negative errno: the child must then exit.
 */
int bf_sandbox_child(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

	if (syscall(__NR_capset, &hdr, data))
		return -errno;
	return bf_seccomp_child();
}
