//! `rocenic pingmesh`: N co-simulated hosts behind a switch, every ordered pair probed with small signaled
//! RDMA WRITEs (Pingmesh, Guo et al., SIGCOMM 2015, on RDMA): latency percentiles per pair and overall, a
//! heat map and a histogram as SVG. `--congest S:D` runs a bulk WRITE stream from S to D beside the probes,
//! so the probes that share D's switch egress queue with it stand out.
//!
//! A probe's latency is its RC round trip as the requester sees it: the cycle the WRITE is posted to the
//! cycle its completion (the responder's ACK) is polled, read every `POLL_CYCLES`.
use clap::Parser;
use plotters::prelude::*;
use rocenic_driver::backend::sim::SimBackend;
use rocenic_driver::{
    AccessFlags, CompletionQueue, Context, DmaRegion, MemoryRegion, ProtectionDomain, QpCaps,
    QueuePair, SendFlags, SendOp, Sge, WcStatus, WorkCompletion, WorkRequest,
};
use rocenic_sim::{Fabric, FabricConfig, SwitchConfig, Width};
use rocenic_testkit::pair::{connect_qps, ip, mac, PairParams};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Cycles between two polls of the hosts' CQs: the latencies' resolution.
const POLL_CYCLES: u64 = 8;
/// Bulk WRITEs `--congest` keeps outstanding.
const BULK_OUTSTANDING: usize = 2;

#[derive(Parser, Debug)]
#[command(
    name = "rocenic pingmesh",
    about = "Every pair of N co-simulated hosts behind a switch probed with small RDMA WRITEs: latency \
             percentiles per pair, a heat map and a histogram",
    long_about = "Every pair of N co-simulated hosts behind a switch probed with small RDMA WRITEs, as \
        Pingmesh probes a data centre: per pair and overall P50, P99, P99.9 and max of the RC round \
        trip (post to completion), a heat map of each pair's P99 and a histogram of every probe, both \
        as SVG. In each round every host probes one other host and none is probed twice, so the probes \
        do not queue behind each other; --congest S:D adds a bulk stream that they do queue behind. \
        Needs the simulator: each host is a Verilated NIC."
)]
pub struct Args {
    /// Hosts behind the switch
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(2..=8))]
    pub hosts: u32,
    /// Probes per ordered pair
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub probes: u32,
    /// Bytes per probe WRITE
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub bytes: u32,
    /// Datapath width of the simulated NICs
    #[arg(long, default_value = "64", value_parser = ["64", "512"])]
    pub width: String,
    /// A bulk RDMA WRITE stream from host S to host D during the probes (two WRITEs outstanding)
    #[arg(long, value_name = "S:D", value_parser = parse_pair)]
    pub congest: Option<(u32, u32)>,
    /// Bytes of each bulk WRITE of --congest
    #[arg(long, default_value_t = 65536, value_parser = clap::value_parser!(u32).range(1..=1 << 20))]
    pub congest_bytes: u32,
    /// The heat map (each pair's P99) as SVG
    #[arg(long, default_value = "out/pingmesh.svg")]
    pub svg: PathBuf,
    /// The histogram of every probe's latency as SVG
    #[arg(long, default_value = "out/pingmesh-hist.svg")]
    pub hist: PathBuf,
    /// Print the results as one JSON object instead of the tables
    #[arg(long)]
    pub json: bool,
}

fn parse_pair(s: &str) -> Result<(u32, u32), String> {
    let (a, b) = s.split_once(':').ok_or(format!("{s} is not S:D"))?;
    let n = |v: &str| {
        v.parse::<u32>()
            .map_err(|_| format!("{v} is not a host number"))
    };
    let (a, b) = (n(a)?, n(b)?);
    if a == b {
        return Err(format!("{s}: a host does not congest itself"));
    }
    Ok((a, b))
}

/// One host: its context, a CQ for everything it sends, a probe source, a target region, and its QPs.
struct Host {
    _ctx: Context,
    pd: Arc<ProtectionDomain>,
    cq: Arc<CompletionQueue>,
    _src: DmaRegion,
    src_mr: MemoryRegion,
    _dst: DmaRegion,
    dst_mr: MemoryRegion,
    /// `qps[j]`: the QP to host j (`None` for itself).
    qps: Vec<Option<QueuePair>>,
    /// The bulk stream's QP, when this host is `--congest`'s source.
    bulk: Option<QueuePair>,
}

/// Latency percentiles of a set of probes, in cycles.
#[derive(Clone, Copy, Debug, Default)]
pub struct Percentiles {
    pub p50: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
}

/// The nearest-rank percentile of `sorted`, given in tenths of a percent (995 is P99.5): integer
/// arithmetic, so P99.9 of 1,000 samples is the 999th.
fn rank(sorted: &[u64], permille: usize) -> u64 {
    let n = sorted.len();
    let k = (permille * n).div_ceil(1000).clamp(1, n);
    sorted[k - 1]
}

pub fn percentiles(samples: &[u64]) -> Percentiles {
    let mut s = samples.to_vec();
    s.sort_unstable();
    Percentiles {
        p50: rank(&s, 500),
        p99: rank(&s, 990),
        p999: rank(&s, 999),
        max: *s.last().unwrap(),
    }
}

pub fn run(a: Args) -> Result<(), String> {
    let n = a.hosts as usize;
    if let Some((s, d)) = a.congest {
        if s.max(d) >= a.hosts {
            return Err(format!("--congest {s}:{d}: hosts are 0 to {}", n - 1));
        }
    }
    let width = Width::parse(&a.width).unwrap();
    let mhz = width.clock_mhz();
    let lat = run_mesh(&a, width)?;
    let us = |c: u64| c as f64 / mhz;
    let all: Vec<u64> = lat.iter().flatten().flatten().copied().collect();
    let pair_pct: Vec<Vec<Option<Percentiles>>> = lat
        .iter()
        .map(|row| {
            row.iter()
                .map(|v| (!v.is_empty()).then(|| percentiles(v)))
                .collect()
        })
        .collect();
    let overall = percentiles(&all);
    for p in [&a.svg, &a.hist] {
        if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
    }
    heat_map(&a.svg, &pair_pct, mhz).map_err(|e| format!("{}: {e}", a.svg.display()))?;
    histogram(&a.hist, &all, mhz).map_err(|e| format!("{}: {e}", a.hist.display()))?;
    if a.json {
        let pairs: Vec<serde_json::Value> = (0..n)
            .flat_map(|i| (0..n).map(move |j| (i, j)))
            .filter_map(|(i, j)| {
                pair_pct[i][j].map(|p| {
                    serde_json::json!({"src": i, "dst": j, "probes": lat[i][j].len(),
                    "p50_us": us(p.p50), "p99_us": us(p.p99), "p999_us": us(p.p999), "max_us": us(p.max)})
                })
            })
            .collect();
        let json = serde_json::json!({
            "hosts": n, "width": width.bits(), "clock_mhz": mhz, "probe_bytes": a.bytes,
            "congest": a.congest.map(|(s, d)| format!("{s}:{d}")),
            "overall": {"probes": all.len(), "p50_us": us(overall.p50), "p99_us": us(overall.p99),
                        "p999_us": us(overall.p999), "max_us": us(overall.max)},
            "pairs": pairs,
        });
        println!("{json}");
        return Ok(());
    }
    println!(
        "rocenic pingmesh: {n} hosts behind a switch, {}-bit NICs at {mhz} MHz, {} probes of {} bytes per pair{}",
        width.bits(),
        a.probes,
        a.bytes,
        a.congest
            .map(|(s, d)| format!(", bulk WRITEs of {} bytes {s} -> {d} beside them", a.congest_bytes))
            .unwrap_or_default()
    );
    println!(" src  dst   probes   P50 us   P99 us  P99.9 us   max us");
    for i in 0..n {
        for j in 0..n {
            if let Some(p) = pair_pct[i][j] {
                println!(
                    "{i:>4} {j:>4} {:>8} {:>8.2} {:>8.2} {:>9.2} {:>8.2}",
                    lat[i][j].len(),
                    us(p.p50),
                    us(p.p99),
                    us(p.p999),
                    us(p.max)
                );
            }
        }
    }
    println!(
        " all      {:>8} {:>8.2} {:>8.2} {:>9.2} {:>8.2}",
        all.len(),
        us(overall.p50),
        us(overall.p99),
        us(overall.p999),
        us(overall.max)
    );
    // The pairs whose P99 is well above the mesh's median pair: what an operator looks at first.
    let mut p99s: Vec<u64> = pair_pct.iter().flatten().flatten().map(|p| p.p99).collect();
    p99s.sort_unstable();
    let typical = rank(&p99s, 500);
    let slow: Vec<String> = (0..n)
        .flat_map(|i| (0..n).map(move |j| (i, j)))
        .filter(|&(i, j)| pair_pct[i][j].is_some_and(|p| p.p99 * 2 > typical * 3))
        .map(|(i, j)| format!("{i}->{j}"))
        .collect();
    println!(
        "  slow pairs (P99 above 1.5 x the median pair's {:.2} us): {}",
        us(typical),
        if slow.is_empty() {
            "none".to_string()
        } else {
            slow.join(" ")
        }
    );
    println!(
        "  heat map {}, histogram {}",
        a.svg.display(),
        a.hist.display()
    );
    Ok(())
}

/// Builds the hosts, probes every ordered pair `a.probes` times, and returns the latencies in cycles,
/// `lat[src][dst]`.
fn run_mesh(a: &Args, width: Width) -> Result<Vec<Vec<Vec<u64>>>, String> {
    let n = a.hosts as usize;
    let e = |e: rocenic_driver::Error| e.to_string();
    let bpc = width.line_gbps() * 1e3 / 8.0 / width.clock_mhz();
    let cfg = FabricConfig {
        width,
        host_mem_bytes: 8 << 20,
        switch: Some(SwitchConfig {
            macs: (0..n).map(mac).collect(),
            shared: vec![],
            bytes_per_cycle: bpc,
            // No ECN marking: the probes measure queueing, not congestion control.
            kmin: usize::MAX / 2,
            kmax: usize::MAX / 2,
            pmax: 0.0,
            buffer_bytes: 4 << 20,
            sample_cycles: u64::MAX / 4,
        }),
        ..FabricConfig::default()
    };
    let fabric = Arc::new(Mutex::new(Fabric::new(cfg).map_err(|e| e.to_string())?));
    let caps = QpCaps {
        max_send_wr: 16,
        max_recv_wr: 2,
        max_send_sge: 1,
        max_recv_sge: 1,
    };
    let bulk_bytes = a.congest_bytes as usize;
    let region = bulk_bytes.max(a.bytes as usize);
    let mut hosts = Vec::new();
    for h in 0..n {
        let ctx = Context::open(Arc::new(SimBackend::new(fabric.clone(), h))).map_err(e)?;
        ctx.set_port(mac(h), ip(h));
        let pd = ctx.alloc_pd();
        let cq = ctx.create_cq(256).map_err(e)?;
        let src = ctx.alloc_dma(region).map_err(e)?;
        let dst = ctx.alloc_dma(region).map_err(e)?;
        let src_mr = pd
            .reg_mr(&src, 0, region, AccessFlags::LOCAL_WRITE)
            .map_err(e)?;
        let dst_mr = pd
            .reg_mr(
                &dst,
                0,
                region,
                AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE,
            )
            .map_err(e)?;
        let mut qps = Vec::new();
        for j in 0..n {
            qps.push(
                (j != h)
                    .then(|| QueuePair::create(&pd, &cq, &cq, caps))
                    .transpose()
                    .map_err(e)?,
            );
        }
        let bulk = (a.congest.map(|c| c.0 as usize) == Some(h))
            .then(|| QueuePair::create(&pd, &cq, &cq, caps))
            .transpose()
            .map_err(e)?;
        hosts.push(Host {
            _ctx: ctx,
            pd,
            cq,
            _src: src,
            src_mr,
            _dst: dst,
            dst_mr,
            qps,
            bulk,
        });
    }
    let params = |i: usize, j: usize| PairParams {
        mac: [mac(i), mac(j)],
        ip: [ip(i), ip(j)],
        psn: [0x100 * (i as u32 + 1), 0x100 * (j as u32 + 1)],
        udp_sport: [0xC000 + (i * n + j) as u16, 0xC000 + (j * n + i) as u16],
        ..PairParams::new(4096, 2_000_000)
    };
    for i in 0..n {
        for j in i + 1..n {
            let (qi, qj) = (hosts[i].qps[j].as_ref(), hosts[j].qps[i].as_ref());
            connect_qps([qi.unwrap(), qj.unwrap()], &params(i, j)).map_err(e)?;
        }
    }
    // The bulk stream has a QP of its own at its destination, made and connected here.
    let bulk_peer = match a.congest {
        Some((s, d)) => {
            let (s, d) = (s as usize, d as usize);
            let dh = &hosts[d];
            let q = QueuePair::create(&dh.pd, &dh.cq, &dh.cq, caps).map_err(e)?;
            let mut p = params(s, d);
            p.udp_sport = [0xD000, 0xD001];
            connect_qps([hosts[s].bulk.as_ref().unwrap(), &q], &p).map_err(e)?;
            Some(q)
        }
        None => None,
    };
    let write = |from: &Host, to: &Host, len: usize, wr_id: u64| WorkRequest {
        wr_id,
        op: SendOp::RdmaWrite {
            remote_addr: to.dst_mr.addr(),
            rkey: to.dst_mr.rkey(),
        },
        sge: Sge {
            addr: from.src_mr.addr(),
            length: len as u32,
            lkey: from.src_mr.lkey(),
        },
        flags: SendFlags::SIGNALED,
    };
    // wr_id: a probe's is its destination (< n), the bulk stream's BULK.
    const BULK: u64 = u64::MAX;
    let mut bulk_out = 0;
    let post_bulk = |hosts: &[Host], out: &mut usize| -> Result<(), String> {
        if let Some((s, d)) = a.congest {
            let (s, d) = (s as usize, d as usize);
            while *out < BULK_OUTSTANDING {
                let wr = write(&hosts[s], &hosts[d], bulk_bytes, BULK);
                // SAFETY: both regions belong to the hosts, which outlive every completion (the loop
                // below drains them before the hosts are dropped).
                unsafe { hosts[s].bulk.as_ref().unwrap().post_send(&wr) }.map_err(e)?;
                *out += 1;
            }
        }
        Ok(())
    };
    post_bulk(&hosts, &mut bulk_out)?;
    let mut lat = vec![vec![Vec::new(); n]; n];
    let clock = |f: &Arc<Mutex<Fabric>>| f.lock().unwrap().cycles();
    let rounds = a.probes as usize * (n - 1);
    let mut wc = [WorkCompletion::default(); 16];
    let bar = crate::progress::bar(rounds as u64, "rounds");
    for r in 0..rounds {
        bar.set_position(r as u64);
        bar.set_message(format!("{} cycles", clock(&fabric)));
        // Round r: host i probes host i + 1 + r mod (n - 1): a permutation, no host probed twice.
        let shift = 1 + r % (n - 1);
        let t0 = clock(&fabric);
        let mut pending = vec![true; n];
        let mut posted = vec![0; n];
        for (i, h) in hosts.iter().enumerate() {
            let j = (i + shift) % n;
            posted[i] = clock(&fabric);
            let wr = write(h, &hosts[j], a.bytes as usize, j as u64);
            // SAFETY: as for the bulk stream above.
            unsafe { h.qps[j].as_ref().unwrap().post_send(&wr) }.map_err(e)?;
        }
        let deadline = t0 + 2_000_000;
        while pending.iter().any(|&p| p) {
            fabric.lock().unwrap().run(POLL_CYCLES);
            let now = clock(&fabric);
            if now > deadline {
                return Err(format!(
                    "round {r}: a probe did not complete in 2,000,000 cycles"
                ));
            }
            for (i, h) in hosts.iter().enumerate() {
                let got = h.cq.poll(&mut wc);
                for c in &wc[..got] {
                    if c.status != WcStatus::Success {
                        return Err(format!("host {i}: a WRITE completed {:?}", c.status));
                    }
                    if c.wr_id == BULK {
                        bulk_out -= 1;
                    } else {
                        let j = c.wr_id as usize;
                        lat[i][j].push(now - posted[i]);
                        pending[i] = false;
                    }
                }
            }
            post_bulk(&hosts, &mut bulk_out)?;
        }
    }
    bar.finish_and_clear();
    // Drain the bulk stream before the hosts go away.
    if let Some((s, _)) = a.congest {
        let h = &hosts[s as usize];
        let deadline = clock(&fabric) + 2_000_000;
        while bulk_out > 0 && clock(&fabric) < deadline {
            fabric.lock().unwrap().run(POLL_CYCLES * 8);
            bulk_out -= h.cq.poll(&mut wc);
        }
    }
    drop(bulk_peer);
    Ok(lat)
}

/// Each pair's P99 as a coloured cell (source rows from the top, destination columns), its value written
/// in it; the colour runs from green (the fastest pair) to red (the slowest) on a log scale, so a pair
/// twice as slow as the rest shows beside one a thousand times slower.
fn heat_map(
    path: &std::path::Path,
    pct: &[Vec<Option<Percentiles>>],
    mhz: f64,
) -> Result<(), Box<dyn std::error::Error>> {
    let n = pct.len() as i32;
    let cell = 90;
    let root =
        SVGBackend::new(path, (cell * n as u32 + 90, cell * n as u32 + 90)).into_drawing_area();
    root.fill(&WHITE)?;
    let vals: Vec<f64> = pct
        .iter()
        .flatten()
        .flatten()
        .map(|p| p.p99 as f64 / mhz)
        .collect();
    let (lo, hi) = vals
        .iter()
        .fold((f64::MAX, 0.0f64), |(l, h), &v| (l.min(v), h.max(v)));
    let mut chart = ChartBuilder::on(&root)
        .caption("P99 round trip of each pair, us", ("sans-serif", 15))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d((0..n - 1).into_segmented(), (0..n - 1).into_segmented())?;
    let host = |v: &SegmentValue<i32>| match v {
        SegmentValue::CenterOf(i) => i.to_string(),
        _ => String::new(),
    };
    // Rows from the top: source 0 is the top row.
    let row = |v: &SegmentValue<i32>| match v {
        SegmentValue::CenterOf(i) => (n - 1 - i).to_string(),
        _ => String::new(),
    };
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(n as usize)
        .y_labels(n as usize)
        .x_label_formatter(&host)
        .y_label_formatter(&row)
        .x_desc("destination host")
        .y_desc("source host")
        .draw()?;
    let centre = TextStyle::from(("sans-serif", 14).into_font()).pos(
        plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Center,
        ),
    );
    for (i, r) in pct.iter().enumerate() {
        for (j, p) in r.iter().enumerate() {
            let (x, y) = (j as i32, n - 1 - i as i32);
            let (colour, label) = match p {
                Some(p) => {
                    let v = p.p99 as f64 / mhz;
                    let t = if hi > lo {
                        (v / lo).ln() / (hi / lo).ln()
                    } else {
                        0.0
                    };
                    (
                        HSLColor(0.33 * (1.0 - t), 0.75, 0.55).to_rgba(),
                        format!("{v:.2}"),
                    )
                }
                None => (RGBAColor(225, 225, 225, 1.0), "-".to_string()),
            };
            chart.draw_series(std::iter::once(Rectangle::new(
                [
                    (SegmentValue::Exact(x), SegmentValue::Exact(y)),
                    (SegmentValue::Exact(x + 1), SegmentValue::Exact(y + 1)),
                ],
                colour.filled(),
            )))?;
            chart.draw_series(std::iter::once(Text::new(
                label,
                (SegmentValue::CenterOf(x), SegmentValue::CenterOf(y)),
                centre.clone(),
            )))?;
        }
    }
    root.present()?;
    Ok(())
}

/// Every probe's latency in 40 bins spaced evenly on a log scale from the fastest to the slowest probe.
fn histogram(
    path: &std::path::Path,
    all: &[u64],
    mhz: f64,
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (640, 360)).into_drawing_area();
    root.fill(&WHITE)?;
    let us: Vec<f64> = all.iter().map(|&c| c as f64 / mhz).collect();
    let lo = us.iter().copied().fold(f64::MAX, f64::min) * 0.95;
    let hi = us.iter().copied().fold(0.0, f64::max) * 1.05;
    let bins = 40;
    let edge = |k: usize| lo * (hi / lo).powf(k as f64 / bins as f64);
    let mut counts = vec![0u32; bins];
    for &v in &us {
        let k = ((v / lo).ln() / (hi / lo).ln() * bins as f64) as usize;
        counts[k.min(bins - 1)] += 1;
    }
    let top = *counts.iter().max().unwrap_or(&1);
    let mut chart = ChartBuilder::on(&root)
        .caption("Probe round trips", ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d((lo..hi).log_scale(), 0u32..top + 1)?;
    chart
        .configure_mesh()
        .x_desc("round trip, us (log scale)")
        .y_desc("probes")
        .draw()?;
    chart.draw_series(
        counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(k, &c)| {
                Rectangle::new([(edge(k), 0), (edge(k + 1), c)], BLUE.mix(0.6).filled())
            }),
    )?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<u64> = (1..=1000).collect();
        let p = percentiles(&v);
        assert_eq!((p.p50, p.p99, p.p999, p.max), (500, 990, 999, 1000));
        let p = percentiles(&[7]);
        assert_eq!((p.p50, p.p99, p.max), (7, 7, 7));
        assert_eq!(parse_pair("0:2"), Ok((0, 2)));
        assert!(parse_pair("1:1").is_err() && parse_pair("x").is_err());
    }
}
