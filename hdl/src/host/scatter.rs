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
//! piece's last word: one cycle per boundary inside a word, nothing else (the entry a word starts in is
//! found from the list's running lengths for every word, so empty entries cost nothing and consecutive
//! bursts may use different lists, as packets of several QPs' SENDs do). Other bursts (a WRITE's
//! payload, atomics, a one-buffer receive or READ) pass through unchanged.
//!
//! Three registered stages, at most 6 LUT levels each at 512 bits, every word through all three (three
//! cycles from input to output, no bubble): (A) as a word is taken, its distance from the end of each
//! entry (the entry's end in the message less the word's offset, 33 bits signed); (B) which entries end
//! after its lane 0 (the entry it starts in), which end inside it, each such entry's lane mask, and the
//! low half of its address in each entry with the carry into the high half; (C) the high halves, then
//! the word offered once per piece: the entry the piece is in and the lanes already written are the
//! stage's state, and the entry the next piece goes to is the next non-empty one, known from the list.
//! A stage takes a word when the one after it is free or frees this cycle; `in_ready` is the first
//! stage's. The list's ends are 32-bit offsets: a message is at most 2^31 bytes.
//!
//! The list is the WQE's list area as the engine holds it (`MAX_SGE` entries of 16 bytes: address u64,
//! length u32, lkey u32, `rocenic_proto::host::sge`), in place a cycle before a burst's first word; the
//! unit keeps the mode and the list a burst started with until its last word, whatever its inputs do
//! meanwhile (the transmit engine may withdraw a READ context while its response is being written). The engines guarantee
//! that the WQE's length (at most 2^31, IBA's largest message) is the sum of the first `sgl_n` lengths and that a packet fits what is left of it
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
    /// No word is in the unit (every stage empty; registered): a completion posted now cannot
    /// overtake a payload word on its way to the host.
    pub idle: Signal<Out, bool>,
    /// The list, digested a cycle ahead so no sum of lengths sits on a word's path: message offsets
    /// where entries 0, 1 and 2 end, the entries' addresses, the count, and for entries 0..2 the entry
    /// a piece goes to after one ends there (the next non-empty one, or the last counted), 2 bits each.
    end0: DFF<Bits<32>>,
    end1: DFF<Bits<32>>,
    /// Entry 2's length, and entry 3's address's low half less it (33 bits signed): entry 3 starts
    /// where entry 2 ends, and no sum of three lengths is needed.
    len2_q: DFF<Bits<32>>,
    a3lo: DFF<Bits<33>>,
    addr0: DFF<Bits<64>>,
    addr1: DFF<Bits<64>>,
    addr2: DFF<Bits<64>>,
    addr3: DFF<Bits<64>>,
    n: DFF<Bits<3>>,
    nxt: DFF<Bits<6>>,
    /// A burst is under way at the input (its first word went, its last has not): it keeps the mode
    /// and the list it started with, whatever the engine's inputs do meanwhile.
    held: DFF<bool>,
    held_scatter: DFF<bool>,
    // Stage A: the word (a plain word's address whole), its offset's low half, its distances from
    // entries 0..2's ends, and its list's addresses, count and next entries.
    a_v: DFF<bool>,
    a_data: DFF<Bits<W>>,
    a_strb: DFF<Bits<B>>,
    a_last: DFF<bool>,
    a_sc: DFF<bool>,
    a_paddr: DFF<Bits<64>>,
    a_m: DFF<Bits<32>>,
    a_d0: DFF<Bits<33>>,
    a_d1: DFF<Bits<33>>,
    a_len2: DFF<Bits<32>>,
    a_a3lo: DFF<Bits<33>>,
    a_addr0: DFF<Bits<64>>,
    a_addr1: DFF<Bits<64>>,
    a_addr2: DFF<Bits<64>>,
    a_addr3: DFF<Bits<64>>,
    a_n: DFF<Bits<3>>,
    a_nxt: DFF<Bits<6>>,
    // Stage B: the entry lane 0 is in, whether entries 0..2 end inside the word (and are not the last
    // counted), their lane masks and the lanes before their ends; the word's address in each entry as a
    // low half, the carry into the high half (two bits: 0, +1 or -1) and the high half before it.
    b_v: DFF<bool>,
    b_data: DFF<Bits<W>>,
    b_strb: DFF<Bits<B>>,
    b_last: DFF<bool>,
    b_sc: DFF<bool>,
    b_paddr: DFF<Bits<64>>,
    b_e0: DFF<Bits<2>>,
    b_ends0: DFF<bool>,
    b_ends1: DFF<bool>,
    b_mask0: DFF<Bits<B>>,
    b_mask1: DFF<Bits<B>>,
    b_rel0: DFF<Bits<8>>,
    b_rel1: DFF<Bits<8>>,
    /// Entry 2's distance, one add after entry 1's (its facts are worked out on the way into C).
    b_d2: DFF<Bits<33>>,
    b_n: DFF<Bits<3>>,
    b_lo0: DFF<Bits<35>>,
    b_lo1: DFF<Bits<35>>,
    b_lo2: DFF<Bits<35>>,
    b_lo3: DFF<Bits<35>>,
    b_hi0: DFF<Bits<32>>,
    b_hi1: DFF<Bits<32>>,
    b_hi2: DFF<Bits<32>>,
    b_hi3: DFF<Bits<32>>,
    b_nxt: DFF<Bits<6>>,
    // Stage C: the word as offered; `e` the entry of the piece, `cut` the lanes already written, and
    // whether the word has lanes past each entry's end.
    c_v: DFF<bool>,
    c_data: DFF<Bits<W>>,
    c_strb: DFF<Bits<B>>,
    c_last: DFF<bool>,
    c_sc: DFF<bool>,
    c_paddr: DFF<Bits<64>>,
    c_ends0: DFF<bool>,
    c_ends1: DFF<bool>,
    c_ends2: DFF<bool>,
    c_rem0: DFF<bool>,
    c_rem1: DFF<bool>,
    c_rem2: DFF<bool>,
    c_mask0: DFF<Bits<B>>,
    c_mask1: DFF<Bits<B>>,
    c_mask2: DFF<Bits<B>>,
    c_rel0: DFF<Bits<8>>,
    c_rel1: DFF<Bits<8>>,
    c_rel2: DFF<Bits<8>>,
    c_at0: DFF<Bits<64>>,
    c_at1: DFF<Bits<64>>,
    c_at2: DFF<Bits<64>>,
    c_at3: DFF<Bits<64>>,
    c_nxt: DFF<Bits<6>>,
    e: DFF<Bits<2>>,
    cut: DFF<Bits<8>>,
    /// This word's mode: `in_scatter`, or the burst's.
    word_scatter: Signal<Local, bool>,
    /// The next cycle is inside a burst: the list digest stands still at this edge.
    held_n: Signal<Local, bool>,
    len0: Signal<Local, Bits<32>>,
    len1: Signal<Local, Bits<32>>,
    len2: Signal<Local, Bits<32>>,
    s_end1: Signal<Local, Bits<32>>,
    nz1: Signal<Local, bool>,
    nz2: Signal<Local, bool>,
    nxt0: Signal<Local, Bits<2>>,
    nxt1: Signal<Local, Bits<2>>,
    m: Signal<Local, Bits<33>>,
    /// Stage B's view of A: entries 0..2 end after the word's lane 0, and at or before its end; the
    /// distances sign-extended for the address sums.
    pos0: Signal<Local, bool>,
    pos1: Signal<Local, bool>,
    pos2: Signal<Local, bool>,
    rel2: Signal<Local, Bits<8>>,
    ends2: Signal<Local, bool>,
    in0: Signal<Local, bool>,
    in1: Signal<Local, bool>,
    in2: Signal<Local, bool>,
    sx0: Signal<Local, Bits<35>>,
    sx1: Signal<Local, Bits<35>>,
    sx3: Signal<Local, Bits<35>>,
    /// Stage C's view of B: the carries as 32-bit addends.
    cy0: Signal<Local, Bits<32>>,
    cy1: Signal<Local, Bits<32>>,
    cy2: Signal<Local, Bits<32>>,
    cy3: Signal<Local, Bits<32>>,
    past0: Signal<Local, Bits<B>>,
    past1: Signal<Local, Bits<B>>,
    past2: Signal<Local, Bits<B>>,
    hi0: Signal<Local, Bits<32>>,
    hi1: Signal<Local, Bits<32>>,
    hi2: Signal<Local, Bits<32>>,
    hi3: Signal<Local, Bits<32>>,
    /// The offered piece: its entry ends in this word, the word has lanes past it, the lanes it keeps.
    ends: Signal<Local, bool>,
    rem: Signal<Local, bool>,
    end_mask: Signal<Local, Bits<B>>,
    c_done: Signal<Local, bool>,
    c_free: Signal<Local, bool>,
    b_free: Signal<Local, bool>,
    a_free: Signal<Local, bool>,
    take: Signal<Local, bool>,
    /// Bit offsets of entries 0..3's lengths and addresses in the list.
    sh_len0: Constant<Bits<16>>,
    sh_len1: Constant<Bits<16>>,
    sh_len2: Constant<Bits<16>>,
    sh_addr1: Constant<Bits<16>>,
    sh_addr2: Constant<Bits<16>>,
    sh_addr3: Constant<Bits<16>>,
    beat_bytes: Constant<Bits<33>>,
    /// Bits of a distance above a lane index (below them: B - 1).
    above_lane: Constant<Bits<33>>,
    ones: Constant<Bits<B>>,
    /// Bits 33 and 34 of a 35-bit sum (a negative 33-bit value's sign extension).
    sign35: Constant<Bits<35>>,
    /// Bits 3..31 of a carry widened to 32 bits (set for a negative one).
    above_cy: Constant<Bits<32>>,
    /// The low 32 bits of an address.
    lo32: Constant<Bits<64>>,
    /// Entry 2's next entry: 3, in bits 4..5 of `nxt`.
    nxt_last: Constant<Bits<6>>,
}

impl<const W: usize, const B: usize> Default for Scatter<W, B> {
    fn default() -> Self {
        use rocenic_proto::host::sge;
        assert_eq!(W, 8 * B);
        assert!(B <= 128);
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
            idle: Default::default(),
            end0: Default::default(),
            end1: Default::default(),
            len2_q: Default::default(),
            a3lo: Default::default(),
            addr0: Default::default(),
            addr1: Default::default(),
            addr2: Default::default(),
            addr3: Default::default(),
            n: Default::default(),
            nxt: Default::default(),
            held: Default::default(),
            held_scatter: Default::default(),
            a_v: Default::default(),
            a_data: Default::default(),
            a_strb: Default::default(),
            a_last: Default::default(),
            a_sc: Default::default(),
            a_paddr: Default::default(),
            a_m: Default::default(),
            a_d0: Default::default(),
            a_d1: Default::default(),
            a_len2: Default::default(),
            a_a3lo: Default::default(),
            a_addr0: Default::default(),
            a_addr1: Default::default(),
            a_addr2: Default::default(),
            a_addr3: Default::default(),
            a_n: Default::default(),
            a_nxt: Default::default(),
            b_v: Default::default(),
            b_data: Default::default(),
            b_strb: Default::default(),
            b_last: Default::default(),
            b_sc: Default::default(),
            b_paddr: Default::default(),
            b_e0: Default::default(),
            b_ends0: Default::default(),
            b_ends1: Default::default(),
            b_mask0: Default::default(),
            b_mask1: Default::default(),
            b_rel0: Default::default(),
            b_rel1: Default::default(),
            b_d2: Default::default(),
            b_n: Default::default(),
            b_lo0: Default::default(),
            b_lo1: Default::default(),
            b_lo2: Default::default(),
            b_lo3: Default::default(),
            b_hi0: Default::default(),
            b_hi1: Default::default(),
            b_hi2: Default::default(),
            b_hi3: Default::default(),
            b_nxt: Default::default(),
            c_v: Default::default(),
            c_data: Default::default(),
            c_strb: Default::default(),
            c_last: Default::default(),
            c_sc: Default::default(),
            c_paddr: Default::default(),
            c_ends0: Default::default(),
            c_ends1: Default::default(),
            c_ends2: Default::default(),
            c_rem0: Default::default(),
            c_rem1: Default::default(),
            c_rem2: Default::default(),
            c_mask0: Default::default(),
            c_mask1: Default::default(),
            c_mask2: Default::default(),
            c_rel0: Default::default(),
            c_rel1: Default::default(),
            c_rel2: Default::default(),
            c_at0: Default::default(),
            c_at1: Default::default(),
            c_at2: Default::default(),
            c_at3: Default::default(),
            c_nxt: Default::default(),
            e: Default::default(),
            cut: Default::default(),
            word_scatter: Default::default(),
            held_n: Default::default(),
            len0: Default::default(),
            len1: Default::default(),
            len2: Default::default(),
            s_end1: Default::default(),
            nz1: Default::default(),
            nz2: Default::default(),
            nxt0: Default::default(),
            nxt1: Default::default(),
            m: Default::default(),
            pos0: Default::default(),
            pos1: Default::default(),
            pos2: Default::default(),
            rel2: Default::default(),
            ends2: Default::default(),
            in0: Default::default(),
            in1: Default::default(),
            in2: Default::default(),
            sx0: Default::default(),
            sx1: Default::default(),
            sx3: Default::default(),
            cy0: Default::default(),
            cy1: Default::default(),
            cy2: Default::default(),
            cy3: Default::default(),
            past0: Default::default(),
            past1: Default::default(),
            past2: Default::default(),
            hi0: Default::default(),
            hi1: Default::default(),
            hi2: Default::default(),
            hi3: Default::default(),
            ends: Default::default(),
            rem: Default::default(),
            end_mask: Default::default(),
            c_done: Default::default(),
            c_free: Default::default(),
            b_free: Default::default(),
            a_free: Default::default(),
            take: Default::default(),
            sh_len0: sh_len(0),
            sh_len1: sh_len(1),
            sh_len2: sh_len(2),
            sh_addr1: sh_addr(1),
            sh_addr2: sh_addr(2),
            sh_addr3: sh_addr(3),
            beat_bytes: Constant::new((B as u64).into()),
            above_lane: Constant::new(Bits::<33>::mask() & !bits::<33>(B as u64 - 1)),
            ones: Constant::new(Bits::<B>::mask()),
            sign35: Constant::new(bits::<35>(3) << 33),
            above_cy: Constant::new(Bits::<32>::mask() & !bits::<32>(7)),
            lo32: Constant::new(bits::<64>(0xFFFF_FFFF)),
            nxt_last: Constant::new(bits::<6>(3 << 4)),
        }
    }
}

impl<const W: usize, const B: usize> Logic for Scatter<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            end0,
            end1,
            len2_q,
            a3lo,
            addr0,
            addr1,
            addr2,
            addr3,
            n,
            nxt,
            held,
            held_scatter,
            a_v,
            a_data,
            a_strb,
            a_last,
            a_sc,
            a_paddr,
            a_m,
            a_d0,
            a_d1,
            a_len2,
            a_a3lo,
            a_addr0,
            a_addr1,
            a_addr2,
            a_addr3,
            a_n,
            a_nxt,
            b_v,
            b_data,
            b_strb,
            b_last,
            b_sc,
            b_paddr,
            b_e0,
            b_ends0,
            b_ends1,
            b_mask0,
            b_mask1,
            b_rel0,
            b_rel1,
            b_d2,
            b_n,
            b_lo0,
            b_lo1,
            b_lo2,
            b_lo3,
            b_hi0,
            b_hi1,
            b_hi2,
            b_hi3,
            b_nxt,
            c_v,
            c_data,
            c_strb,
            c_last,
            c_sc,
            c_paddr,
            c_ends0,
            c_ends1,
            c_ends2,
            c_rem0,
            c_rem1,
            c_rem2,
            c_mask0,
            c_mask1,
            c_mask2,
            c_rel0,
            c_rel1,
            c_rel2,
            c_at0,
            c_at1,
            c_at2,
            c_at3,
            c_nxt,
            e,
            cut
        );
        // The list, a cycle ahead: where each entry ends in the message (the last one counted is never
        // cut, so its end and those of entries after it do not matter), the entries' addresses, and
        // where a piece goes after one ends: the next entry not empty, or the last counted.
        // (Shift amounts as 16-bit signals: a literal beside a 512-bit value does not emit.)
        self.len0.next = bit_cast::<32, 512>(self.sgl.val() >> self.sh_len0.val());
        self.len1.next = bit_cast::<32, 512>(self.sgl.val() >> self.sh_len1.val());
        self.len2.next = bit_cast::<32, 512>(self.sgl.val() >> self.sh_len2.val());
        self.s_end1.next = self.len0.val() + self.len1.val();
        self.nz1.next = self.len1.val() != 0;
        self.nz2.next = self.len2.val() != 0;
        self.nxt1.next = 3.into();
        if self.nz2.val() || (self.sgl_n.val() <= 3) {
            self.nxt1.next = 2.into();
        }
        self.nxt0.next = self.nxt1.val();
        if self.nz1.val() || (self.sgl_n.val() <= 2) {
            self.nxt0.next = 1.into();
        }

        // The input: a word takes the burst's mode, and the digest stands still from a burst's first
        // word to its last.
        self.word_scatter.next = self.in_scatter.val();
        if self.held.q.val() {
            self.word_scatter.next = self.held_scatter.q.val();
        }
        self.c_done.next = false;
        self.c_free.next = true;
        self.b_free.next = true;
        self.a_free.next = true;
        self.take.next = false;

        // Stage C: the word offered, a piece at a time.
        self.ends.next = ((self.e.q.val() == 0) && self.c_ends0.q.val())
            || ((self.e.q.val() == 1) && self.c_ends1.q.val())
            || ((self.e.q.val() == 2) && self.c_ends2.q.val());
        self.rem.next = ((self.e.q.val() == 0) && self.c_rem0.q.val())
            || ((self.e.q.val() == 1) && self.c_rem1.q.val())
            || ((self.e.q.val() == 2) && self.c_rem2.q.val());
        self.end_mask.next = self.ones.val();
        if self.ends.val() {
            self.end_mask.next = self.c_mask2.q.val();
            if self.e.q.val() == 0 {
                self.end_mask.next = self.c_mask0.q.val();
            }
            if self.e.q.val() == 1 {
                self.end_mask.next = self.c_mask1.q.val();
            }
        }
        self.out_valid.next = self.c_v.q.val();
        self.idle.next = !(self.a_v.q.val() || self.b_v.q.val() || self.c_v.q.val());
        self.out_data.next = self.c_data.q.val();
        self.out_strb.next =
            self.c_strb.q.val() & (self.ones.val() << self.cut.q.val()) & self.end_mask.val();
        self.out_last.next = (self.c_last.q.val() && !self.rem.val()) || self.ends.val();
        self.out_addr.next = self.c_paddr.q.val();
        if self.c_sc.q.val() {
            // The piece's words go where the entry holds their lane 0's offset.
            self.out_addr.next = self.c_at3.q.val();
            if self.e.q.val() == 0 {
                self.out_addr.next = self.c_at0.q.val();
            }
            if self.e.q.val() == 1 {
                self.out_addr.next = self.c_at1.q.val();
            }
            if self.e.q.val() == 2 {
                self.out_addr.next = self.c_at2.q.val();
            }
        }
        if self.c_v.q.val() && self.out_ready.val() {
            if self.rem.val() {
                // Offer the word again from the boundary, to the next entry.
                self.cut.d.next = self.c_rel2.q.val();
                self.e.d.next = bit_cast::<2, 6>(self.c_nxt.q.val() >> 4);
                if self.e.q.val() == 0 {
                    self.cut.d.next = self.c_rel0.q.val();
                    self.e.d.next = bit_cast::<2, 6>(self.c_nxt.q.val());
                }
                if self.e.q.val() == 1 {
                    self.cut.d.next = self.c_rel1.q.val();
                    self.e.d.next = bit_cast::<2, 6>(self.c_nxt.q.val() >> 2);
                }
            } else {
                self.c_done.next = true;
            }
        }
        self.c_free.next = !self.c_v.q.val() || self.c_done.val();
        self.b_free.next = !self.b_v.q.val() || self.c_free.val();
        self.a_free.next = !self.a_v.q.val() || self.b_free.val();
        self.in_ready.next = self.a_free.val();
        self.take.next = self.in_valid.val() && self.a_free.val();

        // B to C: the high halves of the addresses, and whether the word has lanes past each entry.
        // (A carry of -2..1: bits 34..32 of the sum, sign-extended.)
        self.cy0.next = bit_cast::<32, 35>(self.b_lo0.q.val() >> 32);
        self.cy1.next = bit_cast::<32, 35>(self.b_lo1.q.val() >> 32);
        self.cy2.next = bit_cast::<32, 35>(self.b_lo2.q.val() >> 32);
        self.cy3.next = bit_cast::<32, 35>(self.b_lo3.q.val() >> 32);
        if self.b_lo1.q.val().get_bit(34) {
            self.cy1.next = self.cy1.val() | self.above_cy.val();
        }
        if self.b_lo2.q.val().get_bit(34) {
            self.cy2.next = self.cy2.val() | self.above_cy.val();
        }
        if self.b_lo3.q.val().get_bit(34) {
            self.cy3.next = self.cy3.val() | self.above_cy.val();
        }
        // Entry 2's facts from its distance, as stage B works out entries 0's and 1's.
        self.pos2.next = !self.b_d2.q.val().get_bit(32) && (self.b_d2.q.val() != 0);
        self.in2.next = self.pos2.val()
            && (((self.b_d2.q.val() & self.above_lane.val()) == 0)
                || (self.b_d2.q.val() == self.beat_bytes.val()));
        self.rel2.next = bit_cast::<8, 33>(self.b_d2.q.val());
        self.ends2.next = self.b_sc.q.val() && self.in2.val() && (self.b_n.q.val() > 3);
        // The lanes past each entry's end, and the high halves with their carries: worked out at
        // their own widths (so no operator is widened to the 32-bit literal it is compared with).
        self.past0.next = self.b_strb.q.val() & !self.b_mask0.q.val();
        self.past1.next = self.b_strb.q.val() & !self.b_mask1.q.val();
        self.past2.next = self.b_strb.q.val() & (self.ones.val() << self.rel2.val());
        self.hi0.next = self.b_hi0.q.val() + self.cy0.val();
        self.hi1.next = self.b_hi1.q.val() + self.cy1.val();
        self.hi2.next = self.b_hi2.q.val() + self.cy2.val();
        self.hi3.next = self.b_hi3.q.val() + self.cy3.val();
        if self.c_free.val() {
            self.c_v.d.next = self.b_v.q.val();
            self.cut.d.next = 0.into();
            self.e.d.next = self.b_e0.q.val();
            if self.b_sc.q.val() && (self.b_n.q.val() > 3) && !self.pos2.val() {
                self.e.d.next = 3.into();
            }
            self.c_data.d.next = self.b_data.q.val();
            self.c_strb.d.next = self.b_strb.q.val();
            self.c_last.d.next = self.b_last.q.val();
            self.c_sc.d.next = self.b_sc.q.val();
            self.c_paddr.d.next = self.b_paddr.q.val();
            self.c_ends0.d.next = self.b_ends0.q.val();
            self.c_ends1.d.next = self.b_ends1.q.val();
            self.c_ends2.d.next = self.ends2.val();
            self.c_rem0.d.next = self.b_ends0.q.val() && (self.past0.val() != 0);
            self.c_rem1.d.next = self.b_ends1.q.val() && (self.past1.val() != 0);
            self.c_rem2.d.next = self.ends2.val() && (self.past2.val() != 0);
            self.c_mask0.d.next = self.b_mask0.q.val();
            self.c_mask1.d.next = self.b_mask1.q.val();
            self.c_mask2.d.next = !(self.ones.val() << self.rel2.val());
            self.c_rel0.d.next = self.b_rel0.q.val();
            self.c_rel1.d.next = self.b_rel1.q.val();
            self.c_rel2.d.next = self.rel2.val();
            self.c_at0.d.next = (bit_cast::<64, 32>(self.hi0.val()) << 32)
                | bit_cast::<64, 32>(bit_cast::<32, 35>(self.b_lo0.q.val()));
            self.c_at1.d.next = (bit_cast::<64, 32>(self.hi1.val()) << 32)
                | bit_cast::<64, 32>(bit_cast::<32, 35>(self.b_lo1.q.val()));
            self.c_at2.d.next = (bit_cast::<64, 32>(self.hi2.val()) << 32)
                | bit_cast::<64, 32>(bit_cast::<32, 35>(self.b_lo2.q.val()));
            self.c_at3.d.next = (bit_cast::<64, 32>(self.hi3.val()) << 32)
                | bit_cast::<64, 32>(bit_cast::<32, 35>(self.b_lo3.q.val()));
            self.c_nxt.d.next = self.b_nxt.q.val();
        }

        // A to B: where the word starts and which entries end inside it; its address's low halves.
        // Entry k ends after lane 0 when its distance is above 0, inside the word (or at its end) when
        // also at most B; an entry that ends at or before lane 0 is passed (empty ones included), never
        // past the last counted one.
        self.pos0.next = !self.a_d0.q.val().get_bit(32) && (self.a_d0.q.val() != 0);
        self.pos1.next = !self.a_d1.q.val().get_bit(32) && (self.a_d1.q.val() != 0);
        self.in0.next = self.pos0.val()
            && (((self.a_d0.q.val() & self.above_lane.val()) == 0)
                || (self.a_d0.q.val() == self.beat_bytes.val()));
        self.in1.next = self.pos1.val()
            && (((self.a_d1.q.val() & self.above_lane.val()) == 0)
                || (self.a_d1.q.val() == self.beat_bytes.val()));
        // Sign-extended distances: entry k + 1 starts where entry k ends, so the word's offset in it
        // is minus entry k's distance.
        self.sx0.next = bit_cast::<35, 33>(self.a_d0.q.val());
        if self.a_d0.q.val().get_bit(32) {
            self.sx0.next = self.sx0.val() | self.sign35.val();
        }
        self.sx1.next = bit_cast::<35, 33>(self.a_d1.q.val());
        if self.a_d1.q.val().get_bit(32) {
            self.sx1.next = self.sx1.val() | self.sign35.val();
        }
        self.sx3.next = bit_cast::<35, 33>(self.a_a3lo.q.val());
        if self.a_a3lo.q.val().get_bit(32) {
            self.sx3.next = self.sx3.val() | self.sign35.val();
        }
        if self.b_free.val() {
            self.b_v.d.next = self.a_v.q.val();
            self.b_data.d.next = self.a_data.q.val();
            self.b_strb.d.next = self.a_strb.q.val();
            self.b_last.d.next = self.a_last.q.val();
            self.b_sc.d.next = self.a_sc.q.val();
            self.b_paddr.d.next = self.a_paddr.q.val();
            self.b_e0.d.next = 0.into();
            if self.a_sc.q.val() {
                if (self.a_n.q.val() > 1) && !self.pos0.val() {
                    self.b_e0.d.next = 1.into();
                }
                if (self.a_n.q.val() > 2) && !self.pos1.val() {
                    self.b_e0.d.next = 2.into();
                }
            }
            self.b_ends0.d.next = self.a_sc.q.val() && self.in0.val() && (self.a_n.q.val() > 1);
            self.b_ends1.d.next = self.a_sc.q.val() && self.in1.val() && (self.a_n.q.val() > 2);
            self.b_rel0.d.next = bit_cast::<8, 33>(self.a_d0.q.val());
            self.b_rel1.d.next = bit_cast::<8, 33>(self.a_d1.q.val());
            // Entry 2 ends where entry 1 does, its length on.
            self.b_d2.d.next = self.a_d1.q.val() + bit_cast::<33, 32>(self.a_len2.q.val());
            self.b_n.d.next = self.a_n.q.val();
            self.b_mask0.d.next = !(self.ones.val() << bit_cast::<8, 33>(self.a_d0.q.val()));
            self.b_mask1.d.next = !(self.ones.val() << bit_cast::<8, 33>(self.a_d1.q.val()));
            self.b_lo0.d.next = bit_cast::<35, 32>(bit_cast::<32, 64>(self.a_addr0.q.val()))
                + bit_cast::<35, 32>(self.a_m.q.val());
            self.b_lo1.d.next =
                bit_cast::<35, 32>(bit_cast::<32, 64>(self.a_addr1.q.val())) - self.sx0.val();
            self.b_lo2.d.next =
                bit_cast::<35, 32>(bit_cast::<32, 64>(self.a_addr2.q.val())) - self.sx1.val();
            // Entry 3 starts where entry 2 ends: its address less entry 2's length, less entry 1's
            // distance.
            self.b_lo3.d.next = self.sx3.val() - self.sx1.val();
            self.b_hi0.d.next = bit_cast::<32, 64>(self.a_addr0.q.val() >> 32);
            self.b_hi1.d.next = bit_cast::<32, 64>(self.a_addr1.q.val() >> 32);
            self.b_hi2.d.next = bit_cast::<32, 64>(self.a_addr2.q.val() >> 32);
            self.b_hi3.d.next = bit_cast::<32, 64>(self.a_addr3.q.val() >> 32);
            self.b_nxt.d.next = self.a_nxt.q.val();
        }

        // The input to A: the word's distance from each entry's end (one subtraction each, side by
        // side, from the digest).
        self.m.next = bit_cast::<33, 32>(bit_cast::<32, 64>(self.in_addr.val()));
        if self.a_free.val() {
            self.a_v.d.next = self.take.val();
            self.a_data.d.next = self.in_data.val();
            self.a_strb.d.next = self.in_strb.val();
            self.a_last.d.next = self.in_last.val();
            self.a_sc.d.next = self.word_scatter.val();
            self.a_paddr.d.next = self.in_addr.val();
            self.a_m.d.next = bit_cast::<32, 33>(self.m.val());
            self.a_d0.d.next = bit_cast::<33, 32>(self.end0.q.val()) - self.m.val();
            self.a_d1.d.next = bit_cast::<33, 32>(self.end1.q.val()) - self.m.val();
            self.a_len2.d.next = self.len2_q.q.val();
            self.a_a3lo.d.next = self.a3lo.q.val();
            self.a_addr0.d.next = self.addr0.q.val();
            self.a_addr1.d.next = self.addr1.q.val();
            self.a_addr2.d.next = self.addr2.q.val();
            self.a_addr3.d.next = self.addr3.q.val();
            self.a_n.d.next = self.n.q.val();
            self.a_nxt.d.next = self.nxt.q.val();
        }

        // A word taken starts or continues the burst, unless it is the last.
        self.held_n.next = self.held.q.val();
        if self.take.val() {
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
            self.len2_q.d.next = self.len2.val();
            self.a3lo.d.next = bit_cast::<33, 64>(
                bit_cast::<64, 512>(self.sgl.val() >> self.sh_addr3.val()) & self.lo32.val(),
            ) - bit_cast::<33, 32>(self.len2.val());
            self.addr0.d.next = bit_cast::<64, 512>(self.sgl.val());
            self.addr1.d.next = bit_cast::<64, 512>(self.sgl.val() >> self.sh_addr1.val());
            self.addr2.d.next = bit_cast::<64, 512>(self.sgl.val() >> self.sh_addr2.val());
            self.addr3.d.next = bit_cast::<64, 512>(self.sgl.val() >> self.sh_addr3.val());
            self.n.d.next = self.sgl_n.val();
            self.nxt.d.next = bit_cast::<6, 2>(self.nxt0.val())
                | (bit_cast::<6, 2>(self.nxt1.val()) << 2)
                | self.nxt_last.val();
        }
        if !self.held.q.val() {
            self.held_scatter.d.next = self.word_scatter.val();
        }
        if self.reset.val() {
            self.a_v.d.next = false;
            self.b_v.d.next = false;
            self.c_v.d.next = false;
            self.cut.d.next = 0.into();
            self.e.d.next = 0.into();
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
            // (Three stages here, and the realigner's spill.)
            for _ in 0..16 {
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
    fn entries_across_4_gib_and_below_their_start() {
        // Entries that cross a 4 GiB line, and entries starting a few bytes above one, reached by a
        // word that starts in the entry before: the word's lane 0 lies below the entry's start, so its
        // address there borrows from the high half (and an entry ending right below the top of the
        // address space).
        let lists = [
            vec![
                (0x2_FFFF_FFFB, 9),
                (0x4_0000_0001, 30),
                (0x3_0000_0000, 0),
                (0x7_FFFF_FFF9, 45),
            ],
            vec![
                (0x0000_0000_0000_0003, 61),
                (0x5_0000_0002, 5),
                (0xFFFF_FFFF_FFFF_FF00, 256),
            ],
            vec![
                (0x8_FFFF_FFFF, 1),
                (0x9_0000_0000, 0),
                (0xA_0000_0005, 70),
                (0xB_FFFF_FFFE, 7),
            ],
        ];
        for list in lists {
            for mtu in [5, 13, 64, 256] {
                run::<64, 8>(&message(&list, mtu), |_| true, |_| true);
                run::<512, 64>(&message(&list, mtu), |_| true, |c| c % 5 != 2);
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
