"""NicTop<64,8,11> (top/nic.rs): the whole 64-bit NIC core through its ports only, built with 64 QPs and MRs
(emit-unit's qp_log 6, the ECP5 build's size; benches.py QP_LOG).

Set up through the register port with the generated register map (testbench/rocenic_regs.py); MAC
receive and transmit streams are cocotbext-axi AxiStreamSource/AxiStreamSink; the DMA ports are a
host that accepts everything and must never be asked for anything here (no QP is configured, so no
frame of these tests may reach host memory). Counters are read back as registers and compared with what
model/frames.py's classify() and model/pfc.py say about the frames sent. The congestion tests set up the
QP through the registers as the driver does (zero-length WRITEs and CNPs need no host memory) and check
the notification point's CNPs and the reaction point's rate against model/roce.py and model/dcqcn.py.
"""
import random
import sys
from pathlib import Path

import cocotb
from cocotb.triggers import RisingEdge, with_timeout
from cocotb.utils import get_sim_time
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource
from scapy.contrib.roce import BTH, CNPPadding
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import ARP, Ether

from model import dcqcn as D
from model import frames as F
from model import pfc as P
from model import roce as M
from tb.util import CLOCK_NS, cycles, start
QP_TABLE_LOG = 6        # the QP table this bench builds: 64 QPs (benches.py QP_LOG; the 64-bit core's own is 13)

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # testbench/: the generated register map
import rocenic_regs as R  # noqa: E402

# A register access waits at most the counter RAM's sweep (a counter write: at most 144 cycles); more is a hang.
REG_WAIT_CYCLES = 256
MY_MAC = 0x02A1B2C3D4E5
MY_IP = 0x0A000105
PEER_MAC = 0x02A1B2C3D4F0
PEER_IP = 0x0A000106
COUNTER_NAMES = [n for n, a in R.ACCESS.items() if a == "counter"]

# Documented RTL bugs (README.md, Findings): these tests run as strict xfail until the RTL is fixed.
KNOWN_RTL_BUGS = {}


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
        dut.warp.value = 0
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
        # Held until taken: a counter write waits for the counter RAM's sweep.
        for _ in range(REG_WAIT_CYCLES):
            await RisingEdge(self.dut.clock)
            if self.dut.reg_wr_ready.value == 1:
                break
        else:
            raise AssertionError(f"write of {addr:#x} not taken")
        self.dut.reg_wr_valid.value = 0

    async def read(self, addr):
        dut = self.dut
        dut.reg_rd_addr.value = addr
        dut.reg_rd_valid.value = 1
        await RisingEdge(dut.clock)
        dut.reg_rd_valid.value = 0
        # One cycle for most registers; a counter's two or three (in the first sweep after reset, when it reaches it).
        for _ in range(REG_WAIT_CYCLES):
            await RisingEdge(dut.clock)
            if dut.reg_rd_data_valid.value == 1:
                v = dut.reg_rd_data.value
                if not v.is_resolvable:
                    raise AssertionError(f"register {addr:#x} reads {v} (X/Z bits)")
                return int(v)
        raise AssertionError(f"no read data for {addr:#x}")

    async def counters(self):
        return {n: await self.read(getattr(R, n)) for n in COUNTER_NAMES}

    async def bring_up(self):
        await start(self.dut, cycles=4)
        assert await self.read(R.ID) == R.ID_VALUE
        await self.write(R.MAC_LO, MY_MAC & 0xFFFFFFFF)
        await self.write(R.MAC_HI, MY_MAC >> 32)
        await self.write(R.IPV4, MY_IP)
        # As the driver opens the device: every QP of the table to RESET (block RAM starts undefined in
        # simulation), one QP per cycle.
        await self.write(R.QP_CMD, 16)
        for _ in range(2 ** QP_TABLE_LOG // 100 + 20):
            if await self.read(R.QP_CMD) == 0:
                break
            await cycles(self.dut, 100)
        else:
            raise AssertionError("QP_CMD CLEAR not done")
        await self.write(R.CONTROL, 1)

    async def send(self, frame_list):
        for f in frame_list:
            await self.src.send(AxiStreamFrame(f))
        await self.src.wait()
        await cycles(self.dut, 60)


def diff(before, after):
    # QP_CONTEXT_SWITCHES depends on which QP was current before; the many-QP co-simulation checks it.
    return {n: after[n] - before[n] for n in after if after[n] != before[n] and n != "QP_CONTEXT_SWITCHES"}


@cocotb.test()
async def test_registers_reset_values_and_readback(dut):
    """Every register reads its table reset value after reset (DATAPATH_BYTES = 8 for this core), the
    register-block directory reads as generated, and read/write registers read back what was written."""
    nic = Nic(dut)
    await start(dut, cycles=4)
    for name, want in R.RESET.items():
        if name == "DATAPATH_BYTES":
            want = 8
        if name in ("QP_TABLE_LOG", "MR_TABLE_LOG"):
            want = QP_TABLE_LOG
        got = await nic.read(getattr(R, name))
        assert got == want, f"{name} @ {getattr(R, name):#x}: {got:#x} after reset, table says {want:#x}"
    for off, want in R.BLOCK_HEADER_WORDS:
        got = await nic.read(off)
        assert got == want, f"block header word @ {off:#x}: {got:#x}, expected {want:#x}"
    rng = random.Random(5)
    rw = ["MAC_LO", "IPV4", "DEST_MAC_LO", "DEST_IPV4", "UDP_SPORT", "PFC_QUANTUM_Q4",
          "PFC_WATCHDOG_RECOVERY", "PFC_PAUSE_QUANTA", "MR_BASE_LO", "MR_BASE_HI", "MR_KEY", "QP_PD",
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
    assert d == {"RX_FRAMES": 2, "RX_DROP_NOT_ROCE": 2, "RX_DROP_DST_MAC": 2, "RX_ARP_REQUESTS": 1, "TX_ARP_REPLIES": 1}, d
    assert not nic.dma_activity


@cocotb.test()
async def test_bad_frames_dropped_and_counted(dut):
    """RoCE frames with a bad ICRC, a bad IPv4 header checksum, a wrong UDP port, a runt and a truncated
    header are each dropped and counted in their own counter (not-RoCE drops also by reason); none reaches the receive engine (no DMA,
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
        ("UDP port 4792", F.roce_frame_of_len(120, rng, udp_dport=4792, **kw),
         {"RX_DROP_NOT_ROCE": 1, "RX_DROP_UDP_PORT": 1}),
        ("runt (40 bytes)", goodf[:40], {"RX_DROP_NOT_ROCE": 1, "RX_DROP_LENGTH": 1}),
        ("truncated after the BTH", goodf[:70], {"RX_DROP_NOT_ROCE": 1, "RX_DROP_LENGTH": 1}),
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
    """A PFC frame for the lossless priority (PFC_ENABLE 0x08: 3) is counted in RX_PAUSE_FRAMES and
    RX_PRIO3_PAUSE, and RX_PAUSE_DURATION grows by the pause's cycles (quanta x PFC_QUANTUM_Q4 / 16); one
    for the other classes only in their RX_PRIOn_PAUSE; an 802.3x PAUSE in RX_PAUSE_FRAMES; each frame
    also counts in RX_FRAMES as not RoCE."""
    nic = Nic(dut)
    await nic.bring_up()
    await nic.write(R.PFC_QUANTUM_Q4, 64)  # 4 cycles a quantum
    before = await nic.counters()
    await nic.send([P.pfc_frame(PEER_MAC, 1 << 3, [0, 0, 0, 50])])
    await cycles(dut, 300)
    d = diff(before, await nic.counters())
    assert d == {"RX_FRAMES": 1, "RX_DROP_NOT_ROCE": 1, "RX_DROP_DST_MAC": 1, "RX_PAUSE_FRAMES": 1,
                 "RX_PAUSE_DURATION": P.pause_cycles(50, 64), "RX_PRIO3_PAUSE": 1}, d
    before = await nic.counters()
    await nic.send([P.pfc_frame(PEER_MAC, 0xF7, [900] * 8)])
    await cycles(dut, 100)
    d = diff(before, await nic.counters())
    # Not honoured (no lossless class named), but counted per priority: a PFC mismatch shows.
    assert d == {"RX_FRAMES": 1, "RX_DROP_NOT_ROCE": 1, "RX_DROP_DST_MAC": 1,
                 **{f"RX_PRIO{i}_PAUSE": 1 for i in range(8) if i != 3}}, d
    before = await nic.counters()
    await nic.send([P.pause_frame(PEER_MAC, 20)])
    await cycles(dut, 150)
    d = diff(before, await nic.counters())
    assert d == {"RX_FRAMES": 1, "RX_DROP_NOT_ROCE": 1, "RX_DROP_DST_MAC": 1, "RX_PAUSE_FRAMES": 1,
                 "RX_PAUSE_DURATION": P.pause_cycles(20, 64)}, d


@cocotb.test()
async def test_xoff_xon_from_receive_buffer_fill(dut):
    """With PFC_XOFF_WORDS = 64 and PFC_XON_WORDS = 8 and priorities 2 and 5 lossless (PFC_ENABLE), a
    1500-byte RoCE frame at DSCP 40 (priority 5 under the default map) filling the receive buffer makes
    the NIC send XOFF for priority 5 alone with PFC_PAUSE_QUANTA, then XON for 5 once the receive
    engine has freed the buffer; both 60-byte PFC frames decode right and are counted, TX_PRIO5_PAUSE
    once. The same frame at DSCP 0 (priority 0, lossy) sends nothing."""
    nic = Nic(dut)
    await nic.bring_up()
    await nic.write(R.PFC_ENABLE, (1 << 2) | (1 << 5))
    await nic.write(R.PFC_PAUSE_QUANTA, 0x0777)
    await nic.write(R.PFC_XON_WORDS, 8)
    await nic.write(R.PFC_XOFF_WORDS, 64)
    rng = random.Random(9)
    f = F.roce_frame_of_len(1500, rng, dst_mac=MY_MAC, src_mac=PEER_MAC, src_ip=PEER_IP, dst_ip=MY_IP,
                            tos=40 << 2)
    await nic.send([f])
    got = []
    for _ in range(2):
        got.append(P.decode(bytes((await with_timeout(nic.sink.recv(), 20000, "ns")).tdata)))
    for d, quanta in zip(got, (0x0777, 0)):
        assert (d["dst"], d["src"], d["ethertype"], d["opcode"], d["cev"]) == (
            P.MAC_CONTROL_DST, MY_MAC, 0x8808, P.OP_PFC, 1 << 5), d
        assert d["times"] == [0, 0, 0, 0, 0, quanta, 0, 0] and d["length"] == 60, d
    c = await nic.counters()
    assert c["TX_PFC_XOFF"] == 1 and c["TX_PFC_XON"] == 1, (c["TX_PFC_XOFF"], c["TX_PFC_XON"])
    per = [c[f"TX_PRIO{i}_PAUSE"] for i in range(8)]
    assert per == [0, 0, 0, 0, 0, 1, 0, 0], per
    f0 = F.roce_frame_of_len(1500, rng, dst_mac=MY_MAC, src_mac=PEER_MAC, src_ip=PEER_IP, dst_ip=MY_IP)
    await nic.send([f0])
    await cycles(dut, 2000)
    assert nic.sink.empty(), "PFC for a lossy priority's frame"
    c = await nic.counters()
    assert c["TX_PFC_XOFF"] == 1 and c["RX_ROCE_PACKETS"] == 2, c


# --- Congestion notification (RoCEv2 annex A17.9) and DCQCN --------------------------------------------

QPN = 0x11             # the driver's QP number (driver/src/verbs/qp.rs QPN)
DEST_QPN = 0xA5B6C7    # the peer's QP
RQ_PSN = 0xFFFFFE      # the responder's first expected PSN: the PSNs of these tests wrap through 0
SQ_PSN = 0x000100
UDP_SPORT = 0xD00D
CNP_INTERVAL = 200


def now_cycles():
    return int(get_sim_time(unit="ns")) // CLOCK_NS


async def qp_cmd(nic, cmd):
    """QP_CMD on the QP that QPN selects; the core clears it when done (a few cycles)."""
    await nic.write(R.QP_CMD, cmd)
    for _ in range(50):
        if await nic.read(R.QP_CMD) == 0:
            return
    raise AssertionError(f"QP_CMD {cmd} not taken")


async def query(nic, reg):
    """A value of the QP's context (QP_STATE, RQ_PSN, SQ_PSN, RQ_CI, SQ_CI) through QP_CMD QUERY."""
    await nic.write(R.QPN, QPN)
    await qp_cmd(nic, 8)
    return await nic.read(reg)


async def setup_qp(nic, state=3):
    """A QP brought from RESET to RTR (state 2) or RTS (3) the way the driver does it: the QP window
    registers for QPN, then QP_CMD: MODIFY | INIT_RQ | INIT_SQ at creation, MODIFY at INIT,
    MODIFY | INIT_RQ at RTR (RQ_PSN), MODIFY | INIT_SQ at RTS (SQ_PSN, timers)."""
    w = nic.write
    await w(R.QPN, QPN)
    await w(R.QP_STATE, 0)
    await w(R.QP_PD, 1)
    for ring, iova, log in (("SQ", 0x10000, 4), ("RQ", 0x20000, 4), ("CQ", 0x30000, 5)):
        await w(getattr(R, f"{ring}_BASE_LO"), iova)
        await w(getattr(R, f"{ring}_BASE_HI"), 0)
        await w(getattr(R, f"{ring}_LOG_SIZE"), log)
        for idx in ("PI", "CI"):
            await w(getattr(R, f"{ring}_{idx}"), 0)
    await qp_cmd(nic, 7)
    await w(R.QP_ACCESS, 0xE)  # REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC, as the driver's default
    await w(R.QP_STATE, 1)
    await qp_cmd(nic, 1)
    await w(R.PMTU, 10)
    await w(R.DEST_QPN, DEST_QPN)
    await w(R.RQ_PSN, RQ_PSN)
    await w(R.DEST_MAC_LO, PEER_MAC & 0xFFFFFFFF)
    await w(R.DEST_MAC_HI, PEER_MAC >> 32)
    await w(R.DEST_IPV4, PEER_IP)
    await w(R.UDP_SPORT, UDP_SPORT)
    await w(R.MIN_RNR_TIMER, 12)
    await w(R.QP_STATE, 2)
    await qp_cmd(nic, 3)
    if state == 3:
        await w(R.SQ_PSN, SQ_PSN)
        await w(R.ACK_TIMEOUT, 100000)
        await w(R.RETRY_CNT, 7)
        await w(R.RNR_RETRY, 7)
        await w(R.QP_STATE, 3)
        await qp_cmd(nic, 5)
    assert await query(nic, R.QP_STATE) == state


def write0(psn, ecn, dest_qp=QPN):
    """A zero-length RDMA WRITE ONLY (RETH DMA length 0: no memory access) with AckReq, from the peer."""
    return M.rc_frame(MY_MAC, PEER_MAC, PEER_IP, MY_IP, M.OP_WRITE_ONLY, dest_qp, psn,
                      ext=M.reth(0x1234_5678_9ABC_DEF0, 0x77, 0), ackreq=True, ecn=ecn)


def check_sent(raw: bytes, opcode: int):
    """A frame the NIC sent for its QP: the hand decode (model/roce.py) and scapy's RoCE dissector
    (scapy.contrib.roce, its own ICRC code) must both find every field right. Returns the decode."""
    d = M.decode(raw)
    where = f"sent frame {raw.hex()}"
    assert (d["dst"], d["src"], d["ethertype"]) == (PEER_MAC, MY_MAC, 0x0800), where
    assert (d["vihl"], d["proto"], d["src_ip"], d["dst_ip"]) == (0x45, 17, MY_IP, PEER_IP), where
    assert d["ip_csum_ok"], f"IPv4 header checksum wrong: {where}"
    assert d["ecn"] != M.ECN_CE, f"the NIC sent a CE-marked packet: {where}"
    assert (d["udp_dport"], d["udp_sport"]) == (F.ROCE_PORT, UDP_SPORT), where
    assert d["udp_len"] == d["ip_len"] - 20 and d["len"] == max(60, 14 + d["ip_len"]), where
    assert d["icrc_ok"], f"ICRC wrong: {where}"
    assert (d["opcode"], d["dest_qp"], d["pkey"], d["tver"]) == (opcode, DEST_QPN, 0xFFFF, 0), where
    p = Ether(raw)
    b = p[BTH]
    assert p[IP].dst == "10.0.1.6" and p[UDP].dport == 4791 and b.opcode == opcode and b.dqpn == DEST_QPN, where
    ip_end = 14 + d["ip_len"]
    assert b.compute_icrc(None) == raw[ip_end - 4:ip_end], f"scapy's ICRC disagrees: {where}"
    return d


def check_ack(d, psn, msn):
    assert (d["psn"], d["becn"], d["fecn"], d["ackreq"], d["padcnt"]) == (psn, 0, 0, 0, 0), d
    # QP_DSCP after reset (0), ECT(0) (TX_ECN after reset).
    assert (d["dscp"], d["ecn"]) == (R.RESET["QP_DSCP"], M.ECN_ECT0), d
    assert len(d["rest"]) == 4, d  # AETH only
    syndrome, got_msn = d["rest"][0], int.from_bytes(d["rest"][1:4], "big")
    assert syndrome & 0xE0 == 0 and got_msn == msn, f"ACK AETH syndrome {syndrome:#x} MSN {got_msn}: {d}"


def check_cnp(d, raw):
    """Annex A17.9.3: opcode 0x81, BECN 1, PSN 0, no AckReq, 16 reserved zero bytes after the BTH."""
    assert (d["becn"], d["fecn"], d["ackreq"], d["psn"], d["padcnt"], d["se"]) == (1, 0, 0, 0, 0, 0), d
    # CNPs carry CNP_DSCP (48 after reset, a high-priority class), ECT(0).
    assert (d["dscp"], d["ecn"]) == (R.RESET["CNP_DSCP"], M.ECN_ECT0) == (48, M.ECN_ECT0), d
    assert d["rest"] == bytes(16) and d["ip_len"] == 20 + 8 + 12 + 16 + 4, d
    b = Ether(raw)[BTH]
    assert b.becn == 1 and CNPPadding in b and b[CNPPadding].reserved1 == 0 == b[CNPPadding].reserved2


async def recv_sent(nic, n, timeout_ns=20000):
    """The next n frames from the MAC transmit stream, as bytes."""
    return [bytes((await with_timeout(nic.sink.recv(), timeout_ns, "ns")).tdata) for _ in range(n)]


async def expect_nothing_more(nic, wait=300):
    await cycles(nic.dut, wait)
    assert nic.sink.empty(), f"unexpected frame sent: {bytes(nic.sink.recv_nowait().tdata).hex()}"


@cocotb.test()
async def test_ce_marked_write_gets_ack_and_cnp(dut):
    """Notification point. With the QP in RTS and CNP_INTERVAL = 200 cycles: a zero-length RDMA WRITE ONLY
    (AckReq, ECN = CE) at the expected PSN is ACKed (opcode 0x11, its PSN, AETH ACK, MSN 1) and answered
    with a CNP (opcode 0x81 to DEST_QPN, BECN, PSN 0, 16 reserved zero bytes, right IPv4 checksum and
    ICRC, IPv4/UDP 4791 from the port to DEST_MAC/DEST_IPV4 with UDP_SPORT); ECN_MARKED_ROCE_PACKETS = 1
    and NP_CNP_SENT = 1. A second CE packet within the interval is ACKed with no CNP (marked 2, CNPs 1);
    one after the interval gets a CNP again (3, 2); an ECT(0) packet and a CE packet for another QP get
    no CNP and are not counted as marked. No DMA at all (zero-length writes)."""
    nic = Nic(dut)
    await nic.bring_up()
    await setup_qp(nic, 3)
    await nic.write(R.CNP_INTERVAL, CNP_INTERVAL)
    before = await nic.counters()
    psn = RQ_PSN

    # 1. CE-marked: ACK + CNP.
    await nic.send([write0(psn, M.ECN_CE)])
    t1 = now_cycles()
    sent = await recv_sent(nic, 2)
    ops = sorted(M.decode(r)["opcode"] for r in sent)
    assert ops == [M.OP_ACK, M.OP_CNP], f"expected an ACK and a CNP, got opcodes {[hex(o) for o in ops]}"
    for raw in sent:
        d = check_sent(raw, M.decode(raw)["opcode"])
        if d["opcode"] == M.OP_ACK:
            check_ack(d, psn, 1)
        else:
            check_cnp(d, raw)
    await expect_nothing_more(nic, 20)

    # 2. Another CE-marked packet within CNP_INTERVAL of the first: ACK only.
    psn = (psn + 1) & 0xFFFFFF
    await nic.send([write0(psn, M.ECN_CE)])
    t2 = now_cycles()
    assert t2 - t1 < CNP_INTERVAL - 20, f"bench: second packet {t2 - t1} cycles after the first"
    (raw,) = await recv_sent(nic, 1)
    check_ack(check_sent(raw, M.OP_ACK), psn, 2)
    await expect_nothing_more(nic, 100)
    d = diff(before, await nic.counters())
    assert d == {"RX_FRAMES": 2, "RX_ROCE_PACKETS": 2, "TX_FRAMES": 3, "TX_ACKS": 2,
                 "ECN_MARKED_ROCE_PACKETS": 2, "NP_CNP_SENT": 1}, d

    # 3. After the interval (the counter reads alone take longer): a CE packet gets a CNP again.
    await cycles(dut, CNP_INTERVAL)
    psn = (psn + 1) & 0xFFFFFF
    assert psn == 0
    await nic.send([write0(psn, M.ECN_CE)])
    assert now_cycles() - t2 > CNP_INTERVAL
    sent = await recv_sent(nic, 2)
    by_op = {M.decode(r)["opcode"]: r for r in sent}
    assert sorted(by_op) == [M.OP_ACK, M.OP_CNP], [hex(o) for o in by_op]
    check_ack(check_sent(by_op[M.OP_ACK], M.OP_ACK), psn, 3)
    check_cnp(check_sent(by_op[M.OP_CNP], M.OP_CNP), by_op[M.OP_CNP])
    await expect_nothing_more(nic, 50)

    # 4. ECT(0) only, after the interval: ACK, no CNP, not counted as marked.
    await cycles(dut, CNP_INTERVAL + 50)
    psn = (psn + 1) & 0xFFFFFF
    await nic.send([write0(psn, M.ECN_ECT0)])
    (raw,) = await recv_sent(nic, 1)
    check_ack(check_sent(raw, M.OP_ACK), psn, 4)
    await expect_nothing_more(nic, 100)

    # 5. CE-marked but for another QP: dropped (RX_DROP_QP), no CNP, not counted as marked.
    await nic.send([write0((psn + 1) & 0xFFFFFF, M.ECN_CE, dest_qp=QPN + 1)])
    await expect_nothing_more(nic, 200)
    d = diff(before, await nic.counters())
    assert d == {"RX_FRAMES": 5, "RX_ROCE_PACKETS": 5, "RX_DROP_QP": 1, "TX_FRAMES": 6, "TX_ACKS": 4,
                 "ECN_MARKED_ROCE_PACKETS": 3, "NP_CNP_SENT": 2}, d
    assert await query(nic, R.RQ_PSN) == (psn + 1) & 0xFFFFFF
    assert not nic.dma_activity, f"DMA activity for zero-length writes: {nic.dma_activity[:4]}"


@cocotb.test()
async def test_ce_marked_write_in_rtr_gets_cnp(dut):
    """Notification point in RTR (a QP that only receives): a CE-marked zero-length WRITE is ACKed and
    answered with a CNP to DEST_QPN, counted (ECN_MARKED_ROCE_PACKETS = NP_CNP_SENT = 1)."""
    nic = Nic(dut)
    await nic.bring_up()
    await setup_qp(nic, 2)
    await nic.write(R.CNP_INTERVAL, CNP_INTERVAL)
    before = await nic.counters()
    await nic.send([write0(RQ_PSN, M.ECN_CE)])
    sent = await recv_sent(nic, 2)
    by_op = {M.decode(r)["opcode"]: r for r in sent}
    assert sorted(by_op) == [M.OP_ACK, M.OP_CNP], [hex(o) for o in by_op]
    check_ack(check_sent(by_op[M.OP_ACK], M.OP_ACK), RQ_PSN, 1)
    check_cnp(check_sent(by_op[M.OP_CNP], M.OP_CNP), by_op[M.OP_CNP])
    await expect_nothing_more(nic, 100)
    d = diff(before, await nic.counters())
    assert d == {"RX_FRAMES": 1, "RX_ROCE_PACKETS": 1, "TX_FRAMES": 2, "TX_ACKS": 1,
                 "ECN_MARKED_ROCE_PACKETS": 1, "NP_CNP_SENT": 1}, d
    assert not nic.dma_activity


async def read_rate_after_cnp(nic, handled):
    """Wait until RP_CNP_HANDLED reaches `handled`, then read DCQCN_RATE."""
    for _ in range(200):
        if await nic.read(R.RP_CNP_HANDLED) >= handled:
            return await nic.read(R.DCQCN_RATE)
        await cycles(nic.dut, 5)
    raise AssertionError(f"RP_CNP_HANDLED never reached {handled}")


@cocotb.test()
async def test_cnp_cuts_dcqcn_rate(dut):
    """Reaction point, DCQCN_ENABLE = 1 (timers set out of the way so only CNPs act): DCQCN_RATE starts
    at the line rate (2048); a CNP (opcode 0x81 to our QPN, BECN, 16 reserved bytes, right ICRC) is
    counted (RP_CNP_HANDLED 1, DCQCN_RATE_DECREASES 1), is not ACKed, and cuts the rate to the model's
    RC x (1 - alpha/2) with alpha = 1 (1024); a second CNP cuts again from the model's new alpha (2 and 2
    counted), all in rate limiter 0, which now names the QP. A CNP for another QP is dropped (RX_DROP_QP)
    and changes nothing. Then, with
    DCQCN_RATE_TIMER = 400 cycles, the rate climbs stage by stage exactly as the model's fast recovery
    (RC = (RT + RC) / 2, F = 5 stages) and then additive increase (RT += DCQCN_RATE_AI) predict."""
    nic = Nic(dut)
    await nic.bring_up()
    await setup_qp(nic, 3)
    await nic.write(R.DCQCN_RATE_TIMER, 0xFFFFFFFF)
    await nic.write(R.DCQCN_ALPHA_TIMER, 0xFFFFFFFF)
    await nic.write(R.DCQCN_ENABLE, 1)
    model = D.Dcqcn(line=R.RESET["DCQCN_LINE_RATE"], min_rate=R.RESET["DCQCN_MIN_RATE"],
                    ai=R.RESET["DCQCN_RATE_AI"], hai=R.RESET["DCQCN_RATE_HAI"], f=R.RESET["DCQCN_F"])
    assert await nic.read(R.DCQCN_RATE) == model.rc == 2048
    before = await nic.counters()
    cnp = M.cnp_frame(MY_MAC, PEER_MAC, PEER_IP, MY_IP, QPN)
    assert F.classify(cnp, MY_MAC, MY_IP) == F.ROCE

    await nic.send([cnp])
    model.cnp()
    assert model.rc == 1024  # the first cut halves: alpha starts at 1
    rate = await read_rate_after_cnp(nic, 1)
    assert rate == model.rc, f"DCQCN_RATE {rate} after one CNP, model says {model.rc}"
    d = diff(before, await nic.counters())
    assert d == {"RX_FRAMES": 1, "RX_ROCE_PACKETS": 1, "RP_CNP_HANDLED": 1, "DCQCN_RATE_DECREASES": 1}, d

    await nic.send([cnp])
    model.cnp()
    rate = await read_rate_after_cnp(nic, 2)
    assert rate == model.rc, f"DCQCN_RATE {rate} after two CNPs, model says {model.rc} (alpha {model.alpha})"

    other = M.cnp_frame(MY_MAC, PEER_MAC, PEER_IP, MY_IP, QPN + 1)
    await nic.send([other])
    await cycles(dut, 50)
    d = diff(before, await nic.counters())
    assert d == {"RX_FRAMES": 3, "RX_ROCE_PACKETS": 3, "RX_DROP_QP": 1, "RP_CNP_HANDLED": 2,
                 "DCQCN_RATE_DECREASES": 2}, d
    assert await nic.read(R.DCQCN_RATE) == model.rc
    assert nic.sink.empty(), "a CNP was answered"
    # Per-QP DCQCN: the QP's CNPs took rate limiter 0 of the pool (bit 31 in use, the QPN); the others
    # stay free.
    assert await nic.read(R.DCQCN_LIMITER_QPN_0) == 0x8000_0000 | QPN
    assert await nic.read(R.DCQCN_LIMITER_RATE_0) == model.rc
    assert await nic.read(R.DCQCN_LIMITER_QPN_1) >> 31 == 0

    # Rate increase stages on the timer: the sequence of rates read = the model's.
    await nic.write(R.DCQCN_RATE_TIMER, 400)
    want = []
    for _ in range(8):
        model.stage(timer=True)
        want.append(model.rc)
    got, last = [], rate
    deadline = now_cycles() + 8 * 400 + 2000
    while len(got) < len(want) and now_cycles() < deadline:
        r = await nic.read(R.DCQCN_RATE)
        if r != last:
            got.append(r)
            last = r
    assert got == want, f"rates after the CNPs (from {rate}): {got}, model {want}"
    assert nic.sink.empty() and not nic.dma_activity


@cocotb.test()
async def test_cnp_with_dcqcn_off_keeps_line_rate(dut):
    """Reaction point off (DCQCN_ENABLE = 0, the reset value): a CNP for our QP is still counted
    (RP_CNP_HANDLED 1, docs/ethernet.md) but drives nothing: DCQCN_RATE stays at the line rate and no
    rate cut is counted (DCQCN_RATE_DECREASES counts "rate cuts by the reaction point")."""
    nic = Nic(dut)
    await nic.bring_up()
    await setup_qp(nic, 3)
    assert await nic.read(R.DCQCN_ENABLE) == 0
    before = await nic.counters()
    await nic.send([M.cnp_frame(MY_MAC, PEER_MAC, PEER_IP, MY_IP, QPN)])
    rate = await read_rate_after_cnp(nic, 1)
    assert rate == R.RESET["DCQCN_LINE_RATE"], f"DCQCN_RATE {rate} with DCQCN off"
    d = diff(before, await nic.counters())
    assert d == {"RX_FRAMES": 1, "RX_ROCE_PACKETS": 1, "RP_CNP_HANDLED": 1}, d
    assert nic.sink.empty() and not nic.dma_activity
