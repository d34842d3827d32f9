/* isa_code.c: read an AMDGPU code object for the machine-code emulator: its loadable segments
 * (placed at their addresses in one image, so PC-relative constant loads work), and per kernel
 * the code symbol and the 64-byte kernel descriptor `<name>.kd` (docs: ISA.md §2). Every offset
 * is bounds-checked: the input may be hostile. */
#include "isa_int.h"

#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif
/* Largest image the emulator maps: code objects are kilobytes to a few megabytes. */
#define ISA_MAX_IMAGE (256u << 20)

__attribute__((format(printf, 3, 4))) static bool fail(char *err, size_t errsize, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errsize, fmt, ap);
  va_end(ap);
  return false;
}

static bool in_file(uint64_t off, uint64_t len, size_t size) { return off <= size && len <= size - off; }

static uint32_t rd32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

static bool map_segments(const uint8_t *d, size_t size, const Elf64_Ehdr *eh, isa_module *m, char *err,
                         size_t errsize) {
  if (eh->e_phentsize != sizeof(Elf64_Phdr) || !in_file(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr), size))
    return fail(err, errsize, "ELF program headers lie outside the file");
  uint64_t end = 0;
  for (unsigned i = 0; i < eh->e_phnum; i++) {
    Elf64_Phdr ph;
    memcpy(&ph, d + eh->e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type != PT_LOAD)
      continue;
    if (ph.p_memsz > ISA_MAX_IMAGE || ph.p_vaddr > ISA_MAX_IMAGE || ph.p_filesz > ph.p_memsz ||
        !in_file(ph.p_offset, ph.p_filesz, size))
      return fail(err, errsize, "ELF segment %u lies outside the file or is too large", i);
    if (ph.p_vaddr + ph.p_memsz > end)
      end = ph.p_vaddr + ph.p_memsz;
  }
  if (end == 0 || end > ISA_MAX_IMAGE)
    return fail(err, errsize, "the code object has no loadable segment");
  m->image_size = end;
  m->image = aligned_alloc(256, (end + 255) / 256 * 256);
  if (!m->image)
    return fail(err, errsize, "out of memory mapping the code object");
  memset(m->image, 0, (end + 255) / 256 * 256);
  for (unsigned i = 0; i < eh->e_phnum; i++) {
    Elf64_Phdr ph;
    memcpy(&ph, d + eh->e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_LOAD && ph.p_filesz)
      memcpy(m->image + ph.p_vaddr, d + ph.p_offset, ph.p_filesz);
  }
  return true;
}

/* The kernel descriptor's fields (AMDHSAKernelDescriptor.h offsets). */
static bool read_descriptor(isa_module *m, isa_kernel *k, uint64_t kd, char *err, size_t errsize) {
  if (kd % 64 || kd + 64 > m->image_size)
    return fail(err, errsize, "kernel %s: descriptor %s.kd lies outside the code object or is not 64-byte aligned",
                k->name, k->name);
  const uint8_t *p = m->image + kd;
  int64_t entry_off;
  memcpy(&entry_off, p + 16, 8);
  k->group_segment_size = rd32(p);
  k->private_segment_size = rd32(p + 4);
  k->kernarg_size = rd32(p + 8);
  k->rsrc3 = rd32(p + 44);
  k->rsrc1 = rd32(p + 48);
  k->rsrc2 = rd32(p + 52);
  k->code_props = (uint16_t)(p[56] | p[57] << 8);
  k->kernarg_preload = (uint16_t)(p[58] | p[59] << 8);
  k->entry = kd + (uint64_t)entry_off;
  if (k->entry % 256 || k->entry >= m->image_size)
    return fail(err, errsize, "kernel %s: entry point 0x%llx (descriptor offset %lld) is outside the code or not 256-byte aligned",
                k->name, (unsigned long long)k->entry, (long long)entry_off);
  bool wave32 = (k->code_props >> 10) & 1;
  if (wave32 && m->info->wave_size == 64)
    return fail(err, errsize, "kernel %s: the descriptor asks for wave32, which %s does not have", k->name,
                m->target.processor);
  k->wave_size = wave32 ? 32 : 64;
  /* VGPR granules (ISA.md §1.4): gfx9 unified files count 8, gfx908 and wave64 RDNA 4, wave32 8. */
  int gran = k->rsrc1 & 0x3f;
  bool unified = m->info->has_mfma && m->info->agpr_file == 0;
  int granule = unified || (m->info->wave_size == 32 && wave32) ? 8 : 4;
  k->nvgpr = granule * (gran + 1);
  if (unified) {
    k->accum_offset = ((k->rsrc3 & 0x3f) + 1) * 4;
    if (k->accum_offset > k->nvgpr)
      return fail(err, errsize, "kernel %s: accum_offset %d is beyond the %d VGPRs allocated", k->name,
                  k->accum_offset, k->nvgpr);
    k->nagpr = k->nvgpr - k->accum_offset;
  } else if (m->info->agpr_file) {
    k->accum_offset = 0;
    k->nagpr = k->nvgpr; /* gfx908: the granule covers max(VGPRs, AGPRs) */
  }
  int max_vgpr = m->info->has_mfma ? (unified ? 512 : 256) : 256;
  if (k->nvgpr > max_vgpr)
    return fail(err, errsize, "kernel %s: the descriptor allocates %d VGPRs, more than %s has (%d)", k->name, k->nvgpr,
                m->target.processor, max_vgpr);
  /* SGPR granules of 8 (ISA.md §1.4) on GCN/CDNA, whose wave64 is native; gfx10+ ignore the field.
   * 102 addressable + VCC, FLAT_SCRATCH and XNACK_MASK round up to 112. */
  int nsgpr = 8 * (((int)k->rsrc1 >> 6 & 15) + 1);
  if (m->info->wave_size == 64 && nsgpr > 112)
    return fail(err, errsize, "kernel %s: the descriptor allocates %d SGPRs, more than %s has (112)", k->name, nsgpr,
                m->target.processor);
  /* COMPUTE_TMPRING_SIZE.WAVESIZE addresses at most 8 MiB of scratch per wave (gfx9 to gfx11). */
  uint64_t wave_private = isa_private_limit(k) * (uint64_t)k->wave_size;
  if (wave_private > ISA_MAX_WAVE_PRIVATE)
    return fail(err, errsize,
                "kernel %s: the descriptor asks for %u private bytes per work-item, %llu per wave, more than the %u "
                "a wave's scratch can hold",
                k->name, k->private_segment_size, (unsigned long long)wave_private, (unsigned)ISA_MAX_WAVE_PRIVATE);
  if (k->group_segment_size > m->target.lds_limit)
    return fail(err, errsize, "kernel %s: the descriptor asks for %u bytes of LDS, more than %s has (%lld)", k->name,
                k->group_segment_size, m->target.processor, (long long)m->target.lds_limit);
  return true;
}

bool isa_code_read(const uint8_t *d, size_t size, isa_module *m, char *err, size_t errsize) {
  Elf64_Ehdr eh;
  if (size < sizeof eh || memcmp(d, ELFMAG, SELFMAG) || d[EI_CLASS] != ELFCLASS64 || d[EI_DATA] != ELFDATA2LSB)
    return fail(err, errsize, "not a 64-bit little-endian ELF code object (%zu bytes)", size);
  memcpy(&eh, d, sizeof eh);
  if (eh.e_machine != EM_AMDGPU)
    return fail(err, errsize, "ELF machine %u is not AMDGPU (224)", eh.e_machine);
  if ((eh.e_flags & 0xff) != m->info->elf_mach)
    return fail(err, errsize, "the code object is for EF_AMDGPU_MACH 0x%x, not %s (0x%x)", eh.e_flags & 0xff,
                m->target.processor, m->info->elf_mach);
  if (!map_segments(d, size, &eh, m, err, errsize))
    return false;
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
      !in_file(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), size))
    return fail(err, errsize, "ELF section headers lie outside the file");
  /* The dynamic symbol table names every kernel and its descriptor. */
  for (unsigned i = 0; i < eh.e_shnum; i++) {
    Elf64_Shdr sh, str;
    memcpy(&sh, d + eh.e_shoff + i * sizeof sh, sizeof sh);
    if (sh.sh_type != SHT_DYNSYM)
      continue;
    if (sh.sh_link >= eh.e_shnum || sh.sh_entsize != sizeof(Elf64_Sym) || !in_file(sh.sh_offset, sh.sh_size, size))
      return fail(err, errsize, "ELF dynamic symbol table is malformed");
    memcpy(&str, d + eh.e_shoff + sh.sh_link * sizeof str, sizeof str);
    if (!in_file(str.sh_offset, str.sh_size, size) || str.sh_size == 0 || d[str.sh_offset + str.sh_size - 1])
      return fail(err, errsize, "ELF dynamic string table is malformed");
    size_t nsym = sh.sh_size / sizeof(Elf64_Sym);
    m->kernels = calloc(nsym + 1, sizeof *m->kernels);
    for (size_t j = 0; j < nsym; j++) {
      Elf64_Sym sym;
      memcpy(&sym, d + sh.sh_offset + j * sizeof sym, sizeof sym);
      if (sym.st_name >= str.sh_size)
        return fail(err, errsize, "ELF symbol %zu has a name outside the string table", j);
      const char *name = (const char *)d + str.sh_offset + sym.st_name;
      size_t n = strlen(name);
      if (ELF64_ST_TYPE(sym.st_info) != STT_OBJECT || n < 4 || strcmp(name + n - 3, ".kd"))
        continue;
      isa_kernel *k = &m->kernels[m->nkernels++];
      k->name = strndup(name, n - 3);
      if (!read_descriptor(m, k, sym.st_value, err, errsize))
        return false;
    }
    /* The code symbol of each kernel gives the length of its code. */
    for (size_t j = 0; j < nsym; j++) {
      Elf64_Sym sym;
      memcpy(&sym, d + sh.sh_offset + j * sizeof sym, sizeof sym);
      const char *name = (const char *)d + str.sh_offset + sym.st_name;
      for (int i = 0; i < m->nkernels; i++)
        if (ELF64_ST_TYPE(sym.st_info) == STT_FUNC && !strcmp(name, m->kernels[i].name) &&
            sym.st_value == m->kernels[i].entry) {
          if (sym.st_size > m->image_size - sym.st_value)
            return fail(err, errsize, "kernel %s: its code runs past the end of the code object", name);
          m->kernels[i].code_size = sym.st_size;
        }
    }
    for (int i = 0; i < m->nkernels; i++)
      if (!m->kernels[i].code_size)
        return fail(err, errsize, "kernel %s: no code symbol with a size at its entry point 0x%llx",
                    m->kernels[i].name, (unsigned long long)m->kernels[i].entry);
    return true;
  }
  return fail(err, errsize, "the code object has no dynamic symbol table");
}
