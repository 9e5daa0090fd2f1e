//! A whole RoCEv2 frame: where its layers are ([`locate`]) and all of its fields ([`Frame`]).
use super::*;
use crate::{icrc, opcode};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IpRepr {
    V4(Ipv4Repr),
    V6(Ipv6Repr),
}

impl IpRepr {
    /// The DSCP (RFC 2474): the top six bits of IPv4's TOS or IPv6's traffic class, ECN left out.
    pub fn dscp(&self) -> u8 {
        match self {
            IpRepr::V4(ip) => ip.tos >> 2,
            IpRepr::V6(ip) => ip.traffic_class >> 2,
        }
    }
}

/// Byte offsets of the layers of a RoCEv2 packet in the buffer given to [`locate`] or [`locate_ip`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub ip: usize,
    pub ipv6: bool,
    pub udp: usize,
    pub bth: usize,
    /// End of the IP datagram, found from the IP length: the ICRC is the four bytes before it, and Ethernet
    /// padding may follow it.
    pub end: usize,
}

impl Layout {
    pub fn icrc(&self) -> usize {
        self.end - len::ICRC
    }
}

/// Finds the layers of an Ethernet frame (without FCS) carrying RoCEv2: Ethernet, an optional 802.1Q tag,
/// IPv4 without options or IPv6, UDP to port 4791, and room for a BTH and an ICRC. Checks lengths, not
/// checksums.
pub fn locate(frame: &[u8]) -> Result<Layout, Error> {
    let eth = EthernetFrame::new_checked(frame)?;
    let mut ip = len::ETH;
    let mut ethertype = eth.ethertype();
    if ethertype == ETHERTYPE_VLAN {
        ethertype = VlanTag::new_checked(&frame[ip..])?.ethertype();
        ip += len::VLAN;
    }
    let ipv6 = match ethertype {
        ETHERTYPE_IPV4 => false,
        ETHERTYPE_IPV6 => true,
        _ => return Err(Error::NotRoce),
    };
    let l = locate_in(&frame[ip..], ipv6)?;
    Ok(Layout {
        ip,
        ipv6,
        udp: ip + l.udp,
        bth: ip + l.bth,
        end: ip + l.end,
    })
}

/// [`locate`] for an IP datagram: the buffer starts with the IPv4 or IPv6 header.
pub fn locate_ip(datagram: &[u8]) -> Result<Layout, Error> {
    need(datagram, 1, "IP")?;
    match datagram[0] >> 4 {
        4 => locate_in(datagram, false),
        6 => locate_in(datagram, true),
        _ => Err(Error::NotRoce),
    }
}

fn locate_in(d: &[u8], ipv6: bool) -> Result<Layout, Error> {
    // Not-RoCE is decided on the protocol fields before lengths are checked, so that truncated captures of
    // other traffic are reported as what they are.
    let (udp, end) = if ipv6 {
        let p = Ipv6Packet::new_unchecked(d);
        need(d, len::IPV6, "IPv6")?;
        if p.next_header() != IP_PROTO_UDP {
            return Err(Error::NotRoce);
        }
        Ipv6Repr::parse(&p)?;
        (len::IPV6, len::IPV6 + p.payload_len() as usize)
    } else {
        let p = Ipv4Packet::new_unchecked(d);
        need(d, len::IPV4, "IPv4")?;
        if p.protocol() != IP_PROTO_UDP {
            return Err(Error::NotRoce);
        }
        Ipv4Repr::parse(&p)?;
        (len::IPV4, p.total_len() as usize)
    };
    let u = UdpPacket::new_unchecked(&d[udp..end]);
    need(&d[udp..end], len::UDP, "UDP")?;
    if u.dst_port() != ROCEV2_UDP_PORT {
        return Err(Error::NotRoce);
    }
    u.check_len()?;
    if udp + u.length() as usize != end {
        return Err(Error::BadLength("UDP length disagrees with the IP length"));
    }
    let bth = udp + len::UDP;
    if end < bth + len::BTH + len::ICRC {
        return Err(Error::BadLength("too short for a BTH and an ICRC"));
    }
    Ok(Layout {
        ip: 0,
        ipv6,
        udp,
        bth,
        end,
    })
}

/// Every field of a RoCEv2 frame (without FCS), kept so that [`Frame::emit`] gives back the parsed bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub eth: EthernetRepr,
    pub vlan: Option<VlanRepr>,
    pub ip: IpRepr,
    pub udp: UdpRepr,
    pub bth: BthRepr,
    pub ext: ExtHeaders,
    pub payload: Vec<u8>,
    /// The BTH's PadCnt bytes after the payload (zeros when sent correctly; kept as received).
    pub pad: Vec<u8>,
    /// As [`icrc::compute`] returns it; on the wire least-significant byte first.
    pub icrc: u32,
    /// Bytes after the IP datagram: the padding of a short Ethernet frame.
    pub trailer: Vec<u8>,
}

/// Parses a RoCEv2 frame; see [`Frame::parse`].
pub fn parse_frame(b: &[u8]) -> Result<Frame, Error> {
    Frame::parse(b)
}

impl Frame {
    /// Parses an Ethernet frame without FCS. Checks lengths and the opcode; leaves checksums and the ICRC
    /// to [`icrc::check`] and [`Ipv4Packet::verify_checksum`].
    pub fn parse(b: &[u8]) -> Result<Frame, Error> {
        let l = locate(b)?;
        let eth = EthernetRepr::parse(&EthernetFrame::new_unchecked(b))?;
        let vlan = match eth.ethertype {
            ETHERTYPE_VLAN => Some(VlanRepr::parse(&VlanTag::new_unchecked(&b[len::ETH..]))?),
            _ => None,
        };
        let ip = if l.ipv6 {
            IpRepr::V6(Ipv6Repr::parse(&Ipv6Packet::new_unchecked(&b[l.ip..]))?)
        } else {
            IpRepr::V4(Ipv4Repr::parse(&Ipv4Packet::new_unchecked(&b[l.ip..]))?)
        };
        let udp = UdpRepr::parse(&UdpPacket::new_unchecked(&b[l.udp..l.end]))?;
        let bth = BthRepr::parse(&Bth::new_unchecked(&b[l.bth..l.end]))?;
        let info = opcode::info(bth.opcode).ok_or(Error::UnknownOpcode(bth.opcode))?;
        // Extension headers, payload and pad.
        let body = &b[l.bth + len::BTH..l.icrc()];
        let ext = ExtHeaders::parse(info.headers, body)?;
        let payload_end = body
            .len()
            .checked_sub(bth.pad_count as usize)
            .filter(|&e| e >= ext.len())
            .ok_or(Error::BadLength("PadCnt larger than the payload"))?;
        Ok(Frame {
            eth,
            vlan,
            ip,
            udp,
            bth,
            payload: body[ext.len()..payload_end].to_vec(),
            pad: body[payload_end..].to_vec(),
            ext,
            icrc: u32::from_le_bytes(b[l.icrc()..l.end].try_into().unwrap()),
            trailer: b[l.end..].to_vec(),
        })
    }

    /// Length of the emitted frame.
    pub fn buffer_len(&self) -> usize {
        let ip = match self.ip {
            IpRepr::V4(_) => len::IPV4,
            IpRepr::V6(_) => len::IPV6,
        };
        len::ETH
            + self.vlan.map_or(0, |_| len::VLAN)
            + ip
            + len::UDP
            + len::BTH
            + self.ext.len()
            + self.payload.len()
            + self.pad.len()
            + len::ICRC
            + self.trailer.len()
    }

    /// The frame's bytes, every field as stored (lengths, checksums and ICRC included: see [`Frame::seal`]).
    pub fn emit(&self) -> Vec<u8> {
        let mut b = vec![0u8; self.buffer_len()];
        self.eth.emit(&mut EthernetFrame::new_unchecked(&mut b[..]));
        let mut at = len::ETH;
        if let Some(v) = &self.vlan {
            v.emit(&mut VlanTag::new_unchecked(&mut b[at..]));
            at += len::VLAN;
        }
        match &self.ip {
            IpRepr::V4(r) => {
                r.emit(&mut Ipv4Packet::new_unchecked(&mut b[at..]));
                at += len::IPV4;
            }
            IpRepr::V6(r) => {
                r.emit(&mut Ipv6Packet::new_unchecked(&mut b[at..]));
                at += len::IPV6;
            }
        }
        self.udp.emit(&mut UdpPacket::new_unchecked(&mut b[at..]));
        at += len::UDP;
        self.bth.emit(&mut Bth::new_unchecked(&mut b[at..]));
        at += len::BTH;
        self.ext.emit(&mut b[at..]);
        at += self.ext.len();
        let icrc = self.icrc.to_le_bytes();
        for part in [&self.payload[..], &self.pad, &icrc, &self.trailer] {
            b[at..at + part.len()].copy_from_slice(part);
            at += part.len();
        }
        b
    }

    /// Makes the derived fields agree with the rest: PadCnt with `pad`, the UDP and IP lengths, the IPv4
    /// header checksum and the ICRC. Fails if the headers do not make a RoCEv2 frame.
    pub fn seal(&mut self) -> Result<(), Error> {
        self.bth.pad_count = self.pad.len() as u8;
        let udp_len =
            len::UDP + len::BTH + self.ext.len() + self.payload.len() + self.pad.len() + len::ICRC;
        self.udp.length = udp_len as u16;
        match &mut self.ip {
            IpRepr::V4(r) => {
                r.total_len = (len::IPV4 + udp_len) as u16;
                r.checksum = r.compute_checksum();
            }
            IpRepr::V6(r) => r.payload_len = udp_len as u16,
        }
        self.icrc = icrc::compute(&self.emit())?;
        Ok(())
    }

    pub fn opcode_info(&self) -> Option<&'static opcode::OpcodeInfo> {
        opcode::info(self.bth.opcode)
    }

    pub fn opcode_name(&self) -> &'static str {
        opcode::name(self.bth.opcode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-built RC RDMA WRITE ONLY: Ethernet, IPv4, UDP, BTH, RETH, 4 payload bytes, ICRC.
    fn golden() -> Vec<u8> {
        #[rustfmt::skip]
        let mut f = vec![
            2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00, // Ethernet
            0x45, 0x02, 0, 64, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2, // IPv4, total 64
            0xC0, 0x00, 0x12, 0xB7, 0, 44, 0, 0, // UDP, length 44
            0x0A, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x11, 0x80, 0x00, 0x01, 0x00, // BTH
            0, 0, 0, 1, 0, 0, 0x10, 0, 0, 0, 0x12, 0x34, 0, 0, 0, 4, // RETH
            0xDE, 0xAD, 0xBE, 0xEF, // payload
            0, 0, 0, 0, // ICRC
        ];
        Ipv4Packet::new_unchecked(&mut f[len::ETH..]).fill_checksum();
        icrc::insert(&mut f).unwrap();
        f
    }

    #[test]
    fn parses_fields_and_reemits_bytes() {
        let b = golden();
        let f = parse_frame(&b).unwrap();
        assert_eq!(f.opcode_name(), "RC_RDMA_WRITE_ONLY");
        assert_eq!(f.bth.dest_qp, 0x11);
        assert!(f.bth.ack_req);
        assert_eq!(f.bth.psn, 0x100);
        assert_eq!(f.ip.dscp(), 0, "TOS 0x02: DSCP 0, ECT(0)");
        assert_eq!(
            f.ext.reth,
            Some(RethRepr {
                va: 0x1_0000_1000,
                rkey: 0x1234,
                dma_len: 4
            })
        );
        assert_eq!(f.ext.mask(), opcode::hdr::RETH);
        assert_eq!(f.payload, [0xDE, 0xAD, 0xBE, 0xEF]);
        assert!(f.pad.is_empty() && f.trailer.is_empty());
        assert_eq!(f.emit(), b);
        assert_eq!(f.buffer_len(), b.len());
        let mut g = f.clone();
        g.seal().unwrap();
        assert_eq!(g, f, "a correct frame is already sealed");
    }

    #[test]
    fn layout_offsets_are_the_rtl_ones() {
        let b = golden();
        let l = locate(&b).unwrap();
        assert_eq!((l.ip, l.udp, l.bth, l.end), (14, 34, 42, 78));
        assert_eq!(l.bth, ipv4_frame::BTH);
        assert_eq!(b[ipv4_frame::BTH_OPCODE], 0x0A);
        assert_eq!(b[ipv4_frame::BTH_ACK_REQ], 0x80);
        assert_eq!(
            u32::from_be_bytes(b[ipv4_frame::RETH_RKEY..][..4].try_into().unwrap()),
            0x1234
        );
        assert_eq!(
            u16::from_be_bytes([b[ipv4_frame::UDP_DPORT], b[ipv4_frame::UDP_DPORT + 1]]),
            ROCEV2_UDP_PORT
        );
        let ip = locate_ip(&b[14..]).unwrap();
        assert_eq!((ip.ip, ip.udp, ip.bth, ip.end), (0, 20, 28, 64));
    }

    /// An ACK in a tagged IPv6 frame, padded past the datagram as a short Ethernet frame would be.
    #[test]
    fn vlan_ipv6_with_padding() {
        let mut f = Frame {
            eth: EthernetRepr {
                dst: [2, 0, 0, 0, 0, 1],
                src: [2, 0, 0, 0, 0, 2],
                ethertype: ETHERTYPE_VLAN,
            },
            vlan: Some(VlanRepr {
                pcp: 3,
                dei: false,
                vid: 100,
                ethertype: ETHERTYPE_IPV6,
            }),
            ip: IpRepr::V6(Ipv6Repr {
                traffic_class: 0x68,
                flow_label: 0xBEEF,
                payload_len: 0,
                next_header: IP_PROTO_UDP,
                hop_limit: 64,
                src: [0xFE; 16],
                dst: [0xFD; 16],
            }),
            udp: UdpRepr {
                src_port: 0xC000,
                dst_port: ROCEV2_UDP_PORT,
                length: 0,
                checksum: 0,
            },
            bth: BthRepr::parse(&Bth::new_unchecked(&[
                0x11, 0, 0xFF, 0xFF, 0, 0, 0, 7, 0, 0, 0, 9,
            ]))
            .unwrap(),
            ext: ExtHeaders {
                aeth: Some(AethRepr {
                    syndrome: 0x1F,
                    msn: 1,
                }),
                ..Default::default()
            },
            payload: vec![],
            pad: vec![],
            icrc: 0,
            trailer: vec![0; 6],
        };
        f.seal().unwrap();
        let b = f.emit();
        assert_eq!(b.len(), 14 + 4 + 40 + 8 + 12 + 4 + 4 + 6);
        assert!(icrc::check(&b).unwrap());
        assert_eq!(parse_frame(&b).unwrap(), f);
        assert_eq!(f.ip.dscp(), 26, "traffic class 0x68");
        assert_eq!(locate(&b).unwrap().end, b.len() - 6);
    }

    #[test]
    fn pad_count_splits_payload_and_pad() {
        let mut f = parse_frame(&golden()).unwrap();
        f.payload.truncate(3);
        f.pad = vec![0];
        f.seal().unwrap();
        assert_eq!(f.bth.pad_count, 1);
        let b = f.emit();
        let g = parse_frame(&b).unwrap();
        assert_eq!((g.payload.len(), g.pad.len()), (3, 1));
        assert!(icrc::check(&b).unwrap());
    }

    #[test]
    fn errors() {
        let b = golden();
        assert_eq!(parse_frame(&b[..30]), Err(Error::Truncated("IPv4")));
        assert_eq!(
            parse_frame(&b[..70]),
            Err(Error::BadLength("IPv4 total length"))
        );
        let mut other = b.clone();
        other[ipv4_frame::UDP_DPORT + 1] = 0xB8;
        assert_eq!(parse_frame(&other), Err(Error::NotRoce));
        let mut arp = b.clone();
        arp[12..14].copy_from_slice(&[0x08, 0x06]);
        assert_eq!(parse_frame(&arp), Err(Error::NotRoce));
        let mut unknown = b.clone();
        unknown[ipv4_frame::BTH_OPCODE] = 0x15;
        assert_eq!(parse_frame(&unknown), Err(Error::UnknownOpcode(0x15)));
        let mut empty = parse_frame(&b).unwrap();
        empty.payload.clear();
        empty.seal().unwrap();
        let mut pad = empty.emit();
        pad[ipv4_frame::BTH_FLAGS] = 0x10;
        assert_eq!(
            parse_frame(&pad),
            Err(Error::BadLength("PadCnt larger than the payload"))
        );
        let mut udp_len = b.clone();
        udp_len[ipv4_frame::UDP_LEN + 1] -= 4;
        assert_eq!(
            parse_frame(&udp_len),
            Err(Error::BadLength("UDP length disagrees with the IP length"))
        );
    }
}
