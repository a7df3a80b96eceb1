#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Per-packet cost of a filter table of RULES rules that no packet matches
# (the worst case of a linear walk), at LOCAL_OUT, side by side in one
# run: no table, ip_tables (iptables-legacy), bpfilter's program (the
# helper's code, attached as bpfilter.ko runs it), nftables (iptables-nft,
# the same rules). On the host, in a network namespace of its own.
# Usage: run.sh [RULES [PACKETS [ROUNDS]]]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../translate/lib.sh"
out=${TMPDIR:-/tmp}/bpfilter-bench
build_with_helper "$out" bench -O2 -- "$here/bench.c"
exec unshare -n "$here/netns.sh" "$out/bench" "${1:-1000}" "${2:-200000}" \
	"${3:-5}"
