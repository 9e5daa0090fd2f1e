//! Receive admission: judges a frame's headers before any of it is stored, so that a frame the port
//! does not take (not RoCEv2 for this port, a bad IPv4 header checksum, a lossy priority while the
//! buffer is full enough) costs the receive buffer no word at all.
//!
//! Beats go into a FIFO of 32 as they arrive (no ready: the input is never held up) and leave it one a
//! cycle, in order, except that a frame's first beat waits for the frame's record. The record is made
//! from the frame's first 64 bytes (`CAP_BYTES`): the capture is complete with beat
//! `CAP_BYTES / B - 1` (or the frame's last, if shorter) at T; the header checks (`net::rx_checks`)
//! give their results at T+3; every check and the priority are registered at T+4 and the record at
//! T+5, when it goes into a record FIFO. The first beat leaves at T+6 at the earliest, so the FIFO
//! holds at most the capture's beats and six more (14 at 64 bits, 7 at 512): it cannot overflow. Each
//! stage is at most 6 LUT levels at 512 bits.
//!
//! The record (`adm`) says whether to store the frame, which header check failed first (`why`),
//! whether the IPv4 header checksum failed, whether the frame is of a lossy priority refused for want
//! of room, its IP version, its priority and where its IP packet ends. What needs the whole frame
//! (its length against the IP length, the MAC's FCS, the ICRC) is the buffer's to check.
//!
//! Priority (802.1Qbb): from the DSCP through the DSCP → priority map (DSCP trust) or the 802.1Q PCP
//! (PCP trust). A frame of a lossy priority (not in `lossless`) is refused when the ring's words in
//! use (`ring_used`) and the beats ahead of it in this FIFO number `lossy_words` or more, so that
//! lossy traffic cannot take the room the lossless priorities need between their XOFF and the
//! peer's reaction.
use crate::net::rx_checks::{RxChecks, CAP_BYTES};
use crate::prim::slot_fill::SlotFill;
use rust_hdl::prelude::*;

/// The first check a frame fails, as the buffer's `drop_reason` gives it (docs/ethernet.md).
pub mod why {
    pub const DST_MAC: u64 = 0;
    pub const ETHERTYPE: u64 = 1;
    pub const IP_HEADER: u64 = 2;
    pub const DST_IP: u64 = 3;
    pub const UDP_PORT: u64 = 4;
    pub const LENGTH: u64 = 5;
    pub const DISABLED: u64 = 6;
    pub const VLAN: u64 = 7;
}

/// A frame's record, as `out_rec` gives it with the frame's first beat: bit positions.
pub mod adm {
    /// Store the frame: its headers pass, its checksum holds and it is admitted.
    pub const WRITE: usize = 0;
    /// A header check failed, `WHY` the first.
    pub const HDR_BAD: usize = 1;
    pub const CSUM_BAD: usize = 2;
    /// Of a lossy priority while the buffer was full enough.
    pub const LOSSY: usize = 3;
    pub const V6: usize = 4;
    /// The priority, 3 bits.
    pub const PRIO: usize = 5;
    /// The first failed check, 3 bits.
    pub const WHY: usize = 8;
    /// The frame byte after the IP packet, 16 bits.
    pub const IP_END: usize = 16;
}

/// Cycles from the beat that completes a frame's capture (its beat `CAP_BYTES / B - 1`, or its last)
/// to the release of its first beat.
pub const RELEASE: usize = 6;

/// log2 of the FIFOs' depth.
const FA: usize = 5;

#[derive(LogicBlock)]
pub struct RxAdmit<const W: usize, const B: usize, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    /// The port takes RoCEv2 frames (else every frame fails as "disabled").
    pub enable: Signal<In, bool>,
    /// Priority from the DSCP (`true`) or from the PCP.
    pub trust_dscp: Signal<In, bool>,
    /// DSCP d's priority at bits 4d..4d+2 (the DSCP_PRIO_MAP_n registers side by side).
    pub dscp_map: Signal<In, Bits<256>>,
    /// The lossless priorities (PFC_ENABLE, bit p = priority p); every other is lossy.
    pub lossless: Signal<In, Bits<8>>,
    /// Words in use in the buffer's ring (a cycle late is fine).
    pub ring_used: Signal<In, Bits<A>>,
    /// Words in use and ahead in this FIFO from which lossy frames are refused; 0 = never.
    pub lossy_words: Signal<In, Bits<A>>,
    pub mac_lo: Signal<In, Bits<32>>,
    pub mac_hi: Signal<In, Bits<32>>,
    pub ipv4: Signal<In, Bits<32>>,
    /// The port's IPv6 addresses (the GID table; all zero = empty entry).
    pub gid0: Signal<In, Bits<128>>,
    pub gid1: Signal<In, Bits<128>>,
    pub gid2: Signal<In, Bits<128>>,
    pub gid3: Signal<In, Bits<128>>,
    pub udp_dport: Signal<In, Bits<16>>,
    // Input: a beat every cycle it is valid.
    pub in_data: Signal<In, Bits<W>>,
    pub in_keep: Signal<In, Bits<B>>,
    pub in_last: Signal<In, bool>,
    pub in_valid: Signal<In, bool>,
    /// With the last beat: the MAC marked the frame bad.
    pub in_user: Signal<In, bool>,
    /// With every beat: the frame's 802.1Q tag is not the port's (`net::vlan::VlanStrip`).
    pub in_vlan_bad: Signal<In, bool>,
    /// With every beat: the PCP of the frame's 802.1Q tag (0 when untagged).
    pub in_pcp: Signal<In, Bits<3>>,
    // Output: the same beats in order, at most one a cycle; with a frame's first beat its record.
    pub out_data: Signal<Out, Bits<W>>,
    pub out_keep: Signal<Out, Bits<B>>,
    pub out_last: Signal<Out, bool>,
    pub out_valid: Signal<Out, bool>,
    pub out_user: Signal<Out, bool>,
    pub out_first: Signal<Out, bool>,
    pub out_rec: Signal<Out, Bits<32>>,
    data: RAM<Bits<W>, FA>,
    keep: RAM<Bits<B>, FA>,
    recs: RAM<Bits<32>, FA>,
    chk: RxChecks,
    cap_fill: SlotFill<512, W>,
    // The capture.
    in_frame: DFF<bool>,
    beat: DFF<Bits<16>>,
    cap: DFF<Bits<512>>,
    /// Where the frame's first beat went in the FIFO.
    f_pos: DFF<Bits<FA>>,
    /// The capture complete (C1, T+1, `cap` holds it) and two cycles on, with the frame's tag and
    /// where its first beat is; at C3 the beats ahead of it.
    c1: DFF<bool>,
    c1_pos: DFF<Bits<FA>>,
    c2_pos: DFF<Bits<FA>>,
    c3_ahead: DFF<Bits<FA>>,
    c1_pcp: DFF<Bits<3>>,
    c1_vlan_bad: DFF<bool>,
    c2: DFF<bool>,
    c2_pcp: DFF<Bits<3>>,
    c2_vlan_bad: DFF<bool>,
    c3: DFF<bool>,
    c3_pcp: DFF<Bits<3>>,
    c3_vlan_bad: DFF<bool>,
    // R (T+4): every check, the priority.
    r_v: DFF<bool>,
    r_mac: DFF<bool>,
    r_vlan_bad: DFF<bool>,
    r_type: DFF<bool>,
    r_ihl: DFF<bool>,
    r_dip: DFF<bool>,
    r_udp: DFF<bool>,
    r_min: DFF<bool>,
    r_csum: DFF<bool>,
    r_v6: DFF<bool>,
    r_prio: DFF<Bits<3>>,
    r_lossy_prio: DFF<bool>,
    r_ip_end: DFF<Bits<16>>,
    /// The ring's words in use and the beats ahead of the frame here.
    r_sum: DFF<Bits<A>>,
    // The FIFOs: beats (with their last and FCS flags beside the RAMs) and records.
    wp: DFF<Bits<FA>>,
    rp: DFF<Bits<FA>>,
    lasts: DFF<Bits<32>>,
    users: DFF<Bits<32>>,
    rwp: DFF<Bits<FA>>,
    rrp: DFF<Bits<FA>>,
    /// The beat at `rp` is a frame's first.
    at_first: DFF<bool>,
    // Output stage: the beat read last cycle.
    o_valid: DFF<bool>,
    o_first: DFF<bool>,
    o_last: DFF<bool>,
    o_user: DFF<bool>,
    // Combinational intermediates
    done0: Signal<Local, bool>,
    pos0: Signal<Local, Bits<FA>>,
    prio: Signal<Local, Bits<3>>,
    why_v: Signal<Local, Bits<3>>,
    hdr_bad: Signal<Local, bool>,
    csum_bad: Signal<Local, bool>,
    lossy: Signal<Local, bool>,
    write: Signal<Local, bool>,
    wbit: Signal<Local, Bits<32>>,
    last_at: Signal<Local, Bits<32>>,
    user_at: Signal<Local, Bits<32>>,
    head_last: Signal<Local, bool>,
    empty: Signal<Local, bool>,
    no_rec: Signal<Local, bool>,
    wait_rec: Signal<Local, bool>,
    go: Signal<Local, bool>,
    // Constants
    cap_last: Constant<Bits<16>>,
    cap_beats: Constant<Bits<16>>,
    one32: Constant<Bits<32>>,
    why_dst_mac: Constant<Bits<3>>,
    why_ethertype: Constant<Bits<3>>,
    why_ip_header: Constant<Bits<3>>,
    why_dst_ip: Constant<Bits<3>>,
    why_udp_port: Constant<Bits<3>>,
    why_length: Constant<Bits<3>>,
    why_disabled: Constant<Bits<3>>,
    why_vlan: Constant<Bits<3>>,
    ab_write: Constant<Bits<16>>,
    ab_hdr_bad: Constant<Bits<16>>,
    ab_csum_bad: Constant<Bits<16>>,
    ab_lossy: Constant<Bits<16>>,
    ab_v6: Constant<Bits<16>>,
    ab_prio: Constant<Bits<16>>,
    ab_why: Constant<Bits<16>>,
    ab_ip_end: Constant<Bits<16>>,
}

impl<const W: usize, const B: usize, const A: usize> Default for RxAdmit<W, B, A> {
    fn default() -> Self {
        assert_eq!(W, 8 * B);
        assert!(A >= FA, "the ring holds at least this FIFO");
        let k16 = |v: usize| Constant::new((v as u64).into());
        let k3 = |v: u64| Constant::new(v.into());
        let cap_beats = CAP_BYTES.div_ceil(B);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            trust_dscp: Default::default(),
            dscp_map: Default::default(),
            lossless: Default::default(),
            ring_used: Default::default(),
            lossy_words: Default::default(),
            mac_lo: Default::default(),
            mac_hi: Default::default(),
            ipv4: Default::default(),
            gid0: Default::default(),
            gid1: Default::default(),
            gid2: Default::default(),
            gid3: Default::default(),
            udp_dport: Default::default(),
            in_data: Default::default(),
            in_keep: Default::default(),
            in_last: Default::default(),
            in_valid: Default::default(),
            in_user: Default::default(),
            in_vlan_bad: Default::default(),
            in_pcp: Default::default(),
            out_data: Default::default(),
            out_keep: Default::default(),
            out_last: Default::default(),
            out_valid: Default::default(),
            out_user: Default::default(),
            out_first: Default::default(),
            out_rec: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            recs: Default::default(),
            chk: Default::default(),
            cap_fill: Default::default(),
            in_frame: Default::default(),
            beat: Default::default(),
            cap: Default::default(),
            f_pos: Default::default(),
            c1: Default::default(),
            c1_pos: Default::default(),
            c2_pos: Default::default(),
            c3_ahead: Default::default(),
            c1_pcp: Default::default(),
            c1_vlan_bad: Default::default(),
            c2: Default::default(),
            c2_pcp: Default::default(),
            c2_vlan_bad: Default::default(),
            c3: Default::default(),
            c3_pcp: Default::default(),
            c3_vlan_bad: Default::default(),
            r_v: Default::default(),
            r_mac: Default::default(),
            r_vlan_bad: Default::default(),
            r_type: Default::default(),
            r_ihl: Default::default(),
            r_dip: Default::default(),
            r_udp: Default::default(),
            r_min: Default::default(),
            r_csum: Default::default(),
            r_v6: Default::default(),
            r_prio: Default::default(),
            r_lossy_prio: Default::default(),
            r_ip_end: Default::default(),
            r_sum: Default::default(),
            wp: Default::default(),
            rp: Default::default(),
            lasts: Default::default(),
            users: Default::default(),
            rwp: Default::default(),
            rrp: Default::default(),
            at_first: Default::default(),
            o_valid: Default::default(),
            o_first: Default::default(),
            o_last: Default::default(),
            o_user: Default::default(),
            done0: Default::default(),
            pos0: Default::default(),
            prio: Default::default(),
            why_v: Default::default(),
            hdr_bad: Default::default(),
            csum_bad: Default::default(),
            lossy: Default::default(),
            write: Default::default(),
            wbit: Default::default(),
            last_at: Default::default(),
            user_at: Default::default(),
            head_last: Default::default(),
            empty: Default::default(),
            no_rec: Default::default(),
            wait_rec: Default::default(),
            go: Default::default(),
            cap_last: k16(cap_beats - 1),
            cap_beats: k16(cap_beats),
            one32: Constant::new(1.into()),
            why_dst_mac: k3(why::DST_MAC),
            why_ethertype: k3(why::ETHERTYPE),
            why_ip_header: k3(why::IP_HEADER),
            why_dst_ip: k3(why::DST_IP),
            why_udp_port: k3(why::UDP_PORT),
            why_length: k3(why::LENGTH),
            why_disabled: k3(why::DISABLED),
            why_vlan: k3(why::VLAN),
            ab_write: k16(adm::WRITE),
            ab_hdr_bad: k16(adm::HDR_BAD),
            ab_csum_bad: k16(adm::CSUM_BAD),
            ab_lossy: k16(adm::LOSSY),
            ab_v6: k16(adm::V6),
            ab_prio: k16(adm::PRIO),
            ab_why: k16(adm::WHY),
            ab_ip_end: k16(adm::IP_END),
        }
    }
}

impl<const W: usize, const B: usize, const A: usize> Logic for RxAdmit<W, B, A> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            in_frame,
            beat,
            cap,
            f_pos,
            c1,
            c1_pos,
            c2_pos,
            c3_ahead,
            c1_pcp,
            c1_vlan_bad,
            c2,
            c2_pcp,
            c2_vlan_bad,
            c3,
            c3_pcp,
            c3_vlan_bad,
            r_v,
            r_mac,
            r_vlan_bad,
            r_type,
            r_ihl,
            r_dip,
            r_udp,
            r_min,
            r_csum,
            r_v6,
            r_prio,
            r_lossy_prio,
            r_ip_end,
            r_sum,
            wp,
            rp,
            lasts,
            users,
            rwp,
            rrp,
            at_first,
            o_valid,
            o_first,
            o_last,
            o_user
        );
        self.chk.clock.next = self.clock.val();
        self.data.read_clock.next = self.clock.val();
        self.data.write_clock.next = self.clock.val();
        self.keep.read_clock.next = self.clock.val();
        self.keep.write_clock.next = self.clock.val();
        self.recs.read_clock.next = self.clock.val();
        self.recs.write_clock.next = self.clock.val();

        // The capture (T): beat k of the frame into slot k; complete with beat `cap_last` or the
        // frame's last, whichever comes first.
        self.cap_fill.base.next = self.cap.q.val();
        self.cap_fill.data.next = self.in_data.val();
        self.cap_fill.slot.next = bit_cast::<8, 16>(self.beat.q.val());
        self.cap_fill.en.next = self.beat.q.val() < self.cap_beats.val();
        self.done0.next = self.in_valid.val()
            && ((self.beat.q.val() == self.cap_last.val())
                || (self.in_last.val() && (self.beat.q.val() < self.cap_beats.val())));
        self.pos0.next = self.f_pos.q.val();
        if !self.in_frame.q.val() {
            self.pos0.next = self.wp.q.val();
        }
        if self.in_valid.val() {
            self.cap.d.next = self.cap_fill.y.val();
            self.f_pos.d.next = self.pos0.val();
            if !self.in_frame.q.val() {
                self.cap.d.next = bit_cast::<512, W>(self.in_data.val());
            }
            self.beat.d.next = self.beat.q.val() + 1;
            self.in_frame.d.next = !self.in_last.val();
            if self.in_last.val() {
                self.beat.d.next = 0.into();
            }
        }
        self.c1.d.next = self.done0.val();
        self.c1_pos.d.next = self.pos0.val();
        self.c1_pcp.d.next = self.in_pcp.val();
        self.c1_vlan_bad.d.next = self.in_vlan_bad.val();
        // C1 (T+1) to C3: the checks read the capture.
        self.chk.cap.next = self.cap.q.val();
        self.chk.mac_lo.next = self.mac_lo.val();
        self.chk.mac_hi.next = self.mac_hi.val();
        self.chk.ipv4.next = self.ipv4.val();
        self.chk.gid0.next = self.gid0.val();
        self.chk.gid1.next = self.gid1.val();
        self.chk.gid2.next = self.gid2.val();
        self.chk.gid3.next = self.gid3.val();
        self.chk.udp_dport.next = self.udp_dport.val();
        self.chk.dscp_map.next = self.dscp_map.val();
        self.c2.d.next = self.c1.q.val();
        self.c2_pcp.d.next = self.c1_pcp.q.val();
        self.c2_vlan_bad.d.next = self.c1_vlan_bad.q.val();
        self.c3.d.next = self.c2.q.val();
        self.c2_pos.d.next = self.c1_pos.q.val();
        // Beats ahead of the frame's first: fewer as they leave, so taken early errs toward more.
        self.c3_ahead.d.next = self.c2_pos.q.val() - self.rp.q.val();
        self.c3_pcp.d.next = self.c2_pcp.q.val();
        self.c3_vlan_bad.d.next = self.c2_vlan_bad.q.val();

        // R (T+4): the checks' results registered, the priority and whether it is lossy.
        self.prio.next = self.c3_pcp.q.val();
        if self.trust_dscp.val() {
            self.prio.next = self.chk.dscp_prio.val();
        }
        self.r_v.d.next = self.c3.q.val();
        self.r_mac.d.next = self.chk.ok_mac.val();
        self.r_vlan_bad.d.next = self.c3_vlan_bad.q.val();
        self.r_type.d.next = self.chk.ok_type.val();
        self.r_ihl.d.next = self.chk.ok_ihl.val();
        self.r_dip.d.next = self.chk.ok_dip.val();
        self.r_udp.d.next = self.chk.ok_udp.val();
        self.r_min.d.next = self.chk.ok_min.val();
        self.r_csum.d.next = self.chk.csum_ok.val();
        self.r_v6.d.next = self.chk.v6.val();
        self.r_prio.d.next = self.prio.val();
        self.r_lossy_prio.d.next = ((self.lossless.val() >> self.prio.val()) & 1) == 0;
        self.r_ip_end.d.next = self.chk.ip_end.val();
        self.r_sum.d.next = self.ring_used.val() + bit_cast::<A, FA>(self.c3_ahead.q.val());

        // The record (T+5): the first check failed, the checksum, lossy admission.
        self.why_v.next = self.why_disabled.val();
        if !self.r_mac.q.val() {
            self.why_v.next = self.why_dst_mac.val();
        } else if self.r_vlan_bad.q.val() {
            self.why_v.next = self.why_vlan.val();
        } else if !self.r_type.q.val() {
            self.why_v.next = self.why_ethertype.val();
        } else if !self.r_ihl.q.val() {
            self.why_v.next = self.why_ip_header.val();
        } else if !self.r_dip.q.val() {
            self.why_v.next = self.why_dst_ip.val();
        } else if !self.r_udp.q.val() {
            self.why_v.next = self.why_udp_port.val();
        } else if !self.r_min.q.val() {
            self.why_v.next = self.why_length.val();
        }
        // One-bit values negated before they are widened: Verilog widens first.
        self.hdr_bad.next = !(self.r_mac.q.val()
            && !self.r_vlan_bad.q.val()
            && self.r_type.q.val()
            && self.r_ihl.q.val()
            && self.r_dip.q.val()
            && self.r_udp.q.val()
            && self.r_min.q.val()
            && self.enable.val());
        self.csum_bad.next = !self.r_csum.q.val();
        self.lossy.next = self.r_lossy_prio.q.val()
            && (self.lossy_words.val() != 0)
            && (self.r_sum.q.val() >= self.lossy_words.val());
        self.write.next = !(self.hdr_bad.val() || self.csum_bad.val() || self.lossy.val());
        self.recs.write_address.next = self.rwp.q.val();
        self.recs.write_enable.next = self.r_v.q.val();
        self.recs.write_data.next = (bit_cast::<32, 1>(self.write.val().into())
            << self.ab_write.val())
            | (bit_cast::<32, 1>(self.hdr_bad.val().into()) << self.ab_hdr_bad.val())
            | (bit_cast::<32, 1>(self.csum_bad.val().into()) << self.ab_csum_bad.val())
            | (bit_cast::<32, 1>(self.lossy.val().into()) << self.ab_lossy.val())
            | (bit_cast::<32, 1>(self.r_v6.q.val().into()) << self.ab_v6.val())
            | (bit_cast::<32, 3>(self.r_prio.q.val()) << self.ab_prio.val())
            | (bit_cast::<32, 3>(self.why_v.val()) << self.ab_why.val())
            | (bit_cast::<32, 16>(self.r_ip_end.q.val()) << self.ab_ip_end.val());
        if self.r_v.q.val() {
            self.rwp.d.next = self.rwp.q.val() + 1;
        }

        // The beat FIFO: every beat in at `wp`.
        self.data.write_address.next = self.wp.q.val();
        self.data.write_data.next = self.in_data.val();
        self.data.write_enable.next = self.in_valid.val();
        self.keep.write_address.next = self.wp.q.val();
        self.keep.write_data.next = self.in_keep.val();
        self.keep.write_enable.next = self.in_valid.val();
        self.wbit.next = self.one32.val() << self.wp.q.val();
        if self.in_valid.val() {
            self.wp.d.next = self.wp.q.val() + 1;
            self.lasts.d.next = self.lasts.q.val() & !self.wbit.val();
            if self.in_last.val() {
                self.lasts.d.next = self.lasts.q.val() | self.wbit.val();
            }
            self.users.d.next = self.users.q.val() & !self.wbit.val();
            if self.in_user.val() {
                self.users.d.next = self.users.q.val() | self.wbit.val();
            }
        }
        // Out at `rp`: a beat written by last cycle may be read; a first beat waits for its record.
        self.last_at.next = self.lasts.q.val() >> self.rp.q.val();
        self.user_at.next = self.users.q.val() >> self.rp.q.val();
        self.head_last.next = self.last_at.val().get_bit(0);
        self.empty.next = self.rp.q.val() == self.wp.q.val();
        self.no_rec.next = self.rrp.q.val() == self.rwp.q.val();
        self.wait_rec.next = self.at_first.q.val() && self.no_rec.val();
        self.go.next = !self.empty.val() && !self.wait_rec.val();
        self.data.read_address.next = self.rp.q.val();
        self.keep.read_address.next = self.rp.q.val();
        self.recs.read_address.next = self.rrp.q.val();
        self.o_valid.d.next = self.go.val();
        self.o_first.d.next = self.at_first.q.val();
        self.o_last.d.next = self.head_last.val();
        self.o_user.d.next = self.user_at.val().get_bit(0);
        if self.go.val() {
            self.rp.d.next = self.rp.q.val() + 1;
            self.at_first.d.next = self.head_last.val();
            if self.at_first.q.val() {
                self.rrp.d.next = self.rrp.q.val() + 1;
            }
        }
        // The beat read last cycle.
        self.out_data.next = self.data.read_data.val();
        self.out_keep.next = self.keep.read_data.val();
        self.out_rec.next = self.recs.read_data.val();
        self.out_valid.next = self.o_valid.q.val();
        self.out_first.next = self.o_valid.q.val() && self.o_first.q.val();
        self.out_last.next = self.o_last.q.val();
        self.out_user.next = self.o_user.q.val();

        if self.reset.val() {
            self.in_frame.d.next = false;
            self.beat.d.next = 0.into();
            self.c1.d.next = false;
            self.c2.d.next = false;
            self.c3.d.next = false;
            self.r_v.d.next = false;
            self.wp.d.next = 0.into();
            self.rp.d.next = 0.into();
            self.rwp.d.next = 0.into();
            self.rrp.d.next = 0.into();
            self.at_first.d.next = true;
            self.o_valid.d.next = false;
        }
    }
}
