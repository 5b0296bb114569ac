/* SPDX-License-Identifier: MIT */
#include "image.h"

#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpu_abi.h"
#include "../timing/op_points.h"

#define REGION_SPAN 0x08000000u /* each region may extend 128 MiB from its base */

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

enum op_region op_region_of(uint32_t addr)
{
    if (addr >= OP_MRAM_BASE && addr - OP_MRAM_BASE < REGION_SPAN)
        return OP_REGION_MRAM;
    if (addr >= OP_WRAM_BASE && addr - OP_WRAM_BASE < REGION_SPAN)
        return OP_REGION_WRAM;
    if (addr >= OP_TEXT_BASE && addr - OP_TEXT_BASE < OP_ENV_BASE - OP_TEXT_BASE) /* below the worker's pages */
        return OP_REGION_IRAM;
    return OP_REGION_NONE;
}

static int in_file(const struct op_image *img, uint64_t off, uint64_t size)
{
    return off <= img->len && size <= img->len - off;
}

const struct op_symbol *op_image_symbol(const struct op_image *img, const char *name)
{
    const struct op_symbol *local = NULL;
    for (size_t i = 0; i < img->nr_syms; i++)
        if (strcmp(img->syms[i].name, name) == 0) {
            if (img->syms[i].global)
                return &img->syms[i];
            if (!local)
                local = &img->syms[i];
        }
    return local;
}

/* [addr, addr + size) is an aligned object of the runtime's scratch (.opbss),
 * which the worker may write. */
static int in_scratch(const struct op_image *img, uint32_t addr, uint32_t size)
{
    return addr % (size < 8 ? size : 8) == 0 && addr >= img->opbss_addr &&
           (uint64_t)addr + size <= (uint64_t)img->opbss_addr + img->opbss_len;
}

static uint32_t meta(const struct op_image *img, const char *name, int *missing)
{
    const struct op_symbol *s = op_image_symbol(img, name);
    if (!s) {
        *missing = 1;
        return 0;
    }
    return s->addr;
}

static int read_symbols(struct op_image *img, const Elf32_Shdr *sh, unsigned shnum, char *err, size_t errlen)
{
    for (unsigned i = 0; i < shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB)
            continue;
        if (sh[i].sh_link >= shnum || sh[i].sh_entsize != sizeof(Elf32_Sym) || sh[i].sh_offset % 4 ||
            !in_file(img, sh[i].sh_offset, sh[i].sh_size))
            return fail(err, errlen, "corrupt symbol table");
        const Elf32_Shdr *strs = &sh[sh[i].sh_link];
        if (!in_file(img, strs->sh_offset, strs->sh_size) || strs->sh_size == 0 ||
            img->bytes[strs->sh_offset + strs->sh_size - 1] != 0)
            return fail(err, errlen, "corrupt string table");
        const Elf32_Sym *sym = (const Elf32_Sym *)(img->bytes + sh[i].sh_offset);
        size_t n = sh[i].sh_size / sizeof(Elf32_Sym);
        img->syms = calloc(n ? n : 1, sizeof *img->syms);
        if (!img->syms)
            return fail(err, errlen, "out of memory");
        for (size_t k = 0; k < n; k++) {
            unsigned type = ELF32_ST_TYPE(sym[k].st_info);
            if (sym[k].st_name == 0 || sym[k].st_name >= strs->sh_size || sym[k].st_shndx == SHN_UNDEF ||
                type == STT_SECTION || type == STT_FILE)
                continue;
            struct op_symbol *s = &img->syms[img->nr_syms++];
            s->name = (const char *)img->bytes + strs->sh_offset + sym[k].st_name;
            s->addr = (uint32_t)sym[k].st_value;
            s->size = sym[k].st_size;
            s->global = ELF32_ST_BIND(sym[k].st_info) != STB_LOCAL;
        }
        return 0;
    }
    return fail(err, errlen, "no symbol table (was the image stripped?)");
}

static int read_sections(struct op_image *img, const Elf32_Shdr *sh, unsigned shnum, char *err, size_t errlen)
{
    uint32_t wram_hi = OP_WRAM_BASE, mram_lo = UINT32_MAX, mram_hi = 0;
    img->wram_lo = OP_WRAM_END;
    img->iram_lo = UINT32_MAX;
    for (unsigned i = 0; i < shnum; i++) {
        if (!(sh[i].sh_flags & SHF_ALLOC) || sh[i].sh_size == 0)
            continue;
        if ((uint64_t)sh[i].sh_addr + sh[i].sh_size > UINT32_MAX || sh[i].sh_size > REGION_SPAN ||
            op_region_of((uint32_t)sh[i].sh_addr) != op_region_of((uint32_t)(sh[i].sh_addr + sh[i].sh_size - 1)))
            return fail(err, errlen, "section %u lies outside the DPU address map", i);
        if (sh[i].sh_type != SHT_NOBITS && !in_file(img, sh[i].sh_offset, sh[i].sh_size))
            return fail(err, errlen, "section %u is truncated", i);
        uint32_t lo = (uint32_t)sh[i].sh_addr, hi = lo + (uint32_t)sh[i].sh_size;
        switch (op_region_of(lo)) {
        case OP_REGION_WRAM:
            if (hi > wram_hi)
                wram_hi = hi;
            if (lo < img->wram_lo)
                img->wram_lo = lo;
            break;
        case OP_REGION_MRAM:
            if (sh[i].sh_type != SHT_NOBITS) {
                if (lo < mram_lo)
                    mram_lo = lo;
                if (hi > mram_hi)
                    mram_hi = hi;
            }
            break;
        case OP_REGION_IRAM:
            if (lo < img->iram_lo)
                img->iram_lo = lo;
            if (hi > img->iram_hi)
                img->iram_hi = hi;
            if (sh[i].sh_flags & SHF_EXECINSTR) {
                if (img->text_len)
                    return fail(err, errlen, "more than one code section");
                if (sh[i].sh_type == SHT_NOBITS)
                    return fail(err, errlen, "the code section has no contents in the file");
                img->text_addr = lo;
                img->text_len = hi - lo;
                img->text = img->bytes + sh[i].sh_offset;
            } else if (sh[i].sh_type == SHT_NOBITS) {
                img->opbss_addr = lo;
                img->opbss_len = hi - lo;
            }
            break;
        case OP_REGION_NONE:
            return fail(err, errlen, "section %u at 0x%llx is outside the DPU address map", i,
                        (unsigned long long)sh[i].sh_addr);
        }
    }
    if (!img->text_len)
        return fail(err, errlen, "no code section");
    img->wram_init_len = wram_hi - OP_WRAM_BASE;
    img->wram_init = calloc(1, img->wram_init_len ? img->wram_init_len : 1);
    if (!img->wram_init)
        return fail(err, errlen, "out of memory");
    for (unsigned i = 0; i < shnum; i++)
        if ((sh[i].sh_flags & SHF_ALLOC) && sh[i].sh_type != SHT_NOBITS && sh[i].sh_size &&
            op_region_of((uint32_t)sh[i].sh_addr) == OP_REGION_WRAM)
            memcpy(img->wram_init + (sh[i].sh_addr - OP_WRAM_BASE), img->bytes + sh[i].sh_offset, sh[i].sh_size);
    if (mram_hi > mram_lo) {
        img->mram_init_addr = mram_lo;
        img->mram_init_len = mram_hi - mram_lo;
        img->mram_init = NULL; /* gathered below: sections may leave gaps */
    }
    return 0;
}

int op_image_check_header(const void *bytes, size_t len, char *err, size_t errlen)
{
    Elf32_Ehdr eh;
    if (len < sizeof eh)
        return fail(err, errlen, "file too small to be a DPU image");
    memcpy(&eh, bytes, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
        return fail(err, errlen, "not an ELF file");
    if (eh.e_ident[EI_CLASS] != ELFCLASS32 || eh.e_machine != EM_X86_64 || eh.e_type != ET_EXEC)
        /* ELF32 x86-64: the x32 code the driver makes for the DPU's 32-bit data model */
        return fail(err, errlen, "not an OpenPIM DPU image (build it with this OpenPIM's dpu-upmem-dpurte-clang)");
    return 0;
}

static int parse(struct op_image *img, char *err, size_t errlen);

int op_image_parse(const void *bytes, size_t len, struct op_image *img, char *err, size_t errlen)
{
    memset(img, 0, sizeof *img);
    if (op_image_check_header(bytes, len, err, errlen) != 0)
        return -1;
    img->bytes = malloc(len);
    if (!img->bytes)
        return fail(err, errlen, "out of memory");
    memcpy(img->bytes, bytes, len);
    img->len = len;
    return parse(img, err, errlen);
}

int op_image_parse_in_place(const void *bytes, size_t len, struct op_image *img, char *err, size_t errlen)
{
    memset(img, 0, sizeof *img);
    if (op_image_check_header(bytes, len, err, errlen) != 0)
        return -1;
    img->bytes = (uint8_t *)bytes;
    img->len = len;
    img->borrowed = 1;
    return parse(img, err, errlen);
}

static int parse(struct op_image *img, char *err, size_t errlen)
{
    const Elf32_Ehdr *eh = (const Elf32_Ehdr *)img->bytes;
    int rc = -1;
    if (eh->e_shentsize != sizeof(Elf32_Shdr) || eh->e_shnum == 0 || eh->e_shoff % 4 ||
        !in_file(img, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf32_Shdr))) {
        fail(err, errlen, "corrupt section header table");
    } else {
        const Elf32_Shdr *sh = (const Elf32_Shdr *)(img->bytes + eh->e_shoff);
        rc = read_symbols(img, sh, eh->e_shnum, err, errlen);
        if (rc == 0)
            rc = read_sections(img, sh, eh->e_shnum, err, errlen);
        if (rc == 0 && img->mram_init_len) {
            uint8_t *m = calloc(1, img->mram_init_len);
            if (!m) {
                rc = fail(err, errlen, "out of memory");
            } else {
                for (unsigned i = 0; i < eh->e_shnum; i++)
                    if ((sh[i].sh_flags & SHF_ALLOC) && sh[i].sh_type != SHT_NOBITS && sh[i].sh_size &&
                        op_region_of((uint32_t)sh[i].sh_addr) == OP_REGION_MRAM)
                        memcpy(m + (sh[i].sh_addr - img->mram_init_addr), img->bytes + sh[i].sh_offset,
                               sh[i].sh_size);
                img->mram_init = m;
            }
        }
    }
    if (rc == 0) {
        int missing = 0;
        img->nr_tasklets = meta(img, "__op_nr_tasklets", &missing);
        img->wram_size = meta(img, "__op_wram_size", &missing);
        img->stack_total = meta(img, "__op_stack_total", &missing);
        img->accounting = meta(img, "__op_accounting", &missing);
        img->heap_start = meta(img, "__op_heap_start", &missing);
        img->used_mram_end = meta(img, "__sys_used_mram_end", &missing);
        img->sym_env = meta(img, "__op_env", &missing);
        img->sym_boot = meta(img, "__op_boot", &missing);
        img->sym_tasklet_main = meta(img, "__op_tasklet_main", &missing);
        img->sym_icount = meta(img, "__op_icount", &missing);
        /* optional (older images have none); the worker writes it: only inside .opbss */
        const struct op_symbol *checked = op_image_symbol(img, "__op_racecheck"); /* optional: older images */
        img->racecheck = checked && checked->addr;
        const struct op_symbol *limits = op_image_symbol(img, OP_LIMITS_SYMBOL);
        const struct op_symbol *sched_fn = op_image_symbol(img, OP_SCHED_FN_SYMBOL);
        const struct op_symbol *race_fn = op_image_symbol(img, OP_RACE_FN_SYMBOL);
        if (limits && limits->size == 16 && in_scratch(img, limits->addr, 16) && sched_fn && race_fn &&
            in_scratch(img, sched_fn->addr, 4) && in_scratch(img, race_fn->addr, 4)) {
            img->sym_limits = limits->addr;
            img->sym_sched_fn = sched_fn->addr;
            img->sym_race_fn = race_fn->addr;
        }
        const struct op_symbol *costs = op_image_symbol(img, "__op_costs");
        if (costs && costs->size >= 4 && costs->addr % 4 == 0 && costs->addr >= img->opbss_addr &&
            (uint64_t)costs->addr + costs->size <= (uint64_t)img->opbss_addr + img->opbss_len) {
            img->sym_costs = costs->addr;
            img->nr_costs = costs->size / 4;
        }
        /* the worker writes __op_env: only inside the runtime's scratch */
        uint32_t at = meta(img, "__op_stacks_start", &missing);
        uint64_t total = 0;
        for (uint32_t t = 0; !missing && t < img->nr_tasklets && t < OP_MAX_TASKLETS; t++) {
            char name[32];
            snprintf(name, sizeof name, "__op_stack_size_%u", t);
            img->stack_size[t] = meta(img, name, &missing);
            img->stack_lo[t] = at + (uint32_t)total;
            total += img->stack_size[t];
            if (img->stack_size[t] < 64 || img->stack_size[t] % 8)
                total = UINT64_MAX / 2; /* refused below */
        }
        if (missing)
            rc = fail(err, errlen, "not an OpenPIM DPU image (runtime symbols missing)");
        else if (total != img->stack_total || at < OP_WRAM_START(img->wram_size) || (uint64_t)at + total > OP_WRAM_END)
            rc = fail(err, errlen, "the image's tasklet stacks do not fit its WRAM");
        else if (!in_scratch(img, img->sym_env, 4))
            rc = fail(err, errlen, "not an OpenPIM DPU image (__op_env outside the runtime scratch)");
        else if (!in_scratch(img, img->sym_icount, 8)) /* the worker writes each tasklet's count there */
            rc = fail(err, errlen, "not an OpenPIM DPU image (__op_icount outside the runtime scratch)");
        else if (img->nr_tasklets < 1 || img->nr_tasklets > OP_MAX_TASKLETS)
            rc = fail(err, errlen, "image was built for %u tasklets", img->nr_tasklets);
        else if (img->wram_size == 0 || img->wram_size > OP_WRAM_END - OP_WRAM_BASE ||
                 img->wram_lo < OP_WRAM_START(img->wram_size) || OP_WRAM_BASE + img->wram_init_len > OP_WRAM_END)
            rc = fail(err, errlen, "image's WRAM [0x%x, 0x%x) is not inside its %u bytes of WRAM", img->wram_lo,
                      OP_WRAM_BASE + img->wram_init_len, img->wram_size);
    }
    if (rc != 0)
        op_image_free(img);
    return rc;
}

void op_image_free(struct op_image *img)
{
    if (!img->borrowed)
        free(img->bytes);
    free(img->wram_init);
    free((void *)img->mram_init);
    free(img->syms);
    memset(img, 0, sizeof *img);
}
