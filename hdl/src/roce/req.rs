//! Transmit engine of one RC QP: the REQUESTER (IBA vol1 §9.7) for RDMA WRITE and SEND, and the emission of
//! the ACK/NAK frames the responder (`roce::resp`) asks for.
//!
//! Per WQE: fetch the 64-byte send WQE by DMA, segment the message at the path MTU (§9.7), and for each
//! packet set up its descriptor (opcode, PSN, length, extension headers) for the frame builder
//! (`roce::frame_build`), which puts the headers, the payload read from host memory, the pad and the ICRC
//! (§7.8, RoCEv2 annex A17) on the wire.
//! Then wait for the ACK covering the last PSN, with go-back-N on a PSN-sequence NAK or a local ACK timeout
//! (§9.7.5.1.1, §9.7.6), and post the completion. ACK/NAK frames go out between packets, before anything else
//! except the responses of an earlier READ or atomic (responses leave in PSN order).
use super::ack_verdict::AckVerdict;
use super::comp_check::CompCheck;
use super::ctx::{
    ReadOutstandingPack, ReadOutstandingUnpack, SqOutstandingPack, SqOutstandingUnpack,
    READ_OUTSTANDING_BITS, SQ_OUTSTANDING_BITS,
};
use super::frame_build::FrameBuild;
use super::pf_seg::PfSeg;
use super::retry_timer::RetryTimer;
use super::tx_arbiter::{TxArbiter, TxPick};
use super::wqe_addr::WqeAddr;
use crate::host::sgl_sum::{self, SglSum};
use crate::roce::read_reply::ReadReply;
use rocenic_proto::aeth::{self, RNR_TIMER_US};
use rocenic_proto::host::{wqe, QpState, WcOpcode, WcStatus, WrOpcode};
use rocenic_proto::opcode;
use rocenic_proto::Width;
use rust_hdl::prelude::*;

/// Work requests whose packets are all out, waiting for their ACK (the outstanding ring `rg`).
const RG_DEPTH: u64 = 8;

/// READ/atomic requests outstanding at once (max_qp_init_rd_atom; proto::regs::RD_ATOMIC_DEPTH): the
/// READ context queue `rdq`.
const RDQ_DEPTH: u64 = rocenic_proto::regs::RD_ATOMIC_DEPTH as u64;

/// Work requests a QP may start in one turn (the scheduler switches QPs only once the ring is empty; a QP
/// that keeps posting would otherwise keep the engine).
const TURN_WQES: u64 = 16;

/// Payload reads the requester keeps ahead of the packet on the wire: enough to cover the host's read
/// latency with MTU 1024 frames at 512 bits (about 18 cycles each against a 50-cycle read).
const PF_DEPTH: u64 = 4;

#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
enum TxState {
    /// Between packets: pick the next job (ACK frame, ACK/NAK received, timeout, packet, new WQE).
    Idle,
    /// Fetch the send WQE at SQ_CI.
    WqeReq,
    WqeData,
    /// Latch the WQE fields, then check them and set up the message.
    WqeParse,
    /// A 128-byte WQE: its gather list's length is added up (host::sgl_sum, LATENCY cycles).
    WqeSum,
    WqeCheck,
    /// Compute the next packet's opcode, PSN, length and source address.
    PktSetup,
    /// The same for the next RDMA READ response packet of the responder's read job.
    RrSetup,
    /// Build the header register (base headers, then the extension header).
    Load,
    Ext,
    /// Request the packet's payload from host memory.
    DmaReq,
    /// Stream the frame to the MAC.
    Emit,
    /// Discard a prefetched payload the next packet will not use (go-back-N, an error, leaving RTS).
    PfDrain,
    /// Post the completion and advance SQ_CI.
    Cqe,
    /// Discard a WQE fetched ahead that is not the next one after all (a NAK or timeout went back).
    WqeDrain,
    /// The same for the oldest WQE of the outstanding ring (`rg`).
    RgCqe,
}

/// Transmit engine, `W` bits wide with `B = W / 8` byte lanes (lane 0 = bits 7:0 = first byte on the wire).
#[derive(LogicBlock)]
pub struct TxEngine<const W: usize, const B: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    // configuration (register values)
    pub enable: Signal<In, bool>,
    pub qp_state: Signal<In, Bits<32>>,
    pub mac_lo: Signal<In, Bits<32>>,
    pub mac_hi: Signal<In, Bits<32>>,
    pub ipv4: Signal<In, Bits<32>>,
    pub dest_mac_lo: Signal<In, Bits<32>>,
    pub dest_mac_hi: Signal<In, Bits<32>>,
    pub dest_ipv4: Signal<In, Bits<32>>,
    /// RoCEv2 over IPv6 (QP_IPV6 bit 0): the frame leaves IPv6 from `src_gid` to `dest_gid_hi : dest_ipv4`
    /// (address-vector inputs, like `dest_ipv4`).
    pub ipv6: Signal<In, bool>,
    pub src_gid: Signal<In, Bits<128>>,
    pub dest_gid_hi: Signal<In, Bits<96>>,
    pub dest_qpn: Signal<In, Bits<32>>,
    pub udp_sport: Signal<In, Bits<32>>,
    /// UDP destination port of RoCEv2 (UDP_DPORT, 4791 after reset).
    pub udp_dport: Signal<In, Bits<16>>,
    /// DSCP of the QP's packets and of CNPs; ECT(0) on or off (the IPv4 TOS byte is DSCP << 2 | ECN).
    pub qp_dscp: Signal<In, Bits<32>>,
    /// The QP's IPv4 TTL or IPv6 hop limit, and its IPv6 flow label (address vector, QP_HOP_LIMIT and
    /// QP_FLOW_LABEL): on its requests, responses and CNPs.
    pub hop_limit: Signal<In, Bits<8>>,
    pub flow_label: Signal<In, Bits<20>>,
    /// The QP's VLAN (address vector, QP_VLAN): bit 0 on, bits 2..1 the port VLAN table entry; `tx_vlan`
    /// is the frame on the MAC stream's, taken with its header.
    pub vlan: Signal<In, Bits<3>>,
    pub tx_vlan: Signal<Out, Bits<3>>,
    /// The QP the frame on the MAC stream is from (its address vector's), and whether it is a CNP: for
    /// the DCQCN rate limiters (`net::rate_limiters`), which pace a QP's frames but never a CNP.
    pub tx_qpn: Signal<Out, Bits<16>>,
    pub tx_cnp: Signal<Out, bool>,
    /// The DSCP the frame on the MAC stream carries, taken with its header: the top level maps it to the
    /// frame's 802.1Qbb priority (what PFC pauses, and its PCP when tagged).
    pub tx_dscp: Signal<Out, Bits<6>>,
    /// A frame is committed: being set up, built or streamed (PktSetup, RrSetup, Load, Ext, DmaReq, Emit).
    pub tx_committed: Signal<Out, bool>,
    /// The current QP's DCQCN rate limiter owes many cycles of sending: build none of its packets and start
    /// none of its work requests now.
    pub paced: Signal<In, bool>,
    /// The priority of the QP whose address vector is read (`av_qpn`, its `qp_dscp`) is paused by PFC:
    /// while that is the current QP, it is treated as `paced` (its frames would only wait at the arbiter,
    /// in front of other QPs').
    pub av_paused: Signal<In, bool>,
    pub cnp_dscp: Signal<In, Bits<32>>,
    pub tx_ecn: Signal<In, bool>,
    pub pmtu: Signal<In, Bits<32>>,
    pub ack_timeout: Signal<In, Bits<32>>,
    /// Fast-forward (simulation; 0 in hardware): this clock edge stands for `1 + warp` cycles.
    pub warp: Signal<In, Bits<32>>,
    /// Cycles the retransmission timer can run before the ACK or RNR timeout it is compared with, as
    /// of the last cycle (all ones while it stands still).
    pub wake: Signal<Out, Bits<32>>,
    pub retry_cnt: Signal<In, Bits<32>>,
    /// The QP's max_rd_atomic: READ/atomic requests it keeps outstanding (0 acts as 1, at most RDQ_DEPTH).
    pub max_rd_atomic: Signal<In, Bits<3>>,
    /// TX_STATUS (proto::regs): the requester's state bits, for debugging a stuck send queue.
    pub status: Signal<Out, Bits<32>>,
    st_idle: Signal<Local, bool>,
    /// TX_STATUS bit 15: the ring head is a READ/atomic (only with entries in the ring; the RAM word of an
    /// empty ring is not defined).
    st_hrd: Signal<Local, bool>,
    /// An ACK or NAK past the WRITE or SEND in progress acknowledges it whole.
    w_past: Signal<Local, bool>,
    /// RNR NAKs to wait out per WQE; 7 = forever.
    pub rnr_retry: Signal<In, Bits<32>>,
    pub rnr_retry_exc_inc: Signal<Out, bool>,
    pub ack_req_every: Signal<In, Bits<32>>,
    pub sq_base_lo: Signal<In, Bits<32>>,
    pub sq_base_hi: Signal<In, Bits<32>>,
    pub sq_log_size: Signal<In, Bits<32>>,
    pub sq_pi: Signal<In, Bits<32>>,
    pub sq_ci: Signal<In, Bits<32>>,
    pub sq_psn: Signal<In, Bits<32>>,
    /// The WQE push window (BlueFlame-style): a WQE written through registers for send-queue index
    /// `push_db & 0xFFFF` (valid with bit 31) is taken from there instead of fetched by DMA.
    pub push_db: Signal<In, Bits<32>>,
    pub push_wqe: Signal<In, Bits<512>>,
    pub push_used: Signal<Out, bool>,
    /// Multi-QP (roce::qp_table): the per-QP inputs above are the *current* QP's (`cur_qpn`), which the
    /// table changes only while `sw_ok` (no work request in progress) and holds with `hold`; ACK/NAKs,
    /// CNPs and READ jobs belong to the receive engine's current QP (`job_*`). The frame's address vector
    /// (DEST_MAC/IPV4/QPN, UDP_SPORT, QP_DSCP inputs) is read from the table at `av_qpn`, one cycle late.
    pub hold: Signal<In, bool>,
    pub sw_ok: Signal<Out, bool>,
    pub cur_qpn: Signal<In, Bits<32>>,
    pub job_qpn: Signal<In, Bits<32>>,
    pub job_state: Signal<In, Bits<32>>,
    pub job_pmtu: Signal<In, Bits<32>>,
    pub av_qpn: Signal<Out, Bits<32>>,
    // register updates and counter pulses
    pub sq_psn_set: Signal<Out, bool>,
    pub sq_psn_val: Signal<Out, Bits<32>>,
    pub qp_err: Signal<Out, bool>,
    pub sq_ci_inc: Signal<Out, bool>,
    pub tx_frames_inc: Signal<Out, bool>,
    pub tx_acks_inc: Signal<Out, bool>,
    pub retransmits_inc: Signal<Out, bool>,
    pub ack_timeouts_inc: Signal<Out, bool>,
    // ACK/NAK the responder wants sent (held until taken)
    pub ack_valid: Signal<In, bool>,
    pub ack_syndrome: Signal<In, Bits<8>>,
    pub ack_psn: Signal<In, Bits<24>>,
    pub ack_msn: Signal<In, Bits<24>>,
    /// The pending ACK/NAK's fields are new this cycle (a new one, or one replacing the last).
    pub ack_new: Signal<In, bool>,
    pub ack_taken: Signal<Out, bool>,
    // RDMA READ the responder executes (held until taken): responses from `rr_va`, PSNs from `rr_psn`.
    /// A CNP to send to DEST_QPN (held until taken), and its counter.
    pub cnp_valid: Signal<In, bool>,
    pub cnp_taken: Signal<Out, bool>,
    pub tx_cnp_inc: Signal<Out, bool>,
    pub rr_valid: Signal<In, bool>,
    pub rr_va: Signal<In, Bits<64>>,
    pub rr_len: Signal<In, Bits<32>>,
    pub rr_psn: Signal<In, Bits<24>>,
    pub rr_msn: Signal<In, Bits<24>>,
    /// The job is an ATOMIC ACKNOWLEDGE carrying `rr_orig` rather than READ responses.
    pub rr_atomic: Signal<In, bool>,
    pub rr_orig: Signal<In, Bits<64>>,
    pub rr_taken: Signal<Out, bool>,
    // The requester's RDMA READ in progress, for the receive engine that lands its responses; a pulse on
    // `rd_restart` each time a READ request goes out, from packet index `rd_restart_idx`.
    pub rd_active: Signal<Out, bool>,
    /// The READ in progress is an atomic (its one response is an ATOMIC ACKNOWLEDGE).
    pub rd_atomic: Signal<Out, bool>,
    pub rd_psn0: Signal<Out, Bits<24>>,
    pub rd_laddr: Signal<Out, Bits<64>>,
    pub rd_len: Signal<Out, Bits<32>>,
    pub rd_restart: Signal<Out, bool>,
    pub rd_restart_idx: Signal<Out, Bits<24>>,
    /// Every READ context is dropped this cycle (`rdq_clear`): a response under way must not land.
    pub rd_withdraw: Signal<Out, bool>,
    /// The receive engine landed the last response of its READ context (the oldest in `rdq`).
    pub rd_done: Signal<In, bool>,
    // ACK/NAK received for our requests (one-cycle pulse)
    pub rx_ack_valid: Signal<In, bool>,
    /// The acknowledgement is a landed READ response or ATOMIC ACKNOWLEDGE.
    pub rx_ack_resp: Signal<In, bool>,
    pub rx_ack_syndrome: Signal<In, Bits<8>>,
    pub rx_ack_psn: Signal<In, Bits<24>>,
    // send completions
    pub cqe_valid: Signal<Out, bool>,
    pub cqe_ready: Signal<In, bool>,
    pub cqe_wr_id: Signal<Out, Bits<64>>,
    pub cqe_status: Signal<Out, Bits<8>>,
    pub cqe_opcode: Signal<Out, Bits<8>>,
    pub cqe_byte_len: Signal<Out, Bits<32>>,
    pub cqe_vendor_err: Signal<Out, Bits<8>>,
    // DMA read client
    pub rd_req_valid: Signal<Out, bool>,
    pub rd_req_ready: Signal<In, bool>,
    /// A read of `rd_req_len` bytes from any byte address; the data comes back as `ceil(len / B)` words
    /// holding bytes `[addr + jB, addr + jB + B)` (host::read_align realigns).
    pub rd_req_addr: Signal<Out, Bits<64>>,
    pub rd_req_len: Signal<Out, Bits<16>>,
    /// `rd_req_addr` is a byte offset in the WQE's gather list `rd_sgl` (its first `rd_sgl_n` entries),
    /// not an address (host::gather).
    pub rd_req_gather: Signal<Out, bool>,
    pub rd_sgl: Signal<Out, Bits<512>>,
    pub rd_sgl_n: Signal<Out, Bits<3>>,
    /// `rd_sgl` is being loaded with another WQE's list (host::gather restarts its walk).
    pub rd_sgl_new: Signal<Out, bool>,
    /// The WQE in progress has a list (`rd_sgl`): a READ's responses scatter over it, by `rd_laddr` =
    /// 0 plus their offset in the message (host::scatter).
    pub rd_scatter: Signal<Out, bool>,
    pub rd_resp_valid: Signal<In, bool>,
    pub rd_resp_data: Signal<In, Bits<W>>,
    pub rd_resp_last: Signal<In, bool>,
    pub rd_resp_ready: Signal<Out, bool>,
    // MAC transmit stream
    pub tx_tdata: Signal<Out, Bits<W>>,
    pub tx_tkeep: Signal<Out, Bits<B>>,
    pub tx_tlast: Signal<Out, bool>,
    pub tx_tvalid: Signal<Out, bool>,
    pub tx_tready: Signal<In, bool>,
    state: DFF<TxState>,
    /// Idle's decision (roce::tx_arbiter).
    arb: TxArbiter,
    // the WQE being executed (proto::host::wqe)
    wqe_buf: DFF<Bits<512>>,
    /// A 128-byte WQE's second half: its gather list (proto::host::sge).
    sgl_buf: DFF<Bits<512>>,
    /// The length of `sgl_buf`'s list (its counted entries' sum).
    sgl_total: SglSum,
    /// WqeSum's cycle count, and its last cycle.
    sum_k: DFF<Bits<2>>,
    sum_wait: Constant<Bits<2>>,
    w_nsge: DFF<Bits<8>>,
    /// The message is gathered from the list (NUM_SGE > 1): local addresses are message offsets.
    w_gather: DFF<bool>,
    p_gather: DFF<bool>,
    /// This QP's send WQEs take 128 bytes (SQ_LOG_SIZE bit 5, `SQ_WQE_128`).
    wqe128: Signal<Local, bool>,
    wqe_len: Signal<Local, Bits<16>>,
    /// The send ring slot of WQE `SQ_CI` (its index mod 2^SQ_LOG_SIZE).
    sgl_bad: Signal<Local, bool>,
    w_opcode: DFF<Bits<8>>,
    w_flags: DFF<Bits<8>>,
    w_len: DFF<Bits<32>>,
    w_wrid: DFF<Bits<64>>,
    w_laddr: DFF<Bits<64>>,
    w_rkey: DFF<Bits<32>>,
    w_raddr: DFF<Bits<64>>,
    w_imm: DFF<Bits<32>>,
    w_cmp: DFF<Bits<64>>,
    w_swap: DFF<Bits<64>>,
    wqe_active: DFF<bool>,
    w_done: DFF<bool>,
    w_status: DFF<Bits<8>>,
    /// `w_status` is not success: set with it, so the completion reads a flag, not a compare.
    w_fail: DFF<bool>,
    /// The QP's RNR_RETRY is 7 (retry forever), registered: QP context, steady through a turn.
    rnr_inf: DFF<bool>,
    /// The gather list's sum differs from the message length, registered a cycle before WqeCheck reads it.
    len_mis: DFF<bool>,
    w_vendor: DFF<Bits<8>>,
    // requester context (§9.7.6), packet indices relative to the WQE's first PSN
    first_psn: DFF<Bits<24>>,
    npk: DFF<Bits<24>>,
    last_idx: DFF<Bits<24>>,
    snd_idx: DFF<Bits<24>>,
    snd_max: DFF<Bits<24>>,
    una: DFF<Bits<24>>,
    retry: DFF<Bits<3>>,
    /// RETRY_CNT (3 bits in the context), and one less.
    retry_init: Signal<Local, Bits<3>>,
    retry_init_m1: Signal<Local, Bits<3>>,
    /// The retransmission timer (roce::retry_timer).
    rt: RetryTimer,
    rnr_wait: DFF<bool>,
    /// The current QP's priority was paused when its address vector was last read (`av_paused`): the
    /// retransmission timer stands still meanwhile.
    cur_paused: DFF<bool>,
    wake_r: DFF<Bits<32>>,
    left_ack: Signal<Local, Bits<32>>,
    left_rnr: Signal<Local, Bits<32>>,
    rnr_left: DFF<Bits<8>>,
    /// Cycles to wait for the RNR NAK being served (its timer code, IBA Table 45, at this width's clock).
    rnr_cycles: DFF<Bits<32>>,
    rnr_rom: ROM<Bits<32>, 5>,
    since_req: DFF<Bits<32>>,
    /// Outstanding ring (docs/transport.md, "Several work requests in flight"): WRITEs and SENDs whose
    /// packets are all out but not yet acknowledged, `rg_n` of them from `rg_head`, in SQ order: entry i
    /// is WQE SQ_CI + i. One entry: first PSN, packets, wr_id, length, work request opcode, signaled.
    rg: RAM<Bits<SQ_OUTSTANDING_BITS>, 3>,
    /// `rg`'s entries by field (SQ_OUTSTANDING).
    rg_w: SqOutstandingPack,
    rg_r: SqOutstandingUnpack,
    rg_head: DFF<Bits<3>>,
    /// READ context queue: one entry per READ or atomic without a scatter list whose request went out and
    /// which has not completed, oldest first (local address, length, first PSN, atomic), so several
    /// can be outstanding (max_rd_atomic). `rdq_n` entries end at `rdq_tail`; the last `rdq_rxn` of them
    /// still wait for responses, and the oldest of those is the receive engine's READ context (responses
    /// come in PSN order, §9.7.5.1.5). The others have landed and retire from the ring (or as the WQE in
    /// progress) in order. A READ with a list is sent only with the queue empty, and is the receive
    /// engine's context itself while in progress (`rd_sgl`).
    rdq: RAM<Bits<READ_OUTSTANDING_BITS>, 2>,
    /// `rdq`'s entries by field (READ_OUTSTANDING).
    rdq_w: ReadOutstandingPack,
    rdq_r: ReadOutstandingUnpack,
    /// The PSN after the highest one sent in this QP's turn. Going back (go-back-N) moves SQ_PSN back but
    /// not this: a responder that executed packets past the resend point acknowledges them (a duplicate
    /// is answered with the last PSN it executed, §9.7.5.1.2), and those ACKs are for packets we sent.
    hi_psn: DFF<Bits<24>>,
    /// A new SQ_PSN set this cycle, registered: `hi_psn` follows it a cycle later, so the decision
    /// that set it is not in series with the compare. (An ACK for a PSN sent a cycle ago cannot have
    /// come back yet.)
    hi_set: DFF<bool>,
    hi_val: DFF<Bits<24>>,
    /// How far that SQ_PSN is past `hi_psn` (a 24-bit modular distance kept at its width).
    hi_step: Signal<Local, Bits<24>>,
    rdq_tail: DFF<Bits<2>>,
    rdq_n: DFF<Bits<3>>,
    rdq_rxn: DFF<Bits<3>>,
    /// `rdq_n` and `rdq_rxn` one up and one down.
    rdq_n_inc: Signal<Local, Bits<3>>,
    rdq_n_dec: Signal<Local, Bits<3>>,
    rdq_rxn_inc: Signal<Local, Bits<3>>,
    rdq_rxn_dec: Signal<Local, Bits<3>>,
    rdq_n_inv: Signal<Local, Bits<3>>,
    rdq_rxn_inv: Signal<Local, Bits<3>>,
    /// The context entry reads back a cycle late after a push into an empty set or a landing.
    rdq_stale: DFF<bool>,
    /// The WQE in progress has its entry in `rdq`.
    w_rdq: DFF<bool>,
    rdq_push: Signal<Local, bool>,
    rdq_pop: Signal<Local, bool>,
    rdq_clear: Signal<Local, bool>,
    rdq_max: Signal<Local, Bits<3>>,
    rdq_depth: Constant<Bits<3>>,
    /// The WQE in progress may send its request: not a READ or atomic, or one that fits in `rdq`.
    rd_go: Signal<Local, bool>,
    /// The ring's head entry is a READ or atomic; it has landed (its context passed the receive engine).
    h_rd: Signal<Local, bool>,
    /// The ring head's work request opcode (ibv_wr_opcode).
    h_op: Signal<Local, Bits<8>>,
    /// The receive engine landed its context's last response (`rd_done` while one waits).
    rx_land: Signal<Local, bool>,
    h_landed: Signal<Local, bool>,
    /// An ACK for a landed response beyond the head READ: kept until the landing retires the head.
    h_wait: Signal<Local, bool>,
    rg_n: DFF<Bits<4>>,
    /// The head entry's RAM read lags a push or a pop by a cycle.
    rg_stale: DFF<bool>,
    /// Packets of the head entry acknowledged so far (a coalesced ACK may end inside it).
    h_una: DFF<Bits<24>>,
    /// Status and vendor syndrome of the head entry being completed (RgCqe).
    rg_status: DFF<Bits<8>>,
    /// `rg_status` is not success, set with it.
    rg_fail: DFF<bool>,
    rg_vendor: DFF<Bits<8>>,
    /// Go-back-N into a WQE of the ring: the ring is dropped, WQE SQ_CI is fetched again and sent from
    /// packet `rs_idx` on with its first PSN `rs_first` (PSNs are fixed when a WQE is first sent), after
    /// an RNR wait if `rs_rnr`; the WQEs behind it follow as new.
    rs_on: DFF<bool>,
    rs_first: DFF<Bits<24>>,
    rs_idx: DFF<Bits<24>>,
    rs_rnr: DFF<bool>,
    /// Send-queue index of the WQE being executed or fetched next (SQ_CI + the ring's entries).
    sq_fi: Signal<Local, Bits<32>>,
    /// SQ_CI + rg_n and its successor while the ring holds WQEs (rg_n > 0), counted here as WQEs park:
    /// SQ_CI moves only as the ring's head retires (rg_n - 1, so the sum stands still). With the ring
    /// empty the index is SQ_CI itself, and `ci_p1` its successor, registered: SQ_CI + 2 in the cycle
    /// the engine increments it. So no add of rg_n stands in front of the decisions that compare them.
    fi_q: DFF<Bits<32>>,
    nx_q: DFF<Bits<32>>,
    ci_p1: DFF<Bits<32>>,
    rg_zero: Signal<Local, bool>,
    /// `sq_fi == nx_idx`, `sq_pi != sq_fi`, `sq_pi != nx_i`.
    nxu_hit: Signal<Local, bool>,
    fi_work: Signal<Local, bool>,
    /// `sq_pi != nx_i`, registered (a 32-bit compare behind `rg_zero`'s choice would stand in front of
    /// the park and fetch-ahead decisions). A cycle stale is safe: `nx_i` moves only as `wqe_active`
    /// clears (Park, Cqe; the park decision needs `wqe_active`, and Idle takes cycles before the next
    /// WQE is active), stays continuous across RgCqe, and changes otherwise only outside RTS; `sq_pi`
    /// only grows, so a stale value can only be a stale false: a cycle's delay.
    nx_work: DFF<bool>,
    /// Whether the frame going out raises the highest PSN sent: a READ request's last PSN past
    /// `snd_max` (`max_rd`), another packet at or past it (`max_tx`). Registered: read only in Emit,
    /// entered from Ext or DmaReq, and none of the three changes in those states or in Emit before
    /// its last cycle.
    max_rd: DFF<bool>,
    max_tx: DFF<bool>,
    /// The next WQE fetched ahead: while the last packet of a WRITE or SEND streams, the WQE behind it
    /// (index `nx_idx`, at `nx_a`) is requested (`nx_claim`, held until the port takes it) so that its
    /// read latency overlaps the packet's; `nx_on`: taken, its data not yet used. It is used once the
    /// packet's WQE has parked, or discarded (`WqeDrain`) if anything else comes first.
    nx_claim: DFF<bool>,
    nx_on: DFF<bool>,
    nx_idx: DFF<Bits<32>>,
    nx_a: DFF<Bits<64>>,
    nx_go: Signal<Local, bool>,
    nx_any: Signal<Local, bool>,
    nx_use: Signal<Local, bool>,
    /// The push window holds a WQE of this QP (a 64-byte one), for some index.
    push_ok: Signal<Local, bool>,
    /// The push doorbell and its QP check, registered: the index compares and `push_ok` read a snapshot
    /// a cycle old. Not in the cycle after the engine took the push (the clear is on its way); a switch
    /// of QP holds the fetch (`hold`) for cycles, so the check is never of the QP before.
    push_dq: DFF<Bits<32>>,
    push_okq: DFF<bool>,
    /// The engine took the push last cycle: `push_okq` is of the doorbell before its clear.
    push_took: DFF<bool>,
    /// The push window's index against `sq_fi` and `nx_i`, registered (`push_hq`, `push_nxq`), and
    /// whether the doorbell is the one they compared (`push_same`). `push_hit` takes the push only with
    /// both still true: `sq_fi` stands still from the Fetch pick into WqeReq and while WqeReq waits, so a
    /// registered hit is never of another index, and a doorbell written meanwhile is seen a cycle later
    /// (its WQE is fetched from the ring instead). `push_nxq` only holds back the fetch ahead: a cycle
    /// stale, it at worst fetches from the ring a WQE that was also pushed.
    push_hq: DFF<bool>,
    push_nxq: DFF<bool>,
    push_same: DFF<bool>,
    /// The ring holds entries (`rg_n != 0`), kept beside `rg_n` so the WQE index choice is a flip-flop.
    rg_nz: DFF<bool>,
    /// The head entry's first PSN and packets.
    h_first: Signal<Local, Bits<24>>,
    h_npk: Signal<Local, Bits<24>>,
    rg_ok: Signal<Local, bool>,
    rg_park: Signal<Local, bool>,
    /// The WQE in progress may park once its packets are out: a WRITE or SEND, no error, RTS, room in
    /// the ring and the turn, another WQE posted.
    rg_may: Signal<Local, bool>,
    /// Completion status of a fatal NAK (`lat_syn` 0x61..0x63, §9.3).
    nak_status: Signal<Local, Bits<8>>,
    /// A NAK or timeout sends the ring's head WQE again from its packet `rg_at` (go-back-N into the ring).
    rg_back: Signal<Local, bool>,
    rg_at: Signal<Local, Bits<24>>,
    /// Its PSN: the NAK's own, or the head's PSN at `h_una` for a timeout.
    rg_psn: Signal<Local, Bits<24>>,
    /// Send-queue index of the WQE after the one in progress.
    nx_i: Signal<Local, Bits<32>>,
    rg_depth: Constant<Bits<4>>,
    /// Work requests started in the current QP's turn (reset while `sw_ok`).
    turn_n: DFF<Bits<5>>,
    turn_max: Constant<Bits<5>>,
    turn_one: Constant<Bits<5>>,
    // ACK/NAK received: the newest one waits in `pend_*` while the completer serves `lat_*`, which
    // stays until it is consumed (so a stream of ACK/NAKs cannot keep the checks from settling).
    pend_valid: DFF<bool>,
    pend_syn: DFF<Bits<8>>,
    pend_psn: DFF<Bits<24>>,
    pend_resp: DFF<bool>,
    lat_valid: DFF<bool>,
    lat_syn: DFF<Bits<8>>,
    lat_psn: DFF<Bits<24>>,
    lat_resp: DFF<bool>,
    /// The pending ACK/NAK moves into `lat_*` this cycle.
    lat_mv: Signal<Local, bool>,
    /// The completer's checks of `lat_*` against the ring's head and the WQE in progress, registered.
    cc: CompCheck,
    /// The completer's decision on the latched ACK/NAK, a stage behind `cc`.
    acv: AckVerdict,
    /// An Idle decision this cycle (anything that may change what `cc` reads).
    i_act: Signal<Local, bool>,
    /// A local ACK timeout is due with WQEs in the ring.
    rg_due: Signal<Local, bool>,
    /// The retransmission timer at or past the ACK timeout (when set), and past the RNR wait.
    tmo_ge: DFF<bool>,
    /// The latched ACK/NAK is an ACK, an RNR NAK, a PSN sequence error NAK; a fatal NAK's status.
    l_ack: DFF<bool>,
    l_rnr: DFF<bool>,
    l_seq: DFF<bool>,
    nak_st: DFF<Bits<8>>,
    /// The WQE in progress is a READ or an atomic.
    w_rdat: DFF<bool>,
    /// The address of the WQE at SQ_CI + the ring's entries, and the next one's, each with its
    /// freshness: the transmit engine reads a WQE only from an address of the index it reads.
    sqa: WqeAddr,
    nxa: WqeAddr,
    rnr_ge: DFF<bool>,
    /// The responder's read or atomic job, cut into responses (§9.7.5.1.5); its MSN, atomic
    /// original value and QP are kept here.
    rr: ReadReply,
    /// Builds each frame from the packet set up in `p_*` and streams it to the MAC.
    fb: FrameBuild<W, B>,
    rr_msn_q: DFF<Bits<24>>,
    rr_atomic_q: DFF<bool>,
    rr_orig_q: DFF<Bits<64>>,
    rr_qp_q: DFF<Bits<32>>,
    /// Address-vector read: the QP asked for, and the one asked for a cycle earlier (data valid when equal).
    av_q: DFF<Bits<32>>,
    av_prev: DFF<Bits<32>>,
    av_ok_job: Signal<Local, bool>,
    av_ok_rr: Signal<Local, bool>,
    av_ok_cur: Signal<Local, bool>,
    job_live: Signal<Local, bool>,
    job_st8: Signal<Local, Bits<8>>,
    // the packet being built
    p_ack: DFF<bool>,
    /// The packet carries an AETH (ACK frames, READ RESPONSE FIRST/LAST/ONLY).
    p_aeth: DFF<bool>,
    /// The packet is a READ response of the responder's read job.
    p_resp: DFF<bool>,
    /// The packet carries an AtomicETH (request) or an AtomicAckETH (ATOMIC ACKNOWLEDGE).
    p_atomic: DFF<bool>,
    p_aack: DFF<bool>,
    /// The packet is a CNP (opcode 0x81, BECN, 16 reserved bytes).
    p_cnp: DFF<bool>,
    /// `paced`, or the current QP's priority paused (`av_paused` while the address vector read is its).
    hold_cur: Signal<Local, bool>,
    /// `hold_cur` a cycle late, for the fetch ahead only: a stale value at worst fetches a WQE ahead that
    /// is then drained (`WqeDrain`), or fetches it a cycle later.
    hold_cur_q: DFF<bool>,
    /// The packet carries an ImmDt or an IETH (the last packet of a message with immediate data or with
    /// invalidate: both 4 bytes after the BTH).
    p_imm: DFF<bool>,
    /// RETH fields of the packet (a re-issued READ asks for the rest of the message only).
    p_rva: DFF<Bits<64>>,
    p_rlen: DFF<Bits<32>>,
    p_reth: DFF<bool>,
    p_opcode: DFF<Bits<8>>,
    p_psn: DFF<Bits<24>>,
    p_ackreq: DFF<bool>,
    p_se: DFF<bool>,
    p_syn: DFF<Bits<8>>,
    p_msn: DFF<Bits<24>>,
    p_plen: DFF<Bits<16>>,
    p_addr: DFF<Bits<64>>,
    // the frame being emitted
    /// Payload prefetch: while a requester packet is on the wire, the payload reads of the next packets
    /// (up to `PF_DEPTH`) are already issued, so the host's read latency overlaps the frames instead of
    /// following each. The read port returns data in request order: `pf_n` reads were accepted and their
    /// data not yet used, the oldest for packet `pf_idx`; `pf_on`: one more is claimed (packet
    /// `pf_idx + pf_n`) and held valid until the port accepts it, whatever state the engine is in.
    pf_on: DFF<bool>,
    pf_n: DFF<Bits<3>>,
    pf_idx: DFF<Bits<24>>,
    pf_addr: DFF<Bits<64>>,
    pf_len: DFF<Bits<16>>,
    // combinational
    rts: Signal<Local, bool>,
    sq_on: Signal<Local, bool>,
    mtu: Signal<Local, Bits<32>>,
    /// PMTU as the shift amount: log2 of 256 .. 4096 fits 4 bits, so a shift decodes 4, not 32.
    pm: Signal<Local, Bits<32>>,
    /// MTU - 1 (registered from PMTU); the message length as WqeParse reads it, that length - 1 and
    /// + MTU - 1, and whether it is zero: the packet count and last index are a shift of them.
    mtu_m1: DFF<Bits<32>>,
    msg_len: Signal<Local, Bits<32>>,
    w_len_m1: DFF<Bits<32>>,
    w_len_up: DFF<Bits<32>>,
    w_len_zero: DFF<bool>,
    /// BTH opcodes of the WQE's message: FIRST, MIDDLE, LAST and ONLY.
    op_first: Signal<Local, Bits<8>>,
    op_mid: Signal<Local, Bits<8>>,
    op_last: Signal<Local, Bits<8>>,
    op_only: Signal<Local, Bits<8>>,
    /// WQE kinds: RDMA WRITE (with or without immediate), with immediate (WRITE or SEND), SEND (any),
    /// SEND with invalidate.
    wr_write: Signal<Local, bool>,
    wr_imm: Signal<Local, bool>,
    wr_inv: Signal<Local, bool>,
    wr_send: Signal<Local, bool>,
    off: Signal<Local, Bits<32>>,
    /// The packet `PktSetup` builds, a cycle ahead: its index's offset (index << PMTU, the path MTU's
    /// log registered first), whether it is the message's first, last, or only packet, tagged with the
    /// index and log they are for (`ps_ok`: `PktSetup` waits for them). The index never moves in the
    /// cycle before `PktSetup`, so the wait is only for a path MTU just changed.
    o_pm: DFF<Bits<4>>,
    /// The MTU in bytes for `o_pm`.
    o_mtu: DFF<Bits<32>>,
    o_pmt: DFF<Bits<4>>,
    o_idx: DFF<Bits<24>>,
    o_off: DFF<Bits<32>>,
    o_first: DFF<bool>,
    o_last: DFF<bool>,
    o_only: DFF<bool>,
    /// ACK_REQ_EVERY - 1 and whether it is on, registered: the AckReq test is one compare.
    ev_m1: DFF<Bits<32>>,
    ev_on: DFF<bool>,
    ps_ok: Signal<Local, bool>,
    /// The packet's local and remote addresses' low halves with the carry out (the high half or its
    /// successor picked by it).
    ps_lo: Signal<Local, Bits<33>>,
    ps_rlo: Signal<Local, Bits<33>>,
    /// Their sums from bit 8 up (the offset's low 8 bits are zero).
    ps_lo8: Signal<Local, Bits<25>>,
    ps_rlo8: Signal<Local, Bits<25>>,
    w_raddr_hi1: DFF<Bits<32>>,
    /// The WQE's gather-list entry count, and whether it is above one (a list to walk).
    wqe_nsge: Signal<Local, Bits<8>>,
    nsge_gt1: Signal<Local, bool>,
    /// The packet the payload prefetch reads next: its index, length and address.
    pfs: PfSeg,
    /// The WQE's local address high half + 1, for a low half that carries.
    w_laddr_hi1: DFF<Bits<32>>,
    pf_go: Signal<Local, bool>,
    /// `pf_go` a cycle late, for Emit's claim (so that no compare stands in front of it).
    pf_go_q: DFF<bool>,
    /// The state was Emit a cycle ago.
    emit_q: DFF<bool>,
    pf_stale: Signal<Local, bool>,
    /// A prefetch is claimed or its data is coming.
    pf_any: Signal<Local, bool>,
    /// This cycle the port accepts the claimed read (`pf_inc`) / a prefetched packet's data is taken
    /// for use or drained (`pf_dec`).
    pf_inc: Signal<Local, bool>,
    pf_dec: Signal<Local, bool>,
    pf_depth: Constant<Bits<3>>,
    rem: Signal<Local, Bits<32>>,
    plen: Signal<Local, Bits<16>>,
    /// PSN of the responder's next READ response or ATOMIC ACKNOWLEDGE (of the job in progress or waiting),
    /// its distance past the ACK/NAK to send, and whether that ACK/NAK must wait behind the job.
    /// The ACK/NAK's PSN distance from the next response, registered both ways (from a job waiting, and
    /// from the job's next response), with which applies and whether a job is there at all.
    g_rr: DFF<Bits<24>>,
    g_resp: DFF<Bits<24>>,
    g_sel: DFF<bool>,
    g_on: DFF<bool>,
    ack_new_q: DFF<bool>,
    rr_new: Signal<Local, bool>,
    rr_new_q: DFF<bool>,
    ack_gap: Signal<Local, Bits<24>>,
    ack_hold: Signal<Local, bool>,
    /// Whether the ACK/NAK must wait, registered from a cycle ago; a cycle's change that could make it
    /// wait (a new ACK/NAK, a new READ or atomic job) holds it meanwhile.
    ack_hold_now: Signal<Local, bool>,
    ack_hold_q: DFF<bool>,
    rr_valid_q: DFF<bool>,
    is_read: Signal<Local, bool>,
    push_hit: Signal<Local, bool>,
    /// WqeReq's first cycle; its choice, registered: the push window's WQE (`push_go`, taken into
    /// `wqe_buf` in the same cycle as `push_hit`, so the pair is of one doorbell) or a ring read
    /// (`wq_ring`, held until WqeReq is left). Both are clear on entry: WqeReq follows Idle's cycles.
    wq_first: Signal<Local, bool>,
    push_go: DFF<bool>,
    wq_ring: DFF<bool>,
    is_atomic: Signal<Local, bool>,
    /// First PSN after the WQE's message (24-bit sum kept at its width, docs/lint.md).
    /// The PSN after the WQE's last and after the packet's, registered: read at a frame's end and
    /// in Idle's acts, cycles after `first_psn`, `npk` and `p_psn` are set.
    psn_end: DFF<Bits<24>>,
    psn_next: DFF<Bits<24>>,
    want_cqe: Signal<Local, bool>,
    // constants
    /// Bits per beat: a WQE arriving in beats shifts down by this much per word.
    w_bits: Constant<Bits<16>>,
    wqe_in_shift: Constant<Bits<16>>,
    sh_nsge: Constant<Bits<16>>,
    sh_flags: Constant<Bits<16>>,
    sh_len: Constant<Bits<16>>,
    sh_wrid: Constant<Bits<16>>,
    sh_laddr: Constant<Bits<16>>,
    sh_rkey: Constant<Bits<16>>,
    sh_raddr: Constant<Bits<16>>,
    sh_imm: Constant<Bits<16>>,
    sh_cmp: Constant<Bits<16>>,
    sh_swap: Constant<Bits<16>>,
    // BTH opcodes (proto::opcode)
    /// RC SEND FIRST / MIDDLE / LAST / LAST with immediate / ONLY / ONLY with immediate.
    op_rc_send_first: Constant<Bits<8>>,
    op_rc_send_middle: Constant<Bits<8>>,
    op_rc_send_last: Constant<Bits<8>>,
    op_rc_send_last_with_immediate: Constant<Bits<8>>,
    op_rc_send_only: Constant<Bits<8>>,
    op_rc_send_only_with_immediate: Constant<Bits<8>>,
    /// RC SEND LAST / ONLY with invalidate (an IETH).
    op_rc_send_last_with_invalidate: Constant<Bits<8>>,
    op_rc_send_only_with_invalidate: Constant<Bits<8>>,
    /// RC RDMA WRITE FIRST / MIDDLE / LAST / LAST with immediate / ONLY / ONLY with immediate.
    op_rc_rdma_write_first: Constant<Bits<8>>,
    op_rc_rdma_write_middle: Constant<Bits<8>>,
    op_rc_rdma_write_last: Constant<Bits<8>>,
    op_rc_rdma_write_last_with_immediate: Constant<Bits<8>>,
    op_rc_rdma_write_only: Constant<Bits<8>>,
    op_rc_rdma_write_only_with_immediate: Constant<Bits<8>>,
    /// RC RDMA READ REQUEST.
    op_rc_rdma_read_request: Constant<Bits<8>>,
    /// RC RDMA READ RESPONSE FIRST / MIDDLE / LAST / ONLY.
    op_rc_rdma_read_response_first: Constant<Bits<8>>,
    op_rc_rdma_read_response_middle: Constant<Bits<8>>,
    op_rc_rdma_read_response_last: Constant<Bits<8>>,
    op_rc_rdma_read_response_only: Constant<Bits<8>>,
    /// RC ACKNOWLEDGE and ATOMIC ACKNOWLEDGE.
    op_rc_acknowledge: Constant<Bits<8>>,
    op_rc_atomic_acknowledge: Constant<Bits<8>>,
    /// RC CmpSwap and FetchAdd.
    op_rc_compare_swap: Constant<Bits<8>>,
    op_rc_fetch_add: Constant<Bits<8>>,
    /// RoCEv2 CNP.
    op_cnp: Constant<Bits<8>>,
    // AETH syndromes (proto::aeth)
    /// The syndrome's type bits and the field below them (credits, RNR timer or NAK code).
    aeth_type_mask: Constant<Bits<8>>,
    aeth_low_mask: Constant<Bits<8>>,
    /// Syndrome types: ACK, RNR NAK.
    aeth_ack: Constant<Bits<8>>,
    aeth_rnr_nak: Constant<Bits<8>>,
    /// NAKs: PSN sequence error, invalid request, remote access error.
    aeth_nak_psn_sequence_error: Constant<Bits<8>>,
    aeth_nak_invalid_request: Constant<Bits<8>>,
    aeth_nak_remote_access_error: Constant<Bits<8>>,
    /// ACK with the credit field invalid (READ responses, ATOMIC ACKNOWLEDGE).
    aeth_ack_credits_invalid: Constant<Bits<8>>,
    // QP states (proto::host::QpState, `qp_state` and `job_state`)
    /// RESET, RTR, RTS, SQD, ERR.
    qs_reset: Constant<Bits<32>>,
    qs_rtr: Constant<Bits<32>>,
    qs_rts: Constant<Bits<32>>,
    qs_sqd: Constant<Bits<32>>,
    qs_err: Constant<Bits<32>>,
    // Work request opcodes (ibv_wr_opcode, proto::host::WrOpcode, the WQE's OPCODE)
    /// RDMA_WRITE, RDMA_WRITE_WITH_IMM.
    wro_rdma_write: Constant<Bits<8>>,
    wro_rdma_write_with_imm: Constant<Bits<8>>,
    /// SEND, SEND_WITH_IMM, SEND_WITH_INV.
    wro_send: Constant<Bits<8>>,
    wro_send_with_imm: Constant<Bits<8>>,
    wro_send_with_inv: Constant<Bits<8>>,
    /// RDMA_READ, ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD.
    wro_rdma_read: Constant<Bits<8>>,
    wro_atomic_cmp_and_swp: Constant<Bits<8>>,
    wro_atomic_fetch_and_add: Constant<Bits<8>>,
    /// Completion opcodes and the success status (ibv_wc_opcode, ibv_wc_status; proto::host).
    wc_send: Constant<Bits<8>>,
    wc_rdma_write: Constant<Bits<8>>,
    wc_rdma_read: Constant<Bits<8>>,
    wc_comp_swap: Constant<Bits<8>>,
    wc_fetch_add: Constant<Bits<8>>,
    wc_success: Constant<Bits<8>>,
    wc_loc_len_err: Constant<Bits<8>>,
    wc_loc_qp_op_err: Constant<Bits<8>>,
    wc_rem_inv_req_err: Constant<Bits<8>>,
    wc_rem_access_err: Constant<Bits<8>>,
    wc_rem_op_err: Constant<Bits<8>>,
    wc_retry_exc_err: Constant<Bits<8>>,
    wc_rnr_retry_exc_err: Constant<Bits<8>>,
}

impl<const W: usize, const B: usize> Default for TxEngine<W, B> {
    fn default() -> Self {
        assert_eq!(W, 8 * B);
        assert!(64 % B == 0 || B == 64);
        let c16 = |v: usize| -> Constant<Bits<16>> { Constant::new((v as u64).into()) };
        let c8 = |v: u8| -> Constant<Bits<8>> { Constant::new((v as u64).into()) };
        let c32 = |v: u8| -> Constant<Bits<32>> { Constant::new((v as u64).into()) };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            qp_state: Default::default(),
            mac_lo: Default::default(),
            mac_hi: Default::default(),
            ipv4: Default::default(),
            dest_mac_lo: Default::default(),
            dest_mac_hi: Default::default(),
            dest_ipv4: Default::default(),
            ipv6: Default::default(),
            src_gid: Default::default(),
            dest_gid_hi: Default::default(),
            dest_qpn: Default::default(),
            udp_sport: Default::default(),
            udp_dport: Default::default(),
            pmtu: Default::default(),
            ack_timeout: Default::default(),
            warp: Default::default(),
            wake: Default::default(),
            wake_r: Default::default(),
            left_ack: Default::default(),
            left_rnr: Default::default(),
            retry_cnt: Default::default(),
            rnr_retry: Default::default(),
            rnr_retry_exc_inc: Default::default(),
            ack_req_every: Default::default(),
            sq_base_lo: Default::default(),
            sq_base_hi: Default::default(),
            sq_log_size: Default::default(),
            sq_pi: Default::default(),
            sq_ci: Default::default(),
            sq_psn: Default::default(),
            push_db: Default::default(),
            push_wqe: Default::default(),
            push_used: Default::default(),
            hold: Default::default(),
            sw_ok: Default::default(),
            cur_qpn: Default::default(),
            job_qpn: Default::default(),
            job_state: Default::default(),
            job_pmtu: Default::default(),
            av_qpn: Default::default(),
            sq_psn_set: Default::default(),
            sq_psn_val: Default::default(),
            qp_err: Default::default(),
            sq_ci_inc: Default::default(),
            tx_frames_inc: Default::default(),
            tx_acks_inc: Default::default(),
            retransmits_inc: Default::default(),
            ack_timeouts_inc: Default::default(),
            ack_valid: Default::default(),
            ack_syndrome: Default::default(),
            ack_psn: Default::default(),
            ack_msn: Default::default(),
            ack_new: Default::default(),
            ack_taken: Default::default(),
            cnp_valid: Default::default(),
            cnp_taken: Default::default(),
            tx_cnp_inc: Default::default(),
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
            rd_len: Default::default(),
            rd_restart: Default::default(),
            rd_restart_idx: Default::default(),
            rd_withdraw: Default::default(),
            rx_ack_valid: Default::default(),
            rx_ack_resp: Default::default(),
            rx_ack_syndrome: Default::default(),
            rx_ack_psn: Default::default(),
            cqe_valid: Default::default(),
            cqe_ready: Default::default(),
            cqe_wr_id: Default::default(),
            cqe_status: Default::default(),
            cqe_opcode: Default::default(),
            cqe_byte_len: Default::default(),
            cqe_vendor_err: Default::default(),
            rd_req_valid: Default::default(),
            rd_req_ready: Default::default(),
            rd_req_addr: Default::default(),
            rd_req_len: Default::default(),
            rd_req_gather: Default::default(),
            rd_sgl: Default::default(),
            rd_scatter: Default::default(),
            rd_sgl_n: Default::default(),
            rd_sgl_new: Default::default(),
            rd_resp_valid: Default::default(),
            rd_resp_data: Default::default(),
            rd_resp_last: Default::default(),
            rd_resp_ready: Default::default(),
            tx_tdata: Default::default(),
            tx_tkeep: Default::default(),
            tx_tlast: Default::default(),
            tx_tvalid: Default::default(),
            tx_tready: Default::default(),
            state: Default::default(),
            arb: Default::default(),
            wqe_buf: Default::default(),
            sgl_buf: Default::default(),
            sgl_total: Default::default(),
            sum_k: Default::default(),
            // One cycle more than the sum's latency: WqeCheck reads its compare (`len_mis`) registered.
            sum_wait: Constant::new((sgl_sum::LATENCY as u64).into()),
            w_nsge: Default::default(),
            w_gather: Default::default(),
            p_gather: Default::default(),
            wqe128: Default::default(),
            wqe_len: Default::default(),
            sgl_bad: Default::default(),
            w_opcode: Default::default(),
            w_flags: Default::default(),
            w_len: Default::default(),
            w_wrid: Default::default(),
            w_laddr: Default::default(),
            w_rkey: Default::default(),
            w_raddr: Default::default(),
            w_imm: Default::default(),
            w_cmp: Default::default(),
            w_swap: Default::default(),
            wqe_active: Default::default(),
            w_done: Default::default(),
            w_status: Default::default(),
            w_fail: Default::default(),
            rnr_inf: Default::default(),
            len_mis: Default::default(),
            w_vendor: Default::default(),
            first_psn: Default::default(),
            npk: Default::default(),
            last_idx: Default::default(),
            snd_idx: Default::default(),
            snd_max: Default::default(),
            una: Default::default(),
            retry: Default::default(),
            retry_init: Default::default(),
            retry_init_m1: Default::default(),
            rt: Default::default(),
            rnr_wait: Default::default(),
            cur_paused: Default::default(),
            rnr_left: Default::default(),
            rnr_cycles: Default::default(),
            rnr_rom: {
                let mhz = if W == 512 {
                    Width::W512.clock_mhz()
                } else {
                    Width::W64.clock_mhz()
                };
                RNR_TIMER_US
                    .iter()
                    .map(|&us| bits::<32>((us as f64 * mhz).ceil() as u64))
                    .into()
            },
            since_req: Default::default(),
            rg: Default::default(),
            rg_w: Default::default(),
            rg_r: Default::default(),
            rg_head: Default::default(),
            rdq: Default::default(),
            rdq_w: Default::default(),
            rdq_r: Default::default(),
            hi_psn: Default::default(),
            hi_set: Default::default(),
            hi_val: Default::default(),
            hi_step: Default::default(),
            rdq_tail: Default::default(),
            rdq_n: Default::default(),
            rdq_rxn: Default::default(),
            rdq_n_inc: Default::default(),
            rdq_n_dec: Default::default(),
            rdq_rxn_inc: Default::default(),
            rdq_rxn_dec: Default::default(),
            rdq_n_inv: Default::default(),
            rdq_rxn_inv: Default::default(),
            rdq_stale: Default::default(),
            w_rdq: Default::default(),
            rdq_push: Default::default(),
            rdq_pop: Default::default(),
            rdq_clear: Default::default(),
            rdq_max: Default::default(),
            rdq_depth: Constant::new(RDQ_DEPTH.into()),
            rd_go: Default::default(),
            h_rd: Default::default(),
            h_op: Default::default(),
            rx_land: Default::default(),
            h_landed: Default::default(),
            h_wait: Default::default(),
            max_rd_atomic: Default::default(),
            status: Default::default(),
            st_idle: Default::default(),
            st_hrd: Default::default(),
            w_past: Default::default(),
            rd_done: Default::default(),
            rg_n: Default::default(),
            rg_stale: Default::default(),
            h_una: Default::default(),
            rg_status: Default::default(),
            rg_fail: Default::default(),
            rg_vendor: Default::default(),
            rs_on: Default::default(),
            rs_first: Default::default(),
            rs_idx: Default::default(),
            rs_rnr: Default::default(),
            sq_fi: Default::default(),
            fi_q: Default::default(),
            nx_q: Default::default(),
            ci_p1: Default::default(),
            rg_zero: Default::default(),
            nxu_hit: Default::default(),
            fi_work: Default::default(),
            nx_work: Default::default(),
            max_rd: Default::default(),
            max_tx: Default::default(),
            nx_claim: Default::default(),
            nx_on: Default::default(),
            nx_idx: Default::default(),
            nx_a: Default::default(),
            nx_go: Default::default(),
            nx_any: Default::default(),
            nx_use: Default::default(),
            push_ok: Default::default(),
            push_dq: Default::default(),
            push_okq: Default::default(),
            push_took: Default::default(),
            push_hq: Default::default(),
            push_nxq: Default::default(),
            push_same: Default::default(),
            rg_nz: Default::default(),
            h_first: Default::default(),
            h_npk: Default::default(),
            rg_ok: Default::default(),
            rg_park: Default::default(),
            rg_may: Default::default(),
            nak_status: Default::default(),
            rg_back: Default::default(),
            rg_at: Default::default(),
            rg_psn: Default::default(),
            nx_i: Default::default(),
            rg_depth: Constant::new(RG_DEPTH.into()),
            turn_n: Default::default(),
            turn_max: Constant::new(TURN_WQES.into()),
            turn_one: Constant::new(1_u64.into()),
            lat_valid: Default::default(),
            lat_syn: Default::default(),
            lat_psn: Default::default(),
            lat_resp: Default::default(),
            pend_valid: Default::default(),
            pend_syn: Default::default(),
            pend_psn: Default::default(),
            pend_resp: Default::default(),
            lat_mv: Default::default(),
            cc: Default::default(),
            acv: Default::default(),
            i_act: Default::default(),
            rg_due: Default::default(),
            tmo_ge: Default::default(),
            l_ack: Default::default(),
            l_rnr: Default::default(),
            l_seq: Default::default(),
            nak_st: Default::default(),
            w_rdat: Default::default(),
            sqa: Default::default(),
            pfs: Default::default(),
            nxa: Default::default(),
            rnr_ge: Default::default(),
            rr: Default::default(),
            fb: Default::default(),
            rr_msn_q: Default::default(),
            rr_atomic_q: Default::default(),
            rr_orig_q: Default::default(),
            rr_qp_q: Default::default(),
            av_q: Default::default(),
            av_prev: Default::default(),
            av_ok_job: Default::default(),
            av_ok_rr: Default::default(),
            av_ok_cur: Default::default(),
            job_live: Default::default(),
            job_st8: Default::default(),
            p_ack: Default::default(),
            p_aeth: Default::default(),
            p_resp: Default::default(),
            p_imm: Default::default(),
            p_atomic: Default::default(),
            p_aack: Default::default(),
            p_cnp: Default::default(),
            hold_cur: Default::default(),
            hold_cur_q: Default::default(),
            p_rva: Default::default(),
            p_rlen: Default::default(),
            p_reth: Default::default(),
            p_opcode: Default::default(),
            p_psn: Default::default(),
            p_ackreq: Default::default(),
            p_se: Default::default(),
            p_syn: Default::default(),
            p_msn: Default::default(),
            p_plen: Default::default(),
            p_addr: Default::default(),
            rts: Default::default(),
            sq_on: Default::default(),
            mtu: Default::default(),
            pm: Default::default(),
            mtu_m1: Default::default(),
            msg_len: Default::default(),
            w_len_m1: Default::default(),
            w_len_up: Default::default(),
            w_len_zero: Default::default(),
            op_first: Default::default(),
            op_mid: Default::default(),
            op_last: Default::default(),
            op_only: Default::default(),
            wr_write: Default::default(),
            wr_imm: Default::default(),
            wr_inv: Default::default(),
            wr_send: Default::default(),
            off: Default::default(),
            o_pm: Default::default(),
            o_mtu: Default::default(),
            o_pmt: Default::default(),
            o_idx: Default::default(),
            o_off: Default::default(),
            o_first: Default::default(),
            o_last: Default::default(),
            o_only: Default::default(),
            ev_m1: Default::default(),
            ev_on: Default::default(),
            ps_ok: Default::default(),
            ps_lo: Default::default(),
            ps_rlo: Default::default(),
            ps_lo8: Default::default(),
            ps_rlo8: Default::default(),
            w_raddr_hi1: Default::default(),
            wqe_nsge: Default::default(),
            nsge_gt1: Default::default(),
            w_laddr_hi1: Default::default(),
            pf_go: Default::default(),
            pf_go_q: Default::default(),
            emit_q: Default::default(),
            pf_stale: Default::default(),
            pf_on: Default::default(),
            pf_n: Default::default(),
            pf_any: Default::default(),
            pf_inc: Default::default(),
            pf_dec: Default::default(),
            pf_depth: Constant::new(PF_DEPTH.into()),
            pf_idx: Default::default(),
            pf_addr: Default::default(),
            pf_len: Default::default(),
            rem: Default::default(),
            plen: Default::default(),
            g_rr: Default::default(),
            g_resp: Default::default(),
            g_sel: Default::default(),
            g_on: Default::default(),
            ack_new_q: Default::default(),
            rr_new: Default::default(),
            rr_new_q: Default::default(),
            ack_gap: Default::default(),
            ack_hold: Default::default(),
            ack_hold_now: Default::default(),
            ack_hold_q: Default::default(),
            rr_valid_q: Default::default(),
            is_read: Default::default(),
            push_hit: Default::default(),
            wq_first: Default::default(),
            push_go: Default::default(),
            wq_ring: Default::default(),
            is_atomic: Default::default(),
            psn_end: Default::default(),
            psn_next: Default::default(),
            qp_dscp: Default::default(),
            hop_limit: Default::default(),
            flow_label: Default::default(),
            vlan: Default::default(),
            tx_vlan: Default::default(),
            tx_qpn: Default::default(),
            tx_cnp: Default::default(),
            paced: Default::default(),
            tx_dscp: Default::default(),
            tx_committed: Default::default(),
            av_paused: Default::default(),
            cnp_dscp: Default::default(),
            tx_ecn: Default::default(),
            want_cqe: Default::default(),
            w_bits: c16(W),
            wqe_in_shift: c16(512 - W),
            sh_nsge: c16(wqe::NUM_SGE * 8),
            sh_flags: c16(wqe::FLAGS * 8),
            sh_len: c16(wqe::LENGTH * 8),
            sh_wrid: c16(wqe::WR_ID * 8),
            sh_laddr: c16(wqe::LOCAL_ADDR * 8),
            sh_rkey: c16(wqe::RKEY * 8),
            sh_raddr: c16(wqe::REMOTE_ADDR * 8),
            sh_imm: c16(wqe::IMM * 8),
            sh_cmp: c16(wqe::COMPARE_ADD * 8),
            sh_swap: c16(wqe::SWAP * 8),
            op_rc_send_first: c8(opcode::RC_SEND_FIRST),
            op_rc_send_middle: c8(opcode::RC_SEND_MIDDLE),
            op_rc_send_last: c8(opcode::RC_SEND_LAST),
            op_rc_send_last_with_immediate: c8(opcode::RC_SEND_LAST_WITH_IMMEDIATE),
            op_rc_send_only: c8(opcode::RC_SEND_ONLY),
            op_rc_send_only_with_immediate: c8(opcode::RC_SEND_ONLY_WITH_IMMEDIATE),
            op_rc_send_last_with_invalidate: c8(opcode::RC_SEND_LAST_WITH_INVALIDATE),
            op_rc_send_only_with_invalidate: c8(opcode::RC_SEND_ONLY_WITH_INVALIDATE),
            op_rc_rdma_write_first: c8(opcode::RC_RDMA_WRITE_FIRST),
            op_rc_rdma_write_middle: c8(opcode::RC_RDMA_WRITE_MIDDLE),
            op_rc_rdma_write_last: c8(opcode::RC_RDMA_WRITE_LAST),
            op_rc_rdma_write_last_with_immediate: c8(opcode::RC_RDMA_WRITE_LAST_WITH_IMMEDIATE),
            op_rc_rdma_write_only: c8(opcode::RC_RDMA_WRITE_ONLY),
            op_rc_rdma_write_only_with_immediate: c8(opcode::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE),
            op_rc_rdma_read_request: c8(opcode::RC_RDMA_READ_REQUEST),
            op_rc_rdma_read_response_first: c8(opcode::RC_RDMA_READ_RESPONSE_FIRST),
            op_rc_rdma_read_response_middle: c8(opcode::RC_RDMA_READ_RESPONSE_MIDDLE),
            op_rc_rdma_read_response_last: c8(opcode::RC_RDMA_READ_RESPONSE_LAST),
            op_rc_rdma_read_response_only: c8(opcode::RC_RDMA_READ_RESPONSE_ONLY),
            op_rc_acknowledge: c8(opcode::RC_ACKNOWLEDGE),
            op_rc_atomic_acknowledge: c8(opcode::RC_ATOMIC_ACKNOWLEDGE),
            op_rc_compare_swap: c8(opcode::RC_COMPARE_SWAP),
            op_rc_fetch_add: c8(opcode::RC_FETCH_ADD),
            op_cnp: c8(opcode::CNP),
            aeth_type_mask: c8(aeth::TYPE_MASK),
            aeth_low_mask: c8(!aeth::TYPE_MASK),
            aeth_ack: c8(aeth::ACK),
            aeth_rnr_nak: c8(aeth::RNR_NAK),
            aeth_nak_psn_sequence_error: c8(aeth::NAK_PSN_SEQUENCE_ERROR),
            aeth_nak_invalid_request: c8(aeth::NAK_INVALID_REQUEST),
            aeth_nak_remote_access_error: c8(aeth::NAK_REMOTE_ACCESS_ERROR),
            aeth_ack_credits_invalid: c8(aeth::ACK | aeth::CREDITS_INVALID),
            qs_reset: c32(QpState::Reset as u8),
            qs_rtr: c32(QpState::Rtr as u8),
            qs_rts: c32(QpState::Rts as u8),
            qs_sqd: c32(QpState::Sqd as u8),
            qs_err: c32(QpState::Err as u8),
            wro_rdma_write: c8(WrOpcode::RdmaWrite as u8),
            wro_rdma_write_with_imm: c8(WrOpcode::RdmaWriteWithImm as u8),
            wro_send: c8(WrOpcode::Send as u8),
            wro_send_with_imm: c8(WrOpcode::SendWithImm as u8),
            wro_send_with_inv: c8(WrOpcode::SendWithInv as u8),
            wro_rdma_read: c8(WrOpcode::RdmaRead as u8),
            wro_atomic_cmp_and_swp: c8(WrOpcode::AtomicCmpAndSwp as u8),
            wro_atomic_fetch_and_add: c8(WrOpcode::AtomicFetchAndAdd as u8),
            wc_send: c8(WcOpcode::Send as u8),
            wc_rdma_write: c8(WcOpcode::RdmaWrite as u8),
            wc_rdma_read: c8(WcOpcode::RdmaRead as u8),
            wc_comp_swap: c8(WcOpcode::CompSwap as u8),
            wc_fetch_add: c8(WcOpcode::FetchAdd as u8),
            wc_success: c8(WcStatus::Success as u8),
            wc_loc_len_err: c8(WcStatus::LocLenErr as u8),
            wc_loc_qp_op_err: c8(WcStatus::LocQpOpErr as u8),
            wc_rem_inv_req_err: c8(WcStatus::RemInvReqErr as u8),
            wc_rem_access_err: c8(WcStatus::RemAccessErr as u8),
            wc_rem_op_err: c8(WcStatus::RemOpErr as u8),
            wc_retry_exc_err: c8(WcStatus::RetryExcErr as u8),
            wc_rnr_retry_exc_err: c8(WcStatus::RnrRetryExcErr as u8),
        }
    }
}

impl<const W: usize, const B: usize> Logic for TxEngine<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            sum_k,
            cur_paused,
            wake_r,
            wqe_buf,
            sgl_buf,
            w_nsge,
            w_gather,
            p_gather,
            w_opcode,
            w_flags,
            w_len,
            w_wrid,
            w_laddr,
            w_rkey,
            w_raddr,
            w_imm,
            w_cmp,
            w_swap,
            wqe_active,
            w_done,
            w_status,
            w_fail,
            rnr_inf,
            len_mis,
            push_dq,
            push_okq,
            push_took,
            push_hq,
            push_nxq,
            push_same,
            rg_nz,
            w_vendor,
            first_psn,
            npk,
            last_idx,
            mtu_m1,
            w_len_m1,
            w_len_up,
            w_len_zero,
            snd_idx,
            pf_on,
            pf_n,
            pf_idx,
            pf_addr,
            pf_len,
            snd_max,
            una,
            retry,
            rnr_wait,
            rnr_left,
            rnr_cycles,
            since_req,
            rg_head,
            rdq_tail,
            hi_psn,
            hi_set,
            hi_val,
            rdq_n,
            rdq_rxn,
            rdq_stale,
            w_rdq,
            rg_n,
            fi_q,
            nx_q,
            ci_p1,
            rg_stale,
            h_una,
            rg_status,
            rg_fail,
            rg_vendor,
            rs_on,
            rs_first,
            rs_idx,
            rs_rnr,
            turn_n,
            nx_claim,
            nx_on,
            nx_idx,
            nx_a,
            lat_valid,
            lat_syn,
            lat_psn,
            lat_resp,
            pend_valid,
            pend_syn,
            pend_psn,
            pend_resp,
            tmo_ge,
            l_ack,
            l_rnr,
            l_seq,
            nak_st,
            w_rdat,
            rnr_ge,
            rr_msn_q,
            p_ack,
            p_aeth,
            p_resp,
            p_imm,
            p_atomic,
            p_aack,
            p_cnp,
            rr_atomic_q,
            rr_orig_q,
            rr_qp_q,
            av_q,
            av_prev,
            p_rva,
            p_rlen,
            p_reth,
            p_opcode,
            p_psn,
            p_ackreq,
            p_se,
            p_syn,
            p_msn,
            p_plen,
            p_addr,
            w_laddr_hi1,
            o_pm,
            o_mtu,
            o_pmt,
            o_idx,
            o_off,
            o_first,
            o_last,
            o_only,
            ev_m1,
            ev_on,
            w_raddr_hi1,
            ack_hold_q,
            rr_valid_q,
            g_rr,
            g_resp,
            g_sel,
            g_on,
            ack_new_q,
            rr_new_q,
            psn_end,
            psn_next,
            pf_go_q,
            emit_q,
            hold_cur_q,
            nx_work,
            max_rd,
            max_tx,
            push_go,
            wq_ring
        );
        // Defaults: no pulses, no handshakes.
        self.sq_psn_set.next = false;
        self.sq_psn_val.next = self.sq_psn.val();
        self.qp_err.next = false;
        self.sq_ci_inc.next = false;
        self.tx_frames_inc.next = false;
        self.tx_acks_inc.next = false;
        self.retransmits_inc.next = false;
        self.ack_timeouts_inc.next = false;
        self.ack_taken.next = false;
        self.rr_taken.next = false;
        self.push_used.next = false;
        self.cnp_taken.next = false;
        self.tx_cnp_inc.next = false;
        self.rnr_retry_exc_inc.next = false;
        self.rnr_rom.address.next =
            bit_cast::<5, 8>(self.lat_syn.q.val() & self.aeth_low_mask.val());
        // The outstanding ring: the head entry reads back a cycle late; a push writes behind the last.
        self.rg.read_clock.next = self.clock.val();
        self.rg.write_clock.next = self.clock.val();
        self.rg.read_address.next = self.rg_head.q.val();
        self.rg.write_address.next = self.rg_head.q.val() + bit_cast::<3, 4>(self.rg_n.q.val());
        self.rg_w.first_psn.next = self.first_psn.q.val();
        self.rg_w.npk.next = self.npk.q.val();
        self.rg_w.wr_id.next = self.w_wrid.q.val();
        self.rg_w.len.next = self.w_len.q.val();
        self.rg_w.opcode.next = bit_cast::<4, 8>(self.w_opcode.q.val());
        self.rg_w.signaled.next = (self.w_flags.q.val() & 1) != 0;
        self.rg.write_data.next = self.rg_w.word.val();
        self.rg_r.word.next = self.rg.read_data.val();
        self.rg.write_enable.next = false;
        self.rg_stale.d.next = false;
        self.rg_ok.next = !self.rg_stale.q.val();
        self.h_first.next = self.rg_r.first_psn.val();
        self.h_npk.next = self.rg_r.npk.val();
        self.rg_zero.next = !self.rg_nz.q.val();
        self.sq_fi.next = self.fi_q.q.val();
        self.nx_i.next = self.nx_q.q.val();
        if self.rg_zero.val() {
            self.sq_fi.next = self.sq_ci.val();
            self.nx_i.next = self.ci_p1.q.val();
        }
        self.ci_p1.d.next = self.sq_ci.val() + 1;
        self.h_op.next = bit_cast::<8, 4>(self.rg_r.opcode.val());
        self.h_rd.next = (self.h_op.val() == self.wro_rdma_read.val())
            || (self.h_op.val() == self.wro_atomic_cmp_and_swp.val())
            || (self.h_op.val() == self.wro_atomic_fetch_and_add.val());
        // Entries of rdq that landed and have not completed: the oldest is the head's, if it is a READ.
        self.h_landed.next = self.rdq_n.q.val() != self.rdq_rxn.q.val();
        self.h_wait.next = self.h_rd.val()
            && self.lat_resp.q.val()
            && self.l_ack.q.val()
            && self.cc.v.h_ge_last.val()
            && !self.cc.v.h_ge_end.val();
        self.is_read.next = self.w_opcode.q.val() == self.wro_rdma_read.val();
        self.wqe128.next = (self.sq_log_size.val() & 0x20) != 0;
        self.push_dq.d.next = self.push_db.val();
        self.push_okq.d.next = ((self.push_db.val() & 0x8000_0000_u64) != 0)
            && (((self.push_db.val() >> 16) & 0x3FFF) == (self.cur_qpn.val() & 0x3FFF))
            && !self.wqe128.val();
        self.push_ok.next = self.push_okq.q.val() && !self.push_took.q.val();
        self.push_same.d.next = self.push_db.val() == self.push_dq.q.val();
        self.push_hq.d.next =
            self.push_ok.val() && (self.push_dq.q.val() & 0xFFFF) == (self.sq_fi.val() & 0xFFFF);
        self.push_hit.next = self.push_hq.q.val() && self.push_same.q.val() && self.push_ok.val();
        // WqeReq's choice, made in its first cycle (neither set) and held while it waits.
        self.wq_first.next = (self.state.q.val() == TxState::WqeReq)
            && !self.push_go.q.val()
            && !self.wq_ring.q.val();
        self.push_go.d.next = self.wq_first.val() && self.push_hit.val();
        self.wq_ring.d.next = (self.state.q.val() == TxState::WqeReq)
            && (self.wq_ring.q.val() || (self.wq_first.val() && !self.push_hit.val()));
        // The WQE after the one in progress is in the push window: it is not fetched ahead.
        self.push_nxq.d.next =
            self.push_ok.val() && (self.push_dq.q.val() & 0xFFFF) == (self.nx_i.val() & 0xFFFF);
        self.nxu_hit.next = self.nx_idx.q.val() == self.sq_fi.val();
        self.fi_work.next = self.sq_pi.val() != self.sq_fi.val();
        self.nx_work.d.next = self.sq_pi.val() != self.nx_i.val();
        self.av_qpn.next = self.av_q.q.val();
        self.av_prev.d.next = self.av_q.q.val();
        self.av_ok_job.next = (self.av_q.q.val() == self.job_qpn.val())
            && (self.av_prev.q.val() == self.job_qpn.val());
        self.av_ok_rr.next = (self.av_q.q.val() == self.rr_qp_q.q.val())
            && (self.av_prev.q.val() == self.rr_qp_q.q.val());
        self.av_ok_cur.next = (self.av_q.q.val() == self.cur_qpn.val())
            && (self.av_prev.q.val() == self.cur_qpn.val());
        self.hold_cur.next = self.paced.val() || (self.av_paused.val() && self.av_ok_cur.val());
        self.hold_cur_q.d.next = self.hold_cur.val();
        // RTR, RTS, SQD: the responder's QP answers (ERR too, for the NAK that put it there).
        // (The state is an 8-bit context field: three equalities of its byte, no carry chain.)
        self.job_st8.next = bit_cast::<8, 32>(self.job_state.val());
        self.job_live.next = (self.job_st8.val() == bit_cast::<8, 32>(self.qs_rtr.val()))
            || (self.job_st8.val() == bit_cast::<8, 32>(self.qs_rts.val()))
            || (self.job_st8.val() == bit_cast::<8, 32>(self.qs_sqd.val()));
        self.sw_ok.next = !self.wqe_active.q.val()
            && (self.rg_n.q.val() == 0)
            && !self.rs_on.q.val()
            && !self.nx_claim.q.val()
            && !self.nx_on.q.val()
            && (self.state.q.val() != TxState::WqeReq)
            && (self.state.q.val() != TxState::WqeData)
            && (self.state.q.val() != TxState::WqeParse)
            && (self.state.q.val() != TxState::WqeSum)
            && (self.state.q.val() != TxState::WqeCheck);
        self.is_atomic.next = (self.w_opcode.q.val() == self.wro_atomic_cmp_and_swp.val())
            || (self.w_opcode.q.val() == self.wro_atomic_fetch_and_add.val());
        self.rd_active.next = self.wqe_active.q.val()
            && (self.is_read.val() || self.is_atomic.val())
            && !self.w_done.q.val()
            && !self.w_rdq.q.val();
        self.rd_atomic.next = self.is_atomic.val();
        self.rd_psn0.next = self.first_psn.q.val();
        self.rd_laddr.next = self.w_laddr.q.val();
        self.rd_len.next = self.w_len.q.val();
        // The READ context queue: pushed behind the last entry, read at the oldest entry still waiting
        // for responses (tail - rxn, modulo the depth).
        self.rdq.read_clock.next = self.clock.val();
        self.rdq.write_clock.next = self.clock.val();
        self.rdq.read_address.next = self.rdq_tail.q.val() - bit_cast::<2, 3>(self.rdq_rxn.q.val());
        self.rdq.write_address.next = self.rdq_tail.q.val();
        self.rdq_w.laddr.next = self.w_laddr.q.val();
        self.rdq_w.len.next = self.w_len.q.val();
        self.rdq_w.first_psn.next = self.first_psn.q.val();
        self.rdq_w.atomic.next = self.is_atomic.val();
        self.rdq.write_data.next = self.rdq_w.word.val();
        self.rdq_r.word.next = self.rdq.read_data.val();
        self.rdq_push.next = false;
        self.w_past.next = false;
        self.rdq_pop.next = false;
        self.rdq_clear.next = false;
        self.rdq.write_enable.next = false;
        self.rd_scatter.next = self.w_gather.q.val();
        if self.rdq_rxn.q.val() != 0 {
            self.rd_active.next = !self.rdq_stale.q.val();
            self.rd_atomic.next = self.rdq_r.atomic.val();
            self.rd_psn0.next = self.rdq_r.first_psn.val();
            self.rd_laddr.next = self.rdq_r.laddr.val();
            self.rd_len.next = self.rdq_r.len.val();
            self.rd_scatter.next = false;
        }
        self.rdq_max.next = self.max_rd_atomic.val();
        if self.max_rd_atomic.val() == 0 {
            self.rdq_max.next = 1.into();
        }
        if self.max_rd_atomic.val() > self.rdq_depth.val() {
            self.rdq_max.next = self.rdq_depth.val();
        }
        // A READ or atomic sends its request once it fits: a new entry under max_rd_atomic, or, with a
        // scatter list (the receive engine takes that one from the WQE in progress), none outstanding.
        self.rd_go.next = !self.w_rdat.q.val() || self.w_rdq.q.val();
        if self.w_rdat.q.val() && !self.w_rdq.q.val() {
            if self.w_gather.q.val() {
                self.rd_go.next = self.rdq_n.q.val() == 0;
            } else {
                // Atomics count as READs do: the peer's responder keeps max_dest_rd_atomic results to
                // replay to duplicates, and max_rd_atomic is set within it (IBA §9.4.5, ch. 11).
                self.rd_go.next = self.rdq_n.q.val() < self.rdq_max.val();
            }
        }
        self.rd_restart.next = false;
        self.rd_restart_idx.next = self.snd_idx.q.val();
        self.cqe_valid.next = false;
        self.cqe_wr_id.next = self.w_wrid.q.val();
        self.cqe_status.next = self.w_status.q.val();
        self.cqe_byte_len.next = self.w_len.q.val();
        self.cqe_vendor_err.next = self.w_vendor.q.val();
        // The completion's opcode: RDMA_WRITE for the write work requests, RDMA_READ, COMP_SWAP or
        // FETCH_ADD for those, else SEND.
        self.cqe_opcode.next = self.wc_send.val();
        if (self.w_opcode.q.val() == self.wro_rdma_write.val())
            || (self.w_opcode.q.val() == self.wro_rdma_write_with_imm.val())
        {
            self.cqe_opcode.next = self.wc_rdma_write.val();
        }
        if self.w_opcode.q.val() == self.wro_rdma_read.val() {
            self.cqe_opcode.next = self.wc_rdma_read.val();
        }
        if self.w_opcode.q.val() == self.wro_atomic_cmp_and_swp.val() {
            self.cqe_opcode.next = self.wc_comp_swap.val();
        }
        if self.w_opcode.q.val() == self.wro_atomic_fetch_and_add.val() {
            self.cqe_opcode.next = self.wc_fetch_add.val();
        }
        self.rd_req_valid.next = false;
        self.rd_resp_ready.next = false;

        self.rts.next = self.qp_state.val() == self.qs_rts.val();
        // SQD drains the send queue: the WQE in progress finishes, no new one starts; responses and
        // ACKs go on as in RTS (IBA 10.3.1).
        self.sq_on.next = self.rts.val() || (self.qp_state.val() == self.qs_sqd.val());
        // Send WQE n lives at SQ_BASE + (n mod 2^SQ_LOG_SIZE) * 64, or * 128 on a QP whose WQEs carry
        // gather lists (SQ_WQE_128, the QP's max_send_sge > 1); the push window holds 64 bytes, so
        // such a QP always fetches.
        self.wqe_len.next = 64.into();
        if self.wqe128.val() {
            self.wqe_len.next = 128.into();
        }
        self.sqa.clock.next = self.clock.val();
        self.sqa.idx.next = self.sq_fi.val();
        self.nxa.clock.next = self.clock.val();
        self.nxa.idx.next = self.nx_i.val();
        self.sqa.base_lo.next = self.sq_base_lo.val();
        self.sqa.base_hi.next = self.sq_base_hi.val();
        self.sqa.log_size.next = bit_cast::<5, 32>(self.sq_log_size.val() & 0x1F);
        self.sqa.wqe128.next = self.wqe128.val();
        self.nxa.base_lo.next = self.sq_base_lo.val();
        self.nxa.base_hi.next = self.sq_base_hi.val();
        self.nxa.log_size.next = bit_cast::<5, 32>(self.sq_log_size.val() & 0x1F);
        self.nxa.wqe128.next = self.wqe128.val();
        self.rd_req_addr.next = self.sqa.addr.val();
        self.rd_req_len.next = self.wqe_len.val();
        self.rd_req_gather.next = false;
        self.rd_sgl.next = self.sgl_buf.q.val();
        self.rd_sgl_n.next = bit_cast::<3, 8>(self.w_nsge.q.val() & 7);
        self.rd_sgl_new.next = false;
        // The list's length (entries past NUM_SGE do not count): it must be the WQE's length.
        self.rr.clock.next = self.clock.val();
        self.rr.abort.next = false;
        self.rr.job.valid.next = false;
        self.rr.job.va.next = self.rr_va.val();
        self.rr.job.len.next = self.rr_len.val();
        self.rr.job.psn.next = self.rr_psn.val();
        self.rr.job.pmtu.next = self.job_pmtu.val();
        self.rr.job.atomic.next = self.rr_atomic.val();
        self.rr.resp.ready.next = false;
        self.sgl_total.clock.next = self.clock.val();
        self.sgl_total.sgl.next = self.sgl_buf.q.val();
        self.sgl_total.n.next = self.w_nsge.q.val();
        self.len_mis.d.next = self.sgl_total.sum.val() != bit_cast::<40, 32>(self.w_len.q.val());
        // More entries than the list holds, or a list in a 64-byte WQE.
        self.sgl_bad.next =
            (self.w_nsge.q.val() > 4) || (!self.wqe128.val() && (self.w_nsge.q.val() > 1));

        // Segmentation (§9.7): packet i carries message bytes [i * MTU, min(len, (i + 1) * MTU)).
        self.pm.next = bit_cast::<32, 4>(bit_cast::<4, 32>(self.pmtu.val()));
        self.mtu.next = bits::<32>(1) << self.pm.val();
        self.mtu_m1.d.next = !(bits::<32>(0xFFFF_FFFF_u64) << self.pm.val());
        self.msg_len.next = bit_cast::<32, 512>(self.wqe_buf.q.val() >> self.sh_len.val());
        // The WQE's kind (ibv_wr_opcode).
        self.wr_write.next = (self.w_opcode.q.val() == self.wro_rdma_write.val())
            || (self.w_opcode.q.val() == self.wro_rdma_write_with_imm.val());
        self.wr_inv.next = self.w_opcode.q.val() == self.wro_send_with_inv.val();
        self.wr_send.next = (self.w_opcode.q.val() == self.wro_send.val())
            || (self.w_opcode.q.val() == self.wro_send_with_imm.val())
            || self.wr_inv.val();
        self.wr_imm.next = (self.w_opcode.q.val() == self.wro_rdma_write_with_imm.val())
            || (self.w_opcode.q.val() == self.wro_send_with_imm.val());
        // BTH opcodes (IBA Table 35) of a WRITE (any work request but a SEND; a READ's or atomic's are
        // replaced in PktSetup) or a SEND: FIRST, MIDDLE, LAST or LAST with immediate, ONLY or ONLY with
        // immediate.
        self.op_first.next = self.op_rc_rdma_write_first.val();
        self.op_mid.next = self.op_rc_rdma_write_middle.val();
        self.op_last.next = self.op_rc_rdma_write_last.val();
        self.op_only.next = self.op_rc_rdma_write_only.val();
        if self.wr_imm.val() {
            self.op_last.next = self.op_rc_rdma_write_last_with_immediate.val();
            self.op_only.next = self.op_rc_rdma_write_only_with_immediate.val();
        }
        if self.wr_send.val() {
            self.op_first.next = self.op_rc_send_first.val();
            self.op_mid.next = self.op_rc_send_middle.val();
            self.op_last.next = self.op_rc_send_last.val();
            self.op_only.next = self.op_rc_send_only.val();
            if self.wr_imm.val() {
                self.op_last.next = self.op_rc_send_last_with_immediate.val();
                self.op_only.next = self.op_rc_send_only_with_immediate.val();
            }
        }
        // SEND LAST / ONLY with invalidate: the IETH (the R_Key, from the WQE's IMM field) where an
        // ImmDt would be (§9.3).
        if self.wr_inv.val() {
            self.op_last.next = self.op_rc_send_last_with_invalidate.val();
            self.op_only.next = self.op_rc_send_only_with_invalidate.val();
        }
        self.o_pm.d.next = bit_cast::<4, 32>(self.pmtu.val());
        self.o_mtu.d.next = self.mtu.val();
        self.o_pmt.d.next = self.o_pm.q.val();
        self.o_idx.d.next = self.snd_idx.q.val();
        // A whole number of MTUs, each at least 256 bytes (PMTU 8 .. 12): the low 8 bits are zero, so
        // the addresses below add from bit 8 (a 24-bit carry chain, the carry out of its last CARRY4).
        self.o_off.d.next =
            (bit_cast::<32, 24>(self.snd_idx.q.val()) << self.o_pm.q.val()) & 0xFFFF_FF00_u64;
        self.o_first.d.next = self.snd_idx.q.val() == 0;
        self.o_last.d.next = self.snd_idx.q.val() == self.last_idx.q.val();
        self.o_only.d.next = self.last_idx.q.val() == 0;
        self.ps_ok.next = (self.o_idx.q.val() == self.snd_idx.q.val())
            && (self.o_pmt.q.val() == self.o_pm.q.val())
            && (self.o_pm.q.val() == bit_cast::<4, 32>(self.pmtu.val()));
        self.ev_m1.d.next = self.ack_req_every.val() - 1;
        self.ev_on.d.next = self.ack_req_every.val() != 0;
        self.off.next = self.o_off.q.val();
        self.rem.next = self.w_len.q.val() - self.off.val();
        // Every packet before the last carries a whole MTU, the last the rest (a zero-length message:
        // one packet of none).
        self.plen.next = bit_cast::<16, 32>(self.o_mtu.q.val());
        if self.o_last.q.val() {
            self.plen.next = bit_cast::<16, 32>(self.rem.val());
        }
        self.w_raddr_hi1.d.next = self.w_raddr.q.val().get_bits::<32>(32) + 1;
        self.ps_lo8.next = bit_cast::<25, 24>(self.w_laddr.q.val().get_bits::<24>(8))
            + bit_cast::<25, 24>(self.off.val().get_bits::<24>(8));
        self.ps_lo.next = (bit_cast::<33, 25>(self.ps_lo8.val()) << 8)
            | bit_cast::<33, 8>(self.w_laddr.q.val().get_bits::<8>(0));
        self.ps_rlo8.next = bit_cast::<25, 24>(self.w_raddr.q.val().get_bits::<24>(8))
            + bit_cast::<25, 24>(self.off.val().get_bits::<24>(8));
        self.ps_rlo.next = (bit_cast::<33, 25>(self.ps_rlo8.val()) << 8)
            | bit_cast::<33, 8>(self.w_raddr.q.val().get_bits::<8>(0));
        self.pf_any.next = self.pf_on.q.val() || (self.pf_n.q.val() != 0);
        self.wqe_nsge.next = bit_cast::<8, 512>(self.wqe_buf.q.val() >> self.sh_nsge.val());
        // Above one: any bit but the lowest (no compare against the wide shifted word).
        self.nsge_gt1.next = (self.wqe_nsge.val() & 0xFE) != 0;
        // The packet to prefetch next: the one after the packet being sent, or after the ones
        // already prefetched. The claim below reads only its registers.
        self.pfs.clock.next = self.clock.val();
        self.pfs.snd_idx.next = self.snd_idx.q.val();
        self.pfs.pf_idx.next = self.pf_idx.q.val();
        self.pfs.pf_n.next = self.pf_n.q.val();
        self.pfs.pf_on.next = self.pf_on.q.val();
        self.pfs.npk.next = self.npk.q.val();
        self.pfs.w_len.next = self.w_len.q.val();
        self.pfs.w_laddr.next = self.w_laddr.q.val();
        self.pfs.pmtu.next = self.pm.val();
        self.pfs.load.next = false;
        self.w_laddr_hi1.d.next = self.w_laddr.q.val().get_bits::<32>(32) + 1;
        // Prefetch only for the requester's own SEND/WRITE data, and never while the responder has a
        // READ job waiting: its payload read would queue behind ours (the read port is in order).
        self.pf_go.next = !self.pf_on.q.val()
            && !self.nx_claim.q.val()
            && !self.nx_on.q.val()
            && (self.pf_n.q.val() < self.pf_depth.val())
            && self.wqe_active.q.val()
            && !self.w_done.q.val()
            && !self.p_ack.q.val()
            && !self.p_cnp.q.val()
            && !self.p_resp.q.val()
            && !self.is_read.val()
            && !self.is_atomic.val()
            && self.pfs.lt.val()
            && self.pfs.ok_q.val()
            && (self.pfs.len.val() != 0)
            && !self.rr.active.val()
            && !self.rr_valid.val()
            && self.enable.val()
            && self.sq_on.val();
        // Registered for the claim in Emit. The segmenter's verdict (`ok_q`) is about its inputs as the
        // last edge saw them: in Emit but its first cycle (DmaReq moves `pf_idx` and `pf_n` as it
        // enters), they move only by a claim (none in the cycle after one; `pf_on` keeps `pf_go` low
        // until the host takes the read) and by the host taking the read (`pf_on` down and `pf_n` up:
        // the same next packet). Its outputs are the same a cycle later, and nothing else of the above
        // changes but by a claim. A READ job, a disable in between: the read goes out a cycle after all
        // and drains.
        self.emit_q.d.next = self.state.q.val() == TxState::Emit;
        self.max_rd.d.next = self.npk.q.val() > self.snd_max.q.val();
        self.max_tx.d.next = self.snd_idx.q.val() >= self.snd_max.q.val();
        self.pf_go_q.d.next = self.pf_go.val()
            && (self.state.q.val() == TxState::Emit)
            && self.emit_q.q.val()
            && !self.pf_go_q.q.val()
            && !self.reset.val();
        // A prefetch is used only by the very next packet of the same WQE; anything else drains it.
        self.pf_stale.next = !(self.wqe_active.q.val()
            && !self.w_done.q.val()
            && self.sq_on.val()
            && self.enable.val()
            && !self.rnr_wait.q.val()
            && (self.snd_idx.q.val() == self.pf_idx.q.val()));
        // Responses leave in PSN order (§9.7.5.1.5): an ACK/NAK whose PSN is not before the next response of
        // a READ or atomic job (in progress, or accepted and waiting) goes after that job's responses. Sent
        // first it would tell the requester that the READ's remaining responses were lost (an implied NAK).
        self.g_rr.d.next = self.rr_psn.val() - self.ack_psn.val();
        self.g_resp.d.next = self.rr.resp.psn.val() - self.ack_psn.val();
        self.g_sel.d.next = self.rr.active.val();
        self.g_on.d.next = self.rr.active.val() || self.rr_valid.val();
        self.ack_gap.next = self.g_rr.q.val();
        if self.g_sel.q.val() {
            self.ack_gap.next = self.g_resp.q.val();
        }
        self.ack_hold_now.next =
            self.g_on.q.val() && ((self.ack_gap.val() == 0) || (self.ack_gap.val() >= 0x80_0000));
        // Registered again: two cycles late, which is safe while it falls (the ACK waits a cycle more)
        // and covered while it could rise (a new ACK/NAK, a new job, this cycle and the one before; the
        // job's responses only move the PSN it compares with past the ACK's).
        self.ack_hold_q.d.next = self.ack_hold_now.val();
        self.rr_valid_q.d.next = self.rr_valid.val();
        self.rr_new.next = self.rr_valid.val() && !self.rr_valid_q.q.val();
        self.rr_new_q.d.next = self.rr_new.val();
        self.ack_new_q.d.next = self.ack_new.val();
        self.ack_hold.next = self.ack_hold_q.q.val()
            || self.ack_new.val()
            || self.ack_new_q.q.val()
            || self.rr_new.val()
            || self.rr_new_q.q.val();
        self.psn_next.d.next = self.p_psn.q.val() + 1;
        self.psn_end.d.next = self.first_psn.q.val() + self.npk.q.val();
        // The completer's checks (roce::comp_check): the latched ACK/NAK's PSN as a packet index into
        // the ring's head entry (`hd`) and into the WQE in progress (`ad`), 24-bit modular (§9.7.6),
        // and their compares, two cycles behind what they read.
        self.cc.clock.next = self.clock.val();
        self.cc.i.psn.next = self.lat_psn.q.val();
        self.cc.i.h_first.next = self.h_first.val();
        self.cc.i.h_npk.next = self.h_npk.val();
        self.cc.i.h_una.next = self.h_una.q.val();
        self.cc.i.hi_psn.next = self.hi_psn.q.val();
        self.cc.i.first_psn.next = self.first_psn.q.val();
        self.cc.i.una.next = self.una.q.val();
        self.cc.i.snd_idx.next = self.snd_idx.q.val();
        self.cc.i.snd_max.next = self.snd_max.q.val();
        self.cc.i.npk.next = self.npk.q.val();
        self.cc.i.last_idx.next = self.last_idx.q.val();

        self.want_cqe.next = self.w_fail.q.val() || ((self.w_flags.q.val() & 1) != 0);
        // The frame builder (roce::frame_build): the packet set up in `p_*` (and the WQE's fields its
        // extension headers carry), the address vector of the QP it goes out on.
        self.fb.clock.next = self.clock.val();
        self.fb.desc.opcode.next = self.p_opcode.q.val();
        self.fb.desc.psn.next = self.p_psn.q.val();
        self.fb.desc.plen.next = self.p_plen.q.val();
        self.fb.desc.aeth.next = self.p_aeth.q.val();
        self.fb.desc.reth.next = self.p_reth.q.val();
        self.fb.desc.imm.next = self.p_imm.q.val();
        self.fb.desc.atomic.next = self.p_atomic.q.val();
        self.fb.desc.aack.next = self.p_aack.q.val();
        self.fb.desc.cnp.next = self.p_cnp.q.val();
        self.fb.desc.se.next = self.p_se.q.val();
        self.fb.desc.ackreq.next = self.p_ackreq.q.val();
        self.fb.desc.syn.next = self.p_syn.q.val();
        self.fb.desc.msn.next = self.p_msn.q.val();
        self.fb.desc.rva.next = self.p_rva.q.val();
        self.fb.desc.rkey.next = self.w_rkey.q.val();
        self.fb.desc.rlen.next = self.p_rlen.q.val();
        self.fb.desc.imm_data.next = self.w_imm.q.val();
        self.fb.desc.atomic_va.next = self.w_raddr.q.val();
        self.fb.desc.swap.next = self.w_swap.q.val();
        self.fb.desc.cmp.next = self.w_cmp.q.val();
        self.fb.desc.fetch_add.next = self.w_opcode.q.val() == self.wro_atomic_fetch_and_add.val();
        self.fb.desc.orig.next = self.rr_orig_q.q.val();
        self.fb.desc.src.next = bit_cast::<16, 32>(self.av_q.q.val());
        self.fb.av.mac_lo.next = self.mac_lo.val();
        self.fb.av.mac_hi.next = self.mac_hi.val();
        self.fb.av.dest_mac_lo.next = self.dest_mac_lo.val();
        self.fb.av.dest_mac_hi.next = self.dest_mac_hi.val();
        self.fb.av.ipv4.next = self.ipv4.val();
        self.fb.av.dest_ipv4.next = self.dest_ipv4.val();
        self.fb.av.ipv6.next = self.ipv6.val();
        self.fb.av.src_gid.next = self.src_gid.val();
        self.fb.av.dest_gid_hi.next = self.dest_gid_hi.val();
        self.fb.av.dest_qpn.next = self.dest_qpn.val();
        self.fb.av.udp_sport.next = self.udp_sport.val();
        self.fb.av.udp_dport.next = self.udp_dport.val();
        self.fb.av.hop_limit.next = self.hop_limit.val();
        self.fb.av.flow_label.next = self.flow_label.val();
        self.fb.av.dscp.next = self.qp_dscp.val();
        self.fb.av.cnp_dscp.next = self.cnp_dscp.val();
        self.fb.av.ecn.next = self.tx_ecn.val();
        self.fb.av.vlan.next = self.vlan.val();
        self.fb.load.next = self.state.q.val() == TxState::Load;
        self.fb.emit.next = self.state.q.val() == TxState::Emit;
        self.fb.pay_valid.next = self.rd_resp_valid.val();
        self.fb.pay_data.next = self.rd_resp_data.val();
        self.fb.tx_tready.next = self.tx_tready.val();
        self.tx_tdata.next = self.fb.tx_tdata.val();
        self.tx_tkeep.next = self.fb.tx_tkeep.val();
        self.tx_tlast.next = self.fb.tx_tlast.val();
        self.tx_tvalid.next = self.fb.tx_tvalid.val();
        self.tx_vlan.next = self.fb.tx_vlan.val();
        self.tx_qpn.next = self.fb.tx_qpn.val();
        self.tx_cnp.next = self.fb.tx_cnp.val();
        self.tx_dscp.next = self.fb.tx_dscp.val();

        // The retransmission timer runs while a WQE is active or in the ring; sends, ACK progress and
        // restarts clear it. It stands still while PFC pauses the QP's priority: the packets it times
        // may still sit at the MAC, and a pause storm must not use up the retries (a storm that never
        // ends is the watchdog's, `net::pfc`).
        self.retry_init.next = bit_cast::<3, 32>(self.retry_cnt.val());
        self.retry_init_m1.next = self.retry_init.val() - 1;
        self.acv.clock.next = self.clock.val();
        self.acv.i.ack.next = self.l_ack.q.val();
        self.acv.i.seq.next = self.l_seq.q.val();
        self.acv.i.rnr.next = self.l_rnr.q.val();
        self.acv.i.resp_landed.next = self.lat_resp.q.val();
        self.acv.i.h_rd.next = self.h_rd.val();
        self.acv.i.w_rd.next = self.w_rdat.q.val();
        self.acv.i.retry_zero.next = self.retry.q.val() == 0;
        self.acv.i.retry_cnt_nz.next = self.retry_init.val() != 0;
        self.acv.i.rnr_zero.next = self.rnr_left.q.val() == 0;
        self.rnr_inf.d.next = bit_cast::<8, 32>(self.rnr_retry.val()) == 7;
        self.acv.i.rnr_inf.next = self.rnr_inf.q.val();
        self.acv.i.syndrome.next = self.lat_syn.q.val();
        self.acv.i.nak_status.next = self.nak_st.q.val();
        self.acv.i.h_ge_end.next = self.cc.v.h_ge_end.val();
        self.acv.i.h_gt_end.next = self.cc.v.h_gt_end.val();
        self.acv.i.h_ge_last.next = self.cc.v.h_ge_last.val();
        self.acv.i.h_ge_npk.next = self.cc.v.h_ge_npk.val();
        self.acv.i.h_ge_una.next = self.cc.v.h_ge_una.val();
        self.acv.i.h_gt_una.next = self.cc.v.h_gt_una.val();
        self.acv.i.a_ge_una.next = self.cc.v.a_ge_una.val();
        self.acv.i.a_gt_una.next = self.cc.v.a_gt_una.val();
        self.acv.i.a_lt_max.next = self.cc.v.a_lt_max.val();
        self.acv.i.a_le_max.next = self.cc.v.a_le_max.val();
        self.acv.i.a_ge_snd.next = self.cc.v.a_ge_snd.val();
        self.acv.i.a_eq_last.next = self.cc.v.a_eq_last.val();
        self.acv.i.a_ge_npk.next = self.cc.v.a_ge_npk.val();
        self.acv.i.a_lt_hi.next = self.cc.v.a_lt_hi.val();
        self.acv.i.a_le_hi.next = self.cc.v.a_le_hi.val();
        self.rt.clock.next = self.clock.val();
        self.rt.warp.next = self.warp.val();
        self.rt.run.next = false;
        self.rt.clear.next = false;
        if self.av_ok_cur.val() {
            self.cur_paused.d.next = self.av_paused.val();
        }
        // Fast-forward may skip the cycles before the timer reaches the timeout it is compared with.
        self.left_ack.next = !bits::<32>(0); // all ones: nothing to wake for
        if self.ack_timeout.val() != 0 {
            self.left_ack.next = 0.into();
            if self.rt.value.val() < self.ack_timeout.val() {
                self.left_ack.next = self.ack_timeout.val() - self.rt.value.val() - 1;
            }
        }
        self.left_rnr.next = !bits::<32>(0); // all ones: nothing to wake for
        if self.rnr_wait.q.val() {
            self.left_rnr.next = 0.into();
            if self.rt.value.val() < self.rnr_cycles.q.val() {
                self.left_rnr.next = self.rnr_cycles.q.val() - self.rt.value.val() - 1;
            }
        }
        self.wake_r.d.next = !bits::<32>(0); // all ones: nothing to wake for
        if (self.wqe_active.q.val() || (self.rg_n.q.val() != 0)) && !self.cur_paused.q.val() {
            self.rt.run.next = true;
            self.wake_r.d.next = self.left_ack.val();
            if self.left_rnr.val() < self.left_ack.val() {
                self.wake_r.d.next = self.left_rnr.val();
            }
        }
        self.wake.next = self.wake_r.q.val();

        // A claimed prefetch is requested until the port takes it (no other state uses the read port
        // meanwhile: WQE fetches need no WQE active, READ responses wait for the prefetch).
        self.pf_inc.next = false;
        self.pf_dec.next = false;
        if self.pf_on.q.val() {
            self.rd_req_valid.next = true;
            self.rd_req_addr.next = self.pf_addr.q.val();
            self.rd_req_len.next = self.pf_len.q.val();
            self.rd_req_gather.next = self.w_gather.q.val();
            if self.rd_req_ready.val() {
                self.pf_on.d.next = false;
                self.pf_inc.next = true;
            }
        }
        if self.nx_claim.q.val() {
            self.rd_req_valid.next = true;
            self.rd_req_addr.next = self.nx_a.q.val();
            self.rd_req_len.next = self.wqe_len.val();
            self.rd_req_gather.next = false;
            if self.rd_req_ready.val() {
                self.nx_claim.d.next = false;
                self.nx_on.d.next = true;
            }
        }
        // A WRITE or SEND whose packets are all out parks in the ring so that the next WQE can start, and
        // so does a READ or atomic whose request is out and whose context is in rdq (one with a scatter
        // list waits for its responses). Only in RTS: SQD starts no new WQE.
        self.rg_may.next = self.wqe_active.q.val()
            && !self.w_done.q.val()
            && self.enable.val()
            && self.rts.val()
            && !self.hold.val()
            && !self.rnr_wait.q.val()
            && (self.w_rdq.q.val() || !self.w_rdat.q.val())
            && !self.pf_any.val()
            && (self.rg_n.q.val() != self.rg_depth.val())
            && (self.turn_n.q.val() < self.turn_max.val())
            && self.nx_work.q.val();
        self.rg_park.next = self.rg_may.val()
            && (self.snd_idx.q.val() == self.npk.q.val())
            && (self.snd_max.q.val() == self.npk.q.val());
        self.nx_any.next = self.nx_claim.q.val() || self.nx_on.q.val();
        // The WQE fetched ahead is the one to fetch now (or will be once the one in progress parks).
        // Not while paced: a WQE fetched ahead would keep the turn (`sw_ok` waits for it), so a paced QP
        // drops it (WqeDrain) and fetches it again when its turn comes back.
        self.nx_use.next = !self.wqe_active.q.val()
            && self.nxu_hit.val()
            && self.enable.val()
            && self.rts.val()
            && !self.hold.val()
            && !self.hold_cur.val();
        // Fetch ahead from the last packet of a WQE that will park, while nothing else reads. Acted on
        // only in Emit, entered from states that move neither `nx_i` nor the ring (Idle, Cqe and RgCqe
        // do, and lead elsewhere; the table changes the ring only while `sw_ok`), so the address's
        // registered verdict about the last edge's inputs is about the live ones.
        self.nx_go.next = self.rg_may.val()
            && !self.nx_any.val()
            && !self.p_ack.q.val()
            && !self.p_cnp.q.val()
            && !self.p_resp.q.val()
            && (self.snd_idx.q.val() == self.last_idx.q.val())
            && !self.push_nxq.q.val()
            && self.nxa.ok_q.val()
            && !self.hold_cur_q.q.val();
        // Fatal NAKs (AETH NAK codes 1..3, §9.3): invalid request, remote access, remote operational error.
        self.nak_status.next = self.wc_rem_op_err.val();
        if self.lat_syn.q.val() == self.aeth_nak_invalid_request.val() {
            self.nak_status.next = self.wc_rem_inv_req_err.val();
        }
        if self.lat_syn.q.val() == self.aeth_nak_remote_access_error.val() {
            self.nak_status.next = self.wc_rem_access_err.val();
        }
        // The latched ACK/NAK's class and a fatal NAK's status, and whether the WQE in progress is a
        // READ or atomic, registered: Idle reads them only with the completer's checks fresh (two
        // cycles after `lat_*` last changed) or cycles after WqeParse set the opcode.
        self.l_ack.d.next =
            (self.lat_syn.q.val() & self.aeth_type_mask.val()) == self.aeth_ack.val();
        self.l_rnr.d.next =
            (self.lat_syn.q.val() & self.aeth_type_mask.val()) == self.aeth_rnr_nak.val();
        self.l_seq.d.next = self.lat_syn.q.val() == self.aeth_nak_psn_sequence_error.val();
        self.nak_st.d.next = self.nak_status.val();
        self.w_rdat.d.next = self.is_read.val() || self.is_atomic.val();
        self.rg_back.next = false;
        self.rg_at.next = self.cc.v.hd.val();
        // The timer's compares, registered: a cycle late, and read only while the completer's checks
        // are fresh (no decision for two cycles, so the timer was not cleared under them).
        self.tmo_ge.d.next =
            (self.ack_timeout.val() != 0) && (self.rt.value.val() >= self.ack_timeout.val());
        self.rnr_ge.d.next = self.rt.value.val() >= self.rnr_cycles.q.val();
        self.rg_due.next = (self.rg_n.q.val() != 0)
            && self.rg_ok.val()
            && !self.rnr_wait.q.val()
            && self.tmo_ge.q.val();
        self.rg_psn.next = self.lat_psn.q.val();
        // Idle's candidates (roce::tx_arbiter), every cycle from the registers as they are.
        self.arb.clock.next = self.clock.val();
        self.arb.reset.next = self.reset.val();
        self.arb.idle.next = self.state.q.val() == TxState::Idle;
        // A request once valid stays valid until taken (no withdrawing), so the claimed one waits for
        // the port; the data of the reads already taken drains meanwhile: a host with few read credits
        // takes the claimed one only once that data is out of its way.
        self.arb.c.pf_stale.next = self.pf_any.val() && self.pf_stale.val();
        self.arb.c.pf_drain.next = !self.pf_on.q.val() || (self.pf_n.q.val() != 0);
        self.arb.c.wqe_drain.next =
            self.nx_on.q.val() && !(self.rg_park.val() || self.nx_use.val());
        // In ERR too: a responder error sends its NAK as the QP enters ERR (§9.9.3), and the receive
        // engine only raises ACK requests in RTR or RTS.
        self.arb.c.ack_frame.next = self.ack_valid.val()
            && !self.ack_hold.val()
            && self.enable.val()
            && (self.job_live.val() || (self.job_state.val() == self.qs_err.val()))
            && self.av_ok_job.val();
        self.arb.c.cnp.next = self.cnp_valid.val()
            && self.enable.val()
            && self.job_live.val()
            && self.av_ok_job.val();
        // The responder's READ responses go before our own requests (§9.7.5.1.5); a job just taken has
        // its first response a cycle later.
        self.arb.c.rr.next = self.rr.active.val()
            && !self.pf_any.val()
            && !self.nx_any.val()
            && self.enable.val()
            && self.av_ok_rr.val();
        self.arb.c.rr_setup.next = self.rr.resp.valid.val();
        self.arb.c.rr_take.next = self.rr_valid.val() && !self.rr.active.val();
        self.arb.c.rg_drop.next =
            ((self.rg_n.q.val() != 0) || self.rs_on.q.val()) && !self.sq_on.val();
        self.arb.c.rg_landed.next =
            (self.rg_n.q.val() != 0) && self.rg_ok.val() && self.h_rd.val() && self.h_landed.val();
        // The completer's checks of the ACK/NAK or of the timeout are of inputs two cycles old: wait for
        // them to settle (nothing decided meanwhile).
        self.arb.c.settling.next =
            (self.lat_valid.q.val() || self.rg_due.val()) && !self.cc.v.fresh.val();
        self.arb.c.rg_ack.next = (self.rg_n.q.val() != 0)
            && self.rg_ok.val()
            && self.lat_valid.q.val()
            && !self.h_wait.val();
        self.arb.c.rg_timeout.next = self.rg_due.val();
        self.arb.c.cqe.next =
            self.wqe_active.q.val() && self.w_done.q.val() && (self.rg_n.q.val() == 0);
        self.arb.c.rd_landed.next = self.wqe_active.q.val()
            && self.w_rdq.q.val()
            && !self.w_done.q.val()
            && (self.rdq_rxn.q.val() == 0)
            && (self.rg_n.q.val() == 0);
        self.arb.c.wqe_drop.next = self.wqe_active.q.val() && !self.sq_on.val();
        self.arb.c.wqe_ack.next =
            self.wqe_active.q.val() && self.lat_valid.q.val() && (self.rg_n.q.val() == 0);
        self.arb.c.rnr_over.next = self.wqe_active.q.val()
            && self.rnr_wait.q.val()
            && self.rnr_ge.q.val()
            && self.cc.v.fresh.val();
        self.arb.c.wqe_timeout.next = self.wqe_active.q.val()
            && !self.rnr_wait.q.val()
            && self.tmo_ge.q.val()
            && self.cc.v.fresh.val()
            && (self.una.q.val() != self.snd_max.q.val())
            && (self.rg_n.q.val() == 0);
        self.arb.c.park.next = self.rg_park.val();
        self.arb.c.send.next = self.wqe_active.q.val()
            && !self.w_done.q.val()
            && self.enable.val()
            && !self.rnr_wait.q.val()
            && (self.snd_idx.q.val() != self.npk.q.val())
            && self.av_ok_cur.val()
            && !self.nx_any.val()
            && self.rd_go.val()
            && !self.hold_cur.val();
        self.arb.c.fetch.next = !self.wqe_active.q.val()
            && self.enable.val()
            && self.rts.val()
            && !self.hold.val()
            && !self.pf_any.val()
            && !self.nx_claim.q.val()
            && self.fi_work.val()
            && !self.hold_cur.val();
        self.i_act.next = false;
        match self.state.q.val() {
            TxState::Idle => {
                // Idle takes three cycles per decision (roce::tx_arbiter): the candidates' conditions
                // settle into registers, one is picked by priority, and the next cycle acts on it,
                // re-checking only what changes from outside (an ACK withdrawn behind a READ job, the
                // table's hold, enable and pacing). An act may change what the completer's checks read
                // (`i_act`); the other cycles do not.
                self.i_act.next = true;
                if !self.wqe_active.q.val() && (self.rg_n.q.val() == 0) {
                    self.lat_valid.d.next = false;
                }
                match self.arb.pick.val() {
                    TxPick::None => {
                        self.i_act.next = false;
                        // The address vector of the frame that goes next (lowest priority first).
                        // (as the arbiter chooses; an ACK held behind a read job must not take the AV).
                        self.av_q.d.next = self.cur_qpn.val();
                        if self.rr.active.val() && !self.pf_any.val() {
                            self.av_q.d.next = self.rr_qp_q.q.val();
                        }
                        if self.cnp_valid.val() && self.job_live.val() {
                            self.av_q.d.next = self.job_qpn.val();
                        }
                        if self.ack_valid.val()
                            && !self.ack_hold.val()
                            && (self.job_live.val() || (self.job_state.val() == self.qs_err.val()))
                        {
                            self.av_q.d.next = self.job_qpn.val();
                        }
                    }
                    TxPick::PfDrain => {
                        self.state.d.next = TxState::PfDrain;
                    }
                    TxPick::WqeDrain => {
                        self.state.d.next = TxState::WqeDrain;
                    }
                    TxPick::AckFrame => {
                        if self.ack_valid.val() && !self.ack_hold.val() && self.enable.val() {
                            // ACKNOWLEDGE with AETH for the responder (§9.7.5, §9.3).
                            self.ack_taken.next = true;
                            self.p_ack.d.next = true;
                            self.p_aeth.d.next = true;
                            self.p_resp.d.next = false;
                            self.p_reth.d.next = false;
                            self.p_imm.d.next = false;
                            self.p_atomic.d.next = false;
                            self.p_aack.d.next = false;
                            self.p_cnp.d.next = false;
                            self.p_opcode.d.next = self.op_rc_acknowledge.val();
                            self.p_psn.d.next = self.ack_psn.val();
                            self.p_syn.d.next = self.ack_syndrome.val();
                            self.p_msn.d.next = self.ack_msn.val();
                            self.p_plen.d.next = 0.into();
                            self.p_ackreq.d.next = false;
                            self.p_se.d.next = false;
                            self.state.d.next = TxState::Load;
                        }
                    }
                    TxPick::Cnp => {
                        if self.cnp_valid.val() && self.enable.val() {
                            // CNP (RoCEv2 annex A17.9.3) to the sender's QP: no payload, PSN 0, BECN set.
                            self.cnp_taken.next = true;
                            self.p_ack.d.next = false;
                            self.p_aeth.d.next = false;
                            self.p_resp.d.next = false;
                            self.p_reth.d.next = false;
                            self.p_imm.d.next = false;
                            self.p_atomic.d.next = false;
                            self.p_aack.d.next = false;
                            self.p_cnp.d.next = true;
                            self.p_opcode.d.next = self.op_cnp.val();
                            self.p_psn.d.next = 0.into();
                            self.p_plen.d.next = 0.into();
                            self.p_ackreq.d.next = false;
                            self.p_se.d.next = false;
                            self.state.d.next = TxState::Load;
                        }
                    }
                    TxPick::RrSetup => {
                        // (a job aborted meanwhile has no response)
                        if self.enable.val() && self.rr.resp.valid.val() {
                            self.state.d.next = TxState::RrSetup;
                        }
                    }
                    TxPick::RrTake => {
                        // Take a READ or atomic the receive engine accepted (read_reply cuts it).
                        self.rr_taken.next = true;
                        self.rr.job.valid.next = true;
                        self.rr_msn_q.d.next = self.rr_msn.val();
                        self.rr_atomic_q.d.next = self.rr_atomic.val();
                        self.rr_orig_q.d.next = self.rr_orig.val();
                        self.rr_qp_q.d.next = self.job_qpn.val();
                    }
                    TxPick::RgDrop => {
                        // Left RTS with WQEs outstanding: drop them all, the driver flushes from SQ_CI.
                        self.rg_n.d.next = 0.into();
                        self.rg_nz.d.next = false;
                        self.rs_on.d.next = false;
                        self.wqe_active.d.next = false;
                        self.lat_valid.d.next = false;
                    }
                    TxPick::RgLanded => {
                        // The head READ or atomic has landed: its last response acknowledged it (§9.7.6).
                        self.rg_status.d.next = self.wc_success.val();
                        self.rg_fail.d.next = false;
                        self.rg_vendor.d.next = 0.into();
                        self.state.d.next = TxState::RgCqe;
                    }
                    TxPick::RgAck => {
                        // ACK/NAK while WQEs are in the ring: it first serves the oldest (§9.7.6), as
                        // roce::ack_verdict decided. Entries it covers complete one by one (RgCqe; the
                        // ACK stays latched for the next), one it ends inside is acknowledged that far,
                        // and a NAK inside one goes back to it or completes it in error.
                        if !self.acv.o.r_keep.val() {
                            self.lat_valid.d.next = false;
                        }
                        if self.acv.o.r_complete.val() {
                            self.rg_status.d.next = self.acv.o.r_status.val();
                            self.rg_fail.d.next = self.acv.o.r_fail.val();
                            self.state.d.next = TxState::RgCqe;
                        }
                        if self.acv.o.r_vendor_ld.val() {
                            self.rg_vendor.d.next = self.acv.o.r_vendor.val();
                        }
                        if self.acv.o.r_part.val() {
                            self.h_una.d.next = self.cc.v.hd_p1.val();
                        }
                        if self.acv.o.r_back.val() {
                            self.rg_back.next = true;
                            self.rs_rnr.d.next = self.acv.o.r_rs_rnr.val();
                        }
                        if self.acv.o.r_retry_init.val() {
                            self.retry.d.next = self.retry_init.val();
                        }
                        if self.acv.o.r_retry_init_m1.val() {
                            self.retry.d.next = self.retry_init_m1.val();
                        }
                        if self.acv.o.r_retry_dec.val() {
                            self.retry.d.next = self.retry.q.val() - 1;
                        }
                        if self.acv.o.r_rt_clear.val() {
                            self.rt.clear.next = true;
                        }
                        if self.acv.o.r_retransmit.val() {
                            self.retransmits_inc.next = true;
                        }
                        if self.acv.o.r_rnr_load.val() {
                            self.rnr_cycles.d.next = self.rnr_rom.data.val();
                        }
                        if self.acv.o.r_rnr_dec.val() {
                            self.rnr_left.d.next = self.rnr_left.q.val() - 1;
                        }
                        if self.acv.o.r_rnr_exc.val() {
                            self.rnr_retry_exc_inc.next = true;
                        }
                    }
                    TxPick::RgTimeout => {
                        // Local ACK timeout with WQEs in the ring (§9.7.6): resend from the oldest
                        // unacknowledged PSN, the head entry's packet h_una, while retries last.
                        self.ack_timeouts_inc.next = true;
                        self.rt.clear.next = true;
                        if self.retry.q.val() == 0 {
                            self.rg_status.d.next = self.wc_retry_exc_err.val();
                            self.rg_fail.d.next = true;
                            self.rg_vendor.d.next = 0.into();
                            self.state.d.next = TxState::RgCqe;
                        } else {
                            self.retry.d.next = self.retry.q.val() - 1;
                            self.retransmits_inc.next = true;
                            self.rg_back.next = true;
                            self.rg_at.next = self.h_una.q.val();
                            self.rg_psn.next = self.cc.v.una_psn.val();
                            self.rs_rnr.d.next = false;
                        }
                    }
                    TxPick::Cqe => {
                        self.state.d.next = TxState::Cqe;
                    }
                    TxPick::RdLanded => {
                        // The READ or atomic in progress has landed (its context passed the receive engine):
                        // done, whether or not the last response's acknowledgement is still latched.
                        self.una.d.next = self.npk.q.val();
                        self.w_done.d.next = true;
                        self.w_status.d.next = self.wc_success.val();
                        self.w_fail.d.next = false;
                    }
                    TxPick::WqeDrop => {
                        // Left RTS (host or responder set ERR, or reset): drop the WQE, the driver flushes it.
                        self.wqe_active.d.next = false;
                    }
                    TxPick::WqeAck => {
                        // ACK/NAK for the WQE in progress, as roce::ack_verdict decided (§9.7.6).
                        self.lat_valid.d.next = false;
                        if self.acv.o.w_una_p1.val() {
                            self.una.d.next = self.cc.v.ad_p1.val();
                        }
                        if self.acv.o.w_una_ad.val() {
                            self.una.d.next = self.cc.v.ad.val();
                        }
                        if self.acv.o.w_snd_p1.val() {
                            self.snd_idx.d.next = self.cc.v.ad_p1.val();
                        }
                        if self.acv.o.w_snd_ad.val() {
                            self.snd_idx.d.next = self.cc.v.ad.val();
                        }
                        if self.acv.o.w_snd_una.val() {
                            self.snd_idx.d.next = self.una.q.val();
                        }
                        if self.acv.o.w_since0.val() {
                            self.since_req.d.next = 0.into();
                        }
                        if self.acv.o.w_done.val() {
                            self.w_done.d.next = true;
                            self.w_status.d.next = self.acv.o.w_status.val();
                            self.w_fail.d.next = self.acv.o.w_fail.val();
                        }
                        if self.acv.o.w_vendor_ld.val() {
                            self.w_vendor.d.next = self.lat_syn.q.val();
                        }
                        if self.acv.o.w_past.val() {
                            self.w_past.next = true;
                        }
                        if self.acv.o.w_rnr_wait.val() {
                            self.rnr_wait.d.next = true;
                        }
                        if self.acv.o.w_retry_init.val() {
                            self.retry.d.next = self.retry_init.val();
                        }
                        if self.acv.o.w_retry_init_m1.val() {
                            self.retry.d.next = self.retry_init_m1.val();
                        }
                        if self.acv.o.w_retry_dec.val() {
                            self.retry.d.next = self.retry.q.val() - 1;
                        }
                        if self.acv.o.w_rt_clear.val() {
                            self.rt.clear.next = true;
                        }
                        if self.acv.o.w_retransmit.val() {
                            self.retransmits_inc.next = true;
                        }
                        if self.acv.o.w_rnr_load.val() {
                            self.rnr_cycles.d.next = self.rnr_rom.data.val();
                        }
                        if self.acv.o.w_rnr_dec.val() {
                            self.rnr_left.d.next = self.rnr_left.q.val() - 1;
                        }
                        if self.acv.o.w_rnr_exc.val() {
                            self.rnr_retry_exc_inc.next = true;
                        }
                    }
                    TxPick::RnrOver => {
                        // RNR wait over.
                        self.rnr_wait.d.next = false;
                        self.rt.clear.next = true;
                        self.retransmits_inc.next = true;
                    }
                    TxPick::WqeTimeout => {
                        // Local ACK timeout (§9.7.6): resend from the oldest unacknowledged PSN until the
                        // retry count is exhausted.
                        self.ack_timeouts_inc.next = true;
                        self.rt.clear.next = true;
                        if self.retry.q.val() == 0 {
                            self.w_done.d.next = true;
                            self.w_status.d.next = self.wc_retry_exc_err.val();
                            self.w_fail.d.next = true;
                            self.w_vendor.d.next = 0.into();
                        } else {
                            self.retry.d.next = self.retry.q.val() - 1;
                            self.snd_idx.d.next = self.una.q.val();
                            self.since_req.d.next = 0.into();
                            self.retransmits_inc.next = true;
                        }
                    }
                    TxPick::Park => {
                        self.rg.write_enable.next = true;
                        self.rg_n.d.next = self.rg_n.q.val() + 1;
                        self.rg_nz.d.next = true;
                        self.fi_q.d.next = self.nx_i.val();
                        self.nx_q.d.next = self.nx_i.val() + 1;
                        self.rg_stale.d.next = true;
                        self.wqe_active.d.next = false;
                        if self.rg_n.q.val() == 0 {
                            self.h_una.d.next = self.una.q.val();
                        }
                    }
                    TxPick::Send => {
                        if self.enable.val() && !self.hold_cur.val() {
                            self.state.d.next = TxState::PktSetup;
                        }
                    }
                    TxPick::Fetch => {
                        if self.enable.val()
                            && self.rts.val()
                            && !self.hold.val()
                            && !self.hold_cur.val()
                        {
                            // (A paced QP starts no new work request: its ring drains and the table can give
                            // the turn to another QP, `qp_table` tx_sw_ok, instead of the QP keeping it.)
                            self.state.d.next = TxState::WqeReq;
                            if self.nx_on.q.val() {
                                // Fetched ahead (the drain above took any other): its data is on the way.
                                self.nx_on.d.next = false;
                                self.state.d.next = TxState::WqeData;
                            }
                        }
                    }
                }
            }
            TxState::WqeReq => {
                // The first cycle chooses the push window or the ring (`push_go`, `wq_ring`) and takes
                // the window's WQE with the choice; the cycles after act on the registered choice. A
                // ring read once chosen is kept (a request is never withdrawn); a push that arrives
                // later is left in the window. The address waits for its stages to have the live
                // index, ring and size. Its registered verdict (about the inputs a cycle ago) is about
                // the live ones: `sq_fi` and the ring stand still from the Fetch pick on (SQ_CI moves
                // three cycles after a completion, the table changes the ring only while `sw_ok`,
                // which WqeReq clears).
                if !self.push_go.q.val() {
                    self.wqe_buf.d.next = self.push_wqe.val();
                }
                self.rd_req_valid.next =
                    self.rts.val() && self.wq_ring.q.val() && self.sqa.ok_q.val();
                if !self.rts.val() {
                    self.state.d.next = TxState::Idle;
                } else if self.push_go.q.val() {
                    // Pushed through the register window: no DMA read, one latency saved.
                    self.push_used.next = true;
                    self.state.d.next = TxState::WqeParse;
                } else if self.wq_ring.q.val() && self.sqa.ok_q.val() && self.rd_req_ready.val() {
                    self.state.d.next = TxState::WqeData;
                }
            }
            TxState::WqeData => {
                // The 64-byte WQE arrives lowest address first: shift it in from the top of a 512-bit register.
                // A 128-byte one shifts through `sgl_buf` into `wqe_buf`: the header ends in `wqe_buf`,
                // the gather list in `sgl_buf`.
                self.rd_resp_ready.next = true;
                if self.rd_resp_valid.val() {
                    self.wqe_buf.d.next = (self.wqe_buf.q.val() >> self.w_bits.val())
                        | (bit_cast::<512, W>(self.rd_resp_data.val()) << self.wqe_in_shift.val());
                    if self.wqe128.val() {
                        self.rd_sgl_new.next = true;
                        self.sgl_buf.d.next = (self.sgl_buf.q.val() >> self.w_bits.val())
                            | (bit_cast::<512, W>(self.rd_resp_data.val())
                                << self.wqe_in_shift.val());
                        self.wqe_buf.d.next = (self.wqe_buf.q.val() >> self.w_bits.val())
                            | (bit_cast::<512, W>(bit_cast::<W, 512>(self.sgl_buf.q.val()))
                                << self.wqe_in_shift.val());
                    }
                    if self.rd_resp_last.val() {
                        self.state.d.next = TxState::WqeParse;
                    }
                }
            }
            TxState::WqeParse => {
                self.w_opcode.d.next = bit_cast::<8, 512>(self.wqe_buf.q.val());
                self.w_flags.d.next =
                    bit_cast::<8, 512>(self.wqe_buf.q.val() >> self.sh_flags.val());
                self.w_len.d.next = self.msg_len.val();
                self.pfs.load.next = true;
                self.w_len_m1.d.next = self.msg_len.val() - 1;
                self.w_len_up.d.next = self.msg_len.val() + self.mtu_m1.q.val();
                self.w_len_zero.d.next = self.msg_len.val() == 0;
                self.w_wrid.d.next =
                    bit_cast::<64, 512>(self.wqe_buf.q.val() >> self.sh_wrid.val());
                self.w_laddr.d.next =
                    bit_cast::<64, 512>(self.wqe_buf.q.val() >> self.sh_laddr.val());
                self.w_nsge.d.next = self.wqe_nsge.val();
                self.w_gather.d.next = false;
                if self.wqe128.val() && self.nsge_gt1.val() {
                    // Reads of the message are offsets in the gather list from here on.
                    self.w_gather.d.next = true;
                    self.w_laddr.d.next = 0.into();
                }
                self.w_rkey.d.next =
                    bit_cast::<32, 512>(self.wqe_buf.q.val() >> self.sh_rkey.val());
                self.w_raddr.d.next =
                    bit_cast::<64, 512>(self.wqe_buf.q.val() >> self.sh_raddr.val());
                self.w_imm.d.next = bit_cast::<32, 512>(self.wqe_buf.q.val() >> self.sh_imm.val());
                self.w_cmp.d.next = bit_cast::<64, 512>(self.wqe_buf.q.val() >> self.sh_cmp.val());
                self.w_swap.d.next =
                    bit_cast::<64, 512>(self.wqe_buf.q.val() >> self.sh_swap.val());
                self.state.d.next = TxState::WqeCheck;
                if self.wqe128.val() {
                    self.sum_k.d.next = 0.into();
                    self.state.d.next = TxState::WqeSum;
                }
            }
            TxState::WqeSum => {
                // NUM_SGE is in w_nsge from this cycle; the list's sum is valid LATENCY cycles on, its
                // compare with the length a cycle after.
                self.sum_k.d.next = self.sum_k.q.val() + 1;
                if self.sum_k.q.val() == self.sum_wait.val() {
                    self.state.d.next = TxState::WqeCheck;
                }
            }
            TxState::WqeCheck => {
                // The message starts at SQ_PSN (§9.7); a zero-length message is one packet.
                self.wqe_active.d.next = true;
                self.w_rdq.d.next = false;
                self.w_done.d.next = false;
                self.w_status.d.next = self.wc_success.val();
                self.w_fail.d.next = false;
                self.w_vendor.d.next = 0.into();
                self.first_psn.d.next = bit_cast::<24, 32>(self.sq_psn.val());
                // npk = ceil(len / MTU), last = npk - 1; a zero-length message is one packet.
                self.npk.d.next = bit_cast::<24, 32>(self.w_len_up.q.val() >> self.pm.val());
                self.last_idx.d.next = bit_cast::<24, 32>(self.w_len_m1.q.val() >> self.pm.val());
                if self.w_len_zero.q.val() {
                    self.npk.d.next = 1.into();
                    self.last_idx.d.next = 0.into();
                }
                self.snd_idx.d.next = 0.into();
                self.snd_max.d.next = 0.into();
                self.una.d.next = 0.into();
                self.retry.d.next = self.retry_init.val();
                self.rnr_left.d.next = bit_cast::<8, 32>(self.rnr_retry.val());
                self.rt.clear.next = true;
                self.rnr_wait.d.next = false;
                self.since_req.d.next = 0.into();
                if self.rg_n.q.val() == 0 {
                    self.lat_valid.d.next = false;
                }
                if (self.rg_n.q.val() != 0) || self.rs_on.q.val() {
                    // The retry budgets belong to the oldest WQE outstanding (the ring's head, or the
                    // one sent again after a NAK or timeout), not to this one.
                    self.retry.d.next = self.retry.q.val();
                    self.rnr_left.d.next = self.rnr_left.q.val();
                }
                if !self.rs_on.q.val() && (self.turn_n.q.val() < self.turn_max.val()) {
                    self.turn_n.d.next = self.turn_n.q.val() + self.turn_one.val();
                }
                if self.rs_on.q.val() {
                    // Sent before: its PSNs stay, sending resumes at packet rs_idx.
                    self.rs_on.d.next = false;
                    self.first_psn.d.next = self.rs_first.q.val();
                    self.snd_idx.d.next = self.rs_idx.q.val();
                    self.snd_max.d.next = self.rs_idx.q.val();
                    self.una.d.next = self.rs_idx.q.val();
                    self.rnr_wait.d.next = self.rs_rnr.q.val();
                }
                if !(self.wr_write.val()
                    || self.wr_send.val()
                    || self.is_read.val()
                    || self.is_atomic.val())
                {
                    // Not a work request opcode this engine knows.
                    self.w_done.d.next = true;
                    self.w_status.d.next = self.wc_loc_qp_op_err.val();
                    self.w_fail.d.next = true;
                } else if self.sgl_bad.val() || (self.w_gather.q.val() && self.is_atomic.val()) {
                    // A malformed list, or one on an atomic (one 8-byte word: a list of its
                    // local buffer is not built). A READ's list is its scatter list.
                    self.w_done.d.next = true;
                    self.w_status.d.next = self.wc_loc_qp_op_err.val();
                    self.w_fail.d.next = true;
                } else if self.is_atomic.val() && (self.w_len.q.val() != 8) {
                    // An atomic works on one 8-byte word (IBA §9.4.5).
                    self.w_done.d.next = true;
                    self.w_status.d.next = self.wc_loc_len_err.val();
                    self.w_fail.d.next = true;
                } else if self.w_gather.q.val() && self.len_mis.q.val() {
                    // The list must cover the message exactly: no read past its last entry.
                    self.w_done.d.next = true;
                    self.w_status.d.next = self.wc_loc_len_err.val();
                    self.w_fail.d.next = true;
                }
                self.state.d.next = TxState::Idle;
            }
            TxState::PktSetup => {
                // Opcode sequence (BTH opcodes, §9.2): FIRST, MIDDLE ..., LAST, or ONLY (`op_*`). AckReq on
                // the last packet and every ACK_REQ_EVERY packets (§9.2, §9.7); Solicited Event only on the
                // last packet of a SEND (§9.2.3).
                self.p_ack.d.next = false;
                self.p_aeth.d.next = false;
                self.p_resp.d.next = false;
                self.p_atomic.d.next = false;
                self.p_aack.d.next = false;
                self.p_cnp.d.next = false;
                self.p_reth.d.next = self.wr_write.val() && self.o_first.q.val();
                self.p_imm.d.next = (self.wr_imm.val() || self.wr_inv.val()) && self.o_last.q.val();
                self.p_rva.d.next = self.w_raddr.q.val();
                self.p_rlen.d.next = self.w_len.q.val();
                self.p_psn.d.next = self.first_psn.q.val() + self.snd_idx.q.val();
                self.p_plen.d.next = self.plen.val();
                self.p_addr.d.next = (bit_cast::<64, 32>(self.w_laddr.q.val().get_bits::<32>(32))
                    << 32)
                    | bit_cast::<64, 32>(self.ps_lo.val().get_bits::<32>(0));
                if self.ps_lo.val().get_bit(32) {
                    self.p_addr.d.next = (bit_cast::<64, 32>(self.w_laddr_hi1.q.val()) << 32)
                        | bit_cast::<64, 32>(self.ps_lo.val().get_bits::<32>(0));
                }
                self.p_gather.d.next = self.w_gather.q.val();
                self.p_se.d.next = (self.wr_send.val() || self.wr_imm.val())
                    && ((self.w_flags.q.val() & 2) != 0)
                    && self.o_last.q.val();
                self.p_ackreq.d.next = self.o_last.q.val()
                    || (self.ev_on.q.val() && (self.since_req.q.val() >= self.ev_m1.q.val()));
                if self.o_only.q.val() {
                    self.p_opcode.d.next = self.op_only.val();
                } else if self.o_first.q.val() {
                    self.p_opcode.d.next = self.op_first.val();
                } else if self.o_last.q.val() {
                    self.p_opcode.d.next = self.op_last.val();
                } else {
                    self.p_opcode.d.next = self.op_mid.val();
                }
                if self.is_read.val() {
                    // RDMA READ REQUEST (§9.7.5.1.5): no payload, a RETH for the bytes not yet
                    // received; from packet index i it asks for [i * MTU, len) and its responses take PSNs
                    // first + i ... first + npk - 1.
                    self.p_opcode.d.next = self.op_rc_rdma_read_request.val();
                    self.p_reth.d.next = true;
                    self.p_imm.d.next = false;
                    self.p_plen.d.next = 0.into();
                    self.p_rva.d.next =
                        (bit_cast::<64, 32>(self.w_raddr.q.val().get_bits::<32>(32)) << 32)
                            | bit_cast::<64, 32>(self.ps_rlo.val().get_bits::<32>(0));
                    if self.ps_rlo.val().get_bit(32) {
                        self.p_rva.d.next = (bit_cast::<64, 32>(self.w_raddr_hi1.q.val()) << 32)
                            | bit_cast::<64, 32>(self.ps_rlo.val().get_bits::<32>(0));
                    }
                    self.p_rlen.d.next = self.rem.val();
                    self.p_ackreq.d.next = true;
                    self.p_se.d.next = false;
                }
                if self.is_atomic.val() {
                    // CmpSwap / FetchAdd with an AtomicETH and no payload (§9.4.5).
                    self.p_opcode.d.next = self.op_rc_compare_swap.val();
                    if self.w_opcode.q.val() == self.wro_atomic_fetch_and_add.val() {
                        self.p_opcode.d.next = self.op_rc_fetch_add.val();
                    }
                    self.p_reth.d.next = false;
                    self.p_imm.d.next = false;
                    self.p_atomic.d.next = true;
                    self.p_plen.d.next = 0.into();
                    self.p_ackreq.d.next = true;
                    self.p_se.d.next = false;
                }
                self.state.d.next = TxState::Load;
                if !self.ps_ok.val() {
                    // The offset stage is not this packet's yet (a path MTU just changed): again.
                    self.state.d.next = TxState::PktSetup;
                }
            }
            TxState::RrSetup => {
                // READ RESPONSE FIRST / MIDDLE / LAST / ONLY; AETH (an ACK, credits invalid, with the MSN
                // of the READ) on FIRST, LAST and ONLY (§9.3, §9.7.5.1.5).
                self.p_ack.d.next = false;
                self.p_resp.d.next = true;
                self.p_reth.d.next = false;
                self.p_imm.d.next = false;
                self.p_atomic.d.next = false;
                self.p_aack.d.next = self.rr_atomic_q.q.val();
                self.p_cnp.d.next = false;
                self.p_aeth.d.next = self.rr.resp.first.val() || self.rr.resp.last.val();
                self.p_psn.d.next = self.rr.resp.psn.val();
                self.p_plen.d.next = self.rr.resp.plen.val();
                self.p_addr.d.next = self.rr.resp.va.val();
                self.p_gather.d.next = false;
                self.p_syn.d.next = self.aeth_ack_credits_invalid.val();
                self.p_msn.d.next = self.rr_msn_q.q.val();
                self.p_ackreq.d.next = false;
                self.p_se.d.next = false;
                if self.rr_atomic_q.q.val() {
                    // ATOMIC ACKNOWLEDGE: AETH and the original value (§9.4.6).
                    self.p_opcode.d.next = self.op_rc_atomic_acknowledge.val();
                    self.p_plen.d.next = 0.into();
                } else if self.rr.resp.first.val() && self.rr.resp.last.val() {
                    self.p_opcode.d.next = self.op_rc_rdma_read_response_only.val();
                } else if self.rr.resp.first.val() {
                    self.p_opcode.d.next = self.op_rc_rdma_read_response_first.val();
                } else if self.rr.resp.last.val() {
                    self.p_opcode.d.next = self.op_rc_rdma_read_response_last.val();
                } else {
                    self.p_opcode.d.next = self.op_rc_rdma_read_response_middle.val();
                }
                self.state.d.next = TxState::Load;
            }
            TxState::Load => {
                // The frame builder takes the headers (roce::frame_build), then adds the extension
                // header in `Ext`; an address vector just read waits for its checksum's sums.
                if self.fb.loaded.val() {
                    self.state.d.next = TxState::Ext;
                }
            }
            TxState::Ext => {
                if self.fb.has_data.val() {
                    self.state.d.next = TxState::DmaReq;
                } else {
                    self.state.d.next = TxState::Emit;
                }
            }
            TxState::DmaReq => {
                // One read per packet of its payload bytes (from local addr + i * MTU, any byte),
                // unless an earlier packet already prefetched it (then `pf_idx` is this packet: Idle
                // drains any other).
                if self.pf_any.val() {
                    // Accepted earlier, or this cycle (the request is driven above the state machine).
                    if (self.pf_n.q.val() != 0) || self.rd_req_ready.val() {
                        self.pf_dec.next = true;
                        self.pf_idx.d.next = self.pf_idx.q.val() + 1;
                        self.state.d.next = TxState::Emit;
                    }
                } else {
                    self.rd_req_valid.next = true;
                    self.rd_req_addr.next = self.p_addr.q.val();
                    self.rd_req_len.next = self.p_plen.q.val();
                    self.rd_req_gather.next = self.p_gather.q.val();
                    if self.rd_req_ready.val() {
                        self.state.d.next = TxState::Emit;
                    }
                }
            }
            TxState::PfDrain => {
                self.rd_resp_ready.next = true;
                if self.rd_resp_valid.val() && self.rd_resp_last.val() {
                    self.pf_dec.next = true;
                    if self.pf_n.q.val() == 1 {
                        self.state.d.next = TxState::Idle;
                    }
                }
            }
            TxState::Emit => {
                if self.nx_go.val() {
                    self.nx_claim.d.next = true;
                    self.nx_idx.d.next = self.nx_i.val();
                    self.nx_a.d.next = self.nxa.addr.val();
                }
                // The read port is free while the frame streams: claim the next packet's payload read.
                if self.pf_go_q.q.val() {
                    self.pf_on.d.next = true;
                    if !self.pf_any.val() {
                        self.pf_idx.d.next = self.pfs.idx.val();
                    }
                    self.pf_addr.d.next = self.pfs.addr.val();
                    self.pf_len.d.next = self.pfs.len.val();
                }
                self.rd_resp_ready.next = self.fb.pay_ready.val();
                if self.fb.done.val() {
                    self.tx_frames_inc.next = true;
                    self.state.d.next = TxState::Idle;
                    if self.p_ack.q.val() {
                        self.tx_acks_inc.next = true;
                    } else if self.p_cnp.q.val() {
                        self.tx_cnp_inc.next = true;
                    } else if self.p_resp.q.val() {
                        self.rr.resp.ready.next = true;
                    } else if self.is_read.val() {
                        // A READ request stands for all its responses' PSNs. Its context joins
                        // rdq (one with a list is the receive engine's context as the WQE in
                        // progress); the receive engine restarts at this request's first response if
                        // the READ is (or becomes) its context, not while it lands older ones.
                        self.rdq_push.next = !self.w_gather.q.val() && !self.w_rdq.q.val();
                        self.rd_restart.next = (self.rdq_rxn.q.val() == 0)
                            || (self.w_rdq.q.val() && (self.rdq_rxn.q.val() == 1));
                        self.snd_idx.d.next = self.npk.q.val();
                        self.rt.clear.next = true;
                        self.since_req.d.next = 0.into();
                        if self.max_rd.q.val() {
                            self.snd_max.d.next = self.npk.q.val();
                            self.sq_psn_set.next = true;
                            self.sq_psn_val.next = bit_cast::<32, 24>(self.psn_end.q.val());
                        }
                    } else {
                        // An atomic's context joins rdq as a READ's does.
                        self.rdq_push.next = self.is_atomic.val() && !self.w_rdq.q.val();
                        self.snd_idx.d.next = self.snd_idx.q.val() + 1;
                        self.rt.clear.next = true;
                        self.since_req.d.next = self.since_req.q.val() + 1;
                        if self.p_ackreq.q.val() {
                            self.since_req.d.next = 0.into();
                        }
                        // SQ_PSN follows the highest PSN sent, not the retransmissions.
                        if self.max_tx.q.val() {
                            self.snd_max.d.next = self.snd_idx.q.val() + 1;
                            self.sq_psn_set.next = true;
                            self.sq_psn_val.next = bit_cast::<32, 24>(self.psn_next.q.val());
                        }
                    }
                }
            }
            TxState::Cqe => {
                // Successful WQEs complete only when signaled, errors always (IBA ch. 11 verbs); a WQE that
                // completes in error moves the QP to the Error state (ch. 10 QP states), and the driver flushes the WQEs behind it.
                self.cqe_valid.next = self.want_cqe.val();
                if !self.want_cqe.val() || self.cqe_ready.val() {
                    self.sq_ci_inc.next = true;
                    self.ci_p1.d.next = self.sq_ci.val() + 2;
                    self.qp_err.next = self.w_fail.q.val();
                    self.rdq_pop.next = self.w_rdq.q.val();
                    self.rdq_clear.next = self.w_fail.q.val();
                    self.wqe_active.d.next = false;
                    self.w_done.d.next = false;
                    self.state.d.next = TxState::Idle;
                }
            }
            TxState::WqeDrain => {
                self.rd_resp_ready.next = true;
                if self.rd_resp_valid.val() && self.rd_resp_last.val() {
                    self.nx_on.d.next = false;
                    self.state.d.next = TxState::Idle;
                }
            }
            TxState::RgCqe => {
                // The ring's oldest WQE: completed by an ACK or NAK covering it, or in error.
                self.cqe_wr_id.next = self.rg_r.wr_id.val();
                self.cqe_byte_len.next = self.rg_r.len.val();
                self.cqe_status.next = self.rg_status.q.val();
                self.cqe_vendor_err.next = self.rg_vendor.q.val();
                // RDMA_WRITE for WRITE (with immediate), RDMA_READ, COMP_SWAP or FETCH_ADD for those, else
                // SEND.
                self.cqe_opcode.next = self.wc_send.val();
                if (self.h_op.val() == self.wro_rdma_write.val())
                    || (self.h_op.val() == self.wro_rdma_write_with_imm.val())
                {
                    self.cqe_opcode.next = self.wc_rdma_write.val();
                }
                if self.h_op.val() == self.wro_rdma_read.val() {
                    self.cqe_opcode.next = self.wc_rdma_read.val();
                }
                if self.h_op.val() == self.wro_atomic_cmp_and_swp.val() {
                    self.cqe_opcode.next = self.wc_comp_swap.val();
                }
                if self.h_op.val() == self.wro_atomic_fetch_and_add.val() {
                    self.cqe_opcode.next = self.wc_fetch_add.val();
                }
                self.want_cqe.next = self.rg_fail.q.val() || self.rg_r.signaled.val();
                self.cqe_valid.next = self.want_cqe.val();
                if !self.want_cqe.val() || self.cqe_ready.val() {
                    self.sq_ci_inc.next = true;
                    self.ci_p1.d.next = self.sq_ci.val() + 2;
                    self.rg_head.d.next = self.rg_head.q.val() + 1;
                    self.rg_n.d.next = self.rg_n.q.val() - 1;
                    self.rg_nz.d.next = self.rg_n.q.val() != 1;
                    self.rg_stale.d.next = true;
                    self.h_una.d.next = 0.into();
                    self.rt.clear.next = true;
                    self.retry.d.next = self.retry_init.val();
                    self.rnr_left.d.next = bit_cast::<8, 32>(self.rnr_retry.val());
                    self.rdq_pop.next = self.h_rd.val();
                    self.rdq_clear.next = self.rg_fail.q.val();
                    if self.rg_fail.q.val() {
                        // In error: the QP goes to ERR, the WQEs behind are flushed by the driver.
                        self.qp_err.next = true;
                        self.rg_n.d.next = 0.into();
                        self.rg_nz.d.next = false;
                        self.wqe_active.d.next = false;
                        self.rs_on.d.next = false;
                        self.lat_valid.d.next = false;
                    }
                    self.state.d.next = TxState::Idle;
                }
            }
            _ => {
                self.state.d.next = TxState::Idle;
            }
        }
        if self.w_past.val() {
            // The WQE in progress is acknowledged whole by an ACK or NAK past it (Idle, above).
            self.una.d.next = self.npk.q.val();
            self.snd_idx.d.next = self.npk.q.val();
            self.snd_max.d.next = self.npk.q.val();
            self.rt.clear.next = true;
            self.retry.d.next = self.retry_init.val();
            self.w_done.d.next = true;
            self.w_status.d.next = self.wc_success.val();
            self.w_fail.d.next = false;
            self.sq_psn_set.next = true;
            self.sq_psn_val.next = bit_cast::<32, 24>(self.psn_end.q.val());
        }
        // Going back into the ring (Idle, a NAK or timeout in it): drop the ring and the WQE in progress,
        // fetch the head's WQE (now SQ_CI) again and resend it from packet `rg_at`; SQ_PSN follows the
        // resend.
        self.st_idle.next = self.state.q.val() == TxState::Idle;
        self.tx_committed.next = (self.state.q.val() == TxState::PktSetup)
            || (self.state.q.val() == TxState::RrSetup)
            || (self.state.q.val() == TxState::Load)
            || (self.state.q.val() == TxState::Ext)
            || (self.state.q.val() == TxState::DmaReq)
            || (self.state.q.val() == TxState::Emit);
        self.st_hrd.next = self.h_rd.val() && (self.rg_n.q.val() != 0);
        self.status.next = bit_cast::<32, 1>(self.wqe_active.q.val().into())
            | (bit_cast::<32, 1>(self.w_done.q.val().into()) << 1)
            | (bit_cast::<32, 1>(self.rs_on.q.val().into()) << 2)
            | (bit_cast::<32, 1>(self.rnr_wait.q.val().into()) << 3)
            | (bit_cast::<32, 1>(self.nx_claim.q.val().into()) << 4)
            | (bit_cast::<32, 1>(self.nx_on.q.val().into()) << 5)
            | (bit_cast::<32, 1>(self.pf_on.q.val().into()) << 6)
            | (bit_cast::<32, 1>(self.w_rdq.q.val().into()) << 7)
            | (bit_cast::<32, 1>(self.rd_go.val().into()) << 9)
            | (bit_cast::<32, 1>(self.lat_valid.q.val().into()) << 10)
            | (bit_cast::<32, 1>(self.h_wait.val().into()) << 11)
            | (bit_cast::<32, 1>(self.rr.active.val().into()) << 12)
            | (bit_cast::<32, 1>(self.sw_ok.val().into()) << 13)
            | (bit_cast::<32, 1>(self.rg_ok.val().into()) << 14)
            | (bit_cast::<32, 1>(self.st_hrd.val().into()) << 15)
            | (bit_cast::<32, 4>(self.rg_n.q.val()) << 16)
            | (bit_cast::<32, 3>(self.rdq_n.q.val()) << 20)
            | (bit_cast::<32, 3>(self.rdq_rxn.q.val()) << 24)
            | (bit_cast::<32, 1>(self.st_idle.val().into()) << 28)
            | (bit_cast::<32, 1>(self.pf_any.val().into()) << 29)
            | (bit_cast::<32, 1>(self.hold.val().into()) << 30)
            | (bit_cast::<32, 1>(self.enable.val().into()) << 31);
        // (after the states: `push_used` is theirs)
        self.push_took.d.next = self.push_used.val();
        // hi_psn: each new highest PSN sent; at a turn's start (nothing outstanding) the QP's SQ_PSN.
        self.hi_set.d.next = self.sq_psn_set.val() && !self.rg_back.val() && !self.sw_ok.val();
        self.hi_val.d.next = bit_cast::<24, 32>(self.sq_psn_val.val());
        self.hi_step.next = self.hi_val.q.val() - self.hi_psn.q.val();
        // Ahead by less than half the PSN space: the distance's top bit clear (a bit, not a compare).
        if self.hi_set.q.val() && !self.hi_step.val().get_bit(23) {
            self.hi_psn.d.next = self.hi_val.q.val();
        }
        if self.sw_ok.val() {
            self.hi_psn.d.next = bit_cast::<24, 32>(self.sq_psn.val());
        }
        if self.rg_back.val() || !self.sq_on.val() || self.sw_ok.val() {
            // Going back drops every request outstanding (they are sent again); so does leaving RTS/SQD.
            self.rdq_clear.next = true;
        }
        self.rx_land.next = self.rd_done.val() && (self.rdq_rxn.q.val() != 0);
        self.rdq.write_enable.next = self.rdq_push.val();
        self.rdq_stale.d.next =
            (self.rdq_push.val() && (self.rdq_rxn.q.val() == 0)) || self.rx_land.val();
        if self.rdq_push.val() {
            self.w_rdq.d.next = true;
            self.rdq_tail.d.next = self.rdq_tail.q.val() + 1;
        }
        // Entries: a push adds one, a completion removes one; contexts waiting: a push adds one, a
        // landing removes one. The 3-bit steps are written as the bits they flip (the carries and
        // borrows of +1 and -1), so synthesis makes no adder whose operand is picked by the late push.
        self.rdq_n_inv.next = !self.rdq_n.q.val();
        self.rdq_rxn_inv.next = !self.rdq_rxn.q.val();
        self.rdq_n_inc.next = self.rdq_n.q.val()
            ^ (bits::<3>(1)
                | ((self.rdq_n.q.val() & bits::<3>(1)) << 1)
                | (((self.rdq_n.q.val() & (self.rdq_n.q.val() >> 1)) & bits::<3>(1)) << 2));
        self.rdq_n_dec.next = self.rdq_n.q.val()
            ^ (bits::<3>(1)
                | ((self.rdq_n_inv.val() & bits::<3>(1)) << 1)
                | (((self.rdq_n_inv.val() & (self.rdq_n_inv.val() >> 1)) & bits::<3>(1)) << 2));
        self.rdq_rxn_inc.next = self.rdq_rxn.q.val()
            ^ (bits::<3>(1)
                | ((self.rdq_rxn.q.val() & bits::<3>(1)) << 1)
                | (((self.rdq_rxn.q.val() & (self.rdq_rxn.q.val() >> 1)) & bits::<3>(1)) << 2));
        self.rdq_rxn_dec.next = self.rdq_rxn.q.val()
            ^ (bits::<3>(1)
                | ((self.rdq_rxn_inv.val() & bits::<3>(1)) << 1)
                | (((self.rdq_rxn_inv.val() & (self.rdq_rxn_inv.val() >> 1)) & bits::<3>(1)) << 2));
        if self.rdq_push.val() && !self.rdq_pop.val() {
            self.rdq_n.d.next = self.rdq_n_inc.val();
        } else if self.rdq_pop.val() && !self.rdq_push.val() && (self.rdq_n.q.val() != 0) {
            self.rdq_n.d.next = self.rdq_n_dec.val();
        }
        if self.rdq_push.val() && !self.rx_land.val() {
            self.rdq_rxn.d.next = self.rdq_rxn_inc.val();
        } else if self.rx_land.val() && !self.rdq_push.val() {
            self.rdq_rxn.d.next = self.rdq_rxn_dec.val();
        }
        self.rd_withdraw.next = self.rdq_clear.val();
        if self.rdq_clear.val() {
            self.rdq_n.d.next = 0.into();
            self.rdq_rxn.d.next = 0.into();
            self.w_rdq.d.next = false;
        }
        if self.rg_back.val() {
            self.rs_on.d.next = true;
            self.rs_first.d.next = self.h_first.val();
            self.rs_idx.d.next = self.rg_at.val();
            self.rg_n.d.next = 0.into();
            self.rg_nz.d.next = false;
            self.wqe_active.d.next = false;
            self.since_req.d.next = 0.into();
            self.sq_psn_set.next = true;
            self.sq_psn_val.next = bit_cast::<32, 24>(self.rg_psn.val());
        }
        // An ACK/NAK received waits in `pend_*` (the newest one wins) and moves into `lat_*` once the
        // completer is done with the one there; it is served at the next packet boundary.
        self.lat_mv.next = self.pend_valid.q.val() && !self.lat_valid.q.val();
        if self.lat_mv.val() {
            self.pend_valid.d.next = false;
            self.lat_valid.d.next = true;
            self.lat_syn.d.next = self.pend_syn.q.val();
            self.lat_psn.d.next = self.pend_psn.q.val();
            self.lat_resp.d.next = self.pend_resp.q.val();
        }
        if self.rx_ack_valid.val() {
            self.pend_valid.d.next = true;
            self.pend_syn.d.next = self.rx_ack_syndrome.val();
            self.pend_psn.d.next = self.rx_ack_psn.val();
            self.pend_resp.d.next = self.rx_ack_resp.val();
        }
        // What the completer's checks (and the timer's compares) read may change after this cycle: an
        // Idle decision, a WQE parsed, a completion, a frame's last word, a new ACK/NAK, the ring's
        // head read back, a new highest PSN, a new turn. (The other states write none of it, so the
        // checks are fresh when a frame ends unless its last word changed them.)
        self.cc.i.changed.next = (self.state.q.val() == TxState::WqeParse)
            || (self.state.q.val() == TxState::WqeSum)
            || (self.state.q.val() == TxState::WqeCheck)
            || (self.state.q.val() == TxState::Cqe)
            || (self.state.q.val() == TxState::RgCqe)
            || ((self.state.q.val() == TxState::Emit) && self.fb.last.val())
            || self.i_act.val()
            || self.lat_mv.val()
            || self.rg_stale.q.val()
            || self.hi_set.q.val()
            || self.sw_ok.val()
            || self.reset.val();
        if (self.rr_qp_q.q.val() == self.job_qpn.val())
            && ((self.job_state.val() == self.qs_reset.val())
                || (self.job_state.val() == self.qs_err.val()))
        {
            // RESET and ERR end the responder's read job (§10.3.1).
            self.rr.abort.next = true;
        }
        if self.sw_ok.val() {
            self.turn_n.d.next = 0.into();
        }
        if self.pf_inc.val() && !self.pf_dec.val() {
            self.pf_n.d.next = self.pf_n.q.val() + 1;
        } else if !self.pf_inc.val() && self.pf_dec.val() {
            self.pf_n.d.next = self.pf_n.q.val() - 1;
        }
        if self.reset.val() {
            self.state.d.next = TxState::Idle;
            self.rg_n.d.next = 0.into();
            self.rg_nz.d.next = false;
            self.rs_on.d.next = false;
            self.nx_claim.d.next = false;
            self.nx_on.d.next = false;
            self.pf_on.d.next = false;
            self.pf_n.d.next = 0.into();
            self.rr.abort.next = true;
            self.wqe_active.d.next = false;
            self.w_done.d.next = false;
            self.lat_valid.d.next = false;
            self.pend_valid.d.next = false;
            self.rnr_wait.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocenic_proto::host::sge;

    #[test]
    fn synthesizes() {
        let mut uut = TxEngine::<64, 8>::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        assert!(v.contains("module top"));
        assert!(v.contains("tx_tdata") && v.contains("rd_req_len") && v.contains("cqe_vendor_err"));
    }

    /// `verilator --lint-only -Wall` with the project-wide waivers; panics on any other warning or error.
    /// UNOPTFLAT is waived too: rust-hdl emits the kernel as one `always @(*)` block that both drives the
    /// CRC and byte-swap sub-blocks' inputs and reads their outputs, which Verilator reports as a
    /// combinational loop through the block (a simulation-speed note, not a real loop: no output feeds
    /// back into its own inputs).
    fn lint<const W: usize, const B: usize>() {
        let mut uut = TxEngine::<W, B>::default();
        uut.connect_all();
        let path = std::env::temp_dir().join(format!("rocenic_req_{W}_{}.v", std::process::id()));
        std::fs::write(&path, generate_verilog(&uut)).unwrap();
        let out = std::process::Command::new("verilator")
            .args([
                "--lint-only",
                "-Wall",
                "-Wno-WIDTH",
                "-Wno-DECLFILENAME",
                "-Wno-UNUSEDSIGNAL",
            ])
            .args(["-Wno-UNUSEDPARAM", "-Wno-UNOPTFLAT", "--top-module", "top"])
            .arg(&path)
            .output()
            .expect("verilator on PATH");
        let _ = std::fs::remove_file(&path);
        let msg = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && !msg.contains("%Warning"),
            "W={W}:\n{msg}"
        );
    }

    #[test]
    fn verilog_lints_64() {
        lint::<64, 8>();
    }

    #[test]
    fn verilog_lints_512() {
        lint::<512, 64>();
    }

    use crate::prim::crc32::over;
    use std::collections::VecDeque;

    const DMAC: u64 = 0x0200_0000_0002;
    const SMAC: u64 = 0x0200_0000_0001;
    const SIP: u32 = 0x0A00_0001;
    const DIP: u32 = 0x0A00_0002;
    const DQPN: u32 = 0x12_3456;
    /// Not 64 and not symmetric, so a constant TTL or a swapped nibble shows.
    const HOP: u8 = 0x27;
    const FLOW: u32 = 0xA_5C31;
    const SGID: u128 = 0xFD00_0000_0000_0000_0000_0000_0A00_0001;
    const DGID: u128 = 0xFD00_0000_0000_0000_0000_0000_0A00_0002;
    const SQ_BASE: u64 = 0x1000;

    /// Plays the registers, host memory (DMA reads), the CQE writer and the MAC around one engine.
    struct Bench<const W: usize, const B: usize> {
        /// Boxed: the engine at 512 bits is large, and a test holds several benches.
        uut: Box<TxEngine<W, B>>,
        mem: Vec<u8>,
        resp: VecDeque<(Bits<W>, bool)>,
        frame: Vec<u8>,
        frames: Vec<Vec<u8>>,
        cqes: Vec<(u64, u8, u8, u32, u8)>,
        sq_pi: u32,
        sq_ci: u32,
        sq_psn: u32,
        qp_state: u32,
        retransmits: u32,
        timeouts: u32,
        acks_sent: u32,
        cycles: u64,
        /// Throttle the MAC and the DMA responses with a fixed irregular pattern.
        stall: bool,
        /// Bytes per send WQE: 64, or 128 with `SQ_WQE_128` (gather lists).
        stride: usize,
        /// Plain reads (address, bytes) and gather reads (list offset, bytes) the engine issued.
        reads: Vec<(usize, usize)>,
        gathers: Vec<(usize, usize)>,
    }

    impl<const W: usize, const B: usize> Bench<W, B> {
        fn new(pmtu: u32, ack_timeout: u32, retry_cnt: u32) -> Self {
            let mut uut = Box::new(TxEngine::<W, B>::default());
            uut.connect_all();
            uut.enable.next = true;
            uut.mac_lo.next = (SMAC & 0xFFFF_FFFF).into();
            uut.mac_hi.next = (SMAC >> 32).into();
            uut.ipv4.next = (SIP as u64).into();
            uut.dest_mac_lo.next = (DMAC & 0xFFFF_FFFF).into();
            uut.dest_mac_hi.next = (DMAC >> 32).into();
            uut.dest_ipv4.next = (DIP as u64).into();
            uut.dest_qpn.next = (DQPN as u64).into();
            uut.udp_sport.next = 0xC123_u64.into();
            uut.udp_dport.next = 4791.into();
            // DSCP 26 (a common RoCE class) with ECT(0): TOS 0x6A, and the checksum must cover it.
            uut.qp_dscp.next = 26.into();
            uut.hop_limit.next = (HOP as u64).into();
            uut.cnp_dscp.next = 48.into();
            uut.tx_ecn.next = true;
            uut.pmtu.next = (pmtu as u64).into();
            uut.job_pmtu.next = (pmtu as u64).into();
            uut.ack_timeout.next = (ack_timeout as u64).into();
            uut.retry_cnt.next = (retry_cnt as u64).into();
            uut.rnr_retry.next = 7.into();
            uut.ack_req_every.next = 16_u64.into();
            uut.sq_base_lo.next = SQ_BASE.into();
            uut.sq_log_size.next = 2_u64.into();
            uut.tx_tready.next = true;
            uut.rd_req_ready.next = true;
            uut.cqe_ready.next = true;
            let mut b = Self {
                uut,
                mem: vec![0; 0x10000],
                resp: VecDeque::new(),
                frame: vec![],
                frames: vec![],
                cqes: vec![],
                sq_pi: 0,
                sq_ci: 0,
                sq_psn: 0xFF_FFFE, // the message wraps the 24-bit PSN space
                qp_state: 3,
                retransmits: 0,
                timeouts: 0,
                acks_sent: 0,
                cycles: 0,
                stall: false,
                stride: 64,
                reads: vec![],
                gathers: vec![],
            };
            b.uut.reset.next = true;
            b.step();
            b.uut.reset.next = false;
            b
        }

        fn settle(&mut self) {
            for _ in 0..100 {
                self.uut.update_all();
                if !self.uut.has_changed() {
                    return;
                }
            }
            panic!("did not settle");
        }

        /// One clock cycle: drive inputs, observe handshakes and pulses, clock edge, update the registers.
        fn step(&mut self) {
            let u = &mut self.uut;
            u.sq_pi.next = (self.sq_pi as u64).into();
            u.sq_ci.next = (self.sq_ci as u64).into();
            u.sq_psn.next = (self.sq_psn as u64).into();
            u.qp_state.next = (self.qp_state as u64).into();
            // One QP: the receive side's (ACKs, READ jobs) is the same.
            u.job_state.next = (self.qp_state as u64).into();
            let c = self.cycles;
            u.tx_tready.next = !self.stall || (c % 5 != 2 && c % 7 != 3);
            u.rd_resp_valid.next = !self.resp.is_empty() && (!self.stall || c % 3 != 1);
            if let Some(&(d, last)) = self.resp.front() {
                u.rd_resp_data.next = d;
                u.rd_resp_last.next = last;
            }
            self.settle();
            let u = &self.uut;
            if u.rd_req_valid.val() {
                let addr = u.rd_req_addr.val().to_u64() as usize;
                let len = u.rd_req_len.val().to_u64() as usize;
                // The core's host::read_align hands the engine the bytes from any address on; for a
                // gather read, host::gather the bytes at that offset of the list the engine exports.
                let bytes: Vec<u8> = if u.rd_req_gather.val() {
                    let n = u.rd_sgl_n.val().to_u64() as usize;
                    let sgl = u.rd_sgl.val();
                    let list: Vec<u8> = (0..n)
                        .flat_map(|i| {
                            let a = sgl.get_bits::<64>(128 * i).to_u64() as usize;
                            let l = sgl.get_bits::<32>(128 * i + 64).to_u64() as usize;
                            self.mem[a..a + l].to_vec()
                        })
                        .collect();
                    assert!(addr + len <= list.len(), "gather read past the list");
                    self.gathers.push((addr, len));
                    list[addr..addr + len].to_vec()
                } else {
                    self.reads.push((addr, len));
                    self.mem[addr..addr + len].to_vec()
                };
                let beats = len.div_ceil(B);
                for k in 0..beats {
                    let mut d: Bits<W> = 0.into();
                    for i in 0..B.min(len - k * B) {
                        d = d
                            | (bit_cast::<W, 8>((bytes[k * B + i] as u64).into())
                                << (8 * i) as u64);
                    }
                    self.resp.push_back((d, k + 1 == beats));
                }
            }
            if u.rd_resp_valid.val() && u.rd_resp_ready.val() {
                self.resp.pop_front();
            }
            if u.tx_tvalid.val() && u.tx_tready.val() {
                let keep = u.tx_tkeep.val();
                for i in 0..B {
                    if keep.get_bit(i) {
                        self.frame
                            .push(u.tx_tdata.val().get_bits::<8>(8 * i).to_u64() as u8);
                    }
                }
                if u.tx_tlast.val() {
                    self.frames.push(std::mem::take(&mut self.frame));
                }
            }
            if u.cqe_valid.val() {
                self.cqes.push((
                    u.cqe_wr_id.val().to_u64(),
                    u.cqe_status.val().to_u64() as u8,
                    u.cqe_opcode.val().to_u64() as u8,
                    u.cqe_byte_len.val().to_u64() as u32,
                    u.cqe_vendor_err.val().to_u64() as u8,
                ));
            }
            let taken = u.ack_taken.val();
            self.sq_ci += u.sq_ci_inc.val() as u32;
            if u.sq_psn_set.val() {
                self.sq_psn = u.sq_psn_val.val().to_u64() as u32;
            }
            if u.qp_err.val() {
                self.qp_state = 6;
            }
            self.retransmits += u.retransmits_inc.val() as u32;
            self.timeouts += u.ack_timeouts_inc.val() as u32;
            self.acks_sent += u.tx_acks_inc.val() as u32;
            // Inputs change only after the edge: a change in the same settle as the edge races the flops.
            self.uut.clock.next = true.into();
            self.settle();
            self.uut.clock.next = false.into();
            self.settle();
            if taken {
                self.uut.ack_valid.next = false;
            }
            self.uut.rx_ack_valid.next = false;
            self.uut.rx_ack_resp.next = false;
            self.cycles += 1;
        }

        fn run_until(&mut self, max: u64, done: impl Fn(&Self) -> bool) {
            let start = self.cycles;
            while !done(self) {
                assert!(self.cycles - start < max, "timed out");
                self.step();
            }
        }

        /// Post a send WQE (proto::host::wqe layout) and ring the doorbell.
        #[allow(clippy::too_many_arguments)] // the WQE's fields, as the tests spell them out
        fn post(
            &mut self,
            opcode: u8,
            flags: u8,
            len: u32,
            wr_id: u64,
            laddr: u64,
            rkey: u32,
            raddr: u64,
        ) {
            let w = SQ_BASE as usize + (self.sq_pi as usize % 4) * self.stride;
            let e = &mut self.mem[w..w + self.stride];
            e.fill(0);
            e[wqe::OPCODE] = opcode;
            e[wqe::FLAGS] = flags;
            e[wqe::LENGTH..wqe::LENGTH + 4].copy_from_slice(&len.to_le_bytes());
            e[wqe::WR_ID..wqe::WR_ID + 8].copy_from_slice(&wr_id.to_le_bytes());
            e[wqe::LOCAL_ADDR..wqe::LOCAL_ADDR + 8].copy_from_slice(&laddr.to_le_bytes());
            e[wqe::RKEY..wqe::RKEY + 4].copy_from_slice(&rkey.to_le_bytes());
            e[wqe::REMOTE_ADDR..wqe::REMOTE_ADDR + 8].copy_from_slice(&raddr.to_le_bytes());
            self.sq_pi += 1;
        }

        /// A 128-byte WQE gathering from `list` (NUM_SGE = its length), on a bench made with
        /// [`Bench::wqe_128`]; `len` is the LENGTH field (the list's sum, unless testing a bad one).
        fn post_list(&mut self, opcode: u8, len: u32, wr_id: u64, list: &[(u64, u32)], nsge: u8) {
            self.post(opcode, wqe::FLAG_SIGNALED, len, wr_id, 0, 1, 0x2000);
            let w = SQ_BASE as usize + ((self.sq_pi - 1) as usize % 4) * self.stride;
            self.mem[w + wqe::NUM_SGE] = nsge;
            for (i, &(a, l)) in list.iter().enumerate() {
                let e = w + wqe::SGL + i * sge::BYTES;
                self.mem[e + sge::ADDR..e + sge::ADDR + 8].copy_from_slice(&a.to_le_bytes());
                self.mem[e + sge::LENGTH..e + sge::LENGTH + 4].copy_from_slice(&l.to_le_bytes());
                self.mem[e + sge::LKEY..e + sge::LKEY + 4].copy_from_slice(&0x77_u32.to_le_bytes());
            }
        }

        /// The QP's frames leave in IPv6, from SGID to DGID.
        fn ipv6(mut self) -> Self {
            self.uut.ipv6.next = true;
            self.uut.src_gid.next = wide(SGID);
            self.uut.dest_gid_hi.next = wide(DGID >> 32);
            self.uut.dest_ipv4.next = ((DGID & 0xFFFF_FFFF) as u64).into();
            self.uut.flow_label.next = (FLOW as u64).into();
            self
        }

        /// The QP's send WQEs take 128 bytes (SQ_LOG_SIZE bit 5).
        fn wqe_128(mut self) -> Self {
            self.stride = 128;
            self.uut.sq_log_size.next = (2 | 0x20_u64).into();
            self
        }

        fn rx_ack(&mut self, syndrome: u8, psn: u32) {
            self.rx_ack_from(syndrome, psn, false);
        }

        /// A READ response or ATOMIC ACKNOWLEDGE landed by the receive engine (`resp`), or an ACK packet.
        fn rx_ack_from(&mut self, syndrome: u8, psn: u32, resp: bool) {
            self.uut.rx_ack_resp.next = resp;
            self.uut.rx_ack_valid.next = true;
            self.uut.rx_ack_syndrome.next = (syndrome as u64).into();
            self.uut.rx_ack_psn.next = ((psn & 0xFF_FFFF) as u64).into();
            self.step();
        }
    }

    /// A parsed, checked RoCEv2 frame: (opcode, PadCnt, AckReq, PSN, bytes after the BTH before the pad).
    struct Pkt {
        opcode: u8,
        pad: usize,
        ack_req: bool,
        psn: u32,
        rest: Vec<u8>,
    }

    fn be(b: &[u8]) -> u64 {
        b.iter().fold(0, |a, &x| a << 8 | x as u64)
    }

    /// Check the Ethernet/IPv4/UDP/BTH framing, the IPv4 checksum and the ICRC; return the transport fields.
    fn check(f: &[u8]) -> Pkt {
        assert_eq!(be(&f[0..6]), DMAC);
        assert_eq!(be(&f[6..12]), SMAC);
        assert_eq!(be(&f[12..14]), 0x0800);
        assert_eq!(f[14], 0x45);
        assert_eq!(f[15], 26 << 2 | 0x02, "TOS: DSCP 26, ECT(0)");
        assert_eq!(be(&f[16..18]) as usize, f.len() - 14, "IP total length");
        assert_eq!(be(&f[20..22]), 0x4000);
        assert_eq!((f[22], f[23]), (HOP, 17), "TTL the QP's, protocol UDP");
        let sum: u32 = (0..10).map(|i| be(&f[14 + 2 * i..16 + 2 * i]) as u32).sum();
        assert_eq!((sum & 0xFFFF) + (sum >> 16), 0xFFFF, "IPv4 header checksum");
        assert_eq!(be(&f[26..30]) as u32, SIP);
        assert_eq!(be(&f[30..34]) as u32, DIP);
        assert_eq!(be(&f[34..36]), 0xC123);
        assert_eq!(be(&f[36..38]), 4791);
        assert_eq!(be(&f[38..40]) as usize, f.len() - 34, "UDP length");
        assert_eq!(be(&f[40..42]), 0);
        assert_eq!(be(&f[44..46]), 0xFFFF);
        assert_eq!(f[46], 0);
        assert_eq!(be(&f[47..50]) as u32, DQPN);
        let mut m = f[14..f.len() - 4].to_vec();
        for p in [15, 22, 24, 25, 40, 41, 46] {
            m[p - 14] = 0xFF;
        }
        let mut all = vec![0xFF; 8];
        all.extend_from_slice(&m);
        let icrc = u32::from_le_bytes(f[f.len() - 4..].try_into().unwrap());
        assert_eq!(icrc, !over(&all), "ICRC");
        let pad = (f[43] >> 4 & 3) as usize;
        assert!(
            f[f.len() - 4 - pad..f.len() - 4].iter().all(|&x| x == 0),
            "pad bytes are zero"
        );
        Pkt {
            opcode: f[42],
            pad,
            ack_req: f[50] & 0x80 != 0,
            psn: be(&f[51..54]) as u32,
            rest: f[54..f.len() - 4 - pad].to_vec(),
        }
    }

    /// A 128-bit value as `Bits<N>` (N from 64 to 128; rust-hdl converts from u64 only).
    fn wide<const N: usize>(v: u128) -> Bits<N> {
        (bit_cast::<N, 64>(((v >> 64) as u64).into()) << 64) | bit_cast::<N, 64>((v as u64).into())
    }

    /// [`check`] for IPv6 (RFC 8200, annex A17.4): the 40-byte header, then UDP and the transport 20
    /// bytes later; the ICRC with IPv6's masked fields. Checked against the ICRC of `rocenic_proto`.
    fn check6(f: &[u8]) -> Pkt {
        assert_eq!(be(&f[0..6]), DMAC);
        assert_eq!(be(&f[6..12]), SMAC);
        assert_eq!(be(&f[12..14]), 0x86DD);
        let word0 = be(&f[14..18]) as u32;
        assert_eq!(word0 >> 28, 6, "version");
        assert_eq!(
            word0 >> 20 & 0xFF,
            26 << 2 | 0x02,
            "traffic class: DSCP 26, ECT(0)"
        );
        assert_eq!(be(&f[18..20]) as usize, f.len() - 54, "payload length");
        assert_eq!(word0 & 0xF_FFFF, FLOW, "flow label");
        assert_eq!(
            (f[20], f[21]),
            (17, HOP),
            "next header UDP, the QP's hop limit"
        );
        assert_eq!(u128::from_be_bytes(f[22..38].try_into().unwrap()), SGID);
        assert_eq!(u128::from_be_bytes(f[38..54].try_into().unwrap()), DGID);
        assert_eq!(be(&f[54..56]), 0xC123);
        assert_eq!(be(&f[56..58]), 4791);
        assert_eq!(be(&f[58..60]) as usize, f.len() - 54, "UDP length");
        assert_eq!(be(&f[64..66]), 0xFFFF);
        assert_eq!(be(&f[67..70]) as u32, DQPN);
        let mut m = f[14..f.len() - 4].to_vec();
        m[0] |= 0x0F;
        for p in [15, 16, 17, 21, 60, 61, 66] {
            m[p - 14] = 0xFF;
        }
        let mut all = vec![0xFF; 8];
        all.extend_from_slice(&m);
        let icrc = u32::from_le_bytes(f[f.len() - 4..].try_into().unwrap());
        assert_eq!(icrc, !over(&all), "ICRC");
        assert_eq!(
            rocenic_proto::icrc::check(f),
            Ok(true),
            "ICRC (rocenic_proto)"
        );
        let pad = (f[63] >> 4 & 3) as usize;
        assert!(f[f.len() - 4 - pad..f.len() - 4].iter().all(|&x| x == 0));
        Pkt {
            opcode: f[62],
            pad,
            ack_req: f[70] & 0x80 != 0,
            psn: be(&f[71..74]) as u32,
            rest: f[74..f.len() - 4 - pad].to_vec(),
        }
    }

    /// Every header layout in IPv6 at both widths: WRITE FIRST (RETH) / MIDDLE / LAST, WRITE ONLY with
    /// immediate (RETH + ImmDt), SEND ONLY with immediate (ImmDt), an ACK (AETH): the payload starts at
    /// frame bytes 90, 74, 94 and 78, and the ICRC covers IPv6's header with its masks.
    fn ipv6_frames<const W: usize, const B: usize>() {
        let mut b = Bench::<W, B>::new(8, 0, 3).ipv6();
        fill(&mut b.mem, 0x4000, 600, 3);
        fill(&mut b.mem, 0x5001, 37, 9);
        b.post(
            0,
            wqe::FLAG_SIGNALED,
            600,
            1,
            0x4000,
            0x1234_5678,
            0x7F00_0000_1000,
        );
        b.post(1, 0, 37, 2, 0x5001, 0x1234_5678, 0x7F00_0000_2000);
        b.post(3, 0, 37, 3, 0x5001, 0, 0);
        for w in [1, 2] {
            let at = SQ_BASE as usize + w * 64 + wqe::IMM;
            b.mem[at..at + 4].copy_from_slice(&0xA1B2_C3D4_u32.to_le_bytes());
        }
        b.run_until(4000, |b| b.frames.len() == 5);
        let p: Vec<Pkt> = b.frames.iter().map(|f| check6(f)).collect();
        assert_eq!(
            p.iter().map(|p| p.opcode).collect::<Vec<_>>(),
            vec![0x06, 0x07, 0x08, 0x0B, 0x05]
        );
        assert_eq!(be(&p[0].rest[0..8]), 0x7F00_0000_1000);
        assert_eq!(be(&p[0].rest[8..12]), 0x1234_5678);
        assert_eq!(be(&p[0].rest[12..16]), 600);
        let mut data = p[0].rest[16..].to_vec();
        data.extend_from_slice(&p[1].rest);
        data.extend_from_slice(&p[2].rest);
        assert_eq!(data, b.mem[0x4000..0x4000 + 600].to_vec());
        assert_eq!(be(&p[3].rest[0..8]), 0x7F00_0000_2000);
        assert_eq!(be(&p[3].rest[12..16]), 37);
        assert_eq!(&p[3].rest[16..20], &0xA1B2_C3D4_u32.to_be_bytes());
        assert_eq!(p[3].rest[20..], b.mem[0x5001..0x5001 + 37]);
        assert_eq!(&p[4].rest[0..4], &0xA1B2_C3D4_u32.to_be_bytes());
        assert_eq!(p[4].rest[4..], b.mem[0x5001..0x5001 + 37]);
        b.uut.ack_valid.next = true;
        b.uut.ack_syndrome.next = 0x1F_u64.into();
        b.uut.ack_psn.next = 0x00AB_CDEF_u64.into();
        b.uut.ack_msn.next = 0x0001_0203_u64.into();
        b.run_until(400, |b| b.frames.len() == 6);
        let a = check6(&b.frames[5]);
        assert_eq!(b.frames[5].len(), 82);
        assert_eq!((a.opcode, a.psn), (0x11, 0xAB_CDEF));
        assert_eq!(a.rest, vec![0x1F, 0x01, 0x02, 0x03]);
    }

    #[test]
    fn ipv6_frames_64() {
        ipv6_frames::<64, 8>();
    }

    #[test]
    fn ipv6_frames_512() {
        ipv6_frames::<512, 64>();
    }

    fn fill(mem: &mut [u8], at: usize, len: usize, seed: u8) {
        for i in 0..len {
            mem[at + i] = (i as u8).wrapping_mul(7).wrapping_add(seed);
        }
    }

    #[test]
    fn ack_frame() {
        let mut b = Bench::<64, 8>::new(8, 0, 3);
        b.uut.ack_valid.next = true;
        b.uut.ack_syndrome.next = 0x1F_u64.into();
        b.uut.ack_psn.next = 0x00AB_CDEF_u64.into();
        b.uut.ack_msn.next = 0x0001_0203_u64.into();
        b.run_until(200, |b| b.frames.len() == 1);
        let p = check(&b.frames[0]);
        assert_eq!(b.frames[0].len(), 62);
        assert_eq!(
            (p.opcode, p.pad, p.ack_req, p.psn),
            (0x11, 0, false, 0xAB_CDEF)
        );
        assert_eq!(p.rest, vec![0x1F, 0x01, 0x02, 0x03]);
        assert_eq!(b.acks_sent, 1);
        assert!(!b.uut.ack_valid.val());
    }

    /// Send one 600-byte RDMA WRITE at a 256-byte MTU and collect its three packets.
    fn write_600() -> Bench<64, 8> {
        let mut b = Bench::<64, 8>::new(8, 100_000, 3);
        fill(&mut b.mem, 0x4000, 600, 3);
        b.post(
            0,
            wqe::FLAG_SIGNALED,
            600,
            0xDEAD_BEEF_0123,
            0x4000,
            0x1234_5678,
            0x0000_7F00_0000_1000,
        );
        b.run_until(2000, |b| b.frames.len() == 3);
        b
    }

    #[test]
    fn write_three_packets_then_cqe() {
        let mut b = write_600();
        let p: Vec<Pkt> = b.frames.iter().map(|f| check(f)).collect();
        assert_eq!(
            p.iter().map(|p| p.opcode).collect::<Vec<_>>(),
            vec![0x06, 0x07, 0x08]
        );
        assert_eq!(
            p.iter().map(|p| p.psn).collect::<Vec<_>>(),
            vec![0xFF_FFFE, 0xFF_FFFF, 0]
        );
        assert_eq!(
            p.iter().map(|p| p.ack_req).collect::<Vec<_>>(),
            vec![false, false, true]
        );
        // RETH: VA, R_Key, DMA length (§9.3)
        assert_eq!(be(&p[0].rest[0..8]), 0x0000_7F00_0000_1000);
        assert_eq!(be(&p[0].rest[8..12]), 0x1234_5678);
        assert_eq!(be(&p[0].rest[12..16]), 600);
        let mut data = p[0].rest[16..].to_vec();
        data.extend_from_slice(&p[1].rest);
        data.extend_from_slice(&p[2].rest);
        assert_eq!(data, b.mem[0x4000..0x4000 + 600].to_vec());
        assert_eq!(b.sq_psn, 1);
        // No completion before the ACK covering the last PSN; an ACK for the middle one is not enough.
        b.rx_ack(0x1F, 0xFF_FFFF);
        for _ in 0..50 {
            b.step();
        }
        assert!(b.cqes.is_empty());
        b.rx_ack(0x1F, 0);
        b.run_until(100, |b| b.sq_ci == 1);
        assert_eq!(b.cqes, vec![(0xDEAD_BEEF_0123, 0, 1, 600, 0)]);
        assert_eq!(b.frames.len(), 3);
    }

    #[test]
    fn nak_sequence_error_resends_from_its_psn() {
        let mut b = write_600();
        // The responder lost the middle packet: NAK (PSN sequence error) carrying its expected PSN.
        b.rx_ack(0x60, 0xFF_FFFF);
        b.run_until(2000, |b| b.frames.len() == 5);
        let p: Vec<Pkt> = b.frames[3..].iter().map(|f| check(f)).collect();
        assert_eq!((p[0].opcode, p[0].psn), (0x07, 0xFF_FFFF));
        assert_eq!((p[1].opcode, p[1].psn), (0x08, 0));
        assert_eq!(p[1].rest, b.mem[0x4000 + 512..0x4000 + 600].to_vec());
        assert_eq!(b.retransmits, 1);
        assert_eq!(b.sq_psn, 1);
        b.rx_ack(0x1F, 0);
        b.run_until(100, |b| b.sq_ci == 1);
        assert_eq!(b.cqes[0].1, 0);
    }

    #[test]
    fn several_wqes_in_flight_then_a_nak_inside_the_ring() {
        // Three WRITEs posted at once: the second and third go out before any ACK (the first two wait
        // in the outstanding ring). An ACK ending in the first completes it alone; a PSN sequence NAK
        // at the second's last packet goes back into it (its WQE fetched again, resent from that packet
        // with the same PSN) and the third follows; one ACK then retires both, one CQE each, in order.
        let mut b = Bench::<64, 8>::new(8, 100_000, 3);
        fill(&mut b.mem, 0x4000, 600, 1);
        fill(&mut b.mem, 0x5000, 300, 2);
        fill(&mut b.mem, 0x6000, 64, 3);
        b.post(0, wqe::FLAG_SIGNALED, 600, 1, 0x4000, 7, 0x10000);
        b.post(0, wqe::FLAG_SIGNALED, 300, 2, 0x5000, 7, 0x20000);
        b.post(0, 0, 64, 3, 0x6000, 7, 0x30000);
        // The second WQE is fetched while the first's last packet is still on the wire.
        b.run_until(4000, |b| b.reads.contains(&(SQ_BASE as usize + 64, 64)));
        assert_eq!(b.frames.len(), 2);
        b.run_until(4000, |b| b.frames.len() == 6);
        let p: Vec<Pkt> = b.frames.iter().map(|f| check(f)).collect();
        assert_eq!(
            p.iter().map(|p| (p.opcode, p.psn)).collect::<Vec<_>>(),
            vec![
                (0x06, 0xFF_FFFE),
                (0x07, 0xFF_FFFF),
                (0x08, 0),
                (0x06, 1),
                (0x08, 2),
                (0x0A, 3)
            ]
        );
        assert!(b.cqes.is_empty());
        assert_eq!((b.sq_ci, b.sq_psn), (0, 4));
        b.rx_ack(0x1F, 0);
        b.run_until(100, |b| b.sq_ci == 1);
        assert_eq!(b.cqes, vec![(1, 0, 1, 600, 0)]);
        b.rx_ack(0x60, 2);
        b.run_until(4000, |b| b.frames.len() == 8);
        let p: Vec<Pkt> = b.frames[6..].iter().map(|f| check(f)).collect();
        assert_eq!((p[0].opcode, p[0].psn), (0x08, 2));
        assert_eq!(p[0].rest, b.mem[0x5000 + 256..0x5000 + 300].to_vec());
        assert_eq!((p[1].opcode, p[1].psn), (0x0A, 3));
        assert_eq!(be(&p[1].rest[0..8]), 0x30000);
        assert_eq!(p[1].rest[16..], b.mem[0x6000..0x6000 + 64]);
        assert_eq!((b.retransmits, b.sq_psn, b.sq_ci), (1, 4, 1));
        b.rx_ack(0x1F, 3);
        b.run_until(200, |b| b.sq_ci == 3);
        // The third is unsignaled: it retires without a CQE.
        assert_eq!(b.cqes, vec![(1, 0, 1, 600, 0), (2, 0, 1, 300, 0)]);
        for _ in 0..100 {
            b.step();
        }
        assert_eq!(b.frames.len(), 8);
    }

    #[test]
    fn timeouts_inside_the_ring_then_retry_exceeded() {
        // Two WRITEs and no ACK: the timeout goes back to the oldest (the ring's head) and both are sent
        // again with their PSNs; the next timeout, retries spent, completes the oldest in error and
        // moves the QP to ERR (the driver flushes the other).
        let mut b = Bench::<64, 8>::new(8, 400, 1);
        fill(&mut b.mem, 0x4000, 64, 4);
        b.post(0, wqe::FLAG_SIGNALED, 64, 10, 0x4000, 1, 0x2000);
        b.post(1, wqe::FLAG_SIGNALED, 64, 11, 0x4000, 1, 0x3000);
        b.run_until(6000, |b| b.sq_ci == 1);
        let p: Vec<Pkt> = b.frames.iter().map(|f| check(f)).collect();
        assert_eq!(
            p.iter().map(|p| (p.opcode, p.psn)).collect::<Vec<_>>(),
            vec![
                (0x0A, 0xFF_FFFE),
                (0x0B, 0xFF_FFFF),
                (0x0A, 0xFF_FFFE),
                (0x0B, 0xFF_FFFF)
            ]
        );
        assert_eq!((b.timeouts, b.retransmits), (2, 1));
        assert_eq!(b.cqes, vec![(10, 12, 1, 64, 0)]);
        assert_eq!(b.qp_state, 6);
        for _ in 0..200 {
            b.step();
        }
        assert_eq!((b.frames.len(), b.sq_ci), (4, 1));
    }

    #[test]
    fn timeouts_then_retry_exceeded() {
        let mut b = Bench::<64, 8>::new(8, 300, 2);
        fill(&mut b.mem, 0x4000, 64, 9);
        b.post(0, 0, 64, 77, 0x4000, 1, 0x2000);
        b.run_until(3000, |b| b.sq_ci == 1);
        // The original and retry_cnt retransmissions, then RETRY_EXC_ERR (unsignaled, but errors complete).
        assert_eq!(b.frames.len(), 3);
        for f in &b.frames {
            let p = check(f);
            assert_eq!((p.opcode, p.psn, p.ack_req), (0x0A, 0xFF_FFFE, true));
        }
        assert_eq!((b.timeouts, b.retransmits), (3, 2));
        assert_eq!(b.cqes, vec![(77, 12, 1, 64, 0)]);
        assert_eq!(b.qp_state, 6);
    }

    #[test]
    fn send_w512_straddling_icrc() {
        // 7 bytes + 1 pad: the ICRC starts at frame byte 62 and straddles the first and second words.
        let mut b = Bench::<512, 64>::new(10, 0, 3);
        fill(&mut b.mem, 0x4000, 7, 1);
        b.post(2, wqe::FLAG_SIGNALED, 7, 5, 0x4000, 0, 0);
        b.run_until(200, |b| b.frames.len() == 1);
        let p = check(&b.frames[0]);
        assert_eq!(b.frames[0].len(), 66);
        assert_eq!(
            (p.opcode, p.pad, p.ack_req, p.psn),
            (0x04, 1, true, 0xFF_FFFE)
        );
        assert_eq!(p.rest, b.mem[0x4000..0x4007].to_vec());
        b.rx_ack(0x1F, 0xFF_FFFE);
        b.run_until(50, |b| b.sq_ci == 1);
        assert_eq!(b.cqes, vec![(5, 0, 0, 7, 0)]);
    }

    #[test]
    fn stalls_and_an_ack_between_packets() {
        let mut b = Bench::<64, 8>::new(8, 100_000, 3);
        b.stall = true;
        fill(&mut b.mem, 0x4000, 600, 11);
        b.post(0, wqe::FLAG_SIGNALED, 600, 1, 0x4000, 2, 0x3000);
        b.run_until(3000, |b| !b.frame.is_empty());
        // The responder asks for an ACK while the first packet is on the wire: it goes out after it.
        b.uut.ack_valid.next = true;
        b.uut.ack_syndrome.next = 0x1F_u64.into();
        b.uut.ack_psn.next = 9_u64.into();
        b.uut.ack_msn.next = 1_u64.into();
        b.run_until(5000, |b| b.frames.len() == 4);
        let p: Vec<Pkt> = b.frames.iter().map(|f| check(f)).collect();
        assert_eq!(
            p.iter().map(|p| p.opcode).collect::<Vec<_>>(),
            vec![0x06, 0x11, 0x07, 0x08]
        );
        let mut data = p[0].rest[16..].to_vec();
        data.extend_from_slice(&p[2].rest);
        data.extend_from_slice(&p[3].rest);
        assert_eq!(data, b.mem[0x4000..0x4000 + 600].to_vec());
    }

    #[test]
    fn rnr_retry_runs_out() {
        let mut b = Bench::<64, 8>::new(8, 0, 3);
        b.uut.rnr_retry.next = 1.into();
        fill(&mut b.mem, 0x4000, 64, 5);
        b.post(2, wqe::FLAG_SIGNALED, 64, 9, 0x4000, 0, 0);
        b.run_until(500, |b| b.frames.len() == 1);
        // One RNR NAK is waited out (code 1), the second exhausts RNR_RETRY = 1.
        b.rx_ack(0x21, 0xFF_FFFE);
        b.run_until(3000, |b| b.frames.len() == 2);
        b.rx_ack(0x21, 0xFF_FFFE);
        b.run_until(100, |b| b.sq_ci == 1);
        assert_eq!(b.cqes, vec![(9, 13, 0, 64, 0x21)]);
        assert_eq!(b.qp_state, 6);
    }

    #[test]
    fn rnr_wait_then_fatal_nak() {
        let mut b = Bench::<64, 8>::new(8, 200, 0);
        fill(&mut b.mem, 0x4000, 64, 5);
        b.post(0, 0, 64, 3, 0x4000, 1, 0x2000);
        b.run_until(500, |b| b.frames.len() == 1);
        // RNR NAK with timer code 1 (10 us = 1563 cycles at 156.25 MHz): resend from its PSN after that
        // wait, not before, without using up the (zero) retry count.
        b.rx_ack(0x21, 0xFF_FFFE);
        for _ in 0..1400 {
            b.step();
        }
        assert_eq!(b.frames.len(), 1, "the RNR timer is honoured");
        b.run_until(1000, |b| b.frames.len() == 2);
        assert_eq!(check(&b.frames[1]).psn, 0xFF_FFFE);
        assert_eq!((b.retransmits, b.timeouts), (1, 0));
        // Remote access error NAK: complete in error with the syndrome, QP to ERR.
        b.rx_ack(0x62, 0xFF_FFFE);
        b.run_until(100, |b| b.sq_ci == 1);
        assert_eq!(b.cqes, vec![(3, 10, 1, 64, 0x62)]);
        assert_eq!(b.qp_state, 6);
    }

    #[test]
    fn local_errors_and_unsignaled_success() {
        let mut b = Bench::<64, 8>::new(8, 0, 3);
        // Unsignaled zero-length WRITE: one WRITE ONLY without payload, no CQE, SQ_CI still advances.
        b.post(0, 0, 0, 1, 0x4000, 1, 0x2000);
        b.run_until(300, |b| b.frames.len() == 1);
        let p = check(&b.frames[0]);
        assert_eq!((p.opcode, p.rest.len()), (0x0A, 16));
        b.rx_ack(0x1F, 0xFF_FFFE);
        b.run_until(100, |b| b.sq_ci == 1);
        assert!(b.cqes.is_empty());
        // An opcode this generation does not execute (7, a local invalidate) completes with
        // LOC_QP_OP_ERR, unsent.
        b.post(7, 0, 8, 4, 0x4000, 0, 0);
        b.run_until(300, |b| b.sq_ci == 2);
        assert_eq!(b.cqes, vec![(4, 2, 0, 8, 0)]);
        assert_eq!(b.frames.len(), 1);
    }

    #[test]
    fn read_request_then_responses_complete_it() {
        let mut b = Bench::<64, 8>::new(8, 100_000, 3);
        // READ of 600 bytes at MTU 256: one READ REQUEST standing for 3 response PSNs.
        b.post(
            4,
            wqe::FLAG_SIGNALED,
            600,
            21,
            0x4000,
            0xAABB_CCDD,
            0x7F00_0000_2000,
        );
        b.run_until(2000, |b| b.frames.len() == 1);
        let p = check(&b.frames[0]);
        assert_eq!((p.opcode, p.ack_req, p.psn), (0x0C, true, 0xFF_FFFE));
        assert_eq!(p.rest.len(), 16, "a RETH and no payload");
        assert_eq!(be(&p.rest[0..8]), 0x7F00_0000_2000);
        assert_eq!(be(&p.rest[8..12]), 0xAABB_CCDD);
        assert_eq!(be(&p.rest[12..16]), 600);
        assert_eq!(b.sq_psn, 1, "SQ_PSN moves past the three response PSNs");
        // An ACK packet covering the READ's PSNs does not complete it: only its responses do.
        b.rx_ack(0x1F, 0);
        for _ in 0..50 {
            b.step();
        }
        assert!(b.cqes.is_empty());
        // Responses land in the receive engine, which acknowledges each PSN to the requester.
        b.rx_ack_from(0x00, 0xFF_FFFE, true);
        for _ in 0..50 {
            b.step();
        }
        assert!(b.cqes.is_empty());
        b.rx_ack_from(0x00, 0, true);
        b.run_until(100, |b| b.sq_ci == 1);
        assert_eq!(b.cqes, vec![(21, 0, 2, 600, 0)]);
        assert_eq!(b.frames.len(), 1, "no retransmission");
    }

    #[test]
    fn a_read_behind_a_write_in_the_ring_goes_out_at_once() {
        // A WRITE then a READ: the READ REQUEST leaves without waiting for the WRITE's ACK (the WRITE
        // waits in the ring), and the READ's last response, acknowledging every PSN before it (§9.7.6),
        // completes both, the WRITE first.
        let mut b = Bench::<64, 8>::new(8, 100_000, 3);
        fill(&mut b.mem, 0x4000, 64, 6);
        b.post(0, wqe::FLAG_SIGNALED, 64, 30, 0x4000, 1, 0x2000);
        b.post(4, wqe::FLAG_SIGNALED, 64, 31, 0x5000, 2, 0x3000);
        b.run_until(2000, |b| b.frames.len() == 2);
        let p: Vec<Pkt> = b.frames.iter().map(|f| check(f)).collect();
        assert_eq!(
            p.iter().map(|p| (p.opcode, p.psn)).collect::<Vec<_>>(),
            vec![(0x0A, 0xFF_FFFE), (0x0C, 0xFF_FFFF)]
        );
        assert!(b.cqes.is_empty());
        b.rx_ack_from(0x00, 0xFF_FFFF, true);
        b.run_until(200, |b| b.sq_ci == 2);
        assert_eq!(b.cqes, vec![(30, 0, 1, 64, 0), (31, 0, 2, 64, 0)]);
    }

    #[test]
    fn send_gathers_from_a_list_across_packet_boundaries() {
        for stall in [false, true] {
            let mut b = Bench::<64, 8>::new(8, 100_000, 3).wqe_128();
            b.stall = stall;
            // Three buffers at odd addresses; packets of 256 bytes take bytes from two of them.
            let list = [(0x4003, 200), (0x5001, 1), (0x6005, 399)];
            for (i, &(a, l)) in list.iter().enumerate() {
                fill(&mut b.mem, a as usize, l as usize, 40 * i as u8 + 3);
            }
            let want: Vec<u8> = list
                .iter()
                .flat_map(|&(a, l)| b.mem[a as usize..(a + l as u64) as usize].to_vec())
                .collect();
            b.post_list(2, 600, 9, &list, 3);
            b.run_until(3000, |b| b.frames.len() == 3);
            let p: Vec<Pkt> = b.frames.iter().map(|f| check(f)).collect();
            let data: Vec<u8> = p.iter().flat_map(|p| p.rest.clone()).collect();
            assert_eq!(data, want, "stall {stall}");
            // The WQE fetch reads the 128-byte slot; the payload reads are offsets in the list.
            assert_eq!(b.reads, vec![(SQ_BASE as usize, 128)]);
            assert_eq!(b.gathers, vec![(0, 256), (256, 256), (512, 88)]);
            b.rx_ack(0x1F, 0);
            b.run_until(100, |b| b.sq_ci == 1);
            assert_eq!(b.cqes, vec![(9, 0, 0, 600, 0)]);
        }
    }

    #[test]
    fn bad_gather_lists_fail_before_any_read() {
        let mut b = Bench::<64, 8>::new(8, 100_000, 3).wqe_128();
        let list = [(0x4000, 100), (0x5000, 50)];
        // LENGTH is not the list's sum: LOC_LEN_ERR (1).
        // (Each failure takes the QP to ERR; the bench puts it back in RTS for the next case.)
        b.post_list(2, 151, 1, &list, 2);
        b.run_until(300, |b| b.sq_ci == 1);
        b.qp_state = 3;
        // A FETCH_ADD (6) with a list (its one word in two buffers): LOC_QP_OP_ERR (2).
        b.post_list(6, 150, 2, &list, 2);
        b.run_until(300, |b| b.sq_ci == 2);
        b.qp_state = 3;
        // More entries than a WQE holds: LOC_QP_OP_ERR.
        b.post_list(2, 150, 3, &list, 5);
        b.run_until(300, |b| b.sq_ci == 3);
        assert_eq!(
            b.cqes,
            vec![(1, 1, 0, 151, 0), (2, 2, 4, 150, 0), (3, 2, 0, 150, 0)]
        );
        assert!(b.frames.is_empty() && b.gathers.is_empty());
        // A list in a 64-byte WQE (SQ_WQE_128 clear) is malformed too.
        let mut b = Bench::<64, 8>::new(8, 100_000, 3);
        b.post(2, wqe::FLAG_SIGNALED, 8, 4, 0x4000, 0, 0);
        b.mem[SQ_BASE as usize + wqe::NUM_SGE] = 2;
        b.run_until(300, |b| b.sq_ci == 1);
        assert_eq!(b.cqes, vec![(4, 2, 0, 8, 0)]);
        // 512 bits: the 128-byte WQE is two words.
        let mut b = Bench::<512, 64>::new(8, 100_000, 3).wqe_128();
        let list = [(0x4001, 70), (0x5003, 30)];
        fill(&mut b.mem, 0x4001, 70, 1);
        fill(&mut b.mem, 0x5003, 30, 9);
        b.post_list(0, 100, 5, &list, 2);
        b.run_until(1000, |b| b.frames.len() == 1);
        let p = check(&b.frames[0]);
        let mut want = b.mem[0x4001..0x4001 + 70].to_vec();
        want.extend_from_slice(&b.mem[0x5003..0x5003 + 30]);
        assert_eq!((p.opcode, &p.rest[16..]), (0x0A, &want[..]));
    }

    #[test]
    fn send_three_packets_then_cqe() {
        let mut b = Bench::<64, 8>::new(8, 100_000, 3);
        fill(&mut b.mem, 0x4000, 600, 5);
        b.post(
            2,
            wqe::FLAG_SIGNALED | wqe::FLAG_SOLICITED,
            600,
            7,
            0x4000,
            0,
            0,
        );
        b.run_until(2000, |b| b.frames.len() == 3);
        let p: Vec<Pkt> = b.frames.iter().map(|f| check(f)).collect();
        // SEND FIRST, MIDDLE, LAST: no RETH, AckReq and Solicited Event on the last packet only.
        assert_eq!(
            p.iter().map(|p| p.opcode).collect::<Vec<_>>(),
            vec![0x00, 0x01, 0x02]
        );
        assert_eq!(
            p.iter().map(|p| p.ack_req).collect::<Vec<_>>(),
            vec![false, false, true]
        );
        let se: Vec<bool> = b.frames.iter().map(|f| f[43] & 0x80 != 0).collect();
        assert_eq!(se, vec![false, false, true]);
        assert_eq!((p[0].rest.len(), p[1].rest.len()), (256, 256));
        let data: Vec<u8> = p.iter().flat_map(|p| p.rest.clone()).collect();
        assert_eq!(data, b.mem[0x4000..0x4000 + 600].to_vec());
        b.rx_ack(0x1F, 0);
        b.run_until(100, |b| b.sq_ci == 1);
        assert_eq!(b.cqes, vec![(7, 0, 0, 600, 0)]);
    }

    #[test]
    fn leaving_rts_drops_the_wqe() {
        let mut b = Bench::<64, 8>::new(8, 0, 3);
        fill(&mut b.mem, 0x4000, 600, 1);
        b.post(0, wqe::FLAG_SIGNALED, 600, 1, 0x4000, 2, 0x3000);
        b.run_until(2000, |b| b.frames.len() == 1);
        b.qp_state = 6;
        for _ in 0..400 {
            b.step();
        }
        // The packet in flight finishes; nothing more is sent, no CQE, SQ_CI untouched (the driver flushes).
        assert!(b.frames.len() <= 2 && b.frame.is_empty());
        assert!(b.cqes.is_empty() && b.sq_ci == 0);
        assert_eq!(b.uut.state.q.val(), TxState::Idle);
    }
}
