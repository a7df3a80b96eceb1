#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Seeds for fuzz_requests.c: a control byte and two IPv4 filter tables,
the second one rule away from the first (added last, added first or
deleted in a run of simple rules, the shapes a kept program serves), and
pairs of the corpus' own blobs of one family.

Usage: request_seeds.py CORPUS_DIR OUT_DIR
"""
import itertools
import os
import struct
import sys

NF_DROP, NF_ACCEPT = 0, 1
HOOKS = (1, 2, 3)  # LOCAL_IN, FORWARD, LOCAL_OUT


def entry(target, src=0, smsk=0):
    """An ipt_entry (112 bytes) and its target."""
    ip = struct.pack("<4s4s4s4s", src.to_bytes(4, "big"), bytes(4),
                     smsk.to_bytes(4, "big"), bytes(4))
    ip += bytes(64) + struct.pack("<HBB", 0, 0, 0)
    hdr = ip + struct.pack("<IHHI", 0, 112, 112 + len(target), 0)
    return hdr + bytes(16) + target


def standard(verdict):
    return struct.pack("<H29sB", 40, b"", 0) + struct.pack("<ii", verdict, 0)


def error(name):
    return struct.pack("<H29sB", 64, b"ERROR", 0) + name.ljust(32, b"\0")


def table(rules):
    """INPUT with @rules (source addresses, DROP), FORWARD, OUTPUT."""
    entries, hook_entry, underflow = [], [0] * 5, [0] * 5
    off = 0
    for hook in HOOKS:
        hook_entry[hook] = off
        for src in rules if hook == 1 else []:
            e = entry(standard(-NF_DROP - 1), src, 0xffffffff)
            entries.append(e)
            off += len(e)
        underflow[hook] = off
        e = entry(standard(-NF_ACCEPT - 1))
        entries.append(e)
        off += len(e)
    entries.append(entry(error(b"ERROR")))
    blob = b"".join(entries)
    valid = sum(1 << h for h in HOOKS)
    repl = struct.pack("<32sIII5I5IIQ", b"filter", valid, len(entries),
                       len(blob), *hook_entry, *underflow, len(entries), 0)
    return b"\0" + repl + blob


def main():
    corpus, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    run = [0x0a000001 + i for i in range(20)]
    pairs = {
        "add-last": (run, run + [0x0a0000ff]),
        "add-first": (run, [0x0a0000fe] + run),
        "delete": (run, run[:10] + run[11:]),
        "same": (run, run),
    }
    for name, (a, b) in pairs.items():
        for ctl in (0x00, 0x31, 0xff):
            with open(os.path.join(out, f"{name}-{ctl:02x}"), "wb") as f:
                f.write(bytes([ctl]) + table(a) + table(b))
    blobs = {}
    for n in sorted(os.listdir(corpus)):
        with open(os.path.join(corpus, n), "rb") as f:
            blobs[n] = f.read()
    for (n1, b1), (n2, b2) in itertools.product(blobs.items(), repeat=2):
        if b1[0] & 1 == b2[0] & 1:
            with open(os.path.join(out, f"{n1}+{n2}"), "wb") as f:
                f.write(b"\x01" + b1 + b2)


if __name__ == "__main__":
    main()
