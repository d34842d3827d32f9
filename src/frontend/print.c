/* print.c: --emit=tosa. Prints the canonical graph as TOSA 1.0 in MLIR's generic op form, the
 * form mlir-opt-22 parses for every op: attributes that TOSA 1.0 passes as operands (zero
 * points, shifts, shapes) become tosa.const / tosa.const_shape ops again, and legacy-only ops
 * (fully_connected) become their TOSA 1.0 equivalents. Printing the printer's own output again
 * gives the same text: values are renumbered in print order. */
#include "frontend/frontend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct vnum {
  const value *v;
  int n;
} vnum;

typedef struct printer {
  FILE *out;
  const graph *g;
  int next;   /* next %N */
  vnum *tab;  /* value -> its %N, the entry's arguments -2 - i (open addressing; regions have
                 their own value ids) */
  size_t cap, used;
  char ind[64];
} printer;

static size_t vhash(const value *v, size_t cap) { return ((uintptr_t)v >> 4) * 0x9E3779B97F4A7C15ull & (cap - 1); }

static void set_num(printer *pr, const value *v, int n) {
  if (2 * (pr->used + 1) > pr->cap) {
    vnum *old = pr->tab;
    size_t oc = pr->cap;
    pr->cap = oc ? oc * 2 : 1024;
    pr->tab = calloc(pr->cap, sizeof(vnum));
    if (!pr->tab) abort();
    for (size_t i = 0; i < oc; i++)
      if (old[i].v) {
        size_t k = vhash(old[i].v, pr->cap);
        while (pr->tab[k].v) k = (k + 1) & (pr->cap - 1);
        pr->tab[k] = old[i];
      }
    free(old);
  }
  size_t k = vhash(v, pr->cap);
  while (pr->tab[k].v && pr->tab[k].v != v) k = (k + 1) & (pr->cap - 1);
  if (!pr->tab[k].v) pr->used++;
  pr->tab[k] = (vnum){v, n};
}

static int get_num(const printer *pr, const value *v) {
  if (!pr->cap) return -1;
  for (size_t k = vhash(v, pr->cap); pr->tab[k].v; k = (k + 1) & (pr->cap - 1))
    if (pr->tab[k].v == v) return pr->tab[k].n;
  return -1;
}

static void type_out(printer *pr, const tensor_type *t) {
  char b[200];
  fputs(fe_type_str(t, b, sizeof b), pr->out);
}

static void val_out(printer *pr, const value *v) {
  int n = get_num(pr, v);
  if (v->def && v->def->nresults > 1) {
    int k = 0;
    while (k < v->def->nresults && v->def->results[k] != v) k++;
    fprintf(pr->out, "%%%d#%d", n, k);
  } else if (n >= 0) {
    fprintf(pr->out, "%%%d", n);
  } else { /* the entry's argument i is numbered -2 - i; -1: not numbered */
    fprintf(pr->out, "%%arg%d", n <= -2 ? -2 - n : -1);
  }
}

/* ---------------------------------------------------------------- numbers and literals */
/* A float in a form MLIR reads back exactly: 9 significant digits cover f32 and narrower
 * types, 17 cover f64; infinities and NaNs as the type's bit pattern. */
static void float_out(FILE *out, double v, elem_type et) {
  if (isfinite(v)) {
    fprintf(out, et == ET_F64 ? "%.16e" : "%.8e", v);
    return;
  }
  int hexd = elem_type_bits(et) / 4;
  if (et == ET_F8E4M3FNUZ || et == ET_F8E5M2FNUZ) { /* finite or NaN: 0x80 */
    fputs("0x80", out);
    return;
  }
  if (et == ET_F8E4M3FN || et == ET_F8E5M2) {
    fprintf(out, "0x%02X", (unsigned)(et == ET_F8E5M2 ? (isnan(v) ? 0x7E : v > 0 ? 0x7C : 0xFC) : (v > 0 ? 0x7F : 0xFF)));
    return;
  }
  fprintf(out, "0x%0*llX", hexd, (unsigned long long)fe_float_bits(v, et));
}

static void elem_out(FILE *out, const dense_data *dd, int64_t i) {
  elem_type et = dd->type.elem;
  if (et == ET_I1) fputs(fe_dense_int(dd, i) ? "true" : "false", out);
  else if (elem_type_is_float(et)) float_out(out, fe_dense_float(dd, i), et);
  else fprintf(out, "%lld", (long long)fe_dense_int(dd, i));
}

static void nested_out(FILE *out, const dense_data *dd, int dim, int64_t *idx) {
  if (dim == dd->type.rank) {
    elem_out(out, dd, (*idx)++);
    return;
  }
  fputc('[', out);
  for (int64_t k = 0; k < dd->type.dims[dim]; k++) {
    if (k) fputs(", ", out);
    nested_out(out, dd, dim + 1, idx);
  }
  fputc(']', out);
}

/* Large tensors as one hex string, written in blocks without per-element formatting. */
static void hex_out(FILE *out, const uint8_t *b, size_t n) {
  static const char digits[] = "0123456789ABCDEF";
  char buf[8192];
  size_t k = 0;
  fputs("\"0x", out);
  for (size_t i = 0; i < n; i++) {
    buf[k++] = digits[b[i] >> 4];
    buf[k++] = digits[b[i] & 15];
    if (k == sizeof buf) {
      fwrite(buf, 1, k, out);
      k = 0;
    }
  }
  fwrite(buf, 1, k, out);
  fputc('"', out);
}

static void dense_out(FILE *out, const dense_data *dd) {
  int64_t n = tensor_numel(&dd->type);
  elem_type et = dd->type.elem;
  fputs("dense<", out);
  if (dd->splat || n == 1) {
    elem_out(out, dd, 0);
  } else if (n <= 64 || et == ET_I1 || et == ET_I4 || et == ET_INDEX) {
    int64_t idx = 0;
    nested_out(out, dd, 0, &idx);
  } else {
    hex_out(out, dd->bytes, dd->nbytes);
  }
  fputs("> : ", out);
  tensor_type t = dd->type;
  char b[200];
  if (t.elem == ET_INDEX) {
    fprintf(out, "tensor<%lldxindex>", (long long)t.dims[0]);
  } else {
    fputs(fe_type_str(&t, b, sizeof b), out);
  }
}

/* ---------------------------------------------------------------- generated constants */
/* A tosa.const holding one value (zero points, shift, pad_const) of element type et; returns
 * its number. */
static int const_scalar(printer *pr, const attr *a, elem_type et, int count, const int64_t *ints) {
  int id = pr->next++;
  FILE *out = pr->out;
  fprintf(out, "%s%%%d = \"tosa.const\"() <{values = dense<", pr->ind, id);
  if (ints && count > 1) {
    fputc('[', out);
    for (int i = 0; i < count; i++) fprintf(out, "%s%lld", i ? ", " : "", (long long)ints[i]);
    fputc(']', out);
  } else if (ints) {
    fprintf(out, "%lld", (long long)ints[0]);
  } else if (elem_type_is_float(et)) {
    float_out(out, a ? (a->kind == ATTR_FLOAT ? a->f : (double)a->i) : 0.0, et);
  } else if (et == ET_I1) {
    fputs(a && a->i ? "true" : "false", out);
  } else {
    fprintf(out, "%lld", (long long)(a ? (a->kind == ATTR_FLOAT ? (int64_t)a->f : a->i) : 0));
  }
  fprintf(out, "> : tensor<%dx%s>}> : () -> tensor<%dx%s>\n", count, elem_type_name(et), count, elem_type_name(et));
  return id;
}

static int const_shape(printer *pr, const attr *a) {
  int id = pr->next++;
  int n = a ? a->n : 0;
  fprintf(pr->out, "%s%%%d = \"tosa.const_shape\"() <{values = dense<[", pr->ind, id);
  for (int i = 0; i < n; i++) fprintf(pr->out, "%s%lld", i ? ", " : "", (long long)a->ints[i]);
  fprintf(pr->out, "]> : tensor<%dxindex>}> : () -> !tosa.shape<%d>\n", n, n);
  return id;
}

/* ---------------------------------------------------------------- ops */
typedef struct extra {
  int id;
  tensor_type t;
} extra;

static void push_extra(extra *ex, int *n, int id, tensor_type t) { ex[(*n)++] = (extra){id, t}; }

static tensor_type vec_type(elem_type et, int64_t n) { return (tensor_type){.elem = et, .rank = 1, .dims = {n}}; }

static void attr_value_out(FILE *out, const op *o, const attr *a) {
  switch (a->kind) {
  case ATTR_INT:
    if (!strcmp(a->name, "axis")) fprintf(out, "%lld : i32", (long long)a->i);
    else fprintf(out, "%lld : %s", (long long)a->i, elem_type_name(a->type_elem ? a->type_elem : ET_I64));
    break;
  case ATTR_FLOAT:
    float_out(out, a->f, a->type_elem ? a->type_elem : ET_F32);
    fprintf(out, " : %s", elem_type_name(a->type_elem ? a->type_elem : ET_F32));
    break;
  case ATTR_BOOL: fputs(a->i ? "true" : "false", out); break;
  case ATTR_INTS: {
    bool i32 = !strcmp(a->name, "perms");
    fprintf(out, "array<%s", i32 ? "i32" : "i64");
    for (int i = 0; i < a->n; i++) fprintf(out, "%s%lld", i ? ", " : ": ", (long long)a->ints[i]);
    fputc('>', out);
    break;
  }
  case ATTR_FLOATS:
    fputs("array<f32", out);
    for (int i = 0; i < a->n; i++) {
      fputs(i ? ", " : ": ", out);
      float_out(out, a->floats[i], ET_F32);
    }
    fputc('>', out);
    break;
  case ATTR_STR:
    if (!strcmp(a->name, "nan_mode")) fprintf(out, "#tosa.nan_mode<%s>", a->s);
    else if (!strcmp(a->name, "rounding_mode")) fprintf(out, "#tosa.rounding_mode<%s>", a->s);
    else if (!strcmp(a->name, "mode") && o->kind == OP_RESIZE) fprintf(out, "#tosa.resize_mode<%s>", a->s);
    else {
      fputc('"', out);
      for (const char *s = a->s; s && *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', out);
        fputc(*s, out);
      }
      fputc('"', out);
    }
    break;
  case ATTR_TYPE: fputs(elem_type_name(a->type_elem), out); break;
  case ATTR_DENSE: dense_out(out, a->dense); break;
  }
}

/* Attributes of each op that TOSA 1.0 keeps as attributes (others were operands). */
static bool is_property(const op *o, const char *name) {
  static const char *const operand_attrs[] = {"shift", "input1_zp", "output_zp", "a_zp", "b_zp", "input_zp",
                                              "weight_zp", "new_shape", "start", "size", "padding", "pad_const",
                                              "multiples", "scale", "offset", "border", "multiplier"};
  if (o->kind == OP_CONST || o->kind == OP_CONST_SHAPE) return true;
  if (o->kind == OP_CUSTOM || o->kind == OP_FFT2D || o->kind == OP_RFFT2D || o->kind == OP_VARIABLE) return true;
  if (!strcmp(name, "pad") && o->kind == OP_PAD) return false;
  if (o->kind == OP_MUL && !strcmp(name, "shift")) return false;
  if (o->kind == OP_RESCALE && !strcmp(name, "shift")) return false;
  for (size_t i = 0; i < sizeof operand_attrs / sizeof operand_attrs[0]; i++)
    if (!strcmp(name, operand_attrs[i])) return false;
  return true;
}

static int cmp_attr(const void *a, const void *b) {
  return strcmp((*(const attr *const *)a)->name, (*(const attr *const *)b)->name);
}

static void props_out(printer *pr, const op *o) {
  const attr *sorted[64];
  int n = 0;
  for (int i = 0; i < o->nattrs && n < 64; i++)
    if (is_property(o, op_attrs(o)[i].name)) sorted[n++] = &op_attrs(o)[i];
  if (!n) return;
  qsort(sorted, (size_t)n, sizeof sorted[0], cmp_attr);
  fputs(" <{", pr->out);
  for (int i = 0; i < n; i++) {
    fprintf(pr->out, "%s%s = ", i ? ", " : "", sorted[i]->name);
    attr_value_out(pr->out, o, sorted[i]);
  }
  fputs("}>", pr->out);
}

/* The zero-point-like scalar constant for attribute `name`, element type et. */
static void zp_operand(printer *pr, const op *o, const char *name, elem_type et, extra *ex, int *nex) {
  int id = const_scalar(pr, op_attr(o, name), et, 1, NULL);
  push_extra(ex, nex, id, vec_type(et, 1));
}

static void shape_operand(printer *pr, const op *o, const char *name, extra *ex, int *nex) {
  const attr *a = op_attr(o, name);
  int id = const_shape(pr, a);
  push_extra(ex, nex, id, (tensor_type){.elem = ET_INDEX, .rank = 1, .dims = {a ? a->n : 0}});
}

/* Constants re-created for the operands TOSA 1.0 expects after the data operands. */
static int extras_for(printer *pr, const op *o, extra *ex) {
  int n = 0;
  elem_type in0 = o->noperands ? o->operands[0]->type->elem : ET_INVALID;
  elem_type in1 = o->noperands > 1 ? o->operands[1]->type->elem : ET_INVALID;
  elem_type res = o->nresults ? o->results[0]->type->elem : ET_INVALID;
  switch (o->kind) {
  case OP_MUL: {
    const attr *a = op_attr(o, "shift");
    int64_t v = a ? a->i : 0;
    push_extra(ex, &n, const_scalar(pr, NULL, ET_I8, 1, &v), vec_type(ET_I8, 1));
    break;
  }
  case OP_NEGATE:
    zp_operand(pr, o, "input1_zp", in0, ex, &n);
    zp_operand(pr, o, "output_zp", res, ex, &n);
    break;
  case OP_MATMUL:
    zp_operand(pr, o, "a_zp", in0, ex, &n);
    zp_operand(pr, o, "b_zp", in1, ex, &n);
    break;
  case OP_CONV2D:
  case OP_DEPTHWISE_CONV2D:
  case OP_CONV3D:
  case OP_TRANSPOSE_CONV2D:
    zp_operand(pr, o, "input_zp", in0, ex, &n);
    zp_operand(pr, o, "weight_zp", in1, ex, &n);
    break;
  case OP_AVG_POOL2D:
    zp_operand(pr, o, "input_zp", in0, ex, &n);
    zp_operand(pr, o, "output_zp", res, ex, &n);
    break;
  case OP_RESHAPE: shape_operand(pr, o, "new_shape", ex, &n); break;
  case OP_SLICE:
    shape_operand(pr, o, "start", ex, &n);
    shape_operand(pr, o, "size", ex, &n);
    break;
  case OP_TILE: shape_operand(pr, o, "multiples", ex, &n); break;
  case OP_PAD:
    shape_operand(pr, o, "padding", ex, &n);
    zp_operand(pr, o, "pad_const", in0, ex, &n);
    break;
  case OP_RESIZE:
    shape_operand(pr, o, "scale", ex, &n);
    shape_operand(pr, o, "offset", ex, &n);
    shape_operand(pr, o, "border", ex, &n);
    break;
  case OP_RESCALE: {
    const attr *m = op_attr(o, "multiplier"), *s = op_attr(o, "shift"), *s32 = op_attr(o, "scale32");
    elem_type mt = !s32 || s32->i ? ET_I32 : ET_I16;
    int cnt = m ? m->n : 1;
    push_extra(ex, &n, const_scalar(pr, NULL, mt, cnt, m ? m->ints : (int64_t[]){0}), vec_type(mt, cnt));
    push_extra(ex, &n, const_scalar(pr, NULL, ET_I8, cnt, s ? s->ints : (int64_t[]){0}), vec_type(ET_I8, cnt));
    zp_operand(pr, o, "input_zp", in0, ex, &n);
    zp_operand(pr, o, "output_zp", res, ex, &n);
    break;
  }
  default: break;
  }
  return n;
}

static void print_op(printer *pr, const op *o);

/* ({ ^bb0(%N: T, ...): ops "tosa.yield"(...) }, {...}) */
static void regions_out(printer *pr, const op *o) {
  FILE *out = pr->out;
  size_t il = strlen(pr->ind);
  fputs(" (", out);
  for (int r = 0; r < o->nregions; r++) {
    const graph *rg = op_regions(o)[r];
    fputs(r ? ", {\n" : "{\n", out);
    if (il + 2 < sizeof pr->ind) strcat(pr->ind, "  ");
    if (rg->nargs) {
      fprintf(out, "%s^bb0(", pr->ind);
      for (int i = 0; i < rg->nargs; i++) {
        int n = pr->next++;
        set_num(pr, rg->args[i], n);
        fprintf(out, "%s%%%d: ", i ? ", " : "", n);
        type_out(pr, rg->args[i]->type);
      }
      fputs("):\n", out);
    }
    for (int i = 0; i < rg->nops; i++) print_op(pr, rg->ops[i]);
    fprintf(out, "%s\"tosa.yield\"(", pr->ind);
    for (int i = 0; i < rg->nresults; i++) {
      if (i) fputs(", ", out);
      val_out(pr, rg->results[i]);
    }
    fputs(") : (", out);
    for (int i = 0; i < rg->nresults; i++) {
      if (i) fputs(", ", out);
      type_out(pr, rg->results[i]->type);
    }
    fputs(") -> ()\n", out);
    pr->ind[il] = 0;
    fprintf(out, "%s}", pr->ind);
  }
  fputc(')', out);
}

static void generic_op(printer *pr, const op *o, const char *name, value *const *ins, int nin, const extra *ex,
                       int nex, const op *attrs_from, const tensor_type *const *outs, int nout, int res_id) {
  FILE *out = pr->out;
  fputs(pr->ind, out);
  if (nout > 1) fprintf(out, "%%%d:%d = ", res_id, nout);
  else if (nout == 1) fprintf(out, "%%%d = ", res_id);
  fprintf(out, "\"%s\"(", name);
  for (int i = 0; i < nin; i++) {
    if (i) fputs(", ", out);
    val_out(pr, ins[i]);
  }
  for (int i = 0; i < nex; i++) fprintf(out, "%s%%%d", nin + i ? ", " : "", ex[i].id);
  fputc(')', out);
  if (attrs_from) props_out(pr, attrs_from);
  if (o && o->nregions) regions_out(pr, o);
  fputs(" : (", out);
  for (int i = 0; i < nin; i++) {
    if (i) fputs(", ", out);
    type_out(pr, ins[i]->type);
  }
  for (int i = 0; i < nex; i++) {
    if (nin + i) fputs(", ", out);
    type_out(pr, &ex[i].t);
  }
  fputs(") -> ", out);
  if (nout != 1) fputc('(', out);
  for (int i = 0; i < nout; i++) {
    if (i) fputs(", ", out);
    type_out(pr, outs[i]);
  }
  if (nout != 1) fputc(')', out);
  fputc('\n', out);
  (void)o;
}

/* fully_connected is not in TOSA 1.0: reshape to a 1x1 conv2d and back. */
static void print_fully_connected(printer *pr, const op *o) {
  const value *x = o->operands[0], *w = o->operands[1], *b = o->operands[2], *r = o->results[0];
  int64_t n = x->type->dims[0], ic = x->type->dims[1], oc = w->type->dims[0];
  attr ns = {.name = "new_shape", .kind = ATTR_INTS, .n = 4};
  int64_t xs[4] = {n, 1, 1, ic}, ws[4] = {oc, 1, 1, ic}, rs[2] = {n, oc};
  FILE *out = pr->out;
  char t1[200], t2[200];
  ns.ints = xs;
  int sx = const_shape(pr, &ns);
  tensor_type x4 = {.elem = x->type->elem, .rank = 4, .dims = {n, 1, 1, ic}};
  int rx = pr->next++;
  fprintf(out, "%s%%%d = \"tosa.reshape\"(", pr->ind, rx);
  val_out(pr, x);
  fprintf(out, ", %%%d) : (%s, !tosa.shape<4>) -> %s\n", sx, fe_type_str(x->type, t1, sizeof t1), fe_type_str(&x4, t2, sizeof t2));
  ns.ints = ws;
  int sw = const_shape(pr, &ns);
  tensor_type w4 = {.elem = w->type->elem, .rank = 4, .dims = {oc, 1, 1, ic}};
  int rw = pr->next++;
  fprintf(out, "%s%%%d = \"tosa.reshape\"(", pr->ind, rw);
  val_out(pr, w);
  fprintf(out, ", %%%d) : (%s, !tosa.shape<4>) -> %s\n", sw, fe_type_str(w->type, t1, sizeof t1), fe_type_str(&w4, t2, sizeof t2));
  int zi = const_scalar(pr, op_attr(o, "input_zp"), x->type->elem, 1, NULL);
  int zw = const_scalar(pr, op_attr(o, "weight_zp"), w->type->elem, 1, NULL);
  tensor_type r4 = {.elem = r->type->elem, .rank = 4, .dims = {n, 1, 1, oc}};
  elem_type acc = x->type->elem == ET_I16 ? ET_I48 : elem_type_is_int(x->type->elem) ? ET_I32 : ET_F32;
  int rc = pr->next++;
  char tb[200];
  fprintf(out, "%s%%%d = \"tosa.conv2d\"(%%%d, %%%d, ", pr->ind, rc, rx, rw);
  val_out(pr, b);
  fprintf(out, ", %%%d, %%%d) <{acc_type = %s, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}> : (%s, ",
          zi, zw, elem_type_name(acc), fe_type_str(&x4, t1, sizeof t1));
  fprintf(out, "%s, %s, tensor<1x%s>, tensor<1x%s>) -> ", fe_type_str(&w4, t2, sizeof t2), fe_type_str(b->type, tb, sizeof tb),
          elem_type_name(x->type->elem), elem_type_name(w->type->elem));
  fprintf(out, "%s\n", fe_type_str(&r4, t1, sizeof t1));
  ns.ints = rs;
  ns.n = 2;
  int sr = const_shape(pr, &ns);
  int id = pr->next++;
  set_num(pr, r, id);
  fprintf(out, "%s%%%d = \"tosa.reshape\"(%%%d, %%%d) : (%s, !tosa.shape<2>) -> ", pr->ind, id, rc, sr,
          fe_type_str(&r4, t1, sizeof t1));
  fprintf(out, "%s\n", fe_type_str(r->type, t2, sizeof t2));
}

static void print_op(printer *pr, const op *o) {
  if (o->kind == OP_FULLY_CONNECTED) {
    print_fully_connected(pr, o);
    return;
  }
  extra ex[8];
  int nex = extras_for(pr, o, ex);
  const tensor_type *outs[64];
  int nout = o->nresults < 64 ? o->nresults : 64;
  for (int i = 0; i < nout; i++) outs[i] = o->results[i]->type;
  int id = pr->next++;
  for (int i = 0; i < o->nresults; i++) set_num(pr, o->results[i], id); /* several: %id#i */
  generic_op(pr, o, op_table[o->kind].name, o->operands, o->noperands, ex, nex, o, outs, nout, id);
}

void fe_print_tosa(FILE *out, const graph *g) {
  printer pr = {.out = out, .g = g};
  strcpy(pr.ind, "    ");
  fprintf(out, "module {\n  func.func @%s(", g->entry);
  for (int i = 0; i < g->nargs; i++) {
    fprintf(out, "%s%%arg%d: ", i ? ", " : "", i);
    type_out(&pr, g->args[i]->type);
    set_num(&pr, g->args[i], -2 - i);
  }
  fputs(") -> (", out);
  for (int i = 0; i < g->nresults; i++) {
    if (i) fputs(", ", out);
    type_out(&pr, g->results[i]->type);
  }
  fputs(") {\n", out);
  for (int i = 0; i < g->nops; i++) print_op(&pr, g->ops[i]);
  fputs("    return", out);
  for (int i = 0; i < g->nresults; i++) {
    fputs(i ? ", " : " ", out);
    val_out(&pr, g->results[i]);
  }
  for (int i = 0; i < g->nresults; i++) {
    fputs(i ? ", " : " : ", out);
    type_out(&pr, g->results[i]->type);
  }
  fputs("\n  }\n}\n", out);
  free(pr.tab);
}
