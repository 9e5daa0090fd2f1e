//! End to end through the Verilated core and the DMA server: an RDMA WRITE-only request with a valid ICRC
//! lands in host memory and is ACKed (DMA writes, transmit port); a SEND-only consumes a receive WQE read by
//! DMA, lands in its buffer and completes with a CQE and an interrupt (DMA reads too).
use rocenic_proto::host::{cqe, recv_wqe};
use rocenic_proto::regs;
use rocenic_sim::{HostMemory, Nic, NicConfig, Width};
use std::sync::Arc;

const NIC_MAC: [u8; 6] = [2, 0, 0, 0, 0, 1];
const PEER_MAC: [u8; 6] = [2, 0, 0, 0, 0, 2];
const NIC_IP: [u8; 4] = [10, 0, 0, 1];
const PEER_IP: [u8; 4] = [10, 0, 0, 2];

fn ip_checksum(h: &[u8]) -> u16 {
    let mut s: u32 = h
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]) as u32)
        .sum();
    while s > 0xFFFF {
        s = (s & 0xFFFF) + (s >> 16);
    }
    !(s as u16)
}

/// Ethernet/IPv4/UDP/BTH/RETH/payload/ICRC of an RC RDMA WRITE Only with AckReq.
fn write_only(dest_qp: u32, psn: u32, va: u64, rkey: u32, payload: &[u8]) -> Vec<u8> {
    let mut reth = va.to_be_bytes().to_vec();
    reth.extend_from_slice(&rkey.to_be_bytes());
    reth.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    reth.extend_from_slice(payload);
    roce_frame(0x0A, dest_qp, psn, &reth)
}

/// An RC frame with opcode `opcode` and `body` after the BTH (payload length a multiple of 4: no pad).
fn roce_frame(opcode: u8, dest_qp: u32, psn: u32, body: &[u8]) -> Vec<u8> {
    let mut roce = vec![opcode, 0x00, 0xFF, 0xFF, 0x00]; // opcode, SE/M/pad/TVer, P_Key, resv8a
    roce.extend_from_slice(&dest_qp.to_be_bytes()[1..]);
    roce.push(0x80); // AckReq
    roce.extend_from_slice(&psn.to_be_bytes()[1..]);
    roce.extend_from_slice(body);
    let udp_len = 8 + roce.len() + 4;
    let ip_len = 20 + udp_len;
    let mut f = Vec::new();
    f.extend_from_slice(&NIC_MAC);
    f.extend_from_slice(&PEER_MAC);
    f.extend_from_slice(&[0x08, 0x00]);
    let mut ip = vec![0x45, 0x00];
    ip.extend_from_slice(&(ip_len as u16).to_be_bytes());
    ip.extend_from_slice(&[0, 0, 0x40, 0, 64, 17, 0, 0]);
    ip.extend_from_slice(&PEER_IP);
    ip.extend_from_slice(&NIC_IP);
    let ck = ip_checksum(&ip);
    ip[10..12].copy_from_slice(&ck.to_be_bytes());
    f.extend_from_slice(&ip);
    f.extend_from_slice(&0xC000u16.to_be_bytes());
    f.extend_from_slice(&4791u16.to_be_bytes());
    f.extend_from_slice(&(udp_len as u16).to_be_bytes());
    f.extend_from_slice(&[0, 0]);
    f.extend_from_slice(&roce);
    // ICRC (IBA §7.8, annex A17): CRC-32 over 8 bytes of ones and the IP packet with the variant fields
    // (TOS, TTL, IP checksum, UDP checksum, BTH resv8a) set to ones.
    let mut m = vec![0xFF; 8];
    m.extend_from_slice(&f[14..]);
    for p in [15, 22, 24, 25, 40, 41, 46] {
        m[8 + p - 14] = 0xFF;
    }
    f.extend_from_slice(&crc32fast::hash(&m).to_le_bytes());
    f
}

fn setup(nic: &mut Nic, mr_base: u64) {
    nic.reset();
    let w = |nic: &mut Nic, off, v| nic.reg_write(off, v);
    w(nic, regs::MAC_LO, 0x0000_0001);
    w(nic, regs::MAC_HI, 0x0200);
    w(nic, regs::IPV4, u32::from_be_bytes(NIC_IP));
    w(nic, regs::DEST_MAC_LO, 0x0000_0002);
    w(nic, regs::DEST_MAC_HI, 0x0200);
    w(nic, regs::DEST_IPV4, u32::from_be_bytes(PEER_IP));
    w(nic, regs::QPN, 0x11);
    w(nic, regs::DEST_QPN, 0x22);
    w(nic, regs::QP_PD, 1);
    w(nic, regs::QP_ACCESS, 2 | 4 | 8); // the remote operations the QP allows
    w(nic, regs::RQ_PSN, 100);
    w(nic, regs::MR_BASE_LO, mr_base as u32);
    w(nic, regs::MR_BASE_HI, (mr_base >> 32) as u32);
    w(nic, regs::MR_LEN, 0x1000);
    w(nic, regs::MR_KEY, 0x1234); // entry 0x12, variant 0x34
    w(nic, regs::MR_ACCESS, 3); // LOCAL_WRITE | REMOTE_WRITE
    w(nic, regs::MR_PD, 1);
    w(nic, regs::MR_INDEX, 0x12);
    w(nic, regs::MR_CMD, regs::MR_CMD_WRITE);
    while nic.reg_read(regs::MR_CMD) != 0 {}
    w(nic, regs::QP_STATE, 2); // RTR
    qp_cmd(nic, 3); // MODIFY | INIT_RQ: QP 0x11 in RTR expecting PSN 100
    w(nic, regs::CONTROL, regs::CONTROL_ENABLE);
}

/// QP_CMD on QP QPN, waited for.
fn qp_cmd(nic: &mut Nic, cmd: u32) {
    nic.reg_write(regs::QP_CMD, cmd);
    while nic.reg_read(regs::QP_CMD) != 0 {}
}

/// A value of QP 0x11's context, through QP_CMD QUERY.
fn query(nic: &mut Nic, off: u16) -> u32 {
    qp_cmd(nic, 8);
    nic.reg_read(off)
}

#[test]
fn rdma_write_reaches_host_memory_and_is_acked() {
    for width in [Width::W64, Width::W512] {
        let mem = Arc::new(HostMemory::new(1 << 20).unwrap());
        let mr = mem.base_iova() + 0x1000;
        let mut nic = Nic::new(
            width,
            mem.clone(),
            &NicConfig {
                dma_read_latency_cycles: 20,
                ..NicConfig::default()
            },
        )
        .unwrap();
        setup(&mut nic, mr);
        let payload: Vec<u8> = (0..200u32).map(|i| (i * 7 + 3) as u8).collect();
        nic.push_rx_frame(write_only(0x11, 100, mr + 0x40, 0x1234, &payload));
        let mut ack = None;
        for _ in 0..5000 {
            nic.tick();
            if let Some(f) = nic.pop_tx_frame() {
                ack = Some(f);
                break;
            }
        }
        let mut back = vec![0u8; payload.len()];
        mem.read(mr + 0x40, &mut back).unwrap();
        let counters: Vec<u32> = (0..16)
            .map(|i| nic.reg_read(regs::RX_FRAMES + 4 * i))
            .collect();
        assert_eq!(
            back, payload,
            "{width:?}: counters from RX_FRAMES {counters:?}"
        );
        let ack = ack.unwrap_or_else(|| panic!("{width:?}: no ACK; counters {counters:?}"));
        assert_eq!(&ack[0..6], &PEER_MAC, "{width:?}");
        assert_eq!(ack[42], 0x11, "{width:?}: BTH opcode RC ACKNOWLEDGE");
        assert_eq!(query(&mut nic, regs::RQ_PSN), 101, "{width:?}");
    }
}

#[test]
fn send_consumes_a_receive_wqe_and_completes() {
    for width in [Width::W64, Width::W512] {
        let mem = Arc::new(HostMemory::new(1 << 20).unwrap());
        let base = mem.base_iova();
        let (mr, rq, cq) = (base + 0x1000, base + 0x4000, base + 0x8000);
        let mut nic = Nic::new(
            width,
            mem.clone(),
            &NicConfig {
                dma_read_latency_cycles: 30,
                ..NicConfig::default()
            },
        )
        .unwrap();
        setup(&mut nic, mr);
        nic.reg_write(regs::RQ_BASE_LO, rq as u32);
        nic.reg_write(regs::RQ_BASE_HI, (rq >> 32) as u32);
        nic.reg_write(regs::RQ_LOG_SIZE, 2);
        qp_cmd(&mut nic, 1); // MODIFY: the receive ring into QP 0x11's context
        nic.reg_write(regs::CQ_BASE_LO, cq as u32);
        nic.reg_write(regs::CQ_BASE_HI, (cq >> 32) as u32);
        nic.reg_write(regs::CQ_LOG_SIZE, 2);
        // Armed for the next completion: one interrupt, then disarmed.
        nic.reg_write(regs::CQ_ARM, 1);
        let buf = mr + 0x200;
        mem.write(rq + recv_wqe::LENGTH as u64, &512u32.to_le_bytes())
            .unwrap();
        mem.write(rq + recv_wqe::WR_ID as u64, &0xABCD_0001u64.to_le_bytes())
            .unwrap();
        mem.write(rq + recv_wqe::ADDR as u64, &buf.to_le_bytes())
            .unwrap();
        mem.write(rq + recv_wqe::LKEY as u64, &0x1234u32.to_le_bytes())
            .unwrap();
        nic.reg_write(regs::RQ_PI, 1);
        let payload: Vec<u8> = (0..100u32).map(|i| (i * 13 + 1) as u8).collect();
        nic.push_rx_frame(roce_frame(0x04, 0x11, 100, &payload));
        for _ in 0..5000 {
            nic.tick();
        }
        let counters: Vec<u32> = (0..16)
            .map(|i| nic.reg_read(regs::RX_FRAMES + 4 * i))
            .collect();
        let mut back = vec![0u8; payload.len()];
        mem.read(buf, &mut back).unwrap();
        assert_eq!(
            back, payload,
            "{width:?}: counters from RX_FRAMES {counters:?}"
        );
        let mut c = [0u8; 32];
        mem.read(cq, &mut c).unwrap();
        assert_eq!(
            c[cqe::WR_ID..cqe::WR_ID + 8],
            0xABCD_0001u64.to_le_bytes(),
            "{width:?}: CQE {c:02x?}"
        );
        assert_eq!(
            c[cqe::BYTE_LEN..cqe::BYTE_LEN + 4],
            100u32.to_le_bytes(),
            "{width:?}"
        );
        assert_eq!(query(&mut nic, regs::RQ_CI), 1, "{width:?}");
        assert_eq!(nic.irq_count(), 1, "{width:?}");
        assert_eq!(nic.reg_read(regs::CQ_INTERRUPTS), 1, "{width:?}");
        assert_eq!(nic.reg_read(regs::CQ_ARM), 0, "{width:?}: one-shot arming");
    }
}

/// Runs the NIC until it sends a frame or `cycles` pass.
fn next_tx(nic: &mut Nic, cycles: usize) -> Option<Vec<u8>> {
    for _ in 0..cycles {
        nic.tick();
        if let Some(f) = nic.pop_tx_frame() {
            return Some(f);
        }
    }
    None
}

fn new_nic(width: Width) -> (Nic, Arc<HostMemory>, u64) {
    let mem = Arc::new(HostMemory::new(1 << 20).unwrap());
    let mr = mem.base_iova() + 0x1000;
    let cfg = NicConfig {
        dma_read_latency_cycles: 20,
        ..NicConfig::default()
    };
    let mut nic = Nic::new(width, mem.clone(), &cfg).unwrap();
    setup(&mut nic, mr);
    (nic, mem, mr)
}

/// AETH syndrome and BTH PSN of an ACK frame.
fn aeth(ack: &[u8]) -> (u8, u32) {
    assert_eq!(ack[42], 0x11, "not an RC ACKNOWLEDGE");
    (ack[54], u32::from_be_bytes([0, ack[51], ack[52], ack[53]]))
}

#[test]
fn a_corrupted_frame_is_dropped_counted_and_writes_nothing() {
    for width in [Width::W64, Width::W512] {
        let (mut nic, mem, mr) = new_nic(width);
        let payload = vec![0xA5u8; 256];
        let mut bad = write_only(0x11, 100, mr, 0x1234, &payload);
        bad[100] ^= 0x10; // a payload bit
        nic.push_rx_frame(bad);
        assert!(
            next_tx(&mut nic, 3000).is_none(),
            "{width:?}: a bad frame must not be answered"
        );
        let mut back = vec![0u8; payload.len()];
        mem.read(mr, &mut back).unwrap();
        assert!(
            back.iter().all(|&b| b == 0),
            "{width:?}: host memory was written from a bad frame"
        );
        assert_eq!(nic.reg_read(regs::RX_ICRC_ERRORS), 1, "{width:?}");
        assert_eq!(
            query(&mut nic, regs::RQ_PSN),
            100,
            "{width:?}: the PSN must not advance"
        );
        // The same frame intact is executed.
        nic.push_rx_frame(write_only(0x11, 100, mr, 0x1234, &payload));
        assert_eq!(
            aeth(&next_tx(&mut nic, 3000).expect("ACK")).0 & 0xE0,
            0,
            "{width:?}"
        );
        mem.read(mr, &mut back).unwrap();
        assert_eq!(back, payload, "{width:?}");
    }
}

#[test]
fn psn_ahead_is_naked_once_and_duplicates_are_reacked() {
    for width in [Width::W64, Width::W512] {
        let (mut nic, _mem, mr) = new_nic(width);
        // PSN 101 while 100 is expected: one PSN-sequence-error NAK carrying the expected PSN (IBA 9.7.5.1.1).
        nic.push_rx_frame(write_only(0x11, 101, mr, 0x1234, &[1; 64]));
        assert_eq!(
            aeth(&next_tx(&mut nic, 3000).expect("NAK")),
            (0x60, 100),
            "{width:?}"
        );
        nic.push_rx_frame(write_only(0x11, 102, mr, 0x1234, &[1; 64]));
        assert!(
            next_tx(&mut nic, 3000).is_none(),
            "{width:?}: only one NAK per sequence error"
        );
        assert_eq!(nic.reg_read(regs::RX_SEQ_ERRORS), 2, "{width:?}");
        // The expected PSN, then the same PSN again: executed once, the duplicate is ACKed (9.7.5.1.2).
        nic.push_rx_frame(write_only(0x11, 100, mr, 0x1234, &[2; 64]));
        assert_eq!(
            aeth(&next_tx(&mut nic, 3000).expect("ACK")),
            (0x1F, 100),
            "{width:?}"
        );
        nic.push_rx_frame(write_only(0x11, 100, mr, 0x1234, &[3; 64]));
        assert_eq!(
            aeth(&next_tx(&mut nic, 3000).expect("re-ACK")),
            (0x1F, 100),
            "{width:?}"
        );
        assert_eq!(nic.reg_read(regs::RX_DUP_REQUESTS), 1, "{width:?}");
        assert_eq!(query(&mut nic, regs::RQ_PSN), 101, "{width:?}");
    }
}

#[test]
fn a_bad_rkey_is_naked_and_moves_the_qp_to_error() {
    for width in [Width::W64, Width::W512] {
        let (mut nic, mem, mr) = new_nic(width);
        nic.push_rx_frame(write_only(0x11, 100, mr, 0x9999, &[7; 64]));
        assert_eq!(
            aeth(&next_tx(&mut nic, 3000).expect("NAK")),
            (0x62, 100),
            "{width:?}"
        );
        // Out of the region's bounds with the right key: also a remote access error.
        let (mut nic2, _m2, mr2) = new_nic(width);
        nic2.push_rx_frame(write_only(0x11, 100, mr2 + 0x1000 - 32, 0x1234, &[7; 64]));
        assert_eq!(
            aeth(&next_tx(&mut nic2, 3000).expect("NAK")).0,
            0x62,
            "{width:?}"
        );
        let mut back = [0u8; 64];
        mem.read(mr, &mut back).unwrap();
        assert_eq!(back, [0; 64], "{width:?}");
        assert_eq!(
            query(&mut nic, regs::QP_STATE),
            6,
            "{width:?}: responder QP in ERR"
        );
        assert_eq!(nic.reg_read(regs::RX_REMOTE_ACCESS_ERRORS), 1, "{width:?}");
    }
}

#[test]
fn a_bad_ip_header_checksum_is_dropped_and_counted() {
    for width in [Width::W64, Width::W512] {
        let (mut nic, mem, mr) = new_nic(width);
        let mut bad = write_only(0x11, 100, mr, 0x1234, &[9; 64]);
        bad[25] ^= 0x80; // IP header checksum: outside the ICRC's coverage
        nic.push_rx_frame(bad);
        assert!(next_tx(&mut nic, 3000).is_none(), "{width:?}");
        assert_eq!(nic.reg_read(regs::RX_IP_CHECKSUM_ERRORS), 1, "{width:?}");
        assert_eq!(nic.reg_read(regs::RX_ICRC_ERRORS), 0, "{width:?}");
        let mut back = [0u8; 64];
        mem.read(mr, &mut back).unwrap();
        assert_eq!(back, [0; 64], "{width:?}");
    }
}
