/* expand.c: 1:many expansion, chosen per target: large reductions become fill + atomic partial
 * reduction where the target has the atomic, else partial reduction into a workspace + combine;
 * GEMMs whose tiles cannot fill the GPU become split-K GEMM + combine (splitk.c). With
 * --init=kernel every fill node then becomes an init kernel. */
#include "partition.h"

#include <stdlib.h>
#include <string.h>

#define RED_BLOCK 256
/* Reductions over fewer input elements never split: one launch is cheaper than two. */
#define RED_SPLIT_MIN_DEFAULT ((int64_t)1 << 20)
/* A chunk gives each work-item at least this many elements, so the extra launch pays off. */
#define RED_MIN_PER_ITEM 4

/* What the cost model needs to know about a target beyond target_info: compute units of the
 * largest product (AMDGPU.md 4.2) and whether global_atomic_add_f32 exists (checked with llc-22:
 * native on every listed target except gfx1030, which gets a compare-and-swap loop). */
static const struct {
  const char *name;
  int cus;
  bool f32_atomic_add;
} red_targets[] = {
    {"gfx908", 120, true},  {"gfx90a", 104, true},  {"gfx942", 304, true},
    {"gfx950", 256, true},  {"gfx1030", 80, false}, {"gfx1100", 96, true},
    {"gfx1200", 64, true},
};

static void target_facts(const target_info *t, int *cus, bool *f32_add) {
  *cus = 64, *f32_add = false;
  for (size_t i = 0; i < sizeof red_targets / sizeof red_targets[0]; i++)
    if (strcmp(red_targets[i].name, t->name) == 0)
      *cus = red_targets[i].cus, *f32_add = red_targets[i].f32_atomic_add;
}

void part_reduction_dims(const op *anchor, int64_t *outer, int64_t *r, int64_t *inner) {
  const tensor_type *t = &anchor->operands[0]->type;
  int axis = (int)op_attr_int(anchor, "axis", 0);
  if (axis < 0 || axis >= t->rank)
    axis = 0;
  *outer = 1, *r = t->rank ? t->dims[axis] : 1, *inner = 1;
  for (int d = 0; d < t->rank; d++) {
    if (d < axis)
      *outer *= t->dims[d];
    if (d > axis)
      *inner *= t->dims[d];
  }
}

typedef enum { EX_NONE, EX_ATOMIC, EX_PARTIAL, EX_SPLITK } expansion;

/* Per thread: each libtosac compile sets it before part_plan on its own thread. */
static _Thread_local part_init_mode init_mode = PART_INIT_MEMSET;
void part_set_init_mode(part_init_mode m) { init_mode = m; }

/* The atomic form needs a hardware read-modify-write in the result's own type: integer add /
 * max / min on i32 everywhere, float add on f32 only where it is native. */
static bool atomic_capable(const op *o, bool f32_add) {
  const char *nm = op_table[o->kind].name;
  elem_type et = o->results[0]->type.elem;
  if (o->operands[0]->type.elem != et)
    return false;
  if (strcmp(nm, "tosa.reduce_sum") == 0)
    return et == ET_I32 || (et == ET_F32 && f32_add);
  if (strcmp(nm, "tosa.reduce_max") == 0 || strcmp(nm, "tosa.reduce_min") == 0)
    return et == ET_I32;
  return false;
}

static int64_t split_min(void) {
  const char *e = getenv("TOSAC_REDUCTION_SPLIT_MIN");
  if (e && *e) {
    char *end;
    long long v = strtoll(e, &end, 10);
    if (*end == 0 && v > 0)
      return v;
  }
  return RED_SPLIT_MIN_DEFAULT;
}

/* Cost model: a plain kernel launches one work-group per (outer, column tile). When that leaves
 * most compute units idle and there is enough work, split the reduced axis into chunks so that
 * about two work-groups per CU run. argmax (value + index) is never split. */
static expansion choose(const target_info *t, const part_kernel *k, int *split) {
  const op *o = k->anchor;
  if (k->family == KF_GEMM) {
    int cus;
    bool f32_add;
    target_facts(t, &cus, &f32_add);
    *split = part_splitk_choose(t, k, cus);
    return *split >= 2 ? EX_SPLITK : EX_NONE;
  }
  if (k->family != KF_REDUCTION || !o || strcmp(op_table[o->kind].name, "tosa.argmax") == 0)
    return EX_NONE;
  int64_t outer, r, inner;
  part_reduction_dims(o, &outer, &r, &inner);
  int tx, ty;
  cg_reduction_tile(r, inner, &tx, &ty);
  int cus;
  bool f32_add;
  target_facts(t, &cus, &f32_add);
  int64_t groups = outer * ((inner + tx - 1) / tx);
  if (outer * r * inner < split_min() || groups >= cus)
    return EX_NONE;
  int64_t s = (2 * cus + groups - 1) / groups;
  int64_t most = (r + (int64_t)ty * RED_MIN_PER_ITEM - 1) / ((int64_t)ty * RED_MIN_PER_ITEM);
  if (s > most)
    s = most;
  if (s < 2)
    return EX_NONE;
  *split = (int)s;
  return atomic_capable(o, f32_add) ? EX_ATOMIC : EX_PARTIAL;
}

/* The op's identity as a fill of the result type (sum 0, max INT32_MIN, min INT32_MAX). */
static void set_fill(launch_node *n, const op *o) {
  const char *nm = op_table[o->kind].name;
  elem_type et = o->results[0]->type.elem;
  n->fill_type = et;
  n->fill_value = 0;
  n->fill_bits = 0;
  if (et == ET_I32 && strcmp(nm, "tosa.reduce_max") == 0)
    n->fill_value = -2147483648.0, n->fill_bits = 0x80000000u;
  if (et == ET_I32 && strcmp(nm, "tosa.reduce_min") == 0)
    n->fill_value = 2147483647.0, n->fill_bits = 0x7fffffffu;
}

/* "tosac_k<old>_rest" -> "tosac_k<new>_rest<suffix>"; rest is shortened, never the suffix,
 * so the names stay distinct. */
static void renumber(part_kernel *k, int id, const char *suffix) {
  const char *rest = "";
  if (strncmp(k->name, "tosac_k", 7) == 0) {
    rest = k->name + 7;
    while (*rest >= '0' && *rest <= '9')
      rest++;
  }
  char head[24];
  int hn = snprintf(head, sizeof head, "tosac_k%d", id);
  int room = (int)sizeof k->name - 1 - hn - (int)strlen(suffix);
  int rn = (int)strlen(rest);
  if (rn > room)
    rn = room > 0 ? room : 0;
  char nm[sizeof k->name];
  memcpy(nm, head, (size_t)hn);
  memmove(nm + hn, rest, (size_t)rn); /* rest points into k->name */
  snprintf(nm + hn + rn, sizeof nm - (size_t)(hn + rn), "%s", suffix);
  memcpy(k->name, nm, sizeof nm);
  k->id = id;
}

/* The init kernel replacing fill node f (position at): the same pattern over the same bytes.
 * Its op is the one whose output it initialises (the first later kernel writing the buffer),
 * which also keeps deduplication sound: the pattern follows from that op and its types. */
static part_kernel init_kernel(arena *a, const partition_plan *p, const launch_node *f, int at) {
  const part_buffer *b = &p->buffers[f->dst_buf];
  part_kernel k = {0};
  k.family = KF_FILL;
  k.iter.elem = f->fill_type != ET_INVALID ? f->fill_type : b->v->type.elem;
  k.iter.rank = 1;
  int64_t bytes = f->fill_bytes > 0 ? f->fill_bytes : b->bytes - f->fill_offset;
  k.iter.dims[0] = bytes / elem_type_bytes(k.iter.elem);
  k.fill_offset = f->fill_offset;
  k.fill_bits = f->fill_bits;
  k.out_bufs = arena_alloc(a, sizeof(int));
  k.out_vals = arena_alloc(a, sizeof(value *));
  k.out_bufs[0] = f->dst_buf;
  k.out_vals[0] = b->v;
  k.nout = 1;
  k.ops = arena_alloc(a, sizeof(op *));
  for (int j = at + 1; j < p->nnodes && !k.nops; j++) {
    const launch_node *n = &p->nodes[j];
    const part_kernel *w = n->kind == LAUNCH_KERNEL ? &p->kernels[n->kernel] : NULL;
    for (int o = 0; w && o < w->nout && !k.nops; o++)
      if (w->out_bufs[o] == f->dst_buf && w->nops)
        k.ops[k.nops++] = w->anchor ? w->anchor : w->ops[0];
  }
  const char *nm = k.nops ? op_table[k.ops[0]->kind].name : "fill";
  const char *dot = strchr(nm, '.');
  snprintf(k.name, sizeof k.name, "tosac_k0_%s_init", dot ? dot + 1 : nm);
  return k;
}

/* --init=kernel: every fill node becomes the launch of an init kernel writing the same
 * pattern. Kernels are renumbered in launch order, so their names stay ordered. */
static bool fills_to_kernels(arena *a, partition_plan *p) {
  int nfill = 0;
  for (int i = 0; i < p->nnodes; i++)
    nfill += p->nodes[i].kind == LAUNCH_FILL;
  if (init_mode != PART_INIT_KERNEL || nfill == 0)
    return true;
  part_kernel *nk = arena_alloc(a, sizeof(part_kernel) * (size_t)(p->nkernels + nfill + 1));
  int m = 0;
  for (int i = 0; i < p->nnodes; i++) {
    launch_node *n = &p->nodes[i];
    if (n->kind == LAUNCH_KERNEL) {
      nk[m] = p->kernels[n->kernel];
      n->kernel = m;
    } else if (n->kind == LAUNCH_FILL) {
      nk[m] = init_kernel(a, p, n, i);
      *n = (launch_node){.id = n->id, .kind = LAUNCH_KERNEL, .kernel = m, .src_buf = -1, .dst_buf = -1};
    } else {
      continue;
    }
    renumber(&nk[m], m, "");
    m++;
  }
  p->kernels = nk;
  p->nkernels = m;
  return true;
}

bool part_expand(arena *a, const graph *g, partition_plan *p, diag_sink *d) {
  (void)g, (void)d;
  int n = p->nkernels;
  expansion *how = arena_alloc(a, sizeof(expansion) * (size_t)(n + 1));
  int *split = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
  int extra = 0;
  for (int i = 0; i < n; i++) {
    how[i] = choose(p->target->info, &p->kernels[i], &split[i]);
    extra += how[i] == EX_PARTIAL || how[i] == EX_SPLITK;
  }
  if (extra == 0) {
    bool any = false;
    for (int i = 0; i < n; i++)
      any |= how[i] != EX_NONE;
    if (!any)
      return fills_to_kernels(a, p);
  }
  /* New kernel list: a partial kernel is followed by its combine kernel. */
  part_kernel *nk = arena_alloc(a, sizeof(part_kernel) * (size_t)(n + extra + 1));
  int *first_new = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
  int m = 0, bcap = p->nbuffers;
  for (int i = 0; i < n; i++) {
    part_kernel k = p->kernels[i];
    first_new[i] = m;
    if (how[i] == EX_NONE) {
      nk[m] = k;
      renumber(&nk[m], m, "");
      m++;
      continue;
    }
    if (how[i] == EX_ATOMIC) {
      nk[m] = k;
      nk[m].role = KR_ATOMIC;
      nk[m].split_count = split[i];
      renumber(&nk[m], m, "_atomic");
      m++;
      continue;
    }
    if (how[i] == EX_SPLITK) {
      part_splitk_kernels(a, p, &bcap, &k, split[i], &nk[m], &nk[m + 1]);
      renumber(&nk[m], m, "_splitk");
      renumber(&nk[m + 1], m + 1, "_combine");
      m += 2;
      continue;
    }
    /* The workspace holds [split, outer*inner] partials in the accumulator type. */
    int64_t outer, r, inner;
    part_reduction_dims(k.anchor, &outer, &r, &inner);
    value *pv = arena_alloc(a, sizeof *pv);
    pv->id = -1;
    pv->arg_index = -1;
    pv->name = arena_printf(a, "partials_k%d", i);
    pv->type.rank = 2;
    pv->type.dims[0] = split[i];
    pv->type.dims[1] = outer * inner;
    pv->type.elem = elem_type_is_float(k.anchor->operands[0]->type.elem) ? ET_F32 : ET_I32;
    part_buffer wb = {.id = p->nbuffers, .kind = BUF_WORKSPACE, .v = pv, .index = -1,
                      .bytes = tensor_bytes(&pv->type), .align = 256};
    ARENA_PUSH(a, p->buffers, p->nbuffers, bcap, wb);
    const value **pvals = arena_alloc(a, sizeof(value *));
    int *pbuf = arena_alloc(a, sizeof(int));
    pvals[0] = pv;
    pbuf[0] = wb.id;
    part_kernel part = k, comb = k;
    part.role = KR_PARTIAL;
    part.split_count = split[i];
    part.out_bufs = pbuf, part.out_vals = pvals, part.nout = 1;
    comb.role = KR_COMBINE;
    comb.split_count = split[i];
    comb.in_bufs = pbuf, comb.in_vals = pvals, comb.nin = 1;
    nk[m] = part;
    renumber(&nk[m], m, "_partial");
    m++;
    nk[m] = comb;
    renumber(&nk[m], m, "_combine");
    m++;
  }
  /* New launch list in the same order: a fill before each atomic kernel (the output's only
   * initialisation), the combine right after its partial. Edges come later from buffers. */
  int ncap = 0, nn = 0;
  launch_node *nodes = NULL;
  /* inited[b]: b was filled and only accumulating kernels wrote it since, so a further
   * accumulator into b needs no second fill (initialised exactly once, before the first) */
  bool *inited = arena_alloc(a, sizeof(bool) * (size_t)(p->nbuffers + 1));
  for (int i = 0; i < p->nnodes; i++) {
    launch_node o = p->nodes[i];
    o.deps = NULL, o.ndeps = 0;
    if (o.kind != LAUNCH_KERNEL) {
      if (o.dst_buf >= 0)
        inited[o.dst_buf] = false;
      o.id = nn;
      ARENA_PUSH(a, nodes, nn, ncap, o);
      continue;
    }
    int old = o.kernel;
    const part_kernel *k = &nk[first_new[old]];
    int nwriters = how[old] == EX_ATOMIC ? 0 : how[old] == EX_NONE ? 1 : 2;
    for (int w = 0; w < nwriters; w++) /* a plain write ends an accumulation */
      for (int j = 0; j < k[w].nout; j++)
        inited[k[w].out_bufs[j]] = false;
    if (how[old] == EX_ATOMIC && !inited[k->out_bufs[0]]) {
      inited[k->out_bufs[0]] = true;
      launch_node f = {.id = nn, .kind = LAUNCH_FILL, .kernel = -1, .src_buf = -1,
                       .dst_buf = k->out_bufs[0], .fill_offset = 0,
                       .fill_bytes = p->buffers[k->out_bufs[0]].bytes};
      set_fill(&f, k->anchor);
      ARENA_PUSH(a, nodes, nn, ncap, f);
    }
    o.id = nn;
    o.kernel = first_new[old];
    ARENA_PUSH(a, nodes, nn, ncap, o);
    if (how[old] == EX_PARTIAL || how[old] == EX_SPLITK) {
      o.id = nn;
      o.kernel = first_new[old] + 1;
      ARENA_PUSH(a, nodes, nn, ncap, o);
    }
  }
  p->kernels = nk;
  p->nkernels = m;
  p->nodes = nodes;
  p->nnodes = nn;
  return fills_to_kernels(a, p);
}
