"""Driver for the observe-only receive ports of the Ethernet-control units (ARP, NDP, PFC): `rx_tdata`,
`rx_tlast`, `rx_fire` (a beat is taken), `rx_tuser` (with the last beat: the MAC marks the frame bad,
a bad FCS) and, where the unit has it, `rx_vid` (with the last beat: the VID the tag stage took off, 0
untagged; junk on the other beats), with no tkeep: lanes past a frame's end carry junk, as a MAC may
leave them."""
import random

from cocotb.triggers import RisingEdge


class ObservedRx:
    def __init__(self, dut, seed=5):
        self.dut = dut
        self.nb = len(dut.rx_tdata) // 8
        self.rng = random.Random(seed)
        dut.rx_fire.value = 0
        dut.rx_tlast.value = 0
        dut.rx_tdata.value = 0
        dut.rx_tuser.value = 0
        self.has_vid = hasattr(dut, "rx_vid")
        if self.has_vid:
            dut.rx_vid.value = 0

    async def send(self, frame: bytes, gaps: bool = False, bad: bool = False, vid: int = 0):
        """Drive one frame, marked bad with its last beat if `bad`, with `vid` as its VID; returns after
        the edge that takes its last beat."""
        dut, nb = self.dut, self.nb
        n = -(-len(frame) // nb)
        for i in range(n):
            if gaps:
                while self.rng.random() < 0.3:
                    dut.rx_fire.value = 0
                    dut.rx_tdata.value = self.rng.getrandbits(8 * nb)
                    await RisingEdge(dut.clock)
            chunk = frame[i * nb:(i + 1) * nb]
            junk = self.rng.randbytes(nb - len(chunk))
            dut.rx_tdata.value = int.from_bytes(chunk + junk, "little")
            dut.rx_tlast.value = int(i == n - 1)
            dut.rx_tuser.value = int(bad and i == n - 1)
            if self.has_vid:
                dut.rx_vid.value = vid if i == n - 1 else self.rng.getrandbits(12)
            dut.rx_fire.value = 1
            await RisingEdge(dut.clock)
        dut.rx_fire.value = 0
        dut.rx_tlast.value = 0
        dut.rx_tuser.value = 0
