#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Embedding-table benchmark ([Jonatan24] §4, Figs. 5-11) on workloads/embedding:
# modelled PIM times beside the CPU baseline measured on this host.
#   bench/embedding/run.sh [build-dir] [study] [scale] [dpus]
#   study: fig5 fig6 fig7 fig8 fig10 fig11 fig11c planner all (default all; planner: the planner's estimate
#          beside the measured time of every plan it ranks, not in all)
#   scale: RM1-RM3 table heights divided by this (default 128); dpus: for fig11 (default 2560)
# CSV on stdout; OPENPIM_EMB_BENCH_CSV=file also writes it there.
# Needs a build with the embedding library (target openpim_embedding).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
source "$here/../sdk_env.sh" "$build"
shift || true
lib="$build/workloads/embedding/libopenpim_embedding.a"
[ -f "$lib" ] || { echo "no $lib: cmake --build $build --target openpim_embedding" >&2; exit 2; }
gcc -std=c11 -O2 -Wall -Wextra -Werror -I"$root/comm/include" -I"$root/workloads/embedding/include" \
    -o "$work/bench_emb" "$here/bench_emb.c" "$lib" "$build/comm/libopenpim_comm.a" \
    $(dpu-pkg-config --cflags --libs dpu) -lm
echo "# host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs" >&2
if [ -n "${OPENPIM_EMB_BENCH_CSV:-}" ]; then
    stdbuf -oL "$work/bench_emb" "$@" | tee "$OPENPIM_EMB_BENCH_CSV"
else
    stdbuf -oL "$work/bench_emb" "$@"
fi
