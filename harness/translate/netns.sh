#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh's namespace: packets leave through a veth whose peer is down, so
# OUTPUT sees them and nothing answers. Usage: netns.sh PROG TABLES SEED PACKETS
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ip link set lo up
# No link-local address: no DAD, MLD or RS of the kernel's own in OUTPUT.
sysctl -qw net.ipv6.conf.default.addr_gen_mode=1
ip link add d0 type veth peer name d1
ip link set d0 arp off up
ip route add default dev d0
ip -6 route add default dev d0
rc=0
for family in 4 6; do
	python3 "$here/diff.py" "$1" "$family" "$2" "$3" "$4" || rc=1
done
exit $rc
