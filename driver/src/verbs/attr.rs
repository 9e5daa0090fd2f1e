//! QP capabilities and the attributes of each state transition (`ibv_qp_attr`, split by target state so a
//! transition cannot be asked for without the attributes it needs).
use super::mr::AccessFlags;
use std::net::IpAddr;

/// Ring depths: powers of two, 2..=32768.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QpCaps {
    pub max_send_wr: usize,
    pub max_recv_wr: usize,
    /// Gather entries a send work request may carry: 1, or up to
    /// [`MAX_SEND_SGE`](rocenic_proto::host::MAX_SEND_SGE) (then every send WQE takes 128 bytes).
    pub max_send_sge: usize,
    /// Scatter entries a receive work request may carry: 1, or up to
    /// [`MAX_RECV_SGE`](rocenic_proto::host::MAX_RECV_SGE) (then every receive WQE takes 128 bytes).
    pub max_recv_sge: usize,
}

/// The target state of [`QueuePair::modify`](super::QueuePair::modify) with its attributes.
#[derive(Clone, Copy, Debug)]
pub enum QpAttr {
    /// RESET → INIT.
    Init(InitAttrs),
    /// INIT → RTR.
    Rtr(RtrAttrs),
    /// RTR → RTS; also SQD → RTS (resume), where `sq_psn` is ignored: the send queue goes on where it
    /// stopped.
    Rts(RtsAttrs),
    /// RTS → SQD: the send queue drains (the work request in progress finishes, no new one starts) while
    /// the QP still receives and responds.
    Sqd,
    /// RTR → RTR, RTS → RTS, SQD → SQD: change the attributes given (`ibv_modify_qp` with an attribute
    /// mask and the current state); `None` keeps one.
    Modify(ModifyAttrs),
    /// Any state → ERR: outstanding work requests complete with WR_FLUSH_ERR.
    Err,
}

/// RESET → INIT attributes.
#[derive(Clone, Copy, Debug)]
pub struct InitAttrs {
    /// Physical port, 1-based as in ibverbs; the device has port 1 only.
    pub port_num: u8,
    /// P_Key table index; the table holds only the default P_Key 0xFFFF, at index 0.
    pub pkey_index: u16,
    /// Remote operations the QP's responder allows (`qp_access_flags`): a remote WRITE, READ or atomic
    /// needs this and its MR's flag; one the QP does not allow gets an invalid request NAK and the QP
    /// goes to ERR (as rdma_rxe). The default allows every remote operation, each still gated per MR.
    pub access: AccessFlags,
}

impl Default for InitAttrs {
    fn default() -> Self {
        InitAttrs {
            port_num: 1,
            pkey_index: 0,
            access: AccessFlags::LOCAL_WRITE
                | AccessFlags::REMOTE_WRITE
                | AccessFlags::REMOTE_READ
                | AccessFlags::REMOTE_ATOMIC,
        }
    }
}

/// The hop limit (IPv6) and TTL (IPv4) Linux gives its packets (`net.ipv6.conf.*.hop_limit`,
/// `net.ipv4.ip_default_ttl`).
pub const DEFAULT_HOP_LIMIT: u8 = 64;

/// INIT → RTR attributes: the path and the responder's starting PSN.
#[derive(Clone, Copy, Debug)]
pub struct RtrAttrs {
    /// Path MTU in bytes: 256, 512, 1024, 2048 or 4096.
    pub path_mtu: u32,
    pub dest_qpn: u32,
    /// First PSN the responder expects (24 bits).
    pub rq_psn: u32,
    pub dest_mac: [u8; 6],
    /// The peer's address, its RoCEv2 GID (`ibv_ah_attr.grh.dgid`): an IPv4 address (or an IPv4-mapped
    /// IPv6 one, `::ffff:a.b.c.d`) makes an IPv4 path from the port's IPv4 address; any other IPv6 address
    /// an IPv6 path from the port GID `sgid_index`.
    pub dest_ip: IpAddr,
    /// The port GID table entry an IPv6 path leaves from (`ibv_ah_attr.grh.sgid_index`,
    /// [`Context::set_gid`](super::Context::set_gid)); not used on an IPv4 path.
    pub sgid_index: u8,
    /// UDP source port: the flow's ECMP entropy.
    pub udp_sport: u16,
    /// The IPv4 TTL or IPv6 hop limit of the QP's packets, its responses and CNPs
    /// (`ibv_ah_attr.grh.hop_limit`), 1..=255; [`DEFAULT_HOP_LIMIT`] is Linux's default.
    pub hop_limit: u8,
    /// The IPv6 flow label of the QP's packets (`ibv_ah_attr.grh.flow_label`, 20 bits; 0 = unlabelled,
    /// RFC 6437); an IPv4 path has none.
    pub flow_label: u32,
    /// The 802.1Q VLAN the QP's packets, its responses and CNPs leave on (VID 1..=4094): one the port
    /// takes frames from ([`Context::set_vlan`](super::Context::set_vlan) or
    /// [`Context::add_vlan`](super::Context::add_vlan)). `None` leaves them on the port's VLAN (tagged in
    /// VLAN mode, else untagged). Linux gets it from the netdev of the source GID; here it is explicit.
    pub vlan: Option<u16>,
    /// RNR NAK timer code this QP's responder sends when no receive is posted (IBA Table 45: 1 = 10 µs
    /// ... 31 = 491.52 ms, 0 = 655.36 ms).
    pub min_rnr_timer: u8,
    /// `max_dest_rd_atomic`: READ and atomic requests the peer may keep outstanding to this QP's
    /// responder, up to the device's `max_qp_rd_atom`. The responder executes READs as they come
    /// whatever their number, and keeps the results of its last `max_qp_rd_atom` atomics for
    /// duplicates whatever this says; the value is checked and reported by `query_qp`.
    pub max_dest_rd_atomic: u8,
    /// GRH traffic class (`ibv_ah_attr.grh.traffic_class`; for RoCEv2 the IPv4 TOS byte): its DSCP,
    /// `traffic_class >> 2`, marks the QP's packets so a DSCP-trusting switch puts them in the lossless
    /// class; the ECN bits are the NIC's (`TX_ECN`, ECT(0) by default).
    pub traffic_class: u8,
}

/// RTR → RTS attributes: the requester's starting PSN and retry policy.
#[derive(Clone, Copy, Debug)]
pub struct RtsAttrs {
    /// First PSN the requester sends (24 bits).
    pub sq_psn: u32,
    /// IB local ACK timeout exponent: 4.096 µs × 2^timeout; 0 waits forever. Converted to core cycles at
    /// the device's designed clock.
    pub timeout: u8,
    /// Retransmissions after a timeout or NAK before the WR fails with RETRY_EXC_ERR (0..=7).
    pub retry_cnt: u8,
    /// RNR NAKs waited out per WR before it fails with RNR_RETRY_EXC_ERR (0..=6), 7 = forever.
    pub rnr_retry: u8,
    /// `max_rd_atomic`: RDMA READ and atomic requests the QP keeps outstanding at once, up to the device's
    /// `max_qp_init_rd_atom` (0 acts as 1). Keep it within the peer's `max_dest_rd_atomic`.
    pub max_rd_atomic: u8,
    /// Replaces `timeout` with a number of core cycles: simulations need timeouts of microseconds, far
    /// below the smallest useful IB encoding on real links.
    pub ack_timeout_cycles: Option<u32>,
}

/// Attributes a QP may change without changing state (RTR, RTS or SQD); `None` keeps the current value.
/// The retry and timeout values act on the requester, so they need RTS or SQD.
#[derive(Clone, Copy, Debug, Default)]
pub struct ModifyAttrs {
    pub access: Option<AccessFlags>,
    pub min_rnr_timer: Option<u8>,
    /// IB local ACK timeout exponent, as [`RtsAttrs::timeout`].
    pub timeout: Option<u8>,
    pub ack_timeout_cycles: Option<u32>,
    pub retry_cnt: Option<u8>,
    pub rnr_retry: Option<u8>,
}

/// What [`QueuePair::query_qp`](super::QueuePair::query_qp) returns (`ibv_query_qp`'s attributes that
/// this QP has): the state and PSNs as the core holds them now, the rest as last programmed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QpAttrs {
    pub state: rocenic_proto::host::QpState,
    /// Path MTU in bytes (0 before RTR).
    pub path_mtu: u32,
    pub dest_qpn: u32,
    /// The next PSN the requester sends (`sq_psn`) and the PSN the responder expects (`rq_psn`).
    pub sq_psn: u32,
    pub rq_psn: u32,
    pub access: AccessFlags,
    pub min_rnr_timer: u8,
    /// The local ACK timeout in core cycles (ACK_TIMEOUT).
    pub ack_timeout_cycles: u32,
    pub retry_cnt: u8,
    pub rnr_retry: u8,
    pub max_rd_atomic: u8,
    pub max_dest_rd_atomic: u8,
    pub udp_sport: u16,
    /// GRH traffic class (DSCP << 2).
    pub traffic_class: u8,
    /// The IPv4 TTL or IPv6 hop limit, and the IPv6 flow label (0 before RTR).
    pub hop_limit: u8,
    pub flow_label: u32,
    /// The VLAN the RTR named (`None`: the port's).
    pub vlan: Option<u16>,
    pub cap: QpCaps,
}

/// The ACK_TIMEOUT register value for IB timeout exponent `timeout` on a core clocked at `clock_mhz`:
/// 4.096 µs × 2^timeout in cycles, saturating at the register's 32 bits; 0 stays 0 (no timeout).
pub fn ack_timeout_cycles(timeout: u8, clock_mhz: f64) -> u32 {
    if timeout == 0 {
        return 0;
    }
    let us = 4.096 * 2f64.powi(timeout.min(31) as i32);
    (us * clock_mhz).round().min(u32::MAX as f64) as u32
}
