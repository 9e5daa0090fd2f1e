#!/usr/bin/env bash
# The test job: unit tests, rust-hdl block simulations, Verilated behaviour tests, the Verilator lint gate,
# an independent check of demo captures (ICRC by zlib, decoding by tshark), including one with a
# corrupted frame the NICs must recover from, and interop with Linux Soft-RoCE (rdma_rxe) in QEMU:
# `rocenic rc-pingpong` against an unmodified `ibv_rc_pingpong` and `rocenic write-bw`/`read-bw` against
# perftest's `ib_write_bw`/`ib_read_bw`, in both roles, and the VFIO layer against QEMU's edu device behind
# an emulated IOMMU. Set ROCENIC_SKIP_INTEROP=1 to leave the QEMU parts out locally (CI never does), and
# ROCENIC_SKIP_SYNTH=1 to leave out the Yosys synthesis report (bitstream/reports.sh). Ends with one
# summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
mkdir -p out
demo() { cargo run --release -q -p rocenic-driver --bin rocenic -- demo "$@"; }
echo "== demo captures, checked independently"
demo --width 64 --write-bytes 65536 --mtu 1024 --pcap out/test-64.pcap
python3 testbench/check_pcap.py --tshark out/test-64.pcap
demo --width 512 --write-bytes 65536 --pcap out/test-512.pcap
python3 testbench/check_pcap.py --tshark out/test-512.pcap
demo --width 64 --write-bytes 65536 --mtu 1024 --flip-bit 3:900 --pcap out/test-flip.pcap
python3 testbench/check_pcap.py --tshark --allow-bad 1 out/test-flip.pcap
echo "== cargo test"
log=out/cargo-test.log
set +e
cargo test --release --workspace 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
# One closing line for the whole run: cargo prints one summary per test binary, the last often a doc-test
# binary with nothing in it.
passed=$(grep -o '[0-9]* passed' "$log" | awk '{s+=$1} END {print s+0}')
failed=$(grep -o '[0-9]* failed' "$log" | awk '{s+=$1} END {print s+0}')
echo "== conformance cases (scripted peer, checked on the wire)"
set +e
cargo run --release -q -p rocenic-driver --bin rocenic -- conformance --out out/conformance 2>&1 | tee out/conformance.log
conf_status=${PIPESTATUS[0]}
set -e
passed=$((passed + $(grep -c '^  PASS' out/conformance.log || true)))
failed=$((failed + $(grep -c '^  FAIL' out/conformance.log || true)))
if [[ $conf_status -ne 0 ]] && ! grep -q '^  FAIL' out/conformance.log; then failed=$((failed + 1)); fi
# Every frame of every case, checked independently (the ICRC case carries one bad ICRC on purpose, the
# truncated-frame case two frames cut short on purpose; the ARP case has no RoCE frame).
for f in out/conformance/*.pcap; do
    case "$(basename "$f" .pcap)" in
        arp_request_answered) continue ;;
        icrc_error_dropped) allow=(--allow-bad 1) ;;
        roce_truncated_dropped) allow=(--allow-short 2) ;;
        *) allow=() ;;
    esac
    if python3 testbench/check_pcap.py --tshark "${allow[@]}" "$f" > out/conformance-pcap.log 2>&1; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "  FAIL pcap check of $f:"; tail -3 out/conformance-pcap.log
    fi
done
echo "== conformance cases as files (scenario + input pcap, replayed; testbench/conformance/cases)"
set +e
cargo run --release -q -p rocenic-driver --bin rocenic -- conformance replay --out out/replay 2>&1 | tee out/replay.log
replay_status=${PIPESTATUS[0]}
set -e
passed=$((passed + $(grep -c '^  PASS' out/replay.log || true)))
failed=$((failed + $(grep -c '^  FAIL' out/replay.log || true)))
if [[ $replay_status -ne 0 ]] && ! grep -q '^  FAIL' out/replay.log; then failed=$((failed + 1)); fi
# The cases imported from captures, checked independently as well.
for f in out/replay/capture_*.pcap; do
    if python3 testbench/check_pcap.py --tshark "$f" > out/replay-pcap.log 2>&1; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "  FAIL pcap check of $f:"; tail -3 out/replay-pcap.log
    fi
done
echo "== cocotb benches per hardware unit on Icarus (testbench/cocotb/run.sh)"
set +e
bash testbench/cocotb/run.sh 2>&1 | tee out/cocotb.log
cocotb_status=${PIPESTATUS[0]}
set -e
passed=$((passed + $(grep -c '^  PASS' out/cocotb.log || true)))
failed=$((failed + $(grep -c '^  FAIL' out/cocotb.log || true)))
if [[ $cocotb_status -ne 0 ]] && ! grep -q '^  FAIL' out/cocotb.log; then failed=$((failed + 1)); fi

interop_status=0
if [[ "${ROCENIC_SKIP_INTEROP:-0}" == 1 ]]; then
    echo "== interop: skipped (ROCENIC_SKIP_INTEROP=1)"
else
    echo "== interop with rdma_rxe in QEMU"
    set +e
    bash testbench/interop/rc-pingpong.sh 2>&1 | tee out/interop.log
    interop_status=${PIPESTATUS[0]}
    set -e
    passed=$((passed + $(grep -c '^  PASS' out/interop.log || true)))
    failed=$((failed + $(grep -c '^  FAIL' out/interop.log || true)))
    # A harness that failed before running any case must still fail the run.
    if [[ $interop_status -ne 0 ]] && ! grep -q '^  FAIL' out/interop.log; then failed=$((failed + 1)); fi
    echo "== interop with perftest on rdma_rxe: rocenic write-bw / read-bw against ib_write_bw / ib_read_bw"
    set +e
    bash testbench/interop/perftest.sh 2>&1 | tee out/interop-perftest.log
    perftest_status=${PIPESTATUS[0]}
    set -e
    passed=$((passed + $(grep -c '^  PASS' out/interop-perftest.log || true)))
    failed=$((failed + $(grep -c '^  FAIL' out/interop-perftest.log || true)))
    if [[ $perftest_status -ne 0 ]] && ! grep -q '^  FAIL' out/interop-perftest.log; then failed=$((failed + 1)); fi
    # The driver's VFIO layer against the kernel's VFIO: QEMU's edu device behind an emulated IOMMU.
    echo "== VFIO: the driver's VFIO layer with QEMU's edu device (testbench/vfio/edu-test.sh)"
    set +e
    bash testbench/vfio/edu-test.sh 2>&1 | tee out/vfio.log
    vfio_status=${PIPESTATUS[0]}
    set -e
    passed=$((passed + $(grep -c '^  PASS' out/vfio.log || true)))
    failed=$((failed + $(grep -c '^  FAIL' out/vfio.log || true)))
    if [[ $vfio_status -ne 0 ]] && ! grep -q '^  FAIL' out/vfio.log; then failed=$((failed + 1)); fi
fi
# The Alveo Vivado flow, checked without Vivado: flow.tcl under tclsh with stubbed commands for every
# board, iverilog elaboration and a short simulation of the wrapper, the generated board.xdc files.
echo "== Alveo flow checks (bitstream/alveo/check/check.sh)"
set +e
bash bitstream/alveo/check/check.sh 2>&1 | tee out/alveo.log
alveo_status=${PIPESTATUS[0]}
set -e
if [[ $alveo_status -eq 0 ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "  FAIL Alveo flow checks"; fi
synth_status=0
if [[ "${ROCENIC_SKIP_SYNTH:-0}" == 1 ]]; then
    echo "== synthesis report: skipped (ROCENIC_SKIP_SYNTH=1)"
else
    # The core must keep synthesizing for UltraScale+, with its receive buffer in block RAM and within the
    # LUT budget (bitstream/reports.sh; about ten minutes on two cores).
    echo "== synthesis report (YoWASP Yosys, synth_xilinx -family xcup, 64-bit core)"
    set +e
    bash bitstream/reports.sh 64 2>&1 | tee out/synth.log
    synth_status=${PIPESTATUS[0]}
    set -e
    if [[ $synth_status -eq 0 ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "  FAIL synthesis report"; fi
fi
echo "tests: $passed passed, $failed failed"
[[ $status -eq 0 && $interop_status -eq 0 && $failed -eq 0 ]]
