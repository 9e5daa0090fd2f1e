//! Verbs: the device context and the objects made from it.
mod context;
mod cq;
mod device;
mod qp;

pub use context::{AccessFlags, Context, MemoryRegion, ProtectionDomain};
pub use cq::{CompletionQueue, WorkCompletion};
pub use qp::{QpCaps, QueuePair, RecvWr, RtrAttrs, RtsAttrs, SendOp, SendWr, Sge};

#[cfg(test)]
mod tests;
