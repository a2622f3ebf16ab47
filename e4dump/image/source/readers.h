/* The readers of single container kinds, one file each (source_*.c),
 * below container.c, which chooses among them by signature. */
#ifndef E4_READERS_H
#define E4_READERS_H

#include <stddef.h>
#include "source.h"

/* The readers of single kinds (they do not check the signature).  On
 * failure why says what failed (the library's reason, or which member
 * file of the set is not evidence and why). */
enum e4_status e4_source_open_ewf(const char *path, struct e4_source **out,
				  char *why, size_t whylen);
enum e4_status e4_source_open_qcow(const char *path, struct e4_source **out,
				   char *why, size_t whylen);
enum e4_status e4_source_open_vhdi(const char *path, struct e4_source **out,
				   char *why, size_t whylen);
enum e4_status e4_source_open_smraw(const char *path, struct e4_source **out,
				    char *why, size_t whylen);
enum e4_status e4_source_open_sparse(const char *path, struct e4_source **out,
				     char *why, size_t whylen);
enum e4_status e4_source_open_vmdk(const char *path, struct e4_source **out,
				   char *why, size_t whylen);

/* How many segments libsmraw finds for path as the first of a split raw
 * set (disk.001, disk.002, ...), or 0. */
int e4_split_raw_segments(const char *path);

#endif
