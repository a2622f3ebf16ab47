/* Regular file contents, decrypted when encrypted; random access. */
#ifndef E4_FILE_H
#define E4_FILE_H

#include <stddef.h>
#include <stdint.h>
#include "blockmap.h"

struct e4_file;

/* Open a regular file: its block map (checked) and, when encrypted, its
 * cipher.  E4_NO_KEY when its policy is locked; other errors reported. */
enum e4_status e4_file_open(struct e4_fs *fs, const struct e4_inode *in,
			    const char *path, struct e4_file **out);
void e4_file_close(struct e4_file *f);

uint64_t e4_file_size(const struct e4_file *f);

/* Read up to len bytes at off (holes and unwritten extents read as zeros;
 * nothing past i_size).  *got is short only at the end of the file. */
enum e4_status e4_file_pread(struct e4_file *f, uint64_t off, void *buf,
			     size_t len, size_t *got);

/* Receives data at increasing offsets; gaps between calls are holes.
 * Non-zero stops the stream. */
typedef int (*e4_sink_fn)(void *arg, uint64_t off, const uint8_t *data,
			  size_t len);

/* Pass the file's data, decrypted, in large chunks. */
enum e4_status e4_file_stream(struct e4_file *f, e4_sink_fn sink, void *arg);

#endif
