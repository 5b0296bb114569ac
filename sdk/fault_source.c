/* SPDX-License-Identifier: MIT */
/* Where in the source a DPU fault happened: the function containing the
 * faulting code address (the image's symbol table) and, when the program was
 * built with -g, its file and line (the image's DWARF line table, read with
 * elfutils' libdw). */
#include <elfutils/libdw.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* The function (a code symbol) that contains pc; NULL if none. */
static const char *function_at(const struct op_image *img, uint32_t pc)
{
    const struct op_symbol *best = NULL;
    for (size_t i = 0; i < img->nr_syms; i++) {
        const struct op_symbol *s = &img->syms[i];
        if (op_region_of(s->addr) != OP_REGION_IRAM || !s->name[0] || pc < s->addr || pc - s->addr >= s->size)
            continue;
        if (!best || s->size < best->size) /* the innermost of nested ranges */
            best = s;
    }
    return best ? best->name : NULL;
}

/* The compile unit whose code covers pc: by .debug_aranges where the image
 * has them, else by each unit's own ranges (clang's DWARF 5 has no aranges). */
static int find_unit(Dwarf *dw, uint32_t pc, Dwarf_Die *cu)
{
    if (dwarf_addrdie(dw, pc, cu))
        return 1;
    Dwarf_Off off = 0, next;
    size_t header;
    while (dwarf_nextcu(dw, off, &next, &header, NULL, NULL, NULL) == 0) {
        if (dwarf_offdie(dw, off + header, cu) && dwarf_haspc(cu, pc) > 0)
            return 1;
        off = next;
    }
    return 0;
}

void op_fault_source(const struct dpu_program_t *p, uint32_t pc, char *file, size_t filelen, uint32_t *line,
                     char *function, size_t fnlen)
{
    file[0] = 0;
    function[0] = 0;
    *line = 0;
    if (!p || !pc)
        return;
    const char *fn = function_at(&p->img, pc);
    if (fn)
        snprintf(function, fnlen, "%s", fn);
    if (elf_version(EV_CURRENT) == EV_NONE)
        return;
    Elf *elf = elf_memory((char *)p->img.bytes, p->img.len);
    if (!elf)
        return;
    Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
    Dwarf_Die cu;
    if (dw && find_unit(dw, pc, &cu)) {
        Dwarf_Line *l = dwarf_getsrc_die(&cu, pc);
        int n = 0;
        const char *src = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
        if (src && dwarf_lineno(l, &n) == 0 && n > 0) {
            snprintf(file, filelen, "%s", src);
            *line = (uint32_t)n;
        }
    }
    if (dw)
        dwarf_end(dw);
    elf_end(elf);
}

void op_fault_location(const struct dpu_program_t *p, uint32_t pc, char *out, size_t outlen)
{
    char file[256], function[128];
    uint32_t line;
    op_fault_source(p, pc, file, sizeof file, &line, function, sizeof function);
    if (!pc)
        out[0] = 0;
    else if (file[0])
        snprintf(out, outlen, " (at %s:%u in %s, pc 0x%08x)", file, line, function[0] ? function : "?", pc);
    else
        snprintf(out, outlen, " (at pc 0x%08x in %s; build with -g for file and line)", pc,
                 function[0] ? function : "?");
}
