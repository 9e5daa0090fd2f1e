//! The device context, protection domains and memory regions.
use super::cq::CompletionQueue;
use super::device::{Device, MrSlot};
use crate::backend::{Arena, Backend, DmaRegion};
use crate::error::{Error, Result};
use rocenic_proto::regs;
use rocenic_proto::Width;
use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// `ibv_access_flags` values (the MRn_ACCESS register uses the same bits).
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

/// An open device.
#[derive(Clone)]
pub struct Context {
    pub(crate) dev: Arc<Device>,
}

static NEXT_PD: AtomicU32 = AtomicU32::new(1);
static NEXT_KEY_TAG: AtomicU32 = AtomicU32::new(1);

impl Context {
    /// Opens the device behind `backend`: checks its identity and register-map version, learns the
    /// datapath width, and enables the engines.
    pub fn open(backend: Arc<dyn Backend>) -> Result<Context> {
        let id = backend.read32(regs::ID);
        if id != regs::ID_VALUE {
            return Err(Error::NotRocenic(id));
        }
        let version = backend.read32(regs::VERSION);
        if version >> 16 != regs::VERSION_VALUE >> 16 {
            return Err(Error::Version {
                found: version,
                expected: regs::VERSION_VALUE >> 16,
            });
        }
        let beat_bytes = backend.read32(regs::DATAPATH_BYTES) as usize;
        let clock_mhz = if beat_bytes == Width::W512.bytes() {
            Width::W512
        } else {
            Width::W64
        }
        .clock_mhz();
        let arena = Arena::new(backend.dma_memory());
        backend.write32(regs::CONTROL, regs::CONTROL_ENABLE);
        Ok(Context {
            dev: Arc::new(Device {
                backend,
                arena,
                beat_bytes,
                clock_mhz,
                mr_slots: Mutex::new([None; regs::MR_SLOTS]),
                hw_cq: Mutex::new(None),
                qp: Mutex::new(None),
                flushed_wqes: AtomicU64::new(0),
            }),
        })
    }

    pub fn describe(&self) -> String {
        self.dev.backend.describe()
    }

    /// Bytes per datapath beat: also the alignment this hardware generation needs for DMA addresses.
    pub fn beat_bytes(&self) -> usize {
        self.dev.beat_bytes
    }

    /// The core clock the device's width is designed for.
    pub fn clock_mhz(&self) -> f64 {
        self.dev.clock_mhz
    }

    /// Programs the port's MAC and IPv4 address (its RoCEv2 GID is the IPv4-mapped address).
    pub fn set_port(&self, mac: [u8; 6], ip: Ipv4Addr) {
        let m = u64::from_be_bytes([0, 0, mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]]);
        self.dev.write64(regs::MAC_LO, regs::MAC_HI, m);
        self.dev.write(regs::IPV4, u32::from(ip));
    }

    pub fn alloc_pd(&self) -> Arc<ProtectionDomain> {
        Arc::new(ProtectionDomain {
            ctx: self.clone(),
            pdn: NEXT_PD.fetch_add(1, Ordering::Relaxed),
        })
    }

    /// Device-visible memory for data buffers, page-aligned.
    pub fn alloc_dma(&self, len: usize) -> Result<DmaRegion> {
        self.dev.arena.alloc(len, 4096)
    }

    /// A completion queue holding up to `depth` completions.
    pub fn create_cq(&self, depth: usize) -> Result<Arc<CompletionQueue>> {
        Ok(Arc::new(CompletionQueue::new(self.dev.clone(), depth)))
    }

    /// Let the device make progress (the simulator advances its clock; hardware just runs).
    pub fn wait(&self) {
        self.dev.backend.wait()
    }

    /// Every counter register by its name, plus the driver's own `flushed_wqes`.
    pub fn counters(&self) -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = regs::REGISTERS
            .iter()
            .filter(|r| r.offset >= regs::RX_FRAMES)
            .map(|r| (r.name.to_lowercase(), self.dev.read(r.offset) as u64))
            .collect();
        v.push((
            "flushed_wqes".into(),
            self.dev.flushed_wqes.load(Ordering::Relaxed),
        ));
        v
    }
}

pub struct ProtectionDomain {
    pub(crate) ctx: Context,
    pub(crate) pdn: u32,
}

impl ProtectionDomain {
    /// Registers `len` bytes of `region` from `offset` for `access`: the device's MR table gets a slot,
    /// and the returned region's key is both lkey and rkey.
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
        let dev = &self.ctx.dev;
        let mut slots = dev.mr_slots.lock().unwrap();
        let slot = slots
            .iter()
            .position(Option::is_none)
            .ok_or(Error::NoMrSlot(regs::MR_SLOTS))?;
        // The low byte names the slot; the rest changes per registration so a stale key does not match.
        let key = (NEXT_KEY_TAG.fetch_add(1, Ordering::Relaxed) << 8) | slot as u32;
        let mr = MrSlot {
            key,
            pd: self.pdn,
            iova: region.iova() + offset as u64,
            len: len as u64,
            access: access.0,
        };
        let r = |off| regs::mr_reg(off, slot);
        dev.write(r(regs::MR0_LEN), 0); // invalid while it changes
        dev.write64(r(regs::MR0_BASE_LO), r(regs::MR0_BASE_HI), mr.iova);
        dev.write(r(regs::MR0_KEY), key);
        dev.write(r(regs::MR0_ACCESS), access.0);
        dev.write(r(regs::MR0_PD), self.pdn);
        dev.write(r(regs::MR0_LEN), len as u32);
        slots[slot] = Some(mr);
        Ok(MemoryRegion {
            pd: self.clone(),
            slot,
            mr,
        })
    }
}

/// A registered memory region; deregistered when dropped.
pub struct MemoryRegion {
    pd: Arc<ProtectionDomain>,
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
    /// IOVA of the region's first byte.
    pub fn addr(&self) -> u64 {
        self.mr.iova
    }
    pub fn len(&self) -> usize {
        self.mr.len as usize
    }
    pub fn is_empty(&self) -> bool {
        self.mr.len == 0
    }
}

impl Drop for MemoryRegion {
    fn drop(&mut self) {
        let dev = &self.pd.ctx.dev;
        dev.write(regs::mr_reg(regs::MR0_LEN, self.slot), 0);
        dev.mr_slots.lock().unwrap()[self.slot] = None;
    }
}
