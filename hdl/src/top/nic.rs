//! The NIC core top: MAC AXI-Stream ports, the register port and the DMA port (see docs/interfaces.md).
//! It only wires the blocks together and arbitrates the shared DMA and completion paths:
//! MAC → `net::rx_buffer` → `roce::resp` (recv/resp/comp) → host memory, and `roce::req` → MAC.
use crate::host::cqe::CqeWriter;
use crate::host::dma_split::DmaReadSplit;
use crate::host::gather::Gather;
use crate::host::read_align::ReadAlign;
use crate::host::regs::Regs;
use crate::host::scatter::Scatter;
use crate::host::write_align::WriteAlign;
use crate::net::arp::ArpResponder;
use crate::net::ndp::NdpResponder;
use crate::net::pfc::PfcUnit;
use crate::net::rate_limiters::RateLimiters;
use crate::net::rx_buffer::RxBuffer;
use crate::net::tx_port::TxPort;
use crate::net::vlan::VlanStrip;
use crate::roce::mr_table::MrTable;
use crate::roce::qp_table::QpTable;
use crate::roce::req::TxEngine;
use crate::roce::resp::RxEngine;
use rust_hdl::prelude::*;

/// The NIC core, `W` bits wide with `B = W / 8` byte lanes, a receive buffer of `2^A` words and a QP
/// context table of `2^Q` QPs.
#[derive(LogicBlock)]
pub struct NicTop<const W: usize, const B: usize, const A: usize, const Q: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    // MAC receive stream
    pub rx_tdata: Signal<In, Bits<W>>,
    pub rx_tkeep: Signal<In, Bits<B>>,
    pub rx_tlast: Signal<In, bool>,
    pub rx_tvalid: Signal<In, bool>,
    /// With `rx_tlast`: the MAC marks the frame bad (a bad FCS; the CMAC's rx_axis_tuser). Such a frame
    /// is dropped and counted (RX_FCS_ERRORS), and no ARP, neighbour discovery or PFC unit acts on it.
    pub rx_tuser: Signal<In, bool>,
    pub rx_tready: Signal<Out, bool>,
    // MAC transmit stream
    pub tx_tdata: Signal<Out, Bits<W>>,
    pub tx_tkeep: Signal<Out, Bits<B>>,
    pub tx_tlast: Signal<Out, bool>,
    pub tx_tvalid: Signal<Out, bool>,
    pub tx_tready: Signal<In, bool>,
    // Register port
    pub reg_wr_valid: Signal<In, bool>,
    pub reg_wr_addr: Signal<In, Bits<16>>,
    pub reg_wr_data: Signal<In, Bits<32>>,
    pub reg_wr_ready: Signal<Out, bool>,
    pub reg_rd_valid: Signal<In, bool>,
    pub reg_rd_addr: Signal<In, Bits<16>>,
    pub reg_rd_ready: Signal<Out, bool>,
    pub reg_rd_data: Signal<Out, Bits<32>>,
    pub reg_rd_data_valid: Signal<Out, bool>,
    // DMA read
    pub dma_rd_req_valid: Signal<Out, bool>,
    pub dma_rd_req_addr: Signal<Out, Bits<64>>,
    pub dma_rd_req_beats: Signal<Out, Bits<16>>,
    pub dma_rd_req_tag: Signal<Out, Bits<4>>,
    pub dma_rd_req_ready: Signal<In, bool>,
    pub dma_rd_resp_valid: Signal<In, bool>,
    pub dma_rd_resp_data: Signal<In, Bits<W>>,
    pub dma_rd_resp_tag: Signal<In, Bits<4>>,
    pub dma_rd_resp_last: Signal<In, bool>,
    pub dma_rd_resp_ready: Signal<Out, bool>,
    // DMA write
    pub dma_wr_valid: Signal<Out, bool>,
    pub dma_wr_addr: Signal<Out, Bits<64>>,
    pub dma_wr_data: Signal<Out, Bits<W>>,
    pub dma_wr_strb: Signal<Out, Bits<B>>,
    pub dma_wr_ready: Signal<In, bool>,
    pub irq: Signal<Out, bool>,
    /// Fast-forward, for simulation (tie to 0 in hardware): this clock edge stands for `1 + warp`
    /// cycles. Only the free-running timers count them; a simulator may set it while no other state
    /// changes and the inputs stay still, to at most `wake`.
    pub warp: Signal<In, Bits<32>>,
    /// How many cycles fast-forward could skip, as of the last cycle, before a timer expires (all ones:
    /// none armed). Take one off: a timer may have counted since.
    pub wake: Signal<Out, Bits<32>>,
    regs: Regs,
    rx_buf: RxBuffer<W, B, A>,
    vlan_rx: VlanStrip<W, B>,
    /// The MAC's transmit side: the arbiter over PFC, ARP, NDP and RoCE frames, PFC's hold of RoCE
    /// frames, a register slice and the tag insert (`net/tx_port.rs`).
    tx_port: TxPort<W, B>,
    rx_eng: RxEngine<W, B, A>,
    tx_eng: TxEngine<W, B>,
    cqe: CqeWriter<W, B>,
    /// The receive engine's payload writes, moved to B-aligned host words (any destination address).
    scatter: Scatter<W, B>,
    walign: WriteAlign<W, B>,
    /// The transmit engine's reads (any source address) as beat-aligned reads, their data realigned.
    gather: Gather<W, B>,
    ralign: ReadAlign<W, B>,
    dma_split: DmaReadSplit<B>,
    arp: ArpResponder<W, B>,
    ndp: NdpResponder<W, B>,
    pfc: PfcUnit<W, B>,
    dcqcn: RateLimiters<B>,
    qpt: QpTable<Q>,
    /// As many MR entries as QPs.
    mrt: MrTable<Q>,
    same_qp: Signal<Local, bool>,
    wake_tx: Signal<Local, Bits<32>>,
    q_log: Constant<Bits<32>>,
    /// The port is on an 802.1Q VLAN.
    vlan_on: Signal<Local, bool>,
    /// Entries of the port VLAN table that are on (bit i: entry i; VLAN is entry 0).
    vlan_table_on: Signal<Local, Bits<4>>,
    /// DSCP d's 802.1Qbb priority at bits 4d..4d+2 (the DSCP_PRIO_MAP_n registers side by side).
    dscp_map: Signal<Local, Bits<256>>,
    /// The priority of the RoCE frame on the transmit engine's stream, and of the QP whose address
    /// vector the engine reads: their DSCP through the map.
    tx_prio: Signal<Local, Bits<3>>,
    av_prio: Signal<Local, Bits<3>>,
    /// The lossless priorities (PFC_ENABLE, bit p = priority p), the lowest of them (0 if none: the PCP
    /// of ARP and NDP replies).
    lossless: Signal<Local, Bits<8>>,
    ctl_pcp: Signal<Local, Bits<3>>,
    enable: Signal<Local, bool>,
    rd_max_beats: Signal<Local, Bits<32>>,
    rd_resp_ready: Signal<Local, bool>,
    /// The port GID table's entries (GID_n_0..3, big-endian words) and the one the current frame leaves from.
    gid0: Signal<Local, Bits<128>>,
    gid1: Signal<Local, Bits<128>>,
    gid2: Signal<Local, Bits<128>>,
    gid3: Signal<Local, Bits<128>>,
    src_gid: Signal<Local, Bits<128>>,
    log_b32: Constant<Bits<32>>,
    id_value: Constant<Bits<32>>,
    version_value: Constant<Bits<32>>,
    beat_bytes: Constant<Bits<32>>,
}

impl<const W: usize, const B: usize, const A: usize, const Q: usize> Default
    for NicTop<W, B, A, Q>
{
    fn default() -> Self {
        assert_eq!(W, 8 * B, "B must be W / 8");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rx_tdata: Default::default(),
            rx_tkeep: Default::default(),
            rx_tlast: Default::default(),
            rx_tvalid: Default::default(),
            rx_tuser: Default::default(),
            rx_tready: Default::default(),
            tx_tdata: Default::default(),
            tx_tkeep: Default::default(),
            tx_tlast: Default::default(),
            tx_tvalid: Default::default(),
            tx_tready: Default::default(),
            reg_wr_valid: Default::default(),
            reg_wr_addr: Default::default(),
            reg_wr_data: Default::default(),
            reg_wr_ready: Default::default(),
            reg_rd_valid: Default::default(),
            reg_rd_addr: Default::default(),
            reg_rd_ready: Default::default(),
            reg_rd_data: Default::default(),
            reg_rd_data_valid: Default::default(),
            dma_rd_req_valid: Default::default(),
            dma_rd_req_addr: Default::default(),
            dma_rd_req_beats: Default::default(),
            dma_rd_req_tag: Default::default(),
            dma_rd_req_ready: Default::default(),
            dma_rd_resp_valid: Default::default(),
            dma_rd_resp_data: Default::default(),
            dma_rd_resp_tag: Default::default(),
            dma_rd_resp_last: Default::default(),
            dma_rd_resp_ready: Default::default(),
            dma_wr_valid: Default::default(),
            dma_wr_addr: Default::default(),
            dma_wr_data: Default::default(),
            dma_wr_strb: Default::default(),
            dma_wr_ready: Default::default(),
            irq: Default::default(),
            warp: Default::default(),
            wake: Default::default(),
            wake_tx: Default::default(),
            regs: Default::default(),
            rx_buf: Default::default(),
            vlan_rx: Default::default(),
            tx_port: Default::default(),
            rx_eng: Default::default(),
            tx_eng: Default::default(),
            cqe: Default::default(),
            scatter: Default::default(),
            walign: Default::default(),
            gather: Default::default(),
            ralign: Default::default(),
            dma_split: Default::default(),
            arp: Default::default(),
            ndp: Default::default(),
            pfc: Default::default(),
            dcqcn: Default::default(),
            qpt: Default::default(),
            mrt: Default::default(),
            same_qp: Default::default(),
            q_log: Constant::new((Q as u64).into()),
            vlan_on: Default::default(),
            vlan_table_on: Default::default(),
            dscp_map: Default::default(),
            tx_prio: Default::default(),
            av_prio: Default::default(),
            lossless: Default::default(),
            ctl_pcp: Default::default(),
            enable: Default::default(),
            rd_max_beats: Default::default(),
            rd_resp_ready: Default::default(),
            gid0: Default::default(),
            gid1: Default::default(),
            gid2: Default::default(),
            gid3: Default::default(),
            src_gid: Default::default(),
            log_b32: Constant::new((B.trailing_zeros() as u64).into()),
            id_value: Constant::new((rocenic_proto::regs::ID_VALUE as u64).into()),
            version_value: Constant::new((rocenic_proto::regs::VERSION_VALUE as u64).into()),
            beat_bytes: Constant::new((B as u64).into()),
        }
    }
}

impl<const W: usize, const B: usize, const A: usize, const Q: usize> Logic for NicTop<W, B, A, Q> {
    #[hdl_gen]
    fn update(&mut self) {
        self.regs.clock.next = self.clock.val();
        self.qpt.clock.next = self.clock.val();
        self.qpt.reset.next = self.reset.val();
        self.rx_buf.clock.next = self.clock.val();
        self.rx_eng.clock.next = self.clock.val();
        self.tx_eng.clock.next = self.clock.val();
        self.cqe.clock.next = self.clock.val();
        self.dma_split.clock.next = self.clock.val();
        self.gather.clock.next = self.clock.val();
        self.gather.reset.next = self.reset.val();
        self.ralign.clock.next = self.clock.val();
        self.ralign.reset.next = self.reset.val();
        self.dma_split.reset.next = self.reset.val();
        self.arp.clock.next = self.clock.val();
        self.arp.reset.next = self.reset.val();
        self.ndp.clock.next = self.clock.val();
        self.ndp.reset.next = self.reset.val();
        self.pfc.clock.next = self.clock.val();
        self.dcqcn.clock.next = self.clock.val();
        self.dcqcn.reset.next = self.reset.val();
        self.pfc.reset.next = self.reset.val();
        self.regs.reset.next = self.reset.val();
        self.rx_buf.reset.next = self.reset.val();
        self.rx_eng.reset.next = self.reset.val();
        self.tx_eng.reset.next = self.reset.val();
        self.cqe.reset.next = self.reset.val();
        // Register port
        self.regs.wr_valid.next = self.reg_wr_valid.val();
        self.regs.wr_addr.next = self.reg_wr_addr.val();
        self.regs.wr_data.next = self.reg_wr_data.val();
        self.regs.rd_valid.next = self.reg_rd_valid.val();
        self.regs.rd_addr.next = self.reg_rd_addr.val();
        self.reg_wr_ready.next = self.regs.wr_ready.val();
        self.reg_rd_ready.next = self.regs.rd_ready.val();
        self.reg_rd_data.next = self.regs.rd_data.val();
        self.reg_rd_data_valid.next = self.regs.rd_data_valid.val();
        self.regs.id.next = self.id_value.val();
        self.regs.version.next = self.version_value.val();
        self.regs.datapath_bytes.next = self.beat_bytes.val();
        self.regs.last_syndrome.next = self.rx_eng.last_syndrome.val();
        self.enable.next = (self.regs.control.val() & 1) != 0;
        // Receive buffer
        self.rx_buf.enable.next = self.enable.val();
        self.rx_buf.mac_lo.next = self.regs.mac_lo.val();
        self.rx_buf.mac_hi.next = self.regs.mac_hi.val();
        self.gid0.next = (bit_cast::<128, 32>(self.regs.gid_0_0.val()) << 96)
            | (bit_cast::<128, 32>(self.regs.gid_0_1.val()) << 64)
            | (bit_cast::<128, 32>(self.regs.gid_0_2.val()) << 32)
            | bit_cast::<128, 32>(self.regs.gid_0_3.val());
        self.gid1.next = (bit_cast::<128, 32>(self.regs.gid_1_0.val()) << 96)
            | (bit_cast::<128, 32>(self.regs.gid_1_1.val()) << 64)
            | (bit_cast::<128, 32>(self.regs.gid_1_2.val()) << 32)
            | bit_cast::<128, 32>(self.regs.gid_1_3.val());
        self.gid2.next = (bit_cast::<128, 32>(self.regs.gid_2_0.val()) << 96)
            | (bit_cast::<128, 32>(self.regs.gid_2_1.val()) << 64)
            | (bit_cast::<128, 32>(self.regs.gid_2_2.val()) << 32)
            | bit_cast::<128, 32>(self.regs.gid_2_3.val());
        self.gid3.next = (bit_cast::<128, 32>(self.regs.gid_3_0.val()) << 96)
            | (bit_cast::<128, 32>(self.regs.gid_3_1.val()) << 64)
            | (bit_cast::<128, 32>(self.regs.gid_3_2.val()) << 32)
            | bit_cast::<128, 32>(self.regs.gid_3_3.val());
        self.rx_buf.ipv4.next = self.regs.ipv4.val();
        self.rx_buf.gid0.next = self.gid0.val();
        self.rx_buf.gid1.next = self.gid1.val();
        self.rx_buf.gid2.next = self.gid2.val();
        self.rx_buf.gid3.next = self.gid3.val();
        self.rx_buf.udp_dport.next = bit_cast::<16, 32>(self.regs.udp_dport.val());
        // 802.1Q: in VLAN mode the tag comes off before the receive buffer and goes on after the transmit
        // arbiter (RoCE and ARP frames; PFC/PAUSE frames are never tagged). Out of VLAN mode both blocks
        // pass frames through in the same cycle.
        self.vlan_rx.clock.next = self.clock.val();
        self.vlan_rx.reset.next = self.reset.val();
        // VLAN bit 16 (regs::VLAN_MODE); VLAN_n bit 16 (regs::VLAN_ON). Tags come off while any entry of
        // the port VLAN table is on; untagged frames are taken unless the port is in VLAN mode.
        self.vlan_on.next = (self.regs.vlan.val() & 0x1_0000) != 0;
        self.vlan_table_on.next = bit_cast::<4, 32>(
            ((self.regs.vlan.val() >> 16) & 1)
                | ((self.regs.vlan_1.val() >> 15) & 2)
                | ((self.regs.vlan_2.val() >> 14) & 4)
                | ((self.regs.vlan_3.val() >> 13) & 8),
        );
        self.vlan_rx.mode.next = self.vlan_table_on.val() != 0;
        self.vlan_rx.untagged_ok.next = !self.vlan_on.val();
        self.vlan_rx.vid_on.next = self.vlan_table_on.val();
        self.vlan_rx.vid.next = bit_cast::<12, 32>(self.regs.vlan.val() & 0xFFF);
        self.vlan_rx.vid1.next = bit_cast::<12, 32>(self.regs.vlan_1.val() & 0xFFF);
        self.vlan_rx.vid2.next = bit_cast::<12, 32>(self.regs.vlan_2.val() & 0xFFF);
        self.vlan_rx.vid3.next = bit_cast::<12, 32>(self.regs.vlan_3.val() & 0xFFF);
        self.vlan_rx.in_tdata.next = self.rx_tdata.val();
        self.vlan_rx.in_tkeep.next = self.rx_tkeep.val();
        self.vlan_rx.in_tlast.next = self.rx_tlast.val();
        self.vlan_rx.in_tvalid.next = self.rx_tvalid.val();
        self.vlan_rx.in_tuser.next = self.rx_tuser.val();
        self.rx_tready.next = self.vlan_rx.in_tready.val();
        self.rx_buf.rx_tdata.next = self.vlan_rx.out_tdata.val();
        self.rx_buf.rx_tkeep.next = self.vlan_rx.out_tkeep.val();
        self.rx_buf.rx_tlast.next = self.vlan_rx.out_tlast.val();
        self.rx_buf.rx_tvalid.next = self.vlan_rx.out_tvalid.val();
        self.rx_buf.rx_tuser.next = self.vlan_rx.out_tuser.val();
        self.regs.rx_fcs_errors_inc.next = self.rx_buf.fcs_err_inc.val();
        self.rx_buf.vlan_bad.next = self.vlan_rx.vlan_drop.val();
        // Priority of received RoCE frames and the shared buffer's room for lossy ones.
        self.rx_buf.pcp.next = self.vlan_rx.pcp.val();
        self.rx_buf.trust_dscp.next = (self.regs.prio_trust.val() & 1) != 0;
        self.dscp_map.next = (bit_cast::<256, 32>(self.regs.dscp_prio_map_7.val()) << 224)
            | (bit_cast::<256, 32>(self.regs.dscp_prio_map_6.val()) << 192)
            | (bit_cast::<256, 32>(self.regs.dscp_prio_map_5.val()) << 160)
            | (bit_cast::<256, 32>(self.regs.dscp_prio_map_4.val()) << 128)
            | (bit_cast::<256, 32>(self.regs.dscp_prio_map_3.val()) << 96)
            | (bit_cast::<256, 32>(self.regs.dscp_prio_map_2.val()) << 64)
            | (bit_cast::<256, 32>(self.regs.dscp_prio_map_1.val()) << 32)
            | bit_cast::<256, 32>(self.regs.dscp_prio_map_0.val());
        self.rx_buf.dscp_map.next = self.dscp_map.val();
        self.lossless.next = bit_cast::<8, 32>(self.regs.pfc_enable.val());
        self.ctl_pcp.next = 0.into();
        if (self.lossless.val() & 0x80) != 0 {
            self.ctl_pcp.next = 7.into();
        }
        if (self.lossless.val() & 0x40) != 0 {
            self.ctl_pcp.next = 6.into();
        }
        if (self.lossless.val() & 0x20) != 0 {
            self.ctl_pcp.next = 5.into();
        }
        if (self.lossless.val() & 0x10) != 0 {
            self.ctl_pcp.next = 4.into();
        }
        if (self.lossless.val() & 0x08) != 0 {
            self.ctl_pcp.next = 3.into();
        }
        if (self.lossless.val() & 0x04) != 0 {
            self.ctl_pcp.next = 2.into();
        }
        if (self.lossless.val() & 0x02) != 0 {
            self.ctl_pcp.next = 1.into();
        }
        if (self.lossless.val() & 0x01) != 0 {
            self.ctl_pcp.next = 0.into();
        }
        self.rx_buf.lossless.next = self.lossless.val();
        self.rx_buf.lossy_words.next = bit_cast::<A, 32>(self.regs.rx_lossy_words.val());
        self.regs.rx_drop_lossy_inc.next = self.rx_buf.lossy_inc.val();
        self.regs.implied_nak_seq_err_inc.next = self.rx_eng.implied_nak_inc.val();
        // The receive buffer takes a beat every cycle.
        self.vlan_rx.out_tready.next = true;
        self.rx_buf.rd_addr.next = self.rx_eng.buf_rd_addr.val();
        self.rx_buf.pop.next = self.rx_eng.buf_pop.val();
        self.regs.rx_frames_inc.next = self.rx_buf.frames_inc.val();
        self.regs.rx_roce_packets_inc.next = self.rx_buf.roce_inc.val();
        self.regs.rx_icrc_errors_inc.next = self.rx_buf.icrc_err_inc.val();
        self.regs.rx_drop_not_roce_inc.next = self.rx_buf.not_roce_inc.val();
        // One reason counter per drop, codes of RxBuffer::drop_reason: 0 destination MAC,
        // 1 EtherType, 2 IP version/IHL, 3 destination IP, 4 UDP port, 5 lengths, 6 port disabled,
        // 7 VLAN tag.
        self.regs.rx_drop_dst_mac_inc.next =
            self.rx_buf.not_roce_inc.val() && (self.rx_buf.drop_reason.val() == 0);
        self.regs.rx_drop_ethertype_inc.next =
            self.rx_buf.not_roce_inc.val() && (self.rx_buf.drop_reason.val() == 1);
        self.regs.rx_drop_ip_header_inc.next =
            self.rx_buf.not_roce_inc.val() && (self.rx_buf.drop_reason.val() == 2);
        self.regs.rx_drop_dst_ip_inc.next =
            self.rx_buf.not_roce_inc.val() && (self.rx_buf.drop_reason.val() == 3);
        self.regs.rx_drop_udp_port_inc.next =
            self.rx_buf.not_roce_inc.val() && (self.rx_buf.drop_reason.val() == 4);
        self.regs.rx_drop_length_inc.next =
            self.rx_buf.not_roce_inc.val() && (self.rx_buf.drop_reason.val() == 5);
        self.regs.rx_drop_disabled_inc.next =
            self.rx_buf.not_roce_inc.val() && (self.rx_buf.drop_reason.val() == 6);
        self.regs.rx_drop_vlan_inc.next =
            self.rx_buf.not_roce_inc.val() && (self.rx_buf.drop_reason.val() == 7);
        self.regs.rx_drop_overflow_inc.next = self.rx_buf.overflow_inc.val();
        self.regs.rx_ip_checksum_errors_inc.next = self.rx_buf.ip_csum_err_inc.val();
        // Receive engine
        self.rx_eng.enable.next = self.enable.val();
        // The current receive QP's context (roce::qp_table).
        self.rx_eng.qp_state.next = self.qpt.rx_state.val();
        self.rx_eng.qpn.next = self.qpt.rx_qpn.val();
        self.rx_eng.dest_qpn.next = self.qpt.rx_dest_qpn.val();
        self.rx_eng.pmtu.next = self.qpt.rx_pmtu.val();
        self.rx_eng.rq_psn.next = self.qpt.rx_rq_psn.val();
        self.rx_eng.qp_pd.next = self.qpt.rx_pd.val();
        self.rx_eng.qp_peer_ip.next = self.qpt.rx_peer_ip.val();
        self.rx_eng.rq_base_lo.next = self.qpt.rx_rq_base_lo.val();
        self.rx_eng.rq_base_hi.next = self.qpt.rx_rq_base_hi.val();
        self.rx_eng.rq_log_size.next = self.qpt.rx_rq_log.val();
        self.rx_eng.rq_pi.next = self.qpt.rx_rq_pi.val();
        self.rx_eng.rq_ci.next = self.qpt.rx_rq_ci.val();
        self.rx_eng.ctx_hit.next = self.qpt.rx_hit.val();
        self.rx_eng.ctx_load.next = self.qpt.rx_ctx_load.val();
        self.rx_eng.ctx_in.next = self.qpt.rx_ctx_in.val();
        self.qpt.rx_ctx_out.next = self.rx_eng.ctx_out.val();
        self.qpt.rx_want.next = self.rx_eng.ctx_want.val();
        self.qpt.rx_want_qpn.next = self.rx_eng.want_qpn.val();
        self.qpt.rx_rq_psn_set.next = self.rx_eng.rq_psn_set.val();
        self.qpt.rx_rq_psn_val.next = self.rx_eng.rq_psn_val.val();
        self.qpt.rx_rq_ci_inc.next = self.rx_eng.rq_ci_inc.val();
        self.qpt.rx_err.next = self.rx_eng.qp_err.val();
        // The host side of the table: the QP window registers, QP_CMD and the doorbells.
        self.qpt.sel.next = self.regs.qpn.val();
        self.qpt.cmd.next = self.regs.qp_cmd.val();
        self.regs.qp_cmd_set.next = self.qpt.cmd_done.val();
        self.regs.qp_cmd_val.next = 0.into();
        self.regs.qp_table_log.next = self.q_log.val();
        self.qpt.w_state.next = self.regs.qp_state.val();
        self.qpt.w_dest_qpn.next = self.regs.dest_qpn.val();
        self.qpt.w_pmtu.next = self.regs.pmtu.val();
        self.qpt.w_min_rnr.next = self.regs.min_rnr_timer.val();
        self.qpt.w_access.next = self.regs.qp_access.val();
        self.qpt.w_pd.next = self.regs.qp_pd.val();
        self.qpt.w_rq_base.next = (bit_cast::<64, 32>(self.regs.rq_base_hi.val()) << 32)
            | bit_cast::<64, 32>(self.regs.rq_base_lo.val());
        self.qpt.w_rq_log.next = self.regs.rq_log_size.val();
        self.qpt.w_rq_psn.next = self.regs.rq_psn.val();
        self.qpt.w_rq_pi.next = self.regs.rq_pi.val();
        self.qpt.w_rq_ci.next = self.regs.rq_ci.val();
        self.qpt.w_ack_timeout.next = self.regs.ack_timeout.val();
        self.qpt.w_retry.next = self.regs.retry_cnt.val();
        self.qpt.w_rnr_retry.next = self.regs.rnr_retry.val();
        self.qpt.w_sq_base.next = (bit_cast::<64, 32>(self.regs.sq_base_hi.val()) << 32)
            | bit_cast::<64, 32>(self.regs.sq_base_lo.val());
        self.qpt.w_sq_log.next = self.regs.sq_log_size.val();
        self.qpt.w_sq_psn.next = self.regs.sq_psn.val();
        self.qpt.w_sq_pi.next = self.regs.sq_pi.val();
        self.qpt.w_sq_ci.next = self.regs.sq_ci.val();
        self.qpt.w_dest_mac.next = (bit_cast::<64, 32>(self.regs.dest_mac_hi.val()) << 32)
            | bit_cast::<64, 32>(self.regs.dest_mac_lo.val());
        self.qpt.w_dest_ip.next = self.regs.dest_ipv4.val();
        self.qpt.w_sport.next = self.regs.udp_sport.val();
        self.qpt.w_dscp.next = self.regs.qp_dscp.val();
        self.qpt.w_dgid0.next = self.regs.dest_gid_0.val();
        self.qpt.w_dgid1.next = self.regs.dest_gid_1.val();
        self.qpt.w_dgid2.next = self.regs.dest_gid_2.val();
        self.qpt.w_ipv6.next = self.regs.qp_ipv6.val();
        self.qpt.w_hop_limit.next = self.regs.qp_hop_limit.val();
        self.qpt.w_flow_label.next = self.regs.qp_flow_label.val();
        self.qpt.w_vlan.next = self.regs.qp_vlan.val();
        self.qpt.w_max_rd.next = self.regs.qp_max_rd_atomic.val();
        self.qpt.sq_db.next = self.reg_wr_valid.val() && (self.reg_wr_addr.val() == 0x030C);
        self.qpt.rq_db.next = self.reg_wr_valid.val() && (self.reg_wr_addr.val() == 0x032C);
        self.qpt.db_val.next = self.reg_wr_data.val();
        self.regs.qp_state_set.next = self.qpt.q_set.val();
        self.regs.qp_out_of_sequence.next = self.qpt.q_oos.val();
        self.regs.qp_duplicate_request.next = self.qpt.q_dup.val();
        self.regs.qp_packet_seq_err.next = self.qpt.q_seq_nak.val();
        self.regs.qp_local_ack_timeout_err.next = self.qpt.q_timeouts.val();
        self.regs.qp_retransmits.next = self.qpt.q_retrans.val();
        self.qpt.tx_timeout_inc.next = self.tx_eng.ack_timeouts_inc.val();
        self.qpt.tx_retrans_inc.next = self.tx_eng.retransmits_inc.val();
        self.regs.qp_state_val.next = self.qpt.q_state.val();
        self.regs.sq_psn_set.next = self.qpt.q_set.val();
        self.regs.sq_psn_val.next = self.qpt.q_sq_psn.val();
        self.regs.rq_psn_set.next = self.qpt.q_set.val();
        self.regs.rq_psn_val.next = self.qpt.q_rq_psn.val();
        self.regs.sq_ci_set.next = self.qpt.q_set.val();
        self.regs.sq_ci_val.next = self.qpt.q_sq_ci.val();
        self.regs.rq_ci_set.next = self.qpt.q_set.val();
        self.regs.rq_ci_val.next = self.qpt.q_rq_ci.val();
        self.regs.qp_context_switches_inc.next = self.qpt.ctx_switch_inc.val();
        self.regs.doorbell_overflows_inc.next = self.qpt.db_overflow_inc.val();
        self.regs.qp_err_events_inc.next = self.qpt.err_event_inc.val();
        self.qpt.all_err.next = self.cqe.overrun.val();
        // ACKs, READ responses and ATOMIC ACKNOWLEDGEs reach the requester only for its current QP.
        self.same_qp.next = self.qpt.rx_qpn.val() == self.qpt.tx_qpn.val();
        // The MR table: host commands from the MR window, lookups for the receive engine.
        self.mrt.clock.next = self.clock.val();
        self.mrt.reset.next = self.reset.val();
        self.mrt.sel.next = self.regs.mr_index.val();
        self.mrt.cmd.next = self.regs.mr_cmd.val();
        self.regs.mr_cmd_set.next = self.mrt.cmd_done.val();
        self.regs.mr_cmd_val.next = 0.into();
        self.regs.mr_table_log.next = self.q_log.val();
        self.mrt.w_base.next = (bit_cast::<64, 32>(self.regs.mr_base_hi.val()) << 32)
            | bit_cast::<64, 32>(self.regs.mr_base_lo.val());
        self.mrt.w_len.next = self.regs.mr_len.val();
        self.mrt.w_len_hi.next = self.regs.mr_len_hi.val();
        self.mrt.w_key.next = self.regs.mr_key.val();
        self.mrt.w_access.next = self.regs.mr_access.val();
        self.mrt.w_pd.next = self.regs.mr_pd.val();
        self.mrt.lk_key.next = self.rx_eng.mr_lk_key.val();
        self.mrt.inv.next = self.rx_eng.mr_inv.val();
        self.mrt.hold.next = self.rx_eng.mr_hold.val();
        self.rx_eng.mr_for.next = self.mrt.e_for.val();
        self.rx_eng.mr_fresh.next = self.mrt.e_fresh.val();
        self.rx_eng.mr_base.next = self.mrt.e_base.val();
        self.rx_eng.mr_end.next = self.mrt.e_end.val();
        self.rx_eng.mr_key.next = self.mrt.e_key.val();
        self.rx_eng.mr_access.next = self.mrt.e_access.val();
        self.rx_eng.mr_pd.next = self.mrt.e_pd.val();
        self.rx_eng.buf_pending.next = self.rx_buf.pending.val();
        self.rx_eng.buf_head.next = self.rx_buf.head.val();
        self.rx_eng.buf_rd_data.next = self.rx_buf.rd_data.val();
        self.rx_eng.buf_meta.next = self.rx_buf.meta.val();
        self.rx_eng.ack_taken.next = self.tx_eng.ack_taken.val();
        self.regs.rx_drop_qp_inc.next = self.rx_eng.drop_qp_inc.val();
        self.regs.rx_drop_src_addr_inc.next = self.rx_eng.drop_src_inc.val();
        self.regs.rx_acks_inc.next = self.rx_eng.rx_acks_inc.val();
        self.regs.rx_naks_inc.next = self.rx_eng.rx_naks_inc.val();
        self.regs.rx_dup_requests_inc.next = self.rx_eng.dup_inc.val();
        self.regs.rx_seq_errors_inc.next = self.rx_eng.seq_err_inc.val();
        self.regs.rx_remote_access_errors_inc.next = self.rx_eng.rem_access_inc.val();
        self.regs.rx_invalidate_errors_inc.next = self.rx_eng.inv_err_inc.val();
        self.regs.rx_remote_invalidations_inc.next = self.rx_eng.mr_inv.val();
        self.rx_eng.min_rnr_timer.next = self.qpt.rx_min_rnr.val();
        self.rx_eng.qp_access.next = self.qpt.rx_access.val();
        self.regs.tx_rnr_naks_inc.next = self.rx_eng.tx_rnr_naks_inc.val();
        self.regs.rx_rnr_naks_inc.next = self.rx_eng.rx_rnr_naks_inc.val();
        self.regs.rx_seq_naks_inc.next = self.rx_eng.rx_seq_naks_inc.val();
        self.regs.rx_remote_access_naks_inc.next = self.rx_eng.rx_remote_access_naks_inc.val();
        self.regs.rx_invalid_request_naks_inc.next = self.rx_eng.rx_invalid_request_naks_inc.val();
        // Transmit engine (requester and ACK emission)
        self.tx_eng.enable.next = self.enable.val();
        self.tx_eng.qp_state.next = self.qpt.tx_state.val();
        self.tx_eng.mac_lo.next = self.regs.mac_lo.val();
        self.tx_eng.mac_hi.next = self.regs.mac_hi.val();
        self.tx_eng.ipv4.next = self.regs.ipv4.val();
        // The frame's address vector, the current QP's attributes, and the receive side's QP for ACKs.
        self.qpt.av_qpn.next = self.tx_eng.av_qpn.val();
        self.tx_eng.dest_mac_lo.next = self.qpt.av_dest_mac_lo.val();
        self.tx_eng.dest_mac_hi.next = self.qpt.av_dest_mac_hi.val();
        self.tx_eng.dest_ipv4.next = self.qpt.av_dest_ip.val();
        self.tx_eng.ipv6.next = self.qpt.av_ipv6.val();
        self.tx_eng.hop_limit.next = self.qpt.av_hop_limit.val();
        self.tx_eng.flow_label.next = self.qpt.av_flow_label.val();
        self.tx_eng.vlan.next = self.qpt.av_vlan.val();
        self.tx_eng.dest_gid_hi.next = self.qpt.av_dgid_hi.val();
        self.src_gid.next = self.gid0.val();
        if self.qpt.av_sgid.val() == 1 {
            self.src_gid.next = self.gid1.val();
        }
        if self.qpt.av_sgid.val() == 2 {
            self.src_gid.next = self.gid2.val();
        }
        if self.qpt.av_sgid.val() == 3 {
            self.src_gid.next = self.gid3.val();
        }
        self.tx_eng.src_gid.next = self.src_gid.val();
        self.tx_eng.dest_qpn.next = self.qpt.av_dest_qpn.val();
        self.tx_eng.udp_sport.next = self.qpt.av_sport.val();
        self.tx_eng.udp_dport.next = bit_cast::<16, 32>(self.regs.udp_dport.val());
        self.tx_eng.qp_dscp.next = self.qpt.av_dscp.val();
        self.tx_eng.hold.next = self.qpt.tx_hold.val();
        self.qpt.tx_sw_ok.next = self.tx_eng.sw_ok.val();
        self.tx_eng.cur_qpn.next = self.qpt.tx_qpn.val();
        self.tx_eng.job_qpn.next = self.qpt.rx_qpn.val();
        self.tx_eng.job_state.next = self.qpt.rx_state.val();
        self.tx_eng.job_pmtu.next = self.qpt.rx_pmtu.val();
        self.qpt.tx_sq_psn_set.next = self.tx_eng.sq_psn_set.val();
        self.qpt.tx_sq_psn_val.next = self.tx_eng.sq_psn_val.val();
        self.qpt.tx_sq_ci_inc.next = self.tx_eng.sq_ci_inc.val();
        self.qpt.tx_err.next = self.tx_eng.qp_err.val();
        self.tx_eng.cnp_dscp.next = self.regs.cnp_dscp.val();
        self.tx_eng.tx_ecn.next = (self.regs.tx_ecn.val() & 1) != 0;
        self.tx_eng.pmtu.next = self.qpt.tx_pmtu.val();
        self.tx_eng.ack_timeout.next = self.qpt.tx_ack_timeout.val();
        self.tx_eng.retry_cnt.next = self.qpt.tx_retry.val();
        self.tx_eng.max_rd_atomic.next = self.qpt.tx_max_rd.val();
        self.regs.tx_status.next = self.tx_eng.status.val();
        self.tx_eng.push_db.next = self.regs.wqe_push_db.val();
        self.tx_eng.push_wqe.next = (bit_cast::<512, 32>(self.regs.wqe_push_0.val()) << 0)
            | (bit_cast::<512, 32>(self.regs.wqe_push_1.val()) << 32)
            | (bit_cast::<512, 32>(self.regs.wqe_push_2.val()) << 64)
            | (bit_cast::<512, 32>(self.regs.wqe_push_3.val()) << 96)
            | (bit_cast::<512, 32>(self.regs.wqe_push_4.val()) << 128)
            | (bit_cast::<512, 32>(self.regs.wqe_push_5.val()) << 160)
            | (bit_cast::<512, 32>(self.regs.wqe_push_6.val()) << 192)
            | (bit_cast::<512, 32>(self.regs.wqe_push_7.val()) << 224)
            | (bit_cast::<512, 32>(self.regs.wqe_push_8.val()) << 256)
            | (bit_cast::<512, 32>(self.regs.wqe_push_9.val()) << 288)
            | (bit_cast::<512, 32>(self.regs.wqe_push_10.val()) << 320)
            | (bit_cast::<512, 32>(self.regs.wqe_push_11.val()) << 352)
            | (bit_cast::<512, 32>(self.regs.wqe_push_12.val()) << 384)
            | (bit_cast::<512, 32>(self.regs.wqe_push_13.val()) << 416)
            | (bit_cast::<512, 32>(self.regs.wqe_push_14.val()) << 448)
            | (bit_cast::<512, 32>(self.regs.wqe_push_15.val()) << 480);
        self.regs.wqe_push_db_set.next = self.tx_eng.push_used.val();
        self.regs.wqe_push_db_val.next = 0.into();
        self.regs.wqe_pushes_inc.next = self.tx_eng.push_used.val();
        self.tx_eng.rnr_retry.next = self.qpt.tx_rnr_retry.val();
        self.regs.rnr_retry_exc_inc.next = self.tx_eng.rnr_retry_exc_inc.val();
        self.tx_eng.ack_req_every.next = self.regs.ack_req_every.val();
        self.tx_eng.sq_base_lo.next = self.qpt.tx_sq_base_lo.val();
        self.tx_eng.sq_base_hi.next = self.qpt.tx_sq_base_hi.val();
        self.tx_eng.sq_log_size.next = self.qpt.tx_sq_log.val();
        self.tx_eng.sq_pi.next = self.qpt.tx_sq_pi.val();
        self.tx_eng.sq_ci.next = self.qpt.tx_sq_ci.val();
        self.tx_eng.sq_psn.next = self.qpt.tx_sq_psn.val();
        self.tx_eng.ack_valid.next = self.rx_eng.ack_valid.val();
        self.tx_eng.ack_new.next = self.rx_eng.ack_new.val();
        self.tx_eng.ack_syndrome.next = self.rx_eng.ack_syndrome.val();
        self.tx_eng.ack_psn.next = self.rx_eng.ack_psn.val();
        self.tx_eng.ack_msn.next = self.rx_eng.ack_msn.val();
        self.tx_eng.rx_ack_valid.next = self.rx_eng.rx_ack_valid.val() && self.same_qp.val();
        self.tx_eng.rx_ack_syndrome.next = self.rx_eng.rx_ack_syndrome.val();
        self.tx_eng.rx_ack_psn.next = self.rx_eng.rx_ack_psn.val();
        self.tx_eng.rx_ack_resp.next = self.rx_eng.rx_ack_resp.val();
        // RDMA READ: the responder's job goes to the transmit engine; the requester's READ in progress
        // goes to the receive engine, which lands its responses.
        self.tx_eng.rr_valid.next = self.rx_eng.rr_valid.val();
        self.rx_eng.cnp_interval.next = self.regs.cnp_interval.val();
        self.tx_eng.cnp_valid.next = self.rx_eng.cnp_valid.val();
        self.rx_eng.cnp_taken.next = self.tx_eng.cnp_taken.val();
        self.regs.ecn_marked_roce_packets_inc.next = self.rx_eng.ecn_marked_inc.val();
        self.regs.rp_cnp_handled_inc.next = self.rx_eng.rp_cnp_inc.val();
        self.regs.np_cnp_sent_inc.next = self.tx_eng.tx_cnp_inc.val();
        self.tx_eng.rr_va.next = self.rx_eng.rr_va.val();
        self.tx_eng.rr_len.next = self.rx_eng.rr_len.val();
        self.tx_eng.rr_psn.next = self.rx_eng.rr_psn.val();
        self.tx_eng.rr_msn.next = self.rx_eng.rr_msn.val();
        self.tx_eng.rr_atomic.next = self.rx_eng.rr_atomic.val();
        self.tx_eng.rr_orig.next = self.rx_eng.rr_orig.val();
        self.rx_eng.rr_taken.next = self.tx_eng.rr_taken.val();
        self.rx_eng.rd_active.next = self.tx_eng.rd_active.val() && self.same_qp.val();
        self.rx_eng.rd_atomic.next = self.tx_eng.rd_atomic.val();
        self.rx_eng.rd_psn0.next = self.tx_eng.rd_psn0.val();
        self.rx_eng.rd_laddr.next = self.tx_eng.rd_laddr.val();
        self.rx_eng.rd_scatter.next = self.tx_eng.rd_scatter.val();
        self.rx_eng.rd_withdraw.next = self.tx_eng.rd_withdraw.val();
        self.rx_eng.rd_sgl.next = self.tx_eng.rd_sgl.val();
        self.rx_eng.rd_sgl_n.next = self.tx_eng.rd_sgl_n.val();
        self.rx_eng.rd_len.next = self.tx_eng.rd_len.val();
        self.rx_eng.rd_restart.next = self.tx_eng.rd_restart.val();
        self.rx_eng.rd_restart_idx.next = self.tx_eng.rd_restart_idx.val();
        self.tx_eng.rd_done.next = self.rx_eng.rd_done.val();
        self.regs.tx_frames_inc.next = self.tx_eng.tx_frames_inc.val();
        self.regs.tx_acks_inc.next = self.tx_eng.tx_acks_inc.val();
        self.regs.retransmits_inc.next = self.tx_eng.retransmits_inc.val();
        self.regs.ack_timeouts_inc.next = self.tx_eng.ack_timeouts_inc.val();
        // ARP responder: observes the receive stream, answers through the transmit arbiter.
        self.arp.enable.next = self.enable.val();
        self.arp.mac_lo.next = self.regs.mac_lo.val();
        self.arp.mac_hi.next = self.regs.mac_hi.val();
        self.arp.ipv4.next = self.regs.ipv4.val();
        // ARP sees frames with the tag taken off (a request on the port's VLAN is tagged).
        self.arp.rx_tdata.next = self.vlan_rx.out_tdata.val();
        self.arp.rx_tlast.next = self.vlan_rx.out_tlast.val();
        // A frame whose tag the port does not take counts as bad here (the flag is sampled with the last
        // beat, where the tag stage's verdict is the frame's own).
        self.arp.rx_tuser.next = self.vlan_rx.out_tuser.val() || self.vlan_rx.vlan_drop.val();
        self.arp.rx_vid.next = self.vlan_rx.rx_vid.val();
        self.arp.rx_fire.next = self.vlan_rx.out_tvalid.val();
        self.regs.rx_arp_requests_inc.next = self.arp.requests_inc.val();
        self.regs.tx_arp_replies_inc.next = self.arp.replies_inc.val();
        // NDP responder (RFC 4861): the same observed stream, for the GID table's IPv6 addresses.
        self.ndp.enable.next = self.enable.val();
        self.ndp.mac_lo.next = self.regs.mac_lo.val();
        self.ndp.mac_hi.next = self.regs.mac_hi.val();
        self.ndp.gid0.next = self.gid0.val();
        self.ndp.gid1.next = self.gid1.val();
        self.ndp.gid2.next = self.gid2.val();
        self.ndp.gid3.next = self.gid3.val();
        self.ndp.rx_tdata.next = self.vlan_rx.out_tdata.val();
        self.ndp.rx_tlast.next = self.vlan_rx.out_tlast.val();
        self.ndp.rx_tuser.next = self.vlan_rx.out_tuser.val() || self.vlan_rx.vlan_drop.val();
        self.ndp.rx_vid.next = self.vlan_rx.rx_vid.val();
        self.ndp.rx_fire.next = self.vlan_rx.out_tvalid.val();
        self.regs.rx_ndp_solicitations_inc.next = self.ndp.requests_inc.val();
        self.regs.tx_ndp_advertisements_inc.next = self.ndp.replies_inc.val();
        // PFC / PAUSE: reaction, watchdog, XOFF/XON generation from each priority's receive-buffer fill.
        self.pfc.enable.next = self.enable.val();
        self.pfc.mac_lo.next = self.regs.mac_lo.val();
        self.pfc.mac_hi.next = self.regs.mac_hi.val();
        self.pfc.lossless.next = self.lossless.val();
        self.pfc.quantum_q4.next = self.regs.pfc_quantum_q4.val();
        self.pfc.watchdog_cycles.next = self.regs.pfc_watchdog_cycles.val();
        self.pfc.recovery_cycles.next = self.regs.pfc_watchdog_recovery.val();
        self.pfc.fill0.next = bit_cast::<32, A>(self.rx_buf.fill0.val());
        self.pfc.fill1.next = bit_cast::<32, A>(self.rx_buf.fill1.val());
        self.pfc.fill2.next = bit_cast::<32, A>(self.rx_buf.fill2.val());
        self.pfc.fill3.next = bit_cast::<32, A>(self.rx_buf.fill3.val());
        self.pfc.fill4.next = bit_cast::<32, A>(self.rx_buf.fill4.val());
        self.pfc.fill5.next = bit_cast::<32, A>(self.rx_buf.fill5.val());
        self.pfc.fill6.next = bit_cast::<32, A>(self.rx_buf.fill6.val());
        self.pfc.fill7.next = bit_cast::<32, A>(self.rx_buf.fill7.val());
        self.pfc.xoff_words.next = self.regs.pfc_xoff_words.val();
        self.pfc.xon_words.next = self.regs.pfc_xon_words.val();
        self.pfc.pause_quanta.next = self.regs.pfc_pause_quanta.val();
        self.pfc.refresh_cycles.next = self.regs.pfc_refresh_cycles.val();
        self.pfc.rx_tdata.next = self.rx_tdata.val();
        self.pfc.rx_tlast.next = self.rx_tlast.val();
        self.pfc.rx_tuser.next = self.rx_tuser.val();
        self.pfc.rx_fire.next = self.rx_tvalid.val() && self.vlan_rx.in_tready.val();
        self.regs.rx_pause_frames_inc.next = self.pfc.rx_pause_inc.val();
        self.regs.rx_prio0_pause_inc.next = (self.pfc.rx_prio_pause_inc.val() & 1) != 0;
        self.regs.rx_prio1_pause_inc.next = (self.pfc.rx_prio_pause_inc.val() & 2) != 0;
        self.regs.rx_prio2_pause_inc.next = (self.pfc.rx_prio_pause_inc.val() & 4) != 0;
        self.regs.rx_prio3_pause_inc.next = (self.pfc.rx_prio_pause_inc.val() & 8) != 0;
        self.regs.rx_prio4_pause_inc.next = (self.pfc.rx_prio_pause_inc.val() & 16) != 0;
        self.regs.rx_prio5_pause_inc.next = (self.pfc.rx_prio_pause_inc.val() & 32) != 0;
        self.regs.rx_prio6_pause_inc.next = (self.pfc.rx_prio_pause_inc.val() & 64) != 0;
        self.regs.rx_prio7_pause_inc.next = (self.pfc.rx_prio_pause_inc.val() & 128) != 0;
        self.regs.rx_pause_duration_inc.next = self.pfc.pause_cycle_inc.val();
        self.regs.pfc_watchdog_events_inc.next = self.pfc.watchdog_inc.val();
        self.regs.tx_pfc_xoff_inc.next = self.pfc.tx_xoff_inc.val();
        self.regs.tx_pfc_xon_inc.next = self.pfc.tx_xon_inc.val();
        self.regs.tx_prio0_pause_inc.next = (self.pfc.tx_prio_pause_inc.val() & 1) != 0;
        self.regs.tx_prio1_pause_inc.next = (self.pfc.tx_prio_pause_inc.val() & 2) != 0;
        self.regs.tx_prio2_pause_inc.next = (self.pfc.tx_prio_pause_inc.val() & 4) != 0;
        self.regs.tx_prio3_pause_inc.next = (self.pfc.tx_prio_pause_inc.val() & 8) != 0;
        self.regs.tx_prio4_pause_inc.next = (self.pfc.tx_prio_pause_inc.val() & 16) != 0;
        self.regs.tx_prio5_pause_inc.next = (self.pfc.tx_prio_pause_inc.val() & 32) != 0;
        self.regs.tx_prio6_pause_inc.next = (self.pfc.tx_prio_pause_inc.val() & 64) != 0;
        self.regs.tx_prio7_pause_inc.next = (self.pfc.tx_prio_pause_inc.val() & 128) != 0;
        // Transmit priority (802.1Qbb): a RoCE frame's is its DSCP through the map, in both trust modes
        // (ConnectX's DSCP → priority mapping of RoCE traffic). PFC holds only frames of the lossless
        // priorities it names, each for its time; an 802.3x PAUSE holds them all. The current QP's
        // priority, read with its address vector, lets the engine serve other QPs instead of building a
        // frame that would wait here.
        self.tx_prio.next = bit_cast::<3, 256>(
            self.dscp_map.val() >> (bit_cast::<16, 6>(self.tx_eng.tx_dscp.val()) << 2),
        );
        self.av_prio.next = bit_cast::<3, 256>(
            self.dscp_map.val() >> bit_cast::<16, 32>((self.qpt.av_dscp.val() & 0x3F) << 2),
        );
        self.tx_eng.av_paused.next = ((self.pfc.paused.val() >> self.av_prio.val()) & 1) != 0;
        self.tx_port.clock.next = self.clock.val();
        self.tx_port.reset.next = self.reset.val();
        self.tx_port.roce.tdata.next = self.tx_eng.tx_tdata.val();
        self.tx_port.roce.tkeep.next = self.tx_eng.tx_tkeep.val();
        self.tx_port.roce.tlast.next = self.tx_eng.tx_tlast.val();
        self.tx_port.roce.tvalid.next = self.tx_eng.tx_tvalid.val();
        self.tx_eng.tx_tready.next = self.tx_port.roce.tready.val();
        self.tx_port.pfc.tdata.next = self.pfc.tx_tdata.val();
        self.tx_port.pfc.tkeep.next = self.pfc.tx_tkeep.val();
        self.tx_port.pfc.tlast.next = self.pfc.tx_tlast.val();
        self.tx_port.pfc.tvalid.next = self.pfc.tx_tvalid.val();
        self.pfc.tx_tready.next = self.tx_port.pfc.tready.val();
        self.tx_port.arp.tdata.next = self.arp.tx_tdata.val();
        self.tx_port.arp.tkeep.next = self.arp.tx_tkeep.val();
        self.tx_port.arp.tlast.next = self.arp.tx_tlast.val();
        self.tx_port.arp.tvalid.next = self.arp.tx_tvalid.val();
        self.arp.tx_tready.next = self.tx_port.arp.tready.val();
        self.tx_port.ndp.tdata.next = self.ndp.tx_tdata.val();
        self.tx_port.ndp.tkeep.next = self.ndp.tx_tkeep.val();
        self.tx_port.ndp.tlast.next = self.ndp.tx_tlast.val();
        self.tx_port.ndp.tvalid.next = self.ndp.tx_tvalid.val();
        self.ndp.tx_tready.next = self.tx_port.ndp.tready.val();
        self.tx_port.roce_prio.next = self.tx_prio.val();
        self.tx_port.roce_vlan.next = self.tx_eng.tx_vlan.val();
        self.tx_port.roce_committed.next = self.tx_eng.tx_committed.val();
        self.tx_port.arp_vid.next = self.arp.tx_vid.val();
        self.tx_port.ndp_vid.next = self.ndp.tx_vid.val();
        self.tx_port.vid0.next = bit_cast::<12, 32>(self.regs.vlan.val() & 0xFFF);
        self.tx_port.vid1.next = bit_cast::<12, 32>(self.regs.vlan_1.val() & 0xFFF);
        self.tx_port.vid2.next = bit_cast::<12, 32>(self.regs.vlan_2.val() & 0xFFF);
        self.tx_port.vid3.next = bit_cast::<12, 32>(self.regs.vlan_3.val() & 0xFFF);
        self.tx_port.vlan_on.next = self.vlan_on.val();
        self.tx_port.ctl_pcp.next = self.ctl_pcp.val();
        self.tx_port.paused.next = self.pfc.paused.val();
        self.tx_port.dcqcn_hold.next = self.dcqcn.hold.val();
        self.tx_tdata.next = self.tx_port.out_tdata.val();
        self.tx_tkeep.next = self.tx_port.out_tkeep.val();
        self.tx_tlast.next = self.tx_port.out_tlast.val();
        self.tx_tvalid.next = self.tx_port.out_tvalid.val();
        self.tx_port.out_tready.next = self.tx_tready.val();
        // DCQCN reaction point: CNPs from the receive engine, RoCE beats from the arbiter.
        self.dcqcn.enable.next = (self.regs.dcqcn_enable.val() & 1) != 0;
        self.dcqcn.line_rate.next = self.regs.dcqcn_line_rate.val();
        self.dcqcn.min_rate.next = self.regs.dcqcn_min_rate.val();
        self.dcqcn.rate_ai.next = self.regs.dcqcn_rate_ai.val();
        self.dcqcn.rate_hai.next = self.regs.dcqcn_rate_hai.val();
        self.dcqcn.rate_timer.next = self.regs.dcqcn_rate_timer.val();
        self.dcqcn.alpha_timer.next = self.regs.dcqcn_alpha_timer.val();
        self.dcqcn.byte_counter.next = self.regs.dcqcn_byte_counter.val();
        self.dcqcn.f_stages.next = self.regs.dcqcn_f.val();
        // A CNP is for the receive engine's current QP; a frame's QP is the transmit engine's.
        self.dcqcn.cnp.next = self.rx_eng.rp_cnp_inc.val();
        self.dcqcn.cnp_qpn.next = bit_cast::<16, 32>(self.qpt.rx_qpn.val());
        self.dcqcn.tx_qpn.next = self.tx_eng.tx_qpn.val();
        self.dcqcn.tx_cnp.next = self.tx_eng.tx_cnp.val();
        self.dcqcn.cur_qpn.next = bit_cast::<16, 32>(self.qpt.tx_qpn.val());
        self.tx_eng.paced.next = self.dcqcn.cur_busy.val();
        self.dcqcn.beat_sent.next = self.tx_port.roce_beat.val();
        self.regs.dcqcn_rate.next = self.dcqcn.rate.val();
        self.regs.dcqcn_limiter_qpn_0.next = self.dcqcn.qpn0.val();
        self.regs.dcqcn_limiter_qpn_1.next = self.dcqcn.qpn1.val();
        self.regs.dcqcn_limiter_qpn_2.next = self.dcqcn.qpn2.val();
        self.regs.dcqcn_limiter_qpn_3.next = self.dcqcn.qpn3.val();
        self.regs.dcqcn_limiter_rate_0.next = self.dcqcn.rate0.val();
        self.regs.dcqcn_limiter_rate_1.next = self.dcqcn.rate1.val();
        self.regs.dcqcn_limiter_rate_2.next = self.dcqcn.rate2.val();
        self.regs.dcqcn_limiter_rate_3.next = self.dcqcn.rate3.val();
        self.regs.rp_cnp_ignored_inc.next = self.dcqcn.ignored_inc.val();
        self.regs.dcqcn_rate_decreases_inc.next = self.dcqcn.decrease_inc.val();
        // Completions: the requester's first, then the responder's (one CQ ring)
        self.cqe.cq_base_lo.next = self.regs.cq_base_lo.val();
        self.cqe.cq_base_hi.next = self.regs.cq_base_hi.val();
        self.cqe.cq_log_size.next = self.regs.cq_log_size.val();
        self.cqe.cq_pi.next = self.regs.cq_pi.val();
        self.cqe.cq_ci.next = self.regs.cq_ci.val();
        self.cqe.qpn.next = self.qpt.rx_qpn.val();
        self.regs.cq_pi_inc.next = self.cqe.cq_pi_inc.val();
        self.regs.cqes_written_inc.next = self.cqe.cq_pi_inc.val();
        self.irq.next = self.cqe.irq.val();
        self.tx_eng.warp.next = self.warp.val();
        self.rx_eng.warp.next = self.warp.val();
        self.pfc.warp.next = self.warp.val();
        self.dcqcn.warp.next = self.warp.val();
        self.wake_tx.next = self.tx_eng.wake.val();
        if self.pfc.wake.val() < self.tx_eng.wake.val() {
            self.wake_tx.next = self.pfc.wake.val();
        }
        self.wake.next = self.wake_tx.val();
        if self.dcqcn.wake.val() < self.wake_tx.val() {
            self.wake.next = self.dcqcn.wake.val();
        }
        self.cqe.cq_arm.next = self.regs.cq_arm.val();
        self.regs.cq_arm_set.next = self.cqe.arm_clear.val();
        self.regs.cq_arm_val.next = 0.into();
        self.regs.cq_interrupts_inc.next = self.cqe.irq.val();
        self.tx_eng.cqe_ready.next = self.cqe.ready.val();
        self.rx_eng.cqe_ready.next = self.cqe.ready.val() && !self.tx_eng.cqe_valid.val();
        self.cqe.valid.next = self.tx_eng.cqe_valid.val() || self.rx_eng.cqe_valid.val();
        self.cqe.wr_id.next = self.rx_eng.cqe_wr_id.val();
        self.cqe.byte_len.next = self.rx_eng.cqe_byte_len.val();
        self.cqe.status.next = self.rx_eng.cqe_status.val();
        self.cqe.opcode.next = self.rx_eng.cqe_opcode.val();
        self.cqe.src_qp.next = self.rx_eng.cqe_src_qp.val();
        self.cqe.vendor_err.next = 0.into();
        self.cqe.imm.next = self.rx_eng.cqe_imm.val();
        self.cqe.flags.next = self.rx_eng.cqe_flags.val();
        if self.tx_eng.cqe_valid.val() {
            self.cqe.wr_id.next = self.tx_eng.cqe_wr_id.val();
            self.cqe.byte_len.next = self.tx_eng.cqe_byte_len.val();
            self.cqe.status.next = self.tx_eng.cqe_status.val();
            self.cqe.opcode.next = self.tx_eng.cqe_opcode.val();
            self.cqe.vendor_err.next = self.tx_eng.cqe_vendor_err.val();
            self.cqe.imm.next = 0.into();
            self.cqe.flags.next = 0.into();
            self.cqe.src_qp.next = self.qpt.tx_dest_qpn.val();
            self.cqe.qpn.next = self.qpt.tx_qpn.val();
        }
        // DMA reads: the transmit engine's (tag 0, through the gather unit, which cuts a gather-list
        // read into one read per buffer and packs their data back together, and the read realigner)
        // before the receive engine's (tag 1: receive WQEs, atomics), through the splitter (PCIe
        // Max_Read_Request_Size and 4 KiB boundaries); responses routed by tag.
        self.gather.req_in_valid.next = self.tx_eng.rd_req_valid.val();
        self.gather.req_in_addr.next = self.tx_eng.rd_req_addr.val();
        self.gather.req_in_len.next = self.tx_eng.rd_req_len.val();
        self.gather.req_in_gather.next = self.tx_eng.rd_req_gather.val();
        self.gather.sgl.next = self.tx_eng.rd_sgl.val();
        self.gather.sgl_n.next = self.tx_eng.rd_sgl_n.val();
        self.gather.sgl_new.next = self.tx_eng.rd_sgl_new.val();
        self.tx_eng.rd_req_ready.next = self.gather.req_in_ready.val();
        self.ralign.req_in_valid.next = self.gather.req_out_valid.val();
        self.ralign.req_in_addr.next = self.gather.req_out_addr.val();
        self.ralign.req_in_len.next = self.gather.req_out_len.val();
        self.gather.req_out_ready.next = self.ralign.req_in_ready.val();
        self.rd_max_beats.next = self.regs.dma_max_read.val() >> self.log_b32.val();
        self.dma_split.max_beats.next = bit_cast::<16, 32>(self.rd_max_beats.val());
        if self.rd_max_beats.val() == 0 {
            self.dma_split.max_beats.next = 1.into();
        }
        self.dma_split.in_valid.next =
            self.ralign.req_out_valid.val() || self.rx_eng.rd_req_valid.val();
        self.dma_split.in_addr.next = self.rx_eng.rd_req_addr.val();
        self.dma_split.in_beats.next = self.rx_eng.rd_req_beats.val();
        self.dma_split.in_tag.next = 1.into();
        self.ralign.req_out_ready.next = self.dma_split.in_ready.val();
        self.rx_eng.rd_req_ready.next =
            self.dma_split.in_ready.val() && !self.ralign.req_out_valid.val();
        if self.ralign.req_out_valid.val() {
            self.dma_split.in_addr.next = self.ralign.req_out_addr.val();
            self.dma_split.in_beats.next = self.ralign.req_out_beats.val();
            self.dma_split.in_tag.next = 0.into();
        }
        self.dma_rd_req_valid.next = self.dma_split.out_valid.val();
        self.dma_rd_req_addr.next = self.dma_split.out_addr.val();
        self.dma_rd_req_beats.next = self.dma_split.out_beats.val();
        self.dma_rd_req_tag.next = self.dma_split.out_tag.val();
        self.dma_split.out_ready.next = self.dma_rd_req_ready.val();
        self.ralign.resp_in_valid.next =
            self.dma_rd_resp_valid.val() && (self.dma_rd_resp_tag.val() == 0);
        self.ralign.resp_in_data.next = self.dma_rd_resp_data.val();
        self.ralign.resp_in_last.next = self.dma_split.resp_last.val();
        self.gather.resp_in_valid.next = self.ralign.resp_out_valid.val();
        self.gather.resp_in_data.next = self.ralign.resp_out_data.val();
        self.gather.resp_in_last.next = self.ralign.resp_out_last.val();
        self.ralign.resp_out_ready.next = self.gather.resp_in_ready.val();
        self.tx_eng.rd_resp_valid.next = self.gather.resp_out_valid.val();
        self.tx_eng.rd_resp_data.next = self.gather.resp_out_data.val();
        self.tx_eng.rd_resp_last.next = self.gather.resp_out_last.val();
        self.gather.resp_out_ready.next = self.tx_eng.rd_resp_ready.val();
        self.rx_eng.rd_resp_valid.next =
            self.dma_rd_resp_valid.val() && (self.dma_rd_resp_tag.val() == 1);
        self.rx_eng.rd_resp_data.next = self.dma_rd_resp_data.val();
        self.rx_eng.rd_resp_last.next = self.dma_split.resp_last.val();
        self.rd_resp_ready.next = self.rx_eng.rd_resp_ready.val();
        if self.dma_rd_resp_tag.val() == 0 {
            self.rd_resp_ready.next = self.ralign.resp_in_ready.val();
        }
        self.dma_rd_resp_ready.next = self.rd_resp_ready.val();
        self.dma_split.resp_fire.next = self.dma_rd_resp_valid.val() && self.rd_resp_ready.val();
        self.dma_split.resp_host_last.next = self.dma_rd_resp_last.val();
        self.dma_split.resp_tag.next = self.dma_rd_resp_tag.val();
        // DMA writes: the CQE writer before payload (the responder requests a CQE only after its data)
        self.scatter.clock.next = self.clock.val();
        self.scatter.reset.next = self.reset.val();
        self.walign.clock.next = self.clock.val();
        self.walign.reset.next = self.reset.val();
        self.scatter.in_valid.next = self.rx_eng.wr_valid.val();
        self.scatter.in_addr.next = self.rx_eng.wr_addr.val();
        self.scatter.in_data.next = self.rx_eng.wr_data.val();
        self.scatter.in_strb.next = self.rx_eng.wr_strb.val();
        self.scatter.in_last.next = self.rx_eng.wr_last.val();
        self.scatter.in_scatter.next = self.rx_eng.wr_scatter.val();
        self.scatter.sgl.next = self.rx_eng.wr_sgl.val();
        self.scatter.sgl_n.next = self.rx_eng.wr_sgl_n.val();
        self.rx_eng.wr_ready.next = self.scatter.in_ready.val();
        self.rx_eng.wr_idle.next = self.scatter.idle.val();
        self.walign.in_valid.next = self.scatter.out_valid.val();
        self.walign.in_addr.next = self.scatter.out_addr.val();
        self.walign.in_data.next = self.scatter.out_data.val();
        self.walign.in_strb.next = self.scatter.out_strb.val();
        self.walign.in_last.next = self.scatter.out_last.val();
        self.scatter.out_ready.next = self.walign.in_ready.val();
        self.dma_wr_valid.next = self.cqe.wr_valid.val() || self.walign.out_valid.val();
        self.dma_wr_addr.next = self.walign.out_addr.val();
        self.dma_wr_data.next = self.walign.out_data.val();
        self.dma_wr_strb.next = self.walign.out_strb.val();
        self.cqe.wr_ready.next = self.dma_wr_ready.val();
        self.walign.out_ready.next = self.dma_wr_ready.val() && !self.cqe.wr_valid.val();
        if self.cqe.wr_valid.val() {
            self.dma_wr_addr.next = self.cqe.wr_addr.val();
            self.dma_wr_data.next = self.cqe.wr_data.val();
            self.dma_wr_strb.next = self.cqe.wr_strb.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use rust_hdl::prelude::*;

    /// Every update block is split (a block the splitter cannot parse costs co-simulation speed), and no
    /// block reads a signal before assigning it (a combinational loop through stale state).
    #[test]
    fn every_update_block_splits_and_reads_only_assigned_values() {
        fn check<const W: usize, const B: usize, const A: usize, const Q: usize>() {
            let mut uut = super::NicTop::<W, B, A, Q>::default();
            uut.connect_all();
            let (_, stats) = crate::split_with_stats(&uut);
            assert!(stats.blocks > 30, "{stats:?}");
            assert_eq!(stats.kept, vec![], "update blocks left unsplit at {W} bits");
            assert_eq!(
                stats.stale_reads,
                vec![],
                "signals read before assignment at {W} bits"
            );
        }
        crate::with_room(|| {
            check::<64, 8, 11, { crate::Width::W64.qp_log() }>();
            check::<512, 64, 8, { crate::Width::W512.qp_log() }>();
        });
    }

    #[test]
    fn nic_synthesizes_at_both_widths() {
        for v in [
            crate::nic_verilog(crate::Width::W64),
            crate::nic_verilog(crate::Width::W512),
        ] {
            assert!(v.contains("module top("));
            for block in [
                "top$regs",
                "top$rx_buf",
                "top$rx_eng",
                "top$tx_eng",
                "top$cqe",
            ] {
                assert!(v.contains(&format!("module {block}(")), "{block} missing");
            }
        }
    }
}
