/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BPFILTER_UPDATE_H
#define _BPFILTER_UPDATE_H

#include <linux/types.h>

#include "load.h"
#include "validate.h"

int *bf_entries_from(__u8 family, const void *old,
		     const struct bf_table_info *oi, const void *new,
		     const struct bf_table_info *ni);
int bf_update(const struct bf_ir *ir, struct bf_cls *cls,
	      const struct bf_btf *btf, const struct bf_prog *old,
	      const int *from, struct bf_prog *prog);

#endif /* _BPFILTER_UPDATE_H */
