#!/usr/bin/env bash
# Build the Soft-RoCE guest: an uncompressed kernel (vmlinux) and an uncompressed cpio initramfs,
# both from Debian 12 packages fetched with `apt-get download` and unpacked with `dpkg -x` (nothing is
# installed on the host). Output: build/interop/{vmlinux,initramfs.cpio,kernel-version,stamp}.
#
# Cached: when build/interop/stamp holds the hash of this script and of guest-init, and both images
# exist, the script does nothing. `--force` rebuilds. The downloaded .debs are kept in
# build/interop/debs/ so a rebuild after an edit does not download again.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${ROCENIC_INTEROP_OUT:-$root/build/interop}
force=0
[[ "${1:-}" == "--force" ]] && force=1

for tool in apt-get apt-cache dpkg depmod cpio xz; do
    command -v "$tool" >/dev/null || { echo "build-image.sh: '$tool' missing: run testbench/interop/setup.sh" >&2; exit 1; }
done

hash=$(cat "$here/build-image.sh" "$here/guest-init" | sha256sum | cut -d' ' -f1)
if [[ $force -eq 0 && -f "$out/stamp" && -f "$out/vmlinux" && -f "$out/initramfs.cpio" \
      && "$(cat "$out/stamp")" == "$hash" ]]; then
    echo "build-image.sh: image up to date in $out (stamp $hash)"
    exit 0
fi

start=$(date +%s.%N)
mkdir -p "$out/debs"
rm -rf "$out/staging" "$out/rootfs" "$out/stamp"
mkdir -p "$out/staging" "$out/rootfs"

# ---- 1. which packages ---------------------------------------------------------------------------
# The kernel: the concrete package linux-image-amd64 points to (downloaded without its dependencies,
# which are host-side boot tooling the guest does not need).
kpkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
[[ -n "$kpkg" ]] || { echo "build-image.sh: cannot resolve linux-image-amd64 (run apt-get update)" >&2; exit 1; }

user_pkgs=(busybox-static libibverbs1 ibverbs-providers ibverbs-utils librdmacm1 rdmacm-utils
           perftest libibumad3 iproute2)
# Their dependency closure (Depends only); libraries actually copied are chosen later by the dynamic
# loader, so an extra package here only costs download time.
mapfile -t closure < <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
        --no-breaks --no-replaces --no-enhances "${user_pkgs[@]}" \
    | grep -v '^ ' | grep -v '^<' | sort -u)

# ---- 2. download (only what is not in debs/ yet) -------------------------------------------------
need=()
for p in "$kpkg" "${closure[@]}"; do
    # Package names map to files NAME_VERSION_ARCH.deb; a package whose file is present is skipped.
    ls "$out/debs/${p}_"*.deb >/dev/null 2>&1 || need+=("$p")
done
if [[ ${#need[@]} -gt 0 ]]; then
    echo "build-image.sh: downloading ${#need[@]} packages"
    (cd "$out/debs" && apt-get download -q -o APT::Sandbox::User=root "${need[@]}" >/dev/null)
fi

# ---- 3. unpack into a staging tree ---------------------------------------------------------------
for p in "$kpkg" "${closure[@]}"; do
    deb=$(ls "$out/debs/${p}_"*.deb | sort -V | tail -n1)
    dpkg -x "$deb" "$out/staging"
done
st=$out/staging
# Debian 12 is merged-/usr at run time but packages still ship /lib, /bin: fold them into /usr.
for d in lib lib64 bin sbin; do
    if [[ -d "$st/$d" && ! -L "$st/$d" ]]; then
        mkdir -p "$st/usr/$d"
        cp -a "$st/$d/." "$st/usr/$d/"
        rm -rf "${st:?}/$d"
    fi
done

# ---- 4. kernel: xz payload of the bzImage -> vmlinux ---------------------------------------------
kver=$(ls "$st/usr/lib/modules" | head -n1)
vmlinuz=$st/boot/vmlinuz-$kver
# Offset of the first xz stream magic FD 37 7A 58 5A 00 in the bzImage.
off=$({ LC_ALL=C grep -obUaP -m1 '\xfd7zXZ\x00' "$vmlinuz" || true; } | head -n1 | cut -d: -f1)
[[ -n "$off" ]] || { echo "build-image.sh: no xz payload in $vmlinuz" >&2; exit 1; }
{ tail -c +$((off + 1)) "$vmlinuz" || true; } | xz -dc --single-stream > "$out/vmlinux.tmp"
[[ "$(head -c4 "$out/vmlinux.tmp" | od -An -tx1 | tr -d ' ')" == 7f454c46 ]] \
    || { echo "build-image.sh: extracted kernel is not ELF" >&2; exit 1; }
mv "$out/vmlinux.tmp" "$out/vmlinux"
echo "$kver" > "$out/kernel-version"

# ---- 5. root filesystem --------------------------------------------------------------------------
rf=$out/rootfs
mkdir -p "$rf"/{bin,sbin,etc,proc,sys,dev,run,tmp,mnt/host,root,usr/bin,usr/sbin,usr/lib/x86_64-linux-gnu}
ln -s usr/lib "$rf/lib"
ln -s usr/lib64 "$rf/lib64" 2>/dev/null || true
mkdir -p "$rf/usr/lib64"

cp "$st/usr/bin/busybox" "$rf/bin/busybox"
for applet in $("$rf/bin/busybox" --list); do
    [[ -e "$rf/bin/$applet" ]] || ln -s busybox "$rf/bin/$applet"
done

# Dynamic programs we want, then every shared object they need, resolved by Debian's own loader
# against the staging tree (same architecture as the host, so it can run it in --list mode).
progs=(usr/bin/ip usr/bin/rdma usr/bin/ibv_devices usr/bin/ibv_devinfo usr/bin/ibv_rc_pingpong
       usr/bin/ibv_uc_pingpong usr/bin/ibv_ud_pingpong usr/bin/ibv_srq_pingpong usr/bin/rping
       usr/bin/ucmatose usr/bin/udaddy usr/bin/rdma_server usr/bin/rdma_client)
for p in "$st"/usr/bin/ib_*; do progs+=("usr/bin/$(basename "$p")"); done
# Verbs provider for rxe is dlopen()ed: copy the plugin and its driver file explicitly.
provider=$(cd "$st" && ls usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so)
mkdir -p "$rf/etc/libibverbs.d" "$rf/usr/lib/x86_64-linux-gnu/libibverbs"
cp "$st/etc/libibverbs.d/rxe.driver" "$rf/etc/libibverbs.d/"
progs+=("$provider")

ldso=$st/usr/lib64/ld-linux-x86-64.so.2
[[ -e "$ldso" ]] || ldso=$st/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
libpath=$st/usr/lib/x86_64-linux-gnu
declare -A libs=()
for p in "${progs[@]}"; do
    [[ -e "$st/$p" ]] || { echo "build-image.sh: $p missing from the packages" >&2; exit 1; }
    mkdir -p "$rf/$(dirname "$p")"
    cp -L "$st/$p" "$rf/$p"
    while read -r line; do
        # lines: "libfoo.so.1 => /path/libfoo.so.1 (0x...)" or "/lib64/ld-linux... (0x...)"
        path=$(awk '{ if ($2 == "=>") print $3; else print $1 }' <<<"$line")
        case "$path" in "$st"/*) libs["$path"]=1 ;; esac
        if [[ "$line" == *"not found"* ]]; then
            echo "build-image.sh: $p: $line" >&2; exit 1
        fi
    done < <("$ldso" --library-path "$libpath" --list "$st/$p" 2>&1 | grep -v 'linux-vdso')
done
for lib in "${!libs[@]}"; do
    rel=${lib#"$st"/}
    mkdir -p "$rf/$(dirname "$rel")"
    cp -L "$lib" "$rf/$rel"
done
cp -L "$ldso" "$rf/usr/lib64/ld-linux-x86-64.so.2"
# iproute2's rdma/ip read a few tables from /etc/iproute2 (harmless when absent, quieter when present).
[[ -d "$st/etc/iproute2" ]] && cp -a "$st/etc/iproute2" "$rf/etc/" || true
[[ -d "$st/usr/share/iproute2" ]] && mkdir -p "$rf/usr/share" && cp -a "$st/usr/share/iproute2" "$rf/usr/share/" || true
# perftest and libibverbs look up users/hosts rarely; give them minimal files.
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$rf/etc/passwd"
printf 'root:x:0:\n' > "$rf/etc/group"
printf '127.0.0.1 localhost\n' > "$rf/etc/hosts"

# ---- 6. kernel modules with their dependencies ---------------------------------------------------
# vfio-pci and the type-1 IOMMU backend: the VFIO test binds QEMU's edu device to them. 8021q: the
# interop run's VLAN role puts rxe on eth0.100.
mods=(rdma_rxe ib_uverbs rdma_ucm ib_umad virtio_net virtio_pci 9pnet_virtio 9p crc32_generic
      vfio vfio_iommu_type1 vfio_pci 8021q)
depmod -b "$st/usr" "$kver" 2>/dev/null || depmod -b "$st" "$kver"
mdir=$st/usr/lib/modules/$kver
declare -A kos=()
for m in "${mods[@]}"; do
    # modules.dep: "kernel/path/name.ko: dep1.ko dep2.ko"; module names use _ and - interchangeably.
    line=$(awk -v m="$m" '{ f = $1; sub(":$", "", f); n = f; sub(".*/", "", n); sub("\\.ko(\\.xz|\\.zst|\\.gz)?$", "", n);
                            gsub("-", "_", n); mm = m; gsub("-", "_", mm); if (n == mm) { print; exit } }' "$mdir/modules.dep")
    if [[ -z "$line" ]]; then
        # built into this kernel?
        if grep -q "/${m//_/[-_]}.ko" "$mdir/modules.builtin" 2>/dev/null; then continue; fi
        echo "build-image.sh: module $m not found" >&2; exit 1
    fi
    for f in ${line/:/}; do kos["$f"]=1; done
done
for f in "${!kos[@]}"; do
    mkdir -p "$rf/usr/lib/modules/$kver/$(dirname "$f")"
    case "$f" in
        *.ko.xz) xz -dc "$mdir/$f" > "$rf/usr/lib/modules/$kver/${f%.xz}" ;;
        *) cp "$mdir/$f" "$rf/usr/lib/modules/$kver/$f" ;;
    esac
done
cp "$mdir"/modules.{order,builtin,builtin.modinfo} "$rf/usr/lib/modules/$kver/" 2>/dev/null || true
depmod -b "$rf/usr" "$kver"
printf '%s\n' "${mods[@]}" > "$rf/etc/rocenic-modules"

# ---- 7. init and archive -------------------------------------------------------------------------
install -m 0755 "$here/guest-init" "$rf/init"
(cd "$rf" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet) > "$out/initramfs.cpio.tmp"
mv "$out/initramfs.cpio.tmp" "$out/initramfs.cpio"
rm -rf "$st"
echo "$hash" > "$out/stamp"

end=$(date +%s.%N)
printf 'build-image.sh: kernel %s, vmlinux %s MB, initramfs %s MB, built in %.1f s\n' "$kver" \
    "$(( $(stat -c %s "$out/vmlinux") / 1000000 ))" "$(( $(stat -c %s "$out/initramfs.cpio") / 1000000 ))" \
    "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
