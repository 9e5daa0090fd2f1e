//! The verbs layer against the test double ([`FakeDevice`]): what it writes to registers and rings, how it
//! reads CQEs, and the software side of the QP state machine. The fake plays the NIC: tests write CQEs
//! into the CQ ring and move core-owned registers (SQ_CI, QP_STATE, …) with `set`.
use crate::backend::fake::FakeDevice;
use crate::backend::DmaWindow;
use crate::verbs::*;
use crate::DmaRegion;
use rocenic_proto::host::{cqe, WcOpcode, WcStatus, CQE_BYTES};
use rocenic_proto::regs;
use std::net::Ipv4Addr;
use std::sync::Arc;

mod context;
mod cq;
mod mr;
mod post;
mod qp;

/// A device with one QP (2 send and 2 receive WQEs, two CQs of depth 2, so a 4-entry hardware CQ ring)
/// and a 4 KiB buffer registered for local and remote write. The buffer is allocated first, so it sits at
/// the first IOVA of the fake's memory.
pub(super) struct Setup {
    pub dev: Arc<FakeDevice>,
    pub ctx: Context,
    pub pd: Arc<ProtectionDomain>,
    pub qp: QueuePair,
    pub send_cq: Arc<CompletionQueue>,
    pub recv_cq: Arc<CompletionQueue>,
    pub mr: MemoryRegion,
    pub buf: DmaRegion,
}

pub(super) fn setup_with(beat_bytes: u32, caps: QpCaps) -> Setup {
    let dev = FakeDevice::new(beat_bytes);
    let ctx = Context::open(dev.clone()).unwrap();
    let buf = ctx.alloc_dma(4096).unwrap();
    let pd = ctx.alloc_pd();
    let mr = pd
        .reg_mr(
            &buf,
            0,
            4096,
            AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE,
        )
        .unwrap();
    let send_cq = ctx.create_cq(2).unwrap();
    let recv_cq = ctx.create_cq(2).unwrap();
    let qp = QueuePair::create(&pd, &send_cq, &recv_cq, caps).unwrap();
    Setup {
        dev,
        ctx,
        pd,
        qp,
        send_cq,
        recv_cq,
        mr,
        buf,
    }
}

pub(super) fn setup() -> Setup {
    setup_with(
        8,
        QpCaps {
            max_send_wr: 2,
            max_recv_wr: 2,
            max_send_sge: 1,
            max_recv_sge: 1,
        },
    )
}

pub(super) fn rtr_attrs() -> RtrAttrs {
    RtrAttrs {
        path_mtu: 1024,
        dest_qpn: 0x22,
        rq_psn: 0x1234,
        dest_mac: [0x02, 0, 0, 0, 0, 0x09],
        dest_ip: Ipv4Addr::new(10, 0, 0, 9).into(),
        sgid_index: 0,
        udp_sport: 0xC001,
        hop_limit: DEFAULT_HOP_LIMIT,
        flow_label: 0,
        vlan: None,
        min_rnr_timer: 12,
        max_dest_rd_atomic: 4,
        traffic_class: 0,
    }
}

pub(super) fn rts_attrs() -> RtsAttrs {
    RtsAttrs {
        sq_psn: 0x55,
        timeout: 14,
        retry_cnt: 3,
        rnr_retry: 7,
        max_rd_atomic: 1,
        ack_timeout_cycles: None,
    }
}

pub(super) fn to_rts(s: &Setup) {
    s.qp.modify(QpAttr::Init(InitAttrs::default())).unwrap();
    s.qp.modify(QpAttr::Rtr(rtr_attrs())).unwrap();
    s.qp.modify(QpAttr::Rts(rts_attrs())).unwrap();
}

/// Writes CQE number `n` (free-running) into the hardware CQ ring as the NIC would: at slot n mod size,
/// owner bit 1 on even passes of the ring and 0 on odd ones.
pub(super) fn nic_writes_cqe(s: &Setup, n: u32, wr_id: u64, opcode: u8, status: u8) {
    let base = s.dev.get64(regs::CQ_BASE_LO, regs::CQ_BASE_HI);
    let log = s.dev.get(regs::CQ_LOG_SIZE);
    let mut c = [0u8; CQE_BYTES];
    c[cqe::WR_ID..cqe::WR_ID + 8].copy_from_slice(&wr_id.to_le_bytes());
    c[cqe::QP_NUM..cqe::QP_NUM + 4].copy_from_slice(&QPN.to_le_bytes());
    c[cqe::STATUS] = status;
    c[cqe::OPCODE] = opcode;
    c[cqe::OWNER] = ((n >> log) & 1 == 0) as u8;
    let slot = (n & ((1 << log) - 1)) as u64;
    s.dev.memory().write(base + slot * CQE_BYTES as u64, &c);
}

/// The NIC completes send WR `wr_id` successfully as its CQE number `n`.
pub(super) fn nic_completes_send(s: &Setup, n: u32, wr_id: u64) {
    nic_writes_cqe(s, n, wr_id, WcOpcode::Send as u8, WcStatus::Success as u8);
}

pub(super) fn sge(s: &Setup, off: u64, len: u32) -> Sge {
    Sge {
        addr: s.mr.addr() + off,
        length: len,
        lkey: s.mr.lkey(),
    }
}

pub(super) fn send(s: &Setup, wr_id: u64, flags: SendFlags) -> WorkRequest {
    WorkRequest {
        wr_id,
        op: SendOp::Send,
        sge: sge(s, 0, 64),
        flags,
    }
}

pub(super) fn recv(s: &Setup, wr_id: u64) -> RecvRequest {
    RecvRequest {
        wr_id,
        sge: sge(s, 0, 64),
    }
}

pub(super) fn poll_all(cq: &CompletionQueue) -> Vec<WorkCompletion> {
    let mut wc = [WorkCompletion::default(); 16];
    let n = cq.poll(&mut wc);
    wc[..n].to_vec()
}

#[test]
fn objects_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Context>();
    check::<ProtectionDomain>();
    check::<MemoryRegion>();
    check::<CompletionQueue>();
    check::<QueuePair>();
    check::<DmaRegion>();
}

#[test]
fn a_whole_session_writes_only_writable_registers() {
    let s = setup();
    s.ctx
        .set_port([2, 0, 0, 0, 0, 1], Ipv4Addr::new(10, 0, 0, 1));
    to_rts(&s);
    // SAFETY: the fake device never touches the buffers.
    unsafe {
        s.qp.post_recv(&recv(&s, 1)).unwrap();
        s.qp.post_send(&send(&s, 2, SendFlags::SIGNALED)).unwrap();
    }
    s.qp.modify(QpAttr::Err).unwrap();
    drop(s.qp);
    drop(s.mr);
    assert!(!s.dev.writes().is_empty());
    assert_eq!(
        s.dev.bad_writes(),
        vec![],
        "writes to read-only or unknown registers"
    );
}

/// A write log without the QP window's addressing and QUERY commands (reads in all but name): what
/// changed on the device.
pub fn effects(w: Vec<(u16, u32)>) -> Vec<(u16, u32)> {
    w.into_iter()
        .filter(|&(off, v)| off != regs::QPN && !(off == regs::QP_CMD && v == 8))
        .collect()
}
