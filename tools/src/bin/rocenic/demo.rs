//! `rocenic demo`: the main job. Two co-simulated NICs, connected RC QPs, an RDMA WRITE and a SEND from A
//! to B, B's memory checked, a pcap of every frame.
use crate::opt;
use rocenic_driver::{
    AccessFlags, QpState, RecvRequest, SendFlags, SendOp, Sge, WcStatus, WorkRequest,
};
use rocenic_sim::{FabricConfig, FaultPlan, Width};
use rocenic_testkit::pair::{self, Pair, PairParams};
use std::path::PathBuf;
use std::time::Instant;

/// `rocenic demo`'s options.
#[derive(clap::Parser, Debug)]
#[command(
    name = "rocenic demo",
    allow_negative_numbers = true,
    about = "Two co-simulated NICs back to back: RDMA WRITE, SEND, READ and atomics, data checked, pcap",
    long_about = "Two co-simulated rocenic NICs (Verilated RTL) back to back: A does an RDMA WRITE to B, a \
        SEND, an RDMA READ of what it wrote and two atomics on it; memory is checked byte for byte \
        against a model, completions are polled, and every frame goes into a pcap."
)]
pub struct Args {
    /// Datapath width: 64 or 512
    #[arg(long, default_value = "64", value_parser = opt::width_parser)]
    width: Width,
    /// RDMA WRITE size in bytes (up to 1 GiB: the buffers live in the simulated host memory)
    #[arg(long, value_name = "N", default_value_t = 1 << 20, value_parser = opt::int_parser(0..=1 << 30))]
    write_bytes: u64,
    /// SEND size in bytes
    #[arg(long, value_name = "N", default_value_t = 1024, value_parser = opt::int_parser(0..=1 << 30))]
    send_bytes: u64,
    /// Path MTU: 256, 512, 1024, 2048 or 4096
    #[arg(long, value_name = "N", default_value_t = 4096, value_parser = opt::mtu_parser)]
    mtu: u32,
    /// Capture file (default out/demo-<width>.pcap)
    #[arg(long, value_name = "FILE")]
    pcap: Option<PathBuf>,
    /// Seed of the link's fault injection
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = opt::int_parser(0..=u64::MAX))]
    seed: u64,
    /// Flip bit BIT of the FRAME-th frame A sends (repeatable)
    #[arg(long, value_name = "FRAME:BIT", value_parser = flip_parser)]
    flip_bit: Vec<(u64, usize)>,
    /// Corrupt each frame with probability P (seeded), unseen by the FCS (only the ICRC catches it)
    #[arg(long, value_name = "P", value_parser = opt::prob_parser)]
    corrupt: Option<f64>,
    /// Flip a bit of each frame on the wire with probability P (seeded): the receiving MAC marks it bad
    /// and the NIC drops it (RX_FCS_ERRORS)
    #[arg(long, value_name = "P", value_parser = opt::prob_parser)]
    fcs_errors: Option<f64>,
    /// Local ACK timeout in core cycles
    #[arg(long, value_name = "N", default_value_t = 20_000, value_parser = opt::int_parser(opt::U32))]
    ack_timeout: u64,
    /// Each MAC's line rate in Gb/s (default: 10 at 64 bits, 100 at 512; 0: no limit, the core's
    /// datapath rate)
    #[arg(long, value_name = "G", value_parser = rate_parser)]
    line_gbps: Option<f64>,
    /// Put both ports on 802.1Q VLAN VID (1..4094): every RoCE frame tagged
    #[arg(long, value_name = "VID", value_parser = opt::int_parser(1..=4094))]
    vlan: Option<u64>,
    /// RoCEv2 over IPv6 between fd52:4f43:45::1 (A) and ::2 (B), each port's GID table entry 0 (default
    /// IPv4, 10.0.0.1 and .2)
    #[arg(long)]
    ipv6: bool,
    /// Give up after N simulated cycles
    #[arg(long, value_name = "N", default_value_t = 5_000_000, value_parser = opt::int_parser(1..=u64::MAX))]
    max_cycles: u64,
    /// Also write waveforms (FILE.port0.vcd, FILE.port1.vcd)
    #[arg(long, value_name = "FILE")]
    vcd: Option<PathBuf>,
    /// At the end, each NIC's counters and QPs as `rocenic stat` prints them
    #[arg(long)]
    stat: bool,
}

fn flip_parser(v: &str) -> Result<(u64, usize), String> {
    let (f, b) = v
        .split_once(':')
        .ok_or(format!("wants FRAME:BIT, got {v}"))?;
    let f = f.parse().map_err(|_| format!("bad frame number {f}"))?;
    let b = b.parse().map_err(|_| format!("bad bit number {b}"))?;
    Ok((f, b))
}

fn rate_parser(v: &str) -> Result<f64, String> {
    v.parse()
        .ok()
        .filter(|g: &f64| g.is_finite() && *g >= 0.0)
        .ok_or(format!("not a rate in Gb/s: {v}"))
}

pub struct Opts {
    width: Width,
    write_bytes: usize,
    send_bytes: usize,
    mtu: u32,
    pcap: PathBuf,
    seed: u64,
    faults: FaultPlan,
    ack_timeout: u32,
    line_gbps: Option<f64>,
    max_cycles: u64,
    vcd: Option<PathBuf>,
    vlan: Option<u16>,
    ipv6: bool,
    stat: bool,
}

/// The options as the run takes them.
pub fn opts(a: Args) -> Opts {
    let mut faults = FaultPlan::none();
    if let Some(p) = a.corrupt {
        faults = faults.random(p, 0.0);
    }
    if let Some(p) = a.fcs_errors {
        faults = faults.fcs_errors(p);
    }
    for (f, b) in a.flip_bit {
        faults = faults.flip_bit(0, f, b);
    }
    Opts {
        width: a.width,
        write_bytes: a.write_bytes as usize,
        send_bytes: a.send_bytes as usize,
        mtu: a.mtu,
        pcap: a
            .pcap
            .unwrap_or_else(|| PathBuf::from(format!("out/demo-{}.pcap", a.width.bits()))),
        seed: a.seed,
        faults,
        ack_timeout: a.ack_timeout as u32,
        line_gbps: a.line_gbps,
        max_cycles: a.max_cycles,
        vcd: a.vcd,
        vlan: a.vlan.map(|v| v as u16),
        ipv6: a.ipv6,
        stat: a.stat,
    }
}

pub fn run(o: Opts) -> Result<(), String> {
    if let Some(dir) = o.pcap.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let host_mem = (2 * o.write_bytes + (4 << 20)).next_power_of_two();
    let cfg = FabricConfig {
        width: o.width,
        host_mem_bytes: host_mem,
        pcap: Some(o.pcap.clone()),
        faults: o.faults.clone(),
        seed: o.seed,
        vcd: o.vcd.clone(),
        line_gbps: o.line_gbps,
        ..FabricConfig::default()
    };
    let wall = Instant::now();
    let e = |e: rocenic_driver::Error| e.to_string();
    let params = PairParams {
        gid: o.ipv6.then(|| [pair::ipv6(0), pair::ipv6(1)]),
        ..PairParams::new(o.mtu, o.ack_timeout)
    };
    let pair = Pair::connect_with(cfg, &params).map_err(e)?;
    let (a, b) = (&pair.a, &pair.b);
    a.ctx.set_vlan(o.vlan).map_err(e)?;
    b.ctx.set_vlan(o.vlan).map_err(e)?;
    // A's source buffers and B's targets, each registered in its side's PD.
    // The SEND's source follows the WRITE's, on the next page (any byte would do; a page keeps the
    // capture's addresses easy to read).
    let send_off = o.write_bytes.next_multiple_of(4096);
    let src = a.ctx.alloc_dma(send_off + o.send_bytes.max(1)).map_err(e)?;
    let dst = b.ctx.alloc_dma(o.write_bytes.max(1)).map_err(e)?;
    let rbuf = b
        .ctx
        .alloc_dma(o.send_bytes.max(o.mtu as usize))
        .map_err(e)?;
    let pattern: Vec<u8> = (0..send_off + o.send_bytes)
        .map(|i| (i * 7 + (i >> 8) * 13 + 1) as u8)
        .collect();
    src.write(0, &pattern).map_err(e)?;
    dst.write(0, &vec![0; o.write_bytes]).map_err(e)?;
    let src_mr =
        a.pd.reg_mr(&src, 0, src.len(), AccessFlags::LOCAL_WRITE)
            .map_err(e)?;
    let dst_mr =
        b.pd.reg_mr(
            &dst,
            0,
            dst.len(),
            AccessFlags::LOCAL_WRITE
                | AccessFlags::REMOTE_WRITE
                | AccessFlags::REMOTE_READ
                | AccessFlags::REMOTE_ATOMIC,
        )
        .map_err(e)?;
    let rbuf_mr =
        b.pd.reg_mr(&rbuf, 0, rbuf.len(), AccessFlags::LOCAL_WRITE)
            .map_err(e)?;
    let start_cycles = pair.cycles();

    // B posts a receive; A writes, then sends.
    // SAFETY: every buffer lives until the end of this function, after all completions were polled.
    unsafe {
        b.qp.post_recv(&RecvRequest {
            wr_id: 100,
            sge: Sge {
                addr: rbuf_mr.addr(),
                length: rbuf.len() as u32,
                lkey: rbuf_mr.lkey(),
            },
        })
        .map_err(e)?;
        a.qp.post_send(&WorkRequest {
            wr_id: 1,
            op: SendOp::RdmaWrite {
                remote_addr: dst_mr.addr(),
                rkey: dst_mr.rkey(),
            },
            sge: Sge {
                addr: src_mr.addr(),
                length: o.write_bytes as u32,
                lkey: src_mr.lkey(),
            },
            flags: SendFlags::SIGNALED,
        })
        .map_err(e)?;
        a.qp.post_send(&WorkRequest {
            wr_id: 2,
            op: SendOp::Send,
            sge: Sge {
                addr: src_mr.addr() + send_off as u64,
                length: o.send_bytes as u32,
                lkey: src_mr.lkey(),
            },
            flags: SendFlags::SIGNALED,
        })
        .map_err(e)?;
    }
    let wait = |cq, what: &str| {
        pair.wait_for(cq, o.max_cycles).ok_or(format!(
            "no completion for {what} after {} cycles",
            o.max_cycles
        ))
    };
    // Each completion is checked as it arrives, so an error is reported by the first one that has it.
    let ok = |name: &str, wc: rocenic_driver::WorkCompletion, id: u64| {
        if wc.status != WcStatus::Success || wc.wr_id != id {
            return Err(format!(
                "{name} completed with {:?} (wr_id {}, vendor_err {:#x})",
                wc.status, wc.wr_id, wc.vendor_err
            ));
        }
        Ok(wc)
    };
    ok("RDMA WRITE", wait(&a.send_cq, "the RDMA WRITE")?, 1)?;
    let write_cycles = pair.cycles() - start_cycles;
    ok("SEND", wait(&a.send_cq, "the SEND")?, 2)?;
    let r = ok("RECV", wait(&b.recv_cq, "the receive")?, 100)?;
    if r.byte_len as usize != o.send_bytes {
        return Err(format!(
            "receive completion says {} bytes, {} were sent",
            r.byte_len, o.send_bytes
        ));
    }
    // Byte-for-byte check of B's memory.
    let mut got = vec![0; o.write_bytes];
    dst.read(0, &mut got).map_err(e)?;
    if let Some(i) = (0..o.write_bytes).find(|&i| got[i] != pattern[i]) {
        return Err(format!(
            "RDMA WRITE data differs at byte {i}: {:#04x} != {:#04x}",
            got[i], pattern[i]
        ));
    }
    let mut got = vec![0; o.send_bytes];
    rbuf.read(0, &mut got).map_err(e)?;
    if got[..] != pattern[send_off..send_off + o.send_bytes] {
        return Err("SEND data differs from what A sent".into());
    }
    // A reads back the start of what it wrote, then runs a FETCH_ADD and a COMPARE_SWAP on B's first
    // word; B's memory and A's results are checked against a model.
    let read_bytes = o.write_bytes.min(64 << 10);
    let back = a.ctx.alloc_dma(read_bytes.max(64)).map_err(e)?;
    let back_mr =
        a.pd.reg_mr(&back, 0, back.len(), AccessFlags::LOCAL_WRITE)
            .map_err(e)?;
    let word0 = u64::from_le_bytes(pattern[..8].try_into().unwrap());
    let atomics = [
        SendOp::AtomicFetchAdd {
            remote_addr: dst_mr.addr(),
            rkey: dst_mr.rkey(),
            add: 0x100,
        },
        SendOp::AtomicCmpSwap {
            remote_addr: dst_mr.addr(),
            rkey: dst_mr.rkey(),
            compare: word0.wrapping_add(0x100),
            swap: 0x0123_4567_89AB_CDEF,
        },
    ];
    // SAFETY: as above; `back` lives to the end of the function.
    unsafe {
        a.qp.post_send(&WorkRequest {
            wr_id: 3,
            op: SendOp::RdmaRead {
                remote_addr: dst_mr.addr(),
                rkey: dst_mr.rkey(),
            },
            sge: Sge {
                addr: back_mr.addr(),
                length: read_bytes as u32,
                lkey: back_mr.lkey(),
            },
            flags: SendFlags::SIGNALED,
        })
        .map_err(e)?;
    }
    ok("RDMA READ", wait(&a.send_cq, "the RDMA READ")?, 3)?;
    let mut got = vec![0; read_bytes];
    back.read(0, &mut got).map_err(e)?;
    if got[..] != pattern[..read_bytes] {
        return Err("RDMA READ data differs from B's memory".into());
    }
    let mut originals = Vec::new();
    for (i, op) in atomics.into_iter().enumerate() {
        // SAFETY: as above.
        unsafe {
            a.qp.post_send(&WorkRequest {
                wr_id: 4 + i as u64,
                op,
                sge: Sge {
                    addr: back_mr.addr(),
                    length: 8,
                    lkey: back_mr.lkey(),
                },
                flags: SendFlags::SIGNALED,
            })
            .map_err(e)?;
        }
        ok("atomic", wait(&a.send_cq, "an atomic")?, 4 + i as u64)?;
        let mut v = [0u8; 8];
        back.read(0, &mut v).map_err(e)?;
        originals.push(u64::from_le_bytes(v));
    }
    let mut v = [0u8; 8];
    dst.read(0, &mut v).map_err(e)?;
    let expect = (
        vec![word0, word0.wrapping_add(0x100)],
        0x0123_4567_89AB_CDEFu64,
    );
    if (originals.clone(), u64::from_le_bytes(v)) != expect {
        return Err(format!(
            "atomics: originals {originals:#x?}, word {:#x}; expected {expect:#x?}",
            u64::from_le_bytes(v)
        ));
    }
    if a.qp.query() != QpState::Rts || b.qp.query() != QpState::Rts {
        return Err("a QP left RTS".into());
    }

    let mut f = pair.fabric.lock().unwrap();
    f.flush_pcap()
        .map_err(|e| format!("cannot write {}: {e}", o.pcap.display()))?;
    let cycles = f.cycles() - start_cycles;
    let stats = f.link_stats();
    drop(f);
    let wall_s = wall.elapsed().as_secs_f64();
    let mhz = o.width.clock_mhz();
    let counters_a = a.ctx.counters();
    let counters_b = b.ctx.counters();
    let get = |c: &[(String, u64)], n: &str| c.iter().find(|(k, _)| k == n).map_or(0, |(_, v)| *v);
    println!(
        "rocenic demo: {}-bit core at {} MHz, path MTU {}",
        o.width.bits(),
        mhz,
        o.mtu
    );
    println!("  RDMA WRITE {} bytes + SEND {} bytes from A to B, RDMA READ {} bytes back, FETCH_ADD + COMPARE_SWAP:", o.write_bytes, o.send_bytes, read_bytes);
    println!("              data and atomic results checked byte for byte, 6 completions");
    println!("  frames      A->B {} ({} bytes), B->A {} ({} bytes); corrupted on the link {}, FCS errors {}, dropped {}",
        stats.frames[0], stats.bytes[0], stats.frames[1], stats.bytes[1], stats.corrupted, stats.fcs_errors, stats.dropped);
    println!("  recovery    B: FCS errors {}, ICRC errors {}, receive-buffer overflows {}, PSN sequence errors {}, duplicates {}; A: NAKs {}, timeouts {}, retransmits {}",
        get(&counters_b, "rx_fcs_errors"), get(&counters_b, "rx_icrc_errors"), get(&counters_b, "rx_drop_overflow"), get(&counters_b, "rx_seq_errors"), get(&counters_b, "rx_dup_requests"),
        get(&counters_a, "rx_naks"), get(&counters_a, "ack_timeouts"), get(&counters_a, "retransmits"));
    println!(
        "  simulated   {} cycles = {:.1} us ({} cycles for the WRITE)",
        cycles,
        cycles as f64 / mhz,
        write_cycles
    );
    println!(
        "  goodput     WRITE {:.2} bytes/cycle = {:.2} Gb/s at {} MHz",
        o.write_bytes as f64 / write_cycles as f64,
        o.write_bytes as f64 * 8.0 * mhz / write_cycles as f64 / 1000.0,
        mhz
    );
    println!(
        "  wall time   {:.2} s ({:.2} M cycles/s for both NICs)",
        wall_s,
        cycles as f64 / wall_s / 1e6
    );
    println!("  pcap        {}", o.pcap.display());
    if o.stat {
        for (name, side) in [("A", a), ("B", b)] {
            let snap = crate::stat::Snapshot::take(&side.ctx, &[])?;
            print!("\nrocenic stat of {name}:\n{}", snap.rdma_lines());
        }
    }
    Ok(())
}
