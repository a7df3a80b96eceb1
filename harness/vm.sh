# SPDX-License-Identifier: GPL-2.0
# The VM runner: the built kernel under QEMU, the host's / read-only over
# 9p as the guest root (virtme-ng's method), a command run by
# harness/guest-init, its exit status and dmesg carried back through a
# per-run directory. Sourced by build.sh.

VM_MEM=${VM_MEM:-2048}
VM_CPUS=${VM_CPUS:-2}
VM_TIMEOUT=${VM_TIMEOUT:-900}
# VM_ICOUNT=1 (TCG only): the guest's clock counts its instructions, one
# nanosecond each (-icount shift=0), so that a time measured in the guest
# is a count of instructions, not TCG's noise.
VM_ICOUNT=${VM_ICOUNT:-}
# Lines in the guest's kernel log that fail a run.
VM_BAD='WARNING:|BUG:|Oops|general protection fault|kernel BUG|Kernel panic|unreferenced object|KASAN:|UBSAN:|RCU detected stall|hung_task|refcount_t:|list_(add|del) corruption|INFO: task .* blocked'

# kvm_usable: /dev/kvm here may exist and hang; trust it only when a guest
# actually boots with it. BPFILTER_ACCEL=kvm|tcg forces the choice.
vm_accel() {
	case ${BPFILTER_ACCEL:-auto} in
	kvm|tcg) echo "$BPFILTER_ACCEL"; return ;;
	esac
	local stamp=$CACHE/kvm-probe boot
	boot=$(cat /proc/sys/kernel/random/boot_id)
	if [ -r "$stamp" ] && [ "$(head -1 "$stamp")" = "$boot" ]; then
		sed -n 2p "$stamp"
		return
	fi
	local accel=tcg
	if [ -w /dev/kvm ] && timeout -k 2 20 qemu-system-x86_64 -accel kvm -nodefaults \
		-display none -no-reboot -m 256 -kernel "$KOUT/arch/x86/boot/bzImage" \
		-append "panic=-1 init=/bpfilter-probe" >/dev/null 2>&1; then
		accel=kvm
	fi
	printf '%s\n%s\n' "$boot" "$accel" >"$stamp"
	echo "$accel"
}

# vm_run [--share DIR] [--timeout S] [--interactive] -- CMD...
# Prints the guest's output; returns CMD's exit status, or 125 when the
# guest did not report one, 124 on timeout, 126 when the kernel log shows
# a WARN, oops, leak or a taint.
vm_run() {
	local share="" timeout=$VM_TIMEOUT interactive=0
	while [ $# -gt 0 ]; do
		case $1 in
		--share) share=$(realpath "$2"); shift 2 ;;
		--timeout) timeout=$2; shift 2 ;;
		--interactive) interactive=1; shift ;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	[ $# -gt 0 ] || [ $interactive = 1 ] || die "vm: no command"
	local kernel=$KOUT/arch/x86/boot/bzImage
	[ -r "$kernel" ] || die "no kernel; run ./build.sh build"
	local run
	# Keep the last runs' logs for a look after the fact.
	ls -dt "$OUT"/vm.* 2>/dev/null | tail -n +20 | xargs -r rm -rf
	run=$(mktemp -d "$OUT/vm.XXXXXX") || die "mktemp"
	# The command, quoted for bash; run in the caller's directory.
	{
		printf 'cd %q 2>/dev/null || cd /\n' "$PWD"
		[ $# -gt 0 ] && { printf '%q ' "$@"; echo; }
	} >"$run/cmd"
	echo 125 >"$run/status"	# overwritten by the guest on a clean finish
	local accel append
	accel=$(vm_accel)
	append="console=ttyS0 earlyprintk=serial loglevel=5 panic=-1 oops=panic"
	append+=" root=bpfroot rootfstype=9p"
	append+=" rootflags=trans=virtio,version=9p2000.L,access=any,cache=loose,msize=262144"
	# The checkout may be below a directory the guest hides under tmpfs
	# (a CI clone in /tmp, say): boot the init script from the cache.
	install -m 0755 "$HARNESS/guest-init" "$OUT/guest-init" || die "cannot install guest-init"
	append+=" ro init=$OUT/guest-init bpf.share=$share"
	[ $interactive = 1 ] && append+=" bpf.interactive=1"
	local qemu=(qemu-system-x86_64 -nodefaults -no-reboot -display none
		-accel "$accel" -cpu max -smp "$VM_CPUS" -m "$VM_MEM"
		-kernel "$kernel" -append "$append"
		-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap
		-device virtio-9p-pci,fsdev=root,mount_tag=bpfroot
		-fsdev local,id=run,path="$run",security_model=none
		-device virtio-9p-pci,fsdev=run,mount_tag=bpfrun
		-fsdev local,id=mods,path="$MODROOT/lib/modules",security_model=none,readonly=on
		-device virtio-9p-pci,fsdev=mods,mount_tag=bpfmods)
	[ -n "$VM_ICOUNT" ] && [ "$accel" = tcg ] && qemu+=(-icount shift=0,sleep=off)
	[ -n "$share" ] && qemu+=(-fsdev "local,id=share,path=$share,security_model=none"
		-device virtio-9p-pci,fsdev=share,mount_tag=bpfshare)
	local rc
	if [ $interactive = 1 ]; then
		qemu+=(-serial mon:stdio)
		"${qemu[@]}"
		rc=$(cat "$run/status")
	else
		qemu+=(-serial "file:$run/console.log")
		# The guest's command output goes to the run directory, streamed here.
		: >"$run/output"
		tail -n +1 -f "$run/output" 2>/dev/null &
		local tailpid=$!
		timeout -k 10 "$timeout" "${qemu[@]}" </dev/null
		rc=$?
		sleep 0.2; kill $tailpid 2>/dev/null; wait $tailpid 2>/dev/null
		if [ $rc = 124 ]; then
			echo "vm: timed out after ${timeout}s" >&2
		else
			rc=$(cat "$run/status")
		fi
	fi
	vm_scan_log "$run" || { [ "$rc" = 0 ] && rc=126; }
	if [ "$rc" != 0 ] && [ $interactive = 0 ]; then
		echo "vm: exit status $rc; console log $run/console.log, last lines:" >&2
		tail -n 25 "$run/console.log" | sed 's/^/vm| /' >&2
	fi
	VM_LAST_RUN=$run
	return "$rc"
}

# vm_scan_log RUN: a WARN, oops, leak report or taint change fails the run.
vm_scan_log() {
	local run=$1 bad=0 hits
	hits=$(cat "$run/console.log" "$run/dmesg" "$run/kmemleak" 2>/dev/null | grep -E "$VM_BAD" |
		sed 's/^\[ *[0-9.]*\] //' | sort -u)
	if [ -n "$hits" ]; then
		echo "$hits" | sed 's/^/vm: kernel log: /' >&2
		[ -s "$run/kmemleak" ] && head -n 40 "$run/kmemleak" | sed 's/^/vm: kmemleak: /' >&2
		bad=1
	fi
	# TAINT_TEST (bit 18) is what loading a KUnit suite does by design;
	# a caller that forces a module out on purpose adds TAINT_FORCED_RMMOD
	# (bit 3) to VM_TAINT_OK.
	local t0 t1 ok=$(((1 << 18) | ${VM_TAINT_OK:-0}))
	[ -r "$run/taint" ] && read -r t0 t1 <"$run/taint"
	if [ -n "$t0" ] && [ $(((t0 ^ t1) & ~ok)) != 0 ]; then
		echo "vm: kernel taint changed: $(cat "$run/taint")" >&2
		bad=1
	fi
	return $bad
}

cmd_vm() { vm_run "$@"; }
cmd_shell() { vm_run --interactive "$@"; }
