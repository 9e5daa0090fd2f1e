//! The IEEE 802.1Q tag's last four bytes (TCI and the inner EtherType), after an outer EtherType of 0x8100.
//! The PCP is the priority PFC pauses (802.1Qbb).
use super::Error;

view! {
    /// The tag control information and the EtherType it precedes.
    VlanTag, "802.1Q", len 4, fixed;
    /// Priority code point (three bits).
    PCP @ 0: bits8(0xE0) => pcp, set_pcp;
    /// Drop eligible indicator.
    DEI @ 0: flag(0x10) => dei, set_dei;
    /// VLAN identifier (twelve bits).
    VID @ 0: bits16(0x0FFF) => vid, set_vid;
    ETHERTYPE @ 2: u16 => ethertype, set_ethertype;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VlanRepr {
    pub pcp: u8,
    pub dei: bool,
    pub vid: u16,
    pub ethertype: u16,
}

impl VlanRepr {
    pub fn parse<T: AsRef<[u8]>>(v: &VlanTag<T>) -> Result<Self, Error> {
        v.check_len()?;
        Ok(VlanRepr {
            pcp: v.pcp(),
            dei: v.dei(),
            vid: v.vid(),
            ethertype: v.ethertype(),
        })
    }
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, v: &mut VlanTag<T>) {
        v.set_pcp(self.pcp);
        v.set_dei(self.dei);
        v.set_vid(self.vid);
        v.set_ethertype(self.ethertype);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_bytes() {
        // PCP 3, DEI 1, VID 0x123, IPv6 inside.
        let golden = [0x71, 0x23, 0x86, 0xDD];
        let r = VlanRepr::parse(&VlanTag::new_unchecked(&golden[..])).unwrap();
        assert_eq!(
            r,
            VlanRepr {
                pcp: 3,
                dei: true,
                vid: 0x123,
                ethertype: super::super::ETHERTYPE_IPV6
            }
        );
        let mut out = [0u8; 4];
        r.emit(&mut VlanTag::new_unchecked(&mut out[..]));
        assert_eq!(out, golden);
    }
}
