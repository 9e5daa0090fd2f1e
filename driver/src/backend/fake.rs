//! A test double: a register file and a memory window with no NIC behind them, so the verbs layer's
//! register programming, ring arithmetic and CQ polling can be tested without the simulator.
//!
//! It models only what a test needs to catch a wrong driver:
//! - registers start at their reset values from `rocenic_proto::regs::REGISTERS`; writes to read-only or
//!   unknown offsets are logged but not stored, and [`FakeDevice::bad_writes`] lists them;
//! - every write is logged in order ([`FakeDevice::writes`]);
//! - a write to `SQ_PI`/`RQ_PI` "fetches" the WQEs between the old and the new producer index from the
//!   ring that `*_BASE_*`/`*_LOG_SIZE` point to, as the DMA engine would after a doorbell, so a test sees
//!   the bytes the device would have seen at that moment ([`FakeDevice::fetched`]).
//!
//! - QP_CMD acts on the QP QPN selects as the core's QP table would: MODIFY / INIT_RQ / INIT_SQ keep the
//!   window registers for that QP, QUERY loads its state and indices back into them, and the doorbells
//!   fetch from that QP's rings; QP_CMD reads 0 at once.
//!
//! Tests play the NIC by writing CQEs into memory and moving core-owned values with [`FakeDevice::set`]
//! (registers) and [`FakeDevice::set_qp`] (a QP's state and consumer indices, as QUERY returns them).
use super::{Backend, DmaArena, DmaRegion, DmaWindow};
use crate::error::Result;
use rocenic_proto::host::WQE_BYTES;
use rocenic_proto::regs::{self, Access};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// Zero-filled memory at an IOVA window, as atomic bytes so that the host pointer and the copy methods
/// may be used side by side.
pub struct FakeMemory {
    base: u64,
    bytes: Box<[AtomicU8]>,
}

impl FakeMemory {
    pub fn new(base: u64, size: usize) -> Arc<FakeMemory> {
        Arc::new(FakeMemory {
            base,
            bytes: (0..size).map(|_| AtomicU8::new(0)).collect(),
        })
    }
    fn at(&self, iova: u64, len: usize) -> &[AtomicU8] {
        let off = (iova - self.base) as usize;
        &self.bytes[off..off + len]
    }
}

// SAFETY: `host_ptr` points to the boxed slice, which lives as long as `self` and is never reallocated;
// `read`/`write` go through the same bytes as atomics, so no reference aliases a write through the pointer.
unsafe impl DmaWindow for FakeMemory {
    fn base_iova(&self) -> u64 {
        self.base
    }
    fn size(&self) -> usize {
        self.bytes.len()
    }
    fn read(&self, iova: u64, buf: &mut [u8]) {
        let src = self.at(iova, buf.len());
        for (b, m) in buf.iter_mut().zip(src) {
            *b = m.load(Relaxed);
        }
    }
    fn write(&self, iova: u64, data: &[u8]) {
        for (b, m) in data.iter().zip(self.at(iova, data.len())) {
            m.store(*b, Relaxed);
        }
    }
    fn host_ptr(&self) -> *mut u8 {
        // AtomicU8 has u8's layout and interior mutability, so writing through this pointer is allowed.
        self.bytes.as_ptr() as *mut u8
    }
}

/// Which ring a fetched WQE came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ring {
    Send,
    Recv,
}

pub struct FakeDevice {
    regs: Mutex<HashMap<u16, u32>>,
    writes: Mutex<Vec<(u16, u32)>>,
    fetched: Mutex<Vec<(Ring, [u8; WQE_BYTES])>>,
    /// Per QPN, the window registers its commands stored (the QP table).
    qps: Mutex<HashMap<u32, HashMap<u16, u32>>>,
    /// Per MR table index, the MR window MR_CMD WRITE stored: BASE_LO, BASE_HI, LEN, KEY, ACCESS, PD.
    mrs: Mutex<HashMap<u32, [u32; 7]>>,
    mem: Arc<FakeMemory>,
    arena: Arc<DmaArena>,
}

/// First IOVA of the fake's memory: above 4 GiB, so a driver that truncates addresses to 32 bits fails.
pub const FAKE_BASE_IOVA: u64 = 0x1_0000_0000;

impl FakeDevice {
    /// A device with a `beat_bytes` datapath (8 or 64) and 1 MiB of DMA memory.
    pub fn new(beat_bytes: u32) -> Arc<FakeDevice> {
        let mut r: HashMap<u16, u32> = regs::REGISTERS
            .iter()
            .map(|r| (r.offset, r.reset))
            .collect();
        r.insert(regs::DATAPATH_BYTES, beat_bytes);
        r.insert(regs::QP_TABLE_LOG, 6);
        r.insert(regs::MR_TABLE_LOG, 6);
        r.extend(regs::block_header_words());
        let mem = FakeMemory::new(FAKE_BASE_IOVA, 1 << 20);
        Arc::new(FakeDevice {
            regs: Mutex::new(r),
            writes: Mutex::new(Vec::new()),
            fetched: Mutex::new(Vec::new()),
            qps: Mutex::new(HashMap::new()),
            mrs: Mutex::new(HashMap::new()),
            arena: DmaArena::new(mem.clone()),
            mem,
        })
    }

    /// Sets a register as the hardware would (not logged as a write; read-only registers too).
    pub fn set(&self, offset: u16, value: u32) {
        self.regs.lock().unwrap().insert(offset, value);
    }

    /// Sets a value of QP `qpn`'s context as the core would (QP_STATE, SQ_CI, RQ_CI, SQ_PSN, RQ_PSN):
    /// what the next QUERY returns.
    /// A QP put in ERR this way counts in QP_ERR_EVENTS, as the core's doing.
    pub fn set_qp(&self, qpn: u32, offset: u16, value: u32) {
        if offset == regs::QP_STATE && value == 6 {
            let n = self.get(regs::QP_ERR_EVENTS);
            self.set(regs::QP_ERR_EVENTS, n + 1);
        }
        self.store_qp(qpn, offset, value);
    }

    fn store_qp(&self, qpn: u32, offset: u16, value: u32) {
        self.qps
            .lock()
            .unwrap()
            .entry(qpn)
            .or_default()
            .insert(offset, value);
    }

    /// A value of QP `qpn`'s context as its commands left it (0 if never set).
    pub fn get_qp(&self, qpn: u32, offset: u16) -> u32 {
        self.qps
            .lock()
            .unwrap()
            .get(&qpn)
            .and_then(|q| q.get(&offset).copied())
            .unwrap_or(0)
    }

    /// QP_CMD on the QP QPN selects.
    fn command(&self, cmd: u32) {
        let qpn = self.get(regs::QPN);
        let attrs = [
            regs::QP_STATE,
            regs::QP_PD,
            regs::PMTU,
            regs::DEST_QPN,
            regs::DEST_MAC_LO,
            regs::DEST_MAC_HI,
            regs::DEST_IPV4,
            regs::DEST_GID_0,
            regs::DEST_GID_1,
            regs::DEST_GID_2,
            regs::QP_IPV6,
            regs::QP_HOP_LIMIT,
            regs::QP_FLOW_LABEL,
            regs::UDP_SPORT,
            regs::MIN_RNR_TIMER,
            regs::QP_ACCESS,
            regs::QP_DSCP,
            regs::ACK_TIMEOUT,
            regs::RETRY_CNT,
            regs::RNR_RETRY,
            regs::QP_MAX_RD_ATOMIC,
            regs::SQ_BASE_LO,
            regs::SQ_BASE_HI,
            regs::SQ_LOG_SIZE,
            regs::RQ_BASE_LO,
            regs::RQ_BASE_HI,
            regs::RQ_LOG_SIZE,
        ];
        let copy = |regs_: &[u16]| {
            for &r in regs_ {
                self.store_qp(qpn, r, self.get(r));
            }
        };
        if cmd & 16 != 0 {
            for q in self.qps.lock().unwrap().values_mut() {
                q.clear();
            }
        }
        if cmd & 8 != 0 {
            for r in [
                regs::QP_STATE,
                regs::SQ_CI,
                regs::RQ_CI,
                regs::SQ_PSN,
                regs::RQ_PSN,
                regs::QP_OUT_OF_SEQUENCE,
                regs::QP_DUPLICATE_REQUEST,
                regs::QP_PACKET_SEQ_ERR,
                regs::QP_LOCAL_ACK_TIMEOUT_ERR,
                regs::QP_RETRANSMITS,
            ] {
                let v = self.get_qp(qpn, r);
                self.set(r, v);
            }
        }
        if cmd & 1 != 0 {
            copy(&attrs);
        }
        if cmd & 2 != 0 {
            copy(&[regs::RQ_PSN, regs::RQ_PI, regs::RQ_CI]);
        }
        if cmd & 4 != 0 {
            copy(&[regs::SQ_PSN, regs::SQ_PI, regs::SQ_CI]);
        }
        self.set(regs::QP_CMD, 0);
    }

    /// MR table entry `index` as MR_CMD left it (`None`: invalid): BASE_LO, BASE_HI, LEN, KEY, ACCESS, PD,
    /// LEN_HI.
    pub fn mr(&self, index: u32) -> Option<[u32; 7]> {
        self.mrs.lock().unwrap().get(&index).copied()
    }

    /// MR_CMD on entry MR_INDEX.
    fn mr_command(&self, cmd: u32) {
        let mut mrs = self.mrs.lock().unwrap();
        let index = self.get(regs::MR_INDEX);
        if cmd & regs::MR_CMD_CLEAR != 0 {
            mrs.clear();
        } else if cmd & regs::MR_CMD_WRITE != 0
            && (self.get(regs::MR_LEN) != 0 || self.get(regs::MR_LEN_HI) != 0)
        {
            let w = [
                regs::MR_BASE_LO,
                regs::MR_BASE_HI,
                regs::MR_LEN,
                regs::MR_KEY,
                regs::MR_ACCESS,
                regs::MR_PD,
                regs::MR_LEN_HI,
            ]
            .map(|r| self.get(r));
            mrs.insert(index, w);
        } else if cmd != 0 {
            mrs.remove(&index);
        }
        drop(mrs);
        self.set(regs::MR_CMD, 0);
    }

    /// A register's current value (0 for an unknown offset).
    pub fn get(&self, offset: u16) -> u32 {
        *self.regs.lock().unwrap().get(&offset).unwrap_or(&0)
    }

    /// A 64-bit address held in a LO/HI register pair.
    pub fn get64(&self, lo: u16, hi: u16) -> u64 {
        (self.get(hi) as u64) << 32 | self.get(lo) as u64
    }

    /// Every register write so far, in order.
    pub fn writes(&self) -> Vec<(u16, u32)> {
        self.writes.lock().unwrap().clone()
    }

    /// Forgets the write log and the fetched WQEs (to look at one operation's effect).
    pub fn clear_log(&self) {
        self.writes.lock().unwrap().clear();
        self.fetched.lock().unwrap().clear();
    }

    /// Writes that a real device would ignore: unknown offsets and read-only registers.
    pub fn bad_writes(&self) -> Vec<(u16, u32)> {
        self.writes()
            .into_iter()
            .filter(|(off, _)| !writable(*off))
            .collect()
    }

    /// WQEs as the device fetched them at each doorbell, in order.
    pub fn fetched(&self) -> Vec<(Ring, [u8; WQE_BYTES])> {
        self.fetched.lock().unwrap().clone()
    }

    pub fn memory(&self) -> Arc<FakeMemory> {
        self.mem.clone()
    }

    /// Reads the WQEs from `old_pi` up to `new_pi` out of QP `qpn`'s ring.
    fn fetch(&self, qpn: u32, ring: Ring, old_pi: u32, new_pi: u32) {
        let q = |r| self.get_qp(qpn, r) as u64;
        let (base, log) = match ring {
            Ring::Send => (
                q(regs::SQ_BASE_HI) << 32 | q(regs::SQ_BASE_LO),
                q(regs::SQ_LOG_SIZE) as u32 & !regs::SQ_WQE_128,
            ),
            Ring::Recv => (
                q(regs::RQ_BASE_HI) << 32 | q(regs::RQ_BASE_LO),
                q(regs::RQ_LOG_SIZE) as u32 & !regs::RQ_WQE_128,
            ),
        };
        let mask = (1u32 << log) - 1;
        // WQEs with gather or scatter lists take 128 bytes; the header (what is recorded) is the first 64.
        let wide = match ring {
            Ring::Send => q(regs::SQ_LOG_SIZE) as u32 & regs::SQ_WQE_128 != 0,
            Ring::Recv => q(regs::RQ_LOG_SIZE) as u32 & regs::RQ_WQE_128 != 0,
        };
        let stride = if wide { 2 * WQE_BYTES } else { WQE_BYTES };
        if new_pi.wrapping_sub(old_pi) > mask + 1 {
            return; // not a doorbell but a reset of the index (a new QP)
        }
        let window = self.mem.base..self.mem.base + self.mem.size() as u64;
        let mut pi = old_pi;
        while pi != new_pi {
            let mut w = [0u8; WQE_BYTES];
            let at = base + ((pi & mask) as usize * stride) as u64;
            if window.contains(&at) && window.contains(&(at + WQE_BYTES as u64 - 1)) {
                self.mem.read(at, &mut w);
            }
            self.fetched.lock().unwrap().push((ring, w));
            pi = pi.wrapping_add(1);
        }
    }
}

fn writable(offset: u16) -> bool {
    regs::by_offset(offset).is_some_and(|r| !matches!(r.access, Access::Ro | Access::Const))
}

impl Backend for FakeDevice {
    fn read32(&self, offset: u16) -> u32 {
        self.get(offset)
    }
    fn write32(&self, offset: u16, value: u32) {
        self.writes.lock().unwrap().push((offset, value));
        if !writable(offset) {
            return;
        }
        self.set(offset, value);
        let qpn = self.get(regs::QPN);
        match offset {
            regs::SQ_PI | regs::RQ_PI => {
                let old = self.get_qp(qpn, offset);
                self.store_qp(qpn, offset, value);
                let ring = if offset == regs::SQ_PI {
                    Ring::Send
                } else {
                    Ring::Recv
                };
                self.fetch(qpn, ring, old, value)
            }
            regs::QP_CMD => self.command(value),
            regs::MR_CMD => self.mr_command(value),
            _ => {}
        }
    }
    fn alloc_dma(&self, len: usize, align: usize) -> Result<DmaRegion> {
        self.arena.alloc(len, align)
    }
    fn wait(&self) {}
    fn describe(&self) -> String {
        "fake rocenic device (test double)".into()
    }
}
