#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Exact-count tests of the OpenPIMCount pass.
# usage: run_tests.sh [CLANG [PLUGIN [WORKDIR]]]   (registered with CTest by ../CMakeLists.txt)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cc=${1:-clang-14}
plugin=${2:-$here/../build/libOpenPIMCount.so}
work=${3:-$(mktemp -d "${TMPDIR:-/tmp}/opc-tests.XXXXXX")}
mkdir -p "$work"
[[ -f $plugin ]] || { echo "run_tests.sh: plugin $plugin not found" >&2; exit 1; }

dpu_flags=(-O2 -fno-vectorize -fno-slp-vectorize -Wall -Wextra -Werror)
status=0

# Two link modes: the compiler's default (PIE here) and OpenPIM's non-PIE
# images; and the latter with the checks of WRAM's low end (v1B's, here with
# a start in the null page that nothing reaches), which must not change a count.
for mode in default nopie wramlow; do
    extra=() link=()
    [[ $mode == nopie ]] && extra=(-fno-pie) link=(-no-pie)
    [[ $mode == wramlow ]] && extra=(-fno-pie -Xclang -load -Xclang "$plugin" -mllvm -openpim-wram-start=2048) link=(-no-pie)
    d=$work/$mode
    mkdir -p "$d"
    "$cc" "${dpu_flags[@]}" "${extra[@]}" -fpass-plugin="$plugin" -c "$here/count_funcs.c" -o "$d/count_funcs.o"
    "$cc" -O0 -Wall -Wextra -Werror "${extra[@]}" -fpass-plugin="$plugin" -c "$here/count_o0.c" -o "$d/count_o0.o"
    "$cc" -O2 -Wall -Wextra -Werror "${extra[@]}" -I "$here/../.." -c "$here/test_main.c" -o "$d/test_main.o"
    "$cc" -O2 -Wall -Wextra -Werror "${extra[@]}" -I "$here/../.." -c "$here/test_hook.c" -o "$d/test_hook.o"
    "$cc" "${link[@]}" "$d/test_main.o" "$d/count_funcs.o" "$d/count_o0.o" -o "$d/test_counts"
    "$cc" "${link[@]}" "$d/test_hook.o" "$d/count_funcs.o" -o "$d/test_hook"
    echo "== $mode: test_counts"
    "$d/test_counts" || status=1
    echo "== $mode: test_hook"
    "$d/test_hook" || status=1
done

# The cost table's loads are invariant: in loops without calls LICM must hoist
# them (and the counter stays in a register), i.e. every load of __op_costs in
# these functions comes before the loop's first phi.
"$cc" "${dpu_flags[@]}" -fpass-plugin="$plugin" -S -emit-llvm "$here/count_funcs.c" -o "$work/count_funcs.ll"
for fn in t_loop_mul t_dlt_mix; do
    if awk -v fn="@$fn(" '
        index($0, "define") == 1 && index($0, fn) { inside = 1; next }
        inside && /^}/ { exit }
        inside && / phi / { seen_phi = 1 }
        inside && /@__op_costs/ { loads++; if (seen_phi) late++ }
        END { exit !(loads > 0 && late == 0) }' "$work/count_funcs.ll"; then
        echo "ok: $fn: cost-table loads hoisted out of the loop"
    else
        echo "FAIL: $fn: a load of __op_costs is left inside the loop (or none found)"
        status=1
    fi
done

# The wramlow mode above did check accesses (count_funcs.c loads and stores
# through pointer arguments).
"$cc" "${dpu_flags[@]}" -Xclang -load -Xclang "$plugin" -mllvm -openpim-wram-start=2048 -fpass-plugin="$plugin" \
    -S -emit-llvm "$here/count_funcs.c" -o "$work/count_funcs_wramlow.ll"
checks=$(grep -c "call void @__op_wram_low" "$work/count_funcs_wramlow.ll" || true)
if (( checks > 0 )); then
    echo "ok: wramlow: $checks checks of WRAM's low end"
else
    echo "FAIL: wramlow: -openpim-wram-start put no check into count_funcs.c"
    status=1
fi

# Differential test at several optimisation levels: instrumented code must
# compute exactly what native code computes.
"$cc" -O2 -Wall -Wextra -Werror -I "$here/../.." -c "$here/diff_main.c" -o "$work/diff_main.o"
for o in -O0 -O1 -O2 -O3 -Os; do
    f=(-fno-vectorize -fno-slp-vectorize -Wall -Wextra -Werror)
    "$cc" $o "${f[@]}" -DDIFF_SUFFIX=_native -c "$here/diff_funcs.c" -o "$work/diff_native$o.o"
    "$cc" $o "${f[@]}" -DDIFF_SUFFIX=_counted -fpass-plugin="$plugin" -c "$here/diff_funcs.c" -o "$work/diff_counted$o.o"
    "$cc" "$work/diff_main.o" "$work/diff_native$o.o" "$work/diff_counted$o.o" -o "$work/diff$o"
    echo "== $o: diff"
    "$work/diff$o" || status=1
done
# and with the checks of WRAM's low end
"$cc" -O2 -fno-vectorize -fno-slp-vectorize -Wall -Wextra -Werror -DDIFF_SUFFIX=_counted -fpass-plugin="$plugin" \
    -Xclang -load -Xclang "$plugin" -mllvm -openpim-wram-start=2048 -c "$here/diff_funcs.c" -o "$work/diff_wramlow.o"
"$cc" "$work/diff_main.o" "$work/diff_native-O2.o" "$work/diff_wramlow.o" -o "$work/diff_wramlow"
echo "== -O2 with WRAM low-end checks: diff"
"$work/diff_wramlow" || status=1
exit $status
