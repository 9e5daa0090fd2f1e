// Timing harness for place-and-route of the 64-bit rocenic core on an ECP5-85F (bitstream/ecp5.sh).
//
// The core has about 450 port bits, more than the package has pins, and this build is for an Fmax
// number, not a board. So every core input is driven from a 64-bit LFSR (Yosys cannot prove any input
// constant, so no logic behind it is optimised away) and every core output is folded into a registered
// XOR tree that drives one pin. All paths start and end at flip-flops in the one clock domain, like the
// core's own paths. Not a board design: a real ECP5 board needs a MAC/PHY and a host link around the core.
module harness (
    input  wire clk,
    input  wire rst,
    output reg  out
);
    reg [63:0] lfsr = 64'h1;
    always @(posedge clk) lfsr <= {lfsr[62:0], lfsr[63] ^ lfsr[62] ^ lfsr[60] ^ lfsr[59]};
    // Copies of the LFSR rotated, so the wide inputs do not all carry the same bits.
    wire [63:0] r1 = {lfsr[31:0], lfsr[63:32]};
    wire [63:0] r2 = {lfsr[15:0], lfsr[63:16]};
    wire [63:0] r3 = {lfsr[47:0], lfsr[63:48]};

    wire        rx_tready, tx_tlast, tx_tvalid, reg_wr_ready, reg_rd_ready, reg_rd_data_valid;
    wire [63:0] tx_tdata;
    wire [7:0]  tx_tkeep;
    wire [31:0] reg_rd_data;
    wire        dma_rd_req_valid, dma_rd_resp_ready, dma_wr_valid, irq;
    wire [63:0] dma_rd_req_addr, dma_wr_addr, dma_wr_data;
    wire [15:0] dma_rd_req_beats;
    wire [3:0]  dma_rd_req_tag;
    wire [7:0]  dma_wr_strb;

    top core (
        .clock(clk), .reset(rst),
        .rx_tdata(lfsr), .rx_tkeep(r1[7:0]), .rx_tlast(r1[8]), .rx_tvalid(r1[9]), .rx_tuser(r1[17]),
        .rx_tready(rx_tready),
        .tx_tdata(tx_tdata), .tx_tkeep(tx_tkeep), .tx_tlast(tx_tlast), .tx_tvalid(tx_tvalid),
        .tx_tready(r1[10]),
        .reg_wr_valid(r1[11]), .reg_wr_addr(r2[15:0]), .reg_wr_data(r3[31:0]), .reg_wr_ready(reg_wr_ready),
        .reg_rd_valid(r1[12]), .reg_rd_addr(r2[31:16]), .reg_rd_ready(reg_rd_ready),
        .reg_rd_data(reg_rd_data), .reg_rd_data_valid(reg_rd_data_valid),
        .dma_rd_req_valid(dma_rd_req_valid), .dma_rd_req_addr(dma_rd_req_addr),
        .dma_rd_req_beats(dma_rd_req_beats), .dma_rd_req_tag(dma_rd_req_tag), .dma_rd_req_ready(r1[13]),
        .dma_rd_resp_valid(r1[14]), .dma_rd_resp_data(r2), .dma_rd_resp_tag(r3[3:0]),
        .dma_rd_resp_last(r1[15]), .dma_rd_resp_ready(dma_rd_resp_ready),
        .dma_wr_valid(dma_wr_valid), .dma_wr_addr(dma_wr_addr), .dma_wr_data(dma_wr_data),
        .dma_wr_strb(dma_wr_strb), .dma_wr_ready(r1[16]),
        .irq(irq),
        // Fast-forward is for simulation only.
        .warp(32'd0), .wake()
    );

    // Two register stages of XOR folding keep the output tree off the critical path.
    reg [63:0] fold;
    reg [7:0]  fold2;
    always @(posedge clk) begin
        fold <= tx_tdata ^ dma_rd_req_addr ^ dma_wr_addr ^ dma_wr_data
              ^ {tx_tkeep, dma_wr_strb, dma_rd_req_beats, dma_rd_req_tag, reg_rd_data}
              ^ {56'b0, rx_tready, tx_tlast, tx_tvalid, reg_wr_ready, reg_rd_ready, reg_rd_data_valid,
                 dma_rd_req_valid, dma_rd_resp_ready ^ dma_wr_valid ^ irq};
        fold2 <= fold[7:0] ^ fold[15:8] ^ fold[23:16] ^ fold[31:24] ^ fold[39:32] ^ fold[47:40]
               ^ fold[55:48] ^ fold[63:56];
        out <= ^fold2;
    end
endmodule
