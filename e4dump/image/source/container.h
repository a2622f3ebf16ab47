/* What holds the volume: a raw image, or an evidence or virtual-disk
 * container, recognised by its content (never by its name) and read
 * through the field's own library (libewf, libqcow, libvhdi, libvmdk,
 * libsmraw, libsparse). */
#ifndef E4_CONTAINER_H
#define E4_CONTAINER_H

#include <stddef.h>
#include "source.h"
#include "readers.h"

/* Each library handle keeps every segment file it has read open: the
 * libraries' bound on open files (set_maximum_number_of_open_handles)
 * makes libewf 20140813 and libsmraw 20181227 fail reads ("missing chunk
 * data") once two handles of one set read at once, so it is not used.
 * The CLI raises its open-file limit instead, and a handle that cannot
 * be opened leaves the reads to those that are (source.c). */

/* Open path as whatever its first bytes say it is; a file no container
 * signature matches is a raw image.  On failure why says what failed
 * (the container's kind and its library's reason, or errno's text) and
 * errno is set for E4_IO from the file itself. */
enum e4_status e4_source_open_any(const char *path, struct e4_source **out,
				  char *why, size_t whylen);

#endif
