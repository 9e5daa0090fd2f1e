//! A send WQE's host address: `SQ_BASE + (index mod 2^SQ_LOG_SIZE) * size`, the size 64 bytes or,
//! with `SQ_WQE_128`, 128. Worked out in three registered stages so that no 64-bit carry chain stands
//! in one cycle: stage 1 the slot's byte offset (and its high half + 1), stage 2 the base added as
//! two 32-bit halves, the high half both ways (+ 0 and + 1 from the low half's carry), each sum in a
//! register of its own, stage 3 the high half picked by the low half's carry. (A select between two
//! sums in one cycle would be folded by synthesis into one add behind the carry, a 64-bit chain.)
//!
//! The address is tagged with the index, log size, WQE size and base it was worked out from; `ok`
//! says the tags equal the inputs as they are now, so a reader never acts on an address of an index
//! or a ring that has since moved. Three clock edges after the inputs settle, `ok` is up.
//!
//! `ok_q` is the same verdict from a register, about the inputs as they were at the last clock edge
//! (stage 2's tags against the inputs, registered as stage 3 takes them): a reader that did not move
//! an input at that edge reads it for `ok` with no 102-bit compare in front of its own logic.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct WqeAddr {
    pub clock: Signal<In, Clock>,
    /// The WQE's index in the ring's 32-bit count (SQ_CI or a later one).
    pub idx: Signal<In, Bits<32>>,
    pub base_lo: Signal<In, Bits<32>>,
    pub base_hi: Signal<In, Bits<32>>,
    /// log2 of the ring's entries (SQ_LOG_SIZE bits 4:0).
    pub log_size: Signal<In, Bits<5>>,
    /// 128-byte WQEs (SQ_WQE_128).
    pub wqe128: Signal<In, bool>,
    /// The address, registered.
    pub addr: Signal<Out, Bits<64>>,
    /// `addr` is of the inputs as they are now.
    pub ok: Signal<Out, bool>,
    /// `addr` is of the inputs as they were at the last clock edge.
    pub ok_q: Signal<Out, bool>,
    slot: Signal<Local, Bits<40>>,
    off: Signal<Local, Bits<40>>,
    // stage 1: the offset, tagged
    off_q: DFF<Bits<40>>,
    offh1_q: DFF<Bits<32>>,
    idx1: DFF<Bits<32>>,
    log1: DFF<Bits<5>>,
    w1281: DFF<bool>,
    // stage 2: the halves, tagged
    lo: DFF<Bits<33>>,
    hi0: DFF<Bits<32>>,
    hi1: DFF<Bits<32>>,
    offh: Signal<Local, Bits<32>>,
    idx2: DFF<Bits<32>>,
    log2: DFF<Bits<5>>,
    w1282: DFF<bool>,
    blo2: DFF<Bits<32>>,
    bhi2: DFF<Bits<32>>,
    // stage 3: the address, tagged
    addr_q: DFF<Bits<64>>,
    idx3: DFF<Bits<32>>,
    log3: DFF<Bits<5>>,
    w1283: DFF<bool>,
    blo3: DFF<Bits<32>>,
    bhi3: DFF<Bits<32>>,
    ok_r: DFF<bool>,
}

impl Logic for WqeAddr {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, off_q, offh1_q, idx1, log1, w1281, lo, hi0, hi1, idx2, log2, w1282, blo2,
            bhi2, addr_q, idx3, log3, w1283, blo3, bhi3, ok_r
        );
        // Stage 1.
        self.slot.next = bit_cast::<40, 32>(
            self.idx.val() & !(bits::<32>(0xFFFF_FFFF_u64) << self.log_size.val()),
        );
        self.off.next = self.slot.val() << 6;
        if self.wqe128.val() {
            self.off.next = self.slot.val() << 7;
        }
        self.off_q.d.next = self.off.val();
        self.offh1_q.d.next = bit_cast::<32, 40>(self.off.val() >> 32) + 1;
        self.idx1.d.next = self.idx.val();
        self.log1.d.next = self.log_size.val();
        self.w1281.d.next = self.wqe128.val();
        // Stage 2.
        self.lo.d.next = bit_cast::<33, 32>(self.base_lo.val())
            + bit_cast::<33, 32>(self.off_q.q.val().get_bits::<32>(0));
        self.offh.next = bit_cast::<32, 40>(self.off_q.q.val() >> 32);
        self.hi0.d.next = self.base_hi.val() + self.offh.val();
        self.hi1.d.next = self.base_hi.val() + self.offh1_q.q.val();
        self.idx2.d.next = self.idx1.q.val();
        self.log2.d.next = self.log1.q.val();
        self.w1282.d.next = self.w1281.q.val();
        self.blo2.d.next = self.base_lo.val();
        self.bhi2.d.next = self.base_hi.val();
        // Stage 3.
        self.addr_q.d.next = (bit_cast::<64, 32>(self.hi0.q.val()) << 32)
            | bit_cast::<64, 32>(self.lo.q.val().get_bits::<32>(0));
        if self.lo.q.val().get_bit(32) {
            self.addr_q.d.next = (bit_cast::<64, 32>(self.hi1.q.val()) << 32)
                | bit_cast::<64, 32>(self.lo.q.val().get_bits::<32>(0));
        }
        self.idx3.d.next = self.idx2.q.val();
        self.log3.d.next = self.log2.q.val();
        self.w1283.d.next = self.w1282.q.val();
        self.blo3.d.next = self.blo2.q.val();
        self.bhi3.d.next = self.bhi2.q.val();
        self.ok_r.d.next = (self.idx2.q.val() == self.idx.val())
            && (self.log2.q.val() == self.log_size.val())
            && (self.w1282.q.val() == self.wqe128.val())
            && (self.blo2.q.val() == self.base_lo.val())
            && (self.bhi2.q.val() == self.base_hi.val());

        self.addr.next = self.addr_q.q.val();
        self.ok.next = (self.idx3.q.val() == self.idx.val())
            && (self.log3.q.val() == self.log_size.val())
            && (self.w1283.q.val() == self.wqe128.val())
            && (self.blo3.q.val() == self.base_lo.val())
            && (self.bhi3.q.val() == self.base_hi.val());
        self.ok_q.next = self.ok_r.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (index, base, log size, 128-byte WQEs).
    type In = (u32, u64, u32, bool);

    fn model(&(idx, base, log, w128): &In) -> u64 {
        let slot = (idx as u64) & ((1u64 << log) - 1);
        base.wrapping_add(slot << if w128 { 7 } else { 6 })
    }

    fn drive(x: &mut WqeAddr, &(idx, base, log, w128): &In) {
        x.idx.next = (idx as u64).into();
        x.base_lo.next = (base & 0xFFFF_FFFF).into();
        x.base_hi.next = (base >> 32).into();
        x.log_size.next = (log as u64).into();
        x.wqe128.next = w128;
    }

    #[test]
    fn adds_across_the_4_gib_line_and_never_offers_a_stale_address() {
        let cases: Vec<In> = vec![
            (0, 0x1000, 4, false),
            // The index wraps the ring: slot 3 of 16.
            (0x13, 0x1_0000_0000, 4, false),
            // The low half carries into the high half.
            (0xFF, 0x1_FFFF_F000, 8, true),
            // The offset alone passes 4 GiB (2^31 slots of 128 bytes), and the base adds a carry.
            (0x8000_0001, 0xFFFF_FF80, 31, true),
            // Wrapping past 2^64.
            (5, 0xFFFF_FFFF_FFFF_FFC0, 10, false),
            // A one-entry ring: every index is slot 0.
            (0xDEAD_BEEF, 0xABCD_0000_0040, 0, false),
        ];
        // Each case held until its address is out, then each input moved for one cycle and back.
        let mut steps: Vec<(In, usize)> = Vec::new();
        for &c in &cases {
            let (idx, base, log, w128) = c;
            steps.push((c, 3));
            for moved in [
                (idx.wrapping_add(1), base, log, w128),
                (idx, base ^ 0x40, log, w128),
                (idx, base ^ (1 << 40), log, w128),
                (idx, base, log ^ 1, w128),
                (idx, base, log, !w128),
            ] {
                steps.push((moved, 1));
                steps.push((c, 3));
            }
        }
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<WqeAddr>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<WqeAddr>| {
            let mut x = sim.init()?;
            // The inputs the last clock edge saw (the testbench starts them at zero).
            let mut at_edge: In = (0, 0, 0, false);
            for (k, (c, hold)) in steps.iter().enumerate() {
                drive(&mut x, c);
                // Between clock edges, just after the inputs moved, and after every edge: when `ok`
                // is up, the address is the one of the inputs as they are; when `ok_q` is, the one of
                // the inputs at the last edge.
                x = sim.wait(1, x)?;
                for cycle in 0..=*hold {
                    if cycle > 0 {
                        wait_clock_cycle!(sim, clock, x);
                        at_edge = *c;
                    }
                    let g = x.addr.val().to_u64();
                    let (w, w_q) = (model(c), model(&at_edge));
                    if x.ok.val() && g != w {
                        println!("step {k} cycle {cycle}: offered {g:#x}, want {w:#x}");
                    }
                    if x.ok_q.val() && g != w_q {
                        println!("step {k} cycle {cycle}: ok_q on {g:#x}, want {w_q:#x}");
                    }
                    sim_assert!(sim, !x.ok.val() || g == w, x);
                    sim_assert!(sim, !x.ok_q.val() || g == w_q, x);
                }
                // Three edges after the inputs settle, the address is out, and both say so.
                if *hold >= 3 {
                    sim_assert!(sim, x.ok.val() && x.ok_q.val(), x);
                }
            }
            sim.done(x)
        });
        sim.run(Box::new(WqeAddr::default()), 20_000).unwrap();
    }

    #[test]
    fn synthesizes() {
        let mut uut = WqeAddr::default();
        uut.connect_all();
        yosys_validate("wqe_addr", &generate_verilog(&uut)).unwrap();
    }
}
