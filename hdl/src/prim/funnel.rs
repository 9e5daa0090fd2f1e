//! Takes `W` bits from the two-word window `{b, a}` starting `n` byte lanes into `a` (lane `i` of `y` is
//! lane `i + n` of `a`, or lane `i + n - B` of `b` past `a`'s end): the realignment step of a payload
//! that starts `n` lanes into a buffer word.
//!
//! Emitted as log2(B) stages over the window, each shifting by a fixed power of two lanes when its bit
//! of `n` is set (two-input selects, packed two stages to a LUT), rather than as
//! `(a >> 8n) | (b << (W - 8n))`: two general shifters, over the amount's full width, and an OR behind
//! them.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct FunnelShift<const W: usize, const B: usize> {
    pub a: Signal<In, Bits<W>>,
    pub b: Signal<In, Bits<W>>,
    /// Lanes into `a`, below B (its higher bits are not read).
    pub n: Signal<In, Bits<8>>,
    pub y: Signal<Out, Bits<W>>,
}

impl<const W: usize, const B: usize> Logic for FunnelShift<W, B> {
    fn update(&mut self) {
        let n = self.n.val().index() % B;
        self.y.next = if n == 0 {
            self.a.val()
        } else {
            (self.a.val() >> (8 * n) as u64) | (self.b.val() << (W - 8 * n) as u64)
        };
    }

    fn connect(&mut self) {
        assert!(W == 8 * B && B.is_power_of_two() && B <= 128);
        self.y.connect();
    }

    fn hdl(&self) -> Verilog {
        let stages: String = (0..B.trailing_zeros() as usize)
            .map(|s| format!("  if (n[{s}]) t = t >> {};\n", 8 << s))
            .collect();
        Verilog::Custom(format!(
            "reg [{}:0] t;\nalways @(*) begin\n  t = {{b, a}};\n{stages}  y = t[{}:0];\nend",
            2 * W - 1,
            W - 1
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_the_window_at_every_lane() {
        let mut uut = FunnelShift::<32, 4>::default();
        uut.connect_all();
        for (n, want) in [
            (0, 0x4433_2211_u64),
            (1, 0x5544_3322),
            (2, 0x6655_4433),
            (3, 0x7766_5544),
            // Only n's low bits count.
            (5, 0x5544_3322),
        ] {
            uut.a.next = 0x4433_2211_u64.into();
            uut.b.next = 0x8877_6655_u64.into();
            uut.n.next = (n as u64).into();
            uut.update_all();
            uut.update();
            assert_eq!(uut.y.next, bits::<32>(want), "n {n}");
        }
    }

    #[test]
    fn synthesizes_as_fixed_stages() {
        let mut uut = FunnelShift::<64, 8>::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        assert!(v.contains("if (n[2]) t = t >> 32;"), "{v}");
        assert!(!v.contains("<<"), "a shifter was emitted: {v}");
        yosys_validate("funnel", &v).unwrap();
    }
}
