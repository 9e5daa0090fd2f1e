#!/usr/bin/env bash
# Boot one Soft-RoCE (rdma_rxe) guest under QEMU TCG, run a command in it, print the command's output
# and exit with its exit status. See testbench/interop/README.md.
#
# usage: run-guest.sh [options] [--] COMMAND [ARG...]
#   One COMMAND word is run as a shell script line (`run-guest.sh 'ibv_devinfo; rdma link'`); several
#   words are run as one argv (`run-guest.sh ibv_rc_pingpong -g 1`).
# options:
#   --rdma-link dgram:LOCAL_PORT:REMOTE_PORT   eth0 = QEMU -netdev dgram: the guest receives UDP datagrams
#                 on 127.0.0.1:LOCAL_PORT and sends to 127.0.0.1:REMOTE_PORT, one Ethernet frame each
#   --rdma-link stream-connect:PORT|PATH   eth0 = -netdev stream to a TCP listener on 127.0.0.1:PORT (or a
#                 Unix socket PATH), which must exist before the guest starts; lossless, each frame preceded
#                 by a 4-byte big-endian length. TCP adds ~40 ms per round trip (Nagle): prefer PATH.
#   --rdma-link stream-listen:PORT|PATH    eth0 = -netdev stream listening on 127.0.0.1:PORT (or PATH)
#   --rdma-link none                  (default) eth0 unconnected
#   --ip A.B.C.D/N          address of eth0 (default 10.0.0.1/24)
#   --mac MAC               MAC of eth0 (default 52:54:00:00:00:01)
#   --mtu N                 MTU of eth0 (4200 for RoCE MTU 4096)
#   --oob-port HOSTPORT     host 127.0.0.1:HOSTPORT -> guest 10.0.2.15:18515 (a host client, or another
#                 guest through --host-fwd, reaches a server in this guest)
#   --host-fwd GPORT:HOSTPORT   guest connections to 10.0.2.100:GPORT reach host 127.0.0.1:HOSTPORT
#                 (QEMU user-net guestfwd with a per-connection helper; works with restrict=on)
#   --timeout SECONDS       whole-guest time limit, boot included (default 180)
#   --share DIR             use DIR as the 9p share (kept afterwards; default: a temporary dir, removed)
#   --cpus N                guest CPUs (default 1)
#   --quiet                 do not print the guest boot line on stderr
#   --edu iommu|no-iommu    add QEMU's `edu` PCI device at 0000:00:06.0 on a q35 machine; with `iommu`
#                 also an emulated Intel IOMMU (-device intel-iommu, guest intel_iommu=on), so the device
#                 can be bound to vfio-pci (testbench/vfio/edu-test.sh)
# environment: ROCENIC_INTEROP_OUT (image dir, default build/interop), ROCENIC_NICE (default 10).
# exit status: the command's, or 124 when the guest did not finish in time, 125 when the guest setup
# failed, 2 on a usage or host-side error.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
img=${ROCENIC_INTEROP_OUT:-$root/build/interop}
nice_level=${ROCENIC_NICE:-10}

die() { echo "run-guest.sh: $*" >&2; exit 2; }

link=none ip=10.0.0.1/24 mac=52:54:00:00:00:01 mtu= oob_port= host_fwd=() timeout_s=180 share= cpus=1 quiet=0 edu=
while [[ $# -gt 0 ]]; do
    case "$1" in
        --rdma-link) link=${2:?}; shift 2 ;;
        --ip) ip=${2:?}; shift 2 ;;
        --mac) mac=${2:?}; shift 2 ;;
        --mtu) mtu=${2:?}; shift 2 ;;
        --oob-port) oob_port=${2:?}; shift 2 ;;
        --host-fwd) host_fwd+=("${2:?}"); shift 2 ;;
        --timeout) timeout_s=${2:?}; shift 2 ;;
        --share) share=${2:?}; shift 2 ;;
        --cpus) cpus=${2:?}; shift 2 ;;
        --quiet) quiet=1; shift ;;
        --edu) edu=${2:?}; shift 2 ;;
        --) shift; break ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) die "unknown option $1 (see --help)" ;;
        *) break ;;
    esac
done
[[ $# -gt 0 ]] || die "no command given (see --help)"

qemu=$(command -v qemu-system-x86_64 || true)
[[ -n "$qemu" ]] || die "qemu-system-x86_64 not found: run testbench/interop/setup.sh"
[[ -f "$img/vmlinux" && -f "$img/initramfs.cpio" ]] \
    || die "no guest image in $img: run testbench/interop/build-image.sh"
[[ "$ip" =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+/[0-9]+$ ]] || die "--ip wants A.B.C.D/N, got '$ip'"
[[ "$mac" =~ ^([0-9a-f]{2}:){5}[0-9a-f]{2}$ ]] || die "--mac wants lower-case aa:bb:cc:dd:ee:ff, got '$mac'"

work=$(mktemp -d /tmp/rocenic-guest.XXXXXX)
if [[ -z "$share" ]]; then
    share=$work/share
    mkdir -p "$share"
else
    mkdir -p "$share"
    share=$(cd "$share" && pwd)
fi
cleanup() { rm -rf "$work"; }
trap cleanup EXIT

# The command, as cmd.sh in the share. Quoting: each word in single quotes.
{
    echo '# written by run-guest.sh'
    if [[ $# -eq 1 ]]; then
        printf '%s\n' "$1"
    else
        line=
        for a in "$@"; do line+=" '${a//\'/\'\\\'\'}'"; done
        printf '%s\n' "${line# }"
    fi
} > "$share/cmd.sh"
rm -f "$share/status" "$share/output" "$share/init.log" "$share/boot-seconds"

# no_timer_check: under TCG on a busy host the kernel's IO-APIC timer check can time out and panic
# ("IO-APIC + timer doesn't work"); the check proves nothing about a virtual timer.
append="console=ttyS0 quiet panic=-1 no_timer_check rocenic.ip=$ip rocenic.mac=$mac"
[[ -n "$mtu" ]] && append+=" rocenic.mtu=$mtu"

# eth0: the RoCE link (PCI slot 4). romfile= skips the iPXE option ROM (not needed with -kernel).
case "$link" in
    dgram:*:*)
        IFS=: read -r _ lport rport <<<"$link"
        netdev0="dgram,id=n0,local.type=inet,local.host=127.0.0.1,local.port=$lport,remote.type=inet,remote.host=127.0.0.1,remote.port=$rport" ;;
    stream-connect:*|stream-listen:*)
        server=off; [[ $link == stream-listen:* ]] && server=on
        where=${link#stream-*:}
        if [[ "$where" =~ ^[0-9]+$ ]]; then
            addr="addr.type=inet,addr.host=127.0.0.1,addr.port=$where"
        else
            [[ "$where" != *,* ]] || die "no commas in a socket path: $where"
            addr="addr.type=unix,addr.path=$where"
        fi
        netdev0="stream,id=n0,server=$server,$addr" ;;
    none) netdev0="user,id=n0,restrict=on" ;;  # a dead-end network: eth0 exists but reaches nothing
    *) die "--rdma-link wants dgram:LOCAL:REMOTE, stream-connect:PORT, stream-listen:PORT or none" ;;
esac

# eth1: QEMU user-net for the out-of-band TCP exchange (PCI slot 5), guest address 10.0.2.15.
netdev1="user,id=n1,restrict=on,net=10.0.2.0/24,host=10.0.2.2"
[[ -n "$oob_port" ]] && netdev1+=",hostfwd=tcp:127.0.0.1:$oob_port-10.0.2.15:18515"
for f in "${host_fwd[@]}"; do
    gport=${f%%:*} hport=${f#*:}
    [[ "$gport" =~ ^[0-9]+$ && "$hport" =~ ^[0-9]+$ ]] || die "--host-fwd wants GPORT:HOSTPORT, got '$f'"
    # cmd: runs the helper for every guest connection, its stdin/stdout being the connection.
    netdev1+=",guestfwd=tcp:10.0.2.100:$gport-cmd:$here/tcp-pipe.py 127.0.0.1 $hport"
done

machine=(-machine pc)
case "$edu" in
    "") ;;
    # The IOMMU comes before the other PCI devices, so it translates for all of them.
    iommu) machine=(-machine q35 -device intel-iommu -device edu,addr=0x6); append+=" intel_iommu=on" ;;
    no-iommu) machine=(-machine q35 -device edu,addr=0x6) ;;
    *) die "--edu wants iommu or no-iommu, got '$edu'" ;;
esac

args=(-accel tcg "${machine[@]}" -cpu max -smp "$cpus" -m 512M
      -nodefaults -no-user-config -display none -no-reboot
      -kernel "$img/vmlinux" -initrd "$img/initramfs.cpio" -append "$append"
      -serial "file:$work/console.log"
      -netdev "$netdev0" -device "virtio-net-pci,netdev=n0,mac=$mac,addr=0x4,romfile="
      -netdev "$netdev1" -device "virtio-net-pci,netdev=n1,mac=52:54:00:12:34:56,addr=0x5,romfile="
      -virtfs "local,path=$share,mount_tag=host,security_model=none,id=fs0")

t0=$(date +%s.%N)
set +e
timeout --kill-after=5 "$timeout_s" nice -n "$nice_level" "$qemu" "${args[@]}" > "$work/qemu.log" 2>&1
qrc=$?
set -e
t1=$(date +%s.%N)
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')

show_console() {
    echo "---- QEMU messages ----" >&2; cat "$work/qemu.log" >&2
    echo "---- guest console (last 40 lines) ----" >&2; tail -n 40 "$work/console.log" >&2 2>/dev/null || true
    [[ -f "$share/init.log" ]] && { echo "---- init.log ----" >&2; cat "$share/init.log" >&2; }
    [[ -f "$share/output" ]] && { echo "---- command output so far ----" >&2; cat "$share/output" >&2; }
    return 0
}

if [[ ! -f "$share/status" ]]; then
    if [[ $qrc -eq 124 || $qrc -eq 137 ]]; then
        echo "run-guest.sh: the guest did not finish within $timeout_s s (QEMU killed)" >&2
        show_console; exit 124
    fi
    echo "run-guest.sh: the guest stopped without a result (QEMU exit $qrc after $wall s)" >&2
    show_console; exit 125
fi
status=$(cat "$share/status")
[[ -f "$share/output" ]] && cat "$share/output"
if [[ "$status" == 125 ]]; then
    echo "run-guest.sh: guest setup failed" >&2; show_console
fi
[[ $quiet -eq 1 ]] || echo "run-guest.sh: guest exit $status; command started at guest uptime $(cat "$share/boot-seconds" 2>/dev/null || echo ?) s; QEMU wall $wall s" >&2
[[ "$status" =~ ^[0-9]+$ ]] || { echo "run-guest.sh: bad status '$status'" >&2; exit 2; }
exit "$status"
