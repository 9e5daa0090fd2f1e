//! RC queue pairs: creation with their rings, the checked state machine of `modify` (IBA §10.3), `query`,
//! and the software flush of outstanding work requests when the QP enters ERR. Posting is in `post.rs`.
use super::attr::{ack_timeout_cycles, InitAttrs, QpAttr, QpCaps};
use super::context::mac_to_u64;
use super::cq::{CompletionQueue, WorkCompletion};
use super::device::{Device, HwCq};
use super::mr::{AccessFlags, ProtectionDomain};
use crate::backend::DmaRegion;
use crate::error::{Error, Result};
use rocenic_proto::host::{QpState, WcOpcode, WcStatus, CQE_BYTES, WQE_BYTES};
use rocenic_proto::regs;
use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

/// The local QP number of this generation's single QP (QPs 0 and 1 are special in IBA).
pub const QPN: u32 = 0x11;

/// A work-request ring in host memory and the driver's side of its indices.
pub(crate) struct Ring {
    pub mem: DmaRegion,
    pub log_size: u32,
    /// Free-running producer index (what the doorbell register gets).
    pub pi: u32,
    /// The consumer index as last read from the device; re-read only when the ring looks full.
    pub ci: u32,
}

impl Ring {
    pub fn size(&self) -> u32 {
        1 << self.log_size
    }
}

/// A posted work request that has not completed yet.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Outstanding {
    /// The producer index the WQE was posted at.
    pub index: u32,
    pub wr_id: u64,
    pub opcode: WcOpcode,
    pub signaled: bool,
}

/// What the driver knows about the QP's state and attributes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Soft {
    pub state: QpState,
    pub path_mtu: u32,
    pub access: AccessFlags,
}

/// The part of a QP the device's CQE routing reaches (through a `Weak`), so that dropping the
/// [`QueuePair`] handle is what destroys the QP.
///
/// Locks are taken in field order below (sq, rq, soft, send_out, recv_out); see `device.rs`.
pub(crate) struct QpInner {
    pub qpn: u32,
    pub pdn: u32,
    pub sq: Mutex<Ring>,
    pub rq: Mutex<Ring>,
    pub soft: Mutex<Soft>,
    pub send_out: Mutex<VecDeque<Outstanding>>,
    pub recv_out: Mutex<VecDeque<Outstanding>>,
    pub send_cq: Arc<CompletionQueue>,
    pub recv_cq: Arc<CompletionQueue>,
}

/// Whether the WQE posted at `index` lies before consumer index `ci` (free-running, so compared modulo 2^32).
fn consumed(index: u32, ci: u32) -> bool {
    (ci.wrapping_sub(index) as i32) > 0
}

impl QpInner {
    /// Routes a hardware CQE: opcodes below 128 complete send WRs (to the send CQ), the rest receive WRs.
    /// An error completion means the core has moved the QP to ERR, so the rest is flushed behind it.
    pub(crate) fn complete(&self, wc: WorkCompletion, raw_opcode: u8, dev: &Device) {
        let (out, cq) = if raw_opcode < 128 {
            (&self.send_out, &self.send_cq)
        } else {
            (&self.recv_out, &self.recv_cq)
        };
        {
            // WRs of one ring complete in order: the ones before this CQE's were unsignaled sends that
            // completed without a CQE.
            let mut out = out.lock().unwrap();
            if let Some(pos) = out.iter().position(|o| o.wr_id == wc.wr_id) {
                out.drain(..=pos);
            }
        }
        cq.push(wc);
        if wc.status != WcStatus::Success {
            let side = (raw_opcode >= 128) as usize;
            dev.cqe_errors[side].fetch_add(1, Ordering::Relaxed);
            self.enter_error(dev);
        }
    }

    /// Marks the QP ERR and completes every outstanding WR the device has not consumed with
    /// WR_FLUSH_ERR, in posting order: sends to the send CQ, receives to the receive CQ. A WR the device
    /// has consumed (index below SQ_CI/RQ_CI) is not flushed: either its CQE is still on the way, or it was
    /// an unsignaled send that completed silently. The caller drains the hardware CQ first.
    pub(crate) fn enter_error(&self, dev: &Device) {
        // Holding the rings keeps a concurrent post from slipping a WR in after the flush.
        let _sq = self.sq.lock().unwrap();
        let _rq = self.rq.lock().unwrap();
        self.soft.lock().unwrap().state = QpState::Err;
        let flush = |o: &Outstanding| WorkCompletion {
            wr_id: o.wr_id,
            status: WcStatus::WrFlushErr,
            opcode: o.opcode,
            qp_num: self.qpn,
            ..Default::default()
        };
        let sq_ci = dev.read(regs::SQ_CI);
        let mut flushed = 0;
        self.send_out.lock().unwrap().retain(|o| {
            if consumed(o.index, sq_ci) {
                return o.signaled;
            }
            self.send_cq.push(flush(o));
            flushed += 1;
            dev.cqe_flushes[0].fetch_add(1, Ordering::Relaxed);
            false
        });
        let rq_ci = dev.read(regs::RQ_CI);
        self.recv_out.lock().unwrap().retain(|o| {
            if consumed(o.index, rq_ci) {
                return true;
            }
            self.recv_cq.push(flush(o));
            flushed += 1;
            dev.cqe_flushes[1].fetch_add(1, Ordering::Relaxed);
            false
        });
        dev.flushed_wqes.fetch_add(flushed, Ordering::Relaxed);
    }
}

/// An RC queue pair.
///
/// Transitions are checked at run time against IBA's state diagram rather than encoded as a typestate
/// (`QueuePair<Rts>`): the hardware moves the QP to ERR by itself at any time (a NAK, retries exhausted),
/// so a type claiming "RTS" would lie, and every post must look at the state anyway.
pub struct QueuePair {
    pub(crate) dev: Arc<Device>,
    _pd: Arc<ProtectionDomain>,
    pub(crate) inner: Arc<QpInner>,
}

impl QueuePair {
    /// Creates an RC QP in RESET, with its send and receive rings in device-visible memory.
    ///
    /// The device's one CQ ring is created here too, sized for both CQs (the sum of their depths, or one
    /// depth when they are the same CQ), because this generation has exactly one QP per device.
    pub fn create(
        pd: &Arc<ProtectionDomain>,
        send_cq: &Arc<CompletionQueue>,
        recv_cq: &Arc<CompletionQueue>,
        caps: QpCaps,
    ) -> Result<QueuePair> {
        let dev = pd.ctx.dev.clone();
        let sq_log = super::check_depth(caps.max_send_wr)?;
        let rq_log = super::check_depth(caps.max_recv_wr)?;
        if !send_cq.belongs_to(&dev) || !recv_cq.belongs_to(&dev) {
            return Err(Error::BadAttr("a CQ of another device"));
        }
        let cq_entries = if Arc::ptr_eq(send_cq, recv_cq) {
            send_cq.depth()
        } else {
            (send_cq.depth() + recv_cq.depth()).next_power_of_two()
        };
        let cq_log = cq_entries.trailing_zeros();

        let mut hw_cq = dev.hw_cq.lock().unwrap();
        let mut qp_slot = dev.qp.lock().unwrap();
        if qp_slot.as_ref().is_some_and(|w| w.strong_count() > 0) {
            return Err(Error::OneQpOnly);
        }
        // Rings start on a beat (and a cache line): the core fetches them in whole beats.
        let align = dev.beat_bytes().max(64);
        let sq = dev.backend.alloc_dma(caps.max_send_wr * WQE_BYTES, align)?;
        let rq = dev.backend.alloc_dma(caps.max_recv_wr * WQE_BYTES, align)?;
        let cq = dev.backend.alloc_dma(cq_entries * CQE_BYTES, align)?;
        // Recycled memory may hold an old ring's CQEs whose owner bits would look new.
        cq.write(0, &vec![0; cq.len()])?;

        dev.write(regs::QP_STATE, QpState::Reset as u32);
        dev.write(regs::QPN, QPN);
        dev.write(regs::QP_PD, pd.pdn);
        #[rustfmt::skip]
        let rings = [
            (regs::SQ_BASE_LO, regs::SQ_BASE_HI, regs::SQ_LOG_SIZE, regs::SQ_PI, regs::SQ_CI, &sq, sq_log),
            (regs::RQ_BASE_LO, regs::RQ_BASE_HI, regs::RQ_LOG_SIZE, regs::RQ_PI, regs::RQ_CI, &rq, rq_log),
            (regs::CQ_BASE_LO, regs::CQ_BASE_HI, regs::CQ_LOG_SIZE, regs::CQ_PI, regs::CQ_CI, &cq, cq_log),
        ];
        for (base_lo, base_hi, log_size, pi, ci, mem, log) in rings {
            dev.write64(base_lo, base_hi, mem.iova());
            dev.write(log_size, log);
            dev.write(pi, 0);
            dev.write(ci, 0);
        }
        // The core reads the work queues and writes the completion ring.
        dev.backend.grant_dma(sq.iova(), sq.len() as u64, false);
        dev.backend.grant_dma(rq.iova(), rq.len() as u64, false);
        dev.backend.grant_dma(cq.iova(), cq.len() as u64, true);
        *hw_cq = Some(HwCq {
            ring: cq,
            log_size: cq_log,
            ci: 0,
        });
        let ring = |mem, log_size| {
            Mutex::new(Ring {
                mem,
                log_size,
                pi: 0,
                ci: 0,
            })
        };
        let inner = Arc::new(QpInner {
            qpn: QPN,
            pdn: pd.pdn,
            sq: ring(sq, sq_log),
            rq: ring(rq, rq_log),
            soft: Mutex::new(Soft {
                state: QpState::Reset,
                path_mtu: 0,
                access: AccessFlags::default(),
            }),
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
        })
    }

    pub fn qp_num(&self) -> u32 {
        self.inner.qpn
    }

    /// The QP's state. It reads QP_STATE because the core moves the QP to ERR by itself; when it has, the
    /// outstanding work requests are flushed now. Other states change only through `modify`.
    pub fn query(&self) -> QpState {
        let hw = QpState::from_u32(self.dev.read(regs::QP_STATE)).unwrap_or(QpState::Err);
        let soft = self.inner.soft.lock().unwrap().state;
        if hw == QpState::Err && soft != QpState::Err {
            self.dev.drain_hw_cq();
            self.inner.enter_error(&self.dev);
        }
        self.inner.soft.lock().unwrap().state
    }

    /// The access flags given at RESET → INIT.
    pub fn access(&self) -> AccessFlags {
        self.inner.soft.lock().unwrap().access
    }

    /// Moves the QP to the state `attr` names, programming that transition's attributes first and
    /// QP_STATE last, so the core never runs in the new state with the old attributes. Legal: RESET →
    /// INIT → RTR → RTS, RTS ⇄ SQD, and any state → ERR; anything else is [`Error::BadTransition`]. A refused
    /// transition writes nothing.
    pub fn modify(&self, attr: QpAttr) -> Result<()> {
        let to = match attr {
            QpAttr::Init(_) => QpState::Init,
            QpAttr::Rtr(_) => QpState::Rtr,
            QpAttr::Rts(_) => QpState::Rts,
            QpAttr::Sqd => QpState::Sqd,
            QpAttr::Err => {
                self.to_error();
                return Ok(());
            }
        };
        let from = self.query();
        let legal = matches!(
            (from, to),
            (QpState::Reset, QpState::Init)
                | (QpState::Init, QpState::Rtr)
                | (QpState::Rtr, QpState::Rts)
                | (QpState::Rts, QpState::Sqd)
                | (QpState::Sqd, QpState::Rts)
        );
        if !legal {
            return Err(Error::BadTransition { from, to });
        }
        let mut soft = self.inner.soft.lock().unwrap();
        if soft.state != from {
            // Another thread (or the core, moving it to ERR) changed the state since `query`.
            return Err(Error::BadTransition {
                from: soft.state,
                to,
            });
        }
        let d = &self.dev;
        match attr {
            QpAttr::Init(a) => {
                check_init(&a)?;
                soft.access = a.access;
            }
            QpAttr::Rtr(a) => {
                if !matches!(a.path_mtu, 256 | 512 | 1024 | 2048 | 4096) {
                    return Err(Error::BadMtu(a.path_mtu));
                }
                if a.min_rnr_timer > 31 {
                    return Err(Error::BadAttr("min_rnr_timer above 31 (IBA: a 5-bit code)"));
                }
                d.write(regs::PMTU, a.path_mtu.trailing_zeros());
                d.write(regs::DEST_QPN, a.dest_qpn & 0xFF_FFFF);
                d.write(regs::RQ_PSN, a.rq_psn & 0xFF_FFFF);
                d.write64(regs::DEST_MAC_LO, regs::DEST_MAC_HI, mac_to_u64(a.dest_mac));
                d.write(regs::DEST_IPV4, u32::from(a.dest_ip));
                d.write(regs::UDP_SPORT, a.udp_sport as u32);
                d.write(regs::MIN_RNR_TIMER, a.min_rnr_timer as u32);
                d.write(regs::QP_DSCP, (a.traffic_class >> 2) as u32);
                soft.path_mtu = a.path_mtu;
            }
            QpAttr::Rts(a) => {
                if a.retry_cnt > 7 {
                    return Err(Error::BadAttr("retry_cnt above 7 (IBA: a 3-bit count)"));
                }
                if a.rnr_retry > 7 {
                    return Err(Error::BadAttr("rnr_retry above 7 (IBA: a 3-bit count)"));
                }
                let cycles = a
                    .ack_timeout_cycles
                    .unwrap_or_else(|| ack_timeout_cycles(a.timeout, d.width.clock_mhz()));
                if from == QpState::Rtr {
                    d.write(regs::SQ_PSN, a.sq_psn & 0xFF_FFFF);
                }
                d.write(regs::ACK_TIMEOUT, cycles);
                d.write(regs::RETRY_CNT, a.retry_cnt as u32);
                d.write(regs::RNR_RETRY, a.rnr_retry as u32);
            }
            QpAttr::Sqd => {}
            QpAttr::Err => unreachable!("handled above"),
        }
        d.write(regs::QP_STATE, to as u32);
        soft.state = to;
        Ok(())
    }

    /// Any state → ERR: the core stops, and every outstanding work request completes with WR_FLUSH_ERR.
    fn to_error(&self) {
        self.dev.write(regs::QP_STATE, QpState::Err as u32);
        // Completions the core wrote before it stopped come first, in their CQs, ahead of the flushes.
        self.dev.drain_hw_cq();
        self.inner.enter_error(&self.dev);
    }
}

fn check_init(a: &InitAttrs) -> Result<()> {
    if a.port_num != 1 {
        return Err(Error::BadAttr(
            "port_num must be 1: the device has one port",
        ));
    }
    if a.pkey_index != 0 {
        return Err(Error::BadAttr(
            "pkey_index must be 0: the P_Key table holds only the default P_Key",
        ));
    }
    Ok(())
}

impl Drop for QueuePair {
    fn drop(&mut self) {
        // Stop the engines touching the rings before their memory goes back to the arena, and forget the
        // QP so that a new one may be created.
        self.dev.write(regs::QP_STATE, QpState::Reset as u32);
        let mut hw_cq = self.dev.hw_cq.lock().unwrap();
        if let Some(cq) = hw_cq.as_ref() {
            self.dev.backend.revoke_dma(cq.ring.iova());
        }
        self.dev
            .backend
            .revoke_dma(self.inner.sq.lock().unwrap().mem.iova());
        self.dev
            .backend
            .revoke_dma(self.inner.rq.lock().unwrap().mem.iova());
        *hw_cq = None;
        *self.dev.qp.lock().unwrap() = None;
    }
}
