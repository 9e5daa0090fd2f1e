#!/usr/bin/env python3
"""Independent check of a RoCEv2 capture, sharing no code with rocenic.

For every IPv4/UDP frame to port 4791: recompute the ICRC with zlib's CRC-32 over the masked fields
(IBA vol 1 section 7.8 and RoCEv2 annex A17: 8 bytes of 0xFF, the IP header with TOS, TTL and checksum as
ones, the UDP header with the checksum as ones, BTH byte 4 as ones, then everything up to the ICRC) and
compare it with the 4 bytes after the payload, least-significant byte first. With --tshark, also have
Wireshark's dissector decode every frame and fail on any frame not decoded as InfiniBand or marked
malformed. Prints "N passed, M failed" and exits 1 on any failure or when there are no RoCE frames.
"""
import argparse
import shutil
import struct
import subprocess
import sys
import zlib


def frames(path):
    data = open(path, "rb").read()
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        endian = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        endian = ">"
    else:
        sys.exit(f"{path}: not a classic pcap file")
    at = 24
    while at + 16 <= len(data):
        incl = struct.unpack(endian + "I", data[at + 8:at + 12])[0]
        yield data[at + 16:at + 16 + incl]
        at += 16 + incl


def icrc_ok(f):
    ip_len = struct.unpack(">H", f[16:18])[0]
    end = 14 + ip_len
    masked = bytearray(b"\xff" * 8 + f[14:end - 4])
    for pos in (15, 22, 24, 25, 40, 41, 46):  # TOS, TTL, IP checksum, UDP checksum, BTH byte 4
        masked[8 + pos - 14] = 0xFF
    return zlib.crc32(bytes(masked)).to_bytes(4, "little") == f[end - 4:end]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pcap")
    ap.add_argument("--allow-bad", type=int, default=0, help="number of bad-ICRC frames expected (fault injection)")
    ap.add_argument("--tshark", action="store_true", help="also decode every frame with tshark")
    a = ap.parse_args()

    passed = failed = bad = 0
    for i, f in enumerate(frames(a.pcap), 1):
        if len(f) < 58 or f[12:14] != b"\x08\x00" or f[23] != 17 or f[36:38] != b"\x12\xb7":
            continue
        if icrc_ok(f):
            passed += 1
        else:
            bad += 1
            print(f"frame {i}: ICRC mismatch")
    if bad > a.allow_bad:
        failed += bad - a.allow_bad
    else:
        passed += bad  # expected corrupted frames, counted as checks that behaved
    if passed + bad == 0:
        print("no RoCEv2 frames in the capture")
        failed += 1

    if a.tshark:
        if not shutil.which("tshark"):
            sys.exit("tshark not found: scripts/setup.sh installs it (apt-get install tshark)")
        out = subprocess.run(["tshark", "-r", a.pcap, "-T", "fields", "-e", "frame.number", "-e", "frame.protocols",
                              "-e", "_ws.malformed", "-e", "_ws.expert.message"],
                             capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            num, protos, malformed, expert = (line.split("\t") + ["", "", "", ""])[:4]
            if "udp" in protos.split(":") and "infiniband" not in protos.split(":"):
                print(f"frame {num}: not decoded as InfiniBand ({protos})")
                failed += 1
            elif malformed or "Malformed" in expert:
                print(f"frame {num}: malformed ({expert})")
                failed += 1
            else:
                passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
