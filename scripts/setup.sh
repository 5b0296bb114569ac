#!/usr/bin/env bash
# Installs what OpenPIM needs (Debian packages) and builds it into build/
# (or $OPENPIM_BUILD).  Idempotent: re-running only rebuilds what changed.
#   scripts/setup.sh [extra cmake args...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OPENPIM_BUILD:-$root/build}

need=()
for pkg in cmake make gcc clang-14 llvm-14-dev libclang-rt-14-dev pkg-config python3 openmpi-bin libopenmpi-dev \
           chromium libssl-dev; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if ((${#need[@]})); then
    echo "setup: installing ${need[*]}"
    sudo=""; [[ $(id -u) -eq 0 ]] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

# Python packages of the tests (python/requirements-test.txt), for the python3
# on PATH; Debian's own python3 refuses pip without --break-system-packages.
req="$root/python/requirements-test.txt"
if ! python3 -c 'import pytest, numpy, seal, matplotlib' 2>/dev/null; then
    python3 -m pip --version >/dev/null 2>&1 || {
        sudo=""; [[ $(id -u) -eq 0 ]] || sudo=sudo
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-pip >/dev/null
    }
    echo "setup: installing Python packages ($req)"
    python3 -m pip install -q -r "$req" 2>/dev/null ||
        python3 -m pip install -q --break-system-packages -r "$req"
fi

# QEMU, vhost-device-vsock and a guest kernel for the virtual-machine test
# (cached under build/vm-deps; OPENPIM_SKIP_VM=1 skips them and the test)
"$root/scripts/setup_vm.sh"

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
log="$build/build.log"
if ! cmake --build "$build" -j "$(nproc)" >"$log" 2>&1; then
    grep -B2 -A12 -m5 'error' "$log" >&2 || tail -40 "$log" >&2
    echo "setup: build failed (full log: $log)" >&2
    exit 1
fi
echo "setup: OpenPIM SDK ready in $build/sdk (source $build/sdk/upmem_env.sh to use it)"
