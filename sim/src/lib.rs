//! Co-simulation of the rocenic NIC core: the Verilated core (both widths are built in), a host-memory
//! model, a DMA server, and a MAC link between two NICs with a pcap tap and deterministic fault injection.
//!
//! - [`Nic`]: one core and its bench (single-NIC tests push and pop frames directly).
//! - [`Fabric`]: two NICs back to back; what the driver and the demo use.
//! - [`link::Link`], [`fault::FaultPlan`]: the wire, testable without Verilator.
//! - [`switch::Switch`]: several NICs through an output-queued, ECN-marking switch (congestion control).
pub mod external;
pub mod fabric;
pub mod fault;
pub mod ffi;
pub mod link;
pub mod memory;
pub mod nic;
pub mod switch;

pub use external::{ExternalPort, ExternalSpec, ExternalStats};
pub use fabric::{Fabric, FabricConfig, FastForward};
pub use fault::{Fault, FaultPlan};
pub use link::LinkStats;
pub use memory::{Grant, HostMemory, OutOfRange};
pub use nic::{line_bytes_per_cycle, Nic, NicConfig, WIRE_OVERHEAD_BYTES};
pub use rocenic_proto::Width;
pub use switch::{Sample, SwitchConfig, SwitchStats};

use std::path::PathBuf;

/// Why a simulation could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("cannot create pcap file {0}: {1}")]
    Pcap(PathBuf, #[source] std::io::Error),
    #[error("cannot create VCD file {0}: {1}")]
    Vcd(PathBuf, #[source] std::io::Error),
    #[error("cannot map host memory: {0}")]
    Mmap(#[source] std::io::Error),
    #[error("invalid configuration: {0}")]
    Config(String),
}
