//! Verbs: the device context and the objects made from it, named as in ibverbs without the `ibv_` prefix.
//!
//! Ownership follows rust-ibverbs: objects hold `Arc`s to what they depend on, so a memory region keeps
//! its protection domain (and its memory) alive, and a QP keeps its PD and CQs alive. All objects are
//! `Send + Sync`: their mutable state sits behind mutexes, and the backend is `Send + Sync`.
mod attr;
mod context;
mod cq;
mod device;
mod mr;
mod port;
mod post;
mod qp;
mod wr;

pub use attr::{
    ack_timeout_cycles, InitAttrs, ModifyAttrs, QpAttr, QpAttrs, QpCaps, RtrAttrs, RtsAttrs,
    DEFAULT_HOP_LIMIT,
};
pub use context::{
    Context, DeviceAttr, PfcConfig, PfcGenerate, PfcWatchdog, RateLimiter, Trust, BUFFER_ALIGN,
    DEFAULT_DSCP_TO_PRIO,
};
pub use cq::{CompletionQueue, WorkCompletion};
pub use mr::{AccessFlags, MemoryRegion, ProtectionDomain};
pub use port::{mtu_enum, node_guid, GidEntry, PortAttr, PortState, QpStatistics};
pub use qp::{QueuePair, QPN};
pub use wr::{RecvRequest, RecvWr, SendFlags, SendOp, SendWr, Sge, WorkRequest};

use crate::error::{Error, Result};

/// Deepest send, receive or completion queue (entries).
pub const MAX_DEPTH: usize = 32768;

/// Ring and CQ depths: a power of two from 2 to [`MAX_DEPTH`]. Returns log2 of the depth.
fn check_depth(n: usize) -> Result<u32> {
    if !(2..=MAX_DEPTH).contains(&n) || !n.is_power_of_two() {
        return Err(Error::BadDepth(n));
    }
    Ok(n.trailing_zeros())
}

#[cfg(test)]
mod tests;
