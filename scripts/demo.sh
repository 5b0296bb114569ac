#!/usr/bin/env bash
# Sets everything up, then runs every bundled example, built with its own
# Makefile, on the embedded emulated server (40 ranks, 2560 DPUs), printing
# each program's own verification line and a run summary.
#   scripts/demo.sh [NR_TASKLETS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OPENPIM_BUILD:-$root/build}
tasklets=${1:-16}
"$root/scripts/setup.sh"
source "$build/sdk/upmem_env.sh"
export OPENPIM_QUIET=1

echo
echo "OpenPIM demo: UPMEM programs on an emulated 2560-DPU server (v1A, $tasklets tasklets, $(nproc) host workers)"
printf '%-14s %6s %9s  %s\n' example DPUs "wall (s)" "program output"
status=0
for dir in "$root"/examples/*/; do
    name=$(basename "$dir")
    [[ -f $dir/Makefile ]] || continue
    work="$build/demo/$name"
    rm -rf "$work" && mkdir -p "$build/demo" && cp -r "$dir" "$work" && rm -rf "$work/bin"
    make -s -C "$work" NR_TASKLETS="$tasklets" >"$work/build.log" 2>&1 || { echo "$name: build failed"; cat "$work/build.log"; status=1; continue; }
    dpus=2560
    case $name in
        fault) dpus=64 ;;
        checksum) dpus=256 ;; # it broadcasts 8 MiB to every DPU: 2560 DPUs would touch 20 GB
    esac
    start=$(date +%s.%N)
    out=$(cd "$work" && ./bin/host_app -d "$dpus" 2>&1) || true
    end=$(date +%s.%N)
    line=$(grep -E '^\[(OK|ERROR)\]' <<<"$out" | tail -1)
    [[ $line == "[OK]"* ]] || status=1
    printf '%-14s %6s %9.2f  %s\n' "$name" "$dpus" "$(awk -v a="$start" -v b="$end" 'BEGIN{print b-a}')" "${line:-$(tail -1 <<<"$out")}"
done
exit $status
