# The Yosys flow for UltraScale+ that reports.sh and unit.sh share (sourced, not run): synth_xilinx up to its
# LUT mapping, `abc -fast -lut 6`, then the rest of synth_xilinx; `stat` into stat-xcup-$1.txt and the
# longest path into ltp-xcup-$1.txt; with a second argument, the mapped netlist into that JSON file (for
# levels.py; written before the cell library is read, whose models write_json cannot write). reports.sh
# explains the choices.
#
# The simulation-only ports are taken as a board has them (bitstream/alveo/rocenic_alveo.v): `warp`, the
# co-simulation's fast-forward, tied to 0, and `wake`, the cycles it may skip, left open; the logic that
# only serves them is not in a bitstream, so it is not synthesized here either. A design without them
# is unchanged.
xcup_flow() {
    local name=$1
    cat <<FLOW
hierarchy -top top
proc
delete -port top/w:warp top/w:wake
setundef -zero -undriven top/w:warp
synth_xilinx -family xcup -flatten -top top -run :map_luts
opt_expr -mux_undef -noclkinv
abc -fast -lut 6
clean
techmap -map +/xilinx/ff_map.v
xilinx_srl -fixed -minlen 3
techmap -map +/xilinx/lut_map.v -map +/xilinx/cells_map.v -D LUT_WIDTH=6
xilinx_dffopt
opt_lut_ins -tech xilinx
synth_xilinx -family xcup -top top -run finalize:
tee -q -o stat-xcup-$name.txt stat
${2:+write_json $2}
read_verilog -lib +/xilinx/cells_sim.v
tee -q -o ltp-xcup-$name.txt ltp w:* t:LUT* t:MUXF* t:CARRY*
FLOW
}
