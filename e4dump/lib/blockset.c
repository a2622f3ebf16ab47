#include <stdlib.h>
#include "blockset.h"

static size_t slot_of(uint64_t b, size_t cap)
{
	b ^= b >> 33;
	b *= 0xff51afd7ed558ccdULL;
	b ^= b >> 33;
	return (size_t)b & (cap - 1);
}

static int grow(struct e4_blockset *s)
{
	size_t cap = s->cap ? 2 * s->cap : 64;
	uint64_t *v = calloc(cap, sizeof(*v));

	if (!v)
		return -1;
	for (size_t i = 0; i < s->cap; i++) {
		size_t j;

		if (!s->slots[i])
			continue;
		for (j = slot_of(s->slots[i], cap); v[j]; j = (j + 1) & (cap - 1))
			;
		v[j] = s->slots[i];
	}
	free(s->slots);
	s->slots = v;
	s->cap = cap;
	return 0;
}

int e4_blockset_add(struct e4_blockset *s, uint64_t b)
{
	size_t j;

	if ((s->n + 1) * 2 > s->cap && grow(s))
		return -1;
	for (j = slot_of(b, s->cap); s->slots[j]; j = (j + 1) & (s->cap - 1))
		if (s->slots[j] == b)
			return 0;
	s->slots[j] = b;
	s->n++;
	return 1;
}

void e4_blockset_free(struct e4_blockset *s)
{
	free(s->slots);
	s->slots = NULL;
	s->cap = s->n = 0;
}
