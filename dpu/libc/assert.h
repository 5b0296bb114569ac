/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU libc: <assert.h>.
 *
 * A failed assert() stops the whole DPU with OP_FAULT_ASSERT; the fault message
 * is the string literal "file:line: assertion failed: expr".
 * Like any <assert.h>, this header may be included several times, with and
 * without NDEBUG.
 */
#undef assert

#ifndef OPENPIM_DPU_ASSERT_DECLS
#define OPENPIM_DPU_ASSERT_DECLS
_Noreturn void __op_assert_fail(const char *msg);
#define __OP_ASSERT_STR2(x) #x
#define __OP_ASSERT_STR(x) __OP_ASSERT_STR2(x)
#ifndef __cplusplus
#define static_assert _Static_assert
#endif
#endif

#ifdef NDEBUG
#define assert(expr) ((void)0)
#else
#define assert(expr)                                                                                                   \
    ((expr) ? (void)0                                                                                                  \
            : __op_assert_fail(__FILE__ ":" __OP_ASSERT_STR(__LINE__) ": assertion failed: " #expr))
#endif
