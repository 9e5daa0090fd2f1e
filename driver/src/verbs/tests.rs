//! The verbs layer against the test double: what it writes to registers and rings, how it reads CQEs,
//! and the software side of the QP state machine.
use crate::backend::fake::FakeDevice;
use crate::backend::{Backend, DmaMemory};
use crate::error::Error;
use crate::verbs::*;
use rocenic_proto::host::{cqe, wqe, QpState, WcOpcode, WcStatus, CQE_BYTES, WQE_BYTES};
use rocenic_proto::regs;
use std::net::Ipv4Addr;
use std::sync::Arc;

struct Setup {
    dev: Arc<FakeDevice>,
    ctx: Context,
    qp: QueuePair,
    send_cq: Arc<CompletionQueue>,
    recv_cq: Arc<CompletionQueue>,
    mr: MemoryRegion,
    _buf: crate::DmaRegion,
}

fn setup() -> Setup {
    let dev = FakeDevice::new(8);
    let ctx = Context::open(dev.clone()).unwrap();
    let pd = ctx.alloc_pd();
    let send_cq = ctx.create_cq(8).unwrap();
    let recv_cq = ctx.create_cq(8).unwrap();
    let qp = QueuePair::create(
        &pd,
        &send_cq,
        &recv_cq,
        QpCaps {
            max_send_wr: 2,
            max_recv_wr: 2,
        },
    )
    .unwrap();
    let buf = ctx.alloc_dma(4096).unwrap();
    let mr = pd
        .reg_mr(
            &buf,
            0,
            4096,
            AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE,
        )
        .unwrap();
    Setup {
        dev,
        ctx,
        qp,
        send_cq,
        recv_cq,
        mr,
        _buf: buf,
    }
}

fn to_rts(s: &Setup) {
    s.qp.to_init(AccessFlags::LOCAL_WRITE).unwrap();
    to_rts_from_init(s);
}

/// Writes CQE number `n` into the hardware CQ ring as the NIC would.
fn nic_writes_cqe(s: &Setup, n: u32, wr_id: u64, opcode: WcOpcode, status: WcStatus) {
    let base = (s.dev.get(regs::CQ_BASE_HI) as u64) << 32 | s.dev.get(regs::CQ_BASE_LO) as u64;
    let log = s.dev.get(regs::CQ_LOG_SIZE);
    let mut c = [0u8; CQE_BYTES];
    c[cqe::WR_ID..cqe::WR_ID + 8].copy_from_slice(&wr_id.to_le_bytes());
    c[cqe::STATUS] = status as u8;
    c[cqe::OPCODE] = opcode as u8;
    c[cqe::OWNER] = ((n >> log) & 1 == 0) as u8;
    s.dev.memory().write(
        base + ((n & ((1 << log) - 1)) as u64) * CQE_BYTES as u64,
        &c,
    );
}

fn sge(s: &Setup, off: u64, len: u32) -> Sge {
    Sge {
        addr: s.mr.addr() + off,
        length: len,
        lkey: s.mr.lkey(),
    }
}

#[test]
fn open_checks_identity_and_enables() {
    let dev = FakeDevice::new(8);
    dev.set(regs::ID, 0xDEAD_BEEF);
    assert!(matches!(
        Context::open(dev.clone()),
        Err(Error::NotRocenic(0xDEAD_BEEF))
    ));
    dev.set(regs::ID, regs::ID_VALUE);
    dev.set(regs::VERSION, 0x0002_0000);
    assert!(matches!(
        Context::open(dev.clone()),
        Err(Error::Version { .. })
    ));
    dev.set(regs::VERSION, regs::VERSION_VALUE);
    let ctx = Context::open(dev.clone()).unwrap();
    assert_eq!(dev.get(regs::CONTROL), regs::CONTROL_ENABLE);
    ctx.set_port(
        [0x02, 0x11, 0x22, 0x33, 0x44, 0x55],
        Ipv4Addr::new(10, 1, 2, 3),
    );
    assert_eq!(
        (dev.get(regs::MAC_HI), dev.get(regs::MAC_LO)),
        (0x0211, 0x2233_4455)
    );
    assert_eq!(dev.get(regs::IPV4), 0x0A01_0203);
}

#[test]
fn modify_qp_programs_the_context_and_checks_transitions() {
    let s = setup();
    let bad = RtrAttrs {
        path_mtu: 1024,
        dest_qpn: 1,
        rq_psn: 0,
        dest_mac: [0; 6],
        dest_ip: Ipv4Addr::UNSPECIFIED,
        udp_sport: 0,
    };
    assert!(matches!(
        s.qp.to_rtr(&bad),
        Err(Error::BadTransition {
            from: QpState::Reset,
            to: QpState::Rtr
        })
    ));
    s.qp.to_init(AccessFlags::LOCAL_WRITE).unwrap();
    assert!(matches!(
        s.qp.to_rtr(&RtrAttrs {
            path_mtu: 1000,
            ..bad
        }),
        Err(Error::BadMtu(1000))
    ));
    to_rts_from_init(&s);
    assert_eq!(s.dev.get(regs::PMTU), 10);
    assert_eq!(s.dev.get(regs::DEST_QPN), 0x22);
    assert_eq!(s.dev.get(regs::RQ_PSN), 0x1234);
    assert_eq!(
        (s.dev.get(regs::DEST_MAC_HI), s.dev.get(regs::DEST_MAC_LO)),
        (0x0200, 0x0000_0009)
    );
    assert_eq!(s.dev.get(regs::DEST_IPV4), 0x0A00_0009);
    assert_eq!(s.dev.get(regs::UDP_SPORT), 0xC001);
    assert_eq!(s.dev.get(regs::SQ_PSN), 0x55);
    // timeout 14: 4.096 us * 2^14 = 67.1 ms at 156.25 MHz
    assert_eq!(
        s.dev.get(regs::ACK_TIMEOUT),
        (4.096 * 16384.0 * 156.25) as u32
    );
    assert_eq!(s.dev.get(regs::RETRY_CNT), 3);
    assert_eq!(s.dev.get(regs::QP_STATE), QpState::Rts as u32);
    assert_eq!(s.qp.state(), QpState::Rts);
    assert!(matches!(
        s.qp.to_init(AccessFlags::default()),
        Err(Error::BadTransition { .. })
    ));
}

fn to_rts_from_init(s: &Setup) {
    let rtr = RtrAttrs {
        path_mtu: 1024,
        dest_qpn: 0x22,
        rq_psn: 0x1234,
        dest_mac: [2, 0, 0, 0, 0, 9],
        dest_ip: Ipv4Addr::new(10, 0, 0, 9),
        udp_sport: 0xC001,
    };
    s.qp.to_rtr(&rtr).unwrap();
    s.qp.to_rts(&RtsAttrs {
        sq_psn: 0x55,
        timeout: 14,
        retry_cnt: 3,
        ack_timeout_cycles: None,
    })
    .unwrap();
}

#[test]
fn post_send_writes_the_wqe_then_rings_the_doorbell() {
    let s = setup();
    to_rts(&s);
    let wr = SendWr {
        wr_id: 0x0102_0304_0506_0708,
        op: SendOp::RdmaWrite {
            remote_addr: 0xAB_CDEF_0000,
            rkey: 0x4242,
        },
        sge: sge(&s, 64, 300),
        signaled: true,
    };
    s.dev.writes.lock().unwrap().clear();
    // SAFETY: the fake device never reads the buffer.
    unsafe { s.qp.post_send(&wr).unwrap() };
    let base = (s.dev.get(regs::SQ_BASE_HI) as u64) << 32 | s.dev.get(regs::SQ_BASE_LO) as u64;
    let mut w = [0u8; WQE_BYTES];
    s.dev.memory().read(base, &mut w);
    let mut want = [0u8; WQE_BYTES];
    want[wqe::OPCODE] = 0; // IBV_WR_RDMA_WRITE
    want[wqe::FLAGS] = wqe::FLAG_SIGNALED;
    want[wqe::LENGTH..wqe::LENGTH + 4].copy_from_slice(&300u32.to_le_bytes());
    want[wqe::WR_ID..wqe::WR_ID + 8].copy_from_slice(&[8, 7, 6, 5, 4, 3, 2, 1]);
    want[wqe::LOCAL_ADDR..wqe::LOCAL_ADDR + 8].copy_from_slice(&(s.mr.addr() + 64).to_le_bytes());
    want[wqe::LKEY..wqe::LKEY + 4].copy_from_slice(&s.mr.lkey().to_le_bytes());
    want[wqe::RKEY..wqe::RKEY + 4].copy_from_slice(&0x4242u32.to_le_bytes());
    want[wqe::REMOTE_ADDR..wqe::REMOTE_ADDR + 8].copy_from_slice(&0xAB_CDEF_0000u64.to_le_bytes());
    assert_eq!(w, want);
    assert_eq!(
        *s.dev.writes.lock().unwrap(),
        vec![(regs::SQ_PI, 1)],
        "one doorbell, after the WQE"
    );
    // The ring holds two WQEs; the third is refused until the NIC consumes one.
    unsafe { s.qp.post_send(&wr).unwrap() };
    assert!(matches!(
        unsafe { s.qp.post_send(&wr) },
        Err(Error::QueueFull("send"))
    ));
    s.dev.set(regs::SQ_CI, 1);
    unsafe { s.qp.post_send(&wr).unwrap() };
}

#[test]
fn posts_are_checked_against_keys_alignment_and_state() {
    let s = setup();
    let wr = SendWr {
        wr_id: 1,
        op: SendOp::Send,
        sge: sge(&s, 0, 64),
        signaled: true,
    };
    assert!(matches!(
        unsafe { s.qp.post_send(&wr) },
        Err(Error::WrongState(QpState::Reset, _))
    ));
    to_rts(&s);
    let bad_key = SendWr {
        sge: Sge {
            lkey: s.mr.lkey() ^ 0x100,
            ..wr.sge
        },
        ..wr
    };
    assert!(matches!(
        unsafe { s.qp.post_send(&bad_key) },
        Err(Error::LocalProtection { .. })
    ));
    let too_long = SendWr {
        sge: sge(&s, 4000, 200),
        ..wr
    };
    assert!(matches!(
        unsafe { s.qp.post_send(&too_long) },
        Err(Error::LocalProtection { .. })
    ));
    let unaligned = SendWr {
        sge: sge(&s, 3, 8),
        ..wr
    };
    assert!(matches!(
        unsafe { s.qp.post_send(&unaligned) },
        Err(Error::Unaligned { align: 8, .. })
    ));
}

#[test]
fn completions_follow_the_owner_bit_across_a_ring_wrap() {
    let s = setup();
    to_rts(&s);
    let mut wc = [WorkCompletion::default(); 4];
    assert_eq!(
        s.send_cq.poll(&mut wc).unwrap(),
        0,
        "an all-zero ring holds nothing"
    );
    // The hardware ring has 4 entries (2 send + 2 receive WRs): 6 CQEs wrap it once.
    let log = s.dev.get(regs::CQ_LOG_SIZE);
    assert_eq!(log, 2);
    for n in 0..6u32 {
        unsafe {
            s.qp.post_send(&SendWr {
                wr_id: n as u64,
                op: SendOp::Send,
                sge: sge(&s, 0, 8),
                signaled: true,
            })
            .unwrap()
        };
        s.dev.set(regs::SQ_CI, n + 1);
        nic_writes_cqe(&s, n, n as u64, WcOpcode::Send, WcStatus::Success);
        assert_eq!(s.send_cq.poll(&mut wc).unwrap(), 1, "CQE {n}");
        assert_eq!((wc[0].wr_id, wc[0].status), (n as u64, WcStatus::Success));
        assert_eq!(s.dev.get(regs::CQ_CI), n + 1, "consumer index written back");
    }
    // A stale entry from the previous pass (owner bit of pass 0 in slot 2 during pass 1) is not new.
    assert_eq!(s.send_cq.poll(&mut wc).unwrap(), 0);
    // A receive completion goes to the receive CQ only.
    unsafe {
        s.qp.post_recv(&RecvWr {
            wr_id: 77,
            sge: sge(&s, 0, 64),
        })
        .unwrap()
    };
    nic_writes_cqe(&s, 6, 77, WcOpcode::Recv, WcStatus::Success);
    assert_eq!(s.send_cq.poll(&mut wc).unwrap(), 0);
    assert_eq!(s.recv_cq.poll(&mut wc).unwrap(), 1);
    assert_eq!((wc[0].wr_id, wc[0].opcode), (77, WcOpcode::Recv));
}

#[test]
fn entering_error_flushes_outstanding_work_in_order() {
    let s = setup();
    to_rts(&s);
    unsafe {
        s.qp.post_recv(&RecvWr {
            wr_id: 10,
            sge: sge(&s, 0, 64),
        })
        .unwrap();
        s.qp.post_send(&SendWr {
            wr_id: 1,
            op: SendOp::Send,
            sge: sge(&s, 0, 8),
            signaled: false,
        })
        .unwrap();
        s.qp.post_send(&SendWr {
            wr_id: 2,
            op: SendOp::Send,
            sge: sge(&s, 0, 8),
            signaled: true,
        })
        .unwrap();
    }
    s.qp.to_error().unwrap();
    assert_eq!(s.dev.get(regs::QP_STATE), QpState::Err as u32);
    let mut wc = [WorkCompletion::default(); 4];
    assert_eq!(s.send_cq.poll(&mut wc).unwrap(), 2);
    assert_eq!((wc[0].wr_id, wc[0].status), (1, WcStatus::WrFlushErr));
    assert_eq!((wc[1].wr_id, wc[1].status), (2, WcStatus::WrFlushErr));
    assert_eq!(s.recv_cq.poll(&mut wc).unwrap(), 1);
    assert_eq!(
        (wc[0].wr_id, wc[0].status, wc[0].opcode),
        (10, WcStatus::WrFlushErr, WcOpcode::Recv)
    );
    let flushed = s
        .ctx
        .counters()
        .into_iter()
        .find(|(k, _)| k == "flushed_wqes")
        .unwrap()
        .1;
    assert_eq!(flushed, 3);
}

#[test]
fn hardware_error_state_is_noticed_and_flushes() {
    let s = setup();
    to_rts(&s);
    unsafe {
        s.qp.post_recv(&RecvWr {
            wr_id: 5,
            sge: sge(&s, 0, 64),
        })
        .unwrap()
    };
    s.dev.set(regs::QP_STATE, QpState::Err as u32); // e.g. the responder NAKed a bad request
    assert_eq!(s.qp.state(), QpState::Err);
    let mut wc = [WorkCompletion::default()];
    assert_eq!(s.recv_cq.poll(&mut wc).unwrap(), 1);
    assert_eq!(wc[0].status, WcStatus::WrFlushErr);
}

#[test]
fn mr_slots_run_out_and_come_back() {
    let dev = FakeDevice::new(8);
    let ctx = Context::open(dev.clone()).unwrap();
    let pd = ctx.alloc_pd();
    let buf = ctx.alloc_dma(4096).unwrap();
    let mrs: Vec<MemoryRegion> = (0..regs::MR_SLOTS)
        .map(|i| {
            pd.reg_mr(&buf, i * 64, 64, AccessFlags::LOCAL_WRITE)
                .unwrap()
        })
        .collect();
    assert!(matches!(
        pd.reg_mr(&buf, 0, 64, AccessFlags::LOCAL_WRITE),
        Err(Error::NoMrSlot(4))
    ));
    let keys: std::collections::HashSet<u32> = mrs.iter().map(|m| m.lkey()).collect();
    assert_eq!(keys.len(), regs::MR_SLOTS);
    assert_eq!(dev.get(regs::mr_reg(regs::MR0_LEN, 3)), 64);
    let last = mrs.into_iter().last().unwrap();
    let old_key = last.lkey();
    drop(last);
    assert_eq!(
        dev.get(regs::mr_reg(regs::MR0_LEN, 3)),
        0,
        "deregistration invalidates the slot"
    );
    let again = pd.reg_mr(&buf, 0, 64, AccessFlags::LOCAL_WRITE).unwrap();
    assert_ne!(again.lkey(), old_key, "a new registration gets a new key");
    assert!(matches!(
        pd.reg_mr(&buf, 4000, 200, AccessFlags::LOCAL_WRITE),
        Err(Error::OutOfRegion { .. })
    ));
}

#[test]
fn one_qp_per_device() {
    let s = setup();
    let pd = s.ctx.alloc_pd();
    assert!(matches!(
        QueuePair::create(
            &pd,
            &s.send_cq,
            &s.recv_cq,
            QpCaps {
                max_send_wr: 2,
                max_recv_wr: 2
            }
        ),
        Err(Error::OneQpOnly)
    ));
    assert!(matches!(
        QueuePair::create(
            &pd,
            &s.send_cq,
            &s.recv_cq,
            QpCaps {
                max_send_wr: 3,
                max_recv_wr: 2
            }
        ),
        Err(Error::OneQpOnly | Error::BadDepth(3))
    ));
    let _ = s.dev.describe();
}
