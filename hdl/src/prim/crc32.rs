//! CRC-32 (IEEE 802.3 / zlib polynomial, reflected) over the enabled byte lanes of one beat, in one cycle.
//!
//! The register is kept without the final complement, so a whole packet checks by its residue: running
//! the CRC over data followed by its own CRC (least-significant byte first, as the ICRC is sent) leaves
//! [`RESIDUE`]. The Verilog is an XOR matrix per lane computed here from the bit-serial definition.
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
        let equations = |cols: &[u32], data_name: &str| -> String {
            (0..32)
                .rev()
                .map(|j| {
                    let terms: Vec<String> = (0..cols.len())
                        .filter(|&k| cols[k] >> j & 1 == 1)
                        .map(|k| {
                            if k < 32 {
                                format!("c[{k}]")
                            } else {
                                format!("{data_name}[{}]", k - 32)
                            }
                        })
                        .collect();
                    terms.join(" ^ ")
                })
                .collect::<Vec<_>>()
                .join(",\n    ")
        };
        let unit_byte = |k: usize| -> (u32, [u8; 1]) {
            if k < 32 {
                (1 << k, [0])
            } else {
                (0, [1 << (k - 32)])
            }
        };
        let byte_cols: Vec<u32> = (0..40)
            .map(|k| {
                let (c, d) = unit_byte(k);
                run(c, &d)
            })
            .collect();
        // A full beat (every lane enabled, the common case) goes through one matrix instead of B steps.
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
        let mut s = String::from(
            "reg [31:0] c;\nreg [7:0] d;\nalways @(*) begin\n  c = crc_in;\n  d = 8'd0;\n",
        );
        s += &format!(
            "  if (&en) begin\n    c = {{{}}};\n  end else begin\n",
            equations(&beat_cols, "data")
        );
        let byte_eq = equations(&byte_cols, "d");
        for lane in 0..B {
            s += &format!(
                "    d = data[{}:{}];\n    if (en[{lane}]) c = {{{byte_eq}}};\n",
                lane * 8 + 7,
                lane * 8
            );
        }
        s += "  end\n  crc_out = c;\nend\n";
        Verilog::Custom(s)
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
        assert!(generate_verilog(&uut).contains("if (en[7])"));
    }
}
