#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Sets everything up and runs the whole test suite: the optimised build, then
# the same suite under AddressSanitizer + UndefinedBehaviorSanitizer, then the
# host-API and thread tests under ThreadSanitizer (build-tsan/).
#   scripts/test.sh            (OPENPIM_SKIP_SANITIZE=1 to skip both sanitizer passes)
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jobs=$(nproc)
passed=0 failed=0

# Runs ctest in a build directory (extra args: which tests) and adds its
# counts to passed/failed.
run_tests() { # build-dir label [ctest args...]
    local build=$1 label=$2
    shift 2
    echo "== $label: tests"
    local log="$build/ctest.log"
    (cd "$build" && ctest -j "$jobs" --output-on-failure --timeout 900 "$@") 2>&1 | tee "$log" | grep -E '^ *[0-9]+/[0-9]+ Test|tests passed|Failed|\*\*\*' || true
    local total fail
    total=$(grep -oE 'out of [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo 0)
    fail=$(grep -oE '[0-9]+ tests failed' "$log" | tail -1 | grep -oE '^[0-9]+' || echo 0)
    [[ $total -gt 0 ]] || { echo "$label: no test ran"; failed=$((failed + 1)); return; }
    passed=$((passed + total - fail))
    failed=$((failed + fail))
}

run_suite() { # build-dir label [cmake args...]
    local build=$1 label=$2
    shift 2
    echo "== $label: build"
    OPENPIM_BUILD=$build "$root/scripts/setup.sh" "$@" || { failed=$((failed + 1)); return; }
    run_tests "$build" "$label"
}

# ThreadSanitizer: only the host-API and thread tests and openpimd's scenarios
# (a thread per client connection; the clients' remote backend) are built and
# run, to keep the pass short.  The daemon's fuzzer is single-threaded and its
# examples build with their own Makefiles, without -fsanitize.
tsan_tests=(test_api test_overflow test_threads test_async test_sessions test_launch_slots test_progress_host test_untimed)
run_tsan() { # build-dir label
    local build=$1 label=$2
    echo "== $label: build"
    mkdir -p "$build"
    if ! { cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPENPIM_TSAN=ON \
                 -DPython3_EXECUTABLE="$OPENPIM_VENV/bin/python3" >/dev/null &&
           cmake --build "$build" -j "$jobs" --target "${tsan_tests[@]}" test_daemon test_guest test_tokens test_hostile; } >"$build/build.log" 2>&1; then
        grep -B2 -A12 -m5 'error' "$build/build.log" >&2 || tail -40 "$build/build.log" >&2
        echo "$label: build failed (full log: $build/build.log)" >&2
        failed=$((failed + 1))
        return
    fi
    local regex
    regex="^($(IFS='|'; echo "${tsan_tests[*]}")|daemon_.*)\$"
    TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1} run_tests "$build" "$label" -R "$regex" \
        -E '^daemon_(examples|fuzz_decoder)$'
}

run_suite "$root/build" optimised
# the sanitizer builds share the optimised build's Python environment (build/venv)
export OPENPIM_VENV=$root/build/venv
if [[ -z ${OPENPIM_SKIP_SANITIZE:-} ]]; then
    run_suite "$root/build-asan" "ASan+UBSan" -DOPENPIM_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
    run_tsan "$root/build-tsan" "ThreadSanitizer"
fi
echo "tests: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
