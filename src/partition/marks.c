/* marks.c: sets of small integers (group, value ids) emptied in O(1) by a new stamp, sized by
 * what one query or one kernel holds instead of a stamp per id of the graph. */
#include "partition.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

void part_marks_init(part_marks *m, int cap) {
  m->key = malloc(sizeof(int) * (size_t)cap);
  m->stamp = calloc((size_t)cap, sizeof(int));
  if (!m->key || !m->stamp)
    abort();
  m->cap = cap, m->n = 0, m->cur = 1;
}

void part_marks_free(part_marks *m) {
  free(m->key);
  free(m->stamp);
}

void part_marks_clear(part_marks *m) {
  if (m->cur == INT_MAX) { /* stamps wrap: empty every slot */
    memset(m->stamp, 0, sizeof(int) * (size_t)m->cap);
    m->cur = 0;
  }
  m->cur++, m->n = 0;
}

static int marks_slot(const part_marks *m, int x) {
  int k = (int)((uint32_t)x * 0x9E3779B1u & (uint32_t)(m->cap - 1));
  while (m->stamp[k] == m->cur && m->key[k] != x)
    k = (k + 1) & (m->cap - 1);
  return k;
}

bool part_marks_has(const part_marks *m, int x) {
  return m->stamp[marks_slot(m, x)] == m->cur;
}

bool part_marks_add(part_marks *m, int x) {
  int k = marks_slot(m, x);
  if (m->stamp[k] == m->cur)
    return false;
  if (2 * (m->n + 1) > m->cap) { /* rehash the current members into twice the slots */
    part_marks old = *m;
    part_marks_init(m, 2 * old.cap);
    for (int i = 0; i < old.cap; i++)
      if (old.stamp[i] == old.cur)
        part_marks_add(m, old.key[i]);
    part_marks_free(&old);
    k = marks_slot(m, x);
  }
  m->key[k] = x, m->stamp[k] = m->cur, m->n++;
  return true;
}
