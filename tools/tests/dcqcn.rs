//! DCQCN reaction point on the co-simulated NIC: with pacing on, A sends at line rate until CNPs arrive;
//! each CNP cuts its rate (RC × (1 − α/2)), the frames it puts on the wire slow down accordingly, and
//! without CNPs the rate climbs back through fast recovery. The WRITE still completes intact.
use crate::common::{big_write, cnp};
use rocenic_proto::regs;
use rocenic_proto::wire::Frame;
use rocenic_testkit::pair::Pair;

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

/// End to end through a switch (`rocenic_testkit::congestion`): two senders into two QPs of one receiver,
/// whose 10 Gb/s link marks CE above 5 KB. With DCQCN both flows get a real share of the link, the queue stays bounded, and when
/// one flow ends the other climbs back to line rate; without DCQCN the same traffic builds a queue an
/// order of magnitude deeper.
/// Over two minutes of co-simulation; a single flow's cut and recovery and the per-QP cut stand in for it in the job.
#[test]
#[ignore = "long: scripts/test.sh --full"]
fn two_flows_through_a_marking_switch_share_the_link_and_recover() {
    use rocenic_testkit::congestion::{run, Experiment};
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
    // DCQCN closes a gap between two flows only slowly, and which flow ends up ahead, and by how much,
    // depends on the exact timing (docs/ethernet.md): a cycle more or less per packet anywhere, or a
    // marking threshold 500 bytes apart, moves Jain's index in this window between about 0.78 and 0.95
    // and can swap the flows. So the share is judged over three runs with thresholds 4.5, 5 and 5.5 KB
    // (the last two cut short when flow 1 would stop): over them, each flow gets at least a quarter of
    // what both get.
    let (mut sa, mut sb) = (a, b);
    let mut seen = vec![format!(
        "5000: {a:.2} / {b:.2} (Jain {:.3})",
        t.jain(2000.0, 4000.0)
    )];
    for kmin in [4500, 5500] {
        let u = run(&Experiment {
            kmin,
            duration_us: 4000.0,
            stop_flow1_us: 4000.0,
            ..Experiment::default()
        })
        .unwrap();
        let (ua, ub) = (
            u.mean(&u.rate_gbps[0], 2000.0, 4000.0),
            u.mean(&u.rate_gbps[1], 2000.0, 4000.0),
        );
        seen.push(format!(
            "{kmin}: {ua:.2} / {ub:.2} (Jain {:.3})",
            u.jain(2000.0, 4000.0)
        ));
        sa += ua;
        sb += ub;
    }
    assert!(
        sa.min(sb) > 0.25 * (sa + sb),
        "fair share over three thresholds: {sa:.2} and {sb:.2} Gb/s summed; kmin: flow 0 / flow 1 Gb/s: {}",
        seen.join(", ")
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

/// A CNP for a QP with the requester's QP number in its BTH, from B.
fn cnp_to(qpn: u32) -> Vec<u8> {
    let mut f = Frame::parse(&cnp()).unwrap();
    f.bth.dest_qp = qpn;
    f.seal().unwrap();
    f.emit()
}

/// Two 64-bit NICs, A and B, with `n` QP pairs between them (A's on CQ `ca`, B's on `cb`), each QP with
/// `send_wr` send queue entries.
struct Nics {
    fab: std::sync::Arc<std::sync::Mutex<rocenic_sim::Fabric>>,
    a: rocenic_driver::Context,
    b: rocenic_driver::Context,
    pa: std::sync::Arc<rocenic_driver::ProtectionDomain>,
    pb: std::sync::Arc<rocenic_driver::ProtectionDomain>,
    ca: std::sync::Arc<rocenic_driver::CompletionQueue>,
    cb: std::sync::Arc<rocenic_driver::CompletionQueue>,
    qps: Vec<(rocenic_driver::QueuePair, rocenic_driver::QueuePair)>,
}

fn nics(n: usize, send_wr: usize) -> Nics {
    use rocenic_driver::backend::sim::SimBackend;
    use rocenic_driver::{Context, QpCaps, QueuePair};
    use rocenic_sim::{Fabric, FabricConfig, Width};
    use rocenic_testkit::pair::{connect_qps, ip, mac, PairParams};
    use std::sync::{Arc, Mutex};
    let fab = Arc::new(Mutex::new(
        Fabric::new(FabricConfig {
            width: Width::W64,
            host_mem_bytes: 8 << 20,
            ..FabricConfig::default()
        })
        .unwrap(),
    ));
    let open = |port: usize| {
        let ctx = Context::open(Arc::new(SimBackend::new(fab.clone(), port))).unwrap();
        ctx.set_port(mac(port), ip(port));
        ctx
    };
    let (a, b) = (open(0), open(1));
    let (pa, pb) = (a.alloc_pd(), b.alloc_pd());
    let (ca, cb) = (a.create_cq(64).unwrap(), b.create_cq(64).unwrap());
    let caps = QpCaps {
        max_send_wr: send_wr,
        max_recv_wr: 4,
        max_send_sge: 1,
        max_recv_sge: 1,
    };
    let mut qps = Vec::new();
    for i in 0..n as u32 {
        let qa = QueuePair::create(&pa, &ca, &ca, caps).unwrap();
        let qb = QueuePair::create(&pb, &cb, &cb, caps).unwrap();
        let params = PairParams {
            psn: [0x1000 * (i + 1), 0x2000 * (i + 1)],
            udp_sport: [0xC000 + i as u16, 0xC100 + i as u16],
            ..PairParams::new(1024, 1_000_000)
        };
        connect_qps([&qa, &qb], &params).unwrap();
        qps.push((qa, qb));
    }
    Nics {
        fab,
        a,
        b,
        pa,
        pb,
        ca,
        cb,
        qps,
    }
}

/// A signaled RDMA WRITE of `len` bytes from the start of `src` to `at` bytes into `dst`.
fn write_wr(
    id: u64,
    src: &rocenic_driver::MemoryRegion,
    len: usize,
    dst: &rocenic_driver::MemoryRegion,
    at: usize,
) -> rocenic_driver::WorkRequest {
    use rocenic_driver::{SendFlags, SendOp, Sge, WorkRequest};
    WorkRequest {
        wr_id: id,
        op: SendOp::RdmaWrite {
            remote_addr: dst.addr() + at as u64,
            rkey: dst.rkey(),
        },
        sge: Sge {
            addr: src.addr(),
            length: len as u32,
            lkey: src.lkey(),
        },
        flags: SendFlags::SIGNALED,
    }
}

/// Per-QP DCQCN (`net::rate_limiters`): CNPs for one of A's QPs take a rate limiter for that QP and
/// slow it alone: another QP of the same NIC sends at line rate meanwhile, and the slowed QP's frames
/// follow its limiter's rate. Five QPs' CNPs fill the pool of four and the fifth is counted as ignored;
/// without CNPs every limiter climbs back to the line rate and is let go. On a core whose reaction point
/// paced the whole port, the second QP's frames were held to the first one's rate.
#[test]
fn cnps_slow_only_their_qp() {
    use rocenic_driver::WcStatus;
    use rocenic_driver::{AccessFlags, QueuePair, RateLimiter};
    const LEN: usize = 512 << 10;
    let Nics {
        fab,
        a,
        b,
        pa,
        pb,
        ca,
        cb,
        qps,
    } = nics(5, 8);
    let src = a.alloc_dma(LEN).unwrap();
    let data: Vec<u8> = (0..LEN).map(|i| (i * 13 + 1) as u8).collect();
    src.write(0, &data).unwrap();
    let src_mr = pa.reg_mr(&src, 0, LEN, AccessFlags::LOCAL_WRITE).unwrap();
    let dst = b.alloc_dma(2 * LEN).unwrap();
    let dst_mr = pb
        .reg_mr(
            &dst,
            0,
            2 * LEN,
            AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE,
        )
        .unwrap();
    let write = |qp: &QueuePair, at: usize, id: u64| {
        let wr = write_wr(id, &src_mr, LEN, &dst_mr, at);
        // SAFETY: the regions live until the end of the test, after every completion was polled.
        unsafe { qp.post_send(&wr) }.unwrap();
    };
    let frames_in = |cycles: u64| {
        let mut g = fab.lock().unwrap();
        let before = g.link_stats().frames[0];
        g.run(cycles);
        g.link_stats().frames[0] - before
    };
    // B's 64-byte WRITEs into A over QP 1: cycles from posting to B's completion, which waits for A's ACK.
    let a_dst = a.alloc_dma(4096).unwrap();
    let a_dst_mr = pa
        .reg_mr(
            &a_dst,
            0,
            4096,
            AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE,
        )
        .unwrap();
    let b_src = b.alloc_dma(64).unwrap();
    let b_src_mr = pb.reg_mr(&b_src, 0, 64, AccessFlags::LOCAL_WRITE).unwrap();
    let b_write_cycles = |id: u64| {
        let wr = write_wr(id, &b_src_mr, 64, &a_dst_mr, 0);
        // SAFETY: the regions live until the end of the test, after every completion was polled.
        unsafe { qps[1].1.post_send(&wr) }.unwrap();
        let mut wc = [rocenic_driver::WorkCompletion::default()];
        for n in 0..20_000u64 {
            fab.lock().unwrap().run(5);
            if cb.poll(&mut wc) == 1 {
                assert_eq!((wc[0].wr_id, wc[0].status), (id, WcStatus::Success));
                return 5 * (n + 1);
            }
        }
        panic!("B's WRITE {id} did not complete");
    };
    let complete = |id: u64| {
        let mut wc = [rocenic_driver::WorkCompletion::default()];
        for _ in 0..2000 {
            fab.lock().unwrap().run(1000);
            if ca.poll(&mut wc) == 1 {
                assert_eq!((wc[0].wr_id, wc[0].status), (id, WcStatus::Success));
                return;
            }
        }
        panic!("WRITE {id} did not complete");
    };
    {
        let mut g = fab.lock().unwrap();
        g.reg_write(0, regs::DCQCN_ENABLE, 1);
        // No recovery during the measurements: the rate stays where the CNPs cut it.
        g.reg_write(0, regs::DCQCN_RATE_TIMER, 10_000_000);
        g.reg_write(0, regs::DCQCN_ALPHA_TIMER, 10_000_000);
    }
    let q0 = qps[0].0.qp_num();
    assert!(a.rate_limiters().is_empty());
    let idle: Vec<u64> = (0..4).map(|i| b_write_cycles(100 + i)).collect();
    for _ in 0..3 {
        fab.lock().unwrap().inject_frame(1, cnp_to(q0));
        fab.lock().unwrap().run(300);
    }
    let lim = a.rate_limiters();
    assert_eq!(lim.len(), 1, "{lim:?}");
    let low = lim[0].rate;
    assert!(lim[0].qpn == q0 && low < 400, "{lim:?}");
    assert_eq!(fab.lock().unwrap().reg_read(0, regs::DCQCN_RATE), low);

    // QP 1 is not slowed: about 8 B/cycle on the wire, 1,078-byte frames plus the gap.
    write(&qps[1].0, 0, 1);
    frames_in(2000);
    let fast = frames_in(20_000);
    assert!(
        fast > 120,
        "QP 1 at line rate: {fast} frames in 20,000 cycles"
    );
    complete(1);
    // QP 0 is, to its limiter's rate (within 25 %).
    write(&qps[0].0, LEN, 2);
    frames_in(2000);
    let slow = frames_in(20_000);
    let want = low as u64 * 20_000 / 256 / 1078;
    assert!(
        slow * 4 >= want * 3 && slow * 4 <= want * 5,
        "QP 0 paced: {slow} frames in 20,000 cycles, {want} expected at rate {low}"
    );
    assert_eq!(
        a.rate_limiters(),
        lim,
        "the other QP's frames did not touch it"
    );
    // A's ACKs for another QP do not wait behind QP 0's paced frames: the transmit engine builds none of
    // QP 0's packets while its limiter owes more than 16 cycles, and serves the ACKs meanwhile; at worst
    // one of QP 0's frames is being read and sent (about 250 cycles). Measured: idle 415..425, paced up to
    // 665; with the engine waiting at the arbiter with a held frame instead, 845..1,490.
    let paced: Vec<u64> = (0..8).map(|i| b_write_cycles(200 + i)).collect();
    let (base, worst) = (*idle.iter().max().unwrap(), *paced.iter().max().unwrap());
    println!("B's WRITE round trips: idle {idle:?}, with QP 0 paced {paced:?}");
    assert!(
        worst <= base + 300,
        "ACKs for QP 1 held behind QP 0's pacing: {paced:?} cycles against {idle:?} idle"
    );

    // Four more QPs' CNPs: three take the rest of the pool, the last finds none.
    for (qa, _) in &qps[1..] {
        fab.lock().unwrap().inject_frame(1, cnp_to(qa.qp_num()));
        fab.lock().unwrap().run(300);
    }
    let lim = a.rate_limiters();
    let held: Vec<u32> = lim.iter().map(|l| l.qpn).collect();
    let want_held: Vec<u32> = qps[..4].iter().map(|(q, _)| q.qp_num()).collect();
    assert_eq!(held, want_held, "{lim:?}");
    {
        let mut g = fab.lock().unwrap();
        assert_eq!(g.reg_read(0, regs::RP_CNP_IGNORED), 1);
        assert_eq!(g.reg_read(0, regs::RP_CNP_HANDLED), 7);
        assert_eq!(g.reg_read(0, regs::DCQCN_RATE_DECREASES), 6);
    }

    // Recovery: short stages and a large additive step bring every limiter back to the line rate and
    // let it go; the slowed WRITE then finishes at line rate, its data intact.
    {
        let mut g = fab.lock().unwrap();
        g.reg_write(0, regs::DCQCN_RATE_TIMER, 500);
        g.reg_write(0, regs::DCQCN_RATE_AI, 400);
    }
    frames_in(30_000);
    assert_eq!(a.rate_limiters(), Vec::<RateLimiter>::new());
    assert_eq!(fab.lock().unwrap().reg_read(0, regs::DCQCN_RATE), 2048);
    complete(2);
    let mut got = vec![0u8; 2 * LEN];
    dst.read(0, &mut got).unwrap();
    assert!(
        got[..LEN] == data[..] && got[LEN..] == data[..],
        "data differs"
    );
}

/// A paced QP gives up the transmit engine between its work requests: with QP 0's limiter cut below 400
/// and sixteen 8 KiB WRITEs posted on each of QP 0 and then QP 1, QP 0 starts no new work request while
/// its limiter owes more than 16 cycles, its ring drains and the table gives the turn to QP 1, whose
/// sixteen WRITEs go at line rate while QP 0 has completed only a few. When a paced QP kept its turn of
/// `TURN_WQES` (16), QP 1 waited for all of QP 0's.
#[test]
fn a_paced_qp_gives_up_its_turn() {
    use rocenic_driver::{AccessFlags, WcStatus};
    const LEN: usize = 8 << 10;
    const PER_QP: usize = 16;
    let Nics {
        fab,
        a,
        b: _b,
        pa,
        pb,
        ca,
        cb: _cb,
        qps,
    } = nics(2, 32);
    let src = a.alloc_dma(LEN).unwrap();
    src.write(0, &[0xC3; LEN]).unwrap();
    let src_mr = pa.reg_mr(&src, 0, LEN, AccessFlags::LOCAL_WRITE).unwrap();
    let dst = _b.alloc_dma(2 * PER_QP * LEN).unwrap();
    let dst_mr = pb
        .reg_mr(
            &dst,
            0,
            2 * PER_QP * LEN,
            AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE,
        )
        .unwrap();
    {
        let mut g = fab.lock().unwrap();
        g.reg_write(0, regs::DCQCN_ENABLE, 1);
        g.reg_write(0, regs::DCQCN_RATE_TIMER, 100_000_000);
        g.reg_write(0, regs::DCQCN_ALPHA_TIMER, 100_000_000);
    }
    for _ in 0..3 {
        fab.lock()
            .unwrap()
            .inject_frame(1, cnp_to(qps[0].0.qp_num()));
        fab.lock().unwrap().run(300);
    }
    let lim = a.rate_limiters();
    assert!(lim.len() == 1 && lim[0].rate < 400, "{lim:?}");
    for (q, (qa, _)) in qps.iter().enumerate() {
        for k in 0..PER_QP {
            let at = (q * PER_QP + k) * LEN;
            let wr = write_wr(at as u64, &src_mr, LEN, &dst_mr, at);
            // SAFETY: the regions live until the end of the test, after every completion was polled.
            unsafe { qa.post_send(&wr) }.unwrap();
        }
    }
    // Completions by QP, in the order they come.
    let mut order = Vec::new();
    let mut wc = [rocenic_driver::WorkCompletion::default()];
    for _ in 0..20_000 {
        if order.len() == 2 * PER_QP {
            break;
        }
        fab.lock().unwrap().run(100);
        while ca.poll(&mut wc) == 1 {
            assert_eq!(wc[0].status, WcStatus::Success, "{:?}", wc[0]);
            order.push(wc[0].wr_id as usize / LEN / PER_QP);
        }
    }
    assert_eq!(order.len(), 2 * PER_QP, "every WRITE completed: {order:?}");
    let last_of_1 = order.iter().rposition(|&q| q == 1).unwrap();
    let qp0_before = order[..last_of_1].iter().filter(|&&q| q == 0).count();
    println!("completions by QP: {order:?}");
    assert!(
        qp0_before <= 4,
        "QP 1 finished after {qp0_before} of paced QP 0's WRITEs: {order:?}"
    );
    let mut got = vec![0u8; 2 * PER_QP * LEN];
    dst.read(0, &mut got).unwrap();
    assert!(got.iter().all(|&x| x == 0xC3), "every WRITE landed");
}
