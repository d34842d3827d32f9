#!/usr/bin/env bash
# make bench-miir: libtosac-miir's handle-to-binary time (what MIOpen pays per problem, in one
# process: the count handle, then one handle per kernel id lowering its kernel; the handles
# share one compile of the problem) against the same
# graph through the tosac driver, for ResNet-50 layers in NHWC fp16 on gfx90a and gfx1100.
# Prints the figures; nothing here is a pass/fail test.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
client="$build/bin/miir-client"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
now() { date +%s.%N; }
# layer: N C K H W Y X STRIDE PAD
layers=("32 64 64 56 56 3 3 1 1" "32 256 128 56 56 1 1 2 0" "32 512 512 7 7 3 3 1 1")
for arch in gfx90a gfx1100; do
  for l in "${layers[@]}"; do
    read -r n c k h w y x s p <<<"$l"
    for op in conv2d conv2d_bwd_data conv2d_bwd_weight; do
      opts="--operation $op --arch $arch --fil_layout GNHWC --in_layout NHWGC --out_layout NHWGC --fil_type fp16 --in_type fp16 --out_type fp16 --batchsize $n --in_channels $c --out_channels $k --in_h $h --in_w $w --fil_h $y --fil_w $x --conv_stride_h $s --conv_stride_w $s --padding_h $p --padding_w $p"
      t0=$(now)
      count=$(TOSAC_MIIR_GRAPH=g.mlir "$client" --lower "$opts" | sed -n 's/^kernels \([0-9]*\).*/\1/p')
      t1=$(now)
      "$build/bin/tosac" g.mlir --offload-arch=$arch --init=kernel -o g.hipfb
      t2=$(now)
      printf '%-7s %-17s %-28s kernels %d  miir %.2f s  tosac %.2f s  ratio %.1f\n' "$arch" "$op" \
        "n$n c$c k$k ${h}x$w ${y}x$x s$s" "$count" "$(echo "$t1 - $t0" | bc)" \
        "$(echo "$t2 - $t1" | bc)" "$(echo "($t1 - $t0) / ($t2 - $t1)" | bc -l)"
    done
  done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
