//! RoCEv2 over IPv6 (annex A17.4) between two co-simulated NICs: with GIDs in the port GID tables and
//! IPv6 paths at RTR, every frame both sides send (requests, READ responses, ACKs) is IPv6 from the
//! sender's GID to the peer's, with a good ICRC over IPv6's masked header; a NIC whose GID table lacks the
//! destination takes none of them (RX_DROP_DST_IP) until the address is added, and then the requester's
//! retransmission completes. The QP's hop limit and flow label (RtrAttrs, from its address vector) are on
//! every frame of both sides, and on IPv4 its TTL, under a good header checksum. Mixed operations over
//! a lossy link: tests/stress.rs.
use crate::common::big_write_on;
use rocenic_driver::{
    AccessFlags, Error, InitAttrs, QpAttr, QpCaps, QueuePair, RtrAttrs, SendFlags, SendOp, Sge,
    WcStatus, WorkRequest, DEFAULT_HOP_LIMIT,
};
use rocenic_proto::wire::{Frame, IpRepr, Ipv4Packet, ETHERTYPE_IPV6};
use rocenic_proto::{icrc, regs};
use rocenic_sim::{FabricConfig, Width};
use rocenic_testkit::pair::{ipv6, Pair, PairParams};
use std::net::Ipv6Addr;

/// The pairs' hop limit and flow label: neither 64 nor 0, so a constant in the core shows.
const HOP: u8 = 9;
const FLOW: u32 = 0x5_1234;

fn pair(width: Width) -> Pair {
    let cfg = FabricConfig {
        width,
        host_mem_bytes: 4 << 20,
        ..FabricConfig::default()
    };
    let params = PairParams {
        gid: Some([ipv6(0), ipv6(1)]),
        traffic_class: 26 << 2,
        hop_limit: HOP,
        flow_label: FLOW,
        ..PairParams::new(1024, 20_000)
    };
    Pair::connect_with(cfg, &params).unwrap()
}

/// Checks that every frame is RoCEv2 over IPv6 from `src` to `dst` with DSCP 26, the QPs' hop limit and
/// flow label and a good ICRC; returns how many.
fn all_ipv6(frames: &[Vec<u8>], src: Ipv6Addr, dst: Ipv6Addr) -> usize {
    for f in frames {
        assert_eq!(u16::from_be_bytes([f[12], f[13]]), ETHERTYPE_IPV6);
        let fr = Frame::parse(f).expect("a RoCEv2 frame over IPv6");
        let IpRepr::V6(ip) = fr.ip else {
            panic!("not IPv6")
        };
        assert_eq!((ip.src, ip.dst), (src.octets(), dst.octets()));
        assert_eq!((ip.next_header, ip.hop_limit), (17, HOP));
        assert_eq!(ip.flow_label, FLOW);
        assert_eq!(ip.traffic_class >> 2, 26, "the QP's DSCP");
        assert_eq!(
            ip.payload_len as usize,
            f.len() - 54,
            "payload length (no padding at these sizes)"
        );
        assert!(icrc::check(f).unwrap(), "bad ICRC over IPv6");
    }
    frames.len()
}

/// A `len`-byte RDMA WRITE from A to B, then an RDMA READ of it back into another buffer of A's:
/// returns whether both completed and both copies match.
fn write_then_read(p: &Pair, len: usize, cycles: u64) -> bool {
    let data: Vec<u8> = (0..len).map(|i| (i * 13 + 5) as u8).collect();
    let src = p.a.ctx.alloc_dma(len).unwrap();
    let back = p.a.ctx.alloc_dma(len).unwrap();
    let dst = p.b.ctx.alloc_dma(len).unwrap();
    src.write(0, &data).unwrap();
    let src_mr =
        p.a.pd
            .reg_mr(&src, 0, len, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let back_mr =
        p.a.pd
            .reg_mr(&back, 0, len, AccessFlags::LOCAL_WRITE)
            .unwrap();
    let remote = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ;
    let dst_mr = p.b.pd.reg_mr(&dst, 0, len, remote).unwrap();
    let ops = [
        (
            SendOp::RdmaWrite {
                remote_addr: dst_mr.addr(),
                rkey: dst_mr.rkey(),
            },
            &src_mr,
        ),
        (
            SendOp::RdmaRead {
                remote_addr: dst_mr.addr(),
                rkey: dst_mr.rkey(),
            },
            &back_mr,
        ),
    ];
    for (i, (op, mr)) in ops.into_iter().enumerate() {
        // SAFETY: the buffers and MRs live until this function returns, after the completion.
        unsafe {
            p.a.qp
                .post_send(&WorkRequest {
                    wr_id: i as u64,
                    op,
                    sge: Sge {
                        addr: mr.addr(),
                        length: len as u32,
                        lkey: mr.lkey(),
                    },
                    flags: SendFlags::SIGNALED,
                })
                .unwrap();
        }
        match p.wait_for(&p.a.send_cq, cycles) {
            Some(wc) if wc.status == WcStatus::Success => {}
            _ => return false,
        }
    }
    let (mut got, mut got_back) = (vec![0; len], vec![0; len]);
    dst.read(0, &mut got).unwrap();
    back.read(0, &mut got_back).unwrap();
    got == data && got_back == data
}

/// The frames both sides send for an 8 KiB WRITE and its READ back (which must succeed): at least 18.
fn frames_of_a_small_write_then_read(p: &Pair) -> Vec<Vec<u8>> {
    p.fabric.lock().unwrap().record_frames();
    assert!(write_then_read(p, 8 << 10, 1_000_000));
    let mut f = p.fabric.lock().unwrap();
    let sent: Vec<Vec<u8>> = f.take_sent(0).into_iter().chain(f.take_sent(1)).collect();
    assert!(sent.len() >= 18, "{} frames", sent.len());
    sent
}

fn write_and_read_over_ipv6(width: Width) {
    let p = pair(width);
    p.fabric.lock().unwrap().record_frames();
    assert!(write_then_read(&p, 40_000, 2_000_000));
    let mut f = p.fabric.lock().unwrap();
    let (a, b) = (f.take_sent(0), f.take_sent(1));
    // 40 WRITE packets and a READ request from A (and its ACKs of nothing); 40 READ responses and the
    // WRITE's ACKs from B.
    assert!(all_ipv6(&a, ipv6(0), ipv6(1)) >= 41, "A sent {}", a.len());
    assert!(all_ipv6(&b, ipv6(1), ipv6(0)) >= 41, "B sent {}", b.len());
    for port in 0..2 {
        assert_eq!(f.reg_read(port, regs::RX_DROP_NOT_ROCE), 0);
        assert_eq!(f.reg_read(port, regs::RX_ICRC_ERRORS), 0);
    }
}

#[test]
fn rdma_write_and_read_over_ipv6_64() {
    write_and_read_over_ipv6(Width::W64);
}

#[test]
fn rdma_write_and_read_over_ipv6_512() {
    write_and_read_over_ipv6(Width::W512);
}

/// An IPv6 RoCE frame to an address not in the receiver's GID table is dropped until it is added; and
/// an answer from another source address than the QP's peer is not taken either.
#[test]
fn a_destination_missing_from_the_gid_table_is_not_taken_until_added() {
    let p = pair(Width::W64);
    let other: Ipv6Addr = "fd52:4f43:45::99".parse().unwrap();
    p.b.ctx.set_gid(0, other).unwrap();
    assert_eq!(p.b.ctx.gid(0).unwrap(), other);
    // B's QP still sends from its entry 0 (now `other`).
    let w = big_write_on(&p, 8 << 10);
    w.post(&p);
    p.fabric.lock().unwrap().run(15_000);
    {
        let mut f = p.fabric.lock().unwrap();
        let dropped = f.reg_read(1, regs::RX_DROP_DST_IP);
        assert!(dropped >= 8, "B dropped A's 8 packets: {dropped}");
        assert_eq!(
            f.reg_read(1, regs::RX_DROP_NOT_ROCE),
            dropped,
            "for no other reason"
        );
        assert_eq!(f.reg_read(1, regs::RX_ROCE_PACKETS), 0);
    }
    // Entry 1 holds B's address: taken again, and a retransmission lands; but B answers from entry 0,
    // `other`, and A takes nothing for its QP from another host than its peer.
    p.b.ctx.set_gid(1, ipv6(1)).unwrap();
    p.fabric.lock().unwrap().run(60_000);
    {
        let mut f = p.fabric.lock().unwrap();
        assert!(
            f.reg_read(1, regs::RX_ROCE_PACKETS) >= 1,
            "B took A's packets"
        );
        let foreign = f.reg_read(0, regs::RX_DROP_SRC_ADDR);
        assert!(foreign >= 1, "A dropped B's ACKs from `other`: {foreign}");
    }
    // Entry 0 back to B's address: its ACK of the next retransmission completes the WRITE.
    p.b.ctx.set_gid(0, ipv6(1)).unwrap();
    w.finish(&p, 2_000_000);
}

#[test]
fn ipv6_paths_need_a_source_gid() {
    let p = pair(Width::W64);
    let qp = QueuePair::create(
        &p.a.pd,
        &p.a.send_cq,
        &p.a.recv_cq,
        QpCaps {
            max_send_wr: 4,
            max_recv_wr: 4,
            max_send_sge: 1,
            max_recv_sge: 1,
        },
    )
    .unwrap();
    qp.modify(QpAttr::Init(InitAttrs::default())).unwrap();
    let rtr = |dest_ip: std::net::IpAddr, sgid_index: u8| RtrAttrs {
        path_mtu: 1024,
        dest_qpn: 5,
        rq_psn: 0,
        dest_mac: [2, 0, 0, 0, 0, 9],
        dest_ip,
        sgid_index,
        udp_sport: 0xC000,
        hop_limit: DEFAULT_HOP_LIMIT,
        flow_label: 0,
        vlan: None,
        min_rnr_timer: 1,
        max_dest_rd_atomic: 4,
        traffic_class: 0,
    };
    let bad = |r: Result<(), Error>| matches!(r, Err(Error::BadAttr(_)));
    assert!(
        bad(qp.modify(QpAttr::Rtr(rtr(ipv6(1).into(), 1)))),
        "entry 1 is empty"
    );
    assert!(
        bad(qp.modify(QpAttr::Rtr(rtr(ipv6(1).into(), 4)))),
        "beyond the table"
    );
    assert!(bad(
        qp.modify(QpAttr::Rtr(rtr(Ipv6Addr::UNSPECIFIED.into(), 0)))
    ));
    let path = rtr(ipv6(1).into(), 0);
    assert!(bad(qp.modify(QpAttr::Rtr(RtrAttrs {
        hop_limit: 0,
        ..path
    }))));
    assert!(bad(qp.modify(QpAttr::Rtr(RtrAttrs {
        flow_label: 1 << 20,
        ..path
    }))));
    assert!(p.a.ctx.set_gid(4, ipv6(0)).is_err());
    assert!(p
        .a
        .ctx
        .set_gid(0, "::ffff:10.0.0.1".parse().unwrap())
        .is_err());
    // An IPv4-mapped destination is an IPv4 path and needs no entry.
    qp.modify(QpAttr::Rtr(rtr("::ffff:10.0.0.2".parse().unwrap(), 3)))
        .unwrap();
}

#[test]
fn ipv6_on_a_vlan() {
    // The tag goes on after the transmit arbiter and comes off before the receive buffer, so IPv6
    // frames are tagged and untagged as IPv4 ones are; the ICRC (from the IP header on) is the same.
    let p = pair(Width::W64);
    for s in [&p.a, &p.b] {
        s.ctx.set_vlan(Some(100)).unwrap();
    }
    let sent = frames_of_a_small_write_then_read(&p);
    for fr in &sent {
        let parsed = Frame::parse(fr).expect("a tagged RoCEv2 frame over IPv6");
        assert_eq!(parsed.vlan.map(|v| v.vid), Some(100));
        assert!(matches!(parsed.ip, IpRepr::V6(_)));
        assert!(icrc::check(fr).unwrap());
    }
}

#[test]
fn the_qps_ttl_on_ipv4() {
    // The same address-vector field is IPv4's TTL; the header checksum must cover it.
    let cfg = FabricConfig {
        host_mem_bytes: 4 << 20,
        ..FabricConfig::default()
    };
    let params = PairParams {
        hop_limit: HOP,
        ..PairParams::new(1024, 20_000)
    };
    let p = Pair::connect_with(cfg, &params).unwrap();
    assert_eq!(p.a.qp.query_qp().hop_limit, HOP);
    let sent = frames_of_a_small_write_then_read(&p);
    for fr in &sent {
        let IpRepr::V4(ip) = Frame::parse(fr).expect("RoCEv2 over IPv4").ip else {
            panic!("not IPv4")
        };
        assert_eq!(ip.ttl, HOP);
        assert!(Ipv4Packet::new_unchecked(&fr[14..]).verify_checksum());
        assert!(icrc::check(fr).unwrap());
    }
}

/// B takes packets for its QP from A's address only: A's last WRITE packet again, but from another
/// source address, is dropped (RX_DROP_SRC_ADDR) and not re-ACKed; the same packet from A is a duplicate
/// and re-ACKed. The check compares the last 32 bits of the source (what the receive side keeps of the
/// peer GID), so a source differing only in its first 96 bits passes: the test shows that limit too.
#[test]
fn packets_from_another_source_are_dropped() {
    let p = pair(Width::W64);
    p.fabric.lock().unwrap().record_frames();
    assert!(write_then_read(&p, 1000, 1_000_000));
    let last_write = p
        .fabric
        .lock()
        .unwrap()
        .take_sent(0)
        .into_iter()
        .rfind(|f| {
            Frame::parse(f)
                .map(|fr| fr.bth.opcode == 0x0A)
                .unwrap_or(false)
        })
        .expect("A's WRITE ONLY");
    let from = |edit: fn(&mut [u8; 16])| {
        let mut fr = Frame::parse(&last_write).unwrap();
        if let IpRepr::V6(ip) = &mut fr.ip {
            edit(&mut ip.src);
        }
        fr.seal().unwrap();
        fr.emit()
    };
    let deliver = |frame: Vec<u8>| {
        let mut f = p.fabric.lock().unwrap();
        f.take_sent(1);
        f.nic_mut(1).push_rx_frame(frame);
        f.run(3000);
        (f.take_sent(1).len(), f.reg_read(1, regs::RX_DROP_SRC_ADDR))
    };
    assert_eq!(
        deliver(from(|s| s[15] ^= 1)),
        (0, 1),
        "another host: dropped"
    );
    assert_eq!(deliver(from(|_| ())), (1, 1), "from A: re-ACKed");
    assert_eq!(
        deliver(from(|s| s[0] ^= 0x20)),
        (1, 1),
        "only the last 32 bits are compared"
    );
}
