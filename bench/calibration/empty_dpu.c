/* Calibration suite, DPU side: an empty kernel (launch overhead, ref §3.5) and
 * the program loaded for host transfers (its MRAM heap is the target). */
int main(void)
{
    return 0;
}
