//! rocenic's userspace driver: verbs over a [`backend::Backend`], so the same code drives the co-simulated
//! NIC (`backend::sim::SimBackend`, feature `sim`, on by default) and, later, an FPGA behind VFIO. The
//! harnesses built on it (connected pairs, conformance, stress) are `rocenic-testkit`; the tools,
//! `rocenic-tools`.
//!
//! Nouns as in ibverbs, without the prefix: [`Context`], [`ProtectionDomain`], [`MemoryRegion`],
//! [`CompletionQueue`], [`QueuePair`], [`WorkRequest`], [`WorkCompletion`].
//!
//! ```text
//! Context::open(backend) -> set_port -> alloc_pd -> alloc_dma + reg_mr -> create_cq
//!   -> QueuePair::create -> modify(Init) -> modify(Rtr) -> modify(Rts) -> post_send / post_recv -> poll
//! ```
pub mod backend;
pub mod error;
pub mod verbs;

pub use backend::{Backend, DmaRegion};
pub use error::{Error, Result};
pub use rocenic_proto::host::{QpState, WcOpcode, WcStatus};
pub use verbs::{
    AccessFlags, CompletionQueue, Context, DeviceAttr, GidEntry, InitAttrs, MemoryRegion,
    ModifyAttrs, PfcConfig, PfcGenerate, PfcWatchdog, PortAttr, PortState, ProtectionDomain,
    QpAttr, QpAttrs, QpCaps, QpStatistics, QueuePair, RateLimiter, RecvRequest, RecvWr, RtrAttrs,
    RtsAttrs, SendFlags, SendOp, SendWr, Sge, Trust, WorkCompletion, WorkRequest,
    DEFAULT_DSCP_TO_PRIO, DEFAULT_HOP_LIMIT,
};
