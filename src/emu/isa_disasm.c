/* isa_disasm.c: one call of LLVM's MC disassembler, guarded. LLVM 22's AMDGPU decoder writes its
 * "cannot read literal" note through a comment stream that the C API never sets (a null
 * pointer: a crash in Twine::print) whenever an operand asks for a literal dword that it cannot
 * read. Two ways lead there: a literal cut off by the end of the bytes given (so the bytes given
 * always reach past the longest instruction, zero-padded, and an instruction longer than the code
 * left is refused here), and a literal field in a 64-bit encoding on a target whose instructions
 * are at most 8 bytes (gfx908, gfx90a, gfx942: VOP3/VOP3P sources, MUBUF/MTBUF soffset), which
 * no bytes can satisfy, so such an encoding is refused before LLVM sees it. */
#include "isa_int.h"

#include <llvm-c/Disassembler.h>
#include <stdio.h>
#include <string.h>

enum {
  WINDOW = 32,        /* more than the longest AMDGPU instruction (20 bytes) */
  LITERAL_CODE = 255, /* a source operand field's value that means "a literal dword follows" */
};

/* The 6-bit format field of a 64-bit gfx9 encoding (bits 31:26 of its first dword). */
enum { FMT_VOP3 = 0x34, FMT_MUBUF = 0x38, FMT_MTBUF = 0x3a };

static uint32_t dword(const uint8_t *b, int i) {
  uint32_t w;
  memcpy(&w, b + 4 * i, 4);
  return w;
}

/* The field of a 64-bit encoding that names a literal the target cannot encode, or NULL. */
static const char *unreadable_literal(const target_info *ti, const uint8_t *b) {
  if (ti->literal_64bit)
    return NULL;
  uint32_t w0 = dword(b, 0), w1 = dword(b, 1);
  switch (w0 >> 26) {
  case FMT_VOP3: /* VOP3, VOP3P, MFMA: src0, src1, src2 are 9-bit fields of the second dword */
    for (int i = 0; i < 3; i++)
      if (((w1 >> (9 * i)) & 0x1ff) == LITERAL_CODE)
        return i == 0 ? "src0" : i == 1 ? "src1" : "src2";
    return NULL;
  case FMT_MUBUF:
  case FMT_MTBUF:
    return w1 >> 24 == LITERAL_CODE ? "soffset" : NULL;
  default:
    return NULL;
  }
}

size_t isa_disasm(void *dc, const isa_module *m, const isa_kernel *k, uint64_t off, char *text, size_t textsize,
                  char *err, size_t errsize) {
  uint8_t window[WINDOW] = {0};
  uint64_t left = k->code_size - off;
  memcpy(window, m->image + k->entry + off, left < WINDOW ? left : WINDOW);
  unsigned long long pc = (unsigned long long)(k->entry + off);
  const char *field = unreadable_literal(m->info, window);
  if (field) {
    snprintf(err, errsize,
             "kernel %s: instruction at 0x%llx asks for a literal constant in its %s field, which %s cannot encode",
             k->name, pc, field, m->info->name);
    return 0;
  }
  size_t len = LLVMDisasmInstruction(dc, window, WINDOW, k->entry + off, text, textsize);
  if (len == 0) {
    snprintf(err, errsize, "kernel %s: invalid instruction encoding at 0x%llx", k->name, pc);
  } else if (len > left) {
    snprintf(err, errsize, "kernel %s: the instruction at 0x%llx (%zu bytes) runs past the end of the kernel's code",
             k->name, pc, len);
    len = 0;
  }
  return len;
}
