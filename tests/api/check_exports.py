#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Only the SDK's symbols leave libdpu.

Lists the dynamic symbols libdpu.so defines (nm -D --defined-only) and fails
on any but the SDK's API (dpu_*, dpulog_*, openpim_*) and the clock
functions the library interposes for the virtual clock; and on any function
the public headers declare, whatever its name, that the library does not
export.

    check_exports.py LIBDPU.so INCLUDE_DIR
    check_exports.py --self-test   the check bites on a planted export
"""
import os
import re
import subprocess
import sys
import tempfile

INTERPOSED = {"clock_gettime", "gettimeofday"}
API = re.compile(r"^(dpu|dpulog|openpim)_\w+$")
# a prototype in a public header: a return type, then the name and "("
DECL = re.compile(r"^[A-Za-z_][\w\s\*]*?\b([A-Za-z_]\w*)\s*\(", re.M)


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}


def declared(include_dir):
    names = set()
    for n in sorted(os.listdir(include_dir)):
        if not n.endswith(".h"):
            continue
        with open(os.path.join(include_dir, n)) as f:
            text = re.sub(r"/\*.*?\*/|//[^\n]*", "", f.read(), flags=re.S)
        # macros and static inline functions are not the library's symbols
        text = re.sub(r"^\s*#\s*define(?:[^\n]*\\\n)*[^\n]*", "", text, flags=re.M)
        text = re.sub(r"static\s+inline[^{;]*", "", text)
        text = re.sub(r"typedef[^;]*;", "", text)
        names.update(DECL.findall(text))
    return names


def check(lib, include_dir):
    have = exported(lib)
    stray = sorted(s for s in have if not API.match(s) and s not in INTERPOSED)
    missing = sorted(declared(include_dir) - have)
    for s in stray:
        print("libdpu exports %s, which is not the SDK's (sdk/libdpu.map)" % s)
    for s in missing:
        print("the public headers declare %s, which libdpu does not export" % s)
    for s in sorted(INTERPOSED - have):
        print("libdpu does not export %s: the virtual clock cannot interpose it" % s)
    print("exports: %d symbols, %d declared in the headers, %d stray, %d missing" % (
        len(have), len(declared(include_dir)), len(stray), len(missing) + len(INTERPOSED - have)))
    return 1 if stray or missing or INTERPOSED - have else 0


def self_test():
    with tempfile.TemporaryDirectory() as d:
        inc = os.path.join(d, "include")
        os.makedirs(inc)
        with open(os.path.join(inc, "dpu.h"), "w") as f:
            f.write("#define dpu_macro(x) (x)\nint dpu_alloc(int n);\nstatic inline int dpu_inl(void) { return 0; }\n")
        src = os.path.join(d, "lib.c")

        def build(extra):
            with open(src, "w") as f:
                f.write("int dpu_alloc(int n) { return n; }\n"
                        "int clock_gettime(int c, void *t) { return c + (t != 0); }\n"
                        "int gettimeofday(void *t, void *z) { return t == z; }\n" + extra)
            lib = os.path.join(d, "libt.so")
            subprocess.run(["cc", "-shared", "-fPIC", "-o", lib, src], check=True)
            return lib
        assert check(build(""), inc) == 0, "a clean library"
        assert check(build("int op_launch(void) { return 1; }\n"), inc) == 1, "an internal symbol exported"
        with open(os.path.join(inc, "dpu.h"), "a") as f:
            f.write("int dpu_free(int n);\n")
        assert check(build(""), inc) == 1, "a declared function missing"
        with open(os.path.join(inc, "dpu.h"), "w") as f:
            f.write("int dpu_alloc(int n);\nint dpulog_read(int n);\n")
        assert check(build(""), inc) == 1, "a declared function outside the dpu_ prefix missing"
        assert check(build("int dpulog_read(int n) { return n; }\n"), inc) == 0, "dpulog_ is the SDK's"
    print("exports self-test: ok")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(check(sys.argv[1], sys.argv[2]))
