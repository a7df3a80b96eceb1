#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh's namespace. Usage: netns.sh BENCH RULES PACKETS ROUNDS
set -euo pipefail
lib=$(cd "$(dirname "$0")" && pwd)/../translate/lib.sh
bench=$1 rules=$2 packets=$3 rounds=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Each mode in a namespace of its own, where no other table runs; bench
# moves bpfilter's program to another one (see bench.c).
export BENCH_SETUP="bash -c 'source $lib; setup_netns'"
fresh()
{
	unshare -n bash -c "source $lib; setup_netns; $1"
}

# With BENCH_PERF=1, each run under perf record, and what the filter costs
# a packet is the time of the run's sends spent in netfilter's hooks
# (nf_hook_slow(), all it calls): steadier than differences of runs on
# a noisy machine. Prints that cost, not the time of a packet.
run_mode()
{
	local out=$1 prep=$2 run=$3 ns
	if [ "${BENCH_PERF:-0}" = 0 ]; then
		fresh "$prep; $run" >>"$out"
		return
	fi
	ns=$(fresh "$prep; perf record -q -g -o $tmp/perf.data -- $run" \
		2>/dev/null)
	perf report -i "$tmp/perf.data" --children --sort sym -g none \
		2>/dev/null | awk -v ns="$ns" '
			$3 == "[k]" && $4 == "__x64_sys_sendto" { send = $1 + 0 }
			$3 == "[k]" && $4 == "nf_hook_slow" { hook = $1 + 0 }
			END { printf "%.1f\n", send ? ns * hook / send : 0 }' \
		>>"$out"
}

# RULES rules of OUTPUT, none of which matches what bench sends.
table() {
	local i
	echo '*filter'
	for ((i = 0; i < rules; i++)); do
		if [ "$1" = 6 ]; then
			printf -- '-A OUTPUT -d 2001:db8:%x:%x::1/128 -p udp --dport %d -j DROP\n' $((i >> 16)) $((i & 65535)) $((1000 + i % 60000))
		else
			printf -- '-A OUTPUT -d 10.%d.%d.%d/32 -p udp --dport %d -j DROP\n' $((i >> 16)) $((i >> 8 & 255)) $((i & 255)) $((1000 + i % 60000))
		fi
	done
	echo COMMIT
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

for family in 4 6; do
	ipt=iptables
	[ $family = 6 ] && ipt=ip6tables
	table $family >"$tmp/rules"
	run="$bench $family $packets"
	for ((r = 0; r < rounds; r++)); do
		run_mode "$tmp/none.$family" true "$run"
		run_mode "$tmp/ip_tables.$family" \
			"$ipt-legacy-restore <$tmp/rules" "$run"
		run_mode "$tmp/bpfilter.$family" \
			"$ipt-legacy-restore <$tmp/rules" "$run bpfilter"
		run_mode "$tmp/nftables.$family" \
			"$ipt-nft-restore <$tmp/rules" "$run"
	done
	base=$(median <"$tmp/none.$family")
	what="cost of the table = minus a namespace without one"
	[ "${BENCH_PERF:-0}" = 0 ] || what="time in netfilter's hooks"
	echo "IPv$family, $rules rules, $packets packets x $rounds rounds (median ns per packet; $what):"
	for mode in none ip_tables bpfilter nftables; do
		m=$(median <"$tmp/$mode.$family")
		printf '  %-10s %8.1f ns  table %8.1f ns\n' "$mode" "$m" \
			"$(echo "$m - $base" | bc -l)"
	done
done
