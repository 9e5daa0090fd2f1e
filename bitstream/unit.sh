#!/usr/bin/env bash
# Synthesis of one hardware unit alone for UltraScale+, with the flow of reports.sh: its LUTs, flip-flops and
# carry cells, for weighing a change to one block without the 8 to 11 minutes of the whole core.
#
# usage: bitstream/unit.sh UNIT [64|512]   (UNIT: one of `emit-unit`'s, e.g. ndp, arp, rx_buffer)
set -euo pipefail
unit=${1:?usage: bitstream/unit.sh UNIT [64|512]}
width=${2:-64}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$root/build/reports/unit
command -v yosys >/dev/null || { echo "unit.sh: yosys missing: run scripts/setup.sh" >&2; exit 2; }
mkdir -p "$out"
source "$root/bitstream/emitter.sh"
emit_unit=$(emitter emit-unit)
"$emit_unit" "$unit" "$width" "$out/$unit$width.v"
cd "$out"
source "$root/bitstream/xcup-flow.sh"
flow=$(xcup_flow "$unit$width")
yosys -q -l "synth-$unit$width.log" -p "read_verilog $unit$width.v; ${flow//$'\n'/; }" > /dev/null \
    2> >(grep -v "Resizing cell port" >&2)
count() { awk -v c="$1" '$1 == c {n += $2} END {print n + 0}' "stat-xcup-$unit$width.txt"; }
luts=0
for c in LUT1 LUT2 LUT3 LUT4 LUT5 LUT6; do luts=$((luts + $(count $c))); done
ffs=$(( $(count FDRE) + $(count FDSE) + $(count FDCE) + $(count FDPE) ))
carry=$(( $(count CARRY4) + $(count CARRY8) ))
depth=$(sed -n 's/.*Longest topological path in .* (length=\([0-9]*\)).*/\1/p' "ltp-xcup-$unit$width.txt" | head -1)
echo "| $unit, $width-bit | $luts LUT | $ffs FF | $carry CARRY | depth ${depth:-?} |"
