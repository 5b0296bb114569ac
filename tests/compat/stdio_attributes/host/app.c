/* SPDX-License-Identifier: MIT */
/* Checks the <stdio.h>-only DPU program: the __host and __mram variables exist
 * and work, the log buffer has STDOUT_BUFFER_INIT's 256 bytes, a short log is
 * read back whole, and a log longer than 256 bytes keeps its newest lines only,
 * in order, ending with the last one. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <dpu.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        printf("[ERROR] %s\n", what);
        failures++;
    }
}

/* Runs the program with `lines` lines; returns the log text (malloc'd). */
static char *run(struct dpu_set_t set, uint32_t input, uint32_t lines)
{
    DPU_ASSERT(dpu_copy_to(set, "input", 0, &input, sizeof input));
    DPU_ASSERT(dpu_copy_to(set, "lines", 0, &lines, sizeof lines));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    uint64_t out = 0;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    struct dpu_set_t dpu;
    DPU_FOREACH (set, dpu) {
        DPU_ASSERT(dpu_copy_from(dpu, "output", 0, &out, sizeof out));
        DPU_ASSERT(dpu_log_read(dpu, f));
    }
    check(out == 2ull * input, "the __mram output is not twice the __host input");
    fclose(f);
    return text;
}

int main(void)
{
    struct dpu_set_t set;
    struct dpu_program_t *program;
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, "dpu_stdio", &program));

    struct dpu_symbol_t buffer;
    DPU_ASSERT(dpu_get_symbol(program, "__stdout_buffer", &buffer));
    check(buffer.size == 256, "__stdout_buffer does not have STDOUT_BUFFER_INIT's 256 bytes");

    /* Three lines fit: the log is exactly them. */
    char *text = run(set, 21, 3);
    check(strcmp(text, "line 0 of 3\nline 1 of 3\nline 2 of 3\n") == 0, "the short log is not the three lines");
    free(text);

    /* 40 lines (about 600 bytes of text, more in records) do not fit: the newest stay. */
    text = run(set, 1000000007u, 40);
    check(strstr(text, "line 0 of 40\n") == NULL, "the oldest line survived a 256-byte ring");
    size_t n = strlen(text);
    check(n >= 14 && strcmp(text + n - 14, "line 39 of 40\n") == 0, "the log does not end with the newest line");
    /* The lines that are left are whole and consecutive, ending at line 39. */
    uint32_t want = 0, count = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        uint32_t i, of;
        if (sscanf(line, "line %" SCNu32 " of %" SCNu32, &i, &of) != 2 || of != 40) {
            check(0, "a line of the wrapped log is not whole");
            break;
        }
        if (count > 0)
            check(i == want, "the wrapped log's lines are not consecutive");
        want = i + 1;
        count++;
    }
    check(want == 40 && count > 0 && count < 40, "the wrapped log does not end with the newest lines");
    free(text);

    DPU_ASSERT(dpu_free(set));
    if (failures)
        return 1;
    printf("[OK] <stdio.h> alone: __host, __mram, STDOUT_BUFFER_INIT(256)\n");
    return 0;
}
