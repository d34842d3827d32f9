/* emu.c: load a kernel module (bitcode -> re-target -> host O2 -> ORC LLJIT) and run launches. */
#include "emu_int.h"
#include "isa_int.h"

#include <llvm-c/BitReader.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct emu_module {
  LLVMOrcLLJITRef jit;
  emu_target target;
  emu_rtinfo info;
  isa_module *isa; /* machine code (emu_load_code) instead of JIT-compiled IR */
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static void init_native(void) {
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
}

/* Copy an LLVM error into err and consume it. */
static bool llvm_fail(LLVMErrorRef e, const char *what, char *err, size_t errsize) {
  char *msg = LLVMGetErrorMessage(e);
  snprintf(err, errsize, "%s: %s", what, msg);
  LLVMDisposeErrorMessage(msg);
  return false;
}

static bool optimise(LLVMModuleRef m, const char *triple, char *err, size_t errsize) {
  LLVMTargetRef target;
  char *msg = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &msg)) {
    snprintf(err, errsize, "no host target for %s: %s", triple, msg);
    LLVMDisposeMessage(msg);
    return false;
  }
  char *cpu = LLVMGetHostCPUName(), *features = LLVMGetHostCPUFeatures();
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, triple, cpu, features, LLVMCodeGenLevelDefault,
                                                    LLVMRelocDefault, LLVMCodeModelJITDefault);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(m, "default<O2>", tm, opts);
  LLVMDisposePassBuilderOptions(opts);
  LLVMDisposeTargetMachine(tm);
  return e ? llvm_fail(e, "host optimisation failed", err, errsize) : true;
}

static bool define_runtime(LLVMOrcLLJITRef jit, char *err, size_t errsize) {
  LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(jit);
  LLVMOrcCSymbolMapPair *pairs = calloc((size_t)emu_rt_nsymbols, sizeof *pairs);
  for (int i = 0; i < emu_rt_nsymbols; i++) {
    pairs[i].Name = LLVMOrcLLJITMangleAndIntern(jit, emu_rt_symbols[i].name);
    pairs[i].Sym.Address = (LLVMOrcJITTargetAddress)(uintptr_t)emu_rt_symbols[i].addr;
    pairs[i].Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
    pairs[i].Sym.Flags.TargetFlags = 0;
  }
  LLVMErrorRef e = LLVMOrcJITDylibDefine(jd, LLVMOrcAbsoluteSymbols(pairs, (size_t)emu_rt_nsymbols));
  free(pairs);
  if (e)
    return llvm_fail(e, "cannot define the emulator runtime", err, errsize);
  /* libm and friends for whatever the host backend lowers to library calls. */
  LLVMOrcDefinitionGeneratorRef gen;
  e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(&gen, LLVMOrcLLJITGetGlobalPrefix(jit), NULL, NULL);
  if (e)
    return llvm_fail(e, "cannot search the process for symbols", err, errsize);
  LLVMOrcJITDylibAddGenerator(jd, gen);
  return true;
}

static bool lookup(LLVMOrcLLJITRef jit, const char *name, LLVMOrcExecutorAddress *addr, char *err,
                   size_t errsize) {
  LLVMErrorRef e = LLVMOrcLLJITLookup(jit, addr, name);
  return e ? llvm_fail(e, "JIT compilation failed", err, errsize) : true;
}

/* Without a handler LLVM prints bitcode errors and exits the process. */
static void on_diagnostic(LLVMDiagnosticInfoRef d, void *ctx) {
  if (LLVMGetDiagInfoSeverity(d) != LLVMDSError)
    return;
  char *msg = LLVMGetDiagInfoDescription(d);
  snprintf(ctx, 256, "%s", msg);
  LLVMDisposeMessage(msg);
}

emu_module *emu_load(const uint8_t *bitcode, size_t size, const emu_target *t, char *err, size_t errsize) {
  pthread_once(&init_once, init_native);
  emu_module *em = calloc(1, sizeof *em);
  em->target = *t;
  LLVMContextRef ctx = LLVMContextCreate();
  char diag[256] = "not valid LLVM bitcode";
  LLVMContextSetDiagnosticHandler(ctx, on_diagnostic, diag);
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy((const char *)bitcode, size, "kernel-ir");
  LLVMModuleRef m = NULL;
  bool ok = !LLVMParseBitcodeInContext2(ctx, buf, &m);
  LLVMDisposeMemoryBuffer(buf);
  if (!ok)
    snprintf(err, errsize, "cannot read the kernel IR for %s: %s", t->processor, diag);
  LLVMErrorRef e = ok ? LLVMOrcCreateLLJIT(&em->jit, NULL) : NULL;
  if (e)
    ok = llvm_fail(e, "cannot create the JIT", err, errsize);
  if (ok) {
    const char *triple = LLVMOrcLLJITGetTripleString(em->jit);
    ok = emu_retarget(m, triple, LLVMOrcLLJITGetDataLayoutStr(em->jit), t, &em->info, err, errsize) &&
         optimise(m, triple, err, errsize) && define_runtime(em->jit, err, errsize);
  }
  if (!ok) {
    if (m)
      LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    emu_free(em);
    return NULL;
  }
  if (getenv("TOSAC_RUN_DUMP_IR"))
    LLVMDumpModule(m);
  LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContextFromLLVMContext(ctx);
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(m, tsc);
  LLVMOrcDisposeThreadSafeContext(tsc);
  e = LLVMOrcLLJITAddLLVMIRModule(em->jit, LLVMOrcLLJITGetMainJITDylib(em->jit), tsm);
  if (e) {
    LLVMOrcDisposeThreadSafeModule(tsm);
    llvm_fail(e, "cannot add the kernel module to the JIT", err, errsize);
    emu_free(em);
    return NULL;
  }
  /* Compile everything now, so launches on several threads only call code. */
  for (int i = 0; i < em->info.nkernels; i++) {
    LLVMOrcExecutorAddress a;
    if (!lookup(em->jit, em->info.kernels[i].entry_name, &a, err, errsize)) {
      emu_free(em);
      return NULL;
    }
    em->info.kernels[i].entry = (void (*)(const uint8_t *))(uintptr_t)a;
  }
  LLVMOrcExecutorAddress ga, na;
  if (!lookup(em->jit, EMU_GLOBALS_SYMBOL, &ga, err, errsize) ||
      !lookup(em->jit, EMU_NGLOBALS_SYMBOL, &na, err, errsize)) {
    emu_free(em);
    return NULL;
  }
  const struct {
    uintptr_t addr;
    uint64_t size;
  } *tab = (const void *)(uintptr_t)ga;
  em->info.nglobals = (int)*(const uint64_t *)(uintptr_t)na;
  em->info.globals = calloc((size_t)em->info.nglobals + 1, sizeof *em->info.globals);
  for (int i = 0; i < em->info.nglobals; i++)
    em->info.globals[i] = (emu_range){tab[i].addr, tab[i].addr + tab[i].size};
  return em;
}

static int thread_count(void) {
  const char *env = getenv("TOSAC_RUN_THREADS");
  if (env && atoi(env) > 0)
    return atoi(env);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 16 ? 16 : (int)n;
}

emu_module *emu_load_code(const uint8_t *elf, size_t size, const emu_target *t, char *err, size_t errsize) {
  emu_module *em = calloc(1, sizeof *em);
  em->target = *t;
  em->isa = calloc(1, sizeof *em->isa);
  if (!isa_load(em->isa, elf, size, t, err, errsize)) {
    emu_free(em);
    return NULL;
  }
  return em;
}

bool emu_run(emu_module *m, const emu_launch *l, char *err, size_t errsize) {
  if (m->isa)
    return isa_run(m->isa, l, thread_count(), err, errsize);
  for (int i = 0; i < m->info.nkernels; i++)
    if (!strcmp(m->info.kernels[i].name, l->kernel))
      return emu_execute(&m->info, &m->info.kernels[i], &m->target, l, thread_count(), err, errsize);
  snprintf(err, errsize, "kernel %s is not in the kernel IR for %s", l->kernel, m->target.processor);
  return false;
}

bool emu_has_kernel(const emu_module *m, const char *name) {
  if (m->isa)
    return isa_kernel_named(m->isa, name) != NULL;
  for (int i = 0; i < m->info.nkernels; i++)
    if (!strcmp(m->info.kernels[i].name, name))
      return true;
  return false;
}

void emu_free(emu_module *m) {
  if (!m)
    return;
  if (m->jit)
    LLVMOrcDisposeLLJIT(m->jit);
  emu_rtinfo_free(&m->info);
  if (m->isa)
    isa_free(m->isa);
  free(m->isa);
  free(m);
}

uint64_t emu_hidden_arg(const char *kind, const uint32_t grid[3], const uint32_t block[3]) {
  static const char *const dims = "xyz";
  for (int d = 0; d < 3; d++) {
    char name[40];
    snprintf(name, sizeof name, "hidden_block_count_%c", dims[d]);
    if (!strcmp(kind, name))
      return grid[d];
    snprintf(name, sizeof name, "hidden_group_size_%c", dims[d]);
    if (!strcmp(kind, name))
      return block[d];
  }
  return strcmp(kind, "hidden_grid_dims") ? 0 : 3; /* remainders, offsets, pointers: 0 */
}
