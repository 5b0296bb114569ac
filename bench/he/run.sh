#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# HE benchmark (modelled DPU time): multiply routines by operand size, and
# NTT / iNTT / BGV multiply / combined test at DRAMatic's 383 DPUs, then SEAL
# measured on this host beside them, with this host's core clock
# (bench/he/seal_bench.py, bench/he/host_clock.c).
#   bench/he/run.sh [build-dir] [dpus] [slots] [max_log_n] [kernel_group]
# kernel_group > 0 runs the kernels on that many DPUs per modulus only (the
# modelled kernel time of DRAMatic's 1D split does not depend on the number of
# DPUs: no DPU waits for another), the transfers on all `dpus`.
# build-dir must have built the HE library (target openpim_he).
# The machine is DRAMatic's DPU, v1B (its section 2, footnotes 2 and 5: 16
# threads, 400 MHz): the DPU programs are built for it here (-mcpu=v1B) and
# run with chip=v1B.  BENCH_HE_CHIP=v1A runs the v1A machine (350 MHz) instead.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../sdk_env.sh" "${1:-}"
he_build="$build/he"
chip=${BENCH_HE_CHIP:-v1B}
dpucc() { OPENPIM_QUIET=1 dpu-upmem-dpurte-clang -mcpu="$chip" -O2 -Wall -Wextra -Werror "$@"; }
dpucc -DNR_TASKLETS=1 -o "$work/dpu_mulbench" \
    "$here/dpu_mulbench.c" "$here/dpu_mulbench_custom.c" "$here/dpu_mulbench_native.c"
# the HE library's DPU programs for this chip, as he/CMakeLists.txt builds he_dpu_custom / he_dpu_native
he_src=$(sed -n 's/^set(HE_DPU_SOURCES \(.*\))$/\1/p' "$here/../../he/CMakeLists.txt")
[ -n "$he_src" ] || { echo "run.sh: no HE_DPU_SOURCES in he/CMakeLists.txt" >&2; exit 1; }
# (and their HE_WIDE builds, he_dpu_*_wide, which the library loads for bench_he's 32-bit moduli)
for v in custom native; do
    for w in "" _wide; do
        # shellcheck disable=SC2086 # the source list splits into files
        dpucc -g -DNR_TASKLETS=16 -DHE_MUL_${v^^} ${w:+-DHE_WIDE} -DSTACK_SIZE_DEFAULT=1536 -o "$work/he_dpu_$v$w" \
            $(printf "$here/../../he/%s " $he_src)
    done
done
cc -O2 -Wall -Wextra -Werror -std=c11 -I"$here/../../he/include" -o "$work/bench_he" "$here/bench_he.c" \
    "$he_build/libopenpim_he.a" "$build/comm/libopenpim_comm.a" $(dpu-pkg-config --cflags --libs dpu)
echo "## machine: $chip (UPMEM_PROFILE=chip=$chip${UPMEM_PROFILE:+,$UPMEM_PROFILE})"
(cd "$work" && OPENPIM_HE_DPU_DIR="$work" UPMEM_PROFILE="chip=$chip${UPMEM_PROFILE:+,$UPMEM_PROFILE}" \
    ./bench_he ./dpu_mulbench "${2:-383}" "${3:-16}" "${4:-14}" "${5:-1}") | tee "$work/dpu.txt"
# SEAL on this host beside the modelled figures (seal-python: python/requirements-test.txt)
if python3 -c "import seal" 2>/dev/null; then
    echo
    # this host's core clock beside SEAL's times (seal_bench.py relates one SEAL thread here to one there)
    cc -std=c11 -O2 -Wall -Wextra -Werror -o "$work/host_clock" "$here/host_clock.c"
    HE_HOST_CLOCK="$work/host_clock" python3 "$here/seal_bench.py" "$work/dpu.txt"
else
    echo "seal-python not installed: no SEAL comparison (pip install -r python/requirements-test.txt)"
fi
