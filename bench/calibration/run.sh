#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Calibration suite: reproduces the published UPMEM hardware
# characterisation on the emulator and compares the modelled values with the
# published ones (docs/calibration-sources.md).
#
#   bench/calibration/run.sh [build-dir] [out-dir]
#
# build-dir: a built OpenPIM tree (default: build/ next to this checkout);
# out-dir:   where results.csv, table.txt and the figures go
#            (default: <build-dir>/calibration).
# Environment:
#   CAL_E2E_MAX_MB   largest transfer (bytes per DPU x DPUs) run end to end
#                    through the SDK, in MB (default 2048; every point of the
#                    published tables is also evaluated on the model directly)
#   CAL_DPU_CFLAGS   flags for the DPU programs (default below)
#   CAL_PROFILE      machine-description keys applied to every run, e.g.
#                    CAL_PROFILE=dma_read_fixed=22,rt_dma_call=1 (passed as
#                    UPMEM_PROFILE; lets a proposed calibration be checked
#                    without editing timing/presets/v1A.desc)
#   CAL_NO_FIGURES=1 skip the figures (and the matplotlib install)
# Needs: the build (libdpu, the DPU toolchain, build/timing/liboptiming.a),
# gcc, python3.  Figures need matplotlib: taken from python3 if present, else
# installed from PyPI into <build-dir>/calibration-venv (or with pip --user).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-$build/calibration}
mkdir -p "$out"
out=$(cd "$out" && pwd)
e2e_mb=${CAL_E2E_MAX_MB:-2048}

# DPU code generation: the OpenPIM driver keeps vectorisation and partial or
# runtime unrolling off after the user's flags (UPMEM's DPU compiler emits
# scalar code and does not unroll partially: PrIM's int32 add loop is 6
# instructions per element, calibration-sources §1.2), so the suite builds as users do.  The
# "codegen check" rows build the same kernels again with plain `-O2`.
dpu_cflags=${CAL_DPU_CFLAGS:--O2}

[[ -f $build/sdk/upmem_env.sh ]] || { echo "run.sh: no OpenPIM build in $build (cmake --build it first)" >&2; exit 1; }
[[ -f $build/timing/liboptiming.a ]] || { echo "run.sh: $build/timing/liboptiming.a missing" >&2; exit 1; }
# shellcheck disable=SC1091
source "$build/sdk/upmem_env.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
t_start=$SECONDS

echo "== OpenPIM calibration suite: build =="
echo "DPU programs: dpu-upmem-dpurte-clang $dpu_cflags"
gcc -O2 -Wall -Wextra -o "$work/cal_host" "$here/cal_host.c" $(dpu-pkg-config --cflags --libs dpu) -lm
gcc -O2 -Wall -Wextra -I"$root/timing" -o "$work/xfer_model" "$here/xfer_model.c" "$build/timing/liboptiming.a" -lm
dpu() { # dpu SOURCE TASKLETS OUTPUT [flags]
    local src=$1 t=$2 o=$3; shift 3
    # shellcheck disable=SC2086
    dpu-upmem-dpurte-clang ${*:-$dpu_cflags} -DNR_TASKLETS="$t" -o "$work/$o" "$here/$src"
}
arith_tasklets=(1 2 4 8 11 16)
mram_tasklets=(1 2 4 8 16)
for t in "${arith_tasklets[@]}"; do dpu arith_dpu.c "$t" "arith$t"; done
dpu arith_dpu.c 16 arith16_plain -O2
dpu wram_dpu.c 16 wram16
for t in "${mram_tasklets[@]}"; do dpu mram_dpu.c "$t" "mram$t"; done
dpu empty_dpu.c 1 empty
kernel_tasklets=(1 4 16) # kernels_dpu.c: mutex-heavy and streaming
gcc -O2 -Wall -Wextra -o "$work/kernels_host" "$here/kernels_host.c" $(dpu-pkg-config --cflags --libs dpu) -lm
for t in "${kernel_tasklets[@]}"; do dpu kernels_dpu.c "$t" "kernels$t"; done
echo "built in $((SECONDS - t_start)) s"

echo "== run (emulator; modelled values) =="
export UPMEM_PROFILE=${CAL_PROFILE:-}
[[ -z $UPMEM_PROFILE ]] || echo "machine description: v1A preset + $UPMEM_PROFILE"
csv=$out/results.csv
{
    echo "# OpenPIM calibration records, $(date -u +%Y-%m-%dT%H:%M:%SZ), DPU flags: $dpu_cflags"
    echo "profile,${UPMEM_PROFILE}"
    for t in "${arith_tasklets[@]}"; do "$work/cal_host" arith "$work/arith$t" "$t"; done
    "$work/cal_host" arith "$work/arith16_plain" 16 | sed 's/^arith,/arith_plain,/'
    "$work/cal_host" wram "$work/wram16" 16
    for t in "${mram_tasklets[@]}"; do "$work/cal_host" mram "$work/mram$t" "$t"; done
    "$work/cal_host" launch "$work/empty"
    for t in "${kernel_tasklets[@]}"; do "$work/kernels_host" "$work/kernels$t" "$t"; done
    "$work/cal_host" xfer "$work/empty" "$e2e_mb"
    "$work/xfer_model"
} > "$csv"
echo "ran in $((SECONDS - t_start)) s; records: $csv"

# Figures: matplotlib from python3, else from a venv under the build dir.
py=python3
figs=1
if [[ -n ${CAL_NO_FIGURES:-} ]]; then
    figs=0
    fig_note="figures skipped (CAL_NO_FIGURES set)"
elif ! python3 -c 'import matplotlib' 2>/dev/null; then
    venv=$build/calibration-venv
    if ! "$venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
        echo "installing matplotlib from PyPI into $venv ..."
        if ! { python3 -m venv "$venv" >/dev/null 2>&1 &&
               timeout 300 "$venv/bin/python" -m pip install -q matplotlib >"$work/pip.log" 2>&1; }; then
            rm -rf "$venv"
            echo "venv install failed; trying pip install --user ..."
            timeout 300 python3 -m pip install -q --user matplotlib >>"$work/pip.log" 2>&1 || true
        fi
    fi
    if "$venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
        py=$venv/bin/python
    elif ! python3 -c 'import matplotlib' 2>/dev/null; then
        figs=0
        fig_note="FIGURES SKIPPED: matplotlib could not be installed ($(tail -1 "$work/pip.log" 2>/dev/null))"
    fi
fi
if (( figs )); then
    "$py" "$here/report.py" "$csv" "$out" | tee "$out/table.txt"
else
    python3 "$here/report.py" --no-figures "$csv" "$out" | tee "$out/table.txt"
    echo "$fig_note" | tee -a "$out/table.txt"
fi
echo "total $((SECONDS - t_start)) s; outputs in $out"
