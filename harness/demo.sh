#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ./build.sh's demo, run in the guest: iptables-legacy rules served by
# bpfilter's BPF program, packets through a veth pair between two network
# namespaces, counters read back. Exits non-zero if anything is not as
# shown.
set -u
say() { printf '\n\033[1m## %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }
fail() { printf '\nDEMO FAILED: %s\n' "$*"; exit 1; }
A="ip netns exec demo-a" B="ip netns exec demo-b"

say "kernel $(uname -r); load bpfilter.ko"
run modprobe bpfilter || fail "modprobe bpfilter"
run lsmod | grep -E '^(bpfilter|ip_tables|ip6_tables) '

say "two namespaces joined by a veth pair: demo-a 10.0.0.1 <-> demo-b 10.0.0.2"
ip netns add demo-a && ip netns add demo-b || fail "ip netns add"
trap 'ip netns del demo-a; ip netns del demo-b' EXIT
ip link add va netns demo-a type veth peer name vb netns demo-b
$A ip addr add 10.0.0.1/24 dev va && $A ip link set va up && $A ip link set lo up
$B ip addr add 10.0.0.2/24 dev vb && $B ip link set vb up && $B ip link set lo up

say "iptables-legacy rules in demo-b: drop TCP to port 22, count pings"
run $B iptables-legacy -A INPUT -p tcp --dport 22 -j DROP
run $B iptables-legacy -A INPUT -p icmp --icmp-type echo-request -j ACCEPT

say "bpfilter compiled the table: /proc/net/bpfilter of demo-b"
run $B cat /proc/net/bpfilter
grep -q '^ipv4 filter .* prog=' <($B cat /proc/net/bpfilter) ||
	fail "bpfilter does not serve demo-b's table"
if command -v bpftool >/dev/null; then
	say "the program, as bpftool sees it"
	prog=$($B sed -n 's/^ipv4 filter .* prog=\([0-9]*\).*/\1/p' /proc/net/bpfilter)
	run bpftool prog show id "$prog"
fi

say "packets: ping demo-a -> demo-b passes, TCP to port 22 is dropped"
echo "\$ $A ping -c 3 -i 0.2 -W 1 10.0.0.2"
$A ping -c 3 -i 0.2 -W 1 10.0.0.2 | grep ' 0% packet loss' || fail "pings were dropped"
if run $A timeout 2 bash -c 'echo >/dev/tcp/10.0.0.2/22' 2>/dev/null; then
	fail "TCP to port 22 went through"
fi
echo "tcp/22: no answer (dropped)"

say "counters, read back with iptables-legacy -L -v -x"
run $B iptables-legacy -L INPUT -v -x -n
counters=$($B iptables-legacy -L INPUT -v -x -n)
awk '$3 == "DROP" && ($4 == "6" || $4 == "tcp") && $1 > 0 { found = 1 } END { exit !found }' <<<"$counters" ||
	fail "the DROP rule counted no packet"
awk '$3 == "ACCEPT" && ($4 == "1" || $4 == "icmp") && $1 >= 3 { found = 1 } END { exit !found }' <<<"$counters" ||
	fail "the ping rule counted fewer than 3 packets"

say "flush: the table is back to its initial state, still compiled"
run $B iptables-legacy -F
run $B cat /proc/net/bpfilter
echo
echo "DEMO OK: rules compiled to BPF, enforced and counted."
