/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BPFILTER_CODEGEN_H
#define _BPFILTER_CODEGEN_H

#include <linux/bpf.h>

#include "classify.h"
#include "ir.h"

/* BPF_COMPLEXITY_LIMIT_INSNS: the most a privileged program may have. */
#define BF_MAX_INSNS	1000000

/**
 * struct bf_btf - what the generated code needs to know of the kernel,
 *	read from its BTF
 * @dynptr_from_skb: BTF id of the kfunc bpf_dynptr_from_skb()
 * @dynptr_slice: BTF id of the kfunc bpf_dynptr_slice()
 * @ctx_state: offsetof(struct bpf_nf_ctx, state)
 * @ctx_skb: offsetof(struct bpf_nf_ctx, skb)
 * @state_hook: offsetof(struct nf_hook_state, hook)
 * @state_in: offsetof(struct nf_hook_state, in)
 * @state_out: offsetof(struct nf_hook_state, out)
 * @dev_name: offsetof(struct net_device, name)
 * @skb_len: offsetof(struct sk_buff, len)
 * @skb_mark: offsetof(struct sk_buff, mark)
 * @skb_nfct: offsetof(struct sk_buff, _nfct)
 * @xt_match: BTF id of bpfilter.ko's kfunc bpfilter_xt_match(), < 0 if
 *	none
 * @xt_target: BTF id of bpfilter_xt_target(), < 0 if none
 * @ipv6_find_hdr: BTF id of bpfilter_ipv6_find_hdr(), < 0 if none
 * @module_fd: bpfilter.ko's BTF, the program's fd_array[BF_MODULE_BTF]
 */
struct bf_btf {
	__s32 dynptr_from_skb;
	__s32 dynptr_slice;
	__u32 ctx_state;
	__u32 ctx_skb;
	__u32 state_hook;
	__u32 state_in;
	__u32 state_out;
	__u32 dev_name;
	__u32 skb_len;
	__u32 skb_mark;
	__u32 skb_nfct;
	__s32 xt_match;
	__s32 xt_target;
	__s32 ipv6_find_hdr;
	int module_fd;
};

/*
 * A program's fd_array: bpfilter.ko's BTF, for the kfunc calls, and its
 * maps, which the code names by index (BPF_PSEUDO_MAP_IDX): the code
 * holds no fd, so that it is made where there are none (compile.c) and
 * is the same whatever maps it is loaded with.
 */
#define BF_MODULE_BTF	1
#define BF_COUNTERS_MAP	2
#define BF_CLS_MAP	3
#define BF_FD_ARRAY	4

/**
 * struct bf_code - a generated program
 * @insns: its instructions
 * @len: their number
 */
struct bf_code {
	struct bpf_insn *insns;
	unsigned int len;
};

int bf_codegen(const struct bf_ir *ir, const struct bf_btf *btf,
	       const __u32 *slot, struct bf_cls *cls, struct bf_code *code);

#endif /* _BPFILTER_CODEGEN_H */
