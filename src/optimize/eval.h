/* eval.h: the reference evaluator of TOSA semantics on constant data (eval.c),
 * shared by constant folding (fold.c, batchnorm.c) and the frontend's
 * compile-time control flow (frontend/fold_control.c). A pure function of
 * dense data: floats are computed in double and rounded once to the result
 * type (round to nearest even), integers exactly with the wrap and saturation
 * rules the code generator applies; cases TOSA leaves undefined (division by
 * zero, a float NaN cast to an integer, an index out of range) are not
 * evaluated, so they keep their run-time meaning. docs/optimize.md. */
#ifndef TOSAC_EVAL_H
#define TOSAC_EVAL_H

#include "tosac.h"

/* Element i of d (splat aware): integers sign-extended, floats exactly as
 * doubles. */
int64_t ev_int(const dense_data *d, int64_t i);
double ev_float(const dense_data *d, int64_t i);
/* Room for a constant of type t (zeroed; one element when splat). */
dense_data *ev_new(arena *a, const tensor_type *t, bool splat);
/* Element i of d becomes iv (integer types: wrapped to the width) or fv
 * (float types: rounded to nearest even). */
void ev_store(dense_data *d, int64_t i, int64_t iv, double fv);
/* Would ev_op evaluate o, judging by its kind and types alone? */
bool ev_supported(const op *o);
/* The result of op o (one result) on constant operands in[0..o->noperands);
 * NULL when it is not evaluated (unsupported, or a case TOSA leaves undefined).
 * The result lives in a; it may share bytes with an operand (reshape). */
const dense_data *ev_op(arena *a, const op *o, const dense_data *const *in);

#endif
