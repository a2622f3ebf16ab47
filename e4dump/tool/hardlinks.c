#include <stdlib.h>
#include <string.h>
#include "hardlinks.h"

static size_t slot_of(uint32_t ino, size_t cap)
{
	return (size_t)(ino * 2654435761u) & (cap - 1);
}

const struct hardlink *hardlinks_find(const struct hardlinks *h, uint32_t ino)
{
	if (!h->cap)
		return NULL;
	for (size_t j = slot_of(ino, h->cap); h->slots[j].ino;
	     j = (j + 1) & (h->cap - 1))
		if (h->slots[j].ino == ino)
			return &h->slots[j];
	return NULL;
}

static int grow(struct hardlinks *h)
{
	size_t cap = h->cap ? 2 * h->cap : 64;
	struct hardlink *v = calloc(cap, sizeof(*v));

	if (!v)
		return -1;
	for (size_t i = 0; i < h->cap; i++) {
		size_t j;

		if (!h->slots[i].ino)
			continue;
		for (j = slot_of(h->slots[i].ino, cap); v[j].ino; j = (j + 1) & (cap - 1))
			;
		v[j] = h->slots[i];
	}
	free(h->slots);
	h->slots = v;
	h->cap = cap;
	return 0;
}

int hardlinks_add(struct hardlinks *h, uint32_t ino, dev_t dev, ino_t out_ino,
		  const char *rel, const char *unreadable)
{
	size_t len = strlen(rel) + 1 + (unreadable ? strlen(unreadable) + 1 : 0), j;

	if (h->bytes + len > HARDLINKS_BUDGET ||
	    ((h->n + 1) * 2 > h->cap && grow(h))) {
		h->full = 1;
		return -1;
	}
	for (j = slot_of(ino, h->cap); h->slots[j].ino; j = (j + 1) & (h->cap - 1))
		if (h->slots[j].ino == ino)
			return 0;
	h->slots[j].rel = strdup(rel);
	h->slots[j].unreadable = unreadable ? strdup(unreadable) : NULL;
	if (!h->slots[j].rel || (unreadable && !h->slots[j].unreadable)) {
		free(h->slots[j].rel);
		free(h->slots[j].unreadable);
		h->slots[j].rel = h->slots[j].unreadable = NULL;
		h->full = 1;
		return -1;
	}
	h->slots[j].ino = ino;
	h->slots[j].dev = dev;
	h->slots[j].out_ino = out_ino;
	h->n++;
	h->bytes += len;
	return 0;
}

void hardlinks_free(struct hardlinks *h)
{
	for (size_t i = 0; i < h->cap; i++) {
		free(h->slots[i].rel);
		free(h->slots[i].unreadable);
	}
	free(h->slots);
	memset(h, 0, sizeof(*h));
}
