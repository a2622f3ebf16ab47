/* What the libyal readers (source_ewf.c, source_qcow.c, source_vhdi.c,
 * source_vmdk.c, source_smraw.c) share, below them and below
 * container.c: the reason from a libyal error, and the only way they let
 * a library at an evidence file.
 *
 * The libraries read the files themselves by default, and trust what
 * they read: Debian's libqcow copies a whole cluster from a file that
 * ends inside it, and shows whatever was in its buffer before (the
 * process's heap) as the cluster's bytes, or overflows it.  So no library
 * is given a file name: each is given libbfio handles (a pool for a set
 * of files) made here, whose read refuses (fails, reading nothing) any
 * read that would run past the end of the file as it was when opened,
 * and otherwise reads exactly what was asked or fails: a library never
 * sees a short read it could mishandle.  Every member file is opened
 * here too: only a regular file or a block device is evidence (a FIFO
 * would block open(), so it is opened O_NONBLOCK and refused), and a
 * member the library found by name (a later segment, an extent file) is
 * not followed when it is a symbolic link (O_NOFOLLOW): it would put a
 * file from elsewhere on the examiner's machine into the evidence. */
#ifndef E4_LIBYAL_H
#define E4_LIBYAL_H

#include <stddef.h>
#include <stdint.h>
#include "dynlib.h"

/* why from a libyal error backtrace: its first line (the innermost
 * reason) without the "function_name: " prefix and the final period, or
 * "unknown error". */
void e4_container_why(const char *text, char *why, size_t whylen);

/* Open path read-only as a member of an evidence set (e4_evidence_fd),
 * not following a final symbolic link unless follow: a file descriptor on
 * a regular file or block device and its size, or -1 with why (naming
 * the file as who, or path when NULL) and errno set. */
int e4_evidence_open(const char *path, const char *who, int follow,
		     uint64_t *size, char *why, size_t whylen);

/* The handles below are made by libbfio as lib uses it (e4_dl_bfio:
 * the library they are given to), loaded if need be (why says when it
 * cannot be), and freed by the same (e4_dl_bfio(lib)->handle_free). */

/* A libbfio handle, open, reading path as e4_evidence_open opened it, or
 * NULL with why.  libbfio_handle_free frees it.  flags: */
#define E4_BFIO_FOLLOW 1 /* follow a symbolic link (the examiner named it) */
#define E4_BFIO_SHORT 2  /* a read that starts inside the file and runs past
			  * its end gives the bytes up to the end (the rest
			  * of the buffer zeroed) and says so in its count,
			  * for the one read that relies on it: libvmdk reads
			  * "up to 2048 bytes" of a text descriptor and uses
			  * the count (libvmdk_handle_open_read_signature) */
libbfio_handle_t *e4_bfio_open(enum e4_dl_lib lib, const char *path, int flags, char *why,
			       size_t whylen);

/* A pool of such handles on names[0..n) in order: a symbolic link is
 * followed only under the name given (the path the examiner gave; the
 * other members the library found by name); a NULL name leaves its entry
 * empty (a VMDK zero extent); member names them in messages ("segment"
 * gives "segment 2 (NAME): ...").  NULL with why.  libbfio_pool_free frees it
 * and its handles. */
libbfio_pool_t *e4_bfio_pool(enum e4_dl_lib lib, const char *member, char *const *names, int n,
			     const char *given, char *why, size_t whylen);

/* Why the last refused read of a handle or pool made here failed (a read
 * past the end of a member), or NULL: the libraries' own reason is
 * their caller's ("unable to read cluster"), this one names the file. */
const char *e4_bfio_refused(enum e4_dl_lib lib, libbfio_handle_t *h);
const char *e4_bfio_pool_refused(enum e4_dl_lib lib, libbfio_pool_t *p);

#endif
