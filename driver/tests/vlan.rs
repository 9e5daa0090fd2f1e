//! 802.1Q VLANs on two co-simulated NICs: on a VLAN every RoCE frame leaves tagged with the port's VID and
//! the RoCE priority as PCP and the transfer is byte-exact; a NIC on another VLAN takes none of them
//! (RX_DROP_VLAN), and once it joins the sender's VLAN the requester's retransmission completes.
mod common;
use common::big_write_at;
use rocenic_proto::icrc;
use rocenic_proto::regs;
use rocenic_proto::wire::{Frame, ETHERTYPE_VLAN};
use rocenic_sim::Width;

/// Checks that `frames` are all RoCE frames tagged with `vid` and PCP 3 (PFC_PRIORITY after reset),
/// parse as tagged RoCEv2 and carry a good ICRC; returns how many.
fn all_tagged(frames: &[Vec<u8>], vid: u16) -> usize {
    for f in frames {
        assert_eq!(
            u16::from_be_bytes([f[12], f[13]]),
            ETHERTYPE_VLAN,
            "untagged frame"
        );
        let tci = u16::from_be_bytes([f[14], f[15]]);
        assert_eq!((tci >> 13, tci & 0xFFF), (3, vid), "TCI {tci:#06x}");
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
    p.fabric.lock().unwrap().record_frames();
    w.post(&p);
    w.finish(&p, 5_000_000);
    let mut f = p.fabric.lock().unwrap();
    let (a, b) = (f.take_sent(0), f.take_sent(1));
    assert!(all_tagged(&a, 100) >= 256, "A sent the WRITE's 256 packets");
    assert!(all_tagged(&b, 100) >= 1, "B acknowledged");
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
