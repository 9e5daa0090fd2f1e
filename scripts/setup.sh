#!/usr/bin/env bash
# Installs what rocenic needs on Debian 12 when it is missing, and says what it installs.
# Rust comes with the machine; Verilator builds the co-simulation model; tshark decodes the demo's pcap.
set -euo pipefail
need=()
command -v verilator >/dev/null || need+=(verilator)
command -v tshark >/dev/null || need+=(tshark)
command -v iverilog >/dev/null || need+=(iverilog)
# rust-hdl's `synthesizes` tests and bitstream/reports.sh run `yosys` from PATH (Debian's 0.23).
command -v yosys >/dev/null || need+=(yosys)
# bitstream/alveo/check/check.sh runs the Vivado flow script under plain Tcl with stubbed commands.
command -v tclsh >/dev/null || need+=(tcl)
command -v g++ >/dev/null || need+=(g++)
command -v python3 >/dev/null || need+=(python3)
# bitstream/ecp5.sh makes a venv for YoWASP nextpnr-ecp5; Debian ships ensurepip separately.
python3 -c 'import ensurepip' 2>/dev/null || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing with apt-get: ${need[*]}"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
# The test job formats with rustfmt and builds through clippy's driver: rustup's default profile has
# both, a minimal one neither.
if command -v rustup >/dev/null; then
  missing=()
  rustup which rustfmt >/dev/null 2>&1 || missing+=(rustfmt)
  rustup which clippy-driver >/dev/null 2>&1 || missing+=(clippy)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing with rustup: ${missing[*]}"
    rustup component add "${missing[@]}"
  fi
fi
verilator --version
