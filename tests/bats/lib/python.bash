# py ARGS...: /usr/bin/python3; under make asan (TOSAC_SAN) the sanitizer runtime must be loaded
# first for the instrumented libtosac, and the interpreter's own allocations are not ours to
# leak-check
py() {
  if [ -n "${TOSAC_SAN:-}" ]; then
    LD_PRELOAD="$(gcc -print-file-name=libasan.so)" ASAN_OPTIONS=detect_leaks=0 /usr/bin/python3 "$@"
  else
    /usr/bin/python3 "$@"
  fi
}
