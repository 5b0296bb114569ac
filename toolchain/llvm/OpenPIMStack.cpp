/* SPDX-License-Identifier: MIT */
// OpenPIM DPU stack pass: tasklet stacks enforced in DPU terms.
//
// DPU code runs natively on x86 stacks of the worker's (abi/dpu_abi.h), whose
// frames are larger than UPMEM's compiler makes them.  So that a program whose
// declared stacks (STACK_SIZE_DEFAULT, STACK_SIZE_TASKLET_<n>) fit on the DPU
// runs here, and one that would overflow there faults here, each function
// charges its DPU frame (DpuFrame.cpp) to its tasklet's account, the
// `struct op_dstack` at the top of the tasklet's native stack slot, found from
// the stack pointer:
//
//     entry:   rec = (esp | (SLOT - 1)) - 15;  r = rec->remaining;
//              if (r < F) __op_dstack_overflow(&f, F);   (the runtime faults the DPU)
//              rec->remaining = r - F;
//     return:  rec->remaining = r;   (what its callees took they gave back)
//
// about ten x86 instructions per call of a function with a frame (a function
// that calls nothing only checks: four); leaf functions without locals (most
// small helpers) have no frame and are left alone.  Recursion and calls through pointers need nothing more: the callee
// charges itself.  The pass runs after the accounting pass (its added code is
// not counted as DPU instructions) and before the retargeting to x32.
//
// The runtime's own plumbing (__op_*, the services) and the functions the SDK
// defines inline (mram_read ...) have no DPU frame and are not instrumented.
// A runtime routine whose implementation here differs from the SDK's (printf:
// a log encoder here, a byte writer there) charges what the SDK's costs, its
// callees included (DpuFrame.cpp, sdkRoutineStack: N bytes), and lends its
// callees a credit that covers their own charges:
//
//     entry:   if (r < N) overflow;  rec->remaining = r + CREDIT - N;
//     return:  rec->remaining = r;
//
// A dynamic alloca (VLA) is an error, as in UPMEM's compiler.
#include "OpenPIMStack.h"

#include "DpuFrame.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#include "dpu_abi.h"

#include <cstddef>
#include <vector>

using namespace llvm;

namespace openpim {

namespace {

const char *const OverflowHook = "__op_dstack_overflow";
constexpr uint64_t Credit = 1u << 30; // far more than any stack, far less than wraps 32 bits

bool skipped(const Function &F) {
  return F.isDeclaration() || F.hasFnAttribute(Attribute::Naked) || isEmulationOnly(F);
}

// Refuses a dynamic alloca with the DPU compiler's reason; returns whether F has one.
bool refuseDynamic(const Function &F, const DpuFrame &Fr) {
  if (!Fr.Dynamic)
    return false;
  F.getContext().diagnose(DiagnosticInfoUnsupported(
      F, "dynamic allocation of stack (a variable-length array, or alloca() of a variable size) is not supported "
         "on the DPU: UPMEM's compiler refuses it",
      Fr.Dynamic->getDebugLoc()));
  return true;
}

// Calls Visit(F, its frame) for each function the pass deals with; all frames
// are computed first (instrumenting adds calls).  Dynamic allocas are refused.
template <typename V> void forEachFrame(Module &M, V Visit) {
  DataLayout DL(DpuDataLayout);
  std::vector<std::pair<Function *, DpuFrame>> Frames;
  for (Function &F : M)
    if (!skipped(F)) {
      DpuFrame Fr = computeDpuFrame(F, DL);
      if (!refuseDynamic(F, Fr))
        Frames.push_back({&F, Fr});
    }
  for (auto &P : Frames)
    Visit(*P.first, P.second);
}

// The running tasklet's struct op_dstack::remaining, from the stack pointer.
Value *remainingPtr(IRBuilder<> &B, Module &M) {
  LLVMContext &C = M.getContext();
  Type *I32 = B.getInt32Ty();
  Function *ReadReg = Intrinsic::getDeclaration(&M, Intrinsic::read_register, {I32});
  Value *SP = B.CreateCall(ReadReg, {MetadataAsValue::get(C, MDNode::get(C, MDString::get(C, "esp")))}, "ods.sp");
  Value *Top = B.CreateOr(SP, ConstantInt::get(I32, OP_NSTACK_SLOT - 1));
  Value *Rec = B.CreateAdd(Top, ConstantInt::get(I32, (uint32_t)(OP_DSTACK_OFFSET - (OP_NSTACK_SLOT - 1))));
  static_assert(offsetof(struct op_dstack, remaining) == 0, "the pass reads remaining at the record's start");
  return B.CreateIntToPtr(Rec, I32->getPointerTo(), "ods.rec");
}

// Whether code F calls can see its tasklet's account (any call but an
// intrinsic that no backend turns into a call).
bool callsOut(const Function &F) {
  for (const Instruction &I : instructions(F))
    if (const auto *CB = dyn_cast<CallBase>(&I))
      if (!isa<IntrinsicInst>(CB) || isa<MemIntrinsic>(CB))
        return true;
  return false;
}

// Charges Frame bytes on entry, gives them back on return; with Lend, also
// lends the callees the credit.  A function that calls nothing only checks:
// nobody could see the charge.
void instrument(Function &F, uint64_t Frame, bool Lend) {
  Module &M = *F.getParent();
  LLVMContext &C = M.getContext();
  Type *I32 = Type::getInt32Ty(C);
  Constant *Size = ConstantInt::get(I32, Frame);
  Constant *Delta = ConstantInt::get(I32, (uint32_t)(Lend ? Credit - Frame : 0 - Frame)); // added on entry

  // Static allocas first (they stay static in the entry block), then the check.
  BasicBlock &Entry = F.getEntryBlock();
  SmallVector<AllocaInst *, 8> Allocas;
  for (Instruction &I : Entry)
    if (auto *AI = dyn_cast<AllocaInst>(&I))
      if (AI->isStaticAlloca())
        Allocas.push_back(AI);
  BasicBlock::iterator Pos = Entry.getFirstInsertionPt();
  for (AllocaInst *AI : Allocas) {
    if (&*Pos == AI)
      ++Pos;
    else
      AI->moveBefore(&*Pos);
  }
  bool Charge = callsOut(F);
  SmallVector<ReturnInst *, 4> Returns;
  for (Instruction &I : instructions(F))
    if (auto *RI = dyn_cast<ReturnInst>(&I))
      Returns.push_back(RI);

  IRBuilder<> B(&*Pos);
  Value *Rec = remainingPtr(B, M);
  LoadInst *Rem = B.CreateLoad(I32, Rec, "ods.remaining");
  Value *Short = B.CreateICmpULT(Rem, Size);
  Instruction *Fail = SplitBlockAndInsertIfThen(Short, &*Pos, /*Unreachable=*/true,
                                                MDBuilder(C).createBranchWeights(1, 1u << 20));
  FunctionCallee Hook = M.getOrInsertFunction(OverflowHook, FunctionType::get(Type::getVoidTy(C), {I32, I32}, false));
  IRBuilder<> FB(Fail);
  CallInst *Call = FB.CreateCall(Hook, {ConstantExpr::getPtrToInt(&F, I32), Size});
  Call->setDoesNotReturn();
  if (auto *HookFn = dyn_cast<Function>(Hook.getCallee()->stripPointerCasts())) {
    Call->setCallingConv(HookFn->getCallingConv());
    if (HookFn->isDeclaration()) {
      HookFn->setDoesNotReturn();
      HookFn->addFnAttr(Attribute::Cold);
    }
  }
  if (!Charge)
    return;
  B.SetInsertPoint(&*Pos);
  B.CreateStore(B.CreateAdd(Rem, Delta), Rec);

  // the callees have given back what they took: the entry's value again
  // (a store, not a read-modify-write: calls in a loop do not wait for each other)
  for (ReturnInst *RI : Returns) {
    IRBuilder<> RB(RI);
    RB.CreateStore(Rem, remainingPtr(RB, M));
  }
}

} // namespace

PreservedAnalyses StackPass::run(Module &M, ModuleAnalysisManager &) {
  bool Changed = false;
  forEachFrame(M, [&](Function &F, const DpuFrame &Fr) {
    if (Fr.Declared)
      instrument(F, Fr.Declared, /*Lend=*/true);
    else if (Fr.Total)
      instrument(F, Fr.Total, /*Lend=*/false);
    Changed |= Fr.Declared || Fr.Total;
  });
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

PreservedAnalyses FramesPrinter::run(Module &M, ModuleAnalysisManager &) {
  forEachFrame(M, [](Function &F, const DpuFrame &Fr) {
    outs() << "dpu-frame " << F.getName() << ' ' << Fr.Total << " calls=" << (Fr.Calls ? 1 : 0)
           << " locals=" << Fr.Locals << " byval=" << Fr.Byval << " outgoing=" << Fr.Outgoing
           << " live-words=" << Fr.SavedWords << " callee-saved=" << Fr.CalleeSaved << " spills=" << Fr.Spills
           << " sdk-routine=" << Fr.Declared << '\n';
  });
  return PreservedAnalyses::all();
}

} // namespace openpim
