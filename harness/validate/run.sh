#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Differential test of the bpfilter helper's bf_validate() against the host
# kernel's ip_tables/ip6_tables, in a network namespace of its own.
# Usage: run.sh [ITERATIONS [SEED [START [4|6]]]]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# The kernel tree: ./build.sh test passes the series checkout.
tree=${BPFILTER_TREE:-${BPFILTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpfilter}/work}
helper=$tree/net/bpfilter/helper
out=${TMPDIR:-/tmp}/bpfilter-validate-diff
mkdir -p "$out"
gcc -Wall -Werror -O1 -g -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined -I "$helper" \
	-o "$out/validate_diff" \
	"$helper/validate.c" "$helper/ext.c" "$here/validate_diff.c"
exec "$out/validate_diff" "${1:-20000}" "${2:-1}" "${@:3}"
