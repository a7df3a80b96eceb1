#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The benchmark, in the guest (./build.sh bench): for each family, rule set
# variant and N, in a fresh namespace each: iptables-legacy through
# ip_tables, the same through bpfilter, nftables with a rule per line and
# nftables with a set. Measured: the load of the N rules, memory, the
# per-packet cost at OUTPUT of a packet that matches no rule, the middle
# rule or the last one, and one more rule added. Rows go to OUT/bench.csv.
# Usage: guest.sh OUT FAMILIES VARIANTS N... (BENCH_MODES: some modes only)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1 families=$2 variants=$3
shift 3
csv=$out/bench.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; ip netns del bench 2>/dev/null' EXIT
SECONDS_PER_POINT=${BENCH_SECONDS:-0.5}

echo "family,variant,n,mode,metric,value" >"$csv"
row() { echo "$1,$2,$3,$4,$5,$6" >>"$csv"; }
now() { date +%s%N; }
avail() { awk '/^MemAvailable:/ { print $2 }' /proc/meminfo; }

# rule I of variant V, family F, as "ADDR PORTS PKT_ADDR PKT_PORT":
# exact: a /32 or /128 and a port; prefix: /24, /28 or /32 (IPv6: /64,
# /112, /128) and a range of 16 ports.
rule() {
	awk -v f="$1" -v v="$2" -v from="$3" -v to="$4" 'BEGIN {
		for (i = from; i < to; i++) {
			a = int(i / 65536); b = int(i / 256) % 256; c = i % 256
			if (v == "exact") {
				p = 1024 + i % 50000
				if (f == 4)
					printf "10.%d.%d.%d/32 %d 10.%d.%d.%d %d\n", a, b, c, p, a, b, c, p
				else
					printf "2001:db8::%x:%x/128 %d 2001:db8::%x:%x %d\n", a, i % 65536, p, a, i % 65536, p
				continue
			}
			lo = 1024 + (i % 1000) * 16; k = i % 3
			if (f == 4) {
				len = k == 0 ? 24 : (k == 1 ? 28 : 32)
				host = k == 0 ? 0 : (k == 1 ? 16 : 33)
				printf "%d.%d.%d.%d/%d %d-%d %d.%d.%d.%d %d\n", 10 + a, b, c, host, len, lo, lo + 15, 10 + a, b, c, host + 1 - (k == 2), lo + 3
			} else {
				len = k == 0 ? 64 : (k == 1 ? 112 : 128)
				net = k == 0 ? "" : (k == 1 ? "1:0" : "2:1")
				host = k == 0 ? "5" : (k == 1 ? "1:5" : "2:1")
				printf "2001:db8:%x:%x::%s/%d %d-%d 2001:db8:%x:%x::%s %d\n", a, i % 65536, net, len, lo, lo + 15, a, i % 65536, host, lo + 3
			}
		}
	}'
}

# The variants limit and string: N rules that every udp packet runs
# through, each with a match that bpfilter runs in the kernel (the bridge):
# a limit whose one token the first packet takes, a string not in the
# packet. nftables has no string match.
bridged() {
	local f=$1 v=$2 n=$3 mode=$4 ip=ip
	[ "$f" = 6 ] && ip=ip6
	case $mode in
	ip_tables|bpfilter)
		echo '*filter'
		awk -v v="$v" -v n="$n" 'BEGIN { for (i = 0; i < n; i++)
			if (v == "limit")
				print "-A OUTPUT -p udp -m limit --limit 1/hour --limit-burst 1 -j DROP"
			else
				printf "-A OUTPUT -p udp -m string --algo bm --string needle%d -j DROP\n", i }'
		echo COMMIT ;;
	nft-*)
		[ "$v" = limit ] || return 1
		echo "table $ip bench { chain out { type filter hook output priority 0; policy accept;"
		awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) print "meta l4proto udp limit rate 1/hour burst 1 packets drop" }'
		printf '}\n}\n' ;;
	esac
}

# The rule set of N rules for MODE, in the syntax its tool restores.
ruleset() {
	local f=$1 v=$2 n=$3 mode=$4 ip=ip
	[ "$f" = 6 ] && ip=ip6
	case $v in limit|string) bridged "$@"; return ;; esac
	case $mode in
	ip_tables|bpfilter)
		echo '*filter'
		rule "$f" "$v" 0 "$n" | awk '{ sub("-", ":", $2); printf "-A OUTPUT -d %s -p udp -m udp --dport %s -j DROP\n", $1, $2 }'
		echo COMMIT ;;
	nft-lines)
		echo "table $ip bench { chain out { type filter hook output priority 0; policy accept;"
		rule "$f" "$v" 0 "$n" | awk -v ip="$ip" '{ printf "%s daddr %s udp dport %s drop\n", ip, $1, $2 }'
		printf '}\n}\n' ;;
	nft-set)
		local type=ipv4_addr flags=""
		[ "$f" = 6 ] && type=ipv6_addr
		[ "$v" = prefix ] && flags="flags interval;"
		echo "table $ip bench { set s { type $type . inet_service; $flags elements = {"
		rule "$f" "$v" 0 "$n" | awk -v v="$v" '{
			if (v == "exact")
				sub("/[0-9]*$", "", $1)
			printf "%s%s . %s", (NR > 1 ? ",\n" : ""), $1, $2 }'
		printf '}\n}\n'
		echo "chain out { type filter hook output priority 0; policy accept; $ip daddr . udp dport @s drop; }"
		echo "}" ;;
	esac
}

# One rule more, as each tool adds it.
add_one() {
	local f=$1 mode=$2 ipt=iptables-legacy ip=ip a=192.0.2.77
	[ "$f" = 6 ] && ipt=ip6tables-legacy ip=ip6 a=2001:db8:ffff::77
	case $mode in
	ip_tables|bpfilter) ip netns exec bench $ipt -A OUTPUT -d $a -p udp --dport 7 -j DROP ;;
	nft-lines) ip netns exec bench nft add rule $ip bench out $ip daddr $a udp dport 7 drop ;;
	nft-set) ip netns exec bench nft add element $ip bench s "{ $a . 7 }" ;;
	esac
}

setup() {
	ip netns del bench 2>/dev/null
	ip netns add bench
	ip netns exec bench sh -c '
		ip link set lo up
		sysctl -qw net.ipv6.conf.default.addr_gen_mode=1
		ip link add d0 type veth peer name d1
		ip link set d0 arp off up
		ip addr add 192.0.2.254/24 dev d0
		ip -6 addr add 2001:db8:ffff::fe/64 dev d0 nodad
		ip route add default dev d0
		ip -6 route add default dev d0'
}

flood() {
	ip netns exec bench "$here/flood" "$1" "$2" "$3" "$SECONDS_PER_POINT"
}

# point F V N MODE: one column of the table.
point() {
	local f=$1 v=$2 n=$3 mode=$4 t0 t1 m0 m1 line pos pv
	setup
	ruleset "$f" "$v" "$n" "$mode" >"$tmp/rules" ||
		{ echo "# $mode: no $v rules"; return; }
	m0=$(avail)
	t0=$(now)
	case $mode in
	ip_tables|bpfilter)
		if [ "$f" = 6 ]; then
			ip netns exec bench ip6tables-legacy-restore <"$tmp/rules"
		else
			ip netns exec bench iptables-legacy-restore <"$tmp/rules"
		fi ;;
	nft-*) ip netns exec bench nft -f "$tmp/rules" ;;
	esac || { echo "# $mode: load of $n rules failed"; return; }
	t1=$(now)
	m1=$(avail)
	row "$f" "$v" "$n" "$mode" load_ms $(((t1 - t0) / 1000000))
	row "$f" "$v" "$n" "$mode" mem_kb $((m0 - m1))
	if [ "$mode" = bpfilter ]; then
		line=$(ip netns exec bench cat /proc/net/bpfilter | grep "^ipv$f filter")
		row "$f" "$v" "$n" "$mode" prog_insns "$(sed -n 's/.*insns=\([0-9]*\).*/\1/p' <<<"$line")"
		[ -n "$line" ] || echo "# bpfilter: $n rules of IPv$f ($v) served by ip_tables"
	fi
	# limit and string rules do not look at addresses: any will do.
	pv=$v
	case $v in limit|string) pv=exact ;; esac
	for pos in none middle last; do
		[ "$n" = 0 ] && [ $pos != none ] && continue
		case $pos in
		none) line=$([ "$f" = 6 ] && echo "x x 2001:db8:ffff::1 9" || echo "x x 192.0.2.1 9") ;;
		middle) line=$(rule "$f" "$pv" $((n / 2)) $((n / 2 + 1))) ;;
		last) line=$(rule "$f" "$pv" $((n - 1)) "$n") ;;
		esac
		set -- $line
		row "$f" "$v" "$n" "$mode" "ns_$pos" "$(flood "$f" "$3" "$4")"
	done
	t0=$(now)
	add_one "$f" "$mode"
	t1=$(now)
	row "$f" "$v" "$n" "$mode" add_ms $(((t1 - t0) / 1000000))
	ip netns del bench
}

# The empty namespace, then the floor of issue 19: a netfilter program
# that only accepts, at the filter table's place in LOCAL_OUT (floor.c).
baseline() {
	local dst=192.0.2.1 pid
	[ "$1" = 6 ] && dst=2001:db8:ffff::1
	setup
	row "$1" none 0 none ns_none "$(flood "$1" $dst 9)"
	ip netns exec bench "$here/floor" "$1" >"$tmp/floor" &
	pid=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		grep -q ready "$tmp/floor" && break
		sleep 0.5
	done
	if grep -q ready "$tmp/floor"; then
		row "$1" floor 0 floor ns_none "$(flood "$1" $dst 9)"
	else
		echo "# floor: no netfilter program attached"
	fi
	kill $pid
	wait $pid 2>/dev/null
	ip netns del bench
}

modprobe -r bpfilter 2>/dev/null
for mode in ${BENCH_MODES:-ip_tables bpfilter nft-lines nft-set}; do
	[ "$mode" = bpfilter ] && { modprobe bpfilter || exit 1; }
	for f in $families; do
		[ "$mode" = ip_tables ] && baseline "$f"
		for v in $variants; do
			for n in "$@"; do
				echo "# IPv$f $v $n: $mode"
				point "$f" "$v" "$n" "$mode"
			done
		done
	done
done
