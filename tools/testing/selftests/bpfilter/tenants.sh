#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Each tenant has a helper of its own, and cannot hold up another
# tenant's requests nor use up its restarts. A tenant is a user
# namespace under the initial one, with the user namespaces under it;
# those of one unprivileged user are that user's. init_net has a helper
# of its own; the other network namespaces of the initial user namespace,
# a and b here, share one. Two tenants, t1 and t2, each a network
# namespace owned by a user namespace root made (unshare -Urn), call
# iptables-legacy from inside it:
# - each has a helper process of its own (/proc/net/bpfilter names it),
#   neither a's nor init_net's, and a user namespace nested in t1's is
#   served by t1's;
# - with t1's helper stopped (SIGSTOP), as a long compilation would keep
#   it busy, t1's replace waits, and the replaces of t2 and of a do not;
# - t2's helper is killed at every request until it is past its restart
#   budget: the other helpers serve on, and t2's tables come back when
#   t2's helper may restart;
# - t2's network namespace goes, and its helper with it.
# Two user namespaces of user nobody share one helper: no user can make
# the kernel run more than one.

source ../net/lib.sh
source ./iptables_lib.sh

need_tools iptables-legacy iptables-legacy-save unshare nsenter setpriv

# How long a process is given to get somewhere, in seconds.
WAIT=20

tmp=$(mktemp -d)
# Lock files of tenants of an unprivileged user go there too.
chmod 1777 "$tmp"
stopped=""
holders=""

cleanup()
{
	[ -z "$stopped" ] || kill -CONT $stopped 2>/dev/null
	[ -z "$holders" ] || kill $holders 2>/dev/null
	cleanup_all_ns
	rm -rf "$tmp"
}
trap cleanup EXIT

setup_ns a b || exit "$ksft_skip"
detect_mode "$a"
if [ "$mode" != bpfilter ]; then
	skip "the helpers of tenants: bpfilter not loaded"
	exit "$ksft_skip"
fi

if ! tenant t1 || ! tenant t2; then
	skip "no user namespaces here (unshare -Urn)"
	exit "$ksft_skip"
fi

# tn PID CMD...: CMD in the user and network namespaces of PID, as the
# tenant's root, with a lock file of its own.
tn()
{
	local pid=$1

	shift
	XTABLES_LOCKFILE=$tmp/lock.$pid nsenter -t "$pid" -U -n -- "$@"
}

# tn_bg PID ARGS...: iptables-legacy ARGS in PID's namespaces in the
# background, $! its pid (nsenter execs it: a signal reaches it).
tn_bg()
{
	local pid=$1

	shift
	XTABLES_LOCKFILE=$tmp/lock.$pid nsenter -t "$pid" -U -n -- \
		iptables-legacy "$@" &
}

# ipt NS ARGS...: iptables-legacy in NS, owned by the initial user
# namespace.
ipt()
{
	XTABLES_LOCKFILE=$tmp/lock.$1 ip netns exec "$1" iptables-legacy "${@:2}"
}

# has_rule PID RULE: iptables-legacy-save in PID's namespaces has RULE.
has_rule()
{
	tn "$1" iptables-legacy-save | grep -qx -- "$2"
}

# differ A B: two pids, not the same.
differ()
{
	[ -n "$1" ] && [ -n "$2" ] && [ "$1" != "$2" ]
}

# dead PID: wait up to $WAIT s for PID to be gone or a zombie.
dead()
{
	local end=$((SECONDS + WAIT)) state

	while [ $SECONDS -lt $end ]; do
		state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)
		[ -z "$state" ] || [ "$state" = Z ] && return 0
		sleep 0.1
	done
	return 1
}

# ms: the time in milliseconds.
ms()
{
	echo $(($(date +%s%N) / 1000000))
}

# alive PID: PID is a running helper.
alive()
{
	helper_pids | grep -qx -- "$1"
}

check "a has a table of bpfilter's" ipt "$a" -A INPUT -s 192.0.2.1 -j DROP
check_owned "a's table is bpfilter's" "$a" ipv4 5
h0=$(ip netns exec "$a" cat /proc/net/bpfilter | helper_of /dev/stdin)
check "a's helper runs" alive "$h0"
# The module starts init_net's helper, which runs unless a test before
# killed it (nothing in init_net restarts it); reading its pid changes
# nothing.
hi=$(helper_of /proc/1/net/bpfilter)
if [ -n "$hi" ]; then
	check "a's helper is not init_net's" differ "$h0" "$hi"
else
	skip "init_net's helper apart from a's: it is not running"
fi
check "b has a table of bpfilter's" ipt "$b" -A INPUT -s 192.0.2.5 -j DROP
check_owned "b's table is bpfilter's" "$b" ipv4 5
hb=$(ip netns exec "$b" cat /proc/net/bpfilter | helper_of /dev/stdin)
check "b's helper is a's" test "$hb" = "$h0"

check "t1 has a table of bpfilter's" \
	tn "$t1" iptables-legacy -A INPUT -s 192.0.2.11 -j DROP
check "t1's table is bpfilter's" served "$t1" 5
h1=$(helper_of "/proc/$t1/net/bpfilter")
check "t1's helper runs" alive "$h1"
check "t1's helper is not a's" differ "$h1" "$h0"
[ -z "$hi" ] || check "t1's helper is not init_net's" differ "$h1" "$hi"

check "t2 has a table of bpfilter's" \
	tn "$t2" iptables-legacy -A INPUT -s 192.0.2.21 -j DROP
check "t2's table is bpfilter's" served "$t2" 5
h2=$(helper_of "/proc/$t2/net/bpfilter")
check "t2's helper runs" alive "$h2"
check "t2's helper is not t1's" differ "$h2" "$h1"
check "t2's helper is not a's" differ "$h2" "$h0"

# A user namespace and a network namespace under t1's: t1's helper.
tn "$t1" unshare --user --map-root-user --net sh -c \
	'iptables-legacy -w -A INPUT -s 192.0.2.12 -j DROP &&
	 cat /proc/net/bpfilter' >"$tmp/nested"
check "a namespace nested in t1 has a table of bpfilter's" \
	grep -q "^ipv4 filter entries=5 " "$tmp/nested"
check "t1's helper serves the nested namespace" \
	test "$(helper_of "$tmp/nested")" = "$h1"

# A replace in a, timed as a baseline for the one below.
ms0=$(ms)
check "a's replace before" ipt "$a" -A INPUT -s 192.0.2.4 -j DROP
base=$(($(ms) - ms0))

# t1's helper stops: t1's request waits, no other tenant's does.
stopped=$h1
kill -STOP $h1
tn_bg "$t1" -A INPUT -s 192.0.2.13 -j DROP
p1=$!
check "t1's replace waits for t1's stopped helper" blocked "$p1"
# In the foreground, timed: killed after $WAIT s if it waits.
ms0=$(ms)
check "a's replace does not wait for t1's helper" \
	timeout "$WAIT" env XTABLES_LOCKFILE="$tmp/lock.$a" \
	ip netns exec "$a" iptables-legacy -A INPUT -s 192.0.2.2 -j DROP
echo "# a's replace with t1's helper stopped: $(($(ms) - ms0)) ms (one before: $base ms)"
tn_bg "$t2" -A INPUT -s 192.0.2.22 -j DROP
p2=$!
check "t2's replace does not wait for t1's helper" gone "$p2"
check "t2's replace succeeds" wait "$p2"
check "t1's replace still waits" kill -0 "$p1"
kill -CONT $h1
stopped=""
check "t1's replace ends once its helper goes on" gone "$p1"
check "t1's replace succeeds" wait "$p1"
check "t1's rule is in force" has_rule "$t1" "-A INPUT -s 192.0.2.13/32 -j DROP"
check "t1's table is bpfilter's" served "$t1" 6

# t2's helper dies at every request until it is past its restart
# budget (five starts in ten seconds): the other tenants' helpers serve
# on. The kernel says so in its log.
dying0=$(dmesg | grep -c "helper keeps dying")
failed=""
starts=()
for i in $(seq 30); do
	h=$(helper_of "/proc/$t2/net/bpfilter")
	if [ -n "$h" ]; then
		kill -KILL "$h"
		# The request must find it dead, not dying.
		dead "$h" || break
	fi
	starts+=("$SECONDS")
	if ! tn "$t2" iptables-legacy -A INPUT -s 192.0.2.$((30 + i)) -j DROP \
		2>"$tmp/t2.err"; then
		failed=$i
		break
	fi
done
if [ -z "$failed" ] && [ ${#starts[@]} -ge 5 ] &&
   [ $((starts[-1] - starts[-5])) -gt 10 ]; then
	skip "t2's restart budget: five restarts take more than ten seconds here"
else
	check "t2 ran out of restarts" test -n "$failed"
	check "the kernel says t2's helper keeps dying" \
		test "$(dmesg | grep -c "helper keeps dying")" -gt "$dying0"
	[ -z "$failed" ] || echo "# t2's request $failed: $(cat "$tmp/t2.err")"
fi
check "a's change after t2's crashes" ipt "$a" -A INPUT -s 192.0.2.3 -j DROP
check "a's helper is the same" alive "$h0"
check "t1's change after t2's crashes" \
	tn "$t1" iptables-legacy -A INPUT -s 192.0.2.14 -j DROP
check "t1's helper is the same" alive "$h1"
# Once the budget is back, t2's helper restarts with t2's tables.
sleep 11
check "t2's change once its helper may restart" \
	tn "$t2" iptables-legacy -A INPUT -s 192.0.2.29 -j DROP
check "t2's first rule is still there" \
	has_rule "$t2" "-A INPUT -s 192.0.2.21/32 -j DROP"
check "t2's new rule is in force" \
	has_rule "$t2" "-A INPUT -s 192.0.2.29/32 -j DROP"
rules=$(tn "$t2" iptables-legacy-save | grep -c '^-A')
check "t2's table is bpfilter's" served "$t2" $((rules + 4))

# t2's namespaces go, and its helper with them.
h2=$(helper_of "/proc/$t2/net/bpfilter")
check "t2's helper runs" alive "$h2"
kill "$t2"
check "t2's helper goes with t2's namespaces" gone "$h2"
check "t1's helper stays" alive "$h1"
check "t1's table is still served" served "$t1" 7

# Two user namespaces of user nobody: one tenant, one helper.
nobody=(--reuid=65534 --regid=65534 --clear-groups)
if tenant t3 "${nobody[@]}" && tenant t4 "${nobody[@]}"; then
	check "nobody's first user namespace has a table of bpfilter's" \
		tn "$t3" iptables-legacy -A INPUT -s 192.0.2.41 -j DROP
	check "nobody's second user namespace has a table of bpfilter's" \
		tn "$t4" iptables-legacy -A INPUT -s 192.0.2.42 -j DROP
	h3=$(helper_of "/proc/$t3/net/bpfilter")
	check "nobody's helper runs" alive "$h3"
	check "nobody's helper is not t1's" differ "$h3" "$h1"
	check "nobody's user namespaces share the helper" \
		test "$(helper_of "/proc/$t4/net/bpfilter")" = "$h3"
else
	skip "user namespaces of an unprivileged user: unshare -Urn as nobody fails"
fi

exit $ret
