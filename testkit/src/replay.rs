//! Conformance from files: a case is a directory `testbench/conformance/cases/<name>/` holding
//!
//! - `scenario.toml`: the set-up (addresses, QPNs, PSNs, MTU, the MRs with their VAs and keys) and a
//!   timeline of steps in cycles after set-up: frames injected from `input.pcap`, work requests posted,
//!   completions polled (each checked), registers and host memory written, QP state changes;
//!   then the host memory the case must leave behind (byte ranges that differ from the initial fill);
//! - `input.pcap`: the peer's frames, in the order the steps inject them;
//! - `expected.pcap`: every frame the NIC must emit;
//! - optionally `reference.pcap`: what another implementation emitted in the NIC's place (a capture),
//!   compared on the protocol fields.
//!
//! [`run`] sets the NIC up as the scenario says (the same `Pair` set-up as the scripted cases, the peer's
//! core switched off), plays the steps, and compares what the NIC emits with `expected.pcap` field by
//! field, leaving out what the spec leaves free: the IPv4 identification (and so the header checksum),
//! the UDP source port, the ECN bits, and the ICRC (which covers the identification), whose validity is
//! checked on its own instead. Expected output is only ever written by [`run`] with `regenerate`, on
//! purpose (`rocenic conformance replay --regenerate NAME`).
use crate::conformance::{Bench, Recording};
use crate::pair::PairParams;
use rocenic_driver::verbs::{
    AccessFlags, MemoryRegion, ProtectionDomain, QpAttr, RecvRequest, SendFlags, SendOp, Sge,
    WorkCompletion, WorkRequest,
};
use rocenic_proto::icrc;
use rocenic_proto::pcap;
use rocenic_proto::wire::{Frame, IpRepr};
use rocenic_proto::Psn;
use serde::{Deserialize, Serialize};
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `scenario.toml`.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    /// The rule the case checks, with its IBA section.
    pub rule: String,
    /// Where the case came from: a scripted case it was exported from, or a capture it was imported from.
    pub source: String,
    /// Cycles after set-up at which the case ends.
    pub end_cycle: u64,
    pub nic: NicSetup,
    #[serde(default)]
    pub mr: Vec<MrSetup>,
    #[serde(default)]
    pub step: Vec<Step>,
    /// Completions still queued at the end (send CQ first, then receive CQ), as `WorkCompletion`'s Debug.
    #[serde(default)]
    pub final_completions: Vec<String>,
    /// Host memory at the end that differs from the initial fill; every other byte must be unchanged.
    #[serde(default)]
    pub memory: Vec<MemoryRange>,
    /// A capture's frames from the side the NIC plays, compared on the protocol fields.
    #[serde(default)]
    pub reference: Option<Reference>,
}

/// The NIC's set-up (port 0) and its peer's (port 1, whose core is off: the input frames are the peer).
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct NicSetup {
    pub width: u32,
    pub mtu: u32,
    pub mac: String,
    pub ip: String,
    pub qpn: u32,
    pub sq_psn: u32,
    /// The PSN the NIC expects first from the peer.
    pub rq_psn: u32,
    pub udp_sport: u16,
    pub peer_mac: String,
    pub peer_ip: String,
    pub peer_qpn: u32,
    pub min_rnr_timer: u8,
    pub timeout: u8,
    pub retry_cnt: u8,
    pub rnr_retry: u8,
    pub ack_timeout_cycles: u32,
    /// GRH traffic class of both QPs (DSCP << 2); 0 when absent.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub traffic_class: u8,
    /// Send and receive queue depths of both QPs (16 when absent).
    #[serde(default = "default_depth", skip_serializing_if = "is_default_depth")]
    pub max_send_wr: usize,
    #[serde(default = "default_depth", skip_serializing_if = "is_default_depth")]
    pub max_recv_wr: usize,
    /// Depth of both CQs (64 when absent): a case polls none before its end.
    #[serde(
        default = "default_cq_depth",
        skip_serializing_if = "is_default_cq_depth"
    )]
    pub cq_depth: usize,
}

fn default_depth() -> usize {
    16
}

fn is_default_depth(v: &usize) -> bool {
    *v == default_depth()
}

fn default_cq_depth() -> usize {
    64
}

fn is_default_cq_depth(v: &usize) -> bool {
    *v == default_cq_depth()
}

fn is_zero(v: &u8) -> bool {
    *v == 0
}

/// One of the two MRs every case has: `remote` (every access, 64 KiB, filled with `i ^ 0x5A`) and
/// `local` (LOCAL_WRITE only, 64 KiB of zeros). The runner checks the driver gave the VA and keys the
/// input frames use.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MrSetup {
    pub name: String,
    pub bytes: usize,
    pub access: Vec<String>,
    pub fill: String,
    pub addr: u64,
    pub lkey: u32,
    pub rkey: u32,
}

/// One step; exactly one action is set.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub cycle: u64,
    /// Put frame N (from 0) of `input.pcap` on the wire towards the NIC.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inject: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub post_recv: Option<PostRecv>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub post_send: Option<PostSend>,
    /// Poll one completion from `send` or `recv`; it must be the one given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub poll: Option<Poll>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub set_reg: Option<SetReg>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_write: Option<HostWrite>,
    /// `ERR` or `SQD`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modify: Option<String>,
    /// Arm the receive CQ (`true`: solicited only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub req_notify_recv: Option<bool>,
    /// `query_qp`: the state it must return (the driver notices a QP the NIC moved to ERR here).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Register one more MR over part of a region.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reg_mr: Option<RegMr>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RegMr {
    /// The region it covers (`remote` or `local`), from `offset` for `len` bytes.
    pub region: String,
    pub offset: usize,
    pub len: usize,
    pub access: Vec<String>,
    /// In a protection domain of its own rather than the QP's.
    pub own_pd: bool,
    /// The keys the driver gives it (the input frames use them).
    pub lkey: u32,
    pub rkey: u32,
}

pub fn access_names(a: AccessFlags) -> Vec<String> {
    ACCESS
        .iter()
        .filter(|(f, _)| a.contains(*f))
        .map(|(_, n)| n.to_string())
        .collect()
}

pub fn access_flags(names: &[String]) -> Result<AccessFlags, String> {
    let mut a = AccessFlags(0);
    for n in names {
        let (f, _) = ACCESS
            .iter()
            .find(|(_, m)| m == n)
            .ok_or_else(|| format!("unknown access flag {n:?}"))?;
        a = AccessFlags(a.0 | f.0);
    }
    Ok(a)
}

const ACCESS: [(AccessFlags, &str); 5] = [
    (AccessFlags::LOCAL_WRITE, "LOCAL_WRITE"),
    (AccessFlags::REMOTE_WRITE, "REMOTE_WRITE"),
    (AccessFlags::REMOTE_READ, "REMOTE_READ"),
    (AccessFlags::REMOTE_ATOMIC, "REMOTE_ATOMIC"),
    (AccessFlags::REMOTE_INVALIDATE, "REMOTE_INVALIDATE"),
];

#[derive(Serialize, Deserialize, Clone, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct PostRecv {
    pub wr_id: u64,
    pub addr: u64,
    pub length: u32,
    pub lkey: u32,
}

/// A send work request; `op` is one of WRITE, WRITE_IMM, READ, SEND, SEND_IMM, SEND_INV (`rkey` is the
/// R_Key to invalidate), CMP_SWAP, FETCH_ADD.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct PostSend {
    pub wr_id: u64,
    pub op: String,
    pub addr: u64,
    pub length: u32,
    pub lkey: u32,
    #[serde(default)]
    pub remote_addr: u64,
    #[serde(default)]
    pub rkey: u32,
    #[serde(default)]
    pub imm: u32,
    #[serde(default)]
    pub compare: u64,
    /// The swap value (CMP_SWAP) or the addend (FETCH_ADD).
    #[serde(default)]
    pub swap_add: u64,
    pub signaled: bool,
    #[serde(default)]
    pub solicited: bool,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct Poll {
    pub cq: String,
    pub wc: String,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct SetReg {
    pub offset: u16,
    pub name: String,
    pub value: u32,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct HostWrite {
    pub mr: String,
    pub offset: usize,
    pub hex: String,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MemoryRange {
    pub mr: String,
    pub offset: usize,
    pub len: usize,
    /// CRC-32 (IEEE) of the range's bytes.
    pub crc32: u32,
    /// The bytes themselves when short.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hex: Option<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    /// The capture the case was imported from.
    pub capture: String,
    /// The QPN the capture's NIC side used, mapped to this NIC's (its QPN is fixed in this generation).
    #[serde(default)]
    pub qpn_map: Option<[u32; 2]>,
    /// Compared on opcode, destination QP, PSN, AckReq, AETH type and MSN, ImmDt, RETH, payload; the AETH
    /// credit count is not compared when `ignore_credits` (this NIC does not advertise credits).
    #[serde(default)]
    pub ignore_credits: bool,
    /// A reference ACK the NIC did not send is allowed when a later ACK of the NIC's covers it (IBA
    /// 9.7.5.1.1: a responder may coalesce ACKs; it must ACK where AckReq asks).
    #[serde(default)]
    pub ack_coalescing: bool,
    /// AckReq on a request packet other than a message's last is not compared: where else to ask for
    /// an ACK is the requester's choice (IBA 9.2, BTH AckReq).
    #[serde(default)]
    pub ack_req_free: bool,
    /// The side's requests and its responses (ACKs, READ responses, atomic ACKs) are compared as two
    /// sequences, each in order: a requester and a responder work independently (IBA 9.7), so how one
    /// side's requests interleave with its responses follows the hosts' timing, not the protocol.
    #[serde(default)]
    pub per_role: bool,
}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

pub fn unhex(s: &str) -> Result<Vec<u8>, String> {
    if !s.len().is_multiple_of(2) {
        return Err(format!("odd-length hex string ({} digits)", s.len()));
    }
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).map_err(|e| format!("hex: {e}")))
        .collect()
}

pub fn fmt_mac(m: [u8; 6]) -> String {
    m.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

pub fn parse_mac(s: &str) -> Result<[u8; 6], String> {
    let v: Vec<u8> = s
        .split(':')
        .map(|p| u8::from_str_radix(p, 16))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("MAC {s}: {e}"))?;
    v.try_into().map_err(|_| format!("MAC {s}: six bytes"))
}

fn parse_ip(s: &str) -> Result<Ipv4Addr, String> {
    s.parse().map_err(|e| format!("IPv4 address {s}: {e}"))
}

impl NicSetup {
    pub fn params(&self) -> Result<PairParams, String> {
        let mut p = PairParams::new(self.mtu, self.ack_timeout_cycles);
        p.mac = [parse_mac(&self.mac)?, parse_mac(&self.peer_mac)?];
        p.ip = [parse_ip(&self.ip)?, parse_ip(&self.peer_ip)?];
        p.psn = [self.sq_psn, self.rq_psn];
        p.dest_qpn = [Some(self.peer_qpn), None];
        p.udp_sport[0] = self.udp_sport;
        p.min_rnr_timer = self.min_rnr_timer;
        p.timeout = self.timeout;
        p.retry_cnt = self.retry_cnt;
        p.rnr_retry = self.rnr_retry;
        p.traffic_class = self.traffic_class;
        p.max_send_wr = self.max_send_wr;
        p.max_recv_wr = self.max_recv_wr;
        p.cq_depth = self.cq_depth;
        Ok(p)
    }

    pub fn from_params(p: &PairParams, width: u32, qpn: u32, peer_qpn: u32) -> NicSetup {
        NicSetup {
            width,
            mtu: p.mtu,
            mac: fmt_mac(p.mac[0]),
            ip: p.ip[0].to_string(),
            qpn,
            sq_psn: p.psn[0],
            rq_psn: p.psn[1],
            udp_sport: p.udp_sport[0],
            peer_mac: fmt_mac(p.mac[1]),
            peer_ip: p.ip[1].to_string(),
            peer_qpn: p.dest_qpn[0].unwrap_or(peer_qpn),
            min_rnr_timer: p.min_rnr_timer,
            timeout: p.timeout,
            retry_cnt: p.retry_cnt,
            rnr_retry: p.rnr_retry,
            ack_timeout_cycles: p.ack_timeout_cycles,
            traffic_class: p.traffic_class,
            max_send_wr: p.max_send_wr,
            max_recv_wr: p.max_recv_wr,
            cq_depth: p.cq_depth,
        }
    }
}

impl PostSend {
    pub fn from_wr(wr: &WorkRequest) -> PostSend {
        let mut p = PostSend {
            wr_id: wr.wr_id,
            addr: wr.sge.addr,
            length: wr.sge.length,
            lkey: wr.sge.lkey,
            signaled: wr.flags.contains(SendFlags::SIGNALED),
            solicited: wr.flags.contains(SendFlags::SOLICITED),
            ..PostSend::default()
        };
        p.op = match wr.op {
            SendOp::RdmaWrite { remote_addr, rkey } => {
                (p.remote_addr, p.rkey) = (remote_addr, rkey);
                "WRITE"
            }
            SendOp::RdmaWriteWithImm {
                remote_addr,
                rkey,
                imm,
            } => {
                (p.remote_addr, p.rkey, p.imm) = (remote_addr, rkey, imm);
                "WRITE_IMM"
            }
            SendOp::RdmaRead { remote_addr, rkey } => {
                (p.remote_addr, p.rkey) = (remote_addr, rkey);
                "READ"
            }
            SendOp::Send => "SEND",
            SendOp::SendWithImm { imm } => {
                p.imm = imm;
                "SEND_IMM"
            }
            SendOp::SendWithInv { invalidate_rkey } => {
                p.rkey = invalidate_rkey;
                "SEND_INV"
            }
            SendOp::AtomicCmpSwap {
                remote_addr,
                rkey,
                compare,
                swap,
            } => {
                (p.remote_addr, p.rkey, p.compare, p.swap_add) = (remote_addr, rkey, compare, swap);
                "CMP_SWAP"
            }
            SendOp::AtomicFetchAdd {
                remote_addr,
                rkey,
                add,
            } => {
                (p.remote_addr, p.rkey, p.swap_add) = (remote_addr, rkey, add);
                "FETCH_ADD"
            }
        }
        .to_string();
        p
    }

    pub fn to_wr(&self) -> Result<WorkRequest, String> {
        let (remote_addr, rkey) = (self.remote_addr, self.rkey);
        let op = match self.op.as_str() {
            "WRITE" => SendOp::RdmaWrite { remote_addr, rkey },
            "WRITE_IMM" => SendOp::RdmaWriteWithImm {
                remote_addr,
                rkey,
                imm: self.imm,
            },
            "READ" => SendOp::RdmaRead { remote_addr, rkey },
            "SEND" => SendOp::Send,
            "SEND_IMM" => SendOp::SendWithImm { imm: self.imm },
            "SEND_INV" => SendOp::SendWithInv {
                invalidate_rkey: rkey,
            },
            "CMP_SWAP" => SendOp::AtomicCmpSwap {
                remote_addr,
                rkey,
                compare: self.compare,
                swap: self.swap_add,
            },
            "FETCH_ADD" => SendOp::AtomicFetchAdd {
                remote_addr,
                rkey,
                add: self.swap_add,
            },
            o => return Err(format!("unknown send opcode {o:?}")),
        };
        let mut flags = SendFlags::default();
        if self.signaled {
            flags = flags | SendFlags::SIGNALED;
        }
        if self.solicited {
            flags = flags | SendFlags::SOLICITED;
        }
        Ok(WorkRequest {
            wr_id: self.wr_id,
            op,
            sge: Sge {
                addr: self.addr,
                length: self.length,
                lkey: self.lkey,
            },
            flags,
        })
    }
}

/// Byte ranges of `now` that differ from `before` (neighbours closer than 16 bytes merged).
pub fn changed_ranges(mr: &str, before: &[u8], now: &[u8]) -> Vec<MemoryRange> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for i in (0..now.len()).filter(|&i| now[i] != before[i]) {
        match out.last_mut() {
            Some((_, end)) if i < *end + 16 => *end = i + 1,
            _ => out.push((i, i + 1)),
        }
    }
    out.into_iter()
        .map(|(s, e)| {
            let b = &now[s..e];
            MemoryRange {
                mr: mr.to_string(),
                offset: s,
                len: e - s,
                crc32: crc32fast::hash(b),
                hex: (b.len() <= 64).then(|| hex(b)),
            }
        })
        .collect()
}

/// A RoCE frame with the fields the spec leaves free cleared: IPv4 identification and checksum, ECN,
/// UDP source port, ICRC.
fn normalized(mut f: Frame) -> Frame {
    if let IpRepr::V4(ip) = &mut f.ip {
        ip.ident = 0;
        ip.checksum = 0;
        ip.tos &= !0x03;
    }
    f.udp.src_port = 0;
    f.icrc = 0;
    f
}

/// How two frames differ, field by field (`None`: equal up to the free fields).
pub fn frame_diff(got: &[u8], want: &[u8]) -> Option<String> {
    match (Frame::parse(got), Frame::parse(want)) {
        (Ok(g), Ok(w)) => {
            let (g, w) = (normalized(g), normalized(w));
            let mut d = Vec::new();
            if g.eth != w.eth {
                d.push(format!("Ethernet {:?} != {:?}", g.eth, w.eth));
            }
            if g.vlan != w.vlan {
                d.push(format!("VLAN {:?} != {:?}", g.vlan, w.vlan));
            }
            if g.ip != w.ip {
                d.push(format!("IP {:?} != {:?}", g.ip, w.ip));
            }
            if g.udp != w.udp {
                d.push(format!("UDP {:?} != {:?}", g.udp, w.udp));
            }
            if g.bth != w.bth {
                d.push(format!("BTH {:?} != {:?}", g.bth, w.bth));
            }
            if g.ext != w.ext {
                d.push(format!("extension headers {:?} != {:?}", g.ext, w.ext));
            }
            if g.payload != w.payload {
                let i = (0..g.payload.len().min(w.payload.len()))
                    .find(|&i| g.payload[i] != w.payload[i])
                    .unwrap_or(g.payload.len().min(w.payload.len()));
                d.push(format!(
                    "payload ({} vs {} bytes) differs from byte {i}",
                    g.payload.len(),
                    w.payload.len()
                ));
            }
            if g.pad != w.pad || g.trailer != w.trailer {
                d.push("padding differs".into());
            }
            (!d.is_empty()).then(|| d.join("; "))
        }
        // Not RoCE (ARP, PFC): byte for byte.
        (Err(_), Err(_)) => (got != want).then(|| {
            let i = (0..got.len().min(want.len()))
                .find(|&i| got[i] != want[i])
                .unwrap_or(got.len().min(want.len()));
            format!(
                "non-RoCE frame ({} vs {} bytes) differs from byte {i}",
                got.len(),
                want.len()
            )
        }),
        (Ok(g), Err(_)) => Some(format!(
            "a RoCE {} where a non-RoCE frame was expected",
            g.opcode_name()
        )),
        (Err(_), Ok(w)) => Some(format!(
            "a non-RoCE frame where {} was expected",
            w.opcode_name()
        )),
    }
}

/// The protocol fields compared with a reference capture.
fn reference_view(f: &Frame, r: &Reference) -> String {
    let mut dest_qp = f.bth.dest_qp;
    let mut aeth = f.ext.aeth;
    if let Some(a) = &mut aeth {
        // ACK syndromes carry a credit count in their low five bits (IBA 9.7.5.1.1.1).
        if r.ignore_credits && a.syndrome & 0xE0 == 0 {
            a.syndrome = 0;
        }
    }
    if let Some([from, to]) = r.qpn_map {
        if dest_qp == from {
            dest_qp = to;
        }
    }
    let last = rocenic_proto::opcode::info(f.bth.opcode).is_none_or(|i| {
        matches!(
            i.position,
            rocenic_proto::opcode::Position::Last | rocenic_proto::opcode::Position::Only
        )
    });
    let ack_req = if r.ack_req_free && !last {
        "free".to_string()
    } else {
        f.bth.ack_req.to_string()
    };
    format!(
        "{} dest_qp {:#x} psn {:#x} ack_req {} aeth {:?} reth {:?} imm {:?} atomic {:?} payload {} bytes crc {:#010x}",
        f.opcode_name(),
        dest_qp,
        f.bth.psn,
        ack_req,
        aeth,
        f.ext.reth,
        f.ext.imm_dt,
        f.ext.atomic_ack_eth,
        f.payload.len(),
        crc32fast::hash(&f.payload)
    )
}

/// Loads every case directory under `root` (sorted by name).
pub fn case_dirs(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root)
        .map_err(|e| format!("{}: {e}", root.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("scenario.toml").is_file())
        // Hidden directories are imports under way (`conformance import`).
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    v.sort();
    Ok(v)
}

pub fn load(dir: &Path) -> Result<Scenario, String> {
    let p = dir.join("scenario.toml");
    let s = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
    let sc: Scenario = toml::from_str(&s).map_err(|e| format!("{}: {e}", p.display()))?;
    sc.check().map_err(|e| format!("{}: {e}", p.display()))?;
    Ok(sc)
}

/// Deepest queues a case may ask for (the NIC takes up to `verbs::MAX_DEPTH`; a case's completions
/// all wait in the CQs until the end).
pub const MAX_CASE_DEPTH: usize = 1024;
/// Largest MR a case may ask for (each of its two; the bench's host memory holds both).
pub const MAX_CASE_REGION: usize = 1 << 20;

/// Longest case a scenario may ask for: 10^8 cycles, several minutes of co-simulation.
pub const MAX_END_CYCLE: u64 = 100_000_000;

impl Scenario {
    /// Field ranges serde cannot express: PSNs and QPNs are 24-bit (IBA §9.2), the NIC's set-up within what
    /// the core holds, steps within the case's length.
    pub fn check(&self) -> Result<(), String> {
        let n = &self.nic;
        let psn = |name: &str, v: u32| {
            if v > 0xFF_FFFF {
                Err(format!("nic.{name} {v:#x} is not a 24-bit PSN"))
            } else {
                Ok(())
            }
        };
        psn("sq_psn", n.sq_psn)?;
        psn("rq_psn", n.rq_psn)?;
        for (name, v) in [("qpn", n.qpn), ("peer_qpn", n.peer_qpn)] {
            if v > 0xFF_FFFF {
                return Err(format!("nic.{name} {v:#x} is not a 24-bit QPN"));
            }
        }
        if !matches!(n.width, 64 | 512) {
            return Err(format!("nic.width {} is not 64 or 512", n.width));
        }
        if !matches!(n.mtu, 256 | 512 | 1024 | 2048 | 4096) {
            return Err(format!("nic.mtu {} is not an IB MTU", n.mtu));
        }
        if n.retry_cnt > 7 || n.rnr_retry > 7 || n.min_rnr_timer > 31 || n.timeout > 31 {
            return Err(format!(
                "nic: retry_cnt {} and rnr_retry {} must be 0 to 7, min_rnr_timer {} and timeout {} 0 to 31",
                n.retry_cnt, n.rnr_retry, n.min_rnr_timer, n.timeout
            ));
        }
        for (name, v) in [
            ("max_send_wr", n.max_send_wr),
            ("max_recv_wr", n.max_recv_wr),
            ("cq_depth", n.cq_depth),
        ] {
            if !(2..=MAX_CASE_DEPTH).contains(&v) || !v.is_power_of_two() {
                return Err(format!(
                    "nic.{name} {v} is not a power of two from 2 to {MAX_CASE_DEPTH}"
                ));
            }
        }
        if let Some(m) = self.mr.iter().find(|m| {
            !(crate::conformance::REGION..=MAX_CASE_REGION).contains(&m.bytes)
                || !m.bytes.is_power_of_two()
        }) {
            return Err(format!(
                "mr {:?}: bytes {} is not a power of two from {} to {MAX_CASE_REGION}",
                m.name,
                m.bytes,
                crate::conformance::REGION
            ));
        }
        if self.end_cycle > MAX_END_CYCLE {
            return Err(format!(
                "end_cycle {} is over {MAX_END_CYCLE}",
                self.end_cycle
            ));
        }
        if let Some(s) = self.step.iter().find(|s| s.cycle > self.end_cycle) {
            return Err(format!(
                "a step at cycle {} is after end_cycle {}",
                s.cycle, self.end_cycle
            ));
        }
        Ok(())
    }
}

pub fn save(dir: &Path, s: &Scenario, header: &str) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let body = toml::to_string(s).map_err(|e| format!("{}: {e}", s.name))?;
    let p = dir.join("scenario.toml");
    std::fs::write(&p, format!("{header}{body}")).map_err(|e| format!("{}: {e}", p.display()))
}

pub fn read_frames(p: &Path) -> Result<Vec<Vec<u8>>, String> {
    Ok(pcap::read(p)
        .map_err(|e| format!("{}: {e}", p.display()))?
        .into_iter()
        .map(|(_, f)| f)
        .collect())
}

/// Writes `frames` with their timestamps (simulated time).
pub fn write_frames(p: &Path, frames: &[(Duration, Vec<u8>)]) -> Result<(), String> {
    let e = |e: pcap::Error| format!("{}: {e}", p.display());
    let mut w = pcap::Writer::create(p).map_err(e)?;
    for (t, f) in frames {
        w.write(*t, f).map_err(e)?;
    }
    w.flush().map_err(|e| format!("{}: {e}", p.display()))
}

pub const HEADER: &str = "# A rocenic conformance case (docs/conformance.md, \"Cases as files\"). input.pcap holds the peer's\n\
# frames, expected.pcap what the NIC must emit. Expected output, final_completions and memory are written\n\
# only by `rocenic conformance replay --regenerate <name>`, on purpose.\n";

/// What one replay found.
pub struct Outcome {
    pub frames: usize,
    pub steps: usize,
}

/// What the bench's NIC put on the wire, with simulated times: the frames from its MAC in the pcap the
/// fabric writes (flushed first).
fn nic_frames(b: &Bench, pcap_path: &Path) -> Result<Vec<(Duration, Vec<u8>)>, String> {
    b.flush_pcap()?;
    let mac = b.params.mac[0];
    Ok(pcap::read(pcap_path)
        .map_err(|e| format!("{}: {e}", pcap_path.display()))?
        .into_iter()
        .filter(|(_, f)| f.len() >= 12 && f[6..12] == mac)
        .collect())
}

/// Replays the case in `dir`; NIC frames go to `out_pcap`. With `regenerate`, the NIC's output becomes
/// the case's expected output (expected.pcap, final completions, memory) instead of being compared.
pub fn run(dir: &Path, out_pcap: &Path, regenerate: bool) -> Result<Outcome, String> {
    let mut sc = load(dir)?;
    let inputs = read_frames(&dir.join("input.pcap"))?;
    let params = sc.nic.params()?;
    if sc.nic.width != 64 {
        return Err(format!(
            "width {}: cases run on the 64-bit core",
            sc.nic.width
        ));
    }
    let region = sc
        .mr
        .first()
        .map_or(crate::conformance::REGION, |m| m.bytes);
    let b = Bench::with_region(params, out_pcap.to_path_buf(), region)?;
    // The set-up must be the one the frames were written for.
    let qpn = b.pair.a.qp.qp_num();
    if qpn != sc.nic.qpn {
        return Err(format!(
            "the scenario's NIC QPN is {:#x}, this NIC's is {qpn:#x} (fixed in this generation)",
            sc.nic.qpn
        ));
    }
    let mrs = b.mr_setups();
    if mrs != sc.mr {
        return Err(format!(
            "the scenario's MRs differ from the ones the driver set up:\n  scenario {:?}\n  driver   {:?}",
            sc.mr, mrs
        ));
    }
    let start = b.pair.cycles();
    let mut extra = Extra::new();
    for (i, st) in sc.step.iter().enumerate() {
        let now = b.pair.cycles() - start;
        if st.cycle < now {
            return Err(format!(
                "step {i} is due at cycle {} but the previous steps took until {now}",
                st.cycle
            ));
        }
        b.run(st.cycle - now);
        step(&b, st, &inputs, &mut extra)
            .map_err(|e| format!("step {i} (cycle {}): {e}", st.cycle))?;
    }
    let now = b.pair.cycles() - start;
    if sc.end_cycle > now {
        b.run(sc.end_cycle - now);
    }
    let mut finals = Vec::new();
    for cq in [&b.pair.a.send_cq, &b.pair.a.recv_cq] {
        let mut wc = [WorkCompletion::default()];
        while cq.poll(&mut wc) == 1 {
            finals.push(format!("{:?}", wc[0]));
        }
    }
    let memory = b.changed_memory();
    let sent = nic_frames(&b, out_pcap)?;
    let mut problems = Vec::new();
    // Every RoCE frame the NIC emits carries a valid ICRC, whatever the expected file says.
    for (i, (_, f)) in sent.iter().enumerate() {
        if Frame::parse(f).is_ok() && icrc::check(f) != Ok(true) {
            problems.push(format!("frame {i} from the NIC has a bad ICRC"));
        }
    }
    if let Some(r) = &sc.reference {
        let refs = read_frames(&dir.join("reference.pcap"))?;
        // Each frame's view, and whether it is a request (the rest are responses: ACKs, READ
        // responses, atomic ACKs, CNPs).
        let view = |f: &Frame| (is_request_frame(f), reference_view(f, r));
        let got: Vec<(bool, String)> = sent
            .iter()
            .filter_map(|(_, f)| Frame::parse(f).ok())
            .map(|f| view(&f))
            .collect();
        let is_ack = |f: &Frame| {
            f.bth.opcode == rocenic_proto::opcode::RC_ACKNOWLEDGE
                && f.ext.aeth.is_some_and(|a| a.syndrome & 0xE0 == 0)
        };
        let nic_acks: Vec<u32> = sent
            .iter()
            .filter_map(|(_, f)| Frame::parse(f).ok())
            .filter(|f| is_ack(f))
            .map(|f| f.bth.psn)
            .collect();
        let ref_frames: Vec<Frame> = refs.iter().filter_map(|f| Frame::parse(f).ok()).collect();
        let want: Vec<(bool, String)> = ref_frames
            .iter()
            .enumerate()
            .filter(|(i, f)| {
                // An ACK the NIC coalesced into a later one of its own.
                let coalesced = r.ack_coalescing
                    && is_ack(f)
                    && !nic_acks.contains(&f.bth.psn)
                    && ref_frames[i + 1..].iter().any(|g| {
                        is_ack(g)
                            && nic_acks.contains(&g.bth.psn)
                            && g.bth.psn.wrapping_sub(f.bth.psn) & 0xFF_FFFF < 0x80_0000
                    });
                !coalesced
            })
            .map(|(_, f)| view(f))
            .collect();
        if got.len() != want.len() {
            problems.push(format!(
                "the NIC emitted {} RoCE frames, the reference capture {}",
                got.len(),
                want.len()
            ));
        }
        // One sequence, or the requests and the responses each as their own.
        let streams: &[(&str, Option<bool>)] = if r.per_role {
            &[("request", Some(true)), ("response", Some(false))]
        } else {
            &[("", None)]
        };
        for &(kind, role) in streams {
            let pick = |v: &[(bool, String)]| -> Vec<String> {
                v.iter()
                    .filter(|(req, _)| role.is_none_or(|x| x == *req))
                    .map(|(_, s)| s.clone())
                    .collect()
            };
            let (g, w) = (pick(&got), pick(&want));
            if g.len() != w.len() && role.is_some() {
                problems.push(format!(
                    "the NIC emitted {} {kind} frames, the reference capture {}",
                    g.len(),
                    w.len()
                ));
            }
            if let Some(i) = (0..g.len().min(w.len())).find(|&i| g[i] != w[i]) {
                let kind = if kind.is_empty() {
                    String::new()
                } else {
                    format!("{kind} ")
                };
                problems.push(format!(
                    "{kind}frame {i} differs from the reference:\n    NIC       {}\n    reference {}",
                    g[i], w[i]
                ));
            }
        }
    }
    if regenerate {
        write_frames(&dir.join("expected.pcap"), &sent)?;
        sc.final_completions = finals;
        sc.memory = memory;
        save(dir, &sc, HEADER)?;
    } else {
        let want = read_frames(&dir.join("expected.pcap"))?;
        if sent.len() != want.len() {
            problems.push(format!(
                "the NIC emitted {} frames, expected {}",
                sent.len(),
                want.len()
            ));
        }
        for (i, ((_, g), w)) in sent.iter().zip(&want).enumerate() {
            if let Some(d) = frame_diff(g, w) {
                problems.push(format!("frame {i}: {d}"));
            }
        }
        if finals != sc.final_completions {
            problems.push(format!(
                "completions left at the end {finals:?}, expected {:?}",
                sc.final_completions
            ));
        }
        if memory != sc.memory {
            problems.push(memory_diff(&memory, &sc.memory));
        }
    }
    if !problems.is_empty() {
        problems.truncate(6);
        return Err(problems.join("\n       "));
    }
    Ok(Outcome {
        frames: sent.len(),
        steps: sc.step.len(),
    })
}

fn memory_diff(got: &[MemoryRange], want: &[MemoryRange]) -> String {
    let show = |v: &[MemoryRange]| {
        v.iter()
            .map(|r| {
                format!(
                    "{}[{}..{}] crc {:#010x}",
                    r.mr,
                    r.offset,
                    r.offset + r.len,
                    r.crc32
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "host memory differs: changed ranges {} , expected {}",
        show(got),
        show(want)
    )
}

/// MRs (and PDs) registered by steps, kept until the replay ends.
type Extra = Vec<(Option<std::sync::Arc<ProtectionDomain>>, MemoryRegion)>;

fn step(b: &Bench, st: &Step, inputs: &[Vec<u8>], extra: &mut Extra) -> Result<(), String> {
    let set = [
        st.inject.is_some(),
        st.post_recv.is_some(),
        st.post_send.is_some(),
        st.poll.is_some(),
        st.set_reg.is_some(),
        st.host_write.is_some(),
        st.modify.is_some(),
        st.req_notify_recv.is_some(),
        st.query.is_some(),
        st.reg_mr.is_some(),
    ];
    if set.iter().filter(|&&x| x).count() != 1 {
        return Err("a step names exactly one action".into());
    }
    if let Some(i) = st.inject {
        let f = inputs
            .get(i)
            .ok_or_else(|| format!("input.pcap has {} frames, no frame {i}", inputs.len()))?;
        b.pair.fabric.lock().unwrap().inject_frame(1, f.clone());
    } else if let Some(r) = &st.post_recv {
        // SAFETY: the SGE names the bench's own MRs, which live until the end of the replay; a wrong
        // address or key is the device's to reject, as the case intends.
        unsafe {
            b.pair.a.qp.post_recv(&RecvRequest {
                wr_id: r.wr_id,
                sge: Sge {
                    addr: r.addr,
                    length: r.length,
                    lkey: r.lkey,
                },
            })
        }
        .map_err(|e| format!("post_recv: {e}"))?;
    } else if let Some(s) = &st.post_send {
        let wr = s.to_wr()?;
        // SAFETY: as for post_recv.
        unsafe { b.pair.a.qp.post_send(&wr) }.map_err(|e| format!("post_send: {e}"))?;
    } else if let Some(p) = &st.poll {
        let cq = match p.cq.as_str() {
            "send" => &b.pair.a.send_cq,
            "recv" => &b.pair.a.recv_cq,
            o => return Err(format!("no CQ named {o:?}")),
        };
        let mut wc = [WorkCompletion::default()];
        if cq.poll(&mut wc) != 1 {
            return Err(format!("no {} completion; expected {}", p.cq, p.wc));
        }
        let got = format!("{:?}", wc[0]);
        if got != p.wc {
            return Err(format!("{} completion {got}, expected {}", p.cq, p.wc));
        }
    } else if let Some(r) = &st.set_reg {
        b.pair
            .fabric
            .lock()
            .unwrap()
            .reg_write(0, r.offset, r.value);
    } else if let Some(w) = &st.host_write {
        b.region(&w.mr)?
            .write(w.offset, &unhex(&w.hex)?)
            .map_err(|e| e.to_string())?;
    } else if let Some(m) = &st.modify {
        let attr = match m.as_str() {
            "ERR" => QpAttr::Err,
            "SQD" => QpAttr::Sqd,
            o => return Err(format!("modify to {o:?}: only ERR and SQD are steps")),
        };
        b.pair.a.qp.modify(attr).map_err(|e| e.to_string())?;
    } else if let Some(s) = st.req_notify_recv {
        b.pair.a.recv_cq.req_notify(s);
    } else if let Some(q) = &st.query {
        let got = format!("{:?}", b.pair.a.qp.query());
        if &got != q {
            return Err(format!("query_qp: {got}, expected {q}"));
        }
    } else if let Some(r) = &st.reg_mr {
        let pd = r.own_pd.then(|| b.pair.a.ctx.alloc_pd());
        let mr = pd
            .as_ref()
            .unwrap_or(&b.pair.a.pd)
            .reg_mr(
                b.region(&r.region)?,
                r.offset,
                r.len,
                access_flags(&r.access)?,
            )
            .map_err(|e| format!("reg_mr: {e}"))?;
        if (mr.lkey(), mr.rkey()) != (r.lkey, r.rkey) {
            return Err(format!(
                "reg_mr gave lkey {:#x} rkey {:#x}, the scenario's frames use {:#x} {:#x}",
                mr.lkey(),
                mr.rkey(),
                r.lkey,
                r.rkey
            ));
        }
        extra.push((pd, mr));
    }
    Ok(())
}

/// Writes the case directory of a scripted case that has just run and passed: the scenario from its
/// recording, its injected frames as input.pcap, and as expected output what the NIC did in that run
/// (frames from `case_pcap`, completions left, memory). A replay of the directory must then agree.
pub fn export(
    dir: &Path,
    name: &str,
    rule: &str,
    b: &Bench,
    rec: &Recording,
    case_pcap: &Path,
) -> Result<(), String> {
    let end = b.pair.cycles() - rec.start;
    let mut finals = Vec::new();
    for cq in [&b.pair.a.send_cq, &b.pair.a.recv_cq] {
        let mut wc = [WorkCompletion::default()];
        while cq.poll(&mut wc) == 1 {
            finals.push(format!("{:?}", wc[0]));
        }
    }
    let sc = Scenario {
        name: name.to_string(),
        rule: rule.to_string(),
        source: format!("exported from the scripted case `{name}` (testkit/src/conformance/)"),
        end_cycle: end,
        nic: NicSetup::from_params(&b.params, 64, b.pair.a.qp.qp_num(), b.pair.b.qp.qp_num()),
        mr: b.mr_setups(),
        step: rec.steps.clone(),
        final_completions: finals,
        memory: b.changed_memory(),
        reference: None,
    };
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    save(dir, &sc, HEADER)?;
    write_frames(&dir.join("input.pcap"), &rec.inputs)?;
    write_frames(&dir.join("expected.pcap"), &nic_frames(b, case_pcap)?)
}

/// How to turn a capture into a case: which side the NIC plays, and how far to go.
pub struct Import {
    pub capture: PathBuf,
    /// The IPv4 address of the side the NIC takes the place of.
    pub nic_ip: Ipv4Addr,
    pub name: String,
    pub rule: String,
    pub mtu: u32,
    /// Stop after this many RoCE frames of the capture (completion queues hold 64 entries).
    pub max_frames: usize,
    /// Cycles between steps: time for the NIC to answer each frame.
    pub gap: u64,
}

fn is_request_frame(f: &Frame) -> bool {
    rocenic_proto::opcode::info(f.bth.opcode)
        .is_some_and(|i| i.role == rocenic_proto::opcode::Role::Request)
}

/// Receive buffers an imported case cycles through.
const RECV_SLOTS: usize = 8;

/// How big an imported case's queues and MRs must be for what its capture holds.
struct ImportSizes {
    max_send_wr: usize,
    max_recv_wr: usize,
    cq_depth: usize,
    /// Bytes of each receive slot: the longest SEND the peer sends.
    slot: usize,
    /// Bytes the NIC side's messages wrap in: at least the longest of them.
    send_area: usize,
    /// Bytes of each MR: the receive slots and the send area (local), the span the peer's RDMA
    /// requests and atomics address (remote).
    region: usize,
}

impl ImportSizes {
    /// `frames`: (from the NIC side, frame, bytes) in capture order.
    fn of(frames: &[(bool, Frame, Vec<u8>)]) -> Result<ImportSizes, String> {
        use rocenic_proto::opcode::{self, Position, Role};
        let (mut longest, mut longest_send) = ([0usize; 2], 0usize);
        let mut current = [0usize; 2];
        let (mut lo, mut hi) = (u64::MAX, 0u64);
        // Messages the NIC side started and no response from the peer has passed yet (its first PSN):
        // an upper bound of what its send queue holds, as the captured host posted them.
        let mut open: Vec<Psn> = Vec::new();
        let (mut most_open, mut posts, mut sends) = (0usize, 0usize, 0usize);
        for (from_nic, f, _) in frames {
            let side = usize::from(*from_nic);
            let Some(info) = opcode::info(f.bth.opcode) else {
                continue;
            };
            if info.role == Role::Request {
                let starts = matches!(info.position, Position::First | Position::Only);
                if starts {
                    current[side] = 0;
                }
                current[side] += f.payload.len();
                let asked = f.ext.reth.map_or(0, |r| r.dma_len as usize);
                longest[side] = longest[side].max(current[side]).max(asked);
                if f.ext.atomic_eth.is_some() {
                    longest[side] = longest[side].max(8);
                }
                if !from_nic {
                    if info.name.contains("SEND") {
                        longest_send = longest_send.max(current[side]);
                        sends += usize::from(starts);
                    }
                    let target = f
                        .ext
                        .reth
                        .map(|r| (r.va, r.dma_len as u64))
                        .or(f.ext.atomic_eth.map(|a| (a.va, 8)));
                    if let Some((va, len)) = target {
                        lo = lo.min(va);
                        hi = hi.max(va + len);
                    }
                } else if starts && !open.contains(&Psn::new(f.bth.psn)) {
                    open.push(Psn::new(f.bth.psn));
                    posts += 1;
                    most_open = most_open.max(open.len());
                }
            } else if !from_nic {
                let p = Psn::new(f.bth.psn);
                open.retain(|m| !m.is_before(p));
            }
        }
        let slot = longest_send.max(1).next_multiple_of(4096);
        let send_area = longest[1].max(8 * 4096).next_multiple_of(4096);
        let span = hi.saturating_sub(lo) as usize;
        let region = (RECV_SLOTS * slot + send_area)
            .max(span)
            .next_power_of_two()
            .max(crate::conformance::REGION);
        if region > MAX_CASE_REGION {
            return Err(format!(
                "the capture needs MRs of {region} bytes (receives of {slot}, messages of up to {} \
                 bytes, RDMA requests over {span}); a case holds up to {MAX_CASE_REGION}",
                longest[1].max(longest[0])
            ));
        }
        let depth =
            |n: usize, least: usize| (n + 1).next_power_of_two().clamp(least, MAX_CASE_DEPTH);
        Ok(ImportSizes {
            max_send_wr: depth(most_open, 16),
            // A receive is posted just before the SEND that takes it.
            max_recv_wr: 16,
            // Every completion waits in its CQ until the case ends.
            cq_depth: depth(posts.max(sends), 64),
            slot,
            send_area,
            region,
        })
    }
}

/// Writes case `dir` from a capture: the NIC takes the place of `nic_ip`; the other side's RoCE frames
/// become input.pcap (their destination QPN mapped to this NIC's fixed QPN and resealed, a frame whose
/// ICRC was wrong in the capture kept wrong), the NIC side's frames reference.pcap. Steps: each peer
/// frame injected in capture order, a receive posted before each SEND the peer starts, and each request
/// message the NIC side sent posted as a work request (its payload written to `local` first). The
/// expected output is then generated by a replay ([`run`] with `regenerate`), which also compares it
/// with the reference on the protocol fields and fails if they disagree.
pub fn import(dir: &Path, im: &Import) -> Result<Outcome, String> {
    use rocenic_proto::opcode::{self, Position, Role};
    let all = pcap::read(&im.capture).map_err(|e| format!("{}: {e}", im.capture.display()))?;
    let mut frames = Vec::new();
    for (_, b) in all {
        let Ok(f) = Frame::parse(&b) else { continue };
        let IpRepr::V4(ip) = &f.ip else { continue };
        let from_nic = Ipv4Addr::from(ip.src) == im.nic_ip;
        if !from_nic && Ipv4Addr::from(ip.dst) != im.nic_ip {
            continue;
        }
        frames.push((from_nic, f, b));
    }
    let (from, to) = (
        frames.iter().filter(|(n, _, _)| *n).count(),
        frames.iter().filter(|(n, _, _)| !*n).count(),
    );
    if from == 0 || to == 0 {
        return Err(format!(
            "the capture holds {from} RoCEv2 (IPv4) frames from {0} and {to} to it: --nic-ip must be one \
             of the two peers",
            im.nic_ip
        ));
    }
    let all_frames = frames.len();
    if frames.len() > im.max_frames {
        frames.truncate(im.max_frames);
        // The cut may fall between the peer's last requests and the NIC side's answers: those requests
        // (the trailing ones past the last PSN the NIC side answered within the window) go too, or the
        // replayed NIC would answer what the reference cannot show.
        let answered = frames
            .iter()
            .filter(|(n, f, _)| *n && !is_request_frame(f))
            .map(|(_, f, _)| Psn::new(f.bth.psn))
            .reduce(|a, b| if a.is_before(b) { b } else { a });
        if let Some(hi) = answered {
            while let Some(at) = frames
                .iter()
                .rposition(|(n, f, _)| !*n && is_request_frame(f))
            {
                if !hi.is_before(Psn::new(frames[at].1.bth.psn)) {
                    break;
                }
                frames.remove(at);
            }
        }
    }
    let nic = frames.iter().find(|(n, _, _)| *n).ok_or(format!(
        "the first {} of the capture's {all_frames} RoCE frames (--frames) hold none from {}: raise --frames",
        im.max_frames, im.nic_ip
    ))?;
    let peer = frames.iter().find(|(n, _, _)| !*n).ok_or(format!(
        "the first {} of the capture's {all_frames} RoCE frames (--frames) hold none to {}: raise --frames",
        im.max_frames, im.nic_ip
    ))?;
    let v4 = |f: &Frame| match &f.ip {
        IpRepr::V4(ip) => (Ipv4Addr::from(ip.src), Ipv4Addr::from(ip.dst)),
        IpRepr::V6(_) => unreachable!(),
    };
    let is_request = is_request_frame;
    let capture_qpn = peer.1.bth.dest_qp;
    let peer_qpn = nic.1.bth.dest_qp;
    let first_psn = |nic_side: bool| {
        frames
            .iter()
            .find(|(n, f, _)| *n == nic_side && is_request(f))
            .map_or(0, |(_, f, _)| f.bth.psn)
    };
    let our_qpn = rocenic_driver::verbs::QPN;
    let sizes = ImportSizes::of(&frames)?;
    let mut params = PairParams::new(im.mtu, 20_000);
    params.max_send_wr = sizes.max_send_wr;
    params.max_recv_wr = sizes.max_recv_wr;
    params.cq_depth = sizes.cq_depth;
    params.mac = [nic.1.eth.src, peer.1.eth.src];
    params.ip = [im.nic_ip, v4(&peer.1).0];
    params.psn = [first_psn(true), first_psn(false)];
    params.dest_qpn = [Some(peer_qpn), None];
    params.udp_sport[0] = nic.1.udp.src_port;
    let mut sc = Scenario {
        name: im.name.clone(),
        rule: im.rule.clone(),
        source: format!(
            "imported from {} by `rocenic conformance import` (the NIC in place of {})",
            im.capture.file_name().unwrap_or_default().to_string_lossy(),
            im.nic_ip
        ),
        nic: NicSetup::from_params(&params, 64, our_qpn, peer_qpn),
        reference: Some(Reference {
            capture: im
                .capture
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into(),
            qpn_map: (capture_qpn != our_qpn).then_some([capture_qpn, our_qpn]),
            ignore_credits: true,
            ack_coalescing: true,
            ack_req_free: true,
            per_role: true,
        }),
        ..Scenario::default()
    };
    // The MRs are the bench's: build one to learn their addresses and keys.
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let probe = Bench::with_region(params.clone(), dir.join("probe.pcap"), sizes.region)?;
    sc.mr = probe.mr_setups();
    drop(probe);
    let _ = std::fs::remove_file(dir.join("probe.pcap"));
    let local = &sc.mr[1];
    let remote = &sc.mr[0];
    // The peer's RDMA requests name the captured side's memory: they are moved into this NIC's
    // `remote` MR, keeping their offsets from the lowest address they use.
    let reths: Vec<(u64, u32)> = frames
        .iter()
        .filter(|(n, _, _)| !*n)
        .filter_map(|(_, f, _)| {
            f.ext
                .reth
                .map(|r| (r.va, r.dma_len))
                .or(f.ext.atomic_eth.map(|a| (a.va, 8)))
        })
        .collect();
    let base = reths.iter().map(|r| r.0).min().unwrap_or(0);
    if let Some((va, len)) = reths
        .iter()
        .find(|(va, len)| va - base + *len as u64 > remote.bytes as u64)
    {
        return Err(format!(
            "the peer's RDMA request at {va:#x} for {len} bytes does not fit the {}-byte MR from {base:#x}",
            remote.bytes
        ));
    }
    // The peer's atomics work on what the captured side's memory held: its ATOMIC ACKNOWLEDGE's original
    // value, preloaded for the first atomic on each address (the NIC computes the later ones itself).
    let mut preloaded = Vec::new();
    for (i, (from_nic, f, _)) in frames.iter().enumerate() {
        let (false, Some(a)) = (*from_nic, f.ext.atomic_eth) else {
            continue;
        };
        if preloaded.contains(&a.va) {
            continue;
        }
        let ack = frames[i + 1..]
            .iter()
            .find(|(n, g, _)| *n && g.bth.psn == f.bth.psn && g.ext.atomic_ack_eth.is_some());
        if let Some((_, g, _)) = ack {
            preloaded.push(a.va);
            sc.step.push(Step {
                cycle: 0,
                host_write: Some(HostWrite {
                    mr: "remote".into(),
                    offset: (a.va - base) as usize,
                    hex: hex(&g.ext.atomic_ack_eth.unwrap().orig_data.to_le_bytes()),
                }),
                ..Step::default()
            });
        }
    }
    // What the captured side's READ responses carried is what its memory held: preload it.
    for (i, (from_nic, f, _)) in frames.iter().enumerate() {
        if let (false, Some(r), opcode::RC_RDMA_READ_REQUEST) =
            (*from_nic, f.ext.reth, f.bth.opcode)
        {
            let mut data = Vec::new();
            for (n, g, _) in &frames[i + 1..] {
                let resp = (opcode::RC_RDMA_READ_RESPONSE_FIRST
                    ..=opcode::RC_RDMA_READ_RESPONSE_ONLY)
                    .contains(&g.bth.opcode);
                if *n && resp && g.bth.psn.wrapping_sub(f.bth.psn) & 0xFF_FFFF < 0x80_0000 {
                    data.extend_from_slice(&g.payload);
                    if data.len() >= r.dma_len as usize {
                        break;
                    }
                }
            }
            data.truncate(r.dma_len as usize);
            if !data.is_empty() {
                sc.step.push(Step {
                    cycle: 0,
                    host_write: Some(HostWrite {
                        mr: "remote".into(),
                        offset: (r.va - base) as usize,
                        hex: hex(&data),
                    }),
                    ..Step::default()
                });
            }
        }
    }
    let (mut inputs, mut reference) = (Vec::new(), Vec::new());
    let mut cycle = if sc.step.is_empty() { 0 } else { 100 };
    let (mut recv_slot, mut send_at, mut wr_id) = (0usize, 0usize, 1u64);
    // Eight receive slots of `slot` bytes each open the local MR; the NIC side's messages follow, one
    // after another in a send area, wrapping.
    let (slot, send_area) = (sizes.slot, sizes.send_area);
    // The first PSN no message posted so far covers: a request before it is the captured requester's
    // retransmission (go-back-N, or a READ asked again from a response it lost), which the replayed NIC
    // makes by itself when the same NAK or silence comes.
    let mut next_new: Option<Psn> = None;
    // The PSN after the highest the captured side sent, and whether the peer NAKed since (go-back-N
    // follows). A request sent again without a NAK is its retransmission timer's, which ran on the
    // captured host's clock: the replayed NIC's runs on simulated time, so those are left out of the
    // reference. READs asked again are kept: a requester asks again when a response is missing.
    let (mut sent_hi, mut naked, mut timer_resends): (Option<Psn>, bool, usize) = (None, false, 0);
    // Messages posted and not yet answered (last PSN, cycle posted), and the longest any waited for
    // the peer frame that answered it: the NIC's ACK timeout must outlast that.
    let (mut waiting, mut longest_wait): (Vec<(Psn, u64)>, u64) = (Vec::new(), 0);
    for (i, (from_nic, f, raw)) in frames.iter().enumerate() {
        let info = opcode::info(f.bth.opcode);
        if *from_nic {
            if is_request(f) {
                let p = Psn::new(f.bth.psn);
                let again = sent_hi.is_some_and(|h| p.is_before(h));
                if again && !naked && f.bth.opcode != opcode::RC_RDMA_READ_REQUEST {
                    timer_resends += 1;
                    continue;
                }
                if !again {
                    sent_hi = Some(p.next());
                    naked = false;
                }
            }
            reference.push((Duration::ZERO, raw.clone()));
            if is_request(f)
                && matches!(
                    info.map(|i| i.position),
                    Some(Position::First | Position::Only)
                )
                && next_new.is_none_or(|n| !Psn::new(f.bth.psn).is_before(n))
            {
                // The whole message: this packet and the NIC side's following MIDDLE/LAST ones.
                // Packets sent again (go-back-N) repeat PSNs already taken: each PSN counts once.
                let mut data = f.payload.clone();
                let mut last = f.clone();
                let mut next_psn = Psn::new(f.bth.psn).next();
                if info.unwrap().position == Position::First {
                    for (n, g, _) in &frames[i + 1..] {
                        if !*n || !is_request(g) || g.bth.psn != next_psn.value() {
                            continue;
                        }
                        next_psn = next_psn.next();
                        data.extend_from_slice(&g.payload);
                        if opcode::info(g.bth.opcode).is_some_and(|x| x.position == Position::Last)
                        {
                            last = g.clone();
                            break;
                        }
                    }
                }
                let read = f.bth.opcode == opcode::RC_RDMA_READ_REQUEST;
                let atomic = f.ext.atomic_eth;
                // A READ's local buffer takes what it asks for; an atomic's the 8-byte result.
                let length = match (read, atomic) {
                    (true, _) => f.ext.reth.map_or(0, |r| r.dma_len as usize),
                    (_, Some(_)) => 8,
                    _ => data.len(),
                };
                // A READ takes one PSN per response, at least one.
                next_new = Some(if read {
                    Psn::new(f.bth.psn).add(length.div_ceil(im.mtu as usize).max(1) as u32)
                } else {
                    Psn::new(last.bth.psn).next()
                });
                // Atomics need an 8-byte aligned local word.
                send_at = send_at.next_multiple_of(8);
                if send_at + length > send_area {
                    send_at = 0;
                }
                let off = RECV_SLOTS * slot + send_at;
                send_at += length;
                if !read && atomic.is_none() {
                    sc.step.push(Step {
                        cycle,
                        host_write: Some(HostWrite {
                            mr: "local".into(),
                            offset: off,
                            hex: hex(&data),
                        }),
                        ..Step::default()
                    });
                    cycle += 100;
                }
                let imm = last.ext.imm_dt.map(|x| x.imm);
                let (op, remote_addr, rkey) = match (f.ext.reth, imm) {
                    (Some(r), _) if read => ("READ", r.va, r.rkey),
                    (Some(r), None) => ("WRITE", r.va, r.rkey),
                    (Some(r), Some(_)) => ("WRITE_IMM", r.va, r.rkey),
                    (None, None) => ("SEND", 0, 0),
                    (None, Some(_)) => ("SEND_IMM", 0, 0),
                };
                let mut post = PostSend {
                    wr_id,
                    op: op.into(),
                    addr: local.addr + off as u64,
                    length: length as u32,
                    lkey: local.lkey,
                    remote_addr,
                    rkey,
                    imm: imm.unwrap_or(0),
                    signaled: true,
                    solicited: last.bth.solicited,
                    ..PostSend::default()
                };
                if let Some(a) = atomic {
                    post.op = if f.bth.opcode == opcode::RC_FETCH_ADD {
                        "FETCH_ADD".into()
                    } else {
                        "CMP_SWAP".into()
                    };
                    post.remote_addr = a.va;
                    post.rkey = a.rkey;
                    post.compare = a.compare;
                    post.swap_add = a.swap_add;
                    post.imm = 0;
                    post.solicited = false;
                }
                sc.step.push(Step {
                    cycle,
                    post_send: Some(post),
                    ..Step::default()
                });
                // Answered once the peer's response reaches the message's last PSN.
                let last_psn = next_new.map_or(Psn::new(f.bth.psn), |n| n.add(0xFF_FFFF));
                waiting.push((last_psn, cycle));
                wr_id += 1;
                cycle += im.gap;
            }
        } else {
            let consumes_recv = info.is_some_and(|x| {
                x.role == Role::Request
                    && matches!(x.position, Position::First | Position::Only)
                    && x.name.contains("SEND")
            });
            if consumes_recv {
                sc.step.push(Step {
                    cycle,
                    post_recv: Some(PostRecv {
                        wr_id,
                        addr: local.addr + (recv_slot * slot) as u64,
                        length: slot as u32,
                        lkey: local.lkey,
                    }),
                    ..Step::default()
                });
                recv_slot = (recv_slot + 1) % RECV_SLOTS;
                wr_id += 1;
                cycle += 100;
            }
            // The frame as the capture has it, addressed to this NIC's QPN; a wrong ICRC stays wrong by
            // the same bits.
            let mut g = f.clone();
            let was = icrc::compute(raw).map_err(|e| format!("{e:?}"))?;
            let bad = f.icrc ^ was;
            if g.bth.dest_qp == capture_qpn {
                g.bth.dest_qp = our_qpn;
            }
            if let Some(r) = &mut g.ext.reth {
                r.va = remote.addr + (r.va - base);
                r.rkey = remote.rkey;
            }
            if let Some(a) = &mut g.ext.atomic_eth {
                a.va = remote.addr + (a.va - base);
                a.rkey = remote.rkey;
            }
            g.seal().map_err(|e| format!("{e:?}"))?;
            g.icrc ^= bad;
            let mut b = g.emit();
            b.resize(b.len().max(60), 0);
            sc.step.push(Step {
                cycle,
                inject: Some(inputs.len()),
                ..Step::default()
            });
            inputs.push((Duration::ZERO, b));
            if !is_request(f) {
                let p = Psn::new(f.bth.psn);
                if f.ext.aeth.is_some_and(|a| a.syndrome & 0x60 != 0) {
                    naked = true;
                }
                waiting.retain(|&(last, at)| {
                    let answered = !p.is_before(last);
                    if answered {
                        longest_wait = longest_wait.max(cycle - at);
                    }
                    !answered
                });
            }
            cycle += im.gap;
        }
    }
    // The timer must not run out where the captured side's did not: twice the longest wait.
    sc.nic.ack_timeout_cycles = sc
        .nic
        .ack_timeout_cycles
        .max(u32::try_from(2 * longest_wait).unwrap_or(u32::MAX));
    if timer_resends > 0 {
        sc.source += &format!(
            "; requests the captured side sent again on its own timer, left out of the reference: \
             {timer_resends}"
        );
    }
    sc.end_cycle = cycle + im.gap;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    save(dir, &sc, HEADER)?;
    write_frames(&dir.join("input.pcap"), &inputs)?;
    write_frames(&dir.join("reference.pcap"), &reference)?;
    run(dir, &dir.join("regenerate.pcap"), true).inspect(|_| {
        let _ = std::fs::remove_file(dir.join("regenerate.pcap"));
    })
}
