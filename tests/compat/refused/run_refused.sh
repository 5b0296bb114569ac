#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What OpenPIM refuses must fail to build, loudly and by name, rather than run
# differently from the SDK (docs/sdk-audit.md, "refused" rows).  Each CASE
# builds small programs as a user would and checks the failure and its message.
#   run_refused.sh SDK_DIR WORK_DIR CASE
set -euo pipefail
sdk=$1 work=$2 case=$3
source "$sdk/upmem_env.sh"
export OPENPIM_QUIET=1
rm -rf "$work" && mkdir -p "$work" && cd "$work"
fails=0

# must_fail PATTERN CMD...: CMD must fail and its output contain PATTERN.
must_fail() {
    local pattern=$1; shift
    local out
    if out=$("$@" 2>&1); then
        echo "FAIL: accepted: $*"; fails=$((fails + 1)); return
    fi
    if grep -qF -- "$pattern" <<<"$out"; then
        echo "refused as expected: $* -> $(grep -F -- "$pattern" <<<"$out" | head -1)"
    else
        echo "$out" | tail -5; echo "FAIL: '$*' failed without saying '$pattern'"; fails=$((fails + 1))
    fi
}
host_cc() { # SOURCE: a plain user build of a host program
    ${CC:-cc} -std=c11 -o host_app "$1" $(dpu-pkg-config --cflags --libs dpu)
}
dpu_cc() { dpu-upmem-dpurte-clang -O2 -DNR_TASKLETS=1 "$@"; }

case $case in
    dpu_headers)
        printf '#include <wramfifo.h>\nint main(void) { return 0; }\n' > fifo.c
        must_fail "OpenPIM does not support <wramfifo.h>" dpu_cc -o fifo fifo.c ;;
    dpu_profiling) # <profiling.h> builds when nothing of it is used, as public programs include it
        printf '#include <profiling.h>\n#include <defs.h>\nint main(void) { return me(); }\n' > prof_unused.c
        dpu_cc -o prof_unused prof_unused.c || { echo "FAIL: <profiling.h> included and unused was refused"; fails=$((fails + 1)); }
        printf '#include <profiling.h>\nPROFILING_INIT(prof_main);\nint main(void) { return 0; }\n' > prof_init.c
        must_fail "OpenPIM does not support <profiling.h>: PROFILING_INIT(prof_main)" dpu_cc -o prof_init prof_init.c
        for fn in profiling_start profiling_stop; do
            printf '#include <profiling.h>\nint main(void) { %s(0); return 0; }\n' "$fn" > "$fn.c"
            must_fail "OpenPIM does not support <profiling.h>: $fn(0)" dpu_cc -o "$fn" "$fn.c"
        done ;;
    dpu_perfcounter_both) # both counters exist on v1B only, as in the SDK
        printf '#include <perfcounter.h>\nint main(void) { perfcounter_get_both(false); return 0; }\n' > both.c
        must_fail "perfcounter_get_both is only available on v1B" dpu_cc -o both both.c
        dpu_cc -mcpu=v1B -o both_v1B both.c || { echo "FAIL: v1B build refused"; fails=$((fails + 1)); } ;;
    dpu_sync_sizes) # pool and virtual-mutex sizes are checked at build time, as the SDK's
        printf '#include <mutex_pool.h>\nMUTEX_POOL_INIT(p, 6);\nint main(void) { return 0; }\n' > pool.c
        must_fail "the number of mutexes of a pool must be a power of 2" dpu_cc -o pool pool.c
        printf '#include <vmutex.h>\nVMUTEX_INIT(v, 64, 3)\nint main(void) { return 0; }\n' > vm3.c
        must_fail "the number of hardware mutexes must be a power of 2" dpu_cc -o vm3 vm3.c
        printf '#include <vmutex.h>\nVMUTEX_INIT(v, 12, 2)\nint main(void) { return 0; }\n' > vm12.c
        must_fail "the number of virtual mutexes must be a multiple of 8" dpu_cc -o vm12 vm12.c ;;
    dpu_vla) # UPMEM's compiler refuses dynamic stack allocation (VLAs, alloca of a variable size)
        printf '%s\n' 'volatile unsigned n = 3;' 'int main(void) { volatile char a[n]; a[0] = 1; return a[0]; }' > vla.c
        must_fail "vla.c:2:33: error: variable length arrays are not supported" dpu_cc -o vla vla.c
        printf '%s\n' 'volatile unsigned n = 3;' 'int main(void) { volatile char *a = __builtin_alloca(n); a[0] = 1; return a[0]; }' > alloca.c
        must_fail "alloca.c:2:" dpu_cc -g -o alloca alloca.c
        must_fail "dynamic allocation of stack (a variable-length array, or alloca() of a variable size) is not supported on the DPU" \
            dpu_cc -O0 -o alloca alloca.c ;;
    dpu_dma_sizes) # constant DMA sizes the SDK documents as invalid do not build, as with the SDK's headers
        for call in "mram_read(src, buf, 12)" "mram_read(src, buf, 4096)" "mram_read(src, buf, 0)" \
                    "mram_read(src, buf, 4)" "mram_write(buf, src, 2056)" "mram_write(buf, src, 20)"; do
            printf '#include <mram.h>\n#include <stdint.h>\n__mram_noinit uint64_t src[512];\n__dma_aligned uint64_t buf[256];\nint main(void) { %s; return (int)buf[0]; }\n' "$call" > dma.c
            must_fail "invalid number of bytes: the size of a DMA transfer must be a multiple of 8, at least 8 and at most 2048" dpu_cc -o dma dma.c
            grep -q "${call%%(*}: invalid number of bytes" <(dpu_cc -o dma dma.c 2>&1) ||
                { echo "FAIL: the message of '$call' does not name ${call%%(*}"; fails=$((fails + 1)); }
        done
        # valid constants and sizes known only at run time build (the DMA engine's rule applies to them)
        printf '#include <mram.h>\n#include <stdint.h>\n__mram_noinit uint64_t src[512];\n__dma_aligned uint64_t buf[256];\n__host uint32_t n;\nint main(void) { mram_read(src, buf, 8); mram_read(src, buf, 2048); mram_write(buf, src, 1024); mram_read(src, buf, n); mram_write(buf, src, n + 4); return (int)buf[0]; }\n' > ok.c
        dpu_cc -o ok ok.c || { echo "FAIL: valid or dynamic sizes refused"; fails=$((fails + 1)); }
        dpu_cc -DOPENPIM_STRICT_DMA -o ok_strict ok.c || { echo "FAIL: strict mode refused valid code"; fails=$((fails + 1)); } ;;
    dpu_pg)
        printf 'int main(void) { return 0; }\n' > main.c
        must_fail "-pg: DPU profiling (dpu-profiling, mcount) is not supported" dpu_cc -pg -o main main.c ;;
    host_headers) # the SDK's low-level headers: not provided
        for h in dpu_memory.h dpu_runner.h dpu_program.h dpu_transfer_matrix.h dpu_profiler.h dpu_debug.h \
                 dpu_loader.h dpu_elf.h dpu_config.h dpu_custom.h dpu_fifo.h dpu_vpd.h dpu_checkpoint.h \
                 dpu_bank_interface_pmc.h dpu_hw_description.h dpu_chip_id.h dpu_target.h ufi/ufi.h; do
            printf '#include <dpu.h>\n#include <%s>\nint main(void) { return 0; }\n' "$h" > inc.c
            must_fail "$h" host_cc inc.c
        done ;;
    host_functions) # functions of the SDK's low-level API: not declared, not defined
        while read -r fn call; do
            printf '#include <dpu.h>\n#include <dpu_management.h>\nint main(void) { %s; return 0; }\n' "$call" > fn.c
            must_fail "$fn" host_cc fn.c
        done <<'LIST'
dpu_get_rank_of_type struct dpu_rank_t *r; dpu_get_rank_of_type(NULL, &r)
dpu_free_rank dpu_free_rank(NULL)
dpu_get dpu_get(NULL, 0, 0)
dpu_get_description dpu_get_description(NULL)
dpu_link_input_fifo dpu_link_input_fifo
dpu_fifo_push_xfer dpu_fifo_push_xfer
dpu_copy_to_mram dpu_copy_to_mram
dpu_bank_interface_pmc_enable dpu_bank_interface_pmc_enable
DPU_CALLBACK_PARALLEL int f = DPU_CALLBACK_PARALLEL; (void)f
dpu_launch_thread_on_rank dpu_launch_thread_on_rank
dpu_transfer_matrix_add_dpu dpu_transfer_matrix_add_dpu
LIST
        ;;
    *) echo "unknown case $case"; exit 2 ;;
esac
if (( fails )); then echo "FAIL: $fails"; exit 1; fi
echo "PASS: $case"
