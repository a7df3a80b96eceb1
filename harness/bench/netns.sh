#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh's namespace. Usage: netns.sh BENCH RULES PACKETS ROUNDS
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/../translate/lib.sh"
bench=$1 rules=$2 packets=$3 rounds=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
setup_netns

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

empty() {
	printf '*filter\nCOMMIT\n' | "$1-legacy-restore"
	"$1-nft" -F 2>/dev/null || true
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

for family in 4 6; do
	ipt=iptables
	[ $family = 6 ] && ipt=ip6tables
	table $family >"$tmp/rules"
	for ((r = 0; r < rounds; r++)); do
		empty $ipt
		"$bench" $family "$packets" >>"$tmp/none.$family"
		"$ipt-legacy-restore" <"$tmp/rules"
		"$bench" $family "$packets" >>"$tmp/ip_tables.$family"
		"$bench" $family "$packets" bpfilter >>"$tmp/bpfilter.$family"
		empty $ipt
		"$ipt-nft-restore" <"$tmp/rules"
		"$bench" $family "$packets" >>"$tmp/nftables.$family"
		empty $ipt
	done
	base=$(median <"$tmp/none.$family")
	echo "IPv$family, $rules rules, $packets packets x $rounds rounds (median ns per packet; cost of the table = minus no table):"
	for mode in none ip_tables bpfilter nftables; do
		m=$(median <"$tmp/$mode.$family")
		printf '  %-10s %8.1f ns  table %8.1f ns\n' "$mode" "$m" \
			"$(echo "$m - $base" | bc -l)"
	done
done
