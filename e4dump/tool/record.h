/* The record of an entry: what every writer says of one file, directory
 * or symlink of the image (ls, stat, extract, undelete, cat, mount
 * --json; the manifest, DFXML, body file and sidecars may render it too),
 * gathered once into a struct and rendered as JSON in one vocabulary
 * (schema/e4dump-records.schema.json, man e4dump "JSON RECORDS").
 *
 * Fill it with record_from_node (a walk node) or record_from_inode (an
 * inode and its path), set what the caller alone knows (hashes, output
 * path, status), render it with record_json, add the command's own
 * fields to that object, and free it with record_free. */
#ifndef E4DUMP_RECORD_H
#define E4DUMP_RECORD_H

#include <json-c/json.h>
#include <stdint.h>
#include "blockmap.h"
#include "context.h"
#include "dir.h"
#include "inode.h"
#include "undelete.h"
#include "walk.h"

struct session;

/* The inode's encryption context, as the record's "encryption" object
 * (null when present is 0). */
struct record_encryption {
	int present;             /* the inode is encrypted (EXT4_ENCRYPT_FL) */
	const char *error;       /* its context cannot be read: why ("error";
				  * nothing else of it is shown) */
	int known;               /* "known": a policy Linux 6.1 knows */
	const char *unknown_why; /* when not: why, as the reader said (or
				  * NULL); DFXML's e4:error of a version no
				  * kernel defines */
	int readable;            /* version 1 or 2: the fields below were read */
	struct e4_context ctx;   /* "policy_version" (the stored version
				  * byte: 1 or 2), "contents_mode",
				  * "filenames_mode" (by number, and by name
				  * as "contents", "filenames"), "flags" (the
				  * policy flags: an array of linux/fscrypt.h
				  * names, PAD_n first) and "policy_flags"
				  * (the byte, "0x03"), "descriptor" (v1) or
				  * "identifier" (v2) in hex, "nonce" in hex */
	const char *key;         /* "key": label of the key file that opens
				  * it ("dummy key" for --dummy-key), or NULL */
	const char *key_how;     /* "key_how": how the key was matched, or
				  * why none opens it */
	int open;                /* "state": "decrypted" when a key opens
				  * it, else "locked" */
};

/* "hashes": {"of", "md5", "sha1", "sha256", and "partial": true when
 * the record's status is partial (record_hashes_partial)} */
struct record_hashes {
	const char *of;          /* "plaintext" or "ciphertext"; NULL: the
				  * record has no hashes (no "hashes" field) */
	char md5[33], sha1[41], sha256[65]; /* lowercase hex; "" when too
				  * large to hash (then null) */
	char ciphertext_sha256[65]; /* extract: the SHA-256 of its stored
				  * bytes (the manifest's ciphertext_sha256,
				  * DFXML's e4:ciphertext_sha256), "" none;
				  * not in the JSON */
};

/* One of "byte_runs": bytes of the file at file_offset, fs_offset bytes
 * into the filesystem and img_offset into the image (the volume's offset
 * added), len bytes (the last run cut at i_size), as fiwalk gives them. */
struct record_run {
	uint64_t file_offset, fs_offset, img_offset, len;
};

struct record {
	const char *type;        /* "type": entry, stat, extracted, deleted,
				  * cat, ... (a string with static storage) */
	char *path;              /* "path": the path in the image, in its
				  * escaped display form (json_name's form);
				  * "<INO>" for an inode without a name */
	char *name;              /* "name": its last component (display
				  * form; the whole path for "/" or "<INO>"),
				  * or NULL (none: no field) */
	uint32_t ino;            /* "inode" */
	int have_inode;          /* the inode was read: the fields from
				  * file_type to flags below are shown; else
				  * "error" says why not (inode_error) */
	const char *inode_error; /* "error" when have_inode is 0 */
	struct e4_inode inode;   /* "file_type" (regular, directory, symlink,
				  * chardev, blockdev, fifo, socket, unknown),
				  * "mode" (permission bits, octal "0644"),
				  * "uid", "gid", "links", "atime", "mtime",
				  * "ctime", "crtime" (null without room for
				  * it), "dtime" (null when 0), "orphan_next"
				  * (the orphan list's link i_dtime holds
				  * instead of a time, or null), "flags" (i_flags
				  * by EXT4_*_FL names), "encrypted" */
	uint64_t size;           /* "size": what lstat gives (a symlink: the
				  * length of its target, decrypted or in its
				  * no-key form) */
	int allocated;           /* "allocated": the inode bitmap's bit, as
				  * istat's "Allocated" (e4_inode_allocated:
				  * a deleted file's inode may keep its links
				  * and mode, the bitmap says it is free); 1
				  * set, 0 clear, -1 unreadable (null) */
	int have_name;           /* an entry named it: name_state, raw_name */
	enum e4_name_state name_state; /* "name_state": plain, decrypted,
				  * no-key, bad */
	uint8_t *raw_name;       /* "raw_name_hex": the entry's stored bytes */
	size_t raw_name_len;
	char *target;            /* "target": a symlink's target, escaped
				  * (decrypted, or its no-key form), or NULL */
	struct record_encryption enc; /* "encryption" */
	struct record_hashes hashes; /* "hashes" (when the caller has them) */
	char *output_path;       /* "output_path": where it was written,
				  * under the output directory (display
				  * form), or NULL (not written: no field) */
	json_object *xattrs;     /* "xattrs": the listed extended attributes
				  * (xattrs_json: {"name", "value_hex",
				  * "value"} or {"name", "error"}); NULL:
				  * none read (a journal copy's: no field) */
	char *xattrs_error;      /* "xattrs_error": what of them could not
				  * be read ("xattr block N: bad xattr block
				  * magic"; DFXML's e4:xattrs_error), or NULL;
				  * then "xattrs" has only what could be read,
				  * null when that is nothing */
	int xattrs_quiet;        /* set before record_from_*: damage to the
				  * xattrs is not reported (another reading
				  * of them reports it) */
	const char *status;      /* "status": complete, partial, locked,
				  * not_recovered, skipped, error; NULL: none */
	struct record_run *runs; /* "byte_runs" when have_runs (record_set_runs,
				  * record_read_runs); none: no field */
	size_t nruns;
	int have_runs;
	char *unreadable;        /* the file blocks that could not be read
				  * (e4_ranges_text), or NULL: the manifest's
				  * "unreadable", DFXML's e4:unreadable_blocks
				  * (the command adds its own JSON field) */
	int name_type;           /* the EXT2_FT_* of the entry that names it,
				  * -1 (record_init) when none or not known:
				  * the body file's first mode letter; without
				  * the inode (have_inode 0, no inode_error):
				  * "file_type" by it, "size", "dtime" and
				  * "orphan_next" null */
	int deleted;             /* the name was deleted from its directory
				  * (the body file's " (deleted)", DFXML's
				  * unalloc; the commands add "deleted") */
	int orphan;              /* deleted, and no copy holds its name:
				  * DFXML's orphan */
	int without_xattrs;      /* set before record_from_*: the xattrs
				  * are not read (writers that show none) */
};

/* An empty record of type t. */
void record_init(struct record *r, const char *type);

/* The record of a walk node: path, name, inode, its entry's name state
 * and stored bytes, the inode's fields, its encryption context and key,
 * a symlink's target and the size lstat gives.  0, or -1 when out of
 * memory. */
int record_from_node(struct record *r, struct session *s,
		     const struct e4_walk_node *n);

/* The record of an inode read by the caller (in; NULL when it could not
 * be read, then ino names it), shown at path (display form). */
int record_from_inode(struct record *r, struct session *s, uint32_t ino,
		      const struct e4_inode *in, const char *path);

/* The record of an inode as a copy (a journal's) holds it, read by the
 * caller: nothing of the live image is read for it (its blocks may be
 * another file's by now).  ctx: its encryption context as the caller
 * read it from the copy, or NULL when it could not be; size: what lstat
 * gave; target: the symlink's target (escaped) or NULL.  allocated 0. */
int record_from_copy(struct record *r, struct session *s, const struct e4_inode *in,
		     const struct e4_context *ctx, uint64_t size,
		     const char *target, const char *path);

/* The record of deleted entry d, the same in every command: its path
 * (e4_deleted_path) and name, the stored name (not for an orphan),
 * "allocated" the inode bitmap's bit now (set: the inode was allocated
 * again), the inode as the newest journal copy from while it was in use
 * gives it (nothing of the live image is read for it: its blocks may be
 * another file's by now) with "dtime" when it was freed (d->dtime: the
 * newest copy of it freed, or the live inode); without such a copy, the
 * freed inode in the image when the bitmap says it is free (as fls shows
 * a deleted name's), else only the entry's type; a symlink's target as
 * readlink would show it (decrypted with the key, else its no-key form;
 * its block from journal j's copies, else the image) and lstat's size,
 * its length.  0, or -1 when out of memory. */
int record_from_deleted(struct record *r, struct session *s, const struct e4_journal *j,
			const struct e4_deleted *d);

/* The record of an inode as an export of extract --keep-locked saved it
 * (unlock-kept): no image behind it, so "allocated" is unknown (null);
 * ctx: its saved context, or NULL when it is missing or bad; key: the
 * label of the key that opened it, or NULL (kept locked).  A symlink's
 * target: its len bytes (decrypted, or its no-key form while kept), and
 * its size what lstat gives, len, as extract's record says (Linux:
 * fscrypt_symlink_getattr); target NULL: unknown (null, size i_size). */
int record_from_export(struct record *r, const struct e4_inode *in,
		       const struct e4_context *ctx, const char *key,
		       const char *target, size_t len, const char *path);

/* "byte_runs" of a block map's runs v[n] (unwritten ones are holes: left
 * out) below i_size.  0, or -1 when out of memory. */
int record_set_runs(struct record *r, struct session *s, const struct e4_run *v, size_t n);
/* The byte runs of the record's inode read from the image (a file,
 * directory or slow symlink; none for inline data or a fast symlink).  A
 * map that cannot be read gives none (have_runs 0; reported by the
 * library).  0, or -1 when out of memory. */
int record_read_runs(struct record *r, struct session *s);

/* The stored name of the entry (copied); name_state with it. */
int record_set_name(struct record *r, enum e4_name_state state,
		    const uint8_t *raw, size_t len);

/* Take hashes "MD5\tSHA1\tSHA256" as manifest_hash gives them ("-" for
 * one not computed). */
void record_set_hashes(struct record *r, const char *of, const char *tsv);
/* The "hashes" object of such hashes, for a record of status (NULL:
 * none). */
json_object *record_hashes_json(const char *of, const char *tsv, const char *status);
/* The record's hashes cover only what was read: its status is partial
 * (unreadable blocks written as zeros), so they are of what was written,
 * not the file's.  JSON "partial": true in "hashes", the manifest's
 * hashes_of "plaintext-partial" / "ciphertext-partial", DFXML's
 * e4:partial_hashdigest instead of hashdigest. */
int record_hashes_partial(const struct record *r);

/* Set a string field from raw bytes (escaped): output_path, target. */
int record_set_output(struct record *r, const char *raw);

/* The record as a JSON object (a record of r->type): every field above
 * that is set; NULL when out of memory. */
json_object *record_json(const struct record *r);

void record_free(struct record *r);

/* Pieces of the vocabulary, for writers that build their own objects. */
const char *record_file_type(uint16_t mode);      /* "regular", ... */
const char *record_file_type_ft(uint8_t ft);      /* of an EXT2_FT_* */
json_object *record_inode_flags(uint32_t flags);  /* ["ENCRYPT", ...] */
json_object *record_policy_flags(uint8_t flags);  /* ["PAD_32", ...] */
/* The encryption object of a policy (no nonce when nonce is 0); with
 * type, a record of that type. */
json_object *record_policy(const char *type, const struct e4_context *c, int nonce);
/* Add to a policy object what opens c: "key" (label or null), "key_how",
 * "state" (decrypted or locked). */
void record_policy_key(json_object *o, struct session *s, const struct e4_context *c);
/* A time, or null: "YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ". */
json_object *record_time(const struct e4_timestamp *ts);
/* i_dtime (seconds) as a timestamp */
#define RECORD_DTIME(in) ((struct e4_timestamp){ (int64_t)(in)->dtime, 0 })

/* The record of type "entry" of a walk node (record.h: record_from_node,
 * record_json) with size as given (what lstat gives).  NULL when out of
 * memory. */
json_object *json_entry(struct session *s, const struct e4_walk_node *n,
			uint64_t size);

#endif
