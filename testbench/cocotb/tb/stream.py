"""An AXI-Stream stage under test: a cocotbext-axi source on its `in_*` ports and a sink on its `out_*`
ports, with seeded random backpressure on both."""
import random

from cocotb.triggers import with_timeout
from cocotbext.axi import AxiStreamBus, AxiStreamSink, AxiStreamSource


class StreamStage:
    def __init__(self, dut, seed, pause=0.3):
        self.dut = dut
        self.src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "in"), dut.clock, dut.reset)
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "out"), dut.clock, dut.reset)
        self.set_pause(seed, pause)

    def set_pause(self, seed, pause):
        """Each side pauses a cycle with probability `pause` (0: never)."""
        if pause:
            rng = random.Random(seed)
            self.src.set_pause_generator(iter(lambda: rng.random() < pause, None))
            self.sink.set_pause_generator(iter(lambda: rng.random() < pause, None))

    async def recv(self):
        f = await with_timeout(self.sink.recv(), 200, "us")
        return bytes(f.tdata)
