#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# openpimd benchmark: remote against embedded latency and bandwidth per
# request size, and a small-transfer-heavy phase, in one run (bench_daemon.c);
# then the reads again with the prefetch cache off, and the writes with
# batching on.  Starts a daemon of one 64-DPU
# rank on a scratch socket (daemon/tests/opd_launch waits until it is ready).
#   bench/daemon/run.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../sdk_env.sh" "${1:-}"
cc -O2 -Wall -Wextra -o "$work/bench" "$here/bench_daemon.c" $(dpu-pkg-config --cflags --libs dpu)
OPENPIM_QUIET=1 dpu-upmem-dpurte-clang -O2 -o "$work/dpu_empty" "$here/dpu_empty.c"
pid=$("$build/daemon/tests/opd_launch" "$build/sdk/bin/openpimd" "$work/s.sock" "$work/daemon.log" \
      --machine nrRanks=1)
trap 'kill -TERM $pid; rm -rf "$work"' EXIT
unset UPMEM_PROFILE UPMEM_PROFILE_BASE
echo "== prefetch of small reads on (the default)"
"$work/bench" "$work/s.sock" "$work/dpu_empty"
echo "== prefetch off (OPENPIM_REMOTE_PREFETCH=0)"
OPENPIM_REMOTE_PREFETCH=0 "$work/bench" "$work/s.sock" "$work/dpu_empty" | grep -E "^(op |copy_from|push_from|small)"
echo "== batching of small writes on (OPENPIM_REMOTE_BATCH=1)"
OPENPIM_REMOTE_BATCH=1 "$work/bench" "$work/s.sock" "$work/dpu_empty" | grep -E "^(op |copy_to|push_to|small)"
