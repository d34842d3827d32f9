/* target.c: the GPU target table and target-ID parsing (gfx90a:sramecc+:xnack-). */
#include "codegen.h"

#include <string.h>

/* name, family, wave, LDS, VGPRs per SIMD lane, sramecc, xnack, mfma, wmma, default, mach;
 * CUs, SIMDs per CU, clock MHz, memory GB/s, VGPR granule, waves per SIMD, f32 FMA flops per CU
 * per clock, native f32 atomic add, separate AGPR file, buffer resource dword 3 (CK's value:
 * gfx9 0x00020000, gfx10.3 0x31014000, gfx11 and gfx12 0x31004000: ck.hpp puts gfx11 and gfx12
 * on one line; 0: the GEMM loop uses global loads), memory latency (ns; assumed round figures:
 * HBM 700, GDDR 500, no measurement here), s_barrier drains memory (no back-off barrier: LLVM's
 * SIInsertWaitcnts waits for every load before it; gfx90a and later and RDNA back off), VOPD dual
 * issue of f32 FMAs (gfx11, gfx12), packed work-item ids in v0, stores counted apart from loads
 * (vscnt), the largest lgkmcnt, literal dwords after 64-bit encodings. Boards:
 * MI100, MI210, MI300X, MI355X, RX 6900 XT, RX 7900 XTX (AMDGPU.md §4.2) and RX 9070 XT (vendor
 * figures, unverified).
 * Then split-K's three (docs/partitioning.md "Choosing the split and its form"):
 * - the coherent cache, MiB: ROCm's GPU specifications table (rocm.docs.amd.com, reference/
 *   gpu-specs): L2 8 MiB on MI100 and MI210; MI300X and MI355X 4 MiB of L2 per XCD over a 256 MiB
 *   Infinity Cache (L3). Each XCD's L2 is its own: LLVM's GFX942 memory model (AMDGPUUsage) writes
 *   it back at an agent-scope release (buffer_wbl2) and invalidates at the acquire, so partials of
 *   work-groups on different XCDs meet in the Infinity Cache. RX 6900 XT 4, RX 7900 XTX 6, RX
 *   9070 XT 8 MiB of L2: AMD's product figures (the same table's Radeon rows);
 * - its hit latency: 150 ns, chips-and-cheese's vector-access Infinity Cache latency of the RX
 *   7900 XTX in its high power state ("Latency Testing is Hard (RDNA 3 Power Saving)", 150.3 ns).
 *   No other target's figure was found: the others take the same 150 ns, derived from it. For the
 *   RDNA and gfx908/gfx90a L2 (on the shader die, before the Infinity Cache) it is an upper bound;
 * - a dependent launch, ns: 3800, measured on a Radeon PRO W7900 (gfx1100) as the GPU time per
 *   kernel of 941 serialised one- to 128-work-group HIP dispatches (3.865, 3.845 us;
 *   ROCm/rocm-systems issue 10834; 0.88 us through Vulkan). No measurement of the other targets
 *   was found: they take gfx1100's, derived from it.
 * Then the skinny kernel's two (docs/gemm.md "Skinny GEMMs", its memory model):
 * - the cache line, bytes: 128, the L2 line of CDNA and RDNA (rocprofiler-compute's performance
 *   model pages: the L2 (TCC) and vector L1 (TCP, GL0) caches request whole lines); a load of a
 *   piece of a line moves the line;
 * - what one CU's vector loads can bring in, bytes per clock: 64, the L2-to-vector-L1 read peak
 *   per CU that rocprofiler-compute's speed-of-light tables use for CDNA; RDNA's GL0 is taken the
 *   same (assumed, not measured). It bounds a grid that keeps few CUs busy;
 * - the L2 caches consecutive work-groups are dealt across: 8 on MI300X and MI355X (ROCm's MI300
 *   microarchitecture page: each XCD has its own 4 MB L2, and work-groups are dispatched to the
 *   XCDs in turn), 1 elsewhere. */
const target_info target_table[] = {
    {"gfx908", "CDNA1", 64, 65536, 512, true, true, true, false, true, 0x30,
     120, 4, 1502, 1229, 4, 10, 128, true, 256, 0x00020000, 700, true, false, false, false, 15,
     8, 150, 3800, false, false, false, false, false, 128, 64, 1},
    {"gfx90a", "CDNA2", 64, 65536, 512, true, true, true, false, true, 0x3f,
     104, 4, 1700, 1638, 8, 8, 128, true, 0, 0x00020000, 700, false, false, true, false, 15,
     8, 150, 3800, false, false, false, false, false, 128, 64, 1},
    {"gfx942", "CDNA3", 64, 65536, 512, true, true, true, false, true, 0x4c,
     304, 4, 2100, 5300, 8, 8, 256, true, 0, 0x00020000, 700, false, false, true, false, 15,
     256, 150, 3800, false, false, false, true, true, 128, 64, 8},
    {"gfx950", "CDNA4", 64, 163840, 512, true, true, true, false, true, 0x4f,
     256, 4, 2400, 8000, 8, 8, 256, true, 0, 0x00020000, 700, false, false, true, false, 15,
     256, 150, 3800, true, true, true, false, true, 128, 64, 8},
    {"gfx1030", "RDNA2", 32, 65536, 1024, false, false, false, false, true, 0x36,
     80, 2, 2250, 512, 16, 16, 128, false, 0, 0x31014000, 500, false, false, false, true, 63,
     4, 150, 3800, true, false, false, false, false, 128, 64, 1},
    {"gfx1100", "RDNA3", 32, 65536, 1536, false, false, false, true, true, 0x41,
     96, 2, 2500, 960, 24, 16, 256, true, 0, 0x31004000, 500, false, true, true, true, 63,
     6, 150, 3800, true, false, false, false, false, 128, 64, 1},
    {"gfx1200", "RDNA4", 32, 65536, 1536, false, false, false, true, true, 0x48,
     64, 2, 2970, 640, 24, 16, 256, true, 0, 0x31004000, 500, false, true, true, true, 63,
     8, 150, 3800, true, false, false, false, true, 128, 64, 1},
};
const int target_count = (int)(sizeof target_table / sizeof target_table[0]);

const target_info *target_lookup(const char *name, size_t n) {
  for (int i = 0; i < target_count; i++)
    if (strlen(target_table[i].name) == n && memcmp(target_table[i].name, name, n) == 0)
      return &target_table[i];
  return NULL;
}

static void known_targets(char *buf, size_t size) {
  size_t used = 0;
  buf[0] = 0;
  for (int i = 0; i < target_count && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", target_table[i].name);
}

bool target_parse(const char *s, target_request *out, char *err, size_t errsize) {
  memset(out, 0, sizeof *out);
  size_t plen = strcspn(s, ":");
  out->info = target_lookup(s, plen);
  if (!out->info) {
    char known[256];
    known_targets(known, sizeof known);
    snprintf(err, errsize, "unknown target '%.*s'; known targets: %s", (int)plen, s, known);
    return false;
  }
  const char *p = s + plen;
  while (*p == ':') {
    p++;
    size_t flen = strcspn(p, ":");
    char sign = flen ? p[flen - 1] : 0;
    size_t nlen = flen ? flen - 1 : 0;
    feature_mode *slot = NULL;
    bool exists = false;
    if (nlen == 7 && memcmp(p, "sramecc", 7) == 0)
      slot = &out->sramecc, exists = out->info->has_sramecc;
    else if (nlen == 5 && memcmp(p, "xnack", 5) == 0)
      slot = &out->xnack, exists = out->info->has_xnack;
    if (!slot || (sign != '+' && sign != '-')) {
      snprintf(err, errsize,
               "unknown target feature '%.*s' in '%s' (expected sramecc+, sramecc-, xnack+ or xnack-)",
               (int)flen, p, s);
      return false;
    }
    if (!exists) {
      snprintf(err, errsize, "target '%s' has no '%.*s' feature", out->info->name, (int)nlen, p);
      return false;
    }
    if (*slot != FEAT_ANY) {
      snprintf(err, errsize, "target feature '%.*s' given twice in '%s'", (int)nlen, p, s);
      return false;
    }
    *slot = sign == '+' ? FEAT_ON : FEAT_OFF;
    p += flen;
  }
  /* Canonical ID and LLVM feature string list features alphabetically: sramecc, xnack. */
  int n = snprintf(out->id, sizeof out->id, "%s", out->info->name);
  if (out->sramecc != FEAT_ANY)
    n += snprintf(out->id + n, sizeof out->id - (size_t)n, ":sramecc%c",
                  out->sramecc == FEAT_ON ? '+' : '-');
  if (out->xnack != FEAT_ANY)
    snprintf(out->id + n, sizeof out->id - (size_t)n, ":xnack%c", out->xnack == FEAT_ON ? '+' : '-');
  n = 0;
  if (out->sramecc != FEAT_ANY)
    n += snprintf(out->features, sizeof out->features, "%csramecc", out->sramecc == FEAT_ON ? '+' : '-');
  if (out->xnack != FEAT_ANY)
    snprintf(out->features + n, sizeof out->features - (size_t)n, "%s%cxnack", n ? "," : "",
             out->xnack == FEAT_ON ? '+' : '-');
  return true;
}

/* Matrix instructions the GEMM family may use, one row per target, operand type and shape; the
 * preferred shape of a (target, type) comes first. Verified against LLVM 22 availability. */
#define MFMA(t, et, m, n, k, intr, mn, cyc) {t, et, MATRIX_MFMA, m, n, k, "llvm.amdgcn.mfma." intr, mn, cyc}
#define WMMA(t, lay, et, intr, mn, cyc) {t, et, lay, 16, 16, 16, "llvm.amdgcn.wmma." intr, mn, cyc}
const target_matrix target_matrix_table[] = {
    MFMA("gfx908", ET_F32, 32, 32, 2, "f32.32x32x2f32", "v_mfma_f32_32x32x2f32", 64),
    MFMA("gfx908", ET_F32, 16, 16, 4, "f32.16x16x4f32", "v_mfma_f32_16x16x4f32", 32),
    MFMA("gfx908", ET_F16, 32, 32, 8, "f32.32x32x8f16", "v_mfma_f32_32x32x8f16", 64),
    MFMA("gfx908", ET_F16, 16, 16, 16, "f32.16x16x16f16", "v_mfma_f32_16x16x16f16", 32),
    MFMA("gfx908", ET_BF16, 32, 32, 4, "f32.32x32x4bf16", "v_mfma_f32_32x32x4bf16", 64),
    MFMA("gfx908", ET_BF16, 16, 16, 8, "f32.16x16x8bf16", "v_mfma_f32_16x16x8bf16", 32),
    MFMA("gfx908", ET_I8, 32, 32, 8, "i32.32x32x8i8", "v_mfma_i32_32x32x8i8", 64),
    MFMA("gfx908", ET_I8, 16, 16, 16, "i32.16x16x16i8", "v_mfma_i32_16x16x16i8", 32),
    MFMA("gfx90a", ET_F32, 32, 32, 2, "f32.32x32x2f32", "v_mfma_f32_32x32x2f32", 64),
    MFMA("gfx90a", ET_F32, 16, 16, 4, "f32.16x16x4f32", "v_mfma_f32_16x16x4f32", 32),
    MFMA("gfx90a", ET_F16, 32, 32, 8, "f32.32x32x8f16", "v_mfma_f32_32x32x8f16", 64),
    MFMA("gfx90a", ET_F16, 16, 16, 16, "f32.16x16x16f16", "v_mfma_f32_16x16x16f16", 32),
    MFMA("gfx90a", ET_BF16, 32, 32, 8, "f32.32x32x8bf16.1k", "v_mfma_f32_32x32x8bf16_1k", 64),
    MFMA("gfx90a", ET_BF16, 16, 16, 16, "f32.16x16x16bf16.1k", "v_mfma_f32_16x16x16bf16_1k", 32),
    MFMA("gfx90a", ET_I8, 32, 32, 8, "i32.32x32x8i8", "v_mfma_i32_32x32x8i8", 64),
    MFMA("gfx90a", ET_I8, 16, 16, 16, "i32.16x16x16i8", "v_mfma_i32_16x16x16i8", 32),
    MFMA("gfx942", ET_F32, 32, 32, 2, "f32.32x32x2f32", "v_mfma_f32_32x32x2_f32", 64),
    MFMA("gfx942", ET_F32, 16, 16, 4, "f32.16x16x4f32", "v_mfma_f32_16x16x4_f32", 32),
    MFMA("gfx942", ET_F16, 32, 32, 8, "f32.32x32x8f16", "v_mfma_f32_32x32x8_f16", 32),
    MFMA("gfx942", ET_F16, 16, 16, 16, "f32.16x16x16f16", "v_mfma_f32_16x16x16_f16", 16),
    MFMA("gfx942", ET_BF16, 32, 32, 8, "f32.32x32x8bf16.1k", "v_mfma_f32_32x32x8_bf16", 32),
    MFMA("gfx942", ET_BF16, 16, 16, 16, "f32.16x16x16bf16.1k", "v_mfma_f32_16x16x16_bf16", 16),
    MFMA("gfx942", ET_I8, 32, 32, 16, "i32.32x32x16.i8", "v_mfma_i32_32x32x16_i8", 32),
    MFMA("gfx942", ET_I8, 16, 16, 32, "i32.16x16x32.i8", "v_mfma_i32_16x16x32_i8", 16),
    /* gfx942 decodes fp8/bf8 operands as FNUZ, gfx950 the same intrinsics as OCP */
    MFMA("gfx942", ET_F8E4M3FNUZ, 32, 32, 16, "f32.32x32x16.fp8.fp8", "v_mfma_f32_32x32x16_fp8_fp8", 32),
    MFMA("gfx942", ET_F8E4M3FNUZ, 16, 16, 32, "f32.16x16x32.fp8.fp8", "v_mfma_f32_16x16x32_fp8_fp8", 16),
    MFMA("gfx942", ET_F8E5M2FNUZ, 32, 32, 16, "f32.32x32x16.bf8.bf8", "v_mfma_f32_32x32x16_bf8_bf8", 32),
    MFMA("gfx942", ET_F8E5M2FNUZ, 16, 16, 32, "f32.16x16x32.bf8.bf8", "v_mfma_f32_16x16x32_bf8_bf8", 16),
    MFMA("gfx950", ET_F32, 32, 32, 2, "f32.32x32x2f32", "v_mfma_f32_32x32x2_f32", 64),
    MFMA("gfx950", ET_F32, 16, 16, 4, "f32.16x16x4f32", "v_mfma_f32_16x16x4_f32", 32),
    MFMA("gfx950", ET_F16, 32, 32, 16, "f32.32x32x16.f16", "v_mfma_f32_32x32x16_f16", 32),
    MFMA("gfx950", ET_F16, 16, 16, 32, "f32.16x16x32.f16", "v_mfma_f32_16x16x32_f16", 16),
    MFMA("gfx950", ET_BF16, 32, 32, 16, "f32.32x32x16.bf16", "v_mfma_f32_32x32x16_bf16", 32),
    MFMA("gfx950", ET_BF16, 16, 16, 32, "f32.16x16x32.bf16", "v_mfma_f32_16x16x32_bf16", 16),
    MFMA("gfx950", ET_I8, 32, 32, 32, "i32.32x32x32.i8", "v_mfma_i32_32x32x32_i8", 32),
    MFMA("gfx950", ET_I8, 16, 16, 64, "i32.16x16x64.i8", "v_mfma_i32_16x16x64_i8", 16),
    MFMA("gfx950", ET_F8E4M3FN, 32, 32, 16, "f32.32x32x16.fp8.fp8", "v_mfma_f32_32x32x16_fp8_fp8", 32),
    MFMA("gfx950", ET_F8E4M3FN, 16, 16, 32, "f32.16x16x32.fp8.fp8", "v_mfma_f32_16x16x32_fp8_fp8", 16),
    MFMA("gfx950", ET_F8E5M2, 32, 32, 16, "f32.32x32x16.bf8.bf8", "v_mfma_f32_32x32x16_bf8_bf8", 32),
    MFMA("gfx950", ET_F8E5M2, 16, 16, 32, "f32.16x16x32.bf8.bf8", "v_mfma_f32_16x16x32_bf8_bf8", 16),
    WMMA("gfx1100", MATRIX_WMMA_GFX11, ET_F16, "f32.16x16x16.f16", "v_wmma_f32_16x16x16_f16", 32),
    WMMA("gfx1100", MATRIX_WMMA_GFX11, ET_BF16, "f32.16x16x16.bf16", "v_wmma_f32_16x16x16_bf16", 32),
    WMMA("gfx1100", MATRIX_WMMA_GFX11, ET_I8, "i32.16x16x16.iu8", "v_wmma_i32_16x16x16_iu8", 32),
    WMMA("gfx1200", MATRIX_WMMA_GFX12, ET_F16, "f32.16x16x16.f16", "v_wmma_f32_16x16x16_f16", 16),
    WMMA("gfx1200", MATRIX_WMMA_GFX12, ET_BF16, "f32.16x16x16.bf16", "v_wmma_f32_16x16x16_bf16", 16),
    WMMA("gfx1200", MATRIX_WMMA_GFX12, ET_I8, "i32.16x16x16.iu8", "v_wmma_i32_16x16x16_iu8", 8),
    /* OCP fp8/bf8 operands (gfx12 has no FNUZ forms), eight bytes per lane like iu8 */
    WMMA("gfx1200", MATRIX_WMMA_GFX12, ET_F8E4M3FN, "f32.16x16x16.fp8.fp8", "v_wmma_f32_16x16x16_fp8_fp8", 8),
    WMMA("gfx1200", MATRIX_WMMA_GFX12, ET_F8E5M2, "f32.16x16x16.bf8.bf8", "v_wmma_f32_16x16x16_bf8_bf8", 8),
};
#undef MFMA
#undef WMMA
const int target_matrix_count = (int)(sizeof target_matrix_table / sizeof target_matrix_table[0]);

/* gfx950 only (CDNA4 ISA guide §7.1.5, §7.2.1; IntrinsicsAMDGPU.td; llc-22 selects the
 * unscaled mnemonic for constant-zero scales) */
const target_scaled_matrix target_scaled_matrix_table[] = {
    {"gfx950", 16, 16, 128, 32, "llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4",
     "v_mfma_scale_f32_16x16x128_f8f6f4", "v_mfma_f32_16x16x128_f8f6f4", 16},
    {"gfx950", 32, 32, 64, 32, "llvm.amdgcn.mfma.scale.f32.32x32x64.f8f6f4",
     "v_mfma_scale_f32_32x32x64_f8f6f4", "v_mfma_f32_32x32x64_f8f6f4", 32},
};
const int target_scaled_matrix_count =
    (int)(sizeof target_scaled_matrix_table / sizeof target_scaled_matrix_table[0]);

const target_scaled_matrix *target_scaled_matrix_find(const char *processor, int m) {
  for (int i = 0; i < target_scaled_matrix_count; i++) {
    const target_scaled_matrix *t = &target_scaled_matrix_table[i];
    if (!strcmp(t->target, processor) && (!m || t->m == m))
      return t;
  }
  return NULL;
}

const target_scaled_matrix *target_scaled_matrix_by_mnemonic(const char *processor, const char *mnemonic) {
  for (int i = 0; i < target_scaled_matrix_count; i++) {
    const target_scaled_matrix *t = &target_scaled_matrix_table[i];
    if (!strcmp(t->target, processor) &&
        (!strcmp(t->mnemonic, mnemonic) || !strcmp(t->mnemonic_unscaled, mnemonic)))
      return t;
  }
  return NULL;
}

/* f16 and i8 dots exist on every table target; the bf16 dot only on gfx950, gfx11 and gfx12
 * (llc-22 aborts on the others) */
#define DOT(tg, t, intr, k) {tg, t, "llvm.amdgcn." intr, k}
#define DOTS(tg) DOT(tg, ET_F16, "fdot2", 2), DOT(tg, ET_I8, "sdot4", 4)
const target_dot target_dot_table[] = {
    DOTS("gfx908"), DOTS("gfx90a"), DOTS("gfx942"), DOTS("gfx950"), DOTS("gfx1030"),
    DOTS("gfx1100"), DOTS("gfx1200"),
    DOT("gfx950", ET_BF16, "fdot2.f32.bf16", 2),
    DOT("gfx1100", ET_BF16, "fdot2.f32.bf16", 2),
    DOT("gfx1200", ET_BF16, "fdot2.f32.bf16", 2),
};
const int target_dot_count = (int)(sizeof target_dot_table / sizeof target_dot_table[0]);
