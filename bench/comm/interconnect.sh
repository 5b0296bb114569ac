#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# PIM-interconnect what-if ([Jonatan24] Figure 18): speedup over host-routed
# communication vs the global reduction ratio and vs the link bandwidth, for
# bank-, chip- and rank-wise groups of 256 DPUs; and the library's
# collectives re-timed on links.
#   bench/comm/interconnect.sh [build-dir] [S in KB per DPU, default 64]
# OPENPIM_COMM_BENCH_CSV=file appends the rows to a CSV file.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
source "$here/../sdk_env.sh" "$build"
shift || true
gcc -std=c11 -O2 -Wall -Wextra -Werror -I"$root/comm/include" -o "$work/bench_interconnect" \
    "$here/bench_interconnect.c" "$build/comm/libopenpim_comm.a" $(dpu-pkg-config --cflags --libs dpu) -lm
printf 'int main(void) { return 0; }\n' > "$work/nop.c"
dpu-upmem-dpurte-clang -O2 -o "$work/nop" "$work/nop.c"
stdbuf -oL "$work/bench_interconnect" "$work/nop" "$@"
