//! State shared by every object of one device: the backend, the DMA arena, the MR slots, and the single
//! hardware CQ ring whose CQEs the driver routes to the QP's send and receive CQs.
use super::cq::{CompletionQueue, WorkCompletion};
use super::qp::QpInner;
use crate::backend::{Arena, Backend, DmaRegion};
use crate::error::Result;
use rocenic_proto::host::{cqe, WcOpcode, WcStatus, CQE_BYTES};
use rocenic_proto::regs;
use std::sync::atomic::{AtomicU64, Ordering};
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

pub(crate) struct HwCq {
    pub ring: DmaRegion,
    pub log_size: u32,
    pub ci: u32,
}

pub(crate) struct Device {
    pub backend: Arc<dyn Backend>,
    pub arena: Arc<Arena>,
    pub beat_bytes: usize,
    pub clock_mhz: f64,
    pub mr_slots: Mutex<[Option<MrSlot>; regs::MR_SLOTS]>,
    pub hw_cq: Mutex<Option<HwCq>>,
    pub qp: Mutex<Option<Weak<QpInner>>>,
    /// WQEs completed with WR_FLUSH_ERR by the driver (what Mellanox's responder CQE-error counter counts
    /// after a normal teardown).
    pub flushed_wqes: AtomicU64,
}

impl Device {
    pub fn read(&self, off: u16) -> u32 {
        self.backend.read32(off)
    }
    pub fn write(&self, off: u16, v: u32) {
        self.backend.write32(off, v)
    }
    pub fn write64(&self, lo: u16, hi: u16, v: u64) {
        self.write(lo, v as u32);
        self.write(hi, (v >> 32) as u32);
    }

    /// Moves every new CQE from the hardware ring to the CQ it belongs to. A CQE is new when its owner
    /// bit matches the ring pass the consumer index is on (docs/interfaces.md).
    pub fn drain_hw_cq(&self) -> Result<()> {
        let mut guard = self.hw_cq.lock().unwrap();
        let Some(hw) = guard.as_mut() else {
            return Ok(());
        };
        let qp = self.qp.lock().unwrap().as_ref().and_then(Weak::upgrade);
        let mut moved = false;
        loop {
            let slot = (hw.ci & ((1 << hw.log_size) - 1)) as usize;
            let mut raw = [0u8; CQE_BYTES];
            hw.ring.read(slot * CQE_BYTES, &mut raw)?;
            let expected_owner = ((hw.ci >> hw.log_size) & 1) == 0;
            if (raw[cqe::OWNER] & 1 == 1) != expected_owner {
                break;
            }
            hw.ci = hw.ci.wrapping_add(1);
            moved = true;
            let wc = parse_cqe(&raw);
            if let Some(qp) = &qp {
                qp.complete(wc, self);
            }
        }
        if moved {
            self.write(regs::CQ_CI, hw.ci);
        }
        Ok(())
    }
}

fn parse_cqe(raw: &[u8; CQE_BYTES]) -> WorkCompletion {
    let u32_at = |o: usize| u32::from_le_bytes(raw[o..o + 4].try_into().unwrap());
    WorkCompletion {
        wr_id: u64::from_le_bytes(raw[cqe::WR_ID..cqe::WR_ID + 8].try_into().unwrap()),
        status: WcStatus::from_u8(raw[cqe::STATUS]).unwrap_or(WcStatus::GeneralErr),
        opcode: WcOpcode::from_u8(raw[cqe::OPCODE]).unwrap_or(WcOpcode::Send),
        byte_len: u32_at(cqe::BYTE_LEN),
        imm_data: (raw[cqe::FLAGS] & 1 == 1).then(|| u32_at(cqe::IMM_DATA)),
        qp_num: u32_at(cqe::QP_NUM),
        src_qp: u32_at(cqe::SRC_QP),
        vendor_err: raw[cqe::VENDOR_ERR],
    }
}

/// Delivers a completion to a CQ (used for hardware CQEs and for software flushes alike).
pub(crate) fn deliver(cq: &CompletionQueue, wc: WorkCompletion) {
    cq.push(wc);
}

pub(crate) fn count_flush(dev: &Device) {
    dev.flushed_wqes.fetch_add(1, Ordering::Relaxed);
}
