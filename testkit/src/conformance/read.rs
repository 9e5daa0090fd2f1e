//! RDMA READ at the responder: responses, duplicates re-executed, R_Key and bounds, MTU boundaries, zero
//! length (IBA 9.7.5.1.5, 9.4.3).
use super::*;

pub(super) fn read_responses(b: &mut Bench, len: usize) -> Result<(), String> {
    let rkey = b.mr.rkey();
    let p = read_request(b, 256, len, rkey, MTU);
    let want = b.mem_at(256, len);
    expect_read_responses(b, p, &want, MTU, 1)
}

pub(super) fn read_only_response(b: &mut Bench) -> Result<(), String> {
    read_responses(b, 100)
}

pub(super) fn read_first_middle_last(b: &mut Bench) -> Result<(), String> {
    read_responses(b, 2 * MTU + 300)
}

pub(super) fn read_duplicate_reexecute(b: &mut Bench) -> Result<(), String> {
    read_responses(b, 1500)?;
    // The same request again (a duplicate PSN): executed again, responses from its PSN.
    b.peer_psn = (b.peer_psn + 0xFF_FFFE) & 0xFF_FFFF;
    read_responses(b, 1500)?;
    check!(b.counter(regs::RX_DUP_REQUESTS) == 1, "RX_DUP_REQUESTS");
    Ok(())
}

pub(super) fn read_without_remote_read(b: &mut Bench) -> Result<(), String> {
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

/// A's register `off` written as the host would (the core's view: path MTU, QP state, ...).
pub(super) fn set_reg(b: &Bench, off: u16, v: u32) {
    b.set_reg(off, v);
}

/// Changes attributes of A's QP behind the driver's back: the window registers, then QP_CMD MODIFY.
pub(super) fn set_qp(b: &Bench, writes: &[(u16, u32)]) {
    set_reg(b, regs::QPN, QPN);
    for &(off, v) in writes {
        set_reg(b, off, v);
    }
    set_reg(b, regs::QP_CMD, 1);
}

/// Path MTU `1 << lg` on A's QP (the PMTU register the RTR transition programs).
pub(super) fn set_pmtu(b: &Bench, lg: u32) -> usize {
    set_qp(b, &[(regs::PMTU, lg)]);
    1 << lg
}

/// `frame` re-parsed, changed by `f`, resealed (lengths, checksum, ICRC) and padded to 60 bytes.
pub(super) fn edited(frame: &[u8], f: impl FnOnce(&mut Frame)) -> Vec<u8> {
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
pub(super) fn read_request(b: &mut Bench, off: usize, len: usize, rkey: u32, mtu: usize) -> u32 {
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
pub(super) fn expect_read_responses(
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
pub(super) fn expect_fatal_nak(b: &Bench, syndrome: u8, psn: u32) -> Result<(), String> {
    b.expect_ack(syndrome, psn, None)?;
    check!(
        b.qp_state() == QpState::Err,
        "the responder QP must enter ERR (IBA 9.9.3)"
    );
    Ok(())
}

pub(super) fn read_rkey_violation(b: &mut Bench) -> Result<(), String> {
    let rkey = b.mr.rkey() ^ 0x80;
    let p = read_request(b, 0, 64, rkey, MTU);
    expect_fatal_nak(b, 0x62, p)?;
    check!(
        b.counter(regs::RX_REMOTE_ACCESS_ERRORS) == 1,
        "RX_REMOTE_ACCESS_ERRORS"
    );
    Ok(())
}

pub(super) fn read_out_of_bounds(b: &mut Bench) -> Result<(), String> {
    // Starts inside the MR, ends 512 bytes past it.
    let rkey = b.mr.rkey();
    let p = read_request(b, REGION - 512, MTU, rkey, MTU);
    expect_fatal_nak(b, 0x62, p)
}

pub(super) fn read_any_byte_address(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn write_any_byte_address(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn read_zero_length(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn read_mtu_boundaries(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn read_psn_seq_err_nak(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn read_duplicate_partial(b: &mut Bench) -> Result<(), String> {
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
