#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The bundled examples, built by their own Makefiles, run once embedded and
# once through openpimd (UPMEM_PROFILE=backend=remote): the same output, and
# the same run report (modelled times), apart from the host's own measured
# time and its momentary memory limit.
#   run_examples.sh SDK_DIR EXAMPLES_DIR WORK_DIR OPD_LAUNCH OPENPIMD DPU_COUNT...
set -euo pipefail
sdk=$1 src=$2 work=$3 launch=$4 daemon=$5
shift 5
source "$sdk/upmem_env.sh"
rm -rf "$work" && mkdir -p "$work"
sock=$work/openpimd.sock
pid=$("$launch" "$daemon" "$sock" "$work/daemon.log" --workers 2)
trap 'kill -TERM $pid 2>/dev/null || true' EXIT
unset UPMEM_PROFILE UPMEM_PROFILE_BASE
# the measured lines differ between any two runs; the limit is 85 % of the RAM free at start;
# asynchronous launches on different ranks are listed in the order they ended
# (which varies from run to run embedded too): compare the launch table as a set
normalise() {
    grep -v '^measured on this host' "$1" | sed -E 's/\(limit [0-9]+ MB\)/(limit)/; s/^ +[0-9]+ launch /  # launch /' | sort
}
# async_ranks overlaps ranks: where its transfers fall in the timeline (and so
# their category and the timeline's end) follows the order its jobs end, which
# varies from run to run embedded too; its launches' modelled figures do not
launches_only() { normalise "$1" | grep ' launch '; }
# an instrumented libdpu (sanitizer builds) warns when a DPU's fault unwinds the stack it switched to
quiet() { grep -v -e '^==[0-9]*==WARNING: ASan is ignoring requested __asan_handle_no_return' \
                  -e '^False positive error reports may follow' -e '^For details see https://github.com/google/sanitizers' "$1" || true; }
status=0 runs=0
for dir in "$src"/*/; do
    name=$(basename "$dir")
    [[ -f $dir/Makefile ]] || continue
    cp -r "$dir" "$work/$name"
    rm -rf "$work/$name/bin"
    if ! make -C "$work/$name" >"$work/$name/build.log" 2>&1; then
        cat "$work/$name/build.log"; echo "FAIL: $name did not build"; status=1; continue
    fi
    compare=normalise
    [[ $name == async_ranks ]] && compare=launches_only
    for dpus in "$@"; do
        out=$work/$name/d$dpus
        (cd "$work/$name" && OPENPIM_QUIET=1 OPENPIM_REPORT=$out.emb.report LD_PRELOAD=${OPENPIM_RUN_PRELOAD:-} \
            ./bin/host_app -d "$dpus" >"$out.emb" 2>&1) || true
        (cd "$work/$name" && OPENPIM_QUIET=1 OPENPIM_REPORT=$out.rem.report LD_PRELOAD=${OPENPIM_RUN_PRELOAD:-} \
            UPMEM_PROFILE="backend=remote,socket=$sock" ./bin/host_app -d "$dpus" >"$out.rem" 2>&1) || true
        runs=$((runs + 1))
        if ! grep -q '^\[OK\]' "$out.emb"; then
            echo "FAIL: $name dpus=$dpus does not pass embedded"; tail -5 "$out.emb"; status=1
        elif ! cmp -s <(quiet "$out.emb") <(quiet "$out.rem"); then
            echo "FAIL: $name dpus=$dpus: output through openpimd differs"; diff "$out.emb" "$out.rem" | head -20 || true
            status=1
        elif [[ ! -s $out.emb.report ]] || ! diff <($compare "$out.emb.report") <($compare "$out.rem.report") >"$out.diff"; then
            echo "FAIL: $name dpus=$dpus: run report through openpimd differs"; head -20 "$out.diff" || true
            status=1
        else
            echo "$name dpus=$dpus: same output and modelled report ($compare: $($compare "$out.emb.report" | grep -c .) lines): $(head -1 "$out.emb")"
        fi
    done
done
kill -TERM "$pid"
trap - EXIT
# the daemon stops cleanly: every example's ranks came back
while kill -0 "$pid" 2>/dev/null; do wait "$pid" 2>/dev/null || sleep 0.05; done
if ! grep -q '^openpimd: stopped' "$work/daemon.log"; then
    echo "FAIL: openpimd did not stop cleanly"; cat "$work/daemon.log"; status=1
fi
echo "$runs runs compared"
exit $status
