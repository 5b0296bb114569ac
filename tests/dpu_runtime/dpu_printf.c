/* SPDX-License-Identifier: MIT */
/* printf/puts/putchar from several tasklets, read back with dpu_log_read. */
#include <barrier.h>
#include <defs.h>
#include <stdint.h>
#include <stdio.h>

BARRIER_INIT(all, NR_TASKLETS);

__host uint32_t launch_no;

int main(void)
{
    uint32_t tid = me();
    if (tid == 0)
        printf("launch %u\n", launch_no);
    barrier_wait(&all);
    printf("tasklet %u: %d %lld %x %s %c %.2f|%5s|%-4d|\n", tid, -(int)tid, (long long)tid << 40, 255u + tid,
        "str", 'a' + (char)tid, 1.5 * tid, "ab", (int)tid);
    barrier_wait(&all);
    if (tid == 0) {
        puts("puts line");
        printf("just text\n"); /* gcc and clang turn this into puts() */
        putchar('x');
        printf("%c", 'y');      /* and this into putchar() */
        printf("%s\n", "via puts");
        printf("100%% %s %d%%\n", (const char *)0 == (const char *)0 ? "done" : "?", 7);
    }
    return 0;
}
