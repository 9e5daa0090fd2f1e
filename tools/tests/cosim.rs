//! The verbs driver against two co-simulated NICs (Verilated RTL): data lands byte for byte, lost or
//! corrupted frames are recovered by go-back-N, remote errors complete with the right status and flush the
//! rest, and a SEND without a posted receive waits (RNR) until one is posted.
use rocenic_driver::{
    AccessFlags, DmaRegion, MemoryRegion, ModifyAttrs, QpAttr, QpState, RecvRequest, SendFlags,
    SendOp, Sge, WcOpcode, WcStatus, WorkRequest,
};
use rocenic_sim::{FabricConfig, Fault, FaultPlan, Width};
use rocenic_testkit::pair::Pair;

const BUDGET: u64 = 2_000_000;

fn cfg(width: Width, faults: FaultPlan) -> FabricConfig {
    FabricConfig {
        width,
        host_mem_bytes: 4 << 20,
        faults,
        ..FabricConfig::default()
    }
}

fn pattern(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| {
            (i as u8)
                .wrapping_mul(31)
                .wrapping_add(seed ^ (i >> 9) as u8)
        })
        .collect()
}

struct Bufs {
    _src: DmaRegion,
    dst: DmaRegion,
    src_mr: MemoryRegion,
    dst_mr: MemoryRegion,
}

fn bufs(p: &Pair, len: usize, data: &[u8]) -> Bufs {
    let src = p.a.ctx.alloc_dma(len).unwrap();
    let dst = p.b.ctx.alloc_dma(len).unwrap();
    src.write(0, data).unwrap();
    let src_mr =
        p.a.pd
            .reg_mr(&src, 0, len, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let dst_mr =
        p.b.pd
            .reg_mr(
                &dst,
                0,
                len,
                AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE,
            )
            .unwrap();
    Bufs {
        _src: src,
        dst,
        src_mr,
        dst_mr,
    }
}

/// A 1 KiB receive buffer at B, registered for local write.
fn receive_buffer(p: &Pair) -> (DmaRegion, MemoryRegion) {
    let rbuf = p.b.ctx.alloc_dma(1024).unwrap();
    let rmr =
        p.b.pd
            .reg_mr(&rbuf, 0, 1024, AccessFlags::LOCAL_WRITE)
            .unwrap();
    (rbuf, rmr)
}

/// Posts `mr` as a receive at B.
///
/// # Safety
/// The buffer must outlive the receive's completion.
unsafe fn post_receive(p: &Pair, mr: &MemoryRegion, wr_id: u64) {
    let sge = Sge {
        addr: mr.addr(),
        length: mr.len() as u32,
        lkey: mr.lkey(),
    };
    // SAFETY: forwarded to the caller.
    unsafe { p.b.qp.post_recv(&RecvRequest { wr_id, sge }).unwrap() };
}

fn write_wr(b: &Bufs, len: usize, rkey: u32) -> WorkRequest {
    WorkRequest {
        wr_id: 7,
        op: SendOp::RdmaWrite {
            remote_addr: b.dst_mr.addr(),
            rkey,
        },
        sge: Sge {
            addr: b.src_mr.addr(),
            length: len as u32,
            lkey: b.src_mr.lkey(),
        },
        flags: SendFlags::SIGNALED,
    }
}

fn counter(p: &Pair, side: usize, name: &str) -> u64 {
    let ctx = if side == 0 { &p.a.ctx } else { &p.b.ctx };
    ctx.counters()
        .into_iter()
        .find(|(k, _)| k == name)
        .unwrap()
        .1
}

/// A multi-packet WRITE (FIRST/MIDDLE/LAST with a short last packet), then a SEND, on both widths.
#[test]
fn write_and_send_arrive_byte_for_byte() {
    for width in [Width::W64, Width::W512] {
        let p = Pair::connect(cfg(width, FaultPlan::none()), 1024, 20_000).unwrap();
        let len = 5 * 1024 + 320;
        let data = pattern(len, 1);
        let b = bufs(&p, len, &data);
        let (rbuf, rmr) = receive_buffer(&p);
        // SAFETY: all buffers outlive the completions polled below.
        unsafe {
            post_receive(&p, &rmr, 9);
            p.a.qp
                .post_send(&write_wr(&b, len, b.dst_mr.rkey()))
                .unwrap();
            p.a.qp
                .post_send(&WorkRequest {
                    wr_id: 8,
                    op: SendOp::Send,
                    sge: Sge {
                        addr: b.src_mr.addr(),
                        length: 200,
                        lkey: b.src_mr.lkey(),
                    },
                    flags: SendFlags::SIGNALED,
                })
                .unwrap();
        }
        let w = p.wait_for(&p.a.send_cq, BUDGET).expect("WRITE completion");
        assert_eq!(
            (w.wr_id, w.status, w.opcode),
            (7, WcStatus::Success, WcOpcode::RdmaWrite),
            "{width:?}"
        );
        let s = p.wait_for(&p.a.send_cq, BUDGET).expect("SEND completion");
        assert_eq!(
            (s.wr_id, s.status, s.opcode),
            (8, WcStatus::Success, WcOpcode::Send),
            "{width:?}"
        );
        let r = p.wait_for(&p.b.recv_cq, BUDGET).expect("RECV completion");
        assert_eq!(
            (r.wr_id, r.status, r.opcode, r.byte_len),
            (9, WcStatus::Success, WcOpcode::Recv, 200),
            "{width:?}"
        );
        assert_eq!(r.src_qp, p.a.qp.qp_num(), "{width:?}");
        let mut got = vec![0; len];
        b.dst.read(0, &mut got).unwrap();
        assert!(got == data, "{width:?}: WRITE data differs");
        let mut got = vec![0; 200];
        rbuf.read(0, &mut got).unwrap();
        assert_eq!(got, data[..200], "{width:?}: SEND data differs");
        // 6 WRITE packets and a SEND from A; B acknowledged them.
        assert_eq!(counter(&p, 1, "rx_roce_packets"), 7, "{width:?}");
        assert!(counter(&p, 0, "rx_acks") >= 2, "{width:?}");
    }
}

/// One corrupted frame in the middle of a WRITE: B drops and counts it, NAKs the next one (PSN sequence
/// error), A goes back to that PSN; the data still arrives intact. The last frame corrupted instead:
/// no NAK can follow, so A's local ACK timeout resends it.
#[test]
fn corrupted_frames_are_recovered() {
    for (frame, nak) in [(2u64, true), (5u64, false)] {
        let faults = FaultPlan::none().flip_bit(0, frame, 8 * 100 + 3);
        let p = Pair::connect(cfg(Width::W64, faults), 1024, 5_000).unwrap();
        let len = 6 * 1024;
        let data = pattern(len, 2);
        let b = bufs(&p, len, &data);
        // SAFETY: the buffers outlive the completion polled below.
        unsafe {
            p.a.qp
                .post_send(&write_wr(&b, len, b.dst_mr.rkey()))
                .unwrap()
        };
        let w = p.wait_for(&p.a.send_cq, BUDGET).expect("WRITE completion");
        assert_eq!(w.status, WcStatus::Success);
        let mut got = vec![0; len];
        b.dst.read(0, &mut got).unwrap();
        assert!(got == data, "frame {frame}: data differs after recovery");
        assert_eq!(counter(&p, 1, "rx_icrc_errors"), 1, "frame {frame}");
        assert_eq!(counter(&p, 0, "retransmits"), 1, "frame {frame}");
        if nak {
            assert_eq!(counter(&p, 0, "rx_naks"), 1);
            assert!(counter(&p, 1, "rx_seq_errors") >= 1);
        } else {
            assert_eq!(counter(&p, 0, "ack_timeouts"), 1);
        }
        assert_eq!(p.a.qp.query(), QpState::Rts);
    }
}

/// A WRITE with a wrong rkey: B NAKs with a remote access error and enters ERR (its posted receive is
/// flushed); A completes the WRITE with REM_ACCESS_ERR, enters ERR and flushes the SEND queued behind it.
#[test]
fn a_remote_access_error_completes_and_flushes() {
    let p = Pair::connect(cfg(Width::W64, FaultPlan::none()), 1024, 20_000).unwrap();
    let data = pattern(256, 3);
    let b = bufs(&p, 256, &data);
    let (_rbuf, rmr) = receive_buffer(&p);
    // SAFETY: all buffers outlive the completions polled below.
    unsafe {
        post_receive(&p, &rmr, 50);
        p.a.qp
            .post_send(&write_wr(&b, 256, b.dst_mr.rkey() ^ 0x80))
            .unwrap();
        let mut send = write_wr(&b, 64, b.dst_mr.rkey());
        send.wr_id = 8;
        send.op = SendOp::Send;
        p.a.qp.post_send(&send).unwrap();
    }
    let w = p.wait_for(&p.a.send_cq, BUDGET).expect("WRITE completion");
    assert_eq!(
        (w.wr_id, w.status, w.vendor_err),
        (7, WcStatus::RemAccessErr, 0x62)
    );
    let f = p.wait_for(&p.a.send_cq, BUDGET).expect("flushed SEND");
    assert_eq!((f.wr_id, f.status), (8, WcStatus::WrFlushErr));
    assert_eq!(p.a.qp.query(), QpState::Err);
    assert_eq!(p.b.qp.query(), QpState::Err);
    let r = p.wait_for(&p.b.recv_cq, 1000).expect("flushed receive");
    assert_eq!(
        (r.wr_id, r.status, r.opcode),
        (50, WcStatus::WrFlushErr, WcOpcode::Recv)
    );
    let mut got = vec![0; 256];
    b.dst.read(0, &mut got).unwrap();
    assert!(
        got.iter().all(|&x| x == 0),
        "nothing may be written with a bad rkey"
    );
    assert_eq!(counter(&p, 1, "rx_remote_access_errors"), 1);
    // The simulator's DMA firewall knows B's MR (writable) and rings: every DMA in these tests is
    // checked against what the driver registered.
    let grants = p.fabric.lock().unwrap().memory(1).grants();
    assert!(grants
        .iter()
        .any(|g| g.iova == b.dst_mr.addr() && g.len == 256 && g.write));
    assert!(grants.len() >= 4, "three rings and the MRs: {grants:x?}");
    assert_eq!(counter(&p, 1, "flushed_wqes"), 1);
    assert_eq!(counter(&p, 0, "flushed_wqes"), 1);
    // The same events under rdma-core's names.
    let rdma = |ctx: &rocenic_driver::Context, n: &str| {
        ctx.rdma_counters()
            .into_iter()
            .find(|(k, _)| *k == n)
            .unwrap()
            .1
    };
    assert_eq!(rdma(&p.a.ctx, "req_remote_access_errors"), 1);
    assert_eq!(rdma(&p.a.ctx, "req_cqe_error"), 1);
    assert_eq!(rdma(&p.a.ctx, "req_cqe_flush_error"), 1);
    assert_eq!(rdma(&p.a.ctx, "resp_cqe_flush_error"), 0);
    assert_eq!(rdma(&p.b.ctx, "resp_remote_access_errors"), 1);
    assert_eq!(rdma(&p.b.ctx, "resp_cqe_flush_error"), 1);
    assert_eq!(rdma(&p.b.ctx, "req_cqe_error"), 0);
}

/// A SEND before B has posted a receive is answered with RNR NAKs; A keeps retrying, and once B posts a
/// receive the SEND lands.
#[test]
fn send_without_a_receive_waits_for_one() {
    let p = Pair::connect(cfg(Width::W64, FaultPlan::none()), 1024, 3_000).unwrap();
    let data = pattern(128, 4);
    let b = bufs(&p, 128, &data);
    let (rbuf, rmr) = receive_buffer(&p);
    let mut send = write_wr(&b, 128, 0);
    send.op = SendOp::Send;
    // SAFETY: all buffers outlive the completions polled below.
    unsafe { p.a.qp.post_send(&send).unwrap() };
    assert!(
        p.wait_for(&p.a.send_cq, 20_000).is_none(),
        "no receive posted: the SEND cannot complete"
    );
    assert!(counter(&p, 0, "rx_naks") >= 2, "RNR NAKs");
    // The responder sends them with its MIN_RNR_TIMER (1: 10 us = 1563 cycles); A waits that long each
    // time, so 20,000 cycles hold at most about a dozen.
    // `seen` first: a counter read takes cycles in which B may send another, so read in this order
    // `seen <= sent` holds however long reads take.
    let seen = counter(&p, 0, "rx_rnr_naks");
    let sent = counter(&p, 1, "tx_rnr_naks");
    assert!(
        seen >= 2 && seen <= sent && sent <= 14,
        "RNR NAKs sent {sent}, seen {seen}"
    );
    unsafe {
        post_receive(&p, &rmr, 51);
    }
    let s = p.wait_for(&p.a.send_cq, BUDGET).expect("SEND completion");
    assert_eq!(s.status, WcStatus::Success);
    let r = p.wait_for(&p.b.recv_cq, BUDGET).expect("RECV completion");
    assert_eq!((r.wr_id, r.byte_len), (51, 128));
    let mut got = vec![0; 128];
    rbuf.read(0, &mut got).unwrap();
    assert_eq!(got, data);
}

/// A zero-length WRITE carries no payload and touches no memory: the responder does not check its R_Key
/// (IBA C9-88), so even an unknown key completes successfully.
#[test]
fn a_zero_length_write_needs_no_rkey() {
    let p = Pair::connect(cfg(Width::W512, FaultPlan::none()), 1024, 20_000).unwrap();
    let b = bufs(&p, 64, &[0; 64]);
    // SAFETY: the buffers outlive the completion polled below.
    unsafe { p.a.qp.post_send(&write_wr(&b, 0, 0xBAD)).unwrap() };
    let w = p.wait_for(&p.a.send_cq, BUDGET).expect("WRITE completion");
    assert_eq!((w.wr_id, w.status), (7, WcStatus::Success));
    assert_eq!(p.b.qp.query(), QpState::Rts);
    assert_eq!(counter(&p, 1, "rx_remote_access_errors"), 0);
}

/// Message sizes that are not multiples of the beat or the MTU, every MTU class, and seeded random
/// corruption of frames in both directions (so ACKs are lost too and duplicates get re-ACKed).
#[test]
fn sizes_mtus_and_random_corruption() {
    let cases = [
        (Width::W64, 256, 1000, 0.0, 1),
        (Width::W512, 256, 4097, 0.0, 1),
        (Width::W512, 512, 3, 0.0, 1),
        (Width::W64, 2048, 100_003, 0.05, 7),
        (Width::W512, 4096, 300_000, 0.05, 3),
    ];
    for (width, mtu, len, corrupt, seed) in cases {
        let mut c = cfg(width, FaultPlan::none().random(corrupt, 0.0));
        c.seed = seed;
        let p = Pair::connect(c, mtu, 5_000).unwrap();
        let data = pattern(len, seed as u8);
        let b = bufs(&p, len, &data);
        // SAFETY: the buffers outlive the completion polled below.
        unsafe {
            p.a.qp
                .post_send(&write_wr(&b, len, b.dst_mr.rkey()))
                .unwrap()
        };
        let w = p.wait_for(&p.a.send_cq, 4 * BUDGET);
        let w = w.unwrap_or_else(|| panic!("{width:?} mtu {mtu} len {len}: no completion"));
        assert_eq!(w.status, WcStatus::Success, "{width:?} mtu {mtu} len {len}");
        let mut got = vec![0; len];
        b.dst.read(0, &mut got).unwrap();
        assert!(got == data, "{width:?} mtu {mtu} len {len}: data differs");
        if corrupt > 0.0 {
            assert!(
                counter(&p, 0, "retransmits") > 0,
                "{width:?}: corruption should have forced a retransmission"
            );
        }
    }
}

/// Multi-packet SENDs (FIRST/MIDDLE/LAST): sizes around MTU multiples, on both widths, one case with a
/// dropped MIDDLE packet so the message is resumed from the NAK'd PSN, not from its first packet. Each
/// lands in its own receive buffer with the right byte_len.
#[test]
fn multi_packet_sends_land_in_the_receive_buffer() {
    let cases = [
        (Width::W64, 256, 4097, FaultPlan::none()),
        (Width::W64, 1024, 3 * 1024, FaultPlan::none()),
        (Width::W64, 4096, 64 << 10, FaultPlan::none()),
        (Width::W512, 1024, 1025, FaultPlan::none()),
        (Width::W64, 512, 5000, FaultPlan::none().drop_frame(0, 3)),
    ];
    for (width, mtu, len, faults) in cases {
        let what = format!("{width:?} mtu {mtu} len {len}");
        let p = Pair::connect(cfg(width, faults.clone()), mtu, 20_000).unwrap();
        let data = pattern(len, len as u8);
        let b = bufs(&p, len, &data);
        // The receive buffer is larger than the message: byte_len must say how much arrived.
        let rbuf = p.b.ctx.alloc_dma(len + 512).unwrap();
        rbuf.write(0, &vec![0xEE; len + 512]).unwrap();
        let rmr =
            p.b.pd
                .reg_mr(&rbuf, 0, len + 512, AccessFlags::LOCAL_WRITE)
                .unwrap();
        let mut send = write_wr(&b, len, 0);
        send.op = SendOp::Send;
        // SAFETY: buffers outlive the completions polled below.
        unsafe {
            post_receive(&p, &rmr, 42);
            p.a.qp.post_send(&send).unwrap();
        }
        let s = p.wait_for(&p.a.send_cq, 20 * BUDGET).expect(&what);
        assert_eq!(
            (s.status, s.opcode),
            (WcStatus::Success, WcOpcode::Send),
            "{what}"
        );
        let r = p.wait_for(&p.b.recv_cq, BUDGET).expect(&what);
        assert_eq!(
            (r.status, r.wr_id, r.byte_len),
            (WcStatus::Success, 42, len as u32),
            "{what}"
        );
        let mut got = vec![0; len + 512];
        rbuf.read(0, &mut got).unwrap();
        assert!(got[..len] == data[..], "{what}: data differs");
        assert!(
            got[len..].iter().all(|&x| x == 0xEE),
            "{what}: wrote past the message"
        );
        if faults != FaultPlan::none() {
            assert!(
                counter(&p, 1, "rx_seq_errors") > 0,
                "{what}: the drop was noticed"
            );
        }
    }
}

/// A SEND longer than the receive buffer: B answers the packet that overflows with an invalid-request NAK
/// (§9.7.5.1.4) and enters ERR; A completes with REM_INV_REQ_ERR.
#[test]
fn a_send_longer_than_the_receive_buffer_is_refused() {
    let p = Pair::connect(cfg(Width::W64, FaultPlan::none()), 256, 20_000).unwrap();
    let data = pattern(2000, 9);
    let b = bufs(&p, 2000, &data);
    let (_rbuf, rmr) = receive_buffer(&p); // 1 KiB
    let mut send = write_wr(&b, 2000, 0);
    send.op = SendOp::Send;
    // SAFETY: buffers outlive the completions polled below.
    unsafe {
        post_receive(&p, &rmr, 5);
        p.a.qp.post_send(&send).unwrap();
    }
    let s = p.wait_for(&p.a.send_cq, BUDGET).expect("SEND completion");
    assert_eq!((s.status, s.vendor_err), (WcStatus::RemInvReqErr, 0x61));
    assert_eq!(p.b.qp.query(), QpState::Err);
    let r = p
        .wait_for(&p.b.recv_cq, BUDGET)
        .expect("receive completion");
    assert_eq!((r.wr_id, r.status), (5, WcStatus::WrFlushErr));
}

/// RDMA READ: A reads B's registered buffer into its own. Sizes from 0 to 64 KiB around MTU multiples, on
/// both widths; with a middle READ response dropped (the next one is an implied NAK: A re-issues the READ
/// for the rest at once, from the missing PSN, with no ACK timeout), with the last response dropped and
/// with the READ request itself dropped (nothing follows them: the ACK timeout re-issues the READ).
#[test]
fn rdma_reads_fetch_the_remote_buffer() {
    let cases = [
        (Width::W64, 256, 0, FaultPlan::none()),
        (Width::W64, 256, 8, FaultPlan::none()),
        (Width::W64, 256, 4097, FaultPlan::none()),
        (Width::W64, 4096, 64 << 10, FaultPlan::none()),
        (Width::W512, 1024, 3000, FaultPlan::none()),
        (Width::W64, 512, 5000, FaultPlan::none().drop_frame(1, 4)),
        (Width::W512, 256, 2560, FaultPlan::none().drop_frame(1, 0)),
        (Width::W64, 512, 5000, FaultPlan::none().drop_frame(1, 9)),
        (Width::W64, 1024, 2048, FaultPlan::none().drop_frame(0, 0)),
    ];
    for (width, mtu, len, faults) in cases {
        // B's frames are the READ's responses, so dropping B's frame i (not the last) drops response i
        // and leaves the next to imply the loss.
        let implied = match faults.entries.first() {
            Some(&Fault::Drop { port: 1, frame }) => frame + 1 < (len as u64).div_ceil(mtu as u64),
            _ => false,
        };
        let what = format!("{width:?} mtu {mtu} len {len}");
        let p = Pair::connect(cfg(width, faults.clone()), mtu, 20_000).unwrap();
        let data = pattern(len.max(1), 77);
        // B's buffer holds the data and allows remote reads; A's is the destination.
        let remote = p.b.ctx.alloc_dma(len.max(1)).unwrap();
        remote.write(0, &data).unwrap();
        let rmr =
            p.b.pd
                .reg_mr(&remote, 0, len.max(1), AccessFlags::REMOTE_READ)
                .unwrap();
        let local = p.a.ctx.alloc_dma(len + 64).unwrap();
        local.write(0, &vec![0xEE; len + 64]).unwrap();
        let lmr =
            p.a.pd
                .reg_mr(&local, 0, len + 64, AccessFlags::LOCAL_WRITE)
                .unwrap();
        let wr = WorkRequest {
            wr_id: 31,
            op: SendOp::RdmaRead {
                remote_addr: rmr.addr(),
                rkey: rmr.rkey(),
            },
            sge: Sge {
                addr: lmr.addr(),
                length: len as u32,
                lkey: lmr.lkey(),
            },
            flags: SendFlags::SIGNALED,
        };
        // SAFETY: both buffers outlive the completion polled below.
        unsafe { p.a.qp.post_send(&wr).unwrap() };
        let c = p.wait_for(&p.a.send_cq, 20 * BUDGET).expect(&what);
        assert_eq!(
            (c.status, c.opcode, c.wr_id, c.byte_len),
            (WcStatus::Success, WcOpcode::RdmaRead, 31, len as u32),
            "{what}"
        );
        let mut got = vec![0; len + 64];
        local.read(0, &mut got).unwrap();
        assert!(got[..len] == data[..len], "{what}: data differs");
        assert!(
            got[len..].iter().all(|&x| x == 0xEE),
            "{what}: wrote past the buffer"
        );
        let timeouts = counter(&p, 0, "ack_timeouts");
        let implied_naks = counter(&p, 0, "implied_nak_seq_err");
        if implied {
            assert_eq!(
                (implied_naks, timeouts, counter(&p, 0, "retransmits")),
                (1, 0, 1),
                "{what}: one implied NAK, one re-issue, no timeout"
            );
        } else if faults != FaultPlan::none() {
            assert!(timeouts > 0, "{what}: recovered by a timeout");
            assert_eq!(implied_naks, 0, "{what}: nothing implied the loss");
        } else {
            assert_eq!((implied_naks, timeouts), (0, 0), "{what}: no loss");
        }
        // The PSNs the READ used are consumed on both sides: a WRITE after it still lands.
        let b2 = bufs(&p, 256, &pattern(256, 3));
        // SAFETY: as above.
        unsafe {
            p.a.qp
                .post_send(&write_wr(&b2, 256, b2.dst_mr.rkey()))
                .unwrap()
        };
        let w = p.wait_for(&p.a.send_cq, BUDGET).expect(&what);
        assert_eq!(w.status, WcStatus::Success, "{what}: WRITE after the READ");
    }
}

/// A READ of a buffer registered without REMOTE_READ is answered with a remote access error NAK; A
/// completes it with REM_ACCESS_ERR and B's QP enters ERR.
#[test]
fn a_read_without_remote_read_access_is_refused() {
    let p = Pair::connect(cfg(Width::W64, FaultPlan::none()), 1024, 20_000).unwrap();
    let b = bufs(&p, 512, &pattern(512, 1)); // B's MR: LOCAL_WRITE | REMOTE_WRITE, no REMOTE_READ
    let wr = WorkRequest {
        wr_id: 9,
        op: SendOp::RdmaRead {
            remote_addr: b.dst_mr.addr(),
            rkey: b.dst_mr.rkey(),
        },
        sge: Sge {
            addr: b.src_mr.addr(),
            length: 512,
            lkey: b.src_mr.lkey(),
        },
        flags: SendFlags::SIGNALED,
    };
    // SAFETY: buffers outlive the completion.
    unsafe { p.a.qp.post_send(&wr).unwrap() };
    let c = p.wait_for(&p.a.send_cq, BUDGET).expect("READ completion");
    assert_eq!((c.status, c.vendor_err), (WcStatus::RemAccessErr, 0x62));
    assert_eq!(p.b.qp.query(), QpState::Err);
}

/// Immediate data: SEND with immediate (one packet and several) and RDMA WRITE with immediate (ONLY, and
/// FIRST..LAST) complete a receive WQE at B carrying the immediate; the WRITE's data lands at its RETH
/// address and its completion is RECV_RDMA_WITH_IMM with the write's length.
#[test]
fn immediate_data_reaches_the_receive_completion() {
    for width in [Width::W64, Width::W512] {
        let p = Pair::connect(cfg(width, FaultPlan::none()), 256, 20_000).unwrap();
        let data = pattern(1000, 5);
        let b = bufs(&p, 1000, &data);
        let rbuf = p.b.ctx.alloc_dma(1024).unwrap();
        let rmr =
            p.b.pd
                .reg_mr(&rbuf, 0, 1024, AccessFlags::LOCAL_WRITE)
                .unwrap();
        let cases: [(SendOp, usize); 4] = [
            (SendOp::SendWithImm { imm: 0x1122_3344 }, 100),
            (SendOp::SendWithImm { imm: 0xA5A5_0001 }, 1000),
            (
                SendOp::RdmaWriteWithImm {
                    remote_addr: b.dst_mr.addr(),
                    rkey: b.dst_mr.rkey(),
                    imm: 0xDEAD_BEEF,
                },
                200,
            ),
            (
                SendOp::RdmaWriteWithImm {
                    remote_addr: b.dst_mr.addr(),
                    rkey: b.dst_mr.rkey(),
                    imm: 7,
                },
                1000,
            ),
        ];
        for (i, (op, len)) in cases.into_iter().enumerate() {
            let what = format!("{width:?} case {i} {op:?} len {len}");
            b.dst.write(0, &vec![0; 1000]).unwrap();
            let mut wr = write_wr(&b, len, 0);
            wr.op = op;
            wr.wr_id = 50 + i as u64;
            // SAFETY: buffers outlive the completions polled below.
            unsafe {
                post_receive(&p, &rmr, 90 + i as u64);
                p.a.qp.post_send(&wr).unwrap();
            }
            let s = p.wait_for(&p.a.send_cq, BUDGET).expect(&what);
            assert_eq!(
                (s.status, s.wr_id),
                (WcStatus::Success, 50 + i as u64),
                "{what}"
            );
            let r = p.wait_for(&p.b.recv_cq, BUDGET).expect(&what);
            let (imm, is_write) = match op {
                SendOp::SendWithImm { imm } => (imm, false),
                SendOp::RdmaWriteWithImm { imm, .. } => (imm, true),
                _ => unreachable!(),
            };
            let opcode = if is_write {
                WcOpcode::RecvRdmaWithImm
            } else {
                WcOpcode::Recv
            };
            assert_eq!(
                (r.status, r.wr_id, r.opcode, r.byte_len, r.imm_data),
                (
                    WcStatus::Success,
                    90 + i as u64,
                    opcode,
                    len as u32,
                    Some(imm)
                ),
                "{what}"
            );
            let mut got = vec![0; len];
            if is_write {
                b.dst.read(0, &mut got).unwrap();
            } else {
                rbuf.read(0, &mut got).unwrap();
            }
            assert!(got == data[..len], "{what}: data differs");
        }
    }
}

/// Atomics on both widths: FETCH_ADD and COMPARE_SWAP (hit and miss) on 8-byte words at several offsets
/// within a beat; the original value lands in A's buffer, B's word changes only as the operation says,
/// and the neighbouring bytes are untouched. A misaligned address and a missing REMOTE_ATOMIC are refused.
#[test]
fn atomics_execute_once_and_return_the_original_value() {
    for width in [Width::W64, Width::W512] {
        let what = format!("{width:?}");
        let p = Pair::connect(cfg(width, FaultPlan::none()), 1024, 20_000).unwrap();
        let target = p.b.ctx.alloc_dma(256).unwrap();
        target.write(0, &[0x5A; 256]).unwrap();
        let tmr =
            p.b.pd
                .reg_mr(
                    &target,
                    0,
                    256,
                    AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_ATOMIC,
                )
                .unwrap();
        let result = p.a.ctx.alloc_dma(64).unwrap();
        let rmr =
            p.a.pd
                .reg_mr(&result, 0, 64, AccessFlags::LOCAL_WRITE)
                .unwrap();
        let word = |off: u64| -> u64 {
            let mut b = [0u8; 8];
            target.read(off as usize, &mut b).unwrap();
            u64::from_le_bytes(b)
        };
        let mut model = std::collections::HashMap::new();
        for off in [0u64, 8, 56, 128] {
            let v = 0x0102_0304_0506_0700 + off;
            target.write(off as usize, &v.to_le_bytes()).unwrap();
            model.insert(off, v);
        }
        let ops = [
            (
                0u64,
                SendOp::AtomicFetchAdd {
                    remote_addr: 0,
                    rkey: 0,
                    add: 5,
                },
            ),
            (
                8,
                SendOp::AtomicCmpSwap {
                    remote_addr: 0,
                    rkey: 0,
                    compare: 0x0102_0304_0506_0708,
                    swap: 0xFFFF_0000_FFFF_0000,
                },
            ),
            (
                56,
                SendOp::AtomicCmpSwap {
                    remote_addr: 0,
                    rkey: 0,
                    compare: 1,
                    swap: 2,
                },
            ),
            (
                128,
                SendOp::AtomicFetchAdd {
                    remote_addr: 0,
                    rkey: 0,
                    add: u64::MAX,
                },
            ),
            (
                0,
                SendOp::AtomicFetchAdd {
                    remote_addr: 0,
                    rkey: 0,
                    add: 1 << 40,
                },
            ),
        ];
        for (i, (off, op)) in ops.into_iter().enumerate() {
            let op = match op {
                SendOp::AtomicFetchAdd { add, .. } => SendOp::AtomicFetchAdd {
                    remote_addr: tmr.addr() + off,
                    rkey: tmr.rkey(),
                    add,
                },
                SendOp::AtomicCmpSwap { compare, swap, .. } => SendOp::AtomicCmpSwap {
                    remote_addr: tmr.addr() + off,
                    rkey: tmr.rkey(),
                    compare,
                    swap,
                },
                _ => unreachable!(),
            };
            result.write(0, &[0; 8]).unwrap();
            let wr = WorkRequest {
                wr_id: 70 + i as u64,
                op,
                sge: Sge {
                    addr: rmr.addr(),
                    length: 8,
                    lkey: rmr.lkey(),
                },
                flags: SendFlags::SIGNALED,
            };
            // SAFETY: both buffers outlive the completion polled below.
            unsafe { p.a.qp.post_send(&wr).unwrap() };
            let c = p.wait_for(&p.a.send_cq, BUDGET).expect(&what);
            let (opcode, new) = match op {
                SendOp::AtomicFetchAdd { add, .. } => {
                    (WcOpcode::FetchAdd, model[&off].wrapping_add(add))
                }
                SendOp::AtomicCmpSwap { compare, swap, .. } => (
                    WcOpcode::CompSwap,
                    if model[&off] == compare {
                        swap
                    } else {
                        model[&off]
                    },
                ),
                _ => unreachable!(),
            };
            assert_eq!(
                (c.status, c.opcode, c.wr_id, c.byte_len),
                (WcStatus::Success, opcode, 70 + i as u64, 8),
                "{what} op {i}"
            );
            let mut orig = [0u8; 8];
            result.read(0, &mut orig).unwrap();
            assert_eq!(
                u64::from_le_bytes(orig),
                model[&off],
                "{what} op {i}: original value"
            );
            assert_eq!(word(off), new, "{what} op {i}: the target word");
            model.insert(off, new);
        }
        // Bytes around the words were never written.
        let mut all = vec![0u8; 256];
        target.read(0, &mut all).unwrap();
        for (i, b) in all.iter().enumerate() {
            let in_word = [0usize, 8, 56, 128]
                .iter()
                .any(|&o| (o..o + 8).contains(&i));
            assert!(in_word || *b == 0x5A, "{what}: byte {i} changed");
        }
        assert_eq!(counter(&p, 1, "rx_dup_requests"), 0, "{what}");
    }
    // An R_Key without REMOTE_ATOMIC: remote access error NAK, REM_ACCESS_ERR.
    let p = Pair::connect(cfg(Width::W64, FaultPlan::none()), 1024, 20_000).unwrap();
    let b = bufs(&p, 64, &pattern(64, 1));
    let wr = WorkRequest {
        wr_id: 1,
        op: SendOp::AtomicFetchAdd {
            remote_addr: b.dst_mr.addr(),
            rkey: b.dst_mr.rkey(),
            add: 1,
        },
        sge: Sge {
            addr: b.src_mr.addr(),
            length: 8,
            lkey: b.src_mr.lkey(),
        },
        flags: SendFlags::SIGNALED,
    };
    // SAFETY: buffers outlive the completion.
    unsafe { p.a.qp.post_send(&wr).unwrap() };
    let c = p.wait_for(&p.a.send_cq, BUDGET).expect("atomic completion");
    assert_eq!((c.status, c.vendor_err), (WcStatus::RemAccessErr, 0x62));
}

/// A lost ATOMIC ACKNOWLEDGE: A times out and resends the atomic; B recognises the duplicate and replays
/// the saved result instead of adding twice.
#[test]
fn a_duplicate_atomic_is_replayed_not_reexecuted() {
    let faults = FaultPlan::none().drop_frame(1, 0); // B's first frame: the ATOMIC ACKNOWLEDGE
    let p = Pair::connect(cfg(Width::W64, faults), 1024, 20_000).unwrap();
    let target = p.b.ctx.alloc_dma(64).unwrap();
    target.write(0, &100u64.to_le_bytes()).unwrap();
    let tmr =
        p.b.pd
            .reg_mr(
                &target,
                0,
                64,
                AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_ATOMIC,
            )
            .unwrap();
    let result = p.a.ctx.alloc_dma(64).unwrap();
    let rmr =
        p.a.pd
            .reg_mr(&result, 0, 64, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let wr = WorkRequest {
        wr_id: 3,
        op: SendOp::AtomicFetchAdd {
            remote_addr: tmr.addr(),
            rkey: tmr.rkey(),
            add: 7,
        },
        sge: Sge {
            addr: rmr.addr(),
            length: 8,
            lkey: rmr.lkey(),
        },
        flags: SendFlags::SIGNALED,
    };
    // SAFETY: buffers outlive the completion.
    unsafe { p.a.qp.post_send(&wr).unwrap() };
    let c = p.wait_for(&p.a.send_cq, BUDGET).expect("atomic completion");
    assert_eq!(c.status, WcStatus::Success);
    let mut v = [0u8; 8];
    result.read(0, &mut v).unwrap();
    assert_eq!(u64::from_le_bytes(v), 100, "the original value, replayed");
    target.read(0, &mut v).unwrap();
    assert_eq!(u64::from_le_bytes(v), 107, "added once, not twice");
    assert_eq!(counter(&p, 1, "rx_dup_requests"), 1);
    assert!(counter(&p, 0, "ack_timeouts") >= 1);
}

/// WQE push: WQEs written through the register window are taken from there (counted), the others are
/// fetched by DMA as usual, and a push that is overtaken (the window rewritten before the core reached
/// its WQE) falls back to the DMA fetch; every WRITE lands.
#[test]
fn pushed_wqes_skip_the_fetch_and_mix_with_fetched_ones() {
    let p = Pair::connect(cfg(Width::W64, FaultPlan::none()), 1024, 20_000).unwrap();
    let data = pattern(4096, 17);
    let b = bufs(&p, 4096, &data);
    let mut wrs = Vec::new();
    for i in 0..4u64 {
        let mut wr = write_wr(&b, 1024, b.dst_mr.rkey());
        wr.wr_id = 60 + i;
        wr.sge.addr += i * 1024;
        wr.op = SendOp::RdmaWrite {
            remote_addr: b.dst_mr.addr() + i * 1024,
            rkey: b.dst_mr.rkey(),
        };
        wrs.push(wr);
    }
    // SAFETY: buffers outlive the completions.
    unsafe {
        p.a.qp.post_send_push(&wrs[0]).unwrap();
        p.a.qp.post_send(&wrs[1]).unwrap();
        // Two pushes back to back: the second overwrites the window before the core reaches the first.
        p.a.qp.post_send_push(&wrs[2]).unwrap();
        p.a.qp.post_send_push(&wrs[3]).unwrap();
    }
    for i in 0..4 {
        let wc = p.wait_for(&p.a.send_cq, BUDGET).expect("completion");
        assert_eq!((wc.status, wc.wr_id), (WcStatus::Success, 60 + i));
    }
    let mut got = vec![0; 4096];
    b.dst.read(0, &mut got).unwrap();
    assert!(got == data, "data differs");
    let pushes = counter(&p, 0, "wqe_pushes");
    assert_eq!(
        pushes, 2,
        "the first and the last push are taken, the overwritten one fetched"
    );
}

/// SQD (IBA 10.3.1): the send queue drains (the WRITE in progress completes, those behind it do not
/// start) while the QP still responds to its peer; back in RTS the rest go out, PSNs continuing.
#[test]
fn sqd_drains_the_send_queue_and_rts_resumes_it() {
    use rocenic_driver::{QpAttr, RtsAttrs};
    let p = Pair::connect(cfg(Width::W64, FaultPlan::none()), 1024, 20_000).unwrap();
    let data = pattern(3 * 16384, 23);
    let b = bufs(&p, 3 * 16384, &data);
    // SAFETY: buffers outlive the completions.
    unsafe {
        for i in 0..3u64 {
            let mut wr = write_wr(&b, 16384, b.dst_mr.rkey());
            wr.wr_id = 80 + i;
            wr.sge.addr += i * 16384;
            wr.op = SendOp::RdmaWrite {
                remote_addr: b.dst_mr.addr() + i * 16384,
                rkey: b.dst_mr.rkey(),
            };
            p.a.qp.post_send(&wr).unwrap();
        }
    }
    p.fabric.lock().unwrap().run(500);
    p.a.qp.modify(QpAttr::Sqd).unwrap();
    assert_eq!(p.a.qp.query(), QpState::Sqd);
    let first = p
        .wait_for(&p.a.send_cq, BUDGET)
        .expect("the WRITE in progress completes");
    assert_eq!((first.status, first.wr_id), (WcStatus::Success, 80));
    assert!(
        p.wait_for(&p.a.send_cq, 100_000).is_none(),
        "nothing new starts in SQD"
    );
    // A still responds in SQD: B writes into A.
    let back = p.a.ctx.alloc_dma(4096).unwrap();
    let back_mr =
        p.a.pd
            .reg_mr(
                &back,
                0,
                4096,
                AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE,
            )
            .unwrap();
    let src_b = p.b.ctx.alloc_dma(4096).unwrap();
    src_b.write(0, &data[..4096]).unwrap();
    let src_b_mr =
        p.b.pd
            .reg_mr(&src_b, 0, 4096, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let wr = WorkRequest {
        wr_id: 90,
        op: SendOp::RdmaWrite {
            remote_addr: back_mr.addr(),
            rkey: back_mr.rkey(),
        },
        sge: Sge {
            addr: src_b_mr.addr(),
            length: 4096,
            lkey: src_b_mr.lkey(),
        },
        flags: SendFlags::SIGNALED,
    };
    // SAFETY: buffers outlive the completion.
    unsafe { p.b.qp.post_send(&wr).unwrap() };
    let w = p
        .wait_for(&p.b.send_cq, BUDGET)
        .expect("B's WRITE completes against A in SQD");
    assert_eq!(w.status, WcStatus::Success);
    // Back to RTS: the two waiting WRITEs go out.
    p.a.qp
        .modify(QpAttr::Rts(RtsAttrs {
            sq_psn: 0,
            timeout: 14,
            retry_cnt: 7,
            rnr_retry: 7,
            max_rd_atomic: 1,
            ack_timeout_cycles: Some(20_000),
        }))
        .unwrap();
    for i in 1..3 {
        let wc = p.wait_for(&p.a.send_cq, BUDGET).expect("resumed");
        assert_eq!((wc.status, wc.wr_id), (WcStatus::Success, 80 + i));
    }
    // And nothing else: the modifies rang no doorbell that took the producer index back (the core
    // would run on through the ring's empty slots and around to the first WRITE again).
    assert!(
        p.wait_for(&p.a.send_cq, 100_000).is_none(),
        "a completion after the posted work"
    );
    let mut got = vec![0; data.len()];
    b.dst.read(0, &mut got).unwrap();
    assert!(got == data, "data differs");
}

/// Completion events (IBA §11.4.2.2): an armed CQ raises the interrupt once; "solicited only" lets an
/// unsolicited completion pass silently and fires for a SEND with SE or an unsuccessful completion; a
/// waiter sleeps in device time and times out when nothing comes.
#[test]
fn completion_events_follow_the_arming() {
    use rocenic_proto::regs;
    use std::time::Duration;
    let p = Pair::connect(cfg(Width::W64, FaultPlan::none()), 1024, 20_000).unwrap();
    let irqs = |port: usize| p.fabric.lock().unwrap().irq_count(port);
    let arm_reg = |port: usize| p.fabric.lock().unwrap().reg_read(port, regs::CQ_ARM);
    let data = pattern(512, 9);
    let b = bufs(&p, 512, &data);
    let rbuf = p.b.ctx.alloc_dma(512).unwrap();
    let rmr =
        p.b.pd
            .reg_mr(&rbuf, 0, 512, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let send = |wr_id: u64, flags: SendFlags| {
        let mut wr = write_wr(&b, 256, 0);
        wr.op = SendOp::Send;
        wr.wr_id = wr_id;
        wr.flags = flags;
        // SAFETY: the buffers outlive the completions the test waits for.
        unsafe {
            post_receive(&p, &rmr, 100 + wr_id);
            p.a.qp.post_send(&wr).unwrap();
        }
    };
    let solicited = SendFlags(SendFlags::SIGNALED.0 | SendFlags::SOLICITED.0);

    // Nothing armed: completions, no interrupt.
    send(1, SendFlags::SIGNALED);
    p.wait_for(&p.a.send_cq, BUDGET).unwrap();
    p.wait_for(&p.b.recv_cq, BUDGET).unwrap();
    assert_eq!((irqs(0), irqs(1)), (0, 0));

    // Solicited only: an unsolicited SEND passes silently and leaves the CQ armed.
    p.b.recv_cq.req_notify(true);
    send(2, SendFlags::SIGNALED);
    p.wait_for(&p.a.send_cq, BUDGET).unwrap();
    p.wait_for(&p.b.recv_cq, BUDGET).unwrap();
    assert_eq!((irqs(1), arm_reg(1)), (0, 2));
    // ... a solicited one wakes the waiter, which sleeps until then.
    send(3, solicited);
    assert!(p.b.recv_cq.wait_event(Duration::from_millis(5)).unwrap());
    let r = p.wait_for(&p.b.recv_cq, BUDGET).unwrap();
    assert_eq!((r.wr_id, r.status), (103, WcStatus::Success));
    assert_eq!(
        (irqs(1), arm_reg(1)),
        (1, 0),
        "one interrupt, then disarmed"
    );
    p.wait_for(&p.a.send_cq, BUDGET).unwrap();
    // One-shot: without re-arming, the next solicited SEND raises nothing, and a waiter times out.
    send(4, solicited);
    p.wait_for(&p.b.recv_cq, BUDGET).unwrap();
    p.wait_for(&p.a.send_cq, BUDGET).unwrap();
    assert_eq!(irqs(1), 1);
    assert!(!p.b.recv_cq.wait_event(Duration::from_micros(20)).unwrap());
    // Next completion: any CQE fires.
    p.b.recv_cq.req_notify(false);
    send(5, SendFlags::SIGNALED);
    assert!(p.b.recv_cq.wait_event(Duration::from_millis(5)).unwrap());
    p.wait_for(&p.b.recv_cq, BUDGET).unwrap();
    p.wait_for(&p.a.send_cq, BUDGET).unwrap();
    assert_eq!(irqs(1), 2);
    assert_eq!(p.fabric.lock().unwrap().reg_read(1, regs::CQ_INTERRUPTS), 2);

    // Solicited only also fires for an unsuccessful completion: a WRITE with a bad rkey.
    p.a.send_cq.req_notify(true);
    // SAFETY: as above.
    unsafe { p.a.qp.post_send(&write_wr(&b, 64, 0xBAD)).unwrap() };
    assert!(p.a.send_cq.wait_event(Duration::from_millis(5)).unwrap());
    let s = p.wait_for(&p.a.send_cq, BUDGET).unwrap();
    assert_eq!(s.status, WcStatus::RemAccessErr);
    assert_eq!(irqs(0), 1);
}

/// The core's register-block directory (constants in the generated RTL) is what the table says, at
/// both widths: the driver sized itself from the hardware, not from its own copy of the table.
#[test]
fn the_core_describes_its_register_blocks() {
    use rocenic_proto::regs;
    for width in [Width::W64, Width::W512] {
        let p = Pair::connect(cfg(width, FaultPlan::none()), 1024, 20_000).unwrap();
        let got: Vec<_> =
            p.a.ctx
                .blocks()
                .iter()
                .map(|b| (b.kind, b.version, b.base, b.size, b.param))
                .collect();
        let want: Vec<_> = regs::BLOCKS
            .iter()
            .map(|b| (b.kind, b.version, b.base, b.size, b.param))
            .collect();
        assert_eq!(got, want, "{width:?}");
    }
}

/// The simulated transmit MAC keeps to the width's line rate (10 Gb/s at 64 bits, 100 Gb/s at 512): in the
/// pcap, A's frames of a multi-packet WRITE never start closer than their bytes plus the wire overhead
/// (FCS, preamble, inter-frame gap) allow, so a requester faster than the line cannot overrun its peer.
#[test]
fn the_mac_keeps_to_the_line_rate() {
    for width in [Width::W64, Width::W512] {
        let path = std::env::temp_dir().join(format!(
            "rocenic-line-rate-{}-{}.pcap",
            width.bits(),
            std::process::id()
        ));
        let p = Pair::connect(
            FabricConfig {
                pcap: Some(path.clone()),
                ..cfg(width, FaultPlan::none())
            },
            4096,
            20_000,
        )
        .unwrap();
        let len = 16 * 4096;
        let data = pattern(len, 5);
        let b = bufs(&p, len, &data);
        // SAFETY: the buffers outlive the completion polled below.
        unsafe {
            p.a.qp
                .post_send(&write_wr(&b, len, b.dst_mr.rkey()))
                .unwrap();
        }
        let w = p.wait_for(&p.a.send_cq, BUDGET).expect("WRITE completion");
        assert_eq!(w.status, WcStatus::Success, "{width:?}");
        p.fabric.lock().unwrap().flush_pcap().unwrap();
        let frames = rocenic_proto::pcap::read(&path).unwrap();
        std::fs::remove_file(&path).ok();
        let a_ip = rocenic_testkit::pair::ip(0).octets();
        let a: Vec<_> = frames
            .iter()
            .filter(|(_, f)| f.len() > 1000 && f[26..30] == a_ip[..])
            .collect();
        assert_eq!(a.len(), 16, "{width:?}: WRITE packets in the pcap");
        let ns_per_byte = 8.0 / width.line_gbps();
        let beat_ns = width.bits() as f64 / width.line_gbps();
        for pair in a.windows(2) {
            let (t0, t1) = (pair[0].0.as_nanos() as f64, pair[1].0.as_nanos() as f64);
            // Frames are stamped at their last beat; the MAC may run one beat ahead of its credit.
            let min =
                (pair[1].1.len() as f64 + rocenic_sim::WIRE_OVERHEAD_BYTES) * ns_per_byte - beat_ns;
            assert!(
                t1 - t0 >= min,
                "{width:?}: frames {:.1} ns apart, the line needs {:.1} ns",
                t1 - t0,
                min
            );
        }
    }
}

/// DMA reads follow PCIe's rules: with DMA_MAX_READ at 128 bytes and the host accepting no more, a WRITE
/// whose source starts off a 4 KiB page boundary is read in requests of at most 128 bytes that never cross
/// a 4 KiB boundary (the simulated host fails the run otherwise), and the data still lands byte for byte.
#[test]
fn dma_reads_are_split_at_the_read_request_size_and_4k() {
    for width in [Width::W64, Width::W512] {
        let p = Pair::connect(
            FabricConfig {
                dma_max_read_bytes: 128,
                ..cfg(width, FaultPlan::none())
            },
            4096,
            20_000,
        )
        .unwrap();
        p.fabric
            .lock()
            .unwrap()
            .reg_write(0, rocenic_proto::regs::DMA_MAX_READ, 128);
        let len = 3 * 4096;
        let off = 320;
        let data = pattern(len, 9);
        let b = bufs(&p, len, &data);
        let before = p.fabric.lock().unwrap().nic_mut(0).dma_read_requests();
        let mut wr = write_wr(&b, len - off, b.dst_mr.rkey());
        wr.sge.addr += off as u64;
        // SAFETY: the buffers outlive the completion polled below.
        unsafe { p.a.qp.post_send(&wr).unwrap() };
        let w = p.wait_for(&p.a.send_cq, BUDGET).expect("WRITE completion");
        assert_eq!(w.status, WcStatus::Success, "{width:?}");
        let mut got = vec![0; len - off];
        b.dst.read(0, &mut got).unwrap();
        assert!(got == data[off..], "{width:?}: WRITE data differs");
        let reads = p.fabric.lock().unwrap().nic_mut(0).dma_read_requests() - before;
        // The payload alone needs (len - off) / 128 requests, one more per page it starts inside of.
        assert!(
            reads >= ((len - off) / 128) as u64,
            "{width:?}: only {reads} read requests"
        );
    }
}

#[test]
fn a_qp_that_stops_allowing_remote_writes_refuses_them() {
    let p = Pair::connect(cfg(Width::W64, FaultPlan::none()), 1024, 20_000).unwrap();
    let data = pattern(256, 9);
    let b = bufs(&p, 256, &data);
    let wait = |wr: WorkRequest| {
        // SAFETY: the buffers outlive the completion polled here.
        unsafe { p.a.qp.post_send(&wr).unwrap() };
        p.wait_for(&p.a.send_cq, BUDGET).expect("a completion")
    };
    let w = wait(write_wr(&b, 64, b.dst_mr.rkey()));
    assert_eq!(w.status, WcStatus::Success, "allowed at first: {w:?}");
    // RTS → RTS with only the access flags changed (ibv_modify_qp with IBV_QP_ACCESS_FLAGS).
    p.b.qp
        .modify(QpAttr::Modify(ModifyAttrs {
            access: Some(AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_READ),
            ..ModifyAttrs::default()
        }))
        .unwrap();
    assert_eq!(p.b.qp.query(), QpState::Rts, "the state stays");
    assert_eq!(
        p.b.qp.access(),
        AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_READ
    );
    let before = {
        let mut v = vec![0; 256];
        b.dst.read(0, &mut v).unwrap();
        v
    };
    let mut wr = write_wr(&b, 256, b.dst_mr.rkey());
    wr.wr_id = 9;
    let w = wait(wr);
    // The MR still allows it; the QP does not: invalid request, as rdma_rxe answers.
    assert_eq!(
        (w.wr_id, w.status, w.vendor_err),
        (9, WcStatus::RemInvReqErr, 0x61)
    );
    let mut after = vec![0; 256];
    b.dst.read(0, &mut after).unwrap();
    assert!(before == after, "nothing lands");
    assert_eq!(p.b.qp.query(), QpState::Err);
}

#[test]
fn query_qp_reports_the_psns_the_core_holds() {
    let p = Pair::connect(cfg(Width::W64, FaultPlan::none()), 1024, 20_000).unwrap();
    let data = pattern(3000, 4);
    let b = bufs(&p, 3000, &data);
    let (a0, b0) = (p.a.qp.query_qp(), p.b.qp.query_qp());
    assert_eq!(a0.state, QpState::Rts);
    assert_eq!((a0.path_mtu, a0.dest_qpn), (1024, p.b.qp.qp_num()));
    assert_eq!(a0.sq_psn, b0.rq_psn, "A sends what B expects");
    let rd = rocenic_proto::regs::RD_ATOMIC_DEPTH as u8;
    assert_eq!(
        (a0.max_rd_atomic, a0.max_dest_rd_atomic),
        (rd, rd),
        "as PairParams set them"
    );
    // SAFETY: the buffers outlive the completion polled here.
    unsafe {
        p.a.qp
            .post_send(&write_wr(&b, 3000, b.dst_mr.rkey()))
            .unwrap()
    };
    let w = p.wait_for(&p.a.send_cq, BUDGET).expect("completion");
    assert_eq!(w.status, WcStatus::Success);
    // 3000 bytes at MTU 1024: three packets, three PSNs on both sides.
    let (a1, b1) = (p.a.qp.query_qp(), p.b.qp.query_qp());
    assert_eq!(a1.sq_psn, (a0.sq_psn + 3) & 0xFF_FFFF);
    assert_eq!(b1.rq_psn, (b0.rq_psn + 3) & 0xFF_FFFF);
    assert_eq!(a1.rq_psn, a0.rq_psn, "nothing came the other way");
}

#[test]
fn per_qp_counters_follow_their_qp_only() {
    // Loss makes the responder see PSNs ahead (out_of_sequence), the requester get sequence NAKs
    // (packet_seq_err) and resend what had arrived (duplicate_request).
    let faults = FaultPlan {
        drop_probability: 0.05,
        ..FaultPlan::default()
    };
    let p = Pair::connect(cfg(Width::W64, faults), 256, 20_000).unwrap();
    // An idle QP on each side, created after the pair's: its counters must stay 0.
    let idle = rocenic_driver::QueuePair::create(
        &p.b.pd,
        &p.b.send_cq,
        &p.b.recv_cq,
        rocenic_driver::QpCaps {
            max_send_wr: 2,
            max_recv_wr: 2,
            max_send_sge: 1,
            max_recv_sge: 1,
        },
    )
    .unwrap();
    let data = pattern(8192, 5);
    let b = bufs(&p, 8192, &data);
    for i in 0..20 {
        let mut wr = write_wr(&b, 8192, b.dst_mr.rkey());
        wr.wr_id = i;
        // SAFETY: the buffers outlive the completion polled here.
        unsafe { p.a.qp.post_send(&wr).unwrap() };
        let w = p.wait_for(&p.a.send_cq, 10 * BUDGET).expect("completion");
        assert_eq!(w.status, WcStatus::Success);
    }
    let get = |c: &[(&str, u64)], n: &str| c.iter().find(|(k, _)| *k == n).unwrap().1;
    let (qa, qb) = (p.a.qp.counters(), p.b.qp.counters());
    // One QP carries all the traffic: its counters are the port's.
    assert_eq!(get(&qb, "out_of_sequence"), counter(&p, 1, "rx_seq_errors"));
    assert_eq!(
        get(&qb, "duplicate_request"),
        counter(&p, 1, "rx_dup_requests")
    );
    assert_eq!(get(&qa, "packet_seq_err"), counter(&p, 0, "rx_seq_naks"));
    assert_eq!(
        get(&qa, "local_ack_timeout_err"),
        counter(&p, 0, "ack_timeouts")
    );
    assert_eq!(get(&qa, "retransmits"), counter(&p, 0, "retransmits"));
    assert!(get(&qa, "retransmits") > 0, "A {qa:?}");
    assert!(
        get(&qb, "out_of_sequence") > 0 && get(&qa, "packet_seq_err") > 0,
        "the loss shows: A {qa:?}, B {qb:?}"
    );
    assert!(
        idle.counters().iter().all(|(_, v)| *v == 0),
        "{:?}",
        idle.counters()
    );
}
