//! SEND at the responder: receive WQEs and scatter lists, RNR, immediate data and invalidate, message
//! lengths (IBA 9.7.5, 9.4.1, 10.6.3).
use super::*;

pub(super) fn send_only_to_receive(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn send_first_middle_last(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn send_rnr_nak_then_retry(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn send_longer_than_receive(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn send_scatter_list(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn send_malformed_scatter_list(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn send_only_with_immediate(b: &mut Bench) -> Result<(), String> {
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

/// A SEND with invalidate (ONLY, or FIRST + LAST when `two`) naming an MR registered with
/// REMOTE_INVALIDATE: the message lands, the completion names the key, and the key is dead after.
pub(super) fn send_with_invalidate(b: &mut Bench, two: bool) -> Result<(), String> {
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

pub(super) fn send_only_with_invalidate(b: &mut Bench) -> Result<(), String> {
    send_with_invalidate(b, false)
}

pub(super) fn send_last_with_invalidate(b: &mut Bench) -> Result<(), String> {
    send_with_invalidate(b, true)
}

pub(super) fn send_with_invalidate_not_allowed(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn local_at(b: &Bench, off: usize, len: usize) -> Vec<u8> {
    let mut v = vec![0; len];
    b.local.read(off, &mut v).unwrap();
    v
}

pub(super) fn send_last_with_immediate(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn send_solicited_event(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn send_middle_without_first(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn send_zero_length(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn send_two_receives_in_order(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn msn_counts_messages(b: &mut Bench) -> Result<(), String> {
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
