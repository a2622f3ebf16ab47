/* extract --manifest FILE: one tab-separated row per extracted regular
 * file: its path in the image, inode, size, its plaintext's MD5, SHA-1
 * and SHA-256 (read back from what was written), the SHA-256 of its
 * stored ciphertext, its times, the file blocks that could not be read
 * ("-": none) and its path under the output directory.
 * Rows come from the writer threads, in the order files are finished.
 * --dfxml FILE: a fileobject for every file, directory and symlink
 * written (dfxml.h). */
#ifndef E4DUMP_MANIFEST_H
#define E4DUMP_MANIFEST_H

#include <stdint.h>
#include "blockmap.h"
#include "inode.h"
#include "report.h"
#include "walk.h"

struct manifest;
struct session;

/* The TSV header: its columns, in the man page's order. */
#define MANIFEST_COLUMNS "path\tinode\tsize\tmd5\tsha1\tsha256\tciphertext_sha256\tatime\tmtime\tctime\tcrtime\tunreadable\toutput_path"

/* Create the TSV file tsv and/or the DFXML file dfxml (either may be
 * NULL; neither replaces a file) and write their headers; NULL after an
 * error.  image, the filesystem fs (its volume) and argv go into DFXML's
 * source, volume and creator. */
struct manifest *manifest_open(const char *tsv, const char *dfxml,
			       const char *image, struct e4_fs *fs,
			       int argc, char **argv, struct report *r);
/* 0, or -1 after an error (a write failed). */
int manifest_close(struct manifest *m, struct report *r);

/* Files larger than this are not hashed ("-", with a warning): a sparse
 * file of a few blocks may claim a terabyte of zeros to read back. */
#define MANIFEST_MAX_HASHED ((uint64_t)64 << 30)

enum manifest_kind { MANIFEST_FILE, MANIFEST_DIR, MANIFEST_SYMLINK };

/* The encryption facts of an entry (DFXML's e4:encryption), read from its
 * context with the names the JSON records use. */
struct manifest_policy {
	int encrypted;          /* EXT4_ENCRYPT_FL */
	char error[80];         /* its context cannot be read: why ("" else) */
	int known;              /* version, modes and flags below are read */
	uint8_t version;        /* as stored: 1 or 2 */
	uint8_t contents_mode, filenames_mode, flags;
	int v2;                 /* key_id is an identifier, else a descriptor */
	char key_id[33];        /* hex */
	char nonce[33];         /* hex */
	char *key;              /* the key that opens it (its label), or NULL */
	int locked;             /* no key opens it: kept as ciphertext */
};

/* A row: what the walking thread knows of an entry, without the hashes.
 * Strings are in the display form (e4_escape), as ls and JSON show them. */
struct manifest_row {
	char *path;             /* in the image ("-" when not known) */
	char *out_path;         /* under the output directory */
	uint32_t ino;
	uint64_t size;          /* i_size */
	char ct[65];            /* the ciphertext's SHA-256, or "-" */
	char times[4][48];      /* atime, mtime, ctime, crtime ("-": none) */
	/* The entry's facts for DFXML (manifest_row_entry with --dfxml) */
	int described;
	enum manifest_kind kind;
	uint16_t mode;
	uint32_t uid, gid;
	uint16_t links;
	uint64_t shown_size;    /* what lstat gives (a symlink: its target's) */
	char dtime[48];         /* "-" when 0 */
	char *target;           /* a symlink's target (no-key form when
				 * locked), or NULL */
	const char *name_state; /* "plain", "decrypted", "no-key", "bad", or
				 * NULL for the start of the walk */
	char *raw_name_hex;     /* the stored name, or NULL */
	struct e4_run *runs;    /* initialized runs below i_size */
	size_t nruns;
	struct manifest_policy enc;
};

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
void manifest_row_free(struct manifest_row *row);

/* The MD5, SHA-1 and SHA-256 of the file open at fd (from its start, size
 * bytes), tab-separated, into hashes (MANIFEST_HASHES bytes); "-" for each
 * above MANIFEST_MAX_HASHED.  0, or -1 when it cannot be read. */
#define MANIFEST_HASHES 176
int manifest_hash(int fd, uint64_t size, char *hashes);
/* hashes for an entry that has none (a directory, a symlink) */
#define MANIFEST_NO_HASHES "-\t-\t-"

/* Write a row (after the entry is in place; the TSV holds regular files
 * only); frees start.  unreadable: the file blocks that could not be read
 * (e4_ranges_text), or NULL for none.  0 or -1. */
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
