// SPDX-License-Identifier: GPL-2.0
/*
 * The prologue of a program: what ipt_do_table() and ip6t_do_table() know
 * of a packet before the first rule, read once into the stack frame
 * (emit.h): the IP header, the interfaces, skb->len, the fragment offset
 * and the transport header, as far as the table's rules read them (enum
 * bf_read). Packets are read through a dynptr of the skb, which also
 * serves non-linear ones.
 */
#include <stddef.h>
#include <linux/in6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>

#include "packet.h"

#define IP_OFFSET	0x1FFF	/* of iphdr.frag_off, as in net/ip.h */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * ipv6_find_hdr() walks IP6_MAX_EXT_HDRS_CNT (12) extension headers and
 * gives up at the next: the unrolled walk takes one step for each, and a
 * 13th to find the protocol after the 12th.
 */
#define BF_IPV6_EXTHDRS	13

/* bpf_dynptr_read(FP + @off, R2, dynptr, R4, 0): R0 = 0 if read. */
static void emit_read_len(struct bf_emit *e, int off)
{
	bf_emit(e, BPF_MOV64_REG(R1, FP));
	bf_emit(e, BPF_ALU64_IMM(BPF_ADD, R1, off));
	bf_emit(e, BPF_MOV64_REG(R3, FP));
	bf_emit(e, BPF_ALU64_IMM(BPF_ADD, R3, S_DYNPTR));
	bf_emit(e, BPF_MOV64_IMM(R5, 0));
	bf_emit(e, BPF_EMIT_CALL(BPF_FUNC_dynptr_read));
}

/*
 * R0 = bpf_dynptr_slice(dynptr, R4, FP + @buf, @len): a pointer to @len
 * bytes of the packet at offset R4, or NULL. It points into the skb's head
 * when the bytes are there, where bpf_dynptr_read() copies them with a
 * call or two more, which cost more than the rest of a small table.
 */
static void emit_slice(struct bf_emit *e, const struct bf_btf *btf, int buf,
		       unsigned int len)
{
	bf_emit(e, BPF_MOV64_REG(R2, R4));
	bf_emit(e, BPF_MOV64_REG(R1, FP));
	bf_emit(e, BPF_ALU64_IMM(BPF_ADD, R1, S_DYNPTR));
	bf_emit(e, BPF_MOV64_REG(R3, FP));
	bf_emit(e, BPF_ALU64_IMM(BPF_ADD, R3, buf));
	bf_emit(e, BPF_MOV64_IMM(R4, len));
	bf_emit(e, BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL,
				0, btf->dynptr_slice));
}

/*
 * The buffer of the slices, used if the bytes are not in the skb's head:
 * the frame's tcp options, read after the headers. It is not zeroed: the
 * helper loads its programs with CAP_PERFMON, for which the verifier lets
 * a kfunc have uninitialised stack.
 */
#define S_HEADERS	S_OPT

/* The bytes a copy moves at once: the headers are only 4-byte aligned. */
static unsigned int copy_bytes(unsigned int at, unsigned int len)
{
	return len - at >= 4 ? 4 : 2;
}

/* Copies bytes @from to @from + @len of the slice in R0 to FP + @off. */
static void emit_copy(struct bf_emit *e, int off, unsigned int from,
		      unsigned int len)
{
	unsigned int i, n;

	for (i = 0; i < len; i += n) {
		n = copy_bytes(i, len);
		bf_emit(e, BPF_LDX_MEM(n == 4 ? BPF_W : BPF_H, R1, R0,
				       from + i));
		bf_emit(e, BPF_STX_MEM(n == 4 ? BPF_W : BPF_H, FP, R1,
				       off + i));
	}
}

/* @len bytes at offset R4 of the packet to FP + @off: R0 = 0 if read. */
static void emit_read(struct bf_emit *e, const struct bf_btf *btf, int off,
		      unsigned int len)
{
	int fail = bf_new_label(e), done = bf_new_label(e);

	emit_slice(e, btf, S_HEADERS, len);
	bf_jmp(e, BPF_JMP_IMM(BPF_JEQ, R0, 0, 0), fail);
	emit_copy(e, off, 0, len);
	bf_emit(e, BPF_MOV64_IMM(R0, 0));
	bf_gotol(e, done);
	bf_bind(e, fail);
	bf_emit(e, BPF_MOV64_IMM(R0, -1));
	bf_bind(e, done);
}

/* The name of the device at @dev_off in the hook state, or zeroes. */
static void emit_dev(struct bf_emit *e, const struct bf_btf *btf,
		     __u32 dev_off, int off)
{
	bf_emit(e, BPF_ST_MEM(BPF_DW, FP, off, 0));
	bf_emit(e, BPF_ST_MEM(BPF_DW, FP, off + 8, 0));
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, STATE, dev_off));
	bf_emit(e, BPF_JMP_IMM(BPF_JEQ, R1, 0, 4));
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R2, R1, btf->dev_name));
	bf_emit(e, BPF_STX_MEM(BPF_DW, FP, R2, off));
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R2, R1, btf->dev_name + 8));
	bf_emit(e, BPF_STX_MEM(BPF_DW, FP, R2, off + 8));
}

/*
 * The transport header at S_THOFF: as much of it as the matches read,
 * tcp's, that of udp and icmp, or multiport's two ports.
 */
static void emit_l4(struct bf_emit *e, const struct bf_btf *btf)
{
	static const unsigned int sizes[] = { L4_TCP, L4_SHORT, L4_PORTS };
	int done = bf_new_label(e);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		bf_emit(e, BPF_ST_MEM(BPF_DW, FP, S_L4LEN, sizes[i]));
		bf_emit(e, BPF_LDX_MEM(BPF_DW, R4, FP, S_THOFF));
		emit_read(e, btf, S_L4, sizes[i]);
		bf_jmp(e, BPF_JMP_IMM(BPF_JEQ, R0, 0, 0), done);
	}
	bf_emit(e, BPF_ST_MEM(BPF_DW, FP, S_L4LEN, 0));
	bf_bind(e, done);
}

/* The most bytes of options a tcp header has. */
#define TCP_OPTIONS	40

/* R = (R < 0) for a 64-bit R: "a < b" of small numbers is (a - b) >> 63 */
static void emit_sign(struct bf_emit *e, int reg)
{
	bf_emit(e, BPF_ALU64_IMM(BPF_RSH, reg, 63));
}

/*
 * The walk of tcp_find_option(), once for every --tcp-option of the
 * table: the kinds of the options it steps on go into the S_OPTS bitmap.
 * At most 40 steps, each of a byte at least; no branches, as each would
 * be states more for the verifier. The options are read into S_OPT,
 * zeroes after them; i is taken modulo 64 there, which only matters once
 * i is past them, where nothing is recorded any more.
 */
static void emit_tcp_options(struct bf_emit *e)
{
	int done = bf_new_label(e), fail = bf_new_label(e);
	unsigned int i;

	for (i = 0; i < 32; i += 8)
		bf_emit(e, BPF_ST_MEM(BPF_DW, FP, S_OPTS + i, 0));
	bf_emit(e, BPF_ST_MEM(BPF_DW, FP, S_OPTLEN, -1));
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_L4LEN));
	bf_jmp(e, BPF_JMP_IMM(BPF_JLT, R1, L4_TCP, 0), done);
	/* th->doff * 4 < sizeof(struct tcphdr): S_OPTLEN stays -1 */
	bf_emit(e, BPF_LDX_MEM(BPF_B, R2, FP, S_L4 + 12));
	bf_emit(e, BPF_ALU64_IMM(BPF_RSH, R2, 4));
	bf_emit(e, BPF_ALU64_IMM(BPF_LSH, R2, 2));
	bf_jmp(e, BPF_JMP_IMM(BPF_JLT, R2, L4_TCP, 0), done);
	bf_emit(e, BPF_ALU64_IMM(BPF_SUB, R2, L4_TCP));
	bf_emit(e, BPF_STX_MEM(BPF_DW, FP, R2, S_OPTLEN));
	bf_jmp(e, BPF_JMP_IMM(BPF_JEQ, R2, 0, 0), done);
	for (i = 0; i < S_OPT_SIZE; i += 8)
		bf_emit(e, BPF_ST_MEM(BPF_DW, FP, S_OPT + i, 0));
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R4, FP, S_THOFF));
	bf_emit(e, BPF_ALU64_IMM(BPF_ADD, R4, L4_TCP));
	emit_read_len(e, S_OPT);
	bf_jmp(e, BPF_JMP_IMM(BPF_JNE, R0, 0, 0), fail);

	/*
	 * R2: i, R3: optlen, R5: op[i], R1: op[i + 1], then the step; R9:
	 * i < optlen; R0, R4: scratch.
	 */
	bf_emit(e, BPF_MOV64_IMM(R2, 0));
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R3, FP, S_OPTLEN));
	for (i = 0; i < TCP_OPTIONS; i++) {
		bf_emit(e, BPF_MOV64_REG(R1, R2));
		bf_emit(e, BPF_ALU64_IMM(BPF_AND, R1, 63));
		bf_emit(e, BPF_MOV64_REG(R4, FP));
		bf_emit(e, BPF_ALU64_IMM(BPF_ADD, R4, S_OPT));
		bf_emit(e, BPF_ALU64_REG(BPF_ADD, R4, R1));
		bf_emit(e, BPF_LDX_MEM(BPF_B, R5, R4, 0));
		bf_emit(e, BPF_LDX_MEM(BPF_B, R1, R4, 1));
		bf_emit(e, BPF_MOV64_REG(R9, R2));
		bf_emit(e, BPF_ALU64_REG(BPF_SUB, R9, R3));
		emit_sign(e, R9);
		/* S_OPTS[op[i] / 64] |= (i < optlen) << op[i] % 64 */
		bf_emit(e, BPF_MOV64_REG(R0, R5));
		bf_emit(e, BPF_ALU64_IMM(BPF_AND, R0, 63));
		bf_emit(e, BPF_ALU64_REG(BPF_LSH, R9, R0));
		bf_emit(e, BPF_MOV64_REG(R0, R5));
		bf_emit(e, BPF_ALU64_IMM(BPF_RSH, R0, 6));
		bf_emit(e, BPF_ALU64_IMM(BPF_LSH, R0, 3));
		bf_emit(e, BPF_MOV64_REG(R4, FP));
		bf_emit(e, BPF_ALU64_IMM(BPF_ADD, R4, S_OPTS));
		bf_emit(e, BPF_ALU64_REG(BPF_ADD, R4, R0));
		bf_emit(e, BPF_LDX_MEM(BPF_DW, R0, R4, 0));
		bf_emit(e, BPF_ALU64_REG(BPF_OR, R0, R9));
		bf_emit(e, BPF_STX_MEM(BPF_DW, R4, R0, 0));
		/* i += op[i] < 2 ? 1 : op[i + 1] ?: 1 */
		bf_emit(e, BPF_MOV64_REG(R4, R1));
		bf_emit(e, BPF_ALU64_IMM(BPF_SUB, R4, 1));
		emit_sign(e, R4);
		bf_emit(e, BPF_ALU64_REG(BPF_ADD, R1, R4));
		bf_emit(e, BPF_ALU64_IMM(BPF_SUB, R5, 2));
		emit_sign(e, R5);
		bf_emit(e, BPF_MOV64_IMM(R4, 1));
		bf_emit(e, BPF_ALU64_REG(BPF_SUB, R4, R1));
		bf_emit(e, BPF_ALU64_REG(BPF_MUL, R4, R5));
		bf_emit(e, BPF_ALU64_REG(BPF_ADD, R1, R4));
		bf_emit(e, BPF_ALU64_REG(BPF_ADD, R2, R1));
	}
	bf_gotol(e, done);
	/* Options past the end of the packet: a --tcp-option drops it. */
	bf_bind(e, fail);
	bf_emit(e, BPF_ST_MEM(BPF_DW, FP, S_OPTLEN, -1));
	bf_bind(e, done);
}

/* ipt_do_table(): the fragment offset */
static void emit_frag(struct bf_emit *e)
{
	bf_emit(e, BPF_LDX_MEM(BPF_H, R1, FP,
			       S_L3 + (int)offsetof(struct iphdr, frag_off)));
	bf_emit(e, BPF_ENDIAN(BPF_TO_BE, R1, 16));
	bf_emit(e, BPF_ALU64_IMM(BPF_AND, R1, IP_OFFSET));
	bf_emit(e, BPF_STX_MEM(BPF_DW, FP, R1, S_FRAG));
}

/* ipt_do_table(): the fragment offset, and ip_hdrlen() */
static void emit_ipv4(struct bf_emit *e, const struct bf_btf *btf)
{
	emit_frag(e);
	bf_emit(e, BPF_LDX_MEM(BPF_B, R1, FP, S_L3));
	bf_emit(e, BPF_ALU64_IMM(BPF_AND, R1, 0xF));
	bf_emit(e, BPF_ALU64_IMM(BPF_LSH, R1, 2));
	bf_emit(e, BPF_STX_MEM(BPF_DW, FP, R1, S_THOFF));
	emit_l4(e, btf);
}

/* ipv6_ext_hdr(R9): jumps to @no when R9 is not an extension header. */
static void emit_is_ext(struct bf_emit *e, int reg, int no)
{
	bf_emit(e, BPF_JMP_IMM(BPF_JEQ, reg, IPPROTO_HOPOPTS, 5));
	bf_emit(e, BPF_JMP_IMM(BPF_JEQ, reg, IPPROTO_ROUTING, 4));
	bf_emit(e, BPF_JMP_IMM(BPF_JEQ, reg, IPPROTO_FRAGMENT, 3));
	bf_emit(e, BPF_JMP_IMM(BPF_JEQ, reg, IPPROTO_AH, 2));
	bf_emit(e, BPF_JMP_IMM(BPF_JEQ, reg, IPPROTO_DSTOPTS, 1));
	bf_jmp(e, BPF_JMP_IMM(BPF_JA, 0, 0, 0), no);
}

/*
 * ipv6_find_hdr(skb, &thoff, -1, &fragoff, NULL), unrolled: R9 is the
 * next header, R6 where it starts. Sets S_PROTO (negative if none was
 * found), S_THOFF and S_FRAG.
 */
static void emit_find_hdr(struct bf_emit *e, const struct bf_btf *btf)
{
	int done = bf_new_label(e), error = bf_new_label(e);
	int found = bf_new_label(e), frag_found = bf_new_label(e);
	int i;

	bf_emit(e, BPF_ST_MEM(BPF_DW, FP, S_FRAG, 0));
	bf_emit(e, BPF_LDX_MEM(BPF_B, R9, FP,
			       S_L3 + (int)offsetof(struct ipv6hdr, nexthdr)));
	bf_emit(e, BPF_MOV64_IMM(CTX, sizeof(struct ipv6hdr)));
	for (i = 0; i < BF_IPV6_EXTHDRS; i++) {
		int next = bf_new_label(e), opt = bf_new_label(e);
		int read = bf_new_label(e);

		/* IPPROTO_NONE is one, but ends the walk as the others. */
		bf_jmp(e, BPF_JMP_IMM(BPF_JEQ, R9, IPPROTO_NONE, 0), found);
		emit_is_ext(e, R9, found);
		/* 4 bytes: ipv6_opt_hdr, or the start of a fragment header */
		bf_emit(e, BPF_MOV64_REG(R4, CTX));
		emit_read(e, btf, S_SCRATCH, 4);
		bf_jmp(e, BPF_JMP_IMM(BPF_JEQ, R0, 0, 0), read);
		/* Only 2 bytes: enough for any header but these. */
		bf_jmp(e, BPF_JMP_IMM(BPF_JEQ, R9, IPPROTO_FRAGMENT, 0), error);
		bf_jmp(e, BPF_JMP_IMM(BPF_JEQ, R9, IPPROTO_ROUTING, 0), error);
		bf_emit(e, BPF_MOV64_REG(R4, CTX));
		emit_read(e, btf, S_SCRATCH, 2);
		bf_jmp(e, BPF_JMP_IMM(BPF_JNE, R0, 0, 0), error);

		bf_bind(e, read);
		bf_jmp(e, BPF_JMP_IMM(BPF_JNE, R9, IPPROTO_FRAGMENT, 0), opt);
		bf_emit(e, BPF_LDX_MEM(BPF_H, R1, FP, S_SCRATCH + 2));
		bf_emit(e, BPF_ENDIAN(BPF_TO_BE, R1, 16));
		bf_emit(e, BPF_ALU64_IMM(BPF_AND, R1, ~0x7));
		bf_emit(e, BPF_MOV64_IMM(R2, 8));
		bf_jmp(e, BPF_JMP_IMM(BPF_JEQ, R1, 0, 0), next);
		/* A fragment: its protocol if that is no extension header. */
		bf_emit(e, BPF_STX_MEM(BPF_DW, FP, R1, S_FRAG));
		bf_emit(e, BPF_LDX_MEM(BPF_B, R9, FP, S_SCRATCH));
		bf_jmp(e, BPF_JMP_IMM(BPF_JEQ, R9, IPPROTO_NONE, 0),
		       frag_found);
		emit_is_ext(e, R9, frag_found);
		bf_emit(e, BPF_ST_MEM(BPF_DW, FP, S_FRAG, 0));
		bf_gotol(e, error);

		bf_bind(e, opt);
		/* ipv6_optlen(), or ipv6_authlen() */
		bf_emit(e, BPF_LDX_MEM(BPF_B, R2, FP, S_SCRATCH + 1));
		bf_emit(e, BPF_JMP_IMM(BPF_JEQ, R9, IPPROTO_AH, 3));
		bf_emit(e, BPF_ALU64_IMM(BPF_ADD, R2, 1));
		bf_emit(e, BPF_ALU64_IMM(BPF_LSH, R2, 3));
		bf_emit(e, BPF_JMP_IMM(BPF_JA, 0, 0, 2));
		bf_emit(e, BPF_ALU64_IMM(BPF_ADD, R2, 2));
		bf_emit(e, BPF_ALU64_IMM(BPF_LSH, R2, 2));

		bf_bind(e, next);
		/* skb->len - start < hdrlen: a truncated header */
		bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_LEN));
		bf_emit(e, BPF_ALU64_REG(BPF_SUB, R1, CTX));
		bf_jmp(e, BPF_JMP_REG(BPF_JLT, R1, R2, 0), error);
		bf_emit(e, BPF_LDX_MEM(BPF_B, R9, FP, S_SCRATCH));
		bf_emit(e, BPF_ALU64_REG(BPF_ADD, CTX, R2));
	}
	/* More headers than are walked: as if the packet were truncated. */
	bf_bind(e, error);
	bf_emit(e, BPF_ST_MEM(BPF_DW, FP, S_PROTO, -1));
	bf_emit(e, BPF_ST_MEM(BPF_DW, FP, S_THOFF, 0));
	bf_gotol(e, done);

	bf_bind(e, frag_found);
	bf_emit(e, BPF_STX_MEM(BPF_DW, FP, R9, S_PROTO));
	bf_emit(e, BPF_ST_MEM(BPF_DW, FP, S_THOFF, 0));
	bf_gotol(e, done);

	bf_bind(e, found);
	bf_emit(e, BPF_STX_MEM(BPF_DW, FP, R9, S_PROTO));
	bf_emit(e, BPF_STX_MEM(BPF_DW, FP, CTX, S_THOFF));
	bf_bind(e, done);
}

/*
 * The same through bpfilter.ko's bpfilter_ipv6_find_hdr(), the kernel's
 * own ipv6_find_hdr(): R0 is the protocol, thoff << 8 and fragoff << 40,
 * or negative.
 */
static void emit_find_hdr_call(struct bf_emit *e, const struct bf_btf *btf)
{
	int error = bf_new_label(e), done = bf_new_label(e);

	bf_emit(e, BPF_MOV64_REG(R1, SKB));
	bf_emit(e, BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL,
				BF_MODULE_BTF, btf->ipv6_find_hdr));
	bf_jmp(e, BPF_JMP_IMM(BPF_JSLT, R0, 0, 0), error);
	bf_emit(e, BPF_MOV64_REG(R1, R0));
	bf_emit(e, BPF_ALU64_IMM(BPF_AND, R1, 0xFF));
	bf_emit(e, BPF_STX_MEM(BPF_DW, FP, R1, S_PROTO));
	bf_emit(e, BPF_MOV64_REG(R1, R0));
	bf_emit(e, BPF_ALU64_IMM(BPF_RSH, R1, 8));
	bf_emit(e, BPF_MOV32_REG(R1, R1));
	bf_emit(e, BPF_STX_MEM(BPF_DW, FP, R1, S_THOFF));
	bf_emit(e, BPF_ALU64_IMM(BPF_RSH, R0, 40));
	bf_emit(e, BPF_STX_MEM(BPF_DW, FP, R0, S_FRAG));
	bf_gotol(e, done);
	bf_bind(e, error);
	bf_emit(e, BPF_ST_MEM(BPF_DW, FP, S_PROTO, -1));
	bf_emit(e, BPF_ST_MEM(BPF_DW, FP, S_THOFF, 0));
	bf_emit(e, BPF_ST_MEM(BPF_DW, FP, S_FRAG, 0));
	bf_bind(e, done);
}

/*
 * A table whose rules read no header has no code for them: the initial
 * table among them, whose program must not call the module (a program
 * calling a kfunc of bpfilter.ko holds the module, which must go once
 * every table is in its initial state).
 */
static void emit_ipv6(struct bf_emit *e, const struct bf_btf *btf)
{
	if (btf->ipv6_find_hdr >= 0)
		emit_find_hdr_call(e, btf);
	else
		emit_find_hdr(e, btf);
	emit_l4(e, btf);
}

/*
 * The common case in one slice: the IP header and the transport header
 * right after it, an IPv4 header without options or an IPv6 one followed
 * by no extension header. Goes to @l3 with the IP header read if the
 * transport header is elsewhere, to @slow if the packet is too short.
 */
static void emit_headers(struct bf_emit *e, const struct bf_btf *btf,
			 bool v6, int l3, int slow)
{
	unsigned int len = v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	int l4 = bf_new_label(e);

	bf_emit(e, BPF_MOV64_IMM(R4, 0));
	emit_slice(e, btf, S_HEADERS, len + L4_TCP);
	bf_jmp(e, BPF_JMP_IMM(BPF_JEQ, R0, 0, 0), slow);
	emit_copy(e, S_L3, 0, len);
	if (v6) {
		bf_emit(e, BPF_LDX_MEM(BPF_B, R9, FP, S_L3 +
				       (int)offsetof(struct ipv6hdr, nexthdr)));
		emit_is_ext(e, R9, l4);
		bf_gotol(e, l3);
	} else {
		bf_emit(e, BPF_LDX_MEM(BPF_B, R1, FP, S_L3));
		bf_emit(e, BPF_ALU64_IMM(BPF_AND, R1, 0xF));
		bf_jmp(e, BPF_JMP_IMM(BPF_JNE, R1, sizeof(struct iphdr) / 4, 0),
		       l3);
	}
	bf_bind(e, l4);
	emit_copy(e, S_L4, len, L4_TCP);
	bf_emit(e, BPF_ST_MEM(BPF_DW, FP, S_L4LEN, L4_TCP));
	bf_emit(e, BPF_ST_MEM(BPF_DW, FP, S_THOFF, len));
	if (v6) {
		bf_emit(e, BPF_STX_MEM(BPF_DW, FP, R9, S_PROTO));
		bf_emit(e, BPF_ST_MEM(BPF_DW, FP, S_FRAG, 0));
	} else {
		emit_frag(e);
	}
}

/*
 * The IP and transport headers into the frame, through a dynptr of the
 * skb. The frame from S_L4 to the dynptr is zeroed first, but for
 * skb->len (the walk of IPv6's extension headers reads it): what the
 * prologue reads besides the headers is written after them.
 */
static void emit_ip_headers(struct bf_emit *e, const struct bf_btf *btf,
			    bool v6)
{
	int slow = bf_new_label(e), l3 = bf_new_label(e);
	int done = bf_new_label(e), off;

	for (off = S_L4; off < S_DYNPTR; off += 8)
		if (off != S_LEN)
			bf_emit(e, BPF_ST_MEM(BPF_DW, FP, off, 0));
	/* A dynptr of the skb is as long as the skb was when it was made. */
	bf_emit(e, BPF_MOV64_REG(R1, SKB));
	bf_emit(e, BPF_MOV64_IMM(R2, 0));
	bf_emit(e, BPF_MOV64_REG(R3, FP));
	bf_emit(e, BPF_ALU64_IMM(BPF_ADD, R3, S_DYNPTR));
	bf_emit(e, BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL,
				0, btf->dynptr_from_skb));
	bf_emit(e, BPF_JMP_IMM(BPF_JEQ, R0, 0, 2));
	bf_verdict(e, NF_DROP);

	emit_headers(e, btf, v6, l3, slow);
	bf_gotol(e, done);
	bf_bind(e, slow);
	bf_emit(e, BPF_MOV64_IMM(R4, 0));
	emit_read(e, btf, S_L3,
		  v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr));
	bf_emit(e, BPF_JMP_IMM(BPF_JEQ, R0, 0, 2));
	bf_verdict(e, NF_DROP);
	bf_bind(e, l3);
	if (v6)
		emit_ipv6(e, btf);
	else
		emit_ipv4(e, btf);
	bf_bind(e, done);
}

/**
 * bf_emit_packet - reads the packet into the frame
 * @e: where to emit
 * @ir: the table, for what its rules read (enum bf_read)
 * @btf: what the kernel's BTF says
 *
 * The prologue's work, and again after a kernel target that may have
 * changed the packet (its mark, length or headers) and let it go on.
 * Only what the rules read: the dynptr and the headers cost more than the
 * rest of a small table. A packet without a whole IP header, which the
 * stack does not let reach the filter hooks, is dropped if they are read.
 */
void bf_emit_packet(struct bf_emit *e, const struct bf_ir *ir,
		    const struct bf_btf *btf)
{
	bf_emit(e, BPF_LDX_MEM(BPF_W, R1, SKB, btf->skb_len));
	bf_emit(e, BPF_STX_MEM(BPF_DW, FP, R1, S_LEN));
	if (ir->reads & BF_READ_HEADERS)
		emit_ip_headers(e, btf, ir->family == NFPROTO_IPV6);
	if (ir->reads & BF_READ_MARK) {
		bf_emit(e, BPF_LDX_MEM(BPF_W, R1, SKB, btf->skb_mark));
		bf_emit(e, BPF_STX_MEM(BPF_DW, FP, R1, S_MARK));
	}
	if (ir->reads & BF_READ_NFCT) {
		bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, SKB, btf->skb_nfct));
		bf_emit(e, BPF_STX_MEM(BPF_DW, FP, R1, S_NFCT));
	}
	if (ir->reads & BF_READ_IN)
		emit_dev(e, btf, btf->state_in, S_IN);
	if (ir->reads & BF_READ_OUT)
		emit_dev(e, btf, btf->state_out, S_OUT);
	if (ir->tcp_options)
		emit_tcp_options(e);
}

/**
 * bf_emit_prologue - the start of a program
 * @e: where to emit
 * @ir: the table, for what its rules look at
 * @btf: what the kernel's BTF says
 *
 * Leaves SKB and STATE set and the frame filled in (bf_emit_packet()).
 */
void bf_emit_prologue(struct bf_emit *e, const struct bf_ir *ir,
		      const struct bf_btf *btf)
{
	bf_emit(e, BPF_MOV64_REG(CTX, R1));
	bf_emit(e, BPF_LDX_MEM(BPF_DW, SKB, CTX, btf->ctx_skb));
	bf_emit(e, BPF_LDX_MEM(BPF_DW, STATE, CTX, btf->ctx_state));
	if (ir->nxt || ir->nxt_targets) {
		bf_emit(e, BPF_ST_MEM(BPF_DW, FP, S_HD, 0));
		bf_emit(e, BPF_ST_MEM(BPF_DW, FP, S_XFRAG, 0));
	}
	bf_emit_packet(e, ir, btf);
}
