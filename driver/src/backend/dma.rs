//! Device-visible memory: a backend's DMA window, a first-fit arena over it, and the regions handed out.
use crate::error::{Error, Result};
use std::sync::{Arc, Mutex};

/// A range of host memory the device reaches by DMA, addressed by IOVA. Backends implement it; the driver
/// only touches it through [`DmaRegion`], which keeps every access inside a region it allocated.
///
/// # Safety
/// Implementors promise that [`host_ptr`](DmaWindow::host_ptr) points to `size()` bytes that stay
/// mapped, readable and writable for as long as the window lives, and that `read`/`write` access exactly
/// those bytes (byte `iova - base_iova()`) without creating Rust references that the device's DMA could
/// alias (atomics or raw-pointer copies). [`DmaRegion::as_mut_ptr`] relies on both.
pub unsafe trait DmaWindow: Send + Sync {
    /// IOVA of the window's first byte.
    fn base_iova(&self) -> u64;
    /// Size of the window in bytes.
    fn size(&self) -> usize;
    /// Copies `buf.len()` bytes from `iova`. The caller keeps the range inside the window.
    fn read(&self, iova: u64, buf: &mut [u8]);
    /// Copies `data` to `iova`. The caller keeps the range inside the window.
    fn write(&self, iova: u64, data: &[u8]);
    /// Host address of the byte at `base_iova()`.
    fn host_ptr(&self) -> *mut u8;
}

/// First-fit allocator over a [`DmaWindow`]. Freed ranges merge with their neighbours, so a long-running
/// program that allocates and frees does not fragment the window into uselessness.
pub struct DmaArena {
    window: Arc<dyn DmaWindow>,
    /// Free ranges as (start, end) IOVAs: sorted, disjoint, never adjacent.
    free: Mutex<Vec<(u64, u64)>>,
}

impl DmaArena {
    pub fn new(window: Arc<dyn DmaWindow>) -> Arc<DmaArena> {
        let base = window.base_iova();
        let end = base + window.size() as u64;
        Arc::new(DmaArena {
            window,
            free: Mutex::new(vec![(base, end)]),
        })
    }

    /// `len` bytes at an IOVA that is a multiple of `align` (0 counts as 1).
    pub fn alloc(self: &Arc<Self>, len: usize, align: usize) -> Result<DmaRegion> {
        let align = align.max(1) as u64;
        // A zero-length region still takes a byte, so two regions never share an IOVA.
        let take = len.max(1) as u64;
        let mut free = self.free.lock().unwrap();
        for i in 0..free.len() {
            let (start, end) = free[i];
            let at = start.div_ceil(align) * align;
            if at.checked_add(take).is_none_or(|e| e > end) {
                continue;
            }
            // Split the free range into what is left before and after the allocation.
            free.remove(i);
            if at + take < end {
                free.insert(i, (at + take, end));
            }
            if at > start {
                free.insert(i, (start, at));
            }
            return Ok(DmaRegion {
                alloc: Arc::new(Allocation {
                    arena: self.clone(),
                    iova: at,
                    len,
                    take,
                }),
            });
        }
        Err(Error::OutOfDmaMemory(len))
    }

    fn release(&self, iova: u64, take: u64) {
        let mut free = self.free.lock().unwrap();
        let pos = free.partition_point(|r| r.0 < iova);
        free.insert(pos, (iova, iova + take));
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

struct Allocation {
    arena: Arc<DmaArena>,
    iova: u64,
    len: usize,
    /// Bytes reserved in the arena (`len`, at least 1).
    take: u64,
}

impl Drop for Allocation {
    fn drop(&mut self) {
        self.arena.release(self.iova, self.take);
    }
}

/// A device-visible buffer: `len` bytes at IOVA `iova`. Clones share the same memory, which returns to the
/// arena when the last clone is dropped; a [`crate::MemoryRegion`] holds a clone so registered memory
/// cannot be freed under the device.
#[derive(Clone)]
pub struct DmaRegion {
    alloc: Arc<Allocation>,
}

impl std::fmt::Debug for DmaRegion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DmaRegion({:#x}, +{:#x})", self.iova(), self.len())
    }
}

impl DmaRegion {
    /// IOVA of the first byte: the address the device uses.
    pub fn iova(&self) -> u64 {
        self.alloc.iova
    }
    pub fn len(&self) -> usize {
        self.alloc.len
    }
    pub fn is_empty(&self) -> bool {
        self.alloc.len == 0
    }

    fn check(&self, offset: usize, len: usize) -> Result<()> {
        if offset.checked_add(len).is_none_or(|end| end > self.len()) {
            return Err(Error::OutOfRegion {
                offset,
                len,
                size: self.len(),
            });
        }
        Ok(())
    }

    /// Copies `data` into the region at `offset`.
    pub fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        self.check(offset, data.len())?;
        self.alloc
            .arena
            .window
            .write(self.iova() + offset as u64, data);
        Ok(())
    }

    /// Copies `buf.len()` bytes from the region at `offset`.
    pub fn read(&self, offset: usize, buf: &mut [u8]) -> Result<()> {
        self.check(offset, buf.len())?;
        self.alloc
            .arena
            .window
            .read(self.iova() + offset as u64, buf);
        Ok(())
    }

    /// Host pointer to the region's first byte, for zero-copy use (filling a buffer in place, handing it to
    /// a parser). It is valid for `len()` bytes while any clone of this region lives.
    ///
    /// # Safety
    /// The device may read or write the region by DMA whenever it has been handed to it (a posted work
    /// request, an MR registered for remote access), exactly as on real hardware. The caller must not
    /// create `&`/`&mut` references to bytes the device or another thread may access at the same time
    /// (use raw-pointer or volatile accesses), must stay within `len()` bytes, and must order its accesses
    /// against the device through the doorbells and completions (post after writing, read after the
    /// completion).
    pub unsafe fn as_mut_ptr(&self) -> *mut u8 {
        let window = &self.alloc.arena.window;
        let off = (self.iova() - window.base_iova()) as usize;
        // SAFETY: the region lies inside the window (the arena only hands out ranges of it), and
        // `DmaWindow`'s contract makes `host_ptr()` valid for the window's `size()` bytes.
        unsafe { window.host_ptr().add(off) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::fake::FakeMemory;

    fn arena() -> (Arc<DmaArena>, u64, usize) {
        let mem = FakeMemory::new(0x1_0000_0000, 1 << 16);
        (DmaArena::new(mem), 0x1_0000_0000, 1 << 16)
    }

    #[test]
    fn alignment_is_honoured_and_frees_merge() {
        let (arena, base, size) = arena();
        let a = arena.alloc(100, 64).unwrap();
        let b = arena.alloc(100, 4096).unwrap();
        let c = arena.alloc(8, 8).unwrap();
        assert_eq!(a.iova(), base);
        assert_eq!(b.iova() % 4096, 0);
        assert!(b.iova() >= a.iova() + 100);
        // First fit: the gap between a and b takes c.
        assert!(c.iova() >= a.iova() + 100 && c.iova() + 8 <= b.iova());
        assert!(arena.alloc(size, 1).is_err());
        let b2 = b.clone();
        drop((a, b, c));
        assert!(
            arena.alloc(size, 1).is_err(),
            "a clone keeps its memory allocated"
        );
        drop(b2);
        let all = arena.alloc(size, 1).unwrap();
        assert_eq!(all.iova(), base, "every range merged back into one");
        assert!(matches!(arena.alloc(1, 1), Err(Error::OutOfDmaMemory(1))));
    }

    #[test]
    fn accesses_stay_inside_the_region() {
        let (arena, _, _) = arena();
        let _before = arena.alloc(16, 8).unwrap();
        let r = arena.alloc(16, 8).unwrap();
        let _after = arena.alloc(16, 8).unwrap();
        r.write(8, &[1; 8]).unwrap();
        assert!(matches!(
            r.write(9, &[1; 8]),
            Err(Error::OutOfRegion {
                offset: 9,
                len: 8,
                size: 16
            })
        ));
        assert!(r.read(usize::MAX, &mut [0; 2]).is_err());
        let mut buf = [0; 16];
        r.read(0, &mut buf).unwrap();
        assert_eq!(buf, [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
    }

    #[test]
    fn the_host_pointer_sees_the_same_bytes() {
        let (arena, _, _) = arena();
        let _first = arena.alloc(64, 64).unwrap();
        let r = arena.alloc(64, 64).unwrap();
        r.write(3, &[0xA5]).unwrap();
        // SAFETY: nothing else touches the region; offsets 3 and 5 are inside its 64 bytes.
        unsafe {
            let p = r.as_mut_ptr();
            assert_eq!(p.add(3).read_volatile(), 0xA5);
            p.add(5).write_volatile(0x5A);
        }
        let mut b = [0; 1];
        r.read(5, &mut b).unwrap();
        assert_eq!(b, [0x5A]);
    }
}
