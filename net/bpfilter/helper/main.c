// SPDX-License-Identifier: GPL-2.0
/*
 * bpfilter's user-mode helper: reads one request at a time from its
 * standard input, the channel to bpfilter.ko, and writes the reply back.
 * What it prints on standard error goes to the kernel log.
 */
#include <errno.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/usermode_driver.h>

#include "compile.h"
#include "load.h"
#include "msg.h"
#include "sandbox.h"
#include "table.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BF_MAX_MSG	(sizeof(struct umd_msg) + BPFILTER_MAX_MSG)

/* Until the first HELLO the kernel's tables are not here: say so. */
static bool bf_synced;

static int bf_hello(struct bf_out *out)
{
	bf_table_reset();
	bf_synced = true;
	out->reply->ret = BPFILTER_PROTO_VERSION;
	return 0;
}

typedef int (*bf_handler)(const struct bpfilter_req *req, const void *data,
			  size_t len, struct bf_out *out);

static const bf_handler bf_handlers[] = {
	[BPFILTER_MSG_SET] = bf_table_set,
	[BPFILTER_MSG_GET] = bf_table_get,
	[BPFILTER_MSG_LOAD] = bf_table_load,
	[BPFILTER_MSG_DROP] = bf_table_drop,
	[BPFILTER_MSG_NET_EXIT] = bf_table_net_exit,
};

/*
 * Serves @msg; the reply's payload is written at @msg + 1. The helper's
 * answer, an errno included, is in the reply: a status in the header is
 * left to the transport, so the kernel can tell the two apart.
 */
static void bf_serve(struct umd_msg *msg, void *in, size_t room)
{
	const struct bpfilter_req *req = in;
	size_t len = msg->len - sizeof(*msg);
	struct bf_out out;
	bf_handler fn;
	int ret;

	out.reply = (struct bpfilter_reply *)(msg + 1);
	out.data = out.reply + 1;
	out.room = room - sizeof(*msg) - sizeof(*out.reply);
	memset(out.reply, 0, sizeof(*out.reply));
	msg->status = 0;

	if (msg->type == BPFILTER_MSG_HELLO) {
		ret = bf_hello(&out);
	} else if (!bf_synced) {
		/* Not an answer: the kernel must give the tables first. */
		msg->status = -ESTALE;
		msg->len = sizeof(*msg);
		return;
	} else if (msg->type >= ARRAY_SIZE(bf_handlers) ||
		   !bf_handlers[msg->type] || len < sizeof(*req) ||
		   req->reserved) {
		ret = -EINVAL;
	} else {
		fn = bf_handlers[msg->type];
		ret = fn(req, req + 1, len - sizeof(*req), &out);
	}
	if (ret < 0) {
		memset(out.reply, 0, sizeof(*out.reply));
		out.reply->ret = ret;
	}
	msg->len = sizeof(*msg) + sizeof(*out.reply) + out.reply->len;
}

int main(void)
{
	struct umd_msg *msg;
	char *in, *out;
	ssize_t n;
	int err;

	/* Requests are read into @in and replies built in @out. */
	in = malloc(BF_MAX_MSG);
	out = malloc(BF_MAX_MSG);
	if (!in || !out) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	/* What any tenant sends is parsed with the least privilege. */
	bf_load_init();
	err = bf_sandbox();
	if (err) {
		fprintf(stderr, "cannot give up privileges: %d\n", err);
		return 1;
	}
	/* Each table is parsed and compiled in a child (compile.c). */
	bf_compile_forks = true;
	for (;;) {
		n = read(0, in, BF_MAX_MSG);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < (ssize_t)sizeof(*msg)) {
			fprintf(stderr, "channel read: %zd\n", n);
			return 1;
		}
		msg = (struct umd_msg *)out;
		memcpy(msg, in, sizeof(*msg));
		if (msg->len != n)
			return 1;
		bf_serve(msg, in + sizeof(*msg), BF_MAX_MSG);
		if (write(0, msg, msg->len) != (ssize_t)msg->len) {
			fprintf(stderr, "channel write failed\n");
			return 1;
		}
		/* Compiling a large table takes memory it no longer needs. */
		malloc_trim(0);
	}
}
