#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The real-world shapes' table (issue 19), from shapes.sh's CSV: per
shape and kind of traffic, what each mode costs an exchange beyond the
same traffic without rules, and bpfilter's ratios to ip_tables and to the
floor (a netfilter program that only accepts, at the three hooks).
Usage: shapes.py CSV"""
import collections
import csv
import os
import sys

MODES = ['floor', 'ip_tables', 'bpfilter', 'nft']
KINDS = ['est', 'new', 'syn', 'udp', 'icmp']
UNIT = 'insns' if os.environ.get('BENCH_ICOUNT') else 'ns'


def main():
    val = collections.defaultdict(dict)
    rules = {}
    with open(sys.argv[1]) as f:
        for row in csv.DictReader(f):
            rules[row['shape']] = row['rules']
            if row['value']:
                val[(row['shape'], row['kind'])][row['mode']] = \
                    int(row['value'])
    print(f'\nReal-world shapes, IPv4: {UNIT} per exchange beyond the same '
          'traffic without rules')
    print(f'{"shape":10} {"kind":5} {"none":>9}' +
          ''.join(f'{m:>10}' for m in MODES) +
          f'{"bpf/ipt":>9}{"bpf/floor":>10}')
    for shape in sorted(rules, key=list(rules).index):
        for kind in KINDS:
            v = val.get((shape, kind), {})
            if 'none' not in v:
                continue
            d = {m: v[m] - v['none'] for m in MODES if m in v}
            line = f'{shape:10} {kind:5} {v["none"]:>9}' + ''.join(
                f'{d.get(m, "-"):>10}' for m in MODES)
            b, i, fl = d.get('bpfilter'), d.get('ip_tables'), d.get('floor')
            line += f'{b / i:>9.2f}' if None not in (b, i) and i > 0 \
                else f'{"-":>9}'
            line += f'{b / fl:>10.2f}' if None not in (b, fl) and fl > 0 \
                else f'{"-":>10}'
            print(line)
    print(f'(rules: ' + ', '.join(f'{s} {n}' for s, n in rules.items()) +
          '; a drop may cost less than no rule: the packet goes no further)')


if __name__ == '__main__':
    main()
