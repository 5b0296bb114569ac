/* SPDX-License-Identifier: MIT */
/* Included by dpu-upmem-dpurte-clang into each unit compiled with a
 * user-set NR_TASKLETS: records the value in a non-loaded section of the
 * object, which the link compares with the image's tasklet count. */
#ifdef __OP_TU_NR_TASKLETS
#define __OP_TU_STR2(x) #x
#define __OP_TU_STR(x) __OP_TU_STR2(x)
__asm__(".pushsection .openpim.nr_tasklets,\"\",@progbits\n\t.long " __OP_TU_STR(__OP_TU_NR_TASKLETS) "\n\t.popsection");
#endif
