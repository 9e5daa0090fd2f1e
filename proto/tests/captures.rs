//! Golden tests on public captures (`../shared/captures`, provided to every checkout and to CI): every
//! RoCEv2 frame's ICRC recomputes to the one on the wire, and every RoCEv2 frame parses and re-emits byte
//! for byte.
use rocenic_proto::{icrc, pcap, wire};
use std::path::PathBuf;

fn capture(name: &str) -> Vec<Vec<u8>> {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "..",
        "..",
        "shared",
        "captures",
        name,
    ]
    .iter()
    .collect();
    let frames = pcap::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (CI provides ../shared/captures)", path.display()));
    frames.into_iter().map(|(_, f)| f).collect()
}

/// Frames of a capture that parse as RoCEv2, and the number that do not.
fn roce(frames: &[Vec<u8>]) -> (Vec<(&Vec<u8>, wire::Frame)>, usize) {
    let mut ok = Vec::new();
    let mut other = 0;
    for f in frames {
        match wire::Frame::parse(f) {
            Ok(p) => ok.push((f, p)),
            Err(wire::Error::NotRoce) => other += 1,
            Err(e) => panic!("a RoCEv2 frame failed to parse: {e:?}"),
        }
    }
    (ok, other)
}

fn check(name: &str, expect_roce: usize) {
    let frames = capture(name);
    let (roce, _) = roce(&frames);
    assert_eq!(roce.len(), expect_roce, "{name}: RoCEv2 frames");
    for (i, (bytes, f)) in roce.iter().enumerate() {
        assert!(
            icrc::check(bytes).unwrap(),
            "{name}: frame {i} ({}) ICRC",
            f.opcode_name()
        );
        assert_eq!(
            &f.emit(),
            *bytes,
            "{name}: frame {i} ({}) re-emitted",
            f.opcode_name()
        );
    }
}

#[test]
fn public_send_imm_capture() {
    check("roce-public-send-imm.pcap", 105);
    let frames = capture("roce-public-send-imm.pcap");
    let (roce, _) = roce(&frames);
    let names: std::collections::BTreeSet<&str> =
        roce.iter().map(|(_, f)| f.opcode_name()).collect();
    for n in [
        "RC_SEND_FIRST",
        "RC_SEND_LAST_WITH_IMMEDIATE",
        "RC_SEND_ONLY_WITH_IMMEDIATE",
        "RC_ACKNOWLEDGE",
    ] {
        assert!(names.contains(n), "{n} missing: {names:?}");
    }
}

#[test]
fn rxe_pingpong_capture() {
    check("rxe-rc-pingpong.pcap", 200);
}

#[test]
fn a_flipped_bit_fails_the_icrc() {
    let frames = capture("rxe-rc-pingpong.pcap");
    let (roce, _) = roce(&frames);
    let mut bad = roce[0].0.clone();
    bad[60] ^= 4;
    assert!(!icrc::check(&bad).unwrap());
}
