#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Differential test of the bpfilter translator against the host kernel's
# ip_tables and ip6_tables, in a network namespace of its own: the helper's
# parser, validator, IR, code generator and loader, built from the tree
# with libbpf, against real packets (diff.py, prog_test.c).
# Usage: run.sh [TABLES [SEED [PACKETS]]]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
out=${TMPDIR:-/tmp}/bpfilter-translate
build_with_helper "$out" prog_test -O1 -g -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined -- "$here/prog_test.c"
exec unshare -n "$here/netns.sh" "$out/prog_test" "${1:-500}" "${2:-1}" \
	"${3:-200}"
