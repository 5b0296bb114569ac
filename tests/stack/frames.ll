; DPU frames of small functions (toolchain/llvm/DpuFrame.cpp), each expected
; size derived by hand from the rules (README.md, "DPU frames"):
;   - objects: callee-saved pairs (8 bytes each) first, then allocas in order
;     aligned to max(min(preferred alignment, 8), their own) with the DPU data
;     layout (preferred alignment of i8, i16, i32 and their arrays: 4;
;     structs: 8), allocas with lifetime markers as the largest total live at
;     one point, by-value copies, spills (4 bytes a word), stack arguments;
;   - a function that calls: alignTo(objects, 8) + 8 (d22); a leaf function:
;     objects aligned to their largest alignment, 0 without objects;
;   - words live across a call: ceil(min(W, 8) / 2) pairs, 4 bytes a word beyond 8;
;   - arguments: 8 words in r0..r7 (64-bit: an aligned free pair), then the
;     stack (4 bytes; 64-bit: 8, aligned); variadic ones always on the stack.
; Each "EXPECT name total" line is checked by check_frames.sh against
; opt -passes=openpim-dpu-frames.
target datalayout = "e-p:32:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir"

%struct.pair = type { i32, i8 }
%struct.blob = type { [5 x i32], i8 }
%struct.op_services = type { void ()*, void (i64)* }
%struct.op_env = type { i32, %struct.op_services* }

@env = external global %struct.op_env*

declare void @g()
declare i32 @h10(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)
declare void @k(i32, i64, i32, i64, i64, i64)
declare i32 @vprint(i8*, ...)
declare void @takes_blob(%struct.blob* byval(%struct.blob) align 4)
declare void @mram_read(i8*, i8*, i32)
declare void @__op_fault(i32, i8*)
declare void @llvm.lifetime.start.p0i8(i64, i8* nocapture)
declare void @llvm.lifetime.end.p0i8(i64, i8* nocapture)
declare void @llvm.memcpy.p0i8.p0i8.i32(i8* nocapture, i8* nocapture, i32, i1)
declare void @llvm.memset.p0i8.i32(i8* nocapture, i8, i32, i1)

; EXPECT leaf_empty 0          (no call, no object)
define i32 @leaf_empty(i32 %x) {
  %y = add i32 %x, 1
  ret i32 %y
}

; EXPECT leaf_word 4           (one i32 object, align 4: the SDK documentation's
;                               dpu_stack_analyzer example shows this leaf as 4)
define i32 @leaf_word(i32 %x) {
  %a = alloca i32, align 4
  store volatile i32 %x, i32* %a
  %v = load volatile i32, i32* %a
  ret i32 %v
}

; EXPECT leaf_chars 4          ([3 x i8]: size 3, preferred alignment 4 -> 4)
define i8 @leaf_chars(i8 %x) {
  %a = alloca [3 x i8], align 1
  %p = getelementptr [3 x i8], [3 x i8]* %a, i32 0, i32 2
  store volatile i8 %x, i8* %p
  %v = load volatile i8, i8* %p
  ret i8 %v
}

; EXPECT leaf_mixed 24         (i8 at 0, i64 at 8..16, i16 at 16..18 (align 4),
;                               rounded to the largest alignment, 8)
define void @leaf_mixed() {
  %a = alloca i8, align 1
  %b = alloca i64, align 8
  %c = alloca i16, align 2
  store volatile i8 1, i8* %a
  store volatile i64 2, i64* %b
  store volatile i16 3, i16* %c
  ret void
}

; EXPECT leaf_struct 8         ({i32, i8}: size 8, struct preferred alignment 8)
define void @leaf_struct() {
  %a = alloca %struct.pair, align 4
  %p = getelementptr %struct.pair, %struct.pair* %a, i32 0, i32 0
  store volatile i32 1, i32* %p
  ret void
}

; EXPECT calls_only 8          (no object: 0, + d22)
define void @calls_only() {
  call void @g()
  ret void
}

; EXPECT sdk_example_bar 16    (-O0 shape of the documentation's `bar`: one
;                               i32 object, 4 -> 8, + d22 = 16 as published)
define i32 @sdk_example_bar(i32 %x) {
  %x.addr = alloca i32, align 4
  store i32 %x, i32* %x.addr, align 4
  %v = load i32, i32* %x.addr, align 4
  %s = add i32 %v, 1
  %r = call i32 @leaf_empty(i32 %s)
  ret i32 %r
}

; EXPECT live_two 16           (a and b live across the call: 2 words, 1 pair)
define i32 @live_two(i32 %a, i32 %b) {
  call void @g()
  %s = add i32 %a, %b
  ret i32 %s
}

; EXPECT live_i64 16           (one 64-bit value: 2 words, 1 pair)
define i64 @live_i64(i64 %a) {
  call void @g()
  ret i64 %a
}

; EXPECT live_three 24         (3 words: 2 pairs)
define i32 @live_three(i32 %a, i32 %b, i32 %c) {
  call void @g()
  %s = add i32 %a, %b
  %t = add i32 %s, %c
  ret i32 %t
}

; EXPECT live_ten 48           (10 words: 4 pairs (32) + 2 spilled words (8) = 40, + 8)
define i32 @live_ten(i32 %a0, i32 %a1, i32 %a2, i32 %a3, i32 %a4, i32 %a5, i32 %a6, i32 %a7, i32 %a8, i32 %a9) {
  call void @g()
  %s1 = add i32 %a0, %a1
  %s2 = add i32 %s1, %a2
  %s3 = add i32 %s2, %a3
  %s4 = add i32 %s3, %a4
  %s5 = add i32 %s4, %a5
  %s6 = add i32 %s5, %a6
  %s7 = add i32 %s6, %a7
  %s8 = add i32 %s7, %a8
  %s9 = add i32 %s8, %a9
  ret i32 %s9
}

; EXPECT addresses 16         (six addresses p + 4k used after the call: the backend
;                               forms them again from p, so p (1 word) survives it: 1 pair)
define i32 @addresses(i32* %p) {
  %a1 = getelementptr i32, i32* %p, i32 1
  %a2 = getelementptr i32, i32* %p, i32 2
  %a3 = getelementptr i32, i32* %p, i32 3
  %a4 = getelementptr i32, i32* %p, i32 4
  %a5 = getelementptr i32, i32* %p, i32 5
  %a6 = getelementptr i32, i32* %p, i32 6
  call void @g()
  %v1 = load i32, i32* %a1
  %v2 = load i32, i32* %a2
  %v3 = load i32, i32* %a3
  %v4 = load i32, i32* %a4
  %v5 = load i32, i32* %a5
  %v6 = load i32, i32* %a6
  %s1 = add i32 %v1, %v2
  %s2 = add i32 %s1, %v3
  %s3 = add i32 %s2, %v4
  %s4 = add i32 %s3, %v5
  %s5 = add i32 %s4, %v6
  ret i32 %s5
}

; EXPECT not_live 8            (x is used only before the call, the call's
;                               result only after it; constants do not count)
define i32 @not_live(i32 %x) {
  %y = mul i32 %x, 3
  %r = call i32 @leaf_empty(i32 %y)
  %z = add i32 %r, 7
  ret i32 %z
}

; EXPECT stack_args 16         (10 words to h10: r0..r7, 2 words on the stack = 8, + 8)
define i32 @stack_args() {
  %r = call i32 @h10(i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9)
  ret i32 %r
}

; EXPECT pairs 16              (k(i32 r0, i64 d2, i32 r1, i64 d4, i64 d6, i64 stack 8): 8, + 8)
define void @pairs() {
  call void @k(i32 1, i64 2, i32 3, i64 4, i64 5, i64 6)
  ret void
}

; EXPECT variadic 32           (format in r0; variadic i32 at 0..4, i64 at 8..16,
;                               double at 16..24: 24, + 8)
define i32 @variadic(i8* %fmt) {
  %r = call i32 (i8*, ...) @vprint(i8* %fmt, i32 1, i64 2, double 3.0)
  ret i32 %r
}

; EXPECT by_value 56           (the blob alloca: 24, align 8 (struct); its by-value
;                               copy: 24 at 24..48; 48, + 8)
define void @by_value() {
  %b = alloca %struct.blob, align 4
  call void @takes_blob(%struct.blob* byval(%struct.blob) align 4 %b)
  ret void
}

; EXPECT disjoint 100          ([100 x i8] and [60 x i8] never live together: the larger)
define void @disjoint(i1 %c) {
  %a = alloca [100 x i8], align 1
  %b = alloca [60 x i8], align 1
  %pa = getelementptr [100 x i8], [100 x i8]* %a, i32 0, i32 0
  %pb = getelementptr [60 x i8], [60 x i8]* %b, i32 0, i32 0
  call void @llvm.lifetime.start.p0i8(i64 100, i8* %pa)
  store volatile i8 1, i8* %pa
  call void @llvm.lifetime.end.p0i8(i64 100, i8* %pa)
  call void @llvm.lifetime.start.p0i8(i64 60, i8* %pb)
  store volatile i8 2, i8* %pb
  call void @llvm.lifetime.end.p0i8(i64 60, i8* %pb)
  ret void
}

; EXPECT overlapping 160       (both live at the second start: 100 + 60)
define void @overlapping() {
  %a = alloca [100 x i8], align 1
  %b = alloca [60 x i8], align 1
  %pa = getelementptr [100 x i8], [100 x i8]* %a, i32 0, i32 0
  %pb = getelementptr [60 x i8], [60 x i8]* %b, i32 0, i32 0
  call void @llvm.lifetime.start.p0i8(i64 100, i8* %pa)
  call void @llvm.lifetime.start.p0i8(i64 60, i8* %pb)
  store volatile i8 1, i8* %pa
  store volatile i8 2, i8* %pb
  call void @llvm.lifetime.end.p0i8(i64 60, i8* %pb)
  call void @llvm.lifetime.end.p0i8(i64 100, i8* %pa)
  ret void
}

; EXPECT branches 104          (one arm's [100 x i8] and the other's [40 x i8]
;                               never overlap; a marker-less i32 first: 4 + 100)
define void @branches(i1 %c) {
  %w = alloca i32, align 4
  %a = alloca [100 x i8], align 1
  %b = alloca [40 x i8], align 1
  store volatile i32 0, i32* %w
  %pa = getelementptr [100 x i8], [100 x i8]* %a, i32 0, i32 0
  %pb = getelementptr [40 x i8], [40 x i8]* %b, i32 0, i32 0
  br i1 %c, label %left, label %right
left:
  call void @llvm.lifetime.start.p0i8(i64 100, i8* %pa)
  store volatile i8 1, i8* %pa
  call void @llvm.lifetime.end.p0i8(i64 100, i8* %pa)
  br label %join
right:
  call void @llvm.lifetime.start.p0i8(i64 40, i8* %pb)
  store volatile i8 2, i8* %pb
  call void @llvm.lifetime.end.p0i8(i64 40, i8* %pb)
  br label %join
join:
  ret void
}

; EXPECT copies 8              (a memcpy of variable length is a call; a 16-byte
;                               memset aligned 8 is 2 stores, inline)
define void @copies(i8* align 8 %d, i8* align 8 %s, i32 %n) {
  call void @llvm.memset.p0i8.i32(i8* align 8 %d, i8 0, i32 16, i1 false)
  call void @llvm.memcpy.p0i8.p0i8.i32(i8* %d, i8* %s, i32 %n, i1 false)
  ret void
}

; EXPECT inline_stores 0       (a 16-byte memset aligned 4: 4 stores, inline)
define void @inline_stores(i8* align 4 %d) {
  call void @llvm.memset.p0i8.i32(i8* align 4 %d, i8 0, i32 16, i1 false)
  ret void
}

; EXPECT long_memset 8         (40 bytes aligned 4: 10 stores, a call of memset)
define void @long_memset(i8* align 4 %d) {
  call void @llvm.memset.p0i8.i32(i8* align 4 %d, i8 0, i32 40, i1 false)
  ret void
}

; EXPECT plumbing 0            (a service of the worker, mram_read (ldma on the
;                               DPU) and the runtime's __op_* are not DPU calls)
define void @plumbing(i8* %m, i8* %w) {
  %e = load %struct.op_env*, %struct.op_env** @env
  %sp = getelementptr %struct.op_env, %struct.op_env* %e, i32 0, i32 1
  %svc = load %struct.op_services*, %struct.op_services** %sp
  %fp = getelementptr %struct.op_services, %struct.op_services* %svc, i32 0, i32 1
  %f = load void (i64)*, void (i64)** %fp
  call void %f(i64 1)
  %yp = bitcast %struct.op_services* %svc to void ()**
  %y = load void ()*, void ()** %yp
  call void %y()
  call void @mram_read(i8* %m, i8* %w, i32 8)
  call void @__op_fault(i32 1, i8* null)
  ret void
}

; EXPECT through_pointer 8     (a call through any other pointer is a call)
define void @through_pointer(void ()* %f) {
  call void %f()
  ret void
}

; EXPECT recursive 16          (n live across the recursive call: 1 word, 1 pair)
define i32 @recursive(i32 %n) {
  %z = icmp eq i32 %n, 0
  br i1 %z, label %done, label %more
more:
  %m = sub i32 %n, 1
  %r = call i32 @recursive(i32 %m)
  %s = add i32 %r, %n
  ret i32 %s
done:
  ret i32 0
}

; EXPECT buffer_and_call 536   (a [520 x i8] buffer (520, align 4) and a
;                               variadic i32 (4): 524 -> 528, + 8)
define void @buffer_and_call(i32 %x) {
  %buf = alloca [520 x i8], align 1
  %p = getelementptr [520 x i8], [520 x i8]* %buf, i32 0, i32 0
  store volatile i8 0, i8* %p
  %r = call i32 (i8*, ...) @vprint(i8* %p, i32 %x)
  ret void
}

; DECLARED printf 48          (an SDK routine implemented otherwise here: what
;                               UPMEM's printf costs, its callees included)
define i32 @printf(i8* %fmt, ...) {
  call void @g()
  ret i32 0
}
