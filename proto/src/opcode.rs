//! The RoCEv2 BTH opcode table (IBA vol 1 §9.2, Table 35 "OpCode field"): for each opcode, its name,
//! transport, which extension headers follow the BTH, whether it carries payload, and where it sits in a
//! message. The RTL decode, the packet parser and the tools all read it from here.

/// Transport service, the opcode's top three bits (§9.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    Rc,
    Uc,
    Rd,
    Ud,
    Cnp,
}

/// Extension headers after the BTH, as a bit mask. Their order on the wire is fixed (§9.1): RDETH, DETH,
/// RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH; [`EXT_ORDER`] lists it.
pub mod hdr {
    pub const DETH: u16 = 1 << 1;
    pub const RETH: u16 = 1 << 2;
    pub const ATOMIC_ETH: u16 = 1 << 3;
    pub const AETH: u16 = 1 << 4;
    pub const ATOMIC_ACK_ETH: u16 = 1 << 5;
    pub const IMM_DT: u16 = 1 << 6;
    pub const IETH: u16 = 1 << 7;
    /// CNP: 16 reserved bytes after the BTH (RoCEv2 annex A17.9.3).
    pub const CNP_PAD: u16 = 1 << 8;
}

/// Wire order of the extension headers and their lengths in bytes.
pub const EXT_ORDER: [(u16, usize); 8] = [
    (hdr::DETH, 8),
    (hdr::RETH, 16),
    (hdr::ATOMIC_ETH, 28),
    (hdr::AETH, 4),
    (hdr::ATOMIC_ACK_ETH, 8),
    (hdr::IMM_DT, 4),
    (hdr::IETH, 4),
    (hdr::CNP_PAD, 16),
];

/// Where a packet sits in its message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    First,
    Middle,
    Last,
    Only,
}

#[derive(Clone, Copy, Debug)]
pub struct OpcodeInfo {
    pub code: u8,
    pub name: &'static str,
    pub transport: Transport,
    pub headers: u16,
    pub payload: bool,
    pub position: Position,
    /// Sent by a requester (true) or by a responder (false).
    pub request: bool,
}

const fn op(
    code: u8,
    name: &'static str,
    transport: Transport,
    headers: u16,
    payload: bool,
    position: Position,
    request: bool,
) -> OpcodeInfo {
    OpcodeInfo {
        code,
        name,
        transport,
        headers,
        payload,
        position,
        request,
    }
}

use hdr::*;
use Position::*;
use Transport::*;

/// Every opcode rocenic knows.
pub const OPCODES: &[OpcodeInfo] = &[
    op(0x00, "RC_SEND_FIRST", Rc, 0, true, First, true),
    op(0x01, "RC_SEND_MIDDLE", Rc, 0, true, Middle, true),
    op(0x02, "RC_SEND_LAST", Rc, 0, true, Last, true),
    op(
        0x03,
        "RC_SEND_LAST_WITH_IMMEDIATE",
        Rc,
        IMM_DT,
        true,
        Last,
        true,
    ),
    op(0x04, "RC_SEND_ONLY", Rc, 0, true, Only, true),
    op(
        0x05,
        "RC_SEND_ONLY_WITH_IMMEDIATE",
        Rc,
        IMM_DT,
        true,
        Only,
        true,
    ),
    op(0x06, "RC_RDMA_WRITE_FIRST", Rc, RETH, true, First, true),
    op(0x07, "RC_RDMA_WRITE_MIDDLE", Rc, 0, true, Middle, true),
    op(0x08, "RC_RDMA_WRITE_LAST", Rc, 0, true, Last, true),
    op(
        0x09,
        "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
        Rc,
        IMM_DT,
        true,
        Last,
        true,
    ),
    op(0x0A, "RC_RDMA_WRITE_ONLY", Rc, RETH, true, Only, true),
    op(
        0x0B,
        "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
        Rc,
        RETH | IMM_DT,
        true,
        Only,
        true,
    ),
    op(0x0C, "RC_RDMA_READ_REQUEST", Rc, RETH, false, Only, true),
    op(
        0x0D,
        "RC_RDMA_READ_RESPONSE_FIRST",
        Rc,
        AETH,
        true,
        First,
        false,
    ),
    op(
        0x0E,
        "RC_RDMA_READ_RESPONSE_MIDDLE",
        Rc,
        0,
        true,
        Middle,
        false,
    ),
    op(
        0x0F,
        "RC_RDMA_READ_RESPONSE_LAST",
        Rc,
        AETH,
        true,
        Last,
        false,
    ),
    op(
        0x10,
        "RC_RDMA_READ_RESPONSE_ONLY",
        Rc,
        AETH,
        true,
        Only,
        false,
    ),
    op(0x11, "RC_ACKNOWLEDGE", Rc, AETH, false, Only, false),
    op(
        0x12,
        "RC_ATOMIC_ACKNOWLEDGE",
        Rc,
        AETH | ATOMIC_ACK_ETH,
        false,
        Only,
        false,
    ),
    op(0x13, "RC_COMPARE_SWAP", Rc, ATOMIC_ETH, false, Only, true),
    op(0x14, "RC_FETCH_ADD", Rc, ATOMIC_ETH, false, Only, true),
    op(
        0x16,
        "RC_SEND_LAST_WITH_INVALIDATE",
        Rc,
        IETH,
        true,
        Last,
        true,
    ),
    op(
        0x17,
        "RC_SEND_ONLY_WITH_INVALIDATE",
        Rc,
        IETH,
        true,
        Only,
        true,
    ),
    op(0x20, "UC_SEND_FIRST", Uc, 0, true, First, true),
    op(0x21, "UC_SEND_MIDDLE", Uc, 0, true, Middle, true),
    op(0x22, "UC_SEND_LAST", Uc, 0, true, Last, true),
    op(
        0x23,
        "UC_SEND_LAST_WITH_IMMEDIATE",
        Uc,
        IMM_DT,
        true,
        Last,
        true,
    ),
    op(0x24, "UC_SEND_ONLY", Uc, 0, true, Only, true),
    op(
        0x25,
        "UC_SEND_ONLY_WITH_IMMEDIATE",
        Uc,
        IMM_DT,
        true,
        Only,
        true,
    ),
    op(0x26, "UC_RDMA_WRITE_FIRST", Uc, RETH, true, First, true),
    op(0x27, "UC_RDMA_WRITE_MIDDLE", Uc, 0, true, Middle, true),
    op(0x28, "UC_RDMA_WRITE_LAST", Uc, 0, true, Last, true),
    op(
        0x29,
        "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
        Uc,
        IMM_DT,
        true,
        Last,
        true,
    ),
    op(0x2A, "UC_RDMA_WRITE_ONLY", Uc, RETH, true, Only, true),
    op(
        0x2B,
        "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
        Uc,
        RETH | IMM_DT,
        true,
        Only,
        true,
    ),
    op(0x64, "UD_SEND_ONLY", Ud, DETH, true, Only, true),
    op(
        0x65,
        "UD_SEND_ONLY_WITH_IMMEDIATE",
        Ud,
        DETH | IMM_DT,
        true,
        Only,
        true,
    ),
    op(0x81, "CNP", Cnp, CNP_PAD, false, Only, true),
];

/// The table entry of `code`, if rocenic knows it.
pub const fn info(code: u8) -> Option<&'static OpcodeInfo> {
    let mut i = 0;
    while i < OPCODES.len() {
        if OPCODES[i].code == code {
            return Some(&OPCODES[i]);
        }
        i += 1;
    }
    None
}

/// Bytes of extension headers after the BTH for a header mask.
pub const fn ext_len(headers: u16) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < EXT_ORDER.len() {
        if headers & EXT_ORDER[i].0 != 0 {
            n += EXT_ORDER[i].1;
        }
        i += 1;
    }
    n
}

/// AETH syndromes (§9.7.5.2.2 / Table 44).
pub mod aeth {
    /// Syndrome type: the top three bits.
    pub const TYPE_MASK: u8 = 0xE0;
    pub const ACK: u8 = 0x00;
    pub const RNR_NAK: u8 = 0x20;
    pub const NAK: u8 = 0x60;
    pub const NAK_PSN_SEQUENCE_ERROR: u8 = 0x60;
    pub const NAK_INVALID_REQUEST: u8 = 0x61;
    pub const NAK_REMOTE_ACCESS_ERROR: u8 = 0x62;
    pub const NAK_REMOTE_OPERATIONAL_ERROR: u8 = 0x63;
    pub const NAK_INVALID_RD_REQUEST: u8 = 0x64;
    /// An ACK's low five bits: end-to-end credits. Code 0x1F means "no credit information".
    pub const CREDITS_INVALID: u8 = 0x1F;
    /// Credit counts for codes 0x00..=0x1E (§9.7.7.2.4, Table 45).
    pub const CREDITS: [u32; 31] = [
        0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536,
        2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
    ];
    /// RNR NAK timer codes 0..=31 in microseconds (§9.7.5.2.8, Table 46; 0 means 655.36 ms).
    pub const RNR_TIMER_US: [u32; 32] = [
        655_360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920, 2560, 3840,
        5120, 7680, 10_240, 15_360, 20_480, 30_720, 40_960, 61_440, 81_920, 122_880, 163_840,
        245_760, 327_680, 491_520,
    ];
}

/// 24-bit packet sequence numbers (§9.7.1): arithmetic wraps, and comparisons use a half-space window.
pub mod psn {
    pub const MASK: u32 = 0xFF_FFFF;
    pub fn add(a: u32, n: u32) -> u32 {
        a.wrapping_add(n) & MASK
    }
    /// Signed distance `a - b` in the window of ±2^23.
    pub fn diff(a: u32, b: u32) -> i32 {
        ((a.wrapping_sub(b)) << 8) as i32 >> 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_consistent() {
        for w in OPCODES.windows(2) {
            assert!(w[0].code < w[1].code, "sorted and unique: {}", w[1].name);
        }
        assert_eq!(info(0x0A).unwrap().name, "RC_RDMA_WRITE_ONLY");
        assert_eq!(ext_len(info(0x0B).unwrap().headers), 20);
        assert_eq!(ext_len(info(0x12).unwrap().headers), 12);
        assert_eq!(ext_len(info(0x13).unwrap().headers), 28);
        assert!(info(0x15).is_none());
        for o in OPCODES {
            let base = match o.transport {
                Transport::Rc => 0x00,
                Transport::Uc => 0x20,
                Transport::Rd => 0x40,
                Transport::Ud => 0x60,
                Transport::Cnp => 0x80,
            };
            assert_eq!(o.code & 0xE0, base, "{}", o.name);
        }
    }

    #[test]
    fn psn_wraps() {
        assert_eq!(psn::add(0xFF_FFFF, 1), 0);
        assert_eq!(psn::diff(0, 0xFF_FFFF), 1);
        assert_eq!(psn::diff(0xFF_FFFF, 0), -1);
        assert_eq!(psn::diff(5, 3), 2);
    }
}
