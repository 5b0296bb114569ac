#!/usr/bin/env bash
# Sets everything up and runs the whole test suite: the optimised build, then
# the same suite under AddressSanitizer + UndefinedBehaviorSanitizer.
#   scripts/test.sh            (OPENPIM_SKIP_SANITIZE=1 to skip the second pass)
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jobs=$(nproc)
passed=0 failed=0

run_suite() { # build-dir label [cmake args...]
    local build=$1 label=$2
    shift 2
    echo "== $label: build"
    OPENPIM_BUILD=$build "$root/scripts/setup.sh" "$@" || { failed=$((failed + 1)); return; }
    echo "== $label: tests"
    local log="$build/ctest.log"
    (cd "$build" && ctest -j "$jobs" --output-on-failure --timeout 900) 2>&1 | tee "$log" | grep -E '^ *[0-9]+/[0-9]+ Test|tests passed|Failed|\*\*\*' || true
    local total fail
    total=$(grep -oE 'out of [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo 0)
    fail=$(grep -oE '[0-9]+ tests failed' "$log" | tail -1 | grep -oE '^[0-9]+' || echo 0)
    [[ $total -gt 0 ]] || { echo "$label: no test ran"; failed=$((failed + 1)); return; }
    passed=$((passed + total - fail))
    failed=$((failed + fail))
}

run_suite "$root/build" optimised
if [[ -z ${OPENPIM_SKIP_SANITIZE:-} ]]; then
    run_suite "$root/build-asan" "ASan+UBSan" -DOPENPIM_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
fi
echo "tests: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
