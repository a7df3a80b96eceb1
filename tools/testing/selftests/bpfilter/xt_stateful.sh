#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's stateful matches, run by bpfilter's bridge, decide as they
# do under ip_tables on the same packet sequence: limit's and hashlimit's
# buckets, recent's list with and without a time window, connlimit's
# count of connections, quota's and connbytes' counters. Two twin pairs
# of namespaces with the same addresses: in "b" bpfilter serves the filter
# table, in "r" ip_tables does (the table is set while bpfilter's bridge
# parameter is N, with a chain only the kernel's limit match can serve).
# The same client program runs against each; what got through, every
# rule's counters and the match's own /proc state must be the same in b
# and r, and what the match's semantics say. Without bpfilter, r is b's
# twin and both are held to those semantics.

source ../net/lib.sh
source ./iptables_lib.sh

BRIDGE=/sys/module/bpfilter/parameters/bridge
PORT=5100

need_tools iptables-legacy ip6tables-legacy iptables-legacy-restore \
	ip6tables-legacy-restore ip python3

tmp=$(mktemp)
cleanup()
{
	[ -w "$BRIDGE" ] && echo Y >"$BRIDGE"
	rm -f "$tmp" "$tmp".*
	cleanup_all_ns
}

trap cleanup EXIT
setup_ns cb b cr r || exit "$ksft_skip"
detect_mode "$b"
if [ "$mode" = bpfilter ] && [ ! -w "$BRIDGE" ]; then
	echo "FAIL: bpfilter has no writable bridge parameter"
	exit 1
fi

# Each client and its server have the same addresses in both pairs, so
# that the matches' state (recent's list, hashlimit's hash) reads the same.
for pair in "$cb $b" "$cr $r"; do
	set -- $pair
	ip link add veth0 netns "$1" type veth peer name veth0 netns "$2" ||
		exit "$ksft_skip"
	ip -net "$1" addr add 10.0.5.1/24 dev veth0
	ip -net "$2" addr add 10.0.5.2/24 dev veth0
	ip -net "$1" addr add fd00:5::1/64 dev veth0 nodad
	ip -net "$2" addr add fd00:5::2/64 dev veth0 nodad
	ip -net "$1" link set veth0 up
	ip -net "$2" link set veth0 up
done

# The server side: count the datagrams to PORT until the client is done,
# or hold TCP connections to PORT open until then.
SERVER='
import os, socket, sys
addr, port, kind, done = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM if kind == "udp" else socket.SOCK_STREAM)
s.bind((addr, port))
if kind == "tcp":
    s.listen(64)
s.settimeout(0.3)
sys.stdout.write("ready\n"); sys.stdout.flush()
got = 0
while True:
    try:
        if kind == "udp":
            s.recv(2048)
            got += 1
        else:
            s.accept()
    except socket.timeout:
        if os.path.exists(done):
            break
print(got)
'

# The client side: a sequence of steps, the same for b and r.
#   udp:N[:SPORT[:SIZE]]  N datagrams from SPORT (any) of SIZE bytes
#   sleep:S               S seconds
#   tcp:N                 N connections, held until the end; prints how
#                         many were established
CLIENT='
import socket, sys, time
addr, port = sys.argv[1], int(sys.argv[2])
fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
held, up = [], 0
for step in sys.argv[3:]:
    f = step.split(":")
    if f[0] == "sleep":
        time.sleep(float(f[1]))
    elif f[0] == "udp":
        s = socket.socket(fam, socket.SOCK_DGRAM)
        if len(f) > 2 and f[2]:
            s.bind(("", int(f[2])))
        size = int(f[3]) if len(f) > 3 else 16
        for i in range(int(f[1])):
            s.sendto(b"x" * size, (addr, port))
        s.close()
    elif f[0] == "tcp":
        for i in range(int(f[1])):
            c = socket.socket(fam, socket.SOCK_STREAM)
            c.settimeout(5)
            try:
                c.connect((addr, port))
                up += 1
            except OSError:
                pass
            held.append(c)
print(up)
'

# segment NS ADDR KIND STEP...: the steps against the server of NS (b or
# r); prints what the server received (udp) or the connections the client
# established (tcp).
segment()
{
	local sns=${!1} cns=c$1 addr=$2 kind=$3 up
	shift 3

	cns=${!cns}
	rm -f "$tmp.done" "$tmp.srv"
	ip netns exec "$sns" python3 -c "$SERVER" "$addr" "$PORT" "$kind" \
		"$tmp.done" >"$tmp.srv" &
	if ! slowwait 30 grep -q ready "$tmp.srv"; then
		touch "$tmp.done"
		wait
		echo "no server"
		return
	fi
	up=$(ip netns exec "$cns" python3 -c "$CLIENT" "$addr" "$PORT" "$@")
	touch "$tmp.done"
	wait
	if [ "$kind" = tcp ]; then
		echo "$up"
	else
		tail -n 1 "$tmp.srv"
	fi
}

# run NS ADDR KIND STEP...: the steps, where a step "reload" restores the
# same table again (a replace that keeps the match's state, as ip_tables
# keeps it); prints the sum of what got through.
run()
{
	local ns=$1 addr=$2 kind=$3 seg=() sum=0 n step
	shift 3

	for step in "$@" end; do
		if [ "$step" != reload ] && [ "$step" != end ]; then
			seg+=("$step")
			continue
		fi
		n=$(segment "$ns" "$addr" "$kind" "${seg[@]}")
		[[ $n =~ ^[0-9]+$ ]] || { echo "$n"; return; }
		sum=$((sum + n))
		seg=()
		if [ "$step" = reload ] && ! load "$ns" "${RULES[@]}" >&2; then
			echo "no reload"
			return
		fi
	done
	echo "$sum"
}

# counters NS: packets and bytes of each rule of INPUT, one rule a line.
counters()
{
	ip netns exec "$1" "$IPT" -L INPUT -v -x -n | awk 'NR > 2 { print $1, $2 }'
}

# load NS RULE...: the filter table of NS with RULE... in INPUT (each
# "-p PROTO --dport PORT" and the match's options); r's with the bridge
# off and one more chain, so that ip_tables serves it.
load()
{
	local ns=$1 out rc
	shift

	{
		printf '*filter\n:INPUT ACCEPT [0:0]\n'
		[ "$ns" = r ] && printf ':zzz - [0:0]\n-A zzz -m limit --limit 1000/s\n'
		printf -- '-A INPUT %s\n' "$@"
		printf 'COMMIT\n'
	} >"$tmp.rules"
	[ "$ns" = r ] && [ "$mode" = bpfilter ] && echo N >"$BRIDGE"
	out=$(ip netns exec "${!ns}" "$RESTORE" <"$tmp.rules" 2>&1)
	rc=$?
	[ "$mode" = bpfilter ] && echo Y >"$BRIDGE"
	[ $rc = 0 ] && return 0
	echo "$ns: $RESTORE failed: $out"
	return 1
}

# state NS: the match's own view of its state, where it has one, without
# what moves with time (recent's list without its jiffies, hashlimit's hash
# without its expiry and its credit, which refills as time goes).
state()
{
	local f

	for f in $STATE; do
		ip netns exec "$1" cat "$f" 2>/dev/null |
			sed -e 's/ last_seen: [0-9]*//' -e 's/ oldest_pkt: .*//' \
			    -e 's/^[0-9]* \([^ ]*\) [0-9]* /\1 /' | sort
	done
}

# stateful NAME WANT KIND STEPS -- RULE...: RULE... (their "-j" included)
# in b and r, the client's STEPS against each; b must give WANT (what got
# through), and r the same, with the same counters and state.
stateful()
{
	local name=$1 want=$2 kind=$3 steps=() got_b got_r c_b c_r s_b s_r
	local lines
	local addr=10.0.5.2

	shift 3
	while [ "$1" != -- ]; do
		steps+=("$1")
		shift
	done
	shift
	[ "$fam" = ipv6 ] && addr=fd00:5::2
	RULES=("$@")
	if ! load b "$@" || ! load r "$@"; then
		check "$fam $name: the tables load" false
		return
	fi
	if [ "$mode" = bpfilter ]; then
		check "$fam $name: b's table is bpfilter's, r's ip_tables'" \
			eval '[ -n "$(bpfilter_line "$b" "$fam")" ] && not_owned "$r" "$fam"'
	fi
	got_b=$(run b "$addr" "$kind" "${steps[@]}")
	got_r=$(run r "$addr" "$kind" "${steps[@]}")
	c_b=$(counters "$b")
	c_r=$(counters "$r")
	s_b=$(state "$b")
	s_r=$(state "$r")
	check "$fam $name: $want got through (b: $got_b, r: $got_r)" \
		eval '[ "$got_b" = "$want" ] && [ "$got_r" = "$want" ]'
	check "$fam $name: every rule counted as with ip_tables ($(echo $c_b))" \
		same_text "$c_b" "$c_r"
	if [ -n "$STATE" ]; then
		lines=$(echo "$s_b" | wc -l)
		check "$fam $name: the match's state reads as with ip_tables ($lines lines)" \
			eval '[ -n "$s_b" ] && same_text "$s_b" "$s_r"'
	fi
}

# CI runs one family a day; both by default.
for fam in ${XT_STATEFUL_FAMILIES:-ipv4 ipv6}; do
	IPT=iptables-legacy RESTORE=iptables-legacy-restore
	hl=ipt_hashlimit
	if [ "$fam" = ipv6 ]; then
		IPT=ip6tables-legacy RESTORE=ip6tables-legacy-restore
		hl=ip6t_hashlimit
	fi
	u="-p udp --dport $PORT"
	t="-p tcp --dport $PORT"
	under="-m hashlimit --hashlimit-upto 1/hour --hashlimit-burst 3"
	above="-m hashlimit --hashlimit-above 1/hour --hashlimit-burst 2"

	STATE=""
	# A bucket of four, refilled once an hour: four of twelve.
	stateful "limit, burst" 4 udp udp:12 -- \
		"$u -m limit --limit 1/hour --limit-burst 4 -j ACCEPT" "$u -j DROP"
	# One a second, burst one: one of each three sent at once, and the
	# bucket refilled after the pause.
	stateful "limit, refill" 2 udp udp:3 sleep:2.5 udp:3 -- \
		"$u -m limit --limit 1/s --limit-burst 1 -j ACCEPT" "$u -j DROP"

	# Each case its own name: a table of the same name outlives a replace.
	STATE=/proc/net/$hl/h1
	# A bucket of three for each source port.
	stateful "hashlimit --hashlimit-upto, per source port" 9 udp \
		udp:5:7001 udp:5:7002 udp:5:7003 -- \
		"$u $under --hashlimit-mode srcport --hashlimit-name h1 -j ACCEPT" \
		"$u -j DROP"
	STATE=/proc/net/$hl/h2
	stateful "hashlimit --hashlimit-above, per source address" 2 udp udp:7 -- \
		"$u $above --hashlimit-mode srcip --hashlimit-name h2 -j DROP"

	STATE=/proc/net/xt_recent/r1
	# Set on each datagram; the fourth finds three hits and is dropped.
	stateful "recent --rcheck --hitcount" 3 udp udp:10 -- \
		"$u -m recent --name r1 --rcheck --seconds 3600 --hitcount 3 -j DROP" \
		"$u -m recent --name r1 --set -j ACCEPT"
	# Two hits within two seconds drop; after the pause the old hits
	# are out of the window: two more get through.
	STATE=/proc/net/xt_recent/r2
	stateful "recent --rcheck --seconds" 4 udp udp:3 sleep:3 udp:3 -- \
		"$u -m recent --name r2 --rcheck --seconds 2 --hitcount 2 -j DROP" \
		"$u -m recent --name r2 --set -j ACCEPT"
	# Set, then update: the third finds two hits and removes the entry,
	# so the fourth starts again.
	STATE=/proc/net/xt_recent/r3
	stateful "recent --update, --remove" 3 udp udp:4 -- \
		"$u -m recent --name r3 --update --hitcount 2 \
		    -m recent --name r3 --remove -j DROP" \
		"$u -m recent --name r3 --set -j ACCEPT"

	# Across a replace, recent's list and hashlimit's hash stay (the new
	# table finds them by name before the old one goes), limit's bucket
	# is new.
	STATE=/proc/net/xt_recent/r4
	stateful "recent's list outlives a replace" 3 udp udp:2 reload udp:3 -- \
		"$u -m recent --name r4 --rcheck --seconds 3600 --hitcount 3 -j DROP" \
		"$u -m recent --name r4 --set -j ACCEPT"
	STATE=/proc/net/$hl/h3
	stateful "hashlimit's hash outlives a replace" 3 udp udp:2:7005 reload udp:3:7005 -- \
		"$u $under --hashlimit-mode srcport --hashlimit-name h3 -j ACCEPT" \
		"$u -j DROP"
	STATE=""
	stateful "limit's bucket is new after a replace" 5 udp udp:2 reload udp:3 -- \
		"$u -m limit --limit 1/hour --limit-burst 4 -j ACCEPT" "$u -j DROP"

	STATE=""
	# Two connections from one address, the others reset.
	stateful "connlimit --connlimit-above" 2 tcp tcp:5 -- \
		"$t --syn -m connlimit --connlimit-above 2 --connlimit-mask 32 \
		    -j REJECT --reject-with tcp-reset"
	# 2500 bytes: two datagrams of 1028 (or 1048) bytes fit.
	stateful "quota" 2 udp udp:10::1000 -- \
		"$u -m quota --quota 2500 -j ACCEPT" "$u -j DROP"
	# The third to the fifth packet of the flow are dropped.
	stateful "connbytes --connbytes-mode packets" 5 udp udp:8:7004 -- \
		"$u -m connbytes --connbytes 3:5 --connbytes-dir original \
		    --connbytes-mode packets -j DROP"
done
exit $ret
