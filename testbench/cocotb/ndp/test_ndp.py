"""NdpResponder<W,B> (net/ndp.rs): answers RFC 4861 Neighbor Solicitations for the port's GID table
addresses with Neighbor Advertisements.

Solicitations are built here with struct from RFC 4861 §4.3 and RFC 8200 (with this file's own ICMPv6
checksum) and driven on the observe-only port; advertisements are taken by a cocotbext-axi AxiStreamSink
under random backpressure and decoded with scapy, whose checksum (recomputed on a copy) must match, so the
bench's view of a reply shares no code with its request builder or the RTL.
"""
import ipaddress
import random
import struct

import cocotb
from cocotb.triggers import with_timeout
from cocotbext.axi import AxiStreamBus, AxiStreamSink
from scapy.layers.inet6 import IPv6, ICMPv6ND_NA, ICMPv6NDOptDstLLAddr
from scapy.layers.l2 import Ether

from tb.observe import ObservedRx
from tb.util import PulseCounter, cycles, start

MY_MAC = 0x02A1B2C3D4E5
ASKER = 0x0250505050AB
ASKER_IP = ipaddress.IPv6Address("fe80::50:50ff:fe50:50ab")
# Entry 2 is empty.
GIDS = [
    ipaddress.IPv6Address("fd52:4f43:45::1"),
    ipaddress.IPv6Address("fe80::a1:b2ff:fec3:d4e5"),
    ipaddress.IPv6Address("::"),
    ipaddress.IPv6Address("2001:db8:0:7::3:9"),
]

KNOWN_RTL_BUGS = {}


def mac_str(m):
    return ":".join(f"{m >> s & 0xFF:02x}" for s in range(40, -8, -8))


def solicited_node(a):
    """ff02::1:ff00:0/104 with the address's low 24 bits (RFC 4291 §2.7.1)."""
    return ipaddress.IPv6Address(int(ipaddress.IPv6Address("ff02::1:ff00:0")) | int(a) & 0xFFFFFF)


def mcast_mac(a):
    """33:33 and the multicast address's low 32 bits (RFC 2464 §7)."""
    return 0x333300000000 | int(a) & 0xFFFFFFFF


def icmp6_sum(src, dst, msg):
    """RFC 4443 §2.3 over the RFC 8200 §8.1 pseudo-header: the one's-complement checksum."""
    data = src.packed + dst.packed + struct.pack("!I3xB", len(msg), 58) + msg
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ns(target, src=ASKER_IP, dst=None, eth_dst=None, eth_src=ASKER, hop=255, icmp_type=135,
       options=None, bad_sum=False, ethertype=0x86DD):
    """A Neighbor Solicitation: by default to the target's solicited-node address, with a source
    link-layer address option (what Linux sends)."""
    dst = solicited_node(target) if dst is None else dst
    eth_dst = mcast_mac(dst) if eth_dst is None else eth_dst
    if options is None:
        options = struct.pack("!BB", 1, 1) + eth_src.to_bytes(6, "big")
    body = struct.pack("!BBH4x", icmp_type, 0, 0) + target.packed + options
    ck = icmp6_sum(src, dst, body) ^ (1 if bad_sum else 0)
    body = body[:2] + struct.pack("!H", ck) + body[4:]
    ip = struct.pack("!IHBB", 6 << 28, len(body), 58, hop) + src.packed + dst.packed
    return eth_dst.to_bytes(6, "big") + eth_src.to_bytes(6, "big") + struct.pack("!H", ethertype) + ip + body


class Bench:
    def __init__(self, dut):
        self.dut = dut
        dut.enable.value = 1
        dut.mac_lo.value = MY_MAC & 0xFFFFFFFF
        dut.mac_hi.value = MY_MAC >> 32
        for i, g in enumerate(GIDS):
            getattr(dut, f"gid{i}").value = int(g)
        self.rx = ObservedRx(dut)
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "tx"), dut.clock, dut.reset)
        rng = random.Random(3)
        self.sink.set_pause_generator(iter(lambda: rng.random() < 0.3, None))
        self.count = PulseCounter(dut, ["requests_inc", "replies_inc"])

    async def reply(self):
        f = await with_timeout(self.sink.recv(), 4000, "ns")
        return bytes(f.tdata)

    def check_reply(self, raw, target, asker=ASKER, asker_ip=ASKER_IP):
        assert len(raw) == 86, f"advertisement is {len(raw)} bytes, not 86"
        p = Ether(raw)
        assert p.dst == mac_str(asker) and p.src == mac_str(MY_MAC), f"{p.dst} <- {p.src}"
        assert p.type == 0x86DD and IPv6 in p, f"EtherType {p.type:#x}"
        ip = p[IPv6]
        assert (ip.version, ip.tc, ip.fl, ip.plen, ip.nh, ip.hlim) == (6, 0, 0, 32, 58, 255), ip.summary()
        assert ipaddress.IPv6Address(ip.src) == target, ip.src
        assert ipaddress.IPv6Address(ip.dst) == asker_ip, ip.dst
        assert ICMPv6ND_NA in p, p.summary()
        na = p[ICMPv6ND_NA]
        assert (na.type, na.code, na.R, na.S, na.O, na.res) == (136, 0, 0, 1, 1, 0), na.show(dump=True)
        assert ipaddress.IPv6Address(na.tgt) == target, na.tgt
        assert ICMPv6NDOptDstLLAddr in p, p.summary()
        opt = p[ICMPv6NDOptDstLLAddr]
        assert (opt.type, opt.len, opt.lladdr) == (2, 1, mac_str(MY_MAC)), opt.show(dump=True)
        assert raw[54 + 32:] == b""
        # scapy's checksum of the same message, and this bench's own.
        again = Ether(raw)
        del again[ICMPv6ND_NA].cksum
        assert Ether(bytes(again))[ICMPv6ND_NA].cksum == na.cksum, "scapy disagrees on the checksum"
        assert icmp6_sum(ipaddress.IPv6Address(ip.src), ipaddress.IPv6Address(ip.dst),
                         raw[54:56] + b"\0\0" + raw[58:]) == na.cksum


@cocotb.test()
async def test_answers_solicitations_for_our_addresses(dut):
    """For every non-empty GID entry: a solicitation to its solicited-node address with a source
    link-layer option (86 bytes) and one to the address and our MAC without options (78 bytes), from
    random askers, some with gaps between beats, untagged and on VLANs: one advertisement each, right
    field by field (scapy), on the solicitation's VLAN (`tx_vid`), each counted as a request and a
    reply."""
    tb = Bench(dut)
    await start(dut)
    rng = random.Random(1)
    n = 0
    for i in (0, 1, 3):
        for unicast in (False, True):
            asker = 0x020000000000 | rng.getrandbits(40)
            asker_ip = ipaddress.IPv6Address((0xFE80 << 112) | rng.getrandbits(64))
            target = GIDS[i]
            if unicast:
                f = ns(target, src=asker_ip, dst=target, eth_dst=MY_MAC, eth_src=asker, options=b"")
            else:
                f = ns(target, src=asker_ip, eth_src=asker)
            vid = [0, 300, 4094][n % 3]
            await tb.rx.send(f, gaps=bool(n % 2), vid=vid)
            tb.check_reply(await tb.reply(), target, asker, asker_ip)
            assert int(dut.tx_vid.value) == vid, f"advertised on VID {int(dut.tx_vid.value)}, not {vid}"
            await cycles(dut, 3)
            n += 1
            assert tb.count.counts == {"requests_inc": n, "replies_inc": n}, tb.count.counts


@cocotb.test()
async def test_ignores_what_is_not_a_solicitation_for_us(dut):
    """Another address, the empty entry (::), another entry's solicited-node address, another unicast
    MAC, a bad checksum, hop limit 64, an advertisement (type 136), a zero option length, the IPv4
    EtherType, a good solicitation the MAC marks bad (rx_tuser: a bad FCS), and any solicitation while
    disabled: no reply, nothing counted."""
    tb = Bench(dut)
    await start(dut)
    g = GIDS[1]
    cases = [
        ("another address", ns(ipaddress.IPv6Address(int(g) ^ 0x100))),
        ("the empty entry", ns(GIDS[2])),
        ("another entry's solicited-node address", ns(g, dst=solicited_node(GIDS[0]))),
        ("another unicast MAC", ns(g, dst=g, eth_dst=MY_MAC ^ 0x100)),
        ("a bad checksum", ns(g, bad_sum=True)),
        ("hop limit 64", ns(g, hop=64)),
        ("type 136", ns(g, icmp_type=136)),
        ("option length 0", ns(g, options=struct.pack("!BB", 1, 0) + ASKER.to_bytes(6, "big"))),
        ("IPv4 EtherType", ns(g, ethertype=0x0800)),
    ]
    for name, f in cases:
        await tb.rx.send(f)
        await cycles(dut, 40)
        assert tb.sink.empty(), f"{name}: replied"
        assert tb.count.counts == {"requests_inc": 0, "replies_inc": 0}, f"{name}: {tb.count.counts}"
    await tb.rx.send(ns(g), gaps=True, bad=True)
    await cycles(dut, 40)
    assert tb.sink.empty() and tb.count.counts["requests_inc"] == 0, "a bad-FCS solicitation answered"
    dut.enable.value = 0
    await tb.rx.send(ns(g))
    await cycles(dut, 40)
    assert tb.sink.empty() and tb.count.counts["requests_inc"] == 0, "answered while disabled"
    dut.enable.value = 1
    await tb.rx.send(ns(g))
    tb.check_reply(await tb.reply(), g)


@cocotb.test()
async def test_counted_but_not_answered(dut):
    """Duplicate address detection (source ::, no option, RFC 4861 §7.2.4) and a solicitation with a
    second option (its checksum is not verified by the unit) are counted as requests without a reply."""
    tb = Bench(dut)
    await start(dut)
    g = GIDS[3]
    await tb.rx.send(ns(g, src=ipaddress.IPv6Address("::"), options=b""))
    await cycles(dut, 40)
    assert tb.sink.empty(), "answered a DAD probe"
    two = struct.pack("!BB", 1, 1) + ASKER.to_bytes(6, "big") + struct.pack("!BB6s", 14, 1, b"nonce!")
    await tb.rx.send(ns(g, options=two))
    await cycles(dut, 40)
    assert tb.sink.empty(), "answered a solicitation with two options"
    assert tb.count.counts == {"requests_inc": 2, "replies_inc": 0}, tb.count.counts
