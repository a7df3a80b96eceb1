/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BPFILTER_SANDBOX_H
#define _BPFILTER_SANDBOX_H

int bf_sandbox(void);
int bf_sandbox_child(void);

#endif /* _BPFILTER_SANDBOX_H */
