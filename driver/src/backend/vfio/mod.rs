//! The rocenic NIC behind VFIO: an FPGA board's PCI function, bound to `vfio-pci`, driven from user space.
//!
//! - [`sysfs`]: finds the device and its IOMMU group, with an error per missing piece;
//! - [`device`]: the generic VFIO PCI layer (config space, BAR mmap, IOMMU DMA mappings, MSI eventfds);
//! - [`VfioBackend`]: the [`Backend`] the verbs run on: registers in BAR0, one DMA window of host memory
//!   carved by a [`DmaArena`], the NIC's interrupt as an eventfd.
//!
//! The generic layer is tested against the kernel's real VFIO with QEMU's `edu` device behind an emulated
//! IOMMU (`testbench/vfio/edu-test.sh`); no FPGA is reachable from this project's CI.
pub mod device;
pub mod sysfs;

pub use device::{wait_event, Bar, DmaMapping, VfioPci};
pub use sysfs::PciAddress;

use super::{Backend, DmaArena, DmaRegion};
use crate::error::Result;
use std::sync::Arc;
use std::time::Duration;
use vmm_sys_util::eventfd::EventFd;

/// IOVA where the DMA window starts. Above 4 GiB on purpose: a NIC that truncates addresses to 32 bits
/// fails at once instead of corrupting low memory.
pub const DMA_WINDOW_IOVA: u64 = 1 << 32;

/// A rocenic NIC opened through VFIO.
pub struct VfioBackend {
    pci: Arc<VfioPci>,
    bar0: Bar,
    arena: Arc<DmaArena>,
    irq: Option<EventFd>,
}

impl VfioBackend {
    /// Opens the NIC at `addr`, maps BAR0 and `dma_bytes` of host memory (rounded up to 2 MiB, so huge
    /// pages are used when the system has them) at [`DMA_WINDOW_IOVA`], and routes MSI vector 0 to an
    /// eventfd when the device has MSI. `Context::open` then checks that it is a rocenic.
    pub fn open(addr: &str, dma_bytes: usize) -> Result<VfioBackend> {
        let pci = Arc::new(VfioPci::open(addr)?);
        pci.enable_bus_master();
        let bar0 = pci.bar(0)?;
        let len = dma_bytes.max(1).next_multiple_of(2 << 20);
        let window = pci.map_dma(DMA_WINDOW_IOVA, len)?;
        let irq = pci.enable_msi(1).ok().and_then(|mut v| v.pop());
        Ok(VfioBackend {
            pci,
            bar0,
            arena: DmaArena::new(Arc::new(window)),
            irq,
        })
    }
}

impl Backend for VfioBackend {
    fn read32(&self, offset: u16) -> u32 {
        self.bar0.read32(offset as u64)
    }
    fn write32(&self, offset: u16, value: u32) {
        self.bar0.write32(offset as u64, value)
    }
    fn alloc_dma(&self, len: usize, align: usize) -> Result<DmaRegion> {
        self.arena.alloc(len, align)
    }
    fn wait(&self) {
        // The hardware runs by itself; a poll loop only has to be polite to its sibling hyperthread.
        std::hint::spin_loop();
    }
    /// The eventfd MSI vector 0 signals. Without MSI (the device offered none) there is nothing to
    /// sleep on: that is an error, not a silent time-out.
    fn wait_interrupt(&self, timeout: Duration) -> Result<bool> {
        match &self.irq {
            Some(fd) => Ok(wait_event(fd, timeout)? > 0),
            None => Err(crate::Error::Unsupported(
                "interrupts: the device has no MSI",
            )),
        }
    }
    fn describe(&self) -> String {
        let (v, d) = self.pci.ids();
        format!(
            "VFIO {} ({v:04x}:{d:04x}, IOMMU group {}, BAR0 {} KiB {})",
            self.pci.address(),
            self.pci.iommu_group(),
            self.bar0.len() / 1024,
            if self.bar0.is_mapped() {
                "mmapped"
            } else {
                "via pread/pwrite"
            }
        )
    }
}
