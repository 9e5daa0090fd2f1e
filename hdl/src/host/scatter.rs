//! Scatter: lets the receive engine write a SEND's payload into a list of up to `MAX_SGE` buffers (a
//! receive WQE's scatter list, `ibv_recv_wr` with `num_sge` > 1), or an RDMA READ's responses into the
//! READ's local list (a send WQE's, `ibv_send_wr` with `num_sge` > 1), as if it were one.
//!
//! The engine keeps writing one contiguous buffer: in a scatter burst a word's `addr` is the message
//! offset of its lane 0 (the packet's offset plus `j * B`), lanes and strobes as for any burst. This unit
//! walks the list and cuts the burst at entry boundaries: each piece goes on to the write realigner
//! (`host/write_align.rs`) as a burst of its own, every word at `entry address - entry offset + addr`, so
//! the realigner's lane `l` lands at the entry's byte for message offset `addr + l`. No data moves here:
//! a word that crosses a boundary is offered twice, strobes cut at the boundary, the first time as its
//! piece's last word: one cycle per boundary inside a word, nothing else (the entry a word starts in
//! is found from the list's running lengths for every word, so empty entries cost nothing and
//! consecutive bursts may use different lists, as packets of several QPs' SENDs do). Other bursts (a
//! WRITE's payload, atomics, a one-buffer receive or READ) pass straight through, unregistered.
//!
//! The list is the WQE's list area as the engine holds it (`MAX_SGE` entries of 16 bytes: address u64,
//! length u32, lkey u32, `rocenic_proto::host::sge`), in place a cycle before a burst's first word; the
//! unit keeps the mode and the list a burst started with until its last word, whatever its inputs do
//! meanwhile (the transmit engine may withdraw a READ context while its response is being written). The engines guarantee
//! that the WQE's length is the sum of the first `sgl_n` lengths and that a packet fits what is left of it
//! (a receive: else the packet is NAKed before anything is written; a READ: the transmit engine refuses
//! a list that does not add up, and a response not carrying exactly the bytes expected is dropped), so
//! every byte lies in some entry; the last entry is not cut, so a byte past the list could only land
//! past that entry's end (never reached). Lkeys are checked by the driver when it posts (as for one SGE).
use rust_hdl::prelude::*;

/// Entries of a scatter list: a 128-byte receive WQE has 64 bytes of header and room for 4.
pub const MAX_SGE: usize = 4;

#[derive(LogicBlock)]
pub struct Scatter<const W: usize, const B: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    // The engine's burst; `scatter`: `addr` is a message offset in the list.
    pub in_valid: Signal<In, bool>,
    pub in_ready: Signal<Out, bool>,
    pub in_addr: Signal<In, Bits<64>>,
    pub in_data: Signal<In, Bits<W>>,
    pub in_strb: Signal<In, Bits<B>>,
    pub in_last: Signal<In, bool>,
    pub in_scatter: Signal<In, bool>,
    /// The scatter list and how many of its entries count: read one cycle late (registered ends), so
    /// they must be in place a cycle before a scatter burst's first word and held through it.
    pub sgl: Signal<In, Bits<512>>,
    pub sgl_n: Signal<In, Bits<3>>,
    // Bursts to the write realigner: one per piece.
    pub out_valid: Signal<Out, bool>,
    pub out_ready: Signal<In, bool>,
    pub out_addr: Signal<Out, Bits<64>>,
    pub out_data: Signal<Out, Bits<W>>,
    pub out_strb: Signal<Out, Bits<B>>,
    pub out_last: Signal<Out, bool>,
    /// Lanes of the offered word already written (it crossed an entry boundary).
    cut: DFF<Bits<16>>,
    /// The list, digested a cycle ahead so no sum of lengths sits on a word's path: message offsets
    /// where entries 0, 1 and 2 end, each entry's address less its start offset, the count.
    end0: DFF<Bits<40>>,
    end1: DFF<Bits<40>>,
    end2: DFF<Bits<40>>,
    adj0: DFF<Bits<64>>,
    adj1: DFF<Bits<64>>,
    adj2: DFF<Bits<64>>,
    adj3: DFF<Bits<64>>,
    n: DFF<Bits<3>>,
    /// A burst is under way (its first word went, its last has not): it keeps the mode and the list it
    /// started with, whatever the engine's inputs do meanwhile (a READ context withdrawn mid-packet).
    held: DFF<bool>,
    held_scatter: DFF<bool>,
    /// This word's mode: `in_scatter`, or the burst's.
    word_scatter: Signal<Local, bool>,
    /// The next cycle is inside a burst: the list digest stands still at this edge.
    held_n: Signal<Local, bool>,
    len0: Signal<Local, Bits<40>>,
    len1: Signal<Local, Bits<40>>,
    len2: Signal<Local, Bits<40>>,
    s_end1: Signal<Local, Bits<40>>,
    s_end2: Signal<Local, Bits<40>>,
    /// The word's message offset, and how far each entry's end lies past it (negative: behind).
    m: Signal<Local, Bits<41>>,
    d0: Signal<Local, Bits<41>>,
    d1: Signal<Local, Bits<41>>,
    d2: Signal<Local, Bits<41>>,
    /// Entry k ends at or before the word's first unwritten byte (`m + cut`).
    past0: Signal<Local, bool>,
    past1: Signal<Local, bool>,
    past2: Signal<Local, bool>,
    /// The entry that byte falls in.
    idx: Signal<Local, Bits<3>>,
    /// The word's address in each entry, side by side (so the add does not wait for `idx`).
    at0: Signal<Local, Bits<64>>,
    at1: Signal<Local, Bits<64>>,
    at2: Signal<Local, Bits<64>>,
    at3: Signal<Local, Bits<64>>,
    /// All ones for the entry `idx` names: the select as AND-OR, not a multiplexer, which synthesis
    /// would share into one add behind a multiplexer of the operands (and put the add back on the path).
    sel0: Signal<Local, Bits<64>>,
    sel1: Signal<Local, Bits<64>>,
    sel2: Signal<Local, Bits<64>>,
    sel3: Signal<Local, Bits<64>>,
    at: Signal<Local, Bits<64>>,
    /// Bytes of the entry from the word's lane 0.
    rel: Signal<Local, Bits<41>>,
    rel16: Signal<Local, Bits<16>>,
    last_entry: Signal<Local, bool>,
    ends_here: Signal<Local, bool>,
    end_mask: Signal<Local, Bits<B>>,
    cut_mask: Signal<Local, Bits<B>>,
    rem: Signal<Local, Bits<B>>,
    /// Bit offsets of entries 0, 1 and 2's lengths and of entries 0..3's addresses in the list.
    sh_len0: Constant<Bits<16>>,
    sh_len1: Constant<Bits<16>>,
    sh_len2: Constant<Bits<16>>,
    sh_addr1: Constant<Bits<16>>,
    sh_addr2: Constant<Bits<16>>,
    sh_addr3: Constant<Bits<16>>,
    beat_bytes: Constant<Bits<16>>,
    ones: Constant<Bits<B>>,
    ones64: Constant<Bits<64>>,
    one3: Constant<Bits<3>>,
}

impl<const W: usize, const B: usize> Default for Scatter<W, B> {
    fn default() -> Self {
        use rocenic_proto::host::sge;
        assert_eq!(W, 8 * B);
        let sh_len = |i: usize| Constant::new((((i * sge::BYTES + sge::LENGTH) * 8) as u64).into());
        let sh_addr = |i: usize| Constant::new((((i * sge::BYTES + sge::ADDR) * 8) as u64).into());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            in_addr: Default::default(),
            in_data: Default::default(),
            in_strb: Default::default(),
            in_last: Default::default(),
            in_scatter: Default::default(),
            sgl: Default::default(),
            sgl_n: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out_addr: Default::default(),
            out_data: Default::default(),
            out_strb: Default::default(),
            out_last: Default::default(),
            cut: Default::default(),
            end0: Default::default(),
            end1: Default::default(),
            end2: Default::default(),
            adj0: Default::default(),
            adj1: Default::default(),
            adj2: Default::default(),
            adj3: Default::default(),
            n: Default::default(),
            held: Default::default(),
            held_scatter: Default::default(),
            word_scatter: Default::default(),
            held_n: Default::default(),
            len0: Default::default(),
            len1: Default::default(),
            len2: Default::default(),
            s_end1: Default::default(),
            s_end2: Default::default(),
            m: Default::default(),
            d0: Default::default(),
            d1: Default::default(),
            d2: Default::default(),
            past0: Default::default(),
            past1: Default::default(),
            past2: Default::default(),
            idx: Default::default(),
            at0: Default::default(),
            at1: Default::default(),
            at2: Default::default(),
            at3: Default::default(),
            sel0: Default::default(),
            sel1: Default::default(),
            sel2: Default::default(),
            sel3: Default::default(),
            at: Default::default(),
            rel: Default::default(),
            rel16: Default::default(),
            last_entry: Default::default(),
            ends_here: Default::default(),
            end_mask: Default::default(),
            cut_mask: Default::default(),
            rem: Default::default(),
            sh_len0: sh_len(0),
            sh_len1: sh_len(1),
            sh_len2: sh_len(2),
            sh_addr1: sh_addr(1),
            sh_addr2: sh_addr(2),
            sh_addr3: sh_addr(3),
            beat_bytes: Constant::new((B as u64).into()),
            ones: Constant::new(Bits::<B>::mask()),
            ones64: Constant::new(Bits::<64>::mask()),
            one3: Constant::new(1.into()),
        }
    }
}

impl<const W: usize, const B: usize> Logic for Scatter<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            cut,
            end0,
            end1,
            end2,
            adj0,
            adj1,
            adj2,
            adj3,
            n,
            held,
            held_scatter
        );
        // The list, a cycle ahead: where each entry ends in the message (the last one counted is never
        // cut, so its end and those of entries after it do not matter), and where an entry's byte for
        // message offset 0 would be (its address less its start), so a word's address is one add.
        // (Shift amounts as 16-bit signals: a literal beside a 512-bit value does not emit.)
        self.len0.next =
            bit_cast::<40, 32>(bit_cast::<32, 512>(self.sgl.val() >> self.sh_len0.val()));
        self.len1.next =
            bit_cast::<40, 32>(bit_cast::<32, 512>(self.sgl.val() >> self.sh_len1.val()));
        self.len2.next =
            bit_cast::<40, 32>(bit_cast::<32, 512>(self.sgl.val() >> self.sh_len2.val()));
        self.s_end1.next = self.len0.val() + self.len1.val();
        self.s_end2.next = self.s_end1.val() + self.len2.val();

        // The entry the word's first unwritten byte (`m + cut`) falls in: past every entry that ends at
        // or before it (empty ones included), never past the last counted one. Found afresh for every
        // word, so a burst may follow another QP's with another list, and nothing is walked. Each
        // entry's distance from the word is one subtraction, side by side, and "at or before" is a
        // compare of that distance with `cut` (under 2^16): no sum feeds a compare.
        self.m.next = bit_cast::<41, 40>(bit_cast::<40, 64>(self.in_addr.val()));
        self.d0.next = bit_cast::<41, 40>(self.end0.q.val()) - self.m.val();
        self.d1.next = bit_cast::<41, 40>(self.end1.q.val()) - self.m.val();
        self.d2.next = bit_cast::<41, 40>(self.end2.q.val()) - self.m.val();
        self.past0.next = ((self.d0.val() >> 40) != 0)
            || (((self.d0.val() >> 16) == 0)
                && (bit_cast::<16, 41>(self.d0.val()) <= self.cut.q.val()));
        self.past1.next = ((self.d1.val() >> 40) != 0)
            || (((self.d1.val() >> 16) == 0)
                && (bit_cast::<16, 41>(self.d1.val()) <= self.cut.q.val()));
        self.past2.next = ((self.d2.val() >> 40) != 0)
            || (((self.d2.val() >> 16) == 0)
                && (bit_cast::<16, 41>(self.d2.val()) <= self.cut.q.val()));
        self.at0.next = self.adj0.q.val() + self.in_addr.val();
        self.at1.next = self.adj1.q.val() + self.in_addr.val();
        self.at2.next = self.adj2.q.val() + self.in_addr.val();
        self.at3.next = self.adj3.q.val() + self.in_addr.val();
        self.idx.next = 0.into();
        self.rel.next = self.d0.val();
        if (self.n.q.val() > 1) && self.past0.val() {
            self.idx.next = 1.into();
            self.rel.next = self.d1.val();
        }
        if (self.n.q.val() > 2) && self.past1.val() {
            self.idx.next = 2.into();
            self.rel.next = self.d2.val();
        }
        if (self.n.q.val() > 3) && self.past2.val() {
            self.idx.next = 3.into();
        }
        self.sel0.next = 0.into();
        self.sel1.next = 0.into();
        self.sel2.next = 0.into();
        self.sel3.next = 0.into();
        if self.idx.val() == 0 {
            self.sel0.next = self.ones64.val();
        }
        if self.idx.val() == 1 {
            self.sel1.next = self.ones64.val();
        }
        if self.idx.val() == 2 {
            self.sel2.next = self.ones64.val();
        }
        if self.idx.val() == 3 {
            self.sel3.next = self.ones64.val();
        }
        self.at.next = (self.at0.val() & self.sel0.val())
            | (self.at1.val() & self.sel1.val())
            | (self.at2.val() & self.sel2.val())
            | (self.at3.val() & self.sel3.val());
        self.last_entry.next = (self.idx.val() + self.one3.val()) >= self.n.q.val();
        self.rel16.next = bit_cast::<16, 41>(self.rel.val());
        // The entry ends inside this word or at its end (not the last entry: `rel` > `cut` >= 0).
        self.ends_here.next = ((self.rel.val() >> 16) == 0)
            && (self.rel16.val() <= self.beat_bytes.val())
            && !self.last_entry.val();
        self.end_mask.next = self.ones.val();
        if self.ends_here.val() {
            self.end_mask.next = !(self.ones.val() << self.rel16.val());
        }
        self.cut_mask.next = self.ones.val() << self.cut.q.val();
        self.rem.next = self.in_strb.val() & !self.end_mask.val();

        // Pass-through (not a scatter burst).
        self.out_valid.next = self.in_valid.val();
        self.out_addr.next = self.in_addr.val();
        self.out_data.next = self.in_data.val();
        self.out_strb.next = self.in_strb.val();
        self.out_last.next = self.in_last.val();
        self.in_ready.next = self.out_ready.val();
        self.word_scatter.next = self.in_scatter.val();
        if self.held.q.val() {
            self.word_scatter.next = self.held_scatter.q.val();
        }
        if self.word_scatter.val() {
            // The piece's words go where the entry holds their lane 0's offset.
            self.out_addr.next = self.at.val();
            self.out_strb.next = self.in_strb.val() & self.cut_mask.val() & self.end_mask.val();
            self.out_last.next =
                (self.in_last.val() && (self.rem.val() == 0)) || self.ends_here.val();
            self.in_ready.next = false;
            if self.in_valid.val() && self.out_ready.val() {
                if self.rem.val() == 0 {
                    self.in_ready.next = true;
                    self.cut.d.next = 0.into();
                } else {
                    // Offer the word again from the boundary, to the next entry.
                    self.cut.d.next = self.rel16.val();
                }
            }
        }
        // A word taken (its last piece accepted) starts or continues the burst, unless it is the last.
        self.held_n.next = self.held.q.val();
        if self.in_valid.val() && self.in_ready.val() {
            self.held_n.next = !self.in_last.val();
        }
        if self.reset.val() {
            self.held_n.next = false;
        }
        self.held.d.next = self.held_n.val();
        // The list's digest, for the next word: loaded unless that word continues a burst.
        if !self.held_n.val() {
            self.end0.d.next = self.len0.val();
            self.end1.d.next = self.s_end1.val();
            self.end2.d.next = self.s_end2.val();
            self.adj0.d.next = bit_cast::<64, 512>(self.sgl.val());
            self.adj1.d.next = bit_cast::<64, 512>(self.sgl.val() >> self.sh_addr1.val())
                - bit_cast::<64, 40>(self.len0.val());
            self.adj2.d.next = bit_cast::<64, 512>(self.sgl.val() >> self.sh_addr2.val())
                - bit_cast::<64, 40>(self.s_end1.val());
            self.adj3.d.next = bit_cast::<64, 512>(self.sgl.val() >> self.sh_addr3.val())
                - bit_cast::<64, 40>(self.s_end2.val());
            self.n.d.next = self.sgl_n.val();
        }
        if !self.held.q.val() {
            self.held_scatter.d.next = self.word_scatter.val();
        }
        if self.reset.val() {
            self.cut.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::write_align::WriteAlign;
    use std::collections::BTreeMap;
    use std::sync::{Arc, Mutex};

    #[test]
    fn scatter_synthesizes() {
        let mut uut = Scatter::<64, 8>::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        yosys_validate("scatter", &v).unwrap();
    }

    /// Scatter into the write realigner, as in the core.
    #[derive(LogicBlock)]
    struct Chain<const W: usize, const B: usize> {
        clock: Signal<In, Clock>,
        reset: Signal<In, bool>,
        in_valid: Signal<In, bool>,
        in_ready: Signal<Out, bool>,
        in_addr: Signal<In, Bits<64>>,
        in_data: Signal<In, Bits<W>>,
        in_strb: Signal<In, Bits<B>>,
        in_last: Signal<In, bool>,
        in_scatter: Signal<In, bool>,
        sgl: Signal<In, Bits<512>>,
        sgl_n: Signal<In, Bits<3>>,
        out_valid: Signal<Out, bool>,
        out_ready: Signal<In, bool>,
        out_addr: Signal<Out, Bits<64>>,
        out_data: Signal<Out, Bits<W>>,
        out_strb: Signal<Out, Bits<B>>,
        sc: Scatter<W, B>,
        wa: WriteAlign<W, B>,
    }

    impl<const W: usize, const B: usize> Logic for Chain<W, B> {
        #[hdl_gen]
        fn update(&mut self) {
            self.sc.clock.next = self.clock.val();
            self.wa.clock.next = self.clock.val();
            self.sc.reset.next = self.reset.val();
            self.wa.reset.next = self.reset.val();
            self.wa.in_valid.next = self.sc.out_valid.val();
            self.wa.in_addr.next = self.sc.out_addr.val();
            self.wa.in_data.next = self.sc.out_data.val();
            self.wa.in_strb.next = self.sc.out_strb.val();
            self.wa.in_last.next = self.sc.out_last.val();
            self.sc.out_ready.next = self.wa.in_ready.val();
            self.sc.in_valid.next = self.in_valid.val();
            self.sc.in_addr.next = self.in_addr.val();
            self.sc.in_data.next = self.in_data.val();
            self.sc.in_strb.next = self.in_strb.val();
            self.sc.in_last.next = self.in_last.val();
            self.sc.in_scatter.next = self.in_scatter.val();
            self.sc.sgl.next = self.sgl.val();
            self.sc.sgl_n.next = self.sgl_n.val();
            self.in_ready.next = self.sc.in_ready.val();
            self.wa.out_ready.next = self.out_ready.val();
            self.out_valid.next = self.wa.out_valid.val();
            self.out_addr.next = self.wa.out_addr.val();
            self.out_data.next = self.wa.out_data.val();
            self.out_strb.next = self.wa.out_strb.val();
        }
    }

    impl<const W: usize, const B: usize> Default for Chain<W, B> {
        fn default() -> Self {
            Self {
                clock: Default::default(),
                reset: Default::default(),
                in_valid: Default::default(),
                in_ready: Default::default(),
                in_addr: Default::default(),
                in_data: Default::default(),
                in_strb: Default::default(),
                in_last: Default::default(),
                in_scatter: Default::default(),
                sgl: Default::default(),
                sgl_n: Default::default(),
                out_valid: Default::default(),
                out_ready: Default::default(),
                out_addr: Default::default(),
                out_data: Default::default(),
                out_strb: Default::default(),
                sc: Default::default(),
                wa: Default::default(),
            }
        }
    }

    /// One burst of the engine: payload bytes of message offsets [off, off + len) of a message whose
    /// list is `list` ((address, length) entries); `list` empty: a plain burst to address `off`.
    #[derive(Clone, Debug)]
    struct Burst {
        list: Vec<(u64, u32)>,
        off: u64,
        len: usize,
    }

    fn encode(list: &[(u64, u32)]) -> Bits<512> {
        let mut v: Bits<512> = 0.into();
        for (i, &(a, l)) in list.iter().enumerate() {
            v = v | (bit_cast::<512, 64>(a.into()) << (128 * i) as u64);
            v = v | (bit_cast::<512, 64>((l as u64).into()) << (128 * i + 64) as u64);
            // An lkey the unit must ignore.
            v = v | (bit_cast::<512, 64>(0xABCDu64.into()) << (128 * i + 96) as u64);
        }
        v
    }

    /// Where message byte `o` lands.
    fn dest(list: &[(u64, u32)], o: u64) -> u64 {
        let mut base = 0u64;
        for &(a, l) in list {
            if o < base + l as u64 {
                return a + (o - base);
            }
            base += l as u64;
        }
        panic!("offset {o} past the list");
    }

    /// Runs the bursts back to back (input valid on the cycles `valid(cycle)` says, the port ready on
    /// `ready(cycle)`); checks every write is aligned and every byte lands once, where it belongs, and
    /// nothing else is written. Returns the cycles until the last word was accepted.
    fn run<const W: usize, const B: usize>(
        bursts: &[Burst],
        valid: fn(u64) -> bool,
        ready: fn(u64) -> bool,
    ) -> u64 {
        run_with::<W, B>(bursts, valid, ready, false)
    }

    /// [`run`]; with `disturb`, every word after a burst's first is offered with the other mode and
    /// another list (an engine whose READ context was withdrawn mid-packet): the burst must not notice.
    fn run_with<const W: usize, const B: usize>(
        bursts: &[Burst],
        valid: fn(u64) -> bool,
        ready: fn(u64) -> bool,
        disturb: bool,
    ) -> u64 {
        let mut words_in = Vec::new();
        let mut want = BTreeMap::new();
        for (n, b) in bursts.iter().enumerate() {
            let payload: Vec<u8> = (0..b.len).map(|i| (i * 7 + 3 + n * 31) as u8).collect();
            for (i, &x) in payload.iter().enumerate() {
                let o = b.off + i as u64;
                let at = if b.list.is_empty() {
                    o
                } else {
                    dest(&b.list, o)
                };
                assert!(want.insert(at, x).is_none(), "bursts overlap");
            }
            let nwords = b.len.div_ceil(B);
            for j in 0..nwords {
                let mut data: Bits<W> = 0.into();
                let mut strb = 0u64;
                for l in 0..B {
                    if let Some(&x) = payload.get(j * B + l) {
                        data = data | (bit_cast::<W, 8>((x as u64).into()) << (8 * l) as u64);
                        strb |= 1 << l;
                    }
                }
                let mut sb: Bits<B> = 0.into();
                for l in 0..B {
                    if strb >> l & 1 != 0 {
                        sb = sb | (bit_cast::<B, 8>(1u64.into()) << l as u64);
                    }
                }
                words_in.push((
                    b.off + (j * B) as u64,
                    data,
                    sb,
                    j + 1 == nwords,
                    !b.list.is_empty(),
                    encode(&b.list),
                    b.list.len() as u64,
                    j == 0,
                ));
            }
        }
        let seen = Arc::new(Mutex::new((BTreeMap::new(), 0u64)));
        let s2 = seen.clone();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<Chain<W, B>>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<Chain<W, B>>| {
            let mut x = sim.init()?;
            wait_clock_true!(sim, clock, x);
            let mut k = 0;
            let mut cycle = 0u64;
            // The unit reads a list a cycle late: as the engines do, a new list goes in place a cycle
            // before the first word that uses it (here a cycle with nothing offered; the first one
            // before the count starts).
            let other = encode(&[(0xF000_0000, 3), (0xE000_0000, 1000)]);
            let mut shown = (words_in[0].5, words_in[0].6);
            x.sgl.next = shown.0;
            x.sgl_n.next = shown.1.into();
            wait_clock_false!(sim, clock, x);
            wait_clock_true!(sim, clock, x);
            while k < words_in.len() {
                assert!(cycle < 8 * words_in.len() as u64 + 40, "stalled");
                let (addr, data, strb, last, sc, sgl, n, first) = words_in[k];
                let mut v = valid(cycle);
                if sc && first && (sgl, n) != shown {
                    v = false;
                }
                let (mut sc_in, mut sgl_in, mut n_in) = (sc, sgl, n);
                if disturb && !first {
                    (sc_in, sgl_in, n_in) = (!sc, other, 2);
                }
                shown = (sgl_in, n_in);
                x.in_valid.next = v;
                x.in_addr.next = addr.into();
                x.in_data.next = data;
                x.in_strb.next = strb;
                x.in_last.next = last;
                x.in_scatter.next = sc_in;
                x.sgl.next = sgl_in;
                x.sgl_n.next = n_in.into();
                x.out_ready.next = ready(cycle);
                wait_clock_false!(sim, clock, x);
                if x.out_valid.val() && x.out_ready.val() {
                    let mut s = s2.lock().unwrap();
                    let a = x.out_addr.val().to_u64();
                    assert_eq!(a % B as u64, 0, "unaligned write at {a:#x}");
                    assert!(
                        x.out_strb.val().any(),
                        "a write with no byte enabled at {a:#x}"
                    );
                    for l in 0..B {
                        if x.out_strb.val().get_bit(l) {
                            let byte = x.out_data.val().get_bits::<8>(8 * l).to_u64() as u8;
                            assert!(
                                s.0.insert(a + l as u64, byte).is_none(),
                                "byte {:#x} written twice",
                                a + l as u64
                            );
                        }
                    }
                }
                if v && x.in_ready.val() {
                    k += 1;
                }
                wait_clock_true!(sim, clock, x);
                cycle += 1;
            }
            s2.lock().unwrap().1 = cycle;
            x.in_valid.next = false;
            // Let a last spill word out.
            for _ in 0..4 {
                x.out_ready.next = true;
                wait_clock_false!(sim, clock, x);
                if x.out_valid.val() {
                    let mut s = s2.lock().unwrap();
                    let a = x.out_addr.val().to_u64();
                    for l in 0..B {
                        if x.out_strb.val().get_bit(l) {
                            let byte = x.out_data.val().get_bits::<8>(8 * l).to_u64() as u8;
                            assert!(s.0.insert(a + l as u64, byte).is_none());
                        }
                    }
                }
                wait_clock_true!(sim, clock, x);
            }
            sim.done(x)
        });
        let mut uut = Chain::<W, B>::default();
        uut.connect_all();
        sim.run(Box::new(uut), 10_000_000).unwrap();
        let r = seen.lock().unwrap().clone();
        assert_eq!(r.0, want, "bursts {bursts:?}");
        r.1
    }

    /// A message of `total` bytes cut into packets of `mtu` bytes, each one burst.
    fn message(list: &[(u64, u32)], mtu: usize) -> Vec<Burst> {
        let total: usize = list.iter().map(|e| e.1 as usize).sum();
        let mut v = Vec::new();
        let mut off = 0;
        while off < total {
            let len = mtu.min(total - off);
            v.push(Burst {
                list: list.to_vec(),
                off: off as u64,
                len,
            });
            off += len;
        }
        v
    }

    /// Lists with empty, one-byte and odd-length entries at odd addresses, in shuffled order.
    fn lists() -> Vec<Vec<(u64, u32)>> {
        vec![
            vec![(0x1003, 5), (0x2000, 11)],
            vec![(0x1000, 0), (0x2005, 1), (0x3007, 70), (0x4001, 3)],
            vec![(0x5011, 200), (0x1000, 0), (0x2000, 0), (0x3013, 129)],
            vec![(0x9000, 64), (0x7000, 64), (0x8001, 63), (0x6003, 65)],
            vec![(0x1001, 1), (0x2002, 2), (0x3003, 3), (0x4004, 4)],
            vec![(0x4007, 300)],
        ]
    }

    #[test]
    fn scattered_messages_land_byte_for_byte() {
        for list in lists() {
            for mtu in [5, 8, 13, 64, 256] {
                run::<64, 8>(&message(&list, mtu), |_| true, |_| true);
                run::<512, 64>(&message(&list, mtu), |_| true, |_| true);
            }
        }
    }

    #[test]
    fn stalls_at_both_ends() {
        for list in lists() {
            run::<64, 8>(&message(&list, 17), |c| c % 3 != 2, |c| c % 4 != 1);
            run::<512, 64>(&message(&list, 100), |c| c % 2 == 0, |c| c % 3 != 0);
        }
    }

    #[test]
    fn plain_bursts_between_scattered_ones_and_a_new_list_each_message() {
        // A WRITE's payload between two SEND messages with different lists, and the second message
        // starting while the unit still points into the first list's last entries.
        let a = vec![(0x1000, 0), (0x2003, 9), (0x3000, 30)];
        let b = vec![(0x7005, 20), (0x8000, 0), (0x9001, 7)];
        let mut bursts = message(&a, 16);
        bursts.push(Burst {
            list: vec![],
            off: 0x5003,
            len: 40,
        });
        bursts.extend(message(&b, 16));
        bursts.push(Burst {
            list: vec![],
            off: 0x6000,
            len: 8,
        });
        run::<64, 8>(&bursts, |_| true, |c| c % 5 != 3);
        run::<512, 64>(&bursts, |_| true, |_| true);
    }

    #[test]
    fn a_burst_keeps_the_mode_and_list_it_started_with() {
        // The engine's inputs change mid-burst (a READ context withdrawn as the requester goes back):
        // scattered bursts must stay scattered over their own list, plain ones plain.
        let a = vec![(0x1001, 37), (0x2000, 0), (0x3005, 90), (0x4000, 33)];
        let mut bursts = message(&a, 24);
        bursts.push(Burst {
            list: vec![],
            off: 0x5003,
            len: 40,
        });
        bursts.extend(message(&[(0x8003, 100), (0x9000, 20)], 50));
        run_with::<64, 8>(&bursts, |_| true, |c| c % 3 != 0, true);
        let mut wide = message(&[(0x1001, 300), (0x3005, 0), (0x4003, 200)], 256);
        wide.push(Burst {
            list: vec![],
            off: 0x5003,
            len: 200,
        });
        run_with::<512, 64>(&wide, |c| c % 4 != 3, |_| true, true);
    }

    #[test]
    fn packets_of_two_messages_interleaved() {
        // Two QPs' SENDs arriving packet by packet in turn, each into its own list: every burst must
        // use the list it comes with, whatever the previous one used.
        let a = vec![(0x1001, 37), (0x2000, 0), (0x3005, 90), (0x4000, 33)];
        let b = vec![(0x8003, 100), (0x9000, 20), (0xA007, 40)];
        for mtu in [16, 24, 50] {
            let (ma, mb) = (message(&a, mtu), message(&b, mtu));
            let mut bursts = Vec::new();
            for i in 0..ma.len().max(mb.len()) {
                bursts.extend(ma.get(i).cloned());
                bursts.extend(mb.get(i).cloned());
            }
            run::<64, 8>(&bursts, |_| true, |c| c % 3 != 0);
            run::<512, 64>(&bursts, |c| c % 4 != 3, |_| true);
        }
    }

    #[test]
    fn cycle_cost_is_one_per_boundary_inside_a_word() {
        // Plain: one cycle a word (the realigner adds one for a spill word at the end).
        let plain = [Burst {
            list: vec![],
            off: 0x1000,
            len: 64,
        }];
        assert_eq!(run::<64, 8>(&plain, |_| true, |_| true), 8);
        // One list of two entries, boundary inside word 2 (byte 20): one cycle more. (The second entry
        // sits where its words need no spill word in the realigner.)
        let cut = message(&[(0x1000, 20), (0x2004, 44)], 64);
        assert_eq!(run::<64, 8>(&cut, |_| true, |_| true), 9);
        // Boundary on a word edge: no cost (the entry is left with the word that ends it).
        let edge = message(&[(0x1000, 24), (0x2000, 40)], 64);
        assert_eq!(run::<64, 8>(&edge, |_| true, |_| true), 8);
        // An empty entry costs nothing.
        let empty = message(&[(0x1000, 24), (0x3000, 0), (0x2000, 40)], 64);
        assert_eq!(run::<64, 8>(&empty, |_| true, |_| true), 8);
    }
}
