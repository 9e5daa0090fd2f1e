//! Malformed frames from valid ones, for fuzzing the parsers (`tests/fuzz.rs`) and for storms of bad
//! frames into a running NIC (`tools/tests/storm.rs`): bit flips (mostly in the headers), extreme field
//! values, truncation, extension, bytes inserted and removed, and header changes with the ICRC resealed
//! so that the frame passes the checksum and reaches the transport's checks. The caller supplies the
//! random numbers (a seeded generator), so a run is repeated exactly by its seed.
use crate::wire::Frame;

/// What [`mutate`] does to the frame's ICRC after changing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Icrc {
    /// Left as it was: most mutated frames then fail the ICRC check.
    Left,
    /// Recomputed (with the lengths and the IPv4 checksum) when the mutated frame still parses: a forged
    /// but valid frame.
    Resealed,
}

/// Applies one to four mutations to `f`, drawing from `rng` (any 64-bit generator), then deals with
/// the ICRC as `icrc` says.
pub fn mutate(rng: &mut dyn FnMut() -> u64, f: &mut Vec<u8>, icrc: Icrc) {
    let below = |rng: &mut dyn FnMut() -> u64, n: usize| (rng() % n.max(1) as u64) as usize;
    for _ in 0..1 + below(rng, 4) {
        let n = f.len();
        match below(rng, 7) {
            // A bit flip, four times in five in the first 100 bytes (the headers).
            0 | 1 if n > 0 => {
                let at = if below(rng, 5) < 4 {
                    below(rng, n.min(100))
                } else {
                    below(rng, n)
                };
                f[at] ^= 1 << below(rng, 8);
            }
            // An extreme value in one byte or a 16-bit field.
            2 if n > 1 => {
                let at = below(rng, n - 1);
                let v = [0x00, 0xFF, 0x80, 0x7F][below(rng, 4)];
                f[at] = v;
                if rng() & 1 == 1 {
                    f[at + 1] = v;
                }
            }
            // Truncation anywhere.
            3 => f.truncate(below(rng, n + 1)),
            // Extension with random bytes.
            4 => {
                for _ in 0..1 + below(rng, 199) {
                    f.push(rng() as u8);
                }
            }
            // Bytes inserted or removed inside (every later offset shifts).
            5 if n > 0 => {
                let at = below(rng, n);
                for _ in 0..1 + below(rng, 7) {
                    f.insert(at, rng() as u8);
                }
            }
            6 if n > 8 => {
                let at = below(rng, n - 8);
                f.drain(at..at + 1 + below(rng, 7));
            }
            _ => {}
        }
    }
    if icrc == Icrc::Resealed {
        if let Ok(mut p) = Frame::parse(f) {
            if p.seal().is_ok() {
                *f = p.emit();
            }
        }
    }
}
