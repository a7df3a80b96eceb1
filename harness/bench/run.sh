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
tree=${BPFILTER_TREE:-${BPFILTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpfilter}/work}
headers=${BPFILTER_HEADERS:-$tree/usr/include}
helper=$tree/net/bpfilter/helper
out=${TMPDIR:-/tmp}/bpfilter-bench
mkdir -p "$out/libbpf"
make -s -C "$tree/tools/lib/bpf" OUTPUT="$out/libbpf/" \
	DESTDIR="$out/libbpf" prefix= "$out/libbpf/libbpf.a" install_headers
gcc -Wall -Werror -O2 -I "$headers" -I "$helper" -I "$here/../translate" \
	-I "$tree/net/bpfilter" -I "$out/libbpf/include" \
	-iquote "$tree/tools/include" -o "$out/bench" "$here/bench.c" \
	"$here/../translate/kernel_table.c" \
	"$helper"/{validate,ext,ir,emit,match,packet,codegen,load}.c \
	"$out/libbpf/libbpf.a" -lelf -lz
exec unshare -n "$here/netns.sh" "$out/bench" "${1:-1000}" "${2:-200000}" \
	"${3:-5}"
