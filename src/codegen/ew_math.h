/* ew_math.h: libm-free f32 math emitted as LLVM IR (AMDGPU has no sinf/cosf/powf). */
#ifndef TOSAC_EW_MATH_H
#define TOSAC_EW_MATH_H

#include "codegen.h"

/* Each takes and returns f32 scalars; the result is within 1 ulp of the correctly rounded
 * value (the work is done in f64 and rounded once), like glibc, which the oracle calls. */
LLVMValueRef cg_math_sin_f32(cg_builder *cb, LLVMValueRef x);
LLVMValueRef cg_math_cos_f32(cg_builder *cb, LLVMValueRef x);
LLVMValueRef cg_math_pow_f32(cg_builder *cb, LLVMValueRef x, LLVMValueRef y);

#endif
