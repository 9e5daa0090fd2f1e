//! The core's NDP responder (RFC 4861) on the Verilated model, both widths: a Neighbor Solicitation for a
//! GID table address gets one correct Neighbor Advertisement through the transmit arbiter, also when an ARP
//! request arrives right before it (both answers leave whole, ARP's first); solicitations for another
//! address, duplicate address detection probes and solicitations while the engines are disabled get none;
//! the counters count them.
use rocenic_proto::regs::{
    CONTROL, GID_1_0, GID_1_1, GID_1_2, GID_1_3, IPV4, MAC_HI, MAC_LO, RX_NDP_SOLICITATIONS,
    TX_ARP_REPLIES, TX_NDP_ADVERTISEMENTS,
};
use rocenic_proto::wire::{arp_frame, ndp_frame as nd};
use rocenic_sim::{HostMemory, Nic, NicConfig, Width};
use std::sync::Arc;

const NIC_MAC: [u8; 6] = [0x02, 0x52, 0x4F, 0x43, 0x45, 0x07];
const PEER_MAC: [u8; 6] = [0x52, 0x54, 0x00, 0x12, 0x34, 0x56];
const PEER_IP: [u8; 16] = [
    0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0x00, 0xFF, 0xFE, 0x12, 0x34, 0x56,
];
/// GID entry 1: fd52:4f43:45::2.
const GID: [u8; 16] = [
    0xFD, 0x52, 0x4F, 0x43, 0, 0x45, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
];

fn run(nic: &mut Nic, cycles: usize) -> Vec<Vec<u8>> {
    for _ in 0..cycles {
        nic.tick();
    }
    std::iter::from_fn(|| nic.pop_tx_frame()).collect()
}

fn ns(src_ip: [u8; 16], target: [u8; 16]) -> Vec<u8> {
    let sn = nd::solicited_node(target);
    nd::solicitation(
        nd::multicast_mac(sn),
        PEER_MAC,
        src_ip,
        sn,
        target,
        src_ip != [0; 16],
    )
}

/// Pseudo-header and message sum to 0xFFFF (RFC 4443 §2.3), computed here on its own.
fn checksum_good(f: &[u8]) -> bool {
    let msg = &f[nd::ICMP..];
    let mut b = f[nd::IP_SRC..nd::ICMP].to_vec();
    b.extend_from_slice(&(msg.len() as u32).to_be_bytes());
    b.extend_from_slice(&[0, 0, 0, 58]);
    b.extend_from_slice(msg);
    let mut s: u64 = b.chunks(2).map(|w| (w[0] as u64) << 8 | w[1] as u64).sum();
    while s > 0xFFFF {
        s = (s & 0xFFFF) + (s >> 16);
    }
    s == 0xFFFF
}

fn expected_na_without_checksum() -> Vec<u8> {
    let mut want = Vec::new();
    want.extend_from_slice(&PEER_MAC);
    want.extend_from_slice(&NIC_MAC);
    want.extend_from_slice(&[0x86, 0xDD, 0x60, 0, 0, 0, 0, 32, 58, 255]);
    want.extend_from_slice(&GID);
    want.extend_from_slice(&PEER_IP);
    want.extend_from_slice(&[136, 0, 0, 0, 0x60, 0, 0, 0]);
    want.extend_from_slice(&GID);
    want.extend_from_slice(&[2, 1]);
    want.extend_from_slice(&NIC_MAC);
    want
}

#[test]
fn answers_neighbor_solicitations_for_its_gids() {
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
        for (i, r) in [GID_1_0, GID_1_1, GID_1_2, GID_1_3].into_iter().enumerate() {
            nic.reg_write(
                r,
                u32::from_be_bytes(GID[4 * i..4 * i + 4].try_into().unwrap()),
            );
        }

        nic.push_rx_frame(ns(PEER_IP, GID));
        assert!(run(&mut nic, 300).is_empty(), "{width:?}: disabled");
        nic.reg_write(CONTROL, 1);

        nic.push_rx_frame(ns(PEER_IP, GID));
        let out = run(&mut nic, 300);
        assert_eq!(out.len(), 1, "{width:?}: one advertisement");
        let mut got = out[0].clone();
        assert!(checksum_good(&got), "{width:?}: checksum");
        got[nd::ICMP_CHECKSUM..nd::ICMP_CHECKSUM + 2].copy_from_slice(&[0, 0]);
        assert_eq!(
            got,
            expected_na_without_checksum(),
            "{width:?}: advertisement bytes"
        );

        // An ARP request and a solicitation back to back: both answered, each frame whole.
        let mut who_has =
            arp_frame::emit(1, PEER_MAC, [10, 0, 0, 1], [0xFF; 6], [0; 6], [10, 0, 0, 2]);
        who_has.resize(60, 0);
        nic.push_rx_frame(who_has);
        nic.push_rx_frame(ns(PEER_IP, GID));
        let out = run(&mut nic, 400);
        assert_eq!(out.len(), 2, "{width:?}: ARP reply and advertisement");
        assert_eq!(out[0].len(), 60, "{width:?}: the ARP reply first");
        assert_eq!(&out[0][12..14], &[0x08, 0x06]);
        assert!(checksum_good(&out[1]), "{width:?}: advertisement after it");

        // Not answered: another address, duplicate address detection (counted).
        let mut other = GID;
        other[15] = 3;
        nic.push_rx_frame(ns(PEER_IP, other));
        nic.push_rx_frame(ns([0; 16], GID));
        assert!(run(&mut nic, 400).is_empty(), "{width:?}: nothing else");
        assert_eq!(nic.reg_read(RX_NDP_SOLICITATIONS), 3, "{width:?}");
        assert_eq!(nic.reg_read(TX_NDP_ADVERTISEMENTS), 2, "{width:?}");
        assert_eq!(nic.reg_read(TX_ARP_REPLIES), 1, "{width:?}");
    }
}
