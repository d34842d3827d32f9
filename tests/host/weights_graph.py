# weights_graph.py OUT.mlir: a graph whose 8 KiB constant (not a splat) goes to the weights file
# and is also returned as a result (a copy node): tests/bats/host.bats and hipemu.bats.
import struct, sys
vals = [((i * 7) % 13) - 6.0 for i in range(2048)]
hexs = ''.join(struct.pack('<f', v).hex() for v in vals).upper()
open(sys.argv[1], 'w').write(f'''func.func @main(%a: tensor<2x2048xf32>) -> (tensor<2x2048xf32>, tensor<1x2048xf32>) {{
  %w = "tosa.const"() <{{values = dense<"0x{hexs}"> : tensor<1x2048xf32>}}> : () -> tensor<1x2048xf32>
  %0 = tosa.add %a, %w : (tensor<2x2048xf32>, tensor<1x2048xf32>) -> tensor<2x2048xf32>
  return %0, %w : tensor<2x2048xf32>, tensor<1x2048xf32>
}}
''')
