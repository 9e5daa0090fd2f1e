//! Protection domains and memory regions. The hardware's MR table has `MR_SLOTS` (4) slots of registers;
//! a registration takes a slot and deregistration (drop) frees it.
use super::context::Context;
use super::device::MrSlot;
use crate::backend::DmaRegion;
use crate::error::{Error, Result};
use rocenic_proto::regs;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// `ibv_access_flags` bits (the MRn_ACCESS register uses the same values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct AccessFlags(pub u32);

impl AccessFlags {
    pub const LOCAL_WRITE: AccessFlags = AccessFlags(1);
    pub const REMOTE_WRITE: AccessFlags = AccessFlags(2);
    pub const REMOTE_READ: AccessFlags = AccessFlags(4);
    pub const REMOTE_ATOMIC: AccessFlags = AccessFlags(8);

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
        // IBA 10.6.3.1 (and ibv_reg_mr): the responder writes into the buffer on the QP's behalf.
        let needs_local_write = AccessFlags::REMOTE_WRITE.0 | AccessFlags::REMOTE_ATOMIC.0;
        if access.0 & needs_local_write != 0 && !access.contains(AccessFlags::LOCAL_WRITE) {
            return Err(Error::InvalidAccess(access.0));
        }
        // MRn_LEN is 32 bits, and 0 there means "slot unused".
        let len32 = match u32::try_from(len) {
            Ok(0) => return Err(Error::Unsupported("a zero-length MR")),
            Ok(n) => n,
            Err(_) => return Err(Error::Unsupported("an MR of 4 GiB or more")),
        };
        let dev = &self.ctx.dev;
        let mut slots = dev.mr_slots.lock().unwrap();
        let slot = slots
            .iter()
            .position(Option::is_none)
            .ok_or(Error::NoMrSlot(slots.len()))?;
        // The low byte names the slot; the rest changes per registration so a stale key does not match.
        let tag = dev.next_key_tag.fetch_add(1, Ordering::Relaxed) & 0xFF_FFFF;
        let key = (tag << 8) | slot as u32;
        let mr = MrSlot {
            key,
            pd: self.pdn,
            iova: region.iova() + offset as u64,
            len: len as u64,
            access: access.0,
        };
        let r = |off| regs::mr_reg(off, slot);
        // LEN = 0 marks the slot unused: keep it so while the other fields change, and write it last.
        dev.write(r(regs::MR0_LEN), 0);
        dev.write64(r(regs::MR0_BASE_LO), r(regs::MR0_BASE_HI), mr.iova);
        dev.write(r(regs::MR0_KEY), key);
        dev.write(r(regs::MR0_ACCESS), access.0);
        dev.write(r(regs::MR0_PD), self.pdn);
        dev.write(r(regs::MR0_LEN), len32);
        slots[slot] = Some(mr);
        // The NIC writes into an MR only with LOCAL_WRITE (receives, READ results, remote writes and
        // atomics all need it); it may read any MR.
        dev.backend
            .grant_dma(mr.iova, mr.len, access.contains(AccessFlags::LOCAL_WRITE));
        Ok(MemoryRegion {
            pd: self.clone(),
            _memory: region.clone(),
            slot,
            mr,
        })
    }
}

/// A registered memory region; deregistered (its slot cleared) when dropped.
pub struct MemoryRegion {
    pd: Arc<ProtectionDomain>,
    _memory: DmaRegion,
    slot: usize,
    mr: MrSlot,
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
    pub fn pd(&self) -> &Arc<ProtectionDomain> {
        &self.pd
    }
}

impl Drop for MemoryRegion {
    fn drop(&mut self) {
        let dev = &self.pd.ctx.dev;
        let mut slots = dev.mr_slots.lock().unwrap();
        dev.write(regs::mr_reg(regs::MR0_LEN, self.slot), 0);
        slots[self.slot] = None;
        dev.backend.revoke_dma(self.mr.iova);
    }
}
