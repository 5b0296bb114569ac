/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <macro_utils.h>, preprocessor helpers. */
#ifndef DPUSYSCORE_MACRO_UTILS_H
#define DPUSYSCORE_MACRO_UTILS_H

#define __STR_AGAIN(x) #x
/* Stringify after expansion. */
#define __STR(x) __STR_AGAIN(x)
#define __CONCAT_AGAIN(x, y) x##y
/* Paste after expansion. */
#define __CONCAT(x, y) __CONCAT_AGAIN(x, y)

#endif
