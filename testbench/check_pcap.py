#!/usr/bin/env python3
"""Independent check of a RoCEv2 capture, sharing no code with rocenic (Python standard library only).

For every frame to UDP port 4791 (Ethernet, optional 802.1Q tag, IPv4 or IPv6): recompute the ICRC with
zlib's CRC-32 (IBA vol 1 section 7.8 and RoCEv2 annex A17) over 8 bytes of 0xFF, the IP header with its
variant fields as ones (IPv4 TOS, TTL, header checksum; IPv6 traffic class, flow label, hop limit), the UDP
header with its checksum as ones, the BTH with byte 4 as ones, then everything up to the ICRC, which is
found from the IP length (short Ethernet frames carry padding after it) and is stored least-significant
byte first. With --tshark, also have Wireshark decode every frame and fail on any RoCE frame whose BTH it
does not decode, or any frame it marks malformed. With --vlan VID, every RoCE frame must be tagged with
that VLAN ID (and tshark must decode the tag so). With --ipv6, every RoCE frame must be IPv6 (and tshark
must decode it so). MAC Control frames (EtherType 0x8808: 802.1Qbb PFC and 802.3x PAUSE) are decoded
with --tshark too: the opcode, PFC's class-enable vector and eight class times, PAUSE's time, as tshark
reads them, must equal the frame's bytes.

Prints "N passed, M failed" (one check per RoCE frame, plus one per frame with --tshark, plus one per
MAC Control frame with --tshark) and exits 1 on
any failure, or when the capture holds no RoCE frame.
"""
import argparse
import shutil
import struct
import subprocess
import sys
import zlib

ROCE_PORT = 4791


def frames(path):
    """Yields (number, bytes, truncated) for each frame of a classic pcap file with Ethernet link type."""
    data = open(path, "rb").read()
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        endian = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        endian = ">"
    else:
        sys.exit(f"{path}: not a classic pcap file")
    linktype = struct.unpack(endian + "I", data[20:24])[0] & 0x0FFFFFFF
    if linktype != 1:
        sys.exit(f"{path}: link type {linktype}, not Ethernet")
    at, number = 24, 0
    while at + 16 <= len(data):
        incl, orig = struct.unpack(endian + "II", data[at + 8:at + 16])
        number += 1
        yield number, data[at + 16:at + 16 + incl], incl < orig
        at += 16 + incl


def roce_layout(f):
    """(ip, ip header length, ipv6, end of the IP datagram) of a frame to UDP 4791, else None."""
    if len(f) < 14:
        return None
    ip = 14
    ethertype = struct.unpack(">H", f[12:14])[0]
    if ethertype == 0x8100 and len(f) >= 18:
        ethertype = struct.unpack(">H", f[16:18])[0]
        ip = 18
    if ethertype == 0x0800 and len(f) >= ip + 20:
        hl = (f[ip] & 0x0F) * 4
        proto, end, v6 = f[ip + 9], ip + struct.unpack(">H", f[ip + 2:ip + 4])[0], False
    elif ethertype == 0x86DD and len(f) >= ip + 40:
        hl = 40
        proto, end, v6 = f[ip + 6], ip + 40 + struct.unpack(">H", f[ip + 4:ip + 6])[0], True
    else:
        return None
    udp = ip + hl
    if proto != 17 or len(f) < udp + 4 or struct.unpack(">H", f[udp + 2:udp + 4])[0] != ROCE_PORT:
        return None
    return ip, hl, v6, end


def icrc(f, ip, hl, v6, end):
    """(ICRC on the wire, ICRC computed), both as the 4 wire bytes."""
    m = bytearray(f[ip:end - 4])
    if v6:
        m[0] |= 0x0F  # traffic class (low nibble of byte 0, high nibble of byte 1) ...
        m[1:4] = b"\xff\xff\xff"  # ... and the flow label
        m[7] = 0xFF  # hop limit
    else:
        m[1] = 0xFF  # TOS
        m[8] = 0xFF  # TTL
        m[10:12] = b"\xff\xff"  # header checksum
    m[hl + 6:hl + 8] = b"\xff\xff"  # UDP checksum
    m[hl + 8 + 4] = 0xFF  # BTH byte 4: FECN, BECN, resv6a
    computed = zlib.crc32(b"\xff" * 8 + bytes(m)) & 0xFFFFFFFF
    return bytes(f[end - 4:end]), computed.to_bytes(4, "little")


# Heuristic sub-dissectors Wireshark 4.0 tries on InfiniBand payloads.
PAYLOAD_HEURISTICS = [
    "eth_over_ib", "fc_infiniband", "iser_infiniband", "lnet_ib", "mellanox_eoib",
    "rpcrdma_infiniband", "sdp_infiniband", "smb_direct_infiniband", "smcr_infiniband", "nvme_rdma",
]


def mac_control(f):
    """(opcode, class-enable vector, the eight times) of a PFC frame, (opcode, None, [time]) of a PAUSE
    or other MAC Control frame, read from its bytes; None if it is not MAC Control."""
    if len(f) < 34 or f[12:14] != b"\x88\x08":
        return None
    opcode, = struct.unpack(">H", f[14:16])
    if opcode == 0x0101:
        return opcode, struct.unpack(">H", f[16:18])[0], list(struct.unpack(">8H", f[18:34]))
    return opcode, None, [struct.unpack(">H", f[16:18])[0]]


def tshark_mac_control(path, expected):
    """Frame numbers of MAC Control frames whose fields tshark decodes otherwise than `expected`
    ({number: mac_control(bytes)}) says, with why."""
    fields = ["frame.number", "macc.opcode", "macc.cbfc.enbv", "macc.pause_time"]
    fields += [f"macc.cbfc.pause_time.c{i}" for i in range(8)]
    cmd = ["tshark", "-r", path, "-Y", "macc", "-T", "fields"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    problems, seen = {}, set()
    for line in out.splitlines():
        cols = (line.split("\t") + [""] * len(fields))[:len(fields)]
        number = int(cols[0])
        seen.add(number)
        want = expected.get(number)
        if want is None:
            continue
        got_op = int(cols[1], 0) if cols[1] else None
        if want[1] is not None:
            got = (got_op, int(cols[2], 0) if cols[2] else None, [int(c) if c else None for c in cols[4:]])
        else:
            got = (got_op, None, [int(cols[3], 0) if cols[3] else None])
        if got != want:
            problems[number] = f"MAC Control decoded as {got}, bytes say {want}"
    for number in expected.keys() - seen:
        problems[number] = "MAC Control frame not decoded as MAC Control"
    return problems


def tshark_problems(path, roce_frames, source_ports, vlan=None, ipv6=False):
    """Frame numbers tshark does not decode as InfiniBand BTH (RoCE frames) or marks malformed (any);
    with `vlan`, also RoCE frames tshark does not decode as tagged with that VLAN ID; with `ipv6`, RoCE
    frames it does not decode as IPv6."""
    if not shutil.which("tshark"):
        sys.exit("tshark not found: scripts/setup.sh installs it (apt-get install tshark)")
    # Wireshark's UDP dissector tries the lower port first; a RoCE source port below 4791 that another
    # protocol registered (the public capture uses 69, TFTP) would win, so those ports are decoded as RoCE.
    decode_as = []
    for port in sorted(p for p in source_ports if p < ROCE_PORT):
        decode_as += ["-d", f"udp.port=={port},infiniband"]
    # Wireshark guesses what an InfiniBand payload carries (RPC-over-RDMA, SMB Direct, ...); RoCE
    # payloads here are opaque application bytes, so a guess that fails is not a RoCE defect.
    for h in PAYLOAD_HEURISTICS:
        decode_as += ["--disable-heuristic", h]
    fields = ["frame.number", "infiniband.bth.opcode", "_ws.malformed", "_ws.expert.message", "vlan.id",
              "ipv6.version"]
    cmd = ["tshark", "-r", path, *decode_as, "-T", "fields", "-E", "occurrence=a"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    problems, seen = {}, set()
    for line in out.splitlines():
        number, opcode, malformed, expert, vid, v6 = (line.split("\t") + [""] * 6)[:6]
        number = int(number)
        seen.add(number)
        if number in roce_frames and not opcode:
            problems[number] = "not decoded as InfiniBand BTH"
        elif vlan is not None and number in roce_frames and vid != str(vlan):
            problems[number] = f"802.1Q VLAN ID {vid or 'none'}, expected {vlan}"
        elif ipv6 and number in roce_frames and v6 != "6":
            problems[number] = "not decoded as IPv6"
        elif malformed or "Malformed" in expert:
            problems[number] = f"malformed: {malformed or expert}"
    for number in roce_frames - seen:
        problems[number] = "missing from tshark's output"
    return problems, seen


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pcap")
    ap.add_argument("--allow-bad", type=int, default=0, metavar="N",
                    help="tolerate up to N frames with a wrong ICRC (captures with injected faults)")
    ap.add_argument("--allow-short", type=int, default=0, metavar="N",
                    help="tolerate up to N frames that end before their IP length says (truncated frames "
                         "sent on purpose); tshark calling them malformed is tolerated too")
    ap.add_argument("--tshark", action="store_true", help="also decode every frame with tshark")
    ap.add_argument("--vlan", type=int, metavar="VID",
                    help="every RoCE frame must carry an 802.1Q tag with this VLAN ID")
    ap.add_argument("--ipv6", action="store_true", help="every RoCE frame must be RoCEv2 over IPv6")
    a = ap.parse_args()

    passed = failed = 0
    roce, bad, short, source_ports, macc = set(), [], [], set(), {}
    for number, f, truncated in frames(a.pcap):
        m = mac_control(f)
        if m is not None:
            macc[number] = m
        layout = roce_layout(f)
        if layout is None:
            continue
        roce.add(number)
        ip, hl, _, end = layout
        if a.vlan is not None and (ip != 18 or struct.unpack(">H", f[14:16])[0] & 0xFFF != a.vlan):
            print(f"frame {number}: not tagged with VLAN {a.vlan}")
            failed += 1
            continue
        if a.ipv6 and not layout[2]:
            print(f"frame {number}: not IPv6")
            failed += 1
            continue
        source_ports.add(struct.unpack(">H", f[ip + hl:ip + hl + 2])[0])
        if not truncated and end > len(f) and len(short) < a.allow_short:
            print(f"frame {number}: shorter than its IP length, allowed")
            short.append(number)
            passed += 1
            continue
        if truncated or end > len(f) or end < ip + hl + 8 + 12 + 4:
            print(f"frame {number}: cannot check: {'truncated by the capture' if truncated else 'bad IP length'}")
            failed += 1
            continue
        wire, computed = icrc(f, *layout)
        if wire == computed:
            passed += 1
        else:
            print(f"frame {number}: ICRC mismatch: wire {wire.hex()}, computed {computed.hex()}")
            bad.append(number)
    allowed = min(len(bad), a.allow_bad)
    passed += allowed  # expected corrupted frames: the check behaved
    failed += len(bad) - allowed
    if bad:
        print(f"{len(bad)} frame(s) with a wrong ICRC, {a.allow_bad} allowed")
    if not roce:
        print("no RoCEv2 frames in the capture")
        failed += 1

    if a.tshark:
        problems, decoded = tshark_problems(a.pcap, roce, source_ports, a.vlan, a.ipv6)
        for number in short:
            problems.pop(number, None)
        for number, why in sorted(problems.items()):
            print(f"frame {number}: tshark: {why}")
        failed += len(problems)
        passed += len(decoded - problems.keys())
        if macc:
            wrong = tshark_mac_control(a.pcap, macc)
            for number, why in sorted(wrong.items()):
                print(f"frame {number}: tshark: {why}")
            failed += len(wrong)
            passed += len(macc) - len(wrong)

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
