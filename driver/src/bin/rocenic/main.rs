//! `rocenic`: tools on the rocenic driver, one subcommand each.
//!
//! - `rocenic demo`: the main job, two co-simulated NICs doing RDMA traffic into a pcap.
//! - `rocenic rc-pingpong`: `ibv_rc_pingpong` on a co-simulated NIC attached to a real wire.
//! - `rocenic write-bw`, `read-bw`, `send-bw`, `write-lat`, `atomic-bw`: perftest's tools likewise.
//! - `rocenic devinfo`, `rocenic stat`: a device and its counters, as ibv_devinfo and rdma statistic show
//!   them, on the simulator or a board (`--device`).
//!
//! Built without the `sim` feature (for a board's host, or the VFIO test's guest) only the commands that
//! take `--device` are there.
#[cfg(feature = "sim")]
mod attach;
#[cfg(feature = "sim")]
mod conformance;
#[cfg(feature = "sim")]
mod dcqcn;
#[cfg(feature = "sim")]
mod demo;
mod device;
mod devinfo;
#[cfg(feature = "sim")]
mod oob;
#[cfg(feature = "sim")]
mod opt;
#[cfg(feature = "sim")]
mod perftest;
#[cfg(feature = "sim")]
mod pingmesh;
#[cfg(feature = "sim")]
mod pingpong;
mod stat;
#[cfg(feature = "sim")]
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
  pingmesh      N co-simulated hosts behind a switch, every pair probed: latency percentiles, heat map
  devinfo       the device and its port, as ibv_devinfo prints them (--device sim or vfio:ADDR)
  stat          the device's counters, as rdma statistic and ethtool -S show them (--device likewise)

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

/// A command whose options clap parses: `--help` prints clap's help, a refused option is one line.
fn clap_command<A: clap::Parser>(
    name: &str,
    args: &[String],
    run: fn(A) -> Result<(), String>,
) -> ExitCode {
    let argv = std::iter::once(format!("rocenic {name}")).chain(args.iter().cloned());
    match A::try_parse_from(argv) {
        Ok(a) => finish(name, run(a), ""),
        Err(e) if !e.use_stderr() => {
            print!("{e}");
            ExitCode::SUCCESS
        }
        Err(e) if e.kind() == clap::error::ErrorKind::ValueValidation => {
            // A value the option's parser refused: the option's name, then the parser's own words
            // (`--window: 17 is out of range (1 to 16)`), as the tools without clap say it.
            use clap::error::{ContextKind, ContextValue};
            let flag = match e.get(ContextKind::InvalidArg) {
                Some(ContextValue::String(a)) => {
                    a.split_whitespace().next().unwrap_or("").to_string()
                }
                _ => String::new(),
            };
            let why = std::error::Error::source(&e)
                .map(|s| s.to_string())
                .unwrap_or_else(|| e.to_string());
            eprintln!("rocenic {name}: error: {flag}: {why}");
            ExitCode::FAILURE
        }
        Err(e) => {
            // What clap refused is its first paragraph (some of it on indented lines); the usage after
            // the blank line is for --help.
            let text = e.to_string();
            let what: Vec<&str> = text
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .map(str::trim)
                .collect();
            let what = what.join(" ");
            eprintln!(
                "rocenic {name}: error: {}",
                what.strip_prefix("error: ").unwrap_or(&what)
            );
            ExitCode::FAILURE
        }
    }
}

fn command(args: &[String]) -> ExitCode {
    match args.first().map(String::as_str) {
        Some("devinfo") => clap_command("devinfo", &args[1..], devinfo::run),
        Some("stat") => clap_command("stat", &args[1..], stat::run),
        Some("-h" | "--help") | None => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        #[cfg(feature = "sim")]
        Some(other) => sim_command(other, args),
        #[cfg(not(feature = "sim"))]
        Some(other) => {
            eprintln!("rocenic: {other} is not in this build (built without the simulator, feature sim)\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// The commands that need the simulator.
#[cfg(feature = "sim")]
fn sim_command(name: &str, args: &[String]) -> ExitCode {
    match Some(name) {
        Some("pingmesh") => clap_command("pingmesh", &args[1..], pingmesh::run),
        Some("demo") => clap_command("demo", &args[1..], |a| demo::run(demo::opts(a))),
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
        Some("dcqcn") => clap_command("dcqcn", &args[1..], dcqcn::run),
        Some("stress") => clap_command("stress", &args[1..], |a| stress::run(stress::config(a)?)),
        _ => {
            eprintln!("rocenic: unknown command {name}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}
