/* views.c: ops that only reinterpret their input's bytes (reshape, identity, a transpose that
 * moves unit dims) become aliases of the input's buffer instead of copy kernels. */
#include "partition.h"

#include <stdlib.h>
#include <string.h>

bool part_fusion_disabled(void) {
  const char *e = getenv("TOSAC_NO_FUSION");
  return e && *e && strcmp(e, "0") != 0;
}

/* A transpose keeps row-major order when the dims larger than 1 stay in their relative order:
 * only unit dims move, and a unit dim contributes nothing to any element's offset. */
static bool moves_only_unit_dims(const op *o) {
  const attr *p = op_attr(o, "perms");
  const tensor_type *in = o->operands[0]->type;
  if (!p || p->kind != ATTR_INTS || p->n != in->rank)
    return false;
  int last = -1;
  for (int i = 0; i < p->n; i++) {
    int64_t d = p->ints[i];
    if (d < 0 || d >= in->rank)
      return false;
    if (in->dims[d] == 1)
      continue;
    if (d < last)
      return false;
    last = (int)d;
  }
  return true;
}

bool part_is_view(const op *o) {
  if (o->nresults != 1 || o->noperands != 1 || part_fusion_disabled())
    return false;
  const tensor_type *in = o->operands[0]->type, *out = o->results[0]->type;
  if (in->elem != out->elem || in->elem == ET_INDEX || tensor_numel(in) != tensor_numel(out))
    return false;
  switch (o->kind) {
  case OP_RESHAPE:
  case OP_IDENTITY: return true;
  case OP_TRANSPOSE: return moves_only_unit_dims(o);
  default: return false;
  }
}

const value *part_view_root(const value *v) {
  while (v->def && part_is_view(v->def))
    v = v->def->operands[0];
  return v;
}
