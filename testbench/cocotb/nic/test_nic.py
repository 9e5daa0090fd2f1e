"""NicTop<64,8,11> (top/nic.rs): the whole 64-bit NIC core through its ports only.

Set up through the register port with the generated register map (testbench/rocenic_regs.py); MAC
receive and transmit streams are cocotbext-axi AxiStreamSource/AxiStreamSink; the DMA ports are a
host that accepts everything and must never be asked for anything here (no QP is configured, so no
frame of these tests may reach host memory). Counters are read back as registers and compared with what
model/frames.py's classify() and model/pfc.py say about the frames sent.
"""
import random
import sys
from pathlib import Path

import cocotb
from cocotb.triggers import RisingEdge, with_timeout
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource
from scapy.layers.l2 import ARP, Ether

from model import frames as F
from model import pfc as P
from tb.util import cycles, start

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # testbench/: the generated register map
import rocenic_regs as R  # noqa: E402

MY_MAC = 0x02A1B2C3D4E5
MY_IP = 0x0A000105
PEER_MAC = 0x02A1B2C3D4F0
PEER_IP = 0x0A000106
COUNTER_NAMES = [n for n, a in R.ACCESS.items() if a == "counter"]


class Nic:
    def __init__(self, dut):
        self.dut = dut
        for s in ("reg_wr_valid", "reg_rd_valid", "dma_rd_resp_valid", "rx_tvalid"):
            getattr(dut, s).value = 0
        dut.reg_wr_addr.value = 0
        dut.reg_wr_data.value = 0
        dut.reg_rd_addr.value = 0
        dut.dma_rd_resp_data.value = 0
        dut.dma_rd_resp_tag.value = 0
        dut.dma_rd_resp_last.value = 0
        dut.dma_rd_req_ready.value = 1
        dut.dma_wr_ready.value = 1
        self.src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "rx"), dut.clock, dut.reset)
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "tx"), dut.clock, dut.reset)
        self.dma_activity = []
        cocotb.start_soon(self._watch_dma())

    async def _watch_dma(self):
        dut = self.dut
        while True:
            await RisingEdge(dut.clock)
            if dut.dma_wr_valid.value == 1 or dut.dma_rd_req_valid.value == 1:
                self.dma_activity.append(int(dut.dma_wr_addr.value))

    async def write(self, addr, data):
        self.dut.reg_wr_addr.value = addr
        self.dut.reg_wr_data.value = data
        self.dut.reg_wr_valid.value = 1
        await RisingEdge(self.dut.clock)
        self.dut.reg_wr_valid.value = 0

    async def read(self, addr):
        dut = self.dut
        dut.reg_rd_addr.value = addr
        dut.reg_rd_valid.value = 1
        await RisingEdge(dut.clock)
        dut.reg_rd_valid.value = 0
        for _ in range(4):
            await RisingEdge(dut.clock)
            if dut.reg_rd_data_valid.value == 1:
                return int(dut.reg_rd_data.value)
        raise AssertionError(f"no read data for {addr:#x}")

    async def counters(self):
        return {n: await self.read(getattr(R, n)) for n in COUNTER_NAMES}

    async def bring_up(self):
        await start(self.dut, cycles=4)
        assert await self.read(R.ID) == R.ID_VALUE
        await self.write(R.MAC_LO, MY_MAC & 0xFFFFFFFF)
        await self.write(R.MAC_HI, MY_MAC >> 32)
        await self.write(R.IPV4, MY_IP)
        await self.write(R.CONTROL, 1)

    async def send(self, frame_list):
        for f in frame_list:
            await self.src.send(AxiStreamFrame(f))
        await self.src.wait()
        await cycles(self.dut, 60)


def diff(before, after):
    return {n: after[n] - before[n] for n in after if after[n] != before[n]}


@cocotb.test()
async def test_registers_reset_values_and_readback(dut):
    """Every register reads its table reset value after reset (DATAPATH_BYTES = 8 for this core), the
    register-block directory reads as generated, and read/write registers read back what was written."""
    nic = Nic(dut)
    await start(dut, cycles=4)
    for name, want in R.RESET.items():
        if name == "DATAPATH_BYTES":
            want = 8
        got = await nic.read(getattr(R, name))
        assert got == want, f"{name} @ {getattr(R, name):#x}: {got:#x} after reset, table says {want:#x}"
    for off, want in R.BLOCK_HEADER_WORDS:
        got = await nic.read(off)
        assert got == want, f"block header word @ {off:#x}: {got:#x}, expected {want:#x}"
    rng = random.Random(5)
    rw = ["MAC_LO", "IPV4", "DEST_MAC_LO", "DEST_IPV4", "UDP_SPORT", "PFC_QUANTUM_Q4",
          "PFC_WATCHDOG_RECOVERY", "PFC_PAUSE_QUANTA", "MR0_BASE_LO", "MR0_BASE_HI", "MR0_KEY", "QP_PD",
          "CNP_INTERVAL", "DCQCN_RATE_AI"]
    written = {}
    for name in rw:
        v = rng.getrandbits(32)
        if name in ("UDP_SPORT", "PFC_PAUSE_QUANTA"):
            v &= 0xFFFF
        written[name] = v
        await nic.write(getattr(R, name), v)
    for name, v in written.items():
        got = await nic.read(getattr(R, name))
        assert got == v, f"{name}: wrote {v:#x}, read {got:#x}"
    for name in ("ID", "VERSION"):
        await nic.write(getattr(R, name), 0x12345678)
        assert await nic.read(getattr(R, name)) == R.RESET[name], f"{name} is writable"


@cocotb.test()
async def test_answers_arp(dut):
    """An ARP request for the port's address (scapy-built) is answered on the MAC transmit stream with a
    reply scapy decodes as ours; RX_ARP_REQUESTS and TX_ARP_REPLIES count it; the receive buffer counts
    the frame as not RoCE; a request for another address gets nothing."""
    nic = Nic(dut)
    await nic.bring_up()
    before = await nic.counters()
    req = Ether(dst="ff:ff:ff:ff:ff:ff", src="02:50:50:50:50:ab") / ARP(
        op=1, hwsrc="02:50:50:50:50:ab", psrc="10.0.1.254", pdst="10.0.1.5")
    raw = bytes(req)
    raw += bytes(60 - len(raw))
    await nic.send([raw])
    rep = await with_timeout(nic.sink.recv(), 4000, "ns")
    p = Ether(bytes(rep.tdata))
    assert p.dst == "02:50:50:50:50:ab" and p.src == "02:a1:b2:c3:d4:e5", p.summary()
    a = p[ARP]
    assert (a.op, a.hwsrc, a.psrc, a.hwdst, a.pdst) == (2, "02:a1:b2:c3:d4:e5", "10.0.1.5",
                                                        "02:50:50:50:50:ab", "10.0.1.254"), a.summary()
    # Another address: no reply.
    other = bytes(Ether(dst="ff:ff:ff:ff:ff:ff", src="02:50:50:50:50:ab") / ARP(
        op=1, hwsrc="02:50:50:50:50:ab", psrc="10.0.1.254", pdst="10.0.1.6"))
    await nic.send([other + bytes(60 - len(other))])
    await cycles(dut, 50)
    assert nic.sink.empty(), "answered an ARP request for another address"
    d = diff(before, await nic.counters())
    assert d == {"RX_FRAMES": 2, "RX_DROP_NOT_ROCE": 2, "RX_ARP_REQUESTS": 1, "TX_ARP_REPLIES": 1}, d
    assert not nic.dma_activity


@cocotb.test()
async def test_bad_frames_dropped_and_counted(dut):
    """RoCE frames with a bad ICRC, a bad IPv4 header checksum, a wrong UDP port, a runt and a truncated
    header are each dropped and counted in their own counter; none reaches the receive engine (no DMA,
    nothing transmitted). A good RoCE frame for a QP that is not set up is taken by the buffer and
    then dropped by the receive engine (RX_DROP_QP)."""
    nic = Nic(dut)
    await nic.bring_up()
    rng = random.Random(8)
    kw = dict(dst_mac=MY_MAC, src_mac=PEER_MAC, src_ip=PEER_IP, dst_ip=MY_IP)
    goodf = F.roce_frame_of_len(300, rng, **kw)
    bad_icrc = bytearray(goodf)
    bad_icrc[200] ^= 0x10
    cases = [
        ("bad ICRC", bytes(bad_icrc), {"RX_ICRC_ERRORS": 1}),
        ("bad IPv4 checksum", F.roce_frame_of_len(120, rng, ip_csum=0x1234, **kw), {"RX_IP_CHECKSUM_ERRORS": 1}),
        ("UDP port 4792", F.roce_frame_of_len(120, rng, udp_dport=4792, **kw), {"RX_DROP_NOT_ROCE": 1}),
        ("runt (40 bytes)", goodf[:40], {"RX_DROP_NOT_ROCE": 1}),
        ("truncated after the BTH", goodf[:70], {"RX_DROP_NOT_ROCE": 1}),
    ]
    for name, f, want in cases:
        verdict = F.classify(f, MY_MAC, MY_IP)
        assert verdict != F.ROCE, name
        before = await nic.counters()
        await nic.send([f])
        d = diff(before, await nic.counters())
        assert d == dict(want, RX_FRAMES=1), f"{name} ({verdict}): counters moved {d}, expected {want}"
    assert nic.sink.empty(), "a dropped frame caused a transmission"
    before = await nic.counters()
    await nic.send([goodf])
    await cycles(dut, 200)
    d = diff(before, await nic.counters())
    assert d == {"RX_FRAMES": 1, "RX_ROCE_PACKETS": 1, "RX_DROP_QP": 1}, d
    assert not nic.dma_activity, f"DMA activity for dropped frames: {nic.dma_activity[:4]}"


@cocotb.test()
async def test_pfc_frames_counted_and_pause_timed(dut):
    """A PFC frame for PFC_PRIORITY (3) is counted in RX_PAUSE_FRAMES and RX_PAUSE_DURATION grows by the
    pause's cycles (quanta x PFC_QUANTUM_Q4 / 16); one for another class is not counted; an 802.3x
    PAUSE is; each frame also counts in RX_FRAMES as not RoCE."""
    nic = Nic(dut)
    await nic.bring_up()
    await nic.write(R.PFC_QUANTUM_Q4, 64)  # 4 cycles a quantum
    before = await nic.counters()
    await nic.send([P.pfc_frame(PEER_MAC, 1 << 3, [0, 0, 0, 50])])
    await cycles(dut, 300)
    d = diff(before, await nic.counters())
    assert d == {"RX_FRAMES": 1, "RX_DROP_NOT_ROCE": 1, "RX_PAUSE_FRAMES": 1,
                 "RX_PAUSE_DURATION": P.pause_cycles(50, 64)}, d
    before = await nic.counters()
    await nic.send([P.pfc_frame(PEER_MAC, 0xF7, [900] * 8)])
    await cycles(dut, 100)
    d = diff(before, await nic.counters())
    assert d == {"RX_FRAMES": 1, "RX_DROP_NOT_ROCE": 1}, d
    before = await nic.counters()
    await nic.send([P.pause_frame(PEER_MAC, 20)])
    await cycles(dut, 150)
    d = diff(before, await nic.counters())
    assert d == {"RX_FRAMES": 1, "RX_DROP_NOT_ROCE": 1, "RX_PAUSE_FRAMES": 1,
                 "RX_PAUSE_DURATION": P.pause_cycles(20, 64)}, d


@cocotb.test()
async def test_xoff_xon_from_receive_buffer_fill(dut):
    """With PFC_XOFF_WORDS = 64 and PFC_XON_WORDS = 8, a 1500-byte RoCE frame filling the receive buffer
    makes the NIC send XOFF for its priority with PFC_PAUSE_QUANTA, then XON once the receive engine
    has freed the buffer; both 60-byte PFC frames decode right and are counted."""
    nic = Nic(dut)
    await nic.bring_up()
    await nic.write(R.PFC_PRIORITY, 5)
    await nic.write(R.PFC_PAUSE_QUANTA, 0x0777)
    await nic.write(R.PFC_XON_WORDS, 8)
    await nic.write(R.PFC_XOFF_WORDS, 64)
    rng = random.Random(9)
    f = F.roce_frame_of_len(1500, rng, dst_mac=MY_MAC, src_mac=PEER_MAC, src_ip=PEER_IP, dst_ip=MY_IP)
    await nic.send([f])
    got = []
    for _ in range(2):
        got.append(P.decode(bytes((await with_timeout(nic.sink.recv(), 20000, "ns")).tdata)))
    for d, quanta in zip(got, (0x0777, 0)):
        assert (d["dst"], d["src"], d["ethertype"], d["opcode"], d["cev"]) == (
            P.MAC_CONTROL_DST, MY_MAC, 0x8808, P.OP_PFC, 1 << 5), d
        assert d["times"] == [0] * 5 + [quanta] + [0, 0] and d["length"] == 60, d
    c = await nic.counters()
    assert c["TX_PFC_XOFF"] == 1 and c["TX_PFC_XON"] == 1, (c["TX_PFC_XOFF"], c["TX_PFC_XON"])
