// SPDX-License-Identifier: GPL-2.0
/*
 * What a tenant sends is validated and compiled in a child of the helper
 * made for the request. The child has no capability and a seccomp filter
 * narrower than the helper's: it may write to a pipe, and exit. It writes
 * what it made of the request (plan.c), after what it would have logged,
 * and exits; the helper, which keeps what loading programs takes, logs
 * that, reads the rest back, checks it and loads it (table.c). (The
 * kernel log takes only the helper's lines.) So:
 * - a memory-safety bug of the parser or the compiler is a process
 *   without privileges, without the kernel's channel and without the
 *   helper's maps and programs;
 * - an input that crashes them fails its own request: the helper serves
 *   on, and no restart of the tenant's helper is spent;
 * - the CPU time of a request's children is its budget (ITIMER_PROF, and
 *   RLIMIT_CPU for a child that would block SIGPROF): past it, the child
 *   is killed, and the request fails with -ENOMEM, as ip_tables fails a
 *   table it cannot take, with a line in the kernel log;
 * - the memory of a compilation is given back when the child exits, and
 *   a child whose helper is gone is killed.
 * A fork costs little next to a compilation, and the child sees the
 * helper's tables, the current program's code among them, as they are.
 */
#define _GNU_SOURCE	/* dup3(), pipe2() */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compile.h"
#include "plan.h"
#include "sandbox.h"

/* Set by the helper; the tests of its code compile in their own process. */
bool bf_compile_forks;

static int write_all(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

/* All the child sends, to its end; -E2BIG past BF_MAX_BUF. */
static int read_all(int fd, struct bf_buf *b)
{
	char chunk[65536];
	ssize_t n;

	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return b->err;
		if (n > BF_MAX_BUF - b->len)
			return -E2BIG;
		bf_put(b, chunk, n);
	}
}

/*
 * The child: its standard output is the pipe, and no other fd is open
 * (the kernel's channel, the kernel log, the helper's maps and programs);
 * what it prints on stderr goes back first, for the helper to log. It
 * exits with 0 once it sent what it made, with ENOMEM or EPERM if it
 * could not.
 */
static void child(int fd, pid_t helper, bf_child_fn fn, void *arg,
		  unsigned int ms)
{
	struct itimerval prof = {
		.it_value = { ms / 1000, ms % 1000 * 1000 },
	};
	struct rlimit cpu = { ms / 1000 + 1, ms / 1000 + 2 };
	struct bf_buf out = {};
	size_t loglen = 0;
	char *log = NULL;
	__u32 len;
	FILE *f;

	/* A helper stopped, its request timed out: no more compiling. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) || getppid() != helper)
		_exit(EPERM);
	if (dup3(fd, 1, 0) < 0 || close(0) ||
	    syscall(__NR_close_range, 2, ~0U, 0) ||
	    setrlimit(RLIMIT_CPU, &cpu) ||
	    setitimer(ITIMER_PROF, &prof, NULL) || bf_sandbox_child())
		_exit(EPERM);
	f = open_memstream(&log, &loglen);
	if (!f)
		_exit(ENOMEM);
	stderr = f;
	fn(arg, &out);
	if (fclose(f) || out.err)
		_exit(ENOMEM);
	len = loglen < BF_MAX_LOG ? loglen : BF_MAX_LOG;
	if (write_all(1, (char *)&len, sizeof(len)) ||
	    write_all(1, log, len) || write_all(1, out.p, out.len))
		_exit(EPERM);
	_exit(0);
}

/*
 * Logs what the child would have, line by line, and takes it off @b: the
 * lines of a process that parsed a tenant's table, printable only.
 */
static int relay_log(struct bf_buf *b)
{
	char line[128];
	size_t n = 0;
	__u32 len;
	char c;

	if (!bf_take(b, &len, sizeof(len)) || len > BF_MAX_LOG ||
	    b->len - b->at < len)
		return -EBADMSG;
	while (len--) {
		c = b->p[b->at++];
		if (c != '\n') {
			if (n < sizeof(line) - 1)
				line[n++] = c >= 0x20 && c < 0x7f ? c : '?';
			continue;
		}
		line[n] = '\0';
		fprintf(stderr, "compiler: %s\n", line);
		n = 0;
	}
	return 0;
}

/* How the child ended: 0 if it sent all it made, or the request's errno. */
static int child_status(int status, unsigned int budget)
{
	if (WIFEXITED(status)) {
		switch (WEXITSTATUS(status)) {
		case 0:
			return 0;
		case ENOMEM:
			fprintf(stderr, "compiler: out of memory\n");
			return -ENOMEM;
		default:
			fprintf(stderr, "compiler: exited with %d\n",
				WEXITSTATUS(status));
			return -EIO;
		}
	}
	switch (WTERMSIG(status)) {
	case SIGPROF:
	case SIGXCPU:
		fprintf(stderr, "table over its compile budget (%u ms of CPU)\n",
			budget);
		return -ENOMEM;
	case SIGKILL:
		/* Its cgroup's OOM killer, most likely. */
		fprintf(stderr, "compiler killed: its request fails\n");
		return -ENOMEM;
	default:
		fprintf(stderr, "compiler killed by signal %d: its request fails\n",
			WTERMSIG(status));
		return -EIO;
	}
}

/* The CPU time of a child, in ms, rounded up. */
static unsigned int used_ms(const struct rusage *ru)
{
	unsigned long long us;

	us = (ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000000ull +
	     ru->ru_utime.tv_usec + ru->ru_stime.tv_usec;
	return (us + 999) / 1000;
}

/**
 * bf_in_child - runs @fn in a compiling child, without privileges
 * @fn: what the child does: it appends what it made to its @out
 * @arg: its argument, which the child sees as the helper had it
 * @budget: the CPU time in ms left to the request, less what the child
 *	takes on return
 * @out: what it made, to be freed with bf_buf_free() in any case
 *
 * Without bf_compile_forks, @fn runs in this process, without a budget.
 *
 * Return: 0, -ENOMEM past the budget, -EIO if the child crashed, or
 * another negative errno.
 */
int bf_in_child(bf_child_fn fn, void *arg, unsigned int *budget,
		struct bf_buf *out)
{
	unsigned int used, ms = *budget;
	pid_t pid, helper = getpid();
	int fds[2], status, err;
	struct rusage ru;

	memset(out, 0, sizeof(*out));
	if (!bf_compile_forks) {
		fn(arg, out);
		return out->err;
	}
	if (!ms) {
		fprintf(stderr, "table over its compile budget\n");
		return -ENOMEM;
	}
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	/* fork(): glibc's takes flags the helper's filter refuses. */
	pid = syscall(__NR_clone, SIGCHLD, 0, 0, 0, 0);
	if (!pid)
		child(fds[1], helper, fn, arg, ms);
	err = pid < 0 ? -errno : 0;
	close(fds[1]);
	if (!err)
		err = read_all(fds[0], out);
	/* A child that sends too much gets EPIPE, and ends. */
	close(fds[0]);
	if (pid < 0)
		return err;
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return -errno;
	used = used_ms(&ru);
	*budget = used < ms ? ms - used : 0;
	if (err == -E2BIG)
		fprintf(stderr, "compiler: more than %zu bytes back\n",
			BF_MAX_BUF);
	if (!err)
		err = child_status(status, ms);
	if (!err)
		err = relay_log(out);
	if (err == -EBADMSG)
		fprintf(stderr, "compiler: what it sent back is not a plan\n");
	return err == -EBADMSG ? -EIO : err;
}
