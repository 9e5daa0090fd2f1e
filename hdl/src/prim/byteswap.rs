//! Reverses the byte order of an `N`-bit word: converts between the wire's lane order (lane 0 = first byte
//! = bits 7:0) and big-endian header registers (first byte = most significant), so header fields can be
//! read as plain bit slices.
use rust_hdl::prelude::*;

/// Right shift that brings the big-endian field of `len` bytes at byte `offset` of a `reg_bytes`-byte
/// register (first byte most significant) down to bit 0: how the RTL reads header fields whose offsets
/// come from `rocenic_proto::wire`.
pub const fn be_shift(reg_bytes: usize, offset: usize, len: usize) -> u64 {
    ((reg_bytes - offset - len) * 8) as u64
}

#[derive(LogicBlock, Default)]
pub struct ByteSwap<const N: usize> {
    pub a: Signal<In, Bits<N>>,
    pub y: Signal<Out, Bits<N>>,
}

impl<const N: usize> Logic for ByteSwap<N> {
    fn update(&mut self) {
        let a = self.a.val();
        let mut y: Bits<N> = 0.into();
        for i in 0..N / 8 {
            let byte: Bits<N> = bit_cast::<N, 8>(a.get_bits::<8>(i * 8));
            y = y | (byte << ((N / 8 - 1 - i) * 8) as u64);
        }
        self.y.next = y;
    }

    fn connect(&mut self) {
        assert_eq!(N % 8, 0);
        self.y.connect();
    }

    fn hdl(&self) -> Verilog {
        let parts: Vec<String> = (0..N / 8)
            .map(|i| format!("a[{}:{}]", i * 8 + 7, i * 8))
            .collect();
        Verilog::Custom(format!("always @(*) y = {{{}}};", parts.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swaps_bytes() {
        let mut uut = ByteSwap::<32>::default();
        uut.connect_all();
        uut.a.next = 0x1122_3344_u64.into();
        uut.update_all();
        uut.update();
        assert_eq!(uut.y.next, bits::<32>(0x4433_2211));
        assert!(generate_verilog(&uut).contains("y = {a[7:0], a[15:8], a[23:16], a[31:24]}"));
    }
}
