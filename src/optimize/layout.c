/* layout.c: the "propagate-layout" pass (docs/optimize.md). Rewrites nothing
 * yet. */
#include "optimize.h"

bool opt_propagate_layout(opt_ctx *c) {
  (void)c;
  return true;
}
