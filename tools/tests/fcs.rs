//! Frames the MAC marks bad (`rx_tuser` with the last beat: a bad FCS, as the CMAC flags one) between
//! two co-simulated NICs, at both widths and on a VLAN: the receiver drops each and counts it in
//! RX_FCS_ERRORS, whatever it holds. An ARP request gets no reply, a PFC frame pauses nothing, and a
//! duplicate WRITE packet, which the responder would re-ACK, gets no ACK; the same frames unmarked are
//! answered, honoured and re-ACKed. The bytes are good, so only the mark can stop them. And over a link
//! that flips bits on the wire (the receiving MAC marks those frames), a WRITE completes intact, every
//! hit frame counted as an FCS error and none reaching the ICRC check.
use crate::common::{big_write_at, big_write_with, tagged, who_has};
use rocenic_proto::regs;
use rocenic_sim::{FabricConfig, FaultPlan, Width};
use rocenic_testkit::pair::{mac, Pair};

/// A PFC frame (802.1Qbb: MAC control, opcode 0x0101) from A pausing every class for 0x400 quanta.
fn pfc_frame() -> Vec<u8> {
    let mut f = vec![0x01, 0x80, 0xC2, 0x00, 0x00, 0x01];
    f.extend_from_slice(&mac(0));
    f.extend_from_slice(&[0x88, 0x08, 0x01, 0x01, 0x00, 0xFF]);
    for _ in 0..8 {
        f.extend_from_slice(&0x400u16.to_be_bytes());
    }
    f.resize(60, 0);
    f
}

/// Delivers `frame` to B, marked bad or not, runs `cycles` and returns what B sent meanwhile.
fn deliver(p: &Pair, frame: &[u8], bad: bool, cycles: u64) -> Vec<Vec<u8>> {
    let mut f = p.fabric.lock().unwrap();
    f.take_sent(1);
    if bad {
        f.nic_mut(1).push_rx_frame_bad_fcs(frame.to_vec());
    } else {
        f.nic_mut(1).push_rx_frame(frame.to_vec());
    }
    f.run(cycles);
    f.take_sent(1)
}

fn reg(p: &Pair, r: u16) -> u32 {
    p.fabric.lock().unwrap().reg_read(1, r)
}

fn bad_frames_are_dropped(width: Width, vlan: Option<u16>) {
    let (p, w) = big_write_at(width, 1 << 20, 20_000, 4096);
    if let Some(v) = vlan {
        for s in [&p.a, &p.b] {
            s.ctx.set_vlan(Some(v)).unwrap();
        }
    }
    let wire = |f: Vec<u8>| match vlan {
        Some(v) => tagged(&f, 3, v),
        None => f,
    };
    p.fabric.lock().unwrap().record_frames();
    w.post(&p);
    w.finish(&p, 200_000);
    let write = p.fabric.lock().unwrap().take_sent(0);
    let last = write.last().expect("A sent the WRITE").clone();
    let ctx = format!("{width:?}, VLAN {vlan:?}");

    // ARP: a request for B's address.
    let who_has = wire(who_has());
    let (req0, fcs0) = (reg(&p, regs::RX_ARP_REQUESTS), reg(&p, regs::RX_FCS_ERRORS));
    assert!(
        deliver(&p, &who_has, true, 500).is_empty(),
        "{ctx}: a bad ARP request answered"
    );
    assert_eq!(reg(&p, regs::RX_FCS_ERRORS), fcs0 + 1, "{ctx}");
    assert_eq!(
        reg(&p, regs::RX_ARP_REQUESTS),
        req0,
        "{ctx}: a bad ARP request counted"
    );
    assert_eq!(
        deliver(&p, &who_has, false, 500).len(),
        1,
        "{ctx}: the good one answered"
    );

    // RoCE: the WRITE's last packet again. Good bytes and a good ICRC; a duplicate, so re-ACKed (9.9.1.1)
    // unless marked.
    let (roce0, icrc0) = (
        reg(&p, regs::RX_ROCE_PACKETS),
        reg(&p, regs::RX_ICRC_ERRORS),
    );
    assert!(
        deliver(&p, &last, true, 2_000).is_empty(),
        "{ctx}: a bad packet ACKed"
    );
    assert_eq!(reg(&p, regs::RX_FCS_ERRORS), fcs0 + 2, "{ctx}");
    assert_eq!(
        reg(&p, regs::RX_ROCE_PACKETS),
        roce0,
        "{ctx}: a bad packet taken"
    );
    assert_eq!(reg(&p, regs::RX_ICRC_ERRORS), icrc0, "{ctx}");
    assert_eq!(
        deliver(&p, &last, false, 2_000).len(),
        1,
        "{ctx}: the duplicate re-ACKed"
    );
    assert_eq!(reg(&p, regs::RX_ROCE_PACKETS), roce0 + 1, "{ctx}");
    assert_eq!(reg(&p, regs::RX_FCS_ERRORS), fcs0 + 2, "{ctx}");

    // PFC, last (the good frame pauses B): MAC control frames stay untagged.
    let pause0 = reg(&p, regs::RX_PAUSE_FRAMES);
    deliver(&p, &pfc_frame(), true, 200);
    assert_eq!(
        reg(&p, regs::RX_PAUSE_FRAMES),
        pause0,
        "{ctx}: a bad PFC frame honoured"
    );
    assert_eq!(reg(&p, regs::RX_FCS_ERRORS), fcs0 + 3, "{ctx}");
    deliver(&p, &pfc_frame(), false, 200);
    assert_eq!(
        reg(&p, regs::RX_PAUSE_FRAMES),
        pause0 + 1,
        "{ctx}: the good one"
    );
}

#[test]
fn bad_fcs_frames_are_dropped_64() {
    bad_frames_are_dropped(Width::W64, None);
}

#[test]
fn bad_fcs_frames_are_dropped_512() {
    bad_frames_are_dropped(Width::W512, None);
}

#[test]
fn bad_fcs_frames_are_dropped_on_a_vlan() {
    // The VLAN stage holds a beat: the mark must follow the frame's last beat through it.
    for width in [Width::W64, Width::W512] {
        bad_frames_are_dropped(width, Some(100));
    }
}

#[test]
fn a_write_over_a_link_with_fcs_errors_completes() {
    for width in [Width::W64, Width::W512] {
        let cfg = FabricConfig {
            width,
            host_mem_bytes: 2 << 20,
            faults: FaultPlan::none().fcs_errors(0.03),
            seed: 7,
            ..FabricConfig::default()
        };
        let (p, w) = big_write_with(cfg, 20_000, 256 << 10);
        w.post(&p);
        w.finish(&p, 5_000_000);
        let mut f = p.fabric.lock().unwrap();
        let hit = f.link_stats().fcs_errors;
        let counted: u64 = (0..2)
            .map(|port| f.reg_read(port, regs::RX_FCS_ERRORS) as u64)
            .sum();
        assert!(hit >= 3, "{width:?}: {hit} frames hit");
        assert_eq!(counted, hit, "{width:?}: every hit frame counted");
        for port in 0..2 {
            assert_eq!(f.reg_read(port, regs::RX_ICRC_ERRORS), 0, "{width:?}");
        }
    }
}
