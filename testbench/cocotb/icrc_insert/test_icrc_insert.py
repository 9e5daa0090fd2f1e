"""IcrcInsert<W,B> (roce/icrc_insert.rs): fills the ICRC of transmitted RoCEv2 frames.

Frames are built by model/frames.py (IPv4 and IPv6, their ICRC from zlib over the masked region), then
sent with their ICRC zeroed, each beat with the lanes the ICRC covers (`in_cen`, frame bytes 14 up to the
ICRC), `in_eoc` on the beat with the last covered byte, and `in_v6`. The bench checks every output frame
against the model's, byte for byte, under random gaps at the input and random backpressure at the output.
"""
import os
import random

import cocotb
from cocotb.triggers import RisingEdge

from model import frames
from tb.util import start

KNOWN_RTL_BUGS = {}
B = int(os.environ.get("BENCH_WIDTH", "64")) // 8
MAC_A, MAC_B = 0x02_00_00_00_00_01, 0x02_00_00_00_00_02
GID_A, GID_B = bytes(range(16)), bytes(range(16, 32))


def cases(rng, n):
    """(frame with its ICRC, IPv6) for every position of the ICRC in its beat, both IP versions, and
    random lengths; unpadded, as the transmit engine sends them."""
    head4 = frames.ETH_LEN + frames.IP_LEN + frames.UDP_LEN + frames.BTH_LEN + frames.ICRC_LEN
    head6 = head4 + frames.IP6_LEN - frames.IP_LEN
    out = []
    lengths = [head6 + k for k in range(2 * B)] + [rng.randrange(head6, 1100) for _ in range(n)]
    for i, length in enumerate(lengths):
        v6 = i % 2 == 1
        kw = dict(opcode=rng.choice([0x04, 0x0A, 0x11]), dest_qp=rng.getrandbits(24), psn=rng.getrandbits(24),
                  pad_to=0)
        if v6:
            f = frames.roce6_frame(MAC_B, MAC_A, GID_A, GID_B, payload=rng.randbytes(length - head6),
                                   tc=rng.getrandbits(8), flow=rng.getrandbits(20), hop=rng.randrange(1, 256), **kw)
        else:
            f = frames.roce_frame(MAC_B, MAC_A, 0x0A000001, 0x0A000002, payload=rng.randbytes(length - head4),
                                  tos=rng.getrandbits(8), ttl=rng.randrange(1, 256), **kw)
        out.append((f, v6))
    return out


async def drive(dut, items, rng, gap):
    """Sends each frame beat by beat with its ICRC zeroed, pausing the input with probability `gap`."""
    for f, v6 in items:
        sent = f[:-4] + b"\0\0\0\0"
        end = len(f) - 4
        for at in range(0, len(f), B):
            chunk = sent[at:at + B]
            cen = sum(1 << i for i in range(len(chunk)) if 14 <= at + i < end)
            while rng.random() < gap:
                dut.in_tvalid.value = 0
                await RisingEdge(dut.clock)
            dut.in_tdata.value = int.from_bytes(chunk, "little")
            dut.in_tkeep.value = (1 << len(chunk)) - 1
            dut.in_tlast.value = int(at + B >= len(f))
            dut.in_cen.value = cen
            dut.in_eoc.value = int(at < end <= at + B)
            dut.in_v6.value = int(v6)
            dut.in_tvalid.value = 1
            while True:
                await RisingEdge(dut.clock)
                if dut.in_tready.value == 1:
                    break
    dut.in_tvalid.value = 0


async def collect(dut, count, rng, stall):
    """Takes `count` frames off the output, holding `out_tready` low with probability `stall`."""
    got, cur = [], bytearray()
    while len(got) < count:
        dut.out_tready.value = int(rng.random() >= stall)
        await RisingEdge(dut.clock)
        if dut.out_tvalid.value == 1 and dut.out_tready.value == 1:
            keep, data = int(dut.out_tkeep.value), int(dut.out_tdata.value)
            cur += bytes((data >> (8 * i)) & 0xFF for i in range(B) if keep >> i & 1)
            if dut.out_tlast.value == 1:
                got.append(bytes(cur))
                cur = bytearray()
    return got


async def run(dut, seed, n, gap, stall):
    rng = random.Random(seed)
    items = cases(rng, n)
    dut.in_tvalid.value = 0
    dut.out_tready.value = 0
    await start(dut)
    sink = cocotb.start_soon(collect(dut, len(items), random.Random(seed + 1), stall))
    await drive(dut, items, random.Random(seed + 2), gap)
    got = await sink
    for i, ((f, v6), g) in enumerate(zip(items, got)):
        assert len(g) == len(f), f"frame {i}: {len(g)} bytes out, {len(f)} in"
        assert g[:-4] == f[:-4], f"frame {i} ({len(f)} bytes): bytes before the ICRC changed"
        assert g[-4:] == f[-4:], f"frame {i} ({len(f)} bytes, v6 {v6}): ICRC {g[-4:].hex()}, model {f[-4:].hex()}"
    dut._log.info("%d frames checked", len(items))


@cocotb.test()
async def test_back_to_back(dut):
    """Every ICRC position in the beat (straddling two beats at the top lanes), IPv4 and IPv6, frames
    back to back with the output always ready: the ICRC is the model's."""
    await run(dut, 11, 8, 0.0, 0.0)


@cocotb.test()
async def test_gaps_and_backpressure(dut):
    """The same frames and random ones with gaps at the input and an output that stalls a third of the
    cycles: the pipeline holds its beats and the CRC stays with its frame."""
    await run(dut, 23, 24, 0.3, 0.35)
