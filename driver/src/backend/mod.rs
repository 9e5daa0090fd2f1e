//! The device behind a trait: 32-bit registers, device-visible (DMA) memory with IOVAs, and a way to let
//! the device make progress while the host waits.
//!
//! Two kinds of device fit it:
//! - the co-simulated NIC ([`sim::SimBackend`], feature `sim`): registers go through the Verilated model,
//!   memory is the simulator's host-memory window, and `wait` advances the simulated clock;
//! - an FPGA behind VFIO ([`vfio::VfioBackend`], feature `vfio`): `read32`/`write32` are volatile accesses
//!   to BAR0 mmapped from the device fd; `alloc_dma` carves a [`DmaArena`] over host pages mapped for
//!   the device with `VFIO_IOMMU_MAP_DMA` (pinned by it); `wait` spins, because the hardware runs by
//!   itself.
//!
//! [`fake::FakeDevice`] is a test double with no NIC behind it.
mod dma;
pub mod fake;
#[cfg(feature = "sim")]
pub mod sim;
#[cfg(feature = "vfio")]
pub mod vfio;

pub use dma::{DmaArena, DmaRegion, DmaWindow};

use crate::error::Error;
use std::time::Duration;

/// A rocenic device: what the verbs layer needs from the hardware or its stand-in.
pub trait Backend: Send + Sync {
    /// Reads the 32-bit register at byte `offset` (see `rocenic_proto::regs`).
    fn read32(&self, offset: u16) -> u32;
    /// Writes the 32-bit register at byte `offset`. Writes reach the device in program order.
    fn write32(&self, offset: u16, value: u32);
    /// Allocate device-visible memory: returns its IOVA and a handle to read/write it.
    fn alloc_dma(&self, len: usize, align: usize) -> Result<DmaRegion, Error>;
    /// Let the device make progress while the host waits (the simulator advances its clock; VFIO spins).
    fn wait(&self);
    /// One line saying what the device is, for logs.
    fn describe(&self) -> String;
    /// The device may now read [iova, iova + len) by DMA, and write it if `write` (an MR was registered,
    /// a ring created). Backends that can check or enforce it do (the simulator stops on any DMA outside
    /// every grant); others ignore it.
    fn grant_dma(&self, _iova: u64, _len: u64, _write: bool) {}
    /// The grant `grant_dma` gave with these values ends (the MR was deregistered, the ring freed). Grants
    /// may overlap or share a start (two MRs over the same buffer): only this one goes.
    fn revoke_dma(&self, _iova: u64, _len: u64, _write: bool) {}
    /// Sleeps until the device's completion interrupt (MSI vector 0) is pending or `timeout` of device
    /// time has passed, and consumes what is pending (as reading an eventfd does); true if one was.
    /// Interrupts raised before the call count: arm, poll, then wait loses no wake-up.
    fn wait_interrupt(&self, _timeout: Duration) -> Result<bool, Error> {
        Err(Error::Unsupported("completion interrupts on this backend"))
    }
}
