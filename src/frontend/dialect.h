/* dialect.h: what dialect.c, dialect_tensor.c, dialect_arith.c and dialect_linalg.c share: one op
 * of the tensor, arith, math or linalg dialect as exporters write it around TOSA, read in its
 * custom or generic form into one description and lowered to TOSA ops (docs/ops.md, "Exporters'
 * dialects"). */
#ifndef TOSAC_FRONTEND_DIALECT_H
#define TOSAC_FRONTEND_DIALECT_H

#include "frontend/frontend.h"

#define XD_MAX_IN 64

/* A linalg body being read: its names, and the iteration space its scalars stand for (every
 * scalar is a tensor of the iteration space's rank, 1 along the dimensions it does not vary in). */
typedef struct xd_name {
  fe_token name;
  value *v;
} xd_name;
typedef struct xd_body {
  xd_name *names;
  int n, cap;
  tensor_type space; /* the iteration space (its elem unused) */
  value *acc;        /* the output block argument of a reduction: only its combining op reads it */
  op_kind combine;   /* the op that combined acc, once read (OP_COUNT before) */
  value *combined;   /* the other operand of that op */
  value *result;     /* linalg.yield's operand */
  int min_args;      /* a label may list this many arguments instead (linalg.map before MLIR 20) */
} xd_body;

typedef struct xd_op {
  fe_mgx_ctx m;    /* the builders (p, fs, loc, names of intermediate values) */
  const char *op;  /* the name without its dialect: "extract_slice" */
  const char *dialect; /* "tensor", "arith", "math", "linalg" */
  bool generic;    /* "dialect.op"(...) */
  xd_body *body;   /* inside a linalg body: names are looked up there first */
  value *in[XD_MAX_IN];
  fe_token in_tok[XD_MAX_IN];
  int nin, nins; /* operands; linalg: nins of them in ins(...), the rest in outs(...) */
  tensor_type in_t[XD_MAX_IN];
  int nint;
  tensor_type out_t; /* declared result type (a scalar: rank 0 and `scalar`) */
  bool has_out, scalar_out;
  fe_token word;  /* arith.cmpf's predicate, linalg.elementwise's kind */
  bool fastmath;
} xd_op;

/* dialect.c */
value *xd_find(xd_op *x, fe_token t); /* %name (body first); reports an undefined one */
value *xd_mk(xd_op *x, op_kind k, value *const *in, int n, const tensor_type *t);
value *xd_unary(xd_op *x, op_kind k, value *a);
value *xd_binary(xd_op *x, op_kind k, value *a, value *b); /* broadcasting; comparisons give i1 */
value *xd_cast(xd_op *x, value *a, elem_type et);
value *xd_splat(xd_op *x, const tensor_type *t, double v);
value *xd_const(xd_op *x, dense_data *d);
/* A scalar constant (FE_SCALAR_ID) as a tensor of rank `rank` and all dimensions 1. */
value *xd_scalar_tensor(xd_op *x, value *s, int rank);
/* Operand i as a tensor. A scalar is a tensor with one element: in a linalg body one of the
 * iteration space's rank (a scalar constant, or one computed outside the body), in arith and math
 * ops outside bodies one of rank 0; tensor and linalg ops refuse a scalar. NULL after an error. */
value *xd_operand(xd_op *x, int i);
/* v reshaped to rank `rank`, every dimension 1 (v has one element). */
value *xd_reshape_ones(xd_op *x, value *v, int rank);
/* A scalar constant (FE_SCALAR_ID, outside the graph) holding d (rank 0), as arith.constant
 * 0.5 : f32 defines one. */
value *xd_new_scalar(xd_op *x, dense_data *d);
/* The dense constant v is (a tosa.const or arith.constant in the graph), or NULL. */
const dense_data *xd_const_of(const value *v);
/* bitcast to a type of the same width: a constant's bytes read as `to`; tosac has no op that
 * reinterprets a computed tensor's bits (refused). */
value *xd_bitcast(xd_op *x, value *a, elem_type to);
const attr *xd_attr(const xd_op *x, const char *name);
/* An integer list attribute of exactly n entries (n < 0: any count, *count set). */
bool xd_ints(xd_op *x, const char *name, int64_t *out, int n, int *count);
bool xd_error(xd_op *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* `%a, %b, ...` appended to the operands (none: true) */
bool xd_parse_operands(xd_op *x);
bool xd_check_operand_type(xd_op *x, int i, bool scalar);
/* `[1, 2, 3]` into out (at most max) */
bool xd_parse_int_list(xd_op *x, int64_t *out, int max, int *n);
/* Set an integer list attribute (the custom forms store what the generic form writes). */
void xd_set_ints(xd_op *x, const char *name, const int64_t *v, int n);
/* A scalar (f32, index) or tensor type. */
bool xd_parse_type(xd_op *x, tensor_type *t, bool *scalar);

/* dialect_tensor.c, dialect_arith.c, dialect_linalg.c: custom syntax after the op name (the
 * current token is the first one after it) and lowering; NULL after an error. `known` false: no
 * such op in the subset tosac reads. */
value *xd_tensor_op(xd_op *x, bool *known);
value *xd_arith_op(xd_op *x, bool *known); /* arith and math */
value *xd_linalg_op(xd_op *x, bool *known);
/* The common tail of the custom forms: `<{props}>`, `{attrs}`, then `: T` / `: T to T` /
 * `: (T, ...) -> T`, and loc. */
bool xd_parse_tail(xd_op *x);
/* A linalg body `{ ^bb0(%a: f32, ...): ... linalg.yield %v : f32 }` or `(%a: f32, ...) { ... }`
 * read with its block arguments bound to args (count nargs); b->result is the yielded value. */
bool xd_parse_body(xd_op *x, xd_body *b, value *const *args, int nargs, bool label);

#endif
