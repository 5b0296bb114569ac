/* SPDX-License-Identifier: MIT */
// OpenPIM DPU target lowering (clang-14 -fpass-plugin=libOpenPIMTarget.so).
//
// DPU C code is compiled by clang's front end for the `spir` target, whose C
// data model is the DPU's: pointers, size_t, uintptr_t and ptrdiff_t are 4
// bytes, long and long long 8, long double 8.  This pass, run last in the
// optimisation pipeline, turns that IR into IR for x86-64's ILP32 ABI (x32),
// which the x86 backend compiles natively: every address DPU code forms is then
// a 32-bit address that wraps as on the DPU (the backend uses 32-bit address
// arithmetic), MRAM accesses go through %gs with a 32-bit offset, and nothing
// above 4 GB (the worker process, other DPUs) can be named by DPU code.
//
// What differs between the two ABIs and is fixed up here:
//   - triple and data layout;
//   - the spir_func calling convention becomes the C one;
//   - no red zone (split-stack prologues check each frame against the
//     tasklet's native stack, abi/dpu_abi.h);
//   - va_list: spir's is a 4-byte pointer, x32's a 16-byte structure that the
//     backend's va_start/va_arg lower to.  Each va_list object becomes a pointer
//     to a 16-byte area in the frame of the function that starts or copies it,
//     which is also how x86-64 passes va_list to v*printf (an array decays).
#include "OpenPIMStack.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

const char *const kTriple = "x86_64-unknown-linux-gnux32";
const char *const kLayout = "e-m:e-p:32:32-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128";
constexpr unsigned kVaListBytes = 16; // x32: gp_offset, fp_offset, overflow_arg_area, reg_save_area

// The va_list object `slot` points to now holds a pointer to a fresh x32
// va_list area; returns that area.
Value *freshArea(IRBuilder<> &B, Function &F, Value *slot) {
  IRBuilder<> Entry(&*F.getEntryBlock().getFirstInsertionPt());
  AllocaInst *area = Entry.CreateAlloca(ArrayType::get(Entry.getInt8Ty(), kVaListBytes), nullptr, "op.va_area");
  area->setAlignment(Align(16));
  Value *p = B.CreateBitCast(area, B.getInt8PtrTy());
  B.CreateStore(p, B.CreateBitCast(slot, PointerType::get(B.getInt8PtrTy(), 0)));
  return p;
}

Value *areaOf(IRBuilder<> &B, Value *slot) {
  return B.CreateLoad(B.getInt8PtrTy(), B.CreateBitCast(slot, PointerType::get(B.getInt8PtrTy(), 0)), "op.va");
}

bool fixVarargs(Function &F) {
  SmallVector<Instruction *, 8> work;
  for (Instruction &I : instructions(F)) {
    if (isa<VAArgInst>(I))
      work.push_back(&I);
    else if (auto *II = dyn_cast<IntrinsicInst>(&I))
      if (II->getIntrinsicID() == Intrinsic::vastart || II->getIntrinsicID() == Intrinsic::vacopy ||
          II->getIntrinsicID() == Intrinsic::vaend)
        work.push_back(&I);
  }
  for (Instruction *I : work) {
    IRBuilder<> B(I);
    if (auto *VA = dyn_cast<VAArgInst>(I)) {
      Value *area = areaOf(B, VA->getPointerOperand());
      VAArgInst *n = B.CreateVAArg(area, VA->getType());
      n->takeName(VA);
      VA->replaceAllUsesWith(n);
      VA->eraseFromParent();
      continue;
    }
    auto *II = cast<IntrinsicInst>(I);
    switch (II->getIntrinsicID()) {
    case Intrinsic::vastart:
      II->setArgOperand(0, freshArea(B, F, II->getArgOperand(0)));
      break;
    case Intrinsic::vacopy: {
      Value *src = areaOf(B, II->getArgOperand(1));
      II->setArgOperand(0, freshArea(B, F, II->getArgOperand(0)));
      II->setArgOperand(1, src);
      break;
    }
    default: // vaend
      II->setArgOperand(0, areaOf(B, II->getArgOperand(0)));
      break;
    }
  }
  return !work.empty();
}

struct OpenPIMTargetPass : PassInfoMixin<OpenPIMTargetPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    if (M.getTargetTriple().rfind("spir", 0) != 0) {
      errs() << "openpim: the DPU target pass expects IR from clang -target spir, got '" << M.getTargetTriple()
             << "'\n";
      report_fatal_error("wrong input to the OpenPIM DPU target pass", false);
    }
    M.setTargetTriple(kTriple);
    M.setDataLayout(kLayout);
    for (Function &F : M) {
      if (F.getCallingConv() == CallingConv::SPIR_FUNC || F.getCallingConv() == CallingConv::SPIR_KERNEL)
        F.setCallingConv(CallingConv::C);
      if (F.isDeclaration())
        continue;
      // Tasklets' native stacks are checked by split-stack prologues:
      // nothing may live below the stack pointer.
      F.addFnAttr(Attribute::NoRedZone);
      // The x86 backend has no split-stack prologue for variadic functions:
      // their own x86 frame goes unchecked (the slack and guard page below
      // the native stack's limit catch it; their DPU frame is charged).
      if (F.isVarArg())
        F.removeFnAttr("split-stack");
      for (Instruction &I : instructions(F))
        if (auto *CB = dyn_cast<CallBase>(&I))
          if (CB->getCallingConv() == CallingConv::SPIR_FUNC)
            CB->setCallingConv(CallingConv::C);
      fixVarargs(F);
    }
    return PreservedAnalyses::none();
  }
};

} // namespace

// The DPU stack pass (OpenPIMStack.cpp) runs first, on the DPU's IR; then
// the retargeting.  `opt -passes=openpim-dpu-frames` prints DPU frames.
extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "OpenPIMTarget", "1.0", [](PassBuilder &PB) {
            PB.registerOptimizerLastEPCallback([](ModulePassManager &MPM, OptimizationLevel) {
              MPM.addPass(openpim::StackPass());
              MPM.addPass(OpenPIMTargetPass());
            });
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name != "openpim-dpu-frames")
                    return false;
                  MPM.addPass(openpim::FramesPrinter());
                  return true;
                });
          }};
}
