#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iptables -A, -I and -D on a chain of many simple rules, with real
# packets sent out through a veth: each change is in force for the next
# packet, counters go on counting across it exactly, and iptables-save
# shows them. With bpfilter loaded, a rule added last or first to a run of
# simple rules, or deleted from one, keeps the table's BPF program (its
# id in /proc/net/bpfilter): only the classifier's map changes. A rule put
# in the middle of the run gets a new program, with the same behaviour.

source ../net/lib.sh
source ./iptables_lib.sh

need_tools iptables-legacy ip6tables-legacy iptables-legacy-save \
	ip6tables-legacy-save iptables-legacy-restore ip6tables-legacy-restore

# Rules in the chain: a classified run needs at least 16.
N=${UPDATE_RULES:-300}

trap cleanup_all_ns EXIT
setup_ns client || exit "$ksft_skip"
# Datagrams to the other end's addresses leave through veth0 after OUTPUT.
ip -net "$client" link add veth0 type veth peer name veth1 || exit "$ksft_skip"
ip -net "$client" addr add 10.0.1.1/24 dev veth0
ip -net "$client" addr add dead:1::1/64 dev veth0 nodad
ip -net "$client" link set veth0 up
ip -net "$client" link set veth1 up
detect_mode "$client"

use_family()
{
	fam=$1
	if [ "$fam" = 4 ]; then
		ipt=iptables-legacy proto=ipv4 dst=10.0.1.2 plen=32 size=100
	else
		ipt=ip6tables-legacy proto=ipv6 dst=dead:1::2 plen=128 size=120
	fi
}

ipt()
{
	ip netns exec "$client" "$ipt" "$@"
}

# sent PORT: a datagram of 72 bytes to $dst went out; OUTPUT's DROP makes
# the write fail with EPERM.
sent()
{
	ip netns exec "$client" bash -c \
		"printf '%72s' '' 2>/dev/null >/dev/udp/$dst/$1"
}

dropped()
{
	! sent "$1"
}

# rule PORT VERDICT: the rule as iptables-save prints it.
rule()
{
	echo "-A OUTPUT -d $dst/$plen -p udp -m udp --dport $1 -j $2"
}

# counted PACKETS PORT VERDICT: iptables-save -c has the rule once, with
# PACKETS packets of $size bytes.
counted()
{
	local want got

	want="[$1:$(($1 * size))] $(rule "$2" "$3")"
	got=$(ip netns exec "$client" "$ipt-save" -c | grep -F -- "$(rule "$2" "$3")")
	same_text "$got" "$want"
}

prog_id()
{
	bpfilter_line "$client" "$proto" | sed -n 's/.* prog=\([0-9]*\) .*/\1/p'
}

# check_kept WHAT: with bpfilter, the change kept the program.
check_kept()
{
	local now

	if [ "$mode" != bpfilter ]; then
		skip "$1 keeps the program: bpfilter not loaded"
		return
	fi
	now=$(prog_id)
	check "$1 keeps the program ($prog, then ${now:-none})" \
		test -n "$now" -a "$now" = "$prog"
}

test_update()
{
	local i

	{
		echo '*filter'
		for ((i = 0; i < N; i++)); do
			rule $((2000 + i)) DROP
		done
		echo COMMIT
	} | ip netns exec "$client" "$ipt-restore"
	check_owned "$N rules restored" "$client" "$proto" $((N + 4))
	[ "$mode" = bpfilter ] && prog=$(prog_id)

	check "IPv$fam: port 2005 dropped" dropped 2005
	check "IPv$fam: port 2005 dropped again" dropped 2005
	check "IPv$fam: port 1999 sent" sent 1999

	ipt -A OUTPUT -d "$dst" -p udp --dport 1999 -j DROP
	check_kept "IPv$fam: -A"
	check "IPv$fam: after -A, port 1999 dropped" dropped 1999
	check "IPv$fam: the new rule counted 1" counted 1 1999 DROP
	check "IPv$fam: the rule of 2005 still counts 2" counted 2 2005 DROP

	ipt -I OUTPUT 1 -d "$dst" -p udp --dport 2005 -j ACCEPT
	check_kept "IPv$fam: -I 1"
	check "IPv$fam: after -I 1, port 2005 sent" sent 2005
	check "IPv$fam: the first rule counted 1" counted 1 2005 ACCEPT
	check "IPv$fam: the DROP of 2005 still counts 2" counted 2 2005 DROP

	ipt -D OUTPUT -d "$dst" -p udp --dport 2005 -j DROP
	check_kept "IPv$fam: -D"
	check "IPv$fam: after -D, port 2005 sent" sent 2005
	check "IPv$fam: the first rule counted 2" counted 2 2005 ACCEPT
	check "IPv$fam: port 2006 still dropped" dropped 2006
	check "IPv$fam: 1999 still counts 1" counted 1 1999 DROP

	ipt -D OUTPUT 1
	check_kept "IPv$fam: -D 1"
	check "IPv$fam: after -D 1, port 2005 sent" sent 2005
	check "IPv$fam: port 2007 still dropped" dropped 2007
	check "IPv$fam: the DROP of 2007 counted 1" counted 1 2007 DROP

	# In the middle of the run: a new program, the same behaviour.
	ipt -I OUTPUT 100 -d "$dst" -p udp --dport 2200 -j ACCEPT
	check "IPv$fam: after -I 100, port 2200 sent" sent 2200
	check "IPv$fam: port 2201 still dropped" dropped 2201
	check "IPv$fam: the rule of 2007 still counts 1" counted 1 2007 DROP
	check "IPv$fam: 1999 counted 1 still" counted 1 1999 DROP
	check "IPv$fam: the new rule counted 1" counted 1 2200 ACCEPT
	check_owned "IPv$fam: the table after the changes" "$client" "$proto" \
		$((N + 5))
}

for f in 4 6; do
	use_family $f
	test_update
done

exit $ret
