#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Domain-transfer benchmark (the rank's physical view).
# 1. GB/s of each 8x8 byte-transpose implementation of machine/domain.c that
#    this CPU runs (AVX-512 VBMI, AVX-512BW, AVX2, portable C), both directions
#    (host-view lines -> 8 DPU buffers, and back), for a buffer that stays in
#    cache (256 KiB of view) and one that does not (256 MiB), single thread;
#    best (fastest run) and median of several runs.  Needs only a C compiler.
# 2. If a built SDK is there (BUILD, default build/), the same through libdpu:
#    openpim_rank_view_write/read of a whole rank beside dpu_push_xfer.
#   bench/domain/run.sh [runs] [small_bytes] [large_bytes]      (default 11 262144 268435456)
#   CC=clang-14 BUILD=/path/to/build bench/domain/run.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-$root/build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc=${CC:-cc}
"$cc" -std=c11 -O2 -Wall -Wextra -Werror -I"$root/machine" -o "$work/bench_domain" \
    "$here/bench_domain.c" "$root/machine/domain.c"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs," \
     "built with $("$cc" --version | head -1) -O2"
runs=${1:-11}
small=${2:-262144}
large=${3:-268435456}
echo "== transposes (machine/domain.c)"
"$work/bench_domain" "$runs" "$small" "$large"
if [ -f "$build/sdk/upmem_env.sh" ]; then
    echo "== rank view through libdpu ($build)"
    source "$build/sdk/upmem_env.sh"
    if "$cc" -O2 -Wall -Wextra -o "$work/bench_rank_view" "$here/bench_rank_view.c" \
            $(dpu-pkg-config --cflags --libs dpu) &&
        OPENPIM_QUIET=1 dpu-upmem-dpurte-clang -O2 -o "$work/dpu_nop" "$here/dpu_nop.c"; then
        "$work/bench_rank_view" "$work/dpu_nop" 7
    else
        echo "(could not build the libdpu part: is $build up to date?)"
    fi
else
    echo "(no built SDK at $build: skipping the libdpu part)"
fi
