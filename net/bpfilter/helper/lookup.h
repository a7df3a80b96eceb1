/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BPFILTER_LOOKUP_H
#define _BPFILTER_LOOKUP_H

#include "classify.h"
#include "emit.h"

void bf_emit_run(struct bf_emit *e, __u8 family, const struct bf_cls *cls,
		 const struct bf_cls_run *run, int miss);

#endif /* _BPFILTER_LOOKUP_H */
