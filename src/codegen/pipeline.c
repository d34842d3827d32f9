/* pipeline.c: one plan to one linked code object. Each chunk of kernels (a work item, see
 * cg_chunk) gets its module, kernels, verification, optimisation and object; once a target's
 * chunks are done, its objects are linked in chunk order, the metadata is read back and, when
 * asked for, the chunks' optimised modules are linked into one for the IR, bitcode and asm
 * outputs. schedule.c runs the work items on threads. */
#include "codegen.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Linker.h>
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

void cg_on_llvm_diagnostic(LLVMDiagnosticInfoRef info, void *ctx) {
  cg_llvm_diag *s = ctx;
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
      if (v->type->elem == ET_INDEX || cg_elem_type(cb, v->type->elem))
        continue;
      /* 8-bit float GEMM inputs travel as bytes into an fp8 matrix instruction; the GEMM
       * generator refuses targets without one (gemm_params_choose). */
      if (k->family == KF_GEMM && elem_type_is_f8(v->type->elem) &&
          ((op_table[o->kind].family == FAM_MATMUL && j < 2) || part_is_operand_view(k, o)))
        continue;
      if (cg_data_bytes_only(k)) /* transposes, slices, concatenations of 8-bit floats */
        continue;
      /* casts to and from 8-bit floats in elementwise kernels (cvt_f8.c), and the f8 constants
       * and arguments they read */
      if (k->family == KF_ELEMENTWISE && elem_type_is_f8(v->type->elem) &&
          (o->kind == OP_CAST || op_table[o->kind].family == FAM_CONST))
        continue;
      /* the fp8 attention form (partition/attention.c) takes its fp8 operands, their absorbed
       * transposes and P's cast as bytes and fp8 conversions (kernel_attention.c) */
      if (k->family == KF_ATTENTION && elem_type_is_f8(v->type->elem))
        continue;
      diag_error(cb->diag, o->loc, "'%s' on element type %s cannot be compiled yet",
                 op_table[o->kind].name, elem_type_name(v->type->elem));
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

/* An AMDGPU dispatch packet holds the grid size in work-items as 32 bits per dimension
 * (hsa_kernel_dispatch_packet_t.grid_size_x..z, HIP's gridDim * blockDim): a kernel needing
 * more is refused with its op named rather than launched with a wrapped-around grid. */
static bool launch_fits(cg_builder *cb, const part_kernel *k, const cg_kernel_info *info) {
  static const char dims[] = "xyz";
  for (int d = 0; d < 3; d++) {
    uint64_t items = (uint64_t)info->grid[d] * info->block[d];
    if (items <= UINT32_MAX)
      continue;
    const op *o = k->anchor ? k->anchor : k->ops[0];
    if (info->grid[d] == UINT32_MAX) /* saturated by cg_launch_1d */
      diag_error(cb->diag, o->loc, "'%s' needs %u or more work-groups in %c; an AMDGPU "
                 "dispatch holds at most %u work-items per dimension", op_table[o->kind].name,
                 UINT32_MAX, dims[d], UINT32_MAX);
    else
      diag_error(cb->diag, o->loc, "'%s' needs %llu work-items in %c (%u work-groups of %u); an "
                 "AMDGPU dispatch holds at most %u per dimension", op_table[o->kind].name,
                 (unsigned long long)items, dims[d], info->grid[d], info->block[d], UINT32_MAX);
    return false;
  }
  return true;
}

/* Emit plan kernels [first, end) into cb's module; twins are filled in later by
 * cg_finish_target, once every chunk (and so every twin's original) is done. */
static bool build_kernels(cg_builder *cb, const graph *g, const partition_plan *p, cg_result *out,
                          int first, int end) {
  for (int i = first; i < end; i++) {
    const part_kernel *k = &p->kernels[i];
    cg_kernel_info *info = &out->kernels[i];
    if (k->reuses)
      continue;
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
        [KF_FILL] = {cg_emit_fill, "fill"},
        [KF_ATTENTION] = {cg_emit_attention, "attention"},
        [KF_ROWNORM] = {cg_emit_rownorm, "row normalisation"},
        [KF_MXGEMM] = {cg_emit_mxgemm, "block-scaled GEMM"},
    };
    bool ok = (unsigned)k->family < KF_COUNT && families[k->family].fn;
    if (ok) {
      cb->args_alias = k->args_alias;
      ok = families[k->family].fn(cb, g, p, k, info) && launch_fits(cb, k, info) &&
           (!k->nin_offs || cg_offset_inputs(cb, k, info));
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

/* A chunk costs about one GEMM kernel at most: GEMM (and direct conv) kernels take most of
 * LLVM's time and go alone, the cheap ones (split-K combine kernels too) are grouped so
 * per-module overhead (pass pipeline and code generator set-up, one more object to link)
 * stays small. */
enum { CHUNK_COST = 8 };

static int kernel_cost(const part_kernel *k) {
  bool gemm = k->family == KF_GEMM && k->role != KR_COMBINE && k->role != KR_IM2COL;
  return gemm || k->family == KF_ATTENTION ? CHUNK_COST : 1;
}

int cg_plan_chunks(const partition_plan *p, int target, cg_chunk *chunks, int max) {
  int n = 0, first = 0, acc = 0;
  for (int i = 0; i < p->nkernels; i++) {
    const part_kernel *k = &p->kernels[i];
    if (k->reuses)
      continue;
    int c = kernel_cost(k);
    if (acc > 0 && acc + c > CHUNK_COST && n + 1 < max) {
      chunks[n++] = (cg_chunk){.target = target, .first = first, .end = i, .cost = acc};
      first = i;
      acc = 0;
    }
    acc += c;
  }
  chunks[n++] = (cg_chunk){.target = target, .first = first, .end = p->nkernels, .cost = acc};
  return n;
}

static LLVMTargetMachineRef thread_tm(cg_thread *t, const cg_batch *b, int target, diag_sink *d) {
  if (!t->tms) {
    t->tms = calloc((size_t)b->ntargets, sizeof *t->tms);
    t->ntms = b->ntargets;
  }
  if (t->tms[target])
    return t->tms[target];
  char *err = NULL;
  LLVMTargetRef target_ref;
  if (LLVMGetTargetFromTriple(AMDGPU_TRIPLE, &target_ref, &err)) {
    diag_error_noloc(d, "LLVM has no AMDGPU target: %s", err);
    LLVMDisposeMessage(err);
    return NULL;
  }
  int level = b->opt->opt_level;
  LLVMCodeGenOptLevel cgl = level <= 0   ? LLVMCodeGenLevelNone
                            : level == 1 ? LLVMCodeGenLevelLess
                            : level == 2 ? LLVMCodeGenLevelDefault
                                         : LLVMCodeGenLevelAggressive;
  const target_request *tr = b->plans[target]->target;
  t->tms[target] = LLVMCreateTargetMachine(target_ref, AMDGPU_TRIPLE, tr->info->name,
                                           tr->features, cgl, LLVMRelocPIC, LLVMCodeModelDefault);
  return t->tms[target];
}

void cg_thread_dispose(cg_thread *t) {
  for (int i = 0; i < t->ntms; i++)
    if (t->tms[i])
      LLVMDisposeTargetMachine(t->tms[i]);
  free(t->tms);
  memset(t, 0, sizeof *t);
}

static LLVMModuleRef new_module(LLVMContextRef ctx, LLVMTargetMachineRef tm, const char *name,
                                int cov) {
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext(name, ctx);
  LLVMSetTarget(m, AMDGPU_TRIPLE);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(m, dl);
  LLVMDisposeTargetData(dl);
  LLVMAddModuleFlag(m, LLVMModuleFlagBehaviorError, "amdhsa_code_object_version", 26,
                    LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx),
                                                     (unsigned long long)cov * 100, 0)));
  return m;
}

static bool need_ir(const cg_options *o) { return o->embed_ir || o->want_llvm_ir || o->want_asm; }

/* Kernels [c->first, c->end) of one target: IR, verify, optimise, object (and bitcode). */
static bool compile_chunk(const cg_batch *b, cg_chunk *c, cg_thread *t, diag_sink *d) {
  struct timespec lap;
  clock_gettime(CLOCK_MONOTONIC, &lap);
  const partition_plan *p = b->plans[c->target];
  int cov = b->opt->code_object_version ? b->opt->code_object_version : 5;
  if (cov < 4 || cov > 6) {
    diag_error_noloc(d, "unsupported code object version %d (expected 4, 5 or 6)", cov);
    return false;
  }
  LLVMTargetMachineRef tm = thread_tm(t, b, c->target, d);
  if (!tm)
    return false;
  /* A context of its own: a module's bitcode (the embedded IR, the cache key) records context
   * state such as metadata kinds that earlier work items on the same thread would register. */
  LLVMContextRef ctx = LLVMContextCreate();
  cg_llvm_diag lds = {0};
  LLVMContextSetDiagnosticHandler(ctx, cg_on_llvm_diagnostic, &lds);
  LLVMModuleRef m = new_module(ctx, tm, b->g->entry ? b->g->entry : "tosac", cov);
  cg_builder cb;
  cg_builder_init(&cb, ctx, m, tm, p->target, d);
  cb.perf_config = b->opt->perf_config;
  cb.tuning_db = b->opt->tuning_db;
  bool ok = build_kernels(&cb, b->g, p, &b->out[c->target], c->first, c->end);
  cg_builder_dispose(&cb);
  char key[CG_CACHE_KEY_LEN];
  cg_cache *cache = b->opt->cache;
  if (ok && cache) {
    cg_cache_key(b->opt, p->target, need_ir(b->opt), m, key);
    c->cache_hit = cg_cache_get(cache, key, need_ir(b->opt), &c->obj, &c->bitcode);
  }
  /* A hit's module is the one verified when its entry was written (the key is its bitcode), so
   * only a module about to be compiled is verified. */
  char *err = NULL;
  if (ok && !c->cache_hit && LLVMVerifyModule(m, LLVMReturnStatusAction, &err)) {
    diag_error_noloc(d, "internal error: generated LLVM IR for %s is invalid: %s", p->target->id,
                     err);
    ok = false;
  }
  LLVMDisposeMessage(err);
  c->ms[CG_STAGE_IR] = lap_ms(&lap);
  if (c->cache_hit) {
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    return true;
  }
  ok = ok && optimise(m, tm, b->opt->opt_level, d);
  c->ms[CG_STAGE_OPT] = lap_ms(&lap);
  if (ok && need_ir(b->opt)) {
    LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(m);
    c->bitcode.data = (uint8_t *)dup_buffer(bc, &c->bitcode.size, false);
    LLVMDisposeMemoryBuffer(bc);
  }
  LLVMMemoryBufferRef obj = NULL;
  ok = ok && emit(tm, m, LLVMObjectFile, &obj, d, "object");
  if (ok && lds.error) {
    diag_error_noloc(d, "LLVM code generation for %s failed: %s", p->target->id, lds.message);
    ok = false;
  }
  if (obj) {
    c->obj.data = (uint8_t *)dup_buffer(obj, &c->obj.size, false);
    LLVMDisposeMemoryBuffer(obj);
  }
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  if (ok && cache && c->obj.data)
    cg_cache_put(cache, key, &c->obj, &c->bitcode);
  c->ms[CG_STAGE_EMIT] = lap_ms(&lap);
  return ok;
}

void cg_compile_chunk(const cg_batch *b, cg_chunk *c, cg_thread *t) {
  FILE *mem = open_memstream(&c->diag_text, &c->diag_len);
  diag_sink d;
  diag_init(&d, mem);
  c->ok = compile_chunk(b, c, t, &d) && d.errors == 0;
  fclose(mem);
}

/* The chunks' optimised modules linked (in chunk order) into one module: the target's
 * --emit=llvm text, --embed-ir bitcode and --emit=asm text stay one module each. */
static bool ir_outputs(const cg_batch *b, int target, cg_chunk *chunks, int n, cg_thread *t,
                       diag_sink *d) {
  cg_result *out = &b->out[target];
  const char *id = b->plans[target]->target->id;
  LLVMModuleRef m = NULL;
  LLVMContextRef ctx = LLVMContextCreate(); /* fresh, as in compile_chunk: same bits on any thread */
  bool ok = true;
  for (int i = 0; i < n && ok; i++) {
    LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRange(
        (const char *)chunks[i].bitcode.data, chunks[i].bitcode.size, "chunk", 0);
    LLVMModuleRef cm = NULL;
    ok = !LLVMParseBitcodeInContext2(ctx, mb, &cm);
    LLVMDisposeMemoryBuffer(mb);
    if (ok && m)
      ok = !LLVMLinkModules2(m, cm); /* consumes cm */
    else if (ok)
      m = cm;
    if (!ok)
      diag_error_noloc(d, "internal error: cannot link the %s kernel modules", id);
  }
  if (ok) { /* the identifier came from the bitcode buffer's name; keep the chunks' one */
    const char *name = b->g->entry ? b->g->entry : "tosac";
    LLVMSetModuleIdentifier(m, name, strlen(name));
  }
  if (ok && b->opt->embed_ir) {
    LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(m);
    out->bitcode = (uint8_t *)dup_buffer(bc, &out->bitcode_size, false);
    LLVMDisposeMemoryBuffer(bc);
  }
  if (ok && b->opt->want_llvm_ir) {
    char *ir = LLVMPrintModuleToString(m);
    out->llvm_ir = strdup(ir);
    LLVMDisposeMessage(ir);
  }
  if (ok && b->opt->want_asm) {
    cg_llvm_diag lds = {0};
    LLVMContextSetDiagnosticHandler(ctx, cg_on_llvm_diagnostic, &lds);
    LLVMMemoryBufferRef as = NULL;
    ok = emit(thread_tm(t, b, target, d), m, LLVMAssemblyFile, &as, d, "assembly");
    if (ok) {
      out->asm_text = dup_buffer(as, NULL, true);
      LLVMDisposeMemoryBuffer(as);
    }
  }
  if (m)
    LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return ok;
}

/* Link the chunks' objects into the code object and read its metadata back. */
static bool link_target(const cg_batch *b, int target, cg_chunk *chunks, int n, diag_sink *d,
                        double *ms) {
  struct timespec lap;
  clock_gettime(CLOCK_MONOTONIC, &lap);
  cg_result *out = &b->out[target];
  const char *id = b->plans[target]->target->id;
  cg_object *objs = malloc((size_t)n * sizeof *objs);
  for (int i = 0; i < n; i++)
    objs[i] = chunks[i].obj;
  char lerr[1200];
  bool ok = cg_merge_metadata_notes(objs, n, lerr, sizeof lerr);
  chunks[0].obj = objs[0]; /* possibly reallocated */
  ok = ok && cg_link(objs, n, &out->code_object, &out->code_size, lerr, sizeof lerr);
  free(objs);
  if (!ok)
    diag_error_noloc(d, "linking the %s code object failed: %s", id, lerr);
  ms[CG_STAGE_LINK] += lap_ms(&lap);
  if (ok && !(ok = cg_read_metadata(out->code_object, out->code_size, out, lerr, sizeof lerr)))
    diag_error_noloc(d, "%s code object: %s", id, lerr);
  ms[CG_STAGE_META] += lap_ms(&lap);
  return ok;
}

bool cg_finish_target(const cg_batch *b, int target, cg_chunk *chunks, int n, cg_thread *t,
                      FILE *diag) {
  const partition_plan *p = b->plans[target];
  cg_result *out = &b->out[target];
  double ms[CG_STAGE_COUNT] = {0};
  bool ok = true;
  /* Diagnostics as a one-module compile gave them: up to the first kernel that failed. */
  for (int i = 0; i < n && ok; i++) {
    if (chunks[i].diag_len)
      fwrite(chunks[i].diag_text, 1, chunks[i].diag_len, diag);
    ok = chunks[i].ok;
  }
  for (int i = 0; i < n; i++) {
    for (int s = 0; s < CG_STAGE_COUNT; s++)
      ms[s] += chunks[i].ms[s];
    out->cache_hits += chunks[i].cache_hit;
  }
  for (int i = 0; ok && i < p->nkernels; i++) {
    const part_kernel *k = &p->kernels[i];
    if (k->reuses)
      reuse_kernel(&p->kernels[k->reuses - 1], &out->kernels[k->reuses - 1], k, &out->kernels[i]);
  }
  diag_sink d;
  diag_init(&d, diag);
  ok = ok && link_target(b, target, chunks, n, &d, ms);
  struct timespec lap;
  clock_gettime(CLOCK_MONOTONIC, &lap);
  ok = ok && (!need_ir(b->opt) || ir_outputs(b, target, chunks, n, t, &d));
  ms[CG_STAGE_EMIT] += lap_ms(&lap);
  for (int i = 0; i < n; i++) {
    free(chunks[i].obj.data);
    free(chunks[i].bitcode.data);
    free(chunks[i].diag_text);
    chunks[i].obj.data = chunks[i].bitcode.data = NULL;
    chunks[i].diag_text = NULL;
  }
  ok = ok && d.errors == 0;
  int hits = out->cache_hits;
  if (!ok)
    cg_result_free(out);
  else
    memcpy(out->time_ms, ms, sizeof ms);
  out->work_items = n;
  out->cache_hits = hits;
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
