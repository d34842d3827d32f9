# main_loop NAME TARGET SPEC...: the main loop of NAME.hipfb's TARGET code object (the backward
# branch with the most MFMAs), one count per SPEC of its instructions that start with it
# (lib/main_loop.py: `a-b` excludes those starting with b). Load with `load lib/main_loop`.
main_loop() {
  clang-offload-bundler-22 -type=o -unbundle -input="$1.hipfb" \
    -targets="hipv4-amdgcn-amd-amdhsa--$2" -output="$1.$2.co" || return 1
  llvm-objdump-22 -d "$1.$2.co" > "$1.$2.dis" || return 1
  /usr/bin/python3 "$BATS_TEST_DIRNAME/lib/main_loop.py" "$1.$2.dis" "${@:3}"
}
