/* expand.c: 1:many expansion, chosen per target: large reductions become fill + atomic partial
 * reduction where the target has the atomic, else partial reduction into a workspace + combine;
 * GEMMs whose tiles cannot fill the GPU become split-K GEMM + combine (splitk.c); a strided
 * transpose_conv2d becomes one GEMM kernel per output phase (+ a zero fill when some phase has
 * no tap) where the estimate prefers that to one kernel over its phases. With --init=kernel
 * every fill node then becomes an init kernel. */
#include "partition.h"

#include <stdlib.h>
#include <string.h>

typedef enum { EX_NONE, EX_ATOMIC, EX_PARTIAL, EX_SPLITK, EX_FIXUP, EX_SPLITKV, EX_KVFIXUP, EX_IM2COL, EX_PHASES } expansion;

/* Per thread: each libtosac compile sets it before part_plan on its own thread. */
static _Thread_local part_init_mode init_mode = PART_INIT_MEMSET;
void part_set_init_mode(part_init_mode m) { init_mode = m; }
static _Thread_local bool workspace_expansions = true;
void part_set_workspace_expansions(bool on) { workspace_expansions = on; }

/* Is v a constant whose bytes are all zero? */
static bool const_zero(const value *v) {
  const attr *a = v->def && op_table[v->def->kind].family == FAM_CONST ? op_attr(v->def, "values") : NULL;
  if (!a || a->kind != ATTR_DENSE || !a->dense)
    return false;
  for (size_t i = 0; i < a->dense->nbytes; i++)
    if (a->dense->bytes[i])
      return false;
  return true;
}

/* Per-phase kernels of a strided transpose_conv2d (cg_tune_phases): the phases with taps, and
 * *fill when some have none. Those pixels are zeros only when the kernel writes the
 * convolution itself with a zero bias (no epilogue): else one kernel over the phases stays. */
static int phase_kernels(const target_info *t, const part_kernel *k, uint64_t *empty, bool *fill) {
  int phases = cg_tune_phases(t, k->anchor, empty);
  *fill = *empty != 0;
  if (!phases)
    return 0;
  const value *out = k->nout == 1 ? k->out_vals[0] : NULL;
  bool written = out && (out == k->anchor->results[0] || (out->def && part_is_output_view(k, out->def)));
  bool bare = written && const_zero(k->anchor->operands[2]);
  if (*fill && !bare)
    return 0;
  return phases - __builtin_popcountll(*empty);
}

/* Tiles and split factors come from the tuning layer (codegen/tuning.c), which the emitters
 * use too. */
static expansion choose_any(const target_info *t, const part_kernel *k, int *split, uint64_t *empty, bool *fill) {
  *split = 0;
  if (k->family == KF_GEMM) {
    /* a tile GEMM's row-norm prologue holds all of K's rows: never split */
    bool plain = k->anchor && k->role == KR_PLAIN && !k->ngemm && !k->prologue_tile;
    /* a phase's zero fill would cover the whole concatenation (part_slot) */
    *split = plain && !k->slot.v ? phase_kernels(t, k, empty, fill) : 0;
    if (*split > 0)
      return EX_PHASES;
    /* im2col + GEMM (split: the padded K of its workspace matrix), else perhaps split-K */
    /* the im2col pass reads the input row-major: a kernel with operand views stays whole */
    *split = plain && !part_has_operand_views(k) && !part_has_output_view(k) ? (int)cg_tune_im2col(t, k->anchor) : 0;
    if (*split > 0)
      return EX_IM2COL;
    cg_splitk_form form = SPLITK_COMBINE;
    *split = plain ? cg_tune_splitk(t, k->anchor, &form) : 0;
    return *split < 2 ? EX_NONE : form == SPLITK_LASTWG ? EX_FIXUP : EX_SPLITK;
  }
  if (k->family == KF_ATTENTION) {
    *split = part_attention_split_choose(k, t);
    return *split < 2 ? EX_NONE : part_attention_split_lastwg(k, t, *split) ? EX_KVFIXUP : EX_SPLITKV;
  }
  if (k->family != KF_REDUCTION)
    return EX_NONE;
  switch (cg_tune_reduction(t, k->anchor, split)) {
  case CG_RED_ATOMIC: return EX_ATOMIC;
  case CG_RED_PARTIAL: return EX_PARTIAL;
  default: return EX_NONE;
  }
}

/* choose_any, without the forms that add workspace buffers when the caller passes none
 * (part_set_workspace_expansions). The last work-group's reductions need the zeroed region
 * besides; whether the client keeps one is the split choices' (cg_tuning_allow_fixup). */
static expansion choose(const target_info *t, const part_kernel *k, int *split, uint64_t *empty, bool *fill) {
  expansion e = choose_any(t, k, split, empty, fill);
  bool adds_workspace = e == EX_SPLITK || e == EX_FIXUP || e == EX_SPLITKV || e == EX_KVFIXUP ||
                        e == EX_IM2COL || e == EX_PARTIAL;
  return adds_workspace && !workspace_expansions ? EX_NONE : e;
}

/* The op's identity as a fill of the result type (sum 0, max INT32_MIN, min INT32_MAX). */
static void set_fill(launch_node *n, const op *o) {
  const char *nm = op_table[o->kind].name;
  elem_type et = o->results[0]->type->elem;
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
  k.iter.elem = f->fill_type != ET_INVALID ? f->fill_type : b->v->type->elem;
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
  int *count = arena_alloc(a, sizeof(int) * (size_t)(n + 1)); /* kernels replacing kernel i */
  uint64_t *empty = arena_alloc(a, sizeof(uint64_t) * (size_t)(n + 1));
  bool *fill = arena_alloc(a, sizeof(bool) * (size_t)(n + 1));
  int extra = 0;
  for (int i = 0; i < n; i++) {
    how[i] = choose(p->target->info, &p->kernels[i], &split[i], &empty[i], &fill[i]);
    count[i] = how[i] == EX_PHASES ? split[i]
               : how[i] == EX_PARTIAL || how[i] == EX_SPLITK || how[i] == EX_SPLITKV || how[i] == EX_IM2COL
                   ? 2
                   : 1;
    extra += count[i] - 1;
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
    if (how[i] == EX_PHASES) { /* one kernel per phase with taps, in phase order */
      for (int ph = 0; ph < 64; ph++) {
        if (m - first_new[i] == split[i])
          break;
        if (empty[i] >> ph & 1)
          continue;
        nk[m] = k;
        nk[m].role = KR_PHASE;
        nk[m].phase = ph;
        char suffix[24]; /* "_phase" and any int: -O1 cannot see ph < 64 */
        snprintf(suffix, sizeof suffix, "_phase%d", ph);
        renumber(&nk[m], m, suffix);
        m++;
      }
      continue;
    }
    if (how[i] == EX_SPLITKV) {
      part_attention_split_kernels(a, p, &bcap, &k, split[i], &nk[m], &nk[m + 1]);
      renumber(&nk[m], m, "_splitkv");
      renumber(&nk[m + 1], m + 1, "_combine");
      m += 2;
      continue;
    }
    if (how[i] == EX_KVFIXUP) {
      part_attention_fixup_kernel(a, p, &bcap, &k, split[i], &nk[m]);
      renumber(&nk[m], m, "_splitkv");
      m++;
      continue;
    }
    if (how[i] == EX_IM2COL) {
      part_im2col_kernels(a, p, &bcap, &k, split[i], &nk[m], &nk[m + 1]);
      renumber(&nk[m], m, "_im2col");
      renumber(&nk[m + 1], m + 1, "_cols");
      m += 2;
      continue;
    }
    if (how[i] == EX_FIXUP) {
      int64_t tiles, ksteps, klen;
      if (!cg_gemm_shape(p->target->info, k.anchor, &k, &tiles, &ksteps, &klen))
        tiles = 1;
      part_splitk_fixup_kernel(a, p, &bcap, &k, split[i], tiles, &nk[m]);
      renumber(&nk[m], m, "_splitk");
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
    cg_reduction_dims(k.anchor, &outer, &r, &inner);
    value *pv = arena_alloc(a, sizeof *pv);
    pv->id = -1;
    pv->name = name_intern(a, arena_printf(a, "partials_k%d", i));
    tensor_type pt = {.rank = 2, .dims = {split[i], outer * inner}};
    pt.elem = elem_type_is_float(k.anchor->operands[0]->type->elem) ? ET_F32 : ET_I32;
    pv->type = type_intern(a, &pt);
    part_buffer wb = {.id = p->nbuffers, .kind = BUF_WORKSPACE, .v = pv, .index = -1,
                      .bytes = tensor_bytes(pv->type), .align = 256};
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
    int nwriters = how[old] == EX_ATOMIC ? 0 : count[old];
    for (int w = 0; w < nwriters; w++) /* a plain write ends an accumulation */
      for (int j = 0; j < k[w].nout; j++)
        inited[k[w].out_bufs[j]] = false;
    if (how[old] == EX_PHASES && fill[old]) { /* zeros where no phase kernel writes */
      launch_node f = {.id = nn, .kind = LAUNCH_FILL, .kernel = -1, .src_buf = -1,
                       .dst_buf = k->out_bufs[0], .fill_offset = 0,
                       .fill_bytes = p->buffers[k->out_bufs[0]].bytes};
      set_fill(&f, k->anchor);
      ARENA_PUSH(a, nodes, nn, ncap, f);
    }
    if (how[old] == EX_ATOMIC && !inited[k->out_bufs[0]]) {
      inited[k->out_bufs[0]] = true;
      launch_node f = {.id = nn, .kind = LAUNCH_FILL, .kernel = -1, .src_buf = -1,
                       .dst_buf = k->out_bufs[0], .fill_offset = 0,
                       .fill_bytes = p->buffers[k->out_bufs[0]].bytes};
      set_fill(&f, k->anchor);
      ARENA_PUSH(a, nodes, nn, ncap, f);
    }
    for (int w = 0; w < count[old]; w++) { /* the combine right after its partial */
      o.id = nn;
      o.kernel = first_new[old] + w;
      ARENA_PUSH(a, nodes, nn, ncap, o);
    }
  }
  p->kernels = nk;
  p->nkernels = m;
  p->nodes = nodes;
  p->nnodes = nn;
  return fills_to_kernels(a, p);
}
