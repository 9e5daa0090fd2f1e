#!/usr/bin/env bash
# Checks of the Alveo flow that run without Vivado (usable from any directory):
#  1. flow.tcl under tclsh with every Vivado command stubbed (vivado_stubs.tcl), for every board's config
#     and once more with the core on the MAC clock: Tcl errors, unknown commands or options, missing files,
#     and a Verilog file list that leaves a module of the wrapper undefined all fail (flow_check.tcl);
#  2. iverilog -g2012 elaboration of rocenic_alveo.v + the emitted 512-bit core + ip_stubs.v, for both
#     core clocks (and with the HBM CATTRIP port);
#     plus a short simulation of the wrapper's own logic (tb_wrapper.v: DMA bursts, AXI-Lite, padding);
#  3. cargo test -p rocenic-boards: the checked-in board.xdc files equal what the generator writes.
# Emits the 512-bit core to build/alveo/nic512.v first (bitstream/emitter.sh). Prints a PASS/FAIL summary, exits 1 on FAIL.
#
# usage: bitstream/alveo/check/check.sh
set -uo pipefail
check=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
alveo=$(dirname "$check")
root=$(cd "$alveo/../.." && pwd)
work=$root/build/alveo/check
mkdir -p "$work"
results=()
fail=0
step() {   # step <name> <command...>: runs the command, keeps its output in $work/<name>.log
    local name=$1; shift
    if "$@" > "$work/$name.log" 2>&1; then
        results+=("PASS  $name")
    else
        results+=("FAIL  $name  (log: ${work#$root/}/$name.log)")
        sed 's/^/    /' "$work/$name.log" | tail -20
        fail=1
    fi
}

for tool in tclsh iverilog cargo; do
    command -v $tool >/dev/null || { echo "check.sh: $tool is missing" >&2; exit 2; }
done

source "$root/bitstream/emitter.sh"
emit_core() { local emit; emit=$(emitter emit) && (cd "$root" && "$emit" 512 build/alveo/nic512.v); }
step emit-core emit_core

# 1. flow.tcl with stubbed Vivado, per board, plus au250 with the core on the MAC clock.
boards=()
for dir in "$alveo"/boards/*/; do
    boards+=("$(basename "$dir")")
    step "flow-$(basename "$dir")" tclsh "$check/flow_check.tcl" "$dir" "$work/out/$(basename "$dir")"
done
mac=$work/boards/au250-mac
mkdir -p "$mac"
sed 's/^set core_clock .*/set core_clock   mac/' "$alveo/boards/au250/config.tcl" > "$mac/config.tcl"
cp "$alveo/boards/au250/board.xdc" "$mac/board.xdc"
step flow-au250-core-on-mac-clock tclsh "$check/flow_check.tcl" "$mac" "$work/out/au250-mac"

# 2. Elaboration of wrapper + core + IP stubs.
elab() {   # elab <CORE_ON_MAC_CLK> [defines...]
    local mac=$1; shift
    iverilog -g2012 -Wall -Wno-timescale "$@" -s rocenic_alveo -P "rocenic_alveo.CORE_ON_MAC_CLK=$mac" \
        -o "$work/alveo.vvp" "$alveo/rocenic_alveo.v" "$root/build/alveo/nic512.v" "$check/ip_stubs.v"
}
step iverilog-core-on-pcie-clock elab 0
step iverilog-core-on-mac-clock-hbm elab 1 -DHAS_HBM_CATTRIP

# 2b. The wrapper's own logic in simulation (tb_wrapper.v: a scripted core, IP sides forced by the bench).
sim() {
    iverilog -g2012 -Wno-timescale -s tb -o "$work/tb.vvp" "$alveo/rocenic_alveo.v" "$check/ip_stubs.v" \
        "$check/tb_wrapper.v" && vvp -n "$work/tb.vvp" | tee /dev/stderr | grep -q '^PASS'
}
step wrapper-sim sim

# 3. board.xdc files equal the generator's output.
step xdc-generator bash -c "cd '$root' && RUST_BACKTRACE=0 cargo test -q -p rocenic-boards"

echo
echo "Alveo flow checks (boards: ${boards[*]}; no Vivado run):"
printf '  %s\n' "${results[@]}"
if (( fail )); then echo "FAIL"; exit 1; fi
echo "PASS"
