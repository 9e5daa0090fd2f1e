//! Rotates a `W`-bit word right by `n` byte lanes (lane `i` of `y` is lane `(i + n) mod B` of `a`, lane 0 =
//! bits 7:0): the realignment step of a stream read from a byte address that is not on a beat.
//!
//! Emitted as log2(B) stages, each rotating by a fixed power of two lanes when its bit of `n` is set
//! (W * log2(B) two-input selects), rather than as `(a >> 8n) | (a << (W - 8n))`, which synthesis builds
//! as two general shifters over a 16-bit amount.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct LaneRotate<const W: usize, const B: usize> {
    pub a: Signal<In, Bits<W>>,
    /// Lanes to rotate by, below B.
    pub n: Signal<In, Bits<8>>,
    pub y: Signal<Out, Bits<W>>,
}

impl<const W: usize, const B: usize> Logic for LaneRotate<W, B> {
    fn update(&mut self) {
        let n = self.n.val().index() % B;
        self.y.next = if n == 0 {
            self.a.val()
        } else {
            (self.a.val() >> (8 * n) as u64) | (self.a.val() << (W - 8 * n) as u64)
        };
    }

    fn connect(&mut self) {
        assert!(W == 8 * B && B.is_power_of_two() && B <= 128);
        self.y.connect();
    }

    fn hdl(&self) -> Verilog {
        let stages: String = (0..B.trailing_zeros() as usize)
            .map(|s| {
                let k = 8 << s;
                format!("  if (n[{s}]) y = {{y[{}:0], y[{}:{k}]}};\n", k - 1, W - 1)
            })
            .collect();
        Verilog::Custom(format!("always @(*) begin\n  y = a;\n{stages}end"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotates_by_every_lane_count() {
        let mut uut = LaneRotate::<32, 4>::default();
        uut.connect_all();
        for (n, want) in [
            (0, 0x4433_2211_u64),
            (1, 0x1144_3322),
            (2, 0x2211_4433),
            (3, 0x3322_1144),
        ] {
            uut.a.next = 0x4433_2211_u64.into();
            uut.n.next = (n as u64).into();
            uut.update_all();
            uut.update();
            assert_eq!(uut.y.next, bits::<32>(want), "n {n}");
        }
    }

    #[test]
    fn synthesizes_as_fixed_stages() {
        let mut uut = LaneRotate::<64, 8>::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        assert!(v.contains("if (n[2]) y = {y[31:0], y[63:32]};"), "{v}");
        assert!(!v.contains(">>"), "a shifter was emitted: {v}");
        yosys_validate("lane_rotate", &v).unwrap();
    }
}
