//! Completion queues. The hardware has one CQ ring; polling any CQ drains it and routes each CQE to the
//! send or receive CQ of its QP, so each CQ object sees only its own completions, in order.
use super::device::Device;
use crate::error::Result;
use rocenic_proto::host::{WcOpcode, WcStatus};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// One completion, as `ibv_wc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkCompletion {
    pub wr_id: u64,
    pub status: WcStatus,
    pub opcode: WcOpcode,
    pub byte_len: u32,
    pub imm_data: Option<u32>,
    pub qp_num: u32,
    pub src_qp: u32,
    /// The AETH syndrome for remote errors.
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
            entries: Mutex::new(VecDeque::new()),
        }
    }

    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Fills `wc` with up to `wc.len()` completions, oldest first; returns how many.
    pub fn poll(&self, wc: &mut [WorkCompletion]) -> Result<usize> {
        self.dev.drain_hw_cq()?;
        let mut q = self.entries.lock().unwrap();
        let n = wc.len().min(q.len());
        for slot in wc.iter_mut().take(n) {
            *slot = q.pop_front().unwrap();
        }
        Ok(n)
    }

    pub(crate) fn push(&self, wc: WorkCompletion) {
        self.entries.lock().unwrap().push_back(wc);
    }
}
