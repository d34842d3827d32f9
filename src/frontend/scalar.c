/* scalar.c: scalars as producers write them around TOSA. `arith.constant 0.5 : f32` is a scalar
 * (parser.c keeps it outside the graph, FE_SCALAR_ID); TOSA operands are tensors, so a scalar
 * reaches a TOSA op through tensor.from_elements or tensor.splat, folded here into a dense
 * constant, as mlir-opt-22's canonicalizer folds them (docs/ops.md, "Scalars"). */
#include "frontend/frontend.h"

#include <string.h>

/* The scalar %name stands for, or NULL after reporting why it is none. */
static const dense_data *scalar_operand(fe_parser *p, fe_scope *fs, fe_token t, elem_type want) {
  value *v = fe_scope_find(p, fs, t);
  if (!v || v->id == -1) /* undefined (reported) or poisoned (its op was reported) */
    return NULL;
  char a[160];
  if (v->id != FE_SCALAR_ID) {
    fe_error(p, fe_loc(p, t), "use of value '%.*s' expects different type than prior uses: '%s' vs '%s' "
             "(tensor.from_elements and tensor.splat take scalars: arith.constant 0.5 : f32)", t.n, t.p,
             elem_type_name(want), fe_type_str(v->type, a, sizeof a));
    return NULL;
  }
  const dense_data *d = op_attrs(v->def)[0].dense;
  if (d->type.elem != want) { /* mlir-opt-22's words and place */
    fe_error(p, fe_loc(p, t), "use of value '%.*s' expects different type than prior uses: '%s' vs '%s'", t.n,
             t.p, elem_type_name(want), elem_type_name(d->type.elem));
    return NULL;
  }
  return d;
}

bool fe_parse_tensor_build(fe_parser *p, fe_scope *fs, bool splat, attr *out) {
  fe_token ops[64];
  int n = 0;
  while (p->tok.kind == T_VALUE) {
    if (n == 64) return fe_error(p, fe_loc(p, p->tok), "tensor.from_elements takes at most 64 scalars here");
    ops[n++] = p->tok;
    fe_next(p);
    if (!fe_accept(p, T_COMMA)) break;
    if (p->tok.kind != T_VALUE) return fe_error(p, fe_loc_after_prev(p), "expected SSA operand");
  }
  if (n == 0) return fe_error(p, fe_loc(p, p->tok), "expected SSA operand");
  if (splat && p->tok.kind == T_LBRACKET)
    return fe_error(p, fe_loc(p, p->tok), "tensor.splat with dynamic sizes is not supported (give a static tensor type)");
  if (!fe_expect(p, T_COLON, "before the result type")) return false;
  tensor_type t;
  src_loc tloc;
  if (!fe_parse_type(p, &t, &tloc)) return false;
  if (!fe_check_size(p, &t, tloc)) return false;
  int64_t numel = tensor_numel(&t);
  if (splat && n != 1)
    return fe_error(p, fe_loc(p, ops[1]), "tensor.splat takes one scalar, found %d", n);
  if (!splat && numel != n) /* mlir-opt-22's words, at the first operand */
    return fe_error(p, fe_loc(p, ops[0]), "custom op 'tensor.from_elements' number of operands and types do not "
                    "match: got %d operands and %lld types", n, (long long)numel);
  size_t eb = (size_t)elem_type_bytes(t.elem);
  dense_data *d = arena_alloc(p->a, sizeof *d);
  uint8_t *bytes = arena_alloc(p->a, eb * (size_t)n);
  for (int i = 0; i < n; i++) {
    const dense_data *s = scalar_operand(p, fs, ops[i], t.elem);
    if (!s) return false;
    memcpy(bytes + eb * (size_t)i, s->bytes, eb);
  }
  *d = (dense_data){.type = t, .bytes = bytes, .nbytes = eb * (size_t)n, .splat = splat || numel == 1};
  out->kind = ATTR_DENSE;
  out->dense = d;
  fe_skip_loc(p);
  return true;
}
