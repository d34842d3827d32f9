/* partition.h: the partition stage's face. Entry points are declared in tosac.h
 * (part_plan, part_print); this header adds the helpers shared by the stage's files. */
#ifndef TOSAC_PARTITION_H
#define TOSAC_PARTITION_H

#include "tosac.h"

/* marks.c: a set of non-negative ints emptied in O(1) by a new stamp (slot k holds key[k]
 * when stamp[k] == cur): open addressing from `cap` slots (a power of two), doubling when half
 * full. */
typedef struct part_marks {
  int *key, *stamp;
  int cap, n, cur;
} part_marks;
void part_marks_init(part_marks *m, int cap);
void part_marks_free(part_marks *m);
void part_marks_clear(part_marks *m);
bool part_marks_has(const part_marks *m, int x);
bool part_marks_add(part_marks *m, int x); /* false when x was there already */

/* fuse.c: assign every non-constant op to a fusion group; returns the group count.
 * group_of[op->id] is the group index (-1 for constants, views and dead ops), groups numbered in
 * launch order. */
int part_fuse(arena *a, const graph *g, const target_info *t, int *group_of);

/* attention.c: attention chains (matmul, score ops, softmax, matmul) that become one
 * flash-attention kernel. att[op id] = the pattern's number, -1 for other ops; returns the
 * number of patterns. fp8 operands only where target t has their MFMA. use_start/uses: the live
 * and dead readers of every value (CSR); is_result: per value id. TOSAC_NO_ATTENTION_FUSION=1
 * (or TOSAC_NO_FUSION=1) finds none. */
#define PART_ATTENTION_MAX_HEAD 128 /* head dimensions the attention kernel keeps in registers */
int part_attention_find(const graph *g, const target_info *t, const char *live, const int *use_start,
                        const int *uses, const char *is_result, int *att);
bool part_attention_disabled(void);
/* Is attention kernel k's score chain masked causally by a constant
 * (docs/partitioning.md "Causal masks")? *offset: the o of "key j of query i is
 * masked for j > i + o". */
bool part_attention_causal(const part_kernel *k, int64_t *offset);
/* Split-KV for decode-time attention (attention.c): the number of key chunks
 * for attention kernel k on target t by the estimate (cg_tune_splitkv; 0: no
 * split; TOSAC_SPLIT_KV=P forces P; chunks of cg_attention_chunk keys), and the
 * partial + combine kernels replacing k (a new workspace buffer [P, B, S, Dv +
 * 2] f32). */
int part_attention_split_choose(const part_kernel *k, const target_info *t);
/* --emit=partitions: the split-KV estimate of a partial attention kernel on t.
 */
void part_attention_print_split(FILE *out, const part_kernel *k,
                                const target_info *t);
/* The last-work-group form of that split (cg_tune_splitkv_lastwg, for the decode kernel only):
 * whether to take it, and the one KR_FIXUP kernel replacing k (its outputs, the partials and B
 * zeroed i32 counters, one per batch-and-head entry). */
bool part_attention_split_lastwg(const part_kernel *k, const target_info *t, int split);
void part_attention_fixup_kernel(arena *a, partition_plan *p, int *bcap, const part_kernel *k, int split,
                                 part_kernel *fix);
/* splitk.c: a workspace buffer of type t named name_k<id> (zeroed: in the zeroed region). */
int part_add_workspace(arena *a, partition_plan *p, int *bcap, const char *name, int id, const tensor_type *t,
                       bool zeroed, const value **out);
/* splitk.c: k as the KR_FIXUP kernel that reduces its split in its last work-group: k's outputs,
 * then <what>_partials (pt) and the arrival counters <what>_counters (ct, zeroed region). */
void part_fixup_kernel(arena *a, partition_plan *p, int *bcap, const part_kernel *k, int split,
                       const char *what, const tensor_type *pt, const tensor_type *ct, part_kernel *fix);
void part_attention_split_kernels(arena *a, partition_plan *p, int *bcap, const part_kernel *k,
                                  int split, part_kernel *part, part_kernel *comb);
/* rownorm.c: row-wise normalisations (layer norm, RMS norm, softmax) around last-axis
 * reductions, numbered from `first` in pat[] (ops already in a pattern are skipped); returns
 * the next free number. TOSAC_NO_ROW_FUSION=1 (or TOSAC_NO_FUSION=1) finds none. */
/* mxgemm.c: mark each block-scaled GEMM (part_mx_match) with its decoding ops as pattern
 * first, first + 1, ... in pat when target t has a block-scaled matrix instruction; returns the
 * next pattern number. */
bool part_mx_disabled(void); /* TOSAC_NO_MX_GEMM=1: every target dequantizes */
int part_mx_find(const graph *g, const target_info *t, const char *live, const int *use_start, const int *uses,
                 const char *is_result, int *pat, int first);
int part_rownorm_find(arena *a, const graph *g, const char *live, const int *use_start, const int *uses,
                      const char *is_result, int *pat, int first);
bool part_rownorm_disabled(void);

/* group.c: fusion groups that are GEMMs reading the same A with Bs of one shape (constants,
 * or, where t's single GEMM takes the tile kernel, arguments and values of groups before the
 * first) merge into one grouped GEMM kernel (part_kernel.gemm_anchors); relabels group_of,
 * returns the new group count, grouped[new group] set for merged ones (sized ngroups + 1).
 * TOSAC_NO_GEMM_GROUPING=1 (or TOSAC_NO_FUSION=1) merges none. */
int part_group_gemms(const graph *g, const target_info *t, int *group_of, int ngroups, char *grouped);
bool part_gemm_grouping_disabled(void);
enum { GROUP_GEMMS = 1, GROUP_DUAL = 2 }; /* grouped[]: a grouped GEMM, a dual-B GEMM */
/* group.c: two fusion groups, float matmuls (rank 3) of the same A with equal B and result
 * types, each with an elementwise epilogue, the later one's reading the earlier one's results
 * (GPT's silu(gate) * up), merge into one dual-B GEMM kernel (grouped[] = GROUP_DUAL; after
 * part_group_gemms, never a group it merged); not where t's single GEMM takes the skinny
 * kernel (TOSAC_DUAL_GEMM=1: there too). TOSAC_DUAL_GEMM=0 or TOSAC_NO_GEMM_GROUPING=1: none. */
int part_pair_gemms(const graph *g, const target_info *t, int *group_of, int ngroups, char *grouped);
bool part_dual_gemm_disabled(void);
/* group.c: a row-norm group (rownorm.c) whose value only one skinny GEMM's A operand reads
 * (directly or through views; not a graph result) merges into that GEMM's group, which
 * recomputes the rows in a prologue (docs/partitioning.md "Row norms in skinny GEMMs");
 * prologue_op[op id] is set for the norm's ops. TOSAC_NO_NORM_GEMV=1 (or TOSAC_NO_ROW_FUSION=1,
 * TOSAC_NO_FUSION=1): none. */
int part_norm_gemv(const graph *g, const target_info *t, int *group_of, int ngroups, char *grouped,
                   char *prologue_op);
bool part_norm_gemv_disabled(void);
/* ... and into a tile GEMM (prologue_op[op id] = 2: kernel_gemm.c keeps the M tile's rows in
 * LDS; other kernels may read the value after it, the kernel stores it; "Row norms in tile
 * GEMMs") where the rows fit and the estimate says it pays (TOSAC_NORM_GEMM=1: wherever they
 * fit). TOSAC_NO_NORM_GEMM=1 (or TOSAC_NO_ROW_FUSION=1, TOSAC_NO_FUSION=1): none. */
bool part_norm_gemm_disabled(void);

/* buffers.c: place intermediates in the workspace by liveness. live_first/live_last are
 * launch positions; inplace_of[i] >= 0 (or NULL: none) makes buffer i take that buffer's
 * offset (part_inplace_pairs). Zeroed buffers come first, each its own bytes (*zeroed_bytes:
 * that region, a multiple of 256). Returns the workspace size. */
int64_t part_place_workspace(part_buffer *bufs, int nbufs, const int *live_first,
                             const int *live_last, const int *inplace_of, int64_t *zeroed_bytes);

/* inplace.c: for every intermediate a kernel writes, the input buffer dying at that kernel
 * whose bytes it may overwrite element for element (inplace_of[buf], -1 none);
 * docs/partitioning.md "In-place reuse". */
void part_inplace_pairs(const graph *g, const partition_plan *p, const int *first, const int *last,
                        int *inplace_of);
/* Sets args_alias on every kernel that writes an output in place of one of its inputs. */
void part_mark_aliasing(partition_plan *p, const int *inplace_of);

/* expand.c: expand large reductions into fill + atomic or partial + combine kernels, chosen
 * per target; rewrites p's kernels and launch nodes (called before liveness and edges). */
bool part_expand(arena *a, const graph *g, partition_plan *p, diag_sink *d);

/* splitk.c: the two kernels replacing GEMM kernel k split `split` ways over K (the factor comes
 * from cg_tune_splitk; TOSAC_SPLIT_K overrides, docs/partitioning.md): the GEMM over the splits
 * writing a new workspace buffer of partials, and the combine. */
void part_splitk_kernels(arena *a, partition_plan *p, int *bcap, const part_kernel *k, int split,
                         part_kernel *part, part_kernel *comb);
/* The one kernel replacing GEMM kernel k split `split` ways with the last-work-group reduction
 * (KR_FIXUP): k's outputs, then the partials workspace and `tiles` i32 arrival counters in the
 * zeroed workspace region. */
void part_splitk_fixup_kernel(arena *a, partition_plan *p, int *bcap, const part_kernel *k, int split,
                              int64_t tiles, part_kernel *fix);
/* Is v read by an op of k other than as the anchor's A or B operand or by its row-norm
 * prologue (bias, epilogue inputs)? */
bool part_read_by_epilogue(const part_kernel *k, const value *v);

/* im2col.c: the two kernels replacing convolution kernel k when the tuning layer asks for im2col
 * (cg_tune_im2col; TOSAC_IM2COL overrides): the im2col pass writing a new workspace matrix
 * [M + OC][kpad] (patches, then weights), and the GEMM over it with the epilogue. */
void part_im2col_kernels(arena *a, partition_plan *p, int *bcap, const part_kernel *k, int64_t kpad,
                         part_kernel *cols, part_kernel *gemm);

/* control.c: data-dependent cond_if / while_loop (docs/partitioning.md "Control flow").
 * part_control_op: the control op among ops, or NULL. part_explicit_captures: values a region
 * reads from around it become extra operands of its op and extra region arguments (recursively).
 * part_link_conditions: after part_expand renumbered nodes, each IF's readback (the node just
 * before it). part_expand_control: plan every IF / WHILE node's regions into p. */
const op *part_control_op(const op *const *ops, int n);
void part_explicit_captures(arena *a, graph *g);
void part_link_conditions(partition_plan *p);
bool part_expand_control(arena *a, partition_plan *p, diag_sink *d);
void part_print_control(FILE *out, const launch_node *n);

/* dedup.c: mark kernels whose specs equal an earlier kernel's (part_kernel.reuses). */
void part_dedup(partition_plan *p);

/* views.c: reshape, identity and unit-dim transposes alias their input's buffer (no kernel).
 * part_view_root follows a chain of views to the value that owns the bytes. TOSAC_NO_FUSION=1
 * (a debugging aid, read by part_fusion_disabled) turns views and every fusion off. */
bool part_is_view(const op *o);
const value *part_view_root(const value *v);
bool part_fusion_disabled(void);

/* Slice views (views.c, docs/partitioning.md "Slice views"): a tosa.slice whose result is one
 * contiguous run of its input's row-major elements, starting on a 256-byte boundary of it,
 * launches nothing; its readers read the
 * input's buffer from the slice's first element (part_kernel.in_offs).
 * part_slice_offset: o is such a slice; *offset its first element's index in the input.
 * part_slice_views: per op id, the slices of g that are views (not a graph result's slice; none
 * in a graph with control flow); NULL when none. Placement (fuse.c) leaves them unplaced like
 * views; a slice it placed anyway (a convolution's operand view) is not one.
 * part_bytes_root: the value owning v's bytes through views and slice views, and v's element
 * offset in it. */
bool part_slice_offset(const op *o, int64_t *offset);
bool *part_slice_views(arena *a, const graph *g);
const value *part_bytes_root(const bool *slice_views, const value *v, int64_t *offset);

/* Concat views (views.c, docs/partitioning.md): a tosa.concat alone in its group whose value one
 * attention kernel taking the decode variant reads (directly or through views; reader[value id]
 * is the one group reading it outside its own, negative for none, several or a graph result)
 * launches nothing: that kernel takes the pieces as inputs and selects the piece per key
 * (kernel_attention.c read_ptr). Returns per op id whether it is such a view, and sets its
 * group_of to -1; NULL when none (control flow, TOSAC_NO_CONCAT_VIEWS=1, TOSAC_NO_FUSION=1). */
bool part_concat_views_disabled(void);
bool *part_concat_views(arena *a, const graph *g, const target_info *t, int *group_of, int ngroups,
                        const char *grouped, const bool *slice_views, const int *reader);

#endif
