#include <stdlib.h>
#include "blockset.h"

static size_t slot_of(uint64_t b, size_t cap)
{
	b ^= b >> 33;
	b *= 0xff51afd7ed558ccdULL;
	b ^= b >> 33;
	return (size_t)b & (cap - 1);
}

static int grow(struct e4_blockset *s, int owners)
{
	size_t cap = s->cap ? 2 * s->cap : 64;
	uint64_t *v = calloc(cap, sizeof(*v));
	uint32_t *o = owners ? calloc(cap, sizeof(*o)) : NULL;

	if (!v || (owners && !o)) {
		free(v);
		free(o);
		return -1;
	}
	for (size_t i = 0; i < s->cap; i++) {
		size_t j;

		if (!s->slots[i])
			continue;
		for (j = slot_of(s->slots[i], cap); v[j]; j = (j + 1) & (cap - 1))
			;
		v[j] = s->slots[i];
		if (o)
			o[j] = s->owners[i];
	}
	free(s->slots);
	free(s->owners);
	s->slots = v;
	s->owners = o;
	s->cap = cap;
	return 0;
}

/* The slot of b: where it is, or the empty slot where it would go. */
static size_t find(const struct e4_blockset *s, uint64_t b)
{
	size_t j;

	for (j = slot_of(b, s->cap); s->slots[j] && s->slots[j] != b;
	     j = (j + 1) & (s->cap - 1))
		;
	return j;
}

int e4_blockset_add(struct e4_blockset *s, uint64_t b)
{
	size_t j;

	if ((s->n + 1) * 2 > s->cap && grow(s, 0))
		return -1;
	j = find(s, b);
	if (s->slots[j])
		return 0;
	s->slots[j] = b;
	s->n++;
	return 1;
}

int e4_blockset_claim(struct e4_blockset *s, uint64_t b, uint32_t owner,
		      uint32_t *other)
{
	size_t j;

	if ((s->n + 1) * 2 > s->cap && grow(s, 1))
		return -1;
	j = find(s, b);
	if (s->slots[j]) {
		if (s->owners[j] == owner)
			return 0;
		*other = s->owners[j];
		return 2;
	}
	s->slots[j] = b;
	s->owners[j] = owner;
	s->n++;
	return 1;
}

void e4_blockset_free(struct e4_blockset *s)
{
	free(s->slots);
	free(s->owners);
	s->slots = NULL;
	s->owners = NULL;
	s->cap = s->n = 0;
}
