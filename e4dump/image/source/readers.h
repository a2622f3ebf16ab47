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

/* Whether path is the first of a split raw set (NAME.000 or NAME.001
 * and NAME.002 ... beside it; names of 3 to 9 digits): 1, or 0 when it
 * is no member of a set (a single file with such a name too), or -1 with
 * why when the set is not whole as given: path a later segment (its set
 * starts before it, or the first is missing), or a member missing
 * between path and a later one (why names it). */
int e4_split_raw_set(const char *path, char *why, size_t whylen);

#endif
