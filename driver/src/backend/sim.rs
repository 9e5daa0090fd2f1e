//! The co-simulated NIC as a device. Both ports of a [`rocenic_sim::Fabric`] share one clock, so the two
//! backends of a back-to-back pair share the fabric behind a mutex; register accesses and waits advance
//! that clock for both NICs.
use super::{Backend, DmaArena, DmaRegion, DmaWindow};
use crate::error::Result;
use rocenic_sim::{Fabric, HostMemory};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// Cycles the fabric advances per `wait`: short enough that a poll loop notices a completion soon after
/// it lands, long enough that the mutex and the call are not the simulation's cost.
pub const WAIT_CYCLES: u64 = 64;

/// One port of a simulated fabric. Create at most one per port: each owns the allocator of its port's
/// host memory.
pub struct SimBackend {
    fabric: Arc<Mutex<Fabric>>,
    port: usize,
    arena: Arc<DmaArena>,
    /// Interrupt pulses already returned by `wait_interrupt` (the rest are pending, like an eventfd's
    /// counter).
    irqs_taken: AtomicU64,
}

/// The simulator's host memory of one port, as a DMA window.
struct SimWindow(Arc<HostMemory>);

// SAFETY: `HostMemory::ptr` is its mapping of `size()` bytes, alive as long as the `Arc` we hold, and
// `HostMemory::read`/`write` access those bytes through atomics.
unsafe impl DmaWindow for SimWindow {
    fn base_iova(&self) -> u64 {
        self.0.base_iova()
    }
    fn size(&self) -> usize {
        self.0.size()
    }
    fn read(&self, iova: u64, buf: &mut [u8]) {
        // DmaRegion only passes ranges inside a region it allocated from this window.
        self.0
            .read(iova, buf)
            .expect("DmaRegion read outside the host-memory window");
    }
    fn write(&self, iova: u64, data: &[u8]) {
        self.0
            .write(iova, data)
            .expect("DmaRegion write outside the host-memory window");
    }
    fn host_ptr(&self) -> *mut u8 {
        // SAFETY: only the pointer is taken here; `DmaRegion::as_mut_ptr`'s callers take on the aliasing
        // rules that `HostMemory::ptr` states.
        unsafe { self.0.ptr() }
    }
}

impl SimBackend {
    /// The NIC on `port` (0 or 1) of `fabric`.
    pub fn new(fabric: Arc<Mutex<Fabric>>, port: usize) -> SimBackend {
        let mem = fabric.lock().unwrap().memory(port);
        SimBackend {
            fabric,
            port,
            arena: DmaArena::new(Arc::new(SimWindow(mem))),
            irqs_taken: AtomicU64::new(0),
        }
    }

    /// The fabric, or None while this thread unwinds from a panic that happened inside it (a DMA outside
    /// what the driver registered, say): the destructors that run then (`MemoryRegion`, `QueuePair`)
    /// skip their register writes instead of panicking a second time, which would abort the process and
    /// hide the first message.
    fn locked(&self) -> Option<MutexGuard<'_, Fabric>> {
        match self.fabric.lock() {
            Ok(f) => Some(f),
            Err(_) if std::thread::panicking() => None,
            Err(_) => panic!("the co-simulated fabric stopped at an earlier panic"),
        }
    }

    pub fn fabric(&self) -> &Arc<Mutex<Fabric>> {
        &self.fabric
    }
}

impl Backend for SimBackend {
    fn read32(&self, offset: u16) -> u32 {
        self.locked()
            .map_or(0, |mut f| f.reg_read(self.port, offset))
    }
    fn write32(&self, offset: u16, value: u32) {
        if let Some(mut f) = self.locked() {
            f.reg_write(self.port, offset, value)
        }
    }
    fn alloc_dma(&self, len: usize, align: usize) -> Result<DmaRegion> {
        self.arena.alloc(len, align)
    }
    fn wait(&self) {
        if let Some(mut f) = self.locked() {
            f.run(WAIT_CYCLES)
        }
    }
    fn grant_dma(&self, iova: u64, len: u64, write: bool) {
        self.fabric
            .lock()
            .unwrap()
            .memory(self.port)
            .grant(iova, len, write);
    }
    fn revoke_dma(&self, iova: u64, len: u64, write: bool) {
        if let Some(f) = self.locked() {
            f.memory(self.port).revoke(iova, len, write);
        }
    }
    fn wait_interrupt(&self, timeout: Duration) -> Result<bool> {
        // Device time: the timeout in cycles of the core's designed clock.
        let budget = {
            let f = self.fabric.lock().unwrap();
            (timeout.as_secs_f64() * f.width().clock_mhz() * 1e6) as u64
        };
        let mut waited = 0;
        loop {
            let raised = self.fabric.lock().unwrap().irq_count(self.port);
            let taken = self.irqs_taken.load(Ordering::Relaxed);
            if raised > taken {
                self.irqs_taken.store(raised, Ordering::Relaxed);
                return Ok(true);
            }
            if waited >= budget {
                return Ok(false);
            }
            self.fabric.lock().unwrap().run(WAIT_CYCLES);
            waited += WAIT_CYCLES;
        }
    }
    fn describe(&self) -> String {
        let f = self.fabric.lock().unwrap();
        format!(
            "co-simulated rocenic core, {}-bit at {} MHz, port {} (cycle {})",
            f.width().bits(),
            f.width().clock_mhz(),
            self.port,
            f.cycles()
        )
    }
}
