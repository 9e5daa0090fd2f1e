//! `rocenic stat`: the device's counters as `rdma statistic` shows them (the port's, then one line per QP
//! in use), `-S` as `ethtool -S` lists them (every counter register), `--json` both, `--watch` as rates.
use crate::device::{DeviceSpec, DEVICE_HELP};
use crate::devinfo::DEVICE_NAME;
use clap::Parser;
use rocenic_driver::{Context, QpStatistics};
use std::time::{Duration, Instant};

#[derive(Parser, Debug)]
#[command(
    name = "rocenic stat",
    about = "The device's counters, as rdma statistic and ethtool -S show them",
    long_about = "The device's counters: the port's under rdma-core's names (rdma statistic show), \
        then each QP that is not in RESET (rdma statistic qp show: its state, PSNs and counters), or \
        with -S every counter register as ethtool -S lists a NIC's. Opens the device to look at it only."
)]
pub struct Args {
    #[arg(long, default_value = "sim", help = DEVICE_HELP)]
    pub device: DeviceSpec,
    /// Every counter register, as `ethtool -S` lists them
    #[arg(short = 'S', long)]
    pub ethtool: bool,
    /// Only these QPs (repeat the option); default every QP not in RESET
    #[arg(long = "qp", value_name = "QPN")]
    pub qps: Vec<u32>,
    /// Everything as one JSON object: port, hw (the counter registers) and qps
    #[arg(long, conflicts_with = "watch")]
    pub json: bool,
    /// Print the counters that moved every SECONDS seconds, as rates per second
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub watch: Option<f64>,
    /// With --watch: stop after this many reports (default: until interrupted)
    #[arg(long, requires = "watch", value_parser = clap::value_parser!(u64).range(1..))]
    pub count: Option<u64>,
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.1 && *v <= 3600.0)
        .ok_or(format!("{s} is not a number of seconds from 0.1 to 3600"))
}

/// One reading of the device's counters.
pub struct Snapshot {
    /// `rdma statistic` names (the port's).
    pub port: Vec<(&'static str, u64)>,
    /// Every counter register (`ethtool -S` names).
    pub hw: Vec<(String, u64)>,
    pub qps: Vec<QpStatistics>,
}

impl Snapshot {
    /// Reads the port's counters and those of `qps` (every QP not in RESET when empty).
    pub fn take(ctx: &Context, qps: &[u32]) -> Result<Snapshot, String> {
        let qpns = if qps.is_empty() {
            ctx.qps_in_use()
        } else {
            qps.to_vec()
        };
        Ok(Snapshot {
            port: ctx.rdma_counters(),
            hw: ctx.counters(),
            qps: qpns
                .iter()
                .map(|&q| ctx.qp_statistics(q).map_err(|e| format!("--qp {q}: {e}")))
                .collect::<Result<_, _>>()?,
        })
    }

    /// `rdma statistic show` and `rdma statistic qp show` lines.
    pub fn rdma_lines(&self) -> String {
        let mut s = format!("link {DEVICE_NAME}/1");
        for (n, v) in &self.port {
            s += &format!(" {n} {v}");
        }
        s += "\n";
        for q in &self.qps {
            s += &format!(
                "link {DEVICE_NAME}/1 qp-type RC lqpn {} state {:?} sq_psn {} rq_psn {}",
                q.qpn, q.state, q.sq_psn, q.rq_psn
            );
            for (n, v) in &q.counters {
                s += &format!(" {n} {v}");
            }
            s += "\n";
        }
        s
    }

    /// `ethtool -S` lines.
    pub fn ethtool_lines(&self) -> String {
        let mut s = "NIC statistics:\n".to_string();
        for (n, v) in &self.hw {
            s += &format!("     {n}: {v}\n");
        }
        s
    }

    pub fn json(&self) -> serde_json::Value {
        let obj = |v: &mut dyn Iterator<Item = (String, u64)>| {
            serde_json::Value::Object(v.map(|(n, x)| (n, x.into())).collect())
        };
        serde_json::json!({
            "ifname": DEVICE_NAME,
            "port": 1,
            "counters": obj(&mut self.port.iter().map(|(n, v)| (n.to_string(), *v))),
            "hw": obj(&mut self.hw.iter().cloned()),
            "qps": self.qps.iter().map(|q| serde_json::json!({
                "lqpn": q.qpn,
                "qp-type": "RC",
                "state": format!("{:?}", q.state).to_uppercase(),
                "sq_psn": q.sq_psn,
                "rq_psn": q.rq_psn,
                "counters": obj(&mut q.counters.iter().map(|(n, v)| (n.to_string(), *v))),
            })).collect::<Vec<_>>(),
        })
    }

    /// What moved between `self` and a later reading `now`, per second over `secs`: the port's counters
    /// and counter registers by name, each QP's by `qpN.name`.
    pub fn rates(&self, now: &Snapshot, secs: f64) -> Vec<(String, f64)> {
        let old: std::collections::HashMap<_, _> = self.named().into_iter().collect();
        let mut seen = std::collections::HashSet::new();
        now.named()
            .into_iter()
            .filter(|(n, _)| seen.insert(n.clone()))
            .filter_map(|(n, v)| {
                // Counter registers are 32 bits and wrap; a QP that appeared starts from 0.
                let d = v.wrapping_sub(old.get(&n).copied().unwrap_or(0)) & 0xFFFF_FFFF;
                (d != 0).then(|| (n, d as f64 / secs))
            })
            .collect()
    }

    /// Every counter of the reading by the name `rates` gives it: the port's, the registers', and each
    /// QP's as `qpN.name`.
    fn named(&self) -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> =
            self.port.iter().map(|(n, x)| (n.to_string(), *x)).collect();
        v.extend(self.hw.iter().cloned());
        for q in &self.qps {
            v.extend(
                q.counters
                    .iter()
                    .map(|(n, x)| (format!("qp{}.{n}", q.qpn), *x)),
            );
        }
        v
    }
}

pub fn run(a: Args) -> Result<(), String> {
    let ctx = &a.device.open_to_inspect()?;
    let first = Snapshot::take(ctx, &a.qps)?;
    let Some(period) = a.watch else {
        if a.json {
            println!("{}", first.json());
        } else if a.ethtool {
            print!("{}", first.ethtool_lines());
        } else {
            print!("{}", first.rdma_lines());
        }
        return Ok(());
    };
    let mut last = (first, Instant::now());
    let mut n = 0;
    while a.count.is_none_or(|c| n < c) {
        std::thread::sleep(Duration::from_secs_f64(period));
        let now = Snapshot::take(ctx, &a.qps)?;
        let t = Instant::now();
        let rates = last.0.rates(&now, (t - last.1).as_secs_f64());
        let list: Vec<String> = rates.iter().map(|(k, r)| format!("{k} {r:.0}/s")).collect();
        println!(
            "link {DEVICE_NAME}/1 {}",
            if list.is_empty() {
                "(nothing moved)".to_string()
            } else {
                list.join(" ")
            }
        );
        last = (now, t);
        n += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocenic_driver::backend::fake::FakeDevice;
    use rocenic_proto::regs;

    #[test]
    fn a_qp_left_by_another_user_is_read_and_not_reset() {
        let dev = FakeDevice::new(8);
        dev.set_qp(0x12, regs::QP_STATE, 3);
        dev.set_qp(0x12, regs::SQ_PSN, 77);
        dev.set_qp(0x12, regs::QP_RETRANSMITS, 5);
        dev.set(regs::TX_FRAMES, 9);
        dev.set(regs::CONTROL, regs::CONTROL_ENABLE);
        let ctx = Context::inspect(dev.clone()).unwrap();
        let s = Snapshot::take(&ctx, &[]).unwrap();
        assert_eq!(s.qps.len(), 1, "only the QP not in RESET");
        let lines = s.rdma_lines();
        assert!(lines.contains(" port_xmit_packets 9"), "{lines}");
        assert!(
            lines.contains("lqpn 18 state Rts sq_psn 77 rq_psn 0")
                && lines.contains("retransmits 5"),
            "{lines}"
        );
        assert!(s.ethtool_lines().contains("     tx_frames: 9\n"));
        let j = s.json();
        assert_eq!(j["counters"]["port_xmit_packets"], 9);
        assert_eq!(j["qps"][0]["state"], "RTS");
        assert_eq!(j["qps"][0]["counters"]["retransmits"], 5);
        // Looking wrote no context and cleared nothing.
        assert_eq!(dev.get_qp(0x12, regs::QP_STATE), 3);
        assert!(dev
            .writes()
            .iter()
            .all(|&(r, _)| r == regs::QPN || r == regs::QP_CMD));
        assert!(matches!(
            ctx.alloc_dma(4096),
            Err(rocenic_driver::Error::InspectOnly(_))
        ));
        assert!(ctx.create_cq(4).is_err());
        // A later reading: only what moved, as rates.
        dev.set(regs::TX_FRAMES, 29);
        dev.set_qp(0x12, regs::QP_RETRANSMITS, 6);
        let r = s.rates(&Snapshot::take(&ctx, &[]).unwrap(), 2.0);
        assert_eq!(
            r,
            vec![
                ("port_xmit_packets".to_string(), 10.0),
                ("tx_frames".to_string(), 10.0),
                ("qp18.retransmits".to_string(), 0.5)
            ]
        );
        assert!(
            Snapshot::take(&ctx, &[1 << 20]).is_err(),
            "a QPN beyond the table"
        );
    }
}
