// A small simulation of rocenic_alveo's own logic (iverilog; run by check.sh). The core is replaced by a
// scripted `top` below, the vendor IP are the empty ip_stubs.v modules, and the test bench drives the IP's
// side of each link by `force` on the wrapper's nets. Core on the PCIe clock (no clock converters).
// Covers: DMA reads cut at 4 KiB and tagged, `last` only on a request's final beat; DMA writes as one-beat
// bursts; AXI-Lite reads of a core register and of the build window; AXI-Lite writes; transmit padding.
`timescale 1ns / 1ps
`default_nettype none

module top (
    input wire clock, input wire reset,
    input wire [511:0] rx_tdata, input wire [63:0] rx_tkeep, input wire rx_tlast, input wire rx_tvalid,
    input wire rx_tuser, output wire rx_tready,
    output wire [511:0] tx_tdata, output wire [63:0] tx_tkeep, output wire tx_tlast, output wire tx_tvalid,
    input wire tx_tready,
    input wire reg_wr_valid, input wire [15:0] reg_wr_addr, input wire [31:0] reg_wr_data,
    output wire reg_wr_ready,
    input wire reg_rd_valid, input wire [15:0] reg_rd_addr, output wire reg_rd_ready,
    output reg [31:0] reg_rd_data, output reg reg_rd_data_valid,
    output reg dma_rd_req_valid, output reg [63:0] dma_rd_req_addr, output reg [15:0] dma_rd_req_beats,
    output reg [3:0] dma_rd_req_tag, input wire dma_rd_req_ready,
    input wire dma_rd_resp_valid, input wire [511:0] dma_rd_resp_data, input wire [3:0] dma_rd_resp_tag,
    input wire dma_rd_resp_last, output wire dma_rd_resp_ready,
    output reg dma_wr_valid, output reg [63:0] dma_wr_addr, output reg [511:0] dma_wr_data,
    output reg [63:0] dma_wr_strb, input wire dma_wr_ready,
    output wire irq, input wire [31:0] warp, output wire [31:0] wake);
    assign rx_tready = 1'b1;
    assign wake = 32'hFFFFFFFF;
    assign reg_wr_ready = 1'b1;
    assign reg_rd_ready = 1'b1;
    assign dma_rd_resp_ready = 1'b1;
    assign irq = 1'b0;
    reg [511:0] tx_tdata_r = {16{32'hA5A5A5A5}};
    reg [63:0]  tx_tkeep_r = 64'h0;
    reg         tx_tlast_r = 1'b0, tx_tvalid_r = 1'b0;
    assign tx_tdata = tx_tdata_r; assign tx_tkeep = tx_tkeep_r;
    assign tx_tlast = tx_tlast_r; assign tx_tvalid = tx_tvalid_r;
    initial begin dma_rd_req_valid = 0; dma_wr_valid = 0; reg_rd_data_valid = 0; reg_rd_data = 0; end
    // register reads answer 0xC0DE0000 | address one cycle later; the last write is kept
    reg [15:0] last_wr_addr = 0;
    reg [31:0] last_wr_data = 0;
    always @(posedge clock) begin
        reg_rd_data_valid <= reg_rd_valid;
        reg_rd_data <= 32'hC0DE0000 | reg_rd_addr;
        if (reg_wr_valid) begin last_wr_addr <= reg_wr_addr; last_wr_data <= reg_wr_data; end
    end
    // response log: beats seen, per beat {tag, last}
    integer beats = 0;
    reg [4:0] seen [0:255];
    always @(posedge clock) if (dma_rd_resp_valid) begin seen[beats] <= {dma_rd_resp_tag, dma_rd_resp_last}; beats <= beats + 1; end
endmodule

module tb;
    reg clk = 0, rstn = 0;
    always #2 clk = !clk;
    integer errors = 0;
    task check_that(input cond, input [8*64-1:0] what);
        if (!cond) begin errors = errors + 1; $display("FAIL: %0s", what); end
    endtask

    rocenic_alveo #(.BUILD_GIT_HASH(32'h0f3c4735), .BUILD_DATE(32'h20261122)) dut (
        .sysclk_p(1'b0), .sysclk_n(1'b1), .pcie_refclk_p(1'b0), .pcie_refclk_n(1'b1), .pcie_rstn(1'b1),
        .pcie_rx_p(16'h0), .pcie_rx_n(16'h0), .pcie_tx_p(), .pcie_tx_n(),
        .qsfp0_refclk_p(1'b0), .qsfp0_refclk_n(1'b1), .qsfp0_rx_p(4'h0), .qsfp0_rx_n(4'h0),
        .qsfp0_tx_p(), .qsfp0_tx_n());

    // AXI slave (QDMA bridge) model: takes every AR, answers each burst's beats in order
    reg [63:0] ar_addr [0:31];
    reg [7:0]  ar_len [0:31];
    integer n_ar = 0, served = 0, beat = 0, n_aw = 0;
    reg [63:0] aw_addr [0:7];
    reg [63:0] w_strb [0:7];
    reg rvalid = 0, rlast = 0;
    initial begin
        force dut.axi_aclk = clk; force dut.mac_clk = clk; force dut.axi_aresetn = rstn;
        force dut.s_arready = 1'b1; force dut.s_awready = 1'b1; force dut.s_wready = 1'b1;
        force dut.s_rvalid = rvalid; force dut.s_rlast = rlast; force dut.s_rdata = 512'h0;
        force dut.s_rresp = 2'b00; force dut.s_bvalid = 1'b0; force dut.s_bresp = 2'b00;
        force dut.tx_tready = 1'b1;
        force dut.q_awvalid = 1'b0; force dut.q_wvalid = 1'b0; force dut.q_arvalid = 1'b0;
        force dut.q_bready = 1'b1; force dut.q_rready = 1'b1;
    end
    always @(posedge clk) begin
        if (dut.s_arvalid && dut.s_arready) begin
            ar_addr[n_ar] <= dut.s_araddr; ar_len[n_ar] <= dut.s_arlen; n_ar <= n_ar + 1;
        end
        if (dut.s_awvalid && dut.s_awready) begin aw_addr[n_aw] <= dut.s_awaddr; n_aw <= n_aw + 1; end
        if (dut.s_wvalid && dut.s_wready) w_strb[n_aw] <= dut.s_wstrb;
    end
    // R channel: serve bursts one after another
    always @(posedge clk) begin
        if (rvalid && dut.s_rready) begin
            if (rlast) begin served <= served + 1; beat <= 0; end else beat <= beat + 1;
        end
    end
    always @* begin
        rvalid = served < n_ar;
        rlast = rvalid && beat == ar_len[served];
    end

    task lite_read(input [31:0] addr, output [31:0] data);
        begin
            @(negedge clk); force dut.q_araddr = addr; force dut.q_arvalid = 1'b1;
            @(negedge clk); force dut.q_arvalid = 1'b0;
            while (!dut.q_rvalid) @(negedge clk);
            data = dut.q_rdata;
            @(negedge clk);
        end
    endtask

    integer i;
    reg [31:0] d;
    initial begin
        repeat (8) @(negedge clk);
        rstn = 1;
        repeat (8) @(negedge clk);

        // 1. read of 3 beats starting one beat below a 4 KiB boundary, tag 5: bursts of 1 and 2
        dut.core.dma_rd_req_addr = 64'h0000_0001_0000_0FC0; dut.core.dma_rd_req_beats = 3;
        dut.core.dma_rd_req_tag = 5; dut.core.dma_rd_req_valid = 1;
        while (!dut.dma_rd_req_ready) @(negedge clk);
        @(posedge clk); #1 dut.core.dma_rd_req_valid = 0;
        repeat (20) @(negedge clk);
        // 2. read of 200 beats from an aligned address, tag 9: 64 + 64 + 64 + 8
        dut.core.dma_rd_req_addr = 64'h0000_0002_0000_0000; dut.core.dma_rd_req_beats = 200;
        dut.core.dma_rd_req_tag = 9; dut.core.dma_rd_req_valid = 1;
        while (!dut.dma_rd_req_ready) @(negedge clk);
        @(posedge clk); #1 dut.core.dma_rd_req_valid = 0;
        repeat (260) @(negedge clk);
        check_that(n_ar == 6, "six read bursts");
        check_that(ar_addr[0] == 64'h1_0000_0FC0 && ar_len[0] == 0, "burst 0: one beat below 4 KiB");
        check_that(ar_addr[1] == 64'h1_0000_1000 && ar_len[1] == 1, "burst 1: two beats from the boundary");
        check_that(ar_addr[2] == 64'h2_0000_0000 && ar_len[2] == 63, "burst 2: 64 beats");
        check_that(ar_addr[4] == 64'h2_0000_2000 && ar_len[4] == 63, "burst 4: 64 beats");
        check_that(ar_addr[5] == 64'h2_0000_3000 && ar_len[5] == 7, "burst 5: the last 8 beats");
        check_that(dut.core.beats == 203, "203 beats reach the core");
        for (i = 0; i < 203; i = i + 1)
            check_that(dut.core.seen[i] == {i < 3 ? 4'd5 : 4'd9, i == 2 || i == 202},
                   "every beat carries its tag, last only on a request's final beat");

        // 3. two writes: one-beat bursts at the core's addresses with its strobes
        dut.core.dma_wr_addr = 64'h3_0000_0040; dut.core.dma_wr_strb = 64'h00FF; dut.core.dma_wr_valid = 1;
        @(posedge clk); #1 dut.core.dma_wr_addr = 64'h3_0000_0080; dut.core.dma_wr_strb = 64'hFF00;
        @(posedge clk); #1 dut.core.dma_wr_valid = 0;
        repeat (4) @(negedge clk);
        check_that(n_aw == 2 && aw_addr[0] == 64'h3_0000_0040 && aw_addr[1] == 64'h3_0000_0080, "two AW at the core's addresses");
        check_that(w_strb[0] == 64'h00FF && w_strb[1] == 64'hFF00, "W strobes follow the core's");
        check_that(dut.s_awlen == 0 && dut.s_wlast == 1, "writes are single-beat bursts");

        // 4. AXI-Lite: a core register, the build window, a write
        lite_read(32'h0000_0124, d); check_that(d == 32'hC0DE0124, "BAR0 0x124 reads the core's register 0x124");
        lite_read(32'h0001_0000, d); check_that(d == 32'h0f3c4735, "BAR0 0x10000 reads BUILD_GIT_HASH");
        lite_read(32'h0001_0004, d); check_that(d == 32'h20261122, "BAR0 0x10004 reads BUILD_DATE");
        lite_read(32'h0001_0010, d); check_that(d == 32'h0, "the rest of the window reads 0");
        @(negedge clk); force dut.q_awaddr = 32'h0000_0208; force dut.q_wdata = 32'hDEADBEEF;
        force dut.q_wstrb = 4'hF; force dut.q_awvalid = 1'b1; force dut.q_wvalid = 1'b1;
        @(negedge clk); force dut.q_awvalid = 1'b0; force dut.q_wvalid = 1'b0;
        @(negedge clk);
        check_that(dut.core.last_wr_addr == 16'h0208 && dut.core.last_wr_data == 32'hDEADBEEF, "AXI-Lite write reaches the core");

        // 5. transmit padding: a 20-byte frame leaves as 60 bytes, zero beyond its own bytes
        dut.core.tx_tkeep_r = 64'hFFFFF; dut.core.tx_tlast_r = 1; dut.core.tx_tvalid_r = 1;
        #1 check_that(dut.pad_tkeep == {4'h0, 60'hFFF_FFFF_FFFF_FFFF}, "short frame widened to 60 bytes");
        check_that(dut.pad_tdata[159:0] == {5{32'hA5A5A5A5}} && dut.pad_tdata[511:160] == 0, "padding is zeros");
        @(posedge clk); #1 dut.core.tx_tkeep_r = {64{1'b1}}; dut.core.tx_tlast_r = 0;
        @(posedge clk); #1 dut.core.tx_tkeep_r = 64'h1; dut.core.tx_tlast_r = 1;
        #1 check_that(dut.pad_tkeep == 64'h1, "the last beat of a long frame is left alone");
        @(posedge clk); #1 dut.core.tx_tvalid_r = 0;

        if (errors == 0) $display("PASS: rocenic_alveo wrapper logic");
        $finish;
    end
endmodule
