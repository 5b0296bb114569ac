#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Which folder may include which: the layers of README.md ("Layout"), checked.

Every #include "..." of a C/C++ source or header in the layer folders is
resolved (next to the including file first, else by a unique file name among
the layer folders, which is how -I includes resolve) and its folder must be in
the including folder's ALLOWED set.  The folder graph must also be acyclic.
Angle-bracket includes are system or public headers (<dpu.h>, <openpim_comm.h>,
the DPU headers) and are not checked: a library above the SDK that reached
into sdk/ internals would need a quoted path.

    check_layering.py ROOT        exit 0, or 1 with one line per violation
    check_layering.py --self-test the checker finds a planted violation and cycle
"""
import os
import re
import sys

# The one list: a folder -> the folders it may include (itself always).
ALLOWED = {
    "timing": set(),                                   # the model: depends on nothing
    "abi": {"timing"},                                 # host <-> worker <-> DPU contract
    "worker": {"abi", "timing"},                       # the worker process (other side of the boundary)
    "backend": {"abi", "timing"},                      # the seam between libdpu and a machine
    "machine": {"backend", "abi", "timing"},           # the embedded machine, host side
    "sdk": {"backend", "abi", "timing"},               # libdpu: never machine/ or worker/
    "daemon": {"backend", "abi", "timing"},            # openpimd: serves a backend
    "dpu": {"abi", "timing"},                          # DPU runtime and headers
    "comm": {"sdk/include"},                           # libraries above the SDK: public headers only
    "he": {"sdk/include", "comm"},
    "workloads": {"sdk/include", "comm", "he"},
    "python": {"sdk/include"},
}
SOURCES = (".c", ".h", ".cpp", ".S")
# A link edge the include check cannot see: libdpu interposes these clock
# functions for the user's program (sdk/vclock.c), so a lower layer that
# called them would read the SDK's virtual clock.  These folders read
# abi/raw_clock.h instead.
INTERPOSED = re.compile(r"\b(clock_gettime|gettimeofday|time)\s*\(")
RAW_CLOCK_ONLY = {"machine", "worker", "backend"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(root, path):
    rel = os.path.relpath(path, root).split(os.sep)
    if rel[0] == "sdk" and len(rel) > 1 and rel[1] == "include":
        return "sdk/include"
    return rel[0]


def files(root):
    for top in ALLOWED:
        for dirpath, dirs, names in os.walk(os.path.join(root, top)):
            dirs[:] = [d for d in dirs if d not in ("tests", "test")]  # tests may look inside
            for n in names:
                if n.endswith(SOURCES):
                    yield os.path.join(dirpath, n)


def main(root):
    root = os.path.abspath(root)
    all_files = list(files(root))
    by_name = {}
    for p in all_files:
        by_name.setdefault(os.path.basename(p), []).append(p)
    errors, edges = [], {}
    for p in all_files:
        src = folder_of(root, p)
        with open(p, errors="replace") as f:
            text = f.read()
        if src in RAW_CLOCK_ONLY:
            code = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)
            for call in INTERPOSED.findall(code):
                errors.append("%s calls %s(), which libdpu interposes: read abi/raw_clock.h" % (
                    os.path.relpath(p, root), call))
        for inc in INCLUDE.findall(text):
            target = os.path.normpath(os.path.join(os.path.dirname(p), inc))
            if not os.path.exists(target):
                same = by_name.get(os.path.basename(inc), [])
                if len(same) != 1:
                    continue  # generated or system header
                target = same[0]
            dst = folder_of(root, target)
            if dst == src or (src == "sdk/include" and dst == "sdk"):
                continue
            layer = "sdk" if src == "sdk/include" else src
            if dst not in ALLOWED.get(layer, set()) and not (dst == "sdk/include" and layer == "sdk"):
                errors.append("%s includes %s: %s/ may not include %s/" % (
                    os.path.relpath(p, root), os.path.relpath(target, root), layer, dst))
            edges.setdefault(layer, set()).add("sdk" if dst == "sdk/include" else dst)
    # no cycles between folders
    state = {}

    def visit(n, stack):
        state[n] = 1
        for m in sorted(edges.get(n, ())):
            if m == n:
                continue
            if state.get(m) == 1:
                errors.append("dependency cycle: " + " -> ".join(stack + [n, m]))
            elif m not in state:
                visit(m, stack + [n])
        state[n] = 2

    for n in sorted(edges):
        if n not in state:
            visit(n, [])
    for e in errors:
        print(e)
    print("layering: %d files, %d folder dependencies, %d violations" % (
        len(all_files), sum(len(v) for v in edges.values()), len(errors)))
    return 1 if errors else 0


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        def put(rel, text):
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        put("machine/machine.h", "")
        put("timing/timing.h", "")
        put("sdk/alloc.c", '#include "../timing/timing.h"\n')
        assert main(root) == 0, "a clean tree"
        put("sdk/launch.c", '#include "../machine/machine.h"\n')
        assert main(root) == 1, "sdk/ reaching into machine/"
        os.remove(os.path.join(root, "sdk/launch.c"))
        put("timing/model.c", '#include "../sdk/alloc.c"\n')  # timing -> sdk -> timing
        assert main(root) == 1, "a cycle"
        os.remove(os.path.join(root, "timing/model.c"))
        put("comm/src/x.c", '#include "alloc.c"\n')  # found by name, as -I would
        assert main(root) == 1, "a library above the SDK including sdk/ internals through -I"
        os.remove(os.path.join(root, "comm/src/x.c"))
        assert main(root) == 0, "clean again"
        put("machine/watch.c", "/* clock_gettime() in a comment */ int f(void) { return 0; }\n")
        assert main(root) == 0, "a comment naming the clock"
        put("machine/watch.c", "void f(struct timespec *t) { clock_gettime(CLOCK_MONOTONIC, t); }\n")
        assert main(root) == 1, "machine/ reading the clock libdpu interposes"
    print("layering self-test: ok")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")))
