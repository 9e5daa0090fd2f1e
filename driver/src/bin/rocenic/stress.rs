//! `rocenic stress`: mixed RC traffic in both directions over a faulty link, every byte and completion
//! checked (see `rocenic_driver::stress`); prints what ran and what the link did.
use crate::opt;
use rocenic_driver::stress::{self, StressConfig, KINDS};
use rocenic_sim::{FaultPlan, Width};
use std::time::Instant;

pub const USAGE: &str = "usage: rocenic stress [options]

Both QPs of two co-simulated NICs send a seeded random mix of WRITE, WRITE with immediate, SEND, SEND with
immediate, READ, FETCH_ADD and COMPARE_SWAP at once, over a link that drops, reorders, duplicates and
corrupts frames; every completion must succeed and every byte is checked against a model.

options:
  --width 64|512      datapath width (default 64)
  --mtu N             path MTU (default 1024)
  --messages N        messages per direction (default 1000)
  --max-bytes N       largest message (default 16384)
  --seed N            seed of the traffic and of the link's faults (default 1)
  --drop P            drop probability per frame (default 0.01)
  --reorder P         probability a frame is held back 3000 cycles, so later frames overtake it (default 0.01)
  --duplicate P       probability a frame is delivered twice (default 0.001)
  --corrupt P         probability a frame gets a bit flipped that no FCS sees, inside a switch (default 0.001)
  --fcs-errors P      probability a frame gets a bit flipped on the wire, which the receiving MAC marks
                      bad (a failed FCS) and the NIC drops (default 0)
  --ack-timeout N     local ACK timeout in core cycles (default 20000)
  --dma-reorder       the host returns DMA read completions of different tags out of order, as PCIe may
  --sge N             lists of 1 to N entries (N at most 4): every message but an atomic gathered from
                      (a READ scattered over) them, every receive scattered over them (default 1)
  --window N          work requests each side keeps in flight, 1 to 16 (default 1): source and target
                      regions cut into N slots, one per message in flight
  --ipv6              RoCEv2 over IPv6 between fd52:4f43:45::1 and ::2 (default IPv4)
  --vcd FILE          also write waveforms (FILE.port0.vcd, FILE.port1.vcd); ROCENIC_VCD_FROM=CYCLE and
                      ROCENIC_VCD_TO=CYCLE keep a window of a long run
  --pause-storms EVERY:LENGTH
                      every EVERY cycles, a pause storm of LENGTH cycles: PFC frames hold the QPs'
                      priority on both NICs (the QPs then use DSCP 26, priority 3, lossless), then
                      release it; frames sent during storms are counted (default none)
  --ops LIST          only these operations, e.g. READ,CMP_SWAP (default: all, 25% WRITE, 10% WRITE_IMM,
                      20% SEND, 10% SEND_IMM, 20% READ, 7.5% FETCH_ADD, 7.5% CMP_SWAP)";

pub fn parse(args: &[String]) -> Result<StressConfig, String> {
    let mut c = StressConfig {
        width: Width::W64,
        mtu: 1024,
        messages: 1000,
        seed: 1,
        faults: FaultPlan::none(),
        ack_timeout: 20_000,
        max_bytes: 16384,
        kinds: Vec::new(),
        host_link: (0, 0.0, 0.0),
        dma_reorder: false,
        sge: 1,
        window: 1,
        ipv6: false,
        vcd: None,
        pcap: None,
        fast_forward: Default::default(),
        pause_storms: (0, 0),
    };
    let (mut drop, mut reorder, mut dup, mut corrupt) = (0.01, 0.01, 0.001, 0.001);
    let mut fcs = 0.0;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut v = || it.next().ok_or(format!("{a} needs a value"));
        let num = |s: &String, range| opt::int(a, s, range);
        let prob = |s: &String| opt::prob(a, s);
        match a.as_str() {
            "--width" => {
                let s = v()?;
                c.width = Width::parse(s).ok_or(format!("--width must be 64 or 512, got {s}"))?
            }
            "--mtu" => c.mtu = num(v()?, 256..=4096)? as u32,
            "--messages" => c.messages = num(v()?, 1..=1 << 40)? as usize,
            "--max-bytes" => c.max_bytes = num(v()?, 1..=stress::REGION as u64)? as usize,
            "--seed" => c.seed = num(v()?, 0..=u64::MAX)?,
            "--ack-timeout" => c.ack_timeout = num(v()?, opt::U32)? as u32,
            "--drop" => drop = prob(v()?)?,
            "--reorder" => reorder = prob(v()?)?,
            "--duplicate" => dup = prob(v()?)?,
            "--corrupt" => corrupt = prob(v()?)?,
            "--fcs-errors" => fcs = prob(v()?)?,
            "--dma-reorder" => c.dma_reorder = true,
            "--sge" => c.sge = num(v()?, 1..=rocenic_proto::host::MAX_SEND_SGE as u64)? as usize,
            "--window" => c.window = num(v()?, 1..=stress::MAX_WINDOW as u64)? as usize,
            "--ipv6" => c.ipv6 = true,
            "--vcd" => c.vcd = Some(v()?.into()),
            "--pause-storms" => {
                let s = v()?;
                let (e, l) = s
                    .split_once(':')
                    .ok_or(format!("--pause-storms {s}: EVERY:LENGTH in cycles"))?;
                let every = num(&e.to_string(), 1..=1 << 40)?;
                let length = num(&l.to_string(), 1..=1 << 40)?;
                if length >= every {
                    return Err(format!(
                        "--pause-storms {s}: a storm of {length} cycles must be shorter than its period {every}"
                    ));
                }
                c.pause_storms = (every, length);
            }
            "--ops" => {
                for o in v()?.split(',') {
                    let k = KINDS
                        .iter()
                        .position(|k| k.eq_ignore_ascii_case(o))
                        .ok_or(format!(
                            "--ops: unknown operation {o} (one of {})",
                            KINDS.join(", ")
                        ))?;
                    c.kinds.push(k);
                }
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown option {other}")),
        }
    }
    if !matches!(c.mtu, 256 | 512 | 1024 | 2048 | 4096) {
        return Err(format!("--mtu {} is not an IB MTU", c.mtu));
    }
    c.faults = FaultPlan::none()
        .random(corrupt, drop)
        .shuffle(dup, reorder, 3000)
        .fcs_errors(fcs);
    Ok(c)
}

pub fn run(c: StressConfig) -> Result<(), String> {
    let wall = Instant::now();
    let r = stress::run(&c)?;
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
