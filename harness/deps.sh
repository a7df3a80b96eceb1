# SPDX-License-Identifier: GPL-2.0
# Install what the build, the VM and the tests need, from Debian's archive.
# Sourced by build.sh.

DEPS_PKGS=(
	bc bison ccache clang codespell cpio dwarves flex gcc git iproute2
	iptables iputils-ping kmod libcap-dev libelf-dev libmnl-dev libssl-dev llvm make
	nftables perl python3 python3-git python3-ply qemu-system-x86 rsync xz-utils zlib1g-dev
)

deps_missing() {
	local p
	for p in "${DEPS_PKGS[@]}" "$BASE_PKG"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed' || echo "$p"
	done
}

# The base package is pinned: the patches' base-commit: names its tree.
install_base_pkg() {
	local have
	have=$(dpkg-query -W -f='${Version}' "$BASE_PKG" 2>/dev/null)
	[ "$have" = "$BASE_VERSION" ] && return 0
	{ apt-get install -y -qq --no-install-recommends "$BASE_PKG=$BASE_VERSION" ||
	  { apt-get update -qq &&
	    apt-get install -y -qq --no-install-recommends "$BASE_PKG=$BASE_VERSION"; }
	} >/dev/null || die "cannot install $BASE_PKG=$BASE_VERSION from apt"
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
			$(echo "$missing" | grep -vx "$BASE_PKG") || die "apt-get failed"
	fi
	install_base_pkg
	newer_base_warning
	# The guest mounts the built modules over /lib/modules, which must
	# exist in the host root it shares (a host without modules lacks it).
	[ -d /usr/lib/modules ] || mkdir -p /usr/lib/modules || die "cannot create /usr/lib/modules"
	mkdir -p "$CACHE" "$CCACHE_DIR"
}
