# Timing exceptions of rocenic_alveo shared by every board (board.xdc has the pins and input clocks).
# The clock crossings proper are inside the IP (AXI4-Stream FIFOs, AXI clock converters), which carry their
# own constraints. What is left are the wrapper's two synchronisers into another clock: the core reset
# (asserted asynchronously from the QDMA's axi_aresetn) and the interrupt toggle (core clock -> axi_aclk).
set_false_path -to [get_pins -hierarchical -filter {NAME =~ core_rst_sync_reg[*]/PRE}]
set_false_path -to [get_cells {irq_sync_reg[0]}]
