#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Collectives benchmark (comm/), nccl-tests style: per primitive the
# baseline, PID-Comm's techniques added one by one (PR, PR+IM) and the
# optimised implementation: modelled GB/s, the transfers' share, this host's
# wall-clock GB/s of the host pass beside its memcpy.
# OPENPIM_COMM_BENCH_CSV=file appends CSV rows; OPENPIM_COMM_BENCH_PRIMS and
# OPENPIM_COMM_BENCH_VARIANTS (comma-separated) select what runs.
#   bench/comm/run.sh [build-dir] [DPUs] [dims] [mask] [runs] [KB per DPU ...]
#   e.g. bench/comm/run.sh build 1024 32x32 10 3 32 256 1024   (PID-Comm's 32x32, along x)
#        bench/comm/run.sh build 1024 32x32 01                 (along y)
# Needs a build with comm/ (the library libopenpim_comm.a of the build folder).
# The machine is PID-Comm's server (timing/presets/server-pidcomm.desc: 16 ranks
# on 4 channels x 4) unless UPMEM_PROFILE is set (UPMEM_PROFILE= for the default).
export UPMEM_PROFILE=${UPMEM_PROFILE-server=pidcomm}
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
source "$here/../sdk_env.sh" "$build"
shift || true
gcc -std=c11 -O2 -Wall -Wextra -Werror -I"$root/comm/include" -o "$work/bench_comm" "$here/bench_comm.c" \
    "$build/comm/libopenpim_comm.a" $(dpu-pkg-config --cflags --libs dpu) -lm
printf 'int main(void) { return 0; }\n' > "$work/nop.c"
dpu-upmem-dpurte-clang -O2 -o "$work/nop" "$work/nop.c"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs"
stdbuf -oL "$work/bench_comm" "$work/nop" "$@"
