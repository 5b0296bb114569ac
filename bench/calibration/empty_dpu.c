/* SPDX-License-Identifier: MIT */
/* Calibration suite, DPU side: an empty kernel (launch overhead, calibration-sources §3.5) and
 * the program loaded for host transfers (its MRAM heap is the target). */
int main(void)
{
    return 0;
}
