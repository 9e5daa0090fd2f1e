//! DMA read splitter between the engines' read port and the host: one engine request (address, beats)
//! becomes sub-requests that never cross a 4 KiB boundary and never exceed the largest read request the
//! host link takes (`max_beats`, from PCIe's Max_Read_Request_Size), as PCIe requires of a requester. The
//! request is taken from the engine at once and the sub-requests are issued back to back, so several are
//! outstanding at the host when its credits allow. Completions of one tag come back in request order,
//! those of tag 0 (the requester) and tag 1 (the receive engine) in any order relative to each other, as
//! PCIe completions of different requests may; the splitter keeps one ring of pending sub-requests per tag
//! (tag bit 0), passes the data through and shows the engine `last` only on the final sub-request's last
//! beat, so each engine sees exactly the stream it asked for.
use rust_hdl::prelude::*;

/// Sub-requests per tag whose "ends the engine request" bit is still waiting for its completion: a bit
/// per sub-request, in order.
const PENDING: usize = 64;

#[derive(LogicBlock)]
pub struct DmaReadSplit<const B: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    /// Largest sub-request in beats (at least 1).
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
    busy: DFF<bool>,
    addr: DFF<Bits<64>>,
    left: DFF<Bits<16>>,
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
    to_4k: Signal<Local, Bits<16>>,
    sub: Signal<Local, Bits<16>>,
    full: Signal<Local, bool>,
    fire: Signal<Local, bool>,
    pop: Signal<Local, bool>,
    ends_n: Signal<Local, Bits<PENDING>>,
    log_b: Constant<Bits<16>>,
    page: Constant<Bits<64>>,
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
            ends1: Default::default(),
            head1: Default::default(),
            tail1: Default::default(),
            full1: Default::default(),
            ends1_n: Default::default(),
            push1: Default::default(),
            pop1: Default::default(),
            busy: Default::default(),
            addr: Default::default(),
            left: Default::default(),
            tag: Default::default(),
            ends: Default::default(),
            head: Default::default(),
            tail: Default::default(),
            to_4k: Default::default(),
            sub: Default::default(),
            full: Default::default(),
            fire: Default::default(),
            pop: Default::default(),
            ends_n: Default::default(),
            log_b: Constant::new((B.trailing_zeros() as u64).into()),
            page: Constant::new(4096_u64.into()),
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
        dff_setup!(self, clock, busy, addr, left, tag, ends, head, tail, ends1, head1, tail1);
        self.push1.next = (self.tag.q.val() & 1) != 0;
        self.pop1.next = (self.resp_tag.val() & 1) != 0;
        // Beats to the next 4 KiB boundary (addresses are beat-aligned), then the sub-request size.
        self.to_4k.next = bit_cast::<16, 64>(
            (self.page.val() - (self.addr.q.val() & self.page_mask.val())) >> self.log_b.val(),
        );
        self.sub.next = self.left.q.val();
        if self.sub.val() > self.to_4k.val() {
            self.sub.next = self.to_4k.val();
        }
        if self.sub.val() > self.max_beats.val() {
            self.sub.next = self.max_beats.val();
        }
        // 64 entries, pointers one bit wider: full when they differ only in that bit.
        self.full.next = (self.tail.q.val() ^ self.head.q.val()) == self.ring.val();
        self.full1.next = (self.tail1.q.val() ^ self.head1.q.val()) == self.ring.val();
        if self.push1.val() {
            self.full.next = self.full1.val();
        }

        // Take the engine's request whenever idle; a zero-beat request needs nothing from the host.
        self.in_ready.next = !self.busy.q.val();
        if self.in_valid.val() && !self.busy.q.val() && (self.in_beats.val() != 0) {
            self.busy.d.next = true;
            self.addr.d.next = self.in_addr.val();
            self.left.d.next = self.in_beats.val();
            self.tag.d.next = self.in_tag.val();
        }

        self.out_valid.next = self.busy.q.val() && !self.full.val();
        self.out_addr.next = self.addr.q.val();
        self.out_beats.next = self.sub.val();
        self.out_tag.next = self.tag.q.val();
        self.fire.next = self.busy.q.val() && !self.full.val() && self.out_ready.val();
        if self.fire.val() {
            self.addr.d.next =
                self.addr.q.val() + (bit_cast::<64, 16>(self.sub.val()) << self.log_b.val());
            self.left.d.next = self.left.q.val() - self.sub.val();
            if self.push1.val() {
                self.tail1.d.next = self.tail1.q.val() + 1;
            } else {
                self.tail.d.next = self.tail.q.val() + 1;
            }
            if self.left.q.val() == self.sub.val() {
                self.busy.d.next = false;
            }
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
        if self.fire.val() && (self.left.q.val() == self.sub.val()) && !self.push1.val() {
            self.ends_n.next = self.ends_n.val()
                | (self.one.val()
                    << bit_cast::<PENDING, 7>(self.tail.q.val() & self.ring_mask.val()));
        }
        if self.fire.val() && (self.left.q.val() == self.sub.val()) && self.push1.val() {
            self.ends1_n.next = self.ends1_n.val()
                | (self.one.val()
                    << bit_cast::<PENDING, 7>(self.tail1.q.val() & self.ring_mask.val()));
        }
        self.ends.d.next = self.ends_n.val();
        self.ends1.d.next = self.ends1_n.val();
        if self.reset.val() {
            self.busy.d.next = false;
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
