//! Host memory as the NIC sees it: one anonymous mapping addressed by IOVA from a non-zero base (so a zero
//! or small address written by mistake is out of range, not silently valid).
//!
//! The memory is shared between the driver and the simulated DMA engine through `Arc<HostMemory>`. Safe
//! accesses go through relaxed atomics (which compile to plain loads and stores), so concurrent use from
//! several threads is not a data race in Rust's sense; ordering between threads is the caller's business,
//! as with real DMA.
use crate::SimError;
use memmap2::{MmapOptions, MmapRaw};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

/// Default first IOVA: above 4 GiB, so 32-bit truncation bugs in address handling show up.
pub const DEFAULT_BASE_IOVA: u64 = 0x1_0000_0000;

/// An access outside host memory.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("host-memory access [{iova:#x}, +{len}) is outside [{base:#x}, +{size:#x})")]
pub struct OutOfRange {
    pub iova: u64,
    pub len: usize,
    pub base: u64,
    pub size: usize,
}

/// Simulated host memory: `size` bytes at IOVA `base_iova()..base_iova() + size()`, zero-filled.
pub struct HostMemory {
    map: MmapRaw,
    base: u64,
    size: usize,
    /// What the NIC may touch by DMA, as the driver granted it (see [`HostMemory::grant`]).
    grants: std::sync::Mutex<Vec<Grant>>,
}

/// A window the NIC may read by DMA, and write if `write`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grant {
    pub iova: u64,
    pub len: u64,
    pub write: bool,
}

impl std::fmt::Debug for HostMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HostMemory({:#x}, +{:#x})", self.base, self.size)
    }
}

impl HostMemory {
    /// Map `size` bytes at [`DEFAULT_BASE_IOVA`].
    pub fn new(size: usize) -> Result<HostMemory, SimError> {
        Self::with_base(DEFAULT_BASE_IOVA, size)
    }

    /// Map `size` bytes (> 0) at IOVA `base` (non-zero, 4 KiB aligned).
    pub fn with_base(base: u64, size: usize) -> Result<HostMemory, SimError> {
        if base == 0
            || !base.is_multiple_of(4096)
            || size == 0
            || base.checked_add(size as u64).is_none()
        {
            return Err(SimError::Config(format!(
                "host memory needs a non-zero 4 KiB-aligned base and a non-zero size, got {base:#x} +{size:#x}"
            )));
        }
        // Anonymous pages are zero-filled and only become resident when touched; no swap is reserved
        // for them either (MAP_NORESERVE), so under Linux's default heuristic overcommit a host memory of
        // several GiB (an MR of 4 GiB and more) maps on a machine with less RAM and swap than that. With
        // strict accounting (vm.overcommit_memory = 2) the flag is ignored and such a mapping may fail.
        let map = MmapOptions::new()
            .len(size)
            .no_reserve_swap()
            .map_anon()
            .map_err(SimError::Mmap)?;
        Ok(HostMemory {
            map: MmapRaw::from(map),
            base,
            size,
            grants: std::sync::Mutex::new(Vec::new()),
        })
    }

    /// Let the NIC read [iova, iova + len) by DMA, and write it if `write`: what the driver registered (an
    /// MR, a ring). Once anything is granted, every DMA access of the NIC must fall in a grant; the
    /// simulation stops on the first that does not (the invariant "the NIC never touches host memory
    /// outside a registered MR with the needed access").
    pub fn grant(&self, iova: u64, len: u64, write: bool) {
        self.grants.lock().unwrap().push(Grant { iova, len, write });
    }

    /// The windows granted now.
    pub fn grants(&self) -> Vec<Grant> {
        self.grants.lock().unwrap().clone()
    }

    /// Withdraw one grant made with these values (an MR deregistered, a ring freed); another grant over
    /// the same bytes (a second MR of the same buffer) stays.
    pub fn revoke(&self, iova: u64, len: u64, write: bool) {
        let mut g = self.grants.lock().unwrap();
        if let Some(i) = g
            .iter()
            .position(|x| (x.iova, x.len, x.write) == (iova, len, write))
        {
            g.remove(i);
        }
    }

    /// Whether a DMA access of [iova, iova + len) is allowed. Reads move whole beats of `beat` bytes, so a
    /// read may round a grant out to beat boundaries; writes carry byte strobes and must stay inside.
    pub fn check_dma(&self, iova: u64, len: u64, write: bool, beat: u64) -> Result<(), String> {
        let g = self.grants.lock().unwrap();
        if g.is_empty() {
            return Ok(());
        }
        let end = iova + len;
        let ok = g.iter().any(|x| {
            if write {
                x.write && iova >= x.iova && end <= x.iova + x.len
            } else {
                let lo = x.iova / beat * beat;
                let hi = (x.iova + x.len).div_ceil(beat) * beat;
                iova >= lo && end <= hi
            }
        });
        if ok {
            Ok(())
        } else {
            Err(format!(
                "DMA {} of [{iova:#x}, {end:#x}) is outside every registered window with that access: {:x?}",
                if write { "write" } else { "read" },
                *g
            ))
        }
    }

    /// First valid IOVA.
    pub fn base_iova(&self) -> u64 {
        self.base
    }

    /// Size in bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Whether `[iova, iova + len)` lies inside host memory.
    pub fn contains(&self, iova: u64, len: usize) -> bool {
        self.offset(iova, len).is_ok()
    }

    /// Offset of `iova` into the mapping, if the whole range fits.
    fn offset(&self, iova: u64, len: usize) -> Result<usize, OutOfRange> {
        let off = iova.wrapping_sub(self.base);
        if iova >= self.base && off <= self.size as u64 && len as u64 <= self.size as u64 - off {
            Ok(off as usize)
        } else {
            Err(OutOfRange {
                iova,
                len,
                base: self.base,
                size: self.size,
            })
        }
    }

    /// The mapping as atomic bytes.
    fn bytes(&self) -> &[AtomicU8] {
        // SAFETY: the mapping is `size` bytes, readable and writable, alive as long as `self`, and only ever
        // accessed through atomics here (or through `ptr()`, whose callers take on the aliasing rules).
        // AtomicU8 has the size and alignment of u8.
        unsafe { std::slice::from_raw_parts(self.map.as_mut_ptr() as *const AtomicU8, self.size) }
    }

    /// The 8-byte word at byte offset `off` (a multiple of 8).
    fn word(&self, off: usize) -> &AtomicU64 {
        debug_assert!(off.is_multiple_of(8) && off + 8 <= self.size);
        // SAFETY: in bounds (callers check), 8-byte aligned (the mapping is page aligned and `off` a multiple
        // of 8), and AtomicU64 has the layout of u64; see `bytes` for aliasing.
        unsafe { &*(self.map.as_mut_ptr().add(off) as *const AtomicU64) }
    }

    /// Copy `buf.len()` bytes from IOVA `iova` into `buf`.
    pub fn read(&self, iova: u64, buf: &mut [u8]) -> Result<(), OutOfRange> {
        let mut off = self.offset(iova, buf.len())?;
        let bytes = self.bytes();
        let mut rest = &mut buf[..];
        // Byte-wise up to 8-byte alignment, then whole words (DMA beats are aligned), then the tail.
        while !rest.is_empty() && (!off.is_multiple_of(8) || rest.len() < 8) {
            rest[0] = bytes[off].load(Relaxed);
            rest = &mut rest[1..];
            off += 1;
        }
        while rest.len() >= 8 {
            rest[..8].copy_from_slice(&self.word(off).load(Relaxed).to_le_bytes());
            rest = &mut rest[8..];
            off += 8;
        }
        for b in rest.iter_mut() {
            *b = bytes[off].load(Relaxed);
            off += 1;
        }
        Ok(())
    }

    /// Copy `data` to IOVA `iova`.
    pub fn write(&self, iova: u64, data: &[u8]) -> Result<(), OutOfRange> {
        let mut off = self.offset(iova, data.len())?;
        let bytes = self.bytes();
        let mut rest = data;
        while !rest.is_empty() && (!off.is_multiple_of(8) || rest.len() < 8) {
            bytes[off].store(rest[0], Relaxed);
            rest = &rest[1..];
            off += 1;
        }
        while rest.len() >= 8 {
            let w = u64::from_le_bytes(rest[..8].try_into().unwrap());
            self.word(off).store(w, Relaxed);
            rest = &rest[8..];
            off += 8;
        }
        for &b in rest {
            bytes[off].store(b, Relaxed);
            off += 1;
        }
        Ok(())
    }

    /// Write the bytes of `data` whose bit is set in `strb` (bit i → `iova + i`), as a DMA write beat does.
    pub fn write_strobed(&self, iova: u64, data: &[u8], strb: u64) -> Result<(), OutOfRange> {
        let n = data.len();
        debug_assert!(n <= 64);
        let full = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        if strb & full == full {
            return self.write(iova, data);
        }
        let off = self.offset(iova, n)?;
        let bytes = self.bytes();
        let mut s = strb & full;
        while s != 0 {
            let i = s.trailing_zeros() as usize;
            bytes[off + i].store(data[i], Relaxed);
            s &= s - 1;
        }
        Ok(())
    }

    /// Pointer to the byte at `base_iova()`; the mapping is `size()` bytes long and lives as long as `self`.
    ///
    /// # Safety
    /// The caller must keep accesses within `size()` bytes and must not create references (`&`/`&mut`) to
    /// bytes that the simulated NIC or another thread may access at the same time; reads and writes through
    /// the pointer race with DMA exactly as on real hardware, so use raw-pointer or volatile accesses and
    /// synchronise through the NIC's registers (doorbells, completions).
    pub unsafe fn ptr(&self) -> *mut u8 {
        self.map.as_mut_ptr()
    }
}
