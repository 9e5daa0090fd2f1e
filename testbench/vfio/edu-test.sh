#!/usr/bin/env bash
# The driver's VFIO layer against the kernel's real VFIO: QEMU's `edu` PCI device behind an emulated Intel
# IOMMU, in the interop guest (testbench/interop), driven by the `vfio-edu` binary (tools/src/bin).
#
# Boot 1 (q35 + intel-iommu + edu, guest intel_iommu=on):
#   - opening a device that does not exist, and edu before it is bound to vfio-pci, give those errors;
#   - edu is bound to vfio-pci; opening it as an unprivileged user gives the permission error;
#   - `vfio-edu check`: BAR0 mmap, registers, MSI on an eventfd, DMA both ways through 4 KiB and 2 MiB
#     pages, the IOMMU blocking reads from unmapped IOVAs (and the guest kernel logging the DMAR fault),
#     and VfioBackend + Context::open refusing a device that is not a rocenic;
#   - `rocenic devinfo` and `rocenic stat --device vfio:` open edu through the same layer and refuse it by
#     its ID register, in one line.
# Boot 2 (q35 + edu, no IOMMU): opening edu gives the no-IOMMU-group error.
# Prints one line per check and `vfio-edu-test: N passed, M failed`; exits 0 only when none failed.
#
# usage: testbench/vfio/edu-test.sh      (installs QEMU and builds the guest image itself when missing)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/build/vfio
mkdir -p "$out"
bash "$root/testbench/interop/setup.sh"
bash "$root/testbench/interop/build-image.sh"

# A static binary: the guest has glibc but not libgcc_s/libstdc++. Its own target dir, so the flags do
# not invalidate the workspace's build cache; without the sim feature it links no Verilated model.
(cd "$root" && CARGO_TARGET_DIR=$root/build/vfio-target RUSTFLAGS="-C target-feature=+crt-static" \
    cargo build -q --release --target x86_64-unknown-linux-gnu -p rocenic-tools \
    --no-default-features --features vfio --bin vfio-edu --bin rocenic)
bin=$root/build/vfio-target/x86_64-unknown-linux-gnu/release/vfio-edu
tool=$root/build/vfio-target/x86_64-unknown-linux-gnu/release/rocenic

passed=0 failed=0
ok() { echo "  PASS $1"; passed=$((passed + 1)); }
bad() { echo "  FAIL $1"; failed=$((failed + 1)); }
expect() { # expect NAME FILE REGEX
    if grep -qE -- "$3" "$2"; then ok "$1"; else bad "$1 (no line matching /$3/)"; fi
}

edu=0000:00:06.0
share1=$out/share-iommu share2=$out/share-no-iommu
rm -rf "$share1" "$share2"; mkdir -p "$share1" "$share2"
cp "$bin" "$tool" "$share1/"; cp "$bin" "$share2/"

cat > "$share1/cmd.sh.in" <<GUEST
echo "== no such device"; ./vfio-edu open 0000:00:1f.7
echo "== before binding"; ./vfio-edu open $edu
echo 1234 11e8 > /sys/bus/pci/drivers/vfio-pci/new_id
ls /dev/vfio
echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd
echo "== unprivileged"; su -s /bin/sh nobody -c "./vfio-edu open $edu"
echo 4 > /proc/sys/vm/nr_hugepages
echo "hugepages: \$(cat /proc/sys/vm/nr_hugepages)"
echo "== check"; ./vfio-edu check $edu --require-huge; echo "check exit \$?"
echo "== tools"; ./rocenic devinfo -v --device vfio:$edu; echo "devinfo exit \$?"
./rocenic stat --device vfio:$edu; echo "stat exit \$?"
echo "== dmesg"; dmesg | grep -i dmar | tail -n 20
GUEST

set +e
"$root/testbench/interop/run-guest.sh" --quiet --edu iommu --share "$share1" --timeout 240 \
    "$(cat "$share1/cmd.sh.in")" > "$out/iommu.log" 2>&1
rc1=$?
"$root/testbench/interop/run-guest.sh" --quiet --edu no-iommu --share "$share2" --timeout 120 \
    "./vfio-edu open $edu" > "$out/no-iommu.log" 2>&1
set -e
sed 's/^/  guest1| /' "$out/iommu.log"
sed 's/^/  guest2| /' "$out/no-iommu.log"

[[ $rc1 -le 1 ]] && ok "guest with IOMMU ran (exit $rc1)" || bad "guest with IOMMU did not run (exit $rc1)"
l=$out/iommu.log
expect "no such device -> NoPciDevice" "$l" '^open: error\[NoPciDevice\]'
expect "not bound to vfio-pci -> NotBoundToVfio" "$l" '^open: error\[NotBoundToVfio\].*1234 11e8'
expect "unprivileged -> VfioPermission" "$l" '^open: error\[VfioPermission\]'
expect "huge pages reserved in the guest" "$l" '^hugepages: [1-9]'
for c in "open" "bar0" "edu identification register" "BAR write then read" "device computes" \
         "MSI to eventfd" "DMA round trip \(4 KiB pages\)" "DMA round trip \(2 MiB huge page\)" \
         "IOMMU blocks unmapped IOVAs" "VfioBackend refuses a non-rocenic device"; do
    expect "vfio-edu: $c" "$l" "^PASS $c"
done
if grep -q '^FAIL ' "$l"; then bad "vfio-edu reported failures"; fi
expect "vfio-edu check exit 0" "$l" '^check exit 0$'
# edu's identification register reads 0xMMmm00ed (its version, then 0xed): not a rocenic, said in one line.
expect "rocenic devinfo --device vfio: refuses edu by its ID" "$l" \
    '^rocenic devinfo: error: no rocenic device: ID register reads 0x[0-9a-f]{6}ed'
expect "rocenic stat --device vfio: refuses edu by its ID" "$l" \
    '^rocenic stat: error: no rocenic device: ID register reads 0x[0-9a-f]{6}ed'
expect "rocenic devinfo exits 1" "$l" '^devinfo exit 1$'
# The blocked reads are the IOMMU's doing: the guest kernel logs a DMAR fault at the unmapped IOVA.
expect "guest kernel logged the DMAR fault" "$l" 'DMAR.*Request device \[00:06.0\] fault addr (0x)?600000'
expect "no IOMMU -> NoIommuGroup" "$out/no-iommu.log" '^open: error\[NoIommuGroup\].*intel_iommu=on'

echo "vfio-edu-test: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
