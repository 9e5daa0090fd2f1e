# Alveo U55C: board settings read by ../../flow.tcl (pins and input clocks: board.xdc, generated).
set board        au55c
set board_title  "Alveo U55C"
set part         xcu55c-fsvh2892-2L-e

# Core clock: "pcie" = the QDMA user clock (250 MHz, CMAC side crosses in FIFOs), or
#             "mac"  = the CMAC user clock (322.265625 MHz, PCIe side crosses in AXI clock converters).
set core_clock   pcie
# CMAC init/DRP clock = system clock / sysclk_div (board.xdc: 100 MHz system clock 3).
set sysclk_div   1
set init_clk_mhz 100.00

# 100G Ethernet on QSFP0 (cmac_usplus): hard CMAC site, its four GTY channels, reference clock.
set cmac_core       CMACE4_X0Y3
set cmac_gt_group   X0Y24~X0Y27
set cmac_gt_lanes   {X0Y24 X0Y25 X0Y26 X0Y27}
set cmac_refclk_mhz 161.1328125
set cmac_rsfec      1

# PCIe (qdma): Gen3 x16 on the hard block next to quads 224-227.
set pcie_block   PCIE4C_X1Y0
set pcie_gt_quad GTY_Quad_227
set pcie_lanes   X16
set pcie_speed   8.0_GT/s

# HBM parts (U280/U55C) have a CATTRIP pin the design must hold low.
set hbm_cattrip  1
