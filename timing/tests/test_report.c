/* SPDX-License-Identifier: MIT */
/* Run report: categories, launch stats, text report, Chrome trace JSON.
 * argv[1]: where to write the trace (checked again by python3 -m json.tool). */
#include "timing.h"
#include "check.h"

#include <ctype.h>
#include <string.h>

/* ---- a strict little JSON validator ---- */
static const char *jp;
static int jvalue(void);
static void jws(void)
{
    while (*jp == ' ' || *jp == '\n' || *jp == '\t' || *jp == '\r')
        jp++;
}
static int jstring(void)
{
    if (*jp++ != '"')
        return 0;
    while (*jp && *jp != '"') {
        if ((unsigned char)*jp < 0x20)
            return 0;
        if (*jp == '\\') {
            jp++;
            if (*jp == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!isxdigit((unsigned char)jp[i]))
                        return 0;
                jp += 4;
            } else if (!strchr("\"\\/bfnrt", *jp)) {
                return 0;
            }
        }
        jp++;
    }
    return *jp++ == '"';
}
static int jnumber(void)
{
    const char *s = jp;
    if (*jp == '-')
        jp++;
    if (!isdigit((unsigned char)*jp))
        return 0;
    while (isdigit((unsigned char)*jp))
        jp++;
    if (*jp == '.') {
        jp++;
        if (!isdigit((unsigned char)*jp))
            return 0;
        while (isdigit((unsigned char)*jp))
            jp++;
    }
    if (*jp == 'e' || *jp == 'E') {
        jp++;
        if (*jp == '+' || *jp == '-')
            jp++;
        if (!isdigit((unsigned char)*jp))
            return 0;
        while (isdigit((unsigned char)*jp))
            jp++;
    }
    return jp > s;
}
static int jcontainer(char open, char close, int object)
{
    jp++;
    jws();
    if (*jp == close) {
        jp++;
        return 1;
    }
    for (;;) {
        jws();
        if (object) {
            if (!jstring())
                return 0;
            jws();
            if (*jp++ != ':')
                return 0;
        }
        if (!jvalue())
            return 0;
        jws();
        if (*jp == ',') {
            jp++;
            continue;
        }
        (void)open;
        return *jp++ == close;
    }
}
static int jvalue(void)
{
    jws();
    switch (*jp) {
    case '{':
        return jcontainer('{', '}', 1);
    case '[':
        return jcontainer('[', ']', 0);
    case '"':
        return jstring();
    case 't':
        return strncmp(jp, "true", 4) == 0 ? (jp += 4, 1) : 0;
    case 'f':
        return strncmp(jp, "false", 5) == 0 ? (jp += 5, 1) : 0;
    case 'n':
        return strncmp(jp, "null", 4) == 0 ? (jp += 4, 1) : 0;
    default:
        return jnumber();
    }
}
static int json_valid(const char *text)
{
    jp = text;
    if (!jvalue())
        return 0;
    jws();
    return *jp == 0;
}

static char *slurp(FILE *f)
{
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    buf[got] = 0;
    return buf;
}

int main(int argc, char **argv)
{
    struct op_machine_desc d;
    op_machine_desc_preset("v1A", &d);
    CHECK(strcmp(op_category_name(OP_CAT_CPU_DPU), "CPU-DPU") == 0);
    CHECK(strcmp(op_category_name(OP_CAT_DPU_KERNEL), "DPU kernel") == 0);
    CHECK(strcmp(op_category_name(OP_CAT_INTER_DPU), "Inter-DPU") == 0);
    CHECK(strcmp(op_category_name(OP_CAT_DPU_CPU), "DPU-CPU") == 0);

    /* launch statistics over 3 DPUs */
    struct op_dpu_result r[3];
    memset(r, 0, sizeof r);
    r[0].cycles = 1000, r[0].instructions = 500, r[0].dma_read_bytes = 2048;
    r[1].cycles = 3500, r[1].instructions = 3500, r[1].dma_write_bytes = 8;
    r[2].cycles = 700, r[2].instructions = 100;
    struct op_launch_stats s;
    op_launch_stats_init(&s);
    for (unsigned i = 0; i < 3; i++)
        op_launch_stats_add(&s, 10 + i, &r[i]);
    CHECK(s.nr_dpus == 3 && s.max_cycles == 3500 && s.slowest_dpu == 11 && s.min_cycles == 700);
    CHECK(s.sum_cycles == 5200 && s.instructions == 4100);
    CHECK(s.dma_read_bytes == 2048 && s.dma_write_bytes == 8);

    /* a run: push, launch, inter-DPU exchange, pull */
    struct op_report *rep = op_report_new(&d);
    double t0 = op_report_event(rep, OP_CAT_CPU_DPU, "dpu_push_xfer", -1, 120.0, 0, 2);
    double t1 = op_report_launch(rep, OP_CAT_DPU_KERNEL, "dpu_launch", -1, 183.0, &s, 0, 2);
    double t2 = op_report_event(rep, OP_CAT_INTER_DPU, "gather \"x\"\n", -1, 50.0, 0, 2);
    double t3 = op_report_event(rep, OP_CAT_DPU_CPU, "dpu_push_xfer", -1, 80.0, 1, 1);
    op_report_event(rep, OP_CAT_OTHER, "host work", -1, 5.0, 0, 0);
    CHECK(t0 == 0 && t1 == 120.0);
    double kernel = 3500 / 350.0; /* slowest DPU at 350 MHz = 10 us */
    CHECK(t2 == 120.0 + 183.0 + kernel);
    CHECK(t3 == t2 + 50.0);
    CHECK(op_report_total_us(rep, OP_CAT_DPU_KERNEL) == 183.0 + kernel);
    CHECK(op_report_total_us(rep, OP_CAT_COUNT) == 120.0 + 183.0 + kernel + 50.0 + 80.0 + 5.0);
    CHECK(op_report_clock_us(rep) == op_report_total_us(rep, OP_CAT_COUNT));
    /* an explicitly placed (asynchronous) event does not move earlier ones */
    double t5 = op_report_event(rep, OP_CAT_CPU_DPU, "async push", 10.0, 20.0, 3, 1);
    CHECK(t5 == 10.0 && op_report_clock_us(rep) == 120.0 + 183.0 + kernel + 50.0 + 80.0 + 5.0);

    FILE *f = tmpfile();
    op_report_write_text(rep, f);
    char *text = slurp(f);
    fclose(f);
    fputs(text, stdout);
    CHECK(strstr(text, "CPU-DPU") && strstr(text, "DPU kernel") && strstr(text, "Inter-DPU") &&
          strstr(text, "DPU-CPU"));
    CHECK(strstr(text, "machine v1A, server cloud2024 (") != NULL); /* the chip and the server preset */
    CHECK(strstr(text, "3500") != NULL);  /* max cycles */
    CHECK(strstr(text, "0.4680") != NULL); /* sum over categories, ms */
    CHECK(strstr(text, "0.4480") != NULL); /* timeline end, ms */
    free(text);

    const char *path = argc > 1 ? argv[1] : "timing_test_trace.json";
    f = fopen(path, "w+");
    CHECK(f != NULL);
    if (f) {
        CHECK(op_report_write_trace(rep, f) == 0);
        char *json = slurp(f);
        fclose(f);
        CHECK(json_valid(json));
        CHECK(strstr(json, "\"traceEvents\"") != NULL);
        CHECK(strstr(json, "\"rank 3\"") != NULL);
        CHECK(strstr(json, "gather \\\"x\\\"\\u000a") != NULL);
        CHECK(strstr(json, "\"ph\":\"X\",\"ts\":120.000,\"dur\":193.000,\"pid\":1,\"tid\":1}") != NULL);
        free(json);
    }
    /* the pure writer on an empty list is still valid JSON */
    f = tmpfile();
    CHECK(op_trace_write_json(f, NULL, 0) == 0);
    char *json = slurp(f);
    fclose(f);
    CHECK(json_valid(json));
    free(json);
    CHECK(!json_valid("{\"a\":1,}") && !json_valid("[1 2]"));

    op_report_free(rep);
    return check_done("test_report");
}
