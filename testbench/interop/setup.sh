#!/usr/bin/env bash
# Install, only when missing, the Debian 12 host packages the interop harness needs.
#   qemu-system-x86  runs the guests (qemu-system-x86_64, TCG)
#   kmod             depmod, to index the reduced module tree of the guest
#   cpio             packs the initramfs
#   xz-utils         unpacks the kernel's xz payload into vmlinux
#   python3          relay.py (stdlib only), the host-side helpers
# Optional: --with-tshark also installs tshark (decoding captures).
# Idempotent: a second run installs nothing and says so.
set -euo pipefail

want=(qemu-system-x86 kmod cpio xz-utils python3)
if [[ "${1:-}" == "--with-tshark" ]]; then
    want+=(tshark)
fi

if [[ $(id -u) -ne 0 ]]; then
    SUDO=sudo
else
    SUDO=
fi

missing=()
for p in "${want[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
        missing+=("$p")
    fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "setup.sh: all host packages present (${want[*]})"
    exit 0
fi

echo "setup.sh: installing ${missing[*]}"
$SUDO apt-get update -q
# tshark asks whether non-root users may capture: answer with the default, non-interactively.
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "setup.sh: installed ${missing[*]}"
