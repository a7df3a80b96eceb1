#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The rule editing commands of iptables-legacy and ip6tables-legacy, and the
# exact text iptables-save prints after them. The golden texts below are
# what ip_tables prints; bpfilter must print the same. Tables with
# extensions bpfilter does not serve (limit) and the nat table must keep
# working: ip_tables takes them. No packet flows here, so every
# counter reads [0:0].

source ../net/lib.sh
source ./iptables_lib.sh

need_tools iptables-legacy ip6tables-legacy iptables-legacy-save \
	ip6tables-legacy-save ip

trap cleanup_all_ns EXIT
setup_ns ns4 ns6 nsnat || exit "$ksft_skip"
detect_mode "$ns4"

# use_family 4|6: the tools, namespace and addresses of what follows.
use_family()
{
	fam=$1
	if [ "$fam" = 4 ]; then
		IPT=iptables-legacy SAVE=iptables-legacy-save
		ns=$ns4 proto=ipv4 pfx=10.0.0. len=32
	else
		IPT=ip6tables-legacy SAVE=ip6tables-legacy-save
		ns=$ns6 proto=ipv6 pfx=2001:db8:: len=128
	fi
}

ipt_cmd()
{
	ip netns exec "$ns" "$IPT" "$@"
}

# ipt ARGS: a step that must work; a failure shows in the next comparison,
# this says which step it was.
ipt()
{
	ipt_cmd "$@" && return 0
	echo "# step failed: $IPT $*"
	return 1
}

# check_save WHAT WANT: the filter table is exactly WANT.
check_save()
{
	check "$IPT: $1" same_text "$(saved "$ns" "$SAVE" -t filter)" "$2"
}

# check_fails WHAT MESSAGE ARGS: the edit is refused with MESSAGE.
check_fails()
{
	check "$IPT: $1" fails "$2" ipt_cmd "${@:3}"
}

EMPTY="*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
COMMIT"

# Append, insert at positions, delete by spec and by number, replace; an
# edit that is refused leaves the table as it was.
test_edit()
{
	local a=$pfx want

	ipt -A INPUT -s "${a}1" -j ACCEPT
	ipt -A INPUT -s "${a}2" -j DROP
	ipt -A INPUT -s "${a}3" -j ACCEPT
	ipt -I INPUT -s "${a}4" -j DROP
	ipt -I INPUT 3 -s "${a}5" -j ACCEPT
	ipt -I INPUT 6 -s "${a}6" -j ACCEPT
	check_save "append, insert first, insert at 3, insert at the end" "*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -s ${a}4/$len -j DROP
-A INPUT -s ${a}1/$len -j ACCEPT
-A INPUT -s ${a}5/$len -j ACCEPT
-A INPUT -s ${a}2/$len -j DROP
-A INPUT -s ${a}3/$len -j ACCEPT
-A INPUT -s ${a}6/$len -j ACCEPT
COMMIT"

	ipt -D INPUT -s "${a}2" -j DROP
	ipt -D INPUT 1
	ipt -R INPUT 2 -s "${a}7" -j DROP
	want="*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -s ${a}1/$len -j ACCEPT
-A INPUT -s ${a}7/$len -j DROP
-A INPUT -s ${a}3/$len -j ACCEPT
-A INPUT -s ${a}6/$len -j ACCEPT
COMMIT"
	check_save "delete by spec, by number, replace" "$want"

	check_fails "insert past the end is refused" \
		"Index of insertion too big." -I INPUT 6 -j DROP
	check_fails "replace past the end is refused" \
		"Index of replacement too big." -R INPUT 5 -j DROP
	check_fails "delete past the end is refused" \
		"Index of deletion too big." -D INPUT 5
	check_fails "delete of an absent rule is refused" \
		"does a matching rule exist" -D INPUT -s "${a}2" -j DROP
	check_save "refused edits change nothing" "$want"

	check "$IPT: -C finds a rule" ipt -C INPUT -s "${a}7" -j DROP
	check_fails "-C misses a deleted rule" \
		"does a matching rule exist" -C INPUT -s "${a}2" -j DROP
	check_fails "-C misses a rule with another target" \
		"does a matching rule exist" -C INPUT -s "${a}7" -j ACCEPT

	# 4 rules, 3 policies, the end of the table.
	check_owned "$proto filter table owned by bpfilter" "$ns" "$proto" 8

	if [ "$fam" = 4 ]; then
		# -L pads its columns; trailing blanks are not the point.
		check "$IPT: -L -n --line-numbers" same_text \
			"$(ipt -L -n --line-numbers | sed 's/ *$//')" \
"Chain INPUT (policy ACCEPT)
num  target     prot opt source               destination
1    ACCEPT     0    --  10.0.0.1             0.0.0.0/0
2    DROP       0    --  10.0.0.7             0.0.0.0/0
3    ACCEPT     0    --  10.0.0.3             0.0.0.0/0
4    ACCEPT     0    --  10.0.0.6             0.0.0.0/0

Chain FORWARD (policy ACCEPT)
num  target     prot opt source               destination

Chain OUTPUT (policy ACCEPT)
num  target     prot opt source               destination"
	fi

	ipt -F INPUT
	check_save "flush" "$EMPTY"
}

# User chains: jumps, gotos, RETURN, rename, delete; the references the
# kernel counts and the loops it refuses.
test_chains()
{
	ipt -N alpha
	ipt -N beta
	ipt -N gamma
	ipt -A INPUT -p tcp -j alpha
	ipt -A INPUT -p udp -g beta
	ipt -A alpha -j beta
	ipt -A alpha -j RETURN
	ipt -A beta -p tcp -j DROP
	ipt -A FORWARD -j gamma
	ipt -E gamma delta
	check_fails "-N of an existing chain is refused" \
		"Chain already exists." -N alpha
	check_fails "-X of a chain in use is refused" \
		"Too many links." -X beta
	check_fails "a jump that closes a loop is refused" \
		"Too many levels of symbolic links." -A beta -j alpha
	check_save "user chains, jump, goto, RETURN, rename" "*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:alpha - [0:0]
:beta - [0:0]
:delta - [0:0]
-A INPUT -p tcp -j alpha
-A INPUT -p udp -g beta
-A FORWARD -j delta
-A alpha -j beta
-A alpha -j RETURN
-A beta -p tcp -j DROP
COMMIT"

	# ip_tables looks for loops along the paths a packet can take: after
	# an unconditional DROP nothing is reached, so this jump back is no
	# loop and is taken.
	ipt -A beta -j DROP
	check "$IPT: a jump back after an unconditional DROP is no loop" \
		ipt -A beta -j alpha

	ipt -N eps
	ipt -X eps
	ipt -F alpha
	ipt -D INPUT -p tcp -j alpha
	check_fails "-X of all chains is refused while one is in use" \
		"Too many links." -X
	check_save "-F, -D, -X of an unused chain" "*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:alpha - [0:0]
:beta - [0:0]
:delta - [0:0]
-A INPUT -p udp -g beta
-A FORWARD -j delta
-A beta -p tcp -j DROP
-A beta -j DROP
-A beta -j alpha
COMMIT"

	ipt -F
	ipt -X
	check_save "-F and -X of everything" "$EMPTY"
}

test_policy()
{
	ipt -P INPUT DROP
	ipt -P FORWARD DROP
	ipt -N zeta
	check_fails "-P of a user chain is refused" \
		"Bad built-in chain name." -P zeta DROP
	check_fails "-P with an unknown verdict is refused" \
		"Bad policy name." -P INPUT BOGUS
	ipt -X zeta
	check_save "policies" "*filter
:INPUT DROP [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
COMMIT"
	ipt -P INPUT ACCEPT
	ipt -P FORWARD ACCEPT
	check_save "policies back to ACCEPT" "$EMPTY"
}

# Addresses, interfaces with + wildcards, protocols, ports and ranges, tcp
# flags, icmp types, comments, and ! before each: every field bpfilter has
# to carry.
test_matches()
{
	local want rule not_from=10.0.0.0/8

	[ "$fam" = 6 ] && not_from=fe80::/10
	if [ "$fam" = 4 ]; then
		ipt -A INPUT -s 192.0.2.0/24 -d 198.51.100.7 -i eth+ -j ACCEPT
		ipt -A INPUT ! -s "$not_from" ! -i lo -j DROP
		ipt -A FORWARD -i veth+ -o br0 -j ACCEPT
		ipt -A FORWARD ! -o wg+ -d 203.0.113.0/255.255.255.128 -j DROP
	else
		ipt -A INPUT -s 2001:db8:1::/48 -d 2001:db8:2::7 -i eth+ -j ACCEPT
		ipt -A INPUT ! -s "$not_from" ! -i lo -j DROP
		ipt -A FORWARD -i veth+ -o br0 -j ACCEPT
		ipt -A FORWARD ! -o wg+ -d 2001:db8:3::/ffff:ffff:ffff:ff00:: -j DROP
	fi
	ipt -A INPUT -p tcp --sport 1024:65535 --dport 22 -j ACCEPT
	ipt -A INPUT -p tcp ! --dport 80:88 -j DROP
	ipt -A INPUT -p tcp --syn -j DROP
	ipt -A INPUT -p tcp ! --syn --dport 443 -j ACCEPT
	ipt -A INPUT -p tcp --tcp-flags SYN,ACK,FIN,RST ACK,FIN -j DROP
	ipt -A INPUT -p tcp ! --tcp-flags ALL NONE -j ACCEPT
	ipt -A INPUT -p udp --dport 53 -j ACCEPT
	ipt -A INPUT -p udp ! --sport 0:1023 --dport 5000: -j DROP
	ipt -A INPUT -p udp --sport :99 -j DROP
	if [ "$fam" = 4 ]; then
		ipt -A INPUT -p icmp --icmp-type echo-request -j ACCEPT
		ipt -A INPUT -p icmp --icmp-type 3/4 -j ACCEPT
		ipt -A INPUT -p icmp ! --icmp-type 11 -j DROP
		ipt -A INPUT -p icmp --icmp-type any -j DROP
	else
		ipt -A INPUT -p icmpv6 --icmpv6-type neighbour-solicitation -j ACCEPT
		ipt -A INPUT -p ipv6-icmp --icmpv6-type 1/4 -j ACCEPT
		ipt -A INPUT -p icmpv6 ! --icmpv6-type echo-request -j DROP
	fi
	ipt -A OUTPUT ! -p udp -m comment --comment "not udp" -j ACCEPT
	ipt -A OUTPUT -p tcp -m tcp --dport 25 -m comment --comment smtp -j DROP
	ipt -A OUTPUT -p 47 -j DROP
	if [ "$fam" = 4 ]; then
		ipt -A OUTPUT -p sctp -j DROP
		ipt -A OUTPUT -f -j DROP
		ipt -A OUTPUT ! -f -p udp -j ACCEPT
		want="*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -s 192.0.2.0/24 -d 198.51.100.7/32 -i eth+ -j ACCEPT
-A INPUT ! -s 10.0.0.0/8 ! -i lo -j DROP
-A INPUT -p tcp -m tcp --sport 1024:65535 --dport 22 -j ACCEPT
-A INPUT -p tcp -m tcp ! --dport 80:88 -j DROP
-A INPUT -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j DROP
-A INPUT -p tcp -m tcp --dport 443 ! --tcp-flags FIN,SYN,RST,ACK SYN -j ACCEPT
-A INPUT -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK FIN,ACK -j DROP
-A INPUT -p tcp -m tcp ! --tcp-flags FIN,SYN,RST,PSH,ACK,URG NONE -j ACCEPT
-A INPUT -p udp -m udp --dport 53 -j ACCEPT
-A INPUT -p udp -m udp ! --sport 0:1023 --dport 5000:65535 -j DROP
-A INPUT -p udp -m udp --sport 0:99 -j DROP
-A INPUT -p icmp -m icmp --icmp-type 8 -j ACCEPT
-A INPUT -p icmp -m icmp --icmp-type 3/4 -j ACCEPT
-A INPUT -p icmp -m icmp ! --icmp-type 11 -j DROP
-A INPUT -p icmp -m icmp --icmp-type any -j DROP
-A FORWARD -i veth+ -o br0 -j ACCEPT
-A FORWARD -d 203.0.113.0/25 ! -o wg+ -j DROP
-A OUTPUT ! -p udp -m comment --comment \"not udp\" -j ACCEPT
-A OUTPUT -p tcp -m tcp --dport 25 -m comment --comment smtp -j DROP
-A OUTPUT -p gre -j DROP
-A OUTPUT -p sctp -j DROP
-A OUTPUT -f -j DROP
-A OUTPUT -p udp ! -f -j ACCEPT
COMMIT"
	else
		want="*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -s 2001:db8:1::/48 -d 2001:db8:2::7/128 -i eth+ -j ACCEPT
-A INPUT ! -s fe80::/10 ! -i lo -j DROP
-A INPUT -p tcp -m tcp --sport 1024:65535 --dport 22 -j ACCEPT
-A INPUT -p tcp -m tcp ! --dport 80:88 -j DROP
-A INPUT -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j DROP
-A INPUT -p tcp -m tcp --dport 443 ! --tcp-flags FIN,SYN,RST,ACK SYN -j ACCEPT
-A INPUT -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK FIN,ACK -j DROP
-A INPUT -p tcp -m tcp ! --tcp-flags FIN,SYN,RST,PSH,ACK,URG NONE -j ACCEPT
-A INPUT -p udp -m udp --dport 53 -j ACCEPT
-A INPUT -p udp -m udp ! --sport 0:1023 --dport 5000:65535 -j DROP
-A INPUT -p udp -m udp --sport 0:99 -j DROP
-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 135 -j ACCEPT
-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 1/4 -j ACCEPT
-A INPUT -p ipv6-icmp -m icmp6 ! --icmpv6-type 128 -j DROP
-A FORWARD -i veth+ -o br0 -j ACCEPT
-A FORWARD -d 2001:db8:3::/56 ! -o wg+ -j DROP
-A OUTPUT ! -p udp -m comment --comment \"not udp\" -j ACCEPT
-A OUTPUT -p tcp -m tcp --dport 25 -m comment --comment smtp -j DROP
-A OUTPUT -p gre -j DROP
COMMIT"
	fi
	check_save "addresses, interfaces, ports, flags, icmp types, comments, negations" "$want"

	check "$IPT: -C finds a rule with negations and ranges" \
		ipt -C INPUT -p udp ! --sport 0:1023 --dport 5000: -j DROP
	check_fails "-C misses a rule without a negation" \
		"does a matching rule exist" \
		-C INPUT -s "$not_from" ! -i lo -j DROP
	# ip6tables-legacy -C compares the matches loosely (it finds
	# "-p tcp ... --dport 5001:" here, in user space): only iptables.
	if [ "$fam" = 4 ]; then
		check_fails "-C misses a rule with another range" \
			"does a matching rule exist" \
			-C INPUT -p udp ! --sport 0:1023 --dport 5001: -j DROP
		check_fails "-C misses a rule with another protocol" \
			"does a matching rule exist" \
			-C INPUT -p tcp ! --sport 0:1023 --dport 5000: -j DROP
	fi

	ipt -D INPUT -p tcp --tcp-flags SYN,ACK,FIN,RST ACK,FIN -j DROP
	rule="-A INPUT -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK FIN,ACK -j DROP"
	check_save "delete by spec among matches" "$(grep -vxF -- "$rule" <<<"$want")"
	ipt -F
	check_save "flush of every chain" "$EMPTY"
}

# mac, addrtype and --tcp-option, which bpfilter compiles, and the checks
# of mac's and addrtype's checkentry.
test_mac_addrtype()
{
	local want

	if ! have_ext "$proto" match mac xt_mac ||
	   ! have_ext "$proto" match addrtype xt_addrtype; then
		skip "$IPT: mac and addrtype: not in this kernel"
		return
	fi
	ipt -A INPUT -m mac --mac-source 02:00:00:00:00:01 -j ACCEPT
	ipt -A FORWARD -m mac ! --mac-source 02:00:00:00:00:02 -p tcp \
		--tcp-option 2 -j DROP
	ipt -A INPUT -m addrtype --dst-type LOCAL --limit-iface-in -j ACCEPT
	ipt -A OUTPUT -m addrtype ! --src-type LOCAL,MULTICAST -j DROP
	ipt -A OUTPUT -p tcp ! --tcp-option 8 -j ACCEPT
	want="*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -m mac --mac-source 02:00:00:00:00:01 -j ACCEPT
-A INPUT -m addrtype --dst-type LOCAL --limit-iface-in -j ACCEPT
-A FORWARD -p tcp -m mac ! --mac-source 02:00:00:00:00:02 -m tcp --tcp-option 2 -j DROP
-A OUTPUT -m addrtype ! --src-type LOCAL,MULTICAST -j DROP
-A OUTPUT -p tcp -m tcp ! --tcp-option 8 -j ACCEPT
COMMIT"
	check_save "mac, addrtype and tcp options" "$want"
	check_owned "$proto filter table with mac, addrtype and tcp options owned by bpfilter" \
		"$ns" "$proto" 9
	check_fails "mac in OUTPUT is refused" "Invalid argument" \
		-A OUTPUT -m mac --mac-source 02:00:00:00:00:01 -j DROP
	check_fails "addrtype --limit-iface-out in INPUT is refused" \
		"Invalid argument" -A INPUT -m addrtype --src-type LOCAL \
		--limit-iface-out -j DROP
	check_save "nothing changed by the refused rules" "$want"
	ipt -F
	check_save "flush after mac and addrtype" "$EMPTY"
}

# LOG and REJECT, then limit: the kernel's own code, which bpfilter runs
# (its bridge); with the bridge off, the table with limit goes to
# ip_tables, and iptables works on as before.
test_unserved()
{
	local want reject=ipt_REJECT

	[ "$fam" = 6 ] && reject=ip6t_REJECT
	if have_ext "$proto" target LOG xt_LOG &&
	   have_ext "$proto" target REJECT "$reject"; then
		ipt -A INPUT -p tcp --dport 22 -j ACCEPT
		ipt -A INPUT -p tcp --dport 23 -j LOG --log-prefix "in: " --log-level 6
		ipt -A INPUT -p tcp -j REJECT --reject-with tcp-reset
		ipt -A INPUT -p udp -j REJECT
		ipt -A INPUT -j DROP
		want="*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT
-A INPUT -p tcp -m tcp --dport 23 -j LOG --log-prefix \"in: \" --log-level 6
-A INPUT -p tcp -j REJECT --reject-with tcp-reset
-A INPUT -p udp -j REJECT --reject-with icmp-port-unreachable
-A INPUT -j DROP
COMMIT"
		[ "$fam" = 6 ] && want=${want/icmp-port/icmp6-port}
		check_save "LOG and REJECT" "$want"
		check "$IPT: -C finds the LOG rule" ipt -C INPUT -p tcp \
			--dport 23 -j LOG --log-prefix "in: " --log-level 6
		# (iptables words this miss differently, all the same.)
		check_fails "-C misses the LOG rule with another interface" \
			"No chain/target/match by that name." -C INPUT ! -i lo \
			-p tcp --dport 23 -j LOG --log-prefix "in: " --log-level 6
		check_owned "$proto filter table with LOG and REJECT owned by bpfilter" \
			"$ns" "$proto" 9
		check_hooked "with LOG and REJECT" "$ns" "$proto" no
		ipt -D INPUT 2
		check_save "delete of the LOG rule" \
			"$(grep -v -- '-j LOG' <<<"$want")"
		ipt -F
		check_save "flush after LOG and REJECT" "$EMPTY"
		check_hooked "once flushed" "$ns" "$proto" no
	else
		skip "$IPT: LOG and REJECT: not in this kernel"
	fi

	if have_ext "$proto" match limit xt_limit; then
		ipt -A INPUT -p tcp --dport 22 -j ACCEPT
		ipt -A INPUT -m limit --limit 3/min --limit-burst 7 -j ACCEPT
		check_save "limit" "*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT
-A INPUT -m limit --limit 3/min --limit-burst 7 -j ACCEPT
COMMIT"
		# The kernel's limit match, run by bpfilter (its bridge).
		check_owned "$proto filter table with limit owned by bpfilter" \
			"$ns" "$proto" 6
		check_hooked "with limit, served" "$ns" "$proto" no
		if [ "$mode" = bpfilter ]; then
			echo N >/sys/module/bpfilter/parameters/bridge
			ipt -A INPUT -p tcp --dport 23 -j DROP
			check_not_owned \
				"$proto table with limit, bridge=N: not owned by bpfilter" \
				"$ns" "$proto"
			check_hooked "with limit and bridge=N, given back" "$ns" "$proto" yes
			echo Y >/sys/module/bpfilter/parameters/bridge
			ipt -D INPUT 3
		fi
		ipt -F
		check_save "flush after limit" "$EMPTY"
	else
		skip "$IPT: limit: not in this kernel"
	fi
}

# The nat table next to a filter table: iptables-save without -t prints
# every table the kernel lists, nat (used last) first.
test_nat()
{
	local want

	ns=$nsnat
	ipt -A INPUT -p tcp --dport 22 -j ACCEPT
	if ! ipt_cmd -t nat -S >/dev/null 2>&1 ||
	   ! have_ext "$proto" target DNAT xt_nat; then
		skip "$IPT: nat table: not in this kernel"
		return
	fi
	if [ "$fam" = 4 ]; then
		ipt -t nat -A PREROUTING -p tcp --dport 8080 \
			-j DNAT --to-destination 192.0.2.2:80
		ipt -t nat -A POSTROUTING -o veth+ -s 10.0.0.0/8 \
			-j SNAT --to-source 192.0.2.1
		want="*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A PREROUTING -p tcp -m tcp --dport 8080 -j DNAT --to-destination 192.0.2.2:80
-A POSTROUTING -s 10.0.0.0/8 -o veth+ -j SNAT --to-source 192.0.2.1
COMMIT"
	else
		ipt -t nat -A PREROUTING -p tcp --dport 8080 \
			-j DNAT --to-destination "[2001:db8::2]:80"
		ipt -t nat -A POSTROUTING -o veth+ -s 2001:db8:1::/64 \
			-j SNAT --to-source 2001:db8::1
		want="*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A PREROUTING -p tcp -m tcp --dport 8080 -j DNAT --to-destination [2001:db8::2]:80
-A POSTROUTING -s 2001:db8:1::/64 -o veth+ -j SNAT --to-source 2001:db8::1
COMMIT"
	fi
	check "$IPT: nat and filter tables, iptables-save of all tables" \
		same_text "$(saved "$ns" "$SAVE")" "$want
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT
COMMIT"
	# 1 rule, 3 policies, the end of the table.
	check_owned "$proto filter table next to nat owned by bpfilter" \
		"$ns" "$proto" 5
	if [ "$mode" = bpfilter ]; then
		check "$proto nat table not listed by bpfilter" \
			not_listed "$ns" "^$proto nat "
	fi
}

# A loop of gotos that no hook reaches passes ip_tables' check, which
# walks from the hooks; with 16 entries or more bpfilter looks for runs
# of simple rules, and which chains never return, in all of them.
test_goto_loop()
{
	local pids want

	want="*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:A - [0:0]
:B - [0:0]
:C - [0:0]
$(for i in $(seq 1 16); do echo "-A OUTPUT -s $pfx$i/$len"; done)
-A A -g B
-A B -g A
-A C -j A
COMMIT"
	pids=$(helper_pids)
	echo "$want" | ip netns exec "$ns" "$IPT-restore"
	check_save "a loop of gotos that no hook reaches" "$want"
	check_owned "$IPT: bpfilter serves it" "$ns" "$proto" 29
	check "$IPT: the helper lives on" test "$pids" = "$(helper_pids)"
	ipt -F
	ipt -X
}

# not_listed NS REGEX: no line of /proc/net/bpfilter in NS matches.
not_listed()
{
	! ip netns exec "$1" grep -E "$2" /proc/net/bpfilter
}

for f in 4 6; do
	use_family $f
	test_edit
	test_chains
	test_policy
	test_matches
	test_mac_addrtype
	test_unserved
	test_nat
	test_goto_loop
done

exit $ret
