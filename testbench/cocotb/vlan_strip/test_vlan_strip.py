"""VlanStrip<W,B> (net/vlan.rs): with `mode` set, takes the 802.1Q tag out of received frames and flags
(vlan_drop, with every output beat) frames that are untagged while `untagged_ok` is clear, or whose VID
is none of the port VLAN table's entries that are on (`vid`, `vid1`..`vid3`, `vid_on`); `pcp` and
`rx_vid` give the tag's priority and VID (0 untagged). With `mode` clear, frames pass unchanged and
nothing is flagged.

Frames (tagged with the port's VID, with another VID, priority-tagged, untagged; 60 bytes to jumbo, every
last-beat fill level) go in through a cocotbext-axi source and out through a sink under random
backpressure; the bench compares each output with the input minus the 4 tag bytes, and the flag sampled
at each output frame's last beat with the bench's own verdict.
"""
import os
import random

import cocotb
from cocotb.triggers import ReadOnly, RisingEdge

from tb.stream import StreamStage
from tb.util import start

KNOWN_RTL_BUGS = {}
B = int(os.environ.get("BENCH_WIDTH", "64")) // 8
VID = 100


class Bench(StreamStage):
    def __init__(self, dut, seed, pause=0.3):
        super().__init__(dut, seed, pause)
        self.flags = []
        self.vids = []
        cocotb.start_soon(self._watch())

    async def _watch(self):
        d = self.dut
        while True:
            await RisingEdge(d.clock)
            await ReadOnly()
            if d.out_tvalid.value == 1 and d.out_tready.value == 1 and d.out_tlast.value == 1:
                self.flags.append((int(d.vlan_drop.value), int(d.pcp.value)))
                self.vids.append(int(d.rx_vid.value))


def frame(rng, n, tci=None):
    """An n-byte untagged frame (EtherType IPv4), tagged with `tci` (4 bytes longer) when given."""
    body = bytes(rng.getrandbits(8) for _ in range(12)) + b"\x08\x00" + \
        bytes(rng.getrandbits(8) for _ in range(n - 14))
    if tci is None:
        return body, body
    return body[:12] + bytes([0x81, 0x00, tci >> 8, tci & 0xFF]) + body[12:], body


def cases(rng, n, taken=(VID,), untagged_ok=False, vids=(VID, 1, 7, 99, 101, 4095)):
    """(wire frame, frame after stripping, vlan_drop expected with mode on, pcp, VID) for every last-beat
    fill level and random lengths, each kind of tag: VIDs from `vids` (those in `taken` are the port's),
    priority-tagged and untagged."""
    out = []
    sizes = [60 + i for i in range(B + 1)] + [rng.randrange(60, 1600) for _ in range(n)] + [9014]
    for i, size in enumerate(sizes):
        kind = i % 3
        pcp = rng.randrange(8)
        if kind == 0:
            vid = rng.choice(vids)
            w, s = frame(rng, size, pcp << 13 | 0x1000 * rng.randrange(2) | vid)  # DEI either way
            out.append((w, s, int(vid not in taken), pcp, vid))
        elif kind == 1:
            w, s = frame(rng, size, pcp << 13)  # priority-tagged (VID 0): no entry's
            out.append((w, s, 1, pcp, 0))
        else:
            w, s = frame(rng, size)
            out.append((w, s, int(not untagged_ok), None, 0))
    return out


def table(dut, entries, untagged_ok):
    """Sets the port VLAN table: `entries` as (VID, on) for entries 0..3, and whether untagged frames
    are taken."""
    for i, (vid, on) in enumerate(entries):
        getattr(dut, "vid" if i == 0 else f"vid{i}").value = vid
    dut.vid_on.value = sum(1 << i for i, (_, on) in enumerate(entries) if on)
    dut.untagged_ok.value = int(untagged_ok)


async def strips_and_flags(dut, tb, cs):
    for w, s, *_ in cs:
        await tb.src.send(w)
        got = await tb.recv()
        assert got == s, f"{len(w)}-byte frame: got {len(got)} bytes, expected {len(s)}"
    for w, *_ in cs:
        await tb.src.send(w)
    for _, s, *_ in cs:
        assert await tb.recv() == s, f"back to back: {len(s)} bytes"
    want = [(drop, pcp) for _, _, drop, pcp, _ in cs] * 2
    got = [(d, p if w is not None else None) for (d, p), w in zip(tb.flags, [c[3] for c in cs] * 2)]
    assert got == want, f"vlan_drop/pcp per frame differ: {got[:8]} vs {want[:8]}"
    assert tb.vids == [c[4] for c in cs] * 2, f"rx_vid per frame differs: {tb.vids[:8]}"


@cocotb.test()
async def test_strips_and_flags(dut):
    """Mode on, the port's VLAN 100 alone: every kind of frame, one at a time and then back to back,
    with backpressure."""
    dut.mode.value = 1
    table(dut, [(VID, 1), (0, 0), (0, 0), (0, 0)], untagged_ok=False)
    tb = Bench(dut, 1)
    await start(dut)
    await strips_and_flags(dut, tb, cases(random.Random(2), 24))


@cocotb.test()
async def test_port_vlan_table(dut):
    """Entries 1 and 3 on (VIDs 200 and 7), entry 0 and 2 off (100, 99: their frames are not taken),
    untagged frames taken (no VLAN mode): each frame stripped, flagged and its VID given."""
    dut.mode.value = 1
    table(dut, [(VID, 0), (200, 1), (99, 0), (7, 1)], untagged_ok=True)
    tb = Bench(dut, 5)
    await start(dut)
    cs = cases(random.Random(6), 24, taken=(200, 7), untagged_ok=True, vids=(VID, 200, 99, 7, 4095))
    await strips_and_flags(dut, tb, cs)


@cocotb.test()
async def test_mode_off_passes_everything(dut):
    """Mode off: tagged and untagged frames leave unchanged, in the cycle they arrive, never flagged."""
    dut.mode.value = 0
    table(dut, [(VID, 1), (0, 0), (0, 0), (0, 0)], untagged_ok=False)
    tb = Bench(dut, 3, pause=0.0)
    await start(dut)
    rng = random.Random(4)
    cs = cases(rng, 8)
    for w, *_ in cs:
        await tb.src.send(w)
    for w, *_ in cs:
        assert await tb.recv() == w
    assert [d for d, _ in tb.flags] == [0] * len(cs)
    # Same cycle: with no backpressure anywhere, the output beat is the input beat.
    dut.in_tdata.value = 0x1234
    await ReadOnly()
    assert int(dut.out_tdata.value) == 0x1234
