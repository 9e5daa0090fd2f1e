"""The engine side of the receive buffer (net/rx_buffer.rs), as the receive engine drives it: while
`pending`, take the frame's length (low 16 bits) and priority (bits 20..22) from `meta`, read its words
from `head` on through the synchronous read port (`rd_addr` -> `rd_data` one clock later), then `pop`."""
import random

import cocotb
from cocotb.triggers import RisingEdge


class BufferReader:
    def __init__(self, dut, gap=None, seed=1):
        self.dut = dut
        self.nb = len(dut.rx_tkeep)
        self.abits = len(dut.head)
        self.frames = []
        self.prios = []            # each delivered frame's priority, from its descriptor
        self.hold = False          # True: start no new frame (the engine is stalled)
        self.busy = False          # a frame is being read
        self.gap = gap             # None, or callable(rng) -> idle cycles before each frame
        self.rng = random.Random(seed)
        dut.pop.value = 0
        dut.rd_addr.value = 0
        cocotb.start_soon(self._run())

    async def _run(self):
        dut, clk, ring = self.dut, self.dut.clock, 1 << self.abits
        while True:
            await RisingEdge(clk)
            if self.hold or dut.pending.value != 1:
                continue
            if self.gap:
                for _ in range(self.gap(self.rng)):
                    await RisingEdge(clk)
                if self.hold:
                    continue
            self.busy = True
            head = int(dut.head.value)
            meta = int(dut.meta.value)
            length = meta & 0xFFFF
            need = -(-length // self.nb)
            # Pipelined reads: the address set after edge k is sampled at edge k+1, and its data is
            # what the next edge (k+2) sees.
            issued, words = [], []
            a = 0
            while len(words) < need:
                if len(issued) >= 2:
                    words.append(int(dut.rd_data.value))
                    issued.pop(0)
                if a < need:
                    dut.rd_addr.value = (head + a) % ring
                    issued.append(a)
                    a += 1
                else:
                    issued.append(None)
                await RisingEdge(clk)
            data = b"".join(w.to_bytes(self.nb, "little") for w in words)
            self.frames.append(data[:length])
            self.prios.append((meta >> 20) & 7)
            dut.pop.value = 1
            await RisingEdge(clk)
            dut.pop.value = 0
            # head and pending show the pop from the second edge on.
            await RisingEdge(clk)
            self.busy = False
