//! Mixed RC traffic in both directions over a link that drops, reorders, duplicates and corrupts frames
//! (`rocenic_testkit::stress`): every completion must succeed and every byte match the model. The long
//! runs (10^5 messages) are `rocenic stress --messages 50000`, recorded in docs/performance.md.
use crate::common::big_write_with;
use rocenic_sim::{FabricConfig, FaultPlan, Width};
use rocenic_testkit::stress::{run, StressConfig};

fn cfg(width: Width, mtu: u32, messages: usize, seed: u64, max_bytes: usize) -> StressConfig {
    StressConfig {
        width,
        mtu,
        messages,
        seed,
        faults: FaultPlan::none()
            .random(0.001, 0.01)
            .shuffle(0.001, 0.01, 3000),
        ack_timeout: 20_000,
        max_bytes,
        kinds: Vec::new(),
        host_link: (0, 0.0, 0.0),
        dma_reorder: false,
        sge: 1,
        window: 1,
        ipv6: false,
        vcd: None,
        pcap: None,
        fast_forward: Default::default(),
        pause_storms: (0, 0),
    }
}

/// The stress faults of the matrix: 5 % of frames dropped and 5 % reordered, 1 % corrupted and 1 %
/// duplicated.
fn lossy() -> FaultPlan {
    FaultPlan::none()
        .random(0.01, 0.05)
        .shuffle(0.01, 0.05, 3000)
}

#[test]
fn mixed_traffic_with_dma_completions_out_of_order_between_tags() {
    // PCIe may return completions of different requests in any order: the requester's payload reads
    // (tag 0) and the receive engine's WQE and atomic reads (tag 1) overtake each other here, on both
    // widths, and nothing may land wrong.
    // The seeds are ones whose traffic has the completions overtake each other often (the assert below):
    // a seed's count moves with the core's timing.
    for (w, seed) in [(Width::W64, 21), (Width::W512, 24)] {
        let mut c = cfg(w, 1024, 1000, seed, 8192);
        c.dma_reorder = true;
        let r = run(&c).unwrap();
        assert_eq!(r.count.iter().sum::<u64>(), 2000);
        assert!(
            r.dma_reordered > 10,
            "{w:?}: completions reordered {} times",
            r.dma_reordered
        );
    }
}

#[test]
fn mixed_traffic_through_a_narrow_host_link() {
    // One read credit and half the datapath's bandwidth each way: every engine must wait on DMA
    // back-pressure (read requests not accepted, write beats held) without losing or misplacing a byte.
    // Seeds 3, 6, 7 and 8 deadlocked the requester before its stale-prefetch drain stopped waiting for a
    // claimed read the host could not take (its one credit held by the data the drain was to consume).
    for seed in [3, 6, 7, 8, 12] {
        let mut c = cfg(Width::W64, 1024, 300, seed, 8192);
        c.host_link = (1, 4.0, 4.0);
        let r = run(&c).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_eq!(r.count.iter().sum::<u64>(), 600);
        assert!(
            r.count.iter().all(|&n| n > 0),
            "seed {seed}: every operation ran: {:?}",
            r.count
        );
    }
}

#[test]
fn mixed_traffic_over_a_faulty_link_64() {
    let r = run(&cfg(Width::W64, 1024, 600, 7, 16384)).unwrap();
    assert_eq!(r.count.iter().sum::<u64>(), 1200);
    assert!(
        r.count.iter().all(|&n| n > 0),
        "every operation ran: {:?}",
        r.count
    );
    assert!(
        r.link.dropped > 0 && r.link.reordered > 0,
        "faults happened: {:?}",
        r.link
    );
    assert!(r.retransmits > 0);
}

#[test]
fn mixed_traffic_over_a_faulty_link_512() {
    let r = run(&cfg(Width::W512, 4096, 200, 8, 65536)).unwrap();
    assert_eq!(r.count.iter().sum::<u64>(), 400);
    assert!(r.link.dropped > 0, "faults happened: {:?}", r.link);
}

#[test]
fn loss_beyond_the_retry_count_fails_with_retry_exceeded() {
    // With half the frames lost, retry_cnt 7 runs out: the run must fail with an error completion, not
    // hang and not pass.
    let mut c = cfg(Width::W64, 1024, 200, 3, 4096);
    c.faults = FaultPlan::none().random(0.0, 0.5);
    let e = run(&c).unwrap_err();
    assert!(
        e.contains("RetryExcErr") || e.contains("QP in ERR"),
        "unexpected failure: {e}"
    );
    // The error names the cycle it was found at (where a VCD window should end).
    let cycle: Option<u64> = e
        .strip_prefix("at cycle ")
        .and_then(|r| r.split(':').next())
        .and_then(|n| n.parse().ok());
    assert!(cycle.is_some_and(|c| c > 0), "no cycle in: {e}");
}

#[test]
fn a_nak_that_moves_the_window_on_renews_the_retries() {
    // A 256 KiB WRITE at MTU 1024 with a fifth of the frames corrupted each way: about 50 PSN-sequence
    // NAKs, each acknowledging the packets before its PSN. A retry is a resend with no progress since
    // the last one (docs/transport.md, "Retry budget"): seven of them in a row are never reached, so the
    // WRITE completes. With every NAK spending a retry it ended RETRY_EXC_ERR within a few dozen
    // packets.
    for (width, seed) in [(Width::W512, 1), (Width::W64, 2)] {
        let (p, w) = big_write_with(
            FabricConfig {
                width,
                host_mem_bytes: 4 << 20,
                faults: FaultPlan::none().random(0.2, 0.0),
                seed,
                ..FabricConfig::default()
            },
            20_000,
            256 << 10,
        );
        w.post(&p);
        w.finish(&p, 20_000_000);
    }
}

#[test]
fn gathered_writes_resent_with_several_in_flight_land_intact() {
    // Go-back-N into an older work request while a newer one's gather list is loaded: the gather
    // unit walked the newer list to a later entry and kept walking from there in the older one, reading
    // the wrong buffer (wrong bytes written at 512 bits) or an entry past the list (address 0 plus the
    // offset: a DMA read outside host memory at 64 bits).
    for (width, mtu, seed, window) in [
        (Width::W512, 1024, 41, 2),
        (Width::W512, 1024, 42, 2),
        (Width::W64, 1024, 41, 2),
        (Width::W64, 1024, 41, 8),
    ] {
        let mut c = cfg(width, mtu, 20, seed, 16384);
        c.window = window;
        c.sge = 4;
        c.faults = lossy();
        let r = run(&c).unwrap_or_else(|e| panic!("{width:?} window {window} seed {seed}: {e}"));
        assert_eq!(r.count.iter().sum::<u64>(), 40);
        assert!(r.retransmits > 0, "{width:?}: go-back-N happened");
    }
}

#[test]
fn reads_outstanding_when_the_requester_goes_back_land_where_they_belong() {
    // READs queued behind a gathered WRITE, a short ACK timeout: the requester goes back (dropping
    // its READ contexts) while a READ response is being written. The receive engine took the write
    // mode from the transmit engine live, so the rest of that response was scattered over the WRITE's
    // gather list: a DMA write at the list's address plus the response's absolute one.
    for (width, seed, mtu) in [(Width::W64, 2, 1024), (Width::W64, 5, 1024)] {
        let mut c = cfg(width, mtu, 400, seed, 16384);
        c.window = 8;
        c.sge = 4;
        c.kinds = vec![4, 0]; // READ, WRITE
        c.ack_timeout = 4000;
        c.faults = FaultPlan::none()
            .random(0.01, 0.05)
            .shuffle(0.01, 0.05, 3000)
            .fcs_errors(0.0);
        let r = run(&c).unwrap_or_else(|e| panic!("{width:?} seed {seed}: {e}"));
        assert_eq!(r.count.iter().sum::<u64>(), 800);
        assert!(
            r.retransmits > 0,
            "{width:?} seed {seed}: the requester went back"
        );
    }
}

#[test]
fn pause_storms_hold_every_frame_and_fire_no_timeout() {
    // Storms of 40,000 cycles, eight local ACK timeouts' worth: the QPs' priority is paused on both
    // NICs, nothing goes out, the retransmission timers stand still, and the traffic completes.
    for (width, seed) in [(Width::W64, 1), (Width::W512, 2)] {
        let mut c = cfg(width, 1024, 300, seed, 16384);
        c.faults = FaultPlan::none();
        c.window = 4;
        c.ack_timeout = 5000;
        c.pause_storms = (100_000, 40_000);
        let r = run(&c).unwrap_or_else(|e| panic!("{width:?}: {e}"));
        assert_eq!(r.count.iter().sum::<u64>(), 600);
        assert!(r.storms >= 2, "{width:?}: {} storms", r.storms);
        assert!(
            r.paused_cycles >= r.storms.saturating_sub(1) * 2 * 40_000,
            "{width:?}: {} cycles paused in {} storms",
            r.paused_cycles,
            r.storms
        );
        assert_eq!(r.storm_frames, 0, "{width:?}: frames sent while paused");
        assert_eq!(r.timeouts, 0, "{width:?}: ACK timeouts while paused");
    }
}

#[test]
fn pause_storms_over_a_lossy_link_outlive_a_lost_xon() {
    // The storms' PFC frames cross the faulty link too. A lost XON must leave the peer paused for no
    // longer than a few refresh intervals (each XOFF asks for three), not for the 0xFFFF quanta (more
    // than eight 5,000-cycle ACK timeouts), or the requester facing it rightly ends in RETRY_EXC_ERR.
    // Storms far enough apart that the next one's XON cannot rescue a lost one; the seeds lose one.
    for (width, seed) in [(Width::W64, 1), (Width::W512, 3)] {
        let mut c = cfg(width, 1024, 200, seed, 8192);
        c.window = 4;
        c.ack_timeout = 5000;
        c.faults = lossy();
        c.pause_storms = (100_000, 15_000);
        let r = run(&c).unwrap_or_else(|e| panic!("{width:?}: {e}"));
        assert_eq!(r.count.iter().sum::<u64>(), 400);
        assert!(r.storms >= 2, "{width:?}: {} storms", r.storms);
    }
}

/// The stress matrix at one width: windows 1/2/4/8 x lists of 1 and up to 4 entries, every operation
/// mixed, at 5 % drops, 5 % reordering, 1 % corruption and 1 % duplication, three seeds each: every
/// completion successful and every byte checked. (The 10^6-message soak is `scripts/test.sh --full`.)
fn stress_matrix(width: Width) {
    let mut failures = Vec::new();
    for window in [1, 2, 4, 8] {
        for sge in [1, 4] {
            for seed in 1..=3 {
                let mut c = cfg(width, 1024, 40, seed, 16384);
                c.window = window;
                c.sge = sge;
                c.faults = lossy();
                let what = format!("{width:?} window {window} sge {sge} seed {seed}");
                match run(&c) {
                    Ok(r) if r.count.iter().sum::<u64>() == 80 => {}
                    Ok(r) => failures.push(format!("{what}: {r:?}")),
                    Err(e) => failures.push(format!("{what}: {e}")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn stress_matrix_64() {
    stress_matrix(Width::W64);
}

#[test]
fn stress_matrix_512() {
    stress_matrix(Width::W512);
}

#[test]
fn mixed_traffic_with_gather_and_scatter_lists_over_a_faulty_link() {
    // Every message but an atomic gathered from (a READ scattered over) 1 to 4 entries, every receive
    // over 1 to 4, cut at random points (empty entries too), with drops and reordering forcing
    // go-back-N from the middle of messages, at both widths.
    for (w, mtu, n, seed, max) in [
        (Width::W64, 1024, 600, 31, 16384),
        (Width::W512, 4096, 200, 32, 65536),
    ] {
        let mut c = cfg(w, mtu, n, seed, max);
        c.sge = 4;
        let r = run(&c).unwrap_or_else(|e| panic!("{w:?}: {e}"));
        assert_eq!(r.count.iter().sum::<u64>(), 2 * n as u64);
        assert!(
            r.count.iter().all(|&k| k > 0),
            "{w:?}: every operation ran: {:?}",
            r.count
        );
        assert!(r.retransmits > 0, "{w:?}: go-back-N happened");
    }
}

#[test]
fn several_work_requests_in_flight_over_a_faulty_link() {
    // Eight work requests per side posted at once: the requester keeps sending WRITEs and SENDs while
    // earlier ones wait for their ACK (the outstanding ring, docs/transport.md), so drops, NAKs and
    // timeouts land inside the ring and go back into WQEs already sent; READs and atomics wait their
    // turn behind them. Completions must come in posting order with every byte right. More SENDs in
    // flight than receive slots also gives RNR NAKs.
    for (w, seed, mtu) in [(Width::W64, 31, 1024), (Width::W512, 32, 4096)] {
        let mut c = cfg(w, mtu, 1500, seed, 8192);
        c.window = 8;
        c.faults = FaultPlan::none()
            .random(0.001, 0.02)
            .shuffle(0.001, 0.02, 3000);
        let r = run(&c).unwrap_or_else(|e| panic!("{w:?}: {e}"));
        assert_eq!(r.count.iter().sum::<u64>(), 3000);
        assert!(r.count.iter().all(|&n| n > 0), "{w:?}: {:?}", r.count);
        assert!(
            r.naks > 0 && r.timeouts > 0 && r.retransmits > 0,
            "{w:?}: the faults reached the ring: {r:?}"
        );
    }
}

#[test]
fn mixed_traffic_over_ipv6_on_a_faulty_link() {
    // RoCEv2 over IPv6 (annex A17.4): every operation, requests and responses, ACKs and NAKs, in 40-byte
    // IPv6 headers with the ICRC over them, at both widths, with losses that make both sides resend, and
    // several work requests in flight. (The frames themselves are checked in tests/ipv6.rs.)
    for (w, seed, mtu) in [(Width::W64, 41, 1024), (Width::W512, 42, 2048)] {
        let mut c = cfg(w, mtu, 400, seed, 6000);
        c.ipv6 = true;
        c.window = 4;
        c.faults = FaultPlan::none()
            .random(0.001, 0.02)
            .shuffle(0.001, 0.02, 3000);
        let r = run(&c).unwrap_or_else(|e| panic!("{w:?}: {e}"));
        assert_eq!(r.count.iter().sum::<u64>(), 800);
        assert!(r.count.iter().all(|&n| n > 0), "{w:?}: {:?}", r.count);
        assert!(
            r.retransmits > 0,
            "{w:?}: the faults made both sides resend: {r:?}"
        );
    }
}
