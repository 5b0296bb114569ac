#!/usr/bin/env bash
# CKKS homomorphic multiplication (paper 000 Fig. 16: N = 65536, L = 23, 8
# extension limbs, dnum = 3), modelled time by step and by the figure's
# categories, as CSV on stdout:
#   bench/ckks/run.sh [build-dir] [fig16|quick] > ckks.csv
#   python3 bench/ckks/table.py ckks.csv
# It runs (bench_ckks.c says what each does):
#   - workloads/ckks's multiplication (he's 1D split) of g ciphertext pairs at
#     once on 32 g DPUs, g in $OPENPIM_CKKS_FULL_G (default 1 2 4 8; "" none); the g = 1
#     product checked word for word against the Python reference
#     (bench/ckks/check.py, a "# check" line);
#   - for g in $OPENPIM_CKKS_SCALE_G (default 1 2 4 8 16 32: 32 ... 1024 DPUs)
#     he's 2D NTT of one 32-limb polynomial on 32 g DPUs (checked against he's
#     1D NTT) and the multiplication's base conversions alone on those DPUs,
#     for table.py's 2D composition;
#   - OpenFHE's CKKS on this host as the CPU baseline, when a Python with the
#     openfhe wheel is found: $OPENPIM_CKKS_OPENFHE_PYTHON (default python3.10;
#     the wheel imports only on CPython 3.10).
# `quick` is N = 4096, L = 5, K = 2 (seconds).  fig16: ~25 min on 2 busy cores (the
# emulator runs every DPU's NTTs natively), ~2 min more for OpenFHE.
# build-dir must have built workloads/ckks (target openpim_ckks).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../sdk_env.sh" "${1:-}"
mode=${2:-fig16}
full_g=${OPENPIM_CKKS_FULL_G-"1 2 4 8"}
scale_g=${OPENPIM_CKKS_SCALE_G-"1 2 4 8 16 32"}
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
for g in $full_g; do
    if [[ $g == 1 ]]; then
        "$work/bench_ckks" $n $L $K $dnum 30 1 1 "$work/g1"
        echo "# $(python3 "$here/check.py" "$work/g1")"
    else
        "$work/bench_ckks" $n $L $K $dnum 30 "$g" "$g"
    fi
done
for g in $scale_g; do
    "$work/bench_ckks" ntt2d $n $((L + 1 + K)) "$g"
    "$work/bench_ckks" conv $n $L $K $dnum 30 "$g"
done
py=${OPENPIM_CKKS_OPENFHE_PYTHON:-python3.10}
if [[ $mode == fig16 ]] && "$py" -c "import openfhe" 2>/dev/null; then
    "$py" "$here/openfhe_cpu.py" $n $L $dnum 3
else
    echo "# no OpenFHE (pip install openfhe==1.6.1.0.22.4 under Python 3.10): no CPU baseline"
fi
