#!/usr/bin/env bats
# The launch manifest: valid against schema/manifest.schema.json (checked with the independent
# python3-jsonschema), consistent with the bundle's code objects, deterministic, 2-space printed.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  BUILD="$ROOT/${TOSAC_BUILD:-build}"
  TOSAC="$BUILD/bin/tosac"
  SCHEMA="$ROOT/schema/manifest.schema.json"
  cd "$BATS_TEST_TMPDIR"
  cat > add.mlir <<'M'
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tosa.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
M
}

# Schema validation plus the cross-references a schema cannot express. Prints "valid".
validate() {
  /usr/bin/python3 - "$SCHEMA" "$1" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
m = json.load(open(sys.argv[2]))
errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(m), key=lambda e: list(e.path))
for e in errors:
    print('schema:', '/'.join(map(str, e.path)), e.message)
assert not errors
# Launch lists: the order, and the regions of if / while nodes (docs/manifest.md).
REGIONS = {'if': ('then', 'else'), 'while': ('cond', 'body')}
def lists(t):
    yield t['order']
    for l in t['launches']:
        for key in REGIONS.get(l['kind'], ()):
            yield l[key]
targets = list(m['targets']) + [t for v in m.get('variants', []) for t in v['targets']]
for t in targets:
    nb, nk, nl = len(t['buffers']), len(t['kernels']), len(t['launches'])
    assert [b['id'] for b in t['buffers']] == list(range(nb))
    assert [k['id'] for k in t['kernels']] == list(range(nk)) and t['kernel_count'] == nk
    assert [l['id'] for l in t['launches']] == list(range(nl))
    every = [n for lst in lists(t) for n in lst]
    assert sorted(every) == list(range(nl)), 'order and regions list every launch once'
    pos = {n: i for lst in lists(t) for i, n in enumerate(lst)}
    home = {n: j for j, lst in enumerate(lists(t)) for n in lst}
    for l in t['launches']:
        for d in l['deps']:
            assert pos[d] < pos[l['id']] and home[d] == home[l['id']], 'lists respect deps'
        if l['kind'] in REGIONS:
            assert t['launches'][l['condition']]['kind'] == 'readback'
        if l['kind'] == 'kernel':
            assert 0 <= l['kernel'] < nk
    for k in t['kernels']:
        assert k['symbol'] == k['name'] + '.kd'
        assert k['global'] == [b * g for b, g in zip(k['block'], k['grid'])]
        assert k['max_flat_workgroup_size'] >= k['block'][0] * k['block'][1] * k['block'][2]
        for a in k['args']:
            assert a['offset'] + a['size'] <= k['kernarg_size']
            assert a['buffer'] is None or 0 <= a['buffer'] < nb
    for b in t['buffers']:
        if b['kind'] in ('intermediate', 'workspace'):
            assert b['offset'] + b['bytes'] <= t['workspace']['bytes']
print('valid')
PY
}

@test "hand-built manifest (two targets, fill and copy nodes) validates and prints deterministically" {
  run "$BUILD/bin/test-bundle" --manifest-sample --embed-ir
  assert_success
  echo "$output" > sample.json
  run validate sample.json
  assert_output "valid"
  "$BUILD/bin/test-bundle" --manifest-sample --embed-ir > again.json
  cmp sample.json again.json
  # 2-space indentation, scalar arrays on one line, no tabs.
  run grep -c $'\t' sample.json
  assert_output "0"
  run head -3 sample.json
  assert_output $'{\n  "format": "tosac-manifest",\n  "version": 1,'
  run grep -m1 -n '"shape"' sample.json
  assert_output '21:      "shape": [2, 3],'
  run grep -c '"ir_entry_id": "openmp-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"' sample.json
  assert_output "1"
  run grep -c '"bits": "0x00000000"' sample.json
  assert_output "2"
  run "$BUILD/bin/test-bundle" --manifest-sample
  assert_line '      "ir_entry_id": null,'
}

@test "manifest of the elementwise sample: graph, target and kernel fields" {
  run "$TOSAC" add.mlir -o out.hipfb --offload-arch=gfx90a:sramecc+:xnack-,gfx1030
  assert_success
  [ -f out.json ]
  run validate out.json
  assert_output "valid"
  run /usr/bin/python3 - out.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
print(m['format'], m['version'], m['source'], m['entry'], m['bundle'], m['code_object_version'], m['ir_embedded'])
print([(i['index'], i['name'], i['shape'], i['element_type'], i['bytes']) for i in m['inputs']])
print([(o['index'], o['shape'], o['element_type'], o['bytes']) for o in m['outputs']])
for t in m['targets']:
    print(t['target_id'], t['processor'], t['bundle_entry_id'], t['ir_entry_id'], t['e_flags'],
          t['abi_version'], t['wavefront_size'], t['kernel_count'])
    print([(b['id'], b['kind'], b['index'], b['bytes']) for b in t['buffers']])
    k = t['kernels'][0]
    print(k['name'], k['symbol'], k['family'], [o['op'] for o in k['ops']])
    print([(a['value_kind'], a['buffer']) for a in k['args'] if not a['value_kind'].startswith('hidden_')])
    print([l['kind'] for l in t['launches']], t['order'])
PY
  assert_success
  assert_line --index 0 "tosac-manifest 1 add.mlir main out.hipfb 5 False"
  assert_line --index 1 "[(0, 'a', [2, 3], 'f32', 24), (1, 'b', [2, 3], 'f32', 24)]"
  assert_line --index 2 "[(0, [2, 3], 'f32', 24)]"
  assert_line --index 3 "gfx90a:sramecc+:xnack- gfx90a hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack- None 0xe3f 3 64 1"
  assert_line --index 4 "[(0, 'input', 0, 24), (1, 'input', 1, 24), (2, 'output', 0, 24)]"
  assert_line --index 5 "tosac_k0_add tosac_k0_add.kd elementwise ['tosa.add']"
  assert_line --index 6 "[('global_buffer', 0), ('global_buffer', 1), ('global_buffer', 2)]"
  assert_line --index 7 "['kernel'] [0]"
  assert_line --index 8 "gfx1030 gfx1030 hipv4-amdgcn-amd-amdhsa--gfx1030 None 0x36 3 32 1"
  run grep -c '"loc": "add.mlir:2:' out.json
  assert_output "2"
}

@test "manifest kernel facts equal the code object's metadata note" {
  "$TOSAC" add.mlir -o out.hipfb --offload-arch=gfx90a
  clang-offload-bundler-22 -type=o -unbundle -input=out.hipfb \
    -targets=hipv4-amdgcn-amd-amdhsa--gfx90a -output=gfx90a.co
  notes=$(llvm-readelf-22 --notes gfx90a.co)
  run /usr/bin/python3 - out.json <<'PY'
import json, sys
k = json.load(open(sys.argv[1]))['targets'][0]['kernels'][0]
print('.kernarg_segment_size: %d' % k['kernarg_size'])
print('.kernarg_segment_align: %d' % k['kernarg_align'])
print('.group_segment_fixed_size: %d' % k['lds_bytes'])
print('.sgpr_count: %d' % k['registers']['sgpr'])
print('.vgpr_count: %d' % k['registers']['vgpr'])
print('.max_flat_workgroup_size: %d' % k['max_flat_workgroup_size'])
print('.symbol: %s' % k['symbol'])
print('args %d' % len(k['args']))
PY
  assert_success
  while IFS= read -r line; do
    case "$line" in
      args*) ;;
      *) key=${line%%:*}; val=${line#*: }
         echo "$notes" | grep -E "^ +(- )?\\$key: +$val\$" >/dev/null || { echo "note lacks $line"; false; } ;;
    esac
  done <<< "$output"
  # Same number of arguments as the note lists (each argument has exactly one .value_kind).
  [ "$(echo "$notes" | grep -c '\.value_kind:')" -eq "$(echo "$output" | awk '/^args/ {print $2}')" ]
}

@test "--embed-ir sets ir_embedded and the IR entry IDs; --manifest chooses the file" {
  run "$TOSAC" add.mlir -o out.hipfb --offload-arch=gfx90a,gfx1030 --embed-ir --manifest m.json
  assert_success
  [ -f m.json ] && [ ! -f out.json ]
  run validate m.json
  assert_output "valid"
  run grep -E '"(ir_embedded|ir_entry_id)"' m.json
  assert_output $'  "ir_embedded": true,\n      "ir_entry_id": "openmp-amdgcn-amd-amdhsa--gfx90a",\n      "ir_entry_id": "openmp-amdgcn-amd-amdhsa--gfx1030",'
}

@test "same input gives a byte-identical manifest" {
  "$TOSAC" add.mlir -o a.hipfb --offload-arch=gfx90a,gfx1030 --manifest a.json
  "$TOSAC" add.mlir -o a.hipfb --offload-arch=gfx90a,gfx1030 --manifest b.json
  cmp a.json b.json
}

@test "the schema rejects malformed manifests" {
  "$BUILD/bin/test-bundle" --manifest-sample --embed-ir > good.json
  run /usr/bin/python3 - "$SCHEMA" good.json <<'PY'
import copy, json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
good = json.load(open(sys.argv[2]))
assert v.is_valid(good)
def t0(m): return m['targets'][0]
def k0(m): return t0(m)['kernels'][0]
mutations = {
    'missing format': lambda m: m.pop('format'),
    'version 2': lambda m: m.update(version=2),
    'unknown top-level key': lambda m: m.update(extra=1),
    'shape as string': lambda m: m['inputs'][0].update(shape='2x3'),
    'negative bytes': lambda m: m['inputs'][0].update(bytes=-24),
    'unknown element type': lambda m: m['outputs'][0].update(element_type='f33'),
    'no targets': lambda m: m.update(targets=[]),
    'single-dash entry id': lambda m: t0(m).update(bundle_entry_id='hipv4-amdgcn-amd-amdhsa-gfx90a'),
    'hip kind for IR entry': lambda m: t0(m).update(ir_entry_id='hipv4-amdgcn-amd-amdhsa--gfx90a'),
    'e_flags as number': lambda m: t0(m).update(e_flags=3647),
    'wavefront 16': lambda m: t0(m).update(wavefront_size=16),
    'missing workspace alignment': lambda m: t0(m)['workspace'].pop('alignment'),
    'buffer kind': lambda m: t0(m)['buffers'][0].update(kind='scratch'),
    'intermediate with index': lambda m: t0(m)['buffers'][4].update(index=0),
    'kernel without symbol': lambda m: k0(m).pop('symbol'),
    'grid of two dims': lambda m: k0(m).update(grid=[1, 1]),
    'zero block': lambda m: k0(m).update(block=[0, 1, 1]),
    'float kernarg size': lambda m: k0(m).update(kernarg_size=16.5),
    'kernarg align 3': lambda m: k0(m).update(kernarg_align=3),
    'missing registers.agpr': lambda m: k0(m)['registers'].pop('agpr'),
    'hidden arg bound to buffer': lambda m: k0(m)['args'][3].update(buffer=0),
    'arg missing buffer': lambda m: k0(m)['args'][0].pop('buffer'),
    'bad value kind': lambda m: k0(m)['args'][0].update(value_kind='pointer'),
    'op loc without column': lambda m: k0(m)['ops'][0].update(loc='sample.mlir:3'),
    'launch kind': lambda m: t0(m)['launches'][0].update(kind='memset'),
    'kernel launch with buffer': lambda m: t0(m)['launches'][0].update(buffer=1),
    'fill without bits': lambda m: t0(m)['launches'][1].pop('bits'),
    'copy without dst': lambda m: t0(m)['launches'][3].pop('dst_buffer'),
    'duplicate deps': lambda m: t0(m)['launches'][2].update(deps=[0, 0]),
    'order with repeats': lambda m: t0(m).update(order=[0, 0, 1, 2]),
    'missing digests': lambda m: m.pop('digests'),
    'md5 digest': lambda m: m['digests'].update(bundle='md5:' + '0' * 32),
}
for name, mutate in mutations.items():
    m = copy.deepcopy(good)
    mutate(m)
    print(('rejected ' if not v.is_valid(m) else 'ACCEPTED ') + name)
PY
  assert_success
  refute_output --partial ACCEPTED
  assert_line "rejected hidden arg bound to buffer"
  [ "$(echo "$output" | grep -c '^rejected ')" -eq 32 ]
}
