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

// ---- responder cases: B requests, A responds -------------------------------------------------------

fn write_only_ack(b: &mut Bench) -> Result<(), String> {
    let d = pattern(200, 1);
    let psn = b.take_psn(1);
    b.inject(
        b.frame(
            op::RC_RDMA_WRITE_ONLY,
            psn,
            b.reth(64, 200, b.mr.rkey()),
            &d,
            true,
        ),
        3000,
    );
    b.expect_ack(0x00, psn, Some(1))?;
    check!(b.mem_at(64, 200) == d, "data not written");
    Ok(())
}

fn write_first_middle_last(b: &mut Bench) -> Result<(), String> {
    let d = pattern(2 * MTU + 100, 2);
    let p = b.take_psn(3);
    b.inject_write_first_middle(p, 0, &d)?;
    b.inject(
        b.frame(
            op::RC_RDMA_WRITE_LAST,
            p + 2,
            ExtHeaders::default(),
            &d[2 * MTU..],
            true,
        ),
        2000,
    );
    b.expect_ack(0x00, p + 2, Some(1))?;
    check!(b.mem_at(0, d.len()) == d, "data differs");
    Ok(())
}

fn write_psn_seq_err_nak(b: &mut Bench) -> Result<(), String> {
    let d = pattern(64, 3);
    let expected = b.peer_psn;
    b.inject(
        b.frame(
            op::RC_RDMA_WRITE_ONLY,
            expected + 1,
            b.reth(0, 64, b.mr.rkey()),
            &d,
            true,
        ),
        3000,
    );
    b.expect_ack(0x60, expected, None)?;
    // One NAK per sequence error: a second out-of-order packet is not NAKed again.
    b.inject(
        b.frame(
            op::RC_RDMA_WRITE_ONLY,
            expected + 2,
            b.reth(0, 64, b.mr.rkey()),
            &d,
            true,
        ),
        3000,
    );
    b.expect_silence()?;
    check!(
        b.mem_at(0, 64) != d,
        "an out-of-sequence WRITE must not execute"
    );
    let p = b.take_psn(1);
    b.inject(
        b.frame(
            op::RC_RDMA_WRITE_ONLY,
            p,
            b.reth(0, 64, b.mr.rkey()),
            &d,
            true,
        ),
        3000,
    );
    b.expect_ack(0x00, p, Some(1))?;
    check!(b.counter(regs::RX_SEQ_ERRORS) == 2, "RX_SEQ_ERRORS");
    Ok(())
}

fn write_duplicate_reack(b: &mut Bench) -> Result<(), String> {
    let d = pattern(64, 4);
    let p = b.take_psn(1);
    b.inject(
        b.frame(
            op::RC_RDMA_WRITE_ONLY,
            p,
            b.reth(0, 64, b.mr.rkey()),
            &d,
            true,
        ),
        3000,
    );
    b.expect_ack(0x00, p, Some(1))?;
    let other = pattern(64, 99);
    b.inject(
        b.frame(
            op::RC_RDMA_WRITE_ONLY,
            p,
            b.reth(0, 64, b.mr.rkey()),
            &other,
            true,
        ),
        3000,
    );
    b.expect_ack(0x00, p, None)?;
    check!(b.mem_at(0, 64) == d, "a duplicate must not execute again");
    check!(b.counter(regs::RX_DUP_REQUESTS) == 1, "RX_DUP_REQUESTS");
    Ok(())
}

fn remote_access_nak(b: &mut Bench, ext: ExtHeaders, len: usize) -> Result<(), String> {
    let before = b.mem_at(0, 256);
    let p = b.take_psn(1);
    b.inject(
        b.frame(op::RC_RDMA_WRITE_ONLY, p, ext, &pattern(len, 5), true),
        3000,
    );
    b.expect_ack(0x62, p, None)?;
    check!(b.mem_at(0, 256) == before, "nothing may be written");
    check!(
        b.qp_state() == QpState::Err,
        "the responder QP must enter ERR (IBA 9.9.3)"
    );
    Ok(())
}

fn write_rkey_violation(b: &mut Bench) -> Result<(), String> {
    let e = b.reth(0, 64, b.mr.rkey() ^ 0x80);
    remote_access_nak(b, e, 64)
}

fn write_out_of_bounds(b: &mut Bench) -> Result<(), String> {
    let e = b.reth(REGION - 32, 64, b.mr.rkey());
    remote_access_nak(b, e, 64)
}

fn write_without_remote_write_access(b: &mut Bench) -> Result<(), String> {
    let e = ExtHeaders {
        reth: Some(RethRepr {
            va: b.local_mr.addr(),
            rkey: b.local_mr.rkey(),
            dma_len: 64,
        }),
        ..ExtHeaders::default()
    };
    remote_access_nak(b, e, 64)
}

fn write_mr_invalidated_mid_message(b: &mut Bench) -> Result<(), String> {
    let d = pattern(3 * MTU, 31);
    let p = b.take_psn(3);
    b.inject(
        b.frame(
            op::RC_RDMA_WRITE_FIRST,
            p,
            b.reth(0, d.len(), b.mr.rkey()),
            &d[..MTU],
            false,
        ),
        2000,
    );
    b.expect_silence()?;
    // The MR's table entry is invalidated (deregistered) while the message is in flight: its MIDDLE must
    // not land.
    b.set_reg(regs::MR_INDEX, b.mr.lkey() >> regs::MR_KEY_VARIANT_BITS);
    b.set_reg(regs::MR_CMD, regs::MR_CMD_INVALIDATE);
    let before = b.mem_at(MTU, MTU);
    b.inject(
        b.frame(
            op::RC_RDMA_WRITE_MIDDLE,
            p + 1,
            ExtHeaders::default(),
            &d[MTU..2 * MTU],
            false,
        ),
        2000,
    );
    b.expect_ack(0x62, p + 1, None)?;
    check!(
        b.mem_at(MTU, MTU) == before,
        "nothing may land after the MR is gone"
    );
    check!(b.qp_state() == QpState::Err, "QP to ERR");
    Ok(())
}

/// A RETH of zero length whose VA and R_Key match no MR: a zero-length access checks neither (C9-88).
fn zero_length_reth_matching_no_mr() -> ExtHeaders {
    ExtHeaders {
        reth: Some(RethRepr {
            va: 0xDEAD_0000,
            rkey: 0xBAD,
            dma_len: 0,
        }),
        ..ExtHeaders::default()
    }
}

fn write_zero_length_unchecked(b: &mut Bench) -> Result<(), String> {
    let p = b.take_psn(1);
    let e = zero_length_reth_matching_no_mr();
    b.inject(b.frame(op::RC_RDMA_WRITE_ONLY, p, e, &[], true), 3000);
    b.expect_ack(0x00, p, Some(1))?;
    check!(b.qp_state() == QpState::Rts, "still RTS");
    Ok(())
}

fn invalid_request_nak(b: &mut Bench, frame: Vec<u8>, psn: u32) -> Result<(), String> {
    b.inject(frame, 3000);
    b.expect_ack(0x61, psn, None)?;
    check!(
        b.qp_state() == QpState::Err,
        "the responder QP must enter ERR (IBA 9.9.3)"
    );
    Ok(())
}

fn write_middle_without_first(b: &mut Bench) -> Result<(), String> {
    let p = b.take_psn(1);
    let f = b.frame(
        op::RC_RDMA_WRITE_MIDDLE,
        p,
        ExtHeaders::default(),
        &pattern(MTU, 6),
        false,
    );
    invalid_request_nak(b, f, p)
}

fn write_length_mismatch(b: &mut Bench) -> Result<(), String> {
    let p = b.take_psn(1);
    let f = b.frame(
        op::RC_RDMA_WRITE_ONLY,
        p,
        b.reth(0, 100, b.mr.rkey()),
        &pattern(64, 7),
        true,
    );
    invalid_request_nak(b, f, p)
}

fn write_first_shorter_than_mtu(b: &mut Bench) -> Result<(), String> {
    let p = b.take_psn(1);
    let f = b.frame(
        op::RC_RDMA_WRITE_FIRST,
        p,
        b.reth(0, 3000, b.mr.rkey()),
        &pattern(512, 8),
        false,
    );
    invalid_request_nak(b, f, p)
}

fn send_only_to_receive(b: &mut Bench) -> Result<(), String> {
    b.post_recv(7, 0, 4096)?;
    let d = pattern(300, 9);
    let p = b.take_psn(1);
    b.inject(
        b.frame(op::RC_SEND_ONLY, p, ExtHeaders::default(), &d, true),
        3000,
    );
    b.expect_ack(0x00, p, Some(1))?;
    let wc = b.recv_wc()?;
    check!(
        (wc.status, wc.wr_id, wc.opcode, wc.byte_len, wc.imm_data)
            == (WcStatus::Success, 7, WcOpcode::Recv, 300, None),
        "completion {wc:?}"
    );
    let mut got = vec![0; 300];
    b.local.read(0, &mut got).unwrap();
    check!(got == d, "data differs");
    Ok(())
}

fn send_first_middle_last(b: &mut Bench) -> Result<(), String> {
    b.post_recv(8, 0, 8192)?;
    let d = pattern(2 * MTU + 5, 10);
    let p = b.take_psn(3);
    b.inject(
        b.frame(
            op::RC_SEND_FIRST,
            p,
            ExtHeaders::default(),
            &d[..MTU],
            false,
        ),
        2000,
    );
    b.inject(
        b.frame(
            op::RC_SEND_MIDDLE,
            p + 1,
            ExtHeaders::default(),
            &d[MTU..2 * MTU],
            false,
        ),
        2000,
    );
    b.inject(
        b.frame(
            op::RC_SEND_LAST,
            p + 2,
            ExtHeaders::default(),
            &d[2 * MTU..],
            true,
        ),
        2000,
    );
    b.expect_ack(0x00, p + 2, Some(1))?;
    let wc = b.recv_wc()?;
    check!(wc.byte_len as usize == d.len(), "byte_len {}", wc.byte_len);
    let mut got = vec![0; d.len()];
    b.local.read(0, &mut got).unwrap();
    check!(got == d, "data differs");
    Ok(())
}

fn send_rnr_nak_then_retry(b: &mut Bench) -> Result<(), String> {
    let d = pattern(100, 11);
    let p = b.take_psn(1);
    b.inject(
        b.frame(op::RC_SEND_ONLY, p, ExtHeaders::default(), &d, true),
        3000,
    );
    // RNR NAK: syndrome 0x20 | MIN_RNR_TIMER (1 in the pair set-up), the PSN not consumed.
    b.expect_ack(0x21, p, None)?;
    b.post_recv(9, 0, 4096)?;
    b.inject(
        b.frame(op::RC_SEND_ONLY, p, ExtHeaders::default(), &d, true),
        3000,
    );
    b.expect_ack(0x00, p, Some(1))?;
    check!(b.recv_wc()?.wr_id == 9, "completion");
    Ok(())
}

fn send_longer_than_receive(b: &mut Bench) -> Result<(), String> {
    b.post_recv(10, 0, 256)?;
    let p = b.take_psn(1);
    let f = b.frame(
        op::RC_SEND_ONLY,
        p,
        ExtHeaders::default(),
        &pattern(512, 12),
        true,
    );
    invalid_request_nak(b, f, p)
}

/// The receive WQE of a `_scatter_` case: entries in `local`, at `(offset, length)`.
fn scatter_list(b: &Bench, at: &[(usize, u32)]) -> Vec<Sge> {
    at.iter()
        .map(|&(off, length)| Sge {
            addr: b.local_mr.addr() + off as u64,
            length,
            lkey: b.local_mr.lkey(),
        })
        .collect()
}

fn send_scatter_list(b: &mut Bench) -> Result<(), String> {
    b.not_replayable("a receive WQE with a scatter list");
    const FILL: u8 = 0xEE;
    b.local.write(0, &[FILL; 8192]).unwrap();
    // Entries at odd offsets, out of address order, one of a single byte.
    let list = scatter_list(b, &[(4096 + 1, 700), (2000 + 3, 1), (5, 2000)]);
    // SAFETY: `local` lives as long as the bench, which outlives the case.
    unsafe {
        b.pair.a.qp.post_recv_scatter(&RecvWr {
            wr_id: 21,
            sg_list: &list,
        })
    }
    .map_err(|e| e.to_string())?;
    let d = pattern(2 * MTU + 300, 21);
    let p = b.take_psn(3);
    let ops = [op::RC_SEND_FIRST, op::RC_SEND_MIDDLE, op::RC_SEND_LAST];
    for (k, chunk) in d.chunks(MTU).enumerate() {
        let f = b.frame(ops[k], p + k as u32, ExtHeaders::default(), chunk, k == 2);
        b.inject(f, 2000);
    }
    b.expect_ack(0x00, p + 2, Some(1))?;
    let wc = b.recv_wc()?;
    check!(
        (wc.status, wc.wr_id, wc.opcode, wc.byte_len)
            == (WcStatus::Success, 21, WcOpcode::Recv, d.len() as u32),
        "completion {wc:?}"
    );
    let mut want = vec![FILL; 8192];
    let mut at = 0;
    for e in &list {
        let off = (e.addr - b.local_mr.addr()) as usize;
        let n = (e.length as usize).min(d.len() - at);
        want[off..off + n].copy_from_slice(&d[at..at + n]);
        at += n;
    }
    let mut got = vec![0; 8192];
    b.local.read(0, &mut got).unwrap();
    let bad = (0..got.len()).find(|&i| got[i] != want[i]);
    check!(bad.is_none(), "first wrong byte at local offset {bad:?}");
    Ok(())
}

fn send_malformed_scatter_list(b: &mut Bench) -> Result<(), String> {
    b.not_replayable("a receive WQE the driver would refuse");
    b.local.write(0, &[0xEE; 1200]).unwrap();
    let list = scatter_list(b, &[(0, 100), (1000, 200)]);
    let mut wqe = RecvWr {
        wr_id: 22,
        sg_list: &list,
    }
    .encode();
    // LENGTH one more than the entries hold: no list of these entries describes the buffer.
    let len = rocenic_proto::host::recv_wqe::LENGTH;
    wqe[len..len + 4].copy_from_slice(&301u32.to_le_bytes());
    // SAFETY: `local` lives as long as the bench, which outlives the case.
    unsafe { b.pair.a.qp.post_recv_wqe(22, &wqe) }.map_err(|e| e.to_string())?;
    let p = b.take_psn(1);
    b.inject(
        b.frame(
            op::RC_SEND_ONLY,
            p,
            ExtHeaders::default(),
            &pattern(50, 22),
            true,
        ),
        3000,
    );
    b.expect_ack(0x63, p, None)?;
    check!(
        b.qp_state() == QpState::Err,
        "the responder QP must enter ERR (IBA 9.9.3)"
    );
    let wc = b.recv_wc()?;
    check!(
        (wc.status, wc.wr_id) == (WcStatus::WrFlushErr, 22),
        "completion {wc:?}"
    );
    let mut got = vec![0; 1200];
    b.local.read(0, &mut got).unwrap();
    check!(
        got.iter().all(|&x| x == 0xEE),
        "a malformed WQE's buffers must not be written"
    );
    Ok(())
}

fn send_only_with_immediate(b: &mut Bench) -> Result<(), String> {
    b.post_recv(11, 0, 4096)?;
    let p = b.take_psn(1);
    b.inject(
        b.frame(
            op::RC_SEND_ONLY_WITH_IMMEDIATE,
            p,
            imm(0x1234_5678),
            &pattern(40, 13),
            true,
        ),
        3000,
    );
    b.expect_ack(0x00, p, Some(1))?;
    let wc = b.recv_wc()?;
    check!(
        wc.imm_data == Some(0x1234_5678) && wc.byte_len == 40,
        "completion {wc:?}"
    );
    Ok(())
}

/// The IETH of a SEND with invalidate.
fn ieth(rkey: u32) -> ExtHeaders {
    ExtHeaders {
        ieth: Some(IethRepr { rkey }),
        ..ExtHeaders::default()
    }
}

/// A SEND with invalidate (ONLY, or FIRST + LAST when `two`) naming an MR registered with
/// REMOTE_INVALIDATE: the message lands, the completion names the key, and the key is dead after.
fn send_with_invalidate(b: &mut Bench, two: bool) -> Result<(), String> {
    let all = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_INVALIDATE;
    let mr = b.reg_mr("remote", 0, 4096, all, false)?;
    b.post_recv(21, 0, 4096)?;
    let invals = b.counter(regs::RX_REMOTE_INVALIDATIONS);
    let d = pattern(if two { MTU + 40 } else { 40 }, 17);
    let p = b.take_psn(if two { 2 } else { 1 });
    if two {
        b.inject(
            b.frame(
                op::RC_SEND_FIRST,
                p,
                ExtHeaders::default(),
                &d[..MTU],
                false,
            ),
            2000,
        );
        b.expect_silence()?;
        check!(
            b.counter(regs::RX_REMOTE_INVALIDATIONS) == invals,
            "nothing invalidated before the last packet"
        );
    }
    let (last_op, last_psn, tail) = if two {
        (op::RC_SEND_LAST_WITH_INVALIDATE, p + 1, &d[MTU..])
    } else {
        (op::RC_SEND_ONLY_WITH_INVALIDATE, p, &d[..])
    };
    b.inject(
        b.frame(last_op, last_psn, ieth(mr.rkey()), tail, true),
        3000,
    );
    b.expect_ack(0x00, last_psn, Some(1))?;
    let wc = b.recv_wc()?;
    check!(
        wc.invalidated_rkey == Some(mr.rkey())
            && wc.imm_data.is_none()
            && wc.byte_len == d.len() as u32,
        "completion {wc:?}"
    );
    check!(local_at(b, 0, d.len()) == d, "the message lands");
    check!(
        b.counter(regs::RX_REMOTE_INVALIDATIONS) == invals + 1,
        "one entry invalidated"
    );
    check!(mr.is_invalidated(), "the driver sees the MR invalidated");
    // The key is dead: a WRITE with it is a remote access error.
    let e = b.reth(0, 64, mr.rkey());
    remote_access_nak(b, e, 64)
}

fn send_only_with_invalidate(b: &mut Bench) -> Result<(), String> {
    send_with_invalidate(b, false)
}

fn send_last_with_invalidate(b: &mut Bench) -> Result<(), String> {
    send_with_invalidate(b, true)
}

fn send_with_invalidate_not_allowed(b: &mut Bench) -> Result<(), String> {
    // The remote MR allows every remote access but not remote invalidation.
    b.post_recv(22, 0, 4096)?;
    let errs = b.counter(regs::RX_INVALIDATE_ERRORS);
    let p = b.take_psn(1);
    b.inject(
        b.frame(
            op::RC_SEND_ONLY_WITH_INVALIDATE,
            p,
            ieth(b.mr.rkey()),
            &pattern(40, 18),
            true,
        ),
        3000,
    );
    expect_fatal_nak(b, 0x61, p)?;
    check!(
        b.counter(regs::RX_INVALIDATE_ERRORS) == errs + 1,
        "counted in RX_INVALIDATE_ERRORS"
    );
    check!(!b.mr.is_invalidated(), "the MR is still valid");
    Ok(())
}

fn write_only_with_immediate(b: &mut Bench) -> Result<(), String> {
    b.post_recv(12, 0, 16)?;
    let d = pattern(96, 14);
    let p = b.take_psn(1);
    let mut e = b.reth(128, 96, b.mr.rkey());
    e.imm_dt = Some(ImmDtRepr { imm: 0xCAFE });
    b.inject(
        b.frame(op::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, p, e, &d, true),
        3000,
    );
    b.expect_ack(0x00, p, Some(1))?;
    let wc = b.recv_wc()?;
    check!(
        (wc.opcode, wc.imm_data, wc.byte_len) == (WcOpcode::RecvRdmaWithImm, Some(0xCAFE), 96),
        "completion {wc:?}"
    );
    check!(b.mem_at(128, 96) == d, "data at the RETH address");
    Ok(())
}

fn read_responses(b: &mut Bench, len: usize) -> Result<(), String> {
    let rkey = b.mr.rkey();
    let p = read_request(b, 256, len, rkey, MTU);
    let want = b.mem_at(256, len);
    expect_read_responses(b, p, &want, MTU, 1)
}

fn read_only_response(b: &mut Bench) -> Result<(), String> {
    read_responses(b, 100)
}

fn read_first_middle_last(b: &mut Bench) -> Result<(), String> {
    read_responses(b, 2 * MTU + 300)
}

fn read_duplicate_reexecute(b: &mut Bench) -> Result<(), String> {
    read_responses(b, 1500)?;
    // The same request again (a duplicate PSN): executed again, responses from its PSN.
    b.peer_psn = (b.peer_psn + 0xFF_FFFE) & 0xFF_FFFF;
    read_responses(b, 1500)?;
    check!(b.counter(regs::RX_DUP_REQUESTS) == 1, "RX_DUP_REQUESTS");
    Ok(())
}

fn read_without_remote_read(b: &mut Bench) -> Result<(), String> {
    let p = b.take_psn(1);
    let e = ExtHeaders {
        reth: Some(RethRepr {
            va: b.local_mr.addr(),
            rkey: b.local_mr.rkey(),
            dma_len: 64,
        }),
        ..ExtHeaders::default()
    };
    b.inject(b.frame(op::RC_RDMA_READ_REQUEST, p, e, &[], true), 3000);
    b.expect_ack(0x62, p, None)
}

fn atomic(
    b: &mut Bench,
    opcode: u8,
    off: usize,
    swap_add: u64,
    compare: u64,
    psn: u32,
) -> Result<u64, String> {
    let e = ExtHeaders {
        atomic_eth: Some(AtomicEthRepr {
            va: b.mr.addr() + off as u64,
            rkey: b.mr.rkey(),
            swap_add,
            compare,
        }),
        ..ExtHeaders::default()
    };
    b.inject(b.frame(opcode, psn, e, &[], true), 3000);
    let s = b.sent();
    check!(
        s.len() == 1 && s[0].bth.opcode == op::RC_ATOMIC_ACKNOWLEDGE,
        "expected ATOMIC ACKNOWLEDGE, got {}",
        names(&s)
    );
    check!(s[0].bth.psn == psn, "PSN {:#x}", s[0].bth.psn);
    let a = s[0].ext.aeth.ok_or("no AETH")?;
    check!(a.syndrome & 0xE0 == 0, "syndrome {:#x}", a.syndrome);
    Ok(s[0].ext.atomic_ack_eth.ok_or("no AtomicAckETH")?.orig_data)
}

fn word(b: &Bench, off: usize) -> u64 {
    u64::from_le_bytes(b.mem_at(off, 8).try_into().unwrap())
}

fn atomic_fetch_add(b: &mut Bench) -> Result<(), String> {
    let old = word(b, 8);
    let p = b.take_psn(1);
    let orig = atomic(b, op::RC_FETCH_ADD, 8, 5, 0, p)?;
    check!(orig == old, "original {orig:#x}, memory had {old:#x}");
    check!(word(b, 8) == old.wrapping_add(5), "word not added");
    Ok(())
}

fn atomic_compare_swap_hit_and_miss(b: &mut Bench) -> Result<(), String> {
    let old = word(b, 16);
    let p = b.take_psn(1);
    check!(
        atomic(b, op::RC_COMPARE_SWAP, 16, 77, old, p)? == old,
        "hit: original"
    );
    check!(word(b, 16) == 77, "hit: swapped");
    let p = b.take_psn(1);
    check!(
        atomic(b, op::RC_COMPARE_SWAP, 16, 88, 1, p)? == 77,
        "miss: original"
    );
    check!(word(b, 16) == 77, "miss: unchanged");
    Ok(())
}

fn atomic_replay(b: &mut Bench) -> Result<(), String> {
    let old = word(b, 24);
    let p = b.take_psn(1);
    check!(atomic(b, op::RC_FETCH_ADD, 24, 1, 0, p)? == old, "first");
    check!(
        atomic(b, op::RC_FETCH_ADD, 24, 1, 0, p)? == old,
        "the duplicate gets the saved result"
    );
    check!(word(b, 24) == old + 1, "executed once");
    Ok(())
}

/// The responder keeps the results of its last ATOMIC_RESULTS atomics (max_qp_rd_atom): a requester
/// with that many outstanding may ask for any of them again, in any order. One older has left the cache:
/// its duplicate is dropped and counted (as rdma_rxe's duplicate_request does for a resource it no longer
/// has), never executed again.
fn atomic_replay_depth(b: &mut Bench) -> Result<(), String> {
    let n = regs::ATOMIC_RESULTS as u32;
    let mut v = word(b, 32);
    let p = b.take_psn(n + 1);
    let psn = |i: u32| (p + i) & 0xFF_FFFF;
    let add = |i: u32| 1u64 << (8 * i);
    let mut orig = Vec::new();
    for i in 0..=n {
        let o = atomic(b, op::RC_FETCH_ADD, 32, add(i), 0, psn(i))?;
        check!(o == v, "atomic {i}: original {o:#x}, memory had {v:#x}");
        orig.push(o);
        v = v.wrapping_add(add(i));
    }
    // The newest ATOMIC_RESULTS, newest first then scattered: each gets its own result.
    let mut order: Vec<u32> = (1..=n).rev().collect();
    order.swap(0, 2);
    for i in order {
        let o = atomic(b, op::RC_FETCH_ADD, 32, add(i), 0, psn(i))?;
        check!(
            o == orig[i as usize],
            "duplicate of atomic {i}: {o:#x}, saved {:#x}",
            orig[i as usize]
        );
    }
    check!(
        word(b, 32) == v,
        "memory {:#x}: an atomic ran twice (want {v:#x})",
        word(b, 32)
    );
    let dups = b.counter(regs::RX_DUP_REQUESTS);
    let e = ExtHeaders {
        atomic_eth: Some(AtomicEthRepr {
            va: b.mr.addr() + 32,
            rkey: b.mr.rkey(),
            swap_add: add(0),
            compare: 0,
        }),
        ..ExtHeaders::default()
    };
    b.inject(b.frame(op::RC_FETCH_ADD, psn(0), e, &[], true), 3000);
    b.expect_silence()?;
    check!(
        b.counter(regs::RX_DUP_REQUESTS) == dups + 1,
        "the evicted duplicate not counted"
    );
    check!(word(b, 32) == v, "the evicted duplicate was executed");
    check!(b.qp_state() == QpState::Rts, "still RTS");
    Ok(())
}

fn atomic_misaligned(b: &mut Bench) -> Result<(), String> {
    let p = b.take_psn(1);
    let e = ExtHeaders {
        atomic_eth: Some(AtomicEthRepr {
            va: b.mr.addr() + 4,
            rkey: b.mr.rkey(),
            swap_add: 1,
            compare: 0,
        }),
        ..ExtHeaders::default()
    };
    let f = b.frame(op::RC_FETCH_ADD, p, e, &[], true);
    invalid_request_nak(b, f, p)
}

fn ignored(b: &mut Bench, frame: Vec<u8>, counter: u16) -> Result<(), String> {
    let before = b.counter(counter);
    b.inject(frame, 3000);
    b.expect_silence()?;
    check!(
        b.counter(counter) == before + 1,
        "counter {counter:#x} not counted"
    );
    check!(b.qp_state() == QpState::Rts, "still RTS");
    Ok(())
}

fn wrong_qpn_dropped(b: &mut Bench) -> Result<(), String> {
    let mut f = b.frame(
        op::RC_RDMA_WRITE_ONLY,
        b.peer_psn,
        b.reth(0, 8, b.mr.rkey()),
        &[1; 8],
        true,
    );
    let mut fr = Frame::parse(&f).unwrap();
    fr.bth.dest_qp = 0x99;
    fr.seal().unwrap();
    f = fr.emit();
    ignored(b, f, regs::RX_DROP_QP)
}

fn ud_opcode_on_rc_dropped(b: &mut Bench) -> Result<(), String> {
    let f = b.frame(
        op::UC_SEND_ONLY,
        b.peer_psn,
        ExtHeaders::default(),
        &[1; 8],
        false,
    );
    ignored(b, f, regs::RX_DROP_QP)
}

fn bad_icrc_dropped(b: &mut Bench) -> Result<(), String> {
    let mut f = b.frame(
        op::RC_RDMA_WRITE_ONLY,
        b.peer_psn,
        b.reth(0, 8, b.mr.rkey()),
        &[1; 8],
        true,
    );
    let n = f.len();
    f[n - 1] ^= 0x40; // inside the ICRC
    ignored(b, f, regs::RX_ICRC_ERRORS)
}

fn bad_ip_checksum_dropped(b: &mut Bench) -> Result<(), String> {
    let mut f = b.frame(
        op::RC_RDMA_WRITE_ONLY,
        b.peer_psn,
        b.reth(0, 8, b.mr.rkey()),
        &[1; 8],
        true,
    );
    f[24] ^= 0x01; // the IPv4 header checksum: masked out of the ICRC, so only the IP check catches it
    ignored(b, f, regs::RX_IP_CHECKSUM_ERRORS)
}

/// B's broadcast ARP request for A's address, padded to the Ethernet minimum.
fn arp_request_for_a() -> Vec<u8> {
    let mut f = arp_frame::emit(
        arp_frame::OPER_REQUEST,
        mac(1),
        ip(1).octets(),
        [0xFF; 6],
        [0; 6],
        ip(0).octets(),
    );
    f.resize(60, 0);
    f
}

fn arp_request_answered(b: &mut Bench) -> Result<(), String> {
    let f = arp_request_for_a();
    let before = b.counter(regs::TX_ARP_REPLIES);
    b.inject(f, 500);
    let raw = b.pair.fabric.lock().unwrap().take_sent(0);
    check!(raw.len() == 1, "one reply, A sent {}", raw.len());
    let r = &raw[0];
    check!(
        r[..6] == mac(1) && r[12..14] == [0x08, 0x06] && r[20..22] == [0, 2],
        "an ARP reply to the asker"
    );
    check!(
        r[22..28] == mac(0) && r[28..32] == ip(0).octets(),
        "with A's addresses"
    );
    check!(b.counter(regs::TX_ARP_REPLIES) == before + 1, "counted");
    Ok(())
}

/// `frame` with its IPv4 TOS byte set (ECN in the low two bits), resealed.
fn with_tos(frame: &[u8], tos: u8) -> Vec<u8> {
    let mut f = Frame::parse(frame).unwrap();
    if let IpRepr::V4(ip) = &mut f.ip {
        ip.tos = tos;
    }
    f.seal().unwrap();
    f.emit()
}

fn cnp_on_ce_mark(b: &mut Bench) -> Result<(), String> {
    let d = pattern(64, 30);
    let p = b.take_psn(1);
    // DSCP 0, ECN CE (0b11): the switch saw congestion.
    let f = with_tos(
        &b.frame(
            op::RC_RDMA_WRITE_ONLY,
            p,
            b.reth(0, 64, b.mr.rkey()),
            &d,
            true,
        ),
        0x03,
    );
    b.inject(f, 3000);
    let s = b.sent();
    let cnps: Vec<&Frame> = s.iter().filter(|f| f.bth.opcode == op::CNP).collect();
    let acks = s
        .iter()
        .filter(|f| f.bth.opcode == op::RC_ACKNOWLEDGE)
        .count();
    check!(
        cnps.len() == 1 && acks == 1,
        "expected one CNP and one ACK, A sent {}",
        names(&s)
    );
    let c = cnps[0];
    check!(c.bth.becn && !c.bth.fecn, "CNP BTH: BECN set, FECN clear");
    check!(
        c.bth.dest_qp == QPN && c.ext.cnp_pad.is_some(),
        "CNP to the sender's QP with 16 reserved bytes"
    );
    // A second CE packet within CNP_INTERVAL (50 us) is counted but gets no second CNP.
    let p = b.take_psn(1);
    let f = with_tos(
        &b.frame(
            op::RC_RDMA_WRITE_ONLY,
            p,
            b.reth(0, 64, b.mr.rkey()),
            &d,
            true,
        ),
        0x03,
    );
    b.inject(f, 3000);
    let s = b.sent();
    check!(
        s.iter().all(|f| f.bth.opcode != op::CNP),
        "no second CNP within the interval: {}",
        names(&s)
    );
    check!(
        b.counter(regs::ECN_MARKED_ROCE_PACKETS) == 2,
        "ECN_MARKED_ROCE_PACKETS"
    );
    check!(b.counter(regs::NP_CNP_SENT) == 1, "NP_CNP_SENT");
    Ok(())
}

/// A's frames since the last call as (TOS byte, IPv4 header checksum valid, parsed frame).
fn sent_tos(b: &Bench) -> Vec<(u8, bool, Frame)> {
    let raw = b.pair.fabric.lock().unwrap().take_sent(0);
    raw.iter()
        .filter_map(|r| {
            let f = Frame::parse(r).ok()?;
            let ok = Ipv4Packet::new_unchecked(&r[14..]).verify_checksum();
            Some((r[15], ok, f))
        })
        .collect()
}

fn dscp_and_ecn_marking(b: &mut Bench) -> Result<(), String> {
    // The QP's traffic class DSCP 26 (what `ibv_ah_attr.grh.traffic_class = 104` asks for), ECT(0).
    set_qp(b, &[(regs::QP_DSCP, 26)]);
    let d = pattern(64, 77);
    let p = b.take_psn(1);
    b.inject(write64(b, p, &d), 3000);
    let s = sent_tos(b);
    check!(s.len() == 1, "one ACK, A sent {}", s.len());
    check!(
        s[0].0 == (26 << 2 | 0b10) && s[0].1,
        "ACK TOS {:#04x} (want 0x6a: DSCP 26, ECT(0)), header checksum valid: {}",
        s[0].0,
        s[0].1
    );
    // A CE-marked request: the ACK keeps the QP's DSCP, the CNP has CNP_DSCP (48 after reset).
    let p = b.take_psn(1);
    b.inject(with_tos(&write64(b, p, &d), 0x03), 3000);
    let s = sent_tos(b);
    let cnp = s
        .iter()
        .find(|x| x.2.bth.opcode == op::CNP)
        .ok_or("no CNP")?;
    let ack = s
        .iter()
        .find(|x| x.2.bth.opcode == op::RC_ACKNOWLEDGE)
        .ok_or("no ACK")?;
    check!(
        cnp.0 == (48 << 2 | 0b10) && cnp.1,
        "CNP TOS {:#04x} (want 0xc2: DSCP 48, ECT(0)), checksum valid {}",
        cnp.0,
        cnp.1
    );
    check!(ack.0 == 0x6A && ack.1, "ACK TOS {:#04x}", ack.0);
    // ECN off (TX_ECN = 0): Not-ECT, the DSCP stays.
    set_reg(b, regs::TX_ECN, 0);
    let p = b.take_psn(1);
    b.inject(write64(b, p, &d), 3000);
    let s = sent_tos(b);
    check!(
        s.len() == 1 && s[0].0 == 26 << 2 && s[0].1,
        "ACK with ECN off: TOS {:?}",
        s.iter().map(|x| x.0).collect::<Vec<_>>()
    );
    Ok(())
}

fn pfc_xoff_xon_generated(b: &mut Bench) -> Result<(), String> {
    // A priority's frames in the receive buffer ask for a pause once they take 100 words, and release
    // it when gone.
    set_reg(b, regs::PFC_XOFF_WORDS, 100);
    set_reg(b, regs::PFC_XON_WORDS, 0);
    set_reg(b, regs::PFC_PAUSE_QUANTA, 0x1234);
    // Priorities 3 and 5 lossless, each counted apart: a WRITE at DSCP 26 (priority 3) pauses 3 alone,
    // one at DSCP 40 (priority 5) 5 alone, one at DSCP 0 (priority 0, lossy) nothing.
    let lossless = (1u16 << 3) | (1 << 5);
    set_reg(b, regs::PFC_ENABLE, lossless as u32);
    let d = pattern(1024, 88);
    for (dscp, prio) in [(26u8, Some(3)), (40, Some(5)), (0, None)] {
        let p = b.take_psn(1);
        let f = b.frame(
            op::RC_RDMA_WRITE_ONLY,
            p,
            b.reth(0, 1024, b.mr.rkey()),
            &d,
            true,
        );
        b.inject(with_tos(&f, dscp << 2), 3000);
        let raw = b.pair.fabric.lock().unwrap().take_sent(0);
        let pfc: Vec<&Vec<u8>> = raw.iter().filter(|f| f[12..14] == [0x88, 0x08]).collect();
        let Some(prio) = prio else {
            check!(
                pfc.is_empty(),
                "DSCP {dscp} (lossy): {} PFC frames",
                pfc.len()
            );
            continue;
        };
        check!(
            pfc.len() == 2,
            "DSCP {dscp}: an XOFF then an XON, A sent {} PFC frames",
            pfc.len()
        );
        // 802.1Qbb: to 01:80:C2:00:00:01 from the port, MAC Control opcode 0x0101, the class-enable
        // vector naming the priority, then eight 2-byte times (its own set); XON is time 0.
        for (f, time) in [(pfc[0], 0x1234), (pfc[1], 0)] {
            check!(
                f[..6] == [0x01, 0x80, 0xC2, 0, 0, 0x01] && f[6..12] == mac(0),
                "PFC addresses {:02x?}",
                &f[..12]
            );
            check!(f[14..16] == [0x01, 0x01], "opcode {:02x?}", &f[14..16]);
            let cev = u16::from_be_bytes([f[16], f[17]]);
            check!(
                cev == 1 << prio,
                "DSCP {dscp}: class-enable vector {cev:#06x}, expected priority {prio} alone"
            );
            for c in 0..8 {
                let t = u16::from_be_bytes([f[18 + 2 * c], f[19 + 2 * c]]);
                let want = if c == prio { time } else { 0 };
                check!(t == want, "class {c} time {t:#x}, expected {want:#x}");
            }
        }
        check!(
            raw.iter()
                .filter_map(|f| Frame::parse(f).ok())
                .any(|f| f.bth.opcode == op::RC_ACKNOWLEDGE),
            "the WRITE at DSCP {dscp} is still ACKed"
        );
        check!(b.mem_at(0, 1024) == d, "the WRITE landed");
    }
    check!(
        (b.counter(regs::TX_PFC_XOFF), b.counter(regs::TX_PFC_XON)) == (2, 2),
        "counted"
    );
    let per: Vec<u32> = (0..8)
        .map(|i| b.counter(regs::TX_PRIO0_PAUSE + 4 * i))
        .collect();
    check!(per == [0, 0, 0, 1, 0, 1, 0, 0], "TX_PRIOn_PAUSE {per:?}");
    Ok(())
}

fn cnp_received_counted(b: &mut Bench) -> Result<(), String> {
    let e = ExtHeaders {
        cnp_pad: Some(rocenic_proto::wire::CnpPadRepr { reserved: [0; 16] }),
        ..Default::default()
    };
    let mut f = Frame::parse(&b.frame(op::CNP, 0, e, &[], false)).unwrap();
    f.bth.becn = true;
    f.seal().unwrap();
    b.inject(f.emit(), 2000);
    b.expect_silence()?;
    check!(b.counter(regs::RP_CNP_HANDLED) == 1, "RP_CNP_HANDLED");
    check!(b.counter(regs::RX_DROP_QP) == 0, "a CNP is not a drop");
    Ok(())
}

// ---- more responder cases: READ ------------------------------------------------------------------

/// A's register `off` written as the host would (the core's view: path MTU, QP state, ...).
fn set_reg(b: &Bench, off: u16, v: u32) {
    b.set_reg(off, v);
}

/// Changes attributes of A's QP behind the driver's back: the window registers, then QP_CMD MODIFY.
fn set_qp(b: &Bench, writes: &[(u16, u32)]) {
    set_reg(b, regs::QPN, QPN);
    for &(off, v) in writes {
        set_reg(b, off, v);
    }
    set_reg(b, regs::QP_CMD, 1);
}

/// Path MTU `1 << lg` on A's QP (the PMTU register the RTR transition programs).
fn set_pmtu(b: &Bench, lg: u32) -> usize {
    set_qp(b, &[(regs::PMTU, lg)]);
    1 << lg
}

/// `frame` re-parsed, changed by `f`, resealed (lengths, checksum, ICRC) and padded to 60 bytes.
fn edited(frame: &[u8], f: impl FnOnce(&mut Frame)) -> Vec<u8> {
    let mut fr = Frame::parse(frame).unwrap();
    f(&mut fr);
    fr.seal().unwrap();
    let mut out = fr.emit();
    if out.len() < 60 {
        out.resize(60, 0);
    }
    out
}

/// B asks A for `len` bytes at `off` of the region with `rkey` at the peer's next PSN; the READ takes one
/// PSN per response at path MTU `mtu`. Returns the request's PSN.
fn read_request(b: &mut Bench, off: usize, len: usize, rkey: u32, mtu: usize) -> u32 {
    let p = b.peer_psn;
    b.take_psn(len.div_ceil(mtu).max(1) as u32);
    b.inject(
        b.frame(
            op::RC_RDMA_READ_REQUEST,
            p,
            b.reth(off, len, rkey),
            &[],
            true,
        ),
        6000,
    );
    p
}

/// A's frames since the last call must be exactly the READ responses carrying `want` at path MTU `mtu`:
/// ONLY, or FIRST, MIDDLE..., LAST; PSNs from `psn` one per response; an AETH (ACK, MSN `msn`) on all but
/// MIDDLE; each payload one MTU but the last, in order.
fn expect_read_responses(
    b: &Bench,
    psn: u32,
    want: &[u8],
    mtu: usize,
    msn: u32,
) -> Result<(), String> {
    let s = b.sent();
    let n = want.len().div_ceil(mtu).max(1);
    check!(
        s.len() == n,
        "{} responses for {n} PSNs: {}",
        s.len(),
        names(&s)
    );
    for (i, f) in s.iter().enumerate() {
        let opc = if n == 1 {
            op::RC_RDMA_READ_RESPONSE_ONLY
        } else if i == 0 {
            op::RC_RDMA_READ_RESPONSE_FIRST
        } else if i == n - 1 {
            op::RC_RDMA_READ_RESPONSE_LAST
        } else {
            op::RC_RDMA_READ_RESPONSE_MIDDLE
        };
        check!(
            f.bth.opcode == opc,
            "response {i}: {} instead of {}",
            f.opcode_name(),
            op::name(opc)
        );
        check!(
            f.bth.psn == (psn + i as u32) & 0xFF_FFFF,
            "response {i}: PSN {:#x}, expected {:#x}",
            f.bth.psn,
            (psn + i as u32) & 0xFF_FFFF
        );
        check!(
            f.bth.dest_qp == QPN,
            "response {i}: to QP {:#x}",
            f.bth.dest_qp
        );
        let has_aeth = opc != op::RC_RDMA_READ_RESPONSE_MIDDLE;
        check!(
            f.ext.aeth.is_some() == has_aeth,
            "response {i}: AETH presence"
        );
        if let Some(a) = f.ext.aeth {
            check!(
                a.syndrome & 0xE0 == 0 && a.msn == msn,
                "response {i}: AETH {a:?}, expected an ACK with MSN {msn}"
            );
        }
        let chunk = &want[(i * mtu).min(want.len())..((i + 1) * mtu).min(want.len())];
        check!(
            f.payload == chunk,
            "response {i}: {} payload bytes differ from memory ({} expected)",
            f.payload.len(),
            chunk.len()
        );
    }
    Ok(())
}

/// A's frames since the last call must be one NAK `syndrome` at `psn` and nothing else, and the responder
/// QP must be in ERR (IBA 9.9.3).
fn expect_fatal_nak(b: &Bench, syndrome: u8, psn: u32) -> Result<(), String> {
    b.expect_ack(syndrome, psn, None)?;
    check!(
        b.qp_state() == QpState::Err,
        "the responder QP must enter ERR (IBA 9.9.3)"
    );
    Ok(())
}

fn read_rkey_violation(b: &mut Bench) -> Result<(), String> {
    let rkey = b.mr.rkey() ^ 0x80;
    let p = read_request(b, 0, 64, rkey, MTU);
    expect_fatal_nak(b, 0x62, p)?;
    check!(
        b.counter(regs::RX_REMOTE_ACCESS_ERRORS) == 1,
        "RX_REMOTE_ACCESS_ERRORS"
    );
    Ok(())
}

fn read_out_of_bounds(b: &mut Bench) -> Result<(), String> {
    // Starts inside the MR, ends 512 bytes past it.
    let rkey = b.mr.rkey();
    let p = read_request(b, REGION - 512, MTU, rkey, MTU);
    expect_fatal_nak(b, 0x62, p)
}

fn read_any_byte_address(b: &mut Bench) -> Result<(), String> {
    // READs from VAs off the beat, within one beat, across beats, over several MTUs (every response
    // starts where the one before ended, so all but the first are off the beat too), and ending in the
    // MR's last byte (the beat-aligned reads under it stay inside the region).
    let rkey = b.mr.rkey();
    let cases = [
        (1usize, 5usize),
        (3, 64),
        (7, 100),
        (13, 3 * MTU + 17),
        (REGION - 33, 33),
    ];
    for (msn, &(off, len)) in cases.iter().enumerate() {
        let p = read_request(b, off, len, rkey, MTU);
        let want = b.mem_at(off, len);
        expect_read_responses(b, p, &want, MTU, msn as u32 + 1)
            .map_err(|e| format!("READ of {len} at VA offset {off}: {e}"))?;
    }
    check!(b.qp_state() == QpState::Rts, "still RTS");
    Ok(())
}

fn write_any_byte_address(b: &mut Bench) -> Result<(), String> {
    // WRITE ONLY packets to VAs 1 to 5 bytes past a beat boundary, up to a whole MTU; the bytes around
    // the target keep their old value.
    let rkey = b.mr.rkey();
    for (i, (off, len)) in [(1usize, 7usize), (5, MTU), (3, 100)]
        .into_iter()
        .enumerate()
    {
        let before = b.mem_at(0, off + len + 64);
        let d = pattern(len, 50 + i as u8);
        let p = b.take_psn(1);
        b.inject(
            b.frame(op::RC_RDMA_WRITE_ONLY, p, b.reth(off, len, rkey), &d, true),
            3000,
        );
        b.expect_ack(0x00, p, None)?;
        let after = b.mem_at(0, off + len + 64);
        check!(
            after[off..off + len] == d[..],
            "WRITE of {len} at VA offset {off} lands"
        );
        check!(
            after[..off] == before[..off] && after[off + len..] == before[off + len..],
            "WRITE of {len} at VA offset {off} changes nothing around it"
        );
    }
    Ok(())
}

fn read_zero_length(b: &mut Bench) -> Result<(), String> {
    // No memory is accessed: a VA and R_Key that match no MR are not checked.
    let p = b.take_psn(1);
    let e = zero_length_reth_matching_no_mr();
    b.inject(b.frame(op::RC_RDMA_READ_REQUEST, p, e, &[], true), 3000);
    expect_read_responses(b, p, &[], MTU, 1)?;
    check!(b.qp_state() == QpState::Rts, "still RTS");
    // It took exactly one PSN: the next request is in sequence.
    let d = pattern(32, 40);
    let p = b.take_psn(1);
    b.inject(
        b.frame(
            op::RC_RDMA_WRITE_ONLY,
            p,
            b.reth(0, 32, b.mr.rkey()),
            &d,
            true,
        ),
        3000,
    );
    b.expect_ack(0x00, p, Some(2))?;
    check!(b.mem_at(0, 32) == d, "the following WRITE lands");
    Ok(())
}

fn read_mtu_boundaries(b: &mut Bench) -> Result<(), String> {
    let rkey = b.mr.rkey();
    let mut msn = 0;
    for lg in 8..=12 {
        let mtu = set_pmtu(b, lg);
        // Exactly one MTU: one READ RESPONSE ONLY; one byte more: FIRST (a full MTU) and LAST (one byte).
        for len in [mtu, mtu + 1] {
            let off = 64;
            let p = read_request(b, off, len, rkey, mtu);
            msn += 1;
            let want = b.mem_at(off, len);
            expect_read_responses(b, p, &want, mtu, msn)
                .map_err(|e| format!("MTU {mtu}, READ of {len}: {e}"))?;
        }
    }
    Ok(())
}

fn read_psn_seq_err_nak(b: &mut Bench) -> Result<(), String> {
    let expected = b.peer_psn;
    b.inject(
        b.frame(
            op::RC_RDMA_READ_REQUEST,
            expected + 1,
            b.reth(0, 100, b.mr.rkey()),
            &[],
            true,
        ),
        3000,
    );
    // A NAK with the expected PSN, no READ response.
    b.expect_ack(0x60, expected, None)?;
    check!(b.counter(regs::RX_SEQ_ERRORS) == 1, "RX_SEQ_ERRORS");
    let rkey = b.mr.rkey();
    let p = read_request(b, 0, 100, rkey, MTU);
    let want = b.mem_at(0, 100);
    expect_read_responses(b, p, &want, MTU, 1)
}

fn read_duplicate_partial(b: &mut Bench) -> Result<(), String> {
    let rkey = b.mr.rkey();
    let p = read_request(b, 256, 3 * MTU, rkey, MTU);
    let want = b.mem_at(256, 3 * MTU);
    expect_read_responses(b, p, &want, MTU, 1)?;
    // The requester lost the responses from p + 1 on and asks again for the rest only: PSN p + 1, the VA
    // and length moved on by one MTU. The responses restart at that PSN.
    b.inject(
        b.frame(
            op::RC_RDMA_READ_REQUEST,
            p + 1,
            b.reth(256 + MTU, 2 * MTU, rkey),
            &[],
            true,
        ),
        6000,
    );
    expect_read_responses(b, p + 1, &want[MTU..], MTU, 1)?;
    check!(b.counter(regs::RX_DUP_REQUESTS) == 1, "RX_DUP_REQUESTS");
    // The expected PSN did not move: the next new request follows the first READ.
    let p = read_request(b, 0, 100, rkey, MTU);
    let want = b.mem_at(0, 100);
    expect_read_responses(b, p, &want, MTU, 2)
}

// ---- more responder cases: atomics ----------------------------------------------------------------

fn atomic_eth(va: u64, rkey: u32, swap_add: u64, compare: u64) -> ExtHeaders {
    ExtHeaders {
        atomic_eth: Some(AtomicEthRepr {
            va,
            rkey,
            swap_add,
            compare,
        }),
        ..ExtHeaders::default()
    }
}

/// An atomic with `ext` must get a remote access error NAK, leave the word at `off` alone, and put the QP
/// in ERR.
fn atomic_access_nak(b: &mut Bench, opcode: u8, ext: ExtHeaders, off: usize) -> Result<(), String> {
    let before = b.mem_at(off, 8);
    let p = b.take_psn(1);
    b.inject(b.frame(opcode, p, ext, &[], true), 3000);
    expect_fatal_nak(b, 0x62, p)?;
    check!(b.mem_at(off, 8) == before, "the word must not change");
    check!(
        b.counter(regs::RX_REMOTE_ACCESS_ERRORS) == 1,
        "RX_REMOTE_ACCESS_ERRORS"
    );
    Ok(())
}

fn atomic_without_remote_atomic(b: &mut Bench) -> Result<(), String> {
    // A third MR over the first 4 KiB of the region: remote WRITE and READ, but not ATOMIC.
    let rw = b.reg_mr(
        "remote",
        0,
        4096,
        AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ,
        false,
    )?;
    // The MR and its R_Key are good for a WRITE ...
    let d = pattern(64, 41);
    let p = b.take_psn(1);
    let e = ExtHeaders {
        reth: Some(RethRepr {
            va: rw.addr() + 128,
            rkey: rw.rkey(),
            dma_len: 64,
        }),
        ..ExtHeaders::default()
    };
    b.inject(b.frame(op::RC_RDMA_WRITE_ONLY, p, e, &d, true), 3000);
    b.expect_ack(0x00, p, Some(1))?;
    check!(b.mem_at(128, 64) == d, "the WRITE lands");
    // ... but not for an atomic.
    let e = atomic_eth(rw.addr() + 256, rw.rkey(), 1, 0);
    atomic_access_nak(b, op::RC_FETCH_ADD, e, 256)
}

fn atomic_out_of_bounds(b: &mut Bench) -> Result<(), String> {
    // The MR's last word works; the word just past its end does not.
    let old = word(b, REGION - 8);
    let p = b.take_psn(1);
    check!(
        atomic(b, op::RC_FETCH_ADD, REGION - 8, 3, 0, p)? == old,
        "last word: original"
    );
    check!(
        word(b, REGION - 8) == old.wrapping_add(3),
        "last word: added"
    );
    let e = atomic_eth(b.mr.addr() + REGION as u64, b.mr.rkey(), 3, 0);
    let before = b.mem_at(REGION - 8, 8);
    let p = b.take_psn(1);
    b.inject(b.frame(op::RC_FETCH_ADD, p, e, &[], true), 3000);
    expect_fatal_nak(b, 0x62, p)?;
    check!(b.mem_at(REGION - 8, 8) == before, "nothing changes");
    Ok(())
}

fn atomic_rkey_violation(b: &mut Bench) -> Result<(), String> {
    let old = word(b, 48);
    let e = atomic_eth(b.mr.addr() + 48, b.mr.rkey() ^ 0x80, 99, old);
    atomic_access_nak(b, op::RC_COMPARE_SWAP, e, 48)
}

fn atomic_fetch_add_wraps(b: &mut Bench) -> Result<(), String> {
    b.host_write("remote", 40, &0xFFFF_FFFF_FFFF_FFF0u64.to_le_bytes())?;
    let around = (b.mem_at(32, 8), b.mem_at(48, 8));
    let p = b.take_psn(1);
    let orig = atomic(b, op::RC_FETCH_ADD, 40, 0x25, 0, p)?;
    check!(orig == 0xFFFF_FFFF_FFFF_FFF0, "original {orig:#x}");
    check!(
        word(b, 40) == 0x15,
        "sum {:#x}, expected 0x15 (modulo 2^64)",
        word(b, 40)
    );
    check!(
        (b.mem_at(32, 8), b.mem_at(48, 8)) == around,
        "the neighbouring words must not change"
    );
    Ok(())
}

// ---- more responder cases: WRITE -----------------------------------------------------------------

fn write_last_with_immediate(b: &mut Bench) -> Result<(), String> {
    b.post_recv(13, 0, 16)?;
    let d = pattern(2 * MTU + 50, 42);
    let p = b.take_psn(3);
    b.inject_write_first_middle(p, 512, &d)?;
    b.inject(
        b.frame(
            op::RC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
            p + 2,
            imm(0xABCD_0123),
            &d[2 * MTU..],
            true,
        ),
        3000,
    );
    b.expect_ack(0x00, p + 2, Some(1))?;
    let wc = b.recv_wc()?;
    check!(
        (wc.status, wc.wr_id, wc.opcode, wc.imm_data, wc.byte_len)
            == (
                WcStatus::Success,
                13,
                WcOpcode::RecvRdmaWithImm,
                Some(0xABCD_0123),
                d.len() as u32
            ),
        "completion {wc:?}"
    );
    check!(b.mem_at(512, d.len()) == d, "data at the RETH address");
    Ok(())
}

fn write_each_path_mtu(b: &mut Bench) -> Result<(), String> {
    let mut msn = 0;
    for lg in 8..=12 {
        let mtu = set_pmtu(b, lg);
        // WRITE ONLY of exactly one MTU.
        let d = pattern(mtu, lg as u8);
        let p = b.take_psn(1);
        b.inject(
            b.frame(
                op::RC_RDMA_WRITE_ONLY,
                p,
                b.reth(0, mtu, b.mr.rkey()),
                &d,
                true,
            ),
            3000,
        );
        msn += 1;
        b.expect_ack(0x00, p, Some(msn))
            .map_err(|e| format!("MTU {mtu}, ONLY: {e}"))?;
        check!(b.mem_at(0, mtu) == d, "MTU {mtu}: ONLY data");
        // One byte more: FIRST with a full MTU, LAST with one byte.
        let d = pattern(mtu + 1, 0x80 | lg as u8);
        let p = b.take_psn(2);
        b.inject(
            b.frame(
                op::RC_RDMA_WRITE_FIRST,
                p,
                b.reth(8192, mtu + 1, b.mr.rkey()),
                &d[..mtu],
                false,
            ),
            3000,
        );
        b.inject(
            b.frame(
                op::RC_RDMA_WRITE_LAST,
                p + 1,
                ExtHeaders::default(),
                &d[mtu..],
                true,
            ),
            3000,
        );
        msn += 1;
        b.expect_ack(0x00, p + 1, Some(msn))
            .map_err(|e| format!("MTU {mtu}, FIRST + LAST: {e}"))?;
        check!(b.mem_at(8192, mtu + 1) == d, "MTU {mtu}: FIRST + LAST data");
    }
    // Back at 256: a WRITE ONLY one byte over the path MTU is an invalid request.
    let mtu = set_pmtu(b, 8);
    let p = b.take_psn(1);
    let before = b.mem_at(16384, mtu + 1);
    b.inject(
        b.frame(
            op::RC_RDMA_WRITE_ONLY,
            p,
            b.reth(16384, mtu + 1, b.mr.rkey()),
            &pattern(mtu + 1, 43),
            true,
        ),
        3000,
    );
    expect_fatal_nak(b, 0x61, p)?;
    check!(b.mem_at(16384, mtu + 1) == before, "nothing written");
    Ok(())
}

fn write_first_without_last(b: &mut Bench) -> Result<(), String> {
    let p = b.take_psn(2);
    b.inject(
        b.frame(
            op::RC_RDMA_WRITE_FIRST,
            p,
            b.reth(0, 2 * MTU, b.mr.rkey()),
            &pattern(MTU, 44),
            false,
        ),
        2000,
    );
    b.expect_silence()?;
    // A new FIRST while the first WRITE still waits for its LAST: invalid opcode sequence.
    let before = b.mem_at(8192, MTU);
    b.inject(
        b.frame(
            op::RC_RDMA_WRITE_FIRST,
            p + 1,
            b.reth(8192, 2 * MTU, b.mr.rkey()),
            &pattern(MTU, 45),
            true,
        ),
        3000,
    );
    expect_fatal_nak(b, 0x61, p + 1)?;
    check!(
        b.mem_at(8192, MTU) == before,
        "the second FIRST must not land"
    );
    Ok(())
}

fn write_psn_wrap(b: &mut Bench) -> Result<(), String> {
    // Single-packet WRITEs up to PSN 0xFFFFFD, then a four-packet WRITE on 0xFFFFFE, 0xFFFFFF, 0, 1.
    let mut msn = 0;
    while b.peer_psn != 0xFF_FFFE {
        let p = b.take_psn(1);
        b.inject(
            b.frame(
                op::RC_RDMA_WRITE_ONLY,
                p,
                b.reth(32768, 8, b.mr.rkey()),
                &[p as u8; 8],
                true,
            ),
            1500,
        );
        msn += 1;
        b.expect_ack(0x00, p, Some(msn))?;
    }
    let d = pattern(4 * MTU, 46);
    let p = b.take_psn(4);
    for i in 0..4u32 {
        let (opc, ext) = match i {
            0 => (op::RC_RDMA_WRITE_FIRST, b.reth(0, d.len(), b.mr.rkey())),
            3 => (op::RC_RDMA_WRITE_LAST, ExtHeaders::default()),
            _ => (op::RC_RDMA_WRITE_MIDDLE, ExtHeaders::default()),
        };
        let k = i as usize;
        b.inject(
            b.frame(opc, p + i, ext, &d[k * MTU..(k + 1) * MTU], i == 3),
            2000,
        );
    }
    msn += 1;
    b.expect_ack(0x00, 1, Some(msn))?;
    check!(b.mem_at(0, d.len()) == d, "data across the wrap");
    // 0xFFFFFF is behind 1 across the wrap: a duplicate, re-ACKed with PSN 1, not executed.
    let before = b.mem_at(MTU, MTU);
    b.inject(
        b.frame(
            op::RC_RDMA_WRITE_MIDDLE,
            0xFF_FFFF,
            ExtHeaders::default(),
            &pattern(MTU, 47),
            true,
        ),
        3000,
    );
    b.expect_ack(0x00, 1, Some(msn))?;
    check!(b.mem_at(MTU, MTU) == before, "the duplicate must not land");
    check!(b.counter(regs::RX_DUP_REQUESTS) == 1, "RX_DUP_REQUESTS");
    check!(b.counter(regs::RX_SEQ_ERRORS) == 0, "no sequence error");
    Ok(())
}

fn write_duplicate_older_psn(b: &mut Bench) -> Result<(), String> {
    let p = b.take_psn(3);
    let first = pattern(64, 48);
    for i in 0..3u32 {
        let d = if i == 0 {
            first.clone()
        } else {
            pattern(64, i as u8)
        };
        b.inject(
            b.frame(
                op::RC_RDMA_WRITE_ONLY,
                p + i,
                b.reth(64 * i as usize, 64, b.mr.rkey()),
                &d,
                true,
            ),
            3000,
        );
        b.expect_ack(0x00, p + i, Some(i + 1))?;
    }
    // The oldest of the three again, with other data: not executed; the re-ACK carries the newest PSN
    // executed, which acknowledges it too.
    b.inject(
        b.frame(
            op::RC_RDMA_WRITE_ONLY,
            p,
            b.reth(0, 64, b.mr.rkey()),
            &pattern(64, 49),
            true,
        ),
        3000,
    );
    b.expect_ack(0x00, p + 2, Some(3))?;
    check!(
        b.mem_at(0, 64) == first,
        "a duplicate must not execute again"
    );
    check!(b.counter(regs::RX_DUP_REQUESTS) == 1, "RX_DUP_REQUESTS");
    // The expected PSN is unchanged.
    let q = b.take_psn(1);
    b.inject(
        b.frame(
            op::RC_RDMA_WRITE_ONLY,
            q,
            b.reth(256, 8, b.mr.rkey()),
            &[7; 8],
            true,
        ),
        3000,
    );
    b.expect_ack(0x00, q, Some(4))
}

fn write_ackreq_clear_coalesced(b: &mut Bench) -> Result<(), String> {
    let p = b.take_psn(4);
    let mut all = Vec::new();
    for i in 0..4u32 {
        let d = pattern(64, 50 + i as u8);
        b.inject(
            b.frame(
                op::RC_RDMA_WRITE_ONLY,
                p + i,
                b.reth(64 * i as usize, 64, b.mr.rkey()),
                &d,
                i == 3,
            ),
            3000,
        );
        all.extend_from_slice(&d);
        if i < 3 {
            // Executed, but AckReq is clear: no ACK yet.
            b.expect_silence()?;
            check!(
                b.mem_at(64 * i as usize, 64) == d,
                "WRITE {i} executes without AckReq"
            );
        }
    }
    // One ACK for the packet that asked, covering the three before it.
    b.expect_ack(0x00, p + 3, Some(4))?;
    check!(b.mem_at(0, 256) == all, "all four landed");
    check!(b.counter(regs::TX_ACKS) == 1, "TX_ACKS");
    Ok(())
}

/// A WRITE ONLY of 64 bytes at offset 0 with AckReq, at `psn`.
fn write64(b: &Bench, psn: u32, d: &[u8]) -> Vec<u8> {
    b.frame(
        op::RC_RDMA_WRITE_ONLY,
        psn,
        b.reth(0, 64, b.mr.rkey()),
        d,
        true,
    )
}

fn write_in_rtr(b: &mut Bench) -> Result<(), String> {
    // The QP back in RTR (QP_STATE = 2): the responder works, the requester side does not send.
    set_qp(b, &[(regs::QP_STATE, QpState::Rtr as u32)]);
    let d = pattern(64, 55);
    let p = b.take_psn(1);
    b.inject(write64(b, p, &d), 3000);
    b.expect_ack(0x00, p, Some(1))?;
    check!(b.mem_at(0, 64) == d, "data written in RTR");
    Ok(())
}

fn write_in_init_dropped(b: &mut Bench) -> Result<(), String> {
    set_qp(b, &[(regs::QP_STATE, QpState::Init as u32)]);
    let before = b.mem_at(0, 64);
    let d = pattern(64, 56);
    let p = b.take_psn(1);
    let drops = b.counter(regs::RX_DROP_QP);
    b.inject(write64(b, p, &d), 3000);
    b.expect_silence()?;
    check!(b.counter(regs::RX_DROP_QP) == drops + 1, "RX_DROP_QP");
    check!(b.mem_at(0, 64) == before, "nothing written in INIT");
    // Back in RTS the same packet is still the expected one: the drop consumed nothing.
    set_qp(b, &[(regs::QP_STATE, QpState::Rts as u32)]);
    b.inject(write64(b, p, &d), 3000);
    b.expect_ack(0x00, p, Some(1))?;
    check!(b.mem_at(0, 64) == d, "written in RTS");
    Ok(())
}

fn packet_from_another_source_dropped(b: &mut Bench) -> Result<(), String> {
    let (good, p, d) = good_write(b, 78);
    let stranger = |f: &mut Frame| {
        if let IpRepr::V4(ip) = &mut f.ip {
            ip.src[3] ^= 0x40;
        }
    };
    let bad = edited(&good, stranger);
    check!(bad != good, "the source address must change");
    let read = edited(
        &b.frame(
            op::RC_RDMA_READ_REQUEST,
            p,
            b.reth(0, 64, b.mr.rkey()),
            &[],
            true,
        ),
        stranger,
    );
    let before = b.mem_at(0, 64);
    let (src, qp) = (
        b.counter(regs::RX_DROP_SRC_ADDR),
        b.counter(regs::RX_DROP_QP),
    );
    b.inject(bad, 3000);
    b.expect_silence()?;
    b.inject(read, 3000);
    b.expect_silence()?;
    check!(
        b.counter(regs::RX_DROP_SRC_ADDR) == src + 2,
        "RX_DROP_SRC_ADDR counts both"
    );
    check!(b.counter(regs::RX_DROP_QP) == qp, "not a QP-state drop");
    check!(
        b.counter(regs::RX_ICRC_ERRORS) == 0,
        "the frames' ICRC is good: only the source address may drop them"
    );
    check!(b.mem_at(0, 64) == before, "nothing written");
    // From the peer the same packet is still the expected one: the drops consumed no PSN.
    b.inject(good, 3000);
    b.expect_ack(0x00, p, Some(1))?;
    check!(b.mem_at(0, 64) == d, "the peer's WRITE lands");
    Ok(())
}

fn write_in_err_dropped(b: &mut Bench) -> Result<(), String> {
    b.modify(rocenic_driver::verbs::QpAttr::Err)?;
    check!(b.qp_state() == QpState::Err, "QP in ERR");
    let before = b.mem_at(0, 64);
    let drops = b.counter(regs::RX_DROP_QP);
    let p = b.take_psn(1);
    b.inject(write64(b, p, &pattern(64, 57)), 3000);
    b.expect_silence()?;
    check!(b.mem_at(0, 64) == before, "nothing written in ERR");
    // A READ gets no response either.
    b.inject(
        b.frame(
            op::RC_RDMA_READ_REQUEST,
            p,
            b.reth(0, 64, b.mr.rkey()),
            &[],
            true,
        ),
        3000,
    );
    b.expect_silence()?;
    check!(b.counter(regs::RX_DROP_QP) == drops + 2, "RX_DROP_QP");
    Ok(())
}

fn write_in_sqd(b: &mut Bench) -> Result<(), String> {
    b.modify(rocenic_driver::verbs::QpAttr::Sqd)?;
    let d = pattern(64, 58);
    let p = b.take_psn(1);
    b.inject(write64(b, p, &d), 3000);
    b.expect_ack(0x00, p, Some(1))?;
    check!(b.mem_at(0, 64) == d, "data written in SQD");
    let rkey = b.mr.rkey();
    let p = read_request(b, 0, 64, rkey, MTU);
    expect_read_responses(b, p, &d, MTU, 2)?;
    check!(b.qp_state() == QpState::Sqd, "still SQD");
    Ok(())
}

/// A remote operation A's QP does not enable (QP_ACCESS without its bit) while the MR allows it: invalid
/// request NAK, the QP to ERR, memory untouched.
fn qp_access_refused(
    b: &mut Bench,
    access: u32,
    opcode: u8,
    ext: ExtHeaders,
    len: usize,
) -> Result<(), String> {
    set_qp(b, &[(regs::QP_ACCESS, access)]);
    let before = b.mem_at(0, 256);
    let p = b.take_psn(1);
    b.inject(b.frame(opcode, p, ext, &pattern(len, 6), true), 3000);
    expect_fatal_nak(b, 0x61, p)?;
    check!(b.mem_at(0, 256) == before, "nothing may be written");
    Ok(())
}

fn write_qp_without_remote_write(b: &mut Bench) -> Result<(), String> {
    let e = b.reth(0, 64, b.mr.rkey());
    qp_access_refused(b, 4 | 8, op::RC_RDMA_WRITE_ONLY, e, 64)
}

fn read_qp_without_remote_read(b: &mut Bench) -> Result<(), String> {
    let e = b.reth(0, 64, b.mr.rkey());
    qp_access_refused(b, 2 | 8, op::RC_RDMA_READ_REQUEST, e, 0)
}

fn atomic_qp_without_remote_atomic(b: &mut Bench) -> Result<(), String> {
    let e = atomic_eth(b.mr.addr() + 8, b.mr.rkey(), 1, 0);
    qp_access_refused(b, 2 | 4, op::RC_FETCH_ADD, e, 0)
}

fn write_other_pd(b: &mut Bench) -> Result<(), String> {
    // An MR with every access, in a PD other than the QP's.
    let other = b.reg_mr(
        "remote",
        0,
        4096,
        AccessFlags::LOCAL_WRITE
            | AccessFlags::REMOTE_WRITE
            | AccessFlags::REMOTE_READ
            | AccessFlags::REMOTE_ATOMIC,
        true,
    )?;
    let e = ExtHeaders {
        reth: Some(RethRepr {
            va: other.addr(),
            rkey: other.rkey(),
            dma_len: 64,
        }),
        ..ExtHeaders::default()
    };
    remote_access_nak(b, e, 64)
}

fn write_imm_rnr_nak(b: &mut Bench) -> Result<(), String> {
    let d = pattern(96, 59);
    let p = b.take_psn(1);
    let mut e = b.reth(1024, 96, b.mr.rkey());
    e.imm_dt = Some(ImmDtRepr { imm: 0x5151 });
    let f = b.frame(op::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, p, e, &d, true);
    let before = b.mem_at(1024, 96);
    // No receive WQE to complete: RNR NAK with MIN_RNR_TIMER, the PSN not consumed, nothing written.
    b.inject(f.clone(), 3000);
    b.expect_ack(0x21, p, None)?;
    check!(
        b.mem_at(1024, 96) == before,
        "nothing written before the retry"
    );
    check!(b.counter(regs::TX_RNR_NAKS) == 1, "TX_RNR_NAKS");
    b.post_recv(16, 0, 16)?;
    b.inject(f, 3000);
    b.expect_ack(0x00, p, Some(1))?;
    let wc = b.recv_wc()?;
    check!(
        (wc.wr_id, wc.opcode, wc.imm_data, wc.byte_len)
            == (16, WcOpcode::RecvRdmaWithImm, Some(0x5151), 96),
        "completion {wc:?}"
    );
    check!(b.mem_at(1024, 96) == d, "data written by the retry");
    Ok(())
}

// ---- more responder cases: SEND ------------------------------------------------------------------

fn local_at(b: &Bench, off: usize, len: usize) -> Vec<u8> {
    let mut v = vec![0; len];
    b.local.read(off, &mut v).unwrap();
    v
}

fn send_last_with_immediate(b: &mut Bench) -> Result<(), String> {
    b.post_recv(17, 0, 8192)?;
    let d = pattern(MTU + 77, 60);
    let p = b.take_psn(2);
    b.inject(
        b.frame(
            op::RC_SEND_FIRST,
            p,
            ExtHeaders::default(),
            &d[..MTU],
            false,
        ),
        2000,
    );
    b.expect_silence()?;
    b.inject(
        b.frame(
            op::RC_SEND_LAST_WITH_IMMEDIATE,
            p + 1,
            imm(0x0102_0304),
            &d[MTU..],
            true,
        ),
        3000,
    );
    b.expect_ack(0x00, p + 1, Some(1))?;
    let wc = b.recv_wc()?;
    check!(
        (wc.status, wc.wr_id, wc.opcode, wc.imm_data, wc.byte_len)
            == (
                WcStatus::Success,
                17,
                WcOpcode::Recv,
                Some(0x0102_0304),
                d.len() as u32
            ),
        "completion {wc:?}"
    );
    check!(local_at(b, 0, d.len()) == d, "data differs");
    Ok(())
}

fn send_solicited_event(b: &mut Bench) -> Result<(), String> {
    b.post_recv(18, 0, 4096)?;
    b.post_recv(19, 4096, 4096)?;
    // Armed for solicited completions only (ibv_req_notify_cq(cq, 1)).
    b.req_notify_recv(true);
    let irqs = b.counter(regs::CQ_INTERRUPTS);
    let p = b.take_psn(1);
    b.inject(
        b.frame(
            op::RC_SEND_ONLY,
            p,
            ExtHeaders::default(),
            &pattern(50, 61),
            true,
        ),
        3000,
    );
    b.expect_ack(0x00, p, Some(1))?;
    check!(b.recv_wc()?.wr_id == 18, "first completion");
    check!(
        b.counter(regs::CQ_INTERRUPTS) == irqs,
        "an unsolicited SEND must not raise the solicited event"
    );
    check!(b.counter(regs::CQ_ARM) == 2, "still armed");
    // The same with the BTH SolicitedEvent bit: the event fires and the arm is spent.
    let p = b.take_psn(1);
    let f = edited(
        &b.frame(
            op::RC_SEND_ONLY,
            p,
            ExtHeaders::default(),
            &pattern(50, 62),
            true,
        ),
        |f| f.bth.solicited = true,
    );
    b.inject(f, 3000);
    b.expect_ack(0x00, p, Some(2))?;
    check!(b.recv_wc()?.wr_id == 19, "second completion");
    check!(
        b.counter(regs::CQ_INTERRUPTS) == irqs + 1,
        "a solicited SEND raises the event"
    );
    check!(b.counter(regs::CQ_ARM) == 0, "the arm is one-shot");
    Ok(())
}

fn send_middle_without_first(b: &mut Bench) -> Result<(), String> {
    b.post_recv(20, 0, 4096)?;
    let before = local_at(b, 0, MTU);
    let p = b.take_psn(1);
    let f = b.frame(
        op::RC_SEND_MIDDLE,
        p,
        ExtHeaders::default(),
        &pattern(MTU, 63),
        false,
    );
    invalid_request_nak(b, f, p)?;
    check!(local_at(b, 0, MTU) == before, "nothing lands");
    Ok(())
}

fn send_zero_length(b: &mut Bench) -> Result<(), String> {
    b.host_write("local", 0, &pattern(256, 64))?;
    b.post_recv(21, 0, 256)?;
    let p = b.take_psn(1);
    b.inject(
        b.frame(op::RC_SEND_ONLY, p, ExtHeaders::default(), &[], true),
        3000,
    );
    b.expect_ack(0x00, p, Some(1))?;
    let wc = b.recv_wc()?;
    check!(
        (wc.status, wc.wr_id, wc.opcode, wc.byte_len) == (WcStatus::Success, 21, WcOpcode::Recv, 0),
        "completion {wc:?}"
    );
    check!(
        local_at(b, 0, 256) == pattern(256, 64),
        "the receive buffer must not change"
    );
    Ok(())
}

fn send_two_receives_in_order(b: &mut Bench) -> Result<(), String> {
    b.post_recv(22, 0, 512)?;
    b.post_recv(23, 4096, 512)?;
    let d = [pattern(300, 65), pattern(200, 66)];
    let p = b.take_psn(2);
    for (i, m) in d.iter().enumerate() {
        b.inject(
            b.frame(
                op::RC_SEND_ONLY,
                p + i as u32,
                ExtHeaders::default(),
                m,
                true,
            ),
            3000,
        );
        b.expect_ack(0x00, p + i as u32, Some(i as u32 + 1))?;
    }
    for (i, m) in d.iter().enumerate() {
        let wc = b.recv_wc()?;
        check!(
            (wc.wr_id, wc.byte_len) == (22 + i as u64, m.len() as u32),
            "completion {i}: {wc:?}"
        );
        check!(
            local_at(b, 4096 * i, m.len()) == *m,
            "message {i} in its own buffer"
        );
    }
    check!(b.qp_value(regs::RQ_CI) == 2, "RQ_CI");
    Ok(())
}

fn msn_counts_messages(b: &mut Bench) -> Result<(), String> {
    // One message of each kind; the MSN counts them all, and only at a message's end.
    let p = b.take_psn(1);
    b.inject(write64(b, p, &pattern(64, 67)), 3000);
    b.expect_ack(0x00, p, Some(1))?;
    let rkey = b.mr.rkey();
    let p = read_request(b, 0, 100, rkey, MTU);
    let want = b.mem_at(0, 100);
    expect_read_responses(b, p, &want, MTU, 2)?;
    let p = b.take_psn(1);
    b.inject(
        b.frame(
            op::RC_FETCH_ADD,
            p,
            atomic_eth(b.mr.addr() + 512, rkey, 1, 0),
            &[],
            true,
        ),
        3000,
    );
    let s = b.sent();
    check!(
        s.len() == 1 && s[0].bth.opcode == op::RC_ATOMIC_ACKNOWLEDGE && s[0].bth.psn == p,
        "expected ATOMIC ACKNOWLEDGE, got {}",
        names(&s)
    );
    let a = s[0].ext.aeth.ok_or("no AETH")?;
    check!(a.msn == 3, "atomic MSN {}", a.msn);
    b.post_recv(24, 0, 4096)?;
    let p = b.take_psn(1);
    b.inject(
        b.frame(
            op::RC_SEND_ONLY,
            p,
            ExtHeaders::default(),
            &pattern(20, 68),
            true,
        ),
        3000,
    );
    b.expect_ack(0x00, p, Some(4))?;
    // A FIRST that asks for an ACK: acknowledged, but no message has ended.
    let d = pattern(MTU + 10, 69);
    let p = b.take_psn(2);
    b.inject(
        b.frame(
            op::RC_RDMA_WRITE_FIRST,
            p,
            b.reth(0, d.len(), rkey),
            &d[..MTU],
            true,
        ),
        3000,
    );
    b.expect_ack(0x00, p, Some(4))?;
    b.inject(
        b.frame(
            op::RC_RDMA_WRITE_LAST,
            p + 1,
            ExtHeaders::default(),
            &d[MTU..],
            true,
        ),
        3000,
    );
    b.expect_ack(0x00, p + 1, Some(5))?;
    Ok(())
}

// ---- more network-layer cases ----------------------------------------------------------------------

/// CRC-32 as Ethernet and the ICRC use it (reflected polynomial 0xEDB88320, initial value and final XOR
/// all ones), over the concatenation of `parts`.
fn crc32(parts: &[&[u8]]) -> u32 {
    let mut c = !0u32;
    for part in parts {
        for &byte in *part {
            c ^= byte as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    (c >> 1) ^ 0xEDB8_8320
                } else {
                    c >> 1
                };
            }
        }
    }
    !c
}

/// After raw edits to an untagged IPv4 RoCE frame: the IPv4 header checksum (over its IHL, options
/// included) and the ICRC (annex A17.3.3: eight bytes of ones, the IP header, UDP header and BTH with the
/// variant fields as ones, then the rest up to the ICRC), both placed from the frame's own IP lengths.
fn reseal_raw(f: &mut [u8]) {
    const IP: usize = 14;
    let ihl = (f[IP] & 0x0F) as usize * 4;
    let total = u16::from_be_bytes([f[IP + 2], f[IP + 3]]) as usize;
    f[IP + 10..IP + 12].fill(0);
    let sum = rocenic_proto::wire::ipv4::checksum(&f[IP..IP + ihl]);
    f[IP + 10..IP + 12].copy_from_slice(&sum.to_be_bytes());
    let end = IP + total;
    let mut m = f[IP..end - 4].to_vec();
    for i in [1, 8, 10, 11, ihl + 6, ihl + 7, ihl + 8 + 4] {
        m[i] = 0xFF; // TOS, TTL, header checksum, UDP checksum, BTH resv8a
    }
    let icrc = crc32(&[&[0xFF; 8], &m]);
    f[end - 4..end].copy_from_slice(&icrc.to_le_bytes());
}

/// The receive buffer's drop counters by reason, in the order it checks them (one frame, one reason).
const DROP_REASONS: [u16; 8] = [
    regs::RX_DROP_DST_MAC,
    regs::RX_DROP_VLAN,
    regs::RX_DROP_ETHERTYPE,
    regs::RX_DROP_IP_HEADER,
    regs::RX_DROP_DST_IP,
    regs::RX_DROP_UDP_PORT,
    regs::RX_DROP_LENGTH,
    regs::RX_DROP_DISABLED,
];

/// Injects `frame`, expects nothing sent, and checks it was counted once in RX_DROP_NOT_ROCE and in the
/// reason counter `reason` (one of [`DROP_REASONS`]) and in no other reason's.
fn dropped_for(b: &mut Bench, frame: Vec<u8>, reason: u16) -> Result<(), String> {
    check!(
        DROP_REASONS.contains(&reason),
        "{reason:#x} is not a drop-reason counter"
    );
    let before: Vec<u32> = DROP_REASONS.iter().map(|&r| b.counter(r)).collect();
    let drops = b.counter(regs::RX_DROP_NOT_ROCE);
    b.inject(frame, 3000);
    b.expect_silence()?;
    check!(
        b.counter(regs::RX_DROP_NOT_ROCE) == drops + 1,
        "RX_DROP_NOT_ROCE not counted"
    );
    for (&r, was) in DROP_REASONS.iter().zip(before) {
        let want = was + u32::from(r == reason);
        let got = b.counter(r);
        let name = regs::by_offset(r).map_or("?", |x| x.name);
        check!(got == want, "{name} is {got} (expected {want})");
    }
    Ok(())
}

/// `bad` (a changed copy of a good WRITE ONLY of 64 bytes at offset 0 and PSN `psn`, data `d`) must not be
/// taken as a RoCE packet for this port: nothing sent, RX_DROP_NOT_ROCE and the `reason` counter counted,
/// RX_ROCE_PACKETS not, nothing written. The good frame afterwards executes at the same PSN (the bad one
/// consumed nothing).
fn not_roce(
    b: &mut Bench,
    bad: Vec<u8>,
    good: Vec<u8>,
    psn: u32,
    d: &[u8],
    reason: u16,
) -> Result<(), String> {
    let before = b.mem_at(0, 64);
    let roce = b.counter(regs::RX_ROCE_PACKETS);
    dropped_for(b, bad, reason)?;
    check!(
        b.counter(regs::RX_ROCE_PACKETS) == roce,
        "taken as a RoCE packet"
    );
    check!(
        b.counter(regs::RX_ICRC_ERRORS) + b.counter(regs::RX_IP_CHECKSUM_ERRORS) == 0,
        "the frame's checksums are good: only the rule under test may drop it"
    );
    check!(b.mem_at(0, 64) == before, "nothing may be written");
    b.inject(good, 3000);
    b.expect_ack(0x00, psn, Some(1))?;
    check!(b.mem_at(0, 64) == d, "the good frame lands");
    Ok(())
}

/// A good WRITE ONLY (64 bytes at offset 0, AckReq) at the peer's next PSN: (frame, PSN, data).
fn good_write(b: &mut Bench, seed: u8) -> (Vec<u8>, u32, Vec<u8>) {
    let d = pattern(64, seed);
    let p = b.take_psn(1);
    (write64(b, p, &d), p, d)
}

fn udp_wrong_port_not_roce(b: &mut Bench) -> Result<(), String> {
    let (good, p, d) = good_write(b, 70);
    let mut bad = good.clone();
    let dport = rocenic_proto::wire::ipv4_frame::UDP_DPORT;
    bad[dport..dport + 2].copy_from_slice(&4792u16.to_be_bytes());
    reseal_raw(&mut bad);
    let mut check = good.clone();
    reseal_raw(&mut check);
    check!(check == good, "reseal_raw must reproduce a sealed frame");
    not_roce(b, bad, good, p, &d, regs::RX_DROP_UDP_PORT)
}

fn ipv4_options_not_roce(b: &mut Bench) -> Result<(), String> {
    let (good, p, d) = good_write(b, 71);
    // Four bytes of options (three NOPs, end of list) after the 20-byte header: IHL 6.
    let mut bad = good[..34].to_vec();
    bad.extend_from_slice(&[0x01, 0x01, 0x01, 0x00]);
    bad.extend_from_slice(&good[34..]);
    bad[14] = 0x46;
    let total = u16::from_be_bytes([bad[16], bad[17]]) + 4;
    bad[16..18].copy_from_slice(&total.to_be_bytes());
    reseal_raw(&mut bad);
    not_roce(b, bad, good, p, &d, regs::RX_DROP_IP_HEADER)
}

fn roce_truncated_dropped(b: &mut Bench) -> Result<(), String> {
    let (good, p, d) = good_write(b, 72);
    // Cut inside the payload: shorter than its IPv4 total length.
    let cut = good[..good.len() - 20].to_vec();
    let before = b.mem_at(0, 64);
    dropped_for(b, cut, regs::RX_DROP_LENGTH)?;
    check!(b.mem_at(0, 64) == before, "nothing may be written");
    // A runt cut inside the BTH (the link pads it to 60 bytes).
    not_roce(b, good[..50].to_vec(), good, p, &d, regs::RX_DROP_LENGTH)
}

fn eth_other_mac_not_taken(b: &mut Bench) -> Result<(), String> {
    let (good, p, d) = good_write(b, 73);
    let mut bad = good.clone();
    bad[..6].copy_from_slice(&[0x02, 0x52, 0x4F, 0x43, 0x45, 0x07]);
    not_roce(b, bad, good, p, &d, regs::RX_DROP_DST_MAC)
}

fn ipv4_other_address_not_taken(b: &mut Bench) -> Result<(), String> {
    let (good, p, d) = good_write(b, 74);
    let bad = edited(&good, |f| {
        if let IpRepr::V4(ip) = &mut f.ip {
            ip.dst = [10, 0, 0, 9];
        }
    });
    not_roce(b, bad, good, p, &d, regs::RX_DROP_DST_IP)
}

fn vlan_tagged_not_taken(b: &mut Bench) -> Result<(), String> {
    let (good, p, d) = good_write(b, 75);
    let bad = edited(&good, |f| {
        f.eth.ethertype = ETHERTYPE_VLAN;
        f.vlan = Some(VlanRepr {
            pcp: 3,
            dei: false,
            vid: 100,
            ethertype: ETHERTYPE_IPV4,
        });
    });
    not_roce(b, bad, good, p, &d, regs::RX_DROP_ETHERTYPE)
}

fn ipv6_to_an_address_not_in_the_gid_table_not_taken(b: &mut Bench) -> Result<(), String> {
    let (good, p, d) = good_write(b, 76);
    // The same packet over IPv6, to A's IPv4-mapped GID (::ffff:10.0.0.1): not an IPv6 address of the
    // port (its GID table is empty here), so not taken; IPv6 to a table entry: tests/ipv6.rs.
    let v4mapped = |ip: std::net::Ipv4Addr| ip.to_ipv6_mapped().octets();
    let bad = edited(&good, |f| {
        f.eth.ethertype = ETHERTYPE_IPV6;
        f.ip = IpRepr::V6(Ipv6Repr {
            traffic_class: 0,
            flow_label: 0,
            payload_len: 0,
            next_header: 17,
            hop_limit: 64,
            src: v4mapped(ip(1)),
            dst: v4mapped(ip(0)),
        });
    });
    not_roce(b, bad, good, p, &d, regs::RX_DROP_DST_IP)
}

/// `frame` with an 802.1Q tag (PCP 3, VID `vid`) after the source MAC.
fn tagged(frame: &[u8], vid: u16) -> Vec<u8> {
    let mut f = frame[..12].to_vec();
    f.extend_from_slice(&[0x81, 0x00, 0x60 | (vid >> 8) as u8, vid as u8]);
    f.extend_from_slice(&frame[12..]);
    f
}

fn vlan_port_takes_its_vlan_only(b: &mut Bench) -> Result<(), String> {
    // A's QP at DSCP 26: its frames' priority, and so their PCP, is 3 under the default map.
    set_qp(b, &[(regs::QP_DSCP, 26)]);
    b.set_reg(regs::VLAN, regs::VLAN_MODE | 100);
    let r = vlan_port_checks(b);
    b.set_reg(regs::VLAN, 0);
    r
}

fn vlan_port_checks(b: &mut Bench) -> Result<(), String> {
    // An untagged WRITE and one tagged with another VID: not taken, counted as VLAN drops.
    let (good, p, d) = good_write(b, 78);
    dropped_for(b, good.clone(), regs::RX_DROP_VLAN)?;
    dropped_for(b, tagged(&good, 101), regs::RX_DROP_VLAN)?;
    check!(b.mem_at(0, 64) != d, "nothing written yet");
    // Tagged with the port's VID: taken, and the ACK leaves tagged with VID 100 and PCP 3 (its DSCP's
    // priority).
    b.inject(tagged(&good, 100), 3000);
    ack_on_vlan(b, p, 100)?;
    check!(b.mem_at(0, 64) == d, "the tagged WRITE landed");
    // A tagged ARP request for the port's address: answered, tagged (PCP = the lowest lossless priority,
    // 3 after reset).
    let arp = arp_request_for_a();
    b.inject(tagged(&arp, 100), 500);
    let raw = b.pair.fabric.lock().unwrap().take_sent(0);
    check!(raw.len() == 1, "one ARP reply, A sent {}", raw.len());
    let r = &raw[0];
    check!(
        r[12..16] == [0x81, 0x00, 0x60, 100] && r[16..18] == [0x08, 0x06] && r[24..26] == [0, 2],
        "a tagged ARP reply"
    );
    // Untagged, the same request is not answered on a VLAN port.
    b.inject(arp, 500);
    check!(
        b.pair.fabric.lock().unwrap().take_sent(0).is_empty(),
        "an untagged ARP request answered on a VLAN port"
    );
    Ok(())
}

fn qp_vlan_tags_its_packets(b: &mut Bench) -> Result<(), String> {
    // The port stays untagged and also joins VLAN 200 (VLAN_1); A's QP names that entry (QP_VLAN).
    b.set_reg(regs::VLAN_1, regs::VLAN_ON | 200);
    set_qp(
        b,
        &[(regs::QP_VLAN, regs::QP_VLAN_ON | 1), (regs::QP_DSCP, 26)],
    );
    let r = qp_vlan_checks(b);
    set_qp(b, &[(regs::QP_VLAN, 0)]);
    b.set_reg(regs::VLAN_1, 0);
    r
}

/// A's next frame must be one ACK of `psn` tagged with `vid` and PCP 3 (the priority of the QP's DSCP
/// 26 under the default map).
fn ack_on_vlan(b: &mut Bench, psn: u32, vid: u16) -> Result<(), String> {
    let raw = b.pair.fabric.lock().unwrap().take_sent(0);
    check!(raw.len() == 1, "one ACK, A sent {} frames", raw.len());
    let r = &raw[0];
    check!(
        r[12..14] == [0x81, 0x00] && u16::from_be_bytes([r[14], r[15]]) == (3 << 13) | vid,
        "the ACK's tag is {:02x?}, expected 81 00 and TCI PCP 3, VID {vid}",
        &r[12..16]
    );
    let f = Frame::parse(r).map_err(|e| format!("the tagged ACK does not parse: {e}"))?;
    check!(
        f.bth.opcode == op::RC_ACKNOWLEDGE && f.bth.psn == psn,
        "an ACK of PSN {psn:#x}"
    );
    Ok(())
}

fn qp_vlan_checks(b: &mut Bench) -> Result<(), String> {
    // Another VID than the table's: not taken.
    let (good, p, d) = good_write(b, 79);
    dropped_for(b, tagged(&good, 201), regs::RX_DROP_VLAN)?;
    // Tagged 200: taken, and answered on the QP's VLAN.
    b.inject(tagged(&good, 200), 3000);
    ack_on_vlan(b, p, 200)?;
    check!(b.mem_at(0, 64) == d, "the tagged WRITE landed");
    // Untagged (the port is not in VLAN mode, so untagged frames are its own too): taken, and the ACK
    // still leaves on the QP's VLAN.
    let (good, p, d) = good_write(b, 80);
    b.inject(good, 3000);
    ack_on_vlan(b, p, 200)?;
    check!(b.mem_at(0, 64) == d, "the untagged WRITE landed");
    // ARP is answered on the VLAN it was asked on: tagged 200, and untagged.
    let arp = arp_request_for_a();
    b.inject(tagged(&arp, 200), 500);
    let raw = b.pair.fabric.lock().unwrap().take_sent(0);
    check!(raw.len() == 1, "one ARP reply, A sent {}", raw.len());
    check!(
        raw[0][12..16] == [0x81, 0x00, 0x60, 200] && raw[0][16..18] == [0x08, 0x06],
        "an ARP reply tagged 200"
    );
    b.inject(arp, 500);
    let raw = b.pair.fabric.lock().unwrap().take_sent(0);
    check!(raw.len() == 1, "one ARP reply, A sent {}", raw.len());
    check!(
        raw[0][12..14] == [0x08, 0x06] && raw[0][20..22] == [0, 2],
        "an untagged ARP reply"
    );
    Ok(())
}

fn port_disabled_not_taken(b: &mut Bench) -> Result<(), String> {
    let (good, p, d) = good_write(b, 77);
    b.set_reg(regs::CONTROL, 0);
    let before = b.mem_at(0, 64);
    let r = dropped_for(b, good.clone(), regs::RX_DROP_DISABLED);
    b.set_reg(regs::CONTROL, regs::CONTROL_ENABLE);
    r?;
    check!(b.mem_at(0, 64) == before, "nothing may be written");
    b.inject(good, 3000);
    b.expect_ack(0x00, p, Some(1))?;
    check!(
        b.mem_at(0, 64) == d,
        "the frame lands once the port is enabled"
    );
    Ok(())
}

/// An IEEE 802.1Qbb PFC frame from B (MAC control, EtherType 0x8808, opcode 0x0101) pausing each class
/// in `classes` for `quanta`.
pub(crate) fn pfc_frame(classes: u8, quanta: u16) -> Vec<u8> {
    let times = std::array::from_fn(|c| if classes & (1 << c) != 0 { quanta } else { 0 });
    pfc_frame_times(classes, times)
}

/// A PFC frame from B with class-enable vector `classes` and the eight class times `times`.
fn pfc_frame_times(classes: u8, times: [u16; 8]) -> Vec<u8> {
    let mut f = vec![0x01, 0x80, 0xC2, 0x00, 0x00, 0x01];
    f.extend_from_slice(&mac(1));
    f.extend_from_slice(&[0x88, 0x08, 0x01, 0x01, 0x00, classes]);
    for t in times {
        f.extend_from_slice(&t.to_be_bytes());
    }
    f.resize(60, 0);
    f
}

/// An IEEE 802.3 (annex 31B) PAUSE frame from B for `quanta`.
fn pause_frame(quanta: u16) -> Vec<u8> {
    let mut f = vec![0x01, 0x80, 0xC2, 0x00, 0x00, 0x01];
    f.extend_from_slice(&mac(1));
    f.extend_from_slice(&[0x88, 0x08, 0x00, 0x01]);
    f.extend_from_slice(&quanta.to_be_bytes());
    f.resize(60, 0);
    f
}

/// Core cycles per pause quantum at the reset PFC_QUANTUM_Q4 (128 / 16).
const CYCLES_PER_QUANTUM: u64 = 8;

/// A posts a 100-byte WRITE at DSCP 26 (priority 3 under the default map, lossless after reset) while `frame`
/// (just received) holds it for `hold` cycles, if any: nothing before, the request after; then B's ACK
/// completes it.
fn held_write(b: &mut Bench, frame: Vec<u8>, hold: u64) -> Result<(), String> {
    held_write_at(b, 26, frame, hold)
}

/// [`held_write`] with A's QP at `dscp`.
fn held_write_at(b: &mut Bench, dscp: u32, frame: Vec<u8>, hold: u64) -> Result<(), String> {
    set_qp(b, &[(regs::QP_DSCP, dscp)]);
    b.inject(frame, 400);
    let t0 = b.pair.cycles();
    post_write(b, 100)?;
    let p = b.a_psn;
    if hold > 0 {
        let until = t0 + hold - 1500;
        b.run(until.saturating_sub(b.pair.cycles()));
        b.expect_silence()?;
        b.run(3000);
    } else {
        b.run(3000);
    }
    let s = expect_requests(b, &[p])?;
    check!(
        s[0].bth.opcode == op::RC_RDMA_WRITE_ONLY,
        "{} instead of WRITE ONLY",
        s[0].opcode_name()
    );
    acked_completes(b, p)
}

/// B acknowledges A's request `p`, which completes successfully.
fn acked_completes(b: &mut Bench, p: u32) -> Result<(), String> {
    b.inject(
        b.frame(op::RC_ACKNOWLEDGE, p, aeth(0x1F, 1), &[], false),
        500,
    );
    check!(b.send_wc(10_000)?.status == WcStatus::Success, "completes");
    Ok(())
}

fn pfc_pause_holds_priority(b: &mut Bench) -> Result<(), String> {
    let prio = 3;
    check!(
        b.counter(regs::PFC_ENABLE) == 1 << prio,
        "lossless priorities {:#x}",
        b.counter(regs::PFC_ENABLE)
    );
    // 1000 quanta: 8,000 cycles.
    held_write(b, pfc_frame(1 << prio, 1000), 1000 * CYCLES_PER_QUANTUM)?;
    check!(b.counter(regs::RX_PAUSE_FRAMES) == 1, "RX_PAUSE_FRAMES");
    let d = b.counter(regs::RX_PAUSE_DURATION) as u64;
    check!(
        (1000 * CYCLES_PER_QUANTUM - 16..=1000 * CYCLES_PER_QUANTUM + 16).contains(&d),
        "paused {d} cycles, expected 1000 quanta"
    );
    Ok(())
}

fn pfc_xon_resumes(b: &mut Bench) -> Result<(), String> {
    set_qp(b, &[(regs::QP_DSCP, 26)]);
    b.inject(pfc_frame(1 << 3, 0xFFFF), 400);
    post_write(b, 100)?;
    let p = b.a_psn;
    b.run(4000);
    b.expect_silence()?;
    // XON: time 0 for the priority.
    b.inject(pfc_frame(1 << 3, 0), 1500);
    expect_requests(b, &[p])?;
    check!(b.counter(regs::RX_PAUSE_FRAMES) == 2, "RX_PAUSE_FRAMES");
    acked_completes(b, p)
}

fn pfc_other_priority_ignored(b: &mut Bench) -> Result<(), String> {
    // Every class but 3, each for the longest time.
    held_write(b, pfc_frame(!(1 << 3), 0xFFFF), 0)?;
    check!(b.counter(regs::RX_PAUSE_FRAMES) == 0, "RX_PAUSE_FRAMES");
    check!(b.counter(regs::RX_PAUSE_DURATION) == 0, "RX_PAUSE_DURATION");
    // Counted per priority all the same (rx_prioN_pause), so a mismatch with the peer shows.
    let per_prio: Vec<u32> = (0..8)
        .map(|n| b.counter(regs::RX_PRIO0_PAUSE + 4 * n))
        .collect();
    check!(
        per_prio == [1, 1, 1, 0, 1, 1, 1, 1],
        "RX_PRIOn_PAUSE {per_prio:?}"
    );
    Ok(())
}

fn pfc_holds_only_its_priority(b: &mut Bench) -> Result<(), String> {
    // A's QP at DSCP 0: priority 0 under the default map, not the paused one; the pause itself is for
    // our priority and is counted.
    held_write_at(b, 0, pfc_frame(1 << 3, 0xFFFF), 0)?;
    check!(b.counter(regs::RX_PAUSE_FRAMES) == 1, "RX_PAUSE_FRAMES");
    Ok(())
}

fn pfc_lossless_priorities_each_their_time(b: &mut Bench) -> Result<(), String> {
    // Priorities 3 and 5 lossless. One PFC frame pauses 3 for good and 5 for 1000 quanta: A's QP at
    // DSCP 40 (priority 5) sends when 5's pause ends, while 3 is still paused.
    set_reg(b, regs::PFC_ENABLE, (1 << 3) | (1 << 5));
    let mut times = [0u16; 8];
    times[3] = 0xFFFF;
    times[5] = 1000;
    held_write_at(
        b,
        40,
        pfc_frame_times((1 << 3) | (1 << 5), times),
        1000 * CYCLES_PER_QUANTUM,
    )?;
    check!(b.counter(regs::RX_PAUSE_FRAMES) == 1, "RX_PAUSE_FRAMES");
    // Priority 3 is still paused: a QP at DSCP 26 waits until its XON.
    set_qp(b, &[(regs::QP_DSCP, 26)]);
    post_write(b, 100)?;
    let p = (b.a_psn + 1) & 0xFF_FFFF;
    b.run(4000);
    b.expect_silence()?;
    b.inject(pfc_frame(1 << 3, 0), 1500);
    expect_requests(b, &[p])?;
    acked_completes(b, p)
}

fn pause_802_3x_holds(b: &mut Bench) -> Result<(), String> {
    // 500 quanta: 4,000 cycles.
    held_write(b, pause_frame(500), 500 * CYCLES_PER_QUANTUM)?;
    check!(b.counter(regs::RX_PAUSE_FRAMES) == 1, "RX_PAUSE_FRAMES");
    Ok(())
}

// ---- requester cases: A requests, B answers ---------------------------------------------------------

fn post_write(b: &Bench, len: usize) -> Result<(), String> {
    b.host_write("local", 0, &pattern(len, 20))?;
    b.post_send(&WorkRequest {
        wr_id: 40,
        op: SendOp::RdmaWrite {
            remote_addr: 0x2000,
            rkey: 0x77,
        },
        sge: Sge {
            addr: b.local_mr.addr(),
            length: len as u32,
            lkey: b.local_mr.lkey(),
        },
        flags: SendFlags::SIGNALED,
    })
}

fn expect_requests(b: &Bench, psns: &[u32]) -> Result<Vec<Frame>, String> {
    let s = b.sent();
    let got: Vec<u32> = s.iter().map(|f| f.bth.psn).collect();
    let want: Vec<u32> = psns.iter().map(|p| p & 0xFF_FFFF).collect();
    check!(
        got == want,
        "request PSNs {got:x?}, expected {want:x?} ({})",
        names(&s)
    );
    Ok(s)
}

fn requester_coalesced_ack(b: &mut Bench) -> Result<(), String> {
    post_write(b, 3 * MTU)?;
    b.run(8000);
    let p = b.a_psn;
    let s = expect_requests(b, &[p, p + 1, p + 2])?;
    check!(
        !s[0].bth.ack_req && s[2].bth.ack_req,
        "AckReq on the last packet"
    );
    // One ACK for the last PSN acknowledges all three (IBA 9.7.6).
    b.inject(
        b.frame(op::RC_ACKNOWLEDGE, p + 2, aeth(0x1F, 1), &[], false),
        500,
    );
    let wc = b.send_wc(10_000)?;
    check!(
        wc.status == WcStatus::Success && wc.wr_id == 40,
        "completion {wc:?}"
    );
    Ok(())
}

fn requester_go_back_n_from_nak_psn(b: &mut Bench) -> Result<(), String> {
    post_write(b, 3 * MTU)?;
    b.run(8000);
    let p = b.a_psn;
    expect_requests(b, &[p, p + 1, p + 2])?;
    // NAK PSN sequence error at p + 1: resend from p + 1, not from the message start (9.7.5.1.1).
    b.inject(
        b.frame(op::RC_ACKNOWLEDGE, p + 1, aeth(0x60, 0), &[], false),
        8000,
    );
    let s = expect_requests(b, &[p + 1, p + 2])?;
    check!(
        s[0].bth.opcode == op::RC_RDMA_WRITE_MIDDLE,
        "resent as MIDDLE"
    );
    b.inject(
        b.frame(op::RC_ACKNOWLEDGE, p + 2, aeth(0x1F, 1), &[], false),
        500,
    );
    check!(b.send_wc(10_000)?.status == WcStatus::Success, "completes");
    Ok(())
}

/// A signaled RDMA READ (`wr_id`) of `len` bytes at remote 0x3000 (R_Key 0x55) into the local MR.
fn post_read(b: &mut Bench, wr_id: u64, len: usize) -> Result<(), String> {
    b.post_send(&WorkRequest {
        wr_id,
        op: SendOp::RdmaRead {
            remote_addr: 0x3000,
            rkey: 0x55,
        },
        sge: Sge {
            addr: b.local_mr.addr(),
            length: len as u32,
            lkey: b.local_mr.lkey(),
        },
        flags: SendFlags::SIGNALED,
    })
}

/// The READ completes successfully and `d` is what landed in the local MR.
fn read_landed(b: &mut Bench, d: &[u8]) -> Result<(), String> {
    let wc = b.send_wc(10_000)?;
    check!(
        (wc.status, wc.opcode, wc.byte_len)
            == (WcStatus::Success, WcOpcode::RdmaRead, d.len() as u32),
        "completion {wc:?}"
    );
    let mut got = vec![0; d.len()];
    b.local.read(0, &mut got).unwrap();
    check!(got == d, "READ data differs");
    Ok(())
}

fn requester_read_nak_past_it_asks_again(b: &mut Bench) -> Result<(), String> {
    let len = 100;
    post_read(b, 43, len)?;
    b.run(3000);
    let p = b.a_psn;
    expect_requests(b, &[p])?;
    // A PSN sequence error NAK expecting p + 1: the responder executed the READ, its response was lost.
    // The NAK acknowledges no READ PSN (only the response landing does, 9.7.6): the READ goes again at
    // once, well before the ACK timeout (20,000 cycles), instead of waiting for a timeout that can never
    // come once its PSN counts as acknowledged.
    b.inject(
        b.frame(op::RC_ACKNOWLEDGE, p + 1, aeth(0x60, 1), &[], false),
        3000,
    );
    let s = expect_requests(b, &[p])?;
    check!(
        s[0].bth.opcode == op::RC_RDMA_READ_REQUEST,
        "the READ asked again, got {}",
        names(&s)
    );
    check!(b.counter(regs::ACK_TIMEOUTS) == 0, "no timeout needed");
    let d = pattern(len, 23);
    b.inject(
        b.frame(op::RC_RDMA_READ_RESPONSE_ONLY, p, aeth(0x1F, 1), &d, false),
        2000,
    );
    read_landed(b, &d)
}

fn requester_timeout_resends(b: &mut Bench) -> Result<(), String> {
    post_write(b, 100)?;
    b.run(3000);
    let p = b.a_psn;
    expect_requests(b, &[p])?;
    b.run(25_000); // ACK timeout 20,000 cycles
    expect_requests(b, &[p])?;
    check!(b.counter(regs::ACK_TIMEOUTS) == 1, "ACK_TIMEOUTS");
    acked_completes(b, p)
}

fn requester_rnr_wait(b: &mut Bench) -> Result<(), String> {
    post_write(b, 100)?;
    b.run(3000);
    let p = b.a_psn;
    expect_requests(b, &[p])?;
    // RNR NAK timer code 2 (20 us = 3,125 cycles): nothing before, a resend after.
    b.inject(
        b.frame(op::RC_ACKNOWLEDGE, p, aeth(0x22, 0), &[], false),
        2500,
    );
    b.expect_silence()?;
    b.run(1500);
    expect_requests(b, &[p])?;
    acked_completes(b, p)
}

fn requester_fatal_nak(b: &mut Bench, syndrome: u8, status: WcStatus) -> Result<(), String> {
    post_write(b, 100)?;
    b.run(3000);
    let p = b.a_psn;
    expect_requests(b, &[p])?;
    b.inject(
        b.frame(op::RC_ACKNOWLEDGE, p, aeth(syndrome, 0), &[], false),
        500,
    );
    let wc = b.send_wc(10_000)?;
    check!(
        (wc.status, wc.vendor_err) == (status, syndrome),
        "completion {:?} vendor {:#x}, expected {status:?}",
        wc.status,
        wc.vendor_err
    );
    check!(b.qp_state() == QpState::Err, "requester QP to ERR");
    Ok(())
}

fn requester_rem_access_err(b: &mut Bench) -> Result<(), String> {
    requester_fatal_nak(b, 0x62, WcStatus::RemAccessErr)
}
fn requester_rem_inv_req(b: &mut Bench) -> Result<(), String> {
    requester_fatal_nak(b, 0x61, WcStatus::RemInvReqErr)
}
fn requester_rem_op_err(b: &mut Bench) -> Result<(), String> {
    requester_fatal_nak(b, 0x63, WcStatus::RemOpErr)
}

fn requester_read_lands_responses(b: &mut Bench) -> Result<(), String> {
    let len = MTU + 200;
    post_read(b, 41, len)?;
    b.run(3000);
    let p = b.a_psn;
    let s = expect_requests(b, &[p])?;
    let r = s[0].ext.reth.ok_or("no RETH")?;
    check!(
        s[0].bth.opcode == op::RC_RDMA_READ_REQUEST && r.dma_len == len as u32 && r.rkey == 0x55,
        "READ REQUEST {r:?}"
    );
    // An ACK covering the READ's PSNs does not complete it (only its responses do).
    b.inject(
        b.frame(op::RC_ACKNOWLEDGE, p + 1, aeth(0x1F, 1), &[], false),
        500,
    );
    check!(
        b.wait_wc("send", 1000).is_none(),
        "an ACK must not complete a READ"
    );
    let d = pattern(len, 21);
    b.inject(
        b.frame(
            op::RC_RDMA_READ_RESPONSE_FIRST,
            p,
            aeth(0x1F, 1),
            &d[..MTU],
            false,
        ),
        2000,
    );
    b.inject(
        b.frame(
            op::RC_RDMA_READ_RESPONSE_LAST,
            p + 1,
            aeth(0x1F, 1),
            &d[MTU..],
            false,
        ),
        2000,
    );
    read_landed(b, &d)
}

fn requester_read_cut_by_error_writes_no_more(b: &mut Bench) -> Result<(), String> {
    // The QP leaves RTS while a READ response is being written: its READ context is withdrawn, the
    // WQE completes flushed, and no byte of the rest of that response may land in a buffer the
    // consumer now owns again.
    b.not_replayable("polls host memory cycle by cycle to act mid-burst");
    let len = MTU;
    post_read(b, 44, len)?;
    b.run(3000);
    let p = b.a_psn;
    expect_requests(b, &[p])?;
    let d = pattern(len, 25);
    b.inject(
        b.frame(op::RC_RDMA_READ_RESPONSE_ONLY, p, aeth(0x1F, 1), &d, false),
        0,
    );
    let mut head = [0u8; 8];
    for _ in 0..5000 {
        b.run(1);
        b.local.read(0, &mut head).unwrap();
        if head != [0; 8] {
            break;
        }
    }
    check!(head != [0; 8], "the response's first bytes never landed");
    b.modify(rocenic_driver::verbs::QpAttr::Err)?;
    b.run(3000);
    let mut got = vec![0; len];
    b.local.read(0, &mut got).unwrap();
    let landed = (0..len).find(|&i| got[i] != d[i]).unwrap_or(len);
    check!(
        landed < len,
        "all {len} bytes landed although the QP left RTS during the burst"
    );
    check!(
        got[landed..].iter().all(|&x| x == 0),
        "bytes past the first {landed} written after the READ was withdrawn"
    );
    check!(b.qp_state() == QpState::Err, "QP in ERR");
    let wc = b.send_wc(10_000)?;
    check!(
        (wc.status, wc.wr_id) == (WcStatus::WrFlushErr, 44),
        "completion {wc:?}"
    );
    Ok(())
}

fn requester_send_segments(b: &mut Bench) -> Result<(), String> {
    let d = pattern(2 * MTU + 10, 80);
    b.host_write("local", 0, &d)?;
    b.post_send(&WorkRequest {
        wr_id: 42,
        op: SendOp::Send,
        sge: Sge {
            addr: b.local_mr.addr(),
            length: d.len() as u32,
            lkey: b.local_mr.lkey(),
        },
        flags: SendFlags::SIGNALED | SendFlags::SOLICITED,
    })?;
    b.run(8000);
    let p = b.a_psn;
    let s = expect_requests(b, &[p, p + 1, p + 2])?;
    let opcodes = [op::RC_SEND_FIRST, op::RC_SEND_MIDDLE, op::RC_SEND_LAST];
    for (i, f) in s.iter().enumerate() {
        check!(
            f.bth.opcode == opcodes[i],
            "packet {i}: {} instead of {}",
            f.opcode_name(),
            op::name(opcodes[i])
        );
        check!(
            f.bth.dest_qp == QPN,
            "packet {i}: to QP {:#x}",
            f.bth.dest_qp
        );
        let last = i == 2;
        check!(
            f.bth.solicited == last && f.bth.ack_req == last,
            "packet {i}: SE {} AckReq {} (both only on the last packet)",
            f.bth.solicited,
            f.bth.ack_req
        );
        check!(
            f.ext.reth.is_none() && f.ext.imm_dt.is_none(),
            "packet {i}: a SEND carries no RETH or ImmDt"
        );
        let chunk = &d[i * MTU..((i + 1) * MTU).min(d.len())];
        check!(f.payload == chunk, "packet {i}: payload differs");
    }
    b.ack_and_complete(p + 2, 1, 42, WcOpcode::Send)?;
    Ok(())
}

fn requester_write_with_imm(b: &mut Bench) -> Result<(), String> {
    let d = pattern(MTU + 100, 81);
    b.host_write("local", 0, &d)?;
    b.post_send(&WorkRequest {
        wr_id: 43,
        op: SendOp::RdmaWriteWithImm {
            remote_addr: 0x2000,
            rkey: 0x77,
            imm: 0x0BAD_CAFE,
        },
        sge: Sge {
            addr: b.local_mr.addr(),
            length: d.len() as u32,
            lkey: b.local_mr.lkey(),
        },
        flags: SendFlags::SIGNALED,
    })?;
    b.run(6000);
    let p = b.a_psn;
    let s = expect_requests(b, &[p, p + 1])?;
    check!(
        s[0].bth.opcode == op::RC_RDMA_WRITE_FIRST
            && s[1].bth.opcode == op::RC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
        "opcodes {}",
        names(&s)
    );
    let r = s[0].ext.reth.ok_or("no RETH on FIRST")?;
    check!(
        (r.va, r.rkey, r.dma_len) == (0x2000, 0x77, d.len() as u32),
        "RETH {r:?}"
    );
    check!(s[0].ext.imm_dt.is_none(), "ImmDt only on the last packet");
    check!(s[1].ext.reth.is_none(), "RETH only on the first packet");
    check!(
        s[1].ext.imm_dt.map(|i| i.imm) == Some(0x0BAD_CAFE),
        "ImmDt {:?}",
        s[1].ext.imm_dt
    );
    check!(
        s[0].payload == d[..MTU] && s[1].payload == d[MTU..],
        "payloads differ"
    );
    b.ack_and_complete(p + 1, 1, 43, WcOpcode::RdmaWrite)?;
    Ok(())
}

fn requester_send_with_invalidate(b: &mut Bench) -> Result<(), String> {
    let d = pattern(MTU + 100, 82);
    b.host_write("local", 0, &d)?;
    b.post_send(&WorkRequest {
        wr_id: 44,
        op: SendOp::SendWithInv {
            invalidate_rkey: 0x0001_2345,
        },
        sge: Sge {
            addr: b.local_mr.addr(),
            length: d.len() as u32,
            lkey: b.local_mr.lkey(),
        },
        flags: SendFlags::SIGNALED,
    })?;
    b.run(6000);
    let p = b.a_psn;
    let s = expect_requests(b, &[p, p + 1])?;
    check!(
        s[0].bth.opcode == op::RC_SEND_FIRST && s[1].bth.opcode == op::RC_SEND_LAST_WITH_INVALIDATE,
        "opcodes {}",
        names(&s)
    );
    check!(s[0].ext.ieth.is_none(), "IETH only on the last packet");
    check!(
        s[1].ext.ieth.map(|i| i.rkey) == Some(0x0001_2345),
        "IETH {:?}",
        s[1].ext.ieth
    );
    check!(s[1].ext.imm_dt.is_none(), "no ImmDt");
    check!(
        s[0].payload == d[..MTU] && s[1].payload == d[MTU..],
        "payloads differ"
    );
    b.ack_and_complete(p + 1, 1, 44, WcOpcode::Send)?;
    Ok(())
}

fn requester_atomic_fetch_add(b: &mut Bench) -> Result<(), String> {
    b.host_write("local", 0, &[0xEE; 16])?;
    b.post_send(&WorkRequest {
        wr_id: 44,
        op: SendOp::AtomicFetchAdd {
            remote_addr: 0x4008,
            rkey: 0x66,
            add: 0x10,
        },
        sge: Sge {
            addr: b.local_mr.addr(),
            length: 8,
            lkey: b.local_mr.lkey(),
        },
        flags: SendFlags::SIGNALED,
    })?;
    b.run(3000);
    let p = b.a_psn;
    let s = expect_requests(b, &[p])?;
    check!(
        s[0].bth.opcode == op::RC_FETCH_ADD && s[0].bth.ack_req,
        "{} (AckReq {})",
        s[0].opcode_name(),
        s[0].bth.ack_req
    );
    let a = s[0].ext.atomic_eth.ok_or("no AtomicETH")?;
    check!(
        (a.va, a.rkey, a.swap_add) == (0x4008, 0x66, 0x10),
        "AtomicETH {a:?}"
    );
    // An ACK covering its PSN does not complete it: only the ATOMIC ACKNOWLEDGE does.
    b.inject(
        b.frame(op::RC_ACKNOWLEDGE, p, aeth(0x1F, 1), &[], false),
        500,
    );
    check!(
        b.wait_wc("send", 1000).is_none(),
        "an ACK must not complete an atomic"
    );
    let orig = 0x1122_3344_5566_7788u64;
    let e = ExtHeaders {
        aeth: Some(AethRepr {
            syndrome: 0x1F,
            msn: 1,
        }),
        atomic_ack_eth: Some(AtomicAckEthRepr { orig_data: orig }),
        ..ExtHeaders::default()
    };
    b.inject(b.frame(op::RC_ATOMIC_ACKNOWLEDGE, p, e, &[], false), 2000);
    let wc = b.send_wc(10_000)?;
    check!(
        (wc.status, wc.wr_id, wc.opcode) == (WcStatus::Success, 44, WcOpcode::FetchAdd),
        "completion {wc:?}"
    );
    let got = local_at(b, 0, 16);
    check!(
        got[..8] == orig.to_le_bytes() && got[8..] == [0xEE; 8],
        "the original value lands in the local 8 bytes only: {got:02x?}"
    );
    Ok(())
}

/// `first` and then `second` reach A back to back (both in its receive buffer before it decodes the
/// first); A's frames in the next 8,000 cycles must be exactly `want` (opcode, PSN), in that order.
fn back_to_back(
    b: &Bench,
    first: Vec<u8>,
    second: Vec<u8>,
    want: &[(u8, u32)],
) -> Result<Vec<Frame>, String> {
    b.inject_many(vec![first, second], 8000);
    let s = b.sent();
    let got: Vec<(u8, u32)> = s.iter().map(|f| (f.bth.opcode, f.bth.psn)).collect();
    let want: Vec<(u8, u32)> = want.iter().map(|&(o, p)| (o, p & 0xFF_FFFF)).collect();
    check!(got == want, "A sent {}", names(&s));
    Ok(s)
}

fn read_responses_before_later_ack(b: &mut Bench) -> Result<(), String> {
    // A READ of three MTUs and right behind it a WRITE with AckReq: the READ's responses first, then the
    // WRITE's ACK. The ACK first would tell the requester the READ's responses were lost.
    let rkey = b.mr.rkey();
    let p = b.take_psn(3);
    let q = b.take_psn(1);
    let d = pattern(64, 90);
    let read = b.frame(
        op::RC_RDMA_READ_REQUEST,
        p,
        b.reth(4096, 3 * MTU, rkey),
        &[],
        true,
    );
    let s = back_to_back(
        b,
        read,
        write64(b, q, &d),
        &[
            (op::RC_RDMA_READ_RESPONSE_FIRST, p),
            (op::RC_RDMA_READ_RESPONSE_MIDDLE, p + 1),
            (op::RC_RDMA_READ_RESPONSE_LAST, p + 2),
            (op::RC_ACKNOWLEDGE, q),
        ],
    )?;
    let want = b.mem_at(4096, 3 * MTU);
    let data: Vec<u8> = s[..3].iter().flat_map(|f| f.payload.clone()).collect();
    check!(data == want, "READ data differs");
    let msns: Vec<Option<u32>> = s.iter().map(|f| f.ext.aeth.map(|a| a.msn)).collect();
    check!(
        msns == [Some(1), None, Some(1), Some(2)],
        "AETH MSNs {msns:?}"
    );
    check!(b.mem_at(0, 64) == d, "the WRITE lands");
    Ok(())
}

fn atomic_ack_before_later_ack(b: &mut Bench) -> Result<(), String> {
    // A FETCH_ADD and right behind it a WRITE with AckReq arrive while A's transmit engine is busy with
    // its own 8-packet WRITE: when it next picks a frame, the atomic's result and the WRITE's ACK are both
    // waiting. The ATOMIC ACKNOWLEDGE must go first (A's own requests may go anywhere between).
    post_write(b, 8 * MTU)?;
    b.run(300);
    let old = word(b, 64);
    let p = b.take_psn(1);
    let q = b.take_psn(1);
    let d = pattern(64, 91);
    let fa = b.frame(
        op::RC_FETCH_ADD,
        p,
        atomic_eth(b.mr.addr() + 64, b.mr.rkey(), 9, 0),
        &[],
        true,
    );
    b.inject_many(vec![fa, write64(b, q, &d)], 8000);
    let s = b.sent();
    let (resp, reqs): (Vec<&Frame>, Vec<&Frame>) = s.iter().partition(|f| {
        f.bth.opcode == op::RC_ACKNOWLEDGE || f.bth.opcode == op::RC_ATOMIC_ACKNOWLEDGE
    });
    let got: Vec<(u8, u32)> = resp.iter().map(|f| (f.bth.opcode, f.bth.psn)).collect();
    check!(
        got == [(op::RC_ATOMIC_ACKNOWLEDGE, p), (op::RC_ACKNOWLEDGE, q)],
        "A sent {}",
        names(&s)
    );
    let a = b.a_psn;
    let psns: Vec<u32> = reqs.iter().map(|f| f.bth.psn).collect();
    let want: Vec<u32> = (0..8).map(|i| (a + i) & 0xFF_FFFF).collect();
    check!(psns == want, "A's own WRITE: PSNs {psns:x?}");
    let orig = resp[0]
        .ext
        .atomic_ack_eth
        .ok_or("no AtomicAckETH")?
        .orig_data;
    check!(orig == old, "original {orig:#x}, memory had {old:#x}");
    let msns: Vec<Option<u32>> = resp.iter().map(|f| f.ext.aeth.map(|a| a.msn)).collect();
    check!(msns == [Some(1), Some(2)], "AETH MSNs {msns:?}");
    check!(word(b, 64) == old.wrapping_add(9), "the add executed");
    check!(b.mem_at(0, 64) == d, "the WRITE lands");
    b.inject(
        b.frame(op::RC_ACKNOWLEDGE, a + 7, aeth(0x1F, 1), &[], false),
        500,
    );
    check!(
        b.send_wc(10_000)?.status == WcStatus::Success,
        "A's WRITE completes"
    );
    Ok(())
}

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
