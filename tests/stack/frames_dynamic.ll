; A variable-length array: UPMEM's compiler refuses dynamic stack allocation
; (check_frames.sh expects the stack pass to refuse it too).
target triple = "spir"

define i32 @vla(i32 %n) {
  %a = alloca i32, i32 %n, align 4
  store volatile i32 1, i32* %a
  %v = load volatile i32, i32* %a
  ret i32 %v
}
