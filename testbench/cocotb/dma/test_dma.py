"""DmaReadSplit<B> (host/dma_split.rs): the DMA engine's read-request splitter.

An engine request (addr, beats, tag) must become sub-requests that never cross a 4 KiB boundary and
never exceed `max_beats`, in order, with the engine's tag; completions pass through and `resp_last`
marks only the last beat of the engine request's final sub-request. Every sub-request is compared
with model/dma_split.py's split() and checked against the PCIe rules by check_rules(), under random
out_ready backpressure and random completion timing. One coroutine drives and samples every port.
"""
import os
import random

import cocotb
from cocotb.triggers import RisingEdge

from model.dma_split import check_rules, split
from tb.util import cycles, start


class Bench:
    def __init__(self, dut, seed=1):
        self.dut = dut
        self.nb = beat_bytes()
        self.rng = random.Random(seed)
        self.requests = []         # queued (addr, beats, tag)
        self.taken = []            # requests the splitter accepted
        self.issued = []           # (addr, beats, tag) seen on the out port
        self.expected_subs = []    # model sub-requests, in order: (addr, beats, tag, ends)
        self.outstanding = []      # issued, not yet completed: [beats, ends, tag]
        self.reorder = False       # complete the oldest of either tag ring (tag bit 0), as PCIe may
        self.reordered = 0
        self.errors = []
        self.out_ready_p = 0.7
        self.host_stall = False
        self.req_gap_p = 0.3
        self.host_gap_p = 0.3
        self.max_outstanding = 0
        self.resp_lasts = 0
        for s in ("in_valid", "out_ready", "resp_fire", "resp_host_last", "resp_tag"):
            getattr(dut, s).value = 0
        dut.in_addr.value = 0
        dut.in_beats.value = 0
        dut.in_tag.value = 0
        cocotb.start_soon(self._run())

    def set_beat_bytes(self, nb):
        self.nb = nb

    def request(self, addr, beats, tag):
        self.requests.append((addr, beats, tag))

    async def _run(self):
        dut, rng = self.dut, self.rng
        driving = None          # request on the in port
        resp = None             # [beats left to show, ends, index in outstanding, tag]
        resp_fire = resp_last_in = 0
        out_ready = 0
        while True:
            await RisingEdge(dut.clock)
            if dut.reset.value == 1:
                driving, resp, resp_fire, out_ready = None, None, 0, 0
                dut.in_valid.value = 0
                dut.resp_fire.value = 0
                dut.out_ready.value = 0
                continue
            # What happened at this edge (inputs as driven last cycle, outputs as they were).
            if driving is not None and dut.in_ready.value == 1:
                self.taken.append(driving)
                a, n, t = driving
                subs = split(a, n, self.max_beats, self.nb)
                try:
                    check_rules(subs, a, n, self.max_beats, self.nb)
                except AssertionError as e:
                    self.errors.append(f"model: {e}")
                self.expected_subs += [(sa, sn, t, e) for sa, sn, e in subs]
                driving = None
            if out_ready and dut.out_valid.value == 1:
                got = (int(dut.out_addr.value), int(dut.out_beats.value), int(dut.out_tag.value))
                k = len(self.issued)
                self.issued.append(got)
                if k >= len(self.expected_subs):
                    self.errors.append(f"unexpected sub-request {got}")
                    exp_ends = False
                else:
                    ea, en, et, exp_ends = self.expected_subs[k]
                    if got != (ea, en, et):
                        self.errors.append(f"sub-request {k}: got {tuple(map(hex, got))}, model "
                                           f"{(hex(ea), hex(en), hex(et))}")
                self.outstanding.append([got[1], exp_ends, got[2]])
                self.max_outstanding = max(self.max_outstanding, len(self.outstanding))
            if resp_fire:
                last = dut.resp_last.value == 1
                want = bool(resp_last_in and resp[1])
                if last != want:
                    self.errors.append(f"resp_last {int(last)} on a beat where the model says {int(want)}")
                self.resp_lasts += int(last)
                if resp_last_in:
                    self.outstanding.pop(resp[2])
                    resp = None
            # Drive the next cycle.
            if driving is None and self.requests and rng.random() > self.req_gap_p:
                driving = self.requests.pop(0)
            dut.in_valid.value = int(driving is not None)
            if driving is not None:
                dut.in_addr.value, dut.in_beats.value, dut.in_tag.value = driving
            out_ready = int(rng.random() < self.out_ready_p)
            dut.out_ready.value = out_ready
            resp_fire = resp_last_in = 0
            if resp is None and self.outstanding and not self.host_stall:
                k = 0
                if self.reorder:
                    # The oldest sub-request of a random tag ring: rings keep their order, not each other's.
                    heads = {}
                    for i, o in enumerate(self.outstanding):
                        heads.setdefault(o[2] & 1, i)
                    k = heads[rng.choice(sorted(heads))]
                    self.reordered += int(k != 0)
                n, ends, tag = self.outstanding[k]
                # Show a few of the sub-request's beats (the splitter only counts host_last ones).
                resp = [min(n, rng.randrange(1, 4)), ends, k, tag]
            if resp is not None and not self.host_stall and rng.random() > self.host_gap_p:
                resp_fire = 1
                resp[0] -= 1
                resp_last_in = int(resp[0] == 0)
            dut.resp_fire.value = resp_fire
            dut.resp_host_last.value = resp_last_in
            dut.resp_tag.value = resp[3] if resp is not None else 0

    async def settle(self, limit=200000):
        for _ in range(limit):
            await RisingEdge(self.dut.clock)
            if not self.requests and not self.outstanding and len(self.issued) == len(self.expected_subs) \
                    and self.dut.in_ready.value == 1:
                await cycles(self.dut, 5)
                if not self.outstanding and len(self.issued) == len(self.expected_subs):
                    return
        raise AssertionError(f"splitter did not finish: {len(self.requests)} queued, "
                             f"{len(self.issued)}/{len(self.expected_subs)} sub-requests issued")

    def check(self, what=""):
        assert not self.errors, f"{what}: {len(self.errors)} errors, first: {self.errors[:5]}"
        n_req = sum(1 for _, b, _ in self.taken if b)
        assert self.resp_lasts == n_req, f"{what}: resp_last {self.resp_lasts} times for {n_req} requests"


async def setup(dut, seed=1):
    tb = Bench(dut, seed)
    dut.max_beats.value = 1
    tb.max_beats = 1
    await start(dut)
    return tb


def beat_bytes(dut=None):
    """B: the splitter has no data port to tell its width, so the runner (test_units.py) and the
    Makefile say which build this is in BENCH_WIDTH (64 -> B = 8, 512 -> B = 64)."""
    return int(os.environ["BENCH_WIDTH"]) // 8


def max_beats_choices(nb):
    """Max_Read_Request_Size 128..4096 bytes in beats, plus 1 and odd sizes."""
    sizes = [s // nb for s in (128, 256, 512, 1024, 2048, 4096) if s >= nb]
    return sorted(set(sizes + [1, 3, 7]))


async def run_batch(tb, reqs, max_beats, what):
    tb.max_beats = max_beats
    tb.dut.max_beats.value = max_beats
    await RisingEdge(tb.dut.clock)
    for r in reqs:
        tb.request(*r)
    await tb.settle()
    tb.check(what)


@cocotb.test()
async def test_random_requests_against_model(dut):
    """400 random requests (1..600 beats, some up to 4000, random 64-bit beat-aligned addresses, random
    tags) at every max-read size, with out_ready low 30 % of the time and random completion gaps."""
    tb = await setup(dut, seed=21)
    nb = beat_bytes(dut)
    tb.set_beat_bytes(nb)
    rng = random.Random(21)
    for mb in max_beats_choices(nb):
        reqs = []
        for _ in range(400 // len(max_beats_choices(nb))):
            beats = rng.choice([1, 2, rng.randrange(1, 64), rng.randrange(1, 600), rng.randrange(1, 4000)])
            beats = min(beats, 30 * mb)  # keep the sub-request count (and the run time) bounded
            hi = rng.choice([0, rng.getrandbits(12), rng.getrandbits(44)])
            addr = ((hi << 20) | rng.randrange(0, 1 << 20)) // nb * nb
            reqs.append((addr, beats, rng.randrange(16)))
        await run_batch(tb, reqs, mb, f"max_beats {mb}")
    dut._log.info("%d requests, %d sub-requests, at most %d outstanding", len(tb.taken), len(tb.issued),
                  tb.max_outstanding)
    assert len(tb.issued) > 1000 and tb.max_outstanding > 8


@cocotb.test()
async def test_completions_of_the_two_tags_out_of_order(dut):
    """Requests of tags 0 and 1 (the requester's and the receive engine's) with the host completing the
    oldest sub-request of a random tag each time, so the two tags' completions overtake each other:
    resp_last still marks exactly each request's final beat (the splitter keeps a ring per tag)."""
    tb = await setup(dut, seed=25)
    nb = beat_bytes(dut)
    tb.set_beat_bytes(nb)
    tb.reorder = True
    rng = random.Random(25)
    mb = 512 // nb if 512 >= nb else 1
    reqs = []
    for _ in range(150):
        beats = rng.choice([1, 2, rng.randrange(1, 64), rng.randrange(1, 300)])
        addr = rng.randrange(0, 1 << 30) // nb * nb
        reqs.append((addr, beats, rng.randrange(2)))
    await run_batch(tb, reqs, mb, "two tags out of order")
    assert tb.reordered > 20, f"only {tb.reordered} completions overtook an older one"


@cocotb.test()
async def test_4k_boundaries(dut):
    """Requests starting every beat offset of the last 1 KiB of a page (and the page's first beat), with
    lengths that end just before, at and just after the boundary, and spanning several pages."""
    tb = await setup(dut, seed=22)
    nb = beat_bytes(dut)
    tb.set_beat_bytes(nb)
    tb.out_ready_p, tb.req_gap_p, tb.host_gap_p = 1.0, 0.0, 0.0
    page = 0x7FFF_F000 + 0x1000
    for mb in (4096 // nb, 512 // nb if 512 >= nb else 1):
        reqs = []
        for off in range(0, 1024 + nb, nb):
            addr = page - off
            k = off // nb  # beats to the boundary
            for beats in sorted({1, max(1, k - 1), max(1, k), k + 1, k + 4096 // nb + 1, 3 * 4096 // nb}):
                reqs.append((addr, beats, 5))
        await run_batch(tb, reqs, mb, f"4K max_beats {mb}")
    dut._log.info("%d requests checked at 4 KiB boundaries", len(tb.taken))


@cocotb.test()
async def test_4gib_boundaries_and_top_of_memory(dut):
    """Requests that run across a 4 GiB boundary (the splitter keeps the address as a high half, a page
    number and a beat offset, and carries from the page number into the high half) and across the top
    of the 64-bit address space (which wraps to 0), at every max-read size, back to back."""
    tb = await setup(dut, seed=26)
    nb = beat_bytes(dut)
    tb.set_beat_bytes(nb)
    tb.out_ready_p, tb.req_gap_p, tb.host_gap_p = 1.0, 0.0, 0.0
    for mb in max_beats_choices(nb):
        reqs = []
        for edge in (1 << 32, 5 << 32, 0xFFFF_FFFF_0000_0000, 1 << 64):
            for before in (nb, 4096, 4096 + 3 * nb, 3 * 4096):
                beats = min(30 * mb, (before + 2 * 4096) // nb)
                reqs.append(((edge - before) & (2**64 - 1), beats, 6))
        await run_batch(tb, reqs, mb, f"4 GiB max_beats {mb}")
    assert any(a >> 32 != (a + n * nb - 1) >> 32 for a, n, _ in tb.taken)


@cocotb.test()
async def test_pending_ring_limits_outstanding(dut):
    """With the host not completing, the splitter issues exactly 64 sub-requests (its ring of 'ends the
    request' bits) and then holds out_valid low; each completion lets one more out; resp_last comes
    once, on the final sub-request's last beat."""
    tb = await setup(dut, seed=23)
    nb = beat_bytes(dut)
    tb.set_beat_bytes(nb)
    tb.out_ready_p, tb.req_gap_p = 1.0, 0.0
    tb.host_stall = True
    tb.max_beats = 1
    dut.max_beats.value = 1
    await RisingEdge(dut.clock)
    tb.request(0x1000_0000, 100, 9)
    tb.request(0x2000_0000, 5, 3)
    await cycles(dut, 300)
    assert len(tb.issued) == 64, f"{len(tb.issued)} sub-requests outstanding with the host stalled"
    assert dut.out_valid.value == 0, "out_valid high with 64 outstanding"
    assert dut.in_ready.value == 0, "a new request taken while the first is still being split"
    tb.host_stall = False
    await tb.settle()
    tb.check("ring")
    assert tb.max_outstanding == 64
    assert len(tb.issued) == 105 and tb.resp_lasts == 2


@cocotb.test()
async def test_zero_beats_and_reset(dut):
    """A zero-beat request is taken and issues nothing; a reset in the middle of a request drops it
    (in_ready high, nothing more issued) and the splitter then works from a clean ring."""
    tb = await setup(dut, seed=24)
    nb = beat_bytes(dut)
    tb.set_beat_bytes(nb)
    await run_batch(tb, [(0x4000, 0, 1), (0x4000, 0, 2), (0x4000, 3, 4)], 16, "zero")
    assert len(tb.issued) == 1
    # Reset mid-request with the host stalled.
    tb.host_stall = True
    tb.out_ready_p = 1.0
    tb.request(0x8000, 1000, 7)
    await cycles(dut, 20)
    assert 0 < len(tb.issued) - 1 < 1000 // 16 + 2
    dut.reset.value = 1
    await cycles(dut, 2)
    dut.reset.value = 0
    await RisingEdge(dut.clock)
    n_issued = len(tb.issued)
    await cycles(dut, 50)
    assert len(tb.issued) == n_issued, "sub-requests issued after reset"
    assert dut.in_ready.value == 1 and dut.out_valid.value == 0
    # Clean state: forget the dropped request in the bench too, then a fresh batch.
    tb.taken.clear(); tb.issued.clear(); tb.expected_subs.clear(); tb.outstanding.clear()
    tb.resp_lasts = 0
    tb.host_stall = False
    await run_batch(tb, [(0xFFF8_0000 // nb * nb + 0x40 * i, 70, i) for i in range(8)], 16, "after reset")
