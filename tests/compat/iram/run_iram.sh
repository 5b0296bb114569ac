#!/usr/bin/env bash
# IRAM size check of the DPU driver (issue 8): a program whose estimated code
# does not fit the chip's IRAM is refused at link time (more than 10 % over),
# warned about (over, within 10 %), and accepted otherwise; unused functions
# (dropped by --gc-sections) do not count.
# usage: run_iram.sh SDK_PREFIX WORKDIR
set -euo pipefail
sdk=$1 work=$2
cc=$sdk/bin/dpu-upmem-dpurte-clang
mkdir -p "$work"; cd "$work"
status=0
fail() { echo "FAIL: $*"; status=1; }

# gen FILE N USED: a function big() of N statements `v[k] = v[k] ^ k` on a
# volatile array; each costs ld + xor + sd = 3 DPU instructions (op_costs.def:
# LOAD_STORE_PER_8B 1, INT_ALU_PER_WORD 1), + 1 for its ret: 3N + 1.  main
# (ret 1, or call 2 + frame 3 + ret 1 when it calls big) calls it if USED.
gen() {
    local f=$1 n=$2 used=$3 k
    {
        echo "volatile unsigned v[16];"
        echo "void big(void) {"
        for ((k = 0; k < n; k++)); do echo "  v[$((k % 16))] = v[$((k % 16))] ^ $((k + 1))u;"; done
        echo "}"
        if ((used)); then echo "int main(void) { big(); return 0; }"; else echo "int main(void) { return 0; }"; fi
    } > "$f"
}
iram_of() { # the estimate from the image's records (functions + routines once)
    rm -f "$work/records"
    objcopy --dump-section .openpim.iram="$work/records" "$1" "$work/scratch"
    awk '$1 == "F" { n += $3 } $1 == "L" && !($2 in l) { l[$2] = 1; n += $3 } END { print n + 0 }' "$work/records"
}

# expect NAME N USED MCPU OUTCOME(ok|warn|error) EST
expect() {
    local name=$1 n=$2 used=$3 mcpu=$4 want=$5 est=$6
    gen "$name.c" "$n" "$used"
    rm -f "$name"
    local rc=0
    OPENPIM_QUIET=1 "$cc" -O2 ${mcpu:+-mcpu=$mcpu} "$name.c" -o "$name" 2> "$name.err" || rc=$?
    case $want in
        ok)    ((rc == 0)) && ! grep -q IRAM "$name.err" || fail "$name: expected a silent link (rc $rc): $(cat "$name.err")" ;;
        warn)  ((rc == 0)) && grep -q "warning: the program needs about $est DPU instructions of IRAM" "$name.err" ||
                   fail "$name: expected a warning with $est: $(cat "$name.err")" ;;
        error) ((rc != 0)) && [[ ! -e $name ]] &&
               grep -q "error: the program needs about $est DPU instructions of IRAM, more than the $7 of a ${mcpu:-v1A} DPU" "$name.err" &&
               grep -q "will not fit in region" "$name.err" && grep -q "Largest functions: big ($((est - 6)))" "$name.err" ||
                   fail "$name: expected a refusal with $est: rc $rc $(cat "$name.err")" ;;
    esac
    if [[ $want != error ]] && ((rc == 0)); then
        local got; got=$(iram_of "$name")
        [[ $got == "$est" ]] || fail "$name: estimate $got, expected $est"
    fi
    ((status)) || echo "ok: $name ($want, estimate $est)"
}
# used: big 3N+1, main 6 (call 2, frame 3, ret 1) -> 3N + 7
expect under_v1A 1363 1 "" ok 4096          # 3*1363 + 7 = 4096: exactly the v1A limit
expect warn_v1A 1364 1 "" warn 4099         # just over, within 10 %
expect warn_v1B 1363 1 v1B warn 4096        # fits a v1A, not a v1B (3968)
expect under_v1B 1320 1 v1B ok 3967
expect over_v1A 1500 1 "" error 4507 4096   # 4507 > 4096 * 1.1 = 4505.6
expect over_v1B 1500 1 v1B error 4507 3968  # 4507 > 3968 * 1.1 = 4364.8
# the documented escape: -DOPENPIM_IRAM_UNCHECKED turns the refusal into a warning
gen esc.c 1500 1
OPENPIM_QUIET=1 "$cc" -O2 -DOPENPIM_IRAM_UNCHECKED esc.c -o esc 2> esc.err &&
    grep -q "warning: the program needs about 4507 DPU instructions of IRAM.*OPENPIM_IRAM_UNCHECKED" esc.err &&
    echo "ok: esc (unchecked: warning)" || fail "esc: $(cat esc.err)"
# an unused big function is dropped by --gc-sections: main alone (ret 1)
expect unused_big 3000 0 "" ok 1
exit $status
