/* SPDX-License-Identifier: MIT */
/* libFuzzer harness B: op_image_parse (abi/image.c), the parser of DPU
 * images, on arbitrary bytes and on mutated valid images.  No crash, no leak,
 * no read out of bounds (ASan), no undefined behaviour (UBSan); a parsed image
 * must satisfy what the host and the worker rely on.
 *
 * Input: first byte even: the rest is the file.  Odd: the rest is a list of
 * mutations applied to the valid image named by FUZZ_DPU_BIN (when set). */
#define _GNU_SOURCE
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpu_abi.h"
#include "image.h"

static uint8_t *g_img;
static size_t g_img_len;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *bin = getenv("FUZZ_DPU_BIN");
    if (!bin)
        return 0;
    FILE *f = fopen(bin, "rb");
    if (!f) {
        fprintf(stderr, "fuzz_image: cannot open FUZZ_DPU_BIN=%s\n", bin);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    g_img_len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    g_img = malloc(g_img_len);
    if (!g_img || fread(g_img, 1, g_img_len, f) != g_img_len)
        exit(2);
    fclose(f);
    return 0;
}

static void check(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "fuzz_image: INVARIANT VIOLATED: %s\n", what);
        abort();
    }
}

/* What a successfully parsed image promises its users (sdk/, worker.c). */
static void check_image(const struct op_image *img)
{
    check(img->bytes && img->len >= sizeof(Elf32_Ehdr), "bytes");
    check(img->nr_tasklets >= 1 && img->nr_tasklets <= OP_MAX_TASKLETS, "nr_tasklets in range");
    check(img->wram_init_len <= img->wram_size, "WRAM image within wram_size");
    check(img->wram_init != NULL, "wram_init");
    volatile uint8_t sink = 0;
    for (uint32_t i = 0; i < img->wram_init_len; i += 4096)
        sink ^= img->wram_init[i];
    if (img->mram_init_len) {
        check(img->mram_init != NULL, "mram_init");
        check(op_region_of(img->mram_init_addr) == OP_REGION_MRAM, "MRAM init in MRAM");
        sink ^= img->mram_init[0] ^ img->mram_init[img->mram_init_len - 1];
    }
    /* the worker copies text_len bytes from text to text_addr in [iram_lo, iram_hi) */
    check(img->text_len > 0, "code");
    check(img->text >= img->bytes && img->text_len <= img->len &&
              (size_t)(img->text - img->bytes) <= img->len - img->text_len,
          "code inside the file");
    check(img->text_addr >= img->iram_lo && (uint64_t)img->text_addr + img->text_len <= img->iram_hi,
          "code inside IRAM range");
    check(op_region_of(img->iram_lo) == OP_REGION_IRAM && op_region_of(img->iram_hi - 1) == OP_REGION_IRAM,
          "IRAM range in IRAM");
    sink ^= img->text[0] ^ img->text[img->text_len - 1];
    for (size_t i = 0; i < img->nr_syms; i++) {
        const char *n = img->syms[i].name;
        check(n >= (const char *)img->bytes && n < (const char *)img->bytes + img->len, "symbol name in file");
        check(memchr(n, 0, (size_t)((const char *)img->bytes + img->len - n)) != NULL, "symbol name terminated");
        if (i < 64)
            check(op_image_symbol(img, n) != NULL, "lookup of a listed symbol");
    }
    check(op_image_symbol(img, "__op_boot") != NULL, "runtime symbols");
    check(op_image_symbol(img, "surely-not-a-symbol") == NULL || 1, "lookup");
    (void)sink;
}

static void parse(const uint8_t *b, size_t n)
{
    /* an exact-size copy, so that ASan sees reads past the end */
    uint8_t *copy = malloc(n ? n : 1);
    memcpy(copy, b, n);
    struct op_image img;
    char err[256];
    err[0] = 0;
    if (op_image_parse(copy, n, &img, err, sizeof err) == 0) {
        check_image(&img);
        op_image_free(&img);
    } else {
        check(err[0] != 0 && memchr(err, 0, sizeof err) != NULL, "an error message");
        check(img.bytes == NULL && img.syms == NULL && img.wram_init == NULL && img.mram_init == NULL,
              "a failed parse leaves nothing allocated");
    }
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (!(data[0] & 1) || !g_img) {
        parse(data + 1, size - 1);
        return 0;
    }
    uint8_t *b = malloc(g_img_len);
    memcpy(b, g_img, g_img_len);
    size_t len = g_img_len;
    const Elf32_Ehdr *eh = (const Elf32_Ehdr *)g_img;
    /* mutations: 1 byte kind, then its arguments */
    const uint8_t *p = data + 1, *end = data + size;
    while (p < end) {
        uint8_t kind = *p++;
        uint64_t v = 0;
        uint32_t at = 0;
        size_t width = 1 << (kind >> 6);
        if (end - p < 4)
            break;
        memcpy(&at, p, 4);
        p += 4;
        size_t take = (size_t)(end - p) < width ? (size_t)(end - p) : width;
        memcpy(&v, p, take);
        p += take;
        size_t off;
        switch (kind & 7) {
        case 0: /* anywhere */
            off = len ? at % len : 0;
            break;
        case 1: /* the section header table */
            off = eh->e_shoff + at % ((size_t)eh->e_shnum * sizeof(Elf32_Shdr));
            break;
        case 2: /* the ELF header */
            off = at % sizeof(Elf32_Ehdr);
            break;
        case 3: { /* the symbol table (last SYMTAB found) */
            off = len ? at % len : 0;
            for (unsigned i = 0; i < eh->e_shnum; i++) {
                const Elf32_Shdr *sh = (const Elf32_Shdr *)(g_img + eh->e_shoff) + i;
                if (sh->sh_type == SHT_SYMTAB && sh->sh_size)
                    off = sh->sh_offset + at % sh->sh_size;
            }
            break;
        }
        case 4: /* truncate */
            len = at % (len + 1);
            continue;
        default: /* a section header field (all are 4 bytes in ELF32) */
            off = eh->e_shoff + (at % eh->e_shnum) * sizeof(Elf32_Shdr) + 4 * ((at >> 16) % 10);
            break;
        }
        if (off < len && width <= len - off)
            memcpy(b + off, &v, width);
    }
    parse(b, len);
    free(b);
    return 0;
}
