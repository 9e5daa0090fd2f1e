//! IPv4 header (RFC 791). RoCEv2 packets carry no options and are never fragmented (the ICRC and the
//! transport need the whole packet), so the `Repr` refuses both; the view handles any header length.
use super::{need, Error};

view! {
    /// An IPv4 packet.
    Ipv4Packet, "IPv4", len 20, variable;
    VERSION @ 0: bits8(0xF0) => version, set_version;
    /// Header length in 32-bit words.
    IHL @ 0: bits8(0x0F) => ihl, set_ihl;
    /// DSCP (upper six bits) and ECN (lower two); the ICRC treats it as all ones.
    TOS @ 1: u8 => tos, set_tos;
    DSCP @ 1: bits8(0xFC) => dscp, set_dscp;
    /// ECN codepoint: 0 not-ECT, 1 ECT(1), 2 ECT(0), 3 CE (RFC 3168); DCQCN reacts to CE.
    ECN @ 1: bits8(0x03) => ecn, set_ecn;
    TOTAL_LEN @ 2: u16 => total_len, set_total_len;
    IDENT @ 4: u16 => ident, set_ident;
    /// Flags and fragment offset as one word.
    FLAGS_FRAG @ 6: u16 => flags_frag, set_flags_frag;
    DONT_FRAG @ 6: flag(0x40) => dont_frag, set_dont_frag;
    TTL @ 8: u8 => ttl, set_ttl;
    PROTOCOL @ 9: u8 => protocol, set_protocol;
    CHECKSUM @ 10: u16 => checksum, set_checksum;
    SRC @ 12: bytes(4) => src_addr, set_src_addr;
    DST @ 16: bytes(4) => dst_addr, set_dst_addr;
}

/// The "don't fragment" bit in [`field::FLAGS_FRAG`]; every other bit there means a fragment.
const DF: u16 = 0x4000;

/// The Internet checksum (RFC 1071) of `data`: the complement of its ones'-complement sum. Over a header
/// whose checksum field is filled in, it is 0 when the checksum is right.
pub fn checksum(data: &[u8]) -> u16 {
    let mut sum: u32 = data
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32)
        .sum();
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    !(sum as u16)
}

impl<T: AsRef<[u8]>> Ipv4Packet<T> {
    /// Checks that the header and the `total_len` bytes it announces are in the buffer (which may be longer:
    /// Ethernet pads short frames).
    pub fn check_len(&self) -> Result<(), Error> {
        let b = self.buffer.as_ref();
        need(b, LEN, "IPv4")?;
        let hl = self.header_len();
        need(b, hl, "IPv4 options")?;
        let total = self.total_len() as usize;
        if total < hl || total > b.len() {
            return Err(Error::BadLength("IPv4 total length"));
        }
        Ok(())
    }
    pub fn header_len(&self) -> usize {
        self.ihl() as usize * 4
    }
    pub fn verify_checksum(&self) -> bool {
        checksum(&self.buffer.as_ref()[..self.header_len()]) == 0
    }
    /// The bytes after the header, up to `total_len`.
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[self.header_len()..self.total_len() as usize]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv4Packet<T> {
    pub fn fill_checksum(&mut self) {
        self.set_checksum(0);
        let c = checksum(&self.buffer.as_ref()[..self.header_len()]);
        self.set_checksum(c);
    }
}

/// An IPv4 header without options, not a fragment. The checksum is kept as received, so that a header
/// with a wrong one re-emits as it was; [`Ipv4Repr::compute_checksum`] gives the right one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ipv4Repr {
    pub tos: u8,
    pub total_len: u16,
    pub ident: u16,
    pub dont_frag: bool,
    pub ttl: u8,
    pub protocol: u8,
    pub checksum: u16,
    pub src: [u8; 4],
    pub dst: [u8; 4],
}

impl Ipv4Repr {
    pub fn parse<T: AsRef<[u8]>>(v: &Ipv4Packet<T>) -> Result<Self, Error> {
        need(v.buffer.as_ref(), LEN, "IPv4")?;
        if v.version() != 4 {
            return Err(Error::Unsupported("IP version in an IPv4 EtherType"));
        }
        if v.ihl() != 5 {
            return Err(Error::Unsupported("IPv4 options"));
        }
        if v.flags_frag() & !DF != 0 {
            return Err(Error::Unsupported("IPv4 fragment"));
        }
        v.check_len()?;
        Ok(Ipv4Repr {
            tos: v.tos(),
            total_len: v.total_len(),
            ident: v.ident(),
            dont_frag: v.dont_frag(),
            ttl: v.ttl(),
            protocol: v.protocol(),
            checksum: v.checksum(),
            src: v.src_addr(),
            dst: v.dst_addr(),
        })
    }
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, v: &mut Ipv4Packet<T>) {
        v.set_version(4);
        v.set_ihl(5);
        v.set_tos(self.tos);
        v.set_total_len(self.total_len);
        v.set_ident(self.ident);
        v.set_flags_frag(if self.dont_frag { DF } else { 0 });
        v.set_ttl(self.ttl);
        v.set_protocol(self.protocol);
        v.set_checksum(self.checksum);
        v.set_src_addr(self.src);
        v.set_dst_addr(self.dst);
    }
    /// The header checksum this header should carry.
    pub fn compute_checksum(&self) -> u16 {
        let mut h = [0u8; LEN];
        let mut v = Ipv4Packet::new_unchecked(&mut h[..]);
        self.emit(&mut v);
        v.fill_checksum();
        v.checksum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shaped like an rxe ACK's header: 10.0.0.2 → 10.0.0.1, UDP, total length 48, DF, TTL 64.
    const GOLDEN: [u8; 20] = [
        0x45, 0x00, 0x00, 0x30, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 10, 0, 0, 2, 10, 0,
        0, 1,
    ];

    fn golden() -> Vec<u8> {
        let mut b = GOLDEN.to_vec();
        b.resize(48, 0);
        Ipv4Packet::new_unchecked(&mut b[..]).fill_checksum();
        b
    }

    #[test]
    fn golden_bytes() {
        let b = golden();
        let v = Ipv4Packet::new_checked(&b[..]).unwrap();
        assert!(v.verify_checksum());
        let r = Ipv4Repr::parse(&v).unwrap();
        assert_eq!(r.total_len, 48);
        assert_eq!(r.ident, 0x1234);
        assert!(r.dont_frag);
        assert_eq!((r.ttl, r.protocol), (64, super::super::IP_PROTO_UDP));
        assert_eq!((r.src, r.dst), ([10, 0, 0, 2], [10, 0, 0, 1]));
        assert_eq!(r.checksum, r.compute_checksum());
        assert_eq!(v.payload().len(), 28);
        let mut out = [0u8; 48];
        r.emit(&mut Ipv4Packet::new_unchecked(&mut out[..]));
        assert_eq!(out[..20], b[..20]);
    }

    #[test]
    fn checksum_known_value() {
        // RFC 1071's example words sum to 0xDDF2, so the checksum is 0x220D.
        assert_eq!(
            checksum(&[0x00, 0x01, 0xF2, 0x03, 0xF4, 0xF5, 0xF6, 0xF7]),
            0x220D
        );
    }

    #[test]
    fn ecn_and_dscp_share_the_tos() {
        let mut b = golden();
        let mut v = Ipv4Packet::new_unchecked(&mut b[..]);
        v.set_dscp(26);
        v.set_ecn(3);
        assert_eq!(v.tos(), 26 << 2 | 3);
        assert!(!v.verify_checksum());
        v.fill_checksum();
        assert!(v.verify_checksum());
    }

    #[test]
    fn refuses_what_roce_does_not_use() {
        let mut b = golden();
        b[0] = 0x46;
        let v = Ipv4Packet::new_unchecked(&b[..]);
        assert_eq!(Ipv4Repr::parse(&v), Err(Error::Unsupported("IPv4 options")));
        let mut b = golden();
        b[6] = 0x20; // more fragments
        let v = Ipv4Packet::new_unchecked(&b[..]);
        assert_eq!(
            Ipv4Repr::parse(&v),
            Err(Error::Unsupported("IPv4 fragment"))
        );
        let b = golden();
        assert_eq!(
            Ipv4Packet::new_checked(&b[..40]),
            Err(Error::BadLength("IPv4 total length"))
        );
    }
}
