//! DCQCN reaction point on the co-simulated NIC: with pacing on, A sends at line rate until CNPs arrive;
//! each CNP cuts its rate (RC × (1 − α/2)), the frames it puts on the wire slow down accordingly, and
//! without CNPs the rate climbs back through fast recovery. The WRITE still completes intact.
mod common;
use common::big_write;
use rocenic_driver::conformance::peer_frame;
use rocenic_driver::pair::Pair;
use rocenic_proto::opcode as op;
use rocenic_proto::regs;
use rocenic_proto::wire::{CnpPadRepr, ExtHeaders, Frame};

fn cnp() -> Vec<u8> {
    let e = ExtHeaders {
        cnp_pad: Some(CnpPadRepr { reserved: [0; 16] }),
        ..ExtHeaders::default()
    };
    let mut f = Frame::parse(&peer_frame(op::CNP, 0, e, &[], false)).unwrap();
    f.bth.becn = true;
    f.seal().unwrap();
    f.emit()
}

#[test]
fn cnps_cut_the_rate_and_it_recovers() {
    let (p, w) = big_write(16 << 20, 1_000_000, 4 << 20);
    let f = |p: &Pair| p.fabric.clone();
    let fab = f(&p);
    fab.lock().unwrap().reg_write(0, regs::DCQCN_ENABLE, 1);
    w.post(&p);
    let frames_in = |cycles: u64| {
        let mut g = fab.lock().unwrap();
        let before = g.link_stats().frames[0];
        g.run(cycles);
        g.link_stats().frames[0] - before
    };
    frames_in(2000);
    let full = frames_in(20_000);
    assert!(full > 50, "sending: {full} frames in 20,000 cycles");
    assert_eq!(fab.lock().unwrap().reg_read(0, regs::DCQCN_RATE), 2048);

    // One CNP: α started at 1 and has decayed by (1 - 1/256) per 8,594 cycles since, so the rate about
    // halves.
    fab.lock().unwrap().inject_frame(1, cnp());
    frames_in(500);
    let rate = fab.lock().unwrap().reg_read(0, regs::DCQCN_RATE);
    assert!((1024..=1040).contains(&rate), "RC x (1 - α/2): {rate}");
    // Two more CNPs: the rate keeps falling (α near 1 still). The last cut's target RT is the rate
    // before it.
    let mut target = 0;
    for _ in 0..2 {
        target = fab.lock().unwrap().reg_read(0, regs::DCQCN_RATE);
        fab.lock().unwrap().inject_frame(1, cnp());
        frames_in(300);
    }
    let low = fab.lock().unwrap().reg_read(0, regs::DCQCN_RATE);
    assert!(low < 400, "after three CNPs: {low}");
    // Paced: frames of 1,078 bytes (MTU 1024 + headers) at `low` / 256 bytes per cycle, within 25 %.
    let paced = frames_in(8000);
    let want = low as u64 * 8000 / 256 / 1078;
    assert!(
        paced * 4 >= want * 3 && paced * 4 <= want * 5 && paced < full * 8000 / 20_000,
        "paced: {paced} frames in 8,000 cycles, {want} expected at rate {low} ({full} per 20,000 unpaced)"
    );
    assert_eq!(
        fab.lock().unwrap().reg_read(0, regs::DCQCN_RATE_DECREASES),
        3
    );
    // No more CNPs: fast recovery halves the gap to RT at every rate-timer stage (8,594 cycles); after
    // the 8,000-cycle window above and six more stages RC is within a few percent of RT.
    frames_in(6 * 8594);
    let back = fab.lock().unwrap().reg_read(0, regs::DCQCN_RATE);
    assert!(
        back * 100 >= target * 95 && back <= 2048,
        "recovering towards RT {target}: {low} -> {back}"
    );

    w.finish(&p, 50_000_000);
}

/// End to end through a switch (`rocenic_driver::congestion`): two senders into two QPs of one receiver,
/// whose 10 Gb/s link marks CE above 5 KB. With DCQCN the flows share the link fairly, the queue stays bounded, and when
/// one flow ends the other climbs back to line rate; without DCQCN the same traffic builds a queue an
/// order of magnitude deeper.
#[test]
fn two_flows_through_a_marking_switch_share_the_link_and_recover() {
    use rocenic_driver::congestion::{run, Experiment};
    let x = Experiment {
        duration_us: 7000.0,
        stop_flow1_us: 4000.0,
        ..Experiment::default()
    };
    let t = run(&x).unwrap();
    let (a, b) = (
        t.mean(&t.rate_gbps[0], 2000.0, 4000.0),
        t.mean(&t.rate_gbps[1], 2000.0, 4000.0),
    );
    assert!(
        t.jain(2000.0, 4000.0) > 0.9,
        "fair share: {a:.2} and {b:.2} Gb/s"
    );
    assert!(a + b > 8.5, "the link stays busy: {:.2} Gb/s", a + b);
    let q = t.max_queue(1000.0, 4000.0);
    assert!(q < 100.0, "queue bounded: {q:.1} KB");
    assert!(t.ce_marked > 0 && t.cnps_sent > 0 && t.rate_cuts.iter().all(|&c| c > 0));
    assert_eq!(t.dropped, 0);
    let alone = t.mean(&t.rate_gbps[0], 6500.0, 7000.0);
    assert!(
        alone > 9.0,
        "flow 0 alone recovers to line rate: {alone:.2} Gb/s"
    );
    assert_eq!(
        t.mean(&t.rate_gbps[1], 6500.0, 7000.0),
        0.0,
        "flow 1 has ended"
    );

    let off = run(&Experiment {
        dcqcn: false,
        duration_us: 2000.0,
        stop_flow1_us: 2000.0,
        ..Experiment::default()
    })
    .unwrap();
    let q_off = off.max_queue(0.0, 2000.0);
    assert!(
        q_off > 300.0,
        "without DCQCN the queue grows: {q_off:.1} KB"
    );
}
