#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The real-world shapes of issue 19, in the guest (./build.sh bench with
# BENCH_SHAPES): filter tables as Docker, ufw, fail2ban and a CIS-like
# default-drop server write them, IPv4, each loaded through ip_tables,
# through bpfilter, and as iptables-restore-translate makes it for
# nftables; and the same traffic without rules ("none") and with a
# netfilter program that only accepts at the three filter hooks
# ("floor"). A client namespace, peer, talks to the namespace with the
# table, bench (ufw, fail2ban, CIS: its INPUT and OUTPUT), or through it
# to a container, far, behind its docker0 (Docker: its FORWARD). The
# kinds of traffic, traffic.c: an established TCP connection (64 bytes
# and their echo), a new one to an open port, a SYN to a closed port, a
# UDP datagram, an ICMP echo. Rows go to OUT/shapes.csv.
# Usage: shapes.sh OUT SHAPES...
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
shift
csv=$out/shapes.csv
tmp=$(mktemp -d)
pids=""
trap 'kill $pids 2>/dev/null; rm -rf "$tmp"; cleanup' EXIT
SECONDS_PER_POINT=${BENCH_SECONDS:-0.5}
KINDS="est new syn udp icmp"
# The open TCP port, the closed one and the UDP port of each shape.
OPEN=22 CLOSED=81 UDP=53

echo "shape,rules,mode,kind,value" >"$csv"

cleanup() {
	local n

	for n in peer bench far; do
		ip netns del $n 2>/dev/null
	done
}

# docker: the filter table of Docker 26 with its default bridge and two
# user networks, a published port on each container (80 here).
docker() {
	local br
	cat <<'EOF'
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
:DOCKER - [0:0]
:DOCKER-ISOLATION-STAGE-1 - [0:0]
:DOCKER-ISOLATION-STAGE-2 - [0:0]
:DOCKER-USER - [0:0]
-A FORWARD -j DOCKER-USER
-A FORWARD -j DOCKER-ISOLATION-STAGE-1
EOF
	for br in br-5f1d2c3b4a69 br-0a9e8d7c6b5a docker0; do
		echo "-A FORWARD -o $br -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT"
		echo "-A FORWARD -o $br -j DOCKER"
		echo "-A FORWARD -i $br ! -o $br -j ACCEPT"
		echo "-A FORWARD -i $br -o $br -j ACCEPT"
	done
	echo "-A DOCKER -d 172.19.0.2/32 ! -i br-5f1d2c3b4a69 -o br-5f1d2c3b4a69 -p tcp -m tcp --dport 80 -j ACCEPT"
	echo "-A DOCKER -d 172.18.0.2/32 ! -i br-0a9e8d7c6b5a -o br-0a9e8d7c6b5a -p tcp -m tcp --dport 80 -j ACCEPT"
	echo "-A DOCKER -d 172.17.0.2/32 ! -i docker0 -o docker0 -p tcp -m tcp --dport $OPEN -j ACCEPT"
	for br in br-5f1d2c3b4a69 br-0a9e8d7c6b5a docker0; do
		echo "-A DOCKER-ISOLATION-STAGE-1 -i $br ! -o $br -j DOCKER-ISOLATION-STAGE-2"
	done
	echo "-A DOCKER-ISOLATION-STAGE-1 -j RETURN"
	for br in br-5f1d2c3b4a69 br-0a9e8d7c6b5a docker0; do
		echo "-A DOCKER-ISOLATION-STAGE-2 -o $br -j DROP"
	done
	echo "-A DOCKER-ISOLATION-STAGE-2 -j RETURN"
	echo "-A DOCKER-USER -j RETURN"
	echo COMMIT
}

# ufw: what ufw 0.36 writes with "default deny incoming", logging low and
# "allow 22/tcp" (before.rules, after.rules, user.rules).
ufw() {
	local c s
	echo '*filter'
	echo ':INPUT DROP [0:0]'
	echo ':FORWARD DROP [0:0]'
	echo ':OUTPUT ACCEPT [0:0]'
	for c in after-forward after-input after-logging-forward \
		after-logging-input after-logging-output after-output \
		before-forward before-input before-logging-forward \
		before-logging-input before-logging-output before-output \
		logging-allow logging-deny not-local reject-forward reject-input \
		reject-output skip-to-policy-forward skip-to-policy-input \
		skip-to-policy-output track-forward track-input track-output \
		user-forward user-input user-limit user-limit-accept \
		user-logging-forward user-logging-input user-logging-output \
		user-output; do
		echo ":ufw-$c - [0:0]"
	done
	for c in INPUT:input FORWARD:forward OUTPUT:output; do
		for s in before-logging before after after-logging reject track; do
			echo "-A ${c%%:*} -j ufw-$s-${c#*:}"
		done
	done
	cat <<'EOF'
-A ufw-after-input -p udp -m udp --dport 137 -j ufw-skip-to-policy-input
-A ufw-after-input -p udp -m udp --dport 138 -j ufw-skip-to-policy-input
-A ufw-after-input -p tcp -m tcp --dport 139 -j ufw-skip-to-policy-input
-A ufw-after-input -p tcp -m tcp --dport 445 -j ufw-skip-to-policy-input
-A ufw-after-input -p udp -m udp --dport 67 -j ufw-skip-to-policy-input
-A ufw-after-input -p udp -m udp --dport 68 -j ufw-skip-to-policy-input
-A ufw-after-input -m addrtype --dst-type BROADCAST -j ufw-skip-to-policy-input
-A ufw-after-logging-forward -m limit --limit 3/min --limit-burst 10 -j LOG --log-prefix "[UFW BLOCK] "
-A ufw-after-logging-input -m limit --limit 3/min --limit-burst 10 -j LOG --log-prefix "[UFW BLOCK] "
-A ufw-before-forward -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A ufw-before-forward -p icmp -m icmp --icmp-type 3 -j ACCEPT
-A ufw-before-forward -p icmp -m icmp --icmp-type 11 -j ACCEPT
-A ufw-before-forward -p icmp -m icmp --icmp-type 12 -j ACCEPT
-A ufw-before-forward -p icmp -m icmp --icmp-type 8 -j ACCEPT
-A ufw-before-forward -j ufw-user-forward
-A ufw-before-input -i lo -j ACCEPT
-A ufw-before-input -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A ufw-before-input -m conntrack --ctstate INVALID -j ufw-logging-deny
-A ufw-before-input -m conntrack --ctstate INVALID -j DROP
-A ufw-before-input -p icmp -m icmp --icmp-type 3 -j ACCEPT
-A ufw-before-input -p icmp -m icmp --icmp-type 11 -j ACCEPT
-A ufw-before-input -p icmp -m icmp --icmp-type 12 -j ACCEPT
-A ufw-before-input -p icmp -m icmp --icmp-type 8 -j ACCEPT
-A ufw-before-input -p udp -m udp --sport 67 --dport 68 -j ACCEPT
-A ufw-before-input -j ufw-not-local
-A ufw-before-input -d 224.0.0.251/32 -p udp -m udp --dport 5353 -j ACCEPT
-A ufw-before-input -d 239.255.255.250/32 -p udp -m udp --dport 1900 -j ACCEPT
-A ufw-before-input -j ufw-user-input
-A ufw-before-output -o lo -j ACCEPT
-A ufw-before-output -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A ufw-before-output -j ufw-user-output
-A ufw-logging-allow -m limit --limit 3/min --limit-burst 10 -j LOG --log-prefix "[UFW ALLOW] "
-A ufw-logging-deny -m conntrack --ctstate INVALID -m limit --limit 3/min --limit-burst 10 -j RETURN
-A ufw-logging-deny -m limit --limit 3/min --limit-burst 10 -j LOG --log-prefix "[UFW BLOCK] "
-A ufw-not-local -m addrtype --dst-type LOCAL -j RETURN
-A ufw-not-local -m addrtype --dst-type MULTICAST -j RETURN
-A ufw-not-local -m addrtype --dst-type BROADCAST -j RETURN
-A ufw-not-local -m limit --limit 3/min --limit-burst 10 -j ufw-logging-deny
-A ufw-not-local -j DROP
-A ufw-skip-to-policy-forward -j DROP
-A ufw-skip-to-policy-input -j DROP
-A ufw-skip-to-policy-output -j ACCEPT
-A ufw-track-output -p tcp -m conntrack --ctstate NEW -j ACCEPT
-A ufw-track-output -p udp -m conntrack --ctstate NEW -j ACCEPT
-A ufw-user-input -p tcp -m tcp --dport 22 -j ACCEPT
-A ufw-user-limit -m limit --limit 3/min -j LOG --log-prefix "[UFW LIMIT BLOCK] "
-A ufw-user-limit -j REJECT --reject-with icmp-port-unreachable
-A ufw-user-limit-accept -j ACCEPT
COMMIT
EOF
}

# fail2ban: its sshd jail with BANS addresses banned, on a server that
# otherwise accepts.
fail2ban() {
	echo '*filter'
	echo ':INPUT ACCEPT [0:0]'
	echo ':FORWARD ACCEPT [0:0]'
	echo ':OUTPUT ACCEPT [0:0]'
	echo ':f2b-sshd - [0:0]'
	echo '-A INPUT -p tcp -m multiport --dports 22 -j f2b-sshd'
	awk -v n="${BENCH_BANS:-200}" 'BEGIN { for (i = n - 1; i >= 0; i--)
		printf "-A f2b-sshd -s 198.51.%d.%d/32 -j REJECT --reject-with icmp-port-unreachable\n",
			int(i / 250), i % 250 + 1 }'
	echo '-A f2b-sshd -j RETURN'
	echo COMMIT
}

# cis: a default-drop server as the CIS benchmarks' iptables section has
# it, with ssh open.
cis() {
	cat <<'EOF'
*filter
:INPUT DROP [0:0]
:FORWARD DROP [0:0]
:OUTPUT DROP [0:0]
-A INPUT -i lo -j ACCEPT
-A INPUT -s 127.0.0.0/8 -j DROP
-A INPUT -p tcp -m state --state ESTABLISHED -j ACCEPT
-A INPUT -p udp -m state --state ESTABLISHED -j ACCEPT
-A INPUT -p icmp -m state --state ESTABLISHED -j ACCEPT
-A INPUT -p tcp -m tcp --dport 22 -m state --state NEW -j ACCEPT
-A OUTPUT -o lo -j ACCEPT
-A OUTPUT -p tcp -m state --state NEW,ESTABLISHED -j ACCEPT
-A OUTPUT -p udp -m state --state NEW,ESTABLISHED -j ACCEPT
-A OUTPUT -p icmp -m state --state NEW,ESTABLISHED -j ACCEPT
COMMIT
EOF
}

# setup: peer 10.9.0.2 -- eth0 10.9.0.1 bench docker0 172.17.0.1 --
# 172.17.0.2 far; servers in bench and far.
setup() {
	local n
	cleanup
	for n in peer bench far; do
		ip netns add $n
		ip -n $n link set lo up
	done
	ip -n peer link add p0 type veth peer name eth0 netns bench
	ip -n bench link add docker0 type veth peer name c0 netns far
	ip -n peer addr add 10.9.0.2/24 dev p0
	ip -n bench addr add 10.9.0.1/24 dev eth0
	ip -n bench addr add 172.17.0.1/16 dev docker0
	ip -n far addr add 172.17.0.2/16 dev c0
	ip -n peer link set p0 up
	ip -n bench link set eth0 up
	ip -n bench link set docker0 up
	ip -n far link set c0 up
	ip -n peer route add 172.17.0.0/16 via 10.9.0.1
	ip -n far route add default via 172.17.0.1
	ip netns exec bench sysctl -qw net.ipv4.ip_forward=1
	ip netns exec peer sysctl -qw net.ipv4.ping_group_range="0 2147483647"
	for n in bench far; do
		ip netns exec $n "$here/traffic" serve $OPEN $UDP >"$tmp/$n" &
		pids="$pids $!"
	done
	for _ in $(seq 50); do
		grep -q ready "$tmp/bench" && grep -q ready "$tmp/far" && return
		sleep 0.1
	done
	echo "# traffic servers did not start"
	return 1
}

# load SHAPE MODE: the shape's table in bench, as MODE loads it.
load() {
	"$1" >"$tmp/rules"
	case $2 in
	ip_tables|bpfilter) ip netns exec bench iptables-legacy-restore <"$tmp/rules" ;;
	nft) iptables-restore-translate -f "$tmp/rules" >"$tmp/nft" &&
		ip netns exec bench nft -f "$tmp/nft" ;;
	floor) ip netns exec bench "$here/floor" 4 1 2 3 >"$tmp/floor" &
		pids="$pids $!"
		for _ in $(seq 20); do
			grep -q ready "$tmp/floor" && return 0
			sleep 0.5
		done
		return 1 ;;
	none) ;;
	esac
}

# point SHAPE MODE: each kind of traffic through the shape's table.
point() {
	local shape=$1 mode=$2 dst=10.9.0.1 kind rules
	[ "$shape" = docker ] && dst=172.17.0.2
	setup || return
	load "$shape" "$mode" || { echo "# $shape: $mode failed to load"; return; }
	rules=$("$shape" | grep -c '^-A')
	if [ "$mode" = bpfilter ] &&
	   ! ip netns exec bench grep -q '^ipv4 filter' /proc/net/bpfilter; then
		echo "# $shape: bpfilter did not take the table"
		return
	fi
	for kind in $KINDS; do
		case $kind in
		est|new) set -- "$dst" $OPEN ;;
		syn) set -- "$dst" $CLOSED ;;
		udp) set -- "$dst" $UDP ;;
		icmp) set -- "$dst" ;;
		esac
		echo "$shape,$rules,$mode,$kind,$(ip netns exec peer \
			"$here/traffic" $kind "$@" "$SECONDS_PER_POINT")" >>"$csv"
	done
	kill $pids 2>/dev/null
	wait $pids 2>/dev/null
	pids=""
}

modprobe -r bpfilter 2>/dev/null
for mode in ${BENCH_SHAPE_MODES:-none floor ip_tables bpfilter nft}; do
	[ "$mode" = bpfilter ] && { modprobe bpfilter || exit 1; }
	for shape in "$@"; do
		echo "# $shape: $mode"
		point "$shape" "$mode"
	done
done
