/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The message framing between the kernel and a user-mode driver.
 *
 * The driver reads requests from, and writes replies to, its standard
 * input. Each read() returns exactly one request and each write() must
 * carry exactly one reply: a header followed by the payload.
 */
#ifndef _UAPI_LINUX_USERMODE_DRIVER_H
#define _UAPI_LINUX_USERMODE_DRIVER_H

#include <linux/types.h>

/**
 * struct umd_msg - header of a request or a reply
 * @len: length of the message, this header included
 * @type: request type, defined by the driver; the reply repeats it
 * @seq: sequence number set by the kernel; the reply repeats it
 * @status: in a reply, 0 or a negative errno returned to the caller
 */
struct umd_msg {
	__u32 len;
	__u32 type;
	__u32 seq;
	__s32 status;
};

#endif /* _UAPI_LINUX_USERMODE_DRIVER_H */
