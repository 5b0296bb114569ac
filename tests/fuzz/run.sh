#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds and runs OpenPIM's libFuzzer harnesses for a bounded time:
#   fuzz_api    the host API (dpu.h) on a small machine, with a real DPU program
#   fuzz_image  the DPU image parser (abi/image.c)
# They are compiled here with clang-14 -fsanitize=fuzzer,address,undefined
# straight from libdpu's sources (as listed by CMake);
# the DPU program, the DPU toolchain and the worker come from an existing build.
#
#   tests/fuzz/run.sh BUILD_DIR            fuzz (60 s api + 30 s image)
#   FUZZ_SECONDS=600 tests/fuzz/run.sh BUILD_DIR     longer (each harness)
#   tests/fuzz/run.sh BUILD_DIR replay-api FILE...    run inputs once (replay-image:
#                                                    the parser's); FUZZ_NO_BUILD=1:
#                                                    use the harnesses already built
#
# Seeds and regression inputs: tests/fuzz/corpus-api, tests/fuzz/corpus-image
# (every one is replayed first).  New coverage goes to BUILD_DIR/tests/fuzz/
# corpus-*; crashes to BUILD_DIR/tests/fuzz/artifacts.  Exits non-zero on any
# crash, leak, sanitizer report, invariant violation or hang; 77 (skipped) when
# clang-14's libFuzzer is not installed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: run.sh BUILD_DIR [replay FILE...]}" && pwd)
shift
out=$build/tests/fuzz
mkdir -p "$out/artifacts" "$out/corpus-api" "$out/corpus-image"

cc=${FUZZ_CC:-clang-14}
if ! command -v "$cc" >/dev/null 2>&1 ||
   ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n){(void)d;(void)n;return 0;}' |
     "$cc" -x c -fsanitize=fuzzer -o "$out/.probe" - >/dev/null 2>&1; then
    echo "run.sh: $cc with libFuzzer (libclang-rt-14-dev) is not available: skipped" >&2
    exit 77
fi
rm -f "$out/.probe"
worker=$build/sdk/lib/openpim/openpim-worker
dpucc=$build/sdk/bin/dpu-upmem-dpurte-clang
[[ -x $worker && -x $dpucc ]] || { echo "run.sh: build OpenPIM in $build first" >&2; exit 1; }

# ---- build --------------------------------------------------------------------------
if [[ -z ${FUZZ_NO_BUILD:-} ]]; then
OPENPIM_QUIET=1 "$dpucc" -O2 -g -Wall -Wextra -Werror -DNR_TASKLETS=4 -o "$out/dpu_fuzz" "$here/dpu_fuzz.c"

san=(-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
     -Wall -Wextra -Werror -std=gnu11)
# libdpu as CMakeLists.txt builds it (tests/fuzz/CMakeLists.txt lists the
# sources of the dpu target and of the static libraries it links); without a
# list, the usual ones
if [[ -s $out/libdpu.sources ]]; then
    mapfile -t libdpu < <(grep -v "^$" "$out/libdpu.sources")
    mapfile -t incdirs <"$out/libdpu.includes"
else
    libdpu=("$src"/sdk/*.c "$src"/machine/machine.c "$src"/machine/mram.c "$src"/machine/backend_local.c "$src"/abi/image.c "$src"/machine/domain.c "$src"/backend/backend_remote.c "$src"/timing/*.c)
    incdirs=("$src/sdk/include" "$src/timing")
fi
incs=(-I "$src/sdk/include" -I "$src/sdk")
for d in "${incdirs[@]}"; do [[ -n $d ]] && incs+=(-I "$d"); done
libs=(-ldl -lm -ldw -lelf) # libdpu's system libraries (CMakeLists.txt: dpu)
"$cc" "${san[@]}" "${incs[@]}" -o "$out/fuzz_api" "$here/fuzz_api.c" "${libdpu[@]}" "${libs[@]}" &
api_pid=$!
"$cc" "${san[@]}" -I "$src/abi" -o "$out/fuzz_image" "$here/fuzz_image.c" "$src/abi/image.c"
wait $api_pid
fi

# ---- run ----------------------------------------------------------------------------
export FUZZ_DPU_BIN=$out/dpu_fuzz
# mutated DPU code runs in the build's workers (the harness has libdpu built
# in, so it is told where they are), confined by their own seccomp filter
# (worker/sandbox.c); a worker that dies of it leaves no core file
ulimit -c 0
export OPENPIM_WORKER=$worker
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
unset UPMEM_PROFILE UPMEM_PROFILE_BASE

common=(-timeout=60 -rss_limit_mb=8192 -malloc_limit_mb=4096 -print_final_stats=1
        -artifact_prefix="$out/artifacts/")

if [[ ${1:-} == replay-api || ${1:-} == replay-image ]]; then
    name=fuzz_${1#replay-}
    shift
    exec "$out/$name" "${common[@]}" "$@"
fi

api_s=${FUZZ_SECONDS:-60}
image_s=${FUZZ_SECONDS:-30}
status=0
fuzz() { # name seconds max_len len_control
    local name=$1 log=$out/$1.log rc=0
    echo "== $name for ${2}s (log: $log)"
    "$out/$name" "${common[@]}" -max_len="$3" -len_control="$4" -max_total_time="$2" "$out/corpus-${name#fuzz_}" \
        "$here/corpus-${name#fuzz_}" >"$log" 2>&1 || rc=$?
    grep -E '^(INFO: seed corpus|#[0-9]+ +(INITED|DONE))|^stat::|ERROR|INVARIANT|SUMMARY|Test unit written|^==[0-9]+==' "$log" | head -n 60 || true
    if (( rc )); then
        echo "$name: FAILED (exit $rc); the end of its log:" >&2
        tail -n 60 "$log" >&2
        status=1
    fi
}
fuzz fuzz_api "$api_s" 4096 0
fuzz fuzz_image "$image_s" 8192 100
(( status == 0 )) || { echo "run.sh: FAILED: see $out/fuzz_*.log and $out/artifacts/" >&2; ls -l "$out/artifacts" >&2; }
exit $status
