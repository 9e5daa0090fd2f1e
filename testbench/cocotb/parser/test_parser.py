"""RxBuffer<W,B,A> (net/rx_buffer.rs): the frame parser and store-and-forward receive buffer.

MAC frames come in through an AXI-Stream (cocotbext-axi AxiStreamSource, with random valid gaps); the
engine side is tb/rxbuf.py's BufferReader (with random gaps or stalled: backpressure). Every frame's
verdict (one counter pulse each: roce, not_roce, ip_csum_err, icrc_err, overflow) is compared with
model/frames.py's classify(), which decides from the frame bytes alone (zlib ICRC, RFC 791 checksum),
and every frame the buffer delivers must be a good frame, byte for byte, in order.
"""
import itertools
import random

import cocotb
from cocotb.triggers import RisingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSource

from model import frames as F
from tb.rxbuf import BufferReader
from tb.util import PulseCounter, cycles, start

MY_MAC = 0x02A1B2C3D4E5
PEER_MAC = 0x02A1B2C3D4F0
MY_IP = 0x0A000105          # 10.0.1.5
PEER_IP = 0x0A000106
# The port's GID table: entries 0 and 2 hold addresses, 1 and 3 are empty.
MY_GID = bytes.fromhex("fd524f43004500000000000000000105")
MY_GID2 = bytes.fromhex("fe80000000000000a1b2c3fffed4e5ff")
PEER_GID = bytes.fromhex("fd524f43004500000000000000000106")
MY_GIDS = [MY_GID, bytes(16), MY_GID2, bytes(16)]
VERDICTS = ["roce_inc", "not_roce_inc", "ip_csum_err_inc", "icrc_err_inc", "overflow_inc", "lossy_inc",
            "fcs_err_inc"]
LOSSY = "lossy"
FCS = "fcs_err"
NAME = {"roce_inc": F.ROCE, "not_roce_inc": F.NOT_ROCE, "ip_csum_err_inc": F.IP_CSUM,
        "icrc_err_inc": F.ICRC_ERR, "overflow_inc": F.OVERFLOW, "lossy_inc": LOSSY, "fcs_err_inc": FCS}
# DSCP_PRIO_MAP_n's reset values side by side: DSCP d -> priority d >> 3.
DEFAULT_DSCP_MAP = sum((d >> 3) << (4 * d) for d in range(64))

# Documented RTL bugs (see testbench/cocotb/README.md, "Findings"); these tests fail until fixed.
KNOWN_RTL_BUGS = {}


def good(rng, length, **kw):
    return F.roce_frame_of_len(length, rng, dst_mac=MY_MAC, src_mac=PEER_MAC, src_ip=PEER_IP,
                               dst_ip=MY_IP, dest_qp=rng.randrange(1 << 24), psn=rng.randrange(1 << 24),
                               **kw)


class Bench:
    def __init__(self, dut, valid_gaps=False, reader_gap=None, seed=1):
        self.dut = dut
        self.nb = len(dut.rx_tkeep)
        self.ring = 1 << len(dut.head)
        dut.enable.value = 1
        dut.mac_lo.value = MY_MAC & 0xFFFFFFFF
        dut.mac_hi.value = MY_MAC >> 32
        dut.ipv4.value = MY_IP
        for i, g in enumerate(MY_GIDS):
            getattr(dut, f"gid{i}").value = int.from_bytes(g, "big")
        dut.udp_dport.value = F.ROCE_PORT
        dut.pcp.value = 0
        dut.vlan_bad.value = 0
        dut.trust_dscp.value = 1
        dut.dscp_map.value = DEFAULT_DSCP_MAP
        dut.lossless.value = 1 << 3
        dut.lossy_words.value = 0
        dut.rx_tvalid.value = 0
        self.src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "rx"), dut.clock, dut.reset)
        if valid_gaps:
            rng = random.Random(seed)
            self.src.set_pause_generator(iter(lambda: rng.random() < 0.2, None))
        self.reader = BufferReader(dut, gap=reader_gap, seed=seed)
        self.count = PulseCounter(dut, ["frames_inc"] + VERDICTS)

    async def start(self):
        await start(self.dut)

    async def send(self, frame_list, bad=()):
        """Send frames (those whose index is in `bad` marked bad by the MAC: tuser, a bad FCS), wait
        until every one has its verdict; returns the verdicts in order."""
        first = len(self.verdicts())
        for i, f in enumerate(frame_list):
            await self.src.send(AxiStreamFrame(f, tuser=int(i in bad)))
        await self.src.wait()
        for _ in range(50):
            await RisingEdge(self.dut.clock)
        got = self.verdicts()[first:]
        assert len(got) == len(frame_list), f"{len(frame_list)} frames sent, {len(got)} verdicts"
        return got

    async def drain(self, limit=200000):
        for _ in range(limit):
            await RisingEdge(self.dut.clock)
            if self.dut.pending.value != 1 and not self.reader.hold:
                await cycles(self.dut, 4)
                if self.dut.pending.value != 1:
                    return
        raise AssertionError("receive buffer never drained")

    def verdicts(self):
        return [NAME[n] for _, n in self.count.events if n != "frames_inc"]

    def expect(self, frame_list, verdicts, allow_overflow=False):
        """Per frame: the model's verdict (or overflow when allowed); delivered == the frames judged
        RoCE, in order, byte for byte."""
        for i, (f, v) in enumerate(zip(frame_list, verdicts)):
            want = F.classify(f, MY_MAC, MY_IP, my_gids=MY_GIDS)
            if not (v == want or (allow_overflow and v == F.OVERFLOW)):
                raise AssertionError(f"frame {i} ({len(f)} bytes): verdict {v}, model says {want}")
        taken = [f for f, v in zip(frame_list, verdicts) if v == F.ROCE]
        return taken

    def fills(self):
        return [int(getattr(self.dut, f"fill{i}").value) for i in range(8)]

    def words(self, frame):
        """Buffer words a stored frame takes."""
        return -(-len(frame) // self.nb)

    def check_delivered(self, expected):
        got = self.reader.frames
        assert len(got) == len(expected), f"{len(expected)} good frames expected out, {len(got)} came out"
        for i, (g, e) in enumerate(zip(got, expected)):
            if g != e:
                diff = next(k for k in range(min(len(g), len(e))) if g[k] != e[k]) if len(g) == len(e) else None
                raise AssertionError(f"delivered frame {i} differs: {len(g)} vs {len(e)} bytes, first diff at {diff}")


def sizes_upto(nb, limit):
    s = list(range(60, 60 + 2 * nb + 2)) + [127, 128, 129, 255, 256, 257, 511, 1000, 1499, 1500, 1514,
                                             2048, 4096, 4154, 6000, 8191, 8192]
    return [x for x in s if x <= limit]


@cocotb.test()
async def test_good_frames_all_sizes(dut):
    """Good RoCE frames from 60 bytes (every tkeep pattern of the last beat) to 8192 bytes, with random
    valid gaps: each one is committed with its length and read back intact, and counted once."""
    tb = Bench(dut, valid_gaps=True)
    await tb.start()
    rng = random.Random(11)
    fl = [good(rng, n) for n in sizes_upto(tb.nb, 8192)]
    # A short packet whose Ethernet padding follows the ICRC, and one whose masked fields (TOS, TTL,
    # UDP checksum, BTH byte 4) differ from what the ICRC was computed with: both are good.
    fl.append(good(rng, 46))
    f = bytearray(good(rng, 300))
    f[15], f[22], f[40], f[41], f[46] = 0xB8, 3, 0x12, 0x34, 0xC0
    f[24:26] = b"\0\0"
    f[24:26] = F.ip_checksum(bytes(f[14:34])).to_bytes(2, "big")
    fl.append(bytes(f))
    # In batches that fit the ring together, so no frame may be dropped for want of room.
    batch, used = [], 0
    for f in fl + [None]:
        w = -(-len(f) // tb.nb) if f else tb.ring
        if used + w > tb.ring - 2:
            verdicts = await tb.send(batch)
            assert verdicts == [F.ROCE] * len(batch), f"sizes {[len(x) for x in batch]}: verdicts {verdicts}"
            await tb.drain()
            batch, used = [], 0
        if f:
            batch.append(f)
            used += w
    tb.check_delivered(fl)
    assert tb.count.counts["frames_inc"] == len(fl)


@cocotb.test()
async def test_jumbo_frames_over_8k(dut):
    """Jumbo frames above 8 KiB up to nearly the largest the ring can take while empty (2^A - 1 words):
    each must come out intact. One at a time, the ring drained between them: two of these back to back
    do not fit a store-and-forward ring of 2^A words, and the second is dropped as overflow (the test
    below and the stalled-engine test check that)."""
    tb = Bench(dut)
    await tb.start()
    rng = random.Random(12)
    limit = (tb.ring - 2) * tb.nb
    fl = [good(rng, n) for n in (8193, 9014, 9216, 12000, limit)]
    verdicts = []
    for f in fl:
        verdicts += await tb.send([f])
        await tb.drain()
    assert verdicts == [F.ROCE] * len(fl), f"verdicts {verdicts}"
    tb.check_delivered(fl)


def malformed(rng, nb):
    """(name, frame) pairs that must all be dropped; their verdict comes from classify()."""
    base = good(rng, 200)
    out = []
    for n in (1, 6, 13, 14, 20, 33, 37, 41, 45, 53, 59):
        out.append((f"runt/truncated to {n} bytes", base[:n]))
    big = good(rng, 1200)
    for n in (61, 64, 100, 700, 1199):
        out.append((f"truncated to {n} of 1200 bytes", big[:n]))
    f = bytearray(base)
    f[24] ^= 0x01
    out.append(("bad IP checksum (ICRC still right)", bytes(f)))
    out.append(("bad IP checksum 0", good(rng, 90, ip_csum=0)))
    for pos in (14 + 4, 14 + 20, 14 + 28, 14 + 28 + 5, 100, 195, 199):  # IP id, UDP, BTH, payload, ICRC
        f = bytearray(base)
        f[pos] ^= 1 << rng.randrange(8)
        out.append((f"bit flip at byte {pos}", bytes(f)))
    ip_len = int.from_bytes(base[16:18], "big")
    out.append(("IP length beyond the frame", good(rng, 200, ip_total_len=ip_len + 8)))
    out.append(("IP length 43 (< IP+UDP+BTH+ICRC)", good(rng, 60, ip_total_len=43)))
    out.append(("IP length 20", good(rng, 60, ip_total_len=20)))
    out.append(("IP length 4 short of the ICRC", good(rng, 200, ip_total_len=ip_len - 4)))
    out.append(("UDP port 4792", good(rng, 120, udp_dport=4792)))
    out.append(("UDP port 4790", good(rng, 120, udp_dport=4790)))
    out.append(("UDP port 0x12B7 byte-swapped", good(rng, 120, udp_dport=0xB712)))
    f = bytearray(base)
    f[5] ^= 0x01
    out.append(("another MAC", bytes(f)))
    out.append(("broadcast MAC", b"\xff" * 6 + base[6:]))
    out.append(("another IPv4", F.roce_frame(MY_MAC, PEER_MAC, PEER_IP, MY_IP ^ 0x100, payload=bytes(64))))
    out.append(("IPv6 EtherType", good(rng, 120, ethertype=0x86DD)))
    out.append(("VLAN tag EtherType", good(rng, 120, ethertype=0x8100)))
    out.append(("IP options (IHL 6)", good(rng, 120, vihl=0x46)))
    out.append(("IP version 5", good(rng, 120, vihl=0x55)))
    out.append(("TCP", good(rng, 120, proto=6)))
    return out


@cocotb.test()
async def test_malformed_frames_dropped_and_counted(dut):
    """Truncated headers, runts, bad IP checksums, corrupted bits, bad IP lengths, wrong UDP port, MAC,
    IP, EtherType, IHL, protocol: each gets the model's drop verdict, none is delivered, and good frames
    between them still come out intact."""
    tb = Bench(dut, valid_gaps=True)
    await tb.start()
    rng = random.Random(13)
    bad = malformed(rng, tb.nb)
    fl, names = [], []
    for name, f in bad:
        want = F.classify(f, MY_MAC, MY_IP, my_gids=MY_GIDS)
        assert want != F.ROCE, f"bench error: '{name}' is a good frame"
        fl += [f, good(rng, rng.randrange(60, 400))]
        names += [name, "good"]
    verdicts = await tb.send(fl)
    for name, f, v in zip(names, fl, verdicts):
        want = F.classify(f, MY_MAC, MY_IP, my_gids=MY_GIDS)
        assert v == want, f"{name}: verdict {v}, expected {want}"
    await tb.drain()
    tb.check_delivered([f for f, n in zip(fl, names) if n == "good"])
    by = {}
    for v in verdicts:
        by[v] = by.get(v, 0) + 1
    dut._log.info("verdicts: %s", by)
    assert by.get(F.NOT_ROCE, 0) >= 20 and by.get(F.IP_CSUM, 0) >= 2 and by.get(F.ICRC_ERR, 0) >= 5


@cocotb.test()
async def test_frames_marked_bad_by_the_mac_dropped(dut):
    """A frame the MAC marks bad (tuser with the last beat: a bad FCS) is dropped and counted as such,
    whatever its bytes: good RoCE frames of every last-beat fill level and a malformed one; each sent
    again unmarked gets its own verdict, and only those are delivered."""
    tb = Bench(dut, valid_gaps=True)
    await tb.start()
    rng = random.Random(15)
    frames = [good(rng, n) for n in (60, 61, tb.nb + 1, 2 * tb.nb - 1, 1000, 4096)]
    frames.append(malformed(rng, tb.nb)[0][1])
    fl = [f for f in frames for _ in range(2)]
    marked = set(range(0, len(fl), 2))
    verdicts = await tb.send(fl, bad=marked)
    for i, (f, v) in enumerate(zip(fl, verdicts)):
        want = FCS if i in marked else F.classify(f, MY_MAC, MY_IP, my_gids=MY_GIDS)
        assert v == want, f"frame {i} ({len(f)} bytes, marked {i in marked}): verdict {v}, expected {want}"
    await tb.drain()
    tb.check_delivered([f for i, f in enumerate(fl) if i not in marked and verdicts[i] == F.ROCE])


@cocotb.test()
async def test_disabled_port_takes_nothing(dut):
    """With `enable` low a good frame is counted not-RoCE and not delivered; enabled again, it is."""
    tb = Bench(dut)
    await tb.start()
    rng = random.Random(14)
    f = good(rng, 256)
    dut.enable.value = 0
    assert await tb.send([f]) == [F.NOT_ROCE]
    dut.enable.value = 1
    assert await tb.send([f]) == [F.ROCE]
    await tb.drain()
    tb.check_delivered([f])


@cocotb.test()
async def test_oversize_frames_overflow(dut):
    """Frames longer than the ring (2^A words) are dropped as overflow without harming the frames
    around them, including one of 64 KiB - 1 bytes (the 16-bit length's limit)."""
    tb = Bench(dut)
    await tb.start()
    rng = random.Random(15)
    cap = tb.ring * tb.nb
    pre, post = good(rng, 500), good(rng, 777)
    over = [good(rng, cap), good(rng, cap + 3 * tb.nb + 1), good(rng, 65535)]
    fl = [pre] + over + [post]
    verdicts = await tb.send(fl)
    assert verdicts == [F.ROCE, F.OVERFLOW, F.OVERFLOW, F.OVERFLOW, F.ROCE], f"verdicts {verdicts}"
    await tb.drain()
    tb.check_delivered([pre, post])


def ring_model(ring, head, tail, nwords):
    """Whether a frame of `nwords` words fits: its words go to tail .. tail+nwords-1, and the word
    before head (the oldest unread frame's first word) always stays free."""
    return (tail - head) % ring + nwords <= ring - 1


@cocotb.test()
async def test_stalled_engine_fills_then_wraps(dut):
    """With the engine stalled, frames are taken while they fit and dropped as overflow after, exactly
    as a model of the ring predicts (a cut frame gives its words back at once, so a smaller one behind
    it may still fit); then the engine drains, and a second round wraps around the end of the ring."""
    tb = Bench(dut)
    await tb.start()
    rng = random.Random(16)
    nb, ring = tb.nb, tb.ring
    head = tail = 0
    delivered = []
    for rnd in range(3):
        tb.reader.hold = True
        fl = []
        while len(fl) < 40:
            n = rng.choice([60, 200, 1500, 3000]) if nb == 8 else rng.choice([60, 700, 1500, 3000])
            fl.append(good(rng, n))
        # Model the stalled ring.
        sent, want = [], []
        t = tail
        for f in fl:
            w = -(-len(f) // nb)
            ok = ring_model(ring, head, t, w)
            sent.append(f)
            want.append(F.ROCE if ok else F.OVERFLOW)
            if ok:
                t = (t + w) % ring
        verdicts = await tb.send(sent)
        assert verdicts == want, f"round {rnd}: verdicts {verdicts}\n model {want}"
        assert want.count(F.OVERFLOW) > 0 and want.count(F.ROCE) > 0
        delivered += [f for f, v in zip(sent, want) if v == F.ROCE]
        # Let the engine take part of the frames (round 0/1) or all (round 2), then stall it again.
        tb.reader.hold = False
        while len(tb.reader.frames) < len(delivered) - (3 if rnd < 2 else 0):
            await RisingEdge(dut.clock)
        tb.reader.hold = True
        while tb.reader.busy:
            await RisingEdge(dut.clock)
        await cycles(dut, 2)
        head = int(dut.head.value)
        tail = t
    tb.reader.hold = False
    await tb.drain()
    tb.check_delivered(delivered)


@cocotb.test()
async def test_frame_that_exactly_fills_the_ring(dut):
    """Three frames whose words fill the ring but its one free word (each under 8 KiB) while the engine
    is stalled: all three are taken and delivered; one more word and the third is dropped as overflow."""
    tb = Bench(dut)
    await tb.start()
    rng = random.Random(17)
    nb, ring = tb.nb, tb.ring
    delivered = []
    for extra, want in ((0, F.ROCE), (1, F.OVERFLOW)):
        tb.reader.hold = True
        w1 = (ring - 1) // 3
        w3 = ring - 1 - 2 * w1
        fl = [good(rng, w1 * nb), good(rng, w1 * nb), good(rng, w3 * nb + extra)]
        verdicts = await tb.send(fl)
        assert verdicts == [F.ROCE, F.ROCE, want], verdicts
        delivered += [f for f, v in zip(fl, verdicts) if v == F.ROCE]
        tb.reader.hold = False
        await tb.drain(limit=20000)
    tb.check_delivered(delivered)


@cocotb.test()
async def test_random_traffic_with_backpressure(dut):
    """200 random frames (good and malformed mixed, 60 bytes to 6 KiB) with random valid gaps, while
    the engine reads with random pauses so the ring overflows now and then: every verdict is the
    model's (or overflow), the delivered frames are exactly the RoCE-judged ones, intact and in order."""
    tb = Bench(dut, valid_gaps=True, reader_gap=lambda r: r.choice([0, 0, 5, 40, 300]), seed=18)
    await tb.start()
    rng = random.Random(18)
    pool = [f for _, f in malformed(rng, tb.nb)]
    fl = []
    for _ in range(200):
        if rng.random() < 0.3:
            fl.append(rng.choice(pool))
        else:
            fl.append(good(rng, rng.choice([60, 64, rng.randrange(60, 300), rng.randrange(300, 1600),
                                            rng.randrange(1600, 6000)])))
    verdicts = await tb.send(fl)
    await tb.drain()
    taken = tb.expect(fl, verdicts, allow_overflow=True)
    tb.check_delivered(taken)
    n_over = verdicts.count(F.OVERFLOW)
    dut._log.info("%d frames: %d delivered, %d overflow", len(fl), len(taken), n_over)
    assert n_over > 0, "backpressure never filled the ring: the test did not test overflow"
    assert len(taken) > 50


@cocotb.test()
async def test_lossy_priority_admission(dut):
    """Shared-buffer admission: with the engine stalled and `lossy_words` = 1, a RoCE frame of a lossy
    priority is taken only into an empty buffer and dropped (lossy_inc) behind a stored frame, while
    the lossless priority (3) is always taken. Priority from the DSCP through the map (DSCP 0 -> 0,
    DSCP 26 -> 3 by default; a rewritten map entry moves DSCP 0 to 3), then from the PCP. With two
    lossless priorities (`lossless` = 3 and 5), both are taken and the others still dropped."""
    tb = Bench(dut)
    await tb.start()
    rng = random.Random(18)
    dut.lossy_words.value = 1
    tb.reader.hold = True

    def dscp(d, n=200):
        return good(rng, n, tos=(d << 2) | 2)

    cases = [dscp(0), dscp(0), dscp(26), dscp(0, 1500), dscp(24), dscp(31), dscp(32)]
    verdicts = await tb.send(cases)
    assert verdicts == [F.ROCE, LOSSY, F.ROCE, LOSSY, F.ROCE, F.ROCE, LOSSY], verdicts
    taken = [f for f, v in zip(cases, verdicts) if v == F.ROCE]
    # DSCP 0 mapped to priority 3: lossless now.
    dut.dscp_map.value = (DEFAULT_DSCP_MAP & ~0xF) | 3
    more = [dscp(0), dscp(1)]
    verdicts = await tb.send(more)
    assert verdicts == [F.ROCE, LOSSY], verdicts
    taken.append(more[0])
    # PCP trust: the tag's priority decides, whatever the DSCP.
    dut.trust_dscp.value = 0
    dut.pcp.value = 3
    f1 = dscp(0)
    verdicts = await tb.send([f1])
    dut.pcp.value = 5
    verdicts += await tb.send([dscp(26)])
    assert verdicts == [F.ROCE, LOSSY], verdicts
    taken.append(f1)
    # Priorities 3 and 5 lossless: PCP 5 and 3 are taken, 4 is not.
    dut.lossless.value = (1 << 3) | (1 << 5)
    two = [dscp(26), dscp(0), dscp(0)]
    verdicts = []
    for pcp, f in zip((5, 3, 4), two):
        dut.pcp.value = pcp
        verdicts += await tb.send([f])
    assert verdicts == [F.ROCE, F.ROCE, LOSSY], verdicts
    taken += two[:2]
    dut.lossless.value = 1 << 3
    # Off (0): everything is taken again.
    dut.lossy_words.value = 0
    f2 = dscp(0)
    assert await tb.send([f2]) == [F.ROCE]
    taken.append(f2)
    tb.reader.hold = False
    await tb.drain()
    tb.check_delivered(taken)


def good6(rng, length, dst=MY_GID, **kw):
    """A good RoCEv2 frame over IPv6 of exactly `length` bytes (at least 78)."""
    head = F.ETH_LEN + F.IP6_LEN + F.UDP_LEN + F.BTH_LEN + F.ICRC_LEN
    f = F.roce6_frame(MY_MAC, PEER_MAC, PEER_GID, dst, payload=rng.randbytes(max(0, length - head)),
                      dest_qp=rng.randrange(1 << 24), psn=rng.randrange(1 << 24), **kw)
    assert len(f) == max(length, 78), (len(f), length)
    return f


def malformed6(rng):
    """(name, frame) pairs over IPv6 that must all be dropped."""
    base = good6(rng, 300)
    out = [(f"IPv6 truncated to {n} bytes", base[:n]) for n in (20, 54, 57, 61, 73, 77, 150, 299)]
    out.append(("IPv6 version 4", good6(rng, 120, version=4)))
    out.append(("IPv6 version 7", good6(rng, 120, version=7)))
    out.append(("IPv6 next header TCP", good6(rng, 120, next_header=6)))
    out.append(("IPv6 hop-by-hop extension header", good6(rng, 120, next_header=0)))
    out.append(("IPv6 to another address", good6(rng, 120, dst=PEER_GID)))
    out.append(("IPv6 to :: (the empty entries)", good6(rng, 120, dst=bytes(16))))
    out.append(("IPv6 UDP port 4792", good6(rng, 120, udp_dport=4792)))
    plen = int.from_bytes(base[18:20], "big")
    out.append(("IPv6 payload length beyond the frame", good6(rng, 300, payload_len=plen + 4)))
    out.append(("IPv6 payload length 23 (< UDP+BTH+ICRC)", good6(rng, 100, payload_len=23)))
    out.append(("IPv6 payload length 4 short of the ICRC", good6(rng, 300, payload_len=plen - 4)))
    for pos in (14, 20 + 2, 22, 37, 38 + 15, 54, 62, 70, 200, 299):  # version, src, dst, UDP, BTH, ...
        f = bytearray(base)
        f[pos] ^= 0x10 if pos == 14 else 1 << rng.randrange(8)
        out.append((f"IPv6 bit flip at byte {pos}", bytes(f)))
    out.append(("IPv6 bad ICRC", good6(rng, 200, icrc=b"\x01\x02\x03\x04")))
    return out


@cocotb.test()
async def test_fill_per_priority(dut):
    """Per-priority accounting for PFC: with the engine stalled, each priority's fill (`fill0`..7)
    is the words of its stored frames, IPv4 and IPv6, DSCP and PCP trust; the descriptor (`meta`)
    carries the priority (bits 20..22); a dropped frame (bad ICRC, lossy) adds
    nothing; as the engine pops, each pop frees its own priority's words, and all are 0 when
    drained. Then random traffic at random priorities with backpressure returns every fill to 0."""
    tb = Bench(dut, reader_gap=lambda r: r.randrange(0, 30), seed=3)
    await tb.start()
    rng = random.Random(21)
    tb.reader.hold = True
    want = [0] * 8
    # DSCP d -> priority d >> 3 (the default map).
    fl = [good(rng, n, tos=(d << 2) | 2) for n, d in
          ((200, 26), (1500, 40), (60, 0), (777, 26), (4000, 63), (64, 40))]
    assert await tb.send(fl) == [F.ROCE] * len(fl)
    for f, d in zip(fl, (26, 40, 0, 26, 63, 40)):
        want[d >> 3] += tb.words(f)
    assert tb.fills() == want, f"fills {tb.fills()}, expected {want}"
    # A bad ICRC and a lossy drop add nothing.
    bad = bytearray(good(rng, 300, tos=26 << 2))
    bad[-1] ^= 1
    dut.lossy_words.value = 1
    assert await tb.send([bytes(bad), good(rng, 300, tos=8 << 2)]) == [F.ICRC_ERR, LOSSY]
    dut.lossy_words.value = 0
    assert tb.fills() == want, f"fills {tb.fills()} after drops, expected {want}"
    # PCP trust: the tag's priority is the frame's.
    dut.trust_dscp.value = 0
    dut.pcp.value = 6
    f6 = good(rng, 900, tos=26 << 2)
    assert await tb.send([f6]) == [F.ROCE]
    want[6] += tb.words(f6)
    dut.trust_dscp.value = 1
    assert tb.fills() == want, f"fills {tb.fills()} with PCP 6, expected {want}"
    fl.append(f6)
    # Pop one at a time: each frees its own priority.
    prios = [26 >> 3, 40 >> 3, 0, 26 >> 3, 63 >> 3, 40 >> 3, 6]
    tb.reader.gap = lambda r: 40
    tb.reader.hold = False
    n = 0
    while n < len(fl):
        await RisingEdge(dut.clock)
        if len(tb.reader.frames) > n and not tb.reader.busy:
            want[prios[n]] -= tb.words(fl[n])
            await cycles(dut, 2)
            assert tb.fills() == want, f"after pop {n}: fills {tb.fills()}, expected {want}"
            n += 1
    assert tb.reader.prios == prios, f"metadata priorities {tb.reader.prios}, expected {prios}"
    assert tb.fills() == [0] * 8
    tb.check_delivered(fl)
    # Random priorities, sizes and gaps, reader and source both irregular.
    tb.reader.gap = lambda r: r.randrange(0, 30)
    more = [good(rng, rng.choice((60, 300, 1024, 3000)), tos=rng.randrange(64) << 2)
            for _ in range(60)]
    verdicts = await tb.send(more)
    assert set(verdicts) <= {F.ROCE, F.OVERFLOW}, verdicts
    taken = [f for f, v in zip(more, verdicts) if v == F.ROCE]
    await tb.drain()
    assert tb.fills() == [0] * 8, f"fills {tb.fills()} after the buffer drained"
    assert tb.reader.prios[len(prios):] == [(f[15] >> 2) >> 3 for f in taken]
    assert len(taken) > 40, f"only {len(taken)} of 60 frames taken"


@cocotb.test()
async def test_ipv6_frames_good_and_malformed(dut):
    """RoCEv2 over IPv6 (annex A17.4): good frames of every last-beat shape up to jumbo, to either
    non-empty GID entry, with the ICRC-masked fields (traffic class, flow label, hop limit, UDP checksum,
    BTH byte 4) changed after the ICRC, are taken byte for byte; truncated ones, wrong versions, next
    headers other than UDP, other or empty destinations, bad payload lengths, corrupted bits and a bad
    ICRC get the model's drop verdict; IPv4 frames in between are unaffected."""
    tb = Bench(dut, valid_gaps=True, reader_gap=lambda r: r.choice([0, 0, 0, 3, 20]), seed=19)
    await tb.start()
    rng = random.Random(16)
    fl, names = [], []
    for n in [x for x in sizes_upto(tb.nb, 4200) if x >= 78] + [78, 79, 9000]:
        fl.append(good6(rng, n, dst=MY_GID if n % 2 else MY_GID2))
        names.append("good")
    f = bytearray(good6(rng, 333))
    f[14] = (f[14] & 0xF0) | 0x0B
    f[15:18] = b"\x9a\xbc\xde"
    f[21] = 3
    f[60:62] = b"\x12\x34"
    f[66] = 0xC0
    fl.append(bytes(f))
    names.append("good")
    for name, f in malformed6(rng):
        assert F.classify(f, MY_MAC, MY_IP, my_gids=MY_GIDS) != F.ROCE, f"bench error: {name}"
        fl += [f, good(rng, rng.randrange(60, 400))]
        names += [name, "good"]
    verdicts = []
    for i in range(0, len(fl), 4):
        verdicts += await tb.send(fl[i:i + 4])
        await tb.drain()
    for name, f, v in zip(names, fl, verdicts):
        want = F.classify(f, MY_MAC, MY_IP, my_gids=MY_GIDS)
        assert v == want, f"{name} ({len(f)} bytes): verdict {v}, expected {want}"
        if name == "good":
            assert v == F.ROCE, f"a good frame of {len(f)} bytes: {v}"
    tb.check_delivered([f for f, n in zip(fl, names) if n == "good"])
    by = {}
    for v in verdicts:
        by[v] = by.get(v, 0) + 1
    dut._log.info("IPv6 verdicts: %s", by)
    assert by.get(F.ICRC_ERR, 0) >= 5 and by.get(F.NOT_ROCE, 0) >= 15
