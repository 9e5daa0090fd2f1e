//! Protection domains and memory regions. The hardware's MR table (2^MR_TABLE_LOG entries, filled
//! through the MR window and MR_CMD) holds every registration; a key is `index << 8 | variant`.
use super::context::Context;
use super::device::{Device, MrEntry};
use crate::backend::DmaRegion;
use crate::error::{Error, Result};
use rocenic_proto::host::QpState;
use rocenic_proto::regs;
use std::sync::Arc;

/// `ibv_access_flags` bits (the MRn_ACCESS register uses the same values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct AccessFlags(pub u32);

impl AccessFlags {
    pub const LOCAL_WRITE: AccessFlags = AccessFlags(1);
    pub const REMOTE_WRITE: AccessFlags = AccessFlags(2);
    pub const REMOTE_READ: AccessFlags = AccessFlags(4);
    pub const REMOTE_ATOMIC: AccessFlags = AccessFlags(8);
    /// A peer's SEND with invalidate may invalidate the MR (rocenic's; in kernel verbs, what a
    /// fast-registration MR allows). MR_ACCESS bit 7.
    pub const REMOTE_INVALIDATE: AccessFlags = AccessFlags(0x80);

    pub fn contains(self, other: AccessFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for AccessFlags {
    type Output = AccessFlags;
    fn bitor(self, rhs: AccessFlags) -> AccessFlags {
        AccessFlags(self.0 | rhs.0)
    }
}

/// A protection domain: an MR is usable only by a QP of the same PD (the core checks QP_PD = MRn_PD).
pub struct ProtectionDomain {
    pub(crate) ctx: Context,
    pub(crate) pdn: u32,
}

impl Drop for ProtectionDomain {
    fn drop(&mut self) {
        // Nothing of this PD is left in the core: its MRs and QPs held it and are gone.
        self.ctx.dev.pdns.lock().unwrap().free.push(self.pdn);
    }
}

impl ProtectionDomain {
    pub(crate) fn new(ctx: Context, pdn: u32) -> ProtectionDomain {
        ProtectionDomain { ctx, pdn }
    }

    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Registers `len` bytes of `region` from `offset` for `access`. The device's MR table gets a slot;
    /// the returned region's key is both lkey and rkey, and it holds `region` so the memory stays
    /// allocated while the device may use it.
    pub fn reg_mr(
        self: &Arc<Self>,
        region: &DmaRegion,
        offset: usize,
        len: usize,
        access: AccessFlags,
    ) -> Result<MemoryRegion> {
        if offset.checked_add(len).is_none_or(|end| end > region.len()) {
            return Err(Error::OutOfRegion {
                offset,
                len,
                size: region.len(),
            });
        }
        if access.0 & !0x8F != 0 {
            return Err(Error::InvalidAccess(access.0));
        }
        // IBA 10.6.3.1 (and ibv_reg_mr): the responder writes into the buffer on the QP's behalf.
        let needs_local_write = AccessFlags::REMOTE_WRITE.0 | AccessFlags::REMOTE_ATOMIC.0;
        if access.0 & needs_local_write != 0 && !access.contains(AccessFlags::LOCAL_WRITE) {
            return Err(Error::InvalidAccess(access.0));
        }
        // Length 0 means "entry invalid" to the core (MR_LEN and MR_LEN_HI both 0).
        if len == 0 {
            return Err(Error::Unsupported("a zero-length MR"));
        }
        let dev = &self.ctx.dev;
        let mut mrs = dev.mrs.lock().unwrap();
        let index = mrs
            .entries
            .iter()
            .position(Option::is_none)
            .ok_or(Error::NoFreeMr(mrs.entries.len()))?;
        // A new variant for every registration of the index: keys of earlier MRs there stop matching.
        mrs.variants[index] = mrs.variants[index].wrapping_add(1);
        let key = (index as u32) << regs::MR_KEY_VARIANT_BITS | mrs.variants[index] as u32;
        let mr = MrEntry {
            key,
            pd: self.pdn,
            iova: region.iova() + offset as u64,
            len: len as u64,
            access: access.0,
            invalidated: false,
        };
        dev.write64(regs::MR_BASE_LO, regs::MR_BASE_HI, mr.iova);
        dev.write64(regs::MR_LEN, regs::MR_LEN_HI, len as u64);
        dev.write(regs::MR_KEY, key);
        dev.write(regs::MR_ACCESS, access.0);
        dev.write(regs::MR_PD, self.pdn);
        mr_command(dev, index, regs::MR_CMD_WRITE);
        mrs.entries[index] = Some(mr);
        // The NIC writes into an MR only with LOCAL_WRITE (receives, READ results, remote writes and
        // atomics all need it); it may read any MR.
        dev.backend
            .grant_dma(mr.iova, mr.len, access.contains(AccessFlags::LOCAL_WRITE));
        Ok(MemoryRegion {
            pd: self.clone(),
            _memory: region.clone(),
            index,
            mr,
        })
    }
}

/// A registered memory region; deregistered (its MR table entry invalidated) when dropped.
pub struct MemoryRegion {
    pd: Arc<ProtectionDomain>,
    _memory: DmaRegion,
    index: usize,
    mr: MrEntry,
}

impl MemoryRegion {
    pub fn lkey(&self) -> u32 {
        self.mr.key
    }
    pub fn rkey(&self) -> u32 {
        self.mr.key
    }
    /// IOVA of the region's first byte: the address work requests and remote peers use.
    pub fn addr(&self) -> u64 {
        self.mr.iova
    }
    pub fn len(&self) -> usize {
        self.mr.len as usize
    }
    pub fn is_empty(&self) -> bool {
        self.mr.len == 0
    }
    pub fn access(&self) -> AccessFlags {
        AccessFlags(self.mr.access)
    }
    /// Whether a peer's SEND with invalidate has invalidated the MR (its keys no longer work; drop it
    /// and register again).
    pub fn is_invalidated(&self) -> bool {
        let mrs = self.pd.ctx.dev.mrs.lock().unwrap();
        mrs.entries[self.index].is_some_and(|m| m.invalidated)
    }
    pub fn pd(&self) -> &Arc<ProtectionDomain> {
        &self.pd
    }
}

impl Drop for MemoryRegion {
    fn drop(&mut self) {
        let dev = &self.pd.ctx.dev;
        self.stop_users(dev);
        let mut mrs = dev.mrs.lock().unwrap();
        // The core stops using the entry before the memory goes back: the command completes first.
        mr_command(dev, self.index, regs::MR_CMD_INVALIDATE);
        mrs.entries[self.index] = None;
        drop(mrs);
        self.quiesce(dev);
        let write = AccessFlags(self.mr.access).contains(AccessFlags::LOCAL_WRITE);
        dev.backend.revoke_dma(self.mr.iova, self.mr.len, write);
    }
}

impl MemoryRegion {
    /// Before the region goes: every QP of its PD with a work request not yet consumed that names it
    /// moves to ERR (its work requests flush, as a QP in error's do). Deregistering a region that posted
    /// work still uses breaks `post_send`'s contract; this keeps the device from touching memory the
    /// host may reuse (rdma-core's providers leave that to the IOMMU to fault).
    fn stop_users(&self, dev: &Device) {
        let lkey = self.lkey();
        let qps: Vec<_> = dev
            .qps
            .lock()
            .unwrap()
            .values()
            .filter_map(std::sync::Weak::upgrade)
            .filter(|q| q.pdn == self.pd.pdn)
            .collect();
        for q in qps {
            let live = !matches!(q.soft.lock().unwrap().state, QpState::Reset | QpState::Err);
            if live && q.uses_lkey(dev, lkey) {
                q.to_error(dev);
            }
        }
    }

    /// After the key is invalidated (no new request passes its check), what was under way finishes while
    /// the memory is still mapped: the transmit engine's claimed and in-flight payload reads (TX_STATUS
    /// bits 6 and 29; a read claimed ahead is requested even when its work request is gone), a READ
    /// response job already accepted (bit 12), and the writes of frames still arriving (RX_FRAMES still
    /// moving). Quiet means all of those clear across one `Backend::wait`; at most as long as reading the
    /// whole region takes.
    fn quiesce(&self, dev: &Device) {
        let busy = regs::TX_STATUS_PREFETCH_CLAIMED
            | regs::TX_STATUS_READ_RESPONSE
            | regs::TX_STATUS_PAYLOAD_READS;
        let polls = self.mr.len as usize / (8 * 64) + QUIESCE_POLLS;
        let mut last_rx = None;
        for _ in 0..polls {
            let rx = dev.read(regs::RX_FRAMES);
            if dev.read(regs::TX_STATUS) & busy == 0 && last_rx == Some(rx) {
                break;
            }
            last_rx = Some(rx);
            dev.backend.wait();
        }
    }
}

/// Polls (one `Backend::wait` each, 64 cycles in simulation) a quiesce takes at least allows for: a
/// 4 KiB packet's writes at 8 bytes a beat several times over.
const QUIESCE_POLLS: usize = 64;

/// MR_CMD `cmd` on entry `index`, waiting for the core to complete it (the caller holds the MR lock,
/// which guards the window).
fn mr_command(dev: &Device, index: usize, cmd: u32) {
    dev.write(regs::MR_INDEX, index as u32);
    dev.write(regs::MR_CMD, cmd);
    dev.wait_command(regs::MR_CMD);
}
