//! One priority's transmit pause (802.1Qbb clause 36): the time a received PFC or PAUSE frame asked
//! for, counted down in quanta of 512 bit times, and the storm watchdog that stops honouring it.
//!
//! - `load` with `quanta` (re)starts the pause with that time; 0 (an XON) ends it at once. A load
//!   lands after the countdown, so a frame arriving on a quantum boundary is not overridden by it.
//! - A quantum is `quantum_q4` / 16 core cycles (the fraction is carried), which scales the time
//!   with the line rate.
//! - Watchdog: paused for `watchdog_cycles` without a break (0 = off), the pause ends and loads are
//!   ignored for `recovery_cycles` (the priority runs lossy for that while); `watchdog` pulses.
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
    qnext: Signal<Local, Bits<32>>,
    quanta_left: DFF<Bits<16>>,
    qcount: DFF<Bits<32>>,
    run: DFF<Bits<32>>,
    ignore_left: DFF<Bits<32>>,
}

impl Logic for PauseTimer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, quanta_left, qcount, run, ignore_left);
        self.watchdog.next = false;
        self.paused.next = (self.quanta_left.q.val() != 0) && (self.ignore_left.q.val() == 0);
        self.qnext.next = self.qcount.q.val() + 16;
        if self.quanta_left.q.val() != 0 {
            self.run.d.next = self.run.q.val() + 1;
            self.qcount.d.next = self.qnext.val();
            if self.qnext.val() >= self.quantum_q4.val() {
                self.qcount.d.next = self.qnext.val() - self.quantum_q4.val();
                self.quanta_left.d.next = self.quanta_left.q.val() - 1;
            }
        } else {
            self.run.d.next = 0.into();
        }
        if self.load.val() && (self.ignore_left.q.val() == 0) {
            self.quanta_left.d.next = self.quanta.val();
            self.qcount.d.next = 0.into();
        }
        if self.ignore_left.q.val() != 0 {
            self.ignore_left.d.next = self.ignore_left.q.val() - 1;
        }
        if (self.watchdog_cycles.val() != 0) && (self.run.q.val() >= self.watchdog_cycles.val()) {
            self.watchdog.next = true;
            self.quanta_left.d.next = 0.into();
            self.run.d.next = 0.into();
            self.ignore_left.d.next = self.recovery_cycles.val();
        }
        if self.reset.val() {
            self.quanta_left.d.next = 0.into();
            self.ignore_left.d.next = 0.into();
            self.run.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthesizes() {
        let mut uut = PauseTimer::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        assert!(v.contains("module top"));
    }
}
