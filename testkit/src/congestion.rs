//! DCQCN end to end on co-simulated NICs: two senders write as fast as they can into one receiver (incast)
//! through a switch whose link to the receiver is the bottleneck; the switch marks CE above its threshold,
//! the receiver's notification point sends CNPs to each flow's QP, the senders' reaction points cut and
//! recover their rates.
//!
//! Topology (one `Fabric` with a `Switch`): senders on ports 0 and 1, each with one QP; the receiver on
//! port 2 with two QPs, one per sender; the switch's egress queue to port 2 is the congestion point.
use crate::pair::{connect_qps, ip, mac, PairParams};
use rocenic_driver::backend::sim::SimBackend;
use rocenic_driver::verbs::{
    AccessFlags, CompletionQueue, Context, QpCaps, QueuePair, SendFlags, SendOp, Sge, WorkRequest,
};
use rocenic_driver::{DmaRegion, MemoryRegion, WcStatus};
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
        let mut wc = [rocenic_driver::WorkCompletion::default()];
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
    run_with_progress(x, &mut |_, _| {})
}

/// [`run`], telling `progress` the simulated microseconds so far and the experiment's, about every
/// 10 us of simulated time.
pub fn run_with_progress(
    x: &Experiment,
    progress: &mut dyn FnMut(f64, f64),
) -> Result<Trace, String> {
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
    let e = |e: rocenic_driver::Error| e.to_string();
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
    let tell_every = (10.0 * mhz) as u64;
    let mut told = 0;
    loop {
        let now = fabric.lock().unwrap().cycles() - start;
        if now >= total {
            break;
        }
        if now >= told + tell_every {
            told = now;
            progress(now as f64 / mhz, x.duration_us);
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

    /// The plot (SVG, drawn with plotters): each flow's rate on the bottleneck (solid) and its
    /// reaction point's rate (dashed) over time, and the bottleneck queue below.
    pub fn svg(&self, title: &str) -> Result<String, String> {
        let mut s = String::new();
        self.draw(&mut s, title).map_err(|e| format!("plot: {e}"))?;
        Ok(s)
    }

    fn draw(&self, out: &mut String, title: &str) -> Result<(), Box<dyn std::error::Error + '_>> {
        use plotters::prelude::*;
        let tmax = self.t_us.last().copied().unwrap_or(1.0).max(1.0);
        let qmax = self.queue_kb.iter().copied().fold(1.0, f64::max);
        let root = SVGBackend::with_string(out, (900, 560)).into_drawing_area();
        root.fill(&WHITE)?;
        let root = root.titled(title, ("sans-serif", 15))?;
        let (top, bottom) = root.split_vertically(360);
        let mut rates = ChartBuilder::on(&top)
            .margin(10)
            .x_label_area_size(20)
            .y_label_area_size(50)
            .build_cartesian_2d(0.0..tmax, 0.0..self.line_gbps * 1.1)?;
        rates.configure_mesh().y_desc("Gb/s").draw()?;
        let colours = [RGBColor(0x1f, 0x77, 0xb4), RGBColor(0xd6, 0x27, 0x28)];
        for (k, c) in colours.into_iter().enumerate() {
            let on_link = self
                .t_us
                .iter()
                .copied()
                .zip(self.rate_gbps[k].iter().copied());
            rates
                .draw_series(LineSeries::new(on_link, c.stroke_width(2)))?
                .label(format!("flow {k}: on the bottleneck"))
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], c.stroke_width(2)));
            let rp = self
                .t_us
                .iter()
                .copied()
                .zip(self.rp_gbps[k].iter().copied());
            rates
                .draw_series(DashedLineSeries::new(rp, 4, 3, c.mix(0.6).stroke_width(1)))?
                .label(format!("flow {k}: reaction-point rate"))
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], c.mix(0.6)));
        }
        rates
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK.mix(0.3))
            .draw()?;
        let mut queue = ChartBuilder::on(&bottom)
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(50)
            .build_cartesian_2d(0.0..tmax, 0.0..qmax * 1.1)?;
        queue
            .configure_mesh()
            .x_desc("time (us)")
            .y_desc("queue KB")
            .draw()?;
        let q = self.t_us.iter().copied().zip(self.queue_kb.iter().copied());
        queue.draw_series(LineSeries::new(
            q,
            RGBColor(0x2c, 0xa0, 0x2c).stroke_width(2),
        ))?;
        root.present()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plot_draws_both_flows_their_reaction_points_and_the_queue() {
        let t = Trace {
            t_us: vec![0.0, 100.0, 200.0],
            rate_gbps: [vec![1.0, 2.0, 3.0], vec![3.0, 2.0, 1.0]],
            rp_gbps: [vec![2.0, 2.0, 4.0], vec![4.0, 2.0, 2.0]],
            queue_kb: vec![0.0, 5.0, 1.0],
            line_gbps: 10.0,
            ..Trace::default()
        };
        let s = t.svg("DCQCN test").unwrap();
        assert!(s.starts_with("<svg") && s.contains("DCQCN test"), "{s}");
        for label in [
            "flow 0: on the bottleneck",
            "flow 1: reaction-point rate",
            "queue KB",
            "time (us)",
        ] {
            assert!(s.contains(label), "{label}");
        }
        // Two solid rates, the queue, and the dashed rates in pieces.
        assert!(s.matches("<polyline").count() >= 5, "{s}");
    }
}
