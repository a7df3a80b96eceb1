/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BPFILTER_EMIT_H
#define _BPFILTER_EMIT_H

#include <stdbool.h>
#include <linux/bpf.h>
#include "include/linux/filter.h"

/* r = the map at @idx of the program's fd_array (codegen.h). */
#define BF_LD_MAP_IDX(r, idx) \
	BPF_LD_IMM64_RAW_FULL(r, BPF_PSEUDO_MAP_IDX, 0, 0, idx, 0)

/*
 * Registers: r6-r8 hold what the whole program uses, r0-r5 are scratch
 * (r6 is free again once the prologue is done with the context).
 */
#define FP		BPF_REG_FP
#define R0		BPF_REG_0
#define R1		BPF_REG_1
#define R2		BPF_REG_2
#define R3		BPF_REG_3
#define R4		BPF_REG_4
#define R5		BPF_REG_5
#define CTX		BPF_REG_6
#define SKB		BPF_REG_7
#define STATE		BPF_REG_8
#define R9		BPF_REG_9

/* The stack frame: what the rules look at, read once by the prologue. */
#define S_DYNPTR	(-16)	/* struct bpf_dynptr of the skb */
#define S_KEY		(-24)	/* key of a counter lookup */
#define S_LEN		(-32)	/* skb->len, what a byte counter adds */
#define S_IN		(-48)	/* input interface name, zero if none */
#define S_OUT		(-64)	/* output interface name, zero if none */
#define S_FRAG		(-72)	/* fragment offset */
#define S_THOFF		(-80)	/* offset of the transport header */
#define S_L4LEN		(-88)	/* bytes of it read: 0 or an L4_* */
#define S_PROTO		(-96)	/* IPv6: ipv6_find_hdr()'s protocol or < 0 */
#define S_SCRATCH	(-104)	/* an IPv6 extension header's start */
#define S_MARK		(-112)	/* skb->mark */
#define S_NFCT		(-120)	/* skb->_nfct: the conntrack entry and state */
#define S_L3		(-176)	/* the IP header (64 bytes) */
#define S_L4		(-200)	/* the transport header (24 bytes) */
#define S_OPT		(-304)	/* tcp options, zero after them; first, a slice */
#define S_OPT_SIZE	72	/* 64 bytes and what is read after them */
#define S_OPTLEN	(-312)	/* their length; < 0: a --tcp-option drops */
#define S_OPTS		(-344)	/* the kinds of option found, 256 bits */
#define S_CKEY		(-424)	/* a classifier key (struct bf_cls_key) */
#define S_CKEY_SIZE	80
#define S_BEST		(-432)	/* the first entry a classifier found */
#define S_VERD		(-440)	/* its verdict */
#define S_HOT		(-448)	/* the first that drops the packet unread */
#define S_HD		(-456)	/* a kernel match set hotdrop and matched */
#define S_XFRAG		(-464)	/* IPv6: ip6t_do_table()'s fragoff so far */

#define L4_PORTS	4	/* what multiport reads */
#define L4_SHORT	8	/* what udp, icmp and icmpv6 read */
#define L4_TCP		20	/* what tcp reads */

#define NO_LABEL	(-1)

struct bf_fixup;

/**
 * struct bf_emit - instructions being emitted
 * @insns: the instructions
 * @len: their number
 * @cap: room for them
 * @labels: the instruction each label stands for, -1 while unbound
 * @nlabels: labels
 * @labels_cap: room for them
 * @fixups: jumps to labels
 * @nfixups: their number
 * @fixups_cap: room for them
 * @err: the first error, which sticks: nothing is emitted after it
 */
struct bf_emit {
	struct bpf_insn *insns;
	unsigned int len, cap;
	int *labels;
	unsigned int nlabels, labels_cap;
	struct bf_fixup *fixups;
	unsigned int nfixups, fixups_cap;
	int err;
};

bool bf_grow(int *err, void **p, unsigned int *cap, unsigned int want,
	     size_t size);
void bf_emit(struct bf_emit *e, struct bpf_insn insn);
void bf_emit_ld64(struct bf_emit *e, int reg, __u64 imm);
int bf_new_label(struct bf_emit *e);
void bf_bind(struct bf_emit *e, int label);
void bf_jmp(struct bf_emit *e, struct bpf_insn insn, int label);
void bf_gotol(struct bf_emit *e, int label);
void bf_verdict(struct bf_emit *e, int verdict);
bool bf_label_used(const struct bf_emit *e, unsigned int from, int label);
int bf_resolve(struct bf_emit *e);
void bf_emit_free(struct bf_emit *e);

#endif /* _BPFILTER_EMIT_H */
