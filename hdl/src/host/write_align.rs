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
    /// The merged last word (at `spill_addr`) is written; the spill word, a beat above it, is next.
    spill_pend: DFF<bool>,
    spill_addr: DFF<Bits<64>>,
    off: Signal<Local, Bits<16>>,
    up_data: Signal<Local, Bits<W>>,
    up_strb: Signal<Local, Bits<B>>,
    hi_data: Signal<Local, Bits<W>>,
    hi_strb: Signal<Local, Bits<B>>,
    base: Signal<Local, Bits<64>>,
    main_strb: Signal<Local, Bits<B>>,
    low_mask: Constant<Bits<64>>,
    beat_bytes: Constant<Bits<16>>,
    beat_bytes64: Constant<Bits<64>>,
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
            spill_addr: Default::default(),
            off: Default::default(),
            up_data: Default::default(),
            up_strb: Default::default(),
            hi_data: Default::default(),
            hi_strb: Default::default(),
            base: Default::default(),
            main_strb: Default::default(),
            low_mask: Constant::new(((B - 1) as u64).into()),
            beat_bytes: Constant::new((B as u64).into()),
            beat_bytes64: Constant::new((B as u64).into()),
        }
    }
}

impl<const W: usize, const B: usize> Logic for WriteAlign<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, mid, carry_data, carry_strb, spill_pend, spill_addr);
        // Lanes past the beat boundary (the same for every word of a burst: they are B apart).
        self.off.next = bit_cast::<16, 64>(self.in_addr.val() & self.low_mask.val());
        self.base.next = self.in_addr.val() & !self.low_mask.val();
        self.up_data.next = self.in_data.val() << (self.off.val() << 3);
        self.up_strb.next = self.in_strb.val() << self.off.val();
        // What moves past the beat (nothing when aligned: no shift by a whole word).
        self.hi_data.next = 0.into();
        self.hi_strb.next = 0.into();
        if self.off.val() != 0 {
            self.hi_data.next =
                self.in_data.val() >> ((self.beat_bytes.val() - self.off.val()) << 3);
            self.hi_strb.next = self.in_strb.val() >> (self.beat_bytes.val() - self.off.val());
        }
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
        self.out_valid.next = self.in_valid.val() && (self.main_strb.val() != 0);
        self.in_ready.next = self.out_ready.val();
        if self.spill_pend.q.val() {
            // The spill word; the last input word is accepted with it (so it waits while the input
            // is withdrawn: a gap must not let the word be taken twice).
            self.out_addr.next = self.spill_addr.q.val() + self.beat_bytes64.val();
            self.out_data.next = self.carry_data.q.val();
            self.out_strb.next = self.carry_strb.q.val();
            self.out_valid.next = self.in_valid.val();
            self.in_ready.next = self.out_ready.val();
            if self.out_ready.val() && self.in_valid.val() {
                self.spill_pend.d.next = false;
                self.mid.d.next = false;
            }
        } else if self.in_valid.val() && self.out_ready.val() {
            self.carry_data.d.next = self.hi_data.val();
            self.carry_strb.d.next = self.hi_strb.val();
            if self.in_last.val() && (self.hi_strb.val() != 0) {
                // Written the merged word; hold the input until the spill word is out.
                self.in_ready.next = false;
                self.spill_pend.d.next = true;
                // The beat after the merged word's (added on the way out, off this word's path).
                self.spill_addr.d.next = self.base.val();
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
    fn bursts_back_to_back_do_not_mix() {
        // The second burst must not take the first's carry, whatever the offsets.
        run::<64, 8>(&[(0x105, 13), (0x200, 16), (0x303, 5), (0x407, 9)], |_| {
            true
        });
        run::<512, 64>(&[(0x1011, 100), (0x2000, 64), (0x3021, 1)], |c| c % 4 != 0);
    }
}
