/* retarget.c: rewrite an optimised AMDGPU kernel module so the host JIT can run it (TOOLCHAIN §13). */
#include "emu_int.h"
#include "tosac.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Target.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How a llvm.amdgcn.* intrinsic is replaced. */
typedef enum {
  R_ERASE,      /* scheduling hints and waits: no meaning on the host */
  R_WORKITEM,   /* emu_rt_workitem_id(dim) */
  R_WORKGROUP,  /* emu_rt_workgroup_id(dim) */
  R_BARRIER,    /* emu_rt_barrier() */
  R_PTR,        /* emu_rt_implicitarg_ptr / dispatch_ptr / kernarg_ptr */
  R_MBCNT,      /* emu_rt_mbcnt_lo / hi */
  R_WAVE,       /* emu_rt_wave(kind, ...) with operands in memory */
  R_WAVESIZE,   /* constant */
  R_IDENTITY,   /* whole-wave-mode wrappers: every lane is active here */
  R_MATRIX,     /* emu_rt_matrix(kind, d, a, b, c, ...) */
  R_BUF_RSRC,   /* make.buffer.rsrc: the base pointer itself */
  R_BUF_LOAD,   /* raw.ptr.buffer.load: a checked load at base + voffset + soffset */
  R_DOT,        /* dot products (fdot2, sdot4): inline host arithmetic */
  R_PKRTZ,      /* cvt.pkrtz: two f32 to f16 rounded toward zero, inline */
  R_PERM,       /* perm: v_perm_b32's byte select, inline */
  R_CVT_F8,     /* cvt.pk.fp8.f32 / .bf8.f32: emu_rt_cvt_pk_f8 (arg: bf8) */
  R_CVT_F32_F8, /* cvt.f32.fp8 / .bf8, cvt.pk.f32.fp8 / .bf8: emu_rt_cvt_f32_f8 per byte (arg:
                 * bf8 | 2 packed) */
} rewrite_kind;

typedef struct intrinsic_rule {
  const char *name;
  rewrite_kind how;
  int arg; /* dimension, wave-op kind, or which pointer */
} intrinsic_rule;

static const intrinsic_rule rules[] = {
    {"llvm.amdgcn.workitem.id.x", R_WORKITEM, 0},
    {"llvm.amdgcn.workitem.id.y", R_WORKITEM, 1},
    {"llvm.amdgcn.workitem.id.z", R_WORKITEM, 2},
    {"llvm.amdgcn.workgroup.id.x", R_WORKGROUP, 0},
    {"llvm.amdgcn.workgroup.id.y", R_WORKGROUP, 1},
    {"llvm.amdgcn.workgroup.id.z", R_WORKGROUP, 2},
    {"llvm.amdgcn.s.barrier", R_BARRIER, 0},
    {"llvm.amdgcn.s.barrier.signal", R_BARRIER, 0},
    {"llvm.amdgcn.s.barrier.wait", R_ERASE, 0}, /* the signal already waited */
    {"llvm.amdgcn.wave.barrier", R_WAVE, EMU_WOP_WAVE_BARRIER},
    {"llvm.amdgcn.implicitarg.ptr", R_PTR, 0},
    {"llvm.amdgcn.dispatch.ptr", R_PTR, 1},
    {"llvm.amdgcn.kernarg.segment.ptr", R_PTR, 2},
    {"llvm.amdgcn.mbcnt.lo", R_MBCNT, 0},
    {"llvm.amdgcn.mbcnt.hi", R_MBCNT, 1},
    {"llvm.amdgcn.readfirstlane", R_WAVE, EMU_WOP_READFIRSTLANE},
    {"llvm.amdgcn.readlane", R_WAVE, EMU_WOP_READLANE},
    {"llvm.amdgcn.ballot", R_WAVE, EMU_WOP_BALLOT},
    {"llvm.amdgcn.ds.bpermute", R_WAVE, EMU_WOP_BPERMUTE},
    {"llvm.amdgcn.ds.permute", R_WAVE, EMU_WOP_PERMUTE},
    {"llvm.amdgcn.ds.swizzle", R_WAVE, EMU_WOP_SWIZZLE},
    {"llvm.amdgcn.update.dpp", R_WAVE, EMU_WOP_UPDATE_DPP},
    {"llvm.amdgcn.mov.dpp", R_WAVE, EMU_WOP_MOV_DPP},
    {"llvm.amdgcn.permlane16", R_WAVE, EMU_WOP_PERMLANE16},
    {"llvm.amdgcn.permlanex16", R_WAVE, EMU_WOP_PERMLANEX16},
    {"llvm.amdgcn.permlane64", R_WAVE, EMU_WOP_PERMLANE64},
    {"llvm.amdgcn.ds.read.tr16.b64", R_WAVE, EMU_WOP_READ_TR16},
    {"llvm.amdgcn.wavefrontsize", R_WAVESIZE, 0},
    {"llvm.amdgcn.make.buffer.rsrc", R_BUF_RSRC, 0},
    {"llvm.amdgcn.raw.ptr.buffer.load", R_BUF_LOAD, 0},
    {"llvm.amdgcn.set.inactive", R_IDENTITY, 0},
    {"llvm.amdgcn.wwm", R_IDENTITY, 0},
    {"llvm.amdgcn.strict.wwm", R_IDENTITY, 0},
    {"llvm.amdgcn.strict.wqm", R_IDENTITY, 0},
    {"llvm.amdgcn.wqm", R_IDENTITY, 0},
    {"llvm.amdgcn.s.waitcnt", R_ERASE, 0},
    {"llvm.amdgcn.s.sleep", R_ERASE, 0},
    {"llvm.amdgcn.s.setprio", R_ERASE, 0},
    {"llvm.amdgcn.sched.barrier", R_ERASE, 0},
    {"llvm.amdgcn.sched.group.barrier", R_ERASE, 0},
    {"llvm.amdgcn.iglp.opt", R_ERASE, 0},
    {"llvm.amdgcn.s.wait.loadcnt", R_ERASE, 0},
    {"llvm.amdgcn.s.wait.storecnt", R_ERASE, 0},
    {"llvm.amdgcn.s.wait.dscnt", R_ERASE, 0},
    {"llvm.amdgcn.s.wait.kmcnt", R_ERASE, 0},
    {"llvm.amdgcn.fdot2", R_DOT, 0},
    {"llvm.amdgcn.fdot2.f32.bf16", R_DOT, 0},
    {"llvm.amdgcn.sdot4", R_DOT, 1},
    {"llvm.amdgcn.cvt.pkrtz", R_PKRTZ, 0},
    {"llvm.amdgcn.perm", R_PERM, 0},
    {"llvm.amdgcn.cvt.pk.fp8.f32", R_CVT_F8, 0},
    {"llvm.amdgcn.cvt.pk.bf8.f32", R_CVT_F8, 1},
    {"llvm.amdgcn.cvt.f32.fp8", R_CVT_F32_F8, 0},
    {"llvm.amdgcn.cvt.f32.bf8", R_CVT_F32_F8, 1},
    {"llvm.amdgcn.cvt.pk.f32.fp8", R_CVT_F32_F8, 2},
    {"llvm.amdgcn.cvt.pk.f32.bf8", R_CVT_F32_F8, 3},
};

/* Per kernel, recorded with the AMDGPU data layout before anything changes. */
typedef struct kernel_args {
  LLVMValueRef fn;
  int nargs;
  LLVMTypeRef *types;
  uint64_t *offsets;
  uint64_t *gpu_sizes; /* 4 for 32-bit LDS/private pointers, which are 64-bit on the host */
} kernel_args;

typedef struct rt {
  LLVMModuleRef m;
  LLVMContextRef ctx;
  LLVMTargetDataRef td; /* host layout, once switched */
  LLVMBuilderRef b;
  const emu_target *t;
  emu_rtinfo *info;
  char *err;
  size_t errsize;
  LLVMTypeRef i1, i8, i16, i32, i64, ptr, vd;
  /* LDS */
  LLVMValueRef *lds;
  int nlds;
  int64_t *lds_off; /* [function slot][global]: offset, -1 when unused */
} rt;

static bool fail(rt *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(rt *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->err, r->errsize, fmt, ap);
  va_end(ap);
  return false;
}

static char *dupstr(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  memcpy(d, s, n);
  return d;
}

static unsigned enum_kind(const char *name) {
  return LLVMGetEnumAttributeKindForName(name, strlen(name));
}

/* The base name of an intrinsic function (without overload suffixes), or NULL. */
static const char *intrinsic_base(LLVMValueRef fn, size_t *len) {
  unsigned id = LLVMGetIntrinsicID(fn);
  if (!id)
    return NULL;
  return LLVMIntrinsicGetName(id, len);
}

static const intrinsic_rule *find_rule(const char *name, size_t len) {
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
    if (strlen(rules[i].name) == len && !memcmp(rules[i].name, name, len))
      return &rules[i];
  return NULL;
}

/* Is v a (not yet rewritten) llvm.amdgcn.make.buffer.rsrc call? */
static bool is_rsrc_call(LLVMValueRef v) {
  size_t len = 0;
  const char *base = LLVMIsACallInst(v) ? intrinsic_base(LLVMGetCalledValue(v), &len) : NULL;
  const intrinsic_rule *rule = base ? find_rule(base, len) : NULL;
  return rule && rule->how == R_BUF_RSRC;
}

static bool is_matrix_name(const char *name) {
  return !strncmp(name, "llvm.amdgcn.mfma.", 17) || !strncmp(name, "llvm.amdgcn.wmma.", 17) ||
         !strncmp(name, "llvm.amdgcn.smfmac.", 19);
}

static bool is_amdgcn(LLVMValueRef fn) {
  size_t n;
  const char *name = LLVMGetValueName2(fn, &n);
  return n > 12 && !strncmp(name, "llvm.amdgcn.", 12);
}

/* Refuse, before touching anything, an intrinsic the runtime cannot stand in for: it would
 * abort code generation for the host. */
static bool check_intrinsics(rt *r) {
  for (LLVMValueRef f = LLVMGetFirstFunction(r->m); f; f = LLVMGetNextFunction(f)) {
    if (!is_amdgcn(f) || !LLVMGetFirstUse(f))
      continue;
    size_t len = 0;
    const char *base = intrinsic_base(f, &len);
    if (base && find_rule(base, len))
      continue;
    char name[160];
    if (base)
      snprintf(name, sizeof name, "%.*s", (int)len, base);
    else
      snprintf(name, sizeof name, "%s", LLVMGetValueName(f));
    if (base && is_matrix_name(name)) {
      if (emu_matrix_supported(name, r->t->processor))
        continue;
      return fail(r, "kernel module uses %s, a matrix instruction the emulator does not support on %s",
                  name, r->t->processor);
    }
    return fail(r, "kernel module uses %s, which the emulator does not support", name);
  }
  return true;
}

/* Step 1: explicit kernel-argument offsets and launch bounds with the AMDGPU layout. */
static bool record_kernels(rt *r, kernel_args **out) {
  LLVMTargetDataRef gpu = LLVMGetModuleDataLayout(r->m);
  int n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(r->m); f; f = LLVMGetNextFunction(f))
    if (LLVMGetFunctionCallConv(f) == LLVMAMDGPUKERNELCallConv && !LLVMIsDeclaration(f))
      n++;
  kernel_args *ka = calloc((size_t)n + 1, sizeof *ka);
  r->info->kernels = calloc((size_t)n + 1, sizeof *r->info->kernels);
  r->info->nkernels = n;
  int k = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(r->m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMGetFunctionCallConv(f) != LLVMAMDGPUKERNELCallConv || LLVMIsDeclaration(f))
      continue;
    emu_kernel *ek = &r->info->kernels[k];
    kernel_args *a = &ka[k++];
    ek->name = dupstr(LLVMGetValueName(f));
    char entry[512];
    snprintf(entry, sizeof entry, "__emu_entry.%s", ek->name);
    ek->entry_name = dupstr(entry);
    ek->max_flat_wg = 1024;
    LLVMAttributeRef fwg = LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                                                         "amdgpu-flat-work-group-size", 27);
    if (fwg) {
      unsigned vlen;
      const char *v = LLVMGetStringAttributeValue(fwg, &vlen);
      const char *comma = memchr(v, ',', vlen);
      if (comma)
        ek->max_flat_wg = atoi(comma + 1);
    }
    a->fn = f;
    a->nargs = (int)LLVMCountParams(f);
    a->types = calloc((size_t)a->nargs + 1, sizeof *a->types);
    a->offsets = calloc((size_t)a->nargs + 1, sizeof *a->offsets);
    a->gpu_sizes = calloc((size_t)a->nargs + 1, sizeof *a->gpu_sizes);
    uint64_t off = 0;
    for (int i = 0; i < a->nargs; i++) {
      LLVMTypeRef ty = LLVMTypeOf(LLVMGetParam(f, (unsigned)i));
      uint64_t al = LLVMABIAlignmentOfType(gpu, ty);
      off = (off + al - 1) / al * al;
      a->types[i] = ty;
      a->offsets[i] = off;
      a->gpu_sizes[i] = LLVMABISizeOfType(gpu, ty);
      off += a->gpu_sizes[i];
    }
    ek->explicit_kernarg_bytes = off;
  }
  *out = ka;
  return true;
}

/* Steps 2-4: C calling convention, no target attributes, system-scope atomics. */
static void strip_target(rt *r) {
  static const char *drop_prefix[] = {"target-cpu", "target-features", "tune-cpu", "amdgpu-",
                                      "uniform-work-group-size"};
  unsigned system = LLVMGetSyncScopeID(r->ctx, "", 0);
  for (LLVMValueRef f = LLVMGetFirstFunction(r->m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMGetFunctionCallConv(f) != LLVMCCallConv && LLVMGetFunctionCallConv(f) != LLVMFastCallConv)
      LLVMSetFunctionCallConv(f, LLVMCCallConv);
    unsigned n = LLVMGetAttributeCountAtIndex(f, LLVMAttributeFunctionIndex);
    LLVMAttributeRef *as = calloc(n + 1, sizeof *as);
    LLVMGetAttributesAtIndex(f, LLVMAttributeFunctionIndex, as);
    for (unsigned i = 0; i < n; i++) {
      if (!LLVMIsStringAttribute(as[i]))
        continue;
      unsigned klen;
      const char *key = LLVMGetStringAttributeKind(as[i], &klen);
      for (size_t p = 0; p < sizeof drop_prefix / sizeof drop_prefix[0]; p++) {
        size_t pl = strlen(drop_prefix[p]);
        if (klen >= pl && !memcmp(key, drop_prefix[p], pl)) {
          LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, key, klen);
          break;
        }
      }
    }
    free(as);
    /* Fibers interleave invocations of the same function, and what GPU O3 inferred about a
     * function's memory effects and termination stops being true once its intrinsics become
     * runtime calls (a failed check never returns, a barrier synchronises). */
    static const char *stale[] = {"norecurse", "nosync", "memory", "willreturn", "nofree"};
    if (!LLVMIsDeclaration(f))
      for (size_t s = 0; s < sizeof stale / sizeof stale[0]; s++)
        LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, enum_kind(stale[s]));
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
        if (LLVMIsACallInst(in) && LLVMGetInstructionCallConv(in) != LLVMCCallConv &&
            LLVMGetInstructionCallConv(in) != LLVMFastCallConv)
          LLVMSetInstructionCallConv(in, LLVMCCallConv);
        if (LLVMIsACallInst(in) && LLVMIsAFunction(LLVMGetCalledValue(in)) &&
            !LLVMIsDeclaration(LLVMGetCalledValue(in)))
          for (size_t s = 0; s < sizeof stale / sizeof stale[0]; s++)
            LLVMRemoveCallSiteEnumAttribute(in, LLVMAttributeFunctionIndex, enum_kind(stale[s]));
        /* An agent-scope fence emits nothing on x86; work-groups may run on two threads. */
        if (LLVMIsAtomic(in))
          LLVMSetAtomicSyncScopeID(in, system);
      }
  }
}

static LLVMValueRef declare(rt *r, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, int n,
                            const char *memory) {
  LLVMValueRef f = LLVMGetNamedFunction(r->m, name);
  if (f)
    return f;
  f = LLVMAddFunction(r->m, name, LLVMFunctionType(ret, params, (unsigned)n, 0));
  LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(r->ctx, enum_kind("nounwind"), 0));
  if (memory && !strcmp(memory, "none")) {
    /* Lane-local queries: the value never changes within a work-item. */
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(r->ctx, enum_kind("memory"), 0));
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(r->ctx, enum_kind("willreturn"), 0));
  } else if (memory && !strcmp(memory, "inaccessible")) {
    /* Access checks touch only runtime state, so the optimiser may keep values in registers
     * across them; they are not willreturn (a failed check never returns), so no access moves
     * above its check. Encoding: ModRef (3) for location InaccessibleMem (1), 2 bits each. */
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(r->ctx, enum_kind("memory"), 3u << 2));
  }
  /* Barriers and cross-lane ops get no memory attribute at all: with one, host O2 merges or
   * moves them across the memory traffic they order. */
  return f;
}

/* The root a pointer is derived from through constant expressions only. */
static LLVMValueRef strip_const(LLVMValueRef p) {
  while (LLVMIsAConstantExpr(p)) {
    LLVMOpcode op = LLVMGetConstOpcode(p);
    if (op != LLVMGetElementPtr && op != LLVMAddrSpaceCast && op != LLVMBitCast)
      break;
    p = LLVMGetOperand(p, 0);
  }
  return p;
}

static LLVMValueRef strip_all(LLVMValueRef p) {
  for (;;) {
    if (LLVMIsAConstantExpr(p)) {
      LLVMOpcode op = LLVMGetConstOpcode(p);
      if (op != LLVMGetElementPtr && op != LLVMAddrSpaceCast && op != LLVMBitCast)
        return p;
      p = LLVMGetOperand(p, 0);
    } else if (LLVMIsAGetElementPtrInst(p) || LLVMIsAAddrSpaceCastInst(p) || LLVMIsABitCastInst(p)) {
      p = LLVMGetOperand(p, 0);
    } else {
      return p;
    }
  }
}

/* Insert a check call before `in` for an access of `size` bytes at `p`. */
static void add_check(rt *r, LLVMValueRef in, LLVMValueRef p, LLVMValueRef size, int kind) {
  unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(p));
  if (as == 5)
    return; /* private: the fiber's own stack */
  if (LLVMIsAAllocaInst(strip_all(p)))
    return;
  LLVMValueRef root = strip_const(p);
  if (as != 3 && LLVMIsAGlobalVariable(root))
    return; /* the module's own (constant) globals */
  LLVMTypeRef params[3] = {r->ptr, r->i64, r->i32};
  LLVMValueRef fn = declare(r, as == 3 ? "emu_rt_check_lds" : "emu_rt_check", r->vd, params, 3,
                            "inaccessible");
  LLVMPositionBuilderBefore(r->b, in);
  LLVMValueRef p0 = as ? LLVMBuildAddrSpaceCast(r->b, p, r->ptr, "") : p;
  if (LLVMTypeOf(size) != r->i64)
    size = LLVMBuildZExt(r->b, size, r->i64, "");
  LLVMValueRef args[3] = {p0, size, LLVMConstInt(r->i32, (unsigned)kind, 0)};
  LLVMBuildCall2(r->b, LLVMGlobalGetValueType(fn), fn, args, 3, "");
}

static LLVMValueRef size_of(rt *r, LLVMTypeRef ty) {
  return LLVMConstInt(r->i64, LLVMStoreSizeOfType(r->td, ty), 0);
}

/* Every load, store, atomic and mem* intrinsic on memory outside the work-item's own stack. */
static void instrument(rt *r) {
  for (LLVMValueRef f = LLVMGetFirstFunction(r->m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
        if (LLVMIsALoadInst(in)) {
          add_check(r, in, LLVMGetOperand(in, 0), size_of(r, LLVMTypeOf(in)), EMU_ACC_LOAD);
        } else if (LLVMIsAStoreInst(in)) {
          add_check(r, in, LLVMGetOperand(in, 1), size_of(r, LLVMTypeOf(LLVMGetOperand(in, 0))),
                    EMU_ACC_STORE);
        } else if (LLVMIsAAtomicRMWInst(in) || LLVMIsAAtomicCmpXchgInst(in)) {
          add_check(r, in, LLVMGetOperand(in, 0), size_of(r, LLVMTypeOf(LLVMGetOperand(in, 1))),
                    EMU_ACC_ATOMIC);
        } else if (LLVMIsACallInst(in)) {
          LLVMValueRef callee = LLVMGetCalledValue(in);
          if (!LLVMIsAFunction(callee))
            continue;
          const char *name = LLVMGetValueName(callee);
          if (!strncmp(name, "llvm.memcpy", 11) || !strncmp(name, "llvm.memmove", 12)) {
            add_check(r, in, LLVMGetOperand(in, 0), LLVMGetOperand(in, 2), EMU_ACC_STORE);
            add_check(r, in, LLVMGetOperand(in, 1), LLVMGetOperand(in, 2), EMU_ACC_LOAD);
          } else if (!strncmp(name, "llvm.memset", 11)) {
            add_check(r, in, LLVMGetOperand(in, 0), LLVMGetOperand(in, 2), EMU_ACC_STORE);
          }
        }
      }
}

/* ---------------------------------------------------------------- LDS (step 6) */

static int lds_index(rt *r, LLVMValueRef g) {
  for (int i = 0; i < r->nlds; i++)
    if (r->lds[i] == g)
      return i;
  return -1;
}

/* Mark in `used` each LDS global that constant `c` refers to; true if any. */
static bool refs_lds(rt *r, LLVMValueRef c, bool *used) {
  if (LLVMIsAGlobalVariable(c)) {
    int i = lds_index(r, c);
    if (i >= 0 && used)
      used[i] = true;
    return i >= 0;
  }
  if (!LLVMIsAConstantExpr(c))
    return false;
  bool any = false;
  int n = LLVMGetNumOperands(c);
  for (int i = 0; i < n; i++)
    any |= refs_lds(r, LLVMGetOperand(c, (unsigned)i), used);
  return any;
}

static bool function_lds(rt *r, LLVMValueRef f, bool *used) {
  bool any = false;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
      int n = LLVMGetNumOperands(in);
      for (int i = 0; i < n; i++) {
        LLVMValueRef op = LLVMGetOperand(in, (unsigned)i);
        if (op && LLVMIsAConstant(op))
          any |= refs_lds(r, op, used);
      }
    }
  return any;
}

static int64_t layout(rt *r, const bool *used, int64_t *off) {
  int64_t end = 0;
  for (int i = 0; i < r->nlds; i++) {
    off[i] = -1;
    if (!used[i])
      continue;
    LLVMTypeRef ty = LLVMGlobalGetValueType(r->lds[i]);
    int64_t al = LLVMGetAlignment(r->lds[i]);
    if (al <= 0)
      al = LLVMABIAlignmentOfType(r->td, ty);
    end = (end + al - 1) / al * al;
    off[i] = end;
    end += (int64_t)LLVMABISizeOfType(r->td, ty);
  }
  return end;
}

/* Rebuild constant `c` (which refers to LDS) as instructions at the builder's position, with
 * the global replaced by base + offset. Substituting the leaf first keeps LLVM from folding the
 * result back into a constant expression. */
static LLVMValueRef materialize(rt *r, LLVMValueRef c, LLVMValueRef base, const int64_t *off,
                                bool *ok) {
  if (!LLVMIsAConstant(c) || !refs_lds(r, c, NULL))
    return c;
  if (LLVMIsAGlobalVariable(c)) {
    int i = lds_index(r, c);
    LLVMValueRef idx = LLVMConstInt(r->i64, (unsigned long long)(off[i] < 0 ? 0 : off[i]), 0);
    return LLVMBuildGEP2(r->b, r->i8, base, &idx, 1, "");
  }
  LLVMOpcode op = LLVMGetConstOpcode(c);
  int n = LLVMGetNumOperands(c);
  if (op == LLVMGetElementPtr) {
    LLVMValueRef p = materialize(r, LLVMGetOperand(c, 0), base, off, ok);
    LLVMValueRef idx[16];
    if (n - 1 > 16) {
      *ok = false;
      return c;
    }
    for (int i = 1; i < n; i++)
      idx[i - 1] = LLVMGetOperand(c, (unsigned)i);
    LLVMTypeRef st = LLVMGetGEPSourceElementType(c);
    return LLVMIsInBounds(c) ? LLVMBuildInBoundsGEP2(r->b, st, p, idx, (unsigned)n - 1, "")
                             : LLVMBuildGEP2(r->b, st, p, idx, (unsigned)n - 1, "");
  }
  if (n == 1 && op >= LLVMTrunc && op <= LLVMAddrSpaceCast)
    return LLVMBuildCast(r->b, op, materialize(r, LLVMGetOperand(c, 0), base, off, ok),
                         LLVMTypeOf(c), "");
  if (n == 2 && op >= LLVMAdd && op <= LLVMXor)
    return LLVMBuildBinOp(r->b, op, materialize(r, LLVMGetOperand(c, 0), base, off, ok),
                          materialize(r, LLVMGetOperand(c, 1), base, off, ok), "");
  *ok = false;
  return c;
}

static bool rewrite_lds(rt *r) {
  for (LLVMValueRef g = LLVMGetFirstGlobal(r->m); g; g = LLVMGetNextGlobal(g))
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == 3)
      r->nlds++;
  if (!r->nlds)
    return true;
  r->lds = calloc((size_t)r->nlds, sizeof *r->lds);
  int k = 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(r->m); g; g = LLVMGetNextGlobal(g))
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == 3)
      r->lds[k++] = g;

  /* Each kernel gets its own layout of the LDS it uses, as on the GPU; if a helper function
   * touches LDS directly, every kernel shares one module-wide layout. */
  bool *used = calloc((size_t)r->nlds, sizeof *used);
  int64_t *shared_off = calloc((size_t)r->nlds, sizeof *shared_off);
  int64_t *own_off = calloc((size_t)r->nlds, sizeof *own_off);
  bool module_wide = false;
  for (LLVMValueRef f = LLVMGetFirstFunction(r->m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && function_lds(r, f, NULL)) {
      bool kernel = false;
      for (int i = 0; i < r->info->nkernels; i++)
        kernel |= !strcmp(r->info->kernels[i].name, LLVMGetValueName(f));
      module_wide |= !kernel;
    }
  for (int i = 0; i < r->nlds; i++)
    used[i] = true;
  int64_t shared_end = layout(r, used, shared_off);

  bool ok = true;
  for (LLVMValueRef f = LLVMGetFirstFunction(r->m); f && ok; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f))
      continue;
    memset(used, 0, (size_t)r->nlds * sizeof *used);
    if (!function_lds(r, f, used))
      continue;
    const int64_t *off = shared_off;
    int64_t end = shared_end;
    if (!module_wide) {
      end = layout(r, used, own_off);
      off = own_off;
    }
    for (int i = 0; i < r->info->nkernels; i++)
      if (!strcmp(r->info->kernels[i].name, LLVMGetValueName(f)))
        r->info->kernels[i].lds_size = end;

    LLVMValueRef fn = declare(r, "emu_rt_lds_base", LLVMPointerTypeInContext(r->ctx, 3), NULL, 0,
                              "none");
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(f);
    LLVMPositionBuilderBefore(r->b, LLVMGetFirstInstruction(entry));
    LLVMValueRef base = LLVMBuildCall2(r->b, LLVMGlobalGetValueType(fn), fn, NULL, 0, "lds");
    LLVMValueRef after = LLVMGetNextInstruction(base);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
        int n = LLVMGetNumOperands(in);
        for (int i = 0; i < n; i++) {
          LLVMValueRef op = LLVMGetOperand(in, (unsigned)i);
          if (!op || !LLVMIsAConstant(op) || !refs_lds(r, op, NULL))
            continue;
          /* Everything derived from LDS addresses is computed once at entry, which dominates
           * every use (phi operands included). */
          LLVMPositionBuilderBefore(r->b, after);
          LLVMSetOperand(in, (unsigned)i, materialize(r, op, base, off, &ok));
        }
      }
  }
  if (module_wide)
    for (int i = 0; i < r->info->nkernels; i++)
      r->info->kernels[i].lds_size = shared_end;
  free(used);
  free(shared_off);
  free(own_off);
  if (!ok)
    return fail(r, "kernel module uses an LDS constant expression the emulator cannot rebuild");
  /* Dead constant expressions still name the globals. */
  for (int i = 0; i < r->nlds; i++) {
    LLVMReplaceAllUsesWith(r->lds[i], LLVMGetPoison(LLVMTypeOf(r->lds[i])));
    LLVMDeleteGlobal(r->lds[i]);
  }
  return true;
}

/* ---------------------------------------------------------------- intrinsics (step 7) */

/* A stack slot in the entry block (not at the call: inside a loop it would grow the stack). */
static LLVMValueRef slot(rt *r, LLVMValueRef call, LLVMTypeRef ty) {
  LLVMValueRef f = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
  LLVMBuilderRef eb = LLVMCreateBuilderInContext(r->ctx);
  LLVMPositionBuilderBefore(eb, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(f)));
  LLVMValueRef a = LLVMBuildAlloca(eb, ty, "");
  LLVMSetAlignment(a, 64);
  LLVMDisposeBuilder(eb);
  return a;
}

static LLVMValueRef spill(rt *r, LLVMValueRef call, LLVMValueRef v) {
  LLVMValueRef a = slot(r, call, LLVMTypeOf(v));
  LLVMBuildStore(r->b, v, a);
  return a;
}

static LLVMValueRef as_i64(rt *r, LLVMValueRef v) {
  LLVMTypeRef ty = LLVMTypeOf(v);
  if (ty == r->i64)
    return v;
  return LLVMBuildZExt(r->b, v, r->i64, "");
}

static void replace(LLVMValueRef call, LLVMValueRef v) {
  if (v)
    LLVMReplaceAllUsesWith(call, v);
  LLVMInstructionEraseFromParent(call);
}

static LLVMValueRef call_rt(rt *r, LLVMValueRef fn, LLVMValueRef *args, int n) {
  return LLVMBuildCall2(r->b, LLVMGlobalGetValueType(fn), fn, args, (unsigned)n, "");
}

static void rewrite_wave(rt *r, LLVMValueRef call, int kind) {
  LLVMTypeRef params[9] = {r->i32, r->ptr, r->ptr, r->ptr, r->i32, r->i64, r->i64, r->i64, r->i64};
  LLVMValueRef fn = declare(r, "emu_rt_wave", r->vd, params, 9, NULL);
  LLVMValueRef nul = LLVMConstNull(r->ptr);
  LLVMValueRef dst = nul, src = nul, old = nul, a[4];
  for (int i = 0; i < 4; i++)
    a[i] = LLVMConstInt(r->i64, 0, 0);
  LLVMTypeRef rty = LLVMTypeOf(call);
  bool has_result = LLVMGetTypeKind(rty) != LLVMVoidTypeKind;
  uint64_t bytes = has_result ? LLVMStoreSizeOfType(r->td, rty) : 0;
  LLVMValueRef op[6];
  int n = LLVMGetNumArgOperands(call);
  for (int i = 0; i < n && i < 6; i++)
    op[i] = LLVMGetOperand(call, (unsigned)i);
  if (has_result)
    dst = slot(r, call, rty);
  switch (kind) {
  case EMU_WOP_READFIRSTLANE:
  case EMU_WOP_PERMLANE64:
    src = spill(r, call, op[0]);
    break;
  case EMU_WOP_READLANE:
    src = spill(r, call, op[0]);
    a[0] = as_i64(r, op[1]);
    break;
  case EMU_WOP_BALLOT:
    a[0] = as_i64(r, op[0]);
    break;
  case EMU_WOP_BPERMUTE:
  case EMU_WOP_PERMUTE:
    a[0] = as_i64(r, op[0]);
    src = spill(r, call, op[1]);
    break;
  case EMU_WOP_SWIZZLE:
    src = spill(r, call, op[0]);
    a[0] = as_i64(r, op[1]);
    break;
  case EMU_WOP_UPDATE_DPP: /* old, src, ctrl, row_mask, bank_mask, bound_ctrl */
    old = spill(r, call, op[0]);
    src = spill(r, call, op[1]);
    for (int i = 0; i < 4; i++)
      a[i] = as_i64(r, op[2 + i]);
    break;
  case EMU_WOP_MOV_DPP: /* src, ctrl, row_mask, bank_mask, bound_ctrl; disabled lanes keep src */
    src = old = spill(r, call, op[0]);
    for (int i = 0; i < 4; i++)
      a[i] = as_i64(r, op[1 + i]);
    break;
  case EMU_WOP_READ_TR16: { /* the lane's own 8 bytes of LDS; the runtime transposes them */
    LLVMValueRef host = LLVMBuildAddrSpaceCast(r->b, op[0], r->ptr, "");
    LLVMValueRef v = LLVMBuildLoad2(r->b, rty, host, "");
    LLVMSetAlignment(v, 8);
    add_check(r, v, op[0], size_of(r, rty), EMU_ACC_LOAD);
    LLVMPositionBuilderBefore(r->b, call); /* add_check moved it before the load */
    src = spill(r, call, v);
    break;
  }
  case EMU_WOP_PERMLANE16:
  case EMU_WOP_PERMLANEX16: /* old, src, sel_lo, sel_hi, fi, bound_ctrl */
    old = spill(r, call, op[0]);
    src = spill(r, call, op[1]);
    a[0] = as_i64(r, op[2]);
    a[1] = as_i64(r, op[3]);
    break;
  default:
    break;
  }
  LLVMValueRef args[9] = {LLVMConstInt(r->i32, (unsigned)kind, 0), dst, src, old,
                          LLVMConstInt(r->i32, bytes, 0), a[0], a[1], a[2], a[3]};
  call_rt(r, fn, args, 9);
  replace(call, has_result ? LLVMBuildLoad2(r->b, rty, dst, "") : NULL);
}

static int matrix_kind(rt *r, const char *name) {
  for (int i = 0; i < r->info->nmatrix; i++)
    if (!strcmp(r->info->matrix_ops[i], name))
      return EMU_WOP_MATRIX + i;
  r->info->matrix_ops = realloc(r->info->matrix_ops, sizeof(char *) * (size_t)(r->info->nmatrix + 1));
  r->info->matrix_ops[r->info->nmatrix] = dupstr(name);
  return EMU_WOP_MATRIX + r->info->nmatrix++;
}

/* MFMA: (A, B, C, cbsz, abid, blgp). WMMA: the non-i1 operands are A, B, C in order; a single
 * i1 (opsel or clamp) goes in abid; the integer forms' (sign A, sign B, clamp) go in
 * (cbsz, blgp, abid). Block-scaled MFMA: (A, B, C, format A, format B, opsel A, scale A, opsel B,
 * scale B): the formats go in (cbsz, blgp), the scales (per-lane values) and
 * EMU_SCALED | opsel A | opsel B << 2 in the last three arguments; both scales the constant 0 is
 * the unscaled instruction (what llc-22 selects for it). */
static void rewrite_matrix(rt *r, LLVMValueRef call, const char *name) {
  LLVMTypeRef params[11] = {r->i32, r->ptr, r->ptr, r->ptr, r->ptr, r->i32, r->i32, r->i32, r->i32, r->i32, r->i32};
  LLVMValueRef fn = declare(r, "emu_rt_matrix", r->vd, params, 11, NULL);
  int n = LLVMGetNumArgOperands(call);
  LLVMValueRef vec[3] = {0}, ints[8];
  int nv = 0, ni = 0;
  bool mfma = strncmp(name, "llvm.amdgcn.wmma.", 17) != 0;
  for (int i = 0; i < n; i++) {
    LLVMValueRef v = LLVMGetOperand(call, (unsigned)i);
    bool is_int_mod = mfma ? i >= 3 : LLVMTypeOf(v) == r->i1;
    if (!is_int_mod && nv < 3)
      vec[nv++] = v;
    else if (ni < 8)
      ints[ni++] = v;
  }
  int cbsz = 0, abid = 0, blgp = 0;
  long long iv[8] = {0};
  for (int i = 0; i < ni; i++)
    /* i1 flags (WMMA signedness, clamp, opsel) are 0/1: zero-extend; MFMA modifiers are i32. */
    iv[i] = !LLVMIsAConstantInt(ints[i]) ? 0
            : LLVMTypeOf(ints[i]) == r->i1 ? (long long)LLVMConstIntGetZExtValue(ints[i])
                                           : LLVMConstIntGetSExtValue(ints[i]);
  bool scale = !strncmp(name, "llvm.amdgcn.mfma.scale.", 23) && ni == 6;
  LLVMValueRef zero = LLVMConstInt(r->i32, 0, 0), scale_a = zero, scale_b = zero;
  int scale_mode = 0;
  if (scale) {
    cbsz = (int)iv[0], blgp = (int)iv[1];
    scale_a = ints[3], scale_b = ints[5];
    bool unscaled = LLVMIsAConstantInt(scale_a) && LLVMIsAConstantInt(scale_b) && !LLVMConstIntGetZExtValue(scale_a) &&
                    !LLVMConstIntGetZExtValue(scale_b);
    if (!unscaled)
      scale_mode = EMU_SCALED | ((int)iv[2] & 3) | ((int)iv[4] & 3) << 2;
  } else if (mfma) {
    cbsz = (int)iv[0], abid = (int)iv[1], blgp = (int)iv[2];
  } else if (ni == 1) {
    abid = (int)iv[0];
  } else if (ni >= 3) {
    cbsz = (int)iv[0], blgp = (int)iv[1], abid = (int)iv[2];
  }
  LLVMValueRef d = slot(r, call, LLVMTypeOf(call));
  LLVMValueRef a = spill(r, call, vec[0]), bb = spill(r, call, vec[1]), c = spill(r, call, vec[2]);
  LLVMValueRef args[11] = {LLVMConstInt(r->i32, (unsigned)matrix_kind(r, name), 0), d, a, bb, c,
                           LLVMConstInt(r->i32, (unsigned)cbsz, 0), LLVMConstInt(r->i32, (unsigned)abid, 0),
                           LLVMConstInt(r->i32, (unsigned)blgp, 0), LLVMConstInt(r->i32, (unsigned)scale_mode, 0),
                           scale_a, scale_b};
  call_rt(r, fn, args, 11);
  replace(call, LLVMBuildLoad2(r->b, LLVMTypeOf(call), d, ""));
}

/* d = c + sum a[i] * b[i]: fdot2 (<2 x half> or <2 x bfloat> into f32; the products are exact in
 * f32, summed in order) or sdot4 (i32 operands as 4 signed bytes into i32, wrapping); the clamp
 * operand is false in tosac's kernels and ignored. */
static void rewrite_dot(rt *r, LLVMValueRef call, bool bytes) {
  LLVMBuilderRef b = r->b;
  LLVMValueRef a = LLVMGetOperand(call, 0), bb = LLVMGetOperand(call, 1), acc = LLVMGetOperand(call, 2);
  if (bytes) {
    LLVMTypeRef v4 = LLVMVectorType(r->i8, 4);
    a = LLVMBuildBitCast(b, a, v4, ""), bb = LLVMBuildBitCast(b, bb, v4, "");
  }
  unsigned n = LLVMGetVectorSize(LLVMTypeOf(a));
  LLVMTypeRef ft = LLVMFloatTypeInContext(r->ctx);
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef idx = LLVMConstInt(r->i32, i, 0);
    LLVMValueRef x = LLVMBuildExtractElement(b, a, idx, ""), y = LLVMBuildExtractElement(b, bb, idx, "");
    if (bytes) {
      x = LLVMBuildSExt(b, x, r->i32, ""), y = LLVMBuildSExt(b, y, r->i32, "");
      acc = LLVMBuildAdd(b, acc, LLVMBuildMul(b, x, y, ""), "");
    } else {
      x = LLVMBuildFPExt(b, x, ft, ""), y = LLVMBuildFPExt(b, y, ft, "");
      acc = LLVMBuildFAdd(b, acc, LLVMBuildFMul(b, x, y, ""), "");
    }
  }
  replace(call, acc);
}

/* <2 x half> of two floats rounded toward zero (v_cvt_pkrtz_f16_f32): the host's rounding to
 * nearest, then one step toward zero where that rounded away from it (a larger magnitude; also
 * a finite value past the largest half, rounded to inf, becomes the largest half; NaN and inf
 * stay). */
static void rewrite_pkrtz(rt *r, LLVMValueRef call) {
  LLVMBuilderRef b = r->b;
  LLVMTypeRef ft = LLVMFloatTypeInContext(r->ctx), ht = LLVMHalfTypeInContext(r->ctx);
  LLVMValueRef res = LLVMGetUndef(LLVMVectorType(ht, 2)), mag = LLVMConstInt(r->i32, 0x7fffffff, 0);
  for (unsigned i = 0; i < 2; i++) {
    LLVMValueRef x = LLVMGetOperand(call, i), h = LLVMBuildFPTrunc(b, x, ht, "");
    LLVMValueRef ax = LLVMBuildBitCast(b, LLVMBuildAnd(b, LLVMBuildBitCast(b, x, r->i32, ""), mag, ""), ft, "");
    LLVMValueRef back = LLVMBuildFPExt(b, h, ft, "");
    LLVMValueRef ab = LLVMBuildBitCast(b, LLVMBuildAnd(b, LLVMBuildBitCast(b, back, r->i32, ""), mag, ""), ft, "");
    LLVMValueRef away = LLVMBuildFCmp(b, LLVMRealOGT, ab, ax, "");
    LLVMValueRef hb = LLVMBuildBitCast(b, h, r->i16, "");
    hb = LLVMBuildSelect(b, away, LLVMBuildSub(b, hb, LLVMConstInt(r->i16, 1, 0), ""), hb, "");
    res = LLVMBuildInsertElement(b, res, LLVMBuildBitCast(b, hb, ht, ""), LLVMConstInt(r->i32, i, 0), "");
  }
  replace(call, res);
}

/* perm(a, b, sel): byte i of the result is selected by byte s of sel: byte s of the 64-bit {a, b}
 * (b the low word) for s < 8, the sign of 16-bit half s - 8 of {a, b} repeated for s < 12, 0 for
 * 12 and 0xff above (v_perm_b32). */
static void rewrite_perm(rt *r, LLVMValueRef call) {
  LLVMBuilderRef b = r->b;
  LLVMValueRef hi = LLVMBuildZExt(b, LLVMGetOperand(call, 0), r->i64, "");
  LLVMValueRef in = LLVMBuildOr(b, LLVMBuildShl(b, hi, LLVMConstInt(r->i64, 32, 0), ""),
                                LLVMBuildZExt(b, LLVMGetOperand(call, 1), r->i64, ""), "");
  LLVMValueRef sel = LLVMGetOperand(call, 2), res = LLVMConstInt(r->i32, 0, 0);
  LLVMValueRef ff = LLVMConstInt(r->i32, 0xff, 0), zero = LLVMConstInt(r->i32, 0, 0);
  for (unsigned i = 0; i < 4; i++) {
    LLVMValueRef s = LLVMBuildAnd(b, LLVMBuildLShr(b, sel, LLVMConstInt(r->i32, 8 * i, 0), ""), ff, "");
    LLVMValueRef s64 = LLVMBuildZExt(b, s, r->i64, "");
    LLVMValueRef at = LLVMBuildShl(b, LLVMBuildAnd(b, s64, LLVMConstInt(r->i64, 7, 0), ""), LLVMConstInt(r->i64, 3, 0), "");
    LLVMValueRef pick = LLVMBuildAnd(b, LLVMBuildTrunc(b, LLVMBuildLShr(b, in, at, ""), r->i32, ""), ff, "");
    /* s in 8..11: bit 16·(s - 8) + 15 of {a, b} */
    at = LLVMBuildAdd(b, LLVMBuildShl(b, LLVMBuildAnd(b, s64, LLVMConstInt(r->i64, 3, 0), ""), LLVMConstInt(r->i64, 4, 0), ""),
                      LLVMConstInt(r->i64, 15, 0), "");
    LLVMValueRef bit = LLVMBuildTrunc(b, LLVMBuildLShr(b, in, at, ""), LLVMInt1TypeInContext(r->ctx), "");
    LLVMValueRef sign = LLVMBuildSelect(b, bit, ff, zero, "");
    LLVMValueRef rest = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, s, LLVMConstInt(r->i32, 12, 0), ""), zero, ff, "");
    rest = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, s, LLVMConstInt(r->i32, 12, 0), ""), sign, rest, "");
    LLVMValueRef byte = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, s, LLVMConstInt(r->i32, 8, 0), ""), pick, rest, "");
    res = LLVMBuildOr(b, res, LLVMBuildShl(b, byte, LLVMConstInt(r->i32, 8 * i, 0), ""), "");
  }
  replace(call, res);
}

/* cvt.pk.{fp8,bf8}.f32(a, b, old, word): the encodings (FNUZ or OCP) are the target's. */
static void rewrite_cvt_f8(rt *r, LLVMValueRef call, bool bf8) {
  const target_info *ti = target_lookup(r->t->processor, strlen(r->t->processor));
  unsigned how = (bf8 ? 2u : 0u) | (ti && ti->fp8_fnuz ? 4u : 0u);
  LLVMTypeRef ft = LLVMFloatTypeInContext(r->ctx), p[4] = {ft, ft, r->i32, r->i32};
  LLVMValueRef word = LLVMBuildZExt(r->b, LLVMGetOperand(call, 3), r->i32, "");
  LLVMValueRef args[4] = {LLVMGetOperand(call, 0), LLVMGetOperand(call, 1), LLVMGetOperand(call, 2),
                          LLVMBuildOr(r->b, word, LLVMConstInt(r->i32, how, 0), "")};
  replace(call, call_rt(r, declare(r, "emu_rt_cvt_pk_f8", r->i32, p, 4, "none"), args, 4));
}

/* cvt.f32.{fp8,bf8}(src, byte) and cvt.pk.f32.{fp8,bf8}(src, word): the selected byte(s) of src
 * to f32, the encodings (FNUZ or OCP) the target's. */
static void rewrite_cvt_f32_f8(rt *r, LLVMValueRef call, bool bf8, bool pk) {
  const target_info *ti = target_lookup(r->t->processor, strlen(r->t->processor));
  LLVMValueRef how = LLVMConstInt(r->i32, (bf8 ? 2u : 0u) | (ti && ti->fp8_fnuz ? 4u : 0u), 0);
  LLVMTypeRef p[2] = {r->i32, r->i32}, ft = LLVMFloatTypeInContext(r->ctx);
  LLVMValueRef fn = declare(r, "emu_rt_cvt_f32_f8", r->i32, p, 2, "none");
  LLVMValueRef sel = LLVMBuildZExt(r->b, LLVMGetOperand(call, 1), r->i32, "");
  LLVMValueRef src = LLVMBuildLShr(r->b, LLVMGetOperand(call, 0),
                                   LLVMBuildMul(r->b, sel, LLVMConstInt(r->i32, pk ? 16 : 8, 0), ""), "");
  LLVMValueRef res = pk ? LLVMGetUndef(LLVMVectorType(ft, 2)) : NULL;
  for (unsigned i = 0; i < (pk ? 2u : 1u); i++) {
    LLVMValueRef code = LLVMBuildLShr(r->b, src, LLVMConstInt(r->i32, 8 * i, 0), "");
    LLVMValueRef args[2] = {LLVMBuildAnd(r->b, code, LLVMConstInt(r->i32, 0xff, 0), ""), how};
    LLVMValueRef v = LLVMBuildBitCast(r->b, call_rt(r, fn, args, 2), ft, "");
    res = pk ? LLVMBuildInsertElement(r->b, res, v, LLVMConstInt(r->i32, i, 0), "") : v;
  }
  replace(call, res);
}

static void rewrite_call(rt *r, LLVMValueRef call, const intrinsic_rule *rule, const char *name) {
  LLVMPositionBuilderBefore(r->b, call);
  LLVMTypeRef rty = LLVMTypeOf(call);
  if (!rule) {
    rewrite_matrix(r, call, name);
    return;
  }
  switch (rule->how) {
  case R_ERASE:
    replace(call, NULL);
    break;
  case R_WORKITEM:
  case R_WORKGROUP: {
    LLVMValueRef fn = declare(r, rule->how == R_WORKITEM ? "emu_rt_workitem_id" : "emu_rt_workgroup_id",
                              r->i32, &r->i32, 1, "none");
    LLVMValueRef dim = LLVMConstInt(r->i32, (unsigned)rule->arg, 0);
    replace(call, call_rt(r, fn, &dim, 1));
    break;
  }
  case R_BARRIER:
    call_rt(r, declare(r, "emu_rt_barrier", r->vd, NULL, 0, NULL), NULL, 0);
    replace(call, NULL);
    break;
  case R_PTR: {
    static const char *names[] = {"emu_rt_implicitarg_ptr", "emu_rt_dispatch_ptr", "emu_rt_kernarg_ptr"};
    LLVMValueRef fn = declare(r, names[rule->arg], r->ptr, NULL, 0, "none");
    LLVMValueRef v = call_rt(r, fn, NULL, 0);
    if (rty != r->ptr)
      v = LLVMBuildAddrSpaceCast(r->b, v, rty, "");
    replace(call, v);
    break;
  }
  case R_MBCNT: {
    LLVMTypeRef p[2] = {r->i32, r->i32};
    LLVMValueRef fn = declare(r, rule->arg ? "emu_rt_mbcnt_hi" : "emu_rt_mbcnt_lo", r->i32, p, 2, "none");
    LLVMValueRef args[2] = {LLVMGetOperand(call, 0), LLVMGetOperand(call, 1)};
    replace(call, call_rt(r, fn, args, 2));
    break;
  }
  case R_WAVE:
    rewrite_wave(r, call, rule->arg);
    break;
  case R_WAVESIZE:
    replace(call, LLVMConstInt(rty, (unsigned)r->t->wave_size, 0));
    break;
  case R_IDENTITY:
    replace(call, LLVMGetOperand(call, 0));
    break;
  case R_BUF_RSRC: /* stride 0, no swizzle: the resource is its base address */
    replace(call, LLVMBuildAddrSpaceCast(r->b, LLVMGetOperand(call, 0), rty, ""));
    break;
  case R_BUF_LOAD: {
    /* an offset at or past num_records reads zeros, as on the hardware (the per-tile convolution
     * gather sets bit 31 for padding taps); any other access outside the buffer stops the run */
    LLVMValueRef base = LLVMBuildAddrSpaceCast(r->b, LLVMGetOperand(call, 0), r->ptr, "");
    LLVMValueRef off = LLVMBuildAdd(r->b, LLVMBuildZExt(r->b, LLVMGetOperand(call, 1), r->i64, ""),
                                    LLVMBuildZExt(r->b, LLVMGetOperand(call, 2), r->i64, ""), "");
    LLVMValueRef p = LLVMBuildGEP2(r->b, r->i8, base, &off, 1, "");
    LLVMValueRef rs = LLVMGetOperand(call, 0), out = NULL;
    if (is_rsrc_call(rs)) {
      LLVMValueRef n = LLVMBuildIntCast2(r->b, LLVMGetOperand(rs, 2), r->i64, 0, "");
      out = LLVMBuildICmp(r->b, LLVMIntUGE, off, n, "");
      p = LLVMBuildSelect(r->b, out, base, p, "");
    }
    LLVMValueRef v = LLVMBuildLoad2(r->b, rty, p, "");
    LLVMSetAlignment(v, 1);
    add_check(r, v, p, size_of(r, rty), EMU_ACC_LOAD);
    LLVMPositionBuilderBefore(r->b, call); /* add_check moved it before the load */
    replace(call, out ? LLVMBuildSelect(r->b, out, LLVMConstNull(rty), v, "") : v);
    break;
  }
  case R_MATRIX:
    break;
  case R_DOT:
    rewrite_dot(r, call, rule->arg == 1);
    break;
  case R_PKRTZ:
    rewrite_pkrtz(r, call);
    break;
  case R_PERM:
    rewrite_perm(r, call);
    break;
  case R_CVT_F8:
    rewrite_cvt_f8(r, call, rule->arg == 1);
    break;
  case R_CVT_F32_F8:
    rewrite_cvt_f32_f8(r, call, rule->arg & 1, rule->arg & 2);
    break;
  }
}

/* Rewrite the calls of every amdgcn intrinsic, buffer resources only (rsrc) or all others. */
static bool rewrite_intrinsic_calls(rt *r, bool rsrc) {
  LLVMValueRef next;
  for (LLVMValueRef f = LLVMGetFirstFunction(r->m); f; f = next) {
    next = LLVMGetNextFunction(f);
    if (!is_amdgcn(f))
      continue;
    size_t len = 0;
    const char *base = intrinsic_base(f, &len);
    char name[160];
    snprintf(name, sizeof name, "%.*s", (int)len, base ? base : "");
    const intrinsic_rule *rule = base ? find_rule(base, len) : NULL;
    if ((rule && rule->how == R_BUF_RSRC) != rsrc)
      continue;
    int n = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u))
      n++;
    LLVMValueRef *calls = calloc((size_t)n + 1, sizeof *calls);
    n = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u))
      calls[n++] = LLVMGetUser(u);
    for (int i = 0; i < n; i++) {
      if (!LLVMIsACallInst(calls[i])) {
        free(calls);
        return fail(r, "kernel module uses %s other than in a call", name);
      }
      rewrite_call(r, calls[i], rule, name);
    }
    free(calls);
    LLVMDeleteFunction(f);
  }
  return true;
}

/* Buffer resources last: a buffer load reads num_records off its make.buffer.rsrc call. */
static bool rewrite_intrinsics(rt *r) {
  return rewrite_intrinsic_calls(r, false) && rewrite_intrinsic_calls(r, true);
}

/* ---------------------------------------------------------------- entries and globals */

static void add_entries(rt *r, const kernel_args *ka) {
  LLVMTypeRef fty = LLVMFunctionType(r->vd, &r->ptr, 1, 0);
  for (int k = 0; k < r->info->nkernels; k++) {
    const kernel_args *a = &ka[k];
    LLVMValueRef w = LLVMAddFunction(r->m, r->info->kernels[k].entry_name, fty);
    LLVMPositionBuilderAtEnd(r->b, LLVMAppendBasicBlockInContext(r->ctx, w, "entry"));
    LLVMValueRef blob = LLVMGetParam(w, 0);
    LLVMValueRef *args = calloc((size_t)a->nargs + 1, sizeof *args);
    for (int i = 0; i < a->nargs; i++) {
      LLVMValueRef idx = LLVMConstInt(r->i64, a->offsets[i], 0);
      LLVMValueRef p = LLVMBuildGEP2(r->b, r->i8, blob, &idx, 1, "");
      LLVMTypeRef ty = a->types[i];
      bool narrow_ptr = LLVMGetTypeKind(ty) == LLVMPointerTypeKind && a->gpu_sizes[i] == 4;
      LLVMValueRef v = LLVMBuildLoad2(r->b, narrow_ptr ? r->i32 : ty, p, "");
      LLVMSetAlignment(v, 1);
      args[i] = narrow_ptr ? LLVMBuildIntToPtr(r->b, v, ty, "") : v;
    }
    LLVMBuildCall2(r->b, LLVMGlobalGetValueType(a->fn), a->fn, args, (unsigned)a->nargs, "");
    LLVMBuildRetVoid(r->b);
    free(args);
  }
}

/* A table of the module's own globals (address, size), so access checks admit them. */
static void add_globals_table(rt *r) {
  LLVMTypeRef pair_elems[2] = {r->ptr, r->i64};
  LLVMTypeRef pair = LLVMStructTypeInContext(r->ctx, pair_elems, 2, 0);
  int n = 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(r->m); g; g = LLVMGetNextGlobal(g))
    n += !LLVMIsDeclaration(g);
  LLVMValueRef *items = calloc((size_t)n + 1, sizeof *items);
  int k = 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(r->m); g; g = LLVMGetNextGlobal(g)) {
    if (LLVMIsDeclaration(g))
      continue;
    LLVMValueRef e[2] = {LLVMConstAddrSpaceCast(g, r->ptr),
                         LLVMConstInt(r->i64, LLVMABISizeOfType(r->td, LLVMGlobalGetValueType(g)), 0)};
    items[k++] = LLVMConstNamedStruct(pair, e, 2);
  }
  LLVMValueRef z[2] = {LLVMConstNull(r->ptr), LLVMConstInt(r->i64, 0, 0)};
  items[k++] = LLVMConstNamedStruct(pair, z, 2);
  LLVMTypeRef arr = LLVMArrayType2(pair, (uint64_t)k);
  LLVMValueRef tab = LLVMAddGlobal(r->m, arr, EMU_GLOBALS_SYMBOL);
  LLVMSetInitializer(tab, LLVMConstArray2(pair, items, (uint64_t)k));
  LLVMSetGlobalConstant(tab, 1);
  LLVMValueRef cnt = LLVMAddGlobal(r->m, r->i64, EMU_NGLOBALS_SYMBOL);
  LLVMSetInitializer(cnt, LLVMConstInt(r->i64, (unsigned)n, 0));
  LLVMSetGlobalConstant(cnt, 1);
  free(items);
}

bool emu_retarget(LLVMModuleRef m, const char *host_triple, const char *host_layout,
                  const emu_target *t, emu_rtinfo *info, char *err, size_t errsize) {
  rt r = {.m = m, .ctx = LLVMGetModuleContext(m), .t = t, .info = info, .err = err, .errsize = errsize};
  r.i1 = LLVMInt1TypeInContext(r.ctx);
  r.i8 = LLVMInt8TypeInContext(r.ctx);
  r.i16 = LLVMInt16TypeInContext(r.ctx);
  r.i32 = LLVMInt32TypeInContext(r.ctx);
  r.i64 = LLVMInt64TypeInContext(r.ctx);
  r.ptr = LLVMPointerTypeInContext(r.ctx, 0);
  r.vd = LLVMVoidTypeInContext(r.ctx);
  r.b = LLVMCreateBuilderInContext(r.ctx);
  kernel_args *ka = NULL;
  bool ok = check_intrinsics(&r) && record_kernels(&r, &ka);
  if (ok && !info->nkernels)
    ok = fail(&r, "kernel module has no kernels");
  if (ok) {
    strip_target(&r);
    LLVMSetTarget(m, host_triple);
    LLVMSetDataLayout(m, host_layout);
    r.td = LLVMGetModuleDataLayout(m);
    instrument(&r);
    ok = rewrite_lds(&r) && rewrite_intrinsics(&r);
  }
  if (ok) {
    add_entries(&r, ka);
    add_globals_table(&r);
    char *msg = NULL;
    if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
      char *nl = strchr(msg, '\n');
      if (nl)
        *nl = 0;
      ok = fail(&r, "re-targeted kernel module is invalid: %s", msg);
    }
    LLVMDisposeMessage(msg);
  }
  for (int k = 0; ka && k < info->nkernels; k++) {
    free(ka[k].types);
    free(ka[k].offsets);
    free(ka[k].gpu_sizes);
  }
  free(ka);
  free(r.lds);
  LLVMDisposeBuilder(r.b);
  return ok;
}

void emu_rtinfo_free(emu_rtinfo *info) {
  for (int i = 0; i < info->nkernels; i++) {
    free(info->kernels[i].name);
    free(info->kernels[i].entry_name);
  }
  free(info->kernels);
  for (int i = 0; i < info->nmatrix; i++)
    free(info->matrix_ops[i]);
  free(info->matrix_ops);
  free(info->globals);
  memset(info, 0, sizeof *info);
}
