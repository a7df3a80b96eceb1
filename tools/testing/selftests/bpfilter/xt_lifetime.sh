#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's matches keep state that lives as long as the table that
# checked them: limit's bucket, recent's list, hashlimit's hash,
# connlimit's count, quota's counter. Two tables with them replace each
# other XT_LIFETIME_REPLACES times (1000 by default) while datagrams run
# through them; every datagram must get through (both tables accept it),
# and once the table is empty again no module is held by it. Leaks are
# the guest's kmemleak to find: the harness scans for them after the run.

source ../net/lib.sh
source ./iptables_lib.sh

REPLACES=${XT_LIFETIME_REPLACES:-1000}
# Those built as modules in the selftests' config.
MODULES="xt_recent xt_hashlimit xt_connlimit xt_quota xt_statistic"

need_tools iptables-legacy-restore iptables-legacy ip python3

tmp=$(mktemp)
cleanup()
{
	[ -e "$tmp.stop" ] || touch "$tmp.stop"
	wait
	rm -f "$tmp" "$tmp".*
	cleanup_all_ns
}

trap cleanup EXIT
setup_ns client server || exit "$ksft_skip"
detect_mode "$server"
ip link add veth0 netns "$client" type veth peer name veth0 netns "$server" ||
	exit "$ksft_skip"
ip -net "$client" addr add 10.0.2.1/24 dev veth0
ip -net "$server" addr add 10.0.2.2/24 dev veth0
ip -net "$client" link set veth0 up
ip -net "$server" link set veth0 up

# refs: the reference counts of the extensions' modules, one line.
refs()
{
	local m

	for m in $MODULES; do
		echo -n "$m=$(cat "/sys/module/$m/refcnt" 2>/dev/null) "
	done
}

table()
{
	printf '%s\n' '*filter' ':INPUT ACCEPT [0:0]' "$@" \
		'-A INPUT -p udp --dport 5060 -j ACCEPT' COMMIT
}

table '-A INPUT -p udp -m limit --limit 100/s -m recent --name lt --set -j ACCEPT' \
	'-A INPUT -p udp -m hashlimit --hashlimit-upto 1000/s --hashlimit-name lt -j ACCEPT' \
	>"$tmp.a"
table '-A INPUT -p udp -m recent --name lt --rcheck -m connlimit --connlimit-upto 100 -j ACCEPT' \
	'-A INPUT -p udp -m quota --quota 100000000 -j ACCEPT' \
	'-A INPUT -p udp -m statistic --mode nth --every 3 --packet 0 -j ACCEPT' \
	>"$tmp.b"

# The modules are there, and their counts before any table uses them.
ip netns exec "$server" iptables-legacy-restore <"$tmp.a" &&
	ip netns exec "$server" iptables-legacy-restore <"$tmp.b" ||
	{ echo "FAIL: the tables load"; exit 1; }
ip netns exec "$server" iptables-legacy -F
base=$(refs)
echo "# modules before: $base"

# Datagrams until told to stop; the server counts what it received.
ip netns exec "$server" python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.0.2.2", 5060))
s.settimeout(0.5)
sys.stdout.write("ready\n"); sys.stdout.flush()
got = 0
while True:
    try:
        s.recv(64)
        got += 1
    except socket.timeout:
        if os.path.exists(sys.argv[1] + ".sent"):
            break
print(got)
' "$tmp" >"$tmp.got" &
slowwait 60 grep -q ready "$tmp.got" || { echo "FAIL: no server"; exit 1; }
ip netns exec "$client" python3 -c '
import os, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sent = 0
while not os.path.exists(sys.argv[1] + ".stop"):
    s.sendto(b"x", ("10.0.2.2", 5060))
    sent += 1
    if sent == 1:
        open(sys.argv[1] + ".started", "w").close()
    time.sleep(0.002)
open(sys.argv[1] + ".sent", "w").write(str(sent))
' "$tmp" &

slowwait 60 test -e "$tmp.started" || { echo "FAIL: no client"; exit 1; }
fails=0
for i in $(seq "$REPLACES"); do
	f=$tmp.a
	[ $((i % 2)) = 0 ] && f=$tmp.b
	ip netns exec "$server" iptables-legacy-restore <"$f" ||
		fails=$((fails + 1))
done
touch "$tmp.stop"
wait
sent=$(cat "$tmp.sent")
got=$(tail -n 1 "$tmp.got")
check "$REPLACES replaces of tables with stateful matches ($fails failed)" \
	[ "$fails" = 0 ]
if [ "$mode" = bpfilter ]; then
	check "the last of them is bpfilter's" \
		[ -n "$(bpfilter_line "$server" ipv4)" ]
fi
check "every datagram got through the replaces (sent $sent, received $got)" \
	[ "${sent:-0}" -gt 0 -a "$got" = "$sent" ]

# A replaced table's extensions go once it can no longer run: give the
# last one a few seconds.
ip netns exec "$server" iptables-legacy -F
for i in $(seq 50); do
	[ "$(refs)" = "$base" ] && break
	sleep 0.1
done
if [[ $base == *=\ * ]]; then
	skip "module references: not all of $MODULES are modules here"
else
	check "no module is held once the table is empty (now: $(refs))" \
		[ "$(refs)" = "$base" ]
fi
exit $ret
