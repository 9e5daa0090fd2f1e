//! The transmit engine's decision between packets: which job it takes next, by a fixed priority over
//! single registered bits, so that no compare stands in front of the choice.
//!
//! A decision takes three cycles. The engine drives every candidate's condition each cycle (`c`);
//! stage 1 registers them (settle); stage 2, in a cycle where the engine is idle and the registered
//! conditions are of a cycle in which it changed nothing itself (`idle` and no pick acted on), picks
//! the first by priority into `pick`; in the next cycle the engine acts on it, re-checking only what
//! changes from outside (enable, the table's hold, an ACK withdrawn behind a READ job). A cycle with a
//! pick acted on, or not idle, makes the next cycle's conditions stale: nothing is picked in it.
use rust_hdl::prelude::*;

/// The decision picked (in priority order), acted on in the next cycle.
#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
pub enum TxPick {
    None,
    /// Drain a prefetch the next packet will not use; drop a WQE fetched ahead.
    PfDrain,
    WqeDrain,
    /// Send the responder's ACK/NAK, a CNP; set up the next READ response; take a READ job.
    AckFrame,
    Cnp,
    RrSetup,
    RrTake,
    /// The ring: dropped on leaving RTS, its head READ landed, an ACK/NAK served, a timeout.
    RgDrop,
    RgLanded,
    RgAck,
    RgTimeout,
    /// The WQE in progress: completed, its READ landed, dropped on leaving RTS, an ACK/NAK served,
    /// RNR wait over, a timeout, parked in the ring, its next packet.
    Cqe,
    RdLanded,
    WqeDrop,
    WqeAck,
    RnrOver,
    WqeTimeout,
    Park,
    Send,
    /// Fetch the next WQE.
    Fetch,
}

/// Each candidate's condition this cycle, in priority order. `pf_stale`, `rr` and `settling` take
/// their place in the order whether or not the job they guard can go (`pf_drain`, `rr_setup`; nothing):
/// everything below them waits.
#[derive(LogicInterface, Default)]
pub struct TxCandidates {
    /// A prefetch the next packet will not use; it drains once no read is being requested for it.
    pub pf_stale: Signal<In, bool>,
    pub pf_drain: Signal<In, bool>,
    pub wqe_drain: Signal<In, bool>,
    pub ack_frame: Signal<In, bool>,
    pub cnp: Signal<In, bool>,
    /// The responder's READ job is ready to send, and its next response is.
    pub rr: Signal<In, bool>,
    pub rr_setup: Signal<In, bool>,
    pub rr_take: Signal<In, bool>,
    pub rg_drop: Signal<In, bool>,
    pub rg_landed: Signal<In, bool>,
    /// An ACK/NAK or a timeout is due and the completer's checks of it have not settled.
    pub settling: Signal<In, bool>,
    pub rg_ack: Signal<In, bool>,
    pub rg_timeout: Signal<In, bool>,
    pub cqe: Signal<In, bool>,
    pub rd_landed: Signal<In, bool>,
    pub wqe_drop: Signal<In, bool>,
    pub wqe_ack: Signal<In, bool>,
    pub rnr_over: Signal<In, bool>,
    pub wqe_timeout: Signal<In, bool>,
    pub park: Signal<In, bool>,
    pub send: Signal<In, bool>,
    pub fetch: Signal<In, bool>,
}

#[derive(LogicBlock, Default)]
pub struct TxArbiter {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    /// The engine is between packets (Idle) this cycle.
    pub idle: Signal<In, bool>,
    pub c: TxCandidates,
    pub pick: Signal<Out, TxPick>,
    // stage 1: the conditions, and whether the engine changed nothing in the cycle they are of
    k_pf_stale: DFF<bool>,
    k_pf_drain: DFF<bool>,
    k_wqe_drain: DFF<bool>,
    k_ack_frame: DFF<bool>,
    k_cnp: DFF<bool>,
    k_rr: DFF<bool>,
    k_rr_setup: DFF<bool>,
    k_rr_take: DFF<bool>,
    k_rg_drop: DFF<bool>,
    k_rg_landed: DFF<bool>,
    k_settling: DFF<bool>,
    k_rg_ack: DFF<bool>,
    k_rg_timeout: DFF<bool>,
    k_cqe: DFF<bool>,
    k_rd_landed: DFF<bool>,
    k_wqe_drop: DFF<bool>,
    k_wqe_ack: DFF<bool>,
    k_rnr_over: DFF<bool>,
    k_wqe_timeout: DFF<bool>,
    k_park: DFF<bool>,
    k_send: DFF<bool>,
    k_fetch: DFF<bool>,
    k_ok: DFF<bool>,
    // stage 2
    p: DFF<TxPick>,
}

impl Logic for TxArbiter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            k_pf_stale,
            k_pf_drain,
            k_wqe_drain,
            k_ack_frame,
            k_cnp,
            k_rr,
            k_rr_setup,
            k_rr_take,
            k_rg_drop,
            k_rg_landed,
            k_settling,
            k_rg_ack,
            k_rg_timeout,
            k_cqe,
            k_rd_landed,
            k_wqe_drop,
            k_wqe_ack,
            k_rnr_over,
            k_wqe_timeout,
            k_park,
            k_send,
            k_fetch,
            k_ok,
            p
        );
        self.k_pf_stale.d.next = self.c.pf_stale.val();
        self.k_pf_drain.d.next = self.c.pf_drain.val();
        self.k_wqe_drain.d.next = self.c.wqe_drain.val();
        self.k_ack_frame.d.next = self.c.ack_frame.val();
        self.k_cnp.d.next = self.c.cnp.val();
        self.k_rr.d.next = self.c.rr.val();
        self.k_rr_setup.d.next = self.c.rr_setup.val();
        self.k_rr_take.d.next = self.c.rr_take.val();
        self.k_rg_drop.d.next = self.c.rg_drop.val();
        self.k_rg_landed.d.next = self.c.rg_landed.val();
        self.k_settling.d.next = self.c.settling.val();
        self.k_rg_ack.d.next = self.c.rg_ack.val();
        self.k_rg_timeout.d.next = self.c.rg_timeout.val();
        self.k_cqe.d.next = self.c.cqe.val();
        self.k_rd_landed.d.next = self.c.rd_landed.val();
        self.k_wqe_drop.d.next = self.c.wqe_drop.val();
        self.k_wqe_ack.d.next = self.c.wqe_ack.val();
        self.k_rnr_over.d.next = self.c.rnr_over.val();
        self.k_wqe_timeout.d.next = self.c.wqe_timeout.val();
        self.k_park.d.next = self.c.park.val();
        self.k_send.d.next = self.c.send.val();
        self.k_fetch.d.next = self.c.fetch.val();
        // The engine acts only on a pick; in any other idle cycle it changes nothing of its own.
        self.k_ok.d.next = self.idle.val() && (self.p.q.val() == TxPick::None);
        self.pick.next = self.p.q.val();
        self.p.d.next = TxPick::None;
        if self.idle.val() && (self.p.q.val() == TxPick::None) && self.k_ok.q.val() {
            if self.k_pf_stale.q.val() {
                if self.k_pf_drain.q.val() {
                    self.p.d.next = TxPick::PfDrain;
                }
            } else if self.k_wqe_drain.q.val() {
                self.p.d.next = TxPick::WqeDrain;
            } else if self.k_ack_frame.q.val() {
                self.p.d.next = TxPick::AckFrame;
            } else if self.k_cnp.q.val() {
                self.p.d.next = TxPick::Cnp;
            } else if self.k_rr.q.val() {
                if self.k_rr_setup.q.val() {
                    self.p.d.next = TxPick::RrSetup;
                }
            } else if self.k_rr_take.q.val() {
                self.p.d.next = TxPick::RrTake;
            } else if self.k_rg_drop.q.val() {
                self.p.d.next = TxPick::RgDrop;
            } else if self.k_rg_landed.q.val() {
                self.p.d.next = TxPick::RgLanded;
            } else if self.k_settling.q.val() {
            } else if self.k_rg_ack.q.val() {
                self.p.d.next = TxPick::RgAck;
            } else if self.k_rg_timeout.q.val() {
                self.p.d.next = TxPick::RgTimeout;
            } else if self.k_cqe.q.val() {
                self.p.d.next = TxPick::Cqe;
            } else if self.k_rd_landed.q.val() {
                self.p.d.next = TxPick::RdLanded;
            } else if self.k_wqe_drop.q.val() {
                self.p.d.next = TxPick::WqeDrop;
            } else if self.k_wqe_ack.q.val() {
                self.p.d.next = TxPick::WqeAck;
            } else if self.k_rnr_over.q.val() {
                self.p.d.next = TxPick::RnrOver;
            } else if self.k_wqe_timeout.q.val() {
                self.p.d.next = TxPick::WqeTimeout;
            } else if self.k_park.q.val() {
                self.p.d.next = TxPick::Park;
            } else if self.k_send.q.val() {
                self.p.d.next = TxPick::Send;
            } else if self.k_fetch.q.val() {
                self.p.d.next = TxPick::Fetch;
            }
        }
        if self.reset.val() {
            self.p.d.next = TxPick::None;
            self.k_ok.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The candidates, in priority order as `drive` sets them.
    const N: u64 = 22;

    fn drive(x: &mut TxArbiter, bits: u32) {
        let c = &mut x.c;
        for (k, s) in [
            &mut c.pf_stale,
            &mut c.pf_drain,
            &mut c.wqe_drain,
            &mut c.ack_frame,
            &mut c.cnp,
            &mut c.rr,
            &mut c.rr_setup,
            &mut c.rr_take,
            &mut c.rg_drop,
            &mut c.rg_landed,
            &mut c.settling,
            &mut c.rg_ack,
            &mut c.rg_timeout,
            &mut c.cqe,
            &mut c.rd_landed,
            &mut c.wqe_drop,
            &mut c.wqe_ack,
            &mut c.rnr_over,
            &mut c.wqe_timeout,
            &mut c.park,
            &mut c.send,
            &mut c.fetch,
        ]
        .into_iter()
        .enumerate()
        {
            s.next = (bits >> k) & 1 != 0;
        }
    }

    /// One step of the priority order: a job taken when its bit is set, or a guard that, when set,
    /// ends the search with the job after it (if that one's bit is set) or with none.
    enum Step {
        Job(usize, TxPick),
        Guard(usize, Option<(usize, TxPick)>),
    }

    /// The decision for one set of conditions (bit k: the k-th candidate of `drive`).
    fn model(bits: u32) -> TxPick {
        use Step::*;
        use TxPick::*;
        let on = |k: usize| (bits >> k) & 1 != 0;
        let order = [
            Guard(0, Some((1, PfDrain))),
            Job(2, WqeDrain),
            Job(3, AckFrame),
            Job(4, Cnp),
            Guard(5, Some((6, RrSetup))),
            Job(7, RrTake),
            Job(8, RgDrop),
            Job(9, RgLanded),
            Guard(10, Option::None),
            Job(11, RgAck),
            Job(12, RgTimeout),
            Job(13, Cqe),
            Job(14, RdLanded),
            Job(15, WqeDrop),
            Job(16, WqeAck),
            Job(17, RnrOver),
            Job(18, WqeTimeout),
            Job(19, Park),
            Job(20, Send),
            Job(21, Fetch),
        ];
        for step in order {
            match step {
                Job(k, job) if on(k) => return job,
                Guard(k, then) if on(k) => {
                    return match then {
                        Some((j, job)) if on(j) => job,
                        _ => None,
                    }
                }
                _ => {}
            }
        }
        None
    }

    #[test]
    fn picks_by_priority_from_conditions_one_cycle_old_and_settled() {
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<TxArbiter>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<TxArbiter>| {
            let mut x = sim.init()?;
            let mut rng = crate::prim::test_rng(41);
            x.reset.next = true;
            wait_clock_cycle!(sim, clock, x);
            x.reset.next = false;
            // The model's registers: the conditions and settle flag one cycle old, the pick.
            let (mut k, mut k_ok, mut p) = (0u32, false, TxPick::None);
            let mut picks = 0;
            for cycle in 0..4000 {
                // Sparse conditions, so that low-priority candidates win too; idle most cycles.
                let mut bits = 0u32;
                for _ in 0..(rng() & 3) {
                    bits |= 1 << (rng() % N);
                }
                let idle = rng() & 7 != 0;
                drive(&mut x, bits);
                x.idle.next = idle;
                x = sim.wait(1, x)?;
                if x.pick.val() != p {
                    println!("cycle {cycle}: pick {:?}, want {p:?}", x.pick.val());
                }
                sim_assert_eq!(sim, x.pick.val(), p, x);
                let next_p = if idle && p == TxPick::None && k_ok {
                    model(k)
                } else {
                    TxPick::None
                };
                picks += (next_p != TxPick::None) as u32;
                k_ok = idle && p == TxPick::None;
                k = bits;
                p = next_p;
                wait_clock_cycle!(sim, clock, x);
            }
            sim_assert!(sim, picks > 500, x);
            sim.done(x)
        });
        sim.run(Box::new(TxArbiter::default()), 100_000).unwrap();
    }

    #[test]
    fn synthesizes() {
        let mut uut = TxArbiter::default();
        uut.connect_all();
        yosys_validate("tx_arbiter", &generate_verilog(&uut)).unwrap();
    }
}
