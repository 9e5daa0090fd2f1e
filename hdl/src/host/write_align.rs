//! Host-write realigner: lets the receive engine write a payload to any byte address.
//!
//! The engine writes a packet's payload as a burst of words whose address is the destination plus
//! `j * B` and whose lanes hold payload bytes `[j * B, j * B + B)` (strobes on the bytes that exist; the
//! burst's last word marked `in_last`). The DMA port takes B-aligned words, so for a destination `d`
//! bytes past a beat boundary each word is moved up `d` lanes, joined with the top `d` lanes of the word
//! before it, and written at the aligned address. When the burst's last bytes spill into one more word,
//! that word goes out first and the last input word is accepted with it, so the engine sees the burst
//! finish only when all of it is written (its completion cannot overtake the data). An aligned burst
//! (`d = 0`) passes through unchanged, in the same cycle, with no extra word.
//!
//! Every path is at most 6 LUT levels at 512 bits: the shifts by `d` lanes are shifters without a
//! subtraction (B - d lanes is one more than `d` complemented), whether any lane stays or moves past is
//! decoded from `d` beside them, and the spill word's address is added in two 32-bit halves, so a spill
//! word just above a 4 GiB boundary waits one cycle for the carry.
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct WriteAlign<const W: usize, const B: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub in_valid: Signal<In, bool>,
    pub in_ready: Signal<Out, bool>,
    pub in_addr: Signal<In, Bits<64>>,
    pub in_data: Signal<In, Bits<W>>,
    pub in_strb: Signal<In, Bits<B>>,
    pub in_last: Signal<In, bool>,
    pub out_valid: Signal<Out, bool>,
    pub out_ready: Signal<In, bool>,
    pub out_addr: Signal<Out, Bits<64>>,
    pub out_data: Signal<Out, Bits<W>>,
    pub out_strb: Signal<Out, Bits<B>>,
    /// Inside a burst: `carry_*` hold the lanes the previous word pushed past its beat.
    mid: DFF<bool>,
    carry_data: DFF<Bits<W>>,
    carry_strb: DFF<Bits<B>>,
    /// The lanes in `carry_strb` are not all off.
    carry_nz: DFF<bool>,
    /// The merged last word is written; the spill word, a beat above it, is next, at `spill_hi`:
    /// `spill_lo`, the beat's address added in two halves (a carry out of the low half reaches the high
    /// half in the spill word's first cycle, which then waits: the word crosses a 4 GiB boundary).
    spill_pend: DFF<bool>,
    spill_lo: DFF<Bits<33>>,
    spill_hi: DFF<Bits<32>>,
    off: Signal<Local, Bits<16>>,
    /// `off` complemented within the beat: B - 1 - off, so B - off lanes is one more than it (a shift
    /// amount without a subtraction).
    off_c: Signal<Local, Bits<16>>,
    /// Lanes that stay in this word (below B - off) and lanes that move past it.
    stay: Signal<Local, Bits<B>>,
    past: Signal<Local, Bits<B>>,
    up_nz: Signal<Local, bool>,
    hi_nz: Signal<Local, bool>,
    up_data: Signal<Local, Bits<W>>,
    up_strb: Signal<Local, Bits<B>>,
    hi_data: Signal<Local, Bits<W>>,
    hi_strb: Signal<Local, Bits<B>>,
    base: Signal<Local, Bits<64>>,
    main_strb: Signal<Local, Bits<B>>,
    low_mask: Constant<Bits<64>>,
    lane_mask: Constant<Bits<16>>,
    low32: Constant<Bits<64>>,
    low32_33: Constant<Bits<33>>,
    all_lanes: Constant<Bits<B>>,
    beat_bytes33: Constant<Bits<33>>,
}

impl<const W: usize, const B: usize> Default for WriteAlign<W, B> {
    fn default() -> Self {
        assert_eq!(W, 8 * B);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            in_addr: Default::default(),
            in_data: Default::default(),
            in_strb: Default::default(),
            in_last: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out_addr: Default::default(),
            out_data: Default::default(),
            out_strb: Default::default(),
            mid: Default::default(),
            carry_data: Default::default(),
            carry_strb: Default::default(),
            spill_pend: Default::default(),
            carry_nz: Default::default(),
            spill_lo: Default::default(),
            spill_hi: Default::default(),
            off_c: Default::default(),
            stay: Default::default(),
            past: Default::default(),
            up_nz: Default::default(),
            hi_nz: Default::default(),
            off: Default::default(),
            up_data: Default::default(),
            up_strb: Default::default(),
            hi_data: Default::default(),
            hi_strb: Default::default(),
            base: Default::default(),
            main_strb: Default::default(),
            low_mask: Constant::new(((B - 1) as u64).into()),
            lane_mask: Constant::new(((B - 1) as u64).into()),
            low32: Constant::new(0xFFFF_FFFF_u64.into()),
            low32_33: Constant::new(0xFFFF_FFFF_u64.into()),
            all_lanes: Constant::new(if B == 64 {
                u64::MAX.into()
            } else {
                ((1u64 << B) - 1).into()
            }),
            beat_bytes33: Constant::new((B as u64).into()),
        }
    }
}

impl<const W: usize, const B: usize> Logic for WriteAlign<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, mid, carry_data, carry_strb, carry_nz, spill_pend, spill_lo, spill_hi
        );
        // Lanes past the beat boundary (the same for every word of a burst: they are B apart).
        self.off.next = bit_cast::<16, 64>(self.in_addr.val() & self.low_mask.val());
        self.off_c.next = self.off.val() ^ self.lane_mask.val();
        self.base.next = self.in_addr.val() & !self.low_mask.val();
        self.up_data.next = self.in_data.val() << (self.off.val() << 3);
        self.up_strb.next = self.in_strb.val() << self.off.val();
        // What moves past the beat: the top `off` lanes, moved down B - off lanes as one lane and then
        // `off` complemented (nothing when aligned: the shifts then pass the whole word).
        self.hi_data.next = (self.in_data.val() >> 8) >> (self.off_c.val() << 3);
        self.hi_strb.next = (self.in_strb.val() >> 1) >> self.off_c.val();
        // Whether any strobe stays, any moves past: masks decoded from `off`, off the shifters' path.
        self.stay.next = self.all_lanes.val() >> self.off.val();
        self.up_nz.next = (self.in_strb.val() & self.stay.val()) != 0;
        self.past.next = !self.stay.val();
        self.hi_nz.next = (self.in_strb.val() & self.past.val()) != 0;
        self.out_addr.next = self.base.val();
        self.out_data.next = self.up_data.val();
        self.main_strb.next = self.up_strb.val();
        if self.mid.q.val() {
            self.out_data.next = self.up_data.val() | self.carry_data.q.val();
            self.main_strb.next = self.up_strb.val() | self.carry_strb.q.val();
        }
        self.out_strb.next = self.main_strb.val();
        // A word with no byte to write is not written: its address may lie outside the buffer (a
        // scatter piece's first word, whose lanes below the piece are not its own). It still waits for
        // the port's ready, so the strobes (late: the scatter unit cuts them) stay off the ready path;
        // the port's ready must not wait for valid (docs/interfaces.md).
        self.out_valid.next = self.in_valid.val()
            && (self.up_nz.val() || (self.mid.q.val() && self.carry_nz.q.val()));
        self.in_ready.next = self.out_ready.val();
        if self.spill_pend.q.val() {
            // The spill word; the last input word is accepted with it (so it waits while the input
            // is withdrawn: a gap must not let the word be taken twice).
            self.out_addr.next = (bit_cast::<64, 32>(self.spill_hi.q.val()) << 32)
                | bit_cast::<64, 32>(self.spill_lo.q.val().get_bits::<32>(0));
            self.out_data.next = self.carry_data.q.val();
            self.out_strb.next = self.carry_strb.q.val();
            self.out_valid.next = self.in_valid.val() && !self.spill_lo.q.val().get_bit(32);
            self.in_ready.next = self.out_ready.val() && !self.spill_lo.q.val().get_bit(32);
            if self.spill_lo.q.val().get_bit(32) {
                self.spill_hi.d.next = self.spill_hi.q.val() + 1;
                self.spill_lo.d.next = self.spill_lo.q.val() & self.low32_33.val();
            } else if self.out_ready.val() && self.in_valid.val() {
                self.spill_pend.d.next = false;
                self.mid.d.next = false;
            }
        } else if self.in_valid.val() && self.out_ready.val() {
            self.carry_data.d.next = self.hi_data.val();
            self.carry_strb.d.next = self.hi_strb.val();
            self.carry_nz.d.next = self.hi_nz.val();
            if self.in_last.val() && self.hi_nz.val() {
                // Written the merged word; hold the input until the spill word is out.
                self.in_ready.next = false;
                self.spill_pend.d.next = true;
                self.spill_lo.d.next = bit_cast::<33, 64>(self.base.val() & self.low32.val())
                    + self.beat_bytes33.val();
                self.spill_hi.d.next = bit_cast::<32, 64>(self.base.val() >> 32);
            } else {
                self.mid.d.next = !self.in_last.val();
            }
        }
        if self.reset.val() {
            self.mid.d.next = false;
            self.spill_pend.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::sync::{Arc, Mutex};

    #[test]
    fn write_align_synthesizes() {
        let mut uut = WriteAlign::<64, 8>::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        yosys_validate("write_align", &v).unwrap();
    }

    /// What the port saw: bytes written (address -> byte), words written, cycles until the last input
    /// word was accepted.
    type Seen = (BTreeMap<u64, u8>, usize, u64);

    /// Sends each `(dst, len)` payload in turn as the receive engine does (word j at dst + jB, lanes =
    /// payload bytes [jB, jB + B), strobes on the bytes that exist), back to back, with the port ready on
    /// the cycles `ready(cycle)` says; checks every write is aligned and every byte lands once, where it
    /// belongs.
    fn run<const W: usize, const B: usize>(
        bursts: &[(u64, usize)],
        ready: fn(u64) -> bool,
    ) -> Seen {
        let mut words_in = Vec::new();
        let mut want = BTreeMap::new();
        for (n, &(dst, len)) in bursts.iter().enumerate() {
            let payload: Vec<u8> = (0..len).map(|i| (i * 7 + 3 + n * 31) as u8).collect();
            for (i, &b) in payload.iter().enumerate() {
                assert!(want.insert(dst + i as u64, b).is_none(), "bursts overlap");
            }
            let nwords = len.div_ceil(B);
            for j in 0..nwords {
                let mut data: Bits<W> = 0.into();
                let mut strb = 0u64;
                for l in 0..B {
                    if let Some(&b) = payload.get(j * B + l) {
                        data = data | (bit_cast::<W, 8>((b as u64).into()) << (8 * l) as u64);
                        strb |= 1 << l;
                    }
                }
                words_in.push((dst + (j * B) as u64, data, strb, j + 1 == nwords));
            }
        }
        let seen = Arc::new(Mutex::new((BTreeMap::new(), 0usize, 0u64)));
        let s2 = seen.clone();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<WriteAlign<W, B>>| {
            x.clock.next = !x.clock.val()
        });
        sim.add_testbench(move |mut sim: Sim<WriteAlign<W, B>>| {
            let mut x = sim.init()?;
            wait_clock_true!(sim, clock, x);
            let mut k = 0;
            let mut cycle = 0u64;
            while k < words_in.len() {
                assert!(cycle < 4 * words_in.len() as u64 + 20, "stalled");
                let (addr, data, strb, last) = words_in[k];
                x.in_valid.next = true;
                x.in_addr.next = addr.into();
                x.in_data.next = data;
                x.in_strb.next = strb.into();
                x.in_last.next = last;
                x.out_ready.next = ready(cycle);
                wait_clock_false!(sim, clock, x);
                if x.out_valid.val() && x.out_ready.val() {
                    let mut s = s2.lock().unwrap();
                    s.1 += 1;
                    let a = x.out_addr.val().to_u64();
                    assert_eq!(a % B as u64, 0, "unaligned write at {a:#x}");
                    let st = x.out_strb.val().to_u64();
                    assert_ne!(st, 0, "a write with no byte enabled at {a:#x}");
                    for l in 0..B {
                        if st >> l & 1 != 0 {
                            let byte = x.out_data.val().get_bits::<8>(8 * l).to_u64() as u8;
                            assert!(
                                s.0.insert(a + l as u64, byte).is_none(),
                                "byte written twice"
                            );
                        }
                    }
                }
                if x.in_ready.val() {
                    k += 1;
                }
                wait_clock_true!(sim, clock, x);
                cycle += 1;
            }
            s2.lock().unwrap().2 = cycle;
            x.in_valid.next = false;
            sim.done(x)
        });
        let mut uut = WriteAlign::<W, B>::default();
        uut.connect_all();
        sim.run(Box::new(uut), 1_000_000).unwrap();
        let r = seen.lock().unwrap().clone();
        assert_eq!(r.0, want, "bursts {bursts:?}");
        r
    }

    #[test]
    fn every_offset_and_length_lands_byte_for_byte() {
        for off in 0..8u64 {
            for len in [1, 2, 7, 8, 9, 15, 16, 17, 64, 100] {
                let (_, words, cycles) = run::<64, 8>(&[(0x1000 + off, len)], |_| true);
                let want = (off as usize + len).div_ceil(8);
                assert_eq!(words, want, "off {off} len {len}: words written");
                // One extra cycle only when the last bytes spill into a word of their own.
                let extra = (want > len.div_ceil(8)) as u64;
                assert_eq!(
                    cycles,
                    len.div_ceil(8) as u64 + extra,
                    "off {off} len {len}"
                );
            }
        }
    }

    #[test]
    fn backpressure_and_wide_beats() {
        for off in [0u64, 1, 31, 63] {
            for len in [1, 63, 64, 65, 200] {
                run::<512, 64>(&[(0x2000 + off, len)], |c| c % 3 != 1);
            }
        }
        run::<64, 8>(&[(0x43, 61)], |c| c % 2 == 0);
    }

    #[test]
    fn spill_word_across_a_4gib_boundary() {
        // The merged word is the last below 4 GiB, the spill word the first above it.
        for (dst, len) in [(0xFFFF_FFF5, 13), (0x1_FFFF_FFFB, 8), (0xFFFF_FFF9, 100)] {
            run::<64, 8>(&[(dst, len)], |_| true);
        }
        run::<512, 64>(&[(0x2_FFFF_FFC1, 100), (0x3_0000_0040, 5)], |c| c % 3 != 1);
    }

    #[test]
    fn bursts_back_to_back_do_not_mix() {
        // The second burst must not take the first's carry, whatever the offsets.
        run::<64, 8>(&[(0x105, 13), (0x200, 16), (0x303, 5), (0x407, 9)], |_| {
            true
        });
        run::<512, 64>(&[(0x1011, 100), (0x2000, 64), (0x3021, 1)], |c| c % 4 != 0);
    }
}
