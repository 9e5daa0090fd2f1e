"""VlanInsert<W,B> (net/vlan.rs): adds an 802.1Q tag (TPID 0x8100 and the TCI) at frame offset 12 of each
frame that starts while tag_en is set; other frames pass unchanged.

Frames of random length (60 bytes to jumbo) go in through a cocotbext-axi source and come out through a
sink, both under random backpressure; each output is compared with the input and the 4 tag bytes the
bench inserts itself (bytes, not the RTL's lanes), frame lengths chosen so that the last beat has every
fill level (the extra beat a tagged frame needs when its last beat is fuller than B - 4 bytes).
"""
import os
import random

import cocotb
from tb.stream import StreamStage
from tb.util import start

KNOWN_RTL_BUGS = {}
B = int(os.environ.get("BENCH_WIDTH", "64")) // 8


class Bench(StreamStage):
    def __init__(self, dut, seed, pause=0.3):
        dut.tag_en.value = 0
        dut.tci.value = 0
        super().__init__(dut, seed, pause)


def tagged(f, tci):
    return f[:12] + bytes([0x81, 0x00, tci >> 8, tci & 0xFF]) + f[12:]


def lengths(rng, n):
    """Every last-beat fill level, then random lengths up to a jumbo frame."""
    out = [60 + i for i in range(B + 1)]
    out += [rng.randrange(60, 1600) for _ in range(n)]
    out += [9018, 9017 - B // 2]
    return out


@cocotb.test()
async def test_tags_one_frame_at_a_time(dut):
    """Each frame with its own TCI (PCP, DEI, VID) and tag_en chosen at random, sent alone."""
    tb = Bench(dut, 1)
    await start(dut)
    rng = random.Random(2)
    for n in lengths(rng, 20):
        f = bytes(rng.getrandbits(8) for _ in range(n))
        en, tci = rng.random() < 0.7, rng.getrandbits(16)
        dut.tag_en.value = int(en)
        dut.tci.value = tci
        await tb.src.send(f)
        got = await tb.recv()
        want = tagged(f, tci) if en else f
        assert got == want, f"{n} bytes, tag_en {en}: got {len(got)} bytes, first difference at " \
            f"{next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))}"


@cocotb.test()
async def test_back_to_back_frames(dut):
    """Frames queued back to back (the extra beat of one frame right before the next frame's first),
    all tagged, then all untagged; with and without backpressure."""
    tb = Bench(dut, 3, pause=0.0)
    await start(dut)
    for pause in (0.0, 0.4):
        tb.set_pause(5, pause)
        rng = random.Random(4)
        for en in (1, 0):
            dut.tag_en.value = en
            dut.tci.value = 0x6064
            frames = [bytes(rng.getrandbits(8) for _ in range(n)) for n in lengths(rng, 10)]
            for f in frames:
                await tb.src.send(f)
            for f in frames:
                got = await tb.recv()
                assert got == (tagged(f, 0x6064) if en else f), f"{len(f)} bytes, tag_en {en}, pause {pause}"
        assert tb.sink.empty()
