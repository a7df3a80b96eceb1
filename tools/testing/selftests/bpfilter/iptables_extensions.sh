#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every extension Debian's iptables drives, as ip_tables takes it. Each
# section of iptables_extensions.rules (the format of iptables' own
# extensions/*.t files) goes into the filter table of two namespaces: in
# "b" bpfilter serves it, with its bridge to the kernel's matches and
# targets; in "r" ip_tables serves it, because the table is set while
# bpfilter's bridge parameter is N and has a chain only the kernel's limit
# match can serve. The rules a section says load must load together, save
# as the section says, and save the same in b and r; the rules it says are
# refused must be refused in both with the same message (iptables makes
# it from the errno) and leave the table as it was. With bpfilter, b's
# table must be bpfilter's and r's not. Without bpfilter, r would be b's
# twin: b alone is held to the sections' own expectations.

source ../net/lib.sh
source ./iptables_lib.sh

RULES=${RULES:-./iptables_extensions.rules}
# Under TCG an extension takes about 10 s: by default a third of them, a
# different third each day; IPT_EXT_SHARE=1 runs them all.
SHARE=${IPT_EXT_SHARE:-3}
PART=${IPT_EXT_PART:-$(( $(date +%j | sed 's/^0*//') % SHARE ))}
BRIDGE=/sys/module/bpfilter/parameters/bridge
# ip_tables serves r's table: one rule bpfilter would bridge, never run.
ZZZ="-A zzz -m limit --limit 1000/s"

need_tools iptables-legacy ip6tables-legacy iptables-legacy-save \
	ip6tables-legacy-save iptables-legacy-restore ip6tables-legacy-restore ip

cleanup()
{
	[ -w "$BRIDGE" ] && echo Y >"$BRIDGE"
	cleanup_all_ns
}

trap cleanup EXIT
setup_ns b r || exit "$ksft_skip"
detect_mode "$b"
twin=""
if [ "$mode" = bpfilter ]; then
	if [ ! -w "$BRIDGE" ]; then
		echo "FAIL: bpfilter has no writable bridge parameter"
		exit 1
	fi
	twin=1
fi

# twin CMD...: CMD, for r; without bpfilter, r would be b's twin, and the
# sections' own expectations are what b is checked against.
twin()
{
	[ -z "$twin" ] || "$@"
}

# bridge Y|N: bpfilter's bridge parameter, where there is one.
bridge()
{
	[ "$mode" = bpfilter ] && echo "$1" >"$BRIDGE"
}

# tools 4|6: the tools of the family.
tools()
{
	if [ "$1" = ipv4 ]; then
		IPT=iptables-legacy SAVE=iptables-legacy-save
		RESTORE=iptables-legacy-restore
	else
		IPT=ip6tables-legacy SAVE=ip6tables-legacy-save
		RESTORE=ip6tables-legacy-restore
	fi
}

# save NS: the filter table without r's chain, counters or comments.
save()
{
	saved "$1" "$SAVE" -t filter 2>/dev/null | grep -v -e '^:zzz ' -e '^-A zzz ' |
		sed 's/ \[[0-9]*:[0-9]*\]$//'
}

# in_fam K: rule K of the extension is for the family under test.
in_fam()
{
	[ "${r_fam[$1]}" = "$fam" ] || [ "${r_fam[$1]}" = both ]
}

# in_chain K CHAIN: rule K of the extension goes into CHAIN.
in_chain()
{
	[[ ,${r_chains[$1]}, == *,$2,* ]]
}

# loaded FIELD: "-A CHAIN FIELD" of the extension's rules that load, in
# built-in chain order (FIELD: r_rule as written, r_saved as saved).
loaded()
{
	local -n field=$1
	local chain k

	for chain in INPUT FORWARD OUTPUT; do
		for k in "${!r_rule[@]}"; do
			[ "${r_kind[$k]}" = OK ] && in_fam "$k" &&
				in_chain "$k" "$chain" &&
				printf -- '-A %s %s\n' "$chain" "${field[$k]}"
		done
	done
}

# table NS: restore text of the extension's rules that load.
table()
{
	printf '*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n'
	printf ':OUTPUT ACCEPT [0:0]\n'
	[ "$1" = r ] && printf ':zzz - [0:0]\n%s\n' "$ZZZ"
	loaded r_rule
	printf 'COMMIT\n'
}

# want: the save text the extension's rules that load ask for.
want()
{
	printf '*filter\n:INPUT ACCEPT\n:FORWARD ACCEPT\n:OUTPUT ACCEPT\n'
	loaded r_saved
	printf 'COMMIT\n'
}

# load NS: the rules that load, in one restore (r: with the bridge off).
load()
{
	local out rc

	[ "$1" = r ] && bridge N
	out=$(table "$1" | ip netns exec "${!1}" "$RESTORE" 2>&1)
	rc=$?
	[ "$1" = r ] && bridge Y
	[ $rc = 0 ] && return 0
	echo "$1: $RESTORE failed: $out"
	return 1
}

# refuse NS CHAIN RULE: the error text of appending RULE, which must fail.
refuse()
{
	local out

	if out=$(eval "ip netns exec \"\${!1}\" $IPT -A $2 $3" 2>&1); then
		echo "accepted"
		return 1
	fi
	echo "$out"
}

# check_family: the extension's rules of $fam, one result.
check_family()
{
	local sb sr e k rc chain msg nok=0 nfail=0 problems=""

	tools "$fam"
	for k in "${!r_rule[@]}"; do
		in_fam "$k" || continue
		if [ "${r_kind[$k]}" = OK ]; then
			nok=$((nok + 1))
		else
			nfail=$((nfail + 1))
		fi
	done
	[ $((nok + nfail)) -gt 0 ] || return 0

	if e=$(load b && twin load r); then
		sb=$(save "$b")
		e=$(same_text "$sb" "$(want)") ||
			problems+="saved otherwise than written:"$'\n'"$e"$'\n'
		sr=$(twin save "$r")
		[ -z "$twin" ] || e=$(same_text "$sb" "$sr") ||
			problems+="bpfilter and ip_tables save otherwise:"$'\n'"$e"$'\n'
	else
		problems+="$e"$'\n'
		sb=$(save "$b")
	fi
	if [ -n "$twin" ]; then
		[ -n "$(bpfilter_line "$b" "$fam")" ] ||
			problems+="bpfilter does not serve b's table"$'\n'
		[ -z "$(bpfilter_line "$r" "$fam")" ] ||
			problems+="bpfilter serves r's table"$'\n'
	fi

	# A refusal in the first chain of its group: sections that refuse a
	# rule in some chains only have a group for them.
	for k in "${!r_rule[@]}"; do
		[ "${r_kind[$k]}" = FAIL ] && in_fam "$k" || continue
		for chain in INPUT FORWARD OUTPUT; do
			in_chain "$k" "$chain" && break
		done
		if ! e=$(refuse b "$chain" "${r_rule[$k]}"); then
			problems+="$mode took -A $chain ${r_rule[$k]}"$'\n'
			continue
		fi
		[ -n "$twin" ] || continue
		bridge N
		msg=$(refuse r "$chain" "${r_rule[$k]}")
		rc=$?
		bridge Y
		if [ $rc != 0 ]; then
			problems+="ip_tables took -A $chain ${r_rule[$k]}"$'\n'
		elif [ "$e" != "$msg" ]; then
			problems+="-A $chain ...: bpfilter \"$e\", ip_tables \"$msg\""$'\n'
		fi
	done
	[ $nfail = 0 ] || same_text "$(save "$b")" "$sb" >/dev/null ||
		problems+="a refused rule changed the table"$'\n'
	[ -z "$problems" ] || printf '%s' "$problems" | sed "s/^/# $ext $fam: /"
	check "$ext $fam: $nok rules load and save as with ip_tables, $nfail refused as there" \
		test -z "$problems"
}

# extension: the checks of the extension read last, if of the share.
extension()
{
	[ -n "$ext" ] && [ ${#r_rule[@]} -gt 0 ] || return 0
	next=$((next + 1))
	[ $(((next - 1) % SHARE)) = "$PART" ] || return 0
	for fam in ipv4 ipv6; do
		check_family
	done
}

# held: rmmod refuses the module of a match and of a target while a table
# uses them, and takes them once no table does (the old table's extensions
# are destroyed once it can no longer run, as with ip_tables).
held()
{
	local m i

	tools ipv4
	ip netns exec "$b" "$IPT" -F
	ip netns exec "$b" "$IPT" -A INPUT -m statistic --mode nth --every 2 --packet 0 \
		-j AUDIT --type accept || return 1
	for m in xt_statistic xt_AUDIT; do
		if rmmod "$m" 2>/dev/null; then
			echo "rmmod $m while a table uses it"
			return 1
		fi
	done
	ip netns exec "$b" "$IPT" -F
	for m in xt_statistic xt_AUDIT; do
		for i in $(seq 50); do
			rmmod "$m" 2>/dev/null && continue 2
			sleep 0.1
		done
		echo "rmmod $m refused after the table went"
		return 1
	done
}

if [ -e /sys/module/xt_statistic/refcnt ] || modprobe -q xt_statistic &&
   [ -e /sys/module/xt_statistic/refcnt ]; then
	check "the modules of a table's extensions stay while it uses them" held
else
	skip "xt_statistic is not a module here (CONFIG_NETFILTER_XT_MATCH_STATISTIC=m)"
fi

echo "# extensions $((PART + 1)), $((PART + 1 + SHARE)) ...: one in $SHARE (IPT_EXT_SHARE)"
ext="" fam="" chains="" next=0
r_kind=() r_rule=() r_saved=() r_fam=() r_chains=()
while IFS= read -r line || [ -n "$line" ]; do
	case $line in
	""|"#"*) continue ;;
	@ext\ *)
		extension
		r_kind=() r_rule=() r_saved=() r_fam=() r_chains=()
		ext=${line#@ext } ext=${ext%%[ #]*} fam="" chains=""
		continue ;;
	@family\ *) fam=${line#@family } fam=${fam%%[ #]*}; continue ;;
	:*) chains=${line#:} chains=${chains%%[ #]*}; continue ;;
	esac
	res=${line##*;}
	rest=${line%;*}
	saved=${rest##*;}
	rule=${rest%;*}
	[ "$saved" = = ] && saved=$rule
	case $res in
	OK|FAIL) ;;
	*) echo "FAIL: $RULES: bad line: $line"; ret=1; continue ;;
	esac
	if [ -z "$fam" ] || [ -z "$chains" ]; then
		echo "FAIL: $RULES: no @family or chains before: $line"
		ret=1
		continue
	fi
	r_kind+=("$res") r_rule+=("$rule") r_saved+=("$saved")
	r_fam+=("$fam") r_chains+=("$chains")
done <"$RULES"
extension
exit $ret
