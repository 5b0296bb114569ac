#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds dpu_tasklets.c with one spelling of the driver's options, as a user's
# Makefile might write it, and runs it with check_tasklets: the image must run
# exactly the tasklets the options say (and the stack sizes they say).
#   run_flag_form.sh SDK_DIR CHECKER WORK_DIR FORM
set -euo pipefail
sdk=$1 checker=$2 work=$3 form=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$sdk/upmem_env.sh"
export OPENPIM_QUIET=1
rm -rf "$work" && mkdir -p "$work/inc" && cd "$work"
cp "$here/dpu_tasklets.c" task.c
cp "$here/flag_cfg.h" inc/
cc=(dpu-upmem-dpurte-clang -O2 -Wall -Wextra -Werror)

build() { echo "+ ${cc[*]} $*"; "${cc[@]}" "$@"; }
run() { # IMAGE NR [fault]
    echo "+ check_tasklets $*"; "$checker" "$@"
}
refused() { # PATTERN ARGS...: the driver must fail and say PATTERN
    local pattern=$1; shift
    echo "+ ${cc[*]} $* (must be refused)"
    if out=$("${cc[@]}" "$@" 2>&1); then echo "$out"; echo "FAIL: accepted"; exit 1; fi
    echo "$out"
    grep -qF -- "$pattern" <<<"$out" || { echo "FAIL: the error does not say '$pattern'"; exit 1; }
}

case $form in
    d_space)   build -D NR_TASKLETS=12 -I inc -o img task.c && run img 12 ;;
    d_joined)  build -DNR_TASKLETS=12 -Iinc -oimg task.c && run img 12 ;;
    d_novalue) build -D NR_TASKLETS -I inc -o img task.c && run img 1 ;;     # -D X means X=1
    none)      build -I inc -o img task.c && run img 1 ;;                     # the driver defines it as 1
    last_wins) build -DNR_TASKLETS=3 -D NR_TASKLETS=11 -I inc -o img task.c && run img 11 ;;
    undef)     build -DNR_TASKLETS=5 -U NR_TASKLETS -D NR_TASKLETS=7 -I inc -o img task.c && run img 7
               build -DNR_TASKLETS=5 -UNR_TASKLETS -I inc -o img2 task.c && run img2 1 ;;
    hex)       build -DNR_TASKLETS=0x10 -I inc -o img task.c && run img 16 ;;
    include)   echo '#define NR_TASKLETS 9' > tasklets.h
               build -include tasklets.h -I inc -o img task.c && run img 9 ;;
    response)  printf '%s\n' '-D NR_TASKLETS=6' "-I 'inc'" '-o img' > flags.rsp
               build @flags.rsp task.c && run img 6 ;;
    response_nested)
               printf '%s\n' '-DNR_TASKLETS=5' > inner.rsp
               printf '%s\n' '-Iinc @inner.rsp' 'task.c' > outer.rsp
               build @outer.rsp -o img && run img 5 ;;
    lang_x)    cp task.c task.dpu
               build -x c task.dpu -D NR_TASKLETS=4 -I inc -o img && run img 4 ;;
    separate)  build -c -D NR_TASKLETS=8 -I inc -o task.o task.c
               build -D NR_TASKLETS=8 -o img task.o && run img 8 ;;
    stack_default)
               build -D NR_TASKLETS=4 -DBIG_FRAME=1500 -I inc -o small task.c && run small 4 fault
               build -D NR_TASKLETS=4 -DBIG_FRAME=1500 -D STACK_SIZE_DEFAULT=2048 -I inc -o img task.c && run img 4 ;;
    stack_tasklet)
               build -D NR_TASKLETS=4 -DBIG_FRAME=1500 -DBIG_FRAME_TASKLET=2 -I inc -o small task.c && run small 4 fault
               build -DNR_TASKLETS=4 -DBIG_FRAME=1500 -DBIG_FRAME_TASKLET=2 -D STACK_SIZE_TASKLET_2=2048 -I inc -o img task.c
               run img 4
               # only tasklet 2's stack grew
               sizes=$(nm img | awk '/ __op_stack_size_[0-9]+$/ {print $3 "=" $1}' | sort -V | tr '\n' ' ')
               echo "stacks: $sizes"
               [[ $sizes == "__op_stack_size_0=00000400 __op_stack_size_1=00000400 __op_stack_size_2=00000800 __op_stack_size_3=00000400 " ]] ||
                   { echo "FAIL: unexpected stack sizes"; exit 1; } ;;
    stack_response)
               printf '%s\n' '-D STACK_SIZE_DEFAULT=2048' '-DNR_TASKLETS=3' > stack.rsp
               build @stack.rsp -DBIG_FRAME=1500 -I inc -o img task.c && run img 3 ;;
    refused)   refused "a v1A DPU runs 1 to 24 tasklets" -D NR_TASKLETS=25 -I inc -o img task.c
               refused "needs an integer value" -D NR_TASKLETS=many -I inc -o img task.c
               refused "give tasklets and stack sizes as macros" -Wl,--defsym=NR_TASKLETS=4 -I inc -o img task.c
               printf '#define NR_TASKLETS 16\n#include "task.c"\n' > own.c
               refused "NR_TASKLETS is 16 there, but the command line gives 1" -I inc -o img own.c
               # compiled for 8 tasklets, linked without the option: would run only tasklet 0
               build -c -D NR_TASKLETS=8 -I inc -o task8.o task.c
               refused "compiled with NR_TASKLETS=8, but the link gives 1" -o img task8.o
               [[ ! -e img ]] || { echo "FAIL: the refused link left an image"; exit 1; }
               refused "stack size of tasklet 0 (100) must be a multiple of 8" -D STACK_SIZE_DEFAULT=100 -I inc -o img task.c ;;
    # the driver's other names in the SDK's bin/ (dpu-clang; clang with the DPU target, as CMake's
    # CMAKE_C_COMPILER_TARGET passes it), separate compile and link included
    dpu_clang) cc[0]=dpu-clang
               build -c -D NR_TASKLETS=6 -I inc -o task.o task.c
               build -D NR_TASKLETS=6 -o img task.o && run img 6 ;;
    clang_target)
               cc[0]=clang
               build --target=dpu-upmem-dpurte -D NR_TASKLETS=10 -I inc -o img task.c && run img 10
               build -target dpu-upmem-dpurte -c -D NR_TASKLETS=3 -I inc -o task.o task.c
               build -target dpu-upmem-dpurte -D NR_TASKLETS=3 -o img3 task.o && run img3 3
               # without the DPU target, clang is the system's (host builds are unchanged)
               clang --version | grep -q "clang version" || { echo "FAIL: clang without the DPU target"; exit 1; }
               printf 'int main(void) { return sizeof(void *) == 8 ? 0 : 1; }\n' > host.c
               clang -o host host.c && ./host || { echo "FAIL: a host program built with clang"; exit 1; }
               cc=(clang++ --target=dpu-upmem-dpurte)
               refused "C++ DPU programs are not supported by OpenPIM" -D NR_TASKLETS=2 -I inc -o img task.c ;;
    # --version: one line naming the front end's version; with a source, the build goes on (as clang)
    version)   v=$(dpu-upmem-dpurte-clang --version)
               echo "$v"
               [[ $(wc -l <<<"$v") == 1 && $v == *"clang version"* ]] || { echo "FAIL: --version says '$v'"; exit 1; }
               build --version -D NR_TASKLETS=5 -I inc -o img task.c && run img 5 ;;
    *) echo "unknown form $form"; exit 2 ;;
esac
echo "PASS: $form"
