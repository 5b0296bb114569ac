#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# 2D NTT across DPUs (Jonatan et al. Figs. 14 and 15), modelled time by the
# paper's categories, as CSV on stdout (bench_ntt2d.c says what each run does):
#   bench/he/ntt2d.sh [build-dir] [scaling|logq|all] [logq values] [DPU counts]
# then, for the table beside the published figures:
#   bench/he/ntt2d.sh ... > ntt2d.csv && python3 bench/he/ntt2d_table.py ntt2d.csv
# build-dir must have built the HE library (target openpim_he).  All runs use
# every DPU they name (no representative DPUs); ~1 min for scaling, ~8 min for
# the log Q sweep on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../sdk_env.sh" "${1:-}"
what=${2:-all}
logqs=${3:-"400 800 1200 1600 2000 2400 2800"}
dpus=${4:-"256 512 1024 2048"}
cc -O2 -Wall -Wextra -Werror -std=c11 -I"$here/../../he/include" -o "$work/bench_ntt2d" "$here/bench_ntt2d.c" \
    "$build/he/libopenpim_he.a" "$build/comm/libopenpim_comm.a" $(dpu-pkg-config --cflags --libs dpu)
export OPENPIM_HE_DPU_DIR="$(cd "$build" && pwd)/he"
"$work/bench_ntt2d" header
if [[ $what == scaling || $what == all ]]; then
    "$work/bench_ntt2d" scaling
fi
if [[ $what == logq || $what == all ]]; then
    for q in $logqs; do
        for d in $dpus; do
            "$work/bench_ntt2d" logq "$q" "$d"
        done
    done
fi
