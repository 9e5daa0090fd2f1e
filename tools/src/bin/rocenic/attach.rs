//! Options every tool shares to put one co-simulated NIC on a real wire: `--link`, `--ip`, `--mac`,
//! `--pcap`, `--width`, `--vlan`. The NIC is port 0 of a [`Fabric`] whose port 1 is the socket.
use rocenic_driver::backend::sim::SimBackend;
use rocenic_driver::Context;
use rocenic_sim::{ExternalSpec, Fabric, FabricConfig, Width};
use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// The attachment options, as clap takes them (flattened into each tool's options).
#[derive(clap::Args, Debug, Clone)]
#[command(next_help_heading = "NIC attachment")]
pub struct AttachArgs {
    /// The NIC's Ethernet port: udp:LOCAL_PORT:REMOTE_PORT, a UDP socket on 127.0.0.1 (QEMU -netdev
    /// dgram), or tcp:HOST:PORT, a TCP connection to QEMU -netdev stream,server=on
    #[arg(long, value_name = "SPEC", value_parser = ExternalSpec::parse)]
    link: Option<ExternalSpec>,
    /// The NIC's IPv4 address; its GID is ::ffff:ADDR
    #[arg(long, value_name = "ADDR[/PREFIX]", default_value_t = DEFAULT_IP, value_parser = ipv4_parser)]
    ip: Ipv4Addr,
    /// Also an IPv6 address (the port's GID table entry 0): the GID the tool gives its peer, whose own GID
    /// must then be IPv6 too (RoCEv2 over IPv6)
    #[arg(long, value_name = "ADDR", value_parser = ipv6_parser)]
    ipv6: Option<Ipv6Addr>,
    /// The QP's 802.1Q VLAN: the port joins it (tags off what it receives on it, ARP/NDP answered on it)
    /// beside its untagged self, the QP sends tagged with it, and the tool resolves its peer there (a
    /// Linux peer on eth0.VID)
    #[arg(long, value_name = "VID", value_parser = crate::opt::int_parser(1..=4094))]
    vlan: Option<u64>,
    /// The NIC's MAC (default 02:52:4f:43:45:02)
    #[arg(long, value_parser = parse_mac)]
    mac: Option<[u8; 6]>,
    /// Capture every frame on the wire
    #[arg(long, value_name = "FILE")]
    pcap: Option<PathBuf>,
    /// Datapath width of the simulated core: 64 or 512
    #[arg(long, default_value = "64", value_parser = crate::opt::width_parser)]
    width: Width,
    /// Drop each RoCE-side frame with probability P in both directions, seeded by --link-seed: loss on the
    /// wire for both NICs to recover from
    #[arg(long, value_name = "P", default_value_t = 0.0, value_parser = drop_parser)]
    drop: f64,
    /// Drop (with --drop) only among each direction's first N frames, so a run's closing exchange, after
    /// which the peer may have exited, is not lost
    #[arg(long, value_name = "N", value_parser = crate::opt::int_parser(0..=u64::MAX))]
    drop_frames: Option<u64>,
    /// Seed of --drop
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = crate::opt::int_parser(0..=u64::MAX))]
    link_seed: u64,
}

fn ipv4_parser(v: &str) -> Result<Ipv4Addr, String> {
    let addr = v.split('/').next().unwrap_or_default();
    addr.parse()
        .map_err(|_| format!("not an IPv4 address: {v}"))
}

fn ipv6_parser(v: &str) -> Result<Ipv6Addr, String> {
    let addr = v.split('/').next().unwrap_or_default();
    addr.parse()
        .map_err(|_| format!("not an IPv6 address: {v}"))
}

fn drop_parser(v: &str) -> Result<f64, String> {
    v.parse::<f64>()
        .ok()
        .filter(|p| (0.0..1.0).contains(p))
        .ok_or(format!("not a probability below 1: {v}"))
}

impl From<AttachArgs> for Attach {
    fn from(a: AttachArgs) -> Attach {
        Attach {
            link: a.link,
            ip: a.ip,
            ip6: a.ipv6,
            mac: a.mac.unwrap_or(DEFAULT_MAC),
            pcap: a.pcap,
            width: a.width,
            drop: a.drop,
            drop_frames: a.drop_frames,
            link_seed: a.link_seed,
            vlan: a.vlan.map(|v| v as u16),
        }
    }
}

pub struct Attach {
    pub link: Option<ExternalSpec>,
    pub ip: Ipv4Addr,
    pub ip6: Option<Ipv6Addr>,
    pub mac: [u8; 6],
    pub pcap: Option<PathBuf>,
    pub width: Width,
    pub drop: f64,
    pub drop_frames: Option<u64>,
    pub link_seed: u64,
    /// The 802.1Q VLAN of the QP (`--vlan`): the port joins it beside its untagged self.
    pub vlan: Option<u16>,
}

/// The NIC's address unless `--ip` and `--mac` say otherwise (also a `--device sim` NIC's).
pub const DEFAULT_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);
pub const DEFAULT_MAC: [u8; 6] = [0x02, 0x52, 0x4F, 0x43, 0x45, 0x02];

pub fn parse_mac(s: &str) -> Result<[u8; 6], String> {
    let parts: Vec<u8> = s
        .split(':')
        .map(|p| u8::from_str_radix(p, 16))
        .collect::<Result<_, _>>()
        .map_err(|_| format!("not a MAC address: {s}"))?;
    parts
        .try_into()
        .map_err(|_| format!("not a MAC address: {s}"))
}

impl Attach {
    /// Builds the fabric, opens the device and programs the port's address.
    pub fn open(&self) -> Result<(Arc<Mutex<Fabric>>, Context), String> {
        let link = self
            .link
            .clone()
            .ok_or("--link is required: where is the NIC's Ethernet port attached?")?;
        if let Some(dir) = self
            .pcap
            .as_ref()
            .and_then(|p| p.parent())
            .filter(|d| !d.as_os_str().is_empty())
        {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        let cfg = FabricConfig {
            width: self.width,
            host_mem_bytes: 64 << 20,
            pcap: self.pcap.clone(),
            external: Some(link),
            faults: rocenic_sim::FaultPlan {
                random_frames: self.drop_frames,
                ..rocenic_sim::FaultPlan::none().random(0.0, self.drop)
            },
            seed: self.link_seed,
            ..FabricConfig::default()
        };
        let fabric = Arc::new(Mutex::new(Fabric::new(cfg).map_err(|e| e.to_string())?));
        let ctx = Context::open(Arc::new(SimBackend::new(fabric.clone(), 0)))
            .map_err(|e| e.to_string())?;
        ctx.set_port(self.mac, self.ip);
        fabric
            .lock()
            .unwrap()
            .set_external_address(self.mac, self.ip);
        if let Some(ip6) = self.ip6 {
            ctx.set_gid(0, ip6).map_err(|e| format!("--ipv6: {e}"))?;
            fabric.lock().unwrap().set_external_address6(ip6);
        }
        if let Some(vid) = self.vlan {
            ctx.add_vlan(vid).map_err(|e| format!("--vlan: {e}"))?;
            fabric.lock().unwrap().set_external_vlan(Some(vid));
        }
        Ok((fabric, ctx))
    }
}
