#!/usr/bin/env bash
# The reproduction report: sets up and builds OpenPIM (scripts/setup.sh), runs
# the benchmarks of every registered section (report/sections/*.py and
# <folder>/report_section.py) and writes ONE self-contained HTML page, then
# checks that page in headless chromium (images load, layout holds).
#   scripts/report.sh [--only NAME,...]        (~70 min on 2 cores, set-up included)
# Environment:
#   OPENPIM_BUILD                build folder (default build/, as setup.sh)
#   OPENPIM_REPORT_OUT           the page (default <build>/reproduction-report/index.html)
#   OPENPIM_REPORT_PRESETS       calibration presets to run (default: all of timing/presets/)
#   OPENPIM_REPORT_BUDGET_MB     host memory of the transfer study's end-to-end runs (8192)
#   OPENPIM_REPORT_STUDY_PROFILE machine keys of the transfer study (default server=xferstudy)
# Exit status: 0 when every section ran and the page passes the browser check
# (rows that miss their targets are results, not failures), 1 otherwise.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export OPENPIM_BUILD=${OPENPIM_BUILD:-$root/build}
build=$OPENPIM_BUILD
out=${OPENPIM_REPORT_OUT:-$build/reproduction-report/index.html}

"$root/scripts/setup.sh"

# What the report needs beyond setup.sh's packages (no-ops once setup.sh
# installs them): matplotlib (python/requirements-test.txt), chromium.
sudo=""; [[ $(id -u) -eq 0 ]] || sudo=sudo
if ! python3 -c 'import matplotlib' 2>/dev/null; then
    echo "report: installing Python packages (python/requirements-test.txt)"
    python3 -m pip install -q -r "$root/python/requirements-test.txt" 2>/dev/null ||
        python3 -m pip install -q --break-system-packages -r "$root/python/requirements-test.txt"
fi
if ! command -v chromium >/dev/null; then
    echo "report: installing chromium (the page check)"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi

mkdir -p "$(dirname "$out")"
rc=0
PYTHONPATH="$root/report" python3 -m openpim_report --root "$root" --build "$build" --out "$out" "$@" || rc=$?
[[ -f $out ]] || { echo "report: no page written" >&2; exit 1; }
PYTHONPATH="$root/report" python3 -m openpim_report.browser "$out" || rc=1
echo "report: $out"
exit $rc
