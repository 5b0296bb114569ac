#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds one bundled example with its own Makefile, as a user would after
# sourcing upmem_env.sh, and runs it on several DPU counts; every run must
# print its [OK] line.
#   run_example.sh SDK_DIR SRC_DIR WORK_DIR NR_TASKLETS DPU_COUNT...
set -euo pipefail
sdk=$1 src=$2 work=$3 tasklets=$4
shift 4
source "$sdk/upmem_env.sh"
name=$(basename "$src")
rm -rf "$work" && mkdir -p "$(dirname "$work")" && cp -r "$src" "$work"
rm -rf "$work/bin"
if ! make -C "$work" NR_TASKLETS="$tasklets" >"$work/build.log" 2>&1; then
    cat "$work/build.log"; echo "FAIL: $name did not build with NR_TASKLETS=$tasklets"; exit 1
fi
status=0
for dpus in "$@"; do
    # OPENPIM_RUN_PRELOAD: the sanitizer runtime an instrumented libdpu needs (sanitizer builds)
    out=$(cd "$work" && OPENPIM_QUIET=1 LD_PRELOAD=${OPENPIM_RUN_PRELOAD:-} ./bin/host_app -d "$dpus" 2>&1) || true
    if grep -q '^\[OK\]' <<<"$out" && ! grep -q '^\[ERROR\]' <<<"$out"; then
        echo "$name NR_TASKLETS=$tasklets dpus=$dpus: $(grep '^\[OK\]' <<<"$out" | head -1)"
    else
        echo "FAIL: $name NR_TASKLETS=$tasklets dpus=$dpus"; echo "$out" | tail -20; status=1
    fi
done
exit $status
