/* SPDX-License-Identifier: MIT */
// The SDK's C++ host API (<dpu>): allocate, allocateRanks, dpus()/ranks(),
// load, DpuProgram::get, every copy form (broadcast and per-DPU, to and from,
// by name and by DpuSymbol, with and without offset and size), exec, log,
// async() with call and sync, DpuError for every refused call, and moves.
// Every result is checked against the same function computed here.
#include <dpu>

#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

static int failures;

static void check(bool ok, const std::string &what)
{
    if (!ok) {
        std::printf("[ERROR] %s\n", what.c_str());
        failures++;
    }
}

// `f` must throw a DpuError with this code.
template <typename F> static void mustThrow(dpu_error_t code, const std::string &what, F f)
{
    try {
        f();
    } catch (const dpu::DpuError &e) {
        check(e.error() == code, what + ": DpuError " + e.what() + " has the wrong code");
        check(std::string(e.what()).size() > 0, what + ": empty message");
        return;
    }
    check(false, what + ": no DpuError");
}

static uint32_t lcg(uint64_t &s)
{
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(s >> 33);
}

static std::vector<uint32_t> affine(const std::vector<uint32_t> &in, uint32_t count, uint32_t factor,
                                    const std::vector<uint32_t> &bias)
{
    std::vector<uint32_t> out(in.size(), 0);
    for (uint32_t i = 0; i < count; i++)
        out[i] = in[i] * factor + bias[i % 4];
    return out;
}

int main()
{
    const unsigned nr = 5;
    dpu::DpuSet system = dpu::DpuSet::allocate(nr);
    check(system.dpus().size() == nr, "dpus() does not list the 5 DPUs");
    check(!system.ranks().empty(), "ranks() is empty");
    size_t inRanks = 0;
    for (dpu::DpuSet *rank : system.ranks()) {
        check(rank->ranks().size() == 1 && rank->ranks()[0] == rank, "a rank's ranks() is not itself");
        inRanks += rank->dpus().size();
        for (dpu::DpuSet *d : rank->dpus())
            check(d->dpus().size() == 1 && d->dpus()[0] == d && d->ranks()[0] == rank,
                  "a DPU's dpus()/ranks() are not itself and its rank");
    }
    check(inRanks == nr, "the ranks' DPUs are not the set's DPUs");

    mustThrow(DPU_ERR_ELF_NO_SUCH_FILE, "load of a missing file", [&] { system.load("no_such_program"); });
    dpu::DpuProgram program = system.load("dpu_affine");
    mustThrow(DPU_ERR_UNKNOWN_SYMBOL, "get of an unknown symbol", [&] { program.get("no_such_symbol"); });

    // Inputs: per-DPU `in` and `count` (uneven), broadcast `factor` and `bias`.
    uint64_t seed = 7;
    std::vector<std::vector<uint32_t>> in(nr, std::vector<uint32_t>(512));
    std::vector<std::vector<uint32_t>> counts(nr, std::vector<uint32_t>(1));
    const uint32_t countOf[nr] = { 512, 1, 0, 301, 77 };
    for (unsigned d = 0; d < nr; d++) {
        for (auto &v : in[d])
            v = lcg(seed);
        counts[d][0] = countOf[d];
    }
    std::vector<uint32_t> factor{ 3 }, bias{ 10, 20, 30, 40 };
    system.copy("in", in);                     // per DPU, by name
    system.copy("count", 0, counts);           // per DPU, with offset
    dpu::DpuSymbol factorSym = program.get("factor");
    system.copy(factorSym, factor);            // broadcast, by symbol
    system.copy("bias", 0, bias, 8);           // broadcast, offset and size: bias[0..1]
    dpu::DpuSymbol biasSym = program.get("bias");
    system.copy(biasSym, 8, std::vector<uint32_t>{ bias[2], bias[3] }); // the rest, by symbol at an offset
    system.exec();

    std::vector<std::vector<uint32_t>> out(nr, std::vector<uint32_t>(512));
    system.copy(out, "out");
    std::vector<std::vector<uint64_t>> totals(nr, std::vector<uint64_t>(1));
    dpu::DpuSymbol totalSym = program.get("total");
    system.copy(totals, totalSym);
    std::vector<std::vector<uint32_t>> lastHalf(nr, std::vector<uint32_t>(256));
    system.copy(lastHalf, 1024, "out", 1024);  // size and offset
    for (unsigned d = 0; d < nr; d++) {
        std::vector<uint32_t> want = affine(in[d], countOf[d], 3, bias);
        uint64_t sum = 0;
        for (uint32_t i = 0; i < countOf[d]; i++)
            sum += want[i];
        for (uint32_t i = 0; i < countOf[d]; i++)
            if (out[d][i] != want[i]) {
                check(false, "DPU " + std::to_string(d) + " out[" + std::to_string(i) + "]");
                break;
            }
        check(totals[d][0] == sum, "DPU " + std::to_string(d) + " total");
        for (uint32_t i = 0; i < 256; i++)
            if (lastHalf[d][i] != out[d][256 + i]) {
                check(false, "DPU " + std::to_string(d) + ": the copy at an offset differs");
                break;
            }
    }

    // log(): each DPU's printf, after its header line, in the set's order.
    std::ostringstream log;
    system.log(log);
    std::string expected;
    for (unsigned d = 0; d < nr; d++) {
        std::vector<uint32_t> want = affine(in[d], countOf[d], 3, bias);
        uint64_t sum = 0;
        for (uint32_t i = 0; i < countOf[d]; i++)
            sum += want[i];
        char line[128];
        std::snprintf(line, sizeof line, "=== DPU#0x%x ===\ntotal %llu over %u\n", d, (unsigned long long)sum,
                      countOf[d]);
        expected += line;
    }
    check(log.str() == expected, "log() gave:\n" + log.str() + "expected:\n" + expected);

    // Refused before any byte moves: sizes past the host buffers, wrong buffer counts, unequal buffers.
    mustThrow(DPU_ERR_INVALID_MEMORY_TRANSFER, "broadcast larger than its buffer",
              [&] { system.copy("bias", 0, bias, 20); });
    mustThrow(DPU_ERR_INVALID_MEMORY_TRANSFER, "per-DPU copy with 4 buffers for 5 DPUs",
              [&] { system.copy("in", std::vector<std::vector<uint32_t>>(4, std::vector<uint32_t>(4))); });
    mustThrow(DPU_ERR_INVALID_MEMORY_TRANSFER, "per-DPU read larger than its buffers",
              [&] { system.copy(out, 4096, "out"); });
    std::vector<std::vector<uint32_t>> uneven(nr, std::vector<uint32_t>(4));
    uneven[3].resize(5);
    mustThrow(DPU_ERR_INVALID_MEMORY_TRANSFER, "per-DPU copy of unequal buffers", [&] { system.copy("in", uneven); });
    mustThrow(DPU_ERR_INVALID_MEMORY_TRANSFER, "no buffers", [&] {
        std::vector<std::vector<uint32_t>> none;
        system.copy(none, "out");
    });
    mustThrow(DPU_ERR_UNKNOWN_SYMBOL, "copy to an unknown symbol", [&] { system.copy("no_such_symbol", bias); });
    mustThrow(DPU_ERR_INVALID_SYMBOL_ACCESS, "copy past a symbol's end", [&] { system.copy("bias", 8, bias); });

    // async(): queued copies and exec, a callback per rank, then sync.
    std::vector<uint32_t> factor5{ 5 };
    std::vector<std::vector<uint32_t>> asyncOut(nr, std::vector<uint32_t>(512));
    {
        dpu::DpuSetAsync async = system.async();
        async.copy("factor", factor5);
        async.exec();
        async.copy(asyncOut, "out");
        std::atomic<unsigned> calls{ 0 }, dpusSeen{ 0 };
        async.call([&](dpu::DpuSet &rank, unsigned) {
            calls++;
            dpusSeen += (unsigned)rank.dpus().size();
        });
        unsigned single = 0;
        async.call([&](dpu::DpuSet &, unsigned) { single++; }, true, true);
        async.sync();
        check(calls == system.ranks().size(), "call() did not run once per rank");
        check(dpusSeen == nr, "the callbacks' ranks do not hold the set's DPUs");
        check(single == 1, "call(..., singleCall) did not run once");
        // A callback that throws: sync() reports it.
        async.call([](dpu::DpuSet &, unsigned) { throw std::runtime_error("from a callback"); });
        mustThrow(DPU_ERR_SYSTEM, "a throwing callback", [&] { async.sync(); });
    }
    for (unsigned d = 0; d < nr; d++) {
        std::vector<uint32_t> want = affine(in[d], countOf[d], 5, bias);
        for (uint32_t i = 0; i < countOf[d]; i++)
            if (asyncOut[d][i] != want[i]) {
                check(false, "async: DPU " + std::to_string(d) + " out[" + std::to_string(i) + "]");
                break;
            }
    }

    // Moves keep one owner: the moved-to set works, the moved-from one frees nothing.
    dpu::DpuSet moved = std::move(system);
    moved.copy("factor", factor);
    moved.exec();
    std::vector<std::vector<uint32_t>> again(nr, std::vector<uint32_t>(512));
    moved.copy(again, "out");
    check(again == out, "the moved set's results differ");

    // allocateRanks: whole ranks.
    dpu::DpuSet ranks = dpu::DpuSet::allocateRanks(1);
    check(ranks.ranks().size() == 1 && ranks.dpus().size() == ranks.ranks()[0]->dpus().size() &&
              ranks.dpus().size() >= 1,
          "allocateRanks(1) is not one whole rank");

    if (failures)
        return 1;
    std::printf("[OK] the C++ host API (<dpu>) on %u DPUs\n", nr);
    return 0;
}
