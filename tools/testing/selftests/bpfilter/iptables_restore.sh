#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iptables-legacy-restore with large rulesets: 10,000 rules in, the same
# text out of iptables-save, a restore with -n adding to a table, and
# restores that fail (a syntax error, a loop the kernel refuses) leaving
# the table as it was. With bpfilter loaded, its helper is killed in the
# middle of restores and while idle: a table is then the old or the new
# one, whole, never a mix, and the next restore works.

source ../net/lib.sh
source ./iptables_lib.sh

need_tools iptables-legacy-restore ip6tables-legacy-restore \
	iptables-legacy-save ip6tables-legacy-save ip awk

# The number of rules with a source address of their own: BIG for the
# round trip, N (SMALL) for the tests that restore many times, where a
# restore must still take long enough to be killed in the middle.
BIG=${RESTORE_RULES:-10000}

# How long a restore of N rules takes, for each family: when to kill.
declare -a restore_ms

tmp=$(mktemp -d)
trap 'cleanup_all_ns; rm -rf "$tmp"' EXIT
setup_ns ns || exit "$ksft_skip"
detect_mode "$ns"

# bpfilter compiles every table into a program (test_compiled checks 1,000
# rules, test_big 10,000): fewer rules keep its many restores quick under
# emulation.
SMALL=${RESTORE_SMALL:-1000}
[ "$mode" = bpfilter ] && SMALL=${RESTORE_SMALL:-150}
N=$SMALL

# gen_rules 4|6 VARIANT [EXTRA]: a filter table of N rules spread over INPUT
# and two user chains, each with its own source address, written the way
# iptables-save prints it. VARIANT changes the ports and verdicts (and the
# IPv6 addresses); EXTRA adds what extra_rules adds with -n.
gen_rules()
{
	awk -v fam="$1" -v n="$N" -v var="$2" -v extra="${3:-0}" '
	function addr(i)
	{
		if (fam == 4)
			return sprintf("10.%d.%d.%d/32", int(i / 65536) % 256,
				       int(i / 256) % 256, i % 256)
		return sprintf("2001:db8:%x::%x/128", var + 1, i)
	}
	BEGIN {
		split("INPUT ua ub", chain, " ")
		print "*filter"
		print ":INPUT ACCEPT [0:0]"
		print ":FORWARD ACCEPT [0:0]"
		print ":OUTPUT ACCEPT [0:0]"
		print ":ua - [0:0]"
		print ":ub - [0:0]"
		if (extra)
			print ":uc - [0:0]"
		print "-A INPUT -p udp -j ua"
		print "-A INPUT -p udp -j ub"
		for (c = 1; c <= 3; c++) {
			for (i = c; i <= n; i += 3)
				printf "-A %s -s %s -p udp -m udp --dport %d -j %s\n",
					chain[c], addr(i), 1024 + (i * 7 + var) % 60000,
					(i + var) % 2 ? "DROP" : "ACCEPT"
			if (extra && c == 1)
				print "-A INPUT -p tcp -j uc"
		}
		if (extra)
			print "-A uc -p tcp -m tcp --dport 22 -j ACCEPT"
		print "COMMIT"
	}'
}

# What -n adds to a table of gen_rules.
extra_rules()
{
	echo "*filter
:uc - [0:0]
-A INPUT -p tcp -j uc
-A uc -p tcp -m tcp --dport 22 -j ACCEPT
COMMIT"
}

use_family()
{
	fam=$1
	if [ "$fam" = 4 ]; then
		RESTORE=iptables-legacy-restore SAVE=iptables-legacy-save
	else
		RESTORE=ip6tables-legacy-restore SAVE=ip6tables-legacy-save
	fi
	A=$tmp/a$fam B=$tmp/b$fam
}

restore()
{
	ip netns exec "$ns" "$RESTORE" "$@"
}

table()
{
	saved "$ns" "$SAVE" -t filter
}

# is_table FILE: the filter table is exactly FILE.
is_table()
{
	same_text "$(table)" "$(cat "$1")"
}

# is_either FILE1 FILE2: the filter table is one of them, exactly.
is_either()
{
	local t

	t=$(table)
	[ "$t" = "$(cat "$1")" ] || [ "$t" = "$(cat "$2")" ] && return 0
	echo "the table is neither; it has $(grep -c '^-A' <<<"$t") rules"
	return 1
}

# roundtrip: what iptables-save prints, straight into iptables-restore.
roundtrip()
{
	ip netns exec "$ns" "$SAVE" -t filter | restore
}

# test_big: BIG rules in, the same text out, and back in.
test_big()
{
	N=$BIG
	gen_rules "$fam" 0 >"$A"
	check "$RESTORE of $N rules" restore "$A"
	check "$SAVE prints the $N rules as restored" is_table "$A"

	table >"$tmp/saved"
	check "$SAVE | $RESTORE of $N rules" roundtrip
	check "$SAVE | $RESTORE | $SAVE is the same" is_table "$tmp/saved"
	# Runs of simple rules: bpfilter's classifier, not code per rule.
	if [ "$mode" = bpfilter ]; then
		check "bpfilter runs the $N rules as a BPF program" compiled
	fi
	N=$SMALL
}

test_restore()
{
	local t0 mid

	gen_rules "$fam" 0 >"$A"
	gen_rules "$fam" 1 >"$B"
	gen_rules "$fam" 0 1 >"$A.extra"
	# The same table with a typo on a line in the middle.
	mid=$(($(wc -l <"$B") / 2))
	awk -v mid=$mid 'NR == mid { print "-A ub -p udp --dportt 7 -j DROP" } 1' \
		"$B" >"$B.typo"
	# The same table with a loop, refused by the kernel at COMMIT.
	awk '/^COMMIT/ { print "-A ua -j ub"; print "-A ub -j ua" } 1' \
		"$B" >"$B.loop"

	check "$RESTORE of $N rules" restore "$A"
	check "$SAVE prints the $N rules as restored" is_table "$A"

	check "$RESTORE -n adds a chain and rules" \
		restore -n <(extra_rules)
	check "$SAVE after -n: the old table and the new rules" \
		is_table "$A.extra"

	check "$RESTORE with a typo on line $mid fails there" \
		fails "Error occurred at line: $mid" restore "$B.typo"
	check "$SAVE: the table is as it was after the typo" is_table "$A.extra"

	check "$RESTORE with a loop fails at COMMIT" \
		fails "line $(wc -l <"$B.loop") failed" restore "$B.loop"
	check "$SAVE: the table is as it was after the loop" is_table "$A.extra"

	t0=$(timestamp_ms)
	check "$RESTORE of another $N rules" restore "$B"
	restore_ms[fam]=$(($(timestamp_ms) - t0))
	check "$SAVE prints the other table whole" is_table "$B"
	restore "$A"
}

# kill_helper: SIGKILL bpfilter's helper, then wait until it is gone (a
# zombie at most), so that no later request can be in flight at the kill.
kill_helper()
{
	local pids pid

	pids=$(helper_pids)
	if [ -z "$pids" ]; then
		echo "no bpfilter_umh to kill"
		return 1
	fi
	pkill -9 -x bpfilter_umh
	for pid in $pids; do
		slowwait 10 helper_gone "$pid" || return 1
	done
}

helper_gone()
{
	[ ! -e "/proc/$1" ] || grep -q '^State:[[:space:]]*Z' "/proc/$1/status"
}

# kill_during_restore PERCENT OLD NEW: kill the helper PERCENT of the way
# through a restore of table NEW over table OLD. A restore that says it
# worked must have put NEW in place; one that failed leaves OLD, or NEW
# when only the counters that follow the replace failed. Either way the
# next restore works.
kill_during_restore()
{
	local pct=$1 old=$2 new=$3 delay rc pid

	delay=$((restore_ms[fam] * pct / 100))
	echo "# killing bpfilter_umh $delay ms into a restore"
	restore "$new" 2>/dev/null &
	pid=$!
	sleep "$((delay / 1000)).$(printf %03d $((delay % 1000)))"
	check "$RESTORE: killed the helper $pct% into a restore" kill_helper
	wait $pid
	rc=$?
	if [ $rc = 0 ]; then
		check "$RESTORE: it succeeded; the table is the new one" \
			is_table "$new"
	else
		check "$RESTORE: it failed ($rc); the table is the old or the new one" \
			is_either "$old" "$new"
	fi
	check "$RESTORE: the next restore works" restore "$new"
	check "$RESTORE: and puts the new table in place" is_table "$new"
}

# compiled: bpfilter runs the table of the current family as a program.
compiled()
{
	ip netns exec "$ns" cat /proc/net/bpfilter |
		grep -q "^ipv$fam filter entries=[0-9]* prog=[0-9]"
}

test_compiled()
{
	if [ "$mode" != bpfilter ]; then
		skip "$RESTORE of 1000 rules compiled: bpfilter not loaded"
		return
	fi
	N=1000
	gen_rules "$fam" 0 >"$A.1k"
	check "$RESTORE of $N rules" restore "$A.1k"
	check "bpfilter runs the $N rules as a BPF program" compiled
	N=$SMALL
}

test_kills()
{
	local f old new

	if [ "$mode" != bpfilter ]; then
		skip "killing bpfilter_umh: bpfilter not loaded"
		return
	fi
	# Each table holds A; they swap with each kill, and end as A.
	for f in 4 6; do
		use_family $f
		echo "# $RESTORE of $N rules: ${restore_ms[fam]} ms"
		kill_during_restore 0 "$A" "$B"
		kill_during_restore 40 "$B" "$A"
		kill_during_restore 80 "$A" "$B"
		kill_during_restore 95 "$B" "$A"
	done

	# Both tables hold A. Killed while idle, the helper loses nothing:
	# the module reads the tables without it, and the next change starts
	# a new one, which gets them.
	old=$(helper_pids)
	check "killed the idle helper" kill_helper
	for f in 4 6; do
		use_family $f
		check "$SAVE after killing the idle helper: the same table" \
			is_table "$A"
	done
	new=$(helper_pids)
	check "reading the tables starts no helper (pid $old, then ${new:-none})" \
		test -z "$new"
	for f in 4 6; do
		use_family $f
		check "$RESTORE after killing the idle helper" restore "$B"
		check "$SAVE: the new table" is_table "$B"
	done
	new=$(helper_pids)
	check "a new helper serves the tables (pid $old, then ${new:-none})" \
		test -n "$new" -a "$new" != "$old"
}

for f in 4 6; do
	use_family $f
	test_big
	test_compiled
	test_restore
done
test_kills

exit $ret
