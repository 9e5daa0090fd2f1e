//! Conformance cases, each named by the spec scenario it checks: the NIC under test (A, a co-simulated
//! core driven through the verbs driver) faces a scripted peer that speaks as B. B's own core is switched
//! off; the script builds B's frames field by field with `rocenic_proto::wire` (ICRC sealed), injects
//! them on B's side of the link, and checks what A puts on the wire field by field (opcode, PSN, AETH
//! syndrome and MSN, payload, ...), A's completions and A's memory. Every frame of a case goes into
//! `out/conformance/<case>.pcap` for independent checking (`testbench/check_pcap.py`).
use crate::pair::{ip, mac, Pair, PairParams};
use crate::replay::{self, HostWrite, MrSetup, Poll, PostRecv, PostSend, SetReg, Step};
use rocenic_driver::verbs::{
    AccessFlags, MemoryRegion, RecvRequest, RecvWr, SendFlags, SendOp, Sge, WorkCompletion,
    WorkRequest,
};
use rocenic_driver::{DmaRegion, QpState, WcOpcode, WcStatus};
use rocenic_proto::opcode as op;
use rocenic_proto::regs;
use rocenic_proto::wire::arp_frame;
use rocenic_proto::wire::{
    AethRepr, AtomicAckEthRepr, AtomicEthRepr, BthRepr, EthernetRepr, ExtHeaders, Frame, IethRepr,
    ImmDtRepr, IpRepr, Ipv4Packet, Ipv4Repr, Ipv6Repr, RethRepr, UdpRepr, VlanRepr, ETHERTYPE_IPV4,
    ETHERTYPE_IPV6, ETHERTYPE_VLAN, ROCEV2_UDP_PORT,
};
use rocenic_sim::{FabricConfig, Width};
use std::cell::RefCell;
use std::path::PathBuf;
use std::time::Duration;

/// QP number of both cores (one QP per device).
const QPN: u32 = 0x11;
/// Path MTU of every case.
pub const MTU: usize = 1024;
/// Each MR of the bench (a scenario may ask for larger ones: [`Bench::with_region`]).
pub const REGION: usize = 64 << 10;

/// One case: its name, the rule it checks (with the IBA section), and the script.
pub struct Case {
    pub name: &'static str,
    pub rule: &'static str,
    pub run: fn(&mut Bench) -> Result<(), String>,
}

/// The NIC under test, its memory, and the scripted peer's state.
pub struct Bench {
    pub pair: Pair,
    /// A's region registered for every remote access, and one registered for local access only.
    pub mem: DmaRegion,
    pub mr: MemoryRegion,
    pub local: DmaRegion,
    pub local_mr: MemoryRegion,
    /// Next PSN the peer's requests use (what A expects).
    pub peer_psn: u32,
    /// A's next request PSN.
    pub a_psn: u32,
    /// The set-up the pair was built with.
    pub params: PairParams,
    /// Bytes of each of the two MRs.
    pub region: usize,
    /// What the case did to A and put on the wire, for `--export` (cases as files).
    pub rec: RefCell<Recording>,
}

/// A case's actions in order, in cycles after set-up, and the frames it injected: enough to replay it
/// from files (`crate::replay`). A case that does something a scenario cannot say is marked.
#[derive(Default)]
pub struct Recording {
    pub start: u64,
    pub steps: Vec<Step>,
    pub inputs: Vec<(Duration, Vec<u8>)>,
    pub not_replayable: Option<String>,
}

fn err<T>(m: String) -> Result<T, String> {
    Err(m)
}

macro_rules! check {
    ($cond:expr, $($fmt:tt)*) => {
        if !$cond {
            return err(format!($($fmt)*));
        }
    };
}

impl Bench {
    /// The bench with the given set-up (a scenario's), its frames to `pcap`.
    pub fn with(params: PairParams, pcap: PathBuf) -> Result<Bench, String> {
        Bench::with_region(params, pcap, REGION)
    }

    /// [`Bench::with`] with MRs of `region` bytes each.
    pub fn with_region(params: PairParams, pcap: PathBuf, region: usize) -> Result<Bench, String> {
        let cfg = FabricConfig {
            width: Width::W64,
            // Both MRs, the queues and the CQs.
            host_mem_bytes: (2 * region + (2 << 20)).max(4 << 20),
            pcap: Some(pcap),
            ..FabricConfig::default()
        };
        let pair = Pair::connect_with(cfg, &params).map_err(|e| e.to_string())?;
        {
            let mut f = pair.fabric.lock().unwrap();
            // B's core is off: the script is B from now on.
            f.reg_write(1, regs::CONTROL, 0);
            f.record_frames();
        }
        let e = |e: rocenic_driver::Error| e.to_string();
        let mem = pair.a.ctx.alloc_dma(region).map_err(e)?;
        let init: Vec<u8> = (0..region).map(|i| (i as u8) ^ 0x5A).collect();
        mem.write(0, &init).map_err(e)?;
        let mr = pair
            .a
            .pd
            .reg_mr(
                &mem,
                0,
                region,
                AccessFlags::LOCAL_WRITE
                    | AccessFlags::REMOTE_WRITE
                    | AccessFlags::REMOTE_READ
                    | AccessFlags::REMOTE_ATOMIC,
            )
            .map_err(e)?;
        let local = pair.a.ctx.alloc_dma(region).map_err(e)?;
        let local_mr = pair
            .a
            .pd
            .reg_mr(&local, 0, region, AccessFlags::LOCAL_WRITE)
            .map_err(e)?;
        let start = pair.cycles();
        Ok(Bench {
            pair,
            mem,
            mr,
            local,
            local_mr,
            peer_psn: params.psn[1],
            a_psn: params.psn[0],
            params,
            region,
            rec: RefCell::new(Recording {
                start,
                ..Recording::default()
            }),
        })
    }

    /// Pushes every frame captured so far to the bench's pcap file.
    pub fn flush_pcap(&self) -> Result<(), String> {
        self.pair
            .fabric
            .lock()
            .unwrap()
            .flush_pcap()
            .map_err(|e| e.to_string())
    }

    /// Records `step` at the current cycle.
    fn log(&self, step: Step) {
        self.log_at(self.pair.cycles(), step);
    }

    /// Records `step` as taken at fabric cycle `at` (for actions logged after they ran, with their
    /// result).
    fn log_at(&self, at: u64, mut step: Step) {
        let mut r = self.rec.borrow_mut();
        step.cycle = at - r.start;
        r.steps.push(step);
    }

    /// Marks the case as one a scenario file cannot express.
    pub fn not_replayable(&self, why: &str) {
        self.rec
            .borrow_mut()
            .not_replayable
            .get_or_insert(why.to_string());
    }

    /// The two MRs as a scenario describes them.
    pub fn mr_setups(&self) -> Vec<MrSetup> {
        let names = replay::access_names;
        vec![
            MrSetup {
                name: "remote".into(),
                bytes: self.region,
                access: names(self.mr.access()),
                fill: "byte i = i ^ 0x5a".into(),
                addr: self.mr.addr(),
                lkey: self.mr.lkey(),
                rkey: self.mr.rkey(),
            },
            MrSetup {
                name: "local".into(),
                bytes: self.region,
                access: names(self.local_mr.access()),
                fill: "zeros".into(),
                addr: self.local_mr.addr(),
                lkey: self.local_mr.lkey(),
                rkey: self.local_mr.rkey(),
            },
        ]
    }

    /// The region a scenario names.
    pub fn region(&self, name: &str) -> Result<&DmaRegion, String> {
        match name {
            "remote" => Ok(&self.mem),
            "local" => Ok(&self.local),
            o => Err(format!("no MR named {o:?} (remote, local)")),
        }
    }

    /// Host memory that differs from the initial fill, as a scenario lists it.
    pub fn changed_memory(&self) -> Vec<replay::MemoryRange> {
        let mut now = vec![0; self.region];
        self.mem.read(0, &mut now).unwrap();
        let init: Vec<u8> = (0..self.region).map(|i| (i as u8) ^ 0x5A).collect();
        let mut v = replay::changed_ranges("remote", &init, &now);
        self.local.read(0, &mut now).unwrap();
        v.extend(replay::changed_ranges("local", &vec![0; self.region], &now));
        v
    }

    /// The host writes `data` into region `name` (`local` or `remote`) at `off`.
    pub fn host_write(&self, name: &str, off: usize, data: &[u8]) -> Result<(), String> {
        self.log(Step {
            host_write: Some(HostWrite {
                mr: name.into(),
                offset: off,
                hex: replay::hex(data),
            }),
            ..Step::default()
        });
        self.region(name)?
            .write(off, data)
            .map_err(|e| e.to_string())
    }

    /// Puts `frames` on the wire as B's, in order and back to back, then lets A work for `cycles`.
    pub fn inject_many(&self, frames: Vec<Vec<u8>>, cycles: u64) {
        for frame in frames {
            let i = {
                let mut f = self.pair.fabric.lock().unwrap();
                let t = Duration::from_nanos(f.time_ns().round() as u64);
                let mut r = self.rec.borrow_mut();
                r.inputs.push((t, frame.clone()));
                f.inject_frame(1, frame);
                r.inputs.len() - 1
            };
            self.log(Step {
                inject: Some(i),
                ..Step::default()
            });
        }
        self.pair.fabric.lock().unwrap().run(cycles);
    }

    /// Moves A's QP to `attr` (ERR or SQD) as the host would.
    pub fn modify(&self, attr: rocenic_driver::verbs::QpAttr) -> Result<(), String> {
        let name = match attr {
            rocenic_driver::verbs::QpAttr::Err => "ERR",
            rocenic_driver::verbs::QpAttr::Sqd => "SQD",
            _ => {
                self.not_replayable("a modify_qp other than to ERR or SQD");
                ""
            }
        };
        if !name.is_empty() {
            self.log(Step {
                modify: Some(name.into()),
                ..Step::default()
            });
        }
        self.pair.a.qp.modify(attr).map_err(|e| e.to_string())
    }

    /// Arms A's receive CQ.
    pub fn req_notify_recv(&self, solicited_only: bool) {
        self.log(Step {
            req_notify_recv: Some(solicited_only),
            ..Step::default()
        });
        self.pair.a.recv_cq.req_notify(solicited_only);
    }

    /// Polls A's `cq` ("send" or "recv") for up to `cycles`, recording the poll that returns one (at
    /// the cycle it started: a poll writes the CQ's consumer index, which takes a cycle).
    pub fn wait_wc(&self, cq: &str, cycles: u64) -> Option<WorkCompletion> {
        let c = if cq == "send" {
            &self.pair.a.send_cq
        } else {
            &self.pair.a.recv_cq
        };
        let (at, wc) = self.pair.wait_for_at(c, cycles)?;
        self.log_at(
            at,
            Step {
                poll: Some(Poll {
                    cq: cq.into(),
                    wc: format!("{wc:?}"),
                }),
                ..Step::default()
            },
        );
        Some(wc)
    }

    /// Registers one more MR over `region` from `off` (in its own PD when `own_pd`).
    pub fn reg_mr(
        &self,
        region: &str,
        off: usize,
        len: usize,
        access: AccessFlags,
        own_pd: bool,
    ) -> Result<MemoryRegion, String> {
        let pd = if own_pd {
            self.pair.a.ctx.alloc_pd()
        } else {
            self.pair.a.pd.clone()
        };
        let at = self.pair.cycles();
        let mr = pd
            .reg_mr(self.region(region)?, off, len, access)
            .map_err(|e| e.to_string())?;
        self.log_at(
            at,
            Step {
                reg_mr: Some(replay::RegMr {
                    region: region.into(),
                    offset: off,
                    len,
                    access: replay::access_names(access),
                    own_pd,
                    lkey: mr.lkey(),
                    rkey: mr.rkey(),
                }),
                ..Step::default()
            },
        );
        Ok(mr)
    }

    /// Writes A's register `off`, as the host would.
    pub fn set_reg(&self, off: u16, v: u32) {
        self.log(Step {
            set_reg: Some(SetReg {
                offset: off,
                name: regs::by_offset(off).map_or("?", |r| r.name).to_string(),
                value: v,
            }),
            ..Step::default()
        });
        self.pair.fabric.lock().unwrap().reg_write(0, off, v);
    }

    /// A frame from B to A with `opcode`, `psn` and the given extension headers and payload.
    pub fn frame(
        &self,
        opcode: u8,
        psn: u32,
        ext: ExtHeaders,
        payload: &[u8],
        ack_req: bool,
    ) -> Vec<u8> {
        peer_frame(opcode, psn, ext, payload, ack_req)
    }

    pub fn reth(&self, off: usize, len: usize, rkey: u32) -> ExtHeaders {
        ExtHeaders {
            reth: Some(RethRepr {
                va: self.mr.addr() + off as u64,
                rkey,
                dma_len: len as u32,
            }),
            ..ExtHeaders::default()
        }
    }

    /// The peer's next PSN, advanced by `n`.
    pub fn take_psn(&mut self, n: u32) -> u32 {
        let p = self.peer_psn;
        self.peer_psn = (self.peer_psn + n) & 0xFF_FFFF;
        p
    }

    /// Put `frame` on the wire as B's, then let A work for `cycles`.
    pub fn inject(&self, frame: Vec<u8>, cycles: u64) {
        self.inject_many(vec![frame], cycles);
    }

    /// A WRITE's FIRST (RETH for `len` bytes at `va_off` in the MR) and MIDDLE packets, one MTU of `d`
    /// each, at PSNs `p` and `p + 1`, without AckReq: the responder must stay silent.
    pub fn inject_write_first_middle(&self, p: u32, va_off: usize, d: &[u8]) -> Result<(), String> {
        self.inject(
            self.frame(
                op::RC_RDMA_WRITE_FIRST,
                p,
                self.reth(va_off, d.len(), self.mr.rkey()),
                &d[..MTU],
                false,
            ),
            2000,
        );
        self.inject(
            self.frame(
                op::RC_RDMA_WRITE_MIDDLE,
                p + 1,
                ExtHeaders::default(),
                &d[MTU..2 * MTU],
                false,
            ),
            2000,
        );
        self.expect_silence()
    }

    /// B acknowledges PSN `psn` (MSN `msn`); A's send completion must then be a success for `wr_id`.
    pub fn ack_and_complete(
        &mut self,
        psn: u32,
        msn: u32,
        wr_id: u64,
        opcode: WcOpcode,
    ) -> Result<(), String> {
        self.inject(
            self.frame(op::RC_ACKNOWLEDGE, psn, aeth(0x1F, msn), &[], false),
            500,
        );
        let wc = self.send_wc(10_000)?;
        check!(
            (wc.status, wc.wr_id, wc.opcode) == (WcStatus::Success, wr_id, opcode),
            "completion {wc:?}"
        );
        Ok(())
    }

    pub fn run(&self, cycles: u64) {
        self.pair.fabric.lock().unwrap().run(cycles);
    }

    /// Frames A sent since the last call, parsed (non-RoCE frames are skipped).
    pub fn sent(&self) -> Vec<Frame> {
        self.pair
            .fabric
            .lock()
            .unwrap()
            .take_sent(0)
            .into_iter()
            .filter_map(|b| Frame::parse(&b).ok())
            .collect()
    }

    /// A's frames since the last call must be exactly one ACK/NAK with `syndrome` (ACK: any credit code)
    /// and `psn` (and `msn` if given).
    pub fn expect_ack(&self, syndrome: u8, psn: u32, msn: Option<u32>) -> Result<(), String> {
        let s = self.sent();
        check!(
            s.len() == 1,
            "expected one ACKNOWLEDGE, A sent {}: {}",
            s.len(),
            names(&s)
        );
        let f = &s[0];
        check!(
            f.bth.opcode == op::RC_ACKNOWLEDGE,
            "expected ACKNOWLEDGE, got {}",
            f.opcode_name()
        );
        let a = f.ext.aeth.ok_or("no AETH")?;
        let ok_syn = if syndrome & 0xE0 == 0 {
            a.syndrome & 0xE0 == 0
        } else {
            a.syndrome == syndrome
        };
        check!(
            ok_syn,
            "AETH syndrome {:#04x}, expected {syndrome:#04x}",
            a.syndrome
        );
        check!(
            f.bth.psn == psn & 0xFF_FFFF,
            "ACK PSN {:#08x}, expected {psn:#08x}",
            f.bth.psn
        );
        check!(f.bth.dest_qp == QPN, "ACK to QP {:#x}", f.bth.dest_qp);
        if let Some(m) = msn {
            check!(a.msn == m, "MSN {}, expected {m}", a.msn);
        }
        Ok(())
    }

    pub fn expect_silence(&self) -> Result<(), String> {
        let s = self.sent();
        check!(s.is_empty(), "expected no response, A sent {}", names(&s));
        Ok(())
    }

    /// A's memory at `off`.
    pub fn mem_at(&self, off: usize, len: usize) -> Vec<u8> {
        let mut b = vec![0; len];
        self.mem.read(off, &mut b).unwrap();
        b
    }

    pub fn counter(&self, off: u16) -> u32 {
        self.pair.fabric.lock().unwrap().reg_read(0, off)
    }

    /// A value of A's QP context (QP_STATE, SQ_CI, RQ_CI, SQ_PSN, RQ_PSN) through QP_CMD QUERY.
    pub fn qp_value(&self, off: u16) -> u32 {
        let mut f = self.pair.fabric.lock().unwrap();
        f.reg_write(0, regs::QPN, QPN);
        f.reg_write(0, regs::QP_CMD, 8);
        while f.reg_read(0, regs::QP_CMD) != 0 {}
        f.reg_read(0, off)
    }

    pub fn post_recv(&self, wr_id: u64, off: usize, len: usize) -> Result<(), String> {
        let sge = Sge {
            addr: self.local_mr.addr() + off as u64,
            length: len as u32,
            lkey: self.local_mr.lkey(),
        };
        self.log(Step {
            post_recv: Some(PostRecv {
                wr_id,
                addr: sge.addr,
                length: sge.length,
                lkey: sge.lkey,
            }),
            ..Step::default()
        });
        // SAFETY: `local` lives as long as the bench, which outlives the case.
        unsafe { self.pair.a.qp.post_recv(&RecvRequest { wr_id, sge }) }.map_err(|e| {
            // A refused post changes nothing a replay could reproduce from the step alone.
            self.not_replayable("a post_recv the driver refused");
            e.to_string()
        })
    }

    pub fn post_send(&self, wr: &WorkRequest) -> Result<(), String> {
        self.log(Step {
            post_send: Some(PostSend::from_wr(wr)),
            ..Step::default()
        });
        // SAFETY: every SGE of the cases points into `local`, which outlives the case.
        unsafe { self.pair.a.qp.post_send(wr) }.map_err(|e| {
            self.not_replayable("a post_send the driver refused");
            e.to_string()
        })
    }

    pub fn recv_wc(&self) -> Result<WorkCompletion, String> {
        self.wait_wc("recv", 50_000)
            .ok_or_else(|| "no receive completion".to_string())
    }

    pub fn send_wc(&self, cycles: u64) -> Result<WorkCompletion, String> {
        self.wait_wc("send", cycles)
            .ok_or_else(|| "no send completion".to_string())
    }

    /// `query_qp` (recorded: the driver notices a QP the NIC moved to ERR here and flushes).
    pub fn qp_state(&self) -> QpState {
        let at = self.pair.cycles();
        let s = self.pair.a.qp.query();
        self.log_at(
            at,
            Step {
                query: Some(format!("{s:?}")),
                ..Step::default()
            },
        );
        s
    }
}

/// A frame from B (port 1 of a [`Pair`]) to A's QP with `opcode`, `psn`, the given extension headers and
/// payload: every field set as a RoCEv2 NIC would, lengths, checksum and ICRC sealed, padded to 60 bytes.
pub fn peer_frame(opcode: u8, psn: u32, ext: ExtHeaders, payload: &[u8], ack_req: bool) -> Vec<u8> {
    let pad = (4 - payload.len() % 4) % 4;
    let mut f = Frame {
        eth: EthernetRepr {
            dst: mac(0),
            src: mac(1),
            ethertype: ETHERTYPE_IPV4,
        },
        vlan: None,
        ip: IpRepr::V4(Ipv4Repr {
            tos: 0x02,
            total_len: 0,
            ident: 0,
            dont_frag: true,
            ttl: 64,
            protocol: 17,
            checksum: 0,
            src: ip(1).octets(),
            dst: ip(0).octets(),
        }),
        udp: UdpRepr {
            src_port: 0xC001,
            dst_port: ROCEV2_UDP_PORT,
            length: 0,
            checksum: 0,
        },
        bth: BthRepr {
            opcode,
            solicited: false,
            mig_req: false,
            pad_count: 0,
            tver: 0,
            pkey: 0xFFFF,
            fecn: false,
            becn: false,
            resv6a: 0,
            dest_qp: QPN,
            ack_req,
            resv7: 0,
            psn: psn & 0xFF_FFFF,
        },
        ext,
        payload: payload.to_vec(),
        pad: vec![0; pad],
        icrc: 0,
        trailer: Vec::new(),
    };
    f.seal().expect("a well-formed frame");
    let mut b = f.emit();
    if b.len() < 60 {
        b.resize(60, 0);
    }
    b
}

fn names(s: &[Frame]) -> String {
    s.iter()
        .map(|f| format!("{} psn {:#x}", f.opcode_name(), f.bth.psn))
        .collect::<Vec<_>>()
        .join(", ")
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| (i as u8).wrapping_mul(7) ^ seed).collect()
}

fn imm(v: u32) -> ExtHeaders {
    ExtHeaders {
        imm_dt: Some(ImmDtRepr { imm: v }),
        ..ExtHeaders::default()
    }
}

fn aeth(syndrome: u8, msn: u32) -> ExtHeaders {
    ExtHeaders {
        aeth: Some(AethRepr { syndrome, msn }),
        ..ExtHeaders::default()
    }
}

// The cases, by rule area (each file one area; the table below names them all).
mod atomic;
mod network;
mod read;
mod requester;
mod send;
mod write;
use atomic::*;
pub(crate) use network::pfc_frame;
use network::*;
use read::*;
use requester::*;
use send::*;
use write::*;

/// Every case, in the order they run.
pub const CASES: &[Case] = &[
    Case { name: "rc_write_only_ack", rule: "9.7.5.1: a WRITE ONLY with AckReq executes and is ACKed with its PSN and MSN", run: write_only_ack },
    Case { name: "rc_write_first_middle_last", rule: "9.7.5: a multi-packet WRITE lands at the RETH address; ACK on the AckReq packet", run: write_first_middle_last },
    Case { name: "rc_write_psn_seq_err_nak", rule: "9.7.5.1.1: a PSN ahead gets one PSN-sequence-error NAK with the expected PSN and does not execute", run: write_psn_seq_err_nak },
    Case { name: "rc_write_duplicate_reack", rule: "9.7.5.1.2: a duplicate WRITE is ACKed again, not executed again", run: write_duplicate_reack },
    Case { name: "rc_write_rkey_violation", rule: "9.7.5.1.7, C9-88: a bad R_Key gets a remote access error NAK, QP to ERR", run: write_rkey_violation },
    Case { name: "rc_write_out_of_bounds", rule: "C9-88: beyond the MR's bounds is a remote access error", run: write_out_of_bounds },
    Case { name: "rc_write_without_remote_write", rule: "C9-88: an MR without REMOTE_WRITE refuses a WRITE", run: write_without_remote_write_access },
    Case { name: "rc_write_mr_invalidated_mid_message", rule: "C9-88: every packet of a WRITE is checked against its MR; one deregistered mid-message gets a remote access error", run: write_mr_invalidated_mid_message },
    Case { name: "rc_write_zero_length_unchecked", rule: "C9-88: a zero-length WRITE accesses no memory; its R_Key is not checked", run: write_zero_length_unchecked },
    Case { name: "rc_write_middle_without_first", rule: "9.7.5.1.3: an out-of-order opcode sequence is an invalid request NAK", run: write_middle_without_first },
    Case { name: "rc_write_length_mismatch", rule: "9.7.5.1.4: payload and RETH length disagree: invalid request NAK", run: write_length_mismatch },
    Case { name: "rc_write_first_shorter_than_mtu", rule: "C9-92: FIRST and MIDDLE carry exactly one path MTU", run: write_first_shorter_than_mtu },
    Case { name: "rc_write_first_without_last", rule: "9.7.5.1.3: a new WRITE FIRST while a WRITE waits for its LAST is an invalid opcode sequence: invalid request NAK, QP to ERR, nothing lands", run: write_first_without_last },
    Case { name: "rc_write_each_path_mtu", rule: "9.7.5.1.4, C9-92: at every path MTU 256..4096 a WRITE ONLY of exactly one MTU and a FIRST + LAST of one byte more land; ONLY one byte over the MTU is an invalid request", run: write_each_path_mtu },
    Case { name: "rc_write_last_with_immediate", rule: "9.4.4: FIRST, MIDDLE, LAST WITH IMMEDIATE: data at the RETH address, one receive WQE consumed, RECV_RDMA_WITH_IMM with the ImmDt and the message length", run: write_last_with_immediate },
    Case { name: "rc_write_imm_rnr_nak", rule: "9.7.5.1.6: a WRITE with immediate and no receive WQE gets an RNR NAK, writes nothing, PSN not consumed; the retry lands and completes", run: write_imm_rnr_nak },
    Case { name: "rc_write_psn_wrap", rule: "9.7.5.1.1, 9.7.5.1.2: PSNs are modulo 2^24: a WRITE across 0xFFFFFF -> 0 lands and is ACKed at PSN 1; 0xFFFFFF after the wrap is a duplicate", run: write_psn_wrap },
    Case { name: "rc_write_duplicate_older_psn", rule: "9.7.5.1.2, 9.7.6: a duplicate of an older PSN in the window is not executed; the re-ACK carries the newest PSN executed (covering it), the expected PSN unchanged", run: write_duplicate_older_psn },
    Case { name: "rc_write_ackreq_clear_coalesced", rule: "9.7.5.1, 9.7.6: requests without AckReq execute without an ACK; one ACK for the packet that asks covers them (MSN counts all)", run: write_ackreq_clear_coalesced },
    Case { name: "rc_write_other_pd", rule: "C9-88: an R_Key of an MR in another protection domain than the QP's is a remote access error", run: write_other_pd },
    Case { name: "rc_write_in_rtr", rule: "10.3.1: a QP in RTR receives: the WRITE lands and is ACKed", run: write_in_rtr },
    Case { name: "rc_write_in_sqd", rule: "10.3.1: a QP in SQD goes on responding: WRITE ACKed, READ answered", run: write_in_sqd },
    Case { name: "rc_packet_from_another_source_dropped", rule: "a connected QP takes packets from its peer only (as rdma_rxe's check_addr): a WRITE and a READ for the QP from another IP source are dropped and counted, unanswered, no PSN consumed", run: packet_from_another_source_dropped },
    Case { name: "rc_write_in_init_dropped", rule: "10.3.1: a QP in INIT does not receive: the packet is dropped silently and counted, its PSN not consumed", run: write_in_init_dropped },
    Case { name: "rc_write_in_err_dropped", rule: "10.3.1: a QP in ERR answers nothing: WRITE and READ dropped and counted, no memory touched", run: write_in_err_dropped },
    Case { name: "rc_msn_counts_messages", rule: "9.7.5.1: the AETH MSN counts every completed message (WRITE, READ, atomic, SEND) and moves only at a message's end", run: msn_counts_messages },
    Case { name: "rc_send_only_to_receive", rule: "9.7.5: a SEND ONLY fills the next receive WQE, ACK, RECV completion", run: send_only_to_receive },
    Case { name: "rc_send_first_middle_last", rule: "9.7.5: a multi-packet SEND continues the receive buffer; byte_len is the message", run: send_first_middle_last },
    Case { name: "rc_send_rnr_nak_retry", rule: "9.7.5.1.6: no receive WQE: RNR NAK with MIN_RNR_TIMER, PSN not consumed; the retry lands", run: send_rnr_nak_then_retry },
    Case { name: "rc_send_scatter_list", rule: "9.7.5, 10.8.3: a SEND's payload fills the receive WQE's scatter list in order, across packets and entries at any byte, nothing outside them written", run: send_scatter_list },
    Case { name: "rc_send_malformed_scatter_list", rule: "9.9.3: a receive WQE whose list does not add up to its LENGTH is malformed: remote operational error NAK (0x63), nothing written, QP to ERR", run: send_malformed_scatter_list },
    Case { name: "rc_send_longer_than_receive", rule: "9.7.5.1.4: a SEND longer than the receive buffer is an invalid request", run: send_longer_than_receive },
    Case { name: "rc_write_qp_without_remote_write", rule: "QP attributes (qp_access_flags): a WRITE to a QP without REMOTE_WRITE is refused although the MR allows it: invalid request NAK, the QP to ERR (as rdma_rxe)", run: write_qp_without_remote_write },
    Case { name: "rc_read_qp_without_remote_read", rule: "QP attributes (qp_access_flags): a READ to a QP without REMOTE_READ: invalid request NAK, the QP to ERR", run: read_qp_without_remote_read },
    Case { name: "rc_atomic_qp_without_remote_atomic", rule: "QP attributes (qp_access_flags): a FETCH_ADD to a QP without REMOTE_ATOMIC: invalid request NAK, the QP to ERR", run: atomic_qp_without_remote_atomic },
    Case { name: "rc_send_only_with_immediate", rule: "9.4.4: the ImmDt reaches the receive completion", run: send_only_with_immediate },
    Case { name: "rc_send_only_with_invalidate", rule: "9.3, 10 (remote invalidation): SEND ONLY WITH INVALIDATE lands, its IETH R_Key is invalidated (completion WITH_INV names it) and a WRITE with it then gets a remote access error NAK", run: send_only_with_invalidate },
    Case { name: "rc_send_last_with_invalidate", rule: "9.3, 10: SEND FIRST + LAST WITH INVALIDATE: nothing is invalidated before the last packet; then as ONLY", run: send_last_with_invalidate },
    Case { name: "rc_send_with_invalidate_not_allowed", rule: "10: an IETH R_Key whose MR does not allow remote invalidation: invalid request NAK, the QP to ERR, the MR untouched (rdma_rxe: REM_INV_REQ_ERR)", run: send_with_invalidate_not_allowed },
    Case { name: "rc_write_only_with_immediate", rule: "9.4.4: WRITE with immediate consumes a receive WQE, RECV_RDMA_WITH_IMM", run: write_only_with_immediate },
    Case { name: "rc_send_last_with_immediate", rule: "9.4.4: SEND FIRST + LAST WITH IMMEDIATE: one receive WQE, the ImmDt and the message length in the completion", run: send_last_with_immediate },
    Case { name: "rc_send_solicited_event", rule: "9.2.3, 11.4.2.2: the BTH SE bit of a SEND raises the event of a CQ armed for solicited completions; an unsolicited SEND does not", run: send_solicited_event },
    Case { name: "rc_send_middle_without_first", rule: "9.7.5.1.3: a SEND MIDDLE outside a SEND is an invalid request NAK, QP to ERR, nothing lands", run: send_middle_without_first },
    Case { name: "rc_send_zero_length", rule: "9.7.5: a zero-length SEND consumes a receive WQE and completes with byte_len 0, the buffer untouched", run: send_zero_length },
    Case { name: "rc_send_two_receives_in_order", rule: "9.7.5, 10.8.3: each SEND takes the next receive WQE in posting order; completions in order", run: send_two_receives_in_order },
    Case { name: "rc_read_only_response", rule: "9.7.5.1.5: a READ within one MTU gets READ RESPONSE ONLY with AETH", run: read_only_response },
    Case { name: "rc_read_first_middle_last", rule: "9.7.5.1.5: READ responses FIRST/MIDDLE/LAST, AETH on FIRST and LAST, PSNs per response", run: read_first_middle_last },
    Case { name: "rc_read_duplicate_reexecute", rule: "9.7.5.1.2: a duplicate READ is executed again", run: read_duplicate_reexecute },
    Case { name: "rc_read_without_remote_read", rule: "C9-88: an MR without REMOTE_READ refuses a READ", run: read_without_remote_read },
    Case { name: "rc_read_rkey_violation", rule: "9.7.5.1.7, C9-88: a READ with a bad R_Key gets a remote access error NAK and no response, QP to ERR", run: read_rkey_violation },
    Case { name: "rc_read_any_byte_address", rule: "RETH: a READ's VA may be any byte address: the responses (several MTUs, up to the MR's last byte) carry exactly the memory's bytes, read in whole beats under the region", run: read_any_byte_address },
    Case { name: "rc_write_any_byte_address", rule: "RETH: a WRITE's VA may be any byte address: the payload lands at it (realigned to the host's beats) and the bytes around it keep their value", run: write_any_byte_address },
    Case { name: "rc_read_out_of_bounds", rule: "C9-88: a READ running past the MR's end is a remote access error", run: read_out_of_bounds },
    Case { name: "rc_read_zero_length", rule: "9.7.5.1.5, C9-88: a zero-length READ is not checked against an MR; one READ RESPONSE ONLY without payload, one PSN", run: read_zero_length },
    Case { name: "rc_read_mtu_boundaries", rule: "9.7.5.1.5: at every path MTU 256..4096 a READ of exactly one MTU gets ONLY, one byte more FIRST (a full MTU) + LAST (one byte)", run: read_mtu_boundaries },
    Case { name: "rc_read_psn_seq_err_nak", rule: "9.7.5.1.1: a READ with a PSN ahead gets a sequence error NAK with the expected PSN and no response", run: read_psn_seq_err_nak },
    Case { name: "rc_read_responses_before_later_ack", rule: "9.7.5.1.5, 9.7.6: responses leave in PSN order: the ACK of a WRITE received right after a READ follows all the READ's responses (sent first it would be an implied NAK of the READ)", run: read_responses_before_later_ack },
    Case { name: "rc_read_duplicate_partial", rule: "9.7.5.1.2: a duplicate READ for the tail of an earlier READ (later PSN, VA and length moved on) gets only those responses; the expected PSN does not move", run: read_duplicate_partial },
    Case { name: "rc_atomic_fetch_add", rule: "9.4.5: FETCH_ADD returns the original value and adds", run: atomic_fetch_add },
    Case { name: "rc_atomic_compare_swap", rule: "9.4.5: COMPARE_SWAP swaps only on a match, returns the original either way", run: atomic_compare_swap_hit_and_miss },
    Case { name: "rc_atomic_replay", rule: "9.4.5: a duplicate atomic gets the saved result and is not executed twice", run: atomic_replay },
    Case { name: "rc_atomic_replay_depth", rule: "9.4.5: the last max_qp_rd_atom (4) atomic results are kept; each duplicate gets its own, an older one is dropped and counted", run: atomic_replay_depth },
    Case { name: "rc_atomic_misaligned", rule: "9.4.5: a misaligned atomic is an invalid request", run: atomic_misaligned },
    Case { name: "rc_atomic_without_remote_atomic", rule: "C9-88: an MR with remote WRITE and READ but not REMOTE_ATOMIC refuses an atomic (remote access error), though it takes a WRITE", run: atomic_without_remote_atomic },
    Case { name: "rc_atomic_out_of_bounds", rule: "C9-88: an atomic on the MR's last word executes; on the word past its end it is a remote access error", run: atomic_out_of_bounds },
    Case { name: "rc_atomic_rkey_violation", rule: "9.7.5.1.7, C9-88: an atomic with a bad R_Key gets a remote access error NAK, the word unchanged", run: atomic_rkey_violation },
    Case { name: "rc_atomic_fetch_add_wraps", rule: "9.4.5: FETCH_ADD adds modulo 2^64 and writes only its 8 bytes", run: atomic_fetch_add_wraps },
    Case { name: "rc_atomic_ack_before_later_ack", rule: "9.4.5, 9.7.6: responses leave in PSN order: the ATOMIC ACKNOWLEDGE goes before the ACK of a WRITE received right after the atomic, also when both wait behind the NIC's own requests", run: atomic_ack_before_later_ack },
    Case { name: "rc_wrong_qpn_dropped", rule: "9.6: a packet for an unknown QP is dropped silently and counted", run: wrong_qpn_dropped },
    Case { name: "rc_uc_opcode_dropped", rule: "9.6: an opcode of another transport on an RC QP is dropped and counted", run: ud_opcode_on_rc_dropped },
    Case { name: "icrc_error_dropped", rule: "annex A17: a bad ICRC drops the packet silently (no NAK), counted", run: bad_icrc_dropped },
    Case { name: "ipv4_checksum_error_dropped", rule: "RFC 791: a bad IPv4 header checksum drops the packet, counted", run: bad_ip_checksum_dropped },
    Case { name: "udp_wrong_port_not_roce", rule: "annex A17.2: RoCEv2 is UDP destination port 4791; a BTH to another port is not taken, counted", run: udp_wrong_port_not_roce },
    Case { name: "ipv4_options_not_roce", rule: "RFC 791: an IPv4 header with options (IHL 6) is not parsed by this generation: the packet is dropped whole and counted, never decoded at a shifted offset", run: ipv4_options_not_roce },
    Case { name: "roce_truncated_dropped", rule: "RFC 791, annex A17: a frame shorter than its IPv4 total length (cut in the payload, or a runt cut in the BTH) is dropped and counted", run: roce_truncated_dropped },
    Case { name: "eth_other_mac_not_taken", rule: "IEEE 802.3: a frame for another unicast MAC address is not taken, counted", run: eth_other_mac_not_taken },
    Case { name: "ipv4_other_address_not_taken", rule: "RFC 1122 3.2.1.3: a datagram for another IPv4 address is not taken, counted", run: ipv4_other_address_not_taken },
    Case { name: "vlan_tagged_not_taken", rule: "IEEE 802.1Q: a port not on a VLAN (VLAN register 0) does not take tagged frames: dropped whole, counted as an EtherType drop", run: vlan_tagged_not_taken },
    Case { name: "ipv6_to_an_address_not_in_the_gid_table_not_taken", rule: "annex A17.4, RFC 8200: an IPv6 packet is taken only when its destination is one of the port's GIDs (the GID table; the IPv4-mapped GID ::ffff:IPV4 is not an IPv6 address of the port); dropped whole and counted as a destination-IP drop", run: ipv6_to_an_address_not_in_the_gid_table_not_taken },
    Case { name: "vlan_qp_tags_its_packets", rule: "IEEE 802.1Q per QP: a port off VLAN mode that also joined VLAN 200 takes frames tagged 200 and untagged ones, drops other VIDs; the QP on VLAN 200 answers tagged 200 either way; ARP is answered on the VLAN it was asked on", run: qp_vlan_tags_its_packets },
    Case { name: "vlan_port_takes_its_vlan_only", rule: "IEEE 802.1Q: a port on VLAN 100 takes frames tagged 100 and answers tagged (PCP = the frame's priority, its DSCP through the DSCP -> priority map); untagged frames and other VIDs are dropped and counted", run: vlan_port_takes_its_vlan_only },
    Case { name: "port_disabled_not_taken", rule: "a RoCE frame reaching a disabled port (CONTROL bit 0 clear) is dropped and counted, and taken once the port is enabled", run: port_disabled_not_taken },
    Case { name: "pfc_pause_holds_priority", rule: "IEEE 802.1Qbb: a PFC frame naming the RoCE priority holds the transmission of that priority's frames for the quanta given (512 bit times each), counted", run: pfc_pause_holds_priority },
    Case { name: "pfc_xon_resumes", rule: "IEEE 802.1Qbb: a PFC time of 0 (XON) for the priority resumes transmission at once", run: pfc_xon_resumes },
    Case { name: "pfc_other_priority_ignored", rule: "IEEE 802.1Qbb: a PFC frame whose class-enable vector leaves the RoCE priority out pauses nothing", run: pfc_other_priority_ignored },
    Case { name: "pfc_holds_only_its_priority", rule: "IEEE 802.1Qbb: a PFC frame pauses only frames of the priorities it names: a QP whose DSCP maps to another priority keeps sending", run: pfc_holds_only_its_priority },
    Case { name: "pfc_lossless_priorities_each_their_time", rule: "IEEE 802.1Qbb: each lossless priority named by a PFC frame pauses for its own class time; a QP of a priority whose pause has ended sends while another priority stays paused", run: pfc_lossless_priorities_each_their_time },
    Case { name: "pause_802_3x_holds", rule: "IEEE 802.3 annex 31B: a PAUSE frame holds transmission, every priority, for its quanta", run: pause_802_3x_holds },
    Case { name: "cnp_on_ce_mark", rule: "annex A17.9: a CE-marked packet makes the notification point send a CNP (BECN) to the sender's QP, once per interval", run: cnp_on_ce_mark },
    Case { name: "ip_dscp_and_ecn_marking", rule: "annex A17.9, RFC 2474: the QP's packets carry its DSCP (GRH traffic class >> 2) and ECT(0), CNPs their own DSCP; with ECN off, Not-ECT; the IPv4 checksum covers the TOS", run: dscp_and_ecn_marking },
    Case { name: "pfc_xoff_xon_generated", rule: "802.1Qbb: a lossless priority whose frames in the receive buffer pass the XOFF mark gets PFC naming it alone (3, then 5, each counted apart) with the configured time, and XON (time 0) once drained; a lossy priority's frames send none; TX_PRIOn_PAUSE counts per priority; the frames decode as MAC Control PFC", run: pfc_xoff_xon_generated },
    Case { name: "cnp_received_counted", rule: "annex A17.9: a CNP for our QP reaches the reaction point (counted), answers nothing", run: cnp_received_counted },
    Case { name: "arp_request_answered", rule: "RFC 826: an ARP request for the port's address is answered by the NIC", run: arp_request_answered },
    Case { name: "rc_requester_coalesced_ack", rule: "9.7.6: one ACK acknowledges every earlier PSN; AckReq on the last packet", run: requester_coalesced_ack },
    Case { name: "rc_requester_go_back_n", rule: "9.7.5.1.1: after a sequence NAK the requester resends from the NAK's PSN", run: requester_go_back_n_from_nak_psn },
    Case { name: "rc_requester_timeout_resend", rule: "9.7.6: no ACK within the local ACK timeout: resend from the oldest unacknowledged PSN", run: requester_timeout_resends },
    Case { name: "rc_requester_rnr_wait", rule: "9.7.6: an RNR NAK is waited out for its timer code, then the request is resent", run: requester_rnr_wait },
    Case { name: "rc_requester_rem_access_err", rule: "9.7.6, 11.6.2: NAK 0x62 completes REM_ACCESS_ERR and the QP enters ERR", run: requester_rem_access_err },
    Case { name: "rc_requester_rem_inv_req", rule: "9.7.6: NAK 0x61 completes REM_INV_REQ_ERR", run: requester_rem_inv_req },
    Case { name: "rc_requester_rem_op_err", rule: "9.7.6: NAK 0x63 completes REM_OP_ERR", run: requester_rem_op_err },
    Case { name: "rc_requester_read", rule: "9.7.6: a READ completes only with its responses (an ACK does not), data lands in order", run: requester_read_lands_responses },
    Case { name: "rc_requester_read_nak_past_it", rule: "9.7.5.1.1, 9.7.6: a PSN sequence NAK past a READ acknowledges none of its PSNs: the READ is asked again at once, then lands", run: requester_read_nak_past_it_asks_again },
    Case { name: "rc_requester_read_cut_by_error", rule: "10.3.1, 11.6.2: a QP that leaves RTS while a READ response is being written withdraws the READ: it completes flushed and no further byte of that response lands", run: requester_read_cut_by_error_writes_no_more },
    Case { name: "rc_requester_send_segments", rule: "9.2, 9.7: a SEND is cut at the path MTU into FIRST/MIDDLE/LAST; AckReq and the solicited event bit only on the last", run: requester_send_segments },
    Case { name: "rc_requester_write_with_imm", rule: "9.4.4: WRITE with immediate: RETH (VA, R_Key, whole length) on FIRST only, ImmDt on WRITE LAST WITH IMMEDIATE", run: requester_write_with_imm },
    Case { name: "rc_requester_send_with_invalidate", rule: "9.3: SEND with invalidate is cut at the path MTU; the IETH (the R_Key from the work request) only on SEND LAST WITH INVALIDATE", run: requester_send_with_invalidate },
    Case { name: "rc_requester_atomic_fetch_add", rule: "9.4.5, 9.7.6: FETCH_ADD carries its AtomicETH; an ACK does not complete it, the ATOMIC ACKNOWLEDGE does and its original value lands in the local 8 bytes", run: requester_atomic_fetch_add },
];

/// Runs one case on a fresh pair; its frames go to `out_dir/<name>.pcap`.
pub fn run_case(case: &Case, out_dir: &std::path::Path) -> Result<(), String> {
    run_case_exporting(case, out_dir, None).map(|_| ())
}

/// [`run_case`], and when it passes and `export` names a directory, writes the case there as files
/// (`export/<name>/`, see [`crate::replay`]). Returns why a passing case could not be exported, if so.
pub fn run_case_exporting(
    case: &Case,
    out_dir: &std::path::Path,
    export: Option<&std::path::Path>,
) -> Result<Option<String>, String> {
    let pcap = out_dir.join(format!("{}.pcap", case.name));
    // Cases named `_scatter_` run on QPs with 128-byte receive WQEs (`max_recv_sge` 4).
    let mut params = PairParams::new(MTU as u32, 20_000);
    if case.name.contains("_scatter_") {
        params.max_recv_sge = rocenic_proto::host::MAX_RECV_SGE;
    }
    let mut b = Bench::with(params, pcap.clone())?;
    let r = (case.run)(&mut b);
    b.flush_pcap()?;
    r?;
    let Some(root) = export else {
        return Ok(None);
    };
    let rec = std::mem::take(&mut *b.rec.borrow_mut());
    if let Some(why) = rec.not_replayable {
        return Ok(Some(why));
    }
    replay::export(&root.join(case.name), case.name, case.rule, &b, &rec, &pcap)?;
    Ok(None)
}
