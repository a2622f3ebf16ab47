/* extract --keep-locked's export: what a later decryption needs, saved
 * beside the ciphertext so that `e4dump unlock-kept` finishes the job
 * from the export alone, without the image.
 *
 *   DIR/%e4dump-export.json    once: the filesystem's UUID (IV_INO_LBLK_*
 *                              keys are derived with it), block size (the
 *                              data unit), name format, passphrase salt
 *   D/%e4dump-dir.json         in each output directory D that is locked
 *                              or holds something kept: the directory's
 *                              record (type "kept_directory"), its
 *                              decrypt_later and, per entry written, its output
 *                              name with its stored (encrypted) name,
 *                              hash pair and sidecar
 *   D/NAME.e4dump.json         beside each file or symlink kept locked:
 *                              its record (type "locked") and its
 *                              "decrypt_later" object
 *
 * The names starting with '%' are never given to an entry of the image
 * (outdir_escape escapes every name starting with '%' and those never end
 * in ".json" after "%e4dump-"), and they are reserved in their directory
 * before any entry is named.  Machine fields are numbers and hex; the
 * stored context bytes are kept whole (e4_context_encode). */
#ifndef E4DUMP_KEPT_H
#define E4DUMP_KEPT_H

#include <json-c/json.h>
#include "inode.h"
#include "nameset.h"
#include "outdir.h"
#include "record.h"
#include "report.h"

#define KEPT_EXPORT_FILE "%e4dump-export.json"
#define KEPT_DIR_FILE "%e4dump-dir.json"
#define KEPT_FORMAT 1

/* "decrypt_later" of the record of an entry (record_from_node,
 * record_from_copy): its inode and context in the machine form a later
 * decryption reads back (kept_later_inode, kept_later_context): number
 * (IV_INO_LBLK_* and per-file keys use it), i_mode, uid, gid, links,
 * i_flags, i_size (the plaintext size), the four times as [seconds,
 * nanoseconds], the stored context whole ("context_hex": e4_context_encode
 * of the record's context, or null when it has none Linux knows), and with
 * fs, for a regular file, the initialized data units stored in the
 * ciphertext file ("data_units": [[first logical block, count], ...];
 * every other block is a hole or an unwritten extent: zeros in the
 * plaintext).  NULL after an error (reported by the library). */
json_object *kept_later_json(const struct record *r, struct e4_fs *fs);
/* The same with the block map given (runs[nruns]: undelete's, rebuilt
 * from the journal's copies; unwritten ones and what lies past i_size
 * left out) instead of the inode's read from fs. */
json_object *kept_later_json_runs(const struct record *r, struct e4_fs *fs,
				  const struct e4_run *runs, size_t nruns);

/* Back from a decrypt_later: the inode's facts (what the record and the
 * manifest need of it; a field missing is 0), ... */
void kept_later_inode(json_object *later, struct e4_inode *in);
/* ... and its context and inode number: 0, or -1 when missing or bad. */
int kept_later_context(json_object *later, struct e4_context *ctx, uint32_t *ino);

/* The sidecar's name for the entry written as name (inode ino):
 * NAME.e4dump.json, or when that is too long (no-key names reach 252
 * bytes) or taken in names (NULL: none kept), "%~INO.e4dump.json"; taken
 * in names when given.  0, or -1 when that is taken too. */
int kept_sidecar_name(struct nameset *names, const char *name, uint32_t ino,
		      char side[OUTDIR_NAME_MAX + 32]);

/* The sidecar of an entry kept locked: o, the entry's record (type
 * "locked") with the command's own fields, gets what a later decryption
 * needs beside its ciphertext file name: "ciphertext_file" (name),
 * "block_size" and "decrypt_later" (kept_later_json of r), and is written
 * to side in dirfd.  0, or -1 with errno. */
int kept_sidecar_write(struct outdir *od, int dirfd, const char *side,
		       const char *name, json_object *o, json_object *later,
		       unsigned int block_size);

/* The export header (KEPT_EXPORT_FILE). */
json_object *kept_export_json(struct e4_fs *fs, const char *image,
			      const char *path);

/* Write o, pretty, into a new file name in dirfd.  0, or -1 with errno. */
int kept_write_json(struct outdir *od, int dirfd, const char *name,
		    json_object *o);

/* Lowercase hex (json_hex's) back to bytes: their count, or -1 when not
 * such hex or longer than max bytes. */
long kept_unhex(const char *hex, uint8_t *out, size_t max);

#endif
