//! One line per frame of a capture: number, time since the first frame, opcode, destination QP, PSN,
//! AckReq, the AETH/RETH/ImmDt, frame length and whether the ICRC is right. `pcap-dump FILE.pcap`
use rocenic_proto::aeth::Syndrome;
use rocenic_proto::wire::Frame;
use rocenic_proto::{icrc, pcap};
use std::io::Write;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: pcap-dump FILE.pcap");
        std::process::exit(2);
    };
    let frames = pcap::read(path.as_ref()).unwrap_or_else(|e| {
        eprintln!("pcap-dump: {path}: {e}");
        std::process::exit(1);
    });
    let t0 = frames.first().map(|(t, _)| *t).unwrap_or_default();
    let mut out = std::io::stdout().lock();
    for (i, (t, bytes)) in frames.iter().enumerate() {
        // Signed: a capture's timestamps may go backwards (merged or edited captures).
        let us = (t.as_secs_f64() - t0.as_secs_f64()) * 1e6;
        let head = format!("{:>5} {:>14.3} us", i + 1, us);
        let line = match Frame::parse(bytes) {
            Ok(f) => {
                let mut ext = String::new();
                if let Some(a) = f.ext.aeth {
                    ext += &format!(" {} msn {}", Syndrome::decode(a.syndrome), a.msn);
                }
                if let Some(r) = f.ext.reth {
                    ext += &format!(" va {:#x} rkey {:#x} len {}", r.va, r.rkey, r.dma_len);
                }
                if let Some(d) = f.ext.imm_dt {
                    ext += &format!(" imm {:#x}", d.imm);
                }
                let icrc = if icrc::check(bytes) == Ok(true) {
                    "icrc ok"
                } else {
                    "ICRC BAD"
                };
                format!(
                    "{head}  {:<36} qp {:#08x} psn {:>8}{}{ext}  {} bytes  {icrc}",
                    f.opcode_name(),
                    f.bth.dest_qp,
                    f.bth.psn,
                    if f.bth.ack_req { " A" } else { "" },
                    bytes.len(),
                )
            }
            Err(e) => format!("{head}  {:<36} {} bytes", format!("({e})"), bytes.len()),
        };
        // A closed pipe (`| head`) ends the listing quietly.
        if writeln!(out, "{line}").is_err() {
            return;
        }
    }
}
