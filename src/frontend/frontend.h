/* frontend.h: the frontend's face (fe_parse in tosac.h) plus the helpers its files share:
 * lexer.c tokens, attrs.c types and attributes, dense.c literals, canon.c and verify.c. */
#ifndef TOSAC_FRONTEND_H
#define TOSAC_FRONTEND_H

#include "tosac.h"

/* ---------------------------------------------------------------- lexer.c */
typedef enum fe_tok_kind {
  T_EOF,
  T_ERROR,  /* already reported by the lexer */
  T_IDENT,  /* bare identifier, dots allowed: tosa.add, f32, dense */
  T_VALUE,  /* %name or %name#N */
  T_SYMBOL, /* @name */
  T_HASH,   /* #alias, #tosa.rounding_mode */
  T_BANG,   /* !tosa.shape */
  T_CARET,  /* ^bb0 (block labels inside regions we skip) */
  T_STRING, /* "..." (text includes the quotes) */
  T_INT,    /* 12, -3, 0x7F800000 */
  T_FLOAT,  /* 1.5, -2.0e+00 */
  T_LPAREN,
  T_RPAREN,
  T_LBRACE,
  T_RBRACE,
  T_LBRACKET,
  T_RBRACKET,
  T_LANGLE,
  T_RANGLE,
  T_COMMA,
  T_COLON,
  T_EQUAL,
  T_ARROW,
  T_QUESTION,
  T_STAR,
  T_PLUS, /* affine expressions: (d0 + d1) */
  T_META_BEGIN, /* {-# */
  T_META_END,   /* #-} */
} fe_tok_kind;

typedef struct fe_token {
  fe_tok_kind kind;
  const char *p; /* into the source text */
  int n;
  int line, col;
} fe_token;

/* String literals of at least FE_LONG_STRING bytes (hex constants) are read once: the lexer
 * scans them in chunks, decodes a "0x..." one right away while its text is still in cache
 * (fe_hex_decode, which releases the text behind it), and remembers where each one ends and what
 * it decoded to. The parser's second pass over the entry function steps over them without
 * reading the text again, and dense.c takes the decoded bytes. Shared by every copy of a lexer. */
#define FE_LONG_STRING (64 * 1024)
/* Text is released in steps of this many bytes (each madvise costs a TLB flush). */
#define FE_RELEASE_STEP (4 * 1024 * 1024)
typedef struct fe_long_string {
  const char *start, *end; /* the opening quote; just after the closing quote */
  uint8_t *bytes;          /* "0x..." with an even digit count: the decoded digits, else NULL */
  size_t nbytes;
  bool valid; /* every digit was a hex digit (else dense.c decodes again to report where) */
} fe_long_string;
typedef struct fe_lex_memo {
  arena *a;
  fe_long_string *v;
  int n, cap;
} fe_lex_memo;

typedef struct fe_lexer {
  const source_file *src;
  diag_sink *d;
  const char *p, *end;
  const char *line_start;
  const char *released; /* a mapped source's pages below this are dropped (skip_space) */
  int line;
  fe_lex_memo *memo; /* NULL: no memo */
} fe_lexer;

void fe_lex_init(fe_lexer *lx, const source_file *src, diag_sink *d);
fe_token fe_lex(fe_lexer *lx);
const char *fe_tok_desc(fe_tok_kind k); /* "'('", "identifier", ... */
/* The long string literal that starts at `start`, if the lexer has seen one there. */
const fe_long_string *fe_lex_long_string(const fe_lexer *lx, const char *start);

/* ---------------------------------------------------------------- parser state (parser.c) */
typedef struct fe_blob {
  const char *name;
  int nlen;
  const uint8_t *bytes; /* element bytes, after the 4-byte alignment word */
  size_t n;
} fe_blob;

/* A top-level alias (`!t = tensor<...>`, `#a = array<...>`): where its value starts, so a use
 * re-reads the value there (diagnostics inside it point at the definition). */
typedef struct fe_alias {
  fe_token name; /* "!t" / "#a", sigil included */
  fe_lexer lx;   /* lexer just after `value`'s first token */
  fe_token value;
} fe_alias;

typedef struct fe_parser {
  arena *a;
  const source_file *src;
  diag_sink *d;
  fe_lexer lx;
  fe_token tok; /* current token; lx sits just after it */
  const char *prev_end; /* end of the token consumed last (for raw attribute text) */
  bool fatal;   /* stop: the error limit was reached or recovery is impossible */
  fe_blob *blobs;
  int nblobs, capblobs;
  const struct fe_top *top; /* the file's functions (mhal.launch reads its callee) */
  const fe_options *opt;
  src_loc dyn_loc[TOSAC_MAX_RANK]; /* where each '?' of the type parsed last was */
  struct fe_dyn_dim *dyn;          /* the entry's '?' argument dimensions (dynamic.c) */
  int ndyn, dyncap;
  fe_token prev;    /* the token consumed last (fe_loc_after_prev) */
  fe_alias *aliases;
  int naliases, capaliases;
  int alias_depth;  /* aliases being expanded (an alias may name another) */
  int list_depth;   /* attribute lists open around the current token */
  int region_depth; /* regions open around the current token */
  bool sign_names;   /* element types may be spelt si8 / ui8 (migraphx): stored signless */
  bool saw_unsigned; /* the element type parsed last was a ui* one */
  /* TOSA: unsigned element types in the op being read (ui8, ui16 in tosa.rescale and its
   * constants, stored signless): where the first one is, and which of the first operand type
   * (bit 0) and the first result type (bit 1) are unsigned */
  src_loc unsigned_at;
  elem_type unsigned_elem;
  unsigned unsigned_sig;
} fe_parser;

/* Nesting the parser accepts: deeper input is an error at the opening token, never a stack
 * overflow (the parser and every later stage recurse over both). */
#define FE_MAX_LIST_DEPTH 256
#define FE_MAX_REGION_DEPTH 64

void fe_next(fe_parser *p);
bool fe_accept(fe_parser *p, fe_tok_kind k);
bool fe_expect(fe_parser *p, fe_tok_kind k, const char *context);
bool fe_tok_is(const fe_parser *p, const char *word); /* current token is this identifier */
src_loc fe_loc(const fe_parser *p, fe_token t);
/* Just after the token consumed last: where mlir-opt reports a missing token ("expected ':'"),
 * at the end of the text before it rather than at whatever follows. */
src_loc fe_loc_after_prev(const fe_parser *p);
/* If the current token names an alias, parse its value with fn (fe_parse_type or an attribute
 * parser) and consume the name; *handled = false when it names none. */
bool fe_with_alias(fe_parser *p, bool *handled, bool (*fn)(fe_parser *, void *), void *out);
/* Reports at loc and returns false; sets fatal when the error limit is reached. */
bool fe_error(fe_parser *p, src_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void fe_note(fe_parser *p, src_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A form mlir-opt-22 accepts that no TOSA 1.0 profile defines: true (accepted; a warning with
 * -Wtosa-profile), false after the --tosa-strict error. */
bool fe_profile_rule(fe_parser *p, src_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* End of file inside `open`: the error just after the last token (where mlir-opt-22 points), a
 * note at the opener; false. */
bool fe_unterminated(fe_parser *p, fe_token open, const char *what);
/* "'foo'" style spelling of the current token for messages, in the arena. */
const char *fe_tok_text(fe_parser *p, fe_token t);
/* Skip one balanced group starting at the current ( [ { or < token. */
bool fe_skip_group(fe_parser *p);

/* Skip a trailing loc(...) if the current token starts one. */
void fe_skip_loc(fe_parser *p);

/* ---------------------------------------------------------------- module.c */
typedef struct fe_func {
  fe_token kw; /* func.func */
  fe_token name;
  int scope; /* the module (symbol table) it is defined in */
  bool is_public, has_body;
  fe_lexer sig_lx; /* lexer state just after the name, for the second pass */
  fe_token sig_tok;
  fe_token arch; /* the string of its rock.arch attribute; kind 0 if none */
  bool generic;   /* "func.func"() <{function_type = ..., sym_name = ...}> ({...}): sig_lx is at the
                     function type, body_lx just after the body's '{' (body_tok) */
  fe_lexer body_lx;
  fe_token body_tok;
} fe_func;

typedef struct fe_top {
  fe_func *funcs;
  int nfuncs, cap;
  int scope, nscopes; /* the module being scanned; modules seen */
} fe_top;

/* The whole file's top level into ts (function bodies are skipped); false after an error. */
bool fe_scan_top(fe_parser *p, fe_top *ts);
/* Record f in ts; reports a second function of its name in its module. */
bool fe_add_func(fe_parser *p, fe_top *ts, const fe_func *f);
/* generic_form.c: the generic op form of the top level. "func.func"(...) (the current token);
 * the end of a "builtin.module"() ({ ... }) after its '}': `) : () -> ()`; its start, after the
 * name: `() [<{...}>] [{...}] ({`. */
bool fe_scan_generic_func(fe_parser *p, fe_top *ts);
bool fe_generic_region_end(fe_parser *p);
bool fe_generic_module_start(fe_parser *p);
/* --entry NAME, else the single public function with a body; NULL after reporting why not. */
const fe_func *fe_choose_entry(fe_parser *p, const fe_top *ts, const fe_options *opt);
/* fe_entry_names: --entry's function, else every public function with a body (in the arena). */
int fe_list_entries(fe_parser *p, const fe_top *ts, const fe_options *opt, const char ***names);

/* ---------------------------------------------------------------- attrs.c */
/* tensor<...> or !tosa.shape<N> (rank 1 of ET_INDEX). Dynamic, unranked and oversized types
 * are reported. */
bool fe_parse_type(fe_parser *p, tensor_type *out, src_loc *loc);
/* A scalar element type (f32, i8) for attributes; ET_INVALID if the current token is not one. */
elem_type fe_scalar_type(const fe_parser *p);
bool fe_parse_attr_value(fe_parser *p, attr *out);
/* { name = value, ... } appended to *attrs. */
bool fe_parse_attr_dict(fe_parser *p, attr **attrs, int *n, int *cap);
/* "tensor<2x3xf32>", "!tosa.shape<2>" */
char *fe_type_str(const tensor_type *t, char *buf, size_t size);
/* Checks numel/bytes limits; reports at loc. */
bool fe_check_size(fe_parser *p, const tensor_type *t, src_loc loc);

/* ---------------------------------------------------------------- dense.c */
/* After the `dense` / `dense_resource` keyword (current token): literal and its `: type`. */
bool fe_parse_dense(fe_parser *p, attr *out);
bool fe_parse_dense_resource(fe_parser *p, attr *out);
/* {-# dialect_resources: {...} #-} starting at T_META_BEGIN. */
bool fe_parse_resources(fe_parser *p);
/* n pairs of hex digits at s into b, releasing the text behind (mapped sources); true when every
 * character was a hex digit. */
bool fe_hex_decode(const source_file *src, const char *s, size_t n, uint8_t *b);
/* One scalar literal token (`0.5`, `-3`, `true`) of type et as a rank-0 constant; NULL reported. */
dense_data *fe_dense_scalar(fe_parser *p, fe_token lit, elem_type et);
/* Element i of a constant as an integer / double (splat aware). */
int64_t fe_dense_int(const dense_data *dd, int64_t i);
double fe_dense_float(const dense_data *dd, int64_t i);
/* IEEE conversions with round-to-nearest-even (NaN stays NaN, overflow gives infinity). */
uint16_t fe_f64_to_f16(double v);
uint16_t fe_f64_to_bf16(double v);
double fe_f16_to_f64(uint16_t h);
double fe_bf16_to_f64(uint16_t h);

/* Numeric tokens: integers (decimal or 0x hex, bits gets the raw value) and floats. */
bool fe_tok_int(fe_parser *p, fe_token t, int64_t *v, uint64_t *bits, bool *hex);
double fe_tok_float(fe_token t);
/* A float element of type et from its raw bit pattern (hex literals), and the
 * bit pattern of v in float type et, rounded to nearest even (f64: its bits). */
double fe_bits_to_double(elem_type et, uint64_t bits);
uint64_t fe_float_bits(double v, elem_type et);

/* ---------------------------------------------------------------- canon.c, verify.c */
/* Ops canonicalisation inserts before the op it canonicalises (the input slice of the
 * floor-to-exact conv/pool geometry fix); the parser adds them to the graph first. */
#define FE_MAX_PRE_OPS 4

/* Per-op view the parser hands to canonicalisation and verification. */
typedef struct fe_opctx {
  op *o;
  src_loc *operand_locs; /* one per operand (kept parallel when operands are removed) */
  src_loc name_loc;
  tensor_type declared; /* result type from the signature */
  const tensor_type *declared_all; /* every result type (multi-result ops), ndeclared of them */
  int ndeclared;
  op *pre_ops[FE_MAX_PRE_OPS];
  int npre;
} fe_opctx;

/* Bring the three syntax generations to one form (see canon.c); false after an error. */
bool fe_canonicalize(fe_parser *p, fe_opctx *c);
/* TOSA type and shape rules, table-driven by op_kind; false after an error. */
bool fe_verify_op(fe_parser *p, fe_opctx *c);
/* Attribute helpers on an op under construction. */
attr *fe_find_attr(op *o, const char *name);
void fe_remove_attr(op *o, const char *name);
attr *fe_add_attr(fe_parser *p, op *o, const char *name, attr_kind kind);
/* Replace (or add) an attribute of one kind. */
attr *fe_set_int(fe_parser *p, op *o, const char *name, int64_t v, elem_type et);
attr *fe_set_float(fe_parser *p, op *o, const char *name, double v, elem_type et);
attr *fe_set_ints(fe_parser *p, op *o, const char *name, const int64_t *v, int n);
attr *fe_set_str(fe_parser *p, op *o, const char *name, const char *s);
attr *fe_set_bool(fe_parser *p, op *o, const char *name, bool v);

/* canon_ops.c: the ops beyond the first elementwise set (dispatched from fe_canonicalize). */
bool fe_canon_more(fe_parser *p, fe_opctx *c, bool *handled);

/* verify_ops.c rules and the helpers they share with verify.c. */
typedef bool (*fe_verify_fn)(fe_parser *p, fe_opctx *c);
fe_verify_fn fe_verify_rule_more(op_kind k);
bool fe_check_elem(fe_parser *p, const fe_opctx *c, int i, unsigned mask);
/* The same where upstream also accepts the types in `extra` (fe_profile_rule for those). */
bool fe_check_elem_upstream(fe_parser *p, const fe_opctx *c, int i, unsigned spec, unsigned extra);
bool fe_check_same_elem(fe_parser *p, const fe_opctx *c, int a, int b);
bool fe_broadcast(fe_parser *p, const fe_opctx *c, int first, int n, tensor_type *out);
bool fe_check_result(fe_parser *p, const fe_opctx *c, const tensor_type *inferred);
bool fe_same_typed(fe_parser *p, fe_opctx *c, unsigned mask, elem_type res);
const char *fe_type_set_str(fe_parser *p, unsigned mask);
#define FE_M(t) (1u << (t))
#define FE_FLOATS (FE_M(ET_F16) | FE_M(ET_BF16) | FE_M(ET_F32))
#define FE_F8 (FE_M(ET_F8E4M3FN) | FE_M(ET_F8E5M2) | FE_M(ET_F8E4M3FNUZ) | FE_M(ET_F8E5M2FNUZ))
#define FE_INTS (FE_M(ET_I8) | FE_M(ET_I16) | FE_M(ET_I32))

/* ---------------------------------------------------------------- parser.c: ops built by dialect
 * frontends (migraphx.c). An op is created with its operands, given attributes with fe_set_*,
 * then finished: canonicalised, verified by the TOSA rules and appended to the graph. */
typedef struct fn_state fe_scope; /* the function being parsed: its value names and graph */
value *fe_scope_find(fe_parser *p, fe_scope *fs, fe_token t); /* %name; reports an undefined one */
bool fe_scope_bind(fe_parser *p, fe_scope *fs, fe_token t, value *v); /* %name -> v (v keeps its name) */
value *fe_poison(fe_parser *p); /* stands for a result whose op failed: later uses stay silent */
/* A name scope nested in outer over the same graph (a region inlined into its function, as the
 * body of migraphx.attention): its names are its own, its ops join outer's graph. End it with
 * fe_scope_end before outer defines anything again. */
fe_scope *fe_scope_nested(fe_parser *p, fe_scope *outer);
void fe_scope_end(fe_scope *inner);
op *fe_op_new(fe_parser *p, op_kind k, src_loc loc, value *const *operands, int n);
/* NULL (diagnosed) when the op breaks a TOSA rule. */
value *fe_op_finish(fe_parser *p, fe_scope *fs, op *o, const tensor_type *result, const char *name);

/* ---------------------------------------------------------------- scalar.c */
/* `arith.constant 0.5 : f32` defines a scalar: a value outside the graph with this id, whose
 * def holds the rank-0 constant. TOSA operands are tensors, so only tensor.from_elements and
 * tensor.splat take it (docs/ops.md, "Scalars"). */
#define FE_SCALAR_ID (-2)
/* After `tensor.from_elements` / `tensor.splat`: `%s, ... : tensor<...>` of scalars, folded into
 * the dense constant *out (the op becomes an arith.constant). */
bool fe_parse_tensor_build(fe_parser *p, fe_scope *fs, bool splat, attr *out);

/* ---------------------------------------------------------------- migraphx.c */
/* The OCP microscaling element types of block-scaled GEMMs. They have no tensor type of their
 * own: in memory they are bytes (f4E2M1FN two per byte, the low nibble first along the innermost
 * memory dimension, as MIGraphX packs fp4x2; f8E8M0FNU one per byte), and the graph decodes them
 * to f32 where an argument is read (migraphx_mx.c). */
typedef enum fe_mx_kind { FE_MX_NONE, FE_MX_F4E2M1FN, FE_MX_F8E8M0FNU } fe_mx_kind;
/* A !migraphx.shaped<dims x elem, strides> type (has_strides), or a tensor type (standard). */
typedef struct fe_mgx_type {
  tensor_type t; /* the logical shape */
  int64_t strides[TOSAC_MAX_RANK];
  bool has_strides;
  bool is_unsigned; /* ui8, ui16, ...: signless storage, unsigned meaning */
  fe_mx_kind mx;    /* an OCP MX element type: t.elem is ET_F32, the value it decodes to */
} fe_mgx_type;
bool fe_mgx_is_shaped(const fe_parser *p); /* the current token starts !migraphx.shaped<...> */
/* !migraphx.shaped<...>, the short form <...> used in op signatures, or tensor<...>. */
bool fe_mgx_parse_type(fe_parser *p, fe_mgx_type *out, src_loc *loc);
char *fe_mgx_type_str(const fe_mgx_type *mt, char *buf, size_t size); /* "!migraphx.shaped<2x3xf32, 3x1>" */
/* A function argument of type mt: arg becomes its memory layout tensor; returns the logical
 * value (views: transpose, slice, broadcast) or NULL after an error. */
value *fe_mgx_arg(fe_parser *p, fe_scope *fs, value *arg, const fe_mgx_type *mt, src_loc loc);
/* A returned logical value written through result type mt: its memory layout tensor. */
value *fe_mgx_result(fe_parser *p, fe_scope *fs, value *v, const fe_mgx_type *mt, src_loc loc);
/* One migraphx.* op (its name is the current token) lowered to TOSA ops; false to resynchronise. */
bool fe_mgx_op(fe_parser *p, fe_scope *fs, const fe_token *results, int nresults, fe_token name);

/* migraphx_ops.c: one migraphx op being lowered; every TOSA op it becomes points at its location. */
typedef struct fe_mgx_ctx {
  fe_parser *p;
  fe_scope *fs;
  src_loc loc;
  const char *opname; /* "migraphx.dot" */
  const char *res;    /* its result's name, the stem of the intermediate names */
  int ntmp;
  value *last;        /* the value built last */
  attr *attrs;
  int nattrs, capattrs;
  value *in[8];
  fe_mgx_type in_t[8];
  int nin, nint;
  fe_mgx_type out_t;
  attr literal;
  bool zero_extend; /* convert's `zero_extend` keyword */
  int nscaled;      /* quant_dot's `%a scaled by %s` operands: their scales follow the operands */
} fe_mgx_ctx;
typedef value *(*fe_mgx_lower_fn)(fe_mgx_ctx *m, int arg);
typedef struct fe_mgx_opdef {
  const char *name; /* after "migraphx." */
  fe_mgx_lower_fn fn;
  int arg;           /* passed to fn: a TOSA op kind, or a variant flag */
  int min_in, max_in;
  const char *attrs; /* the attributes it reads or ignores, space-separated; NULL: refused op */
  bool unsigned_ok;  /* computes unsigned (ui*) operands right: bit-identical or handled */
} fe_mgx_opdef;
const fe_mgx_opdef *fe_mgx_find_op(const char *name); /* "dot" -> its row, NULL if unknown */
/* Builders (NULL in, NULL out; an identity returns x itself). */
value *fe_mgx_transpose(fe_mgx_ctx *m, value *x, const int64_t *perm);
value *fe_mgx_reshape(fe_mgx_ctx *m, value *x, const int64_t *dims, int rank);
value *fe_mgx_slice(fe_mgx_ctx *m, value *x, const int64_t *start, const int64_t *size);
value *fe_mgx_broadcast(fe_mgx_ctx *m, value *x, const tensor_type *to); /* x + 0 */
value *fe_mgx_splat(fe_mgx_ctx *m, const tensor_type *t, double v);      /* a splat constant */
value *fe_mgx_cast(fe_mgx_ctx *m, value *x, elem_type et);                /* tosa.cast unless x is et */
/* [..., M, K] x [..., K, N] with equal batch dims: a matmul on [batch, M, K] x [batch, K, N]. */
value *fe_mgx_dot(fe_mgx_ctx *m, value *a, value *b, const tensor_type *out);
value *fe_mgx_softmax(fe_mgx_ctx *m, value *x, int64_t axis); /* as rocMLIR: exp(x - max) / sum */
/* migraphx_attention.c: `migraphx.attention Q, K, V [pre_softmax_inputs(...)] {body} ...` (the
 * op name is the current token); false to resynchronise. */
bool fe_mgx_attention(fe_parser *p, fe_scope *fs, const fe_token *results, int nresults, fe_token name);
/* migraphx_mx.c: the MX element types. */
fe_mx_kind fe_mx_parse(const char *s, size_t n);        /* "f4E2M1FN" -> FE_MX_F4E2M1FN, else NONE */
const char *fe_mx_name(fe_mx_kind k);                   /* "f4E2M1FN" */
/* The bytes holding memory dims d (innermost last) of kind k: fp4 halves the innermost dim; false
 * if it is odd. */
bool fe_mx_storage(fe_mx_kind k, tensor_type *t);
/* The bytes x (i8, storage of kind k) decoded to f32 values of memory shape `to`. */
value *fe_mx_decode(fe_mgx_ctx *m, value *x, fe_mx_kind k, const tensor_type *to);

/* ---------------------------------------------------------------- dialect.c */
/* An op of the tensor, arith, math or linalg dialects (exporters' form around TOSA), lowered to
 * TOSA ops; arith.constant, tensor.from_elements and tensor.splat of constants stay with
 * parser.c and scalar.c. false to resynchronise. */
bool fe_xd_is_op(const char *nm, int nlen);
bool fe_xd_op(fe_parser *p, fe_scope *fs, const fe_token *results, int nresults, fe_token name);
/* dialect_tensor.c: after the function: tensor.pad's zero padding moves into the convolutions
 * that read it (the form TOSA producers write). */
void fe_xd_fold_pads(graph *g);

/* ---------------------------------------------------------------- launch.c */
/* %token, %r = mhal.launch @f [...] (...) : (...) -> ... (the op name is the current token). */
bool fe_launch_op(fe_parser *p, fe_scope *fs, const fe_token *results, const int *rcount, int nresults);
bool fe_await_op(fe_parser *p, fe_scope *fs); /* mhal.await %token */
/* parser.c: function f read in place of a launch at `at`, its parameters bound to args (stated
 * as types by the launch), its returned values into res (*nres of them); false after an error. */
bool fe_read_launched(fe_parser *p, fe_scope *fs, const fe_func *f, value **args, const fe_mgx_type *types,
                      int n, value **res, int *nres, src_loc at);
/* dynamic.c: '?' dimensions of the entry's arguments (--specialize, docs/dynamic.md). */
typedef struct fe_dyn_dim {
  value *arg;
  int index; /* arg's place in the entry's arguments */
  int dim;
  src_loc loc; /* the '?' */
} fe_dyn_dim;
/* Record the '?' dimensions of argument v (the index-th), whose type was the last one parsed. */
void fe_dyn_arg(fe_parser *p, value *v, int index);
/* After the signature: give the arguments' '?' dimensions their values from opt->specialize;
 * false after reporting a specialisation that names no '?' dimension. */
bool fe_dyn_signature(fe_parser *p, graph *g, src_loc fn_loc);
/* Before an op is canonicalised: '?' argument dimensions that the op's shape rules tie to a
 * known dimension take its value; false after reporting one that is still unknown. */
bool fe_dyn_tie(fe_parser *p, fe_opctx *c);
/* The '?' dimensions of t take from's (equal ranks; from may hold '?' too). */
void fe_dyn_fill(tensor_type *t, const tensor_type *from);
/* After an op is verified: control flow results take their region's types; a result dimension
 * still '?' is an error. */
bool fe_dyn_results(fe_parser *p, const fe_opctx *c);
/* A declared type matches an actual one: equal, '?' dimensions matching any value. */
bool fe_type_matches(const tensor_type *declared, const tensor_type *actual);
/* After the body: an argument dimension still '?' (never tied) is an error. */
bool fe_dyn_finish(fe_parser *p, graph *g);

/* print.c */
void fe_print_tosa(FILE *out, const graph *g);

#endif
