//! Host-memory structures the core and the driver share: send/receive WQEs and CQEs (all little-endian).
//! Field offsets are defined here once; the RTL reads WQEs and writes CQEs at these offsets.

/// Size of a send or receive WQE in bytes.
pub const WQE_BYTES: usize = 64;
/// Size of a send WQE with a gather list: on a QP whose SQ_LOG_SIZE has `regs::SQ_WQE_128` set, every
/// send WQE takes 128 bytes, the header above and then [`MAX_SEND_SGE`] entries of [`sge`] at
/// [`wqe::SGL`].
pub const WQE_128_BYTES: usize = 128;
/// Gather entries a send WQE can hold (the 64 bytes after a 128-byte WQE's header).
pub const MAX_SEND_SGE: usize = 4;
/// Scatter entries a receive WQE can hold: on a QP whose RQ_LOG_SIZE has `regs::RQ_WQE_128` set,
/// every receive WQE takes [`WQE_128_BYTES`], its list at [`recv_wqe::SGL`].
pub const MAX_RECV_SGE: usize = 4;
/// Size of a CQE in bytes.
pub const CQE_BYTES: usize = 32;

/// Send WQE field offsets.
pub mod wqe {
    /// u8: [`super::WrOpcode`].
    pub const OPCODE: usize = 0x00;
    /// u8: bit 0 SIGNALED (write a CQE on success), bit 1 SOLICITED.
    pub const FLAGS: usize = 0x01;
    /// u8: gather entries. 0 or 1: the local buffer is LOCAL_ADDR / LKEY. 2 to [`super::MAX_SEND_SGE`]
    /// (only in 128-byte WQEs, SEND and RDMA WRITE): the message is the concatenation of the entries
    /// at [`SGL`], LENGTH their sum, LOCAL_ADDR and LKEY unused.
    pub const NUM_SGE: usize = 0x02;
    /// u32: message length in bytes.
    pub const LENGTH: usize = 0x04;
    /// u64: caller's work-request id, echoed in the CQE.
    pub const WR_ID: usize = 0x08;
    /// u64: local buffer IOVA (any byte).
    pub const LOCAL_ADDR: usize = 0x10;
    /// u32: lkey of the local buffer.
    pub const LKEY: usize = 0x18;
    /// u32: rkey of the remote buffer (RDMA operations).
    pub const RKEY: usize = 0x1C;
    /// u64: remote virtual address (RDMA operations).
    pub const REMOTE_ADDR: usize = 0x20;
    /// u32: immediate data (big-endian on the wire; stored here as the host u32).
    pub const IMM: usize = 0x28;
    /// u64: compare value (ATOMIC_CMP_AND_SWP) or addend (ATOMIC_FETCH_AND_ADD).
    pub const COMPARE_ADD: usize = 0x30;
    /// u64: swap value (ATOMIC_CMP_AND_SWP).
    pub const SWAP: usize = 0x38;
    /// The gather list of a 128-byte WQE: `NUM_SGE` entries of [`super::sge`], 16 bytes each.
    pub const SGL: usize = 0x40;
    pub const FLAG_SIGNALED: u8 = 1;
    pub const FLAG_SOLICITED: u8 = 2;
}

/// One entry of a send WQE's gather list or a receive WQE's scatter list (`ibv_sge`): offsets within its 16 bytes.
pub mod sge {
    /// u64: buffer IOVA, any byte.
    pub const ADDR: usize = 0x0;
    /// u32: bytes.
    pub const LENGTH: usize = 0x8;
    /// u32: lkey (checked by the driver when it posts).
    pub const LKEY: usize = 0xC;
    pub const BYTES: usize = 16;
}

/// Receive WQE field offsets (same size as a send WQE; fields at the same offsets).
pub mod recv_wqe {
    /// u8: scatter entries. 0 or 1: the buffer is ADDR / LKEY. 2 to [`super::MAX_RECV_SGE`] (only in
    /// 128-byte WQEs): a SEND's payload fills the entries at [`SGL`] in order, LENGTH their sum.
    pub const NUM_SGE: usize = super::wqe::NUM_SGE;
    pub const LENGTH: usize = super::wqe::LENGTH;
    pub const WR_ID: usize = super::wqe::WR_ID;
    pub const ADDR: usize = super::wqe::LOCAL_ADDR;
    pub const LKEY: usize = super::wqe::LKEY;
    /// The scatter list of a 128-byte WQE: `NUM_SGE` entries of [`super::sge`].
    pub const SGL: usize = super::wqe::SGL;
}

/// CQE field offsets.
pub mod cqe {
    /// u64
    pub const WR_ID: usize = 0x00;
    /// u32: bytes transferred (receive completions).
    pub const BYTE_LEN: usize = 0x08;
    /// u32: immediate data when FLAGS bit 0 is set; the invalidated R_Key when bit 2 is.
    pub const IMM_DATA: usize = 0x0C;
    /// u32: local QP number.
    pub const QP_NUM: usize = 0x10;
    /// u32: remote QP number (receive completions).
    pub const SRC_QP: usize = 0x14;
    /// u8: [`super::WcStatus`].
    pub const STATUS: usize = 0x18;
    /// u8: [`super::WcOpcode`].
    pub const OPCODE: usize = 0x19;
    /// u8: bit 0 WITH_IMM, bit 1 SOLICITED (the message's last packet had BTH SE set), bit 2 WITH_INV
    /// (a SEND with invalidate: IMM_DATA holds the R_Key the core invalidated).
    pub const FLAGS: usize = 0x1A;
    pub const FLAG_WITH_IMM: u8 = 1;
    pub const FLAG_SOLICITED: u8 = 2;
    pub const FLAG_WITH_INV: u8 = 4;
    /// u8: vendor error (the AETH syndrome for remote errors).
    pub const VENDOR_ERR: usize = 0x1B;
    /// u8: bit 0 owner: 1 on the ring's first pass, 0 on the second, …
    pub const OWNER: usize = 0x1F;
}

/// Work-request opcodes, `ibv_wr_opcode` numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum WrOpcode {
    RdmaWrite = 0,
    RdmaWriteWithImm = 1,
    Send = 2,
    SendWithImm = 3,
    RdmaRead = 4,
    AtomicCmpAndSwp = 5,
    AtomicFetchAndAdd = 6,
    /// A SEND whose last packet carries an IETH: the peer invalidates that R_Key (the WQE's IMM field).
    SendWithInv = 9,
}

/// Completion status, `ibv_wc_status` numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum WcStatus {
    Success = 0,
    LocLenErr = 1,
    LocQpOpErr = 2,
    LocEecOpErr = 3,
    LocProtErr = 4,
    WrFlushErr = 5,
    MwBindErr = 6,
    BadRespErr = 7,
    LocAccessErr = 8,
    RemInvReqErr = 9,
    RemAccessErr = 10,
    RemOpErr = 11,
    RetryExcErr = 12,
    RnrRetryExcErr = 13,
    LocRddViolErr = 14,
    RemInvRdReqErr = 15,
    RemAbortErr = 16,
    InvEecnErr = 17,
    InvEecStateErr = 18,
    FatalErr = 19,
    RespTimeoutErr = 20,
    GeneralErr = 21,
}

impl WcStatus {
    pub fn from_u8(v: u8) -> Option<Self> {
        use WcStatus::*;
        const ALL: [WcStatus; 22] = [
            Success,
            LocLenErr,
            LocQpOpErr,
            LocEecOpErr,
            LocProtErr,
            WrFlushErr,
            MwBindErr,
            BadRespErr,
            LocAccessErr,
            RemInvReqErr,
            RemAccessErr,
            RemOpErr,
            RetryExcErr,
            RnrRetryExcErr,
            LocRddViolErr,
            RemInvRdReqErr,
            RemAbortErr,
            InvEecnErr,
            InvEecStateErr,
            FatalErr,
            RespTimeoutErr,
            GeneralErr,
        ];
        ALL.get(v as usize).copied()
    }
}

/// Completion opcodes, `ibv_wc_opcode` numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum WcOpcode {
    Send = 0,
    RdmaWrite = 1,
    RdmaRead = 2,
    CompSwap = 3,
    FetchAdd = 4,
    Recv = 128,
    RecvRdmaWithImm = 129,
}

impl WcOpcode {
    pub fn from_u8(v: u8) -> Option<Self> {
        Some(match v {
            0 => Self::Send,
            1 => Self::RdmaWrite,
            2 => Self::RdmaRead,
            3 => Self::CompSwap,
            4 => Self::FetchAdd,
            128 => Self::Recv,
            129 => Self::RecvRdmaWithImm,
            _ => return None,
        })
    }
}

/// QP states, `ibv_qp_state` numbering (the `QP_STATE` register).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum QpState {
    Reset = 0,
    Init = 1,
    Rtr = 2,
    Rts = 3,
    Sqd = 4,
    Sqe = 5,
    Err = 6,
}

impl QpState {
    pub fn from_u32(v: u32) -> Option<Self> {
        use QpState::*;
        [Reset, Init, Rtr, Rts, Sqd, Sqe, Err]
            .get(v as usize)
            .copied()
    }
}
