/* pipeline.c: one plan to one linked code object: module setup, kernels, verify, optimise,
 * emit (object, asm, IR, bitcode), link, read the metadata back. */
#include "codegen.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define AMDGPU_TRIPLE "amdgcn-amd-amdhsa"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init_llvm(void) {
  LLVMInitializeAMDGPUTargetInfo();
  LLVMInitializeAMDGPUTarget();
  LLVMInitializeAMDGPUTargetMC();
  LLVMInitializeAMDGPUAsmPrinter();
}

void cg_init(void) { pthread_once(&init_once, init_llvm); }

/* Milliseconds since *t0, which moves to now: accumulates cg_result.time_ms per stage. */
static double lap_ms(struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  double ms = (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
  *t0 = t;
  return ms;
}

/* LLVM reports backend errors (e.g. resource limits) through the context; without a handler
 * it would exit the process. Keep the first error message for the diagnostic. */
typedef struct llvm_diag_state {
  char message[512];
  bool error;
} llvm_diag_state;

static void on_llvm_diagnostic(LLVMDiagnosticInfoRef info, void *ctx) {
  llvm_diag_state *s = ctx;
  if (LLVMGetDiagInfoSeverity(info) != LLVMDSError || s->error)
    return;
  char *msg = LLVMGetDiagInfoDescription(info);
  snprintf(s->message, sizeof s->message, "%s", msg);
  LLVMDisposeMessage(msg);
  s->error = true;
}

static char *dup_buffer(LLVMMemoryBufferRef buf, size_t *size, bool nul) {
  size_t n = LLVMGetBufferSize(buf);
  char *p = malloc(n + 1);
  memcpy(p, LLVMGetBufferStart(buf), n);
  if (nul)
    p[n] = 0;
  if (size)
    *size = n;
  return p;
}

static bool emit(LLVMTargetMachineRef tm, LLVMModuleRef m, LLVMCodeGenFileType kind,
                 LLVMMemoryBufferRef *buf, diag_sink *d, const char *what) {
  char *msg = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, kind, &msg, buf)) {
    diag_error_noloc(d, "LLVM %s emission failed: %s", what, msg ? msg : "unknown error");
    LLVMDisposeMessage(msg);
    return false;
  }
  return true;
}

/* Element types without an LLVM counterpart here (f8, i4, i48 ...) are refused at the op that
 * uses them, before any family emitter could meet them. */
static bool types_supported(cg_builder *cb, const part_kernel *k) {
  for (int i = 0; i < k->nops; i++) {
    const op *o = k->ops[i];
    for (int j = 0; j < o->noperands + o->nresults; j++) {
      const value *v = j < o->noperands ? o->operands[j] : o->results[j - o->noperands];
      if (v->type.elem == ET_INDEX || cg_elem_type(cb, v->type.elem))
        continue;
      diag_error(cb->diag, o->loc, "'%s' on element type %s cannot be compiled yet",
                 op_table[o->kind].name, elem_type_name(v->type.elem));
      return false;
    }
  }
  return true;
}

/* A deduplicated kernel launches its twin's code: same launch fields, its own buffers in the
 * declared argument list (mapped position by position). */
static void reuse_kernel(const part_kernel *twin, const cg_kernel_info *tinfo,
                         const part_kernel *k, cg_kernel_info *info) {
  *info = *tinfo;
  info->args = calloc(tinfo->nargs ? (size_t)tinfo->nargs : 1, sizeof(cg_arg));
  for (int a = 0; a < tinfo->nargs; a++) {
    cg_arg arg = tinfo->args[a];
    for (int i = 0; i < twin->nin; i++)
      if (arg.buffer == twin->in_bufs[i] && i < k->nin)
        arg.buffer = k->in_bufs[i];
    for (int i = 0; i < twin->nout; i++)
      if (tinfo->args[a].buffer == twin->out_bufs[i] && i < k->nout)
        arg.buffer = k->out_bufs[i];
    info->args[a] = arg;
  }
}

static bool build_kernels(cg_builder *cb, const graph *g, const partition_plan *p, cg_result *out) {
  for (int i = 0; i < p->nkernels; i++) {
    const part_kernel *k = &p->kernels[i];
    cg_kernel_info *info = &out->kernels[i];
    if (k->reuses) {
      reuse_kernel(&p->kernels[k->reuses - 1], &out->kernels[k->reuses - 1], k, info);
      continue;
    }
    if (!types_supported(cb, k))
      return false;
    snprintf(info->name, sizeof info->name, "%s", k->name);
    snprintf(info->symbol, sizeof info->symbol, "%s.kd", k->name);
    typedef bool (*emitter)(cg_builder *, const graph *, const partition_plan *,
                            const part_kernel *, cg_kernel_info *);
    static const struct { emitter fn; const char *name; } families[KF_COUNT] = {
        [KF_ELEMENTWISE] = {cg_emit_elementwise, "elementwise"},
        [KF_GEMM] = {cg_emit_gemm, "gemm"},
        [KF_REDUCTION] = {cg_emit_reduction, "reduction"},
        [KF_POOL] = {cg_emit_pool, "pool"},
        [KF_DATA] = {cg_emit_data, "data movement"},
        [KF_FFT] = {cg_emit_fft, "fft"},
    };
    bool ok = (unsigned)k->family < KF_COUNT && families[k->family].fn;
    if (ok) {
      ok = families[k->family].fn(cb, g, p, k, info);
    } else {
      const op *o = k->anchor ? k->anchor : k->ops[0];
      diag_error(cb->diag, o->loc, "no %s kernel generator for '%s' yet",
                 (unsigned)k->family < KF_COUNT ? families[k->family].name : "?",
                 op_table[o->kind].name);
    }
    if (!ok || cb->failed)
      return false;
  }
  return true;
}

static bool optimise(LLVMModuleRef m, LLVMTargetMachineRef tm, int level, diag_sink *d) {
  char pipeline[32];
  snprintf(pipeline, sizeof pipeline, "default<O%d>", level < 0 ? 0 : level > 3 ? 3 : level);
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(m, pipeline, tm, po);
  LLVMDisposePassBuilderOptions(po);
  if (e) {
    char *msg = LLVMGetErrorMessage(e);
    diag_error_noloc(d, "LLVM optimisation failed: %s", msg);
    LLVMDisposeErrorMessage(msg);
    return false;
  }
  return true;
}

bool cg_compile(const graph *g, const partition_plan *p, const cg_options *opt, cg_result *out,
                diag_sink *d) {
  cg_init();
  memset(out, 0, sizeof *out);
  struct timespec lap;
  clock_gettime(CLOCK_MONOTONIC, &lap);
  double ms[CG_STAGE_COUNT] = {0};
  const target_request *t = p->target;
  int cov = opt->code_object_version ? opt->code_object_version : 5;
  if (cov < 4 || cov > 6) {
    diag_error_noloc(d, "unsupported code object version %d (expected 4, 5 or 6)", cov);
    return false;
  }
  char *err = NULL;
  LLVMTargetRef target;
  if (LLVMGetTargetFromTriple(AMDGPU_TRIPLE, &target, &err)) {
    diag_error_noloc(d, "LLVM has no AMDGPU target: %s", err);
    LLVMDisposeMessage(err);
    return false;
  }
  LLVMCodeGenOptLevel cgl = opt->opt_level <= 0   ? LLVMCodeGenLevelNone
                            : opt->opt_level == 1 ? LLVMCodeGenLevelLess
                            : opt->opt_level == 2 ? LLVMCodeGenLevelDefault
                                                  : LLVMCodeGenLevelAggressive;
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, AMDGPU_TRIPLE, t->info->name,
                                                    t->features, cgl, LLVMRelocPIC,
                                                    LLVMCodeModelDefault);
  LLVMContextRef ctx = LLVMContextCreate();
  llvm_diag_state lds = {0};
  LLVMContextSetDiagnosticHandler(ctx, on_llvm_diagnostic, &lds);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext(g->entry ? g->entry : "tosac", ctx);
  LLVMSetTarget(m, AMDGPU_TRIPLE);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(m, dl);
  LLVMDisposeTargetData(dl);
  LLVMAddModuleFlag(m, LLVMModuleFlagBehaviorError, "amdhsa_code_object_version", 26,
                    LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx),
                                                     (unsigned long long)cov * 100, 0)));

  out->kernels = calloc(p->nkernels ? (size_t)p->nkernels : 1, sizeof(cg_kernel_info));
  out->nkernels = p->nkernels;
  cg_builder cb;
  cg_builder_init(&cb, ctx, m, tm, t, d);
  bool ok = build_kernels(&cb, g, p, out);
  cg_builder_dispose(&cb);
  LLVMMemoryBufferRef obj = NULL;
  if (ok && LLVMVerifyModule(m, LLVMReturnStatusAction, &err)) {
    diag_error_noloc(d, "internal error: generated LLVM IR for %s is invalid: %s", t->id, err);
    ok = false;
  }
  LLVMDisposeMessage(err);
  err = NULL;
  ms[CG_STAGE_IR] = lap_ms(&lap);
  ok = ok && optimise(m, tm, opt->opt_level, d);
  ms[CG_STAGE_OPT] = lap_ms(&lap);
  if (ok && opt->embed_ir) {
    LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(m);
    out->bitcode = (uint8_t *)dup_buffer(bc, &out->bitcode_size, false);
    LLVMDisposeMemoryBuffer(bc);
  }
  if (ok && opt->want_llvm_ir) {
    char *ir = LLVMPrintModuleToString(m);
    out->llvm_ir = strdup(ir);
    LLVMDisposeMessage(ir);
  }
  if (ok && opt->want_asm) {
    /* Code generation rewrites the IR in place (control-flow annotation intrinsics), so a
     * second emission must start from a copy. */
    LLVMMemoryBufferRef as = NULL;
    LLVMModuleRef copy = LLVMCloneModule(m);
    ok = emit(tm, copy, LLVMAssemblyFile, &as, d, "assembly");
    LLVMDisposeModule(copy);
    if (ok) {
      out->asm_text = dup_buffer(as, NULL, true);
      LLVMDisposeMemoryBuffer(as);
    }
  }
  ok = ok && emit(tm, m, LLVMObjectFile, &obj, d, "object");
  if (ok && lds.error) {
    diag_error_noloc(d, "LLVM code generation for %s failed: %s", t->id, lds.message);
    ok = false;
  }
  ms[CG_STAGE_EMIT] = lap_ms(&lap);
  if (ok) {
    char lerr[1200];
    ok = cg_link((const uint8_t *)LLVMGetBufferStart(obj), LLVMGetBufferSize(obj),
                 &out->code_object, &out->code_size, lerr, sizeof lerr);
    if (!ok)
      diag_error_noloc(d, "linking the %s code object failed: %s", t->id, lerr);
    ms[CG_STAGE_LINK] = lap_ms(&lap);
    if (ok && !(ok = cg_read_metadata(out->code_object, out->code_size, out, lerr, sizeof lerr)))
      diag_error_noloc(d, "%s code object: %s", t->id, lerr);
  }
  if (obj)
    LLVMDisposeMemoryBuffer(obj);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  LLVMDisposeTargetMachine(tm);
  ms[CG_STAGE_META] = lap_ms(&lap);
  if (!ok)
    cg_result_free(out);
  else
    memcpy(out->time_ms, ms, sizeof ms);
  return ok;
}

void cg_result_free(cg_result *r) {
  if (!r)
    return;
  free(r->code_object);
  free(r->bitcode);
  free(r->llvm_ir);
  free(r->asm_text);
  for (int i = 0; i < r->nkernels; i++)
    free(r->kernels[i].args);
  free(r->kernels);
  memset(r, 0, sizeof *r);
}
