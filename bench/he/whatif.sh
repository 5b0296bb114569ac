#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# DRAMatic's Figure 10 what-if (Klinger et al. section 5.1): the HE kernels of
# bench_he (NTT, iNTT, BGV multiply, combined test; modelled, 383 DPUs) with
#   custom  DRAMatic's constant-time multiply routines, machine v1A (the baseline),
#   10x     the compiler's multiplies charged as DRAMatic's 9-10x faster dummy
#           routines (timing/presets/mul10x.desc: 2 and 4 cycles),
#   1cyc    a one-cycle 32-bit multiplier (timing/presets/mul1.desc), and the same
#           with one-cycle 64-bit multiplies (DRAMatic's optimistic dummies),
# and DRAMatic's own method (its section 5.1: the multiply routines swapped, on
# v1A; he/dpu/he_modarith.h HE_MUL_METHOD, images he_dpu_<method> of the build):
#   custom_call   the custom routines out of line (a call each, as DRAMatic's),
#   dummy_call    its 9-10x faster dummies, out of line,
#   dummy_inline  its one-cycle dummies, inlined at the call sites,
# with each routine's instructions per operation as built (RESULT_MULCOST: the
# multiply micro-benchmark per method), then the speedups beside DRAMatic's
# (whatif_table.py).  The dummies' outputs are wrong on purpose: not checked.
#   bench/he/whatif.sh [build-dir] [dpus] [max_log_n]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$here/../sdk_env.sh" "${1:-}"
cc -O2 -Wall -Wextra -Werror -std=c11 -I"$here/../../he/include" -o "$work/bench_he" "$here/bench_he.c" \
    "$build/he/libopenpim_he.a" "$build/comm/libopenpim_comm.a" $(dpu-pkg-config --cflags --libs dpu)
export OPENPIM_HE_DPU_DIR="$(cd "$build" && pwd)/he" BENCH_HE_KERNELS_ONLY=1
args=(none "${2:-383}" 16 "${3:-14}" 1)
(cd "$work" && ./bench_he "${args[@]}") | sed 's/^RESULT/RESULT v1A/' > "$work/base.txt"
(cd "$work" && UPMEM_PROFILE="desc_file=$root/timing/presets/mul10x.desc" ./bench_he "${args[@]}") |
    sed 's/^RESULT/RESULT mul10x/' > "$work/mul10x.txt"
(cd "$work" && UPMEM_PROFILE="desc_file=$root/timing/presets/mul1.desc" ./bench_he "${args[@]}") |
    sed 's/^RESULT/RESULT mul1/' > "$work/mul1.txt"
# DRAMatic's optimistic dummies: 32->32 and 32->64 both in one cycle (mul1.desc charges a 64-bit
# multiply 10, four partial products): the same description with that key overridden
(cd "$work" && UPMEM_PROFILE="desc_file=$root/timing/presets/mul1.desc,op_int64_mul=1" ./bench_he "${args[@]}") |
    sed 's/^RESULT/RESULT mul1opt/' > "$work/mul1opt.txt"
for m in custom_inline custom_call dummy_call dummy_inline; do
    OPENPIM_QUIET=1 dpu-upmem-dpurte-clang -O2 -Wall -Wextra -Werror -DNR_TASKLETS=1 -DHE_MUL_METHOD=$m \
        -o "$work/mulbench_$m" "$here/dpu_mulbench.c" "$here/dpu_mulbench_custom.c" "$here/dpu_mulbench_native.c"
    (cd "$work" && BENCH_HE_MULCOST=1 ./bench_he "./mulbench_$m") | sed "s/^RESULT_MULCOST/& $m/" > "$work/m_$m.txt"
    # custom_inline is the library's build: the v1A rows above
    [ $m = custom_inline ] ||
        (cd "$work" && BENCH_HE_MUL_METHOD=$m ./bench_he "${args[@]}") | sed 's/^RESULT /RESULT method /' >> "$work/m_$m.txt"
done
cat "$work/base.txt" "$work/mul10x.txt" "$work/mul1.txt" "$work/mul1opt.txt" "$work"/m_*.txt |
    grep '^RESULT\|^## dummy multiply'
