//! The invariant CRC of RoCEv2 (IBA vol 1 §7.8.1 with RoCEv2 annex A17.3.3): CRC-32 (the Ethernet/zlib
//! polynomial, `crc32fast` semantics) over
//! 1. eight bytes of ones, standing for the masked LRH of native InfiniBand,
//! 2. the IP header with its variant fields as ones (IPv4 TOS, TTL, header checksum; IPv6 traffic class,
//!    flow label, hop limit), since routers may rewrite them,
//! 3. the UDP header with its checksum as ones,
//! 4. the BTH with byte 4 (FECN, BECN, resv6a) as ones,
//! 5. the rest of the packet up to the ICRC.
//!
//! The ICRC goes on the wire least-significant byte first. Its place is found from the IP length, not from
//! the end of the frame, which may carry Ethernet padding.
use crate::wire::{
    ipv4_frame as f, ipv6_frame as g, len, locate, locate_ip, Bth, Error, Ipv4Packet, Ipv6Packet,
    UdpPacket,
};

/// Byte offsets that count as all ones in an untagged IPv4 frame (what the RTL masks).
pub const MASKED_BYTES_IPV4: [usize; 7] = [
    f::IP_TOS,
    f::IP_TTL,
    f::IP_CHECKSUM,
    f::IP_CHECKSUM + 1,
    f::UDP_CHECKSUM,
    f::UDP_CHECKSUM + 1,
    f::BTH_RESV8A,
];

/// Frame bits the ICRC counts as ones over IPv6 (annex A17.8), as (frame byte, bit mask): the traffic
/// class (byte 14's low nibble and byte 15's high one), the flow label (the rest of 15, 16 and 17), the
/// hop limit, the UDP checksum and the BTH's resv8a byte. The version nibble is covered.
pub const MASKED_BITS_IPV6: [(usize, u8); 8] = [
    (g::IP_VERSION_TC, 0x0F),
    (g::IP_VERSION_TC + 1, 0xFF),
    (g::IP_VERSION_TC + 2, 0xFF),
    (g::IP_VERSION_TC + 3, 0xFF),
    (g::IP_HOP_LIMIT, 0xFF),
    (g::UDP_CHECKSUM, 0xFF),
    (g::UDP_CHECKSUM + 1, 0xFF),
    (g::BTH_RESV8A, 0xFF),
];

/// The ICRC of an IP datagram `d` (starting with its IP header, ending with the ICRC).
fn over(d: &[u8], ipv6: bool) -> u32 {
    let ip_len = if ipv6 { len::IPV6 } else { len::IPV4 };
    let n = ip_len + len::UDP + len::BTH;
    let mut h = [0u8; len::IPV6 + len::UDP + len::BTH];
    let h = &mut h[..n];
    h.copy_from_slice(&d[..n]);
    if ipv6 {
        let mut ip = Ipv6Packet::new_unchecked(&mut h[..]);
        ip.set_traffic_class(0xFF);
        ip.set_flow_label(0xF_FFFF);
        ip.set_hop_limit(0xFF);
    } else {
        let mut ip = Ipv4Packet::new_unchecked(&mut h[..]);
        ip.set_tos(0xFF);
        ip.set_ttl(0xFF);
        ip.set_checksum(0xFFFF);
    }
    UdpPacket::new_unchecked(&mut h[ip_len..]).set_checksum(0xFFFF);
    Bth::new_unchecked(&mut h[ip_len + len::UDP..]).set_resv8a(0xFF);
    let mut crc = crc32fast::Hasher::new();
    crc.update(&[0xFF; 8]);
    crc.update(h);
    crc.update(&d[n..d.len() - len::ICRC]);
    crc.finalize()
}

/// The ICRC an Ethernet frame (without FCS) should carry.
pub fn compute(frame: &[u8]) -> Result<u32, Error> {
    let l = locate(frame)?;
    Ok(over(&frame[l.ip..l.end], l.ipv6))
}

/// The ICRC an IP datagram (starting with the IPv4 or IPv6 header) should carry.
pub fn compute_ip(datagram: &[u8]) -> Result<u32, Error> {
    let l = locate_ip(datagram)?;
    Ok(over(&datagram[..l.end], l.ipv6))
}

/// Whether an Ethernet frame's ICRC is right.
pub fn check(frame: &[u8]) -> Result<bool, Error> {
    let l = locate(frame)?;
    Ok(over(&frame[l.ip..l.end], l.ipv6).to_le_bytes() == frame[l.icrc()..l.end])
}

/// Whether the ICRC of an untagged IPv4 frame is right, whatever its UDP destination port (a NIC whose
/// `UDP_DPORT` is not 4791: [`check`] only takes frames to 4791). `None` if the frame is shorter than
/// its IP total length says or too short for the headers.
pub fn check_ipv4_any_port(frame: &[u8]) -> Option<bool> {
    let ip = frame.get(f::IP..)?;
    let total = u16::from_be_bytes([*ip.get(2)?, *ip.get(3)?]) as usize;
    if total < len::IPV4 + len::UDP + len::BTH + len::ICRC || ip.len() < total {
        return None;
    }
    Some(over(&ip[..total], false).to_le_bytes() == ip[total - len::ICRC..total])
}

/// Writes the right ICRC into an Ethernet frame and returns it.
pub fn insert(frame: &mut [u8]) -> Result<u32, Error> {
    let l = locate(frame)?;
    let c = over(&frame[l.ip..l.end], l.ipv6);
    frame[l.icrc()..l.end].copy_from_slice(&c.to_le_bytes());
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// scapy's `test/contrib/roce.uts` UC SEND ONLY (MigReq, PadCnt 2), built from its field values; scapy
    /// gives the IP checksum 0xb4d5, the UDP checksum 0xaca2 and the ICRC 0x78f353f3 (the wire bytes read
    /// big-endian).
    fn scapy_uc_send_only() -> Vec<u8> {
        #[rustfmt::skip]
        let f = vec![
            0x24, 0x8a, 0x07, 0xa8, 0xfa, 0x22, 0x24, 0x8a, 0x07, 0xa8, 0xfa, 0x22, 0x08, 0x00,
            0x45, 0x01, 0x00, 0x40, 0x04, 0x78, 0x40, 0x00, 0x40, 0x11, 0xb4, 0xd5,
            192, 168, 0, 7, 192, 168, 0, 7,
            0xc0, 0x00, 0x12, 0xb7, 0x00, 0x2c, 0xac, 0xa2,
            0x24, 0x60, 0xff, 0xff, 0x00, 0x00, 0x00, 211, 0x00, 0xcf, 0x17, 0x10, // PSN 13571856
            b'F', b'0', 0x81, 0x8b, 0xe2, 0x89, b'5', 0xd9, 0x0e, 0x9a, 0x95, b'P', b'T', 0x01,
            0xbe, 0x88, b'^', b'P', 0x00, 0x00,
            0x78, 0xf3, 0x53, 0xf3,
        ];
        f
    }

    /// scapy's "RoCE CNP captured on ConnectX-4 Lx": UDP source port 0, UDP checksum 0, TOS 0xC2.
    const CX4_CNP: [u8; 74] = [
        0xe4, 0x1d, 0x2d, 0xab, 0x2b, 0xc2, 0x7c, 0xfe, 0x90, 0x64, 0x3b, 0x32, 0x08, 0x00, 0x45,
        0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11, 0x91, 0x61, 0x0a, 0x00, 0x11, 0x01,
        0x0a, 0x00, 0x12, 0x01, 0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, 0x81, 0x00, 0xff,
        0xff, 0x40, 0x00, 0x01, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x82, 0xfd, 0x00, 0x2a,
    ];

    #[test]
    fn scapy_vectors() {
        let uc = scapy_uc_send_only();
        assert!(Ipv4Packet::new_checked(&uc[14..])
            .unwrap()
            .verify_checksum());
        assert_eq!(
            compute(&uc).unwrap().to_le_bytes(),
            [0x78, 0xf3, 0x53, 0xf3]
        );
        assert!(check(&uc).unwrap());
        assert_eq!(
            compute(&CX4_CNP).unwrap().to_le_bytes(),
            [0x82, 0xfd, 0x00, 0x2a]
        );
        assert!(check(&CX4_CNP).unwrap());
        // The same from the IP header on.
        assert_eq!(compute_ip(&CX4_CNP[14..]), compute(&CX4_CNP));
    }

    #[test]
    fn any_port_check_agrees_with_check_and_takes_other_ports() {
        assert_eq!(check_ipv4_any_port(&CX4_CNP), Some(true));
        // The CNP sent to UDP port 4792 with the ICRC that port gives.
        let mut other = CX4_CNP;
        other[f::UDP_DPORT + 1] = 0xB8;
        assert!(check(&other).is_err(), "check() takes RoCEv2 on 4791 only");
        assert_eq!(check_ipv4_any_port(&other), Some(false));
        let ip_len = u16::from_be_bytes([other[16], other[17]]) as usize;
        let c = over(&other[f::IP..f::IP + ip_len], false);
        other[f::IP + ip_len - 4..f::IP + ip_len].copy_from_slice(&c.to_le_bytes());
        assert_eq!(check_ipv4_any_port(&other), Some(true));
        assert_eq!(check_ipv4_any_port(&other[..40]), None, "truncated");
    }

    #[test]
    fn masked_offsets_are_the_rtl_ones() {
        assert_eq!(MASKED_BYTES_IPV4, [15, 22, 24, 25, 40, 41, 46]);
    }

    #[test]
    fn variant_fields_do_not_change_the_icrc() {
        let mut g = scapy_uc_send_only();
        for p in MASKED_BYTES_IPV4 {
            g[p] ^= 0x5A;
        }
        assert!(check(&g).unwrap(), "masked fields must not matter");
        g[f::BTH_PSN] ^= 1;
        assert!(!check(&g).unwrap());
        insert(&mut g).unwrap();
        assert!(check(&g).unwrap());
        // Ethernet padding after the datagram is not covered.
        let mut padded = scapy_uc_send_only();
        padded.extend_from_slice(&[0xEE; 6]);
        assert!(check(&padded).unwrap());
    }

    #[test]
    fn ipv6_variant_fields_do_not_change_the_icrc() {
        // The CNP moved into IPv6.
        let mut v6 = CX4_CNP[..14].to_vec();
        v6[12..14].copy_from_slice(&[0x86, 0xDD]);
        v6.extend_from_slice(&[0x60, 0, 0, 0, 0, 40, 17, 64]);
        v6.extend_from_slice(&[0x20; 32]);
        v6.extend_from_slice(&CX4_CNP[34..]);
        let c = insert(&mut v6).unwrap();
        assert_eq!(
            MASKED_BITS_IPV6,
            [
                (14, 0x0F),
                (15, 0xFF),
                (16, 0xFF),
                (17, 0xFF),
                (21, 0xFF),
                (60, 0xFF),
                (61, 0xFF),
                (66, 0xFF)
            ]
        );
        for (byte, x) in MASKED_BITS_IPV6 {
            let mut g = v6.clone();
            g[byte] ^= x;
            assert_eq!(compute(&g).unwrap(), c, "byte {byte}");
        }
        let mut g = v6.clone();
        g[14] ^= 0x10; // the version nibble is covered (and no longer IPv6)
        assert!(compute(&g).is_err());
        g = v6.clone();
        g[22] ^= 1; // the source address is covered
        assert_ne!(compute(&g).unwrap(), c);
    }
}
