#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# vPIM's Figures 9 and 14 on the UNIX-socket path (bench_vpim.c): the checksum
# data-size sweep with the remote backend's optimisations on, and the NW-like
# small-transfer workload with batching and prefetch off and on (vPIM-C, -P,
# -B, -PB), embedded and through openpimd in one run (the sweep also with
# remoteStream=true: the data streamed through the daemon's window, as from a
# virtual machine, instead of shared memory); csv lines
#   csv,WORKLOAD,SIDE,SIZE_MB,DPUS,MIN_S,MEDIAN_S,MODELLED_S
# and the host CPU loop (bench/daemon/vm.py compares a guest's with it).
#   bench/daemon/vpim.sh [build-dir] [reps] [dpus] [sizes-mb] [nw-steps]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../sdk_env.sh" "${1:-}"
reps=${2:-5} dpus=${3:-60} sizes=${4:-8,16,32,60} steps=${5:-83}
cc -O2 -Wall -Wextra -o "$work/bench_vpim" "$here/bench_vpim.c" $(dpu-pkg-config --cflags --libs dpu)
OPENPIM_QUIET=1 dpu-upmem-dpurte-clang -O2 -DNR_TASKLETS=16 -o "$work/dpu_checksum" "$here/dpu_checksum.c"
OPENPIM_QUIET=1 dpu-upmem-dpurte-clang -O2 -DNR_TASKLETS=1 -o "$work/dpu_nw" "$here/dpu_nw.c"
pid=$("$build/daemon/tests/opd_launch" "$build/sdk/bin/openpimd" "$work/s.sock" "$work/daemon.log")
trap 'kill -TERM $pid; rm -rf "$work"' EXIT
unset UPMEM_PROFILE UPMEM_PROFILE_BASE OPENPIM_REMOTE_BATCH OPENPIM_REMOTE_PREFETCH
r="backend=remote,socket=$work/s.sock"
"$work/bench_vpim" cpu 3 100000000 host
"$work/bench_vpim" nw "$work/dpu_nw" "$reps" "$dpus" "$steps" emb= \
    unix-C="$r,remoteBatch=false,remotePrefetch=false" unix-P="$r,remoteBatch=false,remotePrefetch=true" \
    unix-B="$r,remoteBatch=true,remotePrefetch=false" unix-PB="$r,remoteBatch=true,remotePrefetch=true"
"$work/bench_vpim" calls "$work/dpu_nw" "$reps" "$dpus" "$steps" emb= unix="$r,remoteBatch=true"
"$work/bench_vpim" fig9 "$work/dpu_checksum" "$reps" "$dpus" "$sizes" emb= \
    unix="$r,remoteBatch=true,remotePrefetch=true" unix-stream="$r,remoteBatch=true,remotePrefetch=true,remoteStream=true"
