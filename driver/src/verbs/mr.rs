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
        self.fence(dev);
        let mut mrs = dev.mrs.lock().unwrap();
        // The core stops using the entry before the memory goes back: the command completes first.
        mr_command(dev, self.index, regs::MR_CMD_INVALIDATE);
        mrs.entries[self.index] = None;
        drop(mrs);
        self.drain_remote(dev);
        let write = AccessFlags(self.mr.access).contains(AccessFlags::LOCAL_WRITE);
        dev.backend.revoke_dma(self.mr.iova, self.mr.len, write);
    }
}

impl MemoryRegion {
    /// Before the region goes: every QP of its PD with a work request not yet consumed that names it
    /// moves to ERR (its work requests flush, as a QP in error's do), then the transmit engine's claimed and
    /// in-flight payload reads drain, so no DMA reaches the memory once it is revoked. Deregistering a
    /// region that posted work still uses breaks `post_send`'s contract; this keeps the device from
    /// touching memory the host may reuse (rdma-core's providers leave it to the IOMMU to fault).
    fn fence(&self, dev: &Device) {
        let lkey = self.lkey();
        let qps: Vec<_> = dev
            .qps
            .lock()
            .unwrap()
            .values()
            .filter_map(std::sync::Weak::upgrade)
            .filter(|q| q.pdn == self.pd.pdn)
            .collect();
        let mut stopped = false;
        for q in qps {
            let live = !matches!(q.soft.lock().unwrap().state, QpState::Reset | QpState::Err);
            if live && q.uses_lkey(dev, lkey) {
                q.to_error(dev);
                stopped = true;
            }
        }
        if stopped {
            // TX_STATUS bit 6: a payload read claimed, not yet taken by the host; bit 29: payload reads
            // in flight. Then time for the receive path's writes already under way (a packet's worth).
            for _ in 0..FENCE_POLLS {
                if dev.read(regs::TX_STATUS) & ((1 << 6) | (1 << 29)) == 0 {
                    break;
                }
                dev.backend.wait();
            }
            for _ in 0..FENCE_DRAIN_WAITS {
                dev.backend.wait();
            }
        }
    }
}

impl MemoryRegion {
    /// After the key is invalidated no new remote request passes its check, but a READ the responder
    /// accepted before may still be answered from this memory: wait until the transmit engine has no READ
    /// response job (TX_STATUS bit 12) in two polls running (an accepted job waiting to start is taken
    /// within one), at most as long as reading the whole region takes, plus the receive path's writes under
    /// way.
    fn drain_remote(&self, dev: &Device) {
        if AccessFlags(self.mr.access).contains(AccessFlags::REMOTE_READ) {
            let polls = self.mr.len as usize / (8 * 64) + FENCE_POLLS;
            let mut quiet = 0;
            for _ in 0..polls {
                if dev.read(regs::TX_STATUS) & (1 << 12) == 0 {
                    quiet += 1;
                    if quiet == 2 {
                        break;
                    }
                } else {
                    quiet = 0;
                }
                dev.backend.wait();
            }
        }
        if AccessFlags(self.mr.access).contains(AccessFlags::REMOTE_WRITE) {
            for _ in 0..FENCE_DRAIN_WAITS {
                dev.backend.wait();
            }
        }
    }
}

/// Polls of TX_STATUS while a fence waits for the transmit engine's reads.
const FENCE_POLLS: usize = 200;
/// Waits (`Backend::wait`, 64 cycles each in simulation) for the receive path's writes under way: a
/// 4 KiB packet at 8 bytes a beat.
const FENCE_DRAIN_WAITS: usize = 10;

/// MR_CMD `cmd` on entry `index`, waiting for the core to complete it (the caller holds the MR lock,
/// which guards the window).
fn mr_command(dev: &Device, index: usize, cmd: u32) {
    dev.write(regs::MR_INDEX, index as u32);
    dev.write(regs::MR_CMD, cmd);
    dev.wait_command(regs::MR_CMD);
}
