#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# This host's int32 reduction rate, one thread, in the loops of the
# ReduceScatter/AllReduce baselines (bench_host_reduce.c says which): the
# measured class behind comm's scalar rate (comm/src/cost.c, comm/README.md).
#   bench/comm/host_reduce.sh [N] [KB per node] [communicators] [runs]
#   e.g. bench/comm/host_reduce.sh 32 1024 8 5   (32 x 32 along x, 1 MB per PE, 256 MiB of input)
# Compiled with -O3 as PID-Comm's benchmark Makefiles do (gcc, no -march).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -std=c11 -O3 -Wall -Wextra -Werror -o "$work/bench_host_reduce" "$here/bench_host_reduce.c"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs, $(gcc -dumpfullversion) -O3"
"$work/bench_host_reduce" "$@"
