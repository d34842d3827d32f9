/* batchnorm.c: the "fold-batchnorm" pass (docs/optimize.md). Rewrites nothing
 * yet. */
#include "optimize.h"

bool opt_fold_batchnorm(opt_ctx *c) {
  (void)c;
  return true;
}
