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
#[cfg(feature = "sim")]
mod progress;
mod stat;
#[cfg(feature = "sim")]
mod stress;

use clap::{ArgMatches, Command, CommandFactory, FromArgMatches};
use std::process::ExitCode;

/// One subcommand: its options (a clap command, named and described here) and how it runs.
struct Tool {
    name: &'static str,
    about: &'static str,
    command: fn() -> Command,
    run: fn(&ArgMatches) -> Result<(), String>,
}

/// Options of type `A` from a subcommand's matches.
fn args<A: FromArgMatches>(m: &ArgMatches) -> Result<A, String> {
    A::from_arg_matches(m).map_err(|e| e.to_string())
}

/// Every command of this build, in the order `rocenic --help` lists them.
fn tools() -> Vec<Tool> {
    #[allow(unused_mut)]
    let mut v = Vec::new();
    #[cfg(feature = "sim")]
    v.extend([
        Tool {
            name: "demo",
            about: "two co-simulated NICs back to back: RDMA WRITE + SEND, data checked, pcap written",
            command: demo::Args::command,
            run: |m| demo::run(demo::opts(args(m)?)),
        },
        Tool {
            name: "rc-pingpong",
            about: "ibv_rc_pingpong on a co-simulated NIC whose Ethernet port is a socket (pairs with rdma-core)",
            command: pingpong::Args::command,
            run: |m| pingpong::run(pingpong::opts(args(m)?)?),
        },
        Tool {
            name: "write-bw",
            about: "perftest's ib_write_bw likewise (pairs with perftest in either role)",
            command: perftest::Args::command,
            run: |m| perftest::run(perftest::opts(perftest::Verb::Write, args(m)?)?),
        },
        Tool {
            name: "read-bw",
            about: "perftest's ib_read_bw likewise",
            command: perftest::Args::command,
            run: |m| perftest::run(perftest::opts(perftest::Verb::Read, args(m)?)?),
        },
        Tool {
            name: "send-bw",
            about: "perftest's ib_send_bw likewise",
            command: perftest::Args::command,
            run: |m| perftest::run(perftest::opts(perftest::Verb::Send, args(m)?)?),
        },
        Tool {
            name: "write-lat",
            about: "perftest's ib_write_lat likewise",
            command: perftest::Args::command,
            run: |m| perftest::run(perftest::opts(perftest::Verb::WriteLat, args(m)?)?),
        },
        Tool {
            name: "atomic-bw",
            about: "perftest's ib_atomic_bw likewise (FETCH_AND_ADD)",
            command: perftest::Args::command,
            run: |m| perftest::run(perftest::opts(perftest::Verb::Atomic, args(m)?)?),
        },
        Tool {
            name: "stress",
            about: "mixed RC operations both ways over a lossy, reordering link, every byte checked",
            command: stress::Args::command,
            run: |m| stress::run(stress::config(args(m)?)?),
        },
        Tool {
            name: "conformance",
            about: "spec-named cases against a scripted peer, checked field by field on the wire",
            command: conformance::Args::command,
            run: |m| conformance::run(args(m)?),
        },
        Tool {
            name: "dcqcn",
            about: "two flows through an ECN-marking switch: DCQCN rates, fairness and queue over time",
            command: dcqcn::Args::command,
            run: |m| dcqcn::run(args(m)?),
        },
        Tool {
            name: "pingmesh",
            about: "N co-simulated hosts behind a switch, every pair probed: latency percentiles, heat map",
            command: pingmesh::Args::command,
            run: |m| pingmesh::run(args(m)?),
        },
    ]);
    v.extend([
        Tool {
            name: "devinfo",
            about: "the device and its port, as ibv_devinfo prints them (--device sim or vfio:ADDR)",
            command: devinfo::Args::command,
            run: |m| devinfo::run(args(m)?),
        },
        Tool {
            name: "stat",
            about: "the device's counters, as rdma statistic and ethtool -S show them (--device likewise)",
            command: stat::Args::command,
            run: |m| stat::run(args(m)?),
        },
    ]);
    v
}

/// The whole command line: every tool as a subcommand, and `completions`.
fn cli(tools: &[Tool]) -> Command {
    let mut c = Command::new("rocenic")
        .about("Tools on the rocenic driver: the co-simulated NICs, rdma-core's and perftest's tools, the device tools")
        .subcommand_required(true)
        .arg_required_else_help(true);
    for t in tools {
        c = c.subcommand((t.command)().name(t.name).about(t.about));
    }
    c.subcommand(
        Command::new("completions")
            .about("Shell completions for rocenic: source the output (bash, zsh, fish, elvish, powershell)")
            .arg(
                clap::Arg::new("shell")
                    .required(true)
                    .value_parser(clap::value_parser!(clap_complete::Shell)),
            ),
    )
}

/// How a command ended: a refusal or failure is one line, exit code 1.
fn finish(name: &str, r: Result<(), String>) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(m) => {
            eprintln!("rocenic {name}: error: {m}");
            ExitCode::FAILURE
        }
    }
}

/// A refused command line in one line: the option and the value parser's words for a refused value
/// (`--window: 17 is out of range (1 to 16)`), else clap's first paragraph (the usage after it is for
/// --help).
fn refusal(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() == ErrorKind::ValueValidation {
        let flag = match e.get(ContextKind::InvalidArg) {
            Some(ContextValue::String(a)) => a.split_whitespace().next().unwrap_or("").to_string(),
            _ => String::new(),
        };
        if let Some(why) = std::error::Error::source(e) {
            return format!("{flag}: {why}");
        }
    }
    let text = e.to_string();
    let what: Vec<&str> = text
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    let what = what.join(" ");
    what.strip_prefix("error: ").unwrap_or(&what).to_string()
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().collect();
    let name = argv.get(1).cloned().unwrap_or_default();
    // A panic (the simulator's DMA firewall, a co-simulation invariant) ends a tool like any error: one
    // line, exit code 1. RUST_BACKTRACE set gives Rust's own report instead.
    if std::env::var_os("RUST_BACKTRACE").is_none() {
        let name = name.clone();
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
    std::panic::catch_unwind(|| command(&name, argv)).unwrap_or(ExitCode::FAILURE)
}

fn command(name: &str, argv: Vec<String>) -> ExitCode {
    let tools = tools();
    let m = match cli(&tools).try_get_matches_from(&argv) {
        Ok(m) => m,
        Err(e)
            if !e.use_stderr()
                || e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand =>
        {
            // --help, or no command at all: the help, on standard output.
            print!("{}", e.render());
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let who = if tools.iter().any(|t| t.name == name) || name == "completions" {
                format!("rocenic {name}")
            } else {
                "rocenic".to_string()
            };
            eprintln!("{who}: error: {}", refusal(&e));
            return ExitCode::FAILURE;
        }
    };
    let (sub, sm) = m.subcommand().expect("a subcommand is required");
    if sub == "completions" {
        let shell = *sm.get_one::<clap_complete::Shell>("shell").unwrap();
        let mut out = Vec::new();
        clap_complete::generate(shell, &mut cli(&tools), "rocenic", &mut out);
        // A reader that stops early (`| head`) is not an error.
        let _ = std::io::Write::write_all(&mut std::io::stdout(), &out);
        return ExitCode::SUCCESS;
    }
    let tool = tools.iter().find(|t| t.name == sub).unwrap();
    finish(sub, (tool.run)(sm))
}
