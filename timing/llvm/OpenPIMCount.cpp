/* SPDX-License-Identifier: MIT */
//===- OpenPIMCount.cpp - DPU instruction accounting for native DPU code ---===//
//
// OpenPIM compiles UPMEM DPU programs natively for x86-64.  To model DPU time
// the timing layer needs the number of DPU instructions each tasklet executes.
// This new-pass-manager plugin (clang-14 -fpass-plugin=libOpenPIMCount.so)
// runs at the optimizer's last extension point, so it sees the optimised IR,
// and adds to the external global `uint64_t __op_icount` (defined by the DPU
// runtime; the scheduler attributes its increase to the running tasklet at
// every switch):
//
//  * per basic block, the statically estimated number of DPU instructions the
//    UPMEM compiler would emit for it, with one non-atomic load/add/store at
//    the start of the block.  Calls can switch tasklets, so a block containing
//    calls is cut into segments at each call: the instructions up to and
//    including the call are added at the start of the block, those after it
//    right after the call.  The scheduler then sees exactly what was executed.
//  * data-dependent costs computed at run time next to the operation:
//      - 32-bit multiply: base + per_bit * bitlen(min(ua, ub))  (__mulsi3 mul_steps)
//      - 32-bit udiv/urem: base + per_step * max(0, clz(d) - clz(n) + 1)  (__udiv32)
//      - 32-bit sdiv/srem: the same on |n|, |d|, + signed extra  (__div32 wrapper)
//      - variable-size memcpy/memmove/memset: base + size/bytes-per-instr
//    These are summed per segment and added with one more load/add/store
//    before the segment's call or terminator.
//
// Costs that belong to the machine description (multiplies, divisions,
// soft-float, conversions, compares: timing/timing.h struct op_op_costs) are
// not compiled in: the code reads them from the table `uint32_t __op_costs[]`
// (slots: timing/op_cost_slots.h), defined by the DPU runtime and filled by
// the worker from the description, so that a what-if description changes the
// counts of an already built program.  Those loads are !invariant.load, and
// LICM hoists them out of loops; the static part of a block stays a constant.
//
// Integer division never traps on x86 any more: the divisor is replaced by 1
// when it is 0 (and, for signed division, when the operation is MIN / -1), and
// the result is selected afterwards:
//  * MIN / -1 -> MIN and MIN % -1 -> 0, which is what the DPU runtime returns
//    (__div32 negates both operands and divides 0x80000000 by 1).
//  * x / 0: the DPU runtime does not return a value: __udiv32 tests the
//    divisor with `clz ..., max, __udiv32_division_by_zero` and executes
//    `fault 2` (__FAULT_DIVISION_BY_ZERO__; SDK docs, "Exceptions": "fault 2
//    (Division by Zero) Raised when the dpu tries to compute a division by
//    zero"); __udiv64 does the same.  Hence:
//      - if the program (its DPU runtime) defines `void __op_div_by_zero(void)`
//        it is called first (weak reference; it is meant to put the DPU in
//        fault and not return);
//      - otherwise, or if it returns, the result is what a restoring div_step
//        ladder yields for a zero divisor: quotient all ones (0xFFFFFFFF),
//        remainder = dividend.  Same for 8/16/64-bit widths.
//
//    (Facts from UPMEM's DPU compiler-rt, compiler-rt/lib/builtins/dpu/
//    div32.c and udiv64.c in upmem/llvm-project, read, not copied.)  The
//    count of a division by zero is the formula's value (clz(0) = 32).
//
// Static costs come from op_costs.def (one table, documented there), the
// others from __op_costs; README.md lists the rules.  Refinements over "1 per IR instruction": a compare feeding the
// block's conditional branch is fused with it; an unconditional branch into
// the block laid out next is free; zext/sext folded into byte/half loads or
// into zeroext/signext arguments, and a 0xff/0xffff mask of a single-use
// loaded word (an lbu/lhu), are free; so are a compare's zext (the compare
// writes 0/1) and a constant shift whose only use is an add (lsl_add/lsr_add/
// lsl_sub: the add is the fused instruction), and the mask/shift that picks
// byte 0 or 1 (or the low half) for byte multiplies only (mul_uh_ul... select
// their bytes); a function that calls pays a 3
// instruction frame; 64-bit integer values that only serve address arithmetic
// or loop counting (x86 widens int indices and induction variables to i64;
// DPU pointers are 32-bit) are costed as 32-bit.
// Functions annotated __attribute__((annotate("openpim_nocount"))) and naked
// functions are left alone (neither counted nor division-guarded).
//
// Emulation only, not counted (README.md, "Switch points and race checks"):
// switch points where the running tasklet may give way to another
// (accesses to memory other tasklets may use that repeat an address, back
// edges), and, with -openpim-racecheck, a report of every such access to the
// worker's race detector; with -openpim-wram-start, a check that no load or
// store reaches the bytes below WRAM's first byte that share its page (WRAM
// that does not start on a page boundary, v1B's: the page protection cannot
// take them away).
//
// Keeping the counter fast: the counter's loads/stores carry an alias scope
// that every other load/store/memcpy of the function is declared noalias with
// (the program never touches __op_icount itself), memory-effect attributes
// that no longer hold (readnone/readonly... on functions and call sites) are
// dropped, and at -O1 and above LICM runs once more, so that inside loops
// without calls the counter lives in a register.
//===----------------------------------------------------------------------===//

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Triple.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/KnownBits.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Transforms/Scalar/LICM.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

// The slots of the run-time cost table __op_costs (shared with the DPU runtime
// and the worker, which fills it from the machine description).
#include "../op_cost_slots.h"
// The runtime globals and flags of switch points and race checks.
#include "../op_points.h"

using namespace llvm;

namespace {

namespace cost {
#define OP_COST(NAME, VALUE, DOC) constexpr uint64_t NAME = VALUE;
#include "op_costs.def"
} // namespace cost

constexpr const char *CounterName = "__op_icount";
constexpr const char *CostTableName = OP_COSTS_SYMBOL; // uint32_t __op_costs[OP_COST_COUNT]
constexpr const char *DivZeroHookName = "__op_div_by_zero";
constexpr const char *NoCountAnnotation = "openpim_nocount";
constexpr unsigned MramAddrSpace = 256; // __mram_ptr (x86 GS segment)

// Number of 32-bit words of a scalar type (pointers are 32-bit on the DPU).
uint64_t wordsOf(Type *T) {
  if (T->isPointerTy())
    return 1;
  if (T->isIntegerTy())
    return (T->getIntegerBitWidth() + 31) / 32;
  if (T->isFloatingPointTy())
    return (T->getPrimitiveSizeInBits().getFixedSize() + 31) / 32;
  return 1;
}

bool isDoubleLike(Type *T) { return T->isFloatingPointTy() && !T->isFloatTy() && !T->isHalfTy() && !T->isBFloatTy(); }

// Cost of x * c as UPMEM's DPU backend lowers a multiply by a constant
// (DPUTargetLowering::canUseMulByConstant in upmem/llvm-project, read, not
// copied; Hacker's Delight's "group method"): 0 and 1 cost nothing, -1 one
// negation; otherwise, on |c| with its bit 0 set aside (an odd constant starts
// from x itself), every set bit is one lsl/lsl_add term, except that a run of
// three or more set bits becomes two terms (add at the bit above the run,
// subtract at its lowest bit); a negative c adds one negation.  The backend
// keeps this sequence when it is at most MUL_CONST_MAX_TERMS instructions
// (i.e. fewer than its 7-instruction __mulsi3 call sequence + 1), else it calls
// __mulsi3 (see fitsConstMul).
uint64_t constMulCost(int64_t C) {
  if (C == 0 || C == 1)
    return 0;
  if (C == -1)
    return 1;
  // bit 0 set aside: an odd constant starts from x itself, at no cost
  uint64_t A = (C < 0 ? 0 - uint64_t(C) : uint64_t(C)) & ~uint64_t(1);
  uint64_t Terms = 0, Run = 0;
  for (unsigned Bit = 0; Bit < 63; Bit++) {
    if (A & (uint64_t(1) << Bit)) {
      Terms++;
      Run++;
      continue;
    }
    if (Run >= 3)
      Terms -= Run - 2; // the run's terms become an add and a subtract
    Run = 0;
  }
  // (an even constant's first term is a plain lsl, the others lsl_add/lsl_sub)
  return Terms * cost::MUL_CONST_PER_TERM + (C < 0 ? 1 : 0);
}

// Whether a multiply by C is lowered to its shift/add sequence: for 32-bit
// multiplies, when the sequence is short enough (see constMulCost); 64-bit
// multiplies keep the older bound |c| <= 255 (__muldi3 is much dearer, and
// the backend's 64-bit lowering was not read).
bool fitsConstMul(const ConstantInt *C, bool Wide) {
  if (C->getBitWidth() > 64)
    return false;
  int64_t V = C->getSExtValue();
  if (Wide)
    return V >= -255 && V <= 255;
  return constMulCost(V) <= cost::MUL_CONST_MAX_TERMS;
}

// The part of an instruction's or a segment's cost that comes from the
// run-time table __op_costs: a coefficient per slot, plus multiplies by small
// constants, which cost the cheaper of their shift/add sequence and the
// table's multiply (what a compiler for that machine would pick).
struct ConstMul {
  uint64_t ShiftAdd;  // static shift/add cost
  uint64_t Wide;      // 0: 32-bit multiply; else R*R int64_mul (R 64-bit words)
  unsigned Bits;      // bitlen(|c|) (32-bit multiply: base + per_bit * Bits)
  bool Neg;           // c < 0: one more instruction (negation)
  uint64_t Times;     // occurrences
};

struct TableCost {
  std::array<uint64_t, OP_COST_COUNT> Slot{};
  SmallVector<ConstMul, 1> ConstMuls;

  bool empty() const {
    for (uint64_t C : Slot)
      if (C)
        return false;
    return ConstMuls.empty();
  }
  void clear() {
    Slot.fill(0);
    ConstMuls.clear();
  }
  void scale(uint64_t N) {
    for (uint64_t &C : Slot)
      C *= N;
    for (ConstMul &CM : ConstMuls)
      CM.Times *= N;
  }
  void add(const TableCost &O) {
    for (unsigned K = 0; K < OP_COST_COUNT; K++)
      Slot[K] += O.Slot[K];
    ConstMuls.append(O.ConstMuls.begin(), O.ConstMuls.end());
  }
};

enum class Dyn { None, Mul32, Mul16, Div, MemOp };

struct Segment {
  Instruction *After = nullptr; // segment starts after this call (null: block start)
  Instruction *End = nullptr;   // call or terminator ending the segment
  uint64_t Static = 0;
  TableCost Table;              // added with Static (loop-invariant: hoisted by LICM)
  SmallVector<std::pair<Instruction *, Dyn>, 4> Dynamic;
};

// Globals the module may write while the DPU runs: a store, an atomic or a
// mem* destination reaches them, or their address goes where the pass cannot
// follow it (a call, a stored pointer, an integer, a phi).  A global that is
// only loaded (__host arguments, tables the host fills) cannot change during
// a launch, unless another unit writes it.
class WrittenGlobals {
public:
  bool written(const GlobalVariable *GV) {
    auto It = Memo.find(GV);
    if (It != Memo.end())
      return It->second;
    bool W = writtenThrough(GV, 0);
    Memo[GV] = W;
    return W;
  }

private:
  DenseMap<const GlobalVariable *, bool> Memo;

  // An aggregate only in llvm.used / llvm.compiler.used (__host, __keep):
  // it keeps the global in the image, nothing reads it.
  static bool onlyKeepsAlive(const User *Aggregate) {
    for (const User *U : Aggregate->users()) {
      auto *G = dyn_cast<GlobalVariable>(U);
      if (!G || !(G->getName() == "llvm.used" || G->getName() == "llvm.compiler.used"))
        return false;
    }
    return true;
  }

  static bool writtenThrough(const Value *V, unsigned Depth) {
    if (Depth > 8)
      return true;
    for (const Use &U : V->uses()) {
      const User *Us = U.getUser();
      if (auto *L = dyn_cast<LoadInst>(Us)) {
        if (L->getPointerOperand() != V)
          return true;
      } else if (auto *S = dyn_cast<StoreInst>(Us)) {
        (void)S;
        return true; /* written, or its address stored */
      } else if (auto *CE = dyn_cast<ConstantExpr>(Us)) {
        if (!(CE->getOpcode() == Instruction::GetElementPtr || CE->isCast()) || writtenThrough(CE, Depth + 1))
          return true;
      } else if (isa<GetElementPtrInst>(Us) || isa<BitCastInst>(Us) || isa<AddrSpaceCastInst>(Us)) {
        if (writtenThrough(Us, Depth + 1))
          return true;
      } else if (auto *MT = dyn_cast<MemTransferInst>(Us)) {
        if (MT->getRawSource() != V || MT->getRawDest() == V)
          return true;
      } else if (auto *II = dyn_cast<IntrinsicInst>(Us)) {
        if (!II->isLifetimeStartOrEnd() && !isa<DbgInfoIntrinsic>(II))
          return true;
      } else if (isa<ConstantAggregate>(Us)) {
        if (!onlyKeepsAlive(Us))
          return true; /* in another global's initializer: a pointer that may be written through */
      } else if (!isa<ICmpInst>(Us)) {
        return true; /* calls, phis, selects, ptrtoint, ...: not followed */
      }
    }
    return false;
  }
};

// What the instrumenter adds besides the count (emulation only: none of it is
// a DPU instruction).
struct Options {
  bool SwitchPoints = false; // where the running tasklet may give way to another
  bool RaceCheck = false;    // every shared access reported to the race detector
  uint32_t WramStart = 0;    // WRAM's first byte, when it is not on a page boundary: accesses below it fault
  WrittenGlobals *Written = nullptr; // the module's: loads of unwritten globals need no switch point
};

class Instrumenter {
public:
  Instrumenter(Module &M, Function &F, MDNode *CounterScope, Options Opts = Options())
      : M(M), F(F), DL(M.getDataLayout()), Ctx(M.getContext()),
        I64(Type::getInt64Ty(Ctx)), I32(Type::getInt32Ty(Ctx)), CounterScope(CounterScope), Opts(Opts) {}

  bool run() {
    separateFromCounter();
    computeAddrWidth();
    for (BasicBlock &BB : F)
      if (auto *Br = dyn_cast<BranchInst>(BB.getTerminator()))
        if (Br->isUnconditional() && Br->getSuccessor(0) != &BB)
          FallThroughPred.try_emplace(Br->getSuccessor(0), &BB);
    HasCalls = false;
    for (Instruction &I : instructions(F))
      if (isBoundaryCall(I) && !isSdkInlineCall(cast<CallBase>(I)))
        HasCalls = true;

    std::vector<BasicBlock *> Blocks;
    for (BasicBlock &BB : F)
      Blocks.push_back(&BB);
    if (Opts.SwitchPoints || Opts.RaceCheck || Opts.WramStart % PageBytes) {
      // on the CFG as compiled (planning changes nothing): loops and back edges
      DominatorTree DT(F);
      LoopInfo LI(DT);
      if (Opts.SwitchPoints || Opts.RaceCheck)
        planAccessPoints(DT, LI);
      if (Opts.WramStart % PageBytes)
        planWramLowChecks(DT, LI);
    }

    bool Changed = false;
    for (BasicBlock *BB : Blocks)
      Changed |= instrumentBlock(*BB, BB == &F.getEntryBlock());

    for (auto &Site : HookSites)
      insertDivZeroHook(Site.first, Site.second);
    for (const RaceSite &R : RaceSites)
      insertRaceCheck(R);
    for (const auto &P : NearBack)
      insertSwitchPoint(P.first, P.second, 0);
    for (Instruction *T : FarPoints)
      insertSwitchPoint(T, 0, 1);
    // edges into loops, split once: (predecessor's terminator, header) -> the new block's branch
    DenseMap<std::pair<Instruction *, BasicBlock *>, Instruction *> LoopEntries;
    for (WramLowSite &W : WramLowSites) {
      if (!W.Preheader) {
        insertWramLowCheck(W.At, W.Ptr, W.At->getDebugLoc());
        continue;
      }
      Instruction *&Entry = LoopEntries[{W.Preheader, W.Header}];
      if (!Entry)
        Entry = SplitEdge(W.Preheader->getParent(), W.Header)->getTerminator();
      W.Preheader = Entry;
      insertWramLowCheck(Entry, firstAddress(W), W.At->getDebugLoc());
    }
    return Changed || !HookSites.empty() || !RaceSites.empty() || !NearBack.empty() || !FarPoints.empty() ||
           !WramLowSites.empty();
  }

  // IRAM estimate of F, known after run(): the static DPU instructions of all
  // its blocks (each counted once), and the runtime routines it calls (name ->
  // their own size, which a program pays once whoever calls them).
  uint64_t size() const { return Size; }
  const std::map<std::string, uint64_t> &routines() const { return Routines; }

private:
  Module &M;
  Function &F;
  const DataLayout &DL;
  LLVMContext &Ctx;
  IntegerType *I64, *I32;
  MDNode *CounterScope; // alias scope list of the counter's accesses
  Options Opts;
  bool HasCalls = false;
  uint64_t Size = 0;
  std::map<std::string, uint64_t> Routines;
  DenseSet<const Value *> AddrWidth; // i64 values that are 32-bit on the DPU
  // For each block, the predecessor assumed to be laid out right before it:
  // the first one (in function order) that reaches it by an unconditional
  // branch.  A loop header is entered from its preheader that way, one arm of
  // an if/else falls into the join, the other jumps.
  DenseMap<const BasicBlock *, const BasicBlock *> FallThroughPred;
  SmallVector<std::pair<Value *, Instruction *>, 4> HookSites;
  TableCost Cur; // table part of the instruction being costed (instructionCost)
  DenseMap<std::pair<BasicBlock *, unsigned>, LoadInst *> SlotLoads; // per block

  // Charges N times the table's slot K to the current instruction.
  uint64_t table(unsigned K, uint64_t N = 1) {
    Cur.Slot[K] += N;
    return 0;
  }

  // ---------------------------------------------------------------- helpers
  static bool isBoundaryCall(const Instruction &I) {
    const auto *CB = dyn_cast<CallBase>(&I);
    if (!CB || isa<IntrinsicInst>(CB) || CB->isInlineAsm())
      return false;
    return true;
  }

  // Functions that UPMEM's SDK defines static inline around one instruction
  // (mutex.h: mutex_lock = `acquire`, mutex_unlock = `release`,
  // mutex_trylock = `acquire` + `move`): in OpenPIM they are runtime calls
  // (a tasklet switch point), but on the DPU there is no call, return or
  // frame; the runtime charges their instructions (rt_mutex_lock/unlock of
  // the machine description) through op_dpu_trace_runtime.
  static bool isSdkInlineCall(const CallBase &CB) {
    const Function *Callee = CB.getCalledFunction();
    if (!Callee)
      return false;
    StringRef N = Callee->getName();
    return N == "mutex_lock" || N == "mutex_unlock" || N == "mutex_trylock";
  }

  Constant *counter() {
    GlobalVariable *GV = M.getGlobalVariable(CounterName, /*AllowInternal=*/true);
    if (!GV) {
      GV = new GlobalVariable(M, I64, /*isConstant=*/false, GlobalValue::ExternalLinkage,
                              nullptr, CounterName);
      // In an executable (non-PIC, or PIE) the runtime's definition is local.
      if (M.getPICLevel() == PICLevel::NotPIC || M.getPIELevel() != PIELevel::Default)
        GV->setDSOLocal(true);
    }
    if (GV->getValueType() != I64)
      return ConstantExpr::getBitCast(GV, I64->getPointerTo(GV->getAddressSpace()));
    return GV;
  }

  void addToCounter(IRBuilder<> &B, Value *Amount) {
    Constant *C = counter();
    LoadInst *L = B.CreateLoad(I64, C, "opc.ld");
    Value *S = B.CreateAdd(L, Amount, "opc.add");
    StoreInst *St = B.CreateStore(S, C);
    L->setMetadata(LLVMContext::MD_alias_scope, CounterScope);
    St->setMetadata(LLVMContext::MD_alias_scope, CounterScope);
  }

  // uint32_t __op_costs[OP_COST_COUNT], defined by the DPU runtime and filled
  // by the worker before the program runs.
  Constant *costSlotPtr(unsigned K) {
    GlobalVariable *GV = M.getGlobalVariable(CostTableName, /*AllowInternal=*/true);
    ArrayType *AT = ArrayType::get(I32, OP_COST_COUNT);
    if (!GV) {
      GV = new GlobalVariable(M, AT, /*isConstant=*/false, GlobalValue::ExternalLinkage, nullptr,
                              CostTableName);
      GV->setAlignment(Align(4));
      if (M.getPICLevel() == PICLevel::NotPIC || M.getPIELevel() != PIELevel::Default)
        GV->setDSOLocal(true);
    }
    if (GV->getValueType() == AT)
      return ConstantExpr::getInBoundsGetElementPtr(
          AT, GV, ArrayRef<Constant *>{ConstantInt::get(I64, 0), ConstantInt::get(I64, K)});
    Constant *Base = ConstantExpr::getBitCast(GV, I32->getPointerTo(GV->getAddressSpace()));
    return ConstantExpr::getGetElementPtr(I32, Base, ConstantInt::get(I64, K));
  }

  // The value of slot K (i32) at the builder's position.  The table does not
  // change while the program runs: the load is !invariant.load, so LICM hoists
  // it (and what is computed from it) out of loops.  One load per slot and block.
  Value *slot(IRBuilder<> &B, unsigned K) {
    BasicBlock *BB = B.GetInsertBlock();
    Instruction *At = B.GetInsertPoint() == BB->end() ? nullptr : &*B.GetInsertPoint();
    LoadInst *&L = SlotLoads[{BB, K}];
    if (L && L->getParent() == BB && At && L->comesBefore(At))
      return L;
    L = B.CreateAlignedLoad(I32, costSlotPtr(K), Align(4), "opc.cost");
    L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(Ctx, None));
    return L;
  }

  // The table part of a cost, as an i64 value at the builder's position (null if none).
  Value *tableAmount(IRBuilder<> &B, const TableCost &T) {
    Value *Sum = nullptr;
    auto Add = [&](Value *V) { Sum = Sum ? B.CreateAdd(Sum, V) : V; };
    for (unsigned K = 0; K < OP_COST_COUNT; K++) {
      if (!T.Slot[K])
        continue;
      Value *V = B.CreateZExt(slot(B, K), I64);
      Add(T.Slot[K] == 1 ? V : B.CreateMul(V, ConstantInt::get(I64, T.Slot[K])));
    }
    for (const ConstMul &CM : T.ConstMuls) {
      Value *Alt;
      if (CM.Wide) {
        Alt = B.CreateZExt(slot(B, OP_COST_INT64_MUL), I64);
        if (CM.Wide != 1)
          Alt = B.CreateMul(Alt, ConstantInt::get(I64, CM.Wide));
      } else {
        Alt = B.CreateZExt(slot(B, OP_COST_INT32_MUL_BASE), I64);
        if (CM.Bits)
          Alt = B.CreateAdd(Alt, B.CreateMul(B.CreateZExt(slot(B, OP_COST_INT32_MUL_PER_BIT), I64),
                                             ConstantInt::get(I64, CM.Bits)));
      }
      if (CM.Neg)
        Alt = B.CreateAdd(Alt, ConstantInt::get(I64, 1));
      Value *V = B.CreateBinaryIntrinsic(Intrinsic::umin, ConstantInt::get(I64, CM.ShiftAdd), Alt);
      Add(CM.Times == 1 ? V : B.CreateMul(V, ConstantInt::get(I64, CM.Times)));
    }
    return Sum;
  }

  // The program never touches __op_icount through its own loads and stores:
  // say so with scoped-noalias metadata, so that the counter can live in a
  // register inside loops (calls keep clobbering it: they may count).
  void separateFromCounter() {
    GlobalVariable *GV = M.getGlobalVariable(CounterName, /*AllowInternal=*/true);
    for (Instruction &I : instructions(F)) {
      Value *Ptr = nullptr;
      if (auto *L = dyn_cast<LoadInst>(&I)) {
        if (L->isVolatile())
          continue;
        Ptr = L->getPointerOperand();
      } else if (auto *S = dyn_cast<StoreInst>(&I)) {
        if (S->isVolatile())
          continue;
        Ptr = S->getPointerOperand();
      } else if (auto *A = dyn_cast<AtomicRMWInst>(&I)) {
        Ptr = A->getPointerOperand();
      } else if (auto *X = dyn_cast<AtomicCmpXchgInst>(&I)) {
        Ptr = X->getPointerOperand();
      } else if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
        if (MI->isVolatile())
          continue;
        Ptr = MI->getRawDest();
        if (auto *MT = dyn_cast<MemTransferInst>(MI))
          if (GV && getUnderlyingObject(MT->getRawSource()) == GV)
            continue;
      } else {
        continue;
      }
      if (GV && getUnderlyingObject(Ptr) == GV)
        continue;
      I.setMetadata(LLVMContext::MD_noalias,
                    MDNode::concatenate(I.getMetadata(LLVMContext::MD_noalias), CounterScope));
    }
  }

  uint64_t intWords(const Value *V) {
    if (AddrWidth.count(V))
      return 1;
    return wordsOf(V->getType()->getScalarType());
  }

  // ------------------------------------------- 64-bit address-like values
  // x86 IR carries indices and induction variables as i64 (pointer width);
  // on the DPU they are 32-bit.  An i64 value qualifies if every use is
  // address arithmetic (GEP index, inttoptr, trunc, compare, or another such
  // value) and it is connected to an actual address (a GEP index, inttoptr or
  // ptrtoint).
  static bool isAddrCandidate(const Instruction &I) {
    if (!I.getType()->isIntegerTy(64))
      return false;
    switch (I.getOpcode()) {
    case Instruction::Add: case Instruction::Sub: case Instruction::Mul:
    case Instruction::Shl: case Instruction::LShr: case Instruction::AShr:
    case Instruction::And: case Instruction::Or: case Instruction::Xor:
    case Instruction::PHI: case Instruction::SExt: case Instruction::ZExt:
    case Instruction::Select: case Instruction::PtrToInt:
      return true;
    default:
      return false;
    }
  }

  void computeAddrWidth() {
    SmallPtrSet<Instruction *, 32> C;
    for (Instruction &I : instructions(F))
      if (isAddrCandidate(I))
        C.insert(&I);
    for (;;) {
      SmallVector<Instruction *, 8> Drop;
      for (Instruction *V : C) {
        for (User *U : V->users()) {
          auto *UI = dyn_cast<Instruction>(U);
          bool OK = UI && (isa<GetElementPtrInst>(UI) || isa<IntToPtrInst>(UI) ||
                           isa<TruncInst>(UI) || isa<ICmpInst>(UI) ||
                           (isa<SwitchInst>(UI) && UI->getOperand(0) == V) || C.count(UI));
          if (!OK) {
            Drop.push_back(V);
            break;
          }
        }
      }
      if (Drop.empty())
        break;
      for (Instruction *V : Drop)
        C.erase(V);
    }
    SmallVector<Instruction *, 16> Work;
    // Seeds: values that make an address, and counting induction variables
    // (phi of constants and phi +- constant) such as the trip counters of
    // unrolled loops.
    for (Instruction *V : C) {
      bool Seed = isa<PtrToIntInst>(V) || isCountingPhi(V, C);
      for (User *U : V->users())
        if (isa<GetElementPtrInst>(U) || isa<IntToPtrInst>(U))
          Seed = true;
      if (Seed && AddrWidth.insert(V).second)
        Work.push_back(V);
    }
    // Closure over operands and users inside C, and across compares: the
    // bound an index or counter is compared with is of the same width.
    auto Visit = [&](Value *X) {
      auto *XI = dyn_cast<Instruction>(X);
      if (XI && C.count(XI) && AddrWidth.insert(XI).second)
        Work.push_back(XI);
    };
    while (!Work.empty()) {
      Instruction *V = Work.pop_back_val();
      for (Value *Op : V->operands())
        Visit(Op);
      for (User *U : V->users()) {
        Visit(U);
        if (auto *Cmp = dyn_cast<ICmpInst>(U))
          for (Value *Op : Cmp->operands())
            Visit(Op);
      }
    }
  }

  static bool isCountingPhi(Instruction *V, const SmallPtrSetImpl<Instruction *> &C) {
    auto *Phi = dyn_cast<PHINode>(V);
    if (!Phi)
      return false;
    bool Steps = false;
    for (Value *In : Phi->incoming_values()) {
      if (isa<Constant>(In))
        continue;
      auto *BO = dyn_cast<BinaryOperator>(In);
      if (!BO || !C.count(BO) ||
          (BO->getOpcode() != Instruction::Add && BO->getOpcode() != Instruction::Sub))
        return false;
      if (!((BO->getOperand(0) == Phi && isa<Constant>(BO->getOperand(1))) ||
            (BO->getOperand(1) == Phi && isa<Constant>(BO->getOperand(0)))))
        return false;
      Steps = true;
    }
    return Steps;
  }

  // ----------------------------------------------------------- static cost
  bool fusedWithBranch(const Instruction &I) {
    if (!I.hasOneUse())
      return false;
    const auto *Br = dyn_cast<BranchInst>(*I.user_begin());
    return Br && Br->isConditional() && Br->getParent() == I.getParent();
  }

  uint64_t loadStoreCost(Type *T, unsigned AS, bool IsStore) {
    if (AS == MramAddrSpace)
      return IsStore ? cost::MRAM_STORE : cost::MRAM_LOAD;
    uint64_t Bytes = DL.getTypeStoreSize(T).getKnownMinSize();
    uint64_t N = (Bytes + 7) / 8;
    return (N ? N : 1) * cost::LOAD_STORE_PER_8B;
  }

  uint64_t memIntrinsicCost(const MemIntrinsic &MI, Dyn &D) {
    bool IsSet = isa<MemSetInst>(MI);
    uint64_t Per = IsSet ? cost::MEMSET_BYTES_PER_INSTR : cost::MEMCPY_BYTES_PER_INSTR;
    if (auto *Len = dyn_cast<ConstantInt>(MI.getLength())) {
      uint64_t L = Len->getLimitedValue();
      return cost::MEMCPY_BASE + (L + Per - 1) / Per;
    }
    D = Dyn::MemOp;
    return 0;
  }

  uint64_t intrinsicCost(IntrinsicInst &II, Dyn &D) {
    if (auto *MI = dyn_cast<MemIntrinsic>(&II))
      return memIntrinsicCost(*MI, D);
    Type *T = II.getType()->getScalarType();
    uint64_t W = T->isVoidTy() ? 1 : wordsOf(T);
    switch (II.getIntrinsicID()) {
    case Intrinsic::dbg_declare: case Intrinsic::dbg_value: case Intrinsic::dbg_label:
    case Intrinsic::dbg_addr: case Intrinsic::lifetime_start: case Intrinsic::lifetime_end:
    case Intrinsic::assume: case Intrinsic::expect: case Intrinsic::expect_with_probability:
    case Intrinsic::invariant_start: case Intrinsic::invariant_end:
    case Intrinsic::launder_invariant_group: case Intrinsic::strip_invariant_group:
    case Intrinsic::experimental_noalias_scope_decl: case Intrinsic::var_annotation:
    case Intrinsic::ptr_annotation: case Intrinsic::annotation: case Intrinsic::sideeffect:
    case Intrinsic::donothing: case Intrinsic::pseudoprobe: case Intrinsic::objectsize:
    case Intrinsic::is_constant: case Intrinsic::prefetch:
      return 0;
    case Intrinsic::ctlz: case Intrinsic::ctpop:
      return W == 1 ? 1 : 2 * W - 1; // clz / cao, combined per word
    case Intrinsic::cttz:
      return 3 * W;
    case Intrinsic::bswap:
      return 4 * W;
    case Intrinsic::bitreverse:
      return 16 * W;
    case Intrinsic::fshl: case Intrinsic::fshr:
      // rotate (same operands) is one rol/ror per word, a funnel shift ~3
      return II.getArgOperand(0) == II.getArgOperand(1) ? W : 3 * W;
    case Intrinsic::umin: case Intrinsic::umax: case Intrinsic::smin: case Intrinsic::smax:
    case Intrinsic::abs:
      return 2 * intWords(&II);
    case Intrinsic::uadd_with_overflow: case Intrinsic::sadd_with_overflow:
    case Intrinsic::usub_with_overflow: case Intrinsic::ssub_with_overflow:
      return wordsOf(II.getArgOperand(0)->getType()) + 1;
    case Intrinsic::umul_with_overflow: case Intrinsic::smul_with_overflow:
      if (wordsOf(II.getArgOperand(0)->getType()) > 1)
        return table(OP_COST_INT64_MUL) + 1;
      return table(OP_COST_INT32_MUL_BASE) + table(OP_COST_INT32_MUL_PER_BIT, cost::MUL32_EST_BITS) + 1;
    case Intrinsic::uadd_sat: case Intrinsic::sadd_sat: case Intrinsic::usub_sat:
    case Intrinsic::ssub_sat:
      return W + 2;
    case Intrinsic::fabs:
      return cost::FNEG;
    case Intrinsic::copysign:
      return 3;
    case Intrinsic::fma: case Intrinsic::fmuladd:
      return isDoubleLike(T) ? table(OP_COST_DOUBLE_MUL) + table(OP_COST_DOUBLE_ADD)
                             : table(OP_COST_FLOAT_MUL) + table(OP_COST_FLOAT_ADD);
    case Intrinsic::sqrt:
      return table(isDoubleLike(T) ? OP_COST_DOUBLE_DIV : OP_COST_FLOAT_DIV);
    case Intrinsic::minnum: case Intrinsic::maxnum: case Intrinsic::minimum:
    case Intrinsic::maximum:
      return table(isDoubleLike(T) ? OP_COST_DOUBLE_COMPARE : OP_COST_FP_COMPARE) + cost::SELECT;
    case Intrinsic::floor: case Intrinsic::ceil: case Intrinsic::trunc: case Intrinsic::rint:
    case Intrinsic::nearbyint: case Intrinsic::round: case Intrinsic::roundeven:
    case Intrinsic::lround: case Intrinsic::llround: case Intrinsic::lrint: case Intrinsic::llrint:
      return table(OP_COST_CONVERSION, 2);
    case Intrinsic::stacksave: case Intrinsic::stackrestore: case Intrinsic::trap:
    case Intrinsic::debugtrap:
      return 1;
    default:
      return cost::OTHER;
    }
  }

  // The cost of a 32-bit multiply without a dynamic count: base + 16 x per_bit.
  uint64_t mul32Estimate() {
    return table(OP_COST_INT32_MUL_BASE) + table(OP_COST_INT32_MUL_PER_BIT, cost::MUL32_EST_BITS);
  }

  // How narrow a multiply operand is: the fewest bits (8, 16, or more) it is
  // known to fit as an unsigned or as a signed value, and which.
  struct NarrowKind {
    unsigned Bits;
    bool Signed;
  };
  NarrowKind narrowKind(Value *V) {
    unsigned W = V->getType()->getScalarSizeInBits();
    unsigned U = computeKnownBits(V, DL).countMaxActiveBits();
    unsigned S = W + 1 - ComputeNumSignBits(V, DL); // bits of a signed value
    for (unsigned N : {8u, 16u}) {
      if (U <= N)
        return {N, false};
      if (S <= N)
        return {N, true};
    }
    return {W, false};
  }

  // Narrow operands: the DPU's byte multiplies (UPMEM's backend,
  // DPUTargetLowering::LowerMultiplication: both operands extended from
  // <= 8 bits -> one mul_ul_ul/mul_sl_ul/mul_sl_sl; from <= 16 bits -> the
  // Mul16 sequence).  The backend looks for the extensions in its DAG; x86
  // IR has lost most of them to InstCombine (zext(trunc x) -> x & 0xffff),
  // so what the operands are known to fit stands for them.  For a multiply
  // of <= 32 bits (or a 32-bit address one) that is not by a short constant
  // (mulCost decides that first): 8 when it is one byte multiply, 16 when it
  // is the Mul16 sequence, else 0.
  unsigned narrowMulPath(const BinaryOperator &I) {
    unsigned Bits = I.getType()->getIntegerBitWidth();
    NarrowKind K0 = narrowKind(I.getOperand(0)), K1 = narrowKind(I.getOperand(1));
    if (K0.Bits <= 8 && K1.Bits <= 8)
      return 8;
    // (a constant is no extension: x * c with a long shift/add sequence calls __mulsi3)
    if (Bits == 32 && K0.Bits <= 16 && K1.Bits <= 16 && !isa<Constant>(I.getOperand(0)) &&
        !isa<Constant>(I.getOperand(1)))
      return 16;
    return 0;
  }

  // The same, for any instruction: the byte path of a multiply of <= 32 bits
  // that mulCost charges as mul8 (8) or as the Mul16 sequence (16), else 0.
  unsigned byteMulPath(const Instruction &I) {
    auto *BO = dyn_cast<BinaryOperator>(&I);
    if (!BO || BO->getOpcode() != Instruction::Mul || !BO->getType()->isIntegerTy() ||
        BO->getType()->getIntegerBitWidth() > 32)
      return 0;
    if (BO->getType()->getIntegerBitWidth() <= 8)
      return 8;
    for (const Value *Op : BO->operands())
      if (auto *C = dyn_cast<ConstantInt>(Op))
        if (fitsConstMul(C, false))
          return 0; // shift/add sequence: it needs the whole operand
    return narrowMulPath(*BO);
  }

  // ------------------------------- byte operands selected by the multiply
  // UPMEM's multiplies choose their source bytes themselves: mul_ul_ul,
  // mul_ul_uh, mul_uh_ul, mul_uh_uh (and mul_sl_*, mul_sh_*, sign-extending)
  // read byte 0 ("l") or byte 1 ("h") of each register, and the Mul16
  // sequence reads bytes 0 and 1 of its operands (mul_ul_ul, mul_uh_ul x2,
  // mul_uh_uh).  So the mask or shift that only extracts such a byte for a
  // byte multiply, or the low half for a Mul16 sequence, emits nothing.
  // What a value selects of a register (Inner: the shift/mask it is built on,
  // which it absorbs):
  //   Byte0  x & 0xff; ashr(shl x, 24), 24 (signed: InstCombine's sext(trunc))
  //   Byte1  (x >> 8) & 0xff; (x & 0xff00) >> 8; x >> 8 with x known to fit
  //          16 bits; ashr(shl x, 16), 24 (signed)
  //   Half0  x & 0xffff; ashr(shl x, 16), 16 (signed)
  // Bytes 2 and 3 are not selectable (an lsr first): x >> 16, x >> 24 and
  // their masks keep their cost.
  enum class ByteSel { None, Byte0, Byte1, Half0 };
  static const ConstantInt *constOp(const Instruction &I, unsigned K) {
    return dyn_cast<ConstantInt>(I.getOperand(K));
  }
  static bool isOp(const Value *V, unsigned Opc, uint64_t C, const Instruction **Out) {
    auto *I = dyn_cast<BinaryOperator>(V);
    if (!I || I->getOpcode() != Opc || !I->hasOneUse())
      return false;
    auto *K = constOp(*I, 1);
    if (!K || K->getBitWidth() > 64 || K->getZExtValue() != C)
      return false;
    *Out = I;
    return true;
  }
  ByteSel byteSelect(const Instruction &I, const Instruction **Inner) {
    *Inner = nullptr;
    if (!I.getType()->isIntegerTy() || I.getType()->getIntegerBitWidth() > 32 ||
        I.getType()->getIntegerBitWidth() < 16)
      return ByteSel::None;
    auto *K = isa<BinaryOperator>(I) ? constOp(I, 1) : nullptr;
    if (!K || K->getBitWidth() > 64)
      return ByteSel::None;
    uint64_t C = K->getZExtValue();
    unsigned W = I.getType()->getIntegerBitWidth();
    switch (I.getOpcode()) {
    case Instruction::And:
      if (C == 0xff)
        return isOp(I.getOperand(0), Instruction::LShr, 8, Inner) ? ByteSel::Byte1 : ByteSel::Byte0;
      if (C == 0xffff && W == 32)
        return ByteSel::Half0;
      return ByteSel::None;
    case Instruction::LShr:
      if (C != 8)
        return ByteSel::None;
      if (isOp(I.getOperand(0), Instruction::And, 0xff00, Inner))
        return ByteSel::Byte1;
      return computeKnownBits(I.getOperand(0), DL).countMaxActiveBits() <= 16 ? ByteSel::Byte1
                                                                              : ByteSel::None;
    case Instruction::AShr:
      if (W != 32)
        return ByteSel::None;
      if (C == 24 && isOp(I.getOperand(0), Instruction::Shl, 24, Inner))
        return ByteSel::Byte0;
      if (C == 24 && isOp(I.getOperand(0), Instruction::Shl, 16, Inner))
        return ByteSel::Byte1;
      if (C == 16 && isOp(I.getOperand(0), Instruction::Shl, 16, Inner))
        return ByteSel::Half0;
      return ByteSel::None;
    default:
      return ByteSel::None;
    }
  }

  // I selects a byte (or the low half) that every one of its uses, all
  // multiplies in its block, reads by itself.
  bool byteSelectedOuter(const Instruction &I) {
    const Instruction *Inner;
    ByteSel S = byteSelect(I, &Inner);
    if (S == ByteSel::None || I.use_empty())
      return false;
    for (const User *U : I.users()) {
      auto *M = dyn_cast<Instruction>(U);
      if (!M || M->getParent() != I.getParent())
        return false;
      unsigned Path = byteMulPath(*M);
      if (!(Path == 8 || (Path == 16 && S == ByteSel::Half0)))
        return false;
    }
    return true;
  }

  bool byteSelected(const Instruction &I) {
    if (byteSelectedOuter(I))
      return true;
    // the shift/mask under a selecting one: (x >> 8) & 0xff, (x & 0xff00) >> 8, shl of a signed pair
    if (!I.hasOneUse())
      return false;
    auto *U = dyn_cast<Instruction>(*I.user_begin());
    const Instruction *Inner;
    return U && byteSelect(*U, &Inner) != ByteSel::None && Inner == &I && byteSelectedOuter(*U);
  }

  uint64_t mulCost(BinaryOperator &I, Dyn &D) {
    Type *T = I.getType();
    if (!T->isIntegerTy()) // vector of integers
      return mul32Estimate();
    unsigned Bits = T->getIntegerBitWidth();
    if (Bits <= 8)
      return table(OP_COST_MUL8);
    bool Narrow = Bits <= 32 || AddrWidth.count(&I);
    for (Value *Op : I.operands())
      if (auto *C = dyn_cast<ConstantInt>(Op))
        if (fitsConstMul(C, !Narrow)) {
          // shift/add sequence, or the multiply if the table makes it cheaper
          int64_t V = C->getSExtValue();
          uint64_t A = V < 0 ? uint64_t(-V) : uint64_t(V);
          uint64_t R = (Bits + 63) / 64;
          Cur.ConstMuls.push_back({constMulCost(V) * intWords(&I), Narrow ? 0 : R * R,
                                   unsigned(64 - countLeadingZeros(A)), V < 0 && Narrow, 1});
          return 0;
        }
    if (Narrow) {
      unsigned Path = narrowMulPath(I);
      if (Path == 8)
        return table(OP_COST_MUL8);
      if (Path == 16) {
        D = Dyn::Mul16; // one byte multiply always, the rest unless both fit a byte
        return table(OP_COST_MUL8);
      }
      if (Bits <= 32) {
        D = Dyn::Mul32;
        return 0;
      }
      return mul32Estimate();
    }
    uint64_t R = (Bits + 63) / 64;
    return table(OP_COST_INT64_MUL, R * R);
  }

  uint64_t divCost(BinaryOperator &I, Dyn &D) {
    Type *T = I.getType();
    bool Signed = I.getOpcode() == Instruction::SDiv || I.getOpcode() == Instruction::SRem;
    bool Rem = I.getOpcode() == Instruction::URem || I.getOpcode() == Instruction::SRem;
    if (!T->isIntegerTy()) // vector: no guard, fixed per-element cost
      return table(OP_COST_INT32_DIV_BASE) + table(OP_COST_INT32_DIV_PER_STEP, cost::DIV32_EST_STEPS) +
             (Signed ? table(OP_COST_INT32_DIV_SIGNED_EXTRA) : 0);
    unsigned Bits = T->getIntegerBitWidth();
    uint64_t W = intWords(&I);
    if (auto *C = dyn_cast<ConstantInt>(I.getOperand(1))) {
      const APInt &V = C->getValue();
      // Division by a power of two is expanded into shifts by the compiler.
      if (!Signed && V.isPowerOf2())
        return cost::INT_ALU_PER_WORD * W;
      if (Signed && !V.isAllOnes() && !V.isMinSignedValue() && V.abs().isPowerOf2())
        return (Rem ? cost::SREM_POW2 : cost::SDIV_POW2) * W + (V.isNegative() ? 1 : 0);
    }
    D = Dyn::Div; // always rewritten (guards); the count is dynamic up to 32 bits
    if (Bits <= 32 || AddrWidth.count(&I))
      return 0;
    uint64_t R = (Bits + 63) / 64;
    return table(OP_COST_INT64_DIV, R * R);
  }

  uint64_t floatCost(Instruction &I) {
    Type *T = I.getType()->getScalarType();
    bool Dbl = isDoubleLike(T);
    switch (I.getOpcode()) {
    case Instruction::FAdd: case Instruction::FSub:
      return table(Dbl ? OP_COST_DOUBLE_ADD : OP_COST_FLOAT_ADD);
    case Instruction::FMul:
      return table(Dbl ? OP_COST_DOUBLE_MUL : OP_COST_FLOAT_MUL);
    case Instruction::FDiv: case Instruction::FRem: // frem: fmod, about a division
      return table(Dbl ? OP_COST_DOUBLE_DIV : OP_COST_FLOAT_DIV);
    default:
      return cost::OTHER;
    }
  }

  uint64_t castCost(CastInst &I) {
    Type *Src = I.getSrcTy()->getScalarType(), *Dst = I.getDestTy()->getScalarType();
    switch (I.getOpcode()) {
    case Instruction::Trunc: case Instruction::BitCast: case Instruction::PtrToInt:
    case Instruction::IntToPtr: case Instruction::AddrSpaceCast:
      return 0;
    case Instruction::ZExt: case Instruction::SExt:
      if (AddrWidth.count(&I))
        return 0; // i32 index widened for x86: nothing to do on the DPU
      if (Src->isIntegerTy(1))
        return cost::EXT;
      if (auto *Arg = dyn_cast<Argument>(I.getOperand(0)))
        if (Arg->hasAttribute(I.getOpcode() == Instruction::ZExt ? Attribute::ZExt : Attribute::SExt))
          return 0; // the caller passed it extended in a 32-bit register
      if (Src->getIntegerBitWidth() < 32 && isa<LoadInst>(I.getOperand(0)))
        return 0; // lbu/lbs/lhu/lhs extend for free
      if (Src->getIntegerBitWidth() == 32 && Dst->getIntegerBitWidth() <= 32)
        return 0;
      return cost::EXT;
    default: // fp <-> int, fpext, fptrunc
      return table(OP_COST_CONVERSION);
    }
  }

  // ------------------------------------------ compare used as a value
  // A compare whose i1 result is used as a number (c = a < b; s += c), as
  // multiword arithmetic in C writes carries (he/dpu/he_modarith.h: c =
  // (a + b) < a) and counting code writes tallies.  UPMEM's backend lowers
  // a setcc to DPUISD::SetCC, one instruction with a set condition that
  // writes 0 or 1 to the whole register (ZeroOrOneBooleanContent), and
  // expands UADDO/USUBO (no addc/subc for 32-bit code) to add/sub + setcc:
  //   the compare   its own rule (INT_ALU_PER_WORD per word; uadd's W + 1)
  //   zext c        0 (to <= 32 bits: the register already holds 0 or 1)
  //   sext c        EXT (1: the 0/1 negated, sub rc, zero, rc)
  //   c ? 2^k : 0   1 (InstCombine's form of zext(c) << k; the DAG combiner
  //                    folds it back to the shift: one lsl; 2^0: 0)
  static bool isCompareValue(const Value *V) {
    if (auto *EV = dyn_cast<ExtractValueInst>(V)) {
      auto *II = dyn_cast<IntrinsicInst>(EV->getAggregateOperand());
      return EV->getNumIndices() == 1 && EV->getIndices()[0] == 1 && II &&
             (II->getIntrinsicID() == Intrinsic::uadd_with_overflow ||
              II->getIntrinsicID() == Intrinsic::usub_with_overflow) &&
             II->getArgOperand(0)->getType()->getIntegerBitWidth() <= 32;
    }
    return isa<ICmpInst>(V) && V->getType()->isIntegerTy(1);
  }

  // The cost of I if it is a zext or select of a compare value (above).
  static bool compareUseCost(const Instruction &I, uint64_t &C) {
    if (isa<ZExtInst>(I) && I.getOperand(0)->getType()->isIntegerTy(1) &&
        I.getType()->getIntegerBitWidth() <= 32 && isCompareValue(I.getOperand(0))) {
      C = 0;
      return true;
    }
    auto *Sel = dyn_cast<SelectInst>(&I);
    auto *T = Sel ? dyn_cast<ConstantInt>(Sel->getTrueValue()) : nullptr;
    auto *F = Sel ? dyn_cast<ConstantInt>(Sel->getFalseValue()) : nullptr;
    if (T && F && F->isZero() && T->getValue().isPowerOf2() && T->getBitWidth() <= 32 &&
        isCompareValue(Sel->getCondition())) {
      C = T->isOne() ? 0 : 1;
      return true;
    }
    return false;
  }

  // ----------------------------------------- shift fused into an add
  // UPMEM's ISA has lsl_add rc, ra, rb, imm (ra + (rb << imm)), lsl_sub
  // (ra - (rb << imm)) and lsr_add (ra + (rb >> imm), logical), the shift
  // amount an immediate of 5 bits; there is no asr_add or lsr_sub (UPMEM's
  // backend, DPUMergeComboInstrPass: LSL_ADD, LSL_SUB, LSR_ADD, ROL_ADD).  So
  // a 32-bit shift by a constant whose only use is such an add/sub, in the
  // same block (instruction selection works per block), costs nothing: the
  // add/sub, counted by its own rule, is the fused instruction.  A byte GEP's
  // variable index is the same add (GEP_VAR_INDEX).  At most one shift per
  // add.  A compare's c ? 2^k : 0 is such a shift (zext(c) << k).  Not for
  // 64-bit values (two words), shifts with other uses, or an add of a
  // constant (the immediate form has no shift).  `or` of disjoint bits is
  // left out (LLVM 14 does not mark it disjoint).
  // InstCombine writes x - (y << k) as x + y * -2^k; the DAG combiner turns
  // the multiply's lowering (shift, negate) plus the add back into x - (y << k),
  // so that multiply feeding an add is an lsl_sub too.
  bool fusableShift(const Value *V, unsigned Opcode) {
    if (auto *Sel = dyn_cast<SelectInst>(V)) { // a compare's c ? 2^k : 0, an lsl (above)
      uint64_t C;
      return Sel->hasOneUse() && compareUseCost(*Sel, C) && C == 1;
    }
    auto *Sh = dyn_cast<BinaryOperator>(V);
    if (!Sh || !Sh->getType()->isIntegerTy() || intWords(Sh) != 1 || !Sh->hasOneUse())
      return false;
    auto *Amt = dyn_cast<ConstantInt>(Sh->getOperand(1));
    if (!Amt || Amt->getBitWidth() > 64)
      return false;
    switch (Sh->getOpcode()) {
    case Instruction::Shl:
      return Amt->getValue().ult(32);
    case Instruction::LShr:
      return Opcode == Instruction::Add && Amt->getValue().ult(32);
    case Instruction::Mul: {
      int64_t C = Amt->getSExtValue();
      return Opcode == Instruction::Add && C < -1 && C >= -(int64_t(1) << 31) &&
             isPowerOf2_64(uint64_t(-C));
    }
    default:
      return false;
    }
  }

  // The shift that the add/sub/GEP U absorbs (null if none).
  const Value *fusedShiftOf(const Instruction &U) {
    if ((U.getOpcode() == Instruction::Add || U.getOpcode() == Instruction::Sub) &&
        U.getType()->isIntegerTy() && intWords(&U) == 1) {
      for (unsigned K : {1u, 0u}) {
        if (U.getOpcode() == Instruction::Sub && K == 0)
          break; // the minuend: rb << imm - ra has no instruction
        const Value *Other = U.getOperand(1 - K);
        if (!isa<Constant>(Other) && fusableShift(U.getOperand(K), U.getOpcode()))
          return U.getOperand(K);
      }
      return nullptr;
    }
    auto *GEP = dyn_cast<GetElementPtrInst>(&U);
    if (!GEP || GEP->getNumIndices() == 0)
      return nullptr;
    const Value *Idx = nullptr;
    uint64_t Size = 0;
    for (gep_type_iterator GTI = gep_type_begin(GEP), E = gep_type_end(GEP); GTI != E; ++GTI) {
      if (isa<Constant>(GTI.getOperand()))
        continue;
      if (Idx || GTI.isStruct())
        return nullptr; // one variable index only: its add is the GEP's whole cost
      Idx = GTI.getOperand();
      Size = DL.getTypeAllocSize(GTI.getIndexedType()).getKnownMinSize();
    }
    return Idx && Size == 1 && fusableShift(Idx, Instruction::Add) ? Idx : nullptr;
  }

  bool shiftFused(const Instruction &I) {
    if (I.getOpcode() != Instruction::Shl && I.getOpcode() != Instruction::LShr &&
        I.getOpcode() != Instruction::Mul && I.getOpcode() != Instruction::Select)
      return false;
    if (!I.hasOneUse())
      return false;
    auto *U = dyn_cast<Instruction>(*I.user_begin());
    return U && U->getParent() == I.getParent() && fusedShiftOf(*U) == &I;
  }

  // ---------------------------------------------- mask of a loaded word
  // `w & 0xff` / `w & 0xffff` of a WRAM word w that is loaded for nothing
  // else (or zext(trunc w) to i8/i16, the same thing unmasked) is one byte /
  // half load on UPMEM: the ISA has zero-extending lbu / lhu with the same
  // register + immediate address as lw, the DPU is little-endian (the low
  // byte and half are at the word's own address), and the backend narrows a
  // single-use load under a mask (SelectionDAG's load-width reduction to a
  // legal zextload).  So the mask costs 0; the load keeps its own cost.  Not
  // for MRAM pointers, volatile or atomic loads, or 64-bit results.
  static bool narrowableLoad(const Value *V, unsigned Bits) {
    auto *L = dyn_cast<LoadInst>(V);
    return L && L->isSimple() && L->hasOneUse() && L->getPointerAddressSpace() == 0 &&
           L->getType()->isIntegerTy() && L->getType()->getIntegerBitWidth() > Bits;
  }

  static bool maskFoldedIntoLoad(const Instruction &I) {
    if (!I.getType()->isIntegerTy() || I.getType()->getIntegerBitWidth() > 32)
      return false;
    if (I.getOpcode() == Instruction::And) {
      auto *C = dyn_cast<ConstantInt>(I.getOperand(1));
      unsigned Bits = !C ? 0 : C->getZExtValue() == 0xff ? 8 : C->getZExtValue() == 0xffff ? 16 : 0;
      return Bits && narrowableLoad(I.getOperand(0), Bits);
    }
    auto *T = isa<ZExtInst>(I) ? dyn_cast<TruncInst>(I.getOperand(0)) : nullptr;
    unsigned Bits = T ? T->getType()->getIntegerBitWidth() : 0;
    return (Bits == 8 || Bits == 16) && T->hasOneUse() && narrowableLoad(T->getOperand(0), Bits);
  }

  uint64_t scalarCost(Instruction &I, Dyn &D) {
    uint64_t CmpUse;
    if (maskFoldedIntoLoad(I) || shiftFused(I) || byteSelected(I))
      return 0;
    if (compareUseCost(I, CmpUse))
      return CmpUse;
    switch (I.getOpcode()) {
    case Instruction::PHI: case Instruction::Freeze: case Instruction::ExtractValue:
    case Instruction::InsertValue: case Instruction::Unreachable: case Instruction::LandingPad:
    case Instruction::Fence:
      return 0;
    case Instruction::Alloca:
      return cast<AllocaInst>(I).isStaticAlloca() ? 0 : cost::DYN_ALLOCA;
    case Instruction::Add: case Instruction::Sub: case Instruction::And: case Instruction::Or:
    case Instruction::Xor: case Instruction::Shl: case Instruction::LShr: case Instruction::AShr:
      return cost::INT_ALU_PER_WORD * intWords(&I);
    case Instruction::Mul:
      return mulCost(cast<BinaryOperator>(I), D);
    case Instruction::UDiv: case Instruction::SDiv: case Instruction::URem: case Instruction::SRem:
      return divCost(cast<BinaryOperator>(I), D);
    case Instruction::FAdd: case Instruction::FSub: case Instruction::FMul:
    case Instruction::FDiv: case Instruction::FRem:
      return floatCost(I);
    case Instruction::FNeg:
      return cost::FNEG;
    case Instruction::ICmp: {
      uint64_t W = 1;
      if (!AddrWidth.count(I.getOperand(0)) && !AddrWidth.count(I.getOperand(1)))
        W = wordsOf(I.getOperand(0)->getType()->getScalarType());
      // compare + conditional jump is one DPU instruction (counted on the br)
      return cost::INT_ALU_PER_WORD * (fusedWithBranch(I) ? W - 1 : W);
    }
    case Instruction::FCmp:
      return table(isDoubleLike(I.getOperand(0)->getType()->getScalarType()) ? OP_COST_DOUBLE_COMPARE
                                                                             : OP_COST_FP_COMPARE);
    case Instruction::Select: {
      Type *T = I.getType()->getScalarType();
      bool Wide = !T->isPointerTy() && wordsOf(T) > 1 && !AddrWidth.count(&I);
      return Wide ? cost::SELECT64 : cost::SELECT;
    }
    case Instruction::GetElementPtr: {
      uint64_t C = 0;
      for (gep_type_iterator GTI = gep_type_begin(I), E = gep_type_end(I); GTI != E; ++GTI) {
        if (isa<Constant>(GTI.getOperand()))
          continue; // folded into the load/store offset or a constant
        uint64_t Size = GTI.isStruct() ? 1 : DL.getTypeAllocSize(GTI.getIndexedType()).getKnownMinSize();
        C += isPowerOf2_64(Size) ? cost::GEP_VAR_INDEX : cost::GEP_VAR_INDEX_NPOT;
      }
      return C;
    }
    case Instruction::Load: {
      auto &L = cast<LoadInst>(I);
      return loadStoreCost(L.getType(), L.getPointerAddressSpace(), false);
    }
    case Instruction::Store: {
      auto &S = cast<StoreInst>(I);
      return loadStoreCost(S.getValueOperand()->getType(), S.getPointerAddressSpace(), true);
    }
    case Instruction::AtomicRMW: case Instruction::AtomicCmpXchg:
      return cost::ATOMIC_RMW;
    case Instruction::Br: {
      auto &Br = cast<BranchInst>(I);
      if (Br.isConditional())
        return cost::BRANCH;
      // The block placed right before the target falls through (no jump).
      return FallThroughPred.lookup(Br.getSuccessor(0)) == I.getParent() ? 0 : cost::BRANCH;
    }
    case Instruction::Switch: {
      unsigned N = cast<SwitchInst>(I).getNumCases();
      return N <= 4 ? (N + 1) * cost::BRANCH : cost::SWITCH_TABLE;
    }
    case Instruction::Ret:
      return cost::RETURN + (HasCalls ? cost::NONLEAF_FRAME - 2 : 0); // ld d22 of the frame
    case Instruction::Call: case Instruction::Invoke: case Instruction::CallBr: {
      auto &CB = cast<CallBase>(I);
      if (auto *II = dyn_cast<IntrinsicInst>(&CB))
        return intrinsicCost(*II, D);
      if (CB.isInlineAsm()) // an empty template (an optimisation barrier) emits nothing
        return StringRef(cast<InlineAsm>(CB.getCalledOperand())->getAsmString()).trim().empty()
                   ? 0
                   : cost::INLINE_ASM;
      if (isSdkInlineCall(CB))
        return 0;
      return cost::CALL;
    }
    default:
      if (auto *CI = dyn_cast<CastInst>(&I))
        return castCost(*CI);
      return cost::OTHER;
    }
  }

  // Static cost of I; its table part is left in Cur.
  uint64_t instructionCost(Instruction &I, Dyn &D) {
    D = Dyn::None;
    Cur.clear();
    auto *VT = dyn_cast<FixedVectorType>(I.getType());
    if (!VT && I.getNumOperands() > 0 && !isa<StoreInst>(I) && !isa<CallBase>(I))
      VT = dyn_cast<FixedVectorType>(I.getOperand(0)->getType());
    uint64_t C = scalarCost(I, D);
    if (VT && !isa<LoadInst>(I) && !isa<StoreInst>(I) && !isa<CallBase>(I) &&
        !isa<GetElementPtrInst>(I) && !isa<ShuffleVectorInst>(I) &&
        !isa<ExtractElementInst>(I) && !isa<InsertElementInst>(I)) {
      D = Dyn::None; // no dynamic counting on vectors (not produced with -fno-vectorize)
      C *= VT->getNumElements();
      Cur.scale(VT->getNumElements());
    }
    return C;
  }

  // ------------------------------------------------------- dynamic counts
  // clz of a 32-bit value, + 31: ctlz64(2v + 1) is never given 0, so it
  // lowers without a zero test (bsr on x86 without lzcnt), and equals
  // 31 + clz32(v) for every v, 0 included (clz32(0) = 32).
  Value *clz32Plus31(IRBuilder<> &B, Value *V) {
    if (auto *C = dyn_cast<ConstantInt>(V))
      return ConstantInt::get(I32, C->getValue().countLeadingZeros() + 31);
    Value *Odd = B.CreateOr(B.CreateShl(B.CreateZExt(V, I64), 1), ConstantInt::get(I64, 1));
    Value *Z = B.CreateIntrinsic(Intrinsic::ctlz, {I64}, {Odd, B.getTrue()});
    return B.CreateTrunc(Z, I32);
  }

  Value *abs32(IRBuilder<> &B, Value *V) {
    if (auto *C = dyn_cast<ConstantInt>(V))
      return ConstantInt::get(I32, C->getValue().abs());
    return B.CreateIntrinsic(Intrinsic::abs, {I32}, {V, B.getFalse()});
  }

  Value *to32(IRBuilder<> &B, Value *V, bool Signed) {
    if (V->getType() == I32)
      return V;
    if (V->getType()->getIntegerBitWidth() > 32)
      return B.CreateTrunc(V, I32);
    return Signed ? B.CreateSExt(V, I32) : B.CreateZExt(V, I32);
  }

  // A 32-bit multiply costs base + per_bit * bitlen(min(ua, ub)), and
  // bitlen(v) = 63 - (31 + clz(v)).  Returns z = 31 + clz(umin(ua, ub)) (i32);
  // the segment's multiplies are then charged together (emitSegmentDynamic):
  // n (base + 63 per_bit) - per_bit * sum(z), one multiply per segment.
  Value *emitMulCount(Instruction &I) {
    IRBuilder<> B(&I);
    Value *A = to32(B, I.getOperand(0), false), *Bv = to32(B, I.getOperand(1), false);
    Value *Min = B.CreateBinaryIntrinsic(Intrinsic::umin, A, Bv);
    return clz32Plus31(B, Min);
  }

  // A 16x16 product (Mul16 sequence): 1 when both operands fit a byte (the
  // first mul_ul_ul jumps over the rest), else 3 more byte multiplies and 3
  // lsl_add.  Returns 1 for the long path (i32), 0 for the short one.
  Value *emitMul16Slow(Instruction &I) {
    IRBuilder<> B(&I);
    Value *Small = nullptr;
    for (Value *Op : I.operands()) {
      Value *X = Op;
      if (narrowKind(Op).Signed) // -128..127: x + 128 < 256
        X = B.CreateAdd(X, ConstantInt::get(X->getType(), 128));
      Value *S = B.CreateICmpULT(X, ConstantInt::get(X->getType(), 256));
      Small = Small ? B.CreateAnd(Small, S) : S;
    }
    return B.CreateZExt(B.CreateNot(Small), I32, "opc.m16");
  }

  // Rewrites a division: divisor guard, result select, and for <= 32 bits the
  // number of div_steps (i32; null otherwise).  The segment's divisions are
  // charged together: base (+ signed extra) each, + per_step * sum(steps).
  Value *rewriteDiv(BinaryOperator &I) {
    auto *T = cast<IntegerType>(I.getType());
    unsigned Op = I.getOpcode();
    bool Signed = Op == Instruction::SDiv || Op == Instruction::SRem;
    bool Rem = Op == Instruction::URem || Op == Instruction::SRem;
    Value *N = I.getOperand(0), *Dv = I.getOperand(1);
    IRBuilder<> B(&I);

    Value *Count = nullptr;
    if (T->getBitWidth() <= 32 || AddrWidth.count(&I)) {
      Value *N32 = to32(B, N, Signed), *D32 = to32(B, Dv, Signed);
      if (Signed) {
        N32 = abs32(B, N32);
        D32 = abs32(B, D32);
      }
      // steps = max(0, clz(d) - clz(n) + 1); a zero divisor has clz 32
      Value *K = B.CreateSub(B.CreateAdd(clz32Plus31(B, D32), ConstantInt::get(I32, 1)), clz32Plus31(B, N32));
      Count = B.CreateBinaryIntrinsic(Intrinsic::smax, K, ConstantInt::get(I32, 0), nullptr, "opc.steps");
    }

    auto *DC = dyn_cast<ConstantInt>(Dv);
    auto *NC = dyn_cast<ConstantInt>(N);
    bool NeedZero = !DC || DC->isZero();
    bool NeedOvf = Signed && (!DC || DC->isMinusOne()) && !(NC && !NC->isMinValue(true));
    if (!NeedZero && !NeedOvf)
      return Count;

    Value *IsZero = nullptr, *Bad = nullptr;
    if (NeedZero)
      Bad = IsZero = B.CreateICmpEQ(Dv, ConstantInt::get(T, 0), "opc.dz");
    if (NeedOvf) {
      // MIN / -1 divides by 1 instead: quotient MIN, remainder 0 (DPU results)
      Value *O = B.CreateAnd(B.CreateICmpEQ(N, ConstantInt::get(T, APInt::getSignedMinValue(T->getBitWidth()))),
                             B.CreateICmpEQ(Dv, ConstantInt::getAllOnesValue(T)));
      Bad = Bad ? B.CreateOr(Bad, O) : O;
    }
    I.setOperand(1, B.CreateSelect(Bad, ConstantInt::get(T, 1), Dv, "opc.safe"));

    if (IsZero) {
      IRBuilder<> A(I.getNextNode());
      Value *Fallback = Rem ? N : ConstantInt::getAllOnesValue(T);
      Value *R = A.CreateSelect(IsZero, Fallback, &I, "opc.res");
      I.replaceUsesWithIf(R, [R](Use &U) { return U.getUser() != R; });
      HookSites.push_back({IsZero, &I});
    }
    return Count;
  }

  Value *emitMemOpCount(Instruction &I) {
    auto &MI = cast<MemIntrinsic>(I);
    IRBuilder<> B(&I);
    uint64_t Per = isa<MemSetInst>(MI) ? cost::MEMSET_BYTES_PER_INSTR : cost::MEMCPY_BYTES_PER_INSTR;
    Value *Len = B.CreateZExtOrTrunc(MI.getLength(), I64);
    static_assert(isPowerOf2_64(cost::MEMCPY_BYTES_PER_INSTR) && isPowerOf2_64(cost::MEMSET_BYTES_PER_INSTR),
                  "bytes per instruction must be powers of two");
    Value *Units = B.CreateLShr(B.CreateAdd(Len, ConstantInt::get(I64, Per - 1)), Log2_64(Per));
    return B.CreateAdd(Units, ConstantInt::get(I64, cost::MEMOP_CALL_BASE), "opc.mem");
  }

  // If the runtime defines __op_div_by_zero, call it before a zero division.
  void insertDivZeroHook(Value *IsZero, Instruction *Div) {
    FunctionCallee Hook = M.getOrInsertFunction(DivZeroHookName, Type::getVoidTy(Ctx));
    if (auto *HF = dyn_cast<Function>(Hook.getCallee())) {
      if (HF->isDeclaration()) {
        HF->setLinkage(GlobalValue::ExternalWeakLinkage);
        // It only stops the tasklet; declaring it so keeps the counter
        // promotable to a register in loops that divide.
        HF->addFnAttr(Attribute::NoUnwind);
        HF->addFnAttr(Attribute::Cold);
        HF->addFnAttr(Attribute::InaccessibleMemOnly);
      }
    }
    IRBuilder<> B(Div);
    Value *Present = B.CreateICmpNE(Hook.getCallee(),
                                    Constant::getNullValue(Hook.getCallee()->getType()));
    Value *Cond = B.CreateAnd(IsZero, Present);
    Instruction *Then = SplitBlockAndInsertIfThen(Cond, Div, /*Unreachable=*/false,
                                                  MDBuilder(Ctx).createBranchWeights(1, 1u << 20));
    IRBuilder<> TB(Then);
    TB.CreateCall(Hook);
  }

  // The dynamic part of a segment, at its end: the table's formulas applied to
  // the sums of the segment's operations (one multiply per kind and segment;
  // the table terms are loop-invariant and hoisted).  Null if none.
  Value *emitSegmentDynamic(Instruction *End, Value *MulZ, uint64_t NMul, Value *Mul16Slow, Value *DivSteps,
                            uint64_t NDivU, uint64_t NDivS, Value *Mem) {
    IRBuilder<> B(End);
    Value *Sum = Mem;
    auto Acc = [&](Value *V) { Sum = Sum ? B.CreateAdd(Sum, V) : V; };
    auto Slot64 = [&](unsigned K) { return B.CreateZExt(slot(B, K), I64); };
    auto Times = [&](Value *V, uint64_t N) { return N == 1 ? V : B.CreateMul(V, ConstantInt::get(I64, N)); };
    if (NMul) {
      // NMul (base + 63 per_bit) - per_bit * sum(z)
      Value *PerBit = Slot64(OP_COST_INT32_MUL_PER_BIT);
      Value *Top = B.CreateAdd(Slot64(OP_COST_INT32_MUL_BASE), B.CreateMul(PerBit, ConstantInt::get(I64, 63)));
      Acc(B.CreateSub(Times(Top, NMul), B.CreateMul(PerBit, B.CreateZExt(MulZ, I64)), "opc.mul"));
    }
    if (Mul16Slow) {
      // long Mul16 paths x (3 mul8 + 3 lsl_add)
      Value *Extra = B.CreateAdd(Times(Slot64(OP_COST_MUL8), cost::MUL16_SLOW_EXTRA_MUL8),
                                 ConstantInt::get(I64, cost::MUL16_SLOW_EXTRA_ALU));
      Acc(B.CreateMul(Extra, B.CreateZExt(Mul16Slow, I64), "opc.mul16"));
    }
    if (NDivU + NDivS) {
      // (NDivU + NDivS) base + NDivS signed_extra + per_step * sum(steps)
      Value *Fixed = Times(Slot64(OP_COST_INT32_DIV_BASE), NDivU + NDivS);
      if (NDivS)
        Fixed = B.CreateAdd(Fixed, Times(Slot64(OP_COST_INT32_DIV_SIGNED_EXTRA), NDivS));
      Value *Var = B.CreateMul(Slot64(OP_COST_INT32_DIV_PER_STEP), B.CreateZExt(DivSteps, I64));
      Acc(B.CreateAdd(Fixed, Var, "opc.div"));
    }
    return Sum;
  }

  // ------------------------------------------------------ IRAM estimate
  // The instructions a segment occupies in IRAM: its static part as charged,
  // byte multiplies and constant multiplies inline, every other table-costed
  // or data-dependent operation a call into a runtime routine (recorded).
  uint64_t libcall(const char *Routine, uint64_t Body, uint64_t Sites = 1) {
    Routines[Routine] = Body;
    return Sites * cost::IRAM_LIBCALL_SITE;
  }

  uint64_t segmentSize(const Segment &S) {
    struct Call {
      unsigned Slot;
      const char *Routine;
      uint64_t Body;
    };
    static const Call Calls[] = {
        {OP_COST_INT32_MUL_BASE, "__mulsi3", cost::IRAM_MULSI3},
        {OP_COST_INT32_DIV_BASE, "__udiv32", cost::IRAM_UDIV32},
        {OP_COST_INT64_MUL, "__muldi3", cost::IRAM_MULDI3},
        {OP_COST_INT64_DIV, "__udiv64", cost::IRAM_UDIV64},
        {OP_COST_FLOAT_ADD, "__addsf3", cost::IRAM_ADDSF3},
        {OP_COST_FLOAT_MUL, "__mulsf3", cost::IRAM_MULSF3},
        {OP_COST_FLOAT_DIV, "__divsf3", cost::IRAM_DIVSF3},
        {OP_COST_DOUBLE_ADD, "__adddf3", cost::IRAM_ADDDF3},
        {OP_COST_DOUBLE_MUL, "__muldf3", cost::IRAM_MULDF3},
        {OP_COST_DOUBLE_DIV, "__divdf3", cost::IRAM_DIVDF3},
        {OP_COST_CONVERSION, "__floatsisf", cost::IRAM_CONVERSION},
        {OP_COST_FP_COMPARE, "__cmpsf2", cost::IRAM_CMPSF2},
        {OP_COST_DOUBLE_COMPARE, "__cmpdf2", cost::IRAM_CMPDF2},
    };
    uint64_t N = S.Static + S.Table.Slot[OP_COST_MUL8]; // mul_ul_ul & co. are one instruction
    for (const Call &C : Calls)
      if (S.Table.Slot[C.Slot])
        N += libcall(C.Routine, C.Body, S.Table.Slot[C.Slot]);
    if (S.Table.Slot[OP_COST_INT32_DIV_SIGNED_EXTRA])
      Routines["__div32"] = cost::IRAM_DIV32;
    for (const ConstMul &CM : S.Table.ConstMuls)
      N += CM.ShiftAdd * CM.Times; // the backend keeps the sequence (fitsConstMul)
    for (const auto &DI : S.Dynamic) {
      Instruction &I = *DI.first;
      switch (DI.second) {
      case Dyn::Mul32:
        N += libcall("__mulsi3", cost::IRAM_MULSI3);
        break;
      case Dyn::Mul16: // its first byte multiply is in the table part
        N += cost::IRAM_MUL16 - 1;
        break;
      case Dyn::Div: {
        bool Signed = I.getOpcode() == Instruction::SDiv || I.getOpcode() == Instruction::SRem;
        if (I.getType()->getIntegerBitWidth() <= 32 || AddrWidth.count(&I)) {
          N += libcall("__udiv32", cost::IRAM_UDIV32);
          if (Signed)
            Routines["__div32"] = cost::IRAM_DIV32;
        } else if (Signed) { // the call site is the table's int64_div
          Routines["__divdi3"] = cost::IRAM_DIVDI3;
        }
        break;
      }
      case Dyn::MemOp: // a call of the libc's memcpy/memset (its body is the libc's)
        N += cost::CALL;
        break;
      case Dyn::None:
        break;
      }
    }
    return N;
  }

  // ------------------------------------- switch points and race checks
  // Neither is a DPU instruction: both only steer the emulation.
  //
  // Switch points.  The worker runs the tasklets of a DPU in the order of
  // their modelled time (worker/tasklets.c): the running tasklet may go on
  // while its next instruction would issue before every other tasklet's, and
  // the worker keeps that bound, in counted instructions, in
  // __op_limits[0] ("near").  The order matters only where tasklets meet, at
  // memory another tasklet may use, so the check
  //     if (count at this access >= __op_limits[0]) __op_sched_fn(count, back)
  // comes before each access that may reach another tasklet's data and
  // touches the same bytes at every iteration of its loop (or is in no loop,
  // or is volatile or atomic): counters, flags, shared loop bounds.  Loops
  // streaming over arrays (a different address at every iteration, as each
  // tasklet's own part of a buffer is) get no check per access: their back
  // edges compare the count with __op_limits[1] ("far", a longer bound), so
  // that every loop, a spin-wait included, gives way in bounded time.  Not
  // checked: stack objects (allocas, private to their tasklet) and constant
  // globals.  `back` is the static cost from the access to its segment's end
  // (the counter is charged for the whole segment at its start).
  //
  // The worker keeps each tasklet's count apart and may switch inside
  // __op_sched_fn, so the call is declared to touch only the limits (its
  // pointer argument) and memory the program cannot see: the counter stays
  // in a register in loops, and the call's first argument is its value
  // there.  Program memory that other tasklets write while this one waits is
  // what C allows an unsynchronised thread to see: the IR was optimised
  // before the call existed.
  //
  // Race checks (-openpim-racecheck): before every access that may reach
  // another tasklet's data, __op_race_fn(address, bytes, flags, site) with
  // flags OP_RACE_* (timing/op_points.h) and site the address of a record, in
  // the code section, of its source location: line, column, then file and
  // function as NUL-terminated strings (the function from the debug
  // location's scope, so inlined code names its own function; without -g,
  // line 0 and the enclosing function).
  struct RaceSite {
    Instruction *At;
    Value *Ptr;   // null: a call of the runtime that moves memory (OP_RACE_CALL)
    Value *Bytes; // i64
    unsigned Flags;
  };

  // The DPU runtime's calls whose DMAs are the caller's accesses: announced
  // to the race detector with their site (OP_RACE_CALL before, and after
  // with no site), so that their WRAM and MRAM bytes are checked there.
  static bool movesMemory(const CallBase &CB) {
    const Function *Callee = CB.getCalledFunction();
    if (!Callee)
      return false;
    StringRef N = Callee->getName();
    return N == "mram_read" || N == "mram_write" || N == "mram_read_unaligned" || N == "mram_write_unaligned" ||
           N == "seqread_init" || N == "seqread_get" || N == "seqread_seek";
  }
  SmallVector<RaceSite, 8> RaceSites;
  DenseSet<const Instruction *> NearSet;
  SmallVector<std::pair<Instruction *, uint64_t>, 8> NearBack; // access, back
  SmallVector<Instruction *, 4> FarPoints;                     // terminators of back-edge sources

  static constexpr const char *LimitsName = OP_LIMITS_SYMBOL;
  static constexpr const char *SchedFnName = OP_SCHED_FN_SYMBOL;
  static constexpr const char *RaceFnName = OP_RACE_FN_SYMBOL;

  // Memory another tasklet may reach: not a stack object, not a constant.
  static bool runtimeOwned(const Value *O) {
    auto *GV = dyn_cast<GlobalVariable>(O);
    return GV && (GV->isConstant() || GV->getName().startswith("__op_"));
  }

  // Not a stack object, not a constant, not the runtime's own (its globals,
  // and what __op_env points to: me() reads the worker's environment page).
  static bool maySharePtr(const Value *Ptr) {
    const Value *O = getUnderlyingObject(Ptr, 0);
    if (isa<AllocaInst>(O) || runtimeOwned(O))
      return false;
    if (auto *L = dyn_cast<LoadInst>(O))
      if (runtimeOwned(getUnderlyingObject(L->getPointerOperand(), 0)))
        return false;
    return true;
  }

  // V is the same value at every iteration of L.
  static bool invariantIn(const Value *V, const Loop *L, unsigned Depth = 0) {
    auto *I = dyn_cast<Instruction>(V);
    if (!I || !L->contains(I))
      return true;
    if (Depth > 4 || !(isa<GetElementPtrInst>(I) || isa<CastInst>(I)))
      return false;
    for (const Value *Op : I->operands())
      if (!invariantIn(Op, L, Depth + 1))
        return false;
    return true;
  }

  void planAccess(Instruction &I, Value *Ptr, Value *Bytes, bool Write, bool Ordered, const LoopInfo &LI) {
    if (!maySharePtr(Ptr))
      return;
    unsigned AS = Ptr->getType()->getPointerAddressSpace();
    if (Opts.RaceCheck)
      RaceSites.push_back({&I, Ptr, Bytes,
                           (Write ? OP_RACE_WRITE : 0u) | (Ordered ? OP_RACE_VOLATILE : 0u) |
                               (AS == MramAddrSpace ? OP_RACE_MRAM : 0u)});
    if (!Opts.SwitchPoints)
      return;
    if (!Write && !Ordered && Opts.Written)
      if (auto *GV = dyn_cast<GlobalVariable>(getUnderlyingObject(Ptr, 0)))
        if (!Opts.Written->written(GV))
          return; /* nobody changes it during the launch: its reads need no order */
    const Loop *L = LI.getLoopFor(I.getParent());
    if (Ordered || !L || invariantIn(Ptr, L))
      NearSet.insert(&I);
  }

  void planAccessPoints(DominatorTree &DT, LoopInfo &LI) {
    auto Size = [&](Type *T) { return ConstantInt::get(I64, DL.getTypeStoreSize(T).getKnownMinSize()); };
    for (Instruction &I : instructions(F)) {
      if (auto *L = dyn_cast<LoadInst>(&I)) {
        planAccess(I, L->getPointerOperand(), Size(L->getType()), false, !L->isUnordered(), LI);
      } else if (auto *S = dyn_cast<StoreInst>(&I)) {
        planAccess(I, S->getPointerOperand(), Size(S->getValueOperand()->getType()), true, !S->isUnordered(), LI);
      } else if (auto *A = dyn_cast<AtomicRMWInst>(&I)) {
        planAccess(I, A->getPointerOperand(), Size(A->getValOperand()->getType()), true, true, LI);
      } else if (auto *X = dyn_cast<AtomicCmpXchgInst>(&I)) {
        planAccess(I, X->getPointerOperand(), Size(X->getNewValOperand()->getType()), true, true, LI);
      } else if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
        if (auto *MT = dyn_cast<MemTransferInst>(MI))
          planAccess(I, MT->getRawSource(), MI->getLength(), false, MI->isVolatile(), LI);
        planAccess(I, MI->getRawDest(), MI->getLength(), true, MI->isVolatile(), LI);
      } else if (auto *CB = dyn_cast<CallBase>(&I)) {
        if (Opts.RaceCheck && movesMemory(*CB) && !CB->isTerminator())
          RaceSites.push_back({&I, nullptr, nullptr, OP_RACE_CALL});
      }
    }
    if (!Opts.SwitchPoints)
      return;
    // Back edges (irreducible cycles included), except those of a loop whose
    // trip count is known when it starts (SCEV): it ends by itself, and
    // the loops around it or its calls give way.
    TargetLibraryInfoImpl TLII(Triple(M.getTargetTriple()));
    TargetLibraryInfo TLI(TLII);
    AssumptionCache AC(F);
    ScalarEvolution SE(F, TLI, AC, DT, LI);
    SmallVector<std::pair<const BasicBlock *, const BasicBlock *>, 8> Edges;
    FindFunctionBackedges(F, Edges);
    SmallPtrSet<const BasicBlock *, 8> Seen;
    for (const auto &E : Edges) {
      const Loop *L = LI.getLoopFor(E.second);
      if (L && L->getHeader() == E.second && L->contains(E.first) &&
          !isa<SCEVCouldNotCompute>(SE.getBackedgeTakenCount(L)))
        continue;
      if (Seen.insert(E.first).second)
        FarPoints.push_back(const_cast<Instruction *>(E.first->getTerminator()));
    }
  }

  // An external global of the runtime (declared if the module does not),
  // as a pointer to ValTy.
  Constant *runtimeGlobal(const char *Name, Type *ValTy) {
    GlobalVariable *GV = M.getGlobalVariable(Name, /*AllowInternal=*/true);
    if (!GV) {
      GV = new GlobalVariable(M, ValTy, /*isConstant=*/false, GlobalValue::ExternalLinkage, nullptr, Name);
      if (M.getPICLevel() == PICLevel::NotPIC || M.getPIELevel() != PIELevel::Default)
        GV->setDSOLocal(true);
    }
    if (GV->getValueType() != ValTy)
      return ConstantExpr::getBitCast(GV, ValTy->getPointerTo(GV->getAddressSpace()));
    return GV;
  }

  Constant *limitPtr(unsigned K) {
    Constant *Base = runtimeGlobal(LimitsName, ArrayType::get(I64, 2));
    if (auto *GV = dyn_cast<GlobalVariable>(Base))
      return ConstantExpr::getInBoundsGetElementPtr(
          GV->getValueType(), GV, ArrayRef<Constant *>{ConstantInt::get(I64, 0), ConstantInt::get(I64, K)});
    return ConstantExpr::getGetElementPtr(I64, ConstantExpr::getBitCast(Base, I64->getPointerTo()),
                                          ConstantInt::get(I64, K));
  }

  // A call through the function pointer the runtime stores in global Name,
  // touching only its pointer arguments and memory the program cannot see.
  CallInst *runtimeCall(IRBuilder<> &B, const char *Name, FunctionType *FT, ArrayRef<Value *> Args) {
    LoadInst *Fn = B.CreateLoad(FT->getPointerTo(), runtimeGlobal(Name, FT->getPointerTo()));
    Fn->setMetadata(LLVMContext::MD_noalias, CounterScope);
    CallInst *CI = B.CreateCall(FT, Fn, Args);
    // The worker's entry for these saves every register but r11: the
    // caller's values stay where they are, its frame does not grow.
    CI->setCallingConv(CallingConv::PreserveMost);
    CI->addFnAttr(Attribute::InaccessibleMemOrArgMemOnly);
    CI->addFnAttr(Attribute::NoUnwind);
    // it returns (a fault ends the DPU's run, counter and all): without
    // this, LICM could not keep the counter in a register across it
    CI->addFnAttr(Attribute::WillReturn);
    CI->setMetadata(LLVMContext::MD_noalias, CounterScope);
    return CI;
  }

  // Which: 0 near (before an access), 1 far (before a back edge's branch).
  void insertSwitchPoint(Instruction *At, uint64_t Back, unsigned Which) {
    IRBuilder<> B(At);
    LoadInst *C = B.CreateLoad(I64, counter(), "opc.now");
    C->setMetadata(LLVMContext::MD_alias_scope, CounterScope);
    Value *Now = Back ? B.CreateSub(C, ConstantInt::get(I64, Back)) : C;
    LoadInst *Lim = B.CreateAlignedLoad(I64, limitPtr(Which), Align(8), "opc.lim");
    Lim->setMetadata(LLVMContext::MD_noalias, CounterScope);
    Instruction *Then = SplitBlockAndInsertIfThen(B.CreateICmpUGE(Now, Lim), At, /*Unreachable=*/false,
                                                  MDBuilder(Ctx).createBranchWeights(1, 1u << 20));
    IRBuilder<> TB(Then);
    auto *FT = FunctionType::get(Type::getVoidTy(Ctx), {I64, I32, I64->getPointerTo()}, false);
    runtimeCall(TB, SchedFnName, FT,
                {C, ConstantInt::get(I32, Back), ConstantExpr::getBitCast(limitPtr(0), I64->getPointerTo())});
  }

  // The source record of I (see above), in the code section.
  Constant *siteRecord(const Instruction &I) {
    unsigned Line = 0, Col = 0;
    std::string File, Func = std::string(F.getName());
    if (const DILocation *Loc = I.getDebugLoc().get()) {
      Line = Loc->getLine();
      Col = Loc->getColumn();
      File = std::string(Loc->getFilename());
      if (!Loc->getDirectory().empty() && !File.empty() && File[0] != '/')
        File = std::string(Loc->getDirectory()) + "/" + File;
      if (const DISubprogram *SP = Loc->getScope()->getSubprogram())
        Func = std::string(SP->getName());
    }
    std::string Text = File + '\0' + Func + '\0';
    Constant *Fields[] = {ConstantInt::get(I32, Line), ConstantInt::get(I32, Col),
                          ConstantDataArray::getString(Ctx, Text, /*AddNull=*/false)};
    Constant *Init = ConstantStruct::getAnon(Fields);
    auto *GV = new GlobalVariable(M, Init->getType(), /*isConstant=*/true, GlobalValue::PrivateLinkage, Init,
                                  "__op_site");
    GV->setSection(".text.openpim_site");
    GV->setAlignment(Align(4));
    return ConstantExpr::getBitCast(GV, Type::getInt8PtrTy(Ctx));
  }

  CallInst *raceCall(IRBuilder<> &B, Value *Addr, Value *Bytes, unsigned Flags, Constant *Site) {
    auto *FT = FunctionType::get(Type::getVoidTy(Ctx), {I64, I64, I32, Type::getInt8PtrTy(Ctx)}, false);
    CallInst *CI = runtimeCall(B, RaceFnName, FT, {Addr, Bytes, ConstantInt::get(I32, Flags), Site});
    // it reads nothing of the program (the address is a number to it)
    CI->removeFnAttr(Attribute::InaccessibleMemOrArgMemOnly);
    CI->addFnAttr(Attribute::InaccessibleMemOnly);
    return CI;
  }

  void insertRaceCheck(const RaceSite &R) {
    IRBuilder<> B(R.At);
    if (!R.Ptr) { // a runtime call moving memory: announced, then closed
      Constant *Zero = ConstantInt::get(I64, 0);
      raceCall(B, Zero, Zero, R.Flags, siteRecord(*R.At));
      B.SetInsertPoint(R.At->getNextNode());
      raceCall(B, Zero, Zero, R.Flags, Constant::getNullValue(Type::getInt8PtrTy(Ctx)));
      return;
    }
    raceCall(B, B.CreatePtrToInt(R.Ptr, I64), B.CreateZExtOrTrunc(R.Bytes, I64), R.Flags, siteRecord(*R.At));
  }

  // ------------------------------------------------- below WRAM (v1B)
  // WRAM ends on a page boundary, so an access past its end faults; a WRAM
  // that is not a whole number of pages (v1B: 62 KB) starts inside a page,
  // whose bytes below WRAM's first byte the page protection cannot take away.
  // With -openpim-wram-start, every load, store, atomic or mem* intrinsic
  // whose address may lie there is preceded by
  //   if ((uint32_t)address - page < start - page) __op_wram_low(address);
  // (page: start rounded down to a page), a call that faults the DPU.  Not
  // checked: MRAM (__mram_ptr), stack objects (the tasklets' native stacks lie
  // far above WRAM), what the runtime's own globals point to (its environment
  // page), a global or a block of the SDK's WRAM allocators plus an offset
  // that is a constant or that SCEV proves, and that is not negative (neither
  // is ever below WRAM's first byte; a loop's `table[i]` from i = 0), and an
  // access at most a page above one that dominates it from the same base
  // (that one was checked or covered, or it faulted: nothing is mapped in the
  // page below WRAM's window).
  static constexpr uint64_t PageBytes = 4096;
  static constexpr const char *WramLowFnName = OP_WRAM_LOW_FN_SYMBOL;
  struct WramLowSite {
    Instruction *At = nullptr; // the access
    Value *Ptr = nullptr;      // its address
    // or, checked at its loop's first iteration only (see below): on the edge
    // into the loop's header from its one predecessor outside it (that
    // predecessor's terminator), the loop's instructions that compute the
    // address, in order, and the header phis' values on that edge
    Instruction *Preheader = nullptr;
    BasicBlock *Header = nullptr;
    SmallVector<Instruction *, 4> Recipe;
    DenseMap<Value *, Value *> Entry;
  };
  SmallVector<WramLowSite, 8> WramLowSites;

  // An access in a loop's header, before anything that may write or not
  // return, whose address goes up by a constant step under a page at each
  // iteration (SCEV: {start,+,step}), runs at every iteration, the first one
  // included: if its first address is not below WRAM's first byte, none of
  // the next is (each is at most a page above the one before, which was
  // valid).  Its check is made once, of the first address, on the edge into
  // the loop, which is then sure to reach the access.
  static bool firstIterationOnly(Instruction &I, Value *Ptr, const LoopInfo &LI, ScalarEvolution &SE,
                                 WramLowSite &W) {
    const Loop *L = LI.getLoopFor(I.getParent());
    if (!L || !L->getLoopPredecessor() || I.getParent() != L->getHeader() || !SE.isSCEVable(Ptr->getType()))
      return false;
    for (Instruction &J : *L->getHeader()) {
      if (&J == &I)
        break;
      if (J.mayWriteToMemory() || !isGuaranteedToTransferExecutionToSuccessor(&J))
        return false;
    }
    const auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(Ptr));
    if (!AR || AR->getLoop() != L || !AR->isAffine() || !SE.isLoopInvariant(AR->getStart(), L))
      return false;
    const auto *Step = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
    if (!Step || !Step->getAPInt().isStrictlyPositive() || Step->getAPInt().uge(PageBytes))
      return false;
    if (!firstIterationRecipe(Ptr, L, W, 0))
      return false;
    W.Preheader = L->getLoopPredecessor()->getTerminator();
    W.Header = L->getHeader();
    return true;
  }

  // The loop's instructions V depends on, to be cloned on the edge into the
  // loop (GEPs, casts, arithmetic), header phis standing for what they get
  // on it; false if V needs anything else.
  static bool firstIterationRecipe(Value *V, const Loop *L, WramLowSite &W, unsigned Depth) {
    auto *I = dyn_cast<Instruction>(V);
    if (!I || !L->contains(I) || W.Entry.count(I))
      return true;
    if (auto *Phi = dyn_cast<PHINode>(I)) {
      if (Phi->getParent() != L->getHeader())
        return false;
      W.Entry[Phi] = Phi->getIncomingValueForBlock(L->getLoopPredecessor());
      return true;
    }
    if (Depth >= 8 || !(isa<GetElementPtrInst>(I) || isa<CastInst>(I) || isa<BinaryOperator>(I)))
      return false;
    for (Value *Op : I->operands())
      if (!firstIterationRecipe(Op, L, W, Depth + 1))
        return false;
    W.Entry[I] = nullptr; // cloned when inserted
    W.Recipe.push_back(I);
    return true;
  }

  // The address of W's first iteration, computed before W.Preheader.
  static Value *firstAddress(WramLowSite &W) {
    for (Instruction *I : W.Recipe) {
      Instruction *C = I->clone();
      C->dropPoisonGeneratingFlags(); // inbounds, nsw...: the check must see the address as computed
      for (Use &U : C->operands())
        if (auto It = W.Entry.find(U.get()); It != W.Entry.end())
          U.set(It->second);
      C->insertBefore(W.Preheader);
      W.Entry[I] = C;
    }
    return W.Entry.count(W.Ptr) ? W.Entry[W.Ptr] : W.Ptr;
  }

  // A base that is never below WRAM's first byte: a global, what the SDK's
  // WRAM allocators return (a heap block, or NULL, far below WRAM), or a
  // choice (select, phi) between such bases.
  static bool wramBase(const Value *V, unsigned Depth = 0) {
    V = V->stripPointerCasts();
    if (isa<GlobalValue>(V))
      return true;
    if (const auto *Sel = dyn_cast<SelectInst>(V))
      return Depth < 4 && wramBase(Sel->getTrueValue(), Depth + 1) && wramBase(Sel->getFalseValue(), Depth + 1);
    if (const auto *Phi = dyn_cast<PHINode>(V)) {
      if (Depth >= 4)
        return false;
      for (const Value *In : Phi->incoming_values())
        if (In != Phi && !wramBase(In, Depth + 1))
          return false;
      return true;
    }
    const auto *CB = dyn_cast<CallBase>(V);
    const Function *Callee = CB ? CB->getCalledFunction() : nullptr;
    if (!Callee)
      return false;
    StringRef N = Callee->getName();
    return N == "mem_alloc" || N == "buddy_alloc" || N == "buddy_realloc" || N == "fsb_get";
  }

  void planWramLowChecks(DominatorTree &DT, LoopInfo &LI) {
    TargetLibraryInfoImpl TLII(Triple(M.getTargetTriple()));
    TargetLibraryInfo TLI(TLII);
    AssumptionCache AC(F);
    ScalarEvolution SE(F, TLI, AC, DT, LI);
    // A WRAM base plus an offset that SCEV proves not negative (`table[i]`, i
    // a loop's counter from 0, a masked index...): not below the base.
    auto AboveWramBase = [&](Value *Ptr) {
      if (!SE.isSCEVable(Ptr->getType()))
        return false;
      const SCEV *S = SE.getSCEV(Ptr), *Base = SE.getPointerBase(S);
      const auto *U = dyn_cast<SCEVUnknown>(Base);
      if (!U || !wramBase(U->getValue()))
        return false;
      const SCEV *Off = SE.getMinusSCEV(S, Base);
      return !isa<SCEVCouldNotCompute>(Off) && SE.getSignedRange(Off).getSignedMin().isNonNegative();
    };
    // accesses planned or covered, by base: (access, constant offset from the base)
    DenseMap<const Value *, SmallVector<std::pair<const Instruction *, int64_t>, 2>> Seen;
    auto Plan = [&](Instruction &I, Value *Ptr) {
      if (!Ptr->getType()->isPointerTy() || Ptr->getType()->getPointerAddressSpace() != 0)
        return;
      APInt Off(DL.getIndexTypeSizeInBits(Ptr->getType()), 0);
      const Value *Base = Ptr->stripAndAccumulateConstantOffsets(DL, Off, /*AllowNonInbounds=*/true);
      int64_t O = Off.getSExtValue();
      if ((wramBase(Base) && O >= 0) || AboveWramBase(Ptr))
        return;
      const Value *Obj = getUnderlyingObject(Ptr, 0);
      if (isa<AllocaInst>(Obj))
        return;
      if (const auto *L = dyn_cast<LoadInst>(Obj))
        if (runtimeOwned(getUnderlyingObject(L->getPointerOperand(), 0)))
          return;
      auto &Accesses = Seen[Base];
      bool Covered = false;
      for (const auto &A : Accesses)
        if (A.second <= O && O - A.second < (int64_t)PageBytes && DT.dominates(A.first, &I))
          Covered = true;
      Accesses.emplace_back(&I, O);
      if (!Covered) {
        WramLowSite W;
        W.At = &I;
        W.Ptr = Ptr;
        if (!firstIterationOnly(I, Ptr, LI, SE, W)) { // at every access
          W.Preheader = nullptr;
          W.Recipe.clear();
          W.Entry.clear();
        }
        WramLowSites.push_back(std::move(W));
      }
    };
    // dominators first: a block's dominators come before it in the tree's preorder
    for (DomTreeNode *N : depth_first(DT.getRootNode()))
      for (Instruction &I : *N->getBlock()) {
        if (auto *L = dyn_cast<LoadInst>(&I)) {
          Plan(I, L->getPointerOperand());
        } else if (auto *S = dyn_cast<StoreInst>(&I)) {
          Plan(I, S->getPointerOperand());
        } else if (auto *A = dyn_cast<AtomicRMWInst>(&I)) {
          Plan(I, A->getPointerOperand());
        } else if (auto *X = dyn_cast<AtomicCmpXchgInst>(&I)) {
          Plan(I, X->getPointerOperand());
        } else if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
          if (auto *MT = dyn_cast<MemTransferInst>(MI))
            Plan(I, MT->getRawSource());
          Plan(I, MI->getRawDest());
        }
      }
  }

  void insertWramLowCheck(Instruction *At, Value *Ptr, const DebugLoc &Loc) {
    IRBuilder<> B(At);
    uint32_t Page = Opts.WramStart & ~uint32_t(PageBytes - 1);
    // The address from its base and constant offset in 32-bit arithmetic that
    // wraps: an `inbounds` offset below its object is poison, and the
    // optimiser would drop the check (`global - 8` is such an address).
    APInt Off(DL.getIndexTypeSizeInBits(Ptr->getType()), 0);
    Value *Base = Ptr->stripAndAccumulateConstantOffsets(DL, Off, /*AllowNonInbounds=*/true);
    auto *IntPtr = cast<IntegerType>(DL.getIntPtrType(Ptr->getType())); // 32 bits in a DPU image
    Value *Addr = B.CreateAdd(B.CreatePtrToInt(Base, IntPtr), ConstantInt::get(IntPtr, Off.zextOrTrunc(
                                                                                   IntPtr->getBitWidth())),
                              "opw.addr");
    Value *Below = B.CreateICmpULT(B.CreateSub(Addr, ConstantInt::get(IntPtr, Page)),
                                   ConstantInt::get(IntPtr, Opts.WramStart - Page), "opw.below");
    Instruction *Then = SplitBlockAndInsertIfThen(Below, At, /*Unreachable=*/true,
                                                  MDBuilder(Ctx).createBranchWeights(1, 1u << 20));
    IRBuilder<> TB(Then);
    TB.SetCurrentDebugLocation(Loc); // the fault's file and line are the access's
    FunctionCallee Fn = M.getOrInsertFunction(WramLowFnName, FunctionType::get(Type::getVoidTy(Ctx), {I32}, false));
    if (auto *Decl = dyn_cast<Function>(Fn.getCallee())) {
      Decl->setDoesNotReturn();
      Decl->setDoesNotThrow();
      Decl->addFnAttr(Attribute::Cold);
      if (M.getPICLevel() == PICLevel::NotPIC || M.getPIELevel() != PIELevel::Default)
        Decl->setDSOLocal(true);
    }
    CallInst *CI = TB.CreateCall(Fn, {TB.CreateTrunc(Addr, I32)});
    CI->setDoesNotReturn();
    CI->setDoesNotThrow();
    CI->addFnAttr(Attribute::NoMerge); // one call per access: each keeps its line
    // it may read the program's memory (its stores before the fault stay),
    // but never the counter: the counter stays in a register in loops
    CI->setMetadata(LLVMContext::MD_noalias, CounterScope);
  }

  // ------------------------------------------------------------ per block
  // After the PHIs, and in the entry block after its leading static allocas.
  static Instruction *firstCountPoint(BasicBlock &BB) {
    BasicBlock::iterator It = BB.getFirstInsertionPt();
    while (It != BB.end() && isa<AllocaInst>(*It) && cast<AllocaInst>(*It).isStaticAlloca())
      ++It;
    return &*It;
  }

  bool instrumentBlock(BasicBlock &BB, bool IsEntry) {
    if (BB.getFirstInsertionPt() == BB.end())
      return false;
    SmallVector<Segment, 2> Segs(1);
    if (IsEntry && HasCalls)
      Segs[0].Static += cost::NONLEAF_FRAME - 1; // sd d22 + add r22 (ld d22 is on the ret)
    // near switch points: (access, its segment, the segment's static cost before it)
    SmallVector<std::tuple<Instruction *, unsigned, uint64_t>, 4> Near;
    for (Instruction &I : BB) {
      Dyn D;
      if (NearSet.count(&I))
        Near.emplace_back(&I, Segs.size() - 1, Segs.back().Static);
      Segs.back().Static += instructionCost(I, D);
      Segs.back().Table.add(Cur);
      if (D != Dyn::None)
        Segs.back().Dynamic.push_back({&I, D});
      if (I.isTerminator()) {
        Segs.back().End = &I;
      } else if (isBoundaryCall(I) && !cast<CallInst>(I).isMustTailCall()) {
        Segs.back().End = &I;
        Segs.emplace_back();
        Segs.back().After = &I;
      }
    }
    for (const Segment &S : Segs)
      Size += segmentSize(S);
    // The counter holds the whole segment's static cost from its start: an
    // access is reached when the count, less the cost from it to the
    // segment's end, has been executed.
    for (const auto &N : Near)
      NearBack.emplace_back(std::get<0>(N), Segs[std::get<1>(N)].Static - std::get<2>(N));
    bool Changed = false;
    for (Segment &S : Segs) {
      if (S.Static || !S.Table.empty()) {
        IRBuilder<> B(S.After ? S.After->getNextNode() : firstCountPoint(BB));
        Value *Amount = tableAmount(B, S.Table);
        if (!Amount)
          Amount = ConstantInt::get(I64, S.Static);
        else if (S.Static)
          Amount = B.CreateAdd(Amount, ConstantInt::get(I64, S.Static));
        addToCounter(B, Amount);
        Changed = true;
      }
      // Sums over the segment, next to each operation: multiplies' z and
      // divisions' steps (i32), mem* counts (i64).
      Value *MulZ = nullptr, *Mul16Slow = nullptr, *DivSteps = nullptr, *Mem = nullptr;
      uint64_t NMul = 0, NDivU = 0, NDivS = 0;
      auto Acc = [](IRBuilder<> &B, Value *&Sum, Value *V) { Sum = Sum ? B.CreateAdd(Sum, V) : V; };
      for (auto &DI : S.Dynamic) {
        Changed = true;
        IRBuilder<> B(DI.first);
        switch (DI.second) {
        case Dyn::Mul32:
          Acc(B, MulZ, emitMulCount(*DI.first));
          NMul++;
          break;
        case Dyn::Mul16:
          Acc(B, Mul16Slow, emitMul16Slow(*DI.first));
          break;
        case Dyn::Div: {
          unsigned Op = DI.first->getOpcode();
          if (Value *Steps = rewriteDiv(cast<BinaryOperator>(*DI.first))) {
            Acc(B, DivSteps, Steps);
            (Op == Instruction::SDiv || Op == Instruction::SRem ? NDivS : NDivU)++;
          }
          break;
        }
        case Dyn::MemOp:
          Acc(B, Mem, emitMemOpCount(*DI.first));
          break;
        case Dyn::None:
          break;
        }
      }
      if (Value *Pending = emitSegmentDynamic(S.End, MulZ, NMul, Mul16Slow, DivSteps, NDivU, NDivS, Mem)) {
        IRBuilder<> B(S.End);
        addToCounter(B, Pending);
      }
    }
    return Changed;
  }
};

DenseSet<Function *> annotatedNoCount(Module &M) {
  DenseSet<Function *> R;
  GlobalVariable *GA = M.getGlobalVariable("llvm.global.annotations");
  if (!GA || !GA->hasInitializer())
    return R;
  auto *Arr = dyn_cast<ConstantArray>(GA->getInitializer());
  if (!Arr)
    return R;
  for (Value *Op : Arr->operands()) {
    auto *CS = dyn_cast<ConstantStruct>(Op);
    if (!CS || CS->getNumOperands() < 2)
      continue;
    auto *Fn = dyn_cast<Function>(CS->getOperand(0)->stripPointerCasts());
    auto *StrGV = dyn_cast<GlobalVariable>(CS->getOperand(1)->stripPointerCasts());
    if (!Fn || !StrGV || !StrGV->hasInitializer())
      continue;
    if (auto *Str = dyn_cast<ConstantDataArray>(StrGV->getInitializer()))
      if (Str->isCString() && Str->getAsCString() == NoCountAnnotation)
        R.insert(Fn);
  }
  return R;
}

// The IRAM record of F: text lines "F <function> <instructions>" and, for
// each runtime routine it calls, "L <routine> <instructions>", in a section
// .openpim.iram linked to F's own (SHF_LINK_ORDER, !associated): the link's
// --gc-sections drops it with F, so the records the image keeps are those of
// the functions it keeps.  The driver sums them (routines once) against IRAM.
void emitIramRecord(Module &M, Function &F, uint64_t Size, const std::map<std::string, uint64_t> &Routines) {
  std::string Text;
  raw_string_ostream OS(Text);
  OS << "F " << F.getName() << ' ' << Size << '\n';
  for (const auto &R : Routines)
    OS << "L " << R.first << ' ' << R.second << '\n';
  OS.flush();
  LLVMContext &Ctx = M.getContext();
  Constant *Init = ConstantDataArray::getString(Ctx, Text, /*AddNull=*/false);
  auto *GV = new GlobalVariable(M, Init->getType(), /*isConstant=*/true, GlobalValue::PrivateLinkage, Init,
                                "__op_iram." + F.getName());
  GV->setSection(".openpim.iram");
  GV->setAlignment(Align(1));
  GV->setMetadata(LLVMContext::MD_associated, MDNode::get(Ctx, ValueAsMetadata::get(&F)));
  if (F.hasComdat())
    GV->setComdat(F.getComdat());
  appendToCompilerUsed(M, {GV});
}

// Instrumented functions write __op_icount, and functions defined elsewhere
// may be instrumented too: drop every "does not write memory" promise made by
// earlier passes (readnone/readonly... on functions and call sites), else the
// LICM run below could keep the counter in a register across such a call.
void dropMemoryPromises(Module &M) {
  static const Attribute::AttrKind Kinds[] = {
      Attribute::ReadNone,    Attribute::ReadOnly,
      Attribute::WriteOnly,   Attribute::ArgMemOnly,
      Attribute::InaccessibleMemOnly, Attribute::InaccessibleMemOrArgMemOnly,
      Attribute::Speculatable};
  for (Function &F : M) {
    if (F.isIntrinsic() || F.getName() == DivZeroHookName)
      continue;
    for (Attribute::AttrKind K : Kinds)
      F.removeFnAttr(K);
    for (Use &U : F.uses())
      if (auto *CB = dyn_cast<CallBase>(U.getUser()))
        for (Attribute::AttrKind K : Kinds)
          CB->removeFnAttr(K);
  }
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (!isa<IntrinsicInst>(CB) && !CB->isInlineAsm())
          for (Attribute::AttrKind K : Kinds)
            CB->removeFnAttr(K);
}

// Size-only mode, for the DPU runtime and libc (the driver's OPENPIM_IRAM_ONLY):
// their time is charged by the model as whole operations, so they get their
// IRAM records but no counting.  Each function's size is taken from a
// throw-away instrumented copy, so the function itself is left as compiled.
cl::opt<bool> IramOnly("openpim-iram-only", cl::desc("OpenPIMCount: record IRAM sizes, do not count"));
// Race checks: images for the race detector (the driver, under OPENPIM_RACECHECK).
cl::opt<bool> RaceCheck("openpim-racecheck", cl::desc("OpenPIMCount: report shared accesses to the race detector"));
// Switch points are always wanted; off only to measure what they cost.
// WRAM's first byte, where it does not start on a page boundary (the driver,
// for v1B): loads and stores below it in its page fault (planWramLowChecks).
cl::opt<unsigned> WramStart("openpim-wram-start", cl::init(0),
                            cl::desc("OpenPIMCount: fault accesses below this WRAM start, in its page"));
cl::opt<bool> SwitchPoints("openpim-switch-points", cl::init(true),
                           cl::desc("OpenPIMCount: let tasklets give way at shared accesses and back edges"));

void recordIramOnly(Module &M, const DenseSet<Function *> &Skip, MDNode *ScopeList) {
  const char *Added[] = {CounterName, CostTableName, DivZeroHookName};
  bool Had[3];
  for (int K = 0; K < 3; K++)
    Had[K] = M.getNamedValue(Added[K]) != nullptr;
  std::vector<Function *> Fs; // before cloning, which appends to M
  for (Function &F : M)
    if (!F.isDeclaration() && !F.hasFnAttribute(Attribute::Naked) && !Skip.count(&F) &&
        F.getName() != DivZeroHookName)
      Fs.push_back(&F);
  for (Function *F : Fs) {
    ValueToValueMapTy VMap;
    Function *Copy = CloneFunction(F, VMap);
    Instrumenter In(M, *Copy, ScopeList);
    In.run();
    emitIramRecord(M, *F, In.size(), In.routines());
    Copy->eraseFromParent();
  }
  for (int K = 0; K < 3; K++) // declarations only the copies used
    if (GlobalValue *GV = M.getNamedValue(Added[K]))
      if (!Had[K] && GV->isDeclaration() && GV->use_empty())
        GV->eraseFromParent();
}

struct OpenPIMCountPass : PassInfoMixin<OpenPIMCountPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    DenseSet<Function *> Skip = annotatedNoCount(M);
    if (IramOnly) {
      MDBuilder MDB(M.getContext());
      MDNode *Domain = MDB.createAnonymousAliasScopeDomain("OpenPIMCount");
      recordIramOnly(M, Skip, MDNode::get(M.getContext(), {MDB.createAnonymousAliasScope(Domain, CounterName)}));
      return PreservedAnalyses::none();
    }
    dropMemoryPromises(M);
    MDBuilder MDB(M.getContext());
    MDNode *Domain = MDB.createAnonymousAliasScopeDomain("OpenPIMCount");
    MDNode *Scope = MDB.createAnonymousAliasScope(Domain, CounterName);
    MDNode *ScopeList = MDNode::get(M.getContext(), {Scope});
    bool Changed = true;
    WrittenGlobals Written;
    for (Function &F : M) {
      if (F.isDeclaration() || F.hasFnAttribute(Attribute::Naked) || Skip.count(&F) ||
          F.getName() == DivZeroHookName)
        continue;
      Options Opts;
      Opts.SwitchPoints = SwitchPoints;
      Opts.RaceCheck = RaceCheck;
      Opts.WramStart = WramStart;
      Opts.Written = &Written;
      Instrumenter In(M, F, ScopeList, Opts);
      In.run();
      emitIramRecord(M, F, In.size(), In.routines());
    }
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
  // Also at -O0, where every function is optnone.
  static bool isRequired() { return true; }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "OpenPIMCount", "1.0", [](PassBuilder &PB) {
            PB.registerOptimizerLastEPCallback([](ModulePassManager &MPM, OptimizationLevel L) {
              MPM.addPass(OpenPIMCountPass());
              if (L != OptimizationLevel::O0 && !IramOnly) // size-only leaves the code as compiled
                MPM.addPass(createModuleToFunctionPassAdaptor(
                    createFunctionToLoopPassAdaptor(LICMPass(), /*UseMemorySSA=*/true)));
            });
            // For `opt -load-pass-plugin=... -passes=openpim-count`.
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name != "openpim-count")
                    return false;
                  MPM.addPass(OpenPIMCountPass());
                  return true;
                });
          }};
}
