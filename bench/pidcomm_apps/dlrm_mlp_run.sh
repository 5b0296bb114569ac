#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# PID-Comm's DLRM and MLP ([PIDComm] §VII-A, §VII-E) on comm/, baseline and
# optimised, each result checked exactly against the CPU reference.  Builds
# the drivers against a build folder, then runs each configuration given:
#   bench/pidcomm_apps/dlrm_mlp_run.sh BUILD dlrm XxYxZ batch dim [pooling] [max_rows] [runs] \
#                                            [-- mlp pes features batch [layers] [runs] ...]
#   e.g. bench/pidcomm_apps/dlrm_mlp_run.sh build dlrm 8x8x16 8192 32 -- mlp 1024 16384 1 5
# Studies (the sizes of the report, see README.md):
#   bench/pidcomm_apps/dlrm_mlp_run.sh BUILD fig15    1,024 PEs: DLRM dim 16 and 32, MLP
#   bench/pidcomm_apps/dlrm_mlp_run.sh BUILD fig21    64 .. 1,024 PEs
# PIDCOMM_APPS_CSV=file appends rows app,variant,pes,dtype,total_us,kernel_us,comm_us,host_us,cpu_us;
# PIDCOMM_APPS_STEPS_CSV=file the per-step rows.  PIDCOMM_APPS_MLP_F overrides the MLP's features
# (default 8192), PIDCOMM_APPS_DLRM_BATCH the DLRM batch (default 8192).
# Needs a build with workloads/ (libopenpim_dlrm.a, libopenpim_mlp.a and their DPU kernels).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:?usage: dlrm_mlp_run.sh BUILD (dlrm ...|mlp ...|fig15|fig21) [-- ...]}
build=$(cd "$build" && pwd)
shift
source "$here/../sdk_env.sh" "$build"
for lib in workloads/dlrm/libopenpim_dlrm.a workloads/mlp/libopenpim_mlp.a workloads/graph/libopenpim_pimapp.a \
           comm/libopenpim_comm.a \
           workloads/dlrm/dlrm_kernel workloads/mlp/mlp_kernel; do
    [ -e "$build/$lib" ] || { echo "dlrm_mlp_run.sh: $build/$lib missing (cmake --build $build)" >&2; exit 1; }
done
cflags="-std=c11 -O2 -Wall -Wextra -Werror -I$root/comm/include -I$root/workloads/graph"
gcc $cflags -I"$root/workloads/dlrm" -o "$work/dlrm_bench" "$here/dlrm_bench.c" \
    "$build/workloads/dlrm/libopenpim_dlrm.a" "$build/workloads/graph/libopenpim_pimapp.a" "$build/comm/libopenpim_comm.a" $(dpu-pkg-config --cflags --libs dpu) -lm
gcc $cflags -I"$root/workloads/mlp" -o "$work/mlp_bench" "$here/mlp_bench.c" \
    "$build/workloads/mlp/libopenpim_mlp.a" "$build/workloads/graph/libopenpim_pimapp.a" "$build/comm/libopenpim_comm.a" $(dpu-pkg-config --cflags --libs dpu) -lm
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs"

F=${PIDCOMM_APPS_MLP_F:-8192}
B=${PIDCOMM_APPS_DLRM_BATCH:-8192}
run() { # dlrm|mlp args...
    local app=$1; shift
    case $app in
        dlrm) stdbuf -oL "$work/dlrm_bench" "$build/workloads/dlrm/dlrm_kernel" "$@" ;;
        mlp)  stdbuf -oL "$work/mlp_bench" "$build/workloads/mlp/mlp_kernel" "$@" ;;
        *) echo "dlrm_mlp_run.sh: unknown app $app" >&2; exit 2 ;;
    esac
}
# DLRM's cube for `pes` DPUs and dimension `dim`: X = 8 table groups (comm's view path needs a
# multiple of 8), Z = min(dim/2, pes/8) column shards (at least 2 columns, 8 bytes, per row and node),
# Y = the rest, row shards (as few as possible: the ReduceScatter along y grows with Y).
dlrm_shape() {
    local z=$(($2 / 2)); [ $z -gt $(($1 / 8)) ] && z=$(($1 / 8))
    echo "8x$(($1 / (8 * z)))x$z"
}
case ${1:-} in
fig15)
    run dlrm "$(dlrm_shape 1024 16)" "$B" 16 1 1000000
    run dlrm "$(dlrm_shape 1024 32)" "$B" 32 1 1000000
    run mlp 1024 "$F" 1 5 ;;
fig21)
    for pes in 64 128 256 512 1024; do
        run dlrm "$(dlrm_shape $pes 16)" "$B" 16 1 1000000
        run dlrm "$(dlrm_shape $pes 32)" "$B" 32 1 1000000
        run mlp $pes "$F" 1 5
    done ;;
*)
    args=()
    for a in "$@" --; do
        if [ "$a" = -- ]; then
            [ ${#args[@]} -gt 0 ] && run "${args[@]}"
            args=()
        else
            args+=("$a")
        fi
    done ;;
esac
