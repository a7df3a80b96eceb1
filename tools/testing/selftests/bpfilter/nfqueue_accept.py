#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Listens on an nfnetlink queue and gives every packet NF_ACCEPT.

Usage: nfqueue_accept.py QUEUE SECONDS. Prints "ready" once bound, then,
after SECONDS without a packet, the number of packets it accepted. It
waits a minute for the first packet: in an emulated guest under load,
the sender may take longer than SECONDS to start. It shows that a table
queued a packet to that queue, and that the packet went on after the
verdict.
"""
import socket
import struct
import sys

NETLINK_NETFILTER = 12
NFNL_SUBSYS_QUEUE = 3
NFQNL_MSG_PACKET = 0
NFQNL_MSG_VERDICT = 1
NFQNL_MSG_CONFIG = 2
NFQA_CFG_CMD = 1
NFQA_CFG_PARAMS = 2
NFQA_PACKET_HDR = 1
NFQA_VERDICT_HDR = 2
NFQNL_CFG_CMD_BIND = 1
NFQNL_COPY_META = 1
NLM_F_REQUEST = 1
NLM_F_ACK = 4
NF_ACCEPT = 1


def attr(kind, data):
    data += b'\0' * (-len(data) % 4)
    return struct.pack('=HH', 4 + len(data), kind) + data


def message(kind, queue, attrs, flags=NLM_F_REQUEST):
    body = struct.pack('=BBH', socket.AF_UNSPEC, 0, socket.htons(queue))
    body += b''.join(attrs)
    return struct.pack('=IHHII', 16 + len(body),
                       (NFNL_SUBSYS_QUEUE << 8) | kind, flags, 0, 0) + body


def attrs_of(data):
    found = {}
    while len(data) >= 4:
        size, kind = struct.unpack_from('=HH', data)
        if size < 4:
            break
        found[kind & 0x7fff] = data[4:size]
        data = data[(size + 3) & ~3:]
    return found


def main():
    queue, seconds = int(sys.argv[1]), float(sys.argv[2])
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
    s.bind((0, 0))
    cmd = struct.pack('=BxH', NFQNL_CFG_CMD_BIND, socket.htons(socket.AF_INET))
    s.send(message(NFQNL_MSG_CONFIG, queue, [attr(NFQA_CFG_CMD, cmd)]))
    params = struct.pack('>IB', 0xffff, NFQNL_COPY_META)
    s.send(message(NFQNL_MSG_CONFIG, queue, [attr(NFQA_CFG_PARAMS, params)],
                   NLM_F_REQUEST | NLM_F_ACK))
    # The kernel answers the last request with an error message of 0.
    reply = s.recv(65536)
    kind = struct.unpack_from('=H', reply, 4)[0]
    err = struct.unpack_from('=i', reply, 16)[0] if kind == 2 else -1
    if err:
        print(f'bind to queue {queue}: {err}', file=sys.stderr)
        return 1
    print('ready', flush=True)
    s.settimeout(max(seconds, 60))
    accepted = 0
    while True:
        try:
            data = s.recv(65536)
        except socket.timeout:
            break
        s.settimeout(seconds)
        while len(data) >= 16:
            size, kind = struct.unpack_from('=IH', data)
            if size < 16:
                break
            if kind == (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET:
                hdr = attrs_of(data[20:size]).get(NFQA_PACKET_HDR)
                if hdr:
                    pid = struct.unpack_from('>I', hdr)[0]
                    verdict = struct.pack('>II', NF_ACCEPT, pid)
                    s.send(message(NFQNL_MSG_VERDICT, queue,
                                   [attr(NFQA_VERDICT_HDR, verdict)]))
                    accepted += 1
            data = data[(size + 3) & ~3:]
    print(accepted)
    return 0


if __name__ == '__main__':
    sys.exit(main())
