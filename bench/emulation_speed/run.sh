#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Emulation speed benchmark: prints native/emulated time ratios for
# a compute-bound, a DMA-bound and a call-bound loop, with the
# instruction-accounting pass on (the default) and off, and on v1B; then
# the times of WRAM-bound loops on v1A and v1B (v1B's checks of WRAM's low end).  Needs a built SDK
# (scripts/setup.sh).
#   bench/emulation_speed/run.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../sdk_env.sh" "${1:-}"
cc=$(command -v clang-14 || command -v gcc)
$cc -O2 -Wall -Wextra -I"$here" -o "$work/host_bench" "$here/host_bench.c" $(dpu-pkg-config --cflags --libs dpu)
dpu-upmem-dpurte-clang -O2 -DNR_TASKLETS=1 -I"$here" -o "$work/dpu_counted" "$here/dpu_bench.c"
OPENPIM_NO_ACCOUNTING=1 OPENPIM_QUIET=1 dpu-upmem-dpurte-clang -O2 -DNR_TASKLETS=1 -I"$here" -o "$work/dpu_plain" "$here/dpu_bench.c"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), native loops built with $(basename "$cc") -O2"
echo "-- DPU code with instruction accounting (timing model on):"
"$work/host_bench" "$work/dpu_counted"
echo "-- DPU code without instruction accounting:"
"$work/host_bench" "$work/dpu_plain"
# v1B's WRAM starts inside a page: its loads and stores below WRAM's first
# byte are checked in the code (the accounting pass's -openpim-wram-start)
dpu-upmem-dpurte-clang -mcpu=v1B -O2 -DNR_TASKLETS=1 -I"$here" -o "$work/dpu_counted_v1B" "$here/dpu_bench.c"
echo "-- DPU code with instruction accounting, built for and run on v1B:"
"$work/host_bench" "$work/dpu_counted_v1B" "nrRanks=1,workers=1,chip=v1B"
# WRAM-bound loops, the same program on v1A (no checks) and on v1B
$cc -O2 -Wall -Wextra -I"$here" -o "$work/host_wram_loops" "$here/host_wram_loops.c" $(dpu-pkg-config --cflags --libs dpu)
for chip in v1A v1B; do
    dpu-upmem-dpurte-clang -mcpu=$chip -O2 -DNR_TASKLETS=1 -o "$work/dpu_wram_loops_$chip" "$here/dpu_wram_loops.c"
    echo "-- WRAM-bound loops (1 tasklet, 2000 passes over 4096 words), $chip:"
    "$work/host_wram_loops" "$work/dpu_wram_loops_$chip" "nrRanks=1,workers=1,chip=$chip"
done
