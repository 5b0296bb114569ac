/* SPDX-License-Identifier: MIT */
/* Three functions of the shapes of the SDK documentation's stack-analyzer
 * example (a leaf, a function that calls it, main calling that), compiled at
 * -O0 as that example is: UPMEM's dpu_stack_analyzer reports their frames as
 * 4 (the leaf), 16 and 16 bytes, 36 in all; check_frames.sh expects the same. */
int leaf(int v)
{
    return v << 2;
}

int mid(int v)
{
    return leaf(v - 3);
}

int main(void)
{
    return mid(9) - 1;
}
