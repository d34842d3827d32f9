/* fold.c: the "fold-constants" pass (docs/optimize.md). Rewrites nothing yet.
 */
#include "optimize.h"

bool opt_fold_constants(opt_ctx *c) {
  (void)c;
  return true;
}
