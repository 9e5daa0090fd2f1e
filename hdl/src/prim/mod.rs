//! Primitives generated from Rust: the parallel CRC-32 and its pipelined form, a registered stream beat and a stream's register slice,
//! a byte-order swap, a lane rotator and a two-word funnel, slot writes and reads, a carry-save sum of 16-bit words
//! and a one's-complement add.
//! Their Verilog is written by Rust code (an XOR matrix computed here, a fixed wiring, per-slot selects),
//! and their `update` is the reference model that rust-hdl's simulator runs.
pub mod beat_reg;
pub mod byteswap;
pub mod crc32;
pub mod crc32_pipe;
pub mod csa16;
pub mod end_around_add;
pub mod funnel;
pub mod lane_count;
pub mod lane_rotate;
pub mod slot_fill;
pub mod slot_pick;
pub mod stream_slice;

/// The tests' seeded random numbers (the project's one generator, SplitMix64 from rand_xoshiro): the
/// same sequence every run.
#[cfg(test)]
pub(crate) fn test_rng(seed: u64) -> impl FnMut() -> u64 {
    use rand_core::{RngCore, SeedableRng};
    let mut r = rand_xoshiro::SplitMix64::seed_from_u64(seed);
    move || r.next_u64()
}
