/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BPFILTER_PACKET_H
#define _BPFILTER_PACKET_H

#include "codegen.h"
#include "emit.h"

void bf_emit_prologue(struct bf_emit *e, const struct bf_ir *ir,
		      const struct bf_btf *btf);
void bf_emit_packet(struct bf_emit *e, const struct bf_ir *ir,
		    const struct bf_btf *btf);

#endif /* _BPFILTER_PACKET_H */
