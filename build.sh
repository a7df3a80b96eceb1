#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bpfilter: build, boot and test the patch series. See README.md.
set -o pipefail

# --base NAME, anywhere on the line: the base to work on (mainline, 6.12).
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--base) export BPFILTER_BASE=$2; shift 2 ;;
	--base=*) export BPFILTER_BASE=${1#--base=}; shift ;;
	*) args+=("$1"); shift ;;
	esac
done
set -- "${args[@]}"

. "$(dirname "$0")/harness/lib.sh"
. "$HARNESS/deps.sh"
. "$HARNESS/series.sh"
. "$HARNESS/kernel.sh"
. "$HARNESS/vm.sh"
. "$HARNESS/check.sh"
. "$HARNESS/backport.sh"
. "$HARNESS/test.sh"
. "$HARNESS/bench.sh"

usage() {
	cat <<USAGE
usage: ./build.sh [--base mainline|6.12] [COMMAND]
  (none)        install, build, boot and show bpfilter working
  test          every check and test; ends with "N passed, N failed"
  check [--bisect[=N]]  series applies, mirror equals series, checkpatch
                clean; on mainline also: the 6.12 backport applies and
                compiles; --bisect builds after every patch (from the Nth)
  compile       the series applies and the files it touches compile
  backport      regenerate the 6.12 backport (stable-6.12/) from the series
  deps          install the Debian packages the project needs
  base          fetch and unpack the base kernel
  build [--work]  apply the series (or take the developer tree's HEAD)
                and build kernel, modules, selftests
  fuzz [SECONDS [JOBS]]  libFuzzer on the helper's blob validator, then on
                every request it handles (after a build; 0: forever)
  bench [N...]  iptables-legacy, bpfilter and nftables side by side in the
                guest; table, build/bench.{csv,svg,txt}
  vm [--share DIR] [--timeout S] -- CMD...  run CMD in the guest
  shell [--share DIR]  interactive guest
  setup [--force]  developer tree with the series as commits ($WORK)
  export        developer tree -> patches/, series, mirror
  fold          mirror edits -> fixups of the right patch -> export
USAGE
}

main() {
	local cmd=${1:-demo}
	[ $# -gt 0 ] && shift
	case $cmd in
	demo)	cmd_deps && ensure_base && cmd_build && cmd_demo ;;
	test)	cmd_test "$@" ;;
	check)	cmd_deps && ensure_base && cmd_check "$@" ;;
	compile) cmd_deps >/dev/null && ensure_base && cmd_compile ;;
	backport) [ "$BASE" = 6.12 ] || exec env BPFILTER_BASE=6.12 "$0" backport
		ensure_base && cmd_backport ;;
	deps)	cmd_deps ;;
	base)	ensure_base ;;
	build)	ensure_base && cmd_build "$@" ;;
	bench)	cmd_deps && ensure_base && cmd_build && cmd_bench "$@" ;;
	fuzz)	ensure_base && sync_src &&
		BPFILTER_TREE=$SRC "$HARNESS/validate/fuzz.sh" "$@" &&
		BPFILTER_TREE=$SRC BPFILTER_HEADERS=$KOUT/usr/include \
			"$HARNESS/validate/fuzz_requests.sh" "$@" ;;
	vm)	cmd_vm "$@" ;;
	shell)	cmd_shell "$@" ;;
	setup)	ensure_base && cmd_setup "$@" ;;
	export)	ensure_base && cmd_export ;;
	fold)	ensure_base && cmd_fold ;;
	-h|--help|help) usage ;;
	*)	usage >&2; exit 2 ;;
	esac
}

main "$@"
