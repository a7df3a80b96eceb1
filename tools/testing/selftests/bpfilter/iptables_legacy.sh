#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iptables-legacy and ip6tables-legacy as an administrator uses them, with
# real packets through a veth pair between two network namespaces: what is
# accepted, what is dropped, the counters, and the exact iptables-save text.
# These are the behaviours bpfilter must keep; they pass with ip_tables
# alone, and must pass the same with bpfilter loaded.

source ../net/lib.sh

ret=0
PY=python3

cleanup()
{
	cleanup_all_ns
}

check()
{
	local what=$1
	shift

	if "$@"; then
		echo "PASS: $what"
	else
		echo "FAIL: $what"
		ret=1
	fi
}

# same_text GOT WANT: equal, or show the difference.
same_text()
{
	[ "$1" = "$2" ] && return 0
	diff -u <(echo "$2") <(echo "$1")
	return 1
}

for tool in iptables-legacy ip6tables-legacy iptables-legacy-save ip ${PY}; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP: $tool not found"
		exit "$ksft_skip"
	fi
done

trap cleanup EXIT
# The interface is the same with bpfilter and with ip_tables alone: test
# bpfilter where the kernel has it, unless BPFILTER_MODE=ip_tables.
if [ "${BPFILTER_MODE:-bpfilter}" != ip_tables ]; then
	modprobe -q bpfilter || echo "# no bpfilter module: ip_tables alone"
fi
setup_ns client server || exit "$ksft_skip"

ip link add veth0 netns "$client" type veth peer name veth0 netns "$server" ||
	exit "$ksft_skip"
ip -net "$client" addr add 10.0.1.1/24 dev veth0
ip -net "$client" addr add dead:1::1/64 dev veth0 nodad
ip -net "$server" addr add 10.0.1.2/24 dev veth0
ip -net "$server" addr add dead:1::2/64 dev veth0 nodad
ip -net "$client" link set veth0 up
ip -net "$server" link set veth0 up

# listening OUT CMD...: CMD in the background, its output in OUT; true
# once it printed "ready", its pid in $listener; else it is killed.
listening()
{
	local out=$1

	shift
	"$@" >"$out" &
	listener=$!
	slowwait 60 grep -q ready "$out" && return 0
	kill $listener
	return 1
}

# send_recv ADDR PORT N [GAP]: N datagrams from client to server, GAP
# seconds apart; prints how many arrived. Delivery over veth is done when the sender returns; the
# receiver then drains its socket and stops.
send_recv()
{
	local addr=$1 port=$2 n=$3 gap=${4:-0}

	rm -f "$tmp.stop"
	listening "$tmp" ip netns exec "$server" $PY -c '
import os, socket, sys
addr, port, stop = sys.argv[1], int(sys.argv[2]), sys.argv[3]
fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
s.bind((addr, port))
s.settimeout(0.2)
sys.stdout.write("ready\n"); sys.stdout.flush()
got = 0
while True:
    try:
        s.recv(2048)
        got += 1
    except socket.timeout:
        if os.path.exists(stop):
            break
print(got)
' "$addr" "$port" "$tmp.stop" || { echo -1; return; }
	ip netns exec "$client" $PY -c '
import socket, sys, time
addr, port, n, gap = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    float(sys.argv[4])
fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
for i in range(n):
    s.sendto(b"x" * 72, (addr, port))
    time.sleep(gap)
' "$addr" "$port" "$n" "$gap"
	touch "$tmp.stop"
	wait $listener
	tail -n 1 "$tmp"
}

# counters NS IPT CHAIN RULE: "packets bytes" of rule number RULE.
counters()
{
	ip netns exec "$1" "$2" -L "$3" -v -x -n | awk -v r="$4" 'NR == r + 2 { print $1, $2 }'
}

tmp=$(mktemp)
trap 'cleanup; rm -f "$tmp" "$tmp".*' EXIT

test_udp_drop()
{
	local ipt=$1 addr=$2 hdr=$3 got c

	ip netns exec "$server" "$ipt" -A INPUT -p udp --dport 5001 -j DROP
	ip netns exec "$server" "$ipt" -A INPUT -p udp --dport 5000 -j ACCEPT

	got=$(send_recv "$addr" 5001 10)
	check "$ipt: DROP rule drops udp to 5001 (got $got)" [ "$got" = 0 ]
	got=$(send_recv "$addr" 5000 10)
	check "$ipt: udp to 5000 arrives (got $got)" [ "$got" = 10 ]

	# 72 bytes of payload, 8 of udp header, and the IP header.
	c=$(counters "$server" "$ipt" INPUT 1)
	check "$ipt: DROP rule counted 10 packets ($c)" [ "$c" = "10 $((10 * (80 + hdr)))" ]
	c=$(counters "$server" "$ipt" INPUT 2)
	check "$ipt: ACCEPT rule counted 10 packets ($c)" [ "$c" = "10 $((10 * (80 + hdr)))" ]

	ip netns exec "$server" "$ipt" -D INPUT 1
	got=$(send_recv "$addr" 5001 10)
	check "$ipt: udp to 5001 arrives after -D (got $got)" [ "$got" = 10 ]

	ip netns exec "$server" "$ipt" -P INPUT DROP
	got=$(send_recv "$addr" 5001 10)
	check "$ipt: policy DROP drops udp to 5001 (got $got)" [ "$got" = 0 ]
	got=$(send_recv "$addr" 5000 10)
	check "$ipt: ACCEPT rule still accepts under policy DROP (got $got)" [ "$got" = 10 ]
	ip netns exec "$server" "$ipt" -P INPUT ACCEPT
	ip netns exec "$server" "$ipt" -F INPUT
}

test_user_chain()
{
	local ipt=$1 addr=$2 got

	ip netns exec "$server" "$ipt" -N udpin
	ip netns exec "$server" "$ipt" -A udpin -p udp --dport 5002 -j DROP
	ip netns exec "$server" "$ipt" -A udpin -j RETURN
	ip netns exec "$server" "$ipt" -A INPUT -p udp -j udpin
	got=$(send_recv "$addr" 5002 5)
	check "$ipt: drop in a user chain (got $got)" [ "$got" = 0 ]
	got=$(send_recv "$addr" 5003 5)
	check "$ipt: RETURN from a user chain (got $got)" [ "$got" = 5 ]
	ip netns exec "$server" "$ipt" -F
	ip netns exec "$server" "$ipt" -X udpin
}

# refused ADDR PROTO PORT: the client's connection or datagram to the
# server is refused (a TCP reset, or an ICMP port unreachable).
refused()
{
	ip netns exec "$client" $PY -c '
import socket, sys
addr, proto, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
s = socket.socket(fam, socket.SOCK_STREAM if proto == "tcp" else
                  socket.SOCK_DGRAM)
s.settimeout(5)
try:
    s.connect((addr, port))
    s.send(b"x")
    s.recv(10)
except ConnectionRefusedError:
    sys.exit(0)
except OSError as e:
    print(e)
sys.exit(1)
' "$1" "$2" "$3"
}

test_reject_log()
{
	local ipt=$1 addr=$2 prefix c

	prefix="bpfilter-test-$RANDOM: "
	ip netns exec "$server" "$ipt" -A INPUT -p tcp --dport 5010 \
		-j REJECT --reject-with tcp-reset
	ip netns exec "$server" "$ipt" -A INPUT -p udp --dport 5011 \
		-j LOG --log-prefix "$prefix"
	ip netns exec "$server" "$ipt" -A INPUT -p udp --dport 5011 -j REJECT
	check "$ipt: REJECT --reject-with tcp-reset refuses a connection" \
		refused "$addr" tcp 5010
	check "$ipt: REJECT refuses a datagram (port unreachable)" \
		refused "$addr" udp 5011
	c=$(counters "$server" "$ipt" INPUT 1)
	check "$ipt: REJECT rule counted the SYN ($c)" [ "${c%% *}" = 1 ]
	c=$(counters "$server" "$ipt" INPUT 2)
	check "$ipt: LOG rule counted the datagram ($c)" [ "${c%% *}" = 1 ]
	check "$ipt: LOG wrote the packet to the kernel log" \
		grep -q "$prefix" <(dmesg)
	ip netns exec "$server" "$ipt" -F INPUT
}

# served_by NS IPT: "bpfilter" if bpfilter serves NS's filter table of
# IPT's family, else "ip_tables".
served_by()
{
	local fam=ipv4

	[ "$2" = ip6tables-legacy ] && fam=ipv6
	if ip netns exec "$1" cat /proc/net/bpfilter 2>/dev/null |
	   grep -q "^$fam filter .*prog="; then
		echo bpfilter
	else
		echo ip_tables
	fi
}

# Matches that bpfilter's helper does not compile run in the kernel, as
# ip_tables runs them: limit's bucket passes its burst then stops, ttl/hl
# and a conntrack option other than --ctstate alone decide as they would.
# With bpfilter, the table is its own (the bridge), and with bridge=N it
# is ip_tables' again, with the same packets through.
test_kernel_matches()
{
	local ipt=$1 addr=$2 hop=ttl want c got bridge=/sys/module/bpfilter/parameters/bridge

	[ "$ipt" = ip6tables-legacy ] && hop=hl
	want=ip_tables
	[ -w "$bridge" ] && want=bpfilter
	ip netns exec "$server" "$ipt" -A INPUT -p udp --dport 5040 \
		-m limit --limit 1/hour --limit-burst 3 -j ACCEPT
	ip netns exec "$server" "$ipt" -A INPUT -p udp --dport 5040 -j DROP
	ip netns exec "$server" "$ipt" -A INPUT -p udp --dport 5041 \
		-m $hop --$hop-lt 2 -j DROP
	ip netns exec "$server" "$ipt" -A INPUT -p udp --dport 5041 \
		-m $hop --$hop-gt 2 -j DROP
	ip netns exec "$server" "$ipt" -A INPUT -p udp --dport 5042 \
		-m conntrack --ctstatus ASSURED -j DROP
	ip netns exec "$server" "$ipt" -A INPUT -p udp --dport 5043 \
		-m conntrack ! --ctstatus ASSURED -j DROP
	check "$ipt: a table with limit, $hop and conntrack --ctstatus is served by $want" \
		[ "$(served_by "$server" "$ipt")" = "$want" ]
	got=$(send_recv "$addr" 5040 10)
	check "$ipt: limit passes its burst of 3 (got $got)" [ "$got" = 3 ]
	c=$(counters "$server" "$ipt" INPUT 1)
	check "$ipt: the limit rule counted 3 packets ($c)" [ "${c%% *}" = 3 ]
	c=$(counters "$server" "$ipt" INPUT 2)
	check "$ipt: the DROP after it counted 7 ($c)" [ "${c%% *}" = 7 ]
	# Each of these decides, both ways: a match run in the wrong place,
	# or not at all, gets one of them wrong.
	got=$(send_recv "$addr" 5041 10)
	check "$ipt: --$hop-gt 2 drops hop limit 64, --$hop-lt 2 does not (got $got)" \
		[ "$got" = 0 ]
	c=$(counters "$server" "$ipt" INPUT 3)
	check "$ipt: the --$hop-lt 2 rule counted nothing ($c)" [ "${c%% *}" = 0 ]
	c=$(counters "$server" "$ipt" INPUT 4)
	check "$ipt: the --$hop-gt 2 rule counted 10 ($c)" [ "${c%% *}" = 10 ]
	got=$(send_recv "$addr" 5042 10)
	check "$ipt: --ctstatus ASSURED does not match a one-way flow (got $got)" [ "$got" = 10 ]
	got=$(send_recv "$addr" 5043 10)
	check "$ipt: ! --ctstatus ASSURED matches it (got $got)" [ "$got" = 0 ]

	if [ "$want" = bpfilter ]; then
		# Each replace checks the matches anew: a new bucket.
		echo N >"$bridge"
		ip netns exec "$server" "$ipt" -Z
		ip netns exec "$server" "$ipt" -A INPUT -p udp --dport 5044 -j DROP
		check "$ipt: with bridge=N, ip_tables serves the table" \
			[ "$(served_by "$server" "$ipt")" = ip_tables ]
		got=$(send_recv "$addr" 5040 10)
		check "$ipt: ip_tables' limit passes its burst of 3 too (got $got)" [ "$got" = 3 ]
		echo Y >"$bridge"
		ip netns exec "$server" "$ipt" -D INPUT 7
		check "$ipt: with bridge=Y again, bpfilter serves it" \
			[ "$(served_by "$server" "$ipt")" = bpfilter ]
		got=$(send_recv "$addr" 5040 10)
		check "$ipt: a new limit, a new burst of 3 (got $got)" [ "$got" = 3 ]
	fi
	ip netns exec "$server" "$ipt" -F INPUT
}

# connect_mss ADDR PORT: a TCP connection from client to server; prints
# the MSS the server's socket took from the client's SYN, or -1.
connect_mss()
{
	local addr=$1 port=$2

	listening "$tmp" ip netns exec "$server" $PY -c '
import socket, sys
addr, port = sys.argv[1], int(sys.argv[2])
fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
s = socket.socket(fam, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((addr, port))
s.listen(1)
s.settimeout(30)
sys.stdout.write("ready\n"); sys.stdout.flush()
try:
    c, _ = s.accept()
    print(c.getsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG))
except OSError:
    print(-1)
' "$addr" "$port" || { echo -1; return; }
	ip netns exec "$client" $PY -c '
import socket, sys
addr, port = sys.argv[1], int(sys.argv[2])
fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
try:
    socket.create_connection((addr, port), timeout=10).close()
except OSError:
    pass
' "$addr" "$port"
	wait $listener
	tail -n 1 "$tmp"
}

# queued QUEUE ADDR PORT: 10 datagrams to the server while a listener on
# the server's nfnetlink queue QUEUE accepts what it gets; prints how many
# the listener got and how many the server received.
queued()
{
	local got

	listening "$tmp.q" ip netns exec "$server" $PY ./nfqueue_accept.py \
		"$1" 3 || { echo -1; return; }
	got=$(send_recv "$2" "$3" 10)
	wait $listener
	echo "$(tail -n 1 "$tmp.q") $got"
}

# Targets that bpfilter's helper does not compile run in the kernel, as
# ip_tables runs them: MARK changes the mark that a later rule reads,
# NFQUEUE queues (with no listener: dropped, or let through with
# --queue-bypass), NFLOG lets the packet go on to the next rule, TCPMSS
# rewrites the MSS of the SYN that the server then sees. Each table is
# bpfilter's when the bridge is on.
test_kernel_targets()
{
	local ipt=$1 addr=$2 want c got mss bridge=/sys/module/bpfilter/parameters/bridge

	want=ip_tables
	[ -w "$bridge" ] && want=bpfilter
	ip netns exec "$server" "$ipt" -A INPUT -p udp --dport 5050 \
		-j MARK --set-mark 7
	ip netns exec "$server" "$ipt" -A INPUT -p udp --dport 5050 \
		-m mark --mark 7 -j DROP
	ip netns exec "$server" "$ipt" -A INPUT -p udp --dport 5051 \
		-j NFQUEUE --queue-num 3
	ip netns exec "$server" "$ipt" -A INPUT -p udp --dport 5052 \
		-j NFQUEUE --queue-num 3 --queue-bypass
	ip netns exec "$server" "$ipt" -A INPUT -p udp --dport 5053 \
		-j NFLOG --nflog-group 5
	ip netns exec "$server" "$ipt" -A INPUT -p udp --dport 5053 -j DROP
	ip netns exec "$server" "$ipt" -A INPUT -p tcp --dport 5054 \
		-m tcpmss --mss 1000 -j ACCEPT
	ip netns exec "$client" "$ipt" -A OUTPUT -p tcp --dport 5054 \
		--tcp-flags SYN,RST SYN -j TCPMSS --set-mss 1000
	check "$ipt: a table with MARK, NFQUEUE and NFLOG is served by $want" \
		[ "$(served_by "$server" "$ipt")" = "$want" ]
	check "$ipt: a table with TCPMSS is served by $want" \
		[ "$(served_by "$client" "$ipt")" = "$want" ]

	got=$(send_recv "$addr" 5050 10)
	check "$ipt: MARK's mark is seen by the next rule, which drops (got $got)" \
		[ "$got" = 0 ]
	c=$(counters "$server" "$ipt" INPUT 2)
	check "$ipt: the mark rule counted 10 ($c)" [ "${c%% *}" = 10 ]
	got=$(send_recv "$addr" 5051 10)
	check "$ipt: NFQUEUE with no listener drops (got $got)" [ "$got" = 0 ]
	got=$(send_recv "$addr" 5052 10)
	check "$ipt: NFQUEUE --queue-bypass with no listener accepts (got $got)" \
		[ "$got" = 10 ]
	c=$(counters "$server" "$ipt" INPUT 4)
	check "$ipt: the bypass rule counted 10 ($c)" [ "${c%% *}" = 10 ]
	got=$(send_recv "$addr" 5053 10)
	check "$ipt: after NFLOG the next rule drops (got $got)" [ "$got" = 0 ]
	c=$(counters "$server" "$ipt" INPUT 6)
	check "$ipt: the DROP after NFLOG counted 10 ($c)" [ "${c%% *}" = 10 ]
	mss=$(connect_mss "$addr" 5054)
	check "$ipt: the server's connection has the clamped MSS (got $mss)" \
		[ "$mss" -gt 0 -a "$mss" -le 1000 ]
	c=$(counters "$server" "$ipt" INPUT 7)
	check "$ipt: the server saw an MSS of 1000 in the SYN ($c)" [ "${c%% *}" = 1 ]
	ip netns exec "$server" "$ipt" -F INPUT
	ip netns exec "$client" "$ipt" -F OUTPUT

	# -j QUEUE is a standard verdict that no program can return: it
	# runs in the module too, and queues to queue 0.
	ip netns exec "$server" "$ipt" -A INPUT -p udp --dport 5055 -j QUEUE
	ip netns exec "$server" "$ipt" -A INPUT -p udp --dport 5056 \
		-j NFQUEUE --queue-num 3
	check "$ipt: a table with -j QUEUE is served by $want" \
		[ "$(served_by "$server" "$ipt")" = "$want" ]
	got=$(send_recv "$addr" 5055 10)
	check "$ipt: -j QUEUE with no listener drops (got $got)" [ "$got" = 0 ]
	got=$(queued 0 "$addr" 5055)
	check "$ipt: -j QUEUE queues to queue 0, whose listener lets 10 through (got $got)" \
		[ "$got" = "10 10" ]
	got=$(queued 3 "$addr" 5056)
	check "$ipt: NFQUEUE --queue-num 3 queues to 3, whose listener lets 10 through (got $got)" \
		[ "$got" = "10 10" ]
	c=$(counters "$server" "$ipt" INPUT 1)
	check "$ipt: the QUEUE rule counted 20 ($c)" [ "${c%% *}" = 20 ]
	ip netns exec "$server" "$ipt" -F INPUT
}

# Two tables that drop udp to 5020, the second from a user chain, replace
# each other while datagrams flow: a packet sees one of them whole, so none
# gets through (with no table in force, or a mix, one would).
test_replace_under_traffic()
{
	local ipt=$1 addr=$2 got swaps

	printf '%s\n' '*filter' ':INPUT ACCEPT [0:0]' \
		'-A INPUT -p udp --dport 5020 -j DROP' COMMIT >"$tmp.a"
	printf '%s\n' '*filter' ':INPUT ACCEPT [0:0]' ':c - [0:0]' \
		'-A INPUT -p udp -j c' '-A c -p udp --dport 5020 -j DROP' \
		COMMIT >"$tmp.b"
	ip netns exec "$server" "$ipt-restore" <"$tmp.a"
	rm -f "$tmp.swapstop" "$tmp.swaps"
	(
		while [ ! -e "$tmp.swapstop" ]; do
			ip netns exec "$server" "$ipt-restore" <"$tmp.b" &&
			ip netns exec "$server" "$ipt-restore" <"$tmp.a" &&
			echo >>"$tmp.swaps"
		done
	) &
	got=$(send_recv "$addr" 5020 300 0.02)
	touch "$tmp.swapstop"
	wait $!
	swaps=$(wc -l <"$tmp.swaps")
	check "$ipt: none passes tables replacing each other (got $got, $((2 * swaps)) replaces)" \
		[ "$got" = 0 -a "$swaps" -ge 1 ]
	ip netns exec "$server" "$ipt" -F
	ip netns exec "$server" "$ipt" -X
}

# With bpfilter, its helper killed: the rules stay in force, and the next
# change starts a new helper that takes the table over.
test_helper_killed()
{
	local ipt=$1 addr=$2 got

	if ! ip netns exec "$server" test -e /proc/net/bpfilter; then
		echo "SKIP: $ipt: killing bpfilter_umh: bpfilter not loaded"
		return
	fi
	ip netns exec "$server" "$ipt" -A INPUT -p udp --dport 5030 -j DROP
	pkill -9 -x bpfilter_umh
	# Gone, or a zombie at most: no request can reach it.
	slowwait 10 sh -c 'for p in $(pgrep -x bpfilter_umh); do
		grep -q "^State:[[:space:]]*Z" /proc/$p/status || exit 1
	done'
	got=$(send_recv "$addr" 5030 10)
	check "$ipt: with the helper killed, the DROP rule still drops (got $got)" \
		[ "$got" = 0 ]
	ip netns exec "$server" "$ipt" -D INPUT 1
	got=$(send_recv "$addr" 5030 10)
	check "$ipt: a new helper takes the table over, -D works (got $got)" \
		[ "$got" = 10 ]
}

# The text iptables-save prints for a ruleset built by commands.
test_save()
{
	local ipt=$1 save=$2 src=$3 out

	ip netns exec "$server" "$ipt" -N web
	ip netns exec "$server" "$ipt" -A INPUT -s "$src" -p tcp --dport 22 -j ACCEPT
	ip netns exec "$server" "$ipt" -A INPUT -p tcp -j web
	ip netns exec "$server" "$ipt" -I INPUT -i lo -j ACCEPT
	ip netns exec "$server" "$ipt" -A web -p tcp --dport 80 -j ACCEPT
	ip netns exec "$server" "$ipt" -A OUTPUT -o veth0 -p udp ! --dport 53 -j DROP
	ip netns exec "$server" "$ipt" -P FORWARD DROP
	# The policies count what passes, and neighbour discovery of the
	# earlier tests' addresses may pass meanwhile: the text is the test.
	out=$(ip netns exec "$server" "$save" | grep -v '^#' |
	      sed 's/^\(:[A-Z]* [A-Z]*\) \[[0-9]*:[0-9]*\]$/\1 [0:0]/')
	check "$save prints the ruleset" same_text "$out" "*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
:web - [0:0]
-A INPUT -i lo -j ACCEPT
-A INPUT -s $src -p tcp -m tcp --dport 22 -j ACCEPT
-A INPUT -p tcp -j web
-A OUTPUT -o veth0 -p udp -m udp ! --dport 53 -j DROP
-A web -p tcp -m tcp --dport 80 -j ACCEPT
COMMIT"
	ip netns exec "$server" "$ipt" -F
	ip netns exec "$server" "$ipt" -X
	ip netns exec "$server" "$ipt" -P FORWARD ACCEPT
}

test_udp_drop iptables-legacy 10.0.1.2 20
test_udp_drop ip6tables-legacy dead:1::2 40
test_user_chain iptables-legacy 10.0.1.2
test_user_chain ip6tables-legacy dead:1::2
# LOG writes from other namespaces than the first only if told to.
sysctl -qw net.netfilter.nf_log_all_netns=1
test_reject_log iptables-legacy 10.0.1.2
test_reject_log ip6tables-legacy dead:1::2
test_kernel_matches iptables-legacy 10.0.1.2
test_kernel_matches ip6tables-legacy dead:1::2
test_kernel_targets iptables-legacy 10.0.1.2
test_kernel_targets ip6tables-legacy dead:1::2
test_replace_under_traffic iptables-legacy 10.0.1.2
test_replace_under_traffic ip6tables-legacy dead:1::2
test_helper_killed iptables-legacy 10.0.1.2
test_helper_killed ip6tables-legacy dead:1::2
test_save iptables-legacy iptables-legacy-save 10.0.0.0/8
test_save ip6tables-legacy ip6tables-legacy-save dead:2::/64

exit $ret
