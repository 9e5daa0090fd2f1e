//! Deterministic fault injection on the link: explicit faults on chosen frames, plus optional seeded random
//! corruption, loss, duplication, reordering and delay jitter.
//!
//! Frames are numbered per sending port from 0 (frame 0 is the first frame that port sends). Bit `k` of a
//! frame is bit `k % 8` (bit 0 = least significant) of byte `k / 8`, counted on the padded frame as it is on
//! the wire.

/// One explicit fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Flip bit `bit` of frame number `frame` sent by `port`.
    FlipBit { port: usize, frame: u64, bit: usize },
    /// Drop frame number `frame` sent by `port` (it still appears in the pcap).
    Drop { port: usize, frame: u64 },
}

/// What the link does to frames. The default does nothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FaultPlan {
    pub entries: Vec<Fault>,
    /// Probability that a frame gets one random bit flipped (0 disables; draws use the fabric's seed) where
    /// no FCS sees it: inside a switch that recomputes the FCS, so only the ICRC can catch it.
    pub corrupt_probability: f64,
    /// Probability that a frame gets one random bit flipped on the wire: the receiving MAC's FCS check
    /// fails and it delivers the frame marked bad (`rx_tuser`).
    pub fcs_error_probability: f64,
    /// Probability that a frame is dropped.
    pub drop_probability: f64,
    /// Probability that a frame is delivered twice.
    pub duplicate_probability: f64,
    /// Probability that a frame is held back by `reorder_cycles`, so that frames sent after it overtake it.
    pub reorder_probability: f64,
    pub reorder_cycles: u64,
    /// Every frame is delayed by a uniform extra 0..=`jitter_cycles` (frames may then overtake each other).
    pub jitter_cycles: u64,
    /// With `Some(n)`, the random faults above hit only each port's first `n` frames (numbered from 0); the
    /// rest pass untouched, so a run's closing exchange (after which a peer may be gone) is not lost.
    pub random_frames: Option<u64>,
}

/// What happened to one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fate {
    pub corrupted: bool,
    /// Corrupted on the wire: the receiving MAC marks it bad.
    pub fcs_bad: bool,
    pub dropped: bool,
    pub duplicated: bool,
    pub reordered: bool,
    /// Cycles added to the link latency for this frame.
    pub extra_delay: u64,
}

impl FaultPlan {
    /// No faults.
    pub fn none() -> FaultPlan {
        FaultPlan::default()
    }

    /// Add: flip bit `bit` of frame `frame` sent by `port`.
    pub fn flip_bit(mut self, port: usize, frame: u64, bit: usize) -> FaultPlan {
        self.entries.push(Fault::FlipBit { port, frame, bit });
        self
    }

    /// Add: drop frame `frame` sent by `port`.
    pub fn drop_frame(mut self, port: usize, frame: u64) -> FaultPlan {
        self.entries.push(Fault::Drop { port, frame });
        self
    }

    /// Set the random corruption and drop probabilities (each in 0..=1).
    pub fn random(mut self, corrupt_probability: f64, drop_probability: f64) -> FaultPlan {
        self.corrupt_probability = corrupt_probability;
        self.drop_probability = drop_probability;
        self
    }

    /// Limit the random faults to each port's first `n` frames.
    pub fn random_frames(mut self, n: u64) -> FaultPlan {
        self.random_frames = Some(n);
        self
    }

    /// Add: duplicate each frame with probability `duplicate`, hold one back by `cycles` with probability
    /// `reorder`.
    pub fn shuffle(mut self, duplicate: f64, reorder: f64, cycles: u64) -> FaultPlan {
        self.duplicate_probability = duplicate;
        self.reorder_probability = reorder;
        self.reorder_cycles = cycles;
        self
    }

    /// Add: flip a bit of each frame on the wire with probability `p`, so that its FCS fails at the
    /// receiver.
    pub fn fcs_errors(mut self, p: f64) -> FaultPlan {
        self.fcs_error_probability = p;
        self
    }

    /// Add: delay every frame by a uniform extra 0..=`cycles`.
    pub fn jitter(mut self, cycles: u64) -> FaultPlan {
        self.jitter_cycles = cycles;
        self
    }

    /// Apply the plan to frame number `index` of `port`. Random draws happen only for non-zero
    /// probabilities, in a fixed order (corrupt, drop, duplicate, reorder, jitter, FCS), so a plan without
    /// random faults never touches `rng` and adding a later kind of fault keeps the earlier draws.
    pub fn apply(&self, port: usize, index: u64, frame: &mut [u8], rng: &mut SplitMix64) -> Fate {
        let mut fate = Fate::default();
        for e in &self.entries {
            match *e {
                Fault::FlipBit {
                    port: p,
                    frame: n,
                    bit,
                } if p == port && n == index => {
                    assert!(
                        bit < frame.len() * 8,
                        "fault plan flips bit {bit} of frame {n} from port {p}, which has only {} bytes",
                        frame.len()
                    );
                    frame[bit / 8] ^= 1 << (bit % 8);
                    fate.corrupted = true;
                }
                Fault::Drop { port: p, frame: n } if p == port && n == index => fate.dropped = true,
                _ => {}
            }
        }
        if self.random_frames.is_some_and(|n| index >= n) {
            return fate;
        }
        if self.corrupt_probability > 0.0 && rng.next_f64() < self.corrupt_probability {
            let bit = (rng.next_u64() % (frame.len() as u64 * 8)) as usize;
            frame[bit / 8] ^= 1 << (bit % 8);
            fate.corrupted = true;
        }
        if self.drop_probability > 0.0 && rng.next_f64() < self.drop_probability {
            fate.dropped = true;
        }
        if self.duplicate_probability > 0.0 && rng.next_f64() < self.duplicate_probability {
            fate.duplicated = true;
        }
        if self.reorder_probability > 0.0 && rng.next_f64() < self.reorder_probability {
            fate.reordered = true;
            fate.extra_delay += self.reorder_cycles;
        }
        if self.jitter_cycles > 0 {
            fate.extra_delay += rng.next_u64() % (self.jitter_cycles + 1);
        }
        // Last, so that plans without it draw exactly as before.
        if self.fcs_error_probability > 0.0 && rng.next_f64() < self.fcs_error_probability {
            let bit = (rng.next_u64() % (frame.len() as u64 * 8)) as usize;
            frame[bit / 8] ^= 1 << (bit % 8);
            fate.fcs_bad = true;
        }
        fate
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014) from `rand_xoshiro`: a tiny, well-mixed generator, enough for
/// fault draws. `SplitMix64::seed_from_u64(seed)` starts from `seed` itself, so a seed names the same
/// sequence here as in the reference implementation.
pub use rand_xoshiro::SplitMix64;

pub use rand_core::{RngCore, SeedableRng};

/// The two draws the simulator takes from its generators, in the form every seeded run was recorded
/// with (so a seed keeps naming the same faults).
pub trait Draw: RngCore {
    /// In [0, n) (by modulo; n = 0 counts as 1).
    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// Uniform in [0, 1).
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

impl<R: RngCore> Draw for R {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_reference_values() {
        // First outputs for seed 1234567 from the reference implementation.
        let mut r = SplitMix64::seed_from_u64(1234567);
        assert_eq!(r.next_u64(), 6457827717110365317);
        assert_eq!(r.next_u64(), 3203168211198807973);
    }

    #[test]
    fn random_faults_follow_their_probabilities() {
        let plan = FaultPlan::none()
            .random(0.0, 0.1)
            .shuffle(0.2, 0.3, 500)
            .jitter(10);
        let mut rng = SplitMix64::seed_from_u64(9);
        let (mut drop, mut dup, mut reo) = (0, 0, 0);
        let mut f = vec![0u8; 60];
        for i in 0..10_000 {
            let fate = plan.apply(0, i, &mut f, &mut rng);
            drop += fate.dropped as u32;
            dup += fate.duplicated as u32;
            reo += fate.reordered as u32;
            assert!(fate.extra_delay <= 510);
            assert_eq!(fate.reordered, fate.extra_delay >= 500);
        }
        assert!((900..1100).contains(&drop), "{drop}");
        assert!((1800..2200).contains(&dup), "{dup}");
        assert!((2700..3300).contains(&reo), "{reo}");
        assert!(f.iter().all(|&b| b == 0), "no corruption asked for");
    }

    #[test]
    fn random_faults_stop_after_the_window() {
        let plan = FaultPlan::none().random(0.0, 0.5).random_frames(1000);
        let mut rng = SplitMix64::seed_from_u64(3);
        let mut f = vec![0u8; 60];
        let dropped = |from: u64, rng: &mut SplitMix64, f: &mut Vec<u8>| {
            (from..from + 1000)
                .filter(|&i| plan.apply(1, i, f, rng).dropped)
                .count()
        };
        assert!((400..600).contains(&dropped(0, &mut rng, &mut f)));
        assert_eq!(dropped(1000, &mut rng, &mut f), 0);
        // Explicit faults still apply past the window.
        let plan = plan.drop_frame(1, 5000);
        assert!(plan.apply(1, 5000, &mut f, &mut rng).dropped);
    }

    #[test]
    fn explicit_flip_and_drop() {
        let plan = FaultPlan::none().flip_bit(1, 2, 9).drop_frame(0, 0);
        let mut rng = SplitMix64::seed_from_u64(0);
        let mut f = vec![0u8; 60];
        assert_eq!(plan.apply(1, 1, &mut f, &mut rng), Fate::default());
        let fate = plan.apply(1, 2, &mut f, &mut rng);
        assert!(fate.corrupted && !fate.dropped);
        assert_eq!(f[1], 0b10);
        assert!(plan.apply(0, 0, &mut f, &mut rng).dropped);
    }
}
