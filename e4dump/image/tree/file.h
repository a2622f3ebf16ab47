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
/* The same without decryption: reads give an encrypted file's stored
 * bytes (its ciphertext) up to i_size, holes as zeros. */
enum e4_status e4_file_open_raw(struct e4_fs *fs, const struct e4_inode *in,
				const char *path, struct e4_file **out);
void e4_file_close(struct e4_file *f);

/* A second handle on the same file (its own buffers and cipher), for
 * reading it in two threads at once: each handle is used by one thread
 * at a time, and only when e4_fs_concurrent_reads(fs) says so.  Made in
 * the thread that uses the filesystem. */
enum e4_status e4_file_dup(const struct e4_file *f, struct e4_file **out);

uint64_t e4_file_size(const struct e4_file *f);

/* Read up to len bytes at off (holes and unwritten extents read as zeros;
 * nothing past i_size).  *got is short only at the end of the file. */
enum e4_status e4_file_pread(struct e4_file *f, uint64_t off, void *buf,
			     size_t len, size_t *got);

/* Receives data at increasing offsets; gaps between calls are holes.
 * Non-zero stops the stream. */
typedef int (*e4_sink_fn)(void *arg, uint64_t off, const uint8_t *data,
			  size_t len);

/* Pass the file's data, decrypted, in large chunks.
 *
 * Threads: e4_file_stream, e4_file_pread and e4_file_close touch nothing
 * of the filesystem but its block reads and its diagnostics callback, so
 * when e4_fs_concurrent_reads(fs) is true a file handle may be used in
 * another thread than the one using the filesystem (the callback is then
 * called from that thread too). */
enum e4_status e4_file_stream(struct e4_file *f, e4_sink_fn sink, void *arg);

/* Pass a regular file's stored bytes in logical order up to i_size, as
 * they are on disk: the ciphertext of an encrypted file (holes and
 * unwritten extents as zeros, as debugfs's dump gives them).  Reads in the
 * calling thread.  E4_OK, E4_STOPPED (the sink returned non-zero),
 * E4_INVALID (not a regular file with blocks), or the block map's and
 * reads' errors (reported). */
enum e4_status e4_inode_stream_raw(struct e4_fs *fs, const struct e4_inode *in,
				   const char *path, e4_sink_fn sink, void *arg);

/* Keep going past blocks that cannot be read (an I/O error, a truncated
 * image, a block past the end of the volume): e4_file_stream leaves them
 * out (a gap, as a hole) and e4_file_pread gives zeros for them, instead
 * of failing; they are not reported but recorded, for the caller to
 * report with what it knows.  A handle made by e4_file_dup inherits it. */
void e4_file_keep_going(struct e4_file *f);

/* A range of file (logical) blocks. */
struct e4_lblk_range {
	uint64_t lblk;
	uint64_t len;
};

/* Blocks the file's map claims more than once (ext4 maps each block
 * once: e2fsck's multiply-claimed blocks inside one file): how many file
 * blocks map a block that an earlier file block maps too (0: none), and
 * for the first such pair the block (*pblk) and the two file blocks.
 * Over the runs the handle holds; reads nothing, O(runs log runs). */
uint64_t e4_file_shared_blocks(const struct e4_file *f, uint64_t *pblk,
			       uint64_t *lblk_first, uint64_t *lblk_again);

/* The file blocks this handle could not read so far (keep-going mode):
 * returns how many; *ranges (*n of them, merged when read in order) lists
 * them, the first 1024 ranges only. */
uint64_t e4_file_unreadable(const struct e4_file *f,
			    const struct e4_lblk_range **ranges, size_t *n);

/* The same up to the end of the last block i_size reaches (every data
 * unit whole, as a later decryption needs it), with holes and unwritten
 * extents left out (gaps between the sink's calls). */
enum e4_status e4_inode_stream_blocks(struct e4_fs *fs, const struct e4_inode *in,
				      const char *path, e4_sink_fn sink, void *arg);

/* Read buffers for one thread streaming many files (made and used in
 * that thread): nothing is allocated per file, and files laid out one
 * after another are read a window (bytes / 2) at a time, not one system
 * call each.  Plaintext stays in it until e4_readbuf_free wipes it. */
struct e4_readbuf;
enum e4_status e4_readbuf_new(const struct e4_fs *fs, size_t bytes,
			      struct e4_readbuf **out);
void e4_readbuf_free(struct e4_readbuf *rb);

/* e4_file_pread through rb: whole blocks are decrypted straight into
 * buf. */
enum e4_status e4_file_pread_buf(struct e4_file *f, struct e4_readbuf *rb,
				 uint64_t off, void *buf, size_t len, size_t *got);

/* e4_file_stream through rb. */
enum e4_status e4_file_stream_buf(struct e4_file *f, struct e4_readbuf *rb,
				  e4_sink_fn sink, void *arg);

/* The same for file blocks from..to-1 only (a file without blocks, inline
 * data or none, is all in the part with from 0), through rb or, when it
 * is NULL, the handle's own buffers: handles of one file
 * (e4_file_dup) stream its parts in several threads at once, each its
 * unreadable blocks recorded in its own handle. */
enum e4_status e4_file_stream_part(struct e4_file *f, struct e4_readbuf *rb,
				   uint64_t from, uint64_t to,
				   e4_sink_fn sink, void *arg);

#endif
