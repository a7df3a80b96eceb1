// SPDX-License-Identifier: GPL-2.0
/*
 * The code of a classified run (classify.c): the packet's key under each
 * shape of the run, looked up in the classifier's map; the lowest entry
 * found wins, unless a rule before it would drop the packet (hotdrop).
 * A key reads only fields its rules' own code reads (ir.c's
 * rule_reads()), which the prologue fills.
 */
#include <assert.h>
#include <stddef.h>
#include <string.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>

#include "codegen.h"
#include "lookup.h"
#include "match.h"

#define KEY(field)	(S_CKEY + (int)offsetof(struct bf_cls_key, field))

static_assert(sizeof(struct bf_cls_key) <= S_CKEY_SIZE &&
	      offsetof(struct bf_cls_key, in) % 8 == 0 &&
	      offsetof(struct bf_cls_key, out) % 8 == 0,
	      "the classifier's key does not fit its place on the stack");

/* The name of a device at @from under @mask, 8 bytes at a time. */
static void emit_name(struct bf_emit *e, int from, const __u8 *mask, int to)
{
	unsigned int i;
	__u64 m;

	for (i = 0; i < IFNAMSIZ; i += sizeof(m)) {
		memcpy(&m, mask + i, sizeof(m));
		if (!m)
			continue;
		bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, from + i));
		bf_emit_ld64(e, R2, m);
		bf_emit(e, BPF_ALU64_REG(BPF_AND, R1, R2));
		bf_emit(e, BPF_STX_MEM(BPF_DW, FP, R1, to + i));
	}
}

/* The packet's key under @sh at S_CKEY. */
static void emit_key(struct bf_emit *e, __u8 family,
		     const struct bf_cls_shape *sh)
{
	bool v6 = family == NFPROTO_IPV6;
	int saddr = S_L3 + (v6 ? (int)offsetof(struct ipv6hdr, saddr) :
				 (int)offsetof(struct iphdr, saddr));
	int daddr = S_L3 + (v6 ? (int)offsetof(struct ipv6hdr, daddr) :
				 (int)offsetof(struct iphdr, daddr));
	unsigned int i, words = v6 ? 4 : 1;
	__u32 m;

	for (i = 0; i < S_CKEY_SIZE; i += 8)
		bf_emit(e, BPF_ST_MEM(BPF_DW, FP, S_CKEY + i, 0));
	bf_emit(e, BPF_ST_MEM(BPF_W, FP, KEY(shape), sh->id));
	if (!sh->any_proto) {
		if (v6)
			bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_PROTO));
		else
			bf_emit(e, BPF_LDX_MEM(BPF_B, R1, FP, S_L3 +
					       (int)offsetof(struct iphdr,
							     protocol)));
		bf_emit(e, BPF_STX_MEM(BPF_B, FP, R1, KEY(proto)));
	}
	if (sh->ct) {
		bf_emit_ct_bit(e, XT_STATE_UNTRACKED);
		bf_emit(e, BPF_STX_MEM(BPF_B, FP, R1, KEY(ct)));
	}
	emit_name(e, S_IN, sh->inmsk, KEY(in));
	emit_name(e, S_OUT, sh->outmsk, KEY(out));
	if (sh->spmask) {
		bf_emit(e, BPF_LDX_MEM(BPF_H, R1, FP, S_L4));
		bf_emit(e, BPF_ALU32_IMM(BPF_AND, R1, sh->spmask));
		bf_emit(e, BPF_STX_MEM(BPF_H, FP, R1, KEY(sport)));
	}
	if (sh->dpmask) {
		bf_emit(e, BPF_LDX_MEM(BPF_H, R1, FP, S_L4 + 2));
		bf_emit(e, BPF_ALU32_IMM(BPF_AND, R1, sh->dpmask));
		bf_emit(e, BPF_STX_MEM(BPF_H, FP, R1, KEY(dport)));
	}
	for (i = 0; i < words; i++) {
		memcpy(&m, sh->smsk + 4 * i, sizeof(m));
		if (m) {
			bf_emit(e, BPF_LDX_MEM(BPF_W, R1, FP, saddr + 4 * i));
			bf_emit(e, BPF_ALU32_IMM(BPF_AND, R1, m));
			bf_emit(e, BPF_STX_MEM(BPF_W, FP, R1, KEY(src) + 4 * i));
		}
		memcpy(&m, sh->dmsk + 4 * i, sizeof(m));
		if (m) {
			bf_emit(e, BPF_LDX_MEM(BPF_W, R1, FP, daddr + 4 * i));
			bf_emit(e, BPF_ALU32_IMM(BPF_AND, R1, m));
			bf_emit(e, BPF_STX_MEM(BPF_W, FP, R1, KEY(dst) + 4 * i));
		}
	}
}

/*
 * The lookup of S_CKEY: an entry lower than the one in @slot replaces it
 * (and, for a rule, S_VERD is its verdict).
 */
static void emit_lookup(struct bf_emit *e, int slot, bool rule)
{
	struct bpf_insn map[2] = { BF_LD_MAP_IDX(R1, BF_CLS_MAP) };
	int skip = bf_new_label(e);

	bf_emit(e, map[0]);
	bf_emit(e, map[1]);
	bf_emit(e, BPF_MOV64_REG(R2, FP));
	bf_emit(e, BPF_ALU64_IMM(BPF_ADD, R2, S_CKEY));
	bf_emit(e, BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem));
	bf_jmp(e, BPF_JMP_IMM(BPF_JEQ, R0, 0, 0), skip);
	bf_emit(e, BPF_LDX_MEM(BPF_W, R1, R0,
			       offsetof(struct bf_cls_value, index)));
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R2, FP, slot));
	bf_jmp(e, BPF_JMP_REG(BPF_JGE, R1, R2, 0), skip);
	bf_emit(e, BPF_STX_MEM(BPF_DW, FP, R1, slot));
	if (rule) {
		bf_emit(e, BPF_LDX_MEM(BPF_W, R1, R0,
				       offsetof(struct bf_cls_value, verdict)));
		bf_emit(e, BPF_STX_MEM(BPF_DW, FP, R1, S_VERD));
	}
	bf_bind(e, skip);
}

/* What tcp_mt() and udp_mt() read of the transport header. */
static unsigned int l4_need(const struct bf_cls_shape *sh)
{
	return sh->l4proto == IPPROTO_TCP ? L4_TCP : L4_SHORT;
}

/*
 * A rule's lookup. IPv6 rules with -p need the protocol header found,
 * rules with ports a first fragment with their header: else the
 * projections below decide.
 */
static void emit_rule_shape(struct bf_emit *e, __u8 family,
			    const struct bf_cls_shape *sh)
{
	int skip = bf_new_label(e);

	if (sh->proto6) {
		bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_PROTO));
		bf_jmp(e, BPF_JMP_IMM(BPF_JSLT, R1, 0, 0), skip);
	}
	if (sh->l4proto) {
		bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_FRAG));
		bf_jmp(e, BPF_JMP_IMM(BPF_JNE, R1, 0, 0), skip);
		bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_L4LEN));
		bf_jmp(e, BPF_JMP_IMM(BPF_JLT, R1, l4_need(sh), 0), skip);
	}
	emit_key(e, family, sh);
	emit_lookup(e, S_BEST, true);
	bf_bind(e, skip);
}

/*
 * The first rule with ports whose address part matches a packet they
 * cannot read: a first fragment too short, or (tcp) a fragment at
 * offset 1, as tcp_mt() and udp_mt() say. IPv6 packets without a
 * protocol header are for BF_CLS_ADDR.
 */
static void emit_l4_shape(struct bf_emit *e, __u8 family,
			  const struct bf_cls_shape *sh)
{
	int skip = bf_new_label(e), hit = bf_new_label(e);

	if (sh->proto6) {
		bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_PROTO));
		bf_jmp(e, BPF_JMP_IMM(BPF_JSLT, R1, 0, 0), skip);
	}
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_FRAG));
	if (sh->l4proto == IPPROTO_TCP)
		bf_jmp(e, BPF_JMP_IMM(BPF_JEQ, R1, 1, 0), hit);
	bf_jmp(e, BPF_JMP_IMM(BPF_JNE, R1, 0, 0), skip);
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_L4LEN));
	bf_jmp(e, BPF_JMP_IMM(BPF_JGE, R1, l4_need(sh), 0), skip);
	bf_bind(e, hit);
	emit_key(e, family, sh);
	emit_lookup(e, S_HOT, false);
	bf_bind(e, skip);
}

/* IPv6 rules with -p, for a packet ipv6_find_hdr() found no header in. */
static void emit_addr_shape(struct bf_emit *e, __u8 family,
			    const struct bf_cls_shape *sh)
{
	int skip = bf_new_label(e);

	bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_PROTO));
	bf_jmp(e, BPF_JMP_IMM(BPF_JSGE, R1, 0, 0), skip);
	emit_key(e, family, sh);
	emit_lookup(e, S_HOT, false);
	bf_bind(e, skip);
}

/**
 * bf_emit_run - the code of a classified run
 * @e: where to emit
 * @family: NFPROTO_IPV4 or NFPROTO_IPV6
 * @cls: the classifier
 * @run: the run
 * @miss: the label of no rule of the run matching
 *
 * Drops a packet a rule of the run drops unread; on a match, falls
 * through with the entry in S_BEST and its verdict in S_VERD.
 */
void bf_emit_run(struct bf_emit *e, __u8 family, const struct bf_cls *cls,
		 const struct bf_cls_run *run, int miss)
{
	unsigned int i;

	/* Nothing found yet: an index above any entry's, U32_MAX. */
	bf_emit(e, BPF_MOV64_IMM(R1, -1));
	bf_emit(e, BPF_ALU64_IMM(BPF_RSH, R1, 32));
	bf_emit(e, BPF_STX_MEM(BPF_DW, FP, R1, S_BEST));
	bf_emit(e, BPF_STX_MEM(BPF_DW, FP, R1, S_HOT));
	for (i = run->shape; i < run->shape + run->nshapes; i++) {
		const struct bf_cls_shape *sh = &cls->shapes[i];

		if (sh->kind == BF_CLS_RULE)
			emit_rule_shape(e, family, sh);
		else if (sh->kind == BF_CLS_L4)
			emit_l4_shape(e, family, sh);
		else
			emit_addr_shape(e, family, sh);
	}
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R2, FP, S_BEST));
	if (run->hotdrop) {
		bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_HOT));
		bf_emit(e, BPF_JMP_REG(BPF_JGE, R1, R2, 2));
		bf_verdict(e, NF_DROP);
	}
	bf_emit(e, BPF_MOV64_IMM(R1, -1));
	bf_emit(e, BPF_ALU64_IMM(BPF_RSH, R1, 32));
	bf_jmp(e, BPF_JMP_REG(BPF_JEQ, R2, R1, 0), miss);
}
