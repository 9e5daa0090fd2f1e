//! rocenic hardware, written with rust-hdl and emitted as Verilog.
//!
//! Layout follows the data path: `prim` (CRC, byte packing), `net` (frame receive/transmit), `roce` (the RC
//! engines), `host` (registers, DMA), `top` (the NIC core).
pub mod host;
pub mod net;
pub mod prim;
pub mod roce;
pub mod top;

use rust_hdl::prelude::*;

pub use rocenic_proto::Width;

/// Emit the NIC core as Verilog (module `top` plus its sub-modules).
pub fn nic_verilog(width: Width) -> String {
    match width {
        Width::W64 => {
            let mut uut = top::nic::NicTop::<64, 8, 11, { Width::W64.qp_log() }>::default();
            uut.connect_all();
            generate_verilog(&uut)
        }
        Width::W512 => {
            let mut uut = top::nic::NicTop::<512, 64, 8, { Width::W512.qp_log() }>::default();
            uut.connect_all();
            generate_verilog(&uut)
        }
    }
}
