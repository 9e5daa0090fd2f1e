"""Scatter<W, B> (host/scatter.rs): cuts the receive engine's bursts at scatter-list entry boundaries.

In a scatter burst a word's in_addr is the message offset of its lane 0; the unit hands on the same
words at the entry's address (address - entry start + offset), strobes cut at entry boundaries, each
piece a burst of its own (out_last). Checked against model/scatter.py: every message byte lands once at
the model's address and nothing else is written; pieces are runs of consecutive words; a word costs one
extra cycle exactly when an entry boundary falls inside it; bursts that are not scattered pass unchanged.
Words come out three cycles after they go in (the unit's registered stages), so the words seen out are
one stream, dealt to the bursts in order by the count each must give (a wrong count shifts every burst
after it, and their bytes no longer match).
Random lists (1 to 4 entries, empty ones, odd addresses, garbage past sgl_n), packet sizes and
backpressure on both sides; each list is in place a cycle before its burst's first word, as the
unit requires. One coroutine drives and samples every port.
"""
import os
import random

import cocotb
from cocotb.triggers import RisingEdge

from model.scatter import bursts, landing, pack_list
from tb.util import start


def beat_bytes():
    return int(os.environ.get("BENCH_WIDTH", "64")) // 8


class Bench:
    def __init__(self, dut, seed):
        self.dut = dut
        self.nb = beat_bytes()
        self.rng = random.Random(seed)
        self.queue = []        # bursts to send: dict(scatter, entries, addr, data)
        self.done = []         # bursts whose words all went in
        self.outs = []         # every word seen out, in order
        self.in_gap_p = 0.3
        self.out_ready_p = 0.7
        self.errors = []
        for s in ("in_valid", "in_last", "in_scatter", "out_ready"):
            getattr(dut, s).value = 0
        dut.in_addr.value = 0
        dut.in_data.value = 0
        dut.in_strb.value = 0
        dut.sgl.value = 0
        dut.sgl_n.value = 0
        cocotb.start_soon(self._run())

    def burst(self, scatter, entries, addr, data):
        self.queue.append(dict(scatter=scatter, entries=entries, addr=addr, data=data, out=[]))

    def _word(self, b, j):
        nb = self.nb
        chunk = b["data"][j * nb:(j + 1) * nb]
        return (b["addr"] + j * nb, int.from_bytes(chunk.ljust(nb, b"\0"), "little"),
                (1 << len(chunk)) - 1)

    async def _run(self):
        dut, rng, nb = self.dut, self.rng, self.nb
        cur, j, nwords = None, 0, 0
        valid = out_ready = 0
        while True:
            await RisingEdge(dut.clock)
            # What happened at this edge (inputs as driven last cycle, outputs as they were).
            if out_ready and dut.out_valid.value == 1:
                self.outs.append((int(dut.out_addr.value), int(dut.out_data.value),
                                  int(dut.out_strb.value), int(dut.out_last.value)))
            if cur is not None and valid and dut.in_ready.value == 1:
                j += 1
                if j == nwords:
                    self.done.append(cur)
                    cur = None
            if cur is None and self.queue:
                cur, j = self.queue.pop(0), 0
                nwords = (len(cur["data"]) + nb - 1) // nb
                # The list as the engine holds it: entries past sgl_n are garbage the unit must ignore.
                ents = cur["entries"] + [(rng.getrandbits(40), rng.getrandbits(20))
                                         for _ in range(4 - len(cur["entries"]))]
                dut.sgl.value = pack_list(ents)
                dut.sgl_n.value = len(cur["entries"])
                dut.in_scatter.value = int(cur["scatter"])
                # The unit reads the list a cycle late (it digests it into registers): as the engines
                # do, a new list is in place a cycle before the first word that uses it.
                fresh = True
            else:
                fresh = False
            valid = int(cur is not None and not fresh and rng.random() >= self.in_gap_p)
            if cur is not None:
                a, d, s = self._word(cur, j)
                dut.in_addr.value, dut.in_data.value, dut.in_strb.value = a, d, s
                dut.in_last.value = int(j == nwords - 1)
            dut.in_valid.value = valid
            out_ready = int(rng.random() < self.out_ready_p)
            dut.out_ready.value = out_ready

    @staticmethod
    def cuts(b):
        """Message offsets where the list's entries end strictly inside a scattered burst (an empty
        entry ends where the one before it does: one cut)."""
        off, n = b["addr"], len(b["data"])
        ends, run = set(), 0
        for (_, length) in b["entries"]:
            run += length
            ends.add(run)
        return {e for e in ends if off < e < off + n}

    def words_out(self, b):
        """Words a burst must give: one per word in, plus one per entry boundary inside a word."""
        nb = self.nb
        nin = (len(b["data"]) + nb - 1) // nb
        if not b["scatter"]:
            return nin
        return nin + sum(1 for e in self.cuts(b) if (e - b["addr"]) % nb)

    async def settle(self, n, limit=400000):
        for _ in range(limit):
            if len(self.done) == n and len(self.outs) >= sum(self.words_out(b) for b in self.done):
                # Some cycles more: nothing else may come out.
                for _ in range(20):
                    await RisingEdge(self.dut.clock)
                return
            await RisingEdge(self.dut.clock)
        raise AssertionError(f"{len(self.done)} of {n} bursts went in, {len(self.outs)} words out")

    def check(self):
        """Every burst: bytes where the model puts them, once; pieces well formed; the cycle cost."""
        nb = self.nb
        total = sum(self.words_out(b) for b in self.done)
        assert len(self.outs) == total, f"{len(self.outs)} words out, {total} expected"
        at = 0
        for b in self.done:
            b["out"] = self.outs[at:at + self.words_out(b)]
            at += len(b["out"])
        for k, b in enumerate(self.done):
            what = f"burst {k} ({'scatter' if b['scatter'] else 'plain'} at {b['addr']:#x}, " \
                   f"{len(b['data'])} bytes, list {b['entries']})"
            written = {}
            for (a, d, s, _) in b["out"]:
                for l in range(nb):
                    if s >> l & 1:
                        assert a + l not in written, f"{what}: {a + l:#x} written twice"
                        written[a + l] = (d >> (8 * l)) & 0xFF
            nin = (len(b["data"]) + nb - 1) // nb
            if not b["scatter"]:
                want = {b["addr"] + i: x for i, x in enumerate(b["data"])}
                assert written == want, f"{what}: a plain burst changed"
                assert len(b["out"]) == nin and [w[3] for w in b["out"]] == [0] * (nin - 1) + [1], \
                    f"{what}: a plain burst must pass word for word"
                continue
            # The burst's bytes are message bytes [off, off + n): the model's landing of the whole list.
            off, n = b["addr"], len(b["data"])
            where = landing(b["entries"], off + n)
            want = {a: b["data"][m - off] for a, m in where.items() if m >= off}
            assert written == want, f"{what}: landed bytes differ " \
                f"(missing {sorted(set(want) - set(written))[:4]}, extra {sorted(set(written) - set(want))[:4]})"
            cuts = self.cuts(b)
            # Pieces: runs of consecutive words, one out_last per piece, as many as boundaries + 1.
            assert sum(w[3] for w in b["out"]) == len(cuts) + 1 and b["out"][-1][3] == 1, \
                f"{what}: pieces {[w[3] for w in b['out']]}"
            for p, q in zip(b["out"], b["out"][1:]):
                if not p[3]:
                    assert q[0] == p[0] + nb, f"{what}: a piece's words not consecutive"


def random_list(rng, nb):
    lens = [0, 1, 2, 3, nb - 1, nb, nb + 1, 100, 300]
    ents = []
    for _ in range(rng.randrange(1, 5)):
        addr = (rng.getrandbits(36) << 4) + rng.randrange(0, 2 * nb)
        ents.append((addr, rng.choice(lens)))
    if sum(length for _, length in ents) == 0:
        ents[-1] = (ents[-1][0], 1 + rng.randrange(200))
    return ents


def message(rng, ents):
    return bytes(rng.getrandbits(8) for _ in range(sum(length for _, length in ents)))


async def setup(dut, seed):
    tb = Bench(dut, seed)
    await start(dut)
    return tb


@cocotb.test()
async def test_random_lists_against_model(dut):
    """120 messages over random lists, cut into packets of 5 to 1024 bytes, with plain bursts between
    them, under random gaps on the input and backpressure on the output."""
    tb = await setup(dut, seed=31)
    rng = random.Random(31)
    count = 0
    for _ in range(120):
        ents = random_list(rng, tb.nb)
        msg = message(rng, ents)
        for off, n in bursts(len(msg), rng.choice([5, 8, 13, 64, 256, 1024]), tb.nb):
            tb.burst(True, ents, off, msg[off:off + n])
            count += 1
        if rng.random() < 0.3:
            tb.burst(False, [], rng.getrandbits(40), bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 200))))
            count += 1
    await tb.settle(count)
    tb.check()
    dut._log.info("%d bursts checked", count)


@cocotb.test()
async def test_two_messages_interleaved_at_full_rate(dut):
    """Packets of two messages with different lists alternate (two QPs' SENDs), at full rate: the
    word count, and so the cycle cost of each boundary, is exact with no backpressure too."""
    tb = await setup(dut, seed=32)
    tb.in_gap_p, tb.out_ready_p = 0.0, 1.0
    rng = random.Random(32)
    count = 0
    for _ in range(20):
        a, b = random_list(rng, tb.nb), random_list(rng, tb.nb)
        ma, mb = message(rng, a), message(rng, b)
        pa, pb = bursts(len(ma), 13, tb.nb), bursts(len(mb), 64, tb.nb)
        for i in range(max(len(pa), len(pb))):
            for ents, msg, ps in ((a, ma, pa), (b, mb, pb)):
                if i < len(ps):
                    off, n = ps[i]
                    tb.burst(True, ents, off, msg[off:off + n])
                    count += 1
    await tb.settle(count)
    tb.check()
