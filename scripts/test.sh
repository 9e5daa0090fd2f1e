#!/usr/bin/env bash
# The test job: unit tests, Verilated behaviour tests, Verilator lint, and an independent check of the
# demo's pcap (ICRC by zlib, decoding by tshark). Ends with cargo's own summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
mkdir -p out
cargo run --release -q -p rocenic-driver --bin rocenic -- demo --width 64 --write-bytes 65536 --pcap out/test-demo.pcap
python3 testbench/check_pcap.py --tshark out/test-demo.pcap
cargo test --release --workspace 2>&1
