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

/* Where an operand comes from, independent of buffer ids: an earlier op of the kernel, or the
 * kernel's n-th input. */
static void put_operand(FILE *f, const part_kernel *k, const value *v) {
  for (int i = 0; i < k->nops; i++)
    for (int r = 0; r < k->ops[i]->nresults; r++)
      if (k->ops[i]->results[r] == v) {
        fprintf(f, " o%d.%d", i, r);
        return;
      }
  for (int i = 0; i < k->nin; i++)
    if (k->in_vals && k->in_vals[i] == v) {
      fprintf(f, " i%d", i);
      return;
    }
  fprintf(f, " ?");
}

/* The spec as text: everything codegen reads, nothing that only names buffers. */
static char *spec_of(const part_kernel *k) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  fprintf(f, "family %d role %d split %d iter ", (int)k->family, (int)k->role, k->split_count);
  put_type(f, &k->iter);
  for (int i = 0; i < k->nin; i++) {
    fputs("\nin ", f);
    if (k->in_vals && k->in_vals[i])
      put_type(f, &k->in_vals[i]->type);
  }
  for (int i = 0; i < k->nops; i++) {
    const op *o = k->ops[i];
    fprintf(f, "\nop %s%s", op_table[o->kind].name, o == k->anchor ? " anchor" : "");
    for (int j = 0; j < o->noperands; j++)
      put_operand(f, k, o->operands[j]);
    for (int r = 0; r < o->nresults; r++) {
      fputs(" -> ", f);
      put_type(f, &o->results[r]->type);
    }
    for (int j = 0; j < o->nattrs; j++)
      put_attr(f, &o->attrs[j]);
  }
  for (int i = 0; i < k->nout; i++) {
    fputs("\nout", f);
    if (k->out_vals && k->out_vals[i])
      put_operand(f, k, k->out_vals[i]);
  }
  fclose(f);
  return text;
}

void part_dedup(partition_plan *p) {
  char **specs = calloc((size_t)p->nkernels + 1, sizeof(char *));
  p->ndistinct = 0;
  for (int i = 0; i < p->nkernels; i++) {
    part_kernel *k = &p->kernels[i];
    specs[i] = spec_of(k);
    k->reuses = 0;
    for (int j = 0; j < i && !k->reuses; j++)
      if (!p->kernels[j].reuses && strcmp(specs[i], specs[j]) == 0)
        k->reuses = j + 1;
    if (k->reuses)
      memcpy(k->name, p->kernels[k->reuses - 1].name, sizeof k->name);
    else
      p->ndistinct++;
  }
  for (int i = 0; i < p->nkernels; i++)
    free(specs[i]);
  free(specs);
}
