/* names.c (unit test): values' names as 32-bit codes: decimals as numbers, every other
 * spelling through the registry, each spelling read back exactly; registry slots freed with
 * their arena and reused. */
#include "tosac.h"

#include <string.h>

#include "check.h"

/* s encodes to a code that reads back as s; decimal: no string was stored for it. */
static void round_trip(arena *a, const char *s, bool decimal) {
  name_code c = name_intern(a, s);
  char buf[VALUE_NAME_MAX];
  const char *back = name_str(c, buf);
  if (!back || strcmp(back, s) || (back == buf) != decimal || !(c & NAME_STRING) != decimal ||
      !name_equal(c, s, strlen(s))) {
    fprintf(stderr, "round trip of '%s': code %#x, read back '%s'\n", s, c, back ? back : "(none)");
    failures++;
  }
}

int main(void) {
  arena *a = arena_new();
  CHECK(name_intern(a, NULL) == 0);
  char buf[VALUE_NAME_MAX];
  CHECK(name_str(0, buf) == NULL);
  const char *decimals[] = {"0", "1", "9", "10", "123", "999999", "2147483645", "2147483646"};
  for (size_t i = 0; i < sizeof decimals / sizeof *decimals; i++)
    round_trip(a, decimals[i], true);
  /* leading zeros, past 2^31 - 2, past 32 bits, letters, empty, signs, non-ASCII */
  const char *strings[] = {"00", "007", "0123", "2147483647", "4294967295", "4294967296",
                           "99999999999999999999", "arg0", "a", "x_1", "", "-1", "+1", "1a",
                           "a1", "v\xc3\xa9", "splitk_partials_k3"};
  for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
    round_trip(a, strings[i], false);
  CHECK(name_decimal("42", 2) == name_intern(a, "42"));
  CHECK(name_decimal("042", 3) == 0);
  CHECK(name_equal(name_intern(a, "12"), "12", 2) && !name_equal(name_intern(a, "12"), "1", 1));
  CHECK(!name_equal(name_intern(a, "x"), "xy", 2));

  /* a freed arena's slots come back: 1000 names in each of 100 arenas use 1000 slots */
  uint32_t hi = 0;
  for (int k = 0; k < 100; k++) {
    arena *b = arena_new();
    for (int i = 0; i < 1000; i++) {
      char s[32];
      snprintf(s, sizeof s, "n%d_%d", k, i);
      name_code c = name_intern(b, s);
      hi = (c & ~NAME_STRING) > hi ? (c & ~NAME_STRING) : hi;
      round_trip(b, s, false);
    }
    arena_free(b);
  }
  CHECK(hi < 3000); /* 2000 per arena (round_trip interns again), plus the first arena's */
  arena_free(a);
  if (!failures)
    puts("names: all checks passed");
  return failures != 0;
}
