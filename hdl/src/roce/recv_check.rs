//! The receive checks of one packet against its QP (the second half of rxe's `recv` and the checks of
//! rxe's `resp` and `comp`), each a registered result, so the role that acts on the packet decides from
//! flip-flops: is the packet for this QP and from its peer (IBA §10.3.1), where its PSN stands against
//! the expected one (§9.7.5.1.1–2), is its opcode in sequence (§9.7.5.1.3), is its length right
//! (§9.7.5.1.4, C9-92), does its R_Key name a valid region with the access it needs (§9.7.5.1.7,
//! C9-88), does the QP allow the operation, may an IETH's R_Key be invalidated (chapter 10), is a READ
//! response the one expected and of the right length (§9.7.6), how many PSNs a READ request takes
//! (§9.7.5.1.5), and whether a CE-marked packet is due a CNP (RoCEv2 annex A17.9).
//!
//! Inputs are the header fields (`roce::recv_hdr`, its stage 2 valid), the QP's context, the requester's
//! READ in progress and the MR entry read for `mr_lk_key`. Every result is registered one cycle after
//! its inputs; the block recomputes every cycle, so results hold while the inputs hold. What depends on
//! the path MTU and the READ in progress alone (`pmtu`, and the whole READ context: `rd_active`,
//! `rd_atomic`, `rd_psn0`, `rd_len`, `rd_exp`, `rd_laddr`, so where the expected response starts and
//! lands and how much is left) is taken two cycles earlier, in two stages of its own, as one snapshot:
//! those must hold for three cycles before a result is read (a new QP's context). A READ context that
//! changes closer to it (withdrawn, restarted) changes after the packet: the responder voids a response
//! under way then, so no result ever mixes two contexts.
//! `len_ok` takes two cycles after the packet (each length comparison, then the one its class asks
//! for) and `rd_ahead` two after the snapshot (the response's index, then its compares): the responder
//! reads them a cycle after the other results, with `rd_exp_psn` (the expected response's PSN from the
//! same snapshot, what an implied NAK names). `rq_psn_end` (the READ's whole-MTU count and remainder,
//! their sum, then the PSN's) takes three cycles, from inputs the header's first stage gives: the
//! responder reads it a cycle after the other results too.
//!
//! The R_Key results `mr_hit` and `inv_ok` take two cycles after the MR entry (`cont_mr_ok`, a key
//! compare, takes one): every
//! comparison of the entry is a register of its own (64-bit bounds as 32-bit halves), their conjunction
//! the next. The access's end (IOVA + length) is computed a cycle ahead from `va`, `dmalen` and the
//! opcode class, which come from the header's first stage. So the entry and the packet hold for two
//! cycles before those results are read, and `mr_wait` (registered) tells whether the entry was current
//! in the first. `mr_lk_key` (combinational), `mr_bounds` (the packet reads the two-stage results) and
//! `mr_wait_now` (the entry for the key has not come back yet) come a cycle after the packet's class:
//! whether it needs an entry is registered from the header's first stage, so the caller, which asks a
//! cycle later, presents the key to the MR table and waits on the entry with no decode in front. The entry is current when it was read for the key presented a cycle
//! ago (the packet's key holds from the header's first stage on, a cycle before it is asked).
use rocenic_proto::host::QpState;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RecvCheck<const B: usize> {
    pub clock: Signal<In, Clock>,
    // The packet (roce::recv_hdr).
    pub psn: Signal<In, Bits<24>>,
    pub dqpn: Signal<In, Bits<24>>,
    pub sip: Signal<In, Bits<32>>,
    pub va: Signal<In, Bits<64>>,
    pub rkey: Signal<In, Bits<32>>,
    pub dmalen: Signal<In, Bits<32>>,
    /// ImmDt, or the IETH's R_Key.
    pub imm_data: Signal<In, Bits<32>>,
    /// The IETH's R_Key a cycle before `imm_data` (the header's first stage): the key looked up.
    pub ieth_key: Signal<In, Bits<32>>,
    pub pay_len: Signal<In, Bits<16>>,
    pub send: Signal<In, bool>,
    pub write: Signal<In, bool>,
    pub read_request: Signal<In, bool>,
    pub read_response: Signal<In, bool>,
    pub atomic: Signal<In, bool>,
    pub reth: Signal<In, bool>,
    pub ieth: Signal<In, bool>,
    pub first: Signal<In, bool>,
    pub middle: Signal<In, bool>,
    pub last: Signal<In, bool>,
    pub only: Signal<In, bool>,
    pub not_last: Signal<In, bool>,
    pub send_cont: Signal<In, bool>,
    pub write_cont: Signal<In, bool>,
    pub dmalen_zero: Signal<In, bool>,
    pub dmalen_max: Signal<In, bool>,
    /// The R_Key the packet has checked, by its opcode (roce::recv_hdr's key class, its first stage).
    pub key_always: Signal<In, bool>,
    pub key_reth: Signal<In, bool>,
    pub key_cont: Signal<In, bool>,
    // The QP.
    pub qp_state: Signal<In, Bits<32>>,
    pub qpn: Signal<In, Bits<32>>,
    pub pmtu: Signal<In, Bits<32>>,
    pub rq_psn: Signal<In, Bits<32>>,
    pub qp_pd: Signal<In, Bits<32>>,
    pub qp_peer_ip: Signal<In, Bits<32>>,
    /// qp_access_flags: REMOTE_WRITE 2, REMOTE_READ 4, REMOTE_ATOMIC 8.
    pub qp_access: Signal<In, Bits<32>>,
    pub rq_pi: Signal<In, Bits<32>>,
    pub rq_ci: Signal<In, Bits<32>>,
    /// The responder's message in progress: inside a WRITE or a SEND; the WRITE's bytes left, whether
    /// its DMA length is not 0, its R_Key.
    pub in_write: Signal<In, bool>,
    pub in_send: Signal<In, bool>,
    pub write_left: Signal<In, Bits<32>>,
    /// The WRITE in progress has a length (not 0), registered by the caller.
    pub write_nz: Signal<In, bool>,
    pub write_rkey: Signal<In, Bits<32>>,
    /// The requester's READ in progress: its first PSN, length, local address, and the index of the
    /// response expected next.
    pub rd_psn0: Signal<In, Bits<24>>,
    pub rd_len: Signal<In, Bits<32>>,
    pub rd_laddr: Signal<In, Bits<64>>,
    pub rd_exp: Signal<In, Bits<24>>,
    /// A READ or atomic is in progress; it is an atomic.
    pub rd_active: Signal<In, bool>,
    pub rd_atomic: Signal<In, bool>,
    /// The MR entry read for `mr_lk_key` (roce::mr_table): the key it was read for, whether it is
    /// still current, and its fields.
    pub mr_lk_key: Signal<Out, Bits<32>>,
    pub mr_for: Signal<In, Bits<32>>,
    pub mr_fresh: Signal<In, bool>,
    pub mr_base: Signal<In, Bits<64>>,
    /// The region's end (IOVA + length; equal to the IOVA for an invalid entry).
    pub mr_end: Signal<In, Bits<64>>,
    pub mr_key: Signal<In, Bits<32>>,
    pub mr_access: Signal<In, Bits<32>>,
    pub mr_pd: Signal<In, Bits<32>>,
    /// Congestion notification: the cycles since this QP's last CNP (a register), whether there was one.
    pub cnp_age: Signal<In, Bits<32>>,
    pub cnp_seen: Signal<In, bool>,
    pub cnp_interval: Signal<In, Bits<32>>,
    /// The packet needs an MR entry that has not come back yet (combinational).
    pub mr_wait_now: Signal<Out, bool>,
    // Results, registered.
    /// The QP receives (RTR, RTS or SQD) and is the packet's destination.
    pub for_qp: Signal<Out, bool>,
    pub from_peer: Signal<Out, bool>,
    /// A CE-marked packet now would be due a CNP (none yet, or CNP_INTERVAL since the last).
    pub cnp_due: Signal<Out, bool>,
    /// PSN - expected PSN: zero; in the half behind (a duplicate).
    pub psn_now: Signal<Out, bool>,
    pub psn_old: Signal<Out, bool>,
    pub seq_ok: Signal<Out, bool>,
    /// Two stages (its comparisons, then the one the class asks for): read a cycle after the rest.
    pub len_ok: Signal<Out, bool>,
    /// The packet accesses memory through an MR and its entry had not come back.
    pub mr_wait: Signal<Out, bool>,
    /// The packet's R_Key results take their second stage (a RETH with a length, an AtomicETH, an
    /// IETH; a cycle after the class): `mr_hit` and `inv_ok` are read two cycles after the entry, not one.
    pub mr_bounds: Signal<Out, bool>,
    pub mr_hit: Signal<Out, bool>,
    /// The MR of the WRITE in progress is still registered under its key.
    pub cont_mr_ok: Signal<Out, bool>,
    pub inv_ok: Signal<Out, bool>,
    pub qp_acc_ok: Signal<Out, bool>,
    /// A READ response: the one expected next (index), of the right length, one ahead (two stages: read
    /// a cycle after the rest); the PSN of the atomic in progress (its ATOMIC ACKNOWLEDGE's). Each false
    /// with no READ or atomic in progress.
    pub rd_at_exp: Signal<Out, bool>,
    pub rresp_ok: Signal<Out, bool>,
    pub rd_at_zero: Signal<Out, bool>,
    pub rd_ahead: Signal<Out, bool>,
    /// Where the expected response lands; the index of the READ's last response.
    pub rd_dst: Signal<Out, Bits<64>>,
    pub rd_last: Signal<Out, Bits<24>>,
    /// The expected response's PSN, read with `rd_ahead` (the same snapshot).
    pub rd_exp_psn: Signal<Out, Bits<24>>,
    /// The PSN after a READ request's responses.
    pub rq_psn_end: Signal<Out, Bits<24>>,
    /// The PSN before the expected one (what a duplicate is ACKed with).
    pub rq_psn_prev: Signal<Out, Bits<24>>,
    /// No receive WQE posted.
    pub rq_empty: Signal<Out, bool>,
    /// Payload words (of B bytes) in the packet.
    pub pay_words: Signal<Out, Bits<16>>,
    need_key: Signal<Local, Bits<32>>,
    /// The key presented a cycle ago, which the entry in hand was read for if it is current: the
    /// packet's key holds from `Fields` on, a cycle before `Check` asks, so the entry's key is
    /// compared with this register rather than behind the opcode's class and the key's select.
    need_key_q: DFF<Bits<32>>,
    need_now: Signal<Local, bool>,
    /// Whether the packet needs an MR entry, and one the bounds stage reads, a cycle after its class.
    need_q: DFF<bool>,
    bounds_q: DFF<bool>,
    ready_now: Signal<Local, bool>,
    live: Signal<Local, bool>,
    need_acc: Signal<Local, Bits<32>>,
    /// The access's end's low half, for a RETH's DMA length and for an atomic's 8 bytes: both sums
    /// start at flip-flops, the opcode's class only picks one after them.
    va_lo: Signal<Local, Bits<32>>,
    end_lo_dma: Signal<Local, Bits<32>>,
    end_lo_at: Signal<Local, Bits<32>>,
    end_lo: Signal<Local, Bits<32>>,
    end_c_dma: Signal<Local, bool>,
    end_c_at: Signal<Local, bool>,
    end_c: Signal<Local, bool>,
    va_hi: Signal<Local, Bits<32>>,
    va_hi1: Signal<Local, Bits<32>>,
    end_hi: Signal<Local, Bits<32>>,
    mend_hi: Signal<Local, Bits<32>>,
    base_hi: Signal<Local, Bits<32>>,
    /// The R_Key stages: the access's end (IOVA + length, 64 bits as two 32-bit halves with the carry
    /// between them) and whether it wraps, from the header ahead of the entry; then every comparison
    /// of the entry as 32-bit halves; then their conjunction (a 64-bit compare is 8 carry levels).
    e_end_va: DFF<Bits<64>>,
    e_wrap: DFF<bool>,
    a_ready: DFF<bool>,
    a_nz: DFF<bool>,
    a_key: DFF<bool>,
    a_inv_key: DFF<bool>,
    a_acc: DFF<bool>,
    a_inv_acc: DFF<bool>,
    a_pd: DFF<bool>,
    a_lo_ge: DFF<bool>,
    a_hi_gt: DFF<bool>,
    a_hi_eq: DFF<bool>,
    a_elo_le: DFF<bool>,
    a_ehi_lt: DFF<bool>,
    a_ehi_eq: DFF<bool>,
    a_wrap: DFF<bool>,
    mtu: Signal<Local, Bits<16>>,
    psn_diff: Signal<Local, Bits<24>>,
    /// Three-stage result `rq_psn_end`: whole MTUs and the remainder's PSN, then the count.
    rq_npk_q: DFF<Bits<24>>,
    rq_ext_q: DFF<bool>,
    rq_cnt: DFF<Bits<24>>,
    rd_idx: Signal<Local, Bits<24>>,
    q_rd_exp: DFF<Bits<24>>,
    rd_rem: Signal<Local, Bits<32>>,
    pay_len32: Signal<Local, Bits<32>>,
    rq_npk: Signal<Local, Bits<32>>,
    rq_up: Signal<Local, Bits<32>>,
    rq_extra: Signal<Local, bool>,
    pd: Signal<Local, Bits<32>>,
    /// The stages ahead: the path MTU's log (4 bits) and the MTU; the READ's length and local address,
    /// the expected response's index and offset, the last response's index (first stage); the bytes
    /// left from the expected response, where it lands (low half with its carry, high half and its
    /// successor), and the rest carried along (second stage).
    p_pmtu: DFF<Bits<4>>,
    p_mtu: DFF<Bits<16>>,
    p_rd_len: DFF<Bits<32>>,
    p_rd_exp: DFF<Bits<24>>,
    p_rd_off: DFF<Bits<32>>,
    p_rd_lm1: DFF<Bits<32>>,
    p_rd_lnz: DFF<bool>,
    p_rd_laddr: DFF<Bits<64>>,
    p_rd_psn0: DFF<Bits<24>>,
    p_rd_act: DFF<bool>,
    p_rd_atomic: DFF<bool>,
    q_rd_psn0: DFF<Bits<24>>,
    /// The expected response's PSN (first PSN + expected index), in the snapshot's second stage.
    q_exp_psn: DFF<Bits<24>>,
    /// `rd_ahead`'s first stage: the response's index, the expected one, a READ in progress.
    a_idx: DFF<Bits<24>>,
    a_exp: DFF<Bits<24>>,
    a_exp_psn: DFF<Bits<24>>,
    r_exp_psn: DFF<Bits<24>>,
    a_act: DFF<bool>,
    q_rd_act: DFF<bool>,
    q_rd_atomic: DFF<bool>,
    q_dst_lo: DFF<Bits<33>>,
    q_dst_hi: DFF<Bits<32>>,
    q_dst_hi1: DFF<Bits<32>>,
    q_rd_rem: DFF<Bits<32>>,
    q_rd_last: DFF<Bits<24>>,
    pm: Signal<Local, Bits<4>>,
    r_for_qp: DFF<bool>,
    r_from_peer: DFF<bool>,
    r_cnp_due: DFF<bool>,
    r_psn_now: DFF<bool>,
    r_psn_old: DFF<bool>,
    r_seq_ok: DFF<bool>,
    r_len_ok: DFF<bool>,
    l_le_mtu: DFF<bool>,
    l_eq_mtu: DFF<bool>,
    l_zero: DFF<bool>,
    l_eq_dma: DFF<bool>,
    l_lt_dma: DFF<bool>,
    l_eq_left: DFF<bool>,
    l_lt_left: DFF<bool>,
    /// Which comparison the opcode's class asks for (one-hot, none: at most one MTU), registered
    /// with the comparisons so the second stage only picks.
    k_eq_mtu: DFF<bool>,
    k_w_only: DFF<bool>,
    k_w_first: DFF<bool>,
    k_w_middle: DFF<bool>,
    k_w_last: DFF<bool>,
    k_zero: DFF<bool>,
    k_read: DFF<bool>,
    r_mr_wait: DFF<bool>,
    r_mr_hit: DFF<bool>,
    r_cont_mr_ok: DFF<bool>,
    r_inv_ok: DFF<bool>,
    r_qp_acc_ok: DFF<bool>,
    r_rd_at_exp: DFF<bool>,
    r_rresp_ok: DFF<bool>,
    r_rd_at_zero: DFF<bool>,
    r_rd_ahead: DFF<bool>,
    r_rd_dst: DFF<Bits<64>>,
    r_rd_last: DFF<Bits<24>>,
    r_rq_psn_end: DFF<Bits<24>>,
    r_rq_psn_prev: DFF<Bits<24>>,
    r_rq_empty: DFF<bool>,
    r_pay_words: DFF<Bits<16>>,
    qs_rtr: Constant<Bits<32>>,
    qs_sqd: Constant<Bits<32>>,
    beat_m1: Constant<Bits<16>>,
    log_b: Constant<Bits<16>>,
    half: Constant<Bits<24>>,
}

impl<const B: usize> Default for RecvCheck<B> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            psn: Default::default(),
            dqpn: Default::default(),
            sip: Default::default(),
            va: Default::default(),
            rkey: Default::default(),
            dmalen: Default::default(),
            imm_data: Default::default(),
            ieth_key: Default::default(),
            pay_len: Default::default(),
            send: Default::default(),
            write: Default::default(),
            read_request: Default::default(),
            read_response: Default::default(),
            atomic: Default::default(),
            reth: Default::default(),
            ieth: Default::default(),
            first: Default::default(),
            middle: Default::default(),
            last: Default::default(),
            only: Default::default(),
            not_last: Default::default(),
            send_cont: Default::default(),
            write_cont: Default::default(),
            dmalen_zero: Default::default(),
            dmalen_max: Default::default(),
            key_always: Default::default(),
            key_reth: Default::default(),
            key_cont: Default::default(),
            qp_state: Default::default(),
            qpn: Default::default(),
            pmtu: Default::default(),
            rq_psn: Default::default(),
            qp_pd: Default::default(),
            qp_peer_ip: Default::default(),
            qp_access: Default::default(),
            rq_pi: Default::default(),
            rq_ci: Default::default(),
            in_write: Default::default(),
            in_send: Default::default(),
            write_left: Default::default(),
            write_nz: Default::default(),
            write_rkey: Default::default(),
            rd_psn0: Default::default(),
            rd_len: Default::default(),
            rd_laddr: Default::default(),
            rd_exp: Default::default(),
            rd_active: Default::default(),
            rd_atomic: Default::default(),
            mr_lk_key: Default::default(),
            mr_for: Default::default(),
            mr_fresh: Default::default(),
            mr_base: Default::default(),
            mr_end: Default::default(),
            mr_key: Default::default(),
            mr_access: Default::default(),
            mr_pd: Default::default(),
            cnp_age: Default::default(),
            cnp_seen: Default::default(),
            cnp_interval: Default::default(),
            mr_wait_now: Default::default(),
            for_qp: Default::default(),
            from_peer: Default::default(),
            cnp_due: Default::default(),
            psn_now: Default::default(),
            psn_old: Default::default(),
            seq_ok: Default::default(),
            len_ok: Default::default(),
            mr_wait: Default::default(),
            mr_bounds: Default::default(),
            mr_hit: Default::default(),
            cont_mr_ok: Default::default(),
            inv_ok: Default::default(),
            qp_acc_ok: Default::default(),
            rd_at_exp: Default::default(),
            rresp_ok: Default::default(),
            rd_at_zero: Default::default(),
            rd_ahead: Default::default(),
            rd_dst: Default::default(),
            rd_last: Default::default(),
            rd_exp_psn: Default::default(),
            rq_psn_end: Default::default(),
            rq_psn_prev: Default::default(),
            rq_empty: Default::default(),
            pay_words: Default::default(),
            need_key: Default::default(),
            need_key_q: Default::default(),
            need_now: Default::default(),
            need_q: Default::default(),
            bounds_q: Default::default(),
            ready_now: Default::default(),
            live: Default::default(),
            need_acc: Default::default(),
            va_lo: Default::default(),
            end_lo_dma: Default::default(),
            end_lo_at: Default::default(),
            end_lo: Default::default(),
            end_c_dma: Default::default(),
            end_c_at: Default::default(),
            end_c: Default::default(),
            va_hi: Default::default(),
            va_hi1: Default::default(),
            end_hi: Default::default(),
            mend_hi: Default::default(),
            base_hi: Default::default(),
            e_end_va: Default::default(),
            e_wrap: Default::default(),
            a_ready: Default::default(),
            a_nz: Default::default(),
            a_key: Default::default(),
            a_inv_key: Default::default(),
            a_acc: Default::default(),
            a_inv_acc: Default::default(),
            a_pd: Default::default(),
            a_lo_ge: Default::default(),
            a_hi_gt: Default::default(),
            a_hi_eq: Default::default(),
            a_elo_le: Default::default(),
            a_ehi_lt: Default::default(),
            a_ehi_eq: Default::default(),
            a_wrap: Default::default(),
            mtu: Default::default(),
            psn_diff: Default::default(),
            rq_npk_q: Default::default(),
            rq_ext_q: Default::default(),
            rq_cnt: Default::default(),
            rd_idx: Default::default(),
            q_rd_exp: Default::default(),
            rd_rem: Default::default(),
            pay_len32: Default::default(),
            rq_npk: Default::default(),
            rq_up: Default::default(),
            rq_extra: Default::default(),
            pd: Default::default(),
            p_pmtu: Default::default(),
            p_mtu: Default::default(),
            p_rd_len: Default::default(),
            p_rd_exp: Default::default(),
            p_rd_off: Default::default(),
            p_rd_lm1: Default::default(),
            p_rd_lnz: Default::default(),
            p_rd_laddr: Default::default(),
            p_rd_psn0: Default::default(),
            p_rd_act: Default::default(),
            p_rd_atomic: Default::default(),
            q_rd_psn0: Default::default(),
            q_exp_psn: Default::default(),
            a_idx: Default::default(),
            a_exp: Default::default(),
            a_exp_psn: Default::default(),
            r_exp_psn: Default::default(),
            a_act: Default::default(),
            q_rd_act: Default::default(),
            q_rd_atomic: Default::default(),
            q_dst_lo: Default::default(),
            q_dst_hi: Default::default(),
            q_dst_hi1: Default::default(),
            q_rd_rem: Default::default(),
            q_rd_last: Default::default(),
            pm: Default::default(),
            r_for_qp: Default::default(),
            r_from_peer: Default::default(),
            r_cnp_due: Default::default(),
            r_psn_now: Default::default(),
            r_psn_old: Default::default(),
            r_seq_ok: Default::default(),
            r_len_ok: Default::default(),
            l_le_mtu: Default::default(),
            l_eq_mtu: Default::default(),
            l_zero: Default::default(),
            l_eq_dma: Default::default(),
            l_lt_dma: Default::default(),
            l_eq_left: Default::default(),
            l_lt_left: Default::default(),
            k_eq_mtu: Default::default(),
            k_w_only: Default::default(),
            k_w_first: Default::default(),
            k_w_middle: Default::default(),
            k_w_last: Default::default(),
            k_zero: Default::default(),
            k_read: Default::default(),
            r_mr_wait: Default::default(),
            r_mr_hit: Default::default(),
            r_cont_mr_ok: Default::default(),
            r_inv_ok: Default::default(),
            r_qp_acc_ok: Default::default(),
            r_rd_at_exp: Default::default(),
            r_rresp_ok: Default::default(),
            r_rd_at_zero: Default::default(),
            r_rd_ahead: Default::default(),
            r_rd_dst: Default::default(),
            r_rd_last: Default::default(),
            r_rq_psn_end: Default::default(),
            r_rq_psn_prev: Default::default(),
            r_rq_empty: Default::default(),
            r_pay_words: Default::default(),
            qs_rtr: Constant::new((QpState::Rtr as u64).into()),
            qs_sqd: Constant::new((QpState::Sqd as u64).into()),
            beat_m1: Constant::new(((B - 1) as u64).into()),
            log_b: Constant::new((B.trailing_zeros() as u64).into()),
            half: Constant::new(0x80_0000_u64.into()),
        }
    }
}

impl<const B: usize> Logic for RecvCheck<B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            r_for_qp,
            r_from_peer,
            r_cnp_due,
            r_psn_now,
            r_psn_old,
            r_seq_ok,
            r_len_ok,
            l_le_mtu,
            l_eq_mtu,
            l_zero,
            l_eq_dma,
            l_lt_dma,
            l_eq_left,
            l_lt_left,
            k_eq_mtu,
            k_w_only,
            k_w_first,
            k_w_middle,
            k_w_last,
            k_zero,
            k_read,
            r_mr_wait,
            r_mr_hit,
            r_cont_mr_ok,
            r_inv_ok,
            r_qp_acc_ok,
            r_rd_at_exp,
            r_rresp_ok,
            r_rd_at_zero,
            r_rd_ahead,
            r_rd_dst,
            r_rd_last,
            r_rq_psn_end,
            r_rq_psn_prev,
            r_rq_empty,
            r_pay_words,
            p_pmtu,
            e_end_va,
            e_wrap,
            a_ready,
            need_key_q,
            need_q,
            bounds_q,
            a_nz,
            a_key,
            a_inv_key,
            a_acc,
            a_inv_acc,
            a_pd,
            a_lo_ge,
            a_hi_gt,
            a_hi_eq,
            a_elo_le,
            a_ehi_lt,
            a_ehi_eq,
            a_wrap,
            p_mtu,
            p_rd_len,
            p_rd_exp,
            p_rd_off,
            p_rd_lm1,
            p_rd_lnz,
            p_rd_laddr,
            p_rd_psn0,
            p_rd_act,
            p_rd_atomic,
            q_rd_psn0,
            q_exp_psn,
            a_idx,
            a_exp,
            a_exp_psn,
            r_exp_psn,
            a_act,
            q_rd_act,
            q_rd_atomic,
            q_dst_lo,
            q_dst_hi,
            q_dst_hi1,
            q_rd_exp,
            rq_npk_q,
            rq_ext_q,
            rq_cnt,
            q_rd_rem,
            q_rd_last
        );
        // The stage ahead (path MTU 256..4096: its log fits 4 bits).
        self.pm.next = bit_cast::<4, 32>(self.pmtu.val());
        self.p_pmtu.d.next = self.pm.val();
        self.p_mtu.d.next = bits::<16>(1) << self.pm.val();
        self.p_rd_len.d.next = self.rd_len.val();
        self.p_rd_exp.d.next = self.rd_exp.val();
        self.p_rd_laddr.d.next = self.rd_laddr.val();
        self.p_rd_off.d.next = bit_cast::<32, 24>(self.rd_exp.val()) << self.pm.val();
        self.p_rd_lm1.d.next = self.rd_len.val() - 1;
        self.p_rd_lnz.d.next = self.rd_len.val() != 0;
        self.p_rd_psn0.d.next = self.rd_psn0.val();
        self.p_rd_act.d.next = self.rd_active.val();
        self.p_rd_atomic.d.next = self.rd_atomic.val();
        self.q_rd_exp.d.next = self.p_rd_exp.q.val();
        self.q_rd_psn0.d.next = self.p_rd_psn0.q.val();
        self.q_exp_psn.d.next = self.p_rd_psn0.q.val() + self.p_rd_exp.q.val();
        self.q_rd_act.d.next = self.p_rd_act.q.val();
        self.q_rd_atomic.d.next = self.p_rd_atomic.q.val();
        self.q_rd_rem.d.next = self.p_rd_len.q.val() - self.p_rd_off.q.val();
        self.q_rd_last.d.next = 0.into();
        if self.p_rd_lnz.q.val() {
            self.q_rd_last.d.next =
                bit_cast::<24, 32>(self.p_rd_lm1.q.val() >> self.p_pmtu.q.val());
        }
        // Where the expected response lands, as two halves: the low half's carry picks the high one.
        self.q_dst_lo.d.next = bit_cast::<33, 64>(self.p_rd_laddr.q.val() & 0xFFFF_FFFF_u64)
            + bit_cast::<33, 32>(self.p_rd_off.q.val());
        self.q_dst_hi.d.next = bit_cast::<32, 64>(self.p_rd_laddr.q.val() >> 32);
        self.q_dst_hi1.d.next = bit_cast::<32, 64>(self.p_rd_laddr.q.val() >> 32) + 1;
        // The QP receives in RTR, RTS and SQD (IBA 10.3.1); rxe's check_addr: from its peer only.
        self.r_for_qp.d.next = (self.qp_state.val() >= self.qs_rtr.val())
            && (self.qp_state.val() <= self.qs_sqd.val())
            && (bit_cast::<32, 24>(self.dqpn.val()) == self.qpn.val());
        self.r_from_peer.d.next = self.sip.val() == self.qp_peer_ip.val();
        self.r_cnp_due.d.next =
            !self.cnp_seen.val() || (self.cnp_age.val() >= self.cnp_interval.val());
        // PSN against the expected one, modulo 2^24: ahead in the upper half is behind (§9.7.5.1.2).
        self.psn_diff.next = self.psn.val() - bit_cast::<24, 32>(self.rq_psn.val());
        self.r_psn_now.d.next = self.psn.val() == bit_cast::<24, 32>(self.rq_psn.val());
        self.r_psn_old.d.next = self.psn_diff.val() >= self.half.val();
        self.r_rq_psn_prev.d.next = bit_cast::<24, 32>(self.rq_psn.val()) - 1;
        self.r_rq_empty.d.next = self.rq_pi.val() == self.rq_ci.val();
        // Opcode sequence (§9.7.5.1.3): MIDDLE/LAST only inside a message of their kind, FIRST/ONLY only
        // outside any message.
        self.r_seq_ok.d.next = (self.in_write.val() == self.write_cont.val())
            && (self.in_send.val() == self.send_cont.val());
        // Length (§9.7.5.1.4 / C9-92): FIRST/MIDDLE carry exactly one MTU, LAST/ONLY/SEND at most one
        // MTU, and a write's packets add up to the RETH DMA length.
        self.mtu.next = self.p_mtu.q.val();
        self.pay_len32.next = bit_cast::<32, 16>(self.pay_len.val());
        // Two stages: each comparison registered, then the one the opcode's class asks for (so
        // `len_ok` is read a cycle after the other results).
        self.l_le_mtu.d.next = self.pay_len.val() <= self.mtu.val();
        self.l_eq_mtu.d.next = self.pay_len.val() == self.mtu.val();
        self.l_zero.d.next = self.pay_len.val() == 0;
        self.l_eq_dma.d.next = self.pay_len32.val() == self.dmalen.val();
        self.l_lt_dma.d.next = self.pay_len32.val() < self.dmalen.val();
        self.l_eq_left.d.next = self.pay_len32.val() == self.write_left.val();
        self.l_lt_left.d.next = self.pay_len32.val() < self.write_left.val();
        // The class's pick, one-hot in the first stage (later cases rank above earlier ones).
        self.k_eq_mtu.d.next = (self.send.val() || self.write.val())
            && self.not_last.val()
            && !(self.write.val() && (self.first.val() || self.middle.val()));
        self.k_w_only.d.next = self.write.val() && self.only.val();
        self.k_w_first.d.next = self.write.val() && self.first.val();
        self.k_w_middle.d.next = self.write.val() && self.middle.val();
        self.k_w_last.d.next = self.write.val() && self.last.val();
        self.k_zero.d.next = self.atomic.val();
        // A READ request carries no payload and asks for at most 2^31 bytes (§9.4.3).
        self.k_read.d.next = self.read_request.val();
        self.r_len_ok.d.next = self.l_le_mtu.q.val();
        if self.k_eq_mtu.q.val() {
            self.r_len_ok.d.next = self.l_eq_mtu.q.val();
        }
        if self.k_w_only.q.val() {
            self.r_len_ok.d.next = self.l_le_mtu.q.val() && self.l_eq_dma.q.val();
        }
        if self.k_w_first.q.val() {
            self.r_len_ok.d.next = self.l_eq_mtu.q.val() && self.l_lt_dma.q.val();
        }
        if self.k_w_middle.q.val() {
            self.r_len_ok.d.next = self.l_eq_mtu.q.val() && self.l_lt_left.q.val();
        }
        if self.k_w_last.q.val() {
            self.r_len_ok.d.next = self.l_eq_left.q.val();
        }
        if self.k_zero.q.val() {
            self.r_len_ok.d.next = self.l_zero.q.val();
        }
        if self.k_read.q.val() {
            self.r_len_ok.d.next = self.l_zero.q.val() && self.dmalen_max.val();
        }
        self.r_pay_words.d.next = (self.pay_len.val() + self.beat_m1.val()) >> self.log_b.val();
        // A READ takes one PSN per response: whole MTUs, plus one for a remainder or an empty READ
        // (§9.7.5.1.5); the shift and the remainder test side by side, not an add before the shift.
        self.rq_npk.next = self.dmalen.val() >> self.p_pmtu.q.val();
        self.rq_up.next = self.dmalen.val() & !(bits::<32>(0xFFFF_FFFF_u64) << self.p_pmtu.q.val());
        self.rq_extra.next = (self.rq_up.val() != 0) || self.dmalen_zero.val();
        self.rq_npk_q.d.next = bit_cast::<24, 32>(self.rq_npk.val());
        self.rq_ext_q.d.next = self.rq_extra.val();
        self.rq_cnt.d.next = self.rq_npk_q.q.val();
        if self.rq_ext_q.q.val() {
            self.rq_cnt.d.next = self.rq_npk_q.q.val() + 1;
        }
        self.r_rq_psn_end.d.next = self.psn.val() + self.rq_cnt.q.val();
        // A READ response must be the next one expected, FIRST/MIDDLE carrying a full MTU and LAST/ONLY
        // exactly the rest of the message (requester side, §9.7.6).
        self.rd_idx.next = self.psn.val() - self.q_rd_psn0.q.val();
        self.rd_rem.next = self.q_rd_rem.q.val();
        self.r_rd_last.d.next = self.q_rd_last.q.val();
        if self.rd_rem.val() > bit_cast::<32, 16>(self.mtu.val()) {
            self.r_rresp_ok.d.next = self.read_response.val()
                && self.not_last.val()
                && (self.pay_len.val() == self.mtu.val());
        } else {
            self.r_rresp_ok.d.next = self.read_response.val()
                && (self.last.val() || self.only.val())
                && (self.pay_len32.val() == self.rd_rem.val());
        }
        // PSN compares, not index ones: no subtract in front of the compare.
        self.r_rd_at_exp.d.next =
            self.q_rd_act.q.val() && (self.psn.val() == self.q_exp_psn.q.val());
        self.r_rd_at_zero.d.next = self.q_rd_act.q.val()
            && self.q_rd_atomic.q.val()
            && (self.psn.val() == self.q_rd_psn0.q.val());
        // One ahead: two stages (the index, then its compares), read a cycle after the rest.
        self.a_idx.d.next = self.rd_idx.val();
        self.a_exp.d.next = self.q_rd_exp.q.val();
        self.a_exp_psn.d.next = self.q_exp_psn.q.val();
        self.r_exp_psn.d.next = self.a_exp_psn.q.val();
        self.a_act.d.next = self.q_rd_act.q.val();
        self.r_rd_ahead.d.next = self.a_act.q.val()
            && (self.a_idx.q.val() > self.a_exp.q.val())
            && (self.a_idx.q.val() < self.half.val());
        self.r_rd_dst.d.next = (bit_cast::<64, 32>(self.q_dst_hi.q.val()) << 32)
            | bit_cast::<64, 33>(self.q_dst_lo.q.val() & 0xFFFF_FFFF_u64);
        if self.q_dst_lo.q.val().get_bit(32) {
            self.r_rd_dst.d.next = (bit_cast::<64, 32>(self.q_dst_hi1.q.val()) << 32)
                | bit_cast::<64, 33>(self.q_dst_lo.q.val() & 0xFFFF_FFFF_u64);
        }
        // What the R_Key check needs: the access the operation asks for and how many bytes.
        self.need_acc.next = 2.into();
        if self.read_request.val() {
            self.need_acc.next = 4.into();
        }
        // The access's end, a stage ahead: the low half a 32-bit add of the length the operation asks
        // for; its carry, which picks the high half or its successor, a compare beside the add rather
        // than the add's last carry behind it (length > !low half; an atomic's 8 bytes carry from
        // 2^32 - 8 on).
        self.va_lo.next = bit_cast::<32, 64>(self.va.val() & 0xFFFF_FFFF_u64);
        self.end_lo_dma.next = self.va_lo.val() + self.dmalen.val();
        self.end_lo_at.next = self.va_lo.val() + 8;
        self.end_c_dma.next = self.dmalen.val() > !self.va_lo.val();
        self.end_c_at.next = self.va_lo.val() >= 0xFFFF_FFF8_u64;
        self.end_lo.next = self.end_lo_dma.val();
        self.end_c.next = self.end_c_dma.val();
        if self.atomic.val() {
            self.need_acc.next = 8.into();
            self.end_lo.next = self.end_lo_at.val();
            self.end_c.next = self.end_c_at.val();
        }
        self.va_hi.next = bit_cast::<32, 64>(self.va.val() >> 32);
        self.va_hi1.next = self.va_hi.val() + 1;
        self.e_end_va.d.next =
            (bit_cast::<64, 32>(self.va_hi.val()) << 32) | bit_cast::<64, 32>(self.end_lo.val());
        self.e_wrap.d.next = false;
        if self.end_c.val() {
            self.e_end_va.d.next = (bit_cast::<64, 32>(self.va_hi1.val()) << 32)
                | bit_cast::<64, 32>(self.end_lo.val());
            // va_hi + 1 wraps: va_hi is all ones (a compare, not the increment's carry chain).
            self.e_wrap.d.next = self.va_hi.val() == 0xFFFF_FFFF_u64;
        }
        self.need_key.next = self.write_rkey.val();
        if self.reth.val() || self.atomic.val() {
            self.need_key.next = self.rkey.val();
        }
        if self.ieth.val() {
            self.need_key.next = self.ieth_key.val();
        }
        self.mr_lk_key.next = self.need_key.val();
        self.need_key_q.d.next = self.need_key.val();
        self.ready_now.next = self.mr_fresh.val() && (self.mr_for.val() == self.need_key_q.q.val());
        // From the header's first stage (its key class and the DMA length's zero test here): registered
        // at once.
        self.need_now.next = self.key_always.val()
            || (self.key_reth.val() && (self.dmalen.val() != 0))
            || (self.key_cont.val() && self.write_nz.val());
        self.need_q.d.next = self.need_now.val();
        self.bounds_q.d.next = self.need_now.val() && !self.key_cont.val();
        // The wait before the checks is for an entry a host command wrote over (`mr_fresh`); the key the
        // entry was read for is compared into `mr_wait`, which the caller reads again after the checks
        // (the table reads for the key presented a cycle ago, so it matches unless that contract fails).
        self.mr_wait_now.next = self.need_q.q.val() && !self.mr_fresh.val();
        self.mr_bounds.next = self.bounds_q.q.val();
        self.r_mr_wait.d.next = self.need_q.q.val() && !self.ready_now.val();
        // The entry, each comparison on its own: the key this packet names (a RETH's or AtomicETH's,
        // an IETH's, the WRITE in progress's), the access, the PD, IOVA >= base and end <= the
        // region's end as 32-bit halves, no wrap past 2^64.
        self.pd.next = self.qp_pd.val() & 0xFF_FFFF;
        self.a_ready.d.next = self.ready_now.val();
        self.a_nz.d.next = self.mr_end.val() != self.mr_base.val();
        self.a_key.d.next = self.mr_key.val() == self.rkey.val();
        self.a_inv_key.d.next = self.mr_key.val() == self.imm_data.val();
        self.a_acc.d.next = (self.mr_access.val() & self.need_acc.val()) != 0;
        self.a_inv_acc.d.next = (self.mr_access.val() & 0x80) != 0;
        self.a_pd.d.next = self.mr_pd.val() == self.pd.val();
        self.base_hi.next = bit_cast::<32, 64>(self.mr_base.val() >> 32);
        self.a_lo_ge.d.next =
            bit_cast::<32, 64>(self.va.val()) >= bit_cast::<32, 64>(self.mr_base.val());
        self.a_hi_gt.d.next = self.va_hi.val() > self.base_hi.val();
        self.a_hi_eq.d.next = self.va_hi.val() == self.base_hi.val();
        self.end_hi.next = bit_cast::<32, 64>(self.e_end_va.q.val() >> 32);
        self.mend_hi.next = bit_cast::<32, 64>(self.mr_end.val() >> 32);
        self.a_elo_le.d.next =
            bit_cast::<32, 64>(self.e_end_va.q.val()) <= bit_cast::<32, 64>(self.mr_end.val());
        self.a_ehi_lt.d.next = self.end_hi.val() < self.mend_hi.val();
        self.a_ehi_eq.d.next = self.end_hi.val() == self.mend_hi.val();
        self.a_wrap.d.next = self.e_wrap.q.val();
        // R_Key (§9.7.5.1.7 / C9-88): a valid MR entry with this key, the access the operation needs
        // (REMOTE_WRITE, REMOTE_READ or REMOTE_ATOMIC), the QP's PD, the whole access in bounds.
        self.live.next = self.a_ready.q.val() && self.a_nz.q.val();
        self.r_mr_hit.d.next = self.live.val()
            && self.a_key.q.val()
            && self.a_acc.q.val()
            && self.a_pd.q.val()
            && (self.a_hi_gt.q.val() || (self.a_hi_eq.q.val() && self.a_lo_ge.q.val()))
            && (self.a_ehi_lt.q.val() || (self.a_ehi_eq.q.val() && self.a_elo_le.q.val()))
            && !self.a_wrap.q.val();
        // The QP's own remote access enables (qp_access_flags), as rxe's check_op_valid.
        self.r_qp_acc_ok.d.next = !((self.write.val() && ((self.qp_access.val() & 2) == 0))
            || (self.read_request.val() && ((self.qp_access.val() & 4) == 0))
            || (self.atomic.val() && ((self.qp_access.val() & 8) == 0)));
        // Remote invalidation: the IETH's R_Key names a valid entry of the QP's PD registered with
        // remote invalidation allowed (MR_ACCESS bit 7).
        self.r_inv_ok.d.next = self.live.val()
            && self.a_inv_key.q.val()
            && self.a_pd.q.val()
            && self.a_inv_acc.q.val();
        // A WRITE continues only while its MR is still registered under the same key: one stage, so a
        // WRITE's MIDDLE and LAST packets take no second.
        self.r_cont_mr_ok.d.next = self.mr_fresh.val()
            && (self.mr_for.val() == self.write_rkey.val())
            && (self.mr_key.val() == self.write_rkey.val())
            && (self.mr_end.val() != self.mr_base.val());

        self.for_qp.next = self.r_for_qp.q.val();
        self.from_peer.next = self.r_from_peer.q.val();
        self.cnp_due.next = self.r_cnp_due.q.val();
        self.psn_now.next = self.r_psn_now.q.val();
        self.psn_old.next = self.r_psn_old.q.val();
        self.seq_ok.next = self.r_seq_ok.q.val();
        self.len_ok.next = self.r_len_ok.q.val();
        self.mr_wait.next = self.r_mr_wait.q.val();
        self.mr_hit.next = self.r_mr_hit.q.val();
        self.cont_mr_ok.next = self.r_cont_mr_ok.q.val();
        self.inv_ok.next = self.r_inv_ok.q.val();
        self.qp_acc_ok.next = self.r_qp_acc_ok.q.val();
        self.rd_at_exp.next = self.r_rd_at_exp.q.val();
        self.rresp_ok.next = self.r_rresp_ok.q.val();
        self.rd_at_zero.next = self.r_rd_at_zero.q.val();
        self.rd_ahead.next = self.r_rd_ahead.q.val();
        self.rd_dst.next = self.r_rd_dst.q.val();
        self.rd_last.next = self.r_rd_last.q.val();
        self.rd_exp_psn.next = self.r_exp_psn.q.val();
        self.rq_psn_end.next = self.r_rq_psn_end.q.val();
        self.rq_psn_prev.next = self.r_rq_psn_prev.q.val();
        self.rq_empty.next = self.r_rq_empty.q.val();
        self.pay_words.next = self.r_pay_words.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// One packet and QP: every input of the block, as plain numbers.
    #[derive(Clone, Copy)]
    struct In {
        psn: u64,
        dqpn: u64,
        sip: u64,
        va: u64,
        rkey: u64,
        dmalen: u64,
        imm_data: u64,
        pay_len: u64,
        /// send, write, read_request, read_response, atomic, reth, ieth
        op: [bool; 7],
        /// first, middle, last, only
        pos: [bool; 4],
        qp_state: u64,
        qpn: u64,
        pmtu: u64,
        rq_psn: u64,
        qp_pd: u64,
        peer: u64,
        qp_access: u64,
        rq_pi: u64,
        rq_ci: u64,
        in_write: bool,
        in_send: bool,
        write_left: u64,
        write_total: u64,
        write_rkey: u64,
        rd_psn0: u64,
        rd_len: u64,
        rd_laddr: u64,
        rd_exp: u64,
        rd_active: bool,
        rd_atomic: bool,
        mr_for: u64,
        mr_fresh: bool,
        mr_base: u64,
        mr_len: u64,
        mr_key: u64,
        mr_access: u64,
        mr_pd: u64,
        now: u64,
        cnp_last: u64,
        cnp_seen: bool,
        cnp_interval: u64,
    }

    const SEND: usize = 0;
    const WRITE: usize = 1;
    const RREQ: usize = 2;
    const RRESP: usize = 3;
    const ATOMIC: usize = 4;
    const RETH: usize = 5;
    const IETH: usize = 6;
    const FIRST: usize = 0;
    const MIDDLE: usize = 1;
    const LAST: usize = 2;
    const ONLY: usize = 3;

    /// A SEND ONLY of 100 bytes at the expected PSN, for an RTS QP from its peer, with a 1,024-byte MTU;
    /// the MR entry for key 0x77 (4 KiB at 0x1000, every access, PD 5) has come back.
    fn base() -> In {
        In {
            psn: 100,
            dqpn: 0x11,
            sip: 0x0A00_0106,
            va: 0x1000,
            rkey: 0x77,
            dmalen: 0,
            imm_data: 0,
            pay_len: 100,
            op: [true, false, false, false, false, false, false],
            pos: [false, false, false, true],
            qp_state: QpState::Rts as u64,
            qpn: 0x11,
            pmtu: 10,
            rq_psn: 100,
            qp_pd: 5,
            peer: 0x0A00_0106,
            qp_access: 0xE,
            rq_pi: 3,
            rq_ci: 2,
            in_write: false,
            in_send: false,
            write_left: 0,
            write_total: 0,
            write_rkey: 0x77,
            rd_psn0: 0,
            rd_len: 0,
            rd_laddr: 0,
            rd_exp: 0,
            rd_active: false,
            rd_atomic: false,
            mr_for: 0x77,
            mr_fresh: true,
            mr_base: 0x1000,
            mr_len: 0x1000,
            mr_key: 0x77,
            mr_access: 0x8E,
            mr_pd: 5,
            now: 4999,
            cnp_last: 1000,
            cnp_seen: true,
            cnp_interval: 4000,
        }
    }

    fn op(mut i: In, o: usize, p: Option<usize>) -> In {
        i.op = [false; 7];
        i.op[o] = true;
        if o == WRITE || o == RREQ || o == ATOMIC {
            i.op[RETH] = o != ATOMIC && p.is_none_or(|p| p == FIRST || p == ONLY);
        }
        i.pos = [false; 4];
        if let Some(p) = p {
            i.pos[p] = true;
        }
        i
    }

    /// Each input set held for four cycles; the registered results read after the fourth clock edge.
    fn run(cases: Vec<In>) -> Vec<BTreeMap<&'static str, u64>> {
        let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let out2 = out.clone();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<RecvCheck<8>>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut ep: Sim<RecvCheck<8>>| {
            let mut x = ep.init()?;
            wait_clock_true!(ep, clock, x);
            for c in &cases {
                x.psn.next = c.psn.into();
                x.dqpn.next = c.dqpn.into();
                x.sip.next = c.sip.into();
                x.va.next = c.va.into();
                x.rkey.next = c.rkey.into();
                x.dmalen.next = c.dmalen.into();
                x.imm_data.next = c.imm_data.into();
                x.ieth_key.next = c.imm_data.into();
                x.pay_len.next = c.pay_len.into();
                x.send.next = c.op[SEND];
                x.write.next = c.op[WRITE];
                x.read_request.next = c.op[RREQ];
                x.read_response.next = c.op[RRESP];
                x.atomic.next = c.op[ATOMIC];
                x.reth.next = c.op[RETH];
                x.ieth.next = c.op[IETH];
                x.first.next = c.pos[FIRST];
                x.middle.next = c.pos[MIDDLE];
                x.last.next = c.pos[LAST];
                x.only.next = c.pos[ONLY];
                x.not_last.next = c.pos[FIRST] || c.pos[MIDDLE];
                let cont = c.pos[MIDDLE] || c.pos[LAST];
                x.send_cont.next = c.op[SEND] && cont;
                x.write_cont.next = c.op[WRITE] && cont;
                x.key_always.next = c.op[ATOMIC] || c.op[IETH];
                x.key_reth.next = c.op[RETH];
                x.key_cont.next = c.op[WRITE] && cont;
                x.dmalen_zero.next = c.dmalen == 0;
                x.dmalen_max.next = c.dmalen <= 0x8000_0000;
                x.qp_state.next = c.qp_state.into();
                x.qpn.next = c.qpn.into();
                x.pmtu.next = c.pmtu.into();
                x.rq_psn.next = c.rq_psn.into();
                x.qp_pd.next = c.qp_pd.into();
                x.qp_peer_ip.next = c.peer.into();
                x.qp_access.next = c.qp_access.into();
                x.rq_pi.next = c.rq_pi.into();
                x.rq_ci.next = c.rq_ci.into();
                x.in_write.next = c.in_write;
                x.in_send.next = c.in_send;
                x.write_left.next = c.write_left.into();
                x.write_nz.next = c.write_total != 0;
                x.write_rkey.next = c.write_rkey.into();
                x.rd_psn0.next = c.rd_psn0.into();
                x.rd_len.next = c.rd_len.into();
                x.rd_laddr.next = c.rd_laddr.into();
                x.rd_exp.next = c.rd_exp.into();
                x.rd_active.next = c.rd_active;
                x.rd_atomic.next = c.rd_atomic;
                x.mr_for.next = c.mr_for.into();
                x.mr_fresh.next = c.mr_fresh;
                x.mr_base.next = c.mr_base.into();
                x.mr_end.next = c.mr_base.wrapping_add(c.mr_len).into();
                x.mr_key.next = c.mr_key.into();
                x.mr_access.next = c.mr_access.into();
                x.mr_pd.next = c.mr_pd.into();
                x.cnp_age.next = (c.now.wrapping_sub(c.cnp_last) & 0xFFFF_FFFF).into();
                x.cnp_seen.next = c.cnp_seen;
                x.cnp_interval.next = c.cnp_interval.into();
                // The MTU and READ stages take two cycles ahead of the results, and `len_ok` one
                // more behind them.
                for _ in 0..4 {
                    wait_clock_cycle!(ep, clock, x);
                }
                let b = |v: bool| v as u64;
                out2.lock().unwrap().push(BTreeMap::from([
                    ("for_qp", b(x.for_qp.val())),
                    ("from_peer", b(x.from_peer.val())),
                    ("cnp_due", b(x.cnp_due.val())),
                    ("psn_now", b(x.psn_now.val())),
                    ("psn_old", b(x.psn_old.val())),
                    ("seq_ok", b(x.seq_ok.val())),
                    ("len_ok", b(x.len_ok.val())),
                    ("mr_bounds", b(x.mr_bounds.val())),
                    ("mr_wait", b(x.mr_wait.val())),
                    ("mr_hit", b(x.mr_hit.val())),
                    ("cont_mr_ok", b(x.cont_mr_ok.val())),
                    ("inv_ok", b(x.inv_ok.val())),
                    ("qp_acc_ok", b(x.qp_acc_ok.val())),
                    ("rd_at_exp", b(x.rd_at_exp.val())),
                    ("rresp_ok", b(x.rresp_ok.val())),
                    ("rd_at_zero", b(x.rd_at_zero.val())),
                    ("rd_ahead", b(x.rd_ahead.val())),
                    ("rd_dst", x.rd_dst.val().to_u64()),
                    ("rd_last", x.rd_last.val().to_u64()),
                    ("rd_exp_psn", x.rd_exp_psn.val().to_u64()),
                    ("rq_psn_end", x.rq_psn_end.val().to_u64()),
                    ("rq_psn_prev", x.rq_psn_prev.val().to_u64()),
                    ("rq_empty", b(x.rq_empty.val())),
                    ("pay_words", x.pay_words.val().to_u64()),
                    ("mr_lk_key", x.mr_lk_key.val().to_u64()),
                ]));
            }
            ep.done(x)
        });
        let mut uut = RecvCheck::<8>::default();
        uut.connect_all();
        sim.run(Box::new(uut), 1_000_000).unwrap();
        let v = out.lock().unwrap().clone();
        v
    }

    /// Each case changes the base packet or QP in one way and names the results it decides.
    #[test]
    fn each_check_decides_on_its_own_inputs() {
        let b = base();
        let with = |f: &dyn Fn(&mut In)| {
            let mut i = b;
            f(&mut i);
            i
        };
        // A READ of 10,000 bytes from PSN 50 (responses 0..9 at 1,024 bytes, the last of 784) into
        // 0x9000_0000, response 9 expected.
        let read = |psn: u64, pos: usize, pay: u64| {
            let mut i = op(b, RRESP, Some(pos));
            (i.psn, i.pay_len, i.rd_psn0, i.rd_len, i.rd_laddr, i.rd_exp) =
                (psn, pay, 50, 10_000, 0x9000_0000, 9);
            i.rd_active = true;
            i
        };
        let write = |pos: usize, pay: u64, dmalen: u64| {
            let mut i = op(b, WRITE, Some(pos));
            (i.pay_len, i.dmalen, i.va) = (pay, dmalen, 0x1000);
            if pos == MIDDLE || pos == LAST {
                (i.in_write, i.write_left, i.write_total) = (true, 1500, 2548);
            }
            i
        };
        let cases: Vec<Case> = vec![
            (
                "base",
                b,
                vec![
                    ("for_qp", 1),
                    ("from_peer", 1),
                    ("psn_now", 1),
                    ("psn_old", 0),
                    ("seq_ok", 1),
                    ("len_ok", 1),
                    ("mr_bounds", 0),
                    ("qp_acc_ok", 1),
                    ("rq_empty", 0),
                    ("pay_words", 13),
                    ("cnp_due", 0),
                    ("rq_psn_prev", 99),
                ],
            ),
            (
                "INIT QP",
                with(&|i| i.qp_state = QpState::Init as u64),
                vec![("for_qp", 0)],
            ),
            (
                "ERR QP",
                with(&|i| i.qp_state = QpState::Err as u64),
                vec![("for_qp", 0)],
            ),
            (
                "SQD QP",
                with(&|i| i.qp_state = QpState::Sqd as u64),
                vec![("for_qp", 1)],
            ),
            ("other QPN", with(&|i| i.dqpn = 0x12), vec![("for_qp", 0)]),
            (
                "other source",
                with(&|i| i.sip = 0x0A00_0107),
                vec![("from_peer", 0)],
            ),
            (
                "PSN ahead",
                with(&|i| i.psn = 101),
                vec![("psn_now", 0), ("psn_old", 0)],
            ),
            (
                "PSN behind",
                with(&|i| i.psn = 99),
                vec![("psn_now", 0), ("psn_old", 1)],
            ),
            (
                "PSN behind across 0",
                with(&|i| (i.psn, i.rq_psn) = (0xFF_FFFF, 0)),
                vec![("psn_old", 1), ("rq_psn_prev", 0xFF_FFFF)],
            ),
            (
                "PSN far ahead",
                with(&|i| i.psn = 100 + 0x7F_FFFF),
                vec![("psn_old", 0)],
            ),
            (
                "no receive WQE",
                with(&|i| i.rq_pi = 2),
                vec![("rq_empty", 1)],
            ),
            (
                "CNP interval over",
                with(&|i| i.now = 5000),
                vec![("cnp_due", 1)],
            ),
            (
                "no CNP yet",
                with(&|i| i.cnp_seen = false),
                vec![("cnp_due", 1)],
            ),
            (
                "SEND over the MTU",
                with(&|i| i.pay_len = 1025),
                vec![("len_ok", 0)],
            ),
            (
                "SEND FIRST short",
                op(with(&|i| i.pay_len = 1023), SEND, Some(FIRST)),
                vec![("len_ok", 0), ("seq_ok", 1)],
            ),
            (
                "SEND FIRST full",
                op(with(&|i| i.pay_len = 1024), SEND, Some(FIRST)),
                vec![("len_ok", 1)],
            ),
            (
                "SEND MIDDLE outside a SEND",
                op(with(&|i| i.pay_len = 1024), SEND, Some(MIDDLE)),
                vec![("seq_ok", 0)],
            ),
            (
                "SEND MIDDLE inside",
                op(
                    with(&|i| (i.pay_len, i.in_send) = (1024, true)),
                    SEND,
                    Some(MIDDLE),
                ),
                vec![("seq_ok", 1), ("len_ok", 1)],
            ),
            (
                "SEND ONLY inside a SEND",
                with(&|i| i.in_send = true),
                vec![("seq_ok", 0)],
            ),
            (
                "WRITE FIRST",
                write(FIRST, 1024, 2548),
                vec![
                    ("len_ok", 1),
                    ("mr_bounds", 1),
                    ("mr_hit", 1),
                    ("mr_lk_key", 0x77),
                ],
            ),
            (
                "WRITE FIRST as long as the message",
                write(FIRST, 1024, 1024),
                vec![("len_ok", 0)],
            ),
            (
                "WRITE ONLY",
                write(ONLY, 700, 700),
                vec![("len_ok", 1), ("mr_hit", 1)],
            ),
            (
                "WRITE ONLY short of its RETH",
                write(ONLY, 700, 701),
                vec![("len_ok", 0)],
            ),
            (
                "WRITE MIDDLE",
                write(MIDDLE, 1024, 0),
                vec![
                    ("len_ok", 1),
                    ("seq_ok", 1),
                    ("mr_bounds", 0),
                    ("cont_mr_ok", 1),
                ],
            ),
            (
                "WRITE MIDDLE past the rest",
                with(&|i| *i = write(MIDDLE, 1024, 0)).pipe(|mut i| {
                    i.write_left = 1024;
                    i
                }),
                vec![("len_ok", 0)],
            ),
            ("WRITE LAST", write(LAST, 1500, 0), vec![("len_ok", 1)]),
            (
                "WRITE LAST short",
                write(LAST, 1499, 0),
                vec![("len_ok", 0)],
            ),
            (
                "WRITE LAST after deregistration",
                write(LAST, 1500, 0).pipe(|mut i| {
                    i.mr_key = 0x78;
                    i
                }),
                vec![("cont_mr_ok", 0)],
            ),
            (
                "WRITE to the region's last byte",
                write(ONLY, 1, 1).pipe(|mut i| {
                    i.va = 0x1FFF;
                    i
                }),
                vec![("mr_hit", 1)],
            ),
            (
                "WRITE one byte past it",
                write(ONLY, 2, 2).pipe(|mut i| {
                    i.va = 0x1FFF;
                    i
                }),
                vec![("mr_hit", 0)],
            ),
            (
                "WRITE below it",
                write(ONLY, 2, 2).pipe(|mut i| {
                    i.va = 0xFFF;
                    i
                }),
                vec![("mr_hit", 0)],
            ),
            (
                "WRITE past the region's end across 4 GiB",
                write(ONLY, 16, 0x1000).pipe(|mut i| {
                    (i.va, i.mr_base, i.mr_len) = (0xFFFF_F800, 0xFFFF_F000, 0x1000);
                    i
                }),
                vec![("mr_hit", 0)],
            ),
            (
                "WRITE up to the region's end across 4 GiB",
                write(ONLY, 16, 0x800).pipe(|mut i| {
                    (i.va, i.mr_base, i.mr_len) = (0xFFFF_F800, 0xFFFF_F000, 0x1000);
                    i
                }),
                vec![("mr_hit", 1)],
            ),
            (
                "WRITE wrapping 2^64",
                write(ONLY, 16, 16).pipe(|mut i| {
                    (i.va, i.mr_base, i.mr_len) = (u64::MAX - 7, 0, u64::MAX);
                    i
                }),
                vec![("mr_hit", 0)],
            ),
            (
                "WRITE, other PD",
                write(ONLY, 16, 16).pipe(|mut i| {
                    i.mr_pd = 6;
                    i
                }),
                vec![("mr_hit", 0)],
            ),
            (
                "WRITE, other key",
                write(ONLY, 16, 16).pipe(|mut i| {
                    i.mr_key = 0x76;
                    i
                }),
                vec![("mr_hit", 0)],
            ),
            (
                "WRITE, no REMOTE_WRITE on the region",
                write(ONLY, 16, 16).pipe(|mut i| {
                    i.mr_access = 0x8C;
                    i
                }),
                vec![("mr_hit", 0)],
            ),
            (
                "WRITE, no REMOTE_WRITE on the QP",
                write(ONLY, 16, 16).pipe(|mut i| {
                    i.qp_access = 0xC;
                    i
                }),
                vec![("qp_acc_ok", 0)],
            ),
            (
                "WRITE, entry of another key",
                write(ONLY, 16, 16).pipe(|mut i| {
                    i.mr_for = 0x76;
                    i
                }),
                vec![("mr_wait", 1), ("mr_hit", 0)],
            ),
            (
                "WRITE, entry stale",
                write(ONLY, 16, 16).pipe(|mut i| {
                    i.mr_fresh = false;
                    i
                }),
                vec![("mr_wait", 1)],
            ),
            (
                "WRITE, invalid entry",
                write(ONLY, 16, 16).pipe(|mut i| {
                    i.mr_len = 0;
                    i
                }),
                vec![("mr_wait", 0), ("mr_hit", 0)],
            ),
            (
                "zero-length WRITE",
                write(ONLY, 0, 0),
                vec![("mr_bounds", 0), ("len_ok", 1)],
            ),
            (
                "READ of 4,096",
                op(b, RREQ, Some(ONLY)).pipe(|mut i| {
                    (i.pay_len, i.dmalen) = (0, 4096);
                    i
                }),
                vec![("rq_psn_end", 104), ("len_ok", 1), ("mr_hit", 1)],
            ),
            (
                "READ of 4,097",
                op(b, RREQ, Some(ONLY)).pipe(|mut i| {
                    (i.pay_len, i.dmalen, i.mr_len) = (0, 4097, 0x2000);
                    i
                }),
                vec![("rq_psn_end", 105)],
            ),
            (
                "READ of 0",
                op(b, RREQ, Some(ONLY)).pipe(|mut i| {
                    (i.pay_len, i.dmalen) = (0, 0);
                    i
                }),
                vec![("rq_psn_end", 101), ("mr_bounds", 0)],
            ),
            (
                "READ over 2^31",
                op(b, RREQ, Some(ONLY)).pipe(|mut i| {
                    (i.pay_len, i.dmalen) = (0, 0x8000_0001);
                    i
                }),
                vec![("len_ok", 0)],
            ),
            (
                "READ, no REMOTE_READ on the region",
                op(b, RREQ, Some(ONLY)).pipe(|mut i| {
                    (i.pay_len, i.dmalen, i.mr_access) = (0, 8, 0x8A);
                    i
                }),
                vec![("mr_hit", 0)],
            ),
            (
                "atomic",
                op(b, ATOMIC, Some(ONLY)).pipe(|mut i| {
                    (i.pay_len, i.va) = (0, 0x1FF8);
                    i
                }),
                vec![("len_ok", 1), ("mr_hit", 1), ("qp_acc_ok", 1)],
            ),
            (
                "atomic past the region",
                op(b, ATOMIC, Some(ONLY)).pipe(|mut i| {
                    (i.pay_len, i.va) = (0, 0x1FFC);
                    i
                }),
                vec![("mr_hit", 0)],
            ),
            (
                "atomic, no REMOTE_ATOMIC on the QP",
                op(b, ATOMIC, Some(ONLY)).pipe(|mut i| {
                    (i.pay_len, i.qp_access) = (0, 6);
                    i
                }),
                vec![("qp_acc_ok", 0)],
            ),
            (
                "SEND with invalidate",
                with(&|i| {
                    i.op[IETH] = true;
                    (i.imm_data, i.mr_for, i.mr_key, i.rkey) = (0x99, 0x99, 0x99, 0x1234);
                }),
                vec![("mr_lk_key", 0x99), ("mr_bounds", 1), ("inv_ok", 1)],
            ),
            (
                "SEND with invalidate, not allowed",
                with(&|i| {
                    i.op[IETH] = true;
                    (i.imm_data, i.mr_for, i.mr_key, i.mr_access) = (0x99, 0x99, 0x99, 0x0E);
                }),
                vec![("inv_ok", 0)],
            ),
            (
                "READ response expected, MIDDLE",
                read(59, MIDDLE, 1024).pipe(|mut i| {
                    i.rd_exp = 8;
                    i
                }),
                vec![
                    ("rd_at_exp", 0),
                    ("rd_ahead", 1),
                    ("rresp_ok", 1),
                    ("rd_dst", 0x9000_0000 + 8 * 1024),
                    ("rd_last", 9),
                    ("rd_exp_psn", 58),
                ],
            ),
            (
                "READ response 9, LAST of the rest",
                read(59, LAST, 784),
                vec![
                    ("rd_at_exp", 1),
                    ("rresp_ok", 1),
                    ("rd_dst", 0x9000_0000 + 9 * 1024),
                    ("rd_ahead", 0),
                    ("rd_exp_psn", 59),
                ],
            ),
            (
                // Index 2^23 - 1: the last one ahead; 2^23 and beyond are the half behind.
                "READ response at the window's end",
                read(50 + 0x7F_FFFF, MIDDLE, 1024),
                vec![("rd_ahead", 1), ("rd_at_exp", 0)],
            ),
            (
                "READ response in the half behind",
                read(50 + 0x80_0000, MIDDLE, 1024),
                vec![("rd_ahead", 0), ("rd_at_exp", 0), ("rd_at_zero", 0)],
            ),
            (
                "READ response 9 landing across 4 GiB",
                read(59, LAST, 784).pipe(|mut i| {
                    i.rd_laddr = 0xFFFF_F000;
                    i
                }),
                vec![("rd_dst", 0xFFFF_F000 + 9 * 1024)],
            ),
            (
                "READ response 9, LAST too long",
                read(59, LAST, 785),
                vec![("rresp_ok", 0)],
            ),
            (
                "READ response 9 as MIDDLE",
                read(59, MIDDLE, 1024),
                vec![("rresp_ok", 0)],
            ),
            (
                "READ response 8 again",
                read(58, MIDDLE, 1024),
                vec![("rd_at_exp", 0), ("rd_ahead", 0)],
            ),
            (
                "READ response 9, no READ in progress",
                read(59, LAST, 784).pipe(|mut i| {
                    i.rd_active = false;
                    i
                }),
                vec![("rd_at_exp", 0), ("rd_ahead", 0)],
            ),
            (
                "READ response 9, one ahead, no READ in progress",
                read(59, MIDDLE, 1024).pipe(|mut i| {
                    (i.rd_exp, i.rd_active) = (8, false);
                    i
                }),
                vec![("rd_ahead", 0)],
            ),
            (
                "READ response at the READ's first PSN: not an atomic's",
                read(50, FIRST, 1024),
                vec![("rd_at_zero", 0)],
            ),
            (
                "ATOMIC ACKNOWLEDGE at the atomic's PSN",
                op(b, RRESP, Some(ONLY)).pipe(|mut i| {
                    (i.psn, i.rd_psn0, i.rd_len, i.rd_active, i.rd_atomic) =
                        (50, 50, 8, true, true);
                    i
                }),
                vec![("rd_at_zero", 1)],
            ),
            (
                "ATOMIC ACKNOWLEDGE one past the atomic's PSN",
                op(b, RRESP, Some(ONLY)).pipe(|mut i| {
                    (i.psn, i.rd_psn0, i.rd_len, i.rd_active, i.rd_atomic) =
                        (51, 50, 8, true, true);
                    i
                }),
                vec![("rd_at_zero", 0)],
            ),
        ];
        let got = run(cases.iter().map(|c| c.1).collect());
        for ((name, _, want), g) in cases.iter().zip(&got) {
            for (k, v) in want {
                assert_eq!(g[k], *v, "{name}: {k}");
            }
        }
    }

    /// A case: its name, the inputs, the results it decides.
    type Case = (&'static str, In, Vec<(&'static str, u64)>);

    trait Pipe: Sized {
        fn pipe(self, f: impl FnOnce(Self) -> Self) -> Self {
            f(self)
        }
    }
    impl Pipe for In {}

    #[test]
    fn recv_check_synthesizes() {
        let mut uut = RecvCheck::<64>::default();
        uut.connect_all();
        yosys_validate("recv_check", &generate_verilog(&uut)).unwrap();
    }
}
