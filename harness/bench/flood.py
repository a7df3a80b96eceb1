#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Per-packet cost at OUTPUT: UDP datagrams to DST:PORT, sent for about
SECONDS (at most MAX of them); prints the mean ns per datagram. A DROP
at OUTPUT fails the send with EPERM, which costs the same to handle.
Usage: flood.py 4|6 DST PORT [SECONDS [MAX]]"""
import socket
import sys
import time


def main():
    fam = socket.AF_INET6 if sys.argv[1] == '6' else socket.AF_INET
    dst, port = sys.argv[2], int(sys.argv[3])
    seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 0.5
    most = int(sys.argv[5]) if len(sys.argv) > 5 else 20000
    s = socket.socket(fam, socket.SOCK_DGRAM)
    payload = b'x' * 64
    n, t0 = 0, time.perf_counter_ns()
    deadline = t0 + seconds * 1e9
    while n < most:
        for _ in range(10):
            try:
                s.sendto(payload, (dst, port))
            except OSError:
                pass
        n += 10
        if time.perf_counter_ns() >= deadline:
            break
    print(int((time.perf_counter_ns() - t0) / n))


if __name__ == '__main__':
    main()
