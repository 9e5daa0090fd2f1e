//! Ethernet II header (IEEE 802.3 §3.2.6): the frame as the MAC hands it over, without preamble and FCS.
use super::Error;

view! {
    /// An Ethernet II frame.
    EthernetFrame, "Ethernet", len 14, fixed;
    DST @ 0: bytes(6) => dst_addr, set_dst_addr;
    SRC @ 6: bytes(6) => src_addr, set_src_addr;
    ETHERTYPE @ 12: u16 => ethertype, set_ethertype;
}

impl<T: AsRef<[u8]>> EthernetFrame<T> {
    /// Everything after the header: an 802.1Q tag or the network-layer packet (and any padding).
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[LEN..]
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EthernetRepr {
    pub dst: [u8; 6],
    pub src: [u8; 6],
    /// 0x8100 when an 802.1Q tag follows.
    pub ethertype: u16,
}

impl EthernetRepr {
    pub fn parse<T: AsRef<[u8]>>(v: &EthernetFrame<T>) -> Result<Self, Error> {
        v.check_len()?;
        Ok(EthernetRepr {
            dst: v.dst_addr(),
            src: v.src_addr(),
            ethertype: v.ethertype(),
        })
    }
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, v: &mut EthernetFrame<T>) {
        v.set_dst_addr(self.dst);
        v.set_src_addr(self.src);
        v.set_ethertype(self.ethertype);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOLDEN: [u8; 14] = [0x52, 0x54, 0, 0, 0, 1, 0x52, 0x54, 0, 0, 0, 2, 0x08, 0x00];

    #[test]
    fn golden_bytes() {
        let v = EthernetFrame::new_checked(&GOLDEN[..]).unwrap();
        let r = EthernetRepr::parse(&v).unwrap();
        assert_eq!(r.dst, [0x52, 0x54, 0, 0, 0, 1]);
        assert_eq!(r.src, [0x52, 0x54, 0, 0, 0, 2]);
        assert_eq!(r.ethertype, super::super::ETHERTYPE_IPV4);
        let mut out = [0u8; 14];
        r.emit(&mut EthernetFrame::new_unchecked(&mut out[..]));
        assert_eq!(out, GOLDEN);
        assert_eq!(
            EthernetFrame::new_checked(&GOLDEN[..13]),
            Err(Error::Truncated("Ethernet"))
        );
    }
}
