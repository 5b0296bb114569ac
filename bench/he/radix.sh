#!/usr/bin/env bash
# Single-DPU radix study: one 256-point NTT with radix 2/4/16 and 1..24 tasklets
# (Jonatan et al., Fig. 12); modelled time and utilisation, outputs checked.
#   bench/he/radix.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../sdk_env.sh" "${1:-}"
for r in 2 4 16; do
    for t in 1 2 4 6 8 10 11 12 14 16 20 24; do
        OPENPIM_QUIET=1 dpu-upmem-dpurte-clang -O2 -Wall -Wextra -Werror -DNR_TASKLETS=$t -DRADIX=$r \
            -o "$work/rx_${r}_$t" "$here/dpu_radix.c"
    done
done
cc -O2 -Wall -Wextra -Werror -std=c11 -o "$work/bench_radix" "$here/bench_radix.c" $(dpu-pkg-config --cflags --libs dpu)
"$work/bench_radix" "$work"
