#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A tenant's most expensive tables hold up no other namespace. Tenant t1,
# a network namespace owned by a user namespace root made (unshare -Urn),
# loads in a loop the kinds of valid table that cost bpfilter's helper
# the most: a wide run of classified rules, a deep chain of user chains
# each jumping to the next, and a long chain of rules that stay code.
# t1's helper and iptables-legacy-restore run at nice 19, as a host would
# give a tenant a small share of its CPUs, so that what the test measures
# is waiting, not a share of the two CPUs of a test machine. While t1
# loads, init_net and namespace a (owned by the initial user namespace)
# each add and delete a rule again and again:
# - each of t1's tables loads, and takes longer than the bound (else the
#   test would show nothing);
# - no change of init_net's or a's takes more than BOUND_MS longer than
#   the slowest of the same changes made before t1 started;
# - the kernel logs no task "blocked for more than" a while.
# A control shows that the measurement sees a stall where there is one:
# b shares a's helper, and a's change made while b loads the deep table
# waits for it.

source ../net/lib.sh
source ./iptables_lib.sh

need_tools iptables-legacy iptables-legacy-restore unshare nsenter setpriv \
	dmesg renice

# How long a process is given to get somewhere, in seconds.
WAIT=20
# The longest a change may wait behind another tenant, in milliseconds.
BOUND=${STALL_BOUND_MS:-1000}
# The sizes of t1's tables.
WIDE=${STALL_WIDE:-1000}
DEEP=${STALL_DEEP:-300}
CODE=${STALL_CODE:-200}

tmp=$(mktemp -d)
holders=""
loader=""

cleanup()
{
	[ -z "$loader" ] || kill "$loader" 2>/dev/null
	[ -z "$holders" ] || kill $holders 2>/dev/null
	iptables-legacy -D INPUT -s 192.0.2.77 -j DROP 2>/dev/null
	cleanup_all_ns
	rm -rf "$tmp"
}
trap cleanup EXIT

setup_ns a b || exit "$ksft_skip"
detect_mode "$a"
if [ "$mode" != bpfilter ]; then
	skip "a tenant's stall: bpfilter not loaded"
	exit "$ksft_skip"
fi
if ! tenant t1; then
	skip "no user namespaces here (unshare -Urn)"
	exit "$ksft_skip"
fi

head="*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]"

# A run of WIDE rules the helper classifies into one lookup.
awk -v n="$WIDE" -v head="$head" 'BEGIN {
	print head
	for (i = 0; i < n; i++)
		printf "-A INPUT -s 10.%d.%d.%d/32 -p udp -m udp --dport %d -j DROP\n",
			int(i / 65536) % 256, int(i / 256) % 256, i % 256,
			1024 + i % 4096
	print "COMMIT"
}' > "$tmp/wide"
# DEEP user chains, each jumping to the next.
awk -v n="$DEEP" -v head="$head" 'BEGIN {
	print head
	for (i = 0; i < n; i++)
		printf ":c%d - [0:0]\n", i
	print "-A INPUT -j c0"
	for (i = 0; i < n; i++) {
		printf "-A c%d -p tcp -m tcp --dport %d -j ACCEPT\n", i, 1 + i
		if (i + 1 < n)
			printf "-A c%d -j c%d\n", i, i + 1
	}
	print "COMMIT"
}' > "$tmp/deep"
# CODE rules that no lookup takes: states, port lists and the kernel's
# own limit match.
awk -v n="$CODE" -v head="$head" 'BEGIN {
	print head
	for (i = 0; i < n; i++)
		printf "-A INPUT -s 10.1.%d.%d/32 -p tcp -m multiport " \
		       "--dports %d:%d,%d -m state " \
		       "--state NEW,RELATED,ESTABLISHED,INVALID " \
		       "-m limit --limit %d/sec -j ACCEPT\n",
			int(i / 256) % 256, i % 256, 1 + i, 100 + i, 2000 + i,
			1 + i % 100
	print "COMMIT"
}' > "$tmp/code"

# tn PID CMD...: CMD in the user and network namespaces of PID, as the
# tenant's root, with a lock file of its own.
tn()
{
	local pid=$1

	shift
	XTABLES_LOCKFILE=$tmp/lock.$pid nsenter -t "$pid" -U -n -- "$@"
}

# ms: the time in milliseconds.
ms()
{
	echo $(($(date +%s%N) / 1000000))
}

# change NS: add a rule to NS's table and delete it again ("-" for
# init_net); prints the milliseconds it took, fails if either failed.
change()
{
	local start end cmd=(iptables-legacy)

	[ "$1" = - ] || cmd=(ip netns exec "$1" iptables-legacy)
	start=$(ms)
	XTABLES_LOCKFILE=$tmp/lock.$1 "${cmd[@]}" -A INPUT -s 192.0.2.77 -j DROP &&
		XTABLES_LOCKFILE=$tmp/lock.$1 "${cmd[@]}" -D INPUT -s 192.0.2.77 -j DROP ||
		return 1
	end=$(ms)
	echo $((end - start))
}

# slowest NS COUNT: the slowest of COUNT changes of NS, in milliseconds,
# or nothing if one failed.
slowest()
{
	local max=0 t

	for _ in $(seq "$2"); do
		t=$(change "$1") || return 1
		[ "$t" -le "$max" ] || max=$t
	done
	echo "$max"
}

# load KIND: t1 loads its table of KIND; prints the milliseconds it took.
load()
{
	local start end

	start=$(ms)
	tn "$t1" nice -n 19 iptables-legacy-restore < "$tmp/$1" || return 1
	end=$(ms)
	echo "$1 $((end - start))" >> "$tmp/loads"
}

check "a has a table of bpfilter's" eval "change $a >/dev/null"
check_owned "a's table is bpfilter's" "$a" ipv4 4
check "init_net has a table of bpfilter's" eval "change - >/dev/null"
check "b has a table of bpfilter's" eval "change $b >/dev/null"
check "t1 has a table of bpfilter's" \
	tn "$t1" iptables-legacy -A INPUT -s 192.0.2.1 -j DROP
h1=$(helper_of "/proc/$t1/net/bpfilter")
h0=$(ip netns exec "$a" cat /proc/net/bpfilter | helper_of /dev/stdin)
check "t1's helper is not a's" test -n "$h1" -a -n "$h0" -a "$h1" != "$h0"
# Its compiling children are forked with its nice value.
check "t1's helper at nice 19" eval "renice -n 19 -p $h1 >/dev/null"
mark stall

base_i=$(slowest - 5)
base_a=$(slowest "$a" 5)
check "changes before t1 loads" test -n "$base_i" -a -n "$base_a"
echo "# before: init_net's slowest change $base_i ms, a's $base_a ms"

# t1 loads its three tables over and over until the changes are done.
(
	while :; do
		for kind in wide deep code; do
			load $kind || echo "$kind failed" >> "$tmp/loads"
		done
	done
) &
loader=$!
# init_net and a change their tables, in turn, until each of t1's three
# tables has loaded once: the changes meet every stage of each load.
during_i=0
during_a=0
changes=0
end=$((SECONDS + 900))
kinds()
{
	awk '{ print $1 }' "$tmp/loads" 2>/dev/null | sort -u | wc -l
}
while [ "$(kinds)" -lt 3 ] && [ $SECONDS -lt $end ]; do
	t=$(change -) || { during_i=""; break; }
	[ "$t" -le "$during_i" ] || during_i=$t
	t=$(change "$a") || { during_a=""; break; }
	[ "$t" -le "$during_a" ] || during_a=$t
	changes=$((changes + 1))
	# A pause, in which t1's restore, at nice 19, gets on.
	sleep 1
done
kill "$loader" 2>/dev/null
wait "$loader" 2>/dev/null
loader=""
# The loop may have stopped a restore under way; let t1's helper finish.
sleep 1

echo "# t1's loads (ms):" $(cat "$tmp/loads")
for kind in wide deep code; do
	check "t1's $kind table loads" eval "grep -q '^$kind [0-9]' $tmp/loads &&
		! grep -q '^$kind failed' $tmp/loads"
	check "t1's $kind table takes longer than $BOUND ms to load" \
		awk -v k=$kind -v b="$BOUND" '$1 == k && $2 ~ /^[0-9]+$/ &&
			$2 + 0 > b { ok = 1 } END { exit !ok }' "$tmp/loads"
done
echo "# while t1 loads: $changes changes each, init_net's slowest $during_i ms, a's $during_a ms"
check "init_net's and a's changes while t1 loads" \
	test -n "$during_i" -a -n "$during_a" -a "$changes" -gt 0
check "init_net waits at most $BOUND ms for t1" \
	test "${during_i:-999999}" -le $((base_i + BOUND))
check "a waits at most $BOUND ms for t1" \
	test "${during_a:-999999}" -le $((base_a + BOUND))
check "no task blocked for long" eval "! logged 'blocked for more than'"

# The control: b shares a's helper, so a's change waits for b's load.
ip netns exec "$b" iptables-legacy-restore < "$tmp/deep" &
control=$!
# Once b's restore waits for the helper, a's change is made.
blocked "$control"
t=$(change "$a")
wait "$control"
echo "# a's change while b loads its deep table: $t ms"
check "control: a's change waits for b's load (one helper)" \
	test "${t:-0}" -gt $((base_a + BOUND))

exit $ret
