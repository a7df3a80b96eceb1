#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fuzz the bpfilter helper's blob validator and code generator with
# libFuzzer (clang), from the corpus in corpus/.
# Usage: fuzz.sh [SECONDS [JOBS]]; 0 seconds: forever.
# New inputs go to a scratch copy of the corpus; crashes to $out.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tree=${BPFILTER_TREE:-${BPFILTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpfilter}/work}
helper=$tree/net/bpfilter/helper
out=${TMPDIR:-/tmp}/bpfilter-fuzz
secs=${1:-60}
mkdir -p "$out/corpus"
cp "$here"/corpus/* "$out/corpus/"
clang -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -I "$helper" -I "$tree/net/bpfilter" \
	-iquote "$tree/tools" -idirafter "$tree/tools/include" -o "$out/fuzz_validate" \
	"$here/fuzz_validate.c" \
	"$helper"/{validate,ext,ir,emit,match,packet,codegen,classify,lookup}.c
cd "$out"
exec ./fuzz_validate -max_total_time="$secs" -max_len=65536 -jobs="${2:-1}" \
	-print_final_stats=1 corpus
