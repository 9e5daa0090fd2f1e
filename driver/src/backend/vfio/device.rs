//! A PCI function opened through VFIO (type-1 IOMMU container, `vfio-ioctls`): config space, BARs mapped
//! into the process, host memory mapped into the device's IOVA space, and MSI interrupts as eventfds.
//! Nothing here knows about rocenic; [`super::VfioBackend`] builds the NIC backend on it, and the `edu`
//! test (`vfio-edu` binary) drives QEMU's `edu` device through exactly this code.
use super::sysfs::{self, PciAddress, Probe, Roots};
use crate::error::{Error, Result};
use memmap2::{MmapMut, MmapOptions};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::time::Duration;
use vfio_bindings::bindings::vfio::{
    VFIO_PCI_CONFIG_REGION_INDEX, VFIO_PCI_MSI_IRQ_INDEX, VFIO_REGION_INFO_FLAG_MMAP,
};
use vfio_ioctls::{VfioContainer, VfioDevice};
use vmm_sys_util::eventfd::EventFd;

/// PCI command register (config offset 4) and its bus-master enable bit: without it the device's DMA is
/// refused upstream. vfio-pci leaves it to the user, as QEMU leaves it to the guest driver.
const PCI_COMMAND: u64 = 0x04;
const PCI_COMMAND_MEMORY: u16 = 1 << 1;
const PCI_COMMAND_MASTER: u16 = 1 << 2;

fn vfio_err(what: &'static str) -> impl FnOnce(vfio_ioctls::VfioError) -> Error {
    move |e| Error::Vfio {
        what,
        reason: e.to_string(),
    }
}

/// An open VFIO PCI function.
pub struct VfioPci {
    probe: Probe,
    // Field order is drop order: the device fd closes before the container releases the group.
    device: VfioDevice,
    container: Arc<VfioContainer>,
}

impl VfioPci {
    /// Opens `addr` (e.g. `0000:00:06.0`), after checking sysfs so each missing piece gets its own error.
    pub fn open(addr: &str) -> Result<VfioPci> {
        let addr: PciAddress = addr.parse()?;
        let probe = sysfs::probe(&Roots::system(), addr)?;
        let container = Arc::new(VfioContainer::new(None).map_err(|e| match e {
            vfio_ioctls::VfioError::OpenContainer(io) => {
                sysfs::open_error("/dev/vfio/vfio".as_ref(), io.kind())
            }
            e => vfio_err("container")(e),
        })?);
        let device = VfioDevice::new(&probe.sysfs, container.clone()).map_err(|e| match e {
            vfio_ioctls::VfioError::OpenGroup(io, g) => {
                sysfs::open_error(format!("/dev/vfio/{g}").as_ref(), io.kind())
            }
            vfio_ioctls::VfioError::GroupViable => Error::Vfio {
                what: "group",
                reason: format!(
                    "group {} is not viable: bind every device in it to vfio-pci",
                    probe.group
                ),
            },
            e => vfio_err("device")(e),
        })?;
        Ok(VfioPci {
            probe,
            device,
            container,
        })
    }

    pub fn address(&self) -> PciAddress {
        self.probe.addr
    }
    /// (vendor, device) IDs from sysfs.
    pub fn ids(&self) -> (u16, u16) {
        (self.probe.vendor, self.probe.device)
    }
    pub fn iommu_group(&self) -> u32 {
        self.probe.group
    }

    pub fn config_read16(&self, offset: u64) -> u16 {
        let mut b = [0u8; 2];
        self.device
            .region_read(VFIO_PCI_CONFIG_REGION_INDEX, &mut b, offset);
        u16::from_le_bytes(b)
    }
    pub fn config_write16(&self, offset: u64, value: u16) {
        self.device
            .region_write(VFIO_PCI_CONFIG_REGION_INDEX, &value.to_le_bytes(), offset);
    }

    /// Turns on memory decoding and bus mastering, so BAR accesses and device DMA go through.
    pub fn enable_bus_master(&self) {
        let cmd = self.config_read16(PCI_COMMAND);
        self.config_write16(PCI_COMMAND, cmd | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
    }

    /// Maps BAR `index` (0..=5) into the process; a BAR VFIO does not allow to mmap is reached with
    /// pread/pwrite on the device fd instead (slower, same results).
    pub fn bar(self: &Arc<Self>, index: u32) -> Result<Bar> {
        let size = self.device.get_region_size(index);
        if size == 0 {
            return Err(Error::Vfio {
                what: "BAR",
                reason: format!("BAR{index} of {} is not implemented", self.probe.addr),
            });
        }
        let mapped = if self.device.get_region_flags(index) & VFIO_REGION_INFO_FLAG_MMAP != 0 {
            let offset = self.device.get_region_offset(index);
            // SAFETY: a BAR mapping is device memory, not a file other processes change under us; it
            // is only accessed through volatile 32-bit reads and writes in `Bar`, never as a slice.
            let map = unsafe {
                MmapOptions::new()
                    .offset(offset)
                    .len(size as usize)
                    .map_mut(self.device.as_raw_fd())
            }
            .map_err(|e| Error::Vfio {
                what: "BAR mmap",
                reason: e.to_string(),
            })?;
            Some(map)
        } else {
            None
        };
        Ok(Bar {
            dev: self.clone(),
            index,
            len: size,
            ptr: mapped.as_ref().map(|m| m.as_ptr() as *mut u8),
            _map: mapped,
        })
    }

    /// Allocates `len` bytes of host memory (2 MiB huge pages when `len` is a multiple of 2 MiB and the
    /// system has free huge pages, else 4 KiB pages) and maps it for the device at `iova`. VFIO pins
    /// the pages for as long as the mapping lives.
    pub fn map_dma(self: &Arc<Self>, iova: u64, len: usize) -> Result<DmaMapping> {
        let err = |reason: String| Error::DmaMap {
            iova,
            len: len as u64,
            reason,
        };
        if len == 0 || !iova.is_multiple_of(4096) || !len.is_multiple_of(4096) {
            return Err(err(
                "IOVA and length must be non-zero multiples of 4 KiB".into()
            ));
        }
        let huge = len.is_multiple_of(2 << 20);
        let (mut mem, huge) =
            match huge.then(|| MmapOptions::new().len(len).huge(Some(21)).map_anon()) {
                Some(Ok(m)) => (m, true),
                _ => (
                    MmapOptions::new()
                        .len(len)
                        .map_anon()
                        .map_err(|e| err(e.to_string()))?,
                    false,
                ),
            };
        let host = mem.as_mut_ptr();
        self.container
            .vfio_dma_map(iova, len as u64, host as u64)
            .map_err(|e| {
                let mut reason = e.to_string();
                if reason.contains("os error 12") {
                    reason += " (over the locked-memory limit? raise it with ulimit -l)";
                }
                err(reason)
            })?;
        Ok(DmaMapping {
            dev: self.clone(),
            iova,
            len,
            host,
            huge,
            _mem: mem,
        })
    }

    /// Routes the device's MSI vectors to `count` eventfds (vector i signals the i-th).
    pub fn enable_msi(&self, count: usize) -> Result<Vec<EventFd>> {
        let avail = self
            .device
            .get_irq_info(VFIO_PCI_MSI_IRQ_INDEX)
            .map_or(0, |i| i.count as usize);
        if count == 0 || count > avail {
            return Err(Error::Vfio {
                what: "MSI",
                reason: format!("{count} vectors asked, the device offers {avail}"),
            });
        }
        let fds = (0..count)
            .map(|_| EventFd::new(libc::EFD_NONBLOCK))
            .collect::<std::io::Result<Vec<_>>>()
            .map_err(|e| Error::Vfio {
                what: "eventfd",
                reason: e.to_string(),
            })?;
        self.device
            .enable_msi(fds.iter().collect())
            .map_err(vfio_err("enable MSI"))?;
        Ok(fds)
    }

    pub fn disable_msi(&self) -> Result<()> {
        self.device.disable_msi().map_err(vfio_err("disable MSI"))
    }
}

/// Waits up to `timeout` for `fd` to be signalled; returns the number of signals (0 on time-out).
pub fn wait_event(fd: &EventFd, timeout: Duration) -> Result<u64> {
    let mut p = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
    // SAFETY: `p` is one valid pollfd for the duration of the call.
    let n = unsafe { libc::poll(&mut p, 1, ms) };
    if n < 0 {
        return Err(Error::Vfio {
            what: "poll",
            reason: std::io::Error::last_os_error().to_string(),
        });
    }
    if n == 0 {
        return Ok(0);
    }
    fd.read().map_err(|e| Error::Vfio {
        what: "eventfd read",
        reason: e.to_string(),
    })
}

/// One BAR of a [`VfioPci`]: 32-bit register accesses, bounds-checked.
pub struct Bar {
    dev: Arc<VfioPci>,
    index: u32,
    len: u64,
    ptr: Option<*mut u8>,
    _map: Option<MmapMut>,
}

// SAFETY: the raw pointer is only the base of the mapping `_map` owns; accesses through it are single
// volatile loads and stores, which device registers take from any thread.
unsafe impl Send for Bar {}
// SAFETY: as above; `Bar` has no interior state besides the mapping.
unsafe impl Sync for Bar {}

impl Bar {
    pub fn len(&self) -> u64 {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// True when the BAR is mmapped (false: accessed with pread/pwrite on the device fd).
    pub fn is_mapped(&self) -> bool {
        self.ptr.is_some()
    }

    fn check(&self, offset: u64) {
        assert!(
            offset.is_multiple_of(4) && offset + 4 <= self.len,
            "BAR{} access at {offset:#x} outside its {:#x} bytes or unaligned",
            self.index,
            self.len
        );
    }

    pub fn read32(&self, offset: u64) -> u32 {
        self.check(offset);
        match self.ptr {
            // SAFETY: `check` keeps the aligned 4-byte access inside the mapping.
            Some(p) => unsafe { p.add(offset as usize).cast::<u32>().read_volatile() },
            None => {
                let mut b = [0u8; 4];
                self.dev.device.region_read(self.index, &mut b, offset);
                u32::from_le_bytes(b)
            }
        }
    }

    pub fn write32(&self, offset: u64, value: u32) {
        self.check(offset);
        match self.ptr {
            // SAFETY: `check` keeps the aligned 4-byte access inside the mapping.
            Some(p) => unsafe { p.add(offset as usize).cast::<u32>().write_volatile(value) },
            None => self
                .dev
                .device
                .region_write(self.index, &value.to_le_bytes(), offset),
        }
    }
}

/// Host memory mapped for a device's DMA at a fixed IOVA; unmapped from the IOMMU when dropped (after
/// which the device can no longer reach it).
pub struct DmaMapping {
    dev: Arc<VfioPci>,
    iova: u64,
    len: usize,
    host: *mut u8,
    huge: bool,
    _mem: MmapMut,
}

// SAFETY: `host` points into `_mem`, which this value owns; all accesses are raw copies (see DmaWindow).
unsafe impl Send for DmaMapping {}
// SAFETY: as above.
unsafe impl Sync for DmaMapping {}

impl DmaMapping {
    pub fn iova(&self) -> u64 {
        self.iova
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Backed by 2 MiB huge pages.
    pub fn is_huge(&self) -> bool {
        self.huge
    }
}

impl Drop for DmaMapping {
    fn drop(&mut self) {
        // The memory is freed right after: a failed unmap would leave the device a path into freed
        // memory, so it is not something to continue past silently.
        if let Err(e) = self
            .dev
            .container
            .vfio_dma_unmap(self.iova, self.len as u64)
        {
            panic!(
                "VFIO_IOMMU_UNMAP_DMA of {:#x}+{:#x} failed: {e}",
                self.iova, self.len
            );
        }
    }
}

// SAFETY: `host` is the start of `_mem`, `len` bytes, mapped read-write for the mapping's life; `read` and
// `write` are raw copies that create no references into the memory the device writes.
unsafe impl super::super::DmaWindow for DmaMapping {
    fn base_iova(&self) -> u64 {
        self.iova
    }
    fn size(&self) -> usize {
        self.len
    }
    fn read(&self, iova: u64, buf: &mut [u8]) {
        let off = (iova - self.iova) as usize;
        assert!(off + buf.len() <= self.len, "read outside the DMA mapping");
        // SAFETY: the range is inside the mapping (checked above) and `buf` is a distinct Rust buffer.
        unsafe { std::ptr::copy_nonoverlapping(self.host.add(off), buf.as_mut_ptr(), buf.len()) }
    }
    fn write(&self, iova: u64, data: &[u8]) {
        let off = (iova - self.iova) as usize;
        assert!(
            off + data.len() <= self.len,
            "write outside the DMA mapping"
        );
        // SAFETY: as in `read`, the other direction.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.host.add(off), data.len()) }
    }
    fn host_ptr(&self) -> *mut u8 {
        self.host
    }
}
