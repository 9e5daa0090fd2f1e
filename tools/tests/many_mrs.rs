//! The MR table (roce::mr_table) on two co-simulated NICs: thousands of registered regions each taking
//! the RDMA WRITEs and READs addressed to them with their own key, and the keys the table must refuse: a
//! key kept after its entry was registered again, a key naming an entry beyond the table, another MR's
//! key for this MR's bytes. Every refusal is a remote access error NAK (IBA §9.7.5.1.7): the requester
//! completes with REM_ACCESS_ERR, the responder's QP goes to ERR, and the memory is untouched.
use rocenic_driver::{
    AccessFlags, MemoryRegion, QpState, SendFlags, SendOp, Sge, WcOpcode, WcStatus, WorkRequest,
};
use rocenic_sim::{FabricConfig, Width};
use rocenic_testkit::pair::Pair;

use crate::common::run_one;

/// Bytes per MR; each MR is its own slice of one buffer.
const SZ: usize = 256;

fn connect() -> Pair {
    Pair::connect(
        FabricConfig {
            width: Width::W64,
            host_mem_bytes: 16 << 20,
            seed: 11,
            ..FabricConfig::default()
        },
        1024,
        60_000,
    )
    .unwrap()
}

fn pattern(i: usize) -> Vec<u8> {
    (0..SZ)
        .map(|k| (i as u8).wrapping_mul(13) ^ (i >> 8) as u8 ^ k as u8)
        .collect()
}

#[test]
fn thousands_of_mrs_each_take_their_own_writes_and_reads() {
    let p = connect();
    let n = 4000;
    let b_buf = p.b.ctx.alloc_dma(n * SZ).unwrap();
    let rw = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ;
    let mrs: Vec<MemoryRegion> = (0..n)
        .map(|i| p.b.pd.reg_mr(&b_buf, i * SZ, SZ, rw).unwrap())
        .collect();
    let entries: std::collections::HashSet<u32> = mrs.iter().map(|m| m.rkey() >> 8).collect();
    assert_eq!(entries.len(), n, "one MR table entry each");
    let a_src = p.a.ctx.alloc_dma(n * SZ).unwrap();
    for i in 0..n {
        a_src.write(i * SZ, &pattern(i)).unwrap();
    }
    let src =
        p.a.pd
            .reg_mr(&a_src, 0, n * SZ, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let a_dst = p.a.ctx.alloc_dma(n * SZ).unwrap();
    let dst =
        p.a.pd
            .reg_mr(&a_dst, 0, n * SZ, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let start = p.cycles();
    // WRITE i goes to MR i with MR i's key; up to 16 in flight (the send queue's depth).
    let post = |i: usize, read: bool| {
        let (remote_addr, rkey) = (mrs[i].addr(), mrs[i].rkey());
        let (op, local) = if read {
            (SendOp::RdmaRead { remote_addr, rkey }, &dst)
        } else {
            (SendOp::RdmaWrite { remote_addr, rkey }, &src)
        };
        // SAFETY: every MR stays registered until all completions are polled.
        unsafe {
            p.a.qp
                .post_send(&WorkRequest {
                    wr_id: i as u64,
                    op,
                    sge: Sge {
                        addr: local.addr() + (i * SZ) as u64,
                        length: SZ as u32,
                        lkey: local.lkey(),
                    },
                    flags: SendFlags::SIGNALED,
                })
                .unwrap();
        }
    };
    // Then READ every third MR back into another buffer.
    let reads: Vec<usize> = (0..n).step_by(3).collect();
    let jobs: Vec<(usize, bool)> = (0..n)
        .map(|i| (i, false))
        .chain(reads.iter().map(|&i| (i, true)))
        .collect();
    let mut next = 0;
    let mut done = 0;
    while done < jobs.len() {
        while next < jobs.len() && next - done < 16 {
            post(jobs[next].0, jobs[next].1);
            next += 1;
        }
        let wc = p.wait_for(&p.a.send_cq, 1_000_000).expect("a completion");
        assert_eq!(wc.status, WcStatus::Success, "{wc:?}");
        let (i, read) = jobs[done];
        assert_eq!(wc.wr_id, i as u64, "in order");
        let want = if read {
            WcOpcode::RdmaRead
        } else {
            WcOpcode::RdmaWrite
        };
        assert_eq!(wc.opcode, want);
        done += 1;
    }
    eprintln!(
        "{n} MRs: {} WRITEs and {} READs in {} cycles",
        n,
        reads.len(),
        p.cycles() - start
    );
    for i in 0..n {
        let mut got = vec![0; SZ];
        b_buf.read(i * SZ, &mut got).unwrap();
        assert_eq!(got, pattern(i), "MR {i} on B");
    }
    for &i in &reads {
        let mut got = vec![0; SZ];
        a_dst.read(i * SZ, &mut got).unwrap();
        assert_eq!(got, pattern(i), "READ of MR {i}");
    }
    assert_eq!(p.b.qp.query(), QpState::Rts);
}

/// A WRITE of 64 bytes at `addr` with `rkey` must be refused, leaving B's buffer as it was.
fn refused(p: &Pair, rkey: u32, addr: u64, b_buf: &rocenic_driver::DmaRegion) {
    let a_src = p.a.ctx.alloc_dma(64).unwrap();
    a_src.write(0, &[0xEE; 64]).unwrap();
    let src =
        p.a.pd
            .reg_mr(&a_src, 0, 64, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let mut before = vec![0; b_buf.len()];
    b_buf.read(0, &mut before).unwrap();
    let status = run_one(
        p,
        SendOp::RdmaWrite {
            remote_addr: addr,
            rkey,
        },
        &src,
        0,
        64,
    );
    assert_eq!(
        status,
        WcStatus::RemAccessErr,
        "rkey {rkey:#x} at {addr:#x}"
    );
    let mut after = vec![0; b_buf.len()];
    b_buf.read(0, &mut after).unwrap();
    assert!(before == after, "rkey {rkey:#x}: nothing may land");
    assert_eq!(p.b.qp.query(), QpState::Err, "the responder QP to ERR");
}

#[test]
fn a_key_kept_after_its_entry_is_registered_again_is_refused() {
    let p = connect();
    let b_buf = p.b.ctx.alloc_dma(4 * SZ).unwrap();
    let rw = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE;
    let _first = p.b.pd.reg_mr(&b_buf, 0, SZ, rw).unwrap();
    let old = p.b.pd.reg_mr(&b_buf, SZ, 2 * SZ, rw).unwrap();
    let (old_key, old_addr) = (old.rkey(), old.addr());
    // The key works while its MR is registered.
    let a_src = p.a.ctx.alloc_dma(64).unwrap();
    let src =
        p.a.pd
            .reg_mr(&a_src, 0, 64, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let ok = run_one(
        &p,
        SendOp::RdmaWrite {
            remote_addr: old_addr,
            rkey: old_key,
        },
        &src,
        0,
        64,
    );
    assert_eq!(ok, WcStatus::Success);
    drop(old);
    // The same entry, the same bytes, registered again: a new key.
    let again = p.b.pd.reg_mr(&b_buf, SZ, 2 * SZ, rw).unwrap();
    assert_eq!(again.rkey() >> 8, old_key >> 8, "the entry is reused");
    assert_ne!(again.rkey(), old_key);
    refused(&p, old_key, old_addr, &b_buf);
}

#[test]
fn a_key_beyond_the_table_is_refused() {
    let p = connect();
    let b_buf = p.b.ctx.alloc_dma(SZ).unwrap();
    let mr =
        p.b.pd
            .reg_mr(
                &b_buf,
                0,
                SZ,
                AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE,
            )
            .unwrap();
    // The index bits of this key, masked to the table's size, land on MR `mr`'s entry; the rest of the
    // key does not match it.
    let entries = p.b.ctx.max_mrs() as u32;
    assert_eq!(entries, 8192, "the 64-bit core's table");
    let alias = mr.rkey() + (entries << 8);
    refused(&p, alias, mr.addr(), &b_buf);
}

#[test]
fn another_mrs_key_does_not_reach_past_its_own_bytes() {
    let p = connect();
    let b_buf = p.b.ctx.alloc_dma(2 * SZ).unwrap();
    let rw = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE;
    let low = p.b.pd.reg_mr(&b_buf, 0, SZ, rw).unwrap();
    let _high = p.b.pd.reg_mr(&b_buf, SZ, SZ, rw).unwrap();
    // 64 bytes from 32 before the end of `low`: half of them are `high`'s.
    refused(&p, low.rkey(), low.addr() + SZ as u64 - 32, &b_buf);
}

#[test]
fn a_send_with_invalidate_ends_an_mr_between_two_nics() {
    let p = connect();
    let b_buf = p.b.ctx.alloc_dma(2 * SZ).unwrap();
    let access =
        AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_INVALIDATE;
    let target = p.b.pd.reg_mr(&b_buf, 0, SZ, access).unwrap();
    let recv =
        p.b.pd
            .reg_mr(&b_buf, SZ, SZ, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let a_src = p.a.ctx.alloc_dma(2 * SZ).unwrap();
    a_src.write(0, &pattern(1)).unwrap();
    a_src.write(SZ, &pattern(2)).unwrap();
    let src =
        p.a.pd
            .reg_mr(&a_src, 0, 2 * SZ, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let write = SendOp::RdmaWrite {
        remote_addr: target.addr(),
        rkey: target.rkey(),
    };
    assert_eq!(run_one(&p, write, &src, 0, 64), WcStatus::Success);
    // SAFETY: `recv` stays registered until the completion is polled.
    unsafe {
        p.b.qp
            .post_recv(&rocenic_driver::RecvRequest {
                wr_id: 5,
                sge: Sge {
                    addr: recv.addr(),
                    length: SZ as u32,
                    lkey: recv.lkey(),
                },
            })
            .unwrap();
    }
    let inv = SendOp::SendWithInv {
        invalidate_rkey: target.rkey(),
    };
    assert_eq!(run_one(&p, inv, &src, SZ, SZ), WcStatus::Success);
    let wc = p.wait_for(&p.b.recv_cq, 100_000).expect("B's receive");
    assert_eq!(wc.status, WcStatus::Success);
    assert_eq!(wc.invalidated_rkey, Some(target.rkey()), "{wc:?}");
    assert_eq!(wc.byte_len, SZ as u32);
    let mut got = vec![0; SZ];
    b_buf.read(SZ, &mut got).unwrap();
    assert_eq!(got, pattern(2), "the SEND lands");
    assert!(target.is_invalidated());
    // The invalidated key no longer opens the MR.
    refused(&p, target.rkey(), target.addr(), &b_buf);
}
