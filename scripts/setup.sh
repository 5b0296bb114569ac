#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what OpenPIM needs (Debian packages, with sudo when not root, only
# those missing), makes the Python virtual environment of the tests and the
# report (<build>/venv, from python/requirements-test.txt; never the system
# interpreter) and builds OpenPIM into build/ (or $OPENPIM_BUILD).
# Idempotent: re-running only rebuilds what changed.  README.md ("Building by
# hand") gives the same steps without sudo.
#   scripts/setup.sh [extra cmake args...]
# Environment: OPENPIM_BUILD (build folder), OPENPIM_VENV (the virtual
# environment, default <build>/venv; scripts/test.sh shares build/venv
# between its builds)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OPENPIM_BUILD:-$root/build}

need=()
for pkg in cmake make gcc clang-14 llvm-14-dev libclang-rt-14-dev pkg-config python3 python3-venv openmpi-bin \
    libopenmpi-dev chromium libdw-dev libssl-dev; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if ((${#need[@]})); then
    echo "setup: installing ${need[*]}"
    sudo=""; [[ $(id -u) -eq 0 ]] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

# Python packages of the tests and the report (python/requirements-test.txt)
# in a virtual environment under the build folder; CMake's tests and
# scripts/report.sh use its python3
venv=${OPENPIM_VENV:-$build/venv}
req="$root/python/requirements-test.txt"
if [[ ! -x $venv/bin/python3 ]]; then
    echo "setup: Python virtual environment $venv"
    python3 -m venv "$venv"
fi
if ! "$venv/bin/python3" -c 'import pytest, numpy, seal, matplotlib' 2>/dev/null; then
    echo "setup: installing Python packages into $venv ($req)"
    "$venv/bin/python3" -m pip install -q -r "$req"
fi

# QEMU, vhost-device-vsock and a guest kernel for the virtual-machine test
# (cached under build/vm-deps; OPENPIM_SKIP_VM=1 skips them and the test)
"$root/scripts/setup_vm.sh"

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPython3_EXECUTABLE="$venv/bin/python3" "$@" >/dev/null
log="$build/build.log"
if ! cmake --build "$build" -j "$(nproc)" >"$log" 2>&1; then
    grep -B2 -A12 -m5 'error' "$log" >&2 || tail -40 "$log" >&2
    echo "setup: build failed (full log: $log)" >&2
    exit 1
fi
echo "setup: OpenPIM SDK ready in $build/sdk (source $build/sdk/upmem_env.sh to use it)"
