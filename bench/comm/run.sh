#!/usr/bin/env bash
# Collectives benchmark (issue 9), nccl-tests style: baseline vs optimised per
# primitive, modelled GB/s and this host's wall-clock GB/s beside its memcpy.
#   bench/comm/run.sh [build-dir] [DPUs] [dims] [mask] [runs] [KB per DPU ...]
#   e.g. bench/comm/run.sh build 1024 32x32 10 3 32 256 1024   (PID-Comm's 32x32, along x)
#        bench/comm/run.sh build 1024 32x32 01                 (along y)
# Needs a build with comm/ (the library libopenpim_comm.a of the build folder).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
source "$here/../sdk_env.sh" "$build"
shift || true
gcc -std=c11 -O2 -Wall -Wextra -Werror -I"$root/comm/include" -o "$work/bench_comm" "$here/bench_comm.c" \
    "$build/comm/libopenpim_comm.a" $(dpu-pkg-config --cflags --libs dpu)
printf 'int main(void) { return 0; }\n' > "$work/nop.c"
dpu-upmem-dpurte-clang -O2 -o "$work/nop" "$work/nop.c"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs"
stdbuf -oL "$work/bench_comm" "$work/nop" "$@"
