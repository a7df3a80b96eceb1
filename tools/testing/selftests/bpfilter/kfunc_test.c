// SPDX-License-Identifier: GPL-2.0
/*
 * bpfilter.ko's kfuncs run the kernel's targets and matches with data the
 * module trusts, so only the programs its helper loads may call them. A
 * netfilter program loaded by anyone else (here, root) that calls one is
 * refused by the verifier. As a control, the same loader's program
 * calling kfuncs that every program may call loads. That the helper's
 * own programs may call them is tested by iptables_rules.sh (LOG and
 * REJECT rules served by bpfilter).
 *
 * Root may still run the helper's programs with BPF_PROG_TEST_RUN, out
 * of any hook, with a hook state of its own, no namespace in it and no
 * input device: the kfuncs must refuse to run the kernel's extensions
 * there, and the program then drops the packet.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>

#include "../kselftest_harness.h"

#define LOG_SIZE	65536

/* A BTF file of /sys/kernel/btf; a module's is split BTF over vmlinux's. */
struct btf_file {
	unsigned char *data;
	size_t len;
	const struct btf_header *hdr;
	const struct btf_file *base;	/* vmlinux's, for a module's */
	unsigned int ntypes;		/* types of this file, not of its base */
};

static long btf_walk(struct btf_file *f, const char *name);

/* Reads @path and counts its types, or returns a negative errno. */
static int read_btf(const char *path, struct btf_file *f,
		    const struct btf_file *base)
{
	size_t cap = 1 << 20;
	unsigned char *p;
	ssize_t n;
	int fd;

	memset(f, 0, sizeof(*f));
	f->base = base;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	f->data = malloc(cap);
	while (f->data && (n = read(fd, f->data + f->len, cap - f->len)) > 0) {
		f->len += n;
		if (f->len < cap)
			continue;
		p = realloc(f->data, cap *= 2);
		if (!p)
			free(f->data);
		f->data = p;
	}
	close(fd);
	if (!f->data || f->len < sizeof(*f->hdr))
		return -EINVAL;
	f->hdr = (const void *)f->data;
	if (f->hdr->magic != BTF_MAGIC ||
	    (size_t)f->hdr->hdr_len + f->hdr->type_off + f->hdr->type_len > f->len ||
	    (size_t)f->hdr->hdr_len + f->hdr->str_off + f->hdr->str_len > f->len)
		return -EINVAL;
	return btf_walk(f, NULL) < 0 ? -EINVAL : 0;
}

/* What follows a struct btf_type of each kind, or -1 for a kind unknown. */
static long btf_extra(const struct btf_type *t)
{
	unsigned int vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_DATASEC:
	case BTF_KIND_ENUM64:
		return vlen * 12L;
	case BTF_KIND_ENUM:
	case BTF_KIND_FUNC_PROTO:
		return vlen * 8L;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	}
	return -1;
}

/*
 * The id of the function @name in @f (a module's ids follow vmlinux's),
 * 0 if absent, -1 if @f cannot be walked (a kind this test does not
 * know); counts the types of @f on the way.
 */
static long btf_walk(struct btf_file *f, const char *name)
{
	const unsigned char *p = f->data + f->hdr->hdr_len + f->hdr->type_off;
	const unsigned char *end = p + f->hdr->type_len;
	const char *strs = (const char *)f->data + f->hdr->hdr_len + f->hdr->str_off;
	unsigned int first = f->base ? f->base->ntypes + 1 : 1;
	unsigned int str0 = f->base ? f->base->hdr->str_len : 0;
	long id = 0, extra;

	f->ntypes = 0;
	while (p + sizeof(struct btf_type) <= end) {
		const struct btf_type *t = (const void *)p;

		extra = btf_extra(t);
		if (extra < 0)
			return -1;
		/* Our names are in @f's strings, not in its base's. */
		if (name && !id && BTF_INFO_KIND(t->info) == BTF_KIND_FUNC &&
		    t->name_off >= str0 && t->name_off - str0 < f->hdr->str_len &&
		    !strcmp(strs + t->name_off - str0, name))
			id = first + f->ntypes;
		f->ntypes++;
		p += sizeof(*t) + extra;
	}
	return p == end ? id : -1;
}

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* An fd of the loaded BTF object named @name, or a negative errno. */
static int btf_fd_of(const char *name)
{
	union bpf_attr attr;
	struct bpf_btf_info info;
	char buf[64];
	__u32 id = 0;
	int fd;

	for (;;) {
		memset(&attr, 0, sizeof(attr));
		attr.start_id = id;
		if (sys_bpf(BPF_BTF_GET_NEXT_ID, &attr))
			return -errno;
		id = attr.next_id;
		memset(&attr, 0, sizeof(attr));
		attr.btf_id = id;
		fd = sys_bpf(BPF_BTF_GET_FD_BY_ID, &attr);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		memset(buf, 0, sizeof(buf));
		info.name = (__u64)(unsigned long)buf;
		info.name_len = sizeof(buf);
		memset(&attr, 0, sizeof(attr));
		attr.info.bpf_fd = fd;
		attr.info.info_len = sizeof(info);
		attr.info.info = (__u64)(unsigned long)&info;
		if (!sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) &&
		    info.kernel_btf && !strcmp(buf, name))
			return fd;
		close(fd);
	}
}

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })
#define LDX_DW(d, s, o)	INSN(BPF_LDX | BPF_MEM | BPF_DW, d, s, o, 0)
#define MOV_IMM(d, i)	INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV_REG(d, s)	INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define KFUNC(id, o)	INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, o, id)
#define EXIT()		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* struct bpf_nf_ctx: the hook state, then the packet. */
#define CTX_STATE	0
#define CTX_SKB		8

/*
 * Load a filter-hook program that calls kfunc @id (of the BTF in
 * fd_array[@off], 0 for vmlinux) with (skb, state, 0, 0, 0) or, if @id2
 * is not 0, calls @id then @id2 with nothing; the verifier's log goes to
 * @log.
 */
static int load(int btf_fd, long id, short off, long id2, char *log)
{
	struct bpf_insn insns[] = {
		MOV_REG(BPF_REG_6, BPF_REG_1),
		LDX_DW(BPF_REG_1, BPF_REG_6, CTX_SKB),
		LDX_DW(BPF_REG_2, BPF_REG_6, CTX_STATE),
		MOV_IMM(BPF_REG_3, 0),
		MOV_IMM(BPF_REG_4, 0),
		MOV_IMM(BPF_REG_5, 0),
		KFUNC(id, off),
		MOV_IMM(BPF_REG_0, 1),	/* NF_ACCEPT */
		EXIT(),
	};
	struct bpf_insn pair[] = {
		KFUNC(id, off),
		KFUNC(id2, off),
		MOV_IMM(BPF_REG_0, 1),
		EXIT(),
	};
	int fd_array[2] = { -1, btf_fd };
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_NETFILTER;
	attr.expected_attach_type = BPF_NETFILTER;
	attr.insns = (__u64)(unsigned long)(id2 ? pair : insns);
	attr.insn_cnt = id2 ? ARRAY_SIZE(pair) : ARRAY_SIZE(insns);
	attr.license = (__u64)(unsigned long)"GPL";
	attr.fd_array = (__u64)(unsigned long)fd_array;
	attr.log_buf = (__u64)(unsigned long)log;
	attr.log_size = LOG_SIZE;
	attr.log_level = 1;
	log[0] = '\0';
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	return fd < 0 ? -errno : fd;
}

FIXTURE(kfunc) {
	struct btf_file vmlinux, module;
	int btf_fd;	/* bpfilter.ko's BTF, -1 if bpfilter is built in */
	char *log;
};

FIXTURE_SETUP(kfunc)
{
	const char *mode = getenv("BPFILTER_MODE");

	self->btf_fd = -1;
	self->log = malloc(LOG_SIZE);
	ASSERT_NE(NULL, self->log);
	if (mode && !strcmp(mode, "ip_tables"))
		SKIP(return, "BPFILTER_MODE=ip_tables: bpfilter is not loaded, no kfunc to test");
	if (geteuid())
		SKIP(return, "loading netfilter programs needs root");
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		SKIP(return, "no kernel BTF: bpfilter needs it to compile tables");
	if (system("modprobe -q bpfilter 2>/dev/null"))
		TH_LOG("modprobe bpfilter failed");
	ASSERT_EQ(0, read_btf("/sys/kernel/btf/vmlinux", &self->vmlinux, NULL))
		TH_LOG("vmlinux's BTF: unreadable, or a kind this test does not know");
	/* Built in, bpfilter has its kfuncs in vmlinux's BTF. */
	if (btf_walk(&self->vmlinux, "bpfilter_xt_match") > 0)
		return;
	if (access("/sys/kernel/btf/bpfilter", R_OK))
		SKIP(return, "no bpfilter in this kernel (not built, or its module did not load)");
	ASSERT_EQ(0, read_btf("/sys/kernel/btf/bpfilter", &self->module,
			      &self->vmlinux))
		TH_LOG("bpfilter's BTF: unreadable, or a kind this test does not know");
	self->btf_fd = btf_fd_of("bpfilter");
	ASSERT_LE(0, self->btf_fd);
}

FIXTURE_TEARDOWN(kfunc)
{
	if (self->btf_fd >= 0)
		close(self->btf_fd);
	free(self->vmlinux.data);
	free(self->module.data);
	free(self->log);
}

/* The control: kfuncs of every program load, so the loader is right. */
TEST_F(kfunc, common_kfunc_loads)
{
	long lock = btf_walk(&self->vmlinux, "bpf_rcu_read_lock");
	long unlock = btf_walk(&self->vmlinux, "bpf_rcu_read_unlock");
	int fd;

	ASSERT_LT(0, lock);
	ASSERT_LT(0, unlock);
	fd = load(self->btf_fd, lock, 0, unlock, self->log);
	EXPECT_LE(0, fd) TH_LOG("%s", self->log);
	if (fd >= 0)
		close(fd);
}

TEST_F(kfunc, module_kfuncs_refused)
{
	static const char *const names[] = {
		"bpfilter_xt_match", "bpfilter_xt_target",
		"bpfilter_ipv6_find_hdr",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		int split = self->btf_fd >= 0;
		long id = btf_walk(split ? &self->module : &self->vmlinux, names[i]);
		char want[96];
		int fd;

		ASSERT_LT(0, id) TH_LOG("%s not in bpfilter's BTF", names[i]);
		fd = load(self->btf_fd, id, split, 0, self->log);
		if (fd >= 0)
			close(fd);
		EXPECT_EQ(-EACCES, fd) TH_LOG("%s: %s", names[i], self->log);
		snprintf(want, sizeof(want),
			 "calling kernel function %s is not allowed", names[i]);
		EXPECT_NE(NULL, strstr(self->log, want)) TH_LOG("%s", self->log);
	}
}

/* The name of program @id if it is a netfilter program, else "". */
static void prog_name(__u32 id, char name[BPF_OBJ_NAME_LEN])
{
	struct bpf_prog_info info;
	union bpf_attr attr;
	int fd;

	name[0] = '\0';
	memset(&attr, 0, sizeof(attr));
	attr.prog_id = id;
	fd = sys_bpf(BPF_PROG_GET_FD_BY_ID, &attr);
	if (fd < 0)
		return;
	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (__u64)(unsigned long)&info;
	if (!sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) &&
	    info.type == BPF_PROG_TYPE_NETFILTER)
		memcpy(name, info.name, BPF_OBJ_NAME_LEN);
	close(fd);
}

/* The id of the program after @id, 0 if none. */
static __u32 next_prog(__u32 id)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.start_id = id;
	return sys_bpf(BPF_PROG_GET_NEXT_ID, &attr) ? 0 : attr.next_id;
}

/*
 * The highest id of a netfilter program named @name, 0 if none; with
 * @name NULL, the highest id of any program.
 */
static __u32 last_prog(const char *name)
{
	char buf[BPF_OBJ_NAME_LEN];
	__u32 id, last = 0;

	for (id = next_prog(0); id; id = next_prog(id)) {
		if (name)
			prog_name(id, buf);
		if (!name || !strcmp(buf, name))
			last = id;
	}
	return last;
}

/* The hook state BPF_PROG_TEST_RUN takes from the caller: hook, family. */
struct test_state {
	__u8 hook;
	__u8 pf;
};

/*
 * Runs program @id once on a UDP packet of @pf at @hook: an Ethernet
 * frame but at LOCAL_OUT, as BPF_PROG_TEST_RUN wants. Returns the
 * syscall's result, the program's verdict in @retval.
 */
static int test_run(__u32 id, __u8 pf, __u8 hook, __u32 *retval)
{
	unsigned char pkt[ETH_HLEN + sizeof(struct ipv6hdr) + 8] = {};
	struct test_state state = { .hook = hook, .pf = pf };
	unsigned char *l3 = pkt + ETH_HLEN;
	struct ethhdr *eth = (void *)pkt;
	size_t len = ETH_HLEN + 8;
	union bpf_attr attr;
	int fd, err;

	if (pf == NFPROTO_IPV4) {
		struct iphdr *ip = (void *)l3;

		eth->h_proto = htons(ETH_P_IP);
		ip->version = 4;
		ip->ihl = 5;
		ip->ttl = 64;
		ip->protocol = IPPROTO_UDP;
		ip->tot_len = htons(sizeof(*ip) + 8);
		ip->saddr = htonl(0xc0000201);
		ip->daddr = htonl(0xc0000202);
		len += sizeof(*ip);
	} else {
		struct ipv6hdr *ip6 = (void *)l3;

		eth->h_proto = htons(ETH_P_IPV6);
		ip6->version = 6;
		ip6->hop_limit = 64;
		ip6->nexthdr = IPPROTO_UDP;
		ip6->payload_len = htons(8);
		ip6->saddr.s6_addr[15] = 1;
		ip6->daddr.s6_addr[15] = 2;
		len += sizeof(*ip6);
	}
	memset(&attr, 0, sizeof(attr));
	attr.prog_id = id;
	fd = sys_bpf(BPF_PROG_GET_FD_BY_ID, &attr);
	if (fd < 0)
		return -errno;
	memset(&attr, 0, sizeof(attr));
	attr.test.prog_fd = fd;
	attr.test.data_in = (__u64)(unsigned long)pkt;
	attr.test.data_size_in = len;
	if (hook == NF_INET_LOCAL_OUT) {
		attr.test.data_in += ETH_HLEN;
		attr.test.data_size_in -= ETH_HLEN;
	}
	attr.test.ctx_in = (__u64)(unsigned long)&state;
	attr.test.ctx_size_in = sizeof(state);
	err = sys_bpf(BPF_PROG_TEST_RUN, &attr) ? -errno : 0;
	*retval = attr.test.retval;
	close(fd);
	return err;
}

static bool filter_hook(unsigned int hook)
{
	return hook == NF_INET_LOCAL_IN || hook == NF_INET_FORWARD ||
	       hook == NF_INET_LOCAL_OUT;
}

/* Gives @rules to @restore; returns its exit status. */
static int restore(const char *restore, const char *rules)
{
	FILE *f = popen(restore, "w");

	if (!f)
		return -1;
	fputs(rules, f);
	return pclose(f);
}

/*
 * A table whose every chain starts with a kernel extension that matches
 * or takes any packet (limit, LOG): under BPF_PROG_TEST_RUN the kfunc
 * refuses to run it and the program drops, at every filter hook (at the
 * others the program runs all the same). The control: a table with no
 * kernel extension accepts the same packet at LOCAL_IN. Then every other
 * program of bpfilter's there is runs at every hook.
 */
TEST_F(kfunc, helper_programs_test_run)
{
	static const char rules[] =
		"*filter\n"
		"-A INPUT -m limit --limit 100/sec -j ACCEPT\n"
		"-A FORWARD -m limit --limit 100/sec -j ACCEPT\n"
		"-A OUTPUT -j LOG\n"
		"COMMIT\n";
	static const struct {
		const char *restore, *name, *control;
		__u8 pf;
	} fam[] = {
		{ "iptables-legacy-restore", "bpfilter_ipv4",
		  "*filter\n-A INPUT -s 198.51.100.1/32 -j DROP\nCOMMIT\n",
		  NFPROTO_IPV4 },
		{ "ip6tables-legacy-restore", "bpfilter_ipv6",
		  "*filter\n-A INPUT -s 2001:db8::99/128 -j DROP\nCOMMIT\n",
		  NFPROTO_IPV6 },
	};
	unsigned int i, hook, runs = 0;
	__u32 before, id, control, retval;
	int err;

	if (access("/sys/module/bpfilter/parameters/bridge", R_OK) == 0 &&
	    system("grep -qx N /sys/module/bpfilter/parameters/bridge") == 0)
		SKIP(return, "bridge=N: ip_tables serves tables with the kernel's extensions");
	for (i = 0; i < ARRAY_SIZE(fam); i++) {
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null",
			 fam[i].restore);
		if (system(cmd))
			SKIP(return, "no %s", fam[i].restore);
	}
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	before = last_prog(NULL);
	for (i = 0; i < ARRAY_SIZE(fam); i++) {
		ASSERT_EQ(0, restore(fam[i].restore, rules));
		id = last_prog(fam[i].name);
		ASSERT_LT(before, id)
			TH_LOG("no new program %s: not served by bpfilter?",
			       fam[i].name);
		for (hook = 0; hook < NF_INET_NUMHOOKS; hook++) {
			err = test_run(id, fam[i].pf, hook, &retval);
			ASSERT_EQ(0, err) TH_LOG("%s, hook %u", fam[i].name, hook);
			if (filter_hook(hook))
				EXPECT_EQ(NF_DROP, retval)
					TH_LOG("%s, hook %u", fam[i].name, hook);
		}

		ASSERT_EQ(0, restore(fam[i].restore, fam[i].control));
		control = last_prog(fam[i].name);
		ASSERT_LT(id, control);
		for (hook = 0; hook < NF_INET_NUMHOOKS; hook++) {
			if (!filter_hook(hook))
				continue;
			ASSERT_EQ(0, test_run(control, fam[i].pf, hook,
					      &retval));
			EXPECT_EQ(NF_ACCEPT, retval)
				TH_LOG("%s, hook %u", fam[i].name, hook);
		}
	}

	/* Every program of bpfilter's, of any namespace, at every hook. */
	for (id = next_prog(0); id; id = next_prog(id)) {
		char name[BPF_OBJ_NAME_LEN];

		prog_name(id, name);
		for (i = 0; i < ARRAY_SIZE(fam); i++) {
			if (strcmp(name, fam[i].name))
				continue;
			for (hook = 0; hook < NF_INET_NUMHOOKS; hook++) {
				err = test_run(id, fam[i].pf, hook, &retval);
				/* Another namespace's, gone meanwhile. */
				if (err == -ENOENT)
					break;
				EXPECT_EQ(0, err) TH_LOG("%s, hook %u", name, hook);
				EXPECT_GE(NF_ACCEPT, retval);
				runs++;
			}
		}
	}
	EXPECT_LE(2 * NF_INET_NUMHOOKS, runs);
}

TEST_HARNESS_MAIN
