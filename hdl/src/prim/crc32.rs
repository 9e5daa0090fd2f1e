//! CRC-32 (IEEE 802.3 / zlib polynomial, reflected) over the enabled byte lanes of one beat, in one cycle.
//!
//! The register is kept without the final complement, so a whole packet checks by its residue: running
//! the CRC over data followed by its own CRC (least-significant byte first, as the ICRC is sent) leaves
//! [`RESIDUE`]. The Verilog is an XOR matrix per lane computed here from the bit-serial definition.
use rocenic_proto::icrc::{MASKED_BITS_IPV6, MASKED_BYTES_IPV4};
use rust_hdl::prelude::*;

/// Reflected polynomial.
pub const POLY: u32 = 0xEDB8_8320;
/// Register value after a correct message followed by its CRC.
pub const RESIDUE: u32 = 0xDEBB_20E3;

/// One byte through the bit-serial CRC register.
pub const fn step(mut crc: u32, byte: u8) -> u32 {
    crc ^= byte as u32;
    let mut i = 0;
    while i < 8 {
        crc = if crc & 1 != 0 {
            (crc >> 1) ^ POLY
        } else {
            crc >> 1
        };
        i += 1;
    }
    crc
}

/// Register value after `bytes` from the all-ones start.
pub const fn over(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFF;
    let mut i = 0;
    while i < bytes.len() {
        crc = step(crc, bytes[i]);
        i += 1;
    }
    crc
}

/// Register after the ICRC's 8-byte all-ones prefix (IBA §7.8.1: the masked LRH of RoCEv2, annex A17.3.3).
pub const ICRC_START: u32 = over(&[0xFF; 8]);

/// The bits the ICRC counts as ones (IBA §7.8, annex A17: fields a router may change), over the first
/// 128 bytes of an untagged frame, frame byte p at bits 8p+7:8p: for IPv4 (TOS, TTL, header checksum,
/// UDP checksum, BTH byte 4) and for IPv6 (traffic class, flow label, hop limit, UDP checksum, BTH byte 4).
pub fn icrc_masks() -> (Bits<1024>, Bits<1024>) {
    let byte = |p: usize, m: u8| {
        assert!(p < 128);
        bit_cast::<1024, 8>((m as u64).into()) << (8 * p) as u64
    };
    let v4 = MASKED_BYTES_IPV4
        .iter()
        .fold(Bits::<1024>::default(), |a, &p| a | byte(p, 0xFF));
    let v6 = MASKED_BITS_IPV6
        .iter()
        .fold(Bits::<1024>::default(), |a, &(p, m)| a | byte(p, m));
    (v4, v6)
}

/// `crc_out` = `crc_in` advanced over the lanes of `data` whose `en` bit is set, lane 0 first. The set
/// lanes must form one contiguous run (or none), as a tkeep does.
#[derive(LogicBlock, Default)]
pub struct Crc32Lanes<const W: usize, const B: usize> {
    pub crc_in: Signal<In, Bits<32>>,
    pub data: Signal<In, Bits<W>>,
    pub en: Signal<In, Bits<B>>,
    pub crc_out: Signal<Out, Bits<32>>,
}

impl<const W: usize, const B: usize> Logic for Crc32Lanes<W, B> {
    fn update(&mut self) {
        let mut crc = self.crc_in.val().to_u64() as u32;
        let data = self.data.val();
        let en = self.en.val();
        // The hardware takes one contiguous run of lanes only (`lanes_verilog`): a caller that breaks
        // that would pass here and fail on the Verilog, so it fails here too.
        let runs = (0..B)
            .filter(|&l| en.get_bit(l) && (l == 0 || !en.get_bit(l - 1)))
            .count();
        assert!(
            runs <= 1,
            "Crc32Lanes: enabled lanes are not one contiguous run"
        );
        for lane in 0..B {
            if en.get_bit(lane) {
                crc = step(crc, data.get_bits::<8>(lane * 8).to_u64() as u8);
            }
        }
        self.crc_out.next = (crc as u64).into();
    }

    fn connect(&mut self) {
        assert_eq!(W, 8 * B);
        self.crc_out.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(lanes_verilog(W, B))
    }
}

/// `terms` joined by the operator `op` as a balanced tree (depth log2, not a chain), `1'b0` if there are
/// none. A chain `a | b | c | ...` stays a chain through `abc -fast`, which does not rebalance.
pub(crate) fn tree(terms: &[String], op: &str) -> String {
    match terms.len() {
        0 => "1'b0".to_string(),
        1 => terms[0].clone(),
        n => format!(
            "({} {op} {})",
            tree(&terms[..n / 2], op),
            tree(&terms[n / 2..], op)
        ),
    }
}

/// The bits of the index of the set lane of the one-hot `b`-lane vector `name`, most significant first:
/// bit `j` is the OR of the lanes whose index has bit `j` set.
pub(crate) fn one_hot_index(name: &str, b: usize) -> Vec<String> {
    (0..b.trailing_zeros() as usize)
        .rev()
        .map(|j| {
            let lanes: Vec<String> = (0..b)
                .filter(|l| l >> j & 1 == 1)
                .map(|l| format!("{name}[{l}]"))
                .collect();
            tree(&lanes, "|")
        })
        .collect()
}

/// One Verilog concatenation `{bit 31, ..., bit 0}` of the 32 XOR equations of the linear map whose
/// column `k` is `cols[k]`; `name(k)` names input bit `k`.
pub(crate) fn equations(cols: &[u32], name: impl Fn(usize) -> String) -> String {
    let bits: Vec<String> = (0..32)
        .rev()
        .map(|j| {
            let terms: Vec<String> = (0..cols.len())
                .filter(|&k| cols[k] >> j & 1 == 1)
                .map(&name)
                .collect();
            tree(&terms, "^")
        })
        .collect();
    format!("{{{}}}", bits.join(",\n      "))
}

pub(crate) fn run(crc: u32, data: &[u8]) -> u32 {
    data.iter().fold(crc, |c, &x| step(c, x))
}

/// The register advanced over `n` zero bytes, as a matrix: column `k` is unit vector `k` run through them.
pub(crate) fn zero_bytes_cols(n: usize) -> Vec<u32> {
    (0..32).map(|k| run(1 << k, &vec![0; n])).collect()
}

/// A `b`-lane beat run from a zero register, as a matrix: column `k` is the beat with only bit `k` set.
pub(crate) fn beat_from_zero_cols(b: usize) -> Vec<u32> {
    (0..8 * b)
        .map(|k| {
            let mut d = vec![0u8; b];
            d[k / 8] = 1 << (k % 8);
            run(0, &d)
        })
        .collect()
}

/// The correction for a run of `n` < 4 bytes, as a matrix over the register: the register advanced over
/// `n` zero bytes, XOR the CRC from zero of the register's own first `n` bytes (those the XOR below put
/// into the run; its other bytes fell outside the run and were masked off).
fn short_run_cols(n: usize) -> Vec<u32> {
    let zeros = zero_bytes_cols(n);
    (0..32)
        .map(|k| zeros[k] ^ run(0, &(1u32 << k).to_le_bytes()[..n]))
        .collect()
}

/// The Verilog of [`Crc32Lanes`] for a `w`-bit beat of `b` byte lanes.
///
/// `en` must be one contiguous run of lanes `s..=t` (or empty): tkeep-style, as both users produce. The
/// register is taken in as data: running bytes from register `c` equals running them from zero with `c`
/// XORed into their first four bytes (least-significant byte first), and a zero register stays zero over
/// zero bytes. So `c` is XORed into lanes `s..s+3`, the run is masked and shifted up to end at the top lane,
/// and one fixed full-beat matrix gives the result: a partial beat costs a lane decode, a shifter and one
/// matrix, with no stages in series. A run of fewer than four bytes lost some of `c`'s bytes to the mask;
/// a small matrix per length (1, 2, 3) chosen beside the main path corrects for them, and an empty beat
/// passes `c` through.
fn lanes_verilog(w: usize, b: usize) -> String {
    assert!(b.is_power_of_two() && b >= 4 && w == 8 * b);
    let lb = b.trailing_zeros() as usize;
    let data_cols = beat_from_zero_cols(b);
    let mut v = String::new();
    v += &format!("reg [{}:0] top, bot;\n", b - 1);
    v += &format!("reg [{}:0] ti;\n", lb - 1);
    v += &format!("reg [{}:0] cx, al;\n", w - 1);
    v += "reg [31:0] dc, fix;\n";
    v += "always @(*) begin\n";
    // The run's top lane t and bottom lane s as one-hot vectors; t also as a number, for the shift.
    v += &format!("  top = en & ~({{1'b0, en[{}:1]}});\n", b - 1);
    v += &format!("  bot = en & ~({{en[{}:0], 1'b0}});\n", b - 2);
    v += &format!("  ti = {{{}}};\n", one_hot_index("top", b).join(",\n    "));
    // Bytes of the run only, moved up so that lane t lands on the top lane (b-1-t = ~t).
    let lanes: Vec<String> = (0..b).rev().map(|l| format!("{{8{{en[{l}]}}}}")).collect();
    // crc_in's byte k into lane s+k: lane l takes byte k when the run starts at l-k.
    let cx: Vec<String> = (0..b)
        .rev()
        .map(|l| {
            let terms: Vec<String> = (0..4.min(l + 1))
                .map(|k| {
                    format!(
                        "({{8{{bot[{}]}}}} & crc_in[{}:{}])",
                        l - k,
                        8 * k + 7,
                        8 * k
                    )
                })
                .collect();
            tree(&terms, "|")
        })
        .collect();
    // A full beat (all but a frame's first and last) needs no masking or shifting, and an empty one
    // needs nothing: saying so costs synthesis a multiplexer level and saves the Verilated model a
    // wide shift and the big matrix on most cycles.
    v += &format!("  cx = {w}'d0;\n  al = {w}'d0;\n  dc = 32'd0;\n  if (|en) begin\n");
    v += &format!("    if (&en) al = data ^ {{{}'d0, crc_in}};\n", w - 32);
    v += "    else begin\n";
    v += &format!("      cx = {{{}}};\n", cx.join(",\n        "));
    v += &format!(
        "      al = ((data ^ cx) & {{{}}}) << {{~ti, 3'b000}};\n",
        lanes.join(", ")
    );
    v += "    end\n";
    v += &format!(
        "    dc = {};\n  end\n",
        equations(&data_cols, |k| format!("al[{k}]"))
    );
    // Runs of one, two and three lanes: the top lane is the bottom lane plus n-1.
    v += "  fix = 32'd0;\n";
    v += "  if (~|en) fix = crc_in;\n";
    for n in 1..=3 {
        let cond = if n == 1 {
            "|(bot & top)".to_string()
        } else {
            format!("|(bot & (top >> {}))", n - 1)
        };
        v += &format!(
            "  else if ({cond}) fix = {};\n",
            equations(&short_run_cols(n), |k| format!("crc_in[{k}]"))
        );
    }
    v += "  crc_out = dc ^ fix;\n";
    v += "end\n";
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn residue_and_start_match_the_definition() {
        let msg = b"123456789";
        assert_eq!(!over(msg), 0xCBF4_3926); // the CRC-32 check value
        let mut with_crc = msg.to_vec();
        with_crc.extend_from_slice(&(!over(msg)).to_le_bytes());
        assert_eq!(over(&with_crc), RESIDUE);
        assert_eq!(ICRC_START, over(&[0xFF; 8]));
    }

    #[test]
    fn lanes_follow_enables() {
        let mut uut = Crc32Lanes::<64, 8>::default();
        uut.connect_all();
        uut.crc_in.next = 0xFFFF_FFFF_u64.into();
        uut.data.next = u64::from_le_bytes(*b"12345678").into();
        uut.en.next = 0b0001_1111_u64.into();
        uut.update_all();
        uut.update();
        assert_eq!(uut.crc_out.next.to_u64() as u32, over(b"12345"));
    }

    #[test]
    #[should_panic(expected = "not one contiguous run")]
    fn a_gap_in_the_enables_is_refused() {
        let mut uut = Crc32Lanes::<64, 8>::default();
        uut.connect_all();
        uut.en.next = 0b0000_0101_u64.into();
        uut.update_all();
        uut.update();
    }

    /// Applies a matrix given by its columns to the input bits `x(k)`.
    fn apply(cols: &[u32], x: impl Fn(usize) -> bool) -> u32 {
        (0..cols.len())
            .filter(|&k| x(k))
            .fold(0, |acc, k| acc ^ cols[k])
    }

    /// The split the Verilog is built on, with its own matrices: the register XORed into the run's first
    /// four lanes, the run masked and moved to the top lanes through the beat matrix, and for runs under
    /// four lanes the correction matrix of their length, equals the byte-serial CRC for every run of a
    /// 64-lane beat.
    #[test]
    fn the_decomposition_matches_the_serial_crc_for_every_run() {
        let b = 64;
        let beat = beat_from_zero_cols(b);
        let short: Vec<Vec<u32>> = (1..=3).map(short_run_cols).collect();
        let mut rand = crate::prim::test_rng(0x2545_F491_4F6C_DD1D_u64);
        for s in 0..b {
            for t in s..b {
                let data: Vec<u8> = (0..b).map(|_| rand() as u8).collect();
                let c = rand() as u32;
                let n = t - s + 1;
                let mut with_c = data.clone();
                for (k, byte) in c.to_le_bytes().iter().enumerate() {
                    if s + k < b {
                        with_c[s + k] ^= byte;
                    }
                }
                let mut aligned = vec![0u8; b];
                aligned[b - n..].copy_from_slice(&with_c[s..=t]);
                let dc = apply(&beat, |k| aligned[k / 8] >> (k % 8) & 1 == 1);
                let fix = if n < 4 {
                    apply(&short[n - 1], |k| c >> k & 1 == 1)
                } else {
                    0
                };
                assert_eq!(dc ^ fix, run(c, &data[s..=t]), "run {s}..={t}");
            }
        }
    }
}
