#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The benchmark's table, its targets, and a plot, from guest.sh's CSV.
Usage: report.py CSV SVG"""
import collections
import csv
import math
import os
import sys

MODES = ['ip_tables', 'bpfilter', 'nft-lines', 'nft-set']
COLORS = {'ip_tables': '#d62728', 'bpfilter': '#1f77b4',
          'nft-lines': '#ff7f0e', 'nft-set': '#2ca02c'}
# Under BENCH_ICOUNT=1 the guest's nanoseconds are instructions.
UNIT = 'insns' if os.environ.get('BENCH_ICOUNT') else 'ns'
METRICS = [('ns_none', f'{UNIT}/pkt, no match'),
           ('ns_middle', f'{UNIT}/pkt, middle'),
           ('ns_last', f'{UNIT}/pkt, last'), ('load_ms', 'load ms'),
           ('add_ms', 'one -A ms'), ('mem_kb', 'memory kB')]
# Per family: the cost of a netfilter program that only accepts (floor.c).
FLOOR = {}


def floor(fam, base):
    """The floor's per-packet cost, minus the empty namespace's."""
    return FLOOR[fam] - base.get(fam, 0) if fam in FLOOR else None


def load(path):
    data = collections.defaultdict(dict)
    base = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            if row['mode'] == 'none':
                base[row['family']] = int(row['value'])
                continue
            if row['mode'] == 'floor':
                FLOOR[row['family']] = int(row['value'])
                continue
            key = (row['family'], row['variant'], int(row['n']), row['mode'])
            data[key][row['metric']] = int(row['value'] or 0)
    return data, base


def cost(data, base, key, metric):
    """Per-packet cost of the rule set: minus the empty namespace's."""
    v = data.get(key, {}).get(metric)
    if v is None:
        return None
    return v - base.get(key[0], 0) if metric.startswith('ns_') else v


def table(data, base):
    groups = sorted({(k[0], k[1]) for k in data})
    for fam, var in groups:
        ns = sorted({k[2] for k in data if k[:2] == (fam, var)})
        print(f'\nIPv{fam}, {var} rules (per-packet cost minus the empty '
              f'namespace, {base.get(fam, 0)} {UNIT}; floor '
              f'{floor(fam, base)})')
        print(f'{"metric":18} {"mode":10}' +
              ''.join(f'{n:>10}' for n in ns))
        for metric, label in METRICS:
            for mode in MODES:
                vals = [cost(data, base, (fam, var, n, mode), metric)
                        for n in ns]
                if all(v is None for v in vals):
                    continue
                print(f'{label:18} {mode:10}' + ''.join(
                    f'{"-" if v is None else v:>10}' for v in vals))


def targets(data, base):
    print('\nTargets (issue 6), per family and variant:')
    for fam, var in sorted({(k[0], k[1]) for k in data}):
        ns = sorted({k[2] for k in data if k[:2] == (fam, var)})
        lo, hi = ns[0], ns[-1]

        def c(n, mode, metric='ns_none'):
            return cost(data, base, (fam, var, n, mode), metric)

        b_lo, b_hi = c(lo, 'bpfilter'), c(hi, 'bpfilter')
        i_lo, i_hi = c(lo, 'ip_tables'), c(hi, 'ip_tables')
        out = []
        if None not in (b_lo, b_hi) and hi != lo:
            out.append(f'bpfilter {hi} vs {lo} rules: '
                       f'{b_hi / max(b_lo, 1):.2f}x (target <= 1.5x)')
        if None not in (b_hi, i_hi):
            out.append(f'ip_tables/bpfilter at {hi}: '
                       f'{i_hi / max(b_hi, 1):.0f}x (target >= 100x)')
        if None not in (b_lo, i_lo):
            out.append(f'at {lo}: bpfilter {b_lo} {UNIT}, ip_tables {i_lo} '
                       f'{UNIT} ({b_lo / max(i_lo, 1):.2f}x, target <= 1)')
        f = floor(fam, base)
        if None not in (b_lo, f):
            out.append(f'bpfilter at {lo} against the floor ({f} {UNIT}): '
                       f'{b_lo / max(f, 1):.2f}x (target <= 1.2x)')
        la, li = c(hi, 'bpfilter', 'load_ms'), c(hi, 'ip_tables', 'load_ms')
        if None not in (la, li):
            out.append(f'load of {hi}: bpfilter {la} ms, ip_tables {li} ms')
        a = c(hi, 'bpfilter', 'add_ms')
        if a is not None:
            out.append(f'one -A at {hi}: {a} ms (target < 50 ms)')
        print(f'  IPv{fam} {var}: ' + '; '.join(out))


def plot(data, base, path):
    """Per-packet cost against rules, log-log, a panel per family/variant."""
    groups = sorted({(k[0], k[1]) for k in data})
    w, h, pad = 420, 300, 50
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w * len(groups)}"'
           f' height="{h + 40}" font-family="sans-serif" font-size="11">']
    for gi, (fam, var) in enumerate(groups):
        x0 = gi * w
        pts = {m: [(n, cost(data, base, (fam, var, n, m), 'ns_none'))
                   for n in sorted({k[2] for k in data if k[:2] == (fam, var)})]
               for m in MODES}
        allv = [v for p in pts.values() for _, v in p if v and v > 0]
        allv += [v for v in [floor(fam, base)] if v and v > 0]
        alln = [n for p in pts.values() for n, _ in p]
        if not allv:
            continue
        ylo, yhi = math.log10(max(min(allv), 1)), math.log10(max(allv)) + .1
        # N = 0 stands where 1 would (log scale).
        xlo = math.log10(max(min(alln), 1))
        xhi = math.log10(max(max(alln), 1)) + .01

        def x(n):
            return x0 + pad + (math.log10(max(n, 1)) - xlo) / (xhi - xlo) * (
                w - 2 * pad)

        def y(v):
            v = math.log10(max(v, 1))
            return h - pad + 20 - (v - ylo) / (yhi - ylo or 1) * (h - 2 * pad)

        svg.append(f'<text x="{x0 + w / 2}" y="15" text-anchor="middle">'
                   f'IPv{fam}, {var}: ns per packet (no match) vs rules</text>')
        svg.append(f'<line x1="{x0 + pad}" y1="{h - pad + 20}" x2="{x0 + w - pad}"'
                   f' y2="{h - pad + 20}" stroke="black"/>')
        svg.append(f'<line x1="{x0 + pad}" y1="{h - pad + 20}" x2="{x0 + pad}"'
                   f' y2="30" stroke="black"/>')
        for n in sorted(set(alln)):
            svg.append(f'<text x="{x(n)}" y="{h - pad + 35}" '
                       f'text-anchor="middle">{n}</text>')
        for e in range(math.ceil(ylo), math.floor(yhi) + 1):
            svg.append(f'<text x="{x0 + pad - 5}" y="{y(10 ** e) + 4}" '
                       f'text-anchor="end">1e{e}</text>')
        f = floor(fam, base)
        if f and f > 0:
            svg.append(f'<line x1="{x0 + pad}" y1="{y(f):.1f}" x2="'
                       f'{x0 + w - pad}" y2="{y(f):.1f}" stroke="gray" '
                       'stroke-dasharray="4"/>')
            svg.append(f'<text x="{x0 + w - pad}" y="{y(f) - 4:.1f}" '
                       'text-anchor="end" fill="gray">floor</text>')
        for li, m in enumerate(MODES):
            p = [(x(n), y(v)) for n, v in pts[m] if v is not None]
            if not p:
                continue
            svg.append('<polyline fill="none" stroke-width="2" stroke="'
                       f'{COLORS[m]}" points="' +
                       ' '.join(f'{a:.1f},{b:.1f}' for a, b in p) + '"/>')
            svg.append(f'<text x="{x0 + pad + 10}" y="{40 + 14 * li}" '
                       f'fill="{COLORS[m]}">{m}</text>')
    svg.append('</svg>')
    with open(path, 'w') as f:
        f.write('\n'.join(svg) + '\n')


def main():
    data, base = load(sys.argv[1])
    table(data, base)
    targets(data, base)
    plot(data, base, sys.argv[2])


if __name__ == '__main__':
    main()
