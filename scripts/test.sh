#!/usr/bin/env bash
# The test job: formatting and clippy, unit tests, rust-hdl block simulations, Verilated behaviour tests
# (the RC matrix, stress over a faulty link, DCQCN through a switch), the Verilator lint gate, independent
# checks of demo captures (ICRC by zlib, decoding by tshark, one with a corrupted frame the NICs must
# recover from), the conformance cases (scripted, and replayed from files and captures), the cocotb benches
# on Icarus, interop with Linux Soft-RoCE (rdma_rxe) in QEMU (`rocenic rc-pingpong` against an unmodified
# `ibv_rc_pingpong`, `rocenic write-bw`/`read-bw`/`send-bw`/`write-lat`/`atomic-bw` against perftest, one
# case per tool in each role), the VFIO layer against QEMU's edu device behind an emulated IOMMU, the
# board reports (bitstream/all.sh: the Alveo flow checks), and the timing rule's
# logic levels of every unit at 512 bits (bitstream/depth.sh against bitstream/depth.tsv). Each stage
# header carries the job's elapsed time. Set ROCENIC_SKIP_INTEROP=1 to leave the QEMU parts out locally
# (CI never does), and ROCENIC_SKIP_SYNTH=1 to leave out synthesis. Ends with one summary line.
#
# `scripts/test.sh --full` adds what is long and changes rarely: the ECP5 synthesis, place and route of
# every unit (block RAM inferred, Fmax floors), the UltraScale+ synthesis of both whole cores, the whole 64-bit core's ECP5 place and
# route (hours with YoWASP), the cargo tests marked #[ignore] for length (the 64 MiB WRITE and READ at
# both widths, 4,096 QPs at once, the 64-bit matrix at path MTUs 512, 2048 and 4096, two DCQCN flows
# through a marking switch), every interop size and variant (rc-pingpong's six sizes and its lossy, IPv6
# and VLAN roles; perftest at MTU 1024 and 4096, 64 KiB and 64 bytes), the cocotb benches' exhaustive
# variants (every first and last lane pair of the ICRC pipe at 512 bits), and the 10^6-message stress soak
# under link faults and pause storms (docs/robustness.md).
set -euo pipefail
cd "$(dirname "$0")/.."
full=0
for a in "$@"; do
    case "$a" in
        --full) full=1 ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "scripts/test.sh: unknown option $a (--full, --help)" >&2; exit 2 ;;
    esac
done
scripts/setup.sh
mkdir -p out
# Stage headers carry the job's elapsed time, so a log shows where the minutes go.
hdr() { printf '== %s [%d:%02d]\n' "$1" $((SECONDS / 60)) $((SECONDS % 60)); }
# Every cargo command of the job compiles the workspace's crates through clippy's driver, so one build
# both compiles and lints every target (libraries, binaries, unit and integration tests, build scripts)
# instead of a second, check-only compile of the whole workspace and its dependencies for `cargo clippy`.
# Cargo hashes the wrapper into these artifacts: they sit beside a plain build's and never replace them.
# ROCENIC_BUILD_MODEL tells the sim crate's build script that this build links (under `cargo clippy`,
# which only checks, it leaves the Verilated model out).
clippy_driver=$(rustup which clippy-driver 2> /dev/null || command -v clippy-driver) || {
    echo "scripts/test.sh: clippy-driver not found (rustup component add clippy)" >&2
    exit 1
}
export RUSTC_WORKSPACE_WRAPPER=$clippy_driver ROCENIC_BUILD_MODEL=1
hdr "formatting (cargo fmt --check)"
cargo fmt --check
hdr "build of every target, linted by clippy (a warning fails the clippy check below)"
set +e
# --timings: target/cargo-timings/cargo-timing.html shows which crate or build script holds the build up.
cargo test --release --workspace --no-run --timings 2>&1 | tee out/build.log
build_status=${PIPESTATUS[0]}
set -e
if [[ $build_status -ne 0 ]]; then
    echo "tests: 0 passed, 1 failed (the build failed: out/build.log)"
    exit 1
fi
# Cargo closes each target that had diagnostics with "`crate` (target) generated N warnings" (replayed
# from its cache for a target that was already built).
lint_line='^warning: `[^`]+` \(.*\) generated [0-9]+ warnings?'
lint_warnings=$(grep -cE "$lint_line" out/build.log || true)
rocenic=target/release/rocenic
demo() { "$rocenic" demo "$@"; }
hdr "demo captures, checked independently"
demo --width 64 --write-bytes 65536 --mtu 1024 --pcap out/test-64.pcap
python3 testbench/check_pcap.py --tshark out/test-64.pcap
demo --width 512 --write-bytes 65536 --pcap out/test-512.pcap
python3 testbench/check_pcap.py --tshark out/test-512.pcap
demo --width 64 --write-bytes 65536 --mtu 1024 --vlan 100 --pcap out/test-vlan.pcap
python3 testbench/check_pcap.py --tshark --vlan 100 out/test-vlan.pcap
demo --width 512 --write-bytes 65536 --mtu 1024 --ipv6 --pcap out/test-ipv6.pcap
python3 testbench/check_pcap.py --tshark --ipv6 out/test-ipv6.pcap
demo --width 64 --write-bytes 65536 --mtu 1024 --flip-bit 3:900 --pcap out/test-flip.pcap
python3 testbench/check_pcap.py --tshark --allow-bad 1 out/test-flip.pcap
# A stage whose output has one "  PASS ..." / "  FAIL ..." line per check: count them; a stage that exits
# non-zero without a FAIL line (it broke before its checks) counts as one failure.
stage() {
    local log=$1
    shift
    set +e
    "$@" 2>&1 | tee "$log"
    local st=${PIPESTATUS[0]}
    set -e
    passed=$((passed + $(grep -c '^  PASS' "$log" || true)))
    failed=$((failed + $(grep -c '^  FAIL' "$log" || true)))
    if [[ $st -ne 0 ]] && ! grep -q '^  FAIL' "$log"; then failed=$((failed + 1)); fi
}
# A whole step that passes or fails as one check.
step() {
    local name=$1 log=$2
    shift 2
    set +e
    "$@" 2>&1 | tee "$log"
    local st=${PIPESTATUS[0]}
    set -e
    if [[ $st -eq 0 ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "  FAIL $name"; fi
}
# One capture checked independently (testbench/check_pcap.py: ICRC by zlib, tshark decode).
pcap_check() {
    local log=$1
    shift
    if python3 testbench/check_pcap.py --tshark "$@" > "$log" 2>&1; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "  FAIL pcap check of ${*: -1}:"; tail -3 "$log"
    fi
}

# The board reports (bitstream/all.sh): the Alveo Vivado flow checked without Vivado (flow.tcl under tclsh
# with stubbed commands for every board, iverilog elaboration and a short simulation of the wrapper, the
# generated board.xdc files); with --full also the ECP5 synthesis, place and route of each of the 64-bit
# core's units (resources, block RAM inferred, Fmax floors; 17 CPU minutes for synthesis alone), the UltraScale+
# synthesis of both whole cores (block-RAM, latch and budget checks, logic depth) and the whole 64-bit
# core's ECP5 place and route (hours with YoWASP's WebAssembly nextpnr; docs/resources.md). The reports,
# the cocotb benches and the conformance cases are single-threaded: they start here, in the background,
# and run beside the cargo tests (whose test threads leave a core idle whenever one long test is all that
# is left); their output is printed after the cargo tests, before interop (whose QEMU guests and
# co-simulation want both cores). They take the binaries built above and run no cargo.
source bitstream/emitter.sh
emit=$(emitter emit)
emitter emit-unit > /dev/null
bin_dir=${emit%/emit}
if [[ "${ROCENIC_SKIP_SYNTH:-0}" != 1 ]]; then
    hdr "board reports: started in the background (bitstream/all.sh; place and route, whole cores with --full)"
    (
        set +e
        if [[ $full == 1 ]]; then
            skip=(ROCENIC_SKIP_ECP5=0 ROCENIC_SKIP_XCUP64=0 ROCENIC_SKIP_XCUP512=0 ROCENIC_ECP5_UNITS_PNR=1
                ROCENIC_SKIP_ECP5_UNITS=0)
        else
            skip=(ROCENIC_SKIP_ECP5=1 ROCENIC_SKIP_XCUP64=1 ROCENIC_SKIP_XCUP512=1 ROCENIC_SKIP_ECP5_UNITS=1)
        fi
        env "${skip[@]}" ROCENIC_BIN_DIR="$bin_dir" \
            bash bitstream/all.sh > out/board-reports.out 2>&1
        echo $? > out/board-reports.status
    ) &
    board_pid=$!
fi

if [[ "${ROCENIC_SKIP_SYNTH:-0}" != 1 ]]; then
    # Seconds when depth.tsv is current (only a unit whose emitted Verilog changed is synthesized again,
    # and then the table must be updated).
    hdr "logic levels per unit at 512 bits (bitstream/depth.sh, the timing rule): started in the background"
    (
        set +e
        ROCENIC_BIN_DIR="$bin_dir" bash bitstream/depth.sh > out/depth.out 2>&1
        echo $? > out/depth.status
    ) &
    depth_pid=$!
fi

hdr "cocotb benches per hardware unit on Icarus: started in the background (testbench/cocotb/run.sh)"
(
    set +e
    # --full: the benches' exhaustive variants (ROCENIC_COCOTB_FULL; the ICRC pipe's every run shape).
    ROCENIC_COCOTB_FULL=$full ROCENIC_BIN_DIR="$bin_dir" bash testbench/cocotb/run.sh > out/cocotb.out 2>&1
    echo $? > out/cocotb.status
) &
cocotb_pid=$!

hdr "conformance cases (scripted, and as files): started in the background"
(
    set +e
    # In fast-forward's check mode: every cycle simulated, and any cycle fast-forward would have skipped
    # that changes a core's state fails the run (the replayed cases run with it on, checked to the cycle).
    ROCENIC_FAST_FORWARD=check "$rocenic" conformance --out out/conformance > out/conformance.out 2>&1
    echo $? > out/conformance.status
) &
conformance_pid=$!
(
    set +e
    "$rocenic" conformance replay --out out/replay > out/replay.out 2>&1
    echo $? > out/replay.status
) &
replay_pid=$!

hdr "cargo test"
log=out/cargo-test.log
set +e
# --no-fail-fast: a failing test binary must not hide the results of the others.
cargo test --release --workspace --no-fail-fast 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
# One closing line for the whole run: cargo prints one summary per test binary, the last often a doc-test
# binary with nothing in it.
passed=$(grep -o '[0-9]* passed' "$log" | awk '{s+=$1} END {print s+0}')
failed=$(grep -o '[0-9]* failed' "$log" | awk '{s+=$1} END {print s+0}')
if [[ $status -ne 0 && $failed -eq 0 ]]; then failed=1; fi

hdr "clippy (its lints ran in the build above; warnings denied)"
if [[ $lint_warnings -eq 0 ]]; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    echo "  FAIL clippy: $lint_warnings targets with warnings (out/build.log):"
    grep -E "$lint_line" out/build.log
fi

if [[ $full == 1 ]]; then
    hdr "long cargo tests (--full; #[ignore]d in the job): 64 MiB transfers, 4,096 QPs, the matrix's other MTUs, two DCQCN flows"
    step "ignored cargo tests" out/cargo-test-ignored.log cargo test --release -p rocenic-tools --test driver -- --ignored
fi

hdr "bench runs (its numbers go to docs/performance.md; here it must only run: a second)"
step bench out/bench.log target/release/bench

hdr "conformance cases (scripted peer, checked on the wire): waiting for them"
wait "$conformance_pid"
st=$(cat out/conformance.status 2>/dev/null || echo 1)
stage out/conformance.log bash -c "cat out/conformance.out; exit $st"
# Every frame of every case, checked independently (the ICRC case carries one bad ICRC on purpose, the
# truncated-frame case two frames cut short on purpose; the ARP case has no RoCE frame).
for f in out/conformance/*.pcap; do
    case "$(basename "$f" .pcap)" in
        arp_request_answered) continue ;;
        icrc_error_dropped) allow=(--allow-bad 1) ;;
        roce_truncated_dropped) allow=(--allow-short 2) ;;
        *) allow=() ;;
    esac
    pcap_check out/conformance-pcap.log "${allow[@]}" "$f"
done

hdr "conformance cases as files (scenario + input pcap, replayed; testbench/conformance/cases): waiting for them"
wait "$replay_pid"
st=$(cat out/replay.status 2>/dev/null || echo 1)
stage out/replay.log bash -c "cat out/replay.out; exit $st"
# The cases imported from captures, checked independently as well.
for f in out/replay/capture_*.pcap; do
    pcap_check out/replay-pcap.log "$f"
done

hdr "cocotb benches (started beside cargo test): waiting for them"
wait "$cocotb_pid"
cocotb_status=$(cat out/cocotb.status 2>/dev/null || echo 1)
stage out/cocotb.log bash -c "cat out/cocotb.out; exit $cocotb_status"

if [[ "${ROCENIC_SKIP_SYNTH:-0}" == 1 ]]; then
    hdr "board reports: synthesis skipped (ROCENIC_SKIP_SYNTH=1); Alveo flow checks only"
    step "Alveo flow checks" out/alveo.log bash bitstream/alveo/check/check.sh
else
    hdr "board reports (bitstream/all.sh, started before the cargo tests): waiting for them"
    wait "$board_pid"
    board_status=$(cat out/board-reports.status 2>/dev/null || echo 1)
    stage out/board-reports.log bash -c "cat out/board-reports.out; exit $board_status"
    hdr "logic levels per unit at 512 bits (bitstream/depth.sh): waiting for them"
    wait "$depth_pid"
    depth_status=$(cat out/depth.status 2>/dev/null || echo 1)
    stage out/depth.log bash -c "cat out/depth.out; exit $depth_status"
fi
if [[ "${ROCENIC_SKIP_INTEROP:-0}" == 1 ]]; then
    hdr "interop: skipped (ROCENIC_SKIP_INTEROP=1)"
else
    hdr "interop with rdma_rxe in QEMU"
    # One case in each role here; every size, and the lossy, IPv6 and VLAN variants (roles 3-5), with --full.
    if [[ $full == 1 ]]; then pp=(); else pp=(--cases "1024:65536" --roles "1 2"); fi
    stage out/interop.log bash testbench/interop/rc-pingpong.sh "${pp[@]}"
    hdr "interop with perftest on rdma_rxe: rocenic write-bw / read-bw / send-bw / write-lat / atomic-bw against perftest"
    # One case per tool and role here (64 KiB at MTU 1024: many packets each way); every size with --full.
    if [[ $full == 1 ]]; then cases=(); else cases=(--cases "1024:65536"); fi
    stage out/interop-perftest.log bash testbench/interop/perftest.sh "${cases[@]}"
    # The driver's VFIO layer against the kernel's VFIO: QEMU's edu device behind an emulated IOMMU.
    hdr "VFIO: the driver's VFIO layer with QEMU's edu device (testbench/vfio/edu-test.sh)"
    stage out/vfio.log bash testbench/vfio/edu-test.sh
fi
if [[ $full == 1 ]]; then
    # The soak: 10^6 mixed messages (5 x 10^5 each way) at 5 % drops, 5 % reordering, 1 % corruption
    # and 1 % duplication, with gather lists and eight in flight, and a pause storm of 60,000 cycles
    # every 5,000,000, at both widths.
    hdr "stress soak (--full): 10^6 mixed messages under faults and pause storms"
    for w in 64 512; do
        step "stress soak $w" "out/soak-$w.log" "$rocenic" \
            stress --width "$w" --messages 250000 --window 8 --sge 4 --drop 0.05 --reorder 0.05 \
            --corrupt 0.01 --duplicate 0.01 --pause-storms 5000000:60000 --seed 1
    done
fi
echo "tests: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
