/* list_kernels.c: compile a TOSA graph in process with libtosac and print, per target, the
 * kernels in launch order with their grid, block, LDS and kernel arguments: what a runtime
 * such as MIOpen or MIGraphX needs, without parsing the manifest.
 *
 *   cc list_kernels.c $(pkg-config --cflags --libs tosac) -o list_kernels
 *   ./list_kernels model.mlir gfx90a,gfx1100
 */
#include <tosac/tosac.h>

#include <stdio.h>

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s model.mlir [targets]\n", argv[0]);
    return 2;
  }
  tosac_options *o = tosac_options_create();
  if (argc == 3 && tosac_options_add_targets(o, argv[2]) != TOSAC_OK) {
    fprintf(stderr, "list_kernels: %s\n", tosac_options_error(o));
    tosac_options_dispose(o);
    return 2;
  }
  tosac_result *r = tosac_compile_file(o, argv[1]);
  int rc = 0;
  if (tosac_result_status(r) != TOSAC_OK) {
    for (int i = 0; i < tosac_result_diagnostic_count(r); i++)
      fprintf(stderr, "%s:%d:%d: %s: %s\n", tosac_result_diagnostic_file(r, i)
                  ? tosac_result_diagnostic_file(r, i) : "tosac",
              tosac_result_diagnostic_line(r, i), tosac_result_diagnostic_column(r, i),
              tosac_result_diagnostic_severity(r, i), tosac_result_diagnostic_message(r, i));
    rc = 1;
  }
  for (int t = 0; !rc && t < tosac_result_target_count(r); t++) {
    size_t size = 0;
    tosac_result_code_object(r, t, &size);
    printf("target %s: %d kernels, code object %zu bytes\n", tosac_result_target_id(r, t),
           tosac_result_kernel_count(r, t), size);
    for (int k = 0; k < tosac_result_kernel_count(r, t); k++) {
      tosac_kernel kd;
      tosac_result_kernel(r, t, k, &kd);
      printf("  %s grid %ux%ux%u block %ux%ux%u lds %llu kernarg %llu:", kd.symbol, kd.grid[0],
             kd.grid[1], kd.grid[2], kd.block[0], kd.block[1], kd.block[2],
             (unsigned long long)kd.lds_bytes, (unsigned long long)kd.kernarg_size);
      for (int a = 0; a < kd.nargs; a++)
        printf(" %s@%llu", kd.args[a].value_kind, (unsigned long long)kd.args[a].offset);
      printf("\n");
    }
  }
  tosac_result_dispose(r);
  tosac_options_dispose(o);
  return rc;
}
