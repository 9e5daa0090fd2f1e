//! A storm of malformed frames into two NICs with live QPs and MRs: the frames of every opcode a running
//! pair exchanged (WRITE, SEND, READ and its responses, both atomics and their acknowledgements, ACKs),
//! mutated by `rocenic_proto::mutate` (bit flips in every header, extreme values, truncation, extension,
//! inserted and removed bytes), half with the ICRC left (dropped by it), half resealed (forged but valid:
//! they reach the transport's checks), some replayed unchanged (duplicates), each into the NIC it was
//! addressed to. Nothing may hang or DMA outside the registered memory (the simulated host fails the run),
//! every frame received must be counted once by the receive counters, and a WRITE on new QPs completes
//! afterwards.
//!
//! Forged but valid frames may legitimately move a QP to ERR (IBA §9.9.3): a request the responder cannot
//! execute (remote access error: a bad R_Key, PD, bounds or access; invalid request: an opcode out of
//! sequence, a length that does not match) NAKs and puts the responder's QP in ERR, and a fatal NAK
//! completes the requester's work request in error. So the WRITE afterwards runs on a new pair of QPs.
//!
//! The test job sends `ROCENIC_STORM_FRAMES` (default 10,000) frames per width;
//! `ROCENIC_STORM_FRAMES=100000` is the long run (docs/robustness.md).
use crate::common::{run_one, second_qps, Rng};
use rocenic_driver::{AccessFlags, RecvRequest, SendOp, Sge, WcStatus};
use rocenic_proto::mutate::{mutate, Icrc};
use rocenic_proto::regs;
use rocenic_sim::{FabricConfig, Width};
use rocenic_testkit::pair::{Pair, PairParams};

/// RX_FRAMES and the counters that account for every frame received: taken as RoCE, or dropped for one
/// reason each.
const ACCOUNTED: [(&str, u16); 7] = [
    ("RX_ROCE_PACKETS", regs::RX_ROCE_PACKETS),
    ("RX_ICRC_ERRORS", regs::RX_ICRC_ERRORS),
    ("RX_DROP_NOT_ROCE", regs::RX_DROP_NOT_ROCE),
    ("RX_DROP_OVERFLOW", regs::RX_DROP_OVERFLOW),
    ("RX_IP_CHECKSUM_ERRORS", regs::RX_IP_CHECKSUM_ERRORS),
    ("RX_DROP_LOSSY", regs::RX_DROP_LOSSY),
    ("RX_FCS_ERRORS", regs::RX_FCS_ERRORS),
];

fn accounting(p: &Pair, port: usize) -> (u32, Vec<(&'static str, u32)>) {
    let mut f = p.fabric.lock().unwrap();
    let rx = f.reg_read(port, regs::RX_FRAMES);
    let parts = ACCOUNTED
        .iter()
        .map(|&(n, r)| (n, f.reg_read(port, r)))
        .collect();
    (rx, parts)
}

fn check_accounting(p: &Pair, when: &str) {
    for port in 0..2 {
        let (rx, parts) = accounting(p, port);
        let sum: u32 = parts.iter().map(|(_, v)| v).sum();
        assert_eq!(
            rx, sum,
            "{when}: port {port} RX_FRAMES {rx} against {parts:?}"
        );
    }
}

/// The pair's frames of every opcode: A does a 3-packet WRITE, a SEND, a 3-packet READ and both
/// atomics on B's memory.
fn corpus(p: &Pair) -> [Vec<Vec<u8>>; 2] {
    let len = 4096;
    let local = p.a.ctx.alloc_dma(len).unwrap();
    let remote = p.b.ctx.alloc_dma(len).unwrap();
    let rbuf = p.b.ctx.alloc_dma(len).unwrap();
    let lmr =
        p.a.pd
            .reg_mr(&local, 0, len, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let all = AccessFlags::LOCAL_WRITE
        | AccessFlags::REMOTE_WRITE
        | AccessFlags::REMOTE_READ
        | AccessFlags::REMOTE_ATOMIC;
    let rmr = p.b.pd.reg_mr(&remote, 0, len, all).unwrap();
    let bmr =
        p.b.pd
            .reg_mr(&rbuf, 0, len, AccessFlags::LOCAL_WRITE)
            .unwrap();
    p.fabric.lock().unwrap().record_frames();
    // SAFETY: the buffers and MRs live until the end of this function, after every completion.
    unsafe {
        p.b.qp
            .post_recv(&RecvRequest {
                wr_id: 9,
                sge: Sge {
                    addr: bmr.addr(),
                    length: len as u32,
                    lkey: bmr.lkey(),
                },
            })
            .unwrap();
    }
    let ops = [
        (
            SendOp::RdmaWrite {
                remote_addr: rmr.addr(),
                rkey: rmr.rkey(),
            },
            3000,
        ),
        (SendOp::Send, 100),
        (
            SendOp::RdmaRead {
                remote_addr: rmr.addr(),
                rkey: rmr.rkey(),
            },
            2500,
        ),
        (
            SendOp::AtomicFetchAdd {
                remote_addr: rmr.addr(),
                rkey: rmr.rkey(),
                add: 5,
            },
            8,
        ),
        (
            SendOp::AtomicCmpSwap {
                remote_addr: rmr.addr() + 8,
                rkey: rmr.rkey(),
                compare: 0,
                swap: 7,
            },
            8,
        ),
    ];
    for (op, n) in ops {
        assert_eq!(run_one(p, op, &lmr, 0, n), WcStatus::Success, "{op:?}");
    }
    let mut f = p.fabric.lock().unwrap();
    let c = [f.take_sent(0), f.take_sent(1)];
    assert!(
        c[0].len() >= 7 && c[1].len() >= 6,
        "frames {} and {}",
        c[0].len(),
        c[1].len()
    );
    c
}

fn storm(width: Width, frames: usize, seed: u64) {
    let p = Pair::connect_with(
        FabricConfig {
            width,
            host_mem_bytes: 4 << 20,
            ..FabricConfig::default()
        },
        &PairParams::new(1024, 20_000),
    )
    .unwrap();
    let sent = corpus(&p);
    check_accounting(&p, "before the storm");
    let mut rng = Rng::new(seed);
    let beat = p.a.ctx.beat_bytes() as u64;
    let mut injected = [0u64; 2];
    let mut batch_bytes = 0u64;
    for i in 0..frames {
        // A frame A sent goes to B as if A had sent it again, and one B sent to A.
        let from = rng.below(2) as usize;
        let mut f = sent[from][rng.below(sent[from].len() as u64) as usize].clone();
        match rng.below(16) {
            0 => {} // replayed unchanged: a duplicate
            k => {
                let icrc = if k % 2 == 0 {
                    Icrc::Left
                } else {
                    Icrc::Resealed
                };
                mutate(&mut || rng.next(), &mut f, icrc);
            }
        }
        if f.is_empty() {
            continue;
        }
        batch_bytes += f.len() as u64;
        injected[1 - from] += 1;
        p.fabric.lock().unwrap().inject_frame(from, f);
        // Eight frames at a time, then time to take them.
        if i % 8 == 7 {
            p.fabric.lock().unwrap().run(batch_bytes / beat + 8 * 16);
            batch_bytes = 0;
        }
    }
    p.fabric.lock().unwrap().run(50_000);
    check_accounting(&p, "after the storm");
    // A WRITE on new QPs completes and lands.
    let (q, w) = second_qps(
        &p,
        16 << 10,
        &PairParams {
            udp_sport: [0xC200, 0xC201],
            ..PairParams::new(1024, 20_000)
        },
        2,
    );
    // SAFETY: `w` holds the buffers and MRs until its completion is checked.
    unsafe { q[0].post_send(&w.wr).unwrap() };
    let wc = p.wait_for(&p.a.send_cq, 1_000_000);
    let wc = loop {
        // Completions of the old QPs (flushed by a forged fatal NAK) may come first.
        match wc {
            Some(c) if c.wr_id == 2 => break c,
            _ => match p.wait_for(&p.a.send_cq, 1_000_000) {
                Some(c) if c.wr_id == 2 => break c,
                Some(_) => continue,
                None => panic!("{width:?}: no completion for the WRITE after the storm"),
            },
        }
    };
    assert_eq!(wc.status, WcStatus::Success, "{width:?}");
    let mut got = vec![0; w.data.len()];
    w.dst.read(0, &mut got).unwrap();
    assert!(got == w.data, "{width:?}: data differs");
    let states = [p.a.qp.query(), p.b.qp.query()];
    let mut f = p.fabric.lock().unwrap();
    eprintln!(
        "{width:?}: {} frames into A, {} into B; the first QPs end {states:?}; A: ICRC errors {}, \
         not RoCE {}, QP drops {}; B: ICRC errors {}, not RoCE {}, QP drops {}, remote access errors {}",
        injected[0],
        injected[1],
        f.reg_read(0, regs::RX_ICRC_ERRORS),
        f.reg_read(0, regs::RX_DROP_NOT_ROCE),
        f.reg_read(0, regs::RX_DROP_QP),
        f.reg_read(1, regs::RX_ICRC_ERRORS),
        f.reg_read(1, regs::RX_DROP_NOT_ROCE),
        f.reg_read(1, regs::RX_DROP_QP),
        f.reg_read(1, regs::RX_REMOTE_ACCESS_ERRORS),
    );
}

fn frames() -> usize {
    std::env::var("ROCENIC_STORM_FRAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

#[test]
fn malformed_frame_storm_64() {
    storm(Width::W64, frames(), 64);
}

#[test]
fn malformed_frame_storm_512() {
    storm(Width::W512, frames(), 512);
}
