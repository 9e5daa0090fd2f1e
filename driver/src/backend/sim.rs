//! The co-simulated NIC as a device: both ports of a [`rocenic_sim::Fabric`] share one clock, so two
//! backends (one per port) share the fabric behind a mutex. Register accesses and waits advance the clock.
use super::{Backend, DmaMemory};
use rocenic_sim::{Fabric, HostMemory};
use std::sync::{Arc, Mutex};

/// Cycles the fabric advances per `wait`.
const WAIT_CYCLES: u64 = 64;

pub struct SimBackend {
    fabric: Arc<Mutex<Fabric>>,
    port: usize,
    mem: Arc<SimMemory>,
}

struct SimMemory(Arc<HostMemory>);

impl DmaMemory for SimMemory {
    fn window(&self) -> (u64, usize) {
        (self.0.base_iova(), self.0.size())
    }
    fn read(&self, iova: u64, buf: &mut [u8]) {
        // The driver only touches memory it allocated from this window.
        self.0
            .read(iova, buf)
            .expect("driver read outside host memory");
    }
    fn write(&self, iova: u64, data: &[u8]) {
        self.0
            .write(iova, data)
            .expect("driver write outside host memory");
    }
}

impl SimBackend {
    pub fn new(fabric: Arc<Mutex<Fabric>>, port: usize) -> SimBackend {
        let mem = Arc::new(SimMemory(fabric.lock().unwrap().memory(port)));
        SimBackend { fabric, port, mem }
    }
}

impl Backend for SimBackend {
    fn read32(&self, offset: u16) -> u32 {
        self.fabric.lock().unwrap().reg_read(self.port, offset)
    }
    fn write32(&self, offset: u16, value: u32) {
        self.fabric
            .lock()
            .unwrap()
            .reg_write(self.port, offset, value)
    }
    fn dma_memory(&self) -> Arc<dyn DmaMemory> {
        self.mem.clone()
    }
    fn wait(&self) {
        self.fabric.lock().unwrap().run(WAIT_CYCLES)
    }
    fn describe(&self) -> String {
        let f = self.fabric.lock().unwrap();
        format!(
            "co-simulated rocenic core, {}-bit, port {}",
            f.width().bits(),
            self.port
        )
    }
}
