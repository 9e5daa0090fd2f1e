//! The RC test matrix on two co-simulated NICs: every data operation (RDMA WRITE, WRITE with immediate,
//! SEND, SEND with immediate, SEND with invalidate, RDMA READ) × sizes {0, 1, 4095, 4096, 4097, the path MTU, 3 × MTU, 1 MiB} ×
//! path MTUs, on both datapath widths, and one 64 MiB WRITE and READ. Every completion is checked (status,
//! opcode, byte count, immediate, QPs), the target buffer byte for byte, and the 256 bytes after it stay
//! untouched. The simulator's DMA firewall checks every access against the registered MRs throughout.
//! Atomics (8 bytes by definition) are covered in `cosim.rs`. SGE counts: every WRITE and SEND gathers
//! its message from 1 to 4 entries in turn and every READ scatters its responses over 1 to 4 (cut at
//! uneven points, so packets cross entries off the beat; `gather.rs` and `scatter.rs` also put gaps
//! between them), and every receive scatters its message over 1 to 4 entries, cut at other points.
use rocenic_driver::{
    AccessFlags, DmaRegion, MemoryRegion, RecvWr, SendFlags, SendOp, SendWr, Sge, WcOpcode,
    WcStatus, WorkCompletion,
};
use rocenic_sim::{FabricConfig, Width};
use rocenic_testkit::pair::{Pair, PairParams};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Write,
    WriteImm,
    Send,
    SendImm,
    SendInv,
    Read,
}

const OPS: [Op; 6] = [
    Op::Write,
    Op::WriteImm,
    Op::Send,
    Op::SendImm,
    Op::SendInv,
    Op::Read,
];
const GUARD: usize = 256;
const BACKGROUND: u8 = 0xE7;

/// One NIC pair with a region on each side big enough for `max` bytes and the guard.
struct Rig {
    p: Pair,
    a: DmaRegion,
    b: DmaRegion,
    a_mr: MemoryRegion,
    b_mr: MemoryRegion,
    wr_id: u64,
}

fn pattern(n: usize, seed: u64) -> Vec<u8> {
    use rand_core::{RngCore, SeedableRng};
    let mut r = rand_xoshiro::SplitMix64::seed_from_u64(seed);
    (0..n).map(|_| r.next_u64() as u8).collect()
}

impl Rig {
    fn new(width: Width, mtu: u32, max: usize) -> Rig {
        let p = Pair::connect_with(
            FabricConfig {
                width,
                host_mem_bytes: 2 * (max + GUARD) + (1 << 20),
                ..FabricConfig::default()
            },
            &PairParams {
                max_send_sge: 4,
                max_recv_sge: 4,
                ..PairParams::new(mtu, 200_000)
            },
        )
        .unwrap();
        let n = max + GUARD;
        let a = p.a.ctx.alloc_dma(n).unwrap();
        let b = p.b.ctx.alloc_dma(n).unwrap();
        let all = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ;
        let a_mr = p.a.pd.reg_mr(&a, 0, n, AccessFlags::LOCAL_WRITE).unwrap();
        let b_mr = p.b.pd.reg_mr(&b, 0, n, all).unwrap();
        Rig {
            p,
            a,
            b,
            a_mr,
            b_mr,
            wr_id: 100,
        }
    }

    /// Runs one operation of `len` bytes from A and checks everything it should have done.
    fn check(&mut self, op: Op, len: usize, what: &str) {
        self.wr_id += 1;
        let wr_id = self.wr_id;
        let data = pattern(len, wr_id);
        let imm = 0xC0DE_0000 | wr_id as u32;
        // The source holds the data, the target the background, guard included.
        let (src, dst) = if op == Op::Read {
            (&self.b, &self.a)
        } else {
            (&self.a, &self.b)
        };
        src.write(0, &data).unwrap();
        dst.write(0, &vec![BACKGROUND; len + GUARD]).unwrap();
        let (remote_addr, rkey) = (self.b_mr.addr(), self.b_mr.rkey());
        // SEND with invalidate names an MR of B's that allows it, registered for this message alone.
        let victim = (op == Op::SendInv).then(|| {
            let acc = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_INVALIDATE;
            self.p.b.pd.reg_mr(&self.b, 0, 64, acc).unwrap()
        });
        let wire_op = match op {
            Op::Write => SendOp::RdmaWrite { remote_addr, rkey },
            Op::WriteImm => SendOp::RdmaWriteWithImm {
                remote_addr,
                rkey,
                imm,
            },
            Op::Send => SendOp::Send,
            Op::SendImm => SendOp::SendWithImm { imm },
            Op::SendInv => SendOp::SendWithInv {
                invalidate_rkey: victim.as_ref().unwrap().rkey(),
            },
            Op::Read => SendOp::RdmaRead { remote_addr, rkey },
        };
        let consumes_receive = matches!(op, Op::WriteImm | Op::Send | Op::SendImm | Op::SendInv);
        if consumes_receive {
            // A receive buffer of exactly the message's size, so a byte too many would be an error,
            // as 1 to 4 scatter entries (in another turn than the gather list's), cut 5 bytes past
            // even shares.
            let entries = if len < 64 {
                1
            } else {
                1 + ((wr_id + 2) % 4) as usize
            };
            let list: Vec<Sge> = (0..entries)
                .map(|i| {
                    let cut = |i: usize| match i {
                        0 => 0,
                        i if i == entries => len,
                        i => len * i / entries + 5,
                    };
                    Sge {
                        addr: self.b_mr.addr() + cut(i) as u64,
                        length: (cut(i + 1) - cut(i)) as u32,
                        lkey: self.b_mr.lkey(),
                    }
                })
                .collect();
            // SAFETY: `b` lives in the rig until the end of the test, past this receive's completion.
            unsafe {
                self.p.b.qp.post_recv_scatter(&RecvWr {
                    wr_id,
                    sg_list: &list,
                })
            }
            .unwrap();
        }
        // The source (a READ's destination) as 1 to 4 gather (scatter) entries, cut 3 bytes past even
        // shares so the cuts fall off the beat.
        let entries = if len < 16 {
            1
        } else {
            1 + (wr_id % 4) as usize
        };
        let cuts: Vec<usize> = (0..=entries)
            .map(|i| match i {
                0 => 0,
                i if i == entries => len,
                i => len * i / entries + 3,
            })
            .collect();
        let list: Vec<Sge> = cuts
            .windows(2)
            .map(|c| Sge {
                addr: self.a_mr.addr() + c[0] as u64,
                length: (c[1] - c[0]) as u32,
                lkey: self.a_mr.lkey(),
            })
            .collect();
        let wr = SendWr {
            wr_id,
            op: wire_op,
            sg_list: &list,
            flags: SendFlags::SIGNALED,
        };
        // SAFETY: as above, `a` outlives the completion polled below.
        unsafe { self.p.a.qp.post_send_gather(&wr) }.unwrap();
        let budget = 200_000 + 4 * len as u64;
        let wc = self
            .p
            .wait_for(&self.p.a.send_cq, budget)
            .unwrap_or_else(|| panic!("{what}: no send completion"));
        let want_op = match op {
            Op::Write | Op::WriteImm => WcOpcode::RdmaWrite,
            Op::Send | Op::SendImm | Op::SendInv => WcOpcode::Send,
            Op::Read => WcOpcode::RdmaRead,
        };
        assert_eq!(
            (wc.status, wc.wr_id, wc.opcode),
            (WcStatus::Success, wr_id, want_op),
            "{what}: send completion {wc:?}"
        );
        if consumes_receive {
            let r: WorkCompletion = self
                .p
                .wait_for(&self.p.b.recv_cq, budget)
                .unwrap_or_else(|| panic!("{what}: no receive completion"));
            let (want_op, want_imm) = match op {
                Op::WriteImm => (WcOpcode::RecvRdmaWithImm, Some(imm)),
                Op::SendImm => (WcOpcode::Recv, Some(imm)),
                _ => (WcOpcode::Recv, None),
            };
            assert_eq!(
                (r.status, r.wr_id, r.opcode, r.imm_data),
                (WcStatus::Success, wr_id, want_op, want_imm),
                "{what}: receive completion {r:?}"
            );
            assert_eq!(r.src_qp, self.p.a.qp.qp_num(), "{what}: source QP");
            if let Some(v) = &victim {
                assert_eq!(r.invalidated_rkey, Some(v.rkey()), "{what}: {r:?}");
                assert!(v.is_invalidated(), "{what}: the MR is invalidated");
            } else {
                assert_eq!(r.invalidated_rkey, None, "{what}: {r:?}");
            }
            if op != Op::WriteImm {
                assert_eq!(r.byte_len as usize, len, "{what}: received bytes");
            }
        }
        let mut got = vec![0; len + GUARD];
        dst.read(0, &mut got).unwrap();
        if let Some(i) = (0..len).find(|&i| got[i] != data[i]) {
            panic!(
                "{what}: byte {i} of {len} is {:#04x}, sent {:#04x}",
                got[i], data[i]
            );
        }
        if let Some(i) = (len..len + GUARD).find(|&i| got[i] != BACKGROUND) {
            panic!("{what}: byte {i}, past the {len}-byte message, was written");
        }
    }
}

fn sizes(mtu: usize) -> Vec<usize> {
    let mut v = vec![0, 1, 4095, 4096, 4097, mtu, 3 * mtu, 1 << 20];
    v.sort_unstable();
    v.dedup();
    v
}

fn run_matrix(width: Width, mtus: &[u32]) {
    for &mtu in mtus {
        let mut rig = Rig::new(width, mtu, 1 << 20);
        for op in OPS {
            for len in sizes(mtu as usize) {
                rig.check(op, len, &format!("{width:?} MTU {mtu} {op:?} {len} B"));
            }
        }
    }
}

// One test per width and path MTU, so the test threads share the matrix evenly.
#[test]
fn every_operation_and_size_at_64_bits_mtu_256() {
    run_matrix(Width::W64, &[256]);
}

/// The path MTUs between 256 and 1024 at 64 bits, and 4096 at 512 bits, stand in for it in the job.
#[test]
#[ignore = "long: scripts/test.sh --full"]
fn every_operation_and_size_at_64_bits_mtu_512() {
    run_matrix(Width::W64, &[512]);
}

#[test]
fn every_operation_and_size_at_64_bits_mtu_1024() {
    run_matrix(Width::W64, &[1024]);
}

/// The path MTUs 1024 at 64 bits and 4096 at 512 bits stand in for it in the job.
#[test]
#[ignore = "long: scripts/test.sh --full"]
fn every_operation_and_size_at_64_bits_mtu_2048() {
    run_matrix(Width::W64, &[2048]);
}

/// The same path MTU at 512 bits stands in for it in the job.
#[test]
#[ignore = "long: scripts/test.sh --full"]
fn every_operation_and_size_at_64_bits_mtu_4096() {
    run_matrix(Width::W64, &[4096]);
}

#[test]
fn every_operation_and_size_at_512_bits_mtu_1024() {
    run_matrix(Width::W512, &[1024]);
}

#[test]
fn every_operation_and_size_at_512_bits_mtu_4096() {
    run_matrix(Width::W512, &[4096]);
}

fn write_and_read_64_mib(width: Width) {
    let mut rig = Rig::new(width, 4096, 64 << 20);
    rig.check(Op::Write, 64 << 20, &format!("{width:?} 64 MiB WRITE"));
    rig.check(Op::Read, 64 << 20, &format!("{width:?} 64 MiB READ"));
}

/// Over three minutes of co-simulation; the matrix's messages up to 1 MiB stand in for it in the job.
#[test]
#[ignore = "long: scripts/test.sh --full"]
fn a_64_mib_write_and_read_at_512_bits() {
    write_and_read_64_mib(Width::W512);
}

/// 16.8 million cycles, over two minutes of co-simulation: `scripts/test.sh --full` runs it.
#[test]
#[ignore = "long: scripts/test.sh --full"]
fn a_64_mib_write_and_read_at_64_bits() {
    write_and_read_64_mib(Width::W64);
}
