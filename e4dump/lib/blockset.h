/* A set of block numbers (which tree blocks a walk has visited), and the
 * same with an owner per block (which inode claimed a metadata block). */
#ifndef E4_BLOCKSET_H
#define E4_BLOCKSET_H

#include <stddef.h>
#include <stdint.h>

struct e4_blockset {
	uint64_t *slots;    /* open addressing; 0 is the empty slot */
	uint32_t *owners;   /* parallel to slots (e4_blockset_claim only) */
	size_t cap, n;
};

/* Add b (non-zero).  1 if it was new, 0 if already there, -1 out of
 * memory. */
int e4_blockset_add(struct e4_blockset *s, uint64_t b);

/* Claim b (non-zero) for owner: 1 if it was new (now owner's), 0 if owner
 * already had it, -1 out of memory; else the other owner's number is put
 * in *other and 2 returned. */
int e4_blockset_claim(struct e4_blockset *s, uint64_t b, uint32_t owner,
		      uint32_t *other);

void e4_blockset_free(struct e4_blockset *s);

#endif
