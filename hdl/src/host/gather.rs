//! Gather: lets the transmit engine read a message from a list of up to `MAX_SGE` buffers (a send WQE's
//! scatter/gather list, `ibv_send_wr` with `num_sge` > 1) as if it were one.
//!
//! The engine keeps thinking in one contiguous buffer: for a gather request its `addr` is the byte
//! offset in the message and `len` the bytes it wants (one packet's payload). This unit walks the list
//! and sends the read realigner one piece per buffer the bytes touch (`host/read_align.rs` turns each into
//! beats from any byte address), then packs the pieces' words back into one stream: each piece's words
//! start at lane 0, so the bytes left over from the previous piece (`r` lanes) go first and the new word,
//! rotated up by `r` lanes, fills the rest. A request ending with lanes left over costs one more cycle
//! (`flush`). Other requests (WQE fetches, READ responses) are one piece and pass through with `r` = 0.
//! A word that leaves nothing over while nothing is held goes straight through, unregistered (the
//! realigner's output is a register already); only packing goes through this unit's output register.
//!
//! Translation takes a state per 32-bit add or compare (`GatherState`): five cycles per piece and four
//! per entry passed over, plus one per request; only gather requests (WQEs with more than one entry)
//! pay them.
//!
//! The list is the WQE's gather area as the engine holds it (`MAX_SGE` entries of 16 bytes: address
//! u64, length u32, lkey u32, `rocenic_proto::host::sge`), stable while the engine's reads of that WQE are
//! translated. The engine guarantees the WQE's length is the sum of the first `sgl_n` lengths (else it
//! fails the WQE `LOC_LEN_ERR` before any read), so every byte of a request lies in some entry and
//! every piece inside its buffer. Lkeys are checked by the driver when it posts (as for one SGE).
use crate::prim::lane_rotate::LaneRotate;
use rust_hdl::prelude::*;

/// Entries of a gather list: a 128-byte send WQE has 64 bytes of header and room for 4.
pub const MAX_SGE: usize = 4;
/// Pieces in flight between translation and packing (the realigner holds at most 8, plus its output
/// register).
const DEPTH: u64 = 16;

/// Translating a gather request: `Start` decides whether the walk restarts at the first entry; each
/// piece then takes `Sel` (the entry's fields registered), `Look`, `Cmp`, `Cut` and `Issue`, and each
/// entry passed over `Sel`, `Look`, `Cmp` and `Cut`.
#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
enum GatherState {
    Idle,
    Start,
    Sel,
    Look,
    Cmp,
    Cut,
    Issue,
}

#[derive(LogicBlock)]
pub struct Gather<const W: usize, const B: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    // The engine's request: bytes [addr, addr + len), len > 0; `gather`: addr is a message offset.
    pub req_in_valid: Signal<In, bool>,
    pub req_in_ready: Signal<Out, bool>,
    pub req_in_addr: Signal<In, Bits<64>>,
    pub req_in_len: Signal<In, Bits<16>>,
    pub req_in_gather: Signal<In, bool>,
    /// The gather list and how many of its entries count.
    pub sgl: Signal<In, Bits<512>>,
    pub sgl_n: Signal<In, Bits<3>>,
    /// The engine loaded another list (another WQE, or the same one fetched again for go-back-N): the
    /// next gather request walks it from its first entry, whatever its offset.
    pub sgl_new: Signal<In, bool>,
    // One read per piece, to the realigner.
    pub req_out_valid: Signal<Out, bool>,
    pub req_out_ready: Signal<In, bool>,
    pub req_out_addr: Signal<Out, Bits<64>>,
    pub req_out_len: Signal<Out, Bits<16>>,
    // The realigner's words: each piece from lane 0, `last` on its last word.
    pub resp_in_valid: Signal<In, bool>,
    pub resp_in_ready: Signal<Out, bool>,
    pub resp_in_data: Signal<In, Bits<W>>,
    pub resp_in_last: Signal<In, bool>,
    // Packed words to the engine, `last` on its request's last word.
    pub resp_out_valid: Signal<Out, bool>,
    pub resp_out_ready: Signal<In, bool>,
    pub resp_out_data: Signal<Out, Bits<W>>,
    pub resp_out_last: Signal<Out, bool>,
    /// Translation of a gather request: `t_off` the next message byte, `t_rem` bytes left, entry
    /// `t_idx` starting at message byte `t_base`.
    state: DFF<GatherState>,
    t_off: DFF<Bits<32>>,
    t_rem: DFF<Bits<16>>,
    t_idx: DFF<Bits<2>>,
    t_base: DFF<Bits<32>>,
    /// Entry `t_idx`'s address and length.
    e_addr: DFF<Bits<64>>,
    e_len: DFF<Bits<32>>,
    /// `Look`: the message byte past the entry, `t_off`'s offset in it, whether an entry follows.
    e_end: DFF<Bits<32>>,
    rel: DFF<Bits<32>>,
    has_next: DFF<bool>,
    /// `Cmp`: the entry's bytes from `t_off` on (33 bits, negative past it), and the piece's address
    /// low half with its carry.
    avail: DFF<Bits<33>>,
    addr_lo: DFF<Bits<33>>,
    /// `Cut`: the piece (whether it ends the request) and its address high half.
    p_len: DFF<Bits<16>>,
    p_last: DFF<bool>,
    addr_hi: DFF<Bits<32>>,
    /// `sgl_new` was raised since the last gather request was latched: `t_idx`/`t_base` belong to
    /// another list.
    fresh: DFF<bool>,
    /// Pieces in flight: bytes in the piece's last word (8 bits each) and whether the piece ends its
    /// request; `head` is the next to move into `h_*`.
    p_bytes: DFF<Bits<128>>,
    p_ends: DFF<Bits<16>>,
    head: DFF<Bits<5>>,
    tail: DFF<Bits<5>>,
    /// The oldest piece, whose words are being packed.
    h_valid: DFF<bool>,
    h_bytes: DFF<Bits<8>>,
    h_end: DFF<bool>,
    /// Packing: `acc` holds `r` lanes not yet sent (lanes below `r`); `rn` = (B - r) mod B.
    acc: DFF<Bits<W>>,
    r: DFF<Bits<8>>,
    rn: DFF<Bits<8>>,
    flush_pend: DFF<bool>,
    out_valid: DFF<bool>,
    out_data: DFF<Bits<W>>,
    out_last: DFF<bool>,
    rot: LaneRotate<W, B>,
    push_m1: Signal<Local, Bits<16>>,
    push_b: Signal<Local, Bits<16>>,
    t_sh: Signal<Local, Bits<16>>,
    h_sh: Signal<Local, Bits<16>>,
    full: Signal<Local, bool>,
    push: Signal<Local, bool>,
    push_len: Signal<Local, Bits<16>>,
    push_end: Signal<Local, bool>,
    pop: Signal<Local, bool>,
    n_in: Signal<Local, Bits<8>>,
    tot: Signal<Local, Bits<8>>,
    tot_ge: Signal<Local, bool>,
    tot_low: Signal<Local, Bits<8>>,
    low: Signal<Local, Bits<W>>,
    merged: Signal<Local, Bits<W>>,
    take_ok: Signal<Local, bool>,
    bypass: Signal<Local, bool>,
    fire_in: Signal<Local, bool>,
    ends: Signal<Local, bool>,
    beat_bytes: Constant<Bits<8>>,
    low_mask: Constant<Bits<16>>,
    depth: Constant<Bits<5>>,
    ones_w: Constant<Bits<W>>,
}

impl<const W: usize, const B: usize> Default for Gather<W, B> {
    fn default() -> Self {
        assert_eq!(W, 8 * B);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            req_in_valid: Default::default(),
            req_in_ready: Default::default(),
            req_in_addr: Default::default(),
            req_in_len: Default::default(),
            req_in_gather: Default::default(),
            sgl: Default::default(),
            sgl_n: Default::default(),
            sgl_new: Default::default(),
            req_out_valid: Default::default(),
            req_out_ready: Default::default(),
            req_out_addr: Default::default(),
            req_out_len: Default::default(),
            resp_in_valid: Default::default(),
            resp_in_ready: Default::default(),
            resp_in_data: Default::default(),
            resp_in_last: Default::default(),
            resp_out_valid: Default::default(),
            resp_out_ready: Default::default(),
            resp_out_data: Default::default(),
            resp_out_last: Default::default(),
            state: Default::default(),
            t_off: Default::default(),
            t_rem: Default::default(),
            t_idx: Default::default(),
            t_base: Default::default(),
            e_addr: Default::default(),
            e_len: Default::default(),
            e_end: Default::default(),
            rel: Default::default(),
            has_next: Default::default(),
            avail: Default::default(),
            addr_lo: Default::default(),
            p_len: Default::default(),
            p_last: Default::default(),
            addr_hi: Default::default(),
            fresh: Default::default(),
            p_bytes: Default::default(),
            p_ends: Default::default(),
            head: Default::default(),
            tail: Default::default(),
            h_valid: Default::default(),
            h_bytes: Default::default(),
            h_end: Default::default(),
            acc: Default::default(),
            r: Default::default(),
            rn: Default::default(),
            flush_pend: Default::default(),
            out_valid: Default::default(),
            out_data: Default::default(),
            out_last: Default::default(),
            rot: Default::default(),
            push_m1: Default::default(),
            push_b: Default::default(),
            t_sh: Default::default(),
            h_sh: Default::default(),
            full: Default::default(),
            push: Default::default(),
            push_len: Default::default(),
            push_end: Default::default(),
            pop: Default::default(),
            n_in: Default::default(),
            tot: Default::default(),
            tot_ge: Default::default(),
            tot_low: Default::default(),
            low: Default::default(),
            merged: Default::default(),
            take_ok: Default::default(),
            bypass: Default::default(),
            fire_in: Default::default(),
            ends: Default::default(),
            beat_bytes: Constant::new((B as u64).into()),
            low_mask: Constant::new(((B - 1) as u64).into()),
            depth: Constant::new(DEPTH.into()),
            ones_w: Constant::new(!Bits::<W>::default()),
        }
    }
}

impl<const W: usize, const B: usize> Logic for Gather<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, t_off, t_rem, t_idx, t_base, fresh, e_addr, e_len, e_end, rel,
            has_next, avail, addr_lo, p_len, p_last, addr_hi, p_bytes, p_ends, head, tail, h_valid,
            h_bytes, h_end, acc, r, rn, flush_pend, out_valid, out_data, out_last
        );
        // The current entry of the list, registered (t_idx changes only on the way to `Sel`, whose
        // cycle loads these).
        self.e_addr.d.next = self.sgl.val().get_bits::<64>(0);
        self.e_len.d.next = self.sgl.val().get_bits::<32>(64);
        if self.t_idx.q.val() == 1 {
            self.e_addr.d.next = self.sgl.val().get_bits::<64>(128);
            self.e_len.d.next = self.sgl.val().get_bits::<32>(192);
        }
        if self.t_idx.q.val() == 2 {
            self.e_addr.d.next = self.sgl.val().get_bits::<64>(256);
            self.e_len.d.next = self.sgl.val().get_bits::<32>(320);
        }
        if self.t_idx.q.val() == 3 {
            self.e_addr.d.next = self.sgl.val().get_bits::<64>(384);
            self.e_len.d.next = self.sgl.val().get_bits::<32>(448);
        }
        self.full.next = (self.tail.q.val() - self.head.q.val()) == self.depth.val();
        self.t_sh.next = bit_cast::<16, 5>(self.tail.q.val() & 15) << 3;
        self.h_sh.next = bit_cast::<16, 5>(self.head.q.val() & 15) << 3;

        if self.sgl_new.val() {
            self.fresh.d.next = true;
        }
        // Requests: a plain one passes straight through as one piece; a gather one is latched and
        // walked through the states below, one 32-bit add or compare per cycle.
        self.req_out_valid.next = false;
        self.req_out_addr.next = self.req_in_addr.val();
        self.req_out_len.next = self.req_in_len.val();
        self.req_in_ready.next = false;
        self.push.next = false;
        self.push_len.next = self.req_in_len.val();
        self.push_end.next = true;
        match self.state.q.val() {
            GatherState::Idle => {
                if self.req_in_gather.val() {
                    self.req_in_ready.next = true;
                    if self.req_in_valid.val() {
                        self.state.d.next = GatherState::Start;
                        self.fresh.d.next = false;
                        self.t_off.d.next = bit_cast::<32, 64>(self.req_in_addr.val());
                        self.t_rem.d.next = self.req_in_len.val();
                        if self.fresh.q.val() || self.sgl_new.val() {
                            // Another list: the position walked belongs to the list before.
                            self.t_idx.d.next = 0.into();
                            self.t_base.d.next = 0.into();
                        }
                    }
                } else {
                    self.req_out_valid.next = self.req_in_valid.val() && !self.full.val();
                    self.req_in_ready.next = self.req_out_ready.val() && !self.full.val();
                    self.push.next = self.req_in_valid.val() && self.req_in_ready.val();
                }
            }
            GatherState::Start => {
                // Requests of one list mostly move forward; a new message (offset 0) or a go-back-N
                // inside the list restarts the walk at the first entry.
                if self.t_off.q.val() <= self.t_base.q.val() {
                    self.t_idx.d.next = 0.into();
                    self.t_base.d.next = 0.into();
                }
                self.state.d.next = GatherState::Sel;
            }
            GatherState::Sel => {
                self.state.d.next = GatherState::Look;
            }
            GatherState::Look => {
                self.e_end.d.next = self.t_base.q.val() + self.e_len.q.val();
                self.rel.d.next = self.t_off.q.val() - self.t_base.q.val();
                self.has_next.d.next = bit_cast::<3, 2>(self.t_idx.q.val()) + 1 < self.sgl_n.val();
                self.state.d.next = GatherState::Cmp;
            }
            GatherState::Cmp => {
                // Bytes of the entry from t_off on (negative: t_off lies past it).
                self.avail.d.next =
                    bit_cast::<33, 32>(self.e_end.q.val()) - bit_cast::<33, 32>(self.t_off.q.val());
                self.addr_lo.d.next = bit_cast::<33, 32>(self.e_addr.q.val().get_bits::<32>(0))
                    + bit_cast::<33, 32>(self.rel.q.val());
                self.state.d.next = GatherState::Cut;
            }
            GatherState::Cut => {
                if (self.avail.q.val().get_bit(32) || (self.avail.q.val() == 0))
                    && self.has_next.q.val()
                {
                    // Past this entry (or an empty one): the next; never past the list.
                    self.t_idx.d.next = self.t_idx.q.val() + 1;
                    self.t_base.d.next = self.e_end.q.val();
                    self.state.d.next = GatherState::Sel;
                } else {
                    // The piece: the rest of the request, or of the entry if that is shorter.
                    self.p_len.d.next = self.t_rem.q.val();
                    self.p_last.d.next = true;
                    if (self.avail.q.val().get_bits::<17>(16) == 0)
                        && (self.avail.q.val().get_bits::<16>(0) < self.t_rem.q.val())
                    {
                        self.p_len.d.next = self.avail.q.val().get_bits::<16>(0);
                        self.p_last.d.next = false;
                    }
                    self.addr_hi.d.next = self.e_addr.q.val().get_bits::<32>(32)
                        + bit_cast::<32, 1>(self.addr_lo.q.val().get_bits::<1>(32));
                    self.state.d.next = GatherState::Issue;
                }
            }
            GatherState::Issue => {
                self.req_out_valid.next = !self.full.val();
                self.req_out_addr.next = (bit_cast::<64, 32>(self.addr_hi.q.val()) << 32)
                    | bit_cast::<64, 32>(self.addr_lo.q.val().get_bits::<32>(0));
                self.req_out_len.next = self.p_len.q.val();
                self.push_len.next = self.p_len.q.val();
                self.push_end.next = self.p_last.q.val();
                if self.req_out_ready.val() && !self.full.val() {
                    self.push.next = true;
                    self.t_off.d.next = self.t_off.q.val() + bit_cast::<32, 16>(self.p_len.q.val());
                    self.t_rem.d.next = self.t_rem.q.val() - self.p_len.q.val();
                    if self.p_last.q.val() {
                        self.state.d.next = GatherState::Idle;
                    } else {
                        // The entry is used up: the request goes on in the next.
                        self.t_idx.d.next = self.t_idx.q.val() + 1;
                        self.t_base.d.next = self.e_end.q.val();
                        self.state.d.next = GatherState::Sel;
                    }
                }
            }
        }
        // Bytes in the piece's last word, 1..=B.
        self.push_m1.next = self.push_len.val() - 1;
        self.push_b.next = (self.push_m1.val() & self.low_mask.val()) + 1;
        if self.push.val() {
            self.p_bytes.d.next = (self.p_bytes.q.val()
                & !(bit_cast::<128, 8>(0xFF.into()) << self.t_sh.val()))
                | (bit_cast::<128, 16>(self.push_b.val()) << self.t_sh.val());
            self.p_ends.d.next = self.p_ends.q.val()
                & !(bit_cast::<16, 1>(1.into()) << bit_cast::<16, 5>(self.tail.q.val() & 15));
            if self.push_end.val() {
                self.p_ends.d.next = self.p_ends.q.val()
                    | (bit_cast::<16, 1>(1.into()) << bit_cast::<16, 5>(self.tail.q.val() & 15));
            }
            self.tail.d.next = self.tail.q.val() + 1;
        }

        // Packing the oldest piece's words behind the `r` lanes held. The oldest piece's fields
        // (`h_*`) are registered, read from the ring a cycle after its push; words arrive later than
        // that (the realigner and the host are between), and a word that comes sooner waits.
        self.n_in.next = self.beat_bytes.val();
        if self.resp_in_last.val() {
            self.n_in.next = self.h_bytes.q.val();
        }
        self.tot.next = self.r.q.val() + self.n_in.val();
        // tot < 2B: it fills a word when its B bit is set, and what is left over is its low bits.
        self.tot_ge.next = (self.tot.val() & self.beat_bytes.val()) != 0;
        self.tot_low.next = self.tot.val() & bit_cast::<8, 16>(self.low_mask.val());
        // Rotate up by r lanes = right by rn = (B - r) mod B, kept beside r.
        self.rot.a.next = self.resp_in_data.val();
        self.rot.n.next = self.rn.q.val();
        self.low.next = !(self.ones_w.val() << (bit_cast::<16, 8>(self.r.q.val()) << 3));
        self.merged.next =
            (self.acc.q.val() & self.low.val()) | (self.rot.y.val() & !self.low.val());
        self.ends.next = self.resp_in_last.val() && self.h_end.q.val();
        self.take_ok.next = !self.out_valid.q.val() || self.resp_out_ready.val();
        // Nothing held and a word that leaves nothing over (r = 0, and a whole word or its request's
        // last): it goes straight to the engine, no register cycle (every plain read, and most words of
        // a gathered one while the pieces line up).
        self.bypass.next = !self.out_valid.q.val()
            && !self.flush_pend.q.val()
            && (self.r.q.val() == 0)
            && self.h_valid.q.val()
            && (!self.resp_in_last.val()
                || self.ends.val()
                || (self.h_bytes.q.val() == self.beat_bytes.val()));
        self.resp_in_ready.next =
            self.take_ok.val() && !self.flush_pend.q.val() && self.h_valid.q.val();
        if self.bypass.val() {
            self.resp_in_ready.next = self.resp_out_ready.val();
        }
        self.fire_in.next = self.resp_in_valid.val() && self.resp_in_ready.val();
        self.pop.next = self.fire_in.val() && self.resp_in_last.val();
        if self.take_ok.val() {
            self.out_valid.d.next = false;
        }
        if self.fire_in.val() && !self.bypass.val() {
            // Loaded whenever a word is taken: it only counts where out_valid is set.
            self.out_data.d.next = self.merged.val();
        }
        if self.flush_pend.q.val() && self.take_ok.val() {
            // The request's last lanes, left over from its last word.
            self.out_valid.d.next = true;
            self.out_data.d.next = self.acc.q.val() & self.low.val();
            self.out_last.d.next = true;
            self.flush_pend.d.next = false;
            self.r.d.next = 0.into();
            self.rn.d.next = 0.into();
        } else if self.fire_in.val() && !self.bypass.val() {
            self.r.d.next = self.tot_low.val();
            self.rn.d.next =
                (self.rn.q.val() - self.n_in.val()) & bit_cast::<8, 16>(self.low_mask.val());
            if self.tot_ge.val() {
                self.out_valid.d.next = true;
                self.out_last.d.next = self.ends.val() && (self.tot_low.val() == 0);
                self.acc.d.next = self.rot.y.val();
                if self.ends.val() && (self.tot_low.val() != 0) {
                    self.flush_pend.d.next = true;
                }
            } else {
                self.acc.d.next = self.merged.val();
                if self.ends.val() {
                    self.out_valid.d.next = true;
                    self.out_last.d.next = true;
                    self.r.d.next = 0.into();
                    self.rn.d.next = 0.into();
                }
            }
        }
        // The next piece's fields into h_* as the oldest is done with.
        if !self.h_valid.q.val() || self.pop.val() {
            self.h_valid.d.next = self.head.q.val() != self.tail.q.val();
            self.h_bytes.d.next = bit_cast::<8, 128>(self.p_bytes.q.val() >> self.h_sh.val());
            self.h_end.d.next = (self.p_ends.q.val()
                & (bit_cast::<16, 1>(1.into()) << bit_cast::<16, 5>(self.head.q.val() & 15)))
                != 0;
            if self.head.q.val() != self.tail.q.val() {
                self.head.d.next = self.head.q.val() + 1;
            }
        }
        self.resp_out_valid.next = self.out_valid.q.val();
        self.resp_out_data.next = self.out_data.q.val();
        self.resp_out_last.next = self.out_last.q.val();
        if self.bypass.val() {
            self.resp_out_valid.next = self.resp_in_valid.val();
            self.resp_out_data.next = self.resp_in_data.val();
            self.resp_out_last.next = self.ends.val();
        }
        if self.reset.val() {
            self.state.d.next = GatherState::Idle;
            self.t_idx.d.next = 0.into();
            self.t_base.d.next = 0.into();
            self.head.d.next = 0.into();
            self.tail.d.next = 0.into();
            self.h_valid.d.next = false;
            self.r.d.next = 0.into();
            self.rn.d.next = 0.into();
            self.flush_pend.d.next = false;
            self.out_valid.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;
    use std::sync::{Arc, Mutex};

    #[test]
    fn gather_synthesizes() {
        let mut uut = Gather::<64, 8>::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        yosys_validate("gather", &v).unwrap();
    }

    fn mem_byte(a: u64) -> u8 {
        (a.wrapping_mul(29) ^ (a >> 7)) as u8
    }

    /// A request: `Some(list index)` for a gather request (offset, len) into that list, `None` for a
    /// plain read at an address.
    type Req = (Option<usize>, u64, usize);

    fn sgl_bits(list: &[(u64, u32)]) -> Bits<512> {
        let mut b: Bits<512> = 0.into();
        for (i, &(a, l)) in list.iter().enumerate() {
            b = b | (bit_cast::<512, 64>(a.into()) << (128 * i) as u64);
            b = b | (bit_cast::<512, 64>((l as u64).into()) << (128 * i + 64) as u64);
            // An lkey the unit must not mistake for a length.
            b = b | (bit_cast::<512, 64>(0xDEAD_BEEF_u64.into()) << (128 * i + 96) as u64);
        }
        b
    }

    /// The bytes a request stands for.
    fn expect(lists: &[Vec<(u64, u32)>], r: &Req) -> Vec<u8> {
        match r.0 {
            None => (0..r.2).map(|k| mem_byte(r.1 + k as u64)).collect(),
            Some(li) => {
                let flat: Vec<u8> = lists[li]
                    .iter()
                    .flat_map(|&(a, l)| (0..l as u64).map(move |k| mem_byte(a + k)))
                    .collect();
                flat[r.1 as usize..r.1 as usize + r.2].to_vec()
            }
        }
    }

    /// Issues `reqs` in order (each gather request with its list on `sgl` while it is translated; a
    /// list changes only once the previous list's requests are all accepted, as the engine's WQEs do)
    /// to a realigner model that returns each piece's bytes from lane 0 after a latency, and checks every
    /// piece lies inside one entry (or is the plain read), then that each request gets `ceil(len / B)`
    /// words holding its bytes, `last` on its last. Returns the cycles taken and the pieces read.
    fn run<const W: usize, const B: usize>(
        lists: &[Vec<(u64, u32)>],
        reqs: &[Req],
        out_ready: fn(u64) -> bool,
        eng_ready: fn(u64) -> bool,
    ) -> (u64, usize) {
        run_lat::<W, B>(lists, reqs, out_ready, eng_ready, 5)
    }

    /// `run` with the realigner model's latency: a piece's first word may come `lat` cycles after
    /// its request was taken.
    fn run_lat<const W: usize, const B: usize>(
        lists: &[Vec<(u64, u32)>],
        reqs: &[Req],
        out_ready: fn(u64) -> bool,
        eng_ready: fn(u64) -> bool,
        lat: u64,
    ) -> (u64, usize) {
        let lists_tb = lists.to_vec();
        let reqs_tb = reqs.to_vec();
        // (pieces seen per request: bytes and last flag; cycles; pieces)
        type Seen = (Vec<Vec<(Vec<u8>, bool)>>, u64, usize);
        let seen: Arc<Mutex<Seen>> = Arc::new(Mutex::new((vec![Vec::new(); reqs.len()], 0, 0)));
        let s2 = seen.clone();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<Gather<W, B>>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<Gather<W, B>>| {
            let mut x = sim.init()?;
            wait_clock_true!(sim, clock, x);
            let mut issued = 0usize;
            // Pieces accepted, not yet returned: (cycle it may return from, addr, len).
            let mut pieces: VecDeque<(u64, u64, usize)> = VecDeque::new();
            let mut word = 0usize; // next word of the front piece
            let mut got = 0usize;
            let mut cycle = 0u64;
            // Which request the pieces now being cut belong to (plain requests are one piece).
            let mut cutting = 0usize;
            let mut cut_bytes = 0usize;
            let total: usize = reqs_tb.iter().map(|r| r.2.div_ceil(B)).sum();
            // The engine raises `sgl_new` whenever it loads a list (here: when the list shown changes).
            let mut shown: Option<usize> = None;
            while got < total {
                assert!(cycle < 40 * total as u64 + 400, "stalled");
                x.req_in_valid.next = issued < reqs_tb.len();
                // The list of the request being translated (or of the next one once it is done).
                let li = reqs_tb[cutting.min(reqs_tb.len() - 1)]
                    .0
                    .or_else(|| reqs_tb[issued.min(reqs_tb.len() - 1)].0)
                    .unwrap_or(0);
                let list = &lists_tb[li];
                x.sgl.next = sgl_bits(list);
                x.sgl_n.next = (list.len() as u64).into();
                x.sgl_new.next = shown != Some(li);
                shown = Some(li);
                if issued < reqs_tb.len() {
                    let r = reqs_tb[issued];
                    x.req_in_addr.next = r.1.into();
                    x.req_in_len.next = (r.2 as u64).into();
                    x.req_in_gather.next = r.0.is_some();
                }
                x.req_out_ready.next = out_ready(cycle);
                let front = pieces.front().copied().filter(|p| p.0 <= cycle);
                x.resp_in_valid.next = front.is_some();
                if let Some((_, a, len)) = front {
                    let mut d: Bits<W> = 0.into();
                    for l in 0..B {
                        let k = word * B + l;
                        let b = if k < len {
                            mem_byte(a + k as u64)
                        } else {
                            0xA5
                        };
                        d = d | (bit_cast::<W, 8>((b as u64).into()) << (8 * l) as u64);
                    }
                    x.resp_in_data.next = d;
                    x.resp_in_last.next = (word + 1) * B >= len;
                }
                x.resp_out_ready.next = eng_ready(cycle);
                wait_clock_false!(sim, clock, x);
                if x.req_in_valid.val() && x.req_in_ready.val() {
                    issued += 1;
                }
                if x.req_out_valid.val() && x.req_out_ready.val() {
                    let a = x.req_out_addr.val().to_u64();
                    let n = x.req_out_len.val().to_u64() as usize;
                    let r = reqs_tb[cutting];
                    assert!(n > 0, "empty piece");
                    match r.0 {
                        None => assert_eq!((a, n), (r.1, r.2), "plain request {cutting}"),
                        Some(li) => {
                            let inside = lists_tb[li]
                                .iter()
                                .any(|&(ea, el)| a >= ea && a + n as u64 <= ea + el as u64);
                            assert!(
                                inside,
                                "request {cutting}: piece {a:#x}+{n} outside the list"
                            );
                        }
                    }
                    pieces.push_back((cycle + lat, a, n));
                    s2.lock().unwrap().2 += 1;
                    cut_bytes += n;
                    if cut_bytes == r.2 {
                        cutting += 1;
                        cut_bytes = 0;
                    }
                }
                if let (Some((_, _, len)), true) = (front, x.resp_in_ready.val()) {
                    word += 1;
                    if word * B >= len {
                        pieces.pop_front();
                        word = 0;
                    }
                }
                if x.resp_out_valid.val() && x.resp_out_ready.val() {
                    let mut s = s2.lock().unwrap();
                    let i = s.0.iter().position(|w| !w.last().is_some_and(|l| l.1));
                    let i = i.expect("a word after every request finished");
                    let bytes: Vec<u8> = (0..B)
                        .map(|l| x.resp_out_data.val().get_bits::<8>(8 * l).to_u64() as u8)
                        .collect();
                    s.0[i].push((bytes, x.resp_out_last.val()));
                    got += 1;
                }
                wait_clock_true!(sim, clock, x);
                cycle += 1;
            }
            s2.lock().unwrap().1 = cycle;
            sim.done(x)
        });
        let mut uut = Gather::<W, B>::default();
        uut.connect_all();
        sim.run(Box::new(uut), 20_000_000).unwrap();
        let s = seen.lock().unwrap();
        for (i, r) in reqs.iter().enumerate() {
            let want = expect(lists, r);
            let words = &s.0[i];
            assert_eq!(words.len(), r.2.div_ceil(B), "request {i} {r:?}: words");
            for (j, (w, last)) in words.iter().enumerate() {
                assert_eq!(*last, j + 1 == words.len(), "request {i} word {j}: last");
                for (l, &b) in w.iter().enumerate() {
                    let k = j * B + l;
                    if k < r.2 {
                        assert_eq!(b, want[k], "request {i} {r:?} byte {k}");
                    }
                }
            }
        }
        (s.1, s.2)
    }

    /// Every packet of a message of `len` bytes at `mtu`.
    fn packets(li: usize, len: usize, mtu: usize) -> Vec<Req> {
        (0..len.div_ceil(mtu))
            .map(|i| (Some(li), (i * mtu) as u64, mtu.min(len - i * mtu)))
            .collect()
    }

    #[test]
    fn one_entry_is_a_plain_read() {
        let lists = vec![vec![(0x1003, 100)]];
        let (_, pieces) = run::<64, 8>(&lists, &packets(0, 100, 32), |_| true, |_| true);
        assert_eq!(pieces, 4);
    }

    #[test]
    fn packets_across_entries_of_every_odd_length() {
        // Entries of lengths that leave every lane count over, starting at odd addresses; packets that
        // straddle one, two and three entry boundaries.
        for lens in [
            [1u32, 7, 9, 17],
            [8, 8, 8, 8],
            [13, 0, 3, 31],
            [64, 1, 0, 70],
        ] {
            let list: Vec<(u64, u32)> = lens
                .iter()
                .enumerate()
                .map(|(i, &l)| (0x1000 * (i as u64 + 1) + 3 * i as u64 + 1, l))
                .collect();
            let total: usize = lens.iter().map(|&l| l as usize).sum();
            for mtu in [5, 8, 16, 256] {
                run::<64, 8>(
                    std::slice::from_ref(&list),
                    &packets(0, total, mtu),
                    |_| true,
                    |_| true,
                );
            }
        }
    }

    #[test]
    fn backpressure_wide_words_and_plain_reads_between() {
        let a = vec![(0x2011, 100), (0x3000, 64), (0x4021, 1), (0x503F, 66)];
        let b = vec![(0x7001, 3), (0x8000, 200)];
        let mut reqs = packets(0, 231, 64);
        reqs.insert(2, (None, 0x9005, 70)); // a READ response's read between two packets
        reqs.push((None, 0xA000, 128)); // the next WQE's fetch
        reqs.extend(packets(1, 203, 128));
        run::<512, 64>(
            &[a.clone(), b.clone()],
            &reqs,
            |c| c % 3 != 1,
            |c| c % 4 != 2,
        );
        run::<512, 64>(&[a, b], &reqs, |_| true, |_| true);
    }

    #[test]
    fn words_right_behind_their_pieces() {
        // The realigner's words may come a cycle after the piece was cut: the piece's fields are not
        // registered yet, and the word waits for them.
        let list = vec![(0x1003, 37), (0x2001, 1), (0x3005, 90)];
        let mut reqs = packets(0, 128, 24);
        reqs.insert(1, (None, 0x9005, 9));
        for lat in 1..4 {
            run_lat::<64, 8>(std::slice::from_ref(&list), &reqs, |_| true, |_| true, lat);
            run_lat::<512, 64>(
                std::slice::from_ref(&list),
                &reqs,
                |c| c % 3 != 1,
                |c| c % 5 != 2,
                lat,
            );
        }
    }

    #[test]
    fn go_back_n_restarts_the_walk() {
        let list = vec![(0x1001, 40), (0x2002, 40), (0x3003, 40)];
        let mut reqs = packets(0, 120, 32);
        // A NAK at packet 1 after packet 3 went out: the walk goes back.
        reqs.extend(packets(0, 120, 32).into_iter().skip(1));
        run::<64, 8>(&[list], &reqs, |c| c % 2 == 0, |_| true);
    }

    #[test]
    fn go_back_n_into_an_older_list_walks_it_from_its_first_entry() {
        // Two WQEs in flight: the newer one's packets walked its list to its third entry (t_base 80);
        // then a NAK goes back into the older WQE, whose list is loaded again, at an offset past 80. The
        // walk must not carry the newer list's position over (entry 2 of the older list is empty:
        // its address would be 0, a read outside host memory).
        let older = vec![(0x5001, 100), (0x6002, 100)];
        let newer = vec![(0x1001, 40), (0x2002, 40), (0x3003, 40)];
        let mut reqs = packets(1, 120, 32);
        reqs.extend(packets(0, 200, 32).into_iter().skip(3));
        run::<64, 8>(&[older.clone(), newer.clone()], &reqs, |_| true, |_| true);
        // And at 512 bits, with back-pressure.
        run::<512, 64>(&[older, newer], &reqs, |c| c % 3 != 1, |c| c % 4 != 2);
    }

    #[test]
    fn one_word_a_cycle_after_the_first_piece() {
        // Two entries of a 1000-byte message: one extra cycle for the boundary, one for the flush.
        let split = vec![vec![(0x1003, 501), (0x4005, 499)]];
        let whole = vec![vec![(0x1003, 1000)]];
        let (c_split, _) = run::<64, 8>(&split, &packets(0, 1000, 1000), |_| true, |_| true);
        let (c_whole, _) = run::<64, 8>(&whole, &packets(0, 1000, 1000), |_| true, |_| true);
        assert!(
            c_split <= c_whole + 3,
            "split {c_split} cycles, whole {c_whole}"
        );
    }
}
