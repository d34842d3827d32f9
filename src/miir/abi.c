/* abi.c: MIOpen's kernel ABI over tosac's kernels (docs/miopen.md "One
 * signature").
 *
 * tosac's kernels take one pointer per buffer they touch. MIOpen launches every
 * kernel of a problem with the same four pointers (filter, input, output,
 * workspace). From the target's kernel IR (the optimised bitcode tosac embeds),
 * this builds a module whose one kernel, named as MIOpen asks, takes the four
 * pointers and calls tosac's kernel (made an internal, always inlined function)
 * with each of its buffers: a slot pointer plus a constant offset into the
 * workspace, or a constant global holding the graph's constant bytes. The
 * kernel body, its launch dimensions and its LDS stay tosac's; only the entry
 * changes. */
#include "codegen/codegen.h"
#include "miir.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy_fn_attrs(LLVMValueRef from, LLVMValueRef to) {
  unsigned n = LLVMGetAttributeCountAtIndex(from, LLVMAttributeFunctionIndex);
  LLVMAttributeRef *a = malloc(sizeof *a * (n ? n : 1));
  LLVMGetAttributesAtIndex(from, LLVMAttributeFunctionIndex, a);
  for (unsigned i = 0; i < n; i++)
    LLVMAddAttributeAtIndex(to, LLVMAttributeFunctionIndex, a[i]);
  free(a);
}

/* Every kernel but `keep`: the other kernels of the compile are not this
 * handle's. */
static void drop_other_kernels(LLVMModuleRef m, LLVMValueRef keep) {
  LLVMValueRef f = LLVMGetFirstFunction(m);
  while (f) {
    LLVMValueRef next = LLVMGetNextFunction(f);
    if (f != keep && LLVMGetFunctionCallConv(f) == LLVMAMDGPUKERNELCallConv)
      LLVMDeleteFunction(f);
    f = next;
  }
}

/* A constant global (address space 1) with the constant bytes a view reads. */
static LLVMValueRef constant_bytes(LLVMModuleRef m, LLVMContextRef ctx, const uint8_t *data,
                                   uint64_t bytes, int idx) {
  LLVMValueRef init = LLVMConstStringInContext2(ctx, (const char *)data, (size_t)bytes, 1);
  char name[32];
  snprintf(name, sizeof name, "miir.const%d", idx);
  LLVMValueRef g = LLVMAddGlobalInAddressSpace(m, LLVMTypeOf(init), name, 1);
  LLVMSetInitializer(g, init);
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetAlignment(g, 256);
  return g;
}

static bool wrap(LLVMModuleRef m, LLVMContextRef ctx, const miir_kernel_src *k, const char *symbol,
                 char *err, size_t n) {
  LLVMValueRef body = LLVMGetNamedFunction(m, k->name);
  if (!body || LLVMGetFunctionCallConv(body) != LLVMAMDGPUKERNELCallConv)
    return miir_fail(err, n, "internal error: kernel %s is not in the kernel IR", k->name);
  if ((int)LLVMCountParams(body) != k->nviews)
    return miir_fail(err, n, "internal error: kernel %s takes %u arguments, the manifest lists %d",
                     k->name, LLVMCountParams(body), k->nviews);
  if (LLVMGetNamedFunction(m, symbol) && strcmp(symbol, k->name))
    return miir_fail(err, n, "--kernel_name %s clashes with a function of the kernel IR", symbol);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 1), i8 = LLVMInt8TypeInContext(ctx);
  LLVMTypeRef params[4] = {ptr, ptr, ptr, ptr};
  LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, 4, 0);
  /* the body gives up its name first: MIOpen's name may be the same as tosac's
   */
  LLVMSetValueName2(body, "miir.body", 9);
  LLVMValueRef fn = LLVMAddFunction(m, symbol, fty);
  LLVMSetFunctionCallConv(fn, LLVMAMDGPUKERNELCallConv);
  copy_fn_attrs(body, fn);
  static const char *const pname[4] = {"filter", "input", "output", "workspace"};
  for (unsigned i = 0; i < 4; i++)
    LLVMSetValueName2(LLVMGetParam(fn, i), pname[i], strlen(pname[i]));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
  LLVMValueRef *args = malloc(sizeof *args * (size_t)(k->nviews ? k->nviews : 1));
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
  for (int i = 0; i < k->nviews; i++) {
    const miir_view *v = &k->views[i];
    LLVMValueRef base;
    uint64_t off = v->offset;
    if (v->slot < 0) {
      if (v->offset + v->bytes > k->weights_size) {
        free(args);
        LLVMDisposeBuilder(b);
        return miir_fail(err, n, "internal error: constant at %llu (+%llu) outside the weights",
                         (unsigned long long)v->offset, (unsigned long long)v->bytes);
      }
      base = constant_bytes(m, ctx, k->weights + v->offset, v->bytes, i);
      off = 0;
    } else {
      base = LLVMGetParam(fn, (unsigned)v->slot);
    }
    LLVMValueRef idx = LLVMConstInt(i64, off, 0);
    args[i] = off ? LLVMBuildInBoundsGEP2(b, i8, base, &idx, 1, "") : base;
  }
  LLVMBuildCall2(b, LLVMGlobalGetValueType(body), body, args, (unsigned)k->nviews, "");
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  free(args);
  LLVMSetFunctionCallConv(body, LLVMCCallConv);
  LLVMSetLinkage(body, LLVMInternalLinkage);
  unsigned ai = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
  unsigned ni = LLVMGetEnumAttributeKindForName("noinline", 8);
  LLVMRemoveEnumAttributeAtIndex(body, LLVMAttributeFunctionIndex, ni);
  LLVMAddAttributeAtIndex(body, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(ctx, ai, 0));
  drop_other_kernels(m, fn);
  return true;
}

static uint8_t *copy_buffer(LLVMMemoryBufferRef mb, size_t *size) {
  *size = LLVMGetBufferSize(mb);
  uint8_t *p = malloc(*size ? *size : 1);
  memcpy(p, LLVMGetBufferStart(mb), *size);
  return p;
}

bool miir_build_kernel(const miir_kernel_src *k, const char *target, const char *symbol,
                       uint8_t **code, size_t *code_size, uint8_t **ir, size_t *ir_size, char *err,
                       size_t n) {
  cg_init();
  target_request tr;
  if (!target_parse(target, &tr, err, n))
    return false;
  LLVMContextRef ctx = LLVMContextCreate();
  cg_llvm_diag diag = {0}; /* warnings (an occupancy target missed) never reach MIOpen's stderr */
  LLVMContextSetDiagnosticHandler(ctx, cg_on_llvm_diagnostic, &diag);
  LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRange((const char *)k->bitcode,
                                                                 k->bitcode_size, "kernels", 0);
  LLVMModuleRef m = NULL;
  bool ok = !LLVMParseBitcodeInContext2(ctx, mb, &m);
  LLVMDisposeMemoryBuffer(mb);
  if (!ok) {
    LLVMContextDispose(ctx);
    return miir_fail(err, n, "internal error: cannot read the kernel IR");
  }
  ok = wrap(m, ctx, k, symbol, err, n);
  char *msg = NULL;
  LLVMTargetRef t = NULL;
  if (ok && LLVMGetTargetFromTriple("amdgcn-amd-amdhsa", &t, &msg))
    ok = miir_fail(err, n, "LLVM has no AMDGPU target: %s", msg);
  LLVMDisposeMessage(msg);
  msg = NULL;
  LLVMTargetMachineRef tm =
      ok ? LLVMCreateTargetMachine(t, "amdgcn-amd-amdhsa", tr.info->name, tr.features,
                                   LLVMCodeGenLevelAggressive, LLVMRelocPIC, LLVMCodeModelDefault)
         : NULL;
  if (ok) {
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(m, "always-inline,globaldce", tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (e) {
      char *em = LLVMGetErrorMessage(e);
      ok = miir_fail(err, n, "internal error: inlining the kernel failed: %s", em);
      LLVMDisposeErrorMessage(em);
    }
  }
  if (ok && LLVMVerifyModule(m, LLVMReturnStatusAction, &msg))
    ok = miir_fail(err, n, "internal error: the wrapped kernel is invalid IR: %s", msg);
  LLVMDisposeMessage(msg);
  msg = NULL;
  if (ok && ir) {
    LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(m);
    *ir = copy_buffer(bc, ir_size);
    LLVMDisposeMemoryBuffer(bc);
  }
  LLVMMemoryBufferRef obj = NULL;
  if (ok && LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &msg, &obj))
    ok = miir_fail(err, n, "LLVM code generation for %s failed: %s", tr.id, msg ? msg : "");
  LLVMDisposeMessage(msg);
  if (ok && diag.error)
    ok = miir_fail(err, n, "LLVM code generation for %s failed: %s", tr.id, diag.message);
  if (ok) {
    cg_object o;
    o.data = copy_buffer(obj, &o.size);
    char lerr[1024];
    ok = cg_link(&o, 1, code, code_size, lerr, sizeof lerr);
    if (!ok)
      miir_fail(err, n, "linking the %s code object failed: %s", tr.id, lerr);
    free(o.data);
  }
  if (obj)
    LLVMDisposeMemoryBuffer(obj);
  if (tm)
    LLVMDisposeTargetMachine(tm);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  if (!ok && ir && *ir) {
    free(*ir);
    *ir = NULL;
  }
  return ok;
}
