#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Asynchrony benchmark: host work overlapped with a DPU_ASYNCHRONOUS launch,
# against the same work after a synchronous one (needs 2 host cores to overlap).
#   bench/async/run.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../sdk_env.sh" "${1:-}"
cc -O2 -Wall -Wextra -o "$work/bench" "$here/bench_async.c" $(dpu-pkg-config --cflags --libs dpu)
OPENPIM_QUIET=1 dpu-upmem-dpurte-clang -O2 -o "$work/dpu_busy" "$here/../../tests/async/dpu_busy.c"
cd "$work" && ./bench ./dpu_busy
