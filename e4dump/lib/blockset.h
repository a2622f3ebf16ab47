/* A set of block numbers: which tree blocks a walk has visited. */
#ifndef E4_BLOCKSET_H
#define E4_BLOCKSET_H

#include <stddef.h>
#include <stdint.h>

struct e4_blockset {
	uint64_t *slots;    /* open addressing; 0 is the empty slot */
	size_t cap, n;
};

/* Add b (non-zero).  1 if it was new, 0 if already there, -1 out of
 * memory. */
int e4_blockset_add(struct e4_blockset *s, uint64_t b);
void e4_blockset_free(struct e4_blockset *s);

#endif
