#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One namespace's request to bpfilter's helper must not hold up another
# namespace. First, with the helper stopped (SIGSTOP) as a long
# compilation would keep it busy, namespace d lists its tables, IPv4 and
# IPv6, with iptables-save -c: listing must not wait for the helper, and
# reads what it read before. Then the helper is stopped while namespace
# a's replace waits for it. Meanwhile:
# - namespace b, which has a table, is deleted: its exit, which runs
#   under pernet_ops_rwsem, must not wait for the helper (b's table lets
#   go of the module), and a module with pernet operations must load
#   (register_pernet_subsys() waits for the exits in progress);
# - a replace of namespace c, waiting for a's to finish, is killed with
#   SIGKILL: it must go at once, and change nothing;
# - so is an iptables of a, which reads a's table first and waits for
#   the namespace that a's replace holds.
# Then the helper goes on, and a's replace is in force.
#
# Last, namespace f's replace is killed while it waits for the stopped
# helper: the helper must get f's tables again before f's next request,
# and no other namespace's. A table keeps its program across a change by
# one rule (only its classifier's map changes) unless the helper was
# given the table again, which leaves it no program to change: f's next
# change loads a new program, e's keeps its own.

source ../net/lib.sh
source ./iptables_lib.sh

need_tools iptables-legacy iptables-legacy-save ip6tables-legacy \
	ip6tables-legacy-save iptables-legacy-restore ip modprobe modinfo pgrep cmp

# How long a process is given to get somewhere, in seconds: the helper
# stays stopped for a few times that at most, below the module's 120 s
# timeout for a request.
WAIT=20

tmp=$(mktemp -d)
stopped=""
pernet_mod=""

cleanup()
{
	[ -z "$stopped" ] || kill -CONT $stopped 2>/dev/null
	[ -z "$pernet_mod" ] || modprobe -q -r "$pernet_mod" 2>/dev/null
	cleanup_all_ns
	rm -rf "$tmp"
}
trap cleanup EXIT

setup_ns a b c d e f || exit "$ksft_skip"
detect_mode "$a"
if [ "$mode" != bpfilter ]; then
	skip "the isolation of bpfilter's helper: bpfilter not loaded"
	exit "$ksft_skip"
fi

# ipt NS ARGS...: iptables-legacy in NS with a lock file of its own: the
# xtables lock is one file for every namespace of the host.
ipt()
{
	local ns=$1

	shift
	XTABLES_LOCKFILE=$tmp/lock.$ns ip netns exec "$ns" iptables-legacy "$@"
}

# ip6t NS ARGS...: the same with ip6tables-legacy.
ip6t()
{
	local ns=$1

	shift
	XTABLES_LOCKFILE=$tmp/lock.$ns ip netns exec "$ns" ip6tables-legacy "$@"
}

# save_bg NS IPT FILE: IPT-save -c of NS into FILE in the background.
save_bg()
{
	XTABLES_LOCKFILE=$tmp/lock.$1 ip netns exec "$1" "$2-save" -c |
		grep -v '^#' >"$3" &
}

# ipt_bg NS ARGS...: the same in the background, $! its pid (ip execs
# iptables-legacy, and a signal must reach the process in the kernel).
ipt_bg()
{
	local ns=$1

	shift
	XTABLES_LOCKFILE=$tmp/lock.$ns ip netns exec "$ns" iptables-legacy "$@" &
}

# has_rule NS RULE: iptables-legacy-save of NS has the line RULE; 2 if
# it cannot be read.
has_rule()
{
	local out

	out=$(XTABLES_LOCKFILE=$tmp/lock.$1 ip netns exec "$1" \
		iptables-legacy-save) || { echo "iptables-save failed"; return 2; }
	grep -qx -- "$2" <<<"$out"
}

# not CMD...: CMD said no (1), not that it could not tell.
not()
{
	"$@"
	[ $? = 1 ]
}

# stop_helper: the helper stops (SIGSTOP), as a long compilation would
# keep it busy; cleanup() lets it go on if the test ends meanwhile.
stop_helper()
{
	stopped=$(helper_pids | xargs)
	if [ -z "$stopped" ]; then
		echo "FAIL: no helper process"
		exit 1
	fi
	kill -STOP $stopped
}

cont_helper()
{
	kill -CONT $stopped
	stopped=""
}

# prog NS: the id of NS's IPv4 program.
prog()
{
	bpfilter_line "$1" ipv4 | sed -n 's/.* prog=\([0-9]*\) .*/\1/p'
}

# same_prog NS ID: NS's IPv4 program is still ID; 2 without one.
same_prog()
{
	local now

	now=$(prog "$1")
	[ -n "$2" ] && [ -n "$now" ] || { echo "no program id"; return 2; }
	[ "$now" = "$2" ] && return 0
	echo "program $2 is now $now"
	return 1
}

# run20 NS NET: NS's INPUT gets a classified run of 20 rules, from
# NET.1 to NET.20.
run20()
{
	{
		echo "*filter"
		for i in $(seq 1 20); do
			echo "-A INPUT -s $2.$i/32 -j DROP"
		done
		echo "COMMIT"
	} | XTABLES_LOCKFILE=$tmp/lock.$1 ip netns exec "$1" iptables-legacy-restore
}

# refcnt: the module's reference count. It holds one reference on itself
# while any namespace has a table not in its initial state.
refcnt()
{
	cat /sys/module/bpfilter/refcnt
}

# below FILE N: wait up to $WAIT s for the number in FILE to drop below N.
below()
{
	local end=$((SECONDS + WAIT))

	while [ $SECONDS -lt $end ]; do
		[ "$(cat "$1")" -lt "$2" ] && return 0
		sleep 0.2
	done
	[ "$(cat "$1")" -lt "$2" ]
}

# A module with pernet operations that nothing uses, to load again.
for m in xt_recent xt_hashlimit nf_conntrack_ftp; do
	modprobe -q -r "$m" 2>/dev/null
	# (A module built in loads at once: it would prove nothing.)
	if ! grep -q "^$m " /proc/modules && modprobe -q -n "$m" &&
	   [ "$(modinfo -F filename "$m" 2>/dev/null)" != "(builtin)" ]; then
		pernet_mod=$m
		break
	fi
done

refs0=$(refcnt)
check "d has a table of bpfilter's" ipt "$d" -A INPUT -s 192.0.2.4 -j DROP
check "d has an IPv6 table of bpfilter's" \
	ip6t "$d" -A INPUT -s 2001:db8::4 -j DROP
check_owned "d's table is bpfilter's" "$d" ipv4 5
check_owned "d's IPv6 table is bpfilter's" "$d" ipv6 5
save_bg "$d" iptables-legacy "$tmp/d4.before"
save_bg "$d" ip6tables-legacy "$tmp/d6.before"
wait
# d's tables, not in their initial state, hold a reference on the module
# (if no other namespace's table does already).
check "d's tables hold the module" test "$(refcnt)" -gt "$refs0"
refs=$(refcnt)

stop_helper
save_bg "$d" iptables-legacy "$tmp/d4.during"
pd=$!
check "d's iptables-save does not wait for the helper" gone "$pd"
check "d's IPv4 table reads as before" cmp "$tmp/d4.before" "$tmp/d4.during"
save_bg "$d" ip6tables-legacy "$tmp/d6.during"
pd=$!
check "d's ip6tables-save does not wait for the helper" gone "$pd"
check "d's IPv6 table reads as before" cmp "$tmp/d6.before" "$tmp/d6.during"
check "d's IPv4 rule is listed" \
	grep -qx -- "\[0:0\] -A INPUT -s 192.0.2.4/32 -j DROP" "$tmp/d4.during"
check "d's IPv6 rule is listed" \
	grep -qx -- "\[0:0\] -A INPUT -s 2001:db8::4/128 -j DROP" "$tmp/d6.during"

cont_helper
# d goes, and its tables' reference on the module with it.
ip netns del "$d"
check "d's exit lets go of the module" \
	below /sys/module/bpfilter/refcnt "$refs"

refs0=$(refcnt)
check "b has a table of bpfilter's" ipt "$b" -A INPUT -s 192.0.2.1 -j DROP
check_owned "b's table is bpfilter's" "$b" ipv4 5
check "b's table holds the module" test "$(refcnt)" -gt "$refs0"

stop_helper

ipt_bg "$a" -A INPUT -s 192.0.2.2 -j DROP
pa=$!
check "a's replace waits for the stopped helper" blocked "$pa"

# b's table, not in its initial state, holds a reference on the module:
# it goes when b's exit is done.
refs=$(refcnt)
ip netns del "$b"
check "b's exit does not wait for a's request" \
	below /sys/module/bpfilter/refcnt "$refs"
if [ -n "$pernet_mod" ]; then
	modprobe "$pernet_mod" &
	pm=$!
	check "a module load does not wait for a's request" gone "$pm"
else
	why="xt_recent, xt_hashlimit and nf_conntrack_ftp in use, built in or missing"
	skip "a module load, and so b's whole exit: $why"
fi

ipt_bg "$c" -A INPUT -s 192.0.2.3 -j DROP
pc=$!
check "c's replace waits behind a's" blocked "$pc"
kill -KILL "$pc"
check "c's replace, waiting behind a's, dies at SIGKILL" gone "$pc"
# A lock file of its own, so that it reaches the kernel and waits there,
# reading a's table.
XTABLES_LOCKFILE=$tmp/lock.a2 ip netns exec "$a" \
	iptables-legacy -A INPUT -s 192.0.2.9 -j DROP &
pa2=$!
check "a's read waits behind a's replace" blocked "$pa2"
kill -KILL "$pa2"
check "a's read, waiting behind a's replace, dies at SIGKILL" gone "$pa2"
check "a's replace still waits" kill -0 "$pa"

cont_helper
check "a's replace ends once the helper goes on" gone "$pa"
check "a's replace succeeds" wait "$pa"
[ -z "$pernet_mod" ] || check "the module load succeeds" wait "$pm"

check "a's rule is in force" has_rule "$a" "-A INPUT -s 192.0.2.2/32 -j DROP"
check_owned "a's table is bpfilter's" "$a" ipv4 5
check "c's killed replace changed nothing" \
	not has_rule "$c" "-A INPUT -s 192.0.2.3/32 -j DROP"
check_not_owned "c's table is still ip_tables'" "$c" ipv4
check "c's replace works after" ipt "$c" -A INPUT -s 192.0.2.3 -j DROP
check_owned "c's table is bpfilter's" "$c" ipv4 5

# e and f: a classified run of 20 rules each, which a change by one rule
# at its end keeps the program of.
run20 "$e" 198.51.100
check_owned "e's table is bpfilter's" "$e" ipv4 24
pe=$(prog "$e")
check "e's change by one rule" ipt "$e" -A INPUT -s 198.51.100.21 -j DROP
check "e's change kept its program" same_prog "$e" "$pe"
run20 "$f" 203.0.113
check_owned "f's table is bpfilter's" "$f" ipv4 24
pf=$(prog "$f")
check "f's change by one rule" ipt "$f" -A INPUT -s 203.0.113.21 -j DROP
check "f's change kept its program" same_prog "$f" "$pf"

stop_helper
ipt_bg "$f" -A INPUT -s 203.0.113.99 -j DROP
pk=$!
check "f's replace waits for the stopped helper" blocked "$pk"
kill -KILL "$pk"
check "f's replace dies at SIGKILL" gone "$pk"
cont_helper

check "e's next change by one rule" \
	ipt "$e" -A INPUT -s 198.51.100.22 -j DROP
check "e's next change kept its program: no replay of every table" \
	same_prog "$e" "$pe"
check "f's killed replace changed nothing" \
	not has_rule "$f" "-A INPUT -s 203.0.113.99/32 -j DROP"
check "f's next change by one rule" \
	ipt "$f" -A INPUT -s 203.0.113.22 -j DROP
check "f's next change has a new program: the helper got f's table again" \
	not same_prog "$f" "$pf"
check "f's table has the rule before" \
	has_rule "$f" "-A INPUT -s 203.0.113.21/32 -j DROP"
check "f's table has the new rule" \
	has_rule "$f" "-A INPUT -s 203.0.113.22/32 -j DROP"
check_owned "f's table is bpfilter's" "$f" ipv4 26

exit $ret
