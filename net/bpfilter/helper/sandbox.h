/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BPFILTER_SANDBOX_H
#define _BPFILTER_SANDBOX_H

int bf_sandbox(void);

#endif /* _BPFILTER_SANDBOX_H */
