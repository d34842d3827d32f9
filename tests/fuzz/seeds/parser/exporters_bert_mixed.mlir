// bert: batch=1 causal=False decode=0 dtype=f32 ffn=64 heads=2 hidden=16 layers=1 mask=False model=bert seed=3 seq=4 syntax=mixed weights=args
// oracle: arg 0 -1 1
// oracle: result 0 err 0.0001
func.func @main(%arg0: tensor<1x4x16xf32>, %arg1: tensor<1x16x16xf32>, %arg2: tensor<1x1x16xf32>, %arg3: tensor<1x16x16xf32>, %arg4: tensor<1x1x16xf32>, %arg5: tensor<1x16x16xf32>, %arg6: tensor<1x1x16xf32>, %arg7: tensor<1x16x16xf32>, %arg8: tensor<1x1x16xf32>, %arg9: tensor<1x1x16xf32>, %arg10: tensor<1x1x16xf32>, %arg11: tensor<1x16x64xf32>, %arg12: tensor<1x1x64xf32>, %arg13: tensor<1x64x16xf32>, %arg14: tensor<1x1x16xf32>, %arg15: tensor<1x1x16xf32>, %arg16: tensor<1x1x16xf32>) -> tensor<1x4x16xf32> {
  %v1 = tensor.collapse_shape %arg0 [[0, 1, 2]] : tensor<1x4x16xf32> into tensor<64xf32>
  %v2 = tensor.expand_shape %v1 [[0, 1, 2]] output_shape [1, 4, 16] : tensor<64xf32> into tensor<1x4x16xf32>
  %v3 = arith.constant 0.000000e+00 : f32
  %v4 = tensor.empty() : tensor<1x4x16xf32>
  %v5 = linalg.fill ins(%v3 : f32) outs(%v4 : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %v6 = linalg.batch_matmul ins(%v2, %arg1 : tensor<1x4x16xf32>, tensor<1x16x16xf32>) outs(%v5 : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %v7 = "tosa.add"(%v6, %arg2) : (tensor<1x4x16xf32>, tensor<1x1x16xf32>) -> tensor<1x4x16xf32>
  %v8 = tensor.collapse_shape %v7 [[0, 1, 2]] : tensor<1x4x16xf32> into tensor<64xf32>
  %v9 = tensor.expand_shape %v8 [[0, 1, 2, 3]] output_shape [1, 4, 2, 8] : tensor<64xf32> into tensor<1x4x2x8xf32>
  %v10 = tensor.empty() : tensor<1x2x4x8xf32>
  %v11 = linalg.transpose ins(%v9 : tensor<1x4x2x8xf32>) outs(%v10 : tensor<1x2x4x8xf32>) permutation = [0, 2, 1, 3]
  %v12 = tensor.collapse_shape %v11 [[0, 1, 2, 3]] : tensor<1x2x4x8xf32> into tensor<64xf32>
  %v13 = tensor.expand_shape %v12 [[0, 1, 2]] output_shape [2, 4, 8] : tensor<64xf32> into tensor<2x4x8xf32>
  %v14 = tensor.empty() : tensor<1x4x16xf32>
  %v15 = linalg.fill ins(%v3 : f32) outs(%v14 : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %v16 = linalg.batch_matmul ins(%v2, %arg3 : tensor<1x4x16xf32>, tensor<1x16x16xf32>) outs(%v15 : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %v17 = "tosa.add"(%v16, %arg4) : (tensor<1x4x16xf32>, tensor<1x1x16xf32>) -> tensor<1x4x16xf32>
  %v18 = tensor.collapse_shape %v17 [[0, 1, 2]] : tensor<1x4x16xf32> into tensor<64xf32>
  %v19 = tensor.expand_shape %v18 [[0, 1, 2, 3]] output_shape [1, 4, 2, 8] : tensor<64xf32> into tensor<1x4x2x8xf32>
  %v20 = tensor.empty() : tensor<1x2x8x4xf32>
  %v21 = linalg.transpose ins(%v19 : tensor<1x4x2x8xf32>) outs(%v20 : tensor<1x2x8x4xf32>) permutation = [0, 2, 3, 1]
  %v22 = tensor.collapse_shape %v21 [[0, 1, 2, 3]] : tensor<1x2x8x4xf32> into tensor<64xf32>
  %v23 = tensor.expand_shape %v22 [[0, 1, 2]] output_shape [2, 8, 4] : tensor<64xf32> into tensor<2x8x4xf32>
  %v24 = tensor.empty() : tensor<1x4x16xf32>
  %v25 = linalg.fill ins(%v3 : f32) outs(%v24 : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %v26 = linalg.batch_matmul ins(%v2, %arg5 : tensor<1x4x16xf32>, tensor<1x16x16xf32>) outs(%v25 : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %v27 = "tosa.add"(%v26, %arg6) : (tensor<1x4x16xf32>, tensor<1x1x16xf32>) -> tensor<1x4x16xf32>
  %v28 = tensor.collapse_shape %v27 [[0, 1, 2]] : tensor<1x4x16xf32> into tensor<64xf32>
  %v29 = tensor.expand_shape %v28 [[0, 1, 2, 3]] output_shape [1, 4, 2, 8] : tensor<64xf32> into tensor<1x4x2x8xf32>
  %v30 = tensor.empty() : tensor<1x2x4x8xf32>
  %v31 = linalg.transpose ins(%v29 : tensor<1x4x2x8xf32>) outs(%v30 : tensor<1x2x4x8xf32>) permutation = [0, 2, 1, 3]
  %v32 = tensor.collapse_shape %v31 [[0, 1, 2, 3]] : tensor<1x2x4x8xf32> into tensor<64xf32>
  %v33 = tensor.expand_shape %v32 [[0, 1, 2]] output_shape [2, 4, 8] : tensor<64xf32> into tensor<2x4x8xf32>
  %v34 = tensor.empty() : tensor<2x4x4xf32>
  %v35 = linalg.fill ins(%v3 : f32) outs(%v34 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %v36 = linalg.batch_matmul ins(%v13, %v23 : tensor<2x4x8xf32>, tensor<2x8x4xf32>) outs(%v35 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %v37 = "tosa.const"() <{values = dense<3.535533906e-01> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %v38 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %v39 = "tosa.mul"(%v36, %v37, %v38) : (tensor<2x4x4xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x4x4xf32>
  %v40 = tensor.empty() : tensor<2x4x4xf32>
  %v41 = linalg.softmax dimension(2) ins(%v39 : tensor<2x4x4xf32>) outs(%v40 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %v42 = tensor.empty() : tensor<2x4x8xf32>
  %v43 = linalg.fill ins(%v3 : f32) outs(%v42 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %v44 = linalg.batch_matmul ins(%v41, %v33 : tensor<2x4x4xf32>, tensor<2x4x8xf32>) outs(%v43 : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %v45 = tensor.collapse_shape %v44 [[0, 1, 2]] : tensor<2x4x8xf32> into tensor<64xf32>
  %v46 = tensor.expand_shape %v45 [[0, 1, 2, 3]] output_shape [1, 2, 4, 8] : tensor<64xf32> into tensor<1x2x4x8xf32>
  %v47 = tensor.empty() : tensor<1x4x2x8xf32>
  %v48 = linalg.transpose ins(%v46 : tensor<1x2x4x8xf32>) outs(%v47 : tensor<1x4x2x8xf32>) permutation = [0, 2, 1, 3]
  %v49 = tensor.collapse_shape %v48 [[0, 1, 2, 3]] : tensor<1x4x2x8xf32> into tensor<64xf32>
  %v50 = tensor.expand_shape %v49 [[0, 1, 2]] output_shape [1, 4, 16] : tensor<64xf32> into tensor<1x4x16xf32>
  %v51 = tensor.empty() : tensor<1x4x16xf32>
  %v52 = linalg.fill ins(%v3 : f32) outs(%v51 : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %v53 = linalg.batch_matmul ins(%v50, %arg7 : tensor<1x4x16xf32>, tensor<1x16x16xf32>) outs(%v52 : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %v54 = "tosa.add"(%v53, %arg8) : (tensor<1x4x16xf32>, tensor<1x1x16xf32>) -> tensor<1x4x16xf32>
  %v55 = arith.addf %v54, %v2 fastmath<contract> : tensor<1x4x16xf32>
  %v56 = "tosa.const"() <{values = dense<6.250000000e-02> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %v57 = "tosa.reduce_sum"(%v55) <{axis = 2 : i32}> : (tensor<1x4x16xf32>) -> tensor<1x4x1xf32>
  %v58 = "tosa.mul"(%v57, %v56, %v38) : (tensor<1x4x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x1xf32>
  %v59 = "tosa.sub"(%v55, %v58) : (tensor<1x4x16xf32>, tensor<1x4x1xf32>) -> tensor<1x4x16xf32>
  %v60 = arith.mulf %v59, %v59 fastmath<contract> : tensor<1x4x16xf32>
  %v61 = "tosa.reduce_sum"(%v60) <{axis = 2 : i32}> : (tensor<1x4x16xf32>) -> tensor<1x4x1xf32>
  %v62 = "tosa.mul"(%v61, %v56, %v38) : (tensor<1x4x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x1xf32>
  %v63 = "tosa.const"() <{values = dense<1.000000000e-05> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %v64 = "tosa.add"(%v62, %v63) : (tensor<1x4x1xf32>, tensor<1x1x1xf32>) -> tensor<1x4x1xf32>
  %v65 = math.rsqrt %v64 : tensor<1x4x1xf32>
  %v66 = "tosa.mul"(%v59, %v65, %v38) : (tensor<1x4x16xf32>, tensor<1x4x1xf32>, tensor<1xi8>) -> tensor<1x4x16xf32>
  %v67 = "tosa.mul"(%v66, %arg9, %v38) : (tensor<1x4x16xf32>, tensor<1x1x16xf32>, tensor<1xi8>) -> tensor<1x4x16xf32>
  %v68 = "tosa.add"(%v67, %arg10) : (tensor<1x4x16xf32>, tensor<1x1x16xf32>) -> tensor<1x4x16xf32>
  %v69 = tensor.empty() : tensor<1x4x64xf32>
  %v70 = linalg.fill ins(%v3 : f32) outs(%v69 : tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
  %v71 = linalg.batch_matmul ins(%v68, %arg11 : tensor<1x4x16xf32>, tensor<1x16x64xf32>) outs(%v70 : tensor<1x4x64xf32>) -> tensor<1x4x64xf32>
  %v72 = "tosa.add"(%v71, %arg12) : (tensor<1x4x64xf32>, tensor<1x1x64xf32>) -> tensor<1x4x64xf32>
  %v73 = "tosa.const"() <{values = dense<5.000000000e-01> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %v74 = "tosa.const"() <{values = dense<7.071067812e-01> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %v75 = "tosa.mul"(%v72, %v74, %v38) : (tensor<1x4x64xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x64xf32>
  %v76 = math.erf %v75 : tensor<1x4x64xf32>
  %v77 = "tosa.mul"(%v72, %v73, %v38) : (tensor<1x4x64xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x64xf32>
  %v78 = "tosa.const"() <{values = dense<1.000000000e+00> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %v79 = "tosa.add"(%v76, %v78) : (tensor<1x4x64xf32>, tensor<1x1x1xf32>) -> tensor<1x4x64xf32>
  %v80 = arith.mulf %v77, %v79 fastmath<contract> : tensor<1x4x64xf32>
  %v81 = tensor.empty() : tensor<1x4x16xf32>
  %v82 = linalg.fill ins(%v3 : f32) outs(%v81 : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %v83 = linalg.batch_matmul ins(%v80, %arg13 : tensor<1x4x64xf32>, tensor<1x64x16xf32>) outs(%v82 : tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %v84 = "tosa.add"(%v83, %arg14) : (tensor<1x4x16xf32>, tensor<1x1x16xf32>) -> tensor<1x4x16xf32>
  %v85 = arith.addf %v84, %v68 fastmath<contract> : tensor<1x4x16xf32>
  %v86 = "tosa.reduce_sum"(%v85) <{axis = 2 : i32}> : (tensor<1x4x16xf32>) -> tensor<1x4x1xf32>
  %v87 = "tosa.mul"(%v86, %v56, %v38) : (tensor<1x4x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x1xf32>
  %v88 = "tosa.sub"(%v85, %v87) : (tensor<1x4x16xf32>, tensor<1x4x1xf32>) -> tensor<1x4x16xf32>
  %v89 = arith.mulf %v88, %v88 fastmath<contract> : tensor<1x4x16xf32>
  %v90 = "tosa.reduce_sum"(%v89) <{axis = 2 : i32}> : (tensor<1x4x16xf32>) -> tensor<1x4x1xf32>
  %v91 = "tosa.mul"(%v90, %v56, %v38) : (tensor<1x4x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x1xf32>
  %v92 = "tosa.add"(%v91, %v63) : (tensor<1x4x1xf32>, tensor<1x1x1xf32>) -> tensor<1x4x1xf32>
  %v93 = math.rsqrt %v92 : tensor<1x4x1xf32>
  %v94 = "tosa.mul"(%v88, %v93, %v38) : (tensor<1x4x16xf32>, tensor<1x4x1xf32>, tensor<1xi8>) -> tensor<1x4x16xf32>
  %v95 = "tosa.mul"(%v94, %arg15, %v38) : (tensor<1x4x16xf32>, tensor<1x1x16xf32>, tensor<1xi8>) -> tensor<1x4x16xf32>
  %v96 = "tosa.add"(%v95, %arg16) : (tensor<1x4x16xf32>, tensor<1x1x16xf32>) -> tensor<1x4x16xf32>
  %v97 = tensor.collapse_shape %v96 [[0, 1, 2]] : tensor<1x4x16xf32> into tensor<64xf32>
  %v98 = tensor.expand_shape %v97 [[0, 1, 2]] output_shape [1, 4, 16] : tensor<64xf32> into tensor<1x4x16xf32>
  return %v98 : tensor<1x4x16xf32>
}
