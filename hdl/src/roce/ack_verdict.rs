//! The completer's decision on a latched ACK/NAK (IBA §9.7.5.1, §9.7.6), one registered stage behind
//! `comp_check`'s compares: what the transmit engine does with it, for the outstanding ring's head entry
//! (`r`, read when the ring holds work requests) and for the work request in progress (`w`, when it is
//! empty). The engine's `Idle` then only decodes its pick and loads what these bits name.
//!
//! Registered from the compares and the engine's state of the cycle before: the engine's arbiter picks
//! an ACK/NAK only after a cycle in which nothing it reads here changed (`tx_arbiter`, the settle rule)
//! and acts a cycle after the pick, so the decision it reads is the one of its own state.
use rust_hdl::prelude::*;

/// What the decision reads: `comp_check`'s compares and registers of the transmit engine.
#[derive(LogicInterface, Default)]
pub struct AckState {
    /// The latched packet: an ACK (else a NAK), and for a NAK a PSN sequence error or an RNR NAK.
    pub ack: Signal<In, bool>,
    pub seq: Signal<In, bool>,
    pub rnr: Signal<In, bool>,
    /// A response of the READ or atomic in progress has landed since its last request.
    pub resp_landed: Signal<In, bool>,
    /// The ring's head entry is a READ or atomic; the WQE in progress is one.
    pub h_rd: Signal<In, bool>,
    pub w_rd: Signal<In, bool>,
    /// Retries left is zero; the QP's retry count is not zero.
    pub retry_zero: Signal<In, bool>,
    pub retry_cnt_nz: Signal<In, bool>,
    /// RNR retries left is zero; the QP's RNR retry count is 7 (retry forever).
    pub rnr_zero: Signal<In, bool>,
    pub rnr_inf: Signal<In, bool>,
    /// The AETH syndrome and the work-completion status a fatal NAK gives.
    pub syndrome: Signal<In, Bits<8>>,
    pub nak_status: Signal<In, Bits<8>>,
    // comp_check's compares (see `CompVerdict`).
    pub h_ge_end: Signal<In, bool>,
    pub h_gt_end: Signal<In, bool>,
    pub h_ge_last: Signal<In, bool>,
    pub h_ge_npk: Signal<In, bool>,
    pub h_ge_una: Signal<In, bool>,
    pub h_gt_una: Signal<In, bool>,
    pub a_ge_una: Signal<In, bool>,
    pub a_gt_una: Signal<In, bool>,
    pub a_lt_max: Signal<In, bool>,
    pub a_le_max: Signal<In, bool>,
    pub a_ge_snd: Signal<In, bool>,
    pub a_eq_last: Signal<In, bool>,
    pub a_ge_npk: Signal<In, bool>,
    pub a_lt_hi: Signal<In, bool>,
    pub a_le_hi: Signal<In, bool>,
}

/// What to do, each bit a load or a pulse of the engine. For the ring's head entry (`r_*`) and for the
/// WQE in progress (`w_*`); the retry, RNR and counter bits are of whichever the engine acts on.
#[derive(LogicInterface, Default)]
pub struct AckAct {
    /// Head entry: keep the ACK latched for the next entry (it completes this one and covers more).
    pub r_keep: Signal<Out, bool>,
    /// Head entry completes (RgCqe) with `r_status`/`r_fail`/`r_vendor`.
    pub r_complete: Signal<Out, bool>,
    pub r_status: Signal<Out, Bits<8>>,
    pub r_fail: Signal<Out, bool>,
    pub r_vendor: Signal<Out, Bits<8>>,
    /// Load the head's vendor syndrome (a NAK into it, or a completion).
    pub r_vendor_ld: Signal<Out, bool>,
    /// Acknowledged inside the head entry: its `h_una` moves to the packet after the ACK's.
    pub r_part: Signal<Out, bool>,
    /// Go back into the ring (go-back-N from the head, or after an RNR wait).
    pub r_back: Signal<Out, bool>,
    pub r_rs_rnr: Signal<Out, bool>,
    pub r_retry_init: Signal<Out, bool>,
    pub r_retry_init_m1: Signal<Out, bool>,
    pub r_retry_dec: Signal<Out, bool>,
    pub r_rt_clear: Signal<Out, bool>,
    pub r_retransmit: Signal<Out, bool>,
    pub r_rnr_load: Signal<Out, bool>,
    pub r_rnr_dec: Signal<Out, bool>,
    pub r_rnr_exc: Signal<Out, bool>,
    /// WQE in progress: `una` to the ACK's packet + 1 (`w_una_p1`) or to it (`w_una_ad`); `snd_idx`
    /// likewise, or back to `una` (`w_snd_una`).
    pub w_una_p1: Signal<Out, bool>,
    pub w_una_ad: Signal<Out, bool>,
    pub w_snd_p1: Signal<Out, bool>,
    pub w_snd_ad: Signal<Out, bool>,
    pub w_snd_una: Signal<Out, bool>,
    /// Restart the request-interval count (a NAK resends).
    pub w_since0: Signal<Out, bool>,
    /// The WQE is done, with `w_status`/`w_fail`; `w_vendor_ld` loads the NAK's syndrome.
    pub w_done: Signal<Out, bool>,
    pub w_status: Signal<Out, Bits<8>>,
    pub w_fail: Signal<Out, bool>,
    pub w_vendor_ld: Signal<Out, bool>,
    /// Acknowledged past this WQE (sent before a go-back-N): none of it goes again.
    pub w_past: Signal<Out, bool>,
    pub w_rnr_wait: Signal<Out, bool>,
    pub w_retry_init: Signal<Out, bool>,
    pub w_retry_init_m1: Signal<Out, bool>,
    pub w_retry_dec: Signal<Out, bool>,
    pub w_rt_clear: Signal<Out, bool>,
    pub w_retransmit: Signal<Out, bool>,
    pub w_rnr_load: Signal<Out, bool>,
    pub w_rnr_dec: Signal<Out, bool>,
    pub w_rnr_exc: Signal<Out, bool>,
}

#[derive(LogicBlock)]
pub struct AckVerdict {
    pub clock: Signal<In, Clock>,
    pub i: AckState,
    pub o: AckAct,
    /// Work-completion statuses (`proto::verbs::WcStatus`).
    pub wc_success: Constant<Bits<8>>,
    pub wc_retry_exc: Constant<Bits<8>>,
    pub wc_rnr_retry_exc: Constant<Bits<8>>,
    // Decoded, before the registers.
    r_nak_in: Signal<Local, bool>,
    w_nak_in: Signal<Local, bool>,
    w_nak_past: Signal<Local, bool>,
    w_adv: Signal<Local, bool>,
    // The registered decision, one flip-flop per output.
    r_keep: DFF<bool>,
    r_complete: DFF<bool>,
    r_status: DFF<Bits<8>>,
    r_fail: DFF<bool>,
    r_vendor: DFF<Bits<8>>,
    r_vendor_ld: DFF<bool>,
    r_part: DFF<bool>,
    r_back: DFF<bool>,
    r_rs_rnr: DFF<bool>,
    r_retry_init: DFF<bool>,
    r_retry_init_m1: DFF<bool>,
    r_retry_dec: DFF<bool>,
    r_rt_clear: DFF<bool>,
    r_retransmit: DFF<bool>,
    r_rnr_load: DFF<bool>,
    r_rnr_dec: DFF<bool>,
    r_rnr_exc: DFF<bool>,
    w_una_p1: DFF<bool>,
    w_una_ad: DFF<bool>,
    w_snd_p1: DFF<bool>,
    w_snd_ad: DFF<bool>,
    w_snd_una: DFF<bool>,
    w_since0: DFF<bool>,
    w_done: DFF<bool>,
    w_status: DFF<Bits<8>>,
    w_fail: DFF<bool>,
    w_vendor_ld: DFF<bool>,
    w_past: DFF<bool>,
    w_rnr_wait: DFF<bool>,
    w_retry_init: DFF<bool>,
    w_retry_init_m1: DFF<bool>,
    w_retry_dec: DFF<bool>,
    w_rt_clear: DFF<bool>,
    w_retransmit: DFF<bool>,
    w_rnr_load: DFF<bool>,
    w_rnr_dec: DFF<bool>,
    w_rnr_exc: DFF<bool>,
}

impl AckVerdict {
    pub fn new(success: u8, retry_exc: u8, rnr_retry_exc: u8) -> Self {
        Self {
            clock: Default::default(),
            i: Default::default(),
            o: Default::default(),
            wc_success: Constant::new(success.to_bits()),
            wc_retry_exc: Constant::new(retry_exc.to_bits()),
            wc_rnr_retry_exc: Constant::new(rnr_retry_exc.to_bits()),
            r_nak_in: Default::default(),
            w_nak_in: Default::default(),
            w_nak_past: Default::default(),
            w_adv: Default::default(),
            r_keep: Default::default(),
            r_complete: Default::default(),
            r_status: Default::default(),
            r_fail: Default::default(),
            r_vendor: Default::default(),
            r_vendor_ld: Default::default(),
            r_part: Default::default(),
            r_back: Default::default(),
            r_rs_rnr: Default::default(),
            r_retry_init: Default::default(),
            r_retry_init_m1: Default::default(),
            r_retry_dec: Default::default(),
            r_rt_clear: Default::default(),
            r_retransmit: Default::default(),
            r_rnr_load: Default::default(),
            r_rnr_dec: Default::default(),
            r_rnr_exc: Default::default(),
            w_una_p1: Default::default(),
            w_una_ad: Default::default(),
            w_snd_p1: Default::default(),
            w_snd_ad: Default::default(),
            w_snd_una: Default::default(),
            w_since0: Default::default(),
            w_done: Default::default(),
            w_status: Default::default(),
            w_fail: Default::default(),
            w_vendor_ld: Default::default(),
            w_past: Default::default(),
            w_rnr_wait: Default::default(),
            w_retry_init: Default::default(),
            w_retry_init_m1: Default::default(),
            w_retry_dec: Default::default(),
            w_rt_clear: Default::default(),
            w_retransmit: Default::default(),
            w_rnr_load: Default::default(),
            w_rnr_dec: Default::default(),
            w_rnr_exc: Default::default(),
        }
    }
}

impl Default for AckVerdict {
    fn default() -> Self {
        use rocenic_proto::host::WcStatus;
        Self::new(
            WcStatus::Success as u8,
            WcStatus::RetryExcErr as u8,
            WcStatus::RnrRetryExcErr as u8,
        )
    }
}

impl Logic for AckVerdict {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            r_keep,
            r_complete,
            r_status,
            r_fail,
            r_vendor,
            r_vendor_ld,
            r_part,
            r_back,
            r_rs_rnr,
            r_retry_init,
            r_retry_init_m1,
            r_retry_dec,
            r_rt_clear,
            r_retransmit,
            r_rnr_load,
            r_rnr_dec,
            r_rnr_exc,
            w_una_p1,
            w_una_ad,
            w_snd_p1,
            w_snd_ad,
            w_snd_una,
            w_since0,
            w_done,
            w_status,
            w_fail,
            w_vendor_ld,
            w_past,
            w_rnr_wait,
            w_retry_init,
            w_retry_init_m1,
            w_retry_dec,
            w_rt_clear,
            w_retransmit,
            w_rnr_load,
            w_rnr_dec,
            w_rnr_exc
        );
        // Every bit is a pulse of one decision: none unless set below.
        self.r_keep.d.next = false;
        self.r_complete.d.next = false;
        self.r_status.d.next = self.wc_success.val();
        self.r_fail.d.next = false;
        self.r_vendor.d.next = 0.into();
        self.r_vendor_ld.d.next = false;
        self.r_part.d.next = false;
        self.r_back.d.next = false;
        self.r_rs_rnr.d.next = false;
        self.r_retry_init.d.next = false;
        self.r_retry_init_m1.d.next = false;
        self.r_retry_dec.d.next = false;
        self.r_rt_clear.d.next = false;
        self.r_retransmit.d.next = false;
        self.r_rnr_load.d.next = false;
        self.r_rnr_dec.d.next = false;
        self.r_rnr_exc.d.next = false;
        self.w_una_p1.d.next = false;
        self.w_una_ad.d.next = false;
        self.w_snd_p1.d.next = false;
        self.w_snd_ad.d.next = false;
        self.w_snd_una.d.next = false;
        self.w_since0.d.next = false;
        self.w_done.d.next = false;
        self.w_status.d.next = self.wc_success.val();
        self.w_fail.d.next = false;
        self.w_vendor_ld.d.next = false;
        self.w_past.d.next = false;
        self.w_rnr_wait.d.next = false;
        self.w_retry_init.d.next = false;
        self.w_retry_init_m1.d.next = false;
        self.w_retry_dec.d.next = false;
        self.w_rt_clear.d.next = false;
        self.w_retransmit.d.next = false;
        self.w_rnr_load.d.next = false;
        self.w_rnr_dec.d.next = false;
        self.w_rnr_exc.d.next = false;

        // The ring's head entry (§9.7.6: an ACK/NAK first serves the oldest outstanding request).
        // A NAK inside it, past what it acknowledged: go back, or complete in error.
        self.r_nak_in.next = !self.i.ack.val()
            && !self.i.h_gt_end.val()
            && self.i.h_ge_una.val()
            && !self.i.h_ge_npk.val();
        if self.i.ack.val() {
            if self.i.h_ge_end.val() {
                // Older than the head (a duplicate) or beyond what was sent: dropped.
            } else if self.i.h_rd.val() && !self.i.resp_landed.val() {
                // An ACK at or beyond a READ or atomic whose responses have not landed: they were lost,
                // the ACK timeout asks again (§9.7.6).
            } else if self.i.h_ge_last.val() {
                self.r_keep.d.next = true;
                self.r_complete.d.next = true;
                self.r_vendor_ld.d.next = true;
            } else if self.i.h_ge_una.val() {
                self.r_part.d.next = true;
                self.r_rt_clear.d.next = true;
                self.r_retry_init.d.next = true;
            }
        } else if self.i.h_ge_npk.val()
            && !self.i.h_gt_end.val()
            && self.i.h_ge_una.val()
            && !self.i.h_rd.val()
        {
            // A NAK's PSN acknowledges every PSN before it; not a READ's or atomic's, which only its
            // responses complete (lost, if the NAK passed them).
            self.r_keep.d.next = true;
            self.r_complete.d.next = true;
            self.r_vendor_ld.d.next = true;
        }
        if self.r_nak_in.val() {
            self.r_vendor_ld.d.next = true;
            self.r_vendor.d.next = self.i.syndrome.val();
            if self.i.seq.val() {
                // PSN sequence error: one that acknowledges packets (never a READ's or atomic's) is
                // progress and the retries start over (docs/transport.md, "Retry budget").
                self.r_rt_clear.d.next = true;
                self.r_retransmit.d.next = true;
                if self.i.h_gt_una.val() && !self.i.h_rd.val() && self.i.retry_cnt_nz.val() {
                    self.r_retry_init_m1.d.next = true;
                    self.r_back.d.next = true;
                } else if self.i.retry_zero.val() {
                    self.r_complete.d.next = true;
                    self.r_status.d.next = self.wc_retry_exc.val();
                    self.r_fail.d.next = true;
                } else {
                    self.r_retry_dec.d.next = true;
                    self.r_back.d.next = true;
                }
            } else if self.i.rnr.val() {
                // RNR NAK: the same after the NAK's timer (C9-150), RNR_RETRY times (7: forever).
                self.r_rt_clear.d.next = true;
                self.r_rnr_load.d.next = true;
                if !self.i.rnr_inf.val() && self.i.rnr_zero.val() {
                    self.r_complete.d.next = true;
                    self.r_status.d.next = self.wc_rnr_retry_exc.val();
                    self.r_fail.d.next = true;
                    self.r_rnr_exc.d.next = true;
                } else {
                    self.r_rnr_dec.d.next = !self.i.rnr_inf.val();
                    self.r_back.d.next = true;
                    self.r_rs_rnr.d.next = true;
                }
            } else {
                // Fatal NAK (§9.3): the entry completes in error, the QP goes to ERR.
                self.r_complete.d.next = true;
                self.r_status.d.next = self.i.nak_status.val();
                self.r_fail.d.next = true;
            }
        }

        // The WQE in progress (the ring empty). An ACK acknowledges every PSN up to its own (coalesced
        // ACKs, §9.7.6); a READ or atomic completes only with its responses.
        self.w_adv.next = self.i.ack.val()
            && self.i.a_ge_una.val()
            && (self.i.resp_landed.val() || !self.i.w_rd.val())
            && self.i.a_lt_max.val();
        // Past this WRITE or SEND: a NAK about a later request, sent before a go-back-N.
        self.w_nak_past.next = self.i.a_ge_npk.val() && self.i.a_le_hi.val() && !self.i.w_rd.val();
        self.w_nak_in.next = !self.i.ack.val()
            && !self.w_nak_past.val()
            && self.i.a_ge_una.val()
            && self.i.a_le_max.val();
        if self.w_adv.val() {
            self.w_una_p1.d.next = true;
            self.w_rt_clear.d.next = true;
            self.w_retry_init.d.next = true;
            self.w_snd_p1.d.next = self.i.a_ge_snd.val();
            self.w_done.d.next = self.i.a_eq_last.val();
        }
        // Acknowledged past this WRITE or SEND (by an ACK or a NAK about a later request sent before a
        // go-back-N, §9.7.6): the responder executed all of it, none goes again.
        self.w_past.d.next = !self.i.w_rd.val()
            && self.i.a_ge_npk.val()
            && ((self.i.ack.val() && !self.w_adv.val() && self.i.a_lt_hi.val())
                || (!self.i.ack.val() && self.i.a_le_hi.val()));
        if self.w_nak_in.val() {
            if self.i.seq.val() {
                // PSN sequence error NAK: its PSN is the responder's expected PSN, sending restarts
                // there (go-back-N, §9.7.5.1.1). Not inside a READ or atomic: only their responses
                // acknowledge them, so it goes again from the first not landed.
                self.w_una_ad.d.next = !self.i.w_rd.val();
                self.w_snd_ad.d.next = !self.i.w_rd.val();
                self.w_snd_una.d.next = self.i.w_rd.val();
                self.w_since0.d.next = true;
                self.w_rt_clear.d.next = true;
                self.w_retransmit.d.next = true;
                if self.i.a_gt_una.val() && !self.i.w_rd.val() && self.i.retry_cnt_nz.val() {
                    self.w_retry_init_m1.d.next = true;
                } else if self.i.retry_zero.val() {
                    self.w_done.d.next = true;
                    self.w_status.d.next = self.wc_retry_exc.val();
                    self.w_fail.d.next = true;
                    self.w_vendor_ld.d.next = true;
                } else {
                    self.w_retry_dec.d.next = true;
                }
            } else if self.i.rnr.val() {
                // RNR NAK (§9.7.6, C9-150): wait the NAK's timer, then resend from its PSN.
                self.w_una_ad.d.next = true;
                self.w_snd_ad.d.next = true;
                self.w_since0.d.next = true;
                self.w_rt_clear.d.next = true;
                self.w_rnr_load.d.next = true;
                if !self.i.rnr_inf.val() && self.i.rnr_zero.val() {
                    self.w_done.d.next = true;
                    self.w_status.d.next = self.wc_rnr_retry_exc.val();
                    self.w_fail.d.next = true;
                    self.w_vendor_ld.d.next = true;
                    self.w_rnr_exc.d.next = true;
                } else {
                    self.w_rnr_wait.d.next = true;
                    self.w_rnr_dec.d.next = !self.i.rnr_inf.val();
                }
            } else {
                // Fatal NAK: the WQE completes in error and the QP goes to ERR.
                self.w_done.d.next = true;
                self.w_status.d.next = self.i.nak_status.val();
                self.w_fail.d.next = true;
                self.w_vendor_ld.d.next = true;
            }
        }

        self.o.r_keep.next = self.r_keep.q.val();
        self.o.r_complete.next = self.r_complete.q.val();
        self.o.r_status.next = self.r_status.q.val();
        self.o.r_fail.next = self.r_fail.q.val();
        self.o.r_vendor.next = self.r_vendor.q.val();
        self.o.r_vendor_ld.next = self.r_vendor_ld.q.val();
        self.o.r_part.next = self.r_part.q.val();
        self.o.r_back.next = self.r_back.q.val();
        self.o.r_rs_rnr.next = self.r_rs_rnr.q.val();
        self.o.r_retry_init.next = self.r_retry_init.q.val();
        self.o.r_retry_init_m1.next = self.r_retry_init_m1.q.val();
        self.o.r_retry_dec.next = self.r_retry_dec.q.val();
        self.o.r_rt_clear.next = self.r_rt_clear.q.val();
        self.o.r_retransmit.next = self.r_retransmit.q.val();
        self.o.r_rnr_load.next = self.r_rnr_load.q.val();
        self.o.r_rnr_dec.next = self.r_rnr_dec.q.val();
        self.o.r_rnr_exc.next = self.r_rnr_exc.q.val();
        self.o.w_una_p1.next = self.w_una_p1.q.val();
        self.o.w_una_ad.next = self.w_una_ad.q.val();
        self.o.w_snd_p1.next = self.w_snd_p1.q.val();
        self.o.w_snd_ad.next = self.w_snd_ad.q.val();
        self.o.w_snd_una.next = self.w_snd_una.q.val();
        self.o.w_since0.next = self.w_since0.q.val();
        self.o.w_done.next = self.w_done.q.val();
        self.o.w_status.next = self.w_status.q.val();
        self.o.w_fail.next = self.w_fail.q.val();
        self.o.w_vendor_ld.next = self.w_vendor_ld.q.val();
        self.o.w_past.next = self.w_past.q.val();
        self.o.w_rnr_wait.next = self.w_rnr_wait.q.val();
        self.o.w_retry_init.next = self.w_retry_init.q.val();
        self.o.w_retry_init_m1.next = self.w_retry_init_m1.q.val();
        self.o.w_retry_dec.next = self.w_retry_dec.q.val();
        self.o.w_rt_clear.next = self.w_rt_clear.q.val();
        self.o.w_retransmit.next = self.w_retransmit.q.val();
        self.o.w_rnr_load.next = self.w_rnr_load.q.val();
        self.o.w_rnr_dec.next = self.w_rnr_dec.q.val();
        self.o.w_rnr_exc.next = self.w_rnr_exc.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocenic_proto::host::WcStatus;

    const OK: u8 = WcStatus::Success as u8;
    const RETRY: u8 = WcStatus::RetryExcErr as u8;
    const RNR: u8 = WcStatus::RnrRetryExcErr as u8;

    /// The inputs, in `AckState`'s order (syndrome and NAK status last).
    #[derive(Clone, Copy, Debug, Default)]
    struct In {
        b: [bool; 25],
        syndrome: u8,
        nak_status: u8,
    }

    /// What the engine does with an ACK/NAK to the ring's head entry.
    #[derive(Debug, PartialEq, Default)]
    struct R {
        lat_drop: bool,
        complete: Option<(u8, bool)>,
        vendor: Option<u8>,
        h_una: bool,
        back: Option<bool>,
        t: Retry,
    }

    /// The retry and RNR counters' and the retransmit timer's actions, alike for both.
    #[derive(Debug, PartialEq, Default)]
    struct Retry {
        /// 0 none, 1 the QP's count, 2 count - 1, 3 decrement.
        retry: u8,
        rt_clear: bool,
        retransmit: bool,
        rnr_load: bool,
        rnr_dec: bool,
        rnr_exc: bool,
    }

    /// Which of a group of exclusive selects is up: 0 none, k the k-th, 9 more than one (never a
    /// model's answer, so a test that sees it fails).
    fn one_hot(sel: &[bool]) -> u8 {
        match sel.iter().filter(|&&s| s).count() {
            0 => 0,
            1 => sel.iter().position(|&s| s).unwrap() as u8 + 1,
            _ => 9,
        }
    }

    impl Retry {
        /// From the outputs: the retry count's init / init - 1 / decrement, then the others in order.
        fn got(
            [init, init_m1, dec]: [bool; 3],
            [rt_clear, retransmit, rnr_load, rnr_dec, rnr_exc]: [bool; 5],
        ) -> Self {
            Retry {
                retry: one_hot(&[init, init_m1, dec]),
                rt_clear,
                retransmit,
                rnr_load,
                rnr_dec,
                rnr_exc,
            }
        }
    }

    /// What the engine does with an ACK/NAK to the WQE in progress.
    #[derive(Debug, PartialEq, Default)]
    struct W {
        /// 0 kept, 1 the ACK's packet + 1, 2 the ACK's packet (3 for snd_idx: back to una).
        una: u8,
        snd: u8,
        since0: bool,
        done: Option<(u8, bool)>,
        vendor: bool,
        past: bool,
        rnr_wait: bool,
        t: Retry,
    }

    /// The head entry's decision as the engine took it inline, before this block.
    fn model_r(x: &In) -> R {
        let [ack, seq, rnr, resp, h_rd, _w_rd, retry_zero, cnt_nz, rnr_zero, rnr_inf, h_ge_end, h_gt_end, h_ge_last, h_ge_npk, h_ge_una, h_gt_una, ..] =
            x.b;
        let mut e = R::default();
        if ack {
            if h_ge_end || (h_rd && !resp) {
                e.lat_drop = true;
            } else if h_ge_last {
                e.complete = Some((OK, false));
                e.vendor = Some(0);
            } else {
                e.lat_drop = true;
                if h_ge_una {
                    e.h_una = true;
                    e.t.rt_clear = true;
                    e.t.retry = 1;
                }
            }
        } else if h_gt_end || !h_ge_una {
            e.lat_drop = true;
        } else if h_ge_npk {
            if h_rd {
                e.lat_drop = true;
            } else {
                e.complete = Some((OK, false));
                e.vendor = Some(0);
            }
        } else {
            e.lat_drop = true;
            e.vendor = Some(x.syndrome);
            if seq {
                e.t.rt_clear = true;
                e.t.retransmit = true;
                if h_gt_una && !h_rd && cnt_nz {
                    e.t.retry = 2;
                    e.back = Some(false);
                } else if retry_zero {
                    e.complete = Some((RETRY, true));
                } else {
                    e.t.retry = 3;
                    e.back = Some(false);
                }
            } else if rnr {
                e.t.rt_clear = true;
                e.t.rnr_load = true;
                if !rnr_inf && rnr_zero {
                    e.complete = Some((RNR, true));
                    e.t.rnr_exc = true;
                } else {
                    e.t.rnr_dec = !rnr_inf;
                    e.back = Some(true);
                }
            } else {
                e.complete = Some((x.nak_status, true));
            }
        }
        e
    }

    /// The WQE's decision as the engine took it inline.
    fn model_w(x: &In) -> W {
        let [ack, seq, rnr, resp, _, w_rd, retry_zero, cnt_nz, rnr_zero, rnr_inf, _, _, _, _, _, _, a_ge_una, a_gt_una, a_lt_max, a_le_max, a_ge_snd, a_eq_last, a_ge_npk, a_lt_hi, a_le_hi] =
            x.b;
        let mut e = W::default();
        if ack {
            if a_ge_una && (resp || !w_rd) && a_lt_max {
                e.una = 1;
                e.t.rt_clear = true;
                e.t.retry = 1;
                if a_ge_snd {
                    e.snd = 1;
                }
                if a_eq_last {
                    e.done = Some((OK, false));
                }
            } else if a_ge_npk && a_lt_hi && !w_rd {
                e.past = true;
            }
        } else if a_ge_npk && a_le_hi && !w_rd {
            e.past = true;
        } else if a_ge_una && a_le_max {
            if seq {
                (e.una, e.snd) = if w_rd { (0, 3) } else { (2, 2) };
                e.since0 = true;
                e.t.rt_clear = true;
                e.t.retransmit = true;
                if a_gt_una && !w_rd && cnt_nz {
                    e.t.retry = 2;
                } else if retry_zero {
                    e.done = Some((RETRY, true));
                    e.vendor = true;
                } else {
                    e.t.retry = 3;
                }
            } else if rnr {
                (e.una, e.snd) = (2, 2);
                e.since0 = true;
                e.t.rt_clear = true;
                e.t.rnr_load = true;
                if !rnr_inf && rnr_zero {
                    e.done = Some((RNR, true));
                    e.vendor = true;
                    e.t.rnr_exc = true;
                } else {
                    e.rnr_wait = true;
                    e.t.rnr_dec = !rnr_inf;
                }
            } else {
                e.done = Some((x.nak_status, true));
                e.vendor = true;
            }
        }
        e
    }

    fn got_r(o: &AckAct) -> R {
        R {
            lat_drop: !o.r_keep.val(),
            complete: o
                .r_complete
                .val()
                .then(|| (o.r_status.val().index() as u8, o.r_fail.val())),
            vendor: o.r_vendor_ld.val().then(|| o.r_vendor.val().index() as u8),
            h_una: o.r_part.val(),
            back: o.r_back.val().then(|| o.r_rs_rnr.val()),
            t: Retry::got(
                [
                    o.r_retry_init.val(),
                    o.r_retry_init_m1.val(),
                    o.r_retry_dec.val(),
                ],
                [
                    o.r_rt_clear.val(),
                    o.r_retransmit.val(),
                    o.r_rnr_load.val(),
                    o.r_rnr_dec.val(),
                    o.r_rnr_exc.val(),
                ],
            ),
        }
    }

    fn got_w(o: &AckAct) -> W {
        W {
            una: one_hot(&[o.w_una_p1.val(), o.w_una_ad.val()]),
            snd: one_hot(&[o.w_snd_p1.val(), o.w_snd_ad.val(), o.w_snd_una.val()]),
            since0: o.w_since0.val(),
            done: o
                .w_done
                .val()
                .then(|| (o.w_status.val().index() as u8, o.w_fail.val())),
            vendor: o.w_vendor_ld.val(),
            past: o.w_past.val(),
            rnr_wait: o.w_rnr_wait.val(),
            t: Retry::got(
                [
                    o.w_retry_init.val(),
                    o.w_retry_init_m1.val(),
                    o.w_retry_dec.val(),
                ],
                [
                    o.w_rt_clear.val(),
                    o.w_retransmit.val(),
                    o.w_rnr_load.val(),
                    o.w_rnr_dec.val(),
                    o.w_rnr_exc.val(),
                ],
            ),
        }
    }

    fn drive(x: &mut AckVerdict, v: &In) {
        let i = &mut x.i;
        let sigs = [
            &mut i.ack,
            &mut i.seq,
            &mut i.rnr,
            &mut i.resp_landed,
            &mut i.h_rd,
            &mut i.w_rd,
            &mut i.retry_zero,
            &mut i.retry_cnt_nz,
            &mut i.rnr_zero,
            &mut i.rnr_inf,
            &mut i.h_ge_end,
            &mut i.h_gt_end,
            &mut i.h_ge_last,
            &mut i.h_ge_npk,
            &mut i.h_ge_una,
            &mut i.h_gt_una,
            &mut i.a_ge_una,
            &mut i.a_gt_una,
            &mut i.a_lt_max,
            &mut i.a_le_max,
            &mut i.a_ge_snd,
            &mut i.a_eq_last,
            &mut i.a_ge_npk,
            &mut i.a_lt_hi,
            &mut i.a_le_hi,
        ];
        for (s, b) in sigs.into_iter().zip(v.b) {
            s.next = b;
        }
        i.syndrome.next = (v.syndrome as u64).into();
        i.nak_status.next = (v.nak_status as u64).into();
    }

    #[test]
    fn decides_every_ack_and_nak_as_the_engine_did_a_cycle_later() {
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<AckVerdict>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut sim: Sim<AckVerdict>| {
            let mut x = sim.init()?;
            let mut rng = crate::prim::test_rng(41);
            let mut prev: Option<In> = None;
            for cycle in 0..6000 {
                let mut v = In::default();
                for b in v.b.iter_mut() {
                    // Each condition true half the time or, in a quarter of the cycles, rarely
                    // or nearly always, so that every branch of the trees is reached.
                    let r = rng();
                    *b = match r & 3 {
                        0 => (r >> 2) & 7 == 0,
                        1 => (r >> 2) & 7 != 0,
                        _ => (r >> 2) & 1 == 0,
                    };
                }
                v.syndrome = rng() as u8;
                v.nak_status = rng() as u8;
                drive(&mut x, &v);
                x = sim.wait(1, x)?;
                if let Some(p) = prev {
                    let (gr, wr, gw, ww) = (got_r(&x.o), model_r(&p), got_w(&x.o), model_w(&p));
                    if gr != wr || gw != ww {
                        println!("cycle {cycle}: inputs {p:?}\n head {gr:?}, want {wr:?}\n wqe {gw:?}, want {ww:?}");
                    }
                    sim_assert_eq!(sim, gr, wr, x);
                    sim_assert_eq!(sim, gw, ww, x);
                }
                prev = Some(v);
                wait_clock_cycle!(sim, clock, x);
            }
            sim.done(x)
        });
        sim.run(Box::new(AckVerdict::default()), 200_000).unwrap();
    }

    #[test]
    fn synthesizes() {
        let mut uut = AckVerdict::default();
        uut.connect_all();
        yosys_validate("ack_verdict", &generate_verilog(&uut)).unwrap();
    }
}
