#!/usr/bin/env bats
# The persistent kernel cache (--cache-dir, TOSAC_CACHE_DIR, --cache-max-size, --cache-stats;
# docs/library.md#kernel-cache): warm compiles are byte-identical to cold ones, a change of
# weights alone is served from the cache, damaged entries are detected and rewritten,
# concurrent compiles share one cache safely, and the size bound evicts least recently used
# entries first.

bats_load_library bats-support
bats_load_library bats-assert

setup_file() {
  export ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  export TOSAC="$ROOT/${TOSAC_BUILD:-build}/bin/tosac"
  export W="$BATS_FILE_TMPDIR"
  export ARCH=--offload-arch=gfx90a,gfx1030
  cd "$W"
  # y = relu(x @ W + b) with W a 64x64 constant (16 KiB: it goes to the weights file) and a
  # reduction after it: several kernels and work items per target
  gen() { # seed
    /usr/bin/python3 - "$1" <<'PY'
import struct, sys, random
random.seed(int(sys.argv[1]))
w = b"".join(struct.pack("<f", random.uniform(-1, 1)) for _ in range(64 * 64)).hex().upper()
print('''func.func @main(%%x: tensor<1x16x64xf32>) -> tensor<1x16x1xf32> {
  %%w = "tosa.const"() <{values = dense<"0x%s"> : tensor<1x64x64xf32>}> : () -> tensor<1x64x64xf32>
  %%za = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %%zb = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %%0 = tosa.matmul %%x, %%w, %%za, %%zb : (tensor<1x16x64xf32>, tensor<1x64x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x64xf32>
  %%1 = tosa.clamp %%0 {min_val = 0.0 : f32, max_val = 3.4e38 : f32} : (tensor<1x16x64xf32>) -> tensor<1x16x64xf32>
  %%2 = tosa.reduce_sum %%1 {axis = 2 : i32} : (tensor<1x16x64xf32>) -> tensor<1x16x1xf32>
  return %%2 : tensor<1x16x1xf32>
}''' % w)
PY
  }
  gen 1 > m1.mlir
  gen 2 > m2.mlir
  # a GEMM's 16 KiB weight, then a 64-float bias and a 64-float scale read by its epilogue and a
  # 16-float constant of an elementwise kernel: small constants that are not splats
  genb() { # seed
    /usr/bin/python3 - "$1" <<'PY'
import struct, sys, random
random.seed(int(sys.argv[1]))
h = lambda n: b"".join(struct.pack("<f", random.uniform(-1, 1)) for _ in range(n)).hex().upper()
print('''func.func @main(%%x: tensor<1x16x64xf32>, %%y: tensor<1x16x16xf32>) -> (tensor<1x16x64xf32>, tensor<1x16x16xf32>) {
  %%w = "tosa.const"() <{values = dense<"0x%s"> : tensor<1x64x64xf32>}> : () -> tensor<1x64x64xf32>
  %%b = "tosa.const"() <{values = dense<"0x%s"> : tensor<1x1x64xf32>}> : () -> tensor<1x1x64xf32>
  %%s = "tosa.const"() <{values = dense<"0x%s"> : tensor<1x1x64xf32>}> : () -> tensor<1x1x64xf32>
  %%t = "tosa.const"() <{values = dense<"0x%s"> : tensor<1x1x16xf32>}> : () -> tensor<1x1x16xf32>
  %%z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %%sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %%0 = tosa.matmul %%x, %%w, %%z, %%z : (tensor<1x16x64xf32>, tensor<1x64x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x64xf32>
  %%1 = tosa.add %%0, %%b : (tensor<1x16x64xf32>, tensor<1x1x64xf32>) -> tensor<1x16x64xf32>
  %%2 = tosa.mul %%1, %%s, %%sh : (tensor<1x16x64xf32>, tensor<1x1x64xf32>, tensor<1xi8>) -> tensor<1x16x64xf32>
  %%3 = tosa.sub %%y, %%t : (tensor<1x16x16xf32>, tensor<1x1x16xf32>) -> tensor<1x16x16xf32>
  return %%2, %%3 : tensor<1x16x64xf32>, tensor<1x16x16xf32>
}''' % (h(64 * 64), h(64), h(64), h(16)))
PY
  }
  genb 1 > b1.mlir
  genb 2 > b2.mlir
  "$TOSAC" m1.mlir $ARCH --embed-ir -o ref1.hipfb
  "$TOSAC" m2.mlir $ARCH --embed-ir -o ref2.hipfb
}

setup() { cd "$W"; }

same_outputs() { # stem-a stem-b
  cmp "$1.hipfb" "$2.hipfb" && cmp "$1.weights" "$2.weights" &&
    diff <(grep -Ev '"(bundle|file)"' "$1.json") <(grep -Ev '"(bundle|file)"' "$2.json")
}

entries() { find "$1/objects" -type f ! -name '*.tmp*' | wc -l; }

@test "cold and warm compiles write the same bytes as an uncached one; -v and --time-report count hits" {
  rm -rf c1
  run "$TOSAC" m1.mlir $ARCH --embed-ir --cache-dir=c1 -o cold.hipfb -v
  assert_success
  assert_line --regexp '^tosac: codegen gfx90a +[0-9.]+ ms in [0-9]+ work items?, 0 from the cache$'
  same_outputs ref1 cold
  n=$(entries c1)
  [ "$n" -ge 2 ]
  run "$TOSAC" m1.mlir $ARCH --embed-ir --cache-dir=c1 -o warm.hipfb -v --time-report
  assert_success
  items=$(echo "$output" | sed -n 's/^tosac: codegen gfx1030 .* in \([0-9]*\) work items\{0,1\}, .*/\1/p')
  assert_line --regexp "^tosac: codegen gfx1030 +[0-9.]+ ms in $items work items?, $items from the cache\$"
  assert_line --regexp '^  target +IR build +optimise +codegen +link +metadata +total  cache hits$'
  assert_line --regexp "^  gfx1030 +([0-9]+\.[0-9]{2} +){5}[0-9]+\.[0-9]{2}  $items/$items\$"
  same_outputs ref1 warm
  [ "$(entries c1)" -eq "$n" ]
  # without --embed-ir the key differs (no IR is kept): new entries, same bytes as uncached
  "$TOSAC" m1.mlir $ARCH -o plain.hipfb
  run "$TOSAC" m1.mlir $ARCH --cache-dir=c1 -o plaincached.hipfb -v
  assert_line --regexp '^tosac: codegen gfx90a +[0-9.]+ ms in [0-9]+ work items?, 0 from the cache$'
  same_outputs plain plaincached
}

@test "a compile that changed only weights takes every kernel from the cache" {
  rm -rf c2
  "$TOSAC" m1.mlir $ARCH --embed-ir --cache-dir=c2 -o a.hipfb
  run "$TOSAC" m2.mlir $ARCH --embed-ir --cache-dir=c2 -o b.hipfb -v
  assert_success
  refute_line --regexp 'work items?, 0 from the cache$'
  for t in gfx90a gfx1030; do
    echo "$output" | grep -Eq "^tosac: codegen $t .* in ([0-9]+) work items?, \1 from the cache\$"
  done
  same_outputs ref2 b
  ! cmp -s a.weights b.weights
  run "$TOSAC" --cache-stats --cache-dir=c2
  assert_success
  assert_line "cache c2"
  hits=$(echo "$output" | awk '/^hits/{print $2}'); misses=$(echo "$output" | awk '/^misses/{print $2}')
  [ "$hits" -eq "$misses" ] && [ "$hits" -ge 2 ]
  assert_line "entries $misses"
  assert_line --regexp '^size [0-9]+ bytes$'
}

@test "changed small and large weights: zero cache misses, the bundle of a cold compile" {
  rm -rf c3
  arch=--offload-arch=gfx90a,gfx1100,gfx1030
  "$TOSAC" b1.mlir $arch --cache-dir=c3 -o b1.hipfb
  run "$TOSAC" --cache-stats --cache-dir=c3
  misses=$(echo "$output" | awk '/^misses/{print $2}')
  [ "$misses" -ge 3 ]
  run "$TOSAC" b2.mlir $arch --cache-dir=c3 -o warm2.hipfb
  assert_success
  run "$TOSAC" --cache-stats --cache-dir=c3
  assert_line "misses $misses"
  assert_line "hits $misses"
  "$TOSAC" b2.mlir $arch -o cold2.hipfb
  cmp warm2.hipfb cold2.hipfb
  cmp b1.hipfb cold2.hipfb
  diff <(grep -Ev '"(bundle|file)"' warm2.json) <(grep -Ev '"(bundle|file)"' cold2.json)
  cmp warm2.weights cold2.weights
  ! cmp -s b1.weights warm2.weights
  # every non-splat constant is in the weights file, packed: the GEMM's weights with the scale
  # folded in (fold-batchnorm), its bias and the elementwise constant: 16384 + 256 + 64 bytes
  run /usr/bin/python3 -c '
import json; m = json.load(open("warm2.json")); print(m["constants"]["bytes"])
print(sorted((b["offset"], b["bytes"]) for b in m["targets"][0]["buffers"] if b["kind"] == "constant"))'
  assert_line --index 0 "16896"
  assert_line --index 1 "[(0, 16384), (16384, 256), (16640, 64)]"
}

@test "a damaged or truncated entry is detected, recompiled and rewritten" {
  rm -rf c3
  "$TOSAC" m1.mlir $ARCH --embed-ir --cache-dir=c3 -o a.hipfb
  mapfile -t files < <(find c3/objects -type f | sort)
  printf 'X' | dd of="${files[0]}" bs=1 seek=200 conv=notrunc status=none
  truncate -s 100 "${files[1]}"
  run "$TOSAC" m1.mlir $ARCH --embed-ir --cache-dir=c3 -o b.hipfb -v
  assert_success
  misses=$(echo "$output" | sed -n 's/^tosac: codegen .* in \([0-9]*\) work items\{0,1\}, \([0-9]*\) from the cache$/\1 \2/p' |
           awk '{m += $1 - $2} END {print m}')
  [ "$misses" -eq 2 ]
  same_outputs ref1 b
  # rewritten whole: the next compile takes everything from the cache
  "$TOSAC" m1.mlir $ARCH --embed-ir --cache-dir=c3 -o c.hipfb -v 2> v.txt
  [ "$(grep -c 'from the cache$' v.txt)" -eq 2 ]
  [ "$(grep -Ec 'in ([0-9]+) work items?, \1 from the cache$' v.txt)" -eq 2 ]
  same_outputs ref1 c
}

@test "four compiles racing on one cold cache: all outputs identical, no partial entry, no temporary left" {
  rm -rf c4
  for i in 1 2 3 4; do
    "$TOSAC" m1.mlir $ARCH --embed-ir --cache-dir=c4 -j 1 -o race$i.hipfb &
  done
  wait
  for i in 1 2 3 4; do same_outputs ref1 race$i; done
  [ "$(find c4 -name '*.tmp*' | wc -l)" -eq 0 ]
  # every entry is whole: one more compile hits them all
  "$TOSAC" m1.mlir $ARCH --embed-ir --cache-dir=c4 -o after.hipfb -v 2> v.txt
  [ "$(grep -Ec 'in ([0-9]+) work items?, \1 from the cache$' v.txt)" -eq 2 ]
  run "$TOSAC" --cache-stats --cache-dir=c4
  hits=$(echo "$output" | awk '/^hits/{print $2}'); misses=$(echo "$output" | awk '/^misses/{print $2}')
  n=$(entries c4)
  # 5 compiles of n work items each were counted
  [ $((hits + misses)) -eq $((5 * n)) ]
}

@test "--cache-max-size evicts the least recently used entries; TOSAC_CACHE_DIR names the cache" {
  rm -rf c5
  TOSAC_CACHE_DIR=c5 "$TOSAC" m1.mlir $ARCH --embed-ir -o a.hipfb
  n1=$(entries c5)
  [ "$n1" -ge 2 ]
  sleep 1.1
  # a second graph with other kernels (no reduction), then bound the cache to its size
  sed 's/%2 = tosa.reduce_sum.*/%2 = tosa.reduce_max %1 {axis = 2 : i32} : (tensor<1x16x64xf32>) -> tensor<1x16x1xf32>/' m1.mlir > m3.mlir
  TOSAC_CACHE_DIR=c5 "$TOSAC" m3.mlir $ARCH --embed-ir -o b.hipfb
  old=$(find c5/objects -type f ! -newer a.hipfb | sort)
  total=$(find c5/objects -type f -printf '%s\n' | awk '{s += $1} END {print s}')
  oldsize=$(echo "$old" | xargs stat -c %s | awk '{s += $1} END {print s}')
  bound=$((total - oldsize))
  TOSAC_CACHE_DIR=c5 "$TOSAC" m3.mlir $ARCH --embed-ir --cache-max-size=$bound -o c.hipfb
  size=$(find c5/objects -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
  [ "$size" -le "$bound" ]
  # the entries of m1 that m3 did not use again are gone, m3's are all there
  for f in $old; do
    if [ -e "$f" ]; then [ "$f" -nt a.hipfb ] || { echo "stale $f kept"; false; }; fi
  done
  run "$TOSAC" m3.mlir $ARCH --embed-ir --cache-dir=c5 -o d.hipfb -v
  refute_line --regexp 'work items?, 0 from the cache$'
  cmp b.hipfb d.hipfb
}

@test "cache errors: bad --cache-max-size, --cache-stats without a cache, an unwritable cache directory" {
  run "$TOSAC" m1.mlir --cache-dir=c6 --cache-max-size=12Q
  [ "$status" -eq 2 ]
  assert_output --partial "tosac: error: invalid --cache-max-size '12Q' (use bytes, or a number with K, M or G)"
  run "$TOSAC" m1.mlir --cache-dir=
  [ "$status" -eq 2 ]
  assert_line --index 0 "tosac: error: --cache-dir needs a directory"
  run "$TOSAC" --cache-stats
  [ "$status" -eq 2 ]
  assert_output "tosac: error: --cache-stats needs --cache-dir=DIR or TOSAC_CACHE_DIR"
  mkdir -p notacache
  run "$TOSAC" --cache-stats --cache-dir=notacache
  [ "$status" -eq 1 ]
  assert_output "tosac: error: 'notacache' is not a tosac kernel cache"
  touch afile
  rm -f e.hipfb e.json
  run "$TOSAC" m1.mlir $ARCH --cache-dir=afile/sub -o e.hipfb
  [ "$status" -eq 1 ]
  assert_output "tosac: error: cannot create the kernel cache directory 'afile/sub': Not a directory"
  [ ! -e e.hipfb ] && [ ! -e e.json ]
}
