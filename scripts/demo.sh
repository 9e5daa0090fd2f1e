#!/usr/bin/env bash
# The main job: two co-simulated NICs, RC QPs connected, a 1 MiB RDMA WRITE and a SEND from A to B,
# B's memory checked, completions polled, every frame in a pcap. Extra arguments go to the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo run --release -q -p rocenic-tools --bin rocenic -- demo "$@"
