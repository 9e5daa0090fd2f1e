//! `rocenic`: tools on the rocenic driver, one subcommand each.
//!
//! - `rocenic demo`: the main job, two co-simulated NICs doing RDMA traffic into a pcap.
//! - `rocenic rc-pingpong`: `ibv_rc_pingpong` on a co-simulated NIC attached to a real wire.
//! - `rocenic write-bw`, `read-bw`, `send-bw`, `write-lat`, `atomic-bw`: perftest's tools likewise.
mod attach;
mod conformance;
mod dcqcn;
mod demo;
mod oob;
mod opt;
mod perftest;
mod pingpong;
mod stress;

use std::process::ExitCode;

const USAGE: &str = "usage: rocenic <command> [options]

commands:
  demo          two co-simulated NICs back to back: RDMA WRITE + SEND, data checked, pcap written
  rc-pingpong   ibv_rc_pingpong on a co-simulated NIC whose Ethernet port is a socket (pairs with rdma-core)
  write-bw      perftest's ib_write_bw likewise (pairs with perftest in either role)
  read-bw       perftest's ib_read_bw likewise
  send-bw       perftest's ib_send_bw likewise
  write-lat     perftest's ib_write_lat likewise
  atomic-bw     perftest's ib_atomic_bw likewise (FETCH_AND_ADD)
  stress        mixed RC operations both ways over a lossy, reordering link, every byte checked
  conformance   spec-named cases against a scripted peer, checked field by field on the wire
  dcqcn         two flows through an ECN-marking switch: DCQCN rates, fairness and queue over time

`rocenic <command> --help` shows a command's options.";

/// Runs a subcommand: an empty error means help was asked for.
fn finish(name: &str, r: Result<(), String>, help: &str) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(m) if m.is_empty() => {
            println!("{help}");
            ExitCode::SUCCESS
        }
        Err(m) => {
            eprintln!("rocenic {name}: error: {m}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().cloned().unwrap_or_default();
    // A panic (the simulator's DMA firewall, a co-simulation invariant) ends a tool like any error: one
    // line, exit code 1. RUST_BACKTRACE set gives Rust's own report instead.
    if std::env::var_os("RUST_BACKTRACE").is_none() {
        std::panic::set_hook(Box::new(move |info| {
            let p = info.payload();
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".into());
            let at = info
                .location()
                .map(|l| format!(" (at {}:{})", l.file(), l.line()))
                .unwrap_or_default();
            eprintln!(
                "rocenic {name}: error: {}{at}",
                msg.split_whitespace().collect::<Vec<_>>().join(" ")
            );
        }));
    }
    std::panic::catch_unwind(|| command(&args)).unwrap_or(ExitCode::FAILURE)
}

fn command(args: &[String]) -> ExitCode {
    match args.first().map(String::as_str) {
        Some("demo") => finish(
            "demo",
            demo::parse(&args[1..]).and_then(demo::run),
            demo::USAGE,
        ),
        Some("rc-pingpong") => finish(
            "rc-pingpong",
            pingpong::parse(&args[1..]).and_then(pingpong::run),
            &pingpong::help(),
        ),
        Some("write-bw") => finish(
            "write-bw",
            perftest::parse(perftest::Verb::Write, &args[1..]).and_then(perftest::run),
            &perftest::usage(perftest::Verb::Write),
        ),
        Some("read-bw") => finish(
            "read-bw",
            perftest::parse(perftest::Verb::Read, &args[1..]).and_then(perftest::run),
            &perftest::usage(perftest::Verb::Read),
        ),
        Some("atomic-bw") => finish(
            "atomic-bw",
            perftest::parse(perftest::Verb::Atomic, &args[1..]).and_then(perftest::run),
            &perftest::usage(perftest::Verb::Atomic),
        ),
        Some("send-bw") => finish(
            "send-bw",
            perftest::parse(perftest::Verb::Send, &args[1..]).and_then(perftest::run),
            &perftest::usage(perftest::Verb::Send),
        ),
        Some("write-lat") => finish(
            "write-lat",
            perftest::parse(perftest::Verb::WriteLat, &args[1..]).and_then(perftest::run),
            &perftest::usage(perftest::Verb::WriteLat),
        ),
        Some("conformance") => finish(
            "conformance",
            conformance::run(&args[1..]),
            conformance::USAGE,
        ),
        Some("dcqcn") => finish("dcqcn", dcqcn::run(&args[1..]), dcqcn::USAGE),
        Some("stress") => finish(
            "stress",
            stress::parse(&args[1..]).and_then(stress::run),
            stress::USAGE,
        ),
        Some("-h" | "--help") | None => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("rocenic: unknown command {other}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}
