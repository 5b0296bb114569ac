#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libFuzzer on openpimd's request decoder (fuzz_decoder.c), built here with
# clang-14 -fsanitize=fuzzer,address,undefined; starts from the built-in
# seeds of the deterministic fuzzer.  Exits 77 (skipped) where clang-14's
# libFuzzer (libclang-rt-14-dev) is missing.
#   run_fuzz.sh WORK_DIR SEED_WRITER [SECONDS]      (FUZZ_SECONDS overrides)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$1 seeds=$2 seconds=${FUZZ_SECONDS:-${3:-30}}
cc=${FUZZ_CC:-clang-14}
mkdir -p "$work/corpus" "$work/artifacts"
if ! command -v "$cc" >/dev/null 2>&1 ||
   ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n){(void)d;(void)n;return 0;}' |
     "$cc" -x c -fsanitize=fuzzer -o "$work/.probe" - >/dev/null 2>&1; then
    echo "run_fuzz.sh: $cc with libFuzzer (libclang-rt-14-dev) is not available: skipped" >&2
    exit 77
fi
"$cc" -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -Wall -Wextra -Werror -std=c11 -o "$work/fuzz_decoder" "$here/fuzz_decoder.c" "$here/../protocol.c"
"$seeds" --seeds "$work/corpus"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
"$work/fuzz_decoder" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" "$work/corpus" 2>&1 | tail -15
