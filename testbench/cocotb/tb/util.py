"""Small cocotb helpers: clock and reset, reading ports as ints, counting one-cycle pulse outputs."""
import cocotb
from cocotb.clock import Clock
from cocotb.triggers import RisingEdge, ReadOnly, Timer

CLOCK_NS = 4


def val(sig) -> int:
    """A port's value as an unsigned int (X/Z fail loudly: a port that is X is a bench error)."""
    return int(sig.value)


async def start(dut, reset: bool = True, cycles: int = 2):
    """Start `dut.clock` and pulse `dut.reset` (when the unit has one) for `cycles` cycles."""
    cocotb.start_soon(Clock(dut.clock, CLOCK_NS, unit="ns").start())
    if reset and hasattr(dut, "reset"):
        dut.reset.value = 1
        for _ in range(cycles):
            await RisingEdge(dut.clock)
        dut.reset.value = 0
    await RisingEdge(dut.clock)


async def cycles(dut, n: int):
    for _ in range(n):
        await RisingEdge(dut.clock)


class PulseCounter:
    """Counts, at every rising clock edge, the cycles each named one-bit output is high (the NIC's
    counter increments are such pulses); `log` keeps (cycle, name) for the first pulses."""

    def __init__(self, dut, names):
        self.dut = dut
        self.sigs = [(n, getattr(dut, n)) for n in names]
        self.counts = {n: 0 for n in names}
        self.cycle = 0
        self.events = []
        cocotb.start_soon(self._run())

    async def _run(self):
        clk = self.dut.clock
        while True:
            await RisingEdge(clk)
            self.cycle += 1
            for n, s in self.sigs:
                if s.value == 1:
                    self.counts[n] += 1
                    self.events.append((self.cycle, n))

    def snapshot(self):
        return dict(self.counts)

    def delta(self, before):
        return {n: self.counts[n] - before[n] for n in self.counts if self.counts[n] != before[n]}
