/* fuzz_isa.c: libFuzzer target for the machine-code emulator (src/emu/isa_*.c): a mutated code
 * object is loaded for the target its ELF header names (reader, descriptor checks, decoder) and
 * each of its first kernels runs one small launch (one or two waves, one work-group) with a step
 * limit, every kernel argument pointing into one 64 KiB buffer. Errors are expected; crashes,
 * hangs and sanitizer reports are not. Seeds: tests/fuzz/seeds/isa/ (tosac's code objects). */
#include "emu/emu.h"
#include "fuzz.h"

#include <elf.h>

enum { BUF_BYTES = 64 << 10, MAX_KERNELS = 2, MAX_STEPS = 20000 };

static const target_info *target_of(const uint8_t *d, size_t size) {
  Elf64_Ehdr eh;
  if (size < sizeof eh)
    return NULL;
  memcpy(&eh, d, sizeof eh);
  for (int i = 0; i < target_count; i++)
    if (target_table[i].elf_mach == (eh.e_flags & 0xff))
      return &target_table[i];
  return NULL;
}

/* Kernel names from the dynamic symbol table: every `<name>.kd`, found the way the emulator's
 * reader finds them but without trusting anything. */
static int kernel_names(const uint8_t *d, size_t size, char names[MAX_KERNELS][64]) {
  Elf64_Ehdr eh;
  memcpy(&eh, d, sizeof eh);
  int n = 0;
  for (unsigned i = 0; i < eh.e_shnum && eh.e_shoff < size; i++) {
    Elf64_Shdr sh, str;
    if (eh.e_shoff + (i + 1) * (uint64_t)sizeof sh > size)
      break;
    memcpy(&sh, d + eh.e_shoff + i * sizeof sh, sizeof sh);
    if (sh.sh_type != SHT_DYNSYM || sh.sh_link >= eh.e_shnum ||
        eh.e_shoff + (sh.sh_link + 1) * (uint64_t)sizeof str > size)
      continue;
    memcpy(&str, d + eh.e_shoff + sh.sh_link * sizeof str, sizeof str);
    for (uint64_t j = 0; j < sh.sh_size / sizeof(Elf64_Sym) && n < MAX_KERNELS; j++) {
      Elf64_Sym sym;
      uint64_t at = sh.sh_offset + j * sizeof sym;
      if (at > size || size - at < sizeof sym)
        break;
      memcpy(&sym, d + at, sizeof sym);
      if (sym.st_name >= str.sh_size || str.sh_offset > size || sym.st_name >= size - str.sh_offset)
        continue;
      const char *name = (const char *)d + str.sh_offset + sym.st_name;
      size_t len = strnlen(name, size - str.sh_offset - sym.st_name);
      if (len > 3 && len < 64 && !strncmp(name + len - 3, ".kd", 3)) {
        memcpy(names[n], name, len - 3);
        names[n++][len - 3] = 0;
      }
    }
  }
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const target_info *ti = target_of(data, size);
  if (!ti)
    return 0;
  uint8_t *d = malloc(size); /* the reader may assume the alignment malloc gives */
  memcpy(d, data, size);
  emu_target t = {.wave_size = ti->wave_size, .lds_limit = ti->lds_bytes};
  snprintf(t.processor, sizeof t.processor, "%s", ti->name);
  char err[1024];
  emu_module *m = emu_load_code(d, size, &t, err, sizeof err);
  if (m) {
    char names[MAX_KERNELS][64];
    int n = kernel_names(d, size, names);
    uint8_t *buf = aligned_alloc(256, BUF_BYTES);
    memset(buf, 0, BUF_BYTES);
    uint8_t kernarg[512];
    uint64_t addr = (uint64_t)(uintptr_t)buf;
    for (size_t i = 0; i + 8 <= sizeof kernarg; i += 8)
      memcpy(kernarg + i, &addr, 8);
    emu_buffer b = {.name = "buffer", .base = buf, .size = BUF_BYTES};
    for (int i = 0; i < n; i++) {
      uint32_t block = (uint32_t)(ti->wave_size * 2);
      emu_launch l = {.kernel = names[i], .block = {block, 1, 1}, .grid = {1, 1, 1}, .kernarg = kernarg,
                      .kernarg_size = sizeof kernarg, .buffers = &b, .nbuffers = 1, .max_steps = MAX_STEPS};
      emu_run(m, &l, err, sizeof err);
    }
    free(buf);
    emu_free(m);
  }
  free(d);
  return 0;
}
