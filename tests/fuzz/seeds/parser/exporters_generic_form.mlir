"builtin.module"() ({
  "func.func"() <{function_type = (tensor<2x3xf32>) -> tensor<2x3xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<2x3xf32>):
    %0 = "tosa.const"() <{values = dense_resource<w0> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
    %1 = "tosa.add"(%arg0, %0) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    "func.return"(%1) : (tensor<2x3xf32>) -> ()
  }) : () -> ()
}) : () -> ()
{-#
  dialect_resources: {
    builtin: {
      w0: "0x040000000000803F0000004000004040000080400000A0400000C040"
    }
  }
#-}
