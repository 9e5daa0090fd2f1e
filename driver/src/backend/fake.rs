//! A test double: a register file and a memory window with no NIC behind them, so the verbs layer's
//! register programming, ring arithmetic and CQ polling can be tested without the simulator. Tests play
//! the NIC by writing CQEs into memory and moving read-only registers with [`FakeDevice::set`].
use super::{Backend, DmaMemory};
use rocenic_proto::regs;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub struct FakeMemory {
    base: u64,
    bytes: Mutex<Vec<u8>>,
}

impl DmaMemory for FakeMemory {
    fn window(&self) -> (u64, usize) {
        (self.base, self.bytes.lock().unwrap().len())
    }
    fn read(&self, iova: u64, buf: &mut [u8]) {
        let at = (iova - self.base) as usize;
        buf.copy_from_slice(&self.bytes.lock().unwrap()[at..at + buf.len()]);
    }
    fn write(&self, iova: u64, data: &[u8]) {
        let at = (iova - self.base) as usize;
        self.bytes.lock().unwrap()[at..at + data.len()].copy_from_slice(data);
    }
}

pub struct FakeDevice {
    regs: Mutex<HashMap<u16, u32>>,
    /// Every register write, in order.
    pub writes: Mutex<Vec<(u16, u32)>>,
    mem: Arc<FakeMemory>,
}

impl FakeDevice {
    /// A device with the ID and version registers set and a `beat_bytes` datapath.
    pub fn new(beat_bytes: u32) -> Arc<FakeDevice> {
        let mut r = HashMap::new();
        r.insert(regs::ID, regs::ID_VALUE);
        r.insert(regs::VERSION, regs::VERSION_VALUE);
        r.insert(regs::DATAPATH_BYTES, beat_bytes);
        Arc::new(FakeDevice {
            regs: Mutex::new(r),
            writes: Mutex::new(Vec::new()),
            mem: Arc::new(FakeMemory {
                base: 0x1_0000_0000,
                bytes: Mutex::new(vec![0; 1 << 20]),
            }),
        })
    }
    /// Set a register as the hardware would (no write is recorded).
    pub fn set(&self, offset: u16, value: u32) {
        self.regs.lock().unwrap().insert(offset, value);
    }
    pub fn get(&self, offset: u16) -> u32 {
        *self.regs.lock().unwrap().get(&offset).unwrap_or(&0)
    }
    pub fn memory(&self) -> Arc<FakeMemory> {
        self.mem.clone()
    }
}

impl Backend for FakeDevice {
    fn read32(&self, offset: u16) -> u32 {
        self.get(offset)
    }
    fn write32(&self, offset: u16, value: u32) {
        self.writes.lock().unwrap().push((offset, value));
        self.set(offset, value);
    }
    fn dma_memory(&self) -> Arc<dyn DmaMemory> {
        self.mem.clone()
    }
    fn wait(&self) {}
    fn describe(&self) -> String {
        "fake device (test double)".into()
    }
}
