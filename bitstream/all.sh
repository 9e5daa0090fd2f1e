#!/usr/bin/env bash
# Every board report that runs without Vivado, in one go (the test job runs this, the whole-core ECP5 run
# left out):
#   reports.sh 64    UltraScale+ synthesis of the 64-bit core (8,192 QPs): resources, logic depth, budgets
#   reports.sh 512   the same for the 512-bit Alveo core (16,384 QPs)
#   ecp5-units.sh    synthesis, place and route of each unit of the 64-bit core on an ECP5-85F: Fmax floors
#   ecp5.sh          synthesis, place and route of the whole 64-bit core on an ECP5-85F: resources and Fmax
#   alveo/check      the Vivado flow for U250/U280/U55C checked under tclsh with stubs, wrapper elaboration
# Each prints its table; the summary goes to build/reports/summary.md. Exits non-zero if any part failed,
# after running all of them. Every tool here is single-threaded, so the ECP5 parts (units about 16 minutes;
# the whole core with YoWASP: synthesis 10 minutes or more, routing 45 or more) go on the second core, one
# after the other, while the others run on the first (about 28 minutes).
#
# usage: bitstream/all.sh
# environment: ROCENIC_SKIP_ECP5=1 leaves the whole-core ECP5 place and route out, not the units (the test
# job sets it: the whole core takes an hour or more with YoWASP's WebAssembly nextpnr, too long for CI's
# budget; docs/resources.md).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$here/../build/reports
mkdir -p "$out"
failed=()
# One "  PASS"/"  FAIL" line per part (scripts/test.sh counts them).
verdict() {
    local name=$1 status=$2 t0=$3
    if [[ $status -eq 0 ]]; then
        echo "  PASS $name ($((SECONDS - t0)) s)"
    else
        echo "  FAIL $name ($((SECONDS - t0)) s)"
        failed+=("$name")
    fi
}
part() {
    local name=$1
    shift
    echo "== $name"
    local t0=$SECONDS
    "$@" 2>&1 | tee "$out/$name.out"
    verdict "$name" "${PIPESTATUS[0]}" "$t0"
}
# Build the emitters once up front so that the parallel runs do not race on cargo's build lock.
(cd "$here/.." && cargo build --release -q -p rocenic-hdl --bin emit --bin emit-unit) \
    || { echo "all.sh: cannot build the emitters" >&2; exit 1; }
skip_ecp5=${ROCENIC_SKIP_ECP5:-0}
rm -f "$out/ecp5-units.status" "$out/ecp5-64.status"
# The second core: the ECP5 units, then (unless skipped) the whole core. Each writes its output, then its
# exit status and seconds, for the verdicts below.
(
    t0=$SECONDS
    bash "$here/ecp5-units.sh" > "$out/ecp5-units.out" 2>&1
    echo "$? $((SECONDS - t0))" > "$out/ecp5-units.status"
    if [[ $skip_ecp5 != 1 ]]; then
        t0=$SECONDS
        bash "$here/ecp5.sh" > "$out/ecp5-64.out" 2>&1
        echo "$? $((SECONDS - t0))" > "$out/ecp5-64.status"
    fi
) &
second=$!
part xcup-64 bash "$here/reports.sh" 64
part xcup-512 bash "$here/reports.sh" 512
part alveo-check bash "$here/alveo/check/check.sh"
echo "== ECP5 parts (ran on the second core; waiting for them)"
wait "$second"
# One ECP5 part's output and verdict, from the status file the second core wrote.
ecp5_verdict() {
    local name=$1
    echo "== $name"
    cat "$out/$name.out"
    local st=1 secs=0
    [[ -f $out/$name.status ]] && read -r st secs < "$out/$name.status"
    verdict "$name" "$st" "$((SECONDS - secs))"
}
ecp5_verdict ecp5-units
if [[ $skip_ecp5 == 1 ]]; then
    echo "== ecp5-64: skipped (ROCENIC_SKIP_ECP5=1)" | tee "$out/ecp5-64.out"
else
    ecp5_verdict ecp5-64
fi
{
    echo "# Board reports ($(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown), $(date -u +%F))"
    echo
    for name in xcup-64 xcup-512 ecp5-units ecp5-64; do
        if [[ $name == ecp5-64 && $skip_ecp5 == 1 ]]; then
            echo "$name: skipped (ROCENIC_SKIP_ECP5=1)"
        else
            grep -E '^(\||longest path)' "$out/$name.out" || echo "$name: no table (failed before it)"
        fi
        echo
    done
    echo "failed: ${failed[*]:-none}"
} > "$out/summary.md"
cat "$out/summary.md"
[[ ${#failed[@]} -eq 0 ]]
