//! `rocenic conformance`: every conformance case (`rocenic_driver::conformance`), one line each, and a
//! count; each case's frames are written to `out/conformance/<case>.pcap`.
use rocenic_driver::conformance::{run_case_exporting, CASES};
use rocenic_driver::replay;
use std::path::PathBuf;

pub const USAGE: &str = "usage: rocenic conformance [--out DIR] [--export CASES_DIR] [CASE...]
       rocenic conformance replay [--cases DIR] [--out DIR] [--regenerate] [CASE...]
       rocenic conformance --markdown     (prints docs/conformance.md)

Runs the conformance cases (all, or the named ones) against a co-simulated NIC faced by a scripted peer,
prints PASS/FAIL per case with the rule it checks, and `conformance: N cases, P passed, F failed`.
Each case's frames go to DIR/<case>.pcap (default out/conformance). --export writes every passing case
as files (CASES_DIR/<case>/: scenario.toml, input.pcap, expected.pcap).

`replay` runs the cases kept as files (default testbench/conformance/cases): it sets the NIC up as each
scenario.toml says, plays its steps and input.pcap, and compares what the NIC emits with expected.pcap
field by field (IPv4 ID and checksum, ECN, UDP source port and the ICRC's value left out; every ICRC is
checked valid), the completions and host memory. --regenerate rewrites the named cases' expected output
from what the NIC does now: on purpose only, never as part of a test run.";

pub fn run(args: &[String]) -> Result<(), String> {
    if args.first().map(String::as_str) == Some("replay") {
        return run_replay(&args[1..]);
    }
    let mut out = PathBuf::from("out/conformance");
    let mut export: Option<PathBuf> = None;
    let mut only = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => out = PathBuf::from(it.next().ok_or("--out needs a directory")?),
            "--export" => {
                export = Some(PathBuf::from(
                    it.next().ok_or("--export needs a directory")?,
                ))
            }
            "--markdown" => {
                print!("{}", markdown());
                return Ok(());
            }
            "-h" | "--help" => return Err(String::new()),
            name => only.push(name.to_string()),
        }
    }
    for n in &only {
        if !CASES.iter().any(|c| c.name == n) {
            return Err(format!("no case named {n}"));
        }
    }
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let (mut passed, mut failed) = (0, 0);
    for c in CASES
        .iter()
        .filter(|c| only.is_empty() || only.iter().any(|n| n == c.name))
    {
        match run_case_exporting(c, &out, export.as_deref()) {
            Ok(skipped) => {
                passed += 1;
                println!("  PASS {:<36} {}", c.name, c.rule);
                if let Some(why) = skipped {
                    println!("       (not exported as files: {why})");
                }
            }
            Err(e) => {
                failed += 1;
                println!("  FAIL {:<36} {}\n       {e}", c.name, c.rule);
            }
        }
    }
    println!(
        "conformance: {} cases, {passed} passed, {failed} failed",
        passed + failed
    );
    if failed > 0 {
        return Err(format!("{failed} case(s) failed"));
    }
    Ok(())
}

/// `rocenic conformance replay`: the cases kept as files.
fn run_replay(args: &[String]) -> Result<(), String> {
    let mut cases = PathBuf::from("testbench/conformance/cases");
    let mut out = PathBuf::from("out/replay");
    let mut regenerate = false;
    let mut only = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--cases" => cases = PathBuf::from(it.next().ok_or("--cases needs a directory")?),
            "--out" => out = PathBuf::from(it.next().ok_or("--out needs a directory")?),
            "--regenerate" => regenerate = true,
            "-h" | "--help" => return Err(String::new()),
            name => only.push(name.to_string()),
        }
    }
    if regenerate && only.is_empty() {
        return Err(
            "--regenerate needs the names of the cases to rewrite (never all at once)".into(),
        );
    }
    let dirs = replay::case_dirs(&cases)?;
    for n in &only {
        if !dirs
            .iter()
            .any(|d| d.file_name().is_some_and(|f| f == n.as_str()))
        {
            return Err(format!("no case named {n} in {}", cases.display()));
        }
    }
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let (mut passed, mut failed) = (0, 0);
    for d in &dirs {
        let name = d.file_name().unwrap().to_string_lossy().to_string();
        if !only.is_empty() && !only.contains(&name) {
            continue;
        }
        let rule = replay::load(d).map(|s| s.rule).unwrap_or_default();
        match replay::run(d, &out.join(format!("{name}.pcap")), regenerate) {
            Ok(o) => {
                passed += 1;
                let what = if regenerate { "REGENERATED" } else { "PASS" };
                println!(
                    "  {what} {name:<40} {} steps, {} frames from the NIC; {rule}",
                    o.steps, o.frames
                );
            }
            Err(e) => {
                failed += 1;
                println!("  FAIL {name:<40} {rule}\n       {e}");
            }
        }
    }
    println!(
        "conformance replay: {} cases, {passed} passed, {failed} failed",
        passed + failed
    );
    if failed > 0 {
        return Err(format!("{failed} case(s) failed"));
    }
    Ok(())
}

/// docs/conformance.md: the cases and the rule each checks, and the interop matrix.
pub fn markdown() -> String {
    let mut s = String::from(
        "# Conformance and interop\n\n\
         Generated by `cargo run --release -p rocenic-driver --bin rocenic -- conformance --markdown > docs/conformance.md`.\n\n\
         ## Conformance cases\n\n\
         `rocenic conformance` (run by `scripts/test.sh`) runs each case on a fresh co-simulated NIC (A, 64-bit, path MTU \
         1024) driven through the verbs driver, facing a scripted peer that speaks as B: the script builds B's frames field \
         by field with `rocenic_proto::wire` and checks what A puts on the wire (opcode, PSN, AETH syndrome and MSN, \
         extension headers, payload), A's completions, counters and memory. Each case's frames are written to \
         `out/conformance/<case>.pcap` and checked by `testbench/check_pcap.py` (ICRC recomputed with zlib, tshark decode). \
         The cases are code (`driver/src/conformance.rs`), not recorded pcaps: the expected values are the spec's, written \
         in each case, so there is no expected output to regenerate.\n\n\
         | case | rule (IBA vol. 1 section) |\n|---|---|\n",
    );
    for c in CASES {
        s += &format!("| `{}` | {} |\n", c.name, c.rule);
    }
    s += &format!("\n{} cases.\n", CASES.len());
    s += "\n## Interop with Linux Soft-RoCE (rdma_rxe)\n\n\
          `testbench/interop/rc-pingpong.sh` (run by `scripts/test.sh`): `rocenic rc-pingpong` on the co-simulated NIC \
          against an unmodified `ibv_rc_pingpong` (rdma-core, Debian 12) on rdma_rxe (Linux 6.1) in a QEMU guest, 100 \
          iterations per case, every message checked byte for byte, every capture checked.\n\n\
          | rocenic role | path MTU | sizes | result |\n|---|---|---|---|\n\
          | client (rxe server) | 1024 | 1, 1024, 4096, 65536 | pass |\n\
          | client (rxe server) | 4096 | 4096, 65536 | pass |\n\
          | server (rxe client) | 1024 | 1, 1024, 4096, 65536 | pass |\n\
          | server (rxe client) | 4096 | 4096, 65536 | pass |\n\
          | client (rxe server), 3 % of frames dropped each way | 1024 | 4096 | pass: both sides retransmit (sequence NAKs, timeouts) |\n\n\
          `testbench/interop/perftest.sh` (run by `scripts/test.sh`): `rocenic write-bw`, `read-bw`, `send-bw` and \
          `write-lat` against unmodified perftest 6.06 (`ib_write_bw`, `ib_read_bw`, `ib_send_bw`, `ib_write_lat`, \
          Debian 12's `perftest 4.5+0.17`) on rdma_rxe, both roles, 100 iterations per case, perftest's own out-of-band exchange (versions, \
          page and cache-line sizes, MTU, QP addresses, for write and read the client's report carried to the \
          server), every capture checked. The perftest side must exit 0 and, as the server, print a result row for \
          every case (write, read: the report rocenic sent; send, write-lat: its own measurement). rocenic's send-bw \
          server checks every receive completion's status and length and reposts receives as they complete; \
          write-lat's ping-pong only advances when the peer's WRITE has landed in host memory (its last byte \
          counts the iterations).\n\n\
          | tool | rocenic role | path MTU | sizes | result |\n|---|---|---|---|---|\n\
          | write-bw / ib_write_bw | client (rxe server) | 1024, 4096 | 65536; 64 at 1024 | pass |\n\
          | write-bw / ib_write_bw | server (rxe client) | 1024, 4096 | 65536; 64 at 1024 | pass |\n\
          | read-bw / ib_read_bw | client (rxe server) | 1024, 4096 | 65536; 64 at 1024 | pass |\n\
          | read-bw / ib_read_bw | server (rxe client) | 1024, 4096 | 65536; 64 at 1024 | pass |\n\
          | send-bw / ib_send_bw | client (rxe server) | 1024, 4096 | 65536; 64 at 1024 | pass |\n\
          | send-bw / ib_send_bw | server (rxe client) | 1024, 4096 | 65536; 64 at 1024 | pass |\n\
          | write-lat / ib_write_lat | client (rxe server) | 1024, 4096 | 65536; 64 at 1024 | pass |\n\
          | write-lat / ib_write_lat | server (rxe client) | 1024, 4096 | 65536; 64 at 1024 | pass |\n\n\
          Not yet: several QPs (`-q`, the hardware has one QP per device), \
          more than one outstanding READ (`-o`), and RDMA CM (`-R`, `rping`).\n";
    s
}
