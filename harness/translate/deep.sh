#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The code generator's work is linear in the states of the walk, however
# deep the jumps: a chain of CHAINS user chains each jumping to the next
# (20,000: 13.6 MB of blob, the states' stacks once cost 10 s and 2.3 GB)
# is compiled, or refused as too big, within MAX_MB of memory.
# Usage: deep.sh [CHAINS [MAX_MB]]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
out=${TMPDIR:-/tmp}/bpfilter-deep
n=${1:-20000}
max=${2:-200}
build_with_helper "$out" stages -O2 -- "$here/stages.c"
python3 - "$n" >"$out/chains.rules" <<'PY'
import sys
n = int(sys.argv[1])
print("*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]")
for i in range(n):
    print(":c%d - [0:0]" % i)
print("-A INPUT -j c0")
for i in range(n):
    print("-A c%d -p tcp --dport %d -j ACCEPT" % (i, 1 + i % 60000))
    if i + 1 < n:
        print("-A c%d -j c%d" % (i, i + 1))
print("COMMIT")
PY
# stages prints its peak memory (getrusage()) last.
line=$(unshare -n sh -c 'iptables-legacy-restore <"$1" && exec "$2"' sh \
	"$out/chains.rules" "$out/stages" 2>&1)
echo "$n chains: $line"
mb=$(echo "$line" | sed -n 's/.*maxrss \([0-9]*\) MB.*/\1/p')
case $line in
*"err 0 "*|*"err -7 "*) ;;
*) echo "neither compiled nor too big"; exit 1 ;;
esac
[ -n "$mb" ] && [ "$mb" -le "$max" ] || { echo "over $max MB"; exit 1; }
