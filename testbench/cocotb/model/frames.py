"""Ethernet / IPv4 or IPv6 / UDP / RoCEv2 frame builders and the receive-filter model, written from the
specs (RFC 791, RFC 8200, RFC 768, IBA vol 1 §7.8 + annex A17), sharing no code with the RTL generator.

Frames are `bytes` without FCS (the MAC strips it), as the NIC's MAC stream carries them.
"""
import random
import struct
import zlib

ROCE_PORT = 4791
ETH_LEN, IP_LEN, UDP_LEN, BTH_LEN, ICRC_LEN = 14, 20, 8, 12, 4
IP6_LEN = 40
# Frame offsets the ICRC treats as all ones for IPv4 (TOS, TTL, IP checksum, UDP checksum, BTH byte 4).
ICRC_MASKED = (15, 22, 24, 25, 40, 41, 46)


def mac_bytes(mac: int) -> bytes:
    return mac.to_bytes(6, "big")


def ip_checksum(header: bytes) -> int:
    """RFC 791 header checksum: ones' complement of the ones' complement sum of 16-bit words."""
    s = 0
    for i in range(0, len(header), 2):
        s += (header[i] << 8) | header[i + 1]
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ip_checksum_ok(header: bytes) -> bool:
    s = 0
    for i in range(0, len(header), 2):
        s += (header[i] << 8) | header[i + 1]
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s == 0xFFFF


def icrc_of(frame: bytes, ip_end: int) -> bytes:
    """The ICRC (4 wire bytes) of an untagged IPv4 RoCEv2 frame whose IP datagram ends at `ip_end`."""
    m = bytearray(frame[ETH_LEN:ip_end - ICRC_LEN])
    for p in ICRC_MASKED:
        if ETH_LEN <= p < ip_end - ICRC_LEN:
            m[p - ETH_LEN] = 0xFF
    return (zlib.crc32(b"\xff" * 8 + bytes(m)) & 0xFFFFFFFF).to_bytes(4, "little")


def icrc6_of(frame: bytes, ip_end: int) -> bytes:
    """The ICRC of an untagged IPv6 RoCEv2 frame: over IPv6 the ICRC counts the traffic class, flow label
    and hop limit as ones (the version nibble stays), the UDP checksum and BTH byte 4 too (annex A17)."""
    m = bytearray(frame[ETH_LEN:ip_end - ICRC_LEN])
    m[0] |= 0x0F          # traffic class, high half
    m[1:4] = b"\xff" * 3  # traffic class low half, flow label
    m[7] = 0xFF           # hop limit
    for p in (ETH_LEN + IP6_LEN + 6, ETH_LEN + IP6_LEN + 7, ETH_LEN + IP6_LEN + UDP_LEN + 4):
        if p < ip_end - ICRC_LEN:
            m[p - ETH_LEN] = 0xFF
    return (zlib.crc32(b"\xff" * 8 + bytes(m)) & 0xFFFFFFFF).to_bytes(4, "little")


def roce6_frame(dst_mac: int, src_mac: int, src_ip: bytes, dst_ip: bytes, payload: bytes = b"",
                opcode: int = 0x04, dest_qp: int = 0x11, psn: int = 0, udp_dport: int = ROCE_PORT,
                tc: int = 0x02, flow: int = 0, hop: int = 64, next_header: int = 17, version: int = 6,
                pad_to: int = 60, payload_len=None, icrc=None) -> bytes:
    """An Ethernet II + IPv6 + UDP + BTH + payload + ICRC frame (RFC 8200, annex A17.4); `src_ip` and
    `dst_ip` are 16 bytes. Overrides (`payload_len`, `icrc`, ...) build malformed frames."""
    bth = struct.pack(">BBHII", opcode, 0x40, 0xFFFF, dest_qp & 0xFFFFFF, psn & 0xFFFFFF)
    body = bth + payload
    udp_len = UDP_LEN + len(body) + ICRC_LEN
    if payload_len is None:
        payload_len = udp_len
    hdr = struct.pack(">IHBB16s16s", version << 28 | tc << 20 | flow, payload_len, next_header, hop,
                      src_ip, dst_ip)
    udp = struct.pack(">HHHH", 0xC000, udp_dport, udp_len, 0)
    eth = mac_bytes(dst_mac) + mac_bytes(src_mac) + b"\x86\xdd"
    f = bytearray(eth + hdr + udp + body + b"\0\0\0\0")
    end = len(f)
    f[end - 4:end] = icrc6_of(bytes(f), end) if icrc is None else icrc
    if len(f) < pad_to:
        f += bytes(pad_to - len(f))
    return bytes(f)


def roce_frame(dst_mac: int, src_mac: int, src_ip: int, dst_ip: int, payload: bytes = b"",
               opcode: int = 0x04, dest_qp: int = 0x11, psn: int = 0, udp_dport: int = ROCE_PORT,
               udp_sport: int = 0xC000, tos: int = 0x02, ttl: int = 64, ident: int = 0,
               ext: bytes = b"", pad_to: int = 60, ip_total_len=None, ip_csum=None,
               icrc=None, ethertype: int = 0x0800, vihl: int = 0x45, proto: int = 17) -> bytes:
    """An Ethernet II + IPv4 + UDP + BTH (+ ext headers) + payload + ICRC frame, padded to `pad_to`.
    Overrides (`ip_total_len`, `ip_csum`, `icrc`) build malformed frames; by default every field is
    right."""
    bth = struct.pack(">BBHII", opcode, 0x40, 0xFFFF, dest_qp & 0xFFFFFF, psn & 0xFFFFFF)
    body = bth + ext + payload
    udp_len = UDP_LEN + len(body) + ICRC_LEN
    total = IP_LEN + udp_len
    if ip_total_len is None:
        ip_total_len = total
    hdr = bytearray(struct.pack(">BBHHHBBH4s4s", vihl, tos, ip_total_len, ident, 0x4000, ttl, proto, 0,
                                src_ip.to_bytes(4, "big"), dst_ip.to_bytes(4, "big")))
    hdr[10:12] = struct.pack(">H", ip_checksum(bytes(hdr)) if ip_csum is None else ip_csum)
    udp = struct.pack(">HHHH", udp_sport, udp_dport, udp_len, 0)
    eth = mac_bytes(dst_mac) + mac_bytes(src_mac) + struct.pack(">H", ethertype)
    f = bytearray(eth + bytes(hdr) + udp + body + b"\0\0\0\0")
    end = len(f)
    f[end - 4:end] = icrc_of(bytes(f), end) if icrc is None else icrc
    if len(f) < pad_to:
        f += bytes(pad_to - len(f))
    return bytes(f)


def roce_frame_of_len(length: int, rng: random.Random, **kw) -> bytes:
    """A good RoCE frame of exactly `length` bytes (at least 60), random payload."""
    head = ETH_LEN + IP_LEN + UDP_LEN + BTH_LEN + ICRC_LEN
    n = max(0, length - head)
    f = roce_frame(payload=rng.randbytes(n), **kw)
    assert len(f) == max(length, 60), (len(f), length)
    return f


# Receive-filter verdicts, named after the RxBuffer counter pulses.
ROCE, NOT_ROCE, IP_CSUM, ICRC_ERR, OVERFLOW = "roce", "not_roce", "ip_csum_err", "icrc_err", "overflow"


def classify6(f: bytes, my_gids) -> str:
    """[classify] for an IPv6 frame: version 6, destination one of the port's (non-zero) GIDs, next
    header UDP to 4791, a payload length that covers UDP+BTH+ICRC and fits in the frame, a right ICRC
    (IPv6 has no header checksum)."""
    if len(f) < 58 or f[14] >> 4 != 6:
        return NOT_ROCE
    if f[38:54] == bytes(16) or f[38:54] not in [bytes(g) for g in my_gids]:
        return NOT_ROCE
    if f[20] != 17 or f[56:58] != ROCE_PORT.to_bytes(2, "big"):
        return NOT_ROCE
    plen = struct.unpack(">H", f[18:20])[0]
    ip_end = ETH_LEN + IP6_LEN + plen
    if plen < UDP_LEN + BTH_LEN + ICRC_LEN or ip_end > len(f):
        return NOT_ROCE
    if icrc6_of(f, ip_end) != f[ip_end - 4:ip_end]:
        return ICRC_ERR
    return ROCE


def classify(frame: bytes, my_mac: int, my_ip: int, enable: bool = True, my_gids=()) -> str:
    """What the receive buffer must do with a frame (overflow aside), from the frame bytes alone:
    untagged IPv4 without options, UDP to 4791, our MAC and IP, an IP length that covers at least
    IP+UDP+BTH+ICRC and fits in the frame, then a right IP checksum, then a right ICRC; or the same over
    IPv6 to one of `my_gids` (16-byte addresses), see [classify6]."""
    f = frame
    if not enable or len(f) < 38:
        return NOT_ROCE
    if f[0:6] == mac_bytes(my_mac) and f[12:14] == b"\x86\xdd":
        return classify6(f, my_gids)
    if f[0:6] != mac_bytes(my_mac) or f[12:14] != b"\x08\x00" or f[14] != 0x45 or f[23] != 17:
        return NOT_ROCE
    if f[30:34] != my_ip.to_bytes(4, "big") or f[36:38] != ROCE_PORT.to_bytes(2, "big"):
        return NOT_ROCE
    ip_len = struct.unpack(">H", f[16:18])[0]
    ip_end = ETH_LEN + ip_len
    if ip_len < IP_LEN + UDP_LEN + BTH_LEN + ICRC_LEN or ip_end > len(f):
        return NOT_ROCE
    if not ip_checksum_ok(f[14:34]):
        return IP_CSUM
    if icrc_of(f, ip_end) != f[ip_end - 4:ip_end]:
        return ICRC_ERR
    return ROCE


def to_beats(frame: bytes, nbytes: int):
    """(tdata, tkeep, tlast) beats of a frame on an AXI-Stream `nbytes` lanes wide, lane 0 first."""
    out = []
    for i in range(0, len(frame), nbytes):
        chunk = frame[i:i + nbytes]
        out.append((int.from_bytes(chunk, "little"), (1 << len(chunk)) - 1, i + nbytes >= len(frame)))
    return out


def arp_request(sha: int, spa: int, tpa: int, dst: int = 0xFFFF_FFFF_FFFF, oper: int = 1,
                htype: int = 1, ptype: int = 0x0800) -> bytes:
    """An RFC 826 Ethernet/IPv4 ARP packet padded to 60 bytes."""
    arp = struct.pack(">HHBBH6s4s6s4s", htype, ptype, 6, 4, oper, mac_bytes(sha), spa.to_bytes(4, "big"),
                      bytes(6), tpa.to_bytes(4, "big"))
    f = mac_bytes(dst) + mac_bytes(sha) + b"\x08\x06" + arp
    return f + bytes(60 - len(f))
