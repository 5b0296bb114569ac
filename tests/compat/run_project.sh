#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds a small UPMEM project with its own Makefile, as a user would after
# sourcing upmem_env.sh, then runs `make test`; it must exit 0 and print [OK].
#   run_project.sh SDK_DIR SRC_DIR WORK_DIR [MAKE_VARIABLE=value...]
set -euo pipefail
sdk=$1 src=$2 work=$3
shift 3
source "$sdk/upmem_env.sh"
rm -rf "$work" && mkdir -p "$(dirname "$work")" && cp -r "$src" "$work" && rm -rf "$work/bin"
cp "$(dirname "$0")/one_program.mk" "$work/" # the rules single-program projects include
if ! make -C "$work" "$@" all >"$work/build.log" 2>&1; then
    cat "$work/build.log"; echo "FAIL: $(basename "$src") did not build ($*)"; exit 1
fi
# OPENPIM_RUN_PRELOAD: the sanitizer runtime an instrumented libdpu needs (sanitizer builds)
status=0
out=$(OPENPIM_QUIET=1 LD_PRELOAD=${OPENPIM_RUN_PRELOAD:-} make -s -C "$work" "$@" test 2>&1) || status=$?
echo "$out"
if (( status != 0 )) || ! grep -q '^\[OK\]' <<<"$out" || grep -q '^\[ERROR\]' <<<"$out"; then
    echo "FAIL: $(basename "$src") ($*)"; exit 1
fi
