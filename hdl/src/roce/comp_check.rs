//! The completer's checks (IBA §9.7.6): where a received ACK/NAK's PSN falls against the outstanding
//! ring's head entry and against the work request in progress, as 24-bit modular distances and their
//! compares, computed in two registered stages so that no subtract or compare stands in front of the
//! transmit engine's decisions.
//!
//! Stage 1 registers the distances (ACK/NAK PSN and highest PSN sent, each relative to the head's
//! first PSN and to the WQE's), stage 2 their compares against the engine's packet indices. The
//! verdict is `fresh` when the inputs have not changed over the two cycles it took: the engine raises
//! `changed` in every cycle after which one of them may differ (a decision of its own, a new ACK/NAK
//! latched, the ring's head read back); the verdict is then stale for the next two cycles and the
//! engine waits for it.
use rust_hdl::prelude::*;

/// What the checks read: registers of the transmit engine.
#[derive(LogicInterface, Default)]
pub struct CompInputs {
    /// The latched ACK/NAK's PSN.
    pub psn: Signal<In, Bits<24>>,
    /// The ring's head entry: its first PSN, packets, and packets acknowledged so far.
    pub h_first: Signal<In, Bits<24>>,
    pub h_npk: Signal<In, Bits<24>>,
    pub h_una: Signal<In, Bits<24>>,
    /// The PSN after the highest one sent in the QP's turn.
    pub hi_psn: Signal<In, Bits<24>>,
    /// The WQE in progress: first PSN, then packet indices relative to it (oldest unacknowledged,
    /// next to send, highest sent + 1, packets, last packet).
    pub first_psn: Signal<In, Bits<24>>,
    pub una: Signal<In, Bits<24>>,
    pub snd_idx: Signal<In, Bits<24>>,
    pub snd_max: Signal<In, Bits<24>>,
    pub npk: Signal<In, Bits<24>>,
    pub last_idx: Signal<In, Bits<24>>,
    /// One of the above may differ after this cycle.
    pub changed: Signal<In, bool>,
}

/// The verdict, registered. `h_*`: the ACK/NAK's packet index in the head entry (`hd`) against its
/// end (`hend`, the highest sent), its last packet, its packets and `h_una`; `a_*`: its packet index
/// in the WQE in progress (`ad`) against that WQE's indices.
#[derive(LogicInterface, Default)]
pub struct CompVerdict {
    /// The bits below are of the inputs as they are now.
    pub fresh: Signal<Out, bool>,
    pub hd: Signal<Out, Bits<24>>,
    pub hd_p1: Signal<Out, Bits<24>>,
    pub h_ge_end: Signal<Out, bool>,
    pub h_gt_end: Signal<Out, bool>,
    pub h_ge_last: Signal<Out, bool>,
    pub h_ge_npk: Signal<Out, bool>,
    pub h_ge_una: Signal<Out, bool>,
    pub h_gt_una: Signal<Out, bool>,
    /// The head's PSN at `h_una` (where a timeout resends from).
    pub una_psn: Signal<Out, Bits<24>>,
    pub ad: Signal<Out, Bits<24>>,
    pub ad_p1: Signal<Out, Bits<24>>,
    pub a_ge_una: Signal<Out, bool>,
    pub a_gt_una: Signal<Out, bool>,
    pub a_lt_max: Signal<Out, bool>,
    pub a_le_max: Signal<Out, bool>,
    pub a_ge_snd: Signal<Out, bool>,
    pub a_eq_last: Signal<Out, bool>,
    pub a_ge_npk: Signal<Out, bool>,
    /// Against the highest PSN sent, relative to the WQE (packets sent before a go-back-N).
    pub a_lt_hi: Signal<Out, bool>,
    pub a_le_hi: Signal<Out, bool>,
}

#[derive(LogicBlock, Default)]
pub struct CompCheck {
    pub clock: Signal<In, Clock>,
    pub i: CompInputs,
    pub v: CompVerdict,
    // stage 1: distances
    s_hd: DFF<Bits<24>>,
    s_hend: DFF<Bits<24>>,
    s_hlast: DFF<Bits<24>>,
    s_ad: DFF<Bits<24>>,
    s_hid: DFF<Bits<24>>,
    s_una_psn: DFF<Bits<24>>,
    // stage 2: compares
    hd: DFF<Bits<24>>,
    hd_p1: DFF<Bits<24>>,
    h_ge_end: DFF<bool>,
    h_gt_end: DFF<bool>,
    h_ge_last: DFF<bool>,
    h_ge_npk: DFF<bool>,
    h_ge_una: DFF<bool>,
    h_gt_una: DFF<bool>,
    una_psn: DFF<Bits<24>>,
    ad: DFF<Bits<24>>,
    ad_p1: DFF<Bits<24>>,
    a_ge_una: DFF<bool>,
    a_gt_una: DFF<bool>,
    a_lt_max: DFF<bool>,
    a_le_max: DFF<bool>,
    a_ge_snd: DFF<bool>,
    a_eq_last: DFF<bool>,
    a_ge_npk: DFF<bool>,
    a_lt_hi: DFF<bool>,
    a_le_hi: DFF<bool>,
    /// `changed` one and two cycles ago.
    ch1: DFF<bool>,
    ch2: DFF<bool>,
}

impl Logic for CompCheck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s_hd, s_hend, s_hlast, s_ad, s_hid, s_una_psn, hd, hd_p1, h_ge_end,
            h_gt_end, h_ge_last, h_ge_npk, h_ge_una, h_gt_una, una_psn, ad, ad_p1, a_ge_una,
            a_gt_una, a_lt_max, a_le_max, a_ge_snd, a_eq_last, a_ge_npk, a_lt_hi, a_le_hi, ch1,
            ch2
        );
        // Stage 1. Modular distances at 24 bits: an ACK/NAK older than the head lands far above the end.
        self.s_hd.d.next = self.i.psn.val() - self.i.h_first.val();
        self.s_hend.d.next = self.i.hi_psn.val() - self.i.h_first.val();
        self.s_hlast.d.next = self.i.h_npk.val() - 1;
        self.s_ad.d.next = self.i.psn.val() - self.i.first_psn.val();
        self.s_hid.d.next = self.i.hi_psn.val() - self.i.first_psn.val();
        self.s_una_psn.d.next = self.i.h_first.val() + self.i.h_una.val();
        // Stage 2.
        self.hd.d.next = self.s_hd.q.val();
        self.hd_p1.d.next = self.s_hd.q.val() + 1;
        self.h_ge_end.d.next = self.s_hd.q.val() >= self.s_hend.q.val();
        self.h_gt_end.d.next = self.s_hd.q.val() > self.s_hend.q.val();
        self.h_ge_last.d.next = self.s_hd.q.val() >= self.s_hlast.q.val();
        self.h_ge_npk.d.next = self.s_hd.q.val() >= self.i.h_npk.val();
        self.h_ge_una.d.next = self.s_hd.q.val() >= self.i.h_una.val();
        self.h_gt_una.d.next = self.s_hd.q.val() > self.i.h_una.val();
        self.una_psn.d.next = self.s_una_psn.q.val();
        self.ad.d.next = self.s_ad.q.val();
        self.ad_p1.d.next = self.s_ad.q.val() + 1;
        self.a_ge_una.d.next = self.s_ad.q.val() >= self.i.una.val();
        self.a_gt_una.d.next = self.s_ad.q.val() > self.i.una.val();
        self.a_lt_max.d.next = self.s_ad.q.val() < self.i.snd_max.val();
        self.a_le_max.d.next = self.s_ad.q.val() <= self.i.snd_max.val();
        self.a_ge_snd.d.next = self.s_ad.q.val() >= self.i.snd_idx.val();
        self.a_eq_last.d.next = self.s_ad.q.val() == self.i.last_idx.val();
        self.a_ge_npk.d.next = self.s_ad.q.val() >= self.i.npk.val();
        self.a_lt_hi.d.next = self.s_ad.q.val() < self.s_hid.q.val();
        self.a_le_hi.d.next = self.s_ad.q.val() <= self.s_hid.q.val();
        self.ch1.d.next = self.i.changed.val();
        self.ch2.d.next = self.ch1.q.val();

        self.v.fresh.next = !self.ch1.q.val() && !self.ch2.q.val();
        self.v.hd.next = self.hd.q.val();
        self.v.hd_p1.next = self.hd_p1.q.val();
        self.v.h_ge_end.next = self.h_ge_end.q.val();
        self.v.h_gt_end.next = self.h_gt_end.q.val();
        self.v.h_ge_last.next = self.h_ge_last.q.val();
        self.v.h_ge_npk.next = self.h_ge_npk.q.val();
        self.v.h_ge_una.next = self.h_ge_una.q.val();
        self.v.h_gt_una.next = self.h_gt_una.q.val();
        self.v.una_psn.next = self.una_psn.q.val();
        self.v.ad.next = self.ad.q.val();
        self.v.ad_p1.next = self.ad_p1.q.val();
        self.v.a_ge_una.next = self.a_ge_una.q.val();
        self.v.a_gt_una.next = self.a_gt_una.q.val();
        self.v.a_lt_max.next = self.a_lt_max.q.val();
        self.v.a_le_max.next = self.a_le_max.q.val();
        self.v.a_ge_snd.next = self.a_ge_snd.q.val();
        self.v.a_eq_last.next = self.a_eq_last.q.val();
        self.v.a_ge_npk.next = self.a_ge_npk.q.val();
        self.v.a_lt_hi.next = self.a_lt_hi.q.val();
        self.v.a_le_hi.next = self.a_le_hi.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: u64 = 0xFF_FFFF;

    /// Inputs: psn, h_first, h_npk, h_una, hi_psn, first_psn, una, snd_idx, snd_max, npk, last_idx.
    type In = [u64; 11];

    /// The verdict as the engine read it before the checks were registered: (hd, hd + 1, una_psn,
    /// ad, ad + 1, then the flags in `CompVerdict`'s order).
    fn model(i: &In) -> (u64, u64, u64, u64, u64, Vec<bool>) {
        let [psn, h_first, h_npk, h_una, hi_psn, first_psn, una, snd_idx, snd_max, npk, last_idx] =
            *i;
        let hd = psn.wrapping_sub(h_first) & M;
        let hend = hi_psn.wrapping_sub(h_first) & M;
        let hlast = h_npk.wrapping_sub(1) & M;
        let ad = psn.wrapping_sub(first_psn) & M;
        let hid = hi_psn.wrapping_sub(first_psn) & M;
        let flags = vec![
            hd >= hend,
            hd > hend,
            hd >= hlast,
            hd >= h_npk,
            hd >= h_una,
            hd > h_una,
            ad >= una,
            ad > una,
            ad < snd_max,
            ad <= snd_max,
            ad >= snd_idx,
            ad == last_idx,
            ad >= npk,
            ad < hid,
            ad <= hid,
        ];
        (
            hd,
            (hd + 1) & M,
            (h_first + h_una) & M,
            ad,
            (ad + 1) & M,
            flags,
        )
    }

    fn got(x: &CompCheck) -> (u64, u64, u64, u64, u64, Vec<bool>) {
        let v = &x.v;
        (
            v.hd.val().to_u64(),
            v.hd_p1.val().to_u64(),
            v.una_psn.val().to_u64(),
            v.ad.val().to_u64(),
            v.ad_p1.val().to_u64(),
            vec![
                v.h_ge_end.val(),
                v.h_gt_end.val(),
                v.h_ge_last.val(),
                v.h_ge_npk.val(),
                v.h_ge_una.val(),
                v.h_gt_una.val(),
                v.a_ge_una.val(),
                v.a_gt_una.val(),
                v.a_lt_max.val(),
                v.a_le_max.val(),
                v.a_ge_snd.val(),
                v.a_eq_last.val(),
                v.a_ge_npk.val(),
                v.a_lt_hi.val(),
                v.a_le_hi.val(),
            ],
        )
    }

    fn drive(x: &mut CompCheck, i: &In, changed: bool) {
        let s = &mut x.i;
        for (sig, v) in [
            &mut s.psn,
            &mut s.h_first,
            &mut s.h_npk,
            &mut s.h_una,
            &mut s.hi_psn,
            &mut s.first_psn,
            &mut s.una,
            &mut s.snd_idx,
            &mut s.snd_max,
            &mut s.npk,
            &mut s.last_idx,
        ]
        .into_iter()
        .zip(i)
        {
            sig.next = (*v).into();
        }
        s.changed.next = changed;
    }

    #[test]
    fn checks_psns_across_the_wrap_and_goes_stale_on_a_change() {
        let cases: Vec<In> = vec![
            // An ACK inside the head entry, and inside the WQE.
            [105, 100, 8, 2, 120, 110, 0, 4, 6, 8, 7],
            // At the head's last packet; the WQE's PSNs behind the ACK (a far, modular distance).
            [107, 100, 8, 0, 108, 200, 0, 0, 0, 4, 3],
            // Across the 24-bit wrap: head from 0xFFFFFC, ACK at 2, highest sent 6.
            [2, M - 3, 10, 3, 6, M - 3, 3, 6, 9, 10, 9],
            // Older than the head (a duplicate), and equal to the WQE's last.
            [M, 0, 4, 0, 4, M - 7, 5, 8, 8, 8, 7],
            // A NAK at the head's first PSN, nothing acknowledged; first packet of the WQE.
            [300, 300, 1, 0, 301, 300, 0, 1, 1, 1, 0],
        ];
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<CompCheck>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<CompCheck>| {
            let mut x = sim.init()?;
            for (k, c) in cases.iter().enumerate() {
                // The engine changes the inputs: stale for the two cycles the stages take.
                drive(&mut x, c, true);
                wait_clock_cycle!(sim, clock, x);
                drive(&mut x, c, false);
                sim_assert!(sim, !x.v.fresh.val(), x);
                wait_clock_cycle!(sim, clock, x);
                sim_assert!(sim, !x.v.fresh.val(), x);
                wait_clock_cycle!(sim, clock, x);
                sim_assert!(sim, x.v.fresh.val(), x);
                let (g, w) = (got(&x), model(c));
                if g != w {
                    println!("case {k}: got {g:x?}, want {w:x?}");
                }
                sim_assert_eq!(sim, g, w, x);
                // It stays fresh while nothing changes.
                wait_clock_cycle!(sim, clock, x);
                sim_assert!(sim, x.v.fresh.val(), x);
            }
            sim.done(x)
        });
        sim.run(Box::new(CompCheck::default()), 1_000).unwrap();
    }

    #[test]
    fn synthesizes() {
        let mut uut = CompCheck::default();
        uut.connect_all();
        yosys_validate("comp_check", &generate_verilog(&uut)).unwrap();
    }
}
