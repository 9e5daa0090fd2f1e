"""Crc32Pipe<W,B> (prim/crc32_pipe.rs): the pipelined CRC-32 behind the ICRC check and generation.

Regions go in as runs of enabled lanes, one per beat (`sof` on a frame's first beat, `eoc` on the beat
with the region's last byte); each region's register (from the ICRC start value, not complemented) and
the pad of its last run come out in order. Every result is checked against model/crc.py, which computes
the CRC with zlib only. The driver stalls the pipeline (`adv` low) and leaves idle beats at random.
"""
import os
import random

import cocotb
from cocotb.triggers import ReadOnly, RisingEdge

from model import crc, frames
from tb.util import start

KNOWN_RTL_BUGS = {}


def width(dut):
    return len(dut.data)


def beats_of(region, s, nb, rng, lead=0):
    """A region as beats: `lead` empty beats, then the first run from lane `s`, full beats, and the last
    run ending where the bytes do. Each beat is (data, en, sof, eoc); the lanes outside a run hold
    random bytes, which must not count."""
    out = [(rng.getrandbits(8 * nb), 0, k == 0, False) for k in range(lead)]
    at, lane = 0, s
    while at < len(region):
        n = min(nb - lane, len(region) - at)
        word = rng.getrandbits(8 * nb)
        for i in range(n):
            word &= ~(0xFF << (8 * (lane + i)))
            word |= region[at + i] << (8 * (lane + i))
        en = ((1 << n) - 1) << lane
        at += n
        out.append((word, en, not out, at == len(region)))
        lane = 0
    return out


async def flush(dut):
    """The unit has no reset: a few advancing cycles with no beat clear its valid flags."""
    dut.adv.value = 1
    dut.in_valid.value = 0
    dut.en.value = 0
    dut.sof.value = 0
    dut.eoc.value = 0
    dut.data.value = 0
    for _ in range(8):
        await RisingEdge(dut.clock)


class Pipe:
    """Drives regions into the unit and collects its results, `adv` low on a share of the cycles."""

    def __init__(self, dut, seed, stall=0.2, idle=0.2):
        self.dut, self.rng = dut, random.Random(seed)
        self.stall, self.idle = stall, idle
        self.results = []

    async def run(self, regions):
        """`regions` is a list of beat lists; returns the (crc, pad) results, one per region."""
        dut, rng = self.dut, self.rng
        queue = [b for r in regions for b in r]
        want = len(regions)
        start_at = len(self.results)
        idle_cycles = 0
        while len(self.results) - start_at < want:
            adv = rng.random() >= self.stall
            beat = None
            if adv and queue and rng.random() >= self.idle:
                beat = queue.pop(0)
            dut.adv.value = int(adv)
            dut.in_valid.value = int(beat is not None)
            if beat is not None:
                data, en, sof, eoc = beat
                dut.data.value, dut.en.value, dut.sof.value, dut.eoc.value = data, en, int(sof), int(eoc)
            else:
                dut.en.value, dut.sof.value, dut.eoc.value = 0, 0, 0
            await ReadOnly()
            if adv and int(dut.res_valid.value):
                self.results.append((int(dut.res_crc.value), int(dut.res_pad.value)))
            await RisingEdge(dut.clock)
            idle_cycles = idle_cycles + 1 if not queue else 0
            assert idle_cycles < 200, f"{want - (len(self.results) - start_at)} results never came out"
        return self.results[start_at:]


def expect(region, s, nb):
    """The model: the register over the region from the ICRC start value, and the lanes above its last
    byte in the last beat."""
    end_lane = (s + len(region) - 1) % nb
    return crc.advance(crc.ICRC_START, region), nb - 1 - end_lane


async def check_regions(pipe, cases, nb, what):
    """`cases`: (region bytes, first lane, empty beats before it)."""
    rng = pipe.rng
    got = await pipe.run([beats_of(r, s, nb, rng, lead) for r, s, lead in cases])
    for i, ((r, s, lead), g) in enumerate(zip(cases, got)):
        w = expect(r, s, nb)
        assert g == w, (f"{what} {i}: {len(r)} bytes from lane {s} after {lead} empty beats: "
                        f"crc {g[0]:#010x} pad {g[1]}, model crc {w[0]:#010x} pad {w[1]}")


@cocotb.test()
async def test_every_run_shape(dut):
    """Every first lane and every last lane a region can have, in one beat and over several (first
    run, full beats, last run), some after empty beats; random data, stalls and idle beats. Every pair
    of first and last lane with ROCENIC_COCOTB_FULL=1 (`scripts/test.sh --full`: at 512 bits, 6,176
    regions and eight minutes of Icarus); otherwise, for each first lane, the one-beat regions ending in
    its own lane, in the last lane and in two more, and multi-beat ones ending in four last lanes that
    together cover every lane."""
    await start(dut)
    await flush(dut)
    nb = width(dut) // 8
    rng = random.Random(0x1C5C)
    pipe = Pipe(dut, 1)
    full = os.environ.get("ROCENIC_COCOTB_FULL") == "1"
    cases = []
    for s in range(nb):
        ends = range(s, nb) if full else sorted({s, nb - 1, rng.randrange(s, nb), rng.randrange(s, nb)})
        for t in ends:
            cases.append((rng.randbytes(t - s + 1), s, 0))
        # 5 is odd, so s * 5 runs through every lane as s does.
        lasts = range(nb) if full else sorted({(5 * s + nb // 4 * j) % nb for j in range(4)})
        for last in lasts:
            n = (nb - s) + rng.randrange(0, 3) * nb + last + 1
            cases.append((rng.randbytes(n), s, rng.choice((0, 0, 1, 2))))
    await check_regions(pipe, cases, nb, "region")
    dut._log.info("%d regions checked", len(cases))


@cocotb.test()
async def test_matrix_columns(dut):
    """Every unit vector of a full beat's data, from lane 0 and as the region's last beat, and every
    single byte bit in each lane as a one-byte region: a missing or extra term in any XOR equation
    shows here. Bytes outside the runs are random and must not leak in."""
    await start(dut)
    await flush(dut)
    nb = width(dut) // 8
    pipe = Pipe(dut, 2, stall=0.1, idle=0.1)
    cases = []
    for k in range(8 * nb):
        b = bytearray(nb)
        b[k // 8] = 1 << (k % 8)
        cases.append((bytes(b), 0, 0))
        cases.append((bytes(nb) + bytes(b), 0, 0))
    for lane in range(nb):
        for k in range(8):
            cases.append((bytes([1 << k]), lane, 0))
    await check_regions(pipe, cases, nb, "column")


@cocotb.test()
async def test_messages_and_residue(dut):
    """A message followed by its CRC leaves the residue 0xDEBB20E3 the receive buffer checks; the ICRC of
    RoCE frames over IPv4 (register after the 8 all-ones bytes, over the masked IP datagram)."""
    await start(dut)
    await flush(dut)
    nb = width(dut) // 8
    rng = random.Random(3)
    pipe = Pipe(dut, 3)
    cases, want = [], []
    for n in [1, 2, 7, nb - 1, nb, nb + 1, 3 * nb + 5, 100, 333] + [rng.randrange(1, 600) for _ in range(8)]:
        if n <= 0:
            continue
        msg = rng.randbytes(n)
        # The register from the start value over msg, then that register's CRC appended: the residue.
        reg = crc.advance(crc.ICRC_START, msg)
        whole = msg + (reg ^ crc.MASK).to_bytes(4, "little")
        cases.append((whole, rng.randrange(nb), 0))
        want.append(("residue", crc.RESIDUE))
    for n in (60, 130, 1100):
        f = frames.roce_frame_of_len(n, rng, dst_mac=0x020000000001, src_mac=0x020000000002,
                                     src_ip=0x0A000002, dst_ip=0x0A000001)
        ip_end = 14 + int.from_bytes(f[16:18], "big")
        m = bytearray(f[14:ip_end])
        for p in frames.ICRC_MASKED:
            m[p - 14] = 0xFF
        cases.append((bytes(m), 14 % nb, 14 // nb))
        want.append(("icrc", crc.RESIDUE))
    got = await pipe.run([beats_of(r, s, nb, pipe.rng, lead) for r, s, lead in cases])
    for (kind, w), (r, _, _), (g, _) in zip(want, cases, got):
        # A frame's ICRC region ends with the ICRC itself: over it the register is the residue too.
        assert g == w, f"{kind}: {len(r)} bytes: register {g:#010x}, residue {w:#010x}"
