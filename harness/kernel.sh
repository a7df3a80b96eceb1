# SPDX-License-Identifier: GPL-2.0
# Configure and build the kernel, its modules and the bpfilter selftests
# out of tree (O=) with ccache. Sourced by build.sh.

KOUT=$OUT/kernel
KSELFTEST=$OUT/kselftest	# installed selftests (run_kselftest.sh)
MODROOT=$OUT/modroot		# INSTALL_MOD_PATH; the guest mounts its lib/modules

# kmake_at TREE KOUT ARGS...: make in TREE, built into KOUT, with ccache.
kmake_at() {
	local tree=$1 kout=$2
	shift 2
	make -s -C "$tree" O="$kout" -j"$JOBS" CC="ccache gcc" HOSTCC="ccache gcc" "$@"
}

kmake() { kmake_at "$SRC" "$KOUT" "$@"; }

# config_fragments [TREE]: the harness' fragments and the tests' config.
config_fragments() {
	local tree=${1:-$SRC}
	echo "$HARNESS/kernel.config"
	echo "$HARNESS/kernel-$BASE.config"
	[ -r "$tree/tools/testing/selftests/bpfilter/config" ] &&
		echo "$tree/tools/testing/selftests/bpfilter/config"
	[ -n "${BPFILTER_EXTRA_CONFIG:-}" ] && echo "$BPFILTER_EXTRA_CONFIG"
	return 0
}

# Every option a fragment asks for must survive olddefconfig; a dependency
# that is not met would otherwise drop it silently.
verify_config() {
	local kout=${1:-$KOUT} opt want got bad=0
	# The last fragment that names an option decides it.
	while read -r opt want; do
		got=$(grep -m1 "^$opt=" "$kout/.config" | cut -d= -f2-)
		if [ "$got" != "$want" ]; then
			echo "config: $opt=$want asked, got '${got:-unset}'" >&2
			bad=1
		fi
	done < <(cat $(config_fragments "${2:-$SRC}") | awk '
		/^CONFIG_[A-Za-z0-9_]*=/ {
			i = index($0, "="); o = substr($0, 1, i - 1)
			if (!(o in v)) order[n++] = o
			v[o] = substr($0, i + 1); next
		}
		/^# CONFIG_[A-Za-z0-9_]* is not set/ {
			if (!($2 in v)) order[n++] = $2
			v[$2] = ""
		}
		END { for (i = 0; i < n; i++) if (v[order[i]] != "") print order[i], v[order[i]] }')
	return $bad
}

# configure_kernel [TREE KOUT]: tinyconfig and the fragments, once per
# change of them.
configure_kernel() {
	local tree=${1:-$SRC} kout=${2:-$KOUT} hash
	local stamp=$kout/.bpfilter-config
	mkdir -p "$kout"
	hash=$(cat $(config_fragments "$tree") "$tree/Makefile" | sha1sum | cut -c1-16)
	[ -r "$kout/.config" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$hash" ] && return 0
	kmake_at "$tree" "$kout" tinyconfig >/dev/null &&
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$kout" "$kout/.config" \
		$(config_fragments "$tree") >/dev/null &&
	kmake_at "$tree" "$kout" olddefconfig >/dev/null || die "kernel configuration failed"
	verify_config "$kout" "$tree" || die "kernel configuration lacks options (see above)"
	echo "$hash" >"$stamp"
}

build_kernel() {
	configure_kernel
	stage "build kernel and modules" kmake bzImage modules || die "kernel build failed"
	rm -rf "$MODROOT"
	kmake INSTALL_MOD_PATH="$MODROOT" modules_install >/dev/null ||
		die "modules_install failed"
	stage "install uapi headers" kmake headers >/dev/null || die "headers failed"
}

# The selftests build against the headers of the kernel under test.
build_selftests() {
	rm -rf "$KSELFTEST"
	stage "build selftests" make -s -C "$SRC/tools/testing/selftests" \
		O="$OUT/kselftest-build" TARGETS=bpfilter \
		KHDR_INCLUDES="-isystem $KOUT/usr/include" \
		CC="ccache gcc" INSTALL_PATH="$KSELFTEST" install >/dev/null ||
		die "selftests build failed"
}

kernel_release() { cat "$KOUT/include/config/kernel.release"; }

# build [--work]: the series, or with --work the developer tree's HEAD
# (committed work, before export), for a quick edit-build-boot loop.
cmd_build() {
	if [ "${1:-}" = --work ]; then
		sync_src_to "$(git -C "$WORK" rev-parse HEAD)" ||
			die "no developer tree: ./build.sh setup"
	else
		sync_src
	fi
	build_kernel
	build_selftests
	log "built $(kernel_release): $KOUT/arch/x86/boot/bzImage"
}
