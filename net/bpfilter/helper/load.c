// SPDX-License-Identifier: GPL-2.0
/*
 * A table's program: the facts of the running kernel from its BTF; the
 * plan of the program, made without privileges (compile.c): its counter
 * indices, the keys of its classifier's map and its code, or the current
 * program kept (update.c); then its loading: the counters map, the
 * classifier's map, the code, and the verifier's word on it. Attaching is
 * bpfilter.ko's: it takes the program by id and runs it at its hooks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/netfilter/x_tables.h>

#include "codegen.h"
#include "load.h"
#include "update.h"

#define LOG_SIZE	0x10000

static struct bf_btf bf_btf;
static int bf_btf_err = 1;	/* not read yet */

/* Offset in bytes of @name in struct @type, looking into anonymous ones. */
static int member_off(const struct btf *btf, __u32 id, const char *name,
		      __u32 *off)
{
	const struct btf_type *t = btf__type_by_id(btf, btf__resolve_type(btf, id));
	const struct btf_member *m;
	int i;

	if (!t || !(btf_is_struct(t) || btf_is_union(t)))
		return -ENOENT;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);
		__u32 bits = btf_member_bit_offset(t, i), inner;

		if (n && !strcmp(n, name)) {
			*off = bits / 8;
			return 0;
		}
		if ((!n || !*n) && !member_off(btf, m->type, name, &inner)) {
			*off = bits / 8 + inner;
			return 0;
		}
	}
	return -ENOENT;
}

static int struct_member(const struct btf *btf, const char *type,
			 const char *name, __u32 *off)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);

	if (id < 0)
		return id;
	return member_off(btf, id, name, off);
}

/* An fd of the BTF of the module @name, or a negative errno. */
static int module_btf_fd(const char *name)
{
	struct bpf_btf_info info;
	char buf[64];
	__u32 id = 0, len;
	int fd;

	while (!bpf_btf_get_next_id(id, &id)) {
		fd = bpf_btf_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		info.name = (__u64)(unsigned long)buf;
		info.name_len = sizeof(buf);
		len = sizeof(info);
		if (!bpf_btf_get_info_by_fd(fd, &info, &len) &&
		    info.kernel_btf && !strcmp(buf, name))
			return fd;
		close(fd);
	}
	return -ENOENT;
}

/*
 * bpfilter.ko's kfuncs for the matches and targets it checks, and for
 * ipv6_find_hdr(); without them (the helper's code run on its own, in
 * tests) those matches and targets stay ip_tables', and the programs walk
 * the IPv6 extension headers themselves.
 */
static void read_module_btf(const struct btf *vmlinux, struct bf_btf *k)
{
	struct btf *btf = btf__load_module_btf("bpfilter", (struct btf *)vmlinux);

	k->xt_match = -1;
	k->xt_target = -1;
	k->ipv6_find_hdr = -1;
	k->module_fd = -1;
	if (libbpf_get_error(btf))
		return;
	k->module_fd = module_btf_fd("bpfilter");
	if (k->module_fd >= 0) {
		k->xt_match = btf__find_by_name_kind(btf, "bpfilter_xt_match",
						     BTF_KIND_FUNC);
		k->xt_target = btf__find_by_name_kind(btf,
						      "bpfilter_xt_target",
						      BTF_KIND_FUNC);
		k->ipv6_find_hdr = btf__find_by_name_kind(btf,
							  "bpfilter_ipv6_find_hdr",
							  BTF_KIND_FUNC);
	}
	btf__free(btf);
}

static int read_btf(struct bf_btf *k)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int err;

	err = libbpf_get_error(btf);
	if (err)
		return err;
	read_module_btf(btf, k);
	k->dynptr_from_skb = btf__find_by_name_kind(btf, "bpf_dynptr_from_skb",
						    BTF_KIND_FUNC);
	k->dynptr_slice = btf__find_by_name_kind(btf, "bpf_dynptr_slice",
						 BTF_KIND_FUNC);
	err = k->dynptr_from_skb < 0 ? k->dynptr_from_skb : 0;
	err = err ?: (k->dynptr_slice < 0 ? k->dynptr_slice : 0);
	err = err ?: struct_member(btf, "bpf_nf_ctx", "state", &k->ctx_state);
	err = err ?: struct_member(btf, "bpf_nf_ctx", "skb", &k->ctx_skb);
	err = err ?: struct_member(btf, "nf_hook_state", "hook",
				   &k->state_hook);
	err = err ?: struct_member(btf, "nf_hook_state", "in", &k->state_in);
	err = err ?: struct_member(btf, "nf_hook_state", "out", &k->state_out);
	err = err ?: struct_member(btf, "net_device", "name", &k->dev_name);
	err = err ?: struct_member(btf, "sk_buff", "len", &k->skb_len);
	err = err ?: struct_member(btf, "sk_buff", "mark", &k->skb_mark);
	err = err ?: struct_member(btf, "sk_buff", "_nfct", &k->skb_nfct);
	btf__free(btf);
	return err;
}

/* The kernel's BTF, read once. */
static const struct bf_btf *kernel_btf(void)
{
	if (bf_btf_err > 0) {
		bf_btf_err = read_btf(&bf_btf);
		if (bf_btf_err)
			fprintf(stderr, "no usable kernel BTF (%d): ip_tables serves every table\n",
				bf_btf_err);
	}
	return bf_btf_err ? NULL : &bf_btf;
}

/**
 * bf_load_init - reads the kernel's BTF, before the helper gives up files
 *
 * The BTF of vmlinux is a file, and a module's BTF is found by id, which
 * takes CAP_SYS_ADMIN: both are read before bf_sandbox().
 */
void bf_load_init(void)
{
	kernel_btf();
}

/* The verifier's last words, for the kernel log. */
static void print_log(const char *log, unsigned int insns, int err)
{
	const char *end = log + strlen(log), *p = end;
	int lines = 0;

	while (p > log && lines < 4)
		if (*--p == '\n' && p + 1 < end)
			lines++;
	fprintf(stderr, "program of %u instructions %s (%d): %s\n", insns,
		err ? "refused" : "loaded", err,
		p);
}

/*
 * The verifier's statistics (BPF_LOG_STATS) cost nothing much, and come
 * with its last words when it refuses a program.
 */
static int load_code(const struct bf_code *code, struct bf_prog *prog,
		     __u8 family, const struct bf_btf *btf)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_NETFILTER);
	int fd_array[BF_FD_ARRAY] = {
		-1, btf->module_fd, prog->map_fd, prog->cls_fd,
	};
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	char *log;
	int fd, err;

	log = calloc(1, LOG_SIZE);
	if (!log)
		return -ENOMEM;
	opts.log_buf = log;
	opts.log_size = LOG_SIZE;
	opts.log_level = 4;	/* BPF_LOG_STATS */
	opts.fd_array = fd_array;
	fd = bpf_prog_load(BPF_PROG_TYPE_NETFILTER,
			   family == NFPROTO_IPV6 ? "bpfilter_ipv6" :
						    "bpfilter_ipv4",
			   "GPL", code->insns, code->len, &opts);
	if (fd < 0 || getenv("BPFILTER_VERIFIER_STATS"))
		print_log(log, code->len, fd < 0 ? fd : 0);
	free(log);
	if (fd < 0)
		return fd;
	err = bpf_prog_get_info_by_fd(fd, &info, &len);
	if (err) {
		close(fd);
		return err;
	}
	prog->prog_fd = fd;
	prog->prog_id = info.id;
	prog->insns = code->len;
	return 0;
}

/* Counter indices: each entry's, with room below and above for new ones. */
static int place(unsigned int n, struct bf_prog *prog)
{
	unsigned int i;

	prog->slot = malloc((n + 1) * sizeof(*prog->slot));
	if (!prog->slot)
		return -ENOMEM;
	prog->nslots = n;
	prog->low = n / 16 + 16;
	prog->high = prog->low + n;
	prog->cap = prog->high + n / 8 + 64;
	for (i = 0; i < n; i++)
		prog->slot[i] = prog->low + i;
	return 0;
}

/**
 * bf_prog_keys - what the classifier's map of a program holds
 * @cls: the classified runs of its table
 * @prog: the program, whose counter indices are set; its keys are set
 *
 * The keys stay in the order of @cls, by key, and the values have the
 * counter index of the entry instead of the entry.
 *
 * Return: 0 or -ENOMEM.
 */
int bf_prog_keys(const struct bf_cls *cls, struct bf_prog *prog)
{
	unsigned int i;

	prog->keys = malloc((cls->nentries + 1) * sizeof(*prog->keys));
	if (!prog->keys)
		return -ENOMEM;
	for (i = 0; i < cls->nentries; i++) {
		prog->keys[i] = cls->entries[i];
		prog->keys[i].value.index =
			prog->slot[cls->entries[i].value.index];
	}
	prog->nkeys = cls->nentries;
	return 0;
}

/*
 * The classifier's hash map, filled in, with room for new keys. (A run
 * may have no key: its rules never match.)
 */
static int load_cls(struct bf_prog *prog)
{
	struct bf_cls_value *values = NULL;
	struct bf_cls_key *keys = NULL;
	__u32 i, n = prog->nkeys;
	int err;

	prog->cls_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "bpfilter_cls",
				      sizeof(*keys), sizeof(*values),
				      prog->keys_cap, NULL);
	if (prog->cls_fd < 0)
		return prog->cls_fd;
	if (!n)
		return 0;
	keys = malloc(n * sizeof(*keys));
	values = malloc(n * sizeof(*values));
	err = -ENOMEM;
	if (!keys || !values)
		goto out;
	for (i = 0; i < n; i++) {
		keys[i] = prog->keys[i].key;
		values[i] = prog->keys[i].value;
	}
	err = bpf_map_update_batch(prog->cls_fd, keys, values, &n, NULL);
out:
	free(keys);
	free(values);
	return err;
}

/* The plan of a new program: BF_FALLBACK if it cannot have one. */
static int plan_new(const struct bf_ir *ir, struct bf_cls *cls,
		    const struct bf_btf *btf, struct bf_prog *prog)
{
	int err;

	err = place(ir->nrules, prog);
	if (!err && cls->nruns) {
		err = bf_prog_keys(cls, prog);
		prog->keys_cap = bf_keys_cap(cls->nentries);
	}
	if (!err)
		err = bf_codegen(ir, btf, prog->slot, cls, &prog->code);
	if (err == -E2BIG) {
		fprintf(stderr, "table over %u BPF instructions\n",
			BF_MAX_INSNS);
		return BF_FALLBACK;
	}
	return err;
}

void bf_prog_init(struct bf_prog *prog)
{
	memset(prog, 0, sizeof(*prog));
	prog->prog_fd = -1;
	prog->map_fd = -1;
	prog->cls_fd = -1;
}

static bool has_jumps(const struct bf_cls *cls)
{
	unsigned int i;

	for (i = 0; i < cls->nruns; i++)
		if (cls->runs[i].njumps)
			return true;
	return false;
}

/**
 * bf_prog_plan - compiles the program of a table, without loading it
 * @ir: the table
 * @old: the program of the table it replaces, or NULL
 * @from: for each entry of @ir, the entry of @old's table it is, -1 for
 *	a new one (bf_entries_from()), or NULL
 * @jumps: whether classified runs may have jumps out of them
 * @prog: the plan: a new program's counter indices, keys and code, or
 *	@old's program kept (@prog->kept) with its new counter indices and
 *	keys and the changes of its map; to be released with bf_unload().
 *	@prog->jumps says whether runs had jumps, even on an error.
 *
 * It takes no privilege, and no fd: bf_prog_load() loads the plan.
 *
 * Return: 0, BF_FALLBACK if the table cannot run as a program here (the
 * reason is printed to the kernel log), or a negative errno.
 */
int bf_prog_plan(const struct bf_ir *ir, const struct bf_prog *old,
		 const int *from, bool jumps, struct bf_prog *prog)
{
	const struct bf_btf *btf = kernel_btf();
	struct bf_cls cls;
	int err;

	bf_prog_init(prog);
	if (!btf)
		return BF_FALLBACK;
	err = bf_cls_plan(ir, jumps, &cls);
	if (err)
		return err;
	err = 1;
	if (old && from && old->prog_fd >= 0) {
		err = bf_update(ir, &cls, btf, old, from, prog);
		/* bf_unload() leaves @prog as bf_prog_init() does. */
		if (err > 0)
			bf_unload(prog);
	}
	if (err > 0)
		err = plan_new(ir, &cls, btf, prog);
	if (err)
		bf_unload(prog);
	prog->jumps = has_jumps(&cls);
	prog->no_jumps = !jumps;
	bf_cls_free(&cls);
	return err;
}

/*
 * The code of a plan came from a child that parsed what a tenant sent:
 * it may name no map, call no helper and no kfunc that the code generator
 * does not, so that it reaches nothing of the helper's but its own maps.
 */
static bool code_ok(const struct bf_code *code, const struct bf_prog *prog,
		    const struct bf_btf *btf)
{
	const struct bpf_insn *in = code->insns;
	unsigned int i;

	for (i = 0; i < code->len; i++) {
		if (in[i].code == (BPF_LD | BPF_IMM | BPF_DW)) {
			if (i + 1 == code->len)
				return false;
			if (in[i].src_reg &&
			    (in[i].src_reg != BPF_PSEUDO_MAP_IDX ||
			     (in[i].imm != BF_COUNTERS_MAP &&
			      (in[i].imm != BF_CLS_MAP || !prog->keys_cap))))
				return false;
			i++;
			continue;
		}
		if (in[i].code != (BPF_JMP | BPF_CALL))
			continue;
		if (in[i].src_reg == BPF_PSEUDO_KFUNC_CALL) {
			if (in[i].off == BF_MODULE_BTF ?
			    in[i].imm != btf->xt_match &&
			    in[i].imm != btf->xt_target &&
			    in[i].imm != btf->ipv6_find_hdr :
			    in[i].off || (in[i].imm != btf->dynptr_from_skb &&
					  in[i].imm != btf->dynptr_slice))
				return false;
		} else if (in[i].src_reg ||
			   (in[i].imm != BPF_FUNC_map_lookup_elem &&
			    in[i].imm != BPF_FUNC_dynptr_read)) {
			return false;
		}
	}
	return true;
}

/**
 * bf_prog_load - loads the program of a plan
 * @family: NFPROTO_IPV4 or NFPROTO_IPV6
 * @old: the program of the table it replaces, or NULL
 * @prog: the plan of bf_prog_plan(); its program and maps on success, to
 *	be released with bf_unload() in any case
 *
 * A plan that keeps @old's program takes its maps and code.
 *
 * Return: 0, BF_FALLBACK if the verifier refuses the program (it said
 * why in the kernel log) or there is no usable kernel BTF, -EBADMSG if
 * the plan keeps a program there is not or its code reaches what the
 * code generator's does not, or another negative errno.
 */
int bf_prog_load(__u8 family, struct bf_prog *old, struct bf_prog *prog)
{
	const struct bf_btf *btf = kernel_btf();
	int err;

	if (!btf)
		return BF_FALLBACK;
	if (prog->kept) {
		if (!old || old->prog_fd < 0)
			return -EBADMSG;
		prog->prog_fd = old->prog_fd;
		prog->map_fd = old->map_fd;
		prog->cls_fd = old->cls_fd;
		prog->prog_id = old->prog_id;
		prog->insns = old->insns;
		free(prog->code.insns);
		prog->code = old->code;
		prog->keys_cap = old->keys_cap;
		old->prog_fd = -1;
		old->map_fd = -1;
		old->cls_fd = -1;
		old->code.insns = NULL;
		return 0;
	}
	if (!code_ok(&prog->code, prog, btf))
		return -EBADMSG;
	prog->map_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY,
				      "bpfilter_count", sizeof(__u32),
				      sizeof(struct xt_counters), prog->cap,
				      NULL);
	if (prog->map_fd < 0)
		return prog->map_fd;
	if (prog->keys_cap) {
		err = load_cls(prog);
		if (err)
			return err;
	}
	err = load_code(&prog->code, prog, family, btf);
	/* The verifier's limits (it said which): ip_tables serves it. */
	if (err < 0 && err != -ENOMEM)
		err = BF_FALLBACK;
	return err;
}

/**
 * bf_load - compiles and loads the program of a table, in this process
 * @ir: the table
 * @old: the program of the table it replaces, or NULL
 * @from: for each entry of @ir, the entry of @old's table it is, -1 for
 *	a new one (bf_entries_from()), or NULL
 * @prog: the program, to be released with bf_unload()
 *
 * bf_prog_plan() then bf_prog_load(), as the helper and its compiling
 * child make them (table.c), for the tests of the helper's code.
 *
 * Return: 0, BF_FALLBACK if the table cannot run as a program here (the
 * reason is printed to the kernel log), or a negative errno.
 */
int bf_load(const struct bf_ir *ir, struct bf_prog *old, const int *from,
	    struct bf_prog *prog)
{
	bool jumps = !old || !old->no_jumps;
	int err;

	err = bf_prog_plan(ir, old, from, jumps, prog) ?:
	      bf_prog_load(ir->family, old, prog);
	if (bf_load_again(err, prog)) {
		bf_unload(prog);
		err = bf_prog_plan(ir, old, from, false, prog) ?:
		      bf_prog_load(ir->family, old, prog);
	}
	if (err == BF_FALLBACK)
		fprintf(stderr, "ip_tables serves the table\n");
	if (err)
		bf_unload(prog);
	return err;
}

/**
 * bf_load_again - whether a table gets another plan, without jumps out
 *	of its classified runs
 * @err: what its plan and loading gave
 * @prog: the plan
 *
 * Chains jumped to from runs are verified on paths out of the runs'
 * lookups, which may take the verifier past its limits where code per
 * jump would not: then once more without, and so on for the changes of
 * the table.
 *
 * Return: true if the plan had jumps and the verifier refused it.
 */
bool bf_load_again(int err, const struct bf_prog *prog)
{
	if (err != BF_FALLBACK || !prog->jumps || prog->no_jumps)
		return false;
	fprintf(stderr, "again, jumps out of the classified runs\n");
	return true;
}

/**
 * bf_load_xt - whether programs can call the kernel's matches
 *
 * Return: true if bpfilter.ko has bpfilter_xt_match(); if not, the
 * module is not asked to check matches that no program could call.
 */
bool bf_load_xt(void)
{
	const struct bf_btf *btf = kernel_btf();

	return btf && btf->xt_match >= 0;
}

/* Closes a program's maps and frees what it keeps: nothing else uses it. */
void bf_unload(struct bf_prog *prog)
{
	if (prog->prog_fd >= 0)
		close(prog->prog_fd);
	if (prog->map_fd >= 0)
		close(prog->map_fd);
	if (prog->cls_fd >= 0)
		close(prog->cls_fd);
	free(prog->code.insns);
	free(prog->slot);
	free(prog->keys);
	free(prog->ops);
	bf_prog_init(prog);
}
