/* isa_decode.c: decode a kernel's machine code once. LLVM's MC disassembler (llvm-c/Disassembler.h)
 * is the source of truth for encodings: each instruction's text is parsed here into an isa_inst
 * (executor, operands with their modifiers, memory offsets, wait counts, branch target), and the
 * emulator then runs the decoded array. Operand conventions: ISA.md §0. */
#include "isa_int.h"

#include <ctype.h>
#include <llvm-c/Disassembler.h>
#include <llvm-c/Target.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static void init_amdgpu(void) {
  LLVMInitializeAMDGPUTargetInfo();
  LLVMInitializeAMDGPUTargetMC();
  LLVMInitializeAMDGPUDisassembler();
}

/* ---------------------------------------------------------------- the opcode index */
static const isa_opdef **op_index;
static int op_count;
static pthread_once_t index_once = PTHREAD_ONCE_INIT;

static int cmp_def(const void *a, const void *b) {
  return strcmp((*(const isa_opdef *const *)a)->name, (*(const isa_opdef *const *)b)->name);
}
static void build_index(void) {
  const isa_opdef *tables[] = {isa_ops_salu, isa_ops_valu, isa_ops_mem, isa_ops_lds, isa_ops_matrix, isa_ops_scratch};
  enum { NTABLES = sizeof tables / sizeof tables[0] };
  int n = 0;
  for (int t = 0; t < NTABLES; t++)
    for (const isa_opdef *d = tables[t]; d->name; d++)
      n++;
  op_index = malloc(sizeof *op_index * (size_t)n);
  for (int t = 0; t < NTABLES; t++)
    for (const isa_opdef *d = tables[t]; d->name; d++)
      op_index[op_count++] = d;
  qsort(op_index, (size_t)op_count, sizeof *op_index, cmp_def);
}

const isa_opdef *isa_find_op(const char *name) {
  pthread_once(&index_once, build_index);
  isa_opdef key = {.name = name};
  const isa_opdef *kp = &key;
  const isa_opdef **d = bsearch(&kp, op_index, (size_t)op_count, sizeof *op_index, cmp_def);
  return d ? *d : NULL;
}

/* ---------------------------------------------------------------- operand text */
/* Width and kind of the last type token of a mnemonic ("v_cvt_f32_f16" -> 16, float). */
static void last_type(const char *mn, int *width, bool *is_float, bool *is_signed) {
  *width = 32, *is_float = false, *is_signed = false;
  for (const char *p = mn; *p; p++) {
    if (p[0] != '_' || !strchr("fbiu", p[1]) || !isdigit((unsigned char)p[2]))
      continue;
    int w = atoi(p + 2);
    if (w != 8 && w != 16 && w != 32 && w != 64)
      continue;
    *width = w, *is_float = p[1] == 'f', *is_signed = p[1] == 'i';
  }
}

static uint64_t float_bits(double v, int width, const char *text) {
  bool inv2pi = strstr(text, "0.15915494") != NULL; /* inline constant 1/(2*pi) */
  if (width == 64) {
    double d = v;
    uint64_t u;
    if (inv2pi)
      return 0x3fc45f306dc9c882ull;
    memcpy(&u, &d, 8);
    return u;
  }
  if (width == 16) {
    if (inv2pi)
      return 0x3118;
    _Float16 h = (_Float16)v;
    uint16_t u;
    memcpy(&u, &h, 2);
    return u;
  }
  if (inv2pi)
    return 0x3e22f983;
  float f = (float)v;
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

typedef struct optype {
  int width;
  bool flt, sgn;
} optype;

static bool named_reg(const char *t, size_t n, isa_opnd *o) {
  static const struct {
    const char *name;
    int reg, n;
  } names[] = {{"vcc", ISA_VCC, 2},     {"vcc_lo", ISA_VCC, 1},      {"vcc_hi", ISA_VCC + 1, 1},
               {"exec", ISA_EXEC, 2},   {"exec_lo", ISA_EXEC, 1},    {"exec_hi", ISA_EXEC + 1, 1},
               {"m0", ISA_M0, 1},       {"null", ISA_NULL, 1},       {"flat_scratch", 102, 2},
               {"flat_scratch_lo", 102, 1}, {"flat_scratch_hi", 103, 1}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strlen(names[i].name) == n && !memcmp(t, names[i].name, n)) {
      o->kind = OK_SGPR, o->reg = (uint16_t)names[i].reg, o->n = (uint8_t)names[i].n;
      return true;
    }
  if (n == 3 && !memcmp(t, "scc", 3)) {
    o->kind = OK_SCC, o->n = 1;
    return true;
  }
  return false;
}

/* "v5", "v[0:3]", "s[8:11]", "a2", "ttmp9": false if t is not a register. */
static bool numbered_reg(const char *t, size_t n, isa_opnd *o) {
  int kind, base = 0;
  size_t skip = 1;
  if (n > 4 && !memcmp(t, "ttmp", 4))
    kind = OK_SGPR, base = ISA_TTMP, skip = 4;
  else if (t[0] == 'v')
    kind = OK_VGPR;
  else if (t[0] == 's')
    kind = OK_SGPR;
  else if (t[0] == 'a')
    kind = OK_AGPR;
  else
    return false;
  const char *p = t + skip, *end = t + n;
  long lo, hi;
  char *q;
  if (p < end && *p == '[') {
    lo = strtol(p + 1, &q, 10);
    if (*q != ':')
      return false;
    hi = strtol(q + 1, &q, 10);
    if (*q != ']' || q + 1 != end)
      return false;
  } else if (p < end && isdigit((unsigned char)*p)) {
    lo = hi = strtol(p, &q, 10);
    if (q != end)
      return false;
  } else {
    return false;
  }
  if (hi < lo || hi - lo > 31 || lo + base > 1023)
    return false;
  o->kind = (uint8_t)kind, o->reg = (uint16_t)(lo + base), o->n = (uint8_t)(hi - lo + 1);
  return true;
}

/* Apertures read as constants (ISA.md §1.7): the emulator's LDS and scratch never alias them. */
#define ISA_SHARED_BASE 0x10000ull
#define ISA_PRIVATE_BASE 0x20000ull

static bool parse_operand(const char *t, size_t n, optype ty, isa_opnd *o) {
  memset(o, 0, sizeof *o);
  o->sel = SEL_DWORD;
  bool neg = false, abs = false;
  if (n > 1 && t[0] == '-' && !isdigit((unsigned char)t[1]))
    neg = true, t++, n--;
  if (n > 4 && !memcmp(t, "neg(", 4) && t[n - 1] == ')')
    neg = true, t += 4, n -= 5;
  if (n > 2 && t[0] == '|' && t[n - 1] == '|')
    abs = true, t++, n -= 2;
  if (n > 4 && !memcmp(t, "abs(", 4) && t[n - 1] == ')')
    abs = true, t += 4, n -= 5;
  if (n > 5 && !memcmp(t, "sext(", 5) && t[n - 1] == ')')
    o->sext = true, t += 5, n -= 6;
  bool literal = false; /* lit(0x...): a literal even where an inline constant would do */
  if (n > 4 && !memcmp(t, "lit(", 4) && t[n - 1] == ')')
    literal = true, t += 4, n -= 5;
  else if (n > 6 && !memcmp(t, "lit64(", 6) && t[n - 1] == ')')
    literal = true, t += 6, n -= 7;
  if (n > 2 && t[n - 2] == '.' && (t[n - 1] == 'l' || t[n - 1] == 'h')) {
    o->sel = t[n - 1] == 'h' ? SEL_W1 : SEL_W0;
    o->preserve = true;
    n -= 2;
  }
  if (n == 0)
    return false;
  if (named_reg(t, n, o) || numbered_reg(t, n, o)) {
    /* modifiers below */
  } else if (n == 3 && !memcmp(t, "off", 3)) {
    o->kind = OK_OFF;
  } else if (n > 4 && !memcmp(t, "src_", 4)) {
    o->kind = OK_IMM, o->n = 1;
    if (!strncmp(t, "src_shared_base", n))
      o->imm = ISA_SHARED_BASE >> 32 | (ISA_SHARED_BASE << 32);
    else if (!strncmp(t, "src_private_base", n))
      o->imm = ISA_PRIVATE_BASE >> 32 | (ISA_PRIVATE_BASE << 32);
    else
      return false;
  } else {
    char buf[64];
    if (n >= sizeof buf)
      return false;
    memcpy(buf, t, n);
    buf[n] = 0;
    char *end;
    o->kind = OK_IMM, o->n = 1;
    bool hex = literal || strstr(buf, "0x") != NULL;
    if (!hex && (strchr(buf, '.') || strstr(buf, "inf") || strchr(buf, 'e'))) {
      double v = strtod(buf, &end);
      if (*end)
        return false;
      o->imm = float_bits(v, ty.width == 8 ? 32 : ty.width, buf);
    } else {
      long long v = strtoll(buf, &end, 0);
      if (*end) {
        unsigned long long u = strtoull(buf, &end, 0);
        if (*end)
          return false;
        v = (long long)u;
      }
      if (hex && (unsigned long long)v <= 0xffffffffull) { /* a 32-bit literal */
        uint32_t lit = (uint32_t)v;
        o->imm = ty.width == 64 && ty.flt ? (uint64_t)lit << 32
                 : ty.width == 64 && ty.sgn ? (uint64_t)(int64_t)(int32_t)lit
                                            : lit;
      } else {
        o->imm = (uint64_t)v; /* inline constants are sign-extended */
      }
    }
  }
  uint64_t sign = ty.width == 64 ? 1ull << 63 : ty.width == 16 ? 1u << 15 : 1u << 31;
  if (abs)
    o->clr = sign;
  if (neg)
    o->flip = sign;
  return true;
}

static int sel_of(const char *v) {
  static const char *const names[] = {"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"};
  for (int i = 0; i < 7; i++)
    if (!strcmp(v, names[i]))
      return i;
  return -1;
}

/* "[1,0,1]" -> bits (element i = bit i). */
static uint8_t bit_list(const char *v) {
  uint8_t bits = 0;
  int i = 0;
  for (const char *p = v; *p; p++)
    if (*p == '0' || *p == '1')
      bits |= (uint8_t)((*p == '1') << i++);
  return bits;
}

/* DPP controls (dpp_ctrl encoding, ISA.md §3.4); false if tok is not one. */
static bool parse_dpp(const char *name, const char *v, isa_inst *in) {
  static const struct {
    const char *name;
    uint16_t base;
  } ctl[] = {{"row_shl", 0x100}, {"row_shr", 0x110}, {"row_ror", 0x120}, {"row_share", 0x150},
             {"row_xmask", 0x160}, {"row_newbcast", 0x150}};
  if (!strcmp(name, "quad_perm")) {
    int q[4] = {0};
    if (sscanf(v, "[%d,%d,%d,%d]", &q[0], &q[1], &q[2], &q[3]) != 4)
      return false;
    in->dpp_ctrl = (uint16_t)((q[0] & 3) | (q[1] & 3) << 2 | (q[2] & 3) << 4 | (q[3] & 3) << 6);
    return true;
  }
  for (size_t i = 0; i < sizeof ctl / sizeof ctl[0]; i++)
    if (!strcmp(name, ctl[i].name)) {
      in->dpp_ctrl = (uint16_t)(ctl[i].base + (atoi(v) & 15));
      return true;
    }
  static const struct {
    const char *name;
    uint16_t ctrl;
  } fixed[] = {{"wave_shl", 0x130}, {"wave_rol", 0x134}, {"wave_shr", 0x138}, {"wave_ror", 0x13c},
               {"row_mirror", 0x140}, {"row_half_mirror", 0x141}};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
    if (!strcmp(name, fixed[i].name)) {
      in->dpp_ctrl = fixed[i].ctrl;
      return true;
    }
  if (!strcmp(name, "row_bcast")) {
    in->dpp_ctrl = atoi(v) == 15 ? 0x142 : 0x143;
    return true;
  }
  return false;
}

/* ds_swizzle_b32's offset:swizzle(MODE,...) into the offset encoding (bit 15: quad permute, else
 * and/or/xor masks in bits 4:0, 9:5, 14:10). */
static bool parse_swizzle(const char *v, int64_t *offset) {
  char mode[16];
  int a = 0, b = 0, c = 0, d = 0;
  if (sscanf(v, "swizzle(%15[A-Z_],", mode) != 1)
    return false;
  const char *args = strchr(v, ',') + 1;
  int and_mask = 0x1f, or_mask = 0, xor_mask = 0;
  if (!strcmp(mode, "QUADPERM") && sscanf(args, "%d,%d,%d,%d", &a, &b, &c, &d) == 4) {
    *offset = 0x8000 | (a & 3) | (b & 3) << 2 | (c & 3) << 4 | (d & 3) << 6;
    return true;
  }
  if (!strcmp(mode, "SWAP") && sscanf(args, "%d", &a) == 1)
    xor_mask = a;
  else if (!strcmp(mode, "REVERSE") && sscanf(args, "%d", &a) == 1)
    xor_mask = a - 1;
  else if (!strcmp(mode, "BROADCAST") && sscanf(args, "%d,%d", &a, &b) == 2)
    and_mask = 0x1f & ~(a - 1), or_mask = b;
  else if (!strcmp(mode, "BITMASK_PERM")) {
    const char *q = strchr(args, '"');
    if (!q || strlen(q) < 6)
      return false;
    and_mask = 0;
    for (int i = 0; i < 5; i++) {
      int bit = 1 << (4 - i);
      switch (q[1 + i]) {
      case '0': break;
      case '1': or_mask |= bit; break;
      case 'p': and_mask |= bit; break;
      case 'i': and_mask |= bit, xor_mask |= bit; break;
      default: return false;
      }
    }
  } else {
    return false;
  }
  *offset = (and_mask & 0x1f) | (or_mask & 0x1f) << 5 | (xor_mask & 0x1f) << 10;
  return true;
}

/* A "name:value" or bare-word modifier. false if unknown. */
static bool parse_modifier(const char *tok, isa_inst *in, int *sdwa_sel, int *dst_unused) {
  char name[32];
  const char *colon = strchr(tok, ':');
  size_t n = colon ? (size_t)(colon - tok) : strlen(tok);
  if (n >= sizeof name)
    return false;
  memcpy(name, tok, n);
  name[n] = 0;
  const char *v = colon ? colon + 1 : "";
  static const char *const ignored[] = {"glc", "slc", "dlc", "nt", "sc0", "sc1", "scc", "lds", "offen",
                                        "idxen", "addr64", "tfe", "lwe", "unorm", "d16", "th", "scope", "gds",
                                        "fi", "bound_ctrl", "row_mask", "bank_mask", NULL};
  if ((in->flags & IF_DPP) && parse_dpp(name, v, in)) {
    return true;
  } else if (!strcmp(name, "offset") && !strncmp(v, "swizzle(", 8)) {
    return parse_swizzle(v, &in->offset);
  } else if (!strcmp(name, "offset") || !strcmp(name, "offset0")) {
    in->offset = strtoll(v, NULL, 0);
  } else if (!strcmp(name, "offset1")) {
    in->offset1 = strtoll(v, NULL, 0);
  } else if (!strcmp(name, "glc") || !strcmp(name, "sc0") || !strcmp(v, "TH_ATOMIC_RETURN")) {
    in->flags |= IF_RETURN; /* on loads and stores a cache policy, which the emulator ignores */
  } else if (!strcmp(name, "offen")) {
    in->flags |= IF_OFFEN;
  } else if (!strcmp(name, "idxen")) {
    in->flags |= IF_IDXEN;
  } else if (!strcmp(name, "cbsz")) {
    in->cbsz = (uint8_t)atoi(v);
  } else if (!strcmp(name, "abid")) {
    in->abid = (uint8_t)atoi(v);
  } else if (!strcmp(name, "blgp")) {
    in->blgp = (uint8_t)atoi(v);
  } else if (!strcmp(name, "bitop3")) { /* v_bitop3's truth table */
    in->offset = strtoll(v, NULL, 0);
  } else if (!strcmp(name, "clamp")) {
    in->flags |= IF_CLAMP;
  } else if (!strcmp(name, "mul")) {
    in->omod = atoi(v) == 2 ? 1 : 2;
  } else if (!strcmp(name, "div")) {
    in->omod = 3;
  } else if (!strcmp(name, "op_sel")) {
    in->op_sel = bit_list(v);
  } else if (!strcmp(name, "op_sel_hi")) {
    in->op_sel_hi = bit_list(v);
  } else if (!strcmp(name, "neg_lo")) {
    in->neg_lo = bit_list(v);
  } else if (!strcmp(name, "neg_hi")) {
    in->neg_hi = bit_list(v);
  } else if (!strcmp(name, "dst_sel") || !strcmp(name, "src0_sel") || !strcmp(name, "src1_sel")) {
    int s = sel_of(v);
    if (s < 0)
      return false;
    sdwa_sel[name[0] == 'd' ? 0 : name[3] == '0' ? 1 : 2] = s;
  } else if (!strcmp(name, "byte_sel") && !strncmp(in->mnemonic, "v_cvt_f32_", 10)) {
    /* gfx12 v_cvt_f32_fp8/bf8: the source byte, as SDWA's src0_sel is on gfx9 (other
     * instructions' byte_sel selects a destination byte and is not read here) */
    int s = atoi(v);
    if (s < 0 || s > 3)
      return false;
    sdwa_sel[3] = SEL_B0 + s;
  } else if (!strcmp(name, "dst_unused")) {
    *dst_unused = !strcmp(v, "UNUSED_PRESERVE") ? 2 : !strcmp(v, "UNUSED_SEXT") ? 1 : 0;
  } else {
    if (!strcmp(name, "row_mask"))
      in->row_mask = (uint8_t)strtol(v, NULL, 0);
    if (!strcmp(name, "bank_mask"))
      in->bank_mask = (uint8_t)strtol(v, NULL, 0);
    if (!strcmp(name, "bound_ctrl")) /* printed as bound_ctrl:1 for BC = 1 */
      in->bound_ctrl = true;
    if (!strcmp(name, "fi"))
      in->fetch_inactive = atoi(v) != 0;
    for (int i = 0; ignored[i]; i++)
      if (!strcmp(name, ignored[i]))
        return true;
    return false;
  }
  return true;
}

/* Split the operand text at commas and spaces outside brackets and parentheses. */
static int split(char *s, char **tok, int max) {
  int n = 0, depth = 0;
  char *start = NULL;
  for (char *p = s;; p++) {
    char c = *p;
    if (c == '[' || c == '(')
      depth++;
    if (c == ']' || c == ')')
      depth--;
    bool sep = c == 0 || (depth == 0 && (c == ',' || c == ' ' || c == '\t'));
    if (sep) {
      if (start && n < max)
        tok[n++] = start;
      start = NULL;
      if (c == 0)
        break;
      *p = 0;
    } else if (!start) {
      start = p;
    }
  }
  return n;
}

static bool is_modifier(const char *t) {
  if (!strcmp(t, "row_mirror") || !strcmp(t, "row_half_mirror"))
    return true;
  const char *colon = strchr(t, ':'), *bracket = strchr(t, '[');
  if (colon && (!bracket || bracket > colon)) /* name:value, not a register tuple v[0:1] */
    return true;
  static const char *const words[] = {"glc", "slc", "dlc", "nt", "sc0", "sc1", "lds", "offen", "idxen", "gds",
                                      "addr64", "clamp", "tfe", "lwe", "row_mirror", "row_half_mirror", NULL};
  for (int i = 0; words[i]; i++)
    if (!strcmp(t, words[i]))
      return true;
  return false;
}

/* s_waitcnt vmcnt(0) lgkmcnt(0) / s_waitcnt_vscnt null, 0x0 */
static bool parse_waitcnt(isa_inst *in, char **tok, int ntok) {
  for (int c = 0; c < CNT_N; c++)
    in->wait[c] = -1;
  for (int i = 0; i < ntok; i++) {
    static const char *const names[] = {"vmcnt(", "lgkmcnt(", "expcnt(", "vscnt("};
    bool known = false;
    for (int c = 0; c < CNT_N; c++)
      if (!strncmp(tok[i], names[c], strlen(names[c]))) {
        in->wait[c] = (int16_t)atoi(tok[i] + strlen(names[c]));
        known = true;
      }
    if (!known && !strcmp(tok[i], "0")) /* every counter */
      for (int c = 0; c < CNT_N; c++)
        in->wait[c] = 0;
    else if (!known)
      return false;
  }
  return true;
}

/* Mnemonic without its encoding suffix; sets the encoding flags. */
static void base_name(const char *mn, char *out, size_t size, uint16_t *flags) {
  snprintf(out, size, "%s", mn);
  static const struct {
    const char *suffix;
    uint16_t flag;
  } sfx[] = {{"_e64_dpp", IF_E64 | IF_DPP}, {"_e32", 0}, {"_e64", IF_E64}, {"_sdwa", IF_SDWA}, {"_dpp", IF_DPP}};
  size_t n = strlen(out);
  for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
    size_t k = strlen(sfx[i].suffix);
    if (n > k && !strcmp(out + n - k, sfx[i].suffix)) {
      out[n - k] = 0;
      *flags |= sfx[i].flag;
      return;
    }
  }
}

/* Index of the first source operand: after the destination and, for carry and div_scale
 * forms, the SGPR destination. */
int isa_first_source(const char *name) {
  if (!strncmp(name, "v_cmp", 5))
    return 1;
  if (strstr(name, "_co_") || strstr(name, "div_scale") || strstr(name, "mad_u64_u32") || strstr(name, "mad_i64_i32"))
    return 2;
  return 1;
}

static bool decode_text(char *text, isa_inst *in, char *err, size_t errsize, const char *kernel);

/* VOPD: "v_dual_X ... :: v_dual_Y ...": both halves decoded as plain VALU instructions. */
static bool decode_dual(char *text, isa_inst *in, char *err, size_t errsize, const char *kernel) {
  char *sep = strstr(text, " :: ");
  *sep = 0;
  char x[256], y[256];
  snprintf(x, sizeof x, "v_%s", text + 7);
  snprintf(y, sizeof y, "v_%s", sep + 4 + 7);
  /* v_dual_cndmask_b32 reads vcc_lo implicitly. */
  if (!strncmp(x, "v_cndmask_b32", 13))
    strncat(x, ", vcc_lo", sizeof x - strlen(x) - 1);
  if (!strncmp(y, "v_cndmask_b32", 13))
    strncat(y, ", vcc_lo", sizeof y - strlen(y) - 1);
  isa_inst *first = calloc(1, sizeof *first), *second = calloc(1, sizeof *second);
  in->dual = first;
  first->dual = second;
  if (!decode_text(x, first, err, errsize, kernel) || !decode_text(y, second, err, errsize, kernel))
    return false;
  in->fn = isa_exec_dual;
  in->def = first->def;
  in->mnemonic = "v_dual";
  in->o[0] = first->o[0]; /* the real destination; the first half writes the staging register */
  in->nops = 1;
  return true;
}

static bool decode_text(char *text, isa_inst *in, char *err, size_t errsize, const char *kernel) {
  while (*text == '\t' || *text == ' ')
    text++;
  if (!strncmp(text, "v_dual_", 7) && strstr(text, " :: "))
    return decode_dual(text, in, err, errsize, kernel);
  char *ops = text + strcspn(text, " \t");
  if (*ops)
    *ops++ = 0;
  char name[96];
  uint16_t flags = 0;
  base_name(text, name, sizeof name, &flags);
  in->flags |= flags;
  const isa_opdef *def = isa_find_op(name);
  if (!def && (!strncmp(name, "v_cmp", 5) || !strncmp(name, "s_cmp_", 6)) && isa_valu_cmp(name, in))
    def = &isa_cmp_def;
  if (!def && (!strncmp(name, "v_mfma_", 7) || !strncmp(name, "v_wmma_", 7)))
    def = &isa_matrix_def;
  if (!def) {
    snprintf(err, errsize, "kernel %s: instruction %s is not implemented by the emulator", kernel, text);
    return false;
  }
  in->def = def;
  if (def != &isa_cmp_def)
    in->fn = def->fn;
  in->mnemonic = def == &isa_cmp_def || def == &isa_matrix_def ? strdup(name) : def->name;
  optype ty;
  last_type(name, &ty.width, &ty.flt, &ty.sgn);
  char *tok[24];
  int ntok = split(ops, tok, 24);
  if (!strcmp(name, "s_waitcnt")) {
    if (!parse_waitcnt(in, tok, ntok)) {
      snprintf(err, errsize, "kernel %s: cannot read s_waitcnt %s", kernel, ops);
      return false;
    }
    return true;
  }
  int sdwa_sel[4] = {SEL_DWORD, SEL_DWORD, SEL_DWORD, SEL_DWORD}, dst_unused = 0; /* [3]: byte_sel */
  in->row_mask = in->bank_mask = 0xf;
  if (!strncmp(name, "v_pk_", 5))
    in->op_sel_hi = 7; /* printed only when it differs from [1,1,1] */
  if (def->arg2 == ISA_TEXT_OPERANDS)
    ntok = 0;
  /* The exponent of ldexp and the class mask of cmp_class are 32-bit integers whatever the
   * float type of the other operands. */
  int int_operand = !strncmp(name, "v_ldexp_", 8) ? 2 : strstr(name, "_class_") ? (in->flags & IF_CMPX) && !(in->flags & IF_E64) ? 1 : 2 : -1;
  const optype int32 = {32, false, false};
  for (int i = 0; i < ntok; i++) {
    if (!is_modifier(tok[i])) {
      optype oty = in->nops == int_operand ? int32 : ty;
      if (in->nops == 6 || !parse_operand(tok[i], strlen(tok[i]), oty, &in->o[in->nops])) {
        snprintf(err, errsize, "kernel %s: cannot read operand '%s' of %s", kernel, tok[i], text);
        return false;
      }
      in->nops++;
    } else if (!parse_modifier(tok[i], in, sdwa_sel, &dst_unused)) {
      if (!strncmp(tok[i], "quad_perm", 9) || !strncmp(tok[i], "row_", 4) || !strncmp(tok[i], "wave_", 5) ||
          !strncmp(tok[i], "dpp8", 4)) {
        snprintf(err, errsize, "kernel %s: DPP control %s of %s is not implemented by the emulator", kernel, tok[i],
                 text);
        return false;
      }
      snprintf(err, errsize, "kernel %s: cannot read modifier '%s' of %s", kernel, tok[i], text);
      return false;
    }
  }
  int src0 = isa_first_source(name);
  if (flags & IF_SDWA) {
    if (strncmp(name, "v_cmp", 5)) {
      in->o[0].sel = (uint8_t)sdwa_sel[0];
      in->o[0].preserve = dst_unused == 2;
      in->o[0].sext = dst_unused == 1;
    }
    for (int s = 0; s < 2 && src0 + s < in->nops; s++)
      if (in->o[src0 + s].kind != OK_IMM)
        in->o[src0 + s].sel = (uint8_t)sdwa_sel[1 + s];
  }
  if (sdwa_sel[3] != SEL_DWORD && src0 < in->nops)
    in->o[src0].sel = (uint8_t)sdwa_sel[3];
  /* VOP3 op_sel on 16-bit operations (not packed math): source i reads its high half, the last
   * bit writes the destination's high half. */
  if (in->op_sel && name[0] == 'v' && strncmp(name, "v_pk_", 5) && ty.width == 16) {
    for (int s = 0; src0 + s < in->nops && s < 3; s++)
      if (in->op_sel >> s & 1)
        in->o[src0 + s].sel = SEL_W1;
    if (in->op_sel >> 3 & 1)
      in->o[0].sel = SEL_W1, in->o[0].preserve = true;
  }
  if (flags & IF_DPP) {
    /* The inner instruction reads src0 from the staging register the DPP step fills. */
    isa_inst *inner = calloc(1, sizeof *inner);
    *inner = *in;
    inner->flags &= (uint16_t)~IF_DPP;
    in->dual = inner;
    in->fn = isa_exec_dpp;
    in->dpp_src = (uint8_t)src0;
  }
  return true;
}

static void opnd_fix_agpr(const isa_kernel *k, isa_opnd *o) {
  if (o->kind == OK_AGPR && k->accum_offset) {
    o->kind = OK_VGPR;
    o->reg = (uint16_t)(o->reg + k->accum_offset);
  }
}

/* Registers beyond the descriptor's allocation are an error at decode time. */
static bool check_regs(const isa_kernel *k, const isa_inst *in, char *err, size_t errsize) {
  for (int i = 0; i < in->nops; i++) {
    const isa_opnd *o = &in->o[i];
    if (o->kind == OK_VGPR && o->reg + o->n > k->nvgpr) {
      snprintf(err, errsize,
               "kernel %s: instruction at 0x%x (%s) uses v%d, beyond the %d VGPRs its descriptor allocates",
               k->name, in->pc, in->mnemonic, o->reg + o->n - 1, k->nvgpr);
      return false;
    }
    if (o->kind == OK_AGPR && o->reg + o->n > k->nagpr) {
      snprintf(err, errsize,
               "kernel %s: instruction at 0x%x (%s) uses a%d, beyond the %d AGPRs its descriptor allocates",
               k->name, in->pc, in->mnemonic, o->reg + o->n - 1, k->nagpr);
      return false;
    }
  }
  return true;
}

/* Wave32 code keeps its lane masks in exec_lo; a 64-bit EXEC operand or a *exec_b64 instruction
 * is code written for wave64 (a wave64 kernel whose descriptor says wave32 would run with half
 * its lanes). */
static bool check_wave_size(const isa_kernel *k, const isa_inst *in, char *err, size_t errsize) {
  if (k->wave_size != 32)
    return true;
  bool wide = strstr(in->mnemonic, "exec_b64") != NULL;
  for (int i = 0; i < in->nops; i++)
    wide |= in->o[i].kind == OK_SGPR && in->o[i].reg == ISA_EXEC && in->o[i].n == 2;
  if (wide)
    snprintf(err, errsize,
             "kernel %s: instruction at 0x%x (%s) uses the 64-bit EXEC of wave64 code, but the descriptor says wave32",
             k->name, in->pc, in->mnemonic);
  return !wide;
}

static void run_off_end(isa_wave *w, const isa_inst *in) {
  isa_fault(w, in, "the wave ran off the end of the kernel's code without s_endpgm");
}

bool isa_decode_kernel(isa_module *m, isa_kernel *k, char *err, size_t errsize) {
  pthread_once(&init_once, init_amdgpu);
  const char *features = k->wave_size == 64 && m->info->wave_size == 32 ? "+wavefrontsize64"
                         : k->wave_size == 32 && m->info->wave_size == 64 ? "+wavefrontsize32"
                                                                          : "";
  LLVMDisasmContextRef dc =
      LLVMCreateDisasmCPUFeatures("amdgcn-amd-amdhsa", m->target.processor, features, NULL, 0, NULL, NULL);
  if (!dc) {
    snprintf(err, errsize, "no AMDGPU disassembler for %s", m->target.processor);
    return false;
  }
  int cap = (int)(k->code_size / 4) + 2;
  k->insts = calloc((size_t)cap, sizeof *k->insts);
  int *index_of = malloc(sizeof(int) * (size_t)(k->code_size / 4 + 1)); /* word offset -> instruction */
  for (uint64_t i = 0; i <= k->code_size / 4; i++)
    index_of[i] = -1;
  bool ok = true;
  uint64_t off = 0;
  while (ok && off < k->code_size) {
    char text[512] = "";
    size_t len = isa_disasm(dc, m, k, off, text, sizeof text, err, errsize);
    isa_inst *in = &k->insts[k->ninsts];
    in->pc = (uint32_t)(k->entry + off);
    if (len == 0) {
      ok = false;
      break;
    }
    in->size = (uint8_t)len;
    index_of[off / 4] = k->ninsts;
    ok = decode_text(text, in, err, errsize, k->name);
    if (ok && in->def == &isa_matrix_def)
      ok = isa_matrix_resolve(m->target.processor, k->name, in, err, errsize);
    for (isa_inst *h = in; ok && h; h = h->dual) {
      h->pc = in->pc;
      for (int i = 0; i < h->nops; i++)
        opnd_fix_agpr(k, &h->o[i]);
      ok = check_regs(k, h, err, errsize) && check_wave_size(k, h, err, errsize);
    }
    if (ok && in->fn == isa_exec_dual)
      in->dual->o[0].reg = (uint16_t)k->nvgpr; /* the staging register after the allocation */
    if (ok && in->fn == isa_exec_dpp) {
      isa_opnd *o = &in->dual->o[in->dpp_src];
      if (o->kind != OK_VGPR) {
        snprintf(err, errsize, "kernel %s: DPP instruction at 0x%x reads a non-VGPR src0", k->name, in->pc);
        ok = false;
      }
      o->reg = (uint16_t)k->nvgpr;
    }
    k->ninsts++;
    off += len;
  }
  LLVMDisasmDispose(dc);
  if (ok) {
    isa_inst *end = &k->insts[k->ninsts];
    end->fn = run_off_end;
    end->mnemonic = "(end of code)";
    end->pc = (uint32_t)(k->entry + k->code_size);
    /* Branch targets: PC + 4 + 4 * simm16 must start an instruction. */
    for (int i = 0; ok && i < k->ninsts; i++) {
      isa_inst *in = &k->insts[i];
      if (in->def->arg2 != ISA_BRANCH)
        continue;
      int64_t rel = (int64_t)(in->pc + 4 - k->entry) + 4 * (int64_t)(int16_t)in->o[0].imm;
      if (rel == (int64_t)k->code_size) {
        in->target = k->ninsts;
      } else if (rel < 0 || rel > (int64_t)k->code_size || rel % 4 || index_of[rel / 4] < 0) {
        snprintf(err, errsize, "kernel %s: branch at 0x%x goes to 0x%llx, which is not an instruction of the kernel",
                 k->name, in->pc, (unsigned long long)(k->entry + (uint64_t)rel));
        ok = false;
      } else {
        in->target = index_of[rel / 4];
      }
    }
  }
  free(index_of);
  return ok;
}
