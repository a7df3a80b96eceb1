#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Loading and unloading bpfilter while namespaces hold tables. The module
# must stay while a table it owns differs from the initial one (rules, user
# chains, a policy other than ACCEPT), and go once those tables are back to
# the initial state or their namespace is gone. Tables ip_tables owns (the
# nat table, a filter table with a limit match) live through every load and unload
# unchanged. A forced unload leaves the namespaces' tables to ip_tables.
# Runs only where bpfilter is a module (the test guest), and leaves it
# loaded or not, as it found it.

source ../net/lib.sh
source ./iptables_lib.sh

need_tools modinfo modprobe rmmod iptables-legacy ip6tables-legacy \
	iptables-legacy-restore ip6tables-legacy-restore \
	iptables-legacy-save ip6tables-legacy-save ip ping

CYCLES=${MODULE_CYCLES:-20}

case $(modinfo -F filename bpfilter 2>/dev/null) in
*.ko | *.ko.*) ;;
*)
	skip "bpfilter is not a loadable module in this kernel"
	exit "$ksft_skip"
	;;
esac

loaded()
{
	[ -d /sys/module/bpfilter ]
}

# unused: what rmmod looks at; absent when the module is not loaded.
unused()
{
	[ ! -e /sys/module/bpfilter/refcnt ] ||
		[ "$(cat /sys/module/bpfilter/refcnt)" = 0 ]
}

# rmmod_quiet: one try, for slowwait.
rmmod_quiet()
{
	rmmod bpfilter 2>/dev/null
}

no_helper()
{
	[ -z "$(helper_pids)" ]
}

was_loaded=no
loaded && was_loaded=yes
echo "# bpfilter loaded at the start: $was_loaded"
# Namespaces of earlier tests may still be going away, holding the module.
# A module still held after that leaks a reference: fail, not skip.
if ! slowwait 60 unused; then
	echo "FAIL: bpfilter still in use 60 s after the earlier tests" \
		"(refcnt $(cat /sys/module/bpfilter/refcnt))"
	exit 1
fi

tmp=$(mktemp -d)

cleanup()
{
	cleanup_all_ns
	# Deleted namespaces release the module in the background.
	if [ "$was_loaded" = yes ]; then
		modprobe bpfilter
	elif loaded && ! slowwait 30 rmmod_quiet; then
		echo "# could not unload bpfilter again"
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

setup_ns keep work gone || exit "$ksft_skip"

# The served ruleset of the work namespace, for IPv4 and IPv6 alike: a
# policy, a user chain, rules.
cat >"$tmp/rules" <<EOF
*filter
:INPUT DROP [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:svc - [0:0]
-A INPUT -i lo -j ACCEPT
-A INPUT -p tcp -j svc
-A svc -p tcp -m tcp --dport 22 -j ACCEPT
COMMIT
EOF
# 3 rules, 3 policies, 2 for the chain, the end.
ENTRIES=9
EMPTY="*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
COMMIT"

# ip_tables' tables in the keep namespace, set before any cycle: a filter
# table with a limit match (bpfilter does not serve it) and, where the
# kernel has it, a nat rule.
setup_keep()
{
	local fam ipt

	for fam in 4 6; do
		ipt=iptables-legacy
		[ $fam = 6 ] && ipt=ip6tables-legacy
		if have_ext "ipv$fam" match limit xt_limit; then
			ip netns exec "$keep" $ipt -A INPUT -p tcp --dport 23 \
				-m limit --limit 5/s -j ACCEPT
			ip netns exec "$keep" $ipt -A INPUT -p tcp --dport 23 -j DROP
		else
			skip "$ipt: filter table with limit: not in this kernel"
		fi
		if ip netns exec "$keep" $ipt -t nat -S >/dev/null 2>&1 &&
		   have_ext "ipv$fam" target DNAT xt_nat; then
			ip netns exec "$keep" $ipt -t nat -A OUTPUT \
				-p tcp --dport 8080 -j DNAT --to-destination :80
		else
			skip "$ipt: nat table: not in this kernel"
		fi
	done
}

keep_not_owned()
{
	not_owned "$keep" ipv4 && not_owned "$keep" ipv6
}

keep_tables()
{
	saved "$keep" iptables-legacy-save
	saved "$keep" ip6tables-legacy-save
}

work_table()
{
	saved "$work" "$1" -t filter
}

in_work()
{
	ip netns exec "$work" "$@"
}

# flush FAM STEP: take the filter table of the work namespace back to the
# initial one the way an administrator does; STEP 1 only flushes, 2 also
# deletes the chains, 3 also sets the policies back.
flush()
{
	local ipt=iptables-legacy step

	[ "$1" = 6 ] && ipt=ip6tables-legacy
	for ((step = 1; step <= $2; step++)); do
		case $step in
		1) in_work $ipt -F ;;
		2) in_work $ipt -X ;;
		3) in_work $ipt -P INPUT ACCEPT ;;
		esac
	done
}

flush_steps()
{
	case $1 in
	1) echo "-F" ;;
	2) echo "-F, -X" ;;
	esac
}

# cycle N: one load, fill, refused unload, flush, unload. Which family is
# flushed first, and how far (-F, or -F and -X) before an unload is tried,
# rotates over the cycles.
cycle()
{
	local n=$1 first=4 second=6 partial

	[ $((n % 2)) = 0 ] && first=6 second=4
	partial=$(((n - 1) / 2 % 2 + 1))

	check "cycle $n: modprobe bpfilter" modprobe bpfilter
	check "cycle $n: bpfilter answers in the namespace" \
		ip netns exec "$work" test -e /proc/net/bpfilter
	in_work iptables-legacy-restore "$tmp/rules"
	in_work ip6tables-legacy-restore "$tmp/rules"
	check "cycle $n: ipv4 table owned" owned "$work" ipv4 $ENTRIES
	check "cycle $n: ipv6 table owned" owned "$work" ipv6 $ENTRIES
	check "cycle $n: ip_tables' tables not taken" keep_not_owned
	check "cycle $n: rmmod refused while tables have rules" \
		fails "in use" rmmod bpfilter

	flush $first "$partial"
	check "cycle $n: rmmod refused after ipv$first $(flush_steps "$partial")" \
		fails "in use" rmmod bpfilter
	flush $first 3
	check "cycle $n: rmmod refused while the ipv$second table has rules" \
		fails "in use" rmmod bpfilter
	flush $second 3
	# ip_tables' tables are off their hooks while bpfilter serves the
	# initial tables, and back at them once it went.
	if ip netns exec "$work" nft list hooks 2>/dev/null | grep -q "hook "; then
		check "cycle $n: ip_tables' ipv4 table off its hooks before rmmod" \
			iptables_unhooked "$work" ipv4
		check "cycle $n: ip_tables' ipv6 table off its hooks before rmmod" \
			iptables_unhooked "$work" ipv6
	fi
	# A replaced IPv6 program called a kfunc of the module, and holds it
	# until the kernel frees it, an RCU grace period later.
	check "cycle $n: rmmod once both tables are initial" \
		slowwait 5 rmmod_quiet
	check "cycle $n: no bpfilter_umh left" slowwait 5 no_helper
	check_hooked "after rmmod, cycle $n" "$work" ipv4 yes
	check_hooked "after rmmod, cycle $n" "$work" ipv6 yes

	check "cycle $n: the work tables read as initial" same_text \
		"$(work_table iptables-legacy-save; work_table ip6tables-legacy-save)" \
		"$EMPTY
$EMPTY"
	check "cycle $n: ip_tables' tables unchanged" \
		same_text "$(keep_tables)" "$keep_before"
}

# Start without the module: the keep tables are ip_tables' from the start.
if loaded && ! rmmod bpfilter; then
	echo "FAIL: rmmod bpfilter at the start, with no table in any namespace"
	exit 1
fi
setup_keep
keep_before=$(keep_tables)
echo "# tables kept by ip_tables:"
sed 's/^/#   /' <<<"$keep_before"

for ((i = 1; i <= CYCLES; i++)); do
	cycle $i
done

# A namespace going away releases the module too (in the background).
modprobe bpfilter
ip netns exec "$gone" iptables-legacy-restore "$tmp/rules"
check "rmmod refused while a namespace has rules" fails "in use" rmmod bpfilter
cleanup_ns "$gone"
check "rmmod once that namespace is deleted" slowwait 30 rmmod_quiet
check "ip_tables' tables unchanged at the end" \
	same_text "$(keep_tables)" "$keep_before"

no_counters()
{
	sed 's/ \[[0-9]*:[0-9]*\]$//'
}

# refused NS PING-ARGS: a ping that OUTPUT's policy DROP refuses.
refused()
{
	local ns=$1
	shift

	! ip netns exec "$ns" ping -q -c 1 -W 1 "$@" >/dev/null 2>&1
}

# A forced unload (rmmod -f) while a namespace's tables have rules: the
# module gives them to ip_tables before its programs go, so the namespace
# keeps its filter (here OUTPUT's policy DROP), at ip_tables' hooks.
force_unload()
{
	local before out

	modprobe bpfilter
	in_work iptables-legacy-restore "$tmp/rules"
	in_work ip6tables-legacy-restore "$tmp/rules"
	in_work iptables-legacy -P OUTPUT DROP
	in_work ip6tables-legacy -P OUTPUT DROP
	check "forced unload: ipv4 table owned" owned "$work" ipv4 $ENTRIES
	check "forced unload: ipv6 table owned" owned "$work" ipv6 $ENTRIES
	check "forced unload: OUTPUT's DROP refuses a ping (ipv4)" \
		refused "$work" 127.0.0.1
	check "forced unload: OUTPUT's DROP refuses a ping (ipv6)" \
		refused "$work" ::1
	before=$(work_table iptables-legacy-save; work_table ip6tables-legacy-save)
	if ! out=$(rmmod -f bpfilter 2>&1); then
		# Without CONFIG_MODULE_FORCE_UNLOAD, -f changes nothing.
		skip "rmmod -f: $out"
		return
	fi
	check "forced unload: the module is gone" eval '! loaded'
	check "forced unload: ip_tables has the ipv4 table" \
		same_text "$(work_table iptables-legacy-save | no_counters)" \
		"$(sed -n '1,/^COMMIT/p' <<<"$before" | no_counters)"
	check "forced unload: ip_tables has the ipv6 table" \
		same_text "$(work_table ip6tables-legacy-save | no_counters)" \
		"$(sed '1,/^COMMIT/d' <<<"$before" | no_counters)"
	check "forced unload: OUTPUT's DROP still refuses a ping (ipv4)" \
		refused "$work" 127.0.0.1
	check "forced unload: OUTPUT's DROP still refuses a ping (ipv6)" \
		refused "$work" ::1
	check_hooked "after a forced unload" "$work" ipv4 yes
	check_hooked "after a forced unload" "$work" ipv6 yes
	in_work iptables-legacy-restore <<<"$EMPTY"
	in_work ip6tables-legacy-restore <<<"$EMPTY"
}

force_unload

exit $ret
