//! Completion queues: the owner bit across ring wraps, the consumer index, routing to send/receive CQs.
use super::*;
use crate::error::Error;

#[test]
fn completions_follow_the_owner_bit_across_ring_wraps() {
    let s = setup();
    to_rts(&s);
    assert_eq!(s.dev.get(regs::CQ_LOG_SIZE), 2, "a 4-entry hardware ring");
    assert!(
        poll_all(&s.send_cq).is_empty(),
        "a zeroed ring holds nothing"
    );
    // 10 CQEs: the ring wraps twice, so the owner bit flips 1 -> 0 -> 1.
    for n in 0..10u32 {
        // SAFETY: the fake device never touches the buffer.
        unsafe {
            s.qp.post_send(&send(&s, 100 + n as u64, SendFlags::SIGNALED))
                .unwrap()
        };
        s.dev.set_qp(QPN, regs::SQ_CI, n + 1);
        nic_completes_send(&s, n, 100 + n as u64);
        let wc = poll_all(&s.send_cq);
        assert_eq!(wc.len(), 1, "CQE {n}");
        assert_eq!(
            (wc[0].wr_id, wc[0].status, wc[0].opcode),
            (100 + n as u64, WcStatus::Success, WcOpcode::Send)
        );
        assert_eq!(s.dev.get(regs::CQ_CI), n + 1, "consumer index handed back");
        // The slot now holds a CQE of this pass; it must not be taken again.
        assert!(poll_all(&s.send_cq).is_empty(), "CQE {n} consumed twice");
    }
}

#[test]
fn an_old_pass_cqe_is_not_new() {
    let s = setup();
    to_rts(&s);
    // CQEs 0..4 fill the ring on the first pass (owner 1) and are consumed.
    for n in 0..4u32 {
        nic_completes_send(&s, n, n as u64);
    }
    assert_eq!(poll_all(&s.send_cq).len(), 4);
    // Slot 0 still holds CQE 0 with owner 1; on the second pass the driver waits for owner 0.
    assert!(poll_all(&s.send_cq).is_empty());
    nic_completes_send(&s, 4, 44);
    let wc = poll_all(&s.send_cq);
    assert_eq!(wc.iter().map(|w| w.wr_id).collect::<Vec<_>>(), vec![44]);
    assert_eq!(s.dev.get(regs::CQ_CI), 5);
}

#[test]
fn poll_hands_out_at_most_what_fits_oldest_first() {
    let s = setup();
    to_rts(&s);
    for n in 0..3u32 {
        nic_completes_send(&s, n, 10 + n as u64);
    }
    let mut one = [WorkCompletion::default(); 1];
    assert_eq!(s.send_cq.poll(&mut one), 1);
    assert_eq!(one[0].wr_id, 10);
    assert_eq!(s.send_cq.poll(&mut one), 1);
    assert_eq!(one[0].wr_id, 11);
    assert_eq!(s.send_cq.poll(&mut []), 0);
    assert_eq!(
        poll_all(&s.send_cq)
            .iter()
            .map(|w| w.wr_id)
            .collect::<Vec<_>>(),
        vec![12]
    );
}

#[test]
fn cqes_are_routed_by_opcode_and_parsed() {
    let s = setup();
    to_rts(&s);
    nic_writes_cqe(&s, 0, 1, WcOpcode::RdmaWrite as u8, 0);
    nic_writes_cqe(&s, 1, 2, WcOpcode::Recv as u8, 0);
    // A RECV_RDMA_WITH_IMM with its immediate, byte count and source QP.
    let base = s.dev.get64(regs::CQ_BASE_LO, regs::CQ_BASE_HI);
    nic_writes_cqe(&s, 2, 3, WcOpcode::RecvRdmaWithImm as u8, 0);
    let slot2 = base + 2 * CQE_BYTES as u64;
    let mem = s.dev.memory();
    mem.write(slot2 + cqe::BYTE_LEN as u64, &777u32.to_le_bytes());
    mem.write(slot2 + cqe::IMM_DATA as u64, &0xCAFE_F00Du32.to_le_bytes());
    mem.write(slot2 + cqe::SRC_QP as u64, &0x22u32.to_le_bytes());
    mem.write(slot2 + cqe::FLAGS as u64, &[1]);
    // Polling the receive CQ drains the ring: the send completion waits in the send CQ.
    let r = poll_all(&s.recv_cq);
    assert_eq!(r.len(), 2);
    assert_eq!(
        (r[0].wr_id, r[0].opcode, r[0].imm_data),
        (2, WcOpcode::Recv, None)
    );
    assert_eq!(
        (
            r[1].wr_id,
            r[1].opcode,
            r[1].byte_len,
            r[1].imm_data,
            r[1].src_qp,
            r[1].qp_num
        ),
        (
            3,
            WcOpcode::RecvRdmaWithImm,
            777,
            Some(0xCAFE_F00D),
            0x22,
            QPN
        )
    );
    let w = poll_all(&s.send_cq);
    assert_eq!((w[0].wr_id, w[0].opcode), (1, WcOpcode::RdmaWrite));
}

#[test]
fn an_unknown_status_is_an_error_not_a_success() {
    let s = setup();
    to_rts(&s);
    nic_writes_cqe(&s, 0, 1, WcOpcode::Send as u8, 200);
    let w = poll_all(&s.send_cq);
    assert_eq!(w[0].status, WcStatus::GeneralErr);
}

#[test]
fn cq_depth_is_a_power_of_two() {
    let ctx = Context::open(FakeDevice::new(8)).unwrap();
    for bad in [0, 1, 3, 6, 65536] {
        assert!(
            matches!(ctx.create_cq(bad), Err(Error::BadDepth(d)) if d == bad),
            "depth {bad}"
        );
    }
    assert_eq!(ctx.create_cq(2).unwrap().depth(), 2);
    assert_eq!(ctx.create_cq(32768).unwrap().depth(), 32768);
}
