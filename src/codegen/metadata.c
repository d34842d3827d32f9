/* metadata.c: read the AMDGPU metadata note (msgpack) of a linked code object into cg_result.
 * Kernarg layouts come from here only; codegen never computes them. */
#include "codegen.h"

#include <elf.h>
#include <msgpack.h>
#include <stdlib.h>
#include <string.h>

#define NT_AMDGPU_METADATA_TYPE 32

static bool str_eq(const msgpack_object *o, const char *s) {
  size_t n = strlen(s);
  return o->type == MSGPACK_OBJECT_STR && o->via.str.size == n && memcmp(o->via.str.ptr, s, n) == 0;
}

static const msgpack_object *map_get(const msgpack_object *m, const char *key) {
  if (m->type != MSGPACK_OBJECT_MAP)
    return NULL;
  for (uint32_t i = 0; i < m->via.map.size; i++)
    if (str_eq(&m->via.map.ptr[i].key, key))
      return &m->via.map.ptr[i].val;
  return NULL;
}

static int64_t map_int(const msgpack_object *m, const char *key, int64_t fallback) {
  const msgpack_object *v = map_get(m, key);
  if (!v)
    return fallback;
  if (v->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
    return (int64_t)v->via.u64;
  if (v->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
    return v->via.i64;
  return fallback;
}

static void map_str(const msgpack_object *m, const char *key, char *buf, size_t size) {
  const msgpack_object *v = map_get(m, key);
  buf[0] = 0;
  if (v && v->type == MSGPACK_OBJECT_STR) {
    size_t n = v->via.str.size < size - 1 ? v->via.str.size : size - 1;
    memcpy(buf, v->via.str.ptr, n);
    buf[n] = 0;
  }
}

/* Fill one kernel's info from its metadata map. Explicit global_buffer args are bound to the
 * kernel's buffers in order; their access was recorded by codegen (info->args pre-filled). */
static bool fill_kernel(const msgpack_object *km, cg_kernel_info *k, char *err, size_t errsize) {
  k->kernarg_size = map_int(km, ".kernarg_segment_size", 0);
  k->kernarg_align = map_int(km, ".kernarg_segment_align", 0);
  k->lds_bytes = map_int(km, ".group_segment_fixed_size", 0);
  k->private_bytes = map_int(km, ".private_segment_fixed_size", 0);
  k->sgpr = (int)map_int(km, ".sgpr_count", 0);
  k->vgpr = (int)map_int(km, ".vgpr_count", 0);
  k->agpr = (int)map_int(km, ".agpr_count", 0);
  k->sgpr_spill = (int)map_int(km, ".sgpr_spill_count", 0);
  k->vgpr_spill = (int)map_int(km, ".vgpr_spill_count", 0);
  k->wave_size = (int)map_int(km, ".wavefront_size", 0);
  k->max_flat_wg = (int)map_int(km, ".max_flat_workgroup_size", 0);
  map_str(km, ".symbol", k->symbol, sizeof k->symbol);

  /* codegen left the declared buffers (buffer id + access) in args[0..nargs); replace the list
   * with every argument of the note, keeping the binding for explicit buffers in order. */
  cg_arg *declared = k->args;
  int ndeclared = k->nargs;
  const msgpack_object *args = map_get(km, ".args");
  int n = args && args->type == MSGPACK_OBJECT_ARRAY ? (int)args->via.array.size : 0;
  k->args = calloc(n ? (size_t)n : 1, sizeof(cg_arg));
  k->nargs = n;
  int next_buffer = 0;
  for (int i = 0; i < n; i++) {
    const msgpack_object *am = &args->via.array.ptr[i];
    cg_arg *a = &k->args[i];
    map_str(am, ".name", a->name, sizeof a->name);
    a->offset = map_int(am, ".offset", 0);
    a->size = map_int(am, ".size", 0);
    map_str(am, ".value_kind", a->value_kind, sizeof a->value_kind);
    map_str(am, ".address_space", a->address_space, sizeof a->address_space);
    a->buffer = -1;
    if (strcmp(a->value_kind, "global_buffer") == 0) {
      if (next_buffer >= ndeclared) {
        snprintf(err, errsize, "kernel '%s': metadata lists more buffers than were declared",
                 k->name);
        free(declared);
        return false;
      }
      a->buffer = declared[next_buffer].buffer;
      memcpy(a->access, declared[next_buffer].access, sizeof a->access);
      if (!a->name[0])
        memcpy(a->name, declared[next_buffer].name, sizeof a->name);
      next_buffer++;
    }
  }
  if (next_buffer != ndeclared) {
    snprintf(err, errsize, "kernel '%s': metadata lists %d buffers, codegen declared %d", k->name,
             next_buffer, ndeclared);
    free(declared);
    return false;
  }
  free(declared);
  return true;
}

/* msgpack-c allocates whatever an array or map header claims before reading the elements, so
 * a hostile note could ask for gigabytes. Walk the encoding first: every element takes at least
 * one byte, so no count may exceed the bytes left, and nesting is bounded. */
static bool msgpack_sane(const uint8_t *p, size_t size) {
  size_t pos = 0, pending = 1;
  unsigned depth_items = 0;
  while (pending > 0) {
    if (pos >= size || ++depth_items > (1u << 22))
      return false;
    uint8_t b = p[pos++];
    size_t len = 0, count = 0, need;
    if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3)
      need = 0;
    else if (b >= 0x80 && b <= 0x8f)
      need = 0, count = 2u * (b & 0x0f);
    else if (b >= 0x90 && b <= 0x9f)
      need = 0, count = b & 0x0f;
    else if (b >= 0xa0 && b <= 0xbf)
      need = 0, len = b & 0x1f;
    else {
      static const struct { uint8_t tag, hdr, fixed, lenbytes, items; } forms[] = {
          {0xc4, 1, 0, 1, 0}, {0xc5, 2, 0, 2, 0}, {0xc6, 4, 0, 4, 0}, {0xc7, 2, 0, 1, 0},
          {0xc8, 3, 0, 2, 0}, {0xc9, 5, 0, 4, 0}, {0xca, 0, 4, 0, 0}, {0xcb, 0, 8, 0, 0},
          {0xcc, 0, 1, 0, 0}, {0xcd, 0, 2, 0, 0}, {0xce, 0, 4, 0, 0}, {0xcf, 0, 8, 0, 0},
          {0xd0, 0, 1, 0, 0}, {0xd1, 0, 2, 0, 0}, {0xd2, 0, 4, 0, 0}, {0xd3, 0, 8, 0, 0},
          {0xd4, 0, 2, 0, 0}, {0xd5, 0, 3, 0, 0}, {0xd6, 0, 5, 0, 0}, {0xd7, 0, 9, 0, 0},
          {0xd8, 0, 17, 0, 0}, {0xd9, 1, 0, 1, 0}, {0xda, 2, 0, 2, 0}, {0xdb, 4, 0, 4, 0},
          {0xdc, 2, 0, 2, 1}, {0xdd, 4, 0, 4, 1}, {0xde, 2, 0, 2, 2}, {0xdf, 4, 0, 4, 2}};
      int f = -1;
      for (int i = 0; i < (int)(sizeof forms / sizeof forms[0]); i++)
        if (forms[i].tag == b)
          f = i;
      if (f < 0)
        return false;
      need = forms[f].fixed;
      if (forms[f].lenbytes) {
        if (size - pos < forms[f].hdr)
          return false;
        size_t n = 0;
        for (int i = 0; i < forms[f].lenbytes; i++)
          n = n << 8 | p[pos + (size_t)i];
        pos += forms[f].hdr;
        if (forms[f].items)
          count = n * forms[f].items;
        else
          len = n; /* for ext forms, hdr already covers the type byte */
      }
    }
    if (size - pos < need + len || count > size - pos)
      return false;
    pos += need + len;
    pending = pending - 1 + count;
  }
  return true;
}

static bool parse_note(const uint8_t *desc, size_t size, cg_result *r, char *err, size_t errsize) {
  if (!msgpack_sane(desc, size)) {
    snprintf(err, errsize, "malformed AMDGPU metadata note (msgpack)");
    return false;
  }
  msgpack_unpacked up;
  msgpack_unpacked_init(&up);
  size_t off = 0;
  bool ok = false;
  if (msgpack_unpack_next(&up, (const char *)desc, size, &off) != MSGPACK_UNPACK_SUCCESS) {
    snprintf(err, errsize, "malformed AMDGPU metadata note (msgpack)");
    goto done;
  }
  const msgpack_object *kernels = map_get(&up.data, "amdhsa.kernels");
  if (!kernels || kernels->type != MSGPACK_OBJECT_ARRAY) {
    snprintf(err, errsize, "AMDGPU metadata note has no amdhsa.kernels");
    goto done;
  }
  for (int i = 0; i < r->nkernels; i++) {
    cg_kernel_info *k = &r->kernels[i];
    const msgpack_object *km = NULL;
    for (uint32_t j = 0; j < kernels->via.array.size && !km; j++) {
      const msgpack_object *name = map_get(&kernels->via.array.ptr[j], ".name");
      if (name && str_eq(name, k->name))
        km = &kernels->via.array.ptr[j];
    }
    if (!km) {
      snprintf(err, errsize, "kernel '%s' missing from the AMDGPU metadata note", k->name);
      goto done;
    }
    if (!fill_kernel(km, k, err, errsize))
      goto done;
  }
  ok = true;
done:
  msgpack_unpacked_destroy(&up);
  return ok;
}

bool cg_read_metadata(const uint8_t *elf, size_t size, cg_result *r, char *err, size_t errsize) {
  if (size < sizeof(Elf64_Ehdr) || memcmp(elf, ELFMAG, SELFMAG) != 0 ||
      elf[EI_CLASS] != ELFCLASS64) {
    snprintf(err, errsize, "linked code object is not a 64-bit ELF file");
    return false;
  }
  Elf64_Ehdr eh;
  memcpy(&eh, elf, sizeof eh);
  r->e_flags = eh.e_flags;
  r->abi_version = elf[EI_ABIVERSION];
  if (eh.e_phoff == 0 || eh.e_phoff > size ||
      (size - eh.e_phoff) / sizeof(Elf64_Phdr) < eh.e_phnum) {
    snprintf(err, errsize, "linked code object has no program headers");
    return false;
  }
  for (int i = 0; i < eh.e_phnum; i++) {
    Elf64_Phdr ph;
    memcpy(&ph, elf + eh.e_phoff + (size_t)i * sizeof ph, sizeof ph);
    if (ph.p_type != PT_NOTE || ph.p_offset > size || ph.p_filesz > size - ph.p_offset)
      continue;
    const uint8_t *p = elf + ph.p_offset, *end = p + ph.p_filesz;
    while ((size_t)(end - p) >= sizeof(Elf64_Nhdr)) {
      Elf64_Nhdr nh;
      memcpy(&nh, p, sizeof nh);
      size_t name_sz = (nh.n_namesz + 3u) & ~3u, desc_sz = (nh.n_descsz + 3u) & ~3u;
      const uint8_t *name = p + sizeof nh, *desc = name + name_sz;
      if ((size_t)(end - name) < name_sz || (size_t)(end - desc) < nh.n_descsz)
        break;
      if (nh.n_type == NT_AMDGPU_METADATA_TYPE && nh.n_namesz == 7 && memcmp(name, "AMDGPU", 7) == 0)
        return parse_note(desc, nh.n_descsz, r, err, errsize);
      p = desc + ((size_t)(end - desc) < desc_sz ? (size_t)(end - desc) : desc_sz);
    }
  }
  snprintf(err, errsize, "linked code object has no AMDGPU metadata note");
  return false;
}
