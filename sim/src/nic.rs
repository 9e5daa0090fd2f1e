//! One Verilated NIC core with its surroundings: host memory behind a DMA server, a MAC-side receive queue
//! and transmit collector, the register port, and an interrupt counter.
//!
//! Each [`Nic::tick`] is one clock cycle: the bench drives the inputs from its state, the core settles with
//! the clock low, the outputs sampled there decide which handshakes complete at the rising edge, and the
//! bench updates its state accordingly. Nothing is allocated per cycle; wide buses are copied only on beats.
use crate::fault::{RngCore, SeedableRng};
use crate::ffi::{Model, NicIn, NicOut};
use crate::memory::HostMemory;
use crate::SimError;
use rocenic_proto::Width;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;

/// Cycles of reset after power-up (the core needs at least 4).
pub const RESET_CYCLES: u64 = 8;
/// A register access that has not completed after this many cycles is a hang: panic.
pub const REG_TIMEOUT_CYCLES: u64 = 10_000;

/// Bytes a frame costs on the wire beyond what the core sends: FCS (4), preamble and SFD (8), the minimum
/// inter-frame gap (12).
pub const WIRE_OVERHEAD_BYTES: f64 = 24.0;

/// Bytes per core cycle of an Ethernet line at `gbps` for a core clocked at `clock_mhz`.
pub fn line_bytes_per_cycle(gbps: f64, clock_mhz: f64) -> f64 {
    gbps * 1e3 / 8.0 / clock_mhz
}

/// Options of one simulated NIC.
#[derive(Clone, Debug)]
pub struct NicConfig {
    /// Cycles from accepting a DMA read request to its first data beat (at least 1).
    pub dma_read_latency_cycles: u64,
    /// Read requests the host side accepts before the first of them completes, like PCIe read-request
    /// tags/credits (0: unlimited).
    pub dma_read_credits: usize,
    /// Host-link bandwidth for read completions and for writes, bytes per core cycle (0: unlimited).
    pub dma_read_bytes_per_cycle: f64,
    pub dma_write_bytes_per_cycle: f64,
    /// The host's Max_Read_Request_Size in bytes: a larger DMA read request fails the run, as does one
    /// that crosses a 4 KiB boundary (PCIe forbids both).
    pub dma_max_read_bytes: usize,
    /// The transmit MAC's line rate in bytes per core cycle (0: unlimited, `tx_tready` always high). A
    /// real MAC holds `tx_tready` low to keep to its line rate, paying [`WIRE_OVERHEAD_BYTES`] per frame.
    pub mac_bytes_per_cycle: f64,
    /// Dump every half cycle of the core to this VCD file.
    pub vcd: Option<PathBuf>,
    /// Return read completions of different tags out of order, as PCIe may: at each request boundary
    /// the next completion is drawn (with this seed) from the oldest due request of each tag; within a
    /// tag the order stays. `None`: strictly in request order.
    pub dma_reorder_seed: Option<u64>,
}

impl Default for NicConfig {
    fn default() -> Self {
        NicConfig {
            dma_read_latency_cycles: 50,
            dma_read_credits: 0,
            dma_read_bytes_per_cycle: 0.0,
            dma_write_bytes_per_cycle: 0.0,
            dma_max_read_bytes: 4096,
            mac_bytes_per_cycle: 0.0,
            vcd: None,
            dma_reorder_seed: None,
        }
    }
}

/// An accepted DMA read request.
#[derive(Clone, Copy, Debug)]
struct ReadReq {
    addr: u64,
    beats: u16,
    tag: u8,
    /// First cycle its data may be returned.
    due: u64,
}

/// Bytes of a bus in lane order (lane 0 first, little-endian), for the first `nbytes` bytes.
#[inline]
fn lanes_to_bytes(lanes: &[u32; 16], out: &mut [u8; 64], nbytes: usize) {
    for (i, l) in lanes.iter().take(nbytes / 4).enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&l.to_le_bytes());
    }
}

/// The inverse of [`lanes_to_bytes`].
#[inline]
fn bytes_to_lanes(bytes: &[u8; 64], lanes: &mut [u32; 16], nbytes: usize) {
    for (i, l) in lanes.iter_mut().take(nbytes / 4).enumerate() {
        *l = u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
    }
}

/// A keep mask of the first `n` byte lanes.
#[inline]
fn keep_mask(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// One NIC core and its bench.
pub struct Nic {
    model: Model,
    width: Width,
    /// Bytes per beat.
    beat: usize,
    mem: Arc<HostMemory>,
    inp: NicIn,
    out: NicOut,
    cycle: u64,

    /// Frames for the receive port, each with its bad-FCS mark.
    rx_queue: VecDeque<(Vec<u8>, bool)>,
    /// Byte offset of the current beat in the front frame of `rx_queue`.
    rx_pos: usize,
    /// `inp` holds the current receive beat.
    rx_loaded: bool,

    tx_ready: bool,
    tx_cur: Vec<u8>,
    /// Completed frames with the cycle their last beat was taken.
    tx_done: VecDeque<(u64, Vec<u8>)>,

    rd_latency: u64,
    rd_credits: usize,
    rd_bw: f64,
    wr_bw: f64,
    /// Bytes the host link may carry now in each direction (leaky buckets, capped at two beats).
    rd_tokens: f64,
    wr_tokens: f64,
    max_read: usize,
    rd_requests: u64,
    /// Transmit MAC line rate (bytes per cycle, 0: unlimited) and its token bucket.
    mac_bw: f64,
    mac_tokens: f64,
    rd_reqs: VecDeque<ReadReq>,
    /// Index in `rd_reqs` of the request whose beats are being returned.
    rd_cur: usize,
    rd_reorder: Option<crate::fault::SplitMix64>,
    rd_reordered: u64,
    /// Beat of the front request that `inp` holds, if loaded.
    rd_beat: u16,
    rd_loaded: bool,

    reg_rd_result: Option<u32>,
    reg_rd_waiting: bool,
    irq_count: u64,

    /// Probe for quiet cycles (see [`Nic::set_fast_forward`]).
    fast_forward: bool,
    /// Fast-forward: consecutive ticks, none of them a fast-forward edge, whose inputs the bench held
    /// still and at whose edge the core changed nothing but its timers (`NicOut::quiet`).
    quiet_ticks: u32,
}

impl Nic {
    /// A core of `width` using `mem` as host memory, not yet reset (call [`Nic::reset`]).
    pub fn new(width: Width, mem: Arc<HostMemory>, cfg: &NicConfig) -> Result<Nic, SimError> {
        if let Some(p) = &cfg.vcd {
            // Create the file here so a bad path is an error with a message, not a silent C++ failure.
            std::fs::File::create(p).map_err(|e| SimError::Vcd(p.clone(), e))?;
        }
        let model = Model::new(width, cfg.vcd.as_deref()).ok_or_else(|| {
            let p = cfg.vcd.clone().unwrap_or_default();
            SimError::Vcd(
                p,
                std::io::Error::other("Verilator could not open the VCD file"),
            )
        })?;
        let inp = NicIn {
            tx_tready: 1,
            dma_rd_req_ready: 1,
            dma_wr_ready: 1,
            ..NicIn::default()
        };
        Ok(Nic {
            model,
            width,
            beat: width.bytes(),
            mem,
            inp,
            out: NicOut::default(),
            cycle: 0,
            rx_queue: VecDeque::new(),
            rx_pos: 0,
            rx_loaded: false,
            tx_ready: true,
            tx_cur: Vec::with_capacity(2048),
            tx_done: VecDeque::new(),
            rd_latency: cfg.dma_read_latency_cycles.max(1),
            rd_credits: cfg.dma_read_credits,
            rd_bw: cfg.dma_read_bytes_per_cycle,
            wr_bw: cfg.dma_write_bytes_per_cycle,
            rd_tokens: 0.0,
            wr_tokens: 0.0,
            max_read: cfg.dma_max_read_bytes,
            rd_requests: 0,
            mac_bw: cfg.mac_bytes_per_cycle,
            mac_tokens: 0.0,
            rd_reqs: VecDeque::new(),
            rd_cur: 0,
            rd_reorder: cfg
                .dma_reorder_seed
                .map(crate::fault::SplitMix64::seed_from_u64),
            rd_reordered: 0,
            rd_beat: 0,
            rd_loaded: false,
            reg_rd_result: None,
            reg_rd_waiting: false,
            irq_count: 0,
            fast_forward: false,
            quiet_ticks: 0,
        })
    }

    pub fn width(&self) -> Width {
        self.width
    }

    /// This NIC's host memory.
    pub fn memory(&self) -> Arc<HostMemory> {
        self.mem.clone()
    }

    /// Cycles ticked so far (reset included).
    pub fn cycles(&self) -> u64 {
        self.cycle
    }

    /// DMA read requests the host has accepted.
    pub fn dma_read_requests(&self) -> u64 {
        self.rd_requests
    }

    /// Interrupt pulses seen (cycles with `irq` high; the core pulses it for one cycle per CQE batch).
    pub fn irq_count(&self) -> u64 {
        self.irq_count
    }

    /// Drive `reset`. In-flight bench state (a partly sent or received frame, pending DMA reads) is
    /// discarded when reset is raised: the core forgets it too.
    pub fn set_reset(&mut self, on: bool) {
        if on {
            self.rx_pos = 0;
            self.rx_loaded = false;
            self.inp.rx_tvalid = 0;
            self.tx_cur.clear();
            self.rd_reqs.clear();
            self.rd_beat = 0;
            self.rd_loaded = false;
            self.inp.dma_rd_resp_valid = 0;
            self.inp.reg_wr_valid = 0;
            self.inp.reg_rd_valid = 0;
            self.reg_rd_waiting = false;
        }
        self.inp.reset = on as u8;
    }

    /// Hold reset for [`RESET_CYCLES`], then release it.
    pub fn reset(&mut self) {
        self.set_reset(true);
        for _ in 0..RESET_CYCLES {
            self.tick();
        }
        self.set_reset(false);
    }

    /// Queue a frame (without FCS) for the MAC receive port; it is sent one beat per cycle as the core
    /// accepts it. Empty frames are ignored.
    pub fn push_rx_frame(&mut self, frame: Vec<u8>) {
        if !frame.is_empty() {
            self.rx_queue.push_back((frame, false));
        }
    }

    /// Queue a frame as [`Nic::push_rx_frame`] does, marked bad with its last beat (`rx_tuser`): what a
    /// MAC delivers when the frame's FCS does not match.
    pub fn push_rx_frame_bad_fcs(&mut self, frame: Vec<u8>) {
        if !frame.is_empty() {
            self.rx_queue.push_back((frame, true));
        }
    }

    /// Frames queued for the receive port and not yet fully taken by the core.
    pub fn rx_pending(&self) -> usize {
        self.rx_queue.len()
    }

    /// The oldest frame the core transmitted, if any (unpadded, as the core sent it).
    pub fn pop_tx_frame(&mut self) -> Option<Vec<u8>> {
        self.tx_done.pop_front().map(|(_, f)| f)
    }

    /// As [`Nic::pop_tx_frame`], with the cycle on which the frame's last beat left the core.
    pub fn pop_tx_frame_timed(&mut self) -> Option<(u64, Vec<u8>)> {
        self.tx_done.pop_front()
    }

    /// Queue a frame as if the core had transmitted it on the current cycle (for tests of what is beyond
    /// the MAC).
    pub fn inject_tx_frame(&mut self, frame: Vec<u8>) {
        self.tx_done.push_back((self.cycle, frame));
    }

    /// Whether the transmit MAC accepts beats (`tx_tready`); true unless set otherwise.
    pub fn set_tx_ready(&mut self, ready: bool) {
        self.tx_ready = ready;
        self.inp.tx_tready = ready as u8;
        // An input change: the quiet ticks before it say nothing of the cycles after.
        self.quiet_ticks = 0;
    }

    /// Whether DMA reads or register accesses are still outstanding.
    pub fn busy(&self) -> bool {
        !self.rd_reqs.is_empty() || self.reg_access_pending() || !self.rx_queue.is_empty()
    }

    /// Start a register write; it completes within a tick or a few (see [`Nic::reg_access_pending`]).
    pub fn start_reg_write(&mut self, offset: u16, value: u32) {
        assert!(
            !self.reg_access_pending(),
            "a register access is already in progress"
        );
        self.inp.reg_wr_valid = 1;
        self.inp.reg_wr_addr = offset;
        self.inp.reg_wr_data = value;
    }

    /// Start a register read; collect the value with [`Nic::take_reg_read`].
    pub fn start_reg_read(&mut self, offset: u16) {
        assert!(
            !self.reg_access_pending(),
            "a register access is already in progress"
        );
        self.inp.reg_rd_valid = 1;
        self.inp.reg_rd_addr = offset;
        self.reg_rd_waiting = true;
        self.reg_rd_result = None;
    }

    /// Whether a started register access has not completed.
    pub fn reg_access_pending(&self) -> bool {
        self.inp.reg_wr_valid != 0 || self.reg_rd_waiting
    }

    /// The value of the last completed register read, once.
    pub fn take_reg_read(&mut self) -> Option<u32> {
        self.reg_rd_result.take()
    }

    /// Write a register, ticking this NIC alone until the core took it.
    pub fn reg_write(&mut self, offset: u16, value: u32) {
        self.start_reg_write(offset, value);
        self.tick_until_reg_done(offset);
    }

    /// Read a register, ticking this NIC alone until the data returned.
    pub fn reg_read(&mut self, offset: u16) -> u32 {
        self.start_reg_read(offset);
        self.tick_until_reg_done(offset);
        self.take_reg_read().unwrap()
    }

    fn tick_until_reg_done(&mut self, offset: u16) {
        for _ in 0..REG_TIMEOUT_CYCLES {
            if !self.reg_access_pending() {
                return;
            }
            self.tick();
        }
        panic!("register access at {offset:#06x} did not complete in {REG_TIMEOUT_CYCLES} cycles");
    }

    /// One clock cycle.
    #[inline]
    pub fn tick(&mut self) {
        self.tick_warp(0);
    }

    /// One clock edge that stands for `1 + warp` cycles: the core's timers advance by that many, nothing
    /// else moves. `warp` must be at most [`Nic::warp_allowance`] (the fabric takes the least of its
    /// NICs' and the link's); 0 is a plain [`Nic::tick`].
    #[inline]
    pub fn tick_warp(&mut self, warp: u32) {
        self.drive_rx();
        self.drive_link_model();
        self.drive_dma_read();
        let still = self.bench_still();
        self.inp.probe = (still && self.fast_forward) as u8;
        self.inp.warp = warp;
        self.model.tick(&self.inp, &mut self.out);
        self.inp.warp = 0;
        self.take_handshakes();
        self.quiet_ticks = if still && warp == 0 && self.out.quiet != 0 {
            self.quiet_ticks.saturating_add(1)
        } else {
            0
        };
        self.cycle += 1 + warp as u64;
    }

    /// Whether the bench drives the same inputs from cycle to cycle until something happens at the core:
    /// no receive beat, DMA read data or register access under way or waiting, and the host link's and
    /// the MAC's credit full (a reset is an input change too).
    #[inline]
    fn bench_still(&self) -> bool {
        self.inp.reset == 0
            && !self.rx_loaded
            && self.rx_queue.is_empty()
            && !self.rd_loaded
            && self.rd_reqs.is_empty()
            && !self.reg_access_pending()
            && (self.mac_bw == 0.0 || self.mac_tokens >= self.beat as f64)
            && (self.rd_bw == 0.0 || self.rd_tokens >= 2.0 * self.beat as f64)
            && (self.wr_bw == 0.0 || self.wr_tokens >= 2.0 * self.beat as f64)
    }

    /// Let the core report quiet cycles (`NicOut::quiet`), which fast-forward needs: off, the probe
    /// costs nothing and [`Nic::warp_allowance`] is 0.
    pub fn set_fast_forward(&mut self, on: bool) {
        self.fast_forward = on;
        self.quiet_ticks = 0;
    }

    /// Whether the last tick was a quiet one: inputs still and nothing but timers changed at its edge.
    pub fn was_quiet(&self) -> bool {
        self.quiet_ticks > 0
    }

    /// How many cycles the next edge may skip (its `warp`): 0 unless the last two ticks were quiet ones
    /// (see `quiet_ticks`) and the bench is still. The core's `wake` is a cycle old and was computed
    /// before the last edge, at which a timer may have counted, and the next edge is one more: two
    /// come off it.
    pub fn warp_allowance(&self) -> u64 {
        // A frame waiting to be put on the link (one injected as this port's, say) is due there soon.
        if self.quiet_ticks < 2 || !self.bench_still() || !self.tx_done.is_empty() {
            return 0;
        }
        (self.out.wake as u64).saturating_sub(2)
    }

    /// Put the current receive beat on `rx_*`, if there is one and it is not there yet.
    #[inline]
    fn drive_rx(&mut self) {
        if self.rx_loaded || self.inp.reset != 0 {
            return;
        }
        let Some((frame, bad)) = self.rx_queue.front() else {
            return;
        };
        let n = (frame.len() - self.rx_pos).min(self.beat);
        let mut buf = [0u8; 64];
        buf[..n].copy_from_slice(&frame[self.rx_pos..self.rx_pos + n]);
        bytes_to_lanes(&buf, &mut self.inp.rx_tdata, self.beat);
        self.inp.rx_tkeep = keep_mask(n);
        self.inp.rx_tlast = (self.rx_pos + n == frame.len()) as u8;
        self.inp.rx_tuser = self.inp.rx_tlast & *bad as u8;
        self.inp.rx_tvalid = 1;
        self.rx_loaded = true;
    }

    /// The host link's limits: read-request credits and per-direction bandwidth.
    #[inline]
    fn drive_link_model(&mut self) {
        let cap = 2.0 * self.beat as f64;
        if self.rd_bw > 0.0 {
            self.rd_tokens = (self.rd_tokens + self.rd_bw).min(cap);
        }
        if self.wr_bw > 0.0 {
            self.wr_tokens = (self.wr_tokens + self.wr_bw).min(cap);
        }
        self.inp.dma_rd_req_ready =
            (self.rd_credits == 0 || self.rd_reqs.len() < self.rd_credits) as u8;
        self.inp.dma_wr_ready = (self.wr_bw == 0.0 || self.wr_tokens >= self.beat as f64) as u8;
        // The MAC takes a beat while it has credit; a beat or a frame's overhead may overdraw it, the
        // debt then holds `tx_tready` low until the line has caught up.
        let mut tx_ready = self.tx_ready;
        if self.mac_bw > 0.0 {
            self.mac_tokens = (self.mac_tokens + self.mac_bw).min(self.beat as f64);
            tx_ready &= self.mac_tokens > 0.0;
        }
        self.inp.tx_tready = tx_ready as u8;
    }

    /// Put the next DMA read beat on `dma_rd_resp_*` once its request is due.
    #[inline]
    fn drive_dma_read(&mut self) {
        if self.rd_loaded {
            return;
        }
        if self.rd_beat == 0 {
            // A new request: the oldest due one, or with reordering the oldest due one of a random tag.
            let mut heads: [Option<usize>; 16] = [None; 16];
            let mut n = 0;
            for (i, r) in self.rd_reqs.iter().enumerate() {
                if r.due > self.cycle {
                    break;
                }
                if heads[r.tag as usize & 15].is_none() {
                    heads[r.tag as usize & 15] = Some(i);
                    n += 1;
                }
                if self.rd_reorder.is_none() {
                    break;
                }
            }
            if n == 0 {
                return;
            }
            let mut pick = self.rng_pick(n);
            self.rd_cur = 0;
            for h in heads.iter().flatten() {
                if pick == 0 {
                    self.rd_cur = *h;
                    break;
                }
                pick -= 1;
            }
            if self.rd_cur != 0 {
                self.rd_reordered += 1;
            }
        }
        let req = self.rd_reqs[self.rd_cur];
        if self.rd_bw > 0.0 {
            if self.rd_tokens < self.beat as f64 {
                return;
            }
            self.rd_tokens -= self.beat as f64;
        }
        let addr = req.addr + self.rd_beat as u64 * self.beat as u64;
        let mut buf = [0u8; 64];
        // The whole request was range-checked when it was accepted.
        self.mem.read(addr, &mut buf[..self.beat]).unwrap();
        bytes_to_lanes(&buf, &mut self.inp.dma_rd_resp_data, self.beat);
        self.inp.dma_rd_resp_tag = req.tag;
        self.inp.dma_rd_resp_last = (self.rd_beat + 1 == req.beats) as u8;
        self.inp.dma_rd_resp_valid = 1;
        self.rd_loaded = true;
    }

    /// Update the bench from the outputs sampled before the edge.
    #[inline]
    fn take_handshakes(&mut self) {
        let out = &self.out;
        // Receive stream.
        if self.inp.rx_tvalid != 0 && out.rx_tready != 0 {
            self.rx_loaded = false;
            self.inp.rx_tvalid = 0;
            if self.inp.rx_tlast != 0 {
                self.rx_queue.pop_front();
                self.rx_pos = 0;
            } else {
                self.rx_pos += self.beat;
            }
        }
        // Transmit stream.
        if out.tx_tvalid != 0 && self.inp.tx_tready != 0 {
            let keep = out.tx_tkeep & keep_mask(self.beat);
            assert!(
                keep & keep.wrapping_add(1) == 0,
                "cycle {}: tx_tkeep {keep:#x} is not contiguous from lane 0",
                self.cycle
            );
            let mut buf = [0u8; 64];
            lanes_to_bytes(&out.tx_tdata, &mut buf, self.beat);
            let n = keep.trailing_ones() as usize;
            self.tx_cur.extend_from_slice(&buf[..n]);
            if self.mac_bw > 0.0 {
                self.mac_tokens -= n as f64;
                if out.tx_tlast != 0 {
                    // The MAC pads short frames to 60 bytes before its FCS.
                    let pad = 60usize.saturating_sub(self.tx_cur.len());
                    self.mac_tokens -= WIRE_OVERHEAD_BYTES + pad as f64;
                }
            }
            if out.tx_tlast != 0 {
                let frame = std::mem::replace(&mut self.tx_cur, Vec::with_capacity(2048));
                self.tx_done.push_back((self.cycle, frame));
            }
        }
        // Register port.
        if self.inp.reg_wr_valid != 0 && out.reg_wr_ready != 0 {
            self.inp.reg_wr_valid = 0;
        }
        if self.reg_rd_waiting {
            if self.inp.reg_rd_valid != 0 {
                if out.reg_rd_ready != 0 {
                    self.inp.reg_rd_valid = 0;
                }
            } else if out.reg_rd_data_valid != 0 {
                self.reg_rd_result = Some(out.reg_rd_data);
                self.reg_rd_waiting = false;
            }
        }
        // DMA read requests (accepted while a credit is free) and responses.
        if out.dma_rd_req_valid != 0 && self.inp.dma_rd_req_ready != 0 {
            self.accept_dma_read(
                out.dma_rd_req_addr,
                out.dma_rd_req_beats,
                out.dma_rd_req_tag,
            );
        }
        if self.inp.dma_rd_resp_valid != 0 && self.out.dma_rd_resp_ready != 0 {
            self.rd_loaded = false;
            self.inp.dma_rd_resp_valid = 0;
            self.rd_beat += 1;
            if self.inp.dma_rd_resp_last != 0 {
                self.rd_reqs.remove(self.rd_cur);
                self.rd_beat = 0;
            }
        }
        // DMA writes (accepted while the link has room).
        if self.out.dma_wr_valid != 0 && self.inp.dma_wr_ready != 0 {
            self.dma_write();
            if self.wr_bw > 0.0 {
                self.wr_tokens -= self.beat as f64;
            }
        }
        if self.out.irq != 0 {
            self.irq_count += 1;
        }
    }

    /// 0 without reordering, else a draw in 0..n.
    fn rng_pick(&mut self, n: usize) -> usize {
        match &mut self.rd_reorder {
            Some(r) if n > 1 => (r.next_u64() % n as u64) as usize,
            _ => 0,
        }
    }

    /// Read requests whose completions were returned ahead of an older request's (reordering on).
    pub fn dma_reads_reordered(&self) -> u64 {
        self.rd_reordered
    }

    fn accept_dma_read(&mut self, addr: u64, beats: u16, tag: u8) {
        let len = beats as usize * self.beat;
        assert!(
            beats > 0 && addr.is_multiple_of(self.beat as u64) && self.mem.contains(addr, len),
            "cycle {}: DMA read of {beats} beats at {addr:#x} is outside host memory {:?} or misaligned",
            self.cycle,
            self.mem
        );
        if let Err(e) = self
            .mem
            .check_dma(addr, len as u64, false, self.beat as u64)
        {
            panic!("cycle {}: {e}", self.cycle);
        }
        assert!(
            len <= self.max_read && (addr & 0xFFF) + len as u64 <= 4096,
            "cycle {}: DMA read of {len} bytes at {addr:#x} breaks PCIe's rules (at most {} bytes, no 4 KiB \
             boundary crossed)",
            self.cycle,
            self.max_read
        );
        self.rd_requests += 1;
        self.rd_reqs.push_back(ReadReq {
            addr,
            beats,
            tag,
            due: self.cycle + self.rd_latency,
        });
    }

    fn dma_write(&mut self) {
        let addr = self.out.dma_wr_addr;
        let mut buf = [0u8; 64];
        lanes_to_bytes(&self.out.dma_wr_data, &mut buf, self.beat);
        let strb = self.out.dma_wr_strb & keep_mask(self.beat);
        let ok = addr.is_multiple_of(self.beat as u64)
            && self
                .mem
                .write_strobed(addr, &buf[..self.beat], strb)
                .is_ok();
        assert!(
            ok,
            "cycle {}: DMA write at {addr:#x} (strobe {strb:#x}) is outside host memory {:?} or misaligned",
            self.cycle, self.mem
        );
        if strb != 0 {
            // The bytes the strobes select, first to last.
            let first = strb.trailing_zeros() as u64;
            let last = 63 - strb.leading_zeros() as u64;
            if let Err(e) =
                self.mem
                    .check_dma(addr + first, last - first + 1, true, self.beat as u64)
            {
                panic!("cycle {}: {e}", self.cycle);
            }
        }
    }

    /// The core's outputs as sampled in the last cycle (bus fields hold their last valid beat).
    pub fn outputs(&self) -> &NicOut {
        &self.out
    }

    /// Evaluate every half cycle in full: no skipped clock-low evaluation on cycles whose inputs did not
    /// change, and the input logic run again at the clock-high one (sim/build.rs, `gate_input_comb`).
    /// Results are the same; this exists to check that they are.
    pub fn set_exact(&mut self, exact: bool) {
        self.model.set_exact(exact);
    }

    /// Whether idle cycles take the shortcut (Verilator internals permitting; never while tracing).
    pub fn has_idle_shortcut(&self) -> bool {
        self.model.has_idle_shortcut()
    }

    /// Flush the VCD file, if any.
    pub fn flush_vcd(&mut self) {
        self.model.trace_flush();
    }
}
