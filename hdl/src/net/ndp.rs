//! IPv6 neighbour discovery responder (RFC 4861), the IPv6 counterpart of `arp.rs`: watches every frame
//! the MAC receives and answers a Neighbor Solicitation for one of the port's GID table addresses with a
//! solicited Neighbor Advertisement from the port's MAC, so that a peer's IPv6 stack (and with it Linux
//! rdma_rxe's address resolution for RoCEv2 over IPv6) can reach the NIC.
//!
//! A solicitation is answered when (RFC 4861 §7.1.1, §7.2.3): it is Ethernet II to the port's MAC or to
//! the target's solicited-node multicast MAC (33:33:ff and the target's low 24 bits, RFC 2464 §7), IPv6
//! with ICMPv6 as next header (no extension headers), hop limit 255, type 135 code 0, its target a
//! non-empty GID entry, its destination the target itself or the target's solicited-node multicast
//! address (ff02::1:ffXX:XXXX, RFC 4291 §2.7.1), and its ICMPv6 checksum (RFC 4443 §2.3, over the
//! pseudo-header of RFC 8200 §8.1) is good. The ICMPv6 message must be the 24 bytes of an NS alone or
//! those and one 8-byte option (option length 1): frames of 78 and 86 bytes, which is what Linux sends.
//!
//! Counted in `requests_inc` (RX_NDP_SOLICITATIONS) but not answered:
//! - duplicate address detection probes (source ::, §7.2.4): a node checking that the address is free;
//!   answering would be a claim on an address being configured, and the reply would go to all-nodes;
//! - a solicitation with more options than one (ICMPv6 payload over 32 bytes): its checksum covers bytes
//!   past the 128 captured ones or would need a sum over a variable length, so it is not verified and a
//!   bad frame must not get an answer; the asker's next NS (Linux sends one option) gets one;
//! - one that arrives while an advertisement is still being sent: the asker repeats its solicitation.
//!
//! The advertisement (§4.4, §7.2.4) goes to the solicitation's source MAC and IPv6 address, from the port's
//! MAC and the target address: traffic class and flow label 0, hop limit 255, type 136, Solicited and
//! Override set, Router clear, and a target link-layer address option with the port's MAC: 86 bytes, no
//! FCS (the MAC adds it), sent between two RoCE frames by the top's transmit arbiter.
//!
//! Four stages, each a few LUT levels, one frame per cycle if frames came that fast: (A) the cycle after the
//! frame's last beat, every check is registered as a flag of its own and the two checksums' words are
//! reduced to carry-save pairs ([`Csa16`]) in groups, all from the capture register itself
//! (`FrameHeadN::head`: no multiplexer puts the last beat into a combinational copy, so the capture costs
//! no LUT per bit); (B) the flags are combined and each checksum becomes one pair; (C) the solicitation's
//! pair is checked without a carry and counted, the advertisement's added; (D) its end-around carry is
//! added and the advertisement loaded, four cycles after the solicitation's last beat. Each stage keeps
//! its own copy of the reply's fields, so a solicitation right behind another does not change the first's
//! reply.
use super::short_frame::{FrameHeadN, FrameTx};
use crate::prim::byteswap::be_shift;
use crate::prim::csa16::{fold, Csa16};
use rocenic_proto::wire::ndp_frame as N;
use rust_hdl::prelude::*;

/// Bytes of the head and frame registers: the 86 bytes of an NS or NA with one option, rounded up to
/// a multiple of the widest beat.
pub const REG_BYTES: usize = 128;

#[derive(LogicBlock)]
pub struct NdpResponder<const W: usize, const B: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub enable: Signal<In, bool>,
    pub mac_lo: Signal<In, Bits<32>>,
    pub mac_hi: Signal<In, Bits<32>>,
    /// The port GID table (big-endian, byte 0 of the address in bits 127..120; all zero = empty).
    pub gid0: Signal<In, Bits<128>>,
    pub gid1: Signal<In, Bits<128>>,
    pub gid2: Signal<In, Bits<128>>,
    pub gid3: Signal<In, Bits<128>>,
    /// The MAC receive stream, observed (a beat counts when `rx_fire`).
    pub rx_tdata: Signal<In, Bits<W>>,
    pub rx_tlast: Signal<In, bool>,
    pub rx_fire: Signal<In, bool>,
    /// With the last beat: the MAC marked the frame bad (a bad FCS), or its 802.1Q tag is not the port's;
    /// it is ignored.
    pub rx_tuser: Signal<In, bool>,
    /// With the last beat: the VID the solicitation came tagged with (0 = untagged).
    pub rx_vid: Signal<In, Bits<12>>,
    /// With the advertisement: the VLAN it leaves on, its solicitation's (0 = untagged).
    pub tx_vid: Signal<Out, Bits<12>>,
    /// The advertisement, as an AXI-Stream source.
    pub tx_tdata: Signal<Out, Bits<W>>,
    pub tx_tkeep: Signal<Out, Bits<B>>,
    pub tx_tlast: Signal<Out, bool>,
    pub tx_tvalid: Signal<Out, bool>,
    pub tx_tready: Signal<In, bool>,
    pub requests_inc: Signal<Out, bool>,
    pub replies_inc: Signal<Out, bool>,
    rx: FrameHeadN<W, 1024>,
    tx: FrameTx<W, B, 1024, { N::LEN_LLA }>,
    /// Stage A (the cycle after the frame): the checks as registered flags, the checksums' words
    /// reduced by carry-save trees to pairs (the solicitation's in four groups, the advertisement's
    /// in two: its target twice is the target's words rotated by a bit), the reply's fields.
    ns_g1: Csa16<144>,
    ns_g2: Csa16<144>,
    ns_g3: Csa16<128>,
    ns_g4: Csa16<64>,
    na_g1: Csa16<144>,
    na_g2: Csa16<128>,
    a_v: DFF<bool>,
    a_hdr_ok: DFF<bool>,
    a_hit0: DFF<bool>,
    a_hit1: DFF<bool>,
    a_hit2: DFF<bool>,
    a_hit3: DFF<bool>,
    a_dip_ok: DFF<bool>,
    a_dst_ok: DFF<bool>,
    a_len_ok: DFF<bool>,
    a_long: DFF<bool>,
    a_dad: DFF<bool>,
    a_opt: DFF<Bits<64>>,
    a_ns: DFF<Bits<128>>,
    a_na: DFF<Bits<64>>,
    a_vid: DFF<Bits<12>>,
    a_smac: DFF<Bits<48>>,
    a_sip: DFF<Bits<128>>,
    a_target: DFF<Bits<128>>,
    /// Stage B: a solicitation for us (checksum still to check), each checksum as one pair.
    ns_b: Csa16<192>,
    na_b: Csa16<112>,
    b_v: DFF<bool>,
    b_long: DFF<bool>,
    b_dad: DFF<bool>,
    b_ns_s: DFF<Bits<16>>,
    b_ns_c: DFF<Bits<16>>,
    b_na_s: DFF<Bits<16>>,
    b_na_c: DFF<Bits<16>>,
    b_vid: DFF<Bits<12>>,
    b_smac: DFF<Bits<48>>,
    b_sip: DFF<Bits<128>>,
    b_target: DFF<Bits<128>>,
    /// Stage C: the solicitation checked and counted; an advertisement to send, its checksum's sum.
    c_load: DFF<bool>,
    c_na_t: DFF<Bits<32>>,
    c_vid: DFF<Bits<12>>,
    c_smac: DFF<Bits<48>>,
    c_sip: DFF<Bits<128>>,
    c_target: DFF<Bits<128>>,
    vid_last: DFF<Bits<12>>,
    vid_rep: DFF<Bits<12>>,
    f_dst: Signal<Local, Bits<48>>,
    f_smac: Signal<Local, Bits<48>>,
    f_type: Signal<Local, Bits<16>>,
    f_vtc: Signal<Local, Bits<8>>,
    f_plen: Signal<Local, Bits<16>>,
    f_nh: Signal<Local, Bits<8>>,
    f_hop: Signal<Local, Bits<8>>,
    f_sip: Signal<Local, Bits<128>>,
    f_dip: Signal<Local, Bits<128>>,
    f_icmp: Signal<Local, Bits<16>>,
    f_target: Signal<Local, Bits<128>>,
    f_opt_len: Signal<Local, Bits<8>>,
    low24: Signal<Local, Bits<32>>,
    sn_ip: Signal<Local, Bits<128>>,
    sn_mac: Signal<Local, Bits<48>>,
    my_mac: Signal<Local, Bits<48>>,
    len_ok: Signal<Local, bool>,
    long: Signal<Local, bool>,
    f_icmp_head: Signal<Local, Bits<64>>,
    f_opt: Signal<Local, Bits<64>>,
    hdr_ok: Signal<Local, bool>,
    target_x2: Signal<Local, Bits<128>>,
    na_f: Signal<Local, Bits<32>>,
    ns_ok: Signal<Local, bool>,
    na_ck: Signal<Local, Bits<16>>,
    sn_prefix: Constant<Bits<128>>,
    mc_prefix: Constant<Bits<48>>,
    /// The advertisement's constant words in its checksum: type and code, flags, option type and length,
    /// and the pseudo-header's length (32) and next header (58).
    na_const: Constant<Bits<16>>,
    /// Bit 0 of every 16-bit word.
    word_lsb: Constant<Bits<128>>,
    sh_dst: Constant<Bits<16>>,
    sh_src: Constant<Bits<16>>,
    sh_type: Constant<Bits<16>>,
    sh_vtc: Constant<Bits<16>>,
    sh_plen: Constant<Bits<16>>,
    sh_nh: Constant<Bits<16>>,
    sh_hop: Constant<Bits<16>>,
    sh_sip: Constant<Bits<16>>,
    sh_dip: Constant<Bits<16>>,
    sh_csum: Constant<Bits<16>>,
    sh_target: Constant<Bits<16>>,
    sh_opt_len: Constant<Bits<16>>,
    sh_lla: Constant<Bits<16>>,
    sh_icmp_head: Constant<Bits<16>>,
    sh_opt: Constant<Bits<16>>,
    /// The advertisement's constant fields: EtherType, version, payload length, next header, hop limit,
    /// type, flags, option type and length.
    fixed: Constant<Bits<1024>>,
}

impl<const W: usize, const B: usize> Default for NdpResponder<W, B> {
    fn default() -> Self {
        let c16 = |v: u64| Constant::new(v.into());
        let sh = |off: usize, len: usize| c16(be_shift(REG_BYTES, off, len));
        let field = |v: u64, off: usize, len: usize| -> Bits<1024> {
            bit_cast::<1024, 64>(v.into()) << be_shift(REG_BYTES, off, len)
        };
        let fixed = field(N::ETHERTYPE as u64, 12, 2)
            | field(0x60, N::IP_VERSION_TC, 1)
            | field(N::MSG_LEN_LLA as u64, N::IP_PAYLOAD_LEN, 2)
            | field(N::NEXT_HEADER_ICMPV6 as u64, N::IP_NEXT_HEADER, 1)
            | field(N::HOP_LIMIT as u64, N::IP_HOP_LIMIT, 1)
            | field(N::TYPE_NA as u64, N::ICMP_TYPE, 1)
            | field(N::NA_FLAGS_SOLICITED_OVERRIDE as u64, N::FLAGS, 4)
            | field(N::OPT_TARGET_LLA as u64, N::OPT_TYPE, 1)
            | field(1, N::OPT_LEN, 1);
        let na_const = ((N::TYPE_NA as u32) << 8)
            + (N::NA_FLAGS_SOLICITED_OVERRIDE >> 16)
            + ((N::OPT_TARGET_LLA as u32) << 8 | 1)
            + N::MSG_LEN_LLA as u32
            + N::NEXT_HEADER_ICMPV6 as u32;
        let sn_prefix = (bit_cast::<128, 64>(0xFF02_0000_0000_0000_u64.into()) << 64)
            | bit_cast::<128, 64>(0x0000_0001_FF00_0000_u64.into());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            mac_lo: Default::default(),
            mac_hi: Default::default(),
            gid0: Default::default(),
            gid1: Default::default(),
            gid2: Default::default(),
            gid3: Default::default(),
            rx_tdata: Default::default(),
            rx_tlast: Default::default(),
            rx_fire: Default::default(),
            rx_tuser: Default::default(),
            rx_vid: Default::default(),
            tx_vid: Default::default(),
            tx_tdata: Default::default(),
            tx_tkeep: Default::default(),
            tx_tlast: Default::default(),
            tx_tvalid: Default::default(),
            tx_tready: Default::default(),
            requests_inc: Default::default(),
            replies_inc: Default::default(),
            rx: Default::default(),
            tx: Default::default(),
            ns_g1: Default::default(),
            ns_g2: Default::default(),
            ns_g3: Default::default(),
            ns_g4: Default::default(),
            na_g1: Default::default(),
            na_g2: Default::default(),
            a_v: Default::default(),
            a_hdr_ok: Default::default(),
            a_hit0: Default::default(),
            a_hit1: Default::default(),
            a_hit2: Default::default(),
            a_hit3: Default::default(),
            a_dip_ok: Default::default(),
            a_dst_ok: Default::default(),
            a_len_ok: Default::default(),
            a_long: Default::default(),
            a_dad: Default::default(),
            a_opt: Default::default(),
            a_ns: Default::default(),
            a_na: Default::default(),
            a_vid: Default::default(),
            a_smac: Default::default(),
            a_sip: Default::default(),
            a_target: Default::default(),
            ns_b: Default::default(),
            na_b: Default::default(),
            b_v: Default::default(),
            b_long: Default::default(),
            b_dad: Default::default(),
            b_ns_s: Default::default(),
            b_ns_c: Default::default(),
            b_na_s: Default::default(),
            b_na_c: Default::default(),
            b_vid: Default::default(),
            b_smac: Default::default(),
            b_sip: Default::default(),
            b_target: Default::default(),
            c_load: Default::default(),
            c_na_t: Default::default(),
            c_vid: Default::default(),
            c_smac: Default::default(),
            c_sip: Default::default(),
            c_target: Default::default(),
            vid_last: Default::default(),
            vid_rep: Default::default(),
            f_dst: Default::default(),
            f_smac: Default::default(),
            f_type: Default::default(),
            f_vtc: Default::default(),
            f_plen: Default::default(),
            f_nh: Default::default(),
            f_hop: Default::default(),
            f_sip: Default::default(),
            f_dip: Default::default(),
            f_icmp: Default::default(),
            f_target: Default::default(),
            f_opt_len: Default::default(),
            low24: Default::default(),
            sn_ip: Default::default(),
            sn_mac: Default::default(),
            my_mac: Default::default(),
            len_ok: Default::default(),
            long: Default::default(),
            f_icmp_head: Default::default(),
            f_opt: Default::default(),
            hdr_ok: Default::default(),
            target_x2: Default::default(),
            na_f: Default::default(),
            ns_ok: Default::default(),
            na_ck: Default::default(),
            sn_prefix: Constant::new(sn_prefix),
            mc_prefix: Constant::new(0x3333_FF00_0000_u64.into()),
            na_const: Constant::new((fold(na_const as u16, (na_const >> 16) as u16) as u64).into()),
            word_lsb: Constant::new(
                (bit_cast::<128, 64>(0x0001_0001_0001_0001_u64.into()) << 64)
                    | bit_cast::<128, 64>(0x0001_0001_0001_0001_u64.into()),
            ),
            sh_dst: sh(0, 6),
            sh_src: sh(6, 6),
            sh_type: sh(12, 2),
            sh_vtc: sh(N::IP_VERSION_TC, 1),
            sh_plen: sh(N::IP_PAYLOAD_LEN, 2),
            sh_nh: sh(N::IP_NEXT_HEADER, 1),
            sh_hop: sh(N::IP_HOP_LIMIT, 1),
            sh_sip: sh(N::IP_SRC, 16),
            sh_dip: sh(N::IP_DST, 16),
            sh_csum: sh(N::ICMP_CHECKSUM, 2),
            sh_target: sh(N::TARGET, 16),
            sh_opt_len: sh(N::OPT_LEN, 1),
            sh_lla: sh(N::OPT_LLADDR, 6),
            sh_icmp_head: sh(N::ICMP, 8),
            sh_opt: sh(N::OPT, 8),
            fixed: Constant::new(fixed),
        }
    }
}

impl<const W: usize, const B: usize> Logic for NdpResponder<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, a_v, a_hdr_ok, a_hit0, a_hit1, a_hit2, a_hit3, a_dip_ok, a_dst_ok,
            a_len_ok, a_long, a_dad, a_opt, a_ns, a_na, a_vid, a_smac, a_sip, a_target, b_v,
            b_long, b_dad, b_ns_s, b_ns_c, b_na_s, b_na_c, b_vid, b_smac, b_sip, b_target, c_load,
            c_na_t, c_vid, c_smac, c_sip, c_target, vid_last, vid_rep
        );
        self.rx.clock.next = self.clock.val();
        self.rx.reset.next = self.reset.val();
        self.tx.clock.next = self.clock.val();
        self.tx.reset.next = self.reset.val();
        self.rx.rx_tdata.next = self.rx_tdata.val();
        self.rx.rx_tlast.next = self.rx_tlast.val();
        self.rx.rx_fire.next = self.rx_fire.val();
        self.rx.rx_tuser.next = self.rx_tuser.val();
        self.my_mac.next = (bit_cast::<48, 32>(self.mac_hi.val() & 0xFFFF) << 32)
            | bit_cast::<48, 32>(self.mac_lo.val());

        // The cycle after the last beat: the solicitation's fields, checks and sums.
        self.f_dst.next = bit_cast::<48, 1024>(self.rx.head.val() >> self.sh_dst.val());
        self.f_smac.next = bit_cast::<48, 1024>(self.rx.head.val() >> self.sh_src.val());
        self.f_type.next = bit_cast::<16, 1024>(self.rx.head.val() >> self.sh_type.val());
        self.f_vtc.next = bit_cast::<8, 1024>(self.rx.head.val() >> self.sh_vtc.val());
        self.f_plen.next = bit_cast::<16, 1024>(self.rx.head.val() >> self.sh_plen.val());
        self.f_nh.next = bit_cast::<8, 1024>(self.rx.head.val() >> self.sh_nh.val());
        self.f_hop.next = bit_cast::<8, 1024>(self.rx.head.val() >> self.sh_hop.val());
        self.f_sip.next = bit_cast::<128, 1024>(self.rx.head.val() >> self.sh_sip.val());
        self.f_dip.next = bit_cast::<128, 1024>(self.rx.head.val() >> self.sh_dip.val());
        // The ICMPv6 message's first 8 bytes (type, code, checksum, flags); type and code lead.
        self.f_icmp_head.next = bit_cast::<64, 1024>(self.rx.head.val() >> self.sh_icmp_head.val());
        self.f_icmp.next = bit_cast::<16, 64>(self.f_icmp_head.val() >> 48);
        self.f_target.next = bit_cast::<128, 1024>(self.rx.head.val() >> self.sh_target.val());
        self.f_opt_len.next = bit_cast::<8, 1024>(self.rx.head.val() >> self.sh_opt_len.val());
        // Solicited-node multicast address and its MAC (RFC 4291 §2.7.1, RFC 2464 §7).
        self.low24.next = bit_cast::<32, 128>(self.f_target.val()) & 0xFF_FFFF;
        self.sn_ip.next = self.sn_prefix.val() | bit_cast::<128, 32>(self.low24.val());
        self.sn_mac.next = self.mc_prefix.val() | bit_cast::<48, 32>(self.low24.val());
        // RFC 4861 §7.1.1: hop limit 255 (it was not routed), code 0; ICMPv6 right after the header.
        self.hdr_ok.next = (self.f_type.val() == 0x86DD)
            && ((self.f_vtc.val() & 0xF0) == 0x60)
            && (self.f_nh.val() == 58)
            && (self.f_hop.val() == 255)
            && (self.f_icmp.val() == 0x8700);
        // 24 bytes, or 24 and one option of length 1 (a zero length is invalid, §7.1.1).
        self.len_ok.next =
            (self.f_plen.val() == 24) || ((self.f_plen.val() == 32) && (self.f_opt_len.val() == 1));
        self.long.next = self.f_plen.val() > 32;
        // Checksum (RFC 8200 §8.1): the addresses and the message, then the pseudo-header's length and
        // next header; without options the 8 bytes after the message are not part of it (stage B adds
        // them, masked here).
        self.f_opt.next = 0.into();
        if self.f_plen.val() != 24 {
            self.f_opt.next = bit_cast::<64, 1024>(self.rx.head.val() >> self.sh_opt.val());
        }
        self.ns_g1.a.next = bit_cast::<144, 128>(self.f_sip.val())
            | (bit_cast::<144, 16>(self.f_plen.val()) << 128);
        self.ns_g2.a.next =
            bit_cast::<144, 128>(self.f_target.val()) | (bit_cast::<144, 16>(58.into()) << 128);
        self.ns_g3.a.next = self.f_dip.val();
        self.ns_g4.a.next = self.f_icmp_head.val();
        // The advertisement's words: its source and target (both the solicitation's target: twice
        // the target is each word rotated left by one), its destination (the asker), the constants;
        // our MAC in the option joins in stage B.
        self.target_x2.next = ((self.f_target.val() << 1) & !self.word_lsb.val())
            | ((self.f_target.val() >> 15) & self.word_lsb.val());
        self.na_g1.a.next = bit_cast::<144, 128>(self.target_x2.val())
            | (bit_cast::<144, 16>(self.na_const.val()) << 128);
        self.na_g2.a.next = self.f_sip.val();

        // Stage A: every check a registered flag of its own.
        self.a_v.d.next = self.rx.done.val() && self.enable.val();
        self.a_hdr_ok.d.next = self.hdr_ok.val();
        // The target is one of our addresses (an empty entry is no address).
        self.a_hit0.d.next = (self.f_target.val() == self.gid0.val()) && (self.gid0.val() != 0);
        self.a_hit1.d.next = (self.f_target.val() == self.gid1.val()) && (self.gid1.val() != 0);
        self.a_hit2.d.next = (self.f_target.val() == self.gid2.val()) && (self.gid2.val() != 0);
        self.a_hit3.d.next = (self.f_target.val() == self.gid3.val()) && (self.gid3.val() != 0);
        self.a_dip_ok.d.next =
            (self.f_dip.val() == self.f_target.val()) || (self.f_dip.val() == self.sn_ip.val());
        self.a_dst_ok.d.next =
            (self.f_dst.val() == self.my_mac.val()) || (self.f_dst.val() == self.sn_mac.val());
        self.a_len_ok.d.next = self.len_ok.val();
        self.a_long.d.next = self.long.val();
        self.a_dad.d.next = self.f_sip.val() == 0;
        self.a_opt.d.next = self.f_opt.val();
        self.a_ns.d.next = bit_cast::<128, 16>(self.ns_g1.s.val())
            | (bit_cast::<128, 16>(self.ns_g1.c.val()) << 16)
            | (bit_cast::<128, 16>(self.ns_g2.s.val()) << 32)
            | (bit_cast::<128, 16>(self.ns_g2.c.val()) << 48)
            | (bit_cast::<128, 16>(self.ns_g3.s.val()) << 64)
            | (bit_cast::<128, 16>(self.ns_g3.c.val()) << 80)
            | (bit_cast::<128, 16>(self.ns_g4.s.val()) << 96)
            | (bit_cast::<128, 16>(self.ns_g4.c.val()) << 112);
        self.a_na.d.next = bit_cast::<64, 16>(self.na_g1.s.val())
            | (bit_cast::<64, 16>(self.na_g1.c.val()) << 16)
            | (bit_cast::<64, 16>(self.na_g2.s.val()) << 32)
            | (bit_cast::<64, 16>(self.na_g2.c.val()) << 48);
        self.a_smac.d.next = self.f_smac.val();
        self.a_sip.d.next = self.f_sip.val();
        self.a_target.d.next = self.f_target.val();

        // Stage B: a solicitation for us; each checksum's pairs (and the option, our MAC) to one pair.
        self.b_v.d.next = self.a_v.q.val()
            && self.a_hdr_ok.q.val()
            && (self.a_hit0.q.val()
                || self.a_hit1.q.val()
                || self.a_hit2.q.val()
                || self.a_hit3.q.val())
            && self.a_dip_ok.q.val()
            && self.a_dst_ok.q.val()
            && (self.a_len_ok.q.val() || self.a_long.q.val());
        self.b_long.d.next = self.a_long.q.val();
        self.b_dad.d.next = self.a_dad.q.val();
        self.ns_b.a.next = bit_cast::<192, 128>(self.a_ns.q.val())
            | (bit_cast::<192, 64>(self.a_opt.q.val()) << 128);
        self.na_b.a.next =
            bit_cast::<112, 64>(self.a_na.q.val()) | (bit_cast::<112, 48>(self.my_mac.val()) << 64);
        self.b_ns_s.d.next = self.ns_b.s.val();
        self.b_ns_c.d.next = self.ns_b.c.val();
        self.b_na_s.d.next = self.na_b.s.val();
        self.b_na_c.d.next = self.na_b.c.val();
        self.b_smac.d.next = self.a_smac.q.val();
        self.b_sip.d.next = self.a_sip.q.val();
        self.b_target.d.next = self.a_target.q.val();

        // Stage C: a good message sums to one's-complement zero (`csa16::sums_to_zero`), no carry.
        self.ns_ok.next = (self.b_ns_c.q.val() == !self.b_ns_s.q.val())
            || ((self.b_ns_s.q.val() == 0) && (self.b_ns_c.q.val() == 0))
            || ((self.b_ns_s.q.val() == 0xFFFF) && (self.b_ns_c.q.val() == 0xFFFF));
        self.requests_inc.next = self.b_v.q.val() && (self.b_long.q.val() || self.ns_ok.val());
        self.c_load.d.next =
            self.b_v.q.val() && !self.b_long.q.val() && self.ns_ok.val() && !self.b_dad.q.val();
        self.c_na_t.d.next =
            bit_cast::<32, 16>(self.b_na_s.q.val()) + bit_cast::<32, 16>(self.b_na_c.q.val());
        self.c_smac.d.next = self.b_smac.q.val();
        self.c_sip.d.next = self.b_sip.q.val();
        self.c_target.d.next = self.b_target.q.val();

        // Stage D: the advertisement's checksum (the end-around carry added), and the frame loaded.
        self.na_f.next = (self.c_na_t.q.val() & 0xFFFF) + (self.c_na_t.q.val() >> 16);
        self.na_ck.next = !bit_cast::<16, 32>(self.na_f.val());
        // The advertisement: to the asker, from us; the target is both its source and its subject.
        self.tx.load.next = self.c_load.q.val();
        self.tx.frame.next = self.fixed.val()
            | (bit_cast::<1024, 48>(self.c_smac.q.val()) << self.sh_dst.val())
            | (bit_cast::<1024, 48>(self.my_mac.val()) << self.sh_src.val())
            | (bit_cast::<1024, 128>(self.c_target.q.val()) << self.sh_sip.val())
            | (bit_cast::<1024, 128>(self.c_sip.q.val()) << self.sh_dip.val())
            | (bit_cast::<1024, 16>(self.na_ck.val()) << self.sh_csum.val())
            | (bit_cast::<1024, 128>(self.c_target.q.val()) << self.sh_target.val())
            | (bit_cast::<1024, 48>(self.my_mac.val()) << self.sh_lla.val());
        // The advertisement goes back on the solicitation's VLAN (its VID taken with the last beat).
        if self.rx_fire.val() && self.rx_tlast.val() {
            self.vid_last.d.next = self.rx_vid.val();
        }
        self.a_vid.d.next = self.vid_last.q.val();
        self.b_vid.d.next = self.a_vid.q.val();
        self.c_vid.d.next = self.b_vid.q.val();
        if self.tx.load.val() && !self.tx.busy.val() {
            self.vid_rep.d.next = self.c_vid.q.val();
        }
        self.tx_vid.next = self.vid_rep.q.val();
        self.tx_tdata.next = self.tx.tx_tdata.val();
        self.tx_tkeep.next = self.tx.tx_tkeep.val();
        self.tx_tlast.next = self.tx.tx_tlast.val();
        self.tx_tvalid.next = self.tx.tx_tvalid.val();
        self.tx.tx_tready.next = self.tx_tready.val();
        self.replies_inc.next = self.tx.sent.val();
        if self.reset.val() {
            self.a_v.d.next = false;
            self.b_v.d.next = false;
            self.c_load.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthesizes() {
        let mut uut = NdpResponder::<64, 8>::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        assert!(v.contains("module top"));
    }
}

#[cfg(test)]
mod behaviour {
    use super::*;
    use rocenic_proto::wire::ndp_frame::{self as nd, multicast_mac, solicitation, solicited_node};
    use std::sync::{Arc, Mutex};

    const MAC: [u8; 6] = [0x02, 0x52, 0x4F, 0x43, 0x45, 0x07];
    const PEER_MAC: [u8; 6] = [0x52, 0x54, 0x00, 0x12, 0x34, 0x56];
    /// fe80::5054:ff:fe12:3456, the peer's link-local address.
    const PEER_IP: [u8; 16] = [
        0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0x00, 0xFF, 0xFE, 0x12, 0x34, 0x56,
    ];
    /// The GID table: fd52:4f43:45::1, fe80::52:4fff:fe43:4507, empty, 2001:db8::3:7.
    const GIDS: [[u8; 16]; 4] = [
        [
            0xFD, 0x52, 0x4F, 0x43, 0, 0x45, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
        ],
        [
            0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x52, 0x4F, 0xFF, 0xFE, 0x43, 0x45, 0x07,
        ],
        [0; 16],
        [0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 7],
    ];

    fn bits128(a: [u8; 16]) -> Bits<128> {
        let hi = u64::from_be_bytes(a[..8].try_into().unwrap());
        let lo = u64::from_be_bytes(a[8..].try_into().unwrap());
        (bit_cast::<128, 64>(hi.into()) << 64) | bit_cast::<128, 64>(lo.into())
    }

    /// What the responder did: the frames it sent and its two counters.
    #[derive(Debug, Default)]
    struct Seen {
        frames: Vec<Vec<u8>>,
        requests: usize,
        replies: usize,
    }

    /// Feeds `frames` (each followed by its idle gap in cycles) as a W-bit stream whose bytes past a frame's
    /// end are junk, with the transmit side always ready, and records what comes out.
    fn run<const W: usize, const B: usize>(frames: Vec<(Vec<u8>, usize)>, enable: bool) -> Seen {
        let seen = Arc::new(Mutex::new(Seen::default()));
        let s2 = seen.clone();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<NdpResponder<W, B>>| {
            x.clock.next = !x.clock.val()
        });
        sim.add_testbench(move |mut sim: Sim<NdpResponder<W, B>>| {
            let mut x = sim.init()?;
            x.enable.next = enable;
            let mac = u64::from_be_bytes([0, 0, MAC[0], MAC[1], MAC[2], MAC[3], MAC[4], MAC[5]]);
            x.mac_lo.next = (mac & 0xFFFF_FFFF).into();
            x.mac_hi.next = (mac >> 32).into();
            x.gid0.next = bits128(GIDS[0]);
            x.gid1.next = bits128(GIDS[1]);
            x.gid2.next = bits128(GIDS[2]);
            x.gid3.next = bits128(GIDS[3]);
            x.tx_tready.next = true;
            // (data, last) per cycle, None when idle.
            let mut beats: Vec<Option<(Bits<W>, bool)>> = Vec::new();
            for (f, gap) in &frames {
                let n = f.len().div_ceil(B);
                for k in 0..n {
                    let mut d: Bits<W> = 0.into();
                    for l in 0..B {
                        let b = *f.get(k * B + l).unwrap_or(&0xA5) as u64;
                        d = d | (bit_cast::<W, 8>(b.into()) << (8 * l) as u64);
                    }
                    beats.push(Some((d, k + 1 == n)));
                }
                beats.extend(std::iter::repeat_n(None, *gap));
            }
            beats.extend(std::iter::repeat_n(None, 60));
            wait_clock_true!(sim, clock, x);
            let mut cur: Vec<u8> = Vec::new();
            for beat in beats {
                x.rx_fire.next = beat.is_some();
                if let Some((d, last)) = beat {
                    x.rx_tdata.next = d;
                    x.rx_tlast.next = last;
                }
                let mut s = s2.lock().unwrap();
                s.requests += x.requests_inc.val() as usize;
                s.replies += x.replies_inc.val() as usize;
                if x.tx_tvalid.val() {
                    let keep = x.tx_tkeep.val().to_u64() as u128;
                    let n = keep.count_ones() as usize;
                    assert_eq!(keep, (1u128 << n) - 1, "tkeep is contiguous from lane 0");
                    assert!(n == B || x.tx_tlast.val(), "only the last beat is partial");
                    for l in 0..n {
                        cur.push(x.tx_tdata.val().get_bits::<8>(8 * l).to_u64() as u8);
                    }
                    if x.tx_tlast.val() {
                        s.frames.push(std::mem::take(&mut cur));
                    }
                }
                drop(s);
                wait_clock_cycle!(sim, clock, x);
            }
            assert!(cur.is_empty(), "a frame without its last beat");
            sim.done(x)
        });
        let mut uut = NdpResponder::<W, B>::default();
        uut.connect_all();
        sim.run(Box::new(uut), 10_000_000).unwrap();
        let s = std::mem::take(&mut *seen.lock().unwrap());
        s
    }

    /// The one's-complement sum of the pseudo-header and `msg`, folded, is 0xFFFF: the check a receiver
    /// makes (RFC 4443 §2.3, RFC 8200 §8.1), written here without the proto crate's checksum.
    fn checksum_good(src: &[u8], dst: &[u8], msg: &[u8]) -> bool {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(src);
        bytes.extend_from_slice(dst);
        bytes.extend_from_slice(&(msg.len() as u32).to_be_bytes());
        bytes.extend_from_slice(&[0, 0, 0, 58]);
        bytes.extend_from_slice(msg);
        let mut acc: u64 = 0;
        for p in bytes.chunks(2) {
            acc += (p[0] as u64) << 8 | *p.get(1).unwrap_or(&0) as u64;
        }
        while acc > 0xFFFF {
            acc = (acc & 0xFFFF) + (acc >> 16);
        }
        acc == 0xFFFF
    }

    /// Every field of the advertisement for a solicitation from the peer for `target`.
    fn check_na(f: &[u8], target: [u8; 16]) {
        assert_eq!(f.len(), nd::LEN_LLA, "86 bytes");
        assert_eq!(&f[0..6], &PEER_MAC, "to the asker");
        assert_eq!(&f[6..12], &MAC, "from us");
        assert_eq!(&f[12..14], &[0x86, 0xDD]);
        assert_eq!(
            &f[nd::IP_VERSION_TC..nd::IP_VERSION_TC + 4],
            &[0x60, 0, 0, 0],
            "tc, flow 0"
        );
        assert_eq!(&f[nd::IP_PAYLOAD_LEN..nd::IP_PAYLOAD_LEN + 2], &[0, 32]);
        assert_eq!(f[nd::IP_NEXT_HEADER], 58);
        assert_eq!(f[nd::IP_HOP_LIMIT], 255);
        assert_eq!(&f[nd::IP_SRC..nd::IP_SRC + 16], &target, "from the target");
        assert_eq!(&f[nd::IP_DST..nd::IP_DST + 16], &PEER_IP, "to the asker");
        assert_eq!((f[nd::ICMP_TYPE], f[nd::ICMP_CODE]), (136, 0));
        assert_eq!(
            &f[nd::FLAGS..nd::FLAGS + 4],
            &[0x60, 0, 0, 0],
            "S and O, not R"
        );
        assert_eq!(&f[nd::TARGET..nd::TARGET + 16], &target);
        assert_eq!(
            (f[nd::OPT_TYPE], f[nd::OPT_LEN]),
            (2, 1),
            "target link-layer address"
        );
        assert_eq!(&f[nd::OPT_LLADDR..nd::OPT_LLADDR + 6], &MAC);
        assert!(
            checksum_good(
                &f[nd::IP_SRC..nd::IP_SRC + 16],
                &f[nd::IP_DST..nd::IP_DST + 16],
                &f[nd::ICMP..]
            ),
            "ICMPv6 checksum"
        );
        assert_ne!(&f[nd::ICMP_CHECKSUM..nd::ICMP_CHECKSUM + 2], &[0, 0]);
    }

    /// Rewrites the checksum of a frame whose ICMPv6 message runs to the end.
    fn fix_checksum(f: &mut [u8]) {
        f[nd::ICMP_CHECKSUM] = 0;
        f[nd::ICMP_CHECKSUM + 1] = 0;
        let src: [u8; 16] = f[nd::IP_SRC..nd::IP_SRC + 16].try_into().unwrap();
        let dst: [u8; 16] = f[nd::IP_DST..nd::IP_DST + 16].try_into().unwrap();
        let ck = nd::checksum(src, dst, &f[nd::ICMP..]);
        f[nd::ICMP_CHECKSUM..nd::ICMP_CHECKSUM + 2].copy_from_slice(&ck.to_be_bytes());
    }

    /// An NS from the peer for `target` to its solicited-node multicast address, with the peer's MAC as
    /// source link-layer address option (what Linux sends to resolve an address).
    fn ns_multicast(target: [u8; 16]) -> Vec<u8> {
        let sn = solicited_node(target);
        solicitation(multicast_mac(sn), PEER_MAC, PEER_IP, sn, target, true)
    }

    fn answers_and_ignores<const W: usize, const B: usize>() {
        let gap = 40;
        let mut frames = Vec::new();
        // Answered: for entry 1 to its solicited-node address; for entry 1 unicast (to the address and our
        // MAC, no option, as a reachability probe is); for entry 3.
        frames.push(ns_multicast(GIDS[1]));
        frames.push(solicitation(
            MAC, PEER_MAC, PEER_IP, GIDS[1], GIDS[1], false,
        ));
        frames.push(ns_multicast(GIDS[3]));
        // Not ours: an address not in the table, the empty entry (::), the solicited-node address of
        // another entry, another unicast MAC.
        let mut other = GIDS[0];
        other[15] = 9;
        frames.push(ns_multicast(other));
        frames.push(ns_multicast([0; 16]));
        let sn3 = solicited_node(GIDS[3]);
        frames.push(solicitation(
            multicast_mac(sn3),
            PEER_MAC,
            PEER_IP,
            sn3,
            GIDS[1],
            true,
        ));
        frames.push(solicitation(
            [2, 0, 0, 0, 0, 0x99],
            PEER_MAC,
            PEER_IP,
            GIDS[1],
            GIDS[1],
            false,
        ));
        // Malformed or not an NS: a bad checksum, hop limit 64 (routed), an NA (type 136), a zero option
        // length, IPv4's EtherType, an ARP request for nobody's address.
        let mut bad = ns_multicast(GIDS[1]);
        bad[nd::ICMP_CHECKSUM + 1] ^= 1;
        frames.push(bad);
        let mut hop = ns_multicast(GIDS[1]);
        hop[nd::IP_HOP_LIMIT] = 64;
        frames.push(hop);
        let mut na = ns_multicast(GIDS[1]);
        na[nd::ICMP_TYPE] = 136;
        fix_checksum(&mut na);
        frames.push(na);
        let mut zero_opt = ns_multicast(GIDS[1]);
        zero_opt[nd::OPT_LEN] = 0;
        fix_checksum(&mut zero_opt);
        frames.push(zero_opt);
        let mut v4 = ns_multicast(GIDS[1]);
        v4[12..14].copy_from_slice(&[0x08, 0x00]);
        frames.push(v4);
        let mut arp = rocenic_proto::wire::arp_frame::emit(
            1,
            PEER_MAC,
            [10, 0, 0, 1],
            [0xFF; 6],
            [0; 6],
            [10, 0, 0, 2],
        );
        arp.resize(60, 0);
        frames.push(arp);
        // Counted, not answered: duplicate address detection (from ::, no option), and an NS with a
        // second option (payload 40) whose checksum is not verified.
        let sn1 = solicited_node(GIDS[1]);
        frames.push(solicitation(
            multicast_mac(sn1),
            PEER_MAC,
            [0; 16],
            sn1,
            GIDS[1],
            false,
        ));
        let mut long = ns_multicast(GIDS[1]);
        long.extend_from_slice(&[14, 1, 1, 2, 3, 4, 5, 6]);
        long[nd::IP_PAYLOAD_LEN + 1] = 40;
        fix_checksum(&mut long);
        frames.push(long);

        let seen = run::<W, B>(frames.iter().cloned().map(|f| (f, gap)).collect(), true);
        assert_eq!(seen.frames.len(), 3, "W={W}: three advertisements");
        check_na(&seen.frames[0], GIDS[1]);
        check_na(&seen.frames[1], GIDS[1]);
        check_na(&seen.frames[2], GIDS[3]);
        assert_eq!((seen.requests, seen.replies), (5, 3), "W={W}: counters");

        // Disabled: nothing answered or counted.
        let seen = run::<W, B>(vec![(ns_multicast(GIDS[1]), gap)], false);
        assert!(
            seen.frames.is_empty() && seen.requests == 0,
            "W={W}: disabled"
        );

        // Back to back: the second arrives while the first advertisement is being sent.
        let seen = run::<W, B>(
            vec![(ns_multicast(GIDS[1]), 0), (ns_multicast(GIDS[0]), gap)],
            true,
        );
        assert_eq!(seen.frames.len(), 1, "W={W}: one advertisement");
        check_na(&seen.frames[0], GIDS[1]);
        assert_eq!((seen.requests, seen.replies), (2, 1), "W={W}: both counted");
    }

    #[test]
    fn answers_solicitations_for_its_addresses_at_64_bits() {
        answers_and_ignores::<64, 8>();
    }

    #[test]
    fn answers_solicitations_for_its_addresses_at_512_bits() {
        answers_and_ignores::<512, 64>();
    }
}
