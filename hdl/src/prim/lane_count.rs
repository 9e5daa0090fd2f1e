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

    /// A priority encoder over `keep` moved up one lane (so the highest set lane's index is the
    /// count itself, with no add), built as a tree of halves: a half's index is the upper half's when it
    /// has any lane set, else the lower half's. Each level is a 2:1 select, so 64 lanes are a few LUT
    /// levels where a loop of `if`s is a chain of 64.
    fn hdl(&self) -> Verilog {
        let n = (B + 1).next_power_of_two();
        let bits = n.trailing_zeros() as usize;
        let mut v = format!("wire [{}:0] k = {{{}'d0, keep, 1'b0}};\n", n - 1, n - B - 1);
        // Level 0: each lane is a leaf: any = the lane, no index bits.
        let mut level: Vec<(String, Vec<String>)> =
            (0..n).map(|i| (format!("k[{i}]"), Vec::new())).collect();
        let mut depth = 0;
        while level.len() > 1 {
            depth += 1;
            let mut next = Vec::new();
            for (j, pair) in level.chunks(2).enumerate() {
                let (al, il) = &pair[0];
                let (ah, ih) = &pair[1];
                let any = format!("a{depth}_{j}");
                v += &format!("wire {any} = {al} | {ah};\n");
                let mut idx = Vec::new();
                for (b, (l, h)) in il.iter().zip(ih).enumerate() {
                    let w = format!("i{depth}_{j}_{b}");
                    v += &format!("wire {w} = {ah} ? {h} : {l};\n");
                    idx.push(w);
                }
                idx.push(ah.clone());
                next.push((any, idx));
            }
            level = next;
        }
        let idx = &level[0].1;
        assert_eq!(idx.len(), bits);
        let msb_first: Vec<&str> = idx.iter().rev().map(|s| s.as_str()).collect();
        // `count` is a reg (rust-hdl declares outputs so): set in a combinational always block.
        v += &format!(
            "always @(*) count = {{{}'d0, {}}};\n",
            16 - bits,
            msb_first.join(", ")
        );
        Verilog::Custom(v)
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
        assert!(generate_verilog(&uut).contains("always @(*) count"));
    }
}
