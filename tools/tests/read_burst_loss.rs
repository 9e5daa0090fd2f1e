//! RDMA READs with several outstanding (max_rd_atomic 4) when a burst of READ responses is lost: the
//! requester asks again from the first response missing and every READ completes with its data.
use rocenic_driver::{AccessFlags, SendFlags, SendOp, Sge, WcOpcode, WcStatus, WorkRequest};
use rocenic_proto::regs;
use rocenic_sim::{FabricConfig, FaultPlan, Width};
use rocenic_testkit::pair::{Pair, PairParams};

/// `n` READs of `len` bytes at MTU 1024 with B's response frames `drop` lost (B's frame k is response k
/// while nothing is lost before it); returns what the recovery took.
fn reads_with_loss(width: Width, n: usize, len: usize, drop: &[u64]) -> Result<Recovery, String> {
    let mut faults = FaultPlan::none();
    for &f in drop {
        faults = faults.drop_frame(1, f);
    }
    let cfg = FabricConfig {
        width,
        host_mem_bytes: 16 << 20,
        link_latency_cycles: 200,
        faults,
        ..FabricConfig::default()
    };
    let params = PairParams {
        max_rd_atomic: 4,
        ..PairParams::new(1024, 40_000)
    };
    let p = Pair::connect_with(cfg, &params).unwrap();
    let data: Vec<u8> = (0..n * len).map(|i| (i * 7 + i / 251) as u8).collect();
    let remote = p.b.ctx.alloc_dma(n * len).unwrap();
    remote.write(0, &data).unwrap();
    let rmr =
        p.b.pd
            .reg_mr(
                &remote,
                0,
                n * len,
                AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_READ,
            )
            .unwrap();
    let local = p.a.ctx.alloc_dma(n * len).unwrap();
    let lmr =
        p.a.pd
            .reg_mr(&local, 0, n * len, AccessFlags::LOCAL_WRITE)
            .unwrap();
    for i in 0..n {
        let at = (i * len) as u64;
        let wr = WorkRequest {
            wr_id: i as u64,
            op: SendOp::RdmaRead {
                remote_addr: rmr.addr() + at,
                rkey: rmr.rkey(),
            },
            sge: Sge {
                addr: lmr.addr() + at,
                length: len as u32,
                lkey: lmr.lkey(),
            },
            flags: SendFlags::SIGNALED,
        };
        // SAFETY: both buffers live to the end of the function, after every completion.
        unsafe { p.a.qp.post_send(&wr).unwrap() };
    }
    let start = p.fabric.lock().unwrap().cycles();
    let mut done = 0;
    let mut wc = [Default::default()];
    let mut idle = 0u64;
    while done < n {
        p.fabric.lock().unwrap().run(1000);
        idle += 1000;
        while p.a.send_cq.poll(&mut wc) == 1 {
            let c = wc[0];
            if (c.wr_id, c.status, c.opcode) != (done as u64, WcStatus::Success, WcOpcode::RdmaRead)
            {
                return Err(format!("completion {done}: {c:?}"));
            }
            done += 1;
            idle = 0;
        }
        if idle > 2_000_000 {
            let st = p.fabric.lock().unwrap().reg_read(0, regs::TX_STATUS);
            // The NIC still owns the buffers: leak them rather than free memory it may touch.
            std::mem::forget((lmr, rmr, local, remote));
            std::mem::forget(p);
            return Err(format!("stalled at {done} of {n}: TX_STATUS A {st:#010x}"));
        }
    }
    let mut got = vec![0; n * len];
    local.read(0, &mut got).unwrap();
    if got != data {
        return Err("READ data differs".into());
    }
    let (end, timeouts, implied) = {
        let mut f = p.fabric.lock().unwrap();
        (
            f.cycles(),
            f.reg_read(0, regs::ACK_TIMEOUTS),
            f.reg_read(0, regs::IMPLIED_NAK_SEQ_ERR),
        )
    };
    // Requests sent again may still be answered (B reads its MR): let the link go quiet first.
    p.fabric.lock().unwrap().run(300_000);
    Ok(Recovery {
        cycles: end - start,
        timeouts,
        implied,
    })
}

struct Recovery {
    cycles: u64,
    /// A's ACK_TIMEOUTS and IMPLIED_NAK_SEQ_ERR.
    timeouts: u32,
    implied: u32,
}

/// 8 READs of 64 KiB (64 responses each), 4 outstanding: a burst of 53 responses lost from inside the
/// first, second, third or fourth READ outstanding, or across two of them. (A run of 40 random sets of
/// three bursts, 1 to 120 responses each, over 12 READs also recovered every time; it takes 5 minutes, so
/// it is not kept.)
#[test]
fn a_lost_burst_inside_any_read_is_asked_again() {
    let mut errs = Vec::new();
    for start in [10u64, 40, 70, 100, 101, 128, 150, 200, 230] {
        if let Err(e) = reads_with_loss(
            Width::W64,
            8,
            65536,
            &(start..start + 53).collect::<Vec<_>>(),
        ) {
            errs.push(format!("burst at {start}: {e}"));
        }
    }
    assert!(errs.is_empty(), "{}", errs.join("\n"));
}

/// The last responses of a READ, its READ RESPONSE LAST among them, lost: the next READ's first response
/// is ahead of the one expected, an implied NAK (§9.7.6), and the READ is asked again at once from its
/// first missing response, not after the local ACK timeout. Likewise for the second READ outstanding.
#[test]
fn a_lost_read_tail_is_asked_again_without_a_timeout() {
    for (first, width) in [(50u64, Width::W64), (100, Width::W64), (50, Width::W512)] {
        let drop: Vec<u64> = (first..first + 14).collect();
        let r = reads_with_loss(width, 6, 65536, &drop).unwrap();
        assert_eq!(
            (r.timeouts, r.implied >= 1),
            (0, true),
            "responses {first}..{} lost ({width:?}): {} ACK timeouts, {} implied NAKs, {} cycles",
            first + 14,
            r.timeouts,
            r.implied,
            r.cycles
        );
    }
}
