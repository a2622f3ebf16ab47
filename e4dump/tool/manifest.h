/* extract --manifest FILE: one tab-separated row per extracted regular
 * file, with its plaintext's MD5, SHA-1 and SHA-256 (read back from what
 * was written), the SHA-256 of its stored ciphertext, its times, and the
 * file blocks that could not be read ("-": none), and what the hashes
 * are of: "plaintext", or "ciphertext" for a file kept locked.
 * Rows come from the writer threads, in the order files are finished.
 * --dfxml FILE: the same rows as DFXML fileobjects (libxml2). */
#ifndef E4DUMP_MANIFEST_H
#define E4DUMP_MANIFEST_H

#include <stdint.h>
#include "inode.h"
#include "report.h"

struct manifest;

/* Create the TSV file tsv and/or the DFXML file dfxml (either may be
 * NULL; neither replaces a file) and write their headers; NULL after an
 * error.  image and argv go into DFXML's source and creator. */
struct manifest *manifest_open(const char *tsv, const char *dfxml,
			       const char *image, int argc, char **argv,
			       struct report *r);
/* 0, or -1 after an error (a write failed). */
int manifest_close(struct manifest *m, struct report *r);

/* Files larger than this are not hashed ("-", with a warning): a sparse
 * file of a few blocks may claim a terabyte of zeros to read back. */
#define MANIFEST_MAX_HASHED ((uint64_t)64 << 30)

/* What the walking thread knows of a file: its path in the output
 * directory (raw bytes: escaped here), inode, size, times and ciphertext
 * hash ("-" for a plaintext file): the row without the plaintext hashes.
 * NULL when out of memory. */
struct manifest_row;
struct manifest_row *manifest_row_start(const char *out_path,
					const struct e4_inode *in,
					const char *ct_sha256_hex);
void manifest_row_free(struct manifest_row *row);

/* Mark the row's MD5, SHA-1 and SHA-256 as those of the ciphertext file
 * written for a file kept locked (extract --keep-locked: its stored data
 * units, holes left out), not of a plaintext: the TSV's last column
 * "hashes_of" (plaintext | ciphertext), DFXML's e4dump:hashes_of. */
void manifest_row_ciphertext(struct manifest_row *row);

/* The MD5, SHA-1 and SHA-256 of the file open at fd (from its start, size
 * bytes), tab-separated, into hashes (MANIFEST_HASHES bytes); "-" for each
 * above MANIFEST_MAX_HASHED.  0, or -1 when it cannot be read. */
#define MANIFEST_HASHES 176
int manifest_hash(int fd, uint64_t size, char *hashes);

/* Write a row (after the file is in place); frees start.  unreadable:
 * the file blocks that could not be read (e4_ranges_text), or NULL for
 * none.  0 or -1. */
int manifest_write(struct manifest *m, struct manifest_row *start,
		   const char *hashes, const char *unreadable);

/* Hash fd and write its row at once (a hard link, already in place). */
int manifest_row(struct manifest *m, struct manifest_row *start, int fd,
		 uint64_t size, const char *unreadable, struct report *r);

/* The SHA-256 of a file's stored bytes (e4_inode_stream_raw) as hex into
 * out (65 bytes); "-" above MANIFEST_MAX_HASHED.  0, or -1 (reported by
 * the library). */
int manifest_ct_sha256(struct e4_fs *fs, const struct e4_inode *in,
		       const char *path, char out[65]);

#endif
