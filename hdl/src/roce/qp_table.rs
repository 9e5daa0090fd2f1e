//! QP context table: the state of `2^Q` RC QPs in on-chip RAM, and the switch that gives each engine the
//! context of the QP it works on.
//!
//! The engines were built around one QP whose attributes are register values; they still are. Each engine
//! has a *current* QP whose context sits in registers here (`rx_*`, `tx_*`); the rest live in RAMs:
//!
//! | RAM | holds (record, `docs/contexts.md`) | written by |
//! |---|---|---|
//! | `rxa` | QP_RESP_ATTR, responder attributes: DEST_QPN, PMTU, MIN_RNR_TIMER, QP_ACCESS, PD, receive ring, the peer's address | host commands |
//! | `rxc` | QP_RESP_CTX, responder context: state, expected PSN, RQ_CI, the engine's per-QP registers (MSN, message in progress, atomic result) | the switch, host commands |
//! | `txa` | QP_REQ_ATTR, requester attributes: PMTU, ACK_TIMEOUT, RETRY_CNT, RNR_RETRY, send ring, DEST_QPN | host commands |
//! | `txc` | QP_REQ_CTX, requester context: state, SQ_PSN, SQ_CI, the per-QP requester counters | the switch, host commands |
//! | `av` | QP_AV, address vector of the frames: MAC, IPv4, UDP source port, DEST_QPN, DSCP, VLAN, hop limit, flow label, IPv6 (destination GID, source GID entry) | host commands |
//! | `sqpi`, `rqpi` | producer indices | doorbells |
//!
//! One FSM owns every write port except the doorbells', so updates never race: host commands
//! (`QP_CMD`), context switches of either engine and the ERR hand-over between the two copies of the state.
//!
//! Receive side: the engine names the packet's QPN (`rx_want_qpn`) and waits until it is current
//! (`rx_hit`); a switch writes the old context back and loads the new one (2 cycles). Transmit side:
//! doorbells queue their QP in a FIFO; between work requests (`tx_sw_ok`), once the current QP has run a
//! WQE or has none left, the table takes the next QP that has work (round robin through a requeue FIFO:
//! a QP with more WQEs goes to the back). A full FIFO is not a lost doorbell: the table then sweeps every
//! QP once.
use super::ctx::*;
use rocenic_proto::host::QpState;
use rocenic_proto::regs;
use rust_hdl::prelude::*;

/// Bits of the receive engine's per-QP registers (`RxEngine::ctx_out`, RESP_ENGINE_CTX).
pub const RX_VEC: usize = RESP_ENGINE_CTX_BITS;
const RXC: usize = QP_RESP_CTX_BITS;
/// Requester context (QP_REQ_CTX): state, SQ_PSN, SQ_CI, and the per-QP counters local_ack_timeout_err
/// and retransmits (the transmit engine's pulses, counted here for the current QP).
const TXC: usize = QP_REQ_CTX_BITS;

#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
enum TabState {
    Idle,
    /// Host command: read the contexts of QPN (for a read-modify-write and QUERY), then write.
    CmdRd,
    CmdWr,
    /// Receive engine switch: write the old context back and read the new; load it.
    RxRd,
    RxLd,
    /// Transmit scheduler: read the FIFO head, then the candidate's context, then decide.
    TxFifo,
    TxRd,
    TxEval,
    /// ERR of one engine's QP carried to the other engine's copy of its state.
    ErrRd,
    ErrWr,
    /// QP_CMD CLEAR: every QP to RESET with zero contexts, one per cycle.
    Clear,
}

#[derive(LogicBlock)]
pub struct QpTable<const Q: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    // Host side: the QP window registers (QPN selects), QP_CMD, doorbells (SQ_PI/RQ_PI written now).
    pub sel: Signal<In, Bits<32>>,
    pub cmd: Signal<In, Bits<32>>,
    pub cmd_done: Signal<Out, bool>,
    pub w_state: Signal<In, Bits<32>>,
    pub w_dest_qpn: Signal<In, Bits<32>>,
    pub w_pmtu: Signal<In, Bits<32>>,
    pub w_min_rnr: Signal<In, Bits<32>>,
    pub w_access: Signal<In, Bits<32>>,
    pub w_pd: Signal<In, Bits<32>>,
    pub w_rq_base: Signal<In, Bits<64>>,
    pub w_rq_log: Signal<In, Bits<32>>,
    pub w_rq_psn: Signal<In, Bits<32>>,
    pub w_rq_pi: Signal<In, Bits<32>>,
    pub w_rq_ci: Signal<In, Bits<32>>,
    pub w_ack_timeout: Signal<In, Bits<32>>,
    pub w_retry: Signal<In, Bits<32>>,
    pub w_rnr_retry: Signal<In, Bits<32>>,
    pub w_sq_base: Signal<In, Bits<64>>,
    pub w_sq_log: Signal<In, Bits<32>>,
    pub w_sq_psn: Signal<In, Bits<32>>,
    pub w_sq_pi: Signal<In, Bits<32>>,
    pub w_sq_ci: Signal<In, Bits<32>>,
    pub w_dest_mac: Signal<In, Bits<64>>,
    pub w_dest_ip: Signal<In, Bits<32>>,
    pub w_sport: Signal<In, Bits<32>>,
    pub w_dscp: Signal<In, Bits<32>>,
    /// DEST_GID_0..2 and QP_IPV6 (bit 0 IPv6, bits 2..1 the source GID's entry).
    pub w_dgid0: Signal<In, Bits<32>>,
    pub w_dgid1: Signal<In, Bits<32>>,
    pub w_dgid2: Signal<In, Bits<32>>,
    pub w_ipv6: Signal<In, Bits<32>>,
    /// QP_HOP_LIMIT (bits 7..0) and QP_FLOW_LABEL (bits 19..0).
    pub w_hop_limit: Signal<In, Bits<32>>,
    pub w_flow_label: Signal<In, Bits<32>>,
    /// QP_VLAN as written: bit 16 on, bits 1..0 the port VLAN table entry.
    pub w_vlan: Signal<In, Bits<32>>,
    /// QP_MAX_RD_ATOMIC (bits 2..0).
    pub w_max_rd: Signal<In, Bits<32>>,
    pub sq_db: Signal<In, bool>,
    pub rq_db: Signal<In, bool>,
    pub db_val: Signal<In, Bits<32>>,
    /// QUERY results (loaded into QP_STATE, RQ_PSN, RQ_CI, SQ_PSN, SQ_CI with `q_set`).
    pub q_set: Signal<Out, bool>,
    pub q_state: Signal<Out, Bits<32>>,
    pub q_rq_psn: Signal<Out, Bits<32>>,
    pub q_rq_ci: Signal<Out, Bits<32>>,
    pub q_sq_psn: Signal<Out, Bits<32>>,
    pub q_sq_ci: Signal<Out, Bits<32>>,
    /// The per-QP counters the last QUERY read (out_of_sequence, duplicate_request, packet_seq_err).
    pub q_oos: Signal<Out, Bits<32>>,
    pub q_dup: Signal<Out, Bits<32>>,
    pub q_seq_nak: Signal<Out, Bits<32>>,
    pub q_timeouts: Signal<Out, Bits<32>>,
    pub q_retrans: Signal<Out, Bits<32>>,
    /// The transmit engine's events on its current QP.
    pub tx_timeout_inc: Signal<In, bool>,
    pub tx_retrans_inc: Signal<In, bool>,
    pub db_overflow_inc: Signal<Out, bool>,
    /// A QP entered ERR by the core's own doing (QP_ERR_EVENTS).
    pub err_event_inc: Signal<Out, bool>,
    pub ctx_switch_inc: Signal<Out, bool>,
    // Receive engine
    pub rx_want: Signal<In, bool>,
    pub rx_want_qpn: Signal<In, Bits<32>>,
    pub rx_hit: Signal<Out, bool>,
    pub rx_ctx_load: Signal<Out, bool>,
    pub rx_ctx_in: Signal<Out, Bits<RX_VEC>>,
    pub rx_ctx_out: Signal<In, Bits<RX_VEC>>,
    pub rx_qpn: Signal<Out, Bits<32>>,
    pub rx_state: Signal<Out, Bits<32>>,
    pub rx_dest_qpn: Signal<Out, Bits<32>>,
    pub rx_pmtu: Signal<Out, Bits<32>>,
    pub rx_min_rnr: Signal<Out, Bits<32>>,
    pub rx_access: Signal<Out, Bits<32>>,
    pub rx_pd: Signal<Out, Bits<32>>,
    /// The peer's IPv4 address (DEST_IPV4; of an IPv6 peer its GID's last 32 bits): the receive side
    /// drops packets from another source.
    pub rx_peer_ip: Signal<Out, Bits<32>>,
    pub rx_rq_base_lo: Signal<Out, Bits<32>>,
    pub rx_rq_base_hi: Signal<Out, Bits<32>>,
    pub rx_rq_log: Signal<Out, Bits<32>>,
    pub rx_rq_psn: Signal<Out, Bits<32>>,
    pub rx_rq_pi: Signal<Out, Bits<32>>,
    pub rx_rq_ci: Signal<Out, Bits<32>>,
    pub rx_rq_psn_set: Signal<In, bool>,
    pub rx_rq_psn_val: Signal<In, Bits<32>>,
    pub rx_rq_ci_inc: Signal<In, bool>,
    pub rx_err: Signal<In, bool>,
    // Transmit engine
    pub tx_sw_ok: Signal<In, bool>,
    pub tx_hold: Signal<Out, bool>,
    pub tx_qpn: Signal<Out, Bits<32>>,
    pub tx_state: Signal<Out, Bits<32>>,
    pub tx_dest_qpn: Signal<Out, Bits<32>>,
    pub tx_pmtu: Signal<Out, Bits<32>>,
    pub tx_ack_timeout: Signal<Out, Bits<32>>,
    pub tx_retry: Signal<Out, Bits<32>>,
    /// The current QP's max_rd_atomic (QP_MAX_RD_ATOMIC).
    pub tx_max_rd: Signal<Out, Bits<3>>,
    pub tx_rnr_retry: Signal<Out, Bits<32>>,
    pub tx_sq_base_lo: Signal<Out, Bits<32>>,
    pub tx_sq_base_hi: Signal<Out, Bits<32>>,
    pub tx_sq_log: Signal<Out, Bits<32>>,
    pub tx_sq_psn: Signal<Out, Bits<32>>,
    pub tx_sq_pi: Signal<Out, Bits<32>>,
    pub tx_sq_ci: Signal<Out, Bits<32>>,
    pub tx_sq_psn_set: Signal<In, bool>,
    pub tx_sq_psn_val: Signal<In, Bits<32>>,
    pub tx_sq_ci_inc: Signal<In, bool>,
    pub tx_err: Signal<In, bool>,
    /// Both current QPs to ERR (a CQ overrun).
    pub all_err: Signal<In, bool>,
    // Address vector of the frame the transmit engine builds (read port, one cycle).
    pub av_qpn: Signal<In, Bits<32>>,
    pub av_dest_mac_lo: Signal<Out, Bits<32>>,
    pub av_dest_mac_hi: Signal<Out, Bits<32>>,
    pub av_dest_ip: Signal<Out, Bits<32>>,
    pub av_sport: Signal<Out, Bits<32>>,
    pub av_dest_qpn: Signal<Out, Bits<32>>,
    pub av_dscp: Signal<Out, Bits<32>>,
    /// IPv6 address vector: the destination GID's bytes 0..11 (12..15 are `av_dest_ip`), IPv6 on, and
    /// the entry of the port GID table the frames leave from.
    pub av_dgid_hi: Signal<Out, Bits<96>>,
    pub av_ipv6: Signal<Out, bool>,
    pub av_sgid: Signal<Out, Bits<2>>,
    /// The IPv4 TTL or IPv6 hop limit, and the IPv6 flow label.
    pub av_hop_limit: Signal<Out, Bits<8>>,
    pub av_flow_label: Signal<Out, Bits<20>>,
    /// The QP's VLAN: bit 0 on, bits 2..1 the port VLAN table entry.
    pub av_vlan: Signal<Out, Bits<3>>,
    rxa: RAM<Bits<QP_RESP_ATTR_BITS>, Q>,
    rxc: RAM<Bits<RXC>, Q>,
    txa: RAM<Bits<QP_REQ_ATTR_BITS>, Q>,
    txc: RAM<Bits<TXC>, Q>,
    av: RAM<Bits<QP_AV_BITS>, Q>,
    sqpi: RAM<Bits<32>, Q>,
    rqpi: RAM<Bits<32>, Q>,
    dbf: RAM<Bits<32>, Q>,
    rqf: RAM<Bits<32>, Q>,
    state: DFF<TabState>,
    // current receive QP
    rx_idx: DFF<Bits<32>>,
    rx_state_q: DFF<Bits<32>>,
    rx_a: DFF<Bits<QP_RESP_ATTR_BITS>>,
    rx_psn_q: DFF<Bits<32>>,
    rx_pi_q: DFF<Bits<32>>,
    rx_ci_q: DFF<Bits<32>>,
    // current transmit QP
    tx_idx: DFF<Bits<32>>,
    tx_state_q: DFF<Bits<32>>,
    tx_a: DFF<Bits<QP_REQ_ATTR_BITS>>,
    tx_psn_q: DFF<Bits<32>>,
    tx_pi_q: DFF<Bits<32>>,
    tx_ci_q: DFF<Bits<32>>,
    tx_served: DFF<bool>,
    // scheduler
    db_wp: DFF<Bits<32>>,
    db_rp: DFF<Bits<32>>,
    rq_wp: DFF<Bits<32>>,
    rq_rp: DFF<Bits<32>>,
    from_rq: DFF<bool>,
    toggle: DFF<bool>,
    sweep: DFF<bool>,
    sweep_idx: DFF<Bits<Q>>,
    from_sweep: DFF<bool>,
    cand: DFF<Bits<32>>,
    pick: Signal<Local, Bits<32>>,
    /// A doorbell for the QP being loaded while its RAM read was in flight.
    byp: DFF<bool>,
    byp_val: DFF<Bits<32>>,
    // ERR to carry to the other engine's copy: to the receive copy / the transmit copy, of QP index
    perr_rx: DFF<bool>,
    perr_rx_idx: DFF<Bits<32>>,
    perr_tx: DFF<bool>,
    perr_tx_idx: DFF<Bits<32>>,
    err_to_rx: DFF<bool>,
    clr_idx: DFF<Bits<32>>,
    /// The counters of the last QUERY, held for the registers.
    qk_oos: DFF<Bits<32>>,
    qk_dup: DFF<Bits<32>>,
    qk_seq_nak: DFF<Bits<32>>,
    qk_timeouts: DFF<Bits<32>>,
    qk_retrans: DFF<Bits<32>>,
    /// The current transmit QP's counters, each as 16-bit halves: the high half takes the low half's
    /// carry a cycle later (`_c`: a carry not yet added), so no 32-bit add sits on an update.
    tx_kt_lo: DFF<Bits<16>>,
    tx_kt_hi: DFF<Bits<16>>,
    tx_kt_c: DFF<bool>,
    tx_kr_lo: DFF<Bits<16>>,
    tx_kr_hi: DFF<Bits<16>>,
    tx_kr_c: DFF<bool>,
    /// The four counter halves are loaded this cycle, with these values (timeouts lo, hi, retries lo, hi).
    tx_k_ld: Signal<Local, bool>,
    tx_k_ld_v: Signal<Local, Bits<64>>,
    /// The QP a command names is the current receive / transmit QP (compared in `CmdRd`, used in
    /// `CmdWr`: neither changes during a command).
    cmd_rx_cur: DFF<bool>,
    cmd_tx_cur: DFF<bool>,
    /// `sel_ok` registered for `CmdWr` (the QPN register does not change during a command).
    cmd_sel_ok: DFF<bool>,
    /// A consumer index's increment, and a load that overrides it.
    rx_ci_up: Signal<Local, bool>,
    tx_ci_up: Signal<Local, bool>,
    rx_ci_ld_en: Signal<Local, bool>,
    tx_ci_ld_en: Signal<Local, bool>,
    rx_ci_ld: Signal<Local, Bits<32>>,
    tx_ci_ld: Signal<Local, Bits<32>>,
    /// Their values, a carry not yet added included.
    tx_k_timeouts: Signal<Local, Bits<32>>,
    tx_k_retrans: Signal<Local, Bits<32>>,
    /// The queried QP's engine registers: from the RAM, or live from the engine for its current QP.
    q_vec: Signal<Local, Bits<RX_VEC>>,
    // combinational
    n: Constant<Bits<32>>,
    mask: Constant<Bits<32>>,
    /// QP states (proto::host::QpState): RESET, RTS, SQD, ERR.
    qs_reset: Constant<Bits<32>>,
    qs_rts: Constant<Bits<32>>,
    qs_sqd: Constant<Bits<32>>,
    qs_err: Constant<Bits<32>>,
    /// QP_CMD's bits (`regs::QP_CMD_*`): MODIFY, INIT_RQ, INIT_SQ, QUERY, CLEAR, and a command that
    /// writes the responder context (MODIFY or INIT_RQ) or the requester's (MODIFY or INIT_SQ).
    cmd_modify: Constant<Bits<32>>,
    cmd_init_rq: Constant<Bits<32>>,
    cmd_init_sq: Constant<Bits<32>>,
    cmd_query: Constant<Bits<32>>,
    cmd_clear: Constant<Bits<32>>,
    cmd_rxc_w: Constant<Bits<32>>,
    cmd_txc_w: Constant<Bits<32>>,
    sel_ok: Signal<Local, bool>,
    want_ok: Signal<Local, bool>,
    cur_work: Signal<Local, bool>,
    db_full: Signal<Local, bool>,
    rq_full: Signal<Local, bool>,
    /// The FIFOs' pointers equal in their low Q bits, and differing in bit Q: the pointers only move
    /// forward and never more than 2^Q apart, so these give full and empty without a subtraction.
    db_lo_eq: Signal<Local, bool>,
    db_hi_ne: Signal<Local, bool>,
    db_any: Signal<Local, bool>,
    rq_lo_eq: Signal<Local, bool>,
    rq_hi_ne: Signal<Local, bool>,
    rq_any: Signal<Local, bool>,
    cand_avail: Signal<Local, bool>,
    go_tx: Signal<Local, bool>,
    c_state: Signal<Local, Bits<32>>,
    c_ci: Signal<Local, Bits<32>>,
    c_pi: Signal<Local, Bits<32>>,
    c_pi_db: Signal<Local, Bits<32>>,
    c_work: Signal<Local, bool>,
    /// The records, read and written by field (`roce::ctx`, generated from `rocenic_proto::ctx`):
    /// what host commands write; the current QPs' attributes; the address vector read; the contexts
    /// read, and packed as written back (the current QP's, a command's, the ERR hand-over's).
    rxa_w: QpRespAttrPack,
    txa_w: QpReqAttrPack,
    av_w: QpAvPack,
    rx_f: QpRespAttrUnpack,
    tx_f: QpReqAttrUnpack,
    av_f: QpAvUnpack,
    rxc_r: QpRespCtxUnpack,
    txc_r: QpReqCtxUnpack,
    q_eng: RespEngineCtxUnpack,
    rxc_cur: QpRespCtxPack,
    txc_cur: QpReqCtxPack,
    rxc_cmd: QpRespCtxPack,
    txc_cmd: QpReqCtxPack,
    rxc_err: QpRespCtxPack,
    txc_err: QpReqCtxPack,
    ld_pi: Signal<Local, Bits<32>>,
}

impl<const Q: usize> Default for QpTable<Q> {
    fn default() -> Self {
        assert!(Q >= 4 && Q <= 16, "2^Q QPs, 16 .. 65536");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            sel: Default::default(),
            cmd: Default::default(),
            cmd_done: Default::default(),
            w_state: Default::default(),
            w_dest_qpn: Default::default(),
            w_pmtu: Default::default(),
            w_min_rnr: Default::default(),
            w_access: Default::default(),
            w_pd: Default::default(),
            w_rq_base: Default::default(),
            w_rq_log: Default::default(),
            w_rq_psn: Default::default(),
            w_rq_pi: Default::default(),
            w_rq_ci: Default::default(),
            w_ack_timeout: Default::default(),
            w_retry: Default::default(),
            w_rnr_retry: Default::default(),
            w_sq_base: Default::default(),
            w_sq_log: Default::default(),
            w_sq_psn: Default::default(),
            w_sq_pi: Default::default(),
            w_sq_ci: Default::default(),
            w_dest_mac: Default::default(),
            w_dest_ip: Default::default(),
            w_sport: Default::default(),
            w_dscp: Default::default(),
            w_dgid0: Default::default(),
            w_dgid1: Default::default(),
            w_dgid2: Default::default(),
            w_ipv6: Default::default(),
            w_hop_limit: Default::default(),
            w_flow_label: Default::default(),
            w_vlan: Default::default(),
            w_max_rd: Default::default(),
            sq_db: Default::default(),
            rq_db: Default::default(),
            db_val: Default::default(),
            q_set: Default::default(),
            q_state: Default::default(),
            q_rq_psn: Default::default(),
            q_rq_ci: Default::default(),
            q_sq_psn: Default::default(),
            q_sq_ci: Default::default(),
            q_oos: Default::default(),
            q_dup: Default::default(),
            q_seq_nak: Default::default(),
            q_timeouts: Default::default(),
            q_retrans: Default::default(),
            tx_timeout_inc: Default::default(),
            tx_retrans_inc: Default::default(),
            db_overflow_inc: Default::default(),
            err_event_inc: Default::default(),
            ctx_switch_inc: Default::default(),
            rx_want: Default::default(),
            rx_want_qpn: Default::default(),
            rx_hit: Default::default(),
            rx_ctx_load: Default::default(),
            rx_ctx_in: Default::default(),
            rx_ctx_out: Default::default(),
            rx_qpn: Default::default(),
            rx_state: Default::default(),
            rx_dest_qpn: Default::default(),
            rx_pmtu: Default::default(),
            rx_min_rnr: Default::default(),
            rx_access: Default::default(),
            rx_pd: Default::default(),
            rx_peer_ip: Default::default(),
            rx_rq_base_lo: Default::default(),
            rx_rq_base_hi: Default::default(),
            rx_rq_log: Default::default(),
            rx_rq_psn: Default::default(),
            rx_rq_pi: Default::default(),
            rx_rq_ci: Default::default(),
            rx_rq_psn_set: Default::default(),
            rx_rq_psn_val: Default::default(),
            rx_rq_ci_inc: Default::default(),
            rx_err: Default::default(),
            tx_sw_ok: Default::default(),
            tx_hold: Default::default(),
            tx_qpn: Default::default(),
            tx_state: Default::default(),
            tx_dest_qpn: Default::default(),
            tx_pmtu: Default::default(),
            tx_ack_timeout: Default::default(),
            tx_retry: Default::default(),
            tx_max_rd: Default::default(),
            tx_rnr_retry: Default::default(),
            tx_sq_base_lo: Default::default(),
            tx_sq_base_hi: Default::default(),
            tx_sq_log: Default::default(),
            tx_sq_psn: Default::default(),
            tx_sq_pi: Default::default(),
            tx_sq_ci: Default::default(),
            tx_sq_psn_set: Default::default(),
            tx_sq_psn_val: Default::default(),
            tx_sq_ci_inc: Default::default(),
            tx_err: Default::default(),
            all_err: Default::default(),
            av_qpn: Default::default(),
            av_dest_mac_lo: Default::default(),
            av_dest_mac_hi: Default::default(),
            av_dest_ip: Default::default(),
            av_sport: Default::default(),
            av_dest_qpn: Default::default(),
            av_dscp: Default::default(),
            av_dgid_hi: Default::default(),
            av_ipv6: Default::default(),
            av_sgid: Default::default(),
            av_hop_limit: Default::default(),
            av_flow_label: Default::default(),
            av_vlan: Default::default(),
            rxa: Default::default(),
            rxc: Default::default(),
            txa: Default::default(),
            txc: Default::default(),
            av: Default::default(),
            sqpi: Default::default(),
            rqpi: Default::default(),
            dbf: Default::default(),
            rqf: Default::default(),
            state: Default::default(),
            rx_idx: Default::default(),
            rx_state_q: Default::default(),
            rx_a: Default::default(),
            rx_psn_q: Default::default(),
            rx_pi_q: Default::default(),
            rx_ci_q: Default::default(),
            tx_idx: Default::default(),
            tx_state_q: Default::default(),
            tx_a: Default::default(),
            tx_psn_q: Default::default(),
            tx_pi_q: Default::default(),
            tx_ci_q: Default::default(),
            tx_served: Default::default(),
            db_wp: Default::default(),
            db_rp: Default::default(),
            rq_wp: Default::default(),
            rq_rp: Default::default(),
            from_rq: Default::default(),
            toggle: Default::default(),
            sweep: Default::default(),
            sweep_idx: Default::default(),
            from_sweep: Default::default(),
            cand: Default::default(),
            pick: Default::default(),
            byp: Default::default(),
            byp_val: Default::default(),
            perr_rx: Default::default(),
            perr_rx_idx: Default::default(),
            perr_tx: Default::default(),
            perr_tx_idx: Default::default(),
            err_to_rx: Default::default(),
            clr_idx: Default::default(),
            qk_oos: Default::default(),
            qk_dup: Default::default(),
            qk_seq_nak: Default::default(),
            qk_timeouts: Default::default(),
            qk_retrans: Default::default(),
            tx_kt_lo: Default::default(),
            tx_kt_hi: Default::default(),
            tx_kt_c: Default::default(),
            tx_kr_lo: Default::default(),
            tx_kr_hi: Default::default(),
            tx_kr_c: Default::default(),
            tx_k_ld: Default::default(),
            tx_k_ld_v: Default::default(),
            cmd_rx_cur: Default::default(),
            cmd_tx_cur: Default::default(),
            cmd_sel_ok: Default::default(),
            rx_ci_up: Default::default(),
            tx_ci_up: Default::default(),
            rx_ci_ld_en: Default::default(),
            tx_ci_ld_en: Default::default(),
            rx_ci_ld: Default::default(),
            tx_ci_ld: Default::default(),
            tx_k_timeouts: Default::default(),
            tx_k_retrans: Default::default(),
            q_vec: Default::default(),
            n: Constant::new((1u64 << Q).into()),
            mask: Constant::new(((1u64 << Q) - 1).into()),
            qs_reset: Constant::new((QpState::Reset as u64).into()),
            qs_rts: Constant::new((QpState::Rts as u64).into()),
            qs_sqd: Constant::new((QpState::Sqd as u64).into()),
            qs_err: Constant::new((QpState::Err as u64).into()),
            cmd_modify: Constant::new((regs::QP_CMD_MODIFY as u64).into()),
            cmd_init_rq: Constant::new((regs::QP_CMD_INIT_RQ as u64).into()),
            cmd_init_sq: Constant::new((regs::QP_CMD_INIT_SQ as u64).into()),
            cmd_query: Constant::new((regs::QP_CMD_QUERY as u64).into()),
            cmd_clear: Constant::new((regs::QP_CMD_CLEAR as u64).into()),
            cmd_rxc_w: Constant::new(((regs::QP_CMD_MODIFY | regs::QP_CMD_INIT_RQ) as u64).into()),
            cmd_txc_w: Constant::new(((regs::QP_CMD_MODIFY | regs::QP_CMD_INIT_SQ) as u64).into()),
            sel_ok: Default::default(),
            want_ok: Default::default(),
            cur_work: Default::default(),
            db_full: Default::default(),
            rq_full: Default::default(),
            db_lo_eq: Default::default(),
            db_hi_ne: Default::default(),
            db_any: Default::default(),
            rq_lo_eq: Default::default(),
            rq_hi_ne: Default::default(),
            rq_any: Default::default(),
            cand_avail: Default::default(),
            go_tx: Default::default(),
            c_state: Default::default(),
            c_ci: Default::default(),
            c_pi: Default::default(),
            c_pi_db: Default::default(),
            c_work: Default::default(),
            rxa_w: Default::default(),
            txa_w: Default::default(),
            av_w: Default::default(),
            rx_f: Default::default(),
            tx_f: Default::default(),
            av_f: Default::default(),
            rxc_r: Default::default(),
            txc_r: Default::default(),
            q_eng: Default::default(),
            rxc_cur: Default::default(),
            txc_cur: Default::default(),
            rxc_cmd: Default::default(),
            txc_cmd: Default::default(),
            rxc_err: Default::default(),
            txc_err: Default::default(),
            ld_pi: Default::default(),
        }
    }
}

impl<const Q: usize> Logic for QpTable<Q> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            rx_idx,
            rx_state_q,
            rx_a,
            rx_psn_q,
            rx_pi_q,
            rx_ci_q,
            tx_idx,
            tx_state_q,
            tx_a,
            tx_psn_q,
            tx_pi_q,
            tx_ci_q,
            tx_served,
            db_wp,
            db_rp,
            rq_wp,
            rq_rp,
            from_rq,
            toggle,
            sweep,
            sweep_idx,
            from_sweep,
            cand,
            byp,
            byp_val,
            perr_rx,
            perr_rx_idx,
            perr_tx,
            perr_tx_idx,
            err_to_rx,
            clr_idx,
            qk_oos,
            qk_dup,
            qk_seq_nak,
            qk_timeouts,
            qk_retrans,
            tx_kt_lo,
            tx_kt_hi,
            tx_kt_c,
            tx_kr_lo,
            tx_kr_hi,
            tx_kr_c,
            cmd_rx_cur,
            cmd_tx_cur,
            cmd_sel_ok
        );
        self.rxa.read_clock.next = self.clock.val();
        self.rxa.write_clock.next = self.clock.val();
        self.rxc.read_clock.next = self.clock.val();
        self.rxc.write_clock.next = self.clock.val();
        self.txa.read_clock.next = self.clock.val();
        self.txa.write_clock.next = self.clock.val();
        self.txc.read_clock.next = self.clock.val();
        self.txc.write_clock.next = self.clock.val();
        self.av.read_clock.next = self.clock.val();
        self.av.write_clock.next = self.clock.val();
        self.sqpi.read_clock.next = self.clock.val();
        self.sqpi.write_clock.next = self.clock.val();
        self.rqpi.read_clock.next = self.clock.val();
        self.rqpi.write_clock.next = self.clock.val();
        self.dbf.read_clock.next = self.clock.val();
        self.dbf.write_clock.next = self.clock.val();
        self.rqf.read_clock.next = self.clock.val();
        self.rqf.write_clock.next = self.clock.val();
        self.rxa.write_enable.next = false;
        self.rxc.write_enable.next = false;
        self.txa.write_enable.next = false;
        self.txc.write_enable.next = false;
        self.av.write_enable.next = false;
        self.sqpi.write_enable.next = false;
        self.rqpi.write_enable.next = false;
        self.dbf.write_enable.next = false;
        self.rqf.write_enable.next = false;
        self.cmd_done.next = false;
        self.q_set.next = false;
        self.q_state.next = self.qs_reset.val();
        self.q_rq_psn.next = 0.into();
        self.q_rq_ci.next = 0.into();
        self.q_sq_psn.next = 0.into();
        self.q_sq_ci.next = 0.into();
        self.q_oos.next = self.qk_oos.q.val();
        self.q_dup.next = self.qk_dup.q.val();
        self.q_seq_nak.next = self.qk_seq_nak.q.val();
        self.q_timeouts.next = self.qk_timeouts.q.val();
        self.q_retrans.next = self.qk_retrans.q.val();
        self.rxc_r.word.next = self.rxc.read_data.val();
        self.txc_r.word.next = self.txc.read_data.val();
        self.q_vec.next = self.rxc_r.engine.val();
        if self.sel.val() == self.rx_idx.q.val() {
            self.q_vec.next = self.rx_ctx_out.val();
        }
        self.db_overflow_inc.next = false;
        self.err_event_inc.next = self.rx_err.val() || self.tx_err.val() || self.all_err.val();
        self.ctx_switch_inc.next = false;
        self.rx_ctx_load.next = false;
        self.tx_hold.next = false;
        self.pick.next = self.cand.q.val();

        self.rx_f.word.next = self.rx_a.q.val();
        self.tx_f.word.next = self.tx_a.q.val();
        self.rx_qpn.next = self.rx_idx.q.val();
        self.rx_state.next = self.rx_state_q.q.val();
        self.rx_dest_qpn.next = bit_cast::<32, 24>(self.rx_f.dest_qpn.val());
        self.rx_pmtu.next = bit_cast::<32, 8>(self.rx_f.pmtu.val());
        self.rx_min_rnr.next = bit_cast::<32, 8>(self.rx_f.min_rnr_timer.val());
        self.rx_access.next = bit_cast::<32, 8>(self.rx_f.qp_access.val());
        self.rx_pd.next = self.rx_f.pd.val();
        self.rx_rq_log.next = self.rx_f.rq_log_size.val();
        self.rx_rq_base_lo.next = self.rx_f.rq_base.val().get_bits::<32>(0);
        self.rx_rq_base_hi.next = self.rx_f.rq_base.val().get_bits::<32>(32);
        self.rx_peer_ip.next = self.rx_f.dest_ipv4.val();
        self.rx_rq_psn.next = self.rx_psn_q.q.val();
        self.rx_rq_pi.next = self.rx_pi_q.q.val();
        self.rx_rq_ci.next = self.rx_ci_q.q.val();
        self.tx_qpn.next = self.tx_idx.q.val();
        self.tx_state.next = self.tx_state_q.q.val();
        self.tx_pmtu.next = bit_cast::<32, 8>(self.tx_f.pmtu.val());
        self.tx_retry.next = bit_cast::<32, 3>(self.tx_f.retry_cnt.val());
        self.tx_max_rd.next = self.tx_f.max_rd_atomic.val();
        self.tx_rnr_retry.next = bit_cast::<32, 8>(self.tx_f.rnr_retry.val());
        self.tx_sq_log.next = bit_cast::<32, 8>(self.tx_f.sq_log_size.val());
        self.tx_ack_timeout.next = self.tx_f.ack_timeout.val();
        self.tx_dest_qpn.next = bit_cast::<32, 24>(self.tx_f.dest_qpn.val());
        self.tx_sq_base_lo.next = self.tx_f.sq_base.val().get_bits::<32>(0);
        self.tx_sq_base_hi.next = self.tx_f.sq_base.val().get_bits::<32>(32);
        self.tx_sq_psn.next = self.tx_psn_q.q.val();
        self.tx_sq_pi.next = self.tx_pi_q.q.val();
        self.tx_sq_ci.next = self.tx_ci_q.q.val();
        self.av.read_address.next = bit_cast::<Q, 32>(self.av_qpn.val());
        self.av_f.word.next = self.av.read_data.val();
        self.av_dest_mac_lo.next = self.av_f.dest_mac.val().get_bits::<32>(0);
        self.av_dest_mac_hi.next = bit_cast::<32, 16>(self.av_f.dest_mac.val().get_bits::<16>(32));
        self.av_dest_ip.next = self.av_f.dest_ipv4.val();
        self.av_sport.next = bit_cast::<32, 16>(self.av_f.udp_sport.val());
        self.av_dest_qpn.next = bit_cast::<32, 24>(self.av_f.dest_qpn.val());
        self.av_dscp.next = bit_cast::<32, 8>(self.av_f.dscp.val());
        // The VLAN as the transmit engine takes it: on in bit 0, the entry above.
        self.av_vlan.next = (bit_cast::<3, 2>(self.av_f.vlan_entry.val()) << 1)
            | bit_cast::<3, 1>(self.av_f.vlan_on.val().into());
        self.av_dgid_hi.next = self.av_f.dest_gid_hi.val();
        self.av_ipv6.next = self.av_f.ipv6.val();
        self.av_sgid.next = self.av_f.sgid_index.val();
        self.av_hop_limit.next = self.av_f.hop_limit.val();
        self.av_flow_label.next = self.av_f.flow_label.val();

        self.tx_k_timeouts.next = (bit_cast::<32, 16>(self.tx_kt_hi.q.val()) << 16)
            | bit_cast::<32, 16>(self.tx_kt_lo.q.val());
        if self.tx_kt_c.q.val() {
            self.tx_k_timeouts.next = ((bit_cast::<32, 16>(self.tx_kt_hi.q.val()) + 1) << 16)
                | bit_cast::<32, 16>(self.tx_kt_lo.q.val());
        }
        self.tx_k_retrans.next = (bit_cast::<32, 16>(self.tx_kr_hi.q.val()) << 16)
            | bit_cast::<32, 16>(self.tx_kr_lo.q.val());
        if self.tx_kr_c.q.val() {
            self.tx_k_retrans.next = ((bit_cast::<32, 16>(self.tx_kr_hi.q.val()) + 1) << 16)
                | bit_cast::<32, 16>(self.tx_kr_lo.q.val());
        }
        // The current contexts packed as stored.
        self.rxc_cur.state.next = bit_cast::<8, 32>(self.rx_state_q.q.val());
        self.rxc_cur.rq_psn.next = bit_cast::<24, 32>(self.rx_psn_q.q.val());
        self.rxc_cur.rq_ci.next = self.rx_ci_q.q.val();
        self.rxc_cur.engine.next = self.rx_ctx_out.val();
        self.txc_cur.state.next = bit_cast::<8, 32>(self.tx_state_q.q.val());
        self.txc_cur.sq_psn.next = bit_cast::<24, 32>(self.tx_psn_q.q.val());
        self.txc_cur.sq_ci.next = self.tx_ci_q.q.val();
        self.txc_cur.local_ack_timeout_err.next = self.tx_k_timeouts.val();
        self.txc_cur.retransmits.next = self.tx_k_retrans.val();
        // The current transmit QP's counters are loaded (zero, or the next QP's) by a switch or a command
        // below, or counted.
        self.tx_k_ld.next = false;
        self.tx_k_ld_v.next = 0.into();
        self.rx_ctx_in.next = self.rxc_r.engine.val();
        if (self.state.q.val() == TabState::CmdWr) || (self.state.q.val() == TabState::Clear) {
            self.rx_ctx_in.next = 0.into(); // INIT_RQ of the current QP, CLEAR: a fresh responder
        }

        self.cmd_rx_cur.d.next = self.sel.val() == self.rx_idx.q.val();
        self.cmd_tx_cur.d.next = self.sel.val() == self.tx_idx.q.val();
        // Below 2^Q: no bit above the index's.
        self.sel_ok.next = (self.sel.val() & !self.mask.val()) == 0;
        self.cmd_sel_ok.d.next = self.sel_ok.val();
        self.want_ok.next = (self.rx_want_qpn.val() & !self.mask.val()) == 0;
        self.rx_hit.next = (self.rx_want_qpn.val() == self.rx_idx.q.val()) || !self.want_ok.val();
        if (self.state.q.val() == TabState::RxRd) || (self.state.q.val() == TabState::RxLd) {
            self.rx_hit.next = false;
        }
        self.cur_work.next = ((self.tx_state_q.q.val() == self.qs_rts.val())
            || (self.tx_state_q.q.val() == self.qs_sqd.val()))
            && (self.tx_pi_q.q.val() != self.tx_ci_q.q.val());
        self.db_lo_eq.next =
            bit_cast::<Q, 32>(self.db_wp.q.val()) == bit_cast::<Q, 32>(self.db_rp.q.val());
        self.db_hi_ne.next = ((self.db_wp.q.val() ^ self.db_rp.q.val()) & self.n.val()) != 0;
        self.db_full.next = self.db_lo_eq.val() && self.db_hi_ne.val();
        self.db_any.next = !self.db_lo_eq.val() || self.db_hi_ne.val();
        self.rq_lo_eq.next =
            bit_cast::<Q, 32>(self.rq_wp.q.val()) == bit_cast::<Q, 32>(self.rq_rp.q.val());
        self.rq_hi_ne.next = ((self.rq_wp.q.val() ^ self.rq_rp.q.val()) & self.n.val()) != 0;
        self.rq_full.next = self.rq_lo_eq.val() && self.rq_hi_ne.val();
        self.rq_any.next = !self.rq_lo_eq.val() || self.rq_hi_ne.val();
        self.cand_avail.next = self.sweep.q.val() || self.db_any.val() || self.rq_any.val();
        self.go_tx.next = self.tx_sw_ok.val()
            && self.cand_avail.val()
            && (self.tx_served.q.val() || !self.cur_work.val());

        // The engines' updates of their current contexts. A consumer index is incremented, or loaded
        // (below), the load winning: the increment meets one multiplexer after its carry chain.
        self.rx_ci_up.next = false;
        self.tx_ci_up.next = false;
        self.rx_ci_ld_en.next = false;
        self.tx_ci_ld_en.next = false;
        self.rx_ci_ld.next = 0.into();
        self.tx_ci_ld.next = 0.into();
        if self.rx_rq_psn_set.val() {
            self.rx_psn_q.d.next = self.rx_rq_psn_val.val();
        }
        if self.rx_rq_ci_inc.val() {
            self.rx_ci_up.next = true;
        }
        if self.tx_sq_psn_set.val() {
            self.tx_psn_q.d.next = self.tx_sq_psn_val.val();
        }
        if self.tx_sq_ci_inc.val() {
            self.tx_ci_up.next = true;
            self.tx_served.d.next = true;
        }
        // ERR: an engine sets its own copy at once and hands the other copy to the FSM.
        if self.rx_err.val() {
            self.rx_state_q.d.next = self.qs_err.val();
            self.perr_tx.d.next = true;
            self.perr_tx_idx.d.next = self.rx_idx.q.val();
        }
        if self.tx_err.val() {
            self.tx_state_q.d.next = self.qs_err.val();
            self.perr_rx.d.next = true;
            self.perr_rx_idx.d.next = self.tx_idx.q.val();
        }
        if self.all_err.val() {
            self.rx_state_q.d.next = self.qs_err.val();
            self.tx_state_q.d.next = self.qs_err.val();
        }

        // Doorbells: the producer index goes to its RAM (and to the current context), the QP to the FIFO.
        self.sqpi.write_address.next = bit_cast::<Q, 32>(self.sel.val());
        self.sqpi.write_data.next = self.db_val.val();
        self.rqpi.write_address.next = bit_cast::<Q, 32>(self.sel.val());
        self.rqpi.write_data.next = self.db_val.val();
        self.dbf.write_address.next = bit_cast::<Q, 32>(self.db_wp.q.val());
        self.dbf.write_data.next = self.sel.val();
        if self.sq_db.val() && self.sel_ok.val() {
            self.sqpi.write_enable.next = true;
            if self.sel.val() == self.tx_idx.q.val() {
                self.tx_pi_q.d.next = self.db_val.val();
            }
            if self.db_full.val() {
                self.sweep.d.next = true;
                self.sweep_idx.d.next = 0.into();
                self.db_overflow_inc.next = true;
            } else {
                self.dbf.write_enable.next = true;
                self.db_wp.d.next = self.db_wp.q.val() + 1;
            }
        }
        if self.rq_db.val() && self.sel_ok.val() {
            self.rqpi.write_enable.next = true;
            if self.sel.val() == self.rx_idx.q.val() {
                self.rx_pi_q.d.next = self.db_val.val();
            }
        }

        // Read addresses: the FSM's QP of interest.
        self.rxa.read_address.next = bit_cast::<Q, 32>(self.sel.val());
        self.rxc.read_address.next = bit_cast::<Q, 32>(self.sel.val());
        self.rqpi.read_address.next = bit_cast::<Q, 32>(self.sel.val());
        self.txa.read_address.next = bit_cast::<Q, 32>(self.sel.val());
        self.txc.read_address.next = bit_cast::<Q, 32>(self.sel.val());
        self.sqpi.read_address.next = bit_cast::<Q, 32>(self.sel.val());
        self.dbf.read_address.next = bit_cast::<Q, 32>(self.db_rp.q.val());
        self.rqf.read_address.next = bit_cast::<Q, 32>(self.rq_rp.q.val());
        self.rxa.write_address.next = bit_cast::<Q, 32>(self.sel.val());
        self.txa.write_address.next = bit_cast::<Q, 32>(self.sel.val());
        self.av.write_address.next = bit_cast::<Q, 32>(self.sel.val());
        self.rxc.write_address.next = bit_cast::<Q, 32>(self.sel.val());
        self.txc.write_address.next = bit_cast::<Q, 32>(self.sel.val());
        self.rqf.write_address.next = bit_cast::<Q, 32>(self.rq_wp.q.val());
        self.rqf.write_data.next = self.tx_idx.q.val();
        // A host command's attributes (MODIFY).
        self.rxa_w.dest_qpn.next = bit_cast::<24, 32>(self.w_dest_qpn.val());
        self.rxa_w.pmtu.next = bit_cast::<8, 32>(self.w_pmtu.val());
        self.rxa_w.min_rnr_timer.next = bit_cast::<8, 32>(self.w_min_rnr.val());
        self.rxa_w.qp_access.next = bit_cast::<8, 32>(self.w_access.val());
        self.rxa_w.pd.next = self.w_pd.val();
        self.rxa_w.rq_log_size.next = self.w_rq_log.val();
        self.rxa_w.rq_base.next = self.w_rq_base.val();
        self.rxa_w.dest_ipv4.next = self.w_dest_ip.val();
        self.rxa.write_data.next = self.rxa_w.word.val();
        self.txa_w.pmtu.next = bit_cast::<8, 32>(self.w_pmtu.val());
        self.txa_w.retry_cnt.next = bit_cast::<3, 32>(self.w_retry.val());
        self.txa_w.max_rd_atomic.next = bit_cast::<3, 32>(self.w_max_rd.val());
        self.txa_w.rnr_retry.next = bit_cast::<8, 32>(self.w_rnr_retry.val());
        self.txa_w.sq_log_size.next = bit_cast::<8, 32>(self.w_sq_log.val());
        self.txa_w.ack_timeout.next = self.w_ack_timeout.val();
        self.txa_w.dest_qpn.next = bit_cast::<24, 32>(self.w_dest_qpn.val());
        self.txa_w.sq_base.next = self.w_sq_base.val();
        self.txa.write_data.next = self.txa_w.word.val();
        self.av_w.dest_mac.next = bit_cast::<48, 64>(self.w_dest_mac.val());
        self.av_w.flow_label.next = bit_cast::<20, 32>(self.w_flow_label.val());
        self.av_w.dest_ipv4.next = self.w_dest_ip.val();
        self.av_w.udp_sport.next = bit_cast::<16, 32>(self.w_sport.val());
        self.av_w.dest_qpn.next = bit_cast::<24, 32>(self.w_dest_qpn.val());
        self.av_w.dscp.next = bit_cast::<8, 32>(self.w_dscp.val());
        self.av_w.vlan_on.next = self.w_vlan.val().get_bit(16);
        self.av_w.vlan_entry.next = bit_cast::<2, 32>(self.w_vlan.val());
        self.av_w.hop_limit.next = bit_cast::<8, 32>(self.w_hop_limit.val());
        self.av_w.dest_gid_hi.next = (bit_cast::<96, 32>(self.w_dgid0.val()) << 64)
            | (bit_cast::<96, 32>(self.w_dgid1.val()) << 32)
            | bit_cast::<96, 32>(self.w_dgid2.val());
        self.av_w.ipv6.next = self.w_ipv6.val().get_bit(0);
        self.av_w.sgid_index.next = bit_cast::<2, 32>(self.w_ipv6.val() >> 1);
        self.av.write_data.next = self.av_w.word.val();
        self.rxc.write_data.next = self.rxc_cur.word.val();
        self.txc.write_data.next = self.txc_cur.word.val();

        // A host command's new contexts, from what the RAMs held (CmdWr): MODIFY sets the state,
        // INIT_RQ and INIT_SQ set PSN and consumer index and clear the rest.
        self.rxc_cmd.state.next = self.rxc_r.state.val();
        self.rxc_cmd.rq_psn.next = self.rxc_r.rq_psn.val();
        self.rxc_cmd.rq_ci.next = self.rxc_r.rq_ci.val();
        self.rxc_cmd.engine.next = self.rxc_r.engine.val();
        if (self.cmd.val() & self.cmd_init_rq.val()) != 0 {
            self.rxc_cmd.rq_psn.next = bit_cast::<24, 32>(self.w_rq_psn.val());
            self.rxc_cmd.rq_ci.next = self.w_rq_ci.val();
            self.rxc_cmd.engine.next = 0.into();
        }
        if (self.cmd.val() & self.cmd_modify.val()) != 0 {
            self.rxc_cmd.state.next = bit_cast::<8, 32>(self.w_state.val());
        }
        self.txc_cmd.state.next = self.txc_r.state.val();
        self.txc_cmd.sq_psn.next = self.txc_r.sq_psn.val();
        self.txc_cmd.sq_ci.next = self.txc_r.sq_ci.val();
        self.txc_cmd.local_ack_timeout_err.next = self.txc_r.local_ack_timeout_err.val();
        self.txc_cmd.retransmits.next = self.txc_r.retransmits.val();
        if (self.cmd.val() & self.cmd_init_sq.val()) != 0 {
            self.txc_cmd.sq_psn.next = bit_cast::<24, 32>(self.w_sq_psn.val());
            self.txc_cmd.sq_ci.next = self.w_sq_ci.val();
            self.txc_cmd.local_ack_timeout_err.next = 0.into();
            self.txc_cmd.retransmits.next = 0.into();
        }
        if (self.cmd.val() & self.cmd_modify.val()) != 0 {
            self.txc_cmd.state.next = bit_cast::<8, 32>(self.w_state.val());
        }
        // The ERR hand-over: the context as read, in ERR.
        self.rxc_err.state.next = bit_cast::<8, 32>(self.qs_err.val());
        self.rxc_err.rq_psn.next = self.rxc_r.rq_psn.val();
        self.rxc_err.rq_ci.next = self.rxc_r.rq_ci.val();
        self.rxc_err.engine.next = self.rxc_r.engine.val();
        self.txc_err.state.next = bit_cast::<8, 32>(self.qs_err.val());
        self.txc_err.sq_psn.next = self.txc_r.sq_psn.val();
        self.txc_err.sq_ci.next = self.txc_r.sq_ci.val();
        self.txc_err.local_ack_timeout_err.next = self.txc_r.local_ack_timeout_err.val();
        self.txc_err.retransmits.next = self.txc_r.retransmits.val();
        self.q_eng.word.next = self.q_vec.val();

        // The candidate's context for the scheduler (TxEval).
        self.c_state.next = bit_cast::<32, 8>(self.txc_r.state.val());
        self.c_ci.next = self.txc_r.sq_ci.val();
        // Whether the candidate has work is decided on the producer index it had before this cycle; a
        // doorbell for it now still reaches the index it is loaded with (c_pi_db), and if it finds no
        // work, the doorbell has queued the QP for another look (it is not the current QP).
        self.c_pi.next = self.sqpi.read_data.val();
        if self.byp.q.val() {
            self.c_pi.next = self.byp_val.q.val();
        }
        self.c_pi_db.next = self.c_pi.val();
        if self.sq_db.val() && (self.sel.val() == self.cand.q.val()) {
            self.c_pi_db.next = self.db_val.val();
        }
        self.c_work.next = ((self.c_state.val() == self.qs_rts.val())
            || (self.c_state.val() == self.qs_sqd.val()))
            && (self.c_pi.val() != self.c_ci.val());
        self.ld_pi.next = self.rqpi.read_data.val();
        if self.byp.q.val() {
            self.ld_pi.next = self.byp_val.q.val();
        }
        if self.rq_db.val() && (self.sel.val() == self.cand.q.val()) {
            self.ld_pi.next = self.db_val.val();
        }

        match self.state.q.val() {
            TabState::Idle => {
                if self.perr_rx.q.val() || self.perr_tx.q.val() {
                    self.err_to_rx.d.next = self.perr_rx.q.val();
                    self.cand.d.next = self.perr_tx_idx.q.val();
                    if self.perr_rx.q.val() {
                        self.cand.d.next = self.perr_rx_idx.q.val();
                    }
                    self.state.d.next = TabState::ErrRd;
                } else if ((self.cmd.val() & self.cmd_clear.val()) != 0) && !self.rx_want.val() {
                    self.clr_idx.d.next = 0.into();
                    self.state.d.next = TabState::Clear;
                } else if (self.cmd.val() != 0) && !self.rx_want.val() {
                    // (a switch the receive engine waits for goes first: it holds a packet)
                    self.state.d.next = TabState::CmdRd;
                } else if self.rx_want.val() && !self.rx_hit.val() {
                    self.cand.d.next = self.rx_want_qpn.val();
                    self.byp.d.next = false;
                    self.state.d.next = TabState::RxRd;
                } else if self.go_tx.val() {
                    // Hold the engine's next WQE from this cycle on: the QP may change under it.
                    self.tx_hold.next = true;
                    self.from_sweep.d.next = self.sweep.q.val();
                    self.from_rq.d.next = false;
                    if !self.sweep.q.val() && self.rq_any.val() {
                        self.from_rq.d.next = !self.db_any.val() || self.toggle.q.val();
                    }
                    self.toggle.d.next = !self.toggle.q.val();
                    self.state.d.next = TabState::TxFifo;
                }
            }
            TabState::CmdRd => {
                // QPN's contexts are read this cycle (the read address follows `sel`).
                self.state.d.next = TabState::CmdWr;
            }
            TabState::CmdWr => {
                if !(self.sq_db.val() || self.rq_db.val()) {
                    self.state.d.next = TabState::Idle;
                    self.cmd_done.next = true;
                    if self.cmd_sel_ok.q.val() {
                        if (self.cmd.val() & self.cmd_modify.val()) != 0 {
                            self.rxa.write_enable.next = true;
                            self.txa.write_enable.next = true;
                            self.av.write_enable.next = true;
                            if self.cmd_rx_cur.q.val() {
                                self.rx_a.d.next = self.rxa.write_data.val();
                                self.rx_state_q.d.next = self.w_state.val() & 0xFF;
                            }
                            if self.cmd_tx_cur.q.val() {
                                self.tx_a.d.next = self.txa.write_data.val();
                                self.tx_state_q.d.next = self.w_state.val() & 0xFF;
                            }
                        }
                        if (self.cmd.val() & self.cmd_rxc_w.val()) != 0 {
                            self.rxc.write_enable.next = true;
                            self.rxc.write_data.next = self.rxc_cmd.word.val();
                        }
                        if (self.cmd.val() & self.cmd_txc_w.val()) != 0 {
                            self.txc.write_enable.next = true;
                            self.txc.write_data.next = self.txc_cmd.word.val();
                        }
                        if (self.cmd.val() & self.cmd_init_rq.val()) != 0 {
                            self.rqpi.write_enable.next = true;
                            self.rqpi.write_data.next = self.w_rq_pi.val();
                            if self.cmd_rx_cur.q.val() {
                                self.rx_psn_q.d.next = self.w_rq_psn.val() & 0xFF_FFFF;
                                self.rx_ci_ld.next = self.w_rq_ci.val();
                                self.rx_ci_ld_en.next = true;
                                self.rx_pi_q.d.next = self.w_rq_pi.val();
                                self.rx_ctx_load.next = true;
                            }
                        }
                        if (self.cmd.val() & self.cmd_init_sq.val()) != 0 {
                            self.sqpi.write_enable.next = true;
                            self.sqpi.write_data.next = self.w_sq_pi.val();
                            if self.cmd_tx_cur.q.val() {
                                self.tx_psn_q.d.next = self.w_sq_psn.val() & 0xFF_FFFF;
                                self.tx_ci_ld.next = self.w_sq_ci.val();
                                self.tx_ci_ld_en.next = true;
                                self.tx_pi_q.d.next = self.w_sq_pi.val();
                                self.tx_k_ld.next = true;
                            } else {
                                // The scheduler finds the QP if the index says there is work.
                                if self.db_full.val() {
                                    self.sweep.d.next = true;
                                    self.sweep_idx.d.next = 0.into();
                                } else {
                                    self.dbf.write_enable.next = true;
                                    self.db_wp.d.next = self.db_wp.q.val() + 1;
                                }
                            }
                        }
                        if (self.cmd.val() & self.cmd_query.val()) != 0 {
                            // QUERY: the contexts as they were before this command.
                            self.q_set.next = true;
                            self.qk_oos.d.next = self.q_eng.out_of_sequence.val();
                            self.qk_dup.d.next = self.q_eng.duplicate_request.val();
                            self.qk_seq_nak.d.next = self.q_eng.packet_seq_err.val();
                            self.qk_timeouts.d.next = self.txc_r.local_ack_timeout_err.val();
                            self.qk_retrans.d.next = self.txc_r.retransmits.val();
                            if self.cmd_tx_cur.q.val() {
                                self.qk_timeouts.d.next = self.tx_k_timeouts.val();
                                self.qk_retrans.d.next = self.tx_k_retrans.val();
                            }
                            self.q_state.next = self.c_state.val();
                            self.q_sq_psn.next = bit_cast::<32, 24>(self.txc_r.sq_psn.val());
                            self.q_sq_ci.next = self.c_ci.val();
                            self.q_rq_psn.next = bit_cast::<32, 24>(self.rxc_r.rq_psn.val());
                            self.q_rq_ci.next = self.rxc_r.rq_ci.val();
                            if bit_cast::<32, 8>(self.rxc_r.state.val()) == self.qs_err.val() {
                                self.q_state.next = self.qs_err.val();
                            }
                            if self.cmd_tx_cur.q.val() {
                                self.q_sq_psn.next = self.tx_psn_q.q.val();
                                self.q_sq_ci.next = self.tx_ci_q.q.val();
                                self.q_state.next = self.tx_state_q.q.val();
                            }
                            if self.cmd_rx_cur.q.val() {
                                self.q_rq_psn.next = self.rx_psn_q.q.val();
                                self.q_rq_ci.next = self.rx_ci_q.q.val();
                                if self.rx_state_q.q.val() == self.qs_err.val() {
                                    self.q_state.next = self.qs_err.val();
                                }
                            }
                        }
                    }
                }
            }
            TabState::RxRd => {
                // Old context back, the wanted one read.
                self.rxc.write_address.next = bit_cast::<Q, 32>(self.rx_idx.q.val());
                self.rxc.write_enable.next = true;
                self.rxa.read_address.next = bit_cast::<Q, 32>(self.cand.q.val());
                self.rxc.read_address.next = bit_cast::<Q, 32>(self.cand.q.val());
                self.rqpi.read_address.next = bit_cast::<Q, 32>(self.cand.q.val());
                if self.rq_db.val() && (self.sel.val() == self.cand.q.val()) {
                    self.byp.d.next = true;
                    self.byp_val.d.next = self.db_val.val();
                }
                self.state.d.next = TabState::RxLd;
            }
            TabState::RxLd => {
                self.rx_idx.d.next = self.cand.q.val();
                self.rx_a.d.next = self.rxa.read_data.val();
                self.rx_state_q.d.next = bit_cast::<32, 8>(self.rxc_r.state.val());
                self.rx_psn_q.d.next = bit_cast::<32, 24>(self.rxc_r.rq_psn.val());
                self.rx_ci_ld.next = self.rxc_r.rq_ci.val();
                self.rx_ci_ld_en.next = true;
                self.rx_pi_q.d.next = self.ld_pi.val();
                self.rx_ctx_load.next = true;
                self.ctx_switch_inc.next = true;
                self.state.d.next = TabState::Idle;
            }
            TabState::TxFifo => {
                // The FIFO head is read this cycle.
                self.tx_hold.next = true;
                self.state.d.next = TabState::TxRd;
            }
            TabState::TxRd => {
                // The candidate: the FIFO head (popped) or the sweep's next QP.
                self.tx_hold.next = true;
                self.pick.next = bit_cast::<32, Q>(self.sweep_idx.q.val());
                if self.from_sweep.q.val() {
                    self.sweep_idx.d.next = self.sweep_idx.q.val() + 1;
                    if self.sweep_idx.q.val() == bit_cast::<Q, 32>(self.mask.val()) {
                        self.sweep.d.next = false;
                    }
                } else if self.from_rq.q.val() {
                    self.pick.next = self.rqf.read_data.val() & self.mask.val();
                    self.rq_rp.d.next = self.rq_rp.q.val() + 1;
                } else {
                    self.pick.next = self.dbf.read_data.val() & self.mask.val();
                    self.db_rp.d.next = self.db_rp.q.val() + 1;
                }
                self.cand.d.next = self.pick.val();
                self.txa.read_address.next = bit_cast::<Q, 32>(self.pick.val());
                self.txc.read_address.next = bit_cast::<Q, 32>(self.pick.val());
                self.sqpi.read_address.next = bit_cast::<Q, 32>(self.pick.val());
                self.byp.d.next = false;
                if self.sq_db.val() && (self.sel.val() == self.pick.val()) {
                    self.byp.d.next = true;
                    self.byp_val.d.next = self.db_val.val();
                }
                self.state.d.next = TabState::TxEval;
            }
            TabState::TxEval => {
                self.tx_hold.next = true;
                self.state.d.next = TabState::Idle;
                if (self.cand.q.val() != self.tx_idx.q.val()) && self.c_work.val() {
                    // Switch: the old context back (and the QP to the back of the queue if it has more
                    // work), the candidate in.
                    self.txc.write_address.next = bit_cast::<Q, 32>(self.tx_idx.q.val());
                    self.txc.write_enable.next = true;
                    if self.cur_work.val() {
                        if self.rq_full.val() {
                            self.sweep.d.next = true;
                            self.sweep_idx.d.next = 0.into();
                        } else {
                            self.rqf.write_enable.next = true;
                            self.rq_wp.d.next = self.rq_wp.q.val() + 1;
                        }
                    }
                    self.tx_idx.d.next = self.cand.q.val();
                    self.tx_a.d.next = self.txa.read_data.val();
                    self.tx_state_q.d.next = self.c_state.val();
                    self.tx_psn_q.d.next = bit_cast::<32, 24>(self.txc_r.sq_psn.val());
                    self.tx_ci_ld.next = self.c_ci.val();
                    self.tx_ci_ld_en.next = true;
                    self.tx_k_ld.next = true;
                    self.tx_k_ld_v.next = (bit_cast::<64, 32>(self.txc_r.retransmits.val()) << 32)
                        | bit_cast::<64, 32>(self.txc_r.local_ack_timeout_err.val());
                    self.tx_pi_q.d.next = self.c_pi_db.val();
                    self.tx_served.d.next = false;
                    self.ctx_switch_inc.next = true;
                }
            }
            TabState::ErrRd => {
                self.rxc.read_address.next = bit_cast::<Q, 32>(self.cand.q.val());
                self.txc.read_address.next = bit_cast::<Q, 32>(self.cand.q.val());
                if self.err_to_rx.q.val() {
                    self.perr_rx.d.next = false;
                } else {
                    self.perr_tx.d.next = false;
                }
                self.state.d.next = TabState::ErrWr;
            }
            TabState::ErrWr => {
                self.state.d.next = TabState::Idle;
                if self.err_to_rx.q.val() {
                    if self.cand.q.val() == self.rx_idx.q.val() {
                        self.rx_state_q.d.next = self.qs_err.val();
                    } else {
                        self.rxc.write_address.next = bit_cast::<Q, 32>(self.cand.q.val());
                        self.rxc.write_data.next = self.rxc_err.word.val();
                        self.rxc.write_enable.next = true;
                    }
                } else if self.cand.q.val() == self.tx_idx.q.val() {
                    self.tx_state_q.d.next = self.qs_err.val();
                } else {
                    self.txc.write_address.next = bit_cast::<Q, 32>(self.cand.q.val());
                    self.txc.write_data.next = self.txc_err.word.val();
                    self.txc.write_enable.next = true;
                }
            }
            TabState::Clear => {
                // (doorbells keep their port: none is rung while the driver clears the table)
                self.rxa.write_address.next = bit_cast::<Q, 32>(self.clr_idx.q.val());
                self.rxc.write_address.next = bit_cast::<Q, 32>(self.clr_idx.q.val());
                self.txa.write_address.next = bit_cast::<Q, 32>(self.clr_idx.q.val());
                self.txc.write_address.next = bit_cast::<Q, 32>(self.clr_idx.q.val());
                self.av.write_address.next = bit_cast::<Q, 32>(self.clr_idx.q.val());
                self.rxa.write_data.next = 0.into();
                self.rxc.write_data.next = 0.into();
                self.txa.write_data.next = 0.into();
                self.txc.write_data.next = 0.into();
                self.av.write_data.next = 0.into();
                self.rxa.write_enable.next = true;
                self.rxc.write_enable.next = true;
                self.txa.write_enable.next = true;
                self.txc.write_enable.next = true;
                self.av.write_enable.next = true;
                if !(self.sq_db.val() || self.rq_db.val()) {
                    self.sqpi.write_address.next = bit_cast::<Q, 32>(self.clr_idx.q.val());
                    self.rqpi.write_address.next = bit_cast::<Q, 32>(self.clr_idx.q.val());
                    self.sqpi.write_data.next = 0.into();
                    self.rqpi.write_data.next = 0.into();
                    self.sqpi.write_enable.next = true;
                    self.rqpi.write_enable.next = true;
                }
                self.clr_idx.d.next = self.clr_idx.q.val() + 1;
                if self.clr_idx.q.val() == self.mask.val() {
                    // The current contexts and the scheduler start over too.
                    self.rx_idx.d.next = 0.into();
                    self.rx_state_q.d.next = self.qs_reset.val();
                    self.rx_a.d.next = 0.into();
                    self.rx_psn_q.d.next = 0.into();
                    self.rx_pi_q.d.next = 0.into();
                    self.rx_ci_ld.next = 0.into();
                    self.rx_ci_ld_en.next = true;
                    self.rx_ctx_load.next = true;
                    self.tx_idx.d.next = 0.into();
                    self.tx_state_q.d.next = self.qs_reset.val();
                    self.tx_a.d.next = 0.into();
                    self.tx_psn_q.d.next = 0.into();
                    self.tx_pi_q.d.next = 0.into();
                    self.tx_ci_ld.next = 0.into();
                    self.tx_ci_ld_en.next = true;
                    self.tx_k_ld.next = true;
                    self.db_rp.d.next = self.db_wp.q.val();
                    self.rq_rp.d.next = self.rq_wp.q.val();
                    self.sweep.d.next = false;
                    self.cmd_done.next = true;
                    self.state.d.next = TabState::Idle;
                }
            }
            _ => {
                self.state.d.next = TabState::Idle;
            }
        }
        // A load wins over a count in the same cycle, decided in one multiplexer after each adder.
        if self.tx_k_ld.val() {
            self.tx_kt_lo.d.next = bit_cast::<16, 64>(self.tx_k_ld_v.val());
            self.tx_kt_hi.d.next = bit_cast::<16, 64>(self.tx_k_ld_v.val() >> 16);
            self.tx_kr_lo.d.next = bit_cast::<16, 64>(self.tx_k_ld_v.val() >> 32);
            self.tx_kr_hi.d.next = bit_cast::<16, 64>(self.tx_k_ld_v.val() >> 48);
            self.tx_kt_c.d.next = false;
            self.tx_kr_c.d.next = false;
        } else {
            self.tx_kt_c.d.next = false;
            if self.tx_kt_c.q.val() {
                self.tx_kt_hi.d.next = self.tx_kt_hi.q.val() + 1;
            }
            if self.tx_timeout_inc.val() {
                self.tx_kt_lo.d.next = self.tx_kt_lo.q.val() + 1;
                self.tx_kt_c.d.next = self.tx_kt_lo.q.val() == 0xFFFF;
            }
            self.tx_kr_c.d.next = false;
            if self.tx_kr_c.q.val() {
                self.tx_kr_hi.d.next = self.tx_kr_hi.q.val() + 1;
            }
            if self.tx_retrans_inc.val() {
                self.tx_kr_lo.d.next = self.tx_kr_lo.q.val() + 1;
                self.tx_kr_c.d.next = self.tx_kr_lo.q.val() == 0xFFFF;
            }
        }
        if self.rx_ci_ld_en.val() {
            self.rx_ci_q.d.next = self.rx_ci_ld.val();
        } else if self.rx_ci_up.val() {
            self.rx_ci_q.d.next = self.rx_ci_q.q.val() + 1;
        }
        if self.tx_ci_ld_en.val() {
            self.tx_ci_q.d.next = self.tx_ci_ld.val();
        } else if self.tx_ci_up.val() {
            self.tx_ci_q.d.next = self.tx_ci_q.q.val() + 1;
        }
        if self.reset.val() {
            self.state.d.next = TabState::Idle;
            self.db_wp.d.next = 0.into();
            self.db_rp.d.next = 0.into();
            self.rq_wp.d.next = 0.into();
            self.rq_rp.d.next = 0.into();
            self.sweep.d.next = false;
            self.perr_rx.d.next = false;
            self.perr_tx.d.next = false;
            self.rx_idx.d.next = 0.into();
            self.tx_idx.d.next = 0.into();
            self.rx_state_q.d.next = self.qs_reset.val();
            self.tx_state_q.d.next = self.qs_reset.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qp_table_synthesizes() {
        let mut uut = QpTable::<6>::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        assert!(v.contains("module top"));
    }

    /// A test's part of a testbench: it takes the table at a rising edge and gives it back.
    type Body = fn(&mut Sim<QpTable<4>>, Box<QpTable<4>>) -> Result<Box<QpTable<4>>, SimError>;

    /// A `QpTable<4>` in rust-hdl's simulator, past its reset and the clearing of the table after it;
    /// `body` drives it from the next rising edge.
    fn after_clear(body: Body, cycles: u64) {
        let mut uut = QpTable::<4>::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<QpTable<4>>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut ep: Sim<QpTable<4>>| {
            let mut x = ep.init()?;
            x.reset.next = true;
            wait_clock_cycles!(ep, clock, x, 2);
            x.reset.next = false;
            wait_clock_cycles!(ep, clock, x, 40);
            wait_clock_true!(ep, clock, x);
            let x = body(&mut ep, x)?;
            ep.done(x)
        });
        sim.run(Box::new(uut), cycles * 10).unwrap();
    }

    #[test]
    fn per_qp_counters_carry_into_their_high_half() {
        // 65,537 retransmissions and timeouts back to back on the current QP (QP 0 after the clear):
        // the low halves wrap and the carry reaches the high halves; a QUERY reads both counters whole.
        after_clear(
            |ep, mut x| {
                x.tx_retrans_inc.next = true;
                x.tx_timeout_inc.next = true;
                wait_clock_cycles!(ep, clock, x, 65_537);
                x.tx_retrans_inc.next = false;
                // One timeout more, alone, right after the wrap's carry.
                wait_clock_cycles!(ep, clock, x, 1);
                x.tx_timeout_inc.next = false;
                x = command(ep, x, 0, 8)?;
                wait_clock_cycles!(ep, clock, x, 2);
                assert_eq!(x.q_retrans.val().to_u64(), 65_537);
                assert_eq!(x.q_timeouts.val().to_u64(), 65_538);
                Ok(x)
            },
            70_000,
        );
    }

    /// The scheduler's doorbell FIFO holds 2^Q QPs wherever its pointers stand: five doorbells go in
    /// and the scheduler takes them, then with the scheduler held 2^Q more go in and the next ones find
    /// it full (counted; the scheduler then sweeps every QP).
    #[test]
    fn the_doorbell_fifo_holds_two_to_the_q_then_overflows() {
        after_clear(
            |ep, mut x| {
                let mut overflow = Vec::new();
                for round in [5u64, 18] {
                    for i in 0..round {
                        x.sel.next = (i % 16).into();
                        x.db_val.next = (i + 1).into();
                        x.sq_db.next = true;
                        wait_clock_false!(ep, clock, x);
                        overflow.push(x.db_overflow_inc.val());
                        wait_clock_true!(ep, clock, x);
                    }
                    x.sq_db.next = false;
                    // The scheduler takes what is queued (QPs in RESET: nothing to send), then is held.
                    x.tx_sw_ok.next = round == 5;
                    wait_clock_cycles!(ep, clock, x, 40);
                    x.tx_sw_ok.next = false;
                    wait_clock_true!(ep, clock, x);
                }
                let want: Vec<bool> = (0..23).map(|i| i >= 5 + 16).collect();
                assert_eq!(
                    overflow, want,
                    "5 taken, then 16 queued; the 17th and 18th overflow"
                );
                Ok(x)
            },
            10_000,
        );
    }

    /// Runs host command `cmd` on QP `qpn` and waits for its `cmd_done`.
    fn command(
        ep: &mut Sim<QpTable<4>>,
        mut x: Box<QpTable<4>>,
        qpn: u64,
        cmd: u64,
    ) -> Result<Box<QpTable<4>>, SimError> {
        x.sel.next = qpn.into();
        x.cmd.next = cmd.into();
        loop {
            wait_clock_false!(ep, clock, x);
            let done = x.cmd_done.val();
            wait_clock_true!(ep, clock, x);
            if done {
                break;
            }
        }
        x.cmd.next = 0.into();
        Ok(x)
    }

    /// Rings QP `qpn`'s send queue doorbell with producer index `pi` for one cycle.
    fn ring(
        ep: &mut Sim<QpTable<4>>,
        mut x: Box<QpTable<4>>,
        qpn: u64,
        pi: u64,
    ) -> Result<Box<QpTable<4>>, SimError> {
        x.sel.next = qpn.into();
        x.db_val.next = pi.into();
        x.sq_db.next = true;
        wait_clock_cycles!(ep, clock, x, 1);
        x.sq_db.next = false;
        Ok(x)
    }

    /// A doorbell rung while the scheduler looks at its QP is never lost, whichever cycle of the look
    /// it lands in: a first doorbell (with or without new work) queues QP 3 or 5, a second one `k`
    /// cycles later brings more; the QP must end current with the second producer index. (Whether a
    /// QP has work is decided on the index before the cycle; a doorbell in that cycle reaches the
    /// index loaded, or queues the QP again.)
    #[test]
    fn a_doorbell_during_the_schedulers_look_is_not_lost() {
        after_clear(
            |ep, mut x| {
                x.w_state.next = (QpState::Rts as u64).into();
                x = command(ep, x, 3, 1)?;
                x = command(ep, x, 5, 1)?;
                x.tx_sw_ok.next = true;
                let mut pi = [0u64; 16];
                for round in 0..32u64 {
                    let qpn = if round % 2 == 0 { 3 } else { 5 };
                    let k = (round / 2) % 8;
                    let work = round / 16;
                    let first = pi[qpn as usize] + work;
                    let second = first + 1;
                    x = ring(ep, x, qpn, first)?;
                    if k > 0 {
                        wait_clock_cycles!(ep, clock, x, k);
                    }
                    x = ring(ep, x, qpn, second)?;
                    wait_clock_cycles!(ep, clock, x, 20);
                    wait_clock_false!(ep, clock, x);
                    assert_eq!(x.tx_qpn.val().to_u64(), qpn, "round {round}: QP current");
                    assert_eq!(
                        x.tx_sq_pi.val().to_u64(),
                        second,
                        "round {round}: the second doorbell's index"
                    );
                    wait_clock_true!(ep, clock, x);
                    // The engine takes the work: the QP has none left and the scheduler may move on.
                    while x.tx_sq_ci.val().to_u64() != second {
                        x.tx_sq_ci_inc.next = true;
                        wait_clock_cycles!(ep, clock, x, 1);
                        x.tx_sq_ci_inc.next = false;
                        wait_clock_cycles!(ep, clock, x, 1);
                    }
                    pi[qpn as usize] = second;
                }
                Ok(x)
            },
            10_000,
        );
    }
}
