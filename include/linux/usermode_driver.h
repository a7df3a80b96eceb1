/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __LINUX_USERMODE_DRIVER_H__
#define __LINUX_USERMODE_DRIVER_H__

#include <linux/mutex.h>
#include <linux/path.h>
#include <linux/ratelimit.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <uapi/linux/usermode_driver.h>

struct umd_chan;

/**
 * struct umd_info - a user-mode driver
 * @driver_name: name of the executable; prefixes its log lines
 * @max_msg: largest request or reply, header included
 * @starter_cgroups: run the helper in the cgroups of the task that starts
 *	it, so that what it uses is charged where that task's use is; a
 *	kernel thread cannot start it then. Set after umd_init() or
 *	umd_init_shared(), and changed only where no start may race (the
 *	driver serializes its calls); read when the helper starts
 *
 * The other fields are private to kernel/umh/usermode_driver.c.
 */
struct umd_info {
	const char *driver_name;
	size_t max_msg;
	bool starter_cgroups;
	/* private: */
	struct mutex lock;		/* start, stop, one request at a time */
	spinlock_t chan_lock;		/* @chan, for umd_stop() without @lock */
	struct umd_chan *chan;		/* the running helper, or NULL */
	struct path wd;			/* tmpfs holding the executable */
	struct ratelimit_state restart_rs;
	u32 seq;
	bool shutdown;			/* umd_destroy() has begun */
	bool shared;			/* @wd is another driver's */
};

int umd_init(struct umd_info *info, const char *name, const void *blob,
	     size_t len, size_t max_msg);
int umd_init_shared(struct umd_info *info, const struct umd_info *from);
void umd_destroy(struct umd_info *info);
int umd_start(struct umd_info *info);
void umd_stop(struct umd_info *info);
bool umd_alive(struct umd_info *info);
struct pid *umd_get_pid(struct umd_info *info);
int umd_call(struct umd_info *info, u32 type, const void *req, size_t req_len,
	     void *reply, size_t reply_size, unsigned long timeout);

#endif /* __LINUX_USERMODE_DRIVER_H__ */
