/* extract --manifest FILE: one tab-separated row per extracted regular
 * file, with its plaintext's MD5, SHA-1 and SHA-256 (read back from what
 * was written), the SHA-256 of its stored ciphertext, and its times.
 * Rows come from the writer threads, in the order files are finished. */
#ifndef E4DUMP_MANIFEST_H
#define E4DUMP_MANIFEST_H

#include <stdint.h>
#include "inode.h"
#include "report.h"

struct manifest;

/* Create FILE (not replacing one) and write the header line; NULL after
 * an error. */
struct manifest *manifest_open(const char *path, struct report *r);
/* 0, or -1 after an error (a write failed). */
int manifest_close(struct manifest *m, struct report *r);

/* What the walking thread knows of a file: its path (as shown), inode,
 * size, times and ciphertext hash ("-" for a plaintext file): the row
 * without the plaintext hashes.  malloc'd, or NULL. */
char *manifest_row_start(const char *path, const struct e4_inode *in,
			 const char *ct_sha256_hex);

/* Hash the file open at fd (from its start) and write its row; frees
 * start.  0, or -1 (reported). */
int manifest_row(struct manifest *m, char *start, int fd, struct report *r);

/* The SHA-256 of a file's stored bytes (e4_inode_stream_raw) as hex into
 * out (65 bytes).  0, or -1 (reported by the library). */
int manifest_ct_sha256(struct e4_fs *fs, const struct e4_inode *in,
		       const char *path, char out[65]);

#endif
