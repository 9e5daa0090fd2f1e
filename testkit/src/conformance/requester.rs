//! The NIC as requester: segmentation, ACK coalescing, go-back-N on NAK and timeout, RNR waits, READ and
//! atomics, NAK codes taken to completions (IBA 9.7.6, 9.9).
use super::*;

pub(super) fn post_write(b: &Bench, len: usize) -> Result<(), String> {
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

pub(super) fn expect_requests(b: &Bench, psns: &[u32]) -> Result<Vec<Frame>, String> {
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

pub(super) fn requester_coalesced_ack(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn requester_go_back_n_from_nak_psn(b: &mut Bench) -> Result<(), String> {
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
pub(super) fn post_read(b: &mut Bench, wr_id: u64, len: usize) -> Result<(), String> {
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
pub(super) fn read_landed(b: &mut Bench, d: &[u8]) -> Result<(), String> {
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

pub(super) fn requester_read_nak_past_it_asks_again(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn requester_timeout_resends(b: &mut Bench) -> Result<(), String> {
    post_write(b, 100)?;
    b.run(3000);
    let p = b.a_psn;
    expect_requests(b, &[p])?;
    b.run(25_000); // ACK timeout 20,000 cycles
    expect_requests(b, &[p])?;
    check!(b.counter(regs::ACK_TIMEOUTS) == 1, "ACK_TIMEOUTS");
    acked_completes(b, p)
}

pub(super) fn requester_rnr_wait(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn requester_fatal_nak(
    b: &mut Bench,
    syndrome: u8,
    status: WcStatus,
) -> Result<(), String> {
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

pub(super) fn requester_rem_access_err(b: &mut Bench) -> Result<(), String> {
    requester_fatal_nak(b, 0x62, WcStatus::RemAccessErr)
}
pub(super) fn requester_rem_inv_req(b: &mut Bench) -> Result<(), String> {
    requester_fatal_nak(b, 0x61, WcStatus::RemInvReqErr)
}
pub(super) fn requester_rem_op_err(b: &mut Bench) -> Result<(), String> {
    requester_fatal_nak(b, 0x63, WcStatus::RemOpErr)
}

pub(super) fn requester_read_lands_responses(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn requester_read_cut_by_error_writes_no_more(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn requester_send_segments(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn requester_write_with_imm(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn requester_send_with_invalidate(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn requester_atomic_fetch_add(b: &mut Bench) -> Result<(), String> {
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
pub(super) fn back_to_back(
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

pub(super) fn read_responses_before_later_ack(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn atomic_ack_before_later_ack(b: &mut Bench) -> Result<(), String> {
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
