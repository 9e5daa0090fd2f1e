//! State shared by every object of one device: the backend, the MR table's shadow, and the single hardware
//! CQ ring whose CQEs the driver routes to the QP's send and receive CQs.
//!
//! Lock order (outer first), so that no two paths can deadlock: `hw_cq` → `qp` → the QP's rings → the QP's
//! soft state → its outstanding lists → a CQ's entries. `mr_slots` is taken alone.
use super::cq::WorkCompletion;
use super::qp::QpInner;
use crate::backend::{Backend, DmaRegion};
use rocenic_proto::host::{cqe, WcOpcode, WcStatus, CQE_BYTES};
use rocenic_proto::{regs, Width};
use std::sync::atomic::{AtomicU32, AtomicU64};
use std::sync::{Arc, Mutex, Weak};

/// A registered memory region as the hardware's MR table holds it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MrSlot {
    pub key: u32,
    pub pd: u32,
    pub iova: u64,
    pub len: u64,
    pub access: u32,
}

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
    /// One entry per MR slot the device reported in its directory.
    pub mr_slots: Mutex<Vec<Option<MrSlot>>>,
    /// The device's register blocks, from its directory.
    pub blocks: Vec<regs::Block>,
    pub hw_cq: Mutex<Option<HwCq>>,
    pub qp: Mutex<Option<Weak<QpInner>>>,
    /// WQEs the driver completed with WR_FLUSH_ERR (what Mellanox's responder CQE-error counter counts
    /// after a normal teardown).
    pub flushed_wqes: AtomicU64,
    /// Completions in error by side (flushes not included), and flushes by side: rdma-core's
    /// req_cqe_error, resp_cqe_error, req_cqe_flush_error, resp_cqe_flush_error.
    pub cqe_errors: [AtomicU64; 2],
    pub cqe_flushes: [AtomicU64; 2],
    pub next_pdn: AtomicU32,
    /// Changes with every MR registration so that a stale key does not match a reused slot.
    pub next_key_tag: AtomicU32,
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
    /// Bytes per datapath beat: the DMA alignment unit of this hardware generation.
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
        let qp = self.qp.lock().unwrap().as_ref().and_then(Weak::upgrade);
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
            // With no QP (it was destroyed) the CQE has nobody to go to and is dropped.
            if let Some(qp) = &qp {
                qp.complete(parse_cqe(&raw), raw[cqe::OPCODE], self);
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
        imm_data: (raw[cqe::FLAGS] & 1 == 1).then(|| u32_at(cqe::IMM_DATA)),
        qp_num: u32_at(cqe::QP_NUM),
        src_qp: u32_at(cqe::SRC_QP),
        vendor_err: raw[cqe::VENDOR_ERR],
    }
}
