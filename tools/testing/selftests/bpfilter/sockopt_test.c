// SPDX-License-Identifier: GPL-2.0
/*
 * The iptables-legacy socket interface, driven with raw sockopts in a new
 * network namespace, for IPv4 and IPv6. The expectations are those of
 * ip_tables and ip6_tables; bpfilter must meet them unchanged.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/netfilter/xt_DSCP.h>
#include <linux/netfilter/xt_TCPMSS.h>
#include <linux/netfilter/xt_limit.h>
#include <linux/netfilter/xt_mark.h>
#include <linux/netfilter/xt_tcpudp.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

#include "../kselftest_harness.h"

/*
 * ipt_* and ip6t_* differ only in the address header: the fields after it
 * are the same, at offsets relative to its size.
 */
static_assert(offsetof(struct ipt_entry, target_offset) == sizeof(struct ipt_ip) + 4, "");
static_assert(offsetof(struct ipt_entry, next_offset) == sizeof(struct ipt_ip) + 6, "");
static_assert(offsetof(struct ipt_entry, comefrom) == sizeof(struct ipt_ip) + 8, "");
static_assert(offsetof(struct ipt_entry, counters) == sizeof(struct ipt_entry) - 16, "");
static_assert(offsetof(struct ip6t_entry, target_offset) == sizeof(struct ip6t_ip6) + 4, "");
static_assert(offsetof(struct ip6t_entry, next_offset) == sizeof(struct ip6t_ip6) + 6, "");
static_assert(offsetof(struct ip6t_entry, comefrom) == sizeof(struct ip6t_ip6) + 8, "");
static_assert(offsetof(struct ip6t_entry, counters) == sizeof(struct ip6t_entry) - 16, "");
static_assert(sizeof(struct ipt_replace) == sizeof(struct ip6t_replace), "");
static_assert(sizeof(struct ipt_getinfo) == sizeof(struct ip6t_getinfo), "");
static_assert(IPT_SO_SET_REPLACE == IP6T_SO_SET_REPLACE, "");
static_assert(IPT_SO_GET_ENTRIES == IP6T_SO_GET_ENTRIES, "");

#define FILTER_HOOKS	((1 << NF_INET_LOCAL_IN) | (1 << NF_INET_FORWARD) | \
			 (1 << NF_INET_LOCAL_OUT))
#define STD_TARGET	XT_ALIGN(sizeof(struct xt_standard_target))
#define ERR_TARGET	XT_ALIGN(sizeof(struct xt_error_target))
#define MAX_ENTRIES	40
#define BLOB_MAX	16384

/* A table under construction: a flat blob and the offsets of its entries. */
struct blob {
	size_t iphdr;		/* sizeof(struct ipt_ip) or ip6t_ip6 */
	size_t ehdr;		/* sizeof(struct ipt_entry) or ip6t_entry */
	size_t size;
	unsigned int num;
	unsigned int off[MAX_ENTRIES];
	unsigned int hook[NF_INET_NUMHOOKS];	/* entry index of each hook */
	unsigned int under[NF_INET_NUMHOOKS];	/* entry index of each policy */
	unsigned char data[BLOB_MAX];
};

/* Names in the uapi structs are fixed-size and NUL-terminated. */
static void set_name(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src);
}

static __u16 *target_offset(struct blob *b, unsigned int off)
{
	return (__u16 *)(b->data + off + b->iphdr + 4);
}

static __u16 *next_offset(struct blob *b, unsigned int off)
{
	return (__u16 *)(b->data + off + b->iphdr + 6);
}

static unsigned int *comefrom(struct blob *b, unsigned int off)
{
	return (unsigned int *)(b->data + off + b->iphdr + 8);
}

static struct xt_counters *counters(struct blob *b, unsigned int off)
{
	return (struct xt_counters *)(b->data + off + b->ehdr - sizeof(struct xt_counters));
}

static void *target_of(struct blob *b, unsigned int off)
{
	return b->data + off + *target_offset(b, off);
}

static void new_entry(struct blob *b, unsigned int off, size_t tsize)
{
	memset(b->data + off, 0, b->ehdr + tsize);
	*target_offset(b, off) = b->ehdr;
	*next_offset(b, off) = b->ehdr + tsize;
}

/* Append an entry with no match and a standard target (verdict or jump). */
static unsigned int add_standard(struct blob *b, int verdict)
{
	unsigned int off = b->size;
	struct xt_standard_target *t;

	new_entry(b, off, STD_TARGET);
	t = target_of(b, off);
	t->target.u.user.target_size = STD_TARGET;
	t->verdict = verdict;
	b->off[b->num++] = off;
	b->size += b->ehdr + STD_TARGET;
	return off;
}

/* Append an ERROR entry: a user chain head, or the table's last entry. */
static unsigned int add_error(struct blob *b, const char *name)
{
	unsigned int off = b->size;
	struct xt_error_target *t;

	new_entry(b, off, ERR_TARGET);
	t = target_of(b, off);
	t->target.u.user.target_size = ERR_TARGET;
	set_name(t->target.u.user.name, sizeof(t->target.u.user.name), XT_ERROR_TARGET);
	set_name(t->errorname, sizeof(t->errorname), name);
	b->off[b->num++] = off;
	b->size += b->ehdr + ERR_TARGET;
	return off;
}

#define VERDICT(v)	(-(v) - 1)

FIXTURE(filter) {
	int fd;
	int level;
	int security;		/* ip_tables' security table is there */
	struct blob blob;
	struct ipt_replace *repl;
};

FIXTURE_VARIANT(filter) {
	int family;
	int level;
	size_t iphdr;
	size_t ehdr;
	int rev_match;
	int rev_target;
};

FIXTURE_VARIANT_ADD(filter, ipv4) {
	.family = AF_INET,
	.level = IPPROTO_IP,
	.iphdr = sizeof(struct ipt_ip),
	.ehdr = sizeof(struct ipt_entry),
	.rev_match = IPT_SO_GET_REVISION_MATCH,
	.rev_target = IPT_SO_GET_REVISION_TARGET,
};

FIXTURE_VARIANT_ADD(filter, ipv6) {
	.family = AF_INET6,
	.level = IPPROTO_IPV6,
	.iphdr = sizeof(struct ip6t_ip6),
	.ehdr = sizeof(struct ip6t_entry),
	.rev_match = IP6T_SO_GET_REVISION_MATCH,
	.rev_target = IP6T_SO_GET_REVISION_TARGET,
};

static int get_info(int fd, int level, const char *table, struct ipt_getinfo *info);

FIXTURE_SETUP(filter)
{
	struct ipt_getinfo info;

	ASSERT_EQ(0, unshare(CLONE_NEWNET)) TH_LOG("unshare: %s", strerror(errno));
	self->fd = socket(variant->family, SOCK_RAW, IPPROTO_RAW);
	ASSERT_LE(0, self->fd);
	self->level = variant->level;
	self->blob.iphdr = variant->iphdr;
	self->blob.ehdr = variant->ehdr;
	self->repl = calloc(1, sizeof(*self->repl) + BLOB_MAX);
	ASSERT_NE(NULL, self->repl);
	self->security = !get_info(self->fd, self->level, "security", &info);
}

FIXTURE_TEARDOWN(filter)
{
	free(self->repl);
	close(self->fd);
}

static int get_info(int fd, int level, const char *table, struct ipt_getinfo *info)
{
	socklen_t len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	set_name(info->name, sizeof(info->name), table);
	if (getsockopt(fd, level, IPT_SO_GET_INFO, info, &len))
		return -errno;
	return 0;
}

/* Read the whole table into a buffer the caller frees. */
static struct ipt_get_entries *get_entries(int fd, int level, unsigned int size)
{
	socklen_t len = sizeof(struct ipt_get_entries) + size;
	struct ipt_get_entries *get = calloc(1, len);

	if (!get)
		return NULL;
	set_name(get->name, sizeof(get->name), "filter");
	get->size = size;
	if (getsockopt(fd, level, IPT_SO_GET_ENTRIES, get, &len)) {
		free(get);
		return NULL;
	}
	return get;
}

static void set_hooks(struct blob *b, unsigned int in, unsigned int in_policy,
		      unsigned int fwd, unsigned int out)
{
	b->hook[NF_INET_LOCAL_IN] = in;
	b->under[NF_INET_LOCAL_IN] = in_policy;
	b->hook[NF_INET_FORWARD] = fwd;
	b->under[NF_INET_FORWARD] = fwd;
	b->hook[NF_INET_LOCAL_OUT] = out;
	b->under[NF_INET_LOCAL_OUT] = out;
}

/* The filter table as iptables leaves it: three policies, no rule. */
static void build_default(struct blob *b, int fwd_verdict)
{
	b->size = 0;
	b->num = 0;
	add_standard(b, VERDICT(NF_ACCEPT));
	add_standard(b, fwd_verdict);
	add_standard(b, VERDICT(NF_ACCEPT));
	add_error(b, XT_ERROR_TARGET);
	set_hooks(b, 0, 0, 1, 2);
}

static void fill_replace(struct ipt_replace *r, struct blob *b, unsigned int num_counters)
{
	int h;

	memset(r, 0, sizeof(*r));
	set_name(r->name, sizeof(r->name), "filter");
	r->valid_hooks = FILTER_HOOKS;
	r->num_entries = b->num;
	r->size = b->size;
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(FILTER_HOOKS & (1 << h)))
			continue;
		r->hook_entry[h] = b->off[b->hook[h]];
		r->underflow[h] = b->off[b->under[h]];
	}
	r->num_counters = num_counters;
	r->counters = calloc(num_counters ? num_counters : 1, sizeof(struct xt_counters));
	memcpy(r->entries, b->data, b->size);
}

static int set_replace(int fd, int level, struct ipt_replace *r, socklen_t len)
{
	int ret = setsockopt(fd, level, IPT_SO_SET_REPLACE, r, len) ? -errno : 0;

	free(r->counters);
	r->counters = NULL;
	return ret;
}

static int replace(struct _test_data_filter *self)
{
	return set_replace(self->fd, self->level, self->repl,
			   sizeof(*self->repl) + self->blob.size);
}

/*
 * Sends the replace in @r, as built by fill_replace(), for @table with a
 * fresh counters buffer, and leaves @r as it was.
 */
static int replace_as(struct _test_data_filter *self, struct ipt_replace *r,
		      const char *table, socklen_t len)
{
	struct ipt_replace save = *r;
	int ret;

	set_name(r->name, sizeof(r->name), table);
	r->counters = calloc(r->num_counters ? r->num_counters : 1,
			     sizeof(struct xt_counters));
	ret = setsockopt(self->fd, self->level, IPT_SO_SET_REPLACE, r, len) ?
	      -errno : 0;
	free(r->counters);
	*r = save;
	return ret;
}

/*
 * The same replace for the filter table, which bpfilter serves when it is
 * loaded, and for the security table, which has the same hooks and is
 * always ip_tables': both must give @err. The fixture's own counters
 * buffer is freed once, as by replace().
 */
#define EXPECT_REPLACE(err, len) do {					\
	socklen_t __len = (len);					\
	int __err = (err);						\
									\
	EXPECT_EQ(__err, replace_as(self, self->repl, "filter", __len));	\
	if (self->security)						\
		EXPECT_EQ(__err, replace_as(self, self->repl, "security", \
					    __len)) TH_LOG("ip_tables differs"); \
	free(self->repl->counters);					\
	self->repl->counters = NULL;					\
} while (0)

/* The tables bpfilter serves in this namespace, from /proc/net/bpfilter. */
static int bpfilter_owns(const char *family)
{
	char line[128], want[32];
	int found = 0;
	FILE *f;

	f = fopen("/proc/net/bpfilter", "r");
	if (!f)
		return -1;
	snprintf(want, sizeof(want), "%s filter ", family);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want)))
			found = 1;
	fclose(f);
	return found;
}

TEST_F(filter, get_info_new_netns)
{
	struct ipt_getinfo info;

	ASSERT_EQ(0, get_info(self->fd, self->level, "filter", &info));
	EXPECT_EQ(FILTER_HOOKS, info.valid_hooks);
	EXPECT_EQ(4, info.num_entries);
	EXPECT_EQ(3 * (variant->ehdr + STD_TARGET) + variant->ehdr + ERR_TARGET, info.size);
	EXPECT_EQ(0, info.hook_entry[NF_INET_LOCAL_IN]);
	EXPECT_EQ(variant->ehdr + STD_TARGET, info.hook_entry[NF_INET_FORWARD]);
	EXPECT_EQ(2 * (variant->ehdr + STD_TARGET), info.hook_entry[NF_INET_LOCAL_OUT]);
	EXPECT_EQ(info.hook_entry[NF_INET_LOCAL_OUT], info.underflow[NF_INET_LOCAL_OUT]);
}

TEST_F(filter, get_info_errors)
{
	struct ipt_getinfo info;
	socklen_t len = 1;

	EXPECT_EQ(-ENOENT, get_info(self->fd, self->level, "nosuchtable", &info));
	EXPECT_EQ(-1, getsockopt(self->fd, self->level, IPT_SO_GET_INFO, &info, &len));
	EXPECT_EQ(EINVAL, errno);
	len = sizeof(info) + 1;
	EXPECT_EQ(-1, getsockopt(self->fd, self->level, IPT_SO_GET_INFO, &info, &len));
	EXPECT_EQ(EINVAL, errno);
}

/* GET_ENTRIES returns byte for byte what REPLACE installed. */
TEST_F(filter, replace_roundtrip)
{
	struct ipt_get_entries *get;
	struct ipt_getinfo info;

	build_default(&self->blob, VERDICT(NF_DROP));
	fill_replace(self->repl, &self->blob, 4);
	ASSERT_EQ(0, replace(self));
	ASSERT_EQ(0, get_info(self->fd, self->level, "filter", &info));
	ASSERT_EQ(self->blob.size, info.size);
	get = get_entries(self->fd, self->level, info.size);
	ASSERT_NE(NULL, get);
	/* ip_tables reports in comefrom the hooks that reach each entry. */
	*comefrom(&self->blob, self->blob.off[0]) = 1 << NF_INET_LOCAL_IN;
	*comefrom(&self->blob, self->blob.off[1]) = 1 << NF_INET_FORWARD;
	*comefrom(&self->blob, self->blob.off[2]) = 1 << NF_INET_LOCAL_OUT;
	EXPECT_EQ(0, memcmp(get->entrytable, self->blob.data, self->blob.size));
	free(get);
}

TEST_F(filter, get_entries_bad_size)
{
	struct ipt_get_entries get = { .name = "filter", .size = 1 };
	socklen_t len = sizeof(get) + 1;

	EXPECT_EQ(-1, getsockopt(self->fd, self->level, IPT_SO_GET_ENTRIES, &get, &len));
	EXPECT_EQ(EAGAIN, errno);
	len = sizeof(get);
	EXPECT_EQ(-1, getsockopt(self->fd, self->level, IPT_SO_GET_ENTRIES, &get, &len));
	EXPECT_EQ(EINVAL, errno);
}

/* INPUT jumps to a user chain whose first rule jumps to itself: ELOOP. */
TEST_F(filter, replace_loop)
{
	struct blob *b = &self->blob;
	unsigned int jump;

	b->size = 0;
	b->num = 0;
	jump = add_standard(b, 0);			/* 0: -A INPUT -j loop */
	add_standard(b, VERDICT(NF_ACCEPT));		/* 1: INPUT policy */
	add_standard(b, VERDICT(NF_ACCEPT));		/* 2: FORWARD policy */
	add_standard(b, VERDICT(NF_ACCEPT));		/* 3: OUTPUT policy */
	add_error(b, "loop");				/* 4: -N loop */
	add_standard(b, b->size);			/* 5: -A loop -j loop */
	add_standard(b, XT_RETURN);			/* 6: loop's return */
	add_error(b, XT_ERROR_TARGET);
	((struct xt_standard_target *)target_of(b, jump))->verdict = b->off[5];
	set_hooks(b, 0, 1, 2, 3);
	fill_replace(self->repl, b, 4);
	EXPECT_REPLACE(-ELOOP, sizeof(*self->repl) + b->size);

	/* The same table without the self jump is valid. */
	((struct xt_standard_target *)target_of(b, b->off[5]))->verdict = XT_RETURN;
	fill_replace(self->repl, b, 4);
	EXPECT_EQ(0, replace(self));
}

TEST_F(filter, replace_errors)
{
	struct ipt_replace *r = self->repl;
	struct blob *b = &self->blob;
	socklen_t len;

	build_default(b, VERDICT(NF_ACCEPT));
	len = sizeof(*r) + b->size;

	fill_replace(r, b, 4);
	EXPECT_REPLACE(-EINVAL, 1);

	fill_replace(r, b, 0);
	EXPECT_REPLACE(-EINVAL, len);

	fill_replace(r, b, INT_MAX / sizeof(struct xt_counters));
	EXPECT_REPLACE(-ENOMEM, len);

	fill_replace(r, b, 4);
	r->size += 8;			/* claims more than optlen carries */
	EXPECT_REPLACE(-EINVAL, len);

	fill_replace(r, b, 4);
	r->size -= 8;			/* the last entry is cut short */
	EXPECT_REPLACE(-EINVAL, len);

	fill_replace(r, b, 4);
	r->num_entries = 3;
	EXPECT_REPLACE(-EINVAL, len);

	fill_replace(r, b, 4);
	r->valid_hooks |= 1 << NF_INET_PRE_ROUTING;	/* a hook with no entry */
	EXPECT_REPLACE(-EINVAL, len);

	fill_replace(r, b, 4);
	r->hook_entry[NF_INET_FORWARD] += 4;	/* not an entry boundary */
	EXPECT_REPLACE(-EINVAL, len);

	fill_replace(r, b, 4);
	r->hook_entry[NF_INET_FORWARD] = b->size;	/* past the end */
	EXPECT_REPLACE(-EINVAL, len);

	fill_replace(r, b, 4);
	r->underflow[NF_INET_LOCAL_OUT] = b->off[3];	/* ERROR is no underflow */
	EXPECT_REPLACE(-EINVAL, len);

	*next_offset(b, b->off[1]) += 4;	/* misaligned */
	fill_replace(r, b, 4);
	EXPECT_REPLACE(-EINVAL, len);
	*next_offset(b, b->off[1]) -= 4;

	*next_offset(b, b->off[1]) = 0;		/* would never advance */
	fill_replace(r, b, 4);
	EXPECT_REPLACE(-EINVAL, len);
	*next_offset(b, b->off[1]) = b->ehdr + STD_TARGET;

	*target_offset(b, b->off[0]) = 4;	/* inside the header */
	fill_replace(r, b, 4);
	EXPECT_REPLACE(-EINVAL, len);
	*target_offset(b, b->off[0]) = b->ehdr + STD_TARGET;	/* past the entry */
	fill_replace(r, b, 4);
	EXPECT_REPLACE(-EINVAL, len);
	*target_offset(b, b->off[0]) = b->ehdr;

	/* A policy that is no verdict: a negative value out of range. */
	((struct xt_standard_target *)target_of(b, b->off[1]))->verdict = -10;
	fill_replace(r, b, 4);
	EXPECT_REPLACE(-EINVAL, len);
	((struct xt_standard_target *)target_of(b, b->off[1]))->verdict =
		VERDICT(NF_ACCEPT);

	fill_replace(r, b, 5);		/* the table has 4 entries */
	EXPECT_REPLACE(-EAGAIN, len);

	fill_replace(r, b, 4);
	set_name(r->name, sizeof(r->name), "nosuchtable");
	EXPECT_EQ(-ENOENT, replace(self));
}

/* A jump must land on an entry, not inside one. */
TEST_F(filter, replace_jump_into_rule)
{
	struct blob *b = &self->blob;
	unsigned int jump;

	b->size = 0;
	b->num = 0;
	jump = add_standard(b, 0);			/* 0: -A INPUT -j user */
	add_standard(b, VERDICT(NF_ACCEPT));		/* 1: INPUT policy */
	add_standard(b, VERDICT(NF_ACCEPT));		/* 2: FORWARD policy */
	add_standard(b, VERDICT(NF_ACCEPT));		/* 3: OUTPUT policy */
	add_error(b, "user");				/* 4: -N user */
	add_standard(b, XT_RETURN);			/* 5: user's return */
	add_error(b, XT_ERROR_TARGET);
	set_hooks(b, 0, 1, 2, 3);

	/* mark_source_chains() fails, which ip_tables reports as ELOOP. */
	((struct xt_standard_target *)target_of(b, jump))->verdict = b->off[5] + 8;
	fill_replace(self->repl, b, 4);
	EXPECT_REPLACE(-ELOOP, sizeof(*self->repl) + b->size);

	((struct xt_standard_target *)target_of(b, jump))->verdict = b->size + 8;
	fill_replace(self->repl, b, 4);
	EXPECT_REPLACE(-ELOOP, sizeof(*self->repl) + b->size);

	((struct xt_standard_target *)target_of(b, jump))->verdict = b->off[5];
	fill_replace(self->repl, b, 4);
	EXPECT_REPLACE(0, sizeof(*self->repl) + b->size);
}

/* A match of a rule under construction. */
struct mspec {
	const char *name;
	__u8 revision;
	const void *data;
	size_t size;		/* of the data, before alignment */
};

/*
 * Append "-p PROTO -m ... -j TARGET" with the matches of @m (@n of them)
 * and the target @tg, or ACCEPT if NULL: the entry as iptables writes it.
 */
static unsigned int add_rule(struct blob *b, __u16 proto,
			     const struct mspec *m, unsigned int n,
			     const struct mspec *tg)
{
	unsigned int off = b->size, at = b->ehdr, i, tsize = STD_TARGET;
	struct xt_standard_target *t;
	struct xt_entry_match *em;

	memset(b->data + off, 0, BLOB_MAX - off);
	for (i = 0; i < n; i++) {
		em = (void *)(b->data + off + at);
		em->u.user.match_size = XT_ALIGN(sizeof(*em) + m[i].size);
		set_name(em->u.user.name, sizeof(em->u.user.name), m[i].name);
		em->u.user.revision = m[i].revision;
		memcpy(em->data, m[i].data, m[i].size);
		at += em->u.user.match_size;
	}
	if (tg)
		tsize = XT_ALIGN(sizeof(struct xt_entry_target) + tg->size);
	*target_offset(b, off) = at;
	*next_offset(b, off) = at + tsize;
	if (b->iphdr == sizeof(struct ipt_ip)) {
		((struct ipt_ip *)(b->data + off))->proto = proto;
	} else {
		((struct ip6t_ip6 *)(b->data + off))->proto = proto;
		if (proto)
			((struct ip6t_ip6 *)(b->data + off))->flags |= IP6T_F_PROTO;
	}
	t = target_of(b, off);
	t->target.u.user.target_size = tsize;
	if (tg) {
		set_name(t->target.u.user.name, sizeof(t->target.u.user.name),
			 tg->name);
		t->target.u.user.revision = tg->revision;
		memcpy(t->target.data, tg->data, tg->size);
	} else {
		t->verdict = VERDICT(NF_ACCEPT);
	}
	b->off[b->num++] = off;
	b->size += at + tsize;
	return off;
}

static unsigned int add_matches(struct blob *b, __u16 proto,
				const struct mspec *m, unsigned int n)
{
	return add_rule(b, proto, m, n, NULL);
}

/*
 * Rules of @n1 and @n2 matches in INPUT, the first with the target @tg if
 * there is one, then the default table.
 */
static void build_rules(struct blob *b, const struct mspec *m1, unsigned int n1,
			const struct mspec *tg, const struct mspec *m2,
			unsigned int n2)
{
	unsigned int rules = 0;

	b->size = 0;
	b->num = 0;
	if (n1 || tg) {
		add_rule(b, IPPROTO_TCP, m1, n1, tg);
		rules++;
	}
	if (n2) {
		add_matches(b, IPPROTO_TCP, m2, n2);
		rules++;
	}
	add_standard(b, VERDICT(NF_ACCEPT));
	add_standard(b, VERDICT(NF_ACCEPT));
	add_standard(b, VERDICT(NF_ACCEPT));
	add_error(b, XT_ERROR_TARGET);
	set_hooks(b, 0, rules, rules + 1, rules + 2);
}

/*
 * Matches that bpfilter's helper does not compile are checked by the
 * kernel, as ip_tables checks them, and their errors come in the order
 * of the entries and of the matches in an entry, interleaved with those
 * of the matches the helper checks itself: the same errno as ip_tables
 * (the security table) for each.
 */
TEST_F(filter, replace_kernel_match_errors)
{
	struct xt_rateinfo limit = { .avg = XT_LIMIT_SCALE, .burst = 5 };
	struct xt_rateinfo no_burst = { .avg = XT_LIMIT_SCALE, .burst = 0 };
	struct xt_tcp tcp = { .spts = { 0, 0xffff }, .dpts = { 22, 22 } };
	struct xt_tcp bad_tcp = { .spts = { 0, 0xffff }, .dpts = { 22, 22 },
				  .invflags = 0x80 };
	const struct mspec ok[] = {
		{ "tcp", 0, &tcp, sizeof(tcp) },
		{ "limit", 0, &limit, sizeof(limit) },
	};
	const struct mspec erange[] = { { "limit", 0, &no_burst, sizeof(no_burst) } };
	const struct mspec einval[] = { { "tcp", 0, &bad_tcp, sizeof(bad_tcp) } };
	const struct mspec short_limit[] = { { "limit", 0, &limit, 8 } };
	const struct mspec unknown[] = { { "nosuchmatch", 0, &limit, sizeof(limit) } };
	const struct mspec bad_rev[] = { { "limit", 7, &limit, sizeof(limit) } };
	const struct mspec both[] = {
		{ "limit", 0, &no_burst, sizeof(no_burst) },
		{ "tcp", 0, &bad_tcp, sizeof(bad_tcp) },
	};
	const struct mspec both_rev[] = {
		{ "tcp", 0, &bad_tcp, sizeof(bad_tcp) },
		{ "limit", 0, &no_burst, sizeof(no_burst) },
	};
	const struct {
		const struct mspec *m1, *m2;	/* the first and second rule */
		unsigned int n1, n2;
		int err;
	} cases[] = {
		/* xt_limit's checkentry refuses a burst of 0. */
		{ erange, NULL, 1, 0, -ERANGE },
		{ short_limit, NULL, 1, 0, -EINVAL },
		{ unknown, NULL, 1, 0, -ENOENT },
		{ bad_rev, NULL, 1, 0, -EPROTOTYPE },
		/* The kernel's match in one entry, the helper's in the next. */
		{ erange, einval, 1, 1, -ERANGE },
		{ einval, erange, 1, 1, -EINVAL },
		/* Both in one entry, in either order. */
		{ both, NULL, 2, 0, -ERANGE },
		{ both_rev, NULL, 2, 0, -EINVAL },
		/* A good one, last: bpfilter, when loaded, serves it. */
		{ ok, NULL, 2, 0, 0 },
	};
	struct blob *b = &self->blob;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		TH_LOG("case %u: %d expected", i, cases[i].err);
		build_rules(b, cases[i].m1, cases[i].n1, NULL, cases[i].m2,
			    cases[i].n2);
		fill_replace(self->repl, b, 4);
		EXPECT_REPLACE(cases[i].err, sizeof(*self->repl) + b->size);
	}
	if (bpfilter_owns(variant->family == AF_INET ? "ipv4" : "ipv6") >= 0)
		EXPECT_EQ(1, bpfilter_owns(variant->family == AF_INET ?
					   "ipv4" : "ipv6"));
}

/*
 * Targets that bpfilter's helper does not compile are checked by the
 * kernel after the matches of their entry, as ip_tables checks them: the
 * same errno for an unknown target, a missing revision, a wrong size, a
 * wrong table, a checkentry refusal, and in the order of the entries.
 */
TEST_F(filter, replace_kernel_target_errors)
{
	struct xt_mark_tginfo2 mark = { .mark = 7, .mask = ~0U };
	struct xt_tcpmss_info mss = { .mss = 1000 };
	struct xt_DSCP_info dscp = { .dscp = 1 };
	struct xt_tcp syn = { .spts = { 0, 0xffff }, .dpts = { 0, 0xffff },
			      .flg_mask = 0x06, .flg_cmp = 0x02 };
	struct xt_tcp bad_tcp = { .spts = { 0, 0xffff }, .dpts = { 22, 22 },
				  .invflags = 0x80 };
	const struct mspec tg_mark = { "MARK", 2, &mark, sizeof(mark) };
	const struct mspec tg_short = { "MARK", 2, &mark, 0 };
	const struct mspec tg_rev = { "MARK", 7, &mark, sizeof(mark) };
	const struct mspec tg_qrev = { "NFQUEUE", 9, &mark, sizeof(mark) };
	const struct mspec tg_unknown = { "NOSUCHTARGET", 0, &mark, sizeof(mark) };
	const struct mspec tg_mss = { "TCPMSS", 0, &mss, sizeof(mss) };
	const struct mspec tg_dscp = { "DSCP", 0, &dscp, sizeof(dscp) };
	const struct mspec m_syn[] = { { "tcp", 0, &syn, sizeof(syn) } };
	const struct mspec m_bad[] = { { "tcp", 0, &bad_tcp, sizeof(bad_tcp) } };
	const struct {
		const struct mspec *tg;		/* the first rule's target */
		const struct mspec *m;		/* its match, if any */
		bool bad_next;			/* a rule the helper refuses next */
		int err;
	} cases[] = {
		{ &tg_unknown, NULL, false, -ENOENT },
		/*
		 * MARK is registered per family: xt_find_target() ends in the
		 * family-independent list, which has no MARK, so -ENOENT.
		 * NFQUEUE is in that list: -EPROTOTYPE.
		 */
		{ &tg_rev, NULL, false, -ENOENT },
		{ &tg_qrev, NULL, false, -EPROTOTYPE },
		{ &tg_short, NULL, false, -EINVAL },
		/* xt_DSCP is for the mangle table only. */
		{ &tg_dscp, NULL, false, -EINVAL },
		/* TCPMSS wants a match of SYN packets in its entry. */
		{ &tg_mss, NULL, false, -EINVAL },
		/* The kernel's refusal comes first, then the helper's. */
		{ &tg_qrev, NULL, true, -EPROTOTYPE },
		/* A match of the entry refused before its target is looked at. */
		{ &tg_unknown, m_bad, false, -EINVAL },
		/* Good ones, last: bpfilter, when loaded, serves them. */
		{ &tg_mss, m_syn, false, 0 },
		{ &tg_mark, NULL, false, 0 },
	};
	struct blob *b = &self->blob;
	unsigned int i, old = 4;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		TH_LOG("case %u: %d expected", i, cases[i].err);
		build_rules(b, cases[i].m, !!cases[i].m, cases[i].tg, m_bad,
			    cases[i].bad_next);
		fill_replace(self->repl, b, old);
		EXPECT_REPLACE(cases[i].err, sizeof(*self->repl) + b->size);
		/* A good replace changes the number of counters to send. */
		if (!cases[i].err)
			old = b->num;
	}
	if (bpfilter_owns(variant->family == AF_INET ? "ipv4" : "ipv6") >= 0)
		EXPECT_EQ(1, bpfilter_owns(variant->family == AF_INET ?
					   "ipv4" : "ipv6"));
}

/*
 * A valid replace of the filter table makes bpfilter, when it is loaded,
 * serve the table; replaces that follow see its counters and entries.
 */
TEST_F(filter, replace_owned)
{
	const char *family = variant->family == AF_INET ? "ipv4" : "ipv6";
	struct ipt_get_entries *get;
	struct ipt_getinfo info;
	int owned;

	build_default(&self->blob, VERDICT(NF_DROP));
	fill_replace(self->repl, &self->blob, 4);
	ASSERT_EQ(0, replace(self));
	owned = bpfilter_owns(family);
	if (owned >= 0)
		EXPECT_EQ(1, owned) TH_LOG("bpfilter loaded, table not its");

	/* Again, with the counters of the table just installed. */
	build_default(&self->blob, VERDICT(NF_ACCEPT));
	fill_replace(self->repl, &self->blob, 5);
	EXPECT_EQ(-EAGAIN, replace(self));
	fill_replace(self->repl, &self->blob, 4);
	ASSERT_EQ(0, replace(self));
	ASSERT_EQ(0, get_info(self->fd, self->level, "filter", &info));
	EXPECT_EQ(4, info.num_entries);
	get = get_entries(self->fd, self->level, info.size);
	ASSERT_NE(NULL, get);
	EXPECT_EQ(VERDICT(NF_ACCEPT), ((struct xt_standard_target *)
		  ((char *)get->entrytable + info.underflow[NF_INET_FORWARD] +
		   variant->ehdr))->verdict);
	free(get);
}

/* ADD_COUNTERS adds to what GET_ENTRIES reports for each rule. */
TEST_F(filter, add_counters)
{
	size_t len = sizeof(struct xt_counters_info) + 4 * sizeof(struct xt_counters);
	struct xt_counters_info *ci = calloc(1, len);
	struct ipt_get_entries *get;
	struct xt_counters *c;
	struct ipt_getinfo info;

	ASSERT_NE(NULL, ci);
	/* A table installed by a replace: bpfilter's, when it is loaded. */
	build_default(&self->blob, VERDICT(NF_ACCEPT));
	fill_replace(self->repl, &self->blob, 4);
	ASSERT_EQ(0, replace(self));

	set_name(ci->name, sizeof(ci->name), "filter");
	ci->num_counters = 4;
	ci->counters[1].pcnt = 3;
	ci->counters[1].bcnt = 300;
	ASSERT_EQ(0, setsockopt(self->fd, self->level, IPT_SO_SET_ADD_COUNTERS, ci, len));
	ASSERT_EQ(0, setsockopt(self->fd, self->level, IPT_SO_SET_ADD_COUNTERS, ci, len));

	ci->num_counters = 5;		/* the table has 4 rules */
	EXPECT_EQ(-1, setsockopt(self->fd, self->level, IPT_SO_SET_ADD_COUNTERS, ci,
				 len + sizeof(struct xt_counters)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(self->fd, self->level, IPT_SO_SET_ADD_COUNTERS, ci, len));
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, get_info(self->fd, self->level, "filter", &info));
	get = get_entries(self->fd, self->level, info.size);
	ASSERT_NE(NULL, get);
	self->blob.size = info.size;
	memcpy(self->blob.data, get->entrytable, info.size);
	c = counters(&self->blob, info.hook_entry[NF_INET_FORWARD]);
	EXPECT_EQ(6, c->pcnt);
	EXPECT_EQ(600, c->bcnt);
	c = counters(&self->blob, info.hook_entry[NF_INET_LOCAL_IN]);
	EXPECT_EQ(0, c->pcnt);
	free(get);
	free(ci);
}

TEST_F(filter, get_revision)
{
	struct xt_get_revision rev = { .name = "udp" };
	socklen_t len = sizeof(rev);

	EXPECT_EQ(0, getsockopt(self->fd, self->level, variant->rev_match, &rev, &len));
	set_name(rev.name, sizeof(rev.name), "nosuchmatch");
	EXPECT_EQ(-1, getsockopt(self->fd, self->level, variant->rev_match, &rev, &len));
	EXPECT_EQ(ENOENT, errno);
	set_name(rev.name, sizeof(rev.name), "REJECT");
	EXPECT_EQ(0, getsockopt(self->fd, self->level, variant->rev_target, &rev, &len));
	/* Extensions only the kernel has: its registry answers. */
	set_name(rev.name, sizeof(rev.name), "limit");
	EXPECT_EQ(0, getsockopt(self->fd, self->level, variant->rev_match, &rev, &len));
	set_name(rev.name, sizeof(rev.name), "MARK");
	rev.revision = 2;
	EXPECT_EQ(0, getsockopt(self->fd, self->level, variant->rev_target, &rev, &len));
	set_name(rev.name, sizeof(rev.name), "NFQUEUE");
	rev.revision = 9;
	EXPECT_EQ(-1, getsockopt(self->fd, self->level, variant->rev_target, &rev, &len));
	EXPECT_EQ(EPROTONOSUPPORT, errno);
	set_name(rev.name, sizeof(rev.name), "NOSUCHTARGET");
	EXPECT_EQ(-1, getsockopt(self->fd, self->level, variant->rev_target, &rev, &len));
	EXPECT_EQ(ENOENT, errno);
	len = sizeof(rev) - 1;
	EXPECT_EQ(-1, getsockopt(self->fd, self->level, variant->rev_target, &rev, &len));
	EXPECT_EQ(EINVAL, errno);
}

/*
 * The resident memory in KiB of the helper that serves this namespace, as
 * /proc/net/bpfilter names it, and its pid in @pid; -1 if it does not run.
 */
static long helper_rss_kb(pid_t *pid)
{
	char path[64], line[128];
	long rss = -1;
	FILE *f;

	*pid = 0;
	f = fopen("/proc/net/bpfilter", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "helper pid=%d", pid) == 1)
			break;
	fclose(f);
	if (*pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/status", *pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &rss) == 1)
			break;
	fclose(f);
	return rss;
}

/* A filter table of five entries, through a socket of @family. */
static int load_table(int family)
{
	int level = family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;
	struct blob b = {
		.iphdr = family == AF_INET ? sizeof(struct ipt_ip) : sizeof(struct ip6t_ip6),
		.ehdr = family == AF_INET ? sizeof(struct ipt_entry) : sizeof(struct ip6t_entry),
	};
	struct ipt_replace *r = calloc(1, sizeof(*r) + BLOB_MAX);
	int fd, ret = -ENOMEM;

	if (!r)
		return ret;
	add_standard(&b, VERDICT(NF_DROP));		/* -A INPUT -j DROP */
	add_standard(&b, VERDICT(NF_ACCEPT));
	add_standard(&b, VERDICT(NF_ACCEPT));
	add_standard(&b, VERDICT(NF_ACCEPT));
	add_error(&b, XT_ERROR_TARGET);
	set_hooks(&b, 0, 1, 2, 3);
	fill_replace(r, &b, 4);
	fd = socket(family, SOCK_RAW, IPPROTO_RAW);
	ret = fd < 0 ? -errno : set_replace(fd, level, r, sizeof(*r) + b.size);
	if (fd >= 0)
		close(fd);
	free(r);
	return ret;
}

FIXTURE(cycle) {
};

FIXTURE_SETUP(cycle)
{
}

FIXTURE_TEARDOWN(cycle)
{
}

/*
 * 500 network namespaces (SOCKOPT_CYCLES, at least 50), each given a
 * filter table of each family, and dropped: their tables go with them, in
 * the kernel (kmemleak checks that) and in bpfilter's helper, whose memory
 * stays flat from the first fifth of the cycles on. Slow in an emulated
 * guest with lock debugging, where bpfilter compiles every table: a
 * timeout of its own.
 */
TEST_F_TIMEOUT(cycle, netns, 540)
{
	const char *env = getenv("SOCKOPT_CYCLES");
	int cycles = env ? atoi(env) : 500;
	pid_t pid_before = 0, pid_after = 0;
	long before = -1, after = -1;
	int i, wait;

	if (cycles < 50)
		cycles = 50;
	for (i = 0; i < cycles; i++) {
		ASSERT_EQ(0, unshare(CLONE_NEWNET));
		ASSERT_EQ(0, load_table(AF_INET)) TH_LOG("cycle %d", i);
		ASSERT_EQ(0, load_table(AF_INET6)) TH_LOG("cycle %d", i);
		if (i == cycles / 5 - 1)
			before = helper_rss_kb(&pid_before);
	}
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	if (before < 0)
		SKIP(return, "no bpfilter helper");
	/* Namespaces are released by a worker: give it time. */
	for (wait = 0; wait < 40; wait++) {
		after = helper_rss_kb(&pid_after);
		if (after >= 0 && after - before < 1024)
			break;
		usleep(500000);
	}
	/* Flat memory means nothing if the helper died or was restarted. */
	ASSERT_LE(0, after) TH_LOG("bpfilter's helper is gone");
	EXPECT_EQ(pid_before, pid_after)
		TH_LOG("bpfilter's helper was restarted: pid %d, then %d",
		       pid_before, pid_after);
	EXPECT_LT(after - before, 1024)
		TH_LOG("helper RSS %ld KiB after %d cycles, %ld after %d",
		       before, cycles / 5, after, cycles);
}

#define WRITERS		4
#define APPENDS		8

/* One of WRITERS threads, each appending APPENDS rules to INPUT. */
struct writer {
	pthread_t thread;
	int family;
	int level;
	size_t iphdr;
	size_t ehdr;
	int err;		/* the first error other than -EAGAIN */
	int retries;		/* replaces refused with -EAGAIN */
};

/*
 * What iptables does for -A, without its lock: read the number of
 * entries, send the table with one rule more, with num_counters for the
 * table read. A replace that lost the race (another writer changed the
 * table in between) gets -EAGAIN and reads again.
 */
static void *append_rules(void *arg)
{
	struct ipt_replace *r = calloc(1, sizeof(*r) + BLOB_MAX);
	struct blob *b = calloc(1, sizeof(*b));
	struct writer *w = arg;
	struct ipt_getinfo info;
	unsigned int i, rules;
	int fd, done = 0;

	fd = socket(w->family, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0 || !r || !b) {
		w->err = -ENOMEM;
		goto out;
	}
	b->iphdr = w->iphdr;
	b->ehdr = w->ehdr;
	while (done < APPENDS) {
		w->err = get_info(fd, w->level, "filter", &info);
		if (w->err)
			break;
		/* INPUT's rules, then three policies and the ERROR entry. */
		rules = info.num_entries - 4 + 1;
		if (rules + 4 > MAX_ENTRIES) {
			w->err = -E2BIG;
			break;
		}
		b->size = 0;
		b->num = 0;
		for (i = 0; i < rules; i++)
			add_standard(b, VERDICT(NF_ACCEPT));
		add_standard(b, VERDICT(NF_ACCEPT));
		add_standard(b, VERDICT(NF_ACCEPT));
		add_standard(b, VERDICT(NF_ACCEPT));
		add_error(b, XT_ERROR_TARGET);
		set_hooks(b, 0, rules, rules + 1, rules + 2);
		fill_replace(r, b, info.num_entries);
		w->err = set_replace(fd, w->level, r, sizeof(*r) + b->size);
		if (w->err == -EAGAIN) {
			w->retries++;
			continue;
		}
		if (w->err)
			break;
		done++;
	}
out:
	if (fd >= 0)
		close(fd);
	free(b);
	free(r);
	return NULL;
}

/*
 * Writers that do not take iptables' lock: the kernel sees their replaces
 * at once, and must take each whole or refuse it with -EAGAIN, so that
 * every rule appended is there at the end. Each of these forty or so
 * replaces is a table compiled and verified: in an emulated guest with
 * lock debugging that takes up to a second (ipv6), so the harness's 30 s
 * are not enough, and the test has a timeout of its own.
 */
TEST_F_TIMEOUT(filter, concurrent_replaces, 180)
{
	struct writer w[WRITERS] = {};
	struct ipt_getinfo info;
	int i, retries = 0;

	for (i = 0; i < WRITERS; i++) {
		w[i].family = variant->family;
		w[i].level = variant->level;
		w[i].iphdr = variant->iphdr;
		w[i].ehdr = variant->ehdr;
		ASSERT_EQ(0, pthread_create(&w[i].thread, NULL, append_rules, &w[i]));
	}
	for (i = 0; i < WRITERS; i++) {
		pthread_join(w[i].thread, NULL);
		EXPECT_EQ(0, w[i].err) TH_LOG("writer %d: %s", i, strerror(-w[i].err));
		retries += w[i].retries;
	}
	ASSERT_EQ(0, get_info(self->fd, self->level, "filter", &info));
	EXPECT_EQ(4 + WRITERS * APPENDS, info.num_entries)
		TH_LOG("%d rules appended, %u in the table",
		       WRITERS * APPENDS, info.num_entries - 4);
	TH_LOG("%d replaces refused with EAGAIN and sent again", retries);
}

/*
 * The interface is the same with bpfilter and with ip_tables alone: test
 * bpfilter where the kernel has it, unless BPFILTER_MODE=ip_tables.
 */
static void __attribute__((constructor)) load_bpfilter(void)
{
	const char *mode = getenv("BPFILTER_MODE");

	if (mode && !strcmp(mode, "ip_tables"))
		return;
	/* Fails on a kernel without the module: ip_tables answers then. */
	if (system("modprobe -q bpfilter 2>/dev/null"))
		return;
}

TEST_HARNESS_MAIN
