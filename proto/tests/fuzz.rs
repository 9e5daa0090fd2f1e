//! A stable-toolchain fuzz harness for every wire parser and the pcap reader: seeded mutations (bit flips
//! in every header, truncation, extension, inserted and removed bytes, extreme field values) of the real
//! frames in the conformance cases (`testbench/conformance/cases/*/{input,expected}.pcap`: every opcode
//! the NIC sends or takes, IPv4, IPv6 and VLAN), each fed to every parser. A parser may refuse an input,
//! never panic; a frame that parses re-emits byte for byte (the `Repr`s keep every field).
//!
//! The test job runs `DEFAULT_EXECS` inputs; `ROCENIC_FUZZ_EXECS=10000000 cargo test --release -p
//! rocenic-proto --test fuzz` is the long run (docs/robustness.md records it), `ROCENIC_FUZZ_SEED` picks
//! another seed.
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rocenic_proto::mutate::{self, Icrc};
use rocenic_proto::wire::{self, ExtHeaders, Frame};
use rocenic_proto::{icrc, pcap};
use std::path::Path;

const DEFAULT_EXECS: u64 = 200_000;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The frames of every conformance case's captures.
fn corpus() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testbench/conformance/cases");
    let mut frames = Vec::new();
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    for case in cases {
        for name in ["input.pcap", "expected.pcap"] {
            if let Ok(f) = pcap::read(&case.join(name)) {
                frames.extend(f.into_iter().map(|(_, b)| b));
            }
        }
    }
    frames.sort();
    frames.dedup();
    assert!(frames.len() > 100, "corpus of {} frames", frames.len());
    frames
}

/// One to four mutations of `f` (`rocenic_proto::mutate`), the ICRC resealed one time in eight.
fn mutate(rng: &mut StdRng, f: &mut Vec<u8>) {
    let icrc = if rng.gen_range(0..8) == 0 {
        Icrc::Resealed
    } else {
        Icrc::Left
    };
    mutate::mutate(&mut || rng.gen(), f, icrc);
}

/// Every parser on `b`.
fn parse_all(rng: &mut StdRng, b: &[u8]) {
    if let Ok(f) = Frame::parse(b) {
        assert_eq!(f.emit(), b, "a parsed frame re-emits byte for byte");
        let _ = f.opcode_name();
    }
    let _ = wire::locate(b);
    if b.len() > 14 {
        let _ = wire::locate_ip(&b[14..]);
        let _ = icrc::compute_ip(&b[14..]);
    }
    let _ = icrc::check(b);
    let _ = icrc::check_ipv4_any_port(b);
    let _ = wire::arp_frame::sender(b);
    let _ = ExtHeaders::parse(rng.gen(), b);
}

#[test]
fn every_parser_takes_any_mutation_of_real_frames() {
    let frames = corpus();
    let execs = env_u64("ROCENIC_FUZZ_EXECS", DEFAULT_EXECS);
    let seed = env_u64("ROCENIC_FUZZ_SEED", 1);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut parsed = 0u64;
    for _ in 0..execs {
        let mut f = frames[rng.gen_range(0..frames.len())].clone();
        mutate(&mut rng, &mut f);
        parsed += Frame::parse(&f).is_ok() as u64;
        parse_all(&mut rng, &f);
    }
    // The mutations must leave some frames whole enough to parse (else the parsers' deep paths go
    // untested) and break most.
    assert!(
        parsed > execs / 20 && parsed < execs * 19 / 20,
        "{parsed} of {execs} mutated frames parsed"
    );
    println!("fuzz: {execs} frames (seed {seed}), {parsed} parsed");
}

/// A capture file of `frames`, as `pcap::Writer` writes them (little-endian, nanoseconds).
fn capture(frames: &[(u32, u32, Vec<u8>)]) -> Vec<u8> {
    let mut b = Vec::new();
    for w in [0xA1B2_3C4Du32, 0x0004_0002, 0, 0, 262_144, 1] {
        b.extend_from_slice(&w.to_le_bytes());
    }
    for (s, ns, f) in frames {
        for w in [*s, *ns, f.len() as u32, f.len() as u32] {
            b.extend_from_slice(&w.to_le_bytes());
        }
        b.extend_from_slice(f);
    }
    b
}

#[test]
fn the_pcap_reader_takes_any_mutation_of_a_capture() {
    let frames = corpus();
    let execs = env_u64("ROCENIC_FUZZ_EXECS", DEFAULT_EXECS) / 10;
    let mut rng = StdRng::seed_from_u64(env_u64("ROCENIC_FUZZ_SEED", 1));
    let (mut ok, mut refused) = (0u64, 0u64);
    for _ in 0..execs {
        let recs: Vec<(u32, u32, Vec<u8>)> = (0..rng.gen_range(0..4))
            .map(|_| {
                (
                    rng.gen(),
                    rng.gen(),
                    frames[rng.gen_range(0..frames.len())].clone(),
                )
            })
            .collect();
        let mut b = capture(&recs);
        if rng.gen_bool(0.9) {
            mutate(&mut rng, &mut b);
        }
        match pcap::parse(&b) {
            Ok(got) => {
                ok += 1;
                for (_, f) in &got {
                    parse_all(&mut rng, f);
                }
            }
            Err(e) => {
                refused += 1;
                assert!(!e.to_string().is_empty());
            }
        }
    }
    assert!(ok > 0 && refused > 0, "{ok} read, {refused} refused");
}

#[test]
fn the_pcap_reader_names_what_is_wrong() {
    let f = vec![0x11u8; 60];
    let good = capture(&[(1, 5, f.clone()), (0, 7, f.clone())]);
    // Timestamps that go backwards are read as they are (the listing, not the reader, orders them).
    let got = pcap::parse(&good).unwrap();
    assert_eq!(got.len(), 2);
    assert!(got[1].0 < got[0].0);
    let cut = &good[..good.len() - 10];
    assert_eq!(
        pcap::parse(cut).unwrap_err().to_string(),
        "record at offset 100: captured length 60 but 50 bytes left"
    );
    assert_eq!(
        pcap::parse(&good[..30]).unwrap_err().to_string(),
        "record at offset 24: 6 bytes left for its 16-byte header"
    );
    assert_eq!(
        pcap::parse(&good[..10]).unwrap_err().to_string(),
        "10 bytes: too short for a pcap file header (24 bytes)"
    );
    let mut raw = good.clone();
    raw[20] = 101; // LINKTYPE_RAW
    assert_eq!(
        pcap::parse(&raw).unwrap_err().to_string(),
        "link type 101 is not Ethernet (1)"
    );
    let mut ng = good.clone();
    ng[..4].copy_from_slice(&0x0A0D_0D0Au32.to_le_bytes());
    assert!(pcap::parse(&ng).unwrap_err().to_string().contains("pcapng"));
    let missing = pcap::read(Path::new("/nonexistent/x.pcap")).unwrap_err();
    assert!(
        missing.to_string().contains("No such file or directory"),
        "{missing}"
    );
    let dir = pcap::read(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap_err();
    assert!(dir.to_string().contains("directory"), "{dir}");
}

#[test]
fn pcap_dump_lists_bad_captures_without_panicking() {
    let dir = std::env::temp_dir().join(format!("rocenic-pcap-dump-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = |name: &str, bytes: Option<&[u8]>| {
        let p = dir.join(name);
        if let Some(b) = bytes {
            std::fs::write(&p, b).unwrap();
        }
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_pcap-dump"))
            .arg(&p)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // Two 0-byte records whose timestamps go backwards: 56 bytes.
    let back = capture(&[(5, 0, vec![]), (1, 0, vec![])]);
    assert_eq!(back.len(), 56);
    let (code, out, err) = run("back.pcap", Some(&back));
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.lines().nth(1).unwrap().contains("-4000000.000 us"),
        "{out}"
    );
    let (code, _, err) = run("cut.pcap", Some(&back[..50]));
    assert_eq!(code, Some(1));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("record at offset 40: 10 bytes left"), "{err}");
    let (code, _, err) = run("missing.pcap", None);
    assert_eq!(code, Some(1));
    assert!(err.contains("No such file or directory"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
