//! RC queue pairs: creation with their rings, the checked state machine of `modify` (IBA §10.3), `query`,
//! and the software flush of outstanding work requests when the QP enters ERR. Posting is in `post.rs`.
use super::attr::{ack_timeout_cycles, InitAttrs, QpAttr, QpAttrs, QpCaps, RtrAttrs};
use super::context::mac_to_u64;
use super::cq::{CompletionQueue, WorkCompletion};
use super::device::{Device, HwCq, QpWindow, CMD_INIT_RQ, CMD_INIT_SQ, CMD_MODIFY};
use super::mr::{AccessFlags, ProtectionDomain};
use crate::backend::DmaRegion;
use crate::error::{Error, Result};
use rocenic_proto::host::{
    QpState, WcOpcode, WcStatus, CQE_BYTES, MAX_RECV_SGE, MAX_SEND_SGE, WQE_128_BYTES, WQE_BYTES,
};
use rocenic_proto::regs;
use std::collections::VecDeque;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// The first QP number the driver hands out (QPs 0 and 1 are special in IBA; rxe starts here too). QPNs
/// are allocated lowest free first, so a device's first QP is always this one.
pub const QPN: u32 = 0x11;

/// A work-request ring in host memory and the driver's side of its indices.
pub(crate) struct Ring {
    pub mem: DmaRegion,
    pub log_size: u32,
    /// Bytes per WQE slot: 64, or 128 for send WQEs with gather lists.
    pub stride: usize,
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
    /// The lkeys of its list: a memory region being deregistered first stops the QPs whose unconsumed
    /// work requests name it (`MemoryRegion`'s drop).
    pub lkeys: Lkeys,
}

/// Entries of the longest list a work request may carry (send or receive).
const MAX_SGE_ANY: usize = if MAX_SEND_SGE > MAX_RECV_SGE {
    MAX_SEND_SGE
} else {
    MAX_RECV_SGE
};

/// The lkeys a work request's list names (none for a WQE posted raw).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Lkeys {
    keys: [u32; MAX_SGE_ANY],
    n: usize,
}

impl Lkeys {
    pub(crate) fn of(list: &[crate::Sge]) -> Lkeys {
        let mut l = Lkeys::default();
        for s in list.iter().take(MAX_SGE_ANY) {
            l.keys[l.n] = s.lkey;
            l.n += 1;
        }
        l
    }

    fn contains(&self, lkey: u32) -> bool {
        self.keys[..self.n].contains(&lkey)
    }
}

/// What the driver knows about the QP's state and attributes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Soft {
    pub state: QpState,
    pub path_mtu: u32,
    pub access: AccessFlags,
    /// The QP's whole hardware context as last written (the window is shared by every QP).
    pub win: QpWindow,
    /// The VID the RTR named (`win.vlan` holds its entry).
    pub vlan: Option<u16>,
    /// The RTR's max_dest_rd_atomic (the hardware keeps its atomic results whatever it says).
    pub max_dest_rd_atomic: u8,
}

/// The part of a QP the device's CQE routing reaches (through a `Weak`), so that dropping the
/// [`QueuePair`] handle is what destroys the QP.
///
/// Locks are taken in field order below (sq, rq, soft, send_out, recv_out); see `device.rs`.
pub(crate) struct QpInner {
    pub qpn: u32,
    /// QP_ERR_EVENTS when this QP's state was last read from the core: while it is unchanged, no QP
    /// has entered ERR by the core's doing, and the driver's state is the QP's.
    pub err_seen: AtomicU32,
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
        let hw = dev.qp_query(self.qpn);
        let sq_ci = hw.sq_ci;
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
        let rq_ci = hw.rq_ci;
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

    /// Any state → ERR: the core stops, and every outstanding work request completes with WR_FLUSH_ERR.
    pub(crate) fn to_error(&self, dev: &Device) {
        let win = {
            let mut soft = self.soft.lock().unwrap();
            soft.win.state = QpState::Err as u32;
            soft.win
        };
        dev.qp_command(self.qpn, &win, CMD_MODIFY);
        // Completions the core wrote before it stopped come first, in their CQs, ahead of the flushes.
        dev.drain_hw_cq();
        self.enter_error(dev);
    }

    /// Whether a work request the device has not consumed names `lkey` in its list.
    pub(crate) fn uses_lkey(&self, dev: &Device, lkey: u32) -> bool {
        let hw = dev.qp_query(self.qpn);
        let busy = |out: &Mutex<VecDeque<Outstanding>>, ci: u32| {
            out.lock()
                .unwrap()
                .iter()
                .any(|o| !consumed(o.index, ci) && o.lkeys.contains(lkey))
        };
        busy(&self.send_out, hw.sq_ci) || busy(&self.recv_out, hw.rq_ci)
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
    /// Creates an RC QP in RESET, with its send and receive rings in device-visible memory, on the lowest
    /// free QPN from [`QPN`] on (up to the device's QP table size).
    ///
    /// The device has one hardware CQ ring that every QP's CQEs go through (the driver routes them to the
    /// QP's CQs by QPN). The first QP creates it, sized for its two CQs (the sum of their depths, or one
    /// depth when they are the same CQ); a later QP's CQs must fit in it (share a CQ among many QPs).
    pub fn create(
        pd: &Arc<ProtectionDomain>,
        send_cq: &Arc<CompletionQueue>,
        recv_cq: &Arc<CompletionQueue>,
        caps: QpCaps,
    ) -> Result<QueuePair> {
        let dev = pd.ctx.dev.clone();
        let sq_log = super::check_depth(caps.max_send_wr)?;
        let rq_log = super::check_depth(caps.max_recv_wr)?;
        if caps.max_send_sge > MAX_SEND_SGE {
            return Err(Error::BadAttr(
                "max_send_sge above the 4 gather entries a send WQE holds",
            ));
        }
        if caps.max_recv_sge > MAX_RECV_SGE {
            return Err(Error::BadAttr(
                "max_recv_sge above the 4 scatter entries a receive WQE holds",
            ));
        }
        // A gather or scatter list needs the 128-byte WQE; one buffer fits the 64-byte header.
        let sq_wqe_128 = caps.max_send_sge > 1;
        let sq_stride = if sq_wqe_128 { WQE_128_BYTES } else { WQE_BYTES };
        let rq_wqe_128 = caps.max_recv_sge > 1;
        let rq_stride = if rq_wqe_128 { WQE_128_BYTES } else { WQE_BYTES };
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
        let mut qps = dev.qps.lock().unwrap();
        qps.retain(|_, w| w.strong_count() > 0);
        let qpn = (QPN..1 << dev.qp_log)
            .find(|n| !qps.contains_key(n))
            .ok_or(Error::NoFreeQp(1 << dev.qp_log))?;
        if let Some(hw) = hw_cq.as_ref() {
            if cq_log > hw.log_size {
                return Err(Error::BadAttr(
                    "the QP's CQs are deeper than the device's CQ ring (sized by the first QP): share a CQ",
                ));
            }
        }
        // Rings start on a beat (and a cache line): the core fetches them in whole beats.
        let align = dev.beat_bytes().max(64);
        let sq = dev.backend.alloc_dma(caps.max_send_wr * sq_stride, align)?;
        let rq = dev.backend.alloc_dma(caps.max_recv_wr * rq_stride, align)?;
        if hw_cq.is_none() {
            let cq = dev.backend.alloc_dma(cq_entries * CQE_BYTES, align)?;
            // Recycled memory may hold an old ring's CQEs whose owner bits would look new.
            cq.write(0, &vec![0; cq.len()])?;
            dev.write64(regs::CQ_BASE_LO, regs::CQ_BASE_HI, cq.iova());
            dev.write(regs::CQ_LOG_SIZE, cq_log);
            dev.write(regs::CQ_PI, 0);
            dev.write(regs::CQ_CI, 0);
            // The core writes the completion ring.
            dev.backend.grant_dma(cq.iova(), cq.len() as u64, true);
            *hw_cq = Some(HwCq {
                ring: cq,
                log_size: cq_log,
                ci: 0,
            });
        }
        let win = QpWindow {
            state: QpState::Reset as u32,
            pd: pd.pdn,
            pmtu_log: 10,
            udp_sport: 0xC000,
            ack_timeout: 100_000,
            retry_cnt: 7,
            rnr_retry: 7,
            max_rd_atomic: 1,
            min_rnr_timer: 1,
            sq_base: sq.iova(),
            sq_log,
            sq_wqe_128,
            rq_base: rq.iova(),
            rq_log,
            rq_wqe_128,
            ..QpWindow::default()
        };
        dev.qp_command(qpn, &win, CMD_MODIFY | CMD_INIT_RQ | CMD_INIT_SQ);
        // The core reads the work queues.
        dev.backend.grant_dma(sq.iova(), sq.len() as u64, false);
        dev.backend.grant_dma(rq.iova(), rq.len() as u64, false);
        let ring = |mem, log_size, stride| {
            Mutex::new(Ring {
                mem,
                log_size,
                stride,
                pi: 0,
                ci: 0,
            })
        };
        let inner = Arc::new(QpInner {
            qpn,
            err_seen: AtomicU32::new(dev.read(regs::QP_ERR_EVENTS)),
            pdn: pd.pdn,
            sq: ring(sq, sq_log, sq_stride),
            rq: ring(rq, rq_log, rq_stride),
            soft: Mutex::new(Soft {
                state: QpState::Reset,
                path_mtu: 0,
                access: AccessFlags::default(),
                win,
                vlan: None,
                max_dest_rd_atomic: 0,
            }),
            send_out: Mutex::new(VecDeque::new()),
            recv_out: Mutex::new(VecDeque::new()),
            send_cq: send_cq.clone(),
            recv_cq: recv_cq.clone(),
        });
        qps.insert(qpn, Arc::downgrade(&inner));
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
        // One register read while no QP went to ERR by the core's doing; QUERY only when one did.
        let events = self.dev.read(regs::QP_ERR_EVENTS);
        let soft = self.inner.soft.lock().unwrap().state;
        if soft == QpState::Err || events == self.inner.err_seen.load(Ordering::Relaxed) {
            return soft;
        }
        let hw = QpState::from_u32(self.dev.qp_state(self.inner.qpn)).unwrap_or(QpState::Err);
        self.inner.err_seen.store(events, Ordering::Relaxed);
        if hw == QpState::Err && soft != QpState::Err {
            self.dev.drain_hw_cq();
            self.inner.enter_error(&self.dev);
        }
        self.inner.soft.lock().unwrap().state
    }

    /// `ibv_query_qp`: the state (as [`QueuePair::query`] reads it) and the PSNs as the core holds them
    /// now (a QUERY command), the other attributes as last programmed.
    pub fn query_qp(&self) -> QpAttrs {
        let state = self.query();
        let (sq_psn, rq_psn) = self.dev.qp_psns(self.inner.qpn);
        let soft = *self.inner.soft.lock().unwrap();
        let w = soft.win;
        QpAttrs {
            state,
            path_mtu: if matches!(state, QpState::Reset | QpState::Init) {
                0
            } else {
                soft.path_mtu
            },
            dest_qpn: w.dest_qpn,
            sq_psn,
            rq_psn,
            access: soft.access,
            min_rnr_timer: w.min_rnr_timer as u8,
            ack_timeout_cycles: w.ack_timeout,
            retry_cnt: w.retry_cnt as u8,
            rnr_retry: w.rnr_retry as u8,
            max_rd_atomic: w.max_rd_atomic as u8,
            udp_sport: w.udp_sport as u16,
            traffic_class: (w.dscp << 2) as u8,
            hop_limit: w.hop_limit as u8,
            flow_label: w.flow_label,
            vlan: soft.vlan,
            max_dest_rd_atomic: soft.max_dest_rd_atomic,
            cap: QpCaps {
                max_send_wr: 1 << w.sq_log,
                max_recv_wr: 1 << w.rq_log,
                max_send_sge: if w.sq_wqe_128 { MAX_SEND_SGE } else { 1 },
                max_recv_sge: if w.rq_wqe_128 { MAX_RECV_SGE } else { 1 },
            },
        }
    }

    /// The QP's own counters, under rdma-core's names (`rdma statistic qp`): out_of_sequence (request
    /// packets ahead of the expected PSN), duplicate_request, packet_seq_err (sequence NAKs received),
    /// local_ack_timeout_err; and retransmits (go-back-N restarts, rocenic's name). The responder's count
    /// from RTR, the requester's from RTS; they live in the QP's context in the core (a QUERY reads them).
    pub fn counters(&self) -> Vec<(&'static str, u64)> {
        let c = self.dev.qp_counters(self.inner.qpn);
        counter_names()
            .iter()
            .zip(c)
            .map(|(&n, v)| (n, v as u64))
            .collect()
    }

    /// The access flags given at RESET → INIT.
    pub fn access(&self) -> AccessFlags {
        self.inner.soft.lock().unwrap().access
    }

    /// Moves the QP to the state `attr` names, programming that transition's attributes first and
    /// QP_STATE last, so the core never runs in the new state with the old attributes. Legal: RESET →
    /// INIT → RTR → RTS, RTS ⇄ SQD, any state → ERR, and [`QpAttr::Modify`] in RTR, RTS or SQD; anything
    /// else is [`Error::BadTransition`]. A refused transition writes nothing.
    pub fn modify(&self, attr: QpAttr) -> Result<()> {
        let to = match attr {
            QpAttr::Init(_) => QpState::Init,
            QpAttr::Rtr(_) => QpState::Rtr,
            QpAttr::Rts(_) => QpState::Rts,
            QpAttr::Sqd => QpState::Sqd,
            QpAttr::Modify(_) => self.query(),
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
        ) || (matches!(attr, QpAttr::Modify(_))
            && from == to
            && matches!(from, QpState::Rtr | QpState::Rts | QpState::Sqd));
        if !legal {
            return Err(Error::BadTransition { from, to });
        }
        // The rings' producer indices go into INIT_RQ / INIT_SQ: hold them so no doorbell slips between.
        let sq = self.inner.sq.lock().unwrap();
        let rq = self.inner.rq.lock().unwrap();
        let mut soft = self.inner.soft.lock().unwrap();
        if soft.state != from {
            // Another thread (or the core, moving it to ERR) changed the state since `query`.
            return Err(Error::BadTransition {
                from: soft.state,
                to,
            });
        }
        let d = &self.dev;
        let mut win = soft.win;
        let mut cmd = CMD_MODIFY;
        match attr {
            QpAttr::Init(a) => {
                check_init(&a)?;
                soft.access = a.access;
                win.access = remote_bits(a.access);
            }
            QpAttr::Rtr(a) => {
                if !matches!(a.path_mtu, 256 | 512 | 1024 | 2048 | 4096) {
                    return Err(Error::BadMtu(a.path_mtu));
                }
                check_min_rnr_timer(a.min_rnr_timer)?;
                if a.max_dest_rd_atomic as u32 > d.max_dest_rd_atomic() {
                    return Err(Error::BadAttr(
                        "max_dest_rd_atomic above the device's max_qp_rd_atom",
                    ));
                }
                if a.hop_limit == 0 {
                    // RFC 1122 3.2.1.7, RFC 8200 3: a host never sends a packet with TTL or hop limit 0.
                    return Err(Error::BadAttr(
                        "hop_limit 0: a packet needs at least one hop",
                    ));
                }
                if a.flow_label > 0xF_FFFF {
                    return Err(Error::BadAttr("flow_label has 20 bits"));
                }
                win.hop_limit = a.hop_limit as u32;
                win.flow_label = a.flow_label;
                win.vlan = match a.vlan {
                    None => 0,
                    Some(vid) => match d.vlan_entry(vid) {
                        Some(i) => regs::QP_VLAN_ON | i as u32,
                        None => return Err(Error::BadAttr(
                            "RtrAttrs::vlan names a VLAN the port is not on (Context::add_vlan)",
                        )),
                    },
                };
                win.pmtu_log = a.path_mtu.trailing_zeros();
                win.dest_qpn = a.dest_qpn & 0xFF_FFFF;
                win.rq_psn = a.rq_psn & 0xFF_FFFF;
                win.dest_mac = mac_to_u64(a.dest_mac);
                let (ip, gid_hi, ipv6) = path_of(d, &a)?;
                win.dest_ip = ip;
                win.dest_gid_hi = gid_hi;
                win.ipv6 = ipv6;
                win.udp_sport = a.udp_sport as u32;
                win.min_rnr_timer = a.min_rnr_timer as u32;
                win.dscp = (a.traffic_class >> 2) as u32;
                // The responder starts here: expected PSN, receives posted in INIT, nothing consumed.
                win.rq_pi = rq.pi;
                cmd |= CMD_INIT_RQ;
                soft.path_mtu = a.path_mtu;
                soft.vlan = a.vlan;
                soft.max_dest_rd_atomic = a.max_dest_rd_atomic;
            }
            QpAttr::Rts(a) => {
                check_retry_cnt(a.retry_cnt)?;
                check_rnr_retry(a.rnr_retry)?;
                if a.max_rd_atomic as u32 > d.max_rd_atomic() {
                    return Err(Error::BadAttr(
                        "max_rd_atomic above the device's max_qp_init_rd_atom",
                    ));
                }
                let cycles = a
                    .ack_timeout_cycles
                    .unwrap_or_else(|| ack_timeout_cycles(a.timeout, d.width.clock_mhz()));
                if from == QpState::Rtr {
                    win.sq_psn = a.sq_psn & 0xFF_FFFF;
                    win.sq_pi = sq.pi;
                    cmd |= CMD_INIT_SQ;
                }
                win.ack_timeout = cycles;
                win.retry_cnt = a.retry_cnt as u32;
                win.rnr_retry = a.rnr_retry as u32;
                win.max_rd_atomic = (a.max_rd_atomic as u32).max(1);
            }
            QpAttr::Sqd => {}
            QpAttr::Modify(m) => {
                let requester = m.timeout.is_some()
                    || m.ack_timeout_cycles.is_some()
                    || m.retry_cnt.is_some()
                    || m.rnr_retry.is_some();
                if requester && from == QpState::Rtr {
                    return Err(Error::BadAttr(
                        "timeout, retry_cnt and rnr_retry need RTS or SQD (they are the requester's)",
                    ));
                }
                m.min_rnr_timer.map_or(Ok(()), check_min_rnr_timer)?;
                m.retry_cnt.map_or(Ok(()), check_retry_cnt)?;
                m.rnr_retry.map_or(Ok(()), check_rnr_retry)?;
                if let Some(a) = m.access {
                    soft.access = a;
                    win.access = remote_bits(a);
                }
                if let Some(t) = m.min_rnr_timer {
                    win.min_rnr_timer = t as u32;
                }
                if let Some(c) = m.ack_timeout_cycles {
                    win.ack_timeout = c;
                } else if let Some(t) = m.timeout {
                    win.ack_timeout = ack_timeout_cycles(t, d.width.clock_mhz());
                }
                if let Some(r) = m.retry_cnt {
                    win.retry_cnt = r as u32;
                }
                if let Some(r) = m.rnr_retry {
                    win.rnr_retry = r as u32;
                }
            }
            QpAttr::Err => unreachable!("handled above"),
        }
        win.state = to as u32;
        d.qp_command(self.inner.qpn, &win, cmd);
        soft.win = win;
        soft.state = to;
        Ok(())
    }

    /// Any state → ERR: the core stops, and every outstanding work request completes with WR_FLUSH_ERR.
    fn to_error(&self) {
        self.inner.to_error(&self.dev);
    }
}

/// The remote operation bits of an access mask, as QP_ACCESS holds them.
/// The address-vector words of an RTR's path: DEST_IPV4, DEST_GID_0..2 and QP_IPV6. An IPv4 or
/// IPv4-mapped destination is an IPv4 path; any other IPv6 one needs a non-empty source GID entry.
fn path_of(d: &Device, a: &RtrAttrs) -> Result<(u32, [u32; 3], u32)> {
    let v6 = match a.dest_ip {
        IpAddr::V4(ip) => return Ok((u32::from(ip), [0; 3], 0)),
        IpAddr::V6(ip) => match ip.to_ipv4_mapped() {
            Some(v4) => return Ok((u32::from(v4), [0; 3], 0)),
            None => ip,
        },
    };
    if v6.is_unspecified() {
        return Err(Error::BadAttr("destination GID :: (unspecified)"));
    }
    let i = a.sgid_index as usize;
    if i >= regs::GID_TABLE_LEN {
        return Err(Error::BadAttr("sgid_index beyond the port GID table"));
    }
    if d.gid(i).is_unspecified() {
        return Err(Error::BadAttr("sgid_index names an empty GID table entry"));
    }
    let w = u128::from(v6);
    let hi = [(w >> 96) as u32, (w >> 64) as u32, (w >> 32) as u32];
    Ok((
        w as u32,
        hi,
        regs::QP_IPV6_ON | (i as u32) << regs::QP_IPV6_SGID_SHIFT,
    ))
}

fn remote_bits(a: AccessFlags) -> u32 {
    a.0 & (AccessFlags::REMOTE_WRITE.0 | AccessFlags::REMOTE_READ.0 | AccessFlags::REMOTE_ATOMIC.0)
}

fn check_min_rnr_timer(t: u8) -> Result<()> {
    if t > 31 {
        return Err(Error::BadAttr("min_rnr_timer above 31 (IBA: a 5-bit code)"));
    }
    Ok(())
}

fn check_retry_cnt(n: u8) -> Result<()> {
    if n > 7 {
        return Err(Error::BadAttr("retry_cnt above 7 (IBA: a 3-bit count)"));
    }
    Ok(())
}

fn check_rnr_retry(n: u8) -> Result<()> {
    if n > 7 {
        return Err(Error::BadAttr("rnr_retry above 7 (IBA: a 3-bit count)"));
    }
    Ok(())
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
        // Stop the engines touching the rings before their memory goes back to the arena (RESET, indices
        // and context cleared), and free the QPN. The last QP takes the device's CQ ring with it.
        let win = QpWindow {
            state: QpState::Reset as u32,
            ..QpWindow::default()
        };
        self.dev
            .qp_command(self.inner.qpn, &win, CMD_MODIFY | CMD_INIT_RQ | CMD_INIT_SQ);
        let mut hw_cq = self.dev.hw_cq.lock().unwrap();
        let mut qps = self.dev.qps.lock().unwrap();
        qps.remove(&self.inner.qpn);
        qps.retain(|_, w| w.strong_count() > 0);
        for ring in [&self.inner.sq, &self.inner.rq] {
            let mem = &ring.lock().unwrap().mem;
            self.dev
                .backend
                .revoke_dma(mem.iova(), mem.len() as u64, false);
        }
        if qps.is_empty() {
            if let Some(cq) = hw_cq.as_ref() {
                self.dev
                    .backend
                    .revoke_dma(cq.ring.iova(), cq.ring.len() as u64, true);
            }
            *hw_cq = None;
        }
    }
}

/// The names of the per-QP counters, in the order `Device::qp_counters` reads them.
pub(crate) fn counter_names() -> [&'static str; 5] {
    [
        "out_of_sequence",
        "duplicate_request",
        "packet_seq_err",
        "local_ack_timeout_err",
        "retransmits",
    ]
}
