/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU libc: <errno.h>.  errno is per tasklet; the values are Linux's. */
#ifndef OPENPIM_DPU_ERRNO_H
#define OPENPIM_DPU_ERRNO_H

int *__op_errno_location(void);
#define errno (*__op_errno_location())

#define EPERM 1
#define ENOENT 2
#define EIO 5
#define E2BIG 7
#define EAGAIN 11
#define ENOMEM 12
#define EACCES 13
#define EFAULT 14
#define EBUSY 16
#define EEXIST 17
#define EINVAL 22
#define ENOSPC 28
#define EDOM 33
#define ERANGE 34
#define EDEADLK 35
#define ENOSYS 38
#define EOVERFLOW 75
#define ENOTSUP 95
#define ETIMEDOUT 110
#define EALREADY 114
#define EINPROGRESS 115
#define ECANCELED 125

#endif
