//! An output-queued Ethernet switch between several NICs, with ECN marking: the congestion point that
//! DCQCN reacts to. Each egress port (or group of ports sharing one link, the bottleneck) has a FIFO
//! drained at its line rate (frame bytes plus preamble, SFD and inter-frame gap, as the MAC model counts
//! them); a frame arriving to a queue holding more than `kmin` bytes is marked Congestion Experienced with
//! a probability rising linearly to `pmax` at `kmax` and 1 above (RED-style, as DCQCN's switches are
//! configured); a frame that would overflow `buffer_bytes` is dropped. Forwarding is by destination MAC from
//! a static table; broadcasts and unknown destinations are flooded.
//!
//! No Verilator in here either, so it is tested on its own.
use crate::fault::{RngCore, SeedableRng, SplitMix64};
use crate::link::{PcapTap, MIN_FRAME};
use crate::nic::WIRE_OVERHEAD_BYTES;
use rocenic_proto::wire::Ipv4Packet;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::io;

type InFlight = (u64, u64, usize, Vec<u8>);

/// A switch's set-up.
#[derive(Clone, Debug)]
pub struct SwitchConfig {
    /// Port `i` leads to the NIC with MAC `macs[i]`.
    pub macs: Vec<[u8; 6]>,
    /// Egress ports that share one queue and one link (the bottleneck), e.g. two hosts behind one
    /// downlink; every other port has its own.
    pub shared: Vec<usize>,
    /// Line rate of every egress link, bytes per cycle.
    pub bytes_per_cycle: f64,
    /// ECN marking thresholds in queued bytes and the marking probability at `kmax`.
    pub kmin: usize,
    pub kmax: usize,
    pub pmax: f64,
    /// Queue capacity in bytes; beyond it frames are dropped.
    pub buffer_bytes: usize,
    /// Cycles between two samples of the bottleneck queue and of the bytes each port sent through it.
    pub sample_cycles: u64,
}

/// One sample of the bottleneck: at `cycle`, the queue held `queue_bytes`; `bytes[p]` is what port `p`'s
/// frames took of the bottleneck link since the previous sample.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub cycle: u64,
    pub queue_bytes: usize,
    pub bytes: Vec<u64>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SwitchStats {
    pub frames: u64,
    pub ce_marked: u64,
    pub dropped: u64,
    pub max_queue_bytes: usize,
}

struct Queue {
    frames: VecDeque<(usize, usize, Vec<u8>)>,
    bytes: usize,
    /// The cycle the link finishes the frame it is sending.
    busy_until: f64,
}

/// The switch: `send` is a NIC's frame entering it, `poll` a frame leaving towards a NIC.
pub struct Switch {
    cfg: SwitchConfig,
    latency: u64,
    ns_per_cycle: f64,
    queues: Vec<Queue>,
    /// Egress port → queue.
    queue_of: Vec<usize>,
    bottleneck: Option<usize>,
    rng: SplitMix64,
    /// Frames on their way out: (due cycle, arrival order, egress port, frame), earliest first.
    in_flight: BinaryHeap<Reverse<InFlight>>,
    seq: u64,
    pcap: Option<PcapTap>,
    stats: SwitchStats,
    samples: Vec<Sample>,
    window: Vec<u64>,
    next_sample: u64,
    sent: Option<Vec<Vec<Vec<u8>>>>,
}

/// Sets CE on an IPv4 frame sent ECN-capable and fixes the header checksum; the ICRC does not cover the
/// traffic class. Returns whether it marked.
pub fn mark_ce(frame: &mut [u8]) -> bool {
    if frame.len() < 34 || frame[12..14] != [0x08, 0x00] || frame[14] >> 4 != 4 {
        return false;
    }
    let ecn = frame[15] & 3;
    if ecn == 0 || ecn == 3 {
        return ecn == 3;
    }
    frame[15] |= 3;
    Ipv4Packet::new_unchecked(&mut frame[14..]).fill_checksum();
    true
}

impl Switch {
    pub fn new(
        cfg: SwitchConfig,
        latency: u64,
        clock_mhz: f64,
        seed: u64,
        pcap: Option<PcapTap>,
    ) -> Switch {
        let n = cfg.macs.len();
        let mut queue_of = vec![usize::MAX; n];
        let mut queues = Vec::new();
        let mut bottleneck = None;
        for (p, q) in queue_of.iter_mut().enumerate() {
            if cfg.shared.contains(&p) {
                *q = *bottleneck.get_or_insert_with(|| {
                    queues.push(Queue::new());
                    queues.len() - 1
                });
            } else {
                *q = queues.len();
                queues.push(Queue::new());
            }
        }
        Switch {
            latency,
            ns_per_cycle: 1000.0 / clock_mhz,
            queues,
            queue_of,
            bottleneck,
            rng: SplitMix64::seed_from_u64(seed ^ 0x5717C4),
            in_flight: BinaryHeap::new(),
            seq: 0,
            pcap,
            stats: SwitchStats::default(),
            samples: Vec::new(),
            window: vec![0; n],
            next_sample: cfg.sample_cycles,
            sent: None,
            cfg,
        }
    }

    pub fn ports(&self) -> usize {
        self.cfg.macs.len()
    }

    /// Port `port`'s NIC put `frame` on its link at `cycle`.
    pub fn send(&mut self, port: usize, mut frame: Vec<u8>, cycle: u64) {
        if frame.len() < MIN_FRAME {
            frame.resize(MIN_FRAME, 0);
        }
        self.stats.frames += 1;
        if let Some(log) = &mut self.sent {
            log[port].push(frame.clone());
        }
        if let Some(tap) = &mut self.pcap {
            tap.record((cycle as f64 * self.ns_per_cycle).round() as u64, &frame);
        }
        let dst: [u8; 6] = frame[..6].try_into().unwrap();
        let outs: Vec<usize> = match self.cfg.macs.iter().position(|m| *m == dst) {
            Some(p) if p != port => vec![p],
            Some(_) => vec![],
            None => (0..self.ports()).filter(|&p| p != port).collect(),
        };
        for out in outs {
            let q = self.queue_of[out];
            let mut f = frame.clone();
            let depth = self.queues[q].bytes;
            if depth + f.len() > self.cfg.buffer_bytes {
                self.stats.dropped += 1;
                continue;
            }
            let p = if depth <= self.cfg.kmin {
                0.0
            } else if depth >= self.cfg.kmax {
                1.0
            } else {
                self.cfg.pmax * (depth - self.cfg.kmin) as f64
                    / (self.cfg.kmax - self.cfg.kmin) as f64
            };
            if p > 0.0 && unit(&mut self.rng) < p && mark_ce(&mut f) {
                self.stats.ce_marked += 1;
            }
            let qu = &mut self.queues[q];
            qu.bytes += f.len();
            self.stats.max_queue_bytes = self.stats.max_queue_bytes.max(qu.bytes);
            qu.frames.push_back((out, port, f));
        }
    }

    /// Moves frames whose turn on their egress link has come, samples the bottleneck, and returns the
    /// next frame due at its NIC by `cycle`, as (port, frame).
    pub fn poll(&mut self, cycle: u64) -> Option<(usize, Vec<u8>)> {
        let now = cycle as f64;
        for q in self.queues.iter_mut() {
            while q.busy_until <= now {
                let Some((out, from, f)) = q.frames.pop_front() else {
                    break;
                };
                q.bytes -= f.len();
                let wire = f.len() as f64 + WIRE_OVERHEAD_BYTES;
                q.busy_until = q.busy_until.max(now) + wire / self.cfg.bytes_per_cycle;
                self.window[from] += wire as u64;
                self.seq += 1;
                let due = q.busy_until.ceil() as u64 + self.latency;
                self.in_flight.push(Reverse((due, self.seq, out, f)));
            }
        }
        if self.cfg.sample_cycles > 0 && cycle >= self.next_sample {
            self.next_sample += self.cfg.sample_cycles;
            let queue_bytes = self.bottleneck.map_or(0, |b| self.queues[b].bytes);
            self.samples.push(Sample {
                cycle,
                queue_bytes,
                bytes: std::mem::replace(&mut self.window, vec![0; self.cfg.macs.len()]),
            });
        }
        if self
            .in_flight
            .peek()
            .is_some_and(|Reverse((due, _, _, _))| *due <= cycle)
        {
            let Reverse((_, _, out, f)) = self.in_flight.pop().unwrap();
            return Some((out, f));
        }
        None
    }

    /// Cycles from `cycle` on before the switch's next event: a queued frame to serve (none then), a
    /// frame due at a NIC, a sample of the bottleneck.
    pub fn quiet_cycles(&self, cycle: u64) -> u64 {
        if self.queues.iter().any(|q| !q.frames.is_empty()) {
            return 0;
        }
        let mut next = self
            .in_flight
            .peek()
            .map_or(u64::MAX, |Reverse((due, _, _, _))| *due);
        if self.cfg.sample_cycles > 0 {
            next = next.min(self.next_sample);
        }
        next.saturating_sub(cycle + 1)
    }

    pub fn record(&mut self) {
        let n = self.ports();
        self.sent.get_or_insert_with(|| vec![Vec::new(); n]);
    }

    pub fn take_sent(&mut self, port: usize) -> Vec<Vec<u8>> {
        self.sent
            .as_mut()
            .map_or_else(Vec::new, |log| std::mem::take(&mut log[port]))
    }

    pub fn stats(&self) -> SwitchStats {
        self.stats.clone()
    }

    /// The bottleneck samples so far (taken out).
    pub fn take_samples(&mut self) -> Vec<Sample> {
        std::mem::take(&mut self.samples)
    }

    pub fn flush_pcap(&mut self) -> io::Result<()> {
        self.pcap.as_mut().map_or(Ok(()), PcapTap::flush)
    }
}

/// A uniform draw in [0, 1).
fn unit(r: &mut SplitMix64) -> f64 {
    (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

impl Queue {
    fn new() -> Queue {
        Queue {
            frames: VecDeque::new(),
            bytes: 0,
            busy_until: 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mac(p: u8) -> [u8; 6] {
        [2, 0, 0, 0, 0, p]
    }

    fn frame(dst: u8, len: usize, ecn: u8) -> Vec<u8> {
        let mut f = vec![0u8; len];
        f[..6].copy_from_slice(&mac(dst));
        f[12] = 0x08;
        f[14] = 0x45;
        f[15] = ecn;
        f
    }

    fn switch(kmin: usize, kmax: usize, pmax: f64) -> Switch {
        Switch::new(
            SwitchConfig {
                macs: (0..4).map(mac).collect(),
                shared: vec![2, 3],
                bytes_per_cycle: 8.0,
                kmin,
                kmax,
                pmax,
                buffer_bytes: 100_000,
                sample_cycles: 0,
            },
            10,
            156.25,
            1,
            None,
        )
    }

    #[test]
    fn forwards_by_mac_at_the_line_rate() {
        let mut s = switch(1 << 30, 1 << 30, 0.0);
        // Two 1000-byte frames to port 2 back to back: the second leaves 1024 / 8 = 128 cycles later.
        s.send(0, frame(2, 1000, 2), 0);
        s.send(1, frame(2, 1000, 2), 0);
        let mut got = Vec::new();
        for c in 0..1000 {
            while let Some((to, f)) = s.poll(c) {
                got.push((c, to, f.len()));
            }
        }
        assert_eq!(got, vec![(138, 2, 1000), (266, 2, 1000)]);
    }

    #[test]
    fn the_shared_link_is_one_queue_and_other_ports_are_not() {
        let mut s = switch(1 << 30, 1 << 30, 0.0);
        s.send(0, frame(2, 1000, 2), 0);
        s.send(1, frame(3, 1000, 2), 0);
        s.send(2, frame(0, 1000, 2), 0);
        let mut got = Vec::new();
        for c in 0..1000 {
            while let Some((to, _)) = s.poll(c) {
                got.push((c, to));
            }
        }
        // Ports 2 and 3 share one link: the second waits for the first; port 0's own link does not.
        assert_eq!(got, vec![(138, 0), (138, 2), (266, 3)]);
    }

    #[test]
    fn marks_ce_above_kmax_and_not_below_kmin() {
        let mut s = switch(3000, 5000, 0.0);
        for _ in 0..8 {
            s.send(0, frame(2, 1000, 2), 0);
        }
        let mut marks = Vec::new();
        for c in 0..3000 {
            while let Some((_, f)) = s.poll(c) {
                marks.push(f[15] & 3);
            }
        }
        // Queued before each: 0, 1000, ... 7000 bytes (none leaves before the poll); CE from 5000 on.
        assert_eq!(marks, vec![2, 2, 2, 2, 2, 3, 3, 3]);
        assert_eq!(s.stats().ce_marked, 3);
    }

    #[test]
    fn not_ect_is_never_marked_and_the_checksum_stays_valid() {
        let mut f = frame(2, 60, 0);
        assert!(!mark_ce(&mut f));
        let mut f = frame(2, 60, 1);
        f[16..24].copy_from_slice(&[0, 44, 0x12, 0x34, 0x40, 0, 64, 17]);
        f[26..34].copy_from_slice(&[10, 0, 0, 1, 10, 0, 0, 2]);
        assert!(mark_ce(&mut f));
        assert_eq!(f[15] & 3, 3);
        let mut sum = 0u32;
        for i in (14..34).step_by(2) {
            sum += u16::from_be_bytes([f[i], f[i + 1]]) as u32;
        }
        while sum > 0xFFFF {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }
        assert_eq!(sum, 0xFFFF, "the header checksum verifies");
    }

    #[test]
    fn overflow_drops() {
        let mut s = switch(1 << 30, 1 << 30, 0.0);
        for _ in 0..120 {
            s.send(0, frame(2, 1000, 2), 0);
        }
        assert_eq!(s.stats().dropped, 20);
    }
}
