//! PFC (802.1Qbb) and PAUSE (802.3x) on two co-simulated NICs: a pause frame for the RoCE priority stops
//! the sender's RoCE frames for its quanta (and XON resumes them), other priorities do not, a QP whose
//! DSCP maps to a lossy priority keeps sending while the lossless one is paused, the storm
//! watchdog gives up on an endless pause, and a receive buffer over its XOFF mark makes the receiver pause
//! the sender and release it with XON, without losing a byte; a priority the receiver classifies as
//! lossy is dropped when the buffer fills while the lossless one is not.
use crate::common::{big_write_on, big_write_with, second_qps, write_between, BigWrite};
use rocenic_driver::{PfcConfig, PfcGenerate, QueuePair, Trust, WcStatus, DEFAULT_DSCP_TO_PRIO};
use rocenic_proto::regs;
use rocenic_proto::wire::Frame;
use rocenic_sim::FabricConfig;
use rocenic_testkit::pair::{Pair, PairParams};

/// A PFC frame from `src` pausing priorities `mask` for `time` quanta each.
fn pfc(mask: u8, time: u16) -> Vec<u8> {
    let mut f = vec![
        0x01, 0x80, 0xC2, 0x00, 0x00, 0x01, 0x52, 0x54, 0, 0, 0, 9, 0x88, 0x08, 0x01, 0x01,
    ];
    f.extend_from_slice(&(mask as u16).to_be_bytes());
    for p in 0..8 {
        let t = if mask & (1 << p) != 0 { time } else { 0 };
        f.extend_from_slice(&t.to_be_bytes());
    }
    f.resize(60, 0);
    f
}

/// An 802.3x PAUSE frame for `time` quanta.
fn pause(time: u16) -> Vec<u8> {
    let mut f = vec![
        0x01, 0x80, 0xC2, 0x00, 0x00, 0x01, 0x52, 0x54, 0, 0, 0, 9, 0x88, 0x08, 0x00, 0x01,
    ];
    f.extend_from_slice(&time.to_be_bytes());
    f.resize(60, 0);
    f
}

struct Setup {
    p: Pair,
    w: BigWrite,
}

/// The QPs' GRH traffic class: DSCP 26, priority 3 (lossless after reset) under the default map.
const LOSSLESS_TC: u8 = 26 << 2;

/// Two NICs with A posting a 256 KiB WRITE to B at MTU 1024 (256 packets), at DSCP 26: priority 3, the
/// lossless one.
fn writing() -> Setup {
    let p = lossless_pair(0.0);
    let w = big_write_on(&p, 256 << 10);
    w.post(&p);
    Setup { p, w }
}

/// Two NICs at MTU 1024 whose QPs send at DSCP 26 (priority 3), the host links writing `write_bw` bytes
/// a cycle (0: unthrottled).
fn lossless_pair(write_bw: f64) -> Pair {
    Pair::connect_with(
        FabricConfig {
            host_mem_bytes: 4 << 20,
            dma_write_bytes_per_cycle: write_bw,
            ..FabricConfig::default()
        },
        &PairParams {
            traffic_class: LOSSLESS_TC,
            ..PairParams::new(1024, 200_000)
        },
    )
    .unwrap()
}

/// A second QP on each side of `p`, connected at DSCP 0 (priority 0, lossy under the default map), and a
/// `len`-byte WRITE (wr_id 2) from A's to B's, not yet posted.
fn dscp0_qps(p: &Pair, len: usize) -> ([QueuePair; 2], BigWrite) {
    second_qps(
        p,
        len,
        &PairParams {
            traffic_class: 0,
            udp_sport: [0xC100, 0xC101],
            ..PairParams::new(1024, 200_000)
        },
        2,
    )
}

/// The DSCPs of the RoCE frames in `frames`.
fn dscps(frames: &[Vec<u8>]) -> Vec<u8> {
    frames
        .iter()
        .map(|f| Frame::parse(f).expect("a RoCEv2 frame").ip.dscp())
        .collect()
}

/// What [`two_flows`] saw.
#[derive(Debug)]
struct TwoFlows {
    /// RoCE frames A sent at DSCP 26 and at the second flow's DSCP.
    sent_26: usize,
    sent_second: usize,
    xoff: u32,
    /// TX_PRIO0..7_PAUSE at B.
    tx_prio_pause: [u32; 8],
    lossy_drops: u32,
    overflow: u32,
    /// The PFC frames B sent: (class-enable vector, the eight times).
    pfc_frames: Vec<(u16, [u16; 8])>,
    cycles: u64,
}

/// Two flows at once into a congested receiver (B's host link writes 2 bytes a cycle against the
/// line's 8): A's pair QP sends 256 one-packet (1 KiB) WRITEs at DSCP 26 (priority 3), keeping 16
/// posted, and a second QP pair sixteen 16 KiB WRITEs at `second_tc` (a GRH traffic class); the turn
/// passes between them at work-request boundaries. Both NICs take `lossless` as their lossless
/// priorities (`PFC_ENABLE`). B sends XOFF for a priority once its frames take `xoff_words` words
/// and XON at `xon_words`, and drops frames of lossy priorities while 600 words are stored. Every WRITE
/// completes and lands intact.
fn two_flows(second_tc: u8, lossless: u8, xoff_words: u32, xon_words: u32) -> TwoFlows {
    let p = lossless_pair(2.0);
    let first = big_write_on(&p, 1024);
    let (q, second) = second_qps(
        &p,
        16 << 10,
        &PairParams {
            traffic_class: second_tc,
            udp_sport: [0xC100, 0xC101],
            ..PairParams::new(1024, 200_000)
        },
        2,
    );
    p.b.ctx
        .set_priorities(Trust::Dscp, &DEFAULT_DSCP_TO_PRIO, Some(600))
        .unwrap();
    let generate = PfcGenerate {
        xoff_words,
        xon_words,
        pause_quanta: 2000,
        refresh_cycles: 0x8000,
    };
    p.a.ctx
        .set_pfc(&PfcConfig {
            lossless,
            ..PfcConfig::default()
        })
        .unwrap();
    p.b.ctx
        .set_pfc(&PfcConfig {
            lossless,
            generate: Some(generate),
            watchdog: None,
        })
        .unwrap();
    let s = Setup { p, w: first };
    s.p.fabric.lock().unwrap().record_frames();
    // SAFETY: the buffers and MRs live in `s.w` and `second` until the end of the function.
    unsafe {
        for _ in 0..16 {
            s.p.a.qp.post_send(&s.w.wr).unwrap();
            q[0].post_send(&second.wr).unwrap();
        }
    }
    let mut done = [0usize; 3];
    let mut posted = 16;
    let mut wc = [rocenic_driver::WorkCompletion::default()];
    while done[1] + done[2] < 256 + 16 {
        assert!(
            s.p.fabric.lock().unwrap().cycles() < 20_000_000,
            "done {done:?}"
        );
        s.run(500);
        while s.p.a.send_cq.poll(&mut wc) == 1 {
            assert_eq!(wc[0].status, WcStatus::Success, "WRITE {}", wc[0].wr_id);
            done[wc[0].wr_id as usize] += 1;
            if wc[0].wr_id == 1 && posted < 256 {
                // SAFETY: as above.
                unsafe { s.p.a.qp.post_send(&s.w.wr).unwrap() };
                posted += 1;
            }
        }
    }
    assert_eq!(done, [0, 256, 16]);
    for w in [&s.w, &second] {
        let mut got = vec![0; w.data.len()];
        w.dst.read(0, &mut got).unwrap();
        assert!(got == w.data, "data differs");
    }
    let mut fabric = s.p.fabric.lock().unwrap();
    let sent = dscps(&fabric.take_sent(0));
    let pfc_frames = fabric
        .take_sent(1)
        .iter()
        .filter(|f| f[12..14] == [0x88, 0x08])
        .map(|f| {
            let cev = u16::from_be_bytes([f[16], f[17]]);
            (
                cev,
                std::array::from_fn(|i| u16::from_be_bytes([f[18 + 2 * i], f[19 + 2 * i]])),
            )
        })
        .collect();
    let r = TwoFlows {
        sent_26: sent.iter().filter(|&&d| d == 26).count(),
        sent_second: sent.iter().filter(|&&d| d == second_tc >> 2).count(),
        xoff: fabric.reg_read(1, regs::TX_PFC_XOFF),
        tx_prio_pause: std::array::from_fn(|i| {
            fabric.reg_read(1, regs::TX_PRIO0_PAUSE + 4 * i as u16)
        }),
        lossy_drops: fabric.reg_read(1, regs::RX_DROP_LOSSY),
        overflow: fabric.reg_read(1, regs::RX_DROP_OVERFLOW),
        pfc_frames,
        cycles: fabric.cycles(),
    };
    eprintln!(
        "DSCP 26 and {} with lossless {lossless:#04x}: A sent {} and {} frames; B sent {} XOFF, \
         dropped {} lossy frames, {} on overflow; by cycle {}",
        second_tc >> 2,
        r.sent_26,
        r.sent_second,
        r.xoff,
        r.lossy_drops,
        r.overflow,
        r.cycles
    );
    r
}

/// The case: a lossless priority (3) and a lossy one (0, DSCP 0) at once into a congested
/// receiver ([`two_flows`]). Not one lossless frame is lost (A sends each of its 256 DSCP-26 packets
/// once, `RX_DROP_OVERFLOW` 0) while lossy frames are dropped and sent again.
/// (The lossy QP sends nothing while priority 3 is paused here: the turn passes only once the lossless
/// QP's sent WRITEs are acknowledged, and B acknowledges them as it drains its buffer, which is also what
/// ends the pause. `a_paused_qp_gives_its_turn_to_another_priority` shows the turn passing.)
#[test]
fn lossless_and_lossy_priorities_at_once() {
    let r = two_flows(0, 1 << 3, 1000, 500);
    assert!(r.xoff >= 1, "B paused A: {r:?}");
    assert_eq!(r.overflow, 0, "the buffer never overflows: {r:?}");
    assert_eq!(r.sent_26, 256, "every lossless packet sent once: none lost");
    assert!(
        r.lossy_drops > 0 && r.sent_second > 256,
        "lossy frames dropped and sent again: {r:?}"
    );
}

/// Two lossless priorities, 3 (DSCP 26) and 5 (DSCP 40), into a congested receiver ([`two_flows`]).
/// B counts each priority's frames apart, so each is paused by its own fill: B's XOFF mark (600 words)
/// is per priority, and the two marks plus their headroom fit B's 2,048-word buffer. Every PFC frame B
/// sends names only 3 and 5, each with 2,000 quanta (in XOFF) or 0 (resuming); TX_PRIO3_PAUSE and
/// TX_PRIO5_PAUSE equal the frames on the wire that pause each, and some frames name one priority
/// alone (with one shared count every frame named both). Not one frame of either priority is
/// lost (each of the 2 × 256 packets sent once, no overflow, no lossy drop). With priority 5
/// lossless at B but not at A, A ignores B's pause of 5 and the buffer overflows (checked by hand).
#[test]
fn two_lossless_priorities_each_paused_by_their_own_fill() {
    let both = (1 << 3) | (1 << 5);
    let r = two_flows(40 << 2, both, 600, 300);
    assert!(r.xoff >= 1, "B paused A: {r:?}");
    assert!(
        r.pfc_frames.iter().all(|(cev, times)| *cev != 0
            && (*cev & !both as u16) == 0
            && (0..8).all(|i| times[i] == 0 || ((cev >> i) & 1 == 1 && times[i] == 2000))),
        "B's PFC frames name only 3 and 5, with 2,000 or 0: {:?}",
        r.pfc_frames
    );
    for p in [3, 5] {
        let pausing = r.pfc_frames.iter().filter(|(_, t)| t[p] == 2000).count() as u32;
        let resuming = r
            .pfc_frames
            .iter()
            .filter(|(c, t)| (c >> p) & 1 == 1 && t[p] == 0)
            .count();
        assert!(
            pausing >= 1 && resuming >= 1,
            "priority {p}: XOFF and XON: {r:?}"
        );
        assert_eq!(r.tx_prio_pause[p], pausing, "TX_PRIO{p}_PAUSE: {r:?}");
    }
    let alone = |p: usize| r.pfc_frames.iter().filter(|(c, _)| *c == 1 << p).count();
    eprintln!(
        "PFC frames: {} in all, {} naming 3 alone, {} naming 5 alone",
        r.pfc_frames.len(),
        alone(3),
        alone(5)
    );
    assert!(
        alone(3) >= 1 && alone(5) >= 1,
        "each priority paused on its own at times: {r:?}"
    );
    assert_eq!((r.overflow, r.lossy_drops), (0, 0), "nothing lost: {r:?}");
    assert_eq!(
        (r.sent_26, r.sent_second),
        (256, 256),
        "every packet sent once: {r:?}"
    );
}

/// A QP of a paused priority gives its turn to a QP of another: A's pair QP (DSCP 26, priority 3) has
/// sixteen one-packet WRITEs posted when PFC pauses priority 3 for good. The frame A had set up still
/// goes (it was committed when the pause came; held, it would hold the engine for the whole pause), no
/// new one is, the sent ones are acknowledged, and the turn passes: a 16 KiB WRITE posted then on a
/// second QP pair at DSCP 0 completes during the pause, with no DSCP-26 frame on the wire. After XON the rest of the sixteen complete.
#[test]
fn a_paused_qp_gives_its_turn_to_another_priority() {
    let p = lossless_pair(0.0);
    let small = big_write_on(&p, 1024);
    let (q, other) = dscp0_qps(&p, 16 << 10);
    let s = Setup { p, w: small };
    s.p.fabric.lock().unwrap().record_frames();
    // SAFETY: the buffers and MRs live in `s.w` and `other` until the end of the test.
    unsafe {
        for _ in 0..16 {
            s.p.a.qp.post_send(&s.w.wr).unwrap();
        }
    }
    s.run(1500);
    s.to_a(pfc(1 << 3, 0xFFFF)); // 524,280 cycles
    s.run(300);
    let before = dscps(&s.p.fabric.lock().unwrap().take_sent(0));
    assert!(
        before.len() >= 2 && before.iter().all(|&d| d == 26),
        "A was sending at DSCP 26: {before:?}"
    );
    // SAFETY: as above.
    unsafe { q[0].post_send(&other.wr).unwrap() };
    let mut early = 0;
    loop {
        let wc = s.p.wait_for(&s.p.a.send_cq, 50_000).unwrap_or_else(|| {
            panic!(
                "the DSCP-0 WRITE completes while priority 3 is paused ({early} of priority 3's \
                 done, TX_STATUS {:#010x})",
                s.reg(0, regs::TX_STATUS)
            )
        });
        assert_eq!(wc.status, WcStatus::Success);
        if wc.wr_id == 2 {
            break;
        }
        early += 1;
    }
    let during = dscps(&s.p.fabric.lock().unwrap().take_sent(0));
    eprintln!(
        "{} sent before the pause took hold, {early} of 16 done before the DSCP-0 WRITE; meanwhile A sent \
         {} frames, all DSCP 0",
        before.len(),
        during.len()
    );
    assert!(early < 16, "priority 3's WRITEs wait: {early} of 16 done");
    assert!(
        during.iter().all(|&d| d == 0),
        "only DSCP 0 while paused: {during:?}"
    );
    assert_eq!(during.len(), 16, "the 16 packets of the DSCP-0 WRITE");
    let mut got = vec![0; other.data.len()];
    other.dst.read(0, &mut got).unwrap();
    assert!(got == other.data, "data differs");
    s.to_a(pfc(1 << 3, 0));
    for _ in early..16 {
        let wc =
            s.p.wait_for(&s.p.a.send_cq, 200_000)
                .expect("completion after XON");
        assert_eq!((wc.wr_id, wc.status), (1, WcStatus::Success));
    }
}

/// Priorities are paused one by one. A's pair QP sends a 256 KiB WRITE at DSCP 26 (priority 3), a second
/// QP pair runs at DSCP 0 (priority 0). PFC pauses priority 3 at A mid-message: not one DSCP-26 frame
/// leaves A until XON, but B's 16 KiB WRITE into A over the DSCP-0 QPs completes, A acknowledging it at
/// DSCP 0: A's transmit engine builds no frame of the paused QP (which would wait at the arbiter, in
/// front of the ACKs) and answers the other QP meanwhile. After XON the 256 KiB WRITE completes, intact.
#[test]
fn pfc_holds_only_the_lossless_priority() {
    let s = writing();
    let (q, _) = dscp0_qps(&s.p, 64);
    // B's WRITE into A over the DSCP-0 QPs.
    let len = 16 << 10;
    let mut back = write_between(&s.p.b, &s.p.a, len);
    back.wr.wr_id = 3;
    s.p.fabric.lock().unwrap().record_frames();
    s.run(3000);
    s.to_a(pfc(1 << 3, 0xFFFF)); // 524,280 cycles
    s.run(300);
    let before = dscps(&s.p.fabric.lock().unwrap().take_sent(0));
    assert!(
        before.iter().filter(|&&d| d == 26).count() > 5,
        "A was sending at DSCP 26: {before:?}"
    );
    let t0 = s.p.fabric.lock().unwrap().cycles();
    // SAFETY: the buffers and MRs live until the end of the test.
    unsafe { q[1].post_send(&back.wr).unwrap() };
    let wc = s.p.wait_for(&s.p.b.send_cq, 50_000).unwrap_or_else(|| {
        panic!(
            "B's DSCP-0 WRITE completes while A's priority 3 is paused (A's TX_STATUS {:#010x})",
            s.reg(0, regs::TX_STATUS)
        )
    });
    assert_eq!((wc.wr_id, wc.status), (3, WcStatus::Success));
    let took = s.p.fabric.lock().unwrap().cycles() - t0;
    let during = dscps(&s.p.fabric.lock().unwrap().take_sent(0));
    eprintln!(
        "B's 16 KiB WRITE took {took} cycles; A sent {} frames meanwhile, DSCPs {during:?}",
        during.len()
    );
    assert!(
        !during.is_empty() && during.iter().all(|&d| d == 0),
        "only DSCP 0 (ACKs) while paused: {during:?}"
    );
    let mut got = vec![0; len];
    back.dst.read(0, &mut got).unwrap();
    assert!(got == back.data, "data differs");
    assert!(
        s.reg(0, regs::RX_PAUSE_DURATION) as u64 >= took,
        "still paused"
    );
    // XON: priority 3 resumes and the 256 KiB WRITE completes.
    s.to_a(pfc(1 << 3, 0));
    s.finish();
    assert_eq!(s.reg(0, regs::RX_PAUSE_FRAMES), 2);
}

impl Setup {
    fn a_frames(&self) -> u64 {
        self.p.fabric.lock().unwrap().link_stats().frames[0]
    }
    fn run(&self, cycles: u64) {
        self.p.fabric.lock().unwrap().run(cycles);
    }
    /// Frame `f` arrives at A as if B had sent it.
    fn to_a(&self, f: Vec<u8>) {
        self.p.fabric.lock().unwrap().inject_frame(1, f);
    }
    fn reg(&self, port: usize, off: u16) -> u32 {
        self.p.fabric.lock().unwrap().reg_read(port, off)
    }
    fn set(&self, port: usize, off: u16, v: u32) {
        self.p.fabric.lock().unwrap().reg_write(port, off, v);
    }
    fn finish(&self) {
        self.w.finish(&self.p, 5_000_000);
    }
}

#[test]
fn pfc_for_our_priority_pauses_for_its_quanta_and_xon_resumes() {
    let s = writing();
    s.run(3000);
    assert!(s.a_frames() > 5, "A is sending");
    // 1000 quanta at 8 cycles each (PFC_QUANTUM_Q4 = 128) = 8000 cycles.
    s.to_a(pfc(1 << 3, 1000));
    s.run(300);
    let at = s.a_frames();
    s.run(6000);
    assert!(s.a_frames() <= at + 1, "paused: {} -> {}", at, s.a_frames());
    s.run(4000);
    assert!(s.a_frames() > at + 5, "resumed after the quanta");
    // Paused again, then XON (time 0) releases at once.
    s.to_a(pfc(1 << 3, 0xFFFF));
    s.run(300);
    let at = s.a_frames();
    s.run(3000);
    assert!(s.a_frames() <= at + 1);
    s.to_a(pfc(1 << 3, 0));
    s.run(2000);
    assert!(s.a_frames() > at + 5, "XON resumes");
    assert_eq!(s.reg(0, regs::RX_PAUSE_FRAMES), 3);
    assert!(s.reg(0, regs::RX_PAUSE_DURATION) >= 8000);
    s.finish();
}

#[test]
fn other_priorities_do_not_pause_but_802_3x_pause_does() {
    let s = writing();
    s.run(3000);
    s.to_a(pfc(0b1111_0111, 0xFFFF)); // every priority but 3
    s.run(300);
    let at = s.a_frames();
    s.run(3000);
    assert!(s.a_frames() > at + 5, "priority 3 is not named");
    assert_eq!(s.reg(0, regs::RX_PAUSE_FRAMES), 0);
    s.to_a(pause(500)); // 4000 cycles
    s.run(300);
    let at = s.a_frames();
    s.run(3000);
    assert!(s.a_frames() <= at + 1, "802.3x PAUSE stops everything");
    s.run(3000);
    assert!(s.a_frames() > at + 5);
    s.finish();
}

#[test]
fn the_watchdog_stops_honouring_an_endless_pause() {
    let s = writing();
    s.set(0, regs::PFC_WATCHDOG_CYCLES, 5000);
    s.set(0, regs::PFC_WATCHDOG_RECOVERY, 50_000);
    s.run(2000);
    s.to_a(pfc(1 << 3, 0xFFFF)); // 524,280 cycles
    s.run(300);
    let at = s.a_frames();
    s.run(4000);
    assert!(s.a_frames() <= at + 1, "paused before the watchdog");
    s.run(3000);
    assert_eq!(s.reg(0, regs::PFC_WATCHDOG_EVENTS), 1);
    assert!(
        s.a_frames() > at + 5,
        "sending again after the watchdog fired"
    );
    // During recovery, a new pause is not honoured.
    s.to_a(pfc(1 << 3, 0xFFFF));
    s.run(300);
    let at = s.a_frames();
    s.run(3000);
    assert!(s.a_frames() > at + 5, "pause ignored while recovering");
    s.finish();
}

/// A pause storm with the watchdog off (the default): PFC holds priority 3 for 60,000 cycles, twelve
/// local ACK timeouts' worth at 5,000 cycles, against retry_cnt 7. A frame the engine handed the MAC
/// before the pause waits there unanswered, yet no timeout fires: the retransmission timer stands still
/// while the QP's priority is paused. After XON the WRITE completes.
#[test]
fn a_pause_storm_with_the_watchdog_off_uses_no_retries() {
    let p = Pair::connect_with(
        FabricConfig {
            host_mem_bytes: 4 << 20,
            ..FabricConfig::default()
        },
        &PairParams {
            traffic_class: LOSSLESS_TC,
            ..PairParams::new(1024, 5_000)
        },
    )
    .unwrap();
    let w = big_write_on(&p, 256 << 10);
    w.post(&p);
    let s = Setup { p, w };
    s.run(2000);
    for _ in 0..30 {
        s.to_a(pfc(1 << 3, 0xFFFF));
        s.run(2000);
    }
    assert!(s.reg(0, regs::RX_PAUSE_FRAMES) >= 30);
    assert_eq!(s.reg(0, regs::ACK_TIMEOUTS), 0, "timeouts during the storm");
    s.to_a(pfc(1 << 3, 0));
    s.finish();
}

#[test]
fn a_full_receive_buffer_sends_xoff_then_xon() {
    let s = writing();
    // B pauses A as soon as its receive buffer holds 100 words (800 bytes) and releases it when empty.
    s.set(1, regs::PFC_XOFF_WORDS, 100);
    s.set(1, regs::PFC_XON_WORDS, 0);
    s.set(1, regs::PFC_PAUSE_QUANTA, 2000);
    s.finish();
    let (xoff, xon) = (s.reg(1, regs::TX_PFC_XOFF), s.reg(1, regs::TX_PFC_XON));
    assert!(xoff >= 1 && xon >= 1, "B sent XOFF {xoff} and XON {xon}");
    assert_eq!(
        s.reg(0, regs::RX_PAUSE_FRAMES),
        xoff + xon,
        "A saw every one"
    );
    assert_eq!(s.reg(1, regs::RX_DROP_OVERFLOW), 0, "lossless");
}

/// What one congested run left behind (see [`congested`]).
#[derive(Debug)]
struct Congested {
    status: WcStatus,
    lossy_drops: u32,
    restarts: u32,
    xoff_sent: u32,
    #[allow(dead_code)] // printed, for the record in docs/ethernet.md
    cycles: u64,
}

/// A congested receiver: B's host link writes `write_bw` bytes a cycle, under the 8 of the 10 Gb/s line,
/// so its receive buffer (2,048 words) fills. A's QP sends a 256 KiB WRITE at DSCP 0, which both NICs'
/// maps make priority `dscp0_prio` (A's decides what B's PFC pauses, B's what B may drop). B sends XOFF
/// at 1,000 words and XON at 500, and takes frames of a lossy priority only while less than 600 words are
/// stored, so lossy traffic alone never reaches the XOFF mark.
fn congested(write_bw: f64, dscp0_prio: u8) -> Congested {
    let (p, w) = big_write_with(
        FabricConfig {
            host_mem_bytes: 4 << 20,
            dma_write_bytes_per_cycle: write_bw,
            ..FabricConfig::default()
        },
        200_000,
        256 << 10,
    );
    let s = Setup { p, w };
    let mut map = DEFAULT_DSCP_TO_PRIO;
    map[0] = dscp0_prio;
    s.p.b
        .ctx
        .set_priorities(Trust::Dscp, &map, Some(600))
        .unwrap();
    s.p.a.ctx.set_priorities(Trust::Dscp, &map, None).unwrap();
    s.set(1, regs::PFC_XOFF_WORDS, 1000);
    s.set(1, regs::PFC_XON_WORDS, 500);
    s.set(1, regs::PFC_PAUSE_QUANTA, 2000);
    s.w.post(&s.p);
    let wc =
        s.p.wait_for(&s.p.a.send_cq, 20_000_000)
            .expect("WRITE completion");
    if wc.status == WcStatus::Success {
        let mut got = vec![0; s.w.data.len()];
        s.w.dst.read(0, &mut got).unwrap();
        assert!(got == s.w.data, "data differs");
    }
    assert_eq!(
        s.reg(1, regs::RX_DROP_OVERFLOW),
        0,
        "the buffer never overflows"
    );
    let r = Congested {
        status: wc.status,
        lossy_drops: s.reg(1, regs::RX_DROP_LOSSY),
        restarts: s.reg(0, regs::RETRANSMITS),
        xoff_sent: s.reg(1, regs::TX_PFC_XOFF),
        cycles: s.p.fabric.lock().unwrap().cycles(),
    };
    eprintln!("host writes {write_bw} B/cycle, DSCP 0 as priority {dscp0_prio}: {r:?}");
    r
}

/// Priority 3 (lossless after reset) is lossless: B pauses A and drops nothing, even at a quarter of the line
/// rate. Priority 0 is lossy: B drops and A's go-back-N resends, at a quarter of the line rate hundreds of
/// frames and dozens of restarts for one 256 KiB WRITE (why RoCE wants the lossless class); each NAK
/// acknowledges the packets before its PSN, so the retry count starts over and the WRITE gets through
/// (docs/transport.md, "Retry budget"), intact, as it does at three quarters with fewer drops.
#[test]
fn a_lossy_priority_drops_beside_the_lossless_one() {
    let lossless = congested(2.0, 3);
    assert_eq!(lossless.status, WcStatus::Success);
    assert_eq!(
        (lossless.lossy_drops, lossless.restarts),
        (0, 0),
        "{lossless:?}"
    );
    assert!(lossless.xoff_sent >= 1, "B paused A: {lossless:?}");
    let lossy = congested(2.0, 0);
    assert_eq!(lossy.status, WcStatus::Success, "{lossy:?}");
    assert!(lossy.lossy_drops > 100 && lossy.restarts > 10, "{lossy:?}");
    assert_eq!(
        lossy.xoff_sent, 0,
        "lossy traffic stays under the XOFF mark: {lossy:?}"
    );
    let mild = congested(6.0, 0);
    assert_eq!(mild.status, WcStatus::Success);
    assert!(mild.lossy_drops > 0 && mild.restarts > 0, "{mild:?}");
    assert!(
        mild.lossy_drops < lossy.lossy_drops,
        "fewer drops at three quarters: {mild:?} {lossy:?}"
    );
    assert_eq!(mild.xoff_sent, 0, "{mild:?}");
}
