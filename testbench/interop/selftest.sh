#!/usr/bin/env bash
# Proves the interop harness: two Soft-RoCE guests talk RoCEv2 to each other.
#
#   1. rc_pingpong (direct): guest A (10.0.0.1) local=P1 remote=P2, guest B (10.0.0.2) the reverse;
#      `ibv_rc_pingpong -g 1 -n 100 -s 1024`, server in A, client in B.
#   2. write_bw (relay): both guests talk through relay.py, which writes build/interop/selftest/write_bw.pcap;
#      `ib_write_bw -x 1 -s 65536 -n 200`, server in A, client in B; the capture must hold RoCE frames and
#      pass testbench/check_pcap.py (ICRC of every frame recomputed independently).
#
# Out-of-band TCP path (QPN/PSN/GID exchange) for the client in B:
#   B connects to 10.0.2.100:18515 -> B's user-net guestfwd runs tcp-pipe.py -> host 127.0.0.1:OOB
#   -> A's user-net hostfwd -> A 10.0.2.15:18515 (the server).
# B is started only once A's command has started, so the server is listening before B (≥ 3 s boot) connects.
#
# options: --sabotage   the relay drops every RoCE frame in both tests (ARP passes), so the RoCE transfers
#                       must fail: this run must end with failures and exit 1 (proves the check can fail)
#          --only NAME  run one test (rc_pingpong or write_bw)
# Prints "selftest: N passed, M failed"; exits 0 only if every check passed.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${ROCENIC_INTEROP_OUT:-$root/build/interop}/selftest
sabotage=0 only=
while [[ $# -gt 0 ]]; do
    case "$1" in
        --sabotage) sabotage=1; shift ;;
        --only) only=${2:?}; shift 2 ;;
        *) echo "selftest.sh: unknown option $1" >&2; exit 2 ;;
    esac
done

"$here/build-image.sh" || { echo "selftest.sh: image build failed" >&2; exit 1; }
rm -rf "$out"; mkdir -p "$out"

passed=0 failed=0
check() {  # check NAME CONDITION-RESULT(0/1) [detail]
    if [[ $2 -eq 0 ]]; then passed=$((passed + 1)); echo "PASS $1 ${3:-}"
    else failed=$((failed + 1)); echo "FAIL $1 ${3:-}"; fi
}

free_ports() {  # N ports free for both UDP and TCP on 127.0.0.1
    python3 - "$1" <<'EOF'
import socket, sys
held, ports = [], []
while len(ports) < int(sys.argv[1]):
    t = socket.socket(); t.bind(("127.0.0.1", 0)); p = t.getsockname()[1]
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        u.bind(("127.0.0.1", p))
    except OSError:
        t.close(); continue
    held += [t, u]; ports.append(p)
print(" ".join(map(str, ports)))
EOF
}

# run_pair NAME MODE(direct|relay) SERVER_CMD CLIENT_CMD: boots A (server) then B (client), leaves
# $out/NAME/{A,B}.out, {A,B}.rc, shares in $out/NAME/{A,B}/ and, in relay mode, $out/NAME.pcap.
run_pair() {
    local name=$1 mode=$2 scmd=$3 ccmd=$4 d=$out/$1
    mkdir -p "$d/A" "$d/B"
    read -r pa pb ra rb oob < <(free_ports 5)
    local a_remote=$pb b_remote=$pa relay_pid=
    if [[ $mode == relay ]]; then
        a_remote=$ra b_remote=$rb
        local drop=()
        [[ $sabotage -eq 1 ]] && drop=(--drop-prob 1 --drop-roce-only)
        python3 "$here/relay.py" --a "$ra:$pa" --b "$rb:$pb" --pcap "$out/$name.pcap" --duration 150 \
            "${drop[@]}" 2> "$d/relay.log" &
        relay_pid=$!
        for _ in $(seq 50); do grep -q ready "$d/relay.log" 2>/dev/null && break; sleep 0.1; done
    fi
    local t0; t0=$(date +%s.%N)
    "$here/run-guest.sh" --share "$d/A" --rdma-link "dgram:$pa:$a_remote" --ip 10.0.0.1/24 \
        --mac 52:54:00:00:00:01 --oob-port "$oob" --timeout 120 "$scmd" > "$d/A.out" 2>&1 &
    local a_pid=$!
    # wait until A's command has started (its server then listens at once), or A has ended
    for _ in $(seq 600); do
        [[ -f "$d/A/boot-seconds" ]] && break
        kill -0 "$a_pid" 2>/dev/null || break
        sleep 0.2
    done
    "$here/run-guest.sh" --share "$d/B" --rdma-link "dgram:$pb:$b_remote" --ip 10.0.0.2/24 \
        --mac 52:54:00:00:00:02 --host-fwd "18515:$oob" --timeout 120 "$ccmd" > "$d/B.out" 2>&1
    echo $? > "$d/B.rc"
    wait "$a_pid"; echo $? > "$d/A.rc"
    local t1; t1=$(date +%s.%N)
    if [[ -n "$relay_pid" ]]; then kill "$relay_pid" 2>/dev/null; wait "$relay_pid"; fi
    printf '%s: A exit %s, B exit %s, both guests %.1f s wall\n' "$name" "$(cat "$d/A.rc")" "$(cat "$d/B.rc")" \
        "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
    for s in A B; do sed "s/^/  $s| /" "$d/$s.out"; done
    [[ -f "$d/relay.log" ]] && sed 's/^/  relay| /' "$d/relay.log"
}

# The server gives up by itself (busybox timeout) when no client comes, so a broken link cannot hang the test.
if [[ -z "$only" || "$only" == rc_pingpong ]]; then
    mode=direct; [[ $sabotage -eq 1 ]] && mode=relay
    run_pair rc_pingpong $mode \
        'timeout 60 ibv_rc_pingpong -d rxe0 -g 1 -n 100 -s 1024' \
        'timeout 60 ibv_rc_pingpong -d rxe0 -g 1 -n 100 -s 1024 10.0.2.100'
    d=$out/rc_pingpong
    for s in A B; do
        peer=10.0.0.2; [[ $s == B ]] && peer=10.0.0.1
        ok=1
        [[ "$(cat "$d/$s.rc")" == 0 ]] && grep -q '^100 iters in ' "$d/$s.out" \
            && grep -q "remote address: .*GID ::ffff:$peer" "$d/$s.out" && ok=0
        check "rc_pingpong-$s" $ok "$(grep -o '[0-9.]* usec/iter' "$d/$s.out")"
    done
fi

if [[ -z "$only" || "$only" == write_bw ]]; then
    run_pair write_bw relay \
        'timeout 60 ib_write_bw -d rxe0 -x 1 -F -s 65536 -n 200 --report_gbits' \
        'timeout 60 ib_write_bw -d rxe0 -x 1 -F -s 65536 -n 200 --report_gbits 10.0.2.100'
    d=$out/write_bw
    for s in A B; do
        ok=1
        [[ "$(cat "$d/$s.rc")" == 0 ]] && grep -Eq '^ *65536 +200 +[0-9.]+ +[0-9.]+' "$d/$s.out" && ok=0
        check "write_bw-$s" $ok "$(grep -E '^ *65536 +200 ' "$d/$s.out" | awk '{print $4 " Gb/s average"}')"
    done
    # The capture: RoCE frames present and every ICRC right (independent recomputation).
    cp_out=$(python3 "$root/testbench/check_pcap.py" "$out/write_bw.pcap" 2>&1); cp_rc=$?
    check "write_bw-pcap" $cp_rc "$(tail -n1 <<<"$cp_out")"
fi

echo "selftest: $passed passed, $failed failed"
[[ $failed -eq 0 && $passed -gt 0 ]]
