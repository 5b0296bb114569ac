#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# This host's cost per piece of the baseline AlltoAll's host reorder
# (bench_reorder.c) by piece size, stride and footprint: the figures behind
# comm's chunk_ns and chunk_far_ns (comm/src/cost.c, comm/README.md).
#   bench/comm/reorder.sh [runs]            (the sweep below, ~1 min; 1-2 GB of memory)
#   bench/comm/reorder.sh runs nodes size piece   (one point)
# Compiled with -O2 as the comm library (RelWithDebInfo).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -std=c11 -O2 -Wall -Wextra -Werror -o "$work/bench_reorder" "$here/bench_reorder.c"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs, $(gcc -dumpfullversion) -O2"
runs=${1:-7}
if [ $# -ge 4 ]; then
    "$work/bench_reorder" "$2" "$3" "$4" "$runs"
    exit
fi
# nodes size piece: the same pieces and strides, in cache (few nodes) and far beyond it (many)
for pt in "256 256 4" "2048 256 4" "256 256 48" "2048 256 48" "8192 256 48" \
          "4096 256 16" "32768 32 48" "65536 64 16" "1048576 16 4" "262144 64 4" \
          "64 64 256" "1024 64 256"; do
    # shellcheck disable=SC2086
    "$work/bench_reorder" $pt "$runs"
done
