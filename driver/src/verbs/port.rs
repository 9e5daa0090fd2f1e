//! The port and the QPs as a monitoring tool sees them: `ibv_query_port`, the node GUID, the GID table,
//! and every QP's state and counters (`rdma statistic qp`). All of it works on a context from
//! [`Context::inspect`], which leaves the device as another user left it.
use super::context::Context;
use super::qp::QPN;
use crate::error::{Error, Result};
use rocenic_proto::host::QpState;
use rocenic_proto::{regs, Width};
use std::net::{Ipv4Addr, Ipv6Addr};

/// `ibv_port_state`: the core has no link-status input from its MAC, so a port is active while its
/// engines are enabled (`CONTROL.ENABLE`, set by [`Context::open`]) and down before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortState {
    Down = 1,
    Active = 4,
}

impl PortState {
    /// As ibv_devinfo prints it: `PORT_ACTIVE (4)`.
    pub fn name(self) -> &'static str {
        match self {
            PortState::Down => "PORT_DOWN",
            PortState::Active => "PORT_ACTIVE",
        }
    }
}

/// One entry of the port's GID table (`ibv_query_gid_ex`): every GID is a RoCE v2 GID.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GidEntry {
    /// The entry's index, the `sgid_index` an IPv6 path names.
    pub index: u8,
    pub gid: Ipv6Addr,
}

/// What `ibv_query_port` reports of port 1, the only port, with the RoCE facts beside it.
#[derive(Clone, Debug, PartialEq)]
pub struct PortAttr {
    pub state: PortState,
    /// Largest path MTU in bytes (IBV_MTU_4096); the path MTU is set per QP (`RtrAttrs::path_mtu`),
    /// so the active MTU is the largest as well.
    pub max_mtu: u32,
    pub active_mtu: u32,
    /// `IBV_LINK_LAYER_ETHERNET`.
    pub link_layer: &'static str,
    /// Lanes and per-lane speed in ibverbs' encodings, as the kernel derives them from an Ethernet
    /// speed (`ib_get_eth_speed`): 10G is 1X at FDR10 (8), 100G 4X at EDR (32).
    pub active_width: u8,
    pub active_speed: u8,
    /// The line rate in Gb/s.
    pub rate_gbps: f64,
    pub mac: [u8; 6],
    /// The port's IPv4 address, and its IPv4-mapped GID `::ffff:a.b.c.d` which every IPv4 path uses.
    pub ipv4: Ipv4Addr,
    /// The IPv6 entries of the GID table that are set (empty ones, `::`, left out).
    pub gids: Vec<GidEntry>,
    /// The VLANs the port takes frames from (`Context::vlans`).
    pub vlans: Vec<u16>,
    /// RoCEv2's UDP destination port (4791 unless changed).
    pub udp_port: u16,
}

impl PortAttr {
    /// The IPv4-mapped GID of the port's IPv4 address.
    pub fn ipv4_gid(&self) -> Ipv6Addr {
        self.ipv4.to_ipv6_mapped()
    }
}

/// ibverbs' encoding of a path MTU: 1 (256) .. 5 (4096).
pub fn mtu_enum(bytes: u32) -> u32 {
    bytes.trailing_zeros().saturating_sub(7)
}

/// The node GUID an Ethernet port's MAC gives (modified EUI-64, as rxe and mlx5 derive it): the MAC with
/// `ff:fe` in its middle and the universal/local bit flipped.
pub fn node_guid(mac: [u8; 6]) -> u64 {
    let b = [
        mac[0] ^ 2,
        mac[1],
        mac[2],
        0xFF,
        0xFE,
        mac[3],
        mac[4],
        mac[5],
    ];
    u64::from_be_bytes(b)
}

/// A QP's state and counters as the core's QP context holds them (`rdma statistic qp`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QpStatistics {
    pub qpn: u32,
    pub state: QpState,
    /// The PSN the requester sends next and the one the responder expects.
    pub sq_psn: u32,
    pub rq_psn: u32,
    /// Under rdma-core's names, as [`QueuePair::counters`](super::QueuePair::counters) gives them.
    pub counters: Vec<(&'static str, u64)>,
}

impl Context {
    /// Port 1 (`ibv_query_port`), with its addresses.
    pub fn query_port(&self) -> PortAttr {
        let d = &self.dev;
        let (active_width, active_speed) = match d.width {
            Width::W64 => (1, 8),
            Width::W512 => (2, 32),
        };
        PortAttr {
            state: if d.read(regs::CONTROL) & regs::CONTROL_ENABLE != 0 {
                PortState::Active
            } else {
                PortState::Down
            },
            max_mtu: 4096,
            active_mtu: 4096,
            link_layer: "Ethernet",
            active_width,
            active_speed,
            rate_gbps: d.width.line_gbps(),
            mac: self.port_mac(),
            ipv4: Ipv4Addr::from(d.read(regs::IPV4)),
            gids: (0..regs::GID_TABLE_LEN)
                .map(|i| GidEntry {
                    index: i as u8,
                    gid: d.gid(i),
                })
                .filter(|g| !g.gid.is_unspecified())
                .collect(),
            vlans: self.vlans(),
            udp_port: d.read(regs::UDP_DPORT) as u16,
        }
    }

    /// The node GUID (and system image GUID) of the device: from the port's MAC.
    pub fn node_guid(&self) -> u64 {
        node_guid(self.port_mac())
    }

    /// The port's MAC (MAC_HI:MAC_LO).
    fn port_mac(&self) -> [u8; 6] {
        let d = &self.dev;
        let v = u64::from(d.read(regs::MAC_HI)) << 32 | u64::from(d.read(regs::MAC_LO));
        v.to_be_bytes()[2..].try_into().unwrap()
    }

    /// QP `qpn`'s state, PSNs and counters, read from the core by QUERY whoever made the QP (another
    /// process, on a device from [`Context::inspect`]).
    pub fn qp_statistics(&self, qpn: u32) -> Result<QpStatistics> {
        if qpn >= 1 << self.dev.qp_log {
            return Err(Error::BadAttr("QPN beyond the device's QP table"));
        }
        let (raw, (sq_psn, rq_psn), c) = self.dev.qp_snapshot(qpn);
        let state = QpState::from_u32(raw).ok_or(Error::BadAttr("QP_STATE holds no QP state"))?;
        Ok(QpStatistics {
            qpn,
            state,
            sq_psn,
            rq_psn,
            counters: super::qp::counter_names()
                .iter()
                .zip(c)
                .map(|(&n, v)| (n, v as u64))
                .collect(),
        })
    }

    /// Every QP of the table that is not in RESET, in QPN order: a QUERY per QPN from [`QPN`] to the
    /// table's end (16,384 commands at 512 bits, about a millisecond on hardware).
    pub fn qps_in_use(&self) -> Vec<u32> {
        (QPN..1 << self.dev.qp_log)
            .filter(|&q| self.dev.qp_state(q) != QpState::Reset as u32)
            .collect()
    }
}
