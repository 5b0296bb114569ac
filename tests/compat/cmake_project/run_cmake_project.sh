#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Configures, builds and runs a CMake project that uses UPMEM's CMake modules
# from the SDK prefix, as a user would after sourcing upmem_env.sh; the host
# program must exit 0 and print [OK].
#   run_cmake_project.sh SDK_DIR SRC_DIR WORK_DIR [cmake -D options...]
set -euo pipefail
sdk=$1 src=$2 work=$3
shift 3
source "$sdk/upmem_env.sh"
unset CC CXX CFLAGS CXXFLAGS LDFLAGS # the user's plain environment, not the test build's
rm -rf "$work" && mkdir -p "$work"
if ! { cmake -S "$src" -B "$work" "$@" && cmake --build "$work" -j 2; } >"$work/build.log" 2>&1; then
    cat "$work/build.log"; echo "FAIL: $(basename "$src") did not configure or build ($*)"; exit 1
fi
status=0
out=$(cd "$work" && OPENPIM_QUIET=1 LD_PRELOAD=${OPENPIM_RUN_PRELOAD:-} ./host_app 2>&1) || status=$?
echo "$out"
if (( status != 0 )) || ! grep -q '^\[OK\]' <<<"$out" || grep -q '^\[ERROR\]' <<<"$out"; then
    echo "FAIL: $(basename "$src") ($*)"; exit 1
fi
