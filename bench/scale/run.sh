#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Scale benchmark: worker speedup, full-server slowdown versus
# modelled hardware time, host memory per DPU.  Needs a built SDK.
#   bench/scale/run.sh [build-dir] [MB per array per DPU, default 1] [DPUs]
# With DPUs, only the server part (b) runs, on that many DPUs (quick comparisons).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../sdk_env.sh" "${1:-}"
gcc -O2 -Wall -Wextra -o "$work/host_scale" "$here/host_scale.c" $(dpu-pkg-config --cflags --libs dpu)
dpu-upmem-dpurte-clang -O2 -DNR_TASKLETS=16 -o "$work/dpu_scale" "$here/dpu_scale.c"
echo "host: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GB"
stdbuf -oL "$work/host_scale" "$work/dpu_scale" "${2:-1}" ${3:+"$3"}
