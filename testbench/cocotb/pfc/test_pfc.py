"""PfcUnit<W,B> (net/pfc.rs): 802.1Qbb PFC and 802.3x PAUSE reception, the pause storm watchdog, and
XOFF/XON generation from each priority's receive-buffer fill (`fill0`..`fill7`).

Received frames are driven on the observe-only port (tb/observe.py); `paused` (bit p: priority p) is
sampled every cycle and a priority's pause length compared with model/pfc.py's pause_cycles(quanta,
PFC_QUANTUM_Q4); `lossless` is PFC_ENABLE (bit p: priority p lossless); generated frames are
taken by a cocotbext-axi AxiStreamSink (with random tready backpressure) and decoded by hand
(model/pfc.py decode), field by field.
"""
import random

import cocotb
from cocotb.triggers import RisingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamSink

from model import pfc as P
from tb.observe import ObservedRx
from tb.util import PulseCounter, cycles, start

MY_MAC = 0x02A1B2C3D4E5
PEER = 0x020000000077
COUNTERS = ["rx_pause_inc", "pause_cycle_inc", "watchdog_inc", "tx_xoff_inc", "tx_xon_inc"]

KNOWN_RTL_BUGS = {}


class Bench:
    def __init__(self, dut, prio=3, q4=128, sink_backpressure=False):
        """`prio`: the one lossless priority, whose pause `paused_trace` follows (set_lossless for more)."""
        self.dut = dut
        self.nb = len(dut.tx_tkeep)
        dut.enable.value = 1
        dut.mac_lo.value = MY_MAC & 0xFFFFFFFF
        dut.mac_hi.value = MY_MAC >> 32
        self.set_prio(prio)
        dut.quantum_q4.value = q4
        dut.watchdog_cycles.value = 0
        dut.recovery_cycles.value = 0
        self.set_fill(0)
        dut.xoff_words.value = 0
        dut.xon_words.value = 0
        dut.pause_quanta.value = 0
        dut.refresh_cycles.value = 0x8000
        dut.warp.value = 0  # fast-forward is the co-simulation's; every cycle counts here
        self.rx = ObservedRx(dut)
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "tx"), dut.clock, dut.reset)
        if sink_backpressure:
            rng = random.Random(9)
            self.sink.set_pause_generator(iter(lambda: rng.random() < 0.4, None))
        self.count = PulseCounter(dut, COUNTERS)
        self.paused_trace = []
        self.vec_trace = []
        # rx_prio_pause_inc, bit by bit: PFC frames naming each priority (RX_PRIOn_PAUSE).
        self.prio_pause = [0] * 8
        # tx_prio_pause_inc, bit by bit: generated frames pausing each priority (TX_PRIOn_PAUSE).
        self.tx_prio_pause = [0] * 8
        self.tx_starts = []
        cocotb.start_soon(self._watch())

    async def _watch(self):
        dut = self.dut
        n, in_frame = 0, False
        while True:
            await RisingEdge(dut.clock)
            n += 1
            v = int(dut.paused.value)
            inc = int(dut.rx_prio_pause_inc.value)
            tx_inc = int(dut.tx_prio_pause_inc.value)
            for i in range(8):
                self.prio_pause[i] += (inc >> i) & 1
                self.tx_prio_pause[i] += (tx_inc >> i) & 1
            self.vec_trace.append(v)
            self.paused_trace.append((v >> self.prio) & 1 == 1)
            if dut.tx_tvalid.value == 1 and not in_frame:
                self.tx_starts.append(n)
                in_frame = True
            if dut.tx_tvalid.value == 1 and dut.tx_tready.value == 1 and dut.tx_tlast.value == 1:
                in_frame = False

    def set_prio(self, prio):
        """Priority `prio` alone lossless, and followed by `paused_trace`."""
        self.set_lossless(1 << prio, prio)

    def set_fill(self, words, prio=None):
        """Priority `prio`'s stored words in the receive buffer; every priority's when None."""
        for i in range(8) if prio is None else [prio]:
            getattr(self.dut, f"fill{i}").value = words

    def set_lossless(self, mask, watch):
        self.dut.lossless.value = mask
        self.prio = watch

    def run_length(self, bit, t0):
        """(first cycle, cycles) of priority `bit`'s first pause in vec_trace[t0:]; (None, 0) if none."""
        tr = [(v >> bit) & 1 for v in self.vec_trace[t0:]]
        if 1 not in tr:
            return None, 0
        first = tr.index(1)
        rest = tr[first:]
        return first, rest.index(0) if 0 in rest else len(rest)

    async def start(self):
        await start(self.dut)

    async def pause_length(self, frame, limit=20000, bad=False):
        """Send a frame (marked bad with its last beat if `bad`), then (cycles until `paused` first
        rises, cycles it stays high)."""
        await self.rx.send(frame, bad=bad)
        t0 = len(self.paused_trace)
        for _ in range(limit):
            await RisingEdge(self.dut.clock)
            if len(self.paused_trace) - t0 > 4 and not any(self.paused_trace[t0:]):
                return None, 0
            tr = self.paused_trace[t0:]
            if any(tr) and not tr[-1]:
                first = tr.index(True)
                return first + 1, len(tr) - 1 - first
        raise AssertionError("pause never ended")


@cocotb.test()
async def test_pfc_pauses_exactly_our_priority(dut):
    """For each priority 0..7 as the one lossless priority: a PFC frame enabling every class with a
    different time per class pauses that priority, and no other, for its class's time x quantum, to the
    cycle (q4 = 128: 8 cycles a quantum, and q4 = 26: 1.625, the 100 Gb/s setting); pause_cycle_inc
    counts those cycles; rx_pause_inc once."""
    tb = Bench(dut)
    await tb.start()
    for q4 in (128, 26):
        dut.quantum_q4.value = q4
        for prio in range(8):
            tb.set_prio(prio)
            times = [7 + 5 * i + (q4 & 3) for i in range(8)]
            before = tb.count.snapshot()
            t0 = len(tb.vec_trace)
            lat, n = await tb.pause_length(P.pfc_frame(PEER, 0xFF, times))
            others = {v & ~(1 << prio) for v in tb.vec_trace[t0:]}
            assert others == {0}, f"prio {prio}: other priorities paused: {sorted(others)}"
            want = P.pause_cycles(times[prio], q4)
            assert n == want, f"prio {prio} q4 {q4}: paused {n} cycles, expected {times[prio]} quanta = {want}"
            # The unit reads the frame from its capture register the cycle after the last beat, decides
            # there and pauses from the next (2 or 3 cycles, with the bench's sampling).
            assert lat in (2, 3), f"pause started {lat} cycles after the frame's last beat"
            d = tb.count.delta(before)
            assert d == {"rx_pause_inc": 1, "pause_cycle_inc": want}, f"counters {d}"


@cocotb.test()
async def test_other_priorities_and_non_pause_frames_ignored(dut):
    """A PFC frame naming only the other seven classes (with times), a unicast or wrong-EtherType or
    wrong-opcode frame, a PFC or PAUSE frame the MAC marks bad, and anything with the unit disabled: no
    pause and nothing counted. A PFC frame for our class with time 0 is counted and does not pause."""
    tb = Bench(dut, prio=6)
    await tb.start()
    ours = 1 << 6
    cases = [
        ("other classes only", P.pfc_frame(PEER, 0xFF & ~ours, [500] * 8)),
        ("to our unicast MAC", P.pfc_frame(PEER, 0xFF, [500] * 8, dst=MY_MAC)),
        ("EtherType 0x8809", P.pfc_frame(PEER, 0xFF, [500] * 8, ethertype=0x8809)),
        ("opcode 0x0102", P.pfc_frame(PEER, 0xFF, [500] * 8, opcode=0x0102)),
        ("opcode 0x0000", P.pfc_frame(PEER, 0xFF, [500] * 8, opcode=0x0000)),
        ("PAUSE to broadcast", P.pause_frame(PEER, 500, dst=0xFFFFFFFFFFFF)),
    ]
    for name, f in cases:
        before = tb.count.snapshot()
        per_prio = list(tb.prio_pause)
        lat, n = await tb.pause_length(f)
        assert n == 0, f"{name}: paused {n} cycles"
        assert tb.count.delta(before) == {}, f"{name}: counted {tb.count.delta(before)}"
        want = [c + (i != 6) for i, c in enumerate(per_prio)] if name == "other classes only" else per_prio
        assert tb.prio_pause == want, f"{name}: per-priority counts {tb.prio_pause}, want {want}"
    before = tb.count.snapshot()
    lat, n = await tb.pause_length(P.pfc_frame(PEER, ours, [0] * 8))
    assert n == 0 and tb.count.delta(before) == {"rx_pause_inc": 1}
    # A good frame for us the MAC marks bad (rx_tuser: a bad FCS): its time may be what is corrupt.
    per_prio = list(tb.prio_pause)
    for f in (P.pfc_frame(PEER, 0xFF, [500] * 8), P.pause_frame(PEER, 500)):
        before = tb.count.snapshot()
        lat, n = await tb.pause_length(f, bad=True)
        assert n == 0 and tb.count.delta(before) == {}, "a bad-FCS pause frame honoured"
    dut.enable.value = 0
    for f in (P.pfc_frame(PEER, 0xFF, [500] * 8), P.pause_frame(PEER, 500)):
        before = tb.count.snapshot()
        lat, n = await tb.pause_length(f)
        assert n == 0 and tb.count.delta(before) == {}, "disabled unit reacted"
    assert tb.prio_pause == per_prio, "a bad-FCS frame or a disabled unit counted per priority"


@cocotb.test()
async def test_8023x_pause_and_resume(dut):
    """An 802.3x PAUSE pauses all eight priorities at once for its time, whatever the lossless ones are
    (none included); a PFC pause holds only its lossless class; frames with valid gaps decode alike."""
    tb = Bench(dut, prio=0)
    await tb.start()
    for prio, quanta in ((0, 33), (7, 100), (4, 1)):
        tb.set_prio(prio)
        t0 = len(tb.paused_trace)
        lat, n = await tb.pause_length(P.pause_frame(PEER, quanta))
        assert n == P.pause_cycles(quanta, 128), f"PAUSE {quanta}: paused {n}"
        assert {v for v in tb.vec_trace[t0:]} == {0, 0xFF}, f"PAUSE {quanta}: not every priority at once"
    # With no lossless priority at all, a PAUSE still holds everything.
    tb.set_lossless(0, 2)
    lat, n = await tb.pause_length(P.pause_frame(PEER, 9))
    assert n == P.pause_cycles(9, 128), f"PAUSE with PFC_ENABLE 0: paused {n}"
    # With gaps in the frame's beats, a fresh pause decodes alike; a PFC pause is for its priority only.
    tb.set_prio(4)
    t0 = len(tb.paused_trace)
    lat, n = await tb.pause_length(P.pfc_frame(PEER, 0xFF, [55, 0, 0, 0, 77]))
    assert n == P.pause_cycles(77, 128)
    assert {v for v in tb.vec_trace[t0:]} == {0, 1 << 4}, "a PFC pause held a priority it does not name"


@cocotb.test()
async def test_refresh_and_xon_while_paused(dut):
    """While a pause runs, a new PFC time for our class restarts it from the new time (the peer refreshes
    XOFF this way) and time 0 (XON) or a PAUSE of 0 ends it at once, whatever the cycle the frame ends
    on relative to the quantum counter: swept over 16 consecutive cycles, at q4 = 128 and q4 = 26."""
    tb = Bench(dut, prio=2)
    await tb.start()
    failures = []
    for q4 in (128, 26):
        dut.quantum_q4.value = q4
        for phase in range(16):
            # Refresh: 1000 quanta, then 20 quanta `phase` cycles later.
            await tb.rx.send(P.pfc_frame(PEER, 1 << 2, [0, 0, 1000]))
            await cycles(dut, 40 + phase)
            await tb.rx.send(P.pfc_frame(PEER, 1 << 2, [0, 0, 20]))
            t1 = len(tb.paused_trace)
            await cycles(dut, P.pause_cycles(20, q4) + 40)
            tr = tb.paused_trace[t1:]
            left = tr.index(False) if False in tr else len(tr)
            want = P.pause_cycles(20, q4)
            # Within one quantum: the RTL keeps the running quantum's partial count (a fine point).
            if not want - P.pause_cycles(1, q4) <= left <= want + 2:
                failures.append(f"q4 {q4} phase {phase}: refresh to 20 quanta left {left} cycles, want {want}")
            await tb.rx.send(P.pfc_frame(PEER, 1 << 2, [0, 0, 0]))
            await cycles(dut, 20)
            # XON: a long pause, then time 0.
            xon = P.pfc_frame(PEER, 1 << 2, [0] * 8) if phase % 2 else P.pause_frame(PEER, 0)
            await tb.rx.send(P.pfc_frame(PEER, 1 << 2, [0, 0, 0xFFFF]))
            await cycles(dut, 40 + phase)
            await tb.rx.send(xon)
            await cycles(dut, 3)
            if tb.paused_trace[-1]:
                failures.append(f"q4 {q4} phase {phase}: still paused after XON")
                for _ in range(20):  # resend until one lands off a quantum boundary
                    await tb.rx.send(xon)
                    await cycles(dut, 3)
                    if not tb.paused_trace[-1]:
                        break
                assert not tb.paused_trace[-1], "20 XONs did not end the pause"
            await cycles(dut, 10)
    for f in failures:
        dut._log.warning(f)
    assert not failures, f"{len(failures)} of 64 refresh/XON cases failed:\n" + "\n".join(failures)


@cocotb.test()
async def test_storm_watchdog(dut):
    """PFC_WATCHDOG_CYCLES = 300: a PAUSE that never ends is dropped after 300 cycles and counted once
    (all eight priorities trip together); for PFC_WATCHDOG_RECOVERY = 600 cycles pause frames are
    counted but not honoured; afterwards they are again. Pauses with breaks between them never trip
    it. (test_watchdog_per_priority: a storm on one priority.)"""
    tb = Bench(dut)
    await tb.start()
    wd, rec = 300, 600
    dut.watchdog_cycles.value = wd
    dut.recovery_cycles.value = rec
    # Pauses of 200 cycles (25 quanta) with breaks: no watchdog.
    for _ in range(3):
        lat, n = await tb.pause_length(P.pause_frame(PEER, 25))
        assert n == 200
    assert tb.count.counts["watchdog_inc"] == 0
    # A storm: 0xFFFF quanta, every priority (each priority's watchdog trips; counted once).
    before = tb.count.snapshot()
    lat, n = await tb.pause_length(P.pause_frame(PEER, 0xFFFF))
    assert wd <= n <= wd + 1, f"watchdog let the pause run {n} cycles (limit {wd})"
    assert tb.count.delta(before)["watchdog_inc"] == 1
    # Recovery: a new pause is counted but ignored.
    t_fire = len(tb.paused_trace)
    before = tb.count.snapshot()
    lat, n = await tb.pause_length(P.pause_frame(PEER, 0xFFFF))
    assert n == 0, f"pause honoured {n} cycles during watchdog recovery"
    assert tb.count.delta(before) == {"rx_pause_inc": 1}
    # Once recovery is over, pause works again (and the watchdog fires again on a storm).
    await cycles(dut, rec - (len(tb.paused_trace) - t_fire) + 5)
    lat, n = await tb.pause_length(P.pause_frame(PEER, 10))
    assert n == P.pause_cycles(10, 128), f"after recovery, paused {n}"
    lat, n = await tb.pause_length(P.pause_frame(PEER, 0xFFFF))
    assert wd <= n <= wd + 1 and tb.count.counts["watchdog_inc"] == 2


async def collect(tb, n, limit=5000):
    frames = []
    for _ in range(n):
        f = await cocotb.triggers.with_timeout(tb.sink.recv(), limit * 4, "ns")
        frames.append(bytes(f.tdata))
    return frames


def check_pfc(frame, prio, quanta, mask=None, times=None):
    """A generated PFC frame naming priority `prio` (or the priorities of `mask`), each for `quanta`;
    or, with `times` ({priority: quanta}), naming exactly those priorities with those times."""
    if times is not None:
        mask = sum(1 << p for p in times)
    mask = (1 << prio) if mask is None else mask
    d = P.decode(frame)
    assert d["length"] == 60, f"generated frame is {d['length']} bytes, not 60"
    assert d["dst"] == P.MAC_CONTROL_DST, f"dst {d['dst']:#x}"
    assert d["src"] == MY_MAC, f"src {d['src']:#x}"
    assert d["ethertype"] == 0x8808 and d["opcode"] == P.OP_PFC, f"{d['ethertype']:#x}/{d['opcode']:#x}"
    assert d["cev"] == mask, f"class-enable vector {d['cev']:#06x}, expected {mask:#06x}"
    want = [quanta if (mask >> i) & 1 else 0 for i in range(8)]
    if times is not None:
        want = [times.get(i, 0) for i in range(8)]
    assert d["times"] == want, f"times {d['times']}, expected {want}"
    assert d["pad"] == bytes(26), "padding is not zero"


@cocotb.test()
async def test_xoff_refresh_xon_generation(dut):
    """Fill >= PFC_XOFF_WORDS sends XOFF (our class, PFC_PAUSE_QUANTA) once, refreshed every
    PFC_REFRESH_CYCLES while above PFC_XON_WORDS; fill <= PFC_XON_WORDS sends XON (time 0); every frame
    is a 60-byte PFC frame, decoded field by field, under random tready backpressure."""
    tb = Bench(dut, prio=5, sink_backpressure=True)
    await tb.start()
    dut.xoff_words.value = 100
    dut.xon_words.value = 40
    dut.pause_quanta.value = 0x1234
    dut.refresh_cycles.value = 400
    tb.set_fill(99)
    await cycles(dut, 300)
    assert tb.sink.empty() and tb.count.counts["tx_xoff_inc"] == 0, "XOFF below the threshold"
    tb.set_fill(100)
    (f,) = await collect(tb, 1)
    check_pfc(f, 5, 0x1234)
    assert tb.count.counts["tx_xoff_inc"] == 1
    # Between the marks for 2000 cycles: refreshes.
    tb.set_fill(70)
    s0 = len(tb.tx_starts)
    await cycles(dut, 2000)
    refreshes = await collect(tb, len(tb.tx_starts) - s0) if len(tb.tx_starts) > s0 else []
    for f in refreshes:
        check_pfc(f, 5, 0x1234)
    starts = tb.tx_starts[s0 - 1:]
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    beats = -(-60 // tb.nb)
    assert 3 <= len(refreshes) <= 5, f"{len(refreshes)} refreshes in 2000 cycles at 400"
    assert all(400 <= g <= 400 + 3 * beats + 40 for g in gaps), f"refresh intervals {gaps}"
    assert tb.count.counts["tx_xoff_inc"] == 1 + len(refreshes)
    tb.set_fill(41)
    await cycles(dut, 100)
    tb.set_fill(40)
    # Drain whatever refresh might be in flight, then the XON.
    got = []
    while True:
        got += await collect(tb, 1)
        if P.decode(got[-1])["times"][5] == 0:
            break
    check_pfc(got[-1], 5, 0)
    assert tb.count.counts["tx_xon_inc"] == 1
    await cycles(dut, 1500)
    assert tb.sink.empty(), "frames after XON with the buffer low"
    tb.set_fill(2000)
    (f,) = await collect(tb, 1)
    check_pfc(f, 5, 0x1234)


@cocotb.test()
async def test_generation_off_and_xoff_quanta_follow_priority(dut):
    """PFC_XOFF_WORDS = 0 turns generation off at any fill; with another priority and quanta the XOFF
    carries them."""
    tb = Bench(dut, prio=0)
    await tb.start()
    tb.set_fill(0xFFFF)
    await cycles(dut, 200)
    assert tb.sink.empty() and tb.count.counts["tx_xoff_inc"] == 0
    for prio, quanta in ((0, 1), (7, 0xFFFF), (2, 0x00FF)):
        tb.set_prio(prio)
        dut.pause_quanta.value = quanta
        dut.xoff_words.value = 10
        dut.xon_words.value = 5
        (f,) = await collect(tb, 1)
        check_pfc(f, prio, quanta)
        tb.set_fill(0)
        (f,) = await collect(tb, 1)
        check_pfc(f, prio, 0)
        dut.xoff_words.value = 0
        tb.set_fill(0xFFFF)
        await cycles(dut, 50)


@cocotb.test()
async def test_pause_pattern_inside_a_long_frame(dut):
    """A long data frame whose bytes at 2, 4 and 8 KiB hold a PAUSE frame (or, at 64 bits, at 256
    beats = 2 KiB) is not a PAUSE: only a frame's first bytes make it one. Frames up to a 9216-byte
    jumbo only."""
    tb = Bench(dut)
    await tb.start()
    rng = random.Random(4)
    pat = P.pause_frame(PEER, 0xFFFF)
    for size in (2048 + 64, 4096 + 64, 9216):
        f = bytearray(rng.randbytes(size))
        f[0:14] = MY_MAC.to_bytes(6, "big") + PEER.to_bytes(6, "big") + b"\x08\x00"
        for off in (2048, 4096, 8192):
            if off + 60 <= size:
                f[off:off + 60] = pat
        before = tb.count.snapshot()
        lat, n = await tb.pause_length(bytes(f))
        assert n == 0 and tb.count.delta(before) == {}, \
            f"{size}-byte frame with a PAUSE pattern inside paused {n} cycles, counted {tb.count.delta(before)}"


@cocotb.test()
async def test_lossless_priorities_each_their_own_time(dut):
    """Priorities 0, 3 and 5 lossless: a PFC frame naming all eight classes, each with its own time,
    pauses exactly 0, 3 and 5, each for its own time to the cycle; a later frame naming 5 alone with
    time 0 (its XON) ends 5's pause while 0 and 3 run on; a frame naming only lossy classes is ignored
    (but counted per priority, as every PFC frame is in rx_prio_pause_inc)."""
    tb = Bench(dut)
    await tb.start()
    mask = (1 << 0) | (1 << 3) | (1 << 5)
    tb.set_lossless(mask, 3)
    times = [40, 11, 12, 90, 13, 60, 14, 15]
    t0 = len(tb.vec_trace)
    await tb.rx.send(P.pfc_frame(PEER, 0xFF, times))
    await cycles(dut, P.pause_cycles(max(times), 128) + 20)
    assert {v & ~mask for v in tb.vec_trace[t0:]} == {0}, "a lossy priority was paused"
    starts = set()
    for p in (0, 3, 5):
        first, n = tb.run_length(p, t0)
        assert n == P.pause_cycles(times[p], 128), f"priority {p}: paused {n}, want {times[p]} quanta"
        starts.add(first)
    assert len(starts) == 1, f"the three pauses began on different cycles: {starts}"
    assert tb.count.counts["rx_pause_inc"] == 1
    # XON for 5 alone, halfway through.
    t0 = len(tb.vec_trace)
    await tb.rx.send(P.pfc_frame(PEER, 0xFF, [500] * 8))
    await cycles(dut, 100)
    await tb.rx.send(P.pfc_frame(PEER, 1 << 5, [0] * 8))
    await cycles(dut, 10)
    assert tb.vec_trace[-1] == (1 << 0) | (1 << 3), f"after 5's XON: paused {tb.vec_trace[-1]:#04x}"
    await tb.rx.send(P.pfc_frame(PEER, 0xFF & ~mask, [500] * 8))
    await cycles(dut, 10)
    assert tb.vec_trace[-1] == (1 << 0) | (1 << 3)
    await tb.rx.send(P.pfc_frame(PEER, mask, [0] * 8))
    await cycles(dut, 10)
    assert tb.vec_trace[-1] == 0, "XON for every lossless class left a pause"
    assert tb.count.counts["rx_pause_inc"] == 4, "a frame naming only lossy classes was counted"
    # Per priority, every PFC frame naming it counts, honoured or not (a mismatch shows).
    assert tb.prio_pause == [3, 3, 3, 3, 3, 4, 3, 3], f"rx_prio_pause_inc counts {tb.prio_pause}"


@cocotb.test()
async def test_watchdog_per_priority(dut):
    """Priorities 3 and 5 lossless, PFC_WATCHDOG_CYCLES = 300: a storm on 3 (a pause that never ends)
    trips the watchdog for 3 alone; while 3 ignores pause (recovery, 600 cycles) 5 still honours its
    pauses; a storm naming both afterwards trips each priority's watchdog on the same cycle, counted
    once."""
    tb = Bench(dut)
    await tb.start()
    wd, rec = 300, 600
    dut.watchdog_cycles.value = wd
    dut.recovery_cycles.value = rec
    tb.set_lossless((1 << 3) | (1 << 5), 3)
    lat, n = await tb.pause_length(P.pfc_frame(PEER, 1 << 3, [0, 0, 0, 0xFFFF]))
    assert wd <= n <= wd + 1, f"watchdog let 3's pause run {n} cycles"
    assert tb.count.counts["watchdog_inc"] == 1
    t0 = len(tb.vec_trace)
    await tb.rx.send(P.pfc_frame(PEER, (1 << 3) | (1 << 5), [0, 0, 0, 20, 0, 20]))
    await cycles(dut, P.pause_cycles(20, 128) + 20)
    first, n5 = tb.run_length(5, t0)
    assert n5 == P.pause_cycles(20, 128), f"priority 5 paused {n5} during 3's recovery"
    assert tb.run_length(3, t0) == (None, 0), "priority 3 honoured pause during its recovery"
    await cycles(dut, rec)
    t0 = len(tb.vec_trace)
    before = tb.count.snapshot()
    await tb.rx.send(P.pfc_frame(PEER, (1 << 3) | (1 << 5), [0, 0, 0, 0xFFFF, 0, 0xFFFF]))
    await cycles(dut, wd + 20)
    (f3, n3), (f5, n5) = tb.run_length(3, t0), tb.run_length(5, t0)
    assert f3 == f5 and wd <= n3 <= wd + 1 and n5 == n3, f"storm on both: 3 {f3}/{n3}, 5 {f5}/{n5}"
    assert tb.count.delta(before).get("watchdog_inc") == 1


@cocotb.test()
async def test_xoff_per_priority(dut):
    """Each lossless priority is paused from its own fill: with 1, 3 and 6 lossless, 3 over the
    mark sends XOFF for 3 alone; 6 over it too names 3 and 6; 3 back at the XON mark resumes 3 and
    names 6 still paused; a lossy priority's fill sends nothing; 6 leaving PFC_ENABLE while in XOFF
    is resumed; a refresh names every priority in XOFF; generation turned off resumes what it
    paused; TX_PRIOn_PAUSE counts the frames pausing n. With none lossless nothing is sent."""
    tb = Bench(dut, sink_backpressure=True)
    await tb.start()
    q = 0x0ABC
    tb.set_lossless((1 << 1) | (1 << 3) | (1 << 6), 3)
    dut.xoff_words.value = 10
    dut.xon_words.value = 5
    dut.pause_quanta.value = q
    tb.set_fill(9, 3)
    tb.set_fill(9, 6)
    await cycles(dut, 200)
    assert tb.sink.empty(), "XOFF below the mark"
    tb.set_fill(10, 3)
    (f,) = await collect(tb, 1)
    check_pfc(f, None, 0, times={3: q})
    tb.set_fill(12, 6)
    (f,) = await collect(tb, 1)
    check_pfc(f, None, 0, times={3: q, 6: q})
    tb.set_fill(0xFFFF, 4)
    await cycles(dut, 300)
    assert tb.sink.empty(), "a frame for a lossy priority's fill"
    tb.set_fill(5, 3)
    (f,) = await collect(tb, 1)
    check_pfc(f, None, 0, times={3: 0, 6: q})
    c = tb.count.counts
    assert (c["tx_xoff_inc"], c["tx_xon_inc"]) == (3, 1), f"XOFF/XON counts {c}"
    assert tb.tx_prio_pause == [0, 0, 0, 2, 0, 0, 2, 0], f"TX_PRIOn_PAUSE {tb.tx_prio_pause}"
    await cycles(dut, 300)
    assert tb.sink.empty(), "a frame with nothing changed"
    tb.set_lossless((1 << 1) | (1 << 3), 3)
    (f,) = await collect(tb, 1)
    check_pfc(f, None, 0, times={6: 0})
    # A refresh names every priority still in XOFF.
    tb.set_lossless((1 << 1) | (1 << 3) | (1 << 6), 3)
    tb.set_fill(10, 1)
    (f,) = await collect(tb, 1)
    check_pfc(f, None, 0, times={1: q, 6: q})
    dut.refresh_cycles.value = 300
    for f in await collect(tb, 2):
        check_pfc(f, None, 0, times={1: q, 6: q})
    dut.refresh_cycles.value = 0x8000
    # Generation off: both resume.
    dut.xoff_words.value = 0
    (f,) = await collect(tb, 1)
    check_pfc(f, None, 0, times={1: 0, 6: 0})
    tb.set_lossless(0, 3)
    dut.xoff_words.value = 10
    tb.set_fill(0xFFFF)
    await cycles(dut, 300)
    assert tb.sink.empty(), "XOFF with no lossless priority"
    assert tb.tx_prio_pause == [0, 3, 0, 2, 0, 0, 5, 0], f"TX_PRIOn_PAUSE {tb.tx_prio_pause}"
