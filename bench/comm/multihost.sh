#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Multi-host collectives (PID-Comm Figure 23(b)): 1, 2 and 4 MPI processes on
# this machine, each owning a four-rank channel of 256 DPUs; AllReduce (int32
# sum) and AlltoAll over the global cube, baseline and optimised, each result
# checked exactly.  CSV on stdout (header once):
#   prim,impl,hosts,bytes_per_pe,modelled_us,inter_host_us,gbps
#   bench/comm/multihost.sh [build-dir] [MB per PE, default 2 as the paper; fractions fine, e.g. 0.25]
# OPENPIM_MULTIHOST_HOSTS overrides the process counts ("1 2 4").  The machine
# is PID-Comm's server (server=pidcomm: four ranks per channel) unless
# UPMEM_PROFILE is set.  Host memory: about 3 x 256 x the size per process
# (2 MB: ~1.5 GB each, ~6 GB at 4 processes).
export UPMEM_PROFILE=${UPMEM_PROFILE-server=pidcomm}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
mb=${2:-2}
mpirun=$(command -v mpirun || command -v mpiexec) || { echo "multihost.sh: mpirun not found (openmpi-bin)" >&2; exit 1; }
[ -f "$build/comm/libopenpim_comm_mpi.a" ] || {
    echo "multihost.sh: $build/comm/libopenpim_comm_mpi.a missing (build target openpim_comm_mpi; needs MPI)" >&2; exit 1; }
source "$here/../sdk_env.sh" "$build"
bytes=$(python3 -c "print(int(round(float('$mb') * 1048576)))")
mpicc -std=c11 -O2 -Wall -Wextra -Werror -I"$root/comm/include" -o "$work/bench_multihost" "$here/bench_multihost.c" \
    "$build/comm/libopenpim_comm_mpi.a" "$build/comm/libopenpim_comm.a" $(dpu-pkg-config --cflags --libs dpu) -lm
printf 'int main(void) { return 0; }\n' > "$work/nop.c"
dpu-upmem-dpurte-clang -O2 -o "$work/nop" "$work/nop.c"
first=1
for h in ${OPENPIM_MULTIHOST_HOSTS:-1 2 4}; do
    "$mpirun" --oversubscribe --allow-run-as-root -np "$h" "$work/bench_multihost" "$work/nop" "$bytes" \
        | if [ $first = 1 ]; then cat; else tail -n +2; fi
    first=0
done
