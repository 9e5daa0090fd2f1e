//! Two NICs back to back over a [`Link`], on one clock; or one NIC whose far end of the link is an
//! [`ExternalPort`] (a socket to a QEMU guest or another process).
use crate::external::{ExternalPort, ExternalSpec, ExternalStats};
use crate::fault::FaultPlan;
use crate::link::{Link, LinkStats, PcapTap};
use crate::memory::HostMemory;
use crate::nic::{line_bytes_per_cycle, Nic, NicConfig, REG_TIMEOUT_CYCLES, RESET_CYCLES};
use crate::switch::{Sample, Switch, SwitchConfig, SwitchStats};
use crate::SimError;
use rocenic_proto::Width;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Everything a [`Fabric`] is built from.
#[derive(Clone, Debug)]
pub struct FabricConfig {
    pub width: Width,
    /// Host memory per NIC, in bytes.
    pub host_mem_bytes: usize,
    /// Cycles from a frame's last beat leaving one core to it being queued at the other's receive port.
    pub link_latency_cycles: u64,
    /// Cycles from a DMA read request to its first data beat.
    pub dma_read_latency_cycles: u64,
    /// Host-link model of each NIC: read credits and bandwidths (see [`NicConfig`]; 0 = unlimited).
    pub dma_read_credits: usize,
    pub dma_read_bytes_per_cycle: f64,
    pub dma_write_bytes_per_cycle: f64,
    /// The host's Max_Read_Request_Size in bytes (see [`NicConfig::dma_max_read_bytes`]).
    pub dma_max_read_bytes: usize,
    /// Return DMA read completions of different tags out of order (see
    /// [`NicConfig::dma_reorder_seed`]; seeded from `seed` and the port).
    pub dma_reorder: bool,
    /// Each transmit MAC's line rate in Gb/s; `None` is the width's own (10 at 64 bits, 100 at 512 bits),
    /// `Some(0.0)` no limit (the core's datapath rate).
    pub line_gbps: Option<f64>,
    /// Capture every frame on the wire (both directions) here.
    pub pcap: Option<PathBuf>,
    pub faults: FaultPlan,
    /// Seed of the link's random faults.
    pub seed: u64,
    /// Dump each core's signals: port p writes `<stem>.port<p>.<ext>` next to this path.
    pub vcd: Option<PathBuf>,
    /// Port 1 is this socket instead of a second simulated NIC.
    pub external: Option<ExternalSpec>,
    /// Instead of two NICs on one link: one NIC per switch port (`SwitchConfig::macs`), through the switch.
    pub switch: Option<SwitchConfig>,
    /// Idle fast-forward (see [`FastForward`]); the environment variable `ROCENIC_FAST_FORWARD`
    /// (`on`, `off`, `check`) overrides it.
    pub fast_forward: FastForward,
}

/// Whether the fabric skips cycles in which nothing can happen but timers counting.
///
/// A core reports, each cycle, whether its coming clock edge changes any state but its free-running
/// timers (the change probe) and how many cycles those can run before one expires (`wake`). When every
/// core has been quiet for two cycles with its bench's inputs still, and no frame is due on the link,
/// one clock edge with the core's `warp` input set stands for as many cycles as all of them allow: the
/// timers advance by that many at once. Frames, completions, counters and their cycles are the same as
/// without it (`tools/tests/fast_forward.rs` checks that).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FastForward {
    #[default]
    On,
    /// Every cycle simulated.
    Off,
    /// Every cycle simulated, and each cycle fast-forward would have skipped checked to be quiet in
    /// every core: a panic names the first that was not.
    Check,
}

impl FastForward {
    /// `cfg`, or what `ROCENIC_FAST_FORWARD` says instead.
    fn from_env(cfg: FastForward) -> Result<FastForward, SimError> {
        match std::env::var("ROCENIC_FAST_FORWARD").as_deref() {
            Err(_) => Ok(cfg),
            Ok("on") => Ok(FastForward::On),
            Ok("off") => Ok(FastForward::Off),
            Ok("check") => Ok(FastForward::Check),
            Ok(v) => Err(SimError::Config(format!(
                "ROCENIC_FAST_FORWARD={v}: expected on, off or check"
            ))),
        }
    }
}

impl Default for FabricConfig {
    fn default() -> Self {
        FabricConfig {
            width: Width::W64,
            host_mem_bytes: 64 << 20,
            link_latency_cycles: 100,
            dma_read_latency_cycles: 50,
            dma_read_credits: 0,
            dma_read_bytes_per_cycle: 0.0,
            dma_write_bytes_per_cycle: 0.0,
            dma_max_read_bytes: 4096,
            dma_reorder: false,
            line_gbps: None,
            pcap: None,
            faults: FaultPlan::none(),
            seed: 1,
            vcd: None,
            external: None,
            switch: None,
            fast_forward: FastForward::On,
        }
    }
}

/// The VCD file of port `port` for the configured path `base`.
pub fn vcd_path(base: &Path, port: usize) -> PathBuf {
    let stem = base.file_stem().unwrap_or_default().to_string_lossy();
    let ext = base
        .extension()
        .map_or("vcd".into(), |e| e.to_string_lossy());
    base.with_file_name(format!("{stem}.port{port}.{ext}"))
}

/// Cycles between two polls of the external port's socket: often enough that a frame waits well under a
/// microsecond of simulated time, rarely enough that the system call is not the simulation's cost.
pub const EXTERNAL_POLL_CYCLES: u64 = 256;

/// Two NICs, each with its own host memory, connected by a link; or one NIC and an external port. Built
/// already reset.
pub struct Fabric {
    nics: Vec<Nic>,
    external: Option<ExternalPort>,
    /// First error of the external port; the fabric stops using the port and reports it.
    external_error: Option<String>,
    link: Net,
    width: Width,
    cycle: u64,
    fast_forward: FastForward,
    /// Check mode: the last cycle fast-forward would have skipped so far.
    check_until: Option<u64>,
    /// Cycles skipped by fast-forward, and the edges that skipped them.
    skipped: u64,
    warps: u64,
}

impl Fabric {
    pub fn new(cfg: FabricConfig) -> Result<Fabric, SimError> {
        let mk = |port: usize| -> Result<Nic, SimError> {
            let mem = Arc::new(HostMemory::new(cfg.host_mem_bytes)?);
            let ncfg = NicConfig {
                dma_read_latency_cycles: cfg.dma_read_latency_cycles,
                dma_read_credits: cfg.dma_read_credits,
                dma_read_bytes_per_cycle: cfg.dma_read_bytes_per_cycle,
                dma_write_bytes_per_cycle: cfg.dma_write_bytes_per_cycle,
                dma_max_read_bytes: cfg.dma_max_read_bytes,
                mac_bytes_per_cycle: line_bytes_per_cycle(
                    cfg.line_gbps.unwrap_or(cfg.width.line_gbps()),
                    cfg.width.clock_mhz(),
                ),
                vcd: cfg.vcd.as_deref().map(|p| vcd_path(p, port)),
                dma_reorder_seed: cfg
                    .dma_reorder
                    .then(|| cfg.seed.wrapping_mul(31).wrapping_add(port as u64)),
            };
            Nic::new(cfg.width, mem, &ncfg)
        };
        let pcap = match &cfg.pcap {
            Some(p) => Some(PcapTap::create(p).map_err(|e| SimError::Pcap(p.clone(), e))?),
            None => None,
        };
        let (link, ports) = match &cfg.switch {
            None => (
                Net::Link(Link::new(
                    cfg.link_latency_cycles,
                    cfg.width.clock_mhz(),
                    cfg.faults.clone(),
                    cfg.seed,
                    pcap,
                )),
                2,
            ),
            Some(sw) => {
                if cfg.external.is_some() || cfg.faults != FaultPlan::none() {
                    return Err(SimError::Config(
                        "a switched fabric has no external port and no fault plan".into(),
                    ));
                }
                let n = sw.macs.len();
                (
                    Net::Switch(Switch::new(
                        sw.clone(),
                        cfg.link_latency_cycles,
                        cfg.width.clock_mhz(),
                        cfg.seed,
                        pcap,
                    )),
                    n,
                )
            }
        };
        let (nics, external) = match &cfg.external {
            None => ((0..ports).map(mk).collect::<Result<Vec<_>, _>>()?, None),
            Some(spec) => {
                let port = ExternalPort::open(spec)
                    .map_err(|e| SimError::Config(format!("external link {spec}: {e}")))?;
                (vec![mk(0)?], Some(port))
            }
        };
        let mut f = Fabric {
            nics,
            external,
            external_error: None,
            link,
            width: cfg.width,
            cycle: 0,
            fast_forward: FastForward::from_env(cfg.fast_forward)?,
            check_until: None,
            skipped: 0,
            warps: 0,
        };
        let probe = f.fast_forward != FastForward::Off;
        for n in &mut f.nics {
            n.set_fast_forward(probe);
        }
        f.reset();
        Ok(f)
    }

    pub fn width(&self) -> Width {
        self.width
    }

    /// Host memory of NIC `port`.
    pub fn memory(&self, port: usize) -> Arc<HostMemory> {
        self.nics[port].memory()
    }

    /// Direct access to NIC `port` (frames, register access without ticking the other NIC, …).
    pub fn nic_mut(&mut self, port: usize) -> &mut Nic {
        &mut self.nics[port]
    }

    /// Reset both cores for [`RESET_CYCLES`]; the link keeps running.
    pub fn reset(&mut self) {
        for n in &mut self.nics {
            n.set_reset(true);
        }
        self.run(RESET_CYCLES);
        for n in &mut self.nics {
            n.set_reset(false);
        }
    }

    /// Write a register of NIC `port`; the whole fabric runs while the write completes.
    pub fn reg_write(&mut self, port: usize, offset: u16, value: u32) {
        self.nics[port].start_reg_write(offset, value);
        self.run_until_reg_done(port, offset);
    }

    /// Read a register of NIC `port`; the whole fabric runs until the data returns.
    pub fn reg_read(&mut self, port: usize, offset: u16) -> u32 {
        self.nics[port].start_reg_read(offset);
        self.run_until_reg_done(port, offset);
        self.nics[port].take_reg_read().unwrap()
    }

    fn run_until_reg_done(&mut self, port: usize, offset: u16) {
        for _ in 0..REG_TIMEOUT_CYCLES {
            if !self.nics[port].reg_access_pending() {
                return;
            }
            self.step();
        }
        panic!("register access at {offset:#06x} of port {port} did not complete in {REG_TIMEOUT_CYCLES} cycles");
    }

    /// Advance both NICs and the link by `cycles` clock cycles.
    pub fn run(&mut self, cycles: u64) {
        let mut left = cycles;
        while left > 0 {
            let warp = self.advance(self.warp_allowance().min(left - 1));
            left -= 1 + warp;
        }
    }

    /// Cycles the next fabric edge may skip: the least every NIC allows, none past a frame due on the
    /// link, none with an external port (its peer runs in real time).
    fn warp_allowance(&self) -> u64 {
        if self.fast_forward == FastForward::Off || self.external.is_some() {
            return 0;
        }
        let mut a = self.link.quiet_cycles(self.cycle);
        for n in &self.nics {
            if a == 0 {
                break;
            }
            a = a.min(n.warp_allowance());
        }
        a.min(u32::MAX as u64)
    }

    /// One fabric edge that skips `warp` cycles (at most [`Fabric::warp_allowance`]); in check mode a
    /// plain cycle, with the cycles it would have skipped noted for checking. Returns the cycles
    /// skipped.
    fn advance(&mut self, warp: u64) -> u64 {
        if self.fast_forward == FastForward::Check {
            if warp > 0 {
                let end = self.cycle + warp;
                self.check_until = Some(self.check_until.map_or(end, |u| u.max(end)));
            }
            self.step_warp(0);
            return 0;
        }
        self.step_warp(warp);
        warp
    }

    /// Cycles fast-forward skipped so far, and the clock edges that skipped them.
    pub fn fast_forward_stats(&self) -> (u64, u64) {
        (self.skipped, self.warps)
    }

    /// One cycle of the fabric.
    #[inline]
    fn step(&mut self) {
        self.step_warp(0);
    }

    /// One clock edge of the fabric, standing for `1 + warp` cycles.
    #[inline]
    fn step_warp(&mut self, warp: u64) {
        for n in &mut self.nics {
            n.tick_warp(warp as u32);
        }
        if warp > 0 {
            self.skipped += warp;
            self.warps += 1;
        }
        if let Some(until) = self.check_until {
            if self.cycle <= until {
                if let Some(p) = self.nics.iter().position(|n| !n.was_quiet()) {
                    panic!(
                        "fast-forward check: port {p} changed state at cycle {}, which fast-forward \
                         would have skipped (up to cycle {until})",
                        self.cycle
                    );
                }
            } else {
                self.check_until = None;
            }
        }
        for port in 0..self.nics.len() {
            while let Some((c, frame)) = self.nics[port].pop_tx_frame_timed() {
                self.link.send(port, frame, c);
            }
        }
        while let Some((to, frame, fcs_bad)) = self.link.poll(self.cycle) {
            match self.nics.get_mut(to) {
                Some(n) if fcs_bad => n.push_rx_frame_bad_fcs(frame),
                Some(n) => n.push_rx_frame(frame),
                // The external peer's MAC would drop it.
                None if fcs_bad => {}
                None => self.send_external(&frame),
            }
        }
        if self.external.is_some() && self.cycle.is_multiple_of(EXTERNAL_POLL_CYCLES) {
            self.receive_external();
        }
        self.cycle += 1 + warp;
    }

    fn send_external(&mut self, frame: &[u8]) {
        if let Some(x) = &mut self.external {
            if let Err(e) = x.send(frame) {
                self.external_error
                    .get_or_insert(format!("sending to {}: {e}", x.spec()));
            }
        }
    }

    /// Frames from the external port enter the link as port 1's; ARP answers as port 0's (the NIC's).
    fn receive_external(&mut self) {
        let Some(x) = &mut self.external else { return };
        let (mut to_nic, mut to_wire) = (Vec::new(), Vec::new());
        if let Err(e) = x.receive(&mut to_nic, &mut to_wire) {
            self.external_error
                .get_or_insert(format!("receiving from {}: {e}", x.spec()));
        }
        for f in to_nic {
            self.link.send(1, f, self.cycle);
        }
        for f in to_wire {
            self.link.send(0, f, self.cycle);
        }
    }

    /// Whether port 1 is an external port.
    pub fn is_external(&self) -> bool {
        self.external.is_some()
    }

    /// Tell the external port the NIC's address, the sender of its resolution requests (`resolve`).
    pub fn set_external_address(&mut self, mac: [u8; 6], ip: Ipv4Addr) {
        if let Some(x) = &mut self.external {
            x.set_address(mac, ip);
        }
    }

    /// Tell the external port which 802.1Q VLAN the NIC resolves its peers on (None: untagged).
    pub fn set_external_vlan(&mut self, vid: Option<u16>) {
        if let Some(x) = &mut self.external {
            x.set_vlan(vid);
        }
    }

    /// Tell the external port the NIC's IPv6 address, the sender of its neighbour solicitations.
    pub fn set_external_address6(&mut self, ip: Ipv6Addr) {
        if let Some(x) = &mut self.external {
            x.set_address6(ip);
        }
    }

    /// [`Fabric::resolve`] for an IPv6 neighbour: neighbour solicitations (RFC 4861) instead of ARP.
    pub fn resolve6(
        &mut self,
        ip: Ipv6Addr,
        retry_cycles: u64,
        max_cycles: u64,
    ) -> Option<[u8; 6]> {
        let start = self.cycle;
        let mut next = start;
        while self.cycle - start < max_cycles {
            let x = self.external.as_mut()?;
            if let Some(mac) = x.neighbour6(ip) {
                return Some(mac);
            }
            if self.cycle >= next {
                let req = x.ns_request(ip)?;
                self.link.send(0, req, self.cycle);
                next = self.cycle + retry_cycles;
            }
            self.run(EXTERNAL_POLL_CYCLES);
        }
        None
    }

    /// The MAC of `ip` beyond the external port: ARP for it (again every `retry_cycles`) while running
    /// the fabric, up to `max_cycles`. None if no answer came, or there is no external port.
    pub fn resolve(&mut self, ip: Ipv4Addr, retry_cycles: u64, max_cycles: u64) -> Option<[u8; 6]> {
        let start = self.cycle;
        let mut next = start;
        while self.cycle - start < max_cycles {
            let x = self.external.as_mut()?;
            if let Some(mac) = x.neighbour(ip) {
                return Some(mac);
            }
            if self.cycle >= next {
                let req = x.arp_request(ip)?;
                self.link.send(0, req, self.cycle);
                next = self.cycle + retry_cycles;
            }
            self.run(EXTERNAL_POLL_CYCLES);
        }
        None
    }

    /// Counters of the external port (None without one).
    pub fn external_stats(&self) -> Option<ExternalStats> {
        self.external.as_ref().map(ExternalPort::stats)
    }

    /// Start keeping every frame put on the wire, for [`Fabric::take_sent`].
    pub fn record_frames(&mut self) {
        self.link.record();
    }

    /// Frames NIC `port` (or, for port 1, an injection or the external port) sent since the last call.
    pub fn take_sent(&mut self, port: usize) -> Vec<Vec<u8>> {
        self.link.take_sent(port)
    }

    /// The first socket error of the external port, if one happened.
    pub fn external_error(&self) -> Option<&str> {
        self.external_error.as_deref()
    }

    /// Cycles run so far, reset included.
    pub fn cycles(&self) -> u64 {
        self.cycle
    }

    /// Simulated time so far, in nanoseconds.
    pub fn time_ns(&self) -> f64 {
        self.cycle as f64 * 1000.0 / self.width.clock_mhz()
    }

    pub fn link_stats(&self) -> LinkStats {
        match &self.link {
            Net::Link(l) => l.stats(),
            Net::Switch(_) => LinkStats::default(),
        }
    }

    /// Interrupt pulses of NIC `port`.
    pub fn irq_count(&self, port: usize) -> u64 {
        self.nics[port].irq_count()
    }

    /// Put `frame` on the wire as if NIC `port` had transmitted it now: it is padded, faulted, captured
    /// and delivered to the other NIC like any other frame.
    pub fn inject_frame(&mut self, port: usize, frame: Vec<u8>) {
        self.nics[port].inject_tx_frame(frame);
    }

    /// Flush the pcap file (and the VCD files, if any); reports the first pcap write error.
    pub fn flush_pcap(&mut self) -> std::io::Result<()> {
        for n in &mut self.nics {
            n.flush_vcd();
        }
        self.link.flush_pcap()
    }
}

/// What connects the NICs: one link between two, or a switch between several.
enum Net {
    Link(Link),
    Switch(Switch),
}

impl Net {
    /// Cycles from `cycle` on in which nothing happens on the network, up to the cycle before its next
    /// event (a frame due at a NIC, a switch queue to serve, a sample to take).
    fn quiet_cycles(&self, cycle: u64) -> u64 {
        match self {
            Net::Link(l) => l.quiet_cycles(cycle),
            Net::Switch(s) => s.quiet_cycles(cycle),
        }
    }
    #[inline]
    fn send(&mut self, port: usize, frame: Vec<u8>, cycle: u64) {
        match self {
            Net::Link(l) => l.send(port, frame, cycle),
            Net::Switch(s) => s.send(port, frame, cycle),
        }
    }
    #[inline]
    fn poll(&mut self, cycle: u64) -> Option<(usize, Vec<u8>, bool)> {
        match self {
            Net::Link(l) => l.poll(cycle),
            Net::Switch(s) => s.poll(cycle).map(|(to, f)| (to, f, false)),
        }
    }
    fn record(&mut self) {
        match self {
            Net::Link(l) => l.record(),
            Net::Switch(s) => s.record(),
        }
    }
    fn take_sent(&mut self, port: usize) -> Vec<Vec<u8>> {
        match self {
            Net::Link(l) => l.take_sent(port),
            Net::Switch(s) => s.take_sent(port),
        }
    }
    fn flush_pcap(&mut self) -> std::io::Result<()> {
        match self {
            Net::Link(l) => l.flush_pcap(),
            Net::Switch(s) => s.flush_pcap(),
        }
    }
}

impl Fabric {
    /// The switch's counters (`None` on a point-to-point link).
    pub fn switch_stats(&self) -> Option<SwitchStats> {
        match &self.link {
            Net::Switch(s) => Some(s.stats()),
            Net::Link(_) => None,
        }
    }

    /// The bottleneck samples taken since the last call (empty on a point-to-point link).
    pub fn take_switch_samples(&mut self) -> Vec<Sample> {
        match &mut self.link {
            Net::Switch(s) => s.take_samples(),
            Net::Link(_) => Vec::new(),
        }
    }

    /// How many NIC ports the fabric has.
    pub fn ports(&self) -> usize {
        self.nics.len()
    }
}
