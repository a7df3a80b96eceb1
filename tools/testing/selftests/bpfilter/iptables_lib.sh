#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the iptables-legacy tests of bpfilter. Sourced after
# ../net/lib.sh, from the tests' directory.
#
# Every test passes both with the bpfilter module loaded and without it
# (iptables-legacy then talks to ip_tables): what an administrator sees must
# not depend on which one answers. Checks that only make sense with bpfilter
# (which tables it owns, its helper process) are guarded by $mode.

# shellcheck disable=SC2034 # $ret is the exit status of the sourcing test
ret=0
mode=ip_tables

# check WHAT CMD...: one subtest, PASS or FAIL as CMD succeeds.
check()
{
	local what=$1
	shift

	if "$@"; then
		echo "PASS: $what"
	else
		echo "FAIL: $what"
		ret=1
	fi
}

skip()
{
	echo "SKIP: $*"
}

# same_text GOT WANT: equal, or show the difference.
same_text()
{
	[ "$1" = "$2" ] && return 0
	diff -u <(echo "$2") <(echo "$1") | head -n 40
	return 1
}

# fails MESSAGE CMD...: CMD must fail and say MESSAGE (the error text is
# part of what users see; iptables makes it from the errno it got).
fails()
{
	local msg=$1 out
	shift

	if out=$("$@" 2>&1); then
		echo "succeeded: $*"
		return 1
	fi
	grep -qF -- "$msg" <<<"$out" && return 0
	echo "expected \"$msg\", got: $out"
	return 1
}

# need_tools TOOL...: without one of them the test cannot run at all.
need_tools()
{
	local tool

	for tool in "$@"; do
		if ! command -v "$tool" >/dev/null; then
			skip "$tool not found"
			exit "$ksft_skip"
		fi
	done
}

# detect_mode NS: the mode under test, in $mode. The tests are of
# bpfilter, which they load if it is not (a kernel without it skips),
# unless BPFILTER_MODE=ip_tables: then bpfilter must not be loaded. The
# module shows /proc/net/bpfilter in every namespace.
detect_mode()
{
	if [ "${BPFILTER_MODE:-bpfilter}" = ip_tables ]; then
		if ip netns exec "$1" test -e /proc/net/bpfilter; then
			echo "FAIL: BPFILTER_MODE=ip_tables, but bpfilter is loaded"
			exit 1
		fi
		mode=ip_tables
	elif ip netns exec "$1" test -e /proc/net/bpfilter || modprobe -q bpfilter; then
		mode=bpfilter
	else
		skip "this kernel has no bpfilter module (CONFIG_BPFILTER_UMH)"
		exit "$ksft_skip"
	fi
	echo "# mode: $mode"
}

# saved NS SAVE-TOOL [ARGS]: the iptables-save text, without the comment
# lines that carry the date.
saved()
{
	local ns=$1
	shift

	ip netns exec "$ns" "$@" | grep -v '^#'
}

# bpfilter_line NS PROTO: the /proc/net/bpfilter line of the filter table
# of PROTO (ipv4, ipv6) in NS; empty when bpfilter does not own it.
bpfilter_line()
{
	ip netns exec "$1" cat /proc/net/bpfilter | grep "^$2 filter "
}

# owned NS PROTO ENTRIES: bpfilter owns the table and counts ENTRIES
# entries the way ip_tables does (each rule, each built-in chain's policy,
# two for each user chain, one for the table's end).
owned()
{
	local line

	line=$(bpfilter_line "$1" "$2")
	[[ $line =~ ^$2\ filter\ entries=$3\ prog=[0-9]+\ insns=[0-9]+$ ]] && return 0
	echo "/proc/net/bpfilter: ${line:-no line for $2 filter}"
	return 1
}

not_owned()
{
	local line

	line=$(bpfilter_line "$1" "$2")
	[ -z "$line" ] && return 0
	echo "/proc/net/bpfilter: $line"
	return 1
}

# check_owned WHAT NS PROTO ENTRIES / check_not_owned WHAT NS PROTO:
# ownership subtests, skipped without bpfilter.
check_owned()
{
	if [ "$mode" = bpfilter ]; then
		check "$1" owned "$2" "$3" "$4"
	else
		skip "$1: bpfilter not loaded"
	fi
}

check_not_owned()
{
	if [ "$mode" = bpfilter ]; then
		check "$1" not_owned "$2" "$3"
	else
		skip "$1: bpfilter not loaded"
	fi
}

# iptables_hooked NS PROTO: ip_tables' filter table of PROTO runs at
# OUTPUT in NS (nft lists the functions at each hook).
iptables_hooked()
{
	local fam=ip fn=ipt_do_table

	[ "$2" = ipv6 ] && fam=ip6 fn=ip6t_do_table
	ip netns exec "$1" nft list hooks "$fam" |
		sed -n '/hook output {/,/}/p' | grep -qw "$fn"
}

iptables_unhooked()
{
	! iptables_hooked "$@"
}

# check_hooked WHEN NS PROTO yes|no: whether ip_tables' filter table runs
# at its hooks; bpfilter takes it off them while it serves the table, the
# initial one included. With ip_tables alone, it always runs.
check_hooked()
{
	local want=$4

	if ! ip netns exec "$2" nft list hooks 2>/dev/null | grep -q "hook "; then
		skip "$3: ip_tables' hooks $1: no nft list hooks"
		return
	fi
	[ "$mode" = bpfilter ] || want=yes
	if [ "$want" = yes ]; then
		check "$3: ip_tables' table at its hooks $1" \
			iptables_hooked "$2" "$3"
	else
		check "$3: ip_tables' table off its hooks $1" \
			iptables_unhooked "$2" "$3"
	fi
}

# helper_pids: the pids of bpfilter's user-mode helper, one a line.
helper_pids()
{
	pgrep -x bpfilter_umh
}

# have_ext PROTO match|target NAME [MODULE]: the kernel knows the extension
# (registered, or loadable); the tests of other extensions skip without it.
have_ext()
{
	local file=/proc/net/ip_tables_matches

	[ "$2" = target ] && file=/proc/net/ip_tables_targets
	[ "$1" = ipv6 ] && file=${file/ip_/ip6_}
	grep -qx "$3" "$file" 2>/dev/null && return 0
	[ -n "$4" ] && modprobe -q "$4" 2>/dev/null &&
		grep -qx "$3" "$file" 2>/dev/null
}

# gone PID: wait up to $WAIT s (20 by default) for PID to exit; true if
# it did.
gone()
{
	local end=$((SECONDS + ${WAIT:-20}))

	while [ $SECONDS -lt $end ]; do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.2
	done
	! kill -0 "$1" 2>/dev/null
}

# blocked PID: wait up to $WAIT s for PID to sleep in the kernel where
# only a fatal signal, if anything, wakes it (state D), for a second on
# end: waiting for the helper, or for another request to be done with it.
blocked()
{
	local end=$((SECONDS + ${WAIT:-20})) state seen=0

	while [ $SECONDS -lt $end ]; do
		state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)
		[ -n "$state" ] || return 1
		if [ "$state" = D ]; then
			seen=$((seen + 1))
			[ $seen -ge 5 ] && return 0
		else
			seen=0
		fi
		sleep 0.2
	done
	return 1
}

# helper_of FILE: the pid of the helper that /proc/net/bpfilter FILE
# names.
helper_of()
{
	sed -n 's/^helper pid=\([0-9]*\)$/\1/p' "$1"
}

# served PID ENTRIES: bpfilter serves the IPv4 filter table of PID's
# network namespace, with ENTRIES entries.
served()
{
	grep -q "^ipv4 filter entries=$2 " "/proc/$1/net/bpfilter"
}

# own_userns PID: PID runs sleep, in a user namespace not ours.
own_userns()
{
	local ns

	ns=$(readlink "/proc/$1/ns/user" 2>/dev/null) && [ -n "$ns" ] &&
		[ "$ns" != "$(readlink /proc/self/ns/user)" ] &&
		[ "$(cat "/proc/$1/comm" 2>/dev/null)" = sleep ]
}

# tenant NAME [SETPRIV-ARGS...]: a process that holds a user namespace
# and a network namespace it owns, made by a user that setpriv makes;
# its pid in the variable NAME, and added to $holders for the caller to
# kill.
tenant()
{
	local pid name=$1

	shift
	setpriv "$@" unshare --user --map-root-user --net sleep 1000 &
	pid=$!
	holders="$holders $pid"
	printf -v "$name" %s "$pid"
	# unshare has made the namespaces once it has exec'd sleep.
	for _ in $(seq 50); do
		own_userns "$pid" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# mark WHAT: a line of the kernel log that logged() looks after.
mark()
{
	marker="bpfilter ${0##*/}: $1 $$"
	echo "$marker" > /dev/kmsg
}

# logged TEXT: the kernel logged TEXT after the last mark.
logged()
{
	dmesg | awk -v m="$marker" 'index($0, m) { n = NR } { l[NR] = $0 }
		END { for (i = n + 1; i <= NR; i++) print l[i] }' |
		grep -qF -- "$1"
}
