// Empty stand-ins for the vendor IP and UltraScale+ primitives that rocenic_alveo.v instantiates.
// They exist ONLY for the elaboration check in check.sh (iverilog -g2012): they declare the ports the
// wrapper connects, with the widths the wrapper expects, and contain no logic. Vivado never reads this file;
// it uses the IP that flow.tcl generates (create_ip) and its own primitive library. Port names and widths
// of the real IP follow the IP product guides (PG302 QDMA, PG203 CMAC, PG059 AXI Interconnect/clock
// converter, PG085 AXI4-Stream FIFO) but are not checked here against Vivado's generated wrappers.
`timescale 1ns / 1ps

// ---- primitives (UltraScale+ library)
module IBUFDS (input wire I, input wire IB, output wire O);
endmodule

module BUFGCE_DIV #(parameter BUFGCE_DIVIDE = 1) (input wire I, input wire CE, input wire CLR, output wire O);
endmodule

module IBUFDS_GTE4 #(parameter [1:0] REFCLK_HROW_CK_SEL = 2'b00) (
    input wire I, input wire IB, input wire CEB, output wire O, output wire ODIV2);
endmodule

module BUFG_GT (input wire I, input wire CE, input wire CEMASK, input wire CLR, input wire CLRMASK,
    input wire [2:0] DIV, output wire O);
endmodule

// ---- QDMA (create_ip -name qdma -module_name rocenic_qdma): PCIe, BAR AXI-Lite master, slave bridge, irq
module rocenic_qdma (
    input wire sys_clk, input wire sys_clk_gt, input wire sys_rst_n,
    input wire [15:0] pci_exp_rxp, input wire [15:0] pci_exp_rxn,
    output wire [15:0] pci_exp_txp, output wire [15:0] pci_exp_txn,
    output wire axi_aclk, output wire axi_aresetn, output wire user_lnk_up, input wire soft_reset_n,
    output wire [31:0] m_axil_awaddr, output wire [2:0] m_axil_awprot, output wire m_axil_awvalid,
    input wire m_axil_awready,
    output wire [31:0] m_axil_wdata, output wire [3:0] m_axil_wstrb, output wire m_axil_wvalid,
    input wire m_axil_wready,
    input wire [1:0] m_axil_bresp, input wire m_axil_bvalid, output wire m_axil_bready,
    output wire [31:0] m_axil_araddr, output wire [2:0] m_axil_arprot, output wire m_axil_arvalid,
    input wire m_axil_arready,
    input wire [31:0] m_axil_rdata, input wire [1:0] m_axil_rresp, input wire m_axil_rvalid,
    output wire m_axil_rready,
    input wire [3:0] s_axib_awid, input wire [63:0] s_axib_awaddr, input wire [3:0] s_axib_awregion,
    input wire [7:0] s_axib_awlen, input wire [2:0] s_axib_awsize, input wire [1:0] s_axib_awburst,
    input wire s_axib_awvalid, output wire s_axib_awready,
    input wire [511:0] s_axib_wdata, input wire [63:0] s_axib_wstrb, input wire s_axib_wlast,
    input wire [63:0] s_axib_wuser, input wire s_axib_wvalid, output wire s_axib_wready,
    output wire [3:0] s_axib_bid, output wire [1:0] s_axib_bresp, output wire s_axib_bvalid,
    input wire s_axib_bready,
    input wire [3:0] s_axib_arid, input wire [63:0] s_axib_araddr, input wire [3:0] s_axib_arregion,
    input wire [7:0] s_axib_arlen, input wire [2:0] s_axib_arsize, input wire [1:0] s_axib_arburst,
    input wire s_axib_arvalid, output wire s_axib_arready,
    output wire [3:0] s_axib_rid, output wire [511:0] s_axib_rdata, output wire [1:0] s_axib_rresp,
    output wire s_axib_rlast, output wire [63:0] s_axib_ruser, output wire s_axib_rvalid,
    input wire s_axib_rready,
    input wire usr_irq_in_vld, input wire [10:0] usr_irq_in_vec, input wire [7:0] usr_irq_in_fnc,
    output wire usr_irq_out_ack, output wire usr_irq_out_fail);
endmodule

// ---- CMAC (create_ip -name cmac_usplus -module_name rocenic_cmac), AXI4-Stream user interface, no AXI-Lite
module rocenic_cmac (
    input wire gt_ref_clk_p, input wire gt_ref_clk_n,
    input wire [3:0] gt_rxp_in, input wire [3:0] gt_rxn_in, output wire [3:0] gt_txp_out,
    output wire [3:0] gt_txn_out,
    input wire init_clk, input wire sys_reset, input wire [11:0] gt_loopback_in,
    input wire gtwiz_reset_tx_datapath, input wire gtwiz_reset_rx_datapath,
    input wire core_tx_reset, input wire core_rx_reset, input wire core_drp_reset,
    input wire drp_clk, input wire [9:0] drp_addr, input wire [15:0] drp_di, input wire drp_en,
    input wire drp_we, output wire [15:0] drp_do, output wire drp_rdy,
    output wire gt_txusrclk2, input wire rx_clk, output wire gt_rxusrclk2, output wire usr_tx_reset,
    output wire usr_rx_reset,
    input wire ctl_rx_enable, input wire ctl_rx_force_resync, input wire ctl_rx_test_pattern,
    input wire ctl_tx_enable, input wire ctl_tx_send_rfi, input wire ctl_tx_send_lfi,
    input wire ctl_tx_send_idle, input wire ctl_tx_test_pattern,
    input wire ctl_rsfec_ieee_error_indication_mode, input wire ctl_rx_rsfec_enable,
    input wire ctl_rx_rsfec_enable_correction, input wire ctl_rx_rsfec_enable_indication,
    input wire ctl_tx_rsfec_enable,
    output wire stat_rx_aligned,
    output wire rx_axis_tvalid, output wire [511:0] rx_axis_tdata, output wire [63:0] rx_axis_tkeep,
    output wire rx_axis_tlast, output wire rx_axis_tuser,
    input wire tx_axis_tvalid, input wire [511:0] tx_axis_tdata, input wire [63:0] tx_axis_tkeep,
    input wire tx_axis_tlast, input wire tx_axis_tuser, output wire tx_axis_tready,
    input wire [55:0] tx_preamblein, output wire tx_ovfout, output wire tx_unfout);
endmodule

// ---- AXI4-Stream data FIFOs (create_ip -name axis_data_fifo): receive crossing, transmit packet FIFO
module rocenic_axis_rx_fifo (
    input wire s_axis_aclk, input wire s_axis_aresetn,
    input wire s_axis_tvalid, output wire s_axis_tready, input wire [511:0] s_axis_tdata,
    input wire [63:0] s_axis_tkeep, input wire s_axis_tlast, input wire [0:0] s_axis_tuser,
    input wire m_axis_aclk,
    output wire m_axis_tvalid, input wire m_axis_tready, output wire [511:0] m_axis_tdata,
    output wire [63:0] m_axis_tkeep, output wire m_axis_tlast, output wire [0:0] m_axis_tuser);
endmodule

module rocenic_axis_tx_fifo (
    input wire s_axis_aclk, input wire s_axis_aresetn,
    input wire s_axis_tvalid, output wire s_axis_tready, input wire [511:0] s_axis_tdata,
    input wire [63:0] s_axis_tkeep, input wire s_axis_tlast,
    input wire m_axis_aclk,
    output wire m_axis_tvalid, input wire m_axis_tready, output wire [511:0] m_axis_tdata,
    output wire [63:0] m_axis_tkeep, output wire m_axis_tlast);
endmodule

// ---- AXI clock converters (create_ip -name axi_clock_converter), only when the core is on the MAC clock
module rocenic_axil_cdc (
    input wire s_axi_aclk, input wire s_axi_aresetn,
    input wire [31:0] s_axi_awaddr, input wire [2:0] s_axi_awprot, input wire s_axi_awvalid,
    output wire s_axi_awready,
    input wire [31:0] s_axi_wdata, input wire [3:0] s_axi_wstrb, input wire s_axi_wvalid,
    output wire s_axi_wready,
    output wire [1:0] s_axi_bresp, output wire s_axi_bvalid, input wire s_axi_bready,
    input wire [31:0] s_axi_araddr, input wire [2:0] s_axi_arprot, input wire s_axi_arvalid,
    output wire s_axi_arready,
    output wire [31:0] s_axi_rdata, output wire [1:0] s_axi_rresp, output wire s_axi_rvalid,
    input wire s_axi_rready,
    input wire m_axi_aclk, input wire m_axi_aresetn,
    output wire [31:0] m_axi_awaddr, output wire [2:0] m_axi_awprot, output wire m_axi_awvalid,
    input wire m_axi_awready,
    output wire [31:0] m_axi_wdata, output wire [3:0] m_axi_wstrb, output wire m_axi_wvalid,
    input wire m_axi_wready,
    input wire [1:0] m_axi_bresp, input wire m_axi_bvalid, output wire m_axi_bready,
    output wire [31:0] m_axi_araddr, output wire [2:0] m_axi_arprot, output wire m_axi_arvalid,
    input wire m_axi_arready,
    input wire [31:0] m_axi_rdata, input wire [1:0] m_axi_rresp, input wire m_axi_rvalid,
    output wire m_axi_rready);
endmodule

module rocenic_axi_cdc (
    input wire s_axi_aclk, input wire s_axi_aresetn,
    input wire [63:0] s_axi_awaddr, input wire [7:0] s_axi_awlen, input wire [2:0] s_axi_awsize,
    input wire [1:0] s_axi_awburst, input wire s_axi_awvalid, output wire s_axi_awready,
    input wire [511:0] s_axi_wdata, input wire [63:0] s_axi_wstrb, input wire s_axi_wlast,
    input wire s_axi_wvalid, output wire s_axi_wready,
    output wire [1:0] s_axi_bresp, output wire s_axi_bvalid, input wire s_axi_bready,
    input wire [63:0] s_axi_araddr, input wire [7:0] s_axi_arlen, input wire [2:0] s_axi_arsize,
    input wire [1:0] s_axi_arburst, input wire s_axi_arvalid, output wire s_axi_arready,
    output wire [511:0] s_axi_rdata, output wire [1:0] s_axi_rresp, output wire s_axi_rlast,
    output wire s_axi_rvalid, input wire s_axi_rready,
    input wire m_axi_aclk, input wire m_axi_aresetn,
    output wire [63:0] m_axi_awaddr, output wire [7:0] m_axi_awlen, output wire [2:0] m_axi_awsize,
    output wire [1:0] m_axi_awburst, output wire m_axi_awvalid, input wire m_axi_awready,
    output wire [511:0] m_axi_wdata, output wire [63:0] m_axi_wstrb, output wire m_axi_wlast,
    output wire m_axi_wvalid, input wire m_axi_wready,
    input wire [1:0] m_axi_bresp, input wire m_axi_bvalid, output wire m_axi_bready,
    output wire [63:0] m_axi_araddr, output wire [7:0] m_axi_arlen, output wire [2:0] m_axi_arsize,
    output wire [1:0] m_axi_arburst, output wire m_axi_arvalid, input wire m_axi_arready,
    input wire [511:0] m_axi_rdata, input wire [1:0] m_axi_rresp, input wire m_axi_rlast,
    input wire m_axi_rvalid, output wire m_axi_rready);
endmodule
