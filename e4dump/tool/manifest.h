/* extract --manifest FILE: one tab-separated row per extracted regular
 * file: its path in the image, inode, size, its plaintext's MD5, SHA-1
 * and SHA-256 (read back from what was written), the SHA-256 of its
 * stored ciphertext, its times, the file blocks that could not be read
 * ("-": none), its path under the output directory, and what the hashes
 * are of: "plaintext", or "ciphertext" for a file kept locked.
 * Rows come from the writer threads, in the order files are finished.
 * --dfxml FILE: a fileobject for every file, directory and symlink
 * written (dfxml.h). */
#ifndef E4DUMP_MANIFEST_H
#define E4DUMP_MANIFEST_H

#include <stdint.h>
#include "blockmap.h"
#include "inode.h"
#include "record.h"
#include "report.h"
#include "walk.h"

struct manifest;
struct session;

/* The TSV header: its columns, in the man page's order. */
#define MANIFEST_COLUMNS "path\tinode\tsize\tmd5\tsha1\tsha256\tciphertext_sha256\tatime\tmtime\tctime\tcrtime\tunreadable\toutput_path\thashes_of"

/* Create the TSV file tsv and/or the DFXML file dfxml (either may be
 * NULL; neither replaces a file) and write their headers; NULL after an
 * error.  image, the filesystem fs (its volume) and argv go into DFXML's
 * source, volume and creator. */
struct manifest *manifest_open(const char *tsv, const char *dfxml,
			       const char *image, struct e4_fs *fs,
			       int argc, char **argv, struct report *r);
/* The same for deleted entries (undelete): DFXML's volume says it holds
 * unallocated files too. */
struct manifest *manifest_open_for(const char *tsv, const char *dfxml,
				   const char *image, struct e4_fs *fs, int deleted,
				   int argc, char **argv, struct report *r);
/* The DFXML's rows read the xattrs of an entry (for e4:xattrs_error)
 * without reporting their damage: another reading of them (the JSON
 * record, --xattrs) reports it. */
void manifest_xattrs_quiet(struct manifest *m);
/* 0, or -1 after an error (a write failed). */
int manifest_close(struct manifest *m, struct report *r);

/* Files larger than this are not hashed ("-", with a warning): a sparse
 * file of a few blocks may claim a terabyte of zeros to read back. */
#define MANIFEST_MAX_HASHED ((uint64_t)64 << 30)

/* A row: the record of an entry (record.h) as the walking thread knows
 * it, without the hashes: its path in the image ("-" when not known),
 * inode (i_size and times: the TSV's), output path, ciphertext_sha256
 * and what the hashes are of; with --dfxml the entry's whole record
 * (type, owner, links, symlink target, name state, encryption, byte
 * runs), which DFXML renders.  manifest_write adds the hashes, the
 * unreadable blocks and the status. */
struct manifest_row {
	struct record rec;
};

/* An empty row: its record of type type (record_init), hashes of the
 * plaintext; the caller fills the record.  NULL when out of memory. */
struct manifest_row *manifest_row_new(const char *type);
/* The SHA-256 of its stored bytes ("-": none) */
void manifest_row_ct(struct manifest_row *row, const char *ct_sha256_hex);
/* A row of an entry written at out_path (raw bytes: escaped here), with
 * inode, size, times and ciphertext hash ("-" for a plaintext file); the
 * path in the image is not known ("-").  NULL when out of memory. */
struct manifest_row *manifest_row_start(const char *out_path,
					const struct e4_inode *in,
					const char *ct_sha256_hex);
/* The row of walk node n (a file, directory or symlink) written at
 * out_path: manifest_row_start with n's path in the image and, when m
 * writes DFXML, n's facts (type, owner, links, symlink target, name
 * state, encryption, and its block runs when map_read: its map was read
 * without an error, so reading it again reports nothing twice).  NULL
 * when out of memory. */
struct manifest_row *manifest_row_entry(struct manifest *m, struct session *s,
					const struct e4_walk_node *n,
					const char *out_path,
					const char *ct_sha256_hex, int map_read);
/* Set a row's path in the image (display form, copied).  0 or -1. */
int manifest_row_path(struct manifest_row *row, const char *image_path);
/* Whether m writes DFXML (then rows need the entry's whole record). */
int manifest_dfxml(const struct manifest *m);
void manifest_row_free(struct manifest_row *row);

/* The record's status (a string with static storage): "locked" for an
 * entry kept locked, as the command's JSON says. */
void manifest_row_status(struct manifest_row *row, const char *status);

/* Mark the row's MD5, SHA-1 and SHA-256 as those of the ciphertext file
 * written for a file kept locked (--keep-locked: its stored data units,
 * holes left out), not of a plaintext: the TSV's last column "hashes_of"
 * (plaintext | ciphertext), DFXML's hashdigest e4:of="ciphertext". */
void manifest_row_ciphertext(struct manifest_row *row);

/* The MD5, SHA-1 and SHA-256 of the file open at fd (from its start, size
 * bytes), tab-separated, into hashes (MANIFEST_HASHES bytes); "-" for each
 * above MANIFEST_MAX_HASHED.  0, or -1 when it cannot be read. */
#define MANIFEST_HASHES 176
int manifest_hash(int fd, uint64_t size, char *hashes);
/* hashes for an entry that has none (a directory, a symlink) */
#define MANIFEST_NO_HASHES "-\t-\t-"

/* Write a row (after the entry is in place; the TSV holds the regular
 * files written: rows with an output path); frees start.  hashes as
 * manifest_hash gives them; unreadable: the file blocks that could not
 * be read (e4_ranges_text), or NULL for none; the record's status, when
 * the caller set none (manifest_row_status): partial (unreadable) or
 * complete.  0 or -1. */
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
