#!/usr/bin/env bash
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

# Two link modes: the compiler's default (PIE here) and OpenPIM's non-PIE images.
for mode in default nopie; do
    extra=() link=()
    [[ $mode == nopie ]] && extra=(-fno-pie) link=(-no-pie)
    d=$work/$mode
    mkdir -p "$d"
    "$cc" "${dpu_flags[@]}" "${extra[@]}" -fpass-plugin="$plugin" -c "$here/count_funcs.c" -o "$d/count_funcs.o"
    "$cc" -O0 -Wall -Wextra -Werror "${extra[@]}" -fpass-plugin="$plugin" -c "$here/count_o0.c" -o "$d/count_o0.o"
    "$cc" -O2 -Wall -Wextra -Werror "${extra[@]}" -c "$here/test_main.c" -o "$d/test_main.o"
    "$cc" -O2 -Wall -Wextra -Werror "${extra[@]}" -c "$here/test_hook.c" -o "$d/test_hook.o"
    "$cc" "${link[@]}" "$d/test_main.o" "$d/count_funcs.o" "$d/count_o0.o" -o "$d/test_counts"
    "$cc" "${link[@]}" "$d/test_hook.o" "$d/count_funcs.o" -o "$d/test_hook"
    echo "== $mode: test_counts"
    "$d/test_counts" || status=1
    echo "== $mode: test_hook"
    "$d/test_hook" || status=1
done

# Differential test at several optimisation levels: instrumented code must
# compute exactly what native code computes.
"$cc" -O2 -Wall -Wextra -Werror -c "$here/diff_main.c" -o "$work/diff_main.o"
for o in -O0 -O1 -O2 -O3 -Os; do
    f=(-fno-vectorize -fno-slp-vectorize -Wall -Wextra -Werror)
    "$cc" $o "${f[@]}" -DDIFF_SUFFIX=_native -c "$here/diff_funcs.c" -o "$work/diff_native$o.o"
    "$cc" $o "${f[@]}" -DDIFF_SUFFIX=_counted -fpass-plugin="$plugin" -c "$here/diff_funcs.c" -o "$work/diff_counted$o.o"
    "$cc" "$work/diff_main.o" "$work/diff_native$o.o" "$work/diff_counted$o.o" -o "$work/diff$o"
    echo "== $o: diff"
    "$work/diff$o" || status=1
done
exit $status
