/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BPFILTER_TABLE_H
#define _BPFILTER_TABLE_H

#include <stddef.h>
#include <linux/types.h>

#include "msg.h"

/**
 * struct bf_out - where a request's handler writes its reply
 * @reply: the reply header; @reply->len is the length of @data used
 * @data: the bytes after the header
 * @room: their maximum length
 */
struct bf_out {
	struct bpfilter_reply *reply;
	void *data;
	size_t room;
};

int bf_table_set(const struct bpfilter_req *req, const void *data,
		 size_t len, struct bf_out *out);
int bf_table_get(const struct bpfilter_req *req, const void *data,
		 size_t len, struct bf_out *out);
int bf_table_load(const struct bpfilter_req *req, const void *data,
		  size_t len, struct bf_out *out);
int bf_table_drop(const struct bpfilter_req *req, const void *data,
		  size_t len, struct bf_out *out);
int bf_table_net_exit(const struct bpfilter_req *req, const void *data,
		      size_t len, struct bf_out *out);
void bf_table_reset(void);

#endif /* _BPFILTER_TABLE_H */
