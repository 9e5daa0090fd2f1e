//! `rocenic dcqcn`: two flows through an ECN-marking switch (`rocenic_driver::congestion`), a table of
//! the rates over time and, with `--svg`, the plot.
use rocenic_driver::congestion::{run as run_experiment, Experiment};

pub const USAGE: &str = "usage: rocenic dcqcn [--off] [--duration-us N] [--stop-us N] [--kmin B] [--kmax B]
                    [--pmax P] [--sample-us N] [--reg NAME=VALUE]... [--svg FILE]

Two senders (ports 0, 1) each keep two RDMA WRITEs in flight to their own QP of one receiver (port 2):
incast into the switch link to the receiver, the bottleneck (10 Gb/s, 64-bit cores), which marks CE
between --kmin and --kmax queued bytes (RED-style, --pmax at kmax). Flow 1 stops posting at --stop-us.
Prints each flow's share of the bottleneck, the reaction points' rates and the queue over time, and the
fairness (Jain's index) while both run. --off leaves DCQCN pacing off (both send at line rate).
--reg sets a register of both senders first (the DCQCN_* parameters).";

pub fn run(args: &[String]) -> Result<(), String> {
    let mut x = Experiment::default();
    let mut svg = None;
    let mut it = args.iter();
    // Times and rates: finite and positive (a probability for --pmax); marks: whole numbers.
    let num = |it: &mut std::slice::Iter<String>, what: &str| -> Result<f64, String> {
        let v = crate::opt::value(what, it.next())?;
        v.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x > 0.0)
            .ok_or(format!("{what}: {v} is not a positive number"))
    };
    let int = |it: &mut std::slice::Iter<String>, what: &str| -> Result<usize, String> {
        Ok(crate::opt::int(what, crate::opt::value(what, it.next())?, 0..=1 << 30)? as usize)
    };
    while let Some(a) = it.next() {
        match a.as_str() {
            "--off" => x.dcqcn = false,
            "--duration-us" => x.duration_us = num(&mut it, a)?,
            "--stop-us" => x.stop_flow1_us = num(&mut it, a)?,
            "--kmin" => x.kmin = int(&mut it, a)?,
            "--kmax" => x.kmax = int(&mut it, a)?,
            "--pmax" => x.pmax = crate::opt::prob(a, crate::opt::value(a, it.next())?)?,
            "--sample-us" => x.sample_us = num(&mut it, a)?,
            "--reg" => {
                // NAME=VALUE: a reaction-point register, e.g. DCQCN_BYTE_COUNTER=65536.
                let kv = it.next().ok_or("--reg needs NAME=VALUE")?;
                let (k, v) = kv.split_once('=').ok_or("--reg needs NAME=VALUE")?;
                let r = rocenic_proto::regs::REGISTERS
                    .iter()
                    .find(|r| r.name == k)
                    .ok_or(format!("no register {k}"))?;
                let v = v.parse().map_err(|e| format!("--reg {k}: {e}"))?;
                x.rp_regs.push((r.offset, v));
            }
            "--svg" => svg = Some(it.next().ok_or("--svg needs a file")?.clone()),
            "-h" | "--help" => return Err(String::new()),
            o => return Err(format!("unknown option {o}")),
        }
    }
    let wall = std::time::Instant::now();
    let t = run_experiment(&x)?;
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
        std::fs::write(&p, t.svg(&title)).map_err(|e| format!("{p}: {e}"))?;
        println!("plot: {p}");
    }
    Ok(())
}
