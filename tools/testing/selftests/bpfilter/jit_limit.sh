#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tables of a tenant hold at most tenant_jit_kb KiB of JIT images
# between them (a module parameter): no memory cgroup pays for a JIT
# image, and the helper's CAP_BPF puts its programs past bpf_jit_limit.
# Tenant t1, a user namespace root made (unshare -Urn), has two network
# namespaces, its own and n2; t2 is another tenant. With the limit set
# to one and a half times the JIT image of a table of RULES rules that
# t1 holds:
# - the same table fails in n2, with a line in the kernel log, n2's table
#   and program as they were, and no program left of it, nor of one whose
#   caller was killed while the helper compiled it; under half the image,
#   a change of n2's one-rule table fails too, with ENOMEM, as ip_tables
#   fails a table it has no memory for, while t1's flush, smaller than
#   what it replaces, goes in;
# - t2 loads it, and so does a, of the initial user namespace, whose
#   tables the limit leaves alone even at 1 KiB;
# - once t1's table is flushed, n2's loads, and once n2 is gone, t1's:
#   what goes is uncharged.

source ../net/lib.sh
source ./iptables_lib.sh

need_tools iptables-legacy iptables-legacy-restore iptables-legacy-save \
	unshare nsenter setpriv bpftool dmesg pgrep

# How long a process is given to get somewhere, in seconds.
WAIT=20
# Rules of the table: enough for a JIT image of some size.
RULES=${JIT_LIMIT_RULES:-100}
PARAM=/sys/module/bpfilter/parameters/tenant_jit_kb

tmp=$(mktemp -d)
holders=""
limit=""

cleanup()
{
	[ -z "$limit" ] || echo "$limit" > "$PARAM"
	[ -z "$holders" ] || kill $holders 2>/dev/null
	cleanup_all_ns
	rm -rf "$tmp"
}
trap cleanup EXIT

setup_ns a || exit "$ksft_skip"
detect_mode "$a"
if [ "$mode" != bpfilter ]; then
	skip "the JIT budget of tenants: bpfilter not loaded"
	exit "$ksft_skip"
fi
if [ "$(cat /proc/sys/net/core/bpf_jit_enable 2>/dev/null)" != 1 ]; then
	skip "the JIT budget of tenants: the BPF JIT is off"
	exit "$ksft_skip"
fi
if ! tenant t1 || ! tenant t2; then
	skip "no user namespaces here (unshare -Urn)"
	exit "$ksft_skip"
fi
limit=$(cat "$PARAM")

# n2: a second network namespace of t1's user namespace.
nsenter -t "$t1" -U -n -- unshare --net sleep 1000 &
n2=$!
holders="$holders $n2"
for _ in $(seq 50); do
	[ "$(readlink "/proc/$n2/ns/net")" != "$(readlink "/proc/$t1/ns/net")" ] &&
		[ "$(cat "/proc/$n2/comm" 2>/dev/null)" = sleep ] && break
	sleep 0.1
done

# inside PID CMD...: CMD in the user and network namespaces of PID, as its
# root, with a lock file of its own; a's root for a.
inside()
{
	local pid=$1

	shift
	if [ "$pid" = "$a" ]; then
		XTABLES_LOCKFILE=$tmp/lock.a ip netns exec "$a" "$@"
	else
		XTABLES_LOCKFILE=$tmp/lock.$pid nsenter -t "$pid" -U -n -- "$@"
	fi
}

# A table of RULES rules that stay code: ports, states and lists.
awk -v n="$RULES" 'BEGIN {
	print "*filter"
	for (i = 0; i < n; i++)
		printf "-A INPUT -s 10.1.%d.%d/32 -p tcp -m multiport " \
		       "--dports %d:%d,%d -m state " \
		       "--state NEW,RELATED,ESTABLISHED,INVALID -j ACCEPT\n",
			int(i / 256) % 256, i % 256, 1 + i, 100 + i, 2000 + i
	print "COMMIT"
}' > "$tmp/table"
# Three times as large: the helper takes seconds over it.
sed 's/^COMMIT$//' "$tmp/table" > "$tmp/large"
sed -n 's/^-A INPUT -s 10\.1\./-A INPUT -s 10.2./p' "$tmp/table" >> "$tmp/large"
sed -n 's/^-A INPUT -s 10\.1\./-A INPUT -s 10.3./p' "$tmp/table" >> "$tmp/large"
echo COMMIT >> "$tmp/large"

# newest [ID...]: the id of bpfilter's newest IPv4 program but the IDs,
# 0 if none; fails if bpftool does.
newest()
{
	bpftool prog show >"$tmp/progs" || return 1
	sed -n 's/^\([0-9]*\): .*name bpfilter_ipv4 .*/\1/p' "$tmp/progs" |
		grep -vxF -e 0 "${@/#/-e}" | sort -n | tail -n 1 | grep . ||
		echo 0
}

# none_after ID [IN_FORCE...]: within $WAIT s (programs go after a grace
# period), no IPv4 program of bpfilter's is newer than ID but the
# programs IN_FORCE.
none_after()
{
	local end=$((SECONDS + WAIT)) id=$1 n

	shift
	while [ $SECONDS -lt $end ]; do
		n=$(newest "$@") || { echo "bpftool prog show failed"; return 1; }
		[ "$n" -le "$id" ] && return 0
		sleep 0.5
	done
	echo "program $n is newer than $id"
	return 1
}

# killed_while_compiling PID: a restore of the large table in PID's
# namespace, killed once it has waited a second for the helper; fails if
# it ended first.
killed_while_compiling()
{
	local restore

	# nsenter execs the restore: $! is the restore.
	XTABLES_LOCKFILE=$tmp/lock.$1 nsenter -t "$1" -U -n -- \
		iptables-legacy-restore "$tmp/large" &
	restore=$!
	if ! blocked "$restore"; then
		wait "$restore"
		return 1
	fi
	kill -KILL "$restore"
	wait "$restore"
	return 0
}

# n2_gone: t1 loads the table once n2's exit, from a worker, gave the
# room of n2's table back; within $WAIT s.
n2_gone()
{
	local end=$((SECONDS + WAIT))

	while [ $SECONDS -lt $end ]; do
		inside "$t1" iptables-legacy-restore "$tmp/table" 2>/dev/null &&
			return 0
		sleep 1
	done
	return 1
}

# prog_of PID: the id of the IPv4 filter table's program in PID's
# network namespace.
prog_of()
{
	inside "$1" cat /proc/net/bpfilter |
		sed -n 's/^ipv4 filter .* prog=\([0-9]*\) .*/\1/p'
}

# jited PID: the bytes of the JIT image of that program.
jited()
{
	local id

	id=$(prog_of "$1")
	[ -n "$id" ] && bpftool prog show id "$id" |
		sed -n 's/.* jited \([0-9]*\)B.*/\1/p'
}

check "n2 is a network namespace of t1's" \
	test "$(readlink "/proc/$n2/ns/user")" = "$(readlink "/proc/$t1/ns/user")"
check "n2 has a table of bpfilter's" \
	inside "$n2" iptables-legacy -A INPUT -s 192.0.2.2 -j DROP
n2_before=$(inside "$n2" iptables-legacy-save -t filter | grep -v '^#')
n2_prog=$(prog_of "$n2")
check "t1 loads the table" inside "$t1" iptables-legacy-restore "$tmp/table"
size=$(jited "$t1")
echo "# the table's JIT image: ${size:-?} bytes"
check "the table has a JIT image" test "${size:-0}" -gt 4096

echo $((size * 3 / 2 / 1024)) > "$PARAM"
mark n2
before=$(newest)
check "n2's table past t1's budget fails" \
	eval "! inside $n2 iptables-legacy-restore $tmp/table"
check "the kernel log says why" logged "over its tenant's budget"
check "n2's table is as it was" \
	test "$(inside "$n2" iptables-legacy-save -t filter | grep -v '^#')" = \
	     "$n2_before"
check "the refused table's program is gone" none_after "$before"
check "n2's program is the same" test "$(prog_of "$n2")" = "$n2_prog"
# Within budget, but its caller killed while the helper compiles it. A
# change first gives the helper n2's tables again (n2 is stale since the
# refusal), so that the restore waits for its own table only.
echo "$limit" > "$PARAM"
check "n2 changes and changes back" eval "
	inside $n2 iptables-legacy -A INPUT -s 192.0.2.4 -j DROP &&
	inside $n2 iptables-legacy -D INPUT -s 192.0.2.4 -j DROP"
n2_prog=$(prog_of "$n2")
before=$(newest)
check "n2's restore killed while it compiles" killed_while_compiling "$n2"
# The helper compiles on; t1's change waits until it is done, and makes a
# program of its own.
check "t1 changes and changes back after" eval "
	inside $t1 iptables-legacy -A INPUT -s 192.0.2.4 -j DROP &&
	inside $t1 iptables-legacy -D INPUT -s 192.0.2.4 -j DROP"
check "the killed restore's program is gone" \
	none_after "$before" "$(prog_of "$t1")"
check "n2's table is as it was after the killed restore" \
	test "$(inside "$n2" iptables-legacy-save -t filter | grep -v '^#')" = \
	     "$n2_before"
check "n2's program is still the same" test "$(prog_of "$n2")" = "$n2_prog"
echo $((size / 2 / 1024)) > "$PARAM"
check "n2's change past t1's budget fails" \
	eval "! inside $n2 iptables-legacy -A INPUT -s 192.0.2.3 -j DROP 2>$tmp/err"
# iptables' words for ENOMEM
check "with ENOMEM" grep -q "Memory allocation problem" "$tmp/err"
check "n2's table is still as it was" \
	test "$(inside "$n2" iptables-legacy-save -t filter | grep -v '^#')" = \
	     "$n2_before"
check "t1's flush goes in over the budget" inside "$t1" iptables-legacy -F INPUT
echo $((size * 3 / 2 / 1024)) > "$PARAM"
check "t2, another tenant, loads it" \
	inside "$t2" iptables-legacy-restore "$tmp/table"
echo 1 > "$PARAM"
check "a, of the initial user namespace, loads it at 1 KiB" \
	inside "$a" iptables-legacy-restore "$tmp/table"
echo $((size * 3 / 2 / 1024)) > "$PARAM"
check "with t1's table flushed, n2's loads" \
	inside "$n2" iptables-legacy-restore "$tmp/table"
check "n2 has the table" \
	test "$(inside "$n2" iptables-legacy -S INPUT | wc -l)" = $((RULES + 1))
kill "$n2"
check "once n2 is gone, t1's loads" n2_gone

exit $ret
