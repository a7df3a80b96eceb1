#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bpfilter's helpers parse what any tenant sends with the least privilege:
# each helper process has no capability but CAP_BPF, CAP_NET_ADMIN and
# CAP_PERFMON (none in its bounding set either, so that nothing gives
# others back), no_new_privs, and a seccomp filter. A tenant's helper,
# started for a user namespace's first request, is checked as the initial
# user namespace's is, and both serve tables all the same.

source ../net/lib.sh
source ./iptables_lib.sh

need_tools iptables-legacy unshare nsenter setpriv

# CAP_NET_ADMIN (12), CAP_PERFMON (38) and CAP_BPF (39).
KEPT=000000c000001000

holders=""
cleanup()
{
	[ -z "$holders" ] || kill $holders 2>/dev/null
	cleanup_all_ns
}
trap cleanup EXIT

setup_ns a || exit "$ksft_skip"
detect_mode "$a"
if [ "$mode" != bpfilter ]; then
	skip "the privileges of bpfilter's helpers: bpfilter not loaded"
	exit "$ksft_skip"
fi

# field PID NAME: the value of NAME in /proc/PID/status.
field()
{
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"
}

# sandboxed WHO PID: the checks of one helper process.
sandboxed()
{
	local who=$1 pid=$2 f

	if [ -z "$pid" ] || [ ! -r "/proc/$pid/status" ]; then
		echo "FAIL: $who: no helper process"
		ret=1
		return
	fi
	for f in CapEff CapPrm CapBnd; do
		check "$who: $f is CAP_BPF, CAP_NET_ADMIN and CAP_PERFMON" \
			test "$(field "$pid" $f)" = $KEPT
	done
	check "$who: CapInh is empty" test "$(field "$pid" CapInh)" = 0000000000000000
	check "$who: CapAmb is empty" test "$(field "$pid" CapAmb)" = 0000000000000000
	check "$who: no_new_privs" test "$(field "$pid" NoNewPrivs)" = 1
	if [ -e /proc/sys/kernel/seccomp/actions_avail ]; then
		check "$who: a seccomp filter (mode 2)" test "$(field "$pid" Seccomp)" = 2
	else
		skip "$who: a seccomp filter: the kernel has no CONFIG_SECCOMP_FILTER"
	fi
}

check "a has a table of bpfilter's" \
	ip netns exec "$a" iptables-legacy -A INPUT -s 192.0.2.1 -j DROP
check_owned "a's table is bpfilter's" "$a" ipv4 5
sandboxed "a's helper, of a namespace of the initial user namespace" \
	"$(ip netns exec "$a" cat /proc/net/bpfilter | helper_of /dev/stdin)"

if ! tenant holder; then
	skip "a tenant's helper: no user namespace here (unshare -Urn)"
	exit $ret
fi
check "a tenant has a table of bpfilter's" \
	nsenter -t "$holder" -U -n -- iptables-legacy -A INPUT -s 192.0.2.2 -j DROP
check "the tenant's table is bpfilter's" \
	grep -q "^ipv4 filter entries=5 " "/proc/$holder/net/bpfilter"
sandboxed "a tenant's helper" "$(helper_of "/proc/$holder/net/bpfilter")"

exit $ret
