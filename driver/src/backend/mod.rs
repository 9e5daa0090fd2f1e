//! The device behind a trait: register reads and writes on BAR0, device-visible memory with IOVAs, and a
//! way to let the device make progress. The co-simulated NIC implements it now ([`sim`]); a VFIO backend
//! maps onto it as BAR0 mmap (`read32`/`write32`), VFIO_IOMMU_MAP_DMA of pinned pages (`dma_window`) and a
//! spin or eventfd wait (`wait`).
#[cfg(feature = "sim")]
pub mod sim;

pub mod fake;

use crate::error::{Error, Result};
use std::sync::{Arc, Mutex};

/// Memory the device can reach by DMA, addressed by IOVA.
pub trait DmaMemory: Send + Sync {
    /// First IOVA of the window and its size in bytes.
    fn window(&self) -> (u64, usize);
    fn read(&self, iova: u64, buf: &mut [u8]);
    fn write(&self, iova: u64, data: &[u8]);
}

pub trait Backend: Send + Sync {
    fn read32(&self, offset: u16) -> u32;
    fn write32(&self, offset: u16, value: u32);
    /// The device-visible memory the driver allocates buffers, rings and DMA regions from.
    fn dma_memory(&self) -> Arc<dyn DmaMemory>;
    /// Let the device make progress while the host waits (the simulator advances its clock).
    fn wait(&self);
    fn describe(&self) -> String;
}

/// First-fit allocator over a backend's DMA window. Freed ranges are merged with their neighbours.
pub(crate) struct Arena {
    mem: Arc<dyn DmaMemory>,
    free: Mutex<Vec<(u64, u64)>>, // (start, end), sorted, disjoint
}

impl Arena {
    pub(crate) fn new(mem: Arc<dyn DmaMemory>) -> Arc<Arena> {
        let (base, size) = mem.window();
        Arc::new(Arena {
            mem,
            free: Mutex::new(vec![(base, base + size as u64)]),
        })
    }

    pub(crate) fn alloc(self: &Arc<Self>, len: usize, align: usize) -> Result<DmaRegion> {
        let align = align.max(1) as u64;
        let mut free = self.free.lock().unwrap();
        for i in 0..free.len() {
            let (start, end) = free[i];
            let at = start.div_ceil(align) * align;
            if at + len as u64 <= end {
                free.remove(i);
                if at > start {
                    free.insert(i, (start, at));
                }
                if at + (len as u64) < end {
                    let pos = free.partition_point(|r| r.0 < at);
                    free.insert(pos, (at + len as u64, end));
                }
                return Ok(DmaRegion {
                    arena: self.clone(),
                    iova: at,
                    len,
                });
            }
        }
        Err(Error::OutOfDmaMemory(len))
    }

    fn release(&self, iova: u64, len: usize) {
        let mut free = self.free.lock().unwrap();
        let pos = free.partition_point(|r| r.0 < iova);
        free.insert(pos, (iova, iova + len as u64));
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(free.len());
        for r in free.drain(..) {
            match merged.last_mut() {
                Some(last) if last.1 == r.0 => last.1 = r.1,
                _ => merged.push(r),
            }
        }
        *free = merged;
    }
}

/// A device-visible buffer: an IOVA range the driver owns until it is dropped.
pub struct DmaRegion {
    arena: Arc<Arena>,
    iova: u64,
    len: usize,
}

impl DmaRegion {
    pub fn iova(&self) -> u64 {
        self.iova
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    fn check(&self, offset: usize, len: usize) -> Result<()> {
        if offset.checked_add(len).is_none_or(|end| end > self.len) {
            return Err(Error::OutOfRegion {
                offset,
                len,
                size: self.len,
            });
        }
        Ok(())
    }
    pub fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        self.check(offset, data.len())?;
        self.arena.mem.write(self.iova + offset as u64, data);
        Ok(())
    }
    pub fn read(&self, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.check(offset, buf.len())?;
        self.arena.mem.read(self.iova + offset as u64, buf);
        Ok(())
    }
}

impl Drop for DmaRegion {
    fn drop(&mut self) {
        self.arena.release(self.iova, self.len);
    }
}

#[cfg(test)]
mod tests {
    use super::fake::FakeDevice;
    use super::*;

    #[test]
    fn arena_aligns_frees_and_merges() {
        let dev = FakeDevice::new(8);
        let arena = Arena::new(dev.dma_memory());
        let (base, size) = dev.dma_memory().window();
        let a = arena.alloc(100, 64).unwrap();
        let b = arena.alloc(100, 4096).unwrap();
        assert_eq!(a.iova(), base);
        assert_eq!(b.iova() % 4096, 0);
        assert!(b.iova() >= a.iova() + 100);
        drop(a);
        drop(b);
        // Everything merged back: the whole window can be taken again.
        let all = arena.alloc(size, 1).unwrap();
        assert_eq!(all.iova(), base);
        assert!(arena.alloc(1, 1).is_err());
    }

    #[test]
    fn region_bounds_are_checked() {
        let dev = FakeDevice::new(8);
        let arena = Arena::new(dev.dma_memory());
        let r = arena.alloc(16, 8).unwrap();
        r.write(8, &[1; 8]).unwrap();
        assert!(r.write(9, &[1; 8]).is_err());
        let mut buf = [0; 8];
        r.read(8, &mut buf).unwrap();
        assert_eq!(buf, [1; 8]);
    }
}
