//! State shared by every object of one device: the backend, the MR table's shadow, the QP window through
//! which QP contexts are written and read, and the single hardware CQ ring whose CQEs the driver routes to
//! each QP's send and receive CQs.
//!
//! Lock order (outer first), so that no two paths can deadlock: `hw_cq` → `qps` → the QP's rings → the QP's
//! soft state → its outstanding lists → a CQ's entries. `window` is taken alone, `mrs` alone or innermost (nothing
//! is locked while they are held).
use super::cq::WorkCompletion;
use super::qp::QpInner;
use crate::backend::{Backend, DmaRegion};
use rocenic_proto::host::{cqe, WcOpcode, WcStatus, CQE_BYTES};
use rocenic_proto::{regs, Width};
use std::collections::BTreeMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, Weak};

/// A registered memory region as the hardware's MR table holds it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MrEntry {
    pub key: u32,
    pub pd: u32,
    pub iova: u64,
    pub len: u64,
    pub access: u32,
    /// A SEND with invalidate from the peer invalidated the entry; the MR stays allocated (its index
    /// too) until the application deregisters it.
    pub invalidated: bool,
}

/// A QP's context as the QP window registers carry it (QP_CMD writes all of it).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct QpWindow {
    pub state: u32,
    pub pd: u32,
    pub pmtu_log: u32,
    pub dest_qpn: u32,
    pub rq_psn: u32,
    pub sq_psn: u32,
    pub dest_mac: u64,
    pub dest_ip: u32,
    /// An IPv6 path: the destination GID's bytes 0..11 as DEST_GID_0..2 (12..15 are `dest_ip`), and
    /// QP_IPV6 (bit 0 IPv6, bits 2..1 the source GID's entry); 0 = IPv4.
    pub dest_gid_hi: [u32; 3],
    pub ipv6: u32,
    /// QP_HOP_LIMIT (the IPv4 TTL or IPv6 hop limit) and QP_FLOW_LABEL (IPv6).
    pub hop_limit: u32,
    pub flow_label: u32,
    /// QP_VLAN: bit 16 on, bits 1..0 the port VLAN table entry.
    pub vlan: u32,
    pub udp_sport: u32,
    pub min_rnr_timer: u32,
    /// qp_access_flags' remote bits (QP_ACCESS).
    pub access: u32,
    pub dscp: u32,
    pub ack_timeout: u32,
    pub retry_cnt: u32,
    pub rnr_retry: u32,
    /// QP_MAX_RD_ATOMIC.
    pub max_rd_atomic: u32,
    pub sq_base: u64,
    pub sq_log: u32,
    /// 128-byte send WQEs with gather lists (SQ_LOG_SIZE bit 5).
    pub sq_wqe_128: bool,
    /// 128-byte receive WQEs with scatter lists (RQ_LOG_SIZE bit 5).
    pub rq_wqe_128: bool,
    pub rq_base: u64,
    pub rq_log: u32,
    /// Producer and consumer indices INIT_SQ / INIT_RQ load.
    pub sq_pi: u32,
    pub rq_pi: u32,
}

/// What QUERY returns of a QP's consumer indices.
#[derive(Clone, Copy, Debug)]
pub(crate) struct QpHw {
    pub sq_ci: u32,
    pub rq_ci: u32,
}

/// QP_CMD bits (see `docs/registers.md`).
pub(crate) const CMD_MODIFY: u32 = regs::QP_CMD_MODIFY;
pub(crate) const CMD_INIT_RQ: u32 = regs::QP_CMD_INIT_RQ;
pub(crate) const CMD_INIT_SQ: u32 = regs::QP_CMD_INIT_SQ;
pub(crate) const CMD_QUERY: u32 = regs::QP_CMD_QUERY;
/// CLEAR, the same bit in QP_CMD and MR_CMD.
pub(crate) const CMD_CLEAR: u32 = regs::QP_CMD_CLEAR;
const _: () = assert!(regs::QP_CMD_CLEAR == regs::MR_CMD_CLEAR);

/// The hardware's one CQ ring, in host memory.
pub(crate) struct HwCq {
    pub ring: DmaRegion,
    pub log_size: u32,
    /// Free-running consumer index (also written to CQ_CI).
    pub ci: u32,
}

pub(crate) struct Device {
    pub backend: Arc<dyn Backend>,
    pub width: Width,
    /// The MR table as the driver wrote it: one entry per index of the device's table (MR_TABLE_LOG),
    /// and each index's key variant. The lock also guards the MR window registers.
    pub mrs: Mutex<MrTable>,
    /// The device's register blocks, from its directory.
    pub blocks: Vec<regs::Block>,
    pub hw_cq: Mutex<Option<HwCq>>,
    /// The live QPs by QPN, for CQE routing and QPN allocation.
    pub qps: Mutex<BTreeMap<u32, Weak<QpInner>>>,
    /// log2 of the QPs the device's context table holds (QP_TABLE_LOG).
    pub qp_log: u32,
    /// Held across a QPN-selected register sequence (window, command, doorbell): QPN is shared.
    pub window: Mutex<()>,
    /// WQEs the driver completed with WR_FLUSH_ERR (what Mellanox's responder CQE-error counter counts
    /// after a normal teardown).
    pub flushed_wqes: AtomicU64,
    /// Completions in error by side (flushes not included), and flushes by side: rdma-core's
    /// req_cqe_error, resp_cqe_error, req_cqe_flush_error, resp_cqe_flush_error.
    pub cqe_errors: [AtomicU64; 2],
    pub cqe_flushes: [AtomicU64; 2],
    /// PD numbers: the next never used, and those of dropped PDs (reused first).
    pub pdns: Mutex<PdNumbers>,
    /// Opened to look at only (`Context::inspect`): nothing is cleared, nothing made.
    pub inspect_only: bool,
}

/// Highest PD number: the core's PD field is 24 bits.
pub(crate) const MAX_PDN: u32 = (1 << 24) - 1;

/// Protection-domain numbers the driver hands out: 1 ..= [`MAX_PDN`].
pub(crate) struct PdNumbers {
    pub next: u32,
    pub free: Vec<u32>,
}

/// The driver's copy of the device's MR table.
pub(crate) struct MrTable {
    pub entries: Vec<Option<MrEntry>>,
    /// The low byte of the next key of each index: it changes with every registration so that a key kept
    /// after deregistration does not match the index's next MR.
    pub variants: Vec<u8>,
}

impl MrTable {
    pub fn new(log: u32) -> MrTable {
        MrTable {
            entries: vec![None; 1 << log],
            variants: vec![0; 1 << log],
        }
    }

    /// The table index a key names (its bits above the variant).
    fn index(key: u32) -> usize {
        (key >> regs::MR_KEY_VARIANT_BITS) as usize
    }

    /// The MR a key names, if it is registered under exactly that key and still valid.
    pub fn get(&self, key: u32) -> Option<&MrEntry> {
        self.entries
            .get(Self::index(key))
            .and_then(Option::as_ref)
            .filter(|m| m.key == key && !m.invalidated)
    }

    /// Records the core's invalidation of `key`'s entry (a SEND with invalidate).
    pub fn remote_invalidated(&mut self, key: u32) {
        if let Some(Some(m)) = self.entries.get_mut(Self::index(key)) {
            if m.key == key {
                m.invalidated = true;
            }
        }
    }
}

impl Device {
    pub fn read(&self, off: u16) -> u32 {
        self.backend.read32(off)
    }
    pub fn write(&self, off: u16, v: u32) {
        self.backend.write32(off, v)
    }
    /// Writes a 64-bit value to a LO/HI register pair, low half first.
    pub fn write64(&self, lo: u16, hi: u16, v: u64) {
        self.write(lo, v as u32);
        self.write(hi, (v >> 32) as u32);
    }
    /// Port GID table entry `i` (GID_i_0..3, big-endian words; `::` when empty). `i` below GID_TABLE_LEN.
    pub fn gid(&self, i: usize) -> std::net::Ipv6Addr {
        let v = (0..4).fold(0u128, |a, w| {
            a << 32 | self.read(Self::gid_reg(i, w)) as u128
        });
        v.into()
    }
    /// Writes port GID table entry `i`.
    pub fn set_gid(&self, i: usize, gid: std::net::Ipv6Addr) {
        let v = u128::from(gid);
        for w in 0..4 {
            self.write(Self::gid_reg(i, w), (v >> (96 - 32 * w)) as u32);
        }
    }
    /// The port VLAN table register of entry `i` (`VLAN`, then `VLAN_1..3`).
    pub fn vlan_reg(i: usize) -> u16 {
        assert!(i < regs::VLAN_TABLE_LEN);
        if i == 0 {
            regs::VLAN
        } else {
            regs::VLAN_1 + 4 * (i as u16 - 1)
        }
    }
    /// The entry of the port VLAN table that is on with VID `vid`, if any (`VLAN` in VLAN mode is
    /// entry 0; `VLAN_MODE` and `VLAN_ON` are the same bit).
    pub fn vlan_entry(&self, vid: u16) -> Option<usize> {
        self.vlan_entry_in(vid, 0..regs::VLAN_TABLE_LEN)
    }
    /// READ/atomic requests a QP may keep outstanding as requester (the RdAtomic block's param bits
    /// 7..0; 1 without the block).
    pub fn max_rd_atomic(&self) -> u32 {
        self.rd_atomic_param().map_or(1, |p| (p & 0xFF).max(1))
    }
    /// Atomic results a QP's responder keeps for duplicates (RdAtomic block version 2, param bits
    /// 15..8; one before).
    pub fn max_dest_rd_atomic(&self) -> u32 {
        self.blocks
            .iter()
            .find(|b| b.kind == regs::BlockKind::RdAtomic && b.version >= 2)
            .map_or(1, |b| ((b.param >> 8) & 0xFF).max(1))
    }
    fn rd_atomic_param(&self) -> Option<u32> {
        self.blocks
            .iter()
            .find(|b| b.kind == regs::BlockKind::RdAtomic)
            .map(|b| b.param)
    }

    /// [`vlan_entry`](Self::vlan_entry) among `entries` only.
    pub fn vlan_entry_in(&self, vid: u16, entries: std::ops::Range<usize>) -> Option<usize> {
        entries.into_iter().find(|&i| {
            let v = self.read(Self::vlan_reg(i));
            v & regs::VLAN_ON != 0 && v & 0xFFF == vid as u32
        })
    }
    fn gid_reg(i: usize, w: usize) -> u16 {
        assert!(i < regs::GID_TABLE_LEN);
        regs::GID_0_0 + (16 * i + 4 * w) as u16
    }
    /// Writes QP `qpn`'s whole context through the window and runs `cmd` on it (MODIFY, INIT_RQ,
    /// INIT_SQ; INIT loads consumer index 0 and the producer index, which only INIT writes).
    pub fn qp_command(&self, qpn: u32, w: &QpWindow, cmd: u32) {
        let _g = self.window.lock().unwrap();
        self.write(regs::QPN, qpn);
        self.write(regs::QP_STATE, w.state);
        self.write(regs::QP_PD, w.pd);
        self.write(regs::PMTU, w.pmtu_log);
        self.write(regs::DEST_QPN, w.dest_qpn & 0xFF_FFFF);
        self.write(regs::RQ_PSN, w.rq_psn & 0xFF_FFFF);
        self.write(regs::SQ_PSN, w.sq_psn & 0xFF_FFFF);
        self.write64(regs::DEST_MAC_LO, regs::DEST_MAC_HI, w.dest_mac);
        self.write(regs::DEST_IPV4, w.dest_ip);
        self.write(regs::DEST_GID_0, w.dest_gid_hi[0]);
        self.write(regs::DEST_GID_1, w.dest_gid_hi[1]);
        self.write(regs::DEST_GID_2, w.dest_gid_hi[2]);
        self.write(regs::QP_IPV6, w.ipv6);
        self.write(regs::QP_HOP_LIMIT, w.hop_limit);
        self.write(regs::QP_FLOW_LABEL, w.flow_label);
        self.write(regs::QP_VLAN, w.vlan);
        self.write(regs::UDP_SPORT, w.udp_sport);
        self.write(regs::MIN_RNR_TIMER, w.min_rnr_timer);
        self.write(regs::QP_ACCESS, w.access);
        self.write(regs::QP_DSCP, w.dscp);
        self.write(regs::ACK_TIMEOUT, w.ack_timeout);
        self.write(regs::RETRY_CNT, w.retry_cnt);
        self.write(regs::RNR_RETRY, w.rnr_retry);
        self.write(regs::QP_MAX_RD_ATOMIC, w.max_rd_atomic);
        self.write64(regs::SQ_BASE_LO, regs::SQ_BASE_HI, w.sq_base);
        self.write(
            regs::SQ_LOG_SIZE,
            w.sq_log | if w.sq_wqe_128 { regs::SQ_WQE_128 } else { 0 },
        );
        self.write64(regs::RQ_BASE_LO, regs::RQ_BASE_HI, w.rq_base);
        self.write(
            regs::RQ_LOG_SIZE,
            w.rq_log | if w.rq_wqe_128 { regs::RQ_WQE_128 } else { 0 },
        );
        // A write of SQ_PI or RQ_PI is that queue's doorbell: only the command that loads it writes
        // one. Written with a MODIFY, the window's copy (the index when the queue was initialised) would
        // take the producer index back, and the core would run through ring slots never posted.
        if cmd & CMD_INIT_SQ != 0 {
            self.write(regs::SQ_PI, w.sq_pi);
            self.write(regs::SQ_CI, 0);
        }
        if cmd & CMD_INIT_RQ != 0 {
            self.write(regs::RQ_PI, w.rq_pi);
            self.write(regs::RQ_CI, 0);
        }
        self.write(regs::QP_CMD, cmd);
        self.wait_command(regs::QP_CMD);
    }

    /// QUERY on QP `qpn`, then `read` of the registers it loaded, under the window lock.
    fn query<R>(&self, qpn: u32, read: impl FnOnce() -> R) -> R {
        let _g = self.window.lock().unwrap();
        self.write(regs::QPN, qpn);
        self.write(regs::QP_CMD, CMD_QUERY);
        self.wait_command(regs::QP_CMD);
        read()
    }

    /// QUERY: the consumer indices of QP `qpn`.
    pub fn qp_query(&self, qpn: u32) -> QpHw {
        self.query(qpn, || QpHw {
            sq_ci: self.read(regs::SQ_CI),
            rq_ci: self.read(regs::RQ_CI),
        })
    }

    /// QUERY, the PSNs: the next one the requester sends and the one the responder expects.
    pub fn qp_psns(&self, qpn: u32) -> (u32, u32) {
        self.query(qpn, || self.window_psns())
    }

    /// QUERY, the per-QP counters: out_of_sequence, duplicate_request, packet_seq_err,
    /// local_ack_timeout_err, retransmits.
    pub fn qp_counters(&self, qpn: u32) -> [u32; 5] {
        self.query(qpn, || self.window_counters())
    }

    /// One QUERY for the state, the PSNs and the counters together (what a monitoring tool reads).
    pub fn qp_snapshot(&self, qpn: u32) -> (u32, (u32, u32), [u32; 5]) {
        self.query(qpn, || {
            (
                self.read(regs::QP_STATE),
                self.window_psns(),
                self.window_counters(),
            )
        })
    }

    /// The PSNs a QUERY loaded into the window.
    fn window_psns(&self) -> (u32, u32) {
        (
            self.read(regs::SQ_PSN) & 0xFF_FFFF,
            self.read(regs::RQ_PSN) & 0xFF_FFFF,
        )
    }

    /// The counters a QUERY loaded into the window.
    fn window_counters(&self) -> [u32; 5] {
        [
            regs::QP_OUT_OF_SEQUENCE,
            regs::QP_DUPLICATE_REQUEST,
            regs::QP_PACKET_SEQ_ERR,
            regs::QP_LOCAL_ACK_TIMEOUT_ERR,
            regs::QP_RETRANSMITS,
        ]
        .map(|r| self.read(r))
    }

    /// QUERY, the state only (the core moves QPs to ERR by itself; `QueuePair::query` asks only after
    /// QP_ERR_EVENTS moved).
    pub fn qp_state(&self, qpn: u32) -> u32 {
        self.query(qpn, || self.read(regs::QP_STATE))
    }

    /// Rings QP `qpn`'s doorbell `reg` (SQ_PI or RQ_PI) with producer index `pi`; a send WQE given in
    /// `push` goes through the push window first.
    pub fn doorbell(&self, qpn: u32, reg: u16, pi: u32, push: Option<&[u8]>) {
        let _g = self.window.lock().unwrap();
        if let Some(wqe) = push {
            for (k, word) in wqe.chunks(4).enumerate() {
                let v = u32::from_le_bytes(word.try_into().unwrap());
                self.write(regs::WQE_PUSH_0 + 4 * k as u16, v);
            }
            let index = pi.wrapping_sub(1) & 0xFFFF;
            self.write(
                regs::WQE_PUSH_DB,
                0x8000_0000 | (qpn & 0x3FFF) << 16 | index,
            );
        }
        self.write(regs::QPN, qpn);
        self.write(reg, pi);
    }

    /// Waits for the core to take a command register (QP_CMD, MR_CMD) written with one entry's command
    /// (a few cycles; the simulator needs its clock advanced).
    pub fn wait_command(&self, reg: u16) {
        for i in 0..1000 {
            if self.read(reg) == 0 {
                return;
            }
            // A command takes a few core cycles: poll before letting the device run on.
            if i >= 8 {
                self.backend.wait();
            }
        }
        let name = regs::by_offset(reg).map_or("?", |r| r.name);
        panic!("the device did not complete {name}: is the core running?");
    }

    /// Bytes per datapath beat: the core's DMA word (rings start on one; buffers may start anywhere).
    pub fn beat_bytes(&self) -> usize {
        self.width.bytes()
    }

    /// Moves every new CQE from the hardware ring to the CQ it belongs to. A CQE is new when its owner bit
    /// matches the pass the consumer index is on: 1 on the first pass, 0 on the second, … (interfaces.md).
    pub fn drain_hw_cq(&self) {
        let mut guard = self.hw_cq.lock().unwrap();
        let Some(hw) = guard.as_mut() else {
            return;
        };
        let qps = self.qps.lock().unwrap();
        let mask = (1u32 << hw.log_size) - 1;
        let start = hw.ci;
        loop {
            let mut raw = [0u8; CQE_BYTES];
            let slot = (hw.ci & mask) as usize;
            hw.ring
                .read(slot * CQE_BYTES, &mut raw)
                .expect("a CQE slot lies inside the CQ ring");
            let owner_now = (hw.ci >> hw.log_size) & 1 == 0;
            if (raw[cqe::OWNER] & 1 == 1) != owner_now {
                break;
            }
            hw.ci = hw.ci.wrapping_add(1);
            // A CQE of a QP destroyed since has nobody to go to and is dropped.
            let wc = parse_cqe(&raw);
            if let (Some(key), WcStatus::Success) = (wc.invalidated_rkey, wc.status) {
                // The core invalidated that MR's entry: its key no longer works locally either.
                self.mrs.lock().unwrap().remote_invalidated(key);
            }
            if let Some(qp) = qps.get(&wc.qp_num).and_then(Weak::upgrade) {
                qp.complete(wc, raw[cqe::OPCODE], self);
            }
        }
        if hw.ci != start {
            // Hand the slots back so the core can write more CQEs.
            self.write(regs::CQ_CI, hw.ci);
        }
    }
}

fn parse_cqe(raw: &[u8; CQE_BYTES]) -> WorkCompletion {
    let u32_at = |o: usize| u32::from_le_bytes(raw[o..o + 4].try_into().unwrap());
    let op = raw[cqe::OPCODE];
    WorkCompletion {
        wr_id: u64::from_le_bytes(raw[cqe::WR_ID..cqe::WR_ID + 8].try_into().unwrap()),
        // An unknown status is still an error: never let it pass as success.
        status: WcStatus::from_u8(raw[cqe::STATUS]).unwrap_or(WcStatus::GeneralErr),
        opcode: WcOpcode::from_u8(op).unwrap_or(if op < 128 {
            WcOpcode::Send
        } else {
            WcOpcode::Recv
        }),
        byte_len: u32_at(cqe::BYTE_LEN),
        imm_data: (raw[cqe::FLAGS] & cqe::FLAG_WITH_IMM != 0).then(|| u32_at(cqe::IMM_DATA)),
        invalidated_rkey: (raw[cqe::FLAGS] & cqe::FLAG_WITH_INV != 0)
            .then(|| u32_at(cqe::IMM_DATA)),
        qp_num: u32_at(cqe::QP_NUM),
        src_qp: u32_at(cqe::SRC_QP),
        vendor_err: raw[cqe::VENDOR_ERR],
    }
}
