//! QP creation, modify (register programming and checked transitions), query, and flush on ERR.
use super::*;
use crate::error::Error;
use rocenic_proto::host::QpState;

#[test]
fn create_programs_the_three_rings() {
    let s = setup_with(
        8,
        QpCaps {
            max_send_wr: 4,
            max_recv_wr: 8,
            max_send_sge: 1,
            max_recv_sge: 1,
        },
    );
    assert_eq!(s.dev.get(regs::QP_STATE), QpState::Reset as u32);
    assert_eq!(s.dev.get(regs::QPN), QPN);
    assert_eq!(s.dev.get(regs::QP_PD), s.pd.pdn);
    assert_eq!(s.dev.get(regs::SQ_LOG_SIZE), 2);
    assert_eq!(s.dev.get(regs::RQ_LOG_SIZE), 3);
    // Two CQs of depth 2 share the hardware ring: 4 entries.
    assert_eq!(s.dev.get(regs::CQ_LOG_SIZE), 2);
    let sq = s.dev.get64(regs::SQ_BASE_LO, regs::SQ_BASE_HI);
    let rq = s.dev.get64(regs::RQ_BASE_LO, regs::RQ_BASE_HI);
    let cq = s.dev.get64(regs::CQ_BASE_LO, regs::CQ_BASE_HI);
    // Above 4 GiB in the fake, so both halves of each base register matter.
    assert!(s.dev.get(regs::SQ_BASE_HI) != 0 && s.dev.get(regs::CQ_BASE_HI) != 0);
    let ranges = [
        (sq, 4 * 64),
        (rq, 8 * 64),
        (cq, 4 * 32),
        (s.buf.iova(), 4096),
    ];
    for (i, &(a, la)) in ranges.iter().enumerate() {
        assert_eq!(a % 64, 0, "ring {i} is beat- and line-aligned");
        for &(b, lb) in &ranges[i + 1..] {
            assert!(a + la <= b || b + lb <= a, "rings overlap");
        }
    }
    for r in [
        regs::SQ_PI,
        regs::SQ_CI,
        regs::RQ_PI,
        regs::RQ_CI,
        regs::CQ_PI,
        regs::CQ_CI,
    ] {
        assert!(s.dev.writes().contains(&(r, 0)), "index {r:#x} reset");
    }
}

#[test]
fn one_cq_for_both_directions_sizes_the_ring_by_its_depth() {
    let dev = FakeDevice::new(8);
    let ctx = Context::open(dev.clone()).unwrap();
    let pd = ctx.alloc_pd();
    let cq = ctx.create_cq(8).unwrap();
    let caps = QpCaps {
        max_send_wr: 2,
        max_recv_wr: 2,
        max_send_sge: 1,
        max_recv_sge: 1,
    };
    let _qp = QueuePair::create(&pd, &cq, &cq, caps).unwrap();
    assert_eq!(dev.get(regs::CQ_LOG_SIZE), 3);
}

#[test]
fn qpns_are_allocated_lowest_free_first_and_freed_on_drop() {
    let s = setup();
    let caps = QpCaps {
        max_send_wr: 2,
        max_recv_wr: 2,
        max_send_sge: 1,
        max_recv_sge: 1,
    };
    assert_eq!(s.qp.qp_num(), QPN);
    let second = QueuePair::create(&s.pd, &s.send_cq, &s.recv_cq, caps).unwrap();
    assert_eq!(second.qp_num(), QPN + 1);
    to_rts(&s);
    drop(s.qp);
    assert_eq!(
        s.dev.get_qp(QPN, regs::QP_STATE),
        QpState::Reset as u32,
        "a dropped QP stops the engines"
    );
    let again = QueuePair::create(&s.pd, &s.send_cq, &s.recv_cq, caps).unwrap();
    assert_eq!(again.qp_num(), QPN, "the lowest free QPN");
    assert_eq!(again.query(), QpState::Reset);
    // The fake's table holds 64 QPs: QPNs 0x11..=0x3F, two of them taken.
    let mut more: Vec<_> = (0..0x40 - QPN - 2)
        .map(|_| QueuePair::create(&s.pd, &s.send_cq, &s.recv_cq, caps).unwrap())
        .collect();
    assert_eq!(more.last().unwrap().qp_num(), 0x3F);
    assert!(matches!(
        QueuePair::create(&s.pd, &s.send_cq, &s.recv_cq, caps),
        Err(Error::NoFreeQp(64))
    ));
    more.pop();
    let bad = QpCaps {
        max_send_wr: 3,
        max_recv_wr: 2,
        max_send_sge: 1,
        max_recv_sge: 1,
    };
    assert!(matches!(
        QueuePair::create(&s.pd, &s.send_cq, &s.recv_cq, bad),
        Err(Error::BadDepth(3))
    ));
}

#[test]
fn a_cq_of_another_device_is_refused() {
    let s = setup();
    drop(s.qp);
    let other = Context::open(FakeDevice::new(8)).unwrap();
    let foreign = other.create_cq(2).unwrap();
    let caps = QpCaps {
        max_send_wr: 2,
        max_recv_wr: 2,
        max_send_sge: 1,
        max_recv_sge: 1,
    };
    assert!(matches!(
        QueuePair::create(&s.pd, &s.send_cq, &foreign, caps),
        Err(Error::BadAttr(_))
    ));
}

/// Runs one transition on a clean write log and returns its writes (QUERY left out).
fn writes_of(s: &Setup, attr: QpAttr) -> Vec<(u16, u32)> {
    s.dev.clear_log();
    s.qp.modify(attr).unwrap();
    effects(s.dev.writes())
}

/// The transition is one QP_CMD `cmd` on the QP, last, after a window holding every value of `want`.
fn assert_command(w: &[(u16, u32)], cmd: u32, want: &[(u16, u32)]) {
    assert_eq!(
        w.last(),
        Some(&(regs::QP_CMD, cmd)),
        "the command goes last"
    );
    for x in want {
        assert!(w.contains(x), "{x:x?} not in the window: {w:x?}");
    }
}

#[test]
fn modify_programs_each_transition_as_one_qp_command() {
    let s = setup();
    let w = writes_of(&s, QpAttr::Init(InitAttrs::default()));
    assert_command(&w, 1, &[(regs::QP_STATE, 1), (regs::QP_PD, s.pd.pdn)]);

    let rtr = RtrAttrs {
        dest_qpn: 0x7F00_0022,      // only 24 bits are a QPN
        rq_psn: 0x0100_1234,        // and a PSN
        traffic_class: 26 << 2 | 3, // DSCP 26; the ECN bits are the NIC's
        hop_limit: 9,
        flow_label: 0xF_FFFF,
        ..rtr_attrs()
    };
    let w = writes_of(&s, QpAttr::Rtr(rtr));
    // MODIFY | INIT_RQ: the responder starts at RQ_PSN.
    assert_command(
        &w,
        3,
        &[
            (regs::QP_STATE, 2),
            (regs::PMTU, 10),
            (regs::DEST_QPN, 0x22),
            (regs::RQ_PSN, 0x1234),
            (regs::DEST_MAC_LO, 0x0000_0009),
            (regs::DEST_MAC_HI, 0x0200),
            (regs::DEST_IPV4, 0x0A00_0009),
            (regs::UDP_SPORT, 0xC001),
            (regs::MIN_RNR_TIMER, 12),
            (regs::QP_DSCP, 26),
            (regs::QP_HOP_LIMIT, 9),
            (regs::QP_FLOW_LABEL, 0xF_FFFF),
        ],
    );

    let w = writes_of(&s, QpAttr::Rts(rts_attrs()));
    // MODIFY | INIT_SQ. timeout 14: 4.096 us * 2^14 = 67.1 ms = 10 485 760 cycles at 156.25 MHz
    assert_command(
        &w,
        5,
        &[
            (regs::QP_STATE, 3),
            (regs::SQ_PSN, 0x55),
            (regs::ACK_TIMEOUT, 10_485_760),
            (regs::RETRY_CNT, 3),
            (regs::RNR_RETRY, 7),
            (regs::DEST_QPN, 0x22),
        ],
    );
    assert_eq!(s.qp.query(), QpState::Rts);
    assert_eq!(s.dev.get_qp(QPN, regs::SQ_PSN), 0x55);
}

#[test]
fn modify_in_place_changes_only_the_attributes_given() {
    let s = setup();
    let only = |m: ModifyAttrs| QpAttr::Modify(m);
    // Not in INIT: nothing to modify in place there (IBA: INIT → INIT changes nothing we hold).
    s.qp.modify(QpAttr::Init(InitAttrs::default())).unwrap();
    assert_command(
        &writes_of(&s, QpAttr::Rtr(rtr_attrs())),
        3,
        &[(regs::QP_ACCESS, 2 | 4 | 8)],
    );
    // RTR: the responder's attributes may change, the requester's not yet.
    refused(
        &s,
        only(ModifyAttrs {
            retry_cnt: Some(2),
            ..ModifyAttrs::default()
        }),
        |e| matches!(e, Error::BadAttr(_)),
    );
    let w = writes_of(
        &s,
        only(ModifyAttrs {
            min_rnr_timer: Some(20),
            ..ModifyAttrs::default()
        }),
    );
    assert_command(&w, 1, &[(regs::QP_STATE, 2), (regs::MIN_RNR_TIMER, 20)]);
    s.qp.modify(QpAttr::Rts(rts_attrs())).unwrap();
    let w = writes_of(
        &s,
        only(ModifyAttrs {
            access: Some(AccessFlags::REMOTE_READ),
            ack_timeout_cycles: Some(5000),
            rnr_retry: Some(3),
            ..ModifyAttrs::default()
        }),
    );
    // MODIFY alone (no INIT_SQ: the send queue keeps its PSN), the rest of the window as before.
    assert_command(
        &w,
        1,
        &[
            (regs::QP_STATE, 3),
            (regs::QP_ACCESS, 4),
            (regs::ACK_TIMEOUT, 5000),
            (regs::RNR_RETRY, 3),
            (regs::RETRY_CNT, 3),
            (regs::MIN_RNR_TIMER, 20),
        ],
    );
    assert_eq!(s.qp.query(), QpState::Rts);
    assert_eq!(s.qp.access(), AccessFlags::REMOTE_READ);
    assert_eq!(s.dev.get_qp(QPN, regs::QP_ACCESS), 4);
    refused(
        &s,
        only(ModifyAttrs {
            retry_cnt: Some(8),
            ..ModifyAttrs::default()
        }),
        |e| matches!(e, Error::BadAttr(_)),
    );
    s.qp.modify(QpAttr::Err).unwrap();
    refused(
        &s,
        only(ModifyAttrs::default()),
        bad_transition(QpState::Err, QpState::Err),
    );
}

#[test]
fn ack_timeout_converts_the_ib_exponent_at_the_widths_clock() {
    assert_eq!(ack_timeout_cycles(14, 156.25), 10_485_760);
    assert_eq!(ack_timeout_cycles(14, 322.265625), 21_626_880);
    assert_eq!(ack_timeout_cycles(1, 156.25), 1280);
    assert_eq!(ack_timeout_cycles(0, 156.25), 0, "0 means no timeout");
    assert_eq!(ack_timeout_cycles(31, 322.265625), u32::MAX, "saturates");
    // On a 512-bit device, and with the simulator's raw-cycle override.
    let s = setup_with(
        64,
        QpCaps {
            max_send_wr: 2,
            max_recv_wr: 2,
            max_send_sge: 1,
            max_recv_sge: 1,
        },
    );
    s.qp.modify(QpAttr::Init(InitAttrs::default())).unwrap();
    s.qp.modify(QpAttr::Rtr(rtr_attrs())).unwrap();
    s.qp.modify(QpAttr::Rts(RtsAttrs {
        ack_timeout_cycles: Some(5000),
        ..rts_attrs()
    }))
    .unwrap();
    assert_eq!(s.dev.get(regs::ACK_TIMEOUT), 5000);
}

/// Asserts that `attr` is refused with `want` and that nothing reached the device.
fn refused(s: &Setup, attr: QpAttr, want: impl Fn(&Error) -> bool) {
    let before = s.qp.query();
    s.dev.clear_log();
    let e = s.qp.modify(attr).unwrap_err();
    assert!(want(&e), "{attr:?} from {before:?}: got {e}");
    assert_eq!(effects(s.dev.writes()), vec![], "{attr:?} from {before:?}");
    assert_eq!(s.qp.query(), before);
}

fn bad_transition(from: QpState, to: QpState) -> impl Fn(&Error) -> bool {
    move |e| matches!(e, Error::BadTransition { from: f, to: t } if *f == from && *t == to)
}

#[test]
fn illegal_transitions_and_attributes_are_refused_without_touching_the_device() {
    use QpState::*;
    let s = setup();
    let init = QpAttr::Init(InitAttrs::default());
    let rtr = QpAttr::Rtr(rtr_attrs());
    let rts = QpAttr::Rts(rts_attrs());
    refused(&s, rtr, bad_transition(Reset, Rtr));
    refused(&s, rts, bad_transition(Reset, Rts));
    refused(
        &s,
        QpAttr::Init(InitAttrs {
            port_num: 2,
            ..InitAttrs::default()
        }),
        |e| matches!(e, Error::BadAttr(_)),
    );
    refused(
        &s,
        QpAttr::Init(InitAttrs {
            pkey_index: 1,
            ..InitAttrs::default()
        }),
        |e| matches!(e, Error::BadAttr(_)),
    );
    s.qp.modify(init).unwrap();
    refused(&s, init, bad_transition(Init, Init));
    refused(&s, rts, bad_transition(Init, Rts));
    for mtu in [0, 128, 1000, 1500, 8192] {
        let attr = QpAttr::Rtr(RtrAttrs {
            path_mtu: mtu,
            ..rtr_attrs()
        });
        refused(&s, attr, |e| matches!(e, Error::BadMtu(m) if *m == mtu));
    }
    let attr = QpAttr::Rtr(RtrAttrs {
        max_dest_rd_atomic: regs::ATOMIC_RESULTS as u8 + 1,
        ..rtr_attrs()
    });
    refused(&s, attr, |e| matches!(e, Error::BadAttr(_)));
    s.qp.modify(rtr).unwrap();
    refused(&s, init, bad_transition(Rtr, Init));
    let attr = QpAttr::Rts(RtsAttrs {
        retry_cnt: 8,
        ..rts_attrs()
    });
    refused(&s, attr, |e| matches!(e, Error::BadAttr(_)));
    let attr = QpAttr::Rts(RtsAttrs {
        rnr_retry: 8,
        ..rts_attrs()
    });
    refused(&s, attr, |e| matches!(e, Error::BadAttr(_)));
    let attr = QpAttr::Rts(RtsAttrs {
        max_rd_atomic: regs::RD_ATOMIC_DEPTH as u8 + 1,
        ..rts_attrs()
    });
    refused(&s, attr, |e| matches!(e, Error::BadAttr(_)));
    s.qp.modify(rts).unwrap();
    refused(&s, rtr, bad_transition(Rts, Rtr));
    s.qp.modify(QpAttr::Err).unwrap();
    refused(&s, init, bad_transition(Err, Init));
    refused(&s, rts, bad_transition(Err, Rts));
}

#[test]
fn err_is_reachable_from_every_state() {
    let steps = [
        QpAttr::Init(InitAttrs::default()),
        QpAttr::Rtr(rtr_attrs()),
        QpAttr::Rts(rts_attrs()),
    ];
    for n in 0..=steps.len() {
        let s = setup();
        for step in &steps[..n] {
            s.qp.modify(*step).unwrap();
        }
        s.qp.modify(QpAttr::Err).unwrap();
        assert_eq!(
            s.dev.get(regs::QP_STATE),
            QpState::Err as u32,
            "after {n} steps"
        );
        assert_eq!(s.qp.query(), QpState::Err);
        s.qp.modify(QpAttr::Err).unwrap(); // and again: ERR -> ERR is allowed
    }
}

#[test]
fn modify_to_err_flushes_what_the_device_has_not_consumed_in_order() {
    let s = setup_with(
        8,
        QpCaps {
            max_send_wr: 4,
            max_recv_wr: 4,
            max_send_sge: 1,
            max_recv_sge: 1,
        },
    );
    to_rts(&s);
    // SAFETY: the fake device never touches the buffers.
    unsafe {
        s.qp.post_recv(&recv(&s, 10)).unwrap();
        s.qp.post_recv(&recv(&s, 11)).unwrap();
        s.qp.post_send(&send(&s, 1, SendFlags::default())).unwrap();
        s.qp.post_send(&send(&s, 2, SendFlags::SIGNALED)).unwrap();
        s.qp.post_send(&send(&s, 3, SendFlags::SIGNALED)).unwrap();
        s.qp.post_send(&send(&s, 4, SendFlags::default())).unwrap();
    }
    // The NIC has done sends 1 (unsignaled: no CQE) and 2, and received into 10.
    s.dev.set_qp(QPN, regs::SQ_CI, 2);
    s.dev.set_qp(QPN, regs::RQ_CI, 1);
    nic_completes_send(&s, 0, 2);
    nic_writes_cqe(&s, 1, 10, WcOpcode::Recv as u8, 0);
    s.qp.modify(QpAttr::Err).unwrap();

    let st = |w: &WorkCompletion| (w.wr_id, w.status);
    let sends = poll_all(&s.send_cq);
    assert_eq!(
        sends.iter().map(st).collect::<Vec<_>>(),
        vec![
            (2, WcStatus::Success),
            (3, WcStatus::WrFlushErr),
            (4, WcStatus::WrFlushErr)
        ],
        "1 completed silently; the rest follow the real completion, in posting order"
    );
    assert!(sends[1..]
        .iter()
        .all(|w| w.qp_num == QPN && w.opcode == WcOpcode::Send));
    let recvs = poll_all(&s.recv_cq);
    assert_eq!(
        recvs.iter().map(st).collect::<Vec<_>>(),
        vec![(10, WcStatus::Success), (11, WcStatus::WrFlushErr)]
    );
    assert_eq!(recvs[1].opcode, WcOpcode::Recv);
    assert_eq!(s.ctx.flushed_wqes(), 3);
    // Nothing is flushed twice.
    s.qp.modify(QpAttr::Err).unwrap();
    assert!(poll_all(&s.send_cq).is_empty() && poll_all(&s.recv_cq).is_empty());
    assert_eq!(s.ctx.flushed_wqes(), 3);
}

#[test]
fn an_error_completion_from_the_device_flushes_the_rest() {
    let s = setup();
    to_rts(&s);
    // SAFETY: the fake device never touches the buffers.
    unsafe {
        s.qp.post_recv(&recv(&s, 20)).unwrap();
        s.qp.post_send(&send(&s, 1, SendFlags::SIGNALED)).unwrap();
        s.qp.post_send(&send(&s, 2, SendFlags::SIGNALED)).unwrap();
    }
    // The peer NAKs send 1 with a remote access error; the core stops the QP.
    nic_writes_cqe(&s, 0, 1, WcOpcode::Send as u8, WcStatus::RemAccessErr as u8);
    s.dev.set_qp(QPN, regs::SQ_CI, 1);
    s.dev.set_qp(QPN, regs::QP_STATE, QpState::Err as u32);
    let sends = poll_all(&s.send_cq);
    assert_eq!(sends.len(), 2);
    assert_eq!(
        (sends[0].wr_id, sends[0].status),
        (1, WcStatus::RemAccessErr)
    );
    assert_eq!((sends[1].wr_id, sends[1].status), (2, WcStatus::WrFlushErr));
    let recvs = poll_all(&s.recv_cq);
    assert_eq!(
        (recvs[0].wr_id, recvs[0].status),
        (20, WcStatus::WrFlushErr)
    );
    assert_eq!(s.qp.query(), QpState::Err);
    assert!(matches!(
        unsafe { s.qp.post_send(&send(&s, 3, SendFlags::SIGNALED)) },
        Err(Error::WrongState(QpState::Err, _))
    ));
}

#[test]
fn query_notices_the_device_moved_the_qp_to_err_and_flushes() {
    let s = setup();
    to_rts(&s);
    // SAFETY: the fake device never touches the buffer.
    unsafe { s.qp.post_recv(&recv(&s, 5)).unwrap() };
    s.dev.set_qp(QPN, regs::QP_STATE, QpState::Err as u32); // e.g. the CQ ring overflowed: no CQE says so
    assert!(
        poll_all(&s.recv_cq).is_empty(),
        "nothing before the state is read"
    );
    assert_eq!(s.qp.query(), QpState::Err);
    let recvs = poll_all(&s.recv_cq);
    assert_eq!((recvs[0].wr_id, recvs[0].status), (5, WcStatus::WrFlushErr));
    assert_eq!(s.ctx.flushed_wqes(), 1);
}
