/* group.c: horizontal fusion of GEMMs that read the same A operand: the Q, K and V projections
 * of attention become one grouped GEMM kernel whose grid covers every GEMM, each with its own
 * B (a constant, an argument or an earlier kernel's value), epilogue and outputs (docs/partitioning.md, "Grouped GEMMs"); two GEMMs whose
 * results one epilogue combines (GPT's silu(gate) * up) become one dual-B GEMM, each tile
 * multiplying A by both B operands ("Dual-B GEMMs"). TOSAC_NO_GEMM_GROUPING=1 (or
 * TOSAC_NO_FUSION=1) merges nothing, TOSAC_DUAL_GEMM=0 no dual-B GEMM. */
#include "partition.h"

#include <stdlib.h>
#include <string.h>

bool part_gemm_grouping_disabled(void) {
  const char *e = getenv("TOSAC_NO_GEMM_GROUPING");
  return (e && *e && strcmp(e, "0") != 0) || part_fusion_disabled();
}

/* TOSAC_DUAL_GEMM: unset or empty = where the single GEMM takes the tile kernel, 0 = never,
 * 1 = also where it takes the skinny kernel (the dual-B tile kernel then replaces two skinny
 * ones: for the estimate's comparison). */
static int dual_gemm_switch(void) {
  const char *e = getenv("TOSAC_DUAL_GEMM");
  return !e || !*e ? -1 : strcmp(e, "0") != 0;
}

bool part_dual_gemm_disabled(void) { return dual_gemm_switch() == 0 || part_gemm_grouping_disabled(); }

static bool is_const_value(const value *v) {
  v = part_view_root(v);
  return v->def && op_table[v->def->kind].family == FAM_CONST;
}

/* The matmul of group grp when the group is a plain GEMM with an elementwise epilogue on it
 * only (every other op reads an op of the group, or of group `partner`, directly) whose outside
 * operands come from groups before `before` (or are arguments / constants); B is a constant
 * (any_b: or any value from before `before`); else NULL. *reads_partner: whether an op reads
 * group partner's (-1: none). */
static const op *pairable(const op *const *ops, int nops, const int *group_of, int grp, int before, int partner,
                          bool any_b, bool *reads_partner) {
  *reads_partner = false;
  const op *mm = NULL;
  for (int i = 0; i < nops; i++) {
    const op *o = ops[i];
    op_family f = op_table[o->kind].family;
    if (o->kind == OP_MATMUL && !mm)
      mm = o;
    else if (f != FAM_ELEMENTWISE)
      return NULL;
  }
  /* float only: integer GEMMs carry zero points, which the slices would have to share */
  if (!mm || mm->noperands < 2)
    return NULL;
  const op *bdef = part_view_root(mm->operands[1])->def;
  if (mm->operands[0]->type->rank != 3 ||
      !(is_const_value(mm->operands[1]) || (any_b && (!bdef || group_of[bdef->id] < before))) ||
      !elem_type_is_float(mm->operands[0]->type->elem) || elem_type_is_f8(mm->operands[0]->type->elem))
    return NULL;
  for (int i = 0; i < nops; i++) {
    const op *o = ops[i];
    if (o == mm)
      continue;
    bool inner = false;
    for (int j = 0; j < o->noperands; j++) {
      /* read directly (not through a view): codegen finds the epilogue by operand edges */
      const op *d = o->operands[j]->def;
      if (d && (group_of[d->id] == grp || (partner >= 0 && group_of[d->id] == partner))) {
        *reads_partner |= group_of[d->id] == partner;
        inner = true;
        continue;
      }
      d = part_view_root(o->operands[j])->def;
      if (d && group_of[d->id] >= before)
        return NULL;
    }
    if (!inner)
      return NULL;
  }
  return mm;
}

/* B is any value ready before `before` (a constant, an argument, an earlier group's value) */
static const op *groupable(const op *const *ops, int nops, const int *group_of, int grp, int before) {
  bool partner;
  return pairable(ops, nops, group_of, grp, before, -1, true, &partner);
}

/* The ops of each group in graph order: group grp's are ops[at[grp]] .. ops[at[grp + 1] - 1]
 * (one pass, so a million-op graph is not scanned once per group). */
static const op **ops_by_group(const graph *g, const int *group_of, int ngroups, int **at_out) {
  int *at = calloc((size_t)ngroups + 2, sizeof(int));
  const op **ops = malloc(sizeof(op *) * ((size_t)g->nops + 1));
  for (int i = 0; i < g->nops; i++)
    if (group_of[g->ops[i]->id] >= 0 && group_of[g->ops[i]->id] < ngroups)
      at[group_of[g->ops[i]->id] + 2]++;
  for (int grp = 0; grp < ngroups; grp++)
    at[grp + 2] += at[grp + 1];
  for (int i = 0; i < g->nops; i++) {
    int grp = group_of[g->ops[i]->id];
    if (grp >= 0 && grp < ngroups)
      ops[at[grp + 1]++] = g->ops[i];
  }
  *at_out = at;
  return ops;
}

/* Group grp becomes group into[grp] (an earlier one, or itself); the numbers are compacted in
 * launch order, grouped[] moves with them. Returns the new group count. */
static int relabel(const graph *g, int *group_of, int ngroups, const int *into, char *grouped) {
  int *num = malloc(sizeof(int) * ((size_t)ngroups + 1)), n = 0;
  for (int grp = 0; grp < ngroups; grp++)
    num[grp] = into[grp] == grp ? n++ : -1;
  char *kept = calloc((size_t)ngroups + 1, 1);
  for (int grp = 0; grp < ngroups; grp++)
    kept[num[into[grp]]] |= grouped[grp];
  for (int i = 0; i < g->nops; i++)
    if (group_of[g->ops[i]->id] >= 0)
      group_of[g->ops[i]->id] = num[into[group_of[g->ops[i]->id]]];
  memcpy(grouped, kept, (size_t)ngroups + 1);
  free(kept);
  free(num);
  return n;
}

/* GEMMs one grouped kernel holds at most (Q, K and V are three; a per-head form of attention
 * projects heads x 3 of the same input) */
#define GROUP_MAX_GEMMS 16

/* Merges groups in place (group_of relabelled, numbers compacted in launch order); returns
 * the new group count. grouped[grp] (sized by the old count) is set for the merged groups. */
int part_group_gemms(const graph *g, const target_info *t, int *group_of, int ngroups, char *grouped) {
  memset(grouped, 0, (size_t)ngroups + 1);
  if (part_gemm_grouping_disabled() || ngroups < 2)
    return ngroups;
  const op **mm = calloc((size_t)ngroups + 1, sizeof(op *));
  int *into = malloc(sizeof(int) * ((size_t)ngroups + 1));
  for (int grp = 0; grp < ngroups; grp++)
    into[grp] = grp;
  bool any = false;
  int *at;
  const op **members = ops_by_group(g, group_of, ngroups, &at);
  for (int grp = 0; grp < ngroups; grp++)
    mm[grp] = groupable(members + at[grp], at[grp + 1] - at[grp], group_of, grp, grp);
  /* each group's first joining reader: another group reading one of its values (through
   * views) and a value of a third group (attention reading K and V and the query; not a
   * transpose of the projection alone, which may run after the grouped kernel) */
  int *reader = malloc(sizeof(int) * ((size_t)ngroups + 1));
  int *other = malloc(sizeof(int) * ((size_t)ngroups + 1)); /* -1 none, -2 two or more */
  for (int grp = 0; grp < ngroups; grp++)
    reader[grp] = ngroups, other[grp] = -1;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < g->nops; i++) {
      int ug = group_of[g->ops[i]->id];
      for (int j = 0; ug >= 0 && ug < ngroups && j < g->ops[i]->noperands; j++) {
        const op *d = part_view_root(g->ops[i]->operands[j])->def;
        int dg = d ? group_of[d->id] : -1;
        if (dg < 0 || dg >= ngroups || dg == ug)
          continue;
        if (pass == 0)
          other[ug] = other[ug] == -1 || other[ug] == dg ? dg : -2;
        else if (other[ug] == -2 && ug < reader[dg])
          reader[dg] = ug;
      }
    }
  free(other);
  for (int first = 0; first < ngroups; first++) {
    if (!mm[first] || into[first] != first)
      continue;
    const value *a = part_view_root(mm[first]->operands[0]);
    int skinny = -1; /* cg_tune_gemm_skinny(t, mm[first]) once asked */
    /* only GEMMs before the first joining reader of a member: a GEMM further on (the next
     * layer's projections of the same input) would move its result up past that reader, live
     * longer in the workspace, and grow the kernel without bound */
    int bound = reader[first], n = 1;
    for (int j = first + 1; j < ngroups && j < bound && n < GROUP_MAX_GEMMS; j++) {
      if (into[j] != j || !mm[j] || part_view_root(mm[j]->operands[0]) != a ||
          !tensor_type_equal(mm[j]->operands[1]->type, mm[first]->operands[1]->type) ||
          !tensor_type_equal(mm[j]->results[0]->type, mm[first]->results[0]->type) ||
          !tensor_type_equal(mm[j]->operands[0]->type, mm[first]->operands[0]->type) ||
          !groupable(members + at[j], at[j + 1] - at[j], group_of, j, first))
        continue;
      /* a B that is no constant (an argument, an earlier kernel's value) only where the single
       * GEMM takes the tile kernel: skinny GEMMs (M <= 16) stay apart, each streaming its B at
       * the bandwidth (docs/partitioning.md, "Grouped GEMMs") */
      if (!is_const_value(mm[first]->operands[1]) || !is_const_value(mm[j]->operands[1])) {
        if (skinny < 0)
          skinny = cg_tune_gemm_skinny(t, mm[first]);
        if (skinny)
          continue;
      }
      into[j] = first, grouped[first] = GROUP_GEMMS, any = true, n++;
      bound = reader[j] < bound ? reader[j] : bound;
    }
  }
  if (any)
    ngroups = relabel(g, group_of, ngroups, into, grouped);
  free(reader);
  free(into);
  free(mm);
  free(members);
  free(at);
  return ngroups;
}

/* The same A value and the same A, B and result types: one tile loop serves both GEMMs. */
static bool same_problem(const op *x, const op *y) {
  return part_view_root(x->operands[0]) == part_view_root(y->operands[0]) &&
         tensor_type_equal(x->operands[0]->type, y->operands[0]->type) &&
         tensor_type_equal(x->operands[1]->type, y->operands[1]->type) &&
         tensor_type_equal(x->results[0]->type, y->results[0]->type);
}

int part_pair_gemms(const graph *g, const target_info *t, int *group_of, int ngroups, char *grouped) {
  if (part_dual_gemm_disabled() || ngroups < 2)
    return ngroups;
  int *into = malloc(sizeof(int) * ((size_t)ngroups + 1));
  const op **mm = calloc((size_t)ngroups + 1, sizeof(op *));
  bool any = false, partner;
  int *at;
  const op **members = ops_by_group(g, group_of, ngroups, &at);
  /* each group's matmul when it is one with an elementwise epilogue: the cheap filter of the
   * pairs (the same A) before the full test */
  for (int grp = 0; grp < ngroups; grp++) {
    into[grp] = grp;
    for (int i = at[grp]; i < at[grp + 1] && !grouped[grp]; i++)
      if (members[i]->kind == OP_MATMUL) {
        mm[grp] = members[i];
        break;
      }
  }
  for (int first = 0; first < ngroups; first++) {
    if (!mm[first] || into[first] != first ||
        !pairable(members + at[first], at[first + 1] - at[first], group_of, first, first, -1, true, &partner))
      continue;
    for (int j = first + 1; j < ngroups; j++) {
      if (!mm[j] || into[j] != j || part_view_root(mm[j]->operands[0]) != part_view_root(mm[first]->operands[0]) ||
          !pairable(members + at[j], at[j + 1] - at[j], group_of, j, first, first, true, &partner) || !partner ||
          !same_problem(mm[first], mm[j]))
        continue;
      /* the skinny kernel (decode, M <= 16) streams each B once at the bandwidth: a tile kernel
       * for both would waste its matrix rows (docs/partitioning.md, "Dual-B GEMMs") */
      if (dual_gemm_switch() < 1 && cg_tune_gemm_skinny(t, mm[first]))
        break;
      into[j] = first, grouped[first] = GROUP_DUAL, any = true;
      break;
    }
  }
  if (any)
    ngroups = relabel(g, group_of, ngroups, into, grouped);
  free(into);
  free(mm);
  free(members);
  free(at);
  return ngroups;
}

/* ---------------------------------------------------------------- row norms into GEMMs */

bool part_norm_gemv_disabled(void) {
  const char *e = getenv("TOSAC_NO_NORM_GEMV");
  return (e && *e && strcmp(e, "0") != 0) || part_fusion_disabled() || part_rownorm_disabled();
}

/* TOSAC_NORM_GEMM=1: a norm merges into every tile GEMM it fits, not only where the estimate
 * says it pays (tests, comparisons). */
static bool norm_gemm_forced(void) {
  const char *e = getenv("TOSAC_NORM_GEMM");
  return e && *e && strcmp(e, "0") != 0;
}

bool part_norm_gemm_disabled(void) {
  const char *e = getenv("TOSAC_NO_NORM_GEMM");
  return (e && *e && strcmp(e, "0") != 0) || part_fusion_disabled() || part_rownorm_disabled();
}

/* The rows of a norm group (rownorm.c's pattern: last-axis reductions of one shape F and
 * elementwise ops, nothing else) in *f; false for any other group. */
static bool norm_group(const op *const *ops, int nops, tensor_type *f) {
  int nred = 0, nother = 0;
  for (int i = 0; i < nops; i++) {
    const op *o = ops[i];
    op_family fam = op_table[o->kind].family;
    if (fam == FAM_REDUCTION) {
      const tensor_type *x = o->operands[0]->type;
      if ((o->kind != OP_REDUCE_SUM && o->kind != OP_REDUCE_MAX) || op_attr_int(o, "axis", -1) != x->rank - 1 ||
          (nred && !tensor_type_equal(x, f)))
        return false;
      *f = *x;
      nred++;
    } else if (fam == FAM_ELEMENTWISE) {
      nother++;
    } else if (fam != FAM_CONST) {
      return false;
    }
  }
  return nred > 0 && nred + nother > 1;
}

static int gemms_in(const op *const *ops, int nops) {
  int n = 0;
  for (int i = 0; i < nops; i++)
    n += ops[i]->kind == OP_MATMUL || ops[i]->kind == OP_FULLY_CONNECTED;
  return n;
}

static bool is_gemm_a(const op *u, int j) { return j == 0 && (u->kind == OP_MATMUL || u->kind == OP_FULLY_CONNECTED); }

/* LDS bytes the skinny kernel may give the normalised rows of its A operand. */
#define NORM_GEMV_LDS 32768

int part_norm_gemv(const graph *g, const target_info *t, int *group_of, int ngroups, char *grouped,
                   char *prologue_op) {
  bool gemv_off = part_norm_gemv_disabled(), gemm_off = part_norm_gemm_disabled();
  if ((gemv_off && gemm_off) || ngroups < 2)
    return ngroups;
  int *at;
  const op **members = ops_by_group(g, group_of, ngroups, &at);
  tensor_type *f = calloc((size_t)ngroups + 1, sizeof(tensor_type));
  char *norm = calloc((size_t)ngroups + 1, 1);
  char *others = calloc((size_t)ngroups + 1, 1); /* read by more than the GEMM's A */
  int *reader = malloc(sizeof(int) * ((size_t)ngroups + 1)); /* -1 none, -2 refused */
  int *first_other = malloc(sizeof(int) * ((size_t)ngroups + 1)); /* the first other reader's group */
  const op **mm = calloc((size_t)ngroups + 1, sizeof(op *));
  const value **val = calloc((size_t)ngroups + 1, sizeof(value *)); /* the value A is */
  bool anynorm = false;
  for (int grp = 0; grp < ngroups; grp++) {
    reader[grp] = -1, first_other[grp] = ngroups;
    norm[grp] = !grouped[grp] && norm_group(members + at[grp], at[grp + 1] - at[grp], &f[grp]);
    anynorm |= norm[grp];
  }
  if (!anynorm)
    goto done;
  /* the earliest matmul reading a norm group's value as A (through views) is the GEMM it may merge
   * into; then every other read: the GEMM's group reads it as the A of its matmuls only (a
   * grouped GEMM: of each), any other group reads the same value after the GEMM (the tile
   * kernel stores it for them); a norm read otherwise keeps its kernel */
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < g->nops; i++) {
      const op *u = g->ops[i];
      int ug = group_of[u->id];
      for (int j = 0; j < u->noperands; j++) {
        const value *r = part_view_root(u->operands[j]);
        int ng = r->def ? group_of[r->def->id] : -1;
        if (ng < 0 || ng == ug || !norm[ng] || reader[ng] == -2)
          continue;
        if (ug < 0 && part_is_view(u))
          continue; /* its readers are met through part_view_root */
        if (pass == 0) {
          /* the earliest such GEMM: every other reader runs after it */
          if (ug >= 0 && is_gemm_a(u, j) && (reader[ng] == -1 || ug < reader[ng]))
            reader[ng] = ug, mm[ng] = u, val[ng] = r;
          continue;
        }
        bool ok = reader[ng] >= 0 && r == val[ng];
        if (ok && ug == reader[ng])
          ok = is_gemm_a(u, j) && (u == mm[ng] || grouped[ug] == GROUP_GEMMS);
        else if (ok) {
          others[ng] = 1;
          first_other[ng] = ug >= 0 && ug < first_other[ng] ? ug : first_other[ng];
          ok = ug >= 0;
        }
        if (!ok)
          reader[ng] = -2;
      }
    }
  for (int r = 0; r < g->nresults; r++) {
    const value *v = part_view_root(g->results[r]);
    int ng = v->def ? group_of[v->def->id] : -1;
    if (ng >= 0 && norm[ng] && reader[ng] >= 0) {
      others[ng] = 1;
      if (v != val[ng])
        reader[ng] = -2;
    }
  }
  int *into = malloc(sizeof(int) * ((size_t)ngroups + 1));
  bool any = false;
  for (int grp = 0; grp < ngroups; grp++)
    into[grp] = grp;
  for (int grp = 0; grp < ngroups; grp++) {
    int gg = reader[grp];
    if (!norm[grp] || gg < 0 || grouped[gg] == GROUP_DUAL || norm[gg] || into[gg] != gg)
      continue;
    const op *u = mm[grp];
    const tensor_type *a = u->operands[0]->type;
    int64_t kdim = a->dims[a->rank - 1], rows = a->rank >= 2 ? a->dims[a->rank - 2] : 1;
    /* A is the norm's value with its rows of K: F = [..., K] with as many elements */
    bool one_gemm = true;
    for (int i = at[gg]; i < at[gg + 1]; i++)
      one_gemm &= members[i] == u || (grouped[gg] && members[i]->kind == OP_MATMUL) ||
                  op_table[members[i]->kind].family == FAM_ELEMENTWISE ||
                  op_table[members[i]->kind].family == FAM_CONST;
    if (!one_gemm || f[grp].dims[f[grp].rank - 1] != kdim || tensor_numel(&f[grp]) != tensor_numel(a) ||
        part_view_root(u->operands[0])->type->elem != a->elem)
      continue;
    const value *root = part_view_root(u->operands[0]);
    if (tensor_numel(root->type) != tensor_numel(&f[grp]) || root->type->dims[root->type->rank - 1] != kdim)
      continue;
    char kind;
    if (!grouped[gg] && cg_tune_gemm_skinny(t, u)) {
      /* the skinny kernel: its M rows fit 32 KiB, nothing else reads the value */
      if (gemv_off || others[grp] || rows * kdim * elem_type_bytes(a->elem) > NORM_GEMV_LDS)
        continue;
      kind = 1;
    } else {
      /* the tile kernel: its M tile's rows with all of K fit the LDS beside the staging buffers,
       * it stores the value (F's shape) before any other reader runs */
      bool same = root->type->rank == f[grp].rank &&
                  !memcmp(root->type->dims, f[grp].dims, sizeof(int64_t) * (size_t)f[grp].rank);
      if (gemm_off || (others[grp] && (first_other[grp] <= gg || !same)) ||
          !cg_tune_gemm_resident(t, u, norm_gemm_forced() ? 0 : gemms_in(members + at[gg], at[gg + 1] - at[gg])))
        continue;
      kind = 2;
    }
    into[grp] = gg, any = true;
    for (int i = at[grp]; i < at[grp + 1]; i++)
      prologue_op[members[i]->id] = kind;
  }
  if (any)
    ngroups = relabel(g, group_of, ngroups, into, grouped);
  free(into);
done:
  free(val);
  free(mm);
  free(first_other);
  free(reader);
  free(others);
  free(norm);
  free(f);
  free(members);
  free(at);
  return ngroups;
}
