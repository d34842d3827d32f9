/* kernel_elementwise.c: the elementwise kernel family. A 1-D grid in which each work-item
 * computes `vector_width` consecutive elements of the iteration space: 128-bit loads/stores on
 * the full-shape buffers, TOSA broadcasting for the others, a bounds-checked scalar tail.
 * A tosa.transpose in the kernel (fused as an index map, partition/fuse.c) is no computation:
 * its result is a source that reads the transpose's input buffer through permuted strides. */
#include "codegen.h"

#include <stdlib.h>
#include <string.h>

#define EW_BLOCK 256
#define EW_VECTOR_BYTES 16

/* How one input (buffer or constant) is indexed from the linear iteration index: the iteration
 * dims are collapsed into groups that are either all broadcast or all full for this input. */
typedef struct ew_source {
  const value *v;
  const op *perm;      /* a transpose read as an index map: v is its result, ptr its input */
  bool unused;         /* an input only transposes read: never loaded directly */
  elem_type et;
  LLVMTypeRef mem_t;   /* element type in memory (i1 -> i8) */
  LLVMValueRef ptr;    /* buffer argument or constant global; NULL for a splat constant */
  LLVMValueRef splat;  /* splat constant value (register type) */
  int ngroups;
  int64_t gsize[TOSAC_MAX_RANK], ginner[TOSAC_MAX_RANK], gstride[TOSAC_MAX_RANK];
  bool gbcast[TOSAC_MAX_RANK];
  bool full;       /* offset = linear index */
  bool uniform;    /* one element for the whole iteration space */
  bool vec_contig; /* a vector chunk of the iteration is contiguous in this input */
  bool vec_same;   /* a vector chunk reads a single element of this input */
  LLVMValueRef chunk; /* fast path: the loaded vector, or the single shared element */
} ew_source;

typedef struct ew_kernel {
  cg_builder *cb;
  const graph *g;
  const part_kernel *k;
  int vw;             /* vector width */
  int64_t n;          /* elements in the iteration space */
  LLVMTypeRef it;     /* index type: i32 when it cannot overflow */
  ew_source *src;
  int nsrc;
  /* The kernel's values (its inputs, outputs, ops' operands and results) numbered locally, so
   * the tables below cost the kernel's size, not the graph's: value id -> slot by open
   * addressing (slot_id[h]: the id, slot_at[h]: its slot, -1 empty). */
  int *slot_id, *slot_at;
  size_t slot_cap;
  int nslots;
  int *src_of;        /* slot -> source index, -1 */
  bool *computed;     /* slot -> produced by a non-const op of this kernel */
  LLVMValueRef *cur;  /* slot -> scalar of the element being computed */
  LLVMValueRef *table; /* slot -> pointer to a tosa.table operand's elements */
} ew_kernel;

/* v's local number, given one on first sight (the capacity holds every value of the kernel). */
static int slot(ew_kernel *K, const value *v) {
  size_t h = (size_t)(uint32_t)v->id * 0x9E3779B1u & (K->slot_cap - 1);
  for (; K->slot_at[h] >= 0; h = (h + 1) & (K->slot_cap - 1))
    if (K->slot_id[h] == v->id)
      return K->slot_at[h];
  K->slot_id[h] = v->id;
  return K->slot_at[h] = K->nslots++;
}

/* Number every value the kernel touches, before any table is read: the hash holds at least
 * twice the kernel's value references, an upper bound of the distinct values. */
static void number_values(ew_kernel *K) {
  const part_kernel *k = K->k;
  size_t refs = (size_t)k->nin + (size_t)k->nout;
  for (int oi = 0; oi < k->nops; oi++)
    refs += (size_t)k->ops[oi]->noperands + (size_t)k->ops[oi]->nresults;
  K->slot_cap = 16;
  while (K->slot_cap < 2 * refs)
    K->slot_cap *= 2;
  K->slot_id = malloc(sizeof(int) * K->slot_cap);
  K->slot_at = malloc(sizeof(int) * K->slot_cap);
  memset(K->slot_at, 0xff, sizeof(int) * K->slot_cap);
  for (int i = 0; i < k->nin; i++)
    slot(K, k->in_vals[i]);
  for (int i = 0; i < k->nout; i++)
    slot(K, k->out_vals[i]);
  for (int oi = 0; oi < k->nops; oi++) {
    const op *o = k->ops[oi];
    for (int a = 0; a < o->noperands; a++)
      slot(K, o->operands[a]);
    for (int r = 0; r < o->nresults; r++)
      slot(K, o->results[r]);
  }
}

static LLVMValueRef idx_const(ew_kernel *K, int64_t v) {
  return LLVMConstInt(K->it, (unsigned long long)v, 0);
}

/* ---------------------------------------------------------------- sources */

/* Stride in elements of every iteration dim in source s's memory (0: broadcast): s->v's
 * row-major layout aligned to the trailing iteration dims, or for an index-map transpose its
 * input's row-major layout permuted by perms. */
static void dim_strides(ew_kernel *K, const ew_source *s, int64_t *stride) {
  const tensor_type *it = &K->k->iter, *vt = s->v->type;
  const tensor_type *mem = s->perm ? s->perm->operands[0]->type : vt;
  int64_t ms[TOSAC_MAX_RANK], vs[TOSAC_MAX_RANK], acc = 1;
  for (int d = mem->rank - 1; d >= 0; d--)
    ms[d] = acc, acc *= mem->dims[d];
  const attr *p = s->perm ? op_attr(s->perm, "perms") : NULL;
  for (int d = 0; d < vt->rank; d++)
    vs[d] = p ? ms[p->ints[d]] : ms[d];
  int pad = it->rank - vt->rank;
  for (int d = 0; d < it->rank; d++) {
    int64_t vd = d >= pad ? vt->dims[d - pad] : 1;
    stride[d] = vd == 1 ? 0 : vs[d - pad];
  }
}

/* The iteration dims (size-1 dims dropped) collapse into groups, each all broadcast or one
 * evenly strided run in memory; a plain source has at most one group of each kind in a row. */
static void plan_indexing(ew_kernel *K, ew_source *s) {
  const tensor_type *it = &K->k->iter;
  int64_t stride[TOSAC_MAX_RANK];
  dim_strides(K, s, stride);
  s->ngroups = 0;
  for (int d = 0; d < it->rank; d++) {
    int64_t id = it->dims[d];
    if (id == 1)
      continue;
    bool bc = stride[d] == 0;
    int last = s->ngroups - 1;
    if (last >= 0 && s->gbcast[last] == bc && (bc || s->gstride[last] == stride[d] * id)) {
      s->gsize[last] *= id;
      s->gstride[last] = stride[d];
    } else {
      s->gsize[s->ngroups] = id;
      s->gbcast[s->ngroups] = bc;
      s->gstride[s->ngroups] = stride[d];
      s->ngroups++;
    }
  }
  int64_t inner = 1;
  bool any_full = false, any_bcast = false;
  for (int gi = s->ngroups - 1; gi >= 0; gi--) {
    s->ginner[gi] = inner;
    inner *= s->gsize[gi];
    any_full |= !s->gbcast[gi];
    any_bcast |= s->gbcast[gi];
  }
  s->full = !any_bcast && (s->ngroups == 0 || (s->ngroups == 1 && s->gstride[0] == 1));
  s->uniform = !any_full;
  int last = s->ngroups - 1;
  bool inner_multiple = last >= 0 && s->gsize[last] % K->vw == 0;
  s->vec_contig = s->full || (inner_multiple && !s->gbcast[last] && s->gstride[last] == 1);
  s->vec_same = s->uniform || (inner_multiple && s->gbcast[last]);
}

/* Element offset of source s for linear iteration index idx. */
static LLVMValueRef source_offset(ew_kernel *K, ew_source *s, LLVMValueRef idx) {
  LLVMBuilderRef b = K->cb->b;
  if (s->full)
    return idx;
  LLVMValueRef off = idx_const(K, 0);
  for (int gi = 0; gi < s->ngroups; gi++) {
    if (s->gbcast[gi])
      continue;
    LLVMValueRef c = idx;
    if (s->ginner[gi] != 1)
      c = LLVMBuildUDiv(b, c, idx_const(K, s->ginner[gi]), "");
    if (gi != 0) /* the outermost group needs no modulo: idx < n */
      c = LLVMBuildURem(b, c, idx_const(K, s->gsize[gi]), "");
    if (s->gstride[gi] != 1)
      c = LLVMBuildMul(b, c, idx_const(K, s->gstride[gi]), "");
    off = LLVMBuildAdd(b, off, c, "");
  }
  return off;
}

/* Memory value -> register value (bytes holding 0/1 become i1). */
static LLVMValueRef from_mem(ew_kernel *K, ew_source *s, LLVMValueRef v) {
  if (s->et != ET_I1)
    return v;
  return LLVMBuildICmp(K->cb->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
}

static LLVMValueRef load_scalar(ew_kernel *K, ew_source *s, LLVMValueRef off) {
  if (!s->ptr)
    return s->splat;
  LLVMBuilderRef b = K->cb->b;
  LLVMValueRef p = LLVMBuildInBoundsGEP2(b, s->mem_t, s->ptr, &off, 1, "");
  return from_mem(K, s, cg_load(K->cb, s->mem_t, p, (unsigned)elem_type_bytes(s->et)));
}

static bool add_constant_source(ew_kernel *K, ew_source *s) {
  cg_builder *cb = K->cb;
  const dense_data *d = cg_const_data(s->v);
  if (!d) {
    diag_error_noloc(cb->diag, "kernel '%s': value %%%s is neither an input nor computed", K->k->name,
                     VALUE_NAME(s->v));
    return false;
  }
  int64_t numel = tensor_numel(s->v->type);
  int nb = elem_type_bytes(s->et);
  if (d->splat || numel == 1) {
    if (elem_type_is_f8(s->et) && d->nbytes >= 1) { /* an 8-bit float is its code */
      s->splat = LLVMConstInt(cb->i8, d->bytes[0], 0);
    } else if (elem_type_is_float(s->et)) {
      double f = 0;
      cg_dense_float(d, 0, &f);
      s->splat = cg_const_float(cb, s->et, f);
    } else {
      int64_t i = 0;
      cg_dense_int(d, 0, &i);
      s->splat = LLVMConstInt(cg_elem_type(cb, s->et), (unsigned long long)i, 1);
    }
    s->uniform = true;
    return true;
  }
  if (d->nbytes < (size_t)(numel * nb)) {
    diag_error_noloc(cb->diag, "kernel '%s': constant %%%s holds %zu bytes, expected %lld", K->k->name,
                     VALUE_NAME(s->v), d->nbytes, (long long)(numel * nb));
    return false;
  }
  LLVMValueRef init = LLVMConstDataArray(s->mem_t, (const char *)d->bytes, (size_t)(numel * nb));
  char name[96];
  snprintf(name, sizeof name, "%s.const%d", K->k->name, s->v->id);
  LLVMValueRef g = cg_const_table(cb, name, init, EW_VECTOR_BYTES);
  s->ptr = g;
  return true;
}

static int data_operands(const op *o) {
  switch (o->kind) {
  case OP_MUL: return 2;    /* third operand: the shift, read at compile time */
  case OP_NEGATE: return 1; /* zero points, read at compile time */
  case OP_TABLE: return 1;  /* the table: passed as a pointer, indexed by the op itself */
  case OP_RESCALE: return 1; /* TOSA 1.0 parameter operands, if still present, are attributes */
  default: return o->noperands;
  }
}

static ew_source *new_source(ew_kernel *K, const value *v) {
  ew_source *s = &K->src[K->nsrc];
  memset(s, 0, sizeof *s);
  s->v = v;
  s->et = v->type->elem;
  s->mem_t = cg_mem_type(K->cb, s->et);
  K->src_of[slot(K, v)] = K->nsrc++;
  return s;
}

/* Every transpose of the kernel becomes a source of its own, keyed by its result: the buffer
 * of its input (a kernel input: fusion never puts a transpose with its producer) read
 * through permuted strides. An input that only transposes read is never loaded directly. */
static bool index_map_sources(ew_kernel *K) {
  const part_kernel *k = K->k;
  bool *direct = calloc((size_t)K->nslots + 1, sizeof(bool));
  for (int oi = 0; oi < k->nops; oi++) {
    const op *o = k->ops[oi];
    if (op_table[o->kind].family != FAM_CONST && o->kind != OP_TRANSPOSE)
      for (int a = 0; a < o->noperands; a++)
        direct[slot(K, o->operands[a])] = true;
  }
  for (int i = 0; i < k->nout; i++)
    direct[slot(K, k->out_vals[i])] = true;
  bool ok = true;
  for (int oi = 0; oi < k->nops && ok; oi++) {
    const op *t = k->ops[oi];
    if (t->kind != OP_TRANSPOSE)
      continue;
    int si = K->src_of[slot(K, t->operands[0])];
    if (si < 0 || !K->src[si].ptr || t->operands[0]->type->rank != t->results[0]->type->rank) {
      diag_error(K->cb->diag, t->loc, "kernel '%s': tosa.transpose is fused but its input is not a kernel input",
                 k->name);
      ok = false;
      break;
    }
    K->src[si].unused = !direct[slot(K, t->operands[0])];
    LLVMValueRef ptr = K->src[si].ptr;
    ew_source *s = new_source(K, t->results[0]);
    s->ptr = ptr;
    s->perm = t;
  }
  free(direct);
  return ok;
}

/* ---------------------------------------------------------------- per-element evaluation */

typedef enum { AT_CHUNK, AT_INDEX } ew_mode;

static LLVMValueRef source_element(ew_kernel *K, ew_source *s, ew_mode mode, int j, LLVMValueRef idx) {
  LLVMBuilderRef b = K->cb->b;
  if (!s->ptr)
    return s->splat;
  if (mode == AT_CHUNK && s->vec_same)
    return s->chunk;
  if (mode == AT_CHUNK && s->vec_contig && K->vw > 1)
    return LLVMBuildExtractElement(b, s->chunk, LLVMConstInt(K->cb->i32, (unsigned)j, 0), "");
  if (mode == AT_CHUNK)
    idx = LLVMBuildAdd(b, idx, idx_const(K, j), "");
  return load_scalar(K, s, s->uniform ? idx_const(K, 0) : source_offset(K, s, idx));
}

/* Pointer to the elements of a tosa.table operand: its buffer argument, or the constant as an
 * internal global (a splat table is expanded). NULL after a diagnostic. */
static LLVMValueRef table_pointer(ew_kernel *K, const value *v) {
  cg_builder *cb = K->cb;
  int sv = slot(K, v);
  if (K->table[sv])
    return K->table[sv];
  int si = K->src_of[sv];
  if (si >= 0 && K->src[si].ptr && !LLVMIsAGlobalVariable(K->src[si].ptr))
    return K->table[sv] = K->src[si].ptr;
  const dense_data *d = cg_const_data(v);
  int64_t numel = tensor_numel(v->type);
  int nb = elem_type_bytes(v->type->elem);
  if (!d || (!d->splat && d->nbytes < (size_t)(numel * nb)) || (d->splat && d->nbytes < (size_t)nb)) {
    diag_error_noloc(cb->diag, "kernel '%s': the table %%%s is neither an input nor a constant", K->k->name,
                     VALUE_NAME(v));
    cb->failed = true;
    return NULL;
  }
  char *bytes = malloc((size_t)(numel * nb) + 1);
  for (int64_t i = 0; i < numel; i++)
    memcpy(bytes + i * nb, d->bytes + (d->splat ? 0 : i * nb), (size_t)nb);
  LLVMValueRef init = LLVMConstDataArray(cg_mem_type(cb, v->type->elem), bytes, (size_t)(numel * nb));
  free(bytes);
  char name[96];
  snprintf(name, sizeof name, "%s.table%d", K->k->name, v->id);
  LLVMValueRef g = cg_const_table(cb, name, init, EW_VECTOR_BYTES);
  return K->table[sv] = g;
}

/* Index along the last dimension of a per-channel rescale's result for linear iteration
 * index idx (the iteration space's last dim equals the result's unless that is 1). */
static LLVMValueRef rescale_channel(ew_kernel *K, const op *o, LLVMValueRef idx) {
  const tensor_type *t = o->results[0]->type;
  int64_t c = t->rank ? t->dims[t->rank - 1] : 1;
  if (c <= 1)
    return idx_const(K, 0);
  return LLVMBuildURem(K->cb->b, idx, idx_const(K, c), "chan");
}

/* Compute every op of the kernel for one element; results land in K->cur. */
static bool eval_element(ew_kernel *K, ew_mode mode, int j, LLVMValueRef idx) {
  memset(K->cur, 0, sizeof(LLVMValueRef) * (size_t)K->nslots);
  for (int oi = 0; oi < K->k->nops; oi++) {
    const op *o = K->k->ops[oi];
    if (op_table[o->kind].family == FAM_CONST || o->kind == OP_TRANSPOSE)
      continue; /* a transpose's result is a source (index_map_sources) */
    LLVMValueRef args[8];
    int na = data_operands(o);
    for (int a = 0; a < na && a < 8; a++) {
      int sv = slot(K, o->operands[a]);
      if (!K->cur[sv]) {
        if (K->src_of[sv] < 0)
          return false;
        K->cur[sv] = source_element(K, &K->src[K->src_of[sv]], mode, j, idx);
      }
      args[a] = K->cur[sv];
    }
    if (o->kind == OP_TABLE && o->noperands > 1 && !(args[1] = table_pointer(K, o->operands[1])))
      return false;
    if (o->kind == OP_RESCALE)
      args[1] = rescale_channel(K, o, mode == AT_CHUNK ? LLVMBuildAdd(K->cb->b, idx, idx_const(K, j), "") : idx);
    LLVMValueRef r = cg_ew_op(K->cb, o, args);
    if (!r)
      return false;
    K->cur[slot(K, o->results[0])] = r;
  }
  return true;
}

static LLVMValueRef output_value(ew_kernel *K, const value *v, ew_mode mode, int j, LLVMValueRef idx) {
  int sv = slot(K, v);
  if (K->cur[sv])
    return K->cur[sv];
  /* an output that is an input or a constant passed through */
  return source_element(K, &K->src[K->src_of[sv]], mode, j, idx);
}

static LLVMValueRef to_mem(ew_kernel *K, elem_type t, LLVMValueRef v) {
  return t == ET_I1 ? LLVMBuildZExt(K->cb->b, v, K->cb->i8, "") : v;
}

/* ---------------------------------------------------------------- the two paths */

static void emit_fast_path(ew_kernel *K, LLVMValueRef base) {
  cg_builder *cb = K->cb;
  LLVMBuilderRef b = cb->b;
  int vw = K->vw;
  for (int i = 0; i < K->nsrc; i++) {
    ew_source *s = &K->src[i];
    if (!s->ptr || s->unused)
      continue;
    if (s->vec_same) {
      s->chunk = load_scalar(K, s, s->uniform ? idx_const(K, 0) : source_offset(K, s, base));
    } else if (s->vec_contig && vw > 1) {
      LLVMValueRef off = source_offset(K, s, base);
      LLVMValueRef p = LLVMBuildInBoundsGEP2(b, s->mem_t, s->ptr, &off, 1, "");
      LLVMTypeRef vt = LLVMVectorType(s->mem_t, (unsigned)vw);
      s->chunk = cg_load(cb, vt, p, (unsigned)(vw * elem_type_bytes(s->et)));
      s->chunk = from_mem(K, s, s->chunk);
    }
  }
  int nout = K->k->nout;
  LLVMValueRef *acc = calloc((size_t)nout, sizeof(LLVMValueRef));
  for (int o = 0; o < nout; o++) {
    elem_type et = K->k->out_vals[o]->type->elem;
    acc[o] = vw > 1 ? LLVMGetUndef(LLVMVectorType(cg_mem_type(cb, et), (unsigned)vw)) : NULL;
  }
  for (int j = 0; j < vw && !cb->failed; j++) {
    if (!eval_element(K, AT_CHUNK, j, base))
      break;
    for (int o = 0; o < nout; o++) {
      const value *v = K->k->out_vals[o];
      LLVMValueRef x = to_mem(K, v->type->elem, output_value(K, v, AT_CHUNK, j, base));
      acc[o] = vw > 1 ? LLVMBuildInsertElement(b, acc[o], x, LLVMConstInt(cb->i32, (unsigned)j, 0), "")
                      : x;
    }
  }
  for (int o = 0; o < nout && !cb->failed; o++) {
    elem_type et = K->k->out_vals[o]->type->elem;
    LLVMTypeRef mt = cg_mem_type(cb, et);
    LLVMValueRef p = LLVMBuildInBoundsGEP2(b, mt, LLVMGetParam(cb->fn, (unsigned)(K->k->nin + o)),
                                           &base, 1, "");
    cg_store(cb, acc[o], p, (unsigned)(vw * elem_type_bytes(et)));
  }
  free(acc);
}

/* Elements base .. min(base+vw, n)-1 one at a time (the last, partial chunk). */
static void emit_tail(ew_kernel *K, LLVMValueRef base, LLVMBasicBlockRef exit) {
  cg_builder *cb = K->cb;
  LLVMBuilderRef b = cb->b;
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "tail");
  LLVMBuildBr(b, body);
  LLVMPositionBuilderAtEnd(b, body);
  LLVMValueRef j = LLVMBuildPhi(b, K->it, "j");
  LLVMValueRef idx = LLVMBuildAdd(b, base, j, "");
  if (!eval_element(K, AT_INDEX, 0, idx))
    return;
  for (int o = 0; o < K->k->nout; o++) {
    const value *v = K->k->out_vals[o];
    LLVMTypeRef mt = cg_mem_type(cb, v->type->elem);
    LLVMValueRef x = to_mem(K, v->type->elem, output_value(K, v, AT_INDEX, 0, idx));
    LLVMValueRef p = LLVMBuildInBoundsGEP2(b, mt, LLVMGetParam(cb->fn, (unsigned)(K->k->nin + o)),
                                           &idx, 1, "");
    cg_store(cb, x, p, (unsigned)elem_type_bytes(v->type->elem));
  }
  LLVMValueRef next = LLVMBuildAdd(b, j, idx_const(K, 1), "");
  LLVMValueRef more = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntULT, next, idx_const(K, K->vw), ""),
                                   LLVMBuildICmp(b, LLVMIntULT, LLVMBuildAdd(b, base, next, ""),
                                                 idx_const(K, K->n), ""),
                                   "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
  LLVMBuildCondBr(b, more, body, exit);
  LLVMValueRef in_v[2] = {idx_const(K, 0), next};
  LLVMBasicBlockRef in_b[2] = {pre, latch};
  LLVMAddIncoming(j, in_v, in_b, 2);
}

/* ---------------------------------------------------------------- entry */

static int choose_vector_width(ew_kernel *K) {
  int maxb = 1;
  for (int i = 0; i < K->nsrc; i++)
    if (K->src[i].ptr || !K->src[i].splat)
      maxb = elem_type_bytes(K->src[i].et) > maxb ? elem_type_bytes(K->src[i].et) : maxb;
  for (int o = 0; o < K->k->nout; o++)
    maxb = elem_type_bytes(K->k->out_vals[o]->type->elem) > maxb ? elem_type_bytes(K->k->out_vals[o]->type->elem)
                                                                : maxb;
  return maxb >= EW_VECTOR_BYTES ? 1 : EW_VECTOR_BYTES / maxb;
}

static bool check_types(ew_kernel *K) {
  for (int oi = 0; oi < K->k->nops; oi++) {
    const op *o = K->k->ops[oi];
    for (int r = 0; r < o->nresults; r++) {
      elem_type t = o->results[r]->type->elem;
      /* 8-bit floats: codes (i8) produced by casts and constants, read only by casts */
      bool f8 = elem_type_is_f8(t) && (o->kind == OP_CAST || op_table[o->kind].family == FAM_CONST);
      if (o->kind != OP_CONST_SHAPE && !f8 && !cg_elem_type(K->cb, t)) {
        diag_error(K->cb->diag, o->loc, "%s: element type %s is not supported by the code generator",
                   op_table[o->kind].name, elem_type_name(t));
        return false;
      }
    }
  }
  return true;
}

bool cg_emit_elementwise(cg_builder *cb, const graph *g, const partition_plan *p,
                         const part_kernel *k, cg_kernel_info *info) {
  (void)p;
  ew_kernel K = {.cb = cb, .g = g, .k = k};
  K.n = tensor_numel(&k->iter);
  if (!check_types(&K))
    return false;
  number_values(&K);
  int nv = K.nslots;
  K.src = calloc((size_t)(k->nin + k->nops * 3 + k->nout + 1), sizeof(ew_source));
  K.src_of = malloc(sizeof(int) * (size_t)(nv + 1));
  K.computed = calloc((size_t)nv + 1, sizeof(bool));
  K.cur = calloc((size_t)nv + 1, sizeof(LLVMValueRef));
  K.table = calloc((size_t)nv + 1, sizeof(LLVMValueRef));
  for (int i = 0; i < nv; i++)
    K.src_of[i] = -1;
  bool ok = false;
  int nargs = k->nin + k->nout;
  const char **access = calloc((size_t)nargs + 1, sizeof(char *));
  for (int i = 0; i < nargs; i++)
    access[i] = i < k->nin ? "read_only" : "write_only";
  cg_kernel_begin(cb, k->name, nargs, access, EW_BLOCK);

  /* sources: the input buffers, then every constant an op reads as data */
  for (int i = 0; i < k->nin; i++) {
    ew_source *s = new_source(&K, k->in_vals[i]);
    s->ptr = LLVMGetParam(cb->fn, (unsigned)i);
  }
  for (int oi = 0; oi < k->nops; oi++)
    if (op_table[k->ops[oi]->kind].family != FAM_CONST && k->ops[oi]->kind != OP_TRANSPOSE)
      for (int r = 0; r < k->ops[oi]->nresults; r++)
        K.computed[slot(&K, k->ops[oi]->results[r])] = true;
  if (!index_map_sources(&K))
    goto done;
  for (int oi = 0; oi < k->nops; oi++) {
    const op *o = k->ops[oi];
    if (op_table[o->kind].family == FAM_CONST || o->kind == OP_TRANSPOSE)
      continue;
    for (int a = 0; a < data_operands(o); a++) {
      const value *v = o->operands[a];
      if (K.computed[slot(&K, v)] || K.src_of[slot(&K, v)] >= 0)
        continue;
      if (!add_constant_source(&K, new_source(&K, v)))
        goto done;
    }
  }
  for (int o = 0; o < k->nout; o++) {
    const value *v = k->out_vals[o];
    if (!K.computed[slot(&K, v)] && K.src_of[slot(&K, v)] < 0 && !add_constant_source(&K, new_source(&K, v)))
      goto done;
  }
  K.vw = choose_vector_width(&K);
  int64_t items = (K.n + K.vw - 1) / K.vw;
  int64_t groups = (items + EW_BLOCK - 1) / EW_BLOCK;
  K.it = (groups + 1) * EW_BLOCK * K.vw < ((int64_t)1 << 31) ? cb->i32 : cb->i64;
  for (int i = 0; i < K.nsrc; i++)
    if ((K.src[i].ptr || !K.src[i].splat) && !K.src[i].unused)
      plan_indexing(&K, &K.src[i]);

  LLVMBuilderRef b = cb->b;
  LLVMValueRef tid = cg_thread_id_x(cb), gid = cg_group_id_x(cb);
  if (!tid || !gid)
    goto done;
  tid = LLVMBuildZExt(b, tid, K.it, "");
  gid = LLVMBuildZExt(b, gid, K.it, "");
  LLVMValueRef item = LLVMBuildAdd(b, LLVMBuildMul(b, gid, idx_const(&K, EW_BLOCK), ""), tid, "");
  LLVMValueRef base = LLVMBuildMul(b, item, idx_const(&K, K.vw), "base");
  LLVMBasicBlockRef fast = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "full_chunk");
  LLVMBasicBlockRef check = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "partial_check");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "exit");
  LLVMValueRef whole = LLVMBuildICmp(b, LLVMIntULE, LLVMBuildAdd(b, base, idx_const(&K, K.vw), ""),
                                     idx_const(&K, K.n), "");
  LLVMBuildCondBr(b, whole, fast, check);
  LLVMPositionBuilderAtEnd(b, fast);
  emit_fast_path(&K, base);
  if (cb->failed)
    goto done;
  LLVMBuildBr(b, exit);
  LLVMPositionBuilderAtEnd(b, check);
  LLVMBasicBlockRef tail_entry = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "partial");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, base, idx_const(&K, K.n), ""), tail_entry, exit);
  LLVMPositionBuilderAtEnd(b, tail_entry);
  emit_tail(&K, base, exit);
  if (cb->failed)
    goto done;
  LLVMPositionBuilderAtEnd(b, exit);
  LLVMBuildRetVoid(b);

  cg_launch_1d(info, k, EW_BLOCK, groups, items, K.vw, access);
  ok = true;
done:
  if (!ok && !cb->failed && K.cb->diag->errors == 0)
    diag_error_noloc(cb->diag, "kernel '%s': internal error generating the elementwise body", k->name);
  if (!ok)
    cb->failed = true;
  free(access);
  free(K.src);
  free(K.src_of);
  free(K.computed);
  free(K.cur);
  free(K.table);
  free(K.slot_id);
  free(K.slot_at);
  return ok;
}
