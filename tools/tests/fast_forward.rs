//! Idle fast-forward (`rocenic_sim::FastForward`) changes nothing but the time the simulation takes:
//! the same seeded runs with it on, off and in check mode give the same frames at the same cycles (the
//! pcaps, timestamps included, byte for byte), the same completions and the same counters. The runs
//! wait out ACK timeouts (lost frames), RNR waits and DCQCN's rate and α timers, which is where
//! fast-forward skips cycles.
use crate::common::cnp;
use rocenic_driver::{AccessFlags, RecvRequest, SendFlags, SendOp, Sge, WorkRequest};
use rocenic_proto::regs;
use rocenic_sim::{FabricConfig, FastForward, FaultPlan, Width};
use rocenic_testkit::pair::Pair;
use rocenic_testkit::stress::{run, StressConfig, StressReport};
use std::path::PathBuf;

fn out(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fast_forward");
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Mixed traffic with several work requests in flight over a lossy link: ACK timeouts, NAKs and
/// retransmissions, with idle stretches while both sides wait.
fn lossy(width: Width, ff: FastForward, pcap: PathBuf) -> StressReport {
    let cfg = StressConfig {
        width,
        mtu: 1024,
        messages: 120,
        seed: 11,
        faults: FaultPlan::none()
            .random(0.01, 0.05)
            .shuffle(0.01, 0.05, 3000),
        ack_timeout: 20_000,
        max_bytes: 8192,
        kinds: Vec::new(),
        host_link: (0, 0.0, 0.0),
        dma_reorder: false,
        sge: 2,
        window: 4,
        ipv6: false,
        vcd: None,
        pcap: Some(pcap),
        fast_forward: ff,
        pause_storms: (0, 0),
    };
    run(&cfg).unwrap_or_else(|e| panic!("{width:?} {ff:?}: {e}"))
}

/// Everything a report says but the fast-forward figures.
fn outcome(r: &StressReport) -> String {
    let mut r = r.clone();
    r.fast_forward = (0, 0);
    format!("{r:?}")
}

#[test]
fn a_lossy_run_is_the_same_fast_forwarded() {
    for width in [Width::W64, Width::W512] {
        let (a, b) = (
            out(&format!("lossy-{}-off.pcap", width.bits())),
            out(&format!("lossy-{}-on.pcap", width.bits())),
        );
        let off = lossy(width, FastForward::Off, a.clone());
        let on = lossy(width, FastForward::On, b.clone());
        assert!(
            off.timeouts > 0,
            "{width:?}: the run waits out ACK timeouts"
        );
        assert!(
            on.fast_forward.0 > on.cycles / 20,
            "{width:?}: fast-forward skipped {} of {} cycles",
            on.fast_forward.0,
            on.cycles
        );
        assert_eq!(off.fast_forward, (0, 0));
        assert_eq!(outcome(&off), outcome(&on), "{width:?}: reports differ");
        let (pa, pb) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        assert!(pa.len() > 100_000, "{width:?}: the capture holds the run");
        assert!(
            pa == pb,
            "{width:?}: the captures differ ({} vs {} bytes)",
            pa.len(),
            pb.len()
        );
    }
}

#[test]
fn the_cycles_fast_forward_skips_are_quiet_in_every_core() {
    // Check mode simulates every cycle and panics if a core changes state in one that fast-forward
    // would have skipped.
    let r = lossy(Width::W64, FastForward::Check, out("lossy-64-check.pcap"));
    assert!(r.timeouts > 0);
}

/// A CNP sent to A, whose DCQCN reaction point then recovers on its rate and α timers while nothing
/// else happens; then a SEND from A to a QP with no receive posted, which B answers with RNR NAKs that A
/// waits out until the receive is posted. Returns the completions with their cycles, A's rate and
/// every counter and read-only register of both ports; the capture's bytes; and what fast-forward
/// skipped.
fn timers(ff: FastForward, name: &str) -> (String, Vec<u8>, (u64, u64)) {
    let pcap = out(name);
    let cfg = FabricConfig {
        pcap: Some(pcap.clone()),
        fast_forward: ff,
        ..FabricConfig::default()
    };
    let p = Pair::connect(cfg, 1024, 200_000).unwrap();
    let mut log = String::new();
    let fab = p.fabric.clone();
    fab.lock().unwrap().reg_write(0, regs::DCQCN_ENABLE, 1);
    fab.lock().unwrap().inject_frame(1, cnp());
    for k in 0..4 {
        for _ in 0..500 {
            p.a.ctx.wait();
        }
        let rate = fab.lock().unwrap().reg_read(0, regs::DCQCN_RATE);
        log.push_str(&format!("{k}: cycle {} rate {rate}\n", p.cycles()));
    }
    let len = 4096;
    let src = p.a.ctx.alloc_dma(len).unwrap();
    let dst = p.b.ctx.alloc_dma(len).unwrap();
    src.write(0, &vec![0x3C; len]).unwrap();
    let smr =
        p.a.pd
            .reg_mr(&src, 0, len, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let dmr =
        p.b.pd
            .reg_mr(&dst, 0, len, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let send = WorkRequest {
        wr_id: 7,
        op: SendOp::Send,
        sge: Sge {
            addr: smr.addr(),
            length: len as u32,
            lkey: smr.lkey(),
        },
        flags: SendFlags::SIGNALED,
    };
    // SAFETY: the regions and MRs live until the end of this function, past the completions.
    unsafe { p.a.qp.post_send(&send).unwrap() };
    for _ in 0..3000 {
        p.a.ctx.wait();
    }
    log.push_str(&format!("receive posted at {}\n", p.cycles()));
    let recv = RecvRequest {
        wr_id: 8,
        sge: Sge {
            addr: dmr.addr(),
            length: len as u32,
            lkey: dmr.lkey(),
        },
    };
    // SAFETY: as above.
    unsafe { p.b.qp.post_recv(&recv).unwrap() };
    for cq in [&p.a.send_cq, &p.b.recv_cq] {
        let (at, wc) = p.wait_for_at(cq, 2_000_000).expect("the SEND completes");
        log.push_str(&format!("{at} {wc:?}\n"));
    }
    let mut f = fab.lock().unwrap();
    for port in 0..2 {
        for r in regs::REGISTERS {
            if matches!(r.access, regs::Access::Counter | regs::Access::Ro) {
                log.push_str(&format!(
                    "{port} {} {}\n",
                    r.name,
                    f.reg_read(port, r.offset)
                ));
            }
        }
    }
    let skipped = f.fast_forward_stats();
    f.flush_pcap().unwrap();
    drop(f);
    (log, std::fs::read(pcap).unwrap(), skipped)
}

#[test]
fn timers_run_out_the_same_fast_forwarded() {
    let (log_off, pcap_off, s_off) = timers(FastForward::Off, "timers-off.pcap");
    let (log_on, pcap_on, s_on) = timers(FastForward::On, "timers-on.pcap");
    assert!(log_off.contains("0 RX_RNR_NAKS"), "{log_off}");
    assert!(
        !log_off.contains("0 RX_RNR_NAKS 0\n"),
        "the SEND met RNR NAKs: {log_off}"
    );
    assert_eq!(s_off, (0, 0));
    assert!(s_on.0 > 100_000, "fast-forward skipped {s_on:?}");
    assert_eq!(log_off, log_on);
    assert!(pcap_off == pcap_on, "the captures differ");
}
