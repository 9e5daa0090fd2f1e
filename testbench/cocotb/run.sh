#!/usr/bin/env bash
# Runs every cocotb bench (testbench/cocotb/*/test_*.py) on Icarus Verilog through pytest and prints one
# line per test: "  PASS <name>", "  FAIL <name>", or "  XFAIL <name>" for a documented RTL bug whose
# test is expected to fail (see README.md, Findings). Exits non-zero on any FAIL.
#   testbench/cocotb/run.sh            all benches
#   testbench/cocotb/run.sh -k pfc     extra pytest arguments
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="$repo/out/venv-cocotb"
cd "$repo"

if ! command -v iverilog >/dev/null || ! command -v vvp >/dev/null; then
    echo "error: iverilog not found (scripts/setup.sh installs it: apt-get install iverilog)" >&2
    exit 2
fi
# A venv of our own: Debian 12's system Python is externally managed. Reinstall only when the pins change.
if [[ ! -x "$venv/bin/python" ]]; then
    echo "cocotb: creating $venv"
    python3 -m venv "$venv"
fi
if ! cmp -s "$here/requirements.txt" "$venv/.rocenic-requirements" 2>/dev/null; then
    echo "cocotb: installing $(tr '\n' ' ' < "$here/requirements.txt")"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt"
    cp "$here/requirements.txt" "$venv/.rocenic-requirements"
fi
# Build emit-unit once up front, so the first test does not pay for it (the test job has built it and
# says where: ROCENIC_BIN_DIR).
if [[ -z ${ROCENIC_BIN_DIR:-} ]]; then
    cargo build --release -q --bin emit-unit
fi

mkdir -p out/cocotb
junit="out/cocotb/junit.xml"
rm -f "$junit"
start=$(date +%s)
set +e
"$venv/bin/python" -m pytest "$here" -q -p no:cacheprovider --junitxml="$junit" "$@" > out/cocotb/pytest.log 2>&1
status=$?
set -e
"$venv/bin/python" - "$junit" <<'PY'
import sys
import xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except (OSError, ET.ParseError):
    print("  FAIL cocotb benches (pytest wrote no report: see out/cocotb/pytest.log)")
    sys.exit(0)
for case in root.iter("testcase"):
    name = case.get("name", "").replace("test_cocotb[", "").rstrip("]")
    skipped = case.find("skipped")
    if skipped is not None and skipped.get("type") == "pytest.xfail":
        print(f"  XFAIL {name}  (known RTL bug)")
    elif skipped is not None:
        print(f"  SKIP {name}")
    elif case.find("failure") is not None or case.find("error") is not None:
        print(f"  FAIL {name}")
    else:
        print(f"  PASS {name}")
PY
tail -1 out/cocotb/pytest.log
echo "cocotb benches: $(( $(date +%s) - start )) s (log: out/cocotb/pytest.log, per-test logs: out/cocotb/<bench>-<width>/runs/)"
if [[ $status -ne 0 ]]; then
    grep -E "^(FAILED|ERROR)" out/cocotb/pytest.log | head -20 >&2 || true
fi
exit $status
