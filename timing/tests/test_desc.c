/* Machine description: presets, file format, profile strings, what-if files.
 * argv[1]: the presets directory. */
#include "timing.h"
#include "check.h"

#include <string.h>

static const char *dir = "presets";

static char *dump(const struct op_machine_desc *d)
{
    FILE *f = tmpfile();
    op_machine_desc_write(f, d);
    long n = ftell(f);
    rewind(f);
    char *buf = calloc(1, (size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    buf[got] = 0;
    fclose(f);
    return buf;
}

static int equal(const struct op_machine_desc *a, const struct op_machine_desc *b)
{
    char *x = dump(a), *y = dump(b);
    int eq = strcmp(x, y) == 0;
    free(x);
    free(y);
    return eq;
}

static const char *tmp_path = "timing_test_desc_tmp.desc";

static int load_text(const char *text, struct op_machine_desc *d, char *err, size_t len)
{
    FILE *f = fopen(tmp_path, "w");
    if (!f)
        return -2;
    fputs(text, f);
    fclose(f);
    int rc = op_machine_desc_load(tmp_path, d, err, len);
    remove(tmp_path);
    return rc;
}

static int load_preset_file(const char *name, struct op_machine_desc *d)
{
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int rc = op_machine_desc_load(path, d, err, sizeof err);
    if (rc < 0)
        fprintf(stderr, "%s\n", err);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        dir = argv[1];
    struct op_machine_desc a, b, c;
    char err[512];

    /* presets */
    CHECK(op_machine_desc_preset("v1A", &a) == 0);
    CHECK(a.freq_mhz == 350 && a.nr_tasklets == 24 && a.wram_bytes == 65536 && a.mram_bytes == 64u << 20);
    CHECK(a.revolver_cycles == 11);
    CHECK(a.dma_read_fixed == 22 && a.dma_write_fixed == 6 && a.dma_cycles_per_byte == 0.52);
    CHECK(a.ops.mul8 == 1 && a.ops.int64_mul == 125 && a.ops.int64_div == 240);
    CHECK(a.ops.float_add == 65 && a.ops.float_mul == 178 && a.ops.float_div == 1025);
    CHECK(a.ops.double_add == 100 && a.ops.double_mul == 655 && a.ops.double_div == 2185);
    CHECK(a.ops.conversion == 30 && a.ops.fp_compare == 20);
    CHECK(a.nr_ranks == 40 && a.channels == 12 && a.ranks_per_channel == 4);
    CHECK(a.chips_per_rank == 8 && a.dpus_per_chip == 8);
    CHECK(op_machine_desc_validate(&a, err, sizeof err) == 0);
    unsigned per[12] = {0};
    for (unsigned r = 0; r < 40; r++)
        per[op_machine_rank_channel(&a, r)]++;
    unsigned four = 0, two = 0;
    for (int i = 0; i < 12; i++)
        four += per[i] == 4, two += per[i] == 2;
    CHECK(four == 8 && two == 4);
    CHECK(op_machine_rank_channel(&a, 0) == op_machine_rank_channel(&a, 1)); /* one DIMM */
    CHECK(op_machine_rank_channel(&a, 2) != op_machine_rank_channel(&a, 0));
    CHECK(op_machine_desc_preset("v1b", &b) == 0);
    CHECK(b.freq_mhz == 400 && b.nr_tasklets == 16 && b.wram_bytes == 63488);
    CHECK(op_machine_desc_preset("v2", &c) < 0);

    /* shipped files equal the compiled presets */
    CHECK(load_preset_file("v1A.desc", &c) == 0 && equal(&a, &c));
    CHECK(load_preset_file("v1B.desc", &c) == 0 && equal(&b, &c));

    /* what-if files: loadable, and each only a change of constants */
    CHECK(load_preset_file("mul1.desc", &c) == 0);
    CHECK(c.ops.int32_mul_base == 1 && c.ops.int32_mul_per_bit == 0 && c.ops.int64_mul == 10);
    c.ops = a.ops;
    strcpy(c.name, a.name);
    CHECK(equal(&a, &c));
    CHECK(load_preset_file("fastdma.desc", &c) == 0);
    CHECK(c.dma_read_fixed == 11 && c.dma_cycles_per_byte == 0.26 && c.dma_overlap_cycles == 3);
    c.dma_read_fixed = a.dma_read_fixed, c.dma_write_fixed = a.dma_write_fixed;
    c.dma_cycles_per_byte = a.dma_cycles_per_byte, c.dma_overlap_cycles = a.dma_overlap_cycles;
    strcpy(c.name, a.name);
    CHECK(equal(&a, &c));
    CHECK(load_preset_file("channels8.desc", &c) == 0);
    CHECK(c.channels == 16 && c.nr_ranks == 40 && c.ranks_per_channel == 4);
    CHECK(c.h2d.cap_gbps[3] > a.h2d.cap_gbps[3]);

    /* write -> load round trip, including a modified description */
    a.freq_mhz = 123.456789;
    a.h2d.rank_gbps[2] = 0.1 + 0.2;
    FILE *f = fopen(tmp_path, "w");
    op_machine_desc_write(f, &a);
    fclose(f);
    CHECK(op_machine_desc_load(tmp_path, &c, err, sizeof err) == 0);
    CHECK(equal(&a, &c) && c.freq_mhz == 123.456789 && c.h2d.rank_gbps[2] == 0.1 + 0.2);
    remove(tmp_path);
    op_machine_desc_preset("v1A", &a);

    /* errors carry the line number */
    CHECK(load_text("# comment\nfreq_mhz = 400\n\nbogus_key = 1\n", &c, err, sizeof err) < 0);
    CHECK(strstr(err, ":4:") && strstr(err, "bogus_key"));
    CHECK(load_text("freq_mhz = fast\n", &c, err, sizeof err) < 0 && strstr(err, ":1:"));
    CHECK(load_text("nr_tasklets = -3\n", &c, err, sizeof err) < 0);
    CHECK(load_text("freq_mhz 400\n", &c, err, sizeof err) < 0 && strstr(err, ":1:"));
    CHECK(load_text("h2d_rank_gbps = 1, 2\n", &c, err, sizeof err) < 0);
    CHECK(load_text("xfer_size = 1, 2\n", &c, err, sizeof err) < 0); /* curves must follow */
    CHECK(load_text("nr_tasklets = 30\n", &c, err, sizeof err) < 0 && strstr(err, "nr_tasklets"));
    CHECK(load_text("preset = v9\n", &c, err, sizeof err) < 0 && strstr(err, ":1:"));
    CHECK(op_machine_desc_load("/nonexistent/x.desc", &c, err, sizeof err) < 0);
    /* a file starts from v1A; preset lines reload */
    CHECK(load_text("freq_mhz = 500  # trailing comment\n", &c, err, sizeof err) == 0 && c.freq_mhz == 500 &&
          c.nr_tasklets == 24);
    CHECK(load_text("preset = v1B\nfreq_mhz = 450\n", &c, err, sizeof err) == 0 && c.freq_mhz == 450 &&
          c.nr_tasklets == 16);
    /* regular topology from channels x ranks_per_channel, DIMMs round-robin */
    CHECK(load_text("channels = 8\nranks_per_channel = 2\n", &c, err, sizeof err) == 0);
    CHECK(c.nr_ranks == 16 && c.rank_channel[0] == 0 && c.rank_channel[1] == 0 && c.rank_channel[2] == 1 &&
          c.rank_channel[15] == 7);
    CHECK(load_text("channels = 2\nranks_per_channel = 1\nnr_ranks = 8\n", &c, err, sizeof err) < 0);

    /* profile strings: unknown keys ignored (SDK keys), lists with ':' */
    c = a;
    CHECK(op_machine_desc_apply(&c, "backend=hw, freq_mhz=400,cycleAccurate=true,nr_tasklets=16") == 2);
    CHECK(c.freq_mhz == 400 && c.nr_tasklets == 16);
    CHECK(op_machine_desc_apply(&c, "freq_mhz=abc") < 0 && c.freq_mhz == 400); /* unchanged */
    CHECK(op_machine_desc_apply(&c, "nr_tasklets=99") < 0 && c.nr_tasklets == 16);
    CHECK(op_machine_desc_apply(&c, "h2d_fixed_us=1:2:3:4:5:6") == 1 && c.h2d.fixed_us[5] == 6);
    CHECK(op_machine_desc_apply(&c, "preset=v1B") == 1 && equal(&c, &b));
    CHECK(op_machine_desc_apply(&c, "") == 0 && op_machine_desc_apply(&c, NULL) == 0);
    char prof[1200];
    snprintf(prof, sizeof prof, "chipId=4,desc_file=%s/fastdma.desc", dir);
    CHECK(op_machine_desc_apply(&c, prof) == 1 && c.dma_read_fixed == 11 && c.nr_tasklets == 24);

    return check_done("test_desc");
}
