//! Atomics at the responder: FETCH_ADD and COMPARE_SWAP, replay of duplicates, alignment, access and
//! bounds (IBA 9.4.5, 9.7.5.1.4).
use super::*;

pub(super) fn atomic(
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

pub(super) fn atomic_fetch_add(b: &mut Bench) -> Result<(), String> {
    let old = word(b, 8);
    let p = b.take_psn(1);
    let orig = atomic(b, op::RC_FETCH_ADD, 8, 5, 0, p)?;
    check!(orig == old, "original {orig:#x}, memory had {old:#x}");
    check!(word(b, 8) == old.wrapping_add(5), "word not added");
    Ok(())
}

pub(super) fn atomic_compare_swap_hit_and_miss(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn atomic_replay(b: &mut Bench) -> Result<(), String> {
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
pub(super) fn atomic_replay_depth(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn atomic_misaligned(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn atomic_eth(va: u64, rkey: u32, swap_add: u64, compare: u64) -> ExtHeaders {
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
pub(super) fn atomic_access_nak(
    b: &mut Bench,
    opcode: u8,
    ext: ExtHeaders,
    off: usize,
) -> Result<(), String> {
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

pub(super) fn atomic_without_remote_atomic(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn atomic_out_of_bounds(b: &mut Bench) -> Result<(), String> {
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

pub(super) fn atomic_rkey_violation(b: &mut Bench) -> Result<(), String> {
    let old = word(b, 48);
    let e = atomic_eth(b.mr.addr() + 48, b.mr.rkey() ^ 0x80, 99, old);
    atomic_access_nak(b, op::RC_COMPARE_SWAP, e, 48)
}

pub(super) fn atomic_fetch_add_wraps(b: &mut Bench) -> Result<(), String> {
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
