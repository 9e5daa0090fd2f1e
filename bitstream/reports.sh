#!/usr/bin/env bash
# Open-tool synthesis report of the NIC core for UltraScale+: Yosys `synth_xilinx -family xcup` of the
# emitted Verilog, cell counts and the logic depth into build/reports/, and checks that fail the run: the
# receive buffer, the QP context table and the MR table must infer block/ultra RAM (at least half the tables'
# declared bits in RAMB36/RAMB18/URAM), no latch may be inferred, and LUTs, flip-flops and block RAM must stay
# within the budgets below.
#
# usage: bitstream/reports.sh [64|512]   (default 64: 8,192 QPs; 512: the Alveo core with 16,384 QPs)
#
# Yosys is Debian 12's (0.23, `apt-get install yosys`, which scripts/setup.sh does): natively compiled it maps
# the 512-bit core, where YoWASP's WebAssembly build exhausted its stack in ABC9 on it
# and took 18 minutes on the 64-bit core. Both widths go through one flow: synth_xilinx up to its LUT
# mapping, then `abc -fast -lut 6` (plain LUT6, no MUXF7/F8 wide LUTs), then the rest of
# synth_xilinx unchanged. `-fast` because 0.23's default ABC script (scorr, dretime over the whole
# sequential netlist) did not finish on the 512-bit core in 28 CPU minutes; it costs about 11 % more LUTs
# than ABC9 (docs/resources.md).
set -euo pipefail
width=${1:-64}
[[ $width == 64 || $width == 512 ]] || { echo "usage: bitstream/reports.sh [64|512]" >&2; exit 2; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$root/build/reports
# Budgets: the measured use plus headroom (about 15 %); raise them on purpose, with the reason, when the
# design grows. RAMB36 counts RAMB18 as half.
# LUTs: 64-bit 42,000, raised for PFC per priority (per-priority counts of stored words in the receive buffer,
# XOFF/XON per priority, eight TX_PRIOn_PAUSE counters); 512-bit 76,000, raised for RoCEv2 over IPv6 and IPv6
# neighbour discovery (a 1,024-bit transmit header in either layout, the receive side's IPv6 checks and
# 20-byte shift, a 4-entry GID table, a 264-bit address vector, net/ndp.rs).
declare -A lut_budget=([64]=42000 [512]=76000)
# Flip-flops: raised for per-QP DCQCN (net/rate_limiters.rs: four reaction points, each about 240 flip-flops
# of rates, timers, byte counter and pacer debt, plus a 16-bit QP tag); 512-bit 46,000 for the pipeline
# registers of the 6-level rule (the stages of gather, the CQE writer, the register block's counter sweep,
# DCQCN's operands, the QP table's counter halves, NDP's checks and checksum pairs, the receive engine's
# header, check and verdict stages, the transmit engine's WQE address, prefetch and completer stages):
# 39,924 measured.
declare -A ff_budget=([64]=21500 [512]=46000)
# Block RAM: raised for the responder's atomic result cache of 4 per QP (entries 1..3 in the QP context,
# 288 more bits per QP). Current use is in docs/resources.md.
declare -A bram_budget=([64]=515 [512]=1030)
command -v yosys >/dev/null || { echo "reports.sh: yosys missing: run scripts/setup.sh (apt-get install yosys)" >&2; exit 2; }
yosys_version=$(yosys -V)
[[ $yosys_version == "Yosys 0.23 "* ]] \
    || echo "reports.sh: note: measured with Debian 12's Yosys 0.23; this is $yosys_version, numbers may differ"
mkdir -p "$out"
qp_log=$(( width == 64 ? 13 : 14 ))
source "$root/bitstream/emitter.sh"
emit=$(emitter emit)
"$emit" "$width" "$out/nic$width.v" "$qp_log"
cd "$out"
source "$root/bitstream/xcup-flow.sh"
flow=$(xcup_flow "$width" "nic$width.json")
start=$(date +%s)
# Warnings go to the log; the thousands of block-RAM port resizes only there.
yosys -q -l "synth-xcup-$width.log" -p "read_verilog nic$width.v; ${flow//$'\n'/; }" > /dev/null \
    2> >(grep -v "Resizing cell port" >&2)
secs=$(( $(date +%s) - start ))
count() { awk -v c="$1" '$1 == c {n += $2} END {print n + 0}' "stat-xcup-$width.txt"; }
luts=0
for c in LUT1 LUT2 LUT3 LUT4 LUT5 LUT6; do luts=$((luts + $(count $c))); done
ffs=$(( $(count FDRE) + $(count FDSE) + $(count FDCE) + $(count FDPE) ))
generic_ffs=$(awk '$1 ~ /^\$_(S|A)?DFF/ {n += $2} END {print n + 0}' "stat-xcup-$width.txt")
ramb36=$(count RAMB36E2); ramb18=$(count RAMB18E2); uram=$(count URAM288); dsp=$(count DSP48E2)
carry=$(( $(count CARRY4) + $(count CARRY8) )); srl=$(( $(count SRL16E) + $(count SRLC32E) ))
muxf=$(( $(count MUXF7) + $(count MUXF8) ))
# Logic depth: the longest path through LUTs, wide-LUT muxes and carry cells only (flip-flops, RAMs and DSPs
# end a path; the core has one clock, `clock`), as ltp counts it: cells on the path. Its cells are sorted by
# kind from their names (lut_map names the muxes of a wide LUT mux7/mux8, arith_map its carry cells carry4),
# because one LUT level costs far more than a MUXF7/F8 or a carry stage.
depth=$(sed -n 's/.*Longest topological path in .* (length=\([0-9]*\)).*/\1/p' "ltp-xcup-$width.txt" | head -1)
[[ -n $depth ]] || depth=-1
read -r path_luts path_muxf path_carry < <(awk '/\(via /{v = $NF; sub(/\)$/, "", v)
    if (v ~ /\.mux[78]$/) m++; else if (v ~ /carry[48]$/) c++; else l++}
    END {print l + 0, m + 0, c + 0}' "ltp-xcup-$width.txt")
# Logic levels as the per-unit rule counts them (bitstream/levels.py: a LUT, MUXF7/F8 or CARRY8 one level,
# a CARRY4 half), over every path of the mapped netlist, paths that cross from one unit into the next
# counted whole.
read -r levels lv_lut lv_muxf lv_carry lv_from lv_to < <(python3 "$root/bitstream/levels.py" "nic$width.json")
path_from=$(awk '$1 == "0:" {print $2; exit}' "ltp-xcup-$width.txt")
path_to=$(awk '/\(via /{t = $2} END {print t}' "ltp-xcup-$width.txt")
bram36=$(( ramb36 + (ramb18 + 1) / 2 ))
cat > "summary-xcup-$width.json" <<JSON
{"width": $width, "qps": $((1 << qp_log)), "luts": $luts, "ffs": $ffs, "srl": $srl, "muxf": $muxf, "carry": $carry, "ramb36": $ramb36, "ramb18": $ramb18, "uram": $uram, "dsp": $dsp, "logic_depth": $depth, "path_luts": $path_luts, "path_muxf": $path_muxf, "path_carry": $path_carry, "path_from": "${path_from//\\/}", "path_to": "${path_to//\\/}", "levels": $levels, "levels_path": "$lv_lut/$lv_muxf/$lv_carry", "levels_from": "${lv_from//\\/}", "levels_to": "${lv_to//\\/}", "lut_budget": ${lut_budget[$width]}, "ff_budget": ${ff_budget[$width]}, "bram36_budget": ${bram_budget[$width]}, "seconds": $secs, "yosys": "$yosys_version"}
JSON
echo "| core | LUT | FF | SRL | MUXF7/8 | CARRY | RAMB36 | RAMB18 | URAM | DSP | logic depth | Yosys time |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
echo "| $width-bit, $((1 << qp_log)) QPs | $luts | $ffs | $srl | $muxf | $carry | $ramb36 | $ramb18 | $uram | $dsp | $depth | $secs s |"
echo "longest path: $depth cells ($path_luts LUT, $path_muxf MUXF7/F8, $path_carry CARRY), from ${path_from//\\/} to ${path_to//\\/}"
echo "logic levels (levels.py): $levels ($lv_lut LUT, $lv_muxf MUXF7/F8, $lv_carry CARRY4), from ${lv_from//\\/} to ${lv_to//\\/}"
fail=0
if (( ramb36 + ramb18 == 0 )); then echo "reports.sh: FAIL: no block RAM inferred (the receive buffer turned into flops?)"; fail=1; fi
# QP context table: 1,504 bits per QP as declared (roce/qp_table.rs), and the MR table as many entries of 160
# bits (roce/mr_table.rs). Yosys drops the bits no field uses, so at least half of that must be RAM (as flops
# it would be none of it).
table_kbit=$(( ((1504 + 160) << qp_log) / 1024 / 2 ))
ram_kbit=$(( ramb36 * 36 + ramb18 * 18 + uram * 288 ))
if (( ram_kbit < table_kbit )); then echo "reports.sh: FAIL: $ram_kbit Kbit of RAM inferred, under the $table_kbit the QP and MR tables need (turned into flops?)"; fail=1; fi
latches=$(grep -c "Latch inferred" "synth-xcup-$width.log" || true)
if (( latches > 0 )); then echo "reports.sh: FAIL: $latches latches inferred (a combinational output without a default)"; grep "Latch inferred" "synth-xcup-$width.log" | head -5; fail=1; fi
# Every flip-flop must be mapped to an UltraScale+ primitive; a generic cell left over means the flow broke.
if (( generic_ffs > 0 )); then echo "reports.sh: FAIL: $generic_ffs flip-flops left as generic Yosys cells (unmapped)"; fail=1; fi
if (( depth <= 0 || path_luts == 0 )); then echo "reports.sh: FAIL: no logic-depth figure from ltp (see ltp-xcup-$width.txt)"; fail=1; fi
if (( luts > lut_budget[$width] )); then echo "reports.sh: FAIL: $luts LUTs over the budget of ${lut_budget[$width]}"; fail=1; fi
if (( ffs > ff_budget[$width] )); then echo "reports.sh: FAIL: $ffs flip-flops over the budget of ${ff_budget[$width]}"; fail=1; fi
if (( bram36 > bram_budget[$width] )); then echo "reports.sh: FAIL: $bram36 RAMB36 (RAMB18 as half) over the budget of ${bram_budget[$width]}"; fail=1; fi
exit $fail
