/* Where the bytes of a volume come from: a file today; a container
 * (E01, qcow2, ...) or a partition inside a disk later.  libext2fs reads
 * through it by way of an io_manager (io.c), so every reader of the image
 * layer sees one read-only byte range. */
#ifndef E4_SOURCE_H
#define E4_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include "e4status.h"

struct e4_source_ops {
	/* Read len bytes at off (off + len <= size).  0, or -1 with errno. */
	int (*read)(void *arg, uint64_t off, void *buf, size_t len);
	void (*close)(void *arg);
};

struct e4_source {
	const struct e4_source_ops *ops;
	void *arg;
	uint64_t size;     /* bytes readable */
	char *name;        /* for messages */
	int concurrent;    /* read may run in several threads at once */
};

/* Open a regular file or block device read-only (O_RDONLY; the path is
 * taken literally, '?' included).  E4_IO with errno set on failure. */
enum e4_status e4_source_open_file(const char *path, struct e4_source **out);

/* A window [offset, offset + size) of another source, which it takes over
 * (a partition; size 0: to the end).  E4_INVALID when out of range. */
enum e4_status e4_source_window(struct e4_source *base, uint64_t offset,
				uint64_t size, struct e4_source **out);

/* Read len bytes at off; E4_IO past the end or on a read error. */
enum e4_status e4_source_read(struct e4_source *s, uint64_t off, void *buf,
			      size_t len);
void e4_source_close(struct e4_source *s);

#endif
