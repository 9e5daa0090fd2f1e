//! Receive buffer: takes frames from the MAC, one beat every cycle, keeps the RoCEv2 packets for this
//! port whose ICRC holds, and hands them to the receive engine in order. Store-and-forward, so nothing
//! of a bad frame ever reaches host memory.
//!
//! Frames pass admission first (`net::rx_admit`): their headers are judged before any beat is stored,
//! and a frame that fails a header check or the IPv4 header checksum, or that lossy admission refuses,
//! is never written. The rest are written beat by beat as admission lets them go, into a circular RAM
//! of `2^A` words, frame after frame with no gap and no pause: what needs the whole frame (its length
//! against its IP length, the MAC's FCS, the ICRC) is judged later, by a pipeline that never holds the
//! input up. Each stored frame leaves a descriptor in a second RAM (a FIFO): where the frame ends in the
//! ring, its words, and for a good frame its length in bytes, IP version and priority (`meta`); the
//! descriptor of a frame dropped at its verdict is marked skip, and the buffer retires it itself when it
//! reaches the head, so its words are freed in order and the engine never sees it. The engine reads the
//! frame at `head` (its first word) through the RAM's read port while `pending`, and frees it with `pop`.
//!
//! Per frame, counted from the cycle its last beat leaves admission (T): the beat is written (T); its
//! ICRC lanes are masked and its distance to the IP packet's end taken from the admission record
//! (T+1); its lane enables formed (T+2); the CRC pipeline (`prim::crc32_pipe`) takes it (T+3) and gives
//! the register over the region at T+8. Meanwhile the frame's record is completed over four stages (its
//! words, its length against the IP end, the first failing check), then waits for the CRC. The verdict
//! is taken at T+9 and the descriptor is readable at T+11. Every stage is at most 6 LUT levels at 512
//! bits.
//!
//! Every frame is counted once at its verdict, stored or not, by the first of: the ring overflowed, the
//! MAC's FCS, the headers (`drop_reason` with `not_roce_inc` says which check failed first: destination
//! MAC, the 802.1Q tag (checked and removed before this buffer, `net::vlan`), EtherType, IP
//! version/IHL, destination IP, UDP port, lengths, and last the port enable), the IPv4 header checksum,
//! the ICRC, lossy admission.
//!
//! Lossy admission (802.1Qbb shared buffer): admission refuses a frame of a lossy priority (not in
//! `lossless`) when the ring's words in use and the beats ahead of it in admission reach
//! `lossy_words`, so that lossy traffic cannot take the room the lossless priorities need between
//! their XOFF and the peer's reaction.
//!
//! Each priority's good frames are counted apart (`fill0`..`fill7`, in words), so that PFC pauses the
//! priority that fills the buffer and not the others (per-priority ingress accounting, as a switch's
//! shared buffer does per priority group). A frame counts from the cycle after its verdict until the
//! engine pops it. Frames not yet judged (in admission or behind the ring's write), and dropped ones
//! not yet retired, count for no priority, so the headroom above XOFF must also cover admission's
//! FIFO (up to 32 beats), the verdict's latency (eleven cycles of the line) and one largest frame.
//!
//! A frame that would run into the oldest word not yet freed (one word always stays free) is cut
//! there, its words given back at once (nothing after it has begun), and it is dropped and counted as
//! an overflow. The descriptor FIFO holds as many entries as the ring has words, and every descriptor
//! has at least one, so it cannot overflow.
use crate::net::rx_admit::{adm, why, RxAdmit};
use crate::prim::crc32::{icrc_masks, RESIDUE};
use crate::prim::crc32_pipe::Crc32Pipe;
use crate::prim::lane_count::LaneCount;
use rocenic_proto::wire::ipv4_frame as F;
use rust_hdl::prelude::*;

/// The ICRC covers the frame from the IP header on (the Ethernet header is replaced by the 8-byte prefix).
const ICRC_FIRST_BYTE: usize = F::IP;

/// A frame's record once its checks are in, as it waits for the CRC: bit positions.
mod rec {
    pub const VALID: usize = 0;
    pub const OVERFLOW: usize = 1;
    pub const FCS: usize = 2;
    pub const HDR_BAD: usize = 3;
    pub const CSUM_BAD: usize = 4;
    pub const LOSSY: usize = 5;
    pub const V6: usize = 6;
    pub const PRIO: usize = 7;
    pub const WHY: usize = 10;
    pub const LEN: usize = 16;
    pub const END: usize = 32;
    pub const WORDS: usize = 48;
}

/// A descriptor: bit positions (`meta` is its low 32 bits: the length, bit 16 IPv6, bits 20..22 the
/// priority, as the engine reads them).
mod desc {
    pub const V6: usize = 16;
    pub const PRIO: usize = 20;
    pub const SKIP: usize = 31;
    pub const END: usize = 32;
    pub const WORDS: usize = 48;
}

#[derive(LogicBlock)]
pub struct RxBuffer<const W: usize, const B: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub enable: Signal<In, bool>,
    /// With every beat: its frame's 802.1Q tag is not the port's (`net::vlan::VlanStrip`).
    pub vlan_bad: Signal<In, bool>,
    /// With every beat: the PCP of its frame's 802.1Q tag (0 when untagged).
    pub pcp: Signal<In, Bits<3>>,
    /// Priority from the DSCP (`true`) or from the PCP.
    pub trust_dscp: Signal<In, bool>,
    /// DSCP d's priority at bits 4d..4d+2 (the DSCP_PRIO_MAP_n registers side by side).
    pub dscp_map: Signal<In, Bits<256>>,
    /// The lossless priorities (PFC_ENABLE, bit p = priority p); every other is lossy.
    pub lossless: Signal<In, Bits<8>>,
    /// Words of stored frames from which lossy frames are dropped; 0 = never.
    pub lossy_words: Signal<In, Bits<A>>,
    pub mac_lo: Signal<In, Bits<32>>,
    pub mac_hi: Signal<In, Bits<32>>,
    pub ipv4: Signal<In, Bits<32>>,
    /// The port's IPv6 addresses (the GID table; all zero = empty entry).
    pub gid0: Signal<In, Bits<128>>,
    pub gid1: Signal<In, Bits<128>>,
    pub gid2: Signal<In, Bits<128>>,
    pub gid3: Signal<In, Bits<128>>,
    /// UDP destination port of RoCEv2 (4791 unless configured otherwise).
    pub udp_dport: Signal<In, Bits<16>>,
    // MAC side: a beat every cycle it is valid (no ready: the buffer never holds the input up).
    pub rx_tdata: Signal<In, Bits<W>>,
    pub rx_tkeep: Signal<In, Bits<B>>,
    pub rx_tlast: Signal<In, bool>,
    pub rx_tvalid: Signal<In, bool>,
    /// With the last beat: the MAC marked the frame bad (a bad FCS). It is dropped and counted.
    pub rx_tuser: Signal<In, bool>,
    // Engine side: the frame whose first word is at `head` is available while `pending`.
    pub pending: Signal<Out, bool>,
    pub head: Signal<Out, Bits<A>>,
    /// The frame's length in bytes (bits 0..15), over IPv6 (bit 16), its priority (bits 20..22).
    pub meta: Signal<Out, Bits<32>>,
    pub rd_addr: Signal<In, Bits<A>>,
    pub rd_data: Signal<Out, Bits<W>>,
    pub pop: Signal<In, bool>,
    /// Words of good frames of priority p (for PFC's per-priority XOFF/XON marks).
    pub fill0: Signal<Out, Bits<A>>,
    pub fill1: Signal<Out, Bits<A>>,
    pub fill2: Signal<Out, Bits<A>>,
    pub fill3: Signal<Out, Bits<A>>,
    pub fill4: Signal<Out, Bits<A>>,
    pub fill5: Signal<Out, Bits<A>>,
    pub fill6: Signal<Out, Bits<A>>,
    pub fill7: Signal<Out, Bits<A>>,
    // Counters
    pub frames_inc: Signal<Out, bool>,
    pub roce_inc: Signal<Out, bool>,
    pub icrc_err_inc: Signal<Out, bool>,
    pub not_roce_inc: Signal<Out, bool>,
    /// With `not_roce_inc`: the first check the frame failed, in header order: 0 destination MAC,
    /// 7 VLAN tag, 1 EtherType, 2 IPv4 version/IHL, 3 destination IP, 4 UDP protocol/port, 5 lengths,
    /// 6 port disabled.
    pub drop_reason: Signal<Out, Bits<3>>,
    pub overflow_inc: Signal<Out, bool>,
    pub ip_csum_err_inc: Signal<Out, bool>,
    /// A frame the MAC marked bad, dropped.
    pub fcs_err_inc: Signal<Out, bool>,
    /// A good RoCE frame of a lossy priority dropped for want of room.
    pub lossy_inc: Signal<Out, bool>,
    ram: RAM<Bits<W>, A>,
    dq: RAM<Bits<64>, A>,
    adm: RxAdmit<W, B, A>,
    crc: Crc32Pipe<W, B>,
    keep_count: LaneCount<B>,
    // Input stage (the beat out of admission): where it goes.
    beat: DFF<Bits<16>>,
    /// The frame's admission record, from its first beat on.
    fr: DFF<Bits<32>>,
    wr_ptr: DFF<Bits<A>>,
    /// `wr_ptr` + 1, kept beside it so the full compare has no adder in front.
    wr_inc: DFF<Bits<A>>,
    f_start: DFF<Bits<A>>,
    f_start_inc: DFF<Bits<A>>,
    ovf: DFF<bool>,
    /// Ring words in use (`wr_ptr` less `head`), for lossy admission.
    used: DFF<Bits<A>>,
    // The beat a cycle later (D): raw, with what its ICRC lanes need.
    d_valid: DFF<bool>,
    d_first: DFF<bool>,
    d_last: DFF<bool>,
    d_data: DFF<Bits<W>>,
    d_keep: DFF<Bits<B>>,
    d_beat: DFF<Bits<16>>,
    /// Its byte position (18 bits, so the distance to the IP end can be signed).
    d_pos: DFF<Bits<18>>,
    d_rec: DFF<Bits<32>>,
    d_start: DFF<Bits<A>>,
    d_end: DFF<Bits<A>>,
    d_ovf: DFF<bool>,
    d_fcs_bad: DFF<bool>,
    flen: DFF<Bits<16>>,
    // E: the masked beat and its distance to the IP packet's end (18 bits, signed).
    e_valid: DFF<bool>,
    e_first: DFF<bool>,
    e_last: DFF<bool>,
    e_data: DFF<Bits<W>>,
    e_keep: DFF<Bits<B>>,
    e_diff: DFF<Bits<18>>,
    /// The beat's bytes (where its keep ends).
    e_cnt: DFF<Bits<16>>,
    // F: into the CRC pipeline.
    f_valid: DFF<bool>,
    f_first: DFF<bool>,
    f_last: DFF<bool>,
    f_data: DFF<Bits<W>>,
    f_en: DFF<Bits<B>>,
    // The frame's record: R1 (from its last beat), R2 (its words), R3 (its length against its IP's).
    r1_v: DFF<bool>,
    r1_start: DFF<Bits<A>>,
    r1_end: DFF<Bits<A>>,
    r1_ovf: DFF<bool>,
    r1_fcs: DFF<bool>,
    r1_rec: DFF<Bits<32>>,
    r2_v: DFF<bool>,
    r2_end: DFF<Bits<A>>,
    r2_words: DFF<Bits<A>>,
    r2_ovf: DFF<bool>,
    r2_fcs: DFF<bool>,
    r2_rec: DFF<Bits<32>>,
    r3_v: DFF<bool>,
    r3_end: DFF<Bits<A>>,
    r3_words: DFF<Bits<A>>,
    r3_len: DFF<Bits<16>>,
    r3_ovf: DFF<bool>,
    r3_fcs: DFF<bool>,
    r3_len_ok: DFF<bool>,
    r3_rec: DFF<Bits<32>>,
    /// The record packed (`rec`), waiting for the CRC: R4 to R7, then R8 with the ICRC's result.
    q4: DFF<Bits<64>>,
    q5: DFF<Bits<64>>,
    q6: DFF<Bits<64>>,
    q7: DFF<Bits<64>>,
    q8: DFF<Bits<64>>,
    q8_crc_ok: DFF<bool>,
    // The descriptor FIFO: write, read, and the write pointer a cycle late (what a read may see).
    dq_wp: DFF<Bits<A>>,
    dq_rp: DFF<Bits<A>>,
    dq_vis: DFF<Bits<A>>,
    head_q: DFF<Bits<A>>,
    // Stored words per priority.
    f0: DFF<Bits<A>>,
    f1: DFF<Bits<A>>,
    f2: DFF<Bits<A>>,
    f3: DFF<Bits<A>>,
    f4: DFF<Bits<A>>,
    f5: DFF<Bits<A>>,
    f6: DFF<Bits<A>>,
    f7: DFF<Bits<A>>,
    /// Words the frame judged good last cycle adds to its priority (0 if none), and that priority.
    acc_w: DFF<Bits<A>>,
    acc_prio: DFF<Bits<3>>,
    // Combinational intermediates
    full: Signal<Local, bool>,
    ovf_now: Signal<Local, bool>,
    first: Signal<Local, bool>,
    /// The admission record of the beat's frame, and whether the frame is stored.
    cur: Signal<Local, Bits<32>>,
    store: Signal<Local, bool>,
    d_ip_end: Signal<Local, Bits<18>>,
    beat18: Signal<Local, Bits<18>>,
    therm: Signal<Local, Bits<B>>,
    rec_hdr_bad: Signal<Local, bool>,
    rec_why: Signal<Local, Bits<3>>,
    len_bad: Signal<Local, bool>,
    why_v: Signal<Local, Bits<3>>,
    hdr_bad: Signal<Local, bool>,
    rq: Signal<Local, Bits<64>>,
    v_valid: Signal<Local, bool>,
    v_ovf: Signal<Local, bool>,
    v_fcs: Signal<Local, bool>,
    v_hdr_bad: Signal<Local, bool>,
    v_csum_bad: Signal<Local, bool>,
    v_lossy: Signal<Local, bool>,
    v_words: Signal<Local, Bits<A>>,
    dsc_skip: Signal<Local, bool>,
    good: Signal<Local, bool>,
    skip: Signal<Local, bool>,
    csum_bad: Signal<Local, bool>,
    lossy: Signal<Local, bool>,
    dsc: Signal<Local, Bits<64>>,
    vis: Signal<Local, bool>,
    popping: Signal<Local, bool>,
    rp_next: Signal<Local, Bits<A>>,
    sub_w: Signal<Local, Bits<A>>,
    sub_prio: Signal<Local, Bits<3>>,
    a0: Signal<Local, Bits<A>>,
    a1: Signal<Local, Bits<A>>,
    a2: Signal<Local, Bits<A>>,
    a3: Signal<Local, Bits<A>>,
    a4: Signal<Local, Bits<A>>,
    a5: Signal<Local, Bits<A>>,
    a6: Signal<Local, Bits<A>>,
    a7: Signal<Local, Bits<A>>,
    s0: Signal<Local, Bits<A>>,
    s1: Signal<Local, Bits<A>>,
    s2: Signal<Local, Bits<A>>,
    s3: Signal<Local, Bits<A>>,
    s4: Signal<Local, Bits<A>>,
    s5: Signal<Local, Bits<A>>,
    s6: Signal<Local, Bits<A>>,
    s7: Signal<Local, Bits<A>>,
    // Constants
    icrc_mask: Constant<Bits<1024>>,
    icrc_mask6: Constant<Bits<1024>>,
    icrc_skip: Constant<Bits<64>>,
    crc_residue: Constant<Bits<32>>,
    ones: Constant<Bits<B>>,
    /// Beats that hold ICRC-masked bytes (the first 128), and that hold bytes before the ICRC (the
    /// first 14).
    mask_beats: Constant<Bits<16>>,
    skip_beats: Constant<Bits<16>>,
    /// log2 of the beat in bytes, and in bits.
    log_b: Constant<Bits<16>>,
    log_w: Constant<Bits<16>>,
    beat_bytes18: Constant<Bits<18>>,
    why_length: Constant<Bits<3>>,
    why_disabled: Constant<Bits<3>>,
    ab_write: Constant<Bits<16>>,
    ab_hdr_bad: Constant<Bits<16>>,
    ab_csum_bad: Constant<Bits<16>>,
    ab_lossy: Constant<Bits<16>>,
    ab_v6: Constant<Bits<16>>,
    ab_prio: Constant<Bits<16>>,
    ab_why: Constant<Bits<16>>,
    ab_ip_end: Constant<Bits<16>>,
    rb_valid: Constant<Bits<16>>,
    rb_overflow: Constant<Bits<16>>,
    rb_fcs: Constant<Bits<16>>,
    rb_hdr_bad: Constant<Bits<16>>,
    rb_csum_bad: Constant<Bits<16>>,
    rb_lossy: Constant<Bits<16>>,
    rb_v6: Constant<Bits<16>>,
    rb_prio: Constant<Bits<16>>,
    rb_why: Constant<Bits<16>>,
    rb_len: Constant<Bits<16>>,
    rb_end: Constant<Bits<16>>,
    rb_words: Constant<Bits<16>>,
    db_v6: Constant<Bits<16>>,
    db_prio: Constant<Bits<16>>,
    db_skip: Constant<Bits<16>>,
    db_end: Constant<Bits<16>>,
    db_words: Constant<Bits<16>>,
}

impl<const W: usize, const B: usize, const A: usize> Default for RxBuffer<W, B, A> {
    fn default() -> Self {
        assert_eq!(W, 8 * B);
        assert!(A <= 16, "descriptor fields are 16 bits");
        // Bits the ICRC counts as ones (annex A17.3.3, A17.8), all in the frame's first 128 bytes.
        let (mask, mask6) = icrc_masks();
        let skip: u64 = (1 << ICRC_FIRST_BYTE) - 1;
        let k16 = |v: usize| Constant::new((v as u64).into());
        let k3 = |v: u64| Constant::new(v.into());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            vlan_bad: Default::default(),
            pcp: Default::default(),
            trust_dscp: Default::default(),
            dscp_map: Default::default(),
            lossless: Default::default(),
            lossy_words: Default::default(),
            mac_lo: Default::default(),
            mac_hi: Default::default(),
            ipv4: Default::default(),
            gid0: Default::default(),
            gid1: Default::default(),
            gid2: Default::default(),
            gid3: Default::default(),
            udp_dport: Default::default(),
            rx_tdata: Default::default(),
            rx_tkeep: Default::default(),
            rx_tlast: Default::default(),
            rx_tvalid: Default::default(),
            rx_tuser: Default::default(),
            pending: Default::default(),
            head: Default::default(),
            meta: Default::default(),
            rd_addr: Default::default(),
            rd_data: Default::default(),
            pop: Default::default(),
            fill0: Default::default(),
            fill1: Default::default(),
            fill2: Default::default(),
            fill3: Default::default(),
            fill4: Default::default(),
            fill5: Default::default(),
            fill6: Default::default(),
            fill7: Default::default(),
            frames_inc: Default::default(),
            roce_inc: Default::default(),
            icrc_err_inc: Default::default(),
            not_roce_inc: Default::default(),
            drop_reason: Default::default(),
            overflow_inc: Default::default(),
            ip_csum_err_inc: Default::default(),
            fcs_err_inc: Default::default(),
            lossy_inc: Default::default(),
            ram: Default::default(),
            dq: Default::default(),
            adm: Default::default(),
            crc: Default::default(),
            keep_count: Default::default(),
            beat: Default::default(),
            fr: Default::default(),
            wr_ptr: Default::default(),
            wr_inc: Default::default(),
            f_start: Default::default(),
            f_start_inc: Default::default(),
            ovf: Default::default(),
            used: Default::default(),
            d_valid: Default::default(),
            d_first: Default::default(),
            d_last: Default::default(),
            d_data: Default::default(),
            d_keep: Default::default(),
            d_beat: Default::default(),
            d_pos: Default::default(),
            d_rec: Default::default(),
            d_start: Default::default(),
            d_end: Default::default(),
            d_ovf: Default::default(),
            d_fcs_bad: Default::default(),
            flen: Default::default(),
            e_valid: Default::default(),
            e_first: Default::default(),
            e_last: Default::default(),
            e_data: Default::default(),
            e_keep: Default::default(),
            e_diff: Default::default(),
            e_cnt: Default::default(),
            f_valid: Default::default(),
            f_first: Default::default(),
            f_last: Default::default(),
            f_data: Default::default(),
            f_en: Default::default(),
            r1_v: Default::default(),
            r1_start: Default::default(),
            r1_end: Default::default(),
            r1_ovf: Default::default(),
            r1_fcs: Default::default(),
            r1_rec: Default::default(),
            r2_v: Default::default(),
            r2_end: Default::default(),
            r2_words: Default::default(),
            r2_ovf: Default::default(),
            r2_fcs: Default::default(),
            r2_rec: Default::default(),
            r3_v: Default::default(),
            r3_end: Default::default(),
            r3_words: Default::default(),
            r3_len: Default::default(),
            r3_ovf: Default::default(),
            r3_fcs: Default::default(),
            r3_len_ok: Default::default(),
            r3_rec: Default::default(),
            q4: Default::default(),
            q5: Default::default(),
            q6: Default::default(),
            q7: Default::default(),
            q8: Default::default(),
            q8_crc_ok: Default::default(),
            dq_wp: Default::default(),
            dq_rp: Default::default(),
            dq_vis: Default::default(),
            head_q: Default::default(),
            f0: Default::default(),
            f1: Default::default(),
            f2: Default::default(),
            f3: Default::default(),
            f4: Default::default(),
            f5: Default::default(),
            f6: Default::default(),
            f7: Default::default(),
            acc_w: Default::default(),
            acc_prio: Default::default(),
            full: Default::default(),
            ovf_now: Default::default(),
            first: Default::default(),
            cur: Default::default(),
            store: Default::default(),
            d_ip_end: Default::default(),
            beat18: Default::default(),
            therm: Default::default(),
            rec_hdr_bad: Default::default(),
            rec_why: Default::default(),
            len_bad: Default::default(),
            why_v: Default::default(),
            hdr_bad: Default::default(),
            rq: Default::default(),
            v_valid: Default::default(),
            v_ovf: Default::default(),
            v_fcs: Default::default(),
            v_hdr_bad: Default::default(),
            v_csum_bad: Default::default(),
            v_lossy: Default::default(),
            v_words: Default::default(),
            dsc_skip: Default::default(),
            good: Default::default(),
            skip: Default::default(),
            csum_bad: Default::default(),
            lossy: Default::default(),
            dsc: Default::default(),
            vis: Default::default(),
            popping: Default::default(),
            rp_next: Default::default(),
            sub_w: Default::default(),
            sub_prio: Default::default(),
            a0: Default::default(),
            a1: Default::default(),
            a2: Default::default(),
            a3: Default::default(),
            a4: Default::default(),
            a5: Default::default(),
            a6: Default::default(),
            a7: Default::default(),
            s0: Default::default(),
            s1: Default::default(),
            s2: Default::default(),
            s3: Default::default(),
            s4: Default::default(),
            s5: Default::default(),
            s6: Default::default(),
            s7: Default::default(),
            icrc_mask: Constant::new(mask),
            icrc_mask6: Constant::new(mask6),
            icrc_skip: Constant::new(skip.into()),
            crc_residue: Constant::new((RESIDUE as u64).into()),
            ones: Constant::new(Bits::<B>::mask()),
            mask_beats: k16(128usize.div_ceil(B)),
            skip_beats: k16(ICRC_FIRST_BYTE.div_ceil(B)),
            log_b: k16(B.trailing_zeros() as usize),
            log_w: k16(W.trailing_zeros() as usize),
            beat_bytes18: Constant::new((B as u64).into()),
            why_length: k3(why::LENGTH),
            why_disabled: k3(why::DISABLED),
            ab_write: k16(adm::WRITE),
            ab_hdr_bad: k16(adm::HDR_BAD),
            ab_csum_bad: k16(adm::CSUM_BAD),
            ab_lossy: k16(adm::LOSSY),
            ab_v6: k16(adm::V6),
            ab_prio: k16(adm::PRIO),
            ab_why: k16(adm::WHY),
            ab_ip_end: k16(adm::IP_END),
            rb_valid: k16(rec::VALID),
            rb_overflow: k16(rec::OVERFLOW),
            rb_fcs: k16(rec::FCS),
            rb_hdr_bad: k16(rec::HDR_BAD),
            rb_csum_bad: k16(rec::CSUM_BAD),
            rb_lossy: k16(rec::LOSSY),
            rb_v6: k16(rec::V6),
            rb_prio: k16(rec::PRIO),
            rb_why: k16(rec::WHY),
            rb_len: k16(rec::LEN),
            rb_end: k16(rec::END),
            rb_words: k16(rec::WORDS),
            db_v6: k16(desc::V6),
            db_prio: k16(desc::PRIO),
            db_skip: k16(desc::SKIP),
            db_end: k16(desc::END),
            db_words: k16(desc::WORDS),
        }
    }
}

impl<const W: usize, const B: usize, const A: usize> Logic for RxBuffer<W, B, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            beat,
            fr,
            wr_ptr,
            wr_inc,
            f_start,
            f_start_inc,
            ovf,
            used,
            d_valid,
            d_first,
            d_last,
            d_data,
            d_keep,
            d_beat,
            d_pos,
            d_rec,
            d_start,
            d_end,
            d_ovf,
            d_fcs_bad,
            flen,
            e_valid,
            e_first,
            e_last,
            e_data,
            e_keep,
            e_diff,
            e_cnt,
            f_valid,
            f_first,
            f_last,
            f_data,
            f_en,
            r1_v,
            r1_start,
            r1_end,
            r1_ovf,
            r1_fcs,
            r1_rec,
            r2_v,
            r2_end,
            r2_words,
            r2_ovf,
            r2_fcs,
            r2_rec,
            r3_v,
            r3_end,
            r3_words,
            r3_len,
            r3_ovf,
            r3_fcs,
            r3_len_ok,
            r3_rec,
            q4,
            q5,
            q6,
            q7,
            q8,
            q8_crc_ok,
            dq_wp,
            dq_rp,
            dq_vis,
            head_q,
            f0,
            f1,
            f2,
            f3,
            f4,
            f5,
            f6,
            f7,
            acc_w,
            acc_prio
        );
        self.adm.clock.next = self.clock.val();
        self.crc.clock.next = self.clock.val();
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        self.ram.read_address.next = self.rd_addr.val();
        self.rd_data.next = self.ram.read_data.val();
        self.ram.write_enable.next = false;
        self.ram.write_address.next = self.wr_ptr.q.val();
        self.ram.write_data.next = self.adm.out_data.val();
        self.dq.read_clock.next = self.clock.val();
        self.dq.write_clock.next = self.clock.val();
        self.fill0.next = self.f0.q.val();
        self.fill1.next = self.f1.q.val();
        self.fill2.next = self.f2.q.val();
        self.fill3.next = self.f3.q.val();
        self.fill4.next = self.f4.q.val();
        self.fill5.next = self.f5.q.val();
        self.fill6.next = self.f6.q.val();
        self.fill7.next = self.f7.q.val();

        // Admission: the headers judged before the frame reaches the ring.
        self.adm.reset.next = self.reset.val();
        self.adm.enable.next = self.enable.val();
        self.adm.trust_dscp.next = self.trust_dscp.val();
        self.adm.dscp_map.next = self.dscp_map.val();
        self.adm.lossless.next = self.lossless.val();
        self.adm.ring_used.next = self.used.q.val();
        self.adm.lossy_words.next = self.lossy_words.val();
        self.adm.mac_lo.next = self.mac_lo.val();
        self.adm.mac_hi.next = self.mac_hi.val();
        self.adm.ipv4.next = self.ipv4.val();
        self.adm.gid0.next = self.gid0.val();
        self.adm.gid1.next = self.gid1.val();
        self.adm.gid2.next = self.gid2.val();
        self.adm.gid3.next = self.gid3.val();
        self.adm.udp_dport.next = self.udp_dport.val();
        self.adm.in_data.next = self.rx_tdata.val();
        self.adm.in_keep.next = self.rx_tkeep.val();
        self.adm.in_last.next = self.rx_tlast.val();
        self.adm.in_valid.next = self.rx_tvalid.val();
        self.adm.in_user.next = self.rx_tuser.val();
        self.adm.in_vlan_bad.next = self.vlan_bad.val();
        self.adm.in_pcp.next = self.pcp.val();
        // The ring's words in use, for lossy admission.
        self.used.d.next = self.wr_ptr.q.val() - self.head_q.q.val();

        // Input stage (T): a stored frame's beat goes into the ring at once. One word stays free, so
        // `wr_ptr == head` means an empty ring.
        self.first.next = self.adm.out_first.val();
        self.cur.next = self.fr.q.val();
        if self.first.val() {
            self.cur.next = self.adm.out_rec.val();
        }
        self.store.next = bit_cast::<1, 32>(self.cur.val() >> self.ab_write.val()) != 0;
        self.full.next = self.wr_inc.q.val() == self.head_q.q.val();
        self.ovf_now.next =
            self.store.val() && (self.full.val() || (self.ovf.q.val() && !self.first.val()));
        self.frames_inc.next = self.adm.out_valid.val() && self.adm.out_last.val();
        self.d_valid.d.next = self.adm.out_valid.val();
        self.d_first.d.next = self.first.val();
        self.d_last.d.next = self.adm.out_last.val();
        self.d_data.d.next = self.adm.out_data.val();
        self.d_keep.d.next = self.adm.out_keep.val();
        self.d_beat.d.next = self.beat.q.val();
        self.beat18.next = bit_cast::<18, 16>(self.beat.q.val());
        self.d_pos.d.next = self.beat18.val() << self.log_b.val();
        self.d_rec.d.next = self.cur.val();
        self.d_start.d.next = self.f_start.q.val();
        self.d_end.d.next = self.wr_ptr.q.val();
        self.d_ovf.d.next = self.ovf_now.val();
        self.d_fcs_bad.d.next = self.adm.out_user.val();
        if self.adm.out_valid.val() {
            self.fr.d.next = self.cur.val();
            self.beat.d.next = self.beat.q.val() + 1;
            self.ovf.d.next = self.ovf_now.val();
            if self.first.val() {
                self.beat.d.next = 1.into();
                self.f_start.d.next = self.wr_ptr.q.val();
                self.f_start_inc.d.next = self.wr_inc.q.val();
                self.d_start.d.next = self.wr_ptr.q.val();
            }
            if self.store.val() && !self.ovf_now.val() {
                self.ram.write_enable.next = true;
                self.wr_ptr.d.next = self.wr_inc.q.val();
                self.wr_inc.d.next = self.wr_inc.q.val() + 1;
                self.d_end.d.next = self.wr_inc.q.val();
            } else if self.store.val() && !self.first.val() {
                // Cut: the frame's words so far are given back at once (no later frame has begun).
                self.wr_ptr.d.next = self.f_start.q.val();
                self.wr_inc.d.next = self.f_start_inc.q.val();
                self.d_end.d.next = self.f_start.q.val();
            }
            if self.adm.out_last.val() {
                self.beat.d.next = 0.into();
            }
        }

        // D (T+1): the beat's ICRC-masked fields set to ones and the bytes before the IP header
        // dropped from its lanes; its distance to the IP packet's end; its bytes counted.
        self.e_valid.d.next = self.d_valid.q.val();
        self.e_first.d.next = self.d_first.q.val();
        self.e_last.d.next = self.d_last.q.val();
        self.e_data.d.next = self.d_data.q.val();
        if self.d_beat.q.val() < self.mask_beats.val() {
            self.e_data.d.next = self.d_data.q.val()
                | bit_cast::<W, 1024>(
                    self.icrc_mask.val() >> (self.d_beat.q.val() << self.log_w.val()),
                );
            if bit_cast::<1, 32>(self.d_rec.q.val() >> self.ab_v6.val()) != 0 {
                self.e_data.d.next = self.d_data.q.val()
                    | bit_cast::<W, 1024>(
                        self.icrc_mask6.val() >> (self.d_beat.q.val() << self.log_w.val()),
                    );
            }
        }
        self.e_keep.d.next = self.d_keep.q.val();
        if self.d_beat.q.val() < self.skip_beats.val() {
            self.e_keep.d.next = self.d_keep.q.val()
                & !bit_cast::<B, 64>(
                    self.icrc_skip.val() >> (self.d_beat.q.val() << self.log_b.val()),
                );
        }
        self.d_ip_end.next = bit_cast::<18, 32>(self.d_rec.q.val() >> self.ab_ip_end.val());
        self.e_diff.d.next = self.d_ip_end.val() - self.d_pos.q.val();
        self.keep_count.keep.next = self.d_keep.q.val();
        self.e_cnt.d.next = self.keep_count.count.val();

        // E (T+2): the lanes inside the IP packet, registered so the CRC pipeline starts from flops.
        // The frame's length adds up.
        self.therm.next = !(self.ones.val() << bit_cast::<8, 18>(self.e_diff.q.val()));
        if self.e_diff.q.val().get_bit(17) || (self.e_diff.q.val() == 0) {
            self.therm.next = 0.into();
        }
        if (self.e_diff.q.val() >= self.beat_bytes18.val()) && !self.e_diff.q.val().get_bit(17) {
            self.therm.next = self.ones.val();
        }
        self.f_valid.d.next = self.e_valid.q.val();
        self.f_first.d.next = self.e_first.q.val();
        self.f_last.d.next = self.e_last.q.val();
        self.f_data.d.next = self.e_data.q.val();
        self.f_en.d.next = self.e_keep.q.val() & self.therm.val();
        if self.e_valid.q.val() {
            self.flen.d.next = self.flen.q.val() + self.e_cnt.q.val();
            if self.e_first.q.val() {
                self.flen.d.next = self.e_cnt.q.val();
            }
        }

        // F (T+3) to T+8: the CRC over the region, from the start value.
        self.crc.adv.next = true;
        self.crc.in_valid.next = self.f_valid.q.val();
        self.crc.data.next = self.f_data.q.val();
        self.crc.en.next = self.f_en.q.val();
        self.crc.sof.next = self.f_first.q.val();
        self.crc.eoc.next = self.f_last.q.val();

        // The record. R1 (T+2) from the last beat.
        self.r1_v.d.next = self.d_valid.q.val() && self.d_last.q.val();
        self.r1_start.d.next = self.d_start.q.val();
        self.r1_end.d.next = self.d_end.q.val();
        self.r1_ovf.d.next = self.d_ovf.q.val();
        self.r1_fcs.d.next = self.d_fcs_bad.q.val();
        self.r1_rec.d.next = self.d_rec.q.val();
        // R2 (T+3): its words counted.
        self.r2_v.d.next = self.r1_v.q.val();
        self.r2_end.d.next = self.r1_end.q.val();
        self.r2_words.d.next = self.r1_end.q.val() - self.r1_start.q.val();
        self.r2_ovf.d.next = self.r1_ovf.q.val();
        self.r2_fcs.d.next = self.r1_fcs.q.val();
        self.r2_rec.d.next = self.r1_rec.q.val();
        // R3 (T+4): the frame's length is in; the frame holds its IP packet.
        self.r3_v.d.next = self.r2_v.q.val();
        self.r3_end.d.next = self.r2_end.q.val();
        self.r3_words.d.next = self.r2_words.q.val();
        self.r3_len.d.next = self.flen.q.val();
        self.r3_ovf.d.next = self.r2_ovf.q.val();
        self.r3_fcs.d.next = self.r2_fcs.q.val();
        self.r3_len_ok.d.next =
            self.flen.q.val() >= bit_cast::<16, 32>(self.r2_rec.q.val() >> self.ab_ip_end.val());
        self.r3_rec.d.next = self.r2_rec.q.val();
        // R4 (T+5): the first check failed (the length after the headers, before "disabled"); the
        // record packed.
        self.rec_hdr_bad.next =
            bit_cast::<1, 32>(self.r3_rec.q.val() >> self.ab_hdr_bad.val()) != 0;
        self.rec_why.next = bit_cast::<3, 32>(self.r3_rec.q.val() >> self.ab_why.val());
        self.len_bad.next = !self.r3_len_ok.q.val();
        self.why_v.next = self.rec_why.val();
        if self.len_bad.val()
            && (!self.rec_hdr_bad.val() || (self.rec_why.val() == self.why_disabled.val()))
        {
            self.why_v.next = self.why_length.val();
        }
        self.hdr_bad.next = self.rec_hdr_bad.val() || self.len_bad.val();
        self.csum_bad.next = bit_cast::<1, 32>(self.r3_rec.q.val() >> self.ab_csum_bad.val()) != 0;
        self.lossy.next = bit_cast::<1, 32>(self.r3_rec.q.val() >> self.ab_lossy.val()) != 0;
        self.q4.d.next = (bit_cast::<64, 1>(self.r3_v.q.val().into()) << self.rb_valid.val())
            | (bit_cast::<64, 1>(self.r3_ovf.q.val().into()) << self.rb_overflow.val())
            | (bit_cast::<64, 1>(self.r3_fcs.q.val().into()) << self.rb_fcs.val())
            | (bit_cast::<64, 1>(self.hdr_bad.val().into()) << self.rb_hdr_bad.val())
            | (bit_cast::<64, 1>(self.csum_bad.val().into()) << self.rb_csum_bad.val())
            | (bit_cast::<64, 1>(self.lossy.val().into()) << self.rb_lossy.val())
            | (bit_cast::<64, 1>(bit_cast::<1, 32>(self.r3_rec.q.val() >> self.ab_v6.val()))
                << self.rb_v6.val())
            | (bit_cast::<64, 3>(bit_cast::<3, 32>(self.r3_rec.q.val() >> self.ab_prio.val()))
                << self.rb_prio.val())
            | (bit_cast::<64, 3>(self.why_v.val()) << self.rb_why.val())
            | (bit_cast::<64, 16>(self.r3_len.q.val()) << self.rb_len.val())
            | (bit_cast::<64, A>(self.r3_end.q.val()) << self.rb_end.val())
            | (bit_cast::<64, A>(self.r3_words.q.val()) << self.rb_words.val());
        // T+6 to T+8: waiting for the CRC, whose result for this frame comes out at T+8.
        self.q5.d.next = self.q4.q.val();
        self.q6.d.next = self.q5.q.val();
        self.q7.d.next = self.q6.q.val();
        self.q8.d.next = self.q7.q.val();
        self.q8_crc_ok.d.next = self.crc.res_crc.val() == self.crc_residue.val();

        // The verdict (T+9), first failure counted; every frame with words leaves a descriptor.
        self.rq.next = self.q8.q.val();
        self.v_valid.next = bit_cast::<1, 64>(self.rq.val() >> self.rb_valid.val()) != 0;
        self.v_ovf.next = bit_cast::<1, 64>(self.rq.val() >> self.rb_overflow.val()) != 0;
        self.v_fcs.next = bit_cast::<1, 64>(self.rq.val() >> self.rb_fcs.val()) != 0;
        self.v_hdr_bad.next = bit_cast::<1, 64>(self.rq.val() >> self.rb_hdr_bad.val()) != 0;
        self.v_csum_bad.next = bit_cast::<1, 64>(self.rq.val() >> self.rb_csum_bad.val()) != 0;
        self.v_lossy.next = bit_cast::<1, 64>(self.rq.val() >> self.rb_lossy.val()) != 0;
        self.v_words.next = bit_cast::<A, 64>(self.rq.val() >> self.rb_words.val());
        self.roce_inc.next = false;
        self.icrc_err_inc.next = false;
        self.not_roce_inc.next = false;
        self.overflow_inc.next = false;
        self.ip_csum_err_inc.next = false;
        self.fcs_err_inc.next = false;
        self.lossy_inc.next = false;
        self.good.next = false;
        self.drop_reason.next = bit_cast::<3, 64>(self.rq.val() >> self.rb_why.val());
        if self.v_valid.val() {
            if self.v_ovf.val() {
                self.overflow_inc.next = true;
            } else if self.v_fcs.val() {
                // Whatever the headers say: they may be what the bad FCS is about.
                self.fcs_err_inc.next = true;
            } else if self.v_hdr_bad.val() || !self.enable.val() {
                self.not_roce_inc.next = true;
            } else if self.v_csum_bad.val() {
                self.ip_csum_err_inc.next = true;
            } else if !self.q8_crc_ok.q.val() {
                self.icrc_err_inc.next = true;
            } else if self.v_lossy.val() {
                self.lossy_inc.next = true;
            } else {
                self.roce_inc.next = true;
                self.good.next = true;
            }
        }
        self.skip.next = !self.good.val();
        self.dq.write_address.next = self.dq_wp.q.val();
        self.dq.write_data.next =
            (bit_cast::<64, 16>(bit_cast::<16, 64>(self.rq.val() >> self.rb_len.val())))
                | (bit_cast::<64, 1>(bit_cast::<1, 64>(self.rq.val() >> self.rb_v6.val()))
                    << self.db_v6.val())
                | (bit_cast::<64, 3>(bit_cast::<3, 64>(self.rq.val() >> self.rb_prio.val()))
                    << self.db_prio.val())
                | (bit_cast::<64, 1>(self.skip.val().into()) << self.db_skip.val())
                | (bit_cast::<64, A>(bit_cast::<A, 64>(self.rq.val() >> self.rb_end.val()))
                    << self.db_end.val())
                | (bit_cast::<64, A>(bit_cast::<A, 64>(self.rq.val() >> self.rb_words.val()))
                    << self.db_words.val());
        self.dq.write_enable.next = self.v_valid.val() && (self.v_words.val() != 0);
        if self.dq.write_enable.val() {
            self.dq_wp.d.next = self.dq_wp.q.val() + 1;
        }
        self.acc_w.d.next = 0.into();
        self.acc_prio.d.next = bit_cast::<3, 64>(self.rq.val() >> self.rb_prio.val());
        if self.good.val() {
            self.acc_w.d.next = self.v_words.val();
        }

        // The head descriptor: what a read there may see is what was written before the last cycle.
        // A skipped frame is retired here; the engine pops the others.
        self.dq_vis.d.next = self.dq_wp.q.val();
        self.dsc.next = self.dq.read_data.val();
        self.dsc_skip.next = bit_cast::<1, 64>(self.dsc.val() >> self.db_skip.val()) != 0;
        self.vis.next = self.dq_rp.q.val() != self.dq_vis.q.val();
        self.pending.next = self.vis.val() && !self.dsc_skip.val();
        self.head.next = self.head_q.q.val();
        self.meta.next = bit_cast::<32, 64>(self.dsc.val());
        self.popping.next = self.vis.val() && (self.pop.val() || self.dsc_skip.val());
        self.rp_next.next = self.dq_rp.q.val();
        self.sub_w.next = 0.into();
        self.sub_prio.next = bit_cast::<3, 64>(self.dsc.val() >> self.db_prio.val());
        if self.popping.val() {
            self.rp_next.next = self.dq_rp.q.val() + 1;
            self.head_q.d.next = bit_cast::<A, 64>(self.dsc.val() >> self.db_end.val());
            if !self.dsc_skip.val() {
                self.sub_w.next = bit_cast::<A, 64>(self.dsc.val() >> self.db_words.val());
            }
        }
        self.dq_rp.d.next = self.rp_next.val();
        self.dq.read_address.next = self.rp_next.val();

        // Per-priority accounting: the frame judged last cycle adds to its priority, a pop frees from
        // its own.
        self.a0.next = 0.into();
        if self.acc_prio.q.val() == 0 {
            self.a0.next = self.acc_w.q.val();
        }
        self.s0.next = 0.into();
        if self.sub_prio.val() == 0 {
            self.s0.next = self.sub_w.val();
        }
        self.f0.d.next = self.f0.q.val() + self.a0.val() - self.s0.val();
        self.a1.next = 0.into();
        if self.acc_prio.q.val() == 1 {
            self.a1.next = self.acc_w.q.val();
        }
        self.s1.next = 0.into();
        if self.sub_prio.val() == 1 {
            self.s1.next = self.sub_w.val();
        }
        self.f1.d.next = self.f1.q.val() + self.a1.val() - self.s1.val();
        self.a2.next = 0.into();
        if self.acc_prio.q.val() == 2 {
            self.a2.next = self.acc_w.q.val();
        }
        self.s2.next = 0.into();
        if self.sub_prio.val() == 2 {
            self.s2.next = self.sub_w.val();
        }
        self.f2.d.next = self.f2.q.val() + self.a2.val() - self.s2.val();
        self.a3.next = 0.into();
        if self.acc_prio.q.val() == 3 {
            self.a3.next = self.acc_w.q.val();
        }
        self.s3.next = 0.into();
        if self.sub_prio.val() == 3 {
            self.s3.next = self.sub_w.val();
        }
        self.f3.d.next = self.f3.q.val() + self.a3.val() - self.s3.val();
        self.a4.next = 0.into();
        if self.acc_prio.q.val() == 4 {
            self.a4.next = self.acc_w.q.val();
        }
        self.s4.next = 0.into();
        if self.sub_prio.val() == 4 {
            self.s4.next = self.sub_w.val();
        }
        self.f4.d.next = self.f4.q.val() + self.a4.val() - self.s4.val();
        self.a5.next = 0.into();
        if self.acc_prio.q.val() == 5 {
            self.a5.next = self.acc_w.q.val();
        }
        self.s5.next = 0.into();
        if self.sub_prio.val() == 5 {
            self.s5.next = self.sub_w.val();
        }
        self.f5.d.next = self.f5.q.val() + self.a5.val() - self.s5.val();
        self.a6.next = 0.into();
        if self.acc_prio.q.val() == 6 {
            self.a6.next = self.acc_w.q.val();
        }
        self.s6.next = 0.into();
        if self.sub_prio.val() == 6 {
            self.s6.next = self.sub_w.val();
        }
        self.f6.d.next = self.f6.q.val() + self.a6.val() - self.s6.val();
        self.a7.next = 0.into();
        if self.acc_prio.q.val() == 7 {
            self.a7.next = self.acc_w.q.val();
        }
        self.s7.next = 0.into();
        if self.sub_prio.val() == 7 {
            self.s7.next = self.sub_w.val();
        }
        self.f7.d.next = self.f7.q.val() + self.a7.val() - self.s7.val();
        if self.reset.val() {
            self.f0.d.next = 0.into();
            self.f1.d.next = 0.into();
            self.f2.d.next = 0.into();
            self.f3.d.next = 0.into();
            self.f4.d.next = 0.into();
            self.f5.d.next = 0.into();
            self.f6.d.next = 0.into();
            self.f7.d.next = 0.into();
            self.beat.d.next = 0.into();
            self.wr_ptr.d.next = 0.into();
            self.wr_inc.d.next = 1.into();
            self.head_q.d.next = 0.into();
            self.dq_wp.d.next = 0.into();
            self.dq_rp.d.next = 0.into();
            self.dq_vis.d.next = 0.into();
            self.d_valid.d.next = false;
            self.e_valid.d.next = false;
            self.f_valid.d.next = false;
            self.r1_v.d.next = false;
            self.r2_v.d.next = false;
            self.r3_v.d.next = false;
            self.q4.d.next = 0.into();
            self.q5.d.next = 0.into();
            self.q6.d.next = 0.into();
            self.q7.d.next = 0.into();
            self.q8.d.next = 0.into();
            self.acc_w.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::rx_checks::frames::{send_only, GID, IP, MAC};
    use std::sync::{Arc, Mutex};

    /// What the buffer did with a run of frames.
    #[derive(Debug, Default, Clone, PartialEq, Eq)]
    struct Seen {
        /// Frames the engine side read, with their priority and IP version from `meta`.
        frames: Vec<(Vec<u8>, u64, bool)>,
        roce: usize,
        not_roce: usize,
        reasons: Vec<u64>,
        csum: usize,
        icrc: usize,
        overflow: usize,
        fcs: usize,
        lossy: usize,
        /// The per-priority fills once everything is read.
        fills_after: Vec<u64>,
    }

    /// Sends `frames` (bytes, FCS-bad) back to back with `gap` idle cycles after each, through a
    /// `RxBuffer<64, 8, A>`, while a reader (the engine's side) waits `stall` cycles before the first
    /// read and then reads and pops each frame as it becomes pending.
    fn run<const A: usize>(frames: Vec<(Vec<u8>, bool)>, gap: usize, stall: usize) -> Seen {
        run_with::<A>(frames, gap, stall, 0xFF, 0)
    }

    /// `run` with priorities `lossless` (the others lossy) and lossy frames refused from
    /// `lossy_words` words in the ring.
    fn run_with<const A: usize>(
        frames: Vec<(Vec<u8>, bool)>,
        gap: usize,
        stall: usize,
        lossless: u64,
        lossy_words: u64,
    ) -> Seen {
        const B: usize = 8;
        let seen = Arc::new(Mutex::new(Seen::default()));
        let s2 = seen.clone();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<RxBuffer<64, 8, A>>| {
            x.clock.next = !x.clock.val()
        });
        sim.add_testbench(move |mut ep: Sim<RxBuffer<64, 8, A>>| {
            let mut x = ep.init()?;
            let be = |b: &[u8]| b.iter().fold(0u64, |a, &v| (a << 8) | v as u64);
            x.enable.next = true;
            x.mac_hi.next = be(&MAC[..2]).into();
            x.mac_lo.next = be(&MAC[2..]).into();
            x.ipv4.next = be(&IP).into();
            let mut g: Bits<128> = 0.into();
            for &byte in GID.iter() {
                g = (g << 8) | bit_cast::<128, 8>((byte as u64).into());
            }
            x.gid2.next = g;
            x.udp_dport.next = (rocenic_proto::wire::ROCEV2_UDP_PORT as u64).into();
            x.trust_dscp.next = true;
            let mut map: Bits<256> = 0.into();
            for d in 0..64u64 {
                map = map | (bit_cast::<256, 4>((d >> 3).into()) << (4 * d));
            }
            x.dscp_map.next = map;
            x.lossless.next = lossless.into();
            x.lossy_words.next = lossy_words.into();
            x.reset.next = true;
            wait_clock_true!(ep, clock, x);
            wait_clock_cycle!(ep, clock, x);
            x.reset.next = false;
            // The input: every frame's beats, then `gap` idle cycles.
            let mut beats = std::collections::VecDeque::new();
            for (f, fcs_bad) in &frames {
                let n = f.len().div_ceil(B);
                for k in 0..n {
                    let mut d = 0u64;
                    let mut keep = 0u64;
                    for l in 0..B.min(f.len() - k * B) {
                        d |= (f[k * B + l] as u64) << (8 * l);
                        keep |= 1 << l;
                    }
                    beats.push_back(Some((d, keep, k + 1 == n, *fcs_bad && k + 1 == n)));
                }
                beats.extend(std::iter::repeat_n(None, gap));
            }
            // The reader: address word k of the pending frame, its data a cycle later.
            let mut reading: Option<(usize, usize, Vec<u8>)> = None; // (next k, frame length, bytes)
            let mut cycle = 0usize;
            let mut idle = 0;
            while idle < 200 {
                assert!(cycle < 100_000, "stuck");
                let beat = beats.pop_front().flatten();
                x.rx_tvalid.next = beat.is_some();
                if let Some((d, keep, last, bad)) = beat {
                    x.rx_tdata.next = d.into();
                    x.rx_tkeep.next = keep.into();
                    x.rx_tlast.next = last;
                    x.rx_tuser.next = bad;
                }
                x.pop.next = false;
                let mut s = s2.lock().unwrap();
                s.roce += x.roce_inc.val() as usize;
                s.csum += x.ip_csum_err_inc.val() as usize;
                s.icrc += x.icrc_err_inc.val() as usize;
                s.overflow += x.overflow_inc.val() as usize;
                s.fcs += x.fcs_err_inc.val() as usize;
                s.lossy += x.lossy_inc.val() as usize;
                if x.not_roce_inc.val() {
                    s.not_roce += 1;
                    s.reasons.push(x.drop_reason.val().to_u64());
                }
                if let Some((k, len, bytes)) = reading.as_mut() {
                    if *k > 0 {
                        let w = x.rd_data.val().to_u64();
                        for l in 0..B {
                            if bytes.len() < *len {
                                bytes.push((w >> (8 * l)) as u8);
                            }
                        }
                    }
                    if bytes.len() == *len {
                        let m = x.meta.val().to_u64();
                        s.frames
                            .push((std::mem::take(bytes), (m >> 20) & 7, m & (1 << 16) != 0));
                        x.pop.next = true;
                        reading = None;
                    } else {
                        x.rd_addr.next = bit_cast::<A, 64>(
                            ((x.head.val().to_u64() + *k as u64) % (1u64 << A)).into(),
                        );
                        *k += 1;
                    }
                } else if cycle >= stall && x.pending.val() {
                    let len = (x.meta.val().to_u64() & 0xFFFF) as usize;
                    x.rd_addr.next = x.head.val();
                    reading = Some((1, len, Vec::new()));
                }
                drop(s);
                idle = if beats.is_empty() && reading.is_none() && !x.pending.val() {
                    idle + 1
                } else {
                    0
                };
                wait_clock_cycle!(ep, clock, x);
                cycle += 1;
            }
            let mut s = s2.lock().unwrap();
            s.fills_after = vec![
                x.fill0.val().to_u64(),
                x.fill1.val().to_u64(),
                x.fill2.val().to_u64(),
                x.fill3.val().to_u64(),
                x.fill4.val().to_u64(),
                x.fill5.val().to_u64(),
                x.fill6.val().to_u64(),
                x.fill7.val().to_u64(),
            ];
            drop(s);
            ep.done(x)
        });
        let mut uut = RxBuffer::<64, 8, A>::default();
        uut.connect_all();
        sim.run(Box::new(uut), 100_000_000).unwrap();
        let s = seen.lock().unwrap().clone();
        s
    }

    fn corrupt(mut f: Vec<u8>, at: usize) -> Vec<u8> {
        f[at] ^= 0x20;
        f
    }

    /// Good and bad frames of many lengths, back to back with no idle cycle (every frame's verdict
    /// overlaps the next frames' beats): each good one is read whole, in order, with its priority and
    /// IP version; each bad one is counted once, by its first failing check, and never read.
    #[test]
    fn back_to_back_frames_keep_the_good_and_count_the_bad() {
        let mut frames = Vec::new();
        let mut want = Vec::new();
        for i in 0..24usize {
            let v6 = i % 3 == 1;
            let f = send_only(v6, (i * 13) % 90, (i * 8 % 64) as u8);
            match i % 6 {
                // Bad ICRC (a payload byte), bad IPv4 checksum (the TTL, which the ICRC skips).
                2 => {
                    let n = f.len();
                    frames.push((corrupt(f, n - 6), false))
                }
                3 if !v6 => {
                    frames.push((corrupt(f, rocenic_proto::wire::ipv4_frame::IP_TTL), false))
                }
                // Another MAC's frame; a bad FCS.
                4 => frames.push((corrupt(f, 0), false)),
                5 => frames.push((f, true)),
                _ => {
                    want.push((f.clone(), ((i * 8 % 64) >> 3) as u64, v6));
                    frames.push((f, false));
                }
            }
        }
        let s = run::<7>(frames, 0, 0);
        assert_eq!(s.frames.len(), want.len(), "{s:?}");
        assert!(s.frames == want, "delivered frames differ");
        assert_eq!(
            (s.roce, s.icrc, s.csum, s.not_roce, s.fcs),
            (want.len(), 4, 4, 4, 4)
        );
        assert_eq!(s.reasons, vec![why::DST_MAC; 4]);
        assert_eq!(s.overflow + s.lossy, 0);
        assert_eq!(
            s.fills_after,
            vec![0; 8],
            "every read frame is freed from its priority"
        );
    }

    /// A reader that does not read for a while: frames that find the ring full are cut and counted
    /// as overflows (the ring holds seven of these frames), the frames stored before are read whole
    /// once the reader starts, and the ring takes frames again: the cut frames' words were given back.
    #[test]
    fn a_full_ring_drops_and_recovers() {
        let good = send_only(false, 64, 0);
        let mut frames = Vec::new();
        for i in 0..20 {
            frames.push((good.clone(), false));
            if i % 4 == 0 {
                frames.push((corrupt(send_only(false, 8, 0), 0), false));
            }
        }
        let s = run::<7>(frames.clone(), 2, 200);
        assert!(s.overflow > 0 && s.frames.len() > 7, "{s:?}");
        assert_eq!(s.frames.len() + s.overflow + s.not_roce, frames.len());
        assert!(s.frames.iter().all(|(f, _, _)| *f == good));
        assert_eq!(s.fills_after, vec![0; 8]);
        // A reader that keeps up: every good frame is read.
        let s = run::<7>(frames, 2, 0);
        assert_eq!((s.frames.len(), s.overflow, s.not_roce), (20, 0, 5));
    }

    /// More frames with a bad ICRC than the ring has words (stored, then dropped), and then a good
    /// one: dropped frames' words are freed by the buffer itself, with nothing for the reader to do.
    #[test]
    fn dropped_frames_free_their_words_unread() {
        let mut frames: Vec<_> = (0..40)
            .map(|_| {
                let f = send_only(false, 24, 0);
                let n = f.len();
                (corrupt(f, n - 6), false)
            })
            .collect();
        frames.push((send_only(false, 24, 0), false));
        let s = run::<6>(frames, 0, 0);
        assert_eq!((s.icrc, s.overflow, s.frames.len()), (40, 0, 1));
    }

    /// A stored frame the reader does not take yet, then frames for another MAC worth several rings,
    /// then a good frame: the refused frames took no word, so the last frame finds room.
    #[test]
    fn refused_frames_take_no_word() {
        let good = send_only(false, 24, 0);
        let mut frames = vec![(good.clone(), false)];
        frames.extend((0..40).map(|_| (corrupt(good.clone(), 1), false)));
        frames.push((good.clone(), false));
        let s = run::<6>(frames, 0, 2_000);
        assert_eq!(
            (s.not_roce, s.overflow, s.frames.len()),
            (40, 0, 2),
            "{s:?}"
        );
    }

    /// Lossless priority 0, lossy from 20 words: with two lossless frames (22 words) waiting, ten
    /// lossy frames are refused and take no word, and three more lossless frames still fit.
    #[test]
    fn lossy_frames_are_refused_before_they_take_room() {
        let lossless = send_only(false, 24, 0);
        let lossy = send_only(false, 24, 8);
        let mut frames = vec![(lossless.clone(), false); 2];
        frames.extend(vec![(lossy, false); 10]);
        frames.extend(vec![(lossless.clone(), false); 3]);
        let s = run_with::<6>(frames, 2, 2_000, 0x01, 20);
        assert_eq!((s.lossy, s.overflow, s.frames.len()), (10, 0, 5), "{s:?}");
        assert!(s.frames.iter().all(|(f, p, _)| *f == lossless && *p == 0));
    }

    #[test]
    fn rx_buffer_synthesizes() {
        let mut uut = RxBuffer::<64, 8, 11>::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        assert!(v.contains("module top"));
    }
}
