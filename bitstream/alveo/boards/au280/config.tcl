# Alveo U280: board settings read by ../../flow.tcl (pins and input clocks: board.xdc, generated).
set board        au280
set board_title  "Alveo U280"
set part         xcu280-fsvh2892-2L-e

# Core clock: "pcie" = the QDMA user clock (250 MHz, CMAC side crosses in FIFOs), or
#             "mac"  = the CMAC user clock (322.265625 MHz, PCIe side crosses in AXI clock converters).
set core_clock   pcie
# CMAC init/DRP clock = system clock / sysclk_div (board.xdc: 100 MHz system clock 0).
set sysclk_div   1
set init_clk_mhz 100.00

# 100G Ethernet on QSFP0 (cmac_usplus): hard CMAC site, its four GTY channels, reference clock.
set cmac_core       CMACE4_X0Y6
set cmac_gt_group   X0Y40~X0Y43
set cmac_gt_lanes   {X0Y40 X0Y41 X0Y42 X0Y43}
set cmac_refclk_mhz 156.25
set cmac_rsfec      1

# PCIe (qdma): Gen3 x16 on the hard block next to quads 224-227.
set pcie_block   PCIE4C_X1Y0
set pcie_gt_quad GTY_Quad_227
set pcie_lanes   X16
set pcie_speed   8.0_GT/s

# HBM parts (U280/U55C) have a CATTRIP pin the design must hold low.
set hbm_cattrip  1
