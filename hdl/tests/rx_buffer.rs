//! rust-hdl simulation of the receive buffer on real frames: Linux rxe's RoCEv2 packets from
//! `testbench/captures/rxe-rc-pingpong.pcap` are committed with their length; the same packets with one bit
//! flipped, and packets for another port, are dropped.
use rocenic_hdl::net::rx_admit::RELEASE;
use rocenic_hdl::net::rx_buffer::RxBuffer;
use rocenic_hdl::net::rx_checks::CAP_BYTES;
use rust_hdl::prelude::*;

/// RoCEv2 frames (UDP destination port 4791) of a classic pcap file, parsed by hand to keep this test
/// independent of the project's pcap code.
fn roce_frames(path: &str) -> Vec<Vec<u8>> {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(
        &data[0..4],
        &[0xD4, 0xC3, 0xB2, 0xA1],
        "little-endian microsecond pcap expected"
    );
    let mut frames = Vec::new();
    let mut at = 24;
    while at + 16 <= data.len() {
        let incl = u32::from_le_bytes(data[at + 8..at + 12].try_into().unwrap()) as usize;
        let f = data[at + 16..at + 16 + incl].to_vec();
        at += 16 + incl;
        if f.len() > 42 && f[12..14] == [0x08, 0x00] && f[23] == 17 && f[36..38] == [0x12, 0xB7] {
            frames.push(f);
        }
    }
    frames
}

fn capture() -> String {
    format!(
        "{}/../testbench/captures/rxe-rc-pingpong.pcap",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Whether the frame's ICRC is right, by the plain software recipe (IBA §7.8 + annex A17).
fn icrc_ok(f: &[u8]) -> bool {
    let ip_len = u16::from_be_bytes([f[16], f[17]]) as usize;
    let mut m = vec![0xFF; 8];
    m.extend_from_slice(&f[14..14 + ip_len - 4]);
    for p in [15, 22, 24, 25, 40, 41, 46] {
        m[8 + p - 14] = 0xFF;
    }
    crc32fast::hash(&m).to_le_bytes() == f[14 + ip_len - 4..14 + ip_len]
}

type Uut<const W: usize, const B: usize> = RxBuffer<W, B, 8>;

/// Takes the length of the frame at `head` from its descriptor (`meta`) and frees the frame; returns
/// the length in bytes.
fn pop_head<const W: usize, const B: usize>(
    sim: &mut Sim<Uut<W, B>>,
    mut x: Box<Uut<W, B>>,
) -> Result<(Box<Uut<W, B>>, u64), SimError> {
    let len = x.meta.val().get_bits::<16>(0).to_u64();
    x.pop.next = true;
    wait_clock_cycle!(sim, clock, x);
    x.pop.next = false;
    Ok((x, len))
}

/// Feeds `frames` one after another into the buffer (W bits wide), and after each frame reports whether
/// a new frame became pending and the length its descriptor gives.
fn run<const W: usize, const B: usize>(frames: Vec<Vec<u8>>) -> Vec<Option<u64>> {
    run_with::<W, B>(frames, true).0
}

/// Feeds `frames`; with `pop_each`, reads and frees the pending frame after each (its length, or `None`
/// when nothing is pending); otherwise stores them all, then drains the ring. Also returns the priority-0
/// fill (every frame here is priority 0) once the frames are in, and once the ring is drained.
fn run_with<const W: usize, const B: usize>(
    frames: Vec<Vec<u8>>,
    pop_each: bool,
) -> (Vec<Option<u64>>, u64, u64) {
    let dst_mac = u64::from_be_bytes([
        0,
        0,
        frames[0][0],
        frames[0][1],
        frames[0][2],
        frames[0][3],
        frames[0][4],
        frames[0][5],
    ]);
    let dst_ip = u32::from_be_bytes(frames[0][30..34].try_into().unwrap()) as u64;
    let results = std::sync::Arc::new(std::sync::Mutex::new((Vec::new(), 0, 0)));
    let out = results.clone();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<Uut<W, B>>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<Uut<W, B>>| {
        let mut x = sim.init()?;
        x.enable.next = true;
        x.mac_lo.next = (dst_mac & 0xFFFF_FFFF).into();
        x.mac_hi.next = (dst_mac >> 32).into();
        x.ipv4.next = dst_ip.into();
        x.udp_dport.next = 4791.into();
        x.reset.next = true;
        wait_clock_cycles!(sim, clock, x, 2);
        x.reset.next = false;
        for f in &frames {
            let beats: Vec<&[u8]> = f.chunks(B).collect();
            for (i, beat) in beats.iter().enumerate() {
                let mut word = Bits::<W>::default();
                for (lane, byte) in beat.iter().enumerate() {
                    word = word | (bit_cast::<W, 8>((*byte as u64).into()) << (lane * 8) as u64);
                }
                x.rx_tdata.next = word;
                x.rx_tkeep.next = if beat.len() == B {
                    Bits::<B>::mask()
                } else {
                    ((1u64 << beat.len()) - 1).into()
                };
                x.rx_tlast.next = i + 1 == beats.len();
                x.rx_tvalid.next = true;
                wait_clock_cycle!(sim, clock, x);
            }
            x.rx_tvalid.next = false;
            // Admission lets the last beat go at most RELEASE cycles after the capture's beats (or
            // the frame's last), the verdict comes nine cycles after it, the descriptor two later.
            wait_clock_cycles!(sim, clock, x, 12 + RELEASE + CAP_BYTES.div_ceil(B));
            if !pop_each {
                continue;
            }
            let mut got = None;
            if x.pending.val() {
                let (y, len) = pop_head(&mut sim, x)?;
                x = y;
                got = Some(len);
            }
            out.lock().unwrap().0.push(got);
        }
        out.lock().unwrap().1 = x.fill0.val().to_u64();
        // Drain: a dropped frame at the head is retired by the buffer (a cycle with nothing pending).
        let mut quiet = 0;
        while !pop_each && quiet < 4 {
            if x.pending.val() {
                let (y, len) = pop_head(&mut sim, x)?;
                x = y;
                out.lock().unwrap().0.push(Some(len));
                quiet = 0;
            } else {
                wait_clock_cycle!(sim, clock, x);
                quiet += 1;
            }
        }
        out.lock().unwrap().2 = x.fill0.val().to_u64();
        sim.done(x)
    });
    let mut uut = Uut::<W, B>::default();
    uut.connect_all();
    sim.run(Box::new(uut), 10_000_000).unwrap();
    let r = results.lock().unwrap().clone();
    r
}

fn check<const W: usize, const B: usize>(take: usize) {
    // Frames addressed to one port of the capture (the buffer takes only frames for its own MAC and IP).
    let all = roce_frames(&capture());
    let dst = all[0][0..6].to_vec();
    let frames: Vec<Vec<u8>> = all
        .into_iter()
        .filter(|f| f[0..6] == dst[..] && icrc_ok(f))
        .take(take)
        .collect();
    assert!(frames.len() == take, "capture has too few good RoCE frames");
    let mut input = Vec::new();
    let mut expect = Vec::new();
    for (i, f) in frames.iter().enumerate() {
        input.push(f.clone());
        expect.push(Some(f.len() as u64));
        // The same frame with one payload/header bit flipped must be dropped.
        let mut bad = f.clone();
        let bit = 8 * (14 + (i * 7) % (bad.len() - 14)) + i % 8;
        bad[bit / 8] ^= 1 << (bit % 8);
        input.push(bad);
        expect.push(None);
    }
    assert_eq!(run::<W, B>(input), expect);
}

#[test]
fn good_frames_commit_and_flipped_bits_drop_64() {
    check::<64, 8>(4);
}

#[test]
fn good_frames_commit_and_flipped_bits_drop_512() {
    check::<512, 64>(2);
}

#[test]
fn frames_for_another_port_are_not_taken() {
    let all = roce_frames(&capture());
    let other: Vec<Vec<u8>> = all
        .iter()
        .filter(|f| f[0..6] != all[0][0..6])
        .take(1)
        .cloned()
        .collect();
    let mut input = vec![all[0].clone()];
    input.extend(other);
    assert_eq!(run::<64, 8>(input), vec![Some(all[0].len() as u64), None]);
}

#[test]
fn a_bad_ip_checksum_is_dropped_though_the_icrc_holds() {
    let all = roce_frames(&capture());
    let good = all[0].clone();
    // The ICRC treats the IP checksum as ones, so this frame's ICRC stays right: only the IP check sees it.
    let mut bad = good.clone();
    bad[24] ^= 0x01;
    assert!(icrc_ok(&bad));
    assert_eq!(
        run::<64, 8>(vec![bad.clone(), good.clone()]),
        vec![None, Some(good.len() as u64)]
    );
    assert_eq!(run::<512, 64>(vec![bad]), vec![None]);
}

/// Dropped frames between stored ones: only the kept frames become visible and count in their
/// priority's fill (their data words), which the pops bring back to zero; the dropped ones' words are
/// freed by the buffer as they reach the head.
fn dropped_between_stored<const W: usize, const B: usize>() {
    let all = roce_frames(&capture());
    let dst = all[0][0..6].to_vec();
    let good: Vec<Vec<u8>> = all
        .into_iter()
        .filter(|f| f[0..6] == dst[..] && icrc_ok(f) && f.len() <= 400) // all in the 2 KiB ring at 64 bits
        .take(3)
        .collect();
    assert_eq!(good.len(), 3, "capture has too few small good RoCE frames");
    let mut input = Vec::new();
    for (i, f) in good.iter().enumerate() {
        input.push(f.clone());
        let mut bad = f.clone();
        bad[48 + i] ^= 0x10; // the BTH's destination QP and A bit: not ICRC-masked
        input.push(bad);
    }
    let (lens, fill_in, fill_out) = run_with::<W, B>(input, false);
    let expect: Vec<Option<u64>> = good.iter().map(|f| Some(f.len() as u64)).collect();
    assert_eq!(lens, expect);
    let words: u64 = good
        .iter()
        .map(|f| (f.len() as u64).div_ceil(B as u64))
        .sum();
    assert_eq!(fill_in, words);
    assert_eq!(fill_out, 0);
}

#[test]
fn dropped_frames_between_stored_ones_leave_them_and_their_fill_64() {
    dropped_between_stored::<64, 8>();
}

#[test]
fn dropped_frames_between_stored_ones_leave_them_and_their_fill_512() {
    dropped_between_stored::<512, 64>();
}
