#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh's namespace. Usage: netns.sh PROG TABLES SEED PACKETS
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
setup_netns
rc=0
for family in 4 6; do
	python3 "$here/diff.py" "$1" "$family" "$2" "$3" "$4" || rc=1
done
exit $rc
