//! Writes a `W`-bit beat into slot `slot` of an `N`-bit capture register (bits `[slot * W, slot * W + W)`),
//! in place of what is there: how the header captures take beat k of a frame.
//!
//! Each slot is a multiplexer, the beat or the base, not an AND-OR: with the base a register's output,
//! synthesis sees the register feed back through the multiplexer and gives the slot's flip-flops a clock
//! enable, so a captured bit costs no LUT (an AND-OR cost one per bit: some 700 LUTs in the neighbour
//! discovery responder's capture alone).
//!
//! Emitted as N / W fixed slots, each enabled by its own compare of `slot`, rather than as
//! `data << (slot * W)`: synthesis cannot tell that such a shift is a multiple of W and below N, so it
//! builds a full barrel shifter (about N multiplexers per bit of the shift amount, with long wires across
//! the register). Three of those, 512 and 1,024 bits wide, were a large share of the 64-bit core's LUTs
//! and the wiring its ECP5 place-and-route could not route (docs/resources.md).
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct SlotFill<const N: usize, const W: usize> {
    pub base: Signal<In, Bits<N>>,
    pub data: Signal<In, Bits<W>>,
    /// Slot index. No slot is written while `en` is low or `slot` is N / W or more.
    pub slot: Signal<In, Bits<8>>,
    pub en: Signal<In, bool>,
    pub y: Signal<Out, Bits<N>>,
}

impl<const N: usize, const W: usize> Logic for SlotFill<N, W> {
    fn update(&mut self) {
        let mut y = self.base.val();
        let s = self.slot.val().index();
        if self.en.val() && s < N / W {
            let slot_mask = bit_cast::<N, W>(Bits::<W>::mask()) << (s * W) as u64;
            y = (y & !slot_mask) | (bit_cast::<N, W>(self.data.val()) << (s * W) as u64);
        }
        self.y.next = y;
    }

    fn connect(&mut self) {
        assert!(W <= N && N.is_multiple_of(W) && N / W <= 256);
        self.y.connect();
    }

    fn hdl(&self) -> Verilog {
        // Most significant slot first, as a Verilog concatenation lists it.
        let parts: Vec<String> = (0..N / W)
            .rev()
            .map(|s| {
                format!(
                    "(en && (slot == 8'd{s})) ? data : base[{}:{}]",
                    s * W + W - 1,
                    s * W
                )
            })
            .collect();
        Verilog::Custom(format!("always @(*) y = {{{}}};", parts.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(uut: &mut SlotFill<32, 8>, base: u64, data: u64, slot: u64, en: bool) -> Bits<32> {
        uut.base.next = base.into();
        uut.data.next = data.into();
        uut.slot.next = slot.into();
        uut.en.next = en;
        uut.update_all();
        uut.update();
        uut.y.next
    }

    #[test]
    fn fills_one_slot_or_none() {
        let mut uut = SlotFill::<32, 8>::default();
        uut.connect_all();
        assert_eq!(
            eval(&mut uut, 0x0000_0011, 0xAB, 2, true),
            bits::<32>(0x00AB_0011)
        );
        assert_eq!(
            eval(&mut uut, 0x0000_0011, 0xAB, 3, true),
            bits::<32>(0xAB00_0011)
        );
        assert_eq!(
            eval(&mut uut, 0x0000_0011, 0xAB, 0, true),
            bits::<32>(0x0000_00AB)
        );
        // Out of range or disabled: the base unchanged.
        assert_eq!(
            eval(&mut uut, 0x0000_0011, 0xAB, 4, true),
            bits::<32>(0x0000_0011)
        );
        assert_eq!(
            eval(&mut uut, 0x0000_0011, 0xAB, 2, false),
            bits::<32>(0x0000_0011)
        );
    }

    #[test]
    fn synthesizes_as_fixed_slots() {
        let mut uut = SlotFill::<32, 8>::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        assert!(
            v.contains("(en && (slot == 8'd3)) ? data : base[31:24]"),
            "{v}"
        );
        assert!(!v.contains("<<"), "a shifter was emitted: {v}");
        yosys_validate("slot_fill", &v).unwrap();
    }
}
