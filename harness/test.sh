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

# The helper's blob validator, built for the host, against the host's
# ip_tables and ip6_tables in a network namespace of its own.
validate_diff() {
	BPFILTER_TREE=$SRC "$HARNESS/validate/run.sh" "$VALIDATE_BLOBS" "${VALIDATE_SEED:-1}"
}

# The translator against the host's ip_tables and ip6_tables: the helper's
# code compiles tables that filter real packets in a namespace of its own.
translate_diff() {
	BPFILTER_TREE=$SRC BPFILTER_HEADERS=$KOUT/usr/include \
		"$HARNESS/translate/run.sh" "$TRANSLATE_TABLES" \
		"${TRANSLATE_SEED:-1}"
}

# The code generator on a chain of 20,000 jumps: linear, not quadratic.
deep_jumps() {
	BPFILTER_TREE=$SRC BPFILTER_HEADERS=$KOUT/usr/include \
		"$HARNESS/translate/deep.sh" 20000 200
}

# libFuzzer on the same code, from the corpus in harness/validate/corpus.
fuzz_validate() {
	BPFILTER_TREE=$SRC "$HARNESS/validate/fuzz.sh" "$FUZZ_SECONDS"
}

# libFuzzer on every request the helper handles, its programs loaded by
# the host's kernel in a namespace of its own.
fuzz_requests() {
	BPFILTER_TREE=$SRC BPFILTER_HEADERS=$KOUT/usr/include \
		"$HARNESS/validate/fuzz_requests.sh" "$FUZZ_SECONDS"
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

# parse_tap LOG: one result per subtest (nested TAP of harness programs,
# PASS:/FAIL: lines of shell tests) and per kselftest program.
parse_tap() {
	local prog="" mode="" line
	while IFS= read -r line; do
		case $line in
		"bpfilter-mode: "*) mode="[${line#bpfilter-mode: }] " ;;
		"# selftests: "*) prog=$mode${line#\# selftests: } ;;
		"# not run: "*) echo "  skipped: $mode${line#\# not run: }" ;;
		"# ok "*"# SKIP"*|"ok "*"# SKIP"*) echo "  skipped: $mode$line" ;;
		"# ok "[0-9]*) result "$prog: ${line#\# ok [0-9]* }" 0 ;;
		"# not ok "[0-9]*) result "$prog: ${line#\# not ok [0-9]* }" 1 ;;
		"# PASS: "*) result "$prog: ${line#\# PASS: }" 0 ;;
		"# FAIL: "*) result "$prog: ${line#\# FAIL: }" 1 ;;
		# Exit 2 is the runner's XFAIL, and what bash gives a script
		# with a syntax error: no test of ours expects to fail.
		"ok "*"# XFAIL"*) result "${mode}kselftest ${line#ok [0-9]* } (exit 2)" 1 ;;
		"ok "[0-9]*) result "${mode}kselftest ${line#ok [0-9]* }" 0 ;;
		"not ok "[0-9]*) result "${mode}kselftest ${line#not ok [0-9]* }" 1 ;;
		esac
	done <"$1"
}

# The kselftests, run in one guest by the standard runner: first as a
# reviewer runs them (they load bpfilter.ko themselves), then with
# BPFILTER_MODE=ip_tables after rmmod bpfilter. The same tests must pass
# both ways.
run_kselftests() {
	local log=$OUT/kselftest.log rc
	log "run kselftests in the guest, with and without bpfilter ..."
	# module_cycle.sh unloads bpfilter with rmmod -f, which taints the
	# kernel (TAINT_FORCED_RMMOD): the one taint this run may leave.
	VM_TAINT_OK=$((1 << 3)) \
	vm_run --share "$KSELFTEST" --timeout "${KSFT_TIMEOUT:-4800}" -- sh -c '
		export TRANSLATE_DIFF_TABLES=$2 XT_LIFETIME_REPLACES=$4 IPT_EXT_SHARE=$5
		export NETNS_CYCLES=$6 MODULE_CYCLES=$7 XT_STATEFUL_FAMILIES=$8
		export SOCKOPT_CYCLES=${10}
		# The suites that compare with ip_tables side by side (their
		# namespace r is served by ip_tables) run in the ip_tables pass
		# only when asked (SIDE_BY_SIDE_TWICE): they compare ip_tables
		# with itself.
		twice=$9
		# --long: a test may run past the timeout of its settings.
		over=${3:+-o $3}
		# CI runs a third of the ip_tables pass, another third each
		# day; --long runs it all, at CI sizes (${11}): there the tests
		# are checked against ip_tables itself, and more rounds of
		# ip_tables say nothing of bpfilter.
		long=${11}
		day=$(( $(date +%j | sed "s/^0*//") % 3 ))
		# One test at a time, to say how long each took.
		each() {
			n=0
			for t in $("$1/run_kselftest.sh" -l); do
				n=$((n + 1))
				case $BPFILTER_MODE,$twice,$t in
				ip_tables,,*iptables_extensions.sh|ip_tables,,*xt_stateful.sh)
					echo "# not run: $t in the ip_tables pass (compared with ip_tables in the bpfilter pass; SIDE_BY_SIDE_TWICE=1 runs it)"
					continue ;;
				ip_tables,*)
					if [ -z "$long" ] && [ $((n % 3)) != $day ]; then
						echo "# not run: $t in the ip_tables pass of CI today (a third a day; --long runs it)"
						continue
					fi ;;
				esac
				s=$(date +%s)
				"$1/run_kselftest.sh" $over -t "$t"
				echo "# elapsed: $t $(($(date +%s) - s)) s"
			done
		}
		echo "bpfilter-mode: bpfilter"
		BPFILTER_MODE=bpfilter
		[ ! -d /sys/module/bpfilter ] || echo "not ok 0 bpfilter loaded before the tests"
		each "$1"
		[ -d /sys/module/bpfilter ] || echo "not ok 0 the tests did not load bpfilter"
		echo "bpfilter-mode: ip_tables"
		export BPFILTER_MODE=ip_tables
		[ -z "$long" ] || export $long
		# Namespaces the tests deleted release the module in the
		# background (cleanup_net): give them 60 s.
		i=0
		until rmmod bpfilter 2>/dev/null; do
			i=$((i + 1))
			[ $i -lt 60 ] || { echo "not ok 0 rmmod bpfilter"; break; }
			sleep 1
		done
		each "$1"' sh "$KSELFTEST" \
		"$TRANSLATE_DIFF_TABLES" "${KSFT_TEST_TIMEOUT:-}" \
		"$XT_LIFETIME_REPLACES" "$IPT_EXT_SHARE" "$NETNS_CYCLES" \
		"$MODULE_CYCLES" "$XT_STATEFUL_FAMILIES" "$SIDE_BY_SIDE_TWICE" \
		"$SOCKOPT_CYCLES" "${IPT_PASS_SIZES:-}" \
		>"$log" 2>"$log.err"
	rc=$?
	parse_tap "$log"
	grep -qE '^(not )?ok [0-9]+ ' "$log" || result "kselftests reported results" 1
	# CI's share is sized by these.
	awk '/^bpfilter-mode: / { m = $2 } /^# elapsed: / { printf "  [%s] %s: %s s\n", m, $3, $4 }' "$log"
	if [ $rc != 0 ]; then
		sed 's/^/  | /' "$log" | tail -n 60
		sed 's/^/  /' "$log.err"
		result "guest run of the kselftests (status $rc)" 1
	fi
	log "kselftests done; full log: $log"
}

# The KUnit suites of the series, built as modules (harness/kunit.modules),
# loaded in one guest; each test case counts.
run_kunit() {
	local log=$OUT/kunit.log mods rc line suite=""
	mods=$(grep -v '^#' "$HARNESS/kunit.modules" | xargs)
	[ -n "$mods" ] || return 0
	log "run KUnit suites in the guest: $mods ..."
	vm_run --timeout "${KUNIT_TIMEOUT:-1200}" -- sh -c '
		for m in "$@"; do modprobe "$m" || echo "not ok 0 modprobe $m"; done
		cat /sys/kernel/debug/kunit/*/results' sh $mods >"$log" 2>"$log.err"
	rc=$?
	while IFS= read -r line; do
		case $line in
		*"# Subtest: "*) suite=${line##*# Subtest: } ;;
		"    ok "*"# SKIP"*) echo "  skipped: $suite: ${line#    }" ;;
		"    ok "[0-9]*) result "kunit $suite: ${line#    ok [0-9]* }" 0 ;;
		"    not ok "[0-9]*) result "kunit $suite: ${line#    not ok [0-9]* }" 1 ;;
		"not ok 0 "*) result "kunit: ${line#not ok 0 }" 1 ;;
		esac
	done <"$log"
	grep -qE '^    (not )?ok [0-9]+ ' "$log" || result "KUnit suites reported results" 1
	# umd_test_status makes the test helper write "hi" to its stderr.
	grep -q '\] umd_test_helper: hi$' "$VM_LAST_RUN/dmesg" 2>/dev/null
	result "kunit: a user-mode driver's stderr reaches dmesg, prefixed" $?
	if [ $rc != 0 ] || grep -qE '^ +not ok' "$log"; then
		sed 's/^/  | /' "$log" | tail -n 80
		sed 's/^/  /' "$log.err" | tail -n 40
		[ $rc = 0 ] || result "guest run of the KUnit suites (status $rc)" 1
	fi
	log "KUnit done; full log: $log"
}

# CI's share of the randomized runs, and --long's (before an issue is
# resolved): on the host, blobs validated, tables compiled, seconds of
# fuzzing; in the guest, the tables of translate_diff.py (about 9 s each
# with bpfilter), the replaces of xt_lifetime.sh (0.5 s), the share of
# extensions of iptables_extensions.sh (one in IPT_EXT_SHARE, about 10 s
# each) and the cycles of netns_cycle.sh, module_cycle.sh and
# sockopt_test's cycle.netns (about 1 s, 15 s and 0.9 s each). Sized by
# the elapsed times the kselftests print (CI of 2026-12-06: 2,133 s for
# both passes, 1,909 of them with bpfilter, at 20 tables, 200 replaces, a
# third of the extensions, 200 namespaces and half the ip_tables pass),
# so that a cold run stays near 75 minutes. An explicit
# VALIDATE_BLOBS, TRANSLATE_TABLES, FUZZ_SECONDS, TRANSLATE_DIFF_TABLES,
# XT_LIFETIME_REPLACES, IPT_EXT_SHARE, NETNS_CYCLES, MODULE_CYCLES or
# SOCKOPT_CYCLES wins.
test_sizes() {
	if [ "${1:-}" = --long ]; then
		: "${VALIDATE_BLOBS:=100000}" "${TRANSLATE_TABLES:=2000}" "${FUZZ_SECONDS:=600}"
		: "${TRANSLATE_DIFF_TABLES:=100}" "${XT_LIFETIME_REPLACES:=1000}"
		: "${IPT_EXT_SHARE:=1}" "${NETNS_CYCLES:=200}" "${MODULE_CYCLES:=20}"
		: "${SOCKOPT_CYCLES:=500}"
		: "${XT_STATEFUL_FAMILIES:=ipv4 ipv6}" "${SIDE_BY_SIDE_TWICE:=}"
		# The whole ip_tables pass, at CI's sizes.
		: "${IPT_PASS_SIZES:=TRANSLATE_DIFF_TABLES=12 XT_LIFETIME_REPLACES=100 NETNS_CYCLES=50 MODULE_CYCLES=5 SOCKOPT_CYCLES=100}"
		# translate_diff.py then runs for about 20 min, past the
		# 900 s of the tests' settings; the bpfilter pass takes about
		# 80 min, the ip_tables pass 15.
		: "${KSFT_TEST_TIMEOUT:=3600}" "${KSFT_TIMEOUT:=9000}"
	else
		: "${VALIDATE_BLOBS:=20000}" "${TRANSLATE_TABLES:=500}" "${FUZZ_SECONDS:=30}"
		: "${TRANSLATE_DIFF_TABLES:=12}" "${XT_LIFETIME_REPLACES:=100}"
		: "${IPT_EXT_SHARE:=4}" "${NETNS_CYCLES:=50}" "${MODULE_CYCLES:=5}"
		: "${SOCKOPT_CYCLES:=100}"
		# One family a day; the other the next.
		[ -n "${XT_STATEFUL_FAMILIES:-}" ] ||
			XT_STATEFUL_FAMILIES=ipv$(( $(date +%j | sed 's/^0*//') % 2 ? 4 : 6 ))
		: "${SIDE_BY_SIDE_TWICE:=}" "${IPT_PASS_SIZES:=}"
	fi
	export VALIDATE_BLOBS TRANSLATE_TABLES FUZZ_SECONDS TRANSLATE_DIFF_TABLES
	export XT_LIFETIME_REPLACES IPT_EXT_SHARE NETNS_CYCLES MODULE_CYCLES
	export SOCKOPT_CYCLES
	export XT_STATEFUL_FAMILIES SIDE_BY_SIDE_TWICE IPT_PASS_SIZES
	export KSFT_TEST_TIMEOUT KSFT_TIMEOUT
}

cmd_test() {
	IN_TEST=1
	case ${1:-} in
	--long|"") test_sizes "$@" ;;
	*) die "test: unknown option $1" ;;
	esac
	log "base $BASE${BASE_TREE:+ ($BASE_TAG of $BASE_TREE)}; ${1:-CI} sizes:" \
		"$VALIDATE_BLOBS blobs, $TRANSLATE_TABLES tables, $FUZZ_SECONDS s of fuzzing;" \
		"$TRANSLATE_DIFF_TABLES tables in the guest"
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
	run_test "host: bpfilter's validator answers as ip_tables ($VALIDATE_BLOBS blobs a family)" validate_diff
	run_test "host: compiled tables count as ip_tables ($TRANSLATE_TABLES tables x 200 packets a family)" translate_diff
	run_test "host: a chain of 20,000 jumps compiles within 200 MB (linear code generator)" deep_jumps
	run_test "host: libFuzzer finds no crash in the validator and code generator (${FUZZ_SECONDS:-30} s)" fuzz_validate
	run_test "host: libFuzzer finds no crash nor protocol error in the helper's requests (${FUZZ_SECONDS:-30} s)" fuzz_requests
	run_test "vm: the guest's exit status reaches the host" vm_exit_status
	run_test "vm: a WARN in the guest fails the run" vm_fails_on_warn
	run_kunit
	run_kselftests
	run_test "bench: ./build.sh bench runs in the guest (N=10, every mode)" bench_smoke
	summary
}

# ./build.sh with no command: boot the patched kernel and show it working
# in a minute or two (harness/demo.sh); ./build.sh test runs everything.
cmd_demo() {
	local log=$OUT/demo.log rc
	vm_run --share "$HARNESS" --timeout 600 -- bash "$HARNESS/demo.sh" | tee "$log"
	rc=${PIPESTATUS[0]}
	echo "demo: kernel $(kernel_release) booted in QEMU; guest status $rc (log: $log)"
	return "$rc"
}
