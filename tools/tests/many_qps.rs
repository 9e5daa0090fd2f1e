//! Many QPs at once on two co-simulated NICs (roce::qp_table): every QP of one NIC connected to its own QP
//! on the other, all with work posted before any completes, traffic in both directions at the same
//! time. Each message carries its QP's own bytes and lands in its QP's own buffer, so a context mixed
//! up between QPs (a PSN, a ring, an address vector, a responder's message state) shows as wrong data,
//! a wrong completion or a stall.
use rocenic_driver::backend::sim::SimBackend;
use rocenic_driver::{
    AccessFlags, CompletionQueue, Context, InitAttrs, QpAttr, QpCaps, QueuePair, RecvRequest,
    RtrAttrs, RtsAttrs, SendFlags, SendOp, Sge, WcOpcode, WcStatus, WorkCompletion, WorkRequest,
    DEFAULT_HOP_LIMIT,
};
use rocenic_sim::{Fabric, FabricConfig, FaultPlan, Width};
use rocenic_testkit::pair::{ip, mac, PSN};
use std::sync::{Arc, Mutex};

/// Bytes per message: two 64-bit beats, and a pattern that differs per QP and direction.
const LEN: usize = 64;

fn pattern(qp: usize, dir: u8) -> Vec<u8> {
    (0..LEN)
        .map(|i| (qp as u8).wrapping_mul(7) ^ (qp >> 8) as u8 ^ (i as u8) ^ dir.wrapping_mul(0x55))
        .collect()
}

struct Side {
    ctx: Context,
    cq: Arc<CompletionQueue>,
    qps: Vec<QueuePair>,
}

/// `n` QPs per NIC, A's QP i connected to B's QP i; A SENDs to B, B WRITEs with immediate to A, every QP
/// at once. Returns the cycles the traffic took.
fn many_qps(width: Width, n: usize, faults: FaultPlan) -> u64 {
    let fabric = Arc::new(Mutex::new(
        Fabric::new(FabricConfig {
            width,
            host_mem_bytes: 16 << 20,
            faults,
            seed: 7,
            ..FabricConfig::default()
        })
        .unwrap(),
    ));
    let mut sides = Vec::new();
    for port in 0..2 {
        let ctx = Context::open(Arc::new(SimBackend::new(fabric.clone(), port))).unwrap();
        ctx.set_port(mac(port), ip(port));
        let pd = ctx.alloc_pd();
        // One CQ for every QP and both directions (2 completions per QP at most outstanding).
        let depth = (2 * n).next_power_of_two();
        let cq = ctx.create_cq(depth).unwrap();
        let qps: Vec<QueuePair> = (0..n)
            .map(|_| {
                let qp = QueuePair::create(
                    &pd,
                    &cq,
                    &cq,
                    QpCaps {
                        max_send_wr: 2,
                        max_recv_wr: 2,
                        max_send_sge: 1,
                        max_recv_sge: 1,
                    },
                )
                .unwrap();
                qp.modify(QpAttr::Init(InitAttrs::default())).unwrap();
                qp
            })
            .collect();
        sides.push((Side { ctx, cq, qps }, pd));
    }
    assert_eq!(
        sides[1].0.qps.last().unwrap().qp_num() as usize,
        0x11 + n - 1,
        "QPNs from 0x11 up"
    );
    // Buffers: message i of this side's sends at i * LEN in `src`, lands at i * LEN in the peer's `dst`.
    let mut mem = Vec::new();
    for (port, (s, pd)) in sides.iter().enumerate() {
        let src = s.ctx.alloc_dma(n * LEN).unwrap();
        let dst = s.ctx.alloc_dma(n * LEN).unwrap();
        for i in 0..n {
            src.write(i * LEN, &pattern(i, port as u8)).unwrap();
        }
        let src_mr = pd
            .reg_mr(&src, 0, n * LEN, AccessFlags::LOCAL_WRITE)
            .unwrap();
        let dst_mr = pd
            .reg_mr(
                &dst,
                0,
                n * LEN,
                AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE,
            )
            .unwrap();
        mem.push((src, dst, src_mr, dst_mr));
    }
    for (port, (s, _)) in sides.iter().enumerate() {
        let peer = 1 - port;
        for (i, qp) in s.qps.iter().enumerate() {
            let peer_qpn = sides[peer].0.qps[i].qp_num();
            // Each QP its own PSNs and UDP source port: contexts must not leak into each other.
            let psn = |p: usize| (PSN[p] + 977 * i as u32) & 0xFF_FFFF;
            qp.modify(QpAttr::Rtr(RtrAttrs {
                path_mtu: 1024,
                dest_qpn: peer_qpn,
                rq_psn: psn(peer),
                dest_mac: mac(peer),
                dest_ip: ip(peer).into(),
                sgid_index: 0,
                udp_sport: 0xC000 + i as u16,
                hop_limit: DEFAULT_HOP_LIMIT,
                flow_label: 0,
                vlan: None,
                min_rnr_timer: 1,
                max_dest_rd_atomic: 4,
                traffic_class: 0,
            }))
            .unwrap();
            qp.modify(QpAttr::Rts(RtsAttrs {
                sq_psn: psn(port),
                timeout: 14,
                retry_cnt: 7,
                rnr_retry: 7,
                max_rd_atomic: 1,
                ack_timeout_cycles: Some(60_000),
            }))
            .unwrap();
            // A receive for the peer's message: B's SEND lands in it, A's WRITE with immediate uses it
            // for its completion.
            let dst = &mem[port].3;
            // SAFETY: the buffers stay registered until the end of the test.
            unsafe {
                qp.post_recv(&RecvRequest {
                    wr_id: (1 << 32) | i as u64,
                    sge: Sge {
                        addr: dst.addr() + (i * LEN) as u64,
                        length: LEN as u32,
                        lkey: dst.lkey(),
                    },
                })
                .unwrap();
            }
        }
    }
    let start = fabric.lock().unwrap().cycles();
    // Every QP's message posted before any completes: all QPs active at once.
    for (port, (s, _)) in sides.iter().enumerate() {
        let peer_dst = &mem[1 - port].3;
        let src = &mem[port].2;
        for (i, qp) in s.qps.iter().enumerate() {
            let op = if port == 0 {
                SendOp::Send
            } else {
                SendOp::RdmaWriteWithImm {
                    remote_addr: peer_dst.addr() + (i * LEN) as u64,
                    rkey: peer_dst.rkey(),
                    imm: 0xA000_0000 | i as u32,
                }
            };
            // SAFETY: as above.
            unsafe {
                qp.post_send(&WorkRequest {
                    wr_id: i as u64,
                    op,
                    sge: Sge {
                        addr: src.addr() + (i * LEN) as u64,
                        length: LEN as u32,
                        lkey: src.lkey(),
                    },
                    flags: SendFlags::SIGNALED,
                })
                .unwrap();
            }
        }
    }
    // 2n completions per side: n sends, n receives.
    let mut seen = [vec![[false; 2]; n], vec![[false; 2]; n]];
    let mut left = 4 * n;
    let mut wc = vec![WorkCompletion::default(); 256];
    let budget = 2_000 * n as u64 + 5_000_000;
    while left > 0 {
        let now = fabric.lock().unwrap().cycles();
        assert!(
            now - start < budget,
            "{left} completions missing after {} cycles",
            now - start
        );
        for (port, (s, _)) in sides.iter().enumerate() {
            let got = s.cq.poll(&mut wc);
            for w in &wc[..got] {
                assert_eq!(w.status, WcStatus::Success, "port {port}: {w:?}");
                let i = (w.qp_num - 0x11) as usize;
                assert_eq!(w.qp_num, s.qps[i].qp_num());
                let recv = w.opcode == WcOpcode::Recv || w.opcode == WcOpcode::RecvRdmaWithImm;
                assert_eq!(w.wr_id & 0xFFFF_FFFF, i as u64, "port {port} QP {i}: {w:?}");
                if recv {
                    assert_eq!(w.byte_len as usize, LEN);
                    if port == 0 {
                        assert_eq!(w.opcode, WcOpcode::RecvRdmaWithImm);
                        assert_eq!(w.imm_data, Some(0xA000_0000 | i as u32));
                    } else {
                        assert_eq!(w.opcode, WcOpcode::Recv);
                    }
                }
                let k = recv as usize;
                assert!(
                    !seen[port][i][k],
                    "port {port} QP {i}: a second completion {w:?}"
                );
                seen[port][i][k] = true;
                left -= 1;
            }
        }
        sides[0].0.ctx.wait();
    }
    let cycles = fabric.lock().unwrap().cycles() - start;
    for port in 0..2 {
        let dst = &mem[port].1;
        for i in 0..n {
            let mut got = vec![0; LEN];
            dst.read(i * LEN, &mut got).unwrap();
            assert_eq!(
                got,
                pattern(i, 1 - port as u8),
                "port {port}: QP {i}'s buffer"
            );
        }
        let ctx = &sides[port].0.ctx;
        let switches = ctx
            .counters()
            .into_iter()
            .find(|(name, _)| name == "qp_context_switches")
            .unwrap()
            .1;
        assert!(
            switches as usize >= n,
            "port {port}: {switches} context switches for {n} QPs"
        );
    }
    cycles
}

/// Three minutes of co-simulation; 300 QPs under loss at 512 bits stand in for it in the job.
#[test]
#[ignore = "long: scripts/test.sh --full"]
fn qps_4096_active_at_once_deliver_in_both_directions() {
    let n = 4096;
    let cycles = many_qps(Width::W64, n, FaultPlan::default());
    eprintln!("{n} QPs each way: {cycles} cycles");
}

#[test]
fn many_qps_recover_from_loss_at_512_bits() {
    // Go-back-N and timeouts per QP with other QPs' traffic in between.
    let faults = FaultPlan {
        drop_probability: 0.02,
        reorder_probability: 0.01,
        reorder_cycles: 300,
        ..FaultPlan::default()
    };
    many_qps(Width::W512, 300, faults);
}
