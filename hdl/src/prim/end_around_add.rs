//! `a + b` in one's complement (RFC 1071): a carry out of bit 15 comes back in at bit 0. Both sums,
//! `a + b` and `a + b + 1`, are formed side by side and the carry of the first picks, so the carry
//! never runs through the adder twice: one 16-bit carry chain and a select. [`csa16::fold`] is its
//! model.
//!
//! [`csa16::fold`]: super::csa16::fold
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct EndAroundAdd {
    pub a: Signal<In, Bits<16>>,
    pub b: Signal<In, Bits<16>>,
    pub sum: Signal<Out, Bits<16>>,
    s0: Signal<Local, Bits<17>>,
    /// `(a << 1 | 1) + (b << 1 | 1)`: bit 0's carry is the + 1.
    s1: Signal<Local, Bits<18>>,
}

impl Logic for EndAroundAdd {
    #[hdl_gen]
    fn update(&mut self) {
        self.s0.next = bit_cast::<17, 16>(self.a.val()) + bit_cast::<17, 16>(self.b.val());
        self.s1.next = ((bit_cast::<18, 16>(self.a.val()) << 1) | 1)
            + ((bit_cast::<18, 16>(self.b.val()) << 1) | 1);
        self.sum.next = self.s0.val().get_bits::<16>(0);
        if self.s0.val().get_bit(16) {
            self.sum.next = self.s1.val().get_bits::<16>(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prim::csa16::fold;
    use crate::prim::test_rng;

    #[test]
    fn adds_with_the_carry_brought_around() {
        let mut rng = test_rng(0xE4D_A40D);
        let edges = [
            (0u16, 0u16),
            (0xFFFF, 1),
            (0xFFFF, 0xFFFF),
            (0x8000, 0x8000),
            (0xFFFE, 1),
            (0x1234, 0xEDCB),
            (0x1234, 0xEDCC),
        ];
        let random = (0..2_000).map(|_| (rng() as u16, rng() as u16));
        let mut x = EndAroundAdd::default();
        for (a, b) in edges.into_iter().chain(random) {
            x.a.next = (a as u64).into();
            x.b.next = (b as u64).into();
            for _ in 0..3 {
                x.update_all();
            }
            assert_eq!(x.sum.val().to_u64() as u16, fold(a, b), "{a:#x} + {b:#x}");
        }
    }

    #[test]
    fn synthesizes() {
        let mut uut = EndAroundAdd::default();
        uut.connect_all();
        yosys_validate("end_around_add", &generate_verilog(&uut)).unwrap();
    }
}
