/* One pass over the inode table collecting encrypted inodes and contexts. */
#ifndef E4DUMP_INODE_INDEX_H
#define E4DUMP_INODE_INDEX_H

#include <stddef.h>
#include "image.h"

struct enc_inode {
	ext2_ino_t ino;
	uint16_t mode;
	int flagged;          /* EXT4_ENCRYPT_FL set */
	enum ctx_result res;  /* context read result */
	const char *why;
	struct e4_context ctx;
};

struct inode_index {
	struct enc_inode *v;  /* in inode order: flagged or with a context */
	size_t n, cap;
	size_t in_use;        /* in-use inodes seen */
};

/* Returns 0, or -1 after printing an error (the index holds what was read). */
int inode_index_build(struct img *im, struct inode_index *idx);
void inode_index_free(struct inode_index *idx);

#endif
