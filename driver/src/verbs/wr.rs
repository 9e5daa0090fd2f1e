//! Work requests and their WQE encoding (`rocenic_proto::host::wqe`, little-endian): 64 bytes, or 128
//! for a send WQE with a gather list.
use rocenic_proto::host::{recv_wqe, sge, wqe, WcOpcode, WrOpcode, WQE_128_BYTES};

/// A scatter/gather element (`ibv_sge`). A send work request may gather from a list of them
/// ([`SendWr`], up to the QP's `max_send_sge`); a receive work request may scatter into one ([`RecvWr`],
/// up to `max_recv_sge`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sge {
    /// IOVA of the buffer, inside the MR of `lkey`; any byte (an atomic's local buffer too).
    pub addr: u64,
    pub length: u32,
    pub lkey: u32,
}

/// What a send work request does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendOp {
    /// Write the local buffer to `remote_addr` in the peer's MR `rkey`.
    RdmaWrite { remote_addr: u64, rkey: u32 },
    /// An RDMA WRITE that also consumes a receive WQE at the peer, whose completion carries `imm`
    /// (`IBV_WC_RECV_RDMA_WITH_IMM`). `imm` goes on the wire big-endian, as ImmDt.
    RdmaWriteWithImm {
        remote_addr: u64,
        rkey: u32,
        imm: u32,
    },
    /// Read `remote_addr` in the peer's MR `rkey` into the local buffer (which needs LOCAL_WRITE).
    RdmaRead { remote_addr: u64, rkey: u32 },
    /// Send the local buffer into the peer's next posted receive.
    Send,
    /// A SEND whose receive completion carries `imm` (big-endian on the wire).
    SendWithImm { imm: u32 },
    /// A SEND after which the peer invalidates its MR `invalidate_rkey` (which must allow remote
    /// invalidation and be in the receiving QP's PD); the receive completion names the key.
    SendWithInv { invalidate_rkey: u32 },
    /// If the 8-byte word at `remote_addr` equals `compare`, replace it with `swap`; the original value
    /// lands in the local 8-byte buffer. `remote_addr` must be 8-byte aligned, the MR REMOTE_ATOMIC.
    AtomicCmpSwap {
        remote_addr: u64,
        rkey: u32,
        compare: u64,
        swap: u64,
    },
    /// Add `add` to the 8-byte word at `remote_addr` (modulo 2^64); the original value lands locally.
    AtomicFetchAdd {
        remote_addr: u64,
        rkey: u32,
        add: u64,
    },
}

/// `ibv_send_flags` bits, as the WQE's flag byte holds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SendFlags(pub u8);

impl SendFlags {
    /// Write a completion when the request succeeds (a failed request always completes).
    pub const SIGNALED: SendFlags = SendFlags(wqe::FLAG_SIGNALED);
    /// Ask the peer to raise a completion event for the matching receive.
    pub const SOLICITED: SendFlags = SendFlags(wqe::FLAG_SOLICITED);

    pub fn contains(self, other: SendFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for SendFlags {
    type Output = SendFlags;
    fn bitor(self, rhs: SendFlags) -> SendFlags {
        SendFlags(self.0 | rhs.0)
    }
}

/// A send work request (`ibv_send_wr` with one SGE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkRequest {
    pub wr_id: u64,
    pub op: SendOp,
    pub sge: Sge,
    pub flags: SendFlags,
}

/// A send work request with a gather list (`ibv_send_wr` with `num_sge` entries): the message is the
/// entries' bytes one after the other. Several entries need a QP created with `max_send_sge` that high,
/// and a SEND or RDMA WRITE (with or without immediate or invalidate): a READ's or an atomic's local
/// buffer is written, and scatter lists are not built. No entries: a zero-length message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SendWr<'a> {
    pub wr_id: u64,
    pub op: SendOp,
    pub sg_list: &'a [Sge],
    pub flags: SendFlags,
}

impl WorkRequest {
    /// The same request as a [`SendWr`] with its one entry.
    pub fn as_send_wr(&self) -> SendWr<'_> {
        SendWr {
            wr_id: self.wr_id,
            op: self.op,
            sg_list: std::slice::from_ref(&self.sge),
            flags: self.flags,
        }
    }
}

/// A receive work request (`ibv_recv_wr` with one SGE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecvRequest {
    pub wr_id: u64,
    pub sge: Sge,
}

/// A receive work request with a scatter list (`ibv_recv_wr`): a SEND's payload fills the entries in
/// order, up to the QP's `max_recv_sge` of them.
#[derive(Clone, Copy, Debug)]
pub struct RecvWr<'a> {
    pub wr_id: u64,
    pub sg_list: &'a [Sge],
}

impl RecvRequest {
    /// The same request as a one-entry [`RecvWr`].
    pub fn as_recv_wr(&self) -> RecvWr<'_> {
        RecvWr {
            wr_id: self.wr_id,
            sg_list: std::slice::from_ref(&self.sge),
        }
    }
}

fn put(w: &mut [u8], at: usize, bytes: &[u8]) {
    w[at..at + bytes.len()].copy_from_slice(bytes);
}

impl SendOp {
    /// The completion opcode a send request's CQE carries.
    pub(crate) fn wc_opcode(&self) -> WcOpcode {
        match self {
            SendOp::RdmaWrite { .. } | SendOp::RdmaWriteWithImm { .. } => WcOpcode::RdmaWrite,
            SendOp::RdmaRead { .. } => WcOpcode::RdmaRead,
            SendOp::Send | SendOp::SendWithImm { .. } | SendOp::SendWithInv { .. } => {
                WcOpcode::Send
            }
            SendOp::AtomicCmpSwap { .. } => WcOpcode::CompSwap,
            SendOp::AtomicFetchAdd { .. } => WcOpcode::FetchAdd,
        }
    }

    /// Whether the request is an atomic (its local buffer one 8-byte word, never a list).
    pub(crate) fn is_atomic(&self) -> bool {
        matches!(
            self,
            SendOp::AtomicCmpSwap { .. } | SendOp::AtomicFetchAdd { .. }
        )
    }

    /// Whether the request's local buffer is written (a READ's list scatters its responses).
    pub(crate) fn writes_local(&self) -> bool {
        matches!(
            self,
            SendOp::RdmaRead { .. } | SendOp::AtomicCmpSwap { .. } | SendOp::AtomicFetchAdd { .. }
        )
    }
}

impl SendWr<'_> {
    /// The message length: the entries' lengths summed (`None` past the 2^32 - 1 a WQE holds).
    pub(crate) fn length(&self) -> Option<u32> {
        self.sg_list
            .iter()
            .try_fold(0u32, |sum, s| sum.checked_add(s.length))
    }

    /// The send WQE the core fetches: the first 64 bytes, or all 128 on a QP with gather lists (on the
    /// stack: this is the posting fast path). One entry goes in the header (LOCAL_ADDR, LKEY); several go
    /// in the gather list after it, LENGTH their sum. The caller has checked the list fits (a 128-byte
    /// WQE for more than one entry) and its length.
    pub(crate) fn encode(&self) -> [u8; WQE_128_BYTES] {
        let (mut compare_add, mut swap) = (0u64, 0u64);
        let (opcode, remote_addr, rkey, imm) = match self.op {
            SendOp::RdmaWrite { remote_addr, rkey } => (WrOpcode::RdmaWrite, remote_addr, rkey, 0),
            SendOp::RdmaWriteWithImm {
                remote_addr,
                rkey,
                imm,
            } => (WrOpcode::RdmaWriteWithImm, remote_addr, rkey, imm),
            SendOp::RdmaRead { remote_addr, rkey } => (WrOpcode::RdmaRead, remote_addr, rkey, 0),
            SendOp::Send => (WrOpcode::Send, 0, 0, 0),
            SendOp::SendWithImm { imm } => (WrOpcode::SendWithImm, 0, 0, imm),
            SendOp::SendWithInv { invalidate_rkey } => {
                (WrOpcode::SendWithInv, 0, 0, invalidate_rkey)
            }
            SendOp::AtomicCmpSwap {
                remote_addr,
                rkey,
                compare,
                swap: s,
            } => {
                (compare_add, swap) = (compare, s);
                (WrOpcode::AtomicCmpAndSwp, remote_addr, rkey, 0)
            }
            SendOp::AtomicFetchAdd {
                remote_addr,
                rkey,
                add,
            } => {
                compare_add = add;
                (WrOpcode::AtomicFetchAndAdd, remote_addr, rkey, 0)
            }
        };
        let mut w = [0u8; WQE_128_BYTES];
        w[wqe::OPCODE] = opcode as u8;
        w[wqe::FLAGS] = self.flags.0;
        put(
            &mut w,
            wqe::LENGTH,
            &self.length().unwrap_or(0).to_le_bytes(),
        );
        put(&mut w, wqe::WR_ID, &self.wr_id.to_le_bytes());
        if let [one] = self.sg_list {
            put(&mut w, wqe::LOCAL_ADDR, &one.addr.to_le_bytes());
            put(&mut w, wqe::LKEY, &one.lkey.to_le_bytes());
        } else if self.sg_list.len() > 1 {
            // NUM_SGE stays 0 for one entry or none: those WQEs are the 64-byte format's bytes.
            w[wqe::NUM_SGE] = self.sg_list.len() as u8;
            for (i, s) in self.sg_list.iter().enumerate() {
                let e = wqe::SGL + i * sge::BYTES;
                put(&mut w, e + sge::ADDR, &s.addr.to_le_bytes());
                put(&mut w, e + sge::LENGTH, &s.length.to_le_bytes());
                put(&mut w, e + sge::LKEY, &s.lkey.to_le_bytes());
            }
        }
        put(&mut w, wqe::RKEY, &rkey.to_le_bytes());
        put(&mut w, wqe::REMOTE_ADDR, &remote_addr.to_le_bytes());
        put(&mut w, wqe::IMM, &imm.to_le_bytes());
        put(&mut w, wqe::COMPARE_ADD, &compare_add.to_le_bytes());
        put(&mut w, wqe::SWAP, &swap.to_le_bytes());
        w
    }
}

impl RecvWr<'_> {
    /// Total bytes of the list; `None` past u32 (a WQE's LENGTH).
    pub fn length(&self) -> Option<u32> {
        self.sg_list
            .iter()
            .try_fold(0u32, |n, s| n.checked_add(s.length))
    }

    /// The receive WQE the core fetches: 128 bytes, of which a 64-byte ring uses the first half. One
    /// entry goes in the header (ADDR, LKEY); several in the scatter list after it, LENGTH their sum.
    /// The caller has checked the list fits (a 128-byte WQE for more than one entry) and its length
    /// (public so that tests can build a WQE the driver itself would refuse to post).
    pub fn encode(&self) -> [u8; WQE_128_BYTES] {
        let mut w = [0u8; WQE_128_BYTES];
        put(
            &mut w,
            recv_wqe::LENGTH,
            &self.length().unwrap_or(0).to_le_bytes(),
        );
        put(&mut w, recv_wqe::WR_ID, &self.wr_id.to_le_bytes());
        if let [one] = self.sg_list {
            put(&mut w, recv_wqe::ADDR, &one.addr.to_le_bytes());
            put(&mut w, recv_wqe::LKEY, &one.lkey.to_le_bytes());
        } else if self.sg_list.len() > 1 {
            // NUM_SGE stays 0 for one entry or none: those WQEs are the 64-byte format's bytes.
            w[recv_wqe::NUM_SGE] = self.sg_list.len() as u8;
            for (i, s) in self.sg_list.iter().enumerate() {
                let e = recv_wqe::SGL + i * sge::BYTES;
                put(&mut w, e + sge::ADDR, &s.addr.to_le_bytes());
                put(&mut w, e + sge::LENGTH, &s.length.to_le_bytes());
                put(&mut w, e + sge::LKEY, &s.lkey.to_le_bytes());
            }
        }
        w
    }
}
