//! ARP responder (RFC 826): watches every frame the MAC receives and answers an ARP request for the
//! port's IPv4 address with a reply from the port's MAC, so that a peer's IP stack (and with it Linux
//! rdma_rxe's address resolution) can reach the NIC. The reply is a 60-byte frame (42 bytes of ARP and
//! zero padding to the Ethernet minimum, no FCS: the MAC adds it) that the top's transmit arbiter sends
//! between two RoCE frames. A request that arrives while a reply is still being sent is counted and not
//! answered: the asker repeats its request.
use super::short_frame::{FrameHead, ShortFrameTx, REG_BYTES};
use crate::prim::byteswap::be_shift;
use rocenic_proto::wire::arp_frame as A;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct ArpResponder<const W: usize, const B: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub enable: Signal<In, bool>,
    pub mac_lo: Signal<In, Bits<32>>,
    pub mac_hi: Signal<In, Bits<32>>,
    pub ipv4: Signal<In, Bits<32>>,
    /// The MAC receive stream, observed (a beat counts when `rx_fire`).
    pub rx_tdata: Signal<In, Bits<W>>,
    pub rx_tlast: Signal<In, bool>,
    pub rx_fire: Signal<In, bool>,
    /// With the last beat: the MAC marked the frame bad (a bad FCS), or its 802.1Q tag is not the port's;
    /// it is ignored.
    pub rx_tuser: Signal<In, bool>,
    /// With the last beat: the VID the request came tagged with (0 = untagged).
    pub rx_vid: Signal<In, Bits<12>>,
    /// With the reply: the VLAN it leaves on, its request's (0 = untagged).
    pub tx_vid: Signal<Out, Bits<12>>,
    /// The reply, as an AXI-Stream source.
    pub tx_tdata: Signal<Out, Bits<W>>,
    pub tx_tkeep: Signal<Out, Bits<B>>,
    pub tx_tlast: Signal<Out, bool>,
    pub tx_tvalid: Signal<Out, bool>,
    pub tx_tready: Signal<In, bool>,
    pub requests_inc: Signal<Out, bool>,
    pub replies_inc: Signal<Out, bool>,
    rx: FrameHead<W>,
    tx: ShortFrameTx<W, B>,
    vid_last: DFF<Bits<12>>,
    vid_rep: DFF<Bits<12>>,
    f_dst: Signal<Local, Bits<48>>,
    f_type: Signal<Local, Bits<16>>,
    f_htype: Signal<Local, Bits<16>>,
    f_ptype: Signal<Local, Bits<16>>,
    f_hlen: Signal<Local, Bits<8>>,
    f_plen: Signal<Local, Bits<8>>,
    f_oper: Signal<Local, Bits<16>>,
    f_sha: Signal<Local, Bits<48>>,
    f_spa: Signal<Local, Bits<32>>,
    f_tpa: Signal<Local, Bits<32>>,
    my_mac: Signal<Local, Bits<48>>,
    is_request: Signal<Local, bool>,
    broadcast: Constant<Bits<48>>,
    sh_dst: Constant<Bits<16>>,
    sh_type: Constant<Bits<16>>,
    sh_htype: Constant<Bits<16>>,
    sh_ptype: Constant<Bits<16>>,
    sh_hlen: Constant<Bits<16>>,
    sh_plen: Constant<Bits<16>>,
    sh_oper: Constant<Bits<16>>,
    sh_sha: Constant<Bits<16>>,
    sh_spa: Constant<Bits<16>>,
    sh_tha: Constant<Bits<16>>,
    sh_tpa: Constant<Bits<16>>,
    sh_src: Constant<Bits<16>>,
    /// The reply's constant fields: EtherType, HTYPE, PTYPE, HLEN, PLEN, OPER = 2.
    fixed: Constant<Bits<512>>,
}

impl<const W: usize, const B: usize> Default for ArpResponder<W, B> {
    fn default() -> Self {
        let c16 = |v: u64| Constant::new(v.into());
        let sh = |off: usize, len: usize| c16(be_shift(REG_BYTES, off, len));
        let field = |v: u64, off: usize, len: usize| -> Bits<512> {
            bit_cast::<512, 64>(v.into()) << be_shift(REG_BYTES, off, len)
        };
        let fixed = field(A::ETHERTYPE_ARP as u64, 12, 2)
            | field(A::HTYPE_ETHERNET as u64, A::HTYPE, 2)
            | field(0x0800, A::PTYPE, 2)
            | field(6, A::HLEN, 1)
            | field(4, A::PLEN, 1)
            | field(A::OPER_REPLY as u64, A::OPER, 2);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enable: Default::default(),
            mac_lo: Default::default(),
            mac_hi: Default::default(),
            ipv4: Default::default(),
            rx_tdata: Default::default(),
            rx_tlast: Default::default(),
            rx_fire: Default::default(),
            rx_tuser: Default::default(),
            rx_vid: Default::default(),
            tx_vid: Default::default(),
            vid_last: Default::default(),
            vid_rep: Default::default(),
            tx_tdata: Default::default(),
            tx_tkeep: Default::default(),
            tx_tlast: Default::default(),
            tx_tvalid: Default::default(),
            tx_tready: Default::default(),
            requests_inc: Default::default(),
            replies_inc: Default::default(),
            rx: Default::default(),
            tx: Default::default(),
            f_dst: Default::default(),
            f_type: Default::default(),
            f_htype: Default::default(),
            f_ptype: Default::default(),
            f_hlen: Default::default(),
            f_plen: Default::default(),
            f_oper: Default::default(),
            f_sha: Default::default(),
            f_spa: Default::default(),
            f_tpa: Default::default(),
            my_mac: Default::default(),
            is_request: Default::default(),
            broadcast: Constant::new(0xFFFF_FFFF_FFFF_u64.into()),
            sh_dst: sh(0, 6),
            sh_type: sh(12, 2),
            sh_htype: sh(A::HTYPE, 2),
            sh_ptype: sh(A::PTYPE, 2),
            sh_hlen: sh(A::HLEN, 1),
            sh_plen: sh(A::PLEN, 1),
            sh_oper: sh(A::OPER, 2),
            sh_sha: sh(A::SHA, 6),
            sh_spa: sh(A::SPA, 4),
            sh_tha: sh(A::THA, 6),
            sh_tpa: sh(A::TPA, 4),
            sh_src: sh(6, 6),
            fixed: Constant::new(fixed),
        }
    }
}

impl<const W: usize, const B: usize> Logic for ArpResponder<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, vid_last, vid_rep);
        self.rx.clock.next = self.clock.val();
        self.rx.reset.next = self.reset.val();
        self.tx.clock.next = self.clock.val();
        self.tx.reset.next = self.reset.val();
        self.rx.rx_tdata.next = self.rx_tdata.val();
        self.rx.rx_tlast.next = self.rx_tlast.val();
        self.rx.rx_fire.next = self.rx_fire.val();
        self.rx.rx_tuser.next = self.rx_tuser.val();
        self.f_dst.next = bit_cast::<48, 512>(self.rx.head.val() >> self.sh_dst.val());
        self.f_type.next = bit_cast::<16, 512>(self.rx.head.val() >> self.sh_type.val());
        self.f_htype.next = bit_cast::<16, 512>(self.rx.head.val() >> self.sh_htype.val());
        self.f_ptype.next = bit_cast::<16, 512>(self.rx.head.val() >> self.sh_ptype.val());
        self.f_hlen.next = bit_cast::<8, 512>(self.rx.head.val() >> self.sh_hlen.val());
        self.f_plen.next = bit_cast::<8, 512>(self.rx.head.val() >> self.sh_plen.val());
        self.f_oper.next = bit_cast::<16, 512>(self.rx.head.val() >> self.sh_oper.val());
        self.f_sha.next = bit_cast::<48, 512>(self.rx.head.val() >> self.sh_sha.val());
        self.f_spa.next = bit_cast::<32, 512>(self.rx.head.val() >> self.sh_spa.val());
        self.f_tpa.next = bit_cast::<32, 512>(self.rx.head.val() >> self.sh_tpa.val());
        self.my_mac.next = (bit_cast::<48, 32>(self.mac_hi.val() & 0xFFFF) << 32)
            | bit_cast::<48, 32>(self.mac_lo.val());
        // A request for our address (RFC 826: Ethernet/IPv4, opcode 1), broadcast or to our MAC.
        self.is_request.next = (self.f_type.val() == 0x0806)
            && (self.f_htype.val() == 1)
            && (self.f_ptype.val() == 0x0800)
            && (self.f_hlen.val() == 6)
            && (self.f_plen.val() == 4)
            && (self.f_oper.val() == 1)
            && (self.f_tpa.val() == self.ipv4.val())
            && (self.ipv4.val() != 0)
            && ((self.f_dst.val() == self.broadcast.val())
                || (self.f_dst.val() == self.my_mac.val()));
        self.requests_inc.next = self.rx.done.val() && self.is_request.val() && self.enable.val();
        // The reply: to the asker, from us; we are the sender, the asker the target.
        self.tx.load.next = self.requests_inc.val();
        // The reply goes back on the request's VLAN: its VID is taken with the last beat, and kept for
        // the reply when the transmitter accepts it (a request it is too busy for is not answered).
        if self.rx_fire.val() && self.rx_tlast.val() {
            self.vid_last.d.next = self.rx_vid.val();
        }
        if self.requests_inc.val() && !self.tx.busy.val() {
            self.vid_rep.d.next = self.vid_last.q.val();
        }
        self.tx_vid.next = self.vid_rep.q.val();
        self.tx.frame.next = self.fixed.val()
            | (bit_cast::<512, 48>(self.f_sha.val()) << self.sh_dst.val())
            | (bit_cast::<512, 48>(self.my_mac.val()) << self.sh_src.val())
            | (bit_cast::<512, 48>(self.my_mac.val()) << self.sh_sha.val())
            | (bit_cast::<512, 32>(self.ipv4.val()) << self.sh_spa.val())
            | (bit_cast::<512, 48>(self.f_sha.val()) << self.sh_tha.val())
            | (bit_cast::<512, 32>(self.f_spa.val()) << self.sh_tpa.val());
        self.tx_tdata.next = self.tx.tx_tdata.val();
        self.tx_tkeep.next = self.tx.tx_tkeep.val();
        self.tx_tlast.next = self.tx.tx_tlast.val();
        self.tx_tvalid.next = self.tx.tx_tvalid.val();
        self.tx.tx_tready.next = self.tx_tready.val();
        self.replies_inc.next = self.tx.sent.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthesizes() {
        let mut uut = ArpResponder::<64, 8>::default();
        uut.connect_all();
        let v = generate_verilog(&uut);
        assert!(v.contains("module top"));
    }
}
