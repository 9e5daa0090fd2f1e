//! IPv6 header (RFC 8200). RoCEv2 puts UDP right after it (no extension headers).
use super::{need, Error};

view! {
    /// An IPv6 packet.
    Ipv6Packet, "IPv6", len 40, variable;
    VERSION @ 0: bits8(0xF0) => version, set_version;
    /// DSCP and ECN, across the first two bytes; the ICRC treats it as all ones.
    TRAFFIC_CLASS @ 0: bits16(0x0FF0) => traffic_class, set_traffic_class;
    /// Twenty bits; the ICRC treats it as all ones.
    FLOW_LABEL @ 0: bits32(0x000F_FFFF) => flow_label, set_flow_label;
    PAYLOAD_LEN @ 4: u16 => payload_len, set_payload_len;
    NEXT_HEADER @ 6: u8 => next_header, set_next_header;
    /// The ICRC treats it as all ones.
    HOP_LIMIT @ 7: u8 => hop_limit, set_hop_limit;
    SRC @ 8: bytes(16) => src_addr, set_src_addr;
    DST @ 24: bytes(16) => dst_addr, set_dst_addr;
}

impl<T: AsRef<[u8]>> Ipv6Packet<T> {
    /// Checks that the header and the `payload_len` bytes it announces are in the buffer.
    pub fn check_len(&self) -> Result<(), Error> {
        let b = self.buffer.as_ref();
        need(b, LEN, "IPv6")?;
        if LEN + self.payload_len() as usize > b.len() {
            return Err(Error::BadLength("IPv6 payload length"));
        }
        Ok(())
    }
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[LEN..LEN + self.payload_len() as usize]
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
    pub fn parse<T: AsRef<[u8]>>(v: &Ipv6Packet<T>) -> Result<Self, Error> {
        need(v.buffer.as_ref(), LEN, "IPv6")?;
        if v.version() != 6 {
            return Err(Error::Unsupported("IP version in an IPv6 EtherType"));
        }
        v.check_len()?;
        Ok(Ipv6Repr {
            traffic_class: v.traffic_class() as u8,
            flow_label: v.flow_label(),
            payload_len: v.payload_len(),
            next_header: v.next_header(),
            hop_limit: v.hop_limit(),
            src: v.src_addr(),
            dst: v.dst_addr(),
        })
    }
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, v: &mut Ipv6Packet<T>) {
        v.set_version(6);
        v.set_traffic_class(self.traffic_class as u16);
        v.set_flow_label(self.flow_label);
        v.set_payload_len(self.payload_len);
        v.set_next_header(self.next_header);
        v.set_hop_limit(self.hop_limit);
        v.set_src_addr(self.src);
        v.set_dst_addr(self.dst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_bytes() {
        let mut golden = vec![
            0x6A, 0xB1, 0x23, 0x45, 0x00, 0x08, 17,
            64, // TC 0xAB, flow label 0x12345, payload 8
        ];
        golden.extend((0..32).map(|i| i as u8)); // src 00..0f, dst 10..1f
        golden.extend([0; 8]);
        let v = Ipv6Packet::new_checked(&golden[..]).unwrap();
        let r = Ipv6Repr::parse(&v).unwrap();
        assert_eq!(r.traffic_class, 0xAB);
        assert_eq!(r.flow_label, 0x1_2345);
        assert_eq!((r.payload_len, r.next_header, r.hop_limit), (8, 17, 64));
        assert_eq!(r.src[15], 15);
        assert_eq!(r.dst[0], 16);
        let mut out = vec![0u8; 48];
        r.emit(&mut Ipv6Packet::new_unchecked(&mut out[..]));
        assert_eq!(out, golden);
        assert_eq!(
            Ipv6Packet::new_checked(&golden[..47]),
            Err(Error::BadLength("IPv6 payload length"))
        );
    }
}
