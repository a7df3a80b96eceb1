#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Differential test of the bpfilter translator against the host kernel's
# ip_tables and ip6_tables, in a network namespace of its own: the helper's
# parser, validator, IR, code generator and loader, built from the tree
# with libbpf, against real packets (diff.py, prog_test.c).
# Usage: run.sh [TABLES [SEED [PACKETS]]]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# The kernel tree and its installed uapi headers: ./build.sh test passes
# the series checkout and its build.
tree=${BPFILTER_TREE:-${BPFILTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpfilter}/work}
headers=${BPFILTER_HEADERS:-$tree/usr/include}
helper=$tree/net/bpfilter/helper
out=${TMPDIR:-/tmp}/bpfilter-translate
mkdir -p "$out/libbpf"
make -s -C "$tree/tools/lib/bpf" OUTPUT="$out/libbpf/" \
	DESTDIR="$out/libbpf" prefix= "$out/libbpf/libbpf.a" install_headers
gcc -Wall -Werror -O1 -g -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined -I "$headers" -I "$helper" \
	-I "$tree/net/bpfilter" -I "$out/libbpf/include" \
	-iquote "$tree/tools/include" -o "$out/prog_test" "$here/prog_test.c" \
	"$here/kernel_table.c" \
	"$helper"/{validate,ext,ir,emit,match,packet,codegen,load}.c \
	"$out/libbpf/libbpf.a" -lelf -lz
exec unshare -n "$here/netns.sh" "$out/prog_test" "${1:-500}" "${2:-1}" \
	"${3:-200}"
