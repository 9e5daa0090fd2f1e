"""RC packets with the BTH flag bits set (AckReq, BECN), RETH, CNP, and a frame decoder, written from the
specs (IBA vol 1 §9.2-9.3, RoCEv2 annex A17 incl. A17.9.3 CNP format), on top of model/frames.py.

Building uses frames.roce_frame, then sets the flag bits and recomputes the ICRC with zlib
(frames.icrc_of). Decoding parses the bytes by hand with struct (no RTL code, no scapy defaults).
"""
import struct

from model import frames as F

OP_WRITE_ONLY = 0x0A
OP_ACK = 0x11
OP_CNP = 0x81
ECN_NOT_ECT, ECN_ECT1, ECN_ECT0, ECN_CE = 0, 1, 2, 3
BTH_AT = F.ETH_LEN + F.IP_LEN + F.UDP_LEN  # 42: BTH offset in an untagged IPv4 frame


def reth(va: int, rkey: int, length: int) -> bytes:
    """RDMA Extended Transport Header: VA (8), R_Key (4), DMA length (4), big-endian."""
    return struct.pack(">QII", va, rkey, length)


def rc_frame(dst_mac, src_mac, src_ip, dst_ip, opcode, dest_qp, psn, ext=b"", payload=b"",
             ackreq=False, becn=False, fecn=False, ecn=ECN_ECT0, dscp=0, udp_sport=0xC000) -> bytes:
    """An IPv4 RoCEv2 frame with the BTH's AckReq/BECN/FECN bits and the IP ECN field as asked, a right
    IP checksum and ICRC (the ICRC masks the TOS byte and BTH byte 4, so the ECN and BECN/FECN bits do
    not change it)."""
    f = bytearray(F.roce_frame(dst_mac, src_mac, src_ip, dst_ip, payload=payload, opcode=opcode,
                               dest_qp=dest_qp, psn=psn, ext=ext, tos=(dscp << 2) | ecn,
                               udp_sport=udp_sport))
    f[BTH_AT + 1] = 0x00  # SE 0, MigReq 0, PadCnt 0 (payloads here are 4-byte multiples), TVer 0
    assert len(payload) % 4 == 0
    if fecn:
        f[BTH_AT + 4] |= 0x80
    if becn:
        f[BTH_AT + 4] |= 0x40
    if ackreq:
        f[BTH_AT + 8] |= 0x80
    ip_end = F.ETH_LEN + struct.unpack(">H", f[16:18])[0]
    f[ip_end - 4:ip_end] = F.icrc_of(bytes(f), ip_end)
    return bytes(f)


def cnp_frame(dst_mac, src_mac, src_ip, dst_ip, dest_qp, ecn=ECN_ECT0) -> bytes:
    """A RoCEv2 CNP (annex A17.9.3): opcode 0x81, PSN 0, BECN set, 16 reserved zero bytes."""
    return rc_frame(dst_mac, src_mac, src_ip, dst_ip, OP_CNP, dest_qp, 0, ext=bytes(16), becn=True,
                    ecn=ecn)


def decode(frame: bytes) -> dict:
    """Every header field of an untagged IPv4/UDP RoCEv2 frame, plus whether the IP checksum and the
    ICRC are right. `rest` is what lies between the BTH and the ICRC (extension headers + payload)."""
    f = bytes(frame)
    d = {"dst": int.from_bytes(f[0:6], "big"), "src": int.from_bytes(f[6:12], "big"),
         "ethertype": struct.unpack(">H", f[12:14])[0], "len": len(f)}
    (vihl, tos, ip_len, ident, flags_frag, ttl, proto, _ck, sip, dip) = struct.unpack(
        ">BBHHHBBH4s4s", f[14:34])
    d.update(vihl=vihl, dscp=tos >> 2, ecn=tos & 3, ip_len=ip_len, ident=ident, flags_frag=flags_frag,
             ttl=ttl, proto=proto, src_ip=int.from_bytes(sip, "big"), dst_ip=int.from_bytes(dip, "big"),
             ip_csum_ok=F.ip_checksum_ok(f[14:34]))
    sport, dport, udp_len, udp_ck = struct.unpack(">HHHH", f[34:42])
    d.update(udp_sport=sport, udp_dport=dport, udp_len=udp_len, udp_csum=udp_ck)
    b = f[BTH_AT:BTH_AT + 12]
    d.update(opcode=b[0], se=b[1] >> 7, migreq=(b[1] >> 6) & 1, padcnt=(b[1] >> 4) & 3, tver=b[1] & 15,
             pkey=struct.unpack(">H", b[2:4])[0], fecn=b[4] >> 7, becn=(b[4] >> 6) & 1,
             bth_resv6=b[4] & 0x3F, dest_qp=int.from_bytes(b[5:8], "big"), ackreq=b[8] >> 7,
             bth_resv7=b[8] & 0x7F, psn=int.from_bytes(b[9:12], "big"))
    ip_end = F.ETH_LEN + ip_len
    d["rest"] = f[BTH_AT + 12:ip_end - 4]
    d["icrc_ok"] = ip_end <= len(f) and F.icrc_of(f, ip_end) == f[ip_end - 4:ip_end]
    d["trailer"] = f[ip_end:]  # Ethernet padding after the IP datagram
    return d
