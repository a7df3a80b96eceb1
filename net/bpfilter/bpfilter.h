/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NET_BPFILTER_BPFILTER_H
#define _NET_BPFILTER_BPFILTER_H

#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/mutex.h>
#include <linux/sockptr.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/usermode_driver.h>
#include <linux/workqueue.h>

#include "msg.h"

/* Long enough to validate the largest table on a loaded machine. */
#define BPFILTER_TIMEOUT	(120 * HZ)

struct bpf_prog;
struct bpfilter_xt;
struct net;
struct nf_hook_state;
struct sock;
struct user_namespace;
struct xt_counters;

/* Index of a family in struct bpfilter_net.tables. */
enum {
	BPFILTER_IPV4,
	BPFILTER_IPV6,
	BPFILTER_NFAMILIES,
};

/**
 * struct bpfilter_run - what the hooks run for a table
 * @prog: its program
 * @xt: the kernel's matches and targets the program calls, or NULL
 * @rcu: freed after the hooks are done with it
 */
struct bpfilter_run {
	struct bpf_prog *prog;
	struct bpfilter_xt *xt;
	struct rcu_head rcu;
};

/**
 * struct bpfilter_frame - the table a program runs for, for its kfuncs
 * @state: the hook state the program was given
 * @skb: its packet
 * @xt: the table's kernel matches and targets
 * @verdict: NF_ACCEPT, or the verdict of the kernel target that ended the
 *	program, which its NF_ACCEPT stands for
 */
struct bpfilter_frame {
	const struct nf_hook_state *state;
	const struct sk_buff *skb;
	const struct bpfilter_xt *xt;
	unsigned int verdict;
};

/**
 * struct bpfilter_table - a table served by the helper
 * @req: the request that set it: a struct bpfilter_req, then the
 *	struct ipt_replace (counters pointer cleared) and the entries; what
 *	is sent again to a restarted helper
 * @len: length of @req
 * @number: number of entries
 * @size: bytes of entries
 * @initial: the table is in its initial state (no rule, no user chain,
 *	ACCEPT policies)
 * @view: its entries as IPT_SO_GET_ENTRIES returns them but the
 *	counters, from the helper
 * @prog: the program that enforces it, with its counters
 * @slot: for each entry, the index of its counter in the program's
 *	counters map
 * @base: NULL, or for each entry what its counter had when the table
 *	took over the program from the one before: not the table's
 * @conntrack: it holds conntrack active in its namespace
 * @jit: bytes of its program's JIT image charged to its tenant's helper
 * @xt: the kernel's matches and targets it checked, which its program
 *	calls; NULL if none
 * @run: what the hooks run while it is in force
 * @published: the hooks may run it: its kernel matches go only after a
 *	grace period
 */
struct bpfilter_table {
	void *req;
	size_t len;
	unsigned int number;
	unsigned int size;
	bool initial;
	void *view;
	struct bpf_prog *prog;
	u32 *slot;
	struct xt_counters *base;
	bool conntrack;
	long jit;
	struct bpfilter_xt *xt;
	struct bpfilter_run *run;
	bool published;
};

/**
 * struct bpfilter_helper - the helper of one tenant's network namespaces
 * @umd: the helper
 * @call_lock: one request to it at a time; taken before bpfilter.lock,
 *	killably by callers, and never by a namespace's exit
 * @list: in bpfilter.helpers while it has users; RCU for the kfunc filter
 * @tenant: the tenant it serves, a user namespace under init_user_ns
 *	that root made, or init_user_ns; NULL if it serves every tenant of
 *	@owner. Compared, not held: a namespace that uses the helper keeps
 *	its user namespace alive
 * @owner: the user whose tenants it serves, if not @tenant's alone
 * @alone: it serves init_net, and no other namespace of @tenant
 *	(init_user_ns)
 * @users: the namespaces that use it, and the module for init_net's
 * @nets: those of them that have a table, for a restarted helper
 * @exited: cookies of its namespaces gone, which a worker tells it to
 *	forget when it is free
 * @gen: the number of times it was given the kernel's tables; changed
 *	under both locks
 * @changes: the number of its tables installed or removed (but by a
 *	namespace's exit) and of resyncs asked for, so that a replay finds
 *	out whether the tables it sent are still the kernel's
 * @resync: it may not hold the kernel's tables: give them again before
 *	the next request
 * @jit: bytes of JIT images its tenant's tables hold (see bpfilter_hold())
 * @exited_work: tells it of @exited
 * @free_work: stops it once it has no user
 * @rcu: freed after the kfunc filter is done with it
 *
 * @list, @users, @nets, @exited, @gen, @changes and @resync are
 * bpfilter.lock's.
 */
struct bpfilter_helper {
	struct umd_info umd;
	struct mutex call_lock;	/* the helper's one request */
	struct list_head list;
	const struct user_namespace *tenant;
	kuid_t owner;
	bool alone;
	unsigned int users;
	struct list_head nets;
	struct list_head exited;
	u64 gen;
	u64 changes;
	bool resync;
	atomic_long_t jit;
	struct work_struct exited_work;
	struct work_struct free_work;
	struct rcu_head rcu;
};

/**
 * struct bpfilter_net - bpfilter's state in a network namespace
 * @lock: who serves the namespace's tables cannot change while held; held
 *	across calls into ip_tables, which may load modules
 * @list: in its helper's nets while the namespace has a table
 * @cookie: the namespace's cookie, its name for the helper
 * @helper: the helper of the namespace's tenant, for its lifetime
 * @filter: the filter table of each family, NULL if ip_tables serves it;
 *	changed with @lock and bpfilter.lock held
 * @run: the program of each @filter and its kernel matches, what the
 *	hooks run
 * @hooked: the hooks of the family are registered; changed with @lock held
 * @stale: a change of its tables may have reached the helper, whose
 *	caller was killed before the answer: the helper gets the
 *	namespace's tables again before its next request; changed with
 *	@lock held
 * @net: the namespace
 * @unload: on the module's unload, the namespaces it gives back to
 *	ip_tables (bpfilter_unload_net()), without an allocation that may
 *	fail
 */
struct bpfilter_net {
	struct mutex lock;	/* the owner of the tables */
	struct list_head list;
	struct list_head unload;
	u64 cookie;
	struct bpfilter_helper *helper;
	struct bpfilter_table *filter[BPFILTER_NFAMILIES];
	struct bpfilter_run __rcu *run[BPFILTER_NFAMILIES];
	bool hooked[BPFILTER_NFAMILIES];
	bool stale;
	struct net *net;
};

/**
 * struct bpfilter - the module's state
 * @image: the helper's executable, which every helper runs
 * @lock: @helpers, @pinned and the tables, and the helpers' state; never
 *	held across a request to a helper nor across ip_tables calls
 * @helpers: the helpers that have users
 * @init_helper: init_net's helper, which the module holds
 * @pinned: tables not in their initial state; while there is one, the
 *	module holds a reference on itself so that rmmod cannot drop rules
 * @wq: the helpers' workers, drained before the module goes
 * @unloading: the module is going away; namespaces that go away are not
 *	queued for the helper, which goes too
 */
struct bpfilter {
	struct umd_info image;
	struct mutex lock;	/* never across a helper's request */
	struct list_head helpers;
	struct bpfilter_helper *init_helper;
	unsigned int pinned;
	struct workqueue_struct *wq;
	bool unloading;
};

extern struct bpfilter bpfilter;
extern char bpfilter_umh_start[], bpfilter_umh_end[];

struct bpfilter_net *bpfilter_net(const struct net *net);
int bpfilter_call(struct bpfilter_net *bn, u32 type, const void *req,
		  size_t len, struct bpfilter_reply *reply, size_t size,
		  u64 *gen);
void *bpfilter_copy_alloc(size_t len);
/* bpfilter_set_table() of a change the helper is told of otherwise */
#define BPFILTER_GEN_ANY	U64_MAX
struct bpfilter_table *bpfilter_set_table(struct bpfilter_net *bn, int family,
					  struct bpfilter_table *t, u64 gen);
void bpfilter_free_table(struct bpfilter_table *t);
void bpfilter_release_table(struct bpfilter_net *bn, int family,
			    struct bpfilter_table *t);
int bpfilter_hold(struct bpfilter_net *bn, int family,
		  struct bpfilter_table *t, const struct bpf_prog *prog,
		  u32 flags);
void bpfilter_unhold(struct bpfilter_net *bn, int family,
		     struct bpfilter_table *t);
void bpfilter_broken(struct bpfilter_net *bn);
void bpfilter_forget_net(struct bpfilter_net *bn);
bool bpfilter_is_helper(void);

int bpfilter_hook(struct bpfilter_net *bn, int family);
int bpfilter_conntrack_get(struct bpfilter_net *bn, int family);
void bpfilter_conntrack_put(struct bpfilter_net *bn, int family);
void bpfilter_unhook(struct bpfilter_net *bn, int family);
int bpfilter_iptables_hooks(struct bpfilter_net *bn, int family, bool on);
void bpfilter_unload_net(struct bpfilter_net *bn);
struct bpf_prog *bpfilter_prog_get(u32 id);
int bpfilter_layout(struct bpfilter_table *t, struct bpf_prog *prog,
		    const struct bpfilter_layout *lay, size_t len);
int bpfilter_update(struct bpfilter_table *old, struct bpfilter_table *t,
		    const struct bpfilter_layout *lay,
		    struct xt_counters *counters);
void bpfilter_read_counters(const struct bpfilter_table *t,
			    struct xt_counters *counters);
void bpfilter_add_counters(const struct bpfilter_table *t,
			   const struct xt_counters *add);
void bpfilter_entry_counters(const struct bpfilter_table *t, int family,
			     void *entries);

struct bpfilter_check;
int bpfilter_xt_init(void);
int bpfilter_xt_check(struct net *net, int family, const char *table,
		      const void *entries, unsigned int size,
		      const struct bpfilter_check *chk, size_t len,
		      struct bpfilter_xt **xtp, bool *broken);
void bpfilter_xt_destroy(struct bpfilter_xt *xt);
unsigned int bpfilter_xt_count_matches(const struct bpfilter_xt *xt);
unsigned int bpfilter_xt_count_targets(const struct bpfilter_xt *xt);
void bpfilter_xt_to_user(const struct bpfilter_xt *xt, void *entries,
			 unsigned int size);
struct bpfilter_frame *bpfilter_xt_enter(struct bpfilter_frame *f);
void bpfilter_xt_leave(struct bpfilter_frame *up);

int bpfilter_setsockopt_ops(struct sock *sk, u8 pf, int optname,
			    sockptr_t optval, unsigned int optlen);
int bpfilter_getsockopt_ops(struct sock *sk, u8 pf, int optname,
			    char __user *optval, int *optlen);

#endif /* _NET_BPFILTER_BPFILTER_H */
