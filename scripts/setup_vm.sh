#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What the virtual-machine test (tests/vm) needs, installed and cached once:
#   Debian's qemu-system-x86, busybox-static and cpio (apt);
#   vhost-device-vsock 0.3.0 (rust-vmm, crates.io), built with cargo into
#     $deps/cargo/bin (a project-local root, not ~/.cargo/bin);
#   Debian's cloud kernel, downloaded and unpacked (apt-get download +
#     dpkg-deb -x, never installed): its vmlinuz and the 8 virtio and vsock
#     modules a guest needs, kept in $deps/kernel.
# $deps is $OPENPIM_VM_DEPS, else build/vm-deps of this checkout (shared by
# every build folder).  Idempotent: what is there is not fetched again.
# OPENPIM_SKIP_VM=1 skips it all (the test then says it was skipped).
# Called by scripts/setup.sh.
#   scripts/setup_vm.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps=${OPENPIM_VM_DEPS:-$root/build/vm-deps}
if [[ -n ${OPENPIM_SKIP_VM:-} ]]; then
    echo "setup: OPENPIM_SKIP_VM=$OPENPIM_SKIP_VM: the virtual-machine test's dependencies are not" \
         "installed (the test will be skipped)"
    exit 0
fi
mkdir -p "$deps"
sudo=""; [[ $(id -u) -eq 0 ]] || sudo=sudo

need=()
for pkg in qemu-system-x86 busybox-static cpio; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if ((${#need[@]})); then
    echo "setup: installing ${need[*]} (the virtual-machine test)"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# vhost-device-vsock: QEMU's vhost-user-vsock-pci device talks to it; it maps
# a guest's vsock connections to host UNIX sockets (no /dev/vhost-vsock needed)
backend=$deps/cargo/bin/vhost-device-vsock
if [[ ! -x $backend ]]; then
    cargo=$(command -v cargo || true)
    [[ -n $cargo ]] || { [[ -x $HOME/.cargo/bin/cargo ]] && cargo=$HOME/.cargo/bin/cargo; }
    if [[ -z $cargo ]]; then
        echo "setup: cargo is missing: install Rust (https://rustup.rs) to build vhost-device-vsock," \
             "or set OPENPIM_SKIP_VM=1 to skip the virtual-machine test" >&2
        exit 1
    fi
    echo "setup: building vhost-device-vsock 0.3.0 with $cargo (about a minute)"
    log=$deps/cargo-install.log
    if ! nice "$cargo" install vhost-device-vsock --version 0.3.0 --locked --root "$deps/cargo" >"$log" 2>&1; then
        tail -20 "$log" >&2
        echo "setup: cargo install vhost-device-vsock failed (full log: $log)" >&2
        exit 1
    fi
fi

# the guest kernel: the image linux-image-cloud-amd64 points at, unpacked
kdir=$deps/kernel
if [[ ! -s $kdir/vmlinuz || ! -s $kdir/version ]]; then
    pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
    if [[ -z $pkg ]]; then
        $sudo apt-get update -qq
        pkg=$(apt-cache depends linux-image-cloud-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
    fi
    [[ -n $pkg ]] || { echo "setup: apt knows no linux-image-cloud-amd64" >&2; exit 1; }
    kver=${pkg#linux-image-}
    echo "setup: fetching the guest kernel $pkg (downloaded and unpacked, not installed)"
    tmp=$(mktemp -d "$deps/kernel.XXXXXX")
    # apt-get download runs as _apt where it can: give it a folder it may write
    chmod 755 "$tmp"
    (cd "$tmp" && apt-get download -qq "$pkg" 2>&1 | grep -v 'unsandboxed' || true)
    deb=$(ls "$tmp"/*.deb 2>/dev/null | head -1)
    [[ -n $deb ]] || { echo "setup: apt-get download $pkg failed" >&2; exit 1; }
    dpkg-deb -x "$deb" "$tmp/root"
    rm -rf "$kdir" && mkdir -p "$kdir/modules"
    cp "$tmp/root/boot/vmlinuz-$kver" "$kdir/vmlinuz"
    mods=$tmp/root/lib/modules/$kver/kernel
    # in load order (modules.dep): virtio, its PCI transport, vsock, its virtio transport
    for m in drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_legacy_dev \
             drivers/virtio/virtio_pci_modern_dev drivers/virtio/virtio_pci net/vmw_vsock/vsock \
             net/vmw_vsock/vmw_vsock_virtio_transport_common net/vmw_vsock/vmw_vsock_virtio_transport; do
        cp "$mods/$m.ko" "$kdir/modules/"
        echo "$(basename "$m")" >>"$kdir/modules/order"
    done
    echo "$kver" >"$kdir/version"
    rm -rf "$tmp"
fi
qemu=$(qemu-system-x86_64 --version | head -1 | awk '{print $4}')
echo "setup: virtual-machine test ready ($deps: QEMU $qemu, $("$backend" --version 2>/dev/null)," \
     "kernel $(cat "$kdir/version"))"
