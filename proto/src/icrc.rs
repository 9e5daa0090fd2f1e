//! The invariant CRC of RoCEv2 (IBA vol 1 §7.8 with RoCEv2 annex A17.3.3): CRC-32 (the Ethernet/zlib
//! polynomial, `crc32fast` semantics) over 8 bytes of ones standing for the masked LRH, the IP header with
//! its variant fields as ones (IPv4 TOS, TTL, header checksum; IPv6 traffic class, flow label, hop limit),
//! the UDP header with its checksum as ones, the BTH with byte 4 (FECN, BECN, resv6a) as ones, and the
//! rest of the packet up to the ICRC. The ICRC goes on the wire least-significant byte first.
use crate::wire::{len, Error, ETHERTYPE_IPV4, ETHERTYPE_IPV6, ETHERTYPE_VLAN};

/// Byte offsets that count as all ones in an untagged IPv4 frame (what the RTL masks).
pub const MASKED_BYTES_IPV4: [usize; 7] = {
    use crate::wire::ipv4_frame::*;
    [
        IP_TOS,
        IP_TTL,
        IP_CHECKSUM,
        IP_CHECKSUM + 1,
        UDP_CHECKSUM,
        UDP_CHECKSUM + 1,
        BTH_RESV8A,
    ]
};

/// Where the IP header starts and where the IP datagram ends.
fn ip_bounds(frame: &[u8]) -> Result<(usize, usize, bool), Error> {
    if frame.len() < len::ETH {
        return Err(Error::Truncated("Ethernet"));
    }
    let mut at = len::ETH;
    let mut ethertype = u16::from_be_bytes([frame[12], frame[13]]);
    if ethertype == ETHERTYPE_VLAN {
        if frame.len() < at + len::VLAN {
            return Err(Error::Truncated("802.1Q"));
        }
        ethertype = u16::from_be_bytes([frame[16], frame[17]]);
        at += len::VLAN;
    }
    let (end, v4) = match ethertype {
        ETHERTYPE_IPV4 if frame.len() >= at + len::IPV4 => (
            at + u16::from_be_bytes([frame[at + 2], frame[at + 3]]) as usize,
            true,
        ),
        ETHERTYPE_IPV6 if frame.len() >= at + len::IPV6 => (
            at + len::IPV6 + u16::from_be_bytes([frame[at + 4], frame[at + 5]]) as usize,
            false,
        ),
        _ => return Err(Error::NotRoce),
    };
    let ip_len = if v4 { len::IPV4 } else { len::IPV6 };
    if end > frame.len() || end < at + ip_len + len::UDP + len::BTH + len::ICRC {
        return Err(Error::BadLength);
    }
    Ok((at, end, v4))
}

/// The ICRC `frame` (an Ethernet frame without FCS) should carry.
pub fn compute(frame: &[u8]) -> Result<u32, Error> {
    let (ip, end, v4) = ip_bounds(frame)?;
    let mut m = Vec::with_capacity(8 + end - ip);
    m.extend_from_slice(&[0xFF; 8]);
    m.extend_from_slice(&frame[ip..end - len::ICRC]);
    let h = 8; // the IP header's offset in `m`
    let udp = if v4 {
        m[h + 1] = 0xFF; // TOS
        m[h + 8] = 0xFF; // TTL
        m[h + 10..h + 12].fill(0xFF); // header checksum
        h + len::IPV4
    } else {
        m[h] |= 0x0F; // traffic class, low nibble of byte 0 ...
        m[h + 1..h + 4].fill(0xFF); // ... its high nibble of byte 1 and the flow label
        m[h + 7] = 0xFF; // hop limit
        h + len::IPV6
    };
    m[udp + 6..udp + 8].fill(0xFF);
    m[udp + len::UDP + 4] = 0xFF; // BTH resv8a: FECN, BECN
    Ok(crc32fast::hash(&m))
}

/// Whether the frame's ICRC is right.
pub fn check(frame: &[u8]) -> Result<bool, Error> {
    let (_, end, _) = ip_bounds(frame)?;
    Ok(compute(frame)?.to_le_bytes() == frame[end - len::ICRC..end])
}

/// Writes the right ICRC into the frame's last 4 bytes of the IP datagram.
pub fn insert(frame: &mut [u8]) -> Result<(), Error> {
    let (_, end, _) = ip_bounds(frame)?;
    let c = compute(frame)?;
    frame[end - len::ICRC..end].copy_from_slice(&c.to_le_bytes());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masked_offsets_are_the_rtl_ones() {
        assert_eq!(MASKED_BYTES_IPV4, [15, 22, 24, 25, 40, 41, 46]);
    }

    #[test]
    fn variant_fields_do_not_change_the_icrc() {
        // A minimal RC ACK: Ethernet, IPv4 (48), UDP (28), BTH, AETH, ICRC.
        let mut f = vec![0u8; 14 + 48];
        f[12] = 0x08;
        f[14] = 0x45;
        f[17] = 48;
        f[23] = 17;
        f[36..38].copy_from_slice(&4791u16.to_be_bytes());
        f[39] = 28;
        f[42] = 0x11;
        insert(&mut f).unwrap();
        assert!(check(&f).unwrap());
        let mut g = f.clone();
        for p in MASKED_BYTES_IPV4 {
            g[p] ^= 0x5A;
        }
        assert!(check(&g).unwrap(), "masked fields must not matter");
        g[50] ^= 1; // the PSN
        assert!(!check(&g).unwrap());
        // Ethernet padding after the datagram is not covered.
        f.extend_from_slice(&[0xEE; 2]);
        assert!(check(&f).unwrap());
    }
}
