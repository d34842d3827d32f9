/* check.h: the unit tests' CHECK, which counts a failed condition and goes on, so one run reports
 * every failure; main returns failures != 0. */
#ifndef TOSAC_TESTS_UNIT_CHECK_H
#define TOSAC_TESTS_UNIT_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond)                                                                            \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                 \
      failures++;                                                                              \
    }                                                                                          \
  } while (0)

#endif
