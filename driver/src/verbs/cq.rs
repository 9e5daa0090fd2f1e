//! Completion queues.
//!
//! The hardware writes every CQE into ONE ring (CQ_BASE/CQ_LOG_SIZE), but a QP may have separate send and
//! receive CQs, as in ibverbs. So a `CompletionQueue` is a software queue: polling any CQ drains the
//! hardware ring and routes each CQE by its opcode — below 128 (SEND, RDMA WRITE, …) to its QP's send CQ,
//! 128 and up (RECV, …) to its receive CQ — where it waits until that CQ is polled. Each CQ therefore sees
//! exactly its own completions, in the order the hardware wrote them. Software flushes (WR_FLUSH_ERR) go
//! into the same queues.
//!
//! The hardware ring is created with the QP and sized for both of its CQs (see `QueuePair::create`), so
//! as long as the application keeps each CQ within its depth, as ibverbs requires, the core never finds
//! the ring full.
use super::device::Device;
use crate::error::Result;
use rocenic_proto::host::{WcOpcode, WcStatus};
use rocenic_proto::regs;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One completion, as `ibv_wc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkCompletion {
    pub wr_id: u64,
    pub status: WcStatus,
    /// For flushed work requests: the opcode of the request as posted.
    pub opcode: WcOpcode,
    /// Bytes received (receive completions).
    pub byte_len: u32,
    pub imm_data: Option<u32>,
    /// The R_Key the NIC invalidated for a SEND with invalidate (`IBV_WC_WITH_INV`).
    pub invalidated_rkey: Option<u32>,
    pub qp_num: u32,
    /// The sender's QP number (receive completions).
    pub src_qp: u32,
    /// The AETH syndrome for remote errors, 0xFF after a local ACK timeout.
    pub vendor_err: u8,
}

impl Default for WorkCompletion {
    fn default() -> Self {
        WorkCompletion {
            wr_id: 0,
            status: WcStatus::Success,
            opcode: WcOpcode::Send,
            byte_len: 0,
            imm_data: None,
            invalidated_rkey: None,
            qp_num: 0,
            src_qp: 0,
            vendor_err: 0,
        }
    }
}

pub struct CompletionQueue {
    dev: Arc<Device>,
    depth: usize,
    entries: Mutex<VecDeque<WorkCompletion>>,
}

impl CompletionQueue {
    pub(crate) fn new(dev: Arc<Device>, depth: usize) -> CompletionQueue {
        CompletionQueue {
            dev,
            depth,
            entries: Mutex::new(VecDeque::with_capacity(depth)),
        }
    }

    /// The depth the CQ was created with.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Fills `wc` with up to `wc.len()` completions, oldest first, and returns how many. Never blocks;
    /// call the context's `wait` between empty polls so a simulated device makes progress.
    pub fn poll(&self, wc: &mut [WorkCompletion]) -> usize {
        self.dev.drain_hw_cq();
        let mut q = self.entries.lock().unwrap();
        let n = wc.len().min(q.len());
        for (slot, entry) in wc.iter_mut().zip(q.drain(..n)) {
            *slot = entry;
        }
        n
    }

    /// Requests a completion event (`ibv_req_notify_cq`, IBA §11.4.2.2): the next completion, or with
    /// `solicited_only` the next solicited or unsuccessful one, raises the device's interrupt once. Then
    /// poll again before [`wait_event`](Self::wait_event): a completion that landed before the arm
    /// raises nothing.
    ///
    /// The device has one hardware CQ under every software CQ, so the arm is device-wide: an event may
    /// come from the other CQ of a QP whose send and receive CQs differ. Poll after waking.
    pub fn req_notify(&self, solicited_only: bool) {
        self.dev
            .backend
            .write32(regs::CQ_ARM, if solicited_only { 2 } else { 1 });
    }

    /// Sleeps until the completion event requested by [`req_notify`](Self::req_notify) arrives, or
    /// `timeout` of device time passes (`ibv_get_cq_event` with a time limit). Returns at once, true,
    /// when completions are already waiting in this CQ (flush completions the driver made itself raise
    /// no interrupt).
    pub fn wait_event(&self, timeout: Duration) -> Result<bool> {
        self.dev.drain_hw_cq();
        if !self.entries.lock().unwrap().is_empty() {
            return Ok(true);
        }
        self.dev.backend.wait_interrupt(timeout)
    }

    pub(crate) fn belongs_to(&self, dev: &Arc<Device>) -> bool {
        Arc::ptr_eq(&self.dev, dev)
    }

    pub(crate) fn push(&self, wc: WorkCompletion) {
        self.entries.lock().unwrap().push_back(wc);
    }
}
