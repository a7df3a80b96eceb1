// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for every request bpfilter's helper handles, as the
 * module sends them: a replace, a change of that table (a second blob,
 * which the seeds make one rule away from the first), a replay (LOAD)
 * into another namespace and a change of it, IPT_SO_GET_REVISION_*, a
 * table dropped, a namespace gone, and HELLO, which forgets everything.
 * Behind them run the validator, the IR, the classifier, the code
 * generator, the update of a kept program and the loader: programs are
 * loaded by the host's kernel (run it as root, in a network namespace of
 * its own). A reply that breaks what the module checks of it aborts: its
 * room, errno and action, a layout's length, counters and changes (but
 * those of a CHECK, which is never asked for: no kernel match here).
 *
 * Input: a control byte, then one or two blobs, each a family byte, a
 * struct ipt_replace and its entries (repl.size, cut to what is left).
 * Built and run by fuzz_requests.sh.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include "load.h"
#include "msg.h"
#include "table.h"

/* What follows a struct bpfilter_req: a blob, or a name and more. */
struct blob {
	__u8 family;
	const struct ipt_replace *repl;	/* a copy, its size cut */
	const void *entries;		/* in the input */
};

static __u8 *buf;
static size_t buf_size;

/* Takes a blob off @data; false if too short. */
static bool take_blob(const uint8_t **data, size_t *size, struct blob *b,
		      struct ipt_replace *copy)
{
	size_t left;

	if (*size < 1 + sizeof(*copy))
		return false;
	b->family = **data & 1 ? NFPROTO_IPV6 : NFPROTO_IPV4;
	memcpy(copy, *data + 1, sizeof(*copy));
	left = *size - 1 - sizeof(*copy);
	/* The module sends exactly repl.size bytes of entries. */
	if (copy->size > left)
		copy->size = left;
	b->repl = copy;
	b->entries = *data + 1 + sizeof(*copy);
	*data += 1 + sizeof(*copy);
	*size = left;
	return true;
}

/*
 * The request: a struct bpfilter_req, then @len bytes of which the first
 * @hlen come from @head and the rest from @tail.
 */
static struct bpfilter_req *request(__u64 cookie, __u8 family, __u32 cmd,
				    __u32 flags, const void *head,
				    size_t hlen, const void *tail,
				    size_t tlen)
{
	struct bpfilter_req *req = malloc(sizeof(*req) + hlen + tlen + 1);

	if (!req)
		abort();
	*req = (struct bpfilter_req) {
		.net_cookie = cookie, .family = family, .cmd = cmd,
		.len = hlen + tlen, .flags = flags,
	};
	if (hlen)
		memcpy(req + 1, head, hlen);
	if (tlen)
		memcpy((char *)(req + 1) + hlen, tail, tlen);
	return req;
}

/* The program each namespace's table has in the helper, 0 for none. */
static __u32 prog_of[3];
/* What the last replace served left: changes of a kept program. */
static bool last_kept;

/* The room bpfilter_reply_size() makes for a replace's reply. */
static size_t reply_room(const struct ipt_replace *repl)
{
	size_t entries = repl->num_entries;
	size_t layout, check;

	if (entries > repl->size / sizeof(struct ipt_entry))
		entries = repl->size / sizeof(struct ipt_entry);
	layout = sizeof(struct bpfilter_layout) + entries * sizeof(__u32) +
		 BPFILTER_MAX_OPS * BPFILTER_MAX_OP_SIZE + repl->size;
	check = sizeof(struct bpfilter_check) +
		entries * sizeof(struct bpfilter_check_entry);
	return layout > check ? layout : check;
}

/*
 * What bpfilter_install() and bpfilter_layout() check of a served
 * replace in namespace @cookie: the layout, a counter for every entry,
 * changes only of the program the namespace had, then the entries as
 * they read.
 */
static void check_layout(const struct bpfilter_reply *reply,
			 const struct ipt_replace *repl, __u64 cookie)
{
	const struct bpfilter_layout *lay = (const void *)(reply + 1);
	const __u32 *slot = (const void *)(lay + 1);
	const struct bf_map_op *op;
	size_t want;
	__u32 i;

	/* Nothing was CHECKED: no kernel match or target to call. */
	if (reply->len < sizeof(*lay) || lay->nslots != repl->num_entries ||
	    lay->nops > BPFILTER_MAX_OPS || lay->nxt || lay->nxt_targets)
		abort();
	want = sizeof(*lay) + lay->nslots * sizeof(__u32) +
	       lay->nops * sizeof(struct bf_map_op) + repl->size;
	if (reply->len != want || !reply->prog_id)
		abort();
	/* Each entry has a counter of its own. */
	for (i = 1; i < lay->nslots; i++)
		if (slot[i] == slot[i - 1])
			abort();
	op = (const void *)(slot + lay->nslots);
	for (i = 0; i < lay->nops; i++)
		if (op[i].reserved ||
		    op[i].flags & ~(BPFILTER_OP_DELETE | BPFILTER_OP_OLD))
			abort();
	last_kept = reply->prog_id == prog_of[cookie];
	if (lay->nops && !last_kept)
		abort();
	prog_of[cookie] = reply->prog_id;
}

/*
 * Sends a request to @fn as main.c does, with the room the module makes
 * for its reply, and checks the reply as the module does. Returns the
 * helper's answer: its errno, or the reply's action.
 */
static int serve(int (*fn)(const struct bpfilter_req *, const void *,
			   size_t, struct bf_out *),
		 struct bpfilter_req *req)
{
	const struct ipt_replace *repl = (const void *)(req + 1);
	bool set = fn == bf_table_set && req->cmd == IPT_SO_SET_REPLACE;
	struct bf_out out = {
		.reply = (struct bpfilter_reply *)buf,
		.data = buf + sizeof(struct bpfilter_reply),
		.room = set ? reply_room(repl) : 0,
	};
	int ret;

	if (out.room > buf_size - sizeof(struct bpfilter_reply))
		abort();
	memset(out.reply, 0, sizeof(*out.reply));
	ret = fn(req, req + 1, req->len, &out);
	/* main.c sends an errno as the reply's, with nothing after it. */
	if (ret < -4095 || out.reply->ret < -4095)
		abort();
	if (ret < 0)
		goto out;
	if (out.reply->len > out.room || out.reply->action > BPFILTER_CHECK ||
	    (out.reply->action == BPFILTER_FALLBACK && out.reply->len))
		abort();
	if (set && out.reply->action == BPFILTER_DONE)
		check_layout(out.reply, repl, req->net_cookie);
	/* Whatever else it did, the helper has no program for the table. */
	if (fn == bf_table_load || fn == bf_table_drop ||
	    fn == bf_table_net_exit || (set && out.reply->action != BPFILTER_DONE))
		prog_of[req->net_cookie] = 0;
	ret = out.reply->action;
out:
	free(req);
	return ret;
}

/* A replace of @b in namespace @cookie; true if the helper serves it. */
static bool replace(__u64 cookie, const struct blob *b, bool owned,
		    __u32 num_counters)
{
	struct ipt_replace hdr = *b->repl;
	struct bpfilter_req *req;

	hdr.num_counters = num_counters;
	hdr.counters = NULL;
	req = request(cookie, b->family, IPT_SO_SET_REPLACE,
		      owned ? BPFILTER_REQ_OWNED : 0, &hdr, sizeof(hdr),
		      b->entries, b->repl->size);
	return serve(bf_table_set, req) == BPFILTER_DONE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {
		"tcp", "udp", "LOG", "REJECT", "limit", "nonexistent", NULL,
	};
	struct ipt_replace ra, rb;
	struct xt_get_revision rev = {};
	struct blob a, b;
	bool has_b, served;
	__u8 ctl;

	if (size < 1)
		return 0;
	ctl = data[0];
	data++;
	size--;
	if (!take_blob(&data, &size, &a, &ra))
		return 0;
	/* The second blob starts where the first one's entries end. */
	data += ra.size;
	size -= ra.size;
	has_b = take_blob(&data, &size, &b, &rb) && b.family == a.family;
	buf_size = sizeof(struct bpfilter_reply) + reply_room(&ra) +
		   (has_b ? reply_room(&rb) : 0);
	buf = malloc(buf_size);
	if (!buf)
		return 0;

	/* A namespace's replace, then a change of what it got. */
	served = replace(1, &a, false, ra.num_entries);
	if (has_b)
		served = replace(1, &b, served,
				 served ? ra.num_entries : rb.num_counters);
	/*
	 * fuzz_requests.sh first runs a seed one rule away, which the helper
	 * must serve with the program kept: else the host loads no program
	 * and the fuzzing would test nothing past the validator.
	 */
	if (getenv("BF_EXPECT_KEPT") && !(has_b && served && last_kept)) {
		fprintf(stderr, "the change by one rule was %s\n",
			served ? "served with a new program" : "not served");
		abort();
	}

	/* A restarted helper is given a table, then changes it. */
	if (ctl & 1) {
		serve(bf_table_load,
		      request(2, a.family, IPT_SO_SET_REPLACE, 0, a.repl,
			      sizeof(ra), a.entries, ra.size));
		if (has_b)
			replace(2, &b, true, ra.num_entries);
	}

	/* Revisions, by a name the helper knows or one of the input's. */
	if (names[(ctl >> 1) % 7])
		strcpy(rev.name, names[(ctl >> 1) % 7]);
	else
		memcpy(rev.name, a.repl->name, sizeof(rev.name));
	rev.revision = ctl >> 4;
	serve(bf_table_get,
	      request(1, a.family, ctl & 0x80 ? IPT_SO_GET_REVISION_TARGET :
						IPT_SO_GET_REVISION_MATCH,
		      0, &rev, sizeof(rev) - (ctl & 0x40 ? 1 : 0), NULL, 0));
	/* The module answers these itself now: the helper refuses them. */
	if (serve(bf_table_get,
		  request(1, a.family, IPT_SO_GET_INFO, 0, a.repl->name,
			  XT_TABLE_MAXNAMELEN, NULL, 0)) != -EINVAL)
		abort();

	if (ctl & 0x20)
		serve(bf_table_drop,
		      request(1, a.family, 0, 0, a.repl->name,
			      XT_TABLE_MAXNAMELEN, NULL, 0));
	if (ctl & 0x10)
		serve(bf_table_net_exit,
		      request(2, a.family, 0, 0, NULL, 0, NULL, 0));
	/* HELLO: the helper forgets every table, and closes its programs. */
	bf_table_reset();
	memset(prog_of, 0, sizeof(prog_of));
	free(buf);
	return 0;
}
