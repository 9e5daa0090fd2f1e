#!/usr/bin/env bash
# The timing rule, checked per unit: the logic levels of every hardware unit at 512 bits, from the
# UltraScale+ flow of unit.sh (synth_xilinx -family xcup, LUT6 mapping), against its ceiling in
# bitstream/depth.tsv. Levels are counted by levels.py on the mapped netlist as Vivado counts them: a LUT,
# a MUXF7/F8 and a CARRY8 one level each (Yosys 0.23 maps carry chains to CARRY4 cells, half a CARRY8
# each); flip-flops, block RAMs and the unit's ports start and end a path. Yosys's `ltp` count (every cell
# one, a CARRY4 too) is shown beside it. The rule is 6 levels (a LUT level with its routing costs about
# 0.5 ns on UltraScale+, so 6 fit in 4 ns at 250 MHz). A unit not yet pipelined to 6 keeps the ceiling
# of its best recorded figure instead, so no unit can get deeper; a new unit must meet 6.
#
# depth.tsv also records each unit's figures with the hash of its emitted Verilog and of the flow
# (xcup-flow.sh, levels.py and the Yosys version). A unit whose Verilog and flow are unchanged is not
# synthesized again (the figures are the same run's); a changed one is, and then the recorded table is out
# of date: that fails until `bitstream/depth.sh --update` rewrites it (lowering ceilings a unit now
# beats, never raising one). Synthesizing all of them takes about 12 minutes on one core, most in
# tx_engine, rx_engine and qp_table.
#
# usage: bitstream/depth.sh [--update | --adopt] [UNIT...]   (UNIT: one of `emit-unit`'s; default all)
#   --update  rewrite depth.tsv from this run; a unit without a row must meet the rule
#   --adopt   the same, but a unit without a row starts at the ceiling of its depth today (for a unit
#             brought in from elsewhere, not pipelined yet)
# Prints a table, then one "  PASS depth UNIT" / "  FAIL depth UNIT ..." line per unit.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
table=$root/bitstream/depth.tsv
out=$root/build/reports/depth
rule=6
width=512
update=0
adopt=0
units=()
for a in "$@"; do
    case "$a" in
        --update) update=1 ;;
        --adopt) update=1 adopt=1 ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) echo "depth.sh: unknown option $a (--update, --adopt, --help)" >&2; exit 2 ;;
        *) units+=("$a") ;;
    esac
done
command -v yosys > /dev/null || { echo "depth.sh: yosys missing: run scripts/setup.sh" >&2; exit 2; }
mkdir -p "$out"
source "$root/bitstream/emitter.sh"
emit_unit=$(emitter emit-unit)
if [[ ${#units[@]} -eq 0 ]]; then
    # Every unit emit-unit knows but the whole core.
    mapfile -t units < <("$emit_unit" --list | grep -vx nic)
fi
source "$root/bitstream/xcup-flow.sh"
python3 "$root/bitstream/levels.py" --self-test
flow_id=$( (cat "$root/bitstream/xcup-flow.sh" "$root/bitstream/levels.py"; yosys -V) | sha256sum | cut -c1-16)
# The recorded rows: unit, Verilog hash, flow hash, depth, ceiling, LUTs, path LUT/MUXF/CARRY, from, to.
declare -A row
if [[ -f $table ]]; then
    while IFS=$'\t' read -r u rest; do
        [[ $u == unit || $u == \#* ]] && continue
        row[$u]=$rest
    done < "$table"
fi
fail=0
verdicts=()
declare -A new_row
printf '| unit | levels | ceiling | ltp cells | LUT | path: LUT / MUXF / CARRY4 | from | to | |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for u in "${units[@]}"; do
    v=$out/$u$width.v
    "$emit_unit" "$u" "$width" "$v"
    vh=$(sha256sum < "$v" | cut -c1-16)
    old=${row[$u]:-}
    ceiling=$rule
    if [[ -z $old && $adopt == 1 ]]; then ceiling=999; fi
    if [[ -n $old ]]; then
        IFS=$'\t' read -r ovh ofl odepth oceil ocells oluts opath ofrom oto <<< "$old"
        ceiling=$oceil
    fi
    if [[ -n $old && $ovh == "$vh" && $ofl == "$flow_id" ]]; then
        depth=$odepth cells=$ocells luts=$oluts path=$opath from=$ofrom to=$oto how="recorded"
    else
        t0=$SECONDS
        (
            cd "$out"
            flow=$(xcup_flow "$u$width" "$u$width.json")
            yosys -q -l "synth-$u$width.log" -p "read_verilog $u$width.v; ${flow//$'\n'/; }" > /dev/null \
                2> >(grep -v "Resizing cell port" >&2)
        )
        ltp=$out/ltp-xcup-$u$width.txt
        stat=$out/stat-xcup-$u$width.txt
        cells=$(sed -n 's/.*Longest topological path in .* (length=\([0-9]*\)).*/\1/p' "$ltp" | head -1)
        luts=$(awk '$1 ~ /^LUT[1-6]$/ {n += $2} END {print n + 0}' "$stat")
        read -r depth p_lut p_muxf p_carry from to < <(python3 "$root/bitstream/levels.py" "$out/$u$width.json")
        path="$p_lut/$p_muxf/$p_carry"
        how="synthesized, $((SECONDS - t0)) s"
        [[ -n $depth && -n $cells ]] || { verdicts+=("  FAIL depth $u: no figure ($out)"); fail=1; continue; }
    fi
    # A ceiling only comes down: to the depth reached, never below the rule.
    nceil=$ceiling
    if ((depth < nceil)); then nceil=$((depth > rule ? depth : rule)); fi
    printf '| %s | %s | %s | %s | %s | %s | `%s` | `%s` | %s |\n' "$u" "$depth" "$((update ? nceil : ceiling))" \
        "$cells" "$luts" "$path" "$from" "$to" "$how"
    new_row[$u]=$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s' "$vh" "$flow_id" "$depth" "$nceil" "$cells" \
        "$luts" "$path" "$from" "$to")
    if ((depth > ceiling)); then
        verdicts+=("  FAIL depth $u: $depth levels, over its ceiling of $ceiling (the rule: $rule)")
        fail=1
    elif [[ $how != recorded && $update == 0 ]]; then
        verdicts+=("  FAIL depth $u: changed since bitstream/depth.tsv was written ($depth levels, ceiling $ceiling): run bitstream/depth.sh --update and commit the table")
        fail=1
    else
        verdicts+=("  PASS depth $u ($depth levels, ceiling $((update ? nceil : ceiling)))")
    fi
done
printf '%s\n' "${verdicts[@]}"
if [[ $update == 1 ]]; then
    # Rows of units not run this time stay as they were.
    for u in "${units[@]}"; do row[$u]=${new_row[$u]:-${row[$u]:-}}; done
    {
        printf 'unit\tverilog\tflow\tlevels\tceiling\tltp_cells\tluts\tpath_lut_muxf_carry4\tfrom\tto\n'
        for u in $(printf '%s\n' "${!row[@]}" | sort); do
            [[ -n ${row[$u]} ]] && printf '%s\t%s\n' "$u" "${row[$u]}"
        done
    } > "$table"
    echo "depth.sh: wrote $table"
fi
exit $fail
