#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# DPU frames computed by the stack pass (opt -passes=openpim-dpu-frames) match
# the sizes derived by hand in frames.ll's "EXPECT name total" lines, and the
# sizes UPMEM's dpu_stack_analyzer publishes for functions of the shapes of
# frames_o0.c; a dynamic alloca is refused with the DPU compiler's reason.
#   check_frames.sh CLANG OPT PLUGIN SOURCE_DIR
set -euo pipefail
clang=$1 opt=$2 plugin=$3 dir=$4
out=$("$opt" -load-pass-plugin="$plugin" -passes=openpim-dpu-frames -disable-output "$dir/frames.ll")
fails=0 n=0
while read -r name want; do
    n=$((n + 1))
    got=$(awk -v f="$name" '$1 == "dpu-frame" && $2 == f { print $3 }' <<<"$out")
    if [[ $got != "$want" ]]; then
        echo "FAIL: $name: frame ${got:-missing}, expected $want ($(grep -E "^dpu-frame $name " <<<"$out"))"
        fails=$((fails + 1))
    fi
done < <(sed -n 's/^; EXPECT \([A-Za-z0-9_]*\) \([0-9]*\).*/\1 \2/p' "$dir/frames.ll")
(( n >= 20 )) || { echo "FAIL: only $n expectations read"; exit 1; }
declared=$(awk '$1 == "dpu-frame" && $NF != "sdk-routine=0" { print $2 " " $NF }' <<<"$out")
[[ $declared == "printf sdk-routine=48" ]] || { echo "FAIL: SDK routines '$declared', expected printf's 48"; fails=$((fails + 1)); }
if err=$("$opt" -load-pass-plugin="$plugin" -passes=openpim-dpu-frames -disable-output "$dir/frames_dynamic.ll" 2>&1); then
    echo "FAIL: a dynamic alloca was accepted"; fails=$((fails + 1))
elif ! grep -q "dynamic allocation of stack" <<<"$err"; then
    echo "FAIL: a dynamic alloca was refused without the reason: $err"; fails=$((fails + 1))
fi
published=$("$clang" -target spir -Xclang -fdefault-calling-conv=cdecl -O0 -S -emit-llvm -o - "$dir/frames_o0.c" |
    "$opt" -load-pass-plugin="$plugin" -passes=openpim-dpu-frames -disable-output |
    awk '{ printf "%s=%s ", $2, $3 }')
if [[ $published != "leaf=4 mid=16 main=16 " ]]; then
    echo "FAIL: -O0 frames $published, the SDK documentation's analyzer shows leaf=4 mid=16 main=16"; fails=$((fails + 1))
fi
(( fails == 0 )) || exit 1
echo "PASS: $n DPU frames as derived by hand, 3 as UPMEM's analyzer reports them; dynamic alloca refused"
