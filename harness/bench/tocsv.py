#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""run.sh's output as the CSV of report.py (variant "exact", the packet
matching no rule). Usage: tocsv.py TXT > CSV"""
import re
import sys

MODE = {'nftables': 'nft-lines'}


def main():
    fam = n = None
    base = {}
    print('family,variant,n,mode,metric,value')
    rows = []
    with open(sys.argv[1]) as f:
        for line in f:
            m = re.match(r'IPv(\d), (\d+) rules', line)
            if m:
                fam, n = m.group(1), int(m.group(2))
                continue
            m = re.match(r'\s+(\S+)\s+(-?[\d.]+) ns', line)
            if not m or fam is None:
                continue
            mode, v = m.group(1), round(float(m.group(2)))
            if mode == 'none':
                base.setdefault(fam, []).append(v)
                continue
            rows.append(f'{fam},exact,{n},{MODE.get(mode, mode)},ns_none,{v}')
    for fam, v in sorted(base.items()):
        # The empty namespace of the runs: their median.
        print(f'{fam},none,0,none,ns_none,{sorted(v)[len(v) // 2]}')
    print('\n'.join(rows))


if __name__ == '__main__':
    main()
