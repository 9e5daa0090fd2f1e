#!/usr/bin/env bash
# Every board report that runs without Vivado, in one go:
#   reports.sh 64    UltraScale+ synthesis of the 64-bit core (8,192 QPs): resources, logic depth, budgets
#   reports.sh 512   the same for the 512-bit Alveo core (16,384 QPs)
#   ecp5-units.sh    synthesis, place and route of each unit of the 64-bit core on an ECP5-85F: Fmax floors
#   ecp5.sh          synthesis, place and route of the whole 64-bit core on an ECP5-85F: resources and Fmax
#   alveo/check      the Vivado flow for U250/U280/U55C checked under tclsh with stubs, wrapper elaboration
# Each prints its table; the summary goes to build/reports/summary.md. Exits non-zero if any part failed,
# after running all of them. Every tool here is single-threaded, so the parts run in three lanes at once, each
# part's output kept in build/reports/<part>.out and printed when all are done: xcup-64 (about 13 minutes
# alone); xcup-512 then alveo/check (about 18); the ECP5 units (synthesis about 7 minutes, place and route
# about 18 more) then, unless skipped, the whole ECP5 core (with YoWASP: synthesis 10 minutes or more,
# routing 45 or more). The seconds each part prints are wall time on a shared machine.
#
# The test job (scripts/test.sh) runs alveo/check beside its cargo tests (the units' timing proxy in the job
# is bitstream/depth.sh); `scripts/test.sh --full` runs everything.
#
# usage: bitstream/all.sh
# environment:
#   ROCENIC_ECP5_UNITS_PNR=0  synthesize the ECP5 units without placing and routing them (no Fmax floors)
#   ROCENIC_SKIP_ECP5_UNITS=1 leave the ECP5 units out (synthesis alone is about 17 CPU minutes)
#   ROCENIC_SKIP_ECP5=1       leave the whole-core ECP5 place and route out (an hour or more with YoWASP's
#                             WebAssembly nextpnr; docs/resources.md)
#   ROCENIC_SKIP_XCUP64=1, ROCENIC_SKIP_XCUP512=1  leave the 64-bit or the 512-bit UltraScale+ whole-core
#                             synthesis out (13 and about 16 CPU minutes)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$here/../build/reports
mkdir -p "$out"
# The emitters, built once for every part (emitter.sh); scripts/test.sh builds them before it starts this.
if [[ -z ${ROCENIC_BIN_DIR:-} ]]; then
    source "$here/emitter.sh"
    emit=$(emitter emit) && emitter emit-unit > /dev/null || { echo "all.sh: cannot build the emitters" >&2; exit 1; }
    export ROCENIC_BIN_DIR=${emit%/emit}
fi
skip_ecp5=${ROCENIC_SKIP_ECP5:-0}
units_cmd="ecp5-units.sh"
[[ ${ROCENIC_ECP5_UNITS_PNR:-1} == 0 ]] && units_cmd="ecp5-units.sh --synth-only"
# One lane: its parts one after the other, each writing <part>.out and <part>.status ("exit-status seconds").
lane() {
    local name cmd t0
    for name in "$@"; do
        read -r -a cmd <<< "${name%%=*}"
        name=${name#*=}
        t0=$SECONDS
        bash "$here/${cmd[0]}" "${cmd[@]:1}" > "$out/$name.out" 2>&1
        echo "$? $((SECONDS - t0))" > "$out/$name.status"
    done
}
parts=(xcup-512 alveo-check ecp5-units)
skip_units=${ROCENIC_SKIP_ECP5_UNITS:-0}
if [[ $skip_units == 1 && $skip_ecp5 != 1 ]]; then
    echo "all.sh: ROCENIC_SKIP_ECP5_UNITS=1 needs ROCENIC_SKIP_ECP5=1 (they share a lane)" >&2
    exit 2
fi
[[ $skip_units == 1 ]] && parts=(xcup-512 alveo-check)
rm -f "$out"/{xcup-64,xcup-512,alveo-check,ecp5-units,ecp5-64}.status
if [[ ${ROCENIC_SKIP_XCUP64:-0} != 1 ]]; then
    lane "reports.sh 64=xcup-64" &
    parts=(xcup-64 "${parts[@]}")
fi
if [[ ${ROCENIC_SKIP_XCUP512:-0} != 1 ]]; then
    lane "reports.sh 512=xcup-512" "alveo/check/check.sh=alveo-check" &
else
    kept=()
    for name in "${parts[@]}"; do [[ $name == xcup-512 ]] || kept+=("$name"); done
    parts=("${kept[@]}")
    lane "alveo/check/check.sh=alveo-check" &
fi
if [[ $skip_units != 1 && $skip_ecp5 == 1 ]]; then
    lane "$units_cmd=ecp5-units" &
elif [[ $skip_units != 1 ]]; then
    lane "$units_cmd=ecp5-units" "ecp5.sh=ecp5-64" &
    parts+=(ecp5-64)
fi
wait
# One "  PASS"/"  FAIL" line per part (scripts/test.sh counts them), after the part's own output.
failed=()
for name in "${parts[@]}"; do
    echo "== $name"
    cat "$out/$name.out"
    st=1 secs=0
    [[ -f $out/$name.status ]] && read -r st secs < "$out/$name.status"
    if [[ $st -eq 0 ]]; then
        echo "  PASS $name ($secs s)"
    else
        echo "  FAIL $name ($secs s)"
        failed+=("$name")
    fi
done
if [[ ${ROCENIC_SKIP_XCUP64:-0} == 1 ]]; then
    echo "== xcup-64: skipped (ROCENIC_SKIP_XCUP64=1)" | tee "$out/xcup-64.out"
fi
if [[ ${ROCENIC_SKIP_XCUP512:-0} == 1 ]]; then
    echo "== xcup-512: skipped (ROCENIC_SKIP_XCUP512=1)" | tee "$out/xcup-512.out"
fi
if [[ $skip_units == 1 ]]; then
    echo "== ecp5-units: skipped (ROCENIC_SKIP_ECP5_UNITS=1)" | tee "$out/ecp5-units.out"
fi
if [[ $skip_ecp5 == 1 ]]; then
    echo "== ecp5-64: skipped (ROCENIC_SKIP_ECP5=1)" | tee "$out/ecp5-64.out"
fi
{
    echo "# Board reports ($(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown), $(date -u +%F))"
    echo
    for name in xcup-64 xcup-512 ecp5-units ecp5-64; do
        if [[ $name == ecp5-units && $skip_units == 1 ]]; then
            echo "$name: skipped (ROCENIC_SKIP_ECP5_UNITS=1)"
        elif [[ $name == ecp5-64 && $skip_ecp5 == 1 ]]; then
            echo "$name: skipped (ROCENIC_SKIP_ECP5=1)"
        elif [[ $name == xcup-64 && ${ROCENIC_SKIP_XCUP64:-0} == 1 ]]; then
            echo "$name: skipped (ROCENIC_SKIP_XCUP64=1)"
        elif [[ $name == xcup-512 && ${ROCENIC_SKIP_XCUP512:-0} == 1 ]]; then
            echo "$name: skipped (ROCENIC_SKIP_XCUP512=1)"
        else
            grep -E '^(\||longest path)' "$out/$name.out" || echo "$name: no table (failed before it)"
        fi
        echo
    done
    echo "failed: ${failed[*]:-none}"
} > "$out/summary.md"
cat "$out/summary.md"
[[ ${#failed[@]} -eq 0 ]]
