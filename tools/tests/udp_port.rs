//! The RoCEv2 UDP destination port (`UDP_DPORT`, 4791 after reset) on two co-simulated NICs: frames leave
//! to the configured port with a good ICRC, a receiver on another port takes none of them
//! (`RX_DROP_UDP_PORT`), and once it moves to the sender's port the requester's retransmission completes.
use crate::common::big_write_at;
use rocenic_proto::icrc;
use rocenic_proto::regs;
use rocenic_proto::wire::ipv4_frame;
use rocenic_sim::Width;

fn dport(f: &[u8]) -> u16 {
    u16::from_be_bytes([f[ipv4_frame::UDP_DPORT], f[ipv4_frame::UDP_DPORT + 1]])
}

#[test]
fn the_rocev2_udp_port_is_configurable() {
    let (p, w) = big_write_at(Width::W64, 4 << 20, 20_000, 16 << 10);
    assert!(p.a.ctx.set_udp_port(0).is_err());
    p.a.ctx.set_udp_port(4792).unwrap();
    p.fabric.lock().unwrap().record_frames();
    w.post(&p);
    p.fabric.lock().unwrap().run(15_000);
    {
        let mut f = p.fabric.lock().unwrap();
        let dropped = f.reg_read(1, regs::RX_DROP_UDP_PORT);
        assert!(
            dropped >= 16,
            "B (on 4791) dropped A's 16 packets: {dropped}"
        );
        assert_eq!(
            f.reg_read(1, regs::RX_DROP_NOT_ROCE),
            dropped,
            "for no other reason"
        );
        assert_eq!(f.reg_read(1, regs::RX_ROCE_PACKETS), 0);
    }
    p.b.ctx.set_udp_port(4792).unwrap();
    w.finish(&p, 2_000_000);
    let mut f = p.fabric.lock().unwrap();
    let (a, b) = (f.take_sent(0), f.take_sent(1));
    assert!(a.len() >= 32, "A sent the WRITE twice over: {}", a.len());
    assert!(!b.is_empty(), "B acknowledged");
    for fr in a.iter().chain(b.iter()) {
        assert_eq!(dport(fr), 4792);
        let mut at_4791 = fr.clone();
        at_4791[ipv4_frame::UDP_DPORT + 1] = 0xB7;
        assert_eq!(
            icrc::check_ipv4_any_port(&at_4791),
            Some(false),
            "and so the port counts"
        );
        assert_eq!(
            icrc::check_ipv4_any_port(fr),
            Some(true),
            "the ICRC covers the port"
        );
    }
    assert!(f.reg_read(1, regs::RX_ROCE_PACKETS) >= 16);
}
