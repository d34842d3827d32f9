#!/usr/bin/env bats
# libtosac-miir (docs/miopen.md): MIOpen's Miir.h over libtosac. tests/miir/miir_client.c does
# what MIOpen's MLIR solvers do (a handle per kernel id, the code object, the dims, the
# workspace, launches in id order with one argument struct) on libtosac-hipemu, and checks the
# result against the definition of the convolution computed in double precision (an element no
# kernel writes is NaN and fails). Problems are seeded random: strides 1-3, dilation 1-2,
# padding, groups, 1x1/3x3/7x7 filters, odd sizes, NCHW and NHWC, fp32/fp16/bf16/i8/fp8/bfp8.

bats_load_library bats-support
bats_load_library bats-assert

setup_file() {
  export ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  local b="${TOSAC_BUILD:-build}"
  case "$b" in /*) ;; *) b="$ROOT/$b" ;; esac
  export BUILD="$b" CLIENT="$b/bin/miir-client" LIB="$b/lib/libtosac-miir.so"
  export TOSAC_MIIR_EMBED_IR=1
}

# opts OP ARCH TYPE LAYOUT G N C K H W Y X STRIDE DIL PAD [OUT_TYPE]: MIOpen's option string
# (ConstructBuildOptions: G inserted before the split channel, K of a filter spelled N)
opts() {
  local op=$1 arch=$2 ty=$3 lay=$4 g=$5 n=$6 c=$7 k=$8 h=$9 w=${10} y=${11} x=${12} s=${13} d=${14} p=${15}
  local oty=${16:-$3} fl il ol
  local ho=$(((h + 2 * p - d * (y - 1) - 1) / s + 1)) wo=$(((w + 2 * p - d * (x - 1) - 1) / s + 1))
  if [ "$lay" = nchw ]; then fl=GNCHW il=NGCHW ol=NGCHW; else fl=GNHWC il=NHWGC ol=NHWGC; fi
  echo "--x2 1 --operation $op --num_cu 64 --arch amdgcn-amd-amdhsa:$arch --groupsize $g" \
    "--fil_layout $fl --fil_type $ty --in_layout $il --out_layout $ol --in_type $ty" \
    "--out_type $oty --batchsize $n --in_channels $c --out_channels $k --in_h $h --in_w $w" \
    "--out_h $ho --out_w $wo --fil_h $y --fil_w $x --dilation_h $d --dilation_w $d" \
    "--conv_stride_h $s --conv_stride_w $s --padding_h $p --padding_w $p"
}

# conv SEED ARCH OP TYPE LAYOUT G N C K H W Y X S D P [OUT_TYPE]: run and check one problem,
# the workspace as MIOpen passes it (none for forward and backward data); with REQUESTED=1 the
# workspace the problem asks for (a solver requesting it)
conv() {
  local seed=$1 arch=$2
  shift 2
  TOSAC_HIPEMU_ARCH=$arch run "$CLIENT" ${REQUESTED:+--workspace=requested} "$seed" "$(opts "$1" "$arch" "${@:2}")"
  echo "$arch $*: $output" >&2
  assert_success
  assert_line OK
}

# random_convs SEED ARCH OP TYPE COUNT: COUNT seeded random problems (filter 1/3/7, stride
# 1-3, dilation 1-2, padding up to the filter's reach, groups 1-2, odd sizes, both layouts)
random_convs() {
  local REQUESTED=1
  RANDOM=$1
  local arch=$2 op=$3 ty=$4 i
  for ((i = 0; i < $5; i++)); do
    local f=$((RANDOM % 3)) fs=(1 3 7) lay=(nchw nhwc)
    local y=${fs[$f]} s=$((RANDOM % 3 + 1)) d=$((RANDOM % 2 + 1)) g=$((RANDOM % 2 + 1))
    local p=$((RANDOM % ((y - 1) * d / 2 + 1)))
    local h=$(((y - 1) * d + 2 + RANDOM % 7)) w=$(((y - 1) * d + 1 + RANDOM % 8))
    [ "$y" = 1 ] && d=1
    conv $((i + 1)) "$arch" "$op" "$ty" "${lay[$((RANDOM % 2))]}" $g $((RANDOM % 2 + 1)) \
      $((g * (RANDOM % 3 + 1))) $((g * (RANDOM % 4 + 1))) $h $w $y $y $s $d $p ${@:6}
  done
}

@test "the library exports exactly the Miir.h API (+ tosac_miir_error); Miir.h compiles as C and C++" {
  run bash -c "nm -D --defined-only '$LIB' | awk '\$3 {print \$3}' | sed 's/@.*//' | sort | tr '\n' ' '"
  assert_output "TOSAC_MIIR_1 miirBufferGet miirCreateHandle miirDestroyHandle miirGetExecutionDims miirGetKernelCount miirGetWorkspaceSize miirLowerBin miirLowerTuningParams tosac_miir_error "
  printf '#include <Miir.h>\nint main(void) { return MIIR_VERSION_FLAT == 6 && MIIR_BUILD_FAILURE == 3 ? 0 : 1; }\n' > "$BATS_TEST_TMPDIR/a.c"
  cc -std=c17 -Wall -Werror ${TOSAC_SAN:-} -I"$ROOT/src/miir" "$BATS_TEST_TMPDIR/a.c" -o "$BATS_TEST_TMPDIR/a" -L"$BUILD/lib" -ltosac-miir -Wl,-rpath,"$BUILD/lib"
  "$BATS_TEST_TMPDIR/a"
  c++ -x c++ -Wall -Werror -I"$ROOT/src/miir" -c "$BATS_TEST_TMPDIR/a.c" -o "$BATS_TEST_TMPDIR/a.o"
}

@test "make install: libtosac-miir.so, include/tosac/Miir.h and tosac-miir.pc; a client builds with pkg-config" {
  local d="$BATS_TEST_TMPDIR"
  make -C "$ROOT" -s BUILD="$BUILD" install-miir DESTDIR="$d/root" PREFIX=/usr/local
  [ -f "$d/root/usr/local/include/tosac/Miir.h" ]
  sed -i "s|^prefix=.*|prefix=$d/root/usr/local|" "$d/root/usr/local/lib/pkgconfig/tosac-miir.pc"
  run bash -c "PKG_CONFIG_PATH=$d/root/usr/local/lib/pkgconfig pkg-config --cflags --libs tosac-miir | sed 's/ *$//'"
  assert_output "-I$d/root/usr/local/include/tosac -L$d/root/usr/local/lib -Wl,-rpath,$d/root/usr/local/lib -ltosac-miir"
  printf '#include <Miir.h>\nint main(void) { return miirGetKernelCount(0) == -1 ? 0 : 1; }\n' > "$d/b.c"
  cc -std=c17 ${TOSAC_SAN:-} "$d/b.c" -o "$d/b" $output
  "$d/b"
}

@test "forward: MIOpen's example string (NCHW fp32, gfx90a) is 1 kernel without workspace and the right numbers" {
  # the convolution reads the NCHW input and KCYX filter and writes the NCHW output through
  # strides (operand and output views, docs/partitioning.md)
  conv 1 gfx90a conv2d fp32 nchw 1 2 8 16 10 10 3 3 1 1 1
  assert_line "kernels 1 workspace 0"
  assert_line --regexp "^kernel 0 global 256 local 128 code [0-9]+ bytes$"
}

@test "forward NHWC is one kernel; NHWC 7x7 i8 -> i32 is exact on gfx90a, gfx1100, gfx1030" {
  for t in gfx90a gfx1100 gfx1030; do
    conv 2 $t conv2d i8 nhwc 1 2 8 8 9 11 7 7 1 1 3 i32
    assert_line "kernels 1 workspace 0"
    assert_line "max_err 0 tol 0"
  done
}

@test "forward fp8 and bfp8 (FNUZ, gfx942's matrix instructions) -> fp32 / fp16 in NHWC and NCHW, with groups (the transposes and slices move bytes)" {
  local REQUESTED=1
  conv 8 gfx942 conv2d fp8 nhwc 1 2 8 8 9 11 3 3 1 1 1 fp32
  assert_line "kernels 1 workspace 0"
  conv 9 gfx942 conv2d bfp8 nhwc 1 2 8 8 9 11 3 3 2 1 1 fp16
  conv 10 gfx942 conv2d fp8 nchw 1 2 8 8 9 11 3 3 1 1 1 fp32
  assert_line "kernels 2 workspace 6400" # the conv reads the f8 input and filter through strides; the output transpose
  conv 11 gfx942 conv2d bfp8 nchw 2 2 8 8 9 11 3 3 2 1 1 fp16
  assert_line "kernels 1 workspace 0" # one grouped convolution (operand and output views)
  conv 12 gfx942 conv2d fp8 nhwc 2 1 4 6 7 9 3 3 1 2 2 fp32
  assert_line "kernels 1 workspace 0" # one grouped convolution reading and writing through strides
  conv 13 gfx942 conv2d fp8 nchw 4 1 4 8 7 9 3 3 1 1 1 fp32 # depthwise, multiplier 2
  run "$CLIENT" --create "$(opts conv2d gfx90a fp8 nhwc 1 1 4 4 5 5 3 3 1 1 1 fp32)"
  assert_output --partial "NULL: tosac: f8E4M3FNUZ inputs need an fp8 matrix instruction and gfx90a has none"
}

@test "forward depthwise (one input channel per group, multiplier 1 and 2) is one depthwise_conv2d, not a kernel per group" {
  local REQUESTED=1
  conv 14 gfx1100 conv2d fp16 nhwc 8 2 8 16 9 11 3 3 2 2 1
  assert_line "kernels 1 workspace 0" # the filter read as YXCM through strides
  conv 15 gfx90a conv2d fp32 nchw 8 2 8 8 9 11 3 3 1 1 1
  assert_line "kernels 1 workspace 0" # NCHW x read and y written through strides
  conv 16 gfx1030 conv2d fp32 nchw 4 1 4 12 7 6 5 5 2 1 2
  conv 17 gfx90a conv2d i8 nhwc 6 2 6 12 9 11 3 3 1 1 1 i32
}

@test "backward data with one channel per group on one side is one transposed depthwise_conv2d without workspace (depthwise any multiplier; one dy channel per group)" {
  conv 18 gfx1100 conv2d_bwd_data fp16 nhwc 8 2 8 8 9 11 3 3 2 2 1
  assert_line "kernels 1 workspace 0" # dy and the filter read, dx written through strides
  conv 19 gfx90a conv2d_bwd_data fp32 nchw 8 2 8 8 9 11 3 3 1 1 1
  assert_line "kernels 1 workspace 0"
  conv 20 gfx1030 conv2d_bwd_data fp32 nhwc 4 1 4 4 7 6 5 5 2 1 2
  assert_line "kernels 1 workspace 0"
  conv 21 gfx90a conv2d_bwd_data fp32 nhwc 4 1 4 8 7 6 3 3 2 1 1
  assert_line "kernels 1 workspace 0" # multiplier 2: each dx channel sums its group's two dy channels
  conv 22 gfx90a conv2d_bwd_data fp32 nchw 2 2 6 2 7 6 3 3 1 1 0
  assert_line "kernels 1 workspace 0" # 3 -> 1 per group: each dx channel from its group's dy channel
  conv 23 gfx1100 conv2d_bwd_data fp16 nchw 2 2 6 2 7 6 1 1 2 1 0
  assert_line "kernels 1 workspace 0" # the same with a 1x1 filter, stride 2
  run partitions "$(opts conv2d_bwd_data gfx90a fp16 nchw 32 2 32 32 14 14 3 3 1 1 1)" gfx90a
  assert_output "tosac_k0_depthwise_conv2d tensor<2x14x14x32xf16>"
  # rocMLIR's spelling with the channel before g (NCGHW): the unit channel is dropped on the way
  # in and out, dx still written in place
  local odd="--operation conv2d_bwd_data --arch gfx90a --groupsize 4 --batchsize 2 --in_channels 4 --out_channels 4 --in_h 7 --in_w 6 --fil_h 3 --fil_w 3 --padding_h 1 --padding_w 1 --conv_stride_h 2 --conv_stride_w 2 --dilation_w 2"
  TOSAC_HIPEMU_ARCH=gfx90a run "$CLIENT" 3 "$odd --fil_layout GCNHW --in_layout NCGHW --out_layout NCGHW"
  assert_success
  assert_line "kernels 1 workspace 0"
  assert_line OK
}

# miopen_convs SEED ARCH OP TYPE COUNT [OUT_TYPE]: COUNT seeded random problems run exactly as
# MIOpen runs them (no workspace for forward and backward data): filter 1/3/7, stride 1-3,
# dilation 1-2, padding, odd sizes, NCHW or NHWC; groups 1-2 for backward
# weight (MIOpen passes its workspace there). Each must answer workspace 0 where MIOpen gives none.
miopen_convs() {
  RANDOM=$1
  local arch=$2 op=$3 ty=$4 i
  for ((i = 0; i < $5; i++)); do
    local f=$((RANDOM % 3)) fs=(1 3 7) lay=(nchw nhwc)
    local y=${fs[$f]} s=$((RANDOM % 3 + 1)) d=$((RANDOM % 2 + 1)) g=1
    [ "$op" = conv2d_bwd_weight ] && g=$((RANDOM % 2 + 1))
    [ "$y" = 1 ] && d=1
    local p=$((RANDOM % ((y - 1) * d / 2 + 1)))
    local h=$(((y - 1) * d + 2 + RANDOM % 7)) w=$(((y - 1) * d + 1 + RANDOM % 8))
    conv $((i + 1)) "$arch" "$op" "$ty" "${lay[$((RANDOM % 2))]}" $g $((RANDOM % 2 + 1)) \
      $((g * (RANDOM % 6 + 1))) $((g * (RANDOM % 8 + 1))) $h $w $y $y $s $d $p ${@:6}
    [ "$op" = conv2d_bwd_weight ] || assert_line --regexp "^kernels [0-9]+ workspace 0$"
  done
}

# The problems of one target: forward in each type (i8 -> i32 too), backward data and backward
# weight in fp32/fp16/bf16 (the type rotates with the target), as MIOpen passes the workspace.
miopen_target() {
  local t=$1 seed=$2 types=(fp32 fp16 bf16)
  local a=${types[$((seed % 3))]} b=${types[$(((seed + 1) % 3))]}
  miopen_convs $seed $t conv2d $a 1
  miopen_convs $((seed + 1)) $t conv2d $b 1
  miopen_convs $((seed + 2)) $t conv2d i8 1 i32
  miopen_convs $((seed + 3)) $t conv2d_bwd_data $a 2
  miopen_convs $((seed + 4)) $t conv2d_bwd_data $b 1
  miopen_convs $((seed + 5)) $t conv2d_bwd_weight $a 1
  miopen_convs $((seed + 6)) $t conv2d_bwd_weight $b 1
}

@test "MIOpen's way on gfx908, gfx90a, gfx942: seeded random forward / backward data / backward weight, no workspace for the first two" {
  miopen_target gfx908 100
  miopen_target gfx90a 200
  miopen_target gfx942 300
}

@test "MIOpen's way on gfx950, gfx1030: seeded random forward / backward data / backward weight, no workspace for the first two" {
  miopen_target gfx950 400
  miopen_target gfx1030 500
}

@test "MIOpen's way on gfx1100, gfx1200: seeded random forward / backward data / backward weight, no workspace for the first two" {
  miopen_target gfx1100 600
  miopen_target gfx1200 700
}

@test "forward where tosac alone would split K (1x1 batch, 3x3 128 -> 64 at 4x4): one kernel without workspace under miir" {
  for t in gfx90a gfx1100 gfx1030; do
    conv 9 $t conv2d fp32 nhwc 1 1 128 64 4 4 3 3 1 1 1
    assert_line "kernels 1 workspace 0"
  done
}

@test "forward: seeded random fp32 and fp16 problems on gfx90a, gfx1100, gfx1030" {
  random_convs 11 gfx90a conv2d fp32 3
  random_convs 12 gfx1100 conv2d fp16 3
  random_convs 13 gfx1030 conv2d fp32 3
}

@test "backward data: seeded random problems on gfx90a, gfx1100, gfx1030 (every element written)" {
  random_convs 21 gfx90a conv2d_bwd_data fp32 3
  random_convs 22 gfx1100 conv2d_bwd_data fp16 2
  random_convs 23 gfx1030 conv2d_bwd_data fp32 3
}

@test "backward data: stride 2 with a 1x1 filter (pixels no tap reaches are zeros); dilation 2 and padding past the filter are one transposed convolution without workspace" {
  conv 3 gfx90a conv2d_bwd_data fp32 nhwc 1 2 4 8 9 11 1 1 2 1 0
  assert_line "kernels 1 workspace 0" # one kernel over the phases (a zero-init costs more here), the filter read as CYXK
  # stride 3, dilation 2: the phases' taps solve 2*ky = p + pad (mod 3); dy read in place
  conv 4 gfx1100 conv2d_bwd_data fp16 nchw 1 1 4 8 13 11 3 3 3 2 2
  assert_line "kernels 1 workspace 0"
  # stride 2, dilation 2: odd phases have no tap; one kernel over the phases writes their zeros
  # too (a zero-init launch costs more than it saves here, as for conv 3)
  conv 5 gfx90a conv2d_bwd_data fp32 nhwc 1 2 4 6 11 9 3 3 2 2 1
  assert_line "kernels 1 workspace 0"
  # padding 3 with a 3x3 filter (out_pad past -kernel, tosac's extension), dilation 1
  conv 6 gfx1030 conv2d_bwd_data fp32 nchw 1 1 3 5 8 9 3 3 1 1 3
  assert_line "kernels 1 workspace 0"
}

# null_workspace_convs SEED ARCH COUNT: COUNT seeded random backward-data problems that once
# needed a workspace and now run with none, as MIOpen runs them: strides 1-3, dilation 1-2,
# padding up to past the filter's reach, groups 1-2 (2-3 channels per group on both sides; NCHW
# 1x1 grouped filters included), NCHW/NHWC, the type rotating fp32/fp16/bf16; then a depthwise
# forward problem (multiplier 1-2)
null_workspace_convs() {
  RANDOM=$1
  local arch=$2 i types=(fp32 fp16 bf16) lay=(nchw nhwc) fs=(1 3 5)
  for ((i = 0; i < $3; i++)); do
    local y=${fs[$((RANDOM % 3))]} s=$((RANDOM % 3 + 1)) d=$((RANDOM % 2 + 1)) g=$((RANDOM % 2 + 1))
    [ "$y" = 1 ] && d=1
    local p=$((RANDOM % ((y - 1) * d + 2))) ty=${types[$((i % 3))]} l=${lay[$((RANDOM % 2))]}
    local h=$(((y - 1) * d + 2 + RANDOM % 6)) w=$(((y - 1) * d + 1 + RANDOM % 7))
    local n=$((RANDOM % 2 + 1)) c=$((g * (RANDOM % 3 + 1))) k=$((g * (RANDOM % 4 + 1)))
    [ $g = 2 ] && c=$((g * (RANDOM % 2 + 2))) k=$((g * (RANDOM % 2 + 2)))
    conv $((i + 1)) "$arch" conv2d_bwd_data $ty $l $g $n $c $k $h $w $y $y $s $d $p
    assert_line --regexp "^kernels [0-9]+ workspace 0$"
    local m=$((RANDOM % 2 + 1)) dg=$((RANDOM % 3 + 2))
    conv $((i + 1)) "$arch" conv2d $ty $l $dg $n $dg $((dg * m)) $h $w 3 3 $s $d $((RANDOM % 2))
    assert_line "kernels 1 workspace 0" # depthwise: input and filter read in place, y written in place
  done
}

@test "no workspace (MIOpen's NULL): dilated / padded backward data, grouped NCHW 1x1, depthwise forward on gfx90a, gfx1100, gfx1030 as machine code" {
  export TOSAC_EXEC=isa TOSAC_HIPEMU_EXEC=isa
  null_workspace_convs 61 gfx90a 4
  null_workspace_convs 62 gfx1100 4
  null_workspace_convs 63 gfx1030 4
}

@test "no workspace (MIOpen's NULL): dilated / padded backward data, grouped NCHW 1x1, depthwise forward on gfx90a, gfx1100, gfx1030 through the kernel IR" {
  export TOSAC_EXEC=ir TOSAC_HIPEMU_EXEC=ir
  null_workspace_convs 61 gfx90a 4
  null_workspace_convs 62 gfx1100 4
  null_workspace_convs 63 gfx1030 4
}

# one_channel_convs SEED ARCH COUNT: COUNT seeded random backward-data problems with one channel
# per group on one side, run with MIOpen's NULL workspace: depthwise (1 -> m channels per group,
# m 1-2) or one dy channel per group (2-3 -> 1), 2-5 groups, 1x1/3x3/5x5 filters, stride 1-2,
# dilation 1-2, padding up to past the filter's reach, NCHW/NHWC, fp32/fp16. Each is one kernel
# without workspace
one_channel_convs() {
  RANDOM=$1
  local arch=$2 i types=(fp32 fp16) lay=(nchw nhwc) fs=(1 3 3 5)
  for ((i = 0; i < $3; i++)); do
    local y=${fs[$((RANDOM % 4))]} s=$((RANDOM % 2 + 1)) d=$((RANDOM % 2 + 1)) g=$((RANDOM % 4 + 2))
    [ "$y" = 1 ] && d=1
    local p=$((RANDOM % ((y - 1) * d + 2))) m=$((RANDOM % 2 + 1)) c k
    local h=$(((y - 1) * d + 2 + RANDOM % 6)) w=$(((y - 1) * d + 1 + RANDOM % 7))
    if ((RANDOM % 2)); then c=$g k=$((g * m)); else c=$((g * (RANDOM % 2 + 2))) k=$g; fi
    conv $((i + 1)) "$arch" conv2d_bwd_data ${types[$((i % 2))]} ${lay[$((RANDOM % 2))]} $g \
      $((RANDOM % 2 + 1)) $c $k $h $w $y $y $s $d $p
    assert_line "kernels 1 workspace 0"
  done
}

@test "no workspace (MIOpen's NULL): backward data with one channel per group (depthwise, one dy channel per group) on gfx90a, gfx1100, gfx1030 as machine code" {
  export TOSAC_EXEC=isa TOSAC_HIPEMU_EXEC=isa
  one_channel_convs 81 gfx90a 6
  one_channel_convs 82 gfx1100 6
  one_channel_convs 83 gfx1030 6
}

@test "no workspace (MIOpen's NULL): backward data with one channel per group (depthwise, one dy channel per group) on gfx90a, gfx1100, gfx1030 through the kernel IR" {
  export TOSAC_EXEC=ir TOSAC_HIPEMU_EXEC=ir
  one_channel_convs 81 gfx90a 6
  one_channel_convs 82 gfx1100 6
  one_channel_convs 83 gfx1030 6
}

@test "dilated backward data per output phase (TOSAC_CONV_PHASES=1) and over the phases in one kernel (=0) agree with the reference" {
  for f in 0 1; do
    TOSAC_CONV_PHASES=$f conv 7 gfx90a conv2d_bwd_data fp16 nhwc 1 2 4 6 13 11 3 3 3 2 2
    TOSAC_CONV_PHASES=$f conv 8 gfx1100 conv2d_bwd_data fp32 nchw 1 1 4 6 12 11 3 3 2 2 5
    TOSAC_CONV_PHASES=$f conv 9 gfx1030 conv2d_bwd_data bf16 nhwc 2 1 4 6 11 10 3 3 3 2 1
  done
  TOSAC_CONV_PHASES=1 conv 7 gfx90a conv2d_bwd_data fp16 nhwc 1 2 4 6 13 11 3 3 3 2 2
  assert_line "kernels 9 workspace 0" # every phase of stride 3 has a tap (gcd(3, 2) = 1)
}

# partitions OPTIONS ARCH: the kernels of the problem's compile ("name over type" per kernel)
partitions() {
  TOSAC_MIIR_GRAPH="$BATS_TEST_TMPDIR/p.mlir" run "$CLIENT" --create "$1 --kernel_id 0"
  assert_success
  # recompiled as libtosac-miir compiles it: no zeroed workspace, so split-K keeps its combine
  TOSAC_SPLIT_K_FORM=combine "$BUILD/bin/tosac" "$BATS_TEST_TMPDIR/p.mlir" --emit=partitions --offload-arch="$2" --init=kernel |
    sed -n 's/^  kernel [0-9]* \(tosac_[^ ]*\) over \(.*\)$/\1 \2/p'
}

@test "backward data stride > 1: one GEMM per output phase where the estimate prefers it (not at 56x56 on gfx90a, gfx1100), zero-init only when a phase has no tap (ResNet-50, NHWC fp16, batch 32)" {
  # 3x3 stride 2, 256 -> 256 at 28x28 (and 512 -> 512 at 14x14, 128 -> 128 at 56x56): every
  # phase has taps (4, 2, 2, 1); the exact taps pay for the launches (3.8 us each, the target
  # table's launch_ns) and dy's re-reads (which overlap the matrix work): four GEMMs reading the
  # KYXC filter as CYXK through strides, no zero-init. tosac-bundle quality agrees (gfx90a 28x28:
  # 46.2 us of kernels against 66.3 for one kernel). At 56x56 the estimate keeps one kernel on
  # gfx90a and gfx1100 (67.8 against 69.7 us with three more launches on gfx90a), where the
  # report's --model rates the four kernels 65.1 against 71.3 us: its loop model puts the
  # per-phase GEMMs 8 us below the tuning estimate
  for l in "256 256 28 28" "512 512 14 14" "128 128 56 56"; do
    local s3="fp16 nhwc 1 32 $l 3 3 2 1 1" c=${l%% *} h=$(echo $l | cut -d' ' -f3)
    for t in gfx90a gfx1100 gfx1030; do
      run partitions "$(opts conv2d_bwd_data $t $s3)" $t
      if [ "$h" = 56 ] && [ "$t" != gfx1030 ]; then
        assert_output "tosac_k0_transpose_conv2d tensor<32x${h}x${h}x${c}xf16>"
        continue
      fi
      assert_output "tosac_k0_transpose_conv2d_phase0 tensor<32x${h}x${h}x${c}xf16>
tosac_k1_transpose_conv2d_phase1 tensor<32x${h}x${h}x${c}xf16>
tosac_k2_transpose_conv2d_phase2 tensor<32x${h}x${h}x${c}xf16>
tosac_k3_transpose_conv2d_phase3 tensor<32x${h}x${h}x${c}xf16>"
    done
  done
  # 1x1 stride 2, 256 -> 512: only phase (0,0) has a tap; the one kernel would still run the
  # masked K tiles of phase (0,1) and (1,0) would not: zero-init + the GEMM of phase (0,0)
  local s2="fp16 nhwc 1 32 256 512 56 56 1 1 2 1 0"
  for t in gfx90a gfx1100 gfx1030; do
    run partitions "$(opts conv2d_bwd_data $t $s2)" $t
    assert_output "tosac_k0_transpose_conv2d_init tensor<25690112xf16>
tosac_k1_transpose_conv2d_phase0 tensor<32x56x56x256xf16>"
  done
  # with TOSAC_CONV_PHASES=0: one kernel writing the other phases' zeros itself
  TOSAC_CONV_PHASES=0 run "$CLIENT" --create "$(opts conv2d_bwd_data gfx90a $s2) --kernel_id 0"
  assert_line "kernels 1 workspace 0"
}

# groups_of OP ARCH SPEC...: the kernel group of a problem, tosac's kernel names without their
# tosac_kN_ prefix, in launch order (= the kernel ids)
groups_of() {
  local op=$1 arch=$2
  shift 2
  partitions "$(opts $op $arch "$@")" $arch | sed 's/^tosac_k[0-9]*_\([^ ]*\) .*/\1/' | tr '\n' ' '
}

@test "kernel groups per problem and target (ResNet-50 layers, NHWC/NCHW fp16/fp32, batch 32) on gfx90a, gfx1100, gfx1030" {
  local l3="1 32 64 64 56 56 3 3 1 1 1" l1s2="1 32 256 512 56 56 1 1 2 1 0"
  for t in gfx90a gfx1100 gfx1030; do
    run groups_of conv2d $t fp16 nhwc $l3
    assert_output "conv2d "
    # NCHW: the convolution reads x and the filter through strides and writes y transposed
    run groups_of conv2d $t fp16 nchw $l3
    assert_output "conv2d "
    # backward data reads the KYXC filter as CYXK through strides (no workspace)
    run groups_of conv2d_bwd_data $t fp16 nhwc $l3
    assert_output "transpose_conv2d "
    # NCHW: dy and the filter read through strides, dx written through the transpose
    run groups_of conv2d_bwd_data $t fp16 nchw $l3
    assert_output "transpose_conv2d "
    # stride 2, 1x1: zero-init, the GEMM of the one phase with a tap
    run groups_of conv2d_bwd_data $t fp16 nhwc $l1s2
    assert_output "transpose_conv2d_init transpose_conv2d_phase0 "
    # f16 filter: split-K into f32 partials, the combine converts to f16
    run groups_of conv2d_bwd_weight $t fp16 nhwc $l3
    # x and dy read as CHWN / KHWN through strides; the combine writes KYXC through the transpose
    assert_output "conv2d_splitk conv2d_combine "
    # stride 2: x cropped to the rows an output reads (TOSA's exact output size), read in place
    run groups_of conv2d_bwd_weight $t fp16 nhwc $l1s2
    assert_output "conv2d_splitk conv2d_combine "
    # 7x7 maps, 512 -> 2048: 1x1 filters of 512 x 2048 fill the GPU without a split
    run groups_of conv2d_bwd_weight $t fp32 nhwc 1 32 512 2048 7 7 1 1 1 1 0
    assert_output "conv2d "
  done
}

@test "backward data per output phase (TOSAC_CONV_PHASES=1): seeded random problems on gfx90a, gfx1100, gfx1030; 1x1 stride 2 is zero-init + GEMM" {
  export TOSAC_CONV_PHASES=1
  conv 3 gfx90a conv2d_bwd_data fp32 nhwc 1 2 4 8 9 11 1 1 2 1 0
  assert_line "kernels 2 workspace 0" # zero-init, the GEMM of phase (0,0)
  conv 4 gfx1030 conv2d_bwd_data fp16 nhwc 1 2 8 8 9 11 3 3 2 1 1
  assert_line "kernels 4 workspace 0" # four phases
  conv 5 gfx1100 conv2d_bwd_data fp16 nchw 1 2 8 8 9 11 3 3 2 1 1
  assert_line "kernels 4 workspace 0" # four phases, dy and dx through strides
  random_convs 41 gfx90a conv2d_bwd_data fp32 3
  random_convs 42 gfx1100 conv2d_bwd_data fp16 3
  random_convs 43 gfx1030 conv2d_bwd_data fp32 3
}

# small_phase_convs SEED ARCH COUNT: COUNT seeded random small per-phase backward-data problems
# (fp16, 1x1 or 3x3 filters, stride 2-3, 1-4 channels each side: a single K tile, so the WMMA
# and the guarded stores of the output phase's partial tile share one block)
small_phase_convs() {
  RANDOM=$1
  local arch=$2 i lay=(nchw nhwc)
  for ((i = 0; i < $3; i++)); do
    local y=$((RANDOM % 2 * 2 + 1)) s=$((RANDOM % 2 + 2))
    local p=$((RANDOM % ((y - 1) / 2 + 1)))
    conv $((i + 1)) "$arch" conv2d_bwd_data fp16 "${lay[$((RANDOM % 2))]}" 1 $((RANDOM % 2 + 1)) \
      $((RANDOM % 4 + 1)) $((RANDOM % 4 + 1)) $((y + 1 + RANDOM % 7)) $((y + RANDOM % 4)) $y $y $s 1 $p
  done
}

@test "per-phase backward data as machine code: every WMMA runs with all lanes on (gfx1100, gfx1200)" {
  # LLVM 22 sank gfx11's WMMA into the epilogue's store guard of a one-K-tile phase kernel; the
  # emulator refuses a matrix instruction with lanes off in EXEC
  export TOSAC_CONV_PHASES=1 TOSAC_EXEC=isa TOSAC_HIPEMU_EXEC=isa
  conv 1 gfx1100 conv2d_bwd_data fp16 nhwc 1 2 3 2 7 1 1 1 2 1 0
  assert_line "kernels 2 workspace 0" # zero-init, the GEMM of phase (0,0)
  small_phase_convs 51 gfx1100 6
  small_phase_convs 52 gfx1200 4
}

@test "backward weight: seeded random problems on gfx90a, gfx1100, gfx1030" {
  random_convs 31 gfx90a conv2d_bwd_weight fp32 3
  random_convs 32 gfx1100 conv2d_bwd_weight fp16 2
  random_convs 33 gfx1030 conv2d_bwd_weight fp32 3
}

@test "every target: forward, backward data and backward weight, grouped, strided" {
  local REQUESTED=1 # the grouped forward problems need their workspace
  for t in gfx908 gfx90a gfx942 gfx950 gfx1030 gfx1100 gfx1200; do
    conv 5 $t conv2d fp16 nhwc 2 2 4 6 9 7 3 3 2 1 1
    conv 6 $t conv2d_bwd_data fp32 nchw 1 2 4 6 9 7 3 3 2 1 1
    conv 7 $t conv2d_bwd_weight fp32 nhwc 1 3 4 6 9 7 3 3 2 1 1
  done
}

# create "OPTIONS": the API's answers (miir-client --create)
create() {
  run "$CLIENT" --create "$*"
  assert_success
}

BASE="--operation conv2d --arch amdgcn-amd-amdhsa:gfx90a:sramecc+:xnack- --fil_layout GNCHW --in_layout NGCHW --out_layout NGCHW --batchsize 1 --in_channels 4 --out_channels 4 --in_h 5 --in_w 5 --fil_h 3 --fil_w 3"

@test "kernel groups of ResNet-50's 3x3 64->64 layer (NHWC fp16, batch 32) on gfx90a: backward weight splits its N*Ho*Wo reduction" {
  local layer="fp16 nhwc 1 32 64 64 56 56 3 3 1 1 1"
  run "$CLIENT" --create "$(opts conv2d gfx90a $layer) --kernel_id 0"
  assert_line "kernels 1 workspace 0"
  run "$CLIENT" --create "$(opts conv2d_bwd_data gfx90a $layer) --kernel_id 0"
  assert_line "kernels 1 workspace 0"
  # the split-K GEMM reading x and dy as CHWN/KHWN through strides into f32 partials (23 x
  # 64x3x3x64 in the workspace), the combine writing f16 through the transpose to KYXC
  TOSAC_MIIR_GRAPH="$BATS_TEST_TMPDIR/bw.mlir" run "$CLIENT" --create "$(opts conv2d_bwd_weight gfx90a $layer) --kernel_id 1"
  assert_line "kernels 2 workspace 3391488"
  assert_line "bin 0"
  # the graph recompiled as libtosac-miir compiles it (no zeroed workspace: the combine form;
  # the command line alone would reduce in the last work-group, splitk_form.bats)
  TOSAC_SPLIT_K_FORM=combine run "$BUILD/bin/tosac" "$BATS_TEST_TMPDIR/bw.mlir" --emit=partitions --offload-arch=gfx90a --init=kernel
  assert_line --regexp "^  kernel 0 tosac_k0_conv2d_splitk over tensor<64x3x3x64xf16>$"
  assert_line --regexp "^  kernel 1 tosac_k1_conv2d_combine over tensor<64x3x3x64xf16>$"
  assert_line --regexp "^  buffer 4 workspace tensor<23x64x3x3x64xf32> .*"
}

@test "bf16 (every operation) compiles and lowers on gfx90a, gfx1100, gfx1030" {
  for t in gfx90a gfx1100 gfx1030; do
    for op in conv2d conv2d_bwd_data conv2d_bwd_weight; do
      run "$CLIENT" --lower "$(opts $op $t bf16 nhwc 1 2 8 8 9 11 3 3 2 1 1)"
      assert_success
      assert_line --regexp "^handles to binaries: [0-9.]+ s$"
      refute_output --partial "code 0 bytes"
    done
  done
}

@test "bf16 numbers: forward, backward data, backward weight on gfx90a, gfx1100, gfx1030 (needs the emulator's bf16 conversions)" {
  local REQUESTED=1 # the grouped forward problems need their workspace
  TOSAC_HIPEMU_ARCH=gfx90a run "$CLIENT" 1 "$(opts conv2d gfx90a bf16 nhwc 1 1 4 4 5 5 3 3 1 1 1)"
  [[ "$output" != *"Symbols not found: [ __truncsfbf2 ]"* ]] ||
    skip "this emulator's JIT has no __truncsfbf2 (bf16 conversions)"
  for t in gfx90a gfx1100 gfx1030; do
    conv 11 $t conv2d bf16 nhwc 2 2 4 6 9 7 3 3 2 1 1
    conv 12 $t conv2d_bwd_data bf16 nchw 1 2 4 6 9 7 3 3 2 1 1
    conv 13 $t conv2d_bwd_weight bf16 nhwc 1 3 4 6 9 7 3 3 2 1 1
  done
}

# NCHW fp8 -> fp32 forward on gfx942: the convolution and its output transpose, 2 kernels
F8="${BASE/gfx90a:sramecc+:xnack-/gfx942} --fil_type fp8 --in_type fp8 --out_type fp32"

@test "four threads lowering every kernel of one problem at once share its compile and get the same code objects" {
  run "$CLIENT" --threads 4 "$F8"
  assert_success
  assert_output "threads 4 kernels 2 identical"
}

@test "--kernel_id out of range: the handle answers the count, miirLowerBin and miirGetExecutionDims are MIIR_INVALID_PARAM" {
  create "$F8 --kernel_id 2"
  assert_line "kernels 2 workspace 256"
  assert_line "bin 1: --kernel_id 2: the problem has 2 kernels"
  assert_line "dims 1 global 0 local 0"
  create "$F8 --kernel_id 1"
  assert_line "bin 0"
  assert_line --regexp "^dims 0 global [0-9]+ local [0-9]+$"
}

@test "bad input: miirCreateHandle returns NULL with the reason in tosac_miir_error" {
  create "$BASE --bogus 1"
  assert_output "NULL: unknown flag --bogus"
  create "$BASE --out_h 9 --out_w 3"
  assert_output "NULL: --out_h 9 --out_w 3 are inconsistent with the problem: the convolution gives 3x3"
  create "$BASE --in_type fp64"
  assert_output "NULL: unsupported --in_type fp64 (fp32, fp16, bf16, i8, i32, fp8, bfp8)"
  create "--operation conv2d --arch gfx90a --fil_layout GNCHW --in_layout NGCHW --out_layout NGCHW"
  assert_output "NULL: missing --batchsize"
  create "${BASE/NGCHW/NGCHQ}"
  assert_output --partial "NULL: unsupported input layout 'NGCHQ'"
  create "${BASE/gfx90a:sramecc+:xnack-/gfx9999}"
  assert_output --partial "NULL: --arch amdgcn-amd-amdhsa:gfx9999: unknown target 'gfx9999'"
  create "$BASE --groupsize 3"
  assert_output "NULL: --groupsize 3 does not divide --in_channels 4 and --out_channels 4"
  create "${BASE/--operation conv2d/--operation conv3d}"
  assert_output "NULL: unsupported --operation conv3d (conv2d, conv2d_bwd_data, conv2d_bwd_weight)"
  create "$BASE --in_type i8 --fil_type i8 --out_type i8"
  assert_output --partial "NULL: unsupported types for conv2d: filter i8, input i8, output i8"
  create "$BASE --in_h"
  assert_output "NULL: --in_h needs a value"
  create "$BASE --in_layout NHWGC"
  assert_output "NULL: --in_layout is given twice"
  create "$BASE --in_h 5"
  assert_output "NULL: --in_h is given twice"
  create "${BASE/--in_w 5/--in_w -3}"
  assert_output "NULL: --in_w: '-3' is not a non-negative integer below 2^31"
}

@test "--perf_config: an infeasible tile is MIIR_BUILD_FAILURE, a feasible one succeeds, rocMLIR's strings are not applicable but build" {
  create "$BASE --kernel_id 0 --perf_config bm=7"
  assert_line "tuning 3"
  assert_line --partial "bin 3: --perf_config bm=7: tosac: --perf-config:"
  create "$BASE --kernel_id 0 --perf_config bm=32,bn=32,bk=16"
  assert_line "tuning 0"
  assert_line "bin 0"
  # rocMLIR's tuning strings from MIOpen's perf database: not applicable, the kernels still build
  create "$BASE --kernel_id 0 --perf_config v2:128,128,8,64,64,4,1,1,1"
  assert_line "tuning 3"
  assert_line "bin 0"
}

# grouped_convs SEED ARCH OP TYPE COUNT [OUT_TYPE]: COUNT seeded grouped problems (G 2, 3, 4 or
# 32 with 2-4 input and output channels per group, so not depthwise; 1x1/3x3 filters, stride 1-2,
# dilation 1-2, padding, odd sizes, NCHW and NHWC) run as MIOpen runs them (no workspace for
# forward and backward data): all groups are one convolution, so the kernel count does not grow
# with G (forward and backward data 1; backward weight the ungrouped structure: the GEMM, or
# split-K GEMM + combine)
grouped_convs() {
  RANDOM=$1
  local arch=$2 op=$3 ty=$4 i gs=(2 3 4 32) fs=(1 3) lay=(nchw nhwc)
  for ((i = 0; i < $5; i++)); do
    local g=${gs[$((RANDOM % 4))]} y=${fs[$((RANDOM % 2))]} s=$((RANDOM % 2 + 1)) d=$((RANDOM % 2 + 1))
    [ "$y" = 1 ] && d=1
    local p=$((RANDOM % ((y - 1) * d / 2 + 2))) h=$(((y - 1) * d + 2 + RANDOM % 6)) w=$(((y - 1) * d + 1 + RANDOM % 7))
    local cg=$((RANDOM % 3 + 2)) kg=$((RANDOM % 3 + 2))
    [ "$g" = 32 ] && cg=2 kg=$((RANDOM % 2 + 2))
    conv $((i + 1)) "$arch" "$op" "$ty" "${lay[$((RANDOM % 2))]}" $g $((RANDOM % 2 + 1)) \
      $((g * cg)) $((g * kg)) $h $w $y $y $s $d $p $6
    if [ "$op" = conv2d_bwd_weight ]; then
      assert_line --regexp "^kernels [12] workspace [0-9]+$"
    else
      assert_line "kernels 1 workspace 0"
    fi
  done
}

# grouped_all ARCH SEED: forward fp32/fp16/i8, backward data fp32/fp16, backward weight fp32/fp16
grouped_all() {
  grouped_convs $(($2 + 1)) $1 conv2d fp32 2
  grouped_convs $(($2 + 2)) $1 conv2d fp16 1
  grouped_convs $(($2 + 3)) $1 conv2d i8 1 i32
  grouped_convs $(($2 + 4)) $1 conv2d_bwd_data fp32 2
  grouped_convs $(($2 + 5)) $1 conv2d_bwd_data fp16 1
  grouped_convs $(($2 + 6)) $1 conv2d_bwd_weight fp32 2
  grouped_convs $(($2 + 7)) $1 conv2d_bwd_weight fp16 1
}

@test "grouped problems (G 2-32, not depthwise) are one convolution, no workspace for forward and backward data, MIOpen's way on gfx90a, gfx1100, gfx1030 as machine code" {
  export TOSAC_EXEC=isa TOSAC_HIPEMU_EXEC=isa
  grouped_all gfx90a 40
  grouped_all gfx1100 50
  grouped_all gfx1030 60
}

@test "grouped problems (G 2-32, not depthwise) are one convolution, no workspace for forward and backward data, MIOpen's way on gfx90a, gfx1100, gfx1030 through the kernel IR" {
  export TOSAC_EXEC=ir TOSAC_HIPEMU_EXEC=ir
  grouped_all gfx90a 40
  grouped_all gfx1100 50
  grouped_all gfx1030 60
}

@test "grouped kernel counts do not grow with G: ResNeXt 3x3 256->256 G=32 and MobileNet's depthwise backward weight (G = C = 512), NHWC and NCHW fp16, batch 32" {
  local rx="fp16 nhwc 32 32 256 256 56 56 3 3 1 1 1" mb="fp16 nhwc 512 32 512 512 14 14 3 3 1 1 1"
  for t in gfx90a gfx1100 gfx1030; do
    for l in nhwc nchw; do
      create "$(opts conv2d $t ${rx/nhwc/$l}) --kernel_id 0"
      assert_line "kernels 1 workspace 0"
      create "$(opts conv2d_bwd_data $t ${rx/nhwc/$l}) --kernel_id 0"
      assert_line "kernels 1 workspace 0"
      create "$(opts conv2d_bwd_weight $t ${rx/nhwc/$l}) --kernel_id 0"
      assert_line --regexp "^kernels [12] workspace [0-9]+$"
      create "$(opts conv2d_bwd_weight $t ${mb/nhwc/$l}) --kernel_id 0"
      assert_line --regexp "^kernels [12] workspace [0-9]+$"
    done
  done
  # gfx90a: backward weight splits N x Ho x Wo (f32 partials) and combines into f16, as ungrouped
  create "$(opts conv2d_bwd_weight gfx90a $rx) --kernel_id 0"
  assert_line "kernels 2 workspace 958464"
  create "$(opts conv2d_bwd_weight gfx90a $mb) --kernel_id 0"
  assert_line "kernels 2 workspace 903168"
}

@test "grouped problems compile and lower on all seven targets (forward, backward data, backward weight; G 4 and 32)" {
  for t in gfx908 gfx90a gfx942 gfx950 gfx1030 gfx1100 gfx1200; do
    for op in conv2d conv2d_bwd_data conv2d_bwd_weight; do
      local want="^kernels 1 workspace 0$"
      [ $op = conv2d_bwd_weight ] && want="^kernels [12] workspace [0-9]+$"
      run "$CLIENT" --lower "$(opts $op $t fp16 nhwc 4 2 8 12 9 11 3 3 2 1 1)"
      assert_success
      assert_line --regexp "$want"
      refute_output --partial "code 0 bytes"
      run "$CLIENT" --lower "$(opts $op $t bf16 nchw 32 1 64 64 7 7 3 3 1 2 1)"
      assert_success
      assert_line --regexp "$want"
      refute_output --partial "code 0 bytes"
    done
  done
}

@test "a layout whose G is not right before its channel (rocMLIR's spelling) keeps a convolution per group" {
  local b=${BASE/conv2d/conv2d_bwd_data}
  b=${b/--in_layout NGCHW/--in_layout nchwg}
  create "${b/--out_layout NGCHW/--out_layout nkhwg} --groupsize 2 --kernel_id 0"
  assert_line --regexp "^kernels [3-9] workspace [0-9]+$"
  # and its numbers, for all three operations (the per-group kernels need their workspace)
  local op l
  for op in conv2d conv2d_bwd_data conv2d_bwd_weight; do
    l=${BASE/conv2d/$op}
    l=${l/--in_layout NGCHW/--in_layout nchwg}
    TOSAC_HIPEMU_ARCH=gfx90a run "$CLIENT" --workspace=requested 5 "${l/--out_layout NGCHW/--out_layout nkhwg} --groupsize 2"
    assert_success
    assert_line OK
  done
}
