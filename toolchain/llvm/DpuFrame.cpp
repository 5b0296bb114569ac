/* SPDX-License-Identifier: MIT */
// The DPU frame of a function, from its IR, by the rules of UPMEM's DPU
// backend (upmem/llvm-project, llvm/lib/Target/DPU: DPUFrameLowering.cpp,
// DPUTargetLowering.cpp's LowerCall/LowerVAARG; the DPU ABI of the SDK
// documentation; clang's Targets/DPU.h for the data layout), read, not
// copied.  Facts of that backend:
//
//   - the stack grows up, r22 is the stack pointer, r23 the return address;
//     the stack alignment is 8, the transient (leaf) alignment 1;
//   - a function that calls saves d22 (r22 and r23) in 8 bytes at the end of
//     its frame: its frame is alignTo(objects + 8, 8) (emitPrologue, with
//     `objects` already aligned to 8 since the function adjusts the stack); a
//     leaf function moves no stack pointer, its frame is its objects aligned
//     to their largest alignment, 0 without objects;
//   - r14..r21 are callee-saved, saved as the pairs d14, d16, d18, d20 (8 bytes
//     each, laid out first);
//   - each static alloca is a frame object of its type's size times its count,
//     aligned to max(min(preferred alignment, 8), its own) (LLVM's
//     FunctionLoweringInfo), laid out in order (LLVM's PEI); allocas whose
//     lifetimes never overlap share space from -O1 on (LLVM's StackColoring);
//   - arguments 1..8 go in r0..r7 (64-bit ones in an even/odd pair), the
//     others on the stack in 4-byte slots (8-byte, aligned, for 64-bit values);
//     variadic arguments always go on the stack (LowerVAARG reads them there);
//     the caller reserves its largest such area in its frame (LLVM's reserved
//     call frame), and a copy of each by-value aggregate it passes;
//   - dynamic stack allocation (VLAs, alloca with a variable size) is refused.
//
// What is exact here and what is estimated:
//   exact   the d22 save, alignment and rounding, the layout of allocas when no
//           lifetime markers let them share (-O0, or objects live throughout),
//           by-value copies, stack-argument areas of calls with 32-bit
//           arguments (how the backend's CC_DPU table pairs 64-bit arguments is
//           not in its public sources: an aligned free pair is assumed);
//   bound   allocas with lifetime markers count as the largest total live at
//           one point (StackColoring can only do worse: padding, greedy);
//   estimate register saves and spills (no DPU register allocator here): the
//           SSA values live across a call must survive it in r14..r21 or in
//           memory; the largest number of 32-bit words live across one call,
//           W, takes ceil(min(W, 8) / 2) callee-saved pairs and 4 bytes per word
//           beyond 8.  Values a compiler forms again do not count (constants,
//           addresses of globals and frame objects; address arithmetic counts
//           as its inputs, since the backend recomputes an address where a
//           load or store uses it); spills of register
//           pressure without calls (22 allocatable registers) and around the
//           runtime routines the backend calls (multiply, divide, soft-float)
//           are not counted, so the estimate errs low: a program whose stacks
//           fit on the DPU is not refused for them.
// "Calls" are calls on the DPU (isDpuCall) and the runtime routines the
// instruction-accounting pass records for the function (__mulsi3, __udiv32,
// soft-float...: its IRAM record, when the pass ran).
#include "DpuFrame.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"

#include <algorithm>
#include <functional>

using namespace llvm;

namespace openpim {

const char *const DpuDataLayout = "e-m:e-p:32:32-i1:8:32-i8:8:32-i16:16:32-i32:32:32-i64:64:64-n32";

namespace {

constexpr uint64_t StackAlign = 8;
constexpr uint64_t D22Save = 8;      // r22 + r23 of a function that calls
constexpr unsigned ArgRegs = 8;      // r0..r7
constexpr unsigned CalleeSavedWords = 8; // r14..r21
constexpr unsigned MaxInlineStores = 4;  // the backend's MaxStoresPerMemcpy/Memset

// Runtime functions that the SDK's headers define static inline around one
// or two instructions (mram.h: ldma/sdma; mutex.h: acquire/release): calls in
// OpenPIM, none on the DPU.
bool isSdkInline(StringRef Name) {
  return Name == "mram_read" || Name == "mram_write" || Name == "mutex_lock" || Name == "mutex_unlock" ||
         Name == "mutex_trylock";
}

// A call through the worker's service table (struct op_services): the
// runtime's plumbing, no DPU call.
bool isServiceCall(const CallBase &CB) {
  const auto *L = dyn_cast<LoadInst>(CB.getCalledOperand()->stripPointerCasts());
  if (!L)
    return false;
  auto isTable = [](Type *T) {
    const auto *ST = dyn_cast<StructType>(T);
    return ST && ST->hasName() && ST->getName() == "struct.op_services";
  };
  // the function pointer's address: a field of the table (a GEP, or a cast of
  // the table's address for its first field)
  for (const Value *P = L->getPointerOperand();;) {
    if (const auto *PT = dyn_cast<PointerType>(P->getType()))
      if (!PT->isOpaque() && isTable(PT->getNonOpaquePointerElementType()))
        return true;
    if (const auto *G = dyn_cast<GEPOperator>(P)) {
      if (isTable(G->getSourceElementType()))
        return true;
      P = G->getPointerOperand();
    } else if (const auto *C = dyn_cast<Operator>(P); C && (C->getOpcode() == Instruction::BitCast ||
                                                          C->getOpcode() == Instruction::AddrSpaceCast)) {
      P = C->getOperand(0);
    } else {
      return false;
    }
  }
}

uint64_t alignUp(uint64_t X, uint64_t A) { return A ? (X + A - 1) / A * A : X; }

// 32-bit words a value occupies in DPU registers.
unsigned wordsOf(Type *T, const DataLayout &DL) {
  if (T->isVoidTy() || T->isLabelTy() || T->isMetadataTy() || T->isTokenTy() || !T->isSized())
    return 0;
  return (unsigned)std::max<uint64_t>(1, (DL.getTypeSizeInBits(T).getFixedSize() + 31) / 32);
}

// A memcpy/memmove/memset the backend turns into a call: a variable length,
// or more than MaxInlineStores stores of its alignment's width.
bool memIntrinsicCalls(const MemIntrinsic &MI) {
  const auto *Len = dyn_cast<ConstantInt>(MI.getLength());
  if (!Len)
    return true;
  uint64_t A = MI.getDestAlign() ? MI.getDestAlign()->value() : 1;
  if (const auto *MT = dyn_cast<MemTransferInst>(&MI))
    A = std::min<uint64_t>(A, MT->getSourceAlign() ? MT->getSourceAlign()->value() : 1);
  uint64_t Unit = std::min<uint64_t>(std::max<uint64_t>(A, 1), 8);
  return (Len->getZExtValue() + Unit - 1) / Unit > MaxInlineStores;
}

// Whether the accounting pass recorded runtime routines for F ("L <routine>"
// lines of its IRAM record, timing/llvm/OpenPIMCount.cpp).
bool callsRuntimeRoutines(const Function &F) {
  const GlobalVariable *GV = F.getParent()->getGlobalVariable(("__op_iram." + F.getName()).str(), true);
  if (!GV || !GV->hasInitializer())
    return false;
  const auto *CDS = dyn_cast<ConstantDataSequential>(GV->getInitializer());
  if (!CDS || !CDS->isString())
    return false;
  StringRef Text = CDS->getAsString();
  return Text.startswith("L ") || Text.contains("\nL ");
}

// Stack-argument bytes of a call: registers r0..r7 for the fixed arguments in
// order (64-bit ones in an aligned free pair), the rest and every variadic
// argument on the stack.
uint64_t stackArgBytes(const CallBase &CB, const DataLayout &DL) {
  bool Used[ArgRegs] = {};
  uint64_t Off = 0;
  unsigned Fixed = CB.getFunctionType()->getNumParams();
  for (unsigned I = 0; I < CB.arg_size(); I++) {
    Type *T = CB.getArgOperand(I)->getType();
    unsigned W = wordsOf(T, DL);
    if (W == 0)
      continue;
    if (I < Fixed && W <= 2) {
      int Reg = -1;
      for (unsigned R = 0; R + W <= ArgRegs && Reg < 0; R += W)
        if (!Used[R] && (W == 1 || !Used[R + 1]))
          Reg = (int)R;
      if (Reg >= 0) {
        for (unsigned K = 0; K < W; K++)
          Used[Reg + K] = true;
        continue;
      }
    }
    uint64_t Size = 4ull * W;
    Off = alignUp(Off, Size == 8 ? 8 : 4) + Size;
  }
  return Off;
}

// The largest total size of the marked allocas (those with lifetime markers)
// live at one point: a forward dataflow over their markers.
uint64_t largestLiveTotal(const Function &F, const SmallVectorImpl<const AllocaInst *> &Marked,
                          const SmallVectorImpl<uint64_t> &Weight) {
  DenseMap<const AllocaInst *, unsigned> Index;
  for (unsigned I = 0; I < Marked.size(); I++)
    Index[Marked[I]] = I;
  auto markerOf = [&](const Instruction &I, bool &Start) -> int {
    const auto *II = dyn_cast<IntrinsicInst>(&I);
    if (!II || (II->getIntrinsicID() != Intrinsic::lifetime_start && II->getIntrinsicID() != Intrinsic::lifetime_end))
      return -1;
    Start = II->getIntrinsicID() == Intrinsic::lifetime_start;
    const auto *AI = dyn_cast<AllocaInst>(II->getArgOperand(1)->stripPointerCasts());
    auto It = AI ? Index.find(AI) : Index.end();
    return It == Index.end() ? -1 : (int)It->second;
  };
  DenseMap<const BasicBlock *, BitVector> Out;
  ReversePostOrderTraversal<const Function *> RPO(&F);
  for (const BasicBlock *BB : RPO)
    Out[BB] = BitVector(Marked.size());
  auto inOf = [&](const BasicBlock *BB) {
    BitVector In(Marked.size());
    for (const BasicBlock *P : predecessors(BB)) {
      auto It = Out.find(P);
      if (It != Out.end())
        In |= It->second;
    }
    return In;
  };
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const BasicBlock *BB : RPO) {
      BitVector Live = inOf(BB);
      for (const Instruction &I : *BB) {
        bool Start;
        int K = markerOf(I, Start);
        if (K >= 0)
          Live[K] = Start;
      }
      if (Live != Out[BB]) {
        Out[BB] = Live;
        Changed = true;
      }
    }
  }
  uint64_t Best = 0;
  auto total = [&](const BitVector &Live) {
    uint64_t S = 0;
    for (unsigned K : Live.set_bits())
      S += Weight[K];
    return S;
  };
  for (const BasicBlock *BB : RPO) {
    BitVector Live = inOf(BB);
    Best = std::max(Best, total(Live));
    for (const Instruction &I : *BB) {
      bool Start;
      int K = markerOf(I, Start);
      if (K >= 0) {
        Live[K] = Start;
        if (Start)
          Best = std::max(Best, total(Live));
      }
    }
  }
  return Best;
}

// Address arithmetic: the backend forms an address again where it is used
// (LLVM's CodeGenPrepare sinks it next to its loads and stores, a constant
// offset goes in the instruction), so what must survive a call is its inputs,
// not the address.
bool isAddress(const Value *V) {
  return isa<GetElementPtrInst>(V) || isa<BitCastInst>(V) || isa<AddrSpaceCastInst>(V);
}

// A value the register allocator need not keep across a call: a constant, a
// frame object or a global (an address it forms again).
bool rematerializable(const Value *V) {
  return isa<Constant>(V) || isa<AllocaInst>(V) || isAddress(V);
}

// The largest number of 32-bit words of SSA values live across one DPU call.
uint64_t wordsLiveAcrossCalls(const Function &F, const DataLayout &DL) {
  DenseMap<const Value *, unsigned> Index;
  SmallVector<unsigned, 64> Words;
  auto add = [&](const Value *V) {
    unsigned W = wordsOf(V->getType(), DL);
    if (W && !rematerializable(V)) {
      Index[V] = Words.size();
      Words.push_back(W);
    }
  };
  bool HasCall = false;
  for (const Argument &A : F.args())
    add(&A);
  for (const Instruction &I : instructions(F)) {
    add(&I);
    if (const auto *CB = dyn_cast<CallBase>(&I))
      HasCall |= isDpuCall(*CB);
  }
  if (!HasCall || Words.empty())
    return 0;
  unsigned N = Words.size();
  auto idx = [&](const Value *V) -> int {
    auto It = Index.find(V);
    return It == Index.end() ? -1 : (int)It->second;
  };
  // Marks what a use of V keeps live: V, or the inputs of an address.
  std::function<void(const Value *, BitVector &)> use = [&](const Value *V, BitVector &Live) {
    int K = idx(V);
    if (K >= 0)
      Live.set(K);
    else if (isAddress(V))
      for (const Use &Op : cast<User>(V)->operands())
        use(Op.get(), Live);
  };
  DenseMap<const BasicBlock *, BitVector> LiveIn;
  for (const BasicBlock &BB : F)
    LiveIn[&BB] = BitVector(N);
  auto liveOut = [&](const BasicBlock *BB) {
    BitVector Out(N);
    for (const BasicBlock *S : successors(BB)) {
      BitVector In = LiveIn[S];
      for (const PHINode &P : S->phis()) {
        int K = idx(&P);
        if (K >= 0)
          In.reset(K);
        use(P.getIncomingValueForBlock(BB), In);
      }
      Out |= In;
    }
    return Out;
  };
  // Walks BB backwards from its live-out set; calls Visit(live set after I) at each DPU call.
  auto walk = [&](const BasicBlock *BB, BitVector Live, auto Visit) {
    for (auto It = BB->rbegin(); It != BB->rend(); ++It) {
      const Instruction &I = *It;
      int D = idx(&I);
      if (D >= 0)
        Live.reset(D);
      if (isa<PHINode>(I) || isAddress(&I))
        continue;
      if (const auto *CB = dyn_cast<CallBase>(&I))
        if (isDpuCall(*CB))
          Visit(Live);
      for (const Use &U : I.operands())
        use(U.get(), Live);
    }
    return Live;
  };
  std::vector<const BasicBlock *> PO;
  for (const BasicBlock *BB : post_order(&F))
    PO.push_back(BB);
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const BasicBlock *BB : PO) {
      BitVector In = walk(BB, liveOut(BB), [](const BitVector &) {});
      if (In != LiveIn[BB]) {
        LiveIn[BB] = In;
        Changed = true;
      }
    }
  }
  uint64_t Best = 0;
  for (const BasicBlock *BB : PO)
    walk(BB, liveOut(BB), [&](const BitVector &Live) {
      uint64_t S = 0;
      for (unsigned K : Live.set_bits())
        S += Words[K];
      Best = std::max(Best, S);
    });
  return Best;
}

} // namespace

// UPMEM's stdio.c (SDK 2020.2.1) by the rules above: printf keeps a va_list
// (4 bytes) and a 64-bit argument copy (8) in its frame, about four values
// live across its calls (2 pairs, 16) and d22 (8): 40 bytes; its byte writer
// calls the cache flush (8), a leaf (0): 48 in all.  puts and putchar keep one
// value across their calls (8) and d22 (8), then the byte writer (8): 24.
// OpenPIM's printf encodes a log record instead (dpu/runtime/stdio.c).
uint64_t sdkRoutineStack(StringRef Name) {
  if (Name == "printf")
    return 48;
  if (Name == "puts" || Name == "putchar")
    return 24;
  return 0;
}

bool isEmulationOnly(const Function &F) { return F.getName().startswith("__op_") || isSdkInline(F.getName()); }

bool isDpuCall(const CallBase &CB) {
  if (CB.isInlineAsm())
    return false;
  if (const auto *MI = dyn_cast<MemIntrinsic>(&CB))
    return memIntrinsicCalls(*MI);
  if (isa<IntrinsicInst>(CB))
    return false;
  if (const Function *Callee = dyn_cast<Function>(CB.getCalledOperand()->stripPointerCasts()))
    return !isEmulationOnly(*Callee);
  // the accounting pass's switch points and race checks call through a
  // pointer the runtime keeps in an __op_ global (timing/op_points.h)
  if (const auto *L = dyn_cast<LoadInst>(CB.getCalledOperand()->stripPointerCasts()))
    if (const auto *G = dyn_cast<GlobalVariable>(L->getPointerOperand()->stripPointerCasts());
        G && G->getName().startswith("__op_"))
      return false;
  return !isServiceCall(CB);
}

DpuFrame computeDpuFrame(const Function &F, const DataLayout &DL) {
  DpuFrame R;
  R.Declared = sdkRoutineStack(F.getName());
  uint64_t MaxAlign = 1;

  // Allocas: the ones without lifetime markers laid out in order, the others
  // as the largest total live at one point.
  SmallVector<const AllocaInst *, 16> Allocas, Marked;
  SmallVector<uint64_t, 16> MarkedWeight;
  SmallVector<std::pair<uint64_t, uint64_t>, 4> Copies; // by-value copies: size, alignment
  DenseMap<const AllocaInst *, bool> HasMarker;
  for (const Instruction &I : instructions(F)) {
    if (const auto *AI = dyn_cast<AllocaInst>(&I)) {
      if (!AI->isStaticAlloca()) {
        if (!R.Dynamic)
          R.Dynamic = AI;
        continue;
      }
      Allocas.push_back(AI);
    } else if (const auto *CB = dyn_cast<CallBase>(&I)) {
      if (const auto *II = dyn_cast<IntrinsicInst>(CB); II && II->getIntrinsicID() == Intrinsic::lifetime_start)
        if (const auto *AI = dyn_cast<AllocaInst>(II->getArgOperand(1)->stripPointerCasts()))
          HasMarker[AI] = true;
      if (!isDpuCall(*CB))
        continue;
      R.Calls = true;
      if (!isa<IntrinsicInst>(CB)) {
        R.Outgoing = std::max(R.Outgoing, stackArgBytes(*CB, DL));
        for (unsigned A = 0; A < CB->arg_size(); A++)
          if (CB->paramHasAttr(A, Attribute::ByVal)) {
            Type *T = CB->getParamByValType(A);
            uint64_t Al = std::max<uint64_t>(CB->getParamAlign(A).valueOrOne().value(), DL.getABITypeAlign(T).value());
            Copies.push_back({std::max<uint64_t>(1, DL.getTypeAllocSize(T).getFixedSize()), Al});
          }
      }
    }
  }
  R.Calls |= callsRuntimeRoutines(F);

  uint64_t Off = 0;
  if (R.Calls) {
    R.SavedWords = wordsLiveAcrossCalls(F, DL);
    uint64_t InRegs = std::min<uint64_t>(R.SavedWords, CalleeSavedWords);
    R.CalleeSaved = (InRegs + 1) / 2 * 8;
    R.Spills = 4 * (R.SavedWords - InRegs);
    Off = R.CalleeSaved;
    if (R.CalleeSaved)
      MaxAlign = 8;
  }
  uint64_t MarkedAlign = 1;
  uint64_t LocalsStart = Off;
  for (const AllocaInst *AI : Allocas) {
    uint64_t Size = DL.getTypeAllocSize(AI->getAllocatedType()).getFixedSize() *
                    cast<ConstantInt>(AI->getArraySize())->getZExtValue();
    Size = std::max<uint64_t>(Size, 1);
    uint64_t Al = std::max<uint64_t>(std::min<uint64_t>(DL.getPrefTypeAlign(AI->getAllocatedType()).value(), StackAlign),
                                     AI->getAlign().value());
    MaxAlign = std::max(MaxAlign, Al);
    if (HasMarker.lookup(AI)) {
      Marked.push_back(AI);
      MarkedWeight.push_back(alignUp(Size, Al));
      MarkedAlign = std::max(MarkedAlign, Al);
    } else {
      Off = alignUp(Off, Al) + Size;
    }
  }
  if (!Marked.empty())
    Off = alignUp(Off, MarkedAlign) + largestLiveTotal(F, Marked, MarkedWeight);
  R.Locals = Off - LocalsStart;
  uint64_t ByvalStart = Off;
  for (const auto &C : Copies) {
    Off = alignUp(Off, C.second) + C.first;
    MaxAlign = std::max(MaxAlign, C.second);
  }
  R.Byval = Off - ByvalStart;
  if (R.Spills)
    Off = alignUp(Off, 4) + R.Spills;
  Off += R.Outgoing;
  if (R.Calls)
    R.Total = alignUp(Off, StackAlign) + D22Save;
  else
    R.Total = Off ? alignUp(Off, MaxAlign) : 0;
  return R;
}

} // namespace openpim
