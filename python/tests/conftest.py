# SPDX-License-Identifier: MIT
"""Shared fixtures: DPU programs built with the SDK's own driver, as a user's
Makefile would, and small emulated machines (profile strings)."""

import os
import shutil
import subprocess

import pytest

# Under ASan the interpreter starts with the sanitizer runtime preloaded
# (python/CMakeLists.txt) for the instrumented libdpu; the compilers these
# tests start must not inherit it, the host programs using libdpu must
# (run_env()).
SANITIZER_PRELOAD = os.environ.pop("LD_PRELOAD", "") if "asan" in os.environ.get("LD_PRELOAD", "") else ""


def run_env():
    """The environment for a host program that loads libdpu."""
    env = dict(os.environ)
    if SANITIZER_PRELOAD:
        env["LD_PRELOAD"] = SANITIZER_PRELOAD
    return env

import dpu  # noqa: E402  (a missing package or libdpu fails the whole run)

DRIVER = shutil.which("dpu-upmem-dpurte-clang")
# 3 ranks of 4 DPUs: rank boundaries are crossed with few DPUs
SMALL = "nrRanks=3,nrDpusPerRank=4"

# Doubles each 32-bit word of `input` by `factor` into `output`, per tasklet
# blocks of 64 words; each tasklet's sum of products goes to sums[tasklet];
# tasklet 0 prints the factor and the DPU's id.
SCALE = r"""
#include <stdint.h>
#include <stdio.h>
#include <defs.h>
#include <mram.h>

#define N 512
#define BLOCK 64
__host uint32_t factor;
__host uint32_t dpu_id;
__host uint64_t sums[NR_TASKLETS];
__host uint8_t odd[12];
__mram_noinit uint32_t input[N];
__mram_noinit uint32_t output[N];
__dma_aligned uint32_t cache[NR_TASKLETS][BLOCK];

int main(void)
{
    unsigned t = me();
    uint64_t s = 0;
    for (unsigned i = t * BLOCK; i < N; i += NR_TASKLETS * BLOCK) {
        mram_read(&input[i], cache[t], sizeof cache[t]);
        for (unsigned j = 0; j < BLOCK; j++) {
            cache[t][j] *= factor;
            s += cache[t][j];
        }
        mram_write(cache[t], &output[i], sizeof cache[t]);
    }
    sums[t] = s;
    if (t == 0)
        printf("dpu %u: factor %u\n", dpu_id, factor);
    return 0;
}
"""

# Faults (assert) on the DPUs whose `trigger` is not zero; the others set `done`.
FAULT = r"""
#include <assert.h>
#include <stdint.h>
#include <defs.h>

__host uint32_t trigger;
__host uint32_t done;

int main(void)
{
    assert(trigger == 0);
    done = 0xd0e;
    return 0;
}
"""


def scale_reference(words, factor, tasklets):
    """(output words, per-tasklet sums) of SCALE, computed independently."""
    out = [(w * factor) & 0xFFFFFFFF for w in words]
    sums = [sum(out[b:b + 64]) for b in range(0, 512, 64)]
    return out, [sum(sums[t::tasklets]) for t in range(tasklets)]


@pytest.fixture(scope="session")
def build(tmp_path_factory):
    """build(source, tasklets=1) -> path of the DPU image (cached per session)."""
    assert DRIVER, "dpu-upmem-dpurte-clang is not on PATH: source <prefix>/upmem_env.sh"
    cache = {}

    def _build(source, tasklets=1, flags=()):
        key = (source, tasklets, tuple(flags))
        if key not in cache:
            d = tmp_path_factory.mktemp("dpu")
            (d / "prog.c").write_text(source)
            out = d / "prog.dpu"
            r = subprocess.run([DRIVER, "-O2", "-Wall", "-Werror", f"-DNR_TASKLETS={tasklets}", *flags, "-o",
                                str(out), str(d / "prog.c")], capture_output=True, text=True)
            assert r.returncode == 0, f"the DPU program does not build:\n{r.stderr}"
            cache[key] = str(out)
        return cache[key]

    return _build


@pytest.fixture
def scale4(build):
    return build(SCALE, tasklets=4)
