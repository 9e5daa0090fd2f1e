#!/usr/bin/env bash
# Interop: `rocenic rc-pingpong` (the co-simulated rocenic NIC) against an unmodified `ibv_rc_pingpong`
# on Linux Soft-RoCE (rdma_rxe) in a QEMU guest, in both roles, over a QEMU dgram link.
#
# usage: testbench/interop/rc-pingpong.sh [--iters N] [--out DIR] [--cases "MTU:SIZE ..."]
#   --iters N     iterations per case (default 100)
#   --out DIR     logs and one pcap per case and role (default out/interop)
#   --cases LIST  "MTU:SIZE" pairs (default "1024:1 1024:1024 1024:4096 1024:65536 4096:4096 4096:65536")
#   --roles LIST  which roles to run (default "1 2 3 4 5")
#
# Role 1: the guest runs ibv_rc_pingpong as the server; rocenic connects to it through a QEMU user-net
#         port forward (host 127.0.0.1:PORT -> guest 10.0.2.15:18515).
# Role 2: rocenic is the server; the guest's ibv_rc_pingpong connects to 10.0.2.100:18515, which QEMU
#         forwards to the host's 127.0.0.1:PORT.
# One guest boot per role runs every case in turn (guest eth0 MTU 4200, so RoCE MTU 4096 is possible).
# Role 3: as role 1 for one case, with 3 % of the frames dropped in each direction on the simulated link (among the first 4 * iters),
#         so both sides' retransmissions (rxe's and the NIC's) are exercised.
# Role 4: as role 1 for one case, over IPv6: the guest's eth0 gets fd52:4f43:45::1 (rxe adds its GID) and
#         ibv_rc_pingpong uses that GID; rocenic --ipv6 fd52:4f43:45::2 resolves the guest's MAC by neighbour
#         solicitation and the guest's kernel resolves ours the same way: the NIC's neighbour discovery
#         responder (hdl/src/net/ndp.rs) answers, and the guest's neighbour table must show the NIC's MAC
#         learned (not a static entry).
# Role 5: as role 1 for one case, over 802.1Q VLAN 100: the guest's rxe uses the GID of eth0.100
#         (10.0.100.1), so its frames leave tagged; rocenic --vlan 100 joins the VLAN (port VLAN table) and
#         its QP sends tagged (QP_VLAN), it resolves the guest's MAC with a tagged ARP request, and the
#         guest's kernel resolves ours with one the NIC answers on VLAN 100. Every RoCE frame in the pcap
#         must be tagged 100, and the guest's neighbour table must show the NIC's MAC on eth0.100.
# Each case: both programs must report every iteration, rocenic checks every message byte for byte
# against the echo, and the pcap must pass testbench/check_pcap.py (ICRC recomputed, tshark decode).
# Prints "interop: N passed, M failed" and exits non-zero if any case failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
iters=100
out=$root/out/interop
cases="1024:1 1024:1024 1024:4096 1024:65536 4096:4096 4096:65536"
roles="1 2 3 4 5"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --iters) iters=${2:?}; shift 2 ;;
        --out) out=${2:?}; shift 2 ;;
        --cases) cases=${2:?}; shift 2 ;;
        --roles) roles=${2:?}; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "rc-pingpong.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

bash "$here/setup.sh" --with-tshark
bash "$here/build-image.sh"
(cd "$root" && cargo build --release -q -p rocenic-tools --bin rocenic)
rocenic=$root/target/release/rocenic

# Free ports chosen by the kernel, so parallel runs and leftovers do not collide.
free_port() { python3 -c 'import socket,sys; s=socket.socket(socket.AF_INET, int(sys.argv[1])); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' "$1"; }

passed=0 failed=0
report() { # name status detail
    if [[ $2 == ok ]]; then passed=$((passed + 1)); echo "  PASS $1"; else failed=$((failed + 1)); echo "  FAIL $1: $3"; fi
}

# Checks one case's rocenic log and pcap.
check_case() { # name log pcap [check_pcap.py options]
    local name=$1 log=$2 pcap=$3 extra=${4:-}
    if ! grep -q "^$iters iters in" "$log"; then report "$name" fail "rocenic did not finish (see $log)"; return; fi
    if ! grep -Eq "(checked against what we sent;|echo mode)" "$log" ||
       ! grep -Eq "^rocenic: ($iters|$((iters - 1))) of $iters received messages checked" "$log"; then
        report "$name" fail "data not checked (see $log)"; return
    fi
    if ! python3 "$root/testbench/check_pcap.py" --tshark $extra "$pcap" > "$pcap.check" 2>&1; then
        report "$name" fail "pcap check failed (see $pcap.check)"; return
    fi
    report "$name" ok
}

guest_cases=""
for c in $cases; do guest_cases+="${c%%:*}:${c##*:} "; done

role() { [[ " $roles " == *" $1 "* ]]; }

if role 1; then
echo "interop role 1: rxe ibv_rc_pingpong server <- rocenic rc-pingpong client"
u_guest=$(free_port 2) u_host=$(free_port 2) oob=$(free_port 1)
script="for c in $guest_cases; do m=\${c%%:*}; s=\${c##*:}; echo \"== case \$m:\$s\"; ibv_rc_pingpong -g 1 -m \$m -s \$s -n $iters || exit 1; done"
timeout 1200 bash "$here/run-guest.sh" --quiet --rdma-link "dgram:$u_guest:$u_host" --ip 10.0.0.1/24 \
    --mtu 4200 --oob-port "$oob" --timeout 1100 "$script" > "$out/role1-guest.log" 2>&1 &
guest=$!
for c in $cases; do
    m=${c%%:*} s=${c##*:} name="rxe-server/rocenic-client mtu $m size $s"
    log=$out/role1-$m-$s.log pcap=$out/role1-$m-$s.pcap
    timeout 600 "$rocenic" rc-pingpong --link "udp:$u_host:$u_guest" --ip 10.0.0.2 -m "$m" -s "$s" \
        -n "$iters" -p "$oob" --timeout 500 --pcap "$pcap" 127.0.0.1 > "$log" 2>&1 || true
    check_case "$name" "$log" "$pcap"
done
if wait "$guest"; then report "rxe side of role 1 (every ibv_rc_pingpong run exited 0)" ok
else report "rxe side of role 1" fail "guest exit $? (see $out/role1-guest.log)"; fi
fi

if role 2; then
echo "interop role 2: rocenic rc-pingpong server <- rxe ibv_rc_pingpong client"
u_guest=$(free_port 2) u_host=$(free_port 2) srv=$(free_port 1)
# The guest retries while no rocenic server listens yet (the exchange never started), never after it did.
script="for c in $guest_cases; do m=\${c%%:*}; s=\${c##*:}; echo \"== case \$m:\$s\"; n=0; \
while :; do ibv_rc_pingpong -g 1 -m \$m -s \$s -n $iters 10.0.2.100 > /tmp/pp.log 2>&1; rc=\$?; cat /tmp/pp.log; \
[ \$rc -eq 0 ] && break; grep -q 'remote address' /tmp/pp.log && exit 1; n=\$((n+1)); [ \$n -ge 60 ] && exit 1; sleep 1; done; done"
timeout 1200 bash "$here/run-guest.sh" --quiet --rdma-link "dgram:$u_guest:$u_host" --ip 10.0.0.1/24 \
    --mtu 4200 --host-fwd "18515:$srv" --timeout 1100 "$script" > "$out/role2-guest.log" 2>&1 &
guest=$!
for c in $cases; do
    m=${c%%:*} s=${c##*:} name="rocenic-server/rxe-client mtu $m size $s"
    log=$out/role2-$m-$s.log pcap=$out/role2-$m-$s.pcap
    timeout 600 "$rocenic" rc-pingpong --link "udp:$u_host:$u_guest" --ip 10.0.0.2 -m "$m" -s "$s" \
        -n "$iters" -p "$srv" --timeout 500 --pcap "$pcap" > "$log" 2>&1 || true
    check_case "$name" "$log" "$pcap"
done
if wait "$guest"; then report "rxe side of role 2 (every ibv_rc_pingpong run exited 0)" ok
else report "rxe side of role 2" fail "guest exit $? (see $out/role2-guest.log)"; fi
fi

if role 3; then
echo "interop role 3: rxe ibv_rc_pingpong server <- rocenic client over a lossy link (3 % of frames dropped each way)"
u_guest=$(free_port 2) u_host=$(free_port 2) oob=$(free_port 1)
timeout 1200 bash "$here/run-guest.sh" --quiet --rdma-link "dgram:$u_guest:$u_host" --ip 10.0.0.1/24 \
    --oob-port "$oob" --timeout 600 "ibv_rc_pingpong -g 1 -m 1024 -s 4096 -n $iters" > "$out/role3-guest.log" 2>&1 &
guest=$!
name="rxe-server/rocenic-client lossy mtu 1024 size 4096"
log=$out/role3-1024-4096.log pcap=$out/role3-1024-4096.pcap
# rxe recovers our lost requests and ACKs by its own retransmission (67 ms timer, sequence NAKs); we recover
# its lost frames the same way, with a shorter local ACK timeout than IB timeout 14 so the run stays short.
# The drops fall among each direction's first 4 * iters frames (of about 5 * iters + retransmissions): rxe exits once
# its last receive and send complete, so a lost ACK of our last SEND would go unanswered (RETRY_EXC_ERR; seen
# once in CI, 2026-11-25, about a 3 % chance per run while the drops ran to the end).
timeout 900 "$rocenic" rc-pingpong --link "udp:$u_host:$u_guest" --ip 10.0.0.2 -m 1024 -s 4096 -n "$iters" \
    -p "$oob" --timeout 800 --pcap "$pcap" --drop 0.03 --drop-frames $((iters * 4)) --link-seed 7 --ack-timeout-cycles 300000 \
    127.0.0.1 > "$log" 2>&1 || true
check_case "$name" "$log" "$pcap"
if wait "$guest"; then report "rxe side of role 3 (ibv_rc_pingpong exited 0 despite the loss)" ok
else report "rxe side of role 3" fail "guest exit $? (see $out/role3-guest.log)"; fi
fi

if role 4; then
echo "interop role 4: rxe ibv_rc_pingpong server <- rocenic client, RoCEv2 over IPv6"
u_guest=$(free_port 2) u_host=$(free_port 2) oob=$(free_port 1)
# rxe adds a GID for each address of its netdev; find the index of ours (sysfs spells every group out).
script="ip -6 addr add fd52:4f43:45::1/64 dev eth0 nodad || exit 1; g=; for i in \$(seq 1 50); do \
for f in /sys/class/infiniband/rxe0/ports/1/gids/*; do [ \"\$(cat \$f 2>/dev/null)\" = fd52:4f43:0045:0000:0000:0000:0000:0001 ] && g=\${f##*/}; done; \
[ -n \"\$g\" ] && break; sleep 0.1; done; [ -n \"\$g\" ] || exit 1; echo \"== IPv6 GID index \$g\"; \
ibv_rc_pingpong -g \$g -m 1024 -s 4096 -n $iters || exit 1; ip -6 neigh show dev eth0"
timeout 1200 bash "$here/run-guest.sh" --quiet --rdma-link "dgram:$u_guest:$u_host" --ip 10.0.0.1/24 \
    --oob-port "$oob" --timeout 600 "$script" > "$out/role4-guest.log" 2>&1 &
guest=$!
name="rxe-server/rocenic-client IPv6 mtu 1024 size 4096"
log=$out/role4-1024-4096.log pcap=$out/role4-1024-4096.pcap
timeout 600 "$rocenic" rc-pingpong --link "udp:$u_host:$u_guest" --ip 10.0.0.2 --ipv6 fd52:4f43:45::2 \
    -m 1024 -s 4096 -n "$iters" -p "$oob" --timeout 500 --pcap "$pcap" 127.0.0.1 > "$log" 2>&1 || true
check_case "$name" "$log" "$pcap" --ipv6
if ! grep -q "GID fd52:4f43:45::1" "$log"; then report "$name: the peer's GID is IPv6" fail "see $log"
else report "$name: the peer's GID is IPv6" ok; fi
if wait "$guest"; then report "rxe side of role 4 (ibv_rc_pingpong over IPv6 exited 0)" ok
else report "rxe side of role 4" fail "guest exit $? (see $out/role4-guest.log)"; fi
if grep -q "^fd52:4f43:45::2 lladdr 02:52:4f:43:45:02 \(REACHABLE\|STALE\|DELAY\|PROBE\)" "$out/role4-guest.log"; then
    report "the guest learned the NIC's MAC from the NIC's neighbour advertisement" ok
else report "the guest learned the NIC's MAC" fail "no learned neighbour entry in $out/role4-guest.log"; fi
fi

if role 5; then
echo "interop role 5: rxe ibv_rc_pingpong server <- rocenic client, over 802.1Q VLAN 100"
u_guest=$(free_port 2) u_host=$(free_port 2) oob=$(free_port 1)
# rxe adds a GID for each address of its netdev's upper devices too: find eth0.100's (IPv4-mapped).
script="ip link add link eth0 name eth0.100 type vlan id 100 || exit 1; ip addr add 10.0.100.1/24 dev eth0.100; \
ip link set eth0.100 up; g=; for i in \$(seq 1 50); do \
for f in /sys/class/infiniband/rxe0/ports/1/gids/*; do [ \"\$(cat \$f 2>/dev/null)\" = 0000:0000:0000:0000:0000:ffff:0a00:6401 ] && g=\${f##*/}; done; \
[ -n \"\$g\" ] && break; sleep 0.1; done; [ -n \"\$g\" ] || exit 1; echo \"== VLAN GID index \$g\"; \
ibv_rc_pingpong -g \$g -m 1024 -s 4096 -n $iters || exit 1; ip neigh show dev eth0.100"
timeout 1200 bash "$here/run-guest.sh" --quiet --rdma-link "dgram:$u_guest:$u_host" --ip 10.0.0.1/24 \
    --oob-port "$oob" --timeout 600 "$script" > "$out/role5-guest.log" 2>&1 &
guest=$!
name="rxe-server/rocenic-client VLAN 100 mtu 1024 size 4096"
log=$out/role5-1024-4096.log pcap=$out/role5-1024-4096.pcap
timeout 600 "$rocenic" rc-pingpong --link "udp:$u_host:$u_guest" --ip 10.0.100.2 --vlan 100 \
    -m 1024 -s 4096 -n "$iters" -p "$oob" --timeout 500 --pcap "$pcap" 127.0.0.1 > "$log" 2>&1 || true
check_case "$name" "$log" "$pcap" "--vlan 100"
if wait "$guest"; then report "rxe side of role 5 (ibv_rc_pingpong over VLAN 100 exited 0)" ok
else report "rxe side of role 5" fail "guest exit $? (see $out/role5-guest.log)"; fi
if grep -q "^10.0.100.2 lladdr 02:52:4f:43:45:02 \(REACHABLE\|STALE\|DELAY\|PROBE\)" "$out/role5-guest.log"; then
    report "the guest learned the NIC's MAC on VLAN 100 from the NIC's tagged ARP reply" ok
else report "the guest learned the NIC's MAC on VLAN 100" fail "no learned neighbour entry in $out/role5-guest.log"; fi
fi

echo "interop: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
