#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Host memory benchmark: first-write vs rewrite speed of emulated MRAM and the
# cost of the host-memory-limit check on a full machine.
#   bench/host_memory/run.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../sdk_env.sh" "${1:-}"
cc -O2 -Wall -Wextra -o "$work/bench" "$here/bench_host_memory.c" $(dpu-pkg-config --cflags --libs dpu)
OPENPIM_QUIET=1 dpu-upmem-dpurte-clang -O2 -o "$work/dpu_nop" "$here/dpu_nop.c"
cd "$work" && ./bench ./dpu_nop
