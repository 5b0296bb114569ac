#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CKKS homomorphic multiplication ([Jonatan24] Fig. 16: N = 65536, L = 23, 8
# extension limbs, dnum = 3), modelled time by step and by the figure's
# categories, as CSV on stdout:
#   bench/ckks/run.sh [build-dir] [fig16|quick] > ckks.csv
#   python3 bench/ckks/table.py ckks.csv
# It runs (bench_ckks.c says what each does):
#   - the 2D layout's multiplication (the paper's: each limb over g DPUs,
#     resident from upload to download, 2D NTTs with comm's All-to-All) of one
#     ciphertext pair on 32 g DPUs, g in $OPENPIM_CKKS_2D_G (default
#     1 2 4 8 16 32: 32 ... 1024 DPUs); the products of g in
#     $OPENPIM_CKKS_CHECK_G (default all of them) checked word for word against the
#     Python reference (bench/ckks/check.py, a "# check" line each);
#   - the 1D split's multiplication (he's, one limb whole on one DPU) of g
#     ciphertext pairs at once on 32 g DPUs, g in $OPENPIM_CKKS_FULL_G
#     (default 1; "1 2 4 8" for its throughput rows; "" none), the g = 1
#     product checked likewise;
#   - OpenFHE's CKKS on this host as the CPU baseline, when a Python with the
#     openfhe wheel is found: $OPENPIM_CKKS_OPENFHE_PYTHON (default python3.10;
#     the wheel imports only on CPython 3.10).
# `quick` is N = 4096, L = 5, K = 2 (seconds).  fig16 with the defaults: ~17 min
# on 2 busy cores (the emulator runs every DPU's kernels natively; the Python
# reference takes ~1 min a check), ~2 min more for OpenFHE.
# build-dir must have built workloads/ckks (target openpim_ckks).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../sdk_env.sh" "${1:-}"
mode=${2:-fig16}
full_g=${OPENPIM_CKKS_FULL_G-"1"}
g2d=${OPENPIM_CKKS_2D_G-"1 2 4 8 16 32"}
check_g=${OPENPIM_CKKS_CHECK_G-"$g2d"}
case $mode in
fig16) n=65536 L=23 K=8 dnum=3 ;;
quick) n=4096 L=5 K=2 dnum=3 ;;
*) echo "mode: fig16 or quick" >&2; exit 2 ;;
esac
cc -O2 -Wall -Wextra -Werror -std=c11 -I"$here/../../he/include" -I"$here/../../workloads/ckks/include" \
    -o "$work/bench_ckks" "$here/bench_ckks.c" "$build/workloads/ckks/libopenpim_ckks.a" \
    "$build/he/libopenpim_he.a" "$build/comm/libopenpim_comm.a" $(dpu-pkg-config --cflags --libs dpu)
export OPENPIM_HE_DPU_DIR="$(cd "$build" && pwd)/he"
"$work/bench_ckks" header
failed="" # a product that differs from the reference fails the run (after the rest has run)
for g in $g2d; do
    if [[ " $check_g " == *" $g "* ]]; then
        "$work/bench_ckks" 2d $n $L $K $dnum 30 "$g" "$work/g$g"
        line=$(python3 "$here/check.py" "$work/g$g") || failed="$failed 2D:g=$g"
        echo "# 2D g=$g: $line"
        rm -f "$work/g$g".*
    else
        "$work/bench_ckks" 2d $n $L $K $dnum 30 "$g"
    fi
done
for g in $full_g; do
    if [[ $g == 1 ]]; then
        "$work/bench_ckks" $n $L $K $dnum 30 1 1 "$work/g1"
        line=$(python3 "$here/check.py" "$work/g1") || failed="$failed 1D:g=1"
        echo "# 1D g=1: $line"
    else
        "$work/bench_ckks" $n $L $K $dnum 30 "$g" "$g"
    fi
done
py=${OPENPIM_CKKS_OPENFHE_PYTHON:-python3.10}
if [[ $mode == fig16 ]] && "$py" -c "import openfhe" 2>/dev/null; then
    "$py" "$here/openfhe_cpu.py" $n $L $dnum 3
else
    echo "# no OpenFHE (pip install openfhe==1.6.1.0.22.4 under Python 3.10): no CPU baseline"
fi
[[ -z $failed ]] || { echo "bench/ckks/run.sh: check failed for$failed (see the '# check' lines)" >&2; exit 1; }
