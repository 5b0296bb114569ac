/* SPDX-License-Identifier: MIT */
// cpp_dot_product, host side, on the SDK's C++ API (<dpu>).
//
// Splits two int32 vectors over the DPUs, lets each DPU compute the dot
// product of its slices (one partial sum per tasklet), and checks the total
// against the host's.
//
// Shows: dpu::DpuSet::allocate / load, per-DPU copies of std::vector buffers to
// MRAM symbols, a broadcast, DpuSymbol, exec, copies back from every DPU, the
// asynchronous interface (async(): copy, exec, call, sync), log(), and
// dpu::DpuError for what goes wrong.
//
// Usage: bin/host_app [-d nr_dpus] [-n total_elements]
#include <dpu>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <unistd.h>
#include <vector>

#include "common.h"

#ifndef DPU_BINARY
#define DPU_BINARY "./bin/dpu_task"
#endif

static unsigned parseCount(const char *text, const char *what)
{
    char *end = nullptr;
    unsigned long value = std::strtoul(text, &end, 0);
    if (!*text || *end || value == 0 || value > 0xffffffffu) {
        std::printf("[ERROR] cpp_dot_product: invalid %s '%s'\n", what, text);
        std::exit(EXIT_FAILURE);
    }
    return (unsigned)value;
}

int main(int argc, char **argv)
{
    unsigned nrDpus = NR_DPUS, total = 1000003;
    for (int opt; (opt = getopt(argc, argv, "d:n:h")) != -1;) {
        if (opt == 'd') {
            nrDpus = parseCount(optarg, "DPU count");
        } else if (opt == 'n') {
            total = parseCount(optarg, "element count");
        } else {
            std::printf("usage: %s [-d nr_dpus (default %d)] [-n total_elements (default 1000003)]\n", argv[0], NR_DPUS);
            return opt == 'h' ? EXIT_SUCCESS : EXIT_FAILURE;
        }
    }
    try {
        dpu::DpuSet system = dpu::DpuSet::allocate(nrDpus);
        dpu::DpuProgram program = system.load(DPU_BINARY);

        // Slices: the first DPUs take one element more; every buffer has the same
        // size, whole blocks, zero padded (zeros add nothing to the product).
        const unsigned base = total / nrDpus, extra = total % nrDpus;
        const unsigned longest = base + (extra ? 1 : 0);
        if (longest > MAX_ELEMENTS_PER_DPU) {
            std::printf("[ERROR] cpp_dot_product: %u elements per DPU, at most %u\n", longest, MAX_ELEMENTS_PER_DPU);
            return EXIT_FAILURE;
        }
        const unsigned padded = (longest + BLOCK_ELEMENTS - 1) / BLOCK_ELEMENTS * BLOCK_ELEMENTS;
        std::vector<std::vector<int32_t>> a(nrDpus, std::vector<int32_t>(padded)), b = a;
        std::vector<std::vector<uint32_t>> counts(nrDpus, std::vector<uint32_t>(1));
        uint64_t seed = 0x5eed0001u;
        int64_t want = 0;
        for (unsigned d = 0; d < nrDpus; d++) {
            counts[d][0] = base + (d < extra ? 1 : 0);
            for (unsigned i = 0; i < counts[d][0]; i++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                a[d][i] = (int32_t)(seed >> 32) >> 12; // about +-2^19
                b[d][i] = (int32_t)((uint32_t)seed) >> 12;
                want += (int64_t)a[d][i] * b[d][i];
            }
        }

        // Synchronous: one buffer per DPU to each MRAM vector, by name and by symbol.
        system.copy("nr_elements", counts);
        system.copy("va", a);
        dpu::DpuSymbol vb = program.get("vb");
        system.copy(vb, b);
        system.exec();
        std::vector<std::vector<int64_t>> partials(nrDpus, std::vector<int64_t>(NR_TASKLETS));
        system.copy(partials, "partial");
        int64_t got = 0;
        for (const auto &p : partials)
            for (int64_t v : p)
                got += v;

        // Asynchronous: the same run with b doubled (so 2x the product), queued per
        // rank; a callback per rank reads that rank's partial sums.
        for (auto &v : b)
            for (auto &x : v)
                x *= 2;
        std::vector<int64_t> rankSums(system.ranks().size());
        dpu::DpuSetAsync async = system.async();
        async.copy(vb, b);
        async.exec();
        async.call([&](dpu::DpuSet &rank, unsigned index) {
            std::vector<std::vector<int64_t>> p(rank.dpus().size(), std::vector<int64_t>(NR_TASKLETS));
            rank.copy(p, "partial");
            for (const auto &v : p)
                for (int64_t x : v)
                    rankSums[index] += x;
        });
        async.sync();
        int64_t gotAsync = 0;
        for (int64_t s : rankSums)
            gotAsync += s;

        system.dpus()[0]->log(std::cout); // DPU 0's printf
        if (got != want || gotAsync != 2 * want) {
            std::printf("[ERROR] cpp_dot_product: %lld and %lld, expected %lld and %lld\n", (long long)got,
                        (long long)gotAsync, (long long)want, (long long)(2 * want));
            return EXIT_FAILURE;
        }
        std::printf("[OK] cpp_dot_product: %u elements on %u DPUs x %d tasklets, dot product %lld\n", total, nrDpus,
                    NR_TASKLETS, (long long)want);
    } catch (const dpu::DpuError &e) {
        std::printf("[ERROR] cpp_dot_product: %s\n", e.what());
        return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
}
