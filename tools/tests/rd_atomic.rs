//! max_rd_atomic: a QP keeps up to that many RDMA READ and atomic requests outstanding (the transmit
//! engine's READ context queue, `hdl/src/roce/req.rs`), and never more; atomics count as READs do. Counted on
//! the wire, cycle by cycle: requests A sent minus the READs (atomics) whose last response B sent, which
//! can only be below what A has outstanding.
use rocenic_driver::{AccessFlags, SendFlags, SendOp, Sge, WcOpcode, WcStatus, WorkRequest};
use rocenic_proto::regs;
use rocenic_sim::{FabricConfig, FaultPlan, Width};
use rocenic_testkit::pair::{Pair, PairParams};

/// BTH opcode of an untagged IPv4 RoCEv2 frame (Ethernet 14 + IPv4 20 + UDP 8).
fn opcode(f: &[u8]) -> u8 {
    f[42]
}

/// RDMA READ request; READ RESPONSE LAST and ONLY; the atomic requests; ATOMIC ACKNOWLEDGE (IBA §9.2).
const READ_REQ: u8 = 0x0C;
const READ_END: [u8; 2] = [0x0F, 0x10];
const ATOMIC_REQ: [u8; 2] = [0x13, 0x14];
const ATOMIC_ACK: u8 = 0x12;

struct Peak {
    reads: i64,
    atomics: i64,
    /// ATOMIC ACKNOWLEDGEs B sent: one per atomic, more when it replayed duplicates.
    atomic_acks: u64,
    /// The most READ/atomic contexts TX_STATUS showed queued (bits 20..22).
    queued: u32,
}

/// A posts `ops` (true: FETCH_ADD, false: a 3000-byte READ, three responses at MTU 1024) at once on a
/// pair whose QPs have `max_rd_atomic`; every completion and every byte is checked, and the most READ +
/// atomic requests and the most atomics seen outstanding on the wire are returned.
fn run(width: Width, max_rd_atomic: u8, ops: &[bool]) -> Peak {
    run_on(width, max_rd_atomic, ops, FaultPlan::none(), 1, 100)
}

/// `run` over a link of `latency` cycles each way that `faults` and `seed` say.
fn run_on(
    width: Width,
    max_rd_atomic: u8,
    ops: &[bool],
    faults: FaultPlan,
    seed: u64,
    latency: u64,
) -> Peak {
    const LEN: usize = 3000;
    // A lossy link waits out lost last responses: a shorter ACK timeout keeps the run short.
    let ack_timeout = if faults.drop_probability > 0.0 {
        30_000
    } else {
        200_000
    };
    let cfg = FabricConfig {
        width,
        host_mem_bytes: 4 << 20,
        link_latency_cycles: latency,
        faults,
        seed,
        ..FabricConfig::default()
    };
    let params = PairParams {
        max_rd_atomic,
        ..PairParams::new(1024, ack_timeout)
    };
    let p = Pair::connect_with(cfg, &params).unwrap();
    assert_eq!(p.a.qp.query_qp().max_rd_atomic, max_rd_atomic);
    let n = ops.len();
    let data: Vec<u8> = (0..n * LEN).map(|i| (i * 7 + i / 251) as u8).collect();
    let remote = p.b.ctx.alloc_dma(n * LEN).unwrap();
    remote.write(0, &data).unwrap();
    let rmr =
        p.b.pd
            .reg_mr(
                &remote,
                0,
                n * LEN,
                AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_READ | AccessFlags::REMOTE_ATOMIC,
            )
            .unwrap();
    let local = p.a.ctx.alloc_dma(n * LEN).unwrap();
    let lmr =
        p.a.pd
            .reg_mr(&local, 0, n * LEN, AccessFlags::LOCAL_WRITE)
            .unwrap();
    p.fabric.lock().unwrap().record_frames();
    for (i, &atomic) in ops.iter().enumerate() {
        let at = (i * LEN) as u64;
        let wr = WorkRequest {
            wr_id: i as u64,
            op: if atomic {
                SendOp::AtomicFetchAdd {
                    remote_addr: rmr.addr() + at,
                    rkey: rmr.rkey(),
                    add: 1 << 40,
                }
            } else {
                SendOp::RdmaRead {
                    remote_addr: rmr.addr() + at,
                    rkey: rmr.rkey(),
                }
            },
            sge: Sge {
                addr: lmr.addr() + at,
                length: if atomic { 8 } else { LEN as u32 },
                lkey: lmr.lkey(),
            },
            flags: SendFlags::SIGNALED,
        };
        // SAFETY: both buffers live to the end of the function, after every completion.
        unsafe { p.a.qp.post_send(&wr).unwrap() };
    }
    let mut peak = Peak {
        reads: 0,
        atomics: 0,
        atomic_acks: 0,
        queued: 0,
    };
    let (mut reads, mut atomics) = (0i64, 0i64);
    let mut done = 0;
    let mut wc = [Default::default()];
    for _ in 0..10_000_000 {
        p.fabric.lock().unwrap().run(1);
        {
            let mut f = p.fabric.lock().unwrap();
            peak.queued = peak.queued.max((f.reg_read(0, regs::TX_STATUS) >> 20) & 7);
            for fr in f.take_sent(0) {
                if opcode(&fr) == READ_REQ {
                    reads += 1;
                } else if ATOMIC_REQ.contains(&opcode(&fr)) {
                    reads += 1;
                    atomics += 1;
                }
            }
            for fr in f.take_sent(1) {
                if READ_END.contains(&opcode(&fr)) {
                    reads -= 1;
                } else if opcode(&fr) == ATOMIC_ACK {
                    peak.atomic_acks += 1;
                    reads -= 1;
                    atomics -= 1;
                }
            }
        }
        peak.reads = peak.reads.max(reads);
        peak.atomics = peak.atomics.max(atomics);
        while p.a.send_cq.poll(&mut wc) == 1 {
            let c = wc[0];
            let want = if ops[done] {
                WcOpcode::FetchAdd
            } else {
                WcOpcode::RdmaRead
            };
            assert_eq!(
                (c.wr_id, c.status, c.opcode),
                (done as u64, WcStatus::Success, want),
                "completions in order, each a success"
            );
            done += 1;
        }
        if done == n {
            break;
        }
    }
    assert_eq!(done, n, "every request completed");
    let mut got = vec![0; n * LEN];
    local.read(0, &mut got).unwrap();
    let mut now = vec![0; n * LEN];
    remote.read(0, &mut now).unwrap();
    for (i, &atomic) in ops.iter().enumerate() {
        let r = i * LEN..(i + 1) * LEN;
        if atomic {
            // The original value came back; B's word went up by 2^40.
            assert_eq!(
                got[r.start..r.start + 8],
                data[r.start..r.start + 8],
                "op {i}"
            );
            let old = u64::from_le_bytes(data[r.start..r.start + 8].try_into().unwrap());
            let new = u64::from_le_bytes(now[r.start..r.start + 8].try_into().unwrap());
            assert_eq!(new, old.wrapping_add(1 << 40), "op {i}: added once");
        } else {
            assert!(got[r.clone()] == data[r], "op {i}: READ data differs");
        }
    }
    peak
}

#[test]
fn the_device_offers_a_read_context_queue() {
    let p = Pair::connect(FabricConfig::default(), 1024, 200_000).unwrap();
    let d = p.a.ctx.query_device();
    assert_eq!(d.max_qp_init_rd_atom, regs::RD_ATOMIC_DEPTH as u32);
    assert_eq!(d.max_qp_rd_atom, regs::ATOMIC_RESULTS as u32);
}

fn reads_fill_the_queue_and_no_more(width: Width) {
    let reads = [false; 10];
    for max in [1u8, 2, 4] {
        let peak = run(width, max, &reads);
        assert_eq!(
            peak.reads, max as i64,
            "{width:?}: max_rd_atomic {max}: READs outstanding"
        );
        assert_eq!(
            peak.queued, max as u32,
            "{width:?}: max_rd_atomic {max}: contexts TX_STATUS showed queued"
        );
    }
}

#[test]
fn reads_fill_the_queue_and_no_more_64() {
    reads_fill_the_queue_and_no_more(Width::W64);
}

#[test]
fn reads_fill_the_queue_and_no_more_512() {
    reads_fill_the_queue_and_no_more(Width::W512);
}

/// Atomics count as READs: as many outstanding as max_rd_atomic, alone or mixed with READs. An atomic is
/// answered quicker than the requester issues four, so the atomics alone run over a longer link.
#[test]
fn atomics_fill_the_queue_as_reads_do() {
    for max in [1u8, 2, 4] {
        let peak = run_on(Width::W64, max, &[true; 10], FaultPlan::none(), 1, 1000);
        assert_eq!(
            peak.atomics, max as i64,
            "max_rd_atomic {max}: atomics outstanding"
        );
        assert_eq!(
            peak.reads, max as i64,
            "max_rd_atomic {max}: requests outstanding"
        );
    }
    let ops = [
        true, false, true, false, false, true, true, false, false, false, true,
    ];
    let peak = run(Width::W64, 4, &ops);
    assert_eq!(peak.reads, 4, "READs and atomics share the queue");
    assert!(
        peak.atomics >= 2,
        "two atomics among the READs: {}",
        peak.atomics
    );
}

/// Several atomics outstanding over a link that loses, duplicates and reorders: the responder answers
/// each duplicate from its result cache (4 results), so every original value comes back and every word
/// is added to exactly once (`run` checks both), at both widths.
#[test]
fn atomics_outstanding_survive_loss() {
    for (width, seed) in [(Width::W64, 4), (Width::W512, 5)] {
        let faults = FaultPlan {
            drop_probability: 0.08,
            duplicate_probability: 0.02,
            reorder_probability: 0.02,
            ..FaultPlan::default()
        };
        // 16 operations (the pair's send queue), every fourth a READ.
        let ops: Vec<bool> = (0..16).map(|i| i % 4 != 3).collect();
        let peak = run_on(width, 4, &ops, faults, seed, 100);
        let n = ops.iter().filter(|&&a| a).count() as u64;
        assert!(
            peak.atomic_acks > n,
            "{width:?}: {} ATOMIC ACKNOWLEDGEs for {n} atomics: no duplicate was answered",
            peak.atomic_acks
        );
    }
}
