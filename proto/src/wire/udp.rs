//! UDP header (RFC 768). RoCEv2 senders usually leave the checksum 0 (the RoCEv2 annex allows it over
//! IPv4); the ICRC treats it as all ones.
use super::{need, Error};

view! {
    /// A UDP datagram.
    UdpPacket, "UDP", len 8, variable;
    /// Flow entropy for ECMP, fixed per QP in RoCEv2.
    SRC_PORT @ 0: u16 => src_port, set_src_port;
    DST_PORT @ 2: u16 => dst_port, set_dst_port;
    /// Header and payload.
    LENGTH @ 4: u16 => length, set_length;
    CHECKSUM @ 6: u16 => checksum, set_checksum;
}

impl<T: AsRef<[u8]>> UdpPacket<T> {
    /// Checks that the header and the `len` bytes it announces are in the buffer.
    pub fn check_len(&self) -> Result<(), Error> {
        let b = self.buffer.as_ref();
        need(b, LEN, "UDP")?;
        let n = self.length() as usize;
        if n < LEN || n > b.len() {
            return Err(Error::BadLength("UDP length"));
        }
        Ok(())
    }
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[LEN..self.length() as usize]
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UdpRepr {
    pub src_port: u16,
    pub dst_port: u16,
    pub length: u16,
    pub checksum: u16,
}

impl UdpRepr {
    pub fn parse<T: AsRef<[u8]>>(v: &UdpPacket<T>) -> Result<Self, Error> {
        v.check_len()?;
        Ok(UdpRepr {
            src_port: v.src_port(),
            dst_port: v.dst_port(),
            length: v.length(),
            checksum: v.checksum(),
        })
    }
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, v: &mut UdpPacket<T>) {
        v.set_src_port(self.src_port);
        v.set_dst_port(self.dst_port);
        v.set_length(self.length);
        v.set_checksum(self.checksum);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_bytes() {
        let golden = [0xC1, 0x23, 0x12, 0xB7, 0x00, 0x0C, 0x00, 0x00, 1, 2, 3, 4];
        let v = UdpPacket::new_checked(&golden[..]).unwrap();
        let r = UdpRepr::parse(&v).unwrap();
        assert_eq!(
            r,
            UdpRepr {
                src_port: 49443,
                dst_port: super::super::ROCEV2_UDP_PORT,
                length: 12,
                checksum: 0
            }
        );
        assert_eq!(v.payload(), [1, 2, 3, 4]);
        let mut out = [0u8; 8];
        r.emit(&mut UdpPacket::new_unchecked(&mut out[..]));
        assert_eq!(out, golden[..8]);
        assert_eq!(
            UdpPacket::new_checked(&golden[..11]),
            Err(Error::BadLength("UDP length"))
        );
    }
}
