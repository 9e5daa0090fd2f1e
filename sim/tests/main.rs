//! The co-simulation crate's tests, one module per subject, in one test binary (one build and one link of
//! the Verilated cores).
mod arp;
mod dma_guard;
mod end_to_end;
mod fabric;
mod id_register;
mod link;
mod memory;
mod ndp;
