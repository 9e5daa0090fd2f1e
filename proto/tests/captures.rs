//! Golden tests on the captures in `testbench/captures` (README.md there says where each comes from): every
//! RoCEv2 frame's ICRC recomputes to the one on the wire, every one parses and re-emits byte for byte, and
//! sealing a parsed frame (recomputing lengths, IPv4 checksum and ICRC) changes nothing.
use rocenic_proto::wire::{self, Frame, IpRepr, Ipv4Packet};
use rocenic_proto::{icrc, opcode, pcap};
use std::collections::BTreeMap;
use std::path::PathBuf;

const CAPTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../testbench/captures");

/// Frames (numbered from 1, as Wireshark does) whose ICRC is expected to be wrong; captures not listed
/// have none. `shared/README.md` describes rxe-rc-pingpong.pcap as holding one deliberately corrupted frame
/// and its retransmission, but the stored file has neither: all 200 ICRCs match and every PSN appears once
/// (see `rxe_capture_content`). Should a capture with a corrupted frame replace it, list the frame here.
const EXPECTED_BAD_ICRC: &[(&str, &[usize])] = &[("rxe-rc-pingpong.pcap", &[])];

struct Capture {
    name: String,
    /// (frame number, bytes) of the frames sent to UDP port 4791.
    roce: Vec<(usize, Vec<u8>)>,
    other: Vec<(usize, Vec<u8>)>,
}

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

/// The UDP destination port of a frame, found from raw offsets, independently of the parser under test.
fn udp_dst_port(f: &[u8]) -> Option<u16> {
    let mut at = 12;
    let mut ethertype = be16(f, at)?;
    if ethertype == 0x8100 {
        at += 4;
        ethertype = be16(f, at)?;
    }
    let ip = at + 2;
    let (protocol, udp) = match ethertype {
        0x0800 => (*f.get(ip + 9)?, ip + (*f.get(ip)? & 0x0F) as usize * 4),
        0x86DD => (*f.get(ip + 6)?, ip + 40),
        _ => return None,
    };
    if protocol != 17 {
        return None;
    }
    be16(f, udp + 2)
}

fn captures() -> Vec<Capture> {
    let dir = std::fs::read_dir(CAPTURES).unwrap_or_else(|e| panic!("{CAPTURES}: {e}"));
    let mut paths: Vec<PathBuf> = dir
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "pcap"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "{CAPTURES}: no .pcap files");
    paths
        .iter()
        .map(|p| {
            let frames = pcap::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let (roce, other) = frames
                .into_iter()
                .enumerate()
                .map(|(i, (_, f))| (i + 1, f))
                .partition(|(_, f)| udp_dst_port(f) == Some(wire::ROCEV2_UDP_PORT));
            Capture {
                name: p.file_name().unwrap().to_string_lossy().into_owned(),
                roce,
                other,
            }
        })
        .collect()
}

fn capture(name: &str) -> Capture {
    captures()
        .into_iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("{CAPTURES}/{name} is missing"))
}

#[test]
fn every_roce_frame_has_the_right_icrc() {
    for c in captures() {
        assert!(!c.roce.is_empty(), "{}: no RoCEv2 frames", c.name);
        let bad: Vec<usize> = c
            .roce
            .iter()
            .filter(|(_, f)| !icrc::check(f).unwrap_or(false))
            .map(|(n, _)| *n)
            .collect();
        let expected = EXPECTED_BAD_ICRC
            .iter()
            .find(|(name, _)| *name == c.name)
            .map_or(&[][..], |(_, b)| b);
        assert_eq!(bad, expected, "{}: frames with a wrong ICRC", c.name);
        eprintln!(
            "{}: {} RoCEv2 frames, {} with a wrong ICRC",
            c.name,
            c.roce.len(),
            bad.len()
        );
    }
}

#[test]
fn every_roce_frame_reemits_byte_identical() {
    for c in captures() {
        for (n, bytes) in &c.roce {
            let f = wire::parse_frame(bytes)
                .unwrap_or_else(|e| panic!("{} frame {n}: does not parse: {e}", c.name));
            assert_eq!(&f.emit(), bytes, "{} frame {n} re-emitted", c.name);
        }
        for (n, bytes) in &c.other {
            assert_eq!(
                wire::parse_frame(bytes),
                Err(wire::Error::NotRoce),
                "{} frame {n}",
                c.name
            );
        }
    }
}

#[test]
fn sealing_a_parsed_frame_changes_nothing() {
    for c in captures() {
        for (n, bytes) in &c.roce {
            let l = wire::locate(bytes).unwrap();
            if !l.ipv6 {
                let ip = Ipv4Packet::new_checked(&bytes[l.ip..]).unwrap();
                assert!(ip.verify_checksum(), "{} frame {n}: IPv4 checksum", c.name);
            }
            let mut f = Frame::parse(bytes).unwrap();
            if !EXPECTED_BAD_ICRC
                .iter()
                .any(|(name, b)| *name == c.name && b.contains(n))
            {
                f.seal().unwrap();
                assert_eq!(&f.emit(), bytes, "{} frame {n} sealed", c.name);
            }
        }
    }
}

#[test]
fn flipped_bits_are_caught_except_in_masked_fields() {
    for c in captures() {
        for (n, bytes) in &c.roce {
            let l = wire::locate(bytes).unwrap();
            let mut psn = bytes.clone();
            psn[l.bth + wire::bth::field::PSN + 2] ^= 1;
            assert!(!icrc::check(&psn).unwrap(), "{} frame {n}", c.name);
            let mut last = bytes.clone();
            last[l.icrc() - 1] ^= 0x80; // the last covered byte
            assert!(!icrc::check(&last).unwrap(), "{} frame {n}", c.name);
            let mut ttl = bytes.clone();
            ttl[l.ip + wire::ipv4::field::TTL] ^= 0xFF;
            ttl[l.bth + wire::bth::field::RESV8A] ^= 0x40; // BECN
            assert!(icrc::check(&ttl).unwrap(), "{} frame {n}", c.name);
        }
    }
}

fn opcode_counts(c: &Capture) -> BTreeMap<&'static str, usize> {
    let mut m = BTreeMap::new();
    for (_, b) in &c.roce {
        *m.entry(Frame::parse(b).unwrap().opcode_name()).or_default() += 1;
    }
    m
}

#[test]
fn public_capture_content() {
    let c = capture("roce-public-send-imm.pcap");
    assert_eq!(c.roce.len(), 105);
    let counts = opcode_counts(&c);
    assert_eq!(
        counts.into_iter().collect::<Vec<_>>(),
        [
            ("RC_ACKNOWLEDGE", 37),
            ("RC_SEND_FIRST", 33),
            ("RC_SEND_LAST_WITH_IMMEDIATE", 33),
            ("RC_SEND_ONLY_WITH_IMMEDIATE", 2),
        ]
    );
    // ECT(0) on every RoCE frame; two frames carry PadCnt 3.
    let frames: Vec<Frame> = c
        .roce
        .iter()
        .map(|(_, b)| Frame::parse(b).unwrap())
        .collect();
    assert!(frames
        .iter()
        .all(|f| matches!(f.ip, IpRepr::V4(ip) if ip.tos & 3 == 2)));
    assert_eq!(frames.iter().filter(|f| f.bth.pad_count == 3).count(), 2);
}

#[test]
fn rxe_capture_content() {
    let c = capture("rxe-rc-pingpong.pcap");
    assert_eq!(c.roce.len(), 200);
    assert_eq!(
        opcode_counts(&c).into_iter().collect::<Vec<_>>(),
        [("RC_ACKNOWLEDGE", 100), ("RC_SEND_ONLY", 100)]
    );
    // Per destination QP, SEND PSNs advance by one with no repeat (so no retransmission), and each is
    // ACKed with "no credit information" (syndrome 0x1F).
    let mut next_psn: BTreeMap<u32, u32> = BTreeMap::new();
    for (n, b) in &c.roce {
        let f = Frame::parse(b).unwrap();
        match f.bth.opcode {
            opcode::RC_SEND_ONLY => {
                let want = next_psn.entry(f.bth.dest_qp).or_insert(f.bth.psn);
                assert_eq!(f.bth.psn, *want, "frame {n}");
                *want = (*want + 1) & 0xFF_FFFF;
                assert!(f.bth.ack_req);
            }
            _ => assert_eq!(f.ext.aeth.unwrap().syndrome, 0x1F, "frame {n}"),
        }
    }
    assert_eq!(next_psn.len(), 2, "one QP each way");
}
