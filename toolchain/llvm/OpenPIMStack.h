/* SPDX-License-Identifier: MIT */
// The DPU stack pass of libOpenPIMTarget.so (OpenPIMStack.cpp).
#ifndef OPENPIM_STACK_PASS_H
#define OPENPIM_STACK_PASS_H

#include "llvm/IR/PassManager.h"
#include "llvm/Support/raw_ostream.h"

namespace openpim {

// Charges every function's DPU frame to its tasklet's stack budget: a check
// and a subtraction on entry, the frame given back on return.
struct StackPass : llvm::PassInfoMixin<StackPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; } // also at -O0
};

// Prints each function's DPU frame and its parts, changes nothing
// (opt -passes=openpim-dpu-frames; tests/stack/frames).
struct FramesPrinter : llvm::PassInfoMixin<FramesPrinter> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
};

} // namespace openpim

#endif
