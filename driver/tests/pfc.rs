//! PFC (802.1Qbb) and PAUSE (802.3x) on two co-simulated NICs: a pause frame for the RoCE priority stops
//! the sender's RoCE frames for its quanta (and XON resumes them), other priorities do not, the storm
//! watchdog gives up on an endless pause, and a receive buffer over its XOFF mark makes the receiver pause
//! the sender and release it with XON, without losing a byte; a priority the receiver classifies as
//! lossy is dropped when the buffer fills while the lossless one is not.
mod common;
use common::{big_write, BigWrite};
use rocenic_driver::pair::Pair;
use rocenic_driver::{Trust, DEFAULT_DSCP_TO_PRIO};
use rocenic_proto::regs;

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

/// Two NICs with A posting a 256 KiB WRITE to B at MTU 1024 (256 packets).
fn writing() -> Setup {
    let (p, w) = big_write(4 << 20, 200_000, 256 << 10);
    w.post(&p);
    Setup { p, w }
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

/// A's QP sends DSCP 0. B keeps its receive buffer for the lossless priority 3 once one frame waits in
/// it (lossy limit 1 word) and sends XOFF at 100 words. With the default map DSCP 0 is priority 0, lossy:
/// B drops frames of it and A's go-back-N resends them; mapped to priority 3 it is lossless: nothing is
/// dropped. The WRITE completes intact either way and nothing overflows.
#[test]
fn a_lossy_priority_drops_beside_the_lossless_one() {
    let mut dropped = vec![];
    for dscp0_prio in [0u8, 3] {
        let s = writing();
        let mut map = DEFAULT_DSCP_TO_PRIO;
        map[0] = dscp0_prio;
        s.p.b
            .ctx
            .set_priorities(Trust::Dscp, &map, Some(1))
            .unwrap();
        s.set(1, regs::PFC_XOFF_WORDS, 100);
        s.set(1, regs::PFC_XON_WORDS, 0);
        s.set(1, regs::PFC_PAUSE_QUANTA, 2000);
        s.finish();
        assert_eq!(
            s.reg(1, regs::RX_DROP_OVERFLOW),
            0,
            "prio {dscp0_prio}: no overflow"
        );
        let lossy = s.reg(1, regs::RX_DROP_LOSSY);
        let resent = s.reg(0, regs::RETRANSMITS);
        eprintln!("DSCP 0 as priority {dscp0_prio}: {lossy} dropped as lossy, A resent {resent}");
        dropped.push((lossy, resent));
    }
    assert!(
        dropped[0].0 > 0 && dropped[0].1 > 0,
        "lossy: dropped and resent {:?}",
        dropped[0]
    );
    assert_eq!(
        dropped[1],
        (0, 0),
        "lossless: nothing dropped, nothing resent"
    );
}
