/* SPDX-License-Identifier: MIT */
/* OpenPIM host SDK: turning a DPU's printf log back into text.
 *
 * A DPU program's printf/puts/putchar append binary records to the MRAM array
 * `__stdout_buffer` (a ring, 1 MiB by default) and count the bytes appended in
 * the WRAM variable `__stdout_buffer_state` (uint64_t, reset at each launch).
 * The record format is described in abi/log_record.h.
 *
 * dpu_log_read(dpu, out) reads both symbols of the DPU (the whole buffer and
 * the 8-byte state) and calls op_log_format.
 */
#ifndef OPENPIM_SDK_LOG_FORMAT_H
#define OPENPIM_SDK_LOG_FORMAT_H

#include <stdint.h>
#include <stdio.h>

/* Prints the records still present in the log ring `buf` (buf_size bytes, the
 * contents of __stdout_buffer) to `out`, oldest first, each conversion
 * formatted by the host's snprintf.  `state` is the value of
 * __stdout_buffer_state: the total number of bytes appended since the launch
 * began; when it exceeds buf_size the ring has wrapped, and records that were
 * partly overwritten are skipped.
 *
 * Returns 0 on success (also for an empty log), -1 if the log is inconsistent
 * (whatever could be decoded before the inconsistency is still printed), or -2
 * if out of memory or `out` reported a write error.
 */
int op_log_format(const uint8_t *buf, uint32_t buf_size, uint64_t state, FILE *out);

#endif
