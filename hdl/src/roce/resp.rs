//! Receive engine of one RC QP: the receive checks (rxe's `recv`), the RESPONDER for RDMA WRITE and SEND
//! (`resp`, IBA vol1 §9.7.5) and the part of the COMPLETER that consumes ACKs and NAKs (`comp`, §9.7.6),
//! which it hands to the requester (`req`).
//!
//! Frames come from the receive buffer already ICRC-checked. Per packet: read the metadata and header
//! words, decode, check QP, PSN, opcode sequence, length and R_Key, then either write the payload to host
//! memory by DMA or answer with an ACK/NAK. Duplicates are re-ACKed, not re-executed (§9.7.5.1.2).
use super::recv_check::RecvCheck;
use super::recv_hdr::RecvHdr;
use crate::host::sgl_sum::{self, SglSum};
use crate::prim::funnel::FunnelShift;
use crate::roce::ctx::{RespEngineCtxPack, RespEngineCtxUnpack};
use crate::roce::qp_table::RX_VEC;
use rocenic_proto::aeth;
use rocenic_proto::host::recv_wqe::{ADDR, NUM_SGE, WR_ID};
use rocenic_proto::host::WQE_128_BYTES;
use rocenic_proto::host::{QpState, WcOpcode, WcStatus};
use rocenic_proto::wire::ipv4_frame as F;
use rocenic_proto::wire::ipv6_frame as G;
use rust_hdl::prelude::*;

#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
enum RespState {
    Idle,
    /// Reading the metadata word and the header words.
    Header,
    /// The header's fields are registered (roce::recv_hdr, first stage).
    Fields,
    /// The checks against the QP load (roce::recv_check), once the QP is current and the MR entry is in.
    Check,
    /// The R_Key results' second stage, for a packet that names an R_Key (a RETH with a length, an
    /// AtomicETH, an IETH).
    Bounds,
    /// Decide what the packet is, from the registered checks (`RxAct`).
    Decode,
    /// Act on that verdict: set what it sets, free the packet or go on to its payload.
    Act,
    /// Fetch the receive WQE a SEND lands in.
    RqFetch,
    RqData,
    /// A 128-byte WQE's scatter list: its length added up, then checked against the WQE's.
    RqSum,
    RqList,
    /// Prime the two-word window that realigns the payload to the host address.
    Prime0,
    Prime1,
    /// Write the payload, one host word per cycle.
    Data,
    /// Post a receive completion.
    Complete,
    /// Atomic (§9.4.5): read the 8-byte word, compute, write it back; then hand the ATOMIC ACKNOWLEDGE to
    /// the transmit engine. The requester side lands an ATOMIC ACKNOWLEDGE's value with AtWrite too.
    AtRead,
    AtData,
    /// The new value: FETCH_ADD's sums (32-bit halves: the high half's and its successor, registered),
    /// COMPARE_SWAP's compare.
    AtSum,
    /// FETCH_ADD: the low half's carry picks the high half's sum; COMPARE_SWAP: the swap value if the
    /// compare held, else no write.
    AtPick,
    AtWrite,
    AtDone,
    /// Free the frame in the receive buffer.
    Pop,
    /// The packet's QP is not the current one: once no ACK, CNP or READ job of the current QP is pending,
    /// ask the QP table for it and wait (then Decode again).
    CtxWait,
}

/// What a packet gets (Decode's verdict, in the order the receive checks apply; Act carries it out).
#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
enum RxAct {
    /// Not for a receiving QP, not an operation it serves, or a response not expected: counted.
    Drop,
    /// Not from the QP's peer.
    DropSrc,
    /// A CNP for the QP (the reaction point).
    Cnp,
    /// An ACK or NAK for the requester.
    Ack,
    /// The READ response expected: land it.
    ReadLand,
    /// The ATOMIC ACKNOWLEDGE expected: land its value.
    AtomicLand,
    /// A READ response or ATOMIC ACKNOWLEDGE not expected: dropped; one ahead of the one expected is a
    /// sequence NAK to the requester (implied NAK; `rd_ahead` is read in Act).
    Stale,
    /// A READ or atomic while the last one waits for the transmit engine: decide again.
    Wait,
    DupRead,
    /// A duplicate atomic older than the result cache, or a duplicate with nothing to send.
    Dup,
    /// A duplicate atomic whose result is cached: sent again.
    DupAtomic,
    /// A duplicate WRITE or SEND: re-ACKed.
    DupAck,
    SeqErr,
    InvalidRequest,
    /// An IETH whose R_Key may not be invalidated.
    InvalidInvalidate,
    RemoteAccess,
    Atomic,
    Read,
    /// SEND MIDDLE or LAST.
    SendCont,
    /// SEND FIRST or ONLY with a receive WQE.
    Send,
    /// A SEND or WRITE with immediate with no receive WQE.
    Rnr,
    Write,
}

#[derive(LogicBlock)]
pub struct RxEngine<const W: usize, const B: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    // configuration
    pub enable: Signal<In, bool>,
    pub qp_state: Signal<In, Bits<32>>,
    pub qpn: Signal<In, Bits<32>>,
    pub dest_qpn: Signal<In, Bits<32>>,
    pub pmtu: Signal<In, Bits<32>>,
    pub rq_psn: Signal<In, Bits<32>>,
    pub qp_pd: Signal<In, Bits<32>>,
    /// The QP's peer address (DEST_IPV4; an IPv6 peer's last 32 bits): packets from another are dropped.
    pub qp_peer_ip: Signal<In, Bits<32>>,
    pub rq_base_lo: Signal<In, Bits<32>>,
    pub rq_base_hi: Signal<In, Bits<32>>,
    pub rq_log_size: Signal<In, Bits<32>>,
    pub rq_pi: Signal<In, Bits<32>>,
    pub rq_ci: Signal<In, Bits<32>>,
    // Memory-region table: base IOVA, end, key, access flags and PD per slot.
    /// MR table lookup (roce::mr_table): the key this packet needs, presented every cycle; the entry
    /// comes back the next cycle with the key it was read for and whether it is still current.
    pub mr_lk_key: Signal<Out, Bits<32>>,
    /// Invalidate the entry of `mr_lk_key` this cycle (SEND with invalidate, checked).
    pub mr_inv: Signal<Out, bool>,
    /// The engine checks the entry it read and acts on it: the MR table holds host commands.
    pub mr_hold: Signal<Out, bool>,
    pub mr_for: Signal<In, Bits<32>>,
    pub mr_fresh: Signal<In, bool>,
    pub mr_base: Signal<In, Bits<64>>,
    pub mr_end: Signal<In, Bits<64>>,
    pub mr_key: Signal<In, Bits<32>>,
    pub mr_access: Signal<In, Bits<32>>,
    pub mr_pd: Signal<In, Bits<32>>,
    // register updates and counters
    pub rq_psn_set: Signal<Out, bool>,
    pub rq_psn_val: Signal<Out, Bits<32>>,
    pub qp_err: Signal<Out, bool>,
    pub rq_ci_inc: Signal<Out, bool>,
    pub last_syndrome: Signal<Out, Bits<32>>,
    pub drop_qp_inc: Signal<Out, bool>,
    /// A packet for a receiving QP from another source address than its peer's, dropped.
    pub drop_src_inc: Signal<Out, bool>,
    pub rx_acks_inc: Signal<Out, bool>,
    pub rx_naks_inc: Signal<Out, bool>,
    pub dup_inc: Signal<Out, bool>,
    pub seq_err_inc: Signal<Out, bool>,
    pub rem_access_inc: Signal<Out, bool>,
    pub inv_err_inc: Signal<Out, bool>,
    /// RNR NAK timer code this responder sends (MIN_RNR_TIMER).
    pub min_rnr_timer: Signal<In, Bits<32>>,
    /// The QP's qp_access_flags (REMOTE_WRITE 2, REMOTE_READ 4, REMOTE_ATOMIC 8).
    pub qp_access: Signal<In, Bits<32>>,
    pub tx_rnr_naks_inc: Signal<Out, bool>,
    pub rx_rnr_naks_inc: Signal<Out, bool>,
    pub rx_seq_naks_inc: Signal<Out, bool>,
    pub rx_remote_access_naks_inc: Signal<Out, bool>,
    pub rx_invalid_request_naks_inc: Signal<Out, bool>,
    /// Congestion notification (RoCEv2 annex A17.9): the notification point asks for a CNP (held until
    /// taken) when a CE-marked packet arrives, at most once per CNP_INTERVAL cycles; a CNP received is
    /// counted for the reaction point.
    pub cnp_interval: Signal<In, Bits<32>>,
    /// Fast-forward (simulation; 0 in hardware): this clock edge stands for `1 + warp` cycles. Only the
    /// time base `now` counts them; it is read on arrivals only, so no skip needs bounding.
    pub warp: Signal<In, Bits<32>>,
    pub cnp_valid: Signal<Out, bool>,
    pub cnp_taken: Signal<In, bool>,
    pub ecn_marked_inc: Signal<Out, bool>,
    pub rp_cnp_inc: Signal<Out, bool>,
    /// Multi-QP (roce::qp_table): the per-QP inputs above are the current QP's; `want_qpn` names the
    /// packet's, `ctx_hit` says it is current. The per-QP registers of this engine go out as `ctx_out` and
    /// come back with `ctx_load`.
    pub ctx_want: Signal<Out, bool>,
    pub want_qpn: Signal<Out, Bits<32>>,
    pub ctx_hit: Signal<In, bool>,
    pub ctx_load: Signal<In, bool>,
    pub ctx_in: Signal<In, Bits<RX_VEC>>,
    pub ctx_out: Signal<Out, Bits<RX_VEC>>,
    // receive buffer
    pub buf_pending: Signal<In, bool>,
    pub buf_head: Signal<In, Bits<A>>,
    pub buf_rd_addr: Signal<Out, Bits<A>>,
    pub buf_rd_data: Signal<In, Bits<W>>,
    /// The frame's length in bytes (bits 0..15), over IPv6 (bit 16), priority (bits 20..22).
    pub buf_meta: Signal<In, Bits<32>>,
    pub buf_pop: Signal<Out, bool>,
    // ACK/NAK to send (held until taken) and ACK/NAK received (pulse)
    pub ack_valid: Signal<Out, bool>,
    pub ack_syndrome: Signal<Out, Bits<8>>,
    pub ack_psn: Signal<Out, Bits<24>>,
    pub ack_msn: Signal<Out, Bits<24>>,
    /// The pending ACK/NAK's fields are new this cycle.
    pub ack_new: Signal<Out, bool>,
    pub ack_taken: Signal<In, bool>,
    // An RDMA READ to execute: the transmit engine sends its responses (held until taken).
    pub rr_valid: Signal<Out, bool>,
    pub rr_va: Signal<Out, Bits<64>>,
    pub rr_len: Signal<Out, Bits<32>>,
    pub rr_psn: Signal<Out, Bits<24>>,
    pub rr_msn: Signal<Out, Bits<24>>,
    pub rr_atomic: Signal<Out, bool>,
    pub rr_orig: Signal<Out, Bits<64>>,
    pub rr_taken: Signal<In, bool>,
    // The requester's RDMA READ in progress (from the transmit engine), whose responses land here.
    pub rd_active: Signal<In, bool>,
    pub rd_atomic: Signal<In, bool>,
    pub rd_psn0: Signal<In, Bits<24>>,
    pub rd_laddr: Signal<In, Bits<64>>,
    /// The READ's local buffer is the list `rd_sgl` (its first `rd_sgl_n` entries): `rd_laddr` is 0
    /// and its responses' bursts are offsets in the list.
    pub rd_scatter: Signal<In, bool>,
    pub rd_sgl: Signal<In, Bits<512>>,
    pub rd_sgl_n: Signal<In, Bits<3>>,
    pub rd_len: Signal<In, Bits<32>>,
    pub rd_restart: Signal<In, bool>,
    pub rd_restart_idx: Signal<In, Bits<24>>,
    /// The transmit engine dropped its READ contexts (it went back, or the QP left RTS): a READ
    /// response or ATOMIC ACKNOWLEDGE under way writes nothing more and does not land.
    pub rd_withdraw: Signal<In, bool>,
    /// The READ context's last response (or its ATOMIC ACKNOWLEDGE) landed: the transmit engine moves
    /// the context to its next outstanding READ, whose first response is expected next.
    pub rd_done: Signal<Out, bool>,
    pub rx_ack_valid: Signal<Out, bool>,
    /// The pulse is a READ response or ATOMIC ACKNOWLEDGE that landed, not an ACK packet.
    pub rx_ack_resp: Signal<Out, bool>,
    pub rx_ack_syndrome: Signal<Out, Bits<8>>,
    pub rx_ack_psn: Signal<Out, Bits<24>>,
    /// A READ response ahead of the one expected was taken as an implied NAK (implied_nak_seq_err).
    pub implied_nak_inc: Signal<Out, bool>,
    // DMA read (receive WQEs) and write (payload)
    pub rd_req_valid: Signal<Out, bool>,
    pub rd_req_ready: Signal<In, bool>,
    pub rd_req_addr: Signal<Out, Bits<64>>,
    pub rd_req_beats: Signal<Out, Bits<16>>,
    pub rd_resp_valid: Signal<In, bool>,
    pub rd_resp_data: Signal<In, Bits<W>>,
    pub rd_resp_last: Signal<In, bool>,
    pub rd_resp_ready: Signal<Out, bool>,
    pub wr_valid: Signal<Out, bool>,
    pub wr_ready: Signal<In, bool>,
    /// No written word is still on its way to the host (host::scatter holds none): a completion
    /// waits for it, as the CQE writer goes first at the DMA write port.
    pub wr_idle: Signal<In, bool>,
    pub wr_addr: Signal<Out, Bits<64>>,
    pub wr_data: Signal<Out, Bits<W>>,
    pub wr_strb: Signal<Out, Bits<B>>,
    /// The word is the last of its burst (a packet's payload, or an atomic's one word): host::write_align.
    pub wr_last: Signal<Out, bool>,
    /// The burst is a SEND's payload into a scatter list: `wr_addr` is a message offset in `wr_sgl`'s
    /// first `wr_sgl_n` entries (host::scatter).
    pub wr_scatter: Signal<Out, bool>,
    pub wr_sgl: Signal<Out, Bits<512>>,
    pub wr_sgl_n: Signal<Out, Bits<3>>,
    // receive completion
    pub cqe_valid: Signal<Out, bool>,
    pub cqe_ready: Signal<In, bool>,
    pub cqe_wr_id: Signal<Out, Bits<64>>,
    pub cqe_byte_len: Signal<Out, Bits<32>>,
    pub cqe_status: Signal<Out, Bits<8>>,
    pub cqe_opcode: Signal<Out, Bits<8>>,
    pub cqe_src_qp: Signal<Out, Bits<32>>,
    pub cqe_imm: Signal<Out, Bits<32>>,
    pub cqe_flags: Signal<Out, Bits<8>>,
    state: DFF<RespState>,
    /// Decode's verdict, and what the checks said with it that can change before Act reads it (the
    /// requester's READ in progress, RQ_PSN): taken every cycle, Act reads the Decode cycle's.
    act: DFF<RxAct>,
    /// `write_total` is not zero, a cycle after it (it loads at least two cycles before Decode).
    wt_nz: DFF<bool>,
    /// Registered ahead of the states that read them (their inputs hold for at least a cycle before):
    /// the payload bytes not yet written (`pay_len - jB`, counted down with j), the SEND does not fit
    /// its receive buffer (loaded with the buffer's length from the WQE), the completion's byte count,
    /// the message's next address's low half (dst + payload), the packet's PSN + 1.
    ll: DFF<Bits<16>>,
    too_long: DFF<bool>,
    tl_wqe: Signal<Local, bool>,
    /// The receive WQE's LENGTH on the read beat (a 32-bit signal: compared at its own width).
    wqe_len32: Signal<Local, Bits<32>>,
    tl_reg: Signal<Local, bool>,
    tl_pick: Signal<Local, bool>,
    cbl: DFF<Bits<32>>,
    wv_lo_q: DFF<Bits<33>>,
    psn_p1: DFF<Bits<24>>,
    len_bad: Signal<Local, bool>,
    s_psn_prev: DFF<Bits<24>>,
    s_rq_psn: DFF<Bits<24>>,
    /// The packet's header fields (roce::recv_hdr) and its checks against the QP (roce::recv_check).
    rh: RecvHdr<W>,
    chk: RecvCheck<B>,
    /// AETH syndromes (`rocenic_proto::aeth`): an ACK and an RNR NAK, the value bits (an RNR NAK's
    /// timer), an ACK without a credit count, and the NAK codes the responder sends.
    aeth_ack: Constant<Bits<8>>,
    aeth_rnr_nak: Constant<Bits<8>>,
    aeth_value: Constant<Bits<32>>,
    aeth_ack_no_credits: Constant<Bits<8>>,
    nak_psn_seq: Constant<Bits<8>>,
    nak_invalid_req: Constant<Bits<8>>,
    nak_remote_access: Constant<Bits<8>>,
    nak_remote_op: Constant<Bits<8>>,
    /// QP states (`rocenic_proto::host::QpState`).
    qs_reset: Constant<Bits<32>>,
    qs_init: Constant<Bits<32>>,
    qs_err: Constant<Bits<32>>,
    /// Completion opcodes (`rocenic_proto::host::WcOpcode`).
    wc_recv: Constant<Bits<8>>,
    wc_recv_rdma_with_imm: Constant<Bits<8>>,
    /// ibv_wc_status SUCCESS.
    wc_success: Constant<Bits<8>>,
    k: DFF<Bits<16>>,
    /// In Header: k - 1 (the slot word k - 1 is written to), kept beside k so that the header's
    /// write enables are not behind a subtract.
    k_m1: DFF<Bits<5>>,
    /// Header word k - 1 is written this cycle (in Header with k not 0), registered with the state.
    h_fill: DFF<bool>,
    /// Receive buffer addresses: header word k (`buf_head + k`), the payload's first word (Act), the
    /// payload's word 0 and 1 (Prime0, Prime1), and in Data the word j + 1 and j + 2.
    a_hk: DFF<Bits<A>>,
    a_hdr: DFF<Bits<A>>,
    a_hdr1: DFF<Bits<A>>,
    a_hdr2: DFF<Bits<A>>,
    /// Act goes on to the payload itself (Prime1's work) for a WRITE or the READ response expected.
    prime: Signal<Local, bool>,
    /// The state the verdict goes to (Decode), and whether the length check ranks above it.
    act_go: DFF<RespState>,
    act_len: DFF<bool>,
    /// Cycles since the QP's last CNP (as `now - cnp_last`, a cycle's register in step with `now`):
    /// read only when a CE-marked packet is decided, so fast-forward treats it as a timer.
    cnp_age: DFF<Bits<32>>,
    /// The payload's second word, which the prime addresses.
    prime_at: Signal<Local, Bits<A>>,
    /// The word after it (a register of its own: no add behind the pick).
    prime_at1: Signal<Local, Bits<A>>,
    /// An error NAK (syndrome `nak_fatal_syn`) at the packet's PSN, the QP to ERR (§9.9.3.1.2).
    nak_fatal: Signal<Local, bool>,
    nak_fatal_syn: Signal<Local, Bits<8>>,
    a_pw0: DFF<Bits<A>>,
    a_pw1: DFF<Bits<A>>,
    a_pw2: DFF<Bits<A>>,
    a_cur: DFF<Bits<A>>,
    a_nxt: DFF<Bits<A>>,
    /// The packet came over IPv6 (receive buffer metadata bit 16).
    v6: DFF<bool>,
    // decoded packet
    psn: DFF<Bits<24>>,
    pay_word: DFF<Bits<A>>,
    /// The payload's lane in its first buffer word: the realigning window's offset (`realign`).
    shift: DFF<Bits<16>>,
    realign: FunnelShift<W, B>,
    // responder context (IBA §9.7.5: expected PSN lives in RQ_PSN; MSN and the write in progress here)
    msn: DFF<Bits<24>>,
    nak_sent: DFF<bool>,
    in_write: DFF<bool>,
    /// Inside a multi-packet SEND (after FIRST, until LAST).
    in_send: DFF<bool>,
    /// Next host address of the message in progress (write or send).
    write_va: DFF<Bits<64>>,
    write_left: DFF<Bits<32>>,
    /// DMA length of the write in progress (a WRITE with immediate reports it as byte_len).
    write_total: DFF<Bits<32>>,
    /// MR slot and R_Key of the WRITE in progress: MIDDLE/LAST packets are checked against them too.
    write_rkey: DFF<Bits<32>>,
    // the data transfer
    dst: DFF<Bits<64>>,
    /// The destination's high half plus one, a cycle after `dst` loads (every load of `dst` is at least
    /// a cycle before `Data` and `Complete` read it): the 64-bit adds on `dst` become a 32-bit add whose
    /// carry picks the high half or this.
    dst_hi1: DFF<Bits<32>>,
    rq_off: DFF<Bits<64>>,
    rq_s_lo: DFF<Bits<33>>,
    rq_s_hi: DFF<Bits<32>>,
    rq_addr: DFF<Bits<64>>,
    rq_off_hi: Signal<Local, Bits<32>>,
    rq_c: Signal<Local, Bits<32>>,
    rq_hi_c: Signal<Local, Bits<32>>,
    dst_hi: Signal<Local, Bits<32>>,
    wa_lo: Signal<Local, Bits<33>>,
    wv_lo: Signal<Local, Bits<33>>,
    j: DFF<Bits<16>>,
    nwords: DFF<Bits<16>>,
    /// nwords - 2, a cycle after nwords (Decode and Prime0 load nwords at least two cycles before Data
    /// reads this), and whether nwords is 0: Data reads `j_last` (word j is the last) and `nw_zero`,
    /// both registers, so the state's next value is not behind a 16-bit compare.
    nwords_m2: DFF<Bits<16>>,
    nw_zero: DFF<bool>,
    j_last: DFF<bool>,
    prev: DFF<Bits<W>>,
    recv_wr_id: DFF<Bits<64>>,
    /// Receive buffer bytes still free for the SEND in progress.
    recv_len: DFF<Bits<32>>,
    /// Bytes of the SEND in progress received so far (the completion's byte_len).
    send_total: DFF<Bits<32>>,
    /// The scatter list of the last 128-byte receive WQE fetched (RQ_WQE_128), for QP `sgl_qpn`: a
    /// one-entry cache, so a SEND's MIDDLE/LAST packets refetch it only when another QP's WQE came
    /// between (its context does not hold the list).
    sgl_buf: DFF<Bits<512>>,
    /// The length of `sgl_buf`'s list (its counted entries' sum).
    sgl_total: SglSum,
    sgl_nsge: DFF<Bits<8>>,
    sgl_qpn: DFF<Bits<32>>,
    sgl_ok: DFF<bool>,
    /// `sgl_buf` holds the current QP's list.
    sgl_mine: DFF<bool>,
    /// The fetch in progress only reloads the list (a MIDDLE/LAST packet after another QP's WQE).
    relist: DFF<bool>,
    // READ to hand to the transmit engine
    rr_pend: DFF<bool>,
    rr_va_q: DFF<Bits<64>>,
    rr_len_q: DFF<Bits<32>>,
    rr_psn_q: DFF<Bits<24>>,
    rr_msn_q: DFF<Bits<24>>,
    rr_atomic_q: DFF<bool>,
    rr_orig_q: DFF<Bits<64>>,
    // the atomic being executed, and the last one executed (replayed to a duplicate, §9.4.5)
    at_va: DFF<Bits<64>>,
    at_val: DFF<Bits<64>>,
    at_orig: DFF<Bits<64>>,
    /// The high half of the FETCH_ADD operand plus one (modulo 2^32): the high half's sum when the low
    /// half carries.
    at_add_hi1: DFF<Bits<32>>,
    at_req_side: DFF<bool>,
    // Entry 0 of the QP's atomic result cache; entries 1..3 below. The responder keeps the results of its
    // last ATOMIC_RESULTS (proto::regs) atomics, its max_qp_rd_atom, so a requester with that many
    // outstanding can ask for any of them again (§9.4.5). `ac_next` is the entry written next (the oldest).
    ac_valid: DFF<bool>,
    ac_psn: DFF<Bits<24>>,
    ac_orig: DFF<Bits<64>>,
    ac_valid1: DFF<bool>,
    ac_psn1: DFF<Bits<24>>,
    ac_orig1: DFF<Bits<64>>,
    ac_valid2: DFF<bool>,
    ac_psn2: DFF<Bits<24>>,
    ac_orig2: DFF<Bits<64>>,
    ac_valid3: DFF<bool>,
    ac_psn3: DFF<Bits<24>>,
    ac_orig3: DFF<Bits<64>>,
    ac_next: DFF<Bits<2>>,
    /// The packet's PSN is in the cache (a duplicate atomic that can be answered), and its result.
    ac_hit: DFF<bool>,
    ac_hit_orig: DFF<Bits<64>>,
    /// Per-QP counters (rdma-core names), kept in the QP's context: out_of_sequence (PSN sequence errors
    /// seen as responder), duplicate_request, packet_seq_err (sequence NAKs received as requester).
    qc_oos: DFF<Bits<32>>,
    qc_dup: DFF<Bits<32>>,
    qc_seq_nak: DFF<Bits<32>>,
    /// Index of the next READ response the requester expects.
    rd_exp: DFF<Bits<24>>,
    /// The READ context changed under the packet (withdrawn, or restarted by a READ request going out)
    /// since it started: a response under way lands nothing and counts as lost (roce::recv_check takes
    /// the context the packet is checked against before its header is in).
    rr_void: DFF<bool>,
    /// Implied NAK (IBA §9.7.6; the implied_nak_seq_err counter): a READ response ahead of `rd_exp`
    /// means the ones between were lost, and the READ is re-issued at once from `rd_exp` instead of after
    /// the local ACK timeout. Armed by the READ's request and by each response landed; disarmed by an
    /// implied NAK until a response lands again, so the rest of the old burst, still arriving after the
    /// re-issue, is dropped instead of restarting the READ once per packet. `imp_wait`: the next request
    /// out is that re-issue (it does not arm).
    imp_arm: DFF<bool>,
    imp_wait: DFF<bool>,
    cnp_pend: DFF<bool>,
    /// Cycles since the last CNP was asked for (saturating).
    /// Cycle counter; the cycle of this QP's last CNP request, and whether there was one.
    now: DFF<Bits<32>>,
    cnp_last: DFF<Bits<32>>,
    cnp_seen: DFF<bool>,
    /// The per-QP registers packed for the QP table, and unpacked from it (RESP_ENGINE_CTX).
    ctx_w: RespEngineCtxPack,
    ctx_r: RespEngineCtxUnpack,
    // pending ACK/NAK
    ack_pend: DFF<bool>,
    ack_syn: DFF<Bits<8>>,
    ack_psn_q: DFF<Bits<24>>,
    ack_msn_q: DFF<Bits<24>>,
    last_syn: DFF<Bits<32>>,
    // combinational decode
    /// This QP's receive WQEs take 128 bytes (RQ_LOG_SIZE bit 5, `RQ_WQE_128`).
    rq128: Signal<Local, bool>,
    rq_slot: Signal<Local, Bits<64>>,
    /// A SEND FIRST/ONLY's scatter list does not describe its WQE's length (or has too many entries).
    sgl_bad: DFF<bool>,
    pay_len32: Signal<Local, Bits<32>>,
    at_off: Signal<Local, Bits<16>>,
    at_word: Signal<Local, Bits<64>>,
    /// The cached WQE scatters (a 128-byte WQE with NUM_SGE > 1): the SEND's addresses are message
    /// offsets. From the registered NUM_SGE, not the read beat: no compare behind the beat's select.
    sgl_scatter: Signal<Local, bool>,
    at_sum_lo: Signal<Local, Bits<33>>,
    at_orig_hi: Signal<Local, Bits<32>>,
    at_add_hi: Signal<Local, Bits<32>>,
    at_sum_hi: Signal<Local, Bits<32>>,
    at_sum_hi0: Signal<Local, Bits<32>>,
    at_sum_hi1: Signal<Local, Bits<32>>,
    /// The halves' sums registered (AtSum), picked in AtPick.
    at_lo_q: DFF<Bits<33>>,
    at_hi0_q: DFF<Bits<32>>,
    at_hi1_q: DFF<Bits<32>>,
    /// COMPARE_SWAP's compare, registered (AtSum) for AtPick.
    at_eq: DFF<bool>,
    rd_fin: DFF<bool>,
    at_carry: Signal<Local, Bits<32>>,
    lanes_left: Signal<Local, Bits<16>>,
    out_word: Signal<Local, Bits<W>>,
    send_ack: Signal<Local, bool>,
    ack_syn_l: Signal<Local, Bits<8>>,
    ack_psn_l: Signal<Local, Bits<24>>,
    ack_msn_l: Signal<Local, Bits<24>>,
    /// The ACK/NAK asked for, registered before it becomes the pending one (`ack_pend`): what asks for
    /// it is behind the state's whole decision.
    ack_rq: DFF<bool>,
    ack_rq_syn: DFF<Bits<8>>,
    ack_rq_psn: DFF<Bits<24>>,
    ack_rq_msn: DFF<Bits<24>>,
    /// `ack_new`: the pending ACK/NAK took new fields a cycle ago (they are the outputs' now).
    ack_chg: DFF<bool>,
    /// The write port carries the atomic's 8-byte word (AtWrite), not payload (Data): set in Act by the
    /// verdict, so the port's pick is a flip-flop rather than a decode of the state.
    at_sel: DFF<bool>,
    /// The QP state's compares, registered (a cycle late, and not across a context load): RESET; RESET
    /// or ERR; RESET or INIT.
    st_reset: DFF<bool>,
    st_reset_err: DFF<bool>,
    st_le_init: DFF<bool>,
    /// Header words to read at most and at least (IPv4 or IPv6).
    hw_max: Signal<Local, Bits<16>>,
    hw_min: Signal<Local, Bits<16>>,
    k5: Signal<Local, Bits<5>>,
    hw_max_m1: Signal<Local, Bits<16>>,
    hw_min_m1: Signal<Local, Bits<16>>,
    k_max: DFF<bool>,
    k_min: DFF<bool>,
    hdr_words_a: Signal<Local, Bits<A>>,
    psn_next: Signal<Local, Bits<24>>,
    /// RqSum's last cycle (k counts from 0): the list's sum is valid the cycle after.
    sum_wait: Constant<Bits<16>>,
    // constants
    beat_bytes: Constant<Bits<16>>,
    log_b: Constant<Bits<16>>,
    hdr_words: Constant<Bits<16>>,
    /// Slot words to read before the BTH's opcode and pad count are in `hdr` (so the header length and the
    /// payload length can be computed from it).
    hdr_min: Constant<Bits<16>>,
    /// The same over IPv6 (headers 20 bytes longer).
    hdr_words6: Constant<Bits<16>>,
    need_cmp: Constant<bool>,
    hdr_min6: Constant<Bits<16>>,
    wqe_beats: Constant<Bits<16>>,
    wqe_wrid_beat: Constant<Bits<16>>,
    wqe_wrid_shift: Constant<Bits<16>>,
    wqe_addr_beat: Constant<Bits<16>>,
    wqe_addr_shift: Constant<Bits<16>>,
    ones: Constant<Bits<B>>,
    low_mask: Constant<Bits<64>>,
    wqe128_beats: Constant<Bits<16>>,
    w_bits: Constant<Bits<16>>,
    sgl_in_shift: Constant<Bits<16>>,
    sh_nsge: Constant<Bits<16>>,
}

impl<const W: usize, const B: usize, const A: usize> Default for RxEngine<W, B, A> {
    fn default() -> Self {
        assert_eq!(W, 8 * B);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            qp_state: Default::default(),
            qpn: Default::default(),
            dest_qpn: Default::default(),
            pmtu: Default::default(),
            rq_psn: Default::default(),
            qp_pd: Default::default(),
            qp_peer_ip: Default::default(),
            rq_base_lo: Default::default(),
            rq_base_hi: Default::default(),
            rq_log_size: Default::default(),
            rq_pi: Default::default(),
            rq_ci: Default::default(),
            mr_lk_key: Default::default(),
            mr_inv: Default::default(),
            mr_for: Default::default(),
            mr_fresh: Default::default(),
            mr_base: Default::default(),
            mr_end: Default::default(),
            mr_hold: Default::default(),
            mr_key: Default::default(),
            mr_access: Default::default(),
            mr_pd: Default::default(),
            rq_psn_set: Default::default(),
            rq_psn_val: Default::default(),
            qp_err: Default::default(),
            rq_ci_inc: Default::default(),
            last_syndrome: Default::default(),
            drop_qp_inc: Default::default(),
            drop_src_inc: Default::default(),
            rx_acks_inc: Default::default(),
            rx_naks_inc: Default::default(),
            dup_inc: Default::default(),
            seq_err_inc: Default::default(),
            rem_access_inc: Default::default(),
            inv_err_inc: Default::default(),
            min_rnr_timer: Default::default(),
            qp_access: Default::default(),
            tx_rnr_naks_inc: Default::default(),
            rx_rnr_naks_inc: Default::default(),
            rx_seq_naks_inc: Default::default(),
            rx_remote_access_naks_inc: Default::default(),
            rx_invalid_request_naks_inc: Default::default(),
            cnp_interval: Default::default(),
            cnp_valid: Default::default(),
            cnp_taken: Default::default(),
            ecn_marked_inc: Default::default(),
            rp_cnp_inc: Default::default(),
            buf_pending: Default::default(),
            buf_head: Default::default(),
            buf_rd_addr: Default::default(),
            buf_rd_data: Default::default(),
            buf_pop: Default::default(),
            buf_meta: Default::default(),
            ack_valid: Default::default(),
            ack_syndrome: Default::default(),
            ack_psn: Default::default(),
            ack_msn: Default::default(),
            ack_new: Default::default(),
            ack_taken: Default::default(),
            rr_valid: Default::default(),
            rr_va: Default::default(),
            rr_len: Default::default(),
            rr_psn: Default::default(),
            rr_msn: Default::default(),
            rr_atomic: Default::default(),
            rr_orig: Default::default(),
            rr_taken: Default::default(),
            rd_active: Default::default(),
            rd_atomic: Default::default(),
            rd_psn0: Default::default(),
            rd_laddr: Default::default(),
            rd_scatter: Default::default(),
            rd_sgl: Default::default(),
            rd_sgl_n: Default::default(),
            rd_len: Default::default(),
            rd_restart: Default::default(),
            rd_restart_idx: Default::default(),
            rd_withdraw: Default::default(),
            rd_done: Default::default(),
            rx_ack_valid: Default::default(),
            rx_ack_resp: Default::default(),
            rx_ack_syndrome: Default::default(),
            rx_ack_psn: Default::default(),
            implied_nak_inc: Default::default(),
            rd_req_valid: Default::default(),
            rd_req_ready: Default::default(),
            rd_req_addr: Default::default(),
            rd_req_beats: Default::default(),
            rd_resp_valid: Default::default(),
            rd_resp_data: Default::default(),
            rd_resp_last: Default::default(),
            rd_resp_ready: Default::default(),
            wr_valid: Default::default(),
            wr_ready: Default::default(),
            wr_idle: Default::default(),
            wr_addr: Default::default(),
            wr_data: Default::default(),
            wr_strb: Default::default(),
            wr_last: Default::default(),
            wr_scatter: Default::default(),
            wr_sgl: Default::default(),
            wr_sgl_n: Default::default(),
            cqe_valid: Default::default(),
            cqe_ready: Default::default(),
            cqe_wr_id: Default::default(),
            cqe_byte_len: Default::default(),
            cqe_status: Default::default(),
            cqe_opcode: Default::default(),
            cqe_src_qp: Default::default(),
            cqe_imm: Default::default(),
            cqe_flags: Default::default(),
            state: Default::default(),
            rh: Default::default(),
            chk: Default::default(),
            aeth_ack: Constant::new((aeth::ACK as u64).into()),
            aeth_rnr_nak: Constant::new((aeth::RNR_NAK as u64).into()),
            aeth_value: Constant::new((!aeth::TYPE_MASK as u64).into()),
            aeth_ack_no_credits: Constant::new(((aeth::ACK | aeth::CREDITS_INVALID) as u64).into()),
            nak_psn_seq: Constant::new((aeth::NAK_PSN_SEQUENCE_ERROR as u64).into()),
            nak_invalid_req: Constant::new((aeth::NAK_INVALID_REQUEST as u64).into()),
            nak_remote_access: Constant::new((aeth::NAK_REMOTE_ACCESS_ERROR as u64).into()),
            nak_remote_op: Constant::new((aeth::NAK_REMOTE_OPERATIONAL_ERROR as u64).into()),
            qs_reset: Constant::new((QpState::Reset as u64).into()),
            qs_init: Constant::new((QpState::Init as u64).into()),
            qs_err: Constant::new((QpState::Err as u64).into()),
            wc_recv: Constant::new((WcOpcode::Recv as u64).into()),
            wc_recv_rdma_with_imm: Constant::new((WcOpcode::RecvRdmaWithImm as u64).into()),
            wc_success: Constant::new((WcStatus::Success as u64).into()),
            act: Default::default(),
            wt_nz: Default::default(),
            ll: Default::default(),
            too_long: Default::default(),
            tl_wqe: Default::default(),
            wqe_len32: Default::default(),
            tl_reg: Default::default(),
            tl_pick: Default::default(),
            cbl: Default::default(),
            wv_lo_q: Default::default(),
            psn_p1: Default::default(),
            len_bad: Default::default(),
            s_psn_prev: Default::default(),
            s_rq_psn: Default::default(),
            k: Default::default(),
            k_m1: Default::default(),
            h_fill: Default::default(),
            a_hk: Default::default(),
            a_hdr: Default::default(),
            a_hdr1: Default::default(),
            a_hdr2: Default::default(),
            prime: Default::default(),
            act_go: Default::default(),
            act_len: Default::default(),
            cnp_age: Default::default(),
            prime_at: Default::default(),
            prime_at1: Default::default(),
            nak_fatal: Default::default(),
            nak_fatal_syn: Default::default(),
            a_pw0: Default::default(),
            a_pw1: Default::default(),
            a_pw2: Default::default(),
            a_cur: Default::default(),
            a_nxt: Default::default(),
            v6: Default::default(),
            hw_max: Default::default(),
            hw_min: Default::default(),
            k5: Default::default(),
            hw_max_m1: Default::default(),
            hw_min_m1: Default::default(),
            k_max: Default::default(),
            k_min: Default::default(),
            psn: Default::default(),
            pay_word: Default::default(),
            shift: Default::default(),
            realign: Default::default(),
            msn: Default::default(),
            nak_sent: Default::default(),
            in_write: Default::default(),
            in_send: Default::default(),
            write_va: Default::default(),
            write_left: Default::default(),
            write_total: Default::default(),
            write_rkey: Default::default(),
            dst: Default::default(),
            dst_hi1: Default::default(),
            rq_off: Default::default(),
            rq_s_lo: Default::default(),
            rq_s_hi: Default::default(),
            rq_addr: Default::default(),
            rq_off_hi: Default::default(),
            rq_c: Default::default(),
            rq_hi_c: Default::default(),
            dst_hi: Default::default(),
            wa_lo: Default::default(),
            wv_lo: Default::default(),
            j: Default::default(),
            nwords: Default::default(),
            nwords_m2: Default::default(),
            nw_zero: Default::default(),
            j_last: Default::default(),
            prev: Default::default(),
            recv_wr_id: Default::default(),
            recv_len: Default::default(),
            send_total: Default::default(),
            sgl_buf: Default::default(),
            sgl_total: Default::default(),
            sgl_nsge: Default::default(),
            sgl_qpn: Default::default(),
            sgl_ok: Default::default(),
            sgl_mine: Default::default(),
            relist: Default::default(),
            rr_pend: Default::default(),
            rr_va_q: Default::default(),
            rr_len_q: Default::default(),
            rr_psn_q: Default::default(),
            rr_msn_q: Default::default(),
            rr_atomic_q: Default::default(),
            rr_orig_q: Default::default(),
            at_va: Default::default(),
            at_val: Default::default(),
            at_orig: Default::default(),
            at_add_hi1: Default::default(),
            at_req_side: Default::default(),
            ac_valid: Default::default(),
            ac_psn: Default::default(),
            ac_orig: Default::default(),
            ac_valid1: Default::default(),
            ac_psn1: Default::default(),
            ac_orig1: Default::default(),
            ac_valid2: Default::default(),
            ac_psn2: Default::default(),
            ac_orig2: Default::default(),
            ac_valid3: Default::default(),
            ac_psn3: Default::default(),
            ac_orig3: Default::default(),
            ac_next: Default::default(),
            ac_hit: Default::default(),
            ac_hit_orig: Default::default(),
            qc_oos: Default::default(),
            qc_dup: Default::default(),
            qc_seq_nak: Default::default(),
            rd_exp: Default::default(),
            rr_void: Default::default(),
            imp_arm: Default::default(),
            imp_wait: Default::default(),
            cnp_pend: Default::default(),
            now: Default::default(),
            warp: Default::default(),
            cnp_last: Default::default(),
            cnp_seen: Default::default(),
            ctx_w: Default::default(),
            ctx_r: Default::default(),
            ctx_want: Default::default(),
            want_qpn: Default::default(),
            ctx_hit: Default::default(),
            ctx_load: Default::default(),
            ctx_in: Default::default(),
            ctx_out: Default::default(),
            ack_pend: Default::default(),
            ack_syn: Default::default(),
            ack_psn_q: Default::default(),
            ack_msn_q: Default::default(),
            last_syn: Default::default(),
            rq128: Default::default(),
            rq_slot: Default::default(),
            sgl_bad: Default::default(),
            pay_len32: Default::default(),
            at_off: Default::default(),
            at_word: Default::default(),
            sgl_scatter: Default::default(),
            at_sum_lo: Default::default(),
            at_orig_hi: Default::default(),
            at_add_hi: Default::default(),
            at_sum_hi: Default::default(),
            at_sum_hi0: Default::default(),
            at_sum_hi1: Default::default(),
            at_lo_q: Default::default(),
            at_hi0_q: Default::default(),
            at_hi1_q: Default::default(),
            at_eq: Default::default(),
            rd_fin: Default::default(),
            at_carry: Default::default(),
            lanes_left: Default::default(),
            out_word: Default::default(),
            send_ack: Default::default(),
            ack_syn_l: Default::default(),
            ack_psn_l: Default::default(),
            ack_msn_l: Default::default(),
            ack_rq: Default::default(),
            ack_rq_syn: Default::default(),
            ack_rq_psn: Default::default(),
            ack_rq_msn: Default::default(),
            ack_chg: Default::default(),
            at_sel: Default::default(),
            st_reset: Default::default(),
            st_reset_err: Default::default(),
            st_le_init: Default::default(),
            hdr_words_a: Default::default(),
            psn_next: Default::default(),
            sum_wait: Constant::new(((sgl_sum::LATENCY - 1) as u64).into()),
            // End of the BTH in an untagged IPv4 frame (header offsets from `rocenic_proto::wire`).
            // PadCnt: bits 5..4 of BTH byte 1.
            beat_bytes: Constant::new((B as u64).into()),
            log_b: Constant::new((B.trailing_zeros() as u64).into()),
            // Header words after the metadata word: enough for Ethernet..AtomicETH (82 bytes), which also
            // covers RETH + ImmDt (74) and AETH + AtomicAckETH (66).
            hdr_words: Constant::new(((F::ATOMIC_COMPARE + 8).div_ceil(B) as u64).into()),
            hdr_min: Constant::new(((F::BTH + 2).div_ceil(B) as u64 + 1).into()),
            hdr_words6: Constant::new(
                ((F::ATOMIC_COMPARE + 8 + G::SHIFT).div_ceil(B) as u64).into(),
            ),
            hdr_min6: Constant::new(((G::BTH + 2).div_ceil(B) as u64 + 1).into()),
            need_cmp: Constant::new(
                ((F::BTH + 2).div_ceil(B) + 1 != (F::ATOMIC_COMPARE + 8).div_ceil(B))
                    || ((G::BTH + 2).div_ceil(B) + 1
                        != (F::ATOMIC_COMPARE + 8 + G::SHIFT).div_ceil(B)),
            ),
            // The traffic class: bits 11..4 of the first 16-bit word.
            wqe_beats: Constant::new(((64 / B) as u64).into()),
            wqe_wrid_beat: Constant::new(((WR_ID / B) as u64).into()),
            wqe_wrid_shift: Constant::new((((WR_ID % B) * 8) as u64).into()),
            wqe_addr_beat: Constant::new(((ADDR / B) as u64).into()),
            wqe_addr_shift: Constant::new((((ADDR % B) * 8) as u64).into()),
            ones: Constant::new(Bits::<B>::mask()),
            low_mask: Constant::new(((B - 1) as u64).into()),
            wqe128_beats: Constant::new(((WQE_128_BYTES / B) as u64).into()),
            w_bits: Constant::new((W as u64).into()),
            sgl_in_shift: Constant::new(((512 - W) as u64).into()),
            sh_nsge: Constant::new(((NUM_SGE % B) as u64 * 8).into()),
        }
    }
}

impl<const W: usize, const B: usize, const A: usize> Logic for RxEngine<W, B, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            k_m1,
            h_fill,
            k_max,
            k_min,
            a_hk,
            a_hdr,
            a_hdr1,
            a_hdr2,
            at_lo_q,
            at_hi0_q,
            at_hi1_q,
            at_eq,
            rd_fin,
            act_go,
            act_len,
            cnp_age,
            a_pw0,
            a_pw1,
            a_pw2,
            a_cur,
            a_nxt,
            act,
            wt_nz,
            ll,
            too_long,
            cbl,
            wv_lo_q,
            psn_p1,
            s_psn_prev,
            s_rq_psn,
            k,
            v6,
            psn,
            pay_word,
            shift,
            msn,
            nak_sent,
            in_write,
            in_send,
            write_va,
            write_left,
            write_total,
            write_rkey,
            dst,
            dst_hi1,
            rq_off,
            rq_s_lo,
            rq_s_hi,
            rq_addr,
            j,
            nwords,
            nwords_m2,
            nw_zero,
            j_last,
            prev,
            recv_wr_id,
            recv_len,
            send_total,
            sgl_buf,
            sgl_nsge,
            sgl_qpn,
            sgl_ok,
            sgl_mine,
            sgl_bad,
            relist,
            rr_pend,
            rr_va_q,
            rr_len_q,
            rr_psn_q,
            rr_msn_q,
            rr_atomic_q,
            rr_orig_q,
            at_va,
            at_val,
            at_orig,
            at_add_hi1,
            at_req_side,
            ac_valid,
            ac_psn,
            ac_orig,
            ac_valid1,
            ac_psn1,
            ac_orig1,
            ac_valid2,
            ac_psn2,
            ac_orig2,
            ac_valid3,
            ac_psn3,
            ac_orig3,
            ac_next,
            ac_hit,
            ac_hit_orig,
            qc_oos,
            qc_dup,
            qc_seq_nak,
            rd_exp,
            rr_void,
            imp_arm,
            imp_wait,
            cnp_pend,
            now,
            cnp_last,
            cnp_seen,
            ack_pend,
            ack_syn,
            ack_psn_q,
            ack_msn_q,
            last_syn,
            ack_rq,
            ack_rq_syn,
            ack_rq_psn,
            ack_rq_msn,
            ack_chg,
            at_sel,
            st_reset,
            st_reset_err,
            st_le_init
        );
        // Defaults
        self.rq_psn_set.next = false;
        self.rq_psn_val.next = self.rq_psn.val();
        self.qp_err.next = false;
        self.rq_ci_inc.next = false;
        self.drop_qp_inc.next = false;
        self.drop_src_inc.next = false;
        self.rx_acks_inc.next = false;
        self.rx_naks_inc.next = false;
        self.dup_inc.next = false;
        self.rd_done.next = false;
        self.seq_err_inc.next = false;
        self.rem_access_inc.next = false;
        self.inv_err_inc.next = false;
        self.tx_rnr_naks_inc.next = false;
        self.rx_rnr_naks_inc.next = false;
        self.rx_seq_naks_inc.next = false;
        self.rx_remote_access_naks_inc.next = false;
        self.rx_invalid_request_naks_inc.next = false;
        self.buf_pop.next = false;
        self.buf_rd_addr.next = self.buf_head.val();
        self.rx_ack_valid.next = false;
        self.rx_ack_resp.next = false;
        self.implied_nak_inc.next = false;
        self.ecn_marked_inc.next = false;
        self.rp_cnp_inc.next = false;
        self.cnp_valid.next = self.cnp_pend.q.val();
        self.now.d.next = self.now.q.val() + 1 + self.warp.val();
        self.ctx_want.next = false;
        // The per-QP registers as the QP table stores them (RESP_ENGINE_CTX).
        self.ctx_w.msn.next = self.msn.q.val();
        self.ctx_w.nak_sent.next = self.nak_sent.q.val();
        self.ctx_w.in_write.next = self.in_write.q.val();
        self.ctx_w.in_send.next = self.in_send.q.val();
        self.ctx_w.ac_valid.next = self.ac_valid.q.val();
        self.ctx_w.cnp_seen.next = self.cnp_seen.q.val();
        self.ctx_w.ac_next.next = self.ac_next.q.val();
        self.ctx_w.ac_psn.next = self.ac_psn.q.val();
        self.ctx_w.write_va.next = self.write_va.q.val();
        self.ctx_w.write_left.next = self.write_left.q.val();
        self.ctx_w.write_total.next = self.write_total.q.val();
        self.ctx_w.write_rkey.next = self.write_rkey.q.val();
        self.ctx_w.recv_len.next = self.recv_len.q.val();
        self.ctx_w.recv_wr_id.next = self.recv_wr_id.q.val();
        self.ctx_w.send_total.next = self.send_total.q.val();
        self.ctx_w.cnp_last.next = self.cnp_last.q.val();
        self.ctx_w.ac_orig.next = self.ac_orig.q.val();
        self.ctx_w.ac_psn1.next = self.ac_psn1.q.val();
        self.ctx_w.ac_valid1.next = self.ac_valid1.q.val();
        self.ctx_w.ac_orig1.next = self.ac_orig1.q.val();
        self.ctx_w.ac_psn2.next = self.ac_psn2.q.val();
        self.ctx_w.ac_valid2.next = self.ac_valid2.q.val();
        self.ctx_w.ac_orig2.next = self.ac_orig2.q.val();
        self.ctx_w.ac_psn3.next = self.ac_psn3.q.val();
        self.ctx_w.ac_valid3.next = self.ac_valid3.q.val();
        self.ctx_w.ac_orig3.next = self.ac_orig3.q.val();
        self.ctx_w.out_of_sequence.next = self.qc_oos.q.val();
        self.ctx_w.duplicate_request.next = self.qc_dup.q.val();
        self.ctx_w.packet_seq_err.next = self.qc_seq_nak.q.val();
        self.ctx_out.next = self.ctx_w.word.val();
        self.ctx_r.word.next = self.ctx_in.val();
        self.rr_valid.next = self.rr_pend.q.val();
        self.rr_va.next = self.rr_va_q.q.val();
        self.rr_len.next = self.rr_len_q.q.val();
        self.rr_psn.next = self.rr_psn_q.q.val();
        self.rr_msn.next = self.rr_msn_q.q.val();
        self.rr_atomic.next = self.rr_atomic_q.q.val();
        self.rr_orig.next = self.rr_orig_q.q.val();
        self.rd_req_valid.next = false;
        // Receive ring slot: 64 bytes, or 128 with RQ_WQE_128 (scatter lists).
        self.rq128.next = (self.rq_log_size.val() & 0x20) != 0;
        self.rq_slot.next = bit_cast::<64, 32>(
            self.rq_ci.val() & !(bits::<32>(0xFFFF_FFFF_u64) << (self.rq_log_size.val() & 0x1F)),
        );
        // The WQE's address in three stages (its offset in the ring; the halves' sums; the carry in),
        // recomputed every cycle: the ring's base, size and consumer index are still at least three
        // cycles before `RqFetch` reads it (a new QP's context: `Fields`, `Check`, `Decode`; a
        // consumed WQE: the next packet's header).
        self.rq_off.d.next = self.rq_slot.val() << 6;
        self.rd_req_beats.next = self.wqe_beats.val();
        if self.rq128.val() {
            self.rq_off.d.next = self.rq_slot.val() << 7;
            self.rd_req_beats.next = self.wqe128_beats.val();
        }
        self.rq_s_lo.d.next = bit_cast::<33, 32>(self.rq_base_lo.val())
            + bit_cast::<33, 64>(self.rq_off.q.val() & 0xFFFF_FFFF_u64);
        self.rq_off_hi.next = bit_cast::<32, 64>(self.rq_off.q.val() >> 32);
        self.rq_s_hi.d.next = self.rq_base_hi.val() + self.rq_off_hi.val();
        self.rq_c.next = bit_cast::<32, 33>(self.rq_s_lo.q.val() >> 32);
        self.rq_hi_c.next = self.rq_s_hi.q.val() + self.rq_c.val();
        self.rq_addr.d.next = (bit_cast::<64, 32>(self.rq_hi_c.val()) << 32)
            | bit_cast::<64, 33>(self.rq_s_lo.q.val() & 0xFFFF_FFFF_u64);
        self.rd_req_addr.next = self.rq_addr.q.val();
        // The cached list: lengths of its counted entries, and whether they describe the WQE.
        self.sgl_total.sgl.next = self.sgl_buf.q.val();
        self.sgl_total.n.next = self.sgl_nsge.q.val();
        self.sgl_scatter.next = self.rq128.val() && (self.sgl_nsge.q.val() > 1);
        self.sgl_bad.d.next = self.sgl_scatter.val()
            && ((self.sgl_nsge.q.val() > 4)
                || (self.sgl_total.sum.val() != bit_cast::<40, 32>(self.recv_len.q.val())));
        self.wr_sgl.next = self.sgl_buf.q.val();
        self.wr_sgl_n.next = bit_cast::<3, 8>(self.sgl_nsge.q.val() & 7);
        self.rd_resp_ready.next = false;
        self.wr_valid.next = false;
        self.cqe_valid.next = false;
        self.cqe_wr_id.next = self.recv_wr_id.q.val();
        self.pay_len32.next = bit_cast::<32, 16>(self.rh.pay_len.val());
        self.cqe_byte_len.next = self.cbl.q.val();
        self.cqe_status.next = self.wc_success.val();
        self.cqe_opcode.next = self.wc_recv.val();
        self.cqe_src_qp.next = self.dest_qpn.val();
        self.last_syndrome.next = self.last_syn.q.val();
        self.ack_valid.next = self.ack_pend.q.val();
        self.ack_syndrome.next = self.ack_syn.q.val();
        self.ack_psn.next = self.ack_psn_q.q.val();
        self.ack_msn.next = self.ack_msn_q.q.val();
        if self.ack_taken.val() {
            self.ack_pend.d.next = false;
        }
        // Every ACK/NAK this packet asks for goes through these; a newer one replaces a pending one.
        self.send_ack.next = false;
        self.ack_syn_l.next = self.aeth_ack_no_credits.val();
        self.ack_psn_l.next = self.psn.q.val();
        self.ack_msn_l.next = self.msn.q.val();

        // The header (roce::recv_hdr): cleared at a frame's start, header word k - 1 written in Header.
        self.rh.clock.next = self.clock.val();
        self.chk.clock.next = self.clock.val();
        self.sgl_total.clock.next = self.clock.val();
        self.rh.clear.next = self.state.q.val() == RespState::Idle;
        self.rh.fill.next = self.h_fill.q.val();
        self.rh.slot.next = bit_cast::<8, 5>(self.k_m1.q.val());
        self.rh.data.next = self.buf_rd_data.val();
        self.rh.v6.next = self.v6.q.val();
        self.want_qpn.next = bit_cast::<32, 24>(self.rh.dqpn.val());
        self.rx_ack_syndrome.next = self.rh.syndrome.val();
        self.rx_ack_psn.next = self.rh.psn.val();
        // The checks against the QP (roce::recv_check), registered: Decode reads them.
        self.chk.psn.next = self.rh.psn.val();
        self.chk.dqpn.next = self.rh.dqpn.val();
        self.chk.sip.next = self.rh.sip.val();
        self.chk.va.next = self.rh.va.val();
        self.chk.rkey.next = self.rh.rkey.val();
        self.chk.dmalen.next = self.rh.dmalen.val();
        self.chk.imm_data.next = self.rh.imm_data.val();
        self.chk.ieth_key.next = self.rh.ieth_key.val();
        self.chk.pay_len.next = self.rh.pay_len.val();
        self.chk.send.next = self.rh.send.val();
        self.chk.write.next = self.rh.write.val();
        self.chk.read_request.next = self.rh.read_request.val();
        self.chk.read_response.next = self.rh.read_response.val();
        self.chk.atomic.next = self.rh.atomic.val();
        self.chk.reth.next = self.rh.reth.val();
        self.chk.ieth.next = self.rh.ieth.val();
        self.chk.first.next = self.rh.first.val();
        self.chk.middle.next = self.rh.middle.val();
        self.chk.last.next = self.rh.last.val();
        self.chk.only.next = self.rh.only.val();
        self.chk.not_last.next = self.rh.not_last.val();
        self.chk.send_cont.next = self.rh.send_cont.val();
        self.chk.write_cont.next = self.rh.write_cont.val();
        self.chk.dmalen_zero.next = self.rh.dmalen_zero.val();
        self.chk.dmalen_max.next = self.rh.dmalen_max.val();
        self.chk.key_always.next = self.rh.key_always.val();
        self.chk.key_reth.next = self.rh.key_reth.val();
        self.chk.key_cont.next = self.rh.key_cont.val();
        self.chk.qp_state.next = self.qp_state.val();
        self.chk.qpn.next = self.qpn.val();
        self.chk.pmtu.next = self.pmtu.val();
        self.chk.rq_psn.next = self.rq_psn.val();
        self.chk.qp_pd.next = self.qp_pd.val();
        self.chk.qp_peer_ip.next = self.qp_peer_ip.val();
        self.chk.qp_access.next = self.qp_access.val();
        self.chk.rq_pi.next = self.rq_pi.val();
        self.chk.rq_ci.next = self.rq_ci.val();
        self.chk.in_write.next = self.in_write.q.val();
        self.chk.in_send.next = self.in_send.q.val();
        self.chk.write_left.next = self.write_left.q.val();
        self.chk.write_nz.next = self.wt_nz.q.val();
        self.chk.write_rkey.next = self.write_rkey.q.val();
        self.chk.rd_psn0.next = self.rd_psn0.val();
        self.chk.rd_len.next = self.rd_len.val();
        self.chk.rd_laddr.next = self.rd_laddr.val();
        self.chk.rd_exp.next = self.rd_exp.q.val();
        self.chk.rd_active.next = self.rd_active.val();
        self.chk.rd_atomic.next = self.rd_atomic.val();
        self.chk.mr_for.next = self.mr_for.val();
        self.chk.mr_fresh.next = self.mr_fresh.val();
        self.chk.mr_base.next = self.mr_base.val();
        self.chk.mr_end.next = self.mr_end.val();
        self.chk.mr_key.next = self.mr_key.val();
        self.chk.mr_access.next = self.mr_access.val();
        self.chk.mr_pd.next = self.mr_pd.val();
        self.cnp_age.d.next = self.now.q.val() - self.cnp_last.q.val() + 1;
        self.chk.cnp_age.next = self.cnp_age.q.val();
        self.chk.cnp_seen.next = self.cnp_seen.q.val();
        self.chk.cnp_interval.next = self.cnp_interval.val();
        self.mr_lk_key.next = self.chk.mr_lk_key.val();
        self.wt_nz.d.next = self.write_total.q.val() != 0;
        self.s_psn_prev.d.next = self.chk.rq_psn_prev.val();
        self.s_rq_psn.d.next = bit_cast::<24, 32>(self.rq_psn.val());
        self.mr_inv.next = false;
        self.mr_hold.next = (self.state.q.val() == RespState::Check)
            || (self.state.q.val() == RespState::Bounds)
            || (self.state.q.val() == RespState::Decode)
            || (self.state.q.val() == RespState::Act);
        // The atomic result cache, looked up by the packet's PSN (a duplicate atomic), registered.
        self.ac_hit.d.next = (self.ac_valid.q.val() && (self.ac_psn.q.val() == self.rh.psn.val()))
            || (self.ac_valid1.q.val() && (self.ac_psn1.q.val() == self.rh.psn.val()))
            || (self.ac_valid2.q.val() && (self.ac_psn2.q.val() == self.rh.psn.val()))
            || (self.ac_valid3.q.val() && (self.ac_psn3.q.val() == self.rh.psn.val()));
        self.ac_hit_orig.d.next = self.ac_orig.q.val();
        if self.ac_valid1.q.val() && (self.ac_psn1.q.val() == self.rh.psn.val()) {
            self.ac_hit_orig.d.next = self.ac_orig1.q.val();
        }
        if self.ac_valid2.q.val() && (self.ac_psn2.q.val() == self.rh.psn.val()) {
            self.ac_hit_orig.d.next = self.ac_orig2.q.val();
        }
        if self.ac_valid3.q.val() && (self.ac_psn3.q.val() == self.rh.psn.val()) {
            self.ac_hit_orig.d.next = self.ac_orig3.q.val();
        }
        // The receive WQE list cached is this QP's (registered).
        self.sgl_mine.d.next = self.sgl_ok.q.val() && (self.sgl_qpn.q.val() == self.qpn.val());
        self.wr_scatter.next =
            (self.rh.is_send.val() && self.rq128.val() && self.sgl_scatter.val())
                || (self.rh.is_read_response.val() && self.rd_scatter.val());
        if self.rh.is_read_response.val() {
            self.wr_sgl.next = self.rd_sgl.val();
            self.wr_sgl_n.next = self.rd_sgl_n.val();
        }
        self.cqe_imm.next = self.rh.imm_data.val();
        self.cqe_flags.next = 0.into();
        if self.rh.is_imm.val() {
            self.cqe_flags.next = 1.into(); // WITH_IMM
        }
        if self.rh.is_ieth.val() {
            self.cqe_flags.next = 4.into(); // WITH_INV: the IETH's R_Key in the immediate's place
        }
        // SOLICITED: the message's last packet carried SE (§10.2.6 solicited events).
        if self.rh.se.val() {
            self.cqe_flags.next = self.cqe_flags.val() | 2;
        }
        // The atomic's 8-byte word within its DMA beat (atomics need only 8-byte alignment).
        self.nwords_m2.d.next = self.nwords.q.val() - 2;
        self.nw_zero.d.next = self.nwords.q.val() == 0;
        // Word 0 is the last of one (Data starts at j = 0; Data itself steps it).
        self.j_last.d.next = self.nwords.q.val() == 1;
        self.at_off.next = bit_cast::<16, 64>(self.at_va.q.val() & self.low_mask.val());
        self.at_word.next = bit_cast::<64, W>(self.rd_resp_data.val() >> (self.at_off.val() << 3));
        // FETCH_ADD's sum of the original word (at_orig) and the AtomicETH's add value, for AtSum.
        self.at_add_hi.next = bit_cast::<32, 64>(self.rh.swap.val() >> 32);
        self.at_add_hi1.d.next = self.at_add_hi.val() + 1;
        self.at_sum_lo.next = bit_cast::<33, 64>(self.at_orig.q.val() & 0xFFFF_FFFF_u64)
            + bit_cast::<33, 64>(self.rh.swap.val() & 0xFFFF_FFFF_u64);
        self.at_orig_hi.next = bit_cast::<32, 64>(self.at_orig.q.val() >> 32);
        // Both high sums, picked by the low half's carry with a mask rather than a mux: synthesis
        // shares two adds behind a mux into one add of muxed operands, which puts the carry in front
        // of the high half's chain.
        self.at_sum_hi0.next = self.at_orig_hi.val() + self.at_add_hi.val();
        self.at_sum_hi1.next = self.at_orig_hi.val() + self.at_add_hi1.q.val();
        self.at_lo_q.d.next = self.at_sum_lo.val();
        self.at_eq.d.next = self.at_orig.q.val() == self.rh.cmp.val();
        // The response expected is the READ's last, registered: Complete reads it cycles after either
        // last changed (a restart or withdrawal in between voids the response).
        self.rd_fin.d.next = self.rd_exp.q.val() == self.chk.rd_last.val();
        self.at_hi0_q.d.next = self.at_sum_hi0.val();
        self.at_hi1_q.d.next = self.at_sum_hi1.val();
        self.at_carry.next = 0.into();
        if self.at_lo_q.q.val().get_bit(32) {
            self.at_carry.next = 0xFFFF_FFFF_u64.into();
        }
        self.at_sum_hi.next = (self.at_hi0_q.q.val() & !self.at_carry.val())
            | (self.at_hi1_q.q.val() & self.at_carry.val());
        // Payload realignment: host word j = frame bytes [H + jB, H + jB + B) from two buffer words.
        self.realign.a.next = self.prev.q.val();
        self.realign.b.next = self.buf_rd_data.val();
        self.realign.n.next = bit_cast::<8, 16>(self.shift.q.val());
        self.out_word.next = self.realign.y.val();
        self.lanes_left.next = self.ll.q.val();
        // (Both comparisons stand, the pick after them is a mask: as a multiplexer Yosys would share one
        // comparator behind a multiplexer of the operands.)
        self.wqe_len32.next = bit_cast::<32, W>(self.rd_resp_data.val() >> 32);
        self.tl_wqe.next = self.pay_len32.val() > self.wqe_len32.val();
        self.tl_reg.next = self.pay_len32.val() > self.recv_len.q.val();
        self.tl_pick.next = false;
        self.cbl.d.next = self.send_total.q.val() + self.pay_len32.val();
        self.hdr_words_a.next = bit_cast::<A, 16>(self.rh.hdr_words.val());
        // The buffer addresses the states read, as registers: the frame's head does not move while
        // it is read, and the header's and payload's first words are known cycles ahead.
        self.a_hdr.d.next = self.buf_head.val() + self.hdr_words_a.val();
        self.a_hdr1.d.next = self.buf_head.val() + self.hdr_words_a.val() + 1;
        self.a_hdr2.d.next = self.buf_head.val() + self.hdr_words_a.val() + 2;
        self.a_pw0.d.next = self.buf_head.val() + self.pay_word.q.val();
        self.a_pw1.d.next = self.buf_head.val() + self.pay_word.q.val() + 1;
        self.a_pw2.d.next = self.buf_head.val() + self.pay_word.q.val() + 2;
        self.psn_next.next = self.psn_p1.q.val();
        // Host word j goes to dst + jB, the next WRITE packet to dst + its payload (both below 2^16):
        // the low half's carry picks the high half or its successor.
        self.dst_hi.next = bit_cast::<32, 64>(self.dst.q.val() >> 32);
        self.dst_hi1.d.next = self.dst_hi.val() + 1;
        self.wa_lo.next = bit_cast::<33, 64>(self.dst.q.val() & 0xFFFF_FFFF_u64)
            + (bit_cast::<33, 16>(self.j.q.val()) << self.log_b.val());
        self.wv_lo.next = bit_cast::<33, 64>(self.dst.q.val() & 0xFFFF_FFFF_u64)
            + bit_cast::<33, 16>(self.rh.pay_len.val());
        self.wv_lo_q.d.next = self.wv_lo.val();
        self.hw_max.next = self.hdr_words.val();
        self.hw_min.next = self.hdr_min.val();
        if self.v6.q.val() {
            self.hw_max.next = self.hdr_words6.val();
            self.hw_min.next = self.hdr_min6.val();
        }
        self.hw_max_m1.next = self.hw_max.val() - 1;
        self.hw_min_m1.next = self.hw_min.val() - 1;
        self.prime.next = false;
        self.k5.next = bit_cast::<5, 16>(self.k.q.val());
        self.prime_at.next = self.a_pw1.q.val();
        self.prime_at1.next = self.a_pw2.q.val();
        self.h_fill.d.next = false;
        self.nak_fatal.next = false;
        self.nak_fatal_syn.next = self.nak_invalid_req.val();
        self.len_bad.next = false;
        match self.state.q.val() {
            RespState::Idle => {
                self.k.d.next = 0.into();
                self.k_max.d.next = false;
                self.k_min.d.next = false;
                self.k_m1.d.next = 0x1F.into();
                self.a_hk.d.next = self.buf_head.val();
                self.rr_void.d.next = false;
                if self.buf_pending.val() && self.enable.val() {
                    self.state.d.next = RespState::Header;
                }
            }
            RespState::Header => {
                // Word k - 1 of the frame was addressed last cycle (k = 0: the metadata, from the
                // buffer's descriptor).
                self.buf_rd_addr.next = self.a_hk.q.val();
                self.a_hk.d.next = self.a_hk.q.val() + 1;
                if self.k.q.val() == 0 {
                    self.v6.d.next = (self.buf_meta.val() & (bits::<32>(1) << 16)) != 0;
                }
                self.k.d.next = self.k.q.val() + 1;
                self.k_m1.d.next = bit_cast::<5, 16>(self.k.q.val());
                self.h_fill.d.next = true;
                // Read only as many words as this packet's headers take (the opcode, known once
                // `hdr_min` words are in, gives the extension headers), at most the longest header's.
                // k against the IP version's bounds is registered a cycle ahead (`k_max`, `k_min`: the
                // version is known from k = 1, both bounds are 2 or more); against the opcode's words, a
                // 5-bit compare (a header is at most 17 words), which a datapath whose shortest and
                // longest headers take as many words does not need (`need_cmp`, a constant).
                self.k_max.d.next = self.k5.val() == bit_cast::<5, 16>(self.hw_max_m1.val());
                self.k_min.d.next = self.k5.val() >= bit_cast::<5, 16>(self.hw_min_m1.val());
                if self.k_max.q.val()
                    || (self.need_cmp.val()
                        && self.k_min.q.val()
                        && (self.k5.val() >= bit_cast::<5, 16>(self.rh.need_words.val())))
                {
                    self.h_fill.d.next = false;
                    self.state.d.next = RespState::Fields;
                }
            }
            RespState::Fields => {
                // The header's fields are in roce::recv_hdr's first stage; its second stage loads.
                self.state.d.next = RespState::Check;
            }
            RespState::Check => {
                // roce::recv_check's results load this cycle, once the packet's QP is the current one
                // and the MR entry its key needs has come back (roce::mr_table).
                if !self.ctx_hit.val() {
                    // Another QP's packet: its context first (roce::qp_table).
                    self.state.d.next = RespState::CtxWait;
                } else if !self.chk.mr_wait_now.val() {
                    self.state.d.next = RespState::Decode;
                    if self.chk.mr_bounds.val() {
                        self.state.d.next = RespState::Bounds;
                    }
                }
            }
            RespState::Bounds => {
                self.state.d.next = RespState::Decode;
                if self.chk.mr_wait.val() {
                    // The entry went stale in the cycle it was compared: compare again.
                    self.state.d.next = RespState::Check;
                }
            }
            RespState::Decode => {
                if self.chk.mr_wait.val() {
                    // The MR entry went stale while the packet waited here: check again.
                    self.state.d.next = RespState::Check;
                } else {
                    self.psn.d.next = self.rh.psn.val();
                    self.psn_p1.d.next = self.rh.psn.val() + 1;
                    self.ll.d.next = self.rh.pay_len.val();
                    self.pay_word.d.next = self.hdr_words_a.val();
                    self.shift.d.next = self.rh.pay_shift.val();
                    self.j.d.next = 0.into();
                    self.nwords.d.next = self.chk.pay_words.val();
                    self.state.d.next = RespState::Act;
                    // For a verdict that writes data at once (a WRITE, the READ response expected): its
                    // first payload word addressed, its destination loaded (what it would be; a packet
                    // that writes elsewhere loads `dst` again before it writes).
                    self.buf_rd_addr.next = self.a_hdr.q.val();
                    self.dst.d.next = self.write_va.q.val();
                    if self.rh.is_reth.val() {
                        self.dst.d.next = self.rh.va.val();
                    }
                    if self.rh.is_read_response.val() || self.rh.is_atomic_acknowledge.val() {
                        // Where the response expected lands (an atomic's: its local address, index 0).
                        self.dst.d.next = self.chk.rd_dst.val();
                    }
                    // The verdict, in the order the checks apply: registered, so the registers each
                    // action sets (Act) are not behind this chain; with it the state it goes to and
                    // whether the length check ranks above it.
                    self.act_go.d.next = RespState::Idle;
                    self.act_len.d.next = false;
                    // RTR, RTS and SQD receive (IBA 10.3.1).
                    if !self.chk.for_qp.val() {
                        self.act.d.next = RxAct::Drop;
                    } else if !self.chk.from_peer.val() {
                        // Not from the QP's peer (as rdma_rxe's check_addr): no answer, no PSN consumed.
                        self.act.d.next = RxAct::DropSrc;
                    } else if self.rh.is_cnp.val() {
                        self.act.d.next = RxAct::Cnp;
                    } else if self.rh.is_acknowledge.val() {
                        self.act.d.next = RxAct::Ack;
                    } else if self.rh.is_read_response.val()
                        && self.chk.rd_at_exp.val()
                        && self.chk.rresp_ok.val()
                    {
                        self.act.d.next = RxAct::ReadLand;
                        self.act_go.d.next = RespState::Data;
                    } else if self.rh.is_atomic_acknowledge.val() && self.chk.rd_at_zero.val() {
                        self.act.d.next = RxAct::AtomicLand;
                        self.act_go.d.next = RespState::AtWrite;
                    } else if self.rh.is_read_response.val() || self.rh.is_atomic_acknowledge.val()
                    {
                        self.act.d.next = RxAct::Stale;
                    } else if !(self.rh.is_write.val()
                        || self.rh.is_send.val()
                        || self.rh.is_read_request.val()
                        || self.rh.is_atomic.val())
                    {
                        self.act.d.next = RxAct::Drop;
                    } else if (self.rh.is_read_request.val() || self.rh.is_atomic.val())
                        && self.rr_pend.q.val()
                    {
                        self.act.d.next = RxAct::Wait;
                        self.act_go.d.next = RespState::Decode;
                    } else if self.rh.is_read_request.val()
                        && self.chk.psn_old.val()
                        && (self.rh.dmalen_zero.val() || self.chk.mr_hit.val())
                    {
                        self.act.d.next = RxAct::DupRead;
                    } else if self.rh.is_atomic.val() && self.chk.psn_old.val() {
                        // Older than the cache holds: not answered, counted as a duplicate.
                        self.act.d.next = RxAct::Dup;
                        if self.ac_hit.q.val() {
                            self.act.d.next = RxAct::DupAtomic;
                        }
                    } else if !self.chk.psn_now.val() {
                        self.act.d.next = RxAct::SeqErr;
                        if self.chk.psn_old.val() {
                            self.act.d.next = RxAct::DupAck;
                        }
                    } else if !self.chk.seq_ok.val()
                        || !self.chk.qp_acc_ok.val()
                        || (self.rh.is_atomic.val() && self.rh.va_odd.val())
                    {
                        // Out of sequence, an operation the QP does not enable (as rdma_rxe's
                        // check_op_valid), a misaligned atomic (§9.4.5). A wrong length ranks with
                        // these; its check comes a cycle later (Act).
                        self.act.d.next = RxAct::InvalidRequest;
                    } else if self.rh.is_ieth.val() && !self.chk.inv_ok.val() {
                        self.act.d.next = RxAct::InvalidInvalidate;
                        self.act_len.d.next = true;
                    } else if (self.rh.is_atomic.val() && !self.chk.mr_hit.val())
                        || (self.rh.is_reth.val()
                            && !self.rh.dmalen_zero.val()
                            && !self.chk.mr_hit.val())
                        || (self.rh.write_cont.val()
                            && self.wt_nz.q.val()
                            && !self.chk.cont_mr_ok.val())
                    {
                        // A zero-length WRITE accesses no memory, so its R_Key and VA are not checked
                        // (C9-88).
                        self.act.d.next = RxAct::RemoteAccess;
                        self.act_len.d.next = true;
                    } else if self.rh.is_atomic.val() {
                        self.act.d.next = RxAct::Atomic;
                        self.act_len.d.next = true;
                        self.act_go.d.next = RespState::AtRead;
                    } else if self.rh.is_read_request.val() {
                        self.act.d.next = RxAct::Read;
                        self.act_len.d.next = true;
                    } else if self.rh.send_cont.val() {
                        self.act.d.next = RxAct::SendCont;
                        self.act_len.d.next = true;
                        self.act_go.d.next = RespState::Prime0;
                        if self.rq128.val() && !self.sgl_mine.q.val() {
                            self.act_go.d.next = RespState::RqFetch;
                        }
                    } else if self.rh.is_send.val() {
                        self.act.d.next = RxAct::Send;
                        self.act_len.d.next = true;
                        self.act_go.d.next = RespState::RqFetch;
                        if self.chk.rq_empty.val() {
                            self.act.d.next = RxAct::Rnr;
                            self.act_go.d.next = RespState::Idle;
                        }
                    } else if self.rh.write_imm.val() && self.chk.rq_empty.val() {
                        self.act.d.next = RxAct::Rnr;
                        self.act_len.d.next = true;
                    } else {
                        self.act.d.next = RxAct::Write;
                        self.act_len.d.next = true;
                        self.act_go.d.next = RespState::Data;
                        if self.rh.write_imm.val() {
                            self.act_go.d.next = RespState::RqFetch;
                        }
                    }
                }
            }
            RespState::Act => {
                // What the verdict says (Decode, a cycle ago); the checks' values it needs were
                // taken with it (`s_*`). A packet with nothing more to do is freed here.
                self.buf_pop.next = true;
                self.state.d.next = self.act_go.q.val();
                self.at_sel.d.next =
                    (self.act.q.val() == RxAct::Atomic) || (self.act.q.val() == RxAct::AtomicLand);
                if (self.act.q.val() != RxAct::Wait)
                    && self.chk.for_qp.val()
                    && self.chk.from_peer.val()
                    && self.rh.ce.val()
                {
                    // Notification point: a CE-marked packet for our QP; one CNP per interval.
                    self.ecn_marked_inc.next = true;
                    if self.chk.cnp_due.val() {
                        self.cnp_pend.d.next = true;
                        self.cnp_seen.d.next = true;
                        self.cnp_last.d.next = self.now.q.val();
                    }
                }
                // The length check (its two stages end now) ranks with the invalid requests, above the
                // verdicts that execute the packet (§9.7.5.1.4, C9-92).
                self.len_bad.next = !self.chk.len_ok.val() && self.act_len.q.val();
                if self.len_bad.val() {
                    self.nak_fatal.next = true;
                    self.state.d.next = RespState::Idle;
                } else {
                    match self.act.q.val() {
                        RxAct::Drop => {
                            self.drop_qp_inc.next = true;
                        }
                        RxAct::DropSrc => {
                            self.drop_src_inc.next = true;
                        }
                        RxAct::Cnp => {
                            // A CNP for our QP: the reaction point's input (net::dcqcn cuts the rate).
                            self.rp_cnp_inc.next = true;
                        }
                        RxAct::Ack => {
                            // ACKNOWLEDGE: hand the AETH to the requester (§9.7.6).
                            self.rx_ack_valid.next = true;
                            if self.rh.syn_ack.val() {
                                self.rx_acks_inc.next = true;
                            } else {
                                self.rx_naks_inc.next = true;
                                self.last_syn.d.next = bit_cast::<32, 8>(self.rh.syndrome.val());
                                self.rx_rnr_naks_inc.next = self.rh.syn_rnr.val();
                                self.rx_seq_naks_inc.next = self.rh.syn_seq.val();
                                self.rx_invalid_request_naks_inc.next = self.rh.syn_inv.val();
                                self.rx_remote_access_naks_inc.next = self.rh.syn_acc.val();
                            }
                        }
                        RxAct::ReadLand => {
                            // A READ response for our READ (requester side): land it. One ahead of it is
                            // an implied NAK (§9.7.6), within the READ or past its end (a later READ's: the
                            // READ's last responses, or an atomic's ATOMIC ACKNOWLEDGE, were lost): the
                            // requester gets a sequence NAK at the expected PSN, which re-issues the READ
                            // (or atomic) from there (go-back-N). An older one (a duplicate) is dropped.
                            self.buf_pop.next = false;
                            self.prime.next = true;
                        }
                        RxAct::AtomicLand => {
                            // The ATOMIC ACKNOWLEDGE of our atomic: its original value goes to the local
                            // buffer.
                            self.buf_pop.next = false;
                            self.at_va.d.next = self.dst.q.val();
                            self.at_val.d.next = self.rh.orig.val();
                            self.at_req_side.d.next = true;
                        }
                        RxAct::Stale => {
                            self.drop_qp_inc.next = true;
                            if self.imp_arm.q.val() && self.chk.rd_ahead.val() {
                                self.rx_ack_valid.next = true;
                                self.rx_ack_syndrome.next = self.nak_psn_seq.val();
                                self.rx_ack_psn.next = self.chk.rd_exp_psn.val();
                                self.implied_nak_inc.next = true;
                                self.imp_arm.d.next = false;
                                self.imp_wait.d.next = true;
                            }
                        }
                        RxAct::Wait => {
                            // The previous READ has not been taken by the transmit engine yet: wait.
                            self.buf_pop.next = false;
                        }
                        RxAct::DupRead => {
                            // Duplicate READ: executed again, its responses from the request's PSN
                            // (§9.7.5.1.2).
                            self.dup_inc.next = true;
                            self.rr_pend.d.next = true;
                            self.rr_va_q.d.next = self.rh.va.val();
                            self.rr_len_q.d.next = self.rh.dmalen.val();
                            self.rr_psn_q.d.next = self.rh.psn.val();
                            self.rr_atomic_q.d.next = false;
                            self.rr_msn_q.d.next = self.msn.q.val();
                        }
                        RxAct::Dup => {
                            self.dup_inc.next = true;
                        }
                        RxAct::DupAtomic => {
                            // Duplicate atomic: never executed twice; the saved result is sent again
                            // (§9.4.5).
                            self.dup_inc.next = true;
                            self.rr_pend.d.next = true;
                            self.rr_atomic_q.d.next = true;
                            self.rr_orig_q.d.next = self.ac_hit_orig.q.val();
                            self.rr_psn_q.d.next = self.rh.psn.val();
                            self.rr_msn_q.d.next = self.msn.q.val();
                        }
                        RxAct::DupAck => {
                            // Duplicate (§9.7.5.1.2): re-ACK the last PSN executed, do not re-execute.
                            self.dup_inc.next = true;
                            self.send_ack.next = true;
                            self.ack_syn_l.next = self.aeth_ack_no_credits.val();
                            self.ack_psn_l.next = self.s_psn_prev.q.val();
                        }
                        RxAct::SeqErr => {
                            // PSN sequence error (§9.7.5.1.1): one NAK until the expected PSN arrives.
                            self.seq_err_inc.next = true;
                            if !self.nak_sent.q.val() {
                                self.nak_sent.d.next = true;
                                self.send_ack.next = true;
                                self.ack_syn_l.next = self.nak_psn_seq.val();
                                self.ack_psn_l.next = self.s_rq_psn.q.val();
                            }
                        }
                        RxAct::InvalidRequest => {
                            // Invalid request NAK; the responder QP goes to the error state (§9.9.3.1.2).
                            self.nak_fatal.next = true;
                        }
                        RxAct::InvalidInvalidate => {
                            // An R_Key that may not be invalidated: invalid request NAK, the QP to ERR (as
                            // rdma_rxe, which completes such a receive with REM_INV_REQ_ERR).
                            self.inv_err_inc.next = true;
                            self.nak_fatal.next = true;
                        }
                        RxAct::RemoteAccess => {
                            // Remote access error NAK (§9.7.5.1.7); the QP goes to the error state.
                            self.rem_access_inc.next = true;
                            self.nak_fatal.next = true;
                            self.nak_fatal_syn.next = self.nak_remote_access.val();
                        }
                        RxAct::Atomic => {
                            self.buf_pop.next = false;
                            self.at_va.d.next = self.rh.va.val();
                            self.at_req_side.d.next = false;
                        }
                        RxAct::Read => {
                            // RDMA READ (§9.7.5.1.5): hand it to the transmit engine; its responses take the
                            // next ceil(len / MTU) PSNs and complete one message.
                            self.rr_pend.d.next = true;
                            self.rr_va_q.d.next = self.rh.va.val();
                            self.rr_len_q.d.next = self.rh.dmalen.val();
                            self.rr_psn_q.d.next = self.rh.psn.val();
                            self.rr_atomic_q.d.next = false;
                            self.rr_msn_q.d.next = self.msn.q.val() + 1;
                            self.msn.d.next = self.msn.q.val() + 1;
                            self.nak_sent.d.next = false;
                            self.rq_psn_set.next = true;
                            self.rq_psn_val.next = bit_cast::<32, 24>(self.chk.rq_psn_end.val());
                        }
                        RxAct::SendCont => {
                            // SEND MIDDLE/LAST: continue in the receive buffer where the last packet ended.
                            // LAST WITH INVALIDATE invalidates its R_Key now, with the entry just checked.
                            self.buf_pop.next = false;
                            self.mr_inv.next = self.rh.is_ieth.val();
                            self.dst.d.next = self.write_va.q.val();
                            if self.rq128.val() && !self.sgl_mine.q.val() {
                                // Another QP's receive WQE came between: fetch this one's list again.
                                self.relist.d.next = true;
                            }
                        }
                        RxAct::Send => {
                            self.buf_pop.next = false;
                            self.send_total.d.next = 0.into();
                            self.mr_inv.next = self.rh.is_ieth.val();
                            self.relist.d.next = false;
                        }
                        RxAct::Rnr => {
                            // No receive WQE for a SEND or a WRITE with immediate (which completes one): RNR
                            // NAK (§9.7.5.1.6) with MIN_RNR_TIMER; PSN not consumed.
                            if self.rh.is_send.val() {
                                self.send_total.d.next = 0.into();
                            }
                            self.send_ack.next = true;
                            self.ack_syn_l.next = self.aeth_rnr_nak.val()
                                | bit_cast::<8, 32>(
                                    self.min_rnr_timer.val() & self.aeth_value.val(),
                                );
                            self.tx_rnr_naks_inc.next = true;
                            self.ack_psn_l.next = self.rh.psn.val();
                        }
                        RxAct::Write => {
                            // RDMA WRITE: FIRST/ONLY start at the RETH's VA, MIDDLE/LAST continue the write.
                            self.buf_pop.next = false;
                            if self.rh.is_reth.val() {
                                self.write_left.d.next = self.rh.dmalen.val();
                                self.write_total.d.next = self.rh.dmalen.val();
                                self.write_rkey.d.next = self.rh.rkey.val();
                            }
                            if self.rh.write_imm.val() {
                                // Its receive WQE gives the completion's wr_id (the data goes where the
                                // RETH says).
                                self.relist.d.next = false;
                            } else {
                                self.prime.next = true;
                            }
                        }
                    }
                }
                if self.nak_fatal.val() {
                    self.send_ack.next = true;
                    self.ack_syn_l.next = self.nak_fatal_syn.val();
                    self.ack_psn_l.next = self.rh.psn.val();
                    self.qp_err.next = true;
                }
                // WRITE and READ-response data: Prime1's work here (the payload's first word was
                // addressed in Decode, `dst` loaded there), straight on to Data.
                self.prime_at.next = self.a_hdr1.q.val();
                self.prime_at1.next = self.a_hdr2.q.val();
            }
            RespState::CtxWait => {}
            RespState::RqFetch => {
                self.rd_req_valid.next = true;
                if self.rd_req_ready.val() {
                    self.k.d.next = 0.into();
                    self.state.d.next = RespState::RqData;
                }
            }
            RespState::RqData => {
                // Receive WQE (proto::host::recv_wqe): NUM_SGE at 0x02, length at 0x04, wr_id at 0x08,
                // address at 0x10; a 128-byte one's scatter list at 0x40 shifts into `sgl_buf`.
                // A relist fetch takes only the list (the SEND's progress is in recv_len and dst).
                self.rd_resp_ready.next = true;
                if self.rd_resp_valid.val() {
                    self.k.d.next = self.k.q.val() + 1;
                    if self.k.q.val() == 0 {
                        if !self.relist.q.val() {
                            self.recv_len.d.next = bit_cast::<32, W>(self.rd_resp_data.val() >> 32);
                            self.tl_pick.next = true;
                        }
                        self.sgl_nsge.d.next =
                            bit_cast::<8, W>(self.rd_resp_data.val() >> self.sh_nsge.val());
                    }
                    if self.k.q.val() >= self.wqe_beats.val() {
                        self.sgl_buf.d.next = (self.sgl_buf.q.val() >> self.w_bits.val())
                            | (bit_cast::<512, W>(self.rd_resp_data.val())
                                << self.sgl_in_shift.val());
                    }
                    if (self.k.q.val() == self.wqe_wrid_beat.val()) && !self.relist.q.val() {
                        self.recv_wr_id.d.next =
                            bit_cast::<64, W>(self.rd_resp_data.val() >> self.wqe_wrid_shift.val());
                    }
                    if (self.k.q.val() == self.wqe_addr_beat.val())
                        && self.rh.is_send.val()
                        && !self.relist.q.val()
                    {
                        self.dst.d.next =
                            bit_cast::<64, W>(self.rd_resp_data.val() >> self.wqe_addr_shift.val());
                    }
                    if self.rd_resp_last.val() {
                        self.sgl_ok.d.next = self.rq128.val();
                        self.sgl_qpn.d.next = self.qpn.val();
                        if self.rq128.val()
                            && self.sgl_scatter.val()
                            && self.rh.is_send.val()
                            && !self.relist.q.val()
                        {
                            // A scattered SEND's addresses are offsets in its message.
                            self.dst.d.next = 0.into();
                        }
                        self.state.d.next = RespState::Prime0;
                        if self.rq128.val() {
                            self.k.d.next = 0.into();
                            self.state.d.next = RespState::RqSum;
                        }
                    }
                }
            }
            RespState::RqSum => {
                // The list's length is added up (host::sgl_sum, its LATENCY cycles), then checked
                // (sgl_bad, a cycle in RqList).
                self.k.d.next = self.k.q.val() + 1;
                if self.k.q.val() == self.sum_wait.val() {
                    self.state.d.next = RespState::RqList;
                }
            }
            RespState::RqList => {
                self.state.d.next = RespState::Prime0;
            }
            RespState::Prime0 => {
                if self.rh.is_send.val()
                    && !self.rh.send_cont.val()
                    && self.rq128.val()
                    && self.sgl_bad.q.val()
                {
                    // A malformed receive WQE (its scatter list does not add up to its LENGTH, or has
                    // more than 4 entries): remote operational error NAK, QP to error, as rdma_rxe
                    // answers a malformed WQE: the fault is the receiver's, not the request's.
                    self.send_ack.next = true;
                    self.ack_syn_l.next = self.nak_remote_op.val();
                    self.ack_psn_l.next = self.psn.q.val();
                    self.qp_err.next = true;
                    self.state.d.next = RespState::Pop;
                } else if self.rh.is_send.val() && self.too_long.q.val() {
                    // The message does not fit the receive buffer: invalid request NAK, QP to error.
                    self.send_ack.next = true;
                    self.ack_syn_l.next = self.nak_invalid_req.val();
                    self.ack_psn_l.next = self.psn.q.val();
                    self.qp_err.next = true;
                    self.state.d.next = RespState::Pop;
                } else {
                    self.buf_rd_addr.next = self.a_pw0.q.val();
                    self.j.d.next = 0.into();
                    self.ll.d.next = self.rh.pay_len.val();
                    self.nwords.d.next = self.chk.pay_words.val();
                    self.state.d.next = RespState::Prime1;
                }
            }
            RespState::Prime1 => {
                self.prime.next = true;
            }
            RespState::Data => {
                self.buf_rd_addr.next = self.a_cur.q.val();
                self.j_last.d.next = self.j_last.q.val();
                if self.nw_zero.q.val() {
                    self.state.d.next = RespState::Complete;
                } else {
                    self.wr_valid.next = true;
                    if self.wr_ready.val() {
                        self.j.d.next = self.j.q.val() + 1;
                        self.j_last.d.next = self.j.q.val() == self.nwords_m2.q.val();
                        self.ll.d.next = self.ll.q.val() - self.beat_bytes.val();
                        if self.j_last.q.val() {
                            // The last word is written: no idle cycle before Complete.
                            self.state.d.next = RespState::Complete;
                        }
                        self.prev.d.next = self.buf_rd_data.val();
                        self.buf_rd_addr.next = self.a_nxt.q.val();
                        self.a_cur.d.next = self.a_nxt.q.val();
                        self.a_nxt.d.next = self.a_nxt.q.val() + 1;
                    }
                }
            }
            RespState::Complete => {
                if (self.rh.is_read_response.val() || self.rh.is_atomic_acknowledge.val())
                    && self.rr_void.q.val()
                {
                    // Its context was withdrawn: the requester asks again, so it is dropped as if lost.
                    self.buf_pop.next = true;
                    self.state.d.next = RespState::Idle;
                } else if (self.rh.is_read_response.val() || self.rh.is_atomic_acknowledge.val())
                    && !self.wr_idle.val()
                    && (self.rh.is_atomic_acknowledge.val() || self.rd_fin.q.val())
                {
                    // The READ or atomic completes only once its data is out of the write path.
                } else if self.rh.is_read_response.val() || self.rh.is_atomic_acknowledge.val() {
                    // A landed READ response acknowledges its PSN and those before it (§9.7.6).
                    self.rd_exp.d.next = self.rd_exp.q.val() + 1;
                    if self.rh.is_atomic_acknowledge.val() || self.rd_fin.q.val() {
                        self.rd_done.next = true;
                        self.rd_exp.d.next = 0.into();
                    }
                    self.imp_arm.d.next = true;
                    self.rx_ack_valid.next = true;
                    self.rx_ack_resp.next = true;
                    self.rx_ack_syndrome.next = self.aeth_ack.val();
                    // Free the frame here rather than in Pop: a cycle per packet counts at line rate.
                    self.buf_pop.next = true;
                    self.state.d.next = RespState::Idle;
                } else {
                    // The packet is executed: advance the expected PSN, the MSN at a message end, ACK if asked.
                    // A SEND completes its receive WQE with its last packet.
                    // Its CQE waits until the payload is out of the write path.
                    self.cqe_valid.next = ((self.rh.is_send.val() && self.rh.msg_last.val())
                        || self.rh.write_imm.val())
                        && self.wr_idle.val();
                    if self.rh.write_imm.val() {
                        self.cqe_opcode.next = self.wc_recv_rdma_with_imm.val();
                        self.cqe_byte_len.next = self.write_total.q.val();
                    }
                    if !((self.rh.is_send.val() && self.rh.msg_last.val())
                        || self.rh.write_imm.val())
                        || (self.cqe_ready.val() && self.wr_idle.val())
                    {
                        self.rq_psn_set.next = true;
                        self.rq_psn_val.next = bit_cast::<32, 24>(self.psn_next.val());
                        self.nak_sent.d.next = false;
                        // Inside a message after a FIRST or MIDDLE packet.
                        self.in_write.d.next = self.rh.is_write.val() && self.rh.not_last.val();
                        self.in_send.d.next = self.rh.is_send.val() && self.rh.not_last.val();
                        self.recv_len.d.next = self.recv_len.q.val() - self.pay_len32.val();
                        self.send_total.d.next = self.send_total.q.val() + self.pay_len32.val();
                        self.write_va.d.next = (bit_cast::<64, 32>(self.dst_hi.val()) << 32)
                            | bit_cast::<64, 33>(self.wv_lo_q.q.val() & 0xFFFF_FFFF_u64);
                        if self.wv_lo_q.q.val().get_bit(32) {
                            self.write_va.d.next = (bit_cast::<64, 32>(self.dst_hi1.q.val()) << 32)
                                | bit_cast::<64, 33>(self.wv_lo_q.q.val() & 0xFFFF_FFFF_u64);
                        }
                        self.write_left.d.next =
                            self.write_left.q.val() - bit_cast::<32, 16>(self.rh.pay_len.val());
                        if self.rh.msg_last.val() {
                            self.msn.d.next = self.msn.q.val() + 1;
                        }
                        if (self.rh.is_send.val() && self.rh.msg_last.val())
                            || self.rh.write_imm.val()
                        {
                            self.rq_ci_inc.next = true;
                        }
                        if self.rh.ack_req.val() {
                            self.send_ack.next = true;
                            self.ack_syn_l.next = self.aeth_ack_no_credits.val();
                            self.ack_psn_l.next = self.psn.q.val();
                            if self.rh.msg_last.val() {
                                self.ack_msn_l.next = self.msn.q.val() + 1;
                            }
                        }
                        // Free the frame here rather than in Pop: a cycle per packet counts at line rate.
                        self.buf_pop.next = true;
                        self.state.d.next = RespState::Idle;
                    }
                }
            }
            RespState::AtRead => {
                self.rd_req_valid.next = true;
                self.rd_req_addr.next = self.at_va.q.val() & !self.low_mask.val();
                self.rd_req_beats.next = 1.into();
                if self.rd_req_ready.val() {
                    self.state.d.next = RespState::AtData;
                }
            }
            RespState::AtData => {
                // COMPARE_SWAP writes the swap value only if the word equals the compare value;
                // FETCH_ADD adds (modulo 2^64). Either way the original value is returned.
                self.rd_resp_ready.next = true;
                if self.rd_resp_valid.val() {
                    self.at_orig.d.next = self.at_word.val();
                    self.state.d.next = RespState::AtSum;
                }
            }
            RespState::AtSum => {
                self.state.d.next = RespState::AtPick;
            }
            RespState::AtPick => {
                // FETCH_ADD: the low half's carry picks the high half's sum (both registered in AtSum).
                // COMPARE_SWAP: the swap value if the word equalled the compare value (registered in
                // AtSum), else nothing is written.
                self.state.d.next = RespState::AtWrite;
                if self.rh.is_fetch_add.val() {
                    self.at_val.d.next = (bit_cast::<64, 32>(self.at_sum_hi.val()) << 32)
                        | bit_cast::<64, 33>(self.at_lo_q.q.val() & 0xFFFF_FFFF_u64);
                } else if self.at_eq.q.val() {
                    self.at_val.d.next = self.rh.swap.val();
                } else {
                    self.state.d.next = RespState::AtDone;
                }
            }
            RespState::AtWrite => {
                // One 8-byte write with its byte strobes (the data and strobe are set below).
                self.wr_valid.next = true;
                if self.wr_ready.val() {
                    if self.at_req_side.q.val() {
                        self.state.d.next = RespState::Complete;
                    } else {
                        self.state.d.next = RespState::AtDone;
                    }
                }
            }
            RespState::AtDone => {
                // Executed: one PSN and one message; the result is saved for a duplicate.
                self.rr_pend.d.next = true;
                self.rr_atomic_q.d.next = true;
                self.rr_orig_q.d.next = self.at_orig.q.val();
                self.rr_psn_q.d.next = self.psn.q.val();
                self.rr_msn_q.d.next = self.msn.q.val() + 1;
                self.msn.d.next = self.msn.q.val() + 1;
                // Into entry ac_next, the oldest. An older entry of the same PSN (2^24 PSNs ago) goes, so a
                // lookup never finds two.
                if self.ac_psn.q.val() == self.psn.q.val() {
                    self.ac_valid.d.next = false;
                }
                if self.ac_psn1.q.val() == self.psn.q.val() {
                    self.ac_valid1.d.next = false;
                }
                if self.ac_psn2.q.val() == self.psn.q.val() {
                    self.ac_valid2.d.next = false;
                }
                if self.ac_psn3.q.val() == self.psn.q.val() {
                    self.ac_valid3.d.next = false;
                }
                if self.ac_next.q.val() == 0 {
                    self.ac_valid.d.next = true;
                    self.ac_psn.d.next = self.psn.q.val();
                    self.ac_orig.d.next = self.at_orig.q.val();
                }
                if self.ac_next.q.val() == 1 {
                    self.ac_valid1.d.next = true;
                    self.ac_psn1.d.next = self.psn.q.val();
                    self.ac_orig1.d.next = self.at_orig.q.val();
                }
                if self.ac_next.q.val() == 2 {
                    self.ac_valid2.d.next = true;
                    self.ac_psn2.d.next = self.psn.q.val();
                    self.ac_orig2.d.next = self.at_orig.q.val();
                }
                if self.ac_next.q.val() == 3 {
                    self.ac_valid3.d.next = true;
                    self.ac_psn3.d.next = self.psn.q.val();
                    self.ac_orig3.d.next = self.at_orig.q.val();
                }
                self.ac_next.d.next = self.ac_next.q.val() + 1;
                self.nak_sent.d.next = false;
                self.rq_psn_set.next = true;
                self.rq_psn_val.next = bit_cast::<32, 24>(self.psn_next.val());
                self.state.d.next = RespState::Pop;
            }
            RespState::Pop => {
                self.buf_pop.next = true;
                self.state.d.next = RespState::Idle;
            }
            _ => {
                self.state.d.next = RespState::Idle;
            }
        }
        self.too_long.d.next =
            (self.tl_wqe.val() && self.tl_pick.val()) || (self.tl_reg.val() && !self.tl_pick.val());
        self.wr_addr.next = (bit_cast::<64, 32>(self.dst_hi.val()) << 32)
            | bit_cast::<64, 33>(self.wa_lo.val() & 0xFFFF_FFFF_u64);
        if self.wa_lo.val().get_bit(32) {
            self.wr_addr.next = (bit_cast::<64, 32>(self.dst_hi1.q.val()) << 32)
                | bit_cast::<64, 33>(self.wa_lo.val() & 0xFFFF_FFFF_u64);
        }
        self.wr_data.next = self.out_word.val();
        self.wr_strb.next = self.ones.val();
        if self.lanes_left.val() < self.beat_bytes.val() {
            self.wr_strb.next = !(self.ones.val() << self.lanes_left.val());
        }
        self.wr_last.next = self.lanes_left.val() <= self.beat_bytes.val();
        // A withdrawn READ's response keeps its burst (the list and mode it started with, host::scatter)
        // but no byte of it lands: the WQE may already have completed in error and its buffer be reused.
        if self.rh.is_read_response.val() && self.rr_void.q.val() {
            self.wr_strb.next = 0.into();
        }
        if self.at_sel.q.val() {
            self.wr_last.next = true;
            self.wr_addr.next = self.at_va.q.val() & !self.low_mask.val();
            self.wr_data.next = bit_cast::<W, 64>(self.at_val.q.val()) << (self.at_off.val() << 3);
            self.wr_strb.next = bit_cast::<B, 8>(bits::<8>(0xFF)) << self.at_off.val();
        }
        if self.rh.is_atomic_acknowledge.val() && self.rr_void.q.val() {
            self.wr_strb.next = 0.into();
        }
        self.ack_rq.d.next = self.send_ack.val();
        self.ack_chg.d.next = self.ack_rq.q.val();
        self.ack_new.next = self.ack_chg.q.val();
        self.ack_rq_syn.d.next = self.ack_syn_l.val();
        self.ack_rq_psn.d.next = self.ack_psn_l.val();
        self.ack_rq_msn.d.next = self.ack_msn_l.val();
        if self.ack_rq.q.val() {
            self.ack_pend.d.next = true;
            self.ack_syn.d.next = self.ack_rq_syn.q.val();
            self.ack_psn_q.d.next = self.ack_rq_psn.q.val();
            self.ack_msn_q.d.next = self.ack_rq_msn.q.val();
        }
        if self.rr_taken.val() {
            self.rr_pend.d.next = false;
        }
        if self.cnp_taken.val() {
            self.cnp_pend.d.next = false;
        }
        if self.prime.val() {
            // The realigning window's first word is in: the second addressed, on to Data.
            self.prev.d.next = self.buf_rd_data.val();
            self.buf_rd_addr.next = self.prime_at.val();
            self.a_cur.d.next = self.prime_at.val();
            self.a_nxt.d.next = self.prime_at1.val();
            self.state.d.next = RespState::Data;
        }
        if self.rd_withdraw.val() || self.rd_restart.val() {
            self.rr_void.d.next = true;
        }
        if self.rd_restart.val() {
            self.rd_exp.d.next = self.rd_restart_idx.val();
            self.imp_arm.d.next = !self.imp_wait.q.val();
            self.imp_wait.d.next = false;
        }
        self.st_reset.d.next = (self.qp_state.val() == self.qs_reset.val()) && !self.ctx_load.val();
        self.st_reset_err.d.next = ((self.qp_state.val() == self.qs_reset.val())
            || (self.qp_state.val() == self.qs_err.val()))
            && !self.ctx_load.val();
        self.st_le_init.d.next =
            (self.qp_state.val() <= self.qs_init.val()) && !self.ctx_load.val();
        if self.st_reset_err.q.val() {
            self.rr_pend.d.next = false;
            self.cnp_pend.d.next = false;
        }
        if self.st_le_init.q.val() {
            // A QP taken back to RESET (or INIT) sends nothing: its pending ACK goes too, or it would hold
            // the engine from every other QP's packets (CtxWait switches only with nothing pending).
            self.ack_pend.d.next = false;
        }
        if self.st_reset.q.val() {
            self.ac_valid.d.next = false;
            self.ac_valid1.d.next = false;
            self.ac_valid2.d.next = false;
            self.ac_valid3.d.next = false;
            self.ac_next.d.next = 0.into();
        }
        if self.st_reset.q.val() {
            // RESET clears the responder context (IBA §10.3.1); the PSN comes from RQ_PSN at RTR.
            self.msn.d.next = 0.into();
            self.nak_sent.d.next = false;
            self.in_write.d.next = false;
            self.in_send.d.next = false;
        }
        if self.reset.val() || self.st_reset.q.val() {
            // No CNP sent yet: the first CE-marked packet gets one at once.
            self.cnp_seen.d.next = false;
        }
        if self.state.q.val() == RespState::CtxWait {
            // Switch only with nothing of the current QP pending: the transmit engine addresses ACKs,
            // CNPs and READ jobs with the current QP's address vector. Then through Fields to Check:
            // roce::recv_check takes the MTU and READ figures two cycles ahead.
            self.ctx_want.next = !(self.ack_pend.q.val()
                || self.ack_rq.q.val()
                || self.rr_pend.q.val()
                || self.cnp_pend.q.val());
            if self.ctx_hit.val() {
                self.state.d.next = RespState::Fields;
            }
        }
        // The current QP's counters follow the port counters' events (all in Decode, on this QP's packets).
        if self.seq_err_inc.val() {
            self.qc_oos.d.next = self.qc_oos.q.val() + 1;
        }
        if self.dup_inc.val() {
            self.qc_dup.d.next = self.qc_dup.q.val() + 1;
        }
        if self.rx_seq_naks_inc.val() {
            self.qc_seq_nak.d.next = self.qc_seq_nak.q.val() + 1;
        }
        if self.ctx_load.val() {
            self.msn.d.next = self.ctx_r.msn.val();
            self.nak_sent.d.next = self.ctx_r.nak_sent.val();
            self.in_write.d.next = self.ctx_r.in_write.val();
            self.in_send.d.next = self.ctx_r.in_send.val();
            self.ac_valid.d.next = self.ctx_r.ac_valid.val();
            self.cnp_seen.d.next = self.ctx_r.cnp_seen.val();
            self.ac_next.d.next = self.ctx_r.ac_next.val();
            self.ac_psn.d.next = self.ctx_r.ac_psn.val();
            self.write_va.d.next = self.ctx_r.write_va.val();
            self.write_left.d.next = self.ctx_r.write_left.val();
            self.write_total.d.next = self.ctx_r.write_total.val();
            self.write_rkey.d.next = self.ctx_r.write_rkey.val();
            self.recv_len.d.next = self.ctx_r.recv_len.val();
            self.recv_wr_id.d.next = self.ctx_r.recv_wr_id.val();
            self.send_total.d.next = self.ctx_r.send_total.val();
            self.cnp_last.d.next = self.ctx_r.cnp_last.val();
            self.ac_orig.d.next = self.ctx_r.ac_orig.val();
            self.ac_psn1.d.next = self.ctx_r.ac_psn1.val();
            self.ac_valid1.d.next = self.ctx_r.ac_valid1.val();
            self.ac_orig1.d.next = self.ctx_r.ac_orig1.val();
            self.ac_psn2.d.next = self.ctx_r.ac_psn2.val();
            self.ac_valid2.d.next = self.ctx_r.ac_valid2.val();
            self.ac_orig2.d.next = self.ctx_r.ac_orig2.val();
            self.ac_psn3.d.next = self.ctx_r.ac_psn3.val();
            self.ac_valid3.d.next = self.ctx_r.ac_valid3.val();
            self.ac_orig3.d.next = self.ctx_r.ac_orig3.val();
            self.qc_oos.d.next = self.ctx_r.out_of_sequence.val();
            self.qc_dup.d.next = self.ctx_r.duplicate_request.val();
            self.qc_seq_nak.d.next = self.ctx_r.packet_seq_err.val();
        }
        if self.reset.val() {
            self.state.d.next = RespState::Idle;
            self.h_fill.d.next = false;
            self.ack_pend.d.next = false;
            self.sgl_ok.d.next = false;
            self.last_syn.d.next = bit_cast::<32, 8>(self.aeth_ack.val());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rx_engine_synthesizes() {
        let mut uut = RxEngine::<64, 8, 11>::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        assert!(v.contains("module top"));
    }
}
