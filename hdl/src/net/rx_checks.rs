//! Header checks of a received frame: is it a RoCEv2 packet for this port, over IPv4 or IPv6, what
//! priority its DSCP gives it, where its IP packet ends, and whether its IPv4 header checksum holds.
//!
//! Input: the frame's first 64 bytes as the receive buffer captured them (`cap`, frame byte k at bits
//! 8k..8k+7; enough for Ethernet + IPv6 + UDP), and the port's addresses. Two registered stages, at
//! most 6 LUT levels each at any width: (1) every compare on its own (a 128-bit GID compare is three
//! levels, the DSCP's priority a 64-way select), the IPv4 header's ten words reduced to a carry-save
//! pair (`prim::csa16`), the IP packet's end for both versions; (2) the IPv4 or IPv6 result of each
//! check picked by the EtherType, and the checksum checked on the pair without an add. The results are
//! this block's registers, two cycles after `cap`; a caller that changes `cap` every cycle gets each
//! capture's results two cycles later, in order.
//!
//! What passes, per check (the receive buffer reports the first that fails, in this order): the
//! destination MAC is the port's; the EtherType is IPv4 or IPv6; IPv4 version 4 without options
//! (IHL 5), or IPv6 version 6; the destination is the port's IPv4 address, or one of its non-zero
//! GIDs; the protocol (IPv6: next header, so an extension header fails) is UDP to the RoCEv2 port;
//! the IP length holds at least UDP + BTH + ICRC. The frame's own length against the IP end is the
//! buffer's to check.
use crate::prim::byteswap::{be_shift, ByteSwap};
use crate::prim::csa16::Csa16;
use rocenic_proto::wire::ipv4_frame as F;
use rocenic_proto::wire::ipv6_frame as G;
use rocenic_proto::wire::{len, ETHERTYPE_IPV4, ETHERTYPE_IPV6, IP_PROTO_UDP};
use rust_hdl::prelude::*;

/// Bytes of the frame start the checks read.
pub const CAP_BYTES: usize = 64;

/// Minimum IPv4 total length of a RoCEv2 packet: IP + UDP + BTH + ICRC.
const MIN_IP_LEN: usize = len::IPV4 + len::UDP + len::BTH + len::ICRC;
/// Minimum IPv6 payload length of a RoCEv2 packet: UDP + BTH + ICRC.
const MIN_IP6_PAYLOAD: usize = len::UDP + len::BTH + len::ICRC;

#[derive(LogicBlock)]
pub struct RxChecks {
    pub clock: Signal<In, Clock>,
    pub cap: Signal<In, Bits<512>>,
    pub mac_lo: Signal<In, Bits<32>>,
    pub mac_hi: Signal<In, Bits<32>>,
    pub ipv4: Signal<In, Bits<32>>,
    /// The port's IPv6 addresses (the GID table; all zero = empty entry).
    pub gid0: Signal<In, Bits<128>>,
    pub gid1: Signal<In, Bits<128>>,
    pub gid2: Signal<In, Bits<128>>,
    pub gid3: Signal<In, Bits<128>>,
    pub udp_dport: Signal<In, Bits<16>>,
    /// DSCP d's priority at bits 4d..4d+2 (the DSCP_PRIO_MAP_n registers side by side).
    pub dscp_map: Signal<In, Bits<256>>,
    // Results, two cycles after `cap`.
    pub ok_mac: Signal<Out, bool>,
    pub ok_type: Signal<Out, bool>,
    pub ok_ihl: Signal<Out, bool>,
    pub ok_dip: Signal<Out, bool>,
    pub ok_udp: Signal<Out, bool>,
    /// The IP length field covers at least UDP + BTH + ICRC.
    pub ok_min: Signal<Out, bool>,
    /// The IPv4 header's words sum to one's-complement zero (always true over IPv6, which has none).
    pub csum_ok: Signal<Out, bool>,
    pub v6: Signal<Out, bool>,
    /// The frame byte after the IP packet (14 + IPv4 total length, or 54 + IPv6 payload length).
    pub ip_end: Signal<Out, Bits<16>>,
    /// The priority the DSCP maps to (IPv4 TOS or IPv6 traffic class, >> 2).
    pub dscp_prio: Signal<Out, Bits<3>>,
    swap: ByteSwap<512>,
    ip_sum: Csa16<160>,
    // Stage 1: each check alone, for both IP versions.
    m_mac: DFF<bool>,
    m_v4: DFF<bool>,
    m_v6: DFF<bool>,
    m_ihl4: DFF<bool>,
    m_ver6: DFF<bool>,
    m_dip4: DFF<bool>,
    m_dst6_nz: DFF<bool>,
    m_gid0: DFF<bool>,
    m_gid1: DFF<bool>,
    m_gid2: DFF<bool>,
    m_gid3: DFF<bool>,
    m_udp4: DFF<bool>,
    m_udp6: DFF<bool>,
    m_min4: DFF<bool>,
    m_min6: DFF<bool>,
    m_end4: DFF<Bits<16>>,
    m_end6: DFF<Bits<16>>,
    m_prio4: DFF<Bits<3>>,
    m_prio6: DFF<Bits<3>>,
    m_s: DFF<Bits<16>>,
    m_c: DFF<Bits<16>>,
    // Stage 2: the results.
    r_mac: DFF<bool>,
    r_type: DFF<bool>,
    r_ihl: DFF<bool>,
    r_dip: DFF<bool>,
    r_udp: DFF<bool>,
    r_min: DFF<bool>,
    r_csum: DFF<bool>,
    r_v6: DFF<bool>,
    r_end: DFF<Bits<16>>,
    r_prio: DFF<Bits<3>>,
    ip6_dst: Signal<Local, Bits<128>>,
    tos4: Signal<Local, Bits<8>>,
    len4: Signal<Local, Bits<16>>,
    len6: Signal<Local, Bits<16>>,
    tc6: Signal<Local, Bits<8>>,
    sh_dst_mac: Constant<Bits<16>>,
    sh_ethertype: Constant<Bits<16>>,
    sh_ip_vihl: Constant<Bits<16>>,
    sh_ip_len: Constant<Bits<16>>,
    sh_ip_tos: Constant<Bits<16>>,
    sh_ip_proto: Constant<Bits<16>>,
    sh_ip_dst: Constant<Bits<16>>,
    sh_udp_dport: Constant<Bits<16>>,
    sh_ip6_vtc: Constant<Bits<16>>,
    sh_ip6_plen: Constant<Bits<16>>,
    sh_ip6_next: Constant<Bits<16>>,
    sh_ip6_dst: Constant<Bits<16>>,
    sh_udp6_dport: Constant<Bits<16>>,
    /// Bit offset of the IPv4 header in `cap`.
    sh_ip_hdr: Constant<Bits<16>>,
    type4: Constant<Bits<16>>,
    type6: Constant<Bits<16>>,
    vihl4: Constant<Bits<8>>,
    ver6: Constant<Bits<16>>,
    udp: Constant<Bits<8>>,
    min4: Constant<Bits<16>>,
    min6: Constant<Bits<16>>,
    ip_start4: Constant<Bits<16>>,
    ip_start6: Constant<Bits<16>>,
}

impl Default for RxChecks {
    fn default() -> Self {
        let sh = |off: usize, n: usize| Constant::new(be_shift(CAP_BYTES, off, n).into());
        Self {
            clock: Default::default(),
            cap: Default::default(),
            mac_lo: Default::default(),
            mac_hi: Default::default(),
            ipv4: Default::default(),
            gid0: Default::default(),
            gid1: Default::default(),
            gid2: Default::default(),
            gid3: Default::default(),
            udp_dport: Default::default(),
            dscp_map: Default::default(),
            ok_mac: Default::default(),
            ok_type: Default::default(),
            ok_ihl: Default::default(),
            ok_dip: Default::default(),
            ok_udp: Default::default(),
            ok_min: Default::default(),
            csum_ok: Default::default(),
            v6: Default::default(),
            ip_end: Default::default(),
            dscp_prio: Default::default(),
            swap: Default::default(),
            ip_sum: Default::default(),
            m_mac: Default::default(),
            m_v4: Default::default(),
            m_v6: Default::default(),
            m_ihl4: Default::default(),
            m_ver6: Default::default(),
            m_dip4: Default::default(),
            m_dst6_nz: Default::default(),
            m_gid0: Default::default(),
            m_gid1: Default::default(),
            m_gid2: Default::default(),
            m_gid3: Default::default(),
            m_udp4: Default::default(),
            m_udp6: Default::default(),
            m_min4: Default::default(),
            m_min6: Default::default(),
            m_end4: Default::default(),
            m_end6: Default::default(),
            m_prio4: Default::default(),
            m_prio6: Default::default(),
            m_s: Default::default(),
            m_c: Default::default(),
            r_mac: Default::default(),
            r_type: Default::default(),
            r_ihl: Default::default(),
            r_dip: Default::default(),
            r_udp: Default::default(),
            r_min: Default::default(),
            r_csum: Default::default(),
            r_v6: Default::default(),
            r_end: Default::default(),
            r_prio: Default::default(),
            ip6_dst: Default::default(),
            tos4: Default::default(),
            len4: Default::default(),
            len6: Default::default(),
            tc6: Default::default(),
            sh_dst_mac: sh(0, 6),
            sh_ethertype: sh(F::ETHERTYPE, 2),
            sh_ip_vihl: sh(F::IP, 1),
            sh_ip_len: sh(F::IP_TOTAL_LEN, 2),
            sh_ip_tos: sh(F::IP_TOS, 1),
            sh_ip_proto: sh(F::IP_PROTOCOL, 1),
            sh_ip_dst: sh(F::IP_DST, 4),
            sh_udp_dport: sh(F::UDP_DPORT, 2),
            sh_ip6_vtc: sh(G::IP_VERSION_TC, 2),
            sh_ip6_plen: sh(G::IP_PAYLOAD_LEN, 2),
            sh_ip6_next: sh(G::IP_NEXT_HEADER, 1),
            sh_ip6_dst: sh(G::IP_DST, 16),
            sh_udp6_dport: sh(G::UDP_DPORT, 2),
            sh_ip_hdr: Constant::new(((F::IP * 8) as u64).into()),
            type4: Constant::new((ETHERTYPE_IPV4 as u64).into()),
            type6: Constant::new((ETHERTYPE_IPV6 as u64).into()),
            // Version 4, IHL 5 words: no options.
            vihl4: Constant::new((0x40 | (len::IPV4 / 4) as u64).into()),
            ver6: Constant::new(6.into()),
            udp: Constant::new((IP_PROTO_UDP as u64).into()),
            min4: Constant::new((MIN_IP_LEN as u64).into()),
            min6: Constant::new((MIN_IP6_PAYLOAD as u64).into()),
            ip_start4: Constant::new((F::IP as u64).into()),
            ip_start6: Constant::new(((G::IP + len::IPV6) as u64).into()),
        }
    }
}

impl Logic for RxChecks {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, m_mac, m_v4, m_v6, m_ihl4, m_ver6, m_dip4, m_dst6_nz, m_gid0, m_gid1,
            m_gid2, m_gid3, m_udp4, m_udp6, m_min4, m_min6, m_end4, m_end6, m_prio4, m_prio6, m_s,
            m_c, r_mac, r_type, r_ihl, r_dip, r_udp, r_min, r_csum, r_v6, r_end, r_prio
        );
        // Stage 1. Fields are read big-endian from the byte-swapped capture (first byte on top).
        self.swap.a.next = self.cap.val();
        self.m_mac.d.next = bit_cast::<48, 512>(self.swap.y.val() >> self.sh_dst_mac.val())
            == (bit_cast::<48, 32>(self.mac_hi.val()) << 32
                | bit_cast::<48, 32>(self.mac_lo.val()));
        self.m_v4.d.next =
            bit_cast::<16, 512>(self.swap.y.val() >> self.sh_ethertype.val()) == self.type4.val();
        self.m_v6.d.next =
            bit_cast::<16, 512>(self.swap.y.val() >> self.sh_ethertype.val()) == self.type6.val();
        self.m_ihl4.d.next =
            bit_cast::<8, 512>(self.swap.y.val() >> self.sh_ip_vihl.val()) == self.vihl4.val();
        self.m_ver6.d.next = (bit_cast::<16, 512>(self.swap.y.val() >> self.sh_ip6_vtc.val())
            >> 12)
            == self.ver6.val();
        self.m_dip4.d.next =
            bit_cast::<32, 512>(self.swap.y.val() >> self.sh_ip_dst.val()) == self.ipv4.val();
        self.ip6_dst.next = bit_cast::<128, 512>(self.swap.y.val() >> self.sh_ip6_dst.val());
        self.m_dst6_nz.d.next = self.ip6_dst.val() != 0;
        self.m_gid0.d.next = self.ip6_dst.val() == self.gid0.val();
        self.m_gid1.d.next = self.ip6_dst.val() == self.gid1.val();
        self.m_gid2.d.next = self.ip6_dst.val() == self.gid2.val();
        self.m_gid3.d.next = self.ip6_dst.val() == self.gid3.val();
        self.m_udp4.d.next = (bit_cast::<8, 512>(self.swap.y.val() >> self.sh_ip_proto.val())
            == self.udp.val())
            && (bit_cast::<16, 512>(self.swap.y.val() >> self.sh_udp_dport.val())
                == self.udp_dport.val());
        self.m_udp6.d.next = (bit_cast::<8, 512>(self.swap.y.val() >> self.sh_ip6_next.val())
            == self.udp.val())
            && (bit_cast::<16, 512>(self.swap.y.val() >> self.sh_udp6_dport.val())
                == self.udp_dport.val());
        // The length fields at their own width before they are added to (Verilog widens first).
        self.len4.next = bit_cast::<16, 512>(self.swap.y.val() >> self.sh_ip_len.val());
        self.len6.next = bit_cast::<16, 512>(self.swap.y.val() >> self.sh_ip6_plen.val());
        self.m_min4.d.next = self.len4.val() >= self.min4.val();
        self.m_min6.d.next = self.len6.val() >= self.min6.val();
        self.m_end4.d.next = self.len4.val() + self.ip_start4.val();
        self.m_end6.d.next = self.len6.val() + self.ip_start6.val();
        // 802.1Qbb priority from the DSCP (the top six bits of the TOS or traffic class).
        self.tos4.next = bit_cast::<8, 512>(self.swap.y.val() >> self.sh_ip_tos.val());
        self.tc6.next =
            bit_cast::<8, 16>(bit_cast::<16, 512>(self.swap.y.val() >> self.sh_ip6_vtc.val()) >> 4);
        self.m_prio4.d.next =
            bit_cast::<3, 256>(self.dscp_map.val() >> (bit_cast::<16, 8>(self.tos4.val()) & 0xFC));
        self.m_prio6.d.next =
            bit_cast::<3, 256>(self.dscp_map.val() >> (bit_cast::<16, 8>(self.tc6.val()) & 0xFC));
        // RFC 791's header checksum: the ten words in carry-save form (byte order does not matter
        // to a one's-complement sum that is checked against zero).
        self.ip_sum.a.next = bit_cast::<160, 512>(self.cap.val() >> self.sh_ip_hdr.val());
        self.m_s.d.next = self.ip_sum.s.val();
        self.m_c.d.next = self.ip_sum.c.val();

        // Stage 2: the frame's IP version picks each result.
        self.r_mac.d.next = self.m_mac.q.val();
        self.r_type.d.next = self.m_v4.q.val() || self.m_v6.q.val();
        self.r_v6.d.next = self.m_v6.q.val();
        self.r_ihl.d.next = self.m_ihl4.q.val();
        self.r_dip.d.next = self.m_dip4.q.val();
        self.r_udp.d.next = self.m_udp4.q.val();
        self.r_min.d.next = self.m_min4.q.val();
        self.r_end.d.next = self.m_end4.q.val();
        self.r_prio.d.next = self.m_prio4.q.val();
        // `csa16::sums_to_zero`: s + c is 0, 0xFFFF or 0x1FFFE.
        self.r_csum.d.next = (self.m_c.q.val() == !self.m_s.q.val())
            || ((self.m_s.q.val() == 0) && (self.m_c.q.val() == 0))
            || ((self.m_s.q.val() == 0xFFFF) && (self.m_c.q.val() == 0xFFFF));
        if self.m_v6.q.val() {
            self.r_ihl.d.next = self.m_ver6.q.val();
            self.r_dip.d.next = self.m_dst6_nz.q.val()
                && (self.m_gid0.q.val()
                    || self.m_gid1.q.val()
                    || self.m_gid2.q.val()
                    || self.m_gid3.q.val());
            self.r_udp.d.next = self.m_udp6.q.val();
            self.r_min.d.next = self.m_min6.q.val();
            self.r_end.d.next = self.m_end6.q.val();
            self.r_prio.d.next = self.m_prio6.q.val();
            self.r_csum.d.next = true;
        }
        self.ok_mac.next = self.r_mac.q.val();
        self.ok_type.next = self.r_type.q.val();
        self.ok_ihl.next = self.r_ihl.q.val();
        self.ok_dip.next = self.r_dip.q.val();
        self.ok_udp.next = self.r_udp.q.val();
        self.ok_min.next = self.r_min.q.val();
        self.csum_ok.next = self.r_csum.q.val();
        self.v6.next = self.r_v6.q.val();
        self.ip_end.next = self.r_end.q.val();
        self.dscp_prio.next = self.r_prio.q.val();
    }
}

/// RoCEv2 frames for the receive side's tests.
#[cfg(test)]
pub(crate) mod frames {
    use rocenic_proto::opcode;
    use rocenic_proto::wire::{
        BthRepr, EthernetRepr, ExtHeaders, Frame, IpRepr, Ipv4Repr, Ipv6Repr, UdpRepr,
        ETHERTYPE_IPV4, ETHERTYPE_IPV6, IP_PROTO_UDP, ROCEV2_UDP_PORT,
    };

    pub const MAC: [u8; 6] = [0x02, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5];
    pub const IP: [u8; 4] = [10, 0, 1, 5];
    pub const GID: [u8; 16] = [
        0xFD, 0x52, 0x4F, 0x43, 0, 0x45, 0, 0, 0, 0, 0, 0, 0, 0, 1, 5,
    ];

    /// A sealed SEND-only frame to the port's MAC and IPv4 address (or its GID over IPv6), with
    /// `payload` bytes and the DSCP `dscp`.
    pub fn send_only(v6: bool, payload: usize, dscp: u8) -> Vec<u8> {
        let mut f = frame(
            v6,
            dscp << 2,
            opcode::RC_SEND_ONLY,
            ExtHeaders::default(),
            payload,
        );
        f.seal().unwrap();
        f.emit()
    }

    /// An RC packet to the port (unsealed): `tos` the IPv4 TOS or IPv6 traffic class, the BTH with
    /// `op`, destination QP 0x11, PSN 0x123456, AckReq set, and `payload` bytes.
    pub fn frame(v6: bool, tos: u8, op: u8, ext: ExtHeaders, payload: usize) -> Frame {
        let ip = if v6 {
            IpRepr::V6(Ipv6Repr {
                traffic_class: tos,
                flow_label: 0,
                payload_len: 0,
                next_header: IP_PROTO_UDP,
                hop_limit: 64,
                src: [
                    0xFD, 0x52, 0x4F, 0x43, 0, 0x45, 0, 0, 0, 0, 0, 0, 0, 0, 1, 6,
                ],
                dst: GID,
            })
        } else {
            IpRepr::V4(Ipv4Repr {
                tos,
                total_len: 0,
                ident: 0,
                dont_frag: true,
                ttl: 64,
                protocol: IP_PROTO_UDP,
                checksum: 0,
                src: [10, 0, 1, 6],
                dst: IP,
            })
        };
        Frame {
            eth: EthernetRepr {
                dst: MAC,
                src: [0x02, 0xA1, 0xB2, 0xC3, 0xD4, 0xF0],
                ethertype: if v6 { ETHERTYPE_IPV6 } else { ETHERTYPE_IPV4 },
            },
            vlan: None,
            ip,
            udp: UdpRepr {
                src_port: 0xC000,
                dst_port: ROCEV2_UDP_PORT,
                length: 0,
                checksum: 0,
            },
            bth: BthRepr {
                opcode: op,
                solicited: false,
                mig_req: true,
                pad_count: 0,
                tver: 0,
                pkey: 0xFFFF,
                fecn: false,
                becn: false,
                resv6a: 0,
                dest_qp: 0x11,
                ack_req: true,
                resv7: 0,
                psn: 0x123456,
            },
            ext,
            payload: (0..payload).map(|i| (i * 7 + 3) as u8).collect(),
            pad: vec![0; (4 - payload % 4) % 4],
            icrc: 0,
            trailer: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::frames::*;
    use super::*;
    use rocenic_proto::wire::ipv4_frame as F;
    use rocenic_proto::wire::ipv6_frame as G;

    /// What the block reports for a frame start.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    struct Verdict {
        mac: bool,
        typ: bool,
        ihl: bool,
        dip: bool,
        udp: bool,
        min: bool,
        csum: bool,
        v6: bool,
        ip_end: u64,
        prio: u64,
    }

    const PASS4: Verdict = Verdict {
        mac: true,
        typ: true,
        ihl: true,
        dip: true,
        udp: true,
        min: true,
        csum: true,
        v6: false,
        ip_end: 0,
        prio: 0,
    };

    /// Each capture in `caps` is offered for one cycle, back to back; each one's results are read
    /// after the second clock edge that follows (two cycles after the cycle it is offered in).
    fn run(caps: Vec<Vec<u8>>) -> Vec<Verdict> {
        let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let out2 = out.clone();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<RxChecks>| x.clock.next = !x.clock.val());
        sim.add_testbench(move |mut ep: Sim<RxChecks>| {
            let mut x = ep.init()?;
            wait_clock_true!(ep, clock, x);
            let word = |b: &[u8]| {
                let mut v: Bits<128> = 0.into();
                for (i, &byte) in b.iter().enumerate() {
                    v = v | (bit_cast::<128, 8>((byte as u64).into()) << (8 * i) as u64);
                }
                v
            };
            let be = |b: &[u8]| b.iter().fold(0u64, |a, &x| (a << 8) | x as u64);
            x.mac_hi.next = (be(&MAC[..2])).into();
            x.mac_lo.next = (be(&MAC[2..])).into();
            x.ipv4.next = be(&IP).into();
            // GID 1 holds the port's address; 0, 2 and 3 are empty.
            let mut g: Bits<128> = 0.into();
            for &byte in GID.iter() {
                g = (g << 8) | bit_cast::<128, 8>((byte as u64).into());
            }
            x.gid1.next = g;
            x.udp_dport.next = (rocenic_proto::wire::ROCEV2_UDP_PORT as u64).into();
            // DSCP d -> priority d % 8.
            let mut map: Bits<256> = 0.into();
            for d in 0..64u64 {
                map = map | (bit_cast::<256, 4>((d % 8).into()) << (4 * d));
            }
            x.dscp_map.next = map;
            // One cycle more than captures: the last one's results come after it.
            for (k, cap) in caps.iter().map(Some).chain([None]).enumerate() {
                if let Some(cap) = cap {
                    let mut c: Bits<512> = 0.into();
                    for (j, chunk) in cap.chunks(16).enumerate() {
                        c = c | (bit_cast::<512, 128>(word(chunk)) << (128 * j) as u64);
                    }
                    x.cap.next = c;
                }
                wait_clock_cycle!(ep, clock, x);
                if k >= 1 {
                    out2.lock().unwrap().push(Verdict {
                        mac: x.ok_mac.val(),
                        typ: x.ok_type.val(),
                        ihl: x.ok_ihl.val(),
                        dip: x.ok_dip.val(),
                        udp: x.ok_udp.val(),
                        min: x.ok_min.val(),
                        csum: x.csum_ok.val(),
                        v6: x.v6.val(),
                        ip_end: x.ip_end.val().to_u64(),
                        prio: x.dscp_prio.val().to_u64(),
                    });
                }
            }
            ep.done(x)
        });
        let mut uut = RxChecks::default();
        uut.connect_all();
        sim.run(Box::new(uut), 100_000).unwrap();
        let v = out.lock().unwrap().clone();
        v
    }

    fn cap(f: &[u8]) -> Vec<u8> {
        let mut c = f[..f.len().min(CAP_BYTES)].to_vec();
        c.resize(CAP_BYTES, 0);
        c
    }

    /// Good frames over IPv4 and IPv6 pass every check, with their IP end and DSCP priority; each
    /// header fault fails its own check and no other, one capture a cycle.
    #[test]
    fn each_fault_fails_its_check() {
        let good4 = send_only(false, 40, 26);
        let good6 = send_only(true, 40, 13);
        let w4 = Verdict {
            ip_end: good4.len() as u64,
            prio: 26 % 8,
            ..PASS4
        };
        let w6 = Verdict {
            v6: true,
            ip_end: good6.len() as u64,
            prio: 13 % 8,
            ..PASS4
        };
        let flip = |f: &[u8], at: usize, xor: u8| {
            let mut c = cap(f);
            c[at] ^= xor;
            c
        };
        let mut cases = vec![(cap(&good4), w4), (cap(&good6), w6)];
        cases.push((flip(&good4, 5, 1), Verdict { mac: false, ..w4 }));
        cases.push((flip(&good4, 12, 0x10), Verdict { typ: false, ..w4 }));
        // IHL 6 (options): the checksum no longer holds either.
        cases.push((
            flip(&good4, F::IP, 1),
            Verdict {
                ihl: false,
                csum: false,
                ..w4
            },
        ));
        cases.push((
            flip(&good4, F::IP_DST + 3, 1),
            Verdict {
                dip: false,
                csum: false,
                ..w4
            },
        ));
        cases.push((
            flip(&good4, F::IP_PROTOCOL, 1),
            Verdict {
                udp: false,
                csum: false,
                ..w4
            },
        ));
        cases.push((
            flip(&good4, F::UDP_DPORT + 1, 1),
            Verdict { udp: false, ..w4 },
        ));
        cases.push((
            flip(&good4, F::IP_CHECKSUM + 1, 0x80),
            Verdict { csum: false, ..w4 },
        ));
        // Total length 43: one byte short of UDP + BTH + ICRC.
        let mut short = cap(&good4);
        let old = u16::from_be_bytes([short[F::IP_TOTAL_LEN], short[F::IP_TOTAL_LEN + 1]]);
        short[F::IP_TOTAL_LEN..F::IP_TOTAL_LEN + 2].copy_from_slice(&43u16.to_be_bytes());
        // Keep the checksum right: only the length check may fail.
        let ck = u16::from_be_bytes([short[F::IP_CHECKSUM], short[F::IP_CHECKSUM + 1]]);
        let sum = (!ck as u32) + (!old as u32) + 43;
        let sum = (sum & 0xFFFF) + (sum >> 16);
        let sum = (sum & 0xFFFF) + (sum >> 16);
        short[F::IP_CHECKSUM..F::IP_CHECKSUM + 2].copy_from_slice(&(!(sum as u16)).to_be_bytes());
        cases.push((
            short,
            Verdict {
                min: false,
                ip_end: 43 + F::IP as u64,
                ..w4
            },
        ));
        cases.push((flip(&good6, G::IP, 0x10), Verdict { ihl: false, ..w6 }));
        cases.push((
            flip(&good6, G::IP_DST + 15, 1),
            Verdict { dip: false, ..w6 },
        ));
        cases.push((
            flip(&good6, G::IP_NEXT_HEADER, 1),
            Verdict { udp: false, ..w6 },
        ));
        cases.push((flip(&good6, G::UDP_DPORT, 1), Verdict { udp: false, ..w6 }));
        // An IPv6 frame's bytes where IPv4's checksum would be do not matter.
        cases.push((flip(&good6, F::IP_CHECKSUM, 0xFF), w6));
        let (caps, want): (Vec<_>, Vec<_>) = cases.into_iter().unzip();
        assert_eq!(run(caps), want);
    }

    /// An IPv6 destination of all zeros does not match an empty GID entry.
    #[test]
    fn an_empty_gid_entry_matches_nothing() {
        let mut c = cap(&send_only(true, 8, 0));
        c[G::IP_DST..G::IP_DST + 16].fill(0);
        let got = run(vec![c]);
        assert!(!got[0].dip && got[0].v6, "{got:?}");
    }

    #[test]
    fn rx_checks_synthesizes() {
        let mut uut = RxChecks::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        assert!(v.contains("module top"));
    }
}
