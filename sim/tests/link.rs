//! The link on its own (no Verilator): padding, latency, pcap capture, fault plan, counters, determinism.
use pcap_file::pcap::PcapReader;
use pcap_file::TsResolution;
use rocenic_sim::link::{Link, PcapTap, MIN_FRAME};
use rocenic_sim::{FaultPlan, LinkStats};
use std::path::PathBuf;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rocenic-sim-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// All frames of a pcap file, with their timestamps in ns.
fn read_pcap(path: &PathBuf) -> Vec<(u128, Vec<u8>)> {
    let mut r = PcapReader::new(std::fs::File::open(path).unwrap()).unwrap();
    assert_eq!(r.header().ts_resolution, TsResolution::NanoSecond);
    let mut v = Vec::new();
    while let Some(p) = r.next_packet() {
        let p = p.unwrap();
        assert_eq!(p.orig_len as usize, p.data.len());
        v.push((p.timestamp.as_nanos(), p.data.into_owned()));
    }
    v
}

fn frame(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31) ^ seed)
        .collect()
}

/// Drain everything due by `cycle` (none of it marked bad: only `fcs_errors` marks frames).
fn poll_all(link: &mut Link, cycle: u64) -> Vec<(usize, Vec<u8>)> {
    std::iter::from_fn(|| link.poll(cycle))
        .map(|(to, f, bad)| {
            assert!(!bad, "a frame marked bad without an FCS fault");
            (to, f)
        })
        .collect()
}

#[test]
fn pads_delays_and_captures() {
    let path = tmp("pads.pcap");
    // 156.25 MHz: 6.4 ns per cycle.
    let mut link = Link::new(
        10,
        156.25,
        FaultPlan::none(),
        1,
        Some(PcapTap::create(&path).unwrap()),
    );
    link.send(0, frame(42, 1), 5);
    link.send(1, frame(100, 2), 6);
    assert!(
        poll_all(&mut link, 14).is_empty(),
        "nothing before the latency"
    );
    let got = poll_all(&mut link, 15);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, 1, "port 0's frame arrives at port 1");
    let mut padded = frame(42, 1);
    padded.resize(MIN_FRAME, 0);
    assert_eq!(got[0].1, padded);
    assert_eq!(poll_all(&mut link, 16), vec![(0, frame(100, 2))]);
    assert!(!link.busy());
    assert_eq!(
        link.stats(),
        LinkStats {
            frames: [1, 1],
            bytes: [60, 100],
            corrupted: 0,
            fcs_errors: 0,
            dropped: 0,
            duplicated: 0,
            reordered: 0
        }
    );
    link.flush_pcap().unwrap();
    let cap = read_pcap(&path);
    assert_eq!(cap, vec![(32, padded), (38, frame(100, 2))]);
}

#[test]
fn flips_exactly_the_requested_bit() {
    let path = tmp("flip.pcap");
    let plan = FaultPlan::none()
        .flip_bit(0, 1, 8 * 20 + 3)
        .drop_frame(1, 0);
    let mut link = Link::new(
        1,
        322.265625,
        plan,
        7,
        Some(PcapTap::create(&path).unwrap()),
    );
    for n in 0..3u8 {
        link.send(0, frame(80, n), n as u64);
    }
    link.send(1, frame(80, 9), 3);
    let got = poll_all(&mut link, 100);
    // Port 1's only frame was dropped: three frames, all to port 1.
    assert_eq!(got.len(), 3);
    assert!(got.iter().all(|(to, _)| *to == 1));
    for (n, (_, f)) in got.iter().enumerate() {
        let orig = frame(80, n as u8);
        let diff: Vec<(usize, u8)> = f
            .iter()
            .zip(&orig)
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .map(|(i, (a, b))| (i, a ^ b))
            .collect();
        if n == 1 {
            assert_eq!(diff, vec![(20, 1 << 3)], "bit 163 = byte 20, bit 3");
        } else {
            assert!(diff.is_empty());
        }
    }
    let s = link.stats();
    assert_eq!((s.corrupted, s.dropped, s.frames), (1, 1, [3, 1]));
    link.flush_pcap().unwrap();
    // The pcap holds the frames as they were on the wire: the corrupted one corrupted, the dropped one too.
    let cap = read_pcap(&path);
    assert_eq!(cap.len(), 4);
    assert_eq!(cap[1].1, got[1].1);
    assert_eq!(cap[3].1, frame(80, 9));
}

fn random_run(seed: u64, name: &str) -> (Vec<u8>, LinkStats) {
    let path = tmp(name);
    let plan = FaultPlan::none().random(0.3, 0.2);
    let mut link = Link::new(3, 156.25, plan, seed, Some(PcapTap::create(&path).unwrap()));
    for n in 0..200u64 {
        link.send(
            (n % 2) as usize,
            frame(60 + (n as usize * 7) % 200, n as u8),
            n * 4,
        );
        poll_all(&mut link, n * 4);
    }
    link.flush_pcap().unwrap();
    (std::fs::read(&path).unwrap(), link.stats())
}

#[test]
fn random_faults_are_deterministic_per_seed() {
    let (a, sa) = random_run(42, "det-a.pcap");
    let (b, sb) = random_run(42, "det-b.pcap");
    let (c, _) = random_run(43, "det-c.pcap");
    assert_eq!(a, b, "same seed, same pcap bytes");
    assert_eq!(sa, sb);
    assert_ne!(a, c, "another seed corrupts other bits");
    // 200 frames at p = 0.3 / 0.2: far from 0 and from 200.
    assert!((30..90).contains(&sa.corrupted), "{sa:?}");
    assert!((15..70).contains(&sa.dropped), "{sa:?}");
}

#[test]
#[should_panic(expected = "only 60 bytes")]
fn flipping_past_the_frame_is_loud() {
    let mut link = Link::new(1, 156.25, FaultPlan::none().flip_bit(0, 0, 480), 1, None);
    link.send(0, vec![0; 10], 0);
}

/// Duplication and reordering: a duplicated frame arrives twice, a held-back frame is overtaken by the
/// frames sent after it, and frames due on the same cycle keep their sending order.
#[test]
fn duplicates_and_reorders_by_due_time() {
    use rocenic_sim::link::Link;
    use rocenic_sim::FaultPlan;
    // Every frame duplicated; every frame held back 50 cycles with probability 1/2.
    let plan = FaultPlan::none().shuffle(1.0, 0.5, 50);
    let mut link = Link::new(10, 156.25, plan, 3, None);
    for i in 0..20u8 {
        link.send(0, vec![i; 60], i as u64);
    }
    let mut got = Vec::new();
    for c in 0..200 {
        while let Some((to, f, _)) = link.poll(c) {
            assert_eq!(to, 1);
            got.push(f[0]);
        }
    }
    assert_eq!(got.len(), 40, "each frame twice");
    for i in 0..20u8 {
        let pos: Vec<usize> = got
            .iter()
            .enumerate()
            .filter(|(_, &x)| x == i)
            .map(|(p, _)| p)
            .collect();
        assert_eq!(pos.len(), 2);
        assert_eq!(
            pos[1],
            pos[0] + 1,
            "a frame and its duplicate are due together"
        );
    }
    let s = link.stats();
    assert_eq!(s.duplicated, 20);
    assert!(s.reordered > 3 && s.reordered < 17, "{}", s.reordered);
    assert_ne!(
        got.iter().step_by(2).copied().collect::<Vec<_>>(),
        (0..20).collect::<Vec<u8>>(),
        "some overtaking"
    );
}

#[test]
fn fcs_errors_flip_a_bit_and_mark_the_frame() {
    // Every frame hit: each arrives marked bad with exactly one bit different; the plan's other draws
    // come first, so a plan without FCS faults draws as before.
    let plan = FaultPlan::none().fcs_errors(1.0);
    let mut link = Link::new(5, 156.25, plan, 9, None);
    for i in 0..50u8 {
        link.send(0, frame(64 + i as usize, i), i as u64);
    }
    let mut n = 0;
    for c in 0..100 {
        while let Some((to, f, bad)) = link.poll(c) {
            let i = (f.len() - 64) as u8;
            let diff: u32 = f
                .iter()
                .zip(frame(f.len(), i))
                .map(|(a, b)| (a ^ b).count_ones())
                .sum();
            assert!(
                bad && to == 1 && diff == 1,
                "frame {i}: marked {bad}, {diff} bits differ"
            );
            n += 1;
        }
    }
    assert_eq!(n, 50);
    assert_eq!(link.stats().fcs_errors, 50);
    assert_eq!(link.stats().corrupted, 0);
}
