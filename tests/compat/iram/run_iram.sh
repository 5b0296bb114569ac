#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# IRAM size check of the DPU driver: a program whose estimated code
# does not fit the chip's IRAM is refused at link time (more than 10 % over),
# warned about (over, within 10 %), and accepted otherwise; unused functions
# (dropped by --gc-sections) do not count; the runtime and libc functions an
# image keeps count (their size-only records), its emulation code does not.
# usage: run_iram.sh SDK_PREFIX WORKDIR
set -euo pipefail
sdk=$1 work=$2
cc=$sdk/bin/dpu-upmem-dpurte-clang
mkdir -p "$work"; cd "$work"
status=0
fail() { echo "FAIL: $*"; status=1; }

# gen FILE N USED [S]: a function big() of N statements `v[k] = v[k] ^ k` on a
# volatile array; each costs ld + xor + sd = 3 DPU instructions (op_costs.def:
# LOAD_STORE_PER_8B 1, INT_ALU_PER_WORD 1), then S stores `v[0] = 0` (sd, 1
# each), + 1 for its ret: 3N + S + 1.  main (ret 1, or call 2 + frame 3 + ret 1
# when it calls big) calls it if USED.
gen() {
    local f=$1 n=$2 used=$3 s=${4:-0} k
    {
        echo "volatile unsigned v[16];"
        echo "void big(void) {"
        for ((k = 0; k < n; k++)); do echo "  v[$((k % 16))] = v[$((k % 16))] ^ $((k + 1))u;"; done
        for ((k = 0; k < s; k++)); do echo "  v[0] = 0u;"; done
        echo "}"
        if ((used)); then echo "int main(void) { big(); return 0; }"; else echo "int main(void) { return 0; }"; fi
    } > "$f"
}
record_of() { # IMAGE FUNCTION: the instructions of FUNCTION's record in IMAGE (0 if none)
    rm -f "$work/records"
    objcopy --dump-section .openpim.iram="$work/records" "$1" "$work/scratch"
    awk -v f="$2" '$1 == "F" && $2 == f { n += $3 } END { print n + 0 }' "$work/records"
}
link() { # NAME [FLAGS...]: links NAME.c; sets `est`, the driver's estimate
    local name=$1; shift
    OPENPIM_QUIET=1 OPENPIM_IRAM_REPORT=1 "$cc" -O2 "$@" "$name.c" -o "$name" 2> "$name.err" ||
        { fail "$name: link failed: $(cat "$name.err")"; est=-1; return; }
    est=$(sed -n 's/.*IRAM estimate: \([0-9]*\) of.*/\1/p' "$name.err")
}
# The runtime every image keeps, UPMEM's crt0 counterpart (no size of crt0 in
# the reference notes, so ours): __op_boot 15 + __op_misc_reset 14 (what crt0
# resets at boot) + __op_tasklet_main 6 (the call of main).  __op_sync_reset,
# kept too, is emulation (the worker's mutex table) and does not count.
rt=35

# expect NAME N S USED MCPU OUTCOME(ok|warn|error) EST [IRAM]
expect() {
    local name=$1 n=$2 s=$3 used=$4 mcpu=$5 want=$6 est=$7 limit=${8:-}
    gen "$name.c" "$n" "$used" "$s"
    rm -f "$name"
    local rc=0
    OPENPIM_QUIET=1 OPENPIM_IRAM_REPORT=1 "$cc" -O2 ${mcpu:+-mcpu=$mcpu} "$name.c" -o "$name" 2> "$name.err" || rc=$?
    case $want in
        ok)    ((rc == 0)) && ! grep -q -E "(warning|error): .*IRAM" "$name.err" || fail "$name: expected a silent link (rc $rc): $(cat "$name.err")" ;;
        warn)  ((rc == 0)) && grep -q "warning: the program needs about $est DPU instructions of IRAM" "$name.err" ||
                   fail "$name: expected a warning with $est: $(cat "$name.err")" ;;
        error) ((rc != 0)) && [[ ! -e $name ]] &&
               grep -q "error: the program needs about $est DPU instructions of IRAM, more than the $limit of a ${mcpu:-v1A} DPU" "$name.err" &&
               grep -q "will not fit in region" "$name.err" && grep -q "Largest functions: big ($((3 * n + s + 1)))" "$name.err" ||
                   fail "$name: expected a refusal with $est: rc $rc $(cat "$name.err")" ;;
    esac
    if [[ $want != error ]] && ((rc == 0)); then
        local got; got=$(sed -n 's/.*IRAM estimate: \([0-9]*\) of.*/\1/p' "$name.err")
        [[ $got == "$est" ]] || fail "$name: estimate $got, expected $est"
    fi
    ((status)) || echo "ok: $name ($want, estimate $est)"
}
# used: big 3N+S+1, main 6 (call 2, frame 3, ret 1), runtime $rt -> 3N + S + 42
expect under_v1A 1351 1 1 "" ok 4096            # 3*1351 + 1 + 42 = 4096: exactly the v1A limit
expect warn_v1A 1351 2 1 "" warn 4097           # just over, within 10 %
expect warn_v1B 1351 1 1 v1B warn 4096          # fits a v1A, not a v1B (3968)
expect under_v1B 1308 1 1 v1B ok 3967
expect over_v1A 1488 0 1 "" error 4506 4096     # 4506 > 4096 * 1.1 = 4505.6
expect over_v1B 1488 0 1 v1B error 4506 3968    # 4506 > 3968 * 1.1 = 4364.8
# the documented escape: -DOPENPIM_IRAM_UNCHECKED turns the refusal into a warning
gen esc.c 1488 1
OPENPIM_QUIET=1 "$cc" -O2 -DOPENPIM_IRAM_UNCHECKED esc.c -o esc 2> esc.err &&
    grep -q "warning: the program needs about 4506 DPU instructions of IRAM.*OPENPIM_IRAM_UNCHECKED" esc.err &&
    echo "ok: esc (unchecked: warning)" || fail "esc: $(cat esc.err)"
# an unused big function is dropped by --gc-sections: main alone (ret 1) + runtime
expect unused_big 3000 0 0 "" ok $((1 + rt))

# The runtime and libc are built in the pass's size-only mode: records, but no
# counting code (their time is the model's op costs), i.e. no reference to the
# counter or the cost table, which only crt.c and costs.c define.
syms=$(nm "$sdk/lib/openpim/libdpurt.a")
if grep -q -E " U (__op_icount|__op_costs)$" <<<"$syms"; then fail "libdpurt.a: the runtime counts instructions"
elif ! grep -q " D __op_icount$" <<<"$syms"; then fail "libdpurt.a: no __op_icount (nm)"
else echo "ok: libdpurt.a (no counting code)"; fi

# A libc or runtime function the program calls counts by its record, once:
# WITH and WITHOUT differ only by that call, so their estimates differ by the
# callee's record (+ its callees' and routines', for printf) and main's change.
callee_delta() { # NAME ROUTINES CALLEE EXTRA_FUNCTIONS...: WITH = NAME_with.c, WITHOUT = NAME_without.c
    local name=$1 routines=$2 callee=$3; shift 3
    link "${name}_without"; local e0=$est
    link "${name}_with"; local e1=$est
    local rec; rec=$(record_of "${name}_with" "$callee")
    local extra=0 g r; for g in "$@"; do r=$(record_of "${name}_with" "$g"); ((r > 0)) || fail "$name: no record of $g"; extra=$((extra + r)); done
    local m0 m1; m0=$(record_of "${name}_without" main); m1=$(record_of "${name}_with" main)
    if ((rec > 0 && e1 - e0 == rec + extra + routines + m1 - m0)); then
        echo "ok: $name ($callee's record $rec, estimate $e0 -> $e1)"
    else
        fail "$name: estimates $e0 -> $e1, $callee's record $rec (+ $extra + $routines), main $m0 -> $m1"
    fi
}
printf '%s\n' '#include <string.h>' 'volatile unsigned n; char d[64], s[64];' \
    'int main(void) { memcpy(d, s, n); return 0; }' > memcpy_with.c
printf '%s\n' '#include <string.h>' 'volatile unsigned n; char d[64], s[64];' \
    'int main(void) { d[n] = s[n]; return 0; }' > memcpy_without.c
callee_delta memcpy 0 memcpy
# printf brings its log writer and format encoder, which call __udiv64 (55,
# SDK 2021.3's librt.a, op_costs.def IRAM_UDIV64)
printf '%s\n' '#include <stdio.h>' 'volatile int n;' 'int main(void) { printf("%d", n); return 0; }' > printf_with.c
printf '%s\n' '#include <stdio.h>' 'volatile int n;' 'int main(void) { n = n + 1; return 0; }' > printf_without.c
callee_delta printf 55 printf __op_log_append op_log__args

exit $status
