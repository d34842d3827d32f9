#!/usr/bin/env bats
# The estimate's choice between no split, split + combine kernel and split with the last
# work-group's reduction (codegen/tuning.c cg_tune_splitk_form; docs/partitioning.md "Choosing
# the split and its form"): the partials are read from the coherent cache while they fit in it
# (the target table's coherent_cache_mib, cache_latency_ns), the combine pays a dependent launch
# (launch_ns), the last work-group a fence and an atomic. ResNet-18's default launches are pinned
# per target; ResNet-18's last 3x3 convolution (7x7 pixels, K = 4608) is checked for its form on
# gfx90a, gfx1100 and gfx1030 and against the oracle in both executors. Inputs are multiples of
# 1/8: every partial sum is exact, so any split gives the oracle's values.
bats_load_library bats-support
bats_load_library bats-assert
load lib/setup

setup() {
  tosac_setup
}

load lib/matmul

# forms MANIFEST: per target the launches, the kernels, each split kernel's split and form, and
# the workspace's zeroed bytes
forms() {
  /usr/bin/python3 - "$1" <<'PY'
import json, sys
for t in json.load(open(sys.argv[1]))["targets"]:
    ks = t["kernels"]
    sp = ["s%d:%s" % (k["tuning"]["split_k"], k["tuning"].get("split_k_form", "combine"))
          for k in ks if k.get("tuning", {}).get("split_k", 1) > 1 and not k["name"].endswith("_combine")]
    print(t["processor"], len(t["launches"]), " ".join(k["name"] for k in ks), " ".join(sp),
          "zeroed", t["workspace"].get("zeroed_bytes", 0))
PY
}

@test "torch-mlir's ResNet-18 by default: 23 launches on every target, every split reduced by its last work-group" {
  [ -d "$DATA" ] || skip "no $DATA"
  "$TOSAC" "$DATA/rocmlir_resnet18.mlir" --emit=partitions > r18.txt
  run grep '^target' r18.txt
  assert_output "target gfx908: 23 kernels, 23 launches, workspace 4015104 bytes
target gfx90a: 23 kernels, 23 launches, workspace 4016128 bytes
target gfx942: 23 kernels, 23 launches, workspace 6425344 bytes
target gfx950: 23 kernels, 23 launches, workspace 4016384 bytes
target gfx1030: 23 kernels, 23 launches, workspace 4014592 bytes
target gfx1100: 23 kernels, 23 launches, workspace 4014848 bytes
target gfx1200: 23 kernels, 23 launches, workspace 4014336 bytes"
  run grep -c '_combine over' r18.txt
  assert_output 0
  # the split convolutions per target (the 14x14 and 7x7 layers; gfx942's 304 CUs the 56x56 too)
  run /usr/bin/python3 -c '
import re, sys
out, t = [], None
for line in open("r18.txt"):
    m = re.match(r"target (\S+):", line)
    if m: out.append([m.group(1), 0])
    if re.match(r"  kernel \d+ \S+_splitk over", line): out[-1][1] += 1
print(" ".join("%s=%d" % tuple(o) for o in out))'
  assert_output "gfx908=9 gfx90a=9 gfx942=16 gfx950=12 gfx1030=12 gfx1100=11 gfx1200=4"
  # the manifest: every split kernel says lastwg, its counters in the zeroed region
  "$TOSAC" "$DATA/rocmlir_resnet18.mlir" --offload-arch=gfx90a,gfx1100,gfx1030 -o r18.hipfb
  run /usr/bin/python3 -c '
import json
for t in json.load(open("r18.json"))["targets"]:
    split = [k for k in t["kernels"] if k["tuning"].get("split_k", 1) > 1]
    forms = sorted(set(k["tuning"].get("split_k_form", "combine") for k in split))
    print(t["processor"], len(t["launches"]), len(split), " ".join(forms), t["workspace"].get("zeroed_bytes", 0) > 0)'
  assert_success
  assert_output "gfx90a 23 9 lastwg True
gfx1100 23 11 lastwg True
gfx1030 23 12 lastwg True"
}

@test "the 7x7x512 3x3 convolution (49x512x4608): one kernel, split K reduced by its last work-group, on gfx90a, gfx1100 and gfx1030" {
  conv7 c.mlir f32
  run "$TOSAC" c.mlir --offload-arch=gfx90a,gfx1100,gfx1030 -o c.hipfb
  assert_success
  run forms c.json
  # few output tiles for 104, 96 and 80 CUs: K split; the partials (0.3-0.6 MB) stay in the L2,
  # and a second launch (3.8 us) costs more than the reducing work-groups' reads of them
  assert_line "gfx90a 1 tosac_k0_conv2d_splitk s6:lastwg zeroed 256"
  assert_line "gfx1100 1 tosac_k0_conv2d_splitk s3:lastwg zeroed 256"
  assert_line "gfx1030 1 tosac_k0_conv2d_splitk s5:lastwg zeroed 256"
  # the same split with the combine kernel when forced, or unsplit
  TOSAC_SPLIT_K_FORM=combine run "$TOSAC" c.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "  kernel 1 tosac_k1_conv2d_combine over tensor<1x7x7x512xf32>"
  TOSAC_SPLIT_K=0 run "$TOSAC" c.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 1 kernels, 1 launches, workspace 0 bytes"
}

@test "a client without a zeroed workspace (libtosac-miir's setting) gets the combine kernel from the same estimate" {
  conv7 c.mlir f32
  run /usr/bin/python3 - "$ROOT/python" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import tosac
src = open('c.mlir').read()
for opt in ({}, {'zeroed_workspace': False}):
    t = tosac.compile(src, ['gfx90a'], **opt).manifest['targets'][0]
    print(opt.get('zeroed_workspace'), t['workspace'].get('zeroed_bytes', 0),
          [(k['name'], k['tuning'].get('split_k'), k['tuning'].get('split_k_form', 'combine'))
           for k in t['kernels']])
PY
  assert_success
  assert_line "None 256 [('tosac_k0_conv2d_splitk', 6, 'lastwg')]"
  assert_line --regexp "^False 0 \[\('tosac_k0_conv2d_splitk', [0-9]+, 'combine'\), \('tosac_k1_conv2d_combine', [0-9]+, 'combine'\)\]$"
}

@test "the default (last-work-group) split of the 7x7x512 convolution matches the oracle on gfx90a, gfx1100, gfx1030, both executors" {
  conv7 c.mlir f32
  eighths x.npy float32 41 1 7 7 512
  eighths w.npy float32 42 512 3 3 512
  eighths b.npy float32 43 512
  for e in ir isa; do
    TOSAC_EXEC=$e TOSAC_HIPEMU_EXEC=$e run "${CHECK[@]}" c.mlir --targets=gfx90a,gfx1100,gfx1030 --atol 1e-6 \
      --input=@x.npy --input=@w.npy --input=@b.npy
    assert_success
    assert_output --partial "ok c.mlir [gfx90a]: 1 results match"
    assert_output --partial "ok c.mlir [gfx1100]: 1 results match"
    assert_output --partial "ok c.mlir [gfx1030]: 1 results match"
  done
}
