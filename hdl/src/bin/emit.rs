//! Writes the NIC core's Verilog: `emit <64|512> <out.v> [qp_log]` (QP table of 2^qp_log QPs: the
//! width's own by default, 6 for a small FPGA at 64 bits).
use rocenic_hdl::{nic_verilog_qps, Width};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 && args.len() != 4 {
        eprintln!("usage: {} <64|512> <out.v> [qp_log]", args[0]);
        std::process::exit(2);
    }
    let Some(width) = Width::parse(&args[1]) else {
        eprintln!("error: datapath width must be 64 or 512, got {:?}", args[1]);
        std::process::exit(2);
    };
    let qp_log = match args.get(3).map(|s| s.parse::<usize>()) {
        None => width.qp_log(),
        Some(Ok(q)) => q,
        Some(Err(_)) => {
            eprintln!("error: qp_log must be a number, got {:?}", args[3]);
            std::process::exit(2);
        }
    };
    let Some(v) = nic_verilog_qps(width, qp_log) else {
        eprintln!(
            "error: no {} -bit core with 2^{qp_log} QPs is built",
            width.bits()
        );
        std::process::exit(2);
    };
    if let Err(e) = std::fs::write(&args[2], v) {
        eprintln!("error: cannot write {}: {e}", args[2]);
        std::process::exit(1);
    }
}
