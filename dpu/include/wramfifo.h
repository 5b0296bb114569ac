/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <wramfifo.h> is not supported.  The SDK's WRAM FIFOs
 * exchange data with the host while the DPU runs (DPU_XFER_PARALLEL,
 * dpu_fifo_push_xfer), which OpenPIM's host library does not provide. */
#error "OpenPIM does not support <wramfifo.h> (WRAM FIFOs between a running DPU and the host); see docs/sdk-audit.md"
