//! The transmit scheduler's turns with several work requests in flight: a QP whose send queue never runs
//! dry must not keep the engine (its outstanding ring would never empty, and the table switches QPs only
//! when it has). Two QPs on one NIC each have 48 WRITEs posted before any completes, the first QP's
//! all first; the second QP's first completion must come within the first QP's first turn of
//! `TURN_WQES` (16) work requests, and the two must then alternate in turns.
use rocenic_driver::backend::sim::SimBackend;
use rocenic_driver::{
    AccessFlags, Context, QpCaps, QueuePair, SendFlags, SendOp, Sge, WcStatus, WorkCompletion,
    WorkRequest,
};
use rocenic_sim::{Fabric, FabricConfig, Width};
use rocenic_testkit::pair::{connect_qps, ip, mac, PairParams};
use std::sync::{Arc, Mutex};

const PER_QP: usize = 48;
const LEN: usize = 64;

#[test]
fn a_qp_that_keeps_posting_does_not_keep_the_engine() {
    let fabric = Arc::new(Mutex::new(
        Fabric::new(FabricConfig {
            width: Width::W64,
            host_mem_bytes: 4 << 20,
            ..FabricConfig::default()
        })
        .unwrap(),
    ));
    let open = |port: usize| {
        let ctx = Context::open(Arc::new(SimBackend::new(fabric.clone(), port))).unwrap();
        ctx.set_port(mac(port), ip(port));
        ctx
    };
    let (a, b) = (open(0), open(1));
    let (pa, pb) = (a.alloc_pd(), b.alloc_pd());
    let (ca, cb) = (a.create_cq(256).unwrap(), b.create_cq(256).unwrap());
    let caps = QpCaps {
        max_send_wr: 64,
        max_recv_wr: 4,
        max_send_sge: 1,
        max_recv_sge: 1,
    };
    let mut qps = Vec::new();
    for i in 0..2 {
        let qa = QueuePair::create(&pa, &ca, &ca, caps).unwrap();
        let qb = QueuePair::create(&pb, &cb, &cb, caps).unwrap();
        let params = PairParams {
            psn: [0x1000 * (i + 1), 0x2000 * (i + 1)],
            udp_sport: [0xC000 + i as u16, 0xC100 + i as u16],
            ..PairParams::new(1024, 200_000)
        };
        connect_qps([&qa, &qb], &params).unwrap();
        qps.push((qa, qb));
    }
    let src = a.alloc_dma(LEN).unwrap();
    src.write(0, &[0x5A; LEN]).unwrap();
    let src_mr = pa.reg_mr(&src, 0, LEN, AccessFlags::LOCAL_WRITE).unwrap();
    let dst = b.alloc_dma(2 * PER_QP * LEN).unwrap();
    let dst_mr = pb
        .reg_mr(
            &dst,
            0,
            2 * PER_QP * LEN,
            AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE,
        )
        .unwrap();
    for (i, (qa, _)) in qps.iter().enumerate() {
        for k in 0..PER_QP {
            let wr = WorkRequest {
                wr_id: (i * PER_QP + k) as u64,
                op: SendOp::RdmaWrite {
                    remote_addr: dst_mr.addr() + ((i * PER_QP + k) * LEN) as u64,
                    rkey: dst_mr.rkey(),
                },
                sge: Sge {
                    addr: src_mr.addr(),
                    length: LEN as u32,
                    lkey: src_mr.lkey(),
                },
                flags: SendFlags::SIGNALED,
            };
            // SAFETY: the source and target regions live until the end of the test, after every
            // completion was polled.
            unsafe { qa.post_send(&wr) }.unwrap();
        }
    }
    // Completions in the order they come: which QP, and each QP's own in posting order.
    let mut order = Vec::new();
    let mut next = [0u64; 2];
    let mut wc = [WorkCompletion::default()];
    for _ in 0..200_000 {
        if order.len() == 2 * PER_QP {
            break;
        }
        a.wait();
        while ca.poll(&mut wc) == 1 {
            let w = wc[0];
            assert_eq!(w.status, WcStatus::Success, "{w:?}");
            let q = (w.wr_id as usize) / PER_QP;
            assert_eq!(
                w.wr_id,
                (q * PER_QP) as u64 + next[q],
                "completions in order per QP"
            );
            next[q] += 1;
            order.push(q);
        }
    }
    assert_eq!(order.len(), 2 * PER_QP, "every WRITE completed");
    let first_of_1 = order.iter().position(|&q| q == 1).unwrap();
    assert!(
        first_of_1 <= 16,
        "QP 1's first completion after {first_of_1} of QP 0's: {order:?}"
    );
    // Turns: runs of one QP's completions, none longer than a turn, and both QPs get several.
    let runs: Vec<usize> = order.chunk_by(|x, y| x == y).map(|r| r.len()).collect();
    assert!(runs.iter().all(|&r| r <= 16), "runs {runs:?}");
    assert!(runs.len() >= 6, "runs {runs:?}");
    let mut got = vec![0u8; 2 * PER_QP * LEN];
    dst.read(0, &mut got).unwrap();
    assert!(got.iter().all(|&x| x == 0x5A), "every WRITE landed");
}
