#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Overhead of the OpenPIMCount instrumentation on compute-bound DPU-style code.
# Builds bench/kernel.c twice (native, and with the plugin) with the flags the
# OpenPIM DPU driver uses, links both into one program that alternates them,
# and prints native_time / counted_time (min and median over 11 trials).
#
# usage: timing/llvm/bench.sh [ROUNDS]
#   env: CLANG (default clang-14), PLUGIN (default: build it with CMake into a
#        temporary directory), BENCH_CFLAGS (extra flags for both builds)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cc=${CLANG:-clang-14}
work=$(mktemp -d "${TMPDIR:-/tmp}/opc-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

plugin=${PLUGIN:-}
if [[ -z $plugin ]]; then
    cmake -S "$here" -B "$work/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$work/build" >/dev/null
    plugin=$work/build/libOpenPIMCount.so
fi

flags=(-O2 -fno-vectorize -fno-slp-vectorize -fno-pie -ffp-contract=off ${BENCH_CFLAGS:-})
"$cc" "${flags[@]}" -DKERNEL_SUFFIX=_native -c "$here/bench/kernel.c" -o "$work/native.o"
"$cc" "${flags[@]}" -DKERNEL_SUFFIX=_counted -fpass-plugin="$plugin" -c "$here/bench/kernel.c" -o "$work/counted.o"
"$cc" -O2 -fno-pie -I "$here/.." -c "$here/bench/bench_main.c" -o "$work/main.o"
"$cc" -no-pie "$work/main.o" "$work/native.o" "$work/counted.o" -o "$work/bench"
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $cc, flags: ${flags[*]}"
"$work/bench" "$@"
