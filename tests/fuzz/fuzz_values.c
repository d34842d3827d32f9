/* fuzz_values.c: libFuzzer target for tosac-run's --input/--expected_output value parser
 * (run_parse_value), printing and comparing what it accepts. Forms that read files (`@`, `+`,
 * `*`, `=@`, `=+`) are skipped: fuzz_npy covers the file contents. A hint list from the first
 * bytes lets bare scalars take each element type. */
#include "../../tools/tosac-run/run.h"
#include "fuzz.h"

static bool reads_file(const char *s) {
  while (*s == ' ' || *s == '"')
    s++;
  if (*s == '@' || *s == '+' || *s == '*')
    return true;
  const char *eq = strchr(s, '=');
  return eq && (eq[1] == '@' || eq[1] == '+');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  char *spec = fuzz_text(data + 1, size - 1);
  if (reads_file(spec)) {
    free(spec);
    return 0;
  }
  tensor_type hint = {.elem = (elem_type)(data[0] % ET_COUNT), .rank = 0};
  run_value_list l = {0};
  run_file_cursor cur = {0};
  char err[600];
  if (run_elem_supported(hint.elem) &&
      run_parse_value(spec, &hint, 1, &l, &cur, err, sizeof err)) {
    run_tolerance tol;
    run_tolerance_defaults(&tol);
    for (int i = 0; i < l.count; i++) {
      /* A legal value of up to RUN_MAX_VALUE_BYTES (`21x3x3223x333x3xf32=`) takes seconds to
       * compare element by element: the fuzzer would report a timeout, not a bug. */
      if (l.items[i].bytes > (16u << 20))
        continue;
      run_print_value(fuzz_sink(), &l.items[i], 64);
      char buf[96];
      run_shape_type_str(&l.items[i].type, buf, sizeof buf);
      run_compare(i, &l.items[i], &l.items[i], &tol, fuzz_sink());
    }
  }
  run_value_list_free(&l);
  run_cursor_free(&cur);
  free(spec);
  return 0;
}
