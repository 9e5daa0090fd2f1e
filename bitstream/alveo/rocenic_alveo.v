// rocenic_alveo: the FPGA top of the Alveo builds (U250/U280/U55C). It puts the emitted 512-bit NIC core
// (module `top`, docs/interfaces.md) between the vendor IP that flow.tcl generates:
//
//   QDMA BAR0 (AXI-Lite master m_axil) ──> register port          (plus a read-only build window, below)
//   DMA port ──> AXI4 master ──> QDMA slave bridge s_axib          (device → host memory, reads and writes)
//   CMAC rx_axis ──> rx FIFO ──> core rx;  core tx ──> pad ──> packet FIFO ──> CMAC tx_axis
//   irq pulse ──> QDMA user interrupt (usr_irq_in_*, vector 0, function 0)
//
// Clocks: the core runs on one of the two clocks the IP already makes, chosen by CORE_ON_MAC_CLK
// (config.tcl `core_clock`): 0 = QDMA axi_aclk (250 MHz), and the CMAC side crosses in the two AXI-Stream
// FIFOs; 1 = CMAC gt_txusrclk2 (322.265625 MHz), and the PCIe side crosses in two AXI clock converters.
// The AXI-Stream FIFOs are there in both cases: transmit needs a packet (store-and-forward) FIFO anyway,
// because the CMAC must not see tvalid drop inside a frame. The CMAC receive clock is tied to its transmit
// clock (the IP's receive FIFO bridges them), so the whole MAC side is one domain.
//
// Build window: BAR0 offsets 0x1_0000.. (above the core's 16-bit register space) read as
//   0x1_0000 BUILD_GIT_HASH (first 8 hex digits of the commit), 0x1_0004 BUILD_DATE (0xYYYYMMDD),
//   0x1_0008 BUILD_FLAGS (bit 0: the tree had uncommitted changes; bit 1: CORE_ON_MAC_CLK).
// Writes there are ignored. The core itself has no build register (its VERSION is the register-map version).
`timescale 1ns / 1ps
`default_nettype none

module rocenic_alveo #(
    parameter CORE_ON_MAC_CLK = 0,
    parameter RSFEC = 1,
    parameter SYSCLK_DIV = 1,
    parameter [31:0] BUILD_GIT_HASH = 32'h0,
    parameter [31:0] BUILD_DATE = 32'h0,
    parameter BUILD_DIRTY = 0
) (
    input  wire        sysclk_p,          // free-running board clock: CMAC init/DRP clock (config sysclk_div)
    input  wire        sysclk_n,
    input  wire        pcie_refclk_p,     // 100 MHz PCIe reference clock
    input  wire        pcie_refclk_n,
    input  wire        pcie_rstn,         // PERST#
    input  wire [15:0] pcie_rx_p,
    input  wire [15:0] pcie_rx_n,
    output wire [15:0] pcie_tx_p,
    output wire [15:0] pcie_tx_n,
    input  wire        qsfp0_refclk_p,    // QSFP0 GT reference clock (156.25 or 161.1328125 MHz)
    input  wire        qsfp0_refclk_n,
    input  wire [3:0]  qsfp0_rx_p,
    input  wire [3:0]  qsfp0_rx_n,
    output wire [3:0]  qsfp0_tx_p,
    output wire [3:0]  qsfp0_tx_n
`ifdef HAS_HBM_CATTRIP
    ,
    output wire        hbm_cattrip        // U280/U55C: must stay low, or the card's controller powers it off
`endif
);
    localparam W = 512, B = 64, LOG_B = 6;
    localparam BEATS_4K = 4096 / B;       // a burst may not cross a 4 KiB boundary (AXI4)

`ifdef HAS_HBM_CATTRIP
    assign hbm_cattrip = 1'b0;
`endif

    // ---------------------------------------------------------------- clocks and resets
    wire sysclk_ibuf, init_clk;
    IBUFDS sysclk_ibufds (.I(sysclk_p), .IB(sysclk_n), .O(sysclk_ibuf));
    BUFGCE_DIV #(.BUFGCE_DIVIDE(SYSCLK_DIV)) sysclk_div (.I(sysclk_ibuf), .CE(1'b1), .CLR(1'b0), .O(init_clk));

    wire pcie_refclk_gt, pcie_refclk_div2, pcie_sys_clk;
    IBUFDS_GTE4 #(.REFCLK_HROW_CK_SEL(2'b00)) pcie_refclk_ibuf (
        .I(pcie_refclk_p), .IB(pcie_refclk_n), .CEB(1'b0), .O(pcie_refclk_gt), .ODIV2(pcie_refclk_div2));
    BUFG_GT pcie_refclk_bufg (.I(pcie_refclk_div2), .CE(1'b1), .CEMASK(1'b0), .CLR(1'b0), .CLRMASK(1'b0),
        .DIV(3'd0), .O(pcie_sys_clk));

    wire axi_aclk, axi_aresetn;           // QDMA user clock (250 MHz) and reset
    wire mac_clk;                         // CMAC gt_txusrclk2 (322.265625 MHz)
    wire mac_tx_reset;                    // CMAC usr_tx_reset (active high, mac_clk domain)
    wire core_clk = CORE_ON_MAC_CLK ? mac_clk : axi_aclk;

    // Power-on reset of the CMAC, in the free-running init_clk domain.
    reg [7:0] por = 8'hff;
    always @(posedge init_clk) por <= {por[6:0], 1'b0};
    wire mac_sys_reset = por[7];

    // Core reset: the PCIe side's reset, synchronised into the core clock (asserted asynchronously).
    reg [3:0] core_rst_sync = 4'hf;
    always @(posedge core_clk or negedge axi_aresetn)
        if (!axi_aresetn) core_rst_sync <= 4'hf;
        else core_rst_sync <= {core_rst_sync[2:0], 1'b0};
    wire core_reset = core_rst_sync[3];

    // ---------------------------------------------------------------- the core
    wire          rx_tvalid, rx_tlast, rx_tready, rx_tuser;
    wire [W-1:0]  rx_tdata;
    wire [B-1:0]  rx_tkeep;
    wire          tx_tvalid, tx_tlast, tx_tready;
    wire [W-1:0]  tx_tdata;
    wire [B-1:0]  tx_tkeep;
    wire          reg_wr_valid, reg_wr_ready, reg_rd_valid, reg_rd_ready, reg_rd_data_valid;
    wire [15:0]   reg_wr_addr, reg_rd_addr;
    wire [31:0]   reg_wr_data, reg_rd_data;
    wire          dma_rd_req_valid, dma_rd_req_ready;
    wire [63:0]   dma_rd_req_addr;
    wire [15:0]   dma_rd_req_beats;
    wire [3:0]    dma_rd_req_tag, dma_rd_resp_tag;
    wire          dma_rd_resp_valid, dma_rd_resp_last, dma_rd_resp_ready;
    wire [W-1:0]  dma_rd_resp_data;
    wire          dma_wr_valid, dma_wr_ready;
    wire [63:0]   dma_wr_addr;
    wire [W-1:0]  dma_wr_data;
    wire [B-1:0]  dma_wr_strb;
    wire          irq;

    top core (
        .clock(core_clk), .reset(core_reset),
        .rx_tdata(rx_tdata), .rx_tkeep(rx_tkeep), .rx_tlast(rx_tlast), .rx_tvalid(rx_tvalid),
        .rx_tuser(rx_tuser), .rx_tready(rx_tready),
        .tx_tdata(tx_tdata), .tx_tkeep(tx_tkeep), .tx_tlast(tx_tlast), .tx_tvalid(tx_tvalid),
        .tx_tready(tx_tready),
        .reg_wr_valid(reg_wr_valid), .reg_wr_addr(reg_wr_addr), .reg_wr_data(reg_wr_data),
        .reg_wr_ready(reg_wr_ready),
        .reg_rd_valid(reg_rd_valid), .reg_rd_addr(reg_rd_addr), .reg_rd_ready(reg_rd_ready),
        .reg_rd_data(reg_rd_data), .reg_rd_data_valid(reg_rd_data_valid),
        .dma_rd_req_valid(dma_rd_req_valid), .dma_rd_req_addr(dma_rd_req_addr),
        .dma_rd_req_beats(dma_rd_req_beats), .dma_rd_req_tag(dma_rd_req_tag),
        .dma_rd_req_ready(dma_rd_req_ready),
        .dma_rd_resp_valid(dma_rd_resp_valid), .dma_rd_resp_data(dma_rd_resp_data),
        .dma_rd_resp_tag(dma_rd_resp_tag), .dma_rd_resp_last(dma_rd_resp_last),
        .dma_rd_resp_ready(dma_rd_resp_ready),
        .dma_wr_valid(dma_wr_valid), .dma_wr_addr(dma_wr_addr), .dma_wr_data(dma_wr_data),
        .dma_wr_strb(dma_wr_strb), .dma_wr_ready(dma_wr_ready),
        .irq(irq),
        // Fast-forward is for simulation only.
        .warp(32'd0), .wake());

    // ---------------------------------------------------------------- AXI-Lite -> register port
    // Core side of the AXI-Lite link (core_clk). One write and one read in flight; the core takes both
    // at once (reg_*_ready is always 1) and answers a read the next cycle.
    wire [31:0] l_awaddr, l_araddr, l_wdata;
    wire [3:0]  l_wstrb;
    wire        l_awvalid, l_wvalid, l_bready, l_arvalid, l_rready;
    reg         l_bvalid = 1'b0, l_rvalid = 1'b0;
    reg  [31:0] l_rdata = 32'h0;
    wire        l_awready = l_awvalid && l_wvalid && !l_bvalid && reg_wr_ready;
    wire        l_wready = l_awready;
    reg         rd_busy = 1'b0, rd_local = 1'b0;
    reg  [1:0]  rd_word = 2'd0;
    wire        l_arready = !rd_busy && reg_rd_ready;
    wire        ar_fire = l_arvalid && l_arready;
    wire        in_core = (l_awaddr[31:16] == 16'h0);

    assign reg_wr_valid = l_awready && in_core;
    assign reg_wr_addr = l_awaddr[15:0];
    assign reg_wr_data = l_wdata;         // 32-bit registers: partial strobes write the whole word
    assign reg_rd_valid = ar_fire && l_araddr[31:16] == 16'h0;
    assign reg_rd_addr = l_araddr[15:0];

    reg [31:0] build_word;
    always @* case (rd_word)
        2'd0: build_word = BUILD_GIT_HASH;
        2'd1: build_word = BUILD_DATE;
        2'd2: build_word = {30'h0, CORE_ON_MAC_CLK != 0, BUILD_DIRTY != 0};
        default: build_word = 32'h0;
    endcase

    always @(posedge core_clk) begin
        if (l_awready) l_bvalid <= 1'b1;
        else if (l_bready) l_bvalid <= 1'b0;
        if (ar_fire) begin
            rd_busy <= 1'b1;
            rd_local <= l_araddr[31:16] != 16'h0;
            rd_word <= (l_araddr[31:4] == 28'h1000) ? l_araddr[3:2] : 2'd3;
        end
        if (rd_busy && !l_rvalid && (rd_local || reg_rd_data_valid)) begin
            l_rvalid <= 1'b1;
            l_rdata <= rd_local ? build_word : reg_rd_data;
        end
        if (l_rvalid && l_rready) begin
            l_rvalid <= 1'b0;
            rd_busy <= 1'b0;
        end
        if (core_reset) begin
            l_bvalid <= 1'b0; l_rvalid <= 1'b0; rd_busy <= 1'b0;
        end
    end

    // ---------------------------------------------------------------- DMA port -> AXI4 master
    // Reads: one request of `beats` words is cut into bursts that neither cross 4 KiB nor exceed 256
    // beats. All bursts use ARID 0, so data returns in issue order; a small FIFO of (tag, last burst)
    // per burst turns RLAST into the core's per-request `last` and gives each beat its tag.
    wire [63:0]  m_araddr, m_awaddr;
    wire [7:0]   m_arlen;
    wire         m_arvalid, m_arready, m_rvalid, m_rlast, m_rready;
    wire [W-1:0] m_rdata, m_wdata;
    wire [B-1:0] m_wstrb;
    wire         m_awvalid, m_awready, m_wvalid, m_wready, m_bvalid;
    wire [1:0]   m_rresp, m_bresp;

    reg         rd_active = 1'b0;
    reg  [63:0] rd_addr = 64'h0;
    reg  [15:0] rd_left = 16'h0;
    reg  [3:0]  rd_tag = 4'h0;
    wire [15:0] to_4k = BEATS_4K - rd_addr[11:LOG_B];
    wire [15:0] burst = (rd_left < to_4k) ? rd_left : to_4k;   // <= 64 beats at 512 bits
    wire        burst_is_last = (burst == rd_left);

    reg  [4:0]  bq [0:15];                // {tag, last burst} per issued burst
    reg  [4:0]  bq_wr = 5'd0, bq_rd = 5'd0;
    wire        bq_full = (bq_wr - bq_rd) == 5'd16;
    wire        bq_empty = (bq_wr == bq_rd);
    wire [4:0]  bq_head = bq[bq_rd[3:0]];

    assign dma_rd_req_ready = !rd_active;
    assign m_arvalid = rd_active && !bq_full;
    assign m_araddr = rd_addr;
    assign m_arlen = burst[7:0] - 8'd1;
    wire ar_m_fire = m_arvalid && m_arready;

    assign dma_rd_resp_valid = m_rvalid && !bq_empty;
    assign dma_rd_resp_data = m_rdata;
    assign dma_rd_resp_tag = bq_head[4:1];
    assign dma_rd_resp_last = m_rlast && bq_head[0];
    assign m_rready = dma_rd_resp_ready && !bq_empty;

    always @(posedge core_clk) begin
        if (dma_rd_req_valid && dma_rd_req_ready) begin
            rd_active <= dma_rd_req_beats != 16'd0;
            rd_addr <= dma_rd_req_addr;
            rd_left <= dma_rd_req_beats;
            rd_tag <= dma_rd_req_tag;
        end else if (ar_m_fire) begin
            bq[bq_wr[3:0]] <= {rd_tag, burst_is_last};
            bq_wr <= bq_wr + 5'd1;
            rd_addr <= rd_addr + ({48'h0, burst} << LOG_B);
            rd_left <= rd_left - burst;
            rd_active <= !burst_is_last;
        end
        if (m_rvalid && m_rready && m_rlast) bq_rd <= bq_rd + 5'd1;
        if (core_reset) begin
            rd_active <= 1'b0; bq_wr <= 5'd0; bq_rd <= 5'd0;
        end
    end

    // Writes: each core beat becomes a one-beat burst (AW and W together, AWID 0 so they complete in
    // order, which keeps a CQE behind the data it completes). Write responses are taken and dropped.
    reg         aw_pend = 1'b0, w_pend = 1'b0;
    reg  [63:0] wr_addr = 64'h0;
    reg  [W-1:0] wr_data = {W{1'b0}};
    reg  [B-1:0] wr_strb = {B{1'b0}};
    assign dma_wr_ready = (!aw_pend || m_awready) && (!w_pend || m_wready);
    assign m_awvalid = aw_pend;
    assign m_awaddr = wr_addr;
    assign m_wvalid = w_pend;
    assign m_wdata = wr_data;
    assign m_wstrb = wr_strb;
    always @(posedge core_clk) begin
        if (dma_wr_valid && dma_wr_ready) begin
            aw_pend <= 1'b1; w_pend <= 1'b1;
            wr_addr <= dma_wr_addr; wr_data <= dma_wr_data; wr_strb <= dma_wr_strb;
        end else begin
            if (m_awready) aw_pend <= 1'b0;
            if (m_wready) w_pend <= 1'b0;
        end
        if (core_reset) begin
            aw_pend <= 1'b0; w_pend <= 1'b0;
        end
    end

    // ---------------------------------------------------------------- PCIe side: QDMA and CDC
    // QDMA-side copies of the two AXI links (axi_aclk).
    wire [31:0]  q_awaddr, q_araddr, q_wdata, q_rdata;
    wire [3:0]   q_wstrb;
    wire         q_awvalid, q_awready, q_wvalid, q_wready, q_bvalid, q_bready;
    wire         q_arvalid, q_arready, q_rvalid, q_rready;
    wire [1:0]   q_bresp, q_rresp;
    wire [63:0]  s_awaddr, s_araddr;
    wire [7:0]   s_awlen, s_arlen;
    wire         s_awvalid, s_awready, s_wvalid, s_wready, s_wlast, s_bvalid, s_bready;
    wire         s_arvalid, s_arready, s_rvalid, s_rready, s_rlast;
    wire [W-1:0] s_wdata, s_rdata;
    wire [B-1:0] s_wstrb;
    wire [1:0]   s_bresp, s_rresp;
    wire         irq_vld, irq_ack, irq_fail;

    rocenic_qdma qdma (
        .sys_clk(pcie_sys_clk), .sys_clk_gt(pcie_refclk_gt), .sys_rst_n(pcie_rstn),
        .pci_exp_rxp(pcie_rx_p), .pci_exp_rxn(pcie_rx_n), .pci_exp_txp(pcie_tx_p), .pci_exp_txn(pcie_tx_n),
        .axi_aclk(axi_aclk), .axi_aresetn(axi_aresetn), .user_lnk_up(), .soft_reset_n(1'b1),
        .m_axil_awaddr(q_awaddr), .m_axil_awprot(), .m_axil_awvalid(q_awvalid), .m_axil_awready(q_awready),
        .m_axil_wdata(q_wdata), .m_axil_wstrb(q_wstrb), .m_axil_wvalid(q_wvalid), .m_axil_wready(q_wready),
        .m_axil_bresp(q_bresp), .m_axil_bvalid(q_bvalid), .m_axil_bready(q_bready),
        .m_axil_araddr(q_araddr), .m_axil_arprot(), .m_axil_arvalid(q_arvalid), .m_axil_arready(q_arready),
        .m_axil_rdata(q_rdata), .m_axil_rresp(q_rresp), .m_axil_rvalid(q_rvalid), .m_axil_rready(q_rready),
        .s_axib_awid(4'h0), .s_axib_awaddr(s_awaddr), .s_axib_awregion(4'h0), .s_axib_awlen(s_awlen),
        .s_axib_awsize(3'd6), .s_axib_awburst(2'b01), .s_axib_awvalid(s_awvalid),
        .s_axib_awready(s_awready),
        .s_axib_wdata(s_wdata), .s_axib_wstrb(s_wstrb), .s_axib_wlast(s_wlast), .s_axib_wuser(64'h0),
        .s_axib_wvalid(s_wvalid), .s_axib_wready(s_wready),
        .s_axib_bid(), .s_axib_bresp(s_bresp), .s_axib_bvalid(s_bvalid), .s_axib_bready(s_bready),
        .s_axib_arid(4'h0), .s_axib_araddr(s_araddr), .s_axib_arregion(4'h0), .s_axib_arlen(s_arlen),
        .s_axib_arsize(3'd6), .s_axib_arburst(2'b01), .s_axib_arvalid(s_arvalid),
        .s_axib_arready(s_arready),
        .s_axib_rid(), .s_axib_rdata(s_rdata), .s_axib_rresp(s_rresp), .s_axib_rlast(s_rlast),
        .s_axib_ruser(), .s_axib_rvalid(s_rvalid), .s_axib_rready(s_rready),
        .usr_irq_in_vld(irq_vld), .usr_irq_in_vec(11'd0), .usr_irq_in_fnc(8'd0),
        .usr_irq_out_ack(irq_ack), .usr_irq_out_fail(irq_fail));

    generate if (CORE_ON_MAC_CLK) begin : pcie_cdc
        // Core on the MAC clock: both AXI links cross in Vivado AXI clock converters.
        rocenic_axil_cdc axil_cdc (
            .s_axi_aclk(axi_aclk), .s_axi_aresetn(axi_aresetn),
            .s_axi_awaddr(q_awaddr), .s_axi_awprot(3'd0), .s_axi_awvalid(q_awvalid), .s_axi_awready(q_awready),
            .s_axi_wdata(q_wdata), .s_axi_wstrb(q_wstrb), .s_axi_wvalid(q_wvalid), .s_axi_wready(q_wready),
            .s_axi_bresp(q_bresp), .s_axi_bvalid(q_bvalid), .s_axi_bready(q_bready),
            .s_axi_araddr(q_araddr), .s_axi_arprot(3'd0), .s_axi_arvalid(q_arvalid), .s_axi_arready(q_arready),
            .s_axi_rdata(q_rdata), .s_axi_rresp(q_rresp), .s_axi_rvalid(q_rvalid), .s_axi_rready(q_rready),
            .m_axi_aclk(core_clk), .m_axi_aresetn(!core_reset),
            .m_axi_awaddr(l_awaddr), .m_axi_awprot(), .m_axi_awvalid(l_awvalid), .m_axi_awready(l_awready),
            .m_axi_wdata(l_wdata), .m_axi_wstrb(l_wstrb), .m_axi_wvalid(l_wvalid), .m_axi_wready(l_wready),
            .m_axi_bresp(2'b00), .m_axi_bvalid(l_bvalid), .m_axi_bready(l_bready),
            .m_axi_araddr(l_araddr), .m_axi_arprot(), .m_axi_arvalid(l_arvalid), .m_axi_arready(l_arready),
            .m_axi_rdata(l_rdata), .m_axi_rresp(2'b00), .m_axi_rvalid(l_rvalid), .m_axi_rready(l_rready));
        rocenic_axi_cdc axi_cdc (
            .s_axi_aclk(core_clk), .s_axi_aresetn(!core_reset),
            .s_axi_awaddr(m_awaddr), .s_axi_awlen(8'd0), .s_axi_awsize(3'd6), .s_axi_awburst(2'b01),
            .s_axi_awvalid(m_awvalid), .s_axi_awready(m_awready),
            .s_axi_wdata(m_wdata), .s_axi_wstrb(m_wstrb), .s_axi_wlast(1'b1), .s_axi_wvalid(m_wvalid),
            .s_axi_wready(m_wready),
            .s_axi_bresp(m_bresp), .s_axi_bvalid(m_bvalid), .s_axi_bready(1'b1),
            .s_axi_araddr(m_araddr), .s_axi_arlen(m_arlen), .s_axi_arsize(3'd6), .s_axi_arburst(2'b01),
            .s_axi_arvalid(m_arvalid), .s_axi_arready(m_arready),
            .s_axi_rdata(m_rdata), .s_axi_rresp(m_rresp), .s_axi_rlast(m_rlast), .s_axi_rvalid(m_rvalid),
            .s_axi_rready(m_rready),
            .m_axi_aclk(axi_aclk), .m_axi_aresetn(axi_aresetn),
            .m_axi_awaddr(s_awaddr), .m_axi_awlen(s_awlen), .m_axi_awsize(), .m_axi_awburst(),
            .m_axi_awvalid(s_awvalid), .m_axi_awready(s_awready),
            .m_axi_wdata(s_wdata), .m_axi_wstrb(s_wstrb), .m_axi_wlast(s_wlast), .m_axi_wvalid(s_wvalid),
            .m_axi_wready(s_wready),
            .m_axi_bresp(s_bresp), .m_axi_bvalid(s_bvalid), .m_axi_bready(s_bready),
            .m_axi_araddr(s_araddr), .m_axi_arlen(s_arlen), .m_axi_arsize(), .m_axi_arburst(),
            .m_axi_arvalid(s_arvalid), .m_axi_arready(s_arready),
            .m_axi_rdata(s_rdata), .m_axi_rresp(s_rresp), .m_axi_rlast(s_rlast), .m_axi_rvalid(s_rvalid),
            .m_axi_rready(s_rready));
    end else begin : pcie_direct
        // Core on the QDMA clock: plain wires.
        assign l_awaddr = q_awaddr;  assign l_awvalid = q_awvalid;  assign q_awready = l_awready;
        assign l_wdata = q_wdata;    assign l_wstrb = q_wstrb;      assign l_wvalid = q_wvalid;
        assign q_wready = l_wready;  assign q_bresp = 2'b00;        assign q_bvalid = l_bvalid;
        assign l_bready = q_bready;  assign l_araddr = q_araddr;    assign l_arvalid = q_arvalid;
        assign q_arready = l_arready; assign q_rdata = l_rdata;     assign q_rresp = 2'b00;
        assign q_rvalid = l_rvalid;  assign l_rready = q_rready;
        assign s_awaddr = m_awaddr;  assign s_awlen = 8'd0;         assign s_awvalid = m_awvalid;
        assign m_awready = s_awready; assign s_wdata = m_wdata;     assign s_wstrb = m_wstrb;
        assign s_wlast = 1'b1;       assign s_wvalid = m_wvalid;    assign m_wready = s_wready;
        assign m_bresp = s_bresp;    assign m_bvalid = s_bvalid;    assign s_bready = 1'b1;
        assign s_araddr = m_araddr;  assign s_arlen = m_arlen;      assign s_arvalid = m_arvalid;
        assign m_arready = s_arready; assign m_rdata = s_rdata;     assign m_rresp = s_rresp;
        assign m_rlast = s_rlast;    assign m_rvalid = s_rvalid;    assign s_rready = m_rready;
    end endgenerate

    // Interrupt: the core's one-cycle pulse, as a toggle into axi_aclk, held as a request until the QDMA
    // acknowledges it (retried on fail). Pulses that arrive meanwhile merge: the driver reads the CQ anyway.
    reg       irq_toggle = 1'b0;
    reg [2:0] irq_sync = 3'b0;
    reg       irq_pend = 1'b0, irq_busy = 1'b0;
    always @(posedge core_clk) if (irq) irq_toggle <= !irq_toggle;
    always @(posedge axi_aclk) begin
        irq_sync <= {irq_sync[1:0], irq_toggle};
        if (irq_sync[2] != irq_sync[1]) irq_pend <= 1'b1;
        if (!irq_busy && irq_pend) begin
            irq_busy <= 1'b1;
            irq_pend <= 1'b0;
        end else if (irq_busy && irq_ack) irq_busy <= 1'b0;
        else if (irq_busy && irq_fail) begin
            irq_busy <= 1'b0;
            irq_pend <= 1'b1;
        end
        if (!axi_aresetn) begin
            irq_pend <= 1'b0; irq_busy <= 1'b0;
        end
    end
    assign irq_vld = irq_busy;

    // ---------------------------------------------------------------- MAC side: CMAC, FIFOs, padding
    wire          mac_rx_tvalid, mac_rx_tlast, mac_rx_tuser;
    wire [W-1:0]  mac_rx_tdata;
    wire [B-1:0]  mac_rx_tkeep;
    wire          mac_tx_tvalid, mac_tx_tlast, mac_tx_tready;
    wire [W-1:0]  mac_tx_tdata;
    wire [B-1:0]  mac_tx_tkeep;
    wire          rx_aligned;
    reg           rx_aligned_q = 1'b0;
    always @(posedge mac_clk) rx_aligned_q <= rx_aligned;

    rocenic_cmac cmac (
        .gt_ref_clk_p(qsfp0_refclk_p), .gt_ref_clk_n(qsfp0_refclk_n),
        .gt_rxp_in(qsfp0_rx_p), .gt_rxn_in(qsfp0_rx_n), .gt_txp_out(qsfp0_tx_p), .gt_txn_out(qsfp0_tx_n),
        .init_clk(init_clk), .sys_reset(mac_sys_reset), .gt_loopback_in(12'h0),
        .gtwiz_reset_tx_datapath(1'b0), .gtwiz_reset_rx_datapath(1'b0),
        .core_tx_reset(1'b0), .core_rx_reset(1'b0), .core_drp_reset(1'b0),
        .drp_clk(init_clk), .drp_addr(10'h0), .drp_di(16'h0), .drp_en(1'b0), .drp_we(1'b0), .drp_do(),
        .drp_rdy(),
        .gt_txusrclk2(mac_clk), .rx_clk(mac_clk), .gt_rxusrclk2(), .usr_tx_reset(mac_tx_reset),
        .usr_rx_reset(),
        .ctl_rx_enable(1'b1), .ctl_rx_force_resync(1'b0), .ctl_rx_test_pattern(1'b0),
        .ctl_tx_enable(rx_aligned_q), .ctl_tx_send_rfi(!rx_aligned_q), .ctl_tx_send_lfi(1'b0),
        .ctl_tx_send_idle(1'b0), .ctl_tx_test_pattern(1'b0),
        .ctl_rsfec_ieee_error_indication_mode(1'b0),
        .ctl_rx_rsfec_enable(RSFEC != 0), .ctl_rx_rsfec_enable_correction(RSFEC != 0),
        .ctl_rx_rsfec_enable_indication(RSFEC != 0), .ctl_tx_rsfec_enable(RSFEC != 0),
        .stat_rx_aligned(rx_aligned),
        .rx_axis_tvalid(mac_rx_tvalid), .rx_axis_tdata(mac_rx_tdata), .rx_axis_tkeep(mac_rx_tkeep),
        .rx_axis_tlast(mac_rx_tlast), .rx_axis_tuser(mac_rx_tuser),
        .tx_axis_tvalid(mac_tx_tvalid), .tx_axis_tdata(mac_tx_tdata), .tx_axis_tkeep(mac_tx_tkeep),
        .tx_axis_tlast(mac_tx_tlast), .tx_axis_tuser(1'b0), .tx_axis_tready(mac_tx_tready),
        .tx_preamblein(56'h0), .tx_ovfout(), .tx_unfout());

    // Receive: the CMAC cannot be stalled; the core keeps up (64 bytes a cycle at >= 250 MHz is more than
    // 100 Gb/s). Frames the CMAC marks bad (tuser with the last beat: a bad FCS) reach the core with the
    // mark, which drops and counts them (RX_FCS_ERRORS) before any unit acts on them. The FIFO is a clock
    // crossing when the core is on axi_aclk.
    rocenic_axis_rx_fifo rx_fifo (
        .s_axis_aclk(mac_clk), .s_axis_aresetn(!mac_tx_reset),
        .s_axis_tvalid(mac_rx_tvalid), .s_axis_tready(), .s_axis_tdata(mac_rx_tdata),
        .s_axis_tkeep(mac_rx_tkeep), .s_axis_tlast(mac_rx_tlast), .s_axis_tuser(mac_rx_tuser),
        .m_axis_aclk(core_clk),
        .m_axis_tvalid(rx_tvalid), .m_axis_tready(rx_tready), .m_axis_tdata(rx_tdata),
        .m_axis_tkeep(rx_tkeep), .m_axis_tlast(rx_tlast), .m_axis_tuser(rx_tuser));

    // Transmit: the core does not pad to the 60-byte minimum and the CMAC does not either. At 64 bytes a
    // beat a frame shorter than 60 bytes is a single beat, so a first beat that is also the last one is
    // widened to 60 bytes; bytes outside tkeep are zeroed so the padding is zeros.
    reg          tx_first = 1'b1;
    wire [B-1:0] pad_tkeep = (tx_first && tx_tlast) ? (tx_tkeep | {{(B-60){1'b0}}, {60{1'b1}}}) : tx_tkeep;
    wire [W-1:0] pad_tdata;
    genvar i;
    for (i = 0; i < B; i = i + 1) begin : pad_bytes
        assign pad_tdata[8*i +: 8] = tx_tkeep[i] ? tx_tdata[8*i +: 8] : 8'h00;
    end
    always @(posedge core_clk)
        if (core_reset) tx_first <= 1'b1;
        else if (tx_tvalid && tx_tready) tx_first <= tx_tlast;

    // Packet mode: the CMAC sees a frame only once all of it is in the FIFO, so tvalid never drops inside.
    rocenic_axis_tx_fifo tx_fifo (
        .s_axis_aclk(core_clk), .s_axis_aresetn(!core_reset),
        .s_axis_tvalid(tx_tvalid), .s_axis_tready(tx_tready), .s_axis_tdata(pad_tdata),
        .s_axis_tkeep(pad_tkeep), .s_axis_tlast(tx_tlast),
        .m_axis_aclk(mac_clk),
        .m_axis_tvalid(mac_tx_tvalid), .m_axis_tready(mac_tx_tready), .m_axis_tdata(mac_tx_tdata),
        .m_axis_tkeep(mac_tx_tkeep), .m_axis_tlast(mac_tx_tlast));
endmodule

`default_nettype wire
