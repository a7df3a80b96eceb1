# SPDX-License-Identifier: GPL-2.0
# Install what the build, the VM and the tests need, from Debian's archive.
# Sourced by build.sh.

DEPS_PKGS=(
	bc bison ccache clang codespell cpio dwarves flex gcc git iproute2
	iptables iputils-ping kmod libcap-dev libelf-dev libmnl-dev libssl-dev llvm make
	bpftool nftables perl python3 python3-git python3-ply qemu-system-x86 rsync xz-utils zlib1g-dev
)

deps_missing() {
	local p
	for p in "${DEPS_PKGS[@]}"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed' || echo "$p"
	done
}

cmd_deps() {
	local missing
	missing=$(deps_missing)
	if [ -n "$missing" ]; then
		[ "$(id -u)" = 0 ] || die "missing packages (run as root to install): $missing"
		stage "apt-get install $(echo $missing)" sh -c '
			export DEBIAN_FRONTEND=noninteractive
			apt-get update -qq &&
			apt-get install -y -qq --no-install-recommends "$@" >/dev/null' sh \
			$missing || die "apt-get failed"
	fi
	mkdir -p "$CACHE" "$CCACHE_DIR"
	newer_base_warning
	# The guest mounts the built modules over /lib/modules, which must
	# exist in the host root it shares (a host without modules lacks it).
	[ -d /usr/lib/modules ] || mkdir -p /usr/lib/modules || die "cannot create /usr/lib/modules"
}
