//! The device context: opening a device, its port address, and the objects made from it.
use super::cq::CompletionQueue;
use super::device::{Device, MrTable, PdNumbers, CMD_CLEAR, MAX_PDN};
use super::mr::ProtectionDomain;
use super::MAX_DEPTH;
use crate::backend::{Backend, DmaRegion};
use crate::error::{Error, Result};
use rocenic_proto::{regs, Width};
use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// An open device. Cheap to clone; every object made from it keeps the device alive.
#[derive(Clone)]
pub struct Context {
    pub(crate) dev: Arc<Device>,
}

/// Alignment of [`Context::alloc_dma`] buffers: a page, like ibverbs users' buffers, and a multiple of
/// every datapath width.
pub const BUFFER_ALIGN: usize = 4096;

impl Context {
    /// Opens the device behind `backend`: checks its identity and register-map version, learns the
    /// datapath width, clears whatever a previous user left in the QP and MR table, and enables the
    /// engines.
    pub fn open(backend: Arc<dyn Backend>) -> Result<Context> {
        let ctx = Context::probe(backend, false)?;
        let b = &*ctx.dev.backend;
        // A device reopened after a crash (VFIO) may still hold QPs and registrations pointing at memory
        // that is no longer ours: every QP to RESET, indices and contexts cleared.
        clear_table(b, regs::QP_CMD, ctx.dev.qp_log, "QP");
        let mr_log = ctx.dev.mrs.lock().unwrap().entries.len().trailing_zeros();
        clear_table(b, regs::MR_CMD, mr_log, "MR");
        b.write32(regs::CONTROL, regs::CONTROL_ENABLE);
        Ok(ctx)
    }

    /// Opens the device behind `backend` to look at it, as `ibv_devinfo` and `rdma statistic` do: the
    /// same checks as [`open`](Self::open), but nothing of the device is cleared or enabled, so QPs,
    /// registrations and counters that another user left stay as they are. Queries work as on an opened
    /// device ([`query_device`](Self::query_device), [`query_port`](Self::query_port),
    /// [`counters`](Self::counters), [`qp_statistics`](Self::qp_statistics)); device memory and CQs (so
    /// MRs and QPs) are refused with [`Error::InspectOnly`].
    pub fn inspect(backend: Arc<dyn Backend>) -> Result<Context> {
        Context::probe(backend, true)
    }

    /// Whether this context came from [`inspect`](Self::inspect).
    pub fn is_inspect_only(&self) -> bool {
        self.dev.inspect_only
    }

    /// The identity, version and table checks both ways of opening share; writes nothing.
    fn probe(backend: Arc<dyn Backend>, inspect_only: bool) -> Result<Context> {
        let id = backend.read32(regs::ID);
        if id != regs::ID_VALUE {
            return Err(Error::NotRocenic(id));
        }
        let version = backend.read32(regs::VERSION);
        if version >> 16 != regs::VERSION_VALUE >> 16 {
            return Err(Error::Version {
                found: version,
                expected: regs::VERSION_VALUE >> 16,
            });
        }
        let blocks = discover_blocks(&*backend)?;
        let param = |kind: regs::BlockKind| {
            blocks
                .iter()
                .find(|b| b.kind == kind)
                .map(|b| b.param)
                .ok_or_else(|| Error::BlockDirectory(format!("the device has no {kind:?} block")))
        };
        let mr_block = blocks.iter().find(|b| b.kind == regs::BlockKind::MrTable);
        if mr_block.is_none_or(|b| b.version != 3) {
            return Err(Error::BlockDirectory(
                "this driver drives an MR table block of version 3 (MR window with MR_LEN_HI, \
                 MR_INDEX, MR_CMD)"
                    .into(),
            ));
        }
        if param(regs::BlockKind::Qp)? == 0 {
            return Err(Error::BlockDirectory("the device has no QP".into()));
        }
        let beat = backend.read32(regs::DATAPATH_BYTES);
        let width = [Width::W64, Width::W512]
            .into_iter()
            .find(|w| w.bytes() == beat as usize)
            .ok_or(Error::BadDatapath(beat))?;
        let qp_log = backend.read32(regs::QP_TABLE_LOG);
        if !(5..=16).contains(&qp_log) {
            return Err(Error::BlockDirectory(format!(
                "QP_TABLE_LOG {qp_log}: a QP table of 32 to 65536 QPs expected"
            )));
        }
        let mr_log = backend.read32(regs::MR_TABLE_LOG);
        if !(2..=20).contains(&mr_log) {
            return Err(Error::BlockDirectory(format!(
                "MR_TABLE_LOG {mr_log}: an MR table of 4 to 2^20 entries expected"
            )));
        }
        Ok(Context {
            dev: Arc::new(Device {
                backend,
                width,
                mrs: Mutex::new(MrTable::new(mr_log)),
                blocks,
                hw_cq: Mutex::new(None),
                qps: Mutex::new(Default::default()),
                qp_log,
                window: Mutex::new(()),
                flushed_wqes: AtomicU64::new(0),
                cqe_errors: Default::default(),
                cqe_flushes: Default::default(),
                pdns: Mutex::new(PdNumbers {
                    next: 1,
                    free: Vec::new(),
                }),
                inspect_only,
            }),
        })
    }

    pub fn describe(&self) -> String {
        self.dev.backend.describe()
    }

    /// The register blocks the device described in its directory (kinds, versions, places, sizes).
    pub fn blocks(&self) -> &[regs::Block] {
        &self.dev.blocks
    }

    /// What the device supports, as `ibv_query_device` reports it (the fields rocenic has a value for).
    pub fn query_device(&self) -> DeviceAttr {
        DeviceAttr {
            fw_ver: self.dev.backend.read32(regs::VERSION),
            max_qp: self.max_qps(),
            max_qp_wr: MAX_DEPTH,
            max_send_sge: rocenic_proto::host::MAX_SEND_SGE,
            max_recv_sge: rocenic_proto::host::MAX_RECV_SGE,
            max_cqe: MAX_DEPTH,
            max_mr: self.max_mrs(),
            max_mr_size: u64::MAX,
            max_pd: MAX_PDN as usize,
            max_qp_rd_atom: self.dev.max_dest_rd_atomic(),
            max_qp_init_rd_atom: self.dev.max_rd_atomic(),
            max_msg_sz: 1 << 31,
            atomic_cap_hca: true,
            width: self.dev.width,
        }
    }

    /// Number of QPs the device's context table holds (2^QP_TABLE_LOG).
    pub fn max_qps(&self) -> usize {
        1 << self.dev.qp_log
    }

    /// Number of memory regions the device's MR table holds (2^MR_TABLE_LOG).
    pub fn max_mrs(&self) -> usize {
        self.dev.mrs.lock().unwrap().entries.len()
    }

    /// The datapath width the device reports.
    pub fn width(&self) -> Width {
        self.dev.width
    }

    /// Bytes per datapath beat (buffers may start at any byte; rings are allocated on a beat).
    pub fn beat_bytes(&self) -> usize {
        self.dev.beat_bytes()
    }

    /// The core clock the device's width is designed for (used to convert the IB ACK timeout to cycles).
    pub fn clock_mhz(&self) -> f64 {
        self.dev.width.clock_mhz()
    }

    /// Programs the port's MAC and IPv4 address (its RoCEv2 GID is the IPv4-mapped address).
    pub fn set_port(&self, mac: [u8; 6], ip: Ipv4Addr) {
        self.dev
            .write64(regs::MAC_LO, regs::MAC_HI, mac_to_u64(mac));
        self.dev.write(regs::IPV4, u32::from(ip));
    }

    /// Sets entry `index` of the port GID table: an IPv6 address of the port, which IPv6 RoCE frames may
    /// be sent to and IPv6 QPs whose `RtrAttrs::sgid_index` names it send from. `::` empties the entry.
    /// The port's IPv4 address ([`set_port`](Self::set_port)) is its IPv4-mapped GID and needs no entry.
    pub fn set_gid(&self, index: u8, gid: Ipv6Addr) -> Result<()> {
        let i = index as usize;
        if i >= regs::GID_TABLE_LEN {
            return Err(Error::BadAttr("GID index beyond the port GID table"));
        }
        if gid.to_ipv4_mapped().is_some() {
            return Err(Error::BadAttr(
                "an IPv4-mapped GID is the port's IPv4 address (set_port), not a table entry",
            ));
        }
        self.dev.set_gid(i, gid);
        Ok(())
    }

    /// Entry `index` of the port GID table (`::` when empty).
    pub fn gid(&self, index: u8) -> Result<Ipv6Addr> {
        let i = index as usize;
        if i >= regs::GID_TABLE_LEN {
            return Err(Error::BadAttr("GID index beyond the port GID table"));
        }
        Ok(self.dev.gid(i))
    }

    /// Congestion-notification marking of the port: the DSCP of the CNPs it sends (0..63, 48 after
    /// reset) and whether RoCE packets leave ECN-capable (ECT(0), on after reset; off, no switch can
    /// mark them and DCQCN never hears of congestion).
    pub fn set_ecn(&self, cnp_dscp: u8, ecn_capable: bool) -> Result<()> {
        if cnp_dscp > 63 {
            return Err(Error::BadAttr("CNP DSCP above 63 (a 6-bit field)"));
        }
        self.dev.write(regs::CNP_DSCP, cnp_dscp as u32);
        self.dev.write(regs::TX_ECN, ecn_capable as u32);
        Ok(())
    }

    /// The UDP destination port of RoCEv2 (4791 after reset, IANA's): RoCE frames are sent to it and taken
    /// only on it. Change it only to meet a peer that uses another port, while the port is idle. Port 0
    /// is refused (not a valid destination).
    pub fn set_udp_port(&self, port: u16) -> Result<()> {
        if port == 0 {
            return Err(Error::BadAttr("UDP port 0"));
        }
        self.dev.write(regs::UDP_DPORT, port as u32);
        Ok(())
    }

    /// Puts the port on an 802.1Q VLAN (`Some(vid)`, 1..=4094) or takes it off (`None`). On a VLAN, RoCE
    /// frames leave tagged with the VID and PCP = their priority (their DSCP through the map of
    /// [`set_priorities`](Self::set_priorities)), ARP replies with PCP = the lowest lossless priority ([`set_pfc`](Self::set_pfc)), and
    /// only frames tagged with the VID are taken; PFC frames stay untagged. Set it while the port is idle
    /// (a frame in flight may be cut).
    pub fn set_vlan(&self, vid: Option<u16>) -> Result<()> {
        let v = match vid {
            None => 0,
            Some(v) => {
                check_vid(v)?;
                regs::VLAN_MODE | v as u32
            }
        };
        self.dev.write(regs::VLAN, v);
        Ok(())
    }

    /// Puts the port on one more 802.1Q VLAN, beside its own ([`set_vlan`](Self::set_vlan)): frames
    /// tagged with `vid` (1..=4094) are taken too, with the tag removed, and QPs whose
    /// [`RtrAttrs::vlan`](super::RtrAttrs::vlan) names it send tagged with it (PCP = the priority of
    /// their DSCP). ARP and neighbour discovery answer on it. Untagged frames stay as `set_vlan` says. The port VLAN
    /// table holds three such VLANs (`VLAN_1..3`); a VLAN the port is already on is not added twice.
    /// Set it while the port is idle (a frame in flight may be cut).
    pub fn add_vlan(&self, vid: u16) -> Result<()> {
        check_vid(vid)?;
        if self.dev.vlan_entry(vid).is_some() {
            return Ok(());
        }
        let free = (1..regs::VLAN_TABLE_LEN)
            .find(|&i| self.dev.read(Device::vlan_reg(i)) & regs::VLAN_ON == 0)
            .ok_or(Error::BadAttr(
                "the port VLAN table is full (three VLANs beside the port's own)",
            ))?;
        self.dev
            .write(Device::vlan_reg(free), regs::VLAN_ON | vid as u32);
        Ok(())
    }

    /// Takes the port off a VLAN [`add_vlan`](Self::add_vlan) put it on: its frames are no longer taken.
    /// QPs that still name it keep sending tagged with it; move them first.
    pub fn remove_vlan(&self, vid: u16) -> Result<()> {
        match self.dev.vlan_entry_in(vid, 1..regs::VLAN_TABLE_LEN) {
            Some(i) => {
                self.dev.write(Device::vlan_reg(i), 0);
                Ok(())
            }
            None => Err(Error::BadAttr(
                "the port was not put on this VLAN by add_vlan",
            )),
        }
    }

    /// The VLANs the port takes frames from: its own ([`set_vlan`](Self::set_vlan)) first, then those of
    /// [`add_vlan`](Self::add_vlan).
    pub fn vlans(&self) -> Vec<u16> {
        (0..regs::VLAN_TABLE_LEN)
            .map(|i| self.dev.read(Device::vlan_reg(i)))
            .filter(|v| v & regs::VLAN_ON != 0)
            .map(|v| (v & 0xFFF) as u16)
            .collect()
    }

    /// How received RoCE frames get their 802.1Qbb priority, and how much of the receive buffer lossy
    /// priorities may fill. `trust` picks the field (DSCP through `dscp_to_prio`, or the 802.1Q PCP;
    /// untagged frames are priority 0 under PCP trust). A RoCE frame whose priority is not lossless
    /// ([`set_pfc`](Self::set_pfc)) is dropped, and counted in `rx_drop_lossy`, when the frames stored
    /// before it fill `lossy_words` receive-buffer words or more; `None` lets every priority use the
    /// whole buffer (the reset state). Set it below the XOFF mark so the lossless priorities keep the
    /// room they need until the peer pauses. `dscp_to_prio` also gives every RoCE frame the NIC sends its
    /// priority, in both trust modes: PFC for a lossless priority holds only the frames whose DSCP
    /// maps to it, and tagged frames carry it as PCP.
    pub fn set_priorities(
        &self,
        trust: Trust,
        dscp_to_prio: &[u8; 64],
        lossy_words: Option<u32>,
    ) -> Result<()> {
        if dscp_to_prio.iter().any(|&p| p > 7) {
            return Err(Error::BadAttr("802.1Qbb priority above 7"));
        }
        if lossy_words == Some(0) {
            return Err(Error::BadAttr(
                "lossy_words of 0 (None turns the lossy limit off)",
            ));
        }
        for (n, chunk) in dscp_to_prio.chunks(8).enumerate() {
            let v = chunk
                .iter()
                .enumerate()
                .fold(0u32, |v, (k, &p)| v | (p as u32) << (4 * k));
            self.dev.write(regs::DSCP_PRIO_MAP_0 + 4 * n as u16, v);
        }
        self.dev
            .write(regs::PRIO_TRUST, (trust == Trust::Dscp) as u32);
        self.dev
            .write(regs::RX_LOSSY_WORDS, lossy_words.unwrap_or(0));
        Ok(())
    }

    /// Priority flow control (IEEE 802.1Qbb) of the port: which priorities are lossless, when the NIC
    /// sends XOFF and XON, and the pause storm watchdog (see [`PfcConfig`]). A received PFC frame then
    /// pauses, each for its own time, the lossless priorities it names; PFC for the others is ignored.
    /// Refused: XON at or above XOFF, an XOFF of 0 quanta, a refresh interval of 0, a watchdog of 0
    /// cycles. Set it while the port is idle.
    pub fn set_pfc(&self, cfg: &PfcConfig) -> Result<()> {
        if let Some(g) = &cfg.generate {
            if g.xon_words >= g.xoff_words {
                return Err(Error::BadAttr("PFC: XON mark at or above the XOFF mark"));
            }
            if g.pause_quanta == 0 {
                return Err(Error::BadAttr("PFC: an XOFF of 0 quanta is an XON"));
            }
            if g.refresh_cycles == 0 {
                return Err(Error::BadAttr("PFC: XOFF refresh interval of 0 cycles"));
            }
        }
        if let Some(w) = &cfg.watchdog {
            if w.cycles == 0 {
                return Err(Error::BadAttr(
                    "PFC watchdog of 0 cycles (None turns it off)",
                ));
            }
        }
        self.dev.write(regs::PFC_ENABLE, cfg.lossless as u32);
        match &cfg.generate {
            Some(g) => {
                self.dev.write(regs::PFC_XON_WORDS, g.xon_words);
                self.dev
                    .write(regs::PFC_PAUSE_QUANTA, g.pause_quanta as u32);
                self.dev.write(regs::PFC_REFRESH_CYCLES, g.refresh_cycles);
                self.dev.write(regs::PFC_XOFF_WORDS, g.xoff_words);
            }
            None => self.dev.write(regs::PFC_XOFF_WORDS, 0),
        }
        match &cfg.watchdog {
            Some(w) => {
                self.dev
                    .write(regs::PFC_WATCHDOG_RECOVERY, w.recovery_cycles);
                self.dev.write(regs::PFC_WATCHDOG_CYCLES, w.cycles);
            }
            None => self.dev.write(regs::PFC_WATCHDOG_CYCLES, 0),
        }
        Ok(())
    }

    /// A protection domain. Its number goes back to the driver when the last handle (its MRs and QPs
    /// hold one) is dropped, and a later PD may take it.
    ///
    /// # Panics
    /// When 2^24 - 1 PDs are alive at once: the core tells PDs apart by 24 bits, so a further number
    /// would alias a live PD's.
    pub fn alloc_pd(&self) -> Arc<ProtectionDomain> {
        let pdn = {
            let mut n = self.dev.pdns.lock().unwrap();
            match n.free.pop() {
                Some(pdn) => pdn,
                None => {
                    assert!(
                        n.next <= MAX_PDN,
                        "2^24 - 1 protection domains alive at once"
                    );
                    n.next += 1;
                    n.next - 1
                }
            }
        };
        Arc::new(ProtectionDomain::new(self.clone(), pdn))
    }

    /// Device-visible memory for data buffers, [`BUFFER_ALIGN`]-aligned.
    pub fn alloc_dma(&self, len: usize) -> Result<DmaRegion> {
        self.refuse_if_inspect_only("device memory")?;
        self.dev.backend.alloc_dma(len, BUFFER_ALIGN)
    }

    /// A completion queue for up to `depth` outstanding completions (a power of two, 2..=32768).
    pub fn create_cq(&self, depth: usize) -> Result<Arc<CompletionQueue>> {
        self.refuse_if_inspect_only("a completion queue")?;
        super::check_depth(depth)?;
        Ok(Arc::new(CompletionQueue::new(self.dev.clone(), depth)))
    }

    fn refuse_if_inspect_only(&self, what: &'static str) -> Result<()> {
        if self.dev.inspect_only {
            return Err(Error::InspectOnly(what));
        }
        Ok(())
    }

    /// Lets the device make progress (the simulator advances its clock; hardware just runs).
    pub fn wait(&self) {
        self.dev.backend.wait()
    }

    /// Every counter register (offset 0x400 and up), named as in `rocenic_proto::regs` but in lower case
    /// like `ethtool -S`, followed by the driver's own `flushed_wqes`.
    pub fn counters(&self) -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = regs::REGISTERS
            .iter()
            .filter(|r| r.offset >= regs::RX_FRAMES && r.access == regs::Access::Counter)
            .map(|r| (r.name.to_lowercase(), self.dev.read(r.offset) as u64))
            .collect();
        v.push(("flushed_wqes".into(), self.flushed_wqes()));
        v
    }

    /// The counters an RDMA engineer knows, under rdma-core's names (`rdma statistic` / the hw_counters of
    /// mlx5 and rxe), from the device's counter registers and the driver's completion accounting. Counters
    /// this generation cannot count are left out rather than reported as zero.
    pub fn rdma_counters(&self) -> Vec<(&'static str, u64)> {
        let r = |off| self.dev.read(off) as u64;
        let a = |c: &AtomicU64| c.load(Ordering::Relaxed);
        vec![
            ("out_of_sequence", r(regs::RX_SEQ_ERRORS)),
            ("packet_seq_err", r(regs::RX_SEQ_NAKS)),
            ("duplicate_request", r(regs::RX_DUP_REQUESTS)),
            ("local_ack_timeout_err", r(regs::ACK_TIMEOUTS)),
            ("implied_nak_seq_err", r(regs::IMPLIED_NAK_SEQ_ERR)),
            ("rnr_nak_retry_err", r(regs::RNR_RETRY_EXC)),
            ("req_remote_access_errors", r(regs::RX_REMOTE_ACCESS_NAKS)),
            (
                "req_remote_invalid_request",
                r(regs::RX_INVALID_REQUEST_NAKS),
            ),
            (
                "resp_remote_access_errors",
                r(regs::RX_REMOTE_ACCESS_ERRORS),
            ),
            ("req_cqe_error", a(&self.dev.cqe_errors[0])),
            ("resp_cqe_error", a(&self.dev.cqe_errors[1])),
            ("req_cqe_flush_error", a(&self.dev.cqe_flushes[0])),
            ("resp_cqe_flush_error", a(&self.dev.cqe_flushes[1])),
            ("rx_icrc_errors", r(regs::RX_ICRC_ERRORS)),
            ("rx_crc_errors_phy", r(regs::RX_FCS_ERRORS)),
            ("rx_ip_checksum_errors", r(regs::RX_IP_CHECKSUM_ERRORS)),
            ("port_rcv_packets", r(regs::RX_ROCE_PACKETS)),
            // IBA PortRcvErrors: packets received with an error (a bad FCS the MAC marked, ICRC,
            // malformed: here a bad IPv4 checksum or length) or discarded for a buffer overrun.
            // Lossy-priority drops are policy, not errors, and are not in it.
            (
                "port_rcv_errors",
                r(regs::RX_FCS_ERRORS)
                    + r(regs::RX_ICRC_ERRORS)
                    + r(regs::RX_IP_CHECKSUM_ERRORS)
                    + r(regs::RX_DROP_LENGTH)
                    + r(regs::RX_DROP_OVERFLOW),
            ),
            ("port_xmit_packets", r(regs::TX_FRAMES)),
        ]
    }

    /// The DCQCN rate limiters the port has lent to QPs (the RateLimiters block): for each limiter in
    /// use, the QP it paces and its current rate in bytes per core cycle x 256 (the line rate is
    /// `DCQCN_LINE_RATE`). Empty when DCQCN is off, no QP has received a CNP since its last recovery, or
    /// the device has no such block (it then paces the whole port: `DCQCN_RATE`).
    pub fn rate_limiters(&self) -> Vec<RateLimiter> {
        let n = self
            .dev
            .blocks
            .iter()
            .find(|b| b.kind == regs::BlockKind::RateLimiters)
            .map_or(0, |b| b.param as usize)
            .min(regs::DCQCN_LIMITERS);
        (0..n)
            .filter_map(|i| {
                let q = self.dev.read(regs::DCQCN_LIMITER_QPN_0 + 4 * i as u16);
                (q >> 31 == 1).then(|| RateLimiter {
                    qpn: q & 0xFFFF,
                    rate: self.dev.read(regs::DCQCN_LIMITER_RATE_0 + 4 * i as u16),
                })
            })
            .collect()
    }

    /// The transmit engine's requester state (`TX_STATUS`, docs/registers.md): for saying why a send
    /// queue stands still.
    pub fn tx_status(&self) -> u32 {
        self.dev.read(regs::TX_STATUS)
    }

    /// Work requests the driver has completed with `WR_FLUSH_ERR`.
    pub fn flushed_wqes(&self) -> u64 {
        self.dev.flushed_wqes.load(Ordering::Relaxed)
    }
}

/// A DCQCN rate limiter in use ([`Context::rate_limiters`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimiter {
    /// The QP whose frames it paces.
    pub qpn: u32,
    /// Its reaction point's current rate RC, bytes per core cycle x 256.
    pub rate: u32,
}

/// Which received field gives a RoCE frame its 802.1Qbb priority ([`Context::set_priorities`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trust {
    /// The IPv4 DSCP, through the DSCP -> priority map (routed networks).
    Dscp,
    /// The 802.1Q tag's PCP (layer-2 networks on a VLAN).
    Pcp,
}

/// Priority flow control of the port ([`Context::set_pfc`]). The default is the reset state: priority
/// 3 lossless, no XOFF generation, no watchdog.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PfcConfig {
    /// The lossless priorities, bit p = priority p (dcb's `pfc_en`; 0x08 = priority 3). Each one's
    /// frames in the receive buffer are counted apart and it gets its own XOFF and XON; frames of the other
    /// priorities are lossy (see [`Context::set_priorities`]). ARP and NDP replies on a VLAN carry the
    /// lowest of them as PCP.
    pub lossless: u8,
    /// XOFF/XON generation from the receive buffer's fill; `None` = the NIC never sends PFC.
    pub generate: Option<PfcGenerate>,
    /// The pause storm watchdog; `None` = pause is always honoured.
    pub watchdog: Option<PfcWatchdog>,
}

impl Default for PfcConfig {
    fn default() -> Self {
        PfcConfig {
            lossless: 1 << 3,
            generate: None,
            watchdog: None,
        }
    }
}

/// When the NIC asks its peer to pause ([`PfcConfig::generate`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PfcGenerate {
    /// XOFF for a lossless priority once its frames take this many words (of the datapath's width) in
    /// the receive buffer. Each lossless priority is counted apart against this mark, so the buffer
    /// must hold it plus the headroom (a round trip and one largest frame) for every one of them.
    pub xoff_words: u32,
    /// XON (time 0) for that priority once its frames take this many words or fewer, after its XOFF.
    pub xon_words: u32,
    /// The time an XOFF asks for, in quanta of 512 bit times.
    pub pause_quanta: u16,
    /// Core cycles between XOFF refreshes while a priority stays above the XON mark.
    pub refresh_cycles: u32,
}

/// The PFC storm watchdog ([`PfcConfig::watchdog`]): a priority paused for `cycles` without a break
/// stops honouring pause for `recovery_cycles` (it runs lossy meanwhile), counted in
/// `pfc_watchdog_events`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PfcWatchdog {
    pub cycles: u32,
    pub recovery_cycles: u32,
}

/// Linux's default DSCP -> priority map: DSCP d is priority d >> 3 (the registers' reset values).
pub const DEFAULT_DSCP_TO_PRIO: [u8; 64] = {
    let mut m = [0u8; 64];
    let mut d = 0;
    while d < 64 {
        m[d] = (d >> 3) as u8;
        d += 1;
    }
    m
};

/// A MAC as the 48-bit big-endian number the MAC_LO/MAC_HI register pairs hold.
pub(crate) fn mac_to_u64(mac: [u8; 6]) -> u64 {
    u64::from_be_bytes([0, 0, mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]])
}

/// Walks the register-block directory from `BLOCK_DIR`. A chain that leaves the register space, loops, or
/// names a block twice is an error, as is a block of a newer major layout than this driver knows.
fn discover_blocks(backend: &dyn Backend) -> Result<Vec<regs::Block>> {
    let mut at = backend.read32(regs::BLOCK_DIR);
    let mut blocks: Vec<regs::Block> = Vec::new();
    while at != 0 {
        if blocks.len() >= 64 || !at.is_multiple_of(4) || at > 0xFFF0 {
            return Err(Error::BlockDirectory(format!(
                "bad header offset {at:#x} after {} blocks",
                blocks.len()
            )));
        }
        let at16 = at as u16;
        let kv = backend.read32(at16);
        let next = backend.read32(at16 + 4);
        let place = backend.read32(at16 + 8);
        let param = backend.read32(at16 + 12);
        let (kind, version) = ((kv >> 16) as u16, kv as u16);
        // Unknown kinds are skipped: a newer device may have blocks this driver does not use.
        if let Some(kind) = regs::BlockKind::from_u16(kind) {
            let known = regs::BLOCKS
                .iter()
                .find(|b| b.kind == kind)
                .map_or(1, |b| b.version);
            if version > known {
                return Err(Error::BlockDirectory(format!(
                    "{kind:?} block version {version}, this driver knows up to {known}"
                )));
            }
            if blocks.iter().any(|b| b.kind == kind) {
                return Err(Error::BlockDirectory(format!(
                    "{kind:?} block listed twice"
                )));
            }
            blocks.push(regs::Block {
                kind,
                version,
                base: (place >> 16) as u16,
                size: place as u16,
                param,
            });
        }
        if next != 0 && next <= at {
            return Err(Error::BlockDirectory(format!(
                "header at {at:#x} points back to {next:#x}"
            )));
        }
        at = next;
    }
    Ok(blocks)
}

/// CLEAR (bit 4) through command register `reg` (QP_CMD: every QP to RESET with cleared contexts;
/// MR_CMD: every MR entry invalid), waited for: the core walks its table of `2^log` entries, one per
/// cycle. Run at open, before any QP or MR object exists.
fn clear_table(backend: &dyn Backend, reg: u16, log: u32, what: &str) {
    backend.write32(reg, CMD_CLEAR);
    for _ in 0..(1u32 << log) / 64 + 1000 {
        if backend.read32(reg) == 0 {
            return;
        }
        backend.wait();
    }
    panic!("the device did not clear its {what} table: is the core running?");
}

/// The device's limits and capabilities ([`Context::query_device`]), named as `ibv_device_attr` names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceAttr {
    /// The register map's version (`VERSION`: major << 16 | minor), where ibverbs has the firmware's.
    pub fw_ver: u32,
    /// QPs the context table holds (2^QP_TABLE_LOG; QPNs from 0x11, as rxe hands them out).
    pub max_qp: usize,
    /// Work requests per send or receive queue.
    pub max_qp_wr: usize,
    /// Entries of a send WQE's gather list and of a receive WQE's scatter list.
    pub max_send_sge: usize,
    pub max_recv_sge: usize,
    /// Completions a CQ holds.
    pub max_cqe: usize,
    /// MRs the MR table holds (2^MR_TABLE_LOG).
    pub max_mr: usize,
    /// Bytes of one MR: the MR table's length is 64 bits.
    pub max_mr_size: u64,
    /// Protection domains alive at once (the core's PD field is 24 bits; numbers of dropped PDs are
    /// reused).
    pub max_pd: usize,
    /// READs and atomics a QP may have outstanding as responder (`max_dest_rd_atomic`'s limit): the
    /// atomic results each QP keeps to replay to a duplicate (4). READs need no such resource: each is
    /// executed when it arrives, again if it comes again (`docs/transport.md`).
    pub max_qp_rd_atom: u32,
    /// As requester (`RtsAttrs::max_rd_atomic`): the transmit engine's READ context queue.
    pub max_qp_init_rd_atom: u32,
    /// Largest message (IBA: 2^31 bytes).
    pub max_msg_sz: u64,
    /// Atomics are atomic with respect to the NIC's own accesses (IBV_ATOMIC_HCA), not to the host CPU's.
    pub atomic_cap_hca: bool,
    /// The datapath width (64 bits for 10G, 512 for 100G).
    pub width: Width,
}

/// A VLAN ID a port may be on: 1..=4094 (802.1Q: 0 is a priority tag, 4095 reserved).
fn check_vid(vid: u16) -> Result<()> {
    if (1..=4094).contains(&vid) {
        Ok(())
    } else {
        Err(Error::BadAttr(
            "VLAN ID outside 1..=4094 (0 and 4095 are reserved)",
        ))
    }
}
