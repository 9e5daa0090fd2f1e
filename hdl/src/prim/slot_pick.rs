//! Reads `W`-bit slot `slot` of an `N`-bit register (bits `[slot * W, slot * W + W)`; zero past the last
//! slot): how a formatted record goes out one beat at a time.
//!
//! Emitted as a `case` over the slot index, an N / W-input multiplexer per output bit, rather than as
//! `a >> (slot * W)`, which synthesis builds as a barrel shifter over the whole register because it cannot
//! tell the shift is a multiple of W (the reason for `slot_fill` too).
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct SlotPick<const N: usize, const W: usize> {
    pub a: Signal<In, Bits<N>>,
    pub slot: Signal<In, Bits<8>>,
    pub y: Signal<Out, Bits<W>>,
}

impl<const N: usize, const W: usize> Logic for SlotPick<N, W> {
    fn update(&mut self) {
        let s = self.slot.val().index();
        self.y.next = if s < N / W {
            bit_cast::<W, N>(self.a.val() >> (s * W) as u64)
        } else {
            0.into()
        };
    }

    fn connect(&mut self) {
        assert!(W <= N && N.is_multiple_of(W) && N / W <= 256);
        self.y.connect();
    }

    fn hdl(&self) -> Verilog {
        let arms: String = (0..N / W)
            .map(|s| format!("  8'd{s}: y = a[{}:{}];\n", s * W + W - 1, s * W))
            .collect();
        Verilog::Custom(format!(
            "always @(*)\n case (slot)\n{arms}  default: y = {{{W}{{1'b0}}}};\n endcase"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_one_slot_or_zero() {
        let mut uut = SlotPick::<32, 8>::default();
        uut.connect_all();
        for (slot, want) in [(0, 0x44), (1, 0x33), (3, 0x11), (4, 0), (200, 0)] {
            uut.a.next = 0x1122_3344_u64.into();
            uut.slot.next = (slot as u64).into();
            uut.update_all();
            uut.update();
            assert_eq!(uut.y.next, bits::<8>(want), "slot {slot}");
        }
    }

    #[test]
    fn synthesizes_as_a_case() {
        let mut uut = SlotPick::<32, 8>::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        assert!(v.contains("8'd3: y = a[31:24];"), "{v}");
        assert!(!v.contains(">>"), "a shifter was emitted: {v}");
        yosys_validate("slot_pick", &v).unwrap();
    }
}
