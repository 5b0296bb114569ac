#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Before/after of the scale benchmark: runs it with two OpenPIM builds, one
# after the other, and checks that every launch's per-DPU modelled results
# (cycles, instructions, DMA bytes, faults: OPENPIM_REPORT_DPUS) are identical.
#   bench/scale/compare.sh BEFORE-BUILD AFTER-BUILD [MB per array per DPU] [DPUs]
# (e.g. a build of the previous commit: git worktree or git archive, then cmake)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for side in before after; do
    build=$1
    [ "$side" = after ] && build=$2
    echo "== $side: $build"
    OPENPIM_REPORT_DPUS="$out/$side.csv" "$here/run.sh" "$build" "${3:-1}" ${4:+"$4"}
done
if cmp -s "$out/before.csv" "$out/after.csv"; then
    echo "per-DPU modelled results: identical ($(($(wc -l < "$out/after.csv") - 1)) DPU launches)"
else
    echo "per-DPU modelled results DIFFER:"
    diff "$out/before.csv" "$out/after.csv" | head -20
    exit 1
fi
