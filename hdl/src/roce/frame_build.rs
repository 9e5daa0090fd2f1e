//! The transmit frame builder: one packet's descriptor (BTH fields and extension headers, chosen by
//! the transmit engine) and the QP's address vector in, the RoCEv2 frame out (Ethernet II, IPv4 or
//! IPv6 per RoCEv2 annex A17, UDP, BTH §9.2, the extension headers §9.3, the payload, the pad and the
//! ICRC §7.8).
//!
//! Three steps, each driven by the engine:
//! - `load` (one or more cycles, the descriptor and address vector held): the base headers go into a
//!   big-endian header register, the lengths and the payload's place are worked out. `loaded` says
//!   the header taken this cycle is right (the address vector's checksum sums have settled, two cycles
//!   after the vector changed); the engine leaves `load` then.
//! - the cycle after (`ext`, internal): the extension header and the IPv4 checksum join the register.
//!   `has_data` then says whether the packet has payload (the engine requests it before `emit`).
//! - `emit`: the frame streams to the MAC, header bytes from the top of the register, payload
//!   realigned from the previous and current words of `pay` (held in order, one word per beat), zero
//!   pad, and the ICRC filled in by [`IcrcInsert`]. `done` on the beat that ends the frame.
use super::icrc_insert::IcrcInsert;
use super::ip_csum::IpCsum;
use crate::prim::byteswap::ByteSwap;
use crate::prim::end_around_add::EndAroundAdd;
use rocenic_proto::wire::{DEFAULT_PKEY, ETHERTYPE_IPV4, ETHERTYPE_IPV6, IP_PROTO_UDP};
use rust_hdl::prelude::*;

/// One packet, as the engine set it up. Held from `load` until the frame's last beat.
#[derive(LogicInterface, Default)]
pub struct FrameDesc {
    pub opcode: Signal<In, Bits<8>>,
    pub psn: Signal<In, Bits<24>>,
    /// Payload bytes (before the pad).
    pub plen: Signal<In, Bits<16>>,
    /// Which extension headers follow the BTH (§9.3): AETH, RETH, ImmDt or IETH (`imm`), AtomicETH,
    /// AETH with AtomicAckETH (`aack`); a CNP's 16 reserved bytes.
    pub aeth: Signal<In, bool>,
    pub reth: Signal<In, bool>,
    pub imm: Signal<In, bool>,
    pub atomic: Signal<In, bool>,
    pub aack: Signal<In, bool>,
    pub cnp: Signal<In, bool>,
    /// BTH SE and AckReq (§9.2).
    pub se: Signal<In, bool>,
    pub ackreq: Signal<In, bool>,
    /// AETH syndrome and MSN.
    pub syn: Signal<In, Bits<8>>,
    pub msn: Signal<In, Bits<24>>,
    /// RETH VA, R_Key and DMA length; the R_Key also the AtomicETH's.
    pub rva: Signal<In, Bits<64>>,
    pub rkey: Signal<In, Bits<32>>,
    pub rlen: Signal<In, Bits<32>>,
    /// ImmDt or IETH.
    pub imm_data: Signal<In, Bits<32>>,
    /// AtomicETH: VA, swap (or add) and compare values; `fetch_add` puts the add value in the swap
    /// field's place and no compare.
    pub atomic_va: Signal<In, Bits<64>>,
    pub swap: Signal<In, Bits<64>>,
    pub cmp: Signal<In, Bits<64>>,
    pub fetch_add: Signal<In, bool>,
    /// AtomicAckETH: the original value.
    pub orig: Signal<In, Bits<64>>,
    /// The QP the frame is sent for (to the MAC with the frame, for PFC and the rate limiters).
    pub src: Signal<In, Bits<16>>,
}

/// The address vector and per-QP header fields of the QP the frame goes out on.
#[derive(LogicInterface, Default)]
pub struct FrameAv {
    pub mac_lo: Signal<In, Bits<32>>,
    pub mac_hi: Signal<In, Bits<32>>,
    pub dest_mac_lo: Signal<In, Bits<32>>,
    pub dest_mac_hi: Signal<In, Bits<32>>,
    pub ipv4: Signal<In, Bits<32>>,
    pub dest_ipv4: Signal<In, Bits<32>>,
    /// IPv6 addressing: the source GID, and the destination GID's upper 96 bits (its low 32 are
    /// `dest_ipv4`).
    pub ipv6: Signal<In, bool>,
    pub src_gid: Signal<In, Bits<128>>,
    pub dest_gid_hi: Signal<In, Bits<96>>,
    pub dest_qpn: Signal<In, Bits<32>>,
    pub udp_sport: Signal<In, Bits<32>>,
    pub udp_dport: Signal<In, Bits<16>>,
    pub hop_limit: Signal<In, Bits<8>>,
    pub flow_label: Signal<In, Bits<20>>,
    /// DSCP of the QP's packets and of its CNPs; ECT(0) on both when `ecn`.
    pub dscp: Signal<In, Bits<32>>,
    pub cnp_dscp: Signal<In, Bits<32>>,
    pub ecn: Signal<In, bool>,
    /// PFC priority.
    pub vlan: Signal<In, Bits<3>>,
}

#[derive(LogicBlock)]
pub struct FrameBuild<const W: usize, const B: usize> {
    pub clock: Signal<In, Clock>,
    pub desc: FrameDesc,
    pub av: FrameAv,
    pub load: Signal<In, bool>,
    pub loaded: Signal<Out, bool>,
    pub has_data: Signal<Out, bool>,
    pub emit: Signal<In, bool>,
    /// Payload words, in order, from the host memory read.
    pub pay_valid: Signal<In, bool>,
    pub pay_data: Signal<In, Bits<W>>,
    pub pay_ready: Signal<Out, bool>,
    /// The beat in front is the frame's last; `done`: it is taken.
    pub last: Signal<Out, bool>,
    pub done: Signal<Out, bool>,
    // MAC transmit stream, with the frame's priority, QP, CNP flag and DSCP beside it.
    pub tx_tdata: Signal<Out, Bits<W>>,
    pub tx_tkeep: Signal<Out, Bits<B>>,
    pub tx_tlast: Signal<Out, bool>,
    pub tx_tvalid: Signal<Out, bool>,
    pub tx_tready: Signal<In, bool>,
    pub tx_vlan: Signal<Out, Bits<3>>,
    pub tx_qpn: Signal<Out, Bits<16>>,
    pub tx_cnp: Signal<Out, bool>,
    pub tx_dscp: Signal<Out, Bits<6>>,
    /// The cycle after the header was taken: the extension header, lengths and checksum join it.
    ext: DFF<bool>,
    /// The headers, big-endian from the top: the next beat's bytes are the top `W` bits.
    hdr: DFF<Bits<1024>>,
    // Registered in `load`: IP total and UDP lengths, the ICRC's and the frame end's byte offsets,
    // the QP's (or CNP's) checksum sum without the length.
    ip_len_q: DFF<Bits<16>>,
    udp_len_q: DFF<Bits<16>>,
    e_pos: DFF<Bits<16>>,
    f_pos: DFF<Bits<16>>,
    ck_q: DFF<Bits<16>>,
    p_v6: DFF<bool>,
    p_vlan: DFF<Bits<3>>,
    p_dscp: DFF<Bits<6>>,
    p_src: DFF<Bits<16>>,
    /// The extension headers, one-hot: AETH, RETH, RETH + ImmDt, ImmDt or IETH, CmpSwap AtomicETH,
    /// FetchAdd AtomicETH, AETH + AtomicAckETH, CNP.
    x_aeth: DFF<bool>,
    x_reth: DFF<bool>,
    x_ri: DFF<bool>,
    x_imm: DFF<bool>,
    x_cas: DFF<bool>,
    x_fa: DFF<bool>,
    x_aack: DFF<bool>,
    x_cnp: DFF<bool>,
    /// Where the payload starts (frame byte 54, 58, 70 or 74; 20 more in IPv6): 0..3.
    lay: DFF<Bits<2>>,
    // Per beat, registered for the beat in front: beats left before the payload's first word, whether
    // a payload word goes in it (`at_data` and `more`), whether that word is the last (`lastw`).
    to_data: DFF<Bits<4>>,
    at_data: DFF<bool>,
    left: DFF<Bits<16>>,
    more: DFF<bool>,
    lastw: DFF<bool>,
    last_wmask: DFF<Bits<W>>,
    prev: DFF<Bits<W>>,
    /// Bytes from the next beat's first to the ICRC; beats after the one in front.
    rem_en: DFF<Bits<16>>,
    beats: DFF<Bits<16>>,
    /// Beats out (0, 1, 2 or more), for the bytes before the ICRC region (the Ethernet header).
    beat: DFF<Bits<2>>,
    // The beat in front's ICRC coverage, region end, last flag and byte enables.
    cen_q: DFF<Bits<B>>,
    eoc_q: DFF<bool>,
    last_q: DFF<bool>,
    /// The last beat's byte enables.
    keep_l: DFF<Bits<B>>,
    swap: ByteSwap<W>,
    ins: IcrcInsert<W, B>,
    ipck: IpCsum,
    ck_add: EndAroundAdd,
    ip_ck: Signal<Local, Bits<16>>,
    // The length sums' constants for the extension headers present: IP total + 3, UDP + 3, ICRC
    // offset + 1 and frame end + 1 (IPv4 and IPv6), each added to the payload length once.
    k_ip: Signal<Local, Bits<16>>,
    k_udp: Signal<Local, Bits<16>>,
    k_e: Signal<Local, Bits<16>>,
    k_f: Signal<Local, Bits<16>>,
    k_e6: Signal<Local, Bits<16>>,
    k_f6: Signal<Local, Bits<16>>,
    n_lay: Signal<Local, Bits<2>>,
    pad: Signal<Local, Bits<16>>,
    tos_ecn: Signal<Local, Bits<8>>,
    tos_qp: Signal<Local, Bits<8>>,
    tos_cnp: Signal<Local, Bits<8>>,
    tos: Signal<Local, Bits<8>>,
    bth_b1: Signal<Local, Bits<8>>,
    bth_b8: Signal<Local, Bits<8>>,
    v4h: Signal<Local, Bits<1024>>,
    ext_f: Signal<Local, Bits<1024>>,
    lens: Signal<Local, Bits<1024>>,
    need_dma: Signal<Local, bool>,
    cur_m: Signal<Local, Bits<W>>,
    pay: Signal<Local, Bits<W>>,
    fire: Signal<Local, bool>,
    /// The next beat's offsets and place, for its flags.
    r_e: Signal<Local, Bits<16>>,
    n_beat: Signal<Local, Bits<2>>,
    f_m1: Signal<Local, Bits<16>>,
    r_pos: Signal<Local, bool>,
    r_ge: Signal<Local, bool>,
    en_hi: Signal<Local, Bits<B>>,
    en_lo: Signal<Local, Bits<B>>,
    // constants
    beat_bytes: Constant<Bits<16>>,
    beat_bytes_m1: Constant<Bits<16>>,
    log_b: Constant<Bits<16>>,
    w_bits: Constant<Bits<16>>,
    hdr_top: Constant<Bits<16>>,
    /// Byte enables of beats 0 and 1 for the ICRC (frame bytes from 14 on).
    lo0: Constant<Bits<B>>,
    lo1: Constant<Bits<B>>,
    /// Beats before the payload's first word for each place of the payload (IPv4, IPv6).
    d0: Constant<Bits<4>>,
    d1: Constant<Bits<4>>,
    d2: Constant<Bits<4>>,
    d3: Constant<Bits<4>>,
    d0_6: Constant<Bits<4>>,
    d1_6: Constant<Bits<4>>,
    d2_6: Constant<Bits<4>>,
    d3_6: Constant<Bits<4>>,
    /// Payload byte q sits in lane (H + q) mod B: an output word joins the previous payload word
    /// shifted down by `pvN` bits and the current one shifted up by `cuN`, N the place (IPv6: `_6`).
    pv0: Constant<Bits<16>>,
    cu0: Constant<Bits<16>>,
    pv1: Constant<Bits<16>>,
    cu1: Constant<Bits<16>>,
    pv2: Constant<Bits<16>>,
    cu2: Constant<Bits<16>>,
    pv3: Constant<Bits<16>>,
    cu3: Constant<Bits<16>>,
    pv0_6: Constant<Bits<16>>,
    cu0_6: Constant<Bits<16>>,
    pv1_6: Constant<Bits<16>>,
    cu1_6: Constant<Bits<16>>,
    pv2_6: Constant<Bits<16>>,
    cu2_6: Constant<Bits<16>>,
    pv3_6: Constant<Bits<16>>,
    cu3_6: Constant<Bits<16>>,
    ones_b: Constant<Bits<B>>,
    ones_w: Constant<Bits<W>>,
    hdr_fixed: Constant<Bits<1024>>,
    hdr6_fixed: Constant<Bits<1024>>,
    keep_eth: Constant<Bits<1024>>,
    keep_l4: Constant<Bits<1024>>,
}

/// `n` bytes of `v` at frame byte `off` of the big-endian header register.
fn be_field(v: u64, off: usize, n: usize) -> Bits<1024> {
    bit_cast::<1024, 64>(v.into()) << (1024 - 8 * (off + n)) as u64
}

impl<const W: usize, const B: usize> Default for FrameBuild<W, B> {
    fn default() -> Self {
        assert_eq!(W, 8 * B);
        assert!(64 % B == 0 || B == 64);
        // Header fields that never change: EtherType IPv4; version/IHL 0x45 (the TOS byte follows from
        // the DSCPs and ECN); flags DF; protocol UDP (the TTL is the QP's); P_Key 0xFFFF (default
        // partition).
        let hdr_fixed = be_field(ETHERTYPE_IPV4 as u64, 12, 2)
            | be_field(0x4500, 14, 2)
            | be_field(0x4000, 20, 2)
            | be_field(IP_PROTO_UDP as u64, 22, 2)
            | be_field(DEFAULT_PKEY as u64, 44, 2);
        // IPv6 (RFC 8200): EtherType 0x86DD; version 6; next header UDP. The traffic class, flow label
        // and hop limit are added in `load`, the payload length in `ext`.
        let hdr6_fixed = be_field(ETHERTYPE_IPV6 as u64, 12, 2)
            | be_field(0x6000_0000, 14, 4)
            | be_field((IP_PROTO_UDP as u64) << 8, 20, 2);
        let keep_eth = be_field(u64::MAX, 0, 8) | be_field(0xFFFF_FFFF, 8, 4);
        let mut keep_l4: Bits<1024> = 0.into();
        for p in 34..128 {
            keep_l4 = keep_l4 | be_field(0xFF, p, 1);
        }
        let c16 = |v: usize| -> Constant<Bits<16>> { Constant::new((v as u64).into()) };
        let c4 = |h: usize| -> Constant<Bits<4>> { Constant::new(((h / B) as u64).into()) };
        let ones = (1u128 << B) - 1;
        let lanes = |v: u128| -> Constant<Bits<B>> { Constant::new(((v & ones) as u64).into()) };
        Self {
            clock: Default::default(),
            desc: Default::default(),
            av: Default::default(),
            load: Default::default(),
            loaded: Default::default(),
            has_data: Default::default(),
            emit: Default::default(),
            pay_valid: Default::default(),
            pay_data: Default::default(),
            pay_ready: Default::default(),
            last: Default::default(),
            done: Default::default(),
            tx_tdata: Default::default(),
            tx_tkeep: Default::default(),
            tx_tlast: Default::default(),
            tx_tvalid: Default::default(),
            tx_tready: Default::default(),
            tx_vlan: Default::default(),
            tx_qpn: Default::default(),
            tx_cnp: Default::default(),
            tx_dscp: Default::default(),
            ext: Default::default(),
            hdr: Default::default(),
            ip_len_q: Default::default(),
            udp_len_q: Default::default(),
            e_pos: Default::default(),
            f_pos: Default::default(),
            ck_q: Default::default(),
            p_v6: Default::default(),
            p_vlan: Default::default(),
            p_dscp: Default::default(),
            p_src: Default::default(),
            x_aeth: Default::default(),
            x_reth: Default::default(),
            x_ri: Default::default(),
            x_imm: Default::default(),
            x_cas: Default::default(),
            x_fa: Default::default(),
            x_aack: Default::default(),
            x_cnp: Default::default(),
            lay: Default::default(),
            to_data: Default::default(),
            at_data: Default::default(),
            left: Default::default(),
            more: Default::default(),
            lastw: Default::default(),
            last_wmask: Default::default(),
            prev: Default::default(),
            rem_en: Default::default(),
            beats: Default::default(),
            beat: Default::default(),
            cen_q: Default::default(),
            eoc_q: Default::default(),
            last_q: Default::default(),
            keep_l: Default::default(),
            swap: Default::default(),
            ins: Default::default(),
            ipck: Default::default(),
            ck_add: Default::default(),
            ip_ck: Default::default(),
            k_ip: Default::default(),
            k_udp: Default::default(),
            k_e: Default::default(),
            k_f: Default::default(),
            k_e6: Default::default(),
            k_f6: Default::default(),
            n_lay: Default::default(),
            pad: Default::default(),
            tos_ecn: Default::default(),
            tos_qp: Default::default(),
            tos_cnp: Default::default(),
            tos: Default::default(),
            bth_b1: Default::default(),
            bth_b8: Default::default(),
            v4h: Default::default(),
            ext_f: Default::default(),
            lens: Default::default(),
            need_dma: Default::default(),
            cur_m: Default::default(),
            pay: Default::default(),
            fire: Default::default(),
            r_e: Default::default(),
            n_beat: Default::default(),
            f_m1: Default::default(),
            r_pos: Default::default(),
            r_ge: Default::default(),
            en_hi: Default::default(),
            en_lo: Default::default(),
            beat_bytes: c16(B),
            beat_bytes_m1: c16(B - 1),
            log_b: c16(B.trailing_zeros() as usize),
            w_bits: c16(W),
            hdr_top: c16(1024 - W),
            lo0: lanes(ones << 14),
            lo1: lanes(ones << 14usize.saturating_sub(B)),
            d0: c4(54),
            d1: c4(58),
            d2: c4(70),
            d3: c4(74),
            d0_6: c4(74),
            d1_6: c4(78),
            d2_6: c4(90),
            d3_6: c4(94),
            pv0: c16((B - 54 % B) * 8),
            cu0: c16(54 % B * 8),
            pv1: c16((B - 58 % B) * 8),
            cu1: c16(58 % B * 8),
            pv2: c16((B - 70 % B) * 8),
            cu2: c16(70 % B * 8),
            pv3: c16((B - 74 % B) * 8),
            cu3: c16(74 % B * 8),
            pv0_6: c16((B - 74 % B) * 8),
            cu0_6: c16(74 % B * 8),
            pv1_6: c16((B - 78 % B) * 8),
            cu1_6: c16(78 % B * 8),
            pv2_6: c16((B - 90 % B) * 8),
            cu2_6: c16(90 % B * 8),
            pv3_6: c16((B - 94 % B) * 8),
            cu3_6: c16(94 % B * 8),
            ones_b: Constant::new(Bits::<B>::mask()),
            ones_w: Constant::new(Bits::<W>::mask()),
            hdr_fixed: Constant::new(hdr_fixed),
            hdr6_fixed: Constant::new(hdr6_fixed),
            keep_eth: Constant::new(keep_eth),
            keep_l4: Constant::new(keep_l4),
        }
    }
}

impl<const W: usize, const B: usize> Logic for FrameBuild<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, ext, hdr, ip_len_q, udp_len_q, e_pos, f_pos, ck_q, p_v6, p_vlan, p_dscp,
            p_src, x_aeth, x_reth, x_ri, x_imm, x_cas, x_fa, x_aack, x_cnp, lay, to_data, at_data,
            left, more, lastw, last_wmask, prev, rem_en, beats, beat, cen_q, eoc_q, last_q, keep_l
        );
        // Lengths: extension header (AETH 4, RETH 16, ImmDt 4, AtomicETH 28, AETH + AtomicAckETH 12,
        // CNP 16), the payload padded to a 4-byte multiple (BTH PadCnt, §9.2); IP total = IP 20 + UDP 8
        // + BTH 12 + ext + padded payload + ICRC 4, the ICRC at frame byte 14 + IP total - 4. The
        // extension length and the fixed parts are a multiple of 4 (the ICRC offset 2 more), so each
        // sum is one add: (payload + constant + 3) rounded down to 4.
        self.k_ip.next = 47.into();
        self.k_udp.next = 27.into();
        self.k_e.next = 55.into();
        self.k_f.next = 59.into();
        self.k_e6.next = 75.into();
        self.k_f6.next = 79.into();
        if self.desc.aeth.val() {
            self.k_ip.next = 51.into();
            self.k_udp.next = 31.into();
            self.k_e.next = 59.into();
            self.k_f.next = 63.into();
            self.k_e6.next = 79.into();
            self.k_f6.next = 83.into();
        }
        if self.desc.reth.val() {
            self.k_ip.next = 63.into();
            self.k_udp.next = 43.into();
            self.k_e.next = 71.into();
            self.k_f.next = 75.into();
            self.k_e6.next = 91.into();
            self.k_f6.next = 95.into();
        }
        if self.desc.imm.val() {
            self.k_ip.next = 51.into();
            self.k_udp.next = 31.into();
            self.k_e.next = 59.into();
            self.k_f.next = 63.into();
            self.k_e6.next = 79.into();
            self.k_f6.next = 83.into();
        }
        if self.desc.reth.val() && self.desc.imm.val() {
            self.k_ip.next = 67.into();
            self.k_udp.next = 47.into();
            self.k_e.next = 75.into();
            self.k_f.next = 79.into();
            self.k_e6.next = 95.into();
            self.k_f6.next = 99.into();
        }
        if self.desc.atomic.val() {
            self.k_ip.next = 75.into();
            self.k_udp.next = 55.into();
            self.k_e.next = 83.into();
            self.k_f.next = 87.into();
            self.k_e6.next = 103.into();
            self.k_f6.next = 107.into();
        }
        if self.desc.aack.val() {
            self.k_ip.next = 59.into();
            self.k_udp.next = 39.into();
            self.k_e.next = 67.into();
            self.k_f.next = 71.into();
            self.k_e6.next = 87.into();
            self.k_f6.next = 91.into();
        }
        if self.desc.cnp.val() {
            self.k_ip.next = 63.into();
            self.k_udp.next = 43.into();
            self.k_e.next = 71.into();
            self.k_f.next = 75.into();
            self.k_e6.next = 91.into();
            self.k_f6.next = 95.into();
        }
        self.pad.next = (!self.desc.plen.val() + 1) & 3;
        // TOS: DSCP << 2 | ECN, ECT(0) = 0b10 when on (annex A17.9); CNPs have a DSCP of their own.
        self.tos_ecn.next = 0.into();
        if self.av.ecn.val() {
            self.tos_ecn.next = 0x02.into();
        }
        self.tos_qp.next = bit_cast::<8, 32>((self.av.dscp.val() & 0x3F) << 2) | self.tos_ecn.val();
        self.tos_cnp.next =
            bit_cast::<8, 32>((self.av.cnp_dscp.val() & 0x3F) << 2) | self.tos_ecn.val();
        self.tos.next = self.tos_qp.val();
        if self.desc.cnp.val() {
            self.tos.next = self.tos_cnp.val();
        }
        // IPv4 header checksum (RFC 791): the address vector's words summed ahead, the total length
        // added in `ext`.
        self.ipck.clock.next = self.clock.val();
        self.ipck.src.next = self.av.ipv4.val();
        self.ipck.dst.next = self.av.dest_ipv4.val();
        self.ipck.ttl.next = self.av.hop_limit.val();
        self.ipck.tos.next = self.tos_qp.val();
        self.ipck.tos_cnp.next = self.tos_cnp.val();
        self.ck_add.a.next = self.ck_q.q.val();
        self.ck_add.b.next = self.ip_len_q.q.val();
        self.ip_ck.next = !self.ck_add.sum.val();
        // BTH byte 1: SE 0x80, MigReq 0, PadCnt << 4, TVer 0; byte 8: AckReq 0x80 (§9.2).
        self.bth_b1.next = bit_cast::<8, 16>(self.pad.val() << 4);
        if self.desc.se.val() {
            self.bth_b1.next = bit_cast::<8, 16>(self.pad.val() << 4) | 0x80;
        }
        self.bth_b8.next = 0.into();
        if self.desc.ackreq.val() {
            self.bth_b8.next = 0x80.into();
        }
        // The payload's place: after the BTH (54), an AETH or ImmDt/IETH (58), a RETH (70), a RETH
        // and an ImmDt (74).
        self.n_lay.next = 0.into();
        if self.desc.aeth.val() || self.desc.imm.val() {
            self.n_lay.next = 1.into();
        }
        if self.desc.reth.val() {
            self.n_lay.next = 2.into();
        }
        if self.desc.reth.val() && self.desc.imm.val() {
            self.n_lay.next = 3.into();
        }
        self.has_data.next = self.more.q.val();
        self.loaded.next = self.ipck.ok.val() || self.av.ipv6.val();

        // Output word: header bytes from the top of the register, payload realigned from the previous
        // and current words, the ICRC's four bytes zero (the inserter fills them).
        self.swap.a.next = bit_cast::<W, 1024>(self.hdr.q.val() >> self.hdr_top.val());
        self.need_dma.next = self.at_data.q.val() && self.more.q.val();
        // Payload bytes past the message end are zero: they become the pad (§9.2).
        self.cur_m.next = 0.into();
        if self.need_dma.val() {
            if self.lastw.q.val() {
                self.cur_m.next = self.pay_data.val() & self.last_wmask.q.val();
            } else {
                self.cur_m.next = self.pay_data.val();
            }
        }
        if self.p_v6.q.val() {
            if self.lay.q.val() == 3 {
                self.pay.next = (self.prev.q.val() >> self.pv3_6.val())
                    | (self.cur_m.val() << self.cu3_6.val());
            } else if self.lay.q.val() == 2 {
                self.pay.next = (self.prev.q.val() >> self.pv2_6.val())
                    | (self.cur_m.val() << self.cu2_6.val());
            } else if self.lay.q.val() == 1 {
                self.pay.next = (self.prev.q.val() >> self.pv1_6.val())
                    | (self.cur_m.val() << self.cu1_6.val());
            } else {
                self.pay.next = (self.prev.q.val() >> self.pv0_6.val())
                    | (self.cur_m.val() << self.cu0_6.val());
            }
        } else if self.lay.q.val() == 3 {
            self.pay.next =
                (self.prev.q.val() >> self.pv3.val()) | (self.cur_m.val() << self.cu3.val());
        } else if self.lay.q.val() == 2 {
            self.pay.next =
                (self.prev.q.val() >> self.pv2.val()) | (self.cur_m.val() << self.cu2.val());
        } else if self.lay.q.val() == 1 {
            self.pay.next =
                (self.prev.q.val() >> self.pv1.val()) | (self.cur_m.val() << self.cu1.val());
        } else {
            self.pay.next =
                (self.prev.q.val() >> self.pv0.val()) | (self.cur_m.val() << self.cu0.val());
        }
        self.ins.clock.next = self.clock.val();
        self.ins.in_tdata.next = self.swap.y.val() | self.pay.val();
        self.ins.in_cen.next = self.cen_q.q.val();
        self.ins.in_eoc.next = self.eoc_q.q.val();
        self.ins.in_tlast.next = self.last_q.q.val();
        self.ins.in_tkeep.next = self.ones_b.val();
        if self.last_q.q.val() {
            self.ins.in_tkeep.next = self.keep_l.q.val();
        }
        self.ins.in_v6.next = self.p_v6.q.val();
        self.ins.out_tready.next = self.tx_tready.val();
        self.tx_tdata.next = self.ins.out_tdata.val();
        self.tx_tkeep.next = self.ins.out_tkeep.val();
        self.tx_tlast.next = self.ins.out_tlast.val();
        self.tx_tvalid.next = self.ins.out_tvalid.val();
        self.tx_vlan.next = self.p_vlan.q.val();
        self.tx_qpn.next = self.p_src.q.val();
        self.tx_cnp.next = self.desc.cnp.val();
        self.tx_dscp.next = self.p_dscp.q.val();
        self.last.next = self.last_q.q.val();

        // The flags of the next beat, from its offset to the ICRC (`r_e`, signed: past the ICRC it
        // goes negative) and its place among the first beats.
        self.r_e.next = self.rem_en.q.val();
        self.n_beat.next = self.beat.q.val() + 1;
        if self.beat.q.val() == 2 {
            self.n_beat.next = 2.into();
        }
        if self.ext.q.val() {
            self.r_e.next = self.e_pos.q.val();
            self.n_beat.next = 0.into();
        }
        // ICRC over frame bytes [14, e_pos) (§7.8, annex A17): lanes before the ICRC's offset.
        self.r_pos.next = !self.r_e.val().get_bit(15) && (self.r_e.val() != 0);
        self.r_ge.next = (self.r_e.val() >> self.log_b.val()) != 0;
        self.en_hi.next = 0.into();
        if self.r_pos.val() {
            if self.r_ge.val() {
                self.en_hi.next = self.ones_b.val();
            } else {
                self.en_hi.next =
                    !(self.ones_b.val() << (self.r_e.val() & self.beat_bytes_m1.val()));
            }
        }
        self.en_lo.next = self.ones_b.val();
        if self.n_beat.val() == 0 {
            self.en_lo.next = self.lo0.val();
        }
        if self.n_beat.val() == 1 {
            self.en_lo.next = self.lo1.val();
        }

        self.f_m1.next = self.f_pos.q.val() - 1;
        self.ins.in_tvalid.next = false;
        self.pay_ready.next = false;
        self.fire.next = false;
        self.done.next = false;
        self.v4h.next = 0.into();
        self.ext_f.next = 0.into();
        self.lens.next = 0.into();
        self.ext.d.next = self.load.val() && self.loaded.val();

        if self.load.val() {
            // Ethernet II, IPv4 (RFC 791), UDP (checksum 0, allowed for RoCEv2, annex A17), BTH (§9.2);
            // the lengths and the checksum come in `ext`.
            self.v4h.next = self.hdr_fixed.val()
                | (bit_cast::<1024, 32>(self.av.dest_mac_hi.val() & 0xFFFF) << 1008)
                | (bit_cast::<1024, 32>(self.av.dest_mac_lo.val()) << 976)
                | (bit_cast::<1024, 32>(self.av.mac_hi.val() & 0xFFFF) << 960)
                | (bit_cast::<1024, 32>(self.av.mac_lo.val()) << 928)
                | (bit_cast::<1024, 8>(self.tos.val()) << 896)
                | (bit_cast::<1024, 8>(self.av.hop_limit.val()) << 840)
                | (bit_cast::<1024, 32>(self.av.ipv4.val()) << 784)
                | (bit_cast::<1024, 32>(self.av.dest_ipv4.val()) << 752)
                | (bit_cast::<1024, 32>(self.av.udp_sport.val() & 0xFFFF) << 736)
                | (bit_cast::<1024, 16>(self.av.udp_dport.val()) << 720)
                | (bit_cast::<1024, 8>(self.desc.opcode.val()) << 680)
                | (bit_cast::<1024, 8>(self.bth_b1.val()) << 672)
                | (bit_cast::<1024, 32>(self.av.dest_qpn.val() & 0xFF_FFFF) << 624)
                | (bit_cast::<1024, 8>(self.bth_b8.val()) << 616)
                | (bit_cast::<1024, 24>(self.desc.psn.val()) << 592);
            self.hdr.d.next = self.v4h.val();
            self.ck_q.d.next = self.ipck.part.val();
            if self.desc.cnp.val() {
                self.ck_q.d.next = self.ipck.part_cnp.val();
            }
            self.ip_len_q.d.next = (self.desc.plen.val() + self.k_ip.val()) & 0xFFFC;
            self.udp_len_q.d.next = (self.desc.plen.val() + self.k_udp.val()) & 0xFFFC;
            self.e_pos.d.next = ((self.desc.plen.val() + self.k_e.val()) & 0xFFFC) | 2;
            self.f_pos.d.next = ((self.desc.plen.val() + self.k_f.val()) & 0xFFFC) | 2;
            self.p_v6.d.next = self.av.ipv6.val();
            self.p_vlan.d.next = self.av.vlan.val();
            self.p_dscp.d.next = bit_cast::<6, 8>(self.tos.val() >> 2);
            self.p_src.d.next = self.desc.src.val();
            self.x_aeth.d.next = self.desc.aeth.val() && !self.desc.aack.val();
            self.x_reth.d.next = self.desc.reth.val() && !self.desc.imm.val();
            self.x_ri.d.next = self.desc.reth.val() && self.desc.imm.val();
            self.x_imm.d.next = self.desc.imm.val() && !self.desc.reth.val();
            self.x_cas.d.next = self.desc.atomic.val() && !self.desc.fetch_add.val();
            self.x_fa.d.next = self.desc.atomic.val() && self.desc.fetch_add.val();
            self.x_aack.d.next = self.desc.aack.val();
            self.x_cnp.d.next = self.desc.cnp.val();
            self.lay.d.next = self.n_lay.val();
            self.to_data.d.next = self.d0.val();
            if self.n_lay.val() == 1 {
                self.to_data.d.next = self.d1.val();
            }
            if self.n_lay.val() == 2 {
                self.to_data.d.next = self.d2.val();
            }
            if self.n_lay.val() == 3 {
                self.to_data.d.next = self.d3.val();
            }
            if self.av.ipv6.val() {
                // IPv6 (RFC 8200, RoCEv2 annex A17.4): the 40-byte header in place of IPv4's 20, its
                // traffic class the TOS byte; UDP on 20 bytes later.
                self.hdr.d.next = (self.v4h.val() & self.keep_eth.val())
                    | self.hdr6_fixed.val()
                    | (bit_cast::<1024, 8>(self.tos.val()) << 900)
                    | (bit_cast::<1024, 20>(self.av.flow_label.val()) << 880)
                    | (bit_cast::<1024, 8>(self.av.hop_limit.val()) << 848)
                    | (bit_cast::<1024, 128>(self.av.src_gid.val()) << 720)
                    | (bit_cast::<1024, 96>(self.av.dest_gid_hi.val()) << 624)
                    | (bit_cast::<1024, 32>(self.av.dest_ipv4.val()) << 592)
                    | ((self.v4h.val() & self.keep_l4.val()) >> 160);
                self.e_pos.d.next = ((self.desc.plen.val() + self.k_e6.val()) & 0xFFFC) | 2;
                self.f_pos.d.next = ((self.desc.plen.val() + self.k_f6.val()) & 0xFFFC) | 2;
                self.to_data.d.next = self.d0_6.val();
                if self.n_lay.val() == 1 {
                    self.to_data.d.next = self.d1_6.val();
                }
                if self.n_lay.val() == 2 {
                    self.to_data.d.next = self.d2_6.val();
                }
                if self.n_lay.val() == 3 {
                    self.to_data.d.next = self.d3_6.val();
                }
            }
            // Payload words: ceil(plen / B); the last one's bytes past plen masked.
            self.left.d.next =
                (self.desc.plen.val() + self.beat_bytes_m1.val()) >> self.log_b.val();
            self.more.d.next = self.desc.plen.val() != 0;
            self.lastw.d.next =
                (self.desc.plen.val() != 0) && (self.desc.plen.val() <= self.beat_bytes.val());
            self.last_wmask.d.next = self.ones_w.val();
            if (self.desc.plen.val() & self.beat_bytes_m1.val()) != 0 {
                self.last_wmask.d.next = !(self.ones_w.val()
                    << ((self.desc.plen.val() & self.beat_bytes_m1.val()) << 3));
            }
            self.prev.d.next = 0.into();
        }
        if self.ext.q.val() {
            // Each extension header at its IPv4 place (`ext_f`), moved down 20 bytes in IPv6.
            // AETH (§9.3): syndrome, MSN. RETH (§9.3): VA, R_Key, DMA length = the whole message.
            if self.x_aeth.q.val() {
                self.ext_f.next = (bit_cast::<1024, 8>(self.desc.syn.val()) << 584)
                    | (bit_cast::<1024, 24>(self.desc.msn.val()) << 560);
            }
            if self.x_reth.q.val() {
                self.ext_f.next = (bit_cast::<1024, 64>(self.desc.rva.val()) << 528)
                    | (bit_cast::<1024, 32>(self.desc.rkey.val()) << 496)
                    | (bit_cast::<1024, 32>(self.desc.rlen.val()) << 464);
            }
            // ImmDt (§9.3): after the RETH on WRITE ONLY with immediate, else right after the BTH.
            if self.x_ri.q.val() {
                self.ext_f.next = (bit_cast::<1024, 64>(self.desc.rva.val()) << 528)
                    | (bit_cast::<1024, 32>(self.desc.rkey.val()) << 496)
                    | (bit_cast::<1024, 32>(self.desc.rlen.val()) << 464)
                    | (bit_cast::<1024, 32>(self.desc.imm_data.val()) << 432);
            }
            if self.x_imm.q.val() {
                self.ext_f.next = bit_cast::<1024, 32>(self.desc.imm_data.val()) << 560;
            }
            // AtomicETH (§9.3): VA, R_Key, swap or add value, compare value.
            if self.x_cas.q.val() {
                self.ext_f.next = (bit_cast::<1024, 64>(self.desc.atomic_va.val()) << 528)
                    | (bit_cast::<1024, 32>(self.desc.rkey.val()) << 496)
                    | (bit_cast::<1024, 64>(self.desc.swap.val()) << 432)
                    | (bit_cast::<1024, 64>(self.desc.cmp.val()) << 368);
            }
            if self.x_fa.q.val() {
                self.ext_f.next = (bit_cast::<1024, 64>(self.desc.atomic_va.val()) << 528)
                    | (bit_cast::<1024, 32>(self.desc.rkey.val()) << 496)
                    | (bit_cast::<1024, 64>(self.desc.cmp.val()) << 432);
            }
            // AETH then AtomicAckETH: the original value (§9.3).
            if self.x_aack.q.val() {
                self.ext_f.next = (bit_cast::<1024, 8>(self.desc.syn.val()) << 584)
                    | (bit_cast::<1024, 24>(self.desc.msn.val()) << 560)
                    | (bit_cast::<1024, 64>(self.desc.orig.val()) << 496);
            }
            if self.x_cnp.q.val() {
                // BTH byte 4: FECN (0x80) and BECN (0x40); a CNP carries BECN.
                self.ext_f.next = bit_cast::<1024, 8>(bits::<8>(0x40)) << 648;
            }
            // IPv4: total length, UDP length, header checksum (IPv6 has none: its payload length is
            // the UDP length).
            self.lens.next = (bit_cast::<1024, 16>(self.ip_len_q.q.val()) << 880)
                | (bit_cast::<1024, 16>(self.ip_ck.val()) << 816)
                | (bit_cast::<1024, 16>(self.udp_len_q.q.val()) << 704);
            self.hdr.d.next = self.hdr.q.val() | self.ext_f.val() | self.lens.val();
            if self.p_v6.q.val() {
                self.lens.next = (bit_cast::<1024, 16>(self.udp_len_q.q.val()) << 864)
                    | (bit_cast::<1024, 16>(self.udp_len_q.q.val()) << 544);
                self.hdr.d.next = self.hdr.q.val() | (self.ext_f.val() >> 160) | self.lens.val();
            }
            // The first beat's flags; the payload's first word after `to_data` beats.
            self.rem_en.d.next = self.e_pos.q.val() - self.beat_bytes.val();
            // The frame's beats after the first: ceil(f_pos / B) - 1; the last one's enables.
            self.beats.d.next = self.f_m1.val() >> self.log_b.val();
            self.keep_l.d.next = self.ones_b.val();
            if (self.f_pos.q.val() & self.beat_bytes_m1.val()) != 0 {
                self.keep_l.d.next =
                    !(self.ones_b.val() << (self.f_pos.q.val() & self.beat_bytes_m1.val()));
            }
            self.last_q.d.next = self.f_pos.q.val() <= self.beat_bytes.val();
            self.beat.d.next = 0.into();
            self.at_data.d.next = self.to_data.q.val() == 0;
            self.cen_q.d.next = self.en_lo.val() & self.en_hi.val();
            self.eoc_q.d.next =
                self.r_pos.val() && (!self.r_ge.val() || (self.r_e.val() == self.beat_bytes.val()));
        }
        if self.emit.val() {
            self.ins.in_tvalid.next = !self.need_dma.val() || self.pay_valid.val();
            self.pay_ready.next = self.need_dma.val() && self.ins.in_tready.val();
            self.fire.next =
                self.ins.in_tready.val() && (!self.need_dma.val() || self.pay_valid.val());
            if self.fire.val() {
                self.hdr.d.next = self.hdr.q.val() << self.w_bits.val();
                // After the last payload word `prev` becomes zero, so the flush word carries no stale
                // bytes.
                self.prev.d.next = self.cur_m.val();
                if !self.at_data.q.val() {
                    self.to_data.d.next = self.to_data.q.val() - 1;
                    self.at_data.d.next = self.to_data.q.val() == 1;
                }
                if self.need_dma.val() {
                    self.left.d.next = self.left.q.val() - 1;
                    self.more.d.next = self.left.q.val() != 1;
                    self.lastw.d.next = self.left.q.val() == 2;
                }
                self.rem_en.d.next = self.rem_en.q.val() - self.beat_bytes.val();
                self.beats.d.next = self.beats.q.val() - 1;
                self.beat.d.next = self.n_beat.val();
                self.cen_q.d.next = self.en_lo.val() & self.en_hi.val();
                self.eoc_q.d.next = self.r_pos.val()
                    && (!self.r_ge.val() || (self.r_e.val() == self.beat_bytes.val()));
                self.last_q.d.next = self.beats.q.val() == 1;
                self.done.next = self.last_q.q.val();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prim::test_rng;
    use rocenic_proto::opcode::{self, hdr};
    use rocenic_proto::wire::{
        AethRepr, AtomicAckEthRepr, AtomicEthRepr, BthRepr, CnpPadRepr, EthernetRepr, ExtHeaders,
        Frame, IethRepr, ImmDtRepr, IpRepr, Ipv4Repr, Ipv6Repr, RethRepr, UdpRepr, ROCEV2_UDP_PORT,
    };

    /// The address vector the frames go out with.
    #[derive(Clone, Copy)]
    struct Av {
        mac: u64,
        dest_mac: u64,
        ipv4: u32,
        dest_ipv4: u32,
        ipv6: bool,
        src_gid: u128,
        dest_gid_hi: u128,
        dest_qpn: u32,
        sport: u16,
        dport: u16,
        hop: u8,
        flow: u32,
        dscp: u8,
        cnp_dscp: u8,
        ecn: bool,
    }

    /// One packet: its opcode (the extension headers follow from it), fields, payload.
    #[derive(Clone)]
    struct Pkt {
        opcode: u8,
        psn: u32,
        se: bool,
        ackreq: bool,
        syn: u8,
        msn: u32,
        rva: u64,
        rkey: u32,
        rlen: u32,
        imm: u32,
        swap: u64,
        cmp: u64,
        orig: u64,
        payload: Vec<u8>,
    }

    fn pkt(opcode: u8, n: usize) -> Pkt {
        Pkt {
            opcode,
            psn: 0xAB_CDEF,
            se: false,
            ackreq: true,
            syn: 0x1F,
            msn: 0x12_3456,
            rva: 0x1122_3344_5566_7788,
            rkey: 0x99AA_BBCC,
            rlen: 0x0001_2345,
            imm: 0xDEAD_BEEF,
            swap: 0x0102_0304_0506_0708,
            cmp: 0x1112_1314_1516_1718,
            orig: 0x2122_2324_2526_2728,
            payload: (0..n).map(|i| (i * 7 + 3) as u8).collect(),
        }
    }

    /// The frame as the wire model builds it: every field from the packet and the vector, lengths,
    /// checksum and ICRC sealed.
    fn expected(p: &Pkt, a: &Av) -> Vec<u8> {
        let info = opcode::info(p.opcode).unwrap();
        let has = |h| info.headers & h != 0;
        let mac = |m: u64| -> [u8; 6] { m.to_be_bytes()[2..].try_into().unwrap() };
        let cnp = has(hdr::CNP_PAD);
        let tos = ((if cnp { a.cnp_dscp } else { a.dscp }) << 2) | if a.ecn { 2 } else { 0 };
        let ip = if a.ipv6 {
            let mut dst = [0u8; 16];
            dst[..12].copy_from_slice(&a.dest_gid_hi.to_be_bytes()[4..]);
            dst[12..].copy_from_slice(&a.dest_ipv4.to_be_bytes());
            IpRepr::V6(Ipv6Repr {
                traffic_class: tos,
                flow_label: a.flow,
                payload_len: 0,
                next_header: IP_PROTO_UDP,
                hop_limit: a.hop,
                src: a.src_gid.to_be_bytes(),
                dst,
            })
        } else {
            IpRepr::V4(Ipv4Repr {
                tos,
                total_len: 0,
                ident: 0,
                dont_frag: true,
                ttl: a.hop,
                protocol: IP_PROTO_UDP,
                checksum: 0,
                src: a.ipv4.to_be_bytes(),
                dst: a.dest_ipv4.to_be_bytes(),
            })
        };
        let ext = ExtHeaders {
            reth: has(hdr::RETH).then_some(RethRepr {
                va: p.rva,
                rkey: p.rkey,
                dma_len: p.rlen,
            }),
            atomic_eth: has(hdr::ATOMIC_ETH).then_some(AtomicEthRepr {
                va: p.rva,
                rkey: p.rkey,
                swap_add: if p.opcode == opcode::RC_FETCH_ADD {
                    p.cmp
                } else {
                    p.swap
                },
                compare: if p.opcode == opcode::RC_FETCH_ADD {
                    0
                } else {
                    p.cmp
                },
            }),
            aeth: has(hdr::AETH).then_some(AethRepr {
                syndrome: p.syn,
                msn: p.msn,
            }),
            atomic_ack_eth: has(hdr::ATOMIC_ACK_ETH)
                .then_some(AtomicAckEthRepr { orig_data: p.orig }),
            imm_dt: has(hdr::IMM_DT).then_some(ImmDtRepr { imm: p.imm }),
            ieth: has(hdr::IETH).then_some(IethRepr { rkey: p.imm }),
            cnp_pad: cnp.then_some(CnpPadRepr { reserved: [0; 16] }),
            ..Default::default()
        };
        let mut f = Frame {
            eth: EthernetRepr {
                dst: mac(a.dest_mac),
                src: mac(a.mac),
                ethertype: if a.ipv6 {
                    ETHERTYPE_IPV6
                } else {
                    ETHERTYPE_IPV4
                },
            },
            vlan: None,
            ip,
            udp: UdpRepr {
                src_port: a.sport,
                dst_port: a.dport,
                length: 0,
                checksum: 0,
            },
            bth: BthRepr {
                opcode: p.opcode,
                solicited: p.se,
                mig_req: false,
                pad_count: 0,
                tver: 0,
                pkey: DEFAULT_PKEY,
                fecn: false,
                becn: cnp,
                resv6a: 0,
                dest_qp: a.dest_qpn,
                ack_req: p.ackreq,
                resv7: 0,
                psn: p.psn,
            },
            ext,
            payload: p.payload.clone(),
            pad: vec![0; (4 - p.payload.len() % 4) % 4],
            icrc: 0,
            trailer: vec![],
        };
        f.seal().unwrap();
        f.emit()
    }

    fn drive_av<const W: usize, const B: usize>(x: &mut FrameBuild<W, B>, a: &Av) {
        x.av.mac_lo.next = (a.mac & 0xFFFF_FFFF).into();
        x.av.mac_hi.next = (a.mac >> 32).into();
        x.av.dest_mac_lo.next = (a.dest_mac & 0xFFFF_FFFF).into();
        x.av.dest_mac_hi.next = (a.dest_mac >> 32).into();
        x.av.ipv4.next = (a.ipv4 as u64).into();
        x.av.dest_ipv4.next = (a.dest_ipv4 as u64).into();
        x.av.ipv6.next = a.ipv6;
        x.av.src_gid.next = bit_cast::<128, 64>((a.src_gid as u64).into())
            | (bit_cast::<128, 64>(((a.src_gid >> 64) as u64).into()) << 64);
        x.av.dest_gid_hi.next = bit_cast::<96, 64>((a.dest_gid_hi as u64).into())
            | (bit_cast::<96, 64>(((a.dest_gid_hi >> 64) as u64).into()) << 64);
        x.av.dest_qpn.next = (a.dest_qpn as u64).into();
        x.av.udp_sport.next = (a.sport as u64).into();
        x.av.udp_dport.next = (a.dport as u64).into();
        x.av.hop_limit.next = (a.hop as u64).into();
        x.av.flow_label.next = (a.flow as u64).into();
        x.av.dscp.next = (a.dscp as u64).into();
        x.av.cnp_dscp.next = (a.cnp_dscp as u64).into();
        x.av.ecn.next = a.ecn;
        x.av.vlan.next = 5.into();
    }

    fn drive_desc<const W: usize, const B: usize>(x: &mut FrameBuild<W, B>, p: &Pkt) {
        let info = opcode::info(p.opcode).unwrap();
        let has = |h| info.headers & h != 0;
        let d = &mut x.desc;
        d.opcode.next = (p.opcode as u64).into();
        d.psn.next = (p.psn as u64).into();
        d.plen.next = (p.payload.len() as u64).into();
        // An atomic acknowledge carries its AETH as READ responses do (the engine sets both).
        d.aeth.next = has(hdr::AETH);
        d.reth.next = has(hdr::RETH);
        d.imm.next = has(hdr::IMM_DT) || has(hdr::IETH);
        d.atomic.next = has(hdr::ATOMIC_ETH);
        d.aack.next = has(hdr::ATOMIC_ACK_ETH);
        d.cnp.next = has(hdr::CNP_PAD);
        d.se.next = p.se;
        d.ackreq.next = p.ackreq;
        d.syn.next = (p.syn as u64).into();
        d.msn.next = (p.msn as u64).into();
        d.rva.next = p.rva.into();
        d.atomic_va.next = p.rva.into();
        d.rkey.next = (p.rkey as u64).into();
        d.rlen.next = (p.rlen as u64).into();
        d.imm_data.next = (p.imm as u64).into();
        d.swap.next = p.swap.into();
        d.cmp.next = p.cmp.into();
        d.fetch_add.next = p.opcode == opcode::RC_FETCH_ADD;
        d.orig.next = p.orig.into();
        d.src.next = 0x2A.into();
    }

    /// Sends each packet through load, ext and emit with the payload arriving and the MAC taking
    /// beats on a seeded pattern of stalls, and compares every frame with the wire model's bytes.
    fn frames_match_the_wire_model<const W: usize, const B: usize>(cases: Vec<(Pkt, Av)>) {
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<FrameBuild<W, B>>| {
            x.clock.next = !x.clock.val()
        });
        sim.add_testbench(move |mut sim: Sim<FrameBuild<W, B>>| {
            let mut x = sim.init()?;
            // Three beats in four offered or taken.
            let mut rng = test_rng(0x2545_F491_4F6C_DD1D);
            let mut coin = move || rng() & 3 != 0;
            for (k, (p, a)) in cases.iter().enumerate() {
                drive_av(&mut x, a);
                drive_desc(&mut x, p);
                // Load until the header is right (the vector's checksum settles), then ext.
                x.load.next = true;
                loop {
                    x = sim.wait(1, x)?;
                    let taken = x.loaded.val();
                    wait_clock_cycle!(sim, clock, x);
                    if taken {
                        break;
                    }
                }
                x.load.next = false;
                wait_clock_cycle!(sim, clock, x);
                sim_assert_eq!(sim, x.has_data.val(), !p.payload.is_empty(), x);
                // Emit: the payload as the host read gives it, from lane 0, the bytes past its end
                // junk (the builder masks them into the pad).
                let mut words: Vec<Bits<W>> = Vec::new();
                for c in p.payload.chunks(B) {
                    let mut w: Bits<W> = 0.into();
                    for l in 0..B {
                        let b = *c.get(l).unwrap_or(&0xA5) as u64;
                        w = w | (bit_cast::<W, 8>(b.into()) << (8 * l) as u64);
                    }
                    words.push(w);
                }
                let mut got: Vec<u8> = Vec::new();
                let mut done = 0;
                let mut last = false;
                let mut cycles = 0;
                x.emit.next = true;
                while !last {
                    x.pay_valid.next = !words.is_empty() && coin();
                    x.pay_data.next = words.first().copied().unwrap_or(0.into());
                    x.tx_tready.next = coin();
                    x = sim.wait(1, x)?;
                    if x.pay_valid.val() && x.pay_ready.val() {
                        words.remove(0);
                    }
                    if x.emit.val() && x.done.val() {
                        done += 1;
                    }
                    if x.tx_tvalid.val() && x.tx_tready.val() {
                        let d = x.tx_tdata.val();
                        let keep = x.tx_tkeep.val().to_u64();
                        for l in 0..B {
                            if keep >> l & 1 != 0 {
                                got.push((d >> (8 * l) as u64).get_bits::<8>(0).to_u64() as u8);
                            }
                        }
                        last = x.tx_tlast.val();
                    }
                    let end = x.emit.val() && x.done.val();
                    wait_clock_cycle!(sim, clock, x);
                    if end {
                        x.emit.next = false;
                    }
                    cycles += 1;
                    sim_assert!(sim, cycles < 2000, x);
                }
                x.emit.next = false;
                let want = expected(p, a);
                if got != want {
                    println!(
                        "case {k} (opcode {:#x}):\n got  {got:02x?}\n want {want:02x?}",
                        p.opcode
                    );
                }
                sim_assert_eq!(sim, done, 1, x);
                sim_assert!(sim, words.is_empty(), x);
                sim_assert!(sim, got == want, x);
                sim_assert_eq!(sim, x.tx_qpn.val().to_u64(), 0x2A, x);
                sim_assert_eq!(sim, x.tx_cnp.val(), p.opcode == opcode::CNP, x);
            }
            sim.done(x)
        });
        sim.run(Box::new(FrameBuild::<W, B>::default()), 1_000_000)
            .unwrap();
    }

    fn av4() -> Av {
        Av {
            mac: 0x0200_0000_0001,
            dest_mac: 0x0200_0000_0002,
            ipv4: 0x0A00_0001,
            dest_ipv4: 0x0A00_0002,
            ipv6: false,
            src_gid: 0xFE80_0000_0000_0000_0000_0000_0000_0001,
            dest_gid_hi: 0xFE80_0000_0000_0000_0000_0000,
            dest_qpn: 0x00_0123,
            sport: 0xC000,
            dport: ROCEV2_UDP_PORT,
            hop: 64,
            flow: 0,
            dscp: 26,
            cnp_dscp: 48,
            ecn: true,
        }
    }

    fn cases() -> Vec<(Pkt, Av)> {
        let v4 = av4();
        let v6 = Av {
            ipv6: true,
            flow: 0xABCDE,
            ecn: false,
            src_gid: 0x2001_0DB8_0000_0000_0000_0000_0000_0001,
            dest_gid_hi: 0x2001_0DB8_0000_0000_0000_0000,
            ..v4
        };
        let mut se = pkt(opcode::RC_SEND_ONLY, 100);
        se.se = true;
        vec![
            (pkt(opcode::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 37), v4),
            (pkt(opcode::RC_ACKNOWLEDGE, 0), v4),
            (pkt(opcode::RC_COMPARE_SWAP, 0), v4),
            (pkt(opcode::RC_FETCH_ADD, 0), v4),
            (se.clone(), v6),
            (pkt(opcode::CNP, 0), v4),
            (pkt(opcode::RC_RDMA_READ_RESPONSE_FIRST, 64), v4),
            (pkt(opcode::RC_RDMA_WRITE_FIRST, 130), v6),
            (pkt(opcode::RC_ATOMIC_ACKNOWLEDGE, 0), v4),
            (pkt(opcode::RC_SEND_LAST_WITH_INVALIDATE, 5), v4),
            (pkt(opcode::RC_RDMA_WRITE_MIDDLE, 256), v4),
            (pkt(opcode::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 71), v6),
            (pkt(opcode::RC_SEND_LAST_WITH_IMMEDIATE, 1), v6),
        ]
    }

    #[test]
    fn frames_match_the_wire_model_64() {
        frames_match_the_wire_model::<64, 8>(cases());
    }

    #[test]
    fn frames_match_the_wire_model_512() {
        frames_match_the_wire_model::<512, 64>(cases());
    }

    #[test]
    fn synthesizes() {
        let mut uut = FrameBuild::<64, 8>::default();
        uut.connect_all();
        yosys_validate("frame_build", &generate_verilog(&uut)).unwrap();
    }
}
