/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BPFILTER_MATCH_H
#define _BPFILTER_MATCH_H

#include <stdbool.h>

#include "codegen.h"
#include "emit.h"
#include "ir.h"

bool bf_rule_never(__u8 family, const struct bf_rule *r);
bool bf_emit_rule_match(struct bf_emit *e, const struct bf_ir *ir,
			const struct bf_rule *r, const struct bf_btf *btf,
			int fail);
void bf_emit_ct_bit(struct bf_emit *e, __u16 untracked);
void bf_emit_xt_call(struct bf_emit *e, const struct bf_ir *ir,
		     const struct bf_rule *r, __u32 idx, __s32 kfunc);

#endif /* _BPFILTER_MATCH_H */
