#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# README "Debugging", checked: gdb follows the host into its worker process,
# loads the DPU image's symbols and stops at a line of DPU code with a hardware
# breakpoint (the worker copies the code in after gdb starts, which would
# overwrite a software one).  UPMEM_PROFILE=workers=1 keeps every DPU in the
# one worker gdb follows.
#   gdb_stop.sh HOST_PROGRAM DPU_IMAGE DPU_SOURCE
# Exit 77 (skipped) where gdb is missing or ptrace is not allowed.
set -uo pipefail
host=$1 image=$2 source=$3
command -v gdb >/dev/null || { echo "gdb not installed: skipped"; exit 77; }
line=$(grep -n "case 3: /\* store past the end of WRAM \*/" "$source" | cut -d: -f1)
line=$((line + 1))
script=$(mktemp)
trap 'rm -f "$script"' EXIT
cat >"$script" <<GDB
set pagination off
set confirm off
set follow-fork-mode child
catch exec
run
delete
add-symbol-file $image
hbreak $(basename "$source"):$line
continue
bt 1
kill
quit
GDB
out=$(cd "$(dirname "$host")" && UPMEM_PROFILE=workers=1 timeout 120 gdb -q -batch -x "$script" --args "$host" 2>&1)
if grep -q "ptrace: Operation not permitted\|Could not trace the inferior" <<<"$out"; then
    echo "ptrace not allowed here: skipped"; exit 77
fi
want="Breakpoint 2, main () at .*$(basename "$source"):$line"
if grep -q "$want" <<<"$out"; then
    grep "$want" <<<"$out"
    echo "PASS: gdb stopped in DPU code at $(basename "$source"):$line"
    exit 0
fi
grep -v "^openpim\|^mode" <<<"$out" | tail -20
echo "FAIL: gdb did not stop at $(basename "$source"):$line"
exit 1
