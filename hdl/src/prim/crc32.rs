//! CRC-32 (IEEE 802.3 / zlib polynomial, reflected) over the enabled byte lanes of one beat, in one cycle.
//!
//! The register is kept without the final complement, so a whole packet checks by its residue: running
//! the CRC over data followed by its own CRC (least-significant byte first, as the ICRC is sent) leaves
//! [`RESIDUE`]. The Verilog is computed here from the bit-serial definition: one XOR matrix for a whole
//! beat, with a partial beat's disabled lanes zeroed and the zero bytes before and after its run of lanes
//! undone by inverse matrices selected by lane count, so that no path steps through the lanes one by one.
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

/// `crc_out` = `crc_in` advanced over the lanes of `data` whose `en` bit is set, lane 0 first.
///
/// The enabled lanes must be one contiguous run (or none): a frame's first beat starts at an offset, its last
/// ends early, and both users (`net::rx_buffer`, `roce::req`) form `en` that way. The Verilog relies on it to
/// compute a partial beat in a few matrix levels; another pattern gives a wrong CRC there (this simulation
/// model steps lane by lane and would not).
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
        // The step is linear over GF(2) (it starts from the given register, not from all ones), so any run
        // of it is a matrix: column k is the run applied to unit vector k (32 register bits, then data bits).
        let run = |crc: u32, data: &[u8]| data.iter().fold(crc, |c, &b| step(c, b));
        let equations = |cols: &[u32], crc_name: &str, data_name: &str| -> String {
            (0..32)
                .rev()
                .map(|j| {
                    let terms: Vec<String> = (0..cols.len())
                        .filter(|&k| cols[k] >> j & 1 == 1)
                        .map(|k| {
                            if k < 32 {
                                format!("{crc_name}[{k}]")
                            } else {
                                format!("{data_name}[{}]", k - 32)
                            }
                        })
                        .collect();
                    xor_tree(&terms)
                })
                .collect::<Vec<_>>()
                .join(",\n    ")
        };
        // One matrix for the whole beat.
        let beat_cols: Vec<u32> = (0..32 + W)
            .map(|k| {
                let mut data = vec![0u8; B];
                let crc = if k < 32 {
                    1 << k
                } else {
                    data[(k - 32) / 8] = 1 << ((k - 32) % 8);
                    0
                };
                run(crc, &data)
            })
            .collect();
        // A partial beat's lanes are one contiguous run [lo, B - t). With the disabled lanes zeroed, the beat
        // matrix computes the run preceded by lo and followed by t zero bytes; a zero byte is the invertible
        // linear map Z, so crc_out = Z^-t . beat(Z^-lo . crc_in, masked data). Z^-k for k < B is one 32x32
        // matrix per k: entry (j, i) as a B-bit constant indexed by k is one LUT of k, so each transform is
        // a few LUT levels deep instead of B chained byte steps (the old form: 144 LUT levels at 512 bits).
        let inv_zero_byte = |mut c: u32| -> u32 {
            for _ in 0..8 {
                // Undo c' = c >> 1 ^ (c & 1 ? POLY : 0): POLY's top bit tells which branch was taken.
                let b0 = c >> 31;
                c = if b0 == 1 { c ^ POLY } else { c };
                c = (c << 1) | b0;
            }
            c
        };
        // zinv[k][i] = Z^-k applied to unit vector i.
        let mut zinv = vec![[0u32; 32]; B];
        for (i, col) in zinv[0].iter_mut().enumerate() {
            *col = 1 << i;
        }
        for k in 1..B {
            for i in 0..32 {
                zinv[k][i] = inv_zero_byte(zinv[k - 1][i]);
            }
        }
        let kb = (usize::BITS - (B - 1).leading_zeros()).max(1) as usize; // bits of a lane index
        let mut s = String::new();
        for j in 0..32 {
            for i in 0..32 {
                let hex = hex_bits(B, |k| zinv[k][i] >> j & 1 == 1);
                s += &format!("localparam [{}:0] ZI_{j}_{i} = {B}'h{hex};\n", B - 1);
            }
        }
        let transform = |out: &str, input: &str, k: &str| -> String {
            (0..32)
                .map(|j| {
                    let terms: Vec<String> = (0..32)
                        .map(|i| format!("(ZI_{j}_{i}[{k}] & {input}[{i}])"))
                        .collect();
                    format!("  {out}[{j}] = {};\n", xor_tree(&terms))
                })
                .collect()
        };
        let mask: Vec<String> = (0..B).rev().map(|l| format!("{{8{{en[{l}]}}}}")).collect();
        s += &format!(
            "reg [31:0] c;\nreg [31:0] p;\nreg [31:0] f;\nreg [{w}:0] dm;\n\
             reg [{b}:0] first;\nreg [{b}:0] rev;\nreg [{b}:0] last;\n\
             reg [{k}:0] lo;\nreg [{k}:0] t;\n\
             always @(*) begin\n  c = crc_in;\n",
            w = W - 1,
            b = B - 1,
            k = kb - 1
        );
        // lo = the lowest enabled lane, t = the disabled lanes above the highest: isolate the lowest set bit
        // of en and of en reversed (a carry chain), then encode the one-hot bit with OR trees. A loop over
        // the lanes would be a B-deep chain of multiplexers.
        let rev: Vec<String> = (0..B).map(|l| format!("en[{l}]")).collect();
        s += &format!("  first = en & (~en + {B}'d1);\n");
        s += &format!("  rev = {{{}}};\n", rev.join(", "));
        s += &format!("  last = rev & (~rev + {B}'d1);\n");
        for bit in 0..kb {
            let hex = hex_bits(B, |l| l >> bit & 1 == 1);
            s += &format!(
                "  lo[{bit}] = |(first & {B}'h{hex});\n  t[{bit}] = |(last & {B}'h{hex});\n"
            );
        }
        s += &format!("  dm = data & {{{}}};\n", mask.join(", "));
        s += &transform("p", "crc_in", "lo");
        s += &format!("  f = {{{}}};\n", equations(&beat_cols, "p", "dm"));
        s += &transform("c", "f", "t");
        // A full beat is the run with lo = t = 0 (Z^0 is the identity); no lane leaves the register as it was.
        s += &format!("  if (en == {B}'d0) c = crc_in;\n  crc_out = c;\nend\n");
        Verilog::Custom(s)
    }
}

/// An `n`-bit constant's hex digits (for `n'h...`), bit `k` set when `bit(k)`.
fn hex_bits(n: usize, bit: impl Fn(usize) -> bool) -> String {
    (0..n.div_ceil(4))
        .rev()
        .map(|d| {
            let nibble = (0..4)
                .filter(|&b| d * 4 + b < n && bit(d * 4 + b))
                .fold(0, |v, b| v | 1 << b);
            format!("{nibble:x}")
        })
        .collect()
}

/// `a ^ b ^ ...` as a balanced tree of parentheses. Written flat, the XOR of a beat's hundreds of terms
/// parses as a chain that a mapper without XOR balancing (Yosys's `abc -fast`) keeps, one LUT level per
/// five terms; as a tree it is log6 of the terms deep.
fn xor_tree(terms: &[String]) -> String {
    match terms.len() {
        0 => "1'b0".to_string(),
        1 => terms[0].clone(),
        n => format!(
            "({} ^ {})",
            xor_tree(&terms[..n / 2]),
            xor_tree(&terms[n / 2..])
        ),
    }
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
        assert!(generate_verilog(&uut).contains("ZI_31_31"));
    }
}
