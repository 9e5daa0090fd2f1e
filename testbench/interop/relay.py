#!/usr/bin/env python3
"""Relay Ethernet frames between two QEMU `-netdev dgram` ports and write every frame to a pcap file.

Each side is LISTEN:PEER on 127.0.0.1: the relay binds LISTEN (the guest's dgram remote.port) and sends
what the other side received to PEER (the guest's dgram local.port). One UDP datagram is one Ethernet
frame from the destination MAC on (no FCS), as QEMU's dgram netdev sends it.

    guest A (local=PA, remote=RA) <-> relay --a RA:PA --b RB:PB <-> guest B (local=PB, remote=RB)

Options: --pcap FILE (link type Ethernet, microsecond timestamps), --duration S (stop by itself after S
seconds; default 600), --drop-prob P with --seed N (drop frames at random, both directions, after they
are written to the pcap with nothing to mark them: use the printed counts), --drop-roce-only (drop only
UDP/4791 frames, so ARP still resolves). Stops on SIGTERM/SIGINT or at the deadline; prints the frame
counts on stderr. Python standard library only.
"""
import argparse
import random
import select
import signal
import socket
import struct
import sys
import time


def parse_side(text):
    listen, peer = text.split(":")
    return int(listen), int(peer)


def is_roce(frame):
    """Ethernet (optionally one 802.1Q tag) / IPv4 or IPv6 / UDP to port 4791."""
    off, ethertype = 14, frame[12:14]
    if ethertype == b"\x81\x00" and len(frame) >= 18:
        ethertype, off = frame[16:18], 18
    if ethertype == b"\x08\x00" and len(frame) >= off + 20:
        ihl = (frame[off] & 0x0F) * 4
        if frame[off + 9] != 17 or len(frame) < off + ihl + 4:
            return False
        return struct.unpack("!H", frame[off + ihl + 2:off + ihl + 4])[0] == 4791
    if ethertype == b"\x86\xdd" and len(frame) >= off + 44:
        return frame[off + 6] == 17 and struct.unpack("!H", frame[off + 42:off + 44])[0] == 4791
    return False


class Pcap:
    def __init__(self, path):
        self.f = open(path, "wb")
        # magic, version 2.4, thiszone, sigfigs, snaplen, link type 1 (Ethernet)
        self.f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
        self.f.flush()

    def write(self, frame):
        now = time.time()
        sec = int(now)
        usec = int((now - sec) * 1_000_000)
        self.f.write(struct.pack("<IIII", sec, usec, len(frame), len(frame)) + frame)
        self.f.flush()  # readable while the relay runs, and complete if it is killed

    def close(self):
        self.f.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, metavar="LISTEN:PEER", help="side A: relay port, guest A port")
    ap.add_argument("--b", required=True, metavar="LISTEN:PEER", help="side B: relay port, guest B port")
    ap.add_argument("--pcap", help="write every frame here")
    ap.add_argument("--duration", type=float, default=600.0, help="stop after this many seconds")
    ap.add_argument("--drop-prob", type=float, default=0.0, help="drop a frame with this probability")
    ap.add_argument("--drop-roce-only", action="store_true", help="only RoCE frames are dropped")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    (la, pa), (lb, pb) = parse_side(args.a), parse_side(args.b)
    sa = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sb = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for s in (sa, sb):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    sa.bind(("127.0.0.1", la))
    sb.bind(("127.0.0.1", lb))
    # frames received on A's listen port go to B's guest from B's listen port, and the reverse
    route = {sa: (sb, ("127.0.0.1", pb), "a->b"), sb: (sa, ("127.0.0.1", pa), "b->a")}
    pcap = Pcap(args.pcap) if args.pcap else None
    rng = random.Random(args.seed)
    counts = {"a->b": 0, "b->a": 0, "roce": 0, "dropped": 0}

    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    print(f"relay.py: A {la}<->{pa}, B {lb}<->{pb}, ready", file=sys.stderr, flush=True)
    deadline = time.monotonic() + args.duration
    while not stop and time.monotonic() < deadline:
        try:
            ready, _, _ = select.select([sa, sb], [], [], 0.2)
        except InterruptedError:
            continue
        for s in ready:
            frame = s.recv(65536)
            out, dest, name = route[s]
            counts[name] += 1
            roce = is_roce(frame)
            counts["roce"] += roce
            if pcap:
                pcap.write(frame)
            if args.drop_prob > 0 and (roce or not args.drop_roce_only) and rng.random() < args.drop_prob:
                counts["dropped"] += 1
                continue
            try:
                out.sendto(frame, dest)
            except OSError:
                pass  # the guest is not up (yet, or any more): the frame is lost, as on a wire
    if pcap:
        pcap.close()
    print("relay.py: frames a->b {a->b}, b->a {b->a}, RoCE {roce}, dropped {dropped}".format(**counts),
          file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
