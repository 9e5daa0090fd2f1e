//! post_send / post_recv: WQE bytes (golden), doorbells, ring arithmetic, and the checks before posting.
use super::*;
use crate::backend::fake::{Ring, FAKE_BASE_IOVA};
use crate::error::Error;
use rocenic_proto::host::QpState;

/// The fake's first allocation is the setup's buffer, so its IOVA is known: that makes the golden bytes
/// below literal. The first registration gets key 0x001 (MR table entry 0, variant 1).
fn golden_setup() -> Setup {
    let s = setup();
    assert_eq!(s.buf.iova(), FAKE_BASE_IOVA);
    assert_eq!(s.mr.lkey(), 0x001);
    to_rts(&s);
    s.dev.clear_log();
    s
}

#[test]
fn rdma_write_wqe_golden_bytes_then_one_doorbell() {
    let s = golden_setup();
    let wr = WorkRequest {
        wr_id: 0x0102_0304_0506_0708,
        op: SendOp::RdmaWrite {
            remote_addr: 0xAB_CDEF_0000,
            rkey: 0x4242,
        },
        sge: sge(&s, 0x40, 300),
        flags: SendFlags::SIGNALED,
    };
    // SAFETY: the fake device never touches the buffer.
    unsafe { s.qp.post_send(&wr).unwrap() };
    #[rustfmt::skip]
    let golden: [u8; 64] = [
        0x00, 0x01, 0x00, 0x00, 0x2C, 0x01, 0x00, 0x00, // opcode RDMA_WRITE, SIGNALED, length 300
        0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, // wr_id
        0x40, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, // local address 0x1_0000_0040
        0x01, 0x00, 0x00, 0x00, 0x42, 0x42, 0x00, 0x00, // lkey 0x001, rkey 0x4242
        0x00, 0x00, 0xEF, 0xCD, 0xAB, 0x00, 0x00, 0x00, // remote address 0xAB_CDEF_0000
        0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0,
    ];
    assert_eq!(
        s.dev.fetched(),
        vec![(Ring::Send, golden)],
        "the WQE was in the ring when the doorbell rang"
    );
    assert_eq!(
        effects(s.dev.writes()),
        vec![(regs::SQ_PI, 1)],
        "exactly one doorbell"
    );
}

#[test]
fn send_and_receive_wqe_golden_bytes() {
    let s = golden_setup();
    let wr = WorkRequest {
        wr_id: 9,
        op: SendOp::Send,
        sge: sge(&s, 0x80, 64),
        flags: SendFlags::default(),
    };
    let rr = RecvRequest {
        wr_id: 0x77,
        sge: sge(&s, 0x100, 0x200),
    };
    // SAFETY: the fake device never touches the buffer.
    unsafe {
        s.qp.post_send(&wr).unwrap();
        s.qp.post_recv(&rr).unwrap();
    }
    #[rustfmt::skip]
    let send: [u8; 64] = [
        0x02, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, // opcode SEND, unsignaled, length 64
        0x09, 0, 0, 0, 0, 0, 0, 0,                      // wr_id
        0x80, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, // local address 0x1_0000_0080
        0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // lkey 0x001, no rkey
        0, 0, 0, 0, 0, 0, 0, 0,                         // no remote address
        0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0,
    ];
    #[rustfmt::skip]
    let recv: [u8; 64] = [
        0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, // length 0x200
        0x77, 0, 0, 0, 0, 0, 0, 0,                      // wr_id
        0x00, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, // address 0x1_0000_0100
        0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // lkey 0x001
        0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0,
    ];
    assert_eq!(
        s.dev.fetched(),
        vec![(Ring::Send, send), (Ring::Recv, recv)]
    );
    assert_eq!(
        effects(s.dev.writes()),
        vec![(regs::SQ_PI, 1), (regs::RQ_PI, 1)]
    );
}

#[test]
fn a_full_ring_refuses_until_the_device_consumes_and_then_wraps() {
    let s = setup();
    to_rts(&s);
    let sq_base = s.dev.get64(regs::SQ_BASE_LO, regs::SQ_BASE_HI);
    // SAFETY: the fake device never touches the buffer.
    unsafe {
        s.qp.post_send(&send(&s, 1, SendFlags::SIGNALED)).unwrap();
        s.qp.post_send(&send(&s, 2, SendFlags::SIGNALED)).unwrap();
        s.dev.clear_log();
        assert!(matches!(
            s.qp.post_send(&send(&s, 3, SendFlags::SIGNALED)),
            Err(Error::QueueFull("send"))
        ));
        assert_eq!(
            effects(s.dev.writes()),
            vec![],
            "no doorbell for a refused WR"
        );
        s.dev.set_qp(QPN, regs::SQ_CI, 1); // the NIC finished WQE 0
        s.qp.post_send(&send(&s, 3, SendFlags::SIGNALED)).unwrap();
    }
    assert_eq!(s.dev.get(regs::SQ_PI), 3);
    // WQE 2 wrapped into slot 0.
    let mut w = [0u8; 16];
    s.dev.memory().read(sq_base, &mut w);
    assert_eq!(w[8], 3, "slot 0 now holds wr_id 3");
    // The receive ring counts on its own.
    unsafe {
        s.qp.post_recv(&recv(&s, 1)).unwrap();
        s.qp.post_recv(&recv(&s, 2)).unwrap();
        assert!(matches!(
            s.qp.post_recv(&recv(&s, 3)),
            Err(Error::QueueFull("receive"))
        ));
    }
}

#[test]
fn posts_are_checked_before_anything_reaches_the_device() {
    let s = setup();
    let other_pd = s.ctx.alloc_pd();
    let other_buf = s.ctx.alloc_dma(4096).unwrap();
    let foreign = other_pd
        .reg_mr(&other_buf, 0, 4096, AccessFlags::LOCAL_WRITE)
        .unwrap();
    let read_only =
        s.pd.reg_mr(&other_buf, 0, 4096, AccessFlags::default())
            .unwrap();
    let ok = send(&s, 1, SendFlags::SIGNALED);
    let with_sge = |sge: Sge| WorkRequest { sge, ..ok };
    let refuse = |wr: WorkRequest, want: &dyn Fn(&Error) -> bool| {
        s.dev.clear_log();
        // SAFETY: the fake device never touches the buffer.
        let e = unsafe { s.qp.post_send(&wr) }.unwrap_err();
        assert!(want(&e), "{wr:?}: got {e}");
        assert_eq!(effects(s.dev.writes()), vec![], "{wr:?}");
    };
    let wrong_state = |e: &Error| matches!(e, Error::WrongState(_, "RTS or SQD"));
    let prot = |e: &Error| matches!(e, Error::LocalProtection { .. });

    refuse(ok, &wrong_state);
    s.qp.modify(QpAttr::Init(InitAttrs::default())).unwrap();
    s.qp.modify(QpAttr::Rtr(rtr_attrs())).unwrap();
    refuse(ok, &wrong_state);
    s.qp.modify(QpAttr::Rts(rts_attrs())).unwrap();

    let mut bad_key = ok.sge;
    bad_key.lkey ^= 0x80;
    refuse(with_sge(bad_key), &prot);
    refuse(with_sge(sge(&s, 4000, 200)), &prot); // runs past the MR's end
    refuse(with_sge(sge(&s, 0, u32::MAX)), &prot);
    let mut in_other_pd = ok.sge;
    in_other_pd.lkey = foreign.lkey();
    in_other_pd.addr = foreign.addr();
    refuse(with_sge(in_other_pd), &prot);
    // An atomic's target is one naturally aligned 8-byte word (buffers elsewhere may start anywhere).
    let unaligned_atomic = WorkRequest {
        op: SendOp::AtomicFetchAdd {
            remote_addr: 0x1004,
            rkey: 1,
            add: 1,
        },
        ..with_sge(sge(&s, 4, 8))
    };
    refuse(unaligned_atomic, &|e| {
        matches!(
            e,
            Error::Unaligned {
                addr: 0x1004,
                align: 8
            }
        )
    });
    // A receive needs LOCAL_WRITE on its buffer.
    s.dev.clear_log();
    let rr = RecvRequest {
        wr_id: 1,
        sge: Sge {
            addr: read_only.addr(),
            length: 64,
            lkey: read_only.lkey(),
        },
    };
    // SAFETY: the fake device never touches the buffer.
    assert!(matches!(
        unsafe { s.qp.post_recv(&rr) },
        Err(Error::LocalProtection { .. })
    ));
    assert_eq!(effects(s.dev.writes()), vec![]);
    // A correct SEND of exactly one MTU and a zero-length one pass.
    // SAFETY: as above.
    unsafe {
        s.qp.post_send(&with_sge(sge(&s, 0, 1024))).unwrap();
        s.qp.post_send(&with_sge(sge(&s, 0, 0))).unwrap();
    }
}

#[test]
fn buffers_may_start_at_any_byte() {
    // The core realigns what it writes (receive buffers, a READ's local buffer, a WRITE's target) and
    // what it reads (a WRITE's or SEND's source, a READ's remote source): no offset is refused, and each
    // request reaches the ring.
    let s = setup_with(
        64,
        QpCaps {
            max_send_wr: 8,
            max_recv_wr: 2,
            max_send_sge: 1,
            max_recv_sge: 1,
        },
    );
    to_rts(&s);
    // SAFETY: the fake device never touches the buffers.
    unsafe {
        s.qp.post_recv(&RecvRequest {
            wr_id: 1,
            sge: sge(&s, 3, 61),
        })
        .unwrap();
        let ops = [
            (
                SendOp::RdmaRead {
                    remote_addr: 0x1003,
                    rkey: 1,
                },
                5,
            ),
            (
                SendOp::RdmaWrite {
                    remote_addr: 0x1001,
                    rkey: 1,
                },
                1,
            ),
            (SendOp::Send, 63),
            (SendOp::SendWithImm { imm: 7 }, 8),
        ];
        for (i, (op, off)) in ops.into_iter().enumerate() {
            s.qp.post_send(&WorkRequest {
                op,
                sge: sge(&s, off, 100),
                ..send(&s, 2 + i as u64, SendFlags::SIGNALED)
            })
            .unwrap();
        }
    }
    assert_eq!(s.dev.get(regs::SQ_PI), 4);
}

#[test]
fn receives_may_be_posted_from_init() {
    let s = setup();
    // SAFETY: the fake device never touches the buffer.
    unsafe {
        assert!(matches!(
            s.qp.post_recv(&recv(&s, 1)),
            Err(Error::WrongState(QpState::Reset, _))
        ));
        s.qp.modify(QpAttr::Init(InitAttrs::default())).unwrap();
        s.qp.post_recv(&recv(&s, 1)).unwrap();
    }
    assert_eq!(s.dev.get(regs::RQ_PI), 1);
}

/// A write of SQ_PI or RQ_PI is a doorbell, so a command that does not load the producer index must not
/// write one: SQD, SQD → RTS and a modify in place after work was posted would otherwise ring the queues
/// with the index they had when initialised, taking the core's producer index back so that it runs
/// through ring slots never posted.
#[test]
fn a_modify_after_posting_rings_no_doorbell() {
    let s = golden_setup();
    for n in 0..2 {
        // SAFETY: the fake device never touches the buffers.
        unsafe {
            s.qp.post_send(&send(&s, n, SendFlags::SIGNALED)).unwrap();
            s.qp.post_recv(&recv(&s, 10 + n)).unwrap();
        }
    }
    let rings = |w: &[(u16, u32)]| {
        w.iter()
            .filter(|(r, _)| *r == regs::SQ_PI || *r == regs::RQ_PI)
            .copied()
            .collect::<Vec<_>>()
    };
    for attr in [
        QpAttr::Sqd,
        QpAttr::Rts(rts_attrs()),
        QpAttr::Modify(ModifyAttrs {
            min_rnr_timer: Some(20),
            ..ModifyAttrs::default()
        }),
    ] {
        s.dev.clear_log();
        s.qp.modify(attr).unwrap();
        let w = effects(s.dev.writes());
        assert!(rings(&w).is_empty(), "a doorbell in a modify: {w:x?}");
        assert_eq!(w.last().map(|x| x.0), Some(regs::QP_CMD));
    }
}
