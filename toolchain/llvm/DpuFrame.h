/* SPDX-License-Identifier: MIT */
// The stack frame UPMEM's DPU compiler would give a function, computed from
// its IR (there is no DPU backend here).  The rules, what is exact and what
// is estimated, are in DpuFrame.cpp and README.md ("DPU frames").
#ifndef OPENPIM_DPU_FRAME_H
#define OPENPIM_DPU_FRAME_H

#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"

#include <cstdint>

namespace openpim {

// The DPU's data layout (UPMEM's clang, Targets/DPU.h): sizes and the
// alignments the backend gives stack objects.
extern const char *const DpuDataLayout;

struct DpuFrame {
  bool Calls = false;         // calls a function on the DPU: the prologue saves d22 (r22, r23)
  uint64_t SavedWords = 0;    // estimate: 32-bit words live across one of its calls
  uint64_t CalleeSaved = 0;   // bytes: d14..d20 pairs that hold them
  uint64_t Spills = 0;        // bytes: words beyond the callee-saved registers
  uint64_t Locals = 0;        // bytes of its allocas, laid out (and shared) as the backend does
  uint64_t Byval = 0;         // bytes of the copies of by-value arguments it passes
  uint64_t Outgoing = 0;      // bytes of its largest stack-argument area
  uint64_t Total = 0;         // the frame
  uint64_t Declared = 0;      // an SDK routine: what UPMEM's costs, callees included (0: not one)
  const llvm::AllocaInst *Dynamic = nullptr; // a dynamic alloca (the DPU compiler refuses them)
};

// F's DPU frame (F must be a definition).
DpuFrame computeDpuFrame(const llvm::Function &F, const llvm::DataLayout &DL);

// Whether a call is a call on the DPU (a `call` instruction, a frame for the
// caller): not an intrinsic the backend expands, inline assembly, a runtime
// function the SDK defines inline (mram_read ...), OpenPIM's own runtime
// plumbing (__op_*, the worker's services).
bool isDpuCall(const llvm::CallBase &CB);

// Functions that have no DPU counterpart of their own: left alone by the
// stack pass, and free for their callers.
bool isEmulationOnly(const llvm::Function &F);

// The DPU stack an SDK routine uses, its callees included, where OpenPIM's
// runtime implements it otherwise (printf ...); 0 for other functions.
uint64_t sdkRoutineStack(llvm::StringRef Name);

} // namespace openpim

#endif
