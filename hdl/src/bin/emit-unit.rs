//! Writes the Verilog of one hardware unit, for the cocotb benches in `testbench/cocotb/`:
//! `emit-unit <rx_buffer|crc32|pfc|dma_split|scatter|arp|ndp|vlan_strip|vlan_insert|nic> <64|512> <out.v>`.
//!
//! Each unit is built with the generics `top/nic.rs` gives it at that width (`NicTop<64, 8, 11>` and
//! `NicTop<512, 64, 8>`), so a bench tests the block exactly as the NIC instantiates it. The module is
//! always `top`, with the block's own ports.
use rocenic_hdl::host::dma_split::DmaReadSplit;
use rocenic_hdl::host::scatter::Scatter;
use rocenic_hdl::net::arp::ArpResponder;
use rocenic_hdl::net::ndp::NdpResponder;
use rocenic_hdl::net::pfc::PfcUnit;
use rocenic_hdl::net::rx_buffer::RxBuffer;
use rocenic_hdl::net::vlan::{VlanInsert, VlanStrip};
use rocenic_hdl::prim::crc32::Crc32Lanes;
use rocenic_hdl::{nic_verilog, Width};
use rust_hdl::prelude::*;

const UNITS: &str =
    "rx_buffer, crc32, pfc, dma_split, scatter, arp, ndp, vlan_strip, vlan_insert, nic";

fn emit<U: Block + Default>() -> String {
    let mut uut = U::default();
    uut.connect_all();
    generate_verilog(&uut)
}

/// The unit's Verilog at `width`, or None for an unknown unit name.
fn unit_verilog(unit: &str, width: Width) -> Option<String> {
    let wide = matches!(width, Width::W512);
    Some(match (unit, wide) {
        // Receive buffer: 2^11 words at 64 bits, 2^8 at 512 (16 KiB either way), as in NicTop.
        ("rx_buffer", false) => emit::<RxBuffer<64, 8, 11>>(),
        ("rx_buffer", true) => emit::<RxBuffer<512, 64, 8>>(),
        ("crc32", false) => emit::<Crc32Lanes<64, 8>>(),
        ("crc32", true) => emit::<Crc32Lanes<512, 64>>(),
        ("pfc", false) => emit::<PfcUnit<64, 8>>(),
        ("pfc", true) => emit::<PfcUnit<512, 64>>(),
        ("dma_split", false) => emit::<DmaReadSplit<8>>(),
        ("dma_split", true) => emit::<DmaReadSplit<64>>(),
        ("scatter", false) => emit::<Scatter<64, 8>>(),
        ("scatter", true) => emit::<Scatter<512, 64>>(),
        ("arp", false) => emit::<ArpResponder<64, 8>>(),
        ("arp", true) => emit::<ArpResponder<512, 64>>(),
        ("ndp", false) => emit::<NdpResponder<64, 8>>(),
        ("ndp", true) => emit::<NdpResponder<512, 64>>(),
        ("vlan_strip", false) => emit::<VlanStrip<64, 8>>(),
        ("vlan_strip", true) => emit::<VlanStrip<512, 64>>(),
        ("vlan_insert", false) => emit::<VlanInsert<64, 8>>(),
        ("vlan_insert", true) => emit::<VlanInsert<512, 64>>(),
        ("nic", _) => nic_verilog(width),
        _ => return None,
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!(
            "usage: {} <unit> <64|512> <out.v>   (unit: {UNITS})",
            args[0]
        );
        std::process::exit(2);
    }
    let Some(width) = Width::parse(&args[2]) else {
        eprintln!("error: datapath width must be 64 or 512, got {:?}", args[2]);
        std::process::exit(2);
    };
    let Some(v) = unit_verilog(&args[1], width) else {
        eprintln!("error: unknown unit {:?} (units: {UNITS})", args[1]);
        std::process::exit(2);
    };
    if let Err(e) = std::fs::write(&args[3], v) {
        eprintln!("error: cannot write {}: {e}", args[3]);
        std::process::exit(1);
    }
}
