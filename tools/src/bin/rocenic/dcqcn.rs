//! `rocenic dcqcn`: two flows through an ECN-marking switch (`rocenic_testkit::congestion`), a table of
//! the rates over time and, with `--svg`, the plot.
use crate::opt;
use rocenic_testkit::congestion::{run_with_progress, Experiment};

/// `rocenic dcqcn`'s options.
#[derive(clap::Parser, Debug)]
#[command(
    name = "rocenic dcqcn",
    allow_negative_numbers = true,
    about = "Two flows through an ECN-marking switch: DCQCN rates, fairness and queue over time",
    long_about = "Two senders (ports 0, 1) each keep two RDMA WRITEs in flight to their own QP of one \
        receiver (port 2): incast into the switch link to the receiver, the bottleneck (10 Gb/s, 64-bit \
        cores), which marks CE between --kmin and --kmax queued bytes (RED-style, --pmax at kmax). Flow 1 \
        stops posting at --stop-us. Prints each flow's share of the bottleneck, the reaction points' \
        rates and the queue over time, and the fairness (Jain's index) while both run."
)]
pub struct Args {
    /// Leave DCQCN pacing off (both send at line rate)
    #[arg(long)]
    off: bool,
    /// Simulated time, microseconds
    #[arg(long, value_name = "N", value_parser = opt::positive_parser)]
    duration_us: Option<f64>,
    /// When flow 1 stops posting, microseconds
    #[arg(long, value_name = "N", value_parser = opt::positive_parser)]
    stop_us: Option<f64>,
    /// ECN marking starts at this many queued bytes
    #[arg(long, value_name = "B", value_parser = opt::int_parser(0..=1 << 30))]
    kmin: Option<u64>,
    /// Marking probability reaches --pmax at this many queued bytes
    #[arg(long, value_name = "B", value_parser = opt::int_parser(0..=1 << 30))]
    kmax: Option<u64>,
    /// Marking probability at --kmax
    #[arg(long, value_name = "P", value_parser = opt::prob_parser)]
    pmax: Option<f64>,
    /// Microseconds between two samples of the bottleneck
    #[arg(long, value_name = "N", value_parser = opt::positive_parser)]
    sample_us: Option<f64>,
    /// Set a register of both senders first (the DCQCN_* parameters), e.g. DCQCN_BYTE_COUNTER=65536
    #[arg(long, value_name = "NAME=VALUE", value_parser = reg_parser)]
    reg: Vec<(u16, u32)>,
    /// Write the plot here (SVG)
    #[arg(long, value_name = "FILE")]
    svg: Option<String>,
}

fn reg_parser(kv: &str) -> Result<(u16, u32), String> {
    let (k, v) = kv.split_once('=').ok_or("needs NAME=VALUE")?;
    let r = rocenic_proto::regs::REGISTERS
        .iter()
        .find(|r| r.name == k)
        .ok_or(format!("no register {k}"))?;
    let v = v.parse().map_err(|e| format!("{k}: {e}"))?;
    Ok((r.offset, v))
}

pub fn run(a: Args) -> Result<(), String> {
    let d = Experiment::default();
    let x = Experiment {
        dcqcn: !a.off,
        duration_us: a.duration_us.unwrap_or(d.duration_us),
        stop_flow1_us: a.stop_us.unwrap_or(d.stop_flow1_us),
        kmin: a.kmin.map_or(d.kmin, |v| v as usize),
        kmax: a.kmax.map_or(d.kmax, |v| v as usize),
        pmax: a.pmax.unwrap_or(d.pmax),
        sample_us: a.sample_us.unwrap_or(d.sample_us),
        rp_regs: d.rp_regs.iter().copied().chain(a.reg).collect(),
        ..d.clone()
    };
    let svg = a.svg;
    let wall = std::time::Instant::now();
    let bar = crate::progress::bar(x.duration_us as u64, "us simulated");
    let t = run_with_progress(&x, &mut |now, _| bar.set_position(now as u64));
    bar.finish_and_clear();
    let t = t?;
    println!(
        "rocenic dcqcn: DCQCN {}, bottleneck {} Gb/s, ECN marking {}..{} bytes (p {} at kmax), flow 1 stops at {} us",
        if x.dcqcn { "on" } else { "off" },
        t.line_gbps,
        x.kmin,
        x.kmax,
        x.pmax,
        x.stop_flow1_us
    );
    println!(
        "{:>8} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "t (us)", "flow0", "flow1", "rp0", "rp1", "queue KB"
    );
    let every = (t.t_us.len() / 40).max(1);
    for i in (0..t.t_us.len()).step_by(every) {
        println!(
            "{:>8.0} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>9.1}",
            t.t_us[i],
            t.rate_gbps[0][i],
            t.rate_gbps[1][i],
            t.rp_gbps[0][i],
            t.rp_gbps[1][i],
            t.queue_kb[i]
        );
    }
    let both = (x.stop_flow1_us / 2.0, x.stop_flow1_us);
    println!(
        "while both run ({:.0}..{:.0} us): flow0 {:.2} Gb/s, flow1 {:.2} Gb/s, Jain's index {:.3}, queue max {:.1} KB",
        both.0,
        both.1,
        t.mean(&t.rate_gbps[0], both.0, both.1),
        t.mean(&t.rate_gbps[1], both.0, both.1),
        t.jain(both.0, both.1),
        t.max_queue(both.0, both.1)
    );
    let end = x.duration_us;
    println!(
        "after flow 1 stops (last 500 us): flow0 {:.2} Gb/s; CE marks {}, CNPs sent {}, rate cuts {:?}, drops {}, WRITEs done {:?}; {:.1} s wall",
        t.mean(&t.rate_gbps[0], end - 500.0, end),
        t.ce_marked,
        t.cnps_sent,
        t.rate_cuts,
        t.dropped,
        t.writes,
        wall.elapsed().as_secs_f64()
    );
    if let Some(p) = svg {
        let title = format!(
            "DCQCN {}: two flows through one 10 Gb/s link (ECN {}..{} KB), flow 1 stops at {} us",
            if x.dcqcn { "on" } else { "off" },
            x.kmin / 1000,
            x.kmax / 1000,
            x.stop_flow1_us
        );
        std::fs::write(&p, t.svg(&title)?).map_err(|e| format!("{p}: {e}"))?;
        println!("plot: {p}");
    }
    Ok(())
}
