//! The requester's retransmission timer (IBA §9.7.6.1.2, the local ACK timeout; also the RNR NAK's wait,
//! C9-150): cycles since the last packet sent, acknowledgement progress or restart, counted while a work
//! request is outstanding and its QP's priority is not paused.
//!
//! A clear is registered: the value reads zero from the next cycle on (the counter's own register is
//! masked while the clear is, and counts on from zero), so the dozen decisions that clear the timer
//! stand behind a register instead of in front of its adder. `run` is registered too: the timer counts
//! from the cycle after the one it is told to run in, to the cycle after the one it is told to stop in
//! (a cycle late either way against timeouts of thousands; in a stretch where `run` holds, as in any
//! fast-forward, it counts exactly those cycles). The increment and the simulation's fast-forward
//! step are one carry chain: value + warp + 1.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct RetryTimer {
    pub clock: Signal<In, Clock>,
    /// Count, from the next cycle.
    pub run: Signal<In, bool>,
    /// Fast-forward (simulation; 0 in hardware): this clock edge stands for `1 + warp` cycles.
    pub warp: Signal<In, Bits<32>>,
    /// Restart from zero: `value` is 0 in the next cycle, and counts from there.
    pub clear: Signal<In, bool>,
    pub value: Signal<Out, Bits<32>>,
    t: DFF<Bits<32>>,
    clr: DFF<bool>,
    run_q: DFF<bool>,
    v: Signal<Local, Bits<32>>,
    step: Signal<Local, Bits<32>>,
    one: Signal<Local, Bits<32>>,
}

impl Logic for RetryTimer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, t, clr, run_q);
        self.clr.d.next = self.clear.val();
        self.run_q.d.next = self.run.val();
        self.v.next = self.t.q.val();
        if self.clr.q.val() {
            self.v.next = 0.into();
        }
        self.value.next = self.v.val();
        self.step.next = 0.into();
        self.one.next = 0.into();
        if self.run_q.q.val() {
            self.step.next = self.warp.val();
            self.one.next = 1.into();
        }
        self.t.d.next = self.v.val() + self.step.val() + self.one.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_a_cycle_behind_run_and_reads_zero_the_cycle_after_a_clear() {
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<RetryTimer>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<RetryTimer>| {
            let mut x = sim.init()?;
            let mut rng = crate::prim::test_rng(9);
            // The model: the timer as the engine kept it, one register cleared or advanced per edge.
            let (mut want, mut run_q) = (0u64, false);
            x.clear.next = true;
            wait_clock_cycle!(sim, clock, x);
            for cycle in 0..3000 {
                let r = rng();
                let run = r & 3 != 0;
                let clear = (r >> 2) & 15 == 0;
                let warp = if (r >> 6) & 7 == 0 {
                    (r >> 9) & 0xFFFF
                } else {
                    0
                };
                x.run.next = run;
                x.clear.next = clear;
                x.warp.next = warp.into();
                x = sim.wait(1, x)?;
                if x.value.val().index() as u64 != want {
                    println!(
                        "cycle {cycle}: value {:x}, want {want:x}",
                        x.value.val().index()
                    );
                }
                sim_assert_eq!(sim, x.value.val().index() as u64, want, x);
                want = if clear {
                    0
                } else if run_q {
                    (want + 1 + warp) & 0xFFFF_FFFF
                } else {
                    want
                };
                run_q = run;
                wait_clock_cycle!(sim, clock, x);
            }
            sim.done(x)
        });
        sim.run(Box::new(RetryTimer::default()), 100_000).unwrap();
    }

    #[test]
    fn synthesizes() {
        let mut uut = RetryTimer::default();
        uut.connect_all();
        yosys_validate("retry_timer", &generate_verilog(&uut)).unwrap();
    }
}
