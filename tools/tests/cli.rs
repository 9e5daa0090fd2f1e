//! Every `rocenic` subcommand refuses bad option values and bad files with exit code 1 and one line
//! naming the option (or file), the value and what is allowed: no panic, no silent cast, no run that
//! never ends.
use std::path::Path;
use std::process::Command;

/// Exit code and standard error; with `stdout`, standard output and error together.
fn run(args: &[&str], stdout: bool) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rocenic"))
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap();
    let mut text = String::from_utf8_lossy(&out.stderr).into_owned();
    if stdout {
        text = String::from_utf8_lossy(&out.stdout).into_owned() + &text;
    }
    (out.status.code(), text)
}

fn rocenic(args: &[&str]) -> (Option<i32>, String) {
    run(args, false)
}

/// `args` fail with exit code 1 and one line that starts with the command's name and contains `want`.
fn refused(args: &[&str], want: &str) {
    let (code, err) = rocenic(args);
    assert_eq!(code, Some(1), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: one line, got {err:?}");
    assert!(
        err.starts_with(&format!("rocenic {}: error: ", args[0])) && err.contains(want),
        "{args:?}: {err:?} should say {want:?}"
    );
}

#[test]
fn bad_option_values_are_refused_in_one_line() {
    for p in ["1.5", "-0.1", "NaN", "inf"] {
        refused(&["demo", "--corrupt", p], "is not a probability (0 to 1)");
        refused(&["stress", "--drop", p], "is not a probability (0 to 1)");
    }
    refused(&["demo", "--fcs-errors", "2"], "not a probability");
    refused(
        &["demo", "--ack-timeout", "5000000000"],
        "--ack-timeout: 5000000000 is out of range (0 to 4294967295)",
    );
    refused(&["demo", "--write-bytes", "-1"], "is not a whole number");
    refused(&["demo", "--vlan", "4095"], "--vlan: 4095 is out of range");
    refused(&["demo", "--mtu", "300"], "--mtu");
    refused(
        &["demo", "--max-cycles", "0"],
        "--max-cycles: 0 is out of range",
    );
    refused(&["stress", "--ack-timeout", "4294967296"], "out of range");
    refused(
        &["stress", "--window", "17"],
        "--window: 17 is out of range (1 to 16)",
    );
    refused(
        &["stress", "--sge", "5"],
        "--sge: 5 is out of range (1 to 4)",
    );
    refused(&["stress", "--max-bytes", "1"], "below an atomic's 8 bytes");
    refused(&["stress", "--mtu", "1000"], "not an IB MTU");
    for cmd in ["write-bw", "read-bw", "send-bw", "write-lat", "atomic-bw"] {
        refused(&[cmd, "--port", "70000"], "--port: 70000 is out of range");
        refused(&[cmd, "--ack-timeout-cycles", "4294967296"], "out of range");
        refused(&[cmd, "--size", "x"], "--size: x is not a whole number");
    }
    refused(&["rc-pingpong", "--port", "0"], "--port: 0 is out of range");
    refused(&["rc-pingpong", "--iters", "y"], "is not a whole number");
    refused(&["dcqcn", "--pmax", "2"], "--pmax: 2 is not a probability");
    refused(&["dcqcn", "--duration-us", "-5"], "not a positive number");
    refused(
        &["conformance", "import", "--frames", "0"],
        "--frames: 0 is out of range",
    );
}

#[test]
fn an_import_stays_inside_its_cases_and_a_failed_one_leaves_nothing() {
    let dir = std::env::temp_dir().join(format!("rocenic-cli-{}", std::process::id()));
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    let cases_s = cases.to_str().unwrap();
    let base = [
        "conformance",
        "import",
        "--nic-ip",
        "10.0.0.1",
        "--rule",
        "r",
    ];
    for bad in ["../../x", "a/b", "", ".hidden"] {
        let mut a = base.to_vec();
        a.extend(["missing.pcap", "--cases", cases_s, "--name", bad]);
        refused(&a, "--name");
    }
    // A capture that cannot be read: the error names the file, and no case directory is left.
    std::fs::write(dir.join("cut.pcap"), [0xD4, 0xC3, 0xB2, 0xA1, 2, 0]).unwrap();
    let capture = dir.join("cut.pcap");
    let mut a = base.to_vec();
    a.extend([
        capture.to_str().unwrap(),
        "--cases",
        cases_s,
        "--name",
        "cut",
    ]);
    refused(&a, "too short for a pcap file header");
    assert_eq!(
        std::fs::read_dir(&cases).unwrap().count(),
        0,
        "nothing left"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn scenario_fields_are_range_checked() {
    // A real case with its PSN widened past 24 bits, then its end pushed past the cap: refused by
    // name, before anything runs.
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testbench/conformance/cases/rc_write_first_middle_last");
    let dir = std::env::temp_dir().join(format!("rocenic-scn-{}", std::process::id()));
    let case = dir.join("rc_write_first_middle_last");
    std::fs::create_dir_all(&case).unwrap();
    for f in ["scenario.toml", "input.pcap", "expected.pcap"] {
        std::fs::copy(src.join(f), case.join(f)).unwrap();
    }
    let text = std::fs::read_to_string(src.join("scenario.toml")).unwrap();
    let set = |field: &str, value: &str| {
        let t: String = text
            .lines()
            .map(|l| {
                if l.starts_with(&format!("{field} = ")) {
                    format!("{field} = {value}\n")
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        std::fs::write(case.join("scenario.toml"), t).unwrap();
    };
    let replay = [
        "conformance",
        "replay",
        "--cases",
        dir.to_str().unwrap(),
        "--out",
    ];
    let out = dir.join("out");
    let mut a = replay.to_vec();
    a.push(out.to_str().unwrap());
    set("sq_psn", "16777216");
    // (replay prints each case's failure on standard output, then a summary error.)
    let (code, err) = run(&a, true);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("nic.sq_psn 0x1000000 is not a 24-bit PSN"),
        "{err}"
    );
    set("end_cycle", "100000001");
    let (code, err) = run(&a, true);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("end_cycle 100000001 is over 100000000"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `rocenic devinfo` and `rocenic stat` on a simulated device: ibv_devinfo's fields and layout, the
/// counters under rdma-core's and ethtool's names, JSON, and rates.
#[test]
fn devinfo_and_stat_report_a_simulated_device() {
    let (code, out) = run(&["devinfo", "-v", "--device", "sim:512"], true);
    assert_eq!(code, Some(0), "{out}");
    for want in [
        "hca_id:\trocenic0\n",
        "\tmax_qp:\t\t\t\t16384\n",
        "\t\tport:\t1\n",
        "\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n",
        "\t\t\tactive_speed:\t\t25.0 Gbps (32)\n",
        "\t\t\tGID[IPv4]:\t\t::ffff:10.0.0.2, RoCE v2\n",
    ] {
        assert!(out.contains(want), "{want:?} not in\n{out}");
    }
    let (code, out) = run(&["stat", "--json"], true);
    assert_eq!(code, Some(0), "{out}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["counters"]["port_xmit_packets"], 0);
    assert_eq!(
        j["qps"].as_array().map(Vec::len),
        Some(0),
        "a new device has no QP"
    );
    let hw = j["hw"].as_object().unwrap();
    for r in rocenic_proto::regs::REGISTERS
        .iter()
        .filter(|r| r.offset >= rocenic_proto::regs::RX_FRAMES)
        .filter(|r| r.access == rocenic_proto::regs::Access::Counter)
    {
        assert!(
            hw.contains_key(&r.name.to_lowercase()),
            "{} missing",
            r.name
        );
    }
    let (code, out) = run(&["stat", "-S"], true);
    assert!(
        code == Some(0) && out.starts_with("NIC statistics:\n     rx_frames: 0\n"),
        "{out}"
    );
    let (code, out) = run(&["stat", "--watch", "0.1", "--count", "2"], true);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(out, "link rocenic0/1 (nothing moved)\n".repeat(2));
}

/// `rocenic demo --stat`: each NIC's counters agree with the frames the link carried, and each shows its
/// QP in RTS.
#[test]
fn demo_stat_counts_what_the_link_carried() {
    let pcap = std::env::temp_dir().join(format!("rocenic-stat-{}.pcap", std::process::id()));
    let pcap = pcap.to_str().unwrap();
    let (code, out) = run(
        &[
            "demo",
            "--write-bytes",
            "65536",
            "--mtu",
            "1024",
            "--stat",
            "--pcap",
            pcap,
        ],
        true,
    );
    let _ = std::fs::remove_file(pcap);
    assert_eq!(code, Some(0), "{out}");
    let frames = out
        .lines()
        .find(|l| l.trim_start().starts_with("frames"))
        .unwrap();
    let n = |tag: &str| -> u64 {
        let rest = &frames[frames.find(tag).unwrap() + tag.len()..];
        rest.split_whitespace().next().unwrap().parse().unwrap()
    };
    let (ab, ba) = (n("A->B "), n("B->A "));
    let stat = |side: &str| {
        out.split(&format!("rocenic stat of {side}:\n"))
            .nth(1)
            .unwrap()
            .to_string()
    };
    let get = |text: &str, name: &str| -> u64 {
        let w: Vec<&str> = text.lines().next().unwrap().split_whitespace().collect();
        let i = w.iter().position(|&x| x == name).unwrap();
        w[i + 1].parse().unwrap()
    };
    let (a, b) = (stat("A"), stat("B"));
    assert!(ab > 0 && ba > 0);
    assert_eq!(get(&a, "port_xmit_packets"), ab);
    assert_eq!(get(&b, "port_rcv_packets"), ab);
    assert_eq!(get(&b, "port_xmit_packets"), ba);
    assert_eq!(get(&a, "port_rcv_packets"), ba);
    for s in [&a, &b] {
        assert!(s.contains("qp-type RC lqpn 17 state Rts"), "{s}");
    }
}

#[test]
fn devinfo_and_stat_refuse_bad_devices_and_options() {
    refused(
        &["stat", "--device", "mlx5_0"],
        "want sim, sim:64, sim:512 or vfio:",
    );
    refused(
        &["devinfo", "--device", "vfio:0000:00:1f.7"],
        "no PCI device 0000:00:1f.7",
    );
    refused(&["devinfo", "--device", "vfio:zz"], "is not a PCI address");
    refused(&["stat", "--count", "2"], "--watch");
    refused(&["stat", "--watch", "0"], "not a number of seconds");
    refused(
        &["stat", "--qp", "100000"],
        "--qp 100000: bad QP attribute: QPN beyond",
    );
    refused(&["devinfo", "--ib-port", "2"], "--ib-port");
}

/// `rocenic pingmesh`: every ordered pair probed, the latencies of an idle mesh alike, the SVGs written;
/// with a bulk stream beside the probes, the pairs it slows (from its source, whose send queue the bulk
/// WRITEs hold, and into it, whose ACKs wait behind them) stand out from the rest.
#[test]
fn pingmesh_probes_every_pair_and_finds_the_congested_host() {
    let dir = std::env::temp_dir().join(format!("rocenic-pingmesh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (svg, hist) = (dir.join("mesh.svg"), dir.join("hist.svg"));
    let mesh = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["pingmesh", "--hosts", "3", "--probes", "2", "--json"];
        args.extend_from_slice(&[
            "--svg",
            svg.to_str().unwrap(),
            "--hist",
            hist.to_str().unwrap(),
        ]);
        args.extend_from_slice(extra);
        let out = Command::new(env!("CARGO_BIN_EXE_rocenic"))
            .args(&args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let p99 = |j: &serde_json::Value, s: u64, d: u64| -> f64 {
        let p = j["pairs"].as_array().unwrap().iter();
        let mut p = p.filter(|p| p["src"] == s && p["dst"] == d);
        p.next().unwrap()["p99_us"].as_f64().unwrap()
    };
    let idle = mesh(&[]);
    assert_eq!(idle["pairs"].as_array().unwrap().len(), 6);
    assert_eq!(idle["overall"]["probes"], 12);
    for (s, d) in [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)] {
        let v = p99(&idle, s, d);
        assert!((1.0..20.0).contains(&v), "{s}->{d}: {v} us on an idle mesh");
    }
    for f in [&svg, &hist] {
        let text = std::fs::read_to_string(f).unwrap();
        assert!(
            text.starts_with("<svg") && text.contains("<rect"),
            "{}",
            f.display()
        );
    }
    let busy = mesh(&["--congest", "0:2", "--congest-bytes", "8192"]);
    let quiet = p99(&busy, 1, 2);
    for (s, d) in [(0, 1), (0, 2), (1, 0), (2, 0)] {
        assert!(
            p99(&busy, s, d) > 3.0 * quiet,
            "{s}->{d} should stand out: {busy}"
        );
    }
    assert!(
        p99(&busy, 2, 1) < 2.0 * quiet,
        "2->1 does not meet the bulk stream: {busy}"
    );
    // A probe from the bulk source waits in its send queue behind whole bulk WRITEs; one into it waits
    // only for its ACK to get a turn between the bulk frames.
    assert!(
        p99(&busy, 0, 1) > 3.0 * p99(&busy, 1, 0),
        "rows are sources: {busy}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every tool is a subcommand of one clap command line: `rocenic --help` lists them and the shell
/// completions know each one and its options.
#[test]
fn help_and_completions_cover_every_command() {
    let tools = [
        "demo",
        "rc-pingpong",
        "write-bw",
        "read-bw",
        "send-bw",
        "write-lat",
        "atomic-bw",
        "stress",
        "conformance",
        "dcqcn",
        "pingmesh",
        "devinfo",
        "stat",
    ];
    let (code, help) = run(&["--help"], true);
    assert_eq!(code, Some(0));
    let (_, bash) = run(&["completions", "bash"], true);
    for t in tools {
        assert!(
            help.contains(&format!("\n  {t} ")),
            "{t} not in --help:\n{help}"
        );
        assert!(
            bash.contains(&format!(
                "rocenic__subcmd__{}",
                t.replace('-', "__subcmd__")
            )),
            "{t} not completed"
        );
    }
    assert!(
        bash.contains("--congest") && bash.contains("--report_gbits"),
        "options completed"
    );
    refused(&["completions", "tcsh"], "invalid value 'tcsh'");
}
