#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Differential test: bpfilter's programs count and decide as ip_tables.

Two namespaces, b1 and b2, get the same random filter table: b1's is
compiled by bpfilter, b2's has one more chain ("zzz", a limit match,
never jumped to) and is set while bpfilter's bridge parameter is N, so
ip_tables serves it. The same
random packets go from namespace a to both, to be delivered (INPUT) or
forwarded (FORWARD); their answers, if any, go through OUTPUT. Then every
counter of the two tables must be equal, as iptables-save -c prints them.
Some chains begin with 16 to 40 simple rules, most of a few shapes
(addresses, ports, interfaces, states; jumps and gotos among verdicts),
which bpfilter's classifier serves with hash lookups rather than code.

Usage: translate_diff.py [TABLES [SEED [PACKETS]]], for each family; TABLES
is $TRANSLATE_DIFF_TABLES when not given, else 100.
"""
import ctypes
import os
import random
import re
import socket
import struct
import subprocess
import sys
import time

KSFT_SKIP = 4
CLONE_NEWNET = 0x40000000
NETNS = ['a', 'b1', 'b2']
MAC_B = b'\x02\x00\x00\x00\x00\x02'
MAC_A = b'\x02\x00\x00\x00\x00\x01'
MACS = ['02:00:00:00:00:01', '02:00:00:00:00:03']

# Local to b: 10.0.0.0/8, 2001:db8::/48; forwarded: the rest.
DST4 = ['10.0.0.2', '10.0.1.1', '10.1.0.1', '192.168.1.1', '172.16.0.1',
        '10.0.0.255']
SRC4 = ['192.168.1.1', '192.168.1.200', '172.16.0.1', '172.16.9.9']
DST6 = ['2001:db8::2', '2001:db8::1:1', '2001:db9::1', '2002::1']
SRC6 = ['2001:db9::1', '2001:db9::2', '2002::1', '2002::2:1']
# The source of packets with long chains of extension headers, which the
# mangle table's rules with -p must not drop before the filter table.
LONG6 = '2001:db9::e'
PORTS = [0, 1, 22, 53, 80, 443, 1023, 1024, 8080, 65535]
TCPOPTS = [1, 2, 3, 4, 8, 30, 254]
ADDRTYPES4 = ['LOCAL', 'UNICAST', 'BROADCAST', 'MULTICAST', 'UNSPEC']
ADDRTYPES6 = ['LOCAL', 'UNICAST', 'MULTICAST', 'UNSPEC']
IFACES = ['vb', 'vc', 'v+', 'lo', 'x+']
REJECT4 = ['icmp-net-unreachable', 'icmp-host-unreachable',
           'icmp-port-unreachable', 'icmp-proto-unreachable',
           'icmp-net-prohibited', 'icmp-host-prohibited',
           'icmp-admin-prohibited']
REJECT6 = ['icmp6-no-route', 'icmp6-adm-prohibited',
           'icmp6-addr-unreachable', 'icmp6-port-unreachable']


class netns:
    """Runs what follows in namespace NAME (None: stays put)."""
    libc = ctypes.CDLL(None, use_errno=True)

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        if not self.name:
            return
        self.own = os.open('/proc/self/ns/net', os.O_RDONLY)
        fd = os.open(f'/run/netns/{self.name}', os.O_RDONLY)
        err = self.libc.setns(fd, CLONE_NEWNET)
        os.close(fd)
        if err:
            raise OSError(ctypes.get_errno(), 'setns')

    def __exit__(self, *exc):
        if self.name:
            self.libc.setns(self.own, CLONE_NEWNET)
            os.close(self.own)


def sh(*cmd, ns=None, inp=None, check=True):
    with netns(ns):
        res = subprocess.run(cmd, input=inp, capture_output=True, text=True)
    if check and res.returncode:
        raise RuntimeError(f'{" ".join(cmd)}: {res.stderr.strip()}')
    return res.stdout


def setup():
    for ns in NETNS:
        sh('ip', 'netns', 'add', ns)
        # No IPv6 address, so no DAD, MLD or RS packet of the kernel's
        # own at a random time; fragments never time out mid-test.
        for knob in ('net.ipv6.conf.default.addr_gen_mode=1',
                     'net.ipv6.conf.all.forwarding=1',
                     'net.ipv4.ip_forward=1', 'net.ipv4.icmp_ratelimit=0',
                     'net.ipv6.icmp.ratelimit=0', 'net.ipv4.ipfrag_time=3600',
                     'net.ipv6.ip6frag_time=3600'):
            sh('sysctl', '-qw', knob, ns=ns)
    for b, va in (('b1', 'va1'), ('b2', 'va2')):
        sh('ip', 'link', 'add', va, 'netns', 'a', 'address',
           MAC_A.hex(':'), 'type', 'veth', 'peer', 'name', 'vb', 'netns',
           b, 'address', MAC_B.hex(':'))
        sh('ip', '-n', 'a', 'link', 'set', va, 'up')
        sh('ip', '-n', b, 'link', 'add', 'vc', 'type', 'veth', 'peer',
           'name', 'vd')
        for cmd in (
                'ip link set lo up',
                'ip link set vb up',
                'ip link set vc arp off up',
                'ip addr add 10.0.0.2/24 dev vb',
                'ip route add local 10.0.0.0/8 dev lo table local',
                'ip -6 route add local 2001:db8::/48 dev lo table local',
                'ip route add default dev vc',
                'ip -6 route add default dev vc'):
            sh(*cmd.split(), ns=b)
        # Marks for the mark match, set by ip_tables' mangle table.
        for ipt, src in (('iptables-legacy', []),
                         ('ip6tables-legacy', ['!', '-s', LONG6])):
            sh(ipt, '-t', 'mangle', '-A', 'PREROUTING', *src, '-p', 'udp',
               '-j', 'MARK', '--set-mark', '1', ns=b)
            sh(ipt, '-t', 'mangle', '-A', 'PREROUTING', *src, '-p', 'tcp',
               '-j', 'MARK', '--set-mark', '5', ns=b)
    # The guest is a VM of its own: its global ICMP limit can go.
    for knob in ('net.ipv4.icmp_msgs_per_sec', 'net.ipv4.icmp_msgs_burst'):
        sh('sysctl', '-qw', f'{knob}=100000000', check=False)


def cleanup():
    for ns in NETNS:
        sh('ip', 'netns', 'del', ns, check=False)


def socket_in(ns, *args):
    """A socket of namespace NS."""
    with netns(ns):
        return socket.socket(*args)


def neg(r, opt):
    return ('! ' if r.random() < .2 else '') + opt + ' '


def addr(r, v6, pool):
    if v6:
        return r.choice(pool) + '/' + str(r.choice([128, 64, 48, 32, 0]))
    return r.choice(pool) + '/' + str(r.choice([32, 24, 16, 8, 0, 31]))


def ports(r):
    a, b = sorted([r.choice(PORTS), r.choice(PORTS)])
    return str(a) if r.random() < .5 else f'{a}:{b}'


def match(r, v6, chain):
    m = []
    if r.random() < .3:
        m.append(neg(r, '-s') + addr(r, v6, SRC6 if v6 else SRC4))
    if r.random() < .3:
        m.append(neg(r, '-d') + addr(r, v6, DST6 if v6 else DST4))
    if chain != 'OUTPUT' and r.random() < .2:
        m.append(neg(r, '-i') + r.choice(IFACES))
    if chain != 'INPUT' and r.random() < .2:
        m.append(neg(r, '-o') + r.choice(IFACES))
    icmp = 'icmpv6' if v6 else 'icmp'
    proto = r.choice(['', '', 'tcp', 'udp', icmp, 'gre', '!tcp'])
    if proto == '!tcp':
        m.append('! -p tcp')
    elif proto:
        m.append('-p ' + proto)
    if proto in ('tcp', 'udp'):
        if r.random() < .5:
            m.append(neg(r, '--sport') + ports(r))
        if r.random() < .5:
            m.append(neg(r, '--dport') + ports(r))
    if proto == 'tcp' and r.random() < .3:
        m.append(r.choice(['--syn', '! --syn', '--tcp-flags SYN,ACK ACK']))
    if proto == 'tcp' and r.random() < .2:
        m.append(neg(r, '--tcp-option') + str(r.choice(TCPOPTS)))
    if proto == icmp and r.random() < .6:
        t = r.choice(['8', '0', '3/3', '3', '11/1', '128', '1/4'] +
                     ([] if v6 else ['any']))
        m.append(neg(r, '--icmpv6-type' if v6 else '--icmp-type') + t)
    if not v6 and proto in ('', 'gre') and r.random() < .1:
        m.append(('! ' if r.random() < .3 else '') + '-f')
    if proto in ('tcp', 'udp') and r.random() < .2:
        opt = r.choice(['--sports', '--dports', '--ports'])
        ps = [str(r.choice(PORTS)) for _ in range(r.randint(1, 4))]
        a, b = sorted([r.choice(PORTS), r.choice(PORTS)])
        if a < b and r.random() < .5:
            ps.append(f'{a}:{b}')
        m.append(f'-m multiport {neg(r, opt)}{",".join(ps)}')
    if r.random() < .1:
        m.append('-m mark ' + neg(r, '--mark') +
                 r.choice(['0', '1', '5/0xff', '4/4', '0/0']))
    if r.random() < .15:
        m.append(states(r))
    if r.random() < .1:
        a, b = sorted([r.randint(20, 200), r.randint(20, 200)])
        m.append(f'-m length {neg(r, "--length")}{a}:{b}')
    # mac: only where a link layer header came with the packet
    if chain in ('INPUT', 'FORWARD') and r.random() < .1:
        m.append(f'-m mac {neg(r, "--mac-source")}{r.choice(MACS)}')
    if r.random() < .1:
        m.append(addrtype(r, v6, chain))
    if r.random() < .1:
        side = r.choice(['--src-range', '--dst-range'])
        pool = (SRC6 if v6 else SRC4) if side == '--src-range' else \
            (DST6 if v6 else DST4)
        fam = socket.AF_INET6 if v6 else socket.AF_INET
        a, b = sorted([r.choice(pool), r.choice(pool)],
                      key=lambda x: socket.inet_pton(fam, x))
        m.append(f'-m iprange {neg(r, side)}{a}-{b}')
    if r.random() < .15:
        m.append(kernel_match(r, v6, chain))
    return ' '.join(m)


def kernel_match(r, v6, chain):
    """A match bpfilter's helper leaves to the kernel's own code (the
    bridge), of those whose answer does not depend on time: a counter or
    a recent list that a rule updates has to be updated by the same
    packets in the same order as under ip_tables."""
    hop = 'hl' if v6 else 'ttl'
    ms = [
        f'-m {hop} ' + r.choice([f'{neg(r, f"--{hop}-eq")}64',
                                 f'--{hop}-lt 2', f'--{hop}-gt 63']),
        f'-m tos {neg(r, "--tos")}' + r.choice(['0x10/0x3f', '0x0/0xff']),
        f'-m dscp {neg(r, "--dscp")}' + r.choice(['0x2e', '0x0']),
        f'-m ecn {neg(r, "--ecn-ip-ect")}' + r.choice(['0', '1', '3']),
        f'-m string --algo {r.choice(["bm", "kmp"])} ' +
        neg(r, '--string') + r.choice(['needle', 'hay', 'GET']),
        '-m u32 --u32 ' + r.choice(['0>>28=6', '4>>8&0xFF=17', '0>>28=4']
                                   if v6 else
                                   ['6&0xFF=6', '0>>22&0x3C@0>>16=0:1024',
                                    '0>>16&0xFF=0x10']),
        f'-m pkttype {neg(r, "--pkt-type")}' +
        r.choice(['unicast', 'multicast', 'broadcast']),
        f'-m statistic --mode nth --every {r.randint(2, 4)} --packet 1',
        f'-m quota --quota {r.choice([100, 400, 2000])}',
        f'-m recent --name r{r.randint(1, 2)} ' +
        r.choice(['--set', '--rcheck', '! --rcheck', '--update']) +
        r.choice(['', ' --rdest']),
    ]
    if chain == 'OUTPUT':
        ms.append('-m owner ' + r.choice(['--uid-owner 0',
                                          '! --socket-exists']))
    if v6:
        ms += ['-m frag ' + r.choice(['--fragid 7', '--fragfirst',
                                      '--fragmore', '! --fragid 0:6']),
               '-m rt ' + r.choice(['--rt-type 0', '--rt-segsleft 0']),
               '-m dst ' + r.choice(['--dst-len 0', '! --dst-len 8']),
               '-m ipv6header ' + r.choice(['', '! ']) + '--header ' +
               r.choice(['dst', 'frag,ipv6-route', 'auth', 'none']) +
               r.choice(['', ' --soft']),
               '-m ah ' + r.choice(['--ahspi 0', '--ahlen 0'])]
    return r.choice(ms)


def addrtype(r, v6, chain):
    m = '-m addrtype'
    for side in r.choice([['--src-type'], ['--dst-type'],
                          ['--src-type', '--dst-type']]):
        types = r.sample(ADDRTYPES6 if v6 else ADDRTYPES4, r.randint(1, 2))
        m += ' ' + neg(r, side) + ','.join(types)
    if chain in ('INPUT', 'FORWARD') and r.random() < .3:
        m += ' --limit-iface-in'
    elif chain in ('OUTPUT', 'FORWARD') and r.random() < .3:
        m += ' --limit-iface-out'
    return m


def tcp_options(r):
    """Options as they come, some with odd lengths, padded to words."""
    b = b''
    for _ in range(r.choice([0, 0, 1, 2, 3, 6])):
        kind = r.choice([0, 1, 1] + TCPOPTS)
        if kind < 2:
            b += bytes([kind])
        else:
            n = r.choice([2, 3, 4, 4, 10, 0, 1, 60])
            b += bytes([kind, n]) + b'\x01' * (min(n, 12) - 2)
    b = b[:40]
    return b + b'\0' * (-len(b) % 4)


def states(r):
    """A state match, all states (no test) or none at times."""
    which = ','.join(r.sample(['NEW', 'ESTABLISHED', 'RELATED', 'INVALID',
                               'UNTRACKED'], r.randint(1, 5)))
    if r.random() < .5:
        return f'-m state --state {which}'
    return f'-m conntrack {neg(r, "--ctstate")}{which}'


def run_style(r, v6, chain):
    """What the rules of a run in CHAIN have: few shapes, so that the
    classifier takes the run whole."""
    lens = [128, 64, 48] if v6 else [32, 24, 16]
    return {
        'src': r.choice([None] + lens), 'dst': r.choice([None] + lens),
        'proto': r.choice(['', 'tcp', 'udp', 'icmpv6' if v6 else 'icmp']),
        'sport': r.random() < .3, 'dport': r.random() < .7,
        # names under one mask: one shape
        'in': chain != 'OUTPUT' and r.random() < .4 and
        r.choice([['vb', 'vc', 'lo'], ['v+', 'x+']]),
        'out': chain != 'INPUT' and r.random() < .4 and
        r.choice([['vb', 'vc', 'lo'], ['v+', 'x+']]),
        'state': r.random() < .4, 'state_first': r.random() < .5,
    }


def run_target(r, later, final=()):
    """A verdict, or at times a goto to a chain of LATER or a jump to
    one, mostly to one of FINAL, chains that never return: a jump to
    another chain ends a classified run."""
    x = r.random()
    if later and x < .06:
        return '-g ' + r.choice(later)
    if later and x < .08:
        return '-j ' + r.choice(later)
    if final and x < .14:
        return '-j ' + r.choice(final)
    return '-j ' + r.choice(['ACCEPT', 'DROP'])


def styled(r, v6, st, later=(), final=()):
    """A rule of a run of style ST (run_style())."""
    m = []
    for opt, side, pool in (('-s', 'src', SRC6 if v6 else SRC4),
                            ('-d', 'dst', DST6 if v6 else DST4)):
        if st[side]:
            m.append(f'{opt} {r.choice(pool)}/{st[side]}')
    for opt, side in (('-i', 'in'), ('-o', 'out')):
        if st[side]:
            m.append(f'{opt} {r.choice(st[side])}')
    if st['state'] and st['state_first']:
        m.append(states(r))
    if st['proto']:
        m.append('-p ' + st['proto'])
    if st['proto'] in ('tcp', 'udp'):
        for opt in ('sport', 'dport'):
            if st[opt]:
                m.append(f'--{opt} {r.choice(PORTS)}')
    if st['state'] and not st['state_first']:
        m.append(states(r))
    return ' '.join(m) + ' ' + run_target(r, later, final)


def simple(r, v6, chain=None, later=()):
    """A rule for bpfilter's classifier: addresses, protocol, ports, and
    in CHAIN interfaces and states; jumps to chains of LATER."""
    m = []
    if r.random() < .7:
        m.append('-s ' + addr(r, v6, SRC6 if v6 else SRC4))
    if r.random() < .5:
        m.append('-d ' + addr(r, v6, DST6 if v6 else DST4))
    if chain and chain != 'OUTPUT' and r.random() < .3:
        m.append('-i ' + r.choice(IFACES))
    if chain and chain != 'INPUT' and r.random() < .3:
        m.append('-o ' + r.choice(IFACES))
    # Before or after the ports: a short packet is dropped by a udp or
    # tcp match only if it comes first or the state matched.
    state = states(r) if chain and r.random() < .3 else ''
    if state and r.random() < .5:
        m.append(state)
        state = ''
    proto = r.choice(['', 'tcp', 'udp', 'udp', 'icmpv6' if v6 else 'icmp'])
    if proto:
        m.append('-p ' + proto)
    if proto in ('tcp', 'udp'):
        if r.random() < .7:
            m.append('--dport ' + ports(r))
        if r.random() < .3:
            m.append('--sport ' + ports(r))
    # Never matches, so not for the classifier.
    if proto == 'tcp' and r.random() < .1:
        m.append('--tcp-flags NONE SYN')
    if state:
        m.append(state)
    return ' '.join(m) + ' ' + run_target(r, later)


# Tables whose rules read one thing of a packet, or nothing: bpfilter's
# programs then read no more (the prologue skips the rest, headers
# included), which the rules and the kernel's targets must not notice.
FEATURES = ['none', 'iface', 'mark', 'state', 'length']


def feature_match(r, chain, feature):
    """The matches of a rule of a table of FEATURE only."""
    m = []
    if feature == 'iface':
        if chain != 'OUTPUT' and r.random() < .6:
            m.append(neg(r, '-i') + r.choice(IFACES))
        if chain != 'INPUT' and r.random() < .6:
            m.append(neg(r, '-o') + r.choice(IFACES))
    elif feature == 'mark' and r.random() < .8:
        m.append('-m mark ' + neg(r, '--mark') +
                 r.choice(['0', '1', '5/0xff', '4/4', '0/0']))
    elif feature == 'state' and r.random() < .8:
        m.append(states(r))
    elif feature == 'length' and r.random() < .8:
        a, b = sorted([r.randint(20, 200), r.randint(20, 200)])
        m.append(f'-m length {neg(r, "--length")}{a}:{b}')
    return ' '.join(m)


def ruleset(r, v6, feature=None):
    chains = [f'c{i}' for i in range(r.randint(0, 3))]
    # Chains that never return: a verdict for every packet at their end,
    # no RETURN before it, gotos only to such chains.
    finals = [c for c in chains if r.random() < .5]
    lines = ['*filter']
    for c in ['INPUT', 'FORWARD', 'OUTPUT']:
        lines.append(f':{c} {r.choice(["ACCEPT", "DROP"])} [0:0]')
    for c in chains:
        lines.append(f':{c} - [0:0]')
    for c in ['INPUT', 'FORWARD', 'OUTPUT'] + chains:
        later = chains[chains.index(c) + 1:] if c in chains else chains
        final = [x for x in later if x in finals]
        # 16 or more in a row: bpfilter's classifier takes them.
        if not feature and r.random() < .2:
            st = run_style(r, v6, c)
            gotos = final if c in finals else later
            lines += [f'-A {c} ' + (styled(r, v6, st, gotos, final)
                                    if r.random() < .8
                                    else simple(r, v6, c, gotos))
                      for _ in range(r.randint(16, 40))]
        for _ in range(r.randint(0, 8)):
            t = r.choice(['ACCEPT', 'DROP', 'RETURN', 'jump', 'goto', '',
                          'REJECT', 'LOG', 'MARK'])
            m = feature_match(r, c, feature) if feature else \
                match(r, v6, c)
            if c in finals and t in ('RETURN', 'goto'):
                t = 'DROP'
            if t in ('jump', 'goto'):
                t = (('-g ' if t == 'goto' else '-j ') + r.choice(later)
                     if later else '-j DROP')
            elif t == 'REJECT':
                t = '-j REJECT --reject-with ' + r.choice(
                    (REJECT6 if v6 else REJECT4) +
                    (['tcp-reset'] if '-p tcp' in m and '! -p tcp' not in m
                     else []))
            elif t == 'LOG':
                t = '-j LOG --log-prefix x'
            elif t == 'MARK':
                # The kernel's target: later rules see the mark.
                t = '-j MARK --set-xmark ' + r.choice(['0x1/0xff', '0x4/0x4',
                                                       '0x5/0x0'])
            elif t:
                t = '-j ' + t
            lines.append(f'-A {c} {m} {t}')
        if c in finals:
            lines.append(f'-A {c} -j {r.choice(["ACCEPT", "DROP"])}')
    lines.append('COMMIT')
    return '\n'.join(lines) + '\n'


def l4(r, proto):
    sport, dport = r.choice(PORTS), r.choice(PORTS)
    if proto == 6:
        opts = tcp_options(r)
        doff = 5 + len(opts) // 4 if r.random() < .9 else r.randint(0, 15)
        b = struct.pack('!HHIIBBHHH', sport, dport, 1, 0, doff << 4,
                        r.choice([0x02, 0x10, 0x12, 0x04, 0x11]), 512, 0,
                        0) + opts
    elif proto == 17:
        b = struct.pack('!HHHH', sport, dport, 8, 0)
    elif proto in (1, 58):
        b = struct.pack('!BBHI', r.choice([0, 3, 8, 11, 128, 129]),
                        r.choice([0, 1, 3, 4]), 0, 0)
    else:
        b = b'\0' * 8
    return b + r.choice([b'', b'', b'\0' * 10, b'\0' * 100,
                         b'GET / needle in the hay'])


def exthdr(r, kind, nxt):
    if kind == 44:
        return struct.pack('!BBHI', nxt, 0, r.choice([0, 1, 8]), 7)
    if kind == 51:
        n = r.choice([1, 2])
        return struct.pack('!BB', nxt, n) + b'\0' * ((n + 2) * 4 - 2)
    n = r.choice([0, 1])
    if kind == 43:
        return struct.pack('!BBBB', nxt, n, 0, 0) + b'\0' * (n * 8 + 4)
    return struct.pack('!BB', nxt, n) + b'\0' * (n * 8 + 6)


def packet(r, v6):
    if v6:
        proto = r.choice([6, 6, 17, 17, 58, 47])
        body, nxt = l4(r, proto), proto
        kinds = [r.choice([60, 43, 44, 51, 59])
                 for _ in range(r.choice([0, 0, 0, 1, 2]))]
        src = r.choice(SRC6)
        # Chains around the kernel's limit on extension headers
        # (IP6_MAX_EXT_HDRS_CNT, where it has one), past which
        # ipv6_find_hdr() gives up and a rule with -p drops the packet.
        if r.random() < .04:
            kinds = [r.choice([60, 43, 51]) for _ in range(r.randint(10, 17))]
            src = LONG6
        for kind in kinds:
            body, nxt = exthdr(r, kind, nxt) + body, kind
        if r.random() < .05:
            body = body[:r.randint(0, len(body))]
        tc = r.choice([0] * 6 + [0x10, 0xb8, 0x01, 0x03])
        return struct.pack('!IHBB16s16s', 6 << 28 | tc << 20, len(body), nxt,
                           r.choice([64, 1]),
                           socket.inet_pton(socket.AF_INET6, src),
                           socket.inet_pton(socket.AF_INET6,
                                            r.choice(DST6))) + body
    proto = r.choice([6, 6, 17, 17, 1, 47])
    frag = r.choice([0] * 9 + [0x2000, 1, 0x2001])
    body = l4(r, proto)
    if r.random() < .05:
        body = body[:r.randint(0, len(body))]
    # Options (no-ops, then the end of them) move the transport header.
    opts = r.choice([b''] * 9 + [b'\1\1\1\0', b'\1' * 7 + b'\0'])
    tos = r.choice([0] * 6 + [0x10, 0xb8, 0x01, 0x03])
    ip = struct.pack('!BBHHHBBH4s4s', 0x45 + len(opts) // 4, tos,
                     20 + len(opts) + len(body),
                     r.randint(1, 65535), frag, r.choice([64, 1]), proto, 0,
                     socket.inet_aton(r.choice(SRC4)),
                     socket.inet_aton(r.choice(DST4))) + opts
    csum = sum(struct.unpack(f'!{len(ip) // 2}H', ip))
    csum = (csum & 0xFFFF) + (csum >> 16)
    csum = ~((csum & 0xFFFF) + (csum >> 16)) & 0xFFFF
    return ip[:10] + struct.pack('!H', csum) + ip[12:] + body


def save(ns, v6):
    out = sh('ip6tables-legacy-save' if v6 else 'iptables-legacy-save', '-c',
             ns=ns)
    return [line for line in out.splitlines()
            if not line.startswith('#') and 'zzz' not in line]


def packets(lines):
    """The packets a table counted: its policies' and its rules'."""
    return sum(int(m.group(1)) for line in lines
               for m in re.finditer(r'\[(\d+):\d+\]', line))


def owner(ns, v6):
    fam = 'ipv6' if v6 else 'ipv4'
    with netns(ns), open('/proc/net/bpfilter') as f:
        out = f.read()
    return any(line.startswith(fam + ' filter ') for line in out.splitlines())


def witness(lines):
    """The lines of the tables other than filter."""
    out, table = [], None
    for line in lines:
        if line.startswith('*'):
            table = line[1:]
        if table != 'filter':
            out.append(line)
    return out


BRIDGE = '/sys/module/bpfilter/parameters/bridge'


def bridge(on):
    """bpfilter runs the kernel's matches it does not compile, or not."""
    with open(BRIDGE, 'w') as f:
        f.write('Y' if on else 'N')


def try_table(v6, restore, rules, fallback, frames, senders):
    """Both namespaces' counters after FRAMES, None if not served as planned."""
    ipt = 'ip6tables-legacy' if v6 else 'iptables-legacy'
    sh(restore, ns='b1', inp=rules)
    # With the bridge, bpfilter would run limit itself.
    bridge(False)
    try:
        sh(restore, ns='b2', inp=fallback)
    finally:
        bridge(True)
    if not owner('b1', v6) or owner('b2', v6):
        return None
    for ns in ('b1', 'b2'):
        for line in save(ns, v6):
            if line.startswith('*') and line != '*filter':
                sh(ipt, '-t', line[1:], '-Z', ns=ns)
    for frame in frames:
        for s in senders:
            s.send(frame)
    got = [save(ns, v6) for ns in ('b1', 'b2')]
    if got[0] != got[1]:
        time.sleep(1)
        got = [save(ns, v6) for ns in ('b1', 'b2')]
    return got


def run(v6, tables, seed, npkts, senders):
    restore = 'ip6tables-legacy-restore' if v6 else 'iptables-legacy-restore'
    ethertype = b'\x86\xdd' if v6 else b'\x08\x00'
    failed = 0
    for i in range(seed, seed + tables):
        r = random.Random(i * 2 + v6)
        # Every third table reads one thing (FEATURES), in turn.
        rules = ruleset(r, v6, FEATURES[i // 3 % len(FEATURES)]
                        if i % 3 == 0 else None)
        fallback = rules.replace('COMMIT', ':zzz - [0:0]\n'
                                 '-A zzz -m limit --limit 1000/s\nCOMMIT')
        frames = []
        for _ in range(npkts):
            src = bytes.fromhex(r.choice(MACS).replace(':', ''))
            frames.append(MAC_B + src + ethertype + packet(r, v6))
        # The other tables are ip_tables' in both namespaces: a witness
        # that both saw the same traffic. A packet of a namespace's own at
        # the wrong time makes them differ: the table is tried again.
        for attempt in range(3):
            got = try_table(v6, restore, rules, fallback, frames, senders)
            if got is None or witness(got[0]) == witness(got[1]):
                break
        if got is None:
            print(f'# table {i}: not served as planned\n# {rules}'
                  .replace('\n', '\n# '))
            failed += 1
        elif got[0] != got[1]:
            failed += 1
            print(f'# table {i} (IPv{6 if v6 else 4}): counters differ\n'
                  f'# {rules}'.replace('\n', '\n# '))
            for a, b in zip(*got):
                if a != b:
                    print(f'# bpfilter: {a}\n# ip_tables: {b}')
        elif not packets(got[0]):
            # Equal because nothing arrived: the setup is broken.
            failed += 1
            print(f'# table {i} (IPv{6 if v6 else 4}): no packet reached '
                  'either table')
    return failed


def main():
    tables = int(sys.argv[1] if len(sys.argv) > 1 else
                 os.environ.get('TRANSLATE_DIFF_TABLES', 100))
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    npkts = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    if os.environ.get('BPFILTER_MODE') == 'ip_tables':
        print('SKIP: BPFILTER_MODE=ip_tables, and this test compares '
              'bpfilter with ip_tables')
        return KSFT_SKIP
    if not os.path.exists('/proc/net/bpfilter'):
        subprocess.run(['modprobe', '-q', 'bpfilter'])
    if not os.path.exists('/proc/net/bpfilter'):
        print('SKIP: this kernel has no bpfilter module (CONFIG_BPFILTER_UMH)')
        return KSFT_SKIP
    cleanup()
    try:
        setup()
        senders = []
        for va in ('va1', 'va2'):
            s = socket_in('a', socket.AF_PACKET, socket.SOCK_RAW)
            s.bind((va, 0))
            senders.append(s)
        ret = 0
        for v6 in (False, True):
            t0 = time.time()
            failed = run(v6, tables, seed, npkts, senders)
            fam = 'IPv6' if v6 else 'IPv4'
            print(f'{"FAIL" if failed else "PASS"}: {fam}: {tables} tables x '
                  f'{npkts} packets, {failed} differ '
                  f'({time.time() - t0:.0f} s)')
            ret |= 1 if failed else 0
        return ret
    finally:
        cleanup()


if __name__ == '__main__':
    sys.exit(main())
