//! RC queue pairs: creation, the checked state machine of modify_qp (IBA §10.3, Figure 120), posting work
//! requests into the host rings, and flushing outstanding work requests when the QP enters ERR.
use super::context::{AccessFlags, ProtectionDomain};
use super::cq::{CompletionQueue, WorkCompletion};
use super::device::{count_flush, deliver, Device, HwCq};
use crate::backend::DmaRegion;
use crate::error::{Error, Result};
use rocenic_proto::host::{
    recv_wqe, wqe, QpState, WcOpcode, WcStatus, WrOpcode, CQE_BYTES, WQE_BYTES,
};
use rocenic_proto::regs;
use std::collections::VecDeque;
use std::net::Ipv4Addr;
use std::sync::{Arc, Mutex};

/// Ring depths (powers of two).
#[derive(Clone, Copy, Debug)]
pub struct QpCaps {
    pub max_send_wr: usize,
    pub max_recv_wr: usize,
}

/// INIT → RTR attributes: the path and the responder's starting PSN.
#[derive(Clone, Copy, Debug)]
pub struct RtrAttrs {
    pub path_mtu: u32,
    pub dest_qpn: u32,
    pub rq_psn: u32,
    pub dest_mac: [u8; 6],
    pub dest_ip: Ipv4Addr,
    /// UDP source port: the flow's ECMP entropy.
    pub udp_sport: u16,
}

/// RTR → RTS attributes: the requester's starting PSN and retry policy.
#[derive(Clone, Copy, Debug)]
pub struct RtsAttrs {
    pub sq_psn: u32,
    /// IB local ACK timeout exponent: 4.096 µs × 2^timeout (0 = infinite).
    pub timeout: u8,
    pub retry_cnt: u8,
    /// Overrides `timeout` with a number of core cycles (simulations use short timeouts).
    pub ack_timeout_cycles: Option<u32>,
}

/// A scatter/gather element (this hardware generation takes one per work request).
#[derive(Clone, Copy, Debug)]
pub struct Sge {
    pub addr: u64,
    pub length: u32,
    pub lkey: u32,
}

#[derive(Clone, Copy, Debug)]
pub enum SendOp {
    RdmaWrite { remote_addr: u64, rkey: u32 },
    Send,
}

#[derive(Clone, Copy, Debug)]
pub struct SendWr {
    pub wr_id: u64,
    pub op: SendOp,
    pub sge: Sge,
    /// Write a completion on success (errors always complete).
    pub signaled: bool,
}

#[derive(Clone, Copy, Debug)]
pub struct RecvWr {
    pub wr_id: u64,
    pub sge: Sge,
}

struct Ring {
    mem: DmaRegion,
    log_size: u32,
    pi: u32,
}

pub(crate) struct QpInner {
    qpn: u32,
    state: Mutex<QpState>,
    /// Posted send WRs not yet completed: (wr_id, opcode, signaled).
    send_out: Mutex<VecDeque<(u64, WcOpcode, bool)>>,
    recv_out: Mutex<VecDeque<u64>>,
    send_cq: Arc<CompletionQueue>,
    recv_cq: Arc<CompletionQueue>,
}

impl QpInner {
    /// Routes a hardware completion; an error completion means the hardware moved the QP to ERR.
    pub(crate) fn complete(&self, wc: WorkCompletion, dev: &Device) {
        if (wc.opcode as u8) < WcOpcode::Recv as u8 {
            // Send WRs complete in order; unsignaled ones before this one completed silently.
            let mut out = self.send_out.lock().unwrap();
            while let Some((id, _, _)) = out.pop_front() {
                if id == wc.wr_id {
                    break;
                }
            }
            drop(out);
            deliver(&self.send_cq, wc);
        } else {
            self.recv_out.lock().unwrap().pop_front();
            deliver(&self.recv_cq, wc);
        }
        if wc.status != WcStatus::Success {
            self.enter_error(dev);
        }
    }

    /// Every outstanding WR completes with WR_FLUSH_ERR, sends to the send CQ, receives to the receive CQ.
    fn enter_error(&self, dev: &Device) {
        *self.state.lock().unwrap() = QpState::Err;
        let flush = |wr_id, opcode| WorkCompletion {
            wr_id,
            status: WcStatus::WrFlushErr,
            opcode,
            qp_num: self.qpn,
            ..Default::default()
        };
        for (id, op, _) in self.send_out.lock().unwrap().drain(..) {
            deliver(&self.send_cq, flush(id, op));
            count_flush(dev);
        }
        for id in self.recv_out.lock().unwrap().drain(..) {
            deliver(&self.recv_cq, flush(id, WcOpcode::Recv));
            count_flush(dev);
        }
    }
}

/// An RC queue pair. Transitions are checked at run time against IBA's QP state diagram rather than
/// encoded as a typestate, because the hardware can move the QP to ERR on its own at any time.
pub struct QueuePair {
    dev: Arc<Device>,
    _pd: Arc<ProtectionDomain>,
    inner: Arc<QpInner>,
    pdn: u32,
    sq: Mutex<Ring>,
    rq: Mutex<Ring>,
}

/// The local QP number this generation's single QP gets (QPs 0 and 1 are special in IBA).
const QPN: u32 = 0x11;

fn log2_depth(n: usize) -> Result<u32> {
    if !(2..=32768).contains(&n) || !n.is_power_of_two() {
        return Err(Error::BadDepth(n));
    }
    Ok(n.trailing_zeros())
}

impl QueuePair {
    /// Creates an RC QP in RESET with its rings in device-visible memory.
    pub fn create(
        pd: &Arc<ProtectionDomain>,
        send_cq: &Arc<CompletionQueue>,
        recv_cq: &Arc<CompletionQueue>,
        caps: QpCaps,
    ) -> Result<QueuePair> {
        let dev = pd.ctx.dev.clone();
        let mut qp_slot = dev.qp.lock().unwrap();
        if qp_slot.as_ref().is_some_and(|w| w.strong_count() > 0) {
            return Err(Error::OneQpOnly);
        }
        let sq_log = log2_depth(caps.max_send_wr)?;
        let rq_log = log2_depth(caps.max_recv_wr)?;
        let cq_entries = (caps.max_send_wr + caps.max_recv_wr).next_power_of_two();
        let cq_log = log2_depth(cq_entries)?;
        let sq = dev.arena.alloc(caps.max_send_wr * WQE_BYTES, 64)?;
        let rq = dev.arena.alloc(caps.max_recv_wr * WQE_BYTES, 64)?;
        let cq = dev.arena.alloc(cq_entries * CQE_BYTES, 64)?;
        cq.write(0, &vec![0; cq_entries * CQE_BYTES])?; // owner bits 0: nothing written yet
        dev.write(regs::QP_STATE, QpState::Reset as u32);
        dev.write(regs::QPN, QPN);
        dev.write(regs::QP_PD, pd.pdn);
        for (lo, hi, log, pi, ci, ring, lg) in [
            (
                regs::SQ_BASE_LO,
                regs::SQ_BASE_HI,
                regs::SQ_LOG_SIZE,
                regs::SQ_PI,
                regs::SQ_CI,
                &sq,
                sq_log,
            ),
            (
                regs::RQ_BASE_LO,
                regs::RQ_BASE_HI,
                regs::RQ_LOG_SIZE,
                regs::RQ_PI,
                regs::RQ_CI,
                &rq,
                rq_log,
            ),
            (
                regs::CQ_BASE_LO,
                regs::CQ_BASE_HI,
                regs::CQ_LOG_SIZE,
                regs::CQ_PI,
                regs::CQ_CI,
                &cq,
                cq_log,
            ),
        ] {
            dev.write64(lo, hi, ring.iova());
            dev.write(log, lg);
            dev.write(pi, 0);
            dev.write(ci, 0);
        }
        *dev.hw_cq.lock().unwrap() = Some(HwCq {
            ring: cq,
            log_size: cq_log,
            ci: 0,
        });
        let inner = Arc::new(QpInner {
            qpn: QPN,
            state: Mutex::new(QpState::Reset),
            send_out: Mutex::new(VecDeque::new()),
            recv_out: Mutex::new(VecDeque::new()),
            send_cq: send_cq.clone(),
            recv_cq: recv_cq.clone(),
        });
        *qp_slot = Some(Arc::downgrade(&inner));
        Ok(QueuePair {
            dev: dev.clone(),
            _pd: pd.clone(),
            inner,
            pdn: pd.pdn,
            sq: Mutex::new(Ring {
                mem: sq,
                log_size: sq_log,
                pi: 0,
            }),
            rq: Mutex::new(Ring {
                mem: rq,
                log_size: rq_log,
                pi: 0,
            }),
        })
    }

    pub fn qp_num(&self) -> u32 {
        self.inner.qpn
    }

    /// The QP's state; the hardware may have moved it to ERR (then outstanding WRs are flushed now).
    pub fn state(&self) -> QpState {
        let hw = QpState::from_u32(self.dev.read(regs::QP_STATE)).unwrap_or(QpState::Err);
        if hw == QpState::Err && *self.inner.state.lock().unwrap() != QpState::Err {
            self.dev.drain_hw_cq().ok();
            self.inner.enter_error(&self.dev);
        }
        *self.inner.state.lock().unwrap()
    }

    fn transition(&self, from: &[QpState], to: QpState) -> Result<()> {
        let now = self.state();
        if !from.contains(&now) {
            return Err(Error::BadTransition { from: now, to });
        }
        Ok(())
    }

    fn set_state(&self, s: QpState) {
        self.dev.write(regs::QP_STATE, s as u32);
        *self.inner.state.lock().unwrap() = s;
    }

    /// RESET → INIT. Remote access rights live in the MR table in this generation.
    pub fn to_init(&self, _access: AccessFlags) -> Result<()> {
        self.transition(&[QpState::Reset], QpState::Init)?;
        self.set_state(QpState::Init);
        Ok(())
    }

    /// INIT → RTR: the responder starts accepting requests.
    pub fn to_rtr(&self, a: &RtrAttrs) -> Result<()> {
        self.transition(&[QpState::Init], QpState::Rtr)?;
        if !matches!(a.path_mtu, 256 | 512 | 1024 | 2048 | 4096) {
            return Err(Error::BadMtu(a.path_mtu));
        }
        let d = &self.dev;
        d.write(regs::PMTU, a.path_mtu.trailing_zeros());
        d.write(regs::DEST_QPN, a.dest_qpn & 0xFF_FFFF);
        d.write(regs::RQ_PSN, a.rq_psn & 0xFF_FFFF);
        let m = a.dest_mac;
        d.write64(
            regs::DEST_MAC_LO,
            regs::DEST_MAC_HI,
            u64::from_be_bytes([0, 0, m[0], m[1], m[2], m[3], m[4], m[5]]),
        );
        d.write(regs::DEST_IPV4, u32::from(a.dest_ip));
        d.write(regs::UDP_SPORT, a.udp_sport as u32);
        self.set_state(QpState::Rtr);
        Ok(())
    }

    /// RTR → RTS: the requester may send.
    pub fn to_rts(&self, a: &RtsAttrs) -> Result<()> {
        self.transition(&[QpState::Rtr], QpState::Rts)?;
        let cycles = a.ack_timeout_cycles.unwrap_or_else(|| {
            if a.timeout == 0 {
                0
            } else {
                let us = 4.096 * f64::powi(2.0, a.timeout.min(31) as i32);
                (us * self.dev.clock_mhz).min(u32::MAX as f64) as u32
            }
        });
        self.dev.write(regs::SQ_PSN, a.sq_psn & 0xFF_FFFF);
        self.dev.write(regs::ACK_TIMEOUT, cycles);
        self.dev.write(regs::RETRY_CNT, a.retry_cnt as u32);
        self.set_state(QpState::Rts);
        Ok(())
    }

    /// Any state → ERR: outstanding work requests complete with WR_FLUSH_ERR.
    pub fn to_error(&self) -> Result<()> {
        self.set_state(QpState::Err);
        self.dev.drain_hw_cq()?;
        self.inner.enter_error(&self.dev);
        Ok(())
    }

    fn check_sge(&self, sge: &Sge, need: AccessFlags) -> Result<()> {
        let align = self.dev.beat_bytes as u64;
        if !sge.addr.is_multiple_of(align) {
            return Err(Error::Unaligned {
                addr: sge.addr,
                align: align as usize,
            });
        }
        let slots = self.dev.mr_slots.lock().unwrap();
        let ok = slots.iter().flatten().any(|m| {
            m.key == sge.lkey
                && m.pd == self.pdn
                && AccessFlags(m.access).contains(need)
                && sge.addr >= m.iova
                && sge.addr + sge.length as u64 <= m.iova + m.len
        });
        if !ok {
            return Err(Error::LocalProtection {
                lkey: sge.lkey,
                addr: sge.addr,
                len: sge.length,
            });
        }
        Ok(())
    }

    /// Posts a send work request: writes the WQE into the send ring, then rings the SQ_PI doorbell.
    ///
    /// # Safety
    /// The local buffer must stay valid and unchanged until the work request completes: the device reads
    /// it by DMA after this call returns.
    pub unsafe fn post_send(&self, wr: &SendWr) -> Result<()> {
        if self.state() != QpState::Rts {
            return Err(Error::WrongState(self.state(), "RTS"));
        }
        self.check_sge(&wr.sge, AccessFlags::default())?;
        let (opcode, remote_addr, rkey, wc_op) = match wr.op {
            SendOp::RdmaWrite { remote_addr, rkey } => {
                if remote_addr % self.dev.beat_bytes as u64 != 0 {
                    return Err(Error::Unaligned {
                        addr: remote_addr,
                        align: self.dev.beat_bytes,
                    });
                }
                (WrOpcode::RdmaWrite, remote_addr, rkey, WcOpcode::RdmaWrite)
            }
            SendOp::Send => (WrOpcode::Send, 0, 0, WcOpcode::Send),
        };
        let mut sq = self.sq.lock().unwrap();
        let size = 1u32 << sq.log_size;
        if sq.pi.wrapping_sub(self.dev.read(regs::SQ_CI)) >= size {
            return Err(Error::QueueFull("send"));
        }
        let mut w = [0u8; WQE_BYTES];
        w[wqe::OPCODE] = opcode as u8;
        w[wqe::FLAGS] = if wr.signaled { wqe::FLAG_SIGNALED } else { 0 };
        w[wqe::LENGTH..wqe::LENGTH + 4].copy_from_slice(&wr.sge.length.to_le_bytes());
        w[wqe::WR_ID..wqe::WR_ID + 8].copy_from_slice(&wr.wr_id.to_le_bytes());
        w[wqe::LOCAL_ADDR..wqe::LOCAL_ADDR + 8].copy_from_slice(&wr.sge.addr.to_le_bytes());
        w[wqe::LKEY..wqe::LKEY + 4].copy_from_slice(&wr.sge.lkey.to_le_bytes());
        w[wqe::RKEY..wqe::RKEY + 4].copy_from_slice(&rkey.to_le_bytes());
        w[wqe::REMOTE_ADDR..wqe::REMOTE_ADDR + 8].copy_from_slice(&remote_addr.to_le_bytes());
        let slot = (sq.pi & (size - 1)) as usize;
        sq.mem.write(slot * WQE_BYTES, &w)?;
        sq.pi = sq.pi.wrapping_add(1);
        self.inner
            .send_out
            .lock()
            .unwrap()
            .push_back((wr.wr_id, wc_op, wr.signaled));
        self.dev.write(regs::SQ_PI, sq.pi);
        Ok(())
    }

    /// Posts a receive work request: writes the receive WQE, then rings the RQ_PI doorbell.
    ///
    /// # Safety
    /// The buffer must stay valid until the work request completes: the device writes it by DMA.
    pub unsafe fn post_recv(&self, wr: &RecvWr) -> Result<()> {
        let state = self.state();
        if state == QpState::Reset || state == QpState::Err {
            return Err(Error::WrongState(state, "INIT, RTR or RTS"));
        }
        self.check_sge(&wr.sge, AccessFlags::LOCAL_WRITE)?;
        let mut rq = self.rq.lock().unwrap();
        let size = 1u32 << rq.log_size;
        if rq.pi.wrapping_sub(self.dev.read(regs::RQ_CI)) >= size {
            return Err(Error::QueueFull("receive"));
        }
        let mut w = [0u8; WQE_BYTES];
        w[recv_wqe::LENGTH..recv_wqe::LENGTH + 4].copy_from_slice(&wr.sge.length.to_le_bytes());
        w[recv_wqe::WR_ID..recv_wqe::WR_ID + 8].copy_from_slice(&wr.wr_id.to_le_bytes());
        w[recv_wqe::ADDR..recv_wqe::ADDR + 8].copy_from_slice(&wr.sge.addr.to_le_bytes());
        w[recv_wqe::LKEY..recv_wqe::LKEY + 4].copy_from_slice(&wr.sge.lkey.to_le_bytes());
        let slot = (rq.pi & (size - 1)) as usize;
        rq.mem.write(slot * WQE_BYTES, &w)?;
        rq.pi = rq.pi.wrapping_add(1);
        self.inner.recv_out.lock().unwrap().push_back(wr.wr_id);
        self.dev.write(regs::RQ_PI, rq.pi);
        Ok(())
    }
}

impl Drop for QueuePair {
    fn drop(&mut self) {
        // Stop the engines touching the rings before their memory goes back to the arena.
        self.dev.write(regs::QP_STATE, QpState::Reset as u32);
        *self.dev.hw_cq.lock().unwrap() = None;
    }
}
