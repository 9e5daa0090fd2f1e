//! The responder's READ and atomic replies (IBA §9.7.5.1.5, §9.4.6): the job the receive engine
//! accepted, cut into responses. A READ of `len` bytes is `max(1, ceil(len / MTU))` RDMA READ
//! RESPONSE packets at PSNs `psn`, `psn + 1`, ..., response i carrying bytes `[i * MTU, min(len,
//! (i + 1) * MTU))` read from `va + i * MTU`; an atomic is one ATOMIC ACKNOWLEDGE without payload.
//!
//! The transmit engine takes the response at the head of `resp` (its PSN, VA, payload length and
//! whether it is the first and the last of the job), sends it, and pops it with `resp.ready`. The
//! descriptor is in registers; the one after it is computed behind them, so no path carries more
//! than one add or compare: a pop moves the precomputed successor in. Contract: the engine pops at
//! most every other cycle (a response spends at least Idle, setup, load and emit), and a new job is
//! valid one cycle after it was loaded (its first payload length and last flag are computed there).
use rust_hdl::prelude::*;

/// A job from the receive engine: a READ's VA, DMA length and first PSN, or an atomic's PSN. Taken
/// (`ready`) while no job is active.
#[derive(LogicInterface, Default)]
pub struct ReadJob {
    pub valid: Signal<In, bool>,
    pub va: Signal<In, Bits<64>>,
    pub len: Signal<In, Bits<32>>,
    pub psn: Signal<In, Bits<24>>,
    /// log2 of the path MTU of the job's QP.
    pub pmtu: Signal<In, Bits<32>>,
    pub atomic: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
}

/// The response to send next: held until popped (`ready` with `valid`).
#[derive(LogicInterface, Default)]
pub struct ReadResponse {
    pub valid: Signal<Out, bool>,
    pub psn: Signal<Out, Bits<24>>,
    pub va: Signal<Out, Bits<64>>,
    pub plen: Signal<Out, Bits<16>>,
    pub first: Signal<Out, bool>,
    pub last: Signal<Out, bool>,
    pub ready: Signal<In, bool>,
}

#[derive(LogicBlock, Default)]
pub struct ReadReply {
    pub clock: Signal<In, Clock>,
    /// Ends the job (reset, or its QP left for RESET or ERR, §10.3.1).
    pub abort: Signal<In, bool>,
    pub job: ReadJob,
    pub resp: ReadResponse,
    /// A job is loaded and has responses left (its PSN is `resp.psn`, even before `resp.valid`).
    pub active: Signal<Out, bool>,
    on: DFF<bool>,
    /// The job was loaded last cycle: its first length and last flag are computed now.
    fresh: DFF<bool>,
    mtu: DFF<Bits<32>>,
    // The response at the head.
    psn: DFF<Bits<24>>,
    va: DFF<Bits<64>>,
    /// Bytes from this response's first to the job's end.
    rem: DFF<Bits<32>>,
    plen: DFF<Bits<16>>,
    first: DFF<bool>,
    last: DFF<bool>,
    // Its successor, computed from the head every cycle.
    n_psn: DFF<Bits<24>>,
    /// VA low half + MTU, with its carry; the high half's successor beside it.
    n_va_lo: DFF<Bits<33>>,
    n_va_hi1: DFF<Bits<32>>,
    n_rem: DFF<Bits<32>>,
    n_last: DFF<bool>,
    pop: Signal<Local, bool>,
    n_va_hi: Signal<Local, Bits<32>>,
}

impl Logic for ReadReply {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, on, fresh, mtu, psn, va, rem, plen, first, last, n_psn, n_va_lo, n_va_hi1,
            n_rem, n_last
        );
        self.job.ready.next = !self.on.q.val();
        self.resp.valid.next = self.on.q.val() && !self.fresh.q.val();
        self.resp.psn.next = self.psn.q.val();
        self.resp.va.next = self.va.q.val();
        self.resp.plen.next = self.plen.q.val();
        self.resp.first.next = self.first.q.val();
        self.resp.last.next = self.last.q.val();
        self.active.next = self.on.q.val();
        self.pop.next = self.resp.ready.val() && self.on.q.val() && !self.fresh.q.val();

        // The successor of the head: next PSN (24-bit, wraps), VA + MTU, bytes left after it.
        self.n_psn.d.next = self.psn.q.val() + 1;
        self.n_va_lo.d.next = bit_cast::<33, 32>(self.va.q.val().get_bits::<32>(0))
            + bit_cast::<33, 32>(self.mtu.q.val());
        self.n_va_hi1.d.next = self.va.q.val().get_bits::<32>(32) + 1;
        self.n_rem.d.next = self.rem.q.val() - self.mtu.q.val();
        // Left after this one <= MTU: left <= 2 MTU (a shift, no logic).
        self.n_last.d.next = self.rem.q.val() <= (self.mtu.q.val() << 1);

        self.fresh.d.next = false;
        if self.fresh.q.val() {
            // The first response: the whole job if it fits one MTU (an atomic's is empty).
            self.last.d.next = self.rem.q.val() <= self.mtu.q.val();
            self.plen.d.next = self.mtu.q.val().get_bits::<16>(0);
            if self.rem.q.val() <= self.mtu.q.val() {
                self.plen.d.next = self.rem.q.val().get_bits::<16>(0);
            }
        }
        self.n_va_hi.next = self.va.q.val().get_bits::<32>(32);
        if self.n_va_lo.q.val().get_bit(32) {
            self.n_va_hi.next = self.n_va_hi1.q.val();
        }
        if self.pop.val() {
            self.first.d.next = false;
            self.psn.d.next = self.n_psn.q.val();
            self.va.d.next = (bit_cast::<64, 32>(self.n_va_hi.val()) << 32)
                | bit_cast::<64, 32>(self.n_va_lo.q.val().get_bits::<32>(0));
            self.rem.d.next = self.n_rem.q.val();
            self.last.d.next = self.n_last.q.val();
            self.plen.d.next = self.mtu.q.val().get_bits::<16>(0);
            if self.n_last.q.val() {
                self.plen.d.next = self.n_rem.q.val().get_bits::<16>(0);
            }
            if self.last.q.val() {
                self.on.d.next = false;
            }
        }
        if self.job.valid.val() && !self.on.q.val() {
            self.on.d.next = true;
            self.fresh.d.next = true;
            self.mtu.d.next = bits::<32>(1) << self.job.pmtu.val();
            self.psn.d.next = self.job.psn.val();
            self.va.d.next = self.job.va.val();
            self.rem.d.next = self.job.len.val();
            self.first.d.next = true;
            // An atomic is a job of no bytes: one response, first and last, no payload.
            if self.job.atomic.val() {
                self.rem.d.next = 0.into();
            }
        }
        if self.abort.val() {
            self.on.d.next = false;
            self.fresh.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One job: (va, len, psn, pmtu, atomic).
    type Job = (u64, u32, u32, u32, bool);

    /// One response: (psn, va, plen, first, last).
    type Resp = (u64, u64, u64, bool, bool);

    /// The responses a job is cut into.
    fn model(&(va, len, psn, pmtu, atomic): &Job) -> Vec<Resp> {
        if atomic {
            return vec![(psn as u64, va, 0, true, true)];
        }
        let mtu = 1u64 << pmtu;
        let n = (len as u64).div_ceil(mtu).max(1);
        (0..n)
            .map(|i| {
                let plen = (len as u64 - i * mtu).min(mtu);
                let p = (psn as u64 + i) & 0xFF_FFFF;
                (p, va.wrapping_add(i * mtu), plen, i == 0, i + 1 == n)
            })
            .collect()
    }

    #[test]
    fn cuts_jobs_into_responses() {
        let jobs: Vec<Job> = vec![
            (0x1000, 600, 10, 8, false),
            // Across the VA's 32-bit boundary, the PSN's wrap, exact multiples of the MTU.
            (0x1_FFFF_F800, 8192, 0xFF_FFFE, 10, false),
            (0x2000, 4096, 5, 12, false),
            (0x3000, 0, 7, 9, false),
            (0xDEAD_0000, 0, 0x42, 8, true),
            (0x4000, 257, 0x10, 8, false),
            (0x5000, 1, 0x11, 11, false),
        ];
        let want: Vec<Vec<Resp>> = jobs.iter().map(model).collect();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<ReadReply>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<ReadReply>| {
            let mut x = sim.init()?;
            for (j, job) in jobs.iter().enumerate() {
                sim_assert!(sim, x.job.ready.val() && !x.active.val(), x);
                x.job.valid.next = true;
                x.job.va.next = job.0.into();
                x.job.len.next = (job.1 as u64).into();
                x.job.psn.next = (job.2 as u64).into();
                x.job.pmtu.next = (job.3 as u64).into();
                x.job.atomic.next = job.4;
                wait_clock_cycle!(sim, clock, x);
                x.job.valid.next = false;
                // Valid the cycle after the load.
                sim_assert!(sim, x.active.val() && !x.resp.valid.val(), x);
                wait_clock_cycle!(sim, clock, x);
                for (i, r) in want[j].iter().enumerate() {
                    sim_assert!(sim, x.resp.valid.val(), x);
                    let got = (
                        x.resp.psn.val().to_u64(),
                        x.resp.va.val().to_u64(),
                        x.resp.plen.val().to_u64(),
                        x.resp.first.val(),
                        x.resp.last.val(),
                    );
                    if got != *r {
                        println!("job {j} response {i}: got {got:x?}, want {r:x?}");
                    }
                    sim_assert_eq!(sim, got, *r, x);
                    // Pop, then one cycle without (the engine's fastest).
                    x.resp.ready.next = true;
                    wait_clock_cycle!(sim, clock, x);
                    x.resp.ready.next = false;
                    wait_clock_cycle!(sim, clock, x);
                }
                sim_assert!(sim, !x.active.val() && !x.resp.valid.val(), x);
            }
            // Abort ends a job mid-way; the next one starts clean.
            x.job.valid.next = true;
            x.job.va.next = 0x9000_u64.into();
            x.job.len.next = 3000_u64.into();
            x.job.psn.next = 100_u64.into();
            x.job.pmtu.next = 10_u64.into();
            x.job.atomic.next = false;
            wait_clock_cycle!(sim, clock, x);
            x.job.valid.next = false;
            wait_clock_cycle!(sim, clock, x);
            x.resp.ready.next = true;
            wait_clock_cycle!(sim, clock, x);
            x.resp.ready.next = false;
            x.abort.next = true;
            wait_clock_cycle!(sim, clock, x);
            x.abort.next = false;
            sim_assert!(sim, !x.active.val() && x.job.ready.val(), x);
            sim.done(x)
        });
        let mut uut = ReadReply::default();
        uut.connect_all();
        sim.run(Box::new(uut), 10_000).unwrap();
    }

    #[test]
    fn read_reply_synthesizes() {
        let mut uut = ReadReply::default();
        uut.connect_all();
        yosys_validate("read_reply", &generate_verilog(&uut)).unwrap();
    }
}
