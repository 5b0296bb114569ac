#!/usr/bin/env bash
# Domain-transfer benchmark (issue 4, the rank's physical view): GB/s of each
# 8x8 byte-transpose implementation of machine/domain.c that this CPU runs
# (AVX-512 VBMI, AVX-512BW, AVX2, portable C), both directions (host-view lines
# -> 8 DPU buffers, and back), for a buffer that stays in cache (256 KiB of
# view) and one that does not (256 MiB), single thread; best (from the fastest
# run) and median of several runs.  Needs only a C compiler.
#   bench/domain/run.sh [runs] [small_bytes] [large_bytes]      (default 11 262144 268435456)
#   CC=clang-14 bench/domain/run.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
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
"$work/bench_domain" "$runs" "$small" "$large"
