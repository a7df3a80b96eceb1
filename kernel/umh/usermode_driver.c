// SPDX-License-Identifier: GPL-2.0-only
/*
 * User-mode drivers: a process started from an executable embedded in the
 * kernel, which serves requests from kernel code.
 *
 * The helper's standard input is an anonymous file, the channel: each
 * read() takes one request, each write() gives one reply. Its handlers run
 * in the helper's own context, so only the helper's thread group may use
 * it, a reply is checked before it is accepted, and the file's release
 * tells at once that the helper is gone. Standard output and error go to
 * the kernel log.
 */
#include <linux/anon_inodes.h>
#include <linux/cgroup.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/kref.h>
#include <linux/mount.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/umh.h>
#include <linux/usermode_driver.h>
#include <linux/wait.h>

#include <kunit/visibility.h>

#include "umd_kunit.h"

/* A request in flight; shared by the caller and the channel. */
struct umd_req {
	struct kref ref;
	struct umd_msg *msg;		/* header and payload */
	void *reply;			/* payload of the reply */
	size_t reply_size;
	size_t reply_len;
	int status;
	bool done;
};

/*
 * One per helper process, referenced by @info and by the helper's files.
 * It outlives the process until the last of them lets go.
 */
struct umd_chan {
	struct kref ref;
	char *name;
	size_t max_msg;
	struct pid *tgid;		/* the helper; set before it runs */
	wait_queue_head_t wq;		/* requests for the helper, replies */
	struct mutex io;		/* one helper thread in read() */
	spinlock_t lock;		/* protects the fields below */
	struct umd_req *req;		/* the request in flight, or NULL */
	bool taken;			/* the helper has read @req */
	bool stale;			/* a reply to @stale_seq is to be dropped */
	u32 stale_seq;
	bool dead;			/* closed, killed or out of protocol */
	struct ratelimit_state log_rs;
};

/* Channels allocated, counted for the KUnit tests only. */
static atomic_t umd_nr_chans = ATOMIC_INIT(0);

static void umd_count_chans(int delta)
{
	if (IS_ENABLED(CONFIG_USERMODE_DRIVER_KUNIT_TEST))
		atomic_add(delta, &umd_nr_chans);
}

static void umd_req_free(struct kref *ref)
{
	struct umd_req *req = container_of(ref, struct umd_req, ref);

	kvfree(req->msg);
	kvfree(req->reply);
	kfree(req);
}

static void umd_chan_free(struct kref *ref)
{
	struct umd_chan *chan = container_of(ref, struct umd_chan, ref);

	WARN_ON_ONCE(chan->req);
	put_pid(chan->tgid);
	kfree(chan->name);
	kfree(chan);
	umd_count_chans(-1);
}

static void umd_chan_put(struct umd_chan *chan)
{
	kref_put(&chan->ref, umd_chan_free);
}

/* Mark the channel dead and kill the helper; callers return at once. */
static void umd_chan_kill(struct umd_chan *chan)
{
	spin_lock(&chan->lock);
	WRITE_ONCE(chan->dead, true);
	spin_unlock(&chan->lock);
	wake_up_all(&chan->wq);
	if (chan->tgid)
		kill_pid(chan->tgid, SIGKILL, 1);
}

static ssize_t umd_chan_broken(struct umd_chan *chan, const char *why)
{
	pr_warn_ratelimited("%s: protocol error: %s; killing the helper\n",
			    chan->name, why);
	umd_chan_kill(chan);
	return -EPROTO;
}

static bool umd_is_helper(struct umd_chan *chan)
{
	return task_tgid(current) == chan->tgid;
}

static bool umd_req_ready(struct umd_chan *chan)
{
	bool ready;

	spin_lock(&chan->lock);
	ready = chan->dead || (chan->req && !chan->taken);
	spin_unlock(&chan->lock);
	return ready;
}

static ssize_t umd_chan_read(struct file *file, char __user *buf,
			     size_t count, loff_t *ppos)
{
	struct umd_chan *chan = file->private_data;
	struct umd_req *req;
	ssize_t ret;

	if (!umd_is_helper(chan))
		return -EPERM;
	if (mutex_lock_interruptible(&chan->io))
		return -ERESTARTSYS;
	ret = wait_event_interruptible(chan->wq, umd_req_ready(chan));
	if (ret)
		goto out_unlock;

	/*
	 * Mark the request taken before copying it: a caller that gives up
	 * meanwhile then knows that a reply may come, and drops it.
	 */
	spin_lock(&chan->lock);
	req = chan->dead ? NULL : chan->req;
	if (!req) {
		ret = -EPIPE;
	} else if (count < req->msg->len) {
		ret = -EMSGSIZE;
		req = NULL;
	} else {
		kref_get(&req->ref);
		chan->taken = true;
	}
	spin_unlock(&chan->lock);
	if (!req)
		goto out_unlock;

	ret = req->msg->len;
	if (copy_to_user(buf, req->msg, req->msg->len)) {
		ret = -EFAULT;
		spin_lock(&chan->lock);
		if (chan->req == req)
			chan->taken = false;
		spin_unlock(&chan->lock);
	}
	kref_put(&req->ref, umd_req_free);
out_unlock:
	mutex_unlock(&chan->io);
	return ret;
}

/*
 * Complete the request in flight with the reply in @buf, or drop a reply to
 * a request whose caller gave up. The request is detached from the channel
 * before the copy, so concurrent writers cannot both fill it.
 */
static ssize_t umd_chan_reply(struct umd_chan *chan, const struct umd_msg *hdr,
			      const char __user *buf, size_t count)
{
	size_t len = count - sizeof(*hdr);
	struct umd_req *req;

	spin_lock(&chan->lock);
	if (chan->stale && hdr->seq == chan->stale_seq) {
		chan->stale = false;
		spin_unlock(&chan->lock);
		return count;
	}
	req = chan->req;
	if (!req || !chan->taken || hdr->seq != req->msg->seq ||
	    hdr->type != req->msg->type) {
		spin_unlock(&chan->lock);
		return umd_chan_broken(chan, "reply to no request");
	}
	if (len > req->reply_size) {
		spin_unlock(&chan->lock);
		return umd_chan_broken(chan, "reply too long");
	}
	/* The channel's reference is now ours. */
	chan->req = NULL;
	chan->taken = false;
	spin_unlock(&chan->lock);

	if (copy_from_user(req->reply, buf + sizeof(*hdr), len)) {
		kref_put(&req->ref, umd_req_free);
		return umd_chan_broken(chan, "unreadable reply");
	}
	req->reply_len = len;
	req->status = hdr->status;
	/* Pairs with smp_load_acquire() in umd_transact(). */
	smp_store_release(&req->done, true);
	wake_up_all(&chan->wq);
	kref_put(&req->ref, umd_req_free);
	return count;
}

static ssize_t umd_chan_write(struct file *file, const char __user *buf,
			      size_t count, loff_t *ppos)
{
	struct umd_chan *chan = file->private_data;
	struct umd_msg hdr;

	if (!umd_is_helper(chan))
		return -EPERM;
	if (count < sizeof(hdr) || count > chan->max_msg)
		return umd_chan_broken(chan, "bad reply length");
	if (copy_from_user(&hdr, buf, sizeof(hdr)))
		return umd_chan_broken(chan, "unreadable reply");
	if (hdr.len != count)
		return umd_chan_broken(chan, "reply length mismatch");
	if (hdr.status > 0 || hdr.status < -MAX_ERRNO)
		return umd_chan_broken(chan, "bad status");
	return umd_chan_reply(chan, &hdr, buf, count);
}

static __poll_t umd_chan_poll(struct file *file, poll_table *wait)
{
	struct umd_chan *chan = file->private_data;
	__poll_t mask = EPOLLOUT | EPOLLWRNORM;

	poll_wait(file, &chan->wq, wait);
	spin_lock(&chan->lock);
	if (chan->dead)
		mask |= EPOLLHUP;
	else if (chan->req && !chan->taken)
		mask |= EPOLLIN | EPOLLRDNORM;
	spin_unlock(&chan->lock);
	return mask;
}

/* The helper has closed its last descriptor of the channel: it is gone. */
static int umd_chan_release(struct inode *inode, struct file *file)
{
	struct umd_chan *chan = file->private_data;

	spin_lock(&chan->lock);
	WRITE_ONCE(chan->dead, true);
	spin_unlock(&chan->lock);
	wake_up_all(&chan->wq);
	umd_chan_put(chan);
	return 0;
}

static const struct file_operations umd_chan_fops = {
	.owner		= THIS_MODULE,
	.read		= umd_chan_read,
	.write		= umd_chan_write,
	.poll		= umd_chan_poll,
	.release	= umd_chan_release,
	.llseek		= noop_llseek,
};

/* The helper's stdout and stderr: lines into the kernel log, rate limited. */
static ssize_t umd_log_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct umd_chan *chan = file->private_data;
	char buf[256], *line, *p;
	size_t n = min(count, sizeof(buf) - 1);

	if (!umd_is_helper(chan))
		return -EPERM;
	if (copy_from_user(buf, ubuf, n))
		return -EFAULT;
	buf[n] = '\0';
	p = buf;
	while ((line = strsep(&p, "\n"))) {
		if (*line && __ratelimit(&chan->log_rs))
			pr_info("%s: %s\n", chan->name, line);
	}
	return n;
}

static int umd_log_release(struct inode *inode, struct file *file)
{
	umd_chan_put(file->private_data);
	return 0;
}

static const struct file_operations umd_log_fops = {
	.owner		= THIS_MODULE,
	.write		= umd_log_write,
	.release	= umd_log_release,
	.llseek		= noop_llseek,
};

static struct umd_chan *umd_chan_alloc(struct umd_info *info)
{
	struct umd_chan *chan = kzalloc(sizeof(*chan), GFP_KERNEL);

	if (!chan)
		return NULL;
	kref_init(&chan->ref);
	/* The helper's descriptors may outlive the driver's module. */
	chan->name = kstrdup(info->driver_name, GFP_KERNEL);
	if (!chan->name) {
		kfree(chan);
		return NULL;
	}
	chan->max_msg = info->max_msg;
	init_waitqueue_head(&chan->wq);
	mutex_init(&chan->io);
	spin_lock_init(&chan->lock);
	ratelimit_state_init(&chan->log_rs, 5 * HZ, 50);
	umd_count_chans(1);
	return chan;
}

static struct vfsmount *blob_to_mnt(const void *data, size_t len, const char *name)
{
	struct file_system_type *type;
	struct vfsmount *mnt;
	struct file *file;
	ssize_t written;
	loff_t pos = 0;

	type = get_fs_type("tmpfs");
	if (!type)
		return ERR_PTR(-ENODEV);

	mnt = kern_mount(type);
	put_filesystem(type);
	if (IS_ERR(mnt))
		return mnt;

	file = file_open_root_mnt(mnt, name, O_CREAT | O_WRONLY, 0700);
	if (IS_ERR(file)) {
		kern_unmount(mnt);
		return ERR_CAST(file);
	}

	written = kernel_write(file, data, len, &pos);
	if (written != len) {
		int err = written;

		if (err >= 0)
			err = -ENOMEM;
		filp_close(file, NULL);
		kern_unmount(mnt);
		return ERR_PTR(err);
	}

	fput(file);

	/* Flush delayed fput so exec can open the file read-only */
	flush_delayed_fput();
	task_work_run();
	return mnt;
}

struct umd_start {
	struct umd_info *info;
	struct umd_chan *chan;
	struct task_struct *starter;	/* whose cgroups it joins, or NULL */
};

/*
 * Runs in the new process before exec: give it the channel and a log,
 * and its starter's cgroups if it is to be charged there. It joins them
 * before it execs, so that every page it uses from then on is charged.
 */
static int umd_setup(struct subprocess_info *sub, struct cred *new)
{
	struct umd_start *start = sub->data;
	struct umd_chan *chan = start->chan;
	struct file *cfile, *lfile;
	int err;

	if (start->starter) {
		err = cgroup_attach_task_all(start->starter, current);
		if (err)
			return err;
	}
	kref_get(&chan->ref);
	cfile = anon_inode_getfile("[umd]", &umd_chan_fops, chan, O_RDWR);
	if (IS_ERR(cfile)) {
		umd_chan_put(chan);
		return PTR_ERR(cfile);
	}
	kref_get(&chan->ref);
	lfile = anon_inode_getfile("[umd-log]", &umd_log_fops, chan, O_WRONLY);
	if (IS_ERR(lfile)) {
		umd_chan_put(chan);
		err = PTR_ERR(lfile);
		goto out_cfile;
	}

	err = replace_fd(0, cfile, 0);
	if (err >= 0)
		err = replace_fd(1, lfile, 0);
	if (err >= 0)
		err = replace_fd(2, lfile, 0);
	if (err < 0)
		goto out_lfile;

	chan->tgid = get_pid(task_tgid(current));
	set_fs_pwd(current->fs, &start->info->wd);
	err = 0;
out_lfile:
	fput(lfile);
out_cfile:
	fput(cfile);
	return err;
}

/* Wait until the helper's thread group has been released. */
static void umd_wait_gone(struct pid *tgid)
{
	/* The leader is released last; releasing it wakes wait_pidfd. */
	while (!wait_event_timeout(tgid->wait_pidfd,
				   !pid_has_task(tgid, PIDTYPE_PID), 10 * HZ))
		pr_warn("user-mode driver pid %d: still waiting for it to exit\n",
			pid_nr(tgid));
}

/* Kill the helper, wait for it to be gone, and forget it. */
static void umd_reap(struct umd_info *info)
{
	struct umd_chan *chan = info->chan;

	lockdep_assert_held(&info->lock);
	if (!chan)
		return;
	umd_chan_kill(chan);
	umd_wait_gone(chan->tgid);

	spin_lock(&info->chan_lock);
	info->chan = NULL;
	spin_unlock(&info->chan_lock);
	umd_chan_put(chan);
}

static int umd_start_locked(struct umd_info *info)
{
	struct subprocess_info *sub;
	struct umd_start start;
	char *argv[2];
	int err;

	lockdep_assert_held(&info->lock);
	if (WARN_ON_ONCE(!info->wd.mnt))
		return -EINVAL;
	if (info->shutdown)
		return -ESHUTDOWN;
	if (info->chan)
		return -EBUSY;
	/* A static usermode helper would run instead of our executable. */
	if (IS_ENABLED(CONFIG_STATIC_USERMODEHELPER))
		return -EOPNOTSUPP;

	argv[0] = (char *)info->driver_name;
	argv[1] = NULL;
	start.info = info;
	/*
	 * The starter waits for the exec uninterruptibly (UMH_WAIT_EXEC), so
	 * it and @start outlive umd_setup(). A kernel thread has no cgroups
	 * to charge: it must not start a helper that is to be charged.
	 */
	start.starter = NULL;
	if (info->starter_cgroups) {
		if (current->flags & PF_KTHREAD)
			return -EPIPE;
		start.starter = current;
	}
	start.chan = umd_chan_alloc(info);
	if (!start.chan)
		return -ENOMEM;
	sub = call_usermodehelper_setup(info->driver_name, argv, NULL,
					GFP_KERNEL, umd_setup, NULL, &start);
	if (!sub) {
		err = -ENOMEM;
		goto out_put;
	}
	err = call_usermodehelper_exec(sub, UMH_WAIT_EXEC);
	if (!err && !start.chan->tgid)
		err = -ENOEXEC;		/* nothing ran our setup */
	if (err) {
		/* If setup ran, the process exits on its own. */
		if (start.chan->tgid)
			umd_wait_gone(start.chan->tgid);
		goto out_put;
	}

	spin_lock(&info->chan_lock);
	info->chan = start.chan;
	spin_unlock(&info->chan_lock);
	return 0;

out_put:
	umd_chan_put(start.chan);
	return err;
}

static bool umd_chan_alive(struct umd_chan *chan)
{
	bool dead;

	spin_lock(&chan->lock);
	dead = chan->dead;
	spin_unlock(&chan->lock);
	return !dead && pid_has_task(chan->tgid, PIDTYPE_PID);
}

/* What every driver starts with: no helper, no executable yet. */
static void umd_init_common(struct umd_info *info, const char *name,
			    size_t max_msg)
{
	memset(info, 0, sizeof(*info));
	info->driver_name = name;
	info->max_msg = max_msg;
	mutex_init(&info->lock);
	spin_lock_init(&info->chan_lock);
	/* A helper that dies at start must not turn every call into a fork. */
	ratelimit_state_init(&info->restart_rs, 10 * HZ, 5);
}

/**
 * umd_init - prepare a user-mode driver
 * @info: the driver; @info->driver_name and @info->max_msg are set here
 * @name: name of the executable, also the prefix of its log lines
 * @blob: the executable
 * @len: its length
 * @max_msg: largest request or reply, &struct umd_msg header included; at
 *	most MAX_RW_COUNT, since one read() or write() carries a message
 *
 * Copies @blob into a private tmpfs mount, which is also the helper's
 * working directory. Does not start the helper. @name must outlive @info.
 *
 * Context: Process context; may sleep.
 * Return: 0 or a negative errno.
 */
int umd_init(struct umd_info *info, const char *name, const void *blob,
	     size_t len, size_t max_msg)
{
	struct vfsmount *mnt;

	if (max_msg < sizeof(struct umd_msg) || max_msg > MAX_RW_COUNT)
		return -EINVAL;
	umd_init_common(info, name, max_msg);
	mnt = blob_to_mnt(blob, len, name);
	if (IS_ERR(mnt))
		return PTR_ERR(mnt);
	info->wd.mnt = mnt;
	info->wd.dentry = mnt->mnt_root;
	return 0;
}
EXPORT_SYMBOL_GPL(umd_init);

/**
 * umd_init_shared - prepare a user-mode driver that runs another's executable
 * @info: the driver
 * @from: a driver prepared by umd_init() or umd_init_shared(); it may be
 *	destroyed first, but not while this runs
 *
 * @info runs its own instance of @from's executable, with its own channel,
 * restart budget and lifetime, and the same largest message and name
 * (which must outlive @info too). The executable is not copied: @info
 * holds a reference on @from's tmpfs mount, so that a module running one
 * helper per tenant pays for the executable once.
 *
 * Context: Process context.
 * Return: 0, or -EINVAL if @from has no executable.
 */
int umd_init_shared(struct umd_info *info, const struct umd_info *from)
{
	if (!from->wd.mnt)
		return -EINVAL;
	umd_init_common(info, from->driver_name, from->max_msg);
	info->wd.mnt = mntget(from->wd.mnt);
	info->wd.dentry = info->wd.mnt->mnt_root;
	info->shared = true;
	return 0;
}
EXPORT_SYMBOL_GPL(umd_init_shared);

/**
 * umd_destroy - stop the helper and release what the driver holds
 * @info: the driver
 *
 * Calls racing with it fail with -ESHUTDOWN; none may start after it.
 *
 * Context: Process context; may sleep.
 */
void umd_destroy(struct umd_info *info)
{
	/* No call may start the helper again. */
	mutex_lock(&info->lock);
	info->shutdown = true;
	mutex_unlock(&info->lock);
	umd_stop(info);
	if (info->wd.mnt) {
		/* The last driver to go takes the executable's mount along. */
		if (info->shared)
			mntput(info->wd.mnt);
		else
			kern_unmount(info->wd.mnt);
		info->wd.mnt = NULL;
		info->wd.dentry = NULL;
	}
	mutex_destroy(&info->lock);
}
EXPORT_SYMBOL_GPL(umd_destroy);

/**
 * umd_start - start the helper
 * @info: the driver
 *
 * Forks and execs the helper as a child of kthreadd, with the kernel's
 * credentials in the initial namespaces, its working directory the tmpfs
 * mount of umd_init() (the first driver's, for umd_init_shared()), the
 * channel as standard input and the kernel log as standard output and
 * error. It runs in the root cgroups, or with @info->starter_cgroups in
 * the cgroups of the caller (of the umd_call() that restarts it, for a
 * restart), which must then not be a kernel thread.
 *
 * Context: Process context; may sleep. With @info->starter_cgroups, takes
 * cgroup_mutex and cgroup_threadgroup_rwsem in the new process while the
 * caller waits for it: the caller must hold no lock that is taken under
 * them (rtnl_lock, cpus_read_lock).
 * Return: 0; -EBUSY if it is already running; -ESHUTDOWN after
 * umd_destroy(); -EOPNOTSUPP with CONFIG_STATIC_USERMODEHELPER, which would
 * run another executable; -EPIPE from a kernel thread with
 * @info->starter_cgroups; or the error of the fork, of the move into the
 * caller's cgroups or of the exec.
 */
int umd_start(struct umd_info *info)
{
	int err;

	mutex_lock(&info->lock);
	err = umd_start_locked(info);
	mutex_unlock(&info->lock);
	return err;
}
EXPORT_SYMBOL_GPL(umd_start);

/**
 * umd_stop - kill the helper and wait until it is gone
 * @info: the driver
 *
 * Sends SIGKILL to the helper's thread group through its &struct pid, so a
 * process that merely reuses the number is never signalled, and waits until
 * the whole group has exited. A request in flight fails at once with
 * -EPIPE. Idempotent. Processes the helper forked, which inherit its
 * descriptors, are not the helper and are not killed: a helper should not
 * leave any behind.
 *
 * Context: Process context; may sleep until the helper has exited.
 */
void umd_stop(struct umd_info *info)
{
	struct umd_chan *chan;

	/* Kill first, so that a call in flight returns and drops the lock. */
	spin_lock(&info->chan_lock);
	chan = info->chan;
	if (chan)
		kref_get(&chan->ref);
	spin_unlock(&info->chan_lock);
	if (chan) {
		umd_chan_kill(chan);
		umd_chan_put(chan);
	}

	mutex_lock(&info->lock);
	umd_reap(info);
	mutex_unlock(&info->lock);
}
EXPORT_SYMBOL_GPL(umd_stop);

/**
 * umd_alive - whether the helper is running and in protocol
 * @info: the driver
 *
 * Return: true if the helper runs and has not broken the protocol.
 */
bool umd_alive(struct umd_info *info)
{
	bool alive = false;

	spin_lock(&info->chan_lock);
	if (info->chan)
		alive = umd_chan_alive(info->chan);
	spin_unlock(&info->chan_lock);
	return alive;
}
EXPORT_SYMBOL_GPL(umd_alive);

/**
 * umd_get_pid - the helper's thread group
 * @info: the driver
 *
 * Return: a reference to the helper's &struct pid, to be released with
 * put_pid(), or NULL if it is not running.
 */
struct pid *umd_get_pid(struct umd_info *info)
{
	struct pid *pid = NULL;

	spin_lock(&info->chan_lock);
	if (info->chan)
		pid = get_pid(info->chan->tgid);
	spin_unlock(&info->chan_lock);
	return pid;
}
EXPORT_SYMBOL_GPL(umd_get_pid);

/* Restart a helper that has died, at most a few times per interval. */
static int umd_ensure_running(struct umd_info *info)
{
	bool died;

	lockdep_assert_held(&info->lock);
	if (info->chan && umd_chan_alive(info->chan))
		return 0;
	died = info->chan;
	if (died)
		umd_reap(info);
	/* Not started from here: no restart spent, nothing to say. */
	if (info->starter_cgroups && (current->flags & PF_KTHREAD))
		return -EPIPE;
	if (died)
		pr_warn("%s: helper died, restarting\n", info->driver_name);
	if (!__ratelimit(&info->restart_rs)) {
		pr_warn_ratelimited("%s: helper keeps dying, not restarting\n",
				    info->driver_name);
		return -EAGAIN;
	}
	return umd_start_locked(info);
}

static struct umd_req *umd_req_alloc(u32 type, const void *data, size_t len,
				     size_t reply_size)
{
	struct umd_req *req = kzalloc(sizeof(*req), GFP_KERNEL);

	if (!req)
		return NULL;
	kref_init(&req->ref);
	req->msg = kvmalloc(sizeof(*req->msg) + len, GFP_KERNEL);
	req->reply = kvmalloc(max_t(size_t, reply_size, 1), GFP_KERNEL);
	if (!req->msg || !req->reply) {
		kref_put(&req->ref, umd_req_free);
		return NULL;
	}
	req->msg->len = sizeof(*req->msg) + len;
	req->msg->type = type;
	req->msg->status = 0;
	memcpy(req->msg + 1, data, len);
	req->reply_size = reply_size;
	return req;
}

/* Hand @req to the helper and wait for its reply. */
static int umd_transact(struct umd_info *info, struct umd_req *req,
			unsigned long timeout)
{
	struct umd_chan *chan = info->chan;
	bool withdrawn = false;
	long left;
	int ret;

	spin_lock(&chan->lock);
	if (chan->dead) {
		spin_unlock(&chan->lock);
		return -EPIPE;
	}
	req->msg->seq = ++info->seq;
	kref_get(&req->ref);
	chan->req = req;
	chan->taken = false;
	spin_unlock(&chan->lock);
	wake_up_all(&chan->wq);

	/* Pairs with smp_store_release() in umd_chan_reply(). */
	left = wait_event_killable_timeout(chan->wq, smp_load_acquire(&req->done) ||
					   READ_ONCE(chan->dead), timeout);

	spin_lock(&chan->lock);
	/* Pairs with smp_store_release() in umd_chan_reply(). */
	if (smp_load_acquire(&req->done)) {
		ret = req->status;
	} else {
		if (chan->req == req) {
			/* Keep the channel in step if the helper has read it. */
			if (chan->taken) {
				chan->stale = true;
				chan->stale_seq = req->msg->seq;
			}
			chan->req = NULL;
			chan->taken = false;
			withdrawn = true;
		}
		if (chan->dead)
			ret = -EPIPE;
		else if (left < 0)
			ret = -EINTR;
		else
			ret = -ETIMEDOUT;
	}
	spin_unlock(&chan->lock);
	if (withdrawn)
		kref_put(&req->ref, umd_req_free);

	if (ret == -ETIMEDOUT) {
		pr_warn("%s: no reply in %u ms; killing the helper\n",
			info->driver_name, jiffies_to_msecs(timeout));
		umd_reap(info);
	} else if (ret == -EPIPE) {
		umd_reap(info);
	}
	return ret;
}

/**
 * umd_call - send a request to the helper and wait for its reply
 * @info: the driver
 * @type: request type, defined by the driver
 * @req: request payload, copied
 * @req_len: its length
 * @reply: buffer for the reply payload
 * @reply_size: its size
 * @timeout: how long to wait for the reply, in jiffies
 *
 * Starts the helper if it is not running (rate limited), as umd_start()
 * does, in the caller's cgroups with @info->starter_cgroups. Calls are
 * serialized. The wait ends early on a fatal signal, leaving the channel
 * in step: the helper's late reply is dropped. A helper that does not
 * answer in time, or breaks the protocol, is killed.
 *
 * Context: Process context; may sleep. See umd_start() for the locks the
 * caller must not hold with @info->starter_cgroups.
 * Return: the length of the reply payload; the helper's negative status;
 * -EINVAL for a zero @timeout; -EMSGSIZE if the request or reply cannot fit
 * in a message; -ETIMEDOUT; -EPIPE if the helper died or broke the
 * protocol, or is not running and a kernel thread may not start it;
 * -EINTR on a fatal signal; -EAGAIN if it keeps dying and is not
 * restarted; -ESHUTDOWN after umd_destroy(); -ENOMEM; or an error of
 * umd_start().
 */
int umd_call(struct umd_info *info, u32 type, const void *req, size_t req_len,
	     void *reply, size_t reply_size, unsigned long timeout)
{
	struct umd_req *r;
	int ret;

	if (!timeout)
		return -EINVAL;
	if (req_len > info->max_msg - sizeof(struct umd_msg) ||
	    reply_size > info->max_msg - sizeof(struct umd_msg))
		return -EMSGSIZE;
	r = umd_req_alloc(type, req, req_len, reply_size);
	if (!r)
		return -ENOMEM;

	ret = mutex_lock_killable(&info->lock);
	if (ret)
		goto out_put;
	ret = info->shutdown ? -ESHUTDOWN : umd_ensure_running(info);
	if (!ret)
		ret = umd_transact(info, r, timeout);
	mutex_unlock(&info->lock);

	if (!ret) {
		memcpy(reply, r->reply, r->reply_len);
		ret = r->reply_len;
	}
out_put:
	kref_put(&r->ref, umd_req_free);
	return ret;
}
EXPORT_SYMBOL_GPL(umd_call);

#if IS_ENABLED(CONFIG_USERMODE_DRIVER_KUNIT_TEST)
/* For the KUnit tests: channels still allocated, of all drivers. */
int umd_nr_channels(void)
{
	return atomic_read(&umd_nr_chans);
}
EXPORT_SYMBOL_IF_KUNIT(umd_nr_channels);

/* For the KUnit tests: the helper's own descriptor of the channel. */
struct file *umd_channel_file(struct umd_info *info)
{
	struct task_struct *task;
	struct file *file = NULL;
	struct pid *pid;

	pid = umd_get_pid(info);
	if (!pid)
		return NULL;
	task = get_pid_task(pid, PIDTYPE_PID);
	if (task) {
		file = fget_task(task, 0);
		put_task_struct(task);
	}
	put_pid(pid);
	return file;
}
EXPORT_SYMBOL_IF_KUNIT(umd_channel_file);

/* For the KUnit tests: whether the helper has taken a request. */
bool umd_request_taken(struct umd_info *info)
{
	bool taken = false;

	spin_lock(&info->chan_lock);
	if (info->chan) {
		spin_lock(&info->chan->lock);
		taken = info->chan->req && info->chan->taken;
		spin_unlock(&info->chan->lock);
	}
	spin_unlock(&info->chan_lock);
	return taken;
}
EXPORT_SYMBOL_IF_KUNIT(umd_request_taken);
#endif
