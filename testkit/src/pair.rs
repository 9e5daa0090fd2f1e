//! Two co-simulated NICs with connected RC QPs: the set-up the demo and the co-simulation tests share.
//! Port 0 is "A", port 1 is "B"; MACs 02:52:4F:43:45:0p, IPv4 10.0.0.(1+p).
use rocenic_driver::backend::sim::SimBackend;
use rocenic_driver::error::{Error, Result};
use rocenic_driver::verbs::{
    CompletionQueue, Context, InitAttrs, ProtectionDomain, QpAttr, QpCaps, QueuePair, RtrAttrs,
    RtsAttrs, WorkCompletion, DEFAULT_HOP_LIMIT,
};
use rocenic_sim::{Fabric, FabricConfig};
use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::{Arc, Mutex};

/// One side: its context, PD, CQs and QP.
pub struct Side {
    pub ctx: Context,
    pub pd: Arc<ProtectionDomain>,
    pub send_cq: Arc<CompletionQueue>,
    pub recv_cq: Arc<CompletionQueue>,
    pub qp: QueuePair,
}

pub struct Pair {
    pub fabric: Arc<Mutex<Fabric>>,
    pub a: Side,
    pub b: Side,
}

pub fn mac(port: usize) -> [u8; 6] {
    [0x02, 0x52, 0x4F, 0x43, 0x45, port as u8]
}

pub fn ip(port: usize) -> Ipv4Addr {
    Ipv4Addr::new(10, 0, 0, 1 + port as u8)
}

/// Port `port`'s IPv6 address when a pair runs over IPv6: fd52:4f43:45::(1+p) (a unique local address).
pub fn ipv6(port: usize) -> Ipv6Addr {
    Ipv6Addr::new(0xFD52, 0x4F43, 0x45, 0, 0, 0, 0, 1 + port as u16)
}

/// Starting PSNs of A and B; B's is near the 24-bit wrap so every run crosses it.
pub const PSN: [u32; 2] = [0x00_1000, 0xFF_FFF0];

/// What the two sides' set-up names, per port: addresses, starting PSNs, and what RTR/RTS set. The
/// defaults are the demo's; the conformance replay sets them from a scenario (a capture's addresses).
#[derive(Clone, Debug)]
pub struct PairParams {
    pub mtu: u32,
    pub ack_timeout_cycles: u32,
    pub mac: [[u8; 6]; 2],
    pub ip: [Ipv4Addr; 2],
    /// RoCEv2 over IPv6: each side's GID table entry 0, and the QPs' paths from one to the other; `None`:
    /// IPv4 between `ip`.
    pub gid: Option<[Ipv6Addr; 2]>,
    /// Each side's first send PSN (and so the other side's expected PSN).
    pub psn: [u32; 2],
    /// The QPN each side's RTR names as its destination; `None`: the other side's own QPN.
    pub dest_qpn: [Option<u32>; 2],
    pub udp_sport: [u16; 2],
    pub min_rnr_timer: u8,
    pub timeout: u8,
    pub retry_cnt: u8,
    pub rnr_retry: u8,
    /// `RtsAttrs::max_rd_atomic` of both QPs.
    pub max_rd_atomic: u8,
    /// Both sides' GRH traffic class (DSCP << 2).
    pub traffic_class: u8,
    /// Both sides' hop limit (IPv4 TTL) and IPv6 flow label.
    pub hop_limit: u8,
    pub flow_label: u32,
    /// Both QPs' 802.1Q VLAN (`RtrAttrs::vlan`); `connect_with` puts both ports on it (`add_vlan`).
    pub vlan: Option<u16>,
    /// Both QPs' `max_send_sge` (1: 64-byte send WQEs).
    pub max_send_sge: usize,
    /// Both QPs' `max_recv_sge` (1: 64-byte receive WQEs).
    pub max_recv_sge: usize,
    /// Both QPs' send and receive queue depths (`QpCaps::max_send_wr`, `max_recv_wr`).
    pub max_send_wr: usize,
    pub max_recv_wr: usize,
    /// Depth of each side's send and receive CQ.
    pub cq_depth: usize,
}

impl PairParams {
    pub fn new(mtu: u32, ack_timeout_cycles: u32) -> PairParams {
        PairParams {
            mtu,
            ack_timeout_cycles,
            mac: [mac(0), mac(1)],
            ip: [ip(0), ip(1)],
            gid: None,
            psn: PSN,
            dest_qpn: [None, None],
            udp_sport: [0xC000, 0xC001],
            // 10 µs: RNR waits stay short in simulated time.
            min_rnr_timer: 1,
            timeout: 14,
            retry_cnt: 7,
            rnr_retry: 7,
            max_rd_atomic: rocenic_proto::regs::RD_ATOMIC_DEPTH as u8,
            traffic_class: 0,
            hop_limit: DEFAULT_HOP_LIMIT,
            flow_label: 0,
            vlan: None,
            max_send_sge: 1,
            max_recv_sge: 1,
            max_send_wr: 16,
            max_recv_wr: 16,
            cq_depth: 64,
        }
    }
}

impl Pair {
    /// Builds the fabric and both sides, and takes both QPs to RTS with `mtu` and a local ACK timeout of
    /// `ack_timeout_cycles`.
    pub fn connect(cfg: FabricConfig, mtu: u32, ack_timeout_cycles: u32) -> Result<Pair> {
        Pair::connect_with(cfg, &PairParams::new(mtu, ack_timeout_cycles))
    }

    /// [`Pair::connect`] with every set-up value given.
    pub fn connect_with(cfg: FabricConfig, p: &PairParams) -> Result<Pair> {
        let fabric = Arc::new(Mutex::new(
            Fabric::new(cfg).map_err(|e| Error::Sim(e.to_string()))?,
        ));
        Pair::connect_ports(fabric, [0, 1], p)
    }

    /// Connects the NICs on `ports` of a fabric that has more than two (a switched one): `ports[0]` is
    /// this pair's A, `ports[1]` its B; `p.mac` and `p.ip` are theirs.
    pub fn connect_ports(
        fabric: Arc<Mutex<Fabric>>,
        ports: [usize; 2],
        p: &PairParams,
    ) -> Result<Pair> {
        let mut sides = Vec::new();
        for (i, &port) in ports.iter().enumerate() {
            let ctx = Context::open(Arc::new(SimBackend::new(fabric.clone(), port)))?;
            ctx.set_port(p.mac[i], p.ip[i]);
            if let Some(g) = p.gid {
                ctx.set_gid(0, g[i])?;
            }
            if let Some(v) = p.vlan {
                ctx.add_vlan(v)?;
            }
            let pd = ctx.alloc_pd();
            let send_cq = ctx.create_cq(p.cq_depth)?;
            let recv_cq = ctx.create_cq(p.cq_depth)?;
            let qp = QueuePair::create(
                &pd,
                &send_cq,
                &recv_cq,
                QpCaps {
                    max_send_wr: p.max_send_wr,
                    max_recv_wr: p.max_recv_wr,
                    max_send_sge: p.max_send_sge,
                    max_recv_sge: p.max_recv_sge,
                },
            )?;
            sides.push(Side {
                ctx,
                pd,
                send_cq,
                recv_cq,
                qp,
            });
        }
        connect_qps([&sides[0].qp, &sides[1].qp], p)?;
        let b = sides.pop().unwrap();
        let a = sides.pop().unwrap();
        Ok(Pair { fabric, a, b })
    }

    pub fn cycles(&self) -> u64 {
        self.fabric.lock().unwrap().cycles()
    }

    /// Polls `cq` (advancing the simulation) until a completion arrives or `max_cycles` have passed.
    pub fn wait_for(&self, cq: &CompletionQueue, max_cycles: u64) -> Option<WorkCompletion> {
        self.wait_for_at(cq, max_cycles).map(|(_, wc)| wc)
    }

    /// [`Pair::wait_for`], with the cycle at which the poll that returned the completion started.
    pub fn wait_for_at(
        &self,
        cq: &CompletionQueue,
        max_cycles: u64,
    ) -> Option<(u64, WorkCompletion)> {
        let mut wc = [WorkCompletion::default()];
        let until = self.cycles() + max_cycles;
        loop {
            let at = self.cycles();
            if cq.poll(&mut wc) == 1 {
                return Some((at, wc[0]));
            }
            if self.cycles() > until {
                return None;
            }
            self.a.ctx.wait();
        }
    }
}

/// Moves two QPs RESET → INIT → RTR → RTS, each side's RTR naming the other (what rdma_cm or
/// ibv_rc_pingpong's TCP exchange would carry): `qps[i]` is side `i` of `p` (its MAC, IPv4 address,
/// send PSN and UDP source port), wherever the two sit in a fabric.
pub fn connect_qps(qps: [&QueuePair; 2], p: &PairParams) -> Result<()> {
    let qpns = [qps[0].qp_num(), qps[1].qp_num()];
    for q in qps {
        q.modify(QpAttr::Init(InitAttrs::default()))?;
    }
    for (i, q) in qps.into_iter().enumerate() {
        let peer = 1 - i;
        q.modify(QpAttr::Rtr(RtrAttrs {
            path_mtu: p.mtu,
            dest_qpn: p.dest_qpn[i].unwrap_or(qpns[peer]),
            rq_psn: p.psn[peer],
            dest_mac: p.mac[peer],
            dest_ip: match p.gid {
                Some(g) => g[peer].into(),
                None => p.ip[peer].into(),
            },
            sgid_index: 0,
            udp_sport: p.udp_sport[i],
            min_rnr_timer: p.min_rnr_timer,
            max_dest_rd_atomic: p.max_rd_atomic,
            traffic_class: p.traffic_class,
            hop_limit: p.hop_limit,
            flow_label: p.flow_label,
            vlan: p.vlan,
        }))?;
        q.modify(QpAttr::Rts(RtsAttrs {
            sq_psn: p.psn[i],
            timeout: p.timeout,
            retry_cnt: p.retry_cnt,
            rnr_retry: p.rnr_retry,
            max_rd_atomic: p.max_rd_atomic,
            ack_timeout_cycles: Some(p.ack_timeout_cycles),
        }))?;
    }
    Ok(())
}
