//! Options every tool shares to put one co-simulated NIC on a real wire: `--link`, `--ip`, `--mac`,
//! `--pcap`, `--width`, `--vlan`. The NIC is port 0 of a [`Fabric`] whose port 1 is the socket.
use rocenic_driver::backend::sim::SimBackend;
use rocenic_driver::Context;
use rocenic_sim::{ExternalSpec, Fabric, FabricConfig, Width};
use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

pub const HELP: &str = "NIC attachment:
  --link udp:LOCAL_PORT:REMOTE_PORT   the NIC's Ethernet port is a UDP socket on 127.0.0.1 (QEMU -netdev dgram)
  --link tcp:HOST:PORT                ... or a TCP connection to QEMU -netdev stream,server=on
  --ip ADDR[/PREFIX]                  the NIC's IPv4 address (default 10.0.0.2/24); its GID is ::ffff:ADDR
  --ipv6 ADDR                         also an IPv6 address (the port's GID table entry 0): the GID the tool
                                      gives its peer, whose own GID must then be IPv6 too (RoCEv2 over IPv6)
  --vlan VID                          the QP's 802.1Q VLAN: the port joins it (tags off what it receives on it,
                                      ARP/NDP answered on it) beside its untagged self, the QP sends tagged
                                      with it, and the tool resolves its peer there (a Linux peer on eth0.VID)
  --mac MAC                           the NIC's MAC (default 02:52:4f:43:45:02)
  --pcap FILE                         capture every frame on the wire
  --width 64|512                      datapath width of the simulated core (default 64)
  --drop P                            drop each RoCE-side frame with probability P in both directions, seeded by
                                      --link-seed N (default 1): loss on the wire for both NICs to recover from
  --drop-frames N                     drop (with --drop) only among each direction's first N frames, so a run's
                                      closing exchange, after which the peer may have exited, is not lost";

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

impl Default for Attach {
    fn default() -> Self {
        Attach {
            link: None,
            ip: Ipv4Addr::new(10, 0, 0, 2),
            ip6: None,
            mac: [0x02, 0x52, 0x4F, 0x43, 0x45, 0x02],
            pcap: None,
            width: Width::W64,
            drop: 0.0,
            drop_frames: None,
            link_seed: 1,
            vlan: None,
        }
    }
}

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
    /// Takes `opt` (and its value from `value`) if it is an attachment option; Ok(false) if it is not.
    pub fn take(
        &mut self,
        opt: &str,
        value: &mut dyn FnMut() -> Option<String>,
    ) -> Result<bool, String> {
        let mut need = |what: &str| value().ok_or(format!("{opt} needs {what}"));
        match opt {
            "--link" => self.link = Some(ExternalSpec::parse(&need("a link spec")?)?),
            "--ip" => {
                let v = need("an address")?;
                let addr = v.split('/').next().unwrap_or_default();
                self.ip = addr
                    .parse()
                    .map_err(|_| format!("--ip: not an IPv4 address: {v}"))?;
            }
            "--ipv6" => {
                let v = need("an address")?;
                let addr = v.split('/').next().unwrap_or_default();
                self.ip6 = Some(
                    addr.parse()
                        .map_err(|_| format!("--ipv6: not an IPv6 address: {v}"))?,
                );
            }
            "--mac" => self.mac = parse_mac(&need("a MAC")?)?,
            "--pcap" => self.pcap = Some(PathBuf::from(need("a file")?)),
            "--drop" => {
                let v = need("a probability")?;
                self.drop = v
                    .parse::<f64>()
                    .ok()
                    .filter(|p| (0.0..1.0).contains(p))
                    .ok_or(format!("--drop: not a probability below 1: {v}"))?;
            }
            "--drop-frames" => {
                let v = need("a number")?;
                self.drop_frames = Some(
                    v.parse()
                        .map_err(|_| format!("--drop-frames: not a number: {v}"))?,
                );
            }
            "--link-seed" => {
                let v = need("a number")?;
                self.link_seed = v
                    .parse()
                    .map_err(|_| format!("--link-seed: not a number: {v}"))?;
            }
            "--vlan" => {
                let v = need("a VLAN ID")?;
                self.vlan = Some(
                    v.parse()
                        .map_err(|_| format!("--vlan: not a VLAN ID: {v}"))?,
                );
            }
            "--width" => {
                let v = need("64 or 512")?;
                self.width =
                    Width::parse(&v).ok_or(format!("--width must be 64 or 512, got {v}"))?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

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
