//! Per-QP DCQCN: a pool of reaction points (`net::dcqcn`, one rate limiter each) lent to the QPs that
//! receive CNPs, so a CNP slows the QP whose flow is congested and no other (DCQCN's reaction point is
//! per flow; ConnectX keeps a pool of rate limiters the same way).
//!
//! A CNP for a QP that holds no limiter takes a free one, which starts at the line rate with α = 1 and
//! takes the CNP a cycle later; with none free the CNP is counted (`ignored_inc`, rp_cnp_ignored) and
//! changes no rate. A limiter whose QP is back at the line rate with no debt is let go, so the pool serves
//! the flows congested now. A frame of a QP that holds a limiter waits while that limiter holds; frames of
//! other QPs are not held by it, and a CNP is neither held nor counted against its QP's limiter (a
//! notification must not wait behind the congestion it reports).
use crate::net::dcqcn::Dcqcn;
use rust_hdl::prelude::*;

/// Limiters in the pool: rocenic_proto::regs::DCQCN_LIMITERS.
pub const LIMITERS: usize = rocenic_proto::regs::DCQCN_LIMITERS;

#[derive(LogicBlock)]
pub struct RateLimiters<const B: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    /// Off: every limiter is let go and nothing is held.
    pub enable: Signal<In, bool>,
    pub line_rate: Signal<In, Bits<32>>,
    pub min_rate: Signal<In, Bits<32>>,
    pub rate_ai: Signal<In, Bits<32>>,
    pub rate_hai: Signal<In, Bits<32>>,
    pub rate_timer: Signal<In, Bits<32>>,
    pub alpha_timer: Signal<In, Bits<32>>,
    pub byte_counter: Signal<In, Bits<32>>,
    pub f_stages: Signal<In, Bits<32>>,
    /// A CNP arrived for QP `cnp_qpn`.
    pub cnp: Signal<In, bool>,
    pub cnp_qpn: Signal<In, Bits<16>>,
    /// The QP of the RoCE frame at the head of the transmit stream, and whether a beat of it left.
    pub tx_qpn: Signal<In, Bits<16>>,
    pub tx_cnp: Signal<In, bool>,
    pub beat_sent: Signal<In, bool>,
    /// Fast-forward (`net::dcqcn`): the edge stands for `1 + warp` cycles.
    pub warp: Signal<In, Bits<32>>,
    /// The earliest of the limiters' `wake`.
    pub wake: Signal<Out, Bits<32>>,
    /// Do not start `tx_qpn`'s frame now.
    pub hold: Signal<Out, bool>,
    /// The transmit engine's current requester QP, and whether its limiter owes more than 16 cycles of
    /// sending: the engine then builds no packet of it and serves ACKs, CNPs and READ responses of
    /// other QPs instead of waiting at the arbiter with a held frame.
    pub cur_qpn: Signal<In, Bits<16>>,
    pub cur_busy: Signal<Out, bool>,
    /// The lowest rate among the limiters in use (the line rate when none is), two cycles late.
    pub rate: Signal<Out, Bits<32>>,
    /// Per limiter: bit 31 in use, bits 15..0 its QP; and its rate RC.
    pub qpn0: Signal<Out, Bits<32>>,
    pub qpn1: Signal<Out, Bits<32>>,
    pub qpn2: Signal<Out, Bits<32>>,
    pub qpn3: Signal<Out, Bits<32>>,
    pub rate0: Signal<Out, Bits<32>>,
    pub rate1: Signal<Out, Bits<32>>,
    pub rate2: Signal<Out, Bits<32>>,
    pub rate3: Signal<Out, Bits<32>>,
    pub decrease_inc: Signal<Out, bool>,
    pub ignored_inc: Signal<Out, bool>,
    rp0: Dcqcn<B>,
    rp1: Dcqcn<B>,
    rp2: Dcqcn<B>,
    rp3: Dcqcn<B>,
    used0: DFF<bool>,
    used1: DFF<bool>,
    used2: DFF<bool>,
    used3: DFF<bool>,
    tag0: DFF<Bits<16>>,
    tag1: DFF<Bits<16>>,
    tag2: DFF<Bits<16>>,
    tag3: DFF<Bits<16>>,
    /// The CNP taken last cycle, for limiter `pend_at` (a new limiter is cleared first).
    pend: DFF<bool>,
    pend_at: DFF<Bits<2>>,
    /// Limiter k holds the CNP's QP / the transmit frame's QP.
    cm0: Signal<Local, bool>,
    cm1: Signal<Local, bool>,
    cm2: Signal<Local, bool>,
    cm3: Signal<Local, bool>,
    tm0: Signal<Local, bool>,
    tm1: Signal<Local, bool>,
    tm2: Signal<Local, bool>,
    tm3: Signal<Local, bool>,
    /// The rates counted in the lowest (the line rate for a limiter not in use).
    r0: Signal<Local, Bits<16>>,
    r1: Signal<Local, Bits<16>>,
    r2: Signal<Local, Bits<16>>,
    r3: Signal<Local, Bits<16>>,
    /// The least of pairs, then of all four.
    low01: DFF<Bits<16>>,
    low23: DFF<Bits<16>>,
    low: DFF<Bits<16>>,
    wake_min: Signal<Local, Bits<32>>,
    /// Bit 31 of DCQCN_LIMITER_QPN_n.
    in_use: Constant<Bits<32>>,
}

impl<const B: usize> Default for RateLimiters<B> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            line_rate: Default::default(),
            min_rate: Default::default(),
            rate_ai: Default::default(),
            rate_hai: Default::default(),
            rate_timer: Default::default(),
            alpha_timer: Default::default(),
            byte_counter: Default::default(),
            f_stages: Default::default(),
            cnp: Default::default(),
            cnp_qpn: Default::default(),
            tx_qpn: Default::default(),
            tx_cnp: Default::default(),
            beat_sent: Default::default(),
            warp: Default::default(),
            wake: Default::default(),
            hold: Default::default(),
            cur_qpn: Default::default(),
            cur_busy: Default::default(),
            rate: Default::default(),
            qpn0: Default::default(),
            qpn1: Default::default(),
            qpn2: Default::default(),
            qpn3: Default::default(),
            rate0: Default::default(),
            rate1: Default::default(),
            rate2: Default::default(),
            rate3: Default::default(),
            decrease_inc: Default::default(),
            ignored_inc: Default::default(),
            rp0: Default::default(),
            rp1: Default::default(),
            rp2: Default::default(),
            rp3: Default::default(),
            used0: Default::default(),
            used1: Default::default(),
            used2: Default::default(),
            used3: Default::default(),
            tag0: Default::default(),
            tag1: Default::default(),
            tag2: Default::default(),
            tag3: Default::default(),
            pend: Default::default(),
            pend_at: Default::default(),
            cm0: Default::default(),
            cm1: Default::default(),
            cm2: Default::default(),
            cm3: Default::default(),
            tm0: Default::default(),
            tm1: Default::default(),
            tm2: Default::default(),
            tm3: Default::default(),
            r0: Default::default(),
            r1: Default::default(),
            r2: Default::default(),
            r3: Default::default(),
            low01: Default::default(),
            low23: Default::default(),
            low: Default::default(),
            wake_min: Default::default(),
            in_use: Constant::new(0x8000_0000u64.into()),
        }
    }
}

impl<const B: usize> Logic for RateLimiters<B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, used0, used1, used2, used3, tag0, tag1, tag2, tag3, pend, pend_at, low01,
            low23, low
        );
        // The limiters share the parameters.
        self.rp0.clock.next = self.clock.val();
        self.rp0.reset.next = self.reset.val();
        self.rp0.enable.next = self.enable.val();
        self.rp0.line_rate.next = self.line_rate.val();
        self.rp0.min_rate.next = self.min_rate.val();
        self.rp0.rate_ai.next = self.rate_ai.val();
        self.rp0.rate_hai.next = self.rate_hai.val();
        self.rp0.rate_timer.next = self.rate_timer.val();
        self.rp0.alpha_timer.next = self.alpha_timer.val();
        self.rp0.byte_counter.next = self.byte_counter.val();
        self.rp0.f_stages.next = self.f_stages.val();
        self.rp0.warp.next = self.warp.val();
        self.rp1.clock.next = self.clock.val();
        self.rp1.reset.next = self.reset.val();
        self.rp1.enable.next = self.enable.val();
        self.rp1.line_rate.next = self.line_rate.val();
        self.rp1.min_rate.next = self.min_rate.val();
        self.rp1.rate_ai.next = self.rate_ai.val();
        self.rp1.rate_hai.next = self.rate_hai.val();
        self.rp1.rate_timer.next = self.rate_timer.val();
        self.rp1.alpha_timer.next = self.alpha_timer.val();
        self.rp1.byte_counter.next = self.byte_counter.val();
        self.rp1.f_stages.next = self.f_stages.val();
        self.rp1.warp.next = self.warp.val();
        self.rp2.clock.next = self.clock.val();
        self.rp2.reset.next = self.reset.val();
        self.rp2.enable.next = self.enable.val();
        self.rp2.line_rate.next = self.line_rate.val();
        self.rp2.min_rate.next = self.min_rate.val();
        self.rp2.rate_ai.next = self.rate_ai.val();
        self.rp2.rate_hai.next = self.rate_hai.val();
        self.rp2.rate_timer.next = self.rate_timer.val();
        self.rp2.alpha_timer.next = self.alpha_timer.val();
        self.rp2.byte_counter.next = self.byte_counter.val();
        self.rp2.f_stages.next = self.f_stages.val();
        self.rp2.warp.next = self.warp.val();
        self.rp3.clock.next = self.clock.val();
        self.rp3.reset.next = self.reset.val();
        self.rp3.enable.next = self.enable.val();
        self.rp3.line_rate.next = self.line_rate.val();
        self.rp3.min_rate.next = self.min_rate.val();
        self.rp3.rate_ai.next = self.rate_ai.val();
        self.rp3.rate_hai.next = self.rate_hai.val();
        self.rp3.rate_timer.next = self.rate_timer.val();
        self.rp3.alpha_timer.next = self.alpha_timer.val();
        self.rp3.byte_counter.next = self.byte_counter.val();
        self.rp3.f_stages.next = self.f_stages.val();
        self.rp3.warp.next = self.warp.val();
        // The least of the four (a simulation output: hardware leaves it unconnected).
        self.wake_min.next = self.rp0.wake.val();
        if self.rp1.wake.val() < self.wake_min.val() {
            self.wake_min.next = self.rp1.wake.val();
        }
        if self.rp2.wake.val() < self.wake_min.val() {
            self.wake_min.next = self.rp2.wake.val();
        }
        if self.rp3.wake.val() < self.wake_min.val() {
            self.wake_min.next = self.rp3.wake.val();
        }
        self.wake.next = self.wake_min.val();

        self.cm0.next = self.used0.q.val() && (self.tag0.q.val() == self.cnp_qpn.val());
        self.cm1.next = self.used1.q.val() && (self.tag1.q.val() == self.cnp_qpn.val());
        self.cm2.next = self.used2.q.val() && (self.tag2.q.val() == self.cnp_qpn.val());
        self.cm3.next = self.used3.q.val() && (self.tag3.q.val() == self.cnp_qpn.val());
        self.tm0.next =
            self.used0.q.val() && (self.tag0.q.val() == self.tx_qpn.val()) && !self.tx_cnp.val();
        self.tm1.next =
            self.used1.q.val() && (self.tag1.q.val() == self.tx_qpn.val()) && !self.tx_cnp.val();
        self.tm2.next =
            self.used2.q.val() && (self.tag2.q.val() == self.tx_qpn.val()) && !self.tx_cnp.val();
        self.tm3.next =
            self.used3.q.val() && (self.tag3.q.val() == self.tx_qpn.val()) && !self.tx_cnp.val();

        // A CNP reaches its limiter a cycle after it arrived (time to clear a new one).
        self.rp0.cnp.next = self.pend.q.val() && (self.pend_at.q.val() == 0);
        self.rp1.cnp.next = self.pend.q.val() && (self.pend_at.q.val() == 1);
        self.rp2.cnp.next = self.pend.q.val() && (self.pend_at.q.val() == 2);
        self.rp3.cnp.next = self.pend.q.val() && (self.pend_at.q.val() == 3);
        self.rp0.clear.next = false;
        self.rp1.clear.next = false;
        self.rp2.clear.next = false;
        self.rp3.clear.next = false;
        self.pend.d.next = false;
        self.ignored_inc.next = false;
        if self.cnp.val() && self.enable.val() {
            self.pend.d.next = true;
            if self.cm0.val() {
                self.pend_at.d.next = 0.into();
            } else if self.cm1.val() {
                self.pend_at.d.next = 1.into();
            } else if self.cm2.val() {
                self.pend_at.d.next = 2.into();
            } else if self.cm3.val() {
                self.pend_at.d.next = 3.into();
            } else if !self.used0.q.val() {
                self.pend_at.d.next = 0.into();
                self.used0.d.next = true;
                self.tag0.d.next = self.cnp_qpn.val();
                self.rp0.clear.next = true;
            } else if !self.used1.q.val() {
                self.pend_at.d.next = 1.into();
                self.used1.d.next = true;
                self.tag1.d.next = self.cnp_qpn.val();
                self.rp1.clear.next = true;
            } else if !self.used2.q.val() {
                self.pend_at.d.next = 2.into();
                self.used2.d.next = true;
                self.tag2.d.next = self.cnp_qpn.val();
                self.rp2.clear.next = true;
            } else if !self.used3.q.val() {
                self.pend_at.d.next = 3.into();
                self.used3.d.next = true;
                self.tag3.d.next = self.cnp_qpn.val();
                self.rp3.clear.next = true;
            } else {
                // Every limiter is busy with another QP: nothing to slow, counted.
                self.pend.d.next = false;
                self.ignored_inc.next = true;
            }
        }
        // Let a recovered limiter go, unless a CNP for it is on its way.
        if self.used0.q.val()
            && self.rp0.recovered.val()
            && !(self.cnp.val() && self.cm0.val())
            && !(self.pend.q.val() && (self.pend_at.q.val() == 0))
        {
            self.used0.d.next = false;
        }
        if self.used1.q.val()
            && self.rp1.recovered.val()
            && !(self.cnp.val() && self.cm1.val())
            && !(self.pend.q.val() && (self.pend_at.q.val() == 1))
        {
            self.used1.d.next = false;
        }
        if self.used2.q.val()
            && self.rp2.recovered.val()
            && !(self.cnp.val() && self.cm2.val())
            && !(self.pend.q.val() && (self.pend_at.q.val() == 2))
        {
            self.used2.d.next = false;
        }
        if self.used3.q.val()
            && self.rp3.recovered.val()
            && !(self.cnp.val() && self.cm3.val())
            && !(self.pend.q.val() && (self.pend_at.q.val() == 3))
        {
            self.used3.d.next = false;
        }
        if self.reset.val() || !self.enable.val() {
            self.used0.d.next = false;
            self.used1.d.next = false;
            self.used2.d.next = false;
            self.used3.d.next = false;
            self.pend.d.next = false;
        }

        // The pacer: each frame's beats count against its QP's limiter, and its limiter alone holds it.
        self.rp0.beat_sent.next = self.beat_sent.val() && self.tm0.val();
        self.rp1.beat_sent.next = self.beat_sent.val() && self.tm1.val();
        self.rp2.beat_sent.next = self.beat_sent.val() && self.tm2.val();
        self.rp3.beat_sent.next = self.beat_sent.val() && self.tm3.val();
        self.hold.next = (self.tm0.val() && self.rp0.hold.val())
            || (self.tm1.val() && self.rp1.hold.val())
            || (self.tm2.val() && self.rp2.hold.val())
            || (self.tm3.val() && self.rp3.hold.val());

        self.cur_busy.next = (self.used0.q.val()
            && (self.tag0.q.val() == self.cur_qpn.val())
            && self.rp0.busy.val())
            || (self.used1.q.val()
                && (self.tag1.q.val() == self.cur_qpn.val())
                && self.rp1.busy.val())
            || (self.used2.q.val()
                && (self.tag2.q.val() == self.cur_qpn.val())
                && self.rp2.busy.val())
            || (self.used3.q.val()
                && (self.tag3.q.val() == self.cur_qpn.val())
                && self.rp3.busy.val());
        self.decrease_inc.next = self.rp0.decrease_inc.val()
            || self.rp1.decrease_inc.val()
            || self.rp2.decrease_inc.val()
            || self.rp3.decrease_inc.val();
        // The lowest rate in use (a status register), a 16-bit compare per stage: pairs, then the
        // two; a limiter not in use counts as the line rate.
        self.r0.next = bit_cast::<16, 32>(self.line_rate.val());
        self.r1.next = bit_cast::<16, 32>(self.line_rate.val());
        self.r2.next = bit_cast::<16, 32>(self.line_rate.val());
        self.r3.next = bit_cast::<16, 32>(self.line_rate.val());
        if self.used0.q.val() {
            self.r0.next = bit_cast::<16, 32>(self.rp0.rate.val());
        }
        if self.used1.q.val() {
            self.r1.next = bit_cast::<16, 32>(self.rp1.rate.val());
        }
        if self.used2.q.val() {
            self.r2.next = bit_cast::<16, 32>(self.rp2.rate.val());
        }
        if self.used3.q.val() {
            self.r3.next = bit_cast::<16, 32>(self.rp3.rate.val());
        }
        self.low01.d.next = self.r0.val();
        if self.r1.val() < self.r0.val() {
            self.low01.d.next = self.r1.val();
        }
        self.low23.d.next = self.r2.val();
        if self.r3.val() < self.r2.val() {
            self.low23.d.next = self.r3.val();
        }
        self.low.d.next = self.low01.q.val();
        if self.low23.q.val() < self.low01.q.val() {
            self.low.d.next = self.low23.q.val();
        }
        self.rate.next = bit_cast::<32, 16>(self.low.q.val());
        self.qpn0.next = bit_cast::<32, 16>(self.tag0.q.val());
        self.qpn1.next = bit_cast::<32, 16>(self.tag1.q.val());
        self.qpn2.next = bit_cast::<32, 16>(self.tag2.q.val());
        self.qpn3.next = bit_cast::<32, 16>(self.tag3.q.val());
        if self.used0.q.val() {
            self.qpn0.next = bit_cast::<32, 16>(self.tag0.q.val()) | self.in_use.val();
        }
        if self.used1.q.val() {
            self.qpn1.next = bit_cast::<32, 16>(self.tag1.q.val()) | self.in_use.val();
        }
        if self.used2.q.val() {
            self.qpn2.next = bit_cast::<32, 16>(self.tag2.q.val()) | self.in_use.val();
        }
        if self.used3.q.val() {
            self.qpn3.next = bit_cast::<32, 16>(self.tag3.q.val()) | self.in_use.val();
        }
        self.rate0.next = self.rp0.rate.val();
        self.rate1.next = self.rp1.rate.val();
        self.rate2.next = self.rp2.rate.val();
        self.rate3.next = self.rp3.rate.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::dcqcn::dcqcn_params;

    #[test]
    fn synthesizes() {
        let mut uut = RateLimiters::<8>::default();
        uut.connect_all();
        assert!(generate_verilog(&uut).contains("module top"));
    }

    /// rust-hdl's own simulator, cycle by cycle: a CNP for QP 5 takes limiter 0 and halves its rate
    /// (α = 1); QP 9's frames are not held by it, QP 5's are while its debt lasts, QP 5's CNPs are neither
    /// held nor add debt; four more QPs' CNPs
    /// fill the pool and the fifth is ignored; without CNPs the limiters recover and are let go.
    #[test]
    fn cnps_take_limiters_per_qp_and_recovered_ones_are_let_go() {
        let mut uut = RateLimiters::<8>::default();
        dcqcn_params!(connect uut);
        uut.cnp.connect();
        uut.cnp_qpn.connect();
        uut.tx_qpn.connect();
        uut.tx_cnp.connect();
        uut.beat_sent.connect();
        uut.cur_qpn.connect();
        uut.clock.connect();
        uut.reset.connect();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<RateLimiters<8>>| {
            x.clock.next = !x.clock.val()
        });
        sim.add_testbench(move |mut ep: Sim<RateLimiters<8>>| {
            let mut x = ep.init()?;
            dcqcn_params!(set x, 20, 1000, 2);
            x.reset.next = true;
            wait_clock_cycle!(ep, clock, x);
            x.reset.next = false;
            wait_clock_cycle!(ep, clock, x);
            sim_assert_eq!(ep, x.rate.val(), 2048, x);
            sim_assert_eq!(ep, x.qpn0.val(), 0, x);
            x.cnp.next = true;
            x.cnp_qpn.next = 5.into();
            wait_clock_cycle!(ep, clock, x);
            x.cnp.next = false;
            wait_clock_cycle!(ep, clock, x);
            wait_clock_cycle!(ep, clock, x);
            sim_assert_eq!(ep, x.qpn0.val(), 0x8000_0005u64, x);
            // The new limiter was cleared as the CNP came: its cut waits for RC × α of the line rate.
            wait_clock_cycle!(ep, clock, x);
            sim_assert_eq!(ep, x.rate0.val(), 1024, x);
            // The lowest rate follows two cycles later.
            sim_assert_eq!(ep, x.rate.val(), 2048, x);
            wait_clock_cycle!(ep, clock, x);
            wait_clock_cycle!(ep, clock, x);
            sim_assert_eq!(ep, x.rate.val(), 1024, x);
            // A beat of QP 9 adds no debt anywhere; a beat of QP 5 does, and holds QP 5 only.
            x.tx_qpn.next = 9.into();
            x.beat_sent.next = true;
            wait_clock_cycle!(ep, clock, x);
            x.beat_sent.next = false;
            wait_clock_cycle!(ep, clock, x);
            sim_assert!(ep, !x.hold.val(), x);
            x.tx_qpn.next = 5.into();
            x.beat_sent.next = true;
            wait_clock_cycle!(ep, clock, x);
            x.beat_sent.next = false;
            wait_clock_cycle!(ep, clock, x);
            sim_assert!(ep, x.hold.val(), x);
            x.tx_qpn.next = 9.into();
            wait_clock_cycle!(ep, clock, x);
            sim_assert!(ep, !x.hold.val(), x);
            // QP 5's CNPs are not held by its debt, and their beats add none. Four beats of its frames
            // leave 4 x 2048 - 4 x 1024 of debt, draining 1024 a cycle.
            x.tx_qpn.next = 5.into();
            x.beat_sent.next = true;
            for _ in 0..4 {
                wait_clock_cycle!(ep, clock, x);
            }
            x.beat_sent.next = false;
            wait_clock_cycle!(ep, clock, x);
            sim_assert!(ep, x.hold.val(), x);
            x.tx_cnp.next = true;
            wait_clock_cycle!(ep, clock, x);
            sim_assert!(ep, !x.hold.val(), x);
            x.tx_cnp.next = false;
            wait_clock_cycle!(ep, clock, x);
            sim_assert!(ep, x.hold.val(), x);
            for _ in 0..4 {
                wait_clock_cycle!(ep, clock, x);
            }
            sim_assert!(ep, !x.hold.val(), x);
            x.tx_cnp.next = true;
            x.beat_sent.next = true;
            for _ in 0..4 {
                wait_clock_cycle!(ep, clock, x);
            }
            x.beat_sent.next = false;
            x.tx_cnp.next = false;
            wait_clock_cycle!(ep, clock, x);
            sim_assert!(ep, !x.hold.val(), x);
            x.tx_qpn.next = 9.into();
            // QPs 6, 7, 8 take the other three limiters; QP 10's CNP finds none.
            for q in [6u64, 7, 8, 10] {
                x.cnp.next = true;
                x.cnp_qpn.next = q.into();
                wait_clock_cycle!(ep, clock, x);
            }
            x.cnp.next = false;
            wait_clock_cycle!(ep, clock, x);
            sim_assert_eq!(ep, x.qpn1.val(), 0x8000_0006u64, x);
            sim_assert_eq!(ep, x.qpn3.val(), 0x8000_0008u64, x);
            sim_assert_eq!(ep, x.qpn0.val(), 0x8000_0005u64, x);
            // No CNPs: fast recovery, then additive increase of 400 a stage bring every limiter back to
            // the line rate within a few hundred cycles, and each is let go.
            for _ in 0..400 {
                wait_clock_cycle!(ep, clock, x);
            }
            sim_assert_eq!(ep, x.rate.val(), 2048, x);
            sim_assert_eq!(ep, x.qpn0.val() >> 31, 0, x);
            sim_assert_eq!(ep, x.qpn3.val() >> 31, 0, x);
            // The pool is free again: QP 10 gets a limiter now.
            x.cnp.next = true;
            x.cnp_qpn.next = 10.into();
            wait_clock_cycle!(ep, clock, x);
            x.cnp.next = false;
            wait_clock_cycle!(ep, clock, x);
            sim_assert_eq!(ep, x.qpn0.val(), 0x8000_000Au64, x);
            ep.done(x)
        });
        sim.run(Box::new(uut), 20_000).unwrap();
    }
}
