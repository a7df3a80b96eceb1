// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the user-mode driver core, with umd_test_helper as the
 * driver: lifetime, framing, timeouts, crashes, protocol errors,
 * concurrent callers and fatal signals.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/usermode_driver.h>

#include "umd_kunit.h"

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");

#define MAX_MSG		65536
#define MAX_PAYLOAD	(MAX_MSG - sizeof(struct umd_msg))
#define TIMEOUT		(5 * HZ)

static void umd_test_destroy(void *info)
{
	umd_destroy(info);
}

/* A driver running the test helper, destroyed when the test ends. */
static struct umd_info *umd_test_init(struct kunit *test)
{
	struct umd_info *info = kunit_kzalloc(test, sizeof(*info), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_ASSERT_EQ(test, 0, umd_init(info, "umd_test_helper", umd_test_helper_start,
					  umd_test_helper_end - umd_test_helper_start,
					  MAX_MSG));
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, umd_test_destroy, info));
	return info;
}

static int echo(struct umd_info *info, const void *data, size_t len, void *out)
{
	return umd_call(info, UMD_TEST_ECHO, data, len, out, MAX_PAYLOAD, TIMEOUT);
}

static int call_int(struct umd_info *info, u32 type, s32 v, unsigned long timeout)
{
	char out[16];

	return umd_call(info, type, &v, sizeof(v), out, sizeof(out), timeout);
}

/*
 * The exit drops its references to the pid after waking us, some from RCU
 * callbacks: wait a bounded time for ours to be the last.
 */
static bool pid_refs_settle(struct pid *pid)
{
	int i;

	for (i = 0; i < 100; i++) {
		rcu_barrier();
		if (refcount_read(&pid->count) == 1)
			return true;
		msleep(20);
	}
	return false;
}

/* Wait a bounded time until the helper has read the request in flight. */
static bool request_taken(struct umd_info *info)
{
	int i;

	for (i = 0; i < 250; i++) {
		if (umd_request_taken(info))
			return true;
		msleep(20);
	}
	return false;
}

/* True once the thread group behind @pid has been released. */
static bool pid_gone(struct pid *pid)
{
	return !pid_has_task(pid, PIDTYPE_PID);
}

static void umd_test_start_stop_cycles(struct kunit *test)
{
	int chans = umd_nr_channels();
	struct umd_info *info;
	char out[8];
	struct pid *pid;
	int i;

	info = kunit_kzalloc(test, sizeof(*info), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, info);
	for (i = 0; i < 1000; i++) {
		KUNIT_ASSERT_EQ(test, 0, umd_init(info, "umd_test_helper",
						  umd_test_helper_start,
						  umd_test_helper_end - umd_test_helper_start,
						  MAX_MSG));
		KUNIT_ASSERT_EQ(test, 0, umd_start(info));
		KUNIT_ASSERT_EQ(test, -EBUSY, umd_start(info));
		pid = umd_get_pid(info);
		KUNIT_ASSERT_NOT_NULL(test, pid);
		if (i % 10 == 0)
			KUNIT_ASSERT_EQ(test, 4, echo(info, "ping", 4, out));
		umd_destroy(info);
		KUNIT_EXPECT_TRUE(test, pid_gone(pid));
		/*
		 * Once the RCU callbacks of the exit have run, ours is the
		 * last reference: nothing else kept the pid.
		 */
		if (i % 100 == 0)
			KUNIT_EXPECT_TRUE(test, pid_refs_settle(pid));
		put_pid(pid);
		KUNIT_ASSERT_FALSE(test, umd_alive(info));
		KUNIT_ASSERT_EQ(test, chans, umd_nr_channels());
	}
}

static void umd_test_echo(struct kunit *test)
{
	static const size_t lens[] = { 0, 1, 7, 4096, MAX_PAYLOAD };
	struct umd_info *info = umd_test_init(test);
	u8 *in, *out;
	int i, j;

	in = kunit_kmalloc(test, MAX_MSG, GFP_KERNEL);
	out = kunit_kzalloc(test, MAX_MSG, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);
	for (i = 0; i < MAX_MSG; i++)
		in[i] = i * 7;

	/* The first call starts the helper. */
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		memset(out, 0, lens[i]);
		KUNIT_EXPECT_EQ(test, (int)lens[i], echo(info, in, lens[i], out));
		for (j = 0; j < lens[i]; j++)
			if (out[j] != in[j])
				break;
		KUNIT_EXPECT_EQ(test, (int)lens[i], j);
	}
	KUNIT_EXPECT_EQ(test, -EMSGSIZE, echo(info, in, MAX_PAYLOAD + 1, out));
	KUNIT_EXPECT_TRUE(test, umd_alive(info));
}

static void umd_test_status(struct kunit *test)
{
	struct umd_info *info = umd_test_init(test);

	KUNIT_EXPECT_EQ(test, -ENOENT, call_int(info, UMD_TEST_STATUS, -ENOENT, TIMEOUT));
	KUNIT_EXPECT_EQ(test, 0, call_int(info, UMD_TEST_STATUS, 0, TIMEOUT));
	KUNIT_EXPECT_EQ(test, -EINVAL, call_int(info, 999, 0, TIMEOUT));
	KUNIT_EXPECT_EQ(test, 4, call_int(info, UMD_TEST_LOG, 0x0a6968, TIMEOUT));
}

/*
 * A helper that crashes, breaks the protocol or hangs fails the call
 * promptly and is gone; the next call runs on a new helper.
 */
static void umd_test_failure(struct kunit *test, u32 type, int err, unsigned long timeout)
{
	struct umd_info *info = umd_test_init(test);
	struct pid *old, *new;
	unsigned long t;
	char out[8];

	KUNIT_ASSERT_EQ(test, 2, echo(info, "hi", 2, out));
	old = umd_get_pid(info);
	KUNIT_ASSERT_NOT_NULL(test, old);

	t = jiffies;
	KUNIT_EXPECT_EQ(test, err, call_int(info, type, 0, timeout));
	KUNIT_EXPECT_LT(test, jiffies - t, timeout + 2 * HZ);
	KUNIT_EXPECT_TRUE(test, pid_gone(old));
	KUNIT_EXPECT_FALSE(test, umd_alive(info));

	KUNIT_EXPECT_EQ(test, 2, echo(info, "hi", 2, out));
	new = umd_get_pid(info);
	KUNIT_EXPECT_PTR_NE(test, old, new);
	put_pid(new);
	put_pid(old);
}

static void umd_test_crash(struct kunit *test)
{
	umd_test_failure(test, UMD_TEST_CRASH, -EPIPE, TIMEOUT);
}

static void umd_test_garbage(struct kunit *test)
{
	umd_test_failure(test, UMD_TEST_GARBAGE, -EPIPE, TIMEOUT);
}

static void umd_test_short(struct kunit *test)
{
	umd_test_failure(test, UMD_TEST_SHORT, -EPIPE, TIMEOUT);
}

static void umd_test_hang(struct kunit *test)
{
	umd_test_failure(test, UMD_TEST_HANG, -ETIMEDOUT, HZ / 5);
}

/* A reply longer than the caller's buffer is a protocol error. */
static void umd_test_reply_too_long(struct kunit *test)
{
	struct umd_info *info = umd_test_init(test);
	char out[8];

	KUNIT_EXPECT_EQ(test, -EPIPE, umd_call(info, UMD_TEST_ECHO, "hello", 5, out, 2,
					       TIMEOUT));
	KUNIT_EXPECT_FALSE(test, umd_alive(info));
	KUNIT_EXPECT_EQ(test, 2, echo(info, "hi", 2, out));
}

/* A helper killed from outside is noticed by the next call, not by a timeout. */
static void umd_test_killed(struct kunit *test)
{
	struct umd_info *info = umd_test_init(test);
	unsigned long t;
	struct pid *pid;
	char out[8];

	KUNIT_ASSERT_EQ(test, 2, echo(info, "hi", 2, out));
	pid = umd_get_pid(info);
	KUNIT_ASSERT_NOT_NULL(test, pid);
	kill_pid(pid, SIGKILL, 1);
	while (!pid_gone(pid))
		msleep(20);
	t = jiffies;
	KUNIT_EXPECT_EQ(test, 2, echo(info, "hi", 2, out));
	KUNIT_EXPECT_LT(test, jiffies - t, HZ);
	put_pid(pid);
}

/* Only the helper may use the channel: another task gets -EPERM. */
static void umd_test_other_task(struct kunit *test)
{
	struct umd_info *info = umd_test_init(test);
	struct umd_msg msg = { .len = sizeof(msg), .type = UMD_TEST_ECHO };
	struct file *file;
	char out[8];
	loff_t pos = 0;

	KUNIT_ASSERT_EQ(test, 2, echo(info, "hi", 2, out));
	file = umd_channel_file(info);
	KUNIT_ASSERT_NOT_NULL(test, file);
	/* The check comes before any access to the buffer. */
	KUNIT_EXPECT_EQ(test, -EPERM, file->f_op->write(file, (const char __user *)&msg,
							sizeof(msg), &pos));
	KUNIT_EXPECT_EQ(test, -EPERM, file->f_op->read(file, (char __user *)&msg,
						       sizeof(msg), &pos));
	fput(file);
	KUNIT_EXPECT_EQ(test, 2, echo(info, "hi", 2, out));
	KUNIT_EXPECT_TRUE(test, umd_alive(info));
}

struct umd_caller {
	struct kunit *test;
	struct umd_info *info;
	struct completion done;
	unsigned int id;
	unsigned int n;
	unsigned int errors;
	u32 type;
	s32 arg;
	int ret;
};

static int umd_caller_fn(void *data)
{
	struct umd_caller *c = data;
	u32 in[2], out[2];
	unsigned int i;
	int ret;

	for (i = 0; i < c->n; i++) {
		in[0] = c->id;
		in[1] = i;
		ret = echo(c->info, in, sizeof(in), out);
		if (ret != sizeof(in) || out[0] != c->id || out[1] != i)
			c->errors++;
	}
	kthread_complete_and_exit(&c->done, 0);
}

/* Four callers, 10,000 requests: every reply belongs to its request. */
static void umd_test_concurrent(struct kunit *test)
{
	struct umd_info *info = umd_test_init(test);
	struct task_struct *task;
	struct umd_caller c[4];
	int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		c[i] = (struct umd_caller){ .test = test, .info = info, .id = i, .n = 2500 };
		init_completion(&c[i].done);
		task = kthread_run(umd_caller_fn, &c[i], "umd_caller%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	}
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		wait_for_completion(&c[i].done);
		KUNIT_EXPECT_EQ(test, 0, c[i].errors);
	}
}

static int umd_slow_fn(void *data)
{
	struct umd_caller *c = data;

	allow_signal(SIGKILL);
	c->ret = call_int(c->info, c->type, c->arg, 10 * HZ);
	flush_signals(current);
	kthread_complete_and_exit(&c->done, 0);
}

/* umd_stop() while a request is in flight: the call fails at once. */
static void umd_test_stop_in_flight(struct kunit *test)
{
	struct umd_info *info = umd_test_init(test);
	struct umd_caller c = { .info = info, .type = UMD_TEST_SLOW, .arg = 5000 };
	unsigned long t;

	init_completion(&c.done);
	KUNIT_ASSERT_EQ(test, 0, umd_start(info));
	KUNIT_ASSERT_FALSE(test, IS_ERR(kthread_run(umd_slow_fn, &c, "umd_slow")));
	KUNIT_EXPECT_TRUE(test, request_taken(info));
	t = jiffies;
	umd_stop(info);
	wait_for_completion(&c.done);
	KUNIT_EXPECT_EQ(test, -EPIPE, c.ret);
	KUNIT_EXPECT_LT(test, jiffies - t, 2 * HZ);
}

/*
 * A fatal signal ends the caller's wait; the same helper answers the next
 * call, and its late reply to the abandoned request is dropped.
 */
static void umd_test_fatal_signal(struct kunit *test)
{
	struct umd_info *info = umd_test_init(test);
	struct umd_caller c = { .info = info, .type = UMD_TEST_SLOW, .arg = 300 };
	struct task_struct *task;
	struct pid *old, *new;
	unsigned long t;
	char out[8];

	init_completion(&c.done);
	KUNIT_ASSERT_EQ(test, 2, echo(info, "hi", 2, out));
	old = umd_get_pid(info);
	task = kthread_run(umd_slow_fn, &c, "umd_slow");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	get_task_struct(task);
	/* The caller allows SIGKILL before it calls; the helper has read it. */
	KUNIT_EXPECT_TRUE(test, request_taken(info));
	t = jiffies;
	send_sig(SIGKILL, task, 1);
	put_task_struct(task);
	wait_for_completion(&c.done);
	KUNIT_EXPECT_EQ(test, -EINTR, c.ret);
	KUNIT_EXPECT_LT(test, jiffies - t, HZ / 5);

	KUNIT_EXPECT_EQ(test, 5, echo(info, "again", 5, out));
	KUNIT_EXPECT_EQ(test, 0, memcmp(out, "again", 5));
	new = umd_get_pid(info);
	KUNIT_EXPECT_PTR_EQ(test, old, new);
	put_pid(new);
	put_pid(old);
}

/* A driver that runs @from's executable, destroyed when the test ends. */
static struct umd_info *umd_test_init_shared(struct kunit *test,
					     struct umd_info *from)
{
	struct umd_info *info = kunit_kzalloc(test, sizeof(*info), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, info);
	KUNIT_ASSERT_EQ(test, 0, umd_init_shared(info, from));
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, umd_test_destroy, info));
	return info;
}

/*
 * Drivers of one executable run a helper each, and each may be destroyed
 * first: the others go on, and start their helpers again.
 */
static void umd_test_shared(struct kunit *test)
{
	struct umd_info *info = umd_test_init(test);
	struct umd_info *copy = umd_test_init_shared(test, info);
	struct umd_info *other = umd_test_init_shared(test, copy);
	struct umd_info *none;
	struct pid *pid, *pid2;
	char out[8];

	KUNIT_EXPECT_STREQ(test, info->driver_name, copy->driver_name);
	KUNIT_EXPECT_EQ(test, info->max_msg, copy->max_msg);
	KUNIT_EXPECT_EQ(test, 4, echo(info, "ping", 4, out));
	KUNIT_EXPECT_EQ(test, 4, echo(copy, "pong", 4, out));
	KUNIT_EXPECT_EQ(test, 0, memcmp(out, "pong", 4));
	KUNIT_EXPECT_EQ(test, 4, echo(other, "ping", 4, out));
	pid = umd_get_pid(info);
	pid2 = umd_get_pid(copy);
	KUNIT_EXPECT_NOT_NULL(test, pid);
	KUNIT_EXPECT_NOT_NULL(test, pid2);
	KUNIT_EXPECT_PTR_NE(test, pid, pid2);
	put_pid(pid);
	put_pid(pid2);

	/* Stopping one helper leaves the others running. */
	umd_stop(copy);
	KUNIT_EXPECT_FALSE(test, umd_alive(copy));
	KUNIT_EXPECT_TRUE(test, umd_alive(info));
	KUNIT_EXPECT_TRUE(test, umd_alive(other));
	KUNIT_EXPECT_EQ(test, 4, echo(copy, "ping", 4, out));

	/* A sharing driver goes first, its helper running. */
	kunit_release_action(test, umd_test_destroy, other);
	KUNIT_EXPECT_EQ(test, 4, echo(info, "ping", 4, out));

	/* The first driver goes: the copy's helper runs on, and restarts. */
	kunit_release_action(test, umd_test_destroy, info);
	KUNIT_EXPECT_TRUE(test, umd_alive(copy));
	KUNIT_EXPECT_EQ(test, 4, echo(copy, "ping", 4, out));
	umd_stop(copy);
	KUNIT_EXPECT_EQ(test, 4, echo(copy, "ping", 4, out));

	/* A driver that was destroyed has no executable to share. */
	none = kunit_kzalloc(test, sizeof(*none), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, none);
	KUNIT_EXPECT_EQ(test, -EINVAL, umd_init_shared(none, info));
}

static struct kunit_case umd_test_cases[] = {
	KUNIT_CASE(umd_test_echo),
	KUNIT_CASE(umd_test_shared),
	KUNIT_CASE(umd_test_status),
	KUNIT_CASE(umd_test_crash),
	KUNIT_CASE(umd_test_garbage),
	KUNIT_CASE(umd_test_short),
	KUNIT_CASE(umd_test_hang),
	KUNIT_CASE(umd_test_reply_too_long),
	KUNIT_CASE(umd_test_killed),
	KUNIT_CASE(umd_test_other_task),
	KUNIT_CASE_SLOW(umd_test_concurrent),
	KUNIT_CASE(umd_test_stop_in_flight),
	KUNIT_CASE(umd_test_fatal_signal),
	KUNIT_CASE_SLOW(umd_test_start_stop_cycles),
	{}
};

static struct kunit_suite umd_test_suite = {
	.name = "usermode_driver",
	.test_cases = umd_test_cases,
};

kunit_test_suite(umd_test_suite);

MODULE_DESCRIPTION("KUnit tests for the user-mode driver core");
MODULE_LICENSE("GPL");
