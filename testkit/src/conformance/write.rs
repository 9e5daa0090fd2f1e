//! RDMA WRITE at the responder: segments, PSN and duplicate handling, R_Key and bounds checks, immediate
//! data, zero length, any byte address, every path MTU (IBA 9.7.5, 9.4.3, 9.7.5.1).
use super::*;

pub(super) fn write_only_ack(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn write_first_middle_last(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn write_psn_seq_err_nak(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn write_duplicate_reack(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn remote_access_nak(b: &mut Bench, ext: ExtHeaders, len: usize) -> Result<(), String> {
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

pub(super) fn write_rkey_violation(b: &mut Bench) -> Result<(), String> {
    let e = b.reth(0, 64, b.mr.rkey() ^ 0x80);
    remote_access_nak(b, e, 64)
}

pub(super) fn write_out_of_bounds(b: &mut Bench) -> Result<(), String> {
    let e = b.reth(REGION - 32, 64, b.mr.rkey());
    remote_access_nak(b, e, 64)
}

pub(super) fn write_without_remote_write_access(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn write_mr_invalidated_mid_message(b: &mut Bench) -> Result<(), String> {
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
pub(super) fn zero_length_reth_matching_no_mr() -> ExtHeaders {
    ExtHeaders {
        reth: Some(RethRepr {
            va: 0xDEAD_0000,
            rkey: 0xBAD,
            dma_len: 0,
        }),
        ..ExtHeaders::default()
    }
}

pub(super) fn write_zero_length_unchecked(b: &mut Bench) -> Result<(), String> {
    let p = b.take_psn(1);
    let e = zero_length_reth_matching_no_mr();
    b.inject(b.frame(op::RC_RDMA_WRITE_ONLY, p, e, &[], true), 3000);
    b.expect_ack(0x00, p, Some(1))?;
    check!(b.qp_state() == QpState::Rts, "still RTS");
    Ok(())
}

pub(super) fn invalid_request_nak(b: &mut Bench, frame: Vec<u8>, psn: u32) -> Result<(), String> {
    b.inject(frame, 3000);
    b.expect_ack(0x61, psn, None)?;
    check!(
        b.qp_state() == QpState::Err,
        "the responder QP must enter ERR (IBA 9.9.3)"
    );
    Ok(())
}

pub(super) fn write_middle_without_first(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn write_length_mismatch(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn write_first_shorter_than_mtu(b: &mut Bench) -> Result<(), String> {
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

/// The receive WQE of a `_scatter_` case: entries in `local`, at `(offset, length)`.
pub(super) fn scatter_list(b: &Bench, at: &[(usize, u32)]) -> Vec<Sge> {
    at.iter()
        .map(|&(off, length)| Sge {
            addr: b.local_mr.addr() + off as u64,
            length,
            lkey: b.local_mr.lkey(),
        })
        .collect()
}

/// The IETH of a SEND with invalidate.
pub(super) fn ieth(rkey: u32) -> ExtHeaders {
    ExtHeaders {
        ieth: Some(IethRepr { rkey }),
        ..ExtHeaders::default()
    }
}

pub(super) fn write_only_with_immediate(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn word(b: &Bench, off: usize) -> u64 {
    u64::from_le_bytes(b.mem_at(off, 8).try_into().unwrap())
}

pub(super) fn ignored(b: &mut Bench, frame: Vec<u8>, counter: u16) -> Result<(), String> {
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

pub(super) fn write_last_with_immediate(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn write_each_path_mtu(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn write_first_without_last(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn write_psn_wrap(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn write_duplicate_older_psn(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn write_ackreq_clear_coalesced(b: &mut Bench) -> Result<(), String> {
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
pub(super) fn write64(b: &Bench, psn: u32, d: &[u8]) -> Vec<u8> {
    b.frame(
        op::RC_RDMA_WRITE_ONLY,
        psn,
        b.reth(0, 64, b.mr.rkey()),
        d,
        true,
    )
}

pub(super) fn write_in_rtr(b: &mut Bench) -> Result<(), String> {
    // The QP back in RTR (QP_STATE = 2): the responder works, the requester side does not send.
    set_qp(b, &[(regs::QP_STATE, QpState::Rtr as u32)]);
    let d = pattern(64, 55);
    let p = b.take_psn(1);
    b.inject(write64(b, p, &d), 3000);
    b.expect_ack(0x00, p, Some(1))?;
    check!(b.mem_at(0, 64) == d, "data written in RTR");
    Ok(())
}

pub(super) fn write_in_init_dropped(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn packet_from_another_source_dropped(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn write_in_err_dropped(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn write_in_sqd(b: &mut Bench) -> Result<(), String> {
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
pub(super) fn qp_access_refused(
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

pub(super) fn write_qp_without_remote_write(b: &mut Bench) -> Result<(), String> {
    let e = b.reth(0, 64, b.mr.rkey());
    qp_access_refused(b, 4 | 8, op::RC_RDMA_WRITE_ONLY, e, 64)
}

pub(super) fn read_qp_without_remote_read(b: &mut Bench) -> Result<(), String> {
    let e = b.reth(0, 64, b.mr.rkey());
    qp_access_refused(b, 2 | 8, op::RC_RDMA_READ_REQUEST, e, 0)
}

pub(super) fn atomic_qp_without_remote_atomic(b: &mut Bench) -> Result<(), String> {
    let e = atomic_eth(b.mr.addr() + 8, b.mr.rkey(), 1, 0);
    qp_access_refused(b, 2 | 4, op::RC_FETCH_ADD, e, 0)
}

pub(super) fn write_other_pd(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn write_imm_rnr_nak(b: &mut Bench) -> Result<(), String> {
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
