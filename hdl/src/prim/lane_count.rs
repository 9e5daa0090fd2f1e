//! Number of valid byte lanes in an AXI-Stream `tkeep` (contiguous from lane 0): the index of the highest
//! set bit plus one, so a malformed non-contiguous keep still yields where the data ends.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct LaneCount<const B: usize> {
    pub keep: Signal<In, Bits<B>>,
    pub count: Signal<Out, Bits<16>>,
}

impl<const B: usize> Logic for LaneCount<B> {
    fn update(&mut self) {
        let keep = self.keep.val();
        let n = (0..B).rev().find(|&i| keep.get_bit(i)).map_or(0, |i| i + 1);
        self.count.next = (n as u64).into();
    }

    fn connect(&mut self) {
        self.count.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "integer i;\nalways @(*) begin\n  count = 16'd0;\n  for (i = 0; i < {B}; i = i + 1)\n    if (keep[i]) count = i[15:0] + 16'd1;\nend\n"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_lanes() {
        let mut uut = LaneCount::<8>::default();
        uut.connect_all();
        uut.keep.next = 0b0001_1111_u64.into();
        uut.update_all();
        uut.update();
        assert_eq!(uut.count.next, bits::<16>(5));
        assert!(generate_verilog(&uut).contains("i < 8"));
    }
}
