//! One priority's transmit pause (802.1Qbb clause 36): the time a received PFC or PAUSE frame asked
//! for, counted down in quanta of 512 bit times, and the storm watchdog that stops honouring it.
//!
//! - `load` with `quanta` (re)starts the pause with that time; 0 (an XON) ends it at once. A load
//!   lands after the countdown, so a frame arriving on a quantum boundary is not overridden by it.
//! - A quantum is `quantum_q4` / 16 core cycles (the fraction is carried), which scales the time
//!   with the line rate.
//! - Watchdog: paused for `watchdog_cycles` without a break (0 = off), the pause ends and loads are
//!   ignored for `recovery_cycles` (the priority runs lossy for that while); `watchdog` pulses.
//!
//! Every count runs down to a compare with a constant, so no compare of two 32-bit values follows an
//! adder in one cycle (6 logic levels at most): the quantum's remainder `qrem` (in 1/16 cycles) counts
//! down by 16 and is topped up by `quantum_q4` (less the cycle's 16, a register), the watchdog's
//! `wd_left` counts the paused cycles left down to 0. A new `quantum_q4` takes effect from the next
//! quantum, a new `watchdog_cycles` from the next pause.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct PauseTimer {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub load: Signal<In, bool>,
    pub quanta: Signal<In, Bits<16>>,
    pub quantum_q4: Signal<In, Bits<32>>,
    pub watchdog_cycles: Signal<In, Bits<32>>,
    pub recovery_cycles: Signal<In, Bits<32>>,
    /// The priority's frames must not start.
    pub paused: Signal<Out, bool>,
    pub watchdog: Signal<Out, bool>,
    /// This cycle ends a quantum: at most 16 left of it.
    q_end: Signal<Local, bool>,
    quanta_left: DFF<Bits<16>>,
    qrem: DFF<Bits<32>>,
    /// quantum_q4 - 16: what a quantum ending this cycle leaves for the next, added to `qrem`.
    qstep: DFF<Bits<32>>,
    wd_left: DFF<Bits<32>>,
    wd_on: DFF<bool>,
    ignore_left: DFF<Bits<32>>,
}

impl Logic for PauseTimer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            quanta_left,
            qrem,
            qstep,
            wd_left,
            wd_on,
            ignore_left
        );
        self.watchdog.next = false;
        self.paused.next = (self.quanta_left.q.val() != 0) && (self.ignore_left.q.val() == 0);
        self.qstep.d.next = self.quantum_q4.val() - 16;
        self.wd_on.d.next = self.watchdog_cycles.val() != 0;
        // qrem <= 16, as compares with constants (LUTs, no carry chain).
        self.q_end.next = ((self.qrem.q.val() >> 4) == 0) || (self.qrem.q.val() == 16);
        if self.quanta_left.q.val() != 0 {
            self.wd_left.d.next = self.wd_left.q.val() - 1;
            self.qrem.d.next = self.qrem.q.val() - 16;
            if self.q_end.val() {
                self.qrem.d.next = self.qrem.q.val() + self.qstep.q.val();
                self.quanta_left.d.next = self.quanta_left.q.val() - 1;
            }
        } else {
            self.wd_left.d.next = self.watchdog_cycles.val();
        }
        if self.load.val() && (self.ignore_left.q.val() == 0) {
            self.quanta_left.d.next = self.quanta.val();
            self.qrem.d.next = self.quantum_q4.val();
        }
        if self.ignore_left.q.val() != 0 {
            self.ignore_left.d.next = self.ignore_left.q.val() - 1;
        }
        // Paused for `watchdog_cycles` cycles without a break.
        if self.wd_on.q.val() && (self.quanta_left.q.val() != 0) && (self.wd_left.q.val() == 0) {
            self.watchdog.next = true;
            self.quanta_left.d.next = 0.into();
            self.wd_left.d.next = self.watchdog_cycles.val();
            self.ignore_left.d.next = self.recovery_cycles.val();
        }
        if self.reset.val() {
            self.quanta_left.d.next = 0.into();
            self.ignore_left.d.next = 0.into();
            self.wd_left.d.next = self.watchdog_cycles.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cycles from a load of `quanta` until `paused` drops, with quantum `q4` / 16 cycles; and, with a
    /// watchdog of `wd` cycles, the cycle (counted from the load) its pulse comes, and whether a load
    /// just after it pauses (it must not, during recovery) and one after recovery does.
    fn run(quanta: u64, q4: u64, wd: u64) -> (u64, Option<u64>, bool, bool) {
        let mut uut = PauseTimer::default();
        uut.clock.connect();
        uut.reset.connect();
        uut.load.connect();
        uut.quanta.connect();
        uut.quantum_q4.connect();
        uut.watchdog_cycles.connect();
        uut.recovery_cycles.connect();
        uut.connect_all();
        let out = std::sync::Arc::new(std::sync::Mutex::new((0, None, false, false)));
        let res = out.clone();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<PauseTimer>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut ep: Sim<PauseTimer>| {
            let mut x = ep.init()?;
            x.quantum_q4.next = q4.into();
            x.watchdog_cycles.next = wd.into();
            x.recovery_cycles.next = 20.into();
            x.reset.next = true;
            wait_clock_cycle!(ep, clock, x);
            x.reset.next = false;
            x.load.next = true;
            x.quanta.next = quanta.into();
            wait_clock_cycle!(ep, clock, x);
            x.load.next = false;
            let mut paused = 0;
            let mut pulse = None;
            for cycle in 0..10_000u64 {
                if x.watchdog.val() {
                    pulse = Some(cycle);
                    break;
                }
                if !x.paused.val() {
                    break;
                }
                paused += 1;
                wait_clock_cycle!(ep, clock, x);
            }
            let mut during = false;
            let mut after = false;
            if pulse.is_some() {
                wait_clock_cycle!(ep, clock, x);
                x.load.next = true;
                wait_clock_cycle!(ep, clock, x);
                x.load.next = false;
                during = x.paused.val();
                for _ in 0..25 {
                    wait_clock_cycle!(ep, clock, x);
                }
                x.load.next = true;
                wait_clock_cycle!(ep, clock, x);
                x.load.next = false;
                after = x.paused.val();
            }
            *res.lock().unwrap() = (paused, pulse, during, after);
            ep.done(x)
        });
        sim.run(Box::new(uut), 500_000).unwrap();
        let r = *out.lock().unwrap();
        r
    }

    /// A pause lasts its quanta: ceil(quanta x q4 / 16) cycles, the fraction of a quantum carried from one
    /// to the next (q4 = 20: 1.25 cycles a quantum), one quantum a cycle at most (q4 = 16).
    #[test]
    fn a_pause_lasts_its_quanta() {
        for (quanta, q4) in [
            (1, 16),
            (7, 16),
            (3, 20),
            (5, 20),
            (2, 128),
            (3, 0x30),
            (1, 1000),
        ] {
            let (paused, pulse, ..) = run(quanta, q4, 0);
            assert_eq!(pulse, None);
            assert_eq!(
                paused,
                (quanta * q4).div_ceil(16),
                "{quanta} quanta of {q4} / 16 cycles"
            );
        }
        // An XON (0 quanta) pauses nothing.
        assert_eq!(run(0, 16, 0).0, 0);
    }

    /// The watchdog ends a pause that lasts its cycles, and loads are ignored for the recovery cycles.
    #[test]
    fn the_watchdog_ends_a_long_pause_and_recovers() {
        let (paused, pulse, during, after) = run(1000, 16, 10);
        assert_eq!((paused, pulse), (10, Some(10)));
        assert!(!during, "a load during recovery is ignored");
        assert!(after, "a load after recovery pauses again");
    }

    #[test]
    fn synthesizes() {
        let mut uut = PauseTimer::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        assert!(v.contains("module top"));
    }
}
