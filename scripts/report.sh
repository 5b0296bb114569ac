#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The reproduction report: sets up and builds OpenPIM (scripts/setup.sh), runs
# the benchmarks of every registered section (report/sections/*.py and
# <folder>/report_section.py) and writes ONE self-contained HTML page, then
# checks that page in headless chromium (images load, nothing overflows).
# How long it takes: README.md, "Reproduction report".
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

usage() {
    cat <<EOF
usage: scripts/report.sh [--only NAME[,NAME...]] [--list] [--help]

Builds OpenPIM (scripts/setup.sh: Debian packages, build/venv, build/), runs
the benchmarks of the report's sections and writes one self-contained page,
checked in headless chromium. README.md ("Reproduction report") says how long
the whole report takes.

  --only NAMES   run these sections only; their page goes to
                 <report folder>/only-NAMES.html, never over the full page
  --list         list the registered sections (after the build) and exit
  --help         this text (nothing is built or run)

Environment:
  OPENPIM_BUILD                build folder (default build/, as setup.sh)
  OPENPIM_REPORT_OUT           the page (default <build>/reproduction-report/index.html,
                               or only-NAMES.html beside it with --only)
  OPENPIM_REPORT_PRESETS       calibration presets to run (default: all of timing/presets/)
  OPENPIM_REPORT_BUDGET_MB     host memory of the transfer study's end-to-end runs (8192)
  OPENPIM_REPORT_STUDY_PROFILE machine keys of the transfer study (default server=xferstudy)
  (each section's own variables: the header of its file, e.g. workloads/gnn/report_section.py)

Exit status: 0 when every section ran and the page passes the browser check
(rows that miss their targets are results, not failures), 1 otherwise, 2 for
a wrong command line.
EOF
}

only="" list=0
while (($#)); do
    case $1 in
        -h | --help) usage; exit 0 ;;
        --only) [[ $# -ge 2 && -n $2 ]] || { echo "report: --only needs section names" >&2; usage >&2; exit 2; }
                only=$2; shift ;;
        --only=*) only=${1#--only=}; [[ -n $only ]] || { echo "report: --only needs section names" >&2; exit 2; } ;;
        --list) list=1 ;;
        *) echo "report: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

export OPENPIM_BUILD=${OPENPIM_BUILD:-$root/build}
build=$OPENPIM_BUILD
dir=$(dirname "${OPENPIM_REPORT_OUT:-$build/reproduction-report/index.html}")
if [[ -n $only ]]; then
    out=${OPENPIM_REPORT_OUT:-$dir/only-${only//,/-}.html}
else
    out=${OPENPIM_REPORT_OUT:-$dir/index.html}
fi

start=$SECONDS
"$root/scripts/setup.sh"
# the Python of build/venv (setup.sh made it) for the report and every
# benchmark it runs
export PATH="$build/venv/bin:$PATH"
args=(--root "$root" --build "$build" --out "$out")
[[ -z $only ]] || args+=(--only "$only")
if ((list)); then
    PYTHONPATH="$root/report" python3 -m openpim_report "${args[@]}" --list
    exit
fi

mkdir -p "$(dirname "$out")"
rc=0
PYTHONPATH="$root/report" python3 -m openpim_report "${args[@]}" || rc=$?
[[ $rc -ne 2 ]] || exit 2 # a wrong section name, or --only onto the full page: nothing written
[[ -f $out ]] || { echo "report: no page written" >&2; exit 1; }
PYTHONPATH="$root/report" python3 -m openpim_report.browser "$out" || rc=1
echo "report: $out ($(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s, set-up and build included)"
exit $rc
