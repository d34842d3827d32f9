/* builder.c: the thin cg_ layer between kernel families and LLVM: ids, barriers, LDS, intrinsic
 * calls checked against the target table, typed memory accesses. Kernels never test GPU names. */
#include "codegen.h"

#include <llvm-c/DebugInfo.h>

#include <stdlib.h>
#include <string.h>

void cg_builder_init(cg_builder *cb, LLVMContextRef ctx, LLVMModuleRef mod, LLVMTargetMachineRef tm,
                     const target_request *t, diag_sink *d) {
  memset(cb, 0, sizeof *cb);
  cb->ctx = ctx;
  cb->mod = mod;
  cb->tm = tm;
  cb->target = t;
  cb->diag = d;
  cb->b = LLVMCreateBuilderInContext(ctx);
  cb->i1 = LLVMInt1TypeInContext(ctx);
  cb->i8 = LLVMInt8TypeInContext(ctx);
  cb->i16 = LLVMInt16TypeInContext(ctx);
  cb->i32 = LLVMInt32TypeInContext(ctx);
  cb->i64 = LLVMInt64TypeInContext(ctx);
  cb->f16 = LLVMHalfTypeInContext(ctx);
  cb->bf16 = LLVMBFloatTypeInContext(ctx);
  cb->f32 = LLVMFloatTypeInContext(ctx);
  cb->f64 = LLVMDoubleTypeInContext(ctx);
  cb->void_t = LLVMVoidTypeInContext(ctx);
  cb->ptr_global = LLVMPointerTypeInContext(ctx, 1);
  cb->ptr_const = LLVMPointerTypeInContext(ctx, 4);
}

void cg_builder_dispose(cg_builder *cb) {
  if (cb->b)
    LLVMDisposeBuilder(cb->b);
  cb->b = NULL;
}

LLVMTypeRef cg_elem_type(cg_builder *cb, elem_type t) {
  switch (t) {
  case ET_I1: return cb->i1;
  case ET_I8: return cb->i8;
  case ET_I16: return cb->i16;
  case ET_I32: return cb->i32;
  case ET_I48: /* sign-extended to 64 bits in registers and in memory (8 bytes) */
  case ET_I64: return cb->i64;
  case ET_F16: return cb->f16;
  case ET_BF16: return cb->bf16;
  case ET_F32: return cb->f32;
  case ET_F64: return cb->f64;
  default: return NULL;
  }
}

LLVMTypeRef cg_mem_type(cg_builder *cb, elem_type t) {
  return t == ET_I1 || elem_type_is_f8(t) ? cb->i8 : cg_elem_type(cb, t); /* f8: raw bytes */
}

static void add_attr(cg_builder *cb, LLVMValueRef fn, unsigned idx, const char *name) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMAddAttributeAtIndex(fn, idx, LLVMCreateEnumAttribute(cb->ctx, kind, 0));
}

static void add_string_attr(cg_builder *cb, LLVMValueRef fn, const char *k, const char *v) {
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(cb->ctx, k, (unsigned)strlen(k), v,
                                                    (unsigned)strlen(v)));
}

LLVMValueRef cg_kernel_begin(cg_builder *cb, const char *name, int nargs, const char *const *access,
                             int max_wg) {
  /* as many as the kernel has buffers (a grouped GEMM: A and each GEMM's B, bias and output) */
  LLVMTypeRef *params = malloc(sizeof(LLVMTypeRef) * ((size_t)nargs + 1));
  for (int i = 0; i < nargs; i++)
    params[i] = cb->ptr_global;
  LLVMTypeRef fty = LLVMFunctionType(cb->void_t, params, (unsigned)nargs, 0);
  free(params);
  LLVMValueRef fn = LLVMAddFunction(cb->mod, name, fty);
  LLVMSetFunctionCallConv(fn, LLVMAMDGPUKERNELCallConv);
  int nin = 0, nout = 0;
  for (int i = 0; i < nargs; i++) {
    unsigned idx = (unsigned)i + 1;
    if (!cb->args_alias)
      add_attr(cb, fn, idx, "noalias");
    add_attr(cb, fn, idx, "noundef");
    if (strcmp(access[i], "read_only") == 0)
      add_attr(cb, fn, idx, "readonly");
    else if (strcmp(access[i], "write_only") == 0)
      add_attr(cb, fn, idx, "writeonly");
    char pname[16];
    bool in = strcmp(access[i], "read_only") == 0;
    snprintf(pname, sizeof pname, "%s%d", in ? "in" : "out", in ? nin++ : nout++);
    LLVMSetValueName2(LLVMGetParam(fn, (unsigned)i), pname, strlen(pname));
  }
  char wg[32];
  snprintf(wg, sizeof wg, "1,%d", max_wg);
  add_string_attr(cb, fn, "amdgpu-flat-work-group-size", wg);
  add_string_attr(cb, fn, "uniform-work-group-size", "true");
  cb->fn = fn;
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(cb->ctx, fn, "entry");
  LLVMPositionBuilderAtEnd(cb->b, entry);
  return fn;
}

/* Intrinsic families that only some targets have; everything else under llvm.amdgcn.* used by
 * the builder exists on every target in the table. */
static const struct {
  const char *prefix;
  size_t offset; /* bool field of target_info that must be true */
} intrinsic_requirements[] = {
    {"llvm.amdgcn.mfma.", offsetof(target_info, has_mfma)},
    {"llvm.amdgcn.smfmac.", offsetof(target_info, has_mfma)},
    {"llvm.amdgcn.wmma.", offsetof(target_info, has_wmma)},
    {"llvm.amdgcn.swmmac.", offsetof(target_info, has_wmma)},
    {"llvm.amdgcn.cvt.pk.fp8.", offsetof(target_info, cvt_pk_f8)},
    {"llvm.amdgcn.cvt.pk.bf8.", offsetof(target_info, cvt_pk_f8)},
    {"llvm.amdgcn.cvt.f32.fp8", offsetof(target_info, cvt_pk_f8)},
    {"llvm.amdgcn.cvt.f32.bf8", offsetof(target_info, cvt_pk_f8)},
    {"llvm.amdgcn.cvt.pk.f32.", offsetof(target_info, cvt_pk_f8)},
};

bool cg_intrinsic_available(const target_info *t, const char *name) {
  for (size_t i = 0; i < sizeof intrinsic_requirements / sizeof intrinsic_requirements[0]; i++)
    if (strncmp(name, intrinsic_requirements[i].prefix, strlen(intrinsic_requirements[i].prefix)) == 0)
      return *(const bool *)((const char *)t + intrinsic_requirements[i].offset);
  return true;
}

LLVMValueRef cg_intrinsic(cg_builder *cb, const char *name, LLVMTypeRef *overloads, int noverloads,
                          LLVMValueRef *args, int nargs) {
  if (!cg_intrinsic_available(cb->target->info, name)) {
    diag_error_noloc(cb->diag, "intrinsic %s is not available on %s", name, cb->target->id);
    cb->failed = true;
    return NULL;
  }
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  if (!id) {
    diag_error_noloc(cb->diag, "unknown LLVM intrinsic %s", name);
    cb->failed = true;
    return NULL;
  }
  LLVMValueRef decl = LLVMGetIntrinsicDeclaration(cb->mod, id, overloads, (size_t)noverloads);
  return LLVMBuildCall2(cb->b, LLVMGlobalGetValueType(decl), decl, args, (unsigned)nargs, "");
}

LLVMValueRef cg_thread_id_x(cg_builder *cb) {
  return cg_intrinsic(cb, "llvm.amdgcn.workitem.id.x", NULL, 0, NULL, 0);
}

LLVMValueRef cg_group_id_x(cg_builder *cb) {
  return cg_intrinsic(cb, "llvm.amdgcn.workgroup.id.x", NULL, 0, NULL, 0);
}

/* s.barrier alone does not order LDS accesses: the fences make LLVM wait for them first. */
void cg_barrier(cg_builder *cb) {
  unsigned ws = LLVMGetSyncScopeID(cb->ctx, "workgroup", 9);
  LLVMBuildFenceSyncScope(cb->b, LLVMAtomicOrderingRelease, ws, "");
  cg_intrinsic(cb, "llvm.amdgcn.s.barrier", NULL, 0, NULL, 0);
  LLVMBuildFenceSyncScope(cb->b, LLVMAtomicOrderingAcquire, ws, "");
}

LLVMValueRef cg_lds_alloc(cg_builder *cb, const char *name, LLVMTypeRef ty, unsigned align) {
  LLVMValueRef g = LLVMAddGlobalInAddressSpace(cb->mod, ty, name, 3);
  LLVMSetInitializer(g, LLVMGetUndef(ty));
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetAlignment(g, align);
  return g;
}

/* A read-only table in the constant address space, private to the module; unnamed_addr lets
 * LLVM merge equal tables and fold loads from them. */
LLVMValueRef cg_const_table(cg_builder *cb, const char *name, LLVMValueRef init, unsigned align) {
  LLVMValueRef g = LLVMAddGlobalInAddressSpace(cb->mod, LLVMTypeOf(init), name, 4);
  LLVMSetInitializer(g, init);
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
  LLVMSetAlignment(g, align);
  return g;
}

LLVMValueRef cg_load(cg_builder *cb, LLVMTypeRef ty, LLVMValueRef ptr, unsigned align) {
  LLVMValueRef v = LLVMBuildLoad2(cb->b, ty, ptr, "");
  LLVMSetAlignment(v, align);
  return v;
}

void cg_store(cg_builder *cb, LLVMValueRef v, LLVMValueRef ptr, unsigned align) {
  LLVMValueRef s = LLVMBuildStore(cb->b, v, ptr);
  LLVMSetAlignment(s, align);
}

LLVMValueRef cg_const_float(cg_builder *cb, elem_type t, double v) {
  return LLVMConstReal(cg_elem_type(cb, t), v);
}

LLVMValueRef cg_const_int(cg_builder *cb, elem_type t, int64_t v) {
  return LLVMConstInt(cg_elem_type(cb, t), (unsigned long long)v, 1);
}

LLVMValueRef cg_int_wrap(cg_builder *cb, LLVMValueRef x, elem_type t) {
  LLVMBuilderRef b = cb->b;
  LLVMTypeRef rt = cg_elem_type(cb, t);
  unsigned have = LLVMGetIntTypeWidth(LLVMTypeOf(x)), want = LLVMGetIntTypeWidth(rt);
  x = want < have ? LLVMBuildTrunc(b, x, rt, "") : LLVMBuildSExt(b, x, rt, "");
  int pad = (int)want - elem_type_bits(t);
  if (pad > 0 && elem_type_bits(t) < (int)have) {
    LLVMValueRef sh = LLVMConstInt(rt, (unsigned long long)pad, 0);
    x = LLVMBuildAShr(b, LLVMBuildShl(b, x, sh, ""), sh, "");
  }
  return x;
}

void cg_launch_1d(cg_kernel_info *info, const part_kernel *k, int block, int64_t groups,
                  int64_t work_items, int vector_width, const char *const *access) {
  info->block[0] = (uint32_t)block, info->block[1] = 1, info->block[2] = 1;
  /* Saturated at UINT32_MAX: no dispatch holds that many (build_kernels reports it). */
  info->grid[0] = groups >= (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)(groups > 0 ? groups : 1);
  info->grid[1] = 1, info->grid[2] = 1;
  info->work_items = work_items;
  info->vector_width = vector_width;
  int nargs = k->nin + k->nout;
  info->args = calloc((size_t)nargs + 1, sizeof(cg_arg));
  info->nargs = nargs;
  for (int i = 0; i < nargs; i++) {
    cg_arg *a = &info->args[i];
    bool in = i < k->nin;
    snprintf(a->name, sizeof a->name, "%s%d", in ? "in" : "out", in ? i : i - k->nin);
    a->buffer = in ? k->in_bufs[i] : k->out_bufs[i - k->nin];
    snprintf(a->access, sizeof a->access, "%s", access[i]);
  }
}

bool cg_offset_inputs(cg_builder *cb, const part_kernel *k, const cg_kernel_info *info) {
  for (int i = 0; i < k->nin; i++) {
    int64_t off = part_input_offset(k, k->in_vals[i]);
    if (!off)
      continue;
    /* argument i is input i (cg_launch_1d's order); a family with another order cannot take one */
    if (!cb->fn || i >= info->nargs || info->args[i].buffer != k->in_bufs[i] ||
        (unsigned)info->nargs != LLVMCountParams(cb->fn)) {
      diag_error_noloc(cb->diag, "kernel '%s': input %d is read at an offset its arguments do not place",
                       k->name, i);
      return false;
    }
    LLVMValueRef arg = LLVMGetParam(cb->fn, (unsigned)i);
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(cb->fn);
    LLVMValueRef first = LLVMGetFirstInstruction(entry);
    if (first)
      LLVMPositionBuilderBefore(cb->b, first);
    else
      LLVMPositionBuilderAtEnd(cb->b, entry);
    int64_t byte_off = off * elem_type_bytes(k->in_vals[i]->type->elem);
    LLVMValueRef bytes = LLVMConstInt(cb->i64, (unsigned long long)byte_off, 0);
    LLVMValueRef at = LLVMBuildInBoundsGEP2(cb->b, cb->i8, arg, &bytes, 1, "");
    LLVMReplaceAllUsesWith(arg, at);
    LLVMSetOperand(at, 0, arg); /* the one use of the argument left: the offset itself */
  }
  return true;
}

void cg_loop_no_unroll(cg_builder *cb, LLVMValueRef latch_branch) {
  LLVMMetadataRef self = LLVMTemporaryMDNode(cb->ctx, NULL, 0);
  static const char name[] = "llvm.loop.unroll.disable";
  LLVMMetadataRef str = LLVMMDStringInContext2(cb->ctx, name, sizeof name - 1);
  LLVMMetadataRef ops[2] = {self, LLVMMDNodeInContext2(cb->ctx, &str, 1)};
  LLVMMetadataRef loop = LLVMMDNodeInContext2(cb->ctx, ops, 2);
  LLVMMetadataReplaceAllUsesWith(self, loop); /* the loop ID refers to itself */
  LLVMSetMetadata(latch_branch, LLVMGetMDKindIDInContext(cb->ctx, "llvm.loop", 9),
                  LLVMMetadataAsValue(cb->ctx, loop));
}

cg_loop cg_loop_begin(cg_builder *cb, LLVMValueRef from, LLVMValueRef to, const char *name) {
  cg_loop l = {.pre = LLVMGetInsertBlock(cb->b)};
  l.head = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, name);
  l.body = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "body");
  l.done = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "done");
  LLVMBuildBr(cb->b, l.head);
  LLVMPositionBuilderAtEnd(cb->b, l.head);
  l.iv = LLVMBuildPhi(cb->b, LLVMTypeOf(from), "i");
  LLVMAddIncoming(l.iv, &from, &l.pre, 1);
  LLVMBuildCondBr(cb->b, LLVMBuildICmp(cb->b, LLVMIntSLT, l.iv, to, ""), l.body, l.done);
  LLVMPositionBuilderAtEnd(cb->b, l.body);
  return l;
}

void cg_loop_end(cg_builder *cb, cg_loop *l, int64_t step) {
  LLVMValueRef next = LLVMBuildAdd(cb->b, l->iv, LLVMConstInt(LLVMTypeOf(l->iv), (unsigned long long)step, 1), "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(cb->b);
  LLVMAddIncoming(l->iv, &next, &latch, 1);
  LLVMBuildBr(cb->b, l->head);
  LLVMPositionBuilderAtEnd(cb->b, l->done);
}
