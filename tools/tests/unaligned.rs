//! Buffers at any byte address, on two co-simulated NICs: a WRITE to a remote address off the beat, a
//! SEND into a receive buffer off the beat and a READ into a local buffer off the beat all land byte for
//! byte, and not a byte outside them changes (hdl host::write_align); the WRITE's and SEND's source and
//! the READ's remote source are off the beat too, by another offset (hdl host::read_align). Sizes around
//! the path MTU and the beat, every kind of offset at both ends, both widths.
use rocenic_driver::{
    AccessFlags, RecvRequest, SendFlags, SendOp, Sge, WcOpcode, WcStatus, WorkRequest,
};
use rocenic_sim::{FabricConfig, Width};
use rocenic_testkit::pair::Pair;

const BUDGET: u64 = 2_000_000;
const MTU: u32 = 256;
const REGION: usize = 8192;
const FILL: u8 = 0xEE;

fn pattern(n: usize, seed: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 13 + seed * 7 + 1) as u8).collect()
}

/// The region holds FILL everywhere but `[off, off + data.len())`, which holds `data`.
fn check(region: &[u8], off: usize, data: &[u8], what: &str) {
    assert!(
        region[..off].iter().all(|&b| b == FILL),
        "{what}: wrote before the buffer"
    );
    assert!(
        region[off..off + data.len()] == *data,
        "{what}: data differs"
    );
    assert!(
        region[off + data.len()..].iter().all(|&b| b == FILL),
        "{what}: wrote past the buffer"
    );
}

#[test]
fn writes_sends_and_read_data_land_at_any_byte_address() {
    for width in [Width::W64, Width::W512] {
        let beat = width.bytes();
        let cfg = FabricConfig {
            width,
            host_mem_bytes: 4 << 20,
            ..FabricConfig::default()
        };
        let p = Pair::connect(cfg, MTU, 20_000).unwrap();
        // A's source and B's READ source; A's and B's destination regions.
        let src = p.a.ctx.alloc_dma(REGION).unwrap();
        let smr =
            p.a.pd
                .reg_mr(&src, 0, REGION, AccessFlags::LOCAL_WRITE)
                .unwrap();
        let rsrc = p.b.ctx.alloc_dma(REGION).unwrap();
        let rsmr =
            p.b.pd
                .reg_mr(&rsrc, 0, REGION, AccessFlags::REMOTE_READ)
                .unwrap();
        let bdst = p.b.ctx.alloc_dma(REGION).unwrap();
        let access = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE;
        let bmr = p.b.pd.reg_mr(&bdst, 0, REGION, access).unwrap();
        let adst = p.a.ctx.alloc_dma(REGION).unwrap();
        let amr =
            p.a.pd
                .reg_mr(&adst, 0, REGION, AccessFlags::LOCAL_WRITE)
                .unwrap();
        let mut n = 0;
        let offsets = [0, 1, 3, beat / 2 + 1, beat - 1];
        for off in offsets {
            for (k, len) in [1, 5, beat - off, beat, 255, 256, 257, 1000, 4097]
                .into_iter()
                .enumerate()
            {
                n += 1;
                // Every destination offset meets every source offset over the lengths.
                let soff = offsets[k % offsets.len()];
                let what = format!("{width:?} offset {off} length {len} source offset {soff}");
                let data = pattern(len, n);
                src.write(0, &[0x11; REGION]).unwrap();
                src.write(soff, &data).unwrap();
                rsrc.write(0, &[0x22; REGION]).unwrap();
                rsrc.write(soff, &data).unwrap();
                bdst.write(0, &[FILL; REGION]).unwrap();
                adst.write(0, &[FILL; REGION]).unwrap();
                let local = |mr: &rocenic_driver::MemoryRegion, at: usize| Sge {
                    addr: mr.addr() + at as u64,
                    length: len as u32,
                    lkey: mr.lkey(),
                };
                // RDMA WRITE to B at a remote address `off` bytes into its region.
                let wr = WorkRequest {
                    wr_id: n as u64,
                    op: SendOp::RdmaWrite {
                        remote_addr: bmr.addr() + off as u64,
                        rkey: bmr.rkey(),
                    },
                    sge: local(&smr, soff),
                    flags: SendFlags::SIGNALED,
                };
                // SAFETY: every buffer outlives the completions polled below.
                unsafe { p.a.qp.post_send(&wr).unwrap() };
                let c = p.wait_for(&p.a.send_cq, BUDGET).expect(&what);
                assert_eq!(c.status, WcStatus::Success, "{what}: WRITE");
                let mut got = vec![0; REGION];
                bdst.read(0, &mut got).unwrap();
                check(&got, off, &data, &format!("{what}: WRITE"));

                // SEND into a receive buffer `off` bytes into B's region.
                bdst.write(0, &[FILL; REGION]).unwrap();
                let rr = RecvRequest {
                    wr_id: 1000 + n as u64,
                    sge: local(&bmr, off),
                };
                // SAFETY: as above.
                unsafe { p.b.qp.post_recv(&rr).unwrap() };
                let wr = WorkRequest {
                    op: SendOp::Send,
                    ..wr
                };
                // SAFETY: as above.
                unsafe { p.a.qp.post_send(&wr).unwrap() };
                let c = p.wait_for(&p.a.send_cq, BUDGET).expect(&what);
                assert_eq!(c.status, WcStatus::Success, "{what}: SEND");
                let r = p.wait_for(&p.b.recv_cq, BUDGET).expect(&what);
                assert_eq!(
                    (r.status, r.opcode, r.byte_len),
                    (WcStatus::Success, WcOpcode::Recv, len as u32),
                    "{what}: receive"
                );
                bdst.read(0, &mut got).unwrap();
                check(&got, off, &data, &format!("{what}: SEND"));

                // RDMA READ of B's source `soff` bytes in into A's region `off` bytes in.
                let wr = WorkRequest {
                    op: SendOp::RdmaRead {
                        remote_addr: rsmr.addr() + soff as u64,
                        rkey: rsmr.rkey(),
                    },
                    sge: local(&amr, off),
                    ..wr
                };
                // SAFETY: as above.
                unsafe { p.a.qp.post_send(&wr).unwrap() };
                let c = p.wait_for(&p.a.send_cq, BUDGET).expect(&what);
                assert_eq!(
                    (c.status, c.byte_len),
                    (WcStatus::Success, len as u32),
                    "{what}: READ"
                );
                adst.read(0, &mut got).unwrap();
                check(&got, off, &data, &format!("{what}: READ"));
            }
        }
    }
}
