/* dedup.c: kernels with identical specs share one piece of code (ResNet's repeated blocks).
 * Weights never enter a spec: they are buffers, so only shapes, types, ops and attributes do. */
#include "partition.h"

#include <stdlib.h>
#include <string.h>

static uint64_t fnv1a(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

static void put_type(FILE *f, const tensor_type *t) {
  char buf[160];
  fputs(tensor_type_str(t, buf, sizeof buf), f);
}

static void put_attr(FILE *f, const attr *a) {
  fprintf(f, " %s:%d", a->name, (int)a->kind);
  switch (a->kind) {
  case ATTR_INT:
  case ATTR_BOOL: fprintf(f, "=%lld/%d", (long long)a->i, (int)a->type_elem); break;
  case ATTR_FLOAT: fprintf(f, "=%a/%d", a->f, (int)a->type_elem); break;
  case ATTR_INTS:
    for (int i = 0; i < a->n; i++)
      fprintf(f, ",%lld", (long long)a->ints[i]);
    break;
  case ATTR_FLOATS:
    for (int i = 0; i < a->n; i++)
      fprintf(f, ",%a", a->floats[i]);
    break;
  case ATTR_STR: fprintf(f, "=%s", a->s ? a->s : ""); break;
  case ATTR_TYPE: fprintf(f, "=%d", (int)a->type_elem); break;
  case ATTR_DENSE:
    if (a->dense) {
      put_type(f, &a->dense->type);
      fprintf(f, "#%d#%zu#%016llx", a->dense->splat, a->dense->nbytes,
              (unsigned long long)fnv1a(0xcbf29ce484222325ull, a->dense->bytes, a->dense->nbytes));
    }
    break;
  }
}

/* Where an operand comes from, independent of buffer ids: an earlier op of the kernel (the
 * first that produces it), else the kernel's n-th input (the first). A pointer-keyed open
 * addressing table answers this in constant time, so a kernel of thousands of fused ops costs
 * linear time. */
typedef struct origin_map {
  const value **keys;
  int *codes; /* op index, or -(input index + 1) */
  int *results; /* result index of an op origin */
  size_t mask;
} origin_map;

static size_t ptr_slot(const origin_map *m, const value *v) {
  uint64_t h = (uint64_t)(uintptr_t)v * 0x9e3779b97f4a7c15ull;
  size_t i = (size_t)(h >> 17) & m->mask;
  while (m->keys[i] && m->keys[i] != v)
    i = (i + 1) & m->mask;
  return i;
}

static void origin_put(origin_map *m, const value *v, int code, int result) {
  size_t i = ptr_slot(m, v);
  if (!m->keys[i]) /* the first origin wins */
    m->keys[i] = v, m->codes[i] = code, m->results[i] = result;
}

static void origin_build(origin_map *m, const part_kernel *k) {
  size_t n = (size_t)k->nin + 1;
  for (int i = 0; i < k->nops; i++)
    n += (size_t)k->ops[i]->nresults;
  size_t cap = 16;
  while (cap < 2 * n)
    cap *= 2;
  m->keys = calloc(cap, sizeof *m->keys);
  m->codes = calloc(cap, sizeof *m->codes);
  m->results = calloc(cap, sizeof *m->results);
  m->mask = cap - 1;
  for (int i = 0; i < k->nops; i++)
    for (int r = 0; r < k->ops[i]->nresults; r++)
      origin_put(m, k->ops[i]->results[r], i, r);
  for (int i = 0; i < k->nin; i++)
    if (k->in_vals && k->in_vals[i])
      origin_put(m, k->in_vals[i], -(i + 1), 0);
}

static void put_operand(FILE *f, const origin_map *m, const value *v);

/* A value the kernel reads through ops outside it (a concat view's concatenation, the views
 * above it: views.c): those ops, down to the kernel's inputs. */
static void put_outside(FILE *f, const origin_map *m, const value *v, int depth) {
  const op *o = v->def;
  if (!o || depth > 8) {
    fprintf(f, " ?");
    return;
  }
  fprintf(f, " (%s", op_table[o->kind].name);
  for (int j = 0; j < o->noperands; j++) {
    size_t i = ptr_slot(m, o->operands[j]);
    if (m->keys[i])
      put_operand(f, m, o->operands[j]);
    else
      put_outside(f, m, o->operands[j], depth + 1);
  }
  fputs(" ->", f);
  put_type(f, v->type);
  for (int j = 0; j < o->nattrs; j++)
    put_attr(f, &op_attrs(o)[j]);
  fputc(')', f);
}

static void put_operand(FILE *f, const origin_map *m, const value *v) {
  size_t i = ptr_slot(m, v);
  if (!m->keys[i])
    put_outside(f, m, v, 0);
  else if (m->codes[i] >= 0)
    fprintf(f, " o%d.%d", m->codes[i], m->results[i]);
  else
    fprintf(f, " i%d", -m->codes[i] - 1);
}

/* The spec as text: everything codegen reads, nothing that only names buffers. */
static char *spec_of(const part_kernel *k) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  origin_map m;
  origin_build(&m, k);
  fprintf(
      f,
      "family %d role %d split %d phase %d alias %d ngemm %d dual %d causal %lld iter ",
      (int)k->family, (int)k->role, k->split_count, k->phase,
      (int)k->args_alias, k->ngemm, (int)k->dual_b,
      k->causal ? (long long)k->causal_offset : -1ll);
  put_type(f, &k->iter);
  if (k->slot.v)
    fprintf(f, " slot %lld %lld %lld", (long long)k->slot.block, (long long)k->slot.dst_block,
            (long long)k->slot.start);
  for (int i = 0; i < k->nin; i++) {
    fputs("\nin ", f);
    if (k->in_vals && k->in_vals[i]) {
      put_type(f, k->in_vals[i]->type);
      fprintf(f, " at %lld", (long long)part_input_offset(k, k->in_vals[i])); /* slice views */
    }
  }
  for (int i = 0; i < k->nops; i++) {
    const op *o = k->ops[i];
    fprintf(f, "\nop %s%s", op_table[o->kind].name, o == k->anchor ? " anchor" : "");
    for (int j = 0; j < o->noperands; j++)
      put_operand(f, &m, o->operands[j]);
    for (int r = 0; r < o->nresults; r++) {
      fputs(" -> ", f);
      put_type(f, o->results[r]->type);
    }
    for (int j = 0; j < o->nattrs; j++)
      put_attr(f, &op_attrs(o)[j]);
  }
  for (int i = 0; i < k->nout; i++) {
    fputs("\nout", f);
    if (k->out_vals && k->out_vals[i])
      put_operand(f, &m, k->out_vals[i]);
  }
  fclose(f);
  free(m.keys);
  free(m.codes);
  free(m.results);
  return text;
}

/* Specs are matched through a hash table keyed by their text (FNV-1a), so deduplication is
 * linear in the total spec size rather than quadratic in the kernel count. */
void part_dedup(partition_plan *p) {
  char **specs = calloc((size_t)p->nkernels + 1, sizeof(char *));
  size_t cap = 16;
  while (cap < 2 * (size_t)p->nkernels)
    cap *= 2;
  int *table = malloc(sizeof(int) * cap); /* kernel index + 1 of a distinct spec, 0 empty */
  memset(table, 0, sizeof(int) * cap);
  p->ndistinct = 0;
  for (int i = 0; i < p->nkernels; i++) {
    part_kernel *k = &p->kernels[i];
    specs[i] = spec_of(k);
    k->reuses = 0;
    size_t h = (size_t)fnv1a(0xcbf29ce484222325ull, specs[i], strlen(specs[i])) & (cap - 1);
    while (table[h] && strcmp(specs[table[h] - 1], specs[i]) != 0)
      h = (h + 1) & (cap - 1);
    if (table[h]) {
      k->reuses = table[h];
      memcpy(k->name, p->kernels[k->reuses - 1].name, sizeof k->name);
      free(specs[i]); /* only distinct specs are compared again: a repeat's text goes at once */
      specs[i] = NULL;
    } else {
      table[h] = i + 1;
      p->ndistinct++;
    }
  }
  for (int i = 0; i < p->nkernels; i++)
    free(specs[i]);
  free(specs);
  free(table);
}
