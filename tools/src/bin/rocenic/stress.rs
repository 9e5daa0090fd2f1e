//! `rocenic stress`: mixed RC traffic in both directions over a faulty link, every byte and completion
//! checked (see `rocenic_testkit::stress`); prints what ran and what the link did.
use crate::opt;
use rocenic_sim::{FaultPlan, Width};
use rocenic_testkit::stress::{self, StressConfig, KINDS};
use std::time::Instant;

/// `rocenic stress`'s options.
#[derive(clap::Parser, Debug)]
#[command(
    name = "rocenic stress",
    allow_negative_numbers = true,
    about = "Mixed RC operations both ways over a lossy, reordering link, every byte checked",
    long_about = "Both QPs of two co-simulated NICs send a seeded random mix of WRITE, WRITE with \
        immediate, SEND, SEND with immediate, READ, FETCH_ADD and COMPARE_SWAP at once, over a link \
        that drops, reorders, duplicates and corrupts frames; every completion must succeed and every \
        byte is checked against a model."
)]
pub struct Args {
    /// Datapath width: 64 or 512
    #[arg(long, default_value = "64", value_parser = opt::width_parser)]
    width: Width,
    /// Path MTU: 256, 512, 1024, 2048 or 4096
    #[arg(long, value_name = "N", default_value_t = 1024, value_parser = opt::mtu_parser)]
    mtu: u32,
    /// Messages per direction
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = opt::int_parser(1..=1 << 40))]
    messages: u64,
    /// Largest message in bytes (at least an atomic's 8)
    #[arg(long, value_name = "N", default_value_t = 16384,
          value_parser = opt::int_parser(1..=stress::REGION as u64))]
    max_bytes: u64,
    /// Seed of the traffic and of the link's faults
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = opt::int_parser(0..=u64::MAX))]
    seed: u64,
    /// Drop probability per frame
    #[arg(long, value_name = "P", default_value_t = 0.01, value_parser = opt::prob_parser)]
    drop: f64,
    /// Probability a frame is held back 3000 cycles, so later frames overtake it
    #[arg(long, value_name = "P", default_value_t = 0.01, value_parser = opt::prob_parser)]
    reorder: f64,
    /// Probability a frame is delivered twice
    #[arg(long, value_name = "P", default_value_t = 0.001, value_parser = opt::prob_parser)]
    duplicate: f64,
    /// Probability a frame gets a bit flipped that no FCS sees, inside a switch
    #[arg(long, value_name = "P", default_value_t = 0.001, value_parser = opt::prob_parser)]
    corrupt: f64,
    /// Probability a frame gets a bit flipped on the wire, which the receiving MAC marks bad (a failed
    /// FCS) and the NIC drops
    #[arg(long, value_name = "P", default_value_t = 0.0, value_parser = opt::prob_parser)]
    fcs_errors: f64,
    /// Local ACK timeout in core cycles
    #[arg(long, value_name = "N", default_value_t = 20_000, value_parser = opt::int_parser(opt::U32))]
    ack_timeout: u64,
    /// The host returns DMA read completions of different tags out of order, as PCIe may
    #[arg(long)]
    dma_reorder: bool,
    /// Lists of 1 to N entries: every message but an atomic gathered from (a READ scattered over) them,
    /// every receive scattered over them
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = opt::int_parser(1..=rocenic_proto::host::MAX_SEND_SGE as u64))]
    sge: u64,
    /// Work requests each side keeps in flight: source and target regions cut into N slots, one per
    /// message in flight
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = opt::int_parser(1..=stress::MAX_WINDOW as u64))]
    window: u64,
    /// RoCEv2 over IPv6 between fd52:4f43:45::1 and ::2 (default IPv4)
    #[arg(long)]
    ipv6: bool,
    /// Also write waveforms (FILE.port0.vcd, FILE.port1.vcd); ROCENIC_VCD_FROM=CYCLE and
    /// ROCENIC_VCD_TO=CYCLE keep a window of a long run
    #[arg(long, value_name = "FILE")]
    vcd: Option<std::path::PathBuf>,
    /// Every EVERY cycles, a pause storm of LENGTH cycles: PFC frames hold the QPs' priority on both
    /// NICs (the QPs then use DSCP 26, priority 3, lossless), then release it; frames sent during storms
    /// are counted
    #[arg(long, value_name = "EVERY:LENGTH", value_parser = storm_parser)]
    pause_storms: Option<(u64, u64)>,
    /// Only these operations, e.g. READ,CMP_SWAP (default: all, 25% WRITE, 10% WRITE_IMM, 20% SEND,
    /// 10% SEND_IMM, 20% READ, 7.5% FETCH_ADD, 7.5% CMP_SWAP)
    #[arg(long, value_name = "LIST", value_parser = ops_parser)]
    ops: Option<Vec<usize>>,
}

fn storm_parser(s: &str) -> Result<(u64, u64), String> {
    let (e, l) = s
        .split_once(':')
        .ok_or(format!("{s}: EVERY:LENGTH in cycles"))?;
    let every = opt::int_parser(1..=1 << 40)(e)?;
    let length = opt::int_parser(1..=1 << 40)(l)?;
    if length >= every {
        return Err(format!(
            "{s}: a storm of {length} cycles must be shorter than its period {every}"
        ));
    }
    Ok((every, length))
}

fn ops_parser(s: &str) -> Result<Vec<usize>, String> {
    s.split(',')
        .map(|o| {
            KINDS
                .iter()
                .position(|k| k.eq_ignore_ascii_case(o))
                .ok_or(format!(
                    "unknown operation {o} (one of {})",
                    KINDS.join(", ")
                ))
        })
        .collect()
}

/// The run's configuration from the options.
pub fn config(a: Args) -> Result<StressConfig, String> {
    Ok(StressConfig {
        width: a.width,
        mtu: a.mtu,
        messages: a.messages as usize,
        seed: a.seed,
        faults: FaultPlan::none()
            .random(a.corrupt, a.drop)
            .shuffle(a.duplicate, a.reorder, 3000)
            .fcs_errors(a.fcs_errors),
        ack_timeout: a.ack_timeout as u32,
        max_bytes: a.max_bytes as usize,
        kinds: a.ops.unwrap_or_default(),
        host_link: (0, 0.0, 0.0),
        dma_reorder: a.dma_reorder,
        sge: a.sge as usize,
        window: a.window as usize,
        ipv6: a.ipv6,
        vcd: a.vcd,
        pcap: None,
        fast_forward: Default::default(),
        pause_storms: a.pause_storms.unwrap_or((0, 0)),
    })
}

pub fn run(c: StressConfig) -> Result<(), String> {
    let wall = Instant::now();
    let bar = crate::progress::bar(2 * c.messages as u64, "messages");
    let r = stress::run_with_progress(&c, &mut |p| {
        bar.set_position(p.sent);
        bar.set_message(format!("{} cycles", p.cycles));
    });
    bar.finish_and_clear();
    let r = r?;
    let secs = wall.elapsed().as_secs_f64();
    let total: u64 = r.count.iter().sum();
    println!(
        "rocenic stress: {}-bit, MTU {}, seed {}, {} messages per direction, faults: drop {}, reorder {}, duplicate {}, corrupt {}, FCS errors {}",
        c.width.bits(),
        c.mtu,
        c.seed,
        c.messages,
        c.faults.drop_probability,
        c.faults.reorder_probability,
        c.faults.duplicate_probability,
        c.faults.corrupt_probability,
        c.faults.fcs_error_probability
    );
    println!("| operation | messages |");
    println!("|---|---|");
    for (k, n) in KINDS.iter().zip(r.count) {
        println!("| {k} | {n} |");
    }
    println!("| all | {total} ({} bytes) |", r.bytes);
    let l = r.link;
    println!(
        "link: frames {} + {}, dropped {}, reordered {}, duplicated {}, corrupted {}, FCS errors {}",
        l.frames[0], l.frames[1], l.dropped, l.reordered, l.duplicated, l.corrupted, l.fcs_errors
    );
    println!(
        "NICs: NAKs {}, ACK timeouts {}, retransmissions {}, duplicate requests {}, PSN sequence errors {}, ICRC errors {}, FCS errors {}",
        r.naks, r.timeouts, r.retransmits, r.duplicates, r.seq_errors, r.icrc_errors, r.fcs_errors
    );
    if r.storms > 0 {
        println!(
            "pause storms: {}, cycles paused {} (both NICs), frames sent during storms {}",
            r.storms, r.paused_cycles, r.storm_frames
        );
    }
    if r.dma_reordered > 0 {
        println!(
            "host: {} DMA read completions overtook an older request's",
            r.dma_reordered
        );
    }
    println!(
        "result: every completion successful, every byte checked; {} cycles simulated, {:.1} s wall",
        r.cycles, secs
    );
    if r.fast_forward.0 > 0 {
        println!(
            "fast-forward: {} idle cycles ({:.0} %) skipped in {} jumps",
            r.fast_forward.0,
            100.0 * r.fast_forward.0 as f64 / r.cycles.max(1) as f64,
            r.fast_forward.1
        );
    }
    Ok(())
}
