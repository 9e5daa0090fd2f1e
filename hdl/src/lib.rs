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

/// A block's Verilog as rust-hdl emits it, with each module's update split into independent processes
/// (`rocenic_split`), so Verilator schedules it without false combinational loops.
pub fn emit_verilog<U: Block>(uut: &U) -> String {
    split_with_stats(uut).0
}

/// [`emit_verilog`] and what the split did.
pub fn split_with_stats<U: Block>(uut: &U) -> (String, rocenic_split::Stats) {
    rocenic_split::split(&generate_verilog(uut))
}

/// Emit the NIC core as Verilog (module `top` plus its sub-modules).
pub fn nic_verilog(width: Width) -> String {
    nic_verilog_qps(width, width.qp_log()).expect("the width's own QP table size")
}

/// The NIC core with a QP table of `2^qp_log` QPs: the width's own (`Width::qp_log`), 64 QPs (`qp_log` 6)
/// for a small FPGA such as the ECP5 the open place-and-route targets, or 16,384 (14) at 64 bits to check
/// the largest table synthesizes without the 512-bit datapath's synthesis time.
pub fn nic_verilog_qps(width: Width, qp_log: usize) -> Option<String> {
    with_room(move || build_nic(width, qp_log))
}

/// Runs `f` on a thread with a 256 MiB stack. The NIC's block tree is one struct of several MB, and
/// `default()` builds each level of it on the stack: more than a test thread's 2 MB.
pub fn with_room<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(f)
        .expect("a thread for the NIC's block tree")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

fn build_nic(width: Width, qp_log: usize) -> Option<String> {
    macro_rules! build {
        ($w:literal, $b:literal, $a:literal, $q:expr) => {{
            let mut uut = top::nic::NicTop::<$w, $b, $a, $q>::default();
            uut.connect_all();
            Some(emit_verilog(&uut))
        }};
    }
    match (width, qp_log) {
        (Width::W64, q) if q == Width::W64.qp_log() => build!(64, 8, 11, { Width::W64.qp_log() }),
        (Width::W64, 6) => build!(64, 8, 11, 6),
        (Width::W64, 14) => build!(64, 8, 11, 14),
        (Width::W512, q) if q == Width::W512.qp_log() => {
            build!(512, 64, 8, { Width::W512.qp_log() })
        }
        _ => None,
    }
}
