/* mxgemm.c: recognises a block-scaled (mxfp4) GEMM in the form the migraphx
 * frontend writes it (frontend/migraphx_mx.c: fp4 and E8M0 bytes decoded by a
 * gather from a table of every encoding's value, each operand times its
 * broadcast scale, cast to bf16, tosa.matmul), so that a target with a
 * block-scaled matrix instruction (target_scaled_matrix_table) computes it from
 * the bytes themselves (docs/migraphx.md, "MX types and block-scaled GEMMs").
 *
 * The recognition is semantic, not a template: every element of each matmul
 * operand is traced back through the ops to the nibble of an i8 tensor it
 * decodes and the scale byte it is multiplied by, and the match holds only when
 * those positions are affine in the operand's indices (the scale constant over
 * aligned blocks of 32 along K). Every element is checked, so a graph that
 * computes anything else keeps the dequantizing kernels. */
#include "partition.h"

#include "optimize/eval.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Operands larger than this are not traced: the check visits every element, about 0.5 us each
 * (1 s for two operands of this size). */
#define MX_MAX_ELEMS ((int64_t)1 << 20)
/* Ops one pattern holds at most. */
#define MX_MAX_OPS 96

/* What a traced element is: a byte of the root (sign-extended), that byte
 * shifted right by 4, a 4-bit code (nibble), an unsigned byte code, a decoded
 * fp4 value, a decoded E8M0 scale, or the product of an fp4 value and a scale.
 */
typedef enum mx_kind { MK_BYTE, MK_HI, MK_NIB, MK_UBYTE, MK_F4, MK_E8, MK_PROD } mx_kind;

typedef struct mx_pos {
  mx_kind kind;
  const value *root, *sroot; /* data bytes; scale bytes (MK_E8 in root, MK_PROD in sroot) */
  int64_t p, s;              /* nibble (MK_NIB, MK_F4, MK_PROD) or byte position; scale byte */
} mx_pos;

static const dense_data *const_of(const value *v) {
  if (!v->def || op_table[v->def->kind].family != FAM_CONST)
    return NULL;
  const attr *a = op_attr(v->def, "values");
  return a && a->kind == ATTR_DENSE ? a->dense : NULL;
}

/* v is a constant whose every element is the integer (or float) x. */
static bool const_all(const value *v, double x) {
  const dense_data *d = const_of(v);
  if (!d)
    return false;
  int64_t n = d->splat ? 1 : tensor_numel(&d->type);
  for (int64_t i = 0; i < n; i++) {
    double e = elem_type_is_float(d->type.elem) ? ev_float(d, i) : (double)ev_int(d, i);
    if (e != x || (x == 0 && signbit(e)))
      return false;
  }
  return true;
}

/* The OCP MX v1.0 values: E2M1 (bias 1, subnormal 0.5 * m, no Inf/NaN) and E8M0
 * (2^(e-127)). */
static double fp4_value(int e) {
  int exp = (e >> 1) & 3, man = e & 1;
  double v = exp ? ldexp(1.0 + 0.5 * man, exp - 1) : 0.5 * man;
  return e & 8 ? -v : v;
}

/* table is the [1, 16, 1] fp4 table (fp4 true) or the [1, 256, 1] E8M0 table.
 */
static bool mx_table_check(const value *table, bool fp4) {
  const dense_data *d = const_of(table);
  int n = fp4 ? 16 : 256;
  const tensor_type *t = table->type;
  if (!d || d->splat || t->elem != ET_F32 || t->rank != 3 || t->dims[0] != 1 || t->dims[1] != n || t->dims[2] != 1)
    return false;
  for (int e = 0; e < n; e++) {
    double v = ev_float(d, e), want = fp4 ? fp4_value(e) : e == 255 ? NAN : ldexp(1.0, e - 127);
    if (isnan(want) ? !isnan(v) : (v != want || signbit(v) != signbit(want)))
      return false;
  }
  return true;
}

/* mx_table_check, remembered for one part_mx_match call (the graph is alive through it): the
 * trace asks for every element (a GEMM's operands have up to 2^20), and a table check reads 16
 * or 256 values. Per thread: plans are built in parallel. */
static _Thread_local struct {
  const value *v;
  bool fp4, ok;
} seen[4];
static _Thread_local int next;

static bool mx_table(const value *table, bool fp4) {
  for (int i = 0; i < 4; i++)
    if (seen[i].v == table && seen[i].fp4 == fp4)
      return seen[i].ok;
  bool ok = mx_table_check(table, fp4);
  seen[next].v = table, seen[next].fp4 = fp4, seen[next].ok = ok;
  next = (next + 1) % 4;
  return ok;
}

static void unravel(const tensor_type *t, int64_t i, int64_t *c) {
  for (int d = t->rank - 1; d >= 0; d--) {
    int64_t n = t->dims[d] ? t->dims[d] : 1;
    c[d] = i % n;
    i /= n;
  }
}

static int64_t ravel(const tensor_type *t, const int64_t *c) {
  int64_t i = 0;
  for (int d = 0; d < t->rank; d++)
    i = i * t->dims[d] + c[d];
  return i;
}

static bool trace(const value *v, int64_t i, mx_pos *out, int depth);

/* The element of operand j of o read for result element i, broadcast by TOSA's
 * rules. */
static bool trace_bcast(const op *o, int j, int64_t i, mx_pos *out, int depth) {
  const tensor_type *rt = o->results[0]->type, *ot = o->operands[j]->type;
  int64_t c[TOSAC_MAX_RANK];
  if (ot->rank != rt->rank)
    return false;
  unravel(rt, i, c);
  for (int d = 0; d < rt->rank; d++)
    if (ot->dims[d] == 1)
      c[d] = 0;
  return trace(o->operands[j], ravel(ot, c), out, depth + 1);
}

static bool trace_op(const op *o, int64_t i, mx_pos *out, int depth) {
  const value *x = o->operands[0];
  switch (o->kind) {
  case OP_RESHAPE:
    return trace(x, i, out, depth + 1);
  case OP_TRANSPOSE: {
    const attr *p = op_attr(o, "perms"); /* result dim d is input dim p[d] */
    const tensor_type *rt = o->results[0]->type;
    int64_t c[TOSAC_MAX_RANK], ci[TOSAC_MAX_RANK];
    if (!p || p->kind != ATTR_INTS || p->n != rt->rank)
      return false;
    unravel(rt, i, c);
    for (int d = 0; d < rt->rank; d++)
      ci[p->ints[d]] = c[d];
    return trace(x, ravel(x->type, ci), out, depth + 1);
  }
  case OP_CAST:
    if (!trace(x, i, out, depth + 1))
      return false;
    if (out->kind == MK_BYTE)
      return x->type->elem == ET_I8 && o->results[0]->type->elem == ET_I32;
    /* fp4 times a power of two: exact in bf16 (its subnormals reach 2^-133, the
     * smallest such product is 2^-128), and the matmul reads the bf16 value */
    return out->kind == MK_PROD && x->type->elem == ET_F32 && o->results[0]->type->elem == ET_BF16;
  case OP_BITWISE_AND:
    if (!trace(x, i, out, depth + 1))
      return false;
    if (const_all(o->operands[1], 15) && (out->kind == MK_BYTE || out->kind == MK_HI)) {
      out->p = 2 * out->p + (out->kind == MK_HI);
      out->kind = MK_NIB;
      return true;
    }
    if (const_all(o->operands[1], 255) && out->kind == MK_BYTE) {
      out->kind = MK_UBYTE;
      return true;
    }
    return false;
  case OP_ARITHMETIC_RIGHT_SHIFT:
    if (!const_all(o->operands[1], 4) || !trace(x, i, out, depth + 1) || out->kind != MK_BYTE)
      return false;
    out->kind = MK_HI;
    return true;
  case OP_CONCAT: {
    int64_t axis = op_attr_int(o, "axis", -1), c[TOSAC_MAX_RANK];
    const tensor_type *rt = o->results[0]->type;
    if (axis < 0 || axis >= rt->rank)
      return false;
    unravel(rt, i, c);
    for (int j = 0; j < o->noperands; j++) {
      const tensor_type *ot = o->operands[j]->type;
      if (c[axis] < ot->dims[axis])
        return trace(o->operands[j], ravel(ot, c), out, depth + 1);
      c[axis] -= ot->dims[axis];
    }
    return false;
  }
  case OP_GATHER: { /* [1, 2^bits, 1] table, [1, W] codes -> [1, W, 1] */
    const value *idx = o->operands[1];
    if (idx->type->rank != 2 || idx->type->dims[0] != 1 || !trace(idx, i, out, depth + 1))
      return false;
    if (out->kind == MK_NIB && mx_table(x, true))
      return out->kind = MK_F4, true;
    if (out->kind == MK_UBYTE && mx_table(x, false))
      return out->kind = MK_E8, true;
    return false;
  }
  case OP_ADD: /* a broadcast: x + 0.0 (a scale is positive or NaN, so the sum
                  is x) */
    for (int j = 0; j < 2; j++)
      if (const_all(o->operands[1 - j], 0.0))
        return trace_bcast(o, j, i, out, depth) && out->kind == MK_E8;
    return false;
  case OP_MUL: {
    mx_pos a, b;
    if (o->results[0]->type->elem != ET_F32 || (o->noperands == 3 && !const_all(o->operands[2], 0)) ||
        !trace_bcast(o, 0, i, &a, depth) || !trace_bcast(o, 1, i, &b, depth))
      return false;
    if (a.kind == MK_E8 && b.kind == MK_F4) {
      mx_pos t = a;
      a = b, b = t;
    }
    if (a.kind != MK_F4 || b.kind != MK_E8)
      return false;
    *out = a;
    out->kind = MK_PROD, out->sroot = b.root, out->s = b.p;
    return true;
  }
  default:
    return false;
  }
}

/* Element i of v as a position in the bytes it decodes from. An i8 value no op
 * of the pattern computes is a root: bytes in memory. */
static bool trace(const value *v, int64_t i, mx_pos *out, int depth) {
  if (depth > 64)
    return false;
  if (v->type->elem == ET_I8 && (!v->def || v->def->kind != OP_RESHAPE)) {
    if (v->def && op_table[v->def->kind].family == FAM_CONST)
      return false;
    *out = (mx_pos){.kind = MK_BYTE, .root = v, .p = i};
    return true;
  }
  return v->def && v->def->nresults == 1 && trace_op(v->def, i, out, depth);
}

/* Operand `which` (0: A [B, M, K]; 1: B [B, K, N]) of the matmul as rows r (M
 * of A, N of B) by K: its element (b, r, k) is nibble d_off + b d[0] + r d[1] +
 * k d[2] of `data`, scaled by byte s_off + b s[0] + r s[1] + (k / 32) s[2] of
 * `scale`. Every element is checked. */
static bool match_operand(const op *mm, int which, part_mx_operand *o) {
  const value *v = mm->operands[which];
  const tensor_type *t = v->type;
  if (t->rank != 3 || tensor_numel(t) > MX_MAX_ELEMS || t->elem != ET_BF16)
    return false;
  int64_t nb = t->dims[0], nr = which ? t->dims[2] : t->dims[1], nk = which ? t->dims[1] : t->dims[2];
  if (nk % 32 || nb < 1 || nr < 1)
    return false;
  mx_pos p0, p;
  if (!trace(v, 0, &p0, 0) || p0.kind != MK_PROD)
    return false;
  o->data = p0.root, o->scale = p0.sroot;
  o->d_off = p0.p, o->s_off = p0.s;
  /* the strides: one step along b and r (data and scale), along k (data), one
   * block (scale) */
  int64_t extent[3] = {nb, nr, nk};
  for (int a = 0; a < 4; a++) {
    int axis = a < 3 ? a : 2, step = a < 3 ? 1 : 32;
    int64_t *ds = a < 3 ? &o->d[a] : NULL, *ss = a == 2 ? NULL : &o->s[axis];
    if (ds)
      *ds = 0;
    if (ss)
      *ss = 0;
    if (extent[axis] <= step)
      continue;
    int64_t c[3] = {0, 0, 0};
    c[axis] = step;
    int64_t at[3] = {c[0], which ? c[2] : c[1], which ? c[1] : c[2]};
    if (!trace(v, ravel(t, at), &p, 0) || p.kind != MK_PROD)
      return false;
    if (ds)
      *ds = p.p - p0.p;
    if (ss)
      *ss = p.s - p0.s;
  }
  for (int64_t i = 0; i < tensor_numel(t); i++) { /* every element */
    int64_t c[3];
    unravel(t, i, c);
    int64_t b = c[0], r = which ? c[2] : c[1], k = which ? c[1] : c[2];
    if (!trace(v, i, &p, 0) || p.kind != MK_PROD || p.root != o->data || p.sroot != o->scale ||
        p.p != o->d_off + b * o->d[0] + r * o->d[1] + k * o->d[2] ||
        p.s != o->s_off + b * o->s[0] + r * o->s[1] + k / 32 * o->s[2])
      return false;
  }
  return true;
}

bool part_mx_match(const op *mm, part_mx_gemm *out) {
  memset(out, 0, sizeof *out);
  memset(seen, 0, sizeof seen);
  if (mm->kind != OP_MATMUL || mm->nresults != 1 || mm->results[0]->type->elem != ET_F32)
    return false;
  for (int j = 2; j < mm->noperands; j++)
    if (!const_all(mm->operands[j], 0.0))
      return false;
  const tensor_type *ta = mm->operands[0]->type;
  out->batch = ta->dims[0], out->m = ta->dims[1], out->k = ta->dims[2];
  out->n = mm->operands[1]->type->dims[2];
  return match_operand(mm, 0, &out->a) && match_operand(mm, 1, &out->b);
}

/* ---------------------------------------------------------------- the pattern
 * for fuse.c */
typedef struct mx_members {
  const op *ops[MX_MAX_OPS];
  int n;
} mx_members;

/* The non-constant ops computing v from its roots (i8 values no op of the
 * pattern computes). */
static bool collect(mx_members *m, const value *v) {
  const op *d = v->def;
  if (!d || op_table[d->kind].family == FAM_CONST)
    return true;
  if (v->type->elem == ET_I8 && d->kind != OP_RESHAPE)
    return true; /* a root */
  for (int i = 0; i < m->n; i++)
    if (m->ops[i] == d)
      return true;
  if (m->n >= MX_MAX_OPS)
    return false;
  m->ops[m->n++] = d;
  for (int j = 0; j < d->noperands; j++)
    if (!collect(m, d->operands[j]))
      return false;
  return true;
}

bool part_mx_disabled(void) {
  const char *e = getenv("TOSAC_NO_MX_GEMM");
  return e && *e && strcmp(e, "0") != 0;
}

int part_mx_find(const graph *g, const target_info *t, const char *live, const int *use_start, const int *uses,
                 const char *is_result, int *pat, int first) {
  if (part_fusion_disabled() || part_mx_disabled() || !target_scaled_matrix_find(t->name, 0))
    return first;
  int n = first;
  for (int i = 0; i < g->nops; i++) {
    const op *o = g->ops[i];
    part_mx_gemm mx;
    if (!live[o->id] || pat[o->id] >= 0 || o->kind != OP_MATMUL || !part_mx_match(o, &mx))
      continue;
    mx_members m = {.n = 0};
    bool ok = collect(&m, o->operands[0]) && collect(&m, o->operands[1]);
    /* every value the pattern computes is read only inside it and is no graph
     * result */
    for (int j = 0; ok && j < m.n; j++) {
      const value *v = m.ops[j]->results[0];
      ok = pat[m.ops[j]->id] < 0 && !is_result[v->id] && m.ops[j]->nresults == 1;
      for (int u = use_start[v->id]; ok && u < use_start[v->id + 1]; u++) {
        const op *r = g->ops[uses[u]];
        bool inside = r == o;
        for (int q = 0; !inside && q < m.n; q++)
          inside = m.ops[q] == r;
        ok = inside || !live[r->id];
      }
    }
    if (!ok)
      continue;
    for (int j = 0; j < m.n; j++)
      pat[m.ops[j]->id] = n;
    pat[o->id] = n++;
  }
  return n;
}
