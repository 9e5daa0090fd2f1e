//! rocenic's userspace driver: verbs over a [`backend::Backend`], so the same code drives the co-simulated
//! NIC and (later) an FPGA behind VFIO.
//!
//! Nouns as in ibverbs, without the prefix: [`Context`], [`ProtectionDomain`], [`MemoryRegion`],
//! [`CompletionQueue`], [`QueuePair`], [`WorkCompletion`]. Ownership follows rust-ibverbs: a memory region
//! keeps its protection domain alive, a QP keeps its PD and CQs alive (`Arc`).
pub mod backend;
pub mod error;
#[cfg(feature = "sim")]
pub mod pair;
pub mod verbs;

pub use backend::{Backend, DmaRegion};
pub use error::{Error, Result};
pub use rocenic_proto::host::{QpState, WcOpcode, WcStatus};
pub use verbs::{
    AccessFlags, CompletionQueue, Context, MemoryRegion, ProtectionDomain, QpCaps, QueuePair,
    RecvWr, RtrAttrs, RtsAttrs, SendOp, SendWr, Sge, WorkCompletion,
};
