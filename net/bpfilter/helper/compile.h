/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BPFILTER_COMPILE_H
#define _BPFILTER_COMPILE_H

#include <stdbool.h>

/* The most CPU time in ms a request's compiling children may take. */
#define BF_BUDGET	60000

struct bf_buf;

typedef void (*bf_child_fn)(void *arg, struct bf_buf *out);

extern bool bf_compile_forks;
int bf_in_child(bf_child_fn fn, void *arg, unsigned int *budget,
		struct bf_buf *out);

#endif /* _BPFILTER_COMPILE_H */
