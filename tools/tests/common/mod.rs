//! Set-ups the co-simulation tests share.
use rocenic_driver::{
    AccessFlags, DmaRegion, MemoryRegion, QpCaps, QueuePair, SendFlags, SendOp, Sge, WcStatus,
    WorkRequest,
};
use rocenic_proto::opcode as op;
use rocenic_proto::wire::arp_frame;
use rocenic_proto::wire::{CnpPadRepr, ExtHeaders, Frame};
use rocenic_sim::{FabricConfig, Width};
use rocenic_testkit::conformance::peer_frame;
use rocenic_testkit::pair::{connect_qps, ip, mac, Pair, PairParams, Side};

/// A's buffer of `data`, B's target of the same size (REMOTE_WRITE), both registered, and the signaled
/// RDMA WRITE (wr_id 1) that copies one to the other, not yet posted. The regions and MRs live as long
/// as this value (some fields are only held, never read).
#[allow(dead_code)]
pub struct BigWrite {
    pub data: Vec<u8>,
    pub src: DmaRegion,
    pub dst: DmaRegion,
    pub src_mr: MemoryRegion,
    pub dst_mr: MemoryRegion,
    pub wr: WorkRequest,
}

/// A 64-bit pair at path MTU 1024 with `mem` bytes of host memory and a local ACK timeout of
/// `ack_timeout` cycles, and a `len`-byte WRITE from A to B ready to post.
pub fn big_write(mem: usize, ack_timeout: u32, len: usize) -> (Pair, BigWrite) {
    big_write_at(Width::W64, mem, ack_timeout, len)
}

/// [`big_write`] at datapath width `width`.
pub fn big_write_at(width: Width, mem: usize, ack_timeout: u32, len: usize) -> (Pair, BigWrite) {
    big_write_with(
        FabricConfig {
            width,
            host_mem_bytes: mem,
            ..FabricConfig::default()
        },
        ack_timeout,
        len,
    )
}

/// [`big_write`] on a fabric built from `cfg` (a throttled host link, say).
pub fn big_write_with(cfg: FabricConfig, ack_timeout: u32, len: usize) -> (Pair, BigWrite) {
    let p = Pair::connect(cfg, 1024, ack_timeout).unwrap();
    let w = big_write_on(&p, len);
    (p, w)
}

/// A `len`-byte WRITE from A to B of an existing pair, ready to post.
pub fn big_write_on(p: &Pair, len: usize) -> BigWrite {
    write_between(&p.a, &p.b, len)
}

/// A `len`-byte WRITE from side `from` to side `to` (either way round), ready to post on a QP of `from`.
pub fn write_between(from: &Side, to: &Side, len: usize) -> BigWrite {
    let data: Vec<u8> = (0..len).map(|i| (i * 31 + 7) as u8).collect();
    let src = from.ctx.alloc_dma(len).unwrap();
    let dst = to.ctx.alloc_dma(len).unwrap();
    src.write(0, &data).unwrap();
    let src_mr = from
        .pd
        .reg_mr(&src, 0, len, AccessFlags::LOCAL_WRITE)
        .unwrap();
    let dst_mr = to
        .pd
        .reg_mr(
            &dst,
            0,
            len,
            AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE,
        )
        .unwrap();
    let wr = WorkRequest {
        wr_id: 1,
        op: SendOp::RdmaWrite {
            remote_addr: dst_mr.addr(),
            rkey: dst_mr.rkey(),
        },
        sge: Sge {
            addr: src_mr.addr(),
            length: len as u32,
            lkey: src_mr.lkey(),
        },
        flags: SendFlags::SIGNALED,
    };
    BigWrite {
        data,
        src,
        dst,
        src_mr,
        dst_mr,
        wr,
    }
}

impl BigWrite {
    /// Posts the WRITE at A.
    pub fn post(&self, p: &Pair) {
        // SAFETY: the buffers and MRs are fields of `self`, which the tests keep until completion.
        unsafe { p.a.qp.post_send(&self.wr).unwrap() };
    }

    /// Waits for the WRITE's successful completion and checks B's buffer byte for byte.
    pub fn finish(&self, p: &Pair, cycles: u64) {
        let wc = p.wait_for(&p.a.send_cq, cycles).expect("WRITE completion");
        assert_eq!(wc.status, WcStatus::Success);
        let mut got = vec![0; self.data.len()];
        self.dst.read(0, &mut got).unwrap();
        assert!(got == self.data, "data differs");
    }
}

/// The tests' seeded generator (the project's one, SplitMix64 from rand_xoshiro), so every run posts the
/// same lists.
pub struct Rng(rand_xoshiro::SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(rand_core::SeedableRng::seed_from_u64(seed))
    }
    pub fn next(&mut self) -> u64 {
        rand_core::RngCore::next_u64(&mut self.0)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A pair at `width` with 4 MiB of host memory, path MTU `mtu`, an ACK timeout of 20,000 cycles and
/// QPs taking lists of `max_send_sge` / `max_recv_sge` entries (the gather and scatter tests' set-up).
pub fn list_pair(width: Width, mtu: u32, max_send_sge: usize, max_recv_sge: usize) -> Pair {
    let cfg = FabricConfig {
        width,
        host_mem_bytes: 4 << 20,
        ..FabricConfig::default()
    };
    let params = PairParams {
        max_send_sge,
        max_recv_sge,
        ..PairParams::new(mtu, 20_000)
    };
    Pair::connect_with(cfg, &params).unwrap()
}

/// Posts `op` at A for `len` bytes of `local` from `off` (signaled, wr_id 1), waits up to 2,000,000
/// cycles for its completion and returns its status.
pub fn run_one(p: &Pair, op: SendOp, local: &MemoryRegion, off: usize, len: usize) -> WcStatus {
    // SAFETY: `local` and the remote MR stay registered until the completion is polled below.
    unsafe {
        p.a.qp
            .post_send(&WorkRequest {
                wr_id: 1,
                op,
                sge: Sge {
                    addr: local.addr() + off as u64,
                    length: len as u32,
                    lkey: local.lkey(),
                },
                flags: SendFlags::SIGNALED,
            })
            .unwrap();
    }
    p.wait_for(&p.a.send_cq, 2_000_000)
        .expect("a completion")
        .status
}

/// An ARP request for B's address (port 1), as A (port 0) would broadcast it: 60 bytes, untagged.
pub fn who_has() -> Vec<u8> {
    let mut f = arp_frame::emit(
        arp_frame::OPER_REQUEST,
        mac(0),
        ip(0).octets(),
        [0xFF; 6],
        [0; 6],
        ip(1).octets(),
    );
    f.resize(60, 0);
    f
}

/// `f` with an 802.1Q tag (TPID 0x8100, priority `pcp`, DEI 0, `vid`) inserted after the MAC addresses.
pub fn tagged(f: &[u8], pcp: u8, vid: u16) -> Vec<u8> {
    let mut t = f[..12].to_vec();
    t.extend_from_slice(&[0x81, 0x00, pcp << 5 | (vid >> 8) as u8, vid as u8]);
    t.extend_from_slice(&f[12..]);
    t
}

/// A QP on each side of `p`, sharing the pair's PD and CQs, connected with `params` (its VLAN and traffic
/// class among them), and a `len`-byte WRITE from A's to B's with `wr_id`, not yet posted.
pub fn second_qps(
    p: &Pair,
    len: usize,
    params: &PairParams,
    wr_id: u64,
) -> ([QueuePair; 2], BigWrite) {
    let caps = QpCaps {
        max_send_wr: 16,
        max_recv_wr: 16,
        max_send_sge: 1,
        max_recv_sge: 1,
    };
    let a = QueuePair::create(&p.a.pd, &p.a.send_cq, &p.a.recv_cq, caps).unwrap();
    let b = QueuePair::create(&p.b.pd, &p.b.send_cq, &p.b.recv_cq, caps).unwrap();
    connect_qps([&a, &b], params).unwrap();
    let mut w = big_write_on(p, len);
    w.wr.wr_id = wr_id;
    ([a, b], w)
}

/// A CNP from B's side to A's QP (BECN set), as B's notification point would send it.
pub fn cnp() -> Vec<u8> {
    let e = ExtHeaders {
        cnp_pad: Some(CnpPadRepr { reserved: [0; 16] }),
        ..ExtHeaders::default()
    };
    let mut f = Frame::parse(&peer_frame(op::CNP, 0, e, &[], false)).unwrap();
    f.bth.becn = true;
    f.seal().unwrap();
    f.emit()
}
