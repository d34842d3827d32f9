/* tosac.h: the map of the compiler. Shared types first, then each stage's entry points
 * under its own comment. A stage's own header (frontend.h, partition.h, codegen.h, bundle.h)
 * only re-exports what is here plus its private helpers' prototypes. */
#ifndef TOSAC_H
#define TOSAC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TOSAC_VERSION "0.1.0"
#define TOSAC_MAX_RANK 8

/* ---------------------------------------------------------------- support/arena.c */
/* One arena per compile (graph, plans); everything is freed at once. */
typedef struct arena arena;
arena *arena_new(void);
void arena_free(arena *a);
void *arena_alloc(arena *a, size_t size);        /* zeroed, 8-byte aligned (16 over 256 KiB);
                                                    aborts on OOM */
void *arena_alloc_raw(arena *a, size_t size);    /* the same, not zeroed: for bytes about to be
                                                    overwritten (decoded constants) */
char *arena_strdup(arena *a, const char *s);
char *arena_strndup(arena *a, const char *s, size_t n);
char *arena_printf(arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Grow an array held in the arena: returns a copy with room for new_cap elements. */
void *arena_grow(arena *a, void *old, size_t elem_size, size_t old_count, size_t new_cap);
/* arena_grow for an array nothing else points to (old is given up): one large enough to have a
 * block of its own is resized in place (realloc) instead of copied, so its outgrown copies do
 * not stay in the arena (a million-op graph's value and op lists). */
void *arena_regrow(arena *a, void *old, size_t elem_size, size_t old_count, size_t new_cap);
/* Gives p's memory back now when p is an array arena_regrow gave a block of its own (the graph's
 * value list once the frontend is done); otherwise it stays until arena_free. */
void arena_release(arena *a, void *p);
/* The arena's type table (support/types.c keeps it: type_intern); NULL until first used. */
struct type_table **arena_type_table(arena *a);
/* Append one element to an arena vector (items, count, cap are lvalues). */
#define ARENA_PUSH_WITH(grow, ar, items, count, cap, value)                                  \
  do {                                                                                       \
    if ((count) == (cap)) {                                                                  \
      size_t nc_ = (cap) ? (size_t)(cap) * 2 : 8;                                             \
      (items) = grow((ar), (items), sizeof(*(items)), (size_t)(count), nc_);                  \
      (cap) = nc_;                                                                           \
    }                                                                                        \
    (items)[(count)++] = (value);                                                            \
  } while (0)
#define ARENA_PUSH(ar, items, count, cap, value) ARENA_PUSH_WITH(arena_grow, ar, items, count, cap, value)
/* For an array only its owner points to (arena_regrow). */
#define ARENA_PUSH_OWNED(ar, items, count, cap, value)                                        \
  ARENA_PUSH_WITH(arena_regrow, ar, items, count, cap, value)

/* ---------------------------------------------------------------- support/names.c */
/* A value's SSA name in 32 bits, not a string pointer and a string (a million-op graph holds a
 * million): 0 none, a plain decimal ("123", the usual SSA name) as its number, any other
 * spelling ("arg0", "x", "007", a decimal past 2^31 - 2) as a slot in a process-wide registry
 * of strings. Such a string is copied into the arena given; its slot is freed (and reused)
 * when that arena is freed. Reading is thread-safe and takes no lock. */
typedef uint32_t name_code;
#define NAME_STRING 0x80000000u /* set in the code of a registry string */
#define VALUE_NAME_MAX 12 /* a decimal's digits and NUL */
name_code name_intern(arena *a, const char *s); /* s NULL: 0 (none) */
name_code name_intern_n(arena *a, const char *s, size_t n);
/* The spelling (without %): buf holds a decimal's digits, else the registry's string; NULL
 * for none. */
const char *name_str(name_code c, char buf[VALUE_NAME_MAX]);
bool name_equal(name_code c, const char *s, size_t n); /* spelled s[0..n) */
name_code name_decimal(const char *s, size_t n); /* the code of a decimal spelling, else 0 */
/* arena.c's side: an arena lists the slots of the strings it holds and frees them with it. */
void arena_note_name_slot(arena *a, uint32_t slot);
void name_slots_release(const uint32_t *slots, size_t n);

/* ---------------------------------------------------------------- support/diag.c */
/* A source file held in memory; every location points into one. */
typedef struct source_file {
  const char *path; /* as given on the command line ("<stdin>" for -) */
  const char *text; /* NUL-terminated */
  size_t len;
  bool mapped; /* text is a private read-only file mapping (source_load): pages may be dropped */
} source_file;

/* 8 bytes, not 16 (a million-op graph holds two million): the file is a slot number in a small
 * process-wide registry of source files (support/diag.c), 0 for "no location". Lines past
 * SRC_LOC_MAX_LINE are reported as that line. Build one with src_loc_at, read the file back
 * with src_loc_file. */
typedef struct src_loc {
  unsigned line : 26; /* 1-based */
  unsigned fidx : 6;  /* registry slot of the file; 0: no location */
  int col;            /* 1-based */
} src_loc;
#define SRC_LOC_MAX_LINE ((1 << 26) - 1)
#define SRC_LOC_MAX_FILES 63
/* A location in f (NULL: none). f gets a registry slot on first use; with SRC_LOC_MAX_FILES
 * files alive at once a further one's locations are "no location". Thread-safe. */
src_loc src_loc_at(const source_file *f, int line, int col);
const source_file *src_loc_file(src_loc loc); /* NULL: no location */
/* f is about to be freed or reused: its registry slot becomes free for another file (like a
 * pointer to a freed file, a location into f must not be used after this). Call it where a
 * source_file's life ends, so a long-lived library process does not run out of slots. */
void source_forget(const source_file *f);

/* Diagnostics go to `out` (stderr) as `path:line:col: error: message`, followed by the source
 * line and a caret under the column. Stages never exit(); they report and return failure. */
typedef struct diag_sink {
  FILE *out;
  int errors;
  int max_errors; /* stop reporting after this many (0 = 20) */
  /* Also called for every diagnostic printed (libtosac keeps them as records); may be NULL. */
  void (*record)(void *ctx, src_loc loc, const char *kind, const char *message);
  void *record_ctx;
} diag_sink;

void diag_init(diag_sink *d, FILE *out);
void diag_error(diag_sink *d, src_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_note(diag_sink *d, src_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_warning(diag_sink *d, src_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_verror(diag_sink *d, src_loc loc, const char *kind, const char *fmt, va_list ap);
/* Errors without a source location print as `tosac: error: message`. */
#define diag_error_noloc(d, ...) diag_error((d), (src_loc){0}, __VA_ARGS__)

/* ---------------------------------------------------------------- support/types.c */
typedef enum elem_type {
  ET_INVALID = 0,
  ET_I1,
  ET_I4,
  ET_I8,
  ET_I16,
  ET_I32,
  ET_I48,
  ET_I64,
  ET_F16,
  ET_BF16,
  ET_F32,
  ET_F64,
  ET_F8E4M3FN,
  ET_F8E5M2,
  ET_F8E4M3FNUZ, /* AMD's gfx942 encodings: bias 8/16, 0x80 the only NaN, no -0 or Inf */
  ET_F8E5M2FNUZ,
  ET_INDEX, /* only in tosa.const_shape */
  ET_COUNT
} elem_type;

const char *elem_type_name(elem_type t); /* MLIR spelling: "f32", "i8", "bf16", ... */
elem_type elem_type_parse(const char *s, size_t n); /* ET_INVALID if unknown */
/* Also the signed/unsigned integer spellings si8, ui8, si16, ... (as signless storage);
 * *is_unsigned says which. */
elem_type elem_type_parse_signed(const char *s, size_t n, bool *is_unsigned);
int elem_type_bits(elem_type t);                  /* 1, 4, 8, ... */
int elem_type_bytes(elem_type t);                 /* storage bytes per element in buffers: i1 -> 1 */
bool elem_type_is_float(elem_type t);
bool elem_type_is_int(elem_type t); /* includes i1 */
bool elem_type_is_f8(elem_type t);  /* f8E4M3FN, f8E5M2 and their FNUZ forms */

typedef struct tensor_type {
  elem_type elem;
  int rank;
  int64_t dims[TOSAC_MAX_RANK];
} tensor_type;

int64_t tensor_numel(const tensor_type *t); /* product of dims (1 for rank 0) */
int64_t tensor_bytes(const tensor_type *t); /* numel * elem_type_bytes */
bool tensor_type_equal(const tensor_type *a, const tensor_type *b);
/* "tensor<2x3xf32>" into buf; returns buf. */
char *tensor_type_str(const tensor_type *t, char *buf, size_t size);
/* Shape of broadcasting a and b per TOSA (equal ranks, dims equal or 1). false if incompatible. */
bool tensor_broadcast_shape(const tensor_type *a, const tensor_type *b, tensor_type *out);
/* The arena's one copy of t (all 72 bytes equal), made on first use: values hold their type by
 * this pointer (8 bytes, not 72: a million-op graph has a handful of distinct types). Never
 * written through; a value whose type changes gets another interned type. */
const tensor_type *type_intern(arena *a, const tensor_type *t);

/* ---------------------------------------------------------------- the graph */
#define OP(e, name, fam, mn, mx) OP_##e,
typedef enum op_kind {
#include "ops.def"
  OP_COUNT
} op_kind;
#undef OP

typedef enum op_family {
  FAM_CONST,       /* folded into the kernels that use it, or a weights buffer */
  FAM_ELEMENTWISE, /* fusible pointwise ops with TOSA broadcasting */
  FAM_MATMUL,      /* matmul, fully_connected, conv*: implicit GEMM with a fused epilogue */
  FAM_REDUCTION,   /* reduce_*, argmax */
  FAM_POOL,        /* avg_pool2d, max_pool2d */
  FAM_DATA,        /* data movement: transpose, reshape, slice, pad, concat, tile, reverse,
                      identity, gather, scatter, resize */
  FAM_OTHER,       /* control flow (folded by the frontend), custom: no kernel family */
  FAM_FFT,         /* fft2d, rfft2d */
  FAM_COUNT
} op_family;

typedef struct op_info {
  const char *name; /* "tosa.add" */
  op_family family;
  int min_operands, max_operands;
} op_info;
extern const op_info op_table[OP_COUNT];
/* Look an op up by mnemonic ("tosa.add"); OP_COUNT if unknown. */
op_kind op_lookup(const char *name, size_t n);

/* Constant data: little-endian element bytes, elem_type_bytes() each, row-major.
 * A splat stores one element and sets splat. */
typedef struct dense_data {
  tensor_type type;
  const uint8_t *bytes;
  size_t nbytes;
  bool splat;
} dense_data;

/* Attributes are kept generically by name so later ops need no new parser code. */
typedef enum attr_kind {
  ATTR_INT,    /* 3 : i32, also enum-like keywords stored in s too */
  ATTR_FLOAT,  /* 6.0 : f32 */
  ATTR_BOOL,   /* true / false */
  ATTR_INTS,   /* array<i64: 1, 2>, [1, 2] */
  ATTR_FLOATS, /* array<f32: ...> */
  ATTR_STR,    /* "PROPAGATE", SINGLE_ROUND, #tosa.rounding_mode<...> (the keyword) */
  ATTR_TYPE,   /* acc_type = f32 */
  ATTR_DENSE,  /* dense<...>, dense_resource<...> */
} attr_kind;

typedef struct attr {
  const char *name;
  attr_kind kind;
  int64_t i;
  double f;
  elem_type type_elem; /* for ATTR_INT/ATTR_FLOAT: the declared type (i32, f32 ...); ATTR_TYPE */
  int64_t *ints;
  double *floats;
  int n;
  const char *s;
  dense_data *dense;
  src_loc loc;
} attr;

typedef struct op op;

typedef struct value { /* 32 bytes (a million-op graph holds a million) */
  signed id : 30;      /* dense index in graph->values (2^29 values are beyond any graph that
                          fits in memory) */
  unsigned is_arg : 1; /* a function or region argument: its index is its place in the graph's
                          args (no field of its own: 8 bytes per value) */
  unsigned used : 1;   /* read by an op or a result while parsing (the parser drops constants
                          nothing reads; no one else needs a use count) */
  name_code name;      /* SSA name without %, e.g. "arg0", "3": read it with value_name() */
  const tensor_type *type; /* interned in the graph's arena (type_intern) */
  op *def;          /* NULL for function arguments */
  src_loc loc;      /* where defined */
} value;
_Static_assert(sizeof(value) == 32, "value is 32 bytes");
#define VALUE_MAX_ID ((1 << 29) - 1)

/* v's SSA name (without %): in buf when it is a decimal; NULL when it has none. */
static inline const char *value_name(const value *v, char buf[VALUE_NAME_MAX]) { return name_str(v->name, buf); }
/* The same with a buffer of its own per use, alive to the end of the enclosing block: for
 * printing (printf("%%%s -> %%%s", VALUE_NAME(a), VALUE_NAME(b))). */
#define VALUE_NAME(v) value_name((v), (char[VALUE_NAME_MAX]){0})

/* The parser refuses more (a few are added later by canonicalisation: the field holds 65535). */
#define OP_MAX_ATTRS 4096

/* What few ops have, out of line (an elementwise op has neither). */
typedef struct op_rare {
  attr *attrs;
  struct graph **regions; /* cond_if: then, else; while_loop: cond, body (block arguments are the
                             region graph's args, the tosa.yield operands its results) */
} op_rare;

struct op { /* 48 bytes (a million-op graph holds a million): kind, region and attribute counts
               share one word, the attributes and regions are out of line */
  int id; /* dense index in graph->ops, a topological order */
  op_kind kind : 10;
  unsigned nregions : 6; /* at most 2 */
  unsigned nattrs : 16;  /* at most OP_MAX_ATTRS from the parser */
  src_loc loc;
  value **operands;
  value **results;
  op_rare *rare; /* NULL while the op has no attributes and no regions: read them with op_attrs
                    and op_regions, set them with op_set_attrs and op_set_regions */
  int noperands;
  int nresults;
};
_Static_assert(sizeof(op) == 48, "op is 48 bytes");
_Static_assert(OP_COUNT < (1 << 9), "op.kind is a 10-bit field");

static inline attr *op_attrs(const op *o) { return o->rare ? o->rare->attrs : NULL; }
static inline struct graph **op_regions(const op *o) { return o->rare ? o->rare->regions : NULL; }
/* o's attributes become attrs[0..n) (the array, not a copy), its regions r[0..n). */
void op_set_attrs(arena *a, op *o, attr *attrs, int n);
void op_set_regions(arena *a, op *o, struct graph **r, int n);

/* Attribute access: NULL / fallback when absent. */
const attr *op_attr(const op *o, const char *name);
int64_t op_attr_int(const op *o, const char *name, int64_t fallback);
double op_attr_float(const op *o, const char *name, double fallback);

typedef struct graph {
  arena *arena;
  const source_file *file;
  const char *entry; /* function name */
  value **values;
  int nvalues;
  op **ops; /* topological order */
  int nops;
  value **args;
  int nargs;
  value **results;
  int nresults;
  src_loc *result_locs; /* location of each func.return operand */
  int *dynamic_dims;    /* the entry's '?' argument dimensions as (argument, dimension) pairs,
                           each given a value by --specialize or a shape rule (frontend/dynamic.c) */
  int ndynamic;
  const char *arch; /* the entry function's rock.arch attribute ("gfx90a:xnack-"), NULL if none */
} graph;

/* ---------------------------------------------------------------- targets (codegen/target.c) */
typedef enum feature_mode { FEAT_ANY = 0, FEAT_ON, FEAT_OFF } feature_mode;

typedef struct target_info {
  const char *name;   /* "gfx90a" */
  const char *family; /* "CDNA2", "RDNA3" */
  int wave_size;
  int lds_bytes;          /* per work-group */
  int vgprs_per_simd;     /* register file per SIMD lane, for occupancy */
  bool has_sramecc;       /* target-ID feature exists */
  bool has_xnack;
  bool has_mfma, has_wmma;
  bool default_target;    /* in the default --offload-arch set */
  unsigned elf_mach;      /* EF_AMDGPU_MACH value */
  /* performance facts (shared docs AMDGPU.md §4.2; the tuning layer and the quality report) */
  int cus;                /* compute units of the reference board */
  int simds_per_cu;       /* 4 on CDNA, 2 on RDNA (per CU; a WGP has 4) */
  int clock_mhz;          /* peak engine clock */
  int mem_gbps;           /* HBM/GDDR bandwidth, GB/s */
  int vgpr_granule;       /* VGPR allocation granule, for occupancy */
  int max_waves_per_simd;
  int valu_flops_per_cu_clk; /* f32 FMA: 2 x lanes issued per clock per CU (no packed math) */
  bool f32_atomic_add;    /* native global f32 atomic add */
  int agpr_file;          /* entries of a separate AGPR file (gfx908), 0: unified or none */
  unsigned buffer_dword3; /* dword 3 of a raw buffer resource (AMDGPU.md §4.3), 0: no buffer loads */
  int mem_latency_ns;     /* load-to-use latency of a memory (not cache) access, assumed: the
                           * bytes a CU must keep in flight (Little's law, docs/bench.md) */
  bool barrier_drains_memory; /* no back-off barrier: LLVM waits for every outstanding load
                               * (s_waitcnt vmcnt(0)) before each s_barrier, so a K loop's
                               * loads cannot stay in flight across one (gfx908) */
  bool dual_issue;        /* VOPD: two f32 FMAs of a wave in one issue slot (gfx11, gfx12) */
  /* machine-code emulator (src/emu, ISA.md §1.3, §3.9) */
  bool packed_workitem_ids; /* work-item ids packed 10:10:10 in v0 (gfx90a, gfx942, gfx950, gfx11+) */
  bool store_counter;       /* stores counted apart from loads (vscnt on gfx10/11, storecnt gfx12) */
  int lgkm_max;             /* largest lgkmcnt (4 bits on gfx9, 6 on gfx10+); vmcnt is 63 on all */
  /* split-K's choice of form (tuning.c, docs/partitioning.md "Choosing the split and its form") */
  int coherent_cache_mib; /* the cache where one work-group's stores meet another CU's loads after
                           * an agent-scope release/acquire: the L2 (gfx908, gfx90a, RDNA), the
                           * Infinity Cache where each XCD has its own L2 (gfx942, gfx950) */
  int cache_latency_ns;   /* load latency of a hit in that cache */
  int launch_ns;          /* what one more dependent kernel launch costs, its wave start included */
  bool literal_64bit;       /* a 64-bit encoding may carry a literal dword (gfx950, gfx10+); the
                             * longest instruction of gfx908..gfx942 is 8 bytes */
  bool cvt_pk_rne;          /* two f32 to packed f16 or bf16, rounded to nearest even, in one
                             * instruction (v_cvt_pk_f16_f32, v_cvt_pk_bf16_f32: gfx950) */
  bool lds_read_tr16;       /* ds_read_b64_tr_b16: a 16-bit tile read from LDS transposed across
                             * 16 lanes (llvm.amdgcn.ds.read.tr16.b64: gfx950) */
  bool fp8_fnuz;            /* the fp8/bf8 instructions (MFMA operands, v_cvt_pk_fp8_f32) use the
                             * FNUZ encodings (gfx942), else the OCP ones (AMDGPU.md §3.6) */
  bool cvt_pk_f8;           /* the fp8/bf8 conversions of the fp8_fnuz encoding, both ways:
                             * v_cvt_pk_fp8_f32 / v_cvt_pk_bf8_f32 (llvm.amdgcn.cvt.pk.fp8.f32, .bf8),
                             * two f32 to two codes rounded to nearest even, and v_cvt_f32_fp8,
                             * v_cvt_pk_f32_fp8 and their bf8 forms (llvm.amdgcn.cvt.f32.fp8,
                             * cvt.pk.f32.fp8), codes to f32 (gfx942, gfx950, gfx1200;
                             * src/codegen/cvt_f8.c) */
  /* the skinny kernel's memory model (tuning.c cg_tune_gemv_cycles, docs/gemm.md) */
  int line_bytes;         /* the cache line: the least a load moves from memory to a CU */
  int cu_load_bytes_clk;  /* bytes per clock one CU's vector loads can bring in from the L2 */
  int l2_parts;           /* L2 caches that consecutive work-groups are dealt across (one per XCD
                           * on gfx942 and gfx950): a line that work-groups on different ones read
                           * in pieces is fetched from memory by each */
} target_info;

extern const target_info target_table[];
extern const int target_count;
const target_info *target_lookup(const char *name, size_t n);

/* Matrix instructions per target and operand type that the GEMM family may use (LLVM 22
 * availability: shared docs amdgpu/mfma_avail.md, wmma_avail.md). An intrinsic a target lacks
 * aborts LLVM, so the GEMM family only ever picks rows of this table. */
typedef enum matrix_layout { MATRIX_MFMA = 1, MATRIX_WMMA_GFX11, MATRIX_WMMA_GFX12 } matrix_layout;
typedef struct target_matrix {
  const char *target;    /* processor name */
  elem_type in;          /* A/B element type; accumulation is f32 (floats) or i32 (i8) */
  matrix_layout layout;  /* lane layout family (AMDGPU.md §3.3, §3.5) */
  int m, n, k;           /* one instruction: D[m][n] += A[m][k] * B[k][n] */
  const char *intrinsic; /* LLVM name without overload suffix */
  const char *mnemonic;  /* ISA mnemonic */
  int cycles;            /* cycles one instruction occupies the matrix unit (AMDGPU.md §3) */
} target_matrix;
extern const target_matrix target_matrix_table[];
extern const int target_matrix_count;

/* Block-scaled matrix instructions (gfx950 v_mfma_scale_*_f8f6f4): D[m][n] += sum over k of
 * A[m][k] * 2^(sa - 127) * B[k][n] * 2^(sb - 127), one E8M0 scale byte per lane for A and for B,
 * each covering the `block` consecutive K values that lane holds. A target has the instruction
 * iff it has a row here. `mnemonic_unscaled` is the form LLVM selects when both scale operands
 * are the constant 0 (scales taken as 1.0). Formats: the intrinsic's cbsz (A) and blgp (B),
 * 4 = E2M1 (fp4); `cycles_f4` is the cost with fp4 A and B. Semantics and lane layout:
 * docs/emulator.md, "Block-scaled MFMA". */
typedef struct target_scaled_matrix {
  const char *target;
  int m, n, k, block;
  const char *intrinsic; /* LLVM name without overload suffix */
  const char *mnemonic, *mnemonic_unscaled;
  int cycles_f4;
} target_scaled_matrix;
extern const target_scaled_matrix target_scaled_matrix_table[];
extern const int target_scaled_matrix_count;
/* The row of `processor` whose mnemonic (scaled or unscaled form) is `mnemonic`, or NULL. */
const target_scaled_matrix *target_scaled_matrix_by_mnemonic(const char *processor, const char *mnemonic);
/* The row of `processor` with an m x m tile (m 0: its first row), or NULL: no such instruction. */
const target_scaled_matrix *target_scaled_matrix_find(const char *processor, int m);

/* Dot-product instructions of the GEMM FMA path (no matrix instruction for the type): `k`
 * products of `in` elements summed into an f32 (i32 for i8) accumulator in one VALU instruction
 * (LLVM 22: llvm.amdgcn.fdot2 v_dot2(c)_f32_f16, fdot2.f32.bf16, sdot4 v_dot4(c)_i32_i8 /
 * v_dot4_i32_iu8). */
typedef struct target_dot {
  const char *target;
  elem_type in;
  const char *intrinsic;
  int k;
} target_dot;
extern const target_dot target_dot_table[];
extern const int target_dot_count;

/* One requested target: processor plus target-ID features, e.g. gfx90a:sramecc+:xnack-. */
typedef struct target_request {
  const target_info *info;
  feature_mode sramecc, xnack;
  char id[64];       /* canonical target ID: "gfx90a:sramecc+:xnack-" */
  char features[64]; /* LLVM feature string: "+sramecc,-xnack" */
} target_request;

/* Parse one target ID; on error writes a message (naming the known targets) to err. */
bool target_parse(const char *s, target_request *out, char *err, size_t errsize);

/* ---------------------------------------------------------------- frontend/ */
/* One dynamic ('?') dimension of an entry argument given a value (--specialize=ARG:DIM=V,...:
 * one fe_dim_value per dimension and variant). arg: the SSA name without '%', or the index. */
typedef struct fe_dim_value {
  const char *arg;
  int dim;
  int64_t value;
} fe_dim_value;

/* What the frontend does with a form mlir-opt-22's verifier accepts but no TOSA 1.0 profile
 * defines (an i32 clamp, a same-type cast): accept it, warn (-Wtosa-profile), refuse it
 * (--tosa-strict). */
typedef enum fe_profile_mode { FE_PROFILE_ACCEPT = 0, FE_PROFILE_WARN, FE_PROFILE_STRICT } fe_profile_mode;

typedef struct fe_options {
  const char *entry; /* function to compile; NULL: the single public one */
  const fe_dim_value *specialize; /* values for '?' dimensions of the arguments (one variant) */
  int nspecialize;
  /* A compile of several entries: a function without '?' argument dimensions ignores
   * `specialize` (it applies to the dynamic entries only) instead of refusing it. */
  bool specialize_if_dynamic;
  fe_profile_mode profile; /* forms upstream accepts beyond TOSA 1.0's profiles */
} fe_options;
/* The argument type as written, '?' dimensions as FE_DYNAMIC_DIM (fe_parse replaces every one
 * with a value from fe_options.specialize or from a dimension shape rules tie it to). */
#define FE_DYNAMIC_DIM (-1)

/* Parse and verify; NULL (with diagnostics) on error. The graph lives in arena a. */
graph *fe_parse(arena *a, const source_file *src, const fe_options *opt, diag_sink *d);
/* The same in two steps, for a module compiled as several entries: the top level is scanned
 * once (fe_open), then each function is parsed from the scan (fe_parse_function with
 * opt->entry naming it; NULL entry: fe_parse's choice). */
typedef struct fe_module fe_module;
fe_module *fe_open(arena *a, const source_file *src, diag_sink *d);
graph *fe_parse_function(fe_module *m, const fe_options *opt);
/* The functions that become entries: the one opt->entry names, else every public function with
 * a body in file order; 0 after reporting why there is none. */
int fe_entry_names(fe_module *m, const fe_options *opt, const char ***names);
/* frontend/fold_control.c (called by fe_parse): inline cond_if branches with constant conditions
 * and unroll while_loops whose condition is constant in every iteration (up to a bound). Control
 * flow that does not fold stays in the graph and becomes control nodes of the launch graph
 * (partition/control.c); false (diagnosed) on errors. */
bool fe_fold_control(graph *g, diag_sink *d);
/* Print the graph as canonical TOSA 1.0 (generic op form) that mlir-opt-22 parses. */
void fe_print_tosa(FILE *out, const graph *g);

/* ---------------------------------------------------------------- partition/ */
typedef enum buffer_kind {
  BUF_INPUT,
  BUF_OUTPUT,
  BUF_INTERMEDIATE,
  BUF_WORKSPACE,
  BUF_CONSTANT, /* bytes in the weights sidecar file at `offset` */
} buffer_kind;

typedef struct part_buffer {
  int id;
  buffer_kind kind;
  const value *v;   /* the graph value it holds */
  int index;        /* graph argument / result index for inputs and outputs, else -1 */
  int64_t bytes;
  int64_t offset;   /* workspace offset (intermediates, workspaces), weights file offset
                       (constants), else 0 */
  int64_t align;    /* 256 */
  int inplace;      /* 0, or 1 + the id of the input buffer whose bytes this intermediate
                       overwrites in place (same offset; partition/inplace.c) */
  bool zeroed;      /* BUF_WORKSPACE in the zeroed region: zero when the workspace is allocated,
                       left zero by every launch (split-K arrival counters); never shared */
} part_buffer;

typedef enum kernel_family {
  KF_ELEMENTWISE, /* elementwise chains */
  KF_GEMM,        /* matmul / convolution anchor + elementwise epilogue */
  KF_REDUCTION,   /* reduction anchor */
  KF_POOL,        /* pooling anchor */
  KF_DATA,        /* data movement anchor */
  KF_FFT,         /* fft2d / rfft2d anchor (direct DFT) */
  KF_FILL,        /* --init=kernel: writes a fill pattern over a byte range (no anchor op) */
  KF_ATTENTION,   /* matmul, score ops, softmax, matmul (partition/attention.c): one
                     flash-attention kernel; anchor is the second matmul */
  KF_ROWNORM,     /* last-axis reductions with the elementwise ops around them (layer norm,
                     RMS norm, softmax; partition/rownorm.c): one work-group per row; anchor
                     is the first reduction */
  KF_MXGEMM,      /* a block-scaled (mxfp4) matmul with the ops decoding its operands
                     (partition/mxgemm.c): the target's block-scaled MFMA on the bytes;
                     anchor is the matmul */
  KF_COUNT
} kernel_family;

/* What a kernel computes when the partitioner expanded one reduction, or one GEMM (split-K,
 * partition/splitk.c), into several launches (partition/expand.c). Every other kernel is
 * KR_PLAIN. For a GEMM, KR_PARTIAL sums split_count chunks of K into a workspace
 * [split_count, <result shape>] of the accumulator type (f32 / i32), and KR_COMBINE adds those
 * partials, then applies the bias and the fused epilogue. */
typedef enum kernel_role {
  KR_PLAIN = 0, /* the whole op in one kernel */
  KR_PARTIAL,   /* split_count chunks of the reduced axis, one partial result each, into a
                   workspace buffer [split_count, outer*inner] of the accumulator type */
  KR_COMBINE,   /* reduces that workspace over the chunks into the op's result */
  KR_ATOMIC,    /* split_count chunks accumulate atomically into the result, which a fill node
                   initialised to the op's identity; reads and writes its output */
  KR_IM2COL,    /* a convolution's gather (partition/im2col.c): writes the workspace matrix
                   [M + OC, Kpad] (input patches, then the weights, k past K zero) */
  KR_COLS,      /* the convolution as a plain GEMM over that workspace (A its first M rows, B
                   its last OC), with the bias and the fused epilogue; in_vals[0] is it */
  KR_PHASE,     /* one output phase (`phase`) of a strided transpose_conv2d: a stride-1 GEMM over
                   that phase's taps only, writing its disjoint pixels of the result; the other
                   phases are other kernels, or a zero fill where no tap reaches */
  KR_FIXUP,     /* split-K in one kernel (partition/splitk.c): split_count chunks of K write their
                   partials to a workspace [split_count, <result shape>] (out_vals[nout - 2]);
                   the last work-group of each output tile to arrive (a per-tile counter in
                   out_vals[nout - 1], zeroed workspace) adds them and runs the epilogue */
} kernel_role;

/* A kernel result stored as its slice of a larger buffer (partition/plan.c "concatenation in
 * place"): the result of a tosa.concat whose operands are the results of kernels that only the
 * concat reads. Row-major element lin of v lands at
 * (lin / block) * dst_block + start + lin % block. */
typedef struct part_slot {
  const value *v;    /* the value stored so; NULL: none */
  int64_t block;     /* elements of v per index of the dims before the axis */
  int64_t dst_block; /* elements of the concat's result per index of those dims */
  int64_t start;     /* element offset of v's first element */
} part_slot;

typedef struct part_kernel {
  int id;
  char name[64]; /* symbol: "tosac_k0_add" */
  kernel_family family;
  tensor_type iter; /* the iteration space: every output has this shape */
  const op *anchor; /* the non-elementwise op the kernel is built around (its result is the
                       input of the epilogue ops that follow it in `ops`); NULL for KF_ELEMENTWISE */
  const op **ops;   /* ops fused into the kernel, topological; const ops they read included */
  int nops;
  int *in_bufs;     /* buffer ids read, in kernel argument order */
  int nin;
  const value **in_vals;
  int *out_bufs;    /* buffer ids written, after the inputs in argument order */
  int nout;
  const value **out_vals;
  /* Inputs read at an element offset into their buffer (partition/views.c "slice views": a
   * contiguous tosa.slice launches nothing, its readers read its input's buffer from the slice's
   * first element): in_vals entries equal to in_off_vals[i] start at in_offs[i] elements. Kept
   * by value, so the kernels an expansion derives from this one (split-K, im2col) stay right. */
  const value **in_off_vals;
  int64_t *in_offs;
  int nin_offs;
  kernel_role role;  /* KR_PLAIN unless expanded */
  bool args_alias;   /* an output is written in place of an input (inplace.c): the kernel's
                        pointer arguments may alias, so codegen drops noalias */
  int split_count;   /* KR_PARTIAL / KR_COMBINE / KR_ATOMIC: chunks of the reduced axis */
  int phase;         /* KR_PHASE: the output phase, (py, px) as py * sx + px */
  int reuses;        /* 0, or 1 + the index of an earlier kernel with an identical spec: this
                        launch runs that kernel's code (same name) with its own buffers */
  int64_t fill_offset; /* KF_FILL: byte offset in out_bufs[0]; iter is [elements] of the fill
                          type; the pattern follows from ops (the op whose output it initialises) */
  uint64_t fill_bits;  /* KF_FILL: the element's bit pattern */
  part_slot slot;          /* an output stored into a concat's buffer; slot.v NULL: none */
  const op **gemm_anchors; /* a grouped GEMM (partition/group.c): the matmuls sharing A, one
                              slice of the grid each; anchor is the first; NULL otherwise */
  int ngemm;
  const op **prologue; /* KF_GEMM: the row norm (partition/group.c part_norm_gemv) the skinny
                          kernel evaluates before its loop into the normalised rows of A */
  int nprologue;
  bool prologue_tile; /* the prologue is the tile kernel's (all of K of the work-group's M tile
                         in LDS; it stores the norm's value where other kernels read it) */
  bool dual_b; /* gemm_anchors are the two matmuls of a dual-B GEMM (partition/group.c): one
                  tile loop over A with both B operands, both results in one epilogue */
  bool causal; /* KF_ATTENTION: a constant causal mask (partition/attention.c):
                  key j of query i is masked for j > i + causal_offset, so the
                  key loop of a query block stops at its last query's last
                  unmasked key */
  int64_t
      causal_offset; /* L - S for a KV cache longer than the queries; >= 0 */
} part_kernel;

/* Operand views (partition/views.c, docs/partitioning.md "Operand views"): a tosa.transpose or
 * tosa.slice whose only reader is a convolution's input or weights joins that convolution's
 * kernel, which reads the bytes under it through strides instead of a copy.
 * part_is_operand_view: o is such an op of kernel k (its result is read inside k).
 * part_operand_strides: v (an operand of k's anchor) as a strided view of a kernel input: src,
 * the element offset of v's first element in src, the element step of each of v's dims; an
 * operand no view op of k computes is its own row-major view. */
typedef struct part_strided {
  const value *src;
  int64_t offset;
  int64_t stride[TOSAC_MAX_RANK];
} part_strided;
/* A block-scaled (mxfp4) GEMM (partition/mxgemm.c, docs/migraphx.md): a tosa.matmul whose
 * operands the graph decodes from fp4 bytes times E8M0 scales (the migraphx frontend's form).
 * Operand A's element (b, m, k), B's element (b, k, n) as (b, r = n, k), is the fp4 nibble
 * d_off + b d[0] + r d[1] + k d[2] of `data` (nibble 2i is byte i's low nibble, 2i + 1 its high
 * one) times 2^(e - 127) for the byte e at s_off + b s[0] + r s[1] + (k / 32) s[2] of `scale`. */
typedef struct part_mx_operand {
  const value *data, *scale; /* i8 tensors in memory (kernel inputs) */
  int64_t d_off, d[3], s_off, s[3];
} part_mx_operand;
typedef struct part_mx_gemm {
  part_mx_operand a, b;
  int64_t batch, m, n, k;
} part_mx_gemm;
/* Is mm such a GEMM (every element traced)? Fills out. */
bool part_mx_match(const op *mm, part_mx_gemm *out);
bool part_is_operand_view(const part_kernel *k, const op *o);
/* Is o an op of k's row-norm prologue (part_kernel.prologue, partition/group.c)? */
bool part_is_prologue(const part_kernel *k, const op *o);
/* The element offset at which kernel k reads input value v in its buffer (0 for most). */
int64_t part_input_offset(const part_kernel *k, const value *v);
void part_operand_strides(const part_kernel *k, const value *v, part_strided *s);
/* part_is_output_view: o is a transpose of k's anchor result that k stores its result
 * through (the convolution's NHWC result written in the transpose's layout). */
bool part_is_output_view(const part_kernel *k, const op *o);
/* Does k read through operand views (no im2col), write through an output view (no im2col, no
 * split-K)? */
bool part_has_operand_views(const part_kernel *k);
bool part_has_output_view(const part_kernel *k);
/* Does s read its source as v's own row-major layout (no view, or a view that moves nothing)? */
bool part_strided_is_plain(const part_strided *s, const tensor_type *t);

/* READBACK copies a condition to the host; IF and WHILE run the launches of their regions
 * (partition/control.c, docs/manifest.md "Control nodes"). */
typedef enum launch_kind {
  LAUNCH_KERNEL,
  LAUNCH_FILL,
  LAUNCH_COPY,
  LAUNCH_READBACK,
  LAUNCH_IF,
  LAUNCH_WHILE
} launch_kind;

typedef struct launch_node {
  int id;
  launch_kind kind;
  int kernel;      /* LAUNCH_KERNEL: index into kernels */
  int src_buf, dst_buf; /* LAUNCH_COPY: buffers; LAUNCH_FILL: dst_buf */
  int64_t fill_offset, fill_bytes; /* LAUNCH_FILL: byte range of dst_buf */
  elem_type fill_type;             /* LAUNCH_FILL: element type of the pattern */
  double fill_value;               /* LAUNCH_FILL: the value, e.g. 0.0 or -inf */
  uint64_t fill_bits;              /* LAUNCH_FILL: its bit pattern in fill_type */
  int *deps;       /* node ids that must finish first (transitively reduced) */
  int ndeps;
  /* LAUNCH_READBACK: src_buf is the condition. LAUNCH_IF / LAUNCH_WHILE: */
  const op *ctl;   /* the tosa.cond_if / tosa.while_loop */
  int *io_bufs;    /* buffers of its operands (nin_bufs), then of its results (nout_bufs) */
  int nin_bufs, nout_bufs;
  int cond;        /* the readback node whose byte decides: IF a top-level node it depends on,
                      WHILE the last node of region[0] */
  int *region[2];  /* IF: then, else; WHILE: cond, body; node ids in launch order */
  int nregion[2];
  bool in_region;  /* runs inside a region, not in the plan's top-level order */
} launch_node;

typedef struct partition_plan {
  const target_request *target;
  part_kernel *kernels;
  int nkernels;
  part_buffer *buffers;
  int nbuffers;
  launch_node *nodes;
  int nnodes;
  int *order; /* a topological order of the top-level nodes (region nodes run from their
                 control node) */
  int norder;
  int64_t workspace_bytes;
  int64_t workspace_align;
  int64_t workspace_zeroed; /* the first bytes of the workspace that the client zeroes once when it
                               allocates it and every run leaves zero (docs/manifest.md) */
  int64_t weights_bytes; /* size of the weights file (same for every target's plan) */
  int ndistinct;         /* kernels with code of their own (the others reuse one) */
} partition_plan;

/* The weights file: every BUF_CONSTANT's bytes (splats expanded) at its offset. malloc'd. */
uint8_t *part_weights_image(const partition_plan *p, size_t *size);

partition_plan *part_plan(arena *a, const graph *g, const target_request *t, diag_sink *d);
/* How outputs that kernels accumulate into are initialised (--init): fill nodes in the launch
 * DAG (default), or one generated init kernel (KF_FILL) per fill. Set on the thread that calls
 * part_plan, before it. */
typedef enum part_init_mode { PART_INIT_MEMSET = 0, PART_INIT_KERNEL } part_init_mode;
void part_set_init_mode(part_init_mode m);
/* Whether expansions that add workspace buffers (split-K, im2col, reduction partials, split-KV)
 * may be chosen (default yes). Set on the thread that calls part_plan, before it. */
void part_set_workspace_expansions(bool on);
/* partition/link.c: the plans of one target's n variants (or entries) as one plan for
 * cg_compile: kernels and buffers concatenated (variant v's start at kernel_base[v] /
 * buffer_base[v], buffer ids shifted by it), kernels of variants v > 0 renamed heads[v]...
 * (heads NULL: tosac_v<v>_...), identical kernels deduplicated across variants (their names in
 * plans[] follow). n == 1 returns plans[0] unchanged. */
partition_plan *part_link(arena *a, partition_plan *const *plans, int n, const char *const *heads,
                          int *kernel_base, int *buffer_base);
/* Variant plan p's weights buffers at the offsets of the same constants in ref (variant 0's plan,
 * whose weights file is written); false (diagnosed) when a constant has no twin there. */
bool part_share_weights(partition_plan *p, const partition_plan *ref, diag_sink *d);
/* The largest value count among graphs gs[0..n) and their regions (codegen sizes its per-value
 * tables by it). */
int part_value_bound(const graph *const *gs, int n);
/* The largest op count among g and its regions. */
int part_op_bound(const graph *g);
/* Human-readable dump for --emit=partitions. */
void part_print(FILE *out, const graph *g, const partition_plan *p);
/* Graphviz view for --emit=dot: ops grouped into kernels, dependencies dashed. */
void part_print_dot(FILE *out, const graph *g, const partition_plan *p);

/* ---------------------------------------------------------------- codegen/ */
typedef struct cg_tuning_db cg_tuning_db;
typedef struct cg_options {
  int opt_level;           /* 0..3 */
  int code_object_version; /* 4, 5, 6 */
  bool embed_ir;           /* keep optimised bitcode */
  bool want_llvm_ir;       /* keep textual IR (after O3) */
  bool want_asm;           /* keep assembly */
  const char *perf_config; /* GEMM tuning override (--perf-config, docs/gemm.md); NULL: heuristic */
  const struct cg_tuning_db *tuning_db; /* --tuning-db entries, NULL: none */
  struct cg_cache *cache;  /* persistent kernel cache (--cache-dir), NULL: none */
} cg_options;

/* codegen/cache.c: the persistent kernel cache of work-item objects (docs/library.md). */
#define CG_CACHE_KEY_LEN 65
typedef struct cg_cache {
  char *dir, *objects;
  uint64_t max_size;              /* bytes, 0: unbounded */
  _Atomic uint64_t hits, misses; /* of this compile */
} cg_cache;
bool cg_cache_open(cg_cache *c, const char *dir, uint64_t max_size, char *err, size_t errsize);
/* Add this compile's counters to the directory's totals and evict down to max_size. */
void cg_cache_finish(cg_cache *c);
void cg_cache_close(cg_cache *c);
/* Totals of a cache directory; false if dir holds no cache. */
bool cg_cache_stats(const char *dir, uint64_t *hits, uint64_t *misses, uint64_t *entries,
                    uint64_t *bytes);

/* codegen/tuning.c: the tuning database (--tuning-db, docs/gemm.md). cg_tuning_db_add reads one
 * file's lines ("target<TAB>problem key<TAB>perf-config<TAB>score", '#' comments); false with
 * `file:line:col: error:` for each malformed line; a later entry for the same target and key
 * wins. */
cg_tuning_db *cg_tuning_db_new(void);
bool cg_tuning_db_add(cg_tuning_db *db, const source_file *src, diag_sink *d);
void cg_tuning_db_free(cg_tuning_db *db);
/* The --perf-config string and database the split-K cost model (cg_gemm_shape) sees on the
 * calling thread; set before part_plan. Kernel emitters take cg_options' copies. */
void cg_tuning_set(const char *perf_config, const cg_tuning_db *db);

typedef struct cg_arg {
  char name[48];
  int64_t offset, size;
  char value_kind[40];   /* "global_buffer", "by_value", "hidden_block_count_x", ... */
  char address_space[16];
  int buffer;            /* bound buffer id, -1 for hidden args and scalars */
  char access[16];       /* "read_only" / "write_only" / "read_write" / "" (what codegen declared) */
} cg_arg;

typedef struct cg_kernel_info {
  char name[64];
  char symbol[72]; /* name + ".kd" */
  int64_t kernarg_size, kernarg_align;
  int64_t lds_bytes, private_bytes;
  int sgpr, vgpr, agpr, sgpr_spill, vgpr_spill;
  int wave_size, max_flat_wg;
  cg_arg *args;
  int nargs;
  uint32_t block[3];     /* work-items per group */
  uint32_t grid[3];      /* work-groups per dimension */
  int64_t work_items;    /* useful work-items (elements / vector width) */
  int vector_width;      /* elements per work-item access */
  char tuning[384];      /* GEMM family: tile parameters as a small JSON object text, else "" */
  char matrix_instruction[64]; /* GEMM family: "v_mfma_f32_32x32x8f16", "v_wmma_...", "fma" */
} cg_kernel_info;

/* Stages of cg_compile, indexes of cg_result.time_ms. */
enum { CG_STAGE_IR, CG_STAGE_OPT, CG_STAGE_EMIT, CG_STAGE_LINK, CG_STAGE_META, CG_STAGE_COUNT };

typedef struct cg_result {
  uint8_t *code_object;  /* linked ET_DYN ELF (malloc) */
  size_t code_size;
  uint8_t *bitcode;      /* optimised IR, when embed_ir (malloc) */
  size_t bitcode_size;
  char *llvm_ir;         /* when want_llvm_ir (malloc) */
  char *asm_text;        /* when want_asm (malloc) */
  cg_kernel_info *kernels; /* one per plan kernel, same order (malloc) */
  int nkernels;
  unsigned e_flags;
  int abi_version;       /* EI_ABIVERSION */
  double time_ms[CG_STAGE_COUNT]; /* per stage: sum of its work items' wall times (--time-report) */
  int work_items;        /* LLVM modules the kernels were compiled in (chunks, see -v) */
  int cache_hits;        /* work items taken from the kernel cache */
} cg_result;

void cg_init(void); /* once per process: LLVM target initialisation */
/* codegen/tuning.c: the one place that decides tiles and split factors (from the target
 * table); the partitioner's expansion and the emitters ask the same functions. */
/* A reduction's input seen as [outer, r, inner] around its axis. */
void cg_reduction_dims(const op *anchor, int64_t *outer, int64_t *r, int64_t *inner);
/* The work-group tile of a reduction kernel (tx columns of inner x ty slices of r, tx*ty = 256). */
void cg_reduction_tile(int64_t r, int64_t inner, int *tx, int *ty);
/* How a reduction is split over work-groups on t: not at all, into `split` chunks that combine by
 * atomics into a filled output, or into partials in a workspace plus a combine kernel. */
typedef enum cg_red_split { CG_RED_NONE, CG_RED_ATOMIC, CG_RED_PARTIAL } cg_red_split;
cg_red_split cg_tune_reduction(const target_info *t, const op *anchor, int *split);
/* The two forms of a split-K GEMM (docs/partitioning.md "Split-K GEMMs"): a combine kernel after
 * the GEMM kernel, or the last work-group of each tile reducing in the GEMM kernel. */
typedef enum cg_splitk_form { SPLITK_COMBINE, SPLITK_LASTWG } cg_splitk_form;
/* Split-K factor (>= 2) for a GEMM anchor on t, or 0: keep one kernel; *form (if given): the
 * form the estimate (or TOSAC_SPLIT_K_FORM) picks for it. */
int cg_tune_splitk(const target_info *t, const op *anchor, cg_splitk_form *form);
/* Whether the GEMM of anchor takes the skinny kernel on t (decode's M = 1; kernel_gemm.c). */
bool cg_tune_gemm_skinny(const target_info *t, const op *anchor);
/* Does the tile kernel for anchor fit with a row-norm prologue's A rows (its M tile, all of K)
 * in LDS beside its staging buffers (kernel_gemm.c; the tile chosen for that problem), and is it
 * estimated faster so, for ngemm such GEMMs, than the plain GEMMs after a norm kernel (ngemm 0:
 * whether it fits only)? */
bool cg_tune_gemm_resident(const target_info *t, const op *anchor, int ngemm);
/* Whether the clients of this compile keep a zeroed workspace region (default true): without it
 * every split takes the combine kernel. Per thread, set before part_plan; returns the setting
 * it replaces. */
bool cg_tuning_allow_fixup(bool allow);
/* im2col for a convolution whose per-element gather dominates (small C, large window): the
 * padded K of the workspace matrix, or 0 to keep the implicit GEMM. */
int64_t cg_tune_im2col(const target_info *t, const op *anchor);
/* A strided transpose_conv2d as one kernel per output phase or one kernel with the phases in its
 * grid, whichever the estimate prefers (TOSAC_CONV_PHASES=1/0 forces it): the phase count sy*sx
 * (at most 64) for per-phase kernels, else 0; *empty: bit p set when no tap reaches phase p. */
int cg_tune_phases(const target_info *t, const op *anchor, uint64_t *empty);
/* Split-KV attention (docs/partitioning.md "Split-KV for decode"): the chunk
 * count P the estimate picks for B (batch x heads) entries of S queries over L
 * keys, head sizes D and Dv, elements of eb bytes (1: no split); *est_us (if
 * given): the estimate at that P. */
int cg_tune_splitkv(const target_info *t, int64_t B, int64_t S, int64_t L,
                    int64_t D, int64_t Dv, int eb, double *est_us);
/* Whether that attention takes the decode kernel (kernel_attention_decode.c): few query rows,
 * on MFMA targets only where its estimate beats the flash kernel's (TOSAC_ATTENTION_DECODE=0/1
 * forces it off/on where it fits). */
#define CG_DECODE_ROWS 4
bool cg_tune_attention_decode(const target_info *t, int64_t B, int64_t S, int64_t L, int64_t D, int64_t Dv,
                              int eb);
/* The same, as the attention kernel decides it (kernel_attention_decode.c): also the element
 * types of Q, K and V (equal floats) and TOSAC_ATTENTION_FMA / TOSAC_ATTENTION_LDS, which force
 * other variants. The partitioner asks it before reading a concatenation through (concat views). */
bool cg_attention_takes_decode(const target_info *t, elem_type q, elem_type k, elem_type v, int64_t B, int64_t S,
                               int64_t L, int64_t D, int64_t Dv);
/* Whether a split-KV decode attention over P chunks reduces in its last work-group per batch-and-
 * head entry (KR_FIXUP: no combine kernel; zeroed workspace counters) rather than in a combine
 * kernel: the decode kernel only, where fixups are allowed (cg_tuning_allow_fixup), by the
 * estimate (TOSAC_SPLIT_KV_FORM=combine / lastwg forces one). */
bool cg_tune_splitkv_lastwg(const target_info *t, int64_t B, int64_t S, int64_t L, int64_t D, int64_t Dv, int eb,
                            int P);
/* Key passes per loop iteration of the decode kernel over chunks of `chunk` keys, `slots` keys
 * per pass (1 to 4). */
int64_t cg_tune_decode_unroll(int64_t chunk, int64_t slots);
/* The same estimate at a given P. */
void cg_tune_splitkv_at(const target_info *t, int64_t B, int64_t S, int64_t L,
                        int64_t D, int64_t Dv, int eb, int P, double *est_us);
/* codegen/kernel_attention.c: keys per chunk when a split-KV attention cuts L keys into `split`
 * chunks (whole 64-key tiles; the last chunk may be shorter), for partition/attention.c. */
int64_t cg_attention_chunk(int64_t L, int split);
/* codegen/kernel_gemm.c: work-group tiles of a GEMM's output (batch x M tiles x N tiles), K
 * steps with the chosen tile on t, and K; false when the op has no GEMM kernel. kernel (may be
 * NULL: the anchor alone) adds its operand views, which change the problem and so the tile the
 * emitter picks (a split-K counter per tile of that tile). */
bool cg_gemm_shape(const target_info *t, const op *anchor, const part_kernel *kernel, int64_t *tiles,
                   int64_t *ksteps, int64_t *k);
bool cg_compile(const graph *g, const partition_plan *p, const cg_options *opt, cg_result *out,
                diag_sink *d);
/* codegen/schedule.c: compile plans[0..n) (one per target) on up to `jobs` threads, the kernels
 * of every target split into work items; the output does not depend on jobs. diag_text[i]: the
 * diagnostics of target i (malloc, NULL if none), to print in target order. progress: show
 * "[k/n] target ..." on stderr. True if every target compiled. */
bool cg_compile_targets(const graph *g, const partition_plan *const *plans, int n,
                        const cg_options *opt, int jobs, bool progress, cg_result *out,
                        char **diag_text);
void cg_result_free(cg_result *r);

/* ---------------------------------------------------------------- bundle/ */
#define BND_HOST_ID "host-x86_64-unknown-linux-gnu-"
#define BND_ALIGN 4096

typedef struct bnd_entry {
  char id[128];          /* "hipv4-amdgcn-amd-amdhsa--gfx90a" */
  const uint8_t *data;
  size_t size;
} bnd_entry;

/* Serialise entries (host entry first is the caller's job) into a malloc'd buffer. */
uint8_t *bnd_build(const bnd_entry *entries, int n, size_t align, size_t *out_size);
/* Parse a bundle held in memory; entries point into data. false + message on malformed input. */
bool bnd_parse(const uint8_t *data, size_t size, bnd_entry **entries, int *n, char *err,
               size_t errsize);
/* A CCOB compressed bundle (AMDGPU.md 1.3, zstd) of version 2 or 3 holding `bundle`; malloc'd,
 * NULL + message on error. bnd_parse reads these transparently. */
uint8_t *bnd_compress(const uint8_t *bundle, size_t size, int version, size_t *out_size,
                      char *err, size_t errsize);
/* Entry IDs tosac uses. */
void bnd_code_object_id(const target_request *t, char *buf, size_t size);
void bnd_bitcode_id(const target_request *t, char *buf, size_t size);

/* One variant of a --specialize compile: its graph, and per target its plan and where its kernels
 * and buffers start in the linked plan the code object was compiled from (part_link). */
typedef struct bnd_variant {
  const graph *g;
  const partition_plan **plans;
  const int *kernel_base, *buffer_base;
} bnd_variant;

typedef struct bnd_manifest_entry {
  const char *name;
  int first, count;
} bnd_manifest_entry;

typedef struct bnd_manifest_input {
  const graph *g;
  const char *source_path;
  const char *bundle_path;
  int ntargets;
  const target_request *targets;
  const partition_plan **plans;
  const cg_result *results;
  const cg_options *cg;
  const char *weights_path; /* weights file as written (NULL when there are no constants) */
  int64_t weights_bytes;
  const bnd_variant *variants; /* --specialize: every variant, [0] the one g/plans describe; */
  int nvariants;               /* 0: no `variants` table */
  /* Several public functions (docs/manifest.md "Entries"): entry e is variants[first] ..
   * variants[first + count - 1] (count > 1: its own `variants` table); g/plans describe entry
   * 0's first variant. 0: one entry, and variants are that entry's. */
  const struct bnd_manifest_entry *entries;
  int nentries;
  const char *bundle_digest;  /* bnd_digest of the bundle's bytes as written (NULL: null) */
  const char *weights_digest; /* bnd_digest of the weights file's bytes (NULL: none) */
} bnd_manifest_input;

/* bundle/digest.c: "sha256:<64 hex>" of data, the manifest's "digests" entries. */
#define BND_DIGEST_SIZE 72
void bnd_digest(const void *data, size_t size, char out[BND_DIGEST_SIZE]);
/* The digest of the file write_file_pieces writes from these pieces (the weights file, never
 * held whole in memory); false on pieces it would refuse. */
struct file_piece;
bool bnd_digest_pieces(size_t total, const struct file_piece *pieces, int n,
                       char out[BND_DIGEST_SIZE]);
/* Does data (the file at path) have the digest the manifest records? Empty or NULL expected
 * (a manifest without digests) passes; else false + "PATH does not belong to this manifest". */
bool bnd_digest_check(const char *expected, const void *data, size_t size, const char *path,
                      char *err, size_t errsize);

/* Manifest JSON text, deterministic: bnd_manifest_write streams it to f as it is produced (the
 * text is never held whole: a million-op graph's is 1.7x its input); bnd_manifest_json returns
 * the same bytes malloc'd. Both fail (false / NULL) when bnd_manifest_valid does (a plan and its
 * cg_result disagree on the number of kernels), on out of memory, and the former on a write
 * error. */
bool bnd_manifest_valid(const bnd_manifest_input *in);
bool bnd_manifest_write(FILE *f, const bnd_manifest_input *in);
char *bnd_manifest_json(const bnd_manifest_input *in);
/* bundle/entries.c, for clients: make the top level of a parsed manifest describe entry
 * function `name` (NULL: the only one; a leading '@' is allowed) and drop `entries`. false +
 * message listing the names when name is not an entry or NULL among several. */
struct cJSON;
bool bnd_manifest_select_entry(struct cJSON *root, const char *name, char *err, size_t errsize);

/* bundle/host_emit.c (--emit=host, docs/host.md): the launch graph of every target as C17 host
 * code over the HIP module API, from the same input the manifest is written from. */
typedef struct bnd_host_options {
  const char *prefix;      /* C identifier naming the API (PREFIX_load/run/unload) */
  int streams;             /* --host-streams: independent partitions on up to this many streams */
  const char *header_name; /* as #included by the .c file ("model_host.h") */
  const char *source_name; /* the .c file's name, for its build comment */
} bnd_host_options;
/* c_text / h_text: the .c and .h files (malloc). false + message (and NULLs) on error. */
bool bnd_host_emit(const bnd_manifest_input *in, const bnd_host_options *o, char **c_text,
                   char **h_text, char *err, size_t errsize);
/* A usable --prefix: a C identifier of at most 40 characters. */
bool bnd_host_prefix_valid(const char *s);

/* Write bytes to path through a temporary file in the same directory and rename. */
bool write_file_atomic(const char *path, const void *data, size_t size, char *err, size_t errsize);
/* Read a whole file ("-" = stdin) into a NUL-terminated malloc'd buffer. */
char *read_file(const char *path, size_t *size, char *err, size_t errsize);
/* A piece of a file written by write_file_pieces: `size` bytes of data repeated to fill `span`
 * bytes at `offset` (a splat), or copied once when span == size. Gaps are written as zeros. */
typedef struct file_piece {
  size_t offset, span;
  const void *data;
  size_t size;
} file_piece;
/* write_file_atomic for a file of `total` bytes made of pieces sorted by offset, written
 * straight from their buffers (no image of the whole file in memory). */
bool write_file_pieces(const char *path, size_t total, const file_piece *pieces, int n, char *err,
                       size_t errsize);
/* Several outputs that must appear together (bundle, weights, manifest): each is written in
 * full to an unnamed temporary next to its path (stage_file*: NULL + "cannot write 'PATH':
 * strerror" when it does not fit or cannot be created), and only when every one succeeded are
 * they renamed into place, in order (commit_staged). A full disk or a read-only directory thus
 * leaves every old output untouched. commit_staged frees the stages (NULL entries count as
 * failed, err then holds their message) and returns false if any was missing or a rename
 * failed. Devices (/dev/null) are written at stage time, in place. */
typedef struct staged_file staged_file;
staged_file *stage_file(const char *path, const void *data, size_t size, char *err,
                        size_t errsize);
staged_file *stage_file_pieces(const char *path, size_t total, const file_piece *pieces, int n,
                               char *err, size_t errsize);
/* The same for a file whose bytes fill(fd, ctx) writes (false with errno set on failure). */
typedef bool (*file_writer)(int fd, const void *ctx);
staged_file *stage_file_with(const char *path, file_writer fill, const void *ctx, char *err,
                             size_t errsize);
bool commit_staged(staged_file **files, int n, char *err, size_t errsize);
/* Drop stages without putting them in place (NULL entries are skipped); sets them to NULL. */
void discard_staged(staged_file **files, int n);
/* Source text of a file ("-" = stdin): a regular, non-empty file is mapped private and
 * read-only (*mapped = true), anything else is read into a malloc'd buffer; NUL-terminated
 * either way. Free with source_unload. */
char *source_load(const char *path, size_t *size, bool *mapped, char *err, size_t errsize);
void source_unload(char *text, size_t size, bool mapped);
/* Drop the whole pages inside [from, to) of a mapped source from memory (the kernel re-reads
 * them from the file if they are touched again); returns the new low mark (to rounded down to
 * a page, or from). A no-op returning from for a text that is not mapped. */
const char *source_release(const source_file *src, const char *from, const char *to);

#endif
