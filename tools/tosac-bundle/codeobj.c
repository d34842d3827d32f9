/* codeobj.c: read what tosac-bundle needs from an AMDGPU code object that may be hostile: the
 * ELF header, the dynamic symbol names, and each kernel's metadata (via cg_read_metadata). */
#include "codeobj.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif
#define ELFOSABI_AMDGPU_HSA 64
/* Most global_buffer arguments tb_kernel_meta accepts in one kernel. */
#define TB_MAX_BUFFERS 4096

__attribute__((format(printf, 3, 4))) static bool fail(char *err, size_t errsize,
                                                       const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errsize, fmt, ap);
  va_end(ap);
  return false;
}

/* [off, off + len) inside a file of `size` bytes, without overflow. */
static bool in_file(uint64_t off, uint64_t len, size_t size) {
  return off <= size && len <= size - off;
}

bool tb_elf_header(const uint8_t *d, size_t size, tb_elf *e, char *err, size_t errsize) {
  memset(e, 0, sizeof *e);
  if (size < sizeof(Elf64_Ehdr) || memcmp(d, ELFMAG, SELFMAG) != 0)
    return fail(err, errsize, "not an ELF file (%zu bytes)", size);
  if (d[EI_CLASS] != ELFCLASS64 || d[EI_DATA] != ELFDATA2LSB)
    return fail(err, errsize, "not a 64-bit little-endian ELF file");
  Elf64_Ehdr eh;
  memcpy(&eh, d, sizeof eh);
  if (eh.e_machine != EM_AMDGPU)
    return fail(err, errsize, "ELF machine %u is not AMDGPU (224)", eh.e_machine);
  if (d[EI_OSABI] != ELFOSABI_AMDGPU_HSA)
    return fail(err, errsize, "ELF OS/ABI %u is not AMDGPU HSA (64)", d[EI_OSABI]);
  if (eh.e_type != ET_DYN)
    return fail(err, errsize, "ELF type %u is not a linked shared object (ET_DYN)", eh.e_type);
  e->e_flags = eh.e_flags;
  e->abi_version = d[EI_ABIVERSION];
  e->mach = eh.e_flags & 0xff;
  return true;
}

bool tb_elf_dynsyms(const uint8_t *d, size_t size, tb_symbols *out, char *err, size_t errsize) {
  memset(out, 0, sizeof *out);
  Elf64_Ehdr eh;
  if (size < sizeof eh)
    return fail(err, errsize, "ELF header truncated");
  memcpy(&eh, d, sizeof eh);
  if (eh.e_shentsize != sizeof(Elf64_Shdr) ||
      !in_file(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), size) || eh.e_shnum == 0)
    return fail(err, errsize, "ELF section headers lie outside the file");
  for (unsigned i = 0; i < eh.e_shnum; i++) {
    Elf64_Shdr sh, str;
    memcpy(&sh, d + eh.e_shoff + (size_t)i * sizeof sh, sizeof sh);
    if (sh.sh_type != SHT_DYNSYM)
      continue;
    if (sh.sh_link >= eh.e_shnum)
      return fail(err, errsize, ".dynsym names string table %u of %u", sh.sh_link, eh.e_shnum);
    memcpy(&str, d + eh.e_shoff + (size_t)sh.sh_link * sizeof str, sizeof str);
    if (sh.sh_entsize != sizeof(Elf64_Sym) || !in_file(sh.sh_offset, sh.sh_size, size) ||
        !in_file(str.sh_offset, str.sh_size, size))
      return fail(err, errsize, ".dynsym or its string table lies outside the file");
    size_t n = (size_t)(sh.sh_size / sizeof(Elf64_Sym));
    out->names = calloc(n ? n : 1, sizeof(char *));
    if (!out->names)
      return fail(err, errsize, "out of memory for %zu symbols", n);
    const char *strtab = (const char *)d + str.sh_offset;
    for (size_t k = 0; k < n; k++) {
      Elf64_Sym sym;
      memcpy(&sym, d + sh.sh_offset + k * sizeof sym, sizeof sym);
      if (sym.st_name == 0)
        continue;
      /* The name must end inside the string table, or it would run into other bytes. */
      if (sym.st_name >= str.sh_size ||
          !memchr(strtab + sym.st_name, 0, (size_t)(str.sh_size - sym.st_name))) {
        free(out->names);
        out->names = NULL;
        return fail(err, errsize, "dynamic symbol %zu has a name outside the string table", k);
      }
      out->names[out->count++] = strtab + sym.st_name;
    }
    return true;
  }
  return fail(err, errsize, "code object has no dynamic symbol table (.dynsym)");
}

bool tb_has_symbol(const tb_symbols *s, const char *name) {
  for (int i = 0; i < s->count; i++)
    if (strcmp(s->names[i], name) == 0)
      return true;
  return false;
}

void tb_symbols_free(tb_symbols *s) {
  free(s->names);
  memset(s, 0, sizeof *s);
}

/* cg_read_metadata binds a kernel's global_buffer arguments to the buffers codegen declared, and
 * insists the counts agree. A reader of a finished bundle does not know the count, so the first
 * call declares the maximum; the note's own count comes back in the error message ("metadata
 * lists N buffers, codegen declared M"), and a second call with exactly N succeeds. */
bool tb_kernel_meta(const uint8_t *elf, size_t size, const char *name, cg_kernel_info *out,
                    char *err, size_t errsize) {
  memset(out, 0, sizeof *out);
  int declare = TB_MAX_BUFFERS;
  for (int attempt = 0; attempt < 2; attempt++) {
    cg_kernel_info k = {0};
    snprintf(k.name, sizeof k.name, "%s", name);
    k.nargs = declare;
    k.args = calloc(declare ? (size_t)declare : 1, sizeof(cg_arg));
    if (!k.args)
      return fail(err, errsize, "out of memory");
    for (int i = 0; i < declare; i++)
      k.args[i].buffer = -1;
    cg_result r = {.kernels = &k, .nkernels = 1};
    char e[512] = "";
    bool ok = cg_read_metadata(elf, size, &r, e, sizeof e);
    if (ok) {
      *out = k;
      return true;
    }
    /* Whichever array k.args holds now is live: ours when the failure came before the kernel's
     * entry was read, else the one cg_read_metadata allocated after freeing ours. */
    free(k.args);
    const char *p = strstr(e, "metadata lists ");
    int listed = -1;
    if (attempt > 0 || !p || sscanf(p, "metadata lists %d buffers", &listed) != 1 || listed < 0 ||
        listed > TB_MAX_BUFFERS)
      return fail(err, errsize, "%s", e[0] ? e : "unreadable AMDGPU metadata");
    declare = listed;
  }
  return fail(err, errsize, "unreadable AMDGPU metadata");
}

void tb_kernel_meta_free(cg_kernel_info *k) {
  free(k->args);
  k->args = NULL;
}
