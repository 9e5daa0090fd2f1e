//! Receive work requests with scatter lists, on co-simulated NICs (hdl host::scatter): SENDs (with and
//! without immediate) land in 2 to 4 buffers at odd addresses, of lengths from 0 to several path MTUs,
//! so packets are cut across buffers and buffers span several packets; a message may leave the list's
//! tail unused. Every byte of every buffer, and everything around them, is checked. A WRITE with
//! immediate consumes a scatter WQE without touching its buffers. Two senders into two QPs of one
//! receiver interleave their multi-packet SENDs (the engine refetches a QP's list when another QP's WQE
//! came between). An RDMA READ's responses scatter over its local list, with frames lost on the way.
//! Then what the driver refuses.
use rocenic_driver::backend::sim::SimBackend;
use rocenic_driver::{
    AccessFlags, Context, Error, QpCaps, QueuePair, RecvRequest, RecvWr, SendFlags, SendOp, SendWr,
    Sge, WcOpcode, WcStatus, WorkCompletion, WorkRequest,
};
use rocenic_sim::{Fabric, FabricConfig, FaultPlan, SwitchConfig, Width};
use rocenic_testkit::pair::{connect_qps, ip, mac, Pair, PairParams};
use std::sync::{Arc, Mutex};

use crate::common::{list_pair, Rng};

const BUDGET: u64 = 2_000_000;
const MTU: u32 = 256;
const REGION: usize = 16384;
const FILL: u8 = 0xEE;

/// A list of `entries` buffers one after another in a region at `base` (its MR `lkey`), at odd gaps,
/// lengths from `lens`, in a shuffled order so the list does not walk memory upwards.
fn list(rng: &mut Rng, base: u64, lkey: u32, entries: usize, lens: &[u64], beat: u64) -> Vec<Sge> {
    let mut v = Vec::new();
    let mut at = 1 + rng.below(beat);
    for _ in 0..entries {
        let len = lens[rng.below(lens.len() as u64) as usize];
        v.push(Sge {
            addr: base + at,
            length: len as u32,
            lkey,
        });
        at += len + 1 + rng.below(2 * beat);
    }
    let turn = rng.below(entries as u64) as usize;
    v.rotate_left(turn);
    v
}

/// What the receive region should hold after `msg` landed in `list` (FILL elsewhere); `base` is the
/// region's address.
fn expected(list: &[Sge], msg: &[u8], base: u64) -> Vec<u8> {
    let mut want = vec![FILL; REGION];
    let mut k = 0;
    for s in list {
        for i in 0..s.length as usize {
            if k == msg.len() {
                return want;
            }
            want[(s.addr - base) as usize + i] = msg[k];
            k += 1;
        }
    }
    assert_eq!(k, msg.len(), "message longer than the list");
    want
}

#[test]
fn sends_scatter_into_the_receive_list_in_order() {
    for width in [Width::W64, Width::W512] {
        let beat = width.bytes() as u64;
        let p = list_pair(width, MTU, 1, 4);
        let src = p.a.ctx.alloc_dma(REGION).unwrap();
        let smr =
            p.a.pd
                .reg_mr(&src, 0, REGION, AccessFlags::LOCAL_WRITE)
                .unwrap();
        let dst = p.b.ctx.alloc_dma(REGION).unwrap();
        let access = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE;
        let dmr = p.b.pd.reg_mr(&dst, 0, REGION, access).unwrap();
        let mut rng = Rng::new(0x5CA7_0001 + beat);
        // Lengths around the beat and the MTU, and empty entries.
        let lens = [0, 1, 3, beat - 1, beat, beat + 1, 100, 255, 256, 257, 700];
        for n in 0..30u64 {
            // 1 to 4 entries (one entry: a 128-byte slot holding the one-buffer format).
            let entries = 1 + (n % 4) as usize;
            let rlist = list(&mut rng, dmr.addr(), dmr.lkey(), entries, &lens, beat);
            let room: u64 = rlist.iter().map(|s| s.length as u64).sum();
            // Mostly the whole list; sometimes a message that leaves its tail unused.
            let total = if n % 3 == 2 {
                room - rng.below(room.min(2 * beat) + 1)
            } else {
                room
            } as usize;
            let msg: Vec<u8> = (0..total)
                .map(|k| (k as u8).wrapping_mul(29).wrapping_add(n as u8 * 5 + 1))
                .collect();
            let soff = rng.below(beat) as usize;
            src.write(soff, &msg).unwrap();
            dst.write(0, &[FILL; REGION]).unwrap();
            let what = format!("{width:?} message {n} of {total} bytes into {rlist:?}");
            let rr = RecvWr {
                wr_id: 100 + n,
                sg_list: &rlist,
            };
            // SAFETY: the buffers outlive the completion polled below.
            unsafe { p.b.qp.post_recv_scatter(&rr).unwrap() };
            let imm = 0xB000 + n as u32;
            let op = if n % 2 == 0 {
                SendOp::Send
            } else {
                SendOp::SendWithImm { imm }
            };
            let wr = WorkRequest {
                wr_id: n,
                op,
                sge: Sge {
                    addr: smr.addr() + soff as u64,
                    length: total as u32,
                    lkey: smr.lkey(),
                },
                flags: SendFlags::SIGNALED,
            };
            // SAFETY: the buffer outlives the completion polled below.
            unsafe { p.a.qp.post_send(&wr).unwrap() };
            let c = p.wait_for(&p.a.send_cq, BUDGET).expect(&what);
            assert_eq!((c.wr_id, c.status), (n, WcStatus::Success), "{what}");
            let r = p.wait_for(&p.b.recv_cq, BUDGET).expect(&what);
            assert_eq!(
                (r.wr_id, r.status, r.opcode, r.byte_len as usize),
                (100 + n, WcStatus::Success, WcOpcode::Recv, total),
                "{what}"
            );
            if n % 2 == 1 {
                assert_eq!(r.imm_data, Some(imm), "{what}: immediate");
            }
            let mut got = vec![0; REGION];
            dst.read(0, &mut got).unwrap();
            let want = expected(&rlist, &msg, dmr.addr());
            if got != want {
                let i = (0..REGION).find(|&i| got[i] != want[i]).unwrap();
                panic!(
                    "{what}: byte {:#x} of the region is {:#04x}, want {:#04x}",
                    i, got[i], want[i]
                );
            }
        }

        // A WRITE with immediate takes a scatter WQE's wr_id; its data goes where the RETH says and
        // the list's buffers stay as they were.
        let rlist = list(&mut rng, dmr.addr(), dmr.lkey(), 3, &[64, 65], beat);
        dst.write(0, &[FILL; REGION]).unwrap();
        src.write(0, &[0x77; 40]).unwrap();
        let rr = RecvWr {
            wr_id: 500,
            sg_list: &rlist,
        };
        let at = REGION as u64 - 100;
        let wr = WorkRequest {
            wr_id: 501,
            op: SendOp::RdmaWriteWithImm {
                remote_addr: dmr.addr() + at,
                rkey: dmr.rkey(),
                imm: 0x1234,
            },
            sge: Sge {
                addr: smr.addr(),
                length: 40,
                lkey: smr.lkey(),
            },
            flags: SendFlags::SIGNALED,
        };
        // SAFETY: the buffers outlive the completions polled below.
        unsafe {
            p.b.qp.post_recv_scatter(&rr).unwrap();
            p.a.qp.post_send(&wr).unwrap();
        }
        let c = p.wait_for(&p.a.send_cq, BUDGET).unwrap();
        assert_eq!(c.status, WcStatus::Success);
        let r = p.wait_for(&p.b.recv_cq, BUDGET).unwrap();
        assert_eq!(
            (r.wr_id, r.opcode, r.imm_data),
            (500, WcOpcode::RecvRdmaWithImm, Some(0x1234))
        );
        let mut got = vec![0; REGION];
        dst.read(0, &mut got).unwrap();
        let mut want = vec![FILL; REGION];
        want[at as usize..at as usize + 40].copy_from_slice(&[0x77; 40]);
        assert!(
            got == want,
            "{width:?}: WRITE with immediate on a scatter WQE"
        );
    }
}

/// Two senders (ports 0 and 1) into two QPs of one receiver (port 2) through a switch: both post
/// multi-packet SENDs at once, so the receiver's packets alternate between its QPs mid-message and each
/// QP's scatter list must be the one its packets use.
#[test]
fn interleaved_sends_of_two_qps_keep_their_own_lists() {
    for width in [Width::W64, Width::W512] {
        let beat = width.bytes() as u64;
        let cfg = FabricConfig {
            width,
            host_mem_bytes: 4 << 20,
            switch: Some(SwitchConfig {
                macs: (0..3).map(mac).collect(),
                shared: vec![],
                bytes_per_cycle: width.bytes() as f64,
                kmin: 1 << 30,
                kmax: 1 << 30,
                pmax: 0.0,
                buffer_bytes: 1 << 20,
                sample_cycles: 1 << 20,
            }),
            ..FabricConfig::default()
        };
        let fabric = Arc::new(Mutex::new(Fabric::new(cfg).unwrap()));
        let open = |port: usize| {
            let ctx = Context::open(Arc::new(SimBackend::new(fabric.clone(), port))).unwrap();
            ctx.set_port(mac(port), ip(port));
            ctx
        };
        let caps = QpCaps {
            max_send_wr: 16,
            max_recv_wr: 16,
            max_send_sge: 1,
            max_recv_sge: 4,
        };
        let rx = open(2);
        let rx_pd = rx.alloc_pd();
        let rx_cq = rx.create_cq(64).unwrap();
        let dst = rx.alloc_dma(REGION).unwrap();
        let access = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE;
        let dmr = rx_pd.reg_mr(&dst, 0, REGION, access).unwrap();
        dst.write(0, &[FILL; REGION]).unwrap();
        let mut rng = Rng::new(0x1A7E_0002 + beat);
        let mut senders = Vec::new();
        let mut want = vec![FILL; REGION];
        for s in 0..2usize {
            let tx = open(s);
            let pd = tx.alloc_pd();
            let cq = tx.create_cq(64).unwrap();
            let qp = QueuePair::create(&pd, &cq, &cq, caps).unwrap();
            let rqp = QueuePair::create(&rx_pd, &rx_cq, &rx_cq, caps).unwrap();
            let psn = 0x100 * (s as u32 + 1);
            let params = PairParams {
                mac: [mac(s), mac(2)],
                ip: [ip(s), ip(2)],
                psn: [psn, psn],
                udp_sport: [0xC000 + (3 * s) as u16, 0xC000 + (4 + s) as u16],
                ..PairParams::new(MTU, 200_000)
            };
            connect_qps([&qp, &rqp], &params).unwrap();
            // Each QP's list in its own half of the receive region: 4 entries, some 10 packets.
            let half = (REGION / 2 * s) as u64;
            let rlist = list(
                &mut rng,
                dmr.addr() + half,
                dmr.lkey(),
                4,
                &[300, 555, 700, 1000],
                beat,
            );
            let total: usize = rlist.iter().map(|e| e.length as usize).sum();
            assert!(
                rlist
                    .iter()
                    .all(|e| e.addr + e.length as u64 <= dmr.addr() + half + REGION as u64 / 2),
                "lists stay in their halves"
            );
            let msg: Vec<u8> = (0..total)
                .map(|k| (k as u8).wrapping_mul(13) ^ (0x40 * s as u8 + 3))
                .collect();
            let w = expected(&rlist, &msg, dmr.addr());
            for i in 0..REGION {
                if w[i] != FILL {
                    want[i] = w[i];
                }
            }
            let src = tx.alloc_dma(total).unwrap();
            src.write(0, &msg).unwrap();
            let smr = pd.reg_mr(&src, 0, total, AccessFlags::LOCAL_WRITE).unwrap();
            // SAFETY: the buffers outlive the completions polled below.
            unsafe {
                rqp.post_recv_scatter(&RecvWr {
                    wr_id: 10 + s as u64,
                    sg_list: &rlist,
                })
                .unwrap()
            };
            senders.push((tx, cq, qp, rqp, src, smr, total));
        }
        for (s, (_, _, qp, _, _, smr, total)) in senders.iter().enumerate() {
            let wr = WorkRequest {
                wr_id: s as u64,
                op: SendOp::Send,
                sge: Sge {
                    addr: smr.addr(),
                    length: *total as u32,
                    lkey: smr.lkey(),
                },
                flags: SendFlags::SIGNALED,
            };
            // SAFETY: the buffer outlives the completion polled below.
            unsafe { qp.post_send(&wr).unwrap() };
        }
        let mut recvs: Vec<WorkCompletion> = Vec::new();
        let mut sent = 0;
        let mut wc = [WorkCompletion::default(); 4];
        for _ in 0..2000 {
            fabric.lock().unwrap().run(1000);
            for (_, cq, ..) in &senders {
                let n = cq.poll(&mut wc);
                for c in &wc[..n] {
                    assert_eq!(c.status, WcStatus::Success, "{width:?} send");
                    sent += 1;
                }
            }
            let n = rx_cq.poll(&mut wc);
            recvs.extend_from_slice(&wc[..n]);
            if sent == 2 && recvs.len() == 2 {
                break;
            }
        }
        assert_eq!((sent, recvs.len()), (2, 2), "{width:?}: completions");
        recvs.sort_by_key(|c| c.wr_id);
        for (s, r) in recvs.iter().enumerate() {
            assert_eq!(
                (r.wr_id, r.status, r.byte_len as usize),
                (10 + s as u64, WcStatus::Success, senders[s].6),
                "{width:?}"
            );
        }
        let mut got = vec![0; REGION];
        dst.read(0, &mut got).unwrap();
        if got != want {
            let i = (0..REGION).find(|&i| got[i] != want[i]).unwrap();
            panic!(
                "{width:?}: byte {:#x} of the region is {:#04x}, want {:#04x}",
                i, got[i], want[i]
            );
        }
    }
}

#[test]
fn reads_scatter_their_responses_over_the_local_list() {
    const READS: u64 = 48;
    // A READ's local buffer as a list of 1 to 4 entries (on a QP with 128-byte send WQEs): its
    // responses land in the entries in order. 5 % of frames dropped, so READs are re-issued from the
    // middle of the message and their responses land from an offset inside the list.
    for width in [Width::W64, Width::W512] {
        let beat = width.bytes() as u64;
        let cfg = FabricConfig {
            width,
            host_mem_bytes: 4 << 20,
            faults: FaultPlan {
                drop_probability: 0.05,
                ..FaultPlan::default()
            },
            seed: 0x5CA7 + beat,
            ..FabricConfig::default()
        };
        let params = PairParams {
            max_send_sge: 4,
            ..PairParams::new(MTU, 20_000)
        };
        let p = Pair::connect_with(cfg, &params).unwrap();
        let src = p.b.ctx.alloc_dma(REGION).unwrap();
        let remote: Vec<u8> = (0..REGION)
            .map(|i| (i as u8).wrapping_mul(29) ^ 0x3C)
            .collect();
        src.write(0, &remote).unwrap();
        let smr =
            p.b.pd
                .reg_mr(&src, 0, REGION, AccessFlags::REMOTE_READ)
                .unwrap();
        let dst = p.a.ctx.alloc_dma(REGION).unwrap();
        let dmr =
            p.a.pd
                .reg_mr(&dst, 0, REGION, AccessFlags::LOCAL_WRITE)
                .unwrap();
        let mut rng = Rng::new(0x4EAD + beat);
        for i in 0..READS {
            dst.write(0, &[FILL; REGION]).unwrap();
            let entries = 1 + (i % 4) as usize;
            let l = list(
                &mut rng,
                dmr.addr(),
                dmr.lkey(),
                entries,
                &[0, 1, 200, 255, 256, 700, 1000],
                beat,
            );
            let total: usize = l.iter().map(|e| e.length as usize).sum();
            let off = rng.below((REGION - total) as u64) as usize;
            let wr = SendWr {
                wr_id: 100 + i,
                op: SendOp::RdmaRead {
                    remote_addr: smr.addr() + off as u64,
                    rkey: smr.rkey(),
                },
                sg_list: &l,
                flags: SendFlags::SIGNALED,
            };
            // SAFETY: `dst` outlives the completion polled below.
            unsafe { p.a.qp.post_send_gather(&wr).unwrap() };
            let wc = p
                .wait_for(&p.a.send_cq, BUDGET)
                .unwrap_or_else(|| panic!("{width:?} READ {i}: no completion"));
            assert_eq!(
                (wc.status, wc.wr_id, wc.opcode),
                (WcStatus::Success, 100 + i, WcOpcode::RdmaRead),
                "{width:?} READ {i}: {wc:?}"
            );
            let want = expected(&l, &remote[off..off + total], dmr.addr());
            let mut got = vec![0; REGION];
            dst.read(0, &mut got).unwrap();
            let bad = (0..REGION).find(|&k| got[k] != want[k]);
            assert!(
                bad.is_none(),
                "{width:?} READ {i} ({total} bytes over {l:?}): first wrong byte at {bad:?}"
            );
        }
        let dropped = p.fabric.lock().unwrap().link_stats().dropped;
        assert!(dropped > 0, "{width:?}: the link dropped no frame");
        eprintln!("{width:?}: {READS} READs, {dropped} frames dropped");
    }
}

#[test]
fn the_driver_refuses_lists_the_qp_cannot_take() {
    let p = list_pair(Width::W64, MTU, 1, 4);
    let buf = p.b.ctx.alloc_dma(4096).unwrap();
    let mr =
        p.b.pd
            .reg_mr(&buf, 0, 4096, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let sge = |at: u64, length: u32| Sge {
        addr: mr.addr() + at,
        length,
        lkey: mr.lkey(),
    };
    let five = [sge(0, 8), sge(8, 8), sge(16, 8), sge(24, 8), sge(32, 8)];
    let wr = |sg_list| RecvWr { wr_id: 1, sg_list };
    // SAFETY (every post below): the device never sees these requests, they are refused first.
    let e = unsafe { p.b.qp.post_recv_scatter(&wr(&five)) };
    assert!(
        matches!(e, Err(Error::TooManySges { given: 5, max: 4 })),
        "{e:?}"
    );
    // The second entry runs past the MR.
    let past = [sge(0, 8), sge(4090, 8)];
    let e = unsafe { p.b.qp.post_recv_scatter(&wr(&past)) };
    assert!(matches!(e, Err(Error::LocalProtection { .. })), "{e:?}");
    // An entry in an MR without LOCAL_WRITE.
    let ro = p.b.ctx.alloc_dma(64).unwrap();
    let romr = p.b.pd.reg_mr(&ro, 0, 64, AccessFlags::default()).unwrap();
    let bad = [
        sge(0, 8),
        Sge {
            addr: romr.addr(),
            length: 8,
            lkey: romr.lkey(),
        },
    ];
    let e = unsafe { p.b.qp.post_recv_scatter(&wr(&bad)) };
    assert!(matches!(e, Err(Error::LocalProtection { .. })), "{e:?}");
    // A QP with max_recv_sge 1 takes one entry; more than 4 cannot be asked for.
    let q = list_pair(Width::W64, MTU, 1, 1);
    let buf1 = q.b.ctx.alloc_dma(64).unwrap();
    let mr1 =
        q.b.pd
            .reg_mr(&buf1, 0, 64, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let two = [
        Sge {
            addr: mr1.addr(),
            length: 8,
            lkey: mr1.lkey(),
        },
        Sge {
            addr: mr1.addr() + 8,
            length: 8,
            lkey: mr1.lkey(),
        },
    ];
    let e = unsafe { q.b.qp.post_recv_scatter(&wr(&two)) };
    assert!(
        matches!(e, Err(Error::TooManySges { given: 2, max: 1 })),
        "{e:?}"
    );
    let e = QueuePair::create(
        &q.b.pd,
        &q.b.send_cq,
        &q.b.recv_cq,
        QpCaps {
            max_send_wr: 4,
            max_recv_wr: 4,
            max_send_sge: 1,
            max_recv_sge: 5,
        },
    );
    assert!(matches!(e, Err(Error::BadAttr(_))), "{:?}", e.err());
    // Nothing was posted: the 4-entry QP still receives (a one-entry receive, 128-byte slot).
    let src = p.a.ctx.alloc_dma(64).unwrap();
    let smr =
        p.a.pd
            .reg_mr(&src, 0, 64, AccessFlags::LOCAL_WRITE)
            .unwrap();
    src.write(0, &[0x5A; 8]).unwrap();
    let rr = RecvRequest {
        wr_id: 9,
        sge: sge(100, 64),
    };
    let one = WorkRequest {
        wr_id: 2,
        op: SendOp::Send,
        sge: Sge {
            addr: smr.addr(),
            length: 8,
            lkey: smr.lkey(),
        },
        flags: SendFlags::SIGNALED,
    };
    // SAFETY: the buffers outlive the completions polled below.
    unsafe {
        p.b.qp.post_recv(&rr).unwrap();
        p.a.qp.post_send(&one).unwrap();
    }
    let c = p.wait_for(&p.a.send_cq, BUDGET).unwrap();
    assert_eq!((c.wr_id, c.status), (2, WcStatus::Success));
    let r = p.wait_for(&p.b.recv_cq, BUDGET).unwrap();
    assert_eq!((r.wr_id, r.byte_len), (9, 8));
    let mut got = [0u8; 8];
    buf.read(100, &mut got).unwrap();
    assert_eq!(got, [0x5A; 8]);
}
