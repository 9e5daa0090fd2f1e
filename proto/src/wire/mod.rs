//! Packet views in the smoltcp `wire` style. Each header has a module with:
//! - `field`: the byte offset of every field (the header layouts the RTL and the tools share),
//! - `LEN`: the (fixed part of the) header length,
//! - a view over a byte buffer (`new_unchecked`, `new_checked`, `check_len`, getters, and setters when the
//!   buffer is mutable),
//! - a `Repr` that keeps every field, reserved bits included, so that parse → emit is byte-exact.
//!
//! [`Frame`] puts them together for a whole RoCEv2 frame (Ethernet, optional 802.1Q tag, IPv4 or IPv6, UDP
//! port 4791, BTH, extension headers, payload, pad, ICRC). Offsets are the IBA's (vol 1 §9.2–9.3, RoCEv2
//! annex A17), the IETF's (RFC 791, RFC 8200, RFC 768) and IEEE 802.1Q's.

/// Defines a header view: see the module documentation. A field is `NAME @ offset: kind => getter, setter;`
/// with kind `u8`, `u16`, `u24` (read as u32), `u32`, `u64`, `bytes(n)`, `flag(mask)` (a bit of one byte,
/// as bool), or `bits8(mask)`, `bits16(mask)`, `bits32(mask)` (the masked bits of a big-endian word, shifted
/// down). `fixed` headers get a `check_len` that only checks `LEN`; `variable` ones write their own.
macro_rules! view {
    (
        $(#[$doc:meta])*
        $view:ident, $what:literal, len $len:expr, $sizing:ident;
        $( $(#[$fdoc:meta])* $name:ident @ $off:literal: $kind:ident $(($arg:expr))? => $get:ident, $set:ident; )*
    ) => {
        /// Byte offsets of the fields from the start of the header.
        pub mod field {
            $( $(#[$fdoc])* pub const $name: usize = $off; )*
        }
        /// Length of the header (its fixed part) in bytes.
        pub const LEN: usize = $len;

        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $view<T: AsRef<[u8]>> {
            buffer: T,
        }

        impl<T: AsRef<[u8]>> $view<T> {
            /// A view without any length check: getters panic if the buffer is too short.
            pub const fn new_unchecked(buffer: T) -> Self {
                Self { buffer }
            }
            /// A view whose getters cannot panic ([`Self::check_len`] passed).
            pub fn new_checked(buffer: T) -> Result<Self, $crate::wire::Error> {
                let v = Self::new_unchecked(buffer);
                v.check_len()?;
                Ok(v)
            }
            pub fn into_inner(self) -> T {
                self.buffer
            }
            $(
                $(#[$fdoc])*
                pub fn $get(&self) -> view!(@ty $kind $(($arg))?) {
                    view!(@get $kind $(($arg))?, self.buffer.as_ref(), field::$name)
                }
            )*
        }

        impl<T: AsRef<[u8]> + AsMut<[u8]>> $view<T> {
            $(
                pub fn $set(&mut self, value: view!(@ty $kind $(($arg))?)) {
                    view!(@set $kind $(($arg))?, self.buffer.as_mut(), field::$name, value)
                }
            )*
        }

        view!(@sizing $sizing, $view, $what);
    };

    (@sizing fixed, $view:ident, $what:literal) => {
        impl<T: AsRef<[u8]>> $view<T> {
            /// Checks that the buffer holds the whole header.
            pub fn check_len(&self) -> Result<(), $crate::wire::Error> {
                $crate::wire::need(self.buffer.as_ref(), LEN, $what)
            }
        }
    };
    (@sizing variable, $view:ident, $what:literal) => {};

    (@ty u8) => { u8 };
    (@ty u16) => { u16 };
    (@ty u24) => { u32 };
    (@ty u32) => { u32 };
    (@ty u64) => { u64 };
    (@ty bytes($n:expr)) => { [u8; $n] };
    (@ty flag($m:expr)) => { bool };
    (@ty bits8($m:expr)) => { u8 };
    (@ty bits16($m:expr)) => { u16 };
    (@ty bits32($m:expr)) => { u32 };

    (@get u8, $b:expr, $o:expr) => { $b[$o] };
    (@get u16, $b:expr, $o:expr) => { $crate::wire::rd($b, $o, 2) as u16 };
    (@get u24, $b:expr, $o:expr) => { $crate::wire::rd($b, $o, 3) as u32 };
    (@get u32, $b:expr, $o:expr) => { $crate::wire::rd($b, $o, 4) as u32 };
    (@get u64, $b:expr, $o:expr) => { $crate::wire::rd($b, $o, 8) };
    (@get bytes($n:expr), $b:expr, $o:expr) => { $b[$o..$o + $n].try_into().unwrap() };
    (@get flag($m:expr), $b:expr, $o:expr) => { $b[$o] & $m != 0 };
    (@get bits8($m:expr), $b:expr, $o:expr) => { $crate::wire::get_bits($b, $o, 1, $m) as u8 };
    (@get bits16($m:expr), $b:expr, $o:expr) => { $crate::wire::get_bits($b, $o, 2, $m) as u16 };
    (@get bits32($m:expr), $b:expr, $o:expr) => { $crate::wire::get_bits($b, $o, 4, $m) as u32 };

    (@set u8, $b:expr, $o:expr, $v:expr) => { $b[$o] = $v };
    (@set u16, $b:expr, $o:expr, $v:expr) => { $crate::wire::wr($b, $o, 2, $v as u64) };
    (@set u24, $b:expr, $o:expr, $v:expr) => { $crate::wire::wr($b, $o, 3, $v as u64 & 0xFF_FFFF) };
    (@set u32, $b:expr, $o:expr, $v:expr) => { $crate::wire::wr($b, $o, 4, $v as u64) };
    (@set u64, $b:expr, $o:expr, $v:expr) => { $crate::wire::wr($b, $o, 8, $v) };
    (@set bytes($n:expr), $b:expr, $o:expr, $v:expr) => { $b[$o..$o + $n].copy_from_slice(&$v) };
    (@set flag($m:expr), $b:expr, $o:expr, $v:expr) => { $crate::wire::set_bits($b, $o, 1, $m, $v as u64) };
    (@set bits8($m:expr), $b:expr, $o:expr, $v:expr) => { $crate::wire::set_bits($b, $o, 1, $m, $v as u64) };
    (@set bits16($m:expr), $b:expr, $o:expr, $v:expr) => { $crate::wire::set_bits($b, $o, 2, $m, $v as u64) };
    (@set bits32($m:expr), $b:expr, $o:expr, $v:expr) => { $crate::wire::set_bits($b, $o, 4, $m, $v as u64) };
}

pub mod bth;
pub mod ethernet;
mod ext;
mod frame;
pub mod ipv4;
pub mod ipv6;
pub mod udp;
pub mod vlan;

pub use bth::{Bth, BthRepr};
pub use ethernet::{EthernetFrame, EthernetRepr};
pub use ext::{aeth, atomic_ack_eth, atomic_eth, cnp_pad, deth, feth, ieth, imm_dt, reth};
pub use ext::{
    AethRepr, AtomicAckEthRepr, AtomicEthRepr, CnpPadRepr, DethRepr, ExtHeaders, FethRepr,
    IethRepr, ImmDtRepr, RethRepr,
};
pub use frame::{locate, locate_ip, parse_frame, Frame, IpRepr, Layout};
pub use ipv4::{Ipv4Packet, Ipv4Repr};
pub use ipv6::{Ipv6Packet, Ipv6Repr};
pub use udp::{UdpPacket, UdpRepr};
pub use vlan::{VlanRepr, VlanTag};

pub const ETHERTYPE_IPV4: u16 = 0x0800;
pub const ETHERTYPE_IPV6: u16 = 0x86DD;
pub const ETHERTYPE_VLAN: u16 = 0x8100;
pub const IP_PROTO_UDP: u8 = 17;
/// RoCEv2's UDP destination port (IANA; RoCEv2 annex A17).
pub const ROCEV2_UDP_PORT: u16 = 4791;
/// The default partition key, what RoCEv2 peers use.
pub const DEFAULT_PKEY: u16 = 0xFFFF;

/// Header lengths in bytes.
pub mod len {
    pub const ETH: usize = super::ethernet::LEN;
    pub const VLAN: usize = super::vlan::LEN;
    /// IPv4 without options, the only form RoCEv2 frames take here.
    pub const IPV4: usize = super::ipv4::LEN;
    pub const IPV6: usize = super::ipv6::LEN;
    pub const UDP: usize = super::udp::LEN;
    pub const BTH: usize = super::bth::LEN;
    pub const DETH: usize = super::deth::LEN;
    pub const FETH: usize = super::feth::LEN;
    pub const RETH: usize = super::reth::LEN;
    pub const ATOMIC_ETH: usize = super::atomic_eth::LEN;
    pub const AETH: usize = super::aeth::LEN;
    pub const ATOMIC_ACK_ETH: usize = super::atomic_ack_eth::LEN;
    pub const IMM_DT: usize = super::imm_dt::LEN;
    pub const IETH: usize = super::ieth::LEN;
    pub const CNP_PAD: usize = super::cnp_pad::LEN;
    pub const ICRC: usize = 4;
}

/// Byte offsets in an untagged Ethernet II + IPv4 (no options) + UDP RoCEv2 frame: what the RTL reads.
pub mod ipv4_frame {
    use super::{aeth, atomic_ack_eth, atomic_eth, bth, ethernet, ipv4, len, reth, udp};
    pub const ETHERTYPE: usize = ethernet::field::ETHERTYPE;
    /// Start of the IP header, and of what the ICRC covers.
    pub const IP: usize = len::ETH;
    pub const IP_TOS: usize = IP + ipv4::field::TOS;
    pub const IP_TOTAL_LEN: usize = IP + ipv4::field::TOTAL_LEN;
    pub const IP_TTL: usize = IP + ipv4::field::TTL;
    pub const IP_PROTOCOL: usize = IP + ipv4::field::PROTOCOL;
    pub const IP_CHECKSUM: usize = IP + ipv4::field::CHECKSUM;
    pub const IP_SRC: usize = IP + ipv4::field::SRC;
    pub const IP_DST: usize = IP + ipv4::field::DST;
    pub const UDP: usize = IP + len::IPV4;
    pub const UDP_SPORT: usize = UDP + udp::field::SRC_PORT;
    pub const UDP_DPORT: usize = UDP + udp::field::DST_PORT;
    pub const UDP_LEN: usize = UDP + udp::field::LENGTH;
    pub const UDP_CHECKSUM: usize = UDP + udp::field::CHECKSUM;
    pub const BTH: usize = UDP + len::UDP;
    pub const BTH_OPCODE: usize = BTH + bth::field::OPCODE;
    /// SE, MigReq, PadCnt, TVer.
    pub const BTH_FLAGS: usize = BTH + bth::field::FLAGS;
    pub const BTH_PKEY: usize = BTH + bth::field::PKEY;
    /// FECN, BECN and six reserved bits: the BTH byte the ICRC masks.
    pub const BTH_RESV8A: usize = BTH + bth::field::RESV8A;
    pub const BTH_DEST_QP: usize = BTH + bth::field::DEST_QP;
    pub const BTH_ACK_REQ: usize = BTH + bth::field::ACK_REQ;
    pub const BTH_PSN: usize = BTH + bth::field::PSN;
    /// First extension header (RETH, AETH, ...).
    pub const EXT: usize = BTH + len::BTH;
    pub const RETH_VA: usize = EXT + reth::field::VA;
    pub const RETH_RKEY: usize = EXT + reth::field::RKEY;
    pub const RETH_DMA_LEN: usize = EXT + reth::field::DMA_LEN;
    pub const AETH_SYNDROME: usize = EXT + aeth::field::SYNDROME;
    pub const AETH_MSN: usize = EXT + aeth::field::MSN;
    /// ImmDt right after the BTH (SEND/WRITE LAST and SEND ONLY with immediate).
    pub const IMM_DT: usize = EXT;
    /// ImmDt after a RETH (RDMA WRITE ONLY with immediate).
    pub const IMM_DT_AFTER_RETH: usize = EXT + len::RETH;
    pub const ATOMIC_VA: usize = EXT + atomic_eth::field::VA;
    pub const ATOMIC_RKEY: usize = EXT + atomic_eth::field::RKEY;
    pub const ATOMIC_SWAP_ADD: usize = EXT + atomic_eth::field::SWAP_ADD;
    pub const ATOMIC_COMPARE: usize = EXT + atomic_eth::field::COMPARE;
    /// AtomicAckETH follows the AETH in ATOMIC ACKNOWLEDGE.
    pub const ATOMIC_ORIG: usize = EXT + len::AETH + atomic_ack_eth::field::ORIG_DATA;
}

/// Byte offsets in an untagged Ethernet II + IPv6 (no extension headers) + UDP + BTH frame, the RoCEv2
/// layout over IPv6 (annex A17.4): every header after the IP one sits 20 bytes later than in
/// [`ipv4_frame`], whose transport offsets plus [`ipv6_frame::SHIFT`] give this layout's.
pub mod ipv6_frame {
    use super::{bth, ipv6, len, udp};
    pub const IP: usize = len::ETH;
    /// Version (high nibble), then the traffic class across this byte and the next.
    pub const IP_VERSION_TC: usize = IP;
    pub const IP_PAYLOAD_LEN: usize = IP + ipv6::field::PAYLOAD_LEN;
    pub const IP_NEXT_HEADER: usize = IP + ipv6::field::NEXT_HEADER;
    pub const IP_HOP_LIMIT: usize = IP + ipv6::field::HOP_LIMIT;
    pub const IP_SRC: usize = IP + ipv6::field::SRC;
    pub const IP_DST: usize = IP + ipv6::field::DST;
    pub const UDP: usize = IP + len::IPV6;
    pub const UDP_DPORT: usize = UDP + udp::field::DST_PORT;
    pub const UDP_CHECKSUM: usize = UDP + udp::field::CHECKSUM;
    pub const BTH: usize = UDP + len::UDP;
    pub const BTH_RESV8A: usize = BTH + bth::field::RESV8A;
    /// How much later than over IPv4 everything from the UDP header on sits.
    pub const SHIFT: usize = len::IPV6 - len::IPV4;
}

/// ARP for IPv4 over Ethernet (RFC 826) in an Ethernet II frame: byte offsets from the frame start. The NIC
/// answers requests for its own IPv4 address (`hdl/src/net/arp.rs`).
pub mod arp_frame {
    pub const ETHERTYPE_ARP: u16 = 0x0806;
    pub const HTYPE: usize = 14;
    pub const PTYPE: usize = 16;
    pub const HLEN: usize = 18;
    pub const PLEN: usize = 19;
    pub const OPER: usize = 20;
    pub const SHA: usize = 22;
    pub const SPA: usize = 28;
    pub const THA: usize = 32;
    pub const TPA: usize = 38;
    /// Ethernet header + ARP payload.
    pub const LEN: usize = 42;
    pub const HTYPE_ETHERNET: u16 = 1;
    pub const OPER_REQUEST: u16 = 1;
    pub const OPER_REPLY: u16 = 2;
    /// HTYPE Ethernet, PTYPE IPv4, HLEN 6, PLEN 4: the fixed bytes 14..20.
    const IPV4_OVER_ETHERNET: [u8; 6] = [0, 1, 0x08, 0x00, 6, 4];

    /// An ARP frame for IPv4 over Ethernet, unpadded ([`LEN`] bytes).
    pub fn emit(
        oper: u16,
        sha: [u8; 6],
        spa: [u8; 4],
        eth_dst: [u8; 6],
        tha: [u8; 6],
        tpa: [u8; 4],
    ) -> Vec<u8> {
        let mut f = Vec::with_capacity(LEN);
        f.extend_from_slice(&eth_dst);
        f.extend_from_slice(&sha);
        f.extend_from_slice(&ETHERTYPE_ARP.to_be_bytes());
        f.extend_from_slice(&IPV4_OVER_ETHERNET);
        f.extend_from_slice(&oper.to_be_bytes());
        f.extend_from_slice(&sha);
        f.extend_from_slice(&spa);
        f.extend_from_slice(&tha);
        f.extend_from_slice(&tpa);
        f
    }

    /// Opcode, sender MAC and sender IPv4 of an ARP frame for IPv4 over Ethernet; None for anything else.
    pub fn sender(f: &[u8]) -> Option<(u16, [u8; 6], [u8; 4])> {
        if f.len() < LEN
            || f[12..14] != ETHERTYPE_ARP.to_be_bytes()
            || f[HTYPE..OPER] != IPV4_OVER_ETHERNET
        {
            return None;
        }
        Some((
            u16::from_be_bytes([f[OPER], f[OPER + 1]]),
            f[SHA..SHA + 6].try_into().unwrap(),
            f[SPA..SPA + 4].try_into().unwrap(),
        ))
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn emit_and_sender_round_trip() {
            let f = super::emit(
                1,
                [2, 0, 0, 0, 0, 1],
                [10, 0, 0, 1],
                [0xFF; 6],
                [0; 6],
                [10, 0, 0, 2],
            );
            assert_eq!(f.len(), super::LEN);
            assert_eq!(&f[12..22], &[0x08, 0x06, 0, 1, 0x08, 0, 6, 4, 0, 1]);
            assert_eq!(&f[super::TPA..super::TPA + 4], &[10, 0, 0, 2]);
            assert_eq!(
                super::sender(&f),
                Some((1, [2, 0, 0, 0, 0, 1], [10, 0, 0, 1]))
            );
            let mut not_ipv4 = f.clone();
            not_ipv4[super::PTYPE] = 0x86;
            assert_eq!(super::sender(&not_ipv4), None);
            assert_eq!(super::sender(&f[..41]), None);
        }
    }
}

/// IPv6 neighbour discovery (RFC 4861) in an untagged Ethernet II frame: byte offsets from the frame start
/// of a Neighbor Solicitation or Advertisement carried straight after the IPv6 header (no extension
/// headers), and the values the NIC's responder (`hdl/src/net/ndp.rs`) checks and sends.
pub mod ndp_frame {
    use super::{ipv6_frame, len, ETHERTYPE_IPV6};
    pub const ETHERTYPE: u16 = ETHERTYPE_IPV6;
    pub const IP_VERSION_TC: usize = ipv6_frame::IP_VERSION_TC;
    pub const IP_PAYLOAD_LEN: usize = ipv6_frame::IP_PAYLOAD_LEN;
    pub const IP_NEXT_HEADER: usize = ipv6_frame::IP_NEXT_HEADER;
    pub const IP_HOP_LIMIT: usize = ipv6_frame::IP_HOP_LIMIT;
    pub const IP_SRC: usize = ipv6_frame::IP_SRC;
    pub const IP_DST: usize = ipv6_frame::IP_DST;
    /// The ICMPv6 message (RFC 4443 §2.1) and its fields.
    pub const ICMP: usize = len::ETH + len::IPV6;
    pub const ICMP_TYPE: usize = ICMP;
    pub const ICMP_CODE: usize = ICMP + 1;
    pub const ICMP_CHECKSUM: usize = ICMP + 2;
    /// NS: reserved; NA: the R, S, O flags in the top bits, then reserved (RFC 4861 §4.3, §4.4).
    pub const FLAGS: usize = ICMP + 4;
    pub const TARGET: usize = ICMP + 8;
    /// The first option (RFC 4861 §4.6): type, length in units of 8 bytes, then its data.
    pub const OPT: usize = ICMP + 24;
    pub const OPT_TYPE: usize = OPT;
    pub const OPT_LEN: usize = OPT + 1;
    pub const OPT_LLADDR: usize = OPT + 2;
    /// ICMPv6 bytes of an NS or NA without options, and with one link-layer address option.
    pub const MSG_LEN: usize = 24;
    pub const MSG_LEN_LLA: usize = 32;
    /// Whole frames without FCS: without options, and with one link-layer address option.
    pub const LEN: usize = ICMP + MSG_LEN;
    pub const LEN_LLA: usize = ICMP + MSG_LEN_LLA;
    /// IPv6 next header of ICMPv6.
    pub const NEXT_HEADER_ICMPV6: u8 = 58;
    /// Hop limit of every ND message; a receiver drops any other (RFC 4861 §7.1.1, §7.1.2).
    pub const HOP_LIMIT: u8 = 255;
    pub const TYPE_NS: u8 = 135;
    pub const TYPE_NA: u8 = 136;
    /// NA flags word: Router 0x8000_0000, Solicited 0x4000_0000, Override 0x2000_0000.
    pub const NA_FLAGS_SOLICITED_OVERRIDE: u32 = 0x6000_0000;
    pub const OPT_SOURCE_LLA: u8 = 1;
    pub const OPT_TARGET_LLA: u8 = 2;

    /// The solicited-node multicast address of `addr`: ff02::1:ff00:0 with its low 24 bits (RFC 4291 §2.7.1).
    pub fn solicited_node(addr: [u8; 16]) -> [u8; 16] {
        let mut a = [0u8; 16];
        a[0] = 0xFF;
        a[1] = 0x02;
        a[11] = 0x01;
        a[12] = 0xFF;
        a[13..].copy_from_slice(&addr[13..]);
        a
    }

    /// The Ethernet multicast address of IPv6 multicast `addr`: 33:33 and its low 32 bits (RFC 2464 §7).
    pub fn multicast_mac(addr: [u8; 16]) -> [u8; 6] {
        [0x33, 0x33, addr[12], addr[13], addr[14], addr[15]]
    }

    /// The ICMPv6 checksum (RFC 4443 §2.3): the one's complement of the one's-complement sum over the
    /// pseudo-header (RFC 8200 §8.1) and `msg`, whose checksum field must be zero.
    pub fn checksum(src: [u8; 16], dst: [u8; 16], msg: &[u8]) -> u16 {
        let mut words: Vec<u8> = Vec::with_capacity(40 + msg.len() + 1);
        words.extend_from_slice(&src);
        words.extend_from_slice(&dst);
        words.extend_from_slice(&(msg.len() as u32).to_be_bytes());
        words.extend_from_slice(&[0, 0, 0, NEXT_HEADER_ICMPV6]);
        words.extend_from_slice(msg);
        if words.len() % 2 == 1 {
            words.push(0);
        }
        let mut s: u32 = words
            .chunks(2)
            .map(|w| u16::from_be_bytes([w[0], w[1]]) as u32)
            .sum();
        while s > 0xFFFF {
            s = (s & 0xFFFF) + (s >> 16);
        }
        !(s as u16)
    }

    /// A Neighbor Solicitation for `target` from `src_mac`/`src_ip` to `dst_mac`/`dst_ip`, with a source
    /// link-layer address option when `slla` ([`LEN_LLA`] bytes, else [`LEN`]), checksum filled in.
    pub fn solicitation(
        dst_mac: [u8; 6],
        src_mac: [u8; 6],
        src_ip: [u8; 16],
        dst_ip: [u8; 16],
        target: [u8; 16],
        slla: bool,
    ) -> Vec<u8> {
        let mut msg = vec![TYPE_NS, 0, 0, 0, 0, 0, 0, 0];
        msg.extend_from_slice(&target);
        if slla {
            msg.extend_from_slice(&[OPT_SOURCE_LLA, 1]);
            msg.extend_from_slice(&src_mac);
        }
        let ck = checksum(src_ip, dst_ip, &msg);
        msg[2..4].copy_from_slice(&ck.to_be_bytes());
        let mut f = Vec::with_capacity(LEN_LLA);
        f.extend_from_slice(&dst_mac);
        f.extend_from_slice(&src_mac);
        f.extend_from_slice(&ETHERTYPE.to_be_bytes());
        f.extend_from_slice(&[0x60, 0, 0, 0]);
        f.extend_from_slice(&(msg.len() as u16).to_be_bytes());
        f.extend_from_slice(&[NEXT_HEADER_ICMPV6, HOP_LIMIT]);
        f.extend_from_slice(&src_ip);
        f.extend_from_slice(&dst_ip);
        f.extend_from_slice(&msg);
        f
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn offsets_and_a_solicitation() {
            assert_eq!((ICMP, TARGET, OPT, LEN, LEN_LLA), (54, 62, 78, 78, 86));
            let target = [
                0xFD, 0x52, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xAB, 0xCD, 0xEF,
            ];
            let sn = solicited_node(target);
            assert_eq!(&sn[..13], &[0xFF, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xFF]);
            assert_eq!(&sn[13..], &[0xAB, 0xCD, 0xEF]);
            assert_eq!(multicast_mac(sn), [0x33, 0x33, 0xFF, 0xAB, 0xCD, 0xEF]);
            let mut src = [0u8; 16];
            src[0] = 0xFE;
            src[1] = 0x80;
            src[15] = 1;
            let f = solicitation(multicast_mac(sn), [2, 0, 0, 0, 0, 1], src, sn, target, true);
            assert_eq!(f.len(), LEN_LLA);
            assert_eq!(f[ICMP_TYPE], TYPE_NS);
            assert_eq!(&f[TARGET..TARGET + 16], &target);
            assert_eq!(&f[OPT_LLADDR..OPT_LLADDR + 6], &[2, 0, 0, 0, 0, 1]);
            // A message with its checksum in place sums to 0xFFFF, i.e. checks as 0.
            assert_eq!(checksum(src, sn, &f[ICMP..]), 0);
            assert_eq!(
                solicitation([0; 6], [0; 6], src, sn, target, false).len(),
                LEN
            );
        }
    }
}

/// Why a buffer is not a RoCEv2 frame we can parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The buffer ends before the named header does.
    #[error("truncated {0} header")]
    Truncated(&'static str),
    /// Not Ethernet / [802.1Q] / IPv4 or IPv6 / UDP to port 4791.
    #[error("not RoCEv2")]
    NotRoce,
    /// A form RoCEv2 does not use: IPv4 options or fragments, a wrong IP version.
    #[error("unsupported: {0}")]
    Unsupported(&'static str),
    #[error("unknown BTH opcode {0:#04x}")]
    UnknownOpcode(u8),
    /// Lengths in the headers disagree with each other or with the buffer.
    #[error("bad length: {0}")]
    BadLength(&'static str),
}

pub(crate) fn need(b: &[u8], n: usize, what: &'static str) -> Result<(), Error> {
    if b.len() < n {
        Err(Error::Truncated(what))
    } else {
        Ok(())
    }
}

/// Big-endian read of `n` ≤ 8 bytes.
pub(crate) fn rd(b: &[u8], off: usize, n: usize) -> u64 {
    b[off..off + n]
        .iter()
        .fold(0, |acc, &x| acc << 8 | x as u64)
}

/// Big-endian write of the low `n` bytes of `v`.
pub(crate) fn wr(b: &mut [u8], off: usize, n: usize, v: u64) {
    b[off..off + n].copy_from_slice(&v.to_be_bytes()[8 - n..]);
}

pub(crate) fn get_bits(b: &[u8], off: usize, n: usize, mask: u64) -> u64 {
    (rd(b, off, n) & mask) >> mask.trailing_zeros()
}

/// Replaces the bits under `mask` with `v` (excess high bits of `v` are dropped).
pub(crate) fn set_bits(b: &mut [u8], off: usize, n: usize, mask: u64, v: u64) {
    let old = rd(b, off, n);
    wr(b, off, n, old & !mask | (v << mask.trailing_zeros()) & mask);
}
