/* cvt_f8.c: unit test of the codegen's 8-bit float conversion (src/codegen/cvt_f8.c) in the
 * vector forms the casts do not use: a kernel converts <8 x float>, <6 x float> (pairs only) and
 * a scalar per work-item with cg_f32_to_f8 and decodes the three results with cg_f8_to_f32, for
 * each f8 type on gfx942, gfx950 and gfx1200 (the conversion instructions for their own format)
 * and gfx90a (integer arithmetic), run in both emulator modes (the optimised IR and the linked
 * machine code). Codes must equal emu_f8_from_f32 (the emulator's reading of v_cvt_pk_fp8_f32,
 * docs/emulator.md), decoded values the codes' values, and decoded bits emu_f8_to_f32's (NaN
 * included). Prints "N passed, M failed"; exit 1 on a failure. */
#include "codegen/codegen.h"
#include "emu/emu.h"

#include <llvm-c/BitWriter.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LANES = 64, VEC = 8, PAIRS = 6 };

static int passed, failed;

/* Value of code c of type t (NaN for the NaN codes). */
static double f8_value(unsigned c, elem_type t) {
  bool fnuz = t == ET_F8E4M3FNUZ || t == ET_F8E5M2FNUZ, bf8 = t == ET_F8E5M2 || t == ET_F8E5M2FNUZ;
  int mb = bf8 ? 2 : 3, eb = 7 - mb, bias = (1 << (eb - 1)) - (fnuz ? 0 : 1);
  int e = (int)(c >> mb) & ((1 << eb) - 1), m = (int)c & ((1 << mb) - 1);
  double s = c & 0x80 ? -1 : 1;
  if (fnuz && c == 0x80)
    return NAN;
  if (!fnuz && !bf8 && (c & 0x7f) == 0x7f)
    return NAN;
  if (!fnuz && bf8 && e == 31)
    return m ? NAN : s * INFINITY;
  return s * (e ? ldexp(m + (1 << mb), e - bias - mb) : ldexp(m, 1 - bias - mb));
}

/* The kernel: in[LANES * VEC] f32; out8[LANES * (VEC + PAIRS + 1)] codes; out32[LANES * (VEC +
 * PAIRS + 1)] their values. */
static LLVMModuleRef build(LLVMContextRef ctx, LLVMTargetMachineRef tm, const target_request *tr,
                           elem_type t, diag_sink *d) {
  LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("cvt_f8", ctx);
  LLVMSetTarget(mod, "amdgcn-amd-amdhsa");
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(mod, td);
  LLVMDisposeTargetData(td);
  cg_builder cb;
  cg_builder_init(&cb, ctx, mod, tm, tr, d);
  static const char *const access[] = {"read_only", "write_only", "write_only"};
  LLVMValueRef fn = cg_kernel_begin(&cb, "cvt_f8", 3, access, LANES);
  LLVMBuilderRef b = cb.b;
  LLVMValueRef tid = LLVMBuildZExt(b, cg_thread_id_x(&cb), cb.i64, "");
  LLVMTypeRef v8f = LLVMVectorType(cb.f32, VEC);
  LLVMValueRef at = LLVMBuildMul(b, tid, LLVMConstInt(cb.i64, VEC, 0), "");
  LLVMValueRef x = cg_load(&cb, v8f, LLVMBuildGEP2(b, cb.f32, LLVMGetParam(fn, 0), &at, 1, ""), 4);
  LLVMValueRef c8 = cg_f32_to_f8(&cb, x, t);
  LLVMValueRef idx[PAIRS]; /* lanes 7..2, reversed */
  for (int i = 0; i < PAIRS; i++)
    idx[i] = LLVMConstInt(cb.i32, (unsigned)(VEC - 1 - i), 0);
  LLVMValueRef x6 = LLVMBuildShuffleVector(b, x, LLVMGetUndef(v8f), LLVMConstVector(idx, PAIRS), "");
  LLVMValueRef c6 = cg_f32_to_f8(&cb, x6, t);
  LLVMValueRef c1 = cg_f32_to_f8(&cb, LLVMBuildExtractElement(b, x, LLVMConstInt(cb.i32, 3, 0), ""), t);
  LLVMValueRef o = LLVMBuildMul(b, tid, LLVMConstInt(cb.i64, VEC + PAIRS + 1, 0), "");
  LLVMValueRef p = LLVMBuildGEP2(b, cb.i8, LLVMGetParam(fn, 1), &o, 1, "");
  cg_store(&cb, c8, p, 1);
  LLVMValueRef o6 = LLVMBuildAdd(b, o, LLVMConstInt(cb.i64, VEC, 0), "");
  cg_store(&cb, c6, LLVMBuildGEP2(b, cb.i8, LLVMGetParam(fn, 1), &o6, 1, ""), 1);
  LLVMValueRef o1 = LLVMBuildAdd(b, o, LLVMConstInt(cb.i64, VEC + PAIRS, 0), "");
  cg_store(&cb, c1, LLVMBuildGEP2(b, cb.i8, LLVMGetParam(fn, 1), &o1, 1, ""), 1);
  cg_store(&cb, cg_f8_to_f32(&cb, c8, t), LLVMBuildGEP2(b, cb.f32, LLVMGetParam(fn, 2), &o, 1, ""), 4);
  cg_store(&cb, cg_f8_to_f32(&cb, c6, t), LLVMBuildGEP2(b, cb.f32, LLVMGetParam(fn, 2), &o6, 1, ""), 4);
  cg_store(&cb, cg_f8_to_f32(&cb, c1, t), LLVMBuildGEP2(b, cb.f32, LLVMGetParam(fn, 2), &o1, 1, ""), 4);
  LLVMBuildRetVoid(b);
  cg_builder_dispose(&cb);
  return mod;
}

static float input(int i) {
  static const float corner[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 448, 464, 465,
                                 57344, 61440, 240, 248, 1.0625f, 1.1875f, 0x1p-10f, 0x1p-17f,
                                 0x1.8p-10f, 1e-40f, 3.4e38f, -1.0625f, -0x1p-10f};
  int nc = (int)(sizeof corner / sizeof corner[0]);
  if (i < nc)
    return corner[i];
  unsigned h = (unsigned)i * 2654435761u;
  return ldexpf((float)(int)(h % 2001u - 1000u) / 128.0f, (int)(h >> 20) % 24 - 14);
}

static void run_case(const char *cpu, elem_type t, bool isa) {
  char what[96], err[512] = "";
  snprintf(what, sizeof what, "%s %s %s", cpu, elem_type_name(t), isa ? "isa" : "ir");
  target_request tr;
  if (!target_parse(cpu, &tr, err, sizeof err)) {
    printf("not ok %s: %s\n", what, err);
    failed++;
    return;
  }
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMTargetRef target;
  char *msg = NULL;
  LLVMGetTargetFromTriple("amdgcn-amd-amdhsa", &target, &msg);
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, "amdgcn-amd-amdhsa", cpu, tr.features,
                                                    LLVMCodeGenLevelDefault, LLVMRelocPIC,
                                                    LLVMCodeModelDefault);
  diag_sink d;
  diag_init(&d, stdout);
  LLVMModuleRef mod = build(ctx, tm, &tr, t, &d);
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(mod, "default<O3>", tm, po);
  LLVMDisposePassBuilderOptions(po);
  emu_target et = {.wave_size = tr.info->wave_size, .lds_limit = 65536};
  snprintf(et.processor, sizeof et.processor, "%s", cpu);
  emu_module *m = NULL;
  if (e) {
    snprintf(err, sizeof err, "O3: %s", LLVMGetErrorMessage(e));
  } else if (!isa) {
    LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(mod);
    m = emu_load((const uint8_t *)LLVMGetBufferStart(bc), LLVMGetBufferSize(bc), &et, err, sizeof err);
    LLVMDisposeMemoryBuffer(bc);
  } else {
    LLVMMemoryBufferRef obj = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMObjectFile, &msg, &obj)) {
      snprintf(err, sizeof err, "emit: %s", msg);
    } else {
      cg_object o = {(uint8_t *)LLVMGetBufferStart(obj), LLVMGetBufferSize(obj)};
      uint8_t *elf = NULL;
      size_t n = 0;
      if (cg_link(&o, 1, &elf, &n, err, sizeof err))
        m = emu_load_code(elf, n, &et, err, sizeof err);
      free(elf);
      LLVMDisposeMemoryBuffer(obj);
    }
  }
  bool ok = m != NULL;
  float *in = aligned_alloc(256, sizeof(float) * LANES * VEC);
  uint8_t *out8 = aligned_alloc(256, 256 * ((LANES * (VEC + PAIRS + 1) + 255) / 256));
  float *out32 = aligned_alloc(256, sizeof(float) * LANES * (VEC + PAIRS + 1));
  for (int i = 0; i < LANES * VEC; i++)
    in[i] = input(i);
  if (ok) {
    void *bufs[3] = {in, out8, out32};
    size_t sizes[3] = {sizeof(float) * LANES * VEC, (size_t)LANES * (VEC + PAIRS + 1),
                       sizeof(float) * LANES * (VEC + PAIRS + 1)};
    uint8_t kernarg[128] __attribute__((aligned(16))) = {0};
    emu_buffer eb[3];
    for (int i = 0; i < 3; i++) {
      memcpy(kernarg + 8 * i, &bufs[i], 8);
      eb[i] = (emu_buffer){.name = "buffer", .base = bufs[i], .size = sizes[i]};
    }
    emu_launch l = {.kernel = "cvt_f8", .block = {LANES, 1, 1}, .grid = {1, 1, 1},
                    .kernarg = kernarg, .kernarg_size = 24, .buffers = eb, .nbuffers = 3};
    ok = emu_run(m, &l, err, sizeof err);
  }
  bool fnuz = t == ET_F8E4M3FNUZ || t == ET_F8E5M2FNUZ, bf8 = t == ET_F8E5M2 || t == ET_F8E5M2FNUZ;
  int bad = 0;
  for (int lane = 0; ok && lane < LANES; lane++) {
    const float *x = in + lane * VEC;
    const uint8_t *c = out8 + lane * (VEC + PAIRS + 1);
    for (int j = 0; j < VEC + PAIRS + 1; j++) {
      float v = j < VEC ? x[j] : j < VEC + PAIRS ? x[VEC - 1 - (j - VEC)] : x[3];
      unsigned want = emu_f8_from_f32(v, bf8, fnuz);
      if (c[j] != want && bad++ < 4)
        printf("# %s: lane %d code %d of %g: 0x%02x, expected 0x%02x\n", what, lane, j, v, c[j], want);
    }
    for (int j = 0; j < VEC + PAIRS + 1; j++) {
      float gf = out32[lane * (VEC + PAIRS + 1) + j];
      double w = f8_value(c[j], t), g = gf;
      uint32_t gb;
      memcpy(&gb, &gf, sizeof gb);
      bool same = isnan(w) ? isnan(g) : g == w && signbit(g) == signbit(w);
      same = same && gb == emu_f8_to_f32(c[j], bf8, fnuz);
      if (!same && bad++ < 4)
        printf("# %s: lane %d decode %d of 0x%02x: %g (0x%08x), expected %g\n", what, lane, j, c[j], g, gb, w);
    }
  }
  if (!ok)
    printf("# %s: %s\n", what, err);
  ok = ok && bad == 0;
  printf("%s %s\n", ok ? "ok" : "not ok", what);
  ok ? passed++ : failed++;
  free(in);
  free(out8);
  free(out32);
  if (m)
    emu_free(m);
  LLVMDisposeModule(mod);
  LLVMDisposeTargetMachine(tm);
  LLVMContextDispose(ctx);
}

int main(void) {
  cg_init();
  static const char *const cpus[] = {"gfx942", "gfx950", "gfx90a", "gfx1200"};
  static const elem_type types[] = {ET_F8E4M3FNUZ, ET_F8E5M2FNUZ, ET_F8E4M3FN, ET_F8E5M2};
  for (int c = 0; c < 4; c++)
    for (int t = 0; t < 4; t++)
      for (int isa = 0; isa < 2; isa++)
        run_case(cpus[c], types[t], isa);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
