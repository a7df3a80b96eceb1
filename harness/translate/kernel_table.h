/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _BPFILTER_KERNEL_TABLE_H
#define _BPFILTER_KERNEL_TABLE_H

#include <linux/netfilter/x_tables.h>
#include <linux/netfilter_ipv4/ip_tables.h>

struct ipt_replace *read_table(__u8 family, struct xt_counters **counters);

#endif
