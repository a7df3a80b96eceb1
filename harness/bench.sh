# SPDX-License-Identifier: GPL-2.0
# ./build.sh bench: the benchmark of issue 6 in the guest. Sourced.

# cmd_bench [N...]: guest.sh for N rules (10 to 100,000 by default), then
# the table on stdout and in build/bench.txt, build/bench.csv and the plot
# build/bench.svg. BENCH_FAMILIES, BENCH_VARIANTS, BENCH_MODES, BENCH_SECONDS
# (per point of the flood) narrow it; BENCH_ICOUNT=1 counts instructions
# (a guest clock of one nanosecond per instruction) instead of time;
# BENCH_KERNEL=fast runs a kernel without lockdep (kernel-fast.config).
# BENCH_SHAPES="docker ufw fail2ban cis" adds the real-world shapes
# (shapes.sh) in the same guest, in build/shapes.csv and the table; with
# BENCH_SHAPES and no N, only they run.
cmd_bench() {
	local dir=${BENCH_OUT:-$TOP/build} ns=("$@") shapes=${BENCH_SHAPES:-}

	[ ${#ns[@]} -gt 0 ] || [ -n "$shapes" ] || ns=(10 100 1000 10000 100000)
	mkdir -p "$dir/scripts" || return
	rm -f "$dir/shapes.csv" "$dir/bench.csv"
	# The guest may not see the checkout (a clone in /tmp): copy.
	cp "$HARNESS/bench/guest.sh" "$HARNESS/bench/shapes.sh" "$dir/scripts/" &&
		gcc -O2 -Wall -o "$dir/scripts/flood" "$HARNESS/bench/flood.c" &&
		gcc -O2 -Wall -o "$dir/scripts/floor" "$HARNESS/bench/floor.c" &&
		gcc -O2 -Wall -o "$dir/scripts/traffic" "$HARNESS/bench/traffic.c" ||
		return
	# BENCH_KERNEL=fast: a kernel of its own without lockdep and the other
	# debugging options of the test kernel (kernel-fast.config), whose
	# cost would hide that of the hooks.
	if [ "${BENCH_KERNEL:-}" = fast ]; then
		local KOUT=$OUT/kernel-fast MODROOT=$OUT/modroot-fast
		local BPFILTER_EXTRA_CONFIG=$HARNESS/kernel-fast.config
		build_kernel || return
	fi
	# BENCH_ICOUNT=1: per-packet figures in instructions, one vCPU.
	local VM_ICOUNT=${BENCH_ICOUNT:-} VM_CPUS=$VM_CPUS
	[ -z "$VM_ICOUNT" ] || VM_CPUS=1
	vm_run --share "$dir" --timeout "${BENCH_TIMEOUT:-7200}" -- \
		env BENCH_SECONDS="${BENCH_SECONDS:-0.5}" \
		BENCH_MODES="${BENCH_MODES:-ip_tables bpfilter nft-lines nft-set}" \
		bash -c 'dir=$1 fam=$2 var=$3 shapes=$4
			shift 4
			if [ $# -gt 0 ]; then
				bash "$dir/scripts/guest.sh" "$dir" "$fam" "$var" "$@" || exit
			fi
			[ -z "$shapes" ] || bash "$dir/scripts/shapes.sh" "$dir" $shapes' \
		sh "$dir" "${BENCH_FAMILIES:-4 6}" "${BENCH_VARIANTS:-exact prefix}" \
		"$shapes" "${ns[@]}" || return
	{
		[ ! -s "$dir/bench.csv" ] ||
			python3 "$HARNESS/bench/report.py" "$dir/bench.csv" "$dir/bench.svg"
		[ ! -s "$dir/shapes.csv" ] ||
			python3 "$HARNESS/bench/shapes.py" "$dir/shapes.csv"
	} | tee "$dir/bench.txt"
}

# In ./build.sh test: the benchmark at N=10, so that it keeps working.
bench_smoke() {
	local dir=$OUT/bench-smoke mode

	rm -rf "$dir"
	BENCH_OUT=$dir BENCH_FAMILIES="4 6" BENCH_VARIANTS="exact prefix" \
		BENCH_SECONDS=0.05 BENCH_TIMEOUT=900 cmd_bench 10 >"$dir.log" 2>&1 ||
		{ tail -n 20 "$dir.log"; return 1; }
	for mode in ip_tables bpfilter nft-lines nft-set; do
		grep -q ",$mode,ns_last," "$dir/bench.csv" ||
			{ echo "no $mode row"; tail -n 20 "$dir.log"; return 1; }
	done
	grep -q ',floor,ns_none,[0-9]' "$dir/bench.csv" ||
		{ echo "no floor (a netfilter program that only accepts)"; return 1; }
	grep -q ',bpfilter,prog_insns,[0-9]' "$dir/bench.csv" ||
		{ echo "bpfilter did not compile the tables"; return 1; }
	# (At N=10 under TCG the costs may all be noise below zero: no line.)
	grep -q '<svg' "$dir/bench.svg" || { echo "no plot"; return 1; }
}
