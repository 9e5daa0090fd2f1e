//! Below the transport: frames the NIC must not take (QPN, opcode, ICRC, IPv4 checksum, addresses,
//! ports, VLANs, IPv6), ARP, ECN marking and CNPs, PFC and pause.
use super::*;

pub(super) fn wrong_qpn_dropped(b: &mut Bench) -> Result<(), String> {
    let mut f = b.frame(
        op::RC_RDMA_WRITE_ONLY,
        b.peer_psn,
        b.reth(0, 8, b.mr.rkey()),
        &[1; 8],
        true,
    );
    let mut fr = Frame::parse(&f).unwrap();
    fr.bth.dest_qp = 0x99;
    fr.seal().unwrap();
    f = fr.emit();
    ignored(b, f, regs::RX_DROP_QP)
}

pub(super) fn ud_opcode_on_rc_dropped(b: &mut Bench) -> Result<(), String> {
    let f = b.frame(
        op::UC_SEND_ONLY,
        b.peer_psn,
        ExtHeaders::default(),
        &[1; 8],
        false,
    );
    ignored(b, f, regs::RX_DROP_QP)
}

pub(super) fn bad_icrc_dropped(b: &mut Bench) -> Result<(), String> {
    let mut f = b.frame(
        op::RC_RDMA_WRITE_ONLY,
        b.peer_psn,
        b.reth(0, 8, b.mr.rkey()),
        &[1; 8],
        true,
    );
    let n = f.len();
    f[n - 1] ^= 0x40; // inside the ICRC
    ignored(b, f, regs::RX_ICRC_ERRORS)
}

pub(super) fn bad_ip_checksum_dropped(b: &mut Bench) -> Result<(), String> {
    let mut f = b.frame(
        op::RC_RDMA_WRITE_ONLY,
        b.peer_psn,
        b.reth(0, 8, b.mr.rkey()),
        &[1; 8],
        true,
    );
    f[24] ^= 0x01; // the IPv4 header checksum: masked out of the ICRC, so only the IP check catches it
    ignored(b, f, regs::RX_IP_CHECKSUM_ERRORS)
}

/// B's broadcast ARP request for A's address, padded to the Ethernet minimum.
pub(super) fn arp_request_for_a() -> Vec<u8> {
    let mut f = arp_frame::emit(
        arp_frame::OPER_REQUEST,
        mac(1),
        ip(1).octets(),
        [0xFF; 6],
        [0; 6],
        ip(0).octets(),
    );
    f.resize(60, 0);
    f
}

pub(super) fn arp_request_answered(b: &mut Bench) -> Result<(), String> {
    let f = arp_request_for_a();
    let before = b.counter(regs::TX_ARP_REPLIES);
    b.inject(f, 500);
    let raw = b.pair.fabric.lock().unwrap().take_sent(0);
    check!(raw.len() == 1, "one reply, A sent {}", raw.len());
    let r = &raw[0];
    check!(
        r[..6] == mac(1) && r[12..14] == [0x08, 0x06] && r[20..22] == [0, 2],
        "an ARP reply to the asker"
    );
    check!(
        r[22..28] == mac(0) && r[28..32] == ip(0).octets(),
        "with A's addresses"
    );
    check!(b.counter(regs::TX_ARP_REPLIES) == before + 1, "counted");
    Ok(())
}

/// `frame` with its IPv4 TOS byte set (ECN in the low two bits), resealed.
pub(super) fn with_tos(frame: &[u8], tos: u8) -> Vec<u8> {
    let mut f = Frame::parse(frame).unwrap();
    if let IpRepr::V4(ip) = &mut f.ip {
        ip.tos = tos;
    }
    f.seal().unwrap();
    f.emit()
}

pub(super) fn cnp_on_ce_mark(b: &mut Bench) -> Result<(), String> {
    let d = pattern(64, 30);
    let p = b.take_psn(1);
    // DSCP 0, ECN CE (0b11): the switch saw congestion.
    let f = with_tos(
        &b.frame(
            op::RC_RDMA_WRITE_ONLY,
            p,
            b.reth(0, 64, b.mr.rkey()),
            &d,
            true,
        ),
        0x03,
    );
    b.inject(f, 3000);
    let s = b.sent();
    let cnps: Vec<&Frame> = s.iter().filter(|f| f.bth.opcode == op::CNP).collect();
    let acks = s
        .iter()
        .filter(|f| f.bth.opcode == op::RC_ACKNOWLEDGE)
        .count();
    check!(
        cnps.len() == 1 && acks == 1,
        "expected one CNP and one ACK, A sent {}",
        names(&s)
    );
    let c = cnps[0];
    check!(c.bth.becn && !c.bth.fecn, "CNP BTH: BECN set, FECN clear");
    check!(
        c.bth.dest_qp == QPN && c.ext.cnp_pad.is_some(),
        "CNP to the sender's QP with 16 reserved bytes"
    );
    // A second CE packet within CNP_INTERVAL (50 us) is counted but gets no second CNP.
    let p = b.take_psn(1);
    let f = with_tos(
        &b.frame(
            op::RC_RDMA_WRITE_ONLY,
            p,
            b.reth(0, 64, b.mr.rkey()),
            &d,
            true,
        ),
        0x03,
    );
    b.inject(f, 3000);
    let s = b.sent();
    check!(
        s.iter().all(|f| f.bth.opcode != op::CNP),
        "no second CNP within the interval: {}",
        names(&s)
    );
    check!(
        b.counter(regs::ECN_MARKED_ROCE_PACKETS) == 2,
        "ECN_MARKED_ROCE_PACKETS"
    );
    check!(b.counter(regs::NP_CNP_SENT) == 1, "NP_CNP_SENT");
    Ok(())
}

/// A's frames since the last call as (TOS byte, IPv4 header checksum valid, parsed frame).
pub(super) fn sent_tos(b: &Bench) -> Vec<(u8, bool, Frame)> {
    let raw = b.pair.fabric.lock().unwrap().take_sent(0);
    raw.iter()
        .filter_map(|r| {
            let f = Frame::parse(r).ok()?;
            let ok = Ipv4Packet::new_unchecked(&r[14..]).verify_checksum();
            Some((r[15], ok, f))
        })
        .collect()
}

pub(super) fn dscp_and_ecn_marking(b: &mut Bench) -> Result<(), String> {
    // The QP's traffic class DSCP 26 (what `ibv_ah_attr.grh.traffic_class = 104` asks for), ECT(0).
    set_qp(b, &[(regs::QP_DSCP, 26)]);
    let d = pattern(64, 77);
    let p = b.take_psn(1);
    b.inject(write64(b, p, &d), 3000);
    let s = sent_tos(b);
    check!(s.len() == 1, "one ACK, A sent {}", s.len());
    check!(
        s[0].0 == (26 << 2 | 0b10) && s[0].1,
        "ACK TOS {:#04x} (want 0x6a: DSCP 26, ECT(0)), header checksum valid: {}",
        s[0].0,
        s[0].1
    );
    // A CE-marked request: the ACK keeps the QP's DSCP, the CNP has CNP_DSCP (48 after reset).
    let p = b.take_psn(1);
    b.inject(with_tos(&write64(b, p, &d), 0x03), 3000);
    let s = sent_tos(b);
    let cnp = s
        .iter()
        .find(|x| x.2.bth.opcode == op::CNP)
        .ok_or("no CNP")?;
    let ack = s
        .iter()
        .find(|x| x.2.bth.opcode == op::RC_ACKNOWLEDGE)
        .ok_or("no ACK")?;
    check!(
        cnp.0 == (48 << 2 | 0b10) && cnp.1,
        "CNP TOS {:#04x} (want 0xc2: DSCP 48, ECT(0)), checksum valid {}",
        cnp.0,
        cnp.1
    );
    check!(ack.0 == 0x6A && ack.1, "ACK TOS {:#04x}", ack.0);
    // ECN off (TX_ECN = 0): Not-ECT, the DSCP stays.
    set_reg(b, regs::TX_ECN, 0);
    let p = b.take_psn(1);
    b.inject(write64(b, p, &d), 3000);
    let s = sent_tos(b);
    check!(
        s.len() == 1 && s[0].0 == 26 << 2 && s[0].1,
        "ACK with ECN off: TOS {:?}",
        s.iter().map(|x| x.0).collect::<Vec<_>>()
    );
    Ok(())
}

pub(super) fn pfc_xoff_xon_generated(b: &mut Bench) -> Result<(), String> {
    // A priority's frames in the receive buffer ask for a pause once they take 100 words, and release
    // it when gone.
    set_reg(b, regs::PFC_XOFF_WORDS, 100);
    set_reg(b, regs::PFC_XON_WORDS, 0);
    set_reg(b, regs::PFC_PAUSE_QUANTA, 0x1234);
    // Priorities 3 and 5 lossless, each counted apart: a WRITE at DSCP 26 (priority 3) pauses 3 alone,
    // one at DSCP 40 (priority 5) 5 alone, one at DSCP 0 (priority 0, lossy) nothing.
    let lossless = (1u16 << 3) | (1 << 5);
    set_reg(b, regs::PFC_ENABLE, lossless as u32);
    let d = pattern(1024, 88);
    for (dscp, prio) in [(26u8, Some(3)), (40, Some(5)), (0, None)] {
        let p = b.take_psn(1);
        let f = b.frame(
            op::RC_RDMA_WRITE_ONLY,
            p,
            b.reth(0, 1024, b.mr.rkey()),
            &d,
            true,
        );
        b.inject(with_tos(&f, dscp << 2), 3000);
        let raw = b.pair.fabric.lock().unwrap().take_sent(0);
        let pfc: Vec<&Vec<u8>> = raw.iter().filter(|f| f[12..14] == [0x88, 0x08]).collect();
        let Some(prio) = prio else {
            check!(
                pfc.is_empty(),
                "DSCP {dscp} (lossy): {} PFC frames",
                pfc.len()
            );
            continue;
        };
        check!(
            pfc.len() == 2,
            "DSCP {dscp}: an XOFF then an XON, A sent {} PFC frames",
            pfc.len()
        );
        // 802.1Qbb: to 01:80:C2:00:00:01 from the port, MAC Control opcode 0x0101, the class-enable
        // vector naming the priority, then eight 2-byte times (its own set); XON is time 0.
        for (f, time) in [(pfc[0], 0x1234), (pfc[1], 0)] {
            check!(
                f[..6] == [0x01, 0x80, 0xC2, 0, 0, 0x01] && f[6..12] == mac(0),
                "PFC addresses {:02x?}",
                &f[..12]
            );
            check!(f[14..16] == [0x01, 0x01], "opcode {:02x?}", &f[14..16]);
            let cev = u16::from_be_bytes([f[16], f[17]]);
            check!(
                cev == 1 << prio,
                "DSCP {dscp}: class-enable vector {cev:#06x}, expected priority {prio} alone"
            );
            for c in 0..8 {
                let t = u16::from_be_bytes([f[18 + 2 * c], f[19 + 2 * c]]);
                let want = if c == prio { time } else { 0 };
                check!(t == want, "class {c} time {t:#x}, expected {want:#x}");
            }
        }
        check!(
            raw.iter()
                .filter_map(|f| Frame::parse(f).ok())
                .any(|f| f.bth.opcode == op::RC_ACKNOWLEDGE),
            "the WRITE at DSCP {dscp} is still ACKed"
        );
        check!(b.mem_at(0, 1024) == d, "the WRITE landed");
    }
    check!(
        (b.counter(regs::TX_PFC_XOFF), b.counter(regs::TX_PFC_XON)) == (2, 2),
        "counted"
    );
    let per: Vec<u32> = (0..8)
        .map(|i| b.counter(regs::TX_PRIO0_PAUSE + 4 * i))
        .collect();
    check!(per == [0, 0, 0, 1, 0, 1, 0, 0], "TX_PRIOn_PAUSE {per:?}");
    Ok(())
}

pub(super) fn cnp_received_counted(b: &mut Bench) -> Result<(), String> {
    let e = ExtHeaders {
        cnp_pad: Some(rocenic_proto::wire::CnpPadRepr { reserved: [0; 16] }),
        ..Default::default()
    };
    let mut f = Frame::parse(&b.frame(op::CNP, 0, e, &[], false)).unwrap();
    f.bth.becn = true;
    f.seal().unwrap();
    b.inject(f.emit(), 2000);
    b.expect_silence()?;
    check!(b.counter(regs::RP_CNP_HANDLED) == 1, "RP_CNP_HANDLED");
    check!(b.counter(regs::RX_DROP_QP) == 0, "a CNP is not a drop");
    Ok(())
}

/// CRC-32 as Ethernet and the ICRC use it (reflected polynomial 0xEDB88320, initial value and final XOR
/// all ones), over the concatenation of `parts`.
pub(super) fn crc32(parts: &[&[u8]]) -> u32 {
    let mut c = !0u32;
    for part in parts {
        for &byte in *part {
            c ^= byte as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    (c >> 1) ^ 0xEDB8_8320
                } else {
                    c >> 1
                };
            }
        }
    }
    !c
}

/// After raw edits to an untagged IPv4 RoCE frame: the IPv4 header checksum (over its IHL, options
/// included) and the ICRC (annex A17.3.3: eight bytes of ones, the IP header, UDP header and BTH with the
/// variant fields as ones, then the rest up to the ICRC), both placed from the frame's own IP lengths.
pub(super) fn reseal_raw(f: &mut [u8]) {
    const IP: usize = 14;
    let ihl = (f[IP] & 0x0F) as usize * 4;
    let total = u16::from_be_bytes([f[IP + 2], f[IP + 3]]) as usize;
    f[IP + 10..IP + 12].fill(0);
    let sum = rocenic_proto::wire::ipv4::checksum(&f[IP..IP + ihl]);
    f[IP + 10..IP + 12].copy_from_slice(&sum.to_be_bytes());
    let end = IP + total;
    let mut m = f[IP..end - 4].to_vec();
    for i in [1, 8, 10, 11, ihl + 6, ihl + 7, ihl + 8 + 4] {
        m[i] = 0xFF; // TOS, TTL, header checksum, UDP checksum, BTH resv8a
    }
    let icrc = crc32(&[&[0xFF; 8], &m]);
    f[end - 4..end].copy_from_slice(&icrc.to_le_bytes());
}

/// The receive buffer's drop counters by reason, in the order it checks them (one frame, one reason).
pub(super) const DROP_REASONS: [u16; 8] = [
    regs::RX_DROP_DST_MAC,
    regs::RX_DROP_VLAN,
    regs::RX_DROP_ETHERTYPE,
    regs::RX_DROP_IP_HEADER,
    regs::RX_DROP_DST_IP,
    regs::RX_DROP_UDP_PORT,
    regs::RX_DROP_LENGTH,
    regs::RX_DROP_DISABLED,
];

/// Injects `frame`, expects nothing sent, and checks it was counted once in RX_DROP_NOT_ROCE and in the
/// reason counter `reason` (one of [`DROP_REASONS`]) and in no other reason's.
pub(super) fn dropped_for(b: &mut Bench, frame: Vec<u8>, reason: u16) -> Result<(), String> {
    check!(
        DROP_REASONS.contains(&reason),
        "{reason:#x} is not a drop-reason counter"
    );
    let before: Vec<u32> = DROP_REASONS.iter().map(|&r| b.counter(r)).collect();
    let drops = b.counter(regs::RX_DROP_NOT_ROCE);
    b.inject(frame, 3000);
    b.expect_silence()?;
    check!(
        b.counter(regs::RX_DROP_NOT_ROCE) == drops + 1,
        "RX_DROP_NOT_ROCE not counted"
    );
    for (&r, was) in DROP_REASONS.iter().zip(before) {
        let want = was + u32::from(r == reason);
        let got = b.counter(r);
        let name = regs::by_offset(r).map_or("?", |x| x.name);
        check!(got == want, "{name} is {got} (expected {want})");
    }
    Ok(())
}

/// `bad` (a changed copy of a good WRITE ONLY of 64 bytes at offset 0 and PSN `psn`, data `d`) must not be
/// taken as a RoCE packet for this port: nothing sent, RX_DROP_NOT_ROCE and the `reason` counter counted,
/// RX_ROCE_PACKETS not, nothing written. The good frame afterwards executes at the same PSN (the bad one
/// consumed nothing).
pub(super) fn not_roce(
    b: &mut Bench,
    bad: Vec<u8>,
    good: Vec<u8>,
    psn: u32,
    d: &[u8],
    reason: u16,
) -> Result<(), String> {
    let before = b.mem_at(0, 64);
    let roce = b.counter(regs::RX_ROCE_PACKETS);
    dropped_for(b, bad, reason)?;
    check!(
        b.counter(regs::RX_ROCE_PACKETS) == roce,
        "taken as a RoCE packet"
    );
    check!(
        b.counter(regs::RX_ICRC_ERRORS) + b.counter(regs::RX_IP_CHECKSUM_ERRORS) == 0,
        "the frame's checksums are good: only the rule under test may drop it"
    );
    check!(b.mem_at(0, 64) == before, "nothing may be written");
    b.inject(good, 3000);
    b.expect_ack(0x00, psn, Some(1))?;
    check!(b.mem_at(0, 64) == d, "the good frame lands");
    Ok(())
}

/// A good WRITE ONLY (64 bytes at offset 0, AckReq) at the peer's next PSN: (frame, PSN, data).
pub(super) fn good_write(b: &mut Bench, seed: u8) -> (Vec<u8>, u32, Vec<u8>) {
    let d = pattern(64, seed);
    let p = b.take_psn(1);
    (write64(b, p, &d), p, d)
}

pub(super) fn udp_wrong_port_not_roce(b: &mut Bench) -> Result<(), String> {
    let (good, p, d) = good_write(b, 70);
    let mut bad = good.clone();
    let dport = rocenic_proto::wire::ipv4_frame::UDP_DPORT;
    bad[dport..dport + 2].copy_from_slice(&4792u16.to_be_bytes());
    reseal_raw(&mut bad);
    let mut check = good.clone();
    reseal_raw(&mut check);
    check!(check == good, "reseal_raw must reproduce a sealed frame");
    not_roce(b, bad, good, p, &d, regs::RX_DROP_UDP_PORT)
}

pub(super) fn ipv4_options_not_roce(b: &mut Bench) -> Result<(), String> {
    let (good, p, d) = good_write(b, 71);
    // Four bytes of options (three NOPs, end of list) after the 20-byte header: IHL 6.
    let mut bad = good[..34].to_vec();
    bad.extend_from_slice(&[0x01, 0x01, 0x01, 0x00]);
    bad.extend_from_slice(&good[34..]);
    bad[14] = 0x46;
    let total = u16::from_be_bytes([bad[16], bad[17]]) + 4;
    bad[16..18].copy_from_slice(&total.to_be_bytes());
    reseal_raw(&mut bad);
    not_roce(b, bad, good, p, &d, regs::RX_DROP_IP_HEADER)
}

pub(super) fn roce_truncated_dropped(b: &mut Bench) -> Result<(), String> {
    let (good, p, d) = good_write(b, 72);
    // Cut inside the payload: shorter than its IPv4 total length.
    let cut = good[..good.len() - 20].to_vec();
    let before = b.mem_at(0, 64);
    dropped_for(b, cut, regs::RX_DROP_LENGTH)?;
    check!(b.mem_at(0, 64) == before, "nothing may be written");
    // A runt cut inside the BTH (the link pads it to 60 bytes).
    not_roce(b, good[..50].to_vec(), good, p, &d, regs::RX_DROP_LENGTH)
}

pub(super) fn eth_other_mac_not_taken(b: &mut Bench) -> Result<(), String> {
    let (good, p, d) = good_write(b, 73);
    let mut bad = good.clone();
    bad[..6].copy_from_slice(&[0x02, 0x52, 0x4F, 0x43, 0x45, 0x07]);
    not_roce(b, bad, good, p, &d, regs::RX_DROP_DST_MAC)
}

pub(super) fn ipv4_other_address_not_taken(b: &mut Bench) -> Result<(), String> {
    let (good, p, d) = good_write(b, 74);
    let bad = edited(&good, |f| {
        if let IpRepr::V4(ip) = &mut f.ip {
            ip.dst = [10, 0, 0, 9];
        }
    });
    not_roce(b, bad, good, p, &d, regs::RX_DROP_DST_IP)
}

pub(super) fn vlan_tagged_not_taken(b: &mut Bench) -> Result<(), String> {
    let (good, p, d) = good_write(b, 75);
    let bad = edited(&good, |f| {
        f.eth.ethertype = ETHERTYPE_VLAN;
        f.vlan = Some(VlanRepr {
            pcp: 3,
            dei: false,
            vid: 100,
            ethertype: ETHERTYPE_IPV4,
        });
    });
    not_roce(b, bad, good, p, &d, regs::RX_DROP_ETHERTYPE)
}

pub(super) fn ipv6_to_an_address_not_in_the_gid_table_not_taken(
    b: &mut Bench,
) -> Result<(), String> {
    let (good, p, d) = good_write(b, 76);
    // The same packet over IPv6, to A's IPv4-mapped GID (::ffff:10.0.0.1): not an IPv6 address of the
    // port (its GID table is empty here), so not taken; IPv6 to a table entry: tests/ipv6.rs.
    let v4mapped = |ip: std::net::Ipv4Addr| ip.to_ipv6_mapped().octets();
    let bad = edited(&good, |f| {
        f.eth.ethertype = ETHERTYPE_IPV6;
        f.ip = IpRepr::V6(Ipv6Repr {
            traffic_class: 0,
            flow_label: 0,
            payload_len: 0,
            next_header: 17,
            hop_limit: 64,
            src: v4mapped(ip(1)),
            dst: v4mapped(ip(0)),
        });
    });
    not_roce(b, bad, good, p, &d, regs::RX_DROP_DST_IP)
}

/// `frame` with an 802.1Q tag (PCP 3, VID `vid`) after the source MAC.
pub(super) fn tagged(frame: &[u8], vid: u16) -> Vec<u8> {
    let mut f = frame[..12].to_vec();
    f.extend_from_slice(&[0x81, 0x00, 0x60 | (vid >> 8) as u8, vid as u8]);
    f.extend_from_slice(&frame[12..]);
    f
}

pub(super) fn vlan_port_takes_its_vlan_only(b: &mut Bench) -> Result<(), String> {
    // A's QP at DSCP 26: its frames' priority, and so their PCP, is 3 under the default map.
    set_qp(b, &[(regs::QP_DSCP, 26)]);
    b.set_reg(regs::VLAN, regs::VLAN_MODE | 100);
    let r = vlan_port_checks(b);
    b.set_reg(regs::VLAN, 0);
    r
}

pub(super) fn vlan_port_checks(b: &mut Bench) -> Result<(), String> {
    // An untagged WRITE and one tagged with another VID: not taken, counted as VLAN drops.
    let (good, p, d) = good_write(b, 78);
    dropped_for(b, good.clone(), regs::RX_DROP_VLAN)?;
    dropped_for(b, tagged(&good, 101), regs::RX_DROP_VLAN)?;
    check!(b.mem_at(0, 64) != d, "nothing written yet");
    // Tagged with the port's VID: taken, and the ACK leaves tagged with VID 100 and PCP 3 (its DSCP's
    // priority).
    b.inject(tagged(&good, 100), 3000);
    ack_on_vlan(b, p, 100)?;
    check!(b.mem_at(0, 64) == d, "the tagged WRITE landed");
    // A tagged ARP request for the port's address: answered, tagged (PCP = the lowest lossless priority,
    // 3 after reset).
    let arp = arp_request_for_a();
    b.inject(tagged(&arp, 100), 500);
    let raw = b.pair.fabric.lock().unwrap().take_sent(0);
    check!(raw.len() == 1, "one ARP reply, A sent {}", raw.len());
    let r = &raw[0];
    check!(
        r[12..16] == [0x81, 0x00, 0x60, 100] && r[16..18] == [0x08, 0x06] && r[24..26] == [0, 2],
        "a tagged ARP reply"
    );
    // Untagged, the same request is not answered on a VLAN port.
    b.inject(arp, 500);
    check!(
        b.pair.fabric.lock().unwrap().take_sent(0).is_empty(),
        "an untagged ARP request answered on a VLAN port"
    );
    Ok(())
}

pub(super) fn qp_vlan_tags_its_packets(b: &mut Bench) -> Result<(), String> {
    // The port stays untagged and also joins VLAN 200 (VLAN_1); A's QP names that entry (QP_VLAN).
    b.set_reg(regs::VLAN_1, regs::VLAN_ON | 200);
    set_qp(
        b,
        &[(regs::QP_VLAN, regs::QP_VLAN_ON | 1), (regs::QP_DSCP, 26)],
    );
    let r = qp_vlan_checks(b);
    set_qp(b, &[(regs::QP_VLAN, 0)]);
    b.set_reg(regs::VLAN_1, 0);
    r
}

/// A's next frame must be one ACK of `psn` tagged with `vid` and PCP 3 (the priority of the QP's DSCP
/// 26 under the default map).
pub(super) fn ack_on_vlan(b: &mut Bench, psn: u32, vid: u16) -> Result<(), String> {
    let raw = b.pair.fabric.lock().unwrap().take_sent(0);
    check!(raw.len() == 1, "one ACK, A sent {} frames", raw.len());
    let r = &raw[0];
    check!(
        r[12..14] == [0x81, 0x00] && u16::from_be_bytes([r[14], r[15]]) == (3 << 13) | vid,
        "the ACK's tag is {:02x?}, expected 81 00 and TCI PCP 3, VID {vid}",
        &r[12..16]
    );
    let f = Frame::parse(r).map_err(|e| format!("the tagged ACK does not parse: {e}"))?;
    check!(
        f.bth.opcode == op::RC_ACKNOWLEDGE && f.bth.psn == psn,
        "an ACK of PSN {psn:#x}"
    );
    Ok(())
}

pub(super) fn qp_vlan_checks(b: &mut Bench) -> Result<(), String> {
    // Another VID than the table's: not taken.
    let (good, p, d) = good_write(b, 79);
    dropped_for(b, tagged(&good, 201), regs::RX_DROP_VLAN)?;
    // Tagged 200: taken, and answered on the QP's VLAN.
    b.inject(tagged(&good, 200), 3000);
    ack_on_vlan(b, p, 200)?;
    check!(b.mem_at(0, 64) == d, "the tagged WRITE landed");
    // Untagged (the port is not in VLAN mode, so untagged frames are its own too): taken, and the ACK
    // still leaves on the QP's VLAN.
    let (good, p, d) = good_write(b, 80);
    b.inject(good, 3000);
    ack_on_vlan(b, p, 200)?;
    check!(b.mem_at(0, 64) == d, "the untagged WRITE landed");
    // ARP is answered on the VLAN it was asked on: tagged 200, and untagged.
    let arp = arp_request_for_a();
    b.inject(tagged(&arp, 200), 500);
    let raw = b.pair.fabric.lock().unwrap().take_sent(0);
    check!(raw.len() == 1, "one ARP reply, A sent {}", raw.len());
    check!(
        raw[0][12..16] == [0x81, 0x00, 0x60, 200] && raw[0][16..18] == [0x08, 0x06],
        "an ARP reply tagged 200"
    );
    b.inject(arp, 500);
    let raw = b.pair.fabric.lock().unwrap().take_sent(0);
    check!(raw.len() == 1, "one ARP reply, A sent {}", raw.len());
    check!(
        raw[0][12..14] == [0x08, 0x06] && raw[0][20..22] == [0, 2],
        "an untagged ARP reply"
    );
    Ok(())
}

pub(super) fn port_disabled_not_taken(b: &mut Bench) -> Result<(), String> {
    let (good, p, d) = good_write(b, 77);
    b.set_reg(regs::CONTROL, 0);
    let before = b.mem_at(0, 64);
    let r = dropped_for(b, good.clone(), regs::RX_DROP_DISABLED);
    b.set_reg(regs::CONTROL, regs::CONTROL_ENABLE);
    r?;
    check!(b.mem_at(0, 64) == before, "nothing may be written");
    b.inject(good, 3000);
    b.expect_ack(0x00, p, Some(1))?;
    check!(
        b.mem_at(0, 64) == d,
        "the frame lands once the port is enabled"
    );
    Ok(())
}

/// An IEEE 802.1Qbb PFC frame from B (MAC control, EtherType 0x8808, opcode 0x0101) pausing each class
/// in `classes` for `quanta`.
pub(crate) fn pfc_frame(classes: u8, quanta: u16) -> Vec<u8> {
    let times = std::array::from_fn(|c| if classes & (1 << c) != 0 { quanta } else { 0 });
    pfc_frame_times(classes, times)
}

/// A PFC frame from B with class-enable vector `classes` and the eight class times `times`.
pub(super) fn pfc_frame_times(classes: u8, times: [u16; 8]) -> Vec<u8> {
    let mut f = vec![0x01, 0x80, 0xC2, 0x00, 0x00, 0x01];
    f.extend_from_slice(&mac(1));
    f.extend_from_slice(&[0x88, 0x08, 0x01, 0x01, 0x00, classes]);
    for t in times {
        f.extend_from_slice(&t.to_be_bytes());
    }
    f.resize(60, 0);
    f
}

/// An IEEE 802.3 (annex 31B) PAUSE frame from B for `quanta`.
pub(super) fn pause_frame(quanta: u16) -> Vec<u8> {
    let mut f = vec![0x01, 0x80, 0xC2, 0x00, 0x00, 0x01];
    f.extend_from_slice(&mac(1));
    f.extend_from_slice(&[0x88, 0x08, 0x00, 0x01]);
    f.extend_from_slice(&quanta.to_be_bytes());
    f.resize(60, 0);
    f
}

/// Core cycles per pause quantum at the reset PFC_QUANTUM_Q4 (128 / 16).
pub(super) const CYCLES_PER_QUANTUM: u64 = 8;

/// A posts a 100-byte WRITE at DSCP 26 (priority 3 under the default map, lossless after reset) while `frame`
/// (just received) holds it for `hold` cycles, if any: nothing before, the request after; then B's ACK
/// completes it.
pub(super) fn held_write(b: &mut Bench, frame: Vec<u8>, hold: u64) -> Result<(), String> {
    held_write_at(b, 26, frame, hold)
}

/// [`held_write`] with A's QP at `dscp`.
pub(super) fn held_write_at(
    b: &mut Bench,
    dscp: u32,
    frame: Vec<u8>,
    hold: u64,
) -> Result<(), String> {
    set_qp(b, &[(regs::QP_DSCP, dscp)]);
    b.inject(frame, 400);
    let t0 = b.pair.cycles();
    post_write(b, 100)?;
    let p = b.a_psn;
    if hold > 0 {
        let until = t0 + hold - 1500;
        b.run(until.saturating_sub(b.pair.cycles()));
        b.expect_silence()?;
        b.run(3000);
    } else {
        b.run(3000);
    }
    let s = expect_requests(b, &[p])?;
    check!(
        s[0].bth.opcode == op::RC_RDMA_WRITE_ONLY,
        "{} instead of WRITE ONLY",
        s[0].opcode_name()
    );
    acked_completes(b, p)
}

/// B acknowledges A's request `p`, which completes successfully.
pub(super) fn acked_completes(b: &mut Bench, p: u32) -> Result<(), String> {
    b.inject(
        b.frame(op::RC_ACKNOWLEDGE, p, aeth(0x1F, 1), &[], false),
        500,
    );
    check!(b.send_wc(10_000)?.status == WcStatus::Success, "completes");
    Ok(())
}

pub(super) fn pfc_pause_holds_priority(b: &mut Bench) -> Result<(), String> {
    let prio = 3;
    check!(
        b.counter(regs::PFC_ENABLE) == 1 << prio,
        "lossless priorities {:#x}",
        b.counter(regs::PFC_ENABLE)
    );
    // 1000 quanta: 8,000 cycles.
    held_write(b, pfc_frame(1 << prio, 1000), 1000 * CYCLES_PER_QUANTUM)?;
    check!(b.counter(regs::RX_PAUSE_FRAMES) == 1, "RX_PAUSE_FRAMES");
    let d = b.counter(regs::RX_PAUSE_DURATION) as u64;
    check!(
        (1000 * CYCLES_PER_QUANTUM - 16..=1000 * CYCLES_PER_QUANTUM + 16).contains(&d),
        "paused {d} cycles, expected 1000 quanta"
    );
    Ok(())
}

pub(super) fn pfc_xon_resumes(b: &mut Bench) -> Result<(), String> {
    set_qp(b, &[(regs::QP_DSCP, 26)]);
    b.inject(pfc_frame(1 << 3, 0xFFFF), 400);
    post_write(b, 100)?;
    let p = b.a_psn;
    b.run(4000);
    b.expect_silence()?;
    // XON: time 0 for the priority.
    b.inject(pfc_frame(1 << 3, 0), 1500);
    expect_requests(b, &[p])?;
    check!(b.counter(regs::RX_PAUSE_FRAMES) == 2, "RX_PAUSE_FRAMES");
    acked_completes(b, p)
}

pub(super) fn pfc_other_priority_ignored(b: &mut Bench) -> Result<(), String> {
    // Every class but 3, each for the longest time.
    held_write(b, pfc_frame(!(1 << 3), 0xFFFF), 0)?;
    check!(b.counter(regs::RX_PAUSE_FRAMES) == 0, "RX_PAUSE_FRAMES");
    check!(b.counter(regs::RX_PAUSE_DURATION) == 0, "RX_PAUSE_DURATION");
    // Counted per priority all the same (rx_prioN_pause), so a mismatch with the peer shows.
    let per_prio: Vec<u32> = (0..8)
        .map(|n| b.counter(regs::RX_PRIO0_PAUSE + 4 * n))
        .collect();
    check!(
        per_prio == [1, 1, 1, 0, 1, 1, 1, 1],
        "RX_PRIOn_PAUSE {per_prio:?}"
    );
    Ok(())
}

pub(super) fn pfc_holds_only_its_priority(b: &mut Bench) -> Result<(), String> {
    // A's QP at DSCP 0: priority 0 under the default map, not the paused one; the pause itself is for
    // our priority and is counted.
    held_write_at(b, 0, pfc_frame(1 << 3, 0xFFFF), 0)?;
    check!(b.counter(regs::RX_PAUSE_FRAMES) == 1, "RX_PAUSE_FRAMES");
    Ok(())
}

pub(super) fn pfc_lossless_priorities_each_their_time(b: &mut Bench) -> Result<(), String> {
    // Priorities 3 and 5 lossless. One PFC frame pauses 3 for good and 5 for 1000 quanta: A's QP at
    // DSCP 40 (priority 5) sends when 5's pause ends, while 3 is still paused.
    set_reg(b, regs::PFC_ENABLE, (1 << 3) | (1 << 5));
    let mut times = [0u16; 8];
    times[3] = 0xFFFF;
    times[5] = 1000;
    held_write_at(
        b,
        40,
        pfc_frame_times((1 << 3) | (1 << 5), times),
        1000 * CYCLES_PER_QUANTUM,
    )?;
    check!(b.counter(regs::RX_PAUSE_FRAMES) == 1, "RX_PAUSE_FRAMES");
    // Priority 3 is still paused: a QP at DSCP 26 waits until its XON.
    set_qp(b, &[(regs::QP_DSCP, 26)]);
    post_write(b, 100)?;
    let p = (b.a_psn + 1) & 0xFF_FFFF;
    b.run(4000);
    b.expect_silence()?;
    b.inject(pfc_frame(1 << 3, 0), 1500);
    expect_requests(b, &[p])?;
    acked_completes(b, p)
}

pub(super) fn pause_802_3x_holds(b: &mut Bench) -> Result<(), String> {
    // 500 quanta: 4,000 cycles.
    held_write(b, pause_frame(500), 500 * CYCLES_PER_QUANTUM)?;
    check!(b.counter(regs::RX_PAUSE_FRAMES) == 1, "RX_PAUSE_FRAMES");
    Ok(())
}
