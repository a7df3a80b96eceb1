# SPDX-License-Identifier: GPL-2.0
# ./build.sh test: every check, the tooling's own tests, the VM runner's
# contract and the kselftests in the guest. Ends with "N passed, N failed".
# Sourced by build.sh.

. "$HARNESS/tests/tooling.sh"

# run_test NAME CMD...: one test, its output indented when it fails.
run_test() {
	local name=$1 out rc t=$(date +%s)
	shift
	out=$("$@" 2>&1)
	rc=$?
	[ $rc = 0 ] || [ -z "$out" ] || echo "$out" | tail -n 40 | sed 's/^/  /'
	result "$name ($(($(date +%s) - t))s)" $rc
}

summary() {
	echo "$CHECK_PASS passed, $CHECK_FAIL failed"
	[ $CHECK_FAIL = 0 ]
}

vm_exit_status() {
	local rc
	vm_run --timeout 300 -- sh -c 'exit 3' >/dev/null 2>&1
	rc=$?
	[ $rc = 3 ] || { echo "vm returned $rc, not 3"; return 1; }
}

build_warn_module() {
	local dir=$OUT/warn_on
	rm -rf "$dir" && cp -r "$HARNESS/tests/warn_on" "$dir" &&
		make -s -C "$KOUT" M="$dir" CC="ccache gcc" modules >/dev/null
}

# A WARN in the guest fails the run even when the command succeeds.
vm_fails_on_warn() {
	local rc err
	build_warn_module || { echo "cannot build the warn_on module"; return 1; }
	err=$(vm_run --timeout 300 -- insmod "$OUT/warn_on/warn_on.ko" 2>&1 >/dev/null)
	rc=$?
	[ $rc != 0 ] || { echo "the run passed despite WARN_ON(1)"; return 1; }
	echo "$err" | grep -q 'kernel log: WARNING:' ||
		{ echo "the WARN was not reported:"; echo "$err"; return 1; }
}

# The kselftests, run in the guest by the standard runner; each top-level
# TAP result counts as one test.
run_kselftests() {
	local log=$OUT/kselftest.log rc line
	log "run kselftests in the guest ..."
	vm_run --share "$KSELFTEST" --timeout "${KSFT_TIMEOUT:-1800}" -- \
		"$KSELFTEST/run_kselftest.sh" >"$log" 2>"$log.err"
	rc=$?
	sed 's/^/  | /' "$log"
	while read -r line; do
		case $line in
		"ok "*" # SKIP"*) echo "  skipped: $line" ;;
		"ok "*) result "kselftest: ${line#ok [0-9]* }" 0 ;;
		"not ok "*) result "kselftest: ${line#not ok [0-9]* }" 1 ;;
		esac
	done < <(grep -E '^(not )?ok [0-9]+ ' "$log")
	grep -qE '^(not )?ok [0-9]+ ' "$log" || result "kselftests reported results" 1
	[ $rc = 0 ] || { cat "$log.err"; result "guest run of the kselftests (status $rc)" 1; }
}

cmd_test() {
	IN_TEST=1
	cmd_deps
	ensure_base
	mkdir -p "$OUT"
	stage "check" cmd_check || true
	if ! (cmd_build) >"$OUT/build.log"; then
		tail -n 20 "$OUT/build.log"
		result "kernel, modules and selftests build" 1
		summary
		return
	fi
	result "kernel, modules and selftests build" 0
	run_test "tooling: check fails on a damaged patch" tooling_damaged_patch
	run_test "tooling: check fails when the mirror differs" tooling_mirror_differs
	run_test "tooling: check fails on a checkpatch report" tooling_checkpatch
	run_test "tooling: fold carries a mirror edit into its patch" tooling_fold
	run_test "vm: the guest's exit status reaches the host" vm_exit_status
	run_test "vm: a WARN in the guest fails the run" vm_fails_on_warn
	run_kselftests
	summary
}
