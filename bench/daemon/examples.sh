#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The bundled examples embedded and through openpimd, side by side in one run:
# wall time of each whole program (min and median of REPS runs each,
# alternating), and the remote/embedded ratio of the medians; the mean ratio
# is the daemon's overhead over the bundled workloads.  Each timed run starts
# after a pause (SETTLE seconds): what the daemon still does after a client
# has gone (the reset of its ranks, the end of its workers) must not fall into
# the next embedded run's time, nor anything of the embedded run into the
# remote one's.
#   bench/daemon/examples.sh [build-dir] [dpus] [reps]     (environment: SETTLE, default 0.05 s)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../sdk_env.sh" "${1:-}"
dpus=${2:-64} reps=${3:-5} settle=${SETTLE:-0.05}
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
        sleep "$settle"
        t0=$(now); (cd "$work/$name" && OPENPIM_QUIET=1 ./bin/host_app -d "$dpus" >/dev/null); t1=$(now)
        sleep "$settle"
        t2=$(now)
        (cd "$work/$name" && OPENPIM_QUIET=1 UPMEM_PROFILE="backend=remote,socket=$work/s.sock" ./bin/host_app -d "$dpus" >/dev/null)
        t3=$(now)
        emb+=("$(echo "$t1 - $t0" | bc)") rem+=("$(echo "$t3 - $t2" | bc)")
    done
    read -r emin emed < <(printf "%s\n" "${emb[@]}" | sort -g | awk '{v[NR]=$1} END {print v[1], v[int((NR+1)/2)]}')
    read -r rmin rmed < <(printf "%s\n" "${rem[@]}" | sort -g | awk '{v[NR]=$1} END {print v[1], v[int((NR+1)/2)]}')
    ratio=$(echo "scale=3; $rmed / $emed" | bc)
    ratios+=("$ratio")
    printf "%-14s %10.3f %10.3f %10.3f %10.3f %7.2f\n" "$name" "$emin" "$emed" "$rmin" "$rmed" "$ratio"
done
printf "mean ratio over %d examples: %.3f\n" "${#ratios[@]}" "$(printf "%s\n" "${ratios[@]}" | awk '{s+=$1} END {print s/NR}')"
