/* quality.h: "tosac-bundle quality": the static kernel quality report of a bundle's GEMM-family
 * kernels (resources, main-loop matrix share, roofline estimate; docs/bench.md). */
#ifndef TOSAC_BUNDLE_QUALITY_H
#define TOSAC_BUNDLE_QUALITY_H

#include "inspect.h"

typedef struct tb_quality_options {
  double mca_timeout; /* seconds per llvm-mca-22 run; a slower run is reported as "timeout" */
} tb_quality_options;

/* One line per distinct GEMM-family kernel and target of the manifest; returns the number of
 * problems (targets missing from the bundle, unreadable kernels). */
int tb_quality(const tb_bundle *b, const char *manifest_text, const tb_quality_options *o,
               FILE *out);

#endif
