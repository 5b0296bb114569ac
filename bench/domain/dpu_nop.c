/* SPDX-License-Identifier: MIT */
/* DPU program of the rank-view benchmark: only gives the DPUs a program (and
 * the MRAM heap symbol the push uses); never launched. */
int main(void)
{
    return 0;
}
