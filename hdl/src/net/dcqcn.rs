//! DCQCN reaction point (Zhu et al., SIGCOMM 2015; RoCEv2 congestion control) for the QP, and the pacer that
//! holds RoCE transmission to its rate.
//!
//! Rates are bytes per core cycle × 256 (16 bits: 2048 = 8 B/cycle, the 64-bit datapath's line rate). On a
//! CNP: target RT = RC, RC = RC × (1 − α/2), α = (1 − g)·α + g with g = 1/256 (α in 1/1024 units). Without
//! CNPs α decays by (1 − g) every `alpha_timer` cycles. The rate rises in stages, each stage ended by the
//! rate timer or by `byte_counter` bytes sent: the first F stages are fast recovery (RC = (RT + RC) / 2),
//! then additive increase (RT += R_AI), then, when both counters passed F, hyper increase (RT += R_HAI); RC
//! never exceeds the line rate or falls below the minimum. The pacer is a leaky bucket: every RoCE beat
//! sent adds its bytes × 256 to a debt that drains by RC each cycle, and no new RoCE frame starts while
//! the debt is above zero.
//!
//! The cut RC × α / 2 is a registered multiply (`cut`, from the last cycle's RC and α), so a CNP takes
//! effect a cycle after it arrives: it waits in `cnp_wait`, and meanwhile no stage or α decay moves RC or
//! α, so the product is the current one when it is applied (two CNPs in a row: the second waits a cycle
//! more, `settled`). In one cycle the multiply and the choice of the new RC were the unit's slowest path
//! on an ECP5 (docs/resources.md).
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
    t_stage: DFF<Bits<32>>,
    b_stage: DFF<Bits<32>>,
    debt: DFF<Bits<32>>,
    /// RC × α >> 11, from the last cycle's RC and α.
    cut: DFF<Bits<32>>,
    /// A CNP arrived and is not yet applied.
    cnp_wait: DFF<bool>,
    /// No cut was applied at the last clock edge. For a waiting CNP that means `cut` is RC × α of their
    /// current values: nothing else moves them while it waits, nor in the cycle it arrived.
    settled: DFF<bool>,
    wake_r: DFF<Bits<32>>,
    left_rate: Signal<Local, Bits<32>>,
    left_alpha: Signal<Local, Bits<32>>,
    /// Apply the waiting CNP this cycle; hold RC, RT and α still for it.
    cnp_go: Signal<Local, bool>,
    frozen: Signal<Local, bool>,
    rc_cut: Signal<Local, Bits<16>>,
    stage_up: Signal<Local, bool>,
    rt_new: Signal<Local, Bits<16>>,
    rc_new: Signal<Local, Bits<16>>,
    line16: Signal<Local, Bits<16>>,
    min16: Signal<Local, Bits<16>>,
    sum17: Signal<Local, Bits<17>>,
    alpha_dec: Signal<Local, Bits<16>>,
    /// The debt after this cycle's drain, before this cycle's beat.
    debt_left: Signal<Local, Bits<32>>,
    /// g = 1/256 in α's 1/1024 units.
    g_q10: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
    beat_debt: Constant<Bits<32>>,
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
            wake_r: Default::default(),
            left_rate: Default::default(),
            left_alpha: Default::default(),
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
            t_stage: Default::default(),
            b_stage: Default::default(),
            debt: Default::default(),
            cut: Default::default(),
            rc_cut: Default::default(),
            cnp_wait: Default::default(),
            settled: Default::default(),
            cnp_go: Default::default(),
            frozen: Default::default(),
            stage_up: Default::default(),
            rt_new: Default::default(),
            rc_new: Default::default(),
            line16: Default::default(),
            min16: Default::default(),
            sum17: Default::default(),
            alpha_dec: Default::default(),
            debt_left: Default::default(),
            g_q10: Constant::new(4.into()),
            one16: Constant::new(1.into()),
            beat_debt: Constant::new(((B * 256) as u64).into()),
            beat_bytes: Constant::new((B as u64).into()),
        }
    }
}

impl<const B: usize> Logic for Dcqcn<B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, rc, rt, alpha, t_rate, t_alpha, bytes, t_stage, b_stage, debt, cut,
            cnp_wait, settled, wake_r
        );
        self.line16.next = bit_cast::<16, 32>(self.line_rate.val());
        self.min16.next = bit_cast::<16, 32>(self.min_rate.val());
        self.rate.next = bit_cast::<32, 16>(self.rc.q.val());
        self.decrease_inc.next = false;
        // RC × α / 2 with α in 1/1024: the 16 × 16 multiplier, then >> 11, registered.
        self.cut.d.next = (self.rc.q.val() * self.alpha.q.val()) >> 11;
        self.rc_cut.next = self.rc.q.val() - bit_cast::<16, 32>(self.cut.q.val());
        if self.rc_cut.val() < self.min16.val() {
            self.rc_cut.next = self.min16.val();
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
        // A CNP waits a cycle for `cut`; while it waits nothing else moves RC, RT or α (its cut resets
        // the stages anyway, as a CNP and a stage in the same cycle always did).
        self.cnp_go.next = self.cnp_wait.q.val() && self.settled.q.val();
        self.frozen.next = self.cnp.val() || self.cnp_wait.q.val();
        self.cnp_wait.d.next = self.cnp.val() || (self.cnp_wait.q.val() && !self.settled.q.val());
        // A rate increase stage ends on the timer or the byte counter.
        self.stage_up.next = false;
        self.rt_new.next = self.rt.q.val();
        if self.t_rate.q.val() >= self.rate_timer.val() {
            self.stage_up.next = true;
            self.t_rate.d.next = 0.into();
            self.t_stage.d.next = self.t_stage.q.val() + 1;
        }
        if self.bytes.q.val() >= self.byte_counter.val() {
            self.stage_up.next = true;
            self.bytes.d.next = 0.into();
            self.b_stage.d.next = self.b_stage.q.val() + 1;
        }
        if (self.t_stage.q.val() > self.f_stages.val())
            && (self.b_stage.q.val() > self.f_stages.val())
        {
            self.rt_new.next = self.rt.q.val() + bit_cast::<16, 32>(self.rate_hai.val());
        } else if (self.t_stage.q.val() > self.f_stages.val())
            || (self.b_stage.q.val() > self.f_stages.val())
        {
            self.rt_new.next = self.rt.q.val() + bit_cast::<16, 32>(self.rate_ai.val());
        }
        if self.rt_new.val() > self.line16.val() {
            self.rt_new.next = self.line16.val();
        }
        self.sum17.next =
            bit_cast::<17, 16>(self.rt_new.val()) + bit_cast::<17, 16>(self.rc.q.val());
        self.rc_new.next = bit_cast::<16, 17>(self.sum17.val() >> 1);
        if self.stage_up.val() && !self.frozen.val() {
            self.rt.d.next = self.rt_new.val();
            self.rc.d.next = self.rc_new.val();
        }
        self.alpha_dec.next = self.alpha.q.val() - (self.alpha.q.val() >> 8);
        // α decays without CNPs.
        if (self.t_alpha.q.val() >= self.alpha_timer.val()) && !self.frozen.val() {
            self.t_alpha.d.next = 0.into();
            self.alpha.d.next = self.alpha_dec.val();
        }
        // A CNP: cut the rate, remember the target, raise α, restart the stages.
        if self.cnp_go.val() {
            // Counted as a cut only when the reaction point is on (off, the reset below keeps RC).
            self.decrease_inc.next = self.enable.val();
            self.rt.d.next = self.rc.q.val();
            self.rc.d.next = self.rc_cut.val();
            self.alpha.d.next = self.alpha_dec.val() + self.g_q10.val();
            self.t_rate.d.next = 0.into();
            self.t_alpha.d.next = 0.into();
            self.bytes.d.next = 0.into();
            self.t_stage.d.next = 0.into();
            self.b_stage.d.next = 0.into();
        }
        // The pacer: a debt of bytes × 256 drained by RC every cycle, a beat sent or not (draining only
        // on idle cycles would halve the rate: a frame's beats would add debt that only its gap repays).
        if self.debt.q.val() > bit_cast::<32, 16>(self.rc.q.val()) {
            self.debt_left.next = self.debt.q.val() - bit_cast::<32, 16>(self.rc.q.val());
        } else {
            self.debt_left.next = 0.into();
        }
        self.debt.d.next = self.debt_left.val();
        if self.beat_sent.val() {
            self.debt.d.next = self.debt_left.val() + self.beat_debt.val();
        }
        self.hold.next = self.enable.val() && (self.debt.q.val() != 0);
        self.busy.next =
            self.enable.val() && (self.debt.q.val() > (bit_cast::<32, 16>(self.rc.q.val()) << 4));
        self.recovered.next = (self.rt.q.val() == self.line16.val())
            && ((self.rc.q.val() + self.one16.val()) >= self.line16.val())
            && (self.debt.q.val() == 0)
            && !self.cnp_wait.q.val();
        // While a CNP waits only a cut moves RC or α, and in the cycle it arrived nothing did.
        self.settled.d.next = !self.cnp_go.val();
        // Off, the timers stand at 0 (they start when the reaction point does), so an idle core with
        // DCQCN off has no timer running here (nothing for fast-forward to wake for).
        if self.reset.val() || !self.enable.val() {
            self.t_rate.d.next = 0.into();
            self.t_alpha.d.next = 0.into();
        }
        if self.reset.val() || !self.enable.val() || self.clear.val() {
            self.cnp_wait.d.next = false;
            self.settled.d.next = false;
            self.rc.d.next = self.line16.val();
            self.rt.d.next = self.line16.val();
            self.alpha.d.next = 1024.into();
            self.t_stage.d.next = 0.into();
            self.b_stage.d.next = 0.into();
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

    /// rust-hdl's own simulator: two CNPs on consecutive cycles cut RC twice, each from the RC and α of
    /// its own time (2048 → 1024 → 512 with α = 1), because the second waits until the registered product
    /// has caught up with the first cut; each cut is counted once; and a limiter with a CNP waiting is
    /// not `recovered`, so the pool cannot let it go before the cut lands.
    #[test]
    fn back_to_back_cnps_cut_from_current_rate() {
        let mut uut = Dcqcn::<8>::default();
        uut.clock.connect();
        uut.reset.connect();
        uut.clear.connect();
        dcqcn_params!(connect uut);
        uut.cnp.connect();
        uut.beat_sent.connect();
        uut.connect_all();
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
