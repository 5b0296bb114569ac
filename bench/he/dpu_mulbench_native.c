#define HE_MUL_NATIVE
#define SUFFIX native
#include "dpu_mulbench_loops.h"
