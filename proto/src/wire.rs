//! Header layouts and packet views: each header as a `Repr` with `parse` (checking the length) and `emit`,
//! and a whole RoCEv2 frame as [`Frame`]. Every field is kept, reserved bits included, so parse → emit
//! reproduces a frame byte for byte. Offsets are the IBA's and the IETF's (IBA vol 1 §9.2–9.5, RFC 791,
//! RFC 8200, RFC 768, IEEE 802.1Q).
use crate::opcode::{self, hdr, EXT_ORDER};

/// Header lengths in bytes.
pub mod len {
    pub const ETH: usize = 14;
    pub const VLAN: usize = 4;
    pub const IPV4: usize = 20;
    pub const IPV6: usize = 40;
    pub const UDP: usize = 8;
    pub const BTH: usize = 12;
    pub const RETH: usize = 16;
    pub const AETH: usize = 4;
    pub const IMM_DT: usize = 4;
    pub const IETH: usize = 4;
    pub const ATOMIC_ETH: usize = 28;
    pub const ATOMIC_ACK_ETH: usize = 8;
    pub const DETH: usize = 8;
    pub const ICRC: usize = 4;
}

/// Byte offsets in an untagged Ethernet II + IPv4 (no options) + UDP RoCEv2 frame: what the RTL reads.
pub mod ipv4_frame {
    use super::len;
    pub const IP: usize = len::ETH;
    pub const IP_TOS: usize = IP + 1;
    pub const IP_TOTAL_LEN: usize = IP + 2;
    pub const IP_TTL: usize = IP + 8;
    pub const IP_PROTOCOL: usize = IP + 9;
    pub const IP_CHECKSUM: usize = IP + 10;
    pub const IP_DST: usize = IP + 16;
    pub const UDP: usize = IP + len::IPV4;
    pub const UDP_DPORT: usize = UDP + 2;
    pub const UDP_CHECKSUM: usize = UDP + 6;
    pub const BTH: usize = UDP + len::UDP;
    pub const BTH_OPCODE: usize = BTH;
    pub const BTH_FLAGS: usize = BTH + 1;
    pub const BTH_RESV8A: usize = BTH + 4;
    pub const BTH_DEST_QP: usize = BTH + 5;
    pub const BTH_ACK_REQ: usize = BTH + 8;
    pub const BTH_PSN: usize = BTH + 9;
    /// First extension header (RETH, AETH, ...).
    pub const EXT: usize = BTH + len::BTH;
    pub const RETH_VA: usize = EXT;
    pub const RETH_RKEY: usize = EXT + 8;
    pub const RETH_DMA_LEN: usize = EXT + 12;
    pub const AETH_SYNDROME: usize = EXT;
    pub const AETH_MSN: usize = EXT + 1;
}

pub const ETHERTYPE_IPV4: u16 = 0x0800;
pub const ETHERTYPE_IPV6: u16 = 0x86DD;
pub const ETHERTYPE_VLAN: u16 = 0x8100;
pub const IP_PROTO_UDP: u8 = 17;
/// RoCEv2's UDP destination port (IANA).
pub const ROCEV2_UDP_PORT: u16 = 4791;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// The buffer ends before the named header does.
    Truncated(&'static str),
    /// Not Ethernet/[802.1Q]/IPv4|IPv6/UDP to port 4791.
    NotRoce,
    /// An IPv4 header with options (IHL != 5) or a version that does not match.
    Unsupported(&'static str),
    UnknownOpcode(u8),
    /// Lengths in the headers disagree with each other or the frame.
    BadLength,
}

fn be16(b: &[u8], o: usize) -> u16 {
    u16::from_be_bytes([b[o], b[o + 1]])
}
fn be24(b: &[u8], o: usize) -> u32 {
    u32::from_be_bytes([0, b[o], b[o + 1], b[o + 2]])
}
fn be32(b: &[u8], o: usize) -> u32 {
    u32::from_be_bytes(b[o..o + 4].try_into().unwrap())
}
fn be64(b: &[u8], o: usize) -> u64 {
    u64::from_be_bytes(b[o..o + 8].try_into().unwrap())
}
fn check(b: &[u8], n: usize, what: &'static str) -> Result<(), Error> {
    if b.len() < n {
        Err(Error::Truncated(what))
    } else {
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EthernetRepr {
    pub dst: [u8; 6],
    pub src: [u8; 6],
    pub ethertype: u16,
}

impl EthernetRepr {
    pub fn parse(b: &[u8]) -> Result<Self, Error> {
        check(b, len::ETH, "Ethernet")?;
        Ok(EthernetRepr {
            dst: b[0..6].try_into().unwrap(),
            src: b[6..12].try_into().unwrap(),
            ethertype: be16(b, 12),
        })
    }
    pub fn emit(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.dst);
        out.extend_from_slice(&self.src);
        out.extend_from_slice(&self.ethertype.to_be_bytes());
    }
}

/// 802.1Q tag: priority (PCP), drop eligibility, VLAN ID, and the EtherType that follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VlanRepr {
    pub pcp: u8,
    pub dei: bool,
    pub vid: u16,
    pub ethertype: u16,
}

impl VlanRepr {
    pub fn parse(b: &[u8]) -> Result<Self, Error> {
        check(b, len::VLAN, "802.1Q")?;
        let tci = be16(b, 0);
        Ok(VlanRepr {
            pcp: (tci >> 13) as u8,
            dei: tci & 0x1000 != 0,
            vid: tci & 0xFFF,
            ethertype: be16(b, 2),
        })
    }
    pub fn emit(&self, out: &mut Vec<u8>) {
        let tci = (self.pcp as u16) << 13 | (self.dei as u16) << 12 | (self.vid & 0xFFF);
        out.extend_from_slice(&tci.to_be_bytes());
        out.extend_from_slice(&self.ethertype.to_be_bytes());
    }
}

/// IPv4 without options. TOS carries DSCP (upper six bits) and ECN (lower two).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv4Repr {
    pub tos: u8,
    pub total_len: u16,
    pub id: u16,
    pub flags_frag: u16,
    pub ttl: u8,
    pub protocol: u8,
    pub checksum: u16,
    pub src: [u8; 4],
    pub dst: [u8; 4],
}

impl Ipv4Repr {
    pub fn parse(b: &[u8]) -> Result<Self, Error> {
        check(b, len::IPV4, "IPv4")?;
        if b[0] != 0x45 {
            return Err(Error::Unsupported("IPv4 options or wrong version"));
        }
        Ok(Ipv4Repr {
            tos: b[1],
            total_len: be16(b, 2),
            id: be16(b, 4),
            flags_frag: be16(b, 6),
            ttl: b[8],
            protocol: b[9],
            checksum: be16(b, 10),
            src: b[12..16].try_into().unwrap(),
            dst: b[16..20].try_into().unwrap(),
        })
    }
    pub fn emit(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&[0x45, self.tos]);
        for v in [self.total_len, self.id, self.flags_frag] {
            out.extend_from_slice(&v.to_be_bytes());
        }
        out.extend_from_slice(&[self.ttl, self.protocol]);
        out.extend_from_slice(&self.checksum.to_be_bytes());
        out.extend_from_slice(&self.src);
        out.extend_from_slice(&self.dst);
    }
    /// The header checksum this header should carry (RFC 791).
    pub fn compute_checksum(&self) -> u16 {
        let mut h = Vec::with_capacity(len::IPV4);
        Ipv4Repr {
            checksum: 0,
            ..*self
        }
        .emit(&mut h);
        let mut s: u32 = h.chunks(2).map(|c| be16(c, 0) as u32).sum();
        while s > 0xFFFF {
            s = (s & 0xFFFF) + (s >> 16);
        }
        !(s as u16)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv6Repr {
    pub traffic_class: u8,
    pub flow_label: u32,
    pub payload_len: u16,
    pub next_header: u8,
    pub hop_limit: u8,
    pub src: [u8; 16],
    pub dst: [u8; 16],
}

impl Ipv6Repr {
    pub fn parse(b: &[u8]) -> Result<Self, Error> {
        check(b, len::IPV6, "IPv6")?;
        let w = be32(b, 0);
        if w >> 28 != 6 {
            return Err(Error::Unsupported("IPv6 version"));
        }
        Ok(Ipv6Repr {
            traffic_class: (w >> 20) as u8,
            flow_label: w & 0xF_FFFF,
            payload_len: be16(b, 4),
            next_header: b[6],
            hop_limit: b[7],
            src: b[8..24].try_into().unwrap(),
            dst: b[24..40].try_into().unwrap(),
        })
    }
    pub fn emit(&self, out: &mut Vec<u8>) {
        let w = 6 << 28 | (self.traffic_class as u32) << 20 | (self.flow_label & 0xF_FFFF);
        out.extend_from_slice(&w.to_be_bytes());
        out.extend_from_slice(&self.payload_len.to_be_bytes());
        out.extend_from_slice(&[self.next_header, self.hop_limit]);
        out.extend_from_slice(&self.src);
        out.extend_from_slice(&self.dst);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IpRepr {
    V4(Ipv4Repr),
    V6(Ipv6Repr),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UdpRepr {
    pub src_port: u16,
    pub dst_port: u16,
    pub len: u16,
    pub checksum: u16,
}

impl UdpRepr {
    pub fn parse(b: &[u8]) -> Result<Self, Error> {
        check(b, len::UDP, "UDP")?;
        Ok(UdpRepr {
            src_port: be16(b, 0),
            dst_port: be16(b, 2),
            len: be16(b, 4),
            checksum: be16(b, 6),
        })
    }
    pub fn emit(&self, out: &mut Vec<u8>) {
        for v in [self.src_port, self.dst_port, self.len, self.checksum] {
            out.extend_from_slice(&v.to_be_bytes());
        }
    }
}

/// Base Transport Header (§9.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BthRepr {
    pub opcode: u8,
    pub solicited: bool,
    pub mig_req: bool,
    pub pad_count: u8,
    pub tver: u8,
    pub pkey: u16,
    pub fecn: bool,
    pub becn: bool,
    /// The six reserved bits of byte 4 (resv6a), kept for byte-exact re-emission.
    pub resv6a: u8,
    pub dest_qp: u32,
    pub ack_req: bool,
    /// The seven reserved bits of byte 8 (resv7).
    pub resv7: u8,
    pub psn: u32,
}

impl BthRepr {
    pub fn parse(b: &[u8]) -> Result<Self, Error> {
        check(b, len::BTH, "BTH")?;
        Ok(BthRepr {
            opcode: b[0],
            solicited: b[1] & 0x80 != 0,
            mig_req: b[1] & 0x40 != 0,
            pad_count: (b[1] >> 4) & 3,
            tver: b[1] & 0xF,
            pkey: be16(b, 2),
            fecn: b[4] & 0x80 != 0,
            becn: b[4] & 0x40 != 0,
            resv6a: b[4] & 0x3F,
            dest_qp: be24(b, 5),
            ack_req: b[8] & 0x80 != 0,
            resv7: b[8] & 0x7F,
            psn: be24(b, 9),
        })
    }
    pub fn emit(&self, out: &mut Vec<u8>) {
        out.push(self.opcode);
        out.push(
            (self.solicited as u8) << 7
                | (self.mig_req as u8) << 6
                | (self.pad_count & 3) << 4
                | self.tver & 0xF,
        );
        out.extend_from_slice(&self.pkey.to_be_bytes());
        out.push((self.fecn as u8) << 7 | (self.becn as u8) << 6 | self.resv6a & 0x3F);
        out.extend_from_slice(&self.dest_qp.to_be_bytes()[1..]);
        out.push((self.ack_req as u8) << 7 | self.resv7 & 0x7F);
        out.extend_from_slice(&self.psn.to_be_bytes()[1..]);
    }
}

/// The extension headers between the BTH and the payload (§9.3–9.5, annex A17.9.3 for the CNP).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExtRepr {
    Deth {
        qkey: u32,
        resv8: u8,
        src_qp: u32,
    },
    Reth {
        va: u64,
        rkey: u32,
        dma_len: u32,
    },
    AtomicEth {
        va: u64,
        rkey: u32,
        swap_add: u64,
        compare: u64,
    },
    Aeth {
        syndrome: u8,
        msn: u32,
    },
    AtomicAckEth {
        orig: u64,
    },
    ImmDt(u32),
    Ieth {
        rkey: u32,
    },
    CnpPad([u8; 16]),
}

impl ExtRepr {
    fn parse(kind: u16, b: &[u8]) -> ExtRepr {
        match kind {
            hdr::DETH => ExtRepr::Deth {
                qkey: be32(b, 0),
                resv8: b[4],
                src_qp: be24(b, 5),
            },
            hdr::RETH => ExtRepr::Reth {
                va: be64(b, 0),
                rkey: be32(b, 8),
                dma_len: be32(b, 12),
            },
            hdr::ATOMIC_ETH => ExtRepr::AtomicEth {
                va: be64(b, 0),
                rkey: be32(b, 8),
                swap_add: be64(b, 12),
                compare: be64(b, 20),
            },
            hdr::AETH => ExtRepr::Aeth {
                syndrome: b[0],
                msn: be24(b, 1),
            },
            hdr::ATOMIC_ACK_ETH => ExtRepr::AtomicAckEth { orig: be64(b, 0) },
            hdr::IMM_DT => ExtRepr::ImmDt(be32(b, 0)),
            hdr::IETH => ExtRepr::Ieth { rkey: be32(b, 0) },
            _ => ExtRepr::CnpPad(b[..16].try_into().unwrap()),
        }
    }
    pub fn emit(&self, out: &mut Vec<u8>) {
        match *self {
            ExtRepr::Deth {
                qkey,
                resv8,
                src_qp,
            } => {
                out.extend_from_slice(&qkey.to_be_bytes());
                out.push(resv8);
                out.extend_from_slice(&src_qp.to_be_bytes()[1..]);
            }
            ExtRepr::Reth { va, rkey, dma_len } => {
                out.extend_from_slice(&va.to_be_bytes());
                out.extend_from_slice(&rkey.to_be_bytes());
                out.extend_from_slice(&dma_len.to_be_bytes());
            }
            ExtRepr::AtomicEth {
                va,
                rkey,
                swap_add,
                compare,
            } => {
                out.extend_from_slice(&va.to_be_bytes());
                out.extend_from_slice(&rkey.to_be_bytes());
                out.extend_from_slice(&swap_add.to_be_bytes());
                out.extend_from_slice(&compare.to_be_bytes());
            }
            ExtRepr::Aeth { syndrome, msn } => {
                out.push(syndrome);
                out.extend_from_slice(&msn.to_be_bytes()[1..]);
            }
            ExtRepr::AtomicAckEth { orig } => out.extend_from_slice(&orig.to_be_bytes()),
            ExtRepr::ImmDt(v) | ExtRepr::Ieth { rkey: v } => {
                out.extend_from_slice(&v.to_be_bytes())
            }
            ExtRepr::CnpPad(b) => out.extend_from_slice(&b),
        }
    }
}

/// A whole RoCEv2 frame (without FCS): headers, payload, pad, ICRC and any Ethernet padding after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub eth: EthernetRepr,
    pub vlan: Option<VlanRepr>,
    pub ip: IpRepr,
    pub udp: UdpRepr,
    pub bth: BthRepr,
    pub ext: Vec<ExtRepr>,
    pub payload: Vec<u8>,
    /// The BTH's PadCnt bytes after the payload (zero when sent correctly, kept as received).
    pub pad: Vec<u8>,
    pub icrc: u32,
    /// Bytes after the IP datagram: Ethernet padding of short frames.
    pub trailer: Vec<u8>,
}

impl Frame {
    pub fn parse(b: &[u8]) -> Result<Frame, Error> {
        let eth = EthernetRepr::parse(b)?;
        let mut at = len::ETH;
        let mut ethertype = eth.ethertype;
        let mut vlan = None;
        if ethertype == ETHERTYPE_VLAN {
            let v = VlanRepr::parse(&b[at..])?;
            ethertype = v.ethertype;
            vlan = Some(v);
            at += len::VLAN;
        }
        let (ip, ip_end) = match ethertype {
            ETHERTYPE_IPV4 => {
                let v4 = Ipv4Repr::parse(&b[at..])?;
                if v4.protocol != IP_PROTO_UDP {
                    return Err(Error::NotRoce);
                }
                let end = at + v4.total_len as usize;
                at += len::IPV4;
                (IpRepr::V4(v4), end)
            }
            ETHERTYPE_IPV6 => {
                let v6 = Ipv6Repr::parse(&b[at..])?;
                if v6.next_header != IP_PROTO_UDP {
                    return Err(Error::NotRoce);
                }
                let end = at + len::IPV6 + v6.payload_len as usize;
                at += len::IPV6;
                (IpRepr::V6(v6), end)
            }
            _ => return Err(Error::NotRoce),
        };
        if ip_end > b.len() {
            return Err(Error::BadLength);
        }
        let udp = UdpRepr::parse(&b[at..])?;
        if udp.dst_port != ROCEV2_UDP_PORT {
            return Err(Error::NotRoce);
        }
        if at + udp.len as usize != ip_end {
            return Err(Error::BadLength);
        }
        at += len::UDP;
        let bth = BthRepr::parse(&b[at..ip_end])?;
        at += len::BTH;
        let info = opcode::info(bth.opcode).ok_or(Error::UnknownOpcode(bth.opcode))?;
        let mut ext = Vec::new();
        for (kind, n) in EXT_ORDER {
            if info.headers & kind != 0 {
                check(&b[at..ip_end], n, "extension header")?;
                ext.push(ExtRepr::parse(kind, &b[at..]));
                at += n;
            }
        }
        let pad = bth.pad_count as usize;
        let payload_end = ip_end
            .checked_sub(len::ICRC + pad)
            .filter(|&e| e >= at)
            .ok_or(Error::BadLength)?;
        Ok(Frame {
            eth,
            vlan,
            ip,
            udp,
            bth,
            ext,
            payload: b[at..payload_end].to_vec(),
            pad: b[payload_end..payload_end + pad].to_vec(),
            icrc: u32::from_le_bytes(b[ip_end - 4..ip_end].try_into().unwrap()),
            trailer: b[ip_end..].to_vec(),
        })
    }

    /// The frame's bytes, exactly as parsed (lengths and checksums are the stored ones).
    pub fn emit(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.eth.emit(&mut out);
        if let Some(v) = &self.vlan {
            v.emit(&mut out);
        }
        match &self.ip {
            IpRepr::V4(v4) => v4.emit(&mut out),
            IpRepr::V6(v6) => v6.emit(&mut out),
        }
        self.udp.emit(&mut out);
        self.bth.emit(&mut out);
        for e in &self.ext {
            e.emit(&mut out);
        }
        out.extend_from_slice(&self.payload);
        out.extend_from_slice(&self.pad);
        out.extend_from_slice(&self.icrc.to_le_bytes());
        out.extend_from_slice(&self.trailer);
        out
    }

    pub fn opcode_name(&self) -> &'static str {
        opcode::info(self.bth.opcode).map_or("?", |i| i.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-built RC RDMA WRITE ONLY: Ethernet, IPv4, UDP, BTH, RETH, 4 payload bytes, ICRC.
    fn golden() -> Vec<u8> {
        let mut f = vec![
            2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00, // Ethernet
            0x45, 0x02, 0, 64, 0, 0, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0,
            2, // IPv4, total 64
            0xC0, 0x00, 0x12, 0xB7, 0, 44, 0, 0, // UDP, length 44
            0x0A, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x11, 0x80, 0x00, 0x01, 0x00, // BTH
            0, 0, 0, 1, 0, 0, 0x10, 0, 0, 0, 0x12, 0x34, 0, 0, 0, 4, // RETH
            0xDE, 0xAD, 0xBE, 0xEF, // payload
        ];
        let ck = Ipv4Repr::parse(&f[14..]).unwrap().compute_checksum();
        f[24..26].copy_from_slice(&ck.to_be_bytes());
        f.extend_from_slice(&[0; 4]);
        crate::icrc::insert(&mut f).unwrap();
        f
    }

    #[test]
    fn parses_fields_and_reemits_bytes() {
        let b = golden();
        let f = Frame::parse(&b).unwrap();
        assert_eq!(f.bth.opcode, 0x0A);
        assert_eq!(f.opcode_name(), "RC_RDMA_WRITE_ONLY");
        assert_eq!(f.bth.dest_qp, 0x11);
        assert!(f.bth.ack_req);
        assert_eq!(f.bth.psn, 0x100);
        assert_eq!(
            f.ext,
            vec![ExtRepr::Reth {
                va: 0x1_0000_1000,
                rkey: 0x1234,
                dma_len: 4
            }]
        );
        assert_eq!(f.payload, [0xDE, 0xAD, 0xBE, 0xEF]);
        assert_eq!(f.emit(), b);
        assert!(crate::icrc::check(&b).unwrap());
    }

    #[test]
    fn lengths_are_checked() {
        let b = golden();
        assert_eq!(Frame::parse(&b[..30]), Err(Error::Truncated("IPv4")));
        assert_eq!(Frame::parse(&b[..70]), Err(Error::BadLength));
        let mut not_roce = b.clone();
        not_roce[37] = 0xB8;
        assert_eq!(Frame::parse(&not_roce), Err(Error::NotRoce));
    }

    #[test]
    fn offsets_agree_with_the_reprs() {
        let b = golden();
        assert_eq!(b[ipv4_frame::BTH_OPCODE], 0x0A);
        assert_eq!(be24(&b, ipv4_frame::BTH_DEST_QP), 0x11);
        assert_eq!(be24(&b, ipv4_frame::BTH_PSN), 0x100);
        assert_eq!(b[ipv4_frame::BTH_ACK_REQ], 0x80);
        assert_eq!(be32(&b, ipv4_frame::RETH_RKEY), 0x1234);
        assert_eq!(be16(&b, ipv4_frame::UDP_DPORT), ROCEV2_UDP_PORT);
    }
}
