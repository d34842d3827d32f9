#!/usr/bin/env bats
# Concat views (docs/partitioning.md "Concat views"): a tosa.concat whose value only an attention
# kernel taking the decode variant reads, and which is no graph result, launches nothing; the
# attention kernel takes the pieces as inputs and reads each key from the piece holding it.
# Seeded decode steps (tests/oracle/gen_concatview.py: 1-4 new tokens, odd and even cache
# lengths, K cached transposed (the concatenation along the innermost axis) or as rows, two or
# three pieces, f32 and f16) against the MLIR oracle on gfx942 (MFMA), gfx1100 (WMMA) and gfx1030
# (FMA), as machine code and as IR; what stays a copy kernel; the GPT-2-small decode step's
# figures.

bats_load_library bats-support
bats_load_library bats-assert
load lib/setup

setup() {
  tosac_setup
  CHECK+=(--targets gfx942,gfx1100,gfx1030)
}

gen() { gen_seeded gen_concatview.py "$1" "$2"; }

@test "a decode step's KV-cache concatenations launch nothing: the attention reads the caches and the new rows in place" {
  # seed 3: 4 heads of 16, one new token, a K cache kept transposed ([4, 16, 18] ++ [4, 16, 213]
  # ++ the new [4, 16, 1] along axis 2) and V as rows, f32
  gen decode 3
  run "$TOSAC" decode3.mlir --offload-arch=gfx942,gfx1100,gfx1030 --emit=partitions
  assert_success
  refute_output --partial "_concat over"
  assert_line "target gfx1030: 2 kernels, 2 launches, workspace 768 bytes"
  assert_line "target gfx1100: 2 kernels, 2 launches, workspace 768 bytes"
  # the attention's inputs: Q, the two K caches, K's new row at element 64 of the projection,
  # the two V caches and V's new row at element 128
  assert_line "    reads b8 b3 b4 b8 (from element 64) b5 b6 b8 (from element 128); writes b7"
  [ "$(echo "$output" | grep -c '^    tosa.concat')" -eq 0 ]
  # with the views off (TOSAC_NO_CONCAT_VIEWS=1) they are copy kernels
  TOSAC_NO_CONCAT_VIEWS=1 run "$TOSAC" decode3.mlir --offload-arch=gfx1030 --emit=partitions
  assert_success
  assert_line "target gfx1030: 4 kernels, 4 launches, workspace 119552 bytes"
  [ "$(echo "$output" | grep -c '_concat over')" -eq 2 ]
}

@test "seeded decode steps over concatenated caches match the oracle (machine code)" {
  for s in 1 2 3 4 5 6 8 9 10 11 12 14; do gen decode $s; done
  run "${CHECK[@]}" decode1.mlir decode2.mlir decode3.mlir decode4.mlir decode5.mlir decode6.mlir \
    decode8.mlir decode9.mlir decode10.mlir decode11.mlir decode12.mlir decode14.mlir
  assert_success
  assert_output --partial "PASSED: 12 graph(s)"
}

@test "seeded decode steps over concatenated caches match the oracle (IR)" {
  for s in 2 3 5 10 13 16; do gen decode $s; done
  TOSAC_EXEC=ir TOSAC_HIPEMU_EXEC=ir run "${CHECK[@]}" decode2.mlir decode3.mlir decode5.mlir \
    decode10.mlir decode13.mlir decode16.mlir
  assert_success
  assert_output --partial "PASSED: 6 graph(s)"
}

@test "a concatenation that is also a graph result, or read by another attention variant, stays a copy kernel" {
  # the V cache returned as well: its concat writes the result buffer, the K concat is a view
  gen result 2
  run "$TOSAC" result2.mlir --offload-arch=gfx942,gfx1030 --emit=partitions
  assert_success
  [ "$(echo "$output" | grep -c '_concat over')" -eq 2 ]
  run "${CHECK[@]}" result2.mlir
  assert_success
  # seed 7 (20 keys) takes the flash kernel on gfx942 and gfx90a, which reads K and V tiles
  # through buffer resources: both concats stay; on gfx1030 the decode variant reads them
  gen decode 7
  run "$TOSAC" decode7.mlir --offload-arch=gfx90a,gfx942,gfx1030 --emit=partitions
  assert_success
  [ "$(echo "$output" | grep -c '_concat over')" -eq 4 ]
  run "${CHECK[@]}" decode7.mlir
  assert_success
}

@test "GPT-2-small decode step (12 layers, KV 1024) on gfx942: no data-movement or combine launches, 61 in all" {
  /usr/bin/python3 "$ROOT/tests/bench/gen_model.py" gpt2 --layers 12 --kv 1024 --vocab 50257 --dtype f16 > gpt2.mlir
  run "$TOSAC" gpt2.mlir --offload-arch=gfx942 -o gpt2.hipfb
  assert_success
  run "$BUNDLE" quality gpt2.hipfb --no-mca --model
  assert_success
  # the KV-cache concats are views, the split-KV attention merges in its last work-group, the
  # layer norms run in the skinny GEMMs' prologues (norm_gemv.bats); every launch is charged the
  # dependent launch (3.8 us): 61 x 3.8 = 231.8 us of it
  assert_line "model gfx942: 61 launches, estimated 304.9 us, roofline 53.9 us: 18% of the roofline (5.65x)"
  assert_line "kernels gfx942: estimated 73.1 us: 74% of the roofline (1.36x), launch gaps 231.8 us"
  assert_line --regexp '^  launch +61 +231\.8 '
  refute_line --regexp '^  data '
  refute_line --regexp '^  combine '
  assert_line --regexp '^  attention +12 '
}
