/* codeobj.h: tosac-bundle's reader for AMDGPU code objects (ELF header, dynamic symbols, kernel
 * metadata), bounds-checked for hostile input. */
#ifndef TOSAC_BUNDLE_CODEOBJ_H
#define TOSAC_BUNDLE_CODEOBJ_H

#include "codegen/codegen.h"

typedef struct tb_elf {
  unsigned e_flags;
  unsigned mach;   /* EF_AMDGPU_MACH: e_flags & 0xff */
  int abi_version; /* EI_ABIVERSION: 2 COV4, 3 COV5, 4 COV6 */
} tb_elf;

/* Names of the dynamic symbols; they point into the code object's bytes. */
typedef struct tb_symbols {
  const char **names;
  int count;
} tb_symbols;

/* An AMDGPU HSA shared object (ET_DYN, EM_AMDGPU, OS/ABI 64), else false + message. */
bool tb_elf_header(const uint8_t *d, size_t size, tb_elf *e, char *err, size_t errsize);
bool tb_elf_dynsyms(const uint8_t *d, size_t size, tb_symbols *out, char *err, size_t errsize);
bool tb_has_symbol(const tb_symbols *s, const char *name);
void tb_symbols_free(tb_symbols *s);
/* One kernel's metadata (resources, every argument) read with cg_read_metadata. */
bool tb_kernel_meta(const uint8_t *elf, size_t size, const char *name, cg_kernel_info *out,
                    char *err, size_t errsize);
void tb_kernel_meta_free(cg_kernel_info *k);

#endif
