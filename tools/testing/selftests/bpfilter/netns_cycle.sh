#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Network namespaces made, given IPv4 and IPv6 filter rules, and deleted,
# many times over. Each namespace starts with the initial tables and ends
# with its own; with bpfilter loaded, the helper must forget the tables of
# deleted namespaces: its memory must not grow with the number of cycles
# (the kernel side is checked by kmemleak in the guest).
#
# NETNS_CYCLES sets the number of cycles (200; sockopt_test makes 1,000
# namespaces with raw socket options, which is much faster).

source ../net/lib.sh
source ./iptables_lib.sh

need_tools iptables-legacy-restore ip6tables-legacy-restore \
	iptables-legacy-save ip6tables-legacy-save ip

CYCLES=${NETNS_CYCLES:-200}
CHUNK=100		# cycles in one "ip -batch"
SAMPLE=10		# every SAMPLE-th namespace is read back
RSS_SLACK_KB=4096	# growth allowed after the first chunk

tmp=$(mktemp -d)
prefix=bpfc-$(mktemp -u XXXXXX)

cleanup()
{
	local n

	for n in $(ip netns list | awk -v p="$prefix-" 'index($1, p) == 1 { print $1 }'); do
		ip netns del "$n"
	done
	cleanup_all_ns
	rm -rf "$tmp"
}
trap cleanup EXIT

setup_ns probe || exit "$ksft_skip"
detect_mode "$probe"

# The rules of each namespace, as iptables-save prints them.
cat >"$tmp/v4" <<EOF
*filter
:INPUT DROP [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
:svc - [0:0]
-A INPUT -i lo -j ACCEPT
-A INPUT -p tcp -j svc
-A INPUT -p icmp -m icmp --icmp-type 8 -j ACCEPT
-A svc -p tcp -m tcp --dport 22 -j ACCEPT
-A svc -s 10.0.0.0/8 -p tcp -m tcp --dport 80 -j ACCEPT
COMMIT
EOF
cat >"$tmp/v6" <<EOF
*filter
:INPUT DROP [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
:svc - [0:0]
-A INPUT -i lo -j ACCEPT
-A INPUT -p tcp -j svc
-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 135 -j ACCEPT
-A svc -p tcp -m tcp --dport 22 -j ACCEPT
-A svc -s 2001:db8::/32 -p tcp -m tcp --dport 80 -j ACCEPT
COMMIT
EOF
# 5 rules, 3 policies, 2 for the chain, the end.
ENTRIES=11

# batch FIRST LAST: the ip commands of cycles FIRST to LAST. Every
# SAMPLE-th namespace prints its tables (and, with bpfilter, what it owns)
# before it goes.
batch()
{
	local i n

	for ((i = $1; i <= $2; i++)); do
		n=$prefix-$i
		echo "netns add $n"
		echo "netns exec $n iptables-legacy-restore $tmp/v4"
		echo "netns exec $n ip6tables-legacy-restore $tmp/v6"
		if [ $((i % SAMPLE)) = 0 ]; then
			echo "netns exec $n iptables-legacy-save -t filter"
			echo "netns exec $n ip6tables-legacy-save -t filter"
			if [ "$mode" = bpfilter ]; then
				echo "netns exec $n grep ^ipv4 /proc/net/bpfilter"
				echo "netns exec $n grep ^ipv6 /proc/net/bpfilter"
			fi
		fi
		echo "netns del $n"
	done
}

# sed_bpfilter: drop the dated comments of iptables-save and the program
# of a table from /proc/net/bpfilter (its id changes from run to run).
sed_bpfilter()
{
	grep -v '^#' | sed 's/ prog=[0-9]* insns=[0-9]*$//'
}

# want_output FIRST LAST: what batch FIRST LAST prints, less what
# sed_bpfilter drops.
want_output()
{
	local i

	for ((i = $1; i <= $2; i++)); do
		[ $((i % SAMPLE)) = 0 ] || continue
		cat "$tmp/v4" "$tmp/v6"
		if [ "$mode" = bpfilter ]; then
			echo "ipv4 filter entries=$ENTRIES"
			echo "ipv6 filter entries=$ENTRIES"
		fi
	done
}

# helper_rss: the resident memory of bpfilter's helper, in kB.
helper_rss()
{
	local pid kb=0

	for pid in $(helper_pids); do
		kb=$((kb + $(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")))
	done
	echo $kb
}

rss_within()
{
	local rss

	rss=$(helper_rss)
	echo "VmRSS $rss kB"
	[ "$rss" -le $(($1 + RSS_SLACK_KB)) ]
}

# rss_settles KB: deleted namespaces go away in the background; give the
# helper time to hear of it and free their tables.
rss_settles()
{
	local rc

	slowwait 20 rss_within "$1"
	rc=$?
	echo
	return "$rc"
}

run_chunk()
{
	local first=$1 last=$2 out rc

	batch "$first" "$last" >"$tmp/batch"
	out=$(ip -batch "$tmp/batch" 2>&1)
	rc=$?
	check "cycles $first to $last: made, filled and deleted" test $rc = 0
	check "cycles $first to $last: the sampled namespaces held their tables" \
		same_text "$(sed_bpfilter <<<"$out")" "$(want_output "$first" "$last")"
}

t0=$(timestamp_ms)
first_chunk=$((CYCLES < CHUNK ? CYCLES : CHUNK))
run_chunk 1 "$first_chunk"
if [ "$mode" = bpfilter ]; then
	pids=$(helper_pids)
	rss=$(helper_rss)
	echo "# bpfilter_umh after $first_chunk cycles: pid $pids, VmRSS $rss kB"
	check "bpfilter_umh runs" test -n "$pids"
fi

for ((c = first_chunk + 1; c <= CYCLES; c += CHUNK)); do
	last=$((c + CHUNK - 1))
	run_chunk "$c" $((last < CYCLES ? last : CYCLES))
done
echo "# $CYCLES cycles in $(($(timestamp_ms) - t0)) ms"

if [ "$mode" = bpfilter ]; then
	check "bpfilter_umh still the same process" \
		test "$(helper_pids)" = "$pids"
	check "bpfilter_umh VmRSS at most $RSS_SLACK_KB kB above $rss kB" \
		rss_settles "$rss"
else
	skip "bpfilter_umh memory: bpfilter not loaded"
fi

exit $ret
