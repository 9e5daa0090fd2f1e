//! Mixed-traffic stress on two co-simulated NICs: both QPs act as requester at once, each sending a seeded
//! random stream of every RC operation (WRITE, WRITE with immediate, SEND, SEND with immediate, READ,
//! FETCH_ADD, COMPARE_SWAP) of random sizes, over a link that drops, corrupts, duplicates and reorders
//! frames. Every completion must be a success and every byte is checked against a model of the peer's
//! memory as each operation completes; no progress for too long is a stall and fails the run.
//! With `sge` > 1 the same traffic goes through gather and scatter lists.
use crate::pair::Pair;
use rocenic_driver::verbs::{
    AccessFlags, MemoryRegion, RecvWr, SendFlags, SendOp, SendWr, Sge, WorkCompletion,
};
use rocenic_driver::{DmaRegion, WcOpcode, WcStatus};
use rocenic_proto::regs;
use rocenic_sim::fault::{Draw, RngCore, SeedableRng, SplitMix64};
use rocenic_sim::{FabricConfig, FastForward, FaultPlan, Width};
use std::collections::VecDeque;

/// What to run.
#[derive(Clone, Debug)]
pub struct StressConfig {
    pub width: Width,
    pub mtu: u32,
    /// Messages per direction.
    pub messages: usize,
    pub seed: u64,
    pub faults: FaultPlan,
    /// Local ACK timeout in core cycles.
    pub ack_timeout: u32,
    /// Largest message in bytes (at most [`REGION`]).
    pub max_bytes: usize,
    /// Operation kinds to draw from, as indices into [`KINDS`] (empty: all, with the default mix).
    pub kinds: Vec<usize>,
    /// Host-link model: read credits, read and write bytes per cycle (0: unlimited).
    pub host_link: (usize, f64, f64),
    /// The host returns read completions of different tags out of order (PCIe-like).
    pub dma_reorder: bool,
    /// Largest list per work request (1 to 4): above 1, every message but an atomic is gathered from (a
    /// READ scattered over) 1 to `sge` entries, and every receive slot is a scatter list of 1 to `sge`
    /// entries, all cut at random points of one contiguous buffer (so the model checks stay the same and
    /// every cut, an empty entry included, goes through the gather and scatter units).
    pub sge: usize,
    /// Work requests each side keeps posted and not yet completed (1 to [`MAX_WINDOW`]). Above 1 the
    /// requester has several in flight (docs/transport.md); the source and target regions are then cut
    /// into `window` slots, message n using slot n mod `window`, so that the messages in flight never
    /// touch the same bytes and each can be checked against the model when it completes.
    pub window: usize,
    /// RoCEv2 over IPv6 (the pair's GIDs [`crate::pair::ipv6`]) instead of IPv4.
    pub ipv6: bool,
    /// Dump each core's signals (`FabricConfig::vcd`; `ROCENIC_VCD_FROM`/`ROCENIC_VCD_TO` keep a window).
    pub vcd: Option<std::path::PathBuf>,
    /// Capture every frame (`FabricConfig::pcap`).
    pub pcap: Option<std::path::PathBuf>,
    /// Idle fast-forward (`FabricConfig::fast_forward`).
    pub fast_forward: FastForward,
    /// Pause storms: every `.0` cycles, for `.1` cycles, each NIC receives PFC frames pausing the
    /// QPs' priority (refreshed every [`STORM_REFRESH`] cycles, each asking for three of those), then one
    /// resuming it. The frames cross the link, faults included. The QPs then run at DSCP 26, priority
    /// 3, the lossless one under the reset map. `(0, 0)`: none.
    pub pause_storms: (u64, u64),
}

/// Cycles between the PFC frames that keep a pause storm going. Each asks for three times this, as a
/// switch refreshes a pause well before the time it asked for runs out: one refresh lost on the lossy
/// link leaves no gap, and a lost XON ends the pause two intervals late instead of after the 0xFFFF
/// quanta a pause without end would ask for (3.4 ms at 10 Gb/s: more than the QPs' whole retry budget, so the
/// requester facing a peer still paused would rightly end in RETRY_EXC_ERR).
pub const STORM_REFRESH: u64 = 2000;
/// Cycles into a storm before frames sent count as sent while paused: one already handed to the MAC
/// goes out.
const STORM_SETTLE: u64 = 500;
/// The lossless priority the QPs use during pause storms, and their DSCP, which maps to it.
const STORM_PRIO: u8 = 3;
const STORM_DSCP: u8 = 26;

/// Largest [`StressConfig::window`].
pub const MAX_WINDOW: usize = 16;

/// Size of each side's source, target and receive regions.
pub const REGION: usize = 256 << 10;
/// Receive slots per side, each `REGION / RECV_SLOTS` bytes.
const RECV_SLOTS: usize = 4;

/// What happened, per operation kind and on the link.
#[derive(Clone, Debug, Default)]
pub struct StressReport {
    /// Completed messages per kind, in [`KINDS`] order.
    pub count: [u64; 7],
    pub bytes: u64,
    pub cycles: u64,
    /// Cycles fast-forward skipped, and the jumps it took (`rocenic_sim::FastForward`).
    pub fast_forward: (u64, u64),
    pub link: rocenic_sim::LinkStats,
    /// Counters of both sides added: naks, ack timeouts, retransmits, duplicates, sequence errors.
    pub naks: u64,
    pub timeouts: u64,
    pub retransmits: u64,
    pub duplicates: u64,
    pub seq_errors: u64,
    pub icrc_errors: u64,
    /// Frames the MACs marked bad (a failed FCS), dropped (RX_FCS_ERRORS of both sides).
    pub fcs_errors: u64,
    /// DMA read requests (both sides) whose completions overtook an older request's.
    pub dma_reordered: u64,
    /// Pause storms run, the cycles both NICs spent paused (RX_PAUSE_DURATION added), and the frames
    /// they sent during the storms after the first [`STORM_SETTLE`] cycles of each (none, with PFC
    /// frames that reach them).
    pub storms: u64,
    pub paused_cycles: u64,
    pub storm_frames: u64,
}

/// The pause storms' state while a run goes.
struct Storms {
    every: u64,
    length: u64,
    start: u64,
    /// In a storm: the cycle of the next refresh, and TX_FRAMES of both NICs once settled.
    on: bool,
    next_refresh: u64,
    settled: Option<[u32; 2]>,
}

impl Storms {
    /// Called every few cycles: starts, refreshes and ends storms, counting frames sent during them.
    fn step(&mut self, pair: &Pair, report: &mut StressReport) {
        if self.every == 0 {
            return;
        }
        let now = pair.cycles();
        let phase = (now - self.start) % self.every;
        let mut f = pair.fabric.lock().unwrap();
        let frames = |f: &mut rocenic_sim::Fabric| [0, 1].map(|p| f.reg_read(p, regs::TX_FRAMES));
        let storm = phase < self.length;
        if storm && (!self.on || now >= self.next_refresh) {
            // The pause time in quanta of the receiving NIC's clock (both NICs run the same).
            let q4 = f.reg_read(0, regs::PFC_QUANTUM_Q4).max(1) as u64;
            let quanta = (3 * STORM_REFRESH * 16).div_ceil(q4).min(0xFFFF) as u16;
            let xoff = crate::conformance::pfc_frame(1 << STORM_PRIO, quanta);
            // A frame "sent" by one port reaches the other.
            f.inject_frame(0, xoff.clone());
            f.inject_frame(1, xoff);
            if !self.on {
                self.on = true;
                self.settled = None;
                report.storms += 1;
            }
            self.next_refresh = now + STORM_REFRESH;
        }
        if self.on && self.settled.is_none() && phase >= STORM_SETTLE {
            self.settled = Some(frames(&mut f));
        }
        if self.on && !storm {
            if let Some(at) = self.settled {
                let n = frames(&mut f);
                report.storm_frames += (0..2).map(|p| n[p].wrapping_sub(at[p]) as u64).sum::<u64>();
            }
            let xon = crate::conformance::pfc_frame(1 << STORM_PRIO, 0);
            f.inject_frame(0, xon.clone());
            f.inject_frame(1, xon);
            self.on = false;
        }
    }
}

pub const KINDS: [&str; 7] = [
    "WRITE",
    "WRITE_IMM",
    "SEND",
    "SEND_IMM",
    "READ",
    "FETCH_ADD",
    "CMP_SWAP",
];

/// One side's buffers and the model of its target region (what the peer may write and read).
/// The MRs come first: fields drop in order, so each is deregistered before its memory is unmapped. A
/// request still on the link when the run ends (a delayed duplicate READ, say) then meets a missing key,
/// not memory the IOMMU no longer maps.
struct Mem {
    src_mr: MemoryRegion,
    tgt_mr: MemoryRegion,
    rbuf_mr: MemoryRegion,
    src: DmaRegion,
    tgt: DmaRegion,
    tgt_model: Vec<u8>,
    rbuf: DmaRegion,
}

/// A message a side has in flight, and what its completion must show.
struct InFlight {
    kind: usize,
    len: usize,
    /// Its number on this side (its wr_id): completions come in posting order.
    msg: usize,
    /// Where in the side's source region its data (or a READ's or atomic's result) is.
    src_off: usize,
    /// Target offset (in the peer's target region) or receive slot.
    off: usize,
    data: Vec<u8>,
    /// Atomics: the operand(s).
    a: u64,
    b: u64,
}

/// A completion the peer's receive CQ must produce, in order.
struct ExpectRecv {
    opcode: WcOpcode,
    len: usize,
    imm: Option<u32>,
    slot: usize,
    /// SEND data to find in the slot (None for WRITE with immediate: the data is in the target region).
    data: Option<Vec<u8>>,
}

fn wc_err(what: &str, wc: &WorkCompletion) -> String {
    format!(
        "{what}: completion {:?} opcode {:?} wr_id {} byte_len {} vendor_err {:#x}",
        wc.status, wc.opcode, wc.wr_id, wc.byte_len, wc.vendor_err
    )
}

/// Runs the stress; Err says what went wrong first.
/// Both sides' counters that are not zero, for a failure message.
fn nonzero_counters(sides: &[&crate::pair::Side; 2]) -> String {
    let mut out = String::new();
    for (i, s) in sides.iter().enumerate() {
        let c: Vec<String> = s
            .ctx
            .counters()
            .into_iter()
            .filter(|(_, v)| *v != 0)
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        out += &format!("[side {i}: {}] ", c.join(" "));
    }
    out
}

/// `len` bytes at `addr` as a list of 1 to `max` entries (how many, and where the cuts fall, drawn from
/// `r`; cuts may coincide, giving empty entries). One entry when `max` is 1.
fn cut_list(r: &mut SplitMix64, addr: u64, len: usize, lkey: u32, max: usize) -> Vec<Sge> {
    let n = if max > 1 {
        1 + r.below(max as u64) as usize
    } else {
        1
    };
    let mut cuts: Vec<usize> = (1..n).map(|_| r.below(len as u64 + 1) as usize).collect();
    cuts.push(0);
    cuts.push(len);
    cuts.sort_unstable();
    cuts.windows(2)
        .map(|c| Sge {
            addr: addr + c[0] as u64,
            length: (c[1] - c[0]) as u32,
            lkey,
        })
        .collect()
}

pub fn run(cfg: &StressConfig) -> Result<StressReport, String> {
    run_with_progress(cfg, &mut |_| {})
}

/// How far a run is: messages sent (both directions) of the total, and the cycles simulated.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub sent: u64,
    pub total: u64,
    pub cycles: u64,
}

/// [`run`], telling `progress` whenever another message is sent.
pub fn run_with_progress(
    cfg: &StressConfig,
    progress: &mut dyn FnMut(Progress),
) -> Result<StressReport, String> {
    let e = |e: rocenic_driver::Error| e.to_string();
    let fc = FabricConfig {
        width: cfg.width,
        host_mem_bytes: 16 << 20,
        faults: cfg.faults.clone(),
        seed: cfg.seed,
        dma_read_credits: cfg.host_link.0,
        dma_read_bytes_per_cycle: cfg.host_link.1,
        dma_write_bytes_per_cycle: cfg.host_link.2,
        dma_reorder: cfg.dma_reorder,
        vcd: cfg.vcd.clone(),
        pcap: cfg.pcap.clone(),
        fast_forward: cfg.fast_forward,
        ..FabricConfig::default()
    };
    if !(1..=rocenic_proto::host::MAX_SEND_SGE).contains(&cfg.sge) {
        return Err(format!("sge must be 1 to 4, not {}", cfg.sge));
    }
    let atomics = cfg.kinds.is_empty() || cfg.kinds.iter().any(|&k| k == 5 || k == 6);
    if atomics && cfg.max_bytes < 8 {
        return Err(format!(
            "max_bytes {} is below an atomic's 8 bytes: raise it or leave FETCH_ADD and CMP_SWAP out",
            cfg.max_bytes
        ));
    }
    if !(1..=MAX_WINDOW).contains(&cfg.window) {
        return Err(format!(
            "window must be 1 to {MAX_WINDOW}, not {}",
            cfg.window
        ));
    }
    // Source and target slots, one per message in flight.
    let tslot = REGION / cfg.window;
    let params = crate::pair::PairParams {
        max_send_sge: cfg.sge,
        max_recv_sge: cfg.sge,
        gid: cfg
            .ipv6
            .then(|| [crate::pair::ipv6(0), crate::pair::ipv6(1)]),
        traffic_class: if cfg.pause_storms.0 != 0 {
            STORM_DSCP << 2
        } else {
            0
        },
        ..crate::pair::PairParams::new(cfg.mtu, cfg.ack_timeout)
    };
    if cfg.pause_storms.0 != 0 && cfg.pause_storms.1 >= cfg.pause_storms.0 {
        return Err(format!(
            "pause storms of {} cycles every {}: a storm must be shorter than its period",
            cfg.pause_storms.1, cfg.pause_storms.0
        ));
    }
    let pair = Pair::connect_with(fc, &params).map_err(e)?;
    let beat = pair.a.ctx.beat_bytes();
    let max_bytes = cfg.max_bytes.min(REGION / RECV_SLOTS).min(tslot);
    let sides = [&pair.a, &pair.b];
    let mut mems = Vec::new();
    for s in sides {
        let src = s.ctx.alloc_dma(REGION).map_err(e)?;
        let tgt = s.ctx.alloc_dma(REGION).map_err(e)?;
        let rbuf = s.ctx.alloc_dma(REGION).map_err(e)?;
        let init: Vec<u8> = (0..REGION).map(|i| (i * 13 + 7) as u8).collect();
        tgt.write(0, &init).map_err(e)?;
        let src_mr =
            s.pd.reg_mr(&src, 0, REGION, AccessFlags::LOCAL_WRITE)
                .map_err(e)?;
        let tgt_mr =
            s.pd.reg_mr(
                &tgt,
                0,
                REGION,
                AccessFlags::LOCAL_WRITE
                    | AccessFlags::REMOTE_WRITE
                    | AccessFlags::REMOTE_READ
                    | AccessFlags::REMOTE_ATOMIC,
            )
            .map_err(e)?;
        let rbuf_mr =
            s.pd.reg_mr(&rbuf, 0, REGION, AccessFlags::LOCAL_WRITE)
                .map_err(e)?;
        mems.push(Mem {
            src,
            src_mr,
            tgt,
            tgt_mr,
            tgt_model: init,
            rbuf,
            rbuf_mr,
        });
    }
    let slot_bytes = REGION / RECV_SLOTS;
    let rbufs: Vec<(u64, u32)> = mems
        .iter()
        .map(|m| (m.rbuf_mr.addr(), m.rbuf_mr.lkey()))
        .collect();
    let cut_rng = std::cell::RefCell::new(SplitMix64::seed_from_u64(cfg.seed ^ 0x5C47_7E12));
    let post_recv = |side: usize, slot: usize| -> Result<(), String> {
        let (addr, lkey) = rbufs[side];
        let list = cut_list(
            &mut cut_rng.borrow_mut(),
            addr + (slot * slot_bytes) as u64,
            slot_bytes,
            lkey,
            cfg.sge,
        );
        // SAFETY: the receive region lives until the end of `run`, after every completion was polled or
        // the QPs were destroyed.
        unsafe {
            sides[side].qp.post_recv_scatter(&RecvWr {
                wr_id: slot as u64,
                sg_list: &list,
            })
        }
        .map_err(e)
    };
    for side in 0..2 {
        for slot in 0..RECV_SLOTS {
            post_recv(side, slot)?;
        }
    }
    let mut next_slot = [0usize; 2];
    let mut expect: [VecDeque<ExpectRecv>; 2] = [VecDeque::new(), VecDeque::new()];
    let mut rng = [
        SplitMix64::seed_from_u64(cfg.seed ^ 0xA5A5_0000),
        SplitMix64::seed_from_u64(cfg.seed ^ 0x5A5A_0000_0000),
    ];
    let mut inflight: [VecDeque<InFlight>; 2] = [VecDeque::new(), VecDeque::new()];
    let mut sent = [0usize; 2];
    let mut report = StressReport::default();
    let start = pair.cycles();
    let mut storms = Storms {
        every: cfg.pause_storms.0,
        length: cfg.pause_storms.1,
        start,
        on: false,
        next_refresh: 0,
        settled: None,
    };
    let mut last_progress = start;
    let stall = 200 * cfg.ack_timeout as u64 + 2_000_000;
    let mut wc = [WorkCompletion::default()];

    // Every error names the cycle it was found at, for a VCD window (`--vcd`, ROCENIC_VCD_FROM/TO).
    let mut run_loop = || -> Result<(), String> {
        // Until every message is sent and completed, and every receive completion it implies has arrived.
        let mut told = 0;
        while sent.iter().any(|&n| n < cfg.messages)
            || inflight.iter().any(|q| !q.is_empty())
            || expect.iter().any(|q| !q.is_empty())
        {
            let now = (sent[0] + sent[1]) as u64;
            if now != told {
                told = now;
                progress(Progress {
                    sent: now,
                    total: 2 * cfg.messages as u64,
                    cycles: pair.cycles(),
                });
            }
            for side in 0..2 {
                while inflight[side].len() < cfg.window && sent[side] < cfg.messages {
                    let peer = 1 - side;
                    let base = (sent[side] % cfg.window) * tslot;
                    let r = &mut rng[side];
                    let kind = if cfg.kinds.is_empty() {
                        match r.below(100) {
                            0..=24 => 0,
                            25..=34 => 1,
                            35..=54 => 2,
                            55..=64 => 3,
                            65..=84 => 4,
                            85..=92 => 5,
                            _ => 6,
                        }
                    } else {
                        cfg.kinds[r.below(cfg.kinds.len() as u64) as usize]
                    };
                    let len = match kind {
                        5 | 6 => 8,
                        _ => match r.below(10) {
                            0..=4 => r.below(257) as usize,
                            5..=8 => r.below(4 * cfg.mtu as u64 + 1) as usize,
                            _ => r.below(max_bytes as u64 + 1) as usize,
                        },
                    }
                    .min(max_bytes);
                    let off = match kind {
                        5 | 6 => base + (r.below((tslot / 8) as u64) * 8) as usize,
                        _ => base + (r.below(((tslot - len) / beat) as u64 + 1) as usize) * beat,
                    };
                    let data: Vec<u8> = (0..len).map(|_| r.next_u64() as u8).collect();
                    let imm = r.next_u64() as u32;
                    let (a, b) = (r.next_u64(), r.next_u64());
                    let pm = &mems[peer];
                    let m = &mems[side];
                    m.src.write(base, &data).map_err(e)?;
                    let remote_addr = pm.tgt_mr.addr() + off as u64;
                    let rkey = pm.tgt_mr.rkey();
                    // For COMPARE_SWAP, compare with the current value half of the time so both outcomes happen.
                    let cur = u64::from_le_bytes(
                        pm.tgt_model[off.min(REGION - 8)..][..8].try_into().unwrap(),
                    );
                    let compare = if a & 1 == 0 { cur } else { b };
                    let op = match kind {
                        0 => SendOp::RdmaWrite { remote_addr, rkey },
                        1 => SendOp::RdmaWriteWithImm {
                            remote_addr,
                            rkey,
                            imm,
                        },
                        2 => SendOp::Send,
                        3 => SendOp::SendWithImm { imm },
                        4 => SendOp::RdmaRead { remote_addr, rkey },
                        5 => SendOp::AtomicFetchAdd {
                            remote_addr,
                            rkey,
                            add: a,
                        },
                        _ => SendOp::AtomicCmpSwap {
                            remote_addr,
                            rkey,
                            compare,
                            swap: a,
                        },
                    };
                    if matches!(kind, 1..=3) {
                        let slot = next_slot[peer];
                        next_slot[peer] = (slot + 1) % RECV_SLOTS;
                        expect[peer].push_back(ExpectRecv {
                            opcode: if kind == 1 {
                                WcOpcode::RecvRdmaWithImm
                            } else {
                                WcOpcode::Recv
                            },
                            len,
                            imm: (kind != 2).then_some(imm),
                            slot,
                            data: (kind != 1).then(|| data.clone()),
                        });
                    }
                    let entries = if matches!(kind, 5 | 6) { 1 } else { cfg.sge };
                    let list = cut_list(
                        r,
                        m.src_mr.addr() + base as u64,
                        len,
                        m.src_mr.lkey(),
                        entries,
                    );
                    let wr = SendWr {
                        wr_id: sent[side] as u64,
                        op,
                        sg_list: &list,
                        flags: SendFlags::SIGNALED,
                    };
                    // SAFETY: the source region lives until the end of `run`; this message's slot of it is not
                    // rewritten before its completion (the next message to use the slot is posted after it).
                    unsafe { sides[side].qp.post_send_gather(&wr) }.map_err(e)?;
                    inflight[side].push_back(InFlight {
                        kind,
                        len,
                        src_off: base,
                        msg: sent[side],
                        off,
                        data,
                        a,
                        b: compare,
                    });
                    sent[side] += 1;
                }
            }
            pair.a.ctx.wait();
            storms.step(&pair, &mut report);

            for side in 0..2 {
                // Receive completions: in order, each as expected, its slot reposted.
                while sides[side].recv_cq.poll(&mut wc) == 1 {
                    let w = wc[0];
                    if w.status == WcStatus::WrFlushErr {
                        // The QP is in ERR: say why, from the send side if it knows.
                        let mut s = [WorkCompletion::default()];
                        let first = (sides[side].send_cq.poll(&mut s) == 1).then_some(s[0]);
                        return Err(format!(
                            "side {side}: QP in ERR (receive flushed); first send completion {:?}; \
                             in flight {:?}; counters {}",
                            first,
                            inflight[side]
                                .front()
                                .map(|f| (KINDS[f.kind], f.len, f.off)),
                            nonzero_counters(&sides)
                        ));
                    }
                    let x = expect[side].pop_front().ok_or_else(|| {
                        wc_err(&format!("side {side}: unexpected receive completion"), &w)
                    })?;
                    let ok = w.status == WcStatus::Success
                        && w.opcode == x.opcode
                        && w.byte_len as usize == x.len
                        && w.imm_data == x.imm
                        && w.wr_id == x.slot as u64;
                    if !ok {
                        return Err(wc_err(
                            &format!(
                                "side {side}: receive, expected {:?} len {} imm {:?} slot {}",
                                x.opcode, x.len, x.imm, x.slot
                            ),
                            &w,
                        ));
                    }
                    if let Some(d) = &x.data {
                        let mut got = vec![0; d.len()];
                        mems[side]
                            .rbuf
                            .read(x.slot * slot_bytes, &mut got)
                            .map_err(e)?;
                        if &got != d {
                            return Err(format!(
                                "side {side}: SEND data differs in slot {}",
                                x.slot
                            ));
                        }
                    }
                    post_recv(side, x.slot)?;
                    last_progress = pair.cycles();
                }
                // Send completions: check the peer's memory or ours against the model.
                while sides[side].send_cq.poll(&mut wc) == 1 {
                    let w = wc[0];
                    let f = inflight[side].pop_front().ok_or_else(|| {
                        wc_err(&format!("side {side}: unexpected send completion"), &w)
                    })?;
                    let what = format!(
                        "side {side} message {} {} len {} off {:#x}",
                        w.wr_id, KINDS[f.kind], f.len, f.off
                    );
                    if w.status != WcStatus::Success || w.wr_id != f.msg as u64 {
                        return Err(wc_err(&format!("{what} (expected wr_id {})", f.msg), &w));
                    }
                    let (m, pm) = if side == 0 {
                        let (x, y) = mems.split_at_mut(1);
                        (&mut x[0], &mut y[0])
                    } else {
                        let (x, y) = mems.split_at_mut(1);
                        (&mut y[0], &mut x[0])
                    };
                    match f.kind {
                        0 | 1 => {
                            pm.tgt_model[f.off..f.off + f.len].copy_from_slice(&f.data);
                            let mut got = vec![0; f.len];
                            pm.tgt.read(f.off, &mut got).map_err(e)?;
                            if got != f.data {
                                return Err(format!("{what}: written data differs"));
                            }
                        }
                        4 => {
                            let mut got = vec![0; f.len];
                            m.src.read(f.src_off, &mut got).map_err(e)?;
                            if got[..] != pm.tgt_model[f.off..f.off + f.len] {
                                let want = &pm.tgt_model[f.off..f.off + f.len];
                                let bad = (0..f.len).filter(|&i| got[i] != want[i]);
                                let (first, last, n) = bad
                                    .fold((usize::MAX, 0, 0), |(a, _, n), i| (a.min(i), i, n + 1));
                                return Err(format!(
                                    "{what}: data read differs from the model in {n} bytes, \
                                     first at {first}, last at {last}"
                                ));
                            }
                        }
                        5 | 6 => {
                            let old = u64::from_le_bytes(
                                pm.tgt_model[f.off..f.off + 8].try_into().unwrap(),
                            );
                            let mut got = [0u8; 8];
                            m.src.read(f.src_off, &mut got).map_err(e)?;
                            if u64::from_le_bytes(got) != old {
                                return Err(format!(
                                    "{what}: original value {:#x}, model {old:#x}",
                                    u64::from_le_bytes(got)
                                ));
                            }
                            let new = if f.kind == 5 {
                                old.wrapping_add(f.a)
                            } else if old == f.b {
                                f.a
                            } else {
                                old
                            };
                            pm.tgt_model[f.off..f.off + 8].copy_from_slice(&new.to_le_bytes());
                            pm.tgt.read(f.off, &mut got).map_err(e)?;
                            if u64::from_le_bytes(got) != new {
                                return Err(format!(
                                    "{what}: word is {:#x}, model {new:#x}",
                                    u64::from_le_bytes(got)
                                ));
                            }
                        }
                        _ => {}
                    }
                    report.count[f.kind] += 1;
                    report.bytes += f.len as u64;
                    last_progress = pair.cycles();
                }
            }
            if pair.cycles() - last_progress > stall {
                return Err(format!(
                    "stall at cycle {}: no completion for {stall} cycles (sent {sent:?}, in flight {:?}); TX_STATUS {:08x?}; \
                     counters {}",
                    pair.cycles(),
                    inflight
                        .iter()
                        .map(|q| q.iter().map(|f| (KINDS[f.kind], f.len)).collect::<Vec<_>>())
                        .collect::<Vec<_>>(),
                    {
                        let mut f = pair.fabric.lock().unwrap();
                        [f.reg_read(0, regs::TX_STATUS), f.reg_read(1, regs::TX_STATUS)]
                    },
                    nonzero_counters(&sides)
                ));
            }
        }
        Ok(())
    };
    run_loop().map_err(|m| format!("at cycle {}: {m}", pair.cycles()))?;
    report.cycles = pair.cycles() - start;
    {
        let mut f = pair.fabric.lock().unwrap();
        report.paused_cycles = (0..2)
            .map(|p| f.reg_read(p, regs::RX_PAUSE_DURATION) as u64)
            .sum();
    }
    report.fast_forward = pair.fabric.lock().unwrap().fast_forward_stats();
    report.link = pair.fabric.lock().unwrap().link_stats();
    {
        let mut f = pair.fabric.lock().unwrap();
        report.dma_reordered = (0..2).map(|p| f.nic_mut(p).dma_reads_reordered()).sum();
    }
    for s in sides {
        let c = s.ctx.counters();
        let get = |n: &str| c.iter().find(|(k, _)| k == n).map_or(0, |(_, v)| *v);
        report.naks += get("rx_naks");
        report.timeouts += get("ack_timeouts");
        report.retransmits += get("retransmits");
        report.duplicates += get("rx_dup_requests");
        report.seq_errors += get("rx_seq_errors");
        report.icrc_errors += get("rx_icrc_errors");
        report.fcs_errors += get("rx_fcs_errors");
    }
    Ok(report)
}
