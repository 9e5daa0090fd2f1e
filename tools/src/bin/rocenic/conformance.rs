//! `rocenic conformance`: every conformance case (`rocenic_testkit::conformance`), one line each, and a
//! count; each case's frames are written to `out/conformance/<case>.pcap`.
use crate::opt;
use rocenic_testkit::conformance::{run_case_exporting, CASES};
use rocenic_testkit::replay;
use std::path::PathBuf;

/// `rocenic conformance`'s options and its two subcommands.
#[derive(clap::Parser, Debug)]
#[command(
    name = "rocenic conformance",
    args_conflicts_with_subcommands = true,
    about = "Spec-named cases against a scripted peer, checked field by field on the wire",
    long_about = "Runs the conformance cases (all, or the named ones) against a co-simulated NIC faced by \
        a scripted peer, prints PASS/FAIL per case with the rule it checks, and `conformance: N cases, P \
        passed, F failed`. Each case's frames go to DIR/<case>.pcap. `replay` runs the cases kept as \
        files, `import` makes one from a capture."
)]
pub struct Args {
    #[command(subcommand)]
    sub: Option<Sub>,
    /// Where each case's frames go (DIR/<case>.pcap)
    #[arg(long, value_name = "DIR", default_value = "out/conformance")]
    out: PathBuf,
    /// Write every passing case as files (CASES_DIR/<case>/: scenario.toml, input.pcap, expected.pcap)
    #[arg(long, value_name = "CASES_DIR")]
    export: Option<PathBuf>,
    /// Print docs/conformance.md instead of running
    #[arg(long)]
    markdown: bool,
    /// Only these cases
    #[arg(value_name = "CASE")]
    only: Vec<String>,
}

#[derive(clap::Subcommand, Debug)]
enum Sub {
    /// Run the cases kept as files: set the NIC up as each scenario.toml says, play its steps and
    /// input.pcap, and compare what the NIC emits with expected.pcap field by field (IPv4 ID and checksum,
    /// ECN, UDP source port and the ICRC's value left out; every ICRC is checked valid), the completions
    /// and host memory
    Replay {
        /// The cases' directory
        #[arg(
            long,
            value_name = "DIR",
            default_value = "testbench/conformance/cases"
        )]
        cases: PathBuf,
        /// Where each case's frames go
        #[arg(long, value_name = "DIR", default_value = "out/replay")]
        out: PathBuf,
        /// Rewrite the named cases' expected output from what the NIC does now: on purpose only, never as
        /// part of a test run
        #[arg(long)]
        regenerate: bool,
        /// Only these cases
        #[arg(value_name = "CASE")]
        only: Vec<String>,
    },
    /// Make a case from a capture of two RoCE peers: the NIC takes the place of ADDR, the other side's
    /// frames become the input, ADDR's frames the reference the NIC's output is compared with (opcode, QPN,
    /// PSN, AckReq, AETH type and MSN, RETH, ImmDt, payload)
    Import(ImportArgs),
}

#[derive(clap::Args, Debug)]
struct ImportArgs {
    /// The capture (pcap)
    capture: Option<PathBuf>,
    /// The address whose place the NIC takes
    #[arg(long, value_name = "ADDR")]
    nic_ip: Option<std::net::Ipv4Addr>,
    /// The case's name: letters, digits, '_' and '-' (it names a directory under --cases)
    #[arg(long)]
    name: Option<String>,
    /// The spec rule the case checks
    #[arg(long, value_name = "TEXT")]
    rule: Option<String>,
    /// Path MTU
    #[arg(long, value_name = "N", default_value_t = 1024, value_parser = opt::mtu_parser)]
    mtu: u32,
    /// At most N RoCE frames
    #[arg(long, value_name = "N", default_value_t = 48, value_parser = opt::int_parser(1..=1_000_000))]
    frames: u64,
    /// Cycles between steps
    #[arg(long, value_name = "CYCLES", default_value_t = 4000, value_parser = opt::int_parser(1..=1_000_000_000))]
    gap: u64,
    /// The cases' directory
    #[arg(
        long,
        value_name = "DIR",
        default_value = "testbench/conformance/cases"
    )]
    cases: PathBuf,
}

pub fn run(a: Args) -> Result<(), String> {
    match a.sub {
        Some(Sub::Replay {
            cases,
            out,
            regenerate,
            only,
        }) => return run_replay(cases, out, regenerate, only),
        Some(Sub::Import(i)) => return run_import(i),
        None => {}
    }
    if a.markdown {
        print!("{}", markdown());
        return Ok(());
    }
    let (out, export, only) = (a.out, a.export, a.only);
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

/// `rocenic conformance import`: a case from a capture.
fn run_import(a: ImportArgs) -> Result<(), String> {
    let (cases, capture, nic_ip, name, rule) = (a.cases, a.capture, a.nic_ip, a.name, a.rule);
    let (mtu, max_frames, gap) = (a.mtu, a.frames as usize, a.gap);
    let name = name.ok_or("--name is required")?;
    // A case is a directory under --cases named by this: letters, digits, '_' and '-' only, so that no
    // name reaches outside it.
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(format!(
            "--name {name:?}: use letters, digits, '_' and '-' only (it names a directory under --cases)"
        ));
    }
    let im = replay::Import {
        capture: capture.ok_or("name the capture to import")?,
        nic_ip: nic_ip.ok_or("--nic-ip is required")?,
        name: name.clone(),
        rule: rule.ok_or("--rule is required: the spec rule the case checks")?,
        mtu,
        max_frames,
        gap,
    };
    // Built beside the cases under a hidden name and moved into place only once it replays: a failed
    // import leaves no case behind for `replay` to run.
    let dir = cases.join(&name);
    let tmp = cases.join(format!(".import-{name}"));
    let _ = std::fs::remove_dir_all(&tmp);
    let o = replay::import(&tmp, &im).inspect_err(|_| {
        let _ = std::fs::remove_dir_all(&tmp);
    })?;
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::rename(&tmp, &dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    println!(
        "imported {name}: {} steps, the NIC emitted {} frames, matching the capture's; {}",
        o.steps,
        o.frames,
        dir.display()
    );
    Ok(())
}

/// `rocenic conformance replay`: the cases kept as files.
fn run_replay(
    cases: PathBuf,
    out: PathBuf,
    regenerate: bool,
    only: Vec<String>,
) -> Result<(), String> {
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

/// The "Cases as files" part of docs/conformance.md, with the cases imported from captures.
fn files_section() -> String {
    let root = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../testbench/conformance/cases"
    ));
    let dirs = replay::case_dirs(&root).unwrap_or_default();
    let mut s = format!(
        "\n## Cases as files: scenario + input pcap, replayed\n\n\
         `testbench/conformance/cases/<case>/` holds {} cases, each a `scenario.toml` (the NIC's set-up: MAC, IP, QPN, \
         PSNs, path MTU, timers, the MRs with their VAs, keys and access; then a timeline of steps in cycles after \
         set-up: inject frame N of `input.pcap`, post a receive or send work request, poll a completion and check it, \
         write a register or host memory, register an MR, move the QP to ERR or SQD, query it; at the end the \
         completions left and every byte range of host memory that differs from the initial fill, by CRC-32), an \
         `input.pcap` (the peer's frames) and an `expected.pcap` (every frame the NIC must emit). \
         `rocenic conformance replay` (run by `scripts/test.sh`) sets a fresh co-simulated NIC up from the scenario, \
         plays it, and compares the NIC's frames with `expected.pcap` field by field, leaving out what the spec \
         leaves free (IPv4 identification and so the header checksum, the ECN bits, the UDP source port, and the \
         ICRC's value, which covers the identification; every ICRC the NIC emits is checked valid instead), then the \
         completions and host memory. `tools/tests/replay.rs` shows the replay failing on a changed PSN, MSN, \
         payload, completion, MR key or a missing frame.\n\n\
         Where they come from: `rocenic conformance --export testbench/conformance/cases` writes every scripted case \
         above as files from the run that passed its spec checks; `rocenic conformance import CAPTURE --nic-ip ADDR` \
         makes a case from a capture of two RoCE peers: the NIC takes ADDR's place, the other side's frames are the \
         input (their destination QPN mapped to this NIC's, RETH and AtomicETH addresses and R_Key moved into the \
         NIC's MR, resealed; the data the captured side's READ responses carried, and the original value its first \
         ATOMIC ACKNOWLEDGE on each address returned, preloaded into that MR); ADDR's own requests become work \
         requests (SEND, WRITE, READ and both atomics, with or without immediate, of any length up to the \
         case's 1 MiB MRs; a request sent again at a PSN already posted is the captured requester's \
         retransmission, not a new work request), and ADDR's own frames are kept as \
         `reference.pcap`, which the NIC's output must match on opcode, destination QP, PSN, AckReq, AETH type and \
         MSN, RETH, ImmDt and payload (a captured ACK the NIC coalesced into a later one, an AETH credit count and \
         AckReq before a message's last packet are the implementation's choice and not compared; ADDR's requests \
         and its responses are compared as two sequences, each in order, since how they interleave follows the \
         hosts' timing). The case is sized from the capture: send queue as deep as the most messages ADDR had \
         unanswered, CQs for every completion, receive buffers for the longest SEND, MRs for the longest message \
         and the span the peer's RDMA requests address, and an ACK timeout twice the longest wait for an answer in \
         the case's timeline. What the replay cannot reproduce is left out and said in the case's source: requests \
         ADDR sent again without a NAK (its own timer, which ran on the captured host's clock), and, where \
         `--frames` cuts the capture, the peer's last requests whose answers lie past the cut. \
         `testbench/conformance/import-captures.sh` rebuilds the capture cases: from `testbench/captures` (rxe running \
         `ibv_rc_pingpong`, a public RoCE trace) and from captures the interop harness records with rdma_rxe \
         (`testbench/interop/perftest.sh`: rxe in each perftest tool's server and client roles, 64-byte and 64 KiB \
         messages). `tools/tests/import.rs` imports captures shaped like perftest's (a burst deeper than the \
         default queue, a timer resend, interleaved roles, a cut window). Expected output changes only on \
         purpose: `rocenic conformance replay --regenerate NAME` rewrites the named cases, never all at once.\n\n\
         | case from a capture | rule |\n|---|---|\n",
        dirs.len()
    );
    for d in &dirs {
        if let Ok(sc) = replay::load(d) {
            if sc.reference.is_some() {
                s += &format!("| `{}` | {} ({}) |\n", sc.name, sc.rule, sc.source);
            }
        }
    }
    s
}

/// docs/conformance.md: the cases and the rule each checks, and the interop matrix.
pub fn markdown() -> String {
    let mut s = String::from(
        "# Conformance and interop\n\n\
         Generated by `cargo run --release -p rocenic-tools --bin rocenic -- conformance --markdown > docs/conformance.md`.\n\n\
         ## Conformance cases\n\n\
         `rocenic conformance` (run by `scripts/test.sh`) runs each case on a fresh co-simulated NIC (A, 64-bit, path MTU \
         1024) driven through the verbs driver, facing a scripted peer that speaks as B: the script builds B's frames field \
         by field with `rocenic_proto::wire` and checks what A puts on the wire (opcode, PSN, AETH syndrome and MSN, \
         extension headers, payload), A's completions, counters and memory. Each case's frames are written to \
         `out/conformance/<case>.pcap` and checked by `testbench/check_pcap.py` (ICRC recomputed with zlib, tshark decode, PFC and PAUSE fields as tshark reads them). \
         The expected values are the spec's, written in each case (`testkit/src/conformance/`); every case a scenario \
         file can express is also kept as files and replayed from them (below): all but the `_scatter_` cases, whose \
         receive WQEs have scatter lists (a scenario's receive step names one buffer).\n\n\
         | case | rule (IBA vol. 1 section) |\n|---|---|\n",
    );
    for c in CASES {
        s += &format!("| `{}` | {} |\n", c.name, c.rule);
    }
    s += &format!("\n{} cases.\n", CASES.len());
    s += &files_section();
    s += "\n## Interop with Linux Soft-RoCE (rdma_rxe)\n\n\
          `testbench/interop/rc-pingpong.sh` (`scripts/test.sh` runs 65536 bytes at path MTU 1024 in each of the first two roles; `scripts/test.sh --full` runs every row of the table): `rocenic rc-pingpong` on the co-simulated NIC \
          against an unmodified `ibv_rc_pingpong` (rdma-core, Debian 12) on rdma_rxe (Linux 6.1) in a QEMU guest, 100 \
          iterations per case, every message checked byte for byte, every capture checked.\n\n\
          | rocenic role | path MTU | sizes | result |\n|---|---|---|---|\n\
          | client (rxe server) | 1024 | 1, 1024, 4096, 65536 | pass |\n\
          | client (rxe server) | 4096 | 4096, 65536 | pass |\n\
          | server (rxe client) | 1024 | 1, 1024, 4096, 65536 | pass |\n\
          | server (rxe client) | 4096 | 4096, 65536 | pass |\n\
          | client (rxe server), 3 % of frames dropped each way (among each direction's first 4 x iterations, so the closing exchange is not lost after rxe exits) | 1024 | 4096 | pass: both sides retransmit (sequence NAKs, timeouts) |\n\
          | client (rxe server), RoCEv2 over IPv6 (rxe's GID fd52:4f43:45::1, the NIC's fd52:4f43:45::2; the NIC resolves rxe's MAC by neighbour solicitation, rxe's kernel learns the NIC's from its hardware neighbour advertisement) | 1024 | 4096 | pass: every frame IPv6, the neighbour entry learned |\n\
          | client (rxe server), over 802.1Q VLAN 100 (rxe on eth0.100's GID; `rocenic rc-pingpong --vlan 100`: the port joins VLAN 100, the QP sends tagged, the tool resolves rxe's MAC with a tagged ARP request and rxe's kernel learns the NIC's from its tagged hardware ARP reply) | 1024 | 4096 | pass: every RoCE frame tagged 100, the neighbour entry learned on eth0.100 |\n\n\
          `testbench/interop/perftest.sh` (`scripts/test.sh` runs one case per tool and role, 65536 bytes at path MTU 1024; `scripts/test.sh --full` runs every case in the table): `rocenic write-bw`, `read-bw`, `send-bw`, \
          `write-lat` and `atomic-bw` against unmodified perftest 6.06 (`ib_write_bw`, `ib_read_bw`, `ib_send_bw`, \
          `ib_write_lat`, `ib_atomic_bw`, \
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
          | write-lat / ib_write_lat | server (rxe client) | 1024, 4096 | 65536; 64 at 1024 | pass |\n\
          | atomic-bw / ib_atomic_bw (FETCH_AND_ADD, `-o 4`) | client (rxe server) | 1024 | 8 | pass: 4 atomics outstanding on the wire |\n\
          | atomic-bw / ib_atomic_bw (rocenic `-o 4`) | server (rxe client) | 1024 | 8 | pass: rxe keeps 4 outstanding, each answered |\n\n\
          Not yet: several QPs in one perftest run (`-q`: the NIC holds thousands, rocenic's perftest drives one), \
          read-bw with more than one outstanding READ in CI (`ROCENIC_INTEROP_OUTS=4` passes, 100 iterations, \
          but takes 5 minutes), and RDMA CM (`-R`, `rping`).\n";
    s
}
