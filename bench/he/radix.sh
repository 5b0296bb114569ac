#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Single-DPU radix study: one 256-point NTT with radix 2/4/16 and 1..24 tasklets
# (Jonatan et al., Fig. 12); modelled time and utilisation, outputs checked.
# Radix 16 twice: every multiply inlined (the program would not fit a real
# DPU's IRAM), and with its multiply out of line (fits).
#   bench/he/radix.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../sdk_env.sh" "${1:-}"
# rx_16: radix 16 with every multiply inlined (over the DPU's IRAM: the driver refuses it unless told
# OPENPIM_IRAM_UNCHECKED, and warns); rx_16c: its multiply out of line (fits)
for v in 2 4 16 16c; do
    r=${v%c}
    call=$([ "$v" = 16c ] && echo 1 || echo 0)
    unchecked=$([ "$v" = 16 ] && echo -DOPENPIM_IRAM_UNCHECKED || true)
    for t in 1 2 4 6 8 10 11 12 14 16 20 24; do
        OPENPIM_QUIET=1 dpu-upmem-dpurte-clang -O2 -Wall -Wextra -Werror -DNR_TASKLETS=$t -DRADIX=$r \
            -DRADIX16_CALL=$call $unchecked -o "$work/rx_${v}_$t" "$here/dpu_radix.c"
    done
done
cc -O2 -Wall -Wextra -Werror -std=c11 -o "$work/bench_radix" "$here/bench_radix.c" $(dpu-pkg-config --cflags --libs dpu)
"$work/bench_radix" "$work"
