#!/bin/bash
# streamk_model.sh [BUILD]: builds tests/bench/streamk_model.c against BUILD/libtosac.a (default
# build) and prints whether stream-K or a data-parallel + split-K hybrid would pay for BERT-base's
# GEMMs by the tuning estimate (docs/decisions.md#stream-k-does-not-pay).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${1:-build}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
LLVM_CONFIG="${LLVM_CONFIG:-llvm-config-22}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
cc -O1 -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$ROOT/src" -I"$ROOT/include" \
  $("$LLVM_CONFIG" --cflags) "$ROOT/tests/bench/streamk_model.c" -o "$TMP/streamk_model" \
  "$BUILD/libtosac.a" $("$LLVM_CONFIG" --ldflags) -llldELF -llldCommon $("$LLVM_CONFIG" --libs) \
  -lcjson -lmsgpackc -lzstd -lz -lm -lpthread -lmd
"$TMP/streamk_model"
