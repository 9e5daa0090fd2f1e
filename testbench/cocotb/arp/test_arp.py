"""ArpResponder<W,B> (net/arp.rs): answers RFC 826 requests for the port's IPv4 address.

Requests are built by hand (model/frames.py arp_request) and driven on the observe-only port; replies
are taken by a cocotbext-axi AxiStreamSink under random backpressure and decoded with scapy, so the
bench's view of an ARP reply shares no code with the bench's request builder.
"""
import random

import cocotb
from cocotb.triggers import with_timeout
from cocotbext.axi import AxiStreamBus, AxiStreamSink
from scapy.layers.l2 import ARP, Ether

from model.frames import arp_request
from tb.observe import ObservedRx
from tb.util import PulseCounter, cycles, start

MY_MAC = 0x02A1B2C3D4E5
MY_IP = 0x0A000105
ASKER = 0x0250505050AB
ASKER_IP = 0x0A0001FE

KNOWN_RTL_BUGS = {}


def ip_str(a):
    return ".".join(str(a >> s & 0xFF) for s in (24, 16, 8, 0))


def mac_str(m):
    return ":".join(f"{m >> s & 0xFF:02x}" for s in range(40, -8, -8))


class Bench:
    def __init__(self, dut):
        self.dut = dut
        dut.enable.value = 1
        dut.mac_lo.value = MY_MAC & 0xFFFFFFFF
        dut.mac_hi.value = MY_MAC >> 32
        dut.ipv4.value = MY_IP
        self.rx = ObservedRx(dut)
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "tx"), dut.clock, dut.reset)
        rng = random.Random(3)
        self.sink.set_pause_generator(iter(lambda: rng.random() < 0.3, None))
        self.count = PulseCounter(dut, ["requests_inc", "replies_inc"])

    async def reply(self):
        f = await with_timeout(self.sink.recv(), 4000, "ns")
        return bytes(f.tdata)

    def check_reply(self, raw, asker=ASKER, asker_ip=ASKER_IP):
        assert len(raw) == 60, f"reply is {len(raw)} bytes, not 60"
        p = Ether(raw)
        assert p.dst == mac_str(asker) and p.src == mac_str(MY_MAC), f"{p.dst} <- {p.src}"
        assert p.type == 0x0806 and ARP in p, f"EtherType {p.type:#x}"
        a = p[ARP]
        assert (a.hwtype, a.ptype, a.hwlen, a.plen, a.op) == (1, 0x0800, 6, 4, 2), a.summary()
        assert a.hwsrc == mac_str(MY_MAC) and a.psrc == ip_str(MY_IP), a.summary()
        assert a.hwdst == mac_str(asker) and a.pdst == ip_str(asker_ip), a.summary()
        assert raw[42:] == bytes(18), "padding is not zero"


@cocotb.test()
async def test_answers_requests_for_our_address(dut):
    """Broadcast and unicast requests for our IP from several askers each get one reply, right field by
    field (scapy), counted as a request and a reply; beats arrive with gaps."""
    tb = Bench(dut)
    await start(dut)
    rng = random.Random(1)
    for i in range(6):
        asker, asker_ip = 0x020000000000 | rng.getrandbits(40), rng.getrandbits(32)
        dst = MY_MAC if i % 2 else 0xFFFFFFFFFFFF
        await tb.rx.send(arp_request(asker, asker_ip, MY_IP, dst=dst), gaps=bool(i % 3))
        tb.check_reply(await tb.reply(), asker, asker_ip)
        await cycles(dut, 3)
        assert tb.count.counts == {"requests_inc": i + 1, "replies_inc": i + 1}, tb.count.counts


@cocotb.test()
async def test_reply_leaves_on_the_request_vlan(dut):
    """`tx_vid` gives each reply the VID its request came with (`rx_vid` with the last beat; junk on the
    other beats), 0 for an untagged one, and holds it while the reply is sent."""
    tb = Bench(dut)
    await start(dut)
    for i, vid in enumerate([300, 0, 4094, 1, 7]):
        await tb.rx.send(arp_request(ASKER, ASKER_IP, MY_IP), gaps=bool(i % 2), vid=vid)
        tb.check_reply(await tb.reply())
        assert int(dut.tx_vid.value) == vid, f"reply on VID {int(dut.tx_vid.value)}, asked on {vid}"
        await cycles(dut, 3)


@cocotb.test()
async def test_ignores_what_is_not_a_request_for_us(dut):
    """Requests for another IP, to another unicast MAC, ARP replies, non-Ethernet/IPv4 ARP, other
    EtherTypes, a request the MAC marks bad (rx_tuser: a bad FCS), and any request while disabled or with
    IPV4 = 0: no reply, nothing counted."""
    tb = Bench(dut)
    await start(dut)
    req = arp_request(ASKER, ASKER_IP, MY_IP)
    cases = [
        ("another IP", arp_request(ASKER, ASKER_IP, MY_IP ^ 1)),
        ("another unicast MAC", arp_request(ASKER, ASKER_IP, MY_IP, dst=MY_MAC ^ 0x100)),
        ("an ARP reply", arp_request(ASKER, ASKER_IP, MY_IP, oper=2)),
        ("HTYPE 6", arp_request(ASKER, ASKER_IP, MY_IP, htype=6)),
        ("PTYPE IPv6", arp_request(ASKER, ASKER_IP, MY_IP, ptype=0x86DD)),
        ("RARP EtherType", req[:12] + b"\x80\x35" + req[14:]),
        ("IPv4 EtherType", req[:12] + b"\x08\x00" + req[14:]),
    ]
    for name, f in cases:
        await tb.rx.send(f)
        await cycles(dut, 40)
        assert tb.sink.empty(), f"{name}: replied"
        assert tb.count.counts == {"requests_inc": 0, "replies_inc": 0}, f"{name}: {tb.count.counts}"
    await tb.rx.send(req, gaps=True, bad=True)
    await cycles(dut, 40)
    assert tb.sink.empty() and tb.count.counts["requests_inc"] == 0, "a bad-FCS request answered"
    dut.enable.value = 0
    await tb.rx.send(req)
    await cycles(dut, 40)
    assert tb.sink.empty(), "replied while disabled"
    dut.enable.value = 1
    dut.ipv4.value = 0
    await tb.rx.send(arp_request(ASKER, ASKER_IP, 0))
    await cycles(dut, 40)
    assert tb.sink.empty() and tb.count.counts["requests_inc"] == 0, "answered for IPv4 0.0.0.0"
    dut.ipv4.value = MY_IP
    await tb.rx.send(req)
    tb.check_reply(await tb.reply())


@cocotb.test()
async def test_request_pattern_inside_a_long_frame(dut):
    """A long frame (not ARP) carrying a request for us at byte 2048, 4096 or 8192 of a 9216-byte jumbo
    is not a request: no reply."""
    tb = Bench(dut)
    await start(dut)
    rng = random.Random(2)
    pat = arp_request(ASKER, ASKER_IP, MY_IP)
    for size in (2048 + 64, 9216):
        f = bytearray(rng.randbytes(size))
        f[0:14] = MY_MAC.to_bytes(6, "big") + ASKER.to_bytes(6, "big") + b"\x08\x00"
        for off in (2048, 4096, 8192):
            if off + 60 <= size:
                f[off:off + 60] = pat
        await tb.rx.send(bytes(f))
        await cycles(dut, 40)
        assert tb.sink.empty() and tb.count.counts["requests_inc"] == 0, \
            f"a {size}-byte frame with a request pattern inside was answered"
