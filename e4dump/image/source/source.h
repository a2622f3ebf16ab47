/* Where the bytes of a volume come from: a file today; a container
 * (E01, qcow2, ...) or a partition inside a disk later.  libext2fs reads
 * through it by way of an io_manager (io.c), so every reader of the image
 * layer sees one read-only byte range. */
#ifndef E4_SOURCE_H
#define E4_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "e4status.h"

struct e4_source_ops {
	/* Read len bytes at off (off + len <= size).  0, or -1 with errno. */
	int (*read)(void *arg, uint64_t off, void *buf, size_t len);
	void (*close)(void *arg);
};

/* A fact a container records about its evidence (an E01's stored hashes
 * and acquisition notes): bytes from the image, not yet escaped. */
struct e4_source_meta {
	char *key;
	char *value;
};

struct e4_source {
	const struct e4_source_ops *ops;
	void *arg;
	uint64_t size;     /* bytes readable */
	char *name;        /* for messages */
	int concurrent;    /* read may run in several threads at once */
	const char *kind;  /* what it is: "raw", "EWF", "QCOW", ... (static) */
	uint64_t disk_offset; /* where byte 0 is in the outermost source (the
			       * disk or container's media): a window's offset */
	uint64_t disk_size;   /* the outermost source's size */
	struct e4_source_meta *meta; /* owned; freed by e4_source_close */
	size_t n_meta;
};

/* Add key (copied) and value (len bytes, copied) to s->meta.  0 or -1. */
int e4_source_add_meta(struct e4_source *s, const char *key,
		       const void *value, size_t len);
void e4_source_free_meta(struct e4_source *s);

/* A source over ops and arg (which it takes over: ops->close frees it,
 * also when this fails).  name is copied.  E4_NOMEM on failure. */
enum e4_status e4_source_new(const struct e4_source_ops *ops, void *arg,
			     uint64_t size, const char *name, int concurrent,
			     const char *kind, struct e4_source **out);

/* A library handle that reads in one thread at a time (the libyal
 * readers).  read_at reads up to len bytes at off and returns how many
 * (<= 0: failure); reopen opens another handle on the same input from
 * ctx, or returns NULL. */
struct e4_handle_ops {
	ssize_t (*read_at)(void *h, void *buf, size_t len, uint64_t off);
	void (*close)(void *h);
	void *(*reopen)(void *ctx);
	void (*free_ctx)(void *ctx);
};

/* A source over handles of ops, first and more opened on demand (at most
 * E4_SOURCE_HANDLES, one per concurrent reader: each decompresses on its
 * own), each used by one thread at a time; reads are repeated until len
 * bytes are read.  Takes over first and ctx (closed and freed at the end,
 * also when this fails: E4_NOMEM). */
#define E4_SOURCE_HANDLES 4
enum e4_status e4_source_handles(const struct e4_handle_ops *ops, void *ctx,
				 void *first, uint64_t size, const char *name,
				 const char *kind, struct e4_source **out);

/* Put a cache of decoded units in front of a source of
 * e4_source_handles (before its first read), for reads of less than two
 * units (an EWF chunk, a qcow2 cluster: what the library decodes whole):
 * E4_SOURCE_CACHE bytes of whole units, LRU, filled by the reader that
 * misses; several readers of one unit wait for one decoding.  A unit
 * that cannot be read whole (a damaged chunk in it) is not cached: what
 * was asked of it is read directly, so it fails exactly the reads it
 * failed without the cache.  Larger reads go to a handle directly, into
 * the caller's buffer.  0, or -1 (no cache: reads as before). */
#define E4_SOURCE_CACHE (8u << 20)
int e4_source_handles_cache(struct e4_source *s, uint32_t unit);

/* The cache's reads served from a decoded unit and units decoded (for
 * tests and measurements).  0, or -1 when s has no cache. */
int e4_source_handles_cache_stats(struct e4_source *s, uint64_t *hits,
				  uint64_t *fills);

/* Open a file of the evidence read-only: only a regular file or a block
 * device is (a directory: EISDIR; a FIFO, socket or terminal: EINVAL,
 * without blocking in open()); a final symbolic link is followed only
 * when follow (else ELOOP).  The descriptor and the size (a block
 * device's from BLKGETSIZE64), or -1 with errno. */
int e4_evidence_fd(const char *path, int follow, uint64_t *size);

/* Open a regular file or block device read-only (e4_evidence_fd,
 * following a symbolic link: the examiner named it; the path is taken
 * literally, '?' included).  E4_IO with errno set on failure. */
enum e4_status e4_source_open_file(const char *path, struct e4_source **out);

/* A window [offset, offset + size) of another source, which it takes over
 * (a partition; size 0: to the end), also when this fails: E4_INVALID
 * when out of range, E4_NOMEM. */
enum e4_status e4_source_window(struct e4_source *base, uint64_t offset,
				uint64_t size, struct e4_source **out);

/* The same window, leaving base to the caller (it must outlive it). */
enum e4_status e4_source_view(struct e4_source *base, uint64_t offset,
			      uint64_t size, struct e4_source **out);

/* Read len bytes at off; E4_IO past the end or on a read error. */
enum e4_status e4_source_read(struct e4_source *s, uint64_t off, void *buf,
			      size_t len);
void e4_source_close(struct e4_source *s);

#endif
