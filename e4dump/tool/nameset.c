#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "nameset.h"

static size_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return (size_t)h;
}

static int grow(struct nameset *s)
{
	size_t cap = s->cap ? 2 * s->cap : 64;
	char **v = calloc(cap, sizeof(*v));

	if (!v)
		return -1;
	for (size_t i = 0; i < s->cap; i++) {
		size_t j;

		if (!s->slots[i])
			continue;
		for (j = hash(s->slots[i]) & (cap - 1); v[j]; j = (j + 1) & (cap - 1))
			;
		v[j] = s->slots[i];
	}
	free(s->slots);
	s->slots = v;
	s->cap = cap;
	return 0;
}

int nameset_add(struct nameset *s, const char *name)
{
	size_t j;

	if ((s->n + 1) * 2 > s->cap && grow(s))
		return -1;
	for (j = hash(name) & (s->cap - 1); s->slots[j]; j = (j + 1) & (s->cap - 1))
		if (!strcmp(s->slots[j], name))
			return 0;
	s->slots[j] = strdup(name);
	if (!s->slots[j])
		return -1;
	s->n++;
	return 1;
}

void nameset_free(struct nameset *s)
{
	for (size_t i = 0; i < s->cap; i++)
		free(s->slots[i]);
	free(s->slots);
	memset(s, 0, sizeof(*s));
}
