/* SPDX-License-Identifier: MIT */
/* A DPU program that does nothing: the tests load it so that the set has a
 * program (host transfers need one). */
int main(void)
{
    return 0;
}
