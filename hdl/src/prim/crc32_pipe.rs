//! CRC-32 of a stream of beats, pipelined: five stages of at most a few LUT levels each (a CRC over a
//! whole 512-bit beat in one cycle is ten).
//!
//! The covered bytes of a region (a frame's ICRC region) arrive as runs of enabled lanes, one per beat.
//! Each run is taken as a whole beat with the lanes outside it zero, so the only thing that feeds back
//! from one beat to the next is `crc' = F·crc ⊕ D(beat)`, with `F` the fixed advance over one beat of
//! zeros and `D` the CRC from zero of the masked beat (an XOR matrix over data alone, split over two
//! stages). Two kinds of run break that form, and both are handled outside the loop:
//! - the region's first run, which starts at lane `s` from the start value `I`: the lanes below `s` are
//!   zero and a zero register stays zero over zeros, so the beat from `I` is `D(beat) ⊕ Z(b−s)·I`, a
//!   constant chosen by `s` (one LUT per bit);
//! - the region's last run, which ends at lane `t` and so gains `pad = b−1−t` zero bytes: the result is
//!   brought back over them by the inverse of the zero-byte advance, `Z(pad)⁻¹` (the CRC register's
//!   advance over a zero byte is invertible), in two stages after the loop that pick a matrix by the
//!   low and the high bits of `pad`.
//!
//! Contract: `en` is one contiguous run of lanes or none; after `sof` the first non-empty run starts the
//! region from the start value; every later run starts at lane 0, and only the region's last non-empty
//! run may end below the top lane. The result (the register over the region, not complemented, and the
//! `pad` of its last run) comes out [`LATENCY`] advancing cycles after the beat that carried `eoc`.
//! Every stage moves when `adv` is set and holds otherwise, so a caller stalls it with its data.
//!
//! The stages' registers are rust-hdl flip-flops; what they take at each edge comes from one generated
//! combinational block ([`Crc32PipeNext`]: XOR equations written by Rust code), whose `update` is the
//! bit-exact reference model rust-hdl's simulator runs.
use super::crc32::{
    beat_from_zero_cols, equations, one_hot_index, run, tree, zero_bytes_cols, ICRC_START, POLY,
};
use rust_hdl::prelude::*;

/// Advancing cycles from the `eoc` beat at the inputs to its result on `res_*`.
pub const LATENCY: usize = 5;

/// The register taken back over one zero byte: the inverse of [`super::crc32::step`] with data 0.
/// A bit shifted out at the bottom brought the polynomial in, which sets bit 31 (the shifted register's
/// bit 31 is clear), so bit 31 tells which way each of the eight bit steps went.
pub(crate) const fn unstep_zero(mut crc: u32) -> u32 {
    let mut i = 0;
    while i < 8 {
        crc = if crc & 0x8000_0000 != 0 {
            ((crc ^ POLY) << 1) | 1
        } else {
            crc << 1
        };
        i += 1;
    }
    crc
}

/// `Z(n)⁻¹` as a matrix: column `k` is unit vector `k` taken back over `n` zero bytes.
fn unzero_cols(n: usize) -> Vec<u32> {
    (0..32)
        .map(|k| (0..n).fold(1u32 << k, |c, _| unstep_zero(c)))
        .collect()
}

#[derive(LogicBlock)]
pub struct Crc32Pipe<const W: usize, const B: usize> {
    pub clock: Signal<In, Clock>,
    /// Every stage moves this cycle (the beat at the inputs is taken if `in_valid`).
    pub adv: Signal<In, bool>,
    pub in_valid: Signal<In, bool>,
    pub data: Signal<In, Bits<W>>,
    /// The lanes of `data` the CRC covers: one contiguous run, or none.
    pub en: Signal<In, Bits<B>>,
    /// The beat starts a frame: the next non-empty run starts the region from the start value.
    pub sof: Signal<In, bool>,
    /// The beat holds the region's last covered byte (or follows it with no lane enabled).
    pub eoc: Signal<In, bool>,
    pub res_valid: Signal<Out, bool>,
    /// The CRC register over the region, from the start value, not complemented.
    pub res_crc: Signal<Out, Bits<32>>,
    /// Lanes above the region's last covered byte in its beat (`B − 1 − t`).
    pub res_pad: Signal<Out, Bits<8>>,
    next: Crc32PipeNext<W, B>,
    /// Stage 1: the run masked, the start value's share, pad, flags.
    m1: DFF<Bits<W>>,
    k1: DFF<Bits<32>>,
    pad1: DFF<Bits<8>>,
    v1: DFF<bool>,
    e1: DFF<bool>,
    init1: DFF<bool>,
    empty1: DFF<bool>,
    /// No non-empty run since `sof`: the next one starts the region.
    fresh: DFF<bool>,
    /// Stage 2: each 8-lane chunk's CRC from zero (32 bits each).
    p2: DFF<Bits<256>>,
    k2: DFF<Bits<32>>,
    pad2: DFF<Bits<8>>,
    v2: DFF<bool>,
    e2: DFF<bool>,
    init2: DFF<bool>,
    empty2: DFF<bool>,
    /// The loop register and the pad of its last run.
    acc: DFF<Bits<32>>,
    padq: DFF<Bits<8>>,
    /// Stages 3 to 5: a region's register, taken back over its pad by the low then the high bits.
    r3: DFF<Bits<32>>,
    pad3: DFF<Bits<8>>,
    v3: DFF<bool>,
    r4: DFF<Bits<32>>,
    pad4: DFF<Bits<8>>,
    v4: DFF<bool>,
    rc: DFF<Bits<32>>,
    rp: DFF<Bits<8>>,
    rv: DFF<bool>,
}

impl<const W: usize, const B: usize> Default for Crc32Pipe<W, B> {
    /// Starting from the ICRC's start value (after its 8-byte all-ones prefix).
    fn default() -> Self {
        Self {
            clock: Default::default(),
            adv: Default::default(),
            in_valid: Default::default(),
            data: Default::default(),
            en: Default::default(),
            sof: Default::default(),
            eoc: Default::default(),
            res_valid: Default::default(),
            res_crc: Default::default(),
            res_pad: Default::default(),
            next: Crc32PipeNext::new(ICRC_START),
            m1: Default::default(),
            k1: Default::default(),
            pad1: Default::default(),
            v1: Default::default(),
            e1: Default::default(),
            init1: Default::default(),
            empty1: Default::default(),
            fresh: Default::default(),
            p2: Default::default(),
            k2: Default::default(),
            pad2: Default::default(),
            v2: Default::default(),
            e2: Default::default(),
            init2: Default::default(),
            empty2: Default::default(),
            acc: Default::default(),
            padq: Default::default(),
            r3: Default::default(),
            pad3: Default::default(),
            v3: Default::default(),
            r4: Default::default(),
            pad4: Default::default(),
            v4: Default::default(),
            rc: Default::default(),
            rp: Default::default(),
            rv: Default::default(),
        }
    }
}

impl<const W: usize, const B: usize> Logic for Crc32Pipe<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, m1, k1, pad1, v1, e1, init1, empty1, fresh, p2, k2, pad2, v2, e2, init2,
            empty2, acc, padq, r3, pad3, v3, r4, pad4, v4, rc, rp, rv
        );
        self.next.adv.next = self.adv.val();
        self.next.in_valid.next = self.in_valid.val();
        self.next.data.next = self.data.val();
        self.next.en.next = self.en.val();
        self.next.sof.next = self.sof.val();
        self.next.eoc.next = self.eoc.val();
        self.next.m1_q.next = self.m1.q.val();
        self.next.k1_q.next = self.k1.q.val();
        self.next.pad1_q.next = self.pad1.q.val();
        self.next.v1_q.next = self.v1.q.val();
        self.next.e1_q.next = self.e1.q.val();
        self.next.init1_q.next = self.init1.q.val();
        self.next.empty1_q.next = self.empty1.q.val();
        self.next.fresh_q.next = self.fresh.q.val();
        self.next.p2_q.next = self.p2.q.val();
        self.next.k2_q.next = self.k2.q.val();
        self.next.pad2_q.next = self.pad2.q.val();
        self.next.v2_q.next = self.v2.q.val();
        self.next.e2_q.next = self.e2.q.val();
        self.next.init2_q.next = self.init2.q.val();
        self.next.empty2_q.next = self.empty2.q.val();
        self.next.acc_q.next = self.acc.q.val();
        self.next.padq_q.next = self.padq.q.val();
        self.next.r3_q.next = self.r3.q.val();
        self.next.pad3_q.next = self.pad3.q.val();
        self.next.v3_q.next = self.v3.q.val();
        self.next.r4_q.next = self.r4.q.val();
        self.next.pad4_q.next = self.pad4.q.val();
        self.next.v4_q.next = self.v4.q.val();
        self.next.rc_q.next = self.rc.q.val();
        self.next.rp_q.next = self.rp.q.val();
        self.next.rv_q.next = self.rv.q.val();
        self.m1.d.next = self.next.m1_d.val();
        self.k1.d.next = self.next.k1_d.val();
        self.pad1.d.next = self.next.pad1_d.val();
        self.v1.d.next = self.next.v1_d.val();
        self.e1.d.next = self.next.e1_d.val();
        self.init1.d.next = self.next.init1_d.val();
        self.empty1.d.next = self.next.empty1_d.val();
        self.fresh.d.next = self.next.fresh_d.val();
        self.p2.d.next = self.next.p2_d.val();
        self.k2.d.next = self.next.k2_d.val();
        self.pad2.d.next = self.next.pad2_d.val();
        self.v2.d.next = self.next.v2_d.val();
        self.e2.d.next = self.next.e2_d.val();
        self.init2.d.next = self.next.init2_d.val();
        self.empty2.d.next = self.next.empty2_d.val();
        self.acc.d.next = self.next.acc_d.val();
        self.padq.d.next = self.next.padq_d.val();
        self.r3.d.next = self.next.r3_d.val();
        self.pad3.d.next = self.next.pad3_d.val();
        self.v3.d.next = self.next.v3_d.val();
        self.r4.d.next = self.next.r4_d.val();
        self.pad4.d.next = self.next.pad4_d.val();
        self.v4.d.next = self.next.v4_d.val();
        self.rc.d.next = self.next.rc_d.val();
        self.rp.d.next = self.next.rp_d.val();
        self.rv.d.next = self.next.rv_d.val();
        self.res_valid.next = self.rv.q.val();
        self.res_crc.next = self.rc.q.val();
        self.res_pad.next = self.rp.q.val();
    }
}

/// What every register of [`Crc32Pipe`] takes at the next edge: the generated XOR equations, and their
/// bit-exact model.
#[derive(LogicBlock)]
pub struct Crc32PipeNext<const W: usize, const B: usize> {
    pub adv: Signal<In, bool>,
    pub in_valid: Signal<In, bool>,
    pub data: Signal<In, Bits<W>>,
    pub en: Signal<In, Bits<B>>,
    pub sof: Signal<In, bool>,
    pub eoc: Signal<In, bool>,
    pub m1_q: Signal<In, Bits<W>>,
    pub k1_q: Signal<In, Bits<32>>,
    pub pad1_q: Signal<In, Bits<8>>,
    pub v1_q: Signal<In, bool>,
    pub e1_q: Signal<In, bool>,
    pub init1_q: Signal<In, bool>,
    pub empty1_q: Signal<In, bool>,
    pub fresh_q: Signal<In, bool>,
    pub p2_q: Signal<In, Bits<256>>,
    pub k2_q: Signal<In, Bits<32>>,
    pub pad2_q: Signal<In, Bits<8>>,
    pub v2_q: Signal<In, bool>,
    pub e2_q: Signal<In, bool>,
    pub init2_q: Signal<In, bool>,
    pub empty2_q: Signal<In, bool>,
    pub acc_q: Signal<In, Bits<32>>,
    pub padq_q: Signal<In, Bits<8>>,
    pub r3_q: Signal<In, Bits<32>>,
    pub pad3_q: Signal<In, Bits<8>>,
    pub v3_q: Signal<In, bool>,
    pub r4_q: Signal<In, Bits<32>>,
    pub pad4_q: Signal<In, Bits<8>>,
    pub v4_q: Signal<In, bool>,
    pub rc_q: Signal<In, Bits<32>>,
    pub rp_q: Signal<In, Bits<8>>,
    pub rv_q: Signal<In, bool>,
    pub m1_d: Signal<Out, Bits<W>>,
    pub k1_d: Signal<Out, Bits<32>>,
    pub pad1_d: Signal<Out, Bits<8>>,
    pub v1_d: Signal<Out, bool>,
    pub e1_d: Signal<Out, bool>,
    pub init1_d: Signal<Out, bool>,
    pub empty1_d: Signal<Out, bool>,
    pub fresh_d: Signal<Out, bool>,
    pub p2_d: Signal<Out, Bits<256>>,
    pub k2_d: Signal<Out, Bits<32>>,
    pub pad2_d: Signal<Out, Bits<8>>,
    pub v2_d: Signal<Out, bool>,
    pub e2_d: Signal<Out, bool>,
    pub init2_d: Signal<Out, bool>,
    pub empty2_d: Signal<Out, bool>,
    pub acc_d: Signal<Out, Bits<32>>,
    pub padq_d: Signal<Out, Bits<8>>,
    pub r3_d: Signal<Out, Bits<32>>,
    pub pad3_d: Signal<Out, Bits<8>>,
    pub v3_d: Signal<Out, bool>,
    pub r4_d: Signal<Out, Bits<32>>,
    pub pad4_d: Signal<Out, Bits<8>>,
    pub v4_d: Signal<Out, bool>,
    pub rc_d: Signal<Out, Bits<32>>,
    pub rp_d: Signal<Out, Bits<8>>,
    pub rv_d: Signal<Out, bool>,
    _init: u32,
}

impl<const W: usize, const B: usize> Crc32PipeNext<W, B> {
    fn new(init: u32) -> Self {
        Self {
            adv: Default::default(),
            in_valid: Default::default(),
            data: Default::default(),
            en: Default::default(),
            sof: Default::default(),
            eoc: Default::default(),
            m1_q: Default::default(),
            k1_q: Default::default(),
            pad1_q: Default::default(),
            v1_q: Default::default(),
            e1_q: Default::default(),
            init1_q: Default::default(),
            empty1_q: Default::default(),
            fresh_q: Default::default(),
            p2_q: Default::default(),
            k2_q: Default::default(),
            pad2_q: Default::default(),
            v2_q: Default::default(),
            e2_q: Default::default(),
            init2_q: Default::default(),
            empty2_q: Default::default(),
            acc_q: Default::default(),
            padq_q: Default::default(),
            r3_q: Default::default(),
            pad3_q: Default::default(),
            v3_q: Default::default(),
            r4_q: Default::default(),
            pad4_q: Default::default(),
            v4_q: Default::default(),
            rc_q: Default::default(),
            rp_q: Default::default(),
            rv_q: Default::default(),
            m1_d: Default::default(),
            k1_d: Default::default(),
            pad1_d: Default::default(),
            v1_d: Default::default(),
            e1_d: Default::default(),
            init1_d: Default::default(),
            empty1_d: Default::default(),
            fresh_d: Default::default(),
            p2_d: Default::default(),
            k2_d: Default::default(),
            pad2_d: Default::default(),
            v2_d: Default::default(),
            e2_d: Default::default(),
            init2_d: Default::default(),
            empty2_d: Default::default(),
            acc_d: Default::default(),
            padq_d: Default::default(),
            r3_d: Default::default(),
            pad3_d: Default::default(),
            v3_d: Default::default(),
            r4_d: Default::default(),
            pad4_d: Default::default(),
            v4_d: Default::default(),
            rc_d: Default::default(),
            rp_d: Default::default(),
            rv_d: Default::default(),
            _init: init,
        }
    }
}

impl<const W: usize, const B: usize> Logic for Crc32PipeNext<W, B> {
    /// The reference model of the equations `pipe_verilog` writes, computed from the CRC's definition.
    fn update(&mut self) {
        let u = |x: u64| -> u32 { x as u32 };
        // Hold unless the pipeline advances.
        self.m1_d.next = self.m1_q.val();
        self.k1_d.next = self.k1_q.val();
        self.pad1_d.next = self.pad1_q.val();
        self.v1_d.next = self.v1_q.val();
        self.e1_d.next = self.e1_q.val();
        self.init1_d.next = self.init1_q.val();
        self.empty1_d.next = self.empty1_q.val();
        self.fresh_d.next = self.fresh_q.val();
        self.p2_d.next = self.p2_q.val();
        self.k2_d.next = self.k2_q.val();
        self.pad2_d.next = self.pad2_q.val();
        self.v2_d.next = self.v2_q.val();
        self.e2_d.next = self.e2_q.val();
        self.init2_d.next = self.init2_q.val();
        self.empty2_d.next = self.empty2_q.val();
        self.acc_d.next = self.acc_q.val();
        self.padq_d.next = self.padq_q.val();
        self.r3_d.next = self.r3_q.val();
        self.pad3_d.next = self.pad3_q.val();
        self.v3_d.next = self.v3_q.val();
        self.r4_d.next = self.r4_q.val();
        self.pad4_d.next = self.pad4_q.val();
        self.v4_d.next = self.v4_q.val();
        self.rc_d.next = self.rc_q.val();
        self.rp_d.next = self.rp_q.val();
        self.rv_d.next = self.rv_q.val();
        if !self.adv.val() {
            return;
        }
        // Stage 1.
        self.v1_d.next = self.in_valid.val();
        if self.in_valid.val() {
            let en = self.en.val();
            let lanes: Vec<usize> = (0..B).filter(|&l| en.get_bit(l)).collect();
            if let (Some(&s), Some(&t)) = (lanes.first(), lanes.last()) {
                assert_eq!(
                    t - s + 1,
                    lanes.len(),
                    "Crc32Pipe: enabled lanes are not one run"
                );
            }
            let mut m: Bits<W> = 0.into();
            for &l in &lanes {
                m = m | (bit_cast::<W, 8>(self.data.val().get_bits::<8>(8 * l)) << (8 * l) as u64);
            }
            self.m1_d.next = m;
            let s = lanes.first().copied();
            let t = lanes.last().copied().unwrap_or(0);
            let k = s.map_or(0, |s| run(self._init, &vec![0; B - s]));
            self.k1_d.next = (k as u64).into();
            self.pad1_d.next = ((B - 1 - t) as u64).into();
            let empty = lanes.is_empty();
            self.empty1_d.next = empty;
            self.e1_d.next = self.eoc.val();
            let start = self.sof.val() || self.fresh_q.val();
            self.init1_d.next = start && !empty;
            self.fresh_d.next = start && empty;
        }
        // Stage 2: chunk c's share is the CRC from zero of the beat with only its lanes kept.
        self.v2_d.next = self.v1_q.val();
        if self.v1_q.val() {
            let m = self.m1_q.val();
            let mut p: Bits<256> = 0.into();
            for c in 0..B / 8 {
                let mut beat = vec![0u8; B];
                for (l, byte) in beat.iter_mut().enumerate().skip(8 * c).take(8) {
                    *byte = m.get_bits::<8>(8 * l).to_u64() as u8;
                }
                p = p | (bit_cast::<256, 32>((run(0, &beat) as u64).into()) << (32 * c) as u64);
            }
            self.p2_d.next = p;
            self.k2_d.next = self.k1_q.val();
            self.pad2_d.next = self.pad1_q.val();
            self.empty2_d.next = self.empty1_q.val();
            self.init2_d.next = self.init1_q.val();
            self.e2_d.next = self.e1_q.val();
        }
        // Stage 3: the loop.
        let p = self.p2_q.val();
        let mut ex = (0..B / 8).fold(0u32, |a, c| a ^ u(p.get_bits::<32>(32 * c).to_u64()));
        let acc = u(self.acc_q.val().to_u64());
        if self.init2_q.val() {
            ex ^= u(self.k2_q.val().to_u64());
        } else {
            ex ^= run(acc, &vec![0; B]);
        }
        self.v3_d.next = self.v2_q.val() && self.e2_q.val();
        if self.v2_q.val() && !self.empty2_q.val() {
            self.acc_d.next = (ex as u64).into();
            self.padq_d.next = self.pad2_q.val();
        }
        if self.v2_q.val() && self.e2_q.val() {
            if self.empty2_q.val() {
                self.r3_d.next = self.acc_q.val();
                self.pad3_d.next = self.padq_q.val();
            } else {
                self.r3_d.next = (ex as u64).into();
                self.pad3_d.next = self.pad2_q.val();
            }
        }
        // Stages 4 and 5: back over the pad's zero bytes.
        let back = |r: u32, n: usize| (0..n).fold(r, |c, _| unstep_zero(c));
        self.v4_d.next = self.v3_q.val();
        if self.v3_q.val() {
            let pad = self.pad3_q.val().to_u64() as usize;
            self.r4_d.next = (back(u(self.r3_q.val().to_u64()), pad & 7) as u64).into();
            self.pad4_d.next = self.pad3_q.val();
        }
        self.rv_d.next = self.v4_q.val();
        if self.v4_q.val() {
            let pad = self.pad4_q.val().to_u64() as usize;
            self.rc_d.next = (back(u(self.r4_q.val().to_u64()), pad & !7) as u64).into();
            self.rp_d.next = self.pad4_q.val();
        }
    }

    fn connect(&mut self) {
        assert_eq!(W, 8 * B);
        self.m1_d.connect();
        self.k1_d.connect();
        self.pad1_d.connect();
        self.v1_d.connect();
        self.e1_d.connect();
        self.init1_d.connect();
        self.empty1_d.connect();
        self.fresh_d.connect();
        self.p2_d.connect();
        self.k2_d.connect();
        self.pad2_d.connect();
        self.v2_d.connect();
        self.e2_d.connect();
        self.init2_d.connect();
        self.empty2_d.connect();
        self.acc_d.connect();
        self.padq_d.connect();
        self.r3_d.connect();
        self.pad3_d.connect();
        self.v3_d.connect();
        self.r4_d.connect();
        self.pad4_d.connect();
        self.v4_d.connect();
        self.rc_d.connect();
        self.rp_d.connect();
        self.rv_d.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(pipe_verilog(W, B, self._init))
    }
}

/// A `case` that sets `dst` to one of `mats` (matrix `i` for `sel == i`) applied to `src`.
fn matrix_case(dst: &str, sel: &str, bits: usize, src: &str, mats: &[Vec<u32>]) -> String {
    let mut v = format!("    case ({sel})\n");
    for (i, cols) in mats.iter().enumerate() {
        v += &format!(
            "      {bits}'d{i}: {dst} = {};\n",
            equations(cols, |k| format!("{src}[{k}]"))
        );
    }
    v += &format!("      default: {dst} = {src};\n    endcase\n");
    v
}

/// The Verilog of [`Crc32PipeNext`] for a `w`-bit beat of `b` lanes, starting from `init`: every
/// register's next value, its own when the pipeline does not advance.
fn pipe_verilog(w: usize, b: usize, init: u32) -> String {
    assert!(b.is_power_of_two() && b >= 8 && w == 8 * b);
    let lb = b.trailing_zeros() as usize;
    // Chunks of eight lanes: stage 2 XORs within a chunk, the loop across chunks.
    let nc = b / 8;
    let beat = beat_from_zero_cols(b);
    let hi = lb - 3;
    let mut v = String::new();
    // The run's first and last lanes, one-hot; the last as a number (pad is its complement).
    v += &format!(
        "wire [{0}:0] bot = en & ~{{en[{1}:0], 1'b0}};\nwire [{0}:0] top = en & ~{{1'b0, en[{0}:1]}};\n",
        b - 1,
        b - 2
    );
    v += &format!(
        "wire [{}:0] ti = {{{}}};\n",
        lb - 1,
        one_hot_index("top", b).join(", ")
    );
    // Z(b−s)·I for the run's first lane s: the start value carried over the zero lanes below s.
    let starts: Vec<u32> = (0..b).map(|s| run(init, &vec![0; b - s])).collect();
    let k: Vec<String> = (0..32)
        .rev()
        .map(|j| {
            let lanes: Vec<String> = (0..b)
                .filter(|&s| starts[s] >> j & 1 == 1)
                .map(|s| format!("bot[{s}]"))
                .collect();
            tree(&lanes, "|")
        })
        .collect();
    v += &format!("wire [31:0] kx = {{{}}};\n", k.join(",\n  "));
    // The loop: the chunks' shares, the start value's share on a region's first run, and the register
    // advanced over a beat of zeros unless the run starts the region.
    let chunks: Vec<String> = (0..nc)
        .map(|c| format!("p2_q[{}:{}]", 32 * c + 31, 32 * c))
        .collect();
    v += &format!(
        "wire [31:0] ex = {} ^ (init2_q ? k2_q : 32'd0);\n",
        tree(&chunks, "^")
    );
    v += &format!(
        "wire [31:0] fc = {};\n",
        equations(&zero_bytes_cols(b), |k| format!("acc_q[{k}]"))
    );
    v += "wire [31:0] nxt = ex ^ (init2_q ? 32'd0 : fc);\n";
    let regs = [
        "m1", "k1", "pad1", "v1", "e1", "init1", "empty1", "fresh", "p2", "k2", "pad2", "v2", "e2",
        "init2", "empty2", "acc", "padq", "r3", "pad3", "v3", "r4", "pad4", "v4", "rc", "rp", "rv",
    ];
    v += "always @(*) begin\n";
    for r in regs {
        v += &format!("  {r}_d = {r}_q;\n");
    }
    v += "  if (adv) begin\n";
    // Stage 1: the run masked, its start value share and pad.
    let lanes: Vec<String> = (0..b).rev().map(|l| format!("{{8{{en[{l}]}}}}")).collect();
    v += "    v1_d = in_valid;\n    if (in_valid) begin\n";
    v += &format!("      m1_d = data & {{{}}};\n", lanes.join(", "));
    v += &format!("      k1_d = kx;\n      pad1_d = {{{}'d0, ~ti}};\n", 8 - lb);
    v += "      empty1_d = ~|en;\n      e1_d = eoc;\n";
    v += "      init1_d = (sof | fresh_q) & (|en);\n      fresh_d = (sof | fresh_q) & ~(|en);\n    end\n";
    // Stage 2: each chunk's CRC from zero, as if the rest of the beat were zero.
    v += "    v2_d = v1_q;\n    if (v1_q) begin\n";
    let pcs: Vec<String> = (0..nc)
        .rev()
        .map(|c| {
            equations(&beat[64 * c..64 * c + 64], |k| {
                format!("m1_q[{}]", 64 * c + k)
            })
        })
        .collect();
    let fill = if nc == 8 {
        String::new()
    } else {
        format!("{}'d0, ", 256 - 32 * nc)
    };
    v += &format!("      p2_d = {{{fill}{}}};\n", pcs.join(",\n        "));
    v += "      k2_d = k1_q; pad2_d = pad1_q; empty2_d = empty1_q; init2_d = init1_q; e2_d = e1_q;\n    end\n";
    // Stage 3: the register; a region's end is taken with it (an empty last beat keeps the register).
    v += "    v3_d = v2_q & e2_q;\n";
    v += "    if (v2_q & ~empty2_q) begin\n      acc_d = nxt;\n      padq_d = pad2_q;\n    end\n";
    v += "    if (v2_q & e2_q) begin\n      r3_d = empty2_q ? acc_q : nxt;\n      pad3_d = empty2_q ? padq_q : pad2_q;\n    end\n";
    // Stages 4 and 5: back over the pad's zero bytes, by its low then its high bits.
    v += "    v4_d = v3_q;\n    if (v3_q) begin\n";
    let low: Vec<Vec<u32>> = (0..8).map(unzero_cols).collect();
    v += &matrix_case("r4_d", "pad3_q[2:0]", 3, "r3_q", &low);
    v += "      pad4_d = pad3_q;\n    end\n";
    v += "    rv_d = v4_q;\n    if (v4_q) begin\n";
    if hi == 0 {
        v += "      rc_d = r4_q;\n";
    } else {
        let high: Vec<Vec<u32>> = (0..1 << hi).map(|i| unzero_cols(i << 3)).collect();
        v += &matrix_case("rc_d", &format!("pad4_q[{}:3]", lb - 1), hi, "r4_q", &high);
    }
    v += "      rp_d = pad4_q;\n    end\n  end\nend\n";
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prim::crc32::{over, step};

    #[test]
    fn unstep_undoes_a_zero_byte() {
        for c in [0u32, 1, 0x8000_0000, 0xDEAD_BEEF, ICRC_START] {
            assert_eq!(step(unstep_zero(c), 0), c);
            assert_eq!(unstep_zero(step(c, 0)), c);
        }
    }

    /// The algebra the Verilog is built on, with its own matrices, for every run of a 64-lane beat: a
    /// first run from lane s is D(masked beat) ⊕ Z(64−s)·I, a later run from lane 0 is D ⊕ F·crc, and
    /// taking either back over its pad gives the byte-serial CRC.
    #[test]
    fn padded_runs_taken_back_equal_the_serial_crc() {
        let b = 64;
        let beat = beat_from_zero_cols(b);
        let f = zero_bytes_cols(b);
        let apply = |cols: &[u32], x: &dyn Fn(usize) -> bool| {
            (0..cols.len())
                .filter(|&k| x(k))
                .fold(0u32, |a, k| a ^ cols[k])
        };
        let mut rand = crate::prim::test_rng(0x9E37_79B9_7F4A_7C15_u64);
        for s in 0..b {
            for t in s..b {
                let data: Vec<u8> = (0..b).map(|_| rand() as u8).collect();
                let masked: Vec<u8> = (0..b)
                    .map(|l| if (s..=t).contains(&l) { data[l] } else { 0 })
                    .collect();
                let d = apply(&beat, &|k| masked[k / 8] >> (k % 8) & 1 == 1);
                let pad = b - 1 - t;
                let first = d ^ run(ICRC_START, &vec![0; b - s]);
                let back = apply(&unzero_cols(pad), &|k| first >> k & 1 == 1);
                assert_eq!(back, run(ICRC_START, &data[s..=t]), "first run {s}..={t}");
                if s == 0 {
                    let c = rand() as u32;
                    let later = d ^ apply(&f, &|k| c >> k & 1 == 1);
                    let back = apply(&unzero_cols(pad), &|k| later >> k & 1 == 1);
                    assert_eq!(back, run(c, &data[..=t]), "later run ..={t}");
                }
            }
        }
        // The two-stage split of the pad: low bits then high bits.
        for pad in 0..b {
            let x = rand() as u32;
            let one = apply(&unzero_cols(pad), &|k| x >> k & 1 == 1);
            let lo = apply(&unzero_cols(pad & 7), &|k| x >> k & 1 == 1);
            let two = apply(&unzero_cols(pad & !7), &|k| lo >> k & 1 == 1);
            assert_eq!(one, two, "pad {pad}");
        }
    }

    /// The model in rust-hdl's simulator: a frame's region over beats (first run mid-beat, last run
    /// short) comes out LATENCY advancing edges after its eoc beat, and a stall holds it.
    #[test]
    fn the_model_gives_the_region_crc_after_its_latency() {
        let mut uut = Crc32Pipe::<64, 8>::default();
        uut.connect_all();
        let frame: Vec<u8> = (0..32u8).map(|i| i.wrapping_mul(37)).collect();
        // Covered: bytes 14..27 (two lanes of beat 1, all of beat 2, four lanes of beat 3).
        let beats: [(u64, bool, bool); 4] = [
            (0x00, true, false),
            (0xC0, false, false),
            (0xFF, false, false),
            (0x0F, false, true),
        ];
        let want = over(&[&[0xFFu8; 8][..], &frame[14..28]].concat());
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<Crc32Pipe<64, 8>>| {
            x.clock.next = !x.clock.val()
        });
        sim.add_testbench(move |mut ep: Sim<Crc32Pipe<64, 8>>| {
            let mut x = ep.init()?;
            wait_clock_true!(ep, clock, x);
            let mut seen = None;
            for cycle in 0..16usize {
                // Cycle 3 stalls; beat i goes in at cycle i, or i + 1 after the stall.
                x.adv.next = cycle != 3;
                x.in_valid.next = false;
                let i = if cycle < 3 {
                    cycle
                } else {
                    cycle.wrapping_sub(1)
                };
                if cycle != 3 && i < 4 {
                    let (en, sof, eoc) = beats[i];
                    let w: [u8; 8] = frame[8 * i..8 * i + 8].try_into().unwrap();
                    x.in_valid.next = true;
                    x.data.next = u64::from_le_bytes(w).into();
                    x.en.next = en.into();
                    x.sof.next = sof;
                    x.eoc.next = eoc;
                }
                wait_clock_false!(ep, clock, x);
                if x.res_valid.val() {
                    assert!(seen.is_none(), "one result per region");
                    let crc = x.res_crc.val().to_u64() as u32;
                    seen = Some((cycle, crc, x.res_pad.val().to_u64()));
                }
                wait_clock_true!(ep, clock, x);
            }
            // The eoc beat went in at cycle 4; LATENCY advancing edges later its result is out.
            assert_eq!(seen, Some((4 + LATENCY, want, 4)));
            ep.done(x)
        });
        sim.run(Box::new(uut), 1000).unwrap();
    }
}
