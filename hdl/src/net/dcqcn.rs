//! DCQCN reaction point (Zhu et al., SIGCOMM 2015; RoCEv2 congestion control) for the QP, and the pacer that
//! holds RoCE transmission to its rate.
//!
//! Rates are bytes per core cycle × 256 (16 bits: 2048 = 8 B/cycle, the 64-bit datapath's line rate). On a
//! CNP: target RT = RC, RC = RC × (1 − α/2), α = (1 − g)·α + g with g = 1/256 (α in 1/1024 units). Without
//! CNPs α decays by (1 − g) every `alpha_timer` cycles. The rate rises in stages, each stage ended by the
//! rate timer or by `byte_counter` bytes sent: the first F stages are fast recovery (RC = (RT + RC) / 2),
//! then additive increase (RT += R_AI), then, when both counters passed F, hyper increase (RT += R_HAI); RC
//! never exceeds the line rate or falls below the minimum. F is taken when the stages restart (at a CNP,
//! and when the limiter starts). The pacer is a leaky bucket: every RoCE beat sent adds its bytes × 256
//! to a debt that drains by RC each cycle, and no new RoCE frame starts while the debt is above zero.
//!
//! Every step is one add or compare per cycle (no register-to-register path over 6 LUT levels at 512
//! bits, `bitstream/depth.sh`):
//! - The cut RC × α / 2 is a registered multiply (`cut`), and RC − cut and (1 − g)·α are registered after
//!   it, so a CNP is applied (`cnp_go`) once RC and α have not moved for two clock edges (`calm`): a
//!   cycle after it arrives, as a rule; two CNPs in a row: the second is cut three cycles after the
//!   first. While a CNP waits (and in the cycle it arrives) nothing else moves RC, RT or α.
//! - A stage's rate increase runs over three cycles (`st1`: RT + the increase, `st2`: RT clamped to the
//!   line, `st3`: RC = (RT + RC) / 2); a stage that ends while one is under way waits behind it (`pend`),
//!   and a CNP drops the one under way (its cut restarts the stages anyway, as a CNP and a stage in the
//!   same cycle always did).
//! - Whether a stage counter has passed F is a flag, kept by counting F down from the restart.
//! - The pacer adds `−RC` or `beat − RC` to the debt, both registered from the cycle before's RC (a new
//!   RC drains from the cycle after it lands); the debt has 24 bits: it never holds more than a frame's beats
//!   of debt (a frame of the limiter's QP starts only at zero), under 2^21 at either width.
//!
//! One instance is one rate limiter; `net::rate_limiters` gives them to the QPs that receive CNPs.
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Dcqcn<const B: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    /// Off: RC stays at the line rate and nothing is held.
    pub enable: Signal<In, bool>,
    /// Start over (at the line rate, α = 1): the limiter is given to another QP.
    pub clear: Signal<In, bool>,
    pub line_rate: Signal<In, Bits<32>>,
    pub min_rate: Signal<In, Bits<32>>,
    pub rate_ai: Signal<In, Bits<32>>,
    pub rate_hai: Signal<In, Bits<32>>,
    pub rate_timer: Signal<In, Bits<32>>,
    pub alpha_timer: Signal<In, Bits<32>>,
    pub byte_counter: Signal<In, Bits<32>>,
    pub f_stages: Signal<In, Bits<32>>,
    /// A CNP for our QP arrived.
    pub cnp: Signal<In, bool>,
    /// A beat of a RoCE frame left this cycle.
    pub beat_sent: Signal<In, bool>,
    /// Fast-forward (simulation; 0 in hardware): this clock edge stands for `1 + warp` cycles. The
    /// simulator only sets it while the core is quiet and no more than `wake` allows.
    pub warp: Signal<In, Bits<32>>,
    /// Cycles the rate and α timers can run before either expires, as of the last cycle.
    pub wake: Signal<Out, Bits<32>>,
    /// Do not start a RoCE frame now.
    pub hold: Signal<Out, bool>,
    /// The debt will take more than 16 cycles to drain: not worth building the QP's next packet yet
    /// (the engine serves other jobs meanwhile; `hold` does the fine timing at the arbiter).
    pub busy: Signal<Out, bool>,
    pub rate: Signal<Out, Bits<32>>,
    pub decrease_inc: Signal<Out, bool>,
    /// Back at the line rate (RT at it, RC within one step of it: the halving rounds down) with no
    /// debt and no CNP waiting for its cut: the limiter can be let go.
    pub recovered: Signal<Out, bool>,
    rc: DFF<Bits<16>>,
    rt: DFF<Bits<16>>,
    alpha: DFF<Bits<16>>,
    t_rate: DFF<Bits<32>>,
    t_alpha: DFF<Bits<32>>,
    bytes: DFF<Bits<32>>,
    /// Stages each counter has still to end before it passes F, and whether it has.
    t_left: DFF<Bits<32>>,
    b_left: DFF<Bits<32>>,
    t_past: DFF<bool>,
    b_past: DFF<bool>,
    /// The rate increase of a stage under way: its RT increase, RT + it, and the step it is at.
    inc: DFF<Bits<16>>,
    rt_sum: DFF<Bits<17>>,
    st1: DFF<bool>,
    st2: DFF<bool>,
    st3: DFF<bool>,
    /// A stage ended while another's increase was under way, and its RT increase.
    pend: DFF<bool>,
    pend_inc: DFF<Bits<16>>,
    debt: DFF<Bits<24>>,
    /// What a cycle adds to the debt without a beat (−RC) and with one (beat − RC), 25-bit two's
    /// complement.
    kr0: DFF<Bits<25>>,
    kr1: DFF<Bits<25>>,
    /// The RC those are from: the cycle before's.
    rc_p: DFF<Bits<16>>,
    /// RC × α >> 11, from the last cycle's RC and α; RC less it (17 bits, negative below 0), a cycle
    /// later; (1 − g)·α.
    cut: DFF<Bits<32>>,
    rc_less: DFF<Bits<17>>,
    alpha_dec: DFF<Bits<16>>,
    /// A CNP arrived and is not yet applied.
    cnp_wait: DFF<bool>,
    /// RC and α did not move at the last clock edge (`calm1`), nor at the one before (`calm2`).
    calm1: DFF<bool>,
    calm2: DFF<bool>,
    /// The line rate less one (saturating at 0), for `recovered`.
    line_m1: DFF<Bits<16>>,
    wake_r: DFF<Bits<32>>,
    left_rate: Signal<Local, Bits<32>>,
    left_alpha: Signal<Local, Bits<32>>,
    /// Apply the waiting CNP this cycle; hold RC, RT and α still for it.
    cnp_go: Signal<Local, bool>,
    frozen: Signal<Local, bool>,
    /// The rate timer / byte counter ends a stage this cycle, and whether either does.
    t_end: Signal<Local, bool>,
    b_end: Signal<Local, bool>,
    stage_end: Signal<Local, bool>,
    /// RC, RT or α is written at this edge.
    moved: Signal<Local, bool>,
    stage_inc: Signal<Local, Bits<16>>,
    rc_cut: Signal<Local, Bits<16>>,
    line16: Signal<Local, Bits<16>>,
    min16: Signal<Local, Bits<16>>,
    sum17: Signal<Local, Bits<17>>,
    debt_s0: Signal<Local, Bits<25>>,
    debt_s1: Signal<Local, Bits<25>>,
    drained: Signal<Local, bool>,
    /// g = 1/256 in α's 1/1024 units.
    g_q10: Constant<Bits<16>>,
    beat_debt: Constant<Bits<24>>,
    beat_debt25: Constant<Bits<25>>,
    beat_bytes: Constant<Bits<32>>,
}

impl<const B: usize> Default for Dcqcn<B> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            clear: Default::default(),
            line_rate: Default::default(),
            min_rate: Default::default(),
            rate_ai: Default::default(),
            rate_hai: Default::default(),
            rate_timer: Default::default(),
            alpha_timer: Default::default(),
            byte_counter: Default::default(),
            f_stages: Default::default(),
            cnp: Default::default(),
            beat_sent: Default::default(),
            warp: Default::default(),
            wake: Default::default(),
            hold: Default::default(),
            busy: Default::default(),
            rate: Default::default(),
            decrease_inc: Default::default(),
            recovered: Default::default(),
            rc: Default::default(),
            rt: Default::default(),
            alpha: Default::default(),
            t_rate: Default::default(),
            t_alpha: Default::default(),
            bytes: Default::default(),
            t_left: Default::default(),
            b_left: Default::default(),
            t_past: Default::default(),
            b_past: Default::default(),
            inc: Default::default(),
            rt_sum: Default::default(),
            st1: Default::default(),
            st2: Default::default(),
            st3: Default::default(),
            pend: Default::default(),
            pend_inc: Default::default(),
            debt: Default::default(),
            kr0: Default::default(),
            kr1: Default::default(),
            rc_p: Default::default(),
            cut: Default::default(),
            rc_less: Default::default(),
            alpha_dec: Default::default(),
            cnp_wait: Default::default(),
            calm1: Default::default(),
            calm2: Default::default(),
            line_m1: Default::default(),
            wake_r: Default::default(),
            left_rate: Default::default(),
            left_alpha: Default::default(),
            cnp_go: Default::default(),
            frozen: Default::default(),
            t_end: Default::default(),
            b_end: Default::default(),
            stage_end: Default::default(),
            moved: Default::default(),
            stage_inc: Default::default(),
            rc_cut: Default::default(),
            line16: Default::default(),
            min16: Default::default(),
            sum17: Default::default(),
            debt_s0: Default::default(),
            debt_s1: Default::default(),
            drained: Default::default(),
            g_q10: Constant::new(4.into()),
            beat_debt: Constant::new(((B * 256) as u64).into()),
            beat_debt25: Constant::new(((B * 256) as u64).into()),
            beat_bytes: Constant::new((B as u64).into()),
        }
    }
}

impl<const B: usize> Logic for Dcqcn<B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, rc, rt, alpha, t_rate, t_alpha, bytes, t_left, b_left, t_past, b_past,
            inc, rt_sum, st1, st2, st3, pend, pend_inc, debt, kr0, kr1, rc_p, cut, rc_less,
            alpha_dec, cnp_wait, calm1, calm2, line_m1, wake_r
        );
        self.line16.next = bit_cast::<16, 32>(self.line_rate.val());
        self.min16.next = bit_cast::<16, 32>(self.min_rate.val());
        self.rate.next = bit_cast::<32, 16>(self.rc.q.val());
        self.decrease_inc.next = false;
        self.moved.next = false;
        // The cut's operands, a stage each: RC × α / 2 with α in 1/1024 (the 16 × 16 multiplier, then
        // >> 11), then RC less it; (1 − g)·α beside them.
        self.cut.d.next = (self.rc.q.val() * self.alpha.q.val()) >> 11;
        self.rc_less.d.next =
            bit_cast::<17, 16>(self.rc.q.val()) - bit_cast::<17, 32>(self.cut.q.val());
        self.alpha_dec.d.next = self.alpha.q.val() - (self.alpha.q.val() >> 8);
        self.rc_cut.next = bit_cast::<16, 17>(self.rc_less.q.val());
        if self.rc_less.q.val().get_bit(16)
            || (bit_cast::<16, 17>(self.rc_less.q.val()) < self.min16.val())
        {
            self.rc_cut.next = self.min16.val();
        }
        self.line_m1.d.next = self.line16.val() - 1;
        if self.line16.val() == 0 {
            self.line_m1.d.next = 0.into();
        }

        self.t_rate.d.next = self.t_rate.q.val() + 1 + self.warp.val();
        self.t_alpha.d.next = self.t_alpha.q.val() + 1 + self.warp.val();
        // Fast-forward may skip the cycles before the first timer expires.
        self.left_rate.next = 0.into();
        if self.t_rate.q.val() < self.rate_timer.val() {
            self.left_rate.next = self.rate_timer.val() - self.t_rate.q.val() - 1;
        }
        self.left_alpha.next = 0.into();
        if self.t_alpha.q.val() < self.alpha_timer.val() {
            self.left_alpha.next = self.alpha_timer.val() - self.t_alpha.q.val() - 1;
        }
        self.wake_r.d.next = self.left_rate.val();
        if self.left_alpha.val() < self.left_rate.val() {
            self.wake_r.d.next = self.left_alpha.val();
        }
        if !self.enable.val() {
            self.wake_r.d.next = !bits::<32>(0); // all ones: the timers stand still
        }
        self.wake.next = self.wake_r.q.val();
        if self.beat_sent.val() {
            self.bytes.d.next = self.bytes.q.val() + self.beat_bytes.val();
        }
        // A CNP waits for its cut's operands to be those of the current RC and α; meanwhile nothing
        // else moves RC, RT or α.
        self.cnp_go.next = self.cnp_wait.q.val() && self.calm2.q.val();
        self.frozen.next = self.cnp.val() || self.cnp_wait.q.val();
        self.cnp_wait.d.next = self.cnp.val() || (self.cnp_wait.q.val() && !self.calm2.q.val());

        // A stage ends on the rate timer or the byte counter; the counters count each stage towards F.
        self.t_end.next = self.t_rate.q.val() >= self.rate_timer.val();
        self.b_end.next = self.bytes.q.val() >= self.byte_counter.val();
        self.stage_end.next = self.t_end.val() || self.b_end.val();
        if self.t_end.val() {
            self.t_rate.d.next = 0.into();
            if self.t_left.q.val() == 0 {
                self.t_past.d.next = true;
            } else {
                self.t_left.d.next = self.t_left.q.val() - 1;
            }
        }
        if self.b_end.val() {
            self.bytes.d.next = 0.into();
            if self.b_left.q.val() == 0 {
                self.b_past.d.next = true;
            } else {
                self.b_left.d.next = self.b_left.q.val() - 1;
            }
        }
        // The stage's RT increase, from the counts before it ended.
        self.stage_inc.next = 0.into();
        if self.t_past.q.val() && self.b_past.q.val() {
            self.stage_inc.next = bit_cast::<16, 32>(self.rate_hai.val());
        } else if self.t_past.q.val() || self.b_past.q.val() {
            self.stage_inc.next = bit_cast::<16, 32>(self.rate_ai.val());
        }
        // The increase, a step a cycle; the next stage's may start as this one's reaches RC.
        self.st2.d.next = self.st1.q.val();
        self.st3.d.next = self.st2.q.val();
        self.st1.d.next = false;
        if self.stage_end.val() {
            if self.st1.q.val() || self.st2.q.val() {
                self.pend.d.next = true;
                self.pend_inc.d.next = self.stage_inc.val();
            } else {
                self.st1.d.next = true;
                self.inc.d.next = self.stage_inc.val();
            }
        } else if self.pend.q.val() && !self.st1.q.val() && !self.st2.q.val() {
            self.pend.d.next = false;
            self.st1.d.next = true;
            self.inc.d.next = self.pend_inc.q.val();
        }
        self.rt_sum.d.next =
            bit_cast::<17, 16>(self.rt.q.val()) + bit_cast::<17, 16>(self.inc.q.val());
        if self.st2.q.val() {
            self.moved.next = true;
            self.rt.d.next = self.line16.val();
            if self.rt_sum.q.val() < bit_cast::<17, 16>(self.line16.val()) {
                self.rt.d.next = bit_cast::<16, 17>(self.rt_sum.q.val());
            }
        }
        self.sum17.next = bit_cast::<17, 16>(self.rt.q.val()) + bit_cast::<17, 16>(self.rc.q.val());
        if self.st3.q.val() {
            self.moved.next = true;
            self.rc.d.next = bit_cast::<16, 17>(self.sum17.val() >> 1);
        }
        // α decays without CNPs.
        if self.t_alpha.q.val() >= self.alpha_timer.val() {
            self.t_alpha.d.next = 0.into();
            self.moved.next = true;
            self.alpha.d.next = self.alpha.q.val() - (self.alpha.q.val() >> 8);
        }
        if self.frozen.val() {
            // Held for the CNP: no increase or decay lands; a stage under way or waiting is dropped.
            self.moved.next = false;
            self.rt.d.next = self.rt.q.val();
            self.rc.d.next = self.rc.q.val();
            self.alpha.d.next = self.alpha.q.val();
            self.st1.d.next = false;
            self.st2.d.next = false;
            self.st3.d.next = false;
            self.pend.d.next = false;
        }
        // A CNP: cut the rate, remember the target, raise α, restart the stages.
        if self.cnp_go.val() {
            // Counted as a cut only when the reaction point is on (off, the reset below keeps RC).
            self.decrease_inc.next = self.enable.val();
            self.moved.next = true;
            self.rt.d.next = self.rc.q.val();
            self.rc.d.next = self.rc_cut.val();
            self.alpha.d.next = self.alpha_dec.q.val() + self.g_q10.val();
            self.t_rate.d.next = 0.into();
            self.t_alpha.d.next = 0.into();
            self.bytes.d.next = 0.into();
            self.t_left.d.next = self.f_stages.val();
            self.b_left.d.next = self.f_stages.val();
            self.t_past.d.next = false;
            self.b_past.d.next = false;
        }
        self.calm1.d.next = !self.moved.val();
        self.calm2.d.next = self.calm1.q.val() && !self.moved.val();
        // The pacer: a debt of bytes × 256 drained by RC every cycle, a beat sent or not (draining only
        // on idle cycles would halve the rate: a frame's beats would add debt that only its gap repays).
        self.kr0.d.next = bits::<25>(0) - bit_cast::<25, 16>(self.rc.q.val());
        self.kr1.d.next = self.beat_debt25.val() - bit_cast::<25, 16>(self.rc.q.val());
        self.rc_p.d.next = self.rc.q.val();
        // Both sums side by side, so the beat (a late signal: its QP's match) only picks one.
        self.debt_s0.next = bit_cast::<25, 24>(self.debt.q.val()) + self.kr0.q.val();
        self.debt_s1.next = bit_cast::<25, 24>(self.debt.q.val()) + self.kr1.q.val();
        // Drained: only this cycle's beat is owed.
        self.drained.next = self.debt.q.val() < bit_cast::<24, 16>(self.rc_p.q.val());
        if self.beat_sent.val() {
            self.debt.d.next = bit_cast::<24, 25>(self.debt_s1.val());
            if self.drained.val() {
                self.debt.d.next = self.beat_debt.val();
            }
        } else {
            self.debt.d.next = bit_cast::<24, 25>(self.debt_s0.val());
            if self.drained.val() {
                self.debt.d.next = 0.into();
            }
        }
        self.hold.next = self.enable.val() && (self.debt.q.val() != 0);
        self.busy.next =
            self.enable.val() && (self.debt.q.val() > (bit_cast::<24, 16>(self.rc.q.val()) << 4));
        self.recovered.next = (self.rt.q.val() == self.line16.val())
            && (self.rc.q.val() >= self.line_m1.q.val())
            && (self.debt.q.val() == 0)
            && !self.cnp_wait.q.val();
        // Off, the timers stand at 0 (they start when the reaction point does), so an idle core with
        // DCQCN off has no timer running here (nothing for fast-forward to wake for).
        if self.reset.val() || !self.enable.val() {
            self.t_rate.d.next = 0.into();
            self.t_alpha.d.next = 0.into();
        }
        if self.reset.val() || !self.enable.val() || self.clear.val() {
            self.cnp_wait.d.next = false;
            self.calm1.d.next = false;
            self.calm2.d.next = false;
            self.st1.d.next = false;
            self.st2.d.next = false;
            self.st3.d.next = false;
            self.pend.d.next = false;
            self.rc.d.next = self.line16.val();
            self.rt.d.next = self.line16.val();
            self.alpha.d.next = 1024.into();
            self.t_left.d.next = self.f_stages.val();
            self.b_left.d.next = self.f_stages.val();
            self.t_past.d.next = false;
            self.b_past.d.next = false;
            self.debt.d.next = 0.into();
        }
    }
}

/// Tests of a block with the DCQCN parameter inputs (`Dcqcn`, `RateLimiters`): `connect` them, or `set`
/// them to the tests' common values (line rate 2048, minimum 16, AI and HAI 400, the byte counter out of
/// the way, the reaction point on) with the given rate timer, α timer and F.
#[cfg(test)]
macro_rules! dcqcn_params {
    (connect $uut:expr) => {
        $uut.enable.connect();
        $uut.line_rate.connect();
        $uut.min_rate.connect();
        $uut.rate_ai.connect();
        $uut.rate_hai.connect();
        $uut.rate_timer.connect();
        $uut.alpha_timer.connect();
        $uut.byte_counter.connect();
        $uut.f_stages.connect();
        $uut.warp.connect();
    };
    (set $x:expr, $rate_timer:expr, $alpha_timer:expr, $f:expr) => {
        $x.enable.next = true;
        $x.line_rate.next = 2048.into();
        $x.min_rate.next = 16.into();
        $x.rate_ai.next = 400.into();
        $x.rate_hai.next = 400.into();
        $x.rate_timer.next = ($rate_timer as u64).into();
        $x.alpha_timer.next = ($alpha_timer as u64).into();
        $x.byte_counter.next = 1_000_000.into();
        $x.f_stages.next = ($f as u64).into();
    };
}
#[cfg(test)]
pub(crate) use dcqcn_params;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthesizes() {
        let mut uut = Dcqcn::<8>::default();
        uut.connect_all();
        assert!(generate_verilog(&uut).contains("module top"));
    }

    /// A limiter for rust-hdl's simulator, its inputs driven by the test.
    fn connected() -> Dcqcn<8> {
        let mut uut = Dcqcn::<8>::default();
        uut.clock.connect();
        uut.reset.connect();
        uut.clear.connect();
        dcqcn_params!(connect uut);
        uut.cnp.connect();
        uut.beat_sent.connect();
        uut.connect_all();
        uut
    }

    /// DCQCN's event rules in the unit's fixed point (the cocotb benches' `model/dcqcn.py`): a CNP, and a
    /// rate-timer stage; returns RC.
    struct Model {
        rc: u64,
        rt: u64,
        alpha: u64,
        t_stage: u64,
    }

    impl Model {
        fn cnp(&mut self) {
            self.rt = self.rc;
            self.rc = (self.rc - ((self.rc * self.alpha) >> 11)).max(16);
            self.alpha = self.alpha - (self.alpha >> 8) + 4;
            self.t_stage = 0;
        }

        fn stage(&mut self, f: u64, ai: u64) {
            // The byte counter never ends a stage here, so only the timer's count passes F (AI, not HAI).
            if self.t_stage > f {
                self.rt = (self.rt + ai).min(2048);
            }
            self.rc = (self.rt + self.rc) >> 1;
            self.t_stage += 1;
        }
    }

    /// rust-hdl's own simulator: after two CNPs, every rate-timer stage's RC is the model's: F stages
    /// of fast recovery, then additive increase, up to the line rate. The RC values the unit shows, each
    /// change once, are the model's sequence.
    #[test]
    fn stages_recover_as_the_model_does() {
        const TIMER: u64 = 30;
        const F: u64 = 3;
        const AI: u64 = 150;
        let uut = connected();
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u64>::new()));
        let s2 = seen.clone();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<Dcqcn<8>>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut ep: Sim<Dcqcn<8>>| {
            let mut x = ep.init()?;
            dcqcn_params!(set x, TIMER, 1_000_000, F);
            x.rate_ai.next = AI.into();
            x.rate_hai.next = 999.into();
            x.reset.next = true;
            wait_clock_cycle!(ep, clock, x);
            x.reset.next = false;
            let mut last = 0;
            for cycle in 0..40 * TIMER {
                // Two CNPs, the second well after the first has landed.
                x.cnp.next = cycle == 3 || cycle == 9;
                wait_clock_cycle!(ep, clock, x);
                let rc = x.rate.val().to_u64();
                if rc != last {
                    s2.lock().unwrap().push(rc);
                    last = rc;
                }
            }
            ep.done(x)
        });
        sim.run(Box::new(uut), 100_000).unwrap();
        let mut m = Model {
            rc: 2048,
            rt: 2048,
            alpha: 1024,
            t_stage: 0,
        };
        let mut want = vec![m.rc];
        m.cnp();
        want.push(m.rc);
        m.cnp();
        want.push(m.rc);
        // 36 stages, fewer than the run's (rate-timer stages every TIMER + 1 cycles); RC is back at the
        // line (or a step under it, the halving rounds down) long before.
        for _ in 0..36 {
            m.stage(F, AI);
            if m.rc != *want.last().unwrap() {
                want.push(m.rc);
            }
        }
        assert!(want.len() > 8 && m.rc >= 2047, "{want:?}");
        assert_eq!(*seen.lock().unwrap(), want);
    }

    /// rust-hdl's own simulator: two CNPs on consecutive cycles cut RC twice, each from the RC and α of
    /// its own time (2048 → 1024 → 512 with α = 1), because the second waits until the registered product
    /// has caught up with the first cut; each cut is counted once; and a limiter with a CNP waiting is
    /// not `recovered`, so the pool cannot let it go before the cut lands.
    #[test]
    fn back_to_back_cnps_cut_from_current_rate() {
        let uut = connected();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<Dcqcn<8>>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut ep: Sim<Dcqcn<8>>| {
            let mut x = ep.init()?;
            dcqcn_params!(set x, 1_000_000, 1_000_000, 5);
            x.reset.next = true;
            wait_clock_cycle!(ep, clock, x);
            x.reset.next = false;
            wait_clock_cycle!(ep, clock, x);
            wait_clock_cycle!(ep, clock, x);
            sim_assert_eq!(ep, x.rate.val(), 2048, x);
            sim_assert!(ep, x.recovered.val(), x);
            // CNPs in cycles 0 and 1; in cycle 1 the first waits for its cut (not recovered).
            let mut cuts = 0;
            for cycle in 0..8 {
                x.cnp.next = cycle < 2;
                if cycle == 1 {
                    sim_assert!(ep, !x.recovered.val(), x);
                }
                if x.decrease_inc.val() {
                    cuts += 1;
                }
                wait_clock_cycle!(ep, clock, x);
            }
            sim_assert_eq!(ep, cuts, 2, x);
            sim_assert_eq!(ep, x.rate.val(), 512, x);
            ep.done(x)
        });
        sim.run(Box::new(uut), 1_000).unwrap();
    }
}
