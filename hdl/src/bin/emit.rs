//! Writes the NIC core's Verilog: `emit <64|512> <out.v>`.
use rocenic_hdl::{nic_verilog, Width};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: {} <64|512> <out.v>", args[0]);
        std::process::exit(2);
    }
    let Some(width) = Width::parse(&args[1]) else {
        eprintln!("error: datapath width must be 64 or 512, got {:?}", args[1]);
        std::process::exit(2);
    };
    let v = nic_verilog(width);
    if let Err(e) = std::fs::write(&args[2], v) {
        eprintln!("error: cannot write {}: {e}", args[2]);
        std::process::exit(1);
    }
}
