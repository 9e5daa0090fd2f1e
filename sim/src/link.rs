//! The wire between two NICs, acting as both MACs: it pads frames to the 60-byte Ethernet minimum (the core
//! sends them unpadded, FCS is never modelled), applies the fault plan, taps every frame into a pcap as it
//! went on the wire, and delivers it to the other port after a fixed latency.
//!
//! The link has no Verilator in it, so it can be tested on its own.
use crate::fault::{FaultPlan, SeedableRng, SplitMix64};
use rocenic_proto::pcap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io;
use std::path::Path;
use std::time::Duration;

/// Shortest Ethernet frame without FCS.
pub const MIN_FRAME: usize = 60;

/// Link counters. Index = sending port; every frame a port sent is counted, dropped ones included.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Frames sent by each port.
    pub frames: [u64; 2],
    /// Bytes sent by each port, after padding, without FCS.
    pub bytes: [u64; 2],
    /// Frames with at least one bit flipped where no FCS sees it.
    pub corrupted: u64,
    /// Frames with a bit flipped on the wire, delivered marked bad (a failed FCS).
    pub fcs_errors: u64,
    /// Frames not delivered.
    pub dropped: u64,
    /// Frames delivered twice.
    pub duplicated: u64,
    /// Frames held back so that later ones overtook them.
    pub reordered: u64,
}

/// A pcap capture in simulated time (nanosecond timestamps, Ethernet link type).
pub struct PcapTap {
    writer: pcap::Writer,
    /// First write error; later frames are not written, and `flush` reports it.
    error: Option<io::Error>,
}

impl PcapTap {
    /// Create (truncate) `path` and write the pcap header.
    pub fn create(path: &Path) -> io::Result<PcapTap> {
        let writer = pcap::Writer::create(path).map_err(io::Error::other)?;
        Ok(PcapTap {
            writer,
            error: None,
        })
    }

    pub fn record(&mut self, ns: u64, frame: &[u8]) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.writer.write(Duration::from_nanos(ns), frame) {
            self.error = Some(io::Error::other(e));
        }
    }

    /// Flush to the file; reports the first write error, if any.
    pub fn flush(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.writer.flush()
    }
}

/// Frames in flight, earliest delivery first: (delivery cycle, sequence number, bytes). The sequence number
/// keeps frames due on the same cycle in the order they were sent.
type InFlight = BinaryHeap<Reverse<(u64, u64, Vec<u8>, bool)>>;

/// The point-to-point link between port 0 and port 1.
pub struct Link {
    latency: u64,
    /// Simulated nanoseconds per clock cycle, for pcap timestamps.
    ns_per_cycle: f64,
    faults: FaultPlan,
    rng: SplitMix64,
    in_flight: [InFlight; 2],
    pcap: Option<PcapTap>,
    stats: LinkStats,
    seq: u64,
    /// Frames as they went on the wire, per sending port, when recording (see [`Link::record`]).
    sent: Option<[Vec<Vec<u8>>; 2]>,
}

impl Link {
    /// A link delivering each frame `latency` cycles after it was sent, clocked at `clock_mhz`.
    pub fn new(
        latency: u64,
        clock_mhz: f64,
        faults: FaultPlan,
        seed: u64,
        pcap: Option<PcapTap>,
    ) -> Link {
        Link {
            latency,
            ns_per_cycle: 1000.0 / clock_mhz,
            faults,
            rng: SplitMix64::seed_from_u64(seed),
            in_flight: [BinaryHeap::new(), BinaryHeap::new()],
            pcap,
            stats: LinkStats::default(),
            seq: 0,
            sent: None,
        }
    }

    /// Port `port` put `frame` on the wire at cycle `cycle` (the cycle its last beat left the core).
    pub fn send(&mut self, port: usize, mut frame: Vec<u8>, cycle: u64) {
        assert!(port < 2, "the link has ports 0 and 1, not {port}");
        if frame.len() < MIN_FRAME {
            frame.resize(MIN_FRAME, 0);
        }
        let index = self.stats.frames[port];
        let fate = self.faults.apply(port, index, &mut frame, &mut self.rng);
        self.stats.frames[port] += 1;
        self.stats.bytes[port] += frame.len() as u64;
        self.stats.corrupted += fate.corrupted as u64;
        self.stats.fcs_errors += fate.fcs_bad as u64;
        self.stats.dropped += fate.dropped as u64;
        self.stats.duplicated += (fate.duplicated && !fate.dropped) as u64;
        self.stats.reordered += (fate.reordered && !fate.dropped) as u64;
        if let Some(log) = &mut self.sent {
            log[port].push(frame.clone());
        }
        if let Some(tap) = &mut self.pcap {
            tap.record((cycle as f64 * self.ns_per_cycle).round() as u64, &frame);
        }
        if !fate.dropped {
            let due = cycle + self.latency + fate.extra_delay;
            if fate.duplicated {
                self.seq += 1;
                self.in_flight[port].push(Reverse((due, self.seq, frame.clone(), fate.fcs_bad)));
            }
            self.seq += 1;
            self.in_flight[port].push(Reverse((due, self.seq, frame, fate.fcs_bad)));
        }
    }

    /// The next frame due at or before `cycle`, as (receiving port, frame, whether its FCS fails).
    #[inline]
    pub fn poll(&mut self, cycle: u64) -> Option<(usize, Vec<u8>, bool)> {
        for from in 0..2 {
            if self.in_flight[from]
                .peek()
                .is_some_and(|Reverse((due, _, _, _))| *due <= cycle)
            {
                let Reverse((_, _, f, bad)) = self.in_flight[from].pop().unwrap();
                return Some((1 - from, f, bad));
            }
        }
        None
    }

    /// Keep every frame sent from now on, for [`Link::take_sent`].
    pub fn record(&mut self) {
        self.sent.get_or_insert_with(Default::default);
    }

    /// The frames port `port` sent since the last call (as on the wire: padded, faults applied).
    pub fn take_sent(&mut self, port: usize) -> Vec<Vec<u8>> {
        self.sent
            .as_mut()
            .map_or_else(Vec::new, |log| std::mem::take(&mut log[port]))
    }

    /// Cycles from `cycle` on before the next frame is due (all of them with none on the wire).
    pub fn quiet_cycles(&self, cycle: u64) -> u64 {
        self.in_flight
            .iter()
            .filter_map(|q| q.peek().map(|Reverse((due, _, _, _))| *due))
            .min()
            .map_or(u64::MAX, |due| due.saturating_sub(cycle + 1))
    }

    /// Whether any frame is still on the wire.
    pub fn busy(&self) -> bool {
        self.in_flight.iter().any(|q| !q.is_empty())
    }

    pub fn stats(&self) -> LinkStats {
        self.stats
    }

    /// Flush the pcap file (no-op without one).
    pub fn flush_pcap(&mut self) -> io::Result<()> {
        self.pcap.as_mut().map_or(Ok(()), PcapTap::flush)
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        // Best effort: a caller that cares about errors calls flush_pcap first.
        let _ = self.flush_pcap();
    }
}
