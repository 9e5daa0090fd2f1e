//! Posting work requests: validate, write the WQE at the producer slot, then ring the doorbell.
//!
//! Everything the device would reject later is checked here and returned as an error at once (the
//! ibverbs way for local protection errors): the QP state, each gather entry's lkey and bounds, the
//! number of entries, an atomic's alignment, and a full ring. A refused request writes nothing to the device.
use super::mr::AccessFlags;
use super::qp::{Lkeys, Outstanding, QueuePair, Ring};
use super::wr::{RecvRequest, RecvWr, SendFlags, SendOp, SendWr, Sge, WorkRequest};
use crate::error::{Error, Result};
use rocenic_proto::host::{QpState, WcOpcode, MAX_RECV_SGE, MAX_SEND_SGE, WQE_BYTES};
use rocenic_proto::regs;
use std::collections::VecDeque;
use std::sync::Mutex;

impl QueuePair {
    /// Posts a send work request (RDMA WRITE or SEND): the WQE goes into the send ring, then SQ_PI.
    ///
    /// # Safety
    /// The local buffer `wr.sge` names must stay allocated, registered and unchanged until the request
    /// completes (or is flushed): the device reads it by DMA after this call returns.
    pub unsafe fn post_send(&self, wr: &WorkRequest) -> Result<()> {
        // SAFETY: forwarded to the caller.
        unsafe { self.post_send_with(&wr.as_send_wr(), false) }
    }

    /// Posts a send work request that gathers its message from `wr.sg_list` (SEND or RDMA WRITE, up to
    /// the QP's `max_send_sge` entries, each checked like [`QueuePair::post_send`]'s one). The core reads
    /// each entry's bytes in turn (hdl `host::gather`): a packet may take bytes from several entries.
    /// For an RDMA READ the list is where the responses land, in order (hdl `host::scatter`; each entry
    /// needs LOCAL_WRITE). An atomic takes one entry.
    ///
    /// # Safety
    /// Every buffer the list names must stay allocated, registered and unchanged until the request
    /// completes (or is flushed); a READ's buffers must not be read as settled before then.
    pub unsafe fn post_send_gather(&self, wr: &SendWr) -> Result<()> {
        // SAFETY: forwarded to the caller.
        unsafe { self.post_send_with(wr, false) }
    }

    /// As [`QueuePair::post_send`], and the WQE is also written through the device's WQE push window
    /// (as ConnectX's BlueFlame does), so the core starts without fetching it by DMA: one host-memory
    /// read latency less from doorbell to wire, for 17 register writes more. The WQE is still written to
    /// the ring, which stays the record the driver flushes from; if the core reaches it after a later
    /// push replaced the window, it fetches it by DMA as usual.
    ///
    /// # Safety
    /// As for [`QueuePair::post_send`].
    pub unsafe fn post_send_push(&self, wr: &WorkRequest) -> Result<()> {
        // SAFETY: forwarded to the caller.
        unsafe { self.post_send_with(&wr.as_send_wr(), true) }
    }

    unsafe fn post_send_with(&self, wr: &SendWr, push: bool) -> Result<()> {
        // Notices (and flushes) an ERR the core entered by itself before deciding anything.
        self.query();
        let inner = &self.inner;
        let mut sq = inner.sq.lock().unwrap();
        let soft = *inner.soft.lock().unwrap();
        // In SQD the work request waits in the ring until the QP is back in RTS.
        if soft.state != QpState::Rts && soft.state != QpState::Sqd {
            return Err(Error::WrongState(soft.state, "RTS or SQD"));
        }
        // A READ writes its local buffer: that needs LOCAL_WRITE on the MR (IBA §10.6.3.1).
        let local = if wr.op.writes_local() {
            AccessFlags::LOCAL_WRITE
        } else {
            AccessFlags::default()
        };
        let max_sge = if sq.stride > WQE_BYTES {
            MAX_SEND_SGE
        } else {
            1
        };
        if wr.sg_list.len() > max_sge {
            return Err(Error::TooManySges {
                given: wr.sg_list.len(),
                max: max_sge,
            });
        }
        if wr.sg_list.len() > 1 && wr.op.is_atomic() {
            // An atomic's local buffer is one 8-byte word.
            return Err(Error::Unsupported(
                "a list of several local buffers on an atomic",
            ));
        }
        for sge in wr.sg_list {
            self.check_sge(sge, local)?;
        }
        let length = wr
            .length()
            .ok_or(Error::BadAttr("a gather list longer than 2^32 - 1 bytes"))?;
        // Buffers may start at any byte: the core realigns what it reads (hdl host::read_align) and
        // what it writes (host::write_align). Only an atomic's target has an alignment rule.
        match wr.op {
            SendOp::AtomicCmpSwap { remote_addr, .. }
            | SendOp::AtomicFetchAdd { remote_addr, .. } => {
                // One naturally aligned 8-byte word (IBA §9.4.5); the core handles any 8-byte offset
                // within its beat.
                if length != 8 {
                    return Err(Error::BadAttr("an atomic's SGE must be 8 bytes long"));
                }
                if remote_addr % 8 != 0 {
                    return Err(Error::Unaligned {
                        addr: remote_addr,
                        align: 8,
                    });
                }
            }
            _ => {}
        }
        if push && sq.stride > WQE_BYTES {
            return Err(Error::BadAttr(
                "the push window holds 64-byte WQEs: this QP's are 128 (max_send_sge > 1)",
            ));
        }
        self.make_room(&mut sq, regs::SQ_CI, "send")?;
        let out = Outstanding {
            index: 0, // set by `push`
            wr_id: wr.wr_id,
            opcode: wr.op.wc_opcode(),
            signaled: wr.flags.contains(SendFlags::SIGNALED),
            lkeys: Lkeys::of(wr.sg_list),
        };
        let wqe = wr.encode();
        let stride = sq.stride;
        self.push(
            &mut sq,
            &wqe[..stride],
            regs::SQ_PI,
            &inner.send_out,
            out,
            push,
        )
    }

    /// Posts a receive work request: the WQE goes into the receive ring, then RQ_PI. Allowed from INIT
    /// on, so receives can be in place before the peer starts sending.
    ///
    /// # Safety
    /// The buffer `wr.sge` names must stay allocated and registered until the request completes (or is
    /// flushed), and must not be read as settled before then: the device writes it by DMA.
    pub unsafe fn post_recv(&self, wr: &RecvRequest) -> Result<()> {
        // SAFETY: forwarded to the caller.
        unsafe { self.post_recv_scatter(&wr.as_recv_wr()) }
    }

    /// Posts a receive work request whose buffer is a scatter list (up to the QP's `max_recv_sge`
    /// entries, each checked like [`QueuePair::post_recv`]'s one). A SEND's payload fills the entries in
    /// order (hdl `host::scatter`); a WRITE with immediate only takes the WQE's wr_id, as with one entry.
    ///
    /// # Safety
    /// Every buffer the list names must stay allocated and registered until the request completes (or
    /// is flushed), and must not be read as settled before then.
    pub unsafe fn post_recv_scatter(&self, wr: &RecvWr) -> Result<()> {
        self.query();
        let inner = &self.inner;
        let stride = inner.rq.lock().unwrap().stride;
        let state = inner.soft.lock().unwrap().state;
        if !matches!(state, QpState::Init | QpState::Rtr | QpState::Rts) {
            return Err(Error::WrongState(state, "INIT, RTR or RTS"));
        }
        let max_sge = if stride > WQE_BYTES { MAX_RECV_SGE } else { 1 };
        if wr.sg_list.len() > max_sge {
            return Err(Error::TooManySges {
                given: wr.sg_list.len(),
                max: max_sge,
            });
        }
        for sge in wr.sg_list {
            self.check_sge(sge, AccessFlags::LOCAL_WRITE)?;
        }
        if wr.length().is_none() {
            return Err(Error::BadAttr("a scatter list longer than 2^32 - 1 bytes"));
        }
        // SAFETY: the caller's contract, and the WQE is the list's own encoding.
        unsafe { self.post_recv_listed(wr.wr_id, &wr.encode(), Lkeys::of(wr.sg_list)) }
    }

    /// Posts a receive WQE exactly as given (its first 64 bytes, or all 128 on a QP with
    /// `max_recv_sge` > 1), unchecked: for conformance cases that need a WQE the driver would refuse,
    /// to see what the core answers.
    ///
    /// # Safety
    /// As [`Self::post_recv_scatter`], for whatever memory the WQE names.
    #[doc(hidden)]
    pub unsafe fn post_recv_wqe(&self, wr_id: u64, wqe: &[u8; 128]) -> Result<()> {
        // SAFETY: forwarded to the caller.
        unsafe { self.post_recv_listed(wr_id, wqe, Lkeys::default()) }
    }

    /// [`Self::post_recv_wqe`], recording the list's lkeys.
    unsafe fn post_recv_listed(&self, wr_id: u64, wqe: &[u8; 128], lkeys: Lkeys) -> Result<()> {
        let inner = &self.inner;
        let mut rq = inner.rq.lock().unwrap();
        let state = inner.soft.lock().unwrap().state;
        if !matches!(state, QpState::Init | QpState::Rtr | QpState::Rts) {
            return Err(Error::WrongState(state, "INIT, RTR or RTS"));
        }
        self.make_room(&mut rq, regs::RQ_CI, "receive")?;
        let out = Outstanding {
            index: 0, // set by `push`
            wr_id,
            opcode: WcOpcode::Recv,
            signaled: true,
            lkeys,
        };
        let stride = rq.stride;
        self.push(
            &mut rq,
            &wqe[..stride],
            regs::RQ_PI,
            &inner.recv_out,
            out,
            false,
        )
    }

    /// The SGE's range must lie in an MR of this QP's PD with `need` access.
    fn check_sge(&self, sge: &Sge, need: AccessFlags) -> Result<()> {
        let mrs = self.dev.mrs.lock().unwrap();
        let covered = sge.addr.checked_add(sge.length as u64).is_some_and(|end| {
            mrs.get(sge.lkey).is_some_and(|m| {
                m.pd == self.inner.pdn
                    && AccessFlags(m.access).contains(need)
                    && sge.addr >= m.iova
                    && end <= m.iova + m.len
            })
        });
        if !covered {
            return Err(Error::LocalProtection {
                lkey: sge.lkey,
                addr: sge.addr,
                len: sge.length,
            });
        }
        Ok(())
    }

    /// Fails if every slot of `ring` holds a WQE the device has not consumed. The device's consumer index
    /// is read only when the cached one says the ring is full, to keep register reads off the fast path.
    fn make_room(&self, ring: &mut Ring, ci_reg: u16, what: &'static str) -> Result<()> {
        if ring.pi.wrapping_sub(ring.ci) >= ring.size() {
            let hw = self.dev.qp_query(self.inner.qpn);
            ring.ci = if ci_reg == regs::SQ_CI {
                hw.sq_ci
            } else {
                hw.rq_ci
            };
            if ring.pi.wrapping_sub(ring.ci) >= ring.size() {
                return Err(Error::QueueFull(what));
            }
        }
        Ok(())
    }

    /// Writes `wqe` at the producer slot, records the WR as outstanding at that index, and only then
    /// rings `doorbell` (through the push window too if `push`): the device may fetch the WQE the moment
    /// the doorbell lands.
    fn push(
        &self,
        ring: &mut Ring,
        wqe: &[u8],
        doorbell: u16,
        outstanding: &Mutex<VecDeque<Outstanding>>,
        mut wr: Outstanding,
        push: bool,
    ) -> Result<()> {
        let slot = (ring.pi & (ring.size() - 1)) as usize;
        ring.mem.write(slot * ring.stride, wqe)?;
        wr.index = ring.pi;
        outstanding.lock().unwrap().push_back(wr);
        ring.pi = ring.pi.wrapping_add(1);
        self.dev
            .doorbell(self.inner.qpn, doorbell, ring.pi, push.then_some(wqe));
        Ok(())
    }
}
