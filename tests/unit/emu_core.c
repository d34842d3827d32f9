/* emu_core.c: unit tests of the emulator core: AMDGPU kernels from IR text, optimised for gfx90a
 * and gfx1100 as tosac does, loaded with emu_load and run with emu_run; exact results and exact
 * error messages. `test-emu_core [name...]` runs the named tests (all by default);
 * `test-emu_core bench` prints work-items/second on an elementwise kernel. */
#include "emu/emu.h"

#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int passed, failed;
static const char *current;
static bool test_ok;

static void check(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool cond, const char *fmt, ...) {
  if (cond)
    return;
  va_list ap;
  va_start(ap, fmt);
  printf("# %s: ", current);
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  test_ok = false;
}

/* Parse, optimise with default<O3> and the AMDGPU target machine (as tosac does), and return
 * the bitcode. */
static LLVMMemoryBufferRef compile(const char *ir, const char *cpu) {
  static bool init;
  if (!init) {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    init = true;
  }
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef src = LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, strlen(ir), "test.ll");
  LLVMModuleRef m;
  char *msg = NULL;
  if (LLVMParseIRInContext(ctx, src, &m, &msg)) {
    printf("# IR parse error: %s\n", msg);
    exit(2);
  }
  LLVMTargetRef t;
  LLVMGetTargetFromTriple("amdgcn-amd-amdhsa", &t, &msg);
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(t, "amdgcn-amd-amdhsa", cpu, "", LLVMCodeGenLevelDefault,
                                                    LLVMRelocPIC, LLVMCodeModelDefault);
  LLVMSetTarget(m, "amdgcn-amd-amdhsa");
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(m, td);
  LLVMDisposeTargetData(td);
  LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(m, "default<O3>", tm, o);
  if (e) {
    printf("# O3 failed: %s\n", LLVMGetErrorMessage(e));
    exit(2);
  }
  LLVMDisposePassBuilderOptions(o);
  LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(m);
  LLVMDisposeModule(m);
  LLVMDisposeTargetMachine(tm);
  LLVMContextDispose(ctx);
  return bc;
}

static emu_target target_of(const char *cpu) {
  emu_target t = {.wave_size = strncmp(cpu, "gfx9", 4) ? 32 : 64, .lds_limit = 65536};
  snprintf(t.processor, sizeof t.processor, "%s", cpu);
  return t;
}

static emu_module *load(const char *ir, const char *cpu, char *err, size_t errsize) {
  LLVMMemoryBufferRef bc = compile(ir, cpu);
  emu_target t = target_of(cpu);
  emu_module *m = emu_load((const uint8_t *)LLVMGetBufferStart(bc), LLVMGetBufferSize(bc), &t, err, errsize);
  LLVMDisposeMemoryBuffer(bc);
  return m;
}

static void *dev_alloc(size_t bytes) {
  void *p = aligned_alloc(256, (bytes + 255) / 256 * 256);
  memset(p, 0, (bytes + 255) / 256 * 256);
  return p;
}

/* Run `kernel` with 1-D block/grid on the given buffers (kernarg: their pointers, then `extra`
 * 32-bit values). Returns emu_run's result; the message lands in err. */
static bool run(emu_module *m, const char *kernel, uint32_t block, uint32_t grid, int64_t lds, void **bufs,
                size_t *sizes, int nbufs, const int32_t *extra, int nextra, char *err, size_t errsize) {
  uint8_t kernarg[256] __attribute__((aligned(16))) = {0};
  emu_buffer eb[8];
  size_t off = 0;
  for (int i = 0; i < nbufs; i++) {
    memcpy(kernarg + off, &bufs[i], 8);
    off += 8;
    eb[i] = (emu_buffer){.name = "buffer", .base = bufs[i], .size = sizes[i]};
  }
  for (int i = 0; i < nextra; i++) {
    memcpy(kernarg + off, &extra[i], 4);
    off += 4;
  }
  emu_launch l = {.kernel = kernel, .block = {block, 1, 1}, .grid = {grid, 1, 1}, .kernarg = kernarg,
                  .kernarg_size = off, .lds_bytes = lds, .buffers = eb, .nbuffers = nbufs};
  return emu_run(m, &l, err, errsize);
}

static const char *ADD_IR =
    "declare i32 @llvm.amdgcn.workitem.id.x()\n"
    "declare i32 @llvm.amdgcn.workgroup.id.x()\n"
    "declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()\n"
    "define amdgpu_kernel void @tosac_k0_add(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b,"
    " ptr addrspace(1) noalias %c, i32 %n) #0 {\n"
    "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n"
    "  %wg = call i32 @llvm.amdgcn.workgroup.id.x()\n"
    "  %ip = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()\n"
    "  %gsp = getelementptr i8, ptr addrspace(4) %ip, i64 12\n"
    "  %gs16 = load i16, ptr addrspace(4) %gsp, align 4\n"
    "  %gs = zext i16 %gs16 to i32\n"
    "  %base = mul i32 %wg, %gs\n"
    "  %gid = add i32 %base, %tid\n"
    "  %in = icmp slt i32 %gid, %n\n"
    "  br i1 %in, label %body, label %done\n"
    "body:\n"
    "  %i = sext i32 %gid to i64\n"
    "  %pa = getelementptr float, ptr addrspace(1) %a, i64 %i\n"
    "  %pb = getelementptr float, ptr addrspace(1) %b, i64 %i\n"
    "  %pc = getelementptr float, ptr addrspace(1) %c, i64 %i\n"
    "  %va = load float, ptr addrspace(1) %pa, align 4\n"
    "  %vb = load float, ptr addrspace(1) %pb, align 4\n"
    "  %s = fadd float %va, %vb\n"
    "  store float %s, ptr addrspace(1) %pc, align 4\n"
    "  br label %done\n"
    "done:\n"
    "  ret void\n"
    "}\n"
    /* Same, but nothing guards the store: the last group writes past the end. */
    "define amdgpu_kernel void @tosac_k1_oob(ptr addrspace(1) noalias %c) #0 {\n"
    "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n"
    "  %wg = call i32 @llvm.amdgcn.workgroup.id.x()\n"
    "  %base = mul i32 %wg, 256\n"
    "  %gid = add i32 %base, %tid\n"
    "  %i = zext i32 %gid to i64\n"
    "  %pc = getelementptr float, ptr addrspace(1) %c, i64 %i\n"
    "  %f = uitofp i32 %gid to float\n"
    "  store float %f, ptr addrspace(1) %pc, align 4\n"
    "  ret void\n"
    "}\n"
    "attributes #0 = { \"amdgpu-flat-work-group-size\"=\"1,256\" }\n";

static void test_add(const char *cpu) {
  char err[1024];
  emu_module *m = load(ADD_IR, cpu, err, sizeof err);
  check(m != NULL, "emu_load: %s", err);
  if (!m)
    return;
  enum { N = 1000 };
  float *a = dev_alloc(N * 4), *b = dev_alloc(N * 4), *c = dev_alloc(N * 4);
  for (int i = 0; i < N; i++)
    a[i] = (float)i * 0.5f, b[i] = (float)(1000 - i);
  void *bufs[3] = {a, b, c};
  size_t sizes[3] = {N * 4, N * 4, N * 4};
  int32_t n = N;
  bool ok = run(m, "tosac_k0_add", 256, 4, 0, bufs, sizes, 3, &n, 1, err, sizeof err);
  check(ok, "emu_run: %s", err);
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += c[i] != (float)i * 0.5f + (float)(1000 - i);
  check(bad == 0, "%d wrong sums", bad);

  /* The unguarded kernel: work-item 232 of group 3 is element 1000, one past the buffer. */
  ok = run(m, "tosac_k1_oob", 256, 4, 0, bufs + 2, sizes + 2, 1, NULL, 0, err, sizeof err);
  char want[256];
  snprintf(want, sizeof want,
           "kernel tosac_k1_oob: work-item (232,0,0) of work-group (3,0,0): global store of 4 bytes at %p "
           "is outside every bound buffer", (void *)(c + 1000));
  check(!ok && !strcmp(err, want), "got '%s', want '%s'", ok ? "success" : err, want);
  if (!ok)
    printf("message: %s\n", err);
  free(a), free(b), free(c);
  emu_free(m);
}

static const char *LDS_IR =
    "@lds = internal addrspace(3) global [256 x float] undef, align 16\n"
    "@small = internal addrspace(3) global [64 x float] undef, align 16\n"
    "declare i32 @llvm.amdgcn.workitem.id.x()\n"
    "declare i32 @llvm.amdgcn.workgroup.id.x()\n"
    "declare void @llvm.amdgcn.s.barrier()\n"
    /* Reverse each group's 256 elements through LDS. */
    "define amdgpu_kernel void @reverse(ptr addrspace(1) noalias %in, ptr addrspace(1) noalias %out) #0 {\n"
    "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n"
    "  %wg = call i32 @llvm.amdgcn.workgroup.id.x()\n"
    "  %base = mul i32 %wg, 256\n"
    "  %gid = add i32 %base, %tid\n"
    "  %gi = zext i32 %gid to i64\n"
    "  %pi = getelementptr float, ptr addrspace(1) %in, i64 %gi\n"
    "  %v = load float, ptr addrspace(1) %pi, align 4\n"
    "  %t64 = zext i32 %tid to i64\n"
    "  %pl = getelementptr [256 x float], ptr addrspace(3) @lds, i64 0, i64 %t64\n"
    "  store float %v, ptr addrspace(3) %pl, align 4\n"
    "  fence syncscope(\"workgroup\") release\n"
    "  call void @llvm.amdgcn.s.barrier()\n"
    "  fence syncscope(\"workgroup\") acquire\n"
    "  %r = sub i32 255, %tid\n"
    "  %r64 = zext i32 %r to i64\n"
    "  %pr = getelementptr [256 x float], ptr addrspace(3) @lds, i64 0, i64 %r64\n"
    "  %w = load float, ptr addrspace(3) %pr, align 4\n"
    "  %po = getelementptr float, ptr addrspace(1) %out, i64 %gi\n"
    "  store float %w, ptr addrspace(1) %po, align 4\n"
    "  ret void\n"
    "}\n"
    /* A barrier only the first 32 work-items reach. */
    "define amdgpu_kernel void @divergent_barrier(ptr addrspace(1) noalias %out) #0 {\n"
    "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n"
    "  %c = icmp ult i32 %tid, 32\n"
    "  br i1 %c, label %b, label %done\n"
    "b:\n"
    "  call void @llvm.amdgcn.s.barrier()\n"
    "  br label %done\n"
    "done:\n"
    "  %t64 = zext i32 %tid to i64\n"
    "  %po = getelementptr i32, ptr addrspace(1) %out, i64 %t64\n"
    "  store i32 %tid, ptr addrspace(1) %po, align 4\n"
    "  ret void\n"
    "}\n"
    /* Exchange through LDS between waves with no barrier: a race. */
    "define amdgpu_kernel void @missing_barrier(ptr addrspace(1) noalias %out) #0 {\n"
    "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n"
    "  %t64 = zext i32 %tid to i64\n"
    "  %pl = getelementptr [256 x float], ptr addrspace(3) @lds, i64 0, i64 %t64\n"
    "  %f = uitofp i32 %tid to float\n"
    "  store float %f, ptr addrspace(3) %pl, align 4\n"
    "  %o = add i32 %tid, 64\n"
    "  %o2 = and i32 %o, 127\n"
    "  %o64 = zext i32 %o2 to i64\n"
    "  %pr = getelementptr [256 x float], ptr addrspace(3) @lds, i64 0, i64 %o64\n"
    "  %w = load float, ptr addrspace(3) %pr, align 4\n"
    "  %po = getelementptr float, ptr addrspace(1) %out, i64 %t64\n"
    "  store float %w, ptr addrspace(1) %po, align 4\n"
    "  ret void\n"
    "}\n"
    /* LDS index from an argument: runs off the end of the 256-byte array. */
    "define amdgpu_kernel void @lds_oob(ptr addrspace(1) noalias %out, i32 %skew) #0 {\n"
    "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n"
    "  %i = add i32 %tid, %skew\n"
    "  %i64 = zext i32 %i to i64\n"
    "  %pl = getelementptr float, ptr addrspace(3) @small, i64 %i64\n"
    "  store float 1.0, ptr addrspace(3) %pl, align 4\n"
    "  %t64 = zext i32 %tid to i64\n"
    "  %pr = getelementptr float, ptr addrspace(3) @small, i64 %t64\n"
    "  %w = load volatile float, ptr addrspace(3) %pr, align 4\n"
    "  %po = getelementptr float, ptr addrspace(1) %out, i64 %t64\n"
    "  store float %w, ptr addrspace(1) %po, align 4\n"
    "  ret void\n"
    "}\n"
    "attributes #0 = { \"amdgpu-flat-work-group-size\"=\"1,256\" }\n";

static void test_lds(const char *cpu) {
  char err[1024];
  emu_module *m = load(LDS_IR, cpu, err, sizeof err);
  check(m != NULL, "emu_load: %s", err);
  if (!m)
    return;
  enum { N = 512 };
  float *in = dev_alloc(N * 4), *out = dev_alloc(N * 4);
  for (int i = 0; i < N; i++)
    in[i] = (float)i;
  void *bufs[2] = {in, out};
  size_t sizes[2] = {N * 4, N * 4};
  bool ok = run(m, "reverse", 256, 2, 1024, bufs, sizes, 2, NULL, 0, err, sizeof err);
  check(ok, "reverse: %s", err);
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += out[i] != (float)((i / 256) * 256 + 255 - i % 256);
  check(bad == 0, "reverse: %d wrong elements", bad);

  ok = run(m, "divergent_barrier", 128, 1, 0, bufs + 1, sizes + 1, 1, NULL, 0, err, sizeof err);
  const char *want = "kernel divergent_barrier: work-item (32,0,0) of work-group (0,0,0): barrier not "
                     "reached by every work-item of the work-group";
  check(!ok && !strcmp(err, want), "divergent barrier: got '%s'", ok ? "success" : err);
  if (!ok)
    printf("message: %s\n", err);

  /* Work-items run one after another between sync points, so the first wave reads LDS the
   * second has not written yet (zeros): the race shows up as a wrong answer. */
  memset(out, 0xff, N * 4);
  ok = run(m, "missing_barrier", 128, 1, 1024, bufs + 1, sizes + 1, 1, NULL, 0, err, sizeof err);
  check(ok, "missing barrier: %s", err);
  int race = 0, bad2 = 0;
  for (int i = 0; i < 128; i++) {
    float right = (float)((i + 64) % 128), seen = i < 64 ? 0.0f : (float)(i - 64);
    race += out[i] != right;
    bad2 += out[i] != seen;
  }
  check(race == 64 && bad2 == 0, "missing barrier: %d elements differ from the raced answer, %d from the right one",
        bad2, race);
  printf("missing barrier: %d of 128 results wrong\n", race);

  int32_t skew = 60;
  ok = run(m, "lds_oob", 64, 1, 256, bufs + 1, sizes + 1, 1, &skew, 1, err, sizeof err);
  want = "kernel lds_oob: work-item (4,0,0) of work-group (0,0,0): LDS store of 4 bytes at offset 256 is "
         "outside the kernel's 256 bytes of LDS";
  check(!ok && !strcmp(err, want), "LDS out of bounds: got '%s'", ok ? "success" : err);
  if (!ok)
    printf("message: %s\n", err);
  free(in), free(out);
  emu_free(m);
}

/* Wave operations; ${B} is the ballot width. Nine outputs per work-item: out[k*128 + tid]. */
static const char *WAVE_IR =
    "declare i32 @llvm.amdgcn.workitem.id.x()\n"
    "declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)\n"
    "declare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)\n"
    "declare i@W@ @llvm.amdgcn.ballot.i@W@(i1)\n"
    "declare i32 @llvm.amdgcn.readfirstlane.i32(i32)\n"
    "declare i32 @llvm.amdgcn.readlane.i32(i32, i32)\n"
    "declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)\n"
    "declare i32 @llvm.amdgcn.ds.swizzle(i32, i32)\n"
    "declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32, i32, i32, i1)\n"
    "define void @put(ptr addrspace(1) %out, i32 %k, i32 %tid, i32 %v) alwaysinline {\n"
    "  %a = mul i32 %k, 128\n"
    "  %b = add i32 %a, %tid\n"
    "  %i = zext i32 %b to i64\n"
    "  %p = getelementptr i32, ptr addrspace(1) %out, i64 %i\n"
    "  store i32 %v, ptr addrspace(1) %p, align 4\n"
    "  ret void\n"
    "}\n"
    "define amdgpu_kernel void @waveops(ptr addrspace(1) noalias %out) #0 {\n"
    "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n"
    "  %lo = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)\n"
    "  %lane = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %lo)\n"
    "  call void @put(ptr addrspace(1) %out, i32 0, i32 %tid, i32 %lane)\n"
    "  %m3 = urem i32 %tid, 3\n"
    "  %c = icmp eq i32 %m3, 0\n"
    "  %bal = call i@W@ @llvm.amdgcn.ballot.i@W@(i1 %c)\n"
    "  %bal64 = @X@ i@W@ %bal to i64\n"
    "  %bl = trunc i64 %bal64 to i32\n"
    "  %bh64 = lshr i64 %bal64, 32\n"
    "  %bh = trunc i64 %bh64 to i32\n"
    "  call void @put(ptr addrspace(1) %out, i32 1, i32 %tid, i32 %bl)\n"
    "  call void @put(ptr addrspace(1) %out, i32 2, i32 %tid, i32 %bh)\n"
    "  %v7 = mul i32 %tid, 7\n"
    "  %v = add i32 %v7, 1\n"
    "  %rfl = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %v)\n"
    "  call void @put(ptr addrspace(1) %out, i32 3, i32 %tid, i32 %rfl)\n"
    "  %rl = call i32 @llvm.amdgcn.readlane.i32(i32 %v, i32 5)\n"
    "  call void @put(ptr addrspace(1) %out, i32 4, i32 %tid, i32 %rl)\n"
    "  %l5 = add i32 %lane, 5\n"
    "  %l5m = and i32 %l5, @M@\n"
    "  %addr = shl i32 %l5m, 2\n"
    "  %t10 = mul i32 %tid, 10\n"
    "  %bp = call i32 @llvm.amdgcn.ds.bpermute(i32 %addr, i32 %t10)\n"
    "  call void @put(ptr addrspace(1) %out, i32 5, i32 %tid, i32 %bp)\n"
    "  %t100 = mul i32 %tid, 100\n"
    "  %shr = call i32 @llvm.amdgcn.update.dpp.i32(i32 -1, i32 %t100, i32 273, i32 15, i32 15, i1 false)\n"
    "  call void @put(ptr addrspace(1) %out, i32 6, i32 %tid, i32 %shr)\n"
    "  %sw = call i32 @llvm.amdgcn.ds.swizzle(i32 %tid, i32 1055)\n"
    "  call void @put(ptr addrspace(1) %out, i32 7, i32 %tid, i32 %sw)\n"
    "  %mir = call i32 @llvm.amdgcn.update.dpp.i32(i32 -1, i32 %tid, i32 320, i32 15, i32 15, i1 false)\n"
    "  call void @put(ptr addrspace(1) %out, i32 8, i32 %tid, i32 %mir)\n"
    "  ret void\n"
    "}\n"
    /* Only 16 lanes take part in the ballot. */
    "define amdgpu_kernel void @partial_ballot(ptr addrspace(1) noalias %out) #0 {\n"
    "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n"
    "  %c = icmp ult i32 %tid, 16\n"
    "  br i1 %c, label %b, label %done\n"
    "b:\n"
    "  %bal = call i@W@ @llvm.amdgcn.ballot.i@W@(i1 true)\n"
    "  %bl = @T@ i@W@ %bal to i32\n"
    "  %t64 = zext i32 %tid to i64\n"
    "  %po = getelementptr i32, ptr addrspace(1) %out, i64 %t64\n"
    "  store i32 %bl, ptr addrspace(1) %po, align 4\n"
    "  br label %done\n"
    "done:\n"
    "  ret void\n"
    "}\n"
    "attributes #0 = { \"amdgpu-flat-work-group-size\"=\"1,256\" }\n";

static void test_waves(const char *cpu) {
  emu_target t = target_of(cpu);
  int ws = t.wave_size;
  char ir[8192], err[1024];
  size_t o = 0;
  for (const char *p = WAVE_IR; *p && o < sizeof ir - 8; p++) {
    if (!strncmp(p, "@X@", 3) || !strncmp(p, "@T@", 3)) {
      const char *cast = p[1] == 'X' ? (ws == 64 ? "bitcast" : "zext") : (ws == 32 ? "bitcast" : "trunc");
      o += (size_t)snprintf(ir + o, sizeof ir - o, "%s", cast);
      p += 2;
    } else if (!strncmp(p, "@W@", 3) || !strncmp(p, "@M@", 3)) {
      o += (size_t)snprintf(ir + o, sizeof ir - o, "%d", p[1] == 'W' ? ws : ws - 1);
      p += 2;
    } else {
      ir[o++] = *p;
    }
  }
  ir[o] = 0;
  emu_module *m = load(ir, cpu, err, sizeof err);
  check(m != NULL, "emu_load: %s", err);
  if (!m)
    return;
  int32_t *out = dev_alloc(9 * 128 * 4);
  void *bufs[1] = {out};
  size_t sizes[1] = {9 * 128 * 4};
  bool ok = run(m, "waveops", 128, 1, 0, bufs, sizes, 1, NULL, 0, err, sizeof err);
  check(ok, "waveops: %s", err);
  const char *what[9] = {"mbcnt", "ballot lo", "ballot hi", "readfirstlane", "readlane 5",
                         "bpermute", "dpp row_shr:1", "swizzle xor 1", "dpp row_mirror"};
  for (int tid = 0; ok && tid < 128; tid++) {
    int lane = tid % ws, wb = tid - lane;
    uint64_t bal = 0;
    for (int i = 0; i < ws; i++)
      bal |= (uint64_t)((wb + i) % 3 == 0) << i;
    int32_t want[9] = {lane, (int32_t)(uint32_t)bal, (int32_t)(uint32_t)(bal >> 32), wb * 7 + 1, (wb + 5) * 7 + 1,
                       (wb + (lane + 5) % ws) * 10, lane % 16 == 0 ? -1 : (tid - 1) * 100, tid ^ 1,
                       wb + (lane / 16) * 16 + 15 - lane % 16};
    for (int k = 0; k < 9; k++)
      if (out[k * 128 + tid] != want[k]) {
        check(false, "%s of work-item %d: got %d, want %d", what[k], tid, out[k * 128 + tid], want[k]);
        ok = false;
      }
  }
  ok = run(m, "partial_ballot", 64, 1, 0, bufs, sizes, 1, NULL, 0, err, sizeof err);
  const char *want = "kernel partial_ballot: work-item (0,0,0) of work-group (0,0,0): wave operation "
                     "llvm.amdgcn.ballot executed by part of a wave";
  check(!ok && !strcmp(err, want), "partial ballot: got '%s'", ok ? "success" : err);
  if (!ok)
    printf("message: %s\n", err);
  free(out);
  emu_free(m);
}

/* More DPP controls (gfx9 only: row_bcast and wave shifts) and their masks; out[k*128 + tid]. */
static const char *DPP_IR =
    "declare i32 @llvm.amdgcn.workitem.id.x()\n"
    "declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32, i32, i32, i1)\n"
    "define void @put(ptr addrspace(1) %out, i32 %k, i32 %tid, i32 %v) alwaysinline {\n"
    "  %a = mul i32 %k, 128\n"
    "  %b = add i32 %a, %tid\n"
    "  %i = zext i32 %b to i64\n"
    "  %p = getelementptr i32, ptr addrspace(1) %out, i64 %i\n"
    "  store i32 %v, ptr addrspace(1) %p, align 4\n"
    "  ret void\n"
    "}\n"
    "define amdgpu_kernel void @dpp(ptr addrspace(1) noalias %out) #0 {\n"
    "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n"
    "  %v0 = call i32 @llvm.amdgcn.update.dpp.i32(i32 -1, i32 %tid, i32 177, i32 15, i32 15, i1 false)\n"
    "  call void @put(ptr addrspace(1) %out, i32 0, i32 %tid, i32 %v0)\n"
    "  %v1 = call i32 @llvm.amdgcn.update.dpp.i32(i32 -1, i32 %tid, i32 322, i32 10, i32 15, i1 false)\n"
    "  call void @put(ptr addrspace(1) %out, i32 1, i32 %tid, i32 %v1)\n"
    "  %v2 = call i32 @llvm.amdgcn.update.dpp.i32(i32 -1, i32 %tid, i32 323, i32 12, i32 15, i1 false)\n"
    "  call void @put(ptr addrspace(1) %out, i32 2, i32 %tid, i32 %v2)\n"
    "  %v3 = call i32 @llvm.amdgcn.update.dpp.i32(i32 -1, i32 %tid, i32 312, i32 15, i32 15, i1 false)\n"
    "  call void @put(ptr addrspace(1) %out, i32 3, i32 %tid, i32 %v3)\n"
    "  %v4 = call i32 @llvm.amdgcn.update.dpp.i32(i32 -1, i32 %tid, i32 292, i32 15, i32 15, i1 false)\n"
    "  call void @put(ptr addrspace(1) %out, i32 4, i32 %tid, i32 %v4)\n"
    "  %v5 = call i32 @llvm.amdgcn.update.dpp.i32(i32 -1, i32 %tid, i32 273, i32 15, i32 5, i1 true)\n"
    "  call void @put(ptr addrspace(1) %out, i32 5, i32 %tid, i32 %v5)\n"
    "  ret void\n"
    "}\n"
    "attributes #0 = { \"amdgpu-flat-work-group-size\"=\"1,256\" }\n";

static void test_dpp(const char *cpu) {
  char err[1024];
  emu_module *m = load(DPP_IR, cpu, err, sizeof err);
  check(m != NULL, "emu_load: %s", err);
  if (!m)
    return;
  int32_t *out = dev_alloc(6 * 128 * 4);
  void *bufs[1] = {out};
  size_t sizes[1] = {6 * 128 * 4};
  bool ok = run(m, "dpp", 128, 1, 0, bufs, sizes, 1, NULL, 0, err, sizeof err);
  check(ok, "dpp: %s", err);
  const char *what[6] = {"quad_perm [1,0,3,2]", "row_bcast15 row_mask 0xa", "row_bcast31 row_mask 0xc",
                         "wave_shr1", "row_ror 4", "row_shr 1 bank_mask 0x5 bound_ctrl"};
  for (int tid = 0; ok && tid < 128; tid++) {
    int lane = tid % 64, wb = tid - lane, row = lane / 16, r = lane % 16, bank = r / 4;
    static const int qp[4] = {1, 0, 3, 2};
    int32_t want[6] = {
        (tid & ~3) | qp[tid & 3],
        (row == 1 || row == 3) ? wb + row * 16 - 1 : -1,
        row >= 2 ? wb + 31 : -1,
        lane == 0 ? -1 : tid - 1,
        wb + row * 16 + ((r - 4) & 15),
        (bank == 1 || bank == 3) ? -1 : r == 0 ? 0 : tid - 1,
    };
    for (int k = 0; k < 6; k++)
      if (out[k * 128 + tid] != want[k]) {
        check(false, "%s of work-item %d: got %d, want %d", what[k], tid, out[k * 128 + tid], want[k]);
        ok = false;
      }
  }
  free(out);
  emu_free(m);
}

/* permlanex16 swaps the 16-lane rows of each 32-lane half (gfx10+). */
static void test_permlane(const char *cpu) {
  const char *ir =
      "declare i32 @llvm.amdgcn.workitem.id.x()\n"
      "declare i32 @llvm.amdgcn.permlanex16.i32(i32, i32, i32, i32, i1, i1)\n"
      "define amdgpu_kernel void @px16(ptr addrspace(1) noalias %out) #0 {\n"
      "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n"
      "  %v = call i32 @llvm.amdgcn.permlanex16.i32(i32 0, i32 %tid, i32 1985229328, i32 -19088744, i1 false, i1 false)\n"
      "  %t64 = zext i32 %tid to i64\n"
      "  %p = getelementptr i32, ptr addrspace(1) %out, i64 %t64\n"
      "  store i32 %v, ptr addrspace(1) %p, align 4\n"
      "  ret void\n"
      "}\n"
      "attributes #0 = { \"amdgpu-flat-work-group-size\"=\"1,256\" }\n";
  char err[1024];
  emu_module *m = load(ir, cpu, err, sizeof err);
  check(m != NULL, "emu_load: %s", err);
  if (!m)
    return;
  int32_t *out = dev_alloc(64 * 4);
  void *bufs[1] = {out};
  size_t sizes[1] = {64 * 4};
  bool ok = run(m, "px16", 64, 1, 0, bufs, sizes, 1, NULL, 0, err, sizeof err);
  check(ok, "permlanex16: %s", err);
  int bad = 0;
  for (int tid = 0; ok && tid < 64; tid++)
    bad += out[tid] != (tid ^ 16);
  check(bad == 0, "permlanex16: %d wrong lanes", bad);
  free(out);
  emu_free(m);
}

/* cvt.pkrtz rounds toward zero: 1 + 0.75 ulp, its negation, a value past the largest half, a
 * subnormal of 1.68 ulp (rounding to nearest would give 0x3c01, 0xbc01, inf, 0x0002), and values
 * that stay: 1, 0, -inf, 65504. */
static void test_pkrtz(const char *cpu) {
  const char *ir =
      "declare i32 @llvm.amdgcn.workitem.id.x()\n"
      "declare <2 x half> @llvm.amdgcn.cvt.pkrtz(float, float)\n"
      "define amdgpu_kernel void @pkrtz(ptr addrspace(1) noalias %in, ptr addrspace(1) noalias %out) #0 {\n"
      "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n"
      "  %t64 = zext i32 %tid to i64\n"
      "  %i0 = mul i64 %t64, 2\n"
      "  %i1 = add i64 %i0, 1\n"
      "  %p0 = getelementptr float, ptr addrspace(1) %in, i64 %i0\n"
      "  %p1 = getelementptr float, ptr addrspace(1) %in, i64 %i1\n"
      "  %x = load float, ptr addrspace(1) %p0, align 4\n"
      "  %y = load float, ptr addrspace(1) %p1, align 4\n"
      "  %h = call <2 x half> @llvm.amdgcn.cvt.pkrtz(float %x, float %y)\n"
      "  %v = bitcast <2 x half> %h to i32\n"
      "  %p = getelementptr i32, ptr addrspace(1) %out, i64 %t64\n"
      "  store i32 %v, ptr addrspace(1) %p, align 4\n"
      "  ret void\n"
      "}\n"
      "attributes #0 = { \"amdgpu-flat-work-group-size\"=\"1,256\" }\n";
  static const float in[8] = {1.000732421875f, -1.000732421875f, 70000.0f, 1e-7f, 1.0f, 0.0f, -INFINITY, 65504.0f};
  static const uint32_t want[4] = {0xbc003c00u, 0x00017bffu, 0x00003c00u, 0x7bfffc00u};
  char err[1024];
  emu_module *m = load(ir, cpu, err, sizeof err);
  check(m != NULL, "emu_load: %s", err);
  if (!m)
    return;
  float *x = dev_alloc(sizeof in);
  memcpy(x, in, sizeof in);
  uint32_t *out = dev_alloc(32 * 4);
  void *bufs[2] = {x, out};
  size_t sizes[2] = {sizeof in, 32 * 4};
  bool ok = run(m, "pkrtz", 4, 1, 0, bufs, sizes, 2, NULL, 0, err, sizeof err);
  check(ok, "pkrtz: %s", err);
  for (int i = 0; ok && i < 4; i++)
    check(out[i] == want[i], "pkrtz lane %d: 0x%08x, want 0x%08x", i, out[i], want[i]);
  free(x);
  free(out);
  emu_free(m);
}

/* llvm.amdgcn.ds.read.tr16.b64 (gfx950) in IR mode, as isa.bats runs ds_read_b64_tr_b16: work-item
 * l of 128 writes the 16-bit elements 4l .. 4l + 3 (value = index) at LDS element 4l, then reads
 * with the address of l ^ 5; in each 16-lane group lane i's element e is element i % 4 of what
 * lane 4e + i / 4 addressed. */
static void test_read_tr16(void) {
  const char *ir =
      "@lds = internal addrspace(3) global [512 x i16] undef, align 16\n"
      "declare i32 @llvm.amdgcn.workitem.id.x()\n"
      "declare void @llvm.amdgcn.s.barrier()\n"
      "declare <4 x i16> @llvm.amdgcn.ds.read.tr16.b64.v4i16(ptr addrspace(3))\n"
      "define amdgpu_kernel void @rtr(ptr addrspace(1) noalias %out) #0 {\n"
      "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n"
      "  %b = mul i32 %tid, 4\n"
      "  %b16 = trunc i32 %b to i16\n"
      "  %v0 = insertelement <4 x i16> undef, i16 %b16, i32 0\n"
      "  %e1 = add i16 %b16, 1\n"
      "  %v1 = insertelement <4 x i16> %v0, i16 %e1, i32 1\n"
      "  %e2 = add i16 %b16, 2\n"
      "  %v2 = insertelement <4 x i16> %v1, i16 %e2, i32 2\n"
      "  %e3 = add i16 %b16, 3\n"
      "  %v3 = insertelement <4 x i16> %v2, i16 %e3, i32 3\n"
      "  %pw = getelementptr i16, ptr addrspace(3) @lds, i32 %b\n"
      "  store <4 x i16> %v3, ptr addrspace(3) %pw, align 8\n"
      "  call void @llvm.amdgcn.s.barrier()\n"
      "  %x = xor i32 %tid, 5\n"
      "  %xb = mul i32 %x, 4\n"
      "  %pr = getelementptr i16, ptr addrspace(3) @lds, i32 %xb\n"
      "  %r = call <4 x i16> @llvm.amdgcn.ds.read.tr16.b64.v4i16(ptr addrspace(3) %pr)\n"
      "  %t64 = zext i32 %tid to i64\n"
      "  %po = getelementptr <4 x i16>, ptr addrspace(1) %out, i64 %t64\n"
      "  store <4 x i16> %r, ptr addrspace(1) %po, align 8\n"
      "  ret void\n"
      "}\n"
      "attributes #0 = { \"amdgpu-flat-work-group-size\"=\"1,256\" }\n";
  char err[1024];
  emu_module *m = load(ir, "gfx950", err, sizeof err);
  check(m != NULL, "emu_load: %s", err);
  if (!m)
    return;
  uint16_t *out = dev_alloc(128 * 8);
  void *bufs[1] = {out};
  size_t sizes[1] = {128 * 8};
  bool ok = run(m, "rtr", 128, 1, 0, bufs, sizes, 1, NULL, 0, err, sizeof err);
  check(ok, "rtr: %s", err);
  for (int l = 0; ok && l < 128; l++)
    for (int e = 0; e < 4; e++) {
      int want = 4 * (((l & ~15) + 4 * e + (l & 15) / 4) ^ 5) + l % 4;
      check(out[4 * l + e] == want, "rtr lane %d element %d: %d, want %d", l, e, out[4 * l + e], want);
    }
  check(!ok || out[0] == 20, "rtr lane 0: %d, want 20", out[0]);
  free(out);
  emu_free(m);
}

static void test_unsupported(void) {
  const char *ir = "declare i64 @llvm.amdgcn.s.getpc()\n"
                   "define amdgpu_kernel void @k(ptr addrspace(1) %o) {\n"
                   "  %p = call i64 @llvm.amdgcn.s.getpc()\n"
                   "  store i64 %p, ptr addrspace(1) %o, align 8\n"
                   "  ret void\n}\n";
  char err[1024];
  emu_module *m = load(ir, "gfx90a", err, sizeof err);
  const char *want = "kernel module uses llvm.amdgcn.s.getpc, which the emulator does not support";
  check(!m && !strcmp(err, want), "got '%s'", m ? "success" : err);
  if (!m)
    printf("message: %s\n", err);
  emu_free(m);
  uint8_t junk[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  emu_target t = target_of("gfx90a");
  m = emu_load(junk, sizeof junk, &t, err, sizeof err);
  check(!m && !strcmp(err, "cannot read the kernel IR for gfx90a: file doesn't start with bitcode header"), "junk: got '%s'",
        m ? "success" : err);
  emu_free(m);
}

/* One 32x32x8 f16 MFMA per wave: D = A x B + C with A[i][k] = i+k, B[k][j] = k-j, C = 1. */
static void test_mfma(void) {
  const char *ir =
      "declare i32 @llvm.amdgcn.workitem.id.x()\n"
      "declare <16 x float> @llvm.amdgcn.mfma.f32.32x32x8f16(<4 x half>, <4 x half>, <16 x float>, i32, i32, i32)\n"
      "define amdgpu_kernel void @mfma(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b,"
      " ptr addrspace(1) noalias %d) #0 {\n"
      "  %l = call i32 @llvm.amdgcn.workitem.id.x()\n"
      "  %l64 = zext i32 %l to i64\n"
      "  %pa = getelementptr <4 x half>, ptr addrspace(1) %a, i64 %l64\n"
      "  %pb = getelementptr <4 x half>, ptr addrspace(1) %b, i64 %l64\n"
      "  %va = load <4 x half>, ptr addrspace(1) %pa, align 8\n"
      "  %vb = load <4 x half>, ptr addrspace(1) %pb, align 8\n"
      "  %r = call <16 x float> @llvm.amdgcn.mfma.f32.32x32x8f16(<4 x half> %va, <4 x half> %vb,"
      " <16 x float> splat (float 1.0), i32 0, i32 0, i32 0)\n"
      "  %pd = getelementptr <16 x float>, ptr addrspace(1) %d, i64 %l64\n"
      "  store <16 x float> %r, ptr addrspace(1) %pd, align 64\n"
      "  ret void\n"
      "}\n"
      "attributes #0 = { \"amdgpu-flat-work-group-size\"=\"64,64\" }\n";
  char err[1024];
  emu_module *m = load(ir, "gfx90a", err, sizeof err);
  check(m != NULL, "emu_load: %s", err);
  if (!m)
    return;
  _Float16 *a = dev_alloc(64 * 4 * 2), *b = dev_alloc(64 * 4 * 2);
  float *d = dev_alloc(64 * 16 * 4);
  for (int l = 0; l < 64; l++)
    for (int j = 0; j < 4; j++) {
      int k = 4 * (l / 32) + j;
      a[l * 4 + j] = (_Float16)(l % 32 + k); /* A[i = l%32][k] */
      b[l * 4 + j] = (_Float16)(k - l % 32); /* B[k][j = l%32] */
    }
  void *bufs[3] = {a, b, d};
  size_t sizes[3] = {512, 512, 4096};
  bool ok = run(m, "mfma", 64, 1, 0, bufs, sizes, 3, NULL, 0, err, sizeof err);
  check(ok, "mfma: %s", err);
  int bad = 0;
  for (int l = 0; ok && l < 64; l++)
    for (int r = 0; r < 16; r++) {
      int row = 8 * (r / 4) + 4 * (l / 32) + r % 4, col = l % 32;
      float want = 1.0f;
      for (int k = 0; k < 8; k++)
        want += (float)((row + k) * (k - col));
      bad += d[l * 16 + r] != want;
    }
  check(bad == 0, "mfma: %d wrong results", bad);
  free(a), free(b), free(d);
  emu_free(m);
}

/* gfx950's block-scaled MFMA with fp4 A and B through the IR path, M = N = 16 (16x16x128) or 32
 * (32x32x64): lane l holds row (column) l % M and K = 32 * (l / M) + 0..31, two per byte low
 * nibble first; its E8M0 scale is byte `opsel` of its scale word; register r of D is row
 * 4 (l / 16) + r (16x16) or 8 (r / 4) + 4 (l / 32) + r % 4 (32x32), column l % M. The reference
 * builds the matrices from that layout alone (docs/emulator.md). `scales` "%sa, %sb" loads them;
 * "0, 0" (constants) is the unscaled form; fmt picks the formats. Returns the emulator's message,
 * "" on success. */
static const char *mfma_scale_run(int M, const char *scales, int fmt, int *bad) {
  static char ir[4096], err[1024];
  int K = 2048 / M, R = M * M / 64; /* K and the D registers per lane */
  snprintf(ir, sizeof ir,
           "declare i32 @llvm.amdgcn.workitem.id.x()\n"
           "declare <%d x float> @llvm.amdgcn.mfma.scale.f32.%dx%dx%d.f8f6f4.v4i32.v4i32(<4 x i32>, <4 x i32>,"
           " <%d x float>, i32, i32, i32, i32, i32, i32)\n"
           "define amdgpu_kernel void @mfma_scale(ptr addrspace(1) noalias %%a, ptr addrspace(1) noalias %%b,"
           " ptr addrspace(1) noalias %%s, ptr addrspace(1) noalias %%d) #0 {\n"
           "  %%l = call i32 @llvm.amdgcn.workitem.id.x()\n"
           "  %%l64 = zext i32 %%l to i64\n"
           "  %%pa = getelementptr <4 x i32>, ptr addrspace(1) %%a, i64 %%l64\n"
           "  %%pb = getelementptr <4 x i32>, ptr addrspace(1) %%b, i64 %%l64\n"
           "  %%ps = getelementptr <2 x i32>, ptr addrspace(1) %%s, i64 %%l64\n"
           "  %%pd = getelementptr <%d x float>, ptr addrspace(1) %%d, i64 %%l64\n"
           "  %%va = load <4 x i32>, ptr addrspace(1) %%pa, align 16\n"
           "  %%vb = load <4 x i32>, ptr addrspace(1) %%pb, align 16\n"
           "  %%vs = load <2 x i32>, ptr addrspace(1) %%ps, align 8\n"
           "  %%sa = extractelement <2 x i32> %%vs, i32 0\n"
           "  %%sb = extractelement <2 x i32> %%vs, i32 1\n"
           "  %%vc = load <%d x float>, ptr addrspace(1) %%pd, align 16\n"
           "  %%r = call <%d x float> @llvm.amdgcn.mfma.scale.f32.%dx%dx%d.f8f6f4.v4i32.v4i32(<4 x i32> %%va,"
           " <4 x i32> %%vb, <%d x float> %%vc, i32 %d, i32 %d, i32 1, i32 %.*s, i32 2, i32 %s)\n"
           "  store <%d x float> %%r, ptr addrspace(1) %%pd, align 16\n"
           "  ret void\n"
           "}\n"
           "attributes #0 = { \"amdgpu-flat-work-group-size\"=\"64,64\" }\n",
           R, M, M, K, R, R, R, R, M, M, K, R, fmt, fmt, (int)strcspn(scales, ","), scales, strchr(scales, ',') + 2,
           R);
  emu_module *m = load(ir, "gfx950", err, sizeof err);
  if (!m)
    return err;
  bool unscaled = scales[0] == '0';
  uint8_t *a = dev_alloc(64 * 16), *b = dev_alloc(64 * 16);
  uint32_t *sc = dev_alloc(64 * 8);
  float *d = dev_alloc(64 * (size_t)R * 4);
  unsigned x = 12345;
  for (int i = 0; i < 64 * 16; i++) {
    x = x * 1103515245u + 12345u;
    a[i] = (uint8_t)(x >> 16);
    x = x * 1103515245u + 12345u;
    b[i] = (uint8_t)(x >> 16);
  }
  for (int l = 0; l < 64; l++) {
    /* byte 1 of A's word, byte 2 of B's (opsel 1, 2); the other bytes NaN */
    sc[2 * l] = 0xffff00ffu | (uint32_t)(120 + (7 * l) % 16) << 8;
    sc[2 * l + 1] = 0xff00ffffu | (uint32_t)(124 + (5 * l) % 8) << 16;
    for (int r = 0; r < R; r++)
      d[R * l + r] = (float)(R * l + r) / 8;
  }
  static const double e2m1[16] = {0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6};
  static double want[32][32];
  for (int l = 0; l < 64; l++) /* C, placed by the D layout */
    for (int r = 0; r < R; r++)
      want[M == 16 ? 4 * (l / 16) + r : 8 * (r / 4) + 4 * (l / 32) + r % 4][l % M] = d[R * l + r];
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++)
      for (int k = 0; k < K; k++) {
        int la = i + M * (k / 32), lb = j + M * (k / 32), n = k % 32;
        double va = e2m1[a[16 * la + n / 2] >> 4 * (n % 2) & 15], vb = e2m1[b[16 * lb + n / 2] >> 4 * (n % 2) & 15];
        if (!unscaled)
          va = ldexp(va, (int)(sc[2 * la] >> 8 & 255) - 127), vb = ldexp(vb, (int)(sc[2 * lb + 1] >> 16 & 255) - 127);
        want[i][j] += va * vb;
      }
  void *bufs[4] = {a, b, sc, d};
  size_t sizes[4] = {1024, 1024, 512, 64 * (size_t)R * 4};
  bool ok = run(m, "mfma_scale", 64, 1, 0, bufs, sizes, 4, NULL, 0, err, sizeof err);
  *bad = 0;
  for (int l = 0; ok && l < 64; l++)
    for (int r = 0; r < R; r++) {
      double w = want[M == 16 ? 4 * (l / 16) + r : 8 * (r / 4) + 4 * (l / 32) + r % 4][l % M];
      *bad += !(fabs(d[R * l + r] - w) <= 1e-6 * fabs(w) + 1e-30);
    }
  free(a), free(b), free(sc), free(d);
  emu_free(m);
  return ok ? "" : err;
}

static void test_mfma_scale(void) {
  int bad;
  for (int M = 16; M <= 32; M += 16) {
    const char *e = mfma_scale_run(M, "%sa, %sb", 4, &bad);
    check(!*e && bad == 0, "scaled fp4 %dx%d: %s, %d wrong results", M, M, e, bad);
    e = mfma_scale_run(M, "0, 0", 4, &bad);
    check(!*e && bad == 0, "unscaled fp4 %dx%d: %s, %d wrong results", M, M, e, bad);
  }
  printf("message: %s\n", mfma_scale_run(16, "%sa, %sb", 0, &bad));
}

static void bench(void) {
  char err[1024];
  emu_module *m = load(ADD_IR, "gfx90a", err, sizeof err);
  if (!m) {
    printf("emu_load: %s\n", err);
    exit(1);
  }
  enum { N = 1 << 22 };
  float *a = dev_alloc((size_t)N * 4), *b = dev_alloc((size_t)N * 4), *c = dev_alloc((size_t)N * 4);
  void *bufs[3] = {a, b, c};
  size_t sizes[3] = {(size_t)N * 4, (size_t)N * 4, (size_t)N * 4};
  int32_t n = N;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  bool ok = run(m, "tosac_k0_add", 256, N / 256, 0, bufs, sizes, 3, &n, 1, err, sizeof err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  printf("elementwise add: %d work-items in %.3f s: %.1f M work-items/s (%s)\n", N, s, N / s * 1e-6,
         ok ? "ok" : err);
  free(a), free(b), free(c);
  emu_free(m);
}

/* Runs KERNEL of IR on one work-group of LANES work-items whose arguments are NIN 32-bit input
 * buffers (work-item i of input j holds ins[j][i % cases]) and one 32-bit output; returns the
 * output (free it) or NULL after reporting why. */
enum { LANES = 64 };
static uint32_t *run_lanes(const char *ir, const char *kernel, const char *cpu, int nin,
                           const void *const *ins, int cases) {
  char err[1024];
  emu_module *m = load(ir, cpu, err, sizeof err);
  check(m != NULL, "emu_load: %s", err);
  if (!m)
    return NULL;
  void *bufs[8];
  size_t sizes[8];
  for (int j = 0; j <= nin; j++) {
    bufs[j] = dev_alloc(LANES * 4), sizes[j] = LANES * 4;
    for (int i = 0; j < nin && i < LANES; i++)
      memcpy((char *)bufs[j] + 4 * i, (const char *)ins[j] + 4 * (i % cases), 4);
  }
  bool ok = run(m, kernel, LANES, 1, 0, bufs, sizes, nin + 1, NULL, 0, err, sizeof err);
  check(ok, "%s: %s", kernel, err);
  for (int j = 0; j < nin; j++)
    free(bufs[j]);
  emu_free(m);
  if (!ok)
    free(bufs[nin]);
  return ok ? bufs[nin] : NULL;
}

/* llvm.amdgcn.cvt.pkrtz: two f32 to f16 rounded toward zero, packed (low half the first). */
static const char *PKRTZ_IR =
    "declare i32 @llvm.amdgcn.workitem.id.x()\n"
    "declare <2 x half> @llvm.amdgcn.cvt.pkrtz(float, float)\n"
    "define amdgpu_kernel void @pkrtz(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b,"
    " ptr addrspace(1) noalias %c) #0 {\n"
    "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n"
    "  %i = zext i32 %tid to i64\n"
    "  %pa = getelementptr float, ptr addrspace(1) %a, i64 %i\n"
    "  %pb = getelementptr float, ptr addrspace(1) %b, i64 %i\n"
    "  %pc = getelementptr i32, ptr addrspace(1) %c, i64 %i\n"
    "  %x = load float, ptr addrspace(1) %pa, align 4\n"
    "  %y = load float, ptr addrspace(1) %pb, align 4\n"
    "  %h = call <2 x half> @llvm.amdgcn.cvt.pkrtz(float %x, float %y)\n"
    "  %w = bitcast <2 x half> %h to i32\n"
    "  store i32 %w, ptr addrspace(1) %pc, align 4\n"
    "  ret void\n"
    "}\n"
    "attributes #0 = { \"amdgpu-flat-work-group-size\"=\"1,64\" }\n";

static void test_pkrtz_cases(const char *cpu) {
  enum { CASES = 6 };
  /* round to nearest would give 0x3c02, 0x7c00 (70000 overflows), 0x0001 (4e-8), 0x3c00 */
  const float xa[CASES] = {1.0f, -1.00146484375f, 70000.0f, 4e-8f, 0.99999f, INFINITY};
  const float xb[CASES] = {1.00146484375f, -70000.0f, 0.0f, NAN, -0.0f, 2.0f};
  const uint32_t want[CASES] = {0x3c013c00u, 0xfbffbc01u, 0x00007bffu, 0x7e000000u, 0x80003bffu, 0x40007c00u};
  uint32_t *c = run_lanes(PKRTZ_IR, "pkrtz", cpu, 2, (const void *[]){xa, xb}, CASES);
  for (int i = 0; c && i < LANES; i++) {
    uint32_t w = want[i % CASES];
    /* any f16 NaN in the high half of case 3 */
    bool nan_hi = i % CASES == 3 && (c[i] & 0x7c000000u) == 0x7c000000u && (c[i] & 0x03ff0000u) &&
                  (c[i] & 0xffffu) == 0;
    check(c[i] == w || nan_hi, "lane %d: 0x%08x, want 0x%08x", i, c[i], w);
  }
  free(c);
}

/* llvm.amdgcn.perm(a, b, sel): v_perm_b32's byte select over {a, b}. */
static const char *PERM_IR =
    "declare i32 @llvm.amdgcn.workitem.id.x()\n"
    "declare i32 @llvm.amdgcn.perm(i32, i32, i32)\n"
    "define amdgpu_kernel void @perm(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b,"
    " ptr addrspace(1) noalias %s, ptr addrspace(1) noalias %c) #0 {\n"
    "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n"
    "  %i = zext i32 %tid to i64\n"
    "  %pa = getelementptr i32, ptr addrspace(1) %a, i64 %i\n"
    "  %pb = getelementptr i32, ptr addrspace(1) %b, i64 %i\n"
    "  %ps = getelementptr i32, ptr addrspace(1) %s, i64 %i\n"
    "  %pc = getelementptr i32, ptr addrspace(1) %c, i64 %i\n"
    "  %x = load i32, ptr addrspace(1) %pa, align 4\n"
    "  %y = load i32, ptr addrspace(1) %pb, align 4\n"
    "  %z = load i32, ptr addrspace(1) %ps, align 4\n"
    "  %w = call i32 @llvm.amdgcn.perm(i32 %x, i32 %y, i32 %z)\n"
    "  store i32 %w, ptr addrspace(1) %pc, align 4\n"
    "  ret void\n"
    "}\n"
    "attributes #0 = { \"amdgpu-flat-work-group-size\"=\"1,64\" }\n";

/* bytes of {a, b} (b the low word), the signs of its 16-bit halves (selectors 8-11), 0 (12) and
 * 0xff (13 and above); the first case is the flash kernel's bf16 P: the high halves of two f32 */
static void test_perm(const char *cpu) {
  enum { CASES = 4 };
  const uint32_t xa[CASES] = {0x3f801234u, 0x80000000u, 0x11223344u, 0x11223344u};
  const uint32_t xb[CASES] = {0x40005678u, 0x00008000u, 0x55667788u, 0x55667788u};
  const uint32_t xs[CASES] = {0x07060302u, 0x0b0a0908u, 0x0c0d0400u, 0xff0e0105u};
  const uint32_t want[CASES] = {0x3f804000u, 0xff0000ffu, 0x00ff4488u, 0xffff7733u};
  uint32_t *c = run_lanes(PERM_IR, "perm", cpu, 3, (const void *[]){xa, xb, xs}, CASES);
  for (int i = 0; c && i < LANES; i++)
    check(c[i] == want[i % CASES], "lane %d: 0x%08x, want 0x%08x", i, c[i], want[i % CASES]);
  free(c);
}

/* llvm.amdgcn.cvt.pk.fp8.f32 into the low half, then .bf8.f32 into the high half of the same word. */
static const char *CVT_F8_IR =
    "declare i32 @llvm.amdgcn.workitem.id.x()\n"
    "declare i32 @llvm.amdgcn.cvt.pk.fp8.f32(float, float, i32, i1)\n"
    "declare i32 @llvm.amdgcn.cvt.pk.bf8.f32(float, float, i32, i1)\n"
    "define amdgpu_kernel void @cvt8(ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b,"
    " ptr addrspace(1) noalias %c) #0 {\n"
    "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n"
    "  %i = zext i32 %tid to i64\n"
    "  %pa = getelementptr float, ptr addrspace(1) %a, i64 %i\n"
    "  %pb = getelementptr float, ptr addrspace(1) %b, i64 %i\n"
    "  %pc = getelementptr i32, ptr addrspace(1) %c, i64 %i\n"
    "  %x = load float, ptr addrspace(1) %pa, align 4\n"
    "  %y = load float, ptr addrspace(1) %pb, align 4\n"
    "  %lo = call i32 @llvm.amdgcn.cvt.pk.fp8.f32(float %x, float %y, i32 0, i1 false)\n"
    "  %w = call i32 @llvm.amdgcn.cvt.pk.bf8.f32(float %x, float %y, i32 %lo, i1 true)\n"
    "  store i32 %w, ptr addrspace(1) %pc, align 4\n"
    "  ret void\n"
    "}\n"
    "attributes #0 = { \"amdgpu-flat-work-group-size\"=\"1,64\" }\n";

/* fp8(x) | fp8(y) << 8 | bf8(x) << 16 | bf8(y) << 24: 1 and -0; ties to even (1.0625, 1.1875);
 * 300 (past E4M3FNUZ's 240) and NaN; a subnormal tie (1.5 · 2^-10) and -1e6 (overflow) — FNUZ
 * codes on gfx942, OCP on gfx950 (the same words as tests/data/isa/cvt8_ref.py's rounding) */
static void test_cvt_f8(const char *cpu) {
  enum { CASES = 4 };
  const float xa[CASES] = {1.0f, 1.0625f, 300.0f, 0x1.8p-10f}, xb[CASES] = {-0.0f, 1.1875f, NAN, -1e6f};
  const uint32_t fnuz[CASES] = {0x00400040u, 0x41404240u, 0x80618080u, 0x801a8002u};
  const uint32_t ocp[CASES] = {0x803c8038u, 0x3d3c3a38u, 0x7f5d7f79u, 0xfc16ff01u};
  const uint32_t *want = strcmp(cpu, "gfx942") ? ocp : fnuz;
  uint32_t *c = run_lanes(CVT_F8_IR, "cvt8", cpu, 2, (const void *[]){xa, xb}, CASES);
  for (int i = 0; c && i < LANES; i++)
    check(c[i] == want[i % CASES], "lane %d: 0x%08x, want 0x%08x", i, c[i], want[i % CASES]);
  free(c);
}

typedef struct test {
  const char *name;
  void (*fn)(const char *);
  const char *cpu;
} test;

static void unsupported(const char *cpu) { (void)cpu, test_unsupported(); }
static void mfma(const char *cpu) { (void)cpu, test_mfma(); }
static void mfma_scale(const char *cpu) { (void)cpu, test_mfma_scale(); }
static void read_tr16(const char *cpu) { (void)cpu, test_read_tr16(); }

static const test tests[] = {
    {"add-gfx90a", test_add, "gfx90a"},   {"add-gfx1100", test_add, "gfx1100"},
    {"lds-gfx90a", test_lds, "gfx90a"},   {"lds-gfx1100", test_lds, "gfx1100"},
    {"waves-gfx90a", test_waves, "gfx90a"}, {"waves-gfx1100", test_waves, "gfx1100"},
    {"dpp-gfx90a", test_dpp, "gfx90a"},   {"permlanex16-gfx1100", test_permlane, "gfx1100"},
    {"unsupported", unsupported, NULL},   {"mfma-gfx90a", mfma, NULL},
    {"mfma-scale-gfx950", mfma_scale, NULL}, {"pkrtz-gfx90a", test_pkrtz, "gfx90a"},
    {"pkrtz-gfx1100", test_pkrtz_cases, "gfx1100"}, {"read-tr16-gfx950", read_tr16, NULL},
    {"perm-gfx942", test_perm, "gfx942"},           {"cvt-f8-gfx942", test_cvt_f8, "gfx942"},
    {"cvt-f8-gfx950", test_cvt_f8, "gfx950"},
};

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "bench")) {
    bench();
    return 0;
  }
  for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
    bool wanted = argc == 1;
    for (int a = 1; a < argc; a++)
      wanted |= !strcmp(argv[a], tests[i].name);
    if (!wanted)
      continue;
    current = tests[i].name;
    test_ok = true;
    tests[i].fn(tests[i].cpu);
    printf("%s - %s\n", test_ok ? "ok" : "not ok", tests[i].name);
    fflush(stdout);
    test_ok ? passed++ : failed++;
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
