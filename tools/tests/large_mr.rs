//! An MR of 4 GiB or more on two co-simulated NICs (MR_LEN_HI, the MR table's 64-bit length): RDMA WRITEs
//! and READs at offsets below, across and above the 4 GiB mark inside one 5 GiB region land and read back
//! byte for byte, the region's last byte included; one byte past its end is a remote access error NAK
//! (IBA §9.7.5.1.7). With the length cut to 32 bits the region would end at 1 GiB and every access past
//! it would fail. The simulator's host memory is anonymous pages, resident only where touched.
use rocenic_driver::{AccessFlags, QpState, SendOp, WcStatus};
use rocenic_sim::{FabricConfig, Width};
use rocenic_testkit::pair::Pair;

use crate::common::run_one;

const BIG: usize = 5 << 30;
const LEN: usize = 4096;

#[test]
fn a_five_gib_mr_takes_writes_and_reads_past_four_gib() {
    let p = Pair::connect(
        FabricConfig {
            width: Width::W64,
            host_mem_bytes: BIG + (16 << 20),
            ..FabricConfig::default()
        },
        1024,
        60_000,
    )
    .unwrap();
    let big = p.b.ctx.alloc_dma(BIG).unwrap();
    let access = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ;
    let bmr = p.b.pd.reg_mr(&big, 0, BIG, access).unwrap();
    assert_eq!(bmr.len(), BIG);
    let src = p.a.ctx.alloc_dma(LEN).unwrap();
    let smr =
        p.a.pd
            .reg_mr(&src, 0, LEN, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let back = p.a.ctx.alloc_dma(LEN).unwrap();
    let rmr =
        p.a.pd
            .reg_mr(&back, 0, LEN, AccessFlags::LOCAL_WRITE)
            .unwrap();
    // Offsets in the region: its start, across 4 GiB, above it, and its last 4 KiB.
    for (i, off) in [0, (1 << 32) - 100, (1 << 32) + 12_345, BIG - LEN]
        .into_iter()
        .enumerate()
    {
        let data: Vec<u8> = (0..LEN).map(|k| (k * 7 + i * 31 + 1) as u8).collect();
        src.write(0, &data).unwrap();
        let remote_addr = bmr.addr() + off as u64;
        let write = SendOp::RdmaWrite {
            remote_addr,
            rkey: bmr.rkey(),
        };
        assert_eq!(
            run_one(&p, write, &smr, 0, LEN),
            WcStatus::Success,
            "WRITE at {off:#x}"
        );
        let mut landed = vec![0u8; LEN];
        big.read(off, &mut landed).unwrap();
        assert!(landed == data, "the WRITE at {off:#x} landed wrong");
        back.write(0, &[0u8; LEN]).unwrap();
        let read = SendOp::RdmaRead {
            remote_addr,
            rkey: bmr.rkey(),
        };
        assert_eq!(
            run_one(&p, read, &rmr, 0, LEN),
            WcStatus::Success,
            "READ at {off:#x}"
        );
        let mut got = vec![0u8; LEN];
        back.read(0, &mut got).unwrap();
        assert!(got == data, "the READ at {off:#x} returned wrong bytes");
    }
    // One byte past the end: refused before anything is written.
    let before = {
        let mut v = vec![0u8; LEN];
        big.read(BIG - LEN, &mut v).unwrap();
        v
    };
    let past = SendOp::RdmaWrite {
        remote_addr: bmr.addr() + (BIG - LEN + 1) as u64,
        rkey: bmr.rkey(),
    };
    assert_eq!(run_one(&p, past, &smr, 0, LEN), WcStatus::RemAccessErr);
    let mut after = vec![0u8; LEN];
    big.read(BIG - LEN, &mut after).unwrap();
    assert!(after == before, "a refused WRITE changed memory");
    assert_eq!(p.b.qp.query(), QpState::Err);
}
