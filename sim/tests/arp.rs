//! The core's ARP responder on the Verilated model, both widths: a request for the port's address gets
//! one correct reply (addresses swapped, 60 bytes); requests for another address, replies, and requests
//! while the engines are disabled get none; every request for us is counted.
use rocenic_proto::regs::{CONTROL, IPV4, MAC_HI, MAC_LO, RX_ARP_REQUESTS, TX_ARP_REPLIES};
use rocenic_proto::wire::arp_frame;
use rocenic_sim::{HostMemory, Nic, NicConfig, Width};
use std::sync::Arc;

const NIC_MAC: [u8; 6] = [0x02, 0x52, 0x4F, 0x43, 0x45, 0x07];
const PEER_MAC: [u8; 6] = [0x52, 0x54, 0x00, 0x12, 0x34, 0x56];

fn arp(op: u16, dst: [u8; 6], sha: [u8; 6], spa: [u8; 4], tpa: [u8; 4]) -> Vec<u8> {
    let mut f = arp_frame::emit(op, sha, spa, dst, [0; 6], tpa);
    f.resize(60, 0); // as it comes off the wire: padded to the Ethernet minimum
    f
}

fn run(nic: &mut Nic, cycles: usize) -> Vec<Vec<u8>> {
    for _ in 0..cycles {
        nic.tick();
    }
    std::iter::from_fn(|| nic.pop_tx_frame()).collect()
}

#[test]
fn answers_arp_for_its_address_only() {
    for width in [Width::W64, Width::W512] {
        let mem = Arc::new(HostMemory::new(1 << 20).unwrap());
        let mut nic = Nic::new(width, mem, &NicConfig::default()).unwrap();
        nic.reset();
        let mac = u64::from_be_bytes([
            0, 0, NIC_MAC[0], NIC_MAC[1], NIC_MAC[2], NIC_MAC[3], NIC_MAC[4], NIC_MAC[5],
        ]);
        nic.reg_write(MAC_LO, mac as u32);
        nic.reg_write(MAC_HI, (mac >> 32) as u32);
        nic.reg_write(IPV4, u32::from_be_bytes([10, 0, 0, 2]));
        let who_has = arp(1, [0xFF; 6], PEER_MAC, [10, 0, 0, 1], [10, 0, 0, 2]);

        // Disabled engines answer nothing.
        nic.push_rx_frame(who_has.clone());
        assert!(run(&mut nic, 200).is_empty(), "{width:?}: disabled");
        nic.reg_write(CONTROL, 1);

        nic.push_rx_frame(who_has.clone());
        let out = run(&mut nic, 200);
        assert_eq!(out.len(), 1, "{width:?}: one reply");
        let mut want = Vec::new();
        want.extend_from_slice(&PEER_MAC);
        want.extend_from_slice(&NIC_MAC);
        want.extend_from_slice(&[0x08, 0x06, 0, 1, 0x08, 0x00, 6, 4, 0, 2]);
        want.extend_from_slice(&NIC_MAC);
        want.extend_from_slice(&[10, 0, 0, 2]);
        want.extend_from_slice(&PEER_MAC);
        want.extend_from_slice(&[10, 0, 0, 1]);
        want.resize(60, 0);
        assert_eq!(out[0], want, "{width:?}: reply bytes");

        // Not for us: another IP, a reply, a unicast to another MAC.
        nic.push_rx_frame(arp(1, [0xFF; 6], PEER_MAC, [10, 0, 0, 1], [10, 0, 0, 9]));
        nic.push_rx_frame(arp(2, NIC_MAC, PEER_MAC, [10, 0, 0, 1], [10, 0, 0, 2]));
        nic.push_rx_frame(arp(
            1,
            [2, 0, 0, 0, 0, 1],
            PEER_MAC,
            [10, 0, 0, 1],
            [10, 0, 0, 2],
        ));
        // To our MAC directly: answered.
        nic.push_rx_frame(arp(1, NIC_MAC, PEER_MAC, [10, 0, 0, 1], [10, 0, 0, 2]));
        let out = run(&mut nic, 600);
        assert_eq!(out.len(), 1, "{width:?}: only the unicast request to us");
        assert_eq!(nic.reg_read(RX_ARP_REQUESTS), 2, "{width:?}");
        assert_eq!(nic.reg_read(TX_ARP_REPLIES), 2, "{width:?}");
    }
}
