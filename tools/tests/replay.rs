//! Conformance cases as files (`rocenic_testkit::replay`): a committed case replays, and the replay
//! notices every kind of deviation a broken NIC would show.
use rocenic_proto::wire::{Frame, IpRepr};
use rocenic_testkit::replay::{self, frame_diff, read_frames, write_frames};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testbench/conformance/cases")
        .join(name)
}

/// A scratch copy of a committed case.
fn copy(name: &str, tag: &str) -> PathBuf {
    let dst = std::env::temp_dir().join(format!("rocenic-replay-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dst);
    std::fs::create_dir_all(&dst).unwrap();
    for f in [
        "scenario.toml",
        "input.pcap",
        "expected.pcap",
        "reference.pcap",
    ] {
        if case(name).join(f).exists() {
            std::fs::copy(case(name).join(f), dst.join(f)).unwrap();
        }
    }
    dst
}

fn replay(dir: &Path) -> Result<replay::Outcome, String> {
    replay::run(dir, &dir.join("out.pcap"), false)
}

fn edit_pcap(p: &Path, i: usize, f: impl FnOnce(&mut Frame)) {
    let mut frames: Vec<(Duration, Vec<u8>)> = read_frames(p)
        .unwrap()
        .into_iter()
        .map(|b| (Duration::ZERO, b))
        .collect();
    let mut fr = Frame::parse(&frames[i].1).unwrap();
    f(&mut fr);
    fr.seal().unwrap();
    let mut b = fr.emit();
    b.resize(b.len().max(60), 0);
    frames[i].1 = b;
    write_frames(p, &frames).unwrap();
}

#[test]
fn a_committed_case_replays() {
    let o = replay(&copy("rc_write_only_ack", "ok")).unwrap();
    assert_eq!(o.frames, 1, "one ACK");
}

#[test]
fn a_different_psn_in_the_expected_frame_fails() {
    let d = copy("rc_write_only_ack", "psn");
    edit_pcap(&d.join("expected.pcap"), 0, |f| f.bth.psn ^= 1);
    let e = replay(&d).err().expect("must fail");
    assert!(e.contains("frame 0: BTH"), "{e}");
}

#[test]
fn a_different_msn_in_the_expected_ack_fails() {
    let d = copy("rc_write_only_ack", "msn");
    edit_pcap(&d.join("expected.pcap"), 0, |f| {
        f.ext.aeth.as_mut().unwrap().msn += 1
    });
    let e = replay(&d).err().expect("must fail");
    assert!(e.contains("extension headers"), "{e}");
}

#[test]
fn different_input_data_changes_memory_and_fails() {
    let d = copy("rc_write_only_ack", "data");
    edit_pcap(&d.join("input.pcap"), 0, |f| f.payload[7] ^= 0xFF);
    let e = replay(&d).err().expect("must fail");
    assert!(e.contains("host memory differs"), "{e}");
}

#[test]
fn a_missing_expected_frame_fails() {
    let d = copy("rc_write_only_ack", "missing");
    write_frames(&d.join("expected.pcap"), &[]).unwrap();
    let e = replay(&d).err().expect("must fail");
    assert!(e.contains("emitted 1 frames, expected 0"), "{e}");
}

#[test]
fn a_different_completion_fails() {
    let d = copy("rc_send_only_to_receive", "wc");
    let p = d.join("scenario.toml");
    let s = std::fs::read_to_string(&p).unwrap();
    assert!(s.contains("status: Success"));
    std::fs::write(&p, s.replacen("byte_len: ", "byte_len: 1", 1)).unwrap();
    let e = replay(&d).err().expect("must fail");
    assert!(e.contains("completion"), "{e}");
}

#[test]
fn a_scenario_whose_mr_the_driver_does_not_give_fails() {
    let d = copy("rc_write_only_ack", "mr");
    let p = d.join("scenario.toml");
    let mut sc = replay::load(&d).unwrap();
    sc.mr[0].rkey ^= 0x100;
    replay::save(&d, &sc, "").unwrap();
    assert!(p.exists());
    let e = replay(&d).err().expect("must fail");
    assert!(e.contains("MRs differ"), "{e}");
}

#[test]
fn the_fields_the_spec_leaves_free_are_not_compared_and_the_rest_are() {
    let f = read_frames(&case("rc_write_only_ack").join("expected.pcap")).unwrap();
    let base = Frame::parse(&f[0]).unwrap();
    let with = |g: &dyn Fn(&mut Frame)| {
        let mut x = base.clone();
        g(&mut x);
        x.seal().unwrap();
        let mut b = x.emit();
        b.resize(b.len().max(60), 0);
        b
    };
    let free = with(&|x| {
        x.udp.src_port ^= 0x1234;
        if let IpRepr::V4(ip) = &mut x.ip {
            ip.ident ^= 0x55;
            ip.tos ^= 0x03;
        }
    });
    assert_eq!(frame_diff(&free, &f[0]), None);
    let ttl = with(&|x| {
        if let IpRepr::V4(ip) = &mut x.ip {
            ip.ttl -= 1;
        }
    });
    assert!(frame_diff(&ttl, &f[0]).unwrap().contains("IP"));
    let dscp = with(&|x| {
        if let IpRepr::V4(ip) = &mut x.ip {
            ip.tos ^= 0x04;
        }
    });
    assert!(frame_diff(&dscp, &f[0]).is_some(), "DSCP is compared");
    let qp = with(&|x| x.bth.dest_qp ^= 1);
    assert!(frame_diff(&qp, &f[0]).unwrap().contains("BTH"));
}

#[test]
fn a_capture_case_replays_and_a_changed_reference_fails() {
    let d = copy("capture_rxe_ib_write_bw_as_rxe", "ref");
    let o = replay(&d).unwrap();
    assert_eq!(o.frames, 100, "one ACK per WRITE, as rxe sent");
    // rxe's 7th ACK with another MSN: the NIC no longer matches the reference.
    edit_pcap(&d.join("reference.pcap"), 6, |f| {
        f.ext.aeth.as_mut().unwrap().msn += 1
    });
    let e = replay(&d).err().expect("must fail");
    assert!(e.contains("differs from the reference"), "{e}");
}
