//! 802.1Q VLANs on two co-simulated NICs: on a VLAN every RoCE frame leaves tagged with the port's VID and
//! its priority (its DSCP through the sender's DSCP → priority map) as PCP and the transfer is
//! byte-exact; a NIC on another VLAN takes none of them
//! (RX_DROP_VLAN), and once it joins the sender's VLAN the requester's retransmission completes. Per-QP
//! VLANs: QPs of one port on VLANs 200 and 300 (the port VLAN table) and untagged at once, every frame
//! tagged with its QP's VLAN; ARP answered on the VLAN it was asked on.
use crate::common::{big_write_at, big_write_on, second_qps, tagged, who_has};
use rocenic_driver::{
    Error, QpAttr, QpCaps, QueuePair, RtrAttrs, Trust, DEFAULT_DSCP_TO_PRIO, DEFAULT_HOP_LIMIT,
};
use rocenic_proto::icrc;
use rocenic_proto::regs;
use rocenic_proto::wire::{arp_frame, Frame, ETHERTYPE_VLAN};
use rocenic_sim::{FabricConfig, Width};
use rocenic_testkit::pair::{ip, ipv6, mac, Pair, PairParams};

/// Checks that `frames` are all RoCE frames tagged with `vid` and PCP `pcp`, parse as tagged RoCEv2 and
/// carry a good ICRC; returns how many.
fn all_tagged(frames: &[Vec<u8>], vid: u16, pcp: u16) -> usize {
    for f in frames {
        assert_eq!(
            u16::from_be_bytes([f[12], f[13]]),
            ETHERTYPE_VLAN,
            "untagged frame"
        );
        let tci = u16::from_be_bytes([f[14], f[15]]);
        assert_eq!((tci >> 13, tci & 0xFFF), (pcp, vid), "TCI {tci:#06x}");
        let fr = Frame::parse(f).expect("a tagged RoCEv2 frame");
        assert_eq!(fr.vlan.map(|v| v.vid), Some(vid));
        assert!(icrc::check(f).unwrap(), "bad ICRC on a tagged frame");
    }
    frames.len()
}

fn write_over_vlan(width: Width) {
    let (p, w) = big_write_at(width, 4 << 20, 200_000, 256 << 10);
    p.a.ctx.set_vlan(Some(100)).unwrap();
    p.b.ctx.set_vlan(Some(100)).unwrap();
    // A maps DSCP 0 (the QPs' traffic class 0) to priority 5, B keeps the default (DSCP 0 → 0): each
    // NIC's frames carry the priority its own map gives them.
    let mut map = DEFAULT_DSCP_TO_PRIO;
    map[0] = 5;
    p.a.ctx.set_priorities(Trust::Dscp, &map, None).unwrap();
    p.fabric.lock().unwrap().record_frames();
    w.post(&p);
    w.finish(&p, 5_000_000);
    let mut f = p.fabric.lock().unwrap();
    let (a, b) = (f.take_sent(0), f.take_sent(1));
    assert!(
        all_tagged(&a, 100, 5) >= 256,
        "A sent the WRITE's 256 packets"
    );
    assert!(all_tagged(&b, 100, 0) >= 1, "B acknowledged");
    for port in 0..2 {
        assert_eq!(f.reg_read(port, regs::RX_DROP_VLAN), 0);
        assert_eq!(f.reg_read(port, regs::RX_DROP_NOT_ROCE), 0);
    }
}

#[test]
fn rdma_write_over_a_vlan_64() {
    write_over_vlan(Width::W64);
}

#[test]
fn rdma_write_over_a_vlan_512() {
    write_over_vlan(Width::W512);
}

#[test]
fn another_vlan_is_not_taken_until_the_port_joins_it() {
    let (p, w) = big_write_at(Width::W64, 4 << 20, 20_000, 16 << 10);
    p.a.ctx.set_vlan(Some(100)).unwrap();
    p.b.ctx.set_vlan(Some(200)).unwrap();
    w.post(&p);
    p.fabric.lock().unwrap().run(15_000);
    {
        let mut f = p.fabric.lock().unwrap();
        let dropped = f.reg_read(1, regs::RX_DROP_VLAN);
        assert!(
            dropped >= 16,
            "B dropped A's 16 packets as another VLAN's: {dropped}"
        );
        assert_eq!(
            f.reg_read(1, regs::RX_DROP_NOT_ROCE),
            dropped,
            "and for no other reason"
        );
        assert_eq!(f.reg_read(1, regs::RX_ROCE_PACKETS), 0);
    }
    // An untagged port does not take tagged frames either (EtherType 0x8100 is not IPv4).
    p.b.ctx.set_vlan(None).unwrap();
    p.fabric.lock().unwrap().run(30_000);
    assert!(
        p.fabric
            .lock()
            .unwrap()
            .reg_read(1, regs::RX_DROP_ETHERTYPE)
            >= 1
    );
    assert_eq!(
        p.fabric.lock().unwrap().reg_read(1, regs::RX_ROCE_PACKETS),
        0
    );
    // On the sender's VLAN, the next retransmission gets through and the WRITE completes.
    p.b.ctx.set_vlan(Some(100)).unwrap();
    w.finish(&p, 2_000_000);
    assert!(p.fabric.lock().unwrap().reg_read(0, regs::ACK_TIMEOUTS) >= 1);
}

#[test]
fn vlan_ids_are_checked() {
    let (p, _w) = big_write_at(Width::W64, 1 << 20, 20_000, 4096);
    assert!(p.a.ctx.set_vlan(Some(0)).is_err());
    assert!(p.a.ctx.set_vlan(Some(4095)).is_err());
    assert!(p.a.ctx.set_vlan(Some(4094)).is_ok());
    assert_eq!(
        p.fabric.lock().unwrap().reg_read(0, regs::VLAN),
        regs::VLAN_MODE | 4094
    );
    p.a.ctx.set_vlan(None).unwrap();
    assert_eq!(p.fabric.lock().unwrap().reg_read(0, regs::VLAN), 0);
}

/// The VID a frame is tagged with (`None`: untagged), checking the PCP of tagged ones: a RoCE frame's
/// is its DSCP's priority under the default map (DSCP >> 3), an ARP or NDP reply's the lowest lossless
/// priority (`PFC_ENABLE`: 3).
fn vid_of(f: &[u8]) -> Option<u16> {
    if u16::from_be_bytes([f[12], f[13]]) != ETHERTYPE_VLAN {
        return None;
    }
    let tci = u16::from_be_bytes([f[14], f[15]]);
    let pcp = match Frame::parse(f) {
        Ok(fr) => fr.ip.dscp() >> 3,
        Err(_) => 3,
    };
    assert_eq!(tci >> 13, pcp as u16, "PCP of TCI {tci:#06x}");
    Some(tci & 0xFFF)
}

fn qps_on_their_own_vlans(width: Width) {
    let cfg = FabricConfig {
        width,
        host_mem_bytes: 4 << 20,
        ..FabricConfig::default()
    };
    // The pair's QPs on VLAN 200 (both ports join it), a second pair on 300, a third untagged: the
    // ports are on no VLAN of their own, so untagged frames stay theirs.
    let base = PairParams::new(1024, 200_000);
    let p = Pair::connect_with(
        cfg,
        &PairParams {
            vlan: Some(200),
            ..base
        },
    )
    .unwrap();
    p.a.ctx.add_vlan(300).unwrap();
    p.b.ctx.add_vlan(300).unwrap();
    assert_eq!(p.a.ctx.vlans(), vec![200, 300]);
    let w200 = big_write_on(&p, 16 << 10);
    let (q300, w300) = second_qps(
        &p,
        16 << 10,
        &PairParams {
            vlan: Some(300),
            udp_sport: [0xC100, 0xC101],
            ..base
        },
        2,
    );
    let (q0, w0) = second_qps(
        &p,
        16 << 10,
        &PairParams {
            udp_sport: [0xC200, 0xC201],
            ..base
        },
        3,
    );
    assert_eq!(q300[0].query_qp().vlan, Some(300));
    assert_eq!(q0[0].query_qp().vlan, None);
    let want = |qpn: u32| -> Option<u16> {
        if qpn == p.a.qp.qp_num() || qpn == p.b.qp.qp_num() {
            Some(200)
        } else if qpn == q300[0].qp_num() || qpn == q300[1].qp_num() {
            Some(300)
        } else {
            assert!(
                qpn == q0[0].qp_num() || qpn == q0[1].qp_num(),
                "QPN {qpn:#x}"
            );
            None
        }
    };
    p.fabric.lock().unwrap().record_frames();
    // SAFETY: the buffers and MRs live in the BigWrites until the end of the test.
    unsafe {
        p.a.qp.post_send(&w200.wr).unwrap();
        q300[0].post_send(&w300.wr).unwrap();
        q0[0].post_send(&w0.wr).unwrap();
    }
    let mut done = Vec::new();
    for _ in 0..3 {
        let wc = p
            .wait_for(&p.a.send_cq, 2_000_000)
            .expect("WRITE completion");
        assert_eq!(wc.status, rocenic_driver::WcStatus::Success);
        done.push(wc.wr_id);
    }
    done.sort();
    assert_eq!(done, vec![1, 2, 3]);
    for w in [&w200, &w300, &w0] {
        let mut got = vec![0; w.data.len()];
        w.dst.read(0, &mut got).unwrap();
        assert!(got == w.data, "data differs");
    }
    let mut f = p.fabric.lock().unwrap();
    let mut seen = [0usize; 3];
    for port in 0..2 {
        for fr in f.take_sent(port) {
            let parsed = Frame::parse(&fr).expect("a RoCEv2 frame");
            let vid = vid_of(&fr);
            assert_eq!(parsed.vlan.map(|v| v.vid), vid);
            assert!(icrc::check(&fr).unwrap(), "bad ICRC");
            assert_eq!(
                vid,
                want(parsed.bth.dest_qp),
                "port {port}'s frame to QP {:#x}",
                parsed.bth.dest_qp
            );
            seen[match vid {
                Some(200) => 0,
                Some(300) => 1,
                _ => 2,
            }] += 1;
        }
    }
    // 16 packets of each WRITE and at least one ACK back.
    assert!(seen.iter().all(|&n| n >= 17), "frames per VLAN: {seen:?}");
    for port in 0..2 {
        assert_eq!(f.reg_read(port, regs::RX_DROP_VLAN), 0);
        assert_eq!(f.reg_read(port, regs::RX_DROP_NOT_ROCE), 0);
    }
}

#[test]
fn qps_on_their_own_vlans_64() {
    qps_on_their_own_vlans(Width::W64);
}

#[test]
fn qps_on_their_own_vlans_512() {
    qps_on_their_own_vlans(Width::W512);
}

/// Delivers `frame` to B and returns what B sent in the next 500 cycles.
fn answers(p: &Pair, frame: Vec<u8>) -> Vec<Vec<u8>> {
    let mut f = p.fabric.lock().unwrap();
    f.take_sent(1);
    f.nic_mut(1).push_rx_frame(frame);
    f.run(500);
    f.take_sent(1)
}

fn arp_on_each_vlan(width: Width) {
    let cfg = FabricConfig {
        width,
        host_mem_bytes: 1 << 20,
        ..FabricConfig::default()
    };
    let p = Pair::connect_with(cfg, &PairParams::new(1024, 200_000)).unwrap();
    p.fabric.lock().unwrap().record_frames();
    p.b.ctx.add_vlan(300).unwrap();
    p.b.ctx.add_vlan(7).unwrap();
    // Untagged, asked untagged (the port is on no VLAN of its own); tagged on each joined VLAN.
    for (vid, back) in [(None, None), (Some(300), Some(300)), (Some(7), Some(7))] {
        let req = match vid {
            Some(v) => tagged(&who_has(), 0, v),
            None => who_has(),
        };
        let out = answers(&p, req);
        assert_eq!(out.len(), 1, "asked on {vid:?}: one reply");
        assert_eq!(vid_of(&out[0]), back, "asked on {vid:?}");
        let body = if back.is_some() {
            [&out[0][..12], &out[0][16..]].concat()
        } else {
            out[0].clone()
        };
        assert_eq!(
            u16::from_be_bytes([body[20], body[21]]),
            arp_frame::OPER_REPLY,
            "an ARP reply"
        );
    }
    // A VLAN the port is not on: neither answered nor counted as a request (the broadcast frame itself
    // counts with the other frames not to the port's MAC, a check that comes before the tag's).
    let reqs = p.fabric.lock().unwrap().reg_read(1, regs::RX_ARP_REQUESTS);
    assert!(answers(&p, tagged(&who_has(), 0, 301)).is_empty());
    assert_eq!(
        p.fabric.lock().unwrap().reg_read(1, regs::RX_ARP_REQUESTS),
        reqs
    );
    // In VLAN mode (its own VLAN 100) the port takes no untagged request; 300 still answers on 300.
    p.b.ctx.set_vlan(Some(100)).unwrap();
    assert!(answers(&p, who_has()).is_empty());
    assert_eq!(
        vid_of(&answers(&p, tagged(&who_has(), 0, 100))[0]),
        Some(100)
    );
    assert_eq!(
        vid_of(&answers(&p, tagged(&who_has(), 0, 300))[0]),
        Some(300)
    );
    // Off VLAN 300: no longer answered.
    p.b.ctx.remove_vlan(300).unwrap();
    assert!(answers(&p, tagged(&who_has(), 0, 300)).is_empty());
    assert_eq!(p.b.ctx.vlans(), vec![100, 7]);
}

/// The same for IPv6 neighbour discovery: a solicitation for B's GID asked untagged, on VLAN 300 and
/// on VLAN 301 (not joined) gets its advertisement untagged, tagged 300, and none.
#[test]
fn neighbour_solicitations_are_answered_on_the_vlan_they_were_asked_on() {
    let cfg = FabricConfig {
        width: Width::W64,
        host_mem_bytes: 1 << 20,
        ..FabricConfig::default()
    };
    let p = Pair::connect_with(cfg, &PairParams::new(1024, 200_000)).unwrap();
    p.fabric.lock().unwrap().record_frames();
    p.b.ctx.set_gid(0, ipv6(1)).unwrap();
    p.b.ctx.add_vlan(300).unwrap();
    let ns = rocenic_sim::external::ndp::solicitation(mac(0), ipv6(0), ipv6(1));
    let out = answers(&p, ns.clone());
    assert_eq!(out.len(), 1, "asked untagged: one advertisement");
    assert_eq!(vid_of(&out[0]), None);
    let out = answers(&p, tagged(&ns, 0, 300));
    assert_eq!(out.len(), 1, "asked on VLAN 300: one advertisement");
    assert_eq!(vid_of(&out[0]), Some(300));
    // The tag off, it is the untagged advertisement's bytes.
    assert_eq!(
        [&out[0][..12], &out[0][16..]].concat(),
        answers(&p, ns.clone())[0]
    );
    assert!(answers(&p, tagged(&ns, 0, 301)).is_empty());
}

#[test]
fn arp_is_answered_on_the_vlan_it_was_asked_on_64() {
    arp_on_each_vlan(Width::W64);
}

#[test]
fn arp_is_answered_on_the_vlan_it_was_asked_on_512() {
    arp_on_each_vlan(Width::W512);
}

#[test]
fn qp_vlans_are_checked() {
    let (p, _w) = big_write_at(Width::W64, 1 << 20, 20_000, 4096);
    let ctx = &p.a.ctx;
    assert!(ctx.add_vlan(0).is_err());
    assert!(ctx.add_vlan(4095).is_err());
    for v in [10, 11, 12] {
        ctx.add_vlan(v).unwrap();
    }
    ctx.add_vlan(11).unwrap(); // already on: not a second entry
    assert!(
        matches!(ctx.add_vlan(13), Err(Error::BadAttr(_))),
        "three entries beside the port's own"
    );
    assert!(ctx.remove_vlan(13).is_err());
    ctx.remove_vlan(11).unwrap();
    ctx.add_vlan(13).unwrap();
    assert_eq!(ctx.vlans(), vec![10, 13, 12]);
    assert_eq!(
        p.fabric.lock().unwrap().reg_read(0, regs::VLAN_1 + 4),
        regs::VLAN_ON | 13
    );
    // An RTR naming a VLAN the port is not on is refused; one it is on programs QP_VLAN with the entry.
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
    qp.modify(QpAttr::Init(Default::default())).unwrap();
    let rtr = RtrAttrs {
        path_mtu: 1024,
        dest_qpn: 5,
        rq_psn: 0,
        dest_mac: mac(1),
        dest_ip: ip(1).into(),
        sgid_index: 0,
        udp_sport: 0xC000,
        hop_limit: DEFAULT_HOP_LIMIT,
        flow_label: 0,
        vlan: Some(99),
        min_rnr_timer: 1,
        max_dest_rd_atomic: 4,
        traffic_class: 0,
    };
    assert!(matches!(
        qp.modify(QpAttr::Rtr(rtr)),
        Err(Error::BadAttr(_))
    ));
    qp.modify(QpAttr::Rtr(RtrAttrs {
        vlan: Some(12),
        ..rtr
    }))
    .unwrap();
    assert_eq!(qp.query_qp().vlan, Some(12));
    assert_eq!(
        p.fabric.lock().unwrap().reg_read(0, regs::QP_VLAN),
        regs::QP_VLAN_ON | 3,
        "entry 3 (VLAN_3)"
    );
}
