//! One line per frame of a capture: time, opcode, destination QP, PSN, AETH or RETH, length, ICRC check.
use rocenic_proto::wire::{ExtRepr, Frame};
use rocenic_proto::{icrc, pcap};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: pcap-dump FILE.pcap");
        std::process::exit(2);
    };
    let frames = match pcap::read(path.as_ref()) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("pcap-dump: {path}: {e}");
            std::process::exit(1);
        }
    };
    for (i, (t, bytes)) in frames.iter().enumerate() {
        match Frame::parse(bytes) {
            Ok(f) => {
                let ext: Vec<String> = f
                    .ext
                    .iter()
                    .map(|e| match e {
                        ExtRepr::Aeth { syndrome, msn } => {
                            format!("AETH {syndrome:#04x} msn {msn}")
                        }
                        ExtRepr::Reth { va, rkey, dma_len } => {
                            format!("RETH va {va:#x} rkey {rkey:#x} len {dma_len}")
                        }
                        other => format!("{other:?}"),
                    })
                    .collect();
                let ok = if icrc::check(bytes).unwrap_or(false) {
                    "icrc ok"
                } else {
                    "ICRC BAD"
                };
                println!(
                    "{:>5} {:>12.3} us  {:<36} qp {:#08x} psn {:>8}{} {} payload {:>5}  {ok}",
                    i + 1,
                    t.as_secs_f64() * 1e6,
                    f.opcode_name(),
                    f.bth.dest_qp,
                    f.bth.psn,
                    if f.bth.ack_req { " A" } else { "  " },
                    ext.join(" "),
                    f.payload.len()
                );
            }
            Err(e) => println!(
                "{:>5} {:>12.3} us  not RoCEv2 ({e:?}), {} bytes",
                i + 1,
                t.as_secs_f64() * 1e6,
                bytes.len()
            ),
        }
    }
}
