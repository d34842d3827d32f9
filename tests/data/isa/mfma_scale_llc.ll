; gfx950's block-scaled 16x16x128 MFMA as llc-22 compiles it (tests/bats/isa.bats): the machine
; code, with the wait states llc puts after the MFMA, runs in the emulator. test-isa's buffer
; holds 0, 1, ..., 1023: lane l's A is words 8l..8l+3, its B words 8l+4..8l+7 (fp4 nibbles of
; those integers); its scales are 120 + l % 8 (A, byte 3) and 127 - l / 16 (B, byte 0); C is 1.0.
; Lane l stores D's 4 registers as f32 bits to words 4l..4l+3.
declare i32 @llvm.amdgcn.workitem.id.x()
declare <4 x float> @llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.v4i32.v4i32(<4 x i32>, <4 x i32>, <4 x float>, i32, i32, i32, i32, i32, i32)

define amdgpu_kernel void @mfma_llc(ptr addrspace(1) noalias %out) #0 {
  %l = call i32 @llvm.amdgcn.workitem.id.x()
  %l64 = zext i32 %l to i64
  %pa = getelementptr <8 x i32>, ptr addrspace(1) %out, i64 %l64
  %v = load <8 x i32>, ptr addrspace(1) %pa, align 32
  %a = shufflevector <8 x i32> %v, <8 x i32> poison, <4 x i32> <i32 0, i32 1, i32 2, i32 3>
  %b = shufflevector <8 x i32> %v, <8 x i32> poison, <4 x i32> <i32 4, i32 5, i32 6, i32 7>
  %lm = and i32 %l, 7
  %sa0 = add i32 %lm, 120
  %sa = shl i32 %sa0, 24
  %lq = lshr i32 %l, 4
  %sb = sub i32 127, %lq
  call void @llvm.amdgcn.s.barrier()
  %d = call <4 x float> @llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.v4i32.v4i32(<4 x i32> %a, <4 x i32> %b, <4 x float> splat (float 1.0), i32 4, i32 4, i32 3, i32 %sa, i32 0, i32 %sb)
  %pd = getelementptr <4 x float>, ptr addrspace(1) %out, i64 %l64
  store <4 x float> %d, ptr addrspace(1) %pd, align 16
  ret void
}
declare void @llvm.amdgcn.s.barrier()
attributes #0 = { "amdgpu-flat-work-group-size"="64,64" "amdgpu-no-implicitarg-ptr" }
