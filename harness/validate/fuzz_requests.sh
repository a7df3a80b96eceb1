#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fuzz every request bpfilter's helper handles with libFuzzer (clang): see
# fuzz_requests.c. The helper's code loads its programs into the host's
# kernel, so this runs as root, in a network namespace of its own.
# Usage: BPFILTER_TREE=TREE BPFILTER_HEADERS=UAPI_HEADERS fuzz_requests.sh
# [SECONDS [JOBS]]; 0 seconds: forever (./build.sh fuzz sets both).
# New inputs go to a scratch corpus; crashes to $out.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../translate/lib.sh"
out=${TMPDIR:-/tmp}/bpfilter-fuzz-requests
secs=${1:-60}
rm -rf "$out/corpus"
mkdir -p "$out/libbpf"
"$here/request_seeds.py" "$here/corpus" "$out/corpus"
make -s -C "$tree/tools/lib/bpf" OUTPUT="$out/libbpf/" DESTDIR="$out/libbpf" \
	prefix= "$out/libbpf/libbpf.a" install_headers
clang -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -I "$headers" -I "$helper" \
	-I "$tree/net/bpfilter" -I "$out/libbpf/include" -iquote "$tree/tools" \
	-idirafter "$tree/tools/include" -o "$out/fuzz_requests" \
	"$here/fuzz_requests.c" \
	"$helper"/{table,plan,compile,sandbox,validate,ext,ir,emit,match,packet,codegen,load,classify,lookup,update}.c \
	"$out/libbpf/libbpf.a" -lelf -lz
cd "$out"
# The helper must serve a change by one rule keeping its program, or the
# host loads no program and the fuzzing tests nothing past the validator.
BF_EXPECT_KEPT=1 unshare -n ./fuzz_requests corpus/add-last-00 >sanity.log 2>&1 ||
	{ cat sanity.log; echo "the helper's programs do not load on this host"; exit 1; }
exec unshare -n ./fuzz_requests -max_total_time="$secs" -max_len=65536 \
	-jobs="${2:-1}" -print_final_stats=1 corpus
