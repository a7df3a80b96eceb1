#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bpfilter's helper validates and compiles each table in a child made for
# the request. While the child compiles a large table, /proc shows it
# without capabilities, with no_new_privs and a second seccomp filter. A
# child that crashes fails its own request: the helper serves on with the
# same pid, the namespace's table stays in force, and a request of another
# namespace succeeds. With its budget, the module parameter compile_ms,
# the table loads; with a budget of 1 ms, it fails, with a line in the
# kernel log, and the table in force stays.

source ../net/lib.sh
source ./iptables_lib.sh

need_tools iptables-legacy iptables-legacy-restore iptables-legacy-save \
	pgrep dmesg

# Large enough to catch the child at work.
RULES=${COMPILER_RULES:-20000}
PARAM=/sys/module/bpfilter/parameters/compile_ms
EMPTY=0000000000000000

restores=""
budget=""
table=""
child=""
cleanup()
{
	[ -z "$child" ] || kill -KILL "$child" 2>/dev/null
	[ -z "$restores" ] || kill $restores 2>/dev/null
	[ -z "$budget" ] || echo "$budget" > "$PARAM"
	[ -z "$table" ] || rm -f "$table"
	cleanup_all_ns
}
trap cleanup EXIT

setup_ns a b || exit "$ksft_skip"
detect_mode "$a"
if [ "$mode" != bpfilter ]; then
	skip "bpfilter's compiling child: bpfilter not loaded"
	exit "$ksft_skip"
fi
budget=$(cat "$PARAM")

# A table of RULES rules, as iptables-legacy-save writes it.
table=$(mktemp)
awk -v n="$RULES" 'BEGIN {
	print "*filter"
	print ":INPUT ACCEPT [0:0]"
	print ":FORWARD ACCEPT [0:0]"
	print ":OUTPUT ACCEPT [0:0]"
	for (i = 0; i < n; i++)
		printf "-A INPUT -s 10.%d.%d.%d/32 -p udp -m udp --dport %d -j DROP\n",
			int(i / 65536) % 256, int(i / 256) % 256, i % 256,
			1024 + i % 4096
	print "COMMIT"
}' > "$table"

field()
{
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null
}

# sandboxed_child HELPER RESTORE: the helper's compiling child for the
# restore RESTORE once it gave up its privileges (it forks with the
# helper's), or nothing if the restore ended first.
sandboxed_child()
{
	local pid filters=2

	# With no seccomp filter here, one must not be waited for.
	[ -e /proc/sys/kernel/seccomp/actions_avail ] || filters=0
	while kill -0 "$2" 2>/dev/null; do
		pid=$(pgrep -P "$1" | head -n 1)
		if [ -n "$pid" ] && [ "$(field "$pid" Seccomp_filters)" = $filters ]; then
			echo "$pid"
			return 0
		fi
		sleep 0.02
	done
	return 1
}

# start_restore: loads the large table into a, in the background.
start_restore()
{
	ip netns exec "$a" iptables-legacy-restore < "$table" &
	restore=$!
	restores="$restores $restore"
}

# helper_now: the pid of a's helper.
helper_now()
{
	ip netns exec "$a" cat /proc/net/bpfilter | helper_of /dev/stdin
}

# failed_alone WHAT LOG: the last restore failed, the kernel logged LOG,
# and the helper and a's table are as they were.
failed_alone()
{
	check "$1: the restore fails" eval "! wait $restore"
	check "$1: the kernel log says why" logged "$2"
	check "$1: the helper serves on, same pid" \
		test "$(helper_now)" = "$helper"
	check "$1: a's table is still in force" \
		test "$(saved "$a" iptables-legacy-save -t filter)" = "$before"
}

check "a has a table of bpfilter's" \
	ip netns exec "$a" iptables-legacy -A INPUT -s 192.0.2.1 -j DROP
check_owned "a's table is bpfilter's" "$a" ipv4 5
before=$(saved "$a" iptables-legacy-save -t filter)
helper=$(helper_now)
if [ -z "$helper" ]; then
	echo "FAIL: a's table has no helper process"
	exit 1
fi

# 1. A child compiles, without privileges; it crashes: its request fails.
mark crash
for try in 1 2 3; do
	start_restore
	child=$(sandboxed_child "$helper" "$restore") && break
	# Done before it was seen: the table is the large one now.
	wait "$restore"
	before=$(saved "$a" iptables-legacy-save -t filter)
done
if [ -z "$child" ]; then
	echo "FAIL: no compiling child of the helper seen in $try restores"
	exit 1
fi
# Stopped, it stays as it is while it is read, and dies of SEGV on SIGCONT.
kill -STOP "$child"
for f in CapEff CapPrm CapInh CapAmb; do
	check "the compiling child's $f is empty" \
		test "$(field "$child" $f)" = $EMPTY
done
check "the compiling child has no_new_privs" \
	test "$(field "$child" NoNewPrivs)" = 1
if [ -e /proc/sys/kernel/seccomp/actions_avail ]; then
	check "the compiling child has the helper's seccomp filter and its own" \
		test "$(field "$child" Seccomp)" = 2 -a \
		     "$(field "$child" Seccomp_filters)" = 2
else
	skip "the compiling child's seccomp filters: no CONFIG_SECCOMP_FILTER"
fi
check "the compiling child has no fd but its pipe" \
	test "$(ls "/proc/$child/fd" | tr '\n' ' ')" = "1 "
kill -SEGV "$child"
kill -CONT "$child"
child=""
failed_alone "a crashed child" "compiler killed by signal 11"
check "another namespace's request succeeds" \
	ip netns exec "$b" iptables-legacy -A INPUT -s 192.0.2.2 -j DROP

# 2. Past its budget, a child is killed; its request fails alone.
echo 1 > "$PARAM"
mark budget
start_restore
failed_alone "a budget of 1 ms" "table over its compile budget (1 ms of CPU)"

# 3. With its budget, the large table loads.
echo "$budget" > "$PARAM"
start_restore
check "with a budget of $budget ms, it loads" wait "$restore"
check "a has the large table" \
	test "$(ip netns exec "$a" iptables-legacy -S INPUT | wc -l)" = $((RULES + 1))
check_owned "a's large table is bpfilter's" "$a" ipv4 $((RULES + 4))

exit $ret
