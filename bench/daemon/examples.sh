#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The bundled examples embedded and through openpimd, side by side in one run:
# wall time of each whole program (min and median of REPS runs each,
# alternating), and the remote/embedded ratio of the medians; the mean ratio
# is the daemon's overhead over the bundled workloads.
#   bench/daemon/examples.sh [build-dir] [dpus] [reps]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../sdk_env.sh" "${1:-}"
dpus=${2:-64} reps=${3:-5}
pid=$("$build/daemon/tests/opd_launch" "$build/sdk/bin/openpimd" "$work/s.sock" "$work/daemon.log")
trap 'kill -TERM $pid; rm -rf "$work"' EXIT
unset UPMEM_PROFILE UPMEM_PROFILE_BASE
now() { date +%s.%N; }
printf "%-14s %10s %10s %10s %10s %7s\n" example "emb min s" "emb med s" "rem min s" "rem med s" ratio
ratios=()
for dir in "$here"/../../examples/*/; do
    name=$(basename "$dir")
    [[ -f $dir/Makefile && $name != fault ]] || continue # fault measures error paths, not work
    cp -r "$dir" "$work/$name" && rm -rf "$work/$name/bin"
    make -C "$work/$name" >/dev/null 2>&1
    emb=() rem=()
    for ((i = 0; i < reps; i++)); do
        t0=$(now); (cd "$work/$name" && OPENPIM_QUIET=1 ./bin/host_app -d "$dpus" >/dev/null); t1=$(now)
        (cd "$work/$name" && OPENPIM_QUIET=1 UPMEM_PROFILE="backend=remote,socket=$work/s.sock" ./bin/host_app -d "$dpus" >/dev/null)
        t2=$(now)
        emb+=("$(echo "$t1 - $t0" | bc)") rem+=("$(echo "$t2 - $t1" | bc)")
    done
    read -r emin emed < <(printf "%s\n" "${emb[@]}" | sort -g | awk '{v[NR]=$1} END {print v[1], v[int((NR+1)/2)]}')
    read -r rmin rmed < <(printf "%s\n" "${rem[@]}" | sort -g | awk '{v[NR]=$1} END {print v[1], v[int((NR+1)/2)]}')
    ratio=$(echo "scale=3; $rmed / $emed" | bc)
    ratios+=("$ratio")
    printf "%-14s %10.3f %10.3f %10.3f %10.3f %7.2f\n" "$name" "$emin" "$emed" "$rmin" "$rmed" "$ratio"
done
printf "mean ratio over %d examples: %.3f\n" "${#ratios[@]}" "$(printf "%s\n" "${ratios[@]}" | awk '{s+=$1} END {print s/NR}')"
