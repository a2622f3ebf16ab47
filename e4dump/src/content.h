/* Regular file contents, decrypted when the inode is encrypted. */
#ifndef E4DUMP_CONTENT_H
#define E4DUMP_CONTENT_H

#include "keyring.h"

/* Receives data at file offsets in increasing order; gaps are holes. */
typedef int (*content_sink)(void *arg, uint64_t off, const uint8_t *data,
			    size_t len);

/* Stream the first i_size bytes of a regular file.  Returns 0; 1 when it
 * was skipped for want of a key (reported); -1 on any other error (reported,
 * naming path and inode). */
int content_read(struct keyring *kr, ext2_ino_t ino,
		 struct ext2_inode_large *inode, const char *path,
		 content_sink sink, void *arg);

/* Decrypted symlink target into a malloc'd NUL-terminated buffer.  Same
 * return convention as content_read. */
int symlink_target(struct keyring *kr, ext2_ino_t ino,
		   struct ext2_inode_large *inode, const char *path,
		   char **target, size_t *len);

#endif
