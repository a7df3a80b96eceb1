// SPDX-License-Identifier: GPL-2.0
/*
 * The user-mode driver of the KUnit tests: an echo server on its standard
 * input that can be told to crash, hang or break the protocol.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/usermode_driver.h>

#include "umd_kunit.h"

#define MAX_MSG	65536

static char buf[MAX_MSG];

static void reply(struct umd_msg *msg, int status, const void *data, size_t len)
{
	msg->len = sizeof(*msg) + len;
	msg->status = status;
	memmove(msg + 1, data, len);
	if (write(0, msg, msg->len) != (ssize_t)msg->len)
		exit(2);
}

int main(void)
{
	struct umd_msg *msg = (struct umd_msg *)buf;
	struct timespec ts;
	size_t len;
	int v;
	ssize_t n;

	for (;;) {
		n = read(0, buf, sizeof(buf));
		if (n < (ssize_t)sizeof(*msg))
			return 1;
		len = msg->len - sizeof(*msg);
		switch (msg->type) {
		case UMD_TEST_ECHO:
			reply(msg, 0, msg + 1, len);
			break;
		case UMD_TEST_CRASH:
			abort();
		case UMD_TEST_HANG:
			for (;;)
				pause();
		case UMD_TEST_GARBAGE:
			msg->len += 100;
			if (write(0, msg, sizeof(*msg)) < 0)
				return 1;
			break;
		case UMD_TEST_SHORT:
			if (write(0, msg, 3) < 0)
				return 1;
			break;
		case UMD_TEST_STATUS:
			memcpy(&v, msg + 1, sizeof(v));
			reply(msg, v, NULL, 0);
			break;
		case UMD_TEST_SLOW:
			memcpy(&v, msg + 1, sizeof(v));
			ts.tv_sec = v / 1000;
			ts.tv_nsec = (v % 1000) * 1000000L;
			nanosleep(&ts, NULL);
			reply(msg, 0, msg + 1, len);
			break;
		case UMD_TEST_LOG:
			if (write(2, msg + 1, len) < 0)
				return 1;
			reply(msg, 0, msg + 1, len);
			break;
		default:
			reply(msg, -EINVAL, NULL, 0);
		}
	}
}
