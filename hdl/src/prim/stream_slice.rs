//! A register slice of a stream (data, keep, last, a side field `tuser` that travels with each beat;
//! valid/ready): both directions registered, so a path
//! ends at it on either side, at full throughput. Two entries: the output register and a skid entry that
//! takes the beat the input offered in the cycle the output stalled (the input's `ready` was already up,
//! being a register of the cycle before). `in_ready` is "the skid entry is empty", a flip-flop.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct StreamSlice<const W: usize, const B: usize, const U: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub in_tdata: Signal<In, Bits<W>>,
    pub in_tkeep: Signal<In, Bits<B>>,
    pub in_tlast: Signal<In, bool>,
    pub in_tuser: Signal<In, Bits<U>>,
    pub in_tvalid: Signal<In, bool>,
    pub in_tready: Signal<Out, bool>,
    pub out_tdata: Signal<Out, Bits<W>>,
    pub out_tkeep: Signal<Out, Bits<B>>,
    pub out_tlast: Signal<Out, bool>,
    pub out_tuser: Signal<Out, Bits<U>>,
    pub out_tvalid: Signal<Out, bool>,
    pub out_tready: Signal<In, bool>,
    /// The output register.
    o_data: DFF<Bits<W>>,
    o_keep: DFF<Bits<B>>,
    o_last: DFF<bool>,
    o_user: DFF<Bits<U>>,
    o_valid: DFF<bool>,
    /// The skid entry: a beat taken while the output stalled, which goes out before any newer one.
    s_data: DFF<Bits<W>>,
    s_keep: DFF<Bits<B>>,
    s_last: DFF<bool>,
    s_user: DFF<Bits<U>>,
    s_valid: DFF<bool>,
    /// The output register moves this cycle (empty, or its beat taken).
    o_move: Signal<Local, bool>,
    take: Signal<Local, bool>,
}

impl<const W: usize, const B: usize, const U: usize> Logic for StreamSlice<W, B, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, o_data, o_keep, o_last, o_user, o_valid, s_data, s_keep, s_last, s_user,
            s_valid
        );
        self.o_move.next = !self.o_valid.q.val() || self.out_tready.val();
        self.take.next = self.in_tvalid.val() && !self.s_valid.q.val();
        if self.o_move.val() {
            // The skid entry first (no input is taken while it is full), else the input's beat.
            if self.s_valid.q.val() {
                self.o_data.d.next = self.s_data.q.val();
                self.o_keep.d.next = self.s_keep.q.val();
                self.o_last.d.next = self.s_last.q.val();
                self.o_user.d.next = self.s_user.q.val();
                self.s_valid.d.next = false;
            } else {
                self.o_data.d.next = self.in_tdata.val();
                self.o_keep.d.next = self.in_tkeep.val();
                self.o_last.d.next = self.in_tlast.val();
                self.o_user.d.next = self.in_tuser.val();
            }
            self.o_valid.d.next = self.s_valid.q.val() || self.in_tvalid.val();
        } else if self.take.val() {
            self.s_data.d.next = self.in_tdata.val();
            self.s_keep.d.next = self.in_tkeep.val();
            self.s_last.d.next = self.in_tlast.val();
            self.s_user.d.next = self.in_tuser.val();
            self.s_valid.d.next = true;
        }
        if self.reset.val() {
            self.o_valid.d.next = false;
            self.s_valid.d.next = false;
        }
        self.in_tready.next = !self.s_valid.q.val();
        self.out_tdata.next = self.o_data.q.val();
        self.out_tkeep.next = self.o_keep.q.val();
        self.out_tlast.next = self.o_last.q.val();
        self.out_tuser.next = self.o_user.q.val();
        self.out_tvalid.next = self.o_valid.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prim::test_rng;

    /// Beats offered at random with random stalls downstream: every beat comes out once, in order,
    /// with its keep, last and user field; `in_ready` only falls with the skid entry full; and with the output
    /// always ready and the input always valid, one beat passes per cycle.
    fn run(seed: u64, p_valid: u64, p_ready: u64, cycles: usize) -> (Vec<u64>, Vec<u64>, usize) {
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<StreamSlice<64, 8, 16>>| {
            x.clock.next = !x.clock.val()
        });
        let out = std::sync::Arc::new(std::sync::Mutex::new((Vec::new(), Vec::new(), 0usize)));
        let o2 = out.clone();
        sim.add_testbench(move |mut sim: Sim<StreamSlice<64, 8, 16>>| {
            let mut x = sim.init()?;
            let mut rng = test_rng(seed);
            x.reset.next = true;
            wait_clock_cycle!(sim, clock, x);
            x.reset.next = false;
            let (mut sent, mut got, mut moved) = (Vec::new(), Vec::new(), 0usize);
            let mut next = 1u64;
            // The source keeps a beat valid until it is taken (valid/ready rules), and may offer
            // the next one in the cycle after.
            let mut offered = false;
            for _ in 0..cycles {
                if !offered && rng() % 100 < p_valid {
                    offered = true;
                    x.in_tvalid.next = true;
                    x.in_tdata.next = next.into();
                    x.in_tkeep.next = (next & 0xFF).into();
                    x.in_tlast.next = next.is_multiple_of(3);
                    x.in_tuser.next = ((next & 0xFFFF) ^ 0x5A5A).into();
                    next += 1;
                }
                x.out_tready.next = rng() % 100 < p_ready;
                x = sim.wait(1, x)?;
                let took = x.in_tvalid.val() && x.in_tready.val();
                let gave = x.out_tvalid.val() && x.out_tready.val();
                if gave {
                    let d = x.out_tdata.val().to_u64();
                    sim_assert!(sim, x.out_tkeep.val().to_u64() == d & 0xFF, x);
                    sim_assert!(sim, x.out_tlast.val() == d.is_multiple_of(3), x);
                    sim_assert!(
                        sim,
                        x.out_tuser.val().to_u64() == ((d & 0xFFFF) ^ 0x5A5A),
                        x
                    );
                    got.push(d);
                    moved += 1;
                }
                wait_clock_cycle!(sim, clock, x);
                if took {
                    sent.push(x.in_tdata.val().to_u64());
                    x.in_tvalid.next = false;
                    offered = false;
                }
            }
            *o2.lock().unwrap() = (sent, got, moved);
            sim.done(x)
        });
        let mut uut = StreamSlice::<64, 8, 16>::default();
        uut.connect_all();
        sim.run(Box::new(uut), 100_000).unwrap();
        let r = out.lock().unwrap();
        (r.0.clone(), r.1.clone(), r.2)
    }

    #[test]
    fn passes_every_beat_once_in_order_under_random_stalls() {
        for seed in 1..=4 {
            let (sent, got, _) = run(seed, 60, 50, 2_000);
            assert!(got.len() > 500, "seed {seed}: {} beats out", got.len());
            // At most the two held beats are still inside.
            assert!(sent.len() - got.len() <= 2, "seed {seed}");
            assert_eq!(got[..], sent[..got.len()], "seed {seed}");
        }
    }

    #[test]
    fn moves_a_beat_every_cycle_when_nothing_stalls() {
        let (sent, got, moved) = run(7, 100, 100, 200);
        // The first beat needs a cycle to reach the output register.
        assert!(moved >= 198, "{moved} beats in 200 cycles");
        assert_eq!(got[..], sent[..got.len()]);
    }

    #[test]
    fn input_ready_is_a_flip_flop() {
        let mut uut = StreamSlice::<512, 64, 17>::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        assert!(v.contains("in_tready = ~s_valid$q;"), "{v}");
        yosys_validate("stream_slice", &v).unwrap();
    }
}
