//! The RoCE BTH opcodes, held in one table (IBA vol 1 §9.2 and §9.3, RoCEv2 annex A17 for the CNP): for
//! each, its name, transport, the extension headers after the BTH, whether it carries payload, its place
//! in a message and who sends it. Lookups are `const fn` so the RTL can build its decode tables from them.

/// Transport service: the opcode's top three bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    Rc,
    Uc,
    Rd,
    Ud,
    /// RoCEv2 congestion notification (annex A17.9.3).
    Cnp,
}

impl Transport {
    /// The opcode bits 7..5 of this transport.
    pub const fn base(self) -> u8 {
        match self {
            Transport::Rc => 0x00,
            Transport::Uc => 0x20,
            Transport::Rd => 0x40,
            Transport::Ud => 0x60,
            Transport::Cnp => 0x80,
        }
    }
    /// The transport an opcode belongs to; `None` for 0xA0..=0xFF (reserved and vendor-specific).
    pub const fn of(code: u8) -> Option<Transport> {
        match code >> 5 {
            0 => Some(Transport::Rc),
            1 => Some(Transport::Uc),
            2 => Some(Transport::Rd),
            3 => Some(Transport::Ud),
            4 => Some(Transport::Cnp),
            _ => None,
        }
    }
}

/// Extension headers after the BTH, as bits of a mask.
pub mod hdr {
    pub const DETH: u16 = 1 << 0;
    pub const FETH: u16 = 1 << 1;
    pub const RETH: u16 = 1 << 2;
    pub const ATOMIC_ETH: u16 = 1 << 3;
    pub const AETH: u16 = 1 << 4;
    pub const ATOMIC_ACK_ETH: u16 = 1 << 5;
    pub const IMM_DT: u16 = 1 << 6;
    pub const IETH: u16 = 1 << 7;
    /// The CNP's 16 reserved bytes.
    pub const CNP_PAD: u16 = 1 << 8;
}

/// The extension headers in wire order (§9.3: DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH;
/// FETH comes before the RETH of a FLUSH) with their lengths.
pub const EXT_ORDER: [(u16, usize); 9] = {
    use crate::wire::len;
    [
        (hdr::DETH, len::DETH),
        (hdr::FETH, len::FETH),
        (hdr::RETH, len::RETH),
        (hdr::ATOMIC_ETH, len::ATOMIC_ETH),
        (hdr::AETH, len::AETH),
        (hdr::ATOMIC_ACK_ETH, len::ATOMIC_ACK_ETH),
        (hdr::IMM_DT, len::IMM_DT),
        (hdr::IETH, len::IETH),
        (hdr::CNP_PAD, len::CNP_PAD),
    ]
};

/// Where a packet sits in its message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    First,
    Middle,
    Last,
    Only,
}

/// Who sends a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The requester (SENDs, WRITEs, READ and atomic requests).
    Request,
    /// The responder (ACKs, NAKs, READ and atomic responses).
    Response,
    /// The receiver of ECN-marked packets, to their sender (CNP).
    Notification,
}

/// The operation a packet belongs to (§9.4): what the receiving role does with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    Send,
    RdmaWrite,
    RdmaReadRequest,
    RdmaReadResponse,
    Acknowledge,
    AtomicAcknowledge,
    CompareSwap,
    FetchAdd,
    Flush,
    AtomicWrite,
    /// RoCEv2 congestion notification (annex A17.9.3).
    Cnp,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpcodeInfo {
    pub code: u8,
    /// The IBA-style name, as Linux `ib_pack.h` spells it without `IB_OPCODE_`.
    pub name: &'static str,
    pub transport: Transport,
    pub operation: Operation,
    /// [`hdr`] bits.
    pub headers: u16,
    pub payload: bool,
    pub position: Position,
    pub role: Role,
}

impl OpcodeInfo {
    pub const fn has(&self, header: u16) -> bool {
        self.headers & header != 0
    }
    /// Bytes of extension headers between the BTH and the payload.
    pub const fn ext_len(&self) -> usize {
        ext_len(self.headers)
    }
}

macro_rules! opcodes {
    ($( $name:ident = $code:literal, $tr:ident, $op:ident, $hdrs:expr, $payload:literal, $pos:ident, $role:ident; )*) => {
        $( pub const $name: u8 = $code; )*
        /// Every opcode rocenic knows, in code order.
        pub const OPCODES: &[OpcodeInfo] = &[
            $( OpcodeInfo {
                code: $code,
                name: stringify!($name),
                transport: Transport::$tr,
                operation: Operation::$op,
                headers: $hdrs,
                payload: $payload,
                position: Position::$pos,
                role: Role::$role,
            }, )*
        ];
    };
}

use hdr::*;

opcodes! {
    RC_SEND_FIRST = 0x00, Rc, Send, 0, true, First, Request;
    RC_SEND_MIDDLE = 0x01, Rc, Send, 0, true, Middle, Request;
    RC_SEND_LAST = 0x02, Rc, Send, 0, true, Last, Request;
    RC_SEND_LAST_WITH_IMMEDIATE = 0x03, Rc, Send, IMM_DT, true, Last, Request;
    RC_SEND_ONLY = 0x04, Rc, Send, 0, true, Only, Request;
    RC_SEND_ONLY_WITH_IMMEDIATE = 0x05, Rc, Send, IMM_DT, true, Only, Request;
    RC_RDMA_WRITE_FIRST = 0x06, Rc, RdmaWrite, RETH, true, First, Request;
    RC_RDMA_WRITE_MIDDLE = 0x07, Rc, RdmaWrite, 0, true, Middle, Request;
    RC_RDMA_WRITE_LAST = 0x08, Rc, RdmaWrite, 0, true, Last, Request;
    RC_RDMA_WRITE_LAST_WITH_IMMEDIATE = 0x09, Rc, RdmaWrite, IMM_DT, true, Last, Request;
    RC_RDMA_WRITE_ONLY = 0x0A, Rc, RdmaWrite, RETH, true, Only, Request;
    RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE = 0x0B, Rc, RdmaWrite, RETH | IMM_DT, true, Only, Request;
    RC_RDMA_READ_REQUEST = 0x0C, Rc, RdmaReadRequest, RETH, false, Only, Request;
    RC_RDMA_READ_RESPONSE_FIRST = 0x0D, Rc, RdmaReadResponse, AETH, true, First, Response;
    RC_RDMA_READ_RESPONSE_MIDDLE = 0x0E, Rc, RdmaReadResponse, 0, true, Middle, Response;
    RC_RDMA_READ_RESPONSE_LAST = 0x0F, Rc, RdmaReadResponse, AETH, true, Last, Response;
    RC_RDMA_READ_RESPONSE_ONLY = 0x10, Rc, RdmaReadResponse, AETH, true, Only, Response;
    RC_ACKNOWLEDGE = 0x11, Rc, Acknowledge, AETH, false, Only, Response;
    RC_ATOMIC_ACKNOWLEDGE = 0x12, Rc, AtomicAcknowledge, AETH | ATOMIC_ACK_ETH, false, Only, Response;
    RC_COMPARE_SWAP = 0x13, Rc, CompareSwap, ATOMIC_ETH, false, Only, Request;
    RC_FETCH_ADD = 0x14, Rc, FetchAdd, ATOMIC_ETH, false, Only, Request;
    RC_SEND_LAST_WITH_INVALIDATE = 0x16, Rc, Send, IETH, true, Last, Request;
    RC_SEND_ONLY_WITH_INVALIDATE = 0x17, Rc, Send, IETH, true, Only, Request;
    RC_FLUSH = 0x1C, Rc, Flush, FETH | RETH, false, Only, Request;
    RC_ATOMIC_WRITE = 0x1D, Rc, AtomicWrite, RETH, true, Only, Request;
    UC_SEND_FIRST = 0x20, Uc, Send, 0, true, First, Request;
    UC_SEND_MIDDLE = 0x21, Uc, Send, 0, true, Middle, Request;
    UC_SEND_LAST = 0x22, Uc, Send, 0, true, Last, Request;
    UC_SEND_LAST_WITH_IMMEDIATE = 0x23, Uc, Send, IMM_DT, true, Last, Request;
    UC_SEND_ONLY = 0x24, Uc, Send, 0, true, Only, Request;
    UC_SEND_ONLY_WITH_IMMEDIATE = 0x25, Uc, Send, IMM_DT, true, Only, Request;
    UC_RDMA_WRITE_FIRST = 0x26, Uc, RdmaWrite, RETH, true, First, Request;
    UC_RDMA_WRITE_MIDDLE = 0x27, Uc, RdmaWrite, 0, true, Middle, Request;
    UC_RDMA_WRITE_LAST = 0x28, Uc, RdmaWrite, 0, true, Last, Request;
    UC_RDMA_WRITE_LAST_WITH_IMMEDIATE = 0x29, Uc, RdmaWrite, IMM_DT, true, Last, Request;
    UC_RDMA_WRITE_ONLY = 0x2A, Uc, RdmaWrite, RETH, true, Only, Request;
    UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE = 0x2B, Uc, RdmaWrite, RETH | IMM_DT, true, Only, Request;
    UD_SEND_ONLY = 0x64, Ud, Send, DETH, true, Only, Request;
    UD_SEND_ONLY_WITH_IMMEDIATE = 0x65, Ud, Send, DETH | IMM_DT, true, Only, Request;
    CNP = 0x81, Cnp, Cnp, CNP_PAD, false, Only, Notification;
}

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

/// The name of `code`, or "UNKNOWN".
pub const fn name(code: u8) -> &'static str {
    match info(code) {
        Some(i) => i.name,
        None => "UNKNOWN",
    }
}

/// Bytes of extension headers between the BTH and the payload of an opcode.
pub const fn ext_header_len(code: u8) -> Option<usize> {
    match info(code) {
        Some(i) => Some(i.ext_len()),
        None => None,
    }
}

/// Bytes of extension headers for a [`hdr`] mask.
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

/// Offset of header `which` (one [`hdr`] bit) from the end of the BTH in a packet carrying `headers`.
pub const fn ext_offset(headers: u16, which: u16) -> Option<usize> {
    let mut at = 0;
    let mut i = 0;
    while i < EXT_ORDER.len() {
        let (bit, n) = EXT_ORDER[i];
        if bit == which {
            return if headers & which != 0 { Some(at) } else { None };
        }
        if headers & bit != 0 {
            at += n;
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_consistent() {
        for w in OPCODES.windows(2) {
            assert!(w[0].code < w[1].code, "sorted and unique: {}", w[1].name);
        }
        for o in OPCODES {
            assert_eq!(Transport::of(o.code), Some(o.transport), "{}", o.name);
            assert_eq!(o.code & 0xE0, o.transport.base(), "{}", o.name);
            let prefix = match o.transport {
                Transport::Rc => "RC_",
                Transport::Uc => "UC_",
                Transport::Ud => "UD_",
                _ => "",
            };
            assert!(o.name.starts_with(prefix), "{}", o.name);
            // Every header mask bit is a known header.
            assert_eq!(o.headers & !0x1FF, 0, "{}", o.name);
        }
        for (code, expect) in [
            (0x00, "RC_SEND_FIRST"),
            (0x0A, "RC_RDMA_WRITE_ONLY"),
            (0x11, "RC_ACKNOWLEDGE"),
            (0x17, "RC_SEND_ONLY_WITH_INVALIDATE"),
            (0x64, "UD_SEND_ONLY"),
            (0x81, "CNP"),
        ] {
            assert_eq!(name(code), expect, "{code:#x}");
        }
        assert_eq!(name(0x15), "UNKNOWN");
        assert!(info(0x18).is_none());
    }

    #[test]
    fn header_lengths() {
        for (code, n) in [
            (RC_SEND_ONLY, 0),
            (RC_SEND_LAST_WITH_IMMEDIATE, 4),
            (RC_RDMA_WRITE_ONLY, 16),
            (RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 20),
            (RC_RDMA_READ_REQUEST, 16),
            (RC_RDMA_READ_RESPONSE_MIDDLE, 0),
            (RC_ACKNOWLEDGE, 4),
            (RC_ATOMIC_ACKNOWLEDGE, 12),
            (RC_COMPARE_SWAP, 28),
            (RC_SEND_ONLY_WITH_INVALIDATE, 4),
            (RC_FLUSH, 20),
            (UD_SEND_ONLY_WITH_IMMEDIATE, 12),
            (CNP, 16),
        ] {
            assert_eq!(ext_header_len(code), Some(n), "{}", name(code));
        }
        assert_eq!(ext_header_len(0x15), None);
    }

    #[test]
    fn header_offsets_follow_wire_order() {
        let w = info(RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE).unwrap().headers;
        assert_eq!(ext_offset(w, hdr::RETH), Some(0));
        assert_eq!(ext_offset(w, hdr::IMM_DT), Some(16));
        assert_eq!(ext_offset(w, hdr::AETH), None);
        let a = info(RC_ATOMIC_ACKNOWLEDGE).unwrap().headers;
        assert_eq!(ext_offset(a, hdr::ATOMIC_ACK_ETH), Some(4));
        let f = info(RC_FLUSH).unwrap().headers;
        assert_eq!(ext_offset(f, hdr::RETH), Some(4));
        let u = info(UD_SEND_ONLY_WITH_IMMEDIATE).unwrap().headers;
        assert_eq!(ext_offset(u, hdr::IMM_DT), Some(8));
    }

    #[test]
    fn lookups_are_const() {
        const ACK_EXT: Option<usize> = ext_header_len(RC_ACKNOWLEDGE);
        const WRITE: &OpcodeInfo = match info(RC_RDMA_WRITE_FIRST) {
            Some(i) => i,
            None => panic!(),
        };
        assert_eq!(ACK_EXT, Some(4));
        assert_eq!(
            (WRITE.position, WRITE.role, WRITE.payload),
            (Position::First, Role::Request, true)
        );
    }
}
