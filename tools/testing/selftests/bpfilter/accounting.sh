#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A tenant pays for its helper. Two tenants, t1 and t2, each a network
# namespace owned by a user namespace root made (unshare -Urn), have a
# helper each; each one's first request is made from a memory cgroup of
# its own, A and B:
# - each helper runs in the cgroup of the request that started it, and
#   init_net's in the root cgroup;
# - A is charged the anonymous memory of t1's helper, and what the
#   helper keeps and makes (maps, program) for a table of a few thousand
#   rules sent from the root cgroup, which pays for the kernel's copy;
# - B's memory.max is then set just above what B uses, and t2's large
#   table is sent from the root cgroup, so that only t2's helper is
#   charged for it: B reaches its limit, the table fails, t2's old table
#   stays in force and listed, and t1, init_net's helper and, once B's
#   limit is lifted, t2 itself serve on.

source ../net/lib.sh
source ./iptables_lib.sh

need_tools iptables-legacy iptables-legacy-restore iptables-legacy-save \
	unshare nsenter setpriv

# How long a process is given to get somewhere, in seconds.
WAIT=20
# Rules of the large tables.
RULES=${ACCOUNTING_RULES:-4000}

tmp=$(mktemp -d)
cgs=""
holders=""

cleanup()
{
	local cg

	[ -z "$holders" ] || kill $holders 2>/dev/null
	# Their helpers leave with their namespaces, from a worker.
	[ -z "$holders" ] || wait $holders 2>/dev/null
	cleanup_all_ns
	# A helper leaves its cgroup when its namespace is gone.
	for cg in $cgs; do
		for _ in $(seq 50); do
			rmdir "$cg" 2>/dev/null || [ ! -d "$cg" ] && break
			sleep 0.2
		done
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

setup_ns a || exit "$ksft_skip"
detect_mode "$a"
if [ "$mode" != bpfilter ]; then
	skip "the cgroups of bpfilter's helpers: bpfilter not loaded"
	exit "$ksft_skip"
fi

root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$root" ]; then
	skip "no cgroup2 file system mounted"
	exit "$ksft_skip"
fi
if ! grep -qw memory "$root/cgroup.controllers"; then
	skip "no memory controller in cgroup2 (CONFIG_MEMCG)"
	exit "$ksft_skip"
fi
if ! grep -qw memory "$root/cgroup.subtree_control" &&
   ! echo +memory >"$root/cgroup.subtree_control"; then
	skip "the memory controller cannot be enabled under $root"
	exit "$ksft_skip"
fi

if ! tenant t1 || ! tenant t2; then
	skip "no user namespaces here (unshare -Urn)"
	exit "$ksft_skip"
fi

A=$root/bpfilter-a.$$
B=$root/bpfilter-b.$$
mkdir "$A" "$B" || exit 1
cgs="$A $B"

# in_cg CG PID CMD...: CMD in the user and network namespaces of PID, as
# the tenant's root, from a process in CG.
in_cg()
{
	local cg=$1 pid=$2

	shift 2
	XTABLES_LOCKFILE=$tmp/lock.$pid sh -c \
		'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cg" \
		nsenter -t "$pid" -U -n -- "$@"
}

# table NET: a filter table whose INPUT has $RULES rules, NET.X.Y each.
table()
{
	local i

	echo "*filter"
	for i in $(seq 1 "$RULES"); do
		echo "-A INPUT -s $1.$((i / 250)).$((i % 250 + 1))/32" \
			"-p tcp --dport $((1000 + i % 50)) -j DROP"
	done
	echo "COMMIT"
}

# cg_of PID: the cgroup2 path of PID, from the mount's root.
cg_of()
{
	sed -n 's/^0:://p' "/proc/$1/cgroup"
}

# mem CG: the bytes charged to CG.
mem()
{
	cat "$1/memory.current"
}

# memstat CG FIELD: FIELD of CG's memory.stat; FIELD of memory.events with
# CG/memory.events as CG.
memstat()
{
	local f=$1

	[ -f "$f" ] || f=$1/memory.stat
	awk -v k="$2" '$1 == k { print $2 }' "$f"
}

# stat_at_least CG FIELD MIN: FIELD of CG's memory.stat reaches MIN within
# $WAIT s (the kernel flushes its per-CPU statistics every 2 s).
stat_at_least()
{
	slowwait "$WAIT" until_counter_is ">= $3" memstat "$1" "$2" \
		>/dev/null && return 0
	echo "$2 $(memstat "$1" "$2") < $3"
	return 1
}

# rss_anon PID: the anonymous memory of PID, in bytes.
rss_anon()
{
	echo $(($(awk '/^RssAnon:/ { print $2 }' "/proc/$1/status") * 1024))
}

# helper PID: the pid of the helper of PID's network namespace.
helper()
{
	helper_of "/proc/$1/net/bpfilter"
}

has_rule()
{
	nsenter -t "$1" -U -n -- iptables-legacy-save | grep -qx -- "$2"
}

table 10.1 >"$tmp/a.rules"
table 10.2 >"$tmp/b.rules"

check "t1's first table, from A" \
	in_cg "$A" "$t1" iptables-legacy -A INPUT -s 192.0.2.1 -j DROP
check "t1's table is bpfilter's" served "$t1" 5
ha=$(helper "$t1")
# Running unless a test before killed it: nothing in init_net restarts it.
hi=$(helper_of /proc/1/net/bpfilter)
check "t1's helper runs in A" test "$(cg_of "$ha")" = "/${A#"$root"/}"
if [ -n "$hi" ]; then
	check "init_net's helper stays in the root cgroup" \
		test "$(cg_of "$hi")" = /
else
	skip "init_net's helper's cgroup: it is not running"
fi
# Less what the helper frees before the statistics are flushed.
check "A is charged t1's helper's anonymous memory" \
	stat_at_least "$A" anon $(($(rss_anon "$ha") * 3 / 4))

check "t2's first table, from B" \
	in_cg "$B" "$t2" iptables-legacy -A INPUT -s 192.0.2.2 -j DROP
hb=$(helper "$t2")
check "t2's helper runs in B" test "$(cg_of "$hb")" = "/${B#"$root"/}"

# From the root cgroup: A's charge grows only by what t1's helper keeps
# and makes.
a0=$(mem "$A")
check "t1's large table, from the root cgroup" \
	in_cg "$root" "$t1" iptables-legacy-restore "$tmp/a.rules"
check "t1's large table is bpfilter's" served "$t1" $((RULES + 4))
a1=$(mem "$A")
echo "# A: $a0 -> $a1 bytes with $RULES rules"
# Its counters alone are 16 bytes a rule and a CPU.
check "what t1's helper keeps and makes for the table is charged to A" \
	test $((a1 - a0)) -ge $((RULES * 64))

# B may use little more than it does; the table comes from the root
# cgroup, so that only t2's helper is charged for it.
max0=$(memstat "$B/memory.events" max)
echo $(($(mem "$B") + 2 * 1024 * 1024)) >"$B/memory.max"
in_cg "$root" "$t2" iptables-legacy-restore "$tmp/b.rules" 2>"$tmp/b.err"
rc=$?
check "t2's large table fails over B's memory.max" test "$rc" != 0
check "B reached its memory.max" \
	test "$(memstat "$B/memory.events" max)" -gt "$max0"
echo "# t2's restore: exit $rc, $(head -c 200 "$tmp/b.err")"
echo max >"$B/memory.max"
check "t2's old rule is still in force" \
	has_rule "$t2" "-A INPUT -s 192.0.2.2/32 -j DROP"
check "t2's old table is still bpfilter's" served "$t2" 5
check "t1's change after t2's failure" \
	in_cg "$A" "$t1" iptables-legacy -A INPUT -s 192.0.2.3 -j DROP
check "t1's helper is the same" test "$(helper "$t1")" = "$ha"
[ -z "$hi" ] || check "init_net's helper is the same" \
	test "$(helper_of /proc/1/net/bpfilter)" = "$hi"
check "t2's large table once B's limit is lifted" \
	in_cg "$B" "$t2" iptables-legacy-restore "$tmp/b.rules"
check "t2's large table is bpfilter's" served "$t2" $((RULES + 4))

exit $ret
