/* runtime.c: what re-targeted kernels call (ids, barriers, wave collectives, LDS, access checks)
 * and the work-group executor that runs work-items as fibers.
 *
 * Errors stop the launch; emu_run's message (which the driver prints after "tosac-run: error: ")
 * is one of, with K the kernel, (x,y,z) the work-item and (a,b,c) its work-group:
 *   kernel K: work-item (x,y,z) of work-group (a,b,c): global store of 4 bytes at 0x7f... is outside every bound buffer
 *     (also "global load", "global atomic"; memcpy/memset sources and destinations count as load/store)
 *   kernel K: work-item (x,y,z) of work-group (a,b,c): LDS load of 16 bytes at offset 65536 is outside the kernel's 4096 bytes of LDS
 *   kernel K: work-item (x,y,z) of work-group (a,b,c): barrier not reached by every work-item of the work-group
 *     (names the first work-item that exited or waits elsewhere)
 *   kernel K: work-item (x,y,z) of work-group (a,b,c): wave operation llvm.amdgcn.ballot executed by part of a wave
 *     (names the first lane that reached the operation)
 *   kernel K: work-item (x,y,z) of work-group (a,b,c): <message of emu_matrix_exec>
 *   kernel K: work-group of N work-items exceeds the kernel's amdgpu-flat-work-group-size maximum of M
 *   kernel K: N bytes of LDS exceed the target's limit of M bytes
 */
#include "emu_int.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef enum { ST_RUN, ST_BARRIER, ST_WAVE, ST_DONE } item_state;

/* What a lane hands over at a wave operation; its pointers point into its own (suspended)
 * stack, so they stay valid until the operation completes. */
typedef struct lane_op {
  int kind;
  void *dst;
  const void *src, *old;
  int bytes;
  int64_t a[4];
  const void *ma, *mb, *mc; /* matrix operands */
  int cbsz, abid, blgp;
  int scale_mode;                /* EMU_SCALED | opsel bytes, 0: no block scales */
  uint32_t scale_a, scale_b;
} lane_op;

typedef struct item {
  void *sp;
  uint32_t id[3];
  int linear;
  item_state state;
  lane_op op;
  uintptr_t stack_lo, stack_hi;
} item;

typedef struct exec {
  const emu_rtinfo *info;
  const emu_kernel *k;
  const emu_target *t;
  const emu_launch *l;
  uint8_t *implicit; /* hidden-argument block (256 bytes), then the dispatch packet (64) */
  emu_stacks stacks;
  item *items;
  int nitems;
  uint8_t *lds;
  int64_t lds_size;
  size_t lds_map;
  uint32_t group[3];
  item *cur;
  void *sched_sp;
  int last_buffer;
  bool failed;
  char err[768];
} exec;

/* initial-exec: the runtime calls read it on every work-item operation, and libtosac-hipemu (a
 * shared library loaded at program start) must not pay a __tls_get_addr call for each. */
static __thread exec *tls __attribute__((tls_model("initial-exec")));

static int where(exec *ex, const item *it, char *buf, size_t n) {
  return snprintf(buf, n, "kernel %s: work-item (%u,%u,%u) of work-group (%u,%u,%u): ", ex->k->name,
                  it->id[0], it->id[1], it->id[2], ex->group[0], ex->group[1], ex->group[2]);
}

static void fail_at(exec *ex, const item *it, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail_at(exec *ex, const item *it, const char *fmt, ...) {
  if (ex->failed)
    return;
  int n = where(ex, it, ex->err, sizeof ex->err);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ex->err + n, sizeof ex->err - (size_t)n, fmt, ap);
  va_end(ap);
  ex->failed = true;
}

/* Suspend the current work-item and go back to the scheduler. */
static void yield(exec *ex) {
  emu_fiber_switch(&ex->cur->sp, ex->sched_sp);
}

/* ---------------------------------------------------------------- functions kernels call */

static uint32_t rt_workitem_id(uint32_t d) { return tls->cur->id[d]; }
static uint32_t rt_workgroup_id(uint32_t d) { return tls->group[d]; }
static void *rt_lds_base(void) { return tls->lds; }
static void *rt_implicitarg_ptr(void) { return tls->implicit; }
static void *rt_dispatch_ptr(void) { return tls->implicit + 256; }
static void *rt_kernarg_ptr(void) { return (void *)tls->l->kernarg; }

static int lane_of(const exec *ex) { return ex->cur->linear % ex->t->wave_size; }

static uint32_t rt_mbcnt_lo(uint32_t mask, uint32_t acc) {
  int lane = lane_of(tls);
  int n = lane < 32 ? lane : 32;
  return acc + (uint32_t)__builtin_popcountll((uint64_t)mask & ((1ull << n) - 1));
}

static uint32_t rt_mbcnt_hi(uint32_t mask, uint32_t acc) {
  int lane = lane_of(tls);
  if (lane < 32)
    return acc;
  return acc + (uint32_t)__builtin_popcountll((uint64_t)mask & ((1ull << (lane - 32)) - 1));
}

static void rt_barrier(void) {
  exec *ex = tls;
  ex->cur->state = ST_BARRIER;
  yield(ex);
}

static void rt_wave(int32_t kind, void *dst, const void *src, const void *old, int32_t bytes,
                    int64_t a0, int64_t a1, int64_t a2, int64_t a3) {
  exec *ex = tls;
  lane_op *op = &ex->cur->op;
  op->kind = kind;
  op->dst = dst;
  op->src = src;
  op->old = old;
  op->bytes = bytes;
  op->a[0] = a0, op->a[1] = a1, op->a[2] = a2, op->a[3] = a3;
  ex->cur->state = ST_WAVE;
  yield(ex);
}

static void rt_matrix(int32_t kind, void *d, const void *a, const void *b, const void *c, int32_t cbsz,
                      int32_t abid, int32_t blgp, int32_t scale_mode, uint32_t scale_a, uint32_t scale_b) {
  exec *ex = tls;
  lane_op *op = &ex->cur->op;
  op->kind = kind;
  op->dst = d;
  op->ma = a, op->mb = b, op->mc = c;
  op->cbsz = cbsz, op->abid = abid, op->blgp = blgp;
  op->scale_mode = scale_mode, op->scale_a = scale_a, op->scale_b = scale_b;
  ex->cur->state = ST_WAVE;
  yield(ex);
}

static const char *acc_name(uint32_t kind) {
  return kind == EMU_ACC_STORE ? "store" : kind == EMU_ACC_ATOMIC ? "atomic" : "load";
}

static bool inside(uintptr_t a, uint64_t size, uintptr_t lo, uintptr_t hi) {
  return a >= lo && a <= hi && size <= hi - a;
}

/* A global or flat access must fall inside one bound buffer, the kernarg blob, the hidden
 * arguments, a module global or (flat only) the group's LDS or the work-item's stack. */
static void rt_check(void *p, uint64_t size, uint32_t kind) {
  exec *ex = tls;
  uintptr_t a = (uintptr_t)p;
  const emu_launch *l = ex->l;
  if (size == 0)
    return;
  const emu_buffer *bl = &l->buffers[ex->last_buffer];
  if (ex->last_buffer < l->nbuffers && inside(a, size, (uintptr_t)bl->base, (uintptr_t)bl->base + bl->size))
    return;
  for (int i = 0; i < l->nbuffers; i++)
    if (inside(a, size, (uintptr_t)l->buffers[i].base, (uintptr_t)l->buffers[i].base + l->buffers[i].size)) {
      ex->last_buffer = i;
      return;
    }
  if (inside(a, size, (uintptr_t)l->kernarg, (uintptr_t)l->kernarg + l->kernarg_size) ||
      inside(a, size, (uintptr_t)ex->implicit, (uintptr_t)ex->implicit + 320) ||
      inside(a, size, (uintptr_t)ex->lds, (uintptr_t)ex->lds + (uintptr_t)ex->lds_size) ||
      inside(a, size, ex->cur->stack_lo, ex->cur->stack_hi))
    return;
  for (int i = 0; i < ex->info->nglobals; i++)
    if (inside(a, size, ex->info->globals[i].lo, ex->info->globals[i].hi))
      return;
  fail_at(ex, ex->cur, "global %s of %llu bytes at 0x%llx is outside every bound buffer", acc_name(kind),
          (unsigned long long)size, (unsigned long long)a);
  yield(ex); /* never resumed */
}

static void rt_check_lds(void *p, uint64_t size, uint32_t kind) {
  exec *ex = tls;
  int64_t off = (int64_t)((uintptr_t)p - (uintptr_t)ex->lds);
  if (off >= 0 && off <= ex->lds_size && (int64_t)size <= ex->lds_size - off)
    return;
  fail_at(ex, ex->cur, "LDS %s of %llu bytes at offset %lld is outside the kernel's %lld bytes of LDS",
          acc_name(kind), (unsigned long long)size, (long long)off, (long long)ex->lds_size);
  yield(ex);
}

/* Conversions the host backend calls where the CPU has no bf16 instructions (x86 without
 * AVX512-BF16) and that libgcc before GCC 13 lacks: rounded to nearest even, a NaN stays a quiet
 * NaN. The ABI returns a bf16 like a half in xmm0, so the bits travel as a _Float16. */
static _Float16 bf16_bits(uint16_t b) {
  _Float16 h;
  memcpy(&h, &b, sizeof h);
  return h;
}

static uint16_t f32_to_bf16(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return (uint16_t)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

static _Float16 rt_truncsfbf2(float x) { return bf16_bits(f32_to_bf16(x)); }

/* Through f32 rounded to odd (toward zero, the last bit set when inexact), which has enough
 * bits beyond bf16's for the second rounding to be exact. */
static _Float16 rt_truncdfbf2(double x) {
  if (isnan(x))
    return bf16_bits(f32_to_bf16((float)x));
  float t = (float)x;
  if (fabs((double)t) > fabs(x))
    t = nextafterf(t, 0.0f);
  if ((double)t != x) {
    uint32_t u;
    memcpy(&u, &t, sizeof u);
    u |= 1u;
    memcpy(&t, &u, sizeof t);
  }
  return bf16_bits(f32_to_bf16(t));
}

/* cvt.pk.{fp8,bf8}.f32: how = word (bit 0: the high half of old) | bf8 (bit 1) | FNUZ (bit 2). */
static uint32_t rt_cvt_pk_f8(float a, float b, uint32_t old, uint32_t how) {
  bool bf8 = how & 2, fnuz = how & 4;
  int sh = how & 1 ? 16 : 0;
  uint32_t pk = emu_f8_from_f32(a, bf8, fnuz) | emu_f8_from_f32(b, bf8, fnuz) << 8;
  return (old & ~(0xffffu << sh)) | pk << sh;
}

/* cvt.f32.{fp8,bf8}: one code to f32 bits; how = bf8 (bit 1) | FNUZ (bit 2). */
static uint32_t rt_cvt_f32_f8(uint32_t code, uint32_t how) { return emu_f8_to_f32(code, how & 2, how & 4); }

#define SYM(n) {"emu_rt_" #n, (void *)rt_##n}
const emu_rt_symbol emu_rt_symbols[] = {
    SYM(workitem_id), SYM(workgroup_id),   SYM(lds_base),    SYM(implicitarg_ptr), SYM(dispatch_ptr),
    SYM(kernarg_ptr), SYM(mbcnt_lo),       SYM(mbcnt_hi),    SYM(barrier),         SYM(wave),
    SYM(matrix),      SYM(check),          SYM(check_lds),   SYM(cvt_pk_f8),
    SYM(cvt_f32_f8),
    {"__truncsfbf2", (void *)rt_truncsfbf2},    {"__truncdfbf2", (void *)rt_truncdfbf2},
};
const int emu_rt_nsymbols = sizeof emu_rt_symbols / sizeof emu_rt_symbols[0];

static const char *const wop_names[EMU_WOP_COUNT] = {
    [EMU_WOP_WAVE_BARRIER] = "llvm.amdgcn.wave.barrier", [EMU_WOP_READFIRSTLANE] = "llvm.amdgcn.readfirstlane",
    [EMU_WOP_READLANE] = "llvm.amdgcn.readlane",         [EMU_WOP_BALLOT] = "llvm.amdgcn.ballot",
    [EMU_WOP_BPERMUTE] = "llvm.amdgcn.ds.bpermute",      [EMU_WOP_PERMUTE] = "llvm.amdgcn.ds.permute",
    [EMU_WOP_SWIZZLE] = "llvm.amdgcn.ds.swizzle",        [EMU_WOP_UPDATE_DPP] = "llvm.amdgcn.update.dpp",
    [EMU_WOP_MOV_DPP] = "llvm.amdgcn.mov.dpp",           [EMU_WOP_PERMLANE16] = "llvm.amdgcn.permlane16",
    [EMU_WOP_PERMLANEX16] = "llvm.amdgcn.permlanex16",   [EMU_WOP_PERMLANE64] = "llvm.amdgcn.permlane64",
    [EMU_WOP_READ_TR16] = "llvm.amdgcn.ds.read.tr16.b64",
};

const char *emu_wop_name(int kind, const emu_rtinfo *info) {
  if (kind >= EMU_WOP_MATRIX && kind - EMU_WOP_MATRIX < info->nmatrix)
    return info->matrix_ops[kind - EMU_WOP_MATRIX];
  if (kind > 0 && kind < EMU_WOP_COUNT && wop_names[kind])
    return wop_names[kind];
  return "unknown wave operation";
}

/* ---------------------------------------------------------------- wave operations */

/* Source lane of DPP control `ctrl` for lane i of a wave of ws lanes, or -1 (invalid). */
static int dpp_source(int ctrl, int i, int ws) {
  int row = i / 16, r = i % 16;
  if (ctrl <= 0xff)
    return (i & ~3) | ((ctrl >> (2 * (i & 3))) & 3);
  if (ctrl >= 0x101 && ctrl <= 0x10f)
    return r + (ctrl & 15) <= 15 ? i + (ctrl & 15) : -1; /* row_shl */
  if (ctrl >= 0x111 && ctrl <= 0x11f)
    return r >= (ctrl & 15) ? i - (ctrl & 15) : -1; /* row_shr */
  if (ctrl >= 0x121 && ctrl <= 0x12f)
    return row * 16 + ((r - (ctrl & 15)) & 15); /* row_ror */
  switch (ctrl) {
  case 0x130: return i + 1 < ws ? i + 1 : -1;      /* wave_shl1 */
  case 0x134: return (i + 1) % ws;                 /* wave_rol1 */
  case 0x138: return i >= 1 ? i - 1 : -1;          /* wave_shr1 */
  case 0x13c: return (i + ws - 1) % ws;            /* wave_ror1 */
  case 0x140: return row * 16 + 15 - r;            /* row_mirror */
  case 0x141: return (i & ~7) | (7 - (i & 7));     /* row_half_mirror */
  case 0x142: return row >= 1 ? row * 16 - 1 : -1; /* row_bcast15 */
  case 0x143: return row >= 2 ? 31 : -1;           /* row_bcast31 */
  default: break;
  }
  if (ctrl >= 0x150 && ctrl <= 0x15f)
    return row * 16 + (ctrl & 15); /* row_share (gfx10+), row_newbcast (gfx90a) */
  if (ctrl >= 0x160 && ctrl <= 0x16f)
    return row * 16 + (r ^ (ctrl & 15)); /* row_xmask */
  return -1;
}

static void copy_from(item *items, int lo, int n, int dst_lane, int src_lane, int bytes) {
  lane_op *d = &items[lo + dst_lane].op;
  if (src_lane < 0 || src_lane >= n)
    memset(d->dst, 0, (size_t)bytes);
  else
    memcpy(d->dst, items[lo + src_lane].op.src, (size_t)bytes);
}

/* Execute one wave operation for lanes [lo, lo+n) that all reached it. */
static bool wave_exec(exec *ex, int lo, int n) {
  item *it = ex->items;
  const lane_op *first = &it[lo].op;
  int ws = ex->t->wave_size, kind = first->kind, bytes = first->bytes;
  switch (kind) {
  case EMU_WOP_WAVE_BARRIER:
    break;
  case EMU_WOP_READFIRSTLANE:
    for (int i = 0; i < n; i++)
      copy_from(it, lo, n, i, 0, bytes);
    break;
  case EMU_WOP_READLANE:
    for (int i = 0; i < n; i++)
      copy_from(it, lo, n, i, (int)(first->a[0] & (ws - 1)), bytes);
    break;
  case EMU_WOP_BALLOT: {
    uint64_t mask = 0;
    for (int i = 0; i < n; i++)
      mask |= (uint64_t)(it[lo + i].op.a[0] != 0) << i;
    for (int i = 0; i < n; i++)
      memcpy(it[lo + i].op.dst, &mask, (size_t)(bytes < 8 ? bytes : 8));
    break;
  }
  case EMU_WOP_BPERMUTE:
    for (int i = 0; i < n; i++)
      copy_from(it, lo, n, i, (int)((it[lo + i].op.a[0] >> 2) & (ws - 1)), bytes);
    break;
  case EMU_WOP_PERMUTE:
    for (int i = 0; i < n; i++)
      memset(it[lo + i].op.dst, 0, (size_t)bytes);
    for (int i = 0; i < n; i++) { /* pushes; the highest lane wins a conflict */
      int t = (int)((it[lo + i].op.a[0] >> 2) & (ws - 1));
      if (t < n)
        memcpy(it[lo + t].op.dst, it[lo + i].op.src, (size_t)bytes);
    }
    break;
  case EMU_WOP_SWIZZLE: {
    int off = (int)first->a[0];
    for (int i = 0; i < n; i++) {
      int s;
      if (off & 0x8000) {
        s = (i & ~3) | ((off >> (2 * (i & 3))) & 3);
      } else {
        int and_m = off & 31, or_m = (off >> 5) & 31, xor_m = (off >> 10) & 31;
        s = (i & ~31) | ((((i & 31) & and_m) | or_m) ^ xor_m);
      }
      copy_from(it, lo, n, i, s, bytes);
    }
    break;
  }
  case EMU_WOP_UPDATE_DPP:
  case EMU_WOP_MOV_DPP: {
    int ctrl = (int)first->a[0], row_mask = (int)first->a[1], bank_mask = (int)first->a[2];
    bool bound_zero = first->a[3] != 0;
    for (int i = 0; i < n; i++) {
      lane_op *d = &it[lo + i].op;
      int s = dpp_source(ctrl, i, ws);
      if (!((row_mask >> (i / 16)) & 1) || !((bank_mask >> ((i % 16) / 4)) & 1))
        memcpy(d->dst, d->old, (size_t)bytes); /* lane disabled: keeps its old value */
      else if (s < 0 || s >= n)
        bound_zero ? memset(d->dst, 0, (size_t)bytes) : memcpy(d->dst, d->old, (size_t)bytes);
      else
        memcpy(d->dst, it[lo + s].op.src, (size_t)bytes);
    }
    break;
  }
  case EMU_WOP_PERMLANE16:
  case EMU_WOP_PERMLANEX16: {
    uint64_t sel = ((uint64_t)(uint32_t)first->a[1] << 32) | (uint32_t)first->a[0];
    for (int i = 0; i < n; i++) {
      int row = i / 16;
      if (kind == EMU_WOP_PERMLANEX16)
        row ^= 1;
      copy_from(it, lo, n, i, row * 16 + (int)((sel >> (4 * (i % 16))) & 15), bytes);
    }
    break;
  }
  case EMU_WOP_PERMLANE64:
    for (int i = 0; i < n; i++)
      copy_from(it, lo, n, i, ws == 64 ? i ^ 32 : i, bytes);
    break;
  case EMU_WOP_READ_TR16: /* ds_read_b64_tr_b16 (isa_exec_lds.c): in 16-lane groups, lane i's
                           * element e is element i % 4 of what lane 4e + i / 4 read */
    if (n % 16 || bytes != 8) {
      fail_at(ex, &it[lo], "%s executed by part of a 16-lane group", emu_wop_name(kind, ex->info));
      return false;
    }
    for (int i = 0; i < n; i++)
      for (int e = 0; e < 4; e++) {
        const uint16_t *s = it[lo + (i & ~15) + 4 * e + (i & 15) / 4].op.src;
        memcpy((uint16_t *)it[lo + i].op.dst + e, s + i % 4, 2);
      }
    break;
  default: {
    if (kind < EMU_WOP_MATRIX || n != ws) {
      fail_at(ex, &it[lo], "wave operation %s executed by part of a wave", emu_wop_name(kind, ex->info));
      return false;
    }
    const void *a[EMU_MAX_WAVE], *b[EMU_MAX_WAVE], *c[EMU_MAX_WAVE];
    void *d[EMU_MAX_WAVE];
    uint32_t sa[EMU_MAX_WAVE], sb[EMU_MAX_WAVE];
    for (int i = 0; i < n; i++) {
      a[i] = it[lo + i].op.ma, b[i] = it[lo + i].op.mb, c[i] = it[lo + i].op.mc;
      d[i] = it[lo + i].op.dst;
      sa[i] = it[lo + i].op.scale_a, sb[i] = it[lo + i].op.scale_b;
    }
    bool scaled = first->scale_mode & EMU_SCALED;
    emu_matrix_call call = {.intrinsic = emu_wop_name(kind, ex->info), .processor = ex->t->processor,
                            .wave_size = ws, .a = a, .b = b, .c = c, .d = d, .cbsz = first->cbsz,
                            .abid = first->abid, .blgp = first->blgp, .scale_a = scaled ? sa : NULL,
                            .scale_b = scaled ? sb : NULL, .opsel_a = first->scale_mode & 3,
                            .opsel_b = first->scale_mode >> 2 & 3};
    char msg[512];
    if (!emu_matrix_exec(&call, msg, sizeof msg)) {
      fail_at(ex, &it[lo], "%s", msg);
      return false;
    }
  }
  }
  return true;
}

/* ---------------------------------------------------------------- the work-group executor */

static void lane_main(void *arg) {
  exec *ex = arg;
  ex->k->entry(ex->l->kernarg);
  ex->cur->state = ST_DONE;
  yield(ex);
  abort(); /* a finished work-item is never resumed */
}

/* Resolve what every suspended work-item waits for; false when the group is stuck. */
static bool resolve(exec *ex, bool *progress) {
  int n = ex->nitems, ws = ex->t->wave_size;
  item *it = ex->items;
  *progress = false;
  for (int lo = 0; lo < n; lo += ws) {
    int cnt = lo + ws <= n ? ws : n - lo, at = -1;
    bool whole = true;
    for (int i = lo; i < lo + cnt; i++) {
      if (it[i].state == ST_WAVE && at < 0)
        at = i;
    }
    if (at < 0)
      continue;
    for (int i = lo; i < lo + cnt; i++)
      whole &= it[i].state == ST_WAVE && it[i].op.kind == it[at].op.kind;
    if (!whole) {
      fail_at(ex, &it[at], "wave operation %s executed by part of a wave", emu_wop_name(it[at].op.kind, ex->info));
      return false;
    }
    if (!wave_exec(ex, lo, cnt))
      return false;
    for (int i = lo; i < lo + cnt; i++)
      it[i].state = ST_RUN;
    *progress = true;
  }
  if (*progress)
    return true;
  int at_barrier = 0, done = 0, first_other = -1;
  for (int i = 0; i < n; i++) {
    if (it[i].state == ST_BARRIER)
      at_barrier++;
    else if (first_other < 0)
      first_other = i;
    done += it[i].state == ST_DONE;
  }
  if (done == n)
    return true;
  if (at_barrier == n) {
    for (int i = 0; i < n; i++)
      it[i].state = ST_RUN;
    *progress = true;
    return true;
  }
  fail_at(ex, &it[first_other], "barrier not reached by every work-item of the work-group");
  return false;
}

static bool run_group(exec *ex, const uint32_t g[3]) {
  const uint32_t *bs = ex->l->block;
  memcpy(ex->group, g, sizeof ex->group);
  for (int i = 0; i < ex->nitems; i++) {
    item *it = &ex->items[i];
    it->linear = i;
    it->id[0] = (uint32_t)i % bs[0];
    it->id[1] = ((uint32_t)i / bs[0]) % bs[1];
    it->id[2] = (uint32_t)i / (bs[0] * bs[1]);
    it->state = ST_RUN;
    it->sp = emu_fiber_init(&ex->stacks, i, lane_main, ex);
    emu_stack_range(&ex->stacks, i, &it->stack_lo, &it->stack_hi);
  }
  if (ex->lds_size)
    memset(ex->lds, 0, (size_t)ex->lds_size);
  for (;;) {
    for (int i = 0; i < ex->nitems; i++) {
      if (ex->items[i].state != ST_RUN)
        continue;
      ex->cur = &ex->items[i];
      emu_fiber_switch(&ex->sched_sp, ex->cur->sp);
      if (ex->failed)
        return false;
    }
    bool progress;
    if (!resolve(ex, &progress))
      return false;
    if (!progress)
      return true; /* every work-item finished */
  }
}

typedef struct shared {
  const emu_rtinfo *info;
  const emu_kernel *k;
  const emu_target *t;
  const emu_launch *l;
  uint8_t *implicit;
  int64_t lds_size;
  uint64_t ngroups;
  atomic_ullong next;
  atomic_bool stop;
  pthread_mutex_t mu;
  long long fail_group;
  char err[768];
} shared;

static void *worker(void *arg) {
  shared *s = arg;
  exec ex = {.info = s->info, .k = s->k, .t = s->t, .l = s->l, .implicit = s->implicit,
             .lds_size = s->lds_size};
  const uint32_t *bs = s->l->block, *gs = s->l->grid;
  ex.nitems = (int)(bs[0] * bs[1] * bs[2]);
  ex.items = calloc((size_t)ex.nitems, sizeof *ex.items);
  ex.lds_map = ((size_t)s->lds_size + 4095) / 4096 * 4096 + 4096;
  ex.lds = emu_map_low(ex.lds_map);
  if (!ex.items || !ex.lds || !emu_stacks_reserve(&ex.stacks, ex.nitems)) {
    pthread_mutex_lock(&s->mu);
    if (s->fail_group < 0) {
      s->fail_group = 0;
      snprintf(s->err, sizeof s->err, "kernel %s: out of memory for %d work-item stacks", s->k->name, ex.nitems);
    }
    pthread_mutex_unlock(&s->mu);
    atomic_store(&s->stop, true);
  }
  tls = &ex;
  while (!atomic_load(&s->stop)) {
    uint64_t g = atomic_fetch_add(&s->next, 1);
    if (g >= s->ngroups)
      break;
    uint32_t gid[3] = {(uint32_t)(g % gs[0]), (uint32_t)(g / gs[0] % gs[1]), (uint32_t)(g / gs[0] / gs[1])};
    ex.failed = false;
    if (!run_group(&ex, gid)) {
      pthread_mutex_lock(&s->mu);
      if (s->fail_group < 0 || (long long)g < s->fail_group) {
        s->fail_group = (long long)g;
        snprintf(s->err, sizeof s->err, "%s", ex.err);
      }
      pthread_mutex_unlock(&s->mu);
      atomic_store(&s->stop, true);
    }
  }
  tls = NULL;
  emu_stacks_release(&ex.stacks);
  if (ex.lds)
    munmap(ex.lds, ex.lds_map);
  free(ex.items);
  return NULL;
}

/* The COV5 hidden arguments and an HSA dispatch packet, for code that reads group sizes. */
static void fill_implicit(uint8_t *p, const emu_launch *l, int64_t lds) {
  memset(p, 0, 320);
  int dims = 1;
  for (int d = 0; d < 3; d++) {
    uint32_t count = l->grid[d];
    uint16_t size = (uint16_t)l->block[d], rem = 0;
    memcpy(p + 4 * d, &count, 4);
    memcpy(p + 12 + 2 * d, &size, 2);
    memcpy(p + 18 + 2 * d, &rem, 2);
    if (l->grid[d] > 1 || l->block[d] > 1)
      dims = d + 1;
  }
  uint16_t gd = (uint16_t)dims;
  memcpy(p + 64, &gd, 2);
  uint8_t *pk = p + 256; /* hsa_kernel_dispatch_packet_t */
  uint16_t setup = (uint16_t)dims;
  memcpy(pk + 2, &setup, 2);
  for (int d = 0; d < 3; d++) {
    uint16_t wg = (uint16_t)l->block[d];
    uint32_t grid = l->block[d] * l->grid[d];
    memcpy(pk + 4 + 2 * d, &wg, 2);
    memcpy(pk + 12 + 4 * d, &grid, 4);
  }
  uint32_t group_seg = (uint32_t)lds;
  memcpy(pk + 28, &group_seg, 4);
  uint64_t ka = (uint64_t)(uintptr_t)l->kernarg;
  memcpy(pk + 40, &ka, 8);
}

bool emu_execute(const emu_rtinfo *info, const emu_kernel *k, const emu_target *t, const emu_launch *l,
                 int threads, char *err, size_t errsize) {
  uint64_t items = (uint64_t)l->block[0] * l->block[1] * l->block[2];
  uint64_t groups = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
  if (items == 0 || items > 1024 || (int64_t)items > k->max_flat_wg) {
    snprintf(err, errsize, "kernel %s: work-group of %llu work-items exceeds the kernel's "
             "amdgpu-flat-work-group-size maximum of %d", k->name, (unsigned long long)items,
             items > 1024 && k->max_flat_wg > 1024 ? 1024 : k->max_flat_wg);
    return false;
  }
  if (t->wave_size != 32 && t->wave_size != 64) {
    snprintf(err, errsize, "kernel %s: unsupported wave size %d", k->name, t->wave_size);
    return false;
  }
  int64_t lds = k->lds_size > l->lds_bytes ? k->lds_size : l->lds_bytes;
  if (t->lds_limit > 0 && lds > t->lds_limit) {
    snprintf(err, errsize, "kernel %s: %lld bytes of LDS exceed the target's limit of %lld bytes", k->name,
             (long long)lds, (long long)t->lds_limit);
    return false;
  }
  if (groups == 0)
    return true;
  uint8_t implicit[320] __attribute__((aligned(64)));
  fill_implicit(implicit, l, lds);
  shared s = {.info = info, .k = k, .t = t, .l = l, .implicit = implicit, .lds_size = lds,
              .ngroups = groups, .fail_group = -1};
  atomic_init(&s.next, 0);
  atomic_init(&s.stop, false);
  pthread_mutex_init(&s.mu, NULL);
  if (threads < 1)
    threads = 1;
  if ((uint64_t)threads > groups)
    threads = (int)groups;
  pthread_t tid[16];
  if (threads > 16)
    threads = 16;
  int started = 0;
  for (int i = 1; i < threads; i++)
    if (pthread_create(&tid[started], NULL, worker, &s) == 0)
      started++;
  worker(&s);
  for (int i = 0; i < started; i++)
    pthread_join(tid[i], NULL);
  pthread_mutex_destroy(&s.mu);
  if (s.fail_group >= 0) {
    snprintf(err, errsize, "%s", s.err);
    return false;
  }
  return true;
}
