#!/usr/bin/env bash
# Interop: `rocenic write-bw` / `read-bw` / `send-bw` / `write-lat` / `atomic-bw` (the co-simulated rocenic NIC)
# against unmodified perftest `ib_write_bw` / `ib_read_bw` / `ib_send_bw` / `ib_write_lat` / `ib_atomic_bw` on
# Linux Soft-RoCE (rdma_rxe) in a QEMU guest, in both roles, over a QEMU
# dgram link. Same harness as rc-pingpong.sh (run-guest.sh, port forwards both ways).
#
# usage: testbench/interop/perftest.sh [--iters N] [--out DIR] [--cases "MTU:SIZE ..."] [--tools "VERB ..."]
#   --iters N     iterations per case (default 100)
#   --out DIR     logs and one pcap per case and role (default out/interop-perftest)
#   --cases LIST  "MTU:SIZE" pairs (default "1024:65536 4096:65536 1024:64")
#   --tools LIST  of write-bw read-bw send-bw write-lat atomic-bw (default all five)
#
# atomic-bw's message is one 8-byte FETCH_AND_ADD: its cases are "MTU:8" (ROCENIC_INTEROP_ATOMIC_CASES,
# default "1024:8"), the guest's ib_atomic_bw gets no -s, and rocenic keeps ROCENIC_INTEROP_ATOMIC_OUTS
# atomics outstanding as client and offers as many as server (`-o`, default 4).
#
# Role A: the guest's perftest is the server and rocenic the client; role B, rocenic is the server and the
# guest's perftest the client. One guest boot per role runs every tool and case in turn (a run that fails
# is marked in the guest's log, DIR/A-guest.log or B-guest.log, and the others still run). A case passes
# when rocenic prints its result row for the size and iteration count and the pcap passes
# testbench/check_pcap.py (ICRC recomputed, tshark decode); per tool and role, every perftest run in the
# guest must exit 0; in role A the guest's server must also print a row for every case (write and read:
# the report rocenic's client sent it; send and write-lat: its own measurement). In role B rxe's read-bw
# client keeps as many READs outstanding as its perftest chooses, which rocenic's responder takes in order.
# ROCENIC_INTEROP_OUTS=N gives rocenic's read-bw client `-o N` in role A. The default is 1 (time); with 4
# the run passes, about 5 minutes for read-bw (README.md, Pitfalls). ROCENIC_INTEROP_ARGS adds options to
# rocenic's client in role A, ROCENIC_INTEROP_TIMEOUT sets its wall-time limit (default 500 s).
# Prints "interop-perftest: N passed, M failed" and exits non-zero if any case failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
iters=100
out=$root/out/interop-perftest
cases="1024:65536 4096:65536 1024:64"
tools="write-bw read-bw send-bw write-lat atomic-bw"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --iters) iters=${2:?}; shift 2 ;;
        --out) out=${2:?}; shift 2 ;;
        --cases) cases=${2:?}; shift 2 ;;
        --tools) tools=${2:?}; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "perftest.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

bash "$here/setup.sh" --with-tshark
bash "$here/build-image.sh"
(cd "$root" && cargo build --release -q -p rocenic-tools --bin rocenic)
rocenic=$root/target/release/rocenic

free_port() { python3 -c 'import socket,sys; s=socket.socket(socket.AF_INET, int(sys.argv[1])); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' "$1"; }

passed=0 failed=0
report() { # name status detail
    if [[ $2 == ok ]]; then passed=$((passed + 1)); echo "  PASS $1"; else failed=$((failed + 1)); echo "  FAIL $1: $3"; fi
}

# A result row: " SIZE    ITERS   peak   avg   rate".
row() { echo "^ +$1 +$2 +[0-9.]+ +[0-9.]+"; }

check_case() { # name log pcap size
    local name=$1 log=$2 pcap=$3 size=$4
    if ! grep -Eq "$(row "$size" "$iters")" "$log"; then report "$name" fail "no result row (see $log)"; return; fi
    if ! python3 "$root/testbench/check_pcap.py" --tshark "$pcap" > "$pcap.check" 2>&1; then
        report "$name" fail "pcap check failed (see $pcap.check)"; return
    fi
    report "$name" ok
}

# Every (tool, case) in run order: "verb:tool:MTU:SIZE", SIZE empty for atomic-bw (no -s).
entries=()
for spec in write-bw:ib_write_bw read-bw:ib_read_bw send-bw:ib_send_bw write-lat:ib_write_lat atomic-bw:ib_atomic_bw; do
    verb=${spec%%:*} tool=${spec##*:}
    [[ " $tools " == *" $verb "* ]] || continue
    if [[ $verb == atomic-bw ]]; then
        for c in ${ROCENIC_INTEROP_ATOMIC_CASES:-1024:8}; do entries+=("$verb:$tool:${c%%:*}:"); done
    else
        for c in $cases; do entries+=("$verb:$tool:${c%%:*}:${c##*:}"); done
    fi
done
# The guest's side of each entry, in order: "tool:MTU:SIZE".
guest_entries=""
for e in "${entries[@]}"; do guest_entries+="${e#*:} "; done
# rocenic's options per verb: read-bw's client keeps ROCENIC_INTEROP_OUTS READs outstanding, atomic-bw
# keeps ROCENIC_INTEROP_ATOMIC_OUTS atomics outstanding as client and offers as many as server.
client_outs() { case $1 in read-bw) echo "-o ${ROCENIC_INTEROP_OUTS:-1}" ;; atomic-bw) echo "-o ${ROCENIC_INTEROP_ATOMIC_OUTS:-4}" ;; esac; }
server_outs() { [[ $1 == atomic-bw ]] && echo "-o ${ROCENIC_INTEROP_ATOMIC_OUTS:-4}"; true; }
# The message size rocenic reports a row for (an atomic is 8 bytes).
size_of() { local s=${1##*:}; echo "${s:-8}"; }
# The guest's log section of one tool (from each of its "== case" lines to the next other tool's).
section() { awk -v t="$2" '/^== case /{on=($3==t)} on' "$1"; }
# Reports whether every run of VERB's tool in ROLE's guest exited 0 (WHAT: server or client), and leaves
# the tool's log section in $sec and its name in $tool.
guest_side() { # ROLE VERB WHAT
    local role=$1 verb=$2 what=$3 e t
    tool=""
    for e in "${entries[@]}"; do [[ ${e%%:*} == "$verb" ]] && { t=${e#*:}; tool=${t%%:*}; }; done
    sec=$(section "$out/$role-guest.log" "$tool")
    if [[ -n $tool && -n $sec ]] && ! grep -q "^== FAILED" <<<"$sec"; then
        report "$verb: rxe side of role $role (every $tool $what exited 0)" ok
    else
        report "$verb: rxe side of role $role" fail "${tool:-its tool} failed or never ran (see $out/$role-guest.log)"
    fi
}
# Guest shell: one entry's fields and perftest's size option.
fields='t=${e%%:*}; r=${e#*:}; m=${r%%:*}; s=${r#*:}; sf=""; [ -n "$s" ] && sf="-s $s"'

# One guest boot per role runs every tool and case in turn; a failing run is marked and the rest go on.
echo "interop A: rxe perftest servers <- rocenic clients (${#entries[@]} runs, one guest)"
u_guest=$(free_port 2) u_host=$(free_port 2) oob=$(free_port 1)
script="rc=0; for e in $guest_entries; do $fields; echo \"== case \$t \$m:\$s\"; \
\$t -F -x 1 -m \$m \$sf -n $iters || { echo \"== FAILED \$t \$m:\$s\"; rc=1; }; done; exit \$rc"
timeout 3000 bash "$here/run-guest.sh" --quiet --rdma-link "dgram:$u_guest:$u_host" --ip 10.0.0.1/24 \
    --mtu 4200 --oob-port "$oob" --timeout 2900 "$script" > "$out/A-guest.log" 2>&1 &
guest=$!
for e in "${entries[@]}"; do
    verb=${e%%:*} r=${e#*:*:} m=${r%%:*} s=$(size_of "$e")
    name="$verb: rxe-server/rocenic-client mtu $m size $s"
    log=$out/$verb-A-$m-$s.log pcap=$out/$verb-A-$m-$s.pcap
    # shellcheck disable=SC2046
    timeout 600 "$rocenic" "$verb" --link "udp:$u_host:$u_guest" --ip 10.0.0.2 -m "$m" -s "$s" \
        -n "$iters" $(client_outs "$verb") ${ROCENIC_INTEROP_ARGS:-} -p "$oob" --timeout "${ROCENIC_INTEROP_TIMEOUT:-500}" \
        --pcap "$pcap" 127.0.0.1 > "$log" 2>&1 || true
    check_case "$name" "$log" "$pcap" "$s"
done
wait "$guest" || true
for verb in $tools; do
    guest_side A "$verb" server
    # The server prints the report the client sent over the exchange: ours, one row per case.
    rows=0 n=0
    for e in "${entries[@]}"; do
        [[ ${e%%:*} == "$verb" ]] || continue
        n=$((n + 1))
        grep -Eq "$(row "$(size_of "$e")" "$iters")" <<<"$sec" && rows=$((rows + 1))
    done
    if [[ $rows -eq $n ]]; then report "$verb: rxe $tool server printed a result row for every case" ok
    else report "$verb: rxe server printed a result row for every case" fail "$rows of $n rows (see $out/A-guest.log)"; fi
done

echo "interop B: rocenic servers <- rxe perftest clients (${#entries[@]} runs, one guest)"
u_guest=$(free_port 2) u_host=$(free_port 2) srv=$(free_port 1)
# The guest retries while no rocenic server listens yet (the exchange never started), never after it did.
script="rc=0; for e in $guest_entries; do $fields; echo \"== case \$t \$m:\$s\"; n=0; \
while :; do \$t -F -x 1 -m \$m \$sf -n $iters 10.0.2.100 > /tmp/pt.log 2>&1; x=\$?; cat /tmp/pt.log; \
[ \$x -eq 0 ] && break; if grep -q 'remote address' /tmp/pt.log || [ \$n -ge 60 ]; then \
echo \"== FAILED \$t \$m:\$s\"; rc=1; break; fi; n=\$((n+1)); sleep 1; done; done; exit \$rc"
timeout 3000 bash "$here/run-guest.sh" --quiet --rdma-link "dgram:$u_guest:$u_host" --ip 10.0.0.1/24 \
    --mtu 4200 --host-fwd "18515:$srv" --timeout 2900 "$script" > "$out/B-guest.log" 2>&1 &
guest=$!
for e in "${entries[@]}"; do
    verb=${e%%:*} r=${e#*:*:} m=${r%%:*} s=$(size_of "$e")
    name="$verb: rocenic-server/rxe-client mtu $m size $s"
    log=$out/$verb-B-$m-$s.log pcap=$out/$verb-B-$m-$s.pcap
    # shellcheck disable=SC2046
    timeout 600 "$rocenic" "$verb" --link "udp:$u_host:$u_guest" --ip 10.0.0.2 -m "$m" -s "$s" \
        -n "$iters" $(server_outs "$verb") -p "$srv" --timeout 500 --pcap "$pcap" > "$log" 2>&1 || true
    check_case "$name" "$log" "$pcap" "$s"
done
wait "$guest" || true
for verb in $tools; do
    guest_side B "$verb" client
done

echo "interop-perftest: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
