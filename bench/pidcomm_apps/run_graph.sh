#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# PID-Comm's graph applications (GNN RS&AR, GNN AR&AG, BFS, CC; [PIDComm]
# §VII-B..D) on OpenPIM, baseline and optimised collectives, for Figures 13
# (breakdown), 15 (speedup over the baseline), 21 (against the CPU, 64 to 1,024
# PEs) and 22 (int8 against int32 GNN).  Every run checks its result exactly
# against the CPU reference (--check) and appends
#   <out>/graph_apps.csv       app,variant,pes,dtype,total_us,kernel_us,comm_us,host_us,cpu_us
#   <out>/graph_breakdown.csv  app,variant,pes,dtype,phase,us
# PIM times are modelled (openpim_modelled_time_us deltas per phase); cpu_us is
# the CPU reference's thread CPU time on this host in the same run (one
# thread, best of GRAPH_CPU_REPS; GNN: of GRAPH_GNN_CPU_REPS, and the summary
# takes the best over all GNN runs), then prints a summary (graph_summary.py).
#   bench/pidcomm_apps/run_graph.sh [build-dir] [out-dir]
# Environment (defaults in brackets):
#   GRAPH_GNN_PES    GNN PE counts, squares [64 256 1024]
#   GRAPH_GNN_F      GNN features for int32 in Figs. 13/15/21 [1433, Cora's]
#   GRAPH_GNN_V      GNN graph vertices [2708, Cora's]; PubMed: 19717
#   GRAPH_GNN_E      GNN graph undirected edges [5429, Cora's]; PubMed: 44338
#                    (PubMed: GRAPH_GNN_V=19717 GRAPH_GNN_E=44338 GRAPH_GNN_F=500)
#   GRAPH_GNN_F22    GNN features of Fig. 22, int8 and int32 [256: one width
#                    that neither type pads at 32 x 32 PEs]
#   GRAPH_GNN_CPU_REPS  CPU reference runs per GNN run [1]
#   GRAPH_PES        BFS/CC PE counts [32 64 128 256 512 1024]
#   GRAPH_SCALE      R-MAT scale of BFS/CC (2^scale vertices) [16]
#   GRAPH_EF         R-MAT edge factor [16]
#   GRAPH_CPU_REPS   CPU reference runs per app [3]
# ~30-45 min on 2 cores with the defaults (each 1,433-feature GNN run emulates
# ~17 G multiply-adds: 0.5-3 min; GRAPH_GNN_F=128 takes ~10 min in all).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-$PWD}
mkdir -p "$out"
cmake --build "$build" --target gnn_app graph_app -j2 > /dev/null
gnn=$build/workloads/gnn/gnn_app
graph=$build/workloads/graph/graph_app
csv=$out/graph_apps.csv
bd=$out/graph_breakdown.csv
rm -f "$csv" "$bd" "$out/graph_fig22.csv" "$out/graph_fig22_breakdown.csv"
reps=${GRAPH_CPU_REPS:-3}
common=(--check --csv "$csv" --breakdown "$bd" --cpu-reps "$reps")
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs"

for p in ${GRAPH_GNN_PES:-64 256 1024}; do            # Figs. 13, 15, 21
    for v in rsar arag; do
        for impl in baseline optimised; do
            "$gnn" --pes "$p" --variant "$v" --dtype int32 --features "${GRAPH_GNN_F:-1433}" \
                --vertices "${GRAPH_GNN_V:-2708}" --edges "${GRAPH_GNN_E:-5429}" --impl "$impl" \
                --check --csv "$csv" --breakdown "$bd" --cpu-reps "${GRAPH_GNN_CPU_REPS:-1}"
        done
    done
done
big=$(echo ${GRAPH_GNN_PES:-64 256 1024} | tr ' ' '\n' | sort -n | tail -1)
for t in int8 int32; do                                # Fig. 22 (its own CSV rows: dtype, features in the file name)
    for v in rsar arag; do
        for impl in baseline optimised; do
            "$gnn" --pes "$big" --variant "$v" --dtype "$t" --features "${GRAPH_GNN_F22:-256}" \
                --vertices "${GRAPH_GNN_V:-2708}" --edges "${GRAPH_GNN_E:-5429}" --impl "$impl" \
                --check --csv "$out/graph_fig22.csv" --breakdown "$out/graph_fig22_breakdown.csv" --cpu-reps 1
        done
    done
done
for p in ${GRAPH_PES:-32 64 128 256 512 1024}; do      # Figs. 13, 15, 21
    for a in bfs cc; do
        for impl in baseline optimised; do
            "$graph" "$a" --pes "$p" --scale "${GRAPH_SCALE:-16}" --edge-factor "${GRAPH_EF:-16}" --impl "$impl" \
                "${common[@]}"
        done
    done
done
python3 "$here/graph_summary.py" "$out"
