/* note_merge.c: several relocatable AMDGPU objects of one target, one metadata note.
 *
 * Kernels of one target are compiled in several LLVM modules in parallel (pipeline.c). Each
 * object LLVM emits carries its own NT_AMDGPU_METADATA note listing its kernels, and lld would
 * concatenate them into several notes, while a code object has one note whose amdhsa.kernels
 * lists every kernel (AMDGPU.md §2.5; metadata.c and HIP runtimes read the first note only).
 * So before the link, the first object's note is replaced by a merged one (the amdhsa.kernels
 * arrays concatenated in object order, every other key copied from the first object) and the
 * other objects' note sections get SHF_EXCLUDE, which lld drops from a non-relocatable link. */
#include "codegen.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#define NT_AMDGPU_METADATA_TYPE 32
#define MP_MAX_DEPTH 64

static uint32_t be(const uint8_t *p, int n) {
  uint32_t v = 0;
  for (int i = 0; i < n; i++)
    v = v << 8 | p[i];
  return v;
}

/* Header size and element count of the msgpack array (or map: 2 per entry) at p; 0 if p is
 * not one. */
static size_t mp_container(const uint8_t *p, size_t n, bool map, uint64_t *count) {
  uint8_t b = p[0];
  uint8_t fix = map ? 0x80 : 0x90, w16 = map ? 0xde : 0xdc, w32 = map ? 0xdf : 0xdd;
  size_t hdr = (b & 0xf0) == fix ? 1 : b == w16 ? 3 : b == w32 ? 5 : 0;
  if (!hdr || hdr > n)
    return 0;
  *count = hdr == 1 ? (b & 15u) : be(p + 1, (int)hdr - 1);
  if (map)
    *count *= 2;
  return hdr;
}

/* Byte length of the msgpack object at p[0..n), 0 if malformed or truncated. */
static size_t mp_skip(const uint8_t *p, size_t n, int depth) {
  if (!n || depth > MP_MAX_DEPTH)
    return 0;
  uint8_t b = p[0];
  uint64_t count;
  size_t hdr = mp_container(p, n, false, &count);
  if (!hdr)
    hdr = mp_container(p, n, true, &count);
  if (hdr) {
    size_t at = hdr;
    for (uint64_t i = 0; i < count; i++) {
      size_t k = mp_skip(p + at, n - at, depth + 1);
      if (!k)
        return 0;
      at += k;
    }
    return at;
  }
  size_t len = 0; /* fixed size, or header + payload whose length is in the header */
  if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3)
    len = 1;
  else if ((b & 0xe0) == 0xa0)
    len = 1 + (b & 31u);
  else if (b >= 0xcc && b <= 0xd3) /* uint8..64, int8..64 */
    len = 1 + (1u << ((b - 0xcc) & 3));
  else if (b == 0xca || b == 0xcb)
    len = b == 0xca ? 5 : 9;
  else if (b >= 0xd4 && b <= 0xd8) /* fixext 1..16 */
    len = 2 + (1u << (b - 0xd4));
  else if (b == 0xc4 || b == 0xc5 || b == 0xc6 || b == 0xd9 || b == 0xda || b == 0xdb) {
    int w = (b == 0xc4 || b == 0xd9) ? 1 : (b == 0xc5 || b == 0xda) ? 2 : 4;
    if ((size_t)w + 1 > n)
      return 0;
    len = 1 + (size_t)w + be(p + 1, w);
  } else if (b >= 0xc7 && b <= 0xc9) { /* ext 8/16/32: length, type byte, payload */
    int w = b == 0xc7 ? 1 : b == 0xc8 ? 2 : 4;
    if ((size_t)w + 1 > n)
      return 0;
    len = 2 + (size_t)w + be(p + 1, w);
  }
  return len && len <= n ? len : 0;
}

/* One object's metadata note: where its section header and note descriptor are, and the
 * byte range of the amdhsa.kernels array's elements inside the descriptor. */
typedef struct obj_note {
  Elf64_Shdr *sh;
  size_t note_off, note_len;   /* the whole note record, inside the section */
  const uint8_t *desc;
  size_t desc_len;
  size_t kernels_at, kernels_len; /* value of amdhsa.kernels (array header included) */
  size_t elems_at;                /* first element */
  uint64_t nkernels;
} obj_note;

static bool find_kernels(obj_note *nt) {
  const uint8_t *d = nt->desc;
  uint64_t count;
  size_t at = mp_container(d, nt->desc_len, true, &count);
  if (!at)
    return false;
  static const char key[] = "amdhsa.kernels";
  for (uint64_t i = 0; i < count; i += 2) {
    size_t k = mp_skip(d + at, nt->desc_len - at, 0);
    if (!k)
      return false;
    size_t v = mp_skip(d + at + k, nt->desc_len - at - k, 0);
    if (!v)
      return false;
    bool is_kernels = k == sizeof key && d[at] == (0xa0 | (sizeof key - 1)) &&
                      memcmp(d + at + 1, key, sizeof key - 1) == 0;
    if (is_kernels) {
      nt->kernels_at = at + k;
      nt->kernels_len = v;
      size_t hdr = mp_container(d + at + k, v, false, &nt->nkernels);
      nt->elems_at = at + k + hdr;
      return hdr != 0;
    }
    at += k + v;
  }
  return false;
}

/* Locate the AMDGPU metadata note of a relocatable ELF64 little-endian object. */
static bool find_note(uint8_t *obj, size_t size, obj_note *nt) {
  if (size < sizeof(Elf64_Ehdr) || memcmp(obj, ELFMAG, SELFMAG) || obj[EI_CLASS] != ELFCLASS64 ||
      obj[EI_DATA] != ELFDATA2LSB)
    return false;
  Elf64_Ehdr eh;
  memcpy(&eh, obj, sizeof eh);
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
      (size - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum || eh.e_shoff % 8)
    return false;
  Elf64_Shdr *sh = (Elf64_Shdr *)(obj + eh.e_shoff);
  for (int i = 0; i < eh.e_shnum; i++) {
    if (sh[i].sh_type != SHT_NOTE || sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset)
      continue;
    const uint8_t *s = obj + sh[i].sh_offset;
    for (size_t at = 0; at + 12 <= sh[i].sh_size;) {
      uint32_t h[3];
      memcpy(h, s + at, sizeof h);
      size_t name_len = (h[0] + 3u) & ~3u, desc_len = (h[1] + 3u) & ~3u;
      if (name_len + desc_len > sh[i].sh_size - at - 12)
        break;
      if (h[2] == NT_AMDGPU_METADATA_TYPE && h[0] == 7 && !memcmp(s + at + 12, "AMDGPU", 7)) {
        *nt = (obj_note){.sh = &sh[i], .note_off = at, .note_len = 12 + name_len + desc_len,
                         .desc = s + at + 12 + name_len, .desc_len = h[1]};
        return find_kernels(nt);
      }
      at += 12 + name_len + desc_len;
    }
  }
  return false;
}

static size_t put_array_header(uint8_t *p, uint64_t n) {
  if (n < 16) {
    p[0] = (uint8_t)(0x90 | n);
    return 1;
  }
  int w = n < 65536 ? 2 : 4;
  p[0] = w == 2 ? 0xdc : 0xdd;
  for (int i = 0; i < w; i++)
    p[1 + i] = (uint8_t)(n >> (8 * (w - 1 - i)));
  return 1 + (size_t)w;
}

/* The first object's note section with its metadata note's kernel list replaced by all
 * objects' kernels; malloc'ed, *len set. */
static uint8_t *merged_section(const cg_object *objs, const obj_note *nt, int n, size_t *len) {
  const obj_note *f = &nt[0];
  size_t elems = 0;
  uint64_t total = 0;
  for (int i = 0; i < n; i++) {
    elems += nt[i].kernels_len - (nt[i].elems_at - nt[i].kernels_at);
    total += nt[i].nkernels;
  }
  size_t desc_len = f->desc_len - f->kernels_len + 5 + elems;
  size_t sec_size = f->sh->sh_size - f->note_len + 12 + 8 + desc_len + 3;
  uint8_t *s = calloc(1, sec_size), *p = s;
  const uint8_t *old = objs[0].data + f->sh->sh_offset;
  memcpy(p, old, f->note_off); /* notes before the metadata note */
  p += f->note_off;
  uint8_t *hdr = p;
  memcpy(p + 12, "AMDGPU\0", 8);
  uint8_t *d = p + 20, *q = d;
  memcpy(q, f->desc, f->kernels_at);
  q += f->kernels_at;
  q += put_array_header(q, total);
  for (int i = 0; i < n; i++) {
    size_t k = nt[i].kernels_len - (nt[i].elems_at - nt[i].kernels_at);
    memcpy(q, nt[i].desc + nt[i].elems_at, k);
    q += k;
  }
  size_t tail = f->desc_len - f->kernels_at - f->kernels_len;
  memcpy(q, f->desc + f->kernels_at + f->kernels_len, tail);
  q += tail;
  uint32_t h[3] = {7, (uint32_t)(q - d), NT_AMDGPU_METADATA_TYPE};
  memcpy(hdr, h, sizeof h);
  p = d + ((size_t)(q - d) + 3u) / 4u * 4u; /* calloc: the padding is zero */
  size_t rest = f->sh->sh_size - f->note_off - f->note_len;
  memcpy(p, old + f->note_off + f->note_len, rest);
  *len = (size_t)(p - s) + rest;
  return s;
}

bool cg_merge_metadata_notes(cg_object *objs, int n, char *err, size_t errsize) {
  if (n < 2)
    return true;
  obj_note *nt = calloc((size_t)n, sizeof *nt);
  bool ok = true;
  for (int i = 0; i < n && ok; i++)
    if (!(ok = find_note(objs[i].data, objs[i].size, &nt[i])))
      snprintf(err, errsize, "object %d of %d has no readable AMDGPU metadata note", i + 1, n);
  if (ok) {
    size_t len;
    uint8_t *sec = merged_section(objs, nt, n, &len);
    /* The new section goes at the end of the first object (8-aligned); its header points
     * there. Section headers live before the end, so only the pointer into them moves. */
    size_t sh_at = (size_t)((uint8_t *)nt[0].sh - objs[0].data);
    size_t at = (objs[0].size + 7u) & ~(size_t)7u;
    uint8_t *grown = realloc(objs[0].data, at + len);
    memset(grown + objs[0].size, 0, at - objs[0].size);
    memcpy(grown + at, sec, len);
    free(sec);
    objs[0].data = grown;
    objs[0].size = at + len;
    Elf64_Shdr *sh = (Elf64_Shdr *)(grown + sh_at);
    sh->sh_offset = at;
    sh->sh_size = len;
    for (int i = 1; i < n; i++)
      nt[i].sh->sh_flags |= SHF_EXCLUDE;
  }
  free(nt);
  return ok;
}
