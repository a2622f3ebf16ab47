/* bigmem.h: below E4_BIGMEM_HUGE, malloc; above, an aligned mapping. */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "bigmem.h"

static size_t mapped_size(size_t size)
{
	return (size + E4_BIGMEM_HUGE - 1) & ~(E4_BIGMEM_HUGE - 1);
}

/* A mapping of len bytes (a multiple of E4_BIGMEM_HUGE) at a multiple of
 * E4_BIGMEM_HUGE: the kernel backs only aligned 2 MiB ranges with huge
 * pages, so map one more, then cut the ends off. */
static void *map_aligned(size_t len)
{
	size_t over = len + E4_BIGMEM_HUGE;
	uint8_t *m = mmap(NULL, over, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t head;

	if (m == MAP_FAILED)
		return NULL;
	head = (E4_BIGMEM_HUGE - (uintptr_t)m % E4_BIGMEM_HUGE) % E4_BIGMEM_HUGE;
	if (head)
		munmap(m, head);
	munmap(m + head + len, over - head - len);
#ifdef MADV_HUGEPAGE
	madvise(m + head, len, MADV_HUGEPAGE);
#endif
	return m + head;
}

void *e4_big_realloc(void *p, size_t old_size, size_t new_size)
{
	int was_mapped = p && old_size >= E4_BIGMEM_HUGE;
	void *q;

	if (new_size < E4_BIGMEM_HUGE && !was_mapped)
		return realloc(p, new_size ? new_size : 1);
	if (was_mapped && new_size >= E4_BIGMEM_HUGE &&
	    mapped_size(new_size) == mapped_size(old_size))
		return p;
	q = new_size >= E4_BIGMEM_HUGE ? map_aligned(mapped_size(new_size)) :
					 malloc(new_size ? new_size : 1);
	if (!q)
		return NULL;
	if (p)
		memcpy(q, p, old_size < new_size ? old_size : new_size);
	e4_big_free(p, old_size);
	return q;
}

void e4_big_free(void *p, size_t size)
{
	if (!p)
		return;
	if (size >= E4_BIGMEM_HUGE)
		munmap(p, mapped_size(size));
	else
		free(p);
}
