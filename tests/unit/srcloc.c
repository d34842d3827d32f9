/* srcloc.c (unit test): src_loc's 8-byte form and the source-file registry behind it (slots
 * freed by source_forget, the limit of SRC_LOC_MAX_FILES live files, lines past the 26-bit
 * field), and the packed op and value sizes a million-op graph relies on. */
#include "tosac.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"

int main(void) {
  CHECK(sizeof(src_loc) == 8);
  CHECK(sizeof(op) == 48);
  CHECK(sizeof(value) == 32);
  CHECK(src_loc_file(src_loc_at(NULL, 3, 4)) == NULL);
  CHECK(src_loc_file((src_loc){0}) == NULL);

  /* 300 files one after another, each forgotten when done: every one keeps its location */
  static source_file files[300];
  int located = 0;
  for (int i = 0; i < 300; i++) {
    src_loc l = src_loc_at(&files[i], 7 + i, 9 + i);
    located += src_loc_file(l) == &files[i] && (int)l.line == 7 + i && l.col == 9 + i;
    source_forget(&files[i]);
  }
  CHECK(located == 300);

  /* at most SRC_LOC_MAX_FILES at once; one more has no location until a slot is freed */
  int held = 0;
  for (int i = 0; i < SRC_LOC_MAX_FILES; i++)
    held += src_loc_file(src_loc_at(&files[i], 1, 1)) == &files[i];
  CHECK(held == SRC_LOC_MAX_FILES);
  CHECK(src_loc_file(src_loc_at(&files[SRC_LOC_MAX_FILES], 1, 1)) == NULL);
  source_forget(&files[5]);
  CHECK(src_loc_file(src_loc_at(&files[SRC_LOC_MAX_FILES], 1, 1)) == &files[SRC_LOC_MAX_FILES]);
  CHECK(src_loc_file(src_loc_at(&files[0], 1, 1)) == &files[0]); /* still registered */
  for (int i = 0; i <= SRC_LOC_MAX_FILES; i++)
    source_forget(&files[i]);

  /* the widest columns stay exact; lines past the field read as its last one */
  src_loc wide = src_loc_at(&files[0], SRC_LOC_MAX_LINE, 2147483647);
  CHECK((int)wide.line == SRC_LOC_MAX_LINE && wide.col == 2147483647);
  CHECK((int)src_loc_at(&files[0], SRC_LOC_MAX_LINE + 10, 1).line == SRC_LOC_MAX_LINE);

  /* a diagnostic prints the file's path, line, column, source line and caret */
  source_file f = {.path = "x.mlir", .text = "a\n  bad here\n", .len = 13};
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  diag_sink d;
  diag_init(&d, out);
  diag_error(&d, src_loc_at(&f, 2, 3), "oops %d", 1);
  fclose(out);
  CHECK(text && !strcmp(text, "x.mlir:2:3: error: oops 1\n  bad here\n  ^\n"));
  free(text);
  source_forget(&f);

  if (failures)
    fprintf(stderr, "%d failures\n", failures);
  else
    printf("srcloc: all checks passed\n");
  return failures != 0;
}
