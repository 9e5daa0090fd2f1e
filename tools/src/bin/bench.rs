//! `bench`: host-interface costs, printed as a table (docs/performance.md records them).
//!
//! - `post_send` + doorbell, in ns per WQE, driver only: the device is a bare register file (no logging, no
//!   NIC behind it) that consumes WQEs instantly, so the number is the driver's own work per WQE.
//! - Doorbell → first byte on the MAC, in core cycles, on the co-simulated NIC (WQE fetched by DMA; the
//!   DMA model's read latency is stated).
//! - Last byte of a SEND received → its CQE written, in core cycles.
//! - A 64 KiB SEND from one buffer and gathered from 4 (hdl host::gather): doorbell → its last frame on
//!   the MAC, in core cycles, so the cost of packing is the difference.
//! - A 64 KiB SEND received into one buffer and scattered over 4 (hdl host::scatter): doorbell → the
//!   receive completion at B, in core cycles, so the cost of cutting is the difference.
//! - Message rate on one QP: 16 small RDMA WRITEs posted back to back, the core cycles between
//!   consecutive send completions at A once the ring is full, against what the line could carry; and
//!   the same for small RDMA READs with max_rd_atomic 1 and the device's most (READs outstanding).
use rocenic_driver::backend::fake::FakeMemory;
use rocenic_driver::backend::{Backend, DmaArena, DmaRegion};
use rocenic_driver::{
    AccessFlags, Context, InitAttrs, MemoryRegion, QpAttr, QpCaps, QueuePair, RecvRequest, RecvWr,
    RtrAttrs, RtsAttrs, SendFlags, SendOp, SendWr, Sge, WcStatus, WorkCompletion, WorkRequest,
    DEFAULT_HOP_LIMIT,
};
use rocenic_proto::regs;
use rocenic_sim::{line_bytes_per_cycle, FabricConfig, Width, WIRE_OVERHEAD_BYTES};
use rocenic_testkit::pair::{Pair, PairParams};
use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Registers as plain atomics; SQ_CI follows SQ_PI at once (an infinitely fast device).
struct RegisterFile {
    regs: Vec<AtomicU32>,
    arena: Arc<DmaArena>,
}

impl RegisterFile {
    fn new() -> RegisterFile {
        let regs: Vec<AtomicU32> = (0..0x800 / 4).map(|_| AtomicU32::new(0)).collect();
        for r in regs::REGISTERS {
            regs[r.offset as usize / 4].store(r.reset, Ordering::Relaxed);
        }
        regs[regs::DATAPATH_BYTES as usize / 4].store(8, Ordering::Relaxed);
        regs[regs::QP_TABLE_LOG as usize / 4].store(12, Ordering::Relaxed);
        regs[regs::MR_TABLE_LOG as usize / 4].store(12, Ordering::Relaxed);
        for (off, v) in regs::block_header_words() {
            regs[off as usize / 4].store(v, Ordering::Relaxed);
        }
        RegisterFile {
            regs,
            arena: DmaArena::new(FakeMemory::new(0x1_0000_0000, 8 << 20)),
        }
    }
}

impl Backend for RegisterFile {
    fn read32(&self, offset: u16) -> u32 {
        self.regs[offset as usize / 4].load(Ordering::Relaxed)
    }
    fn write32(&self, offset: u16, value: u32) {
        self.regs[offset as usize / 4].store(value, Ordering::Relaxed);
        if offset == regs::SQ_PI {
            self.regs[regs::SQ_CI as usize / 4].store(value, Ordering::Relaxed);
        }
        if offset == regs::QP_CMD || offset == regs::MR_CMD {
            // Done at once (QUERY reads back the window: one QP).
            self.regs[offset as usize / 4].store(0, Ordering::Relaxed);
        }
    }
    fn alloc_dma(&self, len: usize, align: usize) -> rocenic_driver::Result<DmaRegion> {
        self.arena.alloc(len, align)
    }
    fn wait(&self) {}
    fn describe(&self) -> String {
        "register file".into()
    }
}

fn post_send_ns() -> f64 {
    let ctx = Context::open(Arc::new(RegisterFile::new())).unwrap();
    let pd = ctx.alloc_pd();
    let cq = ctx.create_cq(4096).unwrap();
    let qp = QueuePair::create(
        &pd,
        &cq,
        &cq,
        QpCaps {
            max_send_wr: 4096,
            max_recv_wr: 2,
            max_send_sge: 1,
            max_recv_sge: 1,
        },
    )
    .unwrap();
    qp.modify(QpAttr::Init(InitAttrs::default())).unwrap();
    qp.modify(QpAttr::Rtr(RtrAttrs {
        path_mtu: 1024,
        dest_qpn: 0x22,
        rq_psn: 0,
        dest_mac: [2, 0, 0, 0, 0, 2],
        dest_ip: Ipv4Addr::new(10, 0, 0, 2).into(),
        sgid_index: 0,
        udp_sport: 0xC000,
        hop_limit: DEFAULT_HOP_LIMIT,
        flow_label: 0,
        vlan: None,
        min_rnr_timer: 12,
        max_dest_rd_atomic: 4,
        traffic_class: 0,
    }))
    .unwrap();
    qp.modify(QpAttr::Rts(RtsAttrs {
        sq_psn: 0,
        timeout: 14,
        retry_cnt: 7,
        rnr_retry: 7,
        max_rd_atomic: 1,
        ack_timeout_cycles: None,
    }))
    .unwrap();
    let buf = ctx.alloc_dma(4096).unwrap();
    let mr = pd.reg_mr(&buf, 0, 4096, AccessFlags::LOCAL_WRITE).unwrap();
    let wr = WorkRequest {
        wr_id: 0,
        op: SendOp::RdmaWrite {
            remote_addr: 0x1000,
            rkey: 7,
        },
        sge: Sge {
            addr: mr.addr(),
            length: 1024,
            lkey: mr.lkey(),
        },
        flags: SendFlags::default(),
    };
    let n = 200_000;
    // Warm up, then time.
    for _ in 0..10_000 {
        // SAFETY: the device behind is a register file that never touches the buffer.
        unsafe { qp.post_send(&wr).unwrap() };
    }
    let t = Instant::now();
    for _ in 0..n {
        // SAFETY: as above.
        unsafe { qp.post_send(&wr).unwrap() };
    }
    t.elapsed().as_nanos() as f64 / n as f64
}

/// Cycles from the SQ_PI doorbell to the first byte of the WRITE's first frame on the MAC, and from the
/// last byte of a SEND entering B to B's CQE being written.
/// A `len`-byte buffer at B, registered and posted as one receive; the caller keeps it until the
/// receive has completed.
fn receive_buffer(p: &Pair, len: usize) -> (DmaRegion, MemoryRegion) {
    let buf = p.b.ctx.alloc_dma(len).unwrap();
    let mr =
        p.b.pd
            .reg_mr(&buf, 0, len, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let rr = RecvRequest {
        wr_id: 1,
        sge: Sge {
            addr: mr.addr(),
            length: len as u32,
            lkey: mr.lkey(),
        },
    };
    // SAFETY: the caller holds the buffer and its MR until the receive completes.
    unsafe { p.b.qp.post_recv(&rr).unwrap() };
    (buf, mr)
}

fn latencies(width: Width, dma_latency: u64, push: bool) -> (u64, u64) {
    let cfg = FabricConfig {
        width,
        host_mem_bytes: 4 << 20,
        dma_read_latency_cycles: dma_latency,
        link_latency_cycles: 100,
        ..FabricConfig::default()
    };
    let p = Pair::connect(cfg, 1024, 100_000).unwrap();
    let beat = width.bytes() as u64;
    let src = p.a.ctx.alloc_dma(4096).unwrap();
    let smr =
        p.a.pd
            .reg_mr(&src, 0, 4096, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let _rx = receive_buffer(&p, 4096);
    let mut f = p.fabric.lock().unwrap();
    f.run(1000);
    let frames0 = f.link_stats().frames[0];
    let cqes0 = f.reg_read(1, regs::CQES_WRITTEN);
    drop(f);
    let wr = WorkRequest {
        wr_id: 2,
        op: SendOp::Send,
        sge: Sge {
            addr: smr.addr(),
            length: 256,
            lkey: smr.lkey(),
        },
        flags: SendFlags::SIGNALED,
    };
    // SAFETY: `src` lives to the end of the function, after the completions.
    unsafe {
        if push {
            p.a.qp.post_send_push(&wr).unwrap();
        } else {
            p.a.qp.post_send(&wr).unwrap();
        }
    }
    // post_send returns once the SQ_PI write has reached the core.
    let mut f = p.fabric.lock().unwrap();
    let doorbell = f.cycles();
    let mut sent = None;
    let mut cqe = None;
    for _ in 0..200_000 {
        f.run(1);
        if sent.is_none() && f.link_stats().frames[0] > frames0 {
            sent = Some(f.cycles());
        }
        // CQES_WRITTEN at B, read without disturbing timing: the register read itself takes cycles,
        // so poll it only every 16 cycles once the frame is on the wire (resolution 16 cycles).
        if sent.is_some()
            && f.cycles().is_multiple_of(16)
            && f.reg_read(1, regs::CQES_WRITTEN) > cqes0
        {
            cqe = Some(f.cycles());
            break;
        }
    }
    let sent = sent.expect("the SEND left A");
    let cqe = cqe.expect("B wrote the CQE");
    // The frame: 14 + 20 + 8 + 12 + 256 + 4 bytes, one beat per cycle; `sent` is its last beat.
    let frame_beats = 314_u64.div_ceil(beat);
    let first_byte = sent - frame_beats + 1 - doorbell;
    // At B the last byte arrives `link_latency` cycles after it left A.
    let last_in = sent + 100;
    (first_byte, cqe.saturating_sub(last_in))
}

/// Cycles from the doorbell of one 64 KiB SEND (MTU 4096: 16 frames) to its last frame leaving A, its
/// message in `entries` buffers of equal size, each starting 3 bytes past a beat.
fn gather_cycles(width: Width, entries: usize) -> u64 {
    const LEN: usize = 65536;
    let cfg = FabricConfig {
        width,
        host_mem_bytes: 4 << 20,
        ..FabricConfig::default()
    };
    let params = PairParams {
        max_send_sge: 4,
        max_recv_sge: 1,
        ..PairParams::new(4096, 1_000_000)
    };
    let p = Pair::connect_with(cfg, &params).unwrap();
    let src = p.a.ctx.alloc_dma(LEN + 4096).unwrap();
    let smr =
        p.a.pd
            .reg_mr(&src, 0, LEN + 4096, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let piece = LEN / entries;
    let list: Vec<Sge> = (0..entries)
        .map(|i| Sge {
            addr: smr.addr() + (i * (piece + 1024) + 3) as u64,
            length: piece as u32,
            lkey: smr.lkey(),
        })
        .collect();
    let _rx = receive_buffer(&p, LEN);
    let mut f = p.fabric.lock().unwrap();
    f.run(1000);
    let frames0 = f.link_stats().frames[0];
    drop(f);
    let wr = SendWr {
        wr_id: 2,
        op: SendOp::Send,
        sg_list: &list,
        flags: SendFlags::SIGNALED,
    };
    // SAFETY: the list's buffers (in `src`) live to the end of the function, after both completions.
    unsafe { p.a.qp.post_send_gather(&wr).unwrap() };
    let mut f = p.fabric.lock().unwrap();
    let doorbell = f.cycles();
    let mut took = None;
    for _ in 0..2_000_000 {
        f.run(1);
        if f.link_stats().frames[0] >= frames0 + 16 {
            took = Some(f.cycles() - doorbell);
            break;
        }
    }
    drop(f);
    let took = took.expect("the SEND left A");
    // Both completions before the buffers (and their MRs) go: B is still writing the last packets.
    let r = p.wait_for(&p.b.recv_cq, 1_000_000).expect("B received it");
    assert_eq!((r.status, r.byte_len as usize), (WcStatus::Success, LEN));
    let c = p.wait_for(&p.a.send_cq, 1_000_000).expect("A completed it");
    assert_eq!(c.status, WcStatus::Success);
    took
}

/// Cycles from the doorbell of one 64 KiB SEND (MTU 4096) to B's receive completion, B's receive WQE
/// scattering it over `entries` buffers (1, or 4 of uneven length), each starting 3 bytes past a beat,
/// with gaps between them. Both runs on QPs with 128-byte receive WQEs (`max_recv_sge` 4), so only the list differs.
fn scatter_cycles(width: Width, entries: usize) -> u64 {
    const LEN: usize = 65536;
    let cfg = FabricConfig {
        width,
        host_mem_bytes: 4 << 20,
        ..FabricConfig::default()
    };
    let params = PairParams {
        max_recv_sge: 4,
        ..PairParams::new(4096, 1_000_000)
    };
    let p = Pair::connect_with(cfg, &params).unwrap();
    let src = p.a.ctx.alloc_dma(LEN).unwrap();
    let smr =
        p.a.pd
            .reg_mr(&src, 0, LEN, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let dst = p.b.ctx.alloc_dma(LEN + 4 * 1024).unwrap();
    let dmr =
        p.b.pd
            .reg_mr(&dst, 0, LEN + 4 * 1024, AccessFlags::LOCAL_WRITE)
            .unwrap();
    // Lengths 5 and 7 bytes off even shares (summing to LEN), so every boundary between entries falls
    // inside a host word of the message and costs the scatter unit its cycle.
    let piece = LEN / entries;
    let skew = [5i64, -5, 7, -7];
    let list: Vec<Sge> = (0..entries)
        .map(|i| Sge {
            addr: dmr.addr() + (i * (piece + 1024) + 3) as u64,
            length: if entries == 1 {
                LEN as u32
            } else {
                (piece as i64 + skew[i]) as u32
            },
            lkey: dmr.lkey(),
        })
        .collect();
    // SAFETY: `dst` and its MR live to the end of the function, after the receive completion.
    unsafe {
        p.b.qp
            .post_recv_scatter(&RecvWr {
                wr_id: 3,
                sg_list: &list,
            })
            .unwrap()
    };
    p.fabric.lock().unwrap().run(1000);
    let wr = WorkRequest {
        wr_id: 3,
        op: SendOp::Send,
        sge: Sge {
            addr: smr.addr(),
            length: LEN as u32,
            lkey: smr.lkey(),
        },
        flags: SendFlags::SIGNALED,
    };
    // SAFETY: `src` lives to the end of the function, after both completions.
    unsafe { p.a.qp.post_send(&wr).unwrap() };
    let doorbell = p.cycles();
    // Polled every cycle: the cycle the CQE is in host memory.
    let mut wc = [WorkCompletion::default()];
    let mut at = None;
    for _ in 0..2_000_000 {
        if p.b.recv_cq.poll(&mut wc) == 1 {
            at = Some(p.cycles());
            break;
        }
        p.fabric.lock().unwrap().run(1);
    }
    let at = at.expect("B received it");
    assert_eq!(
        (wc[0].status, wc[0].byte_len as usize),
        (WcStatus::Success, LEN)
    );
    let c = p.wait_for(&p.a.send_cq, 1_000_000).expect("A completed it");
    assert_eq!(c.status, WcStatus::Success);
    at - doorbell
}

/// Core cycles between consecutive send completions at A for `len`-byte RDMA WRITEs (READs if `read`,
/// with `max_rd_atomic`) posted back to back on one QP (its 16-entry ring filled before the first
/// completes), the median over the last 12, and the cycles one frame of that size takes at line rate.
fn message_rate(width: Width, len: usize, read: bool, max_rd_atomic: u8) -> (u64, u64) {
    const N: usize = 16;
    let cfg = FabricConfig {
        width,
        host_mem_bytes: 4 << 20,
        link_latency_cycles: 100,
        dma_read_latency_cycles: 50,
        ..FabricConfig::default()
    };
    let params = PairParams {
        max_rd_atomic,
        ..PairParams::new(1024, 1_000_000)
    };
    let p = Pair::connect_with(cfg, &params).unwrap();
    let src = p.a.ctx.alloc_dma(4096).unwrap();
    let smr =
        p.a.pd
            .reg_mr(&src, 0, 4096, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let dst = p.b.ctx.alloc_dma(4096).unwrap();
    let dmr =
        p.b.pd
            .reg_mr(
                &dst,
                0,
                4096,
                AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ,
            )
            .unwrap();
    p.fabric.lock().unwrap().run(1000);
    for i in 0..N {
        let wr = WorkRequest {
            wr_id: i as u64,
            op: if read {
                SendOp::RdmaRead {
                    remote_addr: dmr.addr(),
                    rkey: dmr.rkey(),
                }
            } else {
                SendOp::RdmaWrite {
                    remote_addr: dmr.addr(),
                    rkey: dmr.rkey(),
                }
            },
            sge: Sge {
                addr: smr.addr(),
                length: len as u32,
                lkey: smr.lkey(),
            },
            flags: SendFlags::SIGNALED,
        };
        // SAFETY: `src` and `dst` live to the end of the function, after every completion.
        unsafe { p.a.qp.post_send(&wr).unwrap() };
    }
    // Polled every cycle: the cycle each CQE is in host memory.
    let mut wc = [WorkCompletion::default()];
    let mut at = Vec::new();
    for _ in 0..1_000_000 {
        while p.a.send_cq.poll(&mut wc) == 1 {
            assert_eq!(wc[0].status, WcStatus::Success);
            at.push(p.cycles());
        }
        if at.len() == N {
            break;
        }
        p.fabric.lock().unwrap().run(1);
    }
    assert_eq!(at.len(), N, "every WRITE completed");
    let mut gaps: Vec<u64> = at.windows(2).skip(N - 13).map(|w| w[1] - w[0]).collect();
    gaps.sort();
    // The frame: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + RETH 16 (a READ response: AETH 4) + payload +
    // ICRC 4, and what the wire adds (FCS, preamble, gap), at the width's line rate and clock.
    let ext = if read { 4 } else { 16 };
    let wire = (14 + 20 + 8 + 12 + ext + len + 4) as f64 + WIRE_OVERHEAD_BYTES;
    let per_cycle = line_bytes_per_cycle(width.line_gbps(), width.clock_mhz());
    (gaps[gaps.len() / 2], (wire / per_cycle).ceil() as u64)
}

/// `bench`'s command line: no options, so that its table is always the same set of measurements.
#[derive(clap::Parser, Debug)]
#[command(
    name = "bench",
    about = "The driver and host-interface measurements of docs/performance.md, as one markdown table",
    long_about = "The driver and host-interface measurements of docs/performance.md, as one markdown \
        table: the driver's post_send cost, doorbell-to-wire and receive-to-CQE latencies, gather and \
        scatter costs and message rates, each with the host model it was measured under."
)]
struct Cli {}

fn main() {
    let _ = <Cli as clap::Parser>::parse();
    println!("| measurement | value | conditions |");
    println!("|---|---|---|");
    let ns = post_send_ns();
    println!(
        "| post_send + doorbell (driver only) | {ns:.0} ns per WQE | RDMA WRITE WQE, bare register-file device, release build |"
    );
    for (width, lat) in [(Width::W64, 50), (Width::W64, 500), (Width::W512, 50)] {
        let (db_push, _) = latencies(width, lat, true);
        println!(
            "| doorbell -> first byte on the MAC, {}-bit, WQE push | {db_push} cycles | WQE through the register window, DMA read latency {lat} cycles |",
            width.bits()
        );
        let (db, cqe) = latencies(width, lat, false);
        println!(
            "| doorbell -> first byte on the MAC, {}-bit | {db} cycles | WQE fetched by DMA, DMA read latency {lat} cycles |",
            width.bits()
        );
        println!(
            "| last byte received -> CQE written, {}-bit | {cqe} cycles (±16) | 256-byte SEND ONLY, store-and-forward |",
            width.bits()
        );
    }
    for width in [Width::W64, Width::W512] {
        let one = gather_cycles(width, 1);
        let four = gather_cycles(width, 4);
        println!(
            "| 64 KiB SEND, doorbell -> last frame on the MAC, {}-bit | {one} cycles from 1 buffer, {four} from 4 | MTU 4096, buffers 3 bytes past a beat, DMA read latency default |",
            width.bits()
        );
    }
    for width in [Width::W64, Width::W512] {
        let one = scatter_cycles(width, 1);
        let four = scatter_cycles(width, 4);
        println!(
            "| 64 KiB SEND, doorbell -> receive completion at B, {}-bit | {one} cycles into 1 buffer, {four} into 4 | MTU 4096, 128-byte receive WQEs, buffers 3 bytes past a beat, the 4 of uneven length (boundaries inside words), DMA read latency default |",
            width.bits()
        );
    }
    for width in [Width::W64, Width::W512] {
        for len in [64usize, 1024] {
            let (gap, line) = message_rate(width, len, false, 1);
            let mhz = width.clock_mhz();
            println!(
                "| message rate, {len}-byte RDMA WRITEs on one QP, {}-bit | {gap} cycles per message ({:.2} M/s at {mhz:.2} MHz; the line: {line} cycles, {:.1} M/s) | signaled, MTU 1024, link latency 100 cycles each way, DMA read latency 50 cycles |",
                width.bits(),
                mhz / gap as f64,
                mhz / line as f64
            );
        }
    }
    for width in [Width::W64, Width::W512] {
        for max in [1u8, regs::RD_ATOMIC_DEPTH as u8] {
            let (gap, line) = message_rate(width, 64, true, max);
            let mhz = width.clock_mhz();
            println!(
                "| message rate, 64-byte RDMA READs on one QP, max_rd_atomic {max}, {}-bit | {gap} cycles per message ({:.2} M/s at {mhz:.2} MHz; the line: {line} cycles per response, {:.1} M/s) | signaled, MTU 1024, link latency 100 cycles each way, DMA read latency 50 cycles |",
                width.bits(),
                mhz / gap as f64,
                mhz / line as f64
            );
        }
    }
}
