// SPDX-License-Identifier: GPL-2.0
/*
 * The code of a rule's matches: ip_packet_match(), ip6_packet_match()
 * and the matches of the extensions, each test jumping to the rule's
 * "fail" label when the packet does not match. NF_INVF() inverts a test
 * by inverting its jump. A match that reads the transport header drops
 * the packet when the header is short, as the kernel's "hotdrop" does.
 * The prologue fills only the frame the rules read, as ir.c's
 * rule_reads() says they do: what reads more must say so there.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter/nf_conntrack_common.h>

#include "match.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static bool zero(const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		if (*c++)
			return false;
	return true;
}

static __u64 word(const void *p)
{
	__u64 w;

	memcpy(&w, p, sizeof(w));
	return w;
}

/* ifname_compare_aligned(): the name against a masked pattern. */
static void emit_iface(struct bf_emit *e, int off, const char *name,
		       const unsigned char *mask, bool inv, int fail)
{
	bf_emit_ld64(e, R2, word(name));
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, off));
	bf_emit(e, BPF_ALU64_REG(BPF_XOR, R1, R2));
	bf_emit_ld64(e, R2, word(mask));
	bf_emit(e, BPF_ALU64_REG(BPF_AND, R1, R2));
	bf_emit_ld64(e, R2, word(name + 8));
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R3, FP, off + 8));
	bf_emit(e, BPF_ALU64_REG(BPF_XOR, R3, R2));
	bf_emit_ld64(e, R2, word(mask + 8));
	bf_emit(e, BPF_ALU64_REG(BPF_AND, R3, R2));
	bf_emit(e, BPF_ALU64_REG(BPF_OR, R1, R3));
	bf_jmp(e, BPF_JMP_IMM(inv ? BPF_JEQ : BPF_JNE, R1, 0, 0), fail);
}

static void emit_ifaces(struct bf_emit *e, const char *in,
			const unsigned char *in_mask, bool in_inv,
			const char *out, const unsigned char *out_mask,
			bool out_inv, int fail)
{
	if (!zero(in_mask, IFNAMSIZ))
		emit_iface(e, S_IN, in, in_mask, in_inv, fail);
	if (!zero(out_mask, IFNAMSIZ))
		emit_iface(e, S_OUT, out, out_mask, out_inv, fail);
}

/* An interface test that fails whatever the packet: no mask, inverted. */
static bool iface_never(const unsigned char *mask, bool inv)
{
	return zero(mask, IFNAMSIZ) && inv;
}

/* (addr & 0) != want is constant: the test never or always fails. */
static bool addr_never(__u32 mask, __u32 want, bool inv)
{
	return !mask && (want ? !inv : inv);
}

/* ipv6_masked_addr_cmp() with no mask is false. */
static bool addr6_never(const struct in6_addr *mask, bool inv)
{
	return zero(mask, sizeof(*mask)) && inv;
}

/**
 * bf_rule_never - whether the address part of a rule never matches
 * @family: NFPROTO_IPV4 or NFPROTO_IPV6
 * @r: the rule
 *
 * Such a rule has no code: its matches are not even looked at.
 *
 * Return: true if no packet can match the rule.
 */
bool bf_rule_never(__u8 family, const struct bf_rule *r)
{
	const struct ip6t_ip6 *ip6 = &r->ip6;
	const struct ipt_ip *ip = &r->ip;

	if (family == NFPROTO_IPV6)
		return addr6_never(&ip6->smsk, ip6->invflags & IP6T_INV_SRCIP) ||
		       addr6_never(&ip6->dmsk, ip6->invflags & IP6T_INV_DSTIP) ||
		       iface_never(ip6->iniface_mask,
				   ip6->invflags & IP6T_INV_VIA_IN) ||
		       iface_never(ip6->outiface_mask,
				   ip6->invflags & IP6T_INV_VIA_OUT);

	return addr_never(ip->smsk.s_addr, ip->src.s_addr,
			  ip->invflags & IPT_INV_SRCIP) ||
	       addr_never(ip->dmsk.s_addr, ip->dst.s_addr,
			  ip->invflags & IPT_INV_DSTIP) ||
	       iface_never(ip->iniface_mask, ip->invflags & IPT_INV_VIA_IN) ||
	       iface_never(ip->outiface_mask,
			   ip->invflags & IPT_INV_VIA_OUT) ||
	       (!(ip->flags & IPT_F_FRAG) && (ip->invflags & IPT_INV_FRAG));
}

#define NFCT_INFOMASK	7	/* of skb->_nfct, as in linux/skbuff.h */
#define CT_UNTRACKED	7	/* IP_CT_UNTRACKED, which uapi hides */

#define L3(field)	(S_L3 + (int)offsetof(struct iphdr, field))
#define L3_6(field)	(S_L3 + (int)offsetof(struct ipv6hdr, field))

static void emit_addr(struct bf_emit *e, int off, __u32 mask, __u32 want,
		      bool inv, int fail)
{
	if (!mask && !want)
		return;
	bf_emit(e, BPF_LDX_MEM(BPF_W, R1, FP, off));
	bf_emit(e, BPF_ALU32_IMM(BPF_AND, R1, mask));
	bf_jmp(e, BPF_JMP32_IMM(inv ? BPF_JEQ : BPF_JNE, R1, want, 0), fail);
}

/* ip_packet_match() */
static void emit_ip(struct bf_emit *e, const struct ipt_ip *ip, int fail)
{
	emit_addr(e, L3(saddr), ip->smsk.s_addr, ip->src.s_addr,
		  ip->invflags & IPT_INV_SRCIP, fail);
	emit_addr(e, L3(daddr), ip->dmsk.s_addr, ip->dst.s_addr,
		  ip->invflags & IPT_INV_DSTIP, fail);
	emit_ifaces(e, ip->iniface, ip->iniface_mask,
		    ip->invflags & IPT_INV_VIA_IN, ip->outiface,
		    ip->outiface_mask, ip->invflags & IPT_INV_VIA_OUT, fail);
	if (ip->proto) {
		bf_emit(e, BPF_LDX_MEM(BPF_B, R1, FP, L3(protocol)));
		bf_jmp(e, BPF_JMP_IMM(ip->invflags & XT_INV_PROTO ? BPF_JEQ :
				      BPF_JNE, R1, ip->proto, 0), fail);
	}
	if (ip->flags & IPT_F_FRAG) {
		bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_FRAG));
		bf_jmp(e, BPF_JMP_IMM(ip->invflags & IPT_INV_FRAG ? BPF_JNE :
				      BPF_JEQ, R1, 0, 0), fail);
	}
}

/* ipv6_masked_addr_cmp(): any bit that differs under the mask */
static void emit_addr6(struct bf_emit *e, int off, const struct in6_addr *mask,
		       const struct in6_addr *want, bool inv, int fail)
{
	int i;

	if (zero(mask, sizeof(*mask)))
		return;
	bf_emit(e, BPF_MOV64_IMM(R2, 0));
	for (i = 0; i < 4; i++) {
		if (!mask->s6_addr32[i])
			continue;
		bf_emit(e, BPF_LDX_MEM(BPF_W, R1, FP, off + 4 * i));
		bf_emit(e, BPF_ALU32_IMM(BPF_XOR, R1, want->s6_addr32[i]));
		bf_emit(e, BPF_ALU32_IMM(BPF_AND, R1, mask->s6_addr32[i]));
		bf_emit(e, BPF_ALU64_REG(BPF_OR, R2, R1));
	}
	bf_jmp(e, BPF_JMP_IMM(inv ? BPF_JEQ : BPF_JNE, R2, 0, 0), fail);
}

/*
 * ip6_packet_match(); ipv6_find_hdr() ran in the prologue. With @xtfrag,
 * a rule with -p whose header was found records the fragment offset
 * for the kernel matches of rules without -p after it.
 */
static void emit_ip6(struct bf_emit *e, const struct ip6t_ip6 *ip6,
		     bool xtfrag, int fail)
{
	bool inv = ip6->invflags & IP6T_INV_PROTO;

	emit_addr6(e, L3_6(saddr), &ip6->smsk, &ip6->src,
		   ip6->invflags & IP6T_INV_SRCIP, fail);
	emit_addr6(e, L3_6(daddr), &ip6->dmsk, &ip6->dst,
		   ip6->invflags & IP6T_INV_DSTIP, fail);
	emit_ifaces(e, ip6->iniface, ip6->iniface_mask,
		    ip6->invflags & IP6T_INV_VIA_IN, ip6->outiface,
		    ip6->outiface_mask, ip6->invflags & IP6T_INV_VIA_OUT, fail);
	if (!(ip6->flags & IP6T_F_PROTO))
		return;
	/* No protocol header found: a drop. */
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_PROTO));
	bf_emit(e, BPF_JMP_IMM(BPF_JSGE, R1, 0, 2));
	bf_verdict(e, NF_DROP);
	if (xtfrag) {
		bf_emit(e, BPF_LDX_MEM(BPF_DW, R2, FP, S_FRAG));
		bf_emit(e, BPF_STX_MEM(BPF_DW, FP, R2, S_XFRAG));
	}
	if (inv)
		bf_jmp(e, BPF_JMP_IMM(BPF_JEQ, R1, ip6->proto, 0), fail);
	else if (ip6->proto)
		bf_jmp(e, BPF_JMP_IMM(BPF_JNE, R1, ip6->proto, 0), fail);
}

/*
 * The start of a transport match: a fragment does not match (tcp drops
 * one at offset 1), and a header too short to read drops the packet.
 */
static void emit_l4(struct bf_emit *e, unsigned int need, bool evil, int fail)
{
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_FRAG));
	if (evil) {
		bf_emit(e, BPF_JMP_IMM(BPF_JEQ, R1, 0, 3));
		bf_jmp(e, BPF_JMP_IMM(BPF_JNE, R1, 1, 0), fail);
		bf_verdict(e, NF_DROP);
	} else {
		bf_jmp(e, BPF_JMP_IMM(BPF_JNE, R1, 0, 0), fail);
	}
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_L4LEN));
	bf_emit(e, BPF_JMP_IMM(BPF_JGE, R1, need, 2));
	bf_verdict(e, NF_DROP);
}

/* (min <= R1 <= max) ^ inv, or no match. */
static void emit_range(struct bf_emit *e, __u32 min, __u32 max, bool inv,
		       int fail)
{
	if (!inv) {
		if (min)
			bf_jmp(e, BPF_JMP_IMM(BPF_JLT, R1, min, 0), fail);
		bf_jmp(e, BPF_JMP_IMM(BPF_JGT, R1, max, 0), fail);
		return;
	}
	bf_emit(e, BPF_JMP_IMM(BPF_JLT, R1, min, 2));
	bf_emit(e, BPF_JMP_IMM(BPF_JGT, R1, max, 1));
	bf_gotol(e, fail);
}

static void emit_port(struct bf_emit *e, int off, const __u16 *pts, bool inv,
		      int fail)
{
	if (pts[0] == 0 && pts[1] == 0xFFFF && !inv)
		return;
	bf_emit(e, BPF_LDX_MEM(BPF_H, R1, FP, S_L4 + off));
	bf_emit(e, BPF_ENDIAN(BPF_TO_BE, R1, 16));
	emit_range(e, pts[0], pts[1], inv, fail);
}

/*
 * tcp_find_option(), from the options the prologue found: a header too
 * short for its options, or for its own length, drops the packet.
 */
static void emit_tcp_option(struct bf_emit *e, const struct xt_tcp *tcp,
			    int fail)
{
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_OPTLEN));
	bf_emit(e, BPF_JMP_IMM(BPF_JSGE, R1, 0, 2));
	bf_verdict(e, NF_DROP);
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_OPTS + tcp->option / 64 * 8));
	bf_emit(e, BPF_ALU64_IMM(BPF_RSH, R1, tcp->option % 64));
	bf_emit(e, BPF_ALU64_IMM(BPF_AND, R1, 1));
	bf_jmp(e, BPF_JMP_IMM(tcp->invflags & XT_TCP_INV_OPTION ?
			      BPF_JNE : BPF_JEQ, R1, 0, 0), fail);
}

/* tcp_mt() */
static void emit_tcp(struct bf_emit *e, const struct xt_tcp *tcp, int fail)
{
	emit_l4(e, L4_TCP, true, fail);
	emit_port(e, 0, tcp->spts, tcp->invflags & XT_TCP_INV_SRCPT, fail);
	emit_port(e, 2, tcp->dpts, tcp->invflags & XT_TCP_INV_DSTPT, fail);
	if (tcp->flg_mask || tcp->flg_cmp ||
	    (tcp->invflags & XT_TCP_INV_FLAGS)) {
		bf_emit(e, BPF_LDX_MEM(BPF_B, R1, FP, S_L4 + 13));
		bf_emit(e, BPF_ALU32_IMM(BPF_AND, R1, tcp->flg_mask));
		bf_jmp(e, BPF_JMP_IMM(tcp->invflags & XT_TCP_INV_FLAGS ?
				      BPF_JEQ : BPF_JNE, R1, tcp->flg_cmp, 0),
		       fail);
	}
	if (tcp->option)
		emit_tcp_option(e, tcp, fail);
}

/* udp_mt() */
static void emit_udp(struct bf_emit *e, const struct xt_udp *udp, int fail)
{
	emit_l4(e, L4_SHORT, false, fail);
	emit_port(e, 0, udp->spts, udp->invflags & XT_UDP_INV_SRCPT, fail);
	emit_port(e, 2, udp->dpts, udp->invflags & XT_UDP_INV_DSTPT, fail);
}

/*
 * icmp_type_code_match() and icmp6_type_code_match(); false when the
 * match cannot match, which may still drop a short packet.
 */
static bool emit_type_code(struct bf_emit *e, __u8 type, const __u8 *code,
			   bool inv, int fail)
{
	emit_l4(e, L4_SHORT, false, fail);
	if (type == 0xFF) {
		if (!inv)
			return true;
		bf_gotol(e, fail);
		return false;
	}
	bf_emit(e, BPF_LDX_MEM(BPF_B, R1, FP, S_L4));
	bf_emit(e, BPF_LDX_MEM(BPF_B, R2, FP, S_L4 + 1));
	if (!inv) {
		bf_jmp(e, BPF_JMP_IMM(BPF_JNE, R1, type, 0), fail);
		bf_jmp(e, BPF_JMP_IMM(BPF_JLT, R2, code[0], 0), fail);
		bf_jmp(e, BPF_JMP_IMM(BPF_JGT, R2, code[1], 0), fail);
		return true;
	}
	bf_emit(e, BPF_JMP_IMM(BPF_JNE, R1, type, 3));
	bf_emit(e, BPF_JMP_IMM(BPF_JLT, R2, code[0], 2));
	bf_emit(e, BPF_JMP_IMM(BPF_JGT, R2, code[1], 1));
	bf_gotol(e, fail);
	return true;
}

/* mark_mt() */
static void emit_mark(struct bf_emit *e, const struct xt_mark_mtinfo1 *mark,
		      int fail)
{
	bf_emit(e, BPF_LDX_MEM(BPF_W, R1, FP, S_MARK));
	bf_emit(e, BPF_ALU32_IMM(BPF_AND, R1, mark->mask));
	bf_jmp(e, BPF_JMP32_IMM(mark->invert ? BPF_JEQ : BPF_JNE, R1,
				mark->mark, 0), fail);
}

/* length_mt(), skb_ip_totlen(), and length_mt6() */
static void emit_length(struct bf_emit *e, __u8 family,
			const struct xt_length_info *len, int fail)
{
	if (family == NFPROTO_IPV6) {
		bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_LEN));
	} else {
		bf_emit(e, BPF_LDX_MEM(BPF_H, R1, FP, L3(tot_len)));
		bf_emit(e, BPF_ENDIAN(BPF_TO_BE, R1, 16));
		/* BIG TCP: no length in the header */
		bf_emit(e, BPF_JMP_IMM(BPF_JNE, R1, 0, 1));
		bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_LEN));
	}
	emit_range(e, len->min, len->max, len->invert, fail);
}

/* The 32-bit word @i of the address at @off, in host order, in @reg. */
static void emit_addr_word(struct bf_emit *e, int reg, int off, int i)
{
	bf_emit(e, BPF_LDX_MEM(BPF_W, reg, FP, off + 4 * i));
	bf_emit(e, BPF_ENDIAN(BPF_TO_BE, reg, 32));
}

static __u32 host32(__be32 v)
{
	return __builtin_bswap32(v);
}

/*
 * iprange_ipv6_lt() unrolled: jumps to @lt if the address at @off is
 * below @addr (@below) or above it (!@below), and goes on otherwise.
 */
static void emit_addr_cmp(struct bf_emit *e, int off, const __be32 *addr,
			  int words, bool below, int lt)
{
	int i, next = bf_new_label(e);

	for (i = 0; i < words; i++) {
		emit_addr_word(e, R1, off, i);
		bf_jmp(e, BPF_JMP32_IMM(below ? BPF_JLT : BPF_JGT, R1,
					host32(addr[i]), 0), lt);
		if (i < words - 1)
			bf_jmp(e, BPF_JMP32_IMM(BPF_JNE, R1, host32(addr[i]),
						0), next);
	}
	bf_bind(e, next);
}

/* One side of iprange_mt4() and iprange_mt6(). */
static void emit_iprange_side(struct bf_emit *e, int off, int words,
			      const union nf_inet_addr *min,
			      const union nf_inet_addr *max, bool inv,
			      int fail)
{
	int in = bf_new_label(e);

	/* Outside the range: R1 < min or R1 > max */
	emit_addr_cmp(e, off, min->all, words, true, inv ? in : fail);
	emit_addr_cmp(e, off, max->all, words, false, inv ? in : fail);
	if (inv)
		bf_gotol(e, fail);
	bf_bind(e, in);
}

static void emit_iprange(struct bf_emit *e, __u8 family,
			 const struct xt_iprange_mtinfo *info, int fail)
{
	bool v6 = family == NFPROTO_IPV6;
	int words = v6 ? 4 : 1;

	if (info->flags & IPRANGE_SRC)
		emit_iprange_side(e, v6 ? L3_6(saddr) : L3(saddr), words,
				  &info->src_min, &info->src_max,
				  info->flags & IPRANGE_SRC_INV, fail);
	if (info->flags & IPRANGE_DST)
		emit_iprange_side(e, v6 ? L3_6(daddr) : L3(daddr), words,
				  &info->dst_min, &info->dst_max,
				  info->flags & IPRANGE_DST_INV, fail);
}

/* One port of ports_match_v1(): R1 the source port, R2 the destination. */
static void emit_multiport_one(struct bf_emit *e, int reg, __u16 s,
			       __u16 end, bool range, int hit)
{
	int skip = bf_new_label(e);

	if (range) {
		bf_jmp(e, BPF_JMP_IMM(BPF_JLT, reg, s, 0), skip);
		bf_jmp(e, BPF_JMP_IMM(BPF_JLE, reg, end, 0), hit);
	} else {
		bf_jmp(e, BPF_JMP_IMM(BPF_JEQ, reg, s, 0), hit);
	}
	bf_bind(e, skip);
}

/* multiport_mt() */
static void emit_multiport(struct bf_emit *e,
			   const struct xt_multiport_v1 *info, int fail)
{
	int hit = bf_new_label(e);
	unsigned int i;

	emit_l4(e, L4_PORTS, false, fail);
	bf_emit(e, BPF_LDX_MEM(BPF_H, R1, FP, S_L4));
	bf_emit(e, BPF_ENDIAN(BPF_TO_BE, R1, 16));
	bf_emit(e, BPF_LDX_MEM(BPF_H, R2, FP, S_L4 + 2));
	bf_emit(e, BPF_ENDIAN(BPF_TO_BE, R2, 16));
	for (i = 0; i < info->count && i < XT_MULTI_PORTS; i++) {
		bool range = info->pflags[i] && i + 1 < XT_MULTI_PORTS;
		__u16 s = info->ports[i], end = range ? info->ports[i + 1] : s;

		/* EITHER tests the destination first; the result is one. */
		if (info->flags != XT_MULTIPORT_SOURCE)
			emit_multiport_one(e, R2, s, end, range, hit);
		if (info->flags != XT_MULTIPORT_DESTINATION)
			emit_multiport_one(e, R1, s, end, range, hit);
		if (range)
			i++;
	}
	/* No port matched: a match only if inverted. */
	if (!info->invert) {
		bf_gotol(e, fail);
		bf_bind(e, hit);
		return;
	}
	bf_emit(e, BPF_JMP_IMM(BPF_JA, 0, 0, 1));
	bf_bind(e, hit);
	bf_gotol(e, fail);
}

/**
 * bf_emit_ct_bit - R1 = the bit of the state nf_ct_get() finds, as
 *	state_mt() and conntrack_mt() make it
 * @e: where to emit
 * @untracked: the bit of an untracked packet
 *
 * Clobbers R2 and R3.
 */
void bf_emit_ct_bit(struct bf_emit *e, __u16 untracked)
{
	bf_emit(e, BPF_LDX_MEM(BPF_DW, R1, FP, S_NFCT));
	bf_emit(e, BPF_MOV64_REG(R2, R1));
	bf_emit(e, BPF_ALU64_IMM(BPF_AND, R2, NFCT_INFOMASK));
	bf_emit(e, BPF_ALU64_IMM(BPF_AND, R1, ~NFCT_INFOMASK));
	bf_emit(e, BPF_JMP_IMM(BPF_JEQ, R1, 0, 6));
	bf_emit(e, BPF_MOV64_REG(R3, R2));
	bf_emit(e, BPF_ALU64_IMM(BPF_MOD, R3, IP_CT_IS_REPLY));
	bf_emit(e, BPF_ALU64_IMM(BPF_ADD, R3, 1));
	bf_emit(e, BPF_MOV64_IMM(R1, 1));
	bf_emit(e, BPF_ALU64_REG(BPF_LSH, R1, R3));
	bf_emit(e, BPF_JMP_IMM(BPF_JA, 0, 0, 3));
	/* No entry: untracked, or invalid */
	bf_emit(e, BPF_MOV64_IMM(R1, XT_STATE_INVALID));
	bf_emit(e, BPF_JMP_IMM(BPF_JNE, R2, CT_UNTRACKED, 1));
	bf_emit(e, BPF_MOV64_IMM(R1, untracked));
}

/* state_mt() and the state part of conntrack_mt(): the bit, the mask */
static void emit_ctstate(struct bf_emit *e, const struct bf_ctstate *st,
			 int fail)
{
	bf_emit_ct_bit(e, st->untracked);
	bf_emit(e, BPF_ALU64_IMM(BPF_AND, R1, st->mask));
	bf_jmp(e, BPF_JMP_IMM(st->invert ? BPF_JNE : BPF_JEQ, R1, 0, 0), fail);
}

/**
 * bf_emit_xt_call - R0 = @kfunc(skb, state, @idx, off)
 * @e: where to emit
 * @ir: the table
 * @r: the rule
 * @idx: the index of the match or target among the table's kernel ones
 * @kfunc: BTF id of bpfilter_xt_match() or bpfilter_xt_target()
 *
 * off: the transport and fragment offsets ip6t_do_table() would give the
 * extension (the kernel finds IPv4's itself).
 */
void bf_emit_xt_call(struct bf_emit *e, const struct bf_ir *ir,
		     const struct bf_rule *r, __u32 idx, __s32 kfunc)
{
	bf_emit(e, BPF_MOV64_REG(R1, SKB));
	bf_emit(e, BPF_MOV64_REG(R2, STATE));
	bf_emit(e, BPF_MOV32_IMM(R3, idx));
	bf_emit(e, BPF_MOV64_IMM(R4, 0));
	if (ir->family == NFPROTO_IPV6) {
		if (r->ip6.flags & IP6T_F_PROTO)
			bf_emit(e, BPF_LDX_MEM(BPF_DW, R4, FP, S_THOFF));
		bf_emit(e, BPF_LDX_MEM(BPF_DW, R5, FP,
				       r->ip6.flags & IP6T_F_PROTO ? S_FRAG :
								     S_XFRAG));
		bf_emit(e, BPF_ALU64_IMM(BPF_LSH, R5, 32));
		bf_emit(e, BPF_ALU64_REG(BPF_OR, R4, R5));
	}
	bf_emit(e, BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL,
				BF_MODULE_BTF, kfunc));
}

/*
 * bpfilter_xt_match(): a match the module checked. A match that set
 * hotdrop drops the packet if it did not match (2), and marks it to be
 * dropped at the end of the rule if it did (3).
 */
static void emit_xt(struct bf_emit *e, const struct bf_ir *ir,
		    const struct bf_rule *r, __u32 idx,
		    const struct bf_btf *btf, int fail)
{
	int ok = bf_new_label(e);

	bf_emit_xt_call(e, ir, r, idx, btf->xt_match);
	/* An int: its upper half is not defined. */
	bf_jmp(e, BPF_JMP32_IMM(BPF_JEQ, R0, 1, 0), ok);
	bf_jmp(e, BPF_JMP32_IMM(BPF_JEQ, R0, 0, 0), fail);
	/* 3: matched, and the packet goes at the end of the rule. */
	bf_emit(e, BPF_JMP32_IMM(BPF_JNE, R0, 3, 2));
	bf_emit(e, BPF_ST_MEM(BPF_DW, FP, S_HD, 1));
	bf_emit(e, BPF_JMP_IMM(BPF_JA, 0, 0, 2));
	/* 2: no match, and the packet goes now. */
	bf_verdict(e, NF_DROP);
	bf_bind(e, ok);
}

static bool emit_match(struct bf_emit *e, const struct bf_ir *ir,
		       const struct bf_rule *r, const struct bf_match *m,
		       const struct bf_btf *btf, int fail)
{
	__u8 family = ir->family;

	switch (m->kind) {
	case BF_MATCH_TCP:
		emit_tcp(e, &m->tcp, fail);
		return true;
	case BF_MATCH_UDP:
		emit_udp(e, &m->udp, fail);
		return true;
	case BF_MATCH_ICMP:
		return emit_type_code(e, m->icmp.type, m->icmp.code,
				      m->icmp.invflags & IPT_ICMP_INV, fail);
	case BF_MATCH_ICMP6:
		return emit_type_code(e, m->icmp6.type, m->icmp6.code,
				      m->icmp6.invflags & IP6T_ICMP_INV, fail);
	case BF_MATCH_MARK:
		emit_mark(e, &m->mark, fail);
		return true;
	case BF_MATCH_LENGTH:
		emit_length(e, family, &m->length, fail);
		return true;
	case BF_MATCH_IPRANGE:
		emit_iprange(e, family, &m->iprange, fail);
		return true;
	case BF_MATCH_MULTIPORT:
		emit_multiport(e, &m->multiport, fail);
		return true;
	case BF_MATCH_CTSTATE:
		emit_ctstate(e, &m->ctstate, fail);
		return true;
	case BF_MATCH_XT:
		emit_xt(e, ir, r, m->xt, btf, fail);
		return true;
	}
	e->err = e->err ?: -EINVAL;
	return false;
}

/**
 * bf_emit_rule_match - the code of a rule's address part and matches
 * @e: where to emit
 * @ir: the table
 * @r: the rule, for which bf_rule_never() is false
 * @btf: the kernel's offsets and kfuncs
 * @fail: the label of the packet not matching
 *
 * Return: false if a match can never match: the rule's target must not
 * be emitted, as nothing would reach it.
 */
bool bf_emit_rule_match(struct bf_emit *e, const struct bf_ir *ir,
			const struct bf_rule *r, const struct bf_btf *btf,
			int fail)
{
	unsigned int i;

	if (ir->family == NFPROTO_IPV6)
		emit_ip6(e, &r->ip6, ir->xtfrag, fail);
	else
		emit_ip(e, &r->ip, fail);
	for (i = 0; i < r->nmatches; i++)
		if (!emit_match(e, ir, r, &r->matches[i], btf, fail))
			return false;
	return true;
}
