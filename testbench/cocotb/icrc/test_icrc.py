"""Crc32Lanes<W,B> (prim/crc32.rs): the CRC-32 lane matrix behind the ICRC check and generation.

The unit is combinational: crc_out = crc_in advanced over the bytes of `data` whose `en` bit is set.
Every check compares against model/crc.py, which computes the CRC with zlib only.
"""
import random
import zlib

import cocotb
from cocotb.triggers import Timer

from model import crc, frames


def width(dut):
    return len(dut.data)


async def evaluate(dut, reg, data, en):
    dut.crc_in.value = reg
    dut.data.value = data
    dut.en.value = en
    await Timer(1, unit="ns")
    return int(dut.crc_out.value)


async def check(dut, reg, data, en, nbytes, what=""):
    got = await evaluate(dut, reg, data, en)
    want = crc.lanes(reg, data, en, nbytes)
    assert got == want, f"{what} crc_in={reg:#010x} en={en:#x} data={data:#x}: got {got:#010x}, zlib {want:#010x}"


@cocotb.test()
async def test_every_enable_pattern(dut):
    """Every enable pattern the unit takes, with random data and register: each contiguous run of lanes
    (tkeep-style, the contract of Crc32Lanes) and the empty one; 37 at 64 bits, 2,081 at 512 bits."""
    nb = width(dut) // 8
    rng = random.Random(0x1C5C)
    patterns = [0] + [((1 << (t + 1)) - 1) ^ ((1 << s) - 1) for s in range(nb) for t in range(s, nb)]
    reps = 3 if nb <= 8 else 1
    for en in patterns:
        for _ in range(reps):
            await check(dut, rng.getrandbits(32), rng.getrandbits(8 * nb), en, nb, "pattern")
    dut._log.info("%d enable patterns checked", len(patterns))


@cocotb.test()
async def test_matrix_columns(dut):
    """Every unit vector of (crc_in, data) under a full beat (the one-matrix path) and under each single
    lane (the per-lane path): a missing or extra term in any XOR equation shows here (the random
    patterns above catch a wrong operator)."""
    nb = width(dut) // 8
    full = (1 << nb) - 1
    for k in range(32):
        await check(dut, 1 << k, 0, full, nb, "full-beat crc column")
    for k in range(8 * nb):
        await check(dut, 0, 1 << k, full, nb, "full-beat data column")
    rng = random.Random(7)
    for lane in range(nb):
        en = 1 << lane
        for k in range(8):
            await check(dut, 0, 1 << (8 * lane + k), en, nb, f"lane {lane} data column")
        for k in rng.sample(range(32), 4 if nb > 8 else 32):
            await check(dut, 1 << k, 0, en, nb, f"lane {lane} crc column")
    # Data on disabled lanes must not leak in: a full word of ones with no lane enabled is a no-op.
    for reg in (0, 0xFFFFFFFF, 0x12345678):
        got = await evaluate(dut, reg, (1 << (8 * nb)) - 1, 0)
        assert got == reg, f"no lane enabled must pass crc_in through: {reg:#x} -> {got:#x}"


@cocotb.test()
async def test_messages_and_residue(dut):
    """Whole messages beat by beat, last beat partial (tkeep), against zlib.crc32; a message followed
    by its CRC leaves the residue 0xDEBB20E3 the receive buffer checks; the ICRC of RoCE frames."""
    nb = width(dut) // 8
    rng = random.Random(3)
    for n in [1, 2, 7, nb - 1, nb, nb + 1, 3 * nb + 5, 100, 333] + [rng.randrange(1, 600) for _ in range(8)]:
        if n <= 0:
            continue
        msg = rng.randbytes(n)
        reg = crc.MASK
        for data, keep, _ in frames.to_beats(msg, nb):
            reg = await evaluate(dut, reg, data, keep)
        assert reg ^ crc.MASK == zlib.crc32(msg), f"{n} bytes: {reg ^ crc.MASK:#x} vs zlib {zlib.crc32(msg):#x}"
        # Message + CRC (least significant byte first) leaves the residue.
        whole = msg + zlib.crc32(msg).to_bytes(4, "little")
        reg = crc.MASK
        for data, keep, _ in frames.to_beats(whole, nb):
            reg = await evaluate(dut, reg, data, keep)
        assert reg == crc.RESIDUE, f"{n} bytes + CRC: residue {reg:#010x}"
    # ICRC of RoCE frames: register after the 8 all-ones bytes, over the masked IP datagram.
    for n in (60, 130, 1100):
        f = frames.roce_frame_of_len(n, rng, dst_mac=0x020000000001, src_mac=0x020000000002,
                                     src_ip=0x0A000002, dst_ip=0x0A000001)
        ip_end = 14 + int.from_bytes(f[16:18], "big")
        m = bytearray(f[14:ip_end])
        for p in frames.ICRC_MASKED:
            m[p - 14] = 0xFF
        reg = await evaluate(dut, crc.MASK, 0xFF * 0, 0)  # passes through: start from all ones
        reg = await evaluate(dut, reg, int.from_bytes(b"\xff" * 8, "little"), 0xFF)
        assert reg == crc.ICRC_START
        for data, keep, _ in frames.to_beats(bytes(m), nb):
            reg = await evaluate(dut, reg, data, keep)
        assert reg == crc.RESIDUE, f"RoCE frame of {n} bytes: residue {reg:#010x}"
