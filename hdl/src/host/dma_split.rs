//! DMA read splitter between the engines' read port and the host: one engine request (address, beats)
//! becomes sub-requests that never cross a 4 KiB boundary and never exceed the largest read request the
//! host link takes (`max_beats`, from PCIe's Max_Read_Request_Size), as PCIe requires of a requester.
//! Completions of one tag come back in request order, those of tag 0 (the requester) and tag 1 (the
//! receive engine) in any order relative to each other, as PCIe completions of different requests may;
//! the splitter keeps one ring of pending sub-requests per tag (tag bit 0), passes the data through and
//! shows the engine `last` only on the final sub-request's last beat, so each engine sees exactly the
//! stream it asked for.
//!
//! Pipeline (every path at most 6 LUT levels at 512 bits): a request is taken into a holding register
//! (with its beats to the 4 KiB boundary) and loaded when the splitter is idle or issues the previous
//! request's last sub-request. Each sub-request takes two cycles: one works out its size from the
//! registered remainders (beats left, beats to the boundary), the next issues it, so a read reaches the
//! host three cycles after it is taken and reads go out one every other cycle. The address is kept as the high 32 bits, the
//! 4 KiB page below them and the beat offset in the page, so no cycle adds more than 20 bits: a page
//! change increments the page, and a carry out of it reaches the high half in the cycle between.
use rust_hdl::prelude::*;

/// Sub-requests per tag whose "ends the engine request" bit is still waiting for its completion: a bit
/// per sub-request, in order.
const PENDING: usize = 64;

#[derive(LogicBlock)]
pub struct DmaReadSplit<const B: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    /// Largest sub-request in beats (at least 1); taken a cycle late (a setting, not data).
    pub max_beats: Signal<In, Bits<16>>,
    // From the engines (already arbitrated).
    pub in_valid: Signal<In, bool>,
    pub in_addr: Signal<In, Bits<64>>,
    pub in_beats: Signal<In, Bits<16>>,
    pub in_tag: Signal<In, Bits<4>>,
    pub in_ready: Signal<Out, bool>,
    // To the host.
    pub out_valid: Signal<Out, bool>,
    pub out_addr: Signal<Out, Bits<64>>,
    pub out_beats: Signal<Out, Bits<16>>,
    pub out_tag: Signal<Out, Bits<4>>,
    pub out_ready: Signal<In, bool>,
    /// A completion beat is taken this cycle (valid and ready) and whether it is the host's last of its
    /// sub-request.
    pub resp_fire: Signal<In, bool>,
    pub resp_host_last: Signal<In, bool>,
    /// The tag of the completion beat (its ring).
    pub resp_tag: Signal<In, Bits<4>>,
    /// `last` as the engine must see it: the last beat of its whole request.
    pub resp_last: Signal<Out, bool>,
    max_q: DFF<Bits<16>>,
    // The holding register: a request taken, not yet loaded, and its beats to the 4 KiB boundary.
    hold_v: DFF<bool>,
    hold_addr: DFF<Bits<64>>,
    hold_beats: DFF<Bits<16>>,
    hold_tag: DFF<Bits<4>>,
    hold_t4k: DFF<Bits<16>>,
    // The request being split: `sub` (with `last`, `endpg`) is the next sub-request's size when `rdy`.
    busy: DFF<bool>,
    rdy: DFF<bool>,
    sub: DFF<Bits<16>>,
    last: DFF<bool>,
    endpg: DFF<bool>,
    left: DFF<Bits<16>>,
    t4k: DFF<Bits<16>>,
    off: DFF<Bits<16>>,
    page: DFF<Bits<20>>,
    hi: DFF<Bits<32>>,
    hcarry: DFF<bool>,
    tag: DFF<Bits<4>>,
    ends: DFF<Bits<PENDING>>,
    head: DFF<Bits<7>>,
    tail: DFF<Bits<7>>,
    ends1: DFF<Bits<PENDING>>,
    head1: DFF<Bits<7>>,
    tail1: DFF<Bits<7>>,
    full1: Signal<Local, bool>,
    ends1_n: Signal<Local, Bits<PENDING>>,
    /// The request being split is tag 1's; the completion beat is tag 1's.
    push1: Signal<Local, bool>,
    pop1: Signal<Local, bool>,
    p_sub: Signal<Local, Bits<16>>,
    p_last: Signal<Local, bool>,
    p_endpg: Signal<Local, bool>,
    le_t4k: Signal<Local, bool>,
    le_max: Signal<Local, bool>,
    t4k_le_max: Signal<Local, bool>,
    page_n: Signal<Local, Bits<21>>,
    /// The request's beat offset in its 4 KiB page.
    in_off: Signal<Local, Bits<16>>,
    load: Signal<Local, bool>,
    full: Signal<Local, bool>,
    fire: Signal<Local, bool>,
    pop: Signal<Local, bool>,
    ends_n: Signal<Local, Bits<PENDING>>,
    log_b: Constant<Bits<16>>,
    page_beats: Constant<Bits<16>>,
    page_mask: Constant<Bits<64>>,
    one: Constant<Bits<PENDING>>,
    ring: Constant<Bits<7>>,
    ring_mask: Constant<Bits<7>>,
}

impl<const B: usize> Default for DmaReadSplit<B> {
    fn default() -> Self {
        assert!(B.is_power_of_two() && B <= 4096);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            max_beats: Default::default(),
            in_valid: Default::default(),
            in_addr: Default::default(),
            in_beats: Default::default(),
            in_tag: Default::default(),
            in_ready: Default::default(),
            out_valid: Default::default(),
            out_addr: Default::default(),
            out_beats: Default::default(),
            out_tag: Default::default(),
            out_ready: Default::default(),
            resp_fire: Default::default(),
            resp_host_last: Default::default(),
            resp_tag: Default::default(),
            resp_last: Default::default(),
            max_q: Default::default(),
            hold_v: Default::default(),
            hold_addr: Default::default(),
            hold_beats: Default::default(),
            hold_tag: Default::default(),
            hold_t4k: Default::default(),
            busy: Default::default(),
            rdy: Default::default(),
            sub: Default::default(),
            last: Default::default(),
            endpg: Default::default(),
            left: Default::default(),
            t4k: Default::default(),
            off: Default::default(),
            page: Default::default(),
            hi: Default::default(),
            hcarry: Default::default(),
            tag: Default::default(),
            ends: Default::default(),
            head: Default::default(),
            tail: Default::default(),
            ends1: Default::default(),
            head1: Default::default(),
            tail1: Default::default(),
            full1: Default::default(),
            ends1_n: Default::default(),
            push1: Default::default(),
            pop1: Default::default(),
            p_sub: Default::default(),
            p_last: Default::default(),
            p_endpg: Default::default(),
            le_t4k: Default::default(),
            le_max: Default::default(),
            t4k_le_max: Default::default(),
            page_n: Default::default(),
            in_off: Default::default(),
            load: Default::default(),
            full: Default::default(),
            fire: Default::default(),
            pop: Default::default(),
            ends_n: Default::default(),
            log_b: Constant::new((B.trailing_zeros() as u64).into()),
            page_beats: Constant::new(((4096 / B) as u64).into()),
            page_mask: Constant::new(0xFFF_u64.into()),
            one: Constant::new(1_u64.into()),
            ring: Constant::new((PENDING as u64).into()),
            ring_mask: Constant::new((PENDING as u64 - 1).into()),
        }
    }
}

impl<const B: usize> Logic for DmaReadSplit<B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, max_q, hold_v, hold_addr, hold_beats, hold_tag, hold_t4k, busy, rdy, sub,
            last, endpg, left, t4k, off, page, hi, hcarry, tag, ends, head, tail, ends1, head1,
            tail1
        );
        self.max_q.d.next = self.max_beats.val();
        self.push1.next = (self.tag.q.val() & 1) != 0;
        self.pop1.next = (self.resp_tag.val() & 1) != 0;
        // 64 entries, pointers one bit wider: full when they differ only in that bit.
        self.full.next = (self.tail.q.val() ^ self.head.q.val()) == self.ring.val();
        self.full1.next = (self.tail1.q.val() ^ self.head1.q.val()) == self.ring.val();
        if self.push1.val() {
            self.full.next = self.full1.val();
        }

        self.in_off.next =
            bit_cast::<16, 64>((self.in_addr.val() & self.page_mask.val()) >> self.log_b.val());
        // Take a request into the holding register; a zero-beat request needs nothing from the host.
        self.in_ready.next = !self.hold_v.q.val();
        if self.in_valid.val() && !self.hold_v.q.val() && (self.in_beats.val() != 0) {
            self.hold_v.d.next = true;
            self.hold_addr.d.next = self.in_addr.val();
            self.hold_beats.d.next = self.in_beats.val();
            self.hold_tag.d.next = self.in_tag.val();
            // Beats to the next 4 KiB boundary (addresses are beat-aligned).
            self.hold_t4k.d.next = self.page_beats.val() - self.in_off.val();
        }

        // The next sub-request's size: min(beats left, beats to the boundary, max_beats), and whether it
        // is the request's last or ends at the boundary.
        self.le_t4k.next = self.left.q.val() <= self.t4k.q.val();
        self.le_max.next = self.left.q.val() <= self.max_q.q.val();
        self.t4k_le_max.next = self.t4k.q.val() <= self.max_q.q.val();
        self.p_sub.next = self.max_q.q.val();
        self.p_last.next = false;
        self.p_endpg.next = false;
        if self.le_t4k.val() && self.le_max.val() {
            self.p_sub.next = self.left.q.val();
            self.p_last.next = true;
        } else if !self.le_t4k.val() && self.t4k_le_max.val() {
            self.p_sub.next = self.t4k.q.val();
            self.p_endpg.next = true;
        }

        self.out_valid.next = self.busy.q.val() && self.rdy.q.val() && !self.full.val();
        self.out_addr.next = (bit_cast::<64, 32>(self.hi.q.val()) << 32)
            | (bit_cast::<64, 20>(self.page.q.val()) << 12)
            | (bit_cast::<64, 16>(self.off.q.val()) << self.log_b.val());
        self.out_beats.next = self.sub.q.val();
        self.out_tag.next = self.tag.q.val();
        self.fire.next =
            self.busy.q.val() && self.rdy.q.val() && !self.full.val() && self.out_ready.val();
        self.load.next =
            self.hold_v.q.val() && (!self.busy.q.val() || (self.fire.val() && self.last.q.val()));

        // A carry out of the page number reaches the high half in the cycle between sub-requests.
        self.page_n.next = bit_cast::<21, 20>(self.page.q.val()) + 1;
        if self.hcarry.q.val() {
            self.hi.d.next = self.hi.q.val() + 1;
            self.hcarry.d.next = false;
        }
        if self.fire.val() {
            self.rdy.d.next = false;
            if self.last.q.val() {
                self.busy.d.next = false;
            } else {
                self.left.d.next = self.left.q.val() - self.sub.q.val();
                if self.endpg.q.val() {
                    self.off.d.next = 0.into();
                    self.t4k.d.next = self.page_beats.val();
                    self.page.d.next = self.page_n.val().get_bits::<20>(0);
                    self.hcarry.d.next = self.page_n.val().get_bit(20);
                } else {
                    self.off.d.next = self.off.q.val() + self.sub.q.val();
                    self.t4k.d.next = self.t4k.q.val() - self.sub.q.val();
                }
            }
            if self.push1.val() {
                self.tail1.d.next = self.tail1.q.val() + 1;
            } else {
                self.tail.d.next = self.tail.q.val() + 1;
            }
        } else if self.busy.q.val() && !self.rdy.q.val() {
            self.rdy.d.next = true;
            self.sub.d.next = self.p_sub.val();
            self.last.d.next = self.p_last.val();
            self.endpg.d.next = self.p_endpg.val();
        }
        if self.load.val() {
            self.hold_v.d.next = false;
            self.busy.d.next = true;
            self.rdy.d.next = false;
            self.last.d.next = false;
            self.left.d.next = self.hold_beats.q.val();
            self.t4k.d.next = self.hold_t4k.q.val();
            self.off.d.next = bit_cast::<16, 64>(
                (self.hold_addr.q.val() & self.page_mask.val()) >> self.log_b.val(),
            );
            self.page.d.next = bit_cast::<20, 64>(self.hold_addr.q.val() >> 12);
            self.hi.d.next = bit_cast::<32, 64>(self.hold_addr.q.val() >> 32);
            self.hcarry.d.next = false;
            self.tag.d.next = self.hold_tag.q.val();
        }

        // Completions: the bit at the head of the completion's tag's ring says whether this sub-request
        // ends the engine's request.
        self.resp_last.next = self.resp_host_last.val()
            && (((self.ends.q.val()
                >> bit_cast::<PENDING, 7>(self.head.q.val() & self.ring_mask.val()))
                & 1)
                != 0);
        if self.pop1.val() {
            self.resp_last.next = self.resp_host_last.val()
                && (((self.ends1.q.val()
                    >> bit_cast::<PENDING, 7>(self.head1.q.val() & self.ring_mask.val()))
                    & 1)
                    != 0);
        }
        self.pop.next = self.resp_fire.val() && self.resp_host_last.val();
        // Clear the popped entry's bit and set the pushed one's (they never alias: the ring is not full).
        self.ends_n.next = self.ends.q.val();
        self.ends1_n.next = self.ends1.q.val();
        if self.pop.val() && !self.pop1.val() {
            self.head.d.next = self.head.q.val() + 1;
            self.ends_n.next = self.ends_n.val()
                & !(self.one.val()
                    << bit_cast::<PENDING, 7>(self.head.q.val() & self.ring_mask.val()));
        }
        if self.pop.val() && self.pop1.val() {
            self.head1.d.next = self.head1.q.val() + 1;
            self.ends1_n.next = self.ends1_n.val()
                & !(self.one.val()
                    << bit_cast::<PENDING, 7>(self.head1.q.val() & self.ring_mask.val()));
        }
        if self.fire.val() && self.last.q.val() && !self.push1.val() {
            self.ends_n.next = self.ends_n.val()
                | (self.one.val()
                    << bit_cast::<PENDING, 7>(self.tail.q.val() & self.ring_mask.val()));
        }
        if self.fire.val() && self.last.q.val() && self.push1.val() {
            self.ends1_n.next = self.ends1_n.val()
                | (self.one.val()
                    << bit_cast::<PENDING, 7>(self.tail1.q.val() & self.ring_mask.val()));
        }
        self.ends.d.next = self.ends_n.val();
        self.ends1.d.next = self.ends1_n.val();
        if self.reset.val() {
            self.hold_v.d.next = false;
            self.busy.d.next = false;
            self.rdy.d.next = false;
            self.hcarry.d.next = false;
            self.head.d.next = 0.into();
            self.tail.d.next = 0.into();
            self.ends.d.next = 0.into();
            self.head1.d.next = 0.into();
            self.tail1.d.next = 0.into();
            self.ends1.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dma_read_split_synthesizes() {
        let mut uut = DmaReadSplit::<8>::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        yosys_validate("dma_split", &v).unwrap();
    }
}
