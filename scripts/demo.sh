#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Sets everything up, then runs every bundled example, built with its own
# Makefile, on the embedded emulated server (40 ranks, 2560 DPUs): each
# program's own verification, wall time on this host, and where a real server
# would spend its time (modelled), then one program's full report.
#   scripts/demo.sh [NR_TASKLETS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OPENPIM_BUILD:-$root/build}
tasklets=${1:-16}
"$root/scripts/setup.sh"
source "$build/sdk/upmem_env.sh"
export OPENPIM_QUIET=1

ms() { # category report-file -> modelled milliseconds
    awk -v c="$1" 'index($0, c) == 1 { print $(NF - 1); exit }' "$2"
}

echo
echo "OpenPIM demo: UPMEM programs on an emulated 2560-DPU server (v1A, $tasklets tasklets, $(nproc) host workers)"
echo "modelled = what the run would spend on a real UPMEM server (ms); wall = this host (s)"
printf '%-14s %5s %7s | %9s %9s %9s %9s | %s\n' example DPUs "wall" "CPU-DPU" "kernel" "inter" "DPU-CPU" "program output"
status=0
for dir in "$root"/examples/*/; do
    name=$(basename "$dir")
    [[ -f $dir/Makefile ]] || continue
    work="$build/demo/$name"
    rm -rf "$work" && mkdir -p "$build/demo" && cp -r "$dir" "$work" && rm -rf "$work/bin"
    make -s -C "$work" NR_TASKLETS="$tasklets" >"$work/build.log" 2>&1 || { echo "$name: build failed"; cat "$work/build.log"; status=1; continue; }
    dpus=2560 args=()
    case $name in
        fault) dpus=64 ;;
        checksum) dpus=256 ;; # it broadcasts 8 MiB to every DPU: 2560 DPUs would touch 20 GB
        vector_add) args=(-n 33554432) ;; # 32 Mi elements: 52 KB per array per DPU
    esac
    start=$(date +%s.%N)
    out=$(cd "$work" && OPENPIM_REPORT="$work/report.txt" ./bin/host_app -d "$dpus" "${args[@]}" 2>&1) || true
    end=$(date +%s.%N)
    line=$(grep -E '^\[(OK|ERROR)\]' <<<"$out" | tail -1)
    [[ $line == "[OK]"* ]] || status=1
    r="$work/report.txt"
    printf '%-14s %5s %7.2f | %9s %9s %9s %9s | %s\n' "$name" "$dpus" "$(awk -v a="$start" -v b="$end" 'BEGIN{print b-a}')" \
        "$(ms CPU-DPU "$r")" "$(ms 'DPU kernel' "$r")" "$(ms Inter-DPU "$r")" "$(ms DPU-CPU "$r")" "${line:-$(tail -1 <<<"$out")}"
done
echo
echo "Full report of vector_add on 2560 DPUs ($build/demo/vector_add/report.txt):"
cat "$build/demo/vector_add/report.txt"
exit $status
