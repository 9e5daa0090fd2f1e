//! CRC-32 (IEEE 802.3 / zlib polynomial, reflected): the bit-serial definition, the ICRC's constants
//! and masks, and the XOR-matrix helpers `prim::crc32_pipe` builds its Verilog from.
//!
//! The register is kept without the final complement, so a whole packet checks by its residue: running
//! the CRC over data followed by its own CRC (least-significant byte first, as the ICRC is sent) leaves
//! [`RESIDUE`].
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
}
