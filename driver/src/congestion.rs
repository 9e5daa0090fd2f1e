//! DCQCN end to end on co-simulated NICs: two senders write as fast as they can into one receiver (incast)
//! through a switch whose link to the receiver is the bottleneck; the switch marks CE above its threshold,
//! the receiver's notification point sends CNPs to each flow's QP, the senders' reaction points cut and
//! recover their rates.
//!
//! Topology (one `Fabric` with a `Switch`): senders on ports 0 and 1, each with one QP; the receiver on
//! port 2 with two QPs, one per sender; the switch's egress queue to port 2 is the congestion point.
use crate::backend::sim::SimBackend;
use crate::pair::{connect_qps, ip, mac, PairParams};
use crate::verbs::{
    AccessFlags, CompletionQueue, Context, QpCaps, QueuePair, SendFlags, SendOp, Sge, WorkRequest,
};
use crate::{DmaRegion, MemoryRegion, WcStatus};
use rocenic_proto::regs;
use rocenic_sim::{Fabric, FabricConfig, SwitchConfig, Width};
use std::sync::{Arc, Mutex};

/// The experiment's knobs.
#[derive(Clone, Debug)]
pub struct Experiment {
    /// Reaction points pace (DCQCN_ENABLE) or send at line rate.
    pub dcqcn: bool,
    /// Simulated time in microseconds, and when flow 1 stops posting.
    pub duration_us: f64,
    pub stop_flow1_us: f64,
    /// The switch's ECN thresholds (bytes) and marking probability at `kmax`.
    pub kmin: usize,
    pub kmax: usize,
    pub pmax: f64,
    pub buffer_bytes: usize,
    pub sample_us: f64,
    /// Bytes per WRITE work request; each flow keeps two outstanding.
    pub write_bytes: usize,
    /// Reaction-point registers written at start, (offset, value) (e.g. DCQCN_BYTE_COUNTER).
    pub rp_regs: Vec<(u16, u32)>,
}

/// The defaults: marking steeper than the DCQCN paper's 40 Gb/s many-flow switch (5..200 KB, 1 %), which
/// with two 10 Gb/s flows lets the queue overshoot past 200 KB before the first CNP and then cuts both
/// to the minimum rate; and a 64 KB byte counter instead of 10 MB, so that hyper increase can start at
/// 10 Gb/s (10 MB would take 8 ms a stage).
impl Default for Experiment {
    fn default() -> Self {
        Experiment {
            dcqcn: true,
            duration_us: 9000.0,
            stop_flow1_us: 6000.0,
            kmin: 5_000,
            kmax: 50_000,
            pmax: 0.5,
            buffer_bytes: 4 << 20,
            sample_us: 50.0,
            write_bytes: 512 << 10,
            rp_regs: vec![(regs::DCQCN_BYTE_COUNTER, 65_536)],
        }
    }
}

/// What the experiment saw, one entry per sample.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub t_us: Vec<f64>,
    /// Each flow's share of the bottleneck link, Gb/s (frames on the wire, overhead included).
    pub rate_gbps: [Vec<f64>; 2],
    /// Each sender's reaction-point rate register, Gb/s.
    pub rp_gbps: [Vec<f64>; 2],
    pub queue_kb: Vec<f64>,
    pub line_gbps: f64,
    pub ce_marked: u64,
    pub dropped: u64,
    pub cnps_sent: u64,
    pub rate_cuts: [u64; 2],
    /// WRITEs completed per flow, every one checked successful.
    pub writes: [u64; 2],
}

struct Flow {
    /// The sender's QP (taken first at the end: the senders stop before the receiver goes away).
    qp: Option<QueuePair>,
    cq: Arc<CompletionQueue>,
    _src: DmaRegion,
    _dst: DmaRegion,
    src_mr: MemoryRegion,
    dst_mr: MemoryRegion,
    outstanding: usize,
    posted: u64,
    done: u64,
    _ctx: Context,
}

impl Flow {
    fn post(&mut self, len: usize) {
        self.posted += 1;
        let wr = WorkRequest {
            wr_id: self.posted,
            op: SendOp::RdmaWrite {
                remote_addr: self.dst_mr.addr(),
                rkey: self.dst_mr.rkey(),
            },
            sge: Sge {
                addr: self.src_mr.addr(),
                length: len as u32,
                lkey: self.src_mr.lkey(),
            },
            flags: SendFlags::SIGNALED,
        };
        // SAFETY: the source and target regions live in the flow, which outlives every completion.
        let qp = self.qp.as_ref().expect("the flow's QP");
        unsafe { qp.post_send(&wr) }.expect("post_send");
        self.outstanding += 1;
    }

    /// Collects completions; each must be a success.
    fn reap(&mut self) -> Result<(), String> {
        let mut wc = [crate::WorkCompletion::default()];
        while self.cq.poll(&mut wc) == 1 {
            if wc[0].status != WcStatus::Success {
                return Err(format!("WRITE completed {:?}", wc[0]));
            }
            self.outstanding -= 1;
            self.done += 1;
        }
        Ok(())
    }
}

/// Runs the experiment.
pub fn run(x: &Experiment) -> Result<Trace, String> {
    let width = Width::W64;
    let mhz = width.clock_mhz();
    let line_gbps = width.line_gbps();
    let bpc = line_gbps * 1e3 / 8.0 / mhz;
    let sample_cycles = (x.sample_us * mhz) as u64;
    let cfg = FabricConfig {
        width,
        host_mem_bytes: 4 * x.write_bytes + (4 << 20),
        switch: Some(SwitchConfig {
            macs: (0..3).map(mac).collect(),
            shared: vec![2],
            bytes_per_cycle: bpc,
            kmin: x.kmin,
            kmax: x.kmax,
            pmax: x.pmax,
            buffer_bytes: x.buffer_bytes,
            sample_cycles,
        }),
        ..FabricConfig::default()
    };
    let e = |e: crate::Error| e.to_string();
    let fabric = Arc::new(Mutex::new(Fabric::new(cfg).map_err(|e| e.to_string())?));
    // The receiver: one context, one QP per sender, its two target regions in one PD.
    let open = |port: usize| -> Result<Context, String> {
        let ctx = Context::open(Arc::new(SimBackend::new(fabric.clone(), port))).map_err(e)?;
        ctx.set_port(mac(port), ip(port));
        Ok(ctx)
    };
    let caps = QpCaps {
        max_send_wr: 16,
        max_recv_wr: 16,
        max_send_sge: 1,
        max_recv_sge: 1,
    };
    let rx = open(2)?;
    let rx_pd = rx.alloc_pd();
    let rx_cq = rx.create_cq(64).map_err(e)?;
    let mut flows = Vec::new();
    let mut rx_qps = Vec::new();
    for s in 0..2 {
        let tx = open(s)?;
        let pd = tx.alloc_pd();
        let cq = tx.create_cq(64).map_err(e)?;
        let qp = QueuePair::create(&pd, &cq, &cq, caps).map_err(e)?;
        let rqp = QueuePair::create(&rx_pd, &rx_cq, &rx_cq, caps).map_err(e)?;
        // RESET → INIT → RTR → RTS on both ends, each naming the other's QPN.
        let psn = 0x100 * (s as u32 + 1);
        let params = PairParams {
            mac: [mac(s), mac(2)],
            ip: [ip(s), ip(2)],
            psn: [psn, psn],
            udp_sport: [0xC000 + (3 * s) as u16, 0xC000 + (4 + s) as u16],
            ..PairParams::new(1024, 2_000_000)
        };
        connect_qps([&qp, &rqp], &params).map_err(e)?;
        let src = tx.alloc_dma(x.write_bytes).map_err(e)?;
        let dst = rx.alloc_dma(x.write_bytes).map_err(e)?;
        let data: Vec<u8> = (0..x.write_bytes).map(|i| (i * 7 + s) as u8).collect();
        src.write(0, &data).map_err(e)?;
        let src_mr = pd
            .reg_mr(&src, 0, x.write_bytes, AccessFlags::LOCAL_WRITE)
            .map_err(e)?;
        let dst_mr = rx_pd
            .reg_mr(
                &dst,
                0,
                x.write_bytes,
                AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE,
            )
            .map_err(e)?;
        rx_qps.push(rqp);
        flows.push(Flow {
            qp: Some(qp),
            cq,
            _src: src,
            _dst: dst,
            src_mr,
            dst_mr,
            outstanding: 0,
            posted: 0,
            done: 0,
            _ctx: tx,
        });
    }
    {
        let mut f = fabric.lock().unwrap();
        for s in 0..2 {
            f.reg_write(s, regs::DCQCN_ENABLE, x.dcqcn as u32);
            for &(off, v) in &x.rp_regs {
                f.reg_write(s, off, v);
            }
        }
        f.take_switch_samples();
    }
    let rate_of = |v: u32| v as f64 / 256.0 * 8.0 * mhz / 1e3;
    let mut t = Trace {
        line_gbps,
        ..Trace::default()
    };
    let total = (x.duration_us * mhz) as u64;
    let stop = (x.stop_flow1_us * mhz) as u64;
    let start = fabric.lock().unwrap().cycles();
    loop {
        let now = fabric.lock().unwrap().cycles() - start;
        if now >= total {
            break;
        }
        for (i, fl) in flows.iter_mut().enumerate() {
            fl.reap()?;
            while fl.outstanding < 2 && (i == 0 || now < stop) {
                fl.post(x.write_bytes);
            }
        }
        let mut f = fabric.lock().unwrap();
        f.run(sample_cycles);
        let rp = [
            f.reg_read(0, regs::DCQCN_RATE),
            f.reg_read(1, regs::DCQCN_RATE),
        ];
        for s in f.take_switch_samples() {
            let secs = sample_cycles as f64 / (mhz * 1e6);
            t.t_us.push((s.cycle - start) as f64 / mhz);
            for (k, &rp_rate) in rp.iter().enumerate() {
                t.rate_gbps[k].push(s.bytes[k] as f64 * 8.0 / secs / 1e9);
                t.rp_gbps[k].push(if x.dcqcn { rate_of(rp_rate) } else { line_gbps });
            }
            t.queue_kb.push(s.queue_bytes as f64 / 1000.0);
        }
    }
    let mut f = fabric.lock().unwrap();
    let st = f.switch_stats().unwrap_or_default();
    t.ce_marked = st.ce_marked;
    t.dropped = st.dropped;
    t.cnps_sent = f.reg_read(2, regs::NP_CNP_SENT) as u64;
    t.rate_cuts = [
        f.reg_read(0, regs::DCQCN_RATE_DECREASES) as u64,
        f.reg_read(1, regs::DCQCN_RATE_DECREASES) as u64,
    ];
    drop(f);
    for (i, fl) in flows.iter_mut().enumerate() {
        fl.reap()?;
        t.writes[i] = fl.done;
    }
    // Tear down in order: the senders stop (their QPs to RESET), the frames on the way land, then the
    // receiver's QPs and memory go.
    for fl in flows.iter_mut() {
        fl.qp = None;
    }
    // The switch may still hold a queue for the receiver (without DCQCN it fills to its buffer): run
    // until the receiver has taken no frame for a while, so no WRITE lands in memory about to go.
    let mut last = u32::MAX;
    for _ in 0..1000 {
        let mut f = fabric.lock().unwrap();
        f.run(20_000);
        let now = f.reg_read(2, regs::RX_FRAMES);
        if now == last {
            break;
        }
        last = now;
    }
    drop(rx_qps);
    drop(flows);
    Ok(t)
}

impl Trace {
    /// Mean of `v` over the samples with `from <= t < to` (µs).
    pub fn mean(&self, v: &[f64], from: f64, to: f64) -> f64 {
        let xs: Vec<f64> = self
            .t_us
            .iter()
            .zip(v)
            .filter(|(t, _)| **t >= from && **t < to)
            .map(|(_, x)| *x)
            .collect();
        xs.iter().sum::<f64>() / xs.len().max(1) as f64
    }

    /// Jain's fairness index of the two flows' mean rates over [from, to).
    pub fn jain(&self, from: f64, to: f64) -> f64 {
        let a = self.mean(&self.rate_gbps[0], from, to);
        let b = self.mean(&self.rate_gbps[1], from, to);
        (a + b) * (a + b) / (2.0 * (a * a + b * b)).max(1e-12)
    }

    /// Largest queue over [from, to), KB.
    pub fn max_queue(&self, from: f64, to: f64) -> f64 {
        self.t_us
            .iter()
            .zip(&self.queue_kb)
            .filter(|(t, _)| **t >= from && **t < to)
            .map(|(_, q)| *q)
            .fold(0.0, f64::max)
    }

    /// The plot: flow rates and reaction-point rates over time, and the bottleneck queue below.
    pub fn svg(&self, title: &str) -> String {
        let (w, h) = (900.0, 560.0);
        let (l, r) = (70.0, 20.0);
        let (top1, h1) = (50.0, 280.0);
        let (top2, h2) = (380.0, 130.0);
        let tmax = self.t_us.last().copied().unwrap_or(1.0).max(1.0);
        let qmax = self.queue_kb.iter().copied().fold(1.0, f64::max);
        let x = |t: f64| l + (w - l - r) * t / tmax;
        let y1 = |g: f64| top1 + h1 * (1.0 - g / (self.line_gbps * 1.1));
        let y2 = |q: f64| top2 + h2 * (1.0 - q / (qmax * 1.1));
        let line = |pts: Vec<(f64, f64)>, color: &str, dash: &str| {
            let p: Vec<String> = pts.iter().map(|(a, b)| format!("{a:.1},{b:.1}")).collect();
            format!(
                "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"1.5\" {dash} points=\"{}\"/>\n",
                p.join(" ")
            )
        };
        let mut s = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
             <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
             <text x=\"{l}\" y=\"25\" font-size=\"15\">{title}</text>\n"
        );
        for (top, hh) in [(top1, h1), (top2, h2)] {
            s += &format!(
                "<rect x=\"{l}\" y=\"{top}\" width=\"{}\" height=\"{hh}\" fill=\"none\" stroke=\"#888\"/>\n",
                w - l - r
            );
        }
        let mut g = 0.0;
        while g <= self.line_gbps + 1e-9 {
            s += &format!(
                "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{g:.0}</text><line x1=\"{l}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#eee\"/>\n",
                l - 6.0,
                y1(g) + 4.0,
                w - r,
                y1(g),
                y1(g)
            );
            g += self.line_gbps / 5.0;
        }
        s += &format!(
            "<text x=\"15\" y=\"{}\" transform=\"rotate(-90 15 {})\">Gb/s</text>\n",
            top1 + h1 / 2.0,
            top1 + h1 / 2.0
        );
        s += &format!(
            "<text x=\"15\" y=\"{}\" transform=\"rotate(-90 15 {})\">queue KB</text>\n",
            top2 + h2 / 2.0 + 30.0,
            top2 + h2 / 2.0 + 30.0
        );
        s += &format!(
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{qmax:.0}</text>\n",
            l - 6.0,
            y2(qmax) + 4.0
        );
        let mut tick = 0.0;
        let step = (tmax / 8.0 / 100.0).ceil() * 100.0;
        while tick <= tmax {
            s += &format!(
                "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{tick:.0}</text>\n",
                x(tick),
                top2 + h2 + 18.0
            );
            tick += step;
        }
        s += &format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">time (µs)</text>\n",
            l + (w - l - r) / 2.0,
            h - 8.0
        );
        let colors = ["#1f77b4", "#d62728"];
        for (k, color) in colors.into_iter().enumerate() {
            let pts = self
                .t_us
                .iter()
                .zip(&self.rate_gbps[k])
                .map(|(t, g)| (x(*t), y1(*g)))
                .collect();
            s += &line(pts, color, "");
            let pts = self
                .t_us
                .iter()
                .zip(&self.rp_gbps[k])
                .map(|(t, g)| (x(*t), y1(*g)))
                .collect();
            s += &line(pts, color, "stroke-dasharray=\"4 3\" opacity=\"0.6\"");
            s += &format!(
                "<text x=\"{}\" y=\"{}\" fill=\"{}\">flow {k}: on the bottleneck (solid), reaction-point rate (dashed)</text>\n",
                l + 10.0,
                top1 + 16.0 + 16.0 * k as f64,
                color
            );
        }
        let pts = self
            .t_us
            .iter()
            .zip(&self.queue_kb)
            .map(|(t, q)| (x(*t), y2(*q)))
            .collect();
        s += &line(pts, "#2ca02c", "");
        s += "</svg>\n";
        s
    }
}
