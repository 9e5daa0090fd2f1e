//! Conformance cases, each named by the spec scenario it checks: the NIC under test (A, a co-simulated
//! core driven through the verbs driver) faces a scripted peer that speaks as B. B's own core is switched
//! off; the script builds B's frames field by field with `rocenic_proto::wire` (ICRC sealed), injects
//! them on B's side of the link, and checks what A puts on the wire field by field (opcode, PSN, AETH
//! syndrome and MSN, payload, ...), A's completions and A's memory. Every frame of a case goes into
//! `out/conformance/<case>.pcap` for independent checking (`testbench/check_pcap.py`).
use crate::pair::{ip, mac, Pair, PSN};
use crate::verbs::{
    AccessFlags, MemoryRegion, RecvRequest, SendFlags, SendOp, Sge, WorkCompletion, WorkRequest,
};
use crate::{DmaRegion, QpState, WcOpcode, WcStatus};
use rocenic_proto::opcode as op;
use rocenic_proto::regs;
use rocenic_proto::wire::arp_frame;
use rocenic_proto::wire::{
    AethRepr, AtomicEthRepr, BthRepr, EthernetRepr, ExtHeaders, Frame, ImmDtRepr, IpRepr, Ipv4Repr,
    RethRepr, UdpRepr, ETHERTYPE_IPV4, ROCEV2_UDP_PORT,
};
use rocenic_sim::{FabricConfig, Width};
use std::path::PathBuf;

/// QP number of both cores (one QP per device).
const QPN: u32 = 0x11;
/// Path MTU of every case.
pub const MTU: usize = 1024;
const REGION: usize = 64 << 10;

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
    fn new(pcap: PathBuf) -> Result<Bench, String> {
        let cfg = FabricConfig {
            width: Width::W64,
            host_mem_bytes: 4 << 20,
            pcap: Some(pcap),
            ..FabricConfig::default()
        };
        let pair = Pair::connect(cfg, MTU as u32, 20_000).map_err(|e| e.to_string())?;
        {
            let mut f = pair.fabric.lock().unwrap();
            // B's core is off: the script is B from now on.
            f.reg_write(1, regs::CONTROL, 0);
            f.record_frames();
        }
        let e = |e: crate::Error| e.to_string();
        let mem = pair.a.ctx.alloc_dma(REGION).map_err(e)?;
        let init: Vec<u8> = (0..REGION).map(|i| (i as u8) ^ 0x5A).collect();
        mem.write(0, &init).map_err(e)?;
        let mr = pair
            .a
            .pd
            .reg_mr(
                &mem,
                0,
                REGION,
                AccessFlags::LOCAL_WRITE
                    | AccessFlags::REMOTE_WRITE
                    | AccessFlags::REMOTE_READ
                    | AccessFlags::REMOTE_ATOMIC,
            )
            .map_err(e)?;
        let local = pair.a.ctx.alloc_dma(REGION).map_err(e)?;
        let local_mr = pair
            .a
            .pd
            .reg_mr(&local, 0, REGION, AccessFlags::LOCAL_WRITE)
            .map_err(e)?;
        Ok(Bench {
            pair,
            mem,
            mr,
            local,
            local_mr,
            peer_psn: PSN[1],
            a_psn: PSN[0],
        })
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
        let mut f = self.pair.fabric.lock().unwrap();
        f.inject_frame(1, frame);
        f.run(cycles);
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

    pub fn post_recv(&self, wr_id: u64, off: usize, len: usize) -> Result<(), String> {
        // SAFETY: `local` lives as long as the bench, which outlives the case.
        unsafe {
            self.pair.a.qp.post_recv(&RecvRequest {
                wr_id,
                sge: Sge {
                    addr: self.local_mr.addr() + off as u64,
                    length: len as u32,
                    lkey: self.local_mr.lkey(),
                },
            })
        }
        .map_err(|e| e.to_string())
    }

    pub fn post_send(&self, wr: &WorkRequest) -> Result<(), String> {
        // SAFETY: every SGE of the cases points into `local`, which outlives the case.
        unsafe { self.pair.a.qp.post_send(wr) }.map_err(|e| e.to_string())
    }

    pub fn recv_wc(&self) -> Result<WorkCompletion, String> {
        self.pair
            .wait_for(&self.pair.a.recv_cq, 50_000)
            .ok_or_else(|| "no receive completion".to_string())
    }

    pub fn send_wc(&self, cycles: u64) -> Result<WorkCompletion, String> {
        self.pair
            .wait_for(&self.pair.a.send_cq, cycles)
            .ok_or_else(|| "no send completion".to_string())
    }

    pub fn qp_state(&self) -> QpState {
        self.pair.a.qp.query()
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
    b.expect_silence()?;
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
    let e = b.reth(0, 64, b.mr.rkey() ^ 0x100);
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
    // The MR's slot is cleared (deregistered) while the message is in flight: its MIDDLE must not land.
    let slot = (b.mr.lkey() & 0xFF) as usize;
    b.pair
        .fabric
        .lock()
        .unwrap()
        .reg_write(0, regs::mr_reg(regs::MR0_LEN, slot), 0);
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

fn write_zero_length_unchecked(b: &mut Bench) -> Result<(), String> {
    let p = b.take_psn(1);
    let e = ExtHeaders {
        reth: Some(RethRepr {
            va: 0xDEAD_0000,
            rkey: 0xBAD,
            dma_len: 0,
        }),
        ..ExtHeaders::default()
    };
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
    let p = b.peer_psn;
    let npk = len.div_ceil(MTU).max(1) as u32;
    b.take_psn(npk);
    b.inject(
        b.frame(
            op::RC_RDMA_READ_REQUEST,
            p,
            b.reth(256, len, b.mr.rkey()),
            &[],
            true,
        ),
        6000,
    );
    let s = b.sent();
    check!(
        s.len() == npk as usize,
        "{} responses for {npk} PSNs: {}",
        s.len(),
        names(&s)
    );
    let want = b.mem_at(256, len);
    let mut data = Vec::new();
    for (i, f) in s.iter().enumerate() {
        let i = i as u32;
        let opc = if npk == 1 {
            op::RC_RDMA_READ_RESPONSE_ONLY
        } else if i == 0 {
            op::RC_RDMA_READ_RESPONSE_FIRST
        } else if i == npk - 1 {
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
            f.bth.psn == (p + i) & 0xFF_FFFF,
            "response {i}: PSN {:#x}",
            f.bth.psn
        );
        let has_aeth = opc != op::RC_RDMA_READ_RESPONSE_MIDDLE;
        check!(
            f.ext.aeth.is_some() == has_aeth,
            "response {i}: AETH presence"
        );
        if let Some(a) = f.ext.aeth {
            check!(
                a.syndrome & 0xE0 == 0 && a.msn == 1,
                "response {i}: AETH {a:?}"
            );
        }
        data.extend_from_slice(&f.payload);
    }
    check!(data == want, "response payloads differ from memory");
    Ok(())
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

fn arp_request_answered(b: &mut Bench) -> Result<(), String> {
    let mut f = arp_frame::emit(
        arp_frame::OPER_REQUEST,
        mac(1),
        ip(1).octets(),
        [0xFF; 6],
        [0; 6],
        ip(0).octets(),
    );
    f.resize(60, 0);
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

fn cnp_received_counted(b: &mut Bench) -> Result<(), String> {
    let mut e = ExtHeaders::default();
    e.cnp_pad = Some(rocenic_proto::wire::CnpPadRepr { reserved: [0; 16] });
    let mut f = Frame::parse(&b.frame(op::CNP, 0, e, &[], false)).unwrap();
    f.bth.becn = true;
    f.seal().unwrap();
    b.inject(f.emit(), 2000);
    b.expect_silence()?;
    check!(b.counter(regs::RP_CNP_HANDLED) == 1, "RP_CNP_HANDLED");
    check!(b.counter(regs::RX_DROP_QP) == 0, "a CNP is not a drop");
    Ok(())
}

// ---- requester cases: A requests, B answers ---------------------------------------------------------

fn post_write(b: &Bench, len: usize) -> Result<(), String> {
    b.local.write(0, &pattern(len, 20)).unwrap();
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

fn requester_timeout_resends(b: &mut Bench) -> Result<(), String> {
    post_write(b, 100)?;
    b.run(3000);
    let p = b.a_psn;
    expect_requests(b, &[p])?;
    b.run(25_000); // ACK timeout 20,000 cycles
    expect_requests(b, &[p])?;
    check!(b.counter(regs::ACK_TIMEOUTS) == 1, "ACK_TIMEOUTS");
    b.inject(
        b.frame(op::RC_ACKNOWLEDGE, p, aeth(0x1F, 1), &[], false),
        500,
    );
    check!(b.send_wc(10_000)?.status == WcStatus::Success, "completes");
    Ok(())
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
    b.inject(
        b.frame(op::RC_ACKNOWLEDGE, p, aeth(0x1F, 1), &[], false),
        500,
    );
    check!(b.send_wc(10_000)?.status == WcStatus::Success, "completes");
    Ok(())
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
    b.post_send(&WorkRequest {
        wr_id: 41,
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
    })?;
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
        b.pair.wait_for(&b.pair.a.send_cq, 1000).is_none(),
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
    let wc = b.send_wc(10_000)?;
    check!(
        (wc.status, wc.opcode, wc.byte_len) == (WcStatus::Success, WcOpcode::RdmaRead, len as u32),
        "completion {wc:?}"
    );
    let mut got = vec![0; len];
    b.local.read(0, &mut got).unwrap();
    check!(got == d, "READ data differs");
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
    Case { name: "rc_send_only_to_receive", rule: "9.7.5: a SEND ONLY fills the next receive WQE, ACK, RECV completion", run: send_only_to_receive },
    Case { name: "rc_send_first_middle_last", rule: "9.7.5: a multi-packet SEND continues the receive buffer; byte_len is the message", run: send_first_middle_last },
    Case { name: "rc_send_rnr_nak_retry", rule: "9.7.5.1.6: no receive WQE: RNR NAK with MIN_RNR_TIMER, PSN not consumed; the retry lands", run: send_rnr_nak_then_retry },
    Case { name: "rc_send_longer_than_receive", rule: "9.7.5.1.4: a SEND longer than the receive buffer is an invalid request", run: send_longer_than_receive },
    Case { name: "rc_send_only_with_immediate", rule: "9.4.4: the ImmDt reaches the receive completion", run: send_only_with_immediate },
    Case { name: "rc_write_only_with_immediate", rule: "9.4.4: WRITE with immediate consumes a receive WQE, RECV_RDMA_WITH_IMM", run: write_only_with_immediate },
    Case { name: "rc_read_only_response", rule: "9.7.5.1.5: a READ within one MTU gets READ RESPONSE ONLY with AETH", run: read_only_response },
    Case { name: "rc_read_first_middle_last", rule: "9.7.5.1.5: READ responses FIRST/MIDDLE/LAST, AETH on FIRST and LAST, PSNs per response", run: read_first_middle_last },
    Case { name: "rc_read_duplicate_reexecute", rule: "9.7.5.1.2: a duplicate READ is executed again", run: read_duplicate_reexecute },
    Case { name: "rc_read_without_remote_read", rule: "C9-88: an MR without REMOTE_READ refuses a READ", run: read_without_remote_read },
    Case { name: "rc_atomic_fetch_add", rule: "9.4.5: FETCH_ADD returns the original value and adds", run: atomic_fetch_add },
    Case { name: "rc_atomic_compare_swap", rule: "9.4.5: COMPARE_SWAP swaps only on a match, returns the original either way", run: atomic_compare_swap_hit_and_miss },
    Case { name: "rc_atomic_replay", rule: "9.4.5: a duplicate atomic gets the saved result and is not executed twice", run: atomic_replay },
    Case { name: "rc_atomic_misaligned", rule: "9.4.5: a misaligned atomic is an invalid request", run: atomic_misaligned },
    Case { name: "rc_wrong_qpn_dropped", rule: "9.6: a packet for an unknown QP is dropped silently and counted", run: wrong_qpn_dropped },
    Case { name: "rc_uc_opcode_dropped", rule: "9.6: an opcode of another transport on an RC QP is dropped and counted", run: ud_opcode_on_rc_dropped },
    Case { name: "icrc_error_dropped", rule: "annex A17: a bad ICRC drops the packet silently (no NAK), counted", run: bad_icrc_dropped },
    Case { name: "ipv4_checksum_error_dropped", rule: "RFC 791: a bad IPv4 header checksum drops the packet, counted", run: bad_ip_checksum_dropped },
    Case { name: "cnp_on_ce_mark", rule: "annex A17.9: a CE-marked packet makes the notification point send a CNP (BECN) to the sender's QP, once per interval", run: cnp_on_ce_mark },
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
];

/// Runs one case on a fresh pair; its frames go to `out_dir/<name>.pcap`.
pub fn run_case(case: &Case, out_dir: &std::path::Path) -> Result<(), String> {
    let mut b = Bench::new(out_dir.join(format!("{}.pcap", case.name)))?;
    let r = (case.run)(&mut b);
    b.pair
        .fabric
        .lock()
        .unwrap()
        .flush_pcap()
        .map_err(|e| e.to_string())?;
    r
}
