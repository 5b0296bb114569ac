#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The kernel probe (probe_host.c, prim_shapes_dpu.c): builds it with the UPMEM
# SDK of the environment, for each tasklet count, runs it on one DPU and
# writes its records to OUT.  On a server with DPUs, source UPMEM's
# upmem_env.sh first; for OpenPIM's figures, OpenPIM's build/sdk/upmem_env.sh.
# Then `bench/calibration/probe.py DPU.csv OPENPIM.csv` sets the two side by side.
set -euo pipefail

usage() {
    cat <<'USAGE'
usage: bench/calibration/probe.sh OUT.csv [TASKLETS ...]

Builds the PrIM-shaped VA, RED and HST-S kernels and their compute-only and
DMA-only variants for each tasklet count (default: 1 2 4 8 11 12 16; 1-24)
with the SDK on PATH (dpu-upmem-dpurte-clang, dpu-pkg-config), runs each on
one DPU, checks every result on the host and writes the performance counter's
cycles and instructions to OUT.csv.  A minute or less on a UPMEM server.
USAGE
}
case "${1:-}" in -h|--help) usage; exit 0 ;; "") usage >&2; exit 2 ;; esac
out=$1; shift
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(1 2 4 8 11 12 16)
for t in "${counts[@]}"; do
    [[ "$t" =~ ^[0-9]+$ ]] && [ "$t" -ge 1 ] && [ "$t" -le 24 ] || { echo "probe.sh: tasklets must be 1-24, got '$t'" >&2; exit 2; }
done
for tool in dpu-upmem-dpurte-clang dpu-pkg-config; do
    command -v "$tool" >/dev/null || { echo "probe.sh: $tool is not on PATH: source an SDK's upmem_env.sh first" >&2; exit 2; }
done

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2046 # dpu-pkg-config prints several flags
cc -O2 -std=c11 -Wall -o "$work/probe_host" "$here/probe_host.c" $(dpu-pkg-config --cflags --libs dpu)
{
    echo "# bench/calibration/probe.sh on $(uname -n), $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "# DPU compiler: $(dpu-upmem-dpurte-clang --version 2>&1 | head -n 1)"
    echo "# host library: dpu $(dpu-pkg-config --modversion dpu 2>/dev/null || echo unknown); UPMEM_PROFILE=${UPMEM_PROFILE:-}"
    for t in "${counts[@]}"; do
        dpu-upmem-dpurte-clang -O2 -DNR_TASKLETS="$t" -o "$work/prim_shapes_t$t" "$here/prim_shapes_dpu.c"
        "$work/probe_host" "$work/prim_shapes_t$t" "$t"
    done
} > "$out"
echo "probe.sh: $(grep -c '^probe,' "$out") records in $out"
