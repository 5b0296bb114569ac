/* SPDX-License-Identifier: MIT */
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
    CHECK(c.server[0] == 0); /* another server than any preset: no server name */
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

    /* server presets: compiled from presets/server-*.desc; a server sets the
       topology, transfer and launch keys and keeps the chip */
    CHECK(op_machine_server_count() >= 4);
    const char *want[] = {"cloud2024", "loremkang", "prim", "xferstudy"};
    for (int i = 0; i < 4; i++) {
        int found = 0;
        for (unsigned j = 0; op_machine_server_name(j); j++)
            found |= strcmp(op_machine_server_name(j), want[i]) == 0;
        CHECK(found);
    }
    op_machine_desc_preset("v1A", &a);
    op_machine_desc_preset("v1B", &b);
    CHECK(strcmp(a.server, "cloud2024") == 0 && strcmp(b.server, "cloud2024") == 0);
    c = a;
    CHECK(op_machine_desc_server(&c, "cloud2024", err, sizeof err) == 0 && equal(&a, &c)); /* the default */
    for (unsigned j = 0; op_machine_server_name(j); j++) {
        const char *sv = op_machine_server_name(j);
        struct op_machine_desc s1 = a, s2 = b, f;
        CHECK(op_machine_desc_server(&s1, sv, err, sizeof err) == 0 && strcmp(s1.server, sv) == 0);
        CHECK(op_machine_desc_server(&s2, sv, err, sizeof err) == 0);
        /* the chip keys stay; the server keys are the same on either chip */
        CHECK(s2.freq_mhz == 400 && s2.nr_tasklets == 16 && s2.wram_bytes == 63488 && strcmp(s2.name, "v1B") == 0);
        struct op_machine_desc t = s2;
        t.freq_mhz = s1.freq_mhz, t.nr_tasklets = s1.nr_tasklets, t.wram_bytes = s1.wram_bytes;
        strcpy(t.name, s1.name);
        CHECK(equal(&s1, &t));
        /* a server file is also a standalone description: v1A + that server */
        char fname[64];
        snprintf(fname, sizeof fname, "server-%s.desc", sv);
        CHECK(load_preset_file(fname, &f) == 0);
        if (strcmp(sv, "xferstudy") != 0 || !equal(&f, &a)) /* a file with no key is cloud2024 */
            CHECK(strcmp(f.server, sv) == 0);                 /* a loaded file names its server */
        strcpy(f.server, sv);
        CHECK(equal(&f, &s1));
        /* and selecting it twice, or after another server, gives the same */
        struct op_machine_desc s3 = a;
        CHECK(op_machine_desc_server(&s3, "loremkang", err, sizeof err) == 0);
        CHECK(op_machine_desc_server(&s3, sv, err, sizeof err) == 0 && equal(&s3, &s1));
    }
    /* PrIM's server: its published constants */
    c = b;
    CHECK(op_machine_desc_apply(&c, "server=prim") == 1 && c.xfer_threads == 8 && c.h2d.rank_gbps[4] == 6.68 &&
          c.d2h.rank_gbps[4] == 4.74 && c.d2h.fixed_us[0] == 70.6 && c.freq_mhz == 400 && c.nr_ranks == 40);
    CHECK(strcmp(c.server, "prim") == 0);
    /* the four-rank box: 4 ranks on 2 channels, 2 per channel, one fixed-cost point */
    c = a;
    CHECK(op_machine_desc_apply(&c, "server=loremkang") == 1 && c.nr_ranks == 4 && c.channels == 2 &&
          c.ranks_per_channel == 2 && c.xfer_nfixed == 1 && c.h2d.fixed_us[0] == 120 && c.d2h.fixed_us[0] == 175);
    CHECK(c.rank_channel[0] == 0 && c.rank_channel[1] == 0 && c.rank_channel[2] == 1 && c.rank_channel[3] == 1);
    /* later keys override the server's; a description file may name a server */
    CHECK(op_machine_desc_apply(&c, "server=prim,xfer_threads=2") == 2 && c.xfer_threads == 2 && c.nr_ranks == 40);
    CHECK(load_text("preset = v1B\nserver = loremkang\nh2d_fixed_us = 99\n", &c, err, sizeof err) == 0);
    CHECK(c.freq_mhz == 400 && c.nr_ranks == 4 && c.h2d.fixed_us[0] == 99 && strcmp(c.server, "loremkang") == 0);
    /* write -> load keeps the server and every value */
    FILE *g = fopen(tmp_path, "w");
    op_machine_desc_write(g, &c);
    fclose(g);
    CHECK(op_machine_desc_load(tmp_path, &b, err, sizeof err) == 0 && equal(&b, &c) &&
          strcmp(b.server, "loremkang") == 0);
    remove(tmp_path);
    /* unknown names are refused, with the known ones; nothing changes */
    c = a;
    CHECK(op_machine_desc_server(&c, "nosuch", err, sizeof err) < 0 && equal(&c, &a));
    CHECK(strstr(err, "unknown server preset 'nosuch'") && strstr(err, "cloud2024") && strstr(err, "prim"));
    CHECK(op_machine_desc_apply(&c, "freq_mhz=300,server=nosuch") < 0 && equal(&c, &a));
    CHECK(load_text("server = nosuch\n", &c, err, sizeof err) < 0 && strstr(err, ":1:") && strstr(err, "nosuch"));
    /* a server text sets server keys only */
    CHECK(op_machine_desc_server_text(&c, "t", "freq_mhz = 400\n", err, sizeof err) < 0 && strstr(err, "freq_mhz"));
    CHECK(op_machine_desc_server_text(&c, "t", "preset = v1B\n", err, sizeof err) < 0);
    CHECK(op_machine_desc_server_text(&c, "t", "server = prim\n", err, sizeof err) < 0);
    CHECK(op_machine_desc_server_text(&c, "t", "h2d_fixed_us = 1, 2\n", err, sizeof err) < 0); /* 6 points */
    CHECK(equal(&c, &a));
    CHECK(op_machine_desc_server_text(&c, "t", "channels = 4\nranks_per_channel = 2\n", err, sizeof err) == 0);
    CHECK(c.nr_ranks == 8 && c.channels == 4 && strcmp(c.server, "t") == 0 && c.freq_mhz == a.freq_mhz);
    /* every key is either a chip key or a server key; the server ones are these */
    unsigned nserver = 0;
    for (unsigned i = 0; op_machine_desc_key_name(i); i++) {
        const char *k = op_machine_desc_key_name(i);
        int topo = !strcmp(k, "channels") || !strcmp(k, "ranks_per_channel") || !strcmp(k, "nr_ranks") ||
                   !strcmp(k, "ranks_per_dimm") || !strcmp(k, "chips_per_rank") || !strcmp(k, "dpus_per_chip") ||
                   !strcmp(k, "rank_channels");
        int pre = !strncmp(k, "xfer_", 5) || !strncmp(k, "h2d_", 4) || !strncmp(k, "d2h_", 4) ||
                  !strncmp(k, "launch_", 7) || !strncmp(k, "host_", 5);
        CHECK(op_machine_desc_is_server_key(k) == (topo || pre));
        nserver += op_machine_desc_is_server_key(k);
    }
    CHECK(nserver > 40 && !op_machine_desc_is_server_key("freq_mhz") && !op_machine_desc_is_server_key("nosuch"));

    return check_done("test_desc");
}
