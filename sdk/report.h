/* What the SDK layer tells the run report: every transfer and launch, so the
 * timing model can say what they would cost on real hardware. */
#ifndef OPENPIM_SDK_REPORT_H
#define OPENPIM_SDK_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

enum op_xfer_kind { OP_XFER_SERIAL, OP_XFER_PARALLEL, OP_XFER_BROADCAST };

void op_report_xfer(struct dpu_set_t set, enum op_xfer_kind kind, int to_dpu, enum op_region region,
                    size_t bytes_per_dpu, uint32_t nr_dpus);
void op_report_launch_begin(struct dpu_set_t set);
void op_report_launch_end(struct dpu_set_t set);

#endif
