#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Data-transfer study ([XferStudy]) on the emulated 40-rank server:
# broadcast versus ranks and size, 64 MB in blocks, broadcast versus different
# data per DPU, retrieval versus sending, MRAM versus WRAM broadcast.  Prints
# CSV records (plan.h, study_host.c, study_model.c) on stdout.
#   bench/transfer_study/run.sh [build-dir]
# Environment:
#   STUDY_BUDGET_MB  host memory the end-to-end runs may use (default 8192);
#                    larger points are evaluated on the timing model only
#   STUDY_RANKS      rank counts run end to end (default: "1 2 5 10 20 40")
#   UPMEM_PROFILE    machine keys (default server=xferstudy: the paper's own
#                    server, timing/presets/server-xferstudy.desc)
#   CC, STUDY_CFLAGS host compiler and flags (default cc, -O2; sanitizer
#                    builds of OpenPIM need -fsanitize=... here)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
source "$here/../sdk_env.sh" "$build"
export UPMEM_PROFILE=${UPMEM_PROFILE:-server=xferstudy}
[[ -f $build/timing/liboptiming.a ]] || { echo "run.sh: $build/timing/liboptiming.a missing (build target optiming)" >&2; exit 1; }
cflags=(${STUDY_CFLAGS:--O2} -Wall -Wextra -Werror)
${CC:-cc} "${cflags[@]}" -o "$work/study_host" "$here/study_host.c" $(dpu-pkg-config --cflags --libs dpu)
${CC:-cc} "${cflags[@]}" -I"$root/timing" -o "$work/study_model" "$here/study_model.c" "$build/timing/liboptiming.a" -lm
OPENPIM_QUIET=1 dpu-upmem-dpurte-clang -O2 -o "$work/study_dpu" "$here/study_dpu.c"
echo "# transfer study, $(date -u +%Y-%m-%dT%H:%M:%SZ), UPMEM_PROFILE=${UPMEM_PROFILE:-}, budget ${STUDY_BUDGET_MB:-8192} MB"
"$work/study_model"
for r in ${STUDY_RANKS:-1 2 5 10 20 40}; do
    "$work/study_host" "$work/study_dpu" "$r" "${STUDY_BUDGET_MB:-8192}"
done
