//! Send work requests with gather lists, on two co-simulated NICs (hdl host::gather): SENDs and RDMA
//! WRITEs (with and without immediate) whose message is 2 to 4 buffers at odd addresses, of lengths
//! from 0 to several path MTUs, so packets take bytes from several buffers and buffers span several
//! packets. The receiver's buffer holds the buffers' bytes one after the other and nothing around it
//! changes. Both widths. Then what the driver refuses before the device sees it.
use rocenic_driver::{
    AccessFlags, Error, RecvRequest, SendFlags, SendOp, SendWr, Sge, WcOpcode, WcStatus,
    WorkRequest,
};
use rocenic_sim::Width;

use crate::common::{list_pair, Rng};

const BUDGET: u64 = 2_000_000;
const MTU: u32 = 256;
const REGION: usize = 16384;
const FILL: u8 = 0xEE;

#[test]
fn sends_and_writes_gather_their_buffers_in_order() {
    for width in [Width::W64, Width::W512] {
        let beat = width.bytes() as u64;
        let p = list_pair(width, MTU, 4, 1);
        let src = p.a.ctx.alloc_dma(REGION).unwrap();
        let smr =
            p.a.pd
                .reg_mr(&src, 0, REGION, AccessFlags::LOCAL_WRITE)
                .unwrap();
        let dst = p.b.ctx.alloc_dma(REGION).unwrap();
        let access = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE;
        let dmr = p.b.pd.reg_mr(&dst, 0, REGION, access).unwrap();
        let mut rng = Rng::new(0x5EED_0001 + beat);
        // Lengths around the beat and the MTU, and empty entries.
        let lens = [0, 1, 3, beat - 1, beat, beat + 1, 100, 255, 256, 257, 700];
        for n in 0..24u64 {
            let entries = 2 + (n % 3) as usize;
            // Buffers one after another in the source region at odd gaps, in a shuffled order so the
            // list does not walk memory upwards.
            let mut list = Vec::new();
            let mut at = 1 + rng.below(beat);
            for _ in 0..entries {
                let len = lens[rng.below(lens.len() as u64) as usize];
                list.push(Sge {
                    addr: smr.addr() + at,
                    length: len as u32,
                    lkey: smr.lkey(),
                });
                at += len + 1 + rng.below(2 * beat);
            }
            list.rotate_left((n % entries as u64) as usize);
            src.write(0, &[0x11; REGION]).unwrap();
            let mut want = Vec::new();
            for (i, s) in list.iter().enumerate() {
                let bytes: Vec<u8> = (0..s.length)
                    .map(|k| {
                        (k as u8)
                            .wrapping_mul(31)
                            .wrapping_add(n as u8 * 7 + i as u8)
                    })
                    .collect();
                src.write((s.addr - smr.addr()) as usize, &bytes).unwrap();
                want.extend(bytes);
            }
            let total = want.len();
            let off = rng.below(beat) as usize;
            dst.write(0, &[FILL; REGION]).unwrap();
            let what = format!("{width:?} message {n}: {list:?}");
            let imm = 0xA000 + n as u32;
            let op = match n % 4 {
                0 => SendOp::Send,
                1 => SendOp::SendWithImm { imm },
                2 => SendOp::RdmaWrite {
                    remote_addr: dmr.addr() + off as u64,
                    rkey: dmr.rkey(),
                },
                _ => SendOp::RdmaWriteWithImm {
                    remote_addr: dmr.addr() + off as u64,
                    rkey: dmr.rkey(),
                    imm,
                },
            };
            let consumes_recv = !matches!(op, SendOp::RdmaWrite { .. });
            if consumes_recv {
                let rr = RecvRequest {
                    wr_id: 100 + n,
                    sge: Sge {
                        addr: dmr.addr() + off as u64,
                        length: (REGION - off) as u32,
                        lkey: dmr.lkey(),
                    },
                };
                // SAFETY: the buffer outlives the completion polled below.
                unsafe { p.b.qp.post_recv(&rr).unwrap() };
            }
            let wr = SendWr {
                wr_id: n,
                op,
                sg_list: &list,
                flags: SendFlags::SIGNALED,
            };
            // SAFETY: every buffer of the list outlives the completion polled below.
            unsafe { p.a.qp.post_send_gather(&wr).unwrap() };
            let c = p.wait_for(&p.a.send_cq, BUDGET).expect(&what);
            assert_eq!((c.wr_id, c.status), (n, WcStatus::Success), "{what}");
            if consumes_recv {
                let r = p.wait_for(&p.b.recv_cq, BUDGET).expect(&what);
                let opcode = if matches!(op, SendOp::RdmaWriteWithImm { .. }) {
                    WcOpcode::RecvRdmaWithImm
                } else {
                    WcOpcode::Recv
                };
                assert_eq!((r.status, r.opcode), (WcStatus::Success, opcode), "{what}");
                if opcode == WcOpcode::Recv {
                    assert_eq!(r.byte_len as usize, total, "{what}: byte_len");
                }
                if !matches!(op, SendOp::Send) {
                    assert_eq!(r.imm_data, Some(imm), "{what}: immediate");
                }
            }
            let mut got = vec![0; REGION];
            dst.read(0, &mut got).unwrap();
            assert!(got[..off].iter().all(|&b| b == FILL), "{what}: before");
            assert!(got[off..off + total] == want[..], "{what}: data");
            assert!(
                got[off + total..].iter().all(|&b| b == FILL),
                "{what}: after"
            );
        }
    }
}

#[test]
fn the_driver_refuses_lists_the_qp_or_the_core_cannot_take() {
    let p = list_pair(Width::W64, MTU, 4, 1);
    let src = p.a.ctx.alloc_dma(4096).unwrap();
    let mr =
        p.a.pd
            .reg_mr(&src, 0, 4096, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let sge = |at: u64, length: u32| Sge {
        addr: mr.addr() + at,
        length,
        lkey: mr.lkey(),
    };
    let five = [sge(0, 8), sge(8, 8), sge(16, 8), sge(24, 8), sge(32, 8)];
    fn wr(op: SendOp, sg_list: &[Sge]) -> SendWr<'_> {
        SendWr {
            wr_id: 1,
            op,
            sg_list,
            flags: SendFlags::SIGNALED,
        }
    }
    // SAFETY (every post below): the device never sees these requests, they are refused first.
    let e = unsafe { p.a.qp.post_send_gather(&wr(SendOp::Send, &five)) };
    assert!(
        matches!(e, Err(Error::TooManySges { given: 5, max: 4 })),
        "{e:?}"
    );
    // An atomic's local buffer is one 8-byte word (a READ's list scatters: tools/tests/scatter.rs).
    let fetch_add = SendOp::AtomicFetchAdd {
        remote_addr: 0x1000,
        rkey: 1,
        add: 1,
    };
    let e = unsafe {
        p.a.qp
            .post_send_gather(&wr(fetch_add, &[sge(0, 4), sge(8, 4)]))
    };
    assert!(matches!(e, Err(Error::Unsupported(_))), "{e:?}");
    // The second entry runs past the MR.
    let e = unsafe {
        p.a.qp
            .post_send_gather(&wr(SendOp::Send, &[sge(0, 8), sge(4090, 8)]))
    };
    assert!(matches!(e, Err(Error::LocalProtection { .. })), "{e:?}");
    // The push window holds 64-byte WQEs.
    let one = WorkRequest {
        wr_id: 2,
        op: SendOp::Send,
        sge: sge(0, 8),
        flags: SendFlags::SIGNALED,
    };
    let e = unsafe { p.a.qp.post_send_push(&one) };
    assert!(matches!(e, Err(Error::BadAttr(_))), "{e:?}");
    // A QP with max_send_sge 1 takes one entry.
    let q = list_pair(Width::W64, MTU, 1, 1);
    let buf1 = q.a.ctx.alloc_dma(4096).unwrap();
    let mr1 =
        q.a.pd
            .reg_mr(&buf1, 0, 4096, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let two = [
        Sge {
            addr: mr1.addr(),
            length: 8,
            lkey: mr1.lkey(),
        },
        Sge {
            addr: mr1.addr() + 8,
            length: 8,
            lkey: mr1.lkey(),
        },
    ];
    let e = unsafe { q.a.qp.post_send_gather(&wr(SendOp::Send, &two)) };
    assert!(
        matches!(e, Err(Error::TooManySges { given: 2, max: 1 })),
        "{e:?}"
    );
    // Nothing was posted: the QPs still work (a one-entry SEND on the 4-entry QP, 128-byte WQE).
    let rbuf = p.b.ctx.alloc_dma(64).unwrap();
    let rmr =
        p.b.pd
            .reg_mr(&rbuf, 0, 64, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let rr = RecvRequest {
        wr_id: 9,
        sge: Sge {
            addr: rmr.addr(),
            length: 64,
            lkey: rmr.lkey(),
        },
    };
    src.write(0, &[0x5A; 8]).unwrap();
    // SAFETY: the buffers outlive the completions polled below.
    unsafe {
        p.b.qp.post_recv(&rr).unwrap();
        p.a.qp.post_send(&one).unwrap();
    }
    let c = p.wait_for(&p.a.send_cq, BUDGET).unwrap();
    assert_eq!((c.wr_id, c.status), (2, WcStatus::Success));
    let r = p.wait_for(&p.b.recv_cq, BUDGET).unwrap();
    assert_eq!((r.wr_id, r.byte_len), (9, 8));
    let mut got = [0u8; 8];
    rbuf.read(0, &mut got).unwrap();
    assert_eq!(got, [0x5A; 8]);
}
