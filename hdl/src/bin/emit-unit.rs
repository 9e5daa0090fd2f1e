//! Writes the Verilog of one hardware unit, for the cocotb benches in `testbench/cocotb/` and for the
//! per-unit place and route of `bitstream/ecp5-units.sh`:
//! `emit-unit <unit> <64|512> <out.v> [qp_log]` (units: the `UNITS` list below).
//!
//! Each unit is built with the generics `top/nic.rs` gives it at that width (`NicTop<64, 8, 11>` and
//! `NicTop<512, 64, 8>`), so a bench tests the block exactly as the NIC instantiates it. The QP and MR
//! tables (and `nic`) take the width's own table size, or `qp_log` 6 (64 entries, the ECP5 build's size).
//! The module is always `top`, with the block's own ports.
use rocenic_hdl::host::cqe::CqeWriter;
use rocenic_hdl::host::dma_split::DmaReadSplit;
use rocenic_hdl::host::gather::Gather;
use rocenic_hdl::host::read_align::ReadAlign;
use rocenic_hdl::host::regs::Regs;
use rocenic_hdl::host::scatter::Scatter;
use rocenic_hdl::host::write_align::WriteAlign;
use rocenic_hdl::net::arp::ArpResponder;
use rocenic_hdl::net::ndp::NdpResponder;
use rocenic_hdl::net::pfc::PfcUnit;
use rocenic_hdl::net::rate_limiters::RateLimiters;
use rocenic_hdl::net::rx_buffer::RxBuffer;
use rocenic_hdl::net::tx_port::TxPort;
use rocenic_hdl::net::vlan::{VlanInsert, VlanStrip};
use rocenic_hdl::prim::crc32_pipe::Crc32Pipe;
use rocenic_hdl::roce::ack_verdict::AckVerdict;
use rocenic_hdl::roce::comp_check::CompCheck;
use rocenic_hdl::roce::frame_build::FrameBuild;
use rocenic_hdl::roce::icrc_insert::IcrcInsert;
use rocenic_hdl::roce::ip_csum::IpCsum;
use rocenic_hdl::roce::mr_table::MrTable;
use rocenic_hdl::roce::pf_seg::PfSeg;
use rocenic_hdl::roce::qp_table::QpTable;
use rocenic_hdl::roce::read_reply::ReadReply;
use rocenic_hdl::roce::req::TxEngine;
use rocenic_hdl::roce::resp::RxEngine;
use rocenic_hdl::roce::retry_timer::RetryTimer;
use rocenic_hdl::roce::tx_arbiter::TxArbiter;
use rocenic_hdl::roce::wqe_addr::WqeAddr;
use rocenic_hdl::{emit_verilog, nic_verilog_qps, Width};
use rust_hdl::prelude::*;

const UNITS: &str = "rx_buffer, crc32_pipe, icrc_insert, pfc, dma_split, scatter, arp, ndp, vlan_strip, vlan_insert, tx_port, \
     regs, rx_engine, tx_engine, read_reply, comp_check, ack_verdict, wqe_addr, pf_seg, ip_csum, frame_build, tx_arbiter, retry_timer, cqe, write_align, gather, \
     read_align, rate_limiters, qp_table, mr_table, nic";

fn emit<U: Block + Default>() -> String {
    let mut uut = U::default();
    uut.connect_all();
    emit_verilog(&uut)
}

/// The unit's Verilog at `width` (the QP and MR tables with 2^`qp_log` entries: the width's own, or 6),
/// or what is wrong: an unknown unit name, or a whole core of a size that is not built.
fn unit_verilog(unit: &str, width: Width, qp_log: usize) -> Result<String, String> {
    let wide = matches!(width, Width::W512);
    let own = qp_log == width.qp_log();
    Ok(match (unit, wide) {
        // Receive buffer: 2^11 words at 64 bits, 2^8 at 512 (16 KiB either way), as in NicTop.
        ("rx_buffer", false) => emit::<RxBuffer<64, 8, 11>>(),
        ("rx_buffer", true) => emit::<RxBuffer<512, 64, 8>>(),
        ("crc32_pipe", false) => emit::<Crc32Pipe<64, 8>>(),
        ("crc32_pipe", true) => emit::<Crc32Pipe<512, 64>>(),
        ("icrc_insert", false) => emit::<IcrcInsert<64, 8>>(),
        ("icrc_insert", true) => emit::<IcrcInsert<512, 64>>(),
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
        ("tx_port", false) => emit::<TxPort<64, 8>>(),
        ("tx_port", true) => emit::<TxPort<512, 64>>(),
        // The engines and host units, as NicTop instantiates them.
        ("regs", _) => emit::<Regs>(),
        ("rx_engine", false) => emit::<RxEngine<64, 8, 11>>(),
        ("rx_engine", true) => emit::<RxEngine<512, 64, 8>>(),
        ("tx_engine", false) => emit::<TxEngine<64, 8>>(),
        ("tx_engine", true) => emit::<TxEngine<512, 64>>(),
        ("read_reply", _) => emit::<ReadReply>(),
        // The transmit engine's blocks: the same at either width.
        ("comp_check", _) => emit::<CompCheck>(),
        ("ack_verdict", _) => emit::<AckVerdict>(),
        ("wqe_addr", _) => emit::<WqeAddr>(),
        ("pf_seg", _) => emit::<PfSeg>(),
        ("ip_csum", _) => emit::<IpCsum>(),
        ("tx_arbiter", _) => emit::<TxArbiter>(),
        ("retry_timer", _) => emit::<RetryTimer>(),
        ("frame_build", false) => emit::<FrameBuild<64, 8>>(),
        ("frame_build", true) => emit::<FrameBuild<512, 64>>(),
        ("cqe", false) => emit::<CqeWriter<64, 8>>(),
        ("cqe", true) => emit::<CqeWriter<512, 64>>(),
        ("write_align", false) => emit::<WriteAlign<64, 8>>(),
        ("write_align", true) => emit::<WriteAlign<512, 64>>(),
        ("gather", false) => emit::<Gather<64, 8>>(),
        ("gather", true) => emit::<Gather<512, 64>>(),
        ("read_align", false) => emit::<ReadAlign<64, 8>>(),
        ("read_align", true) => emit::<ReadAlign<512, 64>>(),
        ("rate_limiters", false) => emit::<RateLimiters<8>>(),
        ("rate_limiters", true) => emit::<RateLimiters<64>>(),
        // The tables' size does not depend on the datapath, only on qp_log.
        ("qp_table", _) if !own => emit::<QpTable<6>>(),
        ("mr_table", _) if !own => emit::<MrTable<6>>(),
        ("qp_table", false) => emit::<QpTable<{ Width::W64.qp_log() }>>(),
        ("qp_table", true) => emit::<QpTable<{ Width::W512.qp_log() }>>(),
        ("mr_table", false) => emit::<MrTable<{ Width::W64.qp_log() }>>(),
        ("mr_table", true) => emit::<MrTable<{ Width::W512.qp_log() }>>(),
        ("nic", _) => nic_verilog_qps(width, qp_log).ok_or_else(|| {
            format!(
                "no {}-bit core with 2^{qp_log} QPs is built (nic_verilog_qps lists the sizes)",
                width.bits()
            )
        })?,
        _ => return Err(format!("unknown unit {unit:?} (units: {UNITS})")),
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 2 && args[1] == "--list" {
        for u in UNITS.split(", ") {
            println!("{u}");
        }
        return;
    }
    if args.len() != 4 && args.len() != 5 {
        eprintln!(
            "usage: {} <unit> <64|512> <out.v> [qp_log] | --list   (unit: {UNITS})",
            args[0]
        );
        std::process::exit(2);
    }
    let Some(width) = Width::parse(&args[2]) else {
        eprintln!("error: datapath width must be 64 or 512, got {:?}", args[2]);
        std::process::exit(2);
    };
    let qp_log = match args.get(4).map(|s| s.parse::<usize>()) {
        None => width.qp_log(),
        Some(Ok(q)) if q == width.qp_log() || q == 6 => q,
        Some(_) => {
            eprintln!(
                "error: qp_log must be {} (the {}-bit core's) or 6, got {:?}",
                width.qp_log(),
                args[2],
                args[4]
            );
            std::process::exit(2);
        }
    };
    let v = match unit_verilog(&args[1], width, qp_log) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = std::fs::write(&args[3], v) {
        eprintln!("error: cannot write {}: {e}", args[3]);
        std::process::exit(1);
    }
}
