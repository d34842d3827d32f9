/* lib_entries.c: the entry functions of a result (tests/bats/entries.bats), one line per fact.
 *   test-lib_entries graph.mlir TARGETS [SPECIALIZE] [ENTRY]
 * Prints the entry count, then per entry and target its kernels in launch order, each with the
 * buffers its arguments bind. */
#include <tosac/tosac.h>

#include <stdio.h>

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  tosac_options *o = tosac_options_create();
  if (tosac_options_add_targets(o, argv[2]) != TOSAC_OK ||
      (argc > 3 && argv[3][0] && tosac_options_add_specialize(o, argv[3]) != TOSAC_OK) ||
      (argc > 4 && tosac_options_set_entry(o, argv[4]) != TOSAC_OK)) {
    printf("options: %s\n", tosac_options_error(o));
    return 2;
  }
  tosac_result *r = tosac_compile_file(o, argv[1]);
  printf("status %d, %d entries\n", tosac_result_status(r), tosac_result_entry_count(r));
  for (int e = 0; e < tosac_result_entry_count(r); e++)
    for (int t = 0; t < tosac_result_target_count(r); t++) {
      printf("entry %d %s target %s:", e, tosac_result_entry_name(r, e),
             tosac_result_target_id(r, t));
      for (int i = 0; i < tosac_result_entry_kernel_count(r, e, t); i++) {
        tosac_kernel k;
        tosac_result_entry_kernel(r, e, t, i, &k);
        printf(" %s", k.name);
        for (int a = 0; a < k.nargs; a++) /* the buffers bound, as the manifest numbers them */
          if (k.args[a].buffer >= 0)
            printf("%c%d", a ? ',' : '(', k.args[a].buffer);
        printf(")");
      }
      printf("\n");
    }
  tosac_kernel k;
  printf("entry 0 is the top level: %d\n",
         tosac_result_kernel_count(r, 0) == tosac_result_entry_kernel_count(r, 0, 0));
  printf("out of range: %d %d %s\n",
         tosac_result_entry_kernel(r, tosac_result_entry_count(r), 0, 0, &k),
         tosac_result_entry_kernel_count(r, -1, 0),
         tosac_result_entry_name(r, 99) ? "name" : "null");
  tosac_result_dispose(r);
  tosac_options_dispose(o);
  return 0;
}
