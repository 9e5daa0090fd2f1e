//! The NIC core top: MAC AXI-Stream ports, the register port and the DMA port (see docs/interfaces.md).
use rust_hdl::prelude::*;

/// The NIC core, `W` bits wide with `B = W / 8` byte lanes.
#[derive(LogicBlock)]
pub struct NicTop<const W: usize, const B: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    // MAC receive stream
    pub rx_tdata: Signal<In, Bits<W>>,
    pub rx_tkeep: Signal<In, Bits<B>>,
    pub rx_tlast: Signal<In, bool>,
    pub rx_tvalid: Signal<In, bool>,
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
    rd_data: DFF<Bits<32>>,
    rd_valid: DFF<bool>,
    id_value: Constant<Bits<32>>,
}

impl<const W: usize, const B: usize> Default for NicTop<W, B> {
    fn default() -> Self {
        assert_eq!(W, 8 * B, "B must be W / 8");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rx_tdata: Default::default(),
            rx_tkeep: Default::default(),
            rx_tlast: Default::default(),
            rx_tvalid: Default::default(),
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
            rd_data: Default::default(),
            rd_valid: Default::default(),
            id_value: Constant::new(rocenic_proto::regs::ID_VALUE.to_bits()),
        }
    }
}

impl<const W: usize, const B: usize> Logic for NicTop<W, B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rd_data, rd_valid);
        self.rx_tready.next = true;
        self.tx_tdata.next = 0.into();
        self.tx_tkeep.next = 0.into();
        self.tx_tlast.next = false;
        self.tx_tvalid.next = false;
        self.reg_wr_ready.next = true;
        self.reg_rd_ready.next = true;
        self.rd_valid.d.next = self.reg_rd_valid.val();
        self.rd_data.d.next = 0.into();
        if self.reg_rd_addr.val() == 0 {
            self.rd_data.d.next = self.id_value.val();
        }
        self.reg_rd_data.next = self.rd_data.q.val();
        self.reg_rd_data_valid.next = self.rd_valid.q.val();
        self.dma_rd_req_valid.next = false;
        self.dma_rd_req_addr.next = 0.into();
        self.dma_rd_req_beats.next = 0.into();
        self.dma_rd_req_tag.next = 0.into();
        self.dma_rd_resp_ready.next = true;
        self.dma_wr_valid.next = false;
        self.dma_wr_addr.next = 0.into();
        self.dma_wr_data.next = 0.into();
        self.dma_wr_strb.next = 0.into();
        self.irq.next = false;
    }
}
