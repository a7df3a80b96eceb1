# SPDX-License-Identifier: GPL-2.0
# Shared by translate/ and bench/: the helper's code built for the host
# with libbpf from the tree, and a namespace whose packets leave through
# a veth with its peer down, so OUTPUT sees them and nothing answers.

tree=${BPFILTER_TREE:-${BPFILTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpfilter}/work}
headers=${BPFILTER_HEADERS:-$tree/usr/include}
helper=$tree/net/bpfilter/helper
translate=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# build_with_helper OUT PROG CFLAGS... -- SOURCES...: OUT/PROG, linked with
# the helper's code and libbpf (built in OUT/libbpf).
build_with_helper()
{
	local out=$1 prog=$2 cflags=()

	shift 2
	while [ "$1" != -- ]; do
		cflags+=("$1")
		shift
	done
	shift
	mkdir -p "$out/libbpf"
	make -s -C "$tree/tools/lib/bpf" OUTPUT="$out/libbpf/" \
		DESTDIR="$out/libbpf" prefix= "$out/libbpf/libbpf.a" \
		install_headers
	gcc -Wall -Werror "${cflags[@]}" -I "$headers" -I "$helper" \
		-I "$translate" -I "$tree/net/bpfilter" \
		-I "$out/libbpf/include" -iquote "$tree/tools" -idirafter "$tree/tools/include" \
		-o "$out/$prog" "$@" "$translate/kernel_table.c" \
		"$helper"/{validate,ext,ir,emit,match,packet,codegen,load,classify,lookup,update}.c \
		"$out/libbpf/libbpf.a" -lelf -lz
}

# Run in a namespace of its own.
setup_netns()
{
	ip link set lo up
	# No link-local address: no DAD, MLD or RS of the kernel's own.
	sysctl -qw net.ipv6.conf.default.addr_gen_mode=1
	ip link add d0 type veth peer name d1
	ip link set d0 arp off up
	ip route add default dev d0
	ip -6 route add default dev d0
}
