#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Processes editing one table at the same time. iptables-legacy -w takes the
# xtables lock, so each of its read-modify-replace cycles sees the table the
# previous one left: no rule may be lost, none doubled, and each process's
# rules keep the order it added them in.

source ../net/lib.sh
source ./iptables_lib.sh

need_tools iptables-legacy ip6tables-legacy iptables-legacy-save \
	ip6tables-legacy-save ip

WORKERS=8
PER_WORKER=50

tmp=$(mktemp -d)
trap 'cleanup_all_ns; rm -rf "$tmp"' EXIT
setup_ns ns || exit "$ksft_skip"
detect_mode "$ns"
# With bpfilter every -A compiles the table: fewer keep it quick under
# emulation, with as many writers at once.
[ "$mode" = bpfilter ] && PER_WORKER=5

# rule FAMILY WORKER I: the rule worker WORKER adds as its I-th, as
# iptables-save prints it. Workers 1 to 4 add to INPUT, the others to a
# user chain.
rule()
{
	local chain=INPUT src verdict=ACCEPT

	[ "$2" -gt $((WORKERS / 2)) ] && chain=pool
	[ $(($3 % 2)) = 1 ] && verdict=DROP
	if [ "$1" = 4 ]; then
		src=10.$2.$3.1/32
	else
		src=2001:db8:$2::$3/128
	fi
	echo "-A $chain -s $src -j $verdict"
}

# worker IPT FAMILY WORKER: add this worker's rules one command at a time;
# run inside the namespace, one shell for all of them (process starts are
# what costs in a slow guest). A wait for the lock is bounded, so that a
# hung table shows as failed commands rather than as the test's timeout.
worker()
{
	local ipt=$1 fam=$2 w=$3 i

	for ((i = 1; i <= PER_WORKER; i++)); do
		# shellcheck disable=SC2046 # the rule's words are arguments
		"$ipt" -w 60 $(rule "$fam" "$w" "$i") ||
			echo "failed: $ipt $(rule "$fam" "$w" "$i")"
	done
}

run_workers()
{
	local ipt=$1 fam=$2 w

	for ((w = 1; w <= WORKERS; w++)); do
		ip netns exec "$ns" bash -c "$(declare -f rule worker)
			WORKERS=$WORKERS PER_WORKER=$PER_WORKER
			worker $ipt $fam $w" >"$tmp/worker$w" 2>&1 &
	done
	wait
}

# in_order FILE...: each FILE's lines are in the saved table, in that
# order (with other lines between them).
in_order()
{
	local f

	for f in "$@"; do
		grep -Fxf "$f" "$tmp/table" | cmp -s - "$f" || return 1
	done
}

test_family()
{
	local fam=$1 ipt=iptables-legacy save=iptables-legacy-save w i out

	if [ "$fam" = 6 ]; then
		ipt=ip6tables-legacy save=ip6tables-legacy-save
	fi
	ip netns exec "$ns" "$ipt" -N pool
	ip netns exec "$ns" "$ipt" -A INPUT -j pool

	run_workers "$ipt" "$fam"

	out=$(cat "$tmp"/worker*)
	check "$ipt: $WORKERS processes of $PER_WORKER -w -A each, none failed" \
		same_text "$out" ""

	saved "$ns" "$save" -t filter >"$tmp/table"
	for ((w = 1; w <= WORKERS; w++)); do
		for ((i = 1; i <= PER_WORKER; i++)); do
			rule "$fam" "$w" "$i"
		done >"$tmp/want$w"
	done
	check "$ipt: exactly $((WORKERS * PER_WORKER)) rules added" \
		same_text "$(grep -c -- '-s ' "$tmp/table")" $((WORKERS * PER_WORKER))
	check "$ipt: every rule is there once" same_text \
		"$(grep -- '-s ' "$tmp/table" | sort)" "$(sort "$tmp"/want*)"
	check "$ipt: each process's rules in the order it added them" \
		in_order "$tmp"/want*
	check "$ipt: the rest of the table is intact" same_text \
		"$(grep -v -- '-s ' "$tmp/table")" "*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:pool - [0:0]
-A INPUT -j pool
COMMIT"
	# The rules, the jump, 3 policies, 2 for the chain, the end.
	check_owned "ipv$fam filter table owned by bpfilter" "$ns" "ipv$fam" \
		$((WORKERS * PER_WORKER + 1 + 3 + 2 + 1))
	rm -f "$tmp"/worker* "$tmp"/want*
}

test_family 4
test_family 6

exit $ret
