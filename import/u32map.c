// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * A small open-addressing map from a 32-bit key to an array index, and the
 * find-or-append the perf importer keeps its AUX buffers (by idx) and its
 * threads (by tid) with, so a file of many buffers is not quadratic.
 */
#include <errno.h>
#include <fcntl.h>
#include <intel-pt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_internal.h"

static size_t u32map_slot(const struct u32map *m, uint32_t key)
{
	size_t i = ((uint64_t)key * 0x9e3779b97f4a7c15ull) >> 32;

	for (i &= m->cap - 1; m->val[i] && m->key[i] != key;
	     i = (i + 1) & (m->cap - 1))
		;
	return i;
}

/* The index stored for @key, or SIZE_MAX. */
static size_t u32map_get(const struct u32map *m, uint32_t key)
{
	size_t i;

	if (!m->cap)
		return SIZE_MAX;
	i = u32map_slot(m, key);
	return m->val[i] ? m->val[i] - 1 : SIZE_MAX;
}

/* Stores @val for a @key not yet in the map.  Returns 0 or -1 (memory). */
static int u32map_put(struct u32map *m, uint32_t key, size_t val)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap) {
		struct u32map big = { 0 };

		big.cap = m->cap ? 2 * m->cap : 64;
		big.key = malloc(big.cap * sizeof(*big.key));
		big.val = calloc(big.cap, sizeof(*big.val));
		if (!big.key || !big.val) {
			free(big.key);
			free(big.val);
			return -1;
		}
		for (i = 0; i < m->cap; i++)
			if (m->val[i]) {
				size_t j = u32map_slot(&big, m->key[i]);

				big.key[j] = m->key[i];
				big.val[j] = m->val[i];
			}
		big.n = m->n;
		free(m->key);
		free(m->val);
		*m = big;
	}
	i = u32map_slot(m, key);
	m->key[i] = key;
	m->val[i] = val + 1;
	m->n++;
	return 0;
}

void u32map_free(struct u32map *m)
{
	free(m->key);
	free(m->val);
}

/*
 * The element of array *@vp (*@n elements of @size bytes) that @m maps
 * @key to, or a new zeroed one appended and mapped (*@fresh set).  NULL
 * when memory runs out.
 */
void *u32map_find_or_add(void *vp, size_t *n, size_t *cap, size_t size,
			 struct u32map *m, uint32_t key, bool *fresh)
{
	char **v = vp;
	size_t i = u32map_get(m, key);

	*fresh = i == SIZE_MAX;
	if (!*fresh)
		return *v + i * size;
	if (perf_grow(vp, *n, cap, size) || u32map_put(m, key, *n))
		return NULL;
	i = (*n)++;
	memset(*v + i * size, 0, size);
	return *v + i * size;
}

